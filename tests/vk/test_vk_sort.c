/* The segmented argsort (glsl/sort.comp, codegen/kernels/sort.c,
 * passes/pass_split_sort.c) and non_max_suppression's GPU stages
 * (glsl/nms.comp, passes/pass_split_nms.c), compiled as vkc compiles them,
 * every step on the GPU, against the CPU reference on the unsplit graph:
 * sort order and NMS indices exactly. Ragged segments (empty, length 1,
 * one spanning many blocks), all-equal keys, sorted and reversed input,
 * NaN, infinities and -0; f32, f16, i32; rows of a power-of-two length
 * (no merge rounds past the row) and not; each stage at every point of
 * its schedule space; NMS with heavy overlap, ties in score, 1 to 100
 * classes, center boxes, thresholds; the bounded output read back directly
 * and through a download into a CPU step; what stays on the CPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/core/core.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

/* text compiled for e's device (every step on the GPU), run on in[], its
 * outputs equal to the CPU reference's on the unsplit graph; *n_steps: the
 * plan's steps whose key names a sort stage. */
static void check_graph(vt_env *e, const char *text, const rt_tensor *in, int n_in, int n_out,
                        int *n_steps) {
  rt_tensor got[4], want[4];
  int n = vt_run_all_gpu(e, text, "sort_", in, n_in, got, want, n_out);
  if (n_steps) *n_steps = n;
  vt_assert_equal(got, want, n_out);
}

enum { FILL_RANDOM, FILL_EQUAL, FILL_SORTED, FILL_REVERSED, FILL_SPECIALS, FILL_FEW };

static void fill(rt_tensor *x, int how, t_rng *r) {
  int64_t n = rt_tensor_numel(x);
  for (int64_t i = 0; i < n; i++) {
    double v = t_rng_uniform(r, -1000, 1000);
    if (how == FILL_EQUAL) v = 3;
    if (how == FILL_SORTED) v = (double)(i % 5000);
    if (how == FILL_REVERSED) v = (double)(5000 - i % 5000);
    if (how == FILL_FEW) v = (double)(t_rng_next(r) % 5);
    if (how == FILL_SPECIALS && i % 5 == 0) {
      double s[5] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
      v = s[(i / 5) % 5];
    }
    if (x->dtype == IR_I32) v = isnan(v) ? 7 : isinf(v) ? (v > 0 ? 2147483647 : -2147483647 - 1) : v;
    if (x->dtype == IR_I64) { /* the whole range: keys that differ in either word */
      int64_t w = how == FILL_RANDOM ? (int64_t)t_rng_next(r)
                  : how == FILL_FEW  ? (int64_t)(t_rng_next(r) % 5 - 2) * (INT64_C(1) << 33) + 1
                                     : (int64_t)v;
      if (how == FILL_SPECIALS && i % 5 == 0) {
        int64_t s[5] = {INT64_MIN, INT64_MAX, -1, 0, INT64_C(1) << 32};
        w = s[(i / 5) % 5];
      }
      rt_store_i(x, i, w);
      continue;
    }
    rt_store_f(x, i, v);
  }
}

/* Rows along the last axis: lengths past a block, a power of two past a
 * block, a row of one, i64 keys over the whole range (two key words),
 * every fill, both directions. */
