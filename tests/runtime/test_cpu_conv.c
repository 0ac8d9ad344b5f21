/* CPU conv2d / conv_transpose2d kernels against naive loops written here:
 * a direct gather loop per output for conv2d, and the gather form (not the
 * kernel's scatter) for conv_transpose2d. Every case runs in f32 and f16. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

/* f16 results are rounded once to f16 (half ulp ~4.9e-4 relative); the
 * expectation is computed from the same f16-rounded inputs. */
#define F16_RTOL 2e-3
#define F16_ATOL 2e-3
#define F32_RTOL 1e-5
#define F32_ATOL 1e-5

typedef struct conv_case {
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw;
  int64_t pads[4]; /* top, left, bottom, right */
  int64_t group;
  int64_t oph, opw; /* conv_transpose2d output_padding */
  int bias;
  ir_act act;
  float act_alpha, act_beta; /* used when non-zero */
} conv_case;

static double ref_act(const conv_case *c, double v) {
  switch (c->act) {
  case IR_ACT_NONE: return v;
  case IR_ACT_RELU: return v < 0 ? 0 : v;
  case IR_ACT_RELU6: return fmin(fmax(v, 0), 6);
  case IR_ACT_LEAKY_RELU: return v < 0 ? v * (c->act_alpha ? c->act_alpha : 0.01) : v;
  case IR_ACT_CLIP: return fmin(fmax(v, c->act_alpha), c->act_beta);
  default: cr_assert_fail("activation not covered by the test"); return 0;
  }
}

static void set_attrs(ir_graph *g, ir_node *n, const conv_case *c, bool transpose) {
  /* Defaults are left unset on purpose so the kernel's defaults are tested. */
  t_set_window_attrs(g, n, c->sh, c->sw, c->dh, c->dw, c->pads);
  if (c->group != 1) T_OK(ir_node_set_int(g, n, IR_A_GROUP, c->group));
  if (transpose && (c->oph || c->opw))
    T_OK(ir_node_set_ints(g, n, IR_A_OUTPUT_PADDING, (int64_t[]){c->oph, c->opw}, 2));
  if (c->act != IR_ACT_NONE) T_OK(ir_node_set_enum(g, n, IR_A_ACT, c->act));
  if (c->act_alpha) T_OK(ir_node_set_float(g, n, IR_A_ACT_ALPHA, c->act_alpha));
  if (c->act_beta) T_OK(ir_node_set_float(g, n, IR_A_ACT_BETA, c->act_beta));
}

