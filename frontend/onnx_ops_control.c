/* Control flow: If. Both branches are converted into the one graph (their
 * initializers and nodes; names stay unique, as ONNX requires across
 * subgraphs). A condition known at import time binds the outputs to the
 * taken branch, whose nodes alone are converted. A run-time condition runs
 * both branches — they have no side effects — and selects each output with
 * `where` on the scalar condition, on the device; that needs one static
 * type per output in both branches (otherwise UNSUPPORTED naming both). A
 * data-dependent error in the branch not taken (an index out of range)
 * still fails the run. */
#include <string.h>

#include "onnx_internal.h"

static const Onnx__GraphProto *branch(onnx_node *n, const char *name) {
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  return a ? a->g : NULL;
}

static vkml_status convert_branch(onnx_ctx *c, const Onnx__GraphProto *gp, const char *which,
                                  int n_out) {
  if ((int)gp->n_output != n_out)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s has %zu outputs, the If %d", which,
                      gp->n_output, n_out);
  return vkml_status_annotate(onnx_convert_subgraph(c, gp), "in %s", which);
}

vkml_status onnx_convert_if(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  const Onnx__GraphProto *gt = branch(n, "then_branch"), *ge = branch(n, "else_branch");
  if (!gt || !ge)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "then_branch and else_branch are required");
  const onnx_sym *cond = n->in[0];
  if (cond->type.dtype != IR_BOOL || ir_type_numel(&cond->type) != 1 || cond->type.bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the condition must be one bool");
  int n_out = onnx_n_outputs(n);
  if (cond->is_const) {
    bool take = ((const uint8_t *)cond->data)[0] != 0;
    const Onnx__GraphProto *gp = take ? gt : ge;
    VKML_RETURN_IF_ERROR(convert_branch(c, gp, take ? "then_branch" : "else_branch", n_out));
    for (int i = 0; i < n_out; i++)
      if (onnx_output_used(n, i))
        VKML_RETURN_IF_ERROR(onnx_bind_sym(c, n, i, onnx_sym_get(c, gp->output[i]->name)));
    return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(convert_branch(c, gt, "then_branch", n_out));
  VKML_RETURN_IF_ERROR(convert_branch(c, ge, "else_branch", n_out));
  ir_value *cv;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &cv));
  if (cv->type.rank) VKML_RETURN_IF_ERROR(onnx_reshape(c, n, cv, 0, NULL, false, &cv));
  for (int i = 0; i < n_out; i++) {
    if (!onnx_output_used(n, i)) continue;
    onnx_sym *st = onnx_sym_get(c, gt->output[i]->name), *se = onnx_sym_get(c, ge->output[i]->name);
    if (!ir_type_equal(&st->type, &se->type) || st->type.bounded) {
      char a[128], b[128];
      ir_type_format(&st->type, a, sizeof a);
      ir_type_format(&se->type, b, sizeof b);
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "a run-time condition selecting output %d of %s (then_branch) or %s "
                        "(else_branch): only one static type is supported",
                        i, a, b);
    }
    ir_value *ins[3] = {cv, NULL, NULL}, *y;
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, st, &ins[1]));
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, se, &ins[2]));
    ir_node *nd;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_WHERE, ins, 3, 1, false, &nd));
    VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
    y = nd->outputs[0];
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, i, y));
  }
  return VKML_OK;
}
