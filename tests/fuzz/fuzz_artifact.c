/* libFuzzer harness for the .vkm artifact decoder: any byte string must give
 * a plan or an error status, never a crash, leak or undefined behaviour; a
 * plan it accepts must encode again (and the encoding decode to a plan).
 * Built with -Dfuzz=true (clang), which defines
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION: checksum mismatches are then
 * ignored, so mutations reach the section decoders. Seed it with compiled
 * artifacts, e.g.:
 *   vkc compile tests/models/tinycnn/model.vkir -o CORPUS/tinycnn.vkm
 *   build-fuzz/tests/fuzz/fuzz_artifact -max_total_time=600 -rss_limit_mb=2048 CORPUS */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ir/artifact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ir_plan *p = NULL;
  vkml_status s = ir_artifact_decode(data, size, "fuzz", &p);
  if (!s) {
    ir_artifact_meta m = {.tool = "fuzz"};
    uint8_t *bytes = NULL;
    size_t n = 0;
    s = ir_artifact_encode(p, &m, &bytes, &n);
    if (!s) {
      ir_plan *q = NULL;
      s = ir_artifact_decode(bytes, n, "fuzz (re-encoded)", &q);
      if (s) abort(); /* what we wrote, we must read */
      ir_plan_destroy(q);
    }
    free(bytes);
  }
  vkml_status_free(s);
  ir_plan_destroy(p);
  return 0;
}
