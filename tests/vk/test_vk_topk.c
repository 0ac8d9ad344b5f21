/* topk on the GPU (glsl/topk.comp, codegen/kernels/topk.c) against the CPU
 * reference, exactly (values bit for bit, indices equal): largest and
 * smallest, every axis, k from 1 to the axis length, f32 / f16 / i32, ties
 * (few distinct values: the lower index first), NaN and infinities (NaN
 * above +inf, as numpy sorts), rows longer than a workgroup's chunk; the
 * default schedule and every point of the space; what the GPU leaves to
 * the CPU (a k given at run time, a k beyond shared memory, i64). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/core/templates.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct topk_case {
  ir_dtype dt;
  int rank;
  int64_t dims[4];
  int axis;
  int64_t k;
  bool largest;
  int distinct; /* 0: random values; n: only n distinct values (ties) */
} topk_case;

static ir_node *make(const topk_case *c, const rt_tensor *x, ir_graph **g) {
  ir_type out[2];
  int64_t d[4];
  memcpy(d, c->dims, sizeof d);
  d[c->axis] = c->k;
  out[0] = ir_type_make(c->dt, c->rank, d);
  out[1] = ir_type_make(IR_I64, c->rank, d);
  ir_node *n = t_node_make(g, IR_OP_TOPK, x, 1, out, 2);
  T_OK(ir_node_set_int(*g, n, IR_A_K, c->k));
  T_OK(ir_node_set_int(*g, n, IR_A_AXIS, c->axis));
  T_OK(ir_node_set_int(*g, n, IR_A_LARGEST, c->largest));
  T_OK(ir_node_set_int(*g, n, IR_A_SORTED, 1));
  return n;
}

static rt_tensor input_for(const topk_case *c, uint64_t seed, bool specials) {
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, c->dt, c->rank, c->dims, -100, 100);
  int64_t n = rt_tensor_numel(&x);
  for (int64_t i = 0; c->distinct && i < n; i++)
    rt_store_f(&x, i, (double)(t_rng_next(&r) % (uint64_t)c->distinct) - c->distinct / 2);
  if (specials && ir_dtype_is_float(c->dt))
    for (int64_t i = 0; i < n; i += 7) {
      double v[5] = {NAN, INFINITY, -INFINITY, -0.0, -NAN}; /* -NAN: the sign bit set */
      rt_store_f(&x, i, v[(i / 7) % 5]);
    }
  return x;
}

/* false when the schedule is refused on this device (UNSUPPORTED). */
static bool run_case(vt_env *e, const topk_case *c, const cg_schedule *s, uint64_t seed,
                     bool specials) {
  rt_tensor x = input_for(c, seed, specials);
  ir_graph *g;
  ir_node *n = make(c, &x, &g);
  cg_kernel k;
  vkml_status st = cg_kernel_for_node(n, s ? &cg_topk_template : NULL, s, e->t, &k);
  if (st && s && vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(st);
    rt_tensor_free(&x);
    ir_graph_destroy(g);
    return false;
  }
  T_OK(st);
  rt_tensor want[2], got[2];
  for (int i = 0; i < 2; i++) {
    T_OK(rt_tensor_alloc(&n->outputs[i]->type, &want[i]));
    vt_poisoned(&n->outputs[i]->type, 0x7f, &got[i]);
  }
  T_OK(t_node_run(n, &x, 1, want, 2));
  const rt_tensor *ins[1] = {&x};
  vt_run_kernel_n(e->ctx, e->cc, &k, ins, 1, got, 2);
  for (int i = 0; i < 2; i++)
    cr_assert_eq(memcmp(got[i].data, want[i].data, rt_tensor_bytes(&want[i])), 0,
                 "%s: %s differ", k.key, i ? "indices" : "values");
  for (int i = 0; i < 2; i++) {
    rt_tensor_free(&want[i]);
    rt_tensor_free(&got[i]);
  }
  rt_tensor_free(&x);
  ir_graph_destroy(g);
  return true;
}

Test(vk_topk, shapes_ks_and_dtypes) {
  vt_env e;
  vt_env_open(&e);
  const topk_case cases[] = {
      {IR_F32, 1, {1}, 0, 1, 1, 0},           {IR_F32, 1, {10}, 0, 10, 1, 0},
      {IR_F32, 2, {3, 1000}, 1, 5, 1, 0},     {IR_F32, 2, {3, 1000}, 1, 100, 0, 0},
      {IR_F32, 2, {700, 6}, 0, 40, 1, 0},     {IR_I32, 3, {2, 50, 3}, 1, 50, 1, 0},
      {IR_I32, 2, {4, 5000}, 1, 300, 0, 7},   {IR_F32, 2, {5, 3000}, 1, 64, 1, 3},
      {IR_F32, 4, {2, 3, 17, 5}, 2, 9, 0, 0}, {IR_F32, 2, {2, 10647}, 1, 1000, 1, 0},
      {IR_F32, 2, {8, 257}, 1, 257, 0, 2},    {IR_F32, 2, {0, 7}, 1, 3, 1, 0},
  };
  int n = (int)(sizeof cases / sizeof *cases);
  for (int i = 0; i < n; i++)
    for (int v = 0; v < 2; v++) {
      topk_case c = cases[i];
      if (v && c.dt == IR_F32) c.dt = e.t->storage_16bit ? IR_F16 : IR_F32;
      cr_assert(run_case(&e, &c, NULL, 300 + (uint64_t)(2 * i + v), false), "case %d", i);
    }
  vt_env_close(&e);
}

