/* CPU reference kernels: argsort (rows and ragged segments, hand-worked
 * and against a naive stable selection), its GPU stages sort_block,
 * sort_merge and sort_index (chained, equal to argsort for every block
 * width), and non_max_suppression's stages nms_select and nms_compact
 * (equal to the op itself), and topk's selection against a full sort. Bad
 * segment offsets are errors naming the node. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/k_util.h"
#include "tests/support/test_support.h"

static void check_indices(const rt_tensor *got, const int64_t *want, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    cr_assert_eq(rt_load_i(got, i), want[i], "at %lld: got %lld, want %lld", (long long)i,
                 (long long)rt_load_i(got, i), (long long)want[i]);
}

/* NaN above +inf, -0 equal to +0 (ties by index), both directions. */
Test(argsort, hand_worked_rows) {
  int64_t d[2] = {2, 5};
  const double v[10] = {3, NAN, -1, 3, -0.0, 0.0, 2, -INFINITY, 2, NAN};
  const int64_t up[10] = {2, 4, 0, 3, 1, 2, 0, 1, 3, 4};   /* row 1: -inf 0 2 2 NaN */
  const int64_t down[10] = {1, 0, 3, 4, 2, 4, 1, 3, 0, 2}; /* NaN 2 2 0 -inf */
  for (int largest = 0; largest < 2; largest++) {
    t_case c = {0};
    c.in[0] = t_tensor_from(IR_F32, 2, d, v);
    ir_type ot = ir_type_make(IR_I64, 2, d);
    t_case_make(&c, IR_OP_ARGSORT, 1, &ot, 1);
    T_OK(ir_node_set_int(c.g, c.n, IR_A_LARGEST, largest));
    T_OK(t_case_run(&c));
    check_indices(&c.out[0], largest ? down : up, 10);
    t_case_free(&c);
  }
}

/* Offsets [0,2,2,3,6]: segments of 2, 0, 1 and 3; indices within each. */
Test(argsort, hand_worked_segments) {
  int64_t n = 6, s = 5;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_I64, 1, &n, (double[]){9, 4, 7, 5, 5, 1});
  c.in[1] = t_tensor_from(IR_I64, 1, &s, (double[]){0, 2, 2, 3, 6});
  ir_type ot = ir_type_make(IR_I64, 1, &n);
  t_case_make(&c, IR_OP_ARGSORT, 2, &ot, 1);
  T_OK(t_case_run(&c));
  check_indices(&c.out[0], (const int64_t[]){1, 0, 0, 2, 0, 1}, 6);
  t_case_free(&c);
  /* offsets that do not end at n, or decrease */
  const double bad[2][5] = {{0, 2, 2, 3, 5}, {0, 3, 2, 3, 6}};
  for (int b = 0; b < 2; b++) {
    t_case e = {0};
    e.in[0] = t_tensor_from(IR_F32, 1, &n, (double[]){9, 4, 7, 5, 5, 1});
    e.in[1] = t_tensor_from(IR_I64, 1, &s, bad[b]);
    t_case_make(&e, IR_OP_ARGSORT, 2, &ot, 1);
    t_expect_error(t_case_run(&e), VKML_CODE_INVALID_ARGUMENT, "segment offsets");
    t_case_free(&e);
  }
}

/* One node of op on ins (taken), attributes width/largest/shape as given. */
static rt_tensor run1(ir_op op, rt_tensor *ins, int n_in, const ir_type *ot, int64_t width,
                      int largest, const int64_t *shape, int rank) {
  t_case c = {0};
  for (int i = 0; i < n_in; i++) c.in[i] = ins[i];
  t_case_make(&c, op, n_in, ot, 1);
  if (width) T_OK(ir_node_set_int(c.g, c.n, IR_A_WIDTH, width));
  if (largest >= 0) T_OK(ir_node_set_int(c.g, c.n, IR_A_LARGEST, largest));
  if (shape) T_OK(ir_node_set_ints(c.g, c.n, IR_A_SHAPE, shape, rank));
  T_OK(t_case_run(&c));
  rt_tensor out = c.out[0];
  c.out[0] = (rt_tensor){0};
  for (int i = 0; i < n_in; i++) c.in[i] = (rt_tensor){0};
  t_case_free(&c);
  return out;
}

