/* CPU reference kernels for conv2d and conv_transpose2d (NCHW, groups,
 * dilation, asymmetric pads, fused activation). Tensors are converted to
 * double once so one loop nest serves f32 and f16 and accumulates exactly
 * enough to be the oracle for the GPU kernels. */
#include <stdlib.h>

#include "cpu_kernels.h"
#include "ir/params.h"

/* Prefixes a status from an attribute decoder with the node's description. */
static vkml_status at_node(const ir_node *n, vkml_status s) {
  if (!s) return s;
  char where[256];
  ir_node_describe(n, where, sizeof where);
  return vkml_status_annotate(s, "%s", where);
}

static double *load_doubles(const rt_tensor *t) {
  int64_t n = rt_tensor_numel(t);
  double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
  if (!d) return NULL;
  if (t->dtype == IR_F32) {
    const float *p = t->data;
    for (int64_t i = 0; i < n; i++) d[i] = p[i];
  } else {
    for (int64_t i = 0; i < n; i++) d[i] = rt_load_f(t, i);
  }
  return d;
}

/* The outputs o in [*lo, *hi) of 0..count-1 whose position o*s + off lies in
 * [0, n): the taps that read real data, so inner loops need no bounds test. */
static void tap_range(int64_t off, int64_t s, int64_t n, int64_t count,
                      int64_t *lo, int64_t *hi) {
  int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t h = n - off <= 0 ? 0 : (n - off - 1) / s + 1;
  if (h > count) h = count;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* a*b for sizes a, b >= 0, or -1 when it would pass IR_MAX_ELEMENTS (hostile
 * attributes must not overflow the index arithmetic). */
static int64_t size_mul(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (a != 0 && b > IR_MAX_ELEMENTS / a) return -1;
  return a * b;
}

/* Shared checks: float tensors of rank 4 (bias rank 1 of size m). */
static vkml_status check_tensors(const rt_cpu_args *a, int64_t m_out) {
  const ir_node *n = a->node;
  if (a->n_in < 2 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 2 or 3 inputs and 1 output");
  for (int i = 0; i < a->n_in; i++)
    if (!ir_dtype_is_float(a->in[i]->dtype))
      return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "input %d has dtype %s; only f32 and f16 are supported",
                          i, ir_dtype_name(a->in[i]->dtype));
  if (!ir_dtype_is_float(a->out[0]->dtype))
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "output dtype %s; only f32 and f16 are supported",
                        ir_dtype_name(a->out[0]->dtype));
  if (a->in[0]->rank != 4 || a->in[1]->rank != 4 || a->out[0]->rank != 4)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "input, weight and output must have rank 4 (got %d, %d, %d)",
                        a->in[0]->rank, a->in[1]->rank, a->out[0]->rank);
  if (a->n_in > 2 && (a->in[2]->rank != 1 || a->in[2]->dims[0] != m_out))
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "bias must have shape [%lld]",
                        (long long)m_out);
  return VKML_OK;
}

static vkml_status check_out(const ir_node *n, const rt_tensor *y,
                             const int64_t want[4]) {
  for (int i = 0; i < 4; i++)
    if (y->dims[i] != want[i])
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "output has shape [%lld,%lld,%lld,%lld], expected "
                          "[%lld,%lld,%lld,%lld]",
                          (long long)y->dims[0], (long long)y->dims[1],
                          (long long)y->dims[2], (long long)y->dims[3],
                          (long long)want[0], (long long)want[1],
                          (long long)want[2], (long long)want[3]);
  return VKML_OK;
}

/* Loads x, w and the optional bias as doubles; frees what it got on failure. */
static vkml_status load_all(const rt_cpu_args *a, double **x, double **w,
                            double **b) {
  *x = load_doubles(a->in[0]);
  *w = load_doubles(a->in[1]);
  *b = a->n_in > 2 ? load_doubles(a->in[2]) : NULL;
  if (!*x || !*w || (a->n_in > 2 && !*b)) {
    free(*x);
    free(*w);
    free(*b);
    return rt_cpu_error(a->node, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  return VKML_OK;
}

vkml_status rt_cpu_conv2d(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in < 2) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 2 or 3 inputs");
  ir_type wt = rt_tensor_type(a->in[1]);
  ir_conv_params p;
  VKML_RETURN_IF_ERROR(at_node(n, ir_conv_params_get(n, &wt, &p)));
  VKML_RETURN_IF_ERROR(check_tensors(a, wt.dims[0]));
  const int64_t *xd = a->in[0]->dims;
  int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3];
  int64_t M = wt.dims[0], Cg = wt.dims[1], KH = wt.dims[2], KW = wt.dims[3];
  int64_t G = p.group, sh = p.strides[0], sw = p.strides[1];
  int64_t dh = p.dilations[0], dw = p.dilations[1], pt = p.pads[0], pl = p.pads[1];
  if (C % G != 0 || C / G != Cg || M % G != 0)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "channels do not match: input %lld, weight [%lld,%lld,..], group %lld",
                        (long long)C, (long long)M, (long long)Cg, (long long)G);
  if (KH < 1 || KW < 1) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "empty kernel");
  int64_t eh = size_mul(KH - 1, dh), ew = size_mul(KW - 1, dw);
  if (eh < 0 || ew < 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "dilated kernel too large");
  eh++, ew++;
  int64_t ph = H + pt + p.pads[2], pw = W + pl + p.pads[3];
  if (ph < eh || pw < ew)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "kernel larger than padded input");
  int64_t want[4] = {N, M, (ph - eh) / sh + 1, (pw - ew) / sw + 1};
  VKML_RETURN_IF_ERROR(check_out(n, a->out[0], want));
  int64_t OH = want[2], OW = want[3], Mg = M / G;

  double *x, *w, *b;
  VKML_RETURN_IF_ERROR(load_all(a, &x, &w, &b));
  double *acc = malloc((size_t)(OH * OW > 0 ? OH * OW : 1) * sizeof *acc);
  if (!acc) {
    free(x), free(w), free(b);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  rt_tensor *y = a->out[0];
  for (int64_t in = 0; in < N; in++) {
    for (int64_t m = 0; m < M; m++) {
      int64_t g = m / Mg;
      for (int64_t i = 0; i < OH * OW; i++) acc[i] = b ? b[m] : 0.0;
      for (int64_t ic = 0; ic < Cg; ic++) {
        const double *xp = x + ((in * C + g * Cg + ic) * H) * W;
        const double *wp = w + ((m * Cg + ic) * KH) * KW;
        for (int64_t kh = 0; kh < KH; kh++) {
          int64_t offh = kh * dh - pt, oh0, oh1;
          tap_range(offh, sh, H, OH, &oh0, &oh1);
          for (int64_t kw = 0; kw < KW; kw++) {
            int64_t offw = kw * dw - pl, ow0, ow1;
            tap_range(offw, sw, W, OW, &ow0, &ow1);
            double wv = wp[kh * KW + kw];
            for (int64_t oh = oh0; oh < oh1; oh++) {
              const double *xr = xp + (oh * sh + offh) * W + offw;
              double *ar = acc + oh * OW;
              for (int64_t ow = ow0; ow < ow1; ow++) ar[ow] += wv * xr[ow * sw];
            }
          }
        }
      }
      int64_t base = (in * M + m) * OH * OW;
      for (int64_t i = 0; i < OH * OW; i++)
        rt_store_f(y, base + i, ir_act_apply(&p.act, acc[i]));
    }
  }
  free(acc), free(x), free(w), free(b);
  return VKML_OK;
}

