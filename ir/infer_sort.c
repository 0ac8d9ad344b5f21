/* Shape inference for argsort and its GPU stages (sort_block, sort_merge,
 * sort_index), and for non_zero and its stages (nonzero_flags,
 * nonzero_write). Sort:
 * the stages pass a sort state i32[P,n] along: per element its
 * segment, its order key (one plane; two for i64) and its position in x
 * (ir/op_table.c): P = 3, or 4 for i64 keys. */
#include "infer.h"
#include "params.h"

/* x (and offsets): a numeric x; with offsets, x is 1-D and offsets i64[S+1]. */
static vkml_status sort_input(const ir_node *n, const ir_type *in) {
  const ir_type *x = &in[0];
  const char *op = ir_op_name(n->op);
  if (x->dtype == IR_BOOL) return ir_infer_error("%s: input must be numeric, got bool", op);
  if (x->rank == 0) return ir_infer_error("%s: input is a scalar", op);
  if (x->bounded) return ir_infer_error("%s: bounded inputs are not supported", op);
  if (ir_type_numel(x) >= (INT64_C(1) << 31))
    return ir_infer_error("%s: 2^31 elements or more", op);
  if (n->n_inputs == 2 && n->op != IR_OP_SORT_INDEX) {
    const ir_type *o = &in[1];
    if (x->rank != 1)
      return ir_infer_error("%s: with segment offsets the input must be 1-D, got rank %d", op,
                            x->rank);
    if (o->dtype != IR_I64 || o->rank != 1 || o->dims[0] < 1 || o->bounded)
      return ir_infer_error("%s: segment offsets must be i64[S+1], S >= 0", op);
  }
  return VKML_OK;
}

static ir_type state_type(int64_t numel, ir_dtype key) {
  int64_t dims[2] = {key == IR_I64 ? 4 : 3, numel};
  return ir_type_make(IR_I32, 2, dims);
}

static vkml_status want_state(const ir_node *n, const ir_type *st) {
  if (st->dtype != IR_I32 || st->rank != 2 || (st->dims[0] != 3 && st->dims[0] != 4) ||
      st->bounded)
    return ir_infer_error("%s: the sort state must be i32[3,n] (i32[4,n]: 64-bit keys)",
                          ir_op_name(n->op));
  return VKML_OK;
}

static vkml_status want_width(const ir_node *n) {
  int64_t w = ir_node_int(n, IR_A_WIDTH, 0);
  if (w < 1 || (w & (w - 1)) || w > (INT64_C(1) << 30))
    return ir_infer_error("%s: width is %lld, must be a power of two in [1, 2^30]",
                          ir_op_name(n->op), (long long)w);
  return VKML_OK;
}

vkml_status ir_infer_argsort(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(sort_input(n, in));
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_LARGEST, 0));
  out[0] = in[0];
  out[0].dtype = IR_I64;
  return VKML_OK;
}

vkml_status ir_infer_sort_block(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(sort_input(n, in));
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_LARGEST, 0));
  VKML_RETURN_IF_ERROR(want_width(n));
  ir_dtype d = in[0].dtype;
  if (d != IR_F32 && d != IR_F16 && d != IR_I32 && d != IR_I64)
    return ir_infer_error("sort_block: the order key takes f32, f16, i32 or i64, got %s",
                          ir_dtype_name(d));
  out[0] = state_type(ir_type_numel(&in[0]), d);
  return VKML_OK;
}

vkml_status ir_infer_sort_merge(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_state(n, &in[0]));
  VKML_RETURN_IF_ERROR(want_width(n));
  int64_t row = ir_node_int(n, IR_A_ROW, 0);
  if (row < 0 || (row > 0 && in[0].dims[1] % row))
    return ir_infer_error("sort_merge: row is %lld, must divide the %lld elements",
                          (long long)row, (long long)in[0].dims[1]);
  out[0] = in[0];
  return VKML_OK;
}

vkml_status ir_infer_sort_index(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_state(n, &in[0]));
  const int64_t *sh;
  int rank = ir_node_ints(n, IR_A_SHAPE, &sh);
  if (rank < 1 || rank > IR_MAX_RANK)
    return ir_infer_error("sort_index: shape (of the sorted input) is required");
  ir_type t = {.dtype = IR_I64, .rank = rank};
  int64_t numel = 1;
  for (int i = 0; i < t.rank; i++) {
    t.dims[i] = sh[i];
    if (t.dims[i] < 0 || !ir_checked_mul(numel, t.dims[i], &numel))
      return ir_infer_error("sort_index: invalid shape");
  }
  if (numel != in[0].dims[1])
    return ir_infer_error("sort_index: shape has %lld elements, the state %lld",
                          (long long)numel, (long long)in[0].dims[1]);
  if (n->n_inputs == 2) {
    const ir_type *o = &in[1];
    if (t.rank != 1 || o->dtype != IR_I64 || o->rank != 1 || o->dims[0] < 1 || o->bounded)
      return ir_infer_error("sort_index: with segment offsets i64[S+1] the shape is 1-D");
  }
  out[0] = t;
  return VKML_OK;
}

/* ---- non_zero and its stages -------------------------------------------- */

static vkml_status nonzero_input(const ir_node *n, const ir_type *x) {
  if (x->rank == 0)
    return ir_infer_error("%s: the input is a scalar (rank 1 or more)", ir_op_name(n->op));
  /* non_zero of a bounded x: the capacity's positions at most; its GPU
   * stages take one whose rows lead (dims before the bounded axis 1: the
   * live elements a prefix), the elements past them zeros */
  if (x->bounded && n->op != IR_OP_NON_ZERO && !ir_type_rows_lead(x))
    return ir_infer_error("%s: a bounded input's rows must lead (dims before its bounded axis "
                          "1)", ir_op_name(n->op));
  if (ir_type_numel(x) >= (INT64_C(1) << 31))
    return ir_infer_error("%s: 2^31 elements or more", ir_op_name(n->op));
  return VKML_OK;
}

/* i64[rank, <=numel]: the positions, a column each */
static ir_type positions_type(const ir_type *x) {
  int64_t dims[2] = {x->rank, ir_type_numel(x)};
  ir_type t = ir_type_make(IR_I64, 2, dims);
  t.bounded = true;
  t.bounded_axis = 1;
  return t;
}

vkml_status ir_infer_non_zero(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(nonzero_input(n, &in[0]));
  out[0] = positions_type(&in[0]);
  return VKML_OK;
}

vkml_status ir_infer_nonzero_flags(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(nonzero_input(n, &in[0]));
  int64_t numel = ir_type_numel(&in[0]);
  out[0] = ir_type_make(IR_I32, 1, &numel);
  return VKML_OK;
}

vkml_status ir_infer_nonzero_write(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(nonzero_input(n, &in[0]));
  const ir_type *o = &in[1];
  if (o->dtype != IR_I32 || o->rank != 1 || o->dims[0] != ir_type_numel(&in[0]) || o->bounded)
    return ir_infer_error("nonzero_write: offsets must be i32[%lld] (an exclusive cumsum of "
                          "the flags)", (long long)ir_type_numel(&in[0]));
  out[0] = positions_type(&in[0]);
  return VKML_OK;
}
