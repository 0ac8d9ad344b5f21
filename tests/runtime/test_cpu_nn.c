/* CPU gemm / matmul / batchnorm / instance_norm / layer_norm / softmax /
 * log_softmax kernels against naive loops written here (and a few
 * hand-worked values). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

/* f16: one rounding of the result (half ulp ~4.9e-4), inputs shared. */
#define F16_RTOL 2e-3
#define F16_ATOL 2e-3

static void check(const rt_tensor *got, const rt_tensor *want) {
  if (got->dtype == IR_F16)
    t_assert_close(got, want, F16_RTOL, F16_ATOL);
  else
    t_assert_close(got, want, 1e-6, 1e-6);
}

/* ---- gemm ------------------------------------------------------------------ */

typedef struct gemm_case {
  int64_t m, k, n;
  int ta, tb;
  float alpha, beta; /* 0: leave the attribute unset (default 1) */
  int c_rank;        /* -1: no c */
  int64_t c_dims[2];
  int relu;
} gemm_case;

static gemm_case gemm_cases[] = {
    {3, 4, 5, 0, 0, 0, 0, -1, {0, 0}, 0},
    {3, 4, 5, 1, 0, 0, 0, -1, {0, 0}, 0},
    {3, 4, 5, 0, 1, 0, 0, -1, {0, 0}, 0},
    {3, 4, 5, 1, 1, 0.5f, 2.0f, 2, {3, 5}, 0},
    {7, 9, 6, 0, 1, 0, 0, 1, {6, 0}, 0},    /* bias [N] */
    {7, 9, 6, 0, 0, 1.5f, -0.5f, 2, {1, 6}, 0},
    {7, 9, 6, 1, 0, 0, 0, 2, {7, 1}, 1},   /* [M,1] + relu */
    {2, 3, 4, 0, 0, -2.0f, 3.0f, 0, {0, 0}, 0}, /* scalar c */
    {2, 3, 4, 0, 1, 0, 0, 2, {1, 1}, 0},
    {1, 33, 17, 0, 1, 0, 0, 1, {17, 0}, 1}, /* fc layer */
    {5, 1, 3, 0, 0, 0, 0, 1, {1, 0}, 0},    /* K = 1, c [1] */
};

static void gemm_run(const gemm_case *c, ir_dtype dt) {
  t_rng r = t_rng_make(31 + (uint64_t)c->m * 7 + (uint64_t)c->n);
  int64_t ad[2] = {c->ta ? c->k : c->m, c->ta ? c->m : c->k};
  int64_t bd[2] = {c->tb ? c->n : c->k, c->tb ? c->k : c->n};
  t_case tc = {0};
  rt_tensor *in = tc.in;
  in[0] = t_tensor_random(&r, dt, 2, ad, -1, 1);
  in[1] = t_tensor_random(&r, dt, 2, bd, -1, 1);
  int n_in = 2;
  if (c->c_rank >= 0) in[n_in++] = t_tensor_random(&r, dt, c->c_rank, c->c_dims, -1, 1);
  int64_t yd[2] = {c->m, c->n};
  rt_tensor want = t_tensor_zeros(dt, 2, yd);
  double alpha = c->alpha ? c->alpha : 1, beta = c->beta ? c->beta : 1;
  for (int64_t i = 0; i < c->m; i++)
    for (int64_t j = 0; j < c->n; j++) {
      double s = 0;
      for (int64_t k = 0; k < c->k; k++) {
        double av = c->ta ? rt_load_f(&in[0], k * c->m + i) : rt_load_f(&in[0], i * c->k + k);
        double bv = c->tb ? rt_load_f(&in[1], j * c->k + k) : rt_load_f(&in[1], k * c->n + j);
        s += av * bv;
      }
      s *= alpha;
      if (c->c_rank == 0) s += beta * rt_load_f(&in[2], 0);
      if (c->c_rank == 1) s += beta * rt_load_f(&in[2], c->c_dims[0] == 1 ? 0 : j);
      if (c->c_rank == 2) {
        int64_t ci = c->c_dims[0] == 1 ? 0 : i, cj = c->c_dims[1] == 1 ? 0 : j;
        s += beta * rt_load_f(&in[2], ci * c->c_dims[1] + cj);
      }
      if (c->relu && s < 0) s = 0;
      rt_store_f(&want, i * c->n + j, s);
    }
  ir_type yt = ir_type_make(dt, 2, yd);
  t_case_make(&tc, IR_OP_GEMM, n_in, &yt, 1);
  if (c->ta) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_TRANS_A, 1));
  if (c->tb) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_TRANS_B, 1));
  if (c->alpha) T_OK(ir_node_set_float(tc.g, tc.n, IR_A_ALPHA, c->alpha));
  if (c->beta) T_OK(ir_node_set_float(tc.g, tc.n, IR_A_BETA, c->beta));
  if (c->relu) T_OK(ir_node_set_enum(tc.g, tc.n, IR_A_ACT, IR_ACT_RELU));
  T_OK(t_case_run(&tc));
  check(&tc.out[0], &want);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

