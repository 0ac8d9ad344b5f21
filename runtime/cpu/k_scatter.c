/* CPU reference kernels: gather_nd, scatter_elements, scatter_nd and shape. The
 * scatters copy data, then apply the updates in the indices' order (with
 * reduction none a later duplicate wins). Indices wrap once if negative;
 * out of range is an error naming the value (rt_cpu_fix_index). */
#include <math.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

/* Slice offset (in slices) of tuple t of batch b: every coordinate checked. */
static vkml_status nd_slice(const ir_node *n, const ir_nd_params *p, const rt_tensor *ind,
                            int64_t b, int64_t t, int64_t *out) {
  int64_t first = (b * p->tuples + t) * p->k, off = b * p->batch_slices;
  for (int j = 0; j < p->k; j++) {
    int64_t v;
    VKML_RETURN_IF_ERROR(rt_cpu_fix_index(n, rt_load_i(ind, first + j), first + j,
                                          p->batch_dims + j, p->dims[j], &v));
    off += v * p->strides[j];
  }
  *out = off;
  return VKML_OK;
}

static vkml_status nd_params(const ir_node *n, const rt_tensor *x, const rt_tensor *ind,
                             int64_t batch_dims, ir_nd_params *p) {
  ir_type tx = rt_tensor_type(x), ti = rt_tensor_type(ind);
  vkml_status s = ir_nd_params_get(&tx, &ti, batch_dims, p);
  if (!s) return VKML_OK;
  vkml_status e = rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(s));
  vkml_status_free(s);
  return e;
}

vkml_status rt_cpu_gather_nd(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *ind = a->in[1];
  rt_tensor *y = a->out[0];
  VKML_RETURN_IF_ERROR(rt_cpu_check_indices(n, ind));
  ir_nd_params p;
  VKML_RETURN_IF_ERROR(nd_params(n, x, ind, ir_node_int(n, IR_A_BATCH_DIMS, 0), &p));
  int64_t dims[IR_MAX_RANK];
  int r = 0;
  for (int d = 0; d < ind->rank - 1; d++) dims[r++] = ind->dims[d];
  for (int d = p.batch_dims + p.k; d < x->rank && r < IR_MAX_RANK; d++) dims[r++] = x->dims[d];
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, r, dims));
  size_t block = (size_t)p.slice * ir_dtype_size(x->dtype);
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t t = 0; t < p.tuples; t++) {
      int64_t off;
      VKML_RETURN_IF_ERROR(nd_slice(n, &p, ind, b, t, &off));
      if (block)
        memcpy((char *)y->data + (size_t)(b * p.tuples + t) * block,
               (const char *)x->data + (size_t)off * block, block);
    }
  return VKML_OK;
}

/* max / min that propagate NaN (numpy's maximum / minimum). */
static double pick(bool max, double a, double u) {
  if (isnan(a) || isnan(u)) return isnan(a) ? a : u;
  return max ? (u > a ? u : a) : (u < a ? u : a);
}

/* y[at] combined with upd[from] by the reduction. */
static void apply(rt_tensor *y, int64_t at, const rt_tensor *upd, int64_t from,
                  ir_scatter_reduction r) {
  size_t es = ir_dtype_size(y->dtype);
  if (r == IR_SCATTER_NONE) {
    memcpy((char *)y->data + (size_t)at * es, (const char *)upd->data + (size_t)from * es, es);
    return;
  }
  if (ir_dtype_is_float(y->dtype)) {
    double a = rt_load_f(y, at), u = rt_load_f(upd, from);
    rt_store_f(y, at, r == IR_SCATTER_ADD   ? a + u
                      : r == IR_SCATTER_MUL ? a * u
                                            : pick(r == IR_SCATTER_MAX, a, u));
    return;
  }
  int64_t a = rt_load_i(y, at), u = rt_load_i(upd, from);
  /* unsigned arithmetic: wraps like the device's, no C overflow */
  int64_t v = r == IR_SCATTER_ADD   ? (int64_t)((uint64_t)a + (uint64_t)u)
              : r == IR_SCATTER_MUL ? (int64_t)((uint64_t)a * (uint64_t)u)
              : r == IR_SCATTER_MAX ? (u > a ? u : a)
                                    : (u < a ? u : a);
  rt_store_i(y, at, v);
}

static vkml_status scatter_begin(const rt_cpu_args *a, ir_scatter_reduction *r) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *upd = a->in[2];
  rt_tensor *y = a->out[0];
  VKML_RETURN_IF_ERROR(rt_cpu_check_indices(n, a->in[1]));
  VKML_RETURN_IF_ERROR(rt_cpu_check_same_dtype(n, x, upd, 2));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, x->rank, x->dims));
  *r = (ir_scatter_reduction)ir_node_int(n, IR_A_REDUCTION, IR_SCATTER_NONE);
  if (*r != IR_SCATTER_NONE && x->dtype == IR_BOOL)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "a reduction on bool data");
  memcpy(y->data, x->data, rt_tensor_bytes(x));
  return VKML_OK;
}

