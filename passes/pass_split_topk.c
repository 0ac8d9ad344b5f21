/* pass_split_topk: a topk along a long axis over few rows becomes a topk
 * of blocks, then a topk of their winners. The GPU kernel gives each row one
 * workgroup, so one row of 850K scores runs on one compute unit; split, the
 * row is cut into nb blocks of B elements (B a power of two, at least 4096
 * and 8k):
 *
 *   xp  = pad x along the axis to nb * B (with values that lose every
 *         comparison and every tie: -inf / INT32_MIN for largest, NaN for
 *         smallest; an integer smallest that needs padding is not split)
 *   x4  = reshape xp: the axis becomes (nb, B)
 *   v1, i1 = topk x4 along B (each block's best k, a workgroup each)
 *   g1  = i1 + the block's first index (indices into the whole row)
 *   v, j = topk (v1 reshaped to nb * k along the axis)
 *   idx = gather_elements (g1 reshaped alike), j
 *
 * Every element of the answer is among its block's best k, so the second
 * topk sees it. Ties: the candidates are in block order and, within a
 * block, in the order of the first topk (equal values by index), so equal
 * values keep the lowest original index first, as the reference. The
 * second topk is split again while it is still long.
 *
 * Only when the graph is being placed (opts.place) and the callback lets the
 * node run on the GPU: the CPU reference sorts a row in one call.
 *
 * A k beyond what the selection kernel holds (its candidates are sorted in
 * shared memory), along the last axis, goes through the segmented argsort
 * instead (split again by split_sort): the first k indices of the row's
 * argsort, the values gathered there.
 *
 * A long bounded row with a run-time k whose bound K is known (the outputs'
 * capacity, pass_bound_topk; RetinaNet's 8.19M-candidate level) is made
 * static first:
 *
 *   xs = to_capacity x {value: the padding above}   the live elements, then
 *                                                   padding to the capacity
 *   v1, i1 = topk xs {k = K}                        static: split as above
 *   v, j = topk v1, k                               the run-time k of K
 *   idx = gather i1, j
 *
 * The padding loses every comparison and tie and sits past every live
 * element, so the best K of xs are the live row's best min(K, count), then
 * padding; the run-time k (an exporter's min(K, count)) takes live ones
 * only. A k above the live count, which the CPU refuses, returns padding
 * on this path. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "passes/pass.h"

#define SORT_MIN_K 1024     /* larger k: through the argsort (below) */
#define SPLIT_MIN_LEN 16384 /* longer axes are split ... */
#define SPLIT_MAX_ROWS 1024 /* ... when fewer rows than this share them */

typedef struct builder {
  ir_graph *g;
  ir_node *before;
  const char *base;
} builder;

static vkml_status emit(builder *b, ir_op op, ir_value *const *ins, int n_in,
                        const ir_type *const *types, const char *const *suffixes,
                        ir_value *const *outs, int n_out, ir_node **node) {
  return pass_node_insert(b->g, b->before, op, ins, n_in, b->base, types, suffixes, outs, n_out,
                          node);
}

static vkml_status emit1(builder *b, ir_op op, ir_value *in, ir_value *in2, const ir_type *t,
                         const char *suffix, ir_node **node) {
  ir_value *ins[2] = {in, in2};
  const ir_type *types[1] = {t};
  const char *sfx[1] = {suffix};
  return emit(b, op, ins, in2 ? 2 : 1, types, sfx, NULL, 1, node);
}

static vkml_status emit_reshape(builder *b, ir_value *in, const ir_type *t, const char *suffix,
                                ir_value **out) {
  ir_node *n;
  VKML_RETURN_IF_ERROR(emit1(b, IR_OP_RESHAPE, in, NULL, t, suffix, &n));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, n, IR_A_SHAPE, t->dims, t->rank));
  *out = n->outputs[0];
  return VKML_OK;
}

