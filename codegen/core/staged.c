/* The staged ops (staged.h): their refusing family entries and what their
 * stages need of a target. */
#include <stdio.h>

#include "codegen/core/staged.h"
#include "codegen/core/ops.h"
#include "codegen/core/extent.h"
#include "ir/infer.h"
static vkml_status staged(const ir_node *n) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED,
                          "%s has no kernel of its own: on the GPU it runs in stages "
                          "(passes split_sort / split_nms / split_nonzero)",
                          ir_op_name(n->op));
}

vkml_status cg_node_argsort(const ir_node *n, const cg_template *st, const cg_schedule *s,
                            const ir_target *t, cg_kernel *out) {
  (void)st, (void)s, (void)t, (void)out;
  return staged(n);
}

vkml_status cg_node_non_zero(const ir_node *n, const cg_template *st, const cg_schedule *s,
                             const ir_target *t, cg_kernel *out) {
  (void)st, (void)s, (void)t, (void)out;
  return staged(n);
}

vkml_status cg_node_non_max_suppression(const ir_node *n, const cg_template *st,
                                        const cg_schedule *s, const ir_target *t,
                                        cg_kernel *out) {
  (void)st, (void)s, (void)t, (void)out;
  return staged(n);
}

const char *cg_staged_reason(const ir_node *n, const ir_target *t, char *why, size_t bytes) {
  const ir_type *x = &n->inputs[0]->type;
  /* bounded and still on the GPU: one-row NMS (glsl/nms_window.comp), a
   * non_zero of a value whose rows lead (its stages read the count) */
  bool one_row = (n->op == IR_OP_NON_MAX_SUPPRESSION &&
                  ir_nms_is_one_row(&n->inputs[0]->type, &n->inputs[1]->type)) ||
                 (n->op == IR_OP_NON_ZERO && cg_rows_leading(n->inputs[0]));
  for (int i = 0; i < n->n_inputs; i++) {
    if (n->inputs[i]->type.bounded && !one_row)
      return "a bounded input stays on the CPU (but a one-row NMS's, a non_zero's whose rows "
             "lead)";
    if (ir_type_numel(&n->inputs[i]->type) >= (INT64_C(1) << 31) / 3)
      return "too many elements for 32-bit indices";
  }
  if (n->op == IR_OP_ARGSORT && cg_sort_key_dtype(x->dtype) < 0) {
    snprintf(why, bytes, "%s keys sort on the CPU (the GPU's order keys: f32, f16, i32, i64)",
             ir_dtype_name(x->dtype));
    return why;
  }
  if (n->op == IR_OP_NON_ZERO && (cg_nonzero_dtype(x->dtype) < 0 || x->rank > 8)) {
    snprintf(why, bytes, "non_zero of %s stays on the CPU", ir_dtype_name(x->dtype));
    return why;
  }
  if (n->op == IR_OP_NON_MAX_SUPPRESSION && x->dtype != IR_F32 && x->dtype != IR_F16) {
    snprintf(why, bytes, "%s boxes stay on the CPU", ir_dtype_name(x->dtype));
    return why;
  }
  if (x->dtype == IR_F16 && !t->storage_16bit) return "f16 needs 16-bit storage";
  if (t->max_shared_bytes < 1024 * 12) return "the device's shared memory is under 12 KiB";
  return NULL;
}

int cg_sort_key_dtype(ir_dtype d) {
  return d == IR_F32 ? 0 : d == IR_F16 ? 1 : d == IR_I32 ? 2 : d == IR_I64 ? 3 : -1;
}

int cg_nonzero_dtype(ir_dtype d) {
  switch (d) {
  case IR_F32: return 0;
  case IR_F16: return 1;
  case IR_I32: return 2;
  case IR_I64: return 3;
  case IR_BOOL:
  case IR_U8:
  case IR_I8: return 4; /* bytes read from 32-bit words */
  default: return -1;
  }
}
