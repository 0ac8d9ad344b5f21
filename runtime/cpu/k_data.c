/* PLACEHOLDER: kernels being written. */
#include "cpu_kernels.h"

vkml_status rt_cpu_copy(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_transpose(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_concat(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_split(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_slice(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_pad(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_expand(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_tile(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

