/* Shape inference for data-movement ops: reshape, flatten, squeeze,
 * unsqueeze, transpose, concat, split, slice, pad, expand, tile, gather and
 * gather_elements. A bounded (capacity) axis is carried to the output axis it
 * becomes, or refused where the op needs its exact size. All size arithmetic
 * is checked: attributes are untrusted. */
#include <string.h>

#include "infer.h"
#include "params.h"

/* Formats an int list as "[a,b,...]" (at most IR_MAX_RANK shown). */
static void list_format(const int64_t *v, int count, char *buf, int buf_bytes) {
  ir_type t;
  memset(&t, 0, sizeof t);
  t.rank = count > IR_MAX_RANK ? IR_MAX_RANK : count;
  for (int i = 0; i < t.rank; i++) t.dims[i] = v[i];
  ir_dims_format(&t, buf, buf_bytes);
}

static vkml_status unbounded(const ir_node *n, const ir_type *t) {
  if (!t->bounded) return VKML_OK;
  return ir_infer_error("%s: input is bounded along axis %d; this op needs "
                        "static sizes", ir_op_name(n->op), t->bounded_axis);
}

static void set_bounded(ir_type *t, int axis) {
  t->bounded = true;
  t->bounded_axis = axis;
}

/* Product of dims[lo, hi); false on overflow. */
static bool dims_product(const int64_t *dims, int lo, int hi, int64_t *out) {
  int64_t p = 1;
  for (int i = lo; i < hi; i++)
    if (!ir_checked_mul(p, dims[i], &p)) return false;
  *out = p;
  return true;
}

vkml_status ir_infer_reshape(const ir_node *n, const ir_type *in, ir_type *out) {
  const int64_t *shape;
  int ns = ir_node_ints(n, IR_A_SHAPE, &shape);
  if (ns < 0) return ir_infer_error("reshape: shape is required");
  if (ns > IR_MAX_RANK)
    return ir_infer_error("reshape: shape has %d entries, more than %d", ns,
                          IR_MAX_RANK);
  /* one -1: the rest of the elements; the run-time size of a bounded x
   * goes there (the output is bounded along that axis) */
  int rest = -1;
  int64_t dims[IR_MAX_RANK];
  for (int i = 0; i < ns; i++) {
    dims[i] = shape[i];
    if (shape[i] == -1 && rest < 0) {
      rest = i;
      continue;
    }
    if (shape[i] < 0)
      return ir_infer_error("reshape: shape[%d] is %lld; every dim is explicit and >= 0, "
                            "but for one -1", i, (long long)shape[i]);
  }
  if (in[0].bounded && rest < 0)
    return ir_infer_error("reshape: a bounded input needs a -1 in the shape (its size varies)");
  int64_t numel, want;
  if (!dims_product(in[0].dims, 0, in[0].rank, &numel))
    return ir_infer_error("reshape: input size overflows");
  char s[200];
  list_format(shape, ns, s, sizeof s);
  if (rest >= 0) {
    dims[rest] = 1;
    if (!dims_product(dims, 0, ns, &want) || !want || numel % want)
      return ir_infer_error("reshape: %lld elements cannot become %s", (long long)numel, s);
    dims[rest] = numel / want;
  } else if (!dims_product(shape, 0, ns, &want) || want != numel) {
    return ir_infer_error("reshape: %lld elements cannot become %s",
                          (long long)numel, s);
  }
  out[0] = ir_type_make(in[0].dtype, ns, dims);
  if (in[0].bounded) set_bounded(&out[0], rest);
  return VKML_OK;
}

vkml_status ir_infer_flatten(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  int64_t axis = ir_node_int(n, IR_A_AXIS, 1);
  /* ONNX allows axis in [-r, r]: r gives [numel, 1]. */
  if (axis < -(int64_t)x->rank || axis > x->rank)
    return ir_infer_error("flatten: axis %lld out of range for rank %d",
                          (long long)axis, x->rank);
  if (axis < 0) axis += x->rank;
  int64_t d[2];
  if (!dims_product(x->dims, 0, (int)axis, &d[0]) ||
      !dims_product(x->dims, (int)axis, x->rank, &d[1]))
    return ir_infer_error("flatten: size overflows");
  out[0] = ir_type_make(x->dtype, 2, d);
  /* Flatten is relative to the input's size, so a capacity stays one. */
  if (x->bounded) set_bounded(&out[0], x->bounded_axis < axis ? 0 : 1);
  return VKML_OK;
}

