/* CPU reference kernels for maxpool / avgpool (NCHW, dilation, asymmetric
 * pads, ceil_mode, count_include_pad as docs/ops.md defines them) and the
 * global pools. Values pass through double. */
#include <math.h>
#include <stdlib.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

/* Taps k of one window along one axis (position start + k*d): those inside
 * the input [0, n) and those inside the padded extent [-pad_lo, n + pad_hi),
 * which ceil_mode windows may overhang. */
typedef struct pool_taps {
  int64_t k0, k1; /* taps reading the input: k in [k0, k1) */
  int64_t padded; /* taps inside the padded extent */
} pool_taps;

static pool_taps window_taps(int64_t start, int64_t d, int64_t k, int64_t n,
                             int64_t pad_lo, int64_t pad_hi) {
  pool_taps t = {0, 0, 0};
  int64_t k0 = 0, k1 = 0;
  bool first = true;
  for (int64_t i = 0; i < k; i++) {
    int64_t pos = start + i * d;
    if (pos >= -pad_lo && pos < n + pad_hi) t.padded++;
    if (pos >= 0 && pos < n) {
      if (first) k0 = i, first = false;
      k1 = i + 1;
    }
  }
  t.k0 = k0;
  t.k1 = k1;
  return t;
}

vkml_status rt_cpu_pool(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  bool is_max = n->op == IR_OP_MAXPOOL;
  bool ok = ir_dtype_is_float(x->dtype) ||
            (is_max && (x->dtype == IR_I8 || x->dtype == IR_U8));
  if (!ok || y->dtype != x->dtype)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s -> %s",
                        ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
  if (x->rank != 4 || y->rank != 4)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "input and output must have rank 4");
  ir_pool_params p;
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_pool_params_get(n, &p)));
  int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
  int64_t OH, OW;
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_pool_out_dim(&p, 0, H, &OH)));
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_pool_out_dim(&p, 1, W, &OW)));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, 4, (int64_t[]){N, C, OH, OW}));
  int64_t kh = p.kernel[0], kw = p.kernel[1], sh = p.strides[0], sw = p.strides[1];
  int64_t dh = p.dilations[0], dw = p.dilations[1];
  /* Per-axis taps are the same for every plane: compute them once. */
  pool_taps *th = malloc((size_t)OH * sizeof *th), *tw = malloc((size_t)OW * sizeof *tw);
  double *xv = rt_cpu_load_doubles(x);
  if (!th || !tw || !xv) {
    free(th), free(tw), free(xv);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  for (int64_t o = 0; o < OH; o++)
    th[o] = window_taps(o * sh - p.pads[0], dh, kh, H, p.pads[0], p.pads[2]);
  for (int64_t o = 0; o < OW; o++)
    tw[o] = window_taps(o * sw - p.pads[1], dw, kw, W, p.pads[1], p.pads[3]);

  for (int64_t plane = 0; plane < N * C; plane++) {
    const double *xp = xv + plane * H * W;
    for (int64_t oh = 0; oh < OH; oh++) {
      int64_t h0 = oh * sh - p.pads[0];
      for (int64_t ow = 0; ow < OW; ow++) {
        int64_t w0 = ow * sw - p.pads[1];
        /* A window entirely in padding has no input: max gives -inf,
         * avg gives 0 (nothing to average but zeros of the padding). */
        double acc = is_max ? -INFINITY : 0.0;
        for (int64_t i = th[oh].k0; i < th[oh].k1; i++) {
          const double *xr = xp + (h0 + i * dh) * W;
          for (int64_t j = tw[ow].k0; j < tw[ow].k1; j++) {
            double v = xr[w0 + j * dw];
            if (is_max) {
              if (v > acc || isnan(v)) acc = isnan(acc) ? acc : v;
            } else {
              acc += v;
            }
          }
        }
        if (!is_max) {
          int64_t cnt = p.count_include_pad ? th[oh].padded * tw[ow].padded
                                            : (th[oh].k1 - th[oh].k0) * (tw[ow].k1 - tw[ow].k0);
          acc = cnt > 0 ? acc / (double)cnt : 0.0;
        }
        rt_store_f(y, (plane * OH + oh) * OW + ow, acc);
      }
    }
  }
  free(th), free(tw), free(xv);
  return VKML_OK;
}

vkml_status rt_cpu_global_pool(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  if (!ir_dtype_is_float(x->dtype) || y->dtype != x->dtype)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s -> %s",
                        ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
  if (x->rank < 2 || y->rank != x->rank)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "input must have rank >= 2, output the same rank");
  int64_t spatial = rt_cpu_dims_prod(x->dims, 2, x->rank);
  bool ok = y->dims[0] == x->dims[0] && y->dims[1] == x->dims[1];
  for (int i = 2; i < y->rank; i++) ok = ok && y->dims[i] == 1;
  if (!ok)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output must have shape [N,C,1,...]");
  bool is_max = n->op == IR_OP_GLOBAL_MAX_POOL;
  if (is_max && spatial == 0 && x->dims[0] * x->dims[1] > 0)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "max over an empty spatial extent");
  int64_t planes = x->dims[0] * x->dims[1];
  for (int64_t pl = 0; pl < planes; pl++) {
    double acc = is_max ? -INFINITY : 0.0;
    for (int64_t i = 0; i < spatial; i++) {
      double v = rt_load_f(x, pl * spatial + i);
      if (is_max) {
        if (v > acc || isnan(v)) acc = isnan(acc) ? acc : v;
      } else {
        acc += v;
      }
    }
    if (!is_max) acc = spatial > 0 ? acc / (double)spatial : NAN;
    rt_store_f(y, pl, acc);
  }
  return VKML_OK;
}