static rt_tensor copy_of(const rt_tensor *t) {
  rt_tensor c;
  T_OK(rt_tensor_alloc_dims(t->dtype, t->rank, t->dims, &c));
  memcpy(c.data, t->data, rt_tensor_bytes(t));
  return c;
}

/* The stages chained as pass_split_sort chains them equal argsort, ragged
 * segments over 700 elements of few values, blocks of 1 to 1024. */
Test(argsort, stages_equal_argsort) {
  t_rng r = t_rng_make(5);
  int64_t n = 700, s = 41;
  rt_tensor x = t_tensor_random(&r, IR_F32, 1, &n, -1, 1), offs = t_tensor_zeros(IR_I64, 1, &s);
  for (int64_t i = 0; i < n; i++) rt_store_f(&x, i, i % 13 == 0 ? NAN : (double)(t_rng_next(&r) % 6));
  for (int64_t i = 1; i < s - 1; i++) rt_store_i(&offs, i, rt_load_i(&offs, i - 1) + (int64_t)(t_rng_next(&r) % 30));
  rt_store_i(&offs, s - 1, n);
  for (int largest = 0; largest < 2; largest++) {
    ir_type it = ir_type_make(IR_I64, 1, &n);
    rt_tensor ins[2] = {copy_of(&x), copy_of(&offs)};
    rt_tensor want = run1(IR_OP_ARGSORT, ins, 2, &it, 0, largest, NULL, 0);
    rt_tensor_free(&ins[0]);
    rt_tensor_free(&ins[1]);
    for (int64_t w = 1; w <= 1024; w *= 4) {
      int64_t sd[2] = {3, n};
      ir_type st = ir_type_make(IR_I32, 2, sd);
      rt_tensor bins[2] = {copy_of(&x), copy_of(&offs)};
      rt_tensor cur = run1(IR_OP_SORT_BLOCK, bins, 2, &st, w, largest, NULL, 0);
      rt_tensor_free(&bins[0]);
      rt_tensor_free(&bins[1]);
      for (int64_t m = w; m < n; m *= 2) {
        rt_tensor next = run1(IR_OP_SORT_MERGE, &cur, 1, &st, m, -1, NULL, 0);
        rt_tensor_free(&cur);
        cur = next;
      }
      rt_tensor iins[2] = {cur, copy_of(&offs)};
      rt_tensor got = run1(IR_OP_SORT_INDEX, iins, 2, &it, 0, -1, &n, 1);
      cr_assert_eq(memcmp(got.data, want.data, rt_tensor_bytes(&want)), 0, "width %lld",
                   (long long)w);
      rt_tensor_free(&iins[0]);
      rt_tensor_free(&iins[1]);
      rt_tensor_free(&got);
    }
    rt_tensor_free(&want);
  }
  rt_tensor_free(&x);
  rt_tensor_free(&offs);
}

/* Rows: blocks and runs from each row's start (merge attribute row), the
 * rounds until a run holds a row, equal argsort along the last axis. */
Test(argsort, row_stages_equal_argsort) {
  t_rng r = t_rng_make(6);
  int64_t d[2] = {3, 700}, sd[2] = {3, 2100};
  rt_tensor x = t_tensor_random(&r, IR_I32, 2, d, -4, 4);
  ir_type it = ir_type_make(IR_I64, 2, d), st = ir_type_make(IR_I32, 2, sd);
  rt_tensor in1[1] = {copy_of(&x)};
  rt_tensor want = run1(IR_OP_ARGSORT, in1, 1, &it, 0, 1, NULL, 0);
  rt_tensor_free(&in1[0]);
  for (int64_t w = 64; w <= 1024; w *= 4) {
    rt_tensor bin[1] = {copy_of(&x)};
    rt_tensor cur = run1(IR_OP_SORT_BLOCK, bin, 1, &st, w, 1, NULL, 0);
    rt_tensor_free(&bin[0]);
    for (int64_t m = w; m < 700; m *= 2) {
      t_case c = {0};
      c.in[0] = cur;
      t_case_make(&c, IR_OP_SORT_MERGE, 1, &st, 1);
      T_OK(ir_node_set_int(c.g, c.n, IR_A_WIDTH, m));
      T_OK(ir_node_set_int(c.g, c.n, IR_A_ROW, 700));
      T_OK(t_case_run(&c));
      cur = c.out[0];
      c.out[0] = (rt_tensor){0};
      t_case_free(&c);
    }
    rt_tensor got = run1(IR_OP_SORT_INDEX, &cur, 1, &it, 0, -1, d, 2);
    cr_assert_eq(memcmp(got.data, want.data, rt_tensor_bytes(&want)), 0, "width %lld",
                 (long long)w);
    rt_tensor_free(&cur);
    rt_tensor_free(&got);
  }
  rt_tensor_free(&want);
  rt_tensor_free(&x);
}