vkml_status ir_infer_squeeze(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  const int64_t *axes;
  int na = ir_node_ints(n, IR_A_AXES, &axes);
  bool drop[IR_MAX_RANK] = {false};
  if (na < 0) {
    for (int i = 0; i < x->rank; i++) drop[i] = x->dims[i] == 1;
  } else {
    for (int i = 0; i < na; i++) {
      int ax;
      vkml_status s = ir_axis_normalize(axes[i], x->rank, &ax);
      if (s) return vkml_status_annotate(s, "squeeze: axes[%d]", i);
      if (drop[ax])
        return ir_infer_error("squeeze: axis %d appears twice in axes", ax);
      if (x->dims[ax] != 1)
        return ir_infer_error("squeeze: axis %d has size %lld, not 1", ax,
                              (long long)x->dims[ax]);
      drop[ax] = true;
    }
  }
  if (x->bounded && drop[x->bounded_axis])
    return ir_infer_error("squeeze: cannot remove bounded axis %d",
                          x->bounded_axis);
  ir_type o = *x;
  o.rank = 0;
  o.bounded = false;
  for (int i = 0; i < x->rank; i++) {
    if (drop[i]) continue;
    if (x->bounded && x->bounded_axis == i) set_bounded(&o, o.rank);
    o.dims[o.rank++] = x->dims[i];
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_unsqueeze(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  const int64_t *axes;
  int na = ir_node_ints(n, IR_A_AXES, &axes);
  if (na < 0) return ir_infer_error("unsqueeze: axes is required");
  if (na > IR_MAX_RANK - x->rank)
    return ir_infer_error("unsqueeze: rank %d + %d new axes exceeds %d", x->rank,
                          na, IR_MAX_RANK);
  int r = x->rank + na;
  bool ins[IR_MAX_RANK] = {false};
  for (int i = 0; i < na; i++) {
    int ax;
    vkml_status s = ir_axis_normalize(axes[i], r, &ax);
    if (s) return vkml_status_annotate(s, "unsqueeze: axes[%d]", i);
    if (ins[ax]) return ir_infer_error("unsqueeze: axis %d appears twice in axes", ax);
    ins[ax] = true;
  }
  ir_type o = *x;
  o.rank = r;
  o.bounded = false;
  for (int i = 0, j = 0; i < r; i++) {
    if (ins[i]) {
      o.dims[i] = 1;
      continue;
    }
    if (x->bounded && x->bounded_axis == j) set_bounded(&o, i);
    o.dims[i] = x->dims[j++];
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_transpose(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  int perm[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_perm_get(n, x->rank, perm));
  ir_type o = *x;
  o.bounded = false;
  for (int i = 0; i < x->rank; i++) {
    o.dims[i] = x->dims[perm[i]];
    if (x->bounded && x->bounded_axis == perm[i]) set_bounded(&o, i);
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_strided_copy(const ir_node *n, const ir_type *in, ir_type *out) {
  ir_strided_params p;
  VKML_RETURN_IF_ERROR(ir_strided_params_get(n, &in[0], &p));
  out[0] = ir_type_make(in[0].dtype, p.rank, p.dims);
  return VKML_OK;
}

vkml_status ir_infer_concat(const ir_node *n, const ir_type *in, ir_type *out) {
  if (!ir_node_attr(n, IR_A_AXIS)) return ir_infer_error("concat: axis is required");
  const ir_type *x = &in[0];
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "concat");
  ir_type o = *x;
  o.bounded = false;
  o.dims[axis] = 0;
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_type *t = &in[i];
    if (t->dtype != x->dtype)
      return ir_infer_error("concat: input %d is %s, input 0 is %s", i,
                            ir_dtype_name(t->dtype), ir_dtype_name(x->dtype));
    char s0[200], si[200];
    ir_dims_format(x, s0, sizeof s0);
    ir_dims_format(t, si, sizeof si);
    if (t->rank != x->rank)
      return ir_infer_error("concat: input %d %s has rank %d, input 0 %s has "
                            "rank %d", i, si, t->rank, s0, x->rank);
    for (int d = 0; d < x->rank; d++)
      if (d != axis && t->dims[d] != x->dims[d])
        return ir_infer_error("concat: input %d %s differs from input 0 %s "
                              "along axis %d (concatenating along %d)", i, si,
                              s0, d, axis);
    if (!ir_checked_add(o.dims[axis], t->dims[axis], &o.dims[axis]))
      return ir_infer_error("concat: size along axis %d overflows", axis);
    if (t->bounded) {
      if (o.bounded && o.bounded_axis != t->bounded_axis)
        return ir_infer_error("concat: inputs are bounded along different axes");
      set_bounded(&o, t->bounded_axis);
    }
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_split(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "split");
  if (x->bounded && x->bounded_axis == axis)
    return ir_infer_error("split: cannot split along bounded axis %d", axis);
  const int64_t *sizes;
  int nsz = ir_node_ints(n, IR_A_SPLIT, &sizes);
  int64_t dim = x->dims[axis];
  int no = n->n_outputs;
  if (nsz >= 0) {
    if (nsz != no)
      return ir_infer_error("split: split has %d entries for %d outputs", nsz, no);
    int64_t sum = 0;
    for (int i = 0; i < nsz; i++) {
      if (sizes[i] < 0)
        return ir_infer_error("split: split[%d] is %lld, must be >= 0", i,
                              (long long)sizes[i]);
      if (!ir_checked_add(sum, sizes[i], &sum))
        return ir_infer_error("split: split sizes overflow");
    }
    if (sum != dim)
      return ir_infer_error("split: split sizes sum to %lld but axis %d has "
                            "size %lld", (long long)sum, axis, (long long)dim);
  } else if (dim % no != 0) {
    return ir_infer_error("split: axis %d of size %lld does not split into %d "
                          "equal parts", axis, (long long)dim, no);
  }
  for (int i = 0; i < no; i++) {
    out[i] = *x;
    out[i].dims[axis] = nsz >= 0 ? sizes[i] : dim / no;
  }
  return VKML_OK;
}

vkml_status ir_infer_slice(const ir_node *n, const ir_type *in, ir_type *out) {
  ir_slice_params p;
  VKML_RETURN_IF_ERROR(ir_slice_params_get(n, &in[0], &p));
  out[0] = in[0];
  for (int i = 0; i < in[0].rank; i++) out[0].dims[i] = p.count[i];
  return VKML_OK;
}

vkml_status ir_infer_pad(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  ir_pad_params p;
  VKML_RETURN_IF_ERROR(ir_pad_params_get(n, x->rank, &p));
  ir_type o = *x;
  for (int i = 0; i < x->rank; i++) {
    int64_t d = x->dims[i], b = p.begins[i], e = p.ends[i];
    /* |b|, |e| <= 2^40 and d <= 2^40: no overflow. */
    o.dims[i] = d + b + e;
    if (o.dims[i] < 0 || d + b < 0 || d + e < 0)
      return ir_infer_error("pad: axis %d of size %lld cannot be padded by "
                            "(%lld, %lld)", i, (long long)d, (long long)b,
                            (long long)e);
    /* reflect mirrors without the edge element, so it needs pads < size;
     * edge needs an element to repeat. */
    if (p.mode == IR_PAD_REFLECT && (b >= d || e >= d) && (b > 0 || e > 0))
      return ir_infer_error("pad: reflect pads (%lld, %lld) must be less than "
                            "the size %lld of axis %d", (long long)b,
                            (long long)e, (long long)d, i);
    if (p.mode == IR_PAD_EDGE && d == 0 && (b > 0 || e > 0))
      return ir_infer_error("pad: edge mode cannot pad empty axis %d", i);
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_expand(const ir_node *n, const ir_type *in, ir_type *out) {
  const int64_t *shape;
  int ns = ir_node_ints(n, IR_A_SHAPE, &shape);
  if (ns < 0) return ir_infer_error("expand: shape is required");
  if (ns > IR_MAX_RANK)
    return ir_infer_error("expand: shape has %d entries, more than %d", ns,
                          IR_MAX_RANK);
  for (int i = 0; i < ns; i++)
    if (shape[i] < 0)
      return ir_infer_error("expand: shape[%d] is %lld, must be >= 0", i,
                            (long long)shape[i]);
  ir_type t = ir_type_make(in[0].dtype, ns, shape);
  vkml_status s = ir_broadcast(&in[0], &t, &out[0]);
  return s ? vkml_status_annotate(s, "expand") : VKML_OK;
}

vkml_status ir_infer_tile(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  const int64_t *rep;
  int nr = ir_node_ints(n, IR_A_REPEATS, &rep);
  if (nr < 0) return ir_infer_error("tile: repeats is required");
  if (nr != x->rank)
    return ir_infer_error("tile: repeats has %d entries, input has rank %d", nr,
                          x->rank);
  ir_type o = *x;
  for (int i = 0; i < nr; i++) {
    if (rep[i] < 0)
      return ir_infer_error("tile: repeats[%d] is %lld, must be >= 0", i,
                            (long long)rep[i]);
    if (!ir_checked_mul(x->dims[i], rep[i], &o.dims[i]))
      return ir_infer_error("tile: axis %d overflows", i);
  }
  out[0] = o;
  return VKML_OK;
}

static vkml_status want_index(const ir_node *n, const ir_type *t) {
  if (t->dtype == IR_I32 || t->dtype == IR_I64) return VKML_OK;
  return ir_infer_error("%s: indices must be i32 or i64, got %s",
                        ir_op_name(n->op), ir_dtype_name(t->dtype));
}

vkml_status ir_infer_gather(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *idx = &in[1];
  VKML_RETURN_IF_ERROR(want_index(n, idx));
  if (x->rank < 1) return ir_infer_error("gather: data must have rank >= 1");
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "gather");
  int r = x->rank - 1 + idx->rank;
  if (r > IR_MAX_RANK)
    return ir_infer_error("gather: output rank %d exceeds %d", r, IR_MAX_RANK);
  if (x->dims[axis] == 0 && ir_type_numel(idx) > 0)
    return ir_infer_error("gather: cannot gather from empty axis %d", axis);
  ir_type o = *x;
  o.rank = r;
  o.bounded = false;
  int k = 0;
  for (int i = 0; i < axis; i++) o.dims[k++] = x->dims[i];
  for (int i = 0; i < idx->rank; i++) o.dims[k++] = idx->dims[i];
  for (int i = axis + 1; i < x->rank; i++) o.dims[k++] = x->dims[i];
  /* Gathering along a bounded axis picks from it: the result is not bounded. */
  if (x->bounded && x->bounded_axis != axis)
    set_bounded(&o, x->bounded_axis < axis ? x->bounded_axis
                                           : x->bounded_axis - 1 + idx->rank);
  if (idx->bounded) {
    if (o.bounded)
      return ir_infer_error("gather: data and indices are both bounded");
    set_bounded(&o, axis + idx->bounded_axis);
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_gather_elements(const ir_node *n, const ir_type *in,
                                     ir_type *out) {
  const ir_type *x = &in[0], *idx = &in[1];
  VKML_RETURN_IF_ERROR(want_index(n, idx));
  VKML_RETURN_IF_ERROR(unbounded(n, x));
  if (x->rank < 1) return ir_infer_error("gather_elements: data must have rank >= 1");
  char sx[200], si[200];
  ir_dims_format(x, sx, sizeof sx);
  ir_dims_format(idx, si, sizeof si);
  if (idx->rank != x->rank)
    return ir_infer_error("gather_elements: indices %s and data %s differ in "
                          "rank", si, sx);
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "gather_elements");
  for (int i = 0; i < x->rank; i++)
    if (i != axis && idx->dims[i] > x->dims[i])
      return ir_infer_error("gather_elements: indices %s exceed data %s along "
                            "axis %d", si, sx, i);
  if (x->dims[axis] == 0 && ir_type_numel(idx) > 0)
    return ir_infer_error("gather_elements: cannot gather from empty axis %d",
                          axis);
  out[0] = *idx;
  out[0].dtype = x->dtype;
  return VKML_OK;
}
