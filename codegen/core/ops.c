/* The node -> GPU kernel table, driven by the op table's kernel families,
 * and the layout guard in front of it: only the operands
 * cg_node_layout_operands names (codegen/core/layout.c) may be packed, so the families
 * without packed paths never see a packed operand. */
#include "codegen/core/ops.h"

#include <stdlib.h>
#include <string.h>

#include "codegen/core/extent.h"

static const cg_node_fn node_fns[IR_OP_COUNT] = {
#define X(id, name, family, ...) [IR_OP_##id] = cg_node_##family,
    IR_OPS(X)
#undef X
};

cg_node_fn cg_node_fn_for(const ir_node *n) {
  /* the reduction template of the global pools reads rows only: packed,
   * they are a pool2d window over the whole plane */
  if ((n->op == IR_OP_GLOBAL_AVG_POOL || n->op == IR_OP_GLOBAL_MAX_POOL) &&
      ir_node_any_packed(n))
    return cg_node_pool;
  return node_fns[n->op];
}

/* OK when n's kernel takes its operands in the layouts they have: every
 * non-default operand is in the node's mask for its layout (nc4hw4, or
 * nhwc on target t; one of the two per node), and (but for reorder and
 * identity, which convert) the masked operands are all in it or none; a
 * conv2d's w may be tap-major (nhwc: the conv templates say which read it
 * so). */
static vkml_status check_layouts(const ir_node *n, const ir_target *t) {
  ir_layout lay = IR_LAYOUT_NC4HW4;
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    bool is_in = i < n->n_inputs;
    int j = is_in ? i : i - n->n_inputs;
    const ir_value *v = is_in ? n->inputs[j] : n->outputs[j];
    if (!v || (is_in && j == 1 && n->op == IR_OP_CONV2D)) continue;
    if (v->layout == IR_LAYOUT_NHWC) lay = IR_LAYOUT_NHWC;
  }
  uint32_t mask = cg_node_layout_operands_on(n, lay, t);
  int n_masked = 0, n_packed = 0;
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    bool is_in = i < n->n_inputs;
    int j = is_in ? i : i - n->n_inputs;
    const ir_value *v = is_in ? n->inputs[j] : n->outputs[j];
    if (!v) continue;
    bool masked = j < 16 && ((mask >> (is_in ? j : 16 + j)) & 1);
    if (is_in && j == 1 && n->op == IR_OP_CONV2D && v->layout == IR_LAYOUT_NHWC) continue;
    if (v->layout != IR_LAYOUT_DEFAULT && (v->layout != lay || !masked))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: %%%s in layout %s: this kernel reads the default layout only",
                              ir_op_name(n->op), v->name ? v->name : "?",
                              ir_layout_name(v->layout));
    n_masked += masked;
    n_packed += masked && v->layout != IR_LAYOUT_DEFAULT;
  }
  if (n->op != IR_OP_REORDER && n->op != IR_OP_IDENTITY && n_packed && n_packed != n_masked)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %d of its %d activations in layout %s: the kernel takes "
                            "them all packed or none",
                            ir_op_name(n->op), n_packed, n_masked, ir_layout_name(lay));
  return VKML_OK;
}

/* The elementwise kernels compare their bounded inputs' extent words
 * (glsl/extent_check.glsl, through the extent ABI) when asked: one more
 * binding, the error slot. */
static vkml_status add_extent_check(const ir_node *n, cg_kernel *k) {
  const char *tm = k->tmpl ? k->tmpl->name : "";
  if ((strcmp(tm, "elementwise_binary") && strcmp(tm, "elementwise_nary")) || n->n_inputs > 4 ||
      k->error_slot)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: bounded inputs of sizes not known to agree, and kernel %s "
                            "does not compare them",
                            ir_op_name(n->op), tm);
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "EXTENT_CHECK", "1"));
  k->n_buffers += 1;
  k->error_slot = true;
  return VKML_OK;
}

/* n over bounded rows (codegen/core/extent.h): its unbounded twin's kernel at the
 * capacity, the outputs' extent taken from input `from`. */
static vkml_status rows_kernel(const ir_node *n, int from, const cg_template *sched_template,
                               const cg_schedule *sched, const ir_target *t, cg_kernel *out) {
  cg_twin twin;
  VKML_RETURN_IF_ERROR(cg_twin_make(n, &twin));
  vkml_status s = cg_node_fn_for(&twin.node)(&twin.node, sched_template, sched, t, out);
  cg_twin_free(&twin);
  if (!s && cg_rows_check_extents(n)) s = add_extent_check(n, out);
  /* the template sees the twin's operands, not bounded (glsl/extent.glsl) */
  if (!s) s = cg_kernel_define(out, "VKML_EXT_TWIN", "1");
  if (!s) out->extent_from = 1 + from;
  return s;
}

static vkml_status kernel_for_node(const ir_node *n, const cg_template *sched_template,
                                   const cg_schedule *sched, const ir_target *t,
                                   cg_kernel *out) {
  if ((unsigned)n->op >= IR_OP_COUNT)
    return vkml_status_make(VKML_CODE_INTERNAL, "unknown op %d", (int)n->op);
  /* the plan's transfer steps, not kernels */
  if (ir_op_get(n->op)->flags & IR_OPF_TRANSFER)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s is a transfer, not a kernel",
                            ir_op_name(n->op));
  /* bounded operands: the unbounded twin over the capacity where the op
   * keeps the rows, else the bounded-rows copy where the op table says so;
   * other kernels read extent words themselves (IR_OPF_READS_EXTENT) or
   * refuse */
  int rows = cg_rows_extent_input(n);
  if (rows >= 0) return rows_kernel(n, rows, sched_template, sched, t, out);
  if ((ir_op_get(n->op)->flags & IR_OPF_ROWS_COPY) && n->n_inputs >= 1 && n->n_outputs >= 1 &&
      (n->inputs[0]->type.bounded || n->outputs[0]->type.bounded))
    return cg_node_rows_copy(n, sched_template, sched, t, out);
  if (ir_node_any_packed(n)) VKML_RETURN_IF_ERROR(check_layouts(n, t));
  return cg_node_fn_for(n)(n, sched_template, sched, t, out);
}

vkml_status cg_kernel_for_node(const ir_node *n, const cg_template *sched_template,
                               const cg_schedule *sched, const ir_target *t,
                               cg_kernel *out) {
  VKML_RETURN_IF_ERROR(kernel_for_node(n, sched_template, sched, t, out));
  return cg_extent_abi(n, out);
}
