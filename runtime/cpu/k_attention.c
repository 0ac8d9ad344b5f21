/* CPU reference kernel for attention (pass_fuse_attention's op):
 *   y[b, i, :] = sum_j p_j v[b, j, :],
 *   p = softmax_j(alpha * sum_d q[b, i, d] kt[b, d, j] + bias[b, i, j])
 * over the flattened batch axes b, in double, the maximum subtracted before
 * exp (as rt_cpu_softmax: a row holding +inf or all -inf gives NaN); q, kt
 * and v read through their views and y written through perm where the node
 * has them (ir_attention_params). */
#include <math.h>
#include <stdlib.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

vkml_status rt_cpu_attention(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in < 3 || a->n_in > 4 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 3 or 4 inputs and 1 output");
  const rt_tensor *q = a->in[0], *kt = a->in[1], *v = a->in[2], *bias = a->n_in == 4 ? a->in[3] : NULL;
  rt_tensor *y = a->out[0];
  for (int i = 0; i < a->n_in; i++)
    if (!ir_dtype_is_float(a->in[i]->dtype))
      return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s; only f32 and f16",
                          ir_dtype_name(a->in[i]->dtype));
  ir_type types[4];
  for (int i = 0; i < a->n_in; i++) types[i] = rt_tensor_type(a->in[i]);
  ir_attention_params p;
  vkml_status st = ir_attention_params_get(n, types, a->n_in, &p);
  if (st) {
    vkml_status e = rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(st));
    vkml_status_free(st);
    return e;
  }
  int r = p.rank;
  int64_t m = p.m, d = p.d, nk = p.n, dv = p.dv, want[IR_MAX_RANK], ys[IR_MAX_RANK];
  for (int i = 0; i < r; i++) want[i] = p.dims[p.perm[i]];
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, r, want));
  ir_attention_y_strides(&p, ys);
  /* the bias's element strides over the scores' [.., M, N] */
  int64_t sdims[IR_MAX_RANK], bst[IR_MAX_RANK] = {0};
  for (int i = 0; i < r; i++) sdims[i] = p.dims[i];
  sdims[r - 1] = nk;
  if (bias) {
    if (bias->rank > r)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "the bias has a higher rank than q");
    for (int i = 0; i < bias->rank; i++) {
      int64_t bdim = bias->dims[i], sdim = sdims[r - bias->rank + i];
      if (bdim != 1 && bdim != sdim)
        return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                            "the bias does not broadcast to the scores' shape");
    }
    rt_cpu_bcast_strides(bias, r, sdims, bst);
  }
  const int64_t *qs = p.st[0], *ks = p.st[1], *vs = p.st[2];
  double alpha = ir_node_float(n, IR_A_ALPHA, 1.0f);
  double *s = malloc(sizeof *s * (size_t)(nk ? nk : 1));
  double *acc = malloc(sizeof *acc * (size_t)(dv ? dv : 1));
  if (!s || !acc) {
    free(s);
    free(acc);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  int64_t idx[IR_MAX_RANK] = {0}; /* the batch index */
  for (int64_t b = 0; b < p.batch; b++) {
    int64_t boff = 0, qo = p.off[0], ko = p.off[1], vo = p.off[2], yo = 0;
    for (int i = 0; i < r - 2; i++) {
      boff += idx[i] * bst[i];
      qo += idx[i] * qs[i];
      ko += idx[i] * ks[i];
      vo += idx[i] * vs[i];
      yo += idx[i] * ys[i];
    }
    for (int64_t i = 0; i < m; i++) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < nk; j++) {
        double dot = 0;
        for (int64_t k = 0; k < d; k++)
          dot += rt_load_f(q, qo + i * qs[r - 2] + k * qs[r - 1]) *
                 rt_load_f(kt, ko + k * ks[r - 2] + j * ks[r - 1]);
        s[j] = alpha * dot;
        if (bias) s[j] += rt_load_f(bias, boff + i * bst[r - 2] + j * bst[r - 1]);
        if (s[j] > mx || isnan(s[j])) mx = isnan(mx) ? mx : s[j];
      }
      double sum = 0;
      for (int64_t j = 0; j < nk; j++) sum += (s[j] = exp(s[j] - mx));
      for (int64_t c = 0; c < dv; c++) acc[c] = 0;
      for (int64_t j = 0; j < nk; j++)
        for (int64_t c = 0; c < dv; c++) acc[c] += s[j] * rt_load_f(v, vo + j * vs[r - 2] + c * vs[r - 1]);
      for (int64_t c = 0; c < dv; c++) rt_store_f(y, yo + i * ys[r - 2] + c * ys[r - 1], acc[c] / sum);
    }
    for (int i = r - 3; i >= 0; i--) {
      if (++idx[i] < p.dims[i]) break;
      idx[i] = 0;
    }
  }
  free(s);
  free(acc);
  return VKML_OK;
}
