/* CPU reference kernels: data movement (identity/reshape/flatten/squeeze/
 * unsqueeze as a byte copy, transpose, strided_copy, concat, split, slice, pad, expand,
 * tile). Elements are moved as raw bytes, so every dtype is exact. Each
 * kernel computes its output shape from the inputs and attributes and checks
 * it against the allocated output. */
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

static void copy_elem(rt_tensor *dst, int64_t i, const rt_tensor *src, int64_t j,
                      size_t es) {
  memcpy((char *)dst->data + (size_t)i * es, (const char *)src->data + (size_t)j * es, es);
}

/* y[i] = x[base + idx . strides] for the multi-indices idx of dims, in
 * order: transpose, slice and expand differ only in base and strides. */
static void copy_strided(rt_tensor *y, const rt_tensor *x, int rank, const int64_t *dims,
                         int64_t base, const int64_t *strides) {
  size_t es = ir_dtype_size(x->dtype);
  int64_t idx[IR_MAX_RANK] = {0}, count = rt_tensor_numel(y);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, dims, idx))
    copy_elem(y, i, x, base + rt_cpu_index_offset(rank, idx, strides), es);
}

vkml_status rt_cpu_copy(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  if (y->dtype != x->dtype || rt_tensor_numel(y) != rt_tensor_numel(x))
    return rt_cpu_error(n, VKML_CODE_INTERNAL,
                        "output is %s with %lld elements, input %s with %lld",
                        ir_dtype_name(y->dtype), (long long)rt_tensor_numel(y),
                        ir_dtype_name(x->dtype), (long long)rt_tensor_numel(x));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, y->dtype, y->rank, y->dims));
  if (rt_tensor_bytes(x)) memmove(y->data, x->data, rt_tensor_bytes(x));
  return VKML_OK;
}

vkml_status rt_cpu_transpose(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int rank = x->rank, perm[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_perm_get(n, rank, perm));
  int64_t dims[IR_MAX_RANK], xs[IR_MAX_RANK], s[IR_MAX_RANK];
  rt_strides(rank, x->dims, xs);
  for (int d = 0; d < rank; d++) {
    dims[d] = x->dims[perm[d]];
    s[d] = xs[perm[d]]; /* output axis d walks input axis perm[d] */
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, dims));
  copy_strided(y, x, rank, dims, 0, s);
  return VKML_OK;
}

vkml_status rt_cpu_strided_copy(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  ir_type xt = rt_tensor_type(x);
  ir_strided_params p;
  vkml_status s = ir_strided_params_get(n, &xt, &p);
  if (s) {
    vkml_status e = rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(s));
    vkml_status_free(s);
    return e;
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, a->out[0], x->dtype, p.rank, p.dims));
  if (!p.roll_rank) {
    copy_strided(a->out[0], x, p.rank, p.dims, p.offset, p.strides);
    return VKML_OK;
  }
  rt_tensor *y = a->out[0];
  size_t es = ir_dtype_size(x->dtype);
  int64_t idx[IR_MAX_RANK] = {0}, count = rt_tensor_numel(y);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(p.rank, p.dims, idx)) {
    int64_t e = p.offset + rt_cpu_index_offset(p.rank, idx, p.strides);
    copy_elem(y, i, x, ir_strided_unroll(&p, e), es);
  }
  return VKML_OK;
}

vkml_status rt_cpu_concat(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x0 = a->in[0];
  rt_tensor *y = a->out[0];
  const ir_attr *axis_attr = ir_node_attr(n, IR_A_AXIS);
  if (!axis_attr) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "concat needs 'axis'");
  int rank = x0->rank, axis;
  if (rank == 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cannot concat scalars");
  VKML_RETURN_IF_ERROR(ir_axis_normalize(axis_attr->u.i, rank, &axis));
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x0->dims, sizeof dims);
  dims[axis] = 0;
  for (int k = 0; k < a->n_in; k++) {
    const rt_tensor *t = a->in[k];
    VKML_RETURN_IF_ERROR(rt_cpu_check_same_dtype(n, x0, t, k));
    bool ok = t->rank == rank;
    for (int d = 0; ok && d < rank; d++) ok = d == axis || t->dims[d] == x0->dims[d];
    if (!ok)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "input %d's shape differs from input 0's off axis %d", k, axis);
    dims[axis] += t->dims[axis];
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x0->dtype, rank, dims));
  size_t es = ir_dtype_size(x0->dtype);
  int64_t outer = rt_cpu_dims_prod(dims, 0, axis), inner = rt_cpu_dims_prod(dims, axis + 1, rank);
  char *dst = y->data;
  for (int64_t o = 0; o < outer; o++) {
    for (int k = 0; k < a->n_in; k++) {
      size_t block = (size_t)(a->in[k]->dims[axis] * inner) * es;
      if (!block) continue;
      memcpy(dst, (const char *)a->in[k]->data + (size_t)o * block, block);
      dst += block;
    }
  }
  return VKML_OK;
}

