/* CPU reference kernel for resize: nearest (every nearest_mode), N-linear and
 * cubic over every axis, with the coordinate transforms of ONNX Resize-13.
 * Follows the ONNX reference implementation: per axis, output coordinate x
 * maps to x_original; its neighbours are taken from the input extended by
 * edge replication; exclude_outside zeroes and renormalises the weights of
 * neighbours outside the input. The N-d result is the tensor product of the
 * per-axis weights. The coordinate transform and the nearest rule are
 * ir/params.h's, shared with codegen's GPU resize. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

/* One axis: for output coordinate o, cnt[o] taps (input index, weight) at
 * idx/w[o*stride ...]. Zero weights are dropped. */
typedef struct axis_taps {
  int64_t *idx;
  double *w;
  int *cnt;
  int stride;
} axis_taps;

/* Fills the taps of output coordinate o of one axis. */
static void fill_taps(const ir_resize_params *p, double xo, int64_t in, int64_t *idx,
                      double *w, int *cnt) {
  if (p->mode == IR_RESIZE_NEAREST) {
    idx[0] = ir_resize_nearest(p->nearest, xo, in);
    w[0] = 1;
    *cnt = 1;
    return;
  }
  int64_t left;
  double r = ir_resize_left(xo, in, &left);
  int64_t id[4];
  double c[4];
  int nt;
  if (p->mode == IR_RESIZE_LINEAR) {
    id[0] = left, id[1] = left + 1;
    c[0] = 1 - r, c[1] = r;
    nt = 2;
  } else {
    double A = p->cubic_coeff_a, s = 1 - r;
    for (int k = 0; k < 4; k++) id[k] = left - 1 + k;
    c[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
    c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    c[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
    c[3] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
    nt = 4;
  }
  if (p->exclude_outside) {
    double sum = 0;
    for (int k = 0; k < nt; k++) {
      if (id[k] < 0 || id[k] >= in) c[k] = 0;
      sum += c[k];
    }
    if (sum != 0)
      for (int k = 0; k < nt; k++) c[k] /= sum;
  }
  int m = 0;
  for (int k = 0; k < nt; k++) {
    if (c[k] == 0) continue;
    idx[m] = id[k] < 0 ? 0 : (id[k] >= in ? in - 1 : id[k]);
    w[m++] = c[k];
  }
  *cnt = m;
}

vkml_status rt_cpu_resize(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  ir_type xt = rt_tensor_type(x);
  ir_resize_params p;
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_resize_params_get(n, &xt, &p)));
  if (y->dtype != x->dtype)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output dtype differs from input");
  if (p.mode != IR_RESIZE_NEAREST && !ir_dtype_is_float(x->dtype))
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "%s resize of %s (float types only)",
                        p.mode == IR_RESIZE_LINEAR ? "linear" : "cubic",
                        ir_dtype_name(x->dtype));
  int r = x->rank;
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, r, p.out_dims));
  int64_t nout = rt_tensor_numel(y);
  if (nout == 0) return VKML_OK;

  int T = p.mode == IR_RESIZE_NEAREST ? 1 : p.mode == IR_RESIZE_LINEAR ? 2 : 4;
  axis_taps ax[IR_MAX_RANK];
  memset(ax, 0, sizeof ax);
  double *xv = NULL;
  vkml_status s = VKML_OK;
  for (int d = 0; d < r; d++) {
    int64_t in = x->dims[d], out = y->dims[d];
    ax[d].stride = T;
    ax[d].idx = malloc((size_t)(out * T) * sizeof *ax[d].idx);
    ax[d].w = malloc((size_t)(out * T) * sizeof *ax[d].w);
    ax[d].cnt = malloc((size_t)out * sizeof *ax[d].cnt);
    if (!ax[d].idx || !ax[d].w || !ax[d].cnt) goto oom;
    double scale, len_resized;
    ir_resize_axis_scale(&p, d, in, out, &scale, &len_resized);
    for (int64_t o = 0; o < out; o++) {
      double xo = ir_resize_coord(p.coord, (double)o, scale, in, out, len_resized);
      fill_taps(&p, xo, in, ax[d].idx + o * T, ax[d].w + o * T, &ax[d].cnt[o]);
    }
  }
  int64_t istride[IR_MAX_RANK];
  rt_strides(r, x->dims, istride);
  int64_t oidx[IR_MAX_RANK] = {0};
  if (p.mode == IR_RESIZE_NEAREST) {
    /* Nearest copies elements bit for bit, so every dtype works. */
    size_t es = ir_dtype_size(x->dtype);
    for (int64_t o = 0; o < nout; o++) {
      int64_t src = 0;
      for (int d = 0; d < r; d++) src += ax[d].idx[oidx[d] * T] * istride[d];
      memcpy((char *)y->data + (size_t)o * es, (const char *)x->data + (size_t)src * es, es);
      rt_cpu_index_next(r, y->dims, oidx);
    }
  } else {
    xv = rt_cpu_load_doubles(x);
    if (!xv) goto oom;
    for (int64_t o = 0; o < nout; o++) {
      int k[IR_MAX_RANK] = {0};
      bool empty = false;
      for (int d = 0; d < r; d++) empty = empty || ax[d].cnt[oidx[d]] == 0;
      double acc = 0;
      while (!empty) {
        double wt = 1;
        int64_t src = 0;
        for (int d = 0; d < r; d++) {
          int64_t t = oidx[d] * T + k[d];
          wt *= ax[d].w[t];
          src += ax[d].idx[t] * istride[d];
        }
        acc += wt * xv[src];
        int d = r - 1;
        for (; d >= 0 && ++k[d] == ax[d].cnt[oidx[d]]; d--) k[d] = 0;
        if (d < 0) break;
      }
      rt_store_f(y, o, acc);
      rt_cpu_index_next(r, y->dims, oidx);
    }
  }
  goto done;
oom:
  s = rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
done:
  for (int d = 0; d < r; d++) free(ax[d].idx), free(ax[d].w), free(ax[d].cnt);
  free(xv);
  return s;
}