ParameterizedTestParameters(gemm, cases) {
  return cr_make_param_array(gemm_case, gemm_cases, sizeof gemm_cases / sizeof gemm_cases[0]);
}

ParameterizedTest(gemm_case *c, gemm, cases) {
  gemm_run(c, IR_F32);
  gemm_run(c, IR_F16);
}

Test(gemm, hand_worked) {
  int64_t d[2] = {2, 2};
  t_case tc = {.in = {t_tensor_from(IR_F32, 2, d, (double[]){1, 2, 3, 4}),
                      t_tensor_from(IR_F32, 2, d, (double[]){5, 6, 7, 8}),
                      t_tensor_from(IR_F32, 1, (int64_t[]){2}, (double[]){100, 200})}};
  /* [1 2;3 4] x [5 6;7 8]^T = [17 23; 39 53], + c row */
  rt_tensor want = t_tensor_from(IR_F32, 2, d, (double[]){117, 223, 139, 253});
  ir_type yt = ir_type_make(IR_F32, 2, d);
  t_case_make(&tc, IR_OP_GEMM, 3, &yt, 1);
  T_OK(ir_node_set_int(tc.g, tc.n, IR_A_TRANS_B, 1));
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 0, 0);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

/* ---- matmul ---------------------------------------------------------------- */

typedef struct matmul_case {
  int ra, rb;
  int64_t ad[4], bd[4];
} matmul_case;

static matmul_case matmul_cases[] = {
    {1, 1, {5}, {5}},                       /* dot -> scalar */
    {1, 2, {4}, {4, 3}},                    /* [K]x[K,N] -> [N] */
    {2, 1, {3, 4}, {4}},                    /* [M,K]x[K] -> [M] */
    {2, 2, {3, 7}, {7, 5}},
    {4, 2, {2, 3, 4, 5}, {5, 6}},           /* batch x plain */
    {4, 4, {2, 1, 3, 4}, {1, 3, 4, 2}},     /* both broadcast */
    {1, 3, {4}, {2, 4, 3}},                 /* [K]x[B,K,N] -> [B,N] */
    {3, 1, {2, 3, 4}, {4}},                 /* [B,M,K]x[K] -> [B,M] */
    {3, 4, {3, 2, 5}, {2, 1, 5, 4}},        /* rank mismatch broadcast */
};

/* Expected result by explicit index bookkeeping: the output's batch index is
 * matched against each input's dims right-aligned, 1s broadcasting. */
static void matmul_ref(const matmul_case *c, const rt_tensor *a, const rt_tensor *b,
                       rt_tensor *y, int64_t M, int64_t K, int64_t N, int rbatch,
                       const int64_t *bdims) {
  int ba = c->ra > 2 ? c->ra - 2 : 0, bb = c->rb > 2 ? c->rb - 2 : 0;
  int64_t nb = 1;
  for (int i = 0; i < rbatch; i++) nb *= bdims[i];
  for (int64_t t = 0; t < nb; t++) {
    int64_t idx[4], rem = t;
    for (int i = rbatch - 1; i >= 0; i--) idx[i] = rem % bdims[i], rem /= bdims[i];
    int64_t offa = 0, offb = 0;
    for (int i = 0; i < ba; i++) {
      int64_t d = c->ad[i];
      offa = offa * d + (d == 1 ? 0 : idx[i + rbatch - ba]);
    }
    for (int i = 0; i < bb; i++) {
      int64_t d = c->bd[i];
      offb = offb * d + (d == 1 ? 0 : idx[i + rbatch - bb]);
    }
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++)
          s += rt_load_f(a, offa * M * K + i * K + k) * rt_load_f(b, offb * K * N + k * N + j);
        if (ir_dtype_is_float(y->dtype))
          rt_store_f(y, (t * M + i) * N + j, s);
        else
          rt_store_i(y, (t * M + i) * N + j, (int64_t)s);
      }
  }
}

