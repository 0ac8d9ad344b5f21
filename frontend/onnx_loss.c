/* The loss ops, lowered at import into ops that have CPU and GPU kernels (as
 * onnx_lowered.c does for its ops):
 *   NegativeLogLikelihoodLoss  x [N, C, d...], target [N, d...], weight [C]:
 *       loss[n, d] = -x[n, t, d] * weight[t] (t = target[n, d]), 0 where t is
 *       ignore_index; reduction none, sum, or mean = sum(loss) / sum(weights
 *       taken) (the count of targets not ignored when there is no weight)
 *   SoftmaxCrossEntropyLoss    the same on log_softmax(scores, axis 1), which
 *       is its second output (log_prob)
 * gather_elements reads x at the targets (an ignored target reads class 0);
 * a target outside [0, C) that is not ignored fails the run as
 * gather_elements' does. f32 scores only. */
#include <string.h>

#include "onnx_internal.h"

typedef enum loss_reduction { LOSS_NONE, LOSS_SUM, LOSS_MEAN } loss_reduction;

static vkml_status axes_op(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *v, int64_t axis,
                           ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

static vkml_status scalar(onnx_ctx *c, ir_dtype dt, double v, ir_value **out) {
  void *d = onnx_alloc(c, 8);
  if (!d) return ir_oom(NULL);
  ir_dtype_store_f64(dt, d, 0, v);
  ir_type t = ir_type_make(dt, 0, NULL);
  return onnx_const_value(c, "k", &t, d, out);
}

static vkml_status reduction_attr(onnx_ctx *c, onnx_node *n, loss_reduction *out) {
  const char *r = onnx_attr_s(c, n, "reduction", "mean");
  VKML_RETURN_IF_ERROR(n->err);
  if (!strcmp(r, "none")) *out = LOSS_NONE;
  else if (!strcmp(r, "sum")) *out = LOSS_SUM;
  else if (!strcmp(r, "mean")) *out = LOSS_MEAN;
  else return onnx_error(VKML_CODE_INVALID_GRAPH, "reduction '%s' (none, sum or mean)", r);
  return VKML_OK;
}

/* The sum of every element of v (a scalar). */
static vkml_status sum_all(onnx_ctx *c, onnx_node *n, ir_value *v, ir_value **out) {
  int64_t axes[IR_MAX_RANK];
  for (int i = 0; i < v->type.rank; i++) axes[i] = i;
  if (!v->type.rank) {
    *out = v;
    return VKML_OK;
  }
  return onnx_reduce(c, n, IR_OP_REDUCE_SUM, v, axes, v->type.rank, false, out);
}

/* The negative log-likelihood of x (log-probabilities [N, C, d...]) at
 * target t, weighted by w (NULL: none), ignoring ignore_index where has_ii;
 * output 0 of n bound to the loss. */
static vkml_status nll(onnx_ctx *c, onnx_node *n, ir_value *x, ir_value *t, ir_value *w,
                       bool has_ii, int64_t ii, loss_reduction red) {
  const ir_type *xt = &x->type, *tt = &t->type;
  if (xt->dtype != IR_F32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "scores of %s (imported for f32 only)",
                      ir_dtype_name(xt->dtype));
  if (tt->dtype != IR_I64 && tt->dtype != IR_I32)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the target is %s (int32 or int64)",
                      ir_dtype_name(tt->dtype));
  if (xt->bounded || tt->bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "inputs sized at run time");
  bool shape_ok = xt->rank >= 2 && tt->rank == xt->rank - 1 && tt->dims[0] == xt->dims[0];
  for (int i = 2; shape_ok && i < xt->rank; i++) shape_ok = tt->dims[i - 1] == xt->dims[i];
  if (!shape_ok) {
    char a[128], b[128];
    ir_type_format(xt, a, sizeof a);
    ir_type_format(tt, b, sizeof b);
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "input %s and target %s: the target must be the input without axis 1", a,
                      b);
  }
  int64_t classes = xt->dims[1];
  if (w && (w->type.rank != 1 || w->type.dims[0] != classes || w->type.dtype != IR_F32 ||
            w->type.bounded)) {
    char a[128];
    ir_type_format(&w->type, a, sizeof a);
    return onnx_error(VKML_CODE_INVALID_GRAPH, "weight %s for %lld classes (f32[C])", a,
                      (long long)classes);
  }
  ir_value *ti, *valid = NULL;
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, t, IR_I64, &ti));
  if (has_ii) {
    ir_value *iv, *eq, *zero;
    VKML_RETURN_IF_ERROR(scalar(c, IR_I64, (double)ii, &iv));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_EQUAL, ti, iv, &eq));
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_NOT, &eq, 1, false, &valid));
    VKML_RETURN_IF_ERROR(scalar(c, IR_I64, 0, &zero));
    VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, valid, ti, zero, &ti));
  }
  ir_value *tu, *g, *picked, *loss, *wt = NULL;
  VKML_RETURN_IF_ERROR(axes_op(c, n, IR_OP_UNSQUEEZE, ti, 1, &tu));
  ir_node *ge;
  ir_value *gins[2] = {x, tu};
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_GATHER_ELEMENTS, gins, 2, 1, false, &ge));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, ge, IR_A_AXIS, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, ge));
  g = ge->outputs[0];
  VKML_RETURN_IF_ERROR(axes_op(c, n, IR_OP_SQUEEZE, g, 1, &picked));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_NEG, &picked, 1, false, &loss));
  if (w) {
    ir_node *gw;
    ir_value *wins[2] = {w, ti};
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_GATHER, wins, 2, 1, false, &gw));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, gw, IR_A_AXIS, 0));
    VKML_RETURN_IF_ERROR(onnx_finish(c, gw));
    wt = gw->outputs[0];
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, loss, wt, &loss));
  }
  if (valid) {
    ir_value *zero;
    VKML_RETURN_IF_ERROR(scalar(c, IR_F32, 0, &zero));
    VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, valid, loss, zero, &loss));
    if (wt) VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, valid, wt, zero, &wt));
    else VKML_RETURN_IF_ERROR(onnx_cast(c, n, valid, IR_F32, &wt));
  }
  if (red == LOSS_NONE) return onnx_bind_named(c, n, 0, loss);
  ir_value *total;
  VKML_RETURN_IF_ERROR(sum_all(c, n, loss, &total));
  if (red == LOSS_SUM) return onnx_bind_named(c, n, 0, total);
  ir_value *den, *y;
  if (wt) {
    VKML_RETURN_IF_ERROR(sum_all(c, n, wt, &den));
  } else {
    int64_t count = ir_type_numel(&loss->type);
    VKML_RETURN_IF_ERROR(scalar(c, IR_F32, (double)count, &den));
  }
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, total, den, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* What both ops read: the scores or log-probabilities x (input 0), the
 * target t (1), the optional weight w (2; NULL), and the attributes. */
