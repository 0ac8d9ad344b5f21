/* pass_fuse_copies: a chain of data-movement nodes, each reading the last
 * one's output, becomes one strided_copy of the chain's first input when
 * the chain holds two or more nodes that copy (a dispatch each). How
 * exporters split attention's heads: ViT's qkv projection [197, 3 * D]
 * goes through reshape, unsqueeze, transpose, squeeze, then per q, k, v a
 * gather of one index, a reshape to heads, a transpose and (for k) another
 * transpose: nine copies per layer where three do (each element moved
 * once, straight from the projection's output).
 *
 * Every node of the chain is a view of the chain's base: an offset and one
 * element stride per output axis into the base's elements. Chain nodes:
 * reshape, flatten, squeeze, unsqueeze (no copy: they regroup axes, which
 * stays a view when the axes they merge or split are contiguous with each
 * other in the base), transpose, slice, gather of one constant index,
 * expand (stride 0) and strided_copy itself (a view of a view only when
 * its input's view is contiguous). A node whose map is not a view of its
 * input's view (a reshape across non-contiguous axes) ends the chain: its
 * input is materialized as before.
 *
 * A roll joins too: concat(slice(v, s:D), slice(v, 0:s)) along the sliced
 * axis, how torch.roll exports (Swin's shifted windows: two per block,
 * before the window partition and after the window merge). Where v's view
 * reads the whole base in order, the chain goes on from the base rolled
 * (strided_copy's roll_dims / roll_shifts: the base viewed as v's dims,
 * rolled), so roll, roll, reshape, transpose, reshape is one copy.
 *
 * A value of a chain is rewritten where it is read other than by a chain
 * node (or is a graph output) and its chain from the base holds at least
 * two copying nodes; the nodes before it die when nothing else reads them.
 * Nothing bounded, every value in the default layout, one dtype along the
 * chain; with a placement callback a node it would keep off the GPU
 * (--cpu-ops) is never part of a chain. Runs after fuse_elementwise. */
#include <stdlib.h>
#include <string.h>

#include "ir/params.h"
#include "passes/pass.h"

typedef struct view {
  bool valid;
  int copies; /* copying nodes from the base */
  ir_value *base;
  int64_t off;
  int rank;
  int64_t d[IR_MAX_RANK], s[IR_MAX_RANK];
  int rrank; /* > 0: off and s index the base viewed as rd, rolled by rsh */
  int64_t rd[IR_MAX_RANK], rsh[IR_MAX_RANK];
} view;

static void contiguous(ir_value *v, view *out) {
  memset(out, 0, sizeof *out);
  out->valid = true;
  out->base = v;
  out->rank = v->type.rank;
  int64_t run = 1;
  for (int i = v->type.rank - 1; i >= 0; i--) {
    out->d[i] = v->type.dims[i];
    out->s[i] = run;
    run *= v->type.dims[i];
  }
}

static bool is_contiguous(const view *v) {
  int64_t run = 1;
  for (int i = v->rank - 1; i >= 0; i--) {
    if (v->d[i] != 1 && v->s[i] != run) return false;
    run *= v->d[i];
  }
  return true;
}

static bool plain(const ir_value *v) {
  return !v->type.bounded && v->layout == IR_LAYOUT_DEFAULT && ir_type_numel(&v->type) > 0;
}

/* Whether n may be a chain node (its op's map is checked by compose). */
static bool chain_op(const ir_node *n) {
  switch (n->op) {
  case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
  case IR_OP_TRANSPOSE: case IR_OP_SLICE: case IR_OP_GATHER: case IR_OP_EXPAND:
  case IR_OP_STRIDED_COPY: break;
  case IR_OP_CONCAT:
    if (n->n_inputs != 2 || !plain(n->inputs[1]) ||
        n->inputs[1]->type.dtype != n->inputs[0]->type.dtype)
      return false;
    break;
  default: return false;
  }
  if (n->n_outputs != 1 || n->n_inputs < 1 || n->device != IR_DEVICE_UNPLACED) return false;
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  return plain(x) && plain(y) && x->type.dtype == y->type.dtype;
}

