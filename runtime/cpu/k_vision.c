/* PLACEHOLDER: kernels being written. */
#include "cpu_kernels.h"

vkml_status rt_cpu_topk(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_cumsum(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_non_max_suppression(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_roi_align(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