/* Scatter form: every input pixel adds its weighted kernel footprint at
 * (i*s - pad + k*d) of the output, the transpose of conv2d's gather. */
vkml_status rt_cpu_conv_transpose2d(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in < 2) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 2 or 3 inputs");
  ir_type wt = rt_tensor_type(a->in[1]);
  ir_conv_params p;
  VKML_RETURN_IF_ERROR(at_node(n, ir_conv_params_get(n, &wt, &p)));
  int64_t G = p.group;
  if (a->in[0]->rank != 4 || wt.dims[0] != a->in[0]->dims[1] || wt.dims[0] % G != 0)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "channels do not match: weight [%lld,..], group %lld",
                        (long long)wt.dims[0], (long long)G);
  int64_t M = size_mul(wt.dims[1], G);
  if (M < 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "too many output channels");
  VKML_RETURN_IF_ERROR(check_tensors(a, M));
  const int64_t *xd = a->in[0]->dims;
  int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3];
  int64_t Mg = wt.dims[1], KH = wt.dims[2], KW = wt.dims[3], Cg = C / G;
  int64_t sh = p.strides[0], sw = p.strides[1];
  int64_t dh = p.dilations[0], dw = p.dilations[1], pt = p.pads[0], pl = p.pads[1];
  if (H < 1 || W < 1 || KH < 1 || KW < 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "empty input or kernel");
  int64_t sph = size_mul(sh, H - 1), spw = size_mul(sw, W - 1);
  int64_t eh = size_mul(KH - 1, dh), ew = size_mul(KW - 1, dw);
  if (sph < 0 || spw < 0 || eh < 0 || ew < 0)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output too large");
  int64_t want[4] = {N, M, sph + p.output_padding[0] + eh + 1 - pt - p.pads[2],
                     spw + p.output_padding[1] + ew + 1 - pl - p.pads[3]};
  if (want[2] < 1 || want[3] < 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "empty output");
  VKML_RETURN_IF_ERROR(check_out(n, a->out[0], want));
  int64_t OH = want[2], OW = want[3];

  double *x, *w, *b;
  VKML_RETURN_IF_ERROR(load_all(a, &x, &w, &b));
  double *acc = malloc((size_t)(OH * OW) * sizeof *acc);
  if (!acc) {
    free(x), free(w), free(b);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  rt_tensor *y = a->out[0];
  for (int64_t in = 0; in < N; in++) {
    for (int64_t m = 0; m < M; m++) {
      int64_t g = m / Mg, oc = m % Mg;
      for (int64_t i = 0; i < OH * OW; i++) acc[i] = b ? b[m] : 0.0;
      for (int64_t ic = 0; ic < Cg; ic++) {
        int64_t c = g * Cg + ic;
        const double *xp = x + ((in * C + c) * H) * W;
        const double *wp = w + ((c * Mg + oc) * KH) * KW;
        for (int64_t kh = 0; kh < KH; kh++) {
          int64_t offh = kh * dh - pt, ih0, ih1;
          tap_range(offh, sh, OH, H, &ih0, &ih1);
          for (int64_t kw = 0; kw < KW; kw++) {
            int64_t offw = kw * dw - pl, iw0, iw1;
            tap_range(offw, sw, OW, W, &iw0, &iw1);
            double wv = wp[kh * KW + kw];
            for (int64_t ih = ih0; ih < ih1; ih++) {
              const double *xr = xp + ih * W;
              double *ar = acc + (ih * sh + offh) * OW + offw;
              for (int64_t iw = iw0; iw < iw1; iw++) ar[iw * sw] += wv * xr[iw];
            }
          }
        }
      }
      int64_t base = (in * M + m) * OH * OW;
      for (int64_t i = 0; i < OH * OW; i++)
        rt_store_f(y, base + i, ir_act_apply(&p.act, acc[i]));
    }
  }
  free(acc), free(x), free(w), free(b);
  return VKML_OK;
}