typedef struct loss_in {
  ir_value *x, *t, *w;
  bool has_ii;
  int64_t ii;
  loss_reduction red;
} loss_in;

static vkml_status loss_inputs(onnx_ctx *c, onnx_node *n, loss_in *l) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  l->has_ii = onnx_attr(n, "ignore_index") != NULL;
  l->ii = onnx_attr_i(n, "ignore_index", 0);
  VKML_RETURN_IF_ERROR(n->err);
  VKML_RETURN_IF_ERROR(reduction_attr(c, n, &l->red));
  l->w = NULL;
  if (onnx_has_input(n, 2)) VKML_RETURN_IF_ERROR(onnx_input(c, n, 2, &l->w));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &l->x));
  return onnx_input(c, n, 1, &l->t);
}

vkml_status onnx_convert_nll_loss(onnx_ctx *c, onnx_node *n) {
  loss_in l;
  VKML_RETURN_IF_ERROR(loss_inputs(c, n, &l));
  return nll(c, n, l.x, l.t, l.w, l.has_ii, l.ii, l.red);
}

vkml_status onnx_convert_softmax_cross_entropy(onnx_ctx *c, onnx_node *n) {
  loss_in l;
  VKML_RETURN_IF_ERROR(loss_inputs(c, n, &l));
  if (l.x->type.rank < 2)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "scores of rank %d (at least [N, C])",
                      l.x->type.rank);
  ir_node *ls;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_LOG_SOFTMAX, &l.x, 1, 1, false, &ls));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, ls, IR_A_AXIS, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, ls));
  ir_value *lp = ls->outputs[0];
  VKML_RETURN_IF_ERROR(nll(c, n, lp, l.t, l.w, l.has_ii, l.ii, l.red));
  if (onnx_n_outputs(n) > 1 && onnx_output_used(n, 1))
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, 1, lp));
  return VKML_OK;
}