vkml_status rt_cpu_scatter_elements(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *ind = a->in[1], *upd = a->in[2];
  rt_tensor *y = a->out[0];
  ir_scatter_reduction r;
  VKML_RETURN_IF_ERROR(scatter_begin(a, &r));
  int rank = x->rank, axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), rank, &axis));
  if (ind->rank != rank || upd->rank != rank ||
      memcmp(ind->dims, upd->dims, sizeof(int64_t) * (size_t)rank))
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "indices and updates must have data's rank and one shape");
  for (int d = 0; d < rank; d++)
    if (d != axis && ind->dims[d] > x->dims[d])
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "indices dim %d (%lld) exceeds data's (%lld)", d,
                          (long long)ind->dims[d], (long long)x->dims[d]);
  int64_t xs[IR_MAX_RANK], idx[IR_MAX_RANK] = {0}, count = rt_tensor_numel(ind);
  rt_strides(rank, x->dims, xs);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, ind->dims, idx)) {
    int64_t k;
    VKML_RETURN_IF_ERROR(rt_cpu_fix_index(n, rt_load_i(ind, i), i, axis, x->dims[axis], &k));
    apply(y, (k - idx[axis]) * xs[axis] + rt_cpu_index_offset(rank, idx, xs), upd, i, r);
  }
  return VKML_OK;
}

vkml_status rt_cpu_scatter_nd(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *ind = a->in[1], *upd = a->in[2];
  rt_tensor *y = a->out[0];
  ir_scatter_reduction r;
  VKML_RETURN_IF_ERROR(scatter_begin(a, &r));
  ir_nd_params p;
  VKML_RETURN_IF_ERROR(nd_params(n, x, ind, 0, &p));
  if (rt_tensor_numel(upd) != p.tuples * p.slice)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "updates have %lld elements, expected %lld",
                        (long long)rt_tensor_numel(upd), (long long)(p.tuples * p.slice));
  for (int64_t t = 0; t < p.tuples; t++) {
    int64_t off;
    VKML_RETURN_IF_ERROR(nd_slice(n, &p, ind, 0, t, &off));
    for (int64_t e = 0; e < p.slice; e++) apply(y, off * p.slice + e, upd, t * p.slice + e, r);
  }
  return VKML_OK;
}

vkml_status rt_cpu_shape(const rt_cpu_args *a) {
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int64_t r = x->rank;
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, y, IR_I64, 1, &r));
  for (int d = 0; d < x->rank; d++) rt_store_i(y, d, x->dims[d]);
  return VKML_OK;
}

/* to_capacity: x's live elements (a prefix: its rows lead), then the fill
 * value up to the capacity. */
vkml_status rt_cpu_to_capacity(const rt_cpu_args *a) {
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  const ir_type *yt = &a->node->outputs[0]->type;
  int64_t live = rt_tensor_numel(x), cap = ir_type_numel(yt);
  if (y->dtype != x->dtype || y->rank != yt->rank || rt_tensor_numel(y) != cap || live > cap)
    return rt_cpu_error(a->node, VKML_CODE_INTERNAL, "to_capacity: the output does not fit");
  memcpy(y->data, x->data, rt_tensor_bytes(x));
  double v = ir_node_float(a->node, IR_A_VALUE, 0.0f);
  for (int64_t i = live; i < cap; i++) {
    if (ir_dtype_is_float(y->dtype)) rt_store_f(y, i, v);
    else rt_store_i(y, i, (int64_t)v);
  }
  return VKML_OK;
}

/* select: the chosen input copied; the output, allocated at the capacity,
 * takes its dims. */
vkml_status rt_cpu_select(const rt_cpu_args *a) {
  const rt_tensor *x = rt_load_i(a->in[0], 0) ? a->in[1] : a->in[2];
  rt_tensor *y = a->out[0];
  if (y->dtype != x->dtype || y->rank != x->rank)
    return rt_cpu_error(a->node, VKML_CODE_INTERNAL, "select: the output does not fit");
  for (int d = 0; d < x->rank; d++)
    if (x->dims[d] > y->dims[d])
      return rt_cpu_error(a->node, VKML_CODE_INTERNAL, "select: the output has no room");
  memcpy(y->dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
  memcpy(y->data, x->data, rt_tensor_bytes(x));
  return VKML_OK;
}