static void matmul_run(const matmul_case *c, ir_dtype dt) {
  t_rng r = t_rng_make(41 + (uint64_t)c->ra * 5 + (uint64_t)c->rb);
  bool fl = ir_dtype_is_float(dt);
  t_case tc = {.in = {t_tensor_random(&r, dt, c->ra, c->ad, fl ? -1 : -9, fl ? 1 : 9),
                      t_tensor_random(&r, dt, c->rb, c->bd, fl ? -1 : -9, fl ? 1 : 9)}};
  int64_t M = c->ra >= 2 ? c->ad[c->ra - 2] : 1, K = c->ad[c->ra - 1];
  int64_t N = c->rb >= 2 ? c->bd[c->rb - 1] : 1;
  int ba = c->ra > 2 ? c->ra - 2 : 0, bb = c->rb > 2 ? c->rb - 2 : 0;
  int rbatch = ba > bb ? ba : bb;
  int64_t yd[8];
  int ry = 0;
  for (int i = 0; i < rbatch; i++) {
    int ia = i - (rbatch - ba), ib = i - (rbatch - bb);
    int64_t da = ia >= 0 ? c->ad[ia] : 1, db = ib >= 0 ? c->bd[ib] : 1;
    yd[ry++] = da > db ? da : db;
  }
  int64_t bdims[4];
  for (int i = 0; i < rbatch; i++) bdims[i] = yd[i];
  if (c->ra >= 2) yd[ry++] = M;
  if (c->rb >= 2) yd[ry++] = N;
  rt_tensor want = t_tensor_zeros(dt, ry, yd);
  matmul_ref(c, &tc.in[0], &tc.in[1], &want, M, K, N, rbatch, bdims);
  ir_type yt = ir_type_make(dt, ry, yd);
  t_case_make(&tc, IR_OP_MATMUL, 2, &yt, 1);
  T_OK(t_case_run(&tc));
  check(&tc.out[0], &want);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

ParameterizedTestParameters(matmul, cases) {
  return cr_make_param_array(matmul_case, matmul_cases,
                             sizeof matmul_cases / sizeof matmul_cases[0]);
}

ParameterizedTest(matmul_case *c, matmul, cases) {
  matmul_run(c, IR_F32);
  matmul_run(c, IR_F16);
  matmul_run(c, IR_I32);
  matmul_run(c, IR_I64);
}

Test(matmul, act_and_hand_worked) {
  /* [1 -2] . [[3],[4]] = -5 -> relu 0; second column [1 -2].[ -1, -3] = 5 */
  int64_t ad[2] = {1, 2}, bd[2] = {2, 2}, yd[2] = {1, 2};
  t_case tc = {.in = {t_tensor_from(IR_F32, 2, ad, (double[]){1, -2}),
                      t_tensor_from(IR_F32, 2, bd, (double[]){3, -1, 4, -3})}};
  rt_tensor want = t_tensor_from(IR_F32, 2, yd, (double[]){0, 5});
  ir_type yt = ir_type_make(IR_F32, 2, yd);
  t_case_make(&tc, IR_OP_MATMUL, 2, &yt, 1);
  T_OK(ir_node_set_enum(tc.g, tc.n, IR_A_ACT, IR_ACT_RELU));
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 0, 0);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

/* ---- normalisation ---------------------------------------------------------- */

static void batchnorm_run(ir_dtype dt, int rank, const int64_t *xd) {
  t_rng r = t_rng_make(51 + (uint64_t)rank);
  int64_t C = xd[1], cd[1] = {C};
  t_case tc = {.in = {t_tensor_random(&r, dt, rank, xd, -3, 3),
                      t_tensor_random(&r, dt, 1, cd, 0.5, 2),
                      t_tensor_random(&r, dt, 1, cd, -1, 1),
                      t_tensor_random(&r, dt, 1, cd, -1, 1),
                      t_tensor_random(&r, dt, 1, cd, 0.1, 2)}};
  const rt_tensor *in = tc.in;
  rt_tensor want = t_tensor_zeros(dt, rank, xd);
  int64_t inner = 1, total = rt_tensor_numel(&want);
  for (int i = 2; i < rank; i++) inner *= xd[i];
  double eps = 1e-3;
  for (int64_t i = 0; i < total; i++) {
    int64_t c = (i / inner) % C;
    double v = (rt_load_f(&in[0], i) - rt_load_f(&in[3], c)) /
                   sqrt(rt_load_f(&in[4], c) + eps) * rt_load_f(&in[1], c) +
               rt_load_f(&in[2], c);
    rt_store_f(&want, i, v);
  }
  ir_type yt = ir_type_make(dt, rank, xd);
  t_case_make(&tc, IR_OP_BATCHNORM, 5, &yt, 1);
  T_OK(ir_node_set_float(tc.g, tc.n, IR_A_EPSILON, (float)eps));
  T_OK(t_case_run(&tc));
  check(&tc.out[0], &want);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

Test(batchnorm, random) {
  batchnorm_run(IR_F32, 4, (int64_t[]){2, 3, 4, 5});
  batchnorm_run(IR_F16, 4, (int64_t[]){2, 3, 4, 5});
  batchnorm_run(IR_F32, 2, (int64_t[]){4, 3});
  batchnorm_run(IR_F32, 3, (int64_t[]){2, 5, 7});
}

Test(batchnorm, default_epsilon) {
  /* x=3, mean=1, var=3 (+1e-5), scale=2, bias=0.5: 2*2/sqrt(3.00001)+0.5 */
  int64_t xd[2] = {1, 1}, cd[1] = {1};
  t_case tc = {.in = {t_tensor_from(IR_F32, 2, xd, (double[]){3}),
                      t_tensor_from(IR_F32, 1, cd, (double[]){2}),
                      t_tensor_from(IR_F32, 1, cd, (double[]){0.5}),
                      t_tensor_from(IR_F32, 1, cd, (double[]){1}),
                      t_tensor_from(IR_F32, 1, cd, (double[]){3})}};
  rt_tensor want = t_tensor_from(IR_F32, 2, xd, (double[]){4 / sqrt(3.00001) + 0.5});
  ir_type yt = ir_type_make(IR_F32, 2, xd);
  t_case_make(&tc, IR_OP_BATCHNORM, 5, &yt, 1);
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 1e-7, 0);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

static void instance_norm_run(ir_dtype dt, int rank, const int64_t *xd) {
  t_rng r = t_rng_make(61 + (uint64_t)rank);
  int64_t C = xd[1], cd[1] = {C};
  /* An offset of 5 checks the variance is not computed as E[x^2]-E[x]^2 in
   * low precision. */
  t_case tc = {.in = {t_tensor_random(&r, dt, rank, xd, 4, 6),
                      t_tensor_random(&r, dt, 1, cd, 0.5, 2),
                      t_tensor_random(&r, dt, 1, cd, -1, 1)}};
  const rt_tensor *in = tc.in;
  rt_tensor want = t_tensor_zeros(dt, rank, xd);
  int64_t inner = 1;
  for (int i = 2; i < rank; i++) inner *= xd[i];
  for (int64_t b = 0; b < xd[0]; b++)
    for (int64_t c = 0; c < C; c++) {
      int64_t base = (b * C + c) * inner;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; i++) mean += rt_load_f(&in[0], base + i);
      mean /= (double)inner;
      for (int64_t i = 0; i < inner; i++) var += pow(rt_load_f(&in[0], base + i) - mean, 2);
      var /= (double)inner;
      for (int64_t i = 0; i < inner; i++)
        rt_store_f(&want, base + i,
                   rt_load_f(&in[1], c) * (rt_load_f(&in[0], base + i) - mean) /
                           sqrt(var + 1e-5) + rt_load_f(&in[2], c));
    }
  ir_type yt = ir_type_make(dt, rank, xd);
  t_case_make(&tc, IR_OP_INSTANCE_NORM, 3, &yt, 1);
  T_OK(t_case_run(&tc));
  check(&tc.out[0], &want);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

Test(instance_norm, random) {
  instance_norm_run(IR_F32, 4, (int64_t[]){2, 3, 5, 4});
  instance_norm_run(IR_F16, 4, (int64_t[]){2, 3, 5, 4});
  instance_norm_run(IR_F32, 3, (int64_t[]){2, 4, 7});
}

/* layer_norm over x.shape[axis:]; scale / bias of rank sr / br (right-aligned
 * suffix of the normalised shape, dims given), br < 0: no bias. */
static void layer_norm_run(ir_dtype dt, int rank, const int64_t *xd, int64_t axis, int sr,
                           const int64_t *sd, int br, const int64_t *bd, bool set_axis) {
  t_rng r = t_rng_make(71 + (uint64_t)(axis + 8) * 3 + (uint64_t)sr);
  t_case tc = {0};
  rt_tensor *in = tc.in;
  in[0] = t_tensor_random(&r, dt, rank, xd, -2, 3);
  in[1] = t_tensor_random(&r, dt, sr, sd, 0.5, 2);
  int n_in = 2;
  if (br >= 0) in[n_in++] = t_tensor_random(&r, dt, br, bd, -1, 1);
  rt_tensor want = t_tensor_zeros(dt, rank, xd);
  int ax = (int)(axis < 0 ? axis + rank : axis);
  int64_t rows = 1, len = 1;
  for (int i = 0; i < rank; i++) {
    if (i < ax) rows *= xd[i];
    else len *= xd[i];
  }
  for (int64_t row = 0; row < rows; row++) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < len; j++) mean += rt_load_f(&in[0], row * len + j);
    mean /= (double)len;
    for (int64_t j = 0; j < len; j++) var += pow(rt_load_f(&in[0], row * len + j) - mean, 2);
    var /= (double)len;
    for (int64_t j = 0; j < len; j++) {
      /* Multi-index of j in the normalised shape -> broadcast parameter index. */
      int64_t sidx = 0, bidx = 0, rem = j, ss = 1, bs = 1;
      for (int d = rank - 1; d >= ax; d--) {
        int64_t cd = rem % xd[d];
        rem /= xd[d];
        int ds = d - (rank - sr), db = d - (rank - br);
        if (ds >= 0) {
          sidx += (sd[ds] == 1 ? 0 : cd) * ss;
          ss *= sd[ds];
        }
        if (br >= 0 && db >= 0) {
          bidx += (bd[db] == 1 ? 0 : cd) * bs;
          bs *= bd[db];
        }
      }
      double v = (rt_load_f(&in[0], row * len + j) - mean) / sqrt(var + 1e-5) *
                     rt_load_f(&in[1], sidx) +
                 (br >= 0 ? rt_load_f(&in[2], bidx) : 0);
      rt_store_f(&want, row * len + j, v);
    }
  }
  ir_type yt = ir_type_make(dt, rank, xd);
  t_case_make(&tc, IR_OP_LAYER_NORM, n_in, &yt, 1);
  if (set_axis) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_AXIS, axis));
  T_OK(t_case_run(&tc));
  check(&tc.out[0], &want);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

