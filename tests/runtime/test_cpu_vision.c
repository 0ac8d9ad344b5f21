/* CPU reference kernels, vision ops: topk, cumsum, non_max_suppression (also
 * against a plain greedy on many candidates),
 * roi_align. Expectations are naive loops written here or hand-worked values
 * (NMS cases follow the ONNX backend tests; roi_align values were worked out
 * from the ONNX reference algorithm by hand for linear data). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

/* ---- topk -------------------------------------------------------------------- */

/* ties: integer-valued data from a handful of values, so equal keys abound */
static void topk_case(ir_dtype dt, int rank, const int64_t *dims, int axis_attr, int64_t k,
                      bool largest, bool runtime_k, bool ties, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  int64_t od[8], cap[8];
  memcpy(od, dims, sizeof(int64_t) * (size_t)rank);
  memcpy(cap, dims, sizeof(int64_t) * (size_t)rank);
  od[axis] = k;
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, ties ? -3 : -100, ties ? 3 : 100);
  if (ties && ir_dtype_is_float(dt))
    for (int64_t i = 0; i < rt_tensor_numel(&c.in[0]); i++)
      rt_store_f(&c.in[0], i, floor(rt_load_f(&c.in[0], i)) * 0.5);
  if (runtime_k) {
    int64_t one = 1;
    c.in[1] = t_tensor_zeros(IR_I64, 1, &one);
    rt_store_i(&c.in[1], 0, k);
  }
  /* a run-time k gets outputs with the capacity of the whole axis */
  ir_type ot[2] = {ir_type_make(dt, rank, runtime_k ? cap : od),
                   ir_type_make(IR_I64, rank, runtime_k ? cap : od)};
  t_case_make(&c, IR_OP_TOPK, runtime_k ? 2 : 1, ot, 2);
  if (!runtime_k) T_OK(ir_node_set_int(c.g, c.n, IR_A_K, k));
  if (axis_attr != -1) T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, axis_attr));
  if (!largest) T_OK(ir_node_set_int(c.g, c.n, IR_A_LARGEST, 0));
  T_OK(t_case_run(&c));
  for (int d = 0; d < rank; d++)
    cr_assert_eq(c.out[0].dims[d], od[d], "values dim %d", d);
  for (int d = 0; d < rank; d++)
    cr_assert_eq(c.out[1].dims[d], od[d], "indices dim %d", d);

  int64_t outer = 1, inner = 1, dim = dims[axis];
  for (int d = 0; d < axis; d++) outer *= dims[d];
  for (int d = axis + 1; d < rank; d++) inner *= dims[d];
  bool *taken = calloc((size_t)dim, 1);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      memset(taken, 0, (size_t)dim);
      for (int64_t j = 0; j < k; j++) {
        /* naive selection: the best untaken element, first index on ties */
        int64_t best = -1;
        for (int64_t q = 0; q < dim; q++) {
          if (taken[q]) continue;
          double v = rt_load_f(&c.in[0], (o * dim + q) * inner + in);
          double b = best < 0 ? 0 : rt_load_f(&c.in[0], (o * dim + best) * inner + in);
          if (best < 0 || (largest ? v > b : v < b)) best = q;
        }
        taken[best] = true;
        int64_t at = (o * k + j) * inner + in;
        cr_assert_eq(rt_load_i(&c.out[1], at), best, "index at %lld: got %lld want %lld",
                     (long long)at, (long long)rt_load_i(&c.out[1], at), (long long)best);
        cr_assert_eq(rt_load_f(&c.out[0], at),
                     rt_load_f(&c.in[0], (o * dim + best) * inner + in), "value at %lld",
                     (long long)at);
      }
    }
  free(taken);
  t_case_free(&c);
}

Test(topk, largest_smallest_axes) {
  const int64_t d2[2] = {3, 7}, d3[3] = {4, 5, 3};
  uint64_t seed = 1;
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I32, IR_I64};
  for (int t = 0; t < 4; t++)
    for (int largest = 0; largest < 2; largest++) {
      topk_case(dts[t], 2, d2, -1, 3, largest, false, false, seed++);
      topk_case(dts[t], 2, d2, 0, 2, largest, false, false, seed++);
      topk_case(dts[t], 3, d3, 1, 5, largest, false, false, seed++);
      topk_case(dts[t], 3, d3, -3, 1, largest, false, false, seed++);
      topk_case(dts[t], 3, d3, 2, 0, largest, false, false, seed++);
    }
}

