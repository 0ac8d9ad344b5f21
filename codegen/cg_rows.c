/* Bounded rows (cg_rows.h): which nodes run over a bounded value's
 * capacity, and which input's extent word their outputs take. */
#include "codegen/cg_rows.h"

#include <stdlib.h>
#include <string.h>

#include "ir/params.h"

vkml_status cg_twin_make(const ir_node *n, cg_twin *t) {
  int nv = n->n_inputs + n->n_outputs;
  t->vals = malloc(sizeof *t->vals * (size_t)(nv ? nv : 1));
  t->ptrs = malloc(sizeof *t->ptrs * (size_t)(nv ? nv : 1));
  if (!t->vals || !t->ptrs) {
    cg_twin_free(t);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  t->node = *n;
  for (int i = 0; i < nv; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    t->ptrs[i] = NULL;
    if (!v) continue;
    t->vals[i] = *v;
    t->vals[i].type.bounded = false;
    t->ptrs[i] = &t->vals[i];
  }
  t->node.inputs = t->ptrs;
  t->node.outputs = t->ptrs + n->n_inputs;
  return VKML_OK;
}

void cg_twin_free(cg_twin *t) {
  free(t->vals);
  free(t->ptrs);
  t->vals = NULL;
  t->ptrs = NULL;
}

bool cg_node_any_bounded(const ir_node *n) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v && v->type.bounded) return true;
  }
  return false;
}

bool cg_rows_leading(const ir_value *v) {
  return v->layout == IR_LAYOUT_DEFAULT && ir_type_rows_lead(&v->type);
}

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

static bool elementwise(const ir_node *n) {
  const char *fam = ir_op_family(n->op);
  return !strcmp(fam, "binary") || !strcmp(fam, "variadic") || !strcmp(fam, "where");
}

/* n's op keeps the rows: output row i depends on input row i only. */
static bool op_keeps_rows(const ir_node *n, int bi) {
  const ir_type *x = &n->inputs[bi]->type, *y = &n->outputs[0]->type;
  int xa = x->bounded_axis, ya = y->bounded_axis, axis;
  const char *fam = ir_op_family(n->op);
  if (!strcmp(fam, "unary") || n->op == IR_OP_CAST || n->op == IR_OP_IDENTITY ||
      n->op == IR_OP_RESHAPE || n->op == IR_OP_FLATTEN || n->op == IR_OP_SQUEEZE ||
      n->op == IR_OP_UNSQUEEZE)
    return row_elems(x) == row_elems(y);
  if (n->op == IR_OP_TRANSPOSE) return transpose_is_reshape(n, x) && row_elems(x) == row_elems(y);
  if (elementwise(n)) {
    /* bounded operands (of one extent: cg_rows_extent_input) aligned with
     * the output's bounded axis, the others broadcast along it */
    for (int i = 0; i < n->n_inputs; i++) {
      const ir_type *u = &n->inputs[i]->type;
      if (u->bounded ? u->bounded_axis + (y->rank - u->rank) != ya
                     : !broadcast_free(u, y->rank, ya))
        return false;
    }
    return true;
  }
  switch (n->op) {
  case IR_OP_GEMM:
    /* A's rows (not transposed); C broadcast along them */
    if (bi != 0 || xa != 0 || ya != 0 || ir_node_int(n, IR_A_TRANS_A, 0)) return false;
    return n->n_inputs < 3 || broadcast_free(&n->inputs[2]->type, 2, 0);
  case IR_OP_MATMUL:
    /* A's rows or a batch axis of A that B does not have */
    if (bi != 0 || xa == x->rank - 1 || x->rank < 2) return false;
    if (xa == x->rank - 2) return ya == y->rank - 2;
    return xa + (y->rank - x->rank) == ya &&
           broadcast_free(&n->inputs[1]->type, y->rank, ya);
  case IR_OP_SOFTMAX:
  case IR_OP_LOG_SOFTMAX:
    return !ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis) && axis != xa &&
           xa == ya;
  case IR_OP_CONCAT:
    /* parts bounded alike, joined along another axis */
    if (ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis) || axis == xa)
      return false;
    for (int i = 0; i < n->n_inputs; i++)
      if (!n->inputs[i]->type.bounded || n->inputs[i]->type.bounded_axis != xa) return false;
    return xa == ya;
  case IR_OP_SPLIT:
    if (ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis) || axis == xa)
      return false;
    for (int i = 0; i < n->n_outputs; i++)
      if (n->outputs[i]->type.bounded_axis != xa) return false;
    return true;
  case IR_OP_GATHER:
    /* data's rows; the indices address another axis */
    if (bi != 0 || ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis) ||
        axis <= xa)
      return false;
    return xa == ya;
  case IR_OP_SLICE: {
    ir_slice_params sp;
    vkml_status s = ir_slice_params_get(n, x, &sp);
    if (s) {
      vkml_status_free(s);
      return false;
    }
    return xa == ya && sp.start[xa] == 0 && sp.step[xa] == 1 && sp.count[xa] == x->dims[xa];
  }
  default:
    return false;
  }
}


