/* CPU resize kernel: hand-worked cases for every nearest mode and coordinate
 * transform (most from the ONNX backend tests' published outputs), random
 * bilinear upsampling against the textbook clamped bilinear formula, and
 * cubic against the Keys kernel W(d) evaluated directly. */
#include <criterion/criterion.h>
#include <math.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

typedef struct resize_attrs {
  ir_resize_mode mode;
  int coord;   /* -1: unset (half_pixel) */
  int nearest; /* -1: unset (round_prefer_floor) */
  const float *scales;
  const int64_t *sizes;
  float cubic_a; /* 0: unset (-0.75) */
  int exclude_outside;
} resize_attrs;

static vkml_status resize_run(const rt_tensor *x, rt_tensor *y, const resize_attrs *at) {
  ir_graph *g;
  ir_type yt = rt_tensor_type(y);
  ir_node *n = t_node_make(&g, IR_OP_RESIZE, x, 1, &yt, 1);
  if (at->mode != IR_RESIZE_NEAREST) T_OK(ir_node_set_enum(g, n, IR_A_RESIZE_MODE, at->mode));
  if (at->coord >= 0) T_OK(ir_node_set_enum(g, n, IR_A_COORD_MODE, at->coord));
  if (at->nearest >= 0) T_OK(ir_node_set_enum(g, n, IR_A_NEAREST_MODE, at->nearest));
  if (at->scales) T_OK(ir_node_set_floats(g, n, IR_A_SCALES, at->scales, x->rank));
  if (at->sizes) T_OK(ir_node_set_ints(g, n, IR_A_SIZES, at->sizes, x->rank));
  if (at->cubic_a) T_OK(ir_node_set_float(g, n, IR_A_CUBIC_COEFF_A, at->cubic_a));
  if (at->exclude_outside) T_OK(ir_node_set_int(g, n, IR_A_EXCLUDE_OUTSIDE, 1));
  vkml_status s = t_node_run(n, x, 1, y, 1);
  ir_graph_destroy(g);
  return s;
}

/* Runs on x (dims xd, values xv) and compares with hand-worked values. */
static void hand_case(int rank, const int64_t *xd, const double *xv, const int64_t *yd,
                      const double *want_v, const resize_attrs *at, double tol) {
  rt_tensor x = t_tensor_from(IR_F32, rank, xd, xv);
  rt_tensor y = t_tensor_zeros(IR_F32, rank, yd), want = t_tensor_from(IR_F32, rank, yd, want_v);
  T_OK(resize_run(&x, &y, at));
  t_assert_close(&y, &want, tol, tol);
  rt_tensor_free(&x), rt_tensor_free(&y), rt_tensor_free(&want);
}

