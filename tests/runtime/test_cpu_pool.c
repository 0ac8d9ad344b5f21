/* CPU maxpool / avgpool / global pool kernels against naive loops written
 * here, including the output-size rule (ceil_mode drops a last window that
 * starts in the end padding) and both count_include_pad meanings. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

/* f16: inputs are shared, the result is rounded once (half ulp ~4.9e-4). */
#define F16_RTOL 2e-3
#define F16_ATOL 1e-3

typedef struct pool_case {
  int is_max;
  int64_t n, c, h, w, kh, kw, sh, sw, dh, dw;
  int64_t pads[4];
  int ceil_mode, count_include_pad;
  int64_t want_oh, want_ow; /* hand-computed output size (0: not given) */
} pool_case;

/* Output size per docs/ops.md, written out independently of the kernel. */
static int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1,
                       int ceil_mode) {
  int64_t ext = (k - 1) * d + 1, span = in + p0 + p1 - ext;
  int64_t o = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
  if (ceil_mode && (o - 1) * s >= in + p0) o--;
  return o;
}

static void pool_run(const pool_case *c, ir_dtype dt) {
  t_rng r = t_rng_make(91 + (uint64_t)c->h * 13 + (uint64_t)c->kh);
  int64_t xd[4] = {c->n, c->c, c->h, c->w};
  t_case tc = {.in = {t_tensor_random(&r, dt, 4, xd, -4, 4)}};
  const rt_tensor *x = &tc.in[0];
  int64_t oh = out_dim(c->h, c->kh, c->sh, c->dh, c->pads[0], c->pads[2], c->ceil_mode);
  int64_t ow = out_dim(c->w, c->kw, c->sw, c->dw, c->pads[1], c->pads[3], c->ceil_mode);
  if (c->want_oh) cr_assert_eq(oh, c->want_oh, "test's own size rule: %lld", (long long)oh);
  if (c->want_ow) cr_assert_eq(ow, c->want_ow, "test's own size rule: %lld", (long long)ow);
  int64_t yd[4] = {c->n, c->c, oh, ow};
  rt_tensor want = t_tensor_zeros(dt, 4, yd);
  for (int64_t p = 0; p < c->n * c->c; p++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        double mx = -INFINITY, sum = 0;
        int64_t n_in = 0, n_pad = 0;
        for (int64_t ki = 0; ki < c->kh; ki++)
          for (int64_t kj = 0; kj < c->kw; kj++) {
            int64_t yy = i * c->sh - c->pads[0] + ki * c->dh;
            int64_t xx = j * c->sw - c->pads[1] + kj * c->dw;
            bool in_pad_y = yy >= -c->pads[0] && yy < c->h + c->pads[2];
            bool in_pad_x = xx >= -c->pads[1] && xx < c->w + c->pads[3];
            if (in_pad_y && in_pad_x) n_pad++;
            if (yy < 0 || yy >= c->h || xx < 0 || xx >= c->w) continue;
            double v = rt_load_f(x, (p * c->h + yy) * c->w + xx);
            mx = fmax(mx, v);
            sum += v;
            n_in++;
          }
        cr_assert(n_in > 0, "test case has an empty window");
        double v = c->is_max ? mx : sum / (double)(c->count_include_pad ? n_pad : n_in);
        rt_store_f(&want, (p * oh + i) * ow + j, v);
      }
  ir_type yt = ir_type_make(dt, 4, yd);
  t_case_make(&tc, c->is_max ? IR_OP_MAXPOOL : IR_OP_AVGPOOL, 1, &yt, 1);
  T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_KERNEL, (int64_t[]){c->kh, c->kw}, 2));
  t_set_window_attrs(tc.g, tc.n, c->sh, c->sw, c->dh, c->dw, c->pads);
  if (c->ceil_mode) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_CEIL_MODE, 1));
  if (c->count_include_pad) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_COUNT_INCLUDE_PAD, 1));
  T_OK(t_case_run(&tc));
  if (dt == IR_F16)
    t_assert_close(&tc.out[0], &want, F16_RTOL, F16_ATOL);
  else
    t_assert_close(&tc.out[0], &want, 1e-6, 1e-6);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