/* nms_select on the argsort of the scores, then nms_compact, equal
 * non_max_suppression: boxes in clusters, scores with ties and NaN. */
Test(nms_stages, equal_the_op) {
  t_rng r = t_rng_make(8);
  int64_t bd[3] = {2, 300, 4}, sd[3] = {2, 3, 300}, per = 20;
  rt_tensor boxes = t_tensor_random(&r, IR_F32, 3, bd, 0, 1), scores = t_tensor_random(&r, IR_F32, 3, sd, 0, 1);
  for (int64_t i = 0; i < 600; i++) {
    double cx = (double)(t_rng_next(&r) % 5) * 10, cy = (double)(t_rng_next(&r) % 5) * 10;
    double v[4] = {cy, cx, cy + t_rng_uniform(&r, 4, 12), cx + t_rng_uniform(&r, 4, 12)};
    for (int k = 0; k < 4; k++) rt_store_f(&boxes, i * 4 + k, v[k]);
  }
  for (int64_t i = 0; i < 1800; i++)
    rt_store_f(&scores, i, i % 31 == 0 ? NAN : (double)(t_rng_next(&r) % 9) / 9);
  int64_t cap_d[2] = {2 * 3 * per, 3};
  ir_type cap = ir_type_make(IR_I64, 2, cap_d);
  cap.bounded = true;
  cap.bounded_axis = 0;
  t_case c = {0};
  c.in[0] = copy_of(&boxes);
  c.in[1] = copy_of(&scores);
  t_case_make(&c, IR_OP_NON_MAX_SUPPRESSION, 2, &cap, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_MAX_OUTPUT_BOXES, per));
  T_OK(ir_node_set_float(c.g, c.n, IR_A_IOU_THRESHOLD, 0.4f));
  T_OK(ir_node_set_float(c.g, c.n, IR_A_SCORE_THRESHOLD, 0.2f));
  T_OK(t_case_run(&c));
  cr_assert_gt(c.out[0].dims[0], 20);

  ir_type ot = ir_type_make(IR_I64, 3, sd);
  rt_tensor sins[1] = {copy_of(&scores)};
  rt_tensor order = run1(IR_OP_ARGSORT, sins, 1, &ot, 0, 1, NULL, 0);
  rt_tensor_free(&sins[0]);
  t_case s = {0};
  s.in[0] = boxes;
  s.in[1] = scores;
  s.in[2] = order;
  int64_t seld[3] = {2, 3, per};
  ir_type selt = ir_type_make(IR_I32, 3, seld);
  t_case_make(&s, IR_OP_NMS_SELECT, 3, &selt, 1);
  T_OK(ir_node_set_int(s.g, s.n, IR_A_MAX_OUTPUT_BOXES, per));
  T_OK(ir_node_set_float(s.g, s.n, IR_A_IOU_THRESHOLD, 0.4f));
  T_OK(ir_node_set_float(s.g, s.n, IR_A_SCORE_THRESHOLD, 0.2f));
  T_OK(t_case_run(&s));
  rt_tensor sel = s.out[0];
  s.out[0] = (rt_tensor){0};
  t_case_free(&s);
  rt_tensor got = run1(IR_OP_NMS_COMPACT, &sel, 1, &cap, 0, -1, NULL, 0);
  cr_assert_eq(got.dims[0], c.out[0].dims[0]);
  cr_assert_eq(memcmp(got.data, c.out[0].data, rt_tensor_bytes(&got)), 0);
  rt_tensor_free(&sel);
  rt_tensor_free(&got);
  t_case_free(&c);
}

