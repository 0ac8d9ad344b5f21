/* non_max_suppression over one bounded row (boxes [1,<=N,4], scores
 * [1,1,<=N]: batched NMS as torchvision exports it, classes kept apart by
 * coordinate offsets) runs on the GPU as nms_keys, an argsort, nms_prep,
 * nms_round, nms_settle and nms_finish (codegen/glsl/nms_window.comp),
 * every step on the device, and selects exactly what the CPU's non_max_suppression does:
 * clustered boxes (chains of suppression across rounds), tied scores, NaN scores, boxes with infinite coordinates and
 * none at all, corners in either order and center boxes, a score threshold
 * or none, max_output_boxes_per_class cutting the output, counts from 0 to
 * the capacity through one executor. The stages' CPU kernels chained by
 * hand agree with it too; boxes and scores of different counts are an
 * error found on the GPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

enum { CLASSES = 7 };

/* n batched boxes: a class each, around one of a few centres of the class,
 * offset by 101 per class; scores in steps of 1/64 (ties), some NaN. */
static void row_inputs(t_rng *r, ir_dtype dt, int64_t n, bool center, rt_tensor in[2]) {
  int64_t bd[3] = {1, n, 4}, sd[3] = {1, 1, n};
  in[0] = t_tensor_zeros(dt, 3, bd);
  in[1] = t_tensor_zeros(dt, 3, sd);
  for (int64_t i = 0; i < n; i++) {
    int c = (int)(t_rng_next(r) % CLASSES), k = (int)(t_rng_next(r) % 3);
    double off = 101.0 * c, cx = 20 + 30 * k + t_rng_uniform(r, -4, 4) + off,
           cy = 50 + 10 * k + t_rng_uniform(r, -4, 4) + off, w = t_rng_uniform(r, 6, 30),
           h = t_rng_uniform(r, 6, 30);
    double v[4];
    if (center) {
      v[0] = cx, v[1] = cy, v[2] = w, v[3] = h;
    } else {
      bool swap = t_rng_next(r) % 4 == 0;
      v[0] = cy - h / 2, v[1] = cx - w / 2, v[2] = cy + h / 2, v[3] = cx + w / 2;
      if (swap) {
        double t = v[0];
        v[0] = v[2], v[2] = t;
      }
    }
    if (i % 53 == 7) v[1] = INFINITY; /* never overlaps, kept if a candidate */
    if (i % 61 == 3) v[2] = v[0];     /* no area */
    for (int j = 0; j < 4; j++) rt_store_f(&in[0], i * 4 + j, v[j]);
    double s = (double)(t_rng_next(r) % 64) / 64;
    rt_store_f(&in[1], i, i % 41 == 11 ? NAN : s);
  }
}

static char *row_graph(ir_dtype dt, int64_t cap, int64_t max_out, float iou, const char *st,
                       bool center, int64_t *out_cap) {
  static char text[1024];
  char sth[64] = "";
  if (st) snprintf(sth, sizeof sth, ", score_threshold=%s", st);
  const char *tn = ir_dtype_name(dt);
  *out_cap = max_out < cap ? max_out : cap;
  snprintf(text, sizeof text,
           "vkir 1\ngraph @nms(%%b: %s[1,<=%lld,4], %%s: %s[1,1,<=%lld]) -> "
           "(%%o: i64[<=%lld,3]) {\n"
           "  %%o = non_max_suppression %%b, %%s {center_point_box=%d, "
           "max_output_boxes_per_class=%lld, iou_threshold=%.9g%s} : i64[<=%lld,3]\n"
           "  return %%o\n}\n",
           tn, (long long)cap, tn, (long long)cap, (long long)*out_cap, center,
           (long long)max_out, (double)iou, sth, (long long)*out_cap);
  return text;
}

/* One compiled graph, all on the GPU, run at several counts against the
 * CPU reference. */
static void check_row(vt_env *e, ir_dtype dt, int64_t cap, int64_t max_out, float iou,
                      const char *st, bool center, const int64_t *counts, int n_counts,
                      uint64_t seed) {
  int64_t out_cap;
  const char *text = row_graph(dt, cap, max_out, iou, st, center, &out_cap);
  ir_graph *ref = vt_parse(text);
  ir_plan *p = vt_compile(e->t, e->cc, vt_parse(text), NULL, IR_PRECISION_FP32);
  int rounds = 0, settles = 0;
  for (int i = 0; i < p->n_steps; i++) {
    cr_assert_eq(p->steps[i].device, IR_DEVICE_GPU, "step %d: %s", i,
                 ir_plan_str(p, p->steps[i].reason));
    ir_foreach_node(p->graph, m) if (m->id == p->steps[i].node) {
      rounds += m->op == IR_OP_NMS_ROUND;
      settles += m->op == IR_OP_NMS_SETTLE;
    }
  }
  cr_assert(rounds > 0 && settles == 1, "%d nms_round steps, %d nms_settle", rounds, settles);
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e->ctx, p, NULL, &x));
  t_rng r = t_rng_make(seed);
  for (int c = 0; c < n_counts; c++) {
    rt_tensor in[2], got, want;
    row_inputs(&r, dt, counts[c], center, in);
    T_OK(rt_vk_exec_run(x, in, 2, &got, 1, NULL));
    T_OK(rt_cpu_run_graph(ref, in, 2, &want, 1));
    cr_assert(want.dims[0] > 0 || counts[c] == 0, "count %lld: nothing selected",
              (long long)counts[c]);
    cr_assert(want.dims[0] < counts[c] || counts[c] < 100 || want.dims[0] == out_cap,
              "count %lld: nothing suppressed", (long long)counts[c]);
    vt_assert_equal(&got, &want, 1);
    rt_tensor_free(&in[0]);
    rt_tensor_free(&in[1]);
  }
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(ref);
}

