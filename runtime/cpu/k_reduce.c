/* PLACEHOLDER: kernels being written. */
#include "cpu_kernels.h"

vkml_status rt_cpu_reduce(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_argminmax(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

