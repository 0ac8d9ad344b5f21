/* Shape inference for elementwise ops: unary, cast, binary arithmetic,
 * comparisons, logic, prelu, variadic min/max/sum/mean and where. Types are
 * checked against docs/ops.md; shapes broadcast NumPy-style. */
#include "infer.h"
#include "params.h"

static bool is_numeric(ir_dtype d) { return d != IR_BOOL; }

static vkml_status want_float(const ir_node *n, const char *what, ir_dtype d) {
  if (ir_dtype_is_float(d)) return VKML_OK;
  return ir_infer_error("%s: %s must be f32 or f16, got %s", ir_op_name(n->op),
                        what, ir_dtype_name(d));
}

static vkml_status want_numeric(const ir_node *n, const char *what, ir_dtype d) {
  if (is_numeric(d)) return VKML_OK;
  return ir_infer_error("%s: %s must be numeric, got %s", ir_op_name(n->op),
                        what, ir_dtype_name(d));
}

static vkml_status want_bool(const ir_node *n, const char *what, ir_dtype d) {
  if (d == IR_BOOL) return VKML_OK;
  return ir_infer_error("%s: %s must be bool, got %s", ir_op_name(n->op), what,
                        ir_dtype_name(d));
}

static vkml_status want_same(const ir_node *n, const ir_type *a,
                             const ir_type *b) {
  if (a->dtype == b->dtype) return VKML_OK;
  return ir_infer_error("%s: input dtypes differ (%s and %s)", ir_op_name(n->op),
                        ir_dtype_name(a->dtype), ir_dtype_name(b->dtype));
}

/* Broadcast with the op's name on the message. */
static vkml_status bcast(const ir_node *n, const ir_type *a, const ir_type *b,
                         ir_type *out) {
  vkml_status s = ir_broadcast(a, b, out);
  return s ? vkml_status_annotate(s, "%s", ir_op_name(n->op)) : VKML_OK;
}

vkml_status ir_infer_unary(const ir_node *n, const ir_type *in, ir_type *out) {
  switch (n->op) {
  case IR_OP_IDENTITY:
  case IR_OP_REORDER:
  case IR_OP_DOWNLOAD:
  case IR_OP_UPLOAD: break;
  case IR_OP_NEG:
  case IR_OP_ABS:
  case IR_OP_SIGN:
  case IR_OP_CLIP:
    VKML_RETURN_IF_ERROR(want_numeric(n, "input", in[0].dtype));
    break;
  case IR_OP_NOT:
    VKML_RETURN_IF_ERROR(want_bool(n, "input", in[0].dtype));
    break;
  default:
    VKML_RETURN_IF_ERROR(want_float(n, "input", in[0].dtype));
    break;
  }
  out[0] = in[0];
  return VKML_OK;
}

vkml_status ir_infer_not(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_bool(n, "input", in[0].dtype));
  out[0] = in[0];
  return VKML_OK;
}

vkml_status ir_infer_cast(const ir_node *n, const ir_type *in, ir_type *out) {
  if (!ir_node_attr(n, IR_A_TO))
    return ir_infer_error("%s: attribute 'to' is required", ir_op_name(n->op));
  int64_t to = ir_node_int(n, IR_A_TO, 0);
  if (to < 0 || to >= IR_DTYPE_COUNT)
    return ir_infer_error("%s: 'to' is not an element type", ir_op_name(n->op));
  out[0] = in[0];
  out[0].dtype = (ir_dtype)to;
  return VKML_OK;
}

vkml_status ir_infer_binary(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_numeric(n, "first input", in[0].dtype));
  VKML_RETURN_IF_ERROR(want_numeric(n, "second input", in[1].dtype));
  /* pow's exponent may have its own dtype; the result is the base's. */
  if (n->op != IR_OP_POW) VKML_RETURN_IF_ERROR(want_same(n, &in[0], &in[1]));
  return bcast(n, &in[0], &in[1], &out[0]);
}