static const double x2x2[] = {1, 2, 3, 4};
static const double x2x4[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const double x4x4[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* The 8x8 nearest upsamplings of x4x4 repeat one column pattern per row,
 * with rows chosen by the same pattern. */
static void pattern8(const int *p, double *out) {
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) out[i * 8 + j] = x4x4[p[i] * 4 + p[j]];
}

Test(resize, nearest_modes) {
  /* test_resize_upsample_scales_nearest */
  hand_case(4, (int64_t[]){1, 1, 2, 2}, x2x2, (int64_t[]){1, 1, 4, 6},
            (double[]){1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4},
            &(resize_attrs){IR_RESIZE_NEAREST, -1, -1, (float[]){1, 1, 2, 3}, NULL, 0, 0}, 0);
  /* test_resize_downsample_scales_nearest */
  hand_case(4, (int64_t[]){1, 1, 2, 4}, x2x4, (int64_t[]){1, 1, 1, 2}, (double[]){1, 3},
            &(resize_attrs){IR_RESIZE_NEAREST, -1, -1, (float[]){1, 1, 0.6f, 0.6f}, NULL, 0, 0}, 0);
  double out[64];
  /* sizes 8x8, half_pixel, ceil: x_orig = (x+0.5)/2-0.5 = -.25 .25 .75 ... */
  pattern8((int[]){0, 1, 1, 2, 2, 3, 3, 3}, out);
  hand_case(4, (int64_t[]){1, 1, 4, 4}, x4x4, (int64_t[]){1, 1, 8, 8}, out,
            &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_HALF_PIXEL, IR_NEAREST_CEIL, NULL,
                            (int64_t[]){1, 1, 8, 8}, 0, 0}, 0);
  /* align_corners, floor: x*3/7 = 0 .43 .86 1.29 1.71 2.14 2.57 3 */
  pattern8((int[]){0, 0, 0, 1, 1, 2, 2, 3}, out);
  hand_case(4, (int64_t[]){1, 1, 4, 4}, x4x4, (int64_t[]){1, 1, 8, 8}, out,
            &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_ALIGN_CORNERS, IR_NEAREST_FLOOR, NULL,
                            (int64_t[]){1, 1, 8, 8}, 0, 0}, 0);
  /* asymmetric, round_prefer_ceil: x/2 = 0 .5 1 1.5 ... ties go up */
  pattern8((int[]){0, 1, 1, 2, 2, 3, 3, 3}, out);
  hand_case(4, (int64_t[]){1, 1, 4, 4}, x4x4, (int64_t[]){1, 1, 8, 8}, out,
            &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_ASYMMETRIC, IR_NEAREST_ROUND_PREFER_CEIL,
                            NULL, (int64_t[]){1, 1, 8, 8}, 0, 0}, 0);
  /* asymmetric, round_prefer_floor: ties go down */
  pattern8((int[]){0, 0, 1, 1, 2, 2, 3, 3}, out);
  hand_case(4, (int64_t[]){1, 1, 4, 4}, x4x4, (int64_t[]){1, 1, 8, 8}, out,
            &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_ASYMMETRIC, IR_NEAREST_ROUND_PREFER_FLOOR,
                            NULL, (int64_t[]){1, 1, 8, 8}, 0, 0}, 0);
  /* test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn: rows
   * (y+.5)/.75 = .67 2 3.33 -> 1 2 3; cols (x+.5)/.5 = 1 3 */
  hand_case(4, (int64_t[]){1, 1, 4, 4}, x4x4, (int64_t[]){1, 1, 3, 2},
            (double[]){6, 8, 10, 12, 14, 16},
            &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_TF_HALF_PIXEL_FOR_NN, -1, NULL,
                            (int64_t[]){1, 1, 3, 2}, 0, 0}, 0);
  /* pytorch_half_pixel to one column: x_orig 0 -> column 0 */
  hand_case(2, (int64_t[]){2, 4}, x2x4, (int64_t[]){2, 1}, (double[]){1, 5},
            &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_PYTORCH_HALF_PIXEL, -1, NULL,
                            (int64_t[]){2, 1}, 0, 0}, 0);
  /* half_pixel to one column: x_orig = 0.5/0.25-0.5 = 1.5 -> floor-preferring 1 */
  hand_case(2, (int64_t[]){2, 4}, x2x4, (int64_t[]){2, 1}, (double[]){2, 6},
            &(resize_attrs){IR_RESIZE_NEAREST, -1, -1, NULL, (int64_t[]){2, 1}, 0, 0}, 0);
}

/* Nearest copies bits: an i64 beyond 2^53 must survive unchanged, and the
 * batch / channel axes resize like any other. */
Test(resize, nearest_int64_and_channels) {
  int64_t xd[3] = {1, 2, 2}, yd[3] = {1, 4, 2};
  rt_tensor x = t_tensor_zeros(IR_I64, 3, xd);
  int64_t big = (INT64_C(1) << 60) + 7;
  for (int i = 0; i < 4; i++) rt_store_i(&x, i, big + i);
  rt_tensor y = t_tensor_zeros(IR_I64, 3, yd);
  T_OK(resize_run(&x, &y,
                  &(resize_attrs){IR_RESIZE_NEAREST, IR_COORD_ASYMMETRIC, IR_NEAREST_FLOOR,
                                  (float[]){1, 2, 1}, NULL, 0, 0}));
  int64_t want[8] = {0, 1, 0, 1, 2, 3, 2, 3};
  for (int i = 0; i < 8; i++) cr_assert_eq(rt_load_i(&y, i), big + want[i], "element %d", i);
  rt_tensor_free(&x), rt_tensor_free(&y);
}