static bool copies(ir_op op) {
  return op != IR_OP_RESHAPE && op != IR_OP_FLATTEN && op != IR_OP_SQUEEZE &&
         op != IR_OP_UNSQUEEZE;
}

/* in regrouped to dims (same element count), as numpy reshapes without a
 * copy: axes of 1 dropped, then runs of in's axes and of dims with equal
 * products matched; a run of in's axes must be contiguous among itself. */
static bool regroup(const view *in, int rank, const int64_t *dims, view *out) {
  int64_t od[IR_MAX_RANK], os[IR_MAX_RANK];
  int on = 0;
  for (int i = 0; i < in->rank; i++)
    if (in->d[i] != 1) od[on] = in->d[i], os[on] = in->s[i], on++;
  out->rank = rank;
  int i = 0, j = 0;
  for (int k = 0; k < rank; k++) out->s[k] = 0, out->d[k] = dims[k];
  while (i < on || j < rank) {
    if (j < rank && dims[j] == 1) {
      j++;
      continue;
    }
    if (i >= on || j >= rank) return false;
    int i0 = i, j0 = j;
    int64_t pi = od[i++], pj = dims[j++];
    while (pi != pj) {
      if (pi < pj) {
        if (i >= on) return false;
        pi *= od[i++];
      } else {
        if (j >= rank) return false;
        pj *= dims[j++];
      }
    }
    for (int k = i0; k + 1 < i; k++)
      if (os[k] != os[k + 1] * od[k + 1]) return false;
    int64_t st = os[i - 1];
    for (int k = j - 1; k >= j0; k--) {
      out->s[k] = st;
      st *= dims[k];
    }
  }
  return true;
}

/* Whether s is VKML_OK (an error only means "no view": dropped). */
static bool succeeded(vkml_status s) {
  bool ok = !s;
  vkml_status_free(s);
  return ok;
}

/* The view of n's output from the view of its input; false where it is not
 * one. */
static bool compose(const ir_graph *g, const ir_node *n, const view *in, view *out) {
  const ir_type *x = &n->inputs[0]->type, *y = &n->outputs[0]->type;
  *out = *in;
  switch (n->op) {
  case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
    return regroup(in, y->rank, y->dims, out);
  case IR_OP_TRANSPOSE: {
    int perm[IR_MAX_RANK];
    if (!succeeded(ir_perm_get(n, x->rank, perm))) return false;
    for (int i = 0; i < x->rank; i++) out->d[i] = in->d[perm[i]], out->s[i] = in->s[perm[i]];
    return true;
  }
  case IR_OP_SLICE: {
    ir_slice_params sp;
    if (!succeeded(ir_slice_params_get(n, x, &sp))) return false;
    for (int i = 0; i < x->rank; i++) {
      out->off += sp.start[i] * in->s[i];
      out->s[i] = in->s[i] * sp.step[i];
      out->d[i] = sp.count[i];
    }
    return true;
  }
  case IR_OP_GATHER: {
    const ir_value *idx = n->inputs[1];
    const void *data = ir_value_const_data(g, idx);
    if (!data || !ir_dtype_is_int(idx->type.dtype) || ir_type_numel(&idx->type) != 1) return false;
    int axis;
    if (!succeeded(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis))) return false;
    int64_t i = ir_dtype_load_i64(idx->type.dtype, data, 0);
    if (i < 0) i += x->dims[axis];
    if (i < 0 || i >= x->dims[axis]) return false;
    int r = idx->type.rank;
    if (x->rank - 1 + r > IR_MAX_RANK) return false;
    out->off = in->off + i * in->s[axis];
    out->rank = 0;
    for (int k = 0; k < axis; k++) out->d[out->rank] = in->d[k], out->s[out->rank++] = in->s[k];
    for (int k = 0; k < r; k++) out->d[out->rank] = 1, out->s[out->rank++] = 0;
    for (int k = axis + 1; k < x->rank; k++)
      out->d[out->rank] = in->d[k], out->s[out->rank++] = in->s[k];
    return true;
  }
  case IR_OP_EXPAND: {
    int lead = y->rank - x->rank;
    if (lead < 0) return false;
    out->rank = y->rank;
    for (int k = 0; k < y->rank; k++) {
      int q = k - lead;
      bool bcast = q < 0 || (in->d[q] == 1 && y->dims[k] != 1);
      out->d[k] = y->dims[k];
      out->s[k] = bcast ? 0 : in->s[q];
    }
    return true;
  }
  case IR_OP_STRIDED_COPY: {
    ir_strided_params p;
    if (!succeeded(ir_strided_params_get(n, x, &p))) return false;
    if (!is_contiguous(in) || p.roll_rank) return false;
    out->off = in->off + p.offset;
    out->rank = p.rank;
    for (int k = 0; k < p.rank; k++) out->d[k] = p.dims[k], out->s[k] = p.strides[k];
    return true;
  }
  default: return false;
  }
}

