/* CPU reference kernels for conv2d and conv_transpose2d (NCHW, groups,
 * dilation, asymmetric pads, fused activation). Tensors are converted to
 * double once so one loop nest serves f32 and f16 and accumulates exactly
 * enough to be the oracle for the GPU kernels. Both check their operands
 * here, then take the fp32 fast path (k_conv_fast.c) unless the caller
 * asks for the reference (rt_cpu_ctx.reference). */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "ir/winograd.h"
#include "k_sgemm.h"
#include "k_util.h"

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

/* The weight's type and the decoded attributes, common to both kernels. */
static vkml_status conv_params(const rt_cpu_args *a, ir_type *wt, ir_conv_params *p) {
  if (a->n_in < 2)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "expects 2 or 3 inputs");
  *wt = rt_tensor_type(a->in[1]);
  return rt_cpu_at_node(a->node, ir_conv_params_get(a->node, wt, p));
}

/* Loads x, w and the optional bias as doubles and allocates an accumulator
 * of `plane` doubles; frees what it got on failure. */
static vkml_status load_all(const rt_cpu_args *a, int64_t plane, double **x, double **w,
                            double **b, double **acc) {
  *x = rt_cpu_load_doubles(a->in[0]);
  *w = rt_cpu_load_doubles(a->in[1]);
  *b = a->n_in > 2 ? rt_cpu_load_doubles(a->in[2]) : NULL;
  *acc = malloc((size_t)(plane > 0 ? plane : 1) * sizeof **acc);
  if (!*x || !*w || (a->n_in > 2 && !*b) || !*acc) {
    free(*x), free(*w), free(*b), free(*acc);
    return rt_cpu_error(a->node, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  return VKML_OK;
}

/* Writes one accumulated output plane through the fused activation. */
static void store_plane(rt_tensor *y, int64_t base, const double *acc, int64_t plane,
                        const ir_act_params *act) {
  for (int64_t i = 0; i < plane; i++) rt_store_f(y, base + i, ir_act_apply(act, acc[i]));
}

/* The fp32 fast path (k_conv_fast.c) on float views of the tensors. */
static vkml_status conv_fast(const rt_cpu_args *a, const rt_conv_shape *s,
                             const ir_act_params *act, bool transpose) {
  float *ox, *ow, *ob = NULL, *oy;
  const float *x = rt_cpu_floats(a->in[0], &ox), *w = rt_cpu_floats(a->in[1], &ow);
  const float *b = a->n_in > 2 ? rt_cpu_floats(a->in[2], &ob) : NULL;
  float *y = rt_cpu_floats_out(a->out[0], &oy);
  bool ok = x && w && (a->n_in <= 2 || b) && y &&
            (transpose ? rt_cpu_conv_transpose2d_fast : rt_cpu_conv2d_fast)(
                rt_cpu_threads_of(a), s, x, w, b, act, y);
  if (ok)
    rt_cpu_floats_out_done(a->out[0], oy);
  else
    free(oy);
  free(ox), free(ow), free(ob);
  return ok ? VKML_OK : rt_cpu_error(a->node, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
}

/* Whether every tensor of the node has elements (the fast paths assume it;
 * the reference loops handle the empty ones). */
static bool all_nonempty(const rt_cpu_args *a) {
  for (int i = 0; i < a->n_in; i++)
    if (rt_tensor_numel(a->in[i]) == 0) return false;
  return rt_tensor_numel(a->out[0]) > 0;
}

static vkml_status conv2d_rows(const rt_cpu_args *a);

/* w stored tap-major (layout nhwc: [M, KH, KW, C/G], as pass_layout stores
 * it for the cooperative-matrix kernels; a graph run here after the passes,
 * e.g. the tuner's reference): the kernels read a default-layout copy. */
vkml_status rt_cpu_conv2d(const rt_cpu_args *a) {
  if (a->n_in < 2 || a->n_in > 3 || !a->node->inputs[1] || a->node->inputs[1]->layout != IR_LAYOUT_NHWC ||
      a->in[1]->rank != 4)
    return conv2d_rows(a);
  const rt_tensor *w = a->in[1];
  ir_type t = rt_tensor_type(w);
  rt_tensor d;
  VKML_RETURN_IF_ERROR(rt_tensor_alloc(&t, &d));
  ir_layout_nhwc_copy(&t, w->data, d.data, false);
  const rt_tensor *in[3] = {a->in[0], &d, a->n_in > 2 ? a->in[2] : NULL};
  rt_cpu_args b = *a;
  b.in = in;
  vkml_status s = conv2d_rows(&b);
  rt_tensor_free(&d);
  return s;
}

static vkml_status conv2d_rows(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  ir_type wt;
  ir_conv_params p;
  VKML_RETURN_IF_ERROR(conv_params(a, &wt, &p));
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
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, a->out[0], 4, want));
  int64_t OH = want[2], OW = want[3], Mg = M / G;
  if (rt_cpu_use_fast(a) && all_nonempty(a)) {
    rt_conv_shape s = {N, C, H, W, M, KH, KW, G, sh, sw, dh, dw, pt, pl, OH, OW};
    return conv_fast(a, &s, &p.act, false);
  }

  double *x, *w, *b, *acc;
  VKML_RETURN_IF_ERROR(load_all(a, OH * OW, &x, &w, &b, &acc));
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
      store_plane(y, (in * M + m) * OH * OW, acc, OH * OW, &p.act);
    }
  }
  free(acc), free(x), free(w), free(b);
  return VKML_OK;
}