Test(topk, ties_keep_lower_index) {
  const int64_t d2[2] = {4, 9}, d3[3] = {3, 8, 2};
  uint64_t seed = 100;
  for (int largest = 0; largest < 2; largest++) {
    topk_case(IR_I32, 2, d2, -1, 9, largest, false, true, seed++);
    topk_case(IR_F32, 2, d2, -1, 5, largest, false, true, seed++);
    topk_case(IR_I64, 3, d3, 1, 6, largest, false, true, seed++);
    topk_case(IR_F16, 3, d3, 1, 8, largest, false, true, seed++);
  }
  /* hand-worked */
  int64_t d = 6;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &d, (double[]){2, 5, 2, 5, 1, 2});
  int64_t k3 = 3;
  ir_type ot[2] = {ir_type_make(IR_F32, 1, &k3), ir_type_make(IR_I64, 1, &k3)};
  t_case_make(&c, IR_OP_TOPK, 1, ot, 2);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_K, 3));
  T_OK(t_case_run(&c));
  const int64_t want_i[3] = {1, 3, 0};
  const double want_v[3] = {5, 5, 2};
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(rt_load_i(&c.out[1], i), want_i[i]);
    cr_assert_eq(rt_load_f(&c.out[0], i), want_v[i]);
  }
  t_case_free(&c);
}

Test(topk, runtime_k) {
  const int64_t d2[2] = {3, 7}, d3[3] = {4, 5, 3};
  uint64_t seed = 200;
  for (int largest = 0; largest < 2; largest++) {
    topk_case(IR_F32, 2, d2, -1, 3, largest, true, false, seed++);
    topk_case(IR_F32, 2, d2, -1, 7, largest, true, false, seed++);
    topk_case(IR_I64, 3, d3, 1, 2, largest, true, true, seed++);
    topk_case(IR_F32, 3, d3, 0, 0, largest, true, false, seed++);
  }
}

Test(topk, nan_and_bad_k) {
  int64_t d = 3, k2 = 2;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &d, (double[]){1, NAN, 3});
  ir_type ot[2] = {ir_type_make(IR_F32, 1, &k2), ir_type_make(IR_I64, 1, &k2)};
  t_case_make(&c, IR_OP_TOPK, 1, ot, 2);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_K, 2));
  T_OK(t_case_run(&c));
  /* NaN orders above every number (numpy's sort order) */
  cr_assert(isnan(rt_load_f(&c.out[0], 0)));
  cr_assert_eq(rt_load_i(&c.out[1], 0), 1);
  cr_assert_eq(rt_load_i(&c.out[1], 1), 2);
  t_case_free(&c);

  int64_t one = 1;
  c.in[0] = t_tensor_from(IR_F32, 1, &d, (double[]){1, 2, 3});
  c.in[1] = t_tensor_zeros(IR_I64, 1, &one);
  rt_store_i(&c.in[1], 0, 4);
  ir_type ot3[2] = {ir_type_make(IR_F32, 1, &d), ir_type_make(IR_I64, 1, &d)};
  t_case_make(&c, IR_OP_TOPK, 2, ot3, 2);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "k = 4");
  t_case_free(&c);
}

/* ---- cumsum ------------------------------------------------------------------ */