Test(resize, linear_modes) {
  /* test_resize_upsample_scales_linear */
  hand_case(4, (int64_t[]){1, 1, 2, 2}, x2x2, (int64_t[]){1, 1, 4, 4},
            (double[]){1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25,
                       3.75, 4},
            &(resize_attrs){IR_RESIZE_LINEAR, -1, -1, (float[]){1, 1, 2, 2}, NULL, 0, 0}, 1e-6);
  /* test_resize_upsample_scales_linear_align_corners */
  double t = 1.0 / 3;
  hand_case(4, (int64_t[]){1, 1, 2, 2}, x2x2, (int64_t[]){1, 1, 4, 4},
            (double[]){1, 1 + t, 1 + 2 * t, 2, 1 + 2 * t, 2, 2 + t, 2 + 2 * t, 2 + t, 2 + 2 * t,
                       3, 3 + t, 3, 3 + t, 3 + 2 * t, 4},
            &(resize_attrs){IR_RESIZE_LINEAR, IR_COORD_ALIGN_CORNERS, -1, (float[]){1, 1, 2, 2},
                            NULL, 0, 0}, 1e-6);
  /* test_resize_downsample_scales_linear: rows x_orig .33 -> 1..4 mixed
   * with 5..8; cols (x+.5)/.6-.5 = .33, 2 */
  hand_case(4, (int64_t[]){1, 1, 2, 4}, x2x4, (int64_t[]){1, 1, 1, 2},
            (double[]){2.6666666, 4.3333333},
            &(resize_attrs){IR_RESIZE_LINEAR, -1, -1, (float[]){1, 1, 0.6f, 0.6f}, NULL, 0, 0},
            1e-5);
  /* test_resize_downsample_scales_linear_align_corners: the transform uses
   * in*scale = 2.4 as the resized length: col 1 maps to 3/1.4 */
  hand_case(4, (int64_t[]){1, 1, 2, 4}, x2x4, (int64_t[]){1, 1, 1, 2},
            (double[]){1, 1 + 3 / 1.4},
            &(resize_attrs){IR_RESIZE_LINEAR, IR_COORD_ALIGN_CORNERS, -1,
                            (float[]){1, 1, 0.6f, 0.6f}, NULL, 0, 0}, 1e-5);
  /* asymmetric: coords 0 .5 1 1.5 on both axes, the last clamps */
  hand_case(2, (int64_t[]){2, 2}, x2x2, (int64_t[]){4, 4},
            (double[]){1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4},
            &(resize_attrs){IR_RESIZE_LINEAR, IR_COORD_ASYMMETRIC, -1, NULL, (int64_t[]){4, 4},
                            0, 0}, 1e-6);
  /* test_resize_downsample_sizes_linear_pytorch_half_pixel: rows
   * (y+.5)/.75-.5 = 1/6, 1.5, 17/6; one column -> x_orig 0 */
  hand_case(4, (int64_t[]){1, 1, 4, 4}, x4x4, (int64_t[]){1, 1, 3, 1},
            (double[]){1 + 4.0 / 6, 7, 9 + 4 * (5.0 / 6)},
            &(resize_attrs){IR_RESIZE_LINEAR, IR_COORD_PYTORCH_HALF_PIXEL, -1, NULL,
                            (int64_t[]){1, 1, 3, 1}, 0, 0}, 1e-5);
  /* tf_half_pixel_for_nn, 1-D x2: coords .25 .75 1.25 1.75 -> clamp last */
  hand_case(1, (int64_t[]){2}, (double[]){1, 3}, (int64_t[]){4}, (double[]){1.5, 2.5, 3, 3},
            &(resize_attrs){IR_RESIZE_LINEAR, IR_COORD_TF_HALF_PIXEL_FOR_NN, -1, NULL,
                            (int64_t[]){4}, 0, 0}, 1e-6);
  /* 1-D half_pixel x2: -.25 .25 .75 1.25 */
  hand_case(1, (int64_t[]){2}, (double[]){1, 3}, (int64_t[]){4}, (double[]){1, 1.5, 2.5, 3},
            &(resize_attrs){IR_RESIZE_LINEAR, -1, -1, (float[]){2}, NULL, 0, 0}, 1e-6);
}

/* Textbook bilinear: source coordinate clamped at 0, neighbours clamped at
 * the last row/column. */