#define P0 {0, 0, 0, 0}
#define P1 {1, 1, 1, 1}

/* max n c h w kh kw sh sw dh dw pads ceil cip want_oh want_ow */
static pool_case pool_cases[] = {
    {1, 1, 2, 6, 6, 2, 2, 2, 2, 1, 1, P0, 0, 0, 3, 3},
    {1, 2, 3, 7, 7, 3, 3, 2, 2, 1, 1, P1, 0, 0, 4, 4},       /* resnet stem pool */
    {1, 1, 2, 6, 6, 3, 3, 2, 2, 1, 1, P0, 1, 0, 3, 3},       /* ceil: window overhangs */
    {1, 1, 2, 5, 5, 2, 2, 2, 2, 1, 1, P1, 1, 0, 3, 3},       /* ceil: last window dropped */
    {0, 1, 2, 5, 5, 2, 2, 2, 2, 1, 1, P1, 1, 1, 3, 3},       /* same, avg incl. pad */
    {0, 1, 3, 5, 6, 3, 3, 1, 1, 1, 1, P1, 0, 0, 5, 6},       /* avg excl. pad */
    {0, 1, 3, 5, 6, 3, 3, 1, 1, 1, 1, P1, 0, 1, 5, 6},       /* avg incl. pad */
    {0, 1, 2, 6, 6, 3, 3, 2, 2, 1, 1, P1, 1, 1, 4, 4},       /* overhang past padding */
    {0, 1, 2, 6, 6, 3, 3, 2, 2, 1, 1, P1, 1, 0, 4, 4},
    {1, 1, 2, 9, 9, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 0, 0, 9, 9}, /* dilated max */
    {0, 1, 2, 9, 8, 3, 2, 1, 2, 2, 2, {1, 2, 2, 1}, 0, 1, 0, 0}, /* dilated avg asym */
    {1, 1, 2, 5, 5, 2, 2, 2, 2, 1, 1, {0, 1, 1, 0}, 0, 0, 3, 3}, /* asym pads */
    {0, 2, 3, 1, 11, 1, 3, 1, 2, 1, 1, {0, 1, 0, 1}, 0, 1, 1, 6}, /* 1-D */
    {0, 1, 4, 5, 7, 5, 7, 1, 1, 1, 1, P0, 0, 0, 1, 1},       /* whole input */
    {1, 1, 3, 8, 7, 3, 3, 3, 2, 1, 1, {1, 0, 1, 2}, 1, 0, 0, 0}, /* ceil, mixed strides */
    {0, 1, 3, 8, 7, 3, 3, 3, 2, 1, 1, {1, 0, 1, 2}, 1, 1, 0, 0},
    {0, 1, 3, 8, 7, 3, 3, 3, 2, 1, 1, {1, 0, 1, 2}, 1, 0, 0, 0},
};

ParameterizedTestParameters(pool, cases) {
  return cr_make_param_array(pool_case, pool_cases, sizeof pool_cases / sizeof pool_cases[0]);
}

ParameterizedTest(pool_case *c, pool, cases) {
  pool_run(c, IR_F32);
  pool_run(c, IR_F16);
}

/* Hand-worked avgpool 2x2 s2, pads 1, on [[1,2,3],[4,5,6],[7,8,9]]:
 * windows {1}, {2,3}, {4,7}, {5,6,8,9}. */