Test(vk_sort, rows) {
  vt_env e;
  vt_env_open(&e);
  static const struct {
    const char *type;
    ir_dtype dt;
    int64_t rows, len;
  } shapes[] = {{"f32", IR_F32, 3, 5000}, {"i32", IR_I32, 2, 4096}, {"f32", IR_F32, 7, 1},
                {"f16", IR_F16, 5, 300},  {"f32", IR_F32, 1, 20011}, {"i64", IR_I64, 3, 3000}};
  t_rng r = t_rng_make(41);
  int k = 0;
  for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    if (shapes[s].dt == IR_F16 && !e.t->storage_16bit) continue;
    for (int how = FILL_RANDOM; how <= FILL_FEW; how++, k++) {
      char text[512];
      int largest = k % 2;
      snprintf(text, sizeof text,
               "vkir 1\ngraph @rows(%%x: %s[%lld,%lld]) -> (%%y: i64[%lld,%lld]) {\n"
               "  %%y = argsort %%x {largest=%d} : i64[%lld,%lld]\n  return %%y\n}\n",
               shapes[s].type, (long long)shapes[s].rows, (long long)shapes[s].len,
               (long long)shapes[s].rows, (long long)shapes[s].len, largest,
               (long long)shapes[s].rows, (long long)shapes[s].len);
      int64_t dims[2] = {shapes[s].rows, shapes[s].len};
      rt_tensor x = t_tensor_random(&r, shapes[s].dt, 2, dims, -1, 1);
      fill(&x, how, &r);
      int steps;
      check_graph(&e, text, &x, 1, 1, &steps);
      if (shapes[s].len == 4096) cr_assert_eq(steps, 4, "4096: block, 2 rounds, index");
      rt_tensor_free(&x);
    }
  }
  vt_env_close(&e);
}

/* Ragged segments given at run time: lengths 0, 1 and random, one of 30000
 * (many blocks); 60000 elements in 5000 segments. */
Test(vk_sort, ragged_segments) {
  vt_env e;
  vt_env_open(&e);
  enum { N = 60000, S = 5000 };
  t_rng r = t_rng_make(7);
  int64_t od = S + 1, xd = N;
  rt_tensor offs = t_tensor_zeros(IR_I64, 1, &od);
  int64_t at = 0;
  for (int s = 0; s < S; s++) {
    rt_store_i(&offs, s, at);
    int64_t len = s == 2500 ? 30000 : s % 7 == 0 ? 0 : s % 7 == 1 ? 1 : (int64_t)(t_rng_next(&r) % 11);
    at = at + len < N ? at + len : N;
  }
  rt_store_i(&offs, S, N);
  char text[512];
  for (int how = FILL_RANDOM; how <= FILL_FEW; how++) {
    snprintf(text, sizeof text,
             "vkir 1\ngraph @ragged(%%x: f32[%d], %%o: i64[%d]) -> (%%y: i64[%d]) {\n"
             "  %%y = argsort %%x, %%o {largest=%d} : i64[%d]\n  return %%y\n}\n",
             N, S + 1, N, how % 2, N);
    rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 1, &xd, -1, 1), offs};
    fill(&in[0], how, &r);
    check_graph(&e, text, in, 2, 1, NULL);
    rt_tensor_free(&in[0]);
  }
  rt_tensor_free(&offs);
  vt_env_close(&e);
}

/* Each stage alone at every point of the sort space against its CPU
 * kernel: a block sort of rows of 1500 (two blocks each), a merge within
 * the rows, a merge over the whole array (runs of 512 across the rows'
 * boundaries), the index. */