static double bilinear(const rt_tensor *x, int64_t plane, int64_t H, int64_t W, double sy,
                       double sx) {
  sy = sy < 0 ? 0 : sy;
  sx = sx < 0 ? 0 : sx;
  int64_t y0 = (int64_t)floor(sy), x0 = (int64_t)floor(sx);
  double fy = sy - (double)y0, fx = sx - (double)x0;
  if (y0 > H - 1) y0 = H - 1;
  if (x0 > W - 1) x0 = W - 1;
  int64_t y1 = y0 + 1 > H - 1 ? H - 1 : y0 + 1, x1 = x0 + 1 > W - 1 ? W - 1 : x0 + 1;
  const int64_t b = plane * H * W;
  double a = rt_load_f(x, b + y0 * W + x0), c = rt_load_f(x, b + y0 * W + x1);
  double d = rt_load_f(x, b + y1 * W + x0), e = rt_load_f(x, b + y1 * W + x1);
  return (1 - fy) * ((1 - fx) * a + fx * c) + fy * ((1 - fx) * d + fx * e);
}

static void bilinear_case(ir_dtype dt, int coord, int64_t H, int64_t W, int64_t OH,
                          int64_t OW) {
  t_rng r = t_rng_make(200 + (uint64_t)(OH * 31 + OW));
  int64_t xd[4] = {2, 3, H, W}, yd[4] = {2, 3, OH, OW};
  rt_tensor x = t_tensor_random(&r, dt, 4, xd, -2, 2);
  rt_tensor y = t_tensor_zeros(dt, 4, yd), want = t_tensor_zeros(dt, 4, yd);
  for (int64_t p = 0; p < 6; p++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        double sy, sx;
        if (coord == IR_COORD_ALIGN_CORNERS) {
          sy = OH > 1 ? (double)i * (double)(H - 1) / (double)(OH - 1) : 0;
          sx = OW > 1 ? (double)j * (double)(W - 1) / (double)(OW - 1) : 0;
        } else {
          sy = ((double)i + 0.5) * (double)H / (double)OH - 0.5;
          sx = ((double)j + 0.5) * (double)W / (double)OW - 0.5;
        }
        rt_store_f(&want, (p * OH + i) * OW + j, bilinear(&x, p, H, W, sy, sx));
      }
  T_OK(resize_run(&x, &y,
                  &(resize_attrs){IR_RESIZE_LINEAR, coord, -1, NULL, yd, 0, 0}));
  if (dt == IR_F16)
    t_assert_close(&y, &want, 2e-3, 2e-3); /* one f16 rounding of the result */
  else
    t_assert_close(&y, &want, 1e-6, 1e-6);
  rt_tensor_free(&x), rt_tensor_free(&y), rt_tensor_free(&want);
}

Test(resize, random_bilinear) {
  bilinear_case(IR_F32, -1, 5, 7, 9, 13);
  bilinear_case(IR_F32, IR_COORD_HALF_PIXEL, 4, 6, 8, 12);
  bilinear_case(IR_F32, IR_COORD_HALF_PIXEL, 8, 9, 5, 4); /* downsample */
  bilinear_case(IR_F32, IR_COORD_ALIGN_CORNERS, 5, 7, 9, 13);
  bilinear_case(IR_F16, -1, 5, 7, 10, 14);
  bilinear_case(IR_F16, IR_COORD_ALIGN_CORNERS, 3, 4, 7, 9);
}