/* NaN (either sign), +-inf and -0.0 among the values: every NaN counts
 * above +inf, all alike (ties by index). */
Test(vk_topk, nan_and_infinities) {
  vt_env e;
  vt_env_open(&e);
  for (int largest = 0; largest < 2; largest++) {
    topk_case c = {IR_F32, 2, {4, 300}, 1, 60, largest, 0};
    cr_assert(run_case(&e, &c, NULL, 77 + (uint64_t)largest, true));
    c.dt = e.t->storage_16bit ? IR_F16 : IR_F32;
    cr_assert(run_case(&e, &c, NULL, 79 + (uint64_t)largest, true));
  }
  vt_env_close(&e);
}

Test(vk_topk, schedule_points) {
  vt_env e;
  vt_env_open(&e);
  topk_case c = {IR_F32, 2, {6, 2500}, 1, 33, 1, 50};
  int ran = 0;
  for (int64_t p = 0; p < cg_space_size(&cg_topk_template); p++) {
    cg_schedule s;
    cg_space_point(&cg_topk_template, p, &s);
    ran += run_case(&e, &c, &s, 500 + (uint64_t)p, false);
  }
  cr_assert_geq(ran, 3, "%d points ran", ran);
  vt_env_close(&e);
}

/* The default workgroup: 128 invocations, the widest the target allows
 * for a few rows of 2048 or more on a GPU (the stages of a split TopK), 128
 * again for many rows, short rows, or a CPU device (lavapipe). */
Test(vk_topk, default_width) {
  ir_target t = vt_coop_target();
  static const struct {
    topk_case c;
    ir_target_type type;
    int wg;
  } v[] = {
      {{IR_F32, 2, {16, 8192}, 1, 1000, 1, 0}, IR_TARGET_DISCRETE_GPU, 1024},
      {{IR_F32, 1, {16000}, 0, 1000, 1, 0}, IR_TARGET_INTEGRATED_GPU, 1024},
      {{IR_F32, 2, {16, 8192}, 1, 1000, 1, 0}, IR_TARGET_CPU, 128},
      {{IR_F32, 2, {1000, 8192}, 1, 1000, 1, 0}, IR_TARGET_DISCRETE_GPU, 128},
      {{IR_F32, 2, {16, 1000}, 1, 100, 1, 0}, IR_TARGET_DISCRETE_GPU, 128},
      {{IR_F32, 1, {70000}, 0, 10, 1, 0}, IR_TARGET_CPU, 1024},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    t.type = v[i].type;
    rt_tensor x = input_for(&v[i].c, 3, false);
    ir_graph *g;
    ir_node *n = make(&v[i].c, &x, &g);
    cg_kernel k;
    T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
    char want[32];
    snprintf(want, sizeof want, "%d", v[i].wg);
    cr_assert_str_eq(vt_define_of(&k, "WG_SIZE"), want, "case %zu", i);
    rt_tensor_free(&x);
    ir_graph_destroy(g);
  }
}

/* Left to the CPU: i64 values, a k beyond the shared memory of the
 * weakest device (16 KiB: the candidates' sort). */
Test(vk_topk, refusals) {
  ir_target t;
  ir_target_minimum(&t);
  topk_case c = {IR_I64, 2, {2, 9}, 1, 3, 1, 0};
  rt_tensor x = input_for(&c, 1, false);
  ir_graph *g;
  ir_node *n = make(&c, &x, &g);
  cg_kernel k;
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "i64");
  rt_tensor_free(&x);
  ir_graph_destroy(g);
  topk_case big = {IR_F32, 2, {1, 5000}, 1, 4000, 1, 0};
  x = input_for(&big, 2, false);
  n = make(&big, &x, &g);
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "shared memory");
  rt_tensor_free(&x);
  ir_graph_destroy(g);
}

/* Long rows of few, compiled as vkc compiles them: the pass pipeline splits
 * them (pass_split_topk: blocks' best k, then the best of those, the
 * indices gathered back), every step on the GPU; the outputs equal the CPU
 * reference's on the unsplit graph bit for bit, ties across blocks (eleven
 * distinct values in 100003) included. */