Test(layer_norm, axes) {
  int64_t xd[3] = {2, 3, 4};
  /* default axis -1 */
  layer_norm_run(IR_F32, 3, xd, -1, 1, (int64_t[]){4}, 1, (int64_t[]){4}, false);
  layer_norm_run(IR_F16, 3, xd, -1, 1, (int64_t[]){4}, 1, (int64_t[]){4}, false);
  /* axis 1: normalise [3,4]; full scale, bias broadcast [4] */
  layer_norm_run(IR_F32, 3, xd, 1, 2, (int64_t[]){3, 4}, 1, (int64_t[]){4}, true);
  /* axis -2, scale [3,1], no bias */
  layer_norm_run(IR_F32, 3, xd, -2, 2, (int64_t[]){3, 1}, -1, NULL, true);
  /* axis 0: everything; scalar-like scale [1] */
  layer_norm_run(IR_F32, 3, xd, 0, 1, (int64_t[]){1}, 3, (int64_t[]){2, 3, 4}, true);
  layer_norm_run(IR_F16, 3, xd, 0, 1, (int64_t[]){1}, 3, (int64_t[]){2, 3, 4}, true);
  /* rank 4 transformer-like [1,5,2,8] over the last axis */
  layer_norm_run(IR_F32, 4, (int64_t[]){1, 5, 2, 8}, 3, 1, (int64_t[]){8}, 1, (int64_t[]){8}, true);
}

