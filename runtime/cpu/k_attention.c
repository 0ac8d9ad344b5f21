/* CPU reference kernel for attention (pass_fuse_attention's op):
 *   y[b, i, :] = sum_j p_j v[b, j, :],
 *   p = softmax_j(alpha * sum_d q[b, i, d] kt[b, d, j] + bias[b, i, j])
 * over the flattened batch axes b, in double, the maximum subtracted before
 * exp (as rt_cpu_softmax: a row holding +inf or all -inf gives NaN). */
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
  int r = q->rank;
  if (r < 2 || kt->rank != r || v->rank != r)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "q, kt and v need one rank of at least 2");
  int64_t m = q->dims[r - 2], d = q->dims[r - 1], nk = kt->dims[r - 1], dv = v->dims[r - 1];
  if (kt->dims[r - 2] != d || v->dims[r - 2] != nk)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "q, kt and v do not chain");
  for (int i = 0; i < r - 2; i++)
    if (kt->dims[i] != q->dims[i] || v->dims[i] != q->dims[i])
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "batch axis %d differs", i);
  int64_t want[IR_MAX_RANK];
  for (int i = 0; i < r; i++) want[i] = q->dims[i];
  want[r - 1] = dv;
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, r, want));
  /* the bias's element strides over the scores' [.., M, N] */
  int64_t sdims[IR_MAX_RANK], bst[IR_MAX_RANK] = {0};
  for (int i = 0; i < r; i++) sdims[i] = q->dims[i];
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
  double alpha = ir_node_float(n, IR_A_ALPHA, 1.0f);
  int64_t batch = rt_cpu_dims_prod(q->dims, 0, r - 2);
  double *s = malloc(sizeof *s * (size_t)(nk ? nk : 1));
  double *acc = malloc(sizeof *acc * (size_t)(dv ? dv : 1));
  if (!s || !acc) {
    free(s);
    free(acc);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  int64_t idx[IR_MAX_RANK] = {0}; /* the batch index, for the bias's strides */
  for (int64_t b = 0; b < batch; b++) {
    int64_t boff = 0;
    for (int i = 0; i < r - 2; i++) boff += idx[i] * bst[i];
    for (int64_t i = 0; i < m; i++) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < nk; j++) {
        double dot = 0;
        for (int64_t k = 0; k < d; k++)
          dot += rt_load_f(q, (b * m + i) * d + k) * rt_load_f(kt, (b * d + k) * nk + j);
        s[j] = alpha * dot;
        if (bias) s[j] += rt_load_f(bias, boff + i * bst[r - 2] + j * bst[r - 1]);
        if (s[j] > mx || isnan(s[j])) mx = isnan(mx) ? mx : s[j];
      }
      double sum = 0;
      for (int64_t j = 0; j < nk; j++) sum += (s[j] = exp(s[j] - mx));
      for (int64_t c = 0; c < dv; c++) acc[c] = 0;
      for (int64_t j = 0; j < nk; j++)
        for (int64_t c = 0; c < dv; c++) acc[c] += s[j] * rt_load_f(v, (b * nk + j) * dv + c);
      for (int64_t c = 0; c < dv; c++) rt_store_f(y, (b * m + i) * dv + c, acc[c] / sum);
    }
    for (int i = r - 3; i >= 0; i--) {
      if (++idx[i] < q->dims[i]) break;
      idx[i] = 0;
    }
  }
  free(s);
  free(acc);
  return VKML_OK;
}
