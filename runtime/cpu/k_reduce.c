/* CPU reference kernels for reduce_{mean,sum,max,min,prod} over an axis set
 * (reduce_sum with its fused activation) and argmax / argmin along one
 * axis. Floats reduce in double (NaN propagates through max/min); integers
 * in int64 with wrap-around for sum and prod, as fixed-width hardware
 * would. */
#include <math.h>
#include <stdlib.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

vkml_status rt_cpu_reduce(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int r = x->rank;
  bool fl = ir_dtype_is_float(x->dtype);
  if ((!fl && !ir_dtype_is_int(x->dtype)) || y->dtype != x->dtype)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s -> %s",
                        ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
  if (!fl && n->op == IR_OP_REDUCE_MEAN)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "reduce_mean of %s (float types only)",
                        ir_dtype_name(x->dtype));
  bool mask[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_reduce_axes_get(n, r, mask)));
  bool keep = ir_node_int(n, IR_A_KEEPDIMS, 1) != 0;
  int64_t want[IR_MAX_RANK], ostride[IR_MAX_RANK], count = 1;
  int rw = 0;
  for (int i = 0; i < r; i++) {
    if (mask[i]) count *= x->dims[i];
    if (!mask[i]) want[rw++] = x->dims[i];
    else if (keep) want[rw++] = 1;
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, rw, want));
  int64_t s = 1;
  for (int i = r - 1; i >= 0; i--) {
    ostride[i] = mask[i] ? 0 : s;
    if (!mask[i]) s *= x->dims[i];
  }
  int64_t nout = rt_tensor_numel(y), nin = rt_tensor_numel(x);
  if (nout == 0) return VKML_OK;
  bool is_max = n->op == IR_OP_REDUCE_MAX, is_min = n->op == IR_OP_REDUCE_MIN;
  bool is_prod = n->op == IR_OP_REDUCE_PROD;
  /* reduce_sum's fused activation (pass_split_k puts the split conv's
   * there), on floats only */
  ir_act_params act;
  ir_act_params_get(n, &act);
  if (act.kind != IR_ACT_NONE && !fl)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "a fused activation on %s values (floats only)",
                        ir_dtype_name(x->dtype));

  void *acc = malloc((size_t)nout * (fl ? sizeof(double) : sizeof(int64_t)));
  if (!acc) return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  double *df = acc;
  int64_t *di = acc;
  for (int64_t o = 0; o < nout; o++) {
    if (fl) df[o] = is_max ? -INFINITY : is_min ? INFINITY : is_prod ? 1.0 : 0.0;
    else di[o] = is_max ? INT64_MIN : is_min ? INT64_MAX : is_prod ? 1 : 0;
  }
  int64_t idx[IR_MAX_RANK] = {0};
  /* ostride is 0 on reduced axes: the input element's output index. */
  for (int64_t i = 0; i < nin; i++, rt_cpu_index_next(r, x->dims, idx)) {
    int64_t o = rt_cpu_index_offset(r, idx, ostride);
    if (fl) {
      double v = rt_load_f(x, i), *p = &df[o];
      if (is_max) {
        if ((v > *p || isnan(v)) && !isnan(*p)) *p = v;
      } else if (is_min) {
        if ((v < *p || isnan(v)) && !isnan(*p)) *p = v;
      } else if (is_prod) {
        *p *= v;
      } else {
        *p += v;
      }
    } else {
      int64_t v = rt_load_i(x, i), *p = &di[o];
      if (is_max) *p = v > *p ? v : *p;
      else if (is_min) *p = v < *p ? v : *p;
      else if (is_prod) *p = (int64_t)((uint64_t)*p * (uint64_t)v);
      else *p = (int64_t)((uint64_t)*p + (uint64_t)v);
    }
  }
  for (int64_t o = 0; o < nout; o++) {
    if (!fl) {
      rt_store_i(y, o, di[o]);
    } else if (n->op == IR_OP_REDUCE_MEAN) {
      rt_store_f(y, o, count ? df[o] / (double)count : NAN);
    } else {
      rt_store_f(y, o, ir_act_apply(&act, df[o]));
    }
  }
  free(acc);
  return VKML_OK;
}

vkml_status rt_cpu_argminmax(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  bool fl = ir_dtype_is_float(x->dtype);
  if ((!fl && !ir_dtype_is_int(x->dtype)) || !ir_dtype_is_int(y->dtype))
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s -> %s",
                        ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
  int axis;
  VKML_RETURN_IF_ERROR(rt_cpu_axis_get(n, 0, x->rank, &axis));
  bool keep = ir_node_int(n, IR_A_KEEPDIMS, 1) != 0;
  bool last = ir_node_int(n, IR_A_SELECT_LAST_INDEX, 0) != 0;
  bool is_max = n->op == IR_OP_ARGMAX;
  int64_t want[IR_MAX_RANK];
  int rw = 0;
  for (int i = 0; i < x->rank; i++) {
    if (i != axis) want[rw++] = x->dims[i];
    else if (keep) want[rw++] = 1;
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, rw, want));
  int64_t outer = rt_cpu_dims_prod(x->dims, 0, axis), len = x->dims[axis];
  int64_t inner = rt_cpu_dims_prod(x->dims, axis + 1, x->rank);
  if (outer * inner == 0) return VKML_OK;
  if (len == 0)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s over an empty axis", ir_op_name(n->op));
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t in = 0; in < inner; in++) {
      int64_t base = o * len * inner + in, best = 0;
      double bf = fl ? rt_load_f(x, base) : 0;
      int64_t bi = fl ? 0 : rt_load_i(x, base);
      for (int64_t k = 1; k < len; k++) {
        /* better: strictly better; tie: equal (taken with select_last_index) */
        bool better, tie;
        if (fl) {
          double v = rt_load_f(x, base + k * inner);
          better = is_max ? v > bf : v < bf;
          tie = v == bf;
          if (better || (tie && last)) bf = v;
        } else {
          int64_t v = rt_load_i(x, base + k * inner);
          better = is_max ? v > bi : v < bi;
          tie = v == bi;
          if (better || (tie && last)) bi = v;
        }
        if (better || (tie && last)) best = k;
      }
      rt_store_i(y, o * inner + in, best);
    }
  }
  return VKML_OK;
}