Test(vk_topk, split_rows_end_to_end) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @long(%x: f32[1,100003], %y: i32[2,32768]) -> (%v: f32[1,50], %i: i64[1,50], "
      "%w: i32[2,700], %j: i64[2,700]) {\n"
      "  %v, %i = topk %x {k=50, axis=1} : f32[1,50], i64[1,50]\n"
      "  %w, %j = topk %y {k=700, axis=1, largest=0} : i32[2,700], i64[2,700]\n"
      "  return %v, %i, %w, %j\n"
      "}\n";
  t_rng r = t_rng_make(9);
  rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 2, (int64_t[]){1, 100003}, -1, 1),
                     t_tensor_random(&r, IR_I32, 2, (int64_t[]){2, 32768}, -5000, 5000)};
  for (int64_t i = 0; i < rt_tensor_numel(&in[0]); i++)
    rt_store_f(&in[0], i, (double)(t_rng_next(&r) % 11));
  rt_tensor want[4], got[4];
  int n_topk = vt_run_all_gpu(&e, text, "topk(", in, 2, got, want, 4);
  /* 100003: 25 blocks, then 1250 candidates; 32768 with k 700 (blocks of
   * 8192): 4, then 2800 */
  cr_assert_eq(n_topk, 4, "%d topk steps", n_topk);
  vt_assert_equal(got, want, 4);
  for (int i = 0; i < 2; i++) rt_tensor_free(&in[i]);
  vt_env_close(&e);
}

/* A k beyond the selection kernel (3000 and 3500 of rows of 5000 and
 * 4000, 2500 of 4000 along axis 0): pass_split_topk takes it through the
 * segmented argsort (the first k indices, the values gathered; axis 0
 * moved last and back by transposes), every step on the GPU; values and
 * indices equal the CPU reference's on the unsplit graph, ties (seven
 * distinct values), NaN and infinities included. */
Test(vk_topk, large_k_through_the_sort) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @big(%x: f32[3,5000], %y: i32[2,4000], %z: f32[4000,3]) -> (%v: f32[3,3000], "
      "%i: i64[3,3000], %w: i32[2,3500], %j: i64[2,3500], %a: f32[2500,3], %ai: i64[2500,3]) {\n"
      "  %v, %i = topk %x {k=3000, axis=1} : f32[3,3000], i64[3,3000]\n"
      "  %w, %j = topk %y {k=3500, axis=-1, largest=0} : i32[2,3500], i64[2,3500]\n"
      "  %a, %ai = topk %z {k=2500, axis=0} : f32[2500,3], i64[2500,3]\n"
      "  return %v, %i, %w, %j, %a, %ai\n"
      "}\n";
  t_rng r = t_rng_make(17);
  topk_case cx = {IR_F32, 2, {3, 5000}, 1, 3000, 1, 7};
  rt_tensor in[3] = {input_for(&cx, 18, true),
                     t_tensor_random(&r, IR_I32, 2, (int64_t[]){2, 4000}, -3, 3),
                     t_tensor_random(&r, IR_F32, 2, (int64_t[]){4000, 3}, -1, 1)};
  rt_tensor want[6], got[6];
  int n_sort = vt_run_all_gpu(&e, text, "sort_index(", in, 3, got, want, 6);
  cr_assert_eq(n_sort, 3, "%d argsorts", n_sort);
  vt_assert_equal(got, want, 6);
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  vt_env_close(&e);
}

/* K forged (as a tampered artifact could carry it) past the slots of
 * shared memory (P, the kernel's #define), or past the row: the kernel
 * returns at once (k_ok), both outputs left unwritten; the host's K writes
 * them. Without the check the collection writes s_key / s_idx past their
 * end: workgroup memory, which robust buffer access does not cover. */
Test(vk_topk, forged_k_leaves_the_kernel_at_once) {
  vt_env e;
  vt_env_open(&e);
  topk_case c = {IR_F32, 2, {3, 50}, 1, 5, true, 0};
  rt_tensor x = input_for(&c, 21, false);
  ir_graph *g;
  ir_node *n = make(&c, &x, &g);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, e.t, &k));
  cr_assert_eq(k.tmpl, &cg_topk_template, "%s", k.key);
  int at = -1;
  for (int j = 0; j < k.n_spec; j++)
    if (k.spec_id[j] == CG_SPEC_TOPK_K) at = j;
  cr_assert_geq(at, 0, "%s sets no K", k.key);
  const uint32_t vals[] = {0 /* the host's */, 51, 4096, 0x80000000u};
  for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
    cg_kernel f = k;
    if (vals[v]) f.spec_value[at] = vals[v];
    rt_tensor got[2];
    for (int i = 0; i < 2; i++) vt_poisoned(&n->outputs[i]->type, 0x7f, &got[i]);
    const rt_tensor *ins[1] = {&x};
    vt_run_kernel_n(e.ctx, e.cc, &f, ins, 1, got, 2);
    for (int i = 0; i < 2; i++) {
      size_t untouched = vt_untouched(&got[i], 0x7f), bytes = rt_tensor_bytes(&got[i]);
      if (vals[v])
        cr_assert_eq(untouched, bytes, "%s: K = %#x wrote output %d", k.key, vals[v], i);
      else
        cr_assert_lt(untouched, bytes, "%s: the host's K wrote nothing", k.key);
      rt_tensor_free(&got[i]);
    }
  }
  rt_tensor_free(&x);
  ir_graph_destroy(g);
  vt_env_close(&e);
}