static void cumsum_case(ir_dtype dt, int axis_attr, bool exclusive, bool reverse, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  const int64_t dims[3] = {3, 4, 5};
  int axis = axis_attr < 0 ? axis_attr + 3 : axis_attr;
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, 3, dims, -20, 20);
  ir_type ot = ir_type_make(dt, 3, dims);
  t_case_make(&c, IR_OP_CUMSUM, 1, &ot, 1);
  if (axis_attr) T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, axis_attr));
  if (exclusive) T_OK(ir_node_set_int(c.g, c.n, IR_A_EXCLUSIVE, 1));
  if (reverse) T_OK(ir_node_set_int(c.g, c.n, IR_A_REVERSE, 1));
  T_OK(t_case_run(&c));
  rt_tensor want = t_tensor_zeros(dt, 3, dims);
  int64_t idx[3], src[3];
  for (int64_t i = 0; i < 60; i++) {
    idx[0] = i / 20;
    idx[1] = i / 5 % 4;
    idx[2] = i % 5;
    double sf = 0;
    int64_t si = 0;
    for (int64_t j = 0; j < dims[axis]; j++) {
      bool in = reverse ? (exclusive ? j > idx[axis] : j >= idx[axis])
                        : (exclusive ? j < idx[axis] : j <= idx[axis]);
      if (!in) continue;
      memcpy(src, idx, sizeof src);
      src[axis] = j;
      int64_t f = (src[0] * 4 + src[1]) * 5 + src[2];
      sf += rt_load_f(&c.in[0], f);
      si += rt_load_i(&c.in[0], f);
    }
    if (ir_dtype_is_float(dt)) rt_store_f(&want, i, sf);
    else rt_store_i(&want, i, si);
  }
  t_assert_close(&c.out[0], &want, dt == IR_F16 ? 2e-3 : 1e-6, dt == IR_F16 ? 2e-2 : 1e-5);
  rt_tensor_free(&want);
  t_case_free(&c);
}

Test(cumsum, all_combinations_and_axes) {
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I32, IR_I64};
  const int axes[] = {0, 1, 2, -1};
  uint64_t seed = 300;
  for (int t = 0; t < 4; t++)
    for (int a = 0; a < 4; a++)
      for (int ex = 0; ex < 2; ex++)
        for (int rv = 0; rv < 2; rv++) cumsum_case(dts[t], axes[a], ex, rv, seed++);
}

Test(cumsum, hand_worked) {
  int64_t d = 3;
  const double want[4][3] = {{1, 3, 6}, {0, 1, 3}, {6, 5, 3}, {5, 3, 0}};
  for (int m = 0; m < 4; m++) {
    t_case c = {0};
    c.in[0] = t_tensor_from(IR_I32, 1, &d, (double[]){1, 2, 3});
    ir_type ot = ir_type_make(IR_I32, 1, &d);
    t_case_make(&c, IR_OP_CUMSUM, 1, &ot, 1);
    T_OK(ir_node_set_int(c.g, c.n, IR_A_EXCLUSIVE, m & 1));
    T_OK(ir_node_set_int(c.g, c.n, IR_A_REVERSE, m >> 1));
    T_OK(t_case_run(&c));
    for (int i = 0; i < 3; i++)
      cr_assert_eq(rt_load_i(&c.out[0], i), (int64_t)want[m][i], "mode %d [%d]", m, i);
    t_case_free(&c);
  }
}

/* ---- non_max_suppression ------------------------------------------------------- */

typedef struct nms_spec {
  int64_t b, c, n;
  const double *boxes, *scores;
  int center;
  int64_t max_out;
  float iou;
  bool has_score;
  float score;
} nms_spec;

static void nms_check(const nms_spec *s, int n_want, const int64_t (*want)[3]) {
  t_case c = {0};
  int64_t bd[3] = {s->b, s->n, 4}, sd[3] = {s->b, s->c, s->n};
  c.in[0] = t_tensor_from(IR_F32, 3, bd, s->boxes);
  c.in[1] = t_tensor_from(IR_F32, 3, sd, s->scores);
  int64_t per = s->max_out < s->n ? s->max_out : s->n;
  int64_t od[2] = {s->b * s->c * (per > 0 ? per : 0), 3};
  ir_type ot = ir_type_make(IR_I64, 2, od);
  t_case_make(&c, IR_OP_NON_MAX_SUPPRESSION, 2, &ot, 1);
  if (s->center) T_OK(ir_node_set_int(c.g, c.n, IR_A_CENTER_POINT_BOX, 1));
  T_OK(ir_node_set_int(c.g, c.n, IR_A_MAX_OUTPUT_BOXES, s->max_out));
  T_OK(ir_node_set_float(c.g, c.n, IR_A_IOU_THRESHOLD, s->iou));
  if (s->has_score) T_OK(ir_node_set_float(c.g, c.n, IR_A_SCORE_THRESHOLD, s->score));
  T_OK(t_case_run(&c));
  cr_assert_eq(c.out[0].rank, 2);
  cr_assert_eq(c.out[0].dims[1], 3);
  cr_assert_eq(c.out[0].dims[0], n_want, "selected %lld rows, want %d",
               (long long)c.out[0].dims[0], n_want);
  for (int i = 0; i < n_want; i++)
    for (int j = 0; j < 3; j++)
      cr_assert_eq(rt_load_i(&c.out[0], i * 3 + j), want[i][j], "row %d col %d: %lld vs %lld",
                   i, j, (long long)rt_load_i(&c.out[0], i * 3 + j), (long long)want[i][j]);
  t_case_free(&c);
}

