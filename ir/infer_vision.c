/* PLACEHOLDER: shape inference being written. */
#include "infer.h"

vkml_status ir_infer_topk(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_cumsum(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_non_max_suppression(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_roi_align(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