/* Keys cubic kernel W(d) with parameter a. */
static double keys(double a, double d) {
  d = fabs(d);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

/* 1-D cubic weights over input indices of x_orig, edge-clamped; with
 * exclude_outside, taps outside [0,n) are dropped and the rest rescaled. */
static void cubic_weights(double a, bool excl, double xo, int64_t n, double *w) {
  for (int64_t i = 0; i < n; i++) w[i] = 0;
  double sum = 0, part[4];
  int64_t idx[4];
  int64_t f = (int64_t)floor(xo);
  for (int k = 0; k < 4; k++) {
    idx[k] = f - 1 + k;
    part[k] = keys(a, xo - (double)idx[k]);
    if (excl && (idx[k] < 0 || idx[k] >= n)) part[k] = 0;
    sum += part[k];
  }
  for (int k = 0; k < 4; k++) {
    int64_t c = idx[k] < 0 ? 0 : idx[k] >= n ? n - 1 : idx[k];
    w[c] += excl ? part[k] / sum : part[k];
  }
}

static void cubic_case(ir_dtype dt, float a, bool excl, int coord, int64_t H, int64_t W,
                       int64_t OH, int64_t OW) {
  t_rng r = t_rng_make(300 + (uint64_t)(OH * 17 + OW));
  int64_t xd[4] = {1, 2, H, W}, yd[4] = {1, 2, OH, OW};
  rt_tensor x = t_tensor_random(&r, dt, 4, xd, -2, 2);
  rt_tensor y = t_tensor_zeros(dt, 4, yd), want = t_tensor_zeros(dt, 4, yd);
  double wy[16], wx[16], aa = a ? a : -0.75;
  cr_assert(H <= 16 && W <= 16);
  for (int64_t p = 0; p < 2; p++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        double sy, sx;
        if (coord == IR_COORD_ASYMMETRIC) {
          sy = (double)i * (double)H / (double)OH, sx = (double)j * (double)W / (double)OW;
        } else {
          sy = ((double)i + 0.5) * (double)H / (double)OH - 0.5;
          sx = ((double)j + 0.5) * (double)W / (double)OW - 0.5;
        }
        cubic_weights(aa, excl, sy, H, wy);
        cubic_weights(aa, excl, sx, W, wx);
        double s = 0;
        for (int64_t u = 0; u < H; u++)
          for (int64_t v = 0; v < W; v++) s += wy[u] * wx[v] * rt_load_f(&x, (p * H + u) * W + v);
        rt_store_f(&want, (p * OH + i) * OW + j, s);
      }
  T_OK(resize_run(&x, &y, &(resize_attrs){IR_RESIZE_CUBIC, coord, -1, NULL, yd, a, excl}));
  if (dt == IR_F16)
    t_assert_close(&y, &want, 2e-3, 3e-3); /* one f16 rounding of the result */
  else
    t_assert_close(&y, &want, 1e-6, 1e-6);
  rt_tensor_free(&x), rt_tensor_free(&y), rt_tensor_free(&want);
}

Test(resize, cubic) {
  /* First values of test_resize_upsample_scales_cubic and
   * ..._A_n0p5_exclude_outside (x4x4, scale 2), worked by hand. */
  rt_tensor x = t_tensor_from(IR_F32, 4, (int64_t[]){1, 1, 4, 4}, x4x4);
  rt_tensor y = t_tensor_zeros(IR_F32, 4, (int64_t[]){1, 1, 8, 8});
  T_OK(resize_run(&x, &y, &(resize_attrs){IR_RESIZE_CUBIC, -1, -1, (float[]){1, 1, 2, 2},
                                          NULL, 0, 0}));
  cr_assert_float_eq(rt_load_f(&y, 0), 0.47265625, 1e-6, "got %.9g", rt_load_f(&y, 0));
  T_OK(resize_run(&x, &y, &(resize_attrs){IR_RESIZE_CUBIC, -1, -1, (float[]){1, 1, 2, 2},
                                          NULL, -0.5f, 1}));
  cr_assert_float_eq(rt_load_f(&y, 0), 0.55882353, 1e-6, "got %.9g", rt_load_f(&y, 0));
  rt_tensor_free(&x), rt_tensor_free(&y);

  cubic_case(IR_F32, 0, false, -1, 4, 5, 8, 9);
  cubic_case(IR_F32, -0.5f, true, -1, 4, 5, 8, 9);
  cubic_case(IR_F32, 0, false, IR_COORD_ASYMMETRIC, 5, 6, 7, 11);
  cubic_case(IR_F32, -0.5f, false, IR_COORD_HALF_PIXEL, 9, 8, 4, 3); /* downsample */
  cubic_case(IR_F32, 0, true, IR_COORD_HALF_PIXEL, 6, 6, 3, 4);
  cubic_case(IR_F16, 0, false, -1, 4, 5, 8, 9);
}

Test(resize, errors) {
  t_rng r = t_rng_make(1);
  int64_t xd[2] = {2, 2}, yd[2] = {4, 4};
  rt_tensor x = t_tensor_random(&r, IR_I32, 2, xd, -5, 5), y = t_tensor_zeros(IR_I32, 2, yd);
  vkml_status s = resize_run(&x, &y, &(resize_attrs){IR_RESIZE_LINEAR, -1, -1, NULL,
                                                     (int64_t[]){4, 4}, 0, 0});
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED, "%s", vkml_status_message(s));
  vkml_status_free(s);
  /* output shape disagreeing with sizes */
  s = resize_run(&x, &y, &(resize_attrs){IR_RESIZE_NEAREST, -1, -1, NULL, (int64_t[]){4, 3}, 0, 0});
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(s));
  vkml_status_free(s);
  rt_tensor_free(&x), rt_tensor_free(&y);
}
