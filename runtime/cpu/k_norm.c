/* CPU reference kernels for batchnorm (inference form), instance_norm and
 * layer_norm. Statistics are population mean / variance computed in double
 * with two passes (mean first), so large offsets do not cancel. */
#include <math.h>
#include <stdlib.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

static vkml_status check_float(const rt_cpu_args *a) {
  for (int i = 0; i < a->n_in; i++)
    if (!ir_dtype_is_float(a->in[i]->dtype))
      return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED,
                          "input %d has dtype %s; only f32 and f16 are supported", i,
                          ir_dtype_name(a->in[i]->dtype));
  if (a->n_out != 1 || !ir_dtype_is_float(a->out[0]->dtype))
    return rt_cpu_error(a->node, VKML_CODE_UNSUPPORTED, "expects one float output");
  const rt_tensor *x = a->in[0];
  return rt_cpu_check_out_dims(a->node, a->out[0], x->rank, x->dims);
}

/* Per-channel parameter vectors must hold exactly c elements. */
static vkml_status check_channel_params(const rt_cpu_args *a, int first, int64_t c) {
  for (int i = first; i < a->n_in; i++)
    if (rt_tensor_numel(a->in[i]) != c || a->in[i]->rank > 1)
      return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                          "input %d must have shape [%lld]", i, (long long)c);
  return VKML_OK;
}

vkml_status rt_cpu_batchnorm(const rt_cpu_args *a) {
  if (a->n_in != 5) return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "expects 5 inputs");
  VKML_RETURN_IF_ERROR(check_float(a));
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  if (x->rank < 2)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "input must have rank >= 2");
  int64_t N = x->dims[0], C = x->dims[1], inner = rt_cpu_dims_prod(x->dims, 2, x->rank);
  VKML_RETURN_IF_ERROR(check_channel_params(a, 1, C));
  double eps = ir_node_float(a->node, IR_A_EPSILON, 1e-5f);
  for (int64_t c = 0; c < C; c++) {
    double scale = rt_load_f(a->in[1], c), bias = rt_load_f(a->in[2], c);
    double mean = rt_load_f(a->in[3], c), var = rt_load_f(a->in[4], c);
    double inv = 1.0 / sqrt(var + eps);
    for (int64_t b = 0; b < N; b++) {
      int64_t base = (b * C + c) * inner;
      for (int64_t i = 0; i < inner; i++)
        rt_store_f(y, base + i, (rt_load_f(x, base + i) - mean) * inv * scale + bias);
    }
  }
  return VKML_OK;
}

/* Normalises each of `rows` contiguous runs of `len` elements; element j of a
 * run uses scale[si[j]] and bias[bi[j]] (si/bi NULL: per-row index r % pc,
 * the instance_norm channel). */
static void normalize_rows(const rt_tensor *x, rt_tensor *y, int64_t rows, int64_t len,
                           double eps, const rt_tensor *scale, const rt_tensor *bias,
                           const int64_t *si, const int64_t *bi, int64_t pc) {
  for (int64_t r = 0; r < rows; r++) {
    int64_t base = r * len;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < len; j++) mean += rt_load_f(x, base + j);
    mean /= (double)len;
    for (int64_t j = 0; j < len; j++) {
      double d = rt_load_f(x, base + j) - mean;
      var += d * d;
    }
    var /= (double)len;
    double inv = 1.0 / sqrt(var + eps);
    for (int64_t j = 0; j < len; j++) {
      double s = rt_load_f(scale, si ? si[j] : r % pc);
      double b = bias ? rt_load_f(bias, bi ? bi[j] : r % pc) : 0.0;
      rt_store_f(y, base + j, (rt_load_f(x, base + j) - mean) * inv * s + b);
    }
  }
}

vkml_status rt_cpu_instance_norm(const rt_cpu_args *a) {
  if (a->n_in != 3) return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "expects 3 inputs");
  VKML_RETURN_IF_ERROR(check_float(a));
  const rt_tensor *x = a->in[0];
  if (x->rank < 3)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "input must have rank >= 3");
  int64_t C = x->dims[1], inner = rt_cpu_dims_prod(x->dims, 2, x->rank);
  VKML_RETURN_IF_ERROR(check_channel_params(a, 1, C));
  if (inner == 0 || rt_tensor_numel(x) == 0) return VKML_OK;
  double eps = ir_node_float(a->node, IR_A_EPSILON, 1e-5f);
  normalize_rows(x, a->out[0], x->dims[0] * C, inner, eps, a->in[1], a->in[2], NULL, NULL, C);
  return VKML_OK;
}

/* Flat index into p (rank <= rank of the normalised shape d[0..nd)) of
 * element j of that shape, p broadcasting unidirectionally (right-aligned). */
static vkml_status broadcast_index(const rt_cpu_args *a, const rt_tensor *p, int nd,
                                   const int64_t *d, int64_t len, int64_t *idx) {
  if (p->rank > nd)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                        "scale/bias rank %d exceeds the normalised rank %d", p->rank, nd);
  int off = nd - p->rank;
  for (int i = 0; i < p->rank; i++)
    if (p->dims[i] != 1 && p->dims[i] != d[off + i])
      return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                          "scale/bias does not broadcast to the normalised shape");
  for (int64_t j = 0; j < len; j++) {
    int64_t rem = j, flat = 0, stride = 1;
    for (int i = nd - 1; i >= 0; i--) {
      int64_t c = rem % d[i];
      rem /= d[i];
      if (i >= off) {
        int64_t pd = p->dims[i - off];
        flat += (pd == 1 ? 0 : c) * stride;
        stride *= pd;
      }
    }
    idx[j] = flat;
  }
  return VKML_OK;
}

vkml_status rt_cpu_layer_norm(const rt_cpu_args *a) {
  if (a->n_in < 2) return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "expects 2 or 3 inputs");
  VKML_RETURN_IF_ERROR(check_float(a));
  const rt_tensor *x = a->in[0], *bias = a->n_in > 2 ? a->in[2] : NULL;
  int axis;
  VKML_RETURN_IF_ERROR(rt_cpu_axis_get(a->node, -1, x->rank, &axis));
  int64_t rows = rt_cpu_dims_prod(x->dims, 0, axis);
  int64_t len = rt_cpu_dims_prod(x->dims, axis, x->rank);
  if (rows * len == 0) return VKML_OK;
  int64_t *si = malloc((size_t)len * sizeof *si), *bi = malloc((size_t)len * sizeof *bi);
  if (!si || !bi) {
    free(si), free(bi);
    return rt_cpu_error(a->node, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  int nd = x->rank - axis;
  vkml_status s = broadcast_index(a, a->in[1], nd, x->dims + axis, len, si);
  if (!s && bias) s = broadcast_index(a, bias, nd, x->dims + axis, len, bi);
  if (!s) {
    double eps = ir_node_float(a->node, IR_A_EPSILON, 1e-5f);
    normalize_rows(x, a->out[0], rows, len, eps, a->in[1], bias, si, bi, 1);
  }
  free(si), free(bi);
  return s;
}
