/* CPU reference kernels for gemm (ONNX Gemm: transposes, alpha/beta, C
 * broadcast, fused activation) and matmul (NumPy matmul: 1-D promotion and
 * batch broadcasting). Float products accumulate in double; integer matmul
 * accumulates in int64 with wrap-around, as fixed-width hardware would.
 * Both check their operands here, then float ones take the fp32 fast path
 * (k_sgemm.c) unless the caller asks for the reference. */
#include <stdlib.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_sgemm.h"
#include "k_util.h"

/* g's A, B (and D) read from the node's inputs 0, 1 (and 2) as floats, C
 * written to its output, on the fast path. */
static vkml_status sgemm_on(const rt_cpu_args *a, rt_sgemm *g) {
  float *oa, *ob, *od = NULL, *oy;
  g->a = rt_cpu_floats(a->in[0], &oa);
  g->b = rt_cpu_floats(a->in[1], &ob);
  if (a->n_in > 2) g->d = rt_cpu_floats(a->in[2], &od);
  g->c = rt_cpu_floats_out(a->out[0], &oy);
  bool ok = g->a && g->b && (a->n_in <= 2 || g->d) && g->c && rt_sgemm_run(rt_cpu_threads_of(a), g);
  if (ok)
    rt_cpu_floats_out_done(a->out[0], oy);
  else
    free(oy);
  free(oa), free(ob), free(od);
  return ok ? VKML_OK : rt_cpu_error(a->node, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
}

static bool all_nonempty(const rt_cpu_args *a) {
  for (int i = 0; i < a->n_in; i++)
    if (rt_tensor_numel(a->in[i]) == 0) return false;
  return rt_tensor_numel(a->out[0]) > 0;
}

vkml_status rt_cpu_gemm(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in < 2 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 2 or 3 inputs and 1 output");
  const rt_tensor *A = a->in[0], *B = a->in[1], *Ct = a->n_in > 2 ? a->in[2] : NULL;
  rt_tensor *Y = a->out[0];
  for (int i = 0; i < a->n_in; i++)
    if (!ir_dtype_is_float(a->in[i]->dtype))
      return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "input %d has dtype %s; only f32 and f16 are supported",
                          i, ir_dtype_name(a->in[i]->dtype));
  if (!ir_dtype_is_float(Y->dtype))
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "output dtype %s is not a float type",
                        ir_dtype_name(Y->dtype));
  if (A->rank != 2 || B->rank != 2)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "a and b must have rank 2 (got %d, %d)",
                        A->rank, B->rank);
  bool ta = ir_node_int(n, IR_A_TRANS_A, 0) != 0, tb = ir_node_int(n, IR_A_TRANS_B, 0) != 0;
  double alpha = ir_node_float(n, IR_A_ALPHA, 1.0f), beta = ir_node_float(n, IR_A_BETA, 1.0f);
  ir_act_params act;
  ir_act_params_get(n, &act);
  int64_t M = ta ? A->dims[1] : A->dims[0], K = ta ? A->dims[0] : A->dims[1];
  int64_t Kb = tb ? B->dims[1] : B->dims[0], N = tb ? B->dims[0] : B->dims[1];
  if (K != Kb)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "inner dimensions differ: %lld vs %lld",
                        (long long)K, (long long)Kb);
  int64_t want[2] = {M, N};
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, Y, 2, want));
  /* C broadcasts unidirectionally to [M,N]: rank 0, [N], [1|M, 1|N]. */
  int64_t cm = 1, cn = 1;
  if (Ct) {
    if (Ct->rank > 2)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "c has rank %d (at most 2)", Ct->rank);
    if (Ct->rank >= 1) cn = Ct->dims[Ct->rank - 1];
    if (Ct->rank == 2) cm = Ct->dims[0];
    if ((cm != 1 && cm != M) || (cn != 1 && cn != N))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "c of shape [%lld,%lld] does not broadcast to [%lld,%lld]",
                          (long long)cm, (long long)cn, (long long)M, (long long)N);
  }
  if (rt_cpu_use_fast(a) && all_nonempty(a)) {
    rt_sgemm g = {
        .m = M, .n = N, .k = K, .n_batch = 1,
        .a_rs = ta ? 1 : K, .a_cs = ta ? M : 1,
        .b_rs = tb ? 1 : N, .b_cs = tb ? K : 1,
        .ldc = N, .scaled = alpha != 1.0, .alpha = (float)alpha,
        .d_rs = cm == 1 ? 0 : cn, .d_cs = cn == 1 ? 0 : 1, .beta = (float)beta,
        .act = act,
    };
    return sgemm_on(a, &g);
  }
  double *av = rt_cpu_load_doubles(A), *bv = rt_cpu_load_doubles(B);
  double *cv = Ct ? rt_cpu_load_doubles(Ct) : NULL;
  if (!av || !bv || (Ct && !cv)) {
    free(av), free(bv), free(cv);
    return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  /* Element (i,k) of op(A) and (k,j) of op(B) as index strides. */
  int64_t a_si = ta ? 1 : K, a_sk = ta ? M : 1;
  int64_t b_sk = tb ? 1 : N, b_sj = tb ? K : 1;
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++) s += av[i * a_si + k * a_sk] * bv[k * b_sk + j * b_sj];
      double v = alpha * s;
      if (cv) v += beta * cv[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)];
      rt_store_f(Y, i * N + j, ir_act_apply(&act, v));
    }
  }
  free(av), free(bv), free(cv);
  return VKML_OK;
}