Test(vk_sort, schedule_points) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @stages(%x: f32[3,1500]) -> (%y: i64[3,1500]) {\n"
                     "  %b = sort_block %x {largest=0, width=1024} : i32[3,4500]\n"
                     "  %m = sort_merge %b {width=1024, row=1500} : i32[3,4500]\n"
                     "  %m2 = sort_merge %m {width=512} : i32[3,4500]\n"
                     "  %y = sort_index %m2 {shape=[3,1500]} : i64[3,1500]\n"
                     "  return %y\n}\n";
  ir_graph *g = vt_parse(text);
  t_rng r = t_rng_make(3);
  int64_t dims[2] = {3, 1500};
  rt_tensor x = t_tensor_random(&r, IR_F32, 2, dims, -1, 1);
  fill(&x, FILL_FEW, &r);
  int ran = 0;
  for (int64_t pt = 0; pt < cg_space_size(&cg_sort_template); pt++) {
    cg_schedule s;
    cg_space_point(&cg_sort_template, pt, &s);
    rt_tensor cur = x;
    bool owned = false;
    ir_foreach_node(g, n) {
      cg_kernel k;
      vkml_status st = cg_kernel_for_node(n, &cg_sort_template, &s, e.t, &k);
      if (st && vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
        vkml_status_free(st);
        break;
      }
      T_OK(st);
      rt_tensor want, got;
      T_OK(rt_tensor_alloc(&n->outputs[0]->type, &want));
      vt_poisoned(&n->outputs[0]->type, 0x7f, &got);
      T_OK(t_node_run(n, &cur, 1, &want, 1));
      const rt_tensor *ins[1] = {&cur};
      vt_run_kernel_n(e.ctx, e.cc, &k, ins, 1, &got, 1);
      cr_assert_eq(memcmp(got.data, want.data, rt_tensor_bytes(&want)), 0, "%s", k.key);
      rt_tensor_free(&got);
      if (owned) rt_tensor_free(&cur);
      cur = want;
      owned = true;
      ran += n->op == IR_OP_SORT_INDEX;
    }
    if (owned) rt_tensor_free(&cur);
  }
  cr_assert_geq(ran, 3, "%d points ran every stage", ran);
  rt_tensor_free(&x);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* Boxes in clusters (heavy overlap), scores with ties. */
static void nms_inputs(t_rng *r, ir_dtype dt, int64_t b, int64_t c, int64_t n, bool center,
                       int distinct, rt_tensor *in) {
  int64_t bd[3] = {b, n, 4}, sd[3] = {b, c, n};
  in[0] = t_tensor_zeros(dt, 3, bd);
  in[1] = t_tensor_zeros(dt, 3, sd);
  for (int64_t i = 0; i < b * n; i++) {
    double cx = (double)(t_rng_next(r) % 20) * 25 + t_rng_uniform(r, -4, 4);
    double cy = (double)(t_rng_next(r) % 20) * 25 + t_rng_uniform(r, -4, 4);
    double w = t_rng_uniform(r, 8, 30), h = t_rng_uniform(r, 8, 30);
    double v[4] = {cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2};
    if (center) v[0] = cx, v[1] = cy, v[2] = w, v[3] = h;
    else if (i % 3 == 0) v[0] = cy + h / 2, v[2] = cy - h / 2; /* flipped corners */
    for (int k = 0; k < 4; k++) rt_store_f(&in[0], i * 4 + k, v[k]);
  }
  for (int64_t i = 0; i < b * c * n; i++) {
    double s = distinct ? (double)(t_rng_next(r) % (uint64_t)distinct) / distinct
                        : t_rng_uniform(r, 0, 1);
    rt_store_f(&in[1], i, i % 97 == 5 ? NAN : s);
  }
}

static void check_nms_dt(vt_env *e, ir_dtype dt, int64_t b, int64_t c, int64_t n,
                         int64_t max_out, float iou, const char *score_threshold, bool center,
                         int distinct, uint64_t seed) {
  const char *tn = ir_dtype_name(dt);
  char text[768], st[64] = "";
  if (score_threshold) snprintf(st, sizeof st, ", score_threshold=%s", score_threshold);
  int64_t per = max_out < n ? max_out : n;
  snprintf(text, sizeof text,
           "vkir 1\ngraph @nms(%%b: %s[%lld,%lld,4], %%s: %s[%lld,%lld,%lld]) -> "
           "(%%o: i64[<=%lld,3]) {\n"
           "  %%o = non_max_suppression %%b, %%s {center_point_box=%d, "
           "max_output_boxes_per_class=%lld, iou_threshold=%.9g%s} : i64[<=%lld,3]\n"
           "  return %%o\n}\n",
           tn, (long long)b, (long long)n, tn, (long long)b, (long long)c, (long long)n,
           (long long)(b * c * per), center, (long long)max_out, (double)iou, st,
           (long long)(b * c * per));
  t_rng r = t_rng_make(seed);
  rt_tensor in[2];
  nms_inputs(&r, dt, b, c, n, center, distinct, in);
  check_graph(e, text, in, 2, 1, NULL);
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
}

static void check_nms(vt_env *e, int64_t b, int64_t c, int64_t n, int64_t max_out, float iou,
                      const char *score_threshold, bool center, int distinct, uint64_t seed) {
  check_nms_dt(e, IR_F32, b, c, n, max_out, iou, score_threshold, center, distinct, seed);
}

Test(vk_nms, heavy_overlap) {
  vt_env e;
  vt_env_open(&e);
  check_nms(&e, 2, 20, 10000, 100, 0.5f, "0.2", false, 0, 1);
  check_nms(&e, 1, 1, 100000, 300, 0.45f, NULL, false, 0, 2);
  check_nms(&e, 1, 100, 2000, 50, 0.6f, "0.05", true, 0, 3);
  vt_env_close(&e);
}

/* Ties in score (the lower box index first), thresholds at their ends, a
 * limit above the boxes, no boxes kept at all, no classes, no boxes; f16. */
Test(vk_nms, ties_and_edges) {
  vt_env e;
  vt_env_open(&e);
  check_nms(&e, 2, 3, 3000, 5000, 0.5f, NULL, false, 4, 4);
  check_nms(&e, 1, 2, 700, 40, 0.0f, "0.5", true, 8, 5);
  check_nms(&e, 1, 2, 700, 40, 1.0f, NULL, false, 0, 6);
  check_nms(&e, 1, 3, 500, 10, 0.5f, "2.0", false, 0, 7);
  check_nms(&e, 1, 3, 65, 0, 0.5f, NULL, false, 0, 8);
  check_nms(&e, 1, 0, 65, 10, 0.5f, NULL, false, 0, 9); /* no classes */
  check_nms(&e, 2, 3, 0, 10, 0.5f, NULL, false, 0, 10); /* no boxes */
  if (e.t->storage_16bit) /* f16 boxes and scores, as the CPU reads them */
    check_nms_dt(&e, IR_F16, 1, 4, 3000, 100, 0.5f, "0.1", false, 0, 11);
  vt_env_close(&e);
}

/* The bounded output through a download into a CPU step (a transpose of a
 * bounded tensor stays on the CPU; codegen/core/extent.h would take a cast),
 * and the placement of what the GPU leaves: --cpu-ops non_max_suppression,
 * u8 keys. */
Test(vk_nms, bounded_output_downloaded) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @down(%b: f32[1,900,4], %s: f32[1,4,900]) -> (%f: i64[3,<=400]) {\n"
      "  %o = non_max_suppression %b, %s {max_output_boxes_per_class=100, iou_threshold=0.3} "
      ": i64[<=400,3]\n"
      "  %f = transpose %o {perm=[1,0]} : i64[3,<=400]\n"
      "  return %f\n}\n";
  ir_graph *ref = vt_parse(text), *g = vt_parse(text);
  ir_plan *p = vt_compile(e.t, e.cc, g, NULL, IR_PRECISION_FP32);
  int downloads = 0;
  for (int i = 0; i < p->n_steps; i++) downloads += p->steps[i].transfer == IR_TRANSFER_DOWNLOAD;
  cr_assert_eq(downloads, 1);
  t_rng r = t_rng_make(11);
  rt_tensor in[2], want, got;
  nms_inputs(&r, IR_F32, 1, 4, 900, false, 0, in);
  T_OK(rt_cpu_run_graph(ref, in, 2, &want, 1));
  vt_exec_once(&e, p, in, 2, &got, 1);
  cr_assert_eq(got.dims[1], want.dims[1]);
  cr_assert_gt(want.dims[1], 10);
  cr_assert_eq(memcmp(got.data, want.data, rt_tensor_bytes(&want)), 0);
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  ir_plan_destroy(p);
  ir_graph_destroy(ref);

  bool cpu[IR_OP_COUNT] = {false};
  cpu[IR_OP_NON_MAX_SUPPRESSION] = true;
  p = vt_compile(e.t, e.cc, vt_parse(text), cpu, IR_PRECISION_FP32);
  for (int i = 0; i < p->n_steps; i++)
    cr_assert_eq(p->steps[i].device, IR_DEVICE_CPU, "step %d", i);
  ir_plan_destroy(p);
  const char *u8 = "vkir 1\ngraph @k(%x: u8[2,50]) -> (%y: i64[2,50]) {\n"
                   "  %y = argsort %x : i64[2,50]\n  return %y\n}\n";
  p = vt_compile(e.t, e.cc, vt_parse(u8), NULL, IR_PRECISION_FP32);
  cr_assert_eq(p->n_steps, 1);
  cr_assert_eq(p->steps[0].device, IR_DEVICE_CPU);
  cr_assert(strstr(ir_plan_str(p, p->steps[0].reason), "u8 keys sort on the CPU"), "%s",
            ir_plan_str(p, p->steps[0].reason));
  ir_plan_destroy(p);
  vt_env_close(&e);
}

/* nms_select and nms_compact alone at every point of the nms space against
 * their CPU kernels (the compact's triples up to the CPU's count). */
Test(vk_nms, schedule_points) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @stages(%b: f32[2,700,4], %s: f32[2,3,700]) -> (%o: i64[<=180,3]) {\n"
      "  %ord = argsort %s {largest=1} : i64[2,3,700]\n"
      "  %sel = nms_select %b, %s, %ord {max_output_boxes_per_class=30, iou_threshold=0.4, "
      "score_threshold=0.1} : i32[2,3,30]\n"
      "  %o = nms_compact %sel : i64[<=180,3]\n"
      "  return %o\n}\n";
  ir_graph *g = vt_parse(text);
  ir_node *sort = g->first, *sel = sort->next, *compact = sel->next;
  t_rng r = t_rng_make(21);
  rt_tensor in[2], ord, want_sel, want;
  nms_inputs(&r, IR_F32, 2, 3, 700, false, 0, in);
  T_OK(rt_tensor_alloc(&sort->outputs[0]->type, &ord));
  T_OK(t_node_run(sort, &in[1], 1, &ord, 1));
  rt_tensor sin[3] = {in[0], in[1], ord};
  T_OK(rt_tensor_alloc(&sel->outputs[0]->type, &want_sel));
  T_OK(t_node_run(sel, sin, 3, &want_sel, 1));
  T_OK(rt_tensor_alloc(&compact->outputs[0]->type, &want));
  T_OK(t_node_run(compact, &want_sel, 1, &want, 1));
  cr_assert_gt(want.dims[0], 20);
  int ran = 0;
  for (int64_t pt = 0; pt < cg_space_size(&cg_nms_template); pt++) {
    cg_schedule s;
    cg_space_point(&cg_nms_template, pt, &s);
    cg_kernel ks, kc;
    vkml_status st = cg_kernel_for_node(sel, &cg_nms_template, &s, e.t, &ks);
    if (st && vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
      vkml_status_free(st);
      continue;
    }
    T_OK(st);
    T_OK(cg_kernel_for_node(compact, &cg_nms_template, &s, e.t, &kc));
    rt_tensor got_sel, got;
    vt_poisoned(&sel->outputs[0]->type, 0x7f, &got_sel);
    const rt_tensor *sins[3] = {&in[0], &in[1], &ord};
    vt_run_kernel_n(e.ctx, e.cc, &ks, sins, 3, &got_sel, 1);
    cr_assert_eq(memcmp(got_sel.data, want_sel.data, rt_tensor_bytes(&want_sel)), 0, "%s", ks.key);
    vt_poisoned(&compact->outputs[0]->type, 0x7f, &got);
    const rt_tensor *cins[1] = {&want_sel};
    vt_run_kernel_n(e.ctx, e.cc, &kc, cins, 1, &got, 1);
    cr_assert_eq(memcmp(got.data, want.data, rt_tensor_bytes(&want)), 0, "%s", kc.key);
    rt_tensor_free(&got_sel);
    rt_tensor_free(&got);
    ran++;
  }
  cr_assert_geq(ran, 2, "%d points ran", ran);
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  rt_tensor_free(&ord);
  rt_tensor_free(&want_sel);
  rt_tensor_free(&want);
  ir_graph_destroy(g);
  vt_env_close(&e);
}
