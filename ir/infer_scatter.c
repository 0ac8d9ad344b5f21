/* Shape inference for gather_nd, scatter_elements, scatter_nd and shape, and the
 * nd addressing they share with the kernels (ir_nd_params). */
#include <math.h>
#include <string.h>

#include "infer.h"
#include "params.h"

static vkml_status want_index(const ir_node *n, const ir_type *t) {
  if (t->dtype == IR_I32 || t->dtype == IR_I64) return VKML_OK;
  return ir_infer_error("%s: indices must be i32 or i64, got %s", ir_op_name(n->op),
                        ir_dtype_name(t->dtype));
}

vkml_status ir_nd_params_get(const ir_type *data, const ir_type *ind, int64_t batch_dims,
                             ir_nd_params *o) {
  memset(o, 0, sizeof *o);
  char sd[200], si[200];
  ir_dims_format(data, sd, sizeof sd);
  ir_dims_format(ind, si, sizeof si);
  if (ind->rank < 1) return ir_infer_error("indices must have rank >= 1, got a scalar");
  if (batch_dims < 0 || batch_dims >= ind->rank || batch_dims >= data->rank)
    return ir_infer_error("batch_dims %lld must be below the ranks of data %s and indices %s",
                          (long long)batch_dims, sd, si);
  int b = (int)batch_dims;
  int64_t k = ind->dims[ind->rank - 1];
  if (k < 1 || k > data->rank - b)
    return ir_infer_error("indices %s: the last axis (%lld) must be in [1, %d] for data %s",
                          si, (long long)k, data->rank - b, sd);
  o->batch_dims = b;
  o->k = (int)k;
  o->batch = o->tuples = o->slice = 1;
  for (int d = 0; d < b; d++) {
    if (ind->dims[d] != data->dims[d])
      return ir_infer_error("indices %s and data %s differ in batch axis %d", si, sd, d);
    o->batch *= data->dims[d];
  }
  for (int d = b; d < ind->rank - 1; d++) o->tuples *= ind->dims[d];
  for (int d = b + o->k; d < data->rank; d++) o->slice *= data->dims[d];
  int64_t run = 1;
  for (int j = o->k - 1; j >= 0; j--) {
    o->dims[j] = data->dims[b + j];
    o->strides[j] = run;
    run *= o->dims[j];
  }
  o->batch_slices = run;
  return VKML_OK;
}

vkml_status ir_infer_gather_nd(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *ind = &in[1];
  VKML_RETURN_IF_ERROR(want_index(n, ind));
  if (x->bounded) return ir_infer_error("gather_nd: data is bounded; it needs static sizes");
  ir_nd_params p;
  vkml_status s = ir_nd_params_get(x, ind, ir_node_int(n, IR_A_BATCH_DIMS, 0), &p);
  if (s) return vkml_status_annotate(s, "gather_nd");
  int r = ind->rank - 1 + x->rank - p.batch_dims - p.k;
  if (r > IR_MAX_RANK) return ir_infer_error("gather_nd: output rank %d exceeds %d", r, IR_MAX_RANK);
  ir_type o = *ind;
  o.dtype = x->dtype;
  o.rank = 0;
  o.bounded = false;
  for (int d = 0; d < ind->rank - 1; d++) o.dims[o.rank++] = ind->dims[d];
  for (int d = p.batch_dims + p.k; d < x->rank; d++) o.dims[o.rank++] = x->dims[d];
  if (ind->bounded) {
    if (ind->bounded_axis == ind->rank - 1)
      return ir_infer_error("gather_nd: the indices' last axis is bounded");
    o.bounded = true;
    o.bounded_axis = ind->bounded_axis;
  }
  out[0] = o;
  return VKML_OK;
}

/* scatter_elements takes run-time sizes (MultiScaleRoIAlign's results put
 * back in order: data [<=R,C,H,W], indices and updates [<=r,C,H,W]): data
 * bounded along one axis, indices and updates (alike) along one axis; the
 * output is the data's type. scatter_nd needs static sizes. */
static vkml_status want_static(const ir_node *n, const ir_type *in) {
  bool elements = n->op == IR_OP_SCATTER_ELEMENTS;
  for (int i = 0; i < 3; i++)
    if (in[i].bounded && !elements)
      return ir_infer_error("%s: input %d is bounded; scatter_nd needs static sizes",
                            ir_op_name(n->op), i);
  if (elements && (in[1].bounded != in[2].bounded ||
                   (in[1].bounded && in[1].bounded_axis != in[2].bounded_axis)))
    return ir_infer_error("%s: indices and updates must be bounded alike", ir_op_name(n->op));
  if (in[2].dtype != in[0].dtype)
    return ir_infer_error("%s: updates are %s, data %s", ir_op_name(n->op),
                          ir_dtype_name(in[2].dtype), ir_dtype_name(in[0].dtype));
  ir_scatter_reduction red = (ir_scatter_reduction)ir_node_int(n, IR_A_REDUCTION, 0);
  if (red != IR_SCATTER_NONE && in[0].dtype == IR_BOOL)
    return ir_infer_error("%s: a reduction on bool data", ir_op_name(n->op));
  return VKML_OK;
}