/* non_zero: numpy's positions (NaN counts, -0 does not), row-major; its
 * stages (flags, an exclusive cumsum, the write) give the same. */
Test(non_zero, hand_worked_and_stages) {
  int64_t d[2] = {2, 3};
  const double v[6] = {0, NAN, -0.0, 3, 0, -2};
  int64_t cap[2] = {2, 6};
  ir_type ot = ir_type_make(IR_I64, 2, cap);
  ot.bounded = true;
  ot.bounded_axis = 1;
  rt_tensor in1[1] = {t_tensor_from(IR_F32, 2, d, v)};
  rt_tensor want = run1(IR_OP_NON_ZERO, in1, 1, &ot, 0, -1, NULL, 0);
  cr_assert_eq(want.dims[1], 3);
  check_indices(&want, (const int64_t[]){0, 1, 1, 1, 0, 2}, 6);
  int64_t n = 6;
  ir_type ft = ir_type_make(IR_I32, 1, &n);
  rt_tensor fin[1] = {copy_of(&in1[0])};
  rt_tensor flags = run1(IR_OP_NONZERO_FLAGS, fin, 1, &ft, 0, -1, NULL, 0);
  rt_tensor_free(&fin[0]);
  t_case c = {0};
  c.in[0] = flags;
  t_case_make(&c, IR_OP_CUMSUM, 1, &ft, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_EXCLUSIVE, 1));
  T_OK(t_case_run(&c));
  rt_tensor win[2] = {in1[0], c.out[0]};
  rt_tensor got = run1(IR_OP_NONZERO_WRITE, win, 2, &ot, 0, -1, NULL, 0);
  cr_assert_eq(got.dims[1], 3);
  cr_assert_eq(memcmp(got.data, want.data, rt_tensor_bytes(&want)), 0);
  t_case_free(&c);
  rt_tensor_free(&in1[0]);
  rt_tensor_free(&got);
  rt_tensor_free(&want);
}

/* rt_order_select (topk's selection) against a full sort: every k of rows
 * with many ties, NaN and -0, both orders, sizes around the quickselect's
 * cut-offs, and an already sorted row (the pivots' worst case). */
Test(order_select, equals_a_full_sort) {
  t_rng r = t_rng_make(17);
  const int64_t sizes[] = {1, 5, 17, 40, 257, 1000};
  for (int si = 0; si < 6; si++) {
    int64_t n = sizes[si];
    rt_order_item *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n),
                  *c = malloc(sizeof *c * (size_t)n);
    cr_assert(a && b && c);
    for (int pattern = 0; pattern < 3; pattern++) {
      for (int64_t i = 0; i < n; i++) {
        uint64_t u = t_rng_next(&r);
        double f = pattern == 2 ? (double)i : (double)(u % 7) - 3; /* ties */
        if (pattern == 1 && u % 11 == 0) f = NAN;
        if (pattern == 1 && u % 13 == 0) f = -0.0;
        a[i] = (rt_order_item){.is_float = true, .f = f, .index = i};
      }
      for (int largest = 0; largest < 2; largest++) {
        int (*cmp)(const void *, const void *) =
            largest ? rt_order_cmp_largest : rt_order_cmp_smallest;
        memcpy(b, a, sizeof *a * (size_t)n);
        qsort(b, (size_t)n, sizeof *b, cmp);
        for (int64_t k = 0; k <= n; k += k < 20 ? 1 : n / 7 + 1) {
          memcpy(c, a, sizeof *a * (size_t)n);
          rt_order_select(c, n, k, cmp);
          for (int64_t i = 0; i < k; i++)
            cr_assert_eq(c[i].index, b[i].index, "n %lld k %lld pattern %d largest %d at %lld",
                         (long long)n, (long long)k, pattern, largest, (long long)i);
        }
      }
    }
    free(a);
    free(b);
    free(c);
  }
}