/* The value a roll concat rolls (concat(slice(v, s:D), slice(v, 0:s)) along
 * the slices' one axis, step 1), its axis and shift s; NULL if n is none. */
static ir_value *roll_of(const ir_node *n, int *axis, int64_t *shift) {
  if (n->op != IR_OP_CONCAT || n->n_inputs != 2) return NULL;
  const ir_node *a = n->inputs[0]->producer, *b = n->inputs[1]->producer;
  if (!a || !b || a->op != IR_OP_SLICE || b->op != IR_OP_SLICE || a->n_inputs != 1 ||
      b->n_inputs != 1 || a->inputs[0] != b->inputs[0])
    return NULL;
  ir_value *v = a->inputs[0];
  const ir_type *t = &v->type;
  if (!succeeded(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), t->rank, axis))) return NULL;
  ir_slice_params pa, pb;
  if (!succeeded(ir_slice_params_get(a, t, &pa)) || !succeeded(ir_slice_params_get(b, t, &pb)))
    return NULL;
  for (int k = 0; k < t->rank; k++) {
    if (pa.step[k] != 1 || pb.step[k] != 1) return NULL;
    if (k == *axis) continue;
    if (pa.start[k] || pb.start[k] || pa.count[k] != t->dims[k] || pb.count[k] != t->dims[k])
      return NULL;
  }
  int64_t d = t->dims[*axis], sh = pa.start[*axis];
  if (sh <= 0 || sh >= d || pa.count[*axis] != d - sh || pb.start[*axis] != 0 ||
      pb.count[*axis] != sh)
    return NULL;
  *shift = sh;
  return v;
}

/* The view of a roll's output from the view of the value it rolls (v):
 * where in reads the whole base in order, the base viewed as v's dims and
 * rolled (or, already so viewed, rolled further). */
static bool compose_roll(const ir_value *v, const view *in, int axis,
                         int64_t shift, view *out) {
  const ir_type *t = &v->type;
  if (!is_contiguous(in) || in->off != 0 || ir_type_numel(t) != ir_type_numel(&in->base->type))
    return false;
  *out = *in;
  if (!in->rrank) {
    out->rrank = t->rank;
    for (int k = 0; k < t->rank; k++) out->rd[k] = t->dims[k], out->rsh[k] = 0;
  } else {
    if (in->rrank != t->rank) return false;
    for (int k = 0; k < t->rank; k++)
      if (in->rd[k] != t->dims[k]) return false;
  }
  out->rsh[axis] = (out->rsh[axis] + shift) % t->dims[axis];
  out->rank = t->rank;
  int64_t run = 1;
  for (int k = t->rank - 1; k >= 0; k--) {
    out->d[k] = t->dims[k];
    out->s[k] = run;
    run *= t->dims[k];
  }
  return true;
}