vkml_status ir_infer_scatter_elements(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *ind = &in[1], *upd = &in[2];
  VKML_RETURN_IF_ERROR(want_index(n, ind));
  VKML_RETURN_IF_ERROR(want_static(n, in));
  char sx[200], si[200], su[200];
  ir_dims_format(x, sx, sizeof sx);
  ir_dims_format(ind, si, sizeof si);
  ir_dims_format(upd, su, sizeof su);
  if (x->rank < 1) return ir_infer_error("scatter_elements: data must have rank >= 1");
  if (ind->rank != x->rank)
    return ir_infer_error("scatter_elements: indices %s and data %s differ in rank", si, sx);
  if (ind->rank != upd->rank || memcmp(ind->dims, upd->dims, sizeof(int64_t) * (size_t)ind->rank))
    return ir_infer_error("scatter_elements: updates %s differ from indices %s", su, si);
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "scatter_elements");
  for (int d = 0; d < x->rank; d++)
    if (d != axis && ind->dims[d] > x->dims[d])
      return ir_infer_error("scatter_elements: indices %s exceed data %s along axis %d", si, sx,
                            d);
  if (x->dims[axis] == 0 && ir_type_numel(ind) > 0)
    return ir_infer_error("scatter_elements: cannot scatter into empty axis %d", axis);
  out[0] = *x;
  return VKML_OK;
}

vkml_status ir_infer_scatter_nd(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *ind = &in[1], *upd = &in[2];
  VKML_RETURN_IF_ERROR(want_index(n, ind));
  VKML_RETURN_IF_ERROR(want_static(n, in));
  ir_nd_params p;
  if (x->rank < 1) return ir_infer_error("scatter_nd: data must have rank >= 1");
  vkml_status s = ir_nd_params_get(x, ind, 0, &p);
  if (s) return vkml_status_annotate(s, "scatter_nd");
  ir_type want = *upd;
  want.rank = 0;
  for (int d = 0; d < ind->rank - 1; d++) want.dims[want.rank++] = ind->dims[d];
  for (int d = p.k; d < x->rank; d++) {
    if (want.rank == IR_MAX_RANK) return ir_infer_error("scatter_nd: updates' rank too large");
    want.dims[want.rank++] = x->dims[d];
  }
  if (!ir_type_equal(&want, upd)) {
    char a[200], b[200];
    ir_dims_format(&want, a, sizeof a);
    ir_dims_format(upd, b, sizeof b);
    return ir_infer_error("scatter_nd: updates are %s, expected %s", b, a);
  }
  for (int j = 0; j < p.k; j++)
    if (p.dims[j] == 0 && p.tuples > 0)
      return ir_infer_error("scatter_nd: cannot scatter into empty axis %d", j);
  out[0] = *x;
  return VKML_OK;
}

vkml_status ir_infer_shape(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n;
  int64_t r = in[0].rank;
  out[0] = ir_type_make(IR_I64, 1, &r);
  return VKML_OK;
}

vkml_status ir_infer_to_capacity(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  if (!ir_type_rows_lead(x))
    return ir_infer_error("to_capacity: the input must be bounded, its dims before the bounded "
                          "axis 1");
  if (x->dtype != IR_F32 && x->dtype != IR_F16 && x->dtype != IR_I32 && x->dtype != IR_I64)
    return ir_infer_error("to_capacity: %s (f32, f16, i32 or i64)", ir_dtype_name(x->dtype));
  float v = ir_node_float(n, IR_A_VALUE, 0.0f);
  if (!ir_dtype_is_float(x->dtype) && !(fabsf(v) <= 9.2e18f))
    return ir_infer_error("to_capacity: the fill value %g does not fit %s", (double)v,
                          ir_dtype_name(x->dtype));
  out[0] = *x;
  out[0].bounded = false;
  return VKML_OK;
}

vkml_status ir_infer_select(const ir_node *n, const ir_type *in, ir_type *out) {
  (void)n;
  const ir_type *c = &in[0], *a = &in[1], *b = &in[2];
  if (c->dtype != IR_BOOL || ir_type_numel(c) != 1 || c->bounded)
    return ir_infer_error("select: the condition must be one bool");
  char sa[200], sb[200];
  ir_dims_format(a, sa, sizeof sa);
  ir_dims_format(b, sb, sizeof sb);
  if (a->dtype != b->dtype || a->rank != b->rank)
    return ir_infer_error("select: %s%s and %s%s differ in dtype or rank", ir_dtype_name(a->dtype),
                          sa, ir_dtype_name(b->dtype), sb);
  int axis = a->bounded ? a->bounded_axis : b->bounded ? b->bounded_axis : -1;
  if (a->bounded && b->bounded && a->bounded_axis != b->bounded_axis)
    return ir_infer_error("select: %s and %s are bounded along different axes", sa, sb);
  ir_type o = *a;
  o.bounded = false;
  for (int d = 0; d < a->rank; d++) {
    if (a->dims[d] == b->dims[d]) continue;
    if (axis >= 0 && axis != d)
      return ir_infer_error("select: %s and %s differ along more than one axis", sa, sb);
    axis = d;
    o.dims[d] = a->dims[d] > b->dims[d] ? a->dims[d] : b->dims[d];
  }
  if (axis >= 0) {
    o.bounded = true;
    o.bounded_axis = axis;
  }
  out[0] = o;
  return VKML_OK;
}