static vkml_status set_topk(ir_graph *g, ir_node *n, int64_t k, int axis, bool largest) {
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, n, IR_A_K, k));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, n, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, n, IR_A_LARGEST, largest));
  return ir_node_set_int(g, n, IR_A_SORTED, 1);
}

static int64_t block_of(int64_t k) {
  int64_t b = 4096;
  while (b < 8 * k) b *= 2;
  return b;
}

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_TOPK || n->device == IR_DEVICE_CPU || n->n_inputs != 1 ||
      n->n_outputs != 2)
    return false;
  const ir_type *x = &n->inputs[0]->type;
  if (x->bounded || x->rank == 0 || x->rank >= IR_MAX_RANK) return false;
  if (x->dtype != IR_F32 && x->dtype != IR_F16 && x->dtype != IR_I32) return false;
  for (int i = 0; i < 3; i++) {
    const ir_value *v = i ? n->outputs[i - 1] : n->inputs[0];
    if (v->layout != IR_LAYOUT_DEFAULT || v->type.bounded) return false;
  }
  const ir_attr *ka = ir_node_attr(n, IR_A_K);
  int64_t axis = ir_node_int(n, IR_A_AXIS, -1);
  if (axis < 0) axis += x->rank;
  if (!ka || axis < 0 || axis >= x->rank) return false;
  int64_t k = ka->u.i, len = x->dims[axis], numel = ir_type_numel(x), B = block_of(k);
  if (k < 1 || len <= SPLIT_MIN_LEN || len <= 2 * B || numel / len >= SPLIT_MAX_ROWS) return false;
  bool largest = ir_node_int(n, IR_A_LARGEST, 1) != 0;
  if (x->dtype == IR_I32 && !largest && len % B) return false; /* no pad value loses */
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

