/* PLACEHOLDER: shape inference being written. */
#include "infer.h"

vkml_status ir_infer_reshape(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_flatten(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_squeeze(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_unsqueeze(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_transpose(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_concat(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_split(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_slice(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_pad(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_expand(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_tile(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_gather(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_gather_elements(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