/* other[v->id]: v is read other than as the input of a chain node whose view
 * came from v's (any other node or slot, a graph output): one walk. A roll
 * concat reads both its slices so. */
static void mark_other_readers(const ir_graph *g, const view *views, bool *other) {
  ir_foreach_node(g, n) {
    bool chained = n->n_outputs >= 1 && views[n->outputs[0]->id].valid;
    for (int i = 0; i < n->n_inputs; i++)
      if (!chained || (i != 0 && n->op != IR_OP_CONCAT)) other[n->inputs[i]->id] = true;
  }
  for (int i = 0; i < g->n_outputs; i++) other[g->outputs[i]->id] = true;
}

vkml_status pass_fuse_copies(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  view *views = calloc((size_t)g->n_values + 1, sizeof *views);
  bool *other = calloc((size_t)g->n_values + 1, sizeof *other);
  if (!views || !other) {
    free(views);
    free(other);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  ir_foreach_node(g, n) {
    if (!chain_op(n)) continue;
    char why[256];
    if (opts && opts->place && opts->place(opts->place_user, n, why, sizeof why)) continue;
    ir_value *x = n->inputs[0], *y = n->outputs[0];
    view in, out;
    int axis = 0;
    int64_t shift = 0;
    if (n->op == IR_OP_CONCAT) {
      /* both slices chain nodes (placement allowed them) */
      x = roll_of(n, &axis, &shift);
      if (!x || !views[n->inputs[0]->id].valid || !views[n->inputs[1]->id].valid) continue;
    }
    if (views[x->id].valid) in = views[x->id];
    else contiguous(x, &in);
    if (n->op == IR_OP_CONCAT ? !compose_roll(x, &in, axis, shift, &out)
                              : !compose(g, n, &in, &out))
      continue;
    /* a roll is two slices and a concat: one copy always pays */
    out.copies = in.copies + (n->op == IR_OP_CONCAT ? 2 : copies(n->op));
    views[y->id] = out;
  }
  mark_other_readers(g, views, other);
  bool any = false;
  vkml_status st = VKML_OK;
  for (ir_node *n = g->first, *next; n && !st; n = next) {
    next = n->next;
    if (!chain_op(n)) continue;
    ir_value *y = n->outputs[0];
    const view *v = &views[y->id];
    if (!v->valid || v->copies < 2 || !other[y->id]) continue;
    ir_value *base = v->base, *outs[1] = {y};
    const ir_type *types[1] = {&y->type};
    const char *sfx[1] = {""};
    ir_node *c;
    st = pass_node_insert(g, n, IR_OP_STRIDED_COPY, &base, 1, y->name, types, sfx, outs, 1, &c);
    if (!st) st = ir_node_set_ints(g, c, IR_A_SHAPE, y->type.dims, y->type.rank);
    if (!st) st = ir_node_set_ints(g, c, IR_A_STRIDES, v->s, v->rank);
    if (!st && v->off) st = ir_node_set_int(g, c, IR_A_OFFSET, v->off);
    if (!st && v->rrank) st = ir_node_set_ints(g, c, IR_A_ROLL_DIMS, v->rd, v->rrank);
    if (!st && v->rrank) st = ir_node_set_ints(g, c, IR_A_ROLL_SHIFTS, v->rsh, v->rrank);
    const char *name = ir_node_string(n, IR_A_NAME);
    if (!st && name) st = ir_node_set_string(g, c, IR_A_NAME, name);
    if (st) break;
    ir_node_remove(g, n);
    any = true;
  }
  free(views);
  free(other);
  VKML_RETURN_IF_ERROR(st);
  if (!any) return VKML_OK;
  if (changed) *changed = true;
  return pass_dce(g, opts, NULL);
}