vkml_status ir_infer_compare(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_same(n, &in[0], &in[1]));
  if (n->op != IR_OP_EQUAL)
    VKML_RETURN_IF_ERROR(want_numeric(n, "input", in[0].dtype));
  VKML_RETURN_IF_ERROR(bcast(n, &in[0], &in[1], &out[0]));
  out[0].dtype = IR_BOOL;
  return VKML_OK;
}

vkml_status ir_infer_logic(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_bool(n, "first input", in[0].dtype));
  VKML_RETURN_IF_ERROR(want_bool(n, "second input", in[1].dtype));
  return bcast(n, &in[0], &in[1], &out[0]);
}

vkml_status ir_infer_prelu(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_float(n, "input", in[0].dtype));
  VKML_RETURN_IF_ERROR(want_same(n, &in[0], &in[1]));
  ir_type b;
  VKML_RETURN_IF_ERROR(bcast(n, &in[0], &in[1], &b));
  /* The slope broadcasts to x, never the other way round. */
  bool same = b.rank == in[0].rank;
  for (int i = 0; same && i < b.rank; i++) same = b.dims[i] == in[0].dims[i];
  if (!same) {
    char sx[200], ss[200];
    ir_dims_format(&in[0], sx, sizeof sx);
    ir_dims_format(&in[1], ss, sizeof ss);
    return ir_infer_error("%s: slope %s does not broadcast to input %s",
                          ir_op_name(n->op), ss, sx);
  }
  out[0] = in[0];
  return VKML_OK;
}

vkml_status ir_infer_variadic(const ir_node *n, const ir_type *in, ir_type *out) {
  if (n->op == IR_OP_MEAN)
    VKML_RETURN_IF_ERROR(want_float(n, "input", in[0].dtype));
  else
    VKML_RETURN_IF_ERROR(want_numeric(n, "input", in[0].dtype));
  ir_type acc = in[0];
  for (int i = 1; i < n->n_inputs; i++) {
    if (in[i].dtype != in[0].dtype)
      return ir_infer_error("%s: input %d is %s, input 0 is %s", ir_op_name(n->op),
                            i, ir_dtype_name(in[i].dtype),
                            ir_dtype_name(in[0].dtype));
    VKML_RETURN_IF_ERROR(bcast(n, &acc, &in[i], &acc));
  }
  out[0] = acc;
  return VKML_OK;
}

vkml_status ir_infer_where(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_bool(n, "condition", in[0].dtype));
  if (in[1].dtype != in[2].dtype)
    return ir_infer_error("%s: x and y dtypes differ (%s and %s)",
                          ir_op_name(n->op), ir_dtype_name(in[1].dtype),
                          ir_dtype_name(in[2].dtype));
  ir_type t;
  VKML_RETURN_IF_ERROR(bcast(n, &in[1], &in[2], &t));
  VKML_RETURN_IF_ERROR(bcast(n, &t, &in[0], &t));
  t.dtype = in[1].dtype;
  out[0] = t;
  return VKML_OK;
}

/* fused_elementwise: the program checked (ir_fused_program_get), every
 * input of one float dtype, the output their broadcast: the program runs
 * at the output's resolution, each input read through its broadcast. */
vkml_status ir_infer_fused_elementwise(const ir_node *n, const ir_type *in, ir_type *out) {
  ir_fused_program p;
  VKML_RETURN_IF_ERROR(ir_fused_program_get(n, &p));
  VKML_RETURN_IF_ERROR(want_float(n, "input 0", in[0].dtype));
  ir_type acc = in[0];
  for (int i = 1; i < n->n_inputs; i++) {
    if (in[i].dtype != in[0].dtype)
      return ir_infer_error("%s: input %d is %s, input 0 is %s", ir_op_name(n->op), i,
                            ir_dtype_name(in[i].dtype), ir_dtype_name(in[0].dtype));
    VKML_RETURN_IF_ERROR(bcast(n, &acc, &in[i], &acc));
  }
  out[0] = acc;
  return VKML_OK;
}