static const double boxes6[24] = {0, 0, 1, 1,  0, 0.1, 1, 1.1,  0, -0.1, 1, 0.9,
                                  0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101};
static const double scores6[6] = {0.9, 0.75, 0.6, 0.95, 0.5, 0.3};

Test(nms, onnx_cases) {
  const int64_t w305[3][3] = {{0, 0, 3}, {0, 0, 0}, {0, 0, 5}};
  nms_spec s = {1, 1, 6, boxes6, scores6, 0, 3, 0.5f, true, 0.0f};
  nms_check(&s, 3, w305); /* suppress by IoU */

  const double flipped[24] = {1, 1, 0, 0,  0, 0.1, 1, 1.1,  0, 0.9, 1, -0.1,
                              0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100};
  s.boxes = flipped;
  nms_check(&s, 3, w305);

  const double centers[24] = {0.5, 0.5, 1, 1,  0.5, 0.6, 1, 1,  0.5, 0.4, 1, 1,
                              0.5, 10.5, 1, 1, 0.5, 10.6, 1, 1, 0.5, 100.5, 1, 1};
  s.boxes = centers;
  s.center = 1;
  nms_check(&s, 3, w305);

  s = (nms_spec){1, 1, 6, boxes6, scores6, 0, 3, 0.5f, true, 0.4f};
  nms_check(&s, 2, w305); /* score threshold drops box 5 */
  s = (nms_spec){1, 1, 6, boxes6, scores6, 0, 2, 0.5f, false, 0};
  nms_check(&s, 2, w305); /* output limit */
  s = (nms_spec){1, 1, 6, boxes6, scores6, 0, 0, 0.5f, false, 0};
  nms_check(&s, 0, w305); /* max_output_boxes_per_class 0: nothing */

  /* two batches */
  double b2[48], s2[12];
  memcpy(b2, boxes6, sizeof boxes6);
  memcpy(b2 + 24, boxes6, sizeof boxes6);
  memcpy(s2, scores6, sizeof scores6);
  memcpy(s2 + 6, scores6, sizeof scores6);
  const int64_t wb[4][3] = {{0, 0, 3}, {0, 0, 0}, {1, 0, 3}, {1, 0, 0}};
  s = (nms_spec){2, 1, 6, b2, s2, 0, 2, 0.5f, true, 0.0f};
  nms_check(&s, 4, wb);
  /* two classes */
  const int64_t wc[4][3] = {{0, 0, 3}, {0, 0, 0}, {0, 1, 3}, {0, 1, 0}};
  s = (nms_spec){1, 2, 6, boxes6, s2, 0, 2, 0.5f, true, 0.0f};
  nms_check(&s, 4, wc);

  /* identical boxes: the first of the equal scores survives */
  double same[40], ss[10];
  for (int i = 0; i < 10; i++) {
    same[i * 4 + 0] = 0, same[i * 4 + 1] = 0, same[i * 4 + 2] = 1, same[i * 4 + 3] = 1;
    ss[i] = 0.9;
  }
  const int64_t w0[1][3] = {{0, 0, 0}};
  s = (nms_spec){1, 1, 10, same, ss, 0, 3, 0.5f, false, 0};
  nms_check(&s, 1, w0);
  /* a single box */
  s = (nms_spec){1, 1, 1, boxes6, scores6, 0, 3, 0.5f, false, 0};
  nms_check(&s, 1, w0);
}