/* The value whose run-time size v's bounded axis provably has: back
 * through the nodes whose outputs take an input's extent (bounded rows,
 * transfers), at most `depth` of them. */
static const ir_value *extent_origin(const ir_value *v, int depth) {
  while (depth-- > 0 && v->producer) {
    const ir_node *p = v->producer;
    int from = p->op == IR_OP_UPLOAD || p->op == IR_OP_DOWNLOAD ? 0 : cg_rows_extent_input(p);
    if (from < 0) return v;
    v = p->inputs[from];
  }
  return v;
}

/* a and b provably have one run-time size. By value id: the placement asks
 * about copies of a node's operands (cg_query_place), whose producers lead
 * back to the graph's own values. */
static bool same_extent(const ir_value *a, const ir_value *b) {
  return extent_origin(a, 32)->id == extent_origin(b, 32)->id;
}

int cg_rows_extent_input(const ir_node *n) {
  int bi = -1;
  for (int i = 0; i < n->n_inputs; i++) {
    if (!n->inputs[i] || !n->inputs[i]->type.bounded) continue;
    if (!cg_rows_leading(n->inputs[i])) return -1;
    if (bi < 0) {
      bi = i;
      continue;
    }
    /* another bounded value: elementwise ops of at most 4 inputs take it
     * (their kernels compare the sizes on the device unless they provably
     * agree: cg_rows_check_extents), a concat only one whose size provably
     * agrees (its kernel cannot compare) */
    if (n->inputs[i] == n->inputs[bi]) continue;
    if (n->op == IR_OP_CONCAT) {
      if (!same_extent(n->inputs[i], n->inputs[bi])) return -1;
    } else if (!elementwise(n) || n->n_inputs > 4) {
      return -1;
    }
  }
  if (bi < 0 || n->n_outputs < 1) return -1;
  int64_t cap = n->inputs[bi]->type.dims[n->inputs[bi]->type.bounded_axis];
  for (int i = 0; i < n->n_inputs; i++) /* every bounded input: one capacity */
    if (n->inputs[i] && n->inputs[i]->type.bounded &&
        n->inputs[i]->type.dims[n->inputs[i]->type.bounded_axis] != cap)
      return -1;
  for (int i = 0; i < n->n_outputs; i++) {
    const ir_value *y = n->outputs[i];
    if (!cg_rows_leading(y) || y->type.dims[y->type.bounded_axis] != cap) return -1;
  }
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] && n->inputs[i]->layout != IR_LAYOUT_DEFAULT) return -1;
  return op_keeps_rows(n, bi) ? bi : -1;
}

bool cg_rows_check_extents(const ir_node *n) {
  const ir_value *first = NULL;
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (!v || !v->type.bounded || v == first) continue;
    if (!first) {
      first = v;
      continue;
    }
    if (!same_extent(v, first)) return true;
  }
  return false;
}