/* Scatter form: every input pixel adds its weighted kernel footprint at
 * (i*s - pad + k*d) of the output, the transpose of conv2d's gather. */
vkml_status rt_cpu_conv_transpose2d(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  ir_type wt;
  ir_conv_params p;
  VKML_RETURN_IF_ERROR(conv_params(a, &wt, &p));
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
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, a->out[0], 4, want));
  int64_t OH = want[2], OW = want[3];
  if (rt_cpu_use_fast(a) && all_nonempty(a)) {
    rt_conv_shape s = {N, C, H, W, M, KH, KW, G, sh, sw, dh, dw, pt, pl, OH, OW};
    return conv_fast(a, &s, &p.act, true);
  }

  double *x, *w, *b, *acc;
  VKML_RETURN_IF_ERROR(load_all(a, OH * OW, &x, &w, &b, &acc));
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
      store_plane(y, (in * M + m) * OH * OW, acc, OH * OW, &p.act);
    }
  }
  free(acc), free(x), free(w), free(b);
  return VKML_OK;
}

/* conv2d_winograd: Winograd's algorithm as its definition (ir/winograd.h),
 * in double: each m x m output tile from the a x a input tile around it
 * (zeros outside the input), V = B^T d B, M = sum over c of U (.) V,
 * Y = A^T M A, then the bias and the activation; the edge tiles keep the
 * outputs that exist. */
vkml_status rt_cpu_conv2d_winograd(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  ir_conv_params p;
  int m;
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_winograd_params_get(n, &p, &m)));
  if (a->n_in < 2 || a->n_out != 1 || a->in[0]->rank != 4 || a->in[1]->rank != 3)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "expects x [N,C,H,W], U [a*a,C,K] (and a bias) and one output");
  for (int i = 0; i < a->n_in; i++)
    if (!ir_dtype_is_float(a->in[i]->dtype))
      return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "input %d has dtype %s; only f32 and f16",
                          i, ir_dtype_name(a->in[i]->dtype));
  const int64_t *xd = a->in[0]->dims;
  int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3];
  int al = m + 2, a2 = al * al;
  int64_t K = a->in[1]->dims[2];
  if (a->in[1]->dims[0] != a2 || a->in[1]->dims[1] != C)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "U must have shape [%d,%lld,K]", a2,
                        (long long)C);
  if (a->n_in > 2 && (a->in[2]->rank != 1 || a->in[2]->dims[0] != K))
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "bias must have shape [%lld]",
                        (long long)K);
  int64_t pt = p.pads[0], pl = p.pads[1];
  int64_t want[4] = {N, K, H + pt + p.pads[2] - 2, W + pl + p.pads[3] - 2};
  if (want[2] < 1 || want[3] < 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "the 3x3 kernel is larger than the input");
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, a->out[0], 4, want));
  int64_t OH = want[2], OW = want[3], TH = (OH + m - 1) / m, TW = (OW + m - 1) / m;
  double *x = rt_cpu_load_doubles(a->in[0]), *u = rt_cpu_load_doubles(a->in[1]);
  double *b = a->n_in > 2 ? rt_cpu_load_doubles(a->in[2]) : NULL;
  /* V of every channel of one tile, then its product per output channel */
  double *v = malloc(sizeof *v * (size_t)(C * a2 + 1));
  if (!x || !u || (a->n_in > 2 && !b) || !v) {
    free(x), free(u), free(b), free(v);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  rt_tensor *y = a->out[0];
  for (int64_t in = 0; in < N; in++)
    for (int64_t th = 0; th < TH; th++)
      for (int64_t tw = 0; tw < TW; tw++) {
        for (int64_t c = 0; c < C; c++) {
          double d[IR_WINOGRAD_MAX_ALPHA * IR_WINOGRAD_MAX_ALPHA];
          for (int i = 0; i < al; i++)
            for (int j = 0; j < al; j++) {
              int64_t ih = th * m + i - pt, iw = tw * m + j - pl;
              d[i * al + j] = ih >= 0 && ih < H && iw >= 0 && iw < W
                                  ? x[((in * C + c) * H + ih) * W + iw]
                                  : 0.0;
            }
          ir_winograd_input(m, d, v + c * a2);
        }
        for (int64_t k = 0; k < K; k++) {
          double mm[IR_WINOGRAD_MAX_ALPHA * IR_WINOGRAD_MAX_ALPHA] = {0};
          for (int64_t c = 0; c < C; c++)
            for (int xi = 0; xi < a2; xi++) mm[xi] += u[((int64_t)xi * C + c) * K + k] * v[c * a2 + xi];
          double out[4 * 4];
          ir_winograd_output(m, mm, out);
          for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
              int64_t oh = th * m + i, ow = tw * m + j;
              if (oh >= OH || ow >= OW) continue;
              double s = out[i * m + j] + (b ? b[k] : 0.0);
              rt_store_f(y, ((in * K + k) * OH + oh) * OW + ow, ir_act_apply(&p.act, s));
            }
        }
      }
  free(x), free(u), free(b), free(v);
  return VKML_OK;
}