Test(nms, strict_thresholds) {
  /* IoU exactly 0.5 does not suppress at threshold 0.5 (strict '>') */
  const double bx[8] = {0, 0, 1, 2, 0, 0, 1, 1};
  const double sc[2] = {0.9, 0.8};
  const int64_t both[2][3] = {{0, 0, 0}, {0, 0, 1}};
  nms_spec s = {1, 1, 2, bx, sc, 0, 5, 0.5f, false, 0};
  nms_check(&s, 2, both);
  s.iou = 0.49f;
  nms_check(&s, 1, both);
  /* a score equal to the threshold is dropped (strict '>') */
  const double bx2[8] = {0, 0, 1, 1, 5, 5, 6, 6};
  const double sc2[2] = {0.5, 0.75};
  const int64_t w1[1][3] = {{0, 0, 1}};
  s = (nms_spec){1, 1, 2, bx2, sc2, 0, 5, 0.5f, true, 0.5f};
  nms_check(&s, 1, w1);
  /* a NaN score is never selected */
  const double sc_nan[2] = {NAN, 0.75};
  s = (nms_spec){1, 1, 2, bx2, sc_nan, 0, 5, 0.5f, false, 0};
  nms_check(&s, 1, w1);
  /* iou_threshold 0 (default): any overlap suppresses, touching does not */
  const double bx3[12] = {0, 0, 1, 1, 0, 0.99, 1, 2, 0, 1, 1, 2};
  const double sc3[3] = {0.9, 0.8, 0.7};
  const int64_t w02[2][3] = {{0, 0, 0}, {0, 0, 2}};
  s = (nms_spec){1, 1, 3, bx3, sc3, 0, 5, 0.0f, false, 0};
  nms_check(&s, 2, w02);
}

Test(nms, multi_batch_multi_class_order) {
  /* disjoint boxes: selection order is score order, ties by index */
  const double bx[24] = {0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5,
                         0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5};
  const double sc[12] = {0.1, 0.9, 0.5, 0.7, 0.2, 0.8, 0.3, 0.3, 0.6, 0.05, 0.6, 0.4};
  const int64_t want[10][3] = {{0, 0, 1}, {0, 0, 2}, {0, 1, 2}, {0, 1, 0}, {0, 1, 1},
                               {1, 0, 2}, {1, 0, 0}, {1, 0, 1}, {1, 1, 1}, {1, 1, 2}};
  nms_spec s = {2, 2, 3, bx, sc, 0, 3, 0.5f, true, 0.1f};
  nms_check(&s, 10, want);
  const int64_t want2[8][3] = {{0, 0, 1}, {0, 0, 2}, {0, 1, 2}, {0, 1, 0},
                               {1, 0, 2}, {1, 0, 0}, {1, 1, 1}, {1, 1, 2}};
  s = (nms_spec){2, 2, 3, bx, sc, 0, 2, 0.5f, false, 0};
  nms_check(&s, 8, want2);
}

Test(nms, capacity_is_checked) {
  t_case c = {0};
  int64_t bd[3] = {1, 6, 4}, sd[3] = {1, 1, 6}, od[2] = {1, 3};
  c.in[0] = t_tensor_from(IR_F32, 3, bd, boxes6);
  c.in[1] = t_tensor_from(IR_F32, 3, sd, scores6);
  ir_type ot = ir_type_make(IR_I64, 2, od);
  t_case_make(&c, IR_OP_NON_MAX_SUPPRESSION, 2, &ot, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_MAX_OUTPUT_BOXES, 3));
  T_OK(ir_node_set_float(c.g, c.n, IR_A_IOU_THRESHOLD, 0.5f));
  t_expect_error(t_case_run(&c), VKML_CODE_INTERNAL, "more than 1");
  t_case_free(&c);
}

/* Many candidates (the kernel's grid path) against a plain greedy NMS
 * written here from the spec (score order, ties by index; suppressed by a
 * kept box when IoU > threshold, in float as onnxruntime): boxes spread in
 * class-offset groups (torchvision's batched NMS), clustered in one small
 * region, with zero-area and corner-flipped boxes, sparse over a large
 * region; thresholds 0, 0.3 and
 * 0.7; max_output_boxes_per_class limiting or not. */
