/* ONNX ops that pick elements by computed indices, lowered at import into
 * ops that have CPU and GPU kernels (as onnx_lowered.c does for its ops):
 *   Compress         gather(x', squeeze(non_zero(condition))), along the axis
 *                    (x' the input flattened when there is no axis, and cut
 *                    to the condition's length when that is shorter): its
 *                    output is sized at run time (bounded by the condition's
 *                    length), as NonZero's is
 *   ReverseSequence  gather_elements(x, expand(where(t < len, len - 1 - t, t)))
 *                    along the time axis, len the batch's sequence length */
#include "onnx_internal.h"

/* An op with one int attribute (axis) on ins, its output *out. */
static vkml_status axis_op(onnx_ctx *c, onnx_node *n, ir_op op, ir_value **ins, int n_in,
                           int64_t axis, ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, ins, n_in, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

vkml_status onnx_convert_compress(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  bool has_axis = onnx_attr(n, "axis") != NULL;
  int64_t axis = onnx_attr_i(n, "axis", 0);
  VKML_RETURN_IF_ERROR(n->err);
  ir_value *x, *cond;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 1, &cond));
  if (x->type.bounded || cond->type.bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "inputs sized at run time");
  if (cond->type.rank != 1 || cond->type.dtype != IR_BOOL) {
    char a[128];
    ir_type_format(&cond->type, a, sizeof a);
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the condition is %s (a 1-D bool)", a);
  }
  if (!has_axis) {
    int64_t numel = ir_type_numel(&x->type);
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 1, &numel, false, &x));
    axis = 0;
  }
  int r = x->type.rank;
  if (axis < -r || axis >= r)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld of a rank-%d input", (long long)axis,
                      r);
  if (axis < 0) axis += r;
  int64_t len = cond->type.dims[0], dim = x->type.dims[axis];
  if (len > dim)
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "a condition of %lld elements for %lld along axis %lld", (long long)len,
                      (long long)dim, (long long)axis);
  /* the elements past the condition are dropped */
  VKML_RETURN_IF_ERROR(onnx_slice_axis(c, n, x, (int)axis, 0, 1, len, &x));
  ir_value *nz, *idx, *y;
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_NON_ZERO, &cond, 1, false, &nz));
  ir_node *sq;
  int64_t zero = 0;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SQUEEZE, &nz, 1, 1, false, &sq));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sq, IR_A_AXES, &zero, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, sq));
  idx = sq->outputs[0];
  ir_value *gins[2] = {x, idx};
  VKML_RETURN_IF_ERROR(axis_op(c, n, IR_OP_GATHER, gins, 2, axis, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_reverse_sequence(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  int64_t ba = onnx_attr_i(n, "batch_axis", 1), ta = onnx_attr_i(n, "time_axis", 0);
  VKML_RETURN_IF_ERROR(n->err);
  ir_value *x, *lens;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 1, &lens));
  const ir_type *xt = &x->type;
  if (xt->bounded || lens->type.bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "inputs sized at run time");
  if (xt->rank < 2 || (ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "batch_axis %lld and time_axis %lld of a rank-%d input (0 and 1, or 1 "
                      "and 0, of rank 2 or more)",
                      (long long)ba, (long long)ta, xt->rank);
  int64_t batch = xt->dims[ba], steps = xt->dims[ta];
  if (lens->type.rank != 1 || lens->type.dims[0] != batch || !ir_dtype_is_int(lens->type.dtype)) {
    char a[128];
    ir_type_format(&lens->type, a, sizeof a);
    return onnx_error(VKML_CODE_INVALID_GRAPH, "sequence_lens %s for a batch of %lld (int[B])",
                      a, (long long)batch);
  }
  int r = xt->rank;
  int64_t ldims[IR_MAX_RANK], tdims[IR_MAX_RANK];
  for (int i = 0; i < r; i++) {
    ldims[i] = i == ba ? batch : 1;
    tdims[i] = i == ta ? steps : 1;
  }
  ir_value *l, *len1, *one, *iota, *lt, *rev, *idx;
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, lens, IR_I64, &l));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, l, r, ldims, false, &l));
  int64_t *k = onnx_alloc(c, sizeof *k * (size_t)(steps + 1));
  if (!k) return ir_oom(NULL);
  k[steps] = 1;
  for (int64_t t = 0; t < steps; t++) k[t] = t;
  ir_type it = ir_type_make(IR_I64, r, tdims), st = ir_type_make(IR_I64, 0, NULL);
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "time", &it, k, &iota));
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "one", &st, &k[steps], &one));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_LESS, iota, l, &lt));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, l, one, &len1));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, len1, iota, &rev));
  ir_value *wins[3] = {lt, rev, iota};
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_WHERE, wins, 3, false, &idx));
  ir_node *ex;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_EXPAND, &idx, 1, 1, false, &ex));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, ex, IR_A_SHAPE, xt->dims, r));
  VKML_RETURN_IF_ERROR(onnx_finish(c, ex));
  ir_value *gins[2] = {x, ex->outputs[0]}, *y;
  VKML_RETURN_IF_ERROR(axis_op(c, n, IR_OP_GATHER_ELEMENTS, gins, 2, ta, &y));
  return onnx_bind_named(c, n, 0, y);
}