Test(pool, hand_worked_avg) {
  int64_t xd[4] = {1, 1, 3, 3}, yd[4] = {1, 1, 2, 2};
  ir_type yt = ir_type_make(IR_F32, 4, yd);
  for (int cip = 0; cip < 2; cip++) {
    t_case tc = {.in = {t_tensor_from(IR_F32, 4, xd, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9})}};
    rt_tensor want = cip ? t_tensor_from(IR_F32, 4, yd, (double[]){0.25, 1.25, 2.75, 7})
                         : t_tensor_from(IR_F32, 4, yd, (double[]){1, 2.5, 5.5, 7});
    t_case_make(&tc, IR_OP_AVGPOOL, 1, &yt, 1);
    T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_KERNEL, (int64_t[]){2, 2}, 2));
    T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_STRIDES, (int64_t[]){2, 2}, 2));
    T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_PADS, (int64_t[]){1, 1, 1, 1}, 4));
    T_OK(ir_node_set_int(tc.g, tc.n, IR_A_COUNT_INCLUDE_PAD, cip));
    T_OK(t_case_run(&tc));
    t_assert_close(&tc.out[0], &want, 1e-7, 0);
    t_case_free(&tc);
    rt_tensor_free(&want);
  }
}

/* A wrong output size (the dropped-window rule ignored) is an error. */
Test(pool, wrong_output_size) {
  t_rng r = t_rng_make(3);
  int64_t xd[4] = {1, 1, 5, 5}, yd[4] = {1, 1, 4, 4};
  t_case tc = {.in = {t_tensor_random(&r, IR_F32, 4, xd, -1, 1)}};
  ir_type yt = ir_type_make(IR_F32, 4, yd);
  t_case_make(&tc, IR_OP_MAXPOOL, 1, &yt, 1);
  T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_KERNEL, (int64_t[]){2, 2}, 2));
  T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_STRIDES, (int64_t[]){2, 2}, 2));
  T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_PADS, (int64_t[]){1, 1, 1, 1}, 4));
  T_OK(ir_node_set_int(tc.g, tc.n, IR_A_CEIL_MODE, 1));
  vkml_status s = t_case_run(&tc);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(s));
  vkml_status_free(s);
  t_case_free(&tc);
}

static void global_run(ir_op op, ir_dtype dt, int rank, const int64_t *xd) {
  t_rng r = t_rng_make(101 + (uint64_t)rank);
  t_case tc = {.in = {t_tensor_random(&r, dt, rank, xd, -3, 3)}};
  const rt_tensor *x = &tc.in[0];
  int64_t yd[8] = {xd[0], xd[1], 1, 1, 1, 1, 1, 1};
  rt_tensor want = t_tensor_zeros(dt, rank, yd);
  int64_t sp = 1;
  for (int i = 2; i < rank; i++) sp *= xd[i];
  for (int64_t p = 0; p < xd[0] * xd[1]; p++) {
    double mx = -INFINITY, sum = 0;
    for (int64_t i = 0; i < sp; i++) {
      mx = fmax(mx, rt_load_f(x, p * sp + i));
      sum += rt_load_f(x, p * sp + i);
    }
    rt_store_f(&want, p, op == IR_OP_GLOBAL_MAX_POOL ? mx : sum / (double)sp);
  }
  ir_type yt = ir_type_make(dt, rank, yd);
  t_case_make(&tc, op, 1, &yt, 1);
  T_OK(t_case_run(&tc));
  if (dt == IR_F16)
    t_assert_close(&tc.out[0], &want, F16_RTOL, F16_ATOL);
  else
    t_assert_close(&tc.out[0], &want, 1e-6, 1e-7);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

Test(global_pool, random) {
  for (int k = 0; k < 2; k++) {
    ir_op op = k ? IR_OP_GLOBAL_MAX_POOL : IR_OP_GLOBAL_AVG_POOL;
    global_run(op, IR_F32, 4, (int64_t[]){2, 3, 4, 5});
    global_run(op, IR_F16, 4, (int64_t[]){2, 3, 4, 5});
    global_run(op, IR_F32, 3, (int64_t[]){2, 3, 7});
    global_run(op, IR_F32, 4, (int64_t[]){1, 5, 7, 7});
  }
}
