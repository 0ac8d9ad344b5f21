/* PLACEHOLDER: shape inference being written. */
#include "infer.h"

vkml_status ir_infer_conv2d(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_conv_transpose2d(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_gemm(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_matmul(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_batchnorm(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_instance_norm(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_layer_norm(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_pool(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_global_pool(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_softmax(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_resize(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_reduce(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

vkml_status ir_infer_argminmax(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n; (void)in; (void)out;
  return ir_infer_error("NOT IMPLEMENTED YET");
}

