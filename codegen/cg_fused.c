/* fused_elementwise on the GPU (glsl/elementwise_fused.comp). */
#include "codegen/cg_ops.h"

vkml_status cg_node_fused_elementwise(const ir_node *n, const cg_template *st,
                                      const cg_schedule *s, const ir_target *t, cg_kernel *k) {
  (void)n, (void)st, (void)s, (void)t, (void)k;
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "fused_elementwise: no GPU kernel yet");
}
