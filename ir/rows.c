/* Which ops keep a bounded input's rows (ir/rows.h), by the rows column of
 * the op table. */
#include "ir/rows.h"

#include "ir/params.h"

static int64_t row_elems(const ir_type *t) {
  int64_t r = 1;
  for (int d = t->bounded_axis + 1; d < t->rank; d++) r *= t->dims[d];
  return r;
}

/* An unbounded input u of a broadcasting op leaves output axis `axis` (of
 * rank `rank`) alone: it is absent there or 1. */
static bool broadcast_free(const ir_type *u, int rank, int axis) {
  int d = axis - (rank - u->rank);
  return d < 0 || u->dims[d] == 1;
}

/* A transpose that only moves axes of size 1 (the bounded axis counts as
 * large): the elements keep their order, a reshape. */
static bool transpose_is_reshape(const ir_node *n, const ir_type *x) {
  const int64_t *perm;
  int np = ir_node_ints(n, IR_A_PERM, &perm);
  if (np != x->rank) return false; /* the default (reversed) perm: not worth the case */
  int last = -1;
  for (int d = 0; d < np; d++) {
    int a = (int)perm[d];
    if (a < 0 || a >= x->rank) return false;
    if (x->dims[a] == 1 && a != x->bounded_axis) continue;
    if (a < last) return false;
    last = a;
  }
  return true;
}

/* A resize that leaves the batch axis alone: scale 1 there (sizes follow
 * the capacity, not the run-time count) and a coordinate transform mapping
 * output index i to input index i at scale 1 (tf_half_pixel_for_nn maps it
 * to i + 0.5). */
static bool resize_keeps_batch(const ir_node *n, const ir_type *x) {
  ir_resize_params rp;
  vkml_status s = ir_resize_params_get(n, x, &rp);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  return !rp.from_sizes && rp.scale[0] == 1.0f && rp.out_dims[0] == x->dims[0] &&
         rp.coord != IR_COORD_TF_HALF_PIXEL_FOR_NN;
}

/* n's inputs after the data input (weights, bias, statistics) have no
 * bounded axis. */
static bool params_unbounded(const ir_node *n) {
  for (int i = 1; i < n->n_inputs; i++)
    if (n->inputs[i] && n->inputs[i]->type.bounded) return false;
  return true;
}

bool ir_node_keeps_rows(const ir_node *n, int bi) {
  const ir_type *x = &n->inputs[bi]->type, *y = &n->outputs[0]->type;
  int xa = x->bounded_axis, ya = y->bounded_axis, axis;
  switch (ir_op_get(n->op)->rows) {
  case IR_ROWS_NONE: return false;
  case IR_ROWS_SAME: return row_elems(x) == row_elems(y);
  case IR_ROWS_TRANSPOSE: return transpose_is_reshape(n, x) && row_elems(x) == row_elems(y);
  case IR_ROWS_BROADCAST:
    /* bounded operands aligned with the output's bounded axis, the others
     * broadcast along it */
    for (int i = 0; i < n->n_inputs; i++) {
      const ir_type *u = &n->inputs[i]->type;
      if (u->bounded ? u->bounded_axis + (y->rank - u->rank) != ya
                     : !broadcast_free(u, y->rank, ya))
        return false;
    }
    return true;
  case IR_ROWS_GEMM:
    /* A's rows (not transposed); C broadcast along them */
    if (bi != 0 || xa != 0 || ya != 0 || ir_node_int(n, IR_A_TRANS_A, 0)) return false;
    return n->n_inputs < 3 || broadcast_free(&n->inputs[2]->type, 2, 0);
  case IR_ROWS_MATMUL:
    /* A's rows or a batch axis of A that B does not have */
    if (bi != 0 || xa == x->rank - 1 || x->rank < 2) return false;
    if (xa == x->rank - 2) return ya == y->rank - 2;
    return xa + (y->rank - x->rank) == ya && broadcast_free(&n->inputs[1]->type, y->rank, ya);
  case IR_ROWS_AXIS:
    return !ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis) && axis != xa &&
           xa == ya;
  case IR_ROWS_CONCAT:
    /* parts bounded alike, joined along another axis */
    if (ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis) || axis == xa)
      return false;
    for (int i = 0; i < n->n_inputs; i++)
      if (!n->inputs[i]->type.bounded || n->inputs[i]->type.bounded_axis != xa) return false;
    return xa == ya;
  case IR_ROWS_SPLIT:
    if (ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis) || axis == xa)
      return false;
    for (int i = 0; i < n->n_outputs; i++)
      if (n->outputs[i]->type.bounded_axis != xa) return false;
    return true;
  case IR_ROWS_GATHER:
    /* data's rows; the indices address another axis */
    if (bi != 0 || ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis) ||
        axis <= xa)
      return false;
    return xa == ya;
  case IR_ROWS_BATCH:
    /* the data input's batch axis; weights, bias and statistics not bounded */
    if (bi != 0 || xa != 0 || ya != 0 || x->rank < 3 || !params_unbounded(n)) return false;
    return n->op != IR_OP_RESIZE || resize_keeps_batch(n, x);
  case IR_ROWS_TAIL:
    /* normalized over [axis, rank): every such axis after the bounded one;
     * scale and bias not bounded */
    if (bi != 0 || ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis) ||
        axis <= xa || xa != ya)
      return false;
    return params_unbounded(n);
  case IR_ROWS_SLICE: {
    ir_slice_params sp;
    vkml_status s = ir_slice_params_get(n, x, &sp);
    if (s) {
      vkml_status_free(s);
      return false;
    }
    return xa == ya && sp.start[xa] == 0 && sp.step[xa] == 1 && sp.count[xa] == x->dims[xa];
  }
  }
  return false;
}