static vkml_status split(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *v = n->outputs[0], *idx = n->outputs[1];
  int rank = x->type.rank;
  int axis = (int)ir_node_int(n, IR_A_AXIS, -1);
  if (axis < 0) axis += rank;
  int64_t k = ir_node_attr(n, IR_A_K)->u.i, len = x->type.dims[axis];
  bool largest = ir_node_int(n, IR_A_LARGEST, 1) != 0;
  int64_t B = block_of(k), nb = (len + B - 1) / B;
  builder b = {g, n, v->name};

  ir_value *xp = x;
  ir_type tp = x->type;
  tp.dims[axis] = nb * B;
  if (nb * B != len) {
    ir_node *pad;
    VKML_RETURN_IF_ERROR(emit1(&b, IR_OP_PAD, x, NULL, &tp, ".pad", &pad));
    int64_t pads[2 * IR_MAX_RANK] = {0};
    pads[rank + axis] = nb * B - len;
    float lose = x->type.dtype == IR_I32 ? (float)INT32_MIN : largest ? -INFINITY : NAN;
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, pad, IR_A_PADS, pads, 2 * rank));
    VKML_RETURN_IF_ERROR(ir_node_set_enum(g, pad, IR_A_PAD_MODE, IR_PAD_CONSTANT));
    VKML_RETURN_IF_ERROR(ir_node_set_float(g, pad, IR_A_VALUE, lose));
    xp = pad->outputs[0];
  }
  /* [.., nb, B, ..], its per-block winners [.., nb, k, ..] */
  ir_type t4 = x->type, w4;
  t4.rank = rank + 1;
  for (int i = rank; i > axis + 1; i--) t4.dims[i] = x->type.dims[i - 1];
  t4.dims[axis] = nb;
  t4.dims[axis + 1] = B;
  w4 = t4;
  w4.dims[axis + 1] = k;
  ir_type w4i = w4;
  w4i.dtype = IR_I64;
  ir_value *x4;
  VKML_RETURN_IF_ERROR(emit_reshape(&b, xp, &t4, ".blocks", &x4));
  ir_node *t1;
  const ir_type *t1types[2] = {&w4, &w4i};
  const char *t1sfx[2] = {".block_values", ".block_indices"};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_TOPK, &x4, 1, t1types, t1sfx, NULL, 2, &t1));
  VKML_RETURN_IF_ERROR(set_topk(g, t1, k, axis + 1, largest));

  /* the blocks' first indices, [1.., nb, 1, 1..] */
  ir_type ot = {.dtype = IR_I64, .rank = t4.rank};
  for (int i = 0; i < ot.rank; i++) ot.dims[i] = i == axis ? nb : 1;
  int64_t *firsts = malloc(sizeof *firsts * (size_t)nb);
  if (!firsts) return ir_oom(NULL);
  for (int64_t i = 0; i < nb; i++) firsts[i] = i * B;
  ir_value *offs;
  vkml_status s = pass_const_create(g, v->name, ".block_first", &ot, firsts, &offs);
  free(firsts);
  VKML_RETURN_IF_ERROR(s);
  ir_node *add;
  VKML_RETURN_IF_ERROR(emit1(&b, IR_OP_ADD, t1->outputs[1], offs, &w4i, ".row_indices", &add));

  /* the candidates along the axis: nb * k */
  ir_type tc = x->type;
  tc.dims[axis] = nb * k;
  ir_type tci = tc;
  tci.dtype = IR_I64;
  ir_value *vc, *gc;
  VKML_RETURN_IF_ERROR(emit_reshape(&b, t1->outputs[0], &tc, ".candidates", &vc));
  VKML_RETURN_IF_ERROR(emit_reshape(&b, add->outputs[0], &tci, ".candidate_indices", &gc));
  ir_node *t2;
  ir_type jt = idx->type;
  const ir_type *t2types[2] = {&v->type, &jt};
  const char *t2sfx[2] = {"", ".pick"};
  ir_value *t2outs[2] = {v, NULL};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_TOPK, &vc, 1, t2types, t2sfx, t2outs, 2, &t2));
  VKML_RETURN_IF_ERROR(set_topk(g, t2, k, axis, largest));
  ir_node *gather;
  ir_value *gins[2] = {gc, t2->outputs[1]};
  const ir_type *gtypes[1] = {&idx->type};
  ir_value *gouts[1] = {idx};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_GATHER_ELEMENTS, gins, 2, gtypes, NULL, gouts, 1, &gather));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, gather, IR_A_AXIS, axis));
  ir_node_remove(g, n);
  return VKML_OK;
}

/* ---- a long bounded row with a run-time k ---------------------------------- */

static bool wants_bounded(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_TOPK || n->device == IR_DEVICE_CPU || n->n_inputs != 2 ||
      n->n_outputs != 2)
    return false;
  const ir_type *x = &n->inputs[0]->type, *v = &n->outputs[0]->type;
  int64_t axis = ir_node_int(n, IR_A_AXIS, -1);
  if (axis < 0) axis += x->rank;
  if (!x->bounded || x->bounded_axis != axis || !v->bounded || v->bounded_axis != axis)
    return false;
  if (x->dtype != IR_F32 && x->dtype != IR_F16) return false;
  for (int d = 0; d < x->rank; d++)
    if (d != axis && x->dims[d] != 1) return false; /* one row, its elements a prefix */
  for (int i = 0; i < 3; i++) {
    const ir_value *u = i ? n->outputs[i - 1] : n->inputs[0];
    if (u->layout != IR_LAYOUT_DEFAULT) return false;
  }
  int64_t K = v->dims[axis], len = x->dims[axis];
  if (K < 1 || K > SORT_MIN_K || K >= len || len <= SPLIT_MIN_LEN || len <= 2 * block_of(K))
    return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