vkml_status rt_cpu_split(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  int rank = x->rank, axis;
  if (rank == 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cannot split a scalar");
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), rank, &axis));
  const int64_t *split;
  int n_split = ir_node_ints(n, IR_A_SPLIT, &split);
  int64_t dim = x->dims[axis];
  if (n_split >= 0) {
    if (n_split != a->n_out)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%d split sizes for %d outputs",
                          n_split, a->n_out);
    int64_t sum = 0;
    for (int k = 0; k < n_split; k++) {
      if (split[k] < 0)
        return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "negative split size %lld",
                            (long long)split[k]);
      sum += split[k];
    }
    if (sum != dim)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "split sizes sum to %lld, axis %d has %lld", (long long)sum,
                          axis, (long long)dim);
  } else if (a->n_out < 1 || dim % a->n_out != 0) {
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "axis %d of size %lld does not split into %d equal parts", axis,
                        (long long)dim, a->n_out);
  }
  for (int k = 0; k < a->n_out; k++) {
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = n_split >= 0 ? split[k] : dim / a->n_out;
    VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, k, a->out[k], x->dtype, rank, dims));
  }
  size_t es = ir_dtype_size(x->dtype);
  int64_t outer = rt_cpu_dims_prod(x->dims, 0, axis);
  int64_t inner = rt_cpu_dims_prod(x->dims, axis + 1, rank);
  const char *src = x->data;
  for (int64_t o = 0; o < outer; o++) {
    for (int k = 0; k < a->n_out; k++) {
      size_t block = (size_t)(a->out[k]->dims[axis] * inner) * es;
      if (!block) continue;
      memcpy((char *)a->out[k]->data + (size_t)o * block, src, block);
      src += block;
    }
  }
  return VKML_OK;
}

vkml_status rt_cpu_slice(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int rank = x->rank;
  ir_type xt = rt_tensor_type(x);
  ir_slice_params sp;
  VKML_RETURN_IF_ERROR(ir_slice_params_get(n, &xt, &sp));
  int64_t xs[IR_MAX_RANK], s[IR_MAX_RANK], base = 0;
  rt_strides(rank, x->dims, xs);
  for (int d = 0; d < rank; d++) {
    /* every element taken must lie inside the input */
    int64_t last = sp.start[d] + (sp.count[d] - 1) * sp.step[d];
    if (sp.count[d] < 0 ||
        (sp.count[d] > 0 && (sp.start[d] < 0 || sp.start[d] >= x->dims[d] || last < 0 ||
                             last >= x->dims[d])))
      return rt_cpu_error(n, VKML_CODE_INTERNAL, "slice of axis %d out of range", d);
    base += sp.start[d] * xs[d];
    s[d] = sp.step[d] * xs[d];
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, sp.count));
  copy_strided(y, x, rank, sp.count, base, s);
  return VKML_OK;
}

/* Maps padded coordinate c (in input coordinates, outside [lo, hi)) into the
 * kept range [lo, hi) of the axis. Negative pads crop first, and reflect /
 * edge then work on the cropped extent (as onnxruntime does); reflection
 * repeats for pads wider than the axis (as numpy.pad does). */
static int64_t pad_source(ir_pad_mode mode, int64_t c, int64_t lo, int64_t hi) {
  int64_t len = hi - lo;
  if (mode == IR_PAD_EDGE) return c < lo ? lo : hi - 1;
  if (len == 1) return lo;
  int64_t period = 2 * (len - 1), r = (c - lo) % period;
  if (r < 0) r += period;
  return lo + (r < len ? r : period - r);
}

