/* libFuzzer harness for the .npy reader (runtime/npy.c): any byte string
 * must give a tensor or an error status, never a crash, leak, undefined
 * behaviour or an allocation the header alone asks for (the header is
 * checked against the data's size first). A tensor it accepts encodes and
 * parses back to the same bytes. Built with -Dfuzz=true (clang):
 *   build-fuzz/tests/fuzz/fuzz_npy -max_total_time=600 -rss_limit_mb=2048 CORPUS */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_tensor t;
  vkml_status s = rt_npy_parse(data, size, "fuzz", &t);
  if (!s) {
    void *bytes = NULL;
    size_t n = 0;
    rt_tensor u;
    if (rt_npy_encode(&t, &bytes, &n) || rt_npy_parse(bytes, n, "fuzz (re-encoded)", &u)) abort();
    if (u.dtype != t.dtype || u.rank != t.rank ||
        memcmp(u.dims, t.dims, sizeof t.dims[0] * (size_t)t.rank) ||
        memcmp(u.data, t.data, rt_tensor_bytes(&t)))
      abort();
    rt_tensor_free(&u);
    free(bytes);
    rt_tensor_free(&t);
  }
  vkml_status_free(s);
  return 0;
}