Test(layer_norm, hand_worked) {
  /* [1,2,3,4]: mean 2.5, var 1.25 -> (x-2.5)/sqrt(1.25+1e-5) */
  int64_t xd[1] = {4};
  t_case tc = {.in = {t_tensor_from(IR_F32, 1, xd, (double[]){1, 2, 3, 4}),
                      t_tensor_from(IR_F32, 1, xd, (double[]){1, 1, 1, 1})}};
  double s = sqrt(1.25 + 1e-5);
  rt_tensor want = t_tensor_from(IR_F32, 1, xd, (double[]){-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s});
  ir_type yt = ir_type_make(IR_F32, 1, xd);
  t_case_make(&tc, IR_OP_LAYER_NORM, 2, &yt, 1);
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 1e-6, 0);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

/* ---- softmax ---------------------------------------------------------------- */

static void softmax_run(ir_op op, ir_dtype dt, int64_t axis, bool set_axis, double lo,
                        double hi) {
  t_rng r = t_rng_make(81 + (uint64_t)(axis + 4));
  int64_t xd[3] = {3, 4, 5};
  t_case tc = {.in = {t_tensor_random(&r, dt, 3, xd, lo, hi)}};
  const rt_tensor *x = &tc.in[0];
  rt_tensor want = t_tensor_zeros(dt, 3, xd);
  int ax = (int)(axis < 0 ? axis + 3 : axis);
  int64_t st[3] = {20, 5, 1};
  for (int64_t i = 0; i < 60; i++) {
    int64_t pos = (i / st[ax]) % xd[ax], base = i - pos * st[ax];
    double mx = -INFINITY, sum = 0;
    for (int64_t k = 0; k < xd[ax]; k++) mx = fmax(mx, rt_load_f(x, base + k * st[ax]));
    for (int64_t k = 0; k < xd[ax]; k++) sum += exp(rt_load_f(x, base + k * st[ax]) - mx);
    double v = rt_load_f(x, i) - mx;
    rt_store_f(&want, i, op == IR_OP_SOFTMAX ? exp(v) / sum : v - log(sum));
  }
  ir_type yt = ir_type_make(dt, 3, xd);
  t_case_make(&tc, op, 1, &yt, 1);
  if (set_axis) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_AXIS, axis));
  T_OK(t_case_run(&tc));
  if (dt == IR_F16) {
    t_assert_close(&tc.out[0], &want, F16_RTOL, F16_ATOL);
  } else {
    /* log_softmax of large inputs is large: relative tolerance matters. */
    t_assert_close(&tc.out[0], &want, 1e-6, 1e-7);
  }
  t_case_free(&tc);
  rt_tensor_free(&want);
}