static bool plain_suppress(const float *a, const float *b, float thr) {
  float ax0 = fminf(a[1], a[3]), ax1 = fmaxf(a[1], a[3]), ay0 = fminf(a[0], a[2]),
        ay1 = fmaxf(a[0], a[2]);
  float bx0 = fminf(b[1], b[3]), bx1 = fmaxf(b[1], b[3]), by0 = fminf(b[0], b[2]),
        by1 = fmaxf(b[0], b[2]);
  float iw = fminf(ax1, bx1) - fmaxf(ax0, bx0), ih = fminf(ay1, by1) - fmaxf(ay0, by0);
  if (iw <= 0 || ih <= 0) return false;
  float inter = iw * ih, aa = (ax1 - ax0) * (ay1 - ay0), ab = (bx1 - bx0) * (by1 - by0);
  float uni = aa + ab - inter;
  if (aa <= 0 || ab <= 0 || uni <= 0) return false;
  return inter / uni > thr;
}

Test(nms, many_candidates_equal_a_plain_greedy) {
  enum { N = 1500 };
  static double bx[N * 4], sc[N];
  static float fb[N * 4];
  static int64_t want[N][3];
  t_rng r = t_rng_make(33);
  for (int layout = 0; layout < 4; layout++) {
    /* 0 class-offset groups, 1 one cluster, 2 a cluster with zero-area and
     * flipped boxes, 3 small boxes sparse over a large region (most cells
     * hold a few boxes: every span of cells matters) */
    double span = layout == 0 ? 300 : layout == 3 ? 1200 : 100;
    double size = layout == 0 ? 150 : layout == 3 ? 30 : 40;
    for (int i = 0; i < N; i++) {
      double u[6];
      for (int k = 0; k < 6; k++) u[k] = (double)(t_rng_next(&r) % 1000000) / 1e6;
      double x = (layout == 0 ? (i % 12) * 1000.0 : 0) + u[0] * span;
      double y = u[1] * span;
      double w = layout == 2 && i % 7 == 0 ? 0 : 5 + u[2] * size;
      double h = 5 + u[3] * size;
      bool flip = layout == 2 && i % 5 == 0;
      bx[i * 4 + 0] = flip ? y + h : y, bx[i * 4 + 1] = flip ? x + w : x;
      bx[i * 4 + 2] = flip ? y : y + h, bx[i * 4 + 3] = flip ? x : x + w;
      sc[i] = (double)(t_rng_next(&r) % 5000) / 5000.0; /* ties */
      for (int k = 0; k < 4; k++) fb[i * 4 + k] = (float)bx[i * 4 + k];
    }
    const float thr[3] = {0.0f, 0.3f, 0.7f};
    for (int t = 0; t < 3; t++) {
      for (int lim = 0; lim < 2; lim++) {
        int64_t max_out = lim ? 50 : N;
        /* the plain greedy: candidates in score order (ties by index) */
        int order[N], kept[N], n_kept = 0;
        for (int i = 0; i < N; i++) order[i] = i;
        for (int i = 1; i < N; i++) /* insertion sort: stable, score descending */
          for (int j = i; j > 0 && (float)sc[order[j]] > (float)sc[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
          }
        for (int j = 0; j < N && n_kept < max_out; j++) {
          bool keep = true;
          for (int q = 0; q < n_kept && keep; q++)
            keep = !plain_suppress(&fb[kept[q] * 4], &fb[order[j] * 4], thr[t]);
          if (keep) kept[n_kept++] = order[j];
        }
        for (int q = 0; q < n_kept; q++) {
          want[q][0] = 0;
          want[q][1] = 0;
          want[q][2] = kept[q];
        }
        cr_assert_gt(n_kept, 10);
        nms_spec s = {1, 1, N, bx, sc, 0, max_out, thr[t], false, 0};
        nms_check(&s, n_kept, (const int64_t(*)[3])want);
      }
    }
  }
}

/* ---- roi_align -------------------------------------------------------------------- */

typedef struct roi_spec {
  int64_t n, ch, oh, ow, sampling;
  bool max_mode, output_half_pixel;
  float scale;
} roi_spec;

/* x[n][c][h][w] = 4h + w + 100c + 1000n on a 4x4 map: linear, so avg pooling
 * of in-map samples is the value at the mean sample position. */
static void roi_check(ir_dtype dt, const roi_spec *s, int64_t n_roi, const double *rois,
                      const int64_t *batch, const double *want) {
  t_case c = {0};
  int64_t xd[4] = {s->n, s->ch, 4, 4}, rd[2] = {n_roi, 4};
  c.in[0] = t_tensor_zeros(dt, 4, xd);
  for (int64_t i = 0; i < s->n * s->ch * 16; i++)
    rt_store_f(&c.in[0], i, 4 * (i / 4 % 4) + i % 4 + 100 * (i / 16 % s->ch) + 1000 * (i / (16 * s->ch)));
  c.in[1] = t_tensor_from(IR_F32, 2, rd, rois);
  c.in[2] = t_tensor_zeros(IR_I64, 1, &n_roi);
  for (int64_t i = 0; i < n_roi; i++) rt_store_i(&c.in[2], i, batch[i]);
  int64_t od[4] = {n_roi, s->ch, s->oh, s->ow};
  ir_type ot = ir_type_make(dt, 4, od);
  t_case_make(&c, IR_OP_ROI_ALIGN, 3, &ot, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_OUTPUT_HEIGHT, s->oh));
  T_OK(ir_node_set_int(c.g, c.n, IR_A_OUTPUT_WIDTH, s->ow));
  T_OK(ir_node_set_int(c.g, c.n, IR_A_SAMPLING_RATIO, s->sampling));
  if (s->max_mode) T_OK(ir_node_set_enum(c.g, c.n, IR_A_ROI_MODE, IR_ROI_MAX));
  if (s->output_half_pixel)
    T_OK(ir_node_set_enum(c.g, c.n, IR_A_COORD_MODE, IR_COORD_OUTPUT_HALF_PIXEL));
  if (s->scale != 1) T_OK(ir_node_set_float(c.g, c.n, IR_A_SPATIAL_SCALE, s->scale));
  T_OK(t_case_run(&c));
  int64_t n = n_roi * s->ch * s->oh * s->ow;
  double tol = dt == IR_F16 ? 0.5 : 1e-4;
  for (int64_t i = 0; i < n; i++)
    cr_assert(fabs(rt_load_f(&c.out[0], i) - want[i]) <= tol, "[%lld]: got %.9g want %.9g",
              (long long)i, rt_load_f(&c.out[0], i), want[i]);
  t_case_free(&c);
}

