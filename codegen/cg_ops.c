/* The node -> GPU kernel table, driven by the op table's kernel families. */
#include "codegen/cg_ops.h"

typedef vkml_status (*cg_node_fn)(const ir_node *, const cg_template *,
                                  const cg_schedule *, const ir_target *, cg_kernel *);

static const cg_node_fn node_fns[IR_OP_COUNT] = {
#define X(id, name, family) [IR_OP_##id] = cg_node_##family,
    IR_OPS(X)
#undef X
};

vkml_status cg_kernel_for_node(const ir_node *n, const cg_template *sched_template,
                               const cg_schedule *sched, const ir_target *t,
                               cg_kernel *out) {
  if ((unsigned)n->op >= IR_OP_COUNT)
    return vkml_status_make(VKML_CODE_INTERNAL, "unknown op %d", (int)n->op);
  return node_fns[n->op](n, sched_template, sched, t, out);
}