static void run_case(const conv_case *c, ir_dtype dt, bool transpose, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t cg = c->c / c->group, mg = c->m / c->group;
  int64_t xd[4] = {c->n, c->c, c->h, c->w};
  int64_t wd[4] = {c->m, cg, c->kh, c->kw};
  if (transpose) wd[0] = c->c, wd[1] = mg;
  int64_t bd[1] = {c->m};
  t_case tc = {0};
  rt_tensor *in = tc.in;
  in[0] = t_tensor_random(&r, dt, 4, xd, -1, 1);
  in[1] = t_tensor_random(&r, dt, 4, wd, -1, 1);
  in[2] = t_tensor_random(&r, dt, 1, bd, -1, 1);
  int64_t eh = (c->kh - 1) * c->dh + 1, ew = (c->kw - 1) * c->dw + 1;
  int64_t oh, ow;
  if (transpose) {
    oh = c->sh * (c->h - 1) + c->oph + eh - c->pads[0] - c->pads[2];
    ow = c->sw * (c->w - 1) + c->opw + ew - c->pads[1] - c->pads[3];
  } else {
    oh = (c->h + c->pads[0] + c->pads[2] - eh) / c->sh + 1;
    ow = (c->w + c->pads[1] + c->pads[3] - ew) / c->sw + 1;
  }
  int64_t yd[4] = {c->n, c->m, oh, ow};
  rt_tensor want = t_tensor_zeros(dt, 4, yd);

  for (int64_t b = 0; b < c->n; b++)
    for (int64_t m = 0; m < c->m; m++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++) {
          double s = c->bias ? rt_load_f(&in[2], m) : 0;
          int64_t g = m / mg;
          for (int64_t ic = 0; ic < cg; ic++)
            for (int64_t ky = 0; ky < c->kh; ky++)
              for (int64_t kx = 0; kx < c->kw; kx++) {
                int64_t ch = g * cg + ic, iy, ix, wi;
                if (transpose) {
                  /* output y receives input iy where iy*s - pad + k*d == y */
                  int64_t ny = y + c->pads[0] - ky * c->dh, nx = x + c->pads[1] - kx * c->dw;
                  if (ny < 0 || nx < 0 || ny % c->sh || nx % c->sw) continue;
                  iy = ny / c->sh, ix = nx / c->sw;
                  wi = ((ch * mg + (m - g * mg)) * c->kh + ky) * c->kw + kx;
                } else {
                  iy = y * c->sh - c->pads[0] + ky * c->dh;
                  ix = x * c->sw - c->pads[1] + kx * c->dw;
                  wi = ((m * cg + ic) * c->kh + ky) * c->kw + kx;
                }
                if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w) continue;
                s += rt_load_f(&in[0], ((b * c->c + ch) * c->h + iy) * c->w + ix) *
                     rt_load_f(&in[1], wi);
              }
          rt_store_f(&want, ((b * c->m + m) * oh + y) * ow + x, ref_act(c, s));
        }

  ir_type yt = ir_type_make(dt, 4, yd);
  t_case_make(&tc, transpose ? IR_OP_CONV_TRANSPOSE2D : IR_OP_CONV2D, c->bias ? 3 : 2, &yt, 1);
  set_attrs(tc.g, tc.n, c, transpose);
  T_OK(t_case_run(&tc));
  if (dt == IR_F16)
    t_assert_close(&tc.out[0], &want, F16_RTOL, F16_ATOL);
  else
    t_assert_close(&tc.out[0], &want, F32_RTOL, F32_ATOL);
  /* A test that cannot fail is worse than none: outputs must not be trivial. */
  double mag = 0;
  for (int64_t i = 0; i < rt_tensor_numel(&want); i++) mag += fabs(rt_load_f(&want, i));
  cr_assert(mag > 0, "degenerate expectation");
  t_case_free(&tc);
  rt_tensor_free(&want);
}

#define P0 {0, 0, 0, 0}
#define P1 {1, 1, 1, 1}