vkml_status rt_cpu_pad(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int rank = x->rank;
  ir_pad_params pp;
  VKML_RETURN_IF_ERROR(ir_pad_params_get(n, rank, &pp));
  int64_t dims[IR_MAX_RANK], lo[IR_MAX_RANK], hi[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    if (pp.begins[d] < -IR_MAX_ELEMENTS || pp.begins[d] > IR_MAX_ELEMENTS ||
        pp.ends[d] < -IR_MAX_ELEMENTS || pp.ends[d] > IR_MAX_ELEMENTS)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "pads of axis %d too large", d);
    dims[d] = x->dims[d] + pp.begins[d] + pp.ends[d];
    lo[d] = pp.begins[d] < 0 ? -pp.begins[d] : 0;
    hi[d] = x->dims[d] - (pp.ends[d] < 0 ? -pp.ends[d] : 0);
    if (dims[d] < 0 || hi[d] < lo[d])
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "pads crop more than axis %d's %lld elements", d,
                          (long long)x->dims[d]);
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, dims));
  int64_t count = rt_tensor_numel(y);
  for (int d = 0; d < rank && count > 0; d++)
    if (pp.mode != IR_PAD_CONSTANT && hi[d] == lo[d])
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cannot %s-pad empty axis %d",
                          pp.mode == IR_PAD_EDGE ? "edge" : "reflect", d);

  /* The pad value as one element of the dtype (ints truncate, saturating). */
  unsigned char value[8];
  rt_tensor vt = {.dtype = x->dtype, .rank = 0, .data = value, .cap_bytes = sizeof value};
  if (ir_dtype_is_float(x->dtype)) rt_store_f(&vt, 0, pp.value);
  else rt_store_i(&vt, 0, ir_f64_to_int(pp.value, x->dtype));

  size_t es = ir_dtype_size(x->dtype);
  int64_t xs[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
  rt_strides(rank, x->dims, xs);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, dims, idx)) {
    int64_t off = 0;
    bool outside = false;
    for (int d = 0; d < rank; d++) {
      int64_t c = idx[d] - pp.begins[d];
      if (c < lo[d] || c >= hi[d]) {
        if (pp.mode == IR_PAD_CONSTANT) {
          outside = true;
          break;
        }
        c = pad_source(pp.mode, c, lo[d], hi[d]);
      }
      off += c * xs[d];
    }
    if (outside) memcpy((char *)y->data + (size_t)i * es, value, es);
    else copy_elem(y, i, x, off, es);
  }
  return VKML_OK;
}

vkml_status rt_cpu_expand(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  const int64_t *shape;
  int n_shape = ir_node_ints(n, IR_A_SHAPE, &shape);
  if (n_shape < 0 || n_shape > IR_MAX_RANK)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expand needs 'shape' of rank <= %d",
                        IR_MAX_RANK);
  rt_tensor st = {.dtype = x->dtype, .rank = n_shape};
  for (int d = 0; d < n_shape; d++) {
    if (shape[d] < 0)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "negative dim in shape");
    st.dims[d] = shape[d];
  }
  const rt_tensor *both[2] = {x, &st};
  int rank;
  int64_t dims[IR_MAX_RANK], s[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(rt_cpu_broadcast_dims(n, 2, both, &rank, dims));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, dims));
  rt_cpu_bcast_strides(x, rank, dims, s);
  copy_strided(y, x, rank, dims, 0, s);
  return VKML_OK;
}

vkml_status rt_cpu_tile(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int rank = x->rank;
  const int64_t *rep;
  if (ir_node_ints(n, IR_A_REPEATS, &rep) != rank)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "tile needs one repeat per axis (%d)",
                        rank);
  int64_t dims[IR_MAX_RANK], xs[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
  for (int d = 0; d < rank; d++) {
    if (rep[d] < 0 || (x->dims[d] && rep[d] > IR_MAX_ELEMENTS / x->dims[d]))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "bad repeat %lld for axis %d",
                          (long long)rep[d], d);
    dims[d] = x->dims[d] * rep[d];
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, dims));
  rt_strides(rank, x->dims, xs);
  size_t es = ir_dtype_size(x->dtype);
  int64_t count = rt_tensor_numel(y);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, dims, idx)) {
    int64_t off = 0;
    for (int d = 0; d < rank; d++) off += (idx[d] % x->dims[d]) * xs[d];
    copy_elem(y, i, x, off, es);
  }
  return VKML_OK;
}