static vkml_status split_bounded(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *kin = n->inputs[1], *v = n->outputs[0], *idx = n->outputs[1];
  int axis = (int)ir_node_int(n, IR_A_AXIS, -1);
  if (axis < 0) axis += x->type.rank;
  bool largest = ir_node_int(n, IR_A_LARGEST, 1) != 0;
  int64_t K = v->type.dims[axis];
  builder b = {g, n, v->name};
  ir_type xs = x->type;
  xs.bounded = false;
  ir_node *cap;
  VKML_RETURN_IF_ERROR(emit1(&b, IR_OP_TO_CAPACITY, x, NULL, &xs, ".capacity", &cap));
  VKML_RETURN_IF_ERROR(ir_node_set_float(g, cap, IR_A_VALUE, largest ? -INFINITY : NAN));
  ir_type w = xs, wi;
  w.dims[axis] = K;
  wi = w;
  wi.dtype = IR_I64;
  ir_node *t1, *t2, *gather;
  const ir_type *t1types[2] = {&w, &wi};
  const char *t1sfx[2] = {".best", ".best_indices"};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_TOPK, &cap->outputs[0], 1, t1types, t1sfx, NULL, 2, &t1));
  VKML_RETURN_IF_ERROR(set_topk(g, t1, K, axis, largest));
  ir_value *t2ins[2] = {t1->outputs[0], kin}, *t2outs[2] = {v, NULL};
  ir_type jt = idx->type;
  const ir_type *t2types[2] = {&v->type, &jt};
  const char *t2sfx[2] = {"", ".pick"};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_TOPK, t2ins, 2, t2types, t2sfx, t2outs, 2, &t2));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, t2, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, t2, IR_A_LARGEST, largest));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, t2, IR_A_SORTED, 1));
  ir_value *gins[2] = {t1->outputs[1], t2->outputs[1]}, *gouts[1] = {idx};
  const ir_type *gtypes[1] = {&idx->type};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_GATHER, gins, 2, gtypes, NULL, gouts, 1, &gather));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, gather, IR_A_AXIS, axis));
  ir_node_remove(g, n);
  return VKML_OK;
}

/* ---- a large k: through the sort ------------------------------------------ */

/* A topk whose k is beyond the selection kernel (its candidates are
 * sorted in shared memory) and that could otherwise run on the GPU: the
 * placement is asked about the same node with k = 1, so that --cpu-ops
 * topk and every other reason still keep it on the CPU. */
static bool wants_sort(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_TOPK || n->device == IR_DEVICE_CPU || n->n_inputs != 1 ||
      n->n_outputs != 2)
    return false;
  const ir_type *x = &n->inputs[0]->type;
  const ir_attr *ka = ir_node_attr(n, IR_A_K);
  int64_t axis = ir_node_int(n, IR_A_AXIS, -1);
  if (axis < 0) axis += x->rank;
  if (!ka || ka->u.i <= SORT_MIN_K || axis < 0 || axis >= x->rank || x->bounded ||
      (x->dtype != IR_F32 && x->dtype != IR_F16 && x->dtype != IR_I32))
    return false;
  char why[256];
  if (opts->place(opts->place_user, n, why, sizeof why) == NULL) return false; /* fits */
  ir_node probe = *n;
  ir_attr attrs[16];
  if (n->n_attrs > 16) return false;
  for (int i = 0; i < n->n_attrs; i++) {
    attrs[i] = n->attrs[i];
    if (attrs[i].id == IR_A_K) attrs[i].u.i = 1;
  }
  probe.attrs = attrs;
  return opts->place(opts->place_user, &probe, why, sizeof why) == NULL;
}

/* A transpose of in by perm into out (a fresh value of type t when out is
 * NULL). */
static vkml_status emit_transpose(builder *b, ir_value *in, const int64_t *perm, int rank,
                                  const ir_type *t, const char *suffix, ir_value *out,
                                  ir_value **res) {
  ir_node *tr;
  ir_value *outs[1] = {out};
  const ir_type *types[1] = {t};
  const char *sfx[1] = {suffix};
  VKML_RETURN_IF_ERROR(emit(b, IR_OP_TRANSPOSE, &in, 1, types, sfx, out ? outs : NULL, 1, &tr));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, tr, IR_A_PERM, perm, rank));
  *res = tr->outputs[0];
  return VKML_OK;
}

