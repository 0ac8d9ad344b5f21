/* Vision ops (topk, cumsum, non_max_suppression, roi_align) get their GPU
 * kernels (segmented argsort, register-blocked scan, NMS, RoiAlign) with
 * their own issue; until then the placement puts them on the CPU. */
#include "codegen/cg_ops.h"

static vkml_status on_cpu(const ir_node *n) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED,
                          "%s has no GPU kernel yet (vision ops run on the CPU)",
                          ir_op_name(n->op));
}

#define VISION(f)                                                              \
  vkml_status cg_node_##f(const ir_node *n, const cg_template *st,             \
                          const cg_schedule *s, const ir_target *t,            \
                          cg_kernel *out) {                                    \
    (void)st, (void)s, (void)t, (void)out;                                     \
    return on_cpu(n);                                                          \
  }
VISION(topk)
VISION(cumsum)
VISION(non_max_suppression)
VISION(roi_align)