Test(softmax, each_axis) {
  for (int64_t ax = -3; ax < 3; ax++) {
    softmax_run(IR_OP_SOFTMAX, IR_F32, ax, true, -3, 3);
    softmax_run(IR_OP_LOG_SOFTMAX, IR_F32, ax, true, -3, 3);
  }
  softmax_run(IR_OP_SOFTMAX, IR_F32, -1, false, -3, 3);
  softmax_run(IR_OP_LOG_SOFTMAX, IR_F32, -1, false, -3, 3);
  softmax_run(IR_OP_SOFTMAX, IR_F16, 1, true, -3, 3);
  softmax_run(IR_OP_LOG_SOFTMAX, IR_F16, 0, true, -3, 3);
}

Test(softmax, large_magnitudes) {
  /* exp(1000) overflows double: only a max-subtracting kernel survives. */
  softmax_run(IR_OP_SOFTMAX, IR_F32, 2, true, 900, 1100);
  softmax_run(IR_OP_LOG_SOFTMAX, IR_F32, 1, true, -1100, -900);
  int64_t xd[1] = {3};
  const double xv[3] = {1000, 1001, 1002};
  ir_type yt = ir_type_make(IR_F32, 1, xd);
  /* 1/(1+e+e^2), e/(..), e^2/(..) */
  double e = exp(1.0), d = 1 + e + e * e;
  rt_tensor want = t_tensor_from(IR_F32, 1, xd, (double[]){1 / d, e / d, e * e / d});
  t_case tc = {.in = {t_tensor_from(IR_F32, 1, xd, xv)}};
  t_case_make(&tc, IR_OP_SOFTMAX, 1, &yt, 1);
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 1e-6, 0);
  t_case_free(&tc);
  rt_tensor lwant = t_tensor_from(IR_F32, 1, xd, (double[]){-log(d), 1 - log(d), 2 - log(d)});
  tc.in[0] = t_tensor_from(IR_F32, 1, xd, xv);
  t_case_make(&tc, IR_OP_LOG_SOFTMAX, 1, &yt, 1);
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &lwant, 1e-6, 0);
  t_case_free(&tc);
  rt_tensor_free(&want), rt_tensor_free(&lwant);
}
