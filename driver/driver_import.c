/* The compile's first stage (driver.h): a model file or bytes, ONNX or IR
 * text, to a verified graph; and the command-line values the importer
 * knows how to read (op lists, input shapes). */
#include <stdio.h>
#include <string.h>

#include "driver/driver.h"
#include "frontend/onnx_import.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n > m && !strcmp(path + n - m, ext);
}

vkml_status drv_import(const drv_source *src, const drv_opts *o, ir_graph **out) {
  *out = NULL;
  static const drv_opts none;
  if (!o) o = &none;
  if (!src || (!src->path && !src->data))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "no model given");
  const char *name = src->path ? src->path : src->name ? src->name : "<memory>";
  /* a ModelProto starts with field 1 (ir_version, 0x08); IR text never does */
  bool onnx = src->path ? has_ext(src->path, ".onnx")
                        : src->bytes > 0 && ((const unsigned char *)src->data)[0] == 0x08;
  if (src->path && !onnx && !has_ext(src->path, ".vkir"))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: expected a .onnx or .vkir model",
                            src->path);
  if (onnx) {
    onnx_import_opts io = o->import;
    io.eval = rt_cpu_eval_node; /* folds shape computations */
    return src->path ? onnx_import_file(src->path, &io, out)
                     : onnx_import_buffer(src->data, src->bytes, name, &io, out);
  }
  if (o->import.n_shapes || o->import.n_consts)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %s apply to .onnx models only",
                            name,
                            o->import.n_shapes ? "input shapes (--input-shape)" : "frozen inputs");
  if (src->path) return ir_parse_file(src->path, out);
  vkml_status s = ir_parse(src->data, src->bytes, name, out);
  if (!s) s = ir_verify(*out, name);
  if (s) {
    ir_graph_destroy(*out);
    *out = NULL;
  }
  return s;
}

vkml_status drv_op_list_parse(const char *list, const char *what, bool *mask) {
  return onnx_op_list_parse(list, what, mask);
}

vkml_status drv_shape_arg_parse(const char *arg, char **name, int *rank,
                                int64_t dims[IR_MAX_RANK]) {
  return onnx_shape_arg_parse(arg, name, rank, dims);
}
