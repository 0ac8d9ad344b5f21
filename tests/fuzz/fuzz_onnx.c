/* libFuzzer harness for the ONNX importer and the TensorProto reader: any
 * byte string must give a graph or an error status, never a crash, leak or
 * undefined behaviour. Built with -Dfuzz=true (clang). Run e.g.:
 *   build-fuzz/tests/fuzz/fuzz_onnx -max_total_time=600 -rss_limit_mb=2048 \
 *     CORPUS_DIR /usr/share/libonnx-testdata/data/node/<case>/model.onnx ... */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "frontend/onnx_import.h"
#include "runtime/cpu/cpu_kernels.h"
#include "ir/text.h"
#include "runtime/tensor_pb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* No base directory: external data is refused, nothing is read from disk. */
  onnx_import_opts opts = {.eval = rt_cpu_eval_node};
  opts.inline_max_bytes = 16;
  ir_graph *g = NULL;
  vkml_status s = onnx_import_buffer(data, size, "fuzz", &opts, &g);
  if (!s) {
    /* What `vkc import` does next. */
    char *text = NULL;
    size_t len = 0;
    s = ir_print(g, &text, &len);
    free(text);
  }
  vkml_status_free(s);
  ir_graph_destroy(g);

  rt_tensor t;
  char *name = NULL;
  s = rt_tensor_parse_pb(data, size, "fuzz", &t, &name);
  vkml_status_free(s);
  rt_tensor_free(&t);
  free(name);
  return 0;
}