/* idx = slice (argsort x) to the first k along the axis; v = x's values
 * there (gather_elements). The argsort is stable and orders NaN as topk's
 * reference does, so ties keep the lower index first. The argsort sorts
 * the last axis: another axis is moved last by a transpose, and both
 * outputs transposed back. */
static vkml_status through_sort(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *v = n->outputs[0], *idx = n->outputs[1];
  int rank = x->type.rank, axis = (int)ir_node_int(n, IR_A_AXIS, -1);
  if (axis < 0) axis += rank;
  int64_t k = ir_node_attr(n, IR_A_K)->u.i;
  builder b = {g, n, v->name};
  bool moved = axis != rank - 1;
  int64_t perm[IR_MAX_RANK], back[IR_MAX_RANK];
  for (int i = 0, j = 0; i < rank; i++)
    if (i != axis) perm[j++] = i;
  perm[rank - 1] = axis;
  for (int i = 0; i < rank; i++) back[perm[i]] = i;
  ir_type xt = x->type, vt = v->type, it = idx->type;
  for (int i = 0; i < rank; i++) {
    xt.dims[i] = x->type.dims[perm[i]];
    vt.dims[i] = v->type.dims[perm[i]];
    it.dims[i] = idx->type.dims[perm[i]];
  }
  ir_value *xs = x, *vs = v, *is = idx;
  if (moved) {
    VKML_RETURN_IF_ERROR(emit_transpose(&b, x, perm, rank, &xt, ".moved", NULL, &xs));
    vs = is = NULL;
  }
  ir_type order = xt;
  order.dtype = IR_I64;
  ir_node *sort, *slice, *gather;
  VKML_RETURN_IF_ERROR(emit1(&b, IR_OP_ARGSORT, xs, NULL, &order, ".order", &sort));
  VKML_RETURN_IF_ERROR(
      ir_node_set_int(g, sort, IR_A_LARGEST, ir_node_int(n, IR_A_LARGEST, 1) != 0));
  ir_value *sins[1] = {sort->outputs[0]}, *souts[1] = {is};
  const ir_type *stypes[1] = {&it};
  const char *ssfx[1] = {".indices_moved"};
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_SLICE, sins, 1, stypes, ssfx, is ? souts : NULL, 1, &slice));
  int64_t starts[1] = {0}, ends[1] = {k}, axes[1] = {rank - 1};
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, slice, IR_A_STARTS, starts, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, slice, IR_A_ENDS, ends, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, slice, IR_A_AXES, axes, 1));
  ir_value *gins[2] = {xs, slice->outputs[0]}, *gouts[1] = {vs};
  const ir_type *gtypes[1] = {&vt};
  const char *gsfx[1] = {".values_moved"};
  VKML_RETURN_IF_ERROR(
      emit(&b, IR_OP_GATHER_ELEMENTS, gins, 2, gtypes, gsfx, vs ? gouts : NULL, 1, &gather));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, gather, IR_A_AXIS, rank - 1));
  if (moved) {
    ir_value *r;
    VKML_RETURN_IF_ERROR(emit_transpose(&b, gather->outputs[0], back, rank, &v->type, "", v, &r));
    VKML_RETURN_IF_ERROR(
        emit_transpose(&b, slice->outputs[0], back, rank, &idx->type, "", idx, &r));
  }
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_topk(ir_graph *g, const pass_opts *opts, bool *changed) {
  /* the second topk may be long again: until nothing is left */
  bool split_any = false, sorted_any = false, bounded_any = false;
  VKML_RETURN_IF_ERROR(
      pass_rewrite_until_done(g, opts, wants_bounded, split_bounded, &bounded_any));
  VKML_RETURN_IF_ERROR(pass_rewrite_until_done(g, opts, wants_split, split, &split_any));
  VKML_RETURN_IF_ERROR(pass_rewrite_until_done(g, opts, wants_sort, through_sort, &sorted_any));
  if (changed) *changed = split_any || sorted_any || bounded_any;
  return VKML_OK;
}