/* n c h w m kh kw | sh sw dh dw | pads | group | oph opw | bias act alpha beta */
static conv_case conv_cases[] = {
    {1, 3, 7, 9, 5, 1, 1, 1, 1, 1, 1, P0, 1, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* 1x1 */
    {1, 5, 9, 7, 6, 3, 3, 1, 1, 1, 1, P1, 1, 0, 0, 1, IR_ACT_RELU, 0, 0},       /* 3x3 same */
    {1, 3, 11, 11, 4, 3, 3, 2, 2, 1, 1, P1, 1, 0, 0, 1, IR_ACT_NONE, 0, 0},     /* stride 2 odd */
    {1, 2, 8, 10, 3, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 1, 0, 0, 0, IR_ACT_NONE, 0, 0}, /* 5x5 */
    {1, 3, 15, 13, 8, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1, 0, 0, 1, IR_ACT_RELU, 0, 0}, /* stem */
    {1, 4, 9, 9, 4, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* dilated */
    {1, 3, 13, 12, 5, 3, 3, 2, 2, 2, 2, {1, 2, 2, 1}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* dil+stride */
    {1, 6, 7, 7, 4, 3, 3, 1, 1, 1, 1, P1, 2, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* group 2 */
    {1, 9, 10, 9, 6, 1, 1, 2, 2, 1, 1, P0, 3, 0, 0, 0, IR_ACT_NONE, 0, 0},      /* group 3 1x1 s2 */
    {1, 7, 9, 8, 7, 3, 3, 1, 1, 1, 1, P1, 7, 0, 0, 1, IR_ACT_RELU6, 0, 0},      /* depthwise */
    {1, 5, 9, 10, 5, 3, 3, 2, 2, 1, 1, {0, 0, 1, 1}, 5, 0, 0, 1, IR_ACT_RELU6, 0, 0}, /* dw s2 */
    {1, 3, 8, 9, 6, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 3, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* dw x2 */
    {1, 3, 7, 8, 2, 3, 3, 1, 1, 1, 1, {1, 2, 0, 3}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* asym pads */
    {1, 3, 6, 11, 4, 1, 7, 1, 1, 1, 1, {0, 3, 0, 3}, 1, 0, 0, 0, IR_ACT_NONE, 0, 0}, /* 1x7 */
    {1, 3, 11, 6, 4, 7, 1, 1, 1, 1, 1, {3, 0, 3, 0}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* 7x1 */
    {1, 4, 6, 6, 5, 3, 3, 1, 1, 1, 1, P1, 1, 0, 0, 1, IR_ACT_LEAKY_RELU, 0.1f, 0}, /* leaky */
    {1, 4, 6, 6, 5, 3, 3, 1, 1, 1, 1, P1, 1, 0, 0, 0, IR_ACT_LEAKY_RELU, 0, 0}, /* leaky dflt */
    {2, 5, 5, 6, 3, 3, 3, 1, 1, 1, 1, P1, 1, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* batch 2 */
    {1, 3, 10, 11, 4, 3, 3, 1, 2, 2, 1, {1, 1, 1, 1}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* mixed s/d */
    {1, 19, 6, 5, 13, 3, 3, 1, 1, 1, 1, P1, 1, 0, 0, 1, IR_ACT_NONE, 0, 0},     /* many channels */
    {1, 3, 5, 5, 4, 5, 5, 1, 1, 1, 1, P0, 1, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* 1x1 output */
    {1, 2, 4, 5, 3, 2, 2, 1, 1, 1, 1, {3, 3, 3, 3}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* pad > k */
    {1, 3, 1, 17, 4, 1, 3, 1, 2, 1, 1, {0, 1, 0, 1}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* 1-D */
    {1, 3, 6, 6, 4, 3, 3, 1, 1, 1, 1, P1, 1, 0, 0, 1, IR_ACT_CLIP, -0.5f, 0.5f}, /* clip */
    {1, 4, 11, 9, 6, 3, 3, 2, 2, 2, 2, P0, 2, 0, 0, 1, IR_ACT_NONE, 0, 0},      /* dil grp s2 */
    {1, 12, 8, 8, 12, 3, 3, 2, 1, 1, 1, {1, 1, 1, 1}, 4, 0, 0, 1, IR_ACT_RELU, 0, 0}, /* grp 4 */
};

ParameterizedTestParameters(conv2d, cases) {
  return cr_make_param_array(conv_case, conv_cases, sizeof conv_cases / sizeof conv_cases[0]);
}

ParameterizedTest(conv_case *c, conv2d, cases) {
  run_case(c, IR_F32, false, 11);
  run_case(c, IR_F16, false, 12);
}

static conv_case convt_cases[] = {
    {1, 3, 4, 5, 2, 3, 3, 1, 1, 1, 1, P0, 1, 0, 0, 0, IR_ACT_NONE, 0, 0},       /* plain */
    {1, 4, 5, 4, 3, 3, 3, 2, 2, 1, 1, P1, 1, 1, 1, 1, IR_ACT_NONE, 0, 0},       /* x2 upsample */
    {1, 2, 4, 4, 5, 4, 4, 2, 2, 1, 1, P1, 1, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* DCGAN 4x4 */
    {1, 4, 3, 5, 6, 3, 3, 2, 2, 1, 1, P0, 2, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* groups */
    {1, 3, 5, 5, 2, 3, 3, 1, 1, 2, 2, {1, 0, 2, 1}, 1, 0, 0, 1, IR_ACT_NONE, 0, 0}, /* dilation */
    {1, 2, 4, 3, 3, 3, 2, 3, 2, 1, 1, P0, 1, 2, 1, 1, IR_ACT_RELU, 0, 0},       /* s (3,2), op */
    {1, 3, 4, 4, 3, 2, 2, 2, 2, 1, 1, P0, 3, 0, 0, 1, IR_ACT_NONE, 0, 0},       /* depthwise */
    {1, 3, 3, 4, 2, 1, 1, 2, 2, 1, 1, P0, 1, 1, 1, 1, IR_ACT_NONE, 0, 0},       /* 1x1 holes */
    {2, 3, 3, 3, 4, 3, 3, 2, 2, 1, 1, {1, 2, 0, 1}, 1, 1, 0, 1, IR_ACT_LEAKY_RELU, 0.2f, 0},
    {1, 6, 3, 4, 4, 3, 3, 2, 3, 2, 1, {2, 1, 1, 2}, 2, 1, 2, 0, IR_ACT_NONE, 0, 0}, /* mixed */
};

ParameterizedTestParameters(conv_transpose2d, cases) {
  return cr_make_param_array(conv_case, convt_cases, sizeof convt_cases / sizeof convt_cases[0]);
}

ParameterizedTest(conv_case *c, conv_transpose2d, cases) {
  run_case(c, IR_F32, true, 21);
  run_case(c, IR_F16, true, 22);
}

/* Hand-worked: 1x1x3x3 input 1..9, 2x2 kernel of ones, stride 1: sums of
 * 2x2 blocks. Transposed: a 1x1x2x2 input [1,2;3,4] with a 2x2 kernel
 * [1,10;100,1000], stride 2: each input pixel stamps a scaled kernel. */
Test(conv2d, hand_worked) {
  int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, yd[4] = {1, 1, 2, 2};
  t_case tc = {.in = {t_tensor_from(IR_F32, 4, xd, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9}),
                      t_tensor_from(IR_F32, 4, wd, (double[]){1, 1, 1, 1})}};
  rt_tensor want = t_tensor_from(IR_F32, 4, yd, (double[]){12, 16, 24, 28});
  ir_type yt = ir_type_make(IR_F32, 4, yd);
  t_case_make(&tc, IR_OP_CONV2D, 2, &yt, 1);
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 0, 0);
  t_case_free(&tc);
  rt_tensor_free(&want);

  int64_t td[4] = {1, 1, 2, 2}, tyd[4] = {1, 1, 4, 4};
  tc.in[0] = t_tensor_from(IR_F32, 4, td, (double[]){1, 2, 3, 4});
  tc.in[1] = t_tensor_from(IR_F32, 4, td, (double[]){1, 10, 100, 1000});
  rt_tensor twant = t_tensor_from(IR_F32, 4, tyd,
                                  (double[]){1, 10, 2, 20, 100, 1000, 200, 2000,
                                             3, 30, 4, 40, 300, 3000, 400, 4000});
  yt = ir_type_make(IR_F32, 4, tyd);
  t_case_make(&tc, IR_OP_CONV_TRANSPOSE2D, 2, &yt, 1);
  T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_STRIDES, (int64_t[]){2, 2}, 2));
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &twant, 0, 0);
  t_case_free(&tc);
  rt_tensor_free(&twant);
}

/* Unsupported dtypes and inconsistent shapes give a status, never a crash. */
Test(conv2d, errors) {
  t_rng r = t_rng_make(5);
  int64_t xd[4] = {1, 2, 4, 4}, wd[4] = {3, 2, 3, 3}, yd[4] = {1, 3, 2, 2};
  t_case tc = {.in = {t_tensor_random(&r, IR_I32, 4, xd, -5, 5),
                      t_tensor_random(&r, IR_I32, 4, wd, -5, 5)}};
  ir_type yt = ir_type_make(IR_I32, 4, yd);
  t_case_make(&tc, IR_OP_CONV2D, 2, &yt, 1);
  vkml_status s = t_case_run(&tc);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED, "%s", vkml_status_message(s));
  vkml_status_free(s);
  t_case_free(&tc);

  /* Weight channels (3) do not match input channels (2) with group 1. */
  int64_t wd2[4] = {3, 3, 3, 3};
  tc.in[0] = t_tensor_random(&r, IR_F32, 4, xd, -1, 1);
  tc.in[1] = t_tensor_random(&r, IR_F32, 4, wd2, -1, 1);
  yt = ir_type_make(IR_F32, 4, yd);
  t_case_make(&tc, IR_OP_CONV2D, 2, &yt, 1);
  s = t_case_run(&tc);
  cr_assert_neq(s, VKML_OK);
  vkml_status_free(s);
  /* Wrong output size. */
  T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_PADS, (int64_t[]){1, 1, 1, 1}, 4));
  rt_tensor_free(&tc.in[1]);
  tc.in[1] = t_tensor_random(&r, IR_F32, 4, wd, -1, 1);
  s = t_case_run(&tc);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(s));
  vkml_status_free(s);
  t_case_free(&tc);
}