Test(roi_align, avg_hand_worked) {
  const double roi_a[4] = {0.5, 0.5, 2.5, 2.5}; /* x1 y1 x2 y2 */
  const int64_t b0[1] = {0};
  const double want_a[4] = {2.5, 3.5, 6.5, 7.5};
  roi_spec s = {1, 1, 2, 2, 2, false, false, 1};
  roi_check(IR_F32, &s, 1, roi_a, b0, want_a);
  roi_check(IR_F16, &s, 1, roi_a, b0, want_a);
  s.sampling = 0; /* ceil(2/2) = 1 sample per bin, at the centre */
  roi_check(IR_F32, &s, 1, roi_a, b0, want_a);

  /* a roi running off the map: samples past the edge clamp, beyond it count
   * as zero; sampling 0 -> 4x4 grid, 2 -> 2x2 grid */
  const double roi_b[4] = {2, 2, 6, 6};
  s = (roi_spec){1, 1, 1, 1, 0, false, false, 1};
  roi_check(IR_F32, &s, 1, roi_b, b0, (double[]){7.5});
  s.sampling = 2;
  roi_check(IR_F32, &s, 1, roi_b, b0, (double[]){3.125});

  /* output_half_pixel: no offset, malformed rois forced to 1x1 */
  const double roi_c[4] = {1, 1, 1.25, 1.25};
  s = (roi_spec){1, 1, 1, 1, 2, false, true, 1};
  roi_check(IR_F32, &s, 1, roi_c, b0, (double[]){7.5});
  s.output_half_pixel = false;
  roi_check(IR_F32, &s, 1, roi_c, b0, (double[]){3.125});
  const double roi_d[4] = {0, 0, 3, 3};
  s = (roi_spec){1, 1, 2, 2, 0, false, true, 1};
  roi_check(IR_F32, &s, 1, roi_d, b0, (double[]){3.75, 5.25, 9.75, 11.25});

  /* spatial_scale */
  const double roi_e[4] = {1, 1, 5, 5};
  s = (roi_spec){1, 1, 2, 2, 2, false, false, 0.5f};
  roi_check(IR_F32, &s, 1, roi_e, b0, want_a);

  /* entirely outside the map: every sample is zero */
  const double roi_f[4] = {-3, -3, -1.5, -1.5};
  s = (roi_spec){1, 1, 1, 1, 2, false, false, 1};
  roi_check(IR_F32, &s, 1, roi_f, b0, (double[]){0});
}