vkml_status rt_cpu_matmul(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 2 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 2 inputs and 1 output");
  const rt_tensor *A = a->in[0], *B = a->in[1];
  rt_tensor *Y = a->out[0];
  bool fl = ir_dtype_is_float(A->dtype);
  if (fl != ir_dtype_is_float(B->dtype) || fl != ir_dtype_is_float(Y->dtype) ||
      A->dtype == IR_BOOL || B->dtype == IR_BOOL || Y->dtype == IR_BOOL)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtypes %s x %s -> %s",
                        ir_dtype_name(A->dtype), ir_dtype_name(B->dtype),
                        ir_dtype_name(Y->dtype));
  ir_act_params act;
  ir_act_params_get(n, &act);
  if (!fl && act.kind != IR_ACT_NONE)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "fused activation on an integer matmul");
  double alpha = ir_node_float(n, IR_A_ALPHA, 1.0f);
  if (!fl && alpha != 1.0)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "alpha on an integer matmul");
  if (A->rank < 1 || B->rank < 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "inputs must have rank >= 1");

  /* 1-D promotion: a [K] is [1,K], b [K] is [K,1]; the added dim is dropped
   * from the result. */
  int64_t M = A->rank >= 2 ? A->dims[A->rank - 2] : 1, K = A->dims[A->rank - 1];
  int64_t Kb = B->rank >= 2 ? B->dims[B->rank - 2] : B->dims[0];
  int64_t N = B->rank >= 2 ? B->dims[B->rank - 1] : 1;
  if (K != Kb)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "inner dimensions differ: %lld vs %lld",
                        (long long)K, (long long)Kb);
  int ra = A->rank >= 2 ? A->rank - 2 : 0, rb = B->rank >= 2 ? B->rank - 2 : 0;
  int rbatch = ra > rb ? ra : rb;
  int64_t bdims[IR_MAX_RANK], sa[IR_MAX_RANK], sb[IR_MAX_RANK];
  /* Batch strides in units of whole matrices; 0 where an input broadcasts. */
  int64_t stride_a = 1, stride_b = 1;
  for (int i = rbatch - 1; i >= 0; i--) {
    int ia = i - (rbatch - ra), ib = i - (rbatch - rb);
    int64_t da = ia >= 0 ? A->dims[ia] : 1, db = ib >= 0 ? B->dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "batch dimensions %lld and %lld do not broadcast", (long long)da,
                          (long long)db);
    bdims[i] = da == 1 ? db : da;
    sa[i] = da == 1 ? 0 : stride_a;
    sb[i] = db == 1 ? 0 : stride_b;
    stride_a *= da;
    stride_b *= db;
  }
  int64_t want[IR_MAX_RANK + 2];
  int rw = 0;
  for (int i = 0; i < rbatch; i++) want[rw++] = bdims[i];
  if (A->rank >= 2) want[rw++] = M;
  if (B->rank >= 2) want[rw++] = N;
  if (rw > IR_MAX_RANK)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "result rank too large");
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, Y, rw, want));
  int64_t nbatch = 1;
  for (int i = 0; i < rbatch; i++) nbatch *= bdims[i];

  if (fl && rt_cpu_use_fast(a) && all_nonempty(a)) {
    int64_t *offs = malloc(sizeof *offs * (size_t)(3 * nbatch));
    if (!offs) return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    int64_t idx[IR_MAX_RANK] = {0};
    for (int64_t bt = 0; bt < nbatch; bt++) {
      offs[bt] = rt_cpu_index_offset(rbatch, idx, sa) * (M * K);
      offs[nbatch + bt] = rt_cpu_index_offset(rbatch, idx, sb) * (K * N);
      offs[2 * nbatch + bt] = bt * M * N;
      rt_cpu_index_next(rbatch, bdims, idx);
    }
    rt_sgemm g = {
        .m = M, .n = N, .k = K, .n_batch = nbatch,
        .a_rs = K, .a_cs = 1, .a_off = offs,
        .b_rs = N, .b_cs = 1, .b_off = offs + nbatch,
        .ldc = N, .c_off = offs + 2 * nbatch,
        .scaled = alpha != 1.0, .alpha = (float)alpha,
        .act = act,
    };
    vkml_status s = sgemm_on(a, &g);
    free(offs);
    return s;
  }
  double *av = NULL, *bv = NULL;
  if (fl) {
    av = rt_cpu_load_doubles(A), bv = rt_cpu_load_doubles(B);
    if (!av || !bv) {
      free(av), free(bv);
      return rt_cpu_error(n, VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    }
  }
  int64_t idx[IR_MAX_RANK] = {0};
  for (int64_t bt = 0; bt < nbatch; bt++) {
    int64_t oa = rt_cpu_index_offset(rbatch, idx, sa) * (M * K);
    int64_t ob = rt_cpu_index_offset(rbatch, idx, sb) * (K * N);
    for (int64_t i = 0; i < M; i++) {
      for (int64_t j = 0; j < N; j++) {
        int64_t yi = (bt * M + i) * N + j;
        if (fl) {
          double s = 0;
          for (int64_t k = 0; k < K; k++) s += av[oa + i * K + k] * bv[ob + k * N + j];
          rt_store_f(Y, yi, ir_act_apply(&act, alpha * s));
        } else {
          uint64_t s = 0;
          for (int64_t k = 0; k < K; k++)
            s += (uint64_t)rt_load_i(A, oa + i * K + k) * (uint64_t)rt_load_i(B, ob + k * N + j);
          rt_store_i(Y, yi, (int64_t)s);
        }
      }
    }
    rt_cpu_index_next(rbatch, bdims, idx);
  }
  free(av), free(bv);
  return VKML_OK;
}
