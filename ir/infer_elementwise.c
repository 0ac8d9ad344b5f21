/* PLACEHOLDER: shape inference being written. */
#include "infer.h"

vkml_status ir_infer_unary(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_not(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_cast(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_binary(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_compare(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_logic(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_prelu(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_variadic(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_where(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

