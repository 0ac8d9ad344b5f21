/* PLACEHOLDER: kernels being written. */
#include "cpu_kernels.h"

vkml_status rt_cpu_gather(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

vkml_status rt_cpu_gather_elements(const rt_cpu_args *a) {
  return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "NOT IMPLEMENTED YET");
}