Test(roi_align, max_hand_worked) {
  const int64_t b0[1] = {0};
  const double roi_a[4] = {0.5, 0.5, 2.5, 2.5};
  /* bin (0,0), sample (0.25,0.25): weights 9/16 3/16 3/16 1/16 on 0 1 4 5 ->
   * max 0.75; the four samples give 0.75 0.9375 2.25 2.8125 -> 2.8125 */
  roi_spec s = {1, 1, 2, 2, 2, true, false, 1};
  roi_check(IR_F32, &s, 1, roi_a, b0, (double[]){2.8125, 3.375, 5.0625, 5.625});
  s.sampling = 0; /* one sample at the bin centre: 1/4 of the largest tap */
  roi_check(IR_F32, &s, 1, roi_a, b0, (double[]){1.25, 1.5, 2.25, 2.5});
  const double roi_b[4] = {2, 2, 6, 6};
  s = (roi_spec){1, 1, 1, 1, 2, true, false, 1};
  roi_check(IR_F32, &s, 1, roi_b, b0, (double[]){3.75});
  s.sampling = 0;
  roi_check(IR_F32, &s, 1, roi_b, b0, (double[]){15});
  const double roi_d[4] = {0, 0, 3, 3};
  s = (roi_spec){1, 1, 2, 2, 0, true, true, 1};
  roi_check(IR_F32, &s, 1, roi_d, b0, (double[]){3.828125, 4.59375, 7.109375, 7.65625});
}

Test(roi_align, batches_channels_and_clamping) {
  /* roi 0 reads batch 1, roi 1 batch 0; channel c adds 100c, batch n 1000n.
   * roi 2 lies in [-1, 0): its samples clamp to pixel (0,0). */
  const double rois[12] = {0.5, 0.5, 2.5, 2.5, 0.5, 0.5, 2.5, 2.5, -0.5, -0.5, 0.5, 0.5};
  const int64_t batch[3] = {1, 0, 1};
  double want[3 * 2 * 4];
  const double base[4] = {2.5, 3.5, 6.5, 7.5};
  for (int r = 0; r < 3; r++)
    for (int ch = 0; ch < 2; ch++)
      for (int i = 0; i < 4; i++)
        want[(r * 2 + ch) * 4 + i] = (r == 2 ? 0 : base[i]) + 100 * ch + 1000 * batch[r];
  roi_spec s = {2, 2, 2, 2, 2, false, false, 1};
  roi_check(IR_F32, &s, 3, rois, batch, want);
}

Test(roi_align, bad_inputs) {
  t_case c = {0};
  int64_t xd[4] = {1, 1, 4, 4}, rd[2] = {1, 4}, one = 1, od[4] = {1, 1, 1, 1};
  c.in[0] = t_tensor_zeros(IR_F32, 4, xd);
  c.in[1] = t_tensor_from(IR_F32, 2, rd, (double[]){0, 0, 1, 1});
  c.in[2] = t_tensor_zeros(IR_I64, 1, &one);
  rt_store_i(&c.in[2], 0, 1);
  ir_type ot = ir_type_make(IR_F32, 4, od);
  t_case_make(&c, IR_OP_ROI_ALIGN, 3, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "batch index 1");
  t_case_free(&c);

  c.in[0] = t_tensor_zeros(IR_F32, 4, xd);
  c.in[1] = t_tensor_from(IR_F32, 2, rd, (double[]){0, NAN, 1, 1});
  c.in[2] = t_tensor_zeros(IR_I64, 1, &one);
  t_case_make(&c, IR_OP_ROI_ALIGN, 3, &ot, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_SAMPLING_RATIO, 2));
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "not finite");
  t_case_free(&c);
}