Test(vk_nms_window, batched_rows_select_what_the_cpu_does) {
  vt_env e;
  vt_env_open(&e);
  static const int64_t counts[] = {1500, 0, 1, 37, 2048, 900};
  check_row(&e, IR_F32, 2048, INT64_C(1000000000000000), 0.5f, "0.1", false, counts, 6, 1);
  static const int64_t few[] = {700, 64};
  check_row(&e, IR_F32, 1024, 50, 0.0f, NULL, true, few, 2, 2); /* max_out cuts */
  check_row(&e, IR_F32, 1024, 400, 0.7f, NULL, false, few, 2, 3);
  if (e.t->storage_16bit) check_row(&e, IR_F16, 1024, 1000, 0.45f, "0.2", false, few, 2, 4);
  vt_env_close(&e);
}

Test(vk_nms_window, unequal_counts_are_an_error_on_the_gpu) {
  vt_env e;
  vt_env_open(&e);
  int64_t out_cap;
  const char *text = row_graph(IR_F32, 256, 100, 0.5f, NULL, false, &out_cap);
  ir_plan *p = vt_compile(e.t, e.cc, vt_parse(text), NULL, IR_PRECISION_FP32);
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  t_rng r = t_rng_make(5);
  rt_tensor in[2], more[2], got;
  row_inputs(&r, IR_F32, 40, false, in);
  row_inputs(&r, IR_F32, 50, false, more);
  rt_tensor mixed[2] = {in[0], more[1]};
  t_expect_error(rt_vk_exec_run(x, mixed, 2, &got, 1, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "have 40 and 50 rows at run time");
  for (int i = 0; i < 2; i++) {
    rt_tensor_free(&in[i]);
    rt_tensor_free(&more[i]);
  }
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  vt_env_close(&e);
}

/* The stages' CPU kernels, chained by hand (4 rounds), against
 * non_max_suppression; the first input is the GPU test's first (seed 1,
 * 1500 boxes, capacity 2048): 4 rounds leave boxes undecided there, and
 * split_nms's 2 leave at least as many (Jacobi rounds give the same states
 * on either device), so the GPU's settle has work. */
Test(vk_nms_window, the_stages_on_the_cpu) {
  const char *attrs = "{iou_threshold=0.5, score_threshold=0.1, "
                      "max_output_boxes_per_class=1000000000000000}";
  char chain[4096];
  int at = snprintf(chain, sizeof chain,
                    "vkir 1\ngraph @st(%%b: f32[1,<=2048,4], %%s: f32[1,1,<=2048]) -> "
                    "(%%o: i64[<=2048,3], %%r4: i32[2048]) {\n"
                    "  %%k = nms_keys %%b, %%s %s : f32[1,2,2048]\n"
                    "  %%ord = argsort %%k {largest=1} : i64[1,2,2048]\n"
                    "  %%p = nms_prep %%b, %%s, %%ord %s : i32[5,2049]\n"
                    "  %%r1 = nms_round %%p, %%b, %%s, %%ord, %%p %s : i32[2048]\n",
                    attrs, attrs, attrs);
  for (int r = 2; r <= 4; r++)
    at += snprintf(chain + at, sizeof chain - (size_t)at,
                   "  %%r%d = nms_round %%r%d, %%b, %%s, %%ord, %%p %s : i32[2048]\n", r, r - 1,
                   attrs);
  snprintf(chain + at, sizeof chain - (size_t)at,
           "  %%t = nms_settle %%r4, %%b, %%s, %%ord, %%p %s : i32[2048]\n"
           "  %%o = nms_finish %%t, %%b, %%s, %%ord, %%p %s : i64[<=2048,3]\n"
           "  return %%o, %%r4\n}\n",
           attrs, attrs);
  int64_t out_cap;
  const char *plain = row_graph(IR_F32, 2048, INT64_C(1000000000000000), 0.5f, "0.1", false,
                                &out_cap);
  ir_graph *g = vt_parse(chain), *ref = vt_parse(plain);
  t_rng r = t_rng_make(1);
  static const int64_t counts[] = {1500, 123, 0};
  for (int c = 0; c < 3; c++) {
    rt_tensor in[2], got[2], want;
    row_inputs(&r, IR_F32, counts[c], false, in);
    T_OK(rt_cpu_run_graph(g, in, 2, got, 2));
    T_OK(rt_cpu_run_graph(ref, in, 2, &want, 1));
    int64_t undecided = 0;
    for (int64_t i = 0; i < counts[c]; i++) undecided += rt_load_i(&got[1], i) == 0;
    if (c == 0) cr_assert_gt(undecided, 0, "4 rounds decided every box: settle has no work");
    rt_tensor_free(&got[1]);
    vt_assert_equal(&got[0], &want, 1);
    rt_tensor_free(&in[0]);
    rt_tensor_free(&in[1]);
  }
  ir_graph_destroy(g);
  ir_graph_destroy(ref);
}
