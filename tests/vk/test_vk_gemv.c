/* The GEMV template (codegen/glsl/gemv.comp, cg_gemm_gemv_template) on the
 * device against the CPU reference (rt_cpu_run_node on the same node),
 * random non-zero inputs in [-1, 1), over 26 shape/attribute combinations:
 * M 1..8 (and N 1..8 with M large: the swapped form), K and N odd or not
 * multiples of 4 (every vector width: 4, 2, 1), K = 1, both B layouts
 * (trans_b 0 and 1) and trans_a, alpha/beta, C of shapes [], [N], [1,N],
 * [M,1], [1,1], [M,N], every fused activation, 1-D matmul operands and
 * batch broadcasting. f32 and f16: the default schedule on every case, and
 * 10 points of the space (4 fixed extremes, 6 drawn with a fixed seed) on 9
 * cases each; two points again on a copy of the device's target without
 * subgroup operations and without clustered ones, so that every reduction
 * path the device can run is run. The family's default choice, the
 * instantiation (layouts, vector widths, swap, subgroup path, grid) and the
 * constraints are tested without a device; the clustered-subgroup variant is
 * compiled with shaderc (lavapipe lacks clustered operations).
 *
 * Bounds, per element (|got - want| <= rtol*|want| + atol), as in
 * test_vk_gemm.c: atol = L * (K + 4) * 2^-24 * S with S = |alpha| *
 * sum_k |a_ik b_kj| + |beta c_ij| (the worst-case bound of an fp32 dot
 * product in any summation order: a relative bound alone cannot hold where
 * the sum cancels), L = 1 without activation, 2 with one.
 *   f32: rtol 1e-4.
 *   f16: rtol 2^-10 (one f16 rounding of the fp32 result against the
 *     reference's), atol plus 2^-24 (the f16 subnormal step). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/gemm.h"
#include "codegen/core/ops.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct gcase {
  ir_op op;
  int ra;
  int64_t a[IR_MAX_RANK];
  int rb;
  int64_t b[IR_MAX_RANK];
  int rc; /* -1: no C */
  int64_t c[IR_MAX_RANK];
  int ta, tb;
  float alpha, beta;
  ir_act act;
  float act_alpha, act_beta;
} gcase;

#define G IR_OP_GEMM
#define MM IR_OP_MATMUL
#define NOC -1, {0}
#define NA IR_ACT_NONE, 0, 0

static const gcase CASES[] = {
    /* gemm, B [K,N] (W contiguous along columns) */
    {G, 2, {1, 37}, 2, {37, 29}, 1, {29}, 0, 0, 1, 1, IR_ACT_RELU, 0, 0},          /* 0 */
    {G, 2, {3, 130}, 2, {130, 68}, NOC, 0, 0, 1, 1, IR_ACT_GELU, 0, 0},           /* 1: vec 4 */
    {G, 2, {8, 301}, 2, {301, 46}, 2, {8, 46}, 0, 0, 0.5f, -1.5f, NA},             /* 2: vec 2 */
    /* gemm, B [N,K] (trans_b: W contiguous along k) */
    {G, 2, {5, 64}, 2, {33, 64}, 2, {1, 33}, 0, 1, 1, 1, IR_ACT_SIGMOID, 0, 0},    /* 3: vec 4 */
    {G, 2, {7, 66}, 2, {19, 66}, 2, {7, 1}, 0, 1, 1, 1, NA},                       /* 4: vec 2 */
    {G, 2, {2, 33}, 2, {10, 33}, 0, {0}, 0, 1, 1, 1, NA},                          /* 5: scalars */
    /* trans_a (A [K,M]) */
    {G, 2, {45, 4}, 2, {45, 20}, 2, {1, 1}, 1, 0, 1, 1, NA},                       /* 6 */
    {G, 2, {52, 6}, 2, {17, 52}, 2, {6, 17}, 1, 1, 2.0f, 0.25f, IR_ACT_TANH, 0, 0}, /* 7 */
    /* K = 1, N = 1 */
    {G, 2, {6, 1}, 2, {1, 40}, 1, {40}, 0, 0, 1, 1, IR_ACT_HARD_SWISH, 0, 0},      /* 8 */
    {G, 2, {1, 1000}, 2, {1000, 1}, NOC, 0, 0, 1, 1, IR_ACT_RELU6, 0, 0},          /* 9 */
    /* N small, M large: swapped (A streamed as the weights) */
    {G, 2, {50, 33}, 2, {33, 1}, 2, {50, 1}, 0, 0, 1, 1, NA},                      /* 10 */
    {G, 2, {300, 20}, 2, {20, 3}, 1, {3}, 0, 0, 1, 1, IR_ACT_LEAKY_RELU, 0.1f, 0}, /* 11 */
    {G, 2, {24, 70}, 2, {24, 5}, 2, {70, 5}, 1, 0, 1, 1, IR_ACT_CLIP, -0.5f, 0.75f}, /* 12 */
    /* large K, elu; hard_sigmoid with alpha/beta */
    {G, 2, {4, 1030}, 2, {23, 1030}, NOC, 0, 1, 1, 1, IR_ACT_ELU, 0.7f, 0},        /* 13 */
    {G, 2, {8, 256}, 2, {256, 128}, 1, {128}, 0, 0, -1.0f, 0.5f, IR_ACT_HARD_SIGMOID, 0.2f,
     0.5f},                                                                        /* 14 */
    {G, 2, {8, 19}, 2, {19, 9}, 2, {8, 9}, 0, 0, 1, 0, NA},                        /* 15: beta 0 */
    /* matmul */
    {MM, 2, {1, 200}, 2, {200, 77}, NOC, 0, 0, 1, 1, IR_ACT_SILU, 0, 0},          /* 16 */
    {MM, 1, {37}, 2, {37, 29}, NOC, 0, 0, 1, 1, NA},                               /* 17 */
    {MM, 2, {23, 37}, 1, {37}, NOC, 0, 0, 1, 1, NA},                               /* 18: swap */
    {MM, 4, {3, 2, 5, 40}, 3, {2, 40, 12}, NOC, 0, 0, 1, 1, IR_ACT_GELU_TANH, 0, 0}, /* 19 */
    {MM, 3, {4, 1, 64}, 3, {4, 64, 36}, NOC, 0, 0, 1, 1, NA},                      /* 20 */
    /* 21: b shared, a's rows consecutive: the batch folds into 6 rows */
    {MM, 4, {2, 3, 1, 16}, 2, {16, 20}, NOC, 0, 0, 1, 1, IR_ACT_RELU, 0, 0},
    {MM, 2, {6, 31}, 4, {2, 3, 31, 4}, NOC, 0, 0, 1, 1, NA},                       /* 22: swap */
    {MM, 1, {100}, 1, {100}, NOC, 0, 0, 1, 1, NA},                                 /* 23 */
    {MM, 1, {7}, 3, {2, 7, 3}, NOC, 0, 0, 1, 1, NA},                               /* 24 */
    {MM, 4, {2, 3, 8, 128}, 4, {2, 3, 128, 64}, NOC, 0, 0, 1, 1, NA},              /* 25 */
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

/* The sampled points run on these: both layouts with every vector width,
 * X as vectors and as scalars, swapped forms, batches. */
static const int POINT_CASES[] = {1, 3, 4, 7, 11, 12, 2, 19, 22};
#define N_POINT_CASES ((int)(sizeof POINT_CASES / sizeof POINT_CASES[0]))

static ir_type out_type(const gcase *c, ir_dtype dt) {
  if (c->op == IR_OP_GEMM) {
    int64_t d[2] = {c->ta ? c->a[1] : c->a[0], c->tb ? c->b[0] : c->b[1]};
    return ir_type_make(dt, 2, d);
  }
  int ra = c->ra >= 2 ? c->ra - 2 : 0, rb = c->rb >= 2 ? c->rb - 2 : 0;
  int r = ra > rb ? ra : rb, n = 0;
  int64_t d[IR_MAX_RANK];
  for (int i = 0; i < r; i++) {
    int ia = i - (r - ra), ib = i - (r - rb);
    int64_t da = ia >= 0 ? c->a[ia] : 1, db = ib >= 0 ? c->b[ib] : 1;
    d[n++] = da == 1 ? db : da;
  }
  if (c->ra >= 2) d[n++] = c->a[c->ra - 2];
  if (c->rb >= 2) d[n++] = c->b[c->rb - 1];
  return ir_type_make(dt, n, d);
}

static int64_t inner_k(const gcase *c) {
  if (c->op == IR_OP_GEMM) return c->ta ? c->a[0] : c->a[1];
  return c->a[c->ra - 1];
}

/* abs_only: |alpha|, |beta| and no activation (for the error scale S). */
static ir_node *make_node(ir_graph **g, const gcase *c, const rt_tensor *in, int n_in,
                          const ir_type *to, bool abs_only) {
  ir_node *n = t_node_make(g, c->op, in, n_in, to, 1);
  if (c->op == IR_OP_GEMM) {
    if (c->ta) T_OK(ir_node_set_int(*g, n, IR_A_TRANS_A, 1));
    if (c->tb) T_OK(ir_node_set_int(*g, n, IR_A_TRANS_B, 1));
    float al = abs_only ? fabsf(c->alpha) : c->alpha, be = abs_only ? fabsf(c->beta) : c->beta;
    if (al != 1.0f) T_OK(ir_node_set_float(*g, n, IR_A_ALPHA, al));
    if (be != 1.0f) T_OK(ir_node_set_float(*g, n, IR_A_BETA, be));
  }
  if (c->act != IR_ACT_NONE && !abs_only) {
    T_OK(ir_node_set_enum(*g, n, IR_A_ACT, c->act));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_ALPHA, c->act_alpha));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_BETA, c->act_beta));
  }
  return n;
}

typedef struct env {
  vt_env v;
  double max_err[2];
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

/* Runs case c through the gemm/matmul family (tmpl NULL: the family's own
 * choice, which must be gemv) instantiated for target t (NULL: the
 * device's) and compares with the reference. */
static void check(env *e, const gcase *c, ir_dtype dt, const cg_template *tmpl,
                  const cg_schedule *s, const ir_target *t, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int n_in = c->rc >= 0 ? 3 : 2;
  rt_tensor in[3];
  in[0] = t_tensor_random(&r, dt, c->ra, c->a, -1, 1);
  in[1] = t_tensor_random(&r, dt, c->rb, c->b, -1, 1);
  if (n_in == 3) in[2] = t_tensor_random(&r, dt, c->rc, c->c, -1, 1);
  ir_type to = out_type(c, dt), to32 = out_type(c, IR_F32);
  ir_graph *g, *g_abs;
  ir_node *n = make_node(&g, c, in, n_in, &to, false);
  rt_tensor want, got, scale, ab[3];
  T_OK(rt_tensor_alloc(&to, &want));
  T_OK(rt_tensor_alloc(&to32, &scale));
  const rt_tensor *ins[3] = {&in[0], &in[1], &in[2]};
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(n, ins, n_in, outs, 1));
  for (int i = 0; i < n_in; i++) ab[i] = vt_abs_f32(&in[i]);
  ir_node *n_abs = make_node(&g_abs, c, ab, n_in, &to32, true);
  const rt_tensor *abs_ins[3] = {&ab[0], &ab[1], &ab[2]};
  outs[0] = &scale;
  T_OK(rt_cpu_run_node(n_abs, abs_ins, n_in, outs, 1));

  cg_kernel k;
  T_OK(cg_kernel_for_node(n, tmpl, s, t ? t : e->v.t, &k));
  cr_assert_eq(k.tmpl, &cg_gemm_gemv_template, "%s: instantiated %s, not gemv", k.key,
               k.tmpl->name);
  vt_poisoned(&to, 0x7f, &got); /* unwritten elements show */
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, n_in, &got);

  bool f16 = dt == IR_F16;
  double u = 1.0 / (1 << 24);
  double lip = c->act == IR_ACT_NONE ? 1 : 2;
  double rtol = f16 ? 1.0 / 1024 : 1e-4;
  double kk = (double)inner_k(c) + 4;
  char sched[96];
  cg_schedule_format(&cg_gemm_gemv_template, &k.schedule, sched, sizeof sched);
  int64_t cnt = rt_tensor_numel(&want), bad;
  double worst =
      vt_check_bound(&got, &want, &scale, rtol, lip * kk * u, f16 ? 1.0 / (1 << 24) : 0, &bad);
  if (worst > e->max_err[f16]) e->max_err[f16] = worst;
  if (bad >= 0)
    cr_assert_fail("%s [gemv %s] element %lld of %lld: got %.9g want %.9g", k.key, sched,
                   (long long)bad, (long long)cnt, rt_load_f(&got, bad), rt_load_f(&want, bad));
  for (int i = 0; i < n_in; i++) rt_tensor_free(&in[i]), rt_tensor_free(&ab[i]);
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  rt_tensor_free(&scale);
  ir_graph_destroy(g);
  ir_graph_destroy(g_abs);
}

/* ---- on the device ------------------------------------------------------------ */

/* The family's default choice (gemv for every case) with the default
 * schedule. */
static void default_schedule(ir_dtype dt) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, dt != IR_F16 || e.v.t->storage_16bit, "16-bit storage");
  for (int c = 0; c < N_CASES; c++)
    check(&e, &CASES[c], dt, NULL, NULL, NULL, 300u * (uint64_t)c + (dt == IR_F16));
  cr_log_info("%s: worst error / bound %.3g", ir_dtype_name(dt), e.max_err[dt == IR_F16]);
  vt_env_close(&e.v);
}

Test(vk_gemv, default_schedule_f32) { default_schedule(IR_F32); }
Test(vk_gemv, default_schedule_f16) { default_schedule(IR_F16); }

#define N_POINTS 10
static void sample_points(const ir_target *t, cg_schedule *pts) {
  const cg_template *tp = &cg_gemm_gemv_template;
  /* no reduction, scalars; many columns, few k lanes; k lanes past any
   * subgroup (whole-subgroup adds, then the tree); the tree alone */
  T_OK(cg_schedule_parse(tp, "WG_N=1,WG_K=1,VEC=1,UNROLL=1,SG=0", &pts[0]));
  T_OK(cg_schedule_parse(tp, "WG_N=64,WG_K=2,VEC=4,UNROLL=8,SG=1", &pts[1]));
  T_OK(cg_schedule_parse(tp, "WG_N=1,WG_K=128,VEC=2,UNROLL=2,SG=1", &pts[2]));
  T_OK(cg_schedule_parse(tp, "WG_N=4,WG_K=32,VEC=4,UNROLL=1,SG=0", &pts[3]));
  vt_sample_random(tp, t, 777, 4, N_POINTS, pts);
}

static void points(int first, int step) {
  env e;
  env_open(&e);
  const ir_target *t = e.v.t;
  cg_schedule pts[N_POINTS];
  sample_points(t, pts);
  for (int p = first; p < N_POINTS; p += step) {
    T_OK(cg_schedule_check(&cg_gemm_gemv_template, &pts[p], t));
    for (int j = 0; j < N_POINT_CASES; j++) {
      ir_dtype dt = (p + j) % 2 && t->storage_16bit ? IR_F16 : IR_F32;
      check(&e, &CASES[POINT_CASES[j]], dt, &cg_gemm_gemv_template, &pts[p], NULL,
            9000u + 37u * (uint64_t)p + (uint64_t)j);
    }
  }
  vt_env_close(&e.v);
}

/* Four tests of a quarter of the points each: one test stays short on a
 * cold lavapipe shader cache (every point is a new pipeline to compile). */
Test(vk_gemv, points_0) { points(0, 4); }
Test(vk_gemv, points_1) { points(1, 4); }
Test(vk_gemv, points_2) { points(2, 4); }
Test(vk_gemv, points_3) { points(3, 4); }

/* The device's target less its subgroup operations (the shared-memory tree
 * only) and less clustered operations (whole-subgroup adds where the k
 * lanes fill subgroups, else the tree): kernels that use a subset of the
 * device's features run on it. */
Test(vk_gemv, reduction_paths) {
  env e;
  env_open(&e);
  ir_target t = *e.v.t;
  static const char *const pts[] = {"WG_N=2,WG_K=64,VEC=4,UNROLL=4,SG=1",
                                    "WG_N=8,WG_K=8,VEC=2,UNROLL=2,SG=1"};
  static const int cases[] = {2, 3, 12, 20};
  for (int v = 0; v < 2; v++) {
    if (v == 0) t.subgroup_ops = 0;
    else t.subgroup_ops = e.v.t->subgroup_ops & ~(uint32_t)IR_SUBGROUP_CLUSTERED;
    for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
      cg_schedule s;
      T_OK(cg_schedule_parse(&cg_gemm_gemv_template, pts[p], &s));
      for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check(&e, &CASES[cases[c]], IR_F32, &cg_gemm_gemv_template, &s, &t,
              500u + 10u * (uint64_t)p + (uint64_t)c + 100u * (uint64_t)v);
    }
  }
  vt_env_close(&e.v);
}

/* ---- templates and instantiation without a device ---------------------------- */

static const char *define_of(const cg_kernel *k, const char *name) {
  for (int i = 0; i < k->n_defines; i++)
    if (!strcmp(k->def_name[i], name)) return k->def_value[i];
  cr_assert_fail("no define %s", name);
  return NULL;
}

/* A device like the H200: 32-wide subgroups with arithmetic and clustered
 * operations, f16 storage and cooperative matrices. */
static ir_target big_target(void) {
  ir_target t;
  ir_target_minimum(&t);
  strcpy(t.name, "synthetic-big");
  t.subgroup_size = 32;
  t.subgroup_ops = IR_SUBGROUP_BASIC | IR_SUBGROUP_ARITHMETIC | IR_SUBGROUP_CLUSTERED;
  t.subgroup_in_compute = true;
  t.max_shared_bytes = 49152;
  t.max_workgroup_size[0] = 1024;
  t.max_workgroup_invocations = 1024;
  t.max_workgroup_count[0] = 0x7fffffff;
  t.fp16_arith = t.storage_16bit = true;
  t.coopmat_nv = true;
  t.vulkan_memory_model = true;
  ir_coopmat_shape sh = {16, 16, 16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F32,
                         IR_COOPMAT_F32};
  t.n_coopmat_shapes = 1;
  t.coopmat_shapes[0] = sh;
  return t;
}

/* gemm node [m,k] x [k,n] (or trans_b [n,k]) with C [n] when has_c. */
static ir_node *gemm_node(ir_graph **g, ir_dtype dt, int64_t m, int64_t k, int64_t n, int tb,
                          int has_c) {
  int ranks[3] = {2, 2, 1};
  const int64_t dims[3][IR_MAX_RANK] = {{m, k}, {tb ? n : k, tb ? k : n}, {n}};
  int64_t od[2] = {m, n};
  ir_node *nd = vt_type_node(g, IR_OP_GEMM, dt, has_c ? 3 : 2, ranks, dims, 2, od);
  if (tb) T_OK(ir_node_set_int(*g, nd, IR_A_TRANS_B, 1));
  return nd;
}

Test(gemv_template, registered_and_default_valid_on_minimum) {
  ir_target t;
  ir_target_minimum(&t);
  const cg_template *tp = &cg_gemm_gemv_template;
  cr_assert_eq(cg_template_find("gemv"), tp);
  T_OK(cg_schedule_check(tp, &tp->dflt, &t));
  char buf[96];
  cg_schedule_format(tp, &tp->dflt, buf, sizeof buf);
  cr_assert_str_eq(buf, "WG_N=2,WG_K=64,VEC=4,UNROLL=4,SG=1");
}

/* Accepted points fit the minimum device (invocations; the tree's shared
 * memory for 8 rows of VEC-wide partials, 16 * VEC * WG bytes); rejected
 * ones do not. */
Test(gemv_template, constraints_match_the_sizes) {
  ir_target t;
  ir_target_minimum(&t);
  const cg_template *tp = &cg_gemm_gemv_template;
  int n_ok = 0;
  for (int64_t i = 0; i < cg_space_size(tp); i++) {
    cg_schedule s;
    cg_space_point(tp, i, &s);
    int64_t wg = (int64_t)s.v[0] * s.v[1];
    bool fits = wg <= 128 && 4 * 8 * s.v[2] * s.v[0] * (s.v[1] > 1 ? s.v[1] / 2 : 1) <= 16384;
    vkml_status st = cg_schedule_check(tp, &s, &t);
    if (!st) {
      cr_assert(fits, "point %lld accepted but does not fit", (long long)i);
      n_ok++;
    } else {
      cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
      cr_assert(wg > 128, "point %lld rejected although it fits", (long long)i);
      vkml_status_free(st);
    }
  }
  cr_assert_gt(n_ok, 200, "only %d valid points on the minimum target", n_ok);
}

/* The family picks gemv when min(M, N) is 1..8, else tiles (or cooperative
 * matrices for f16 where the device has them). */
Test(gemv_template, default_choice) {
  ir_target t;
  ir_target_minimum(&t);
  ir_target big = big_target();
  ir_graph *g;
  cg_kernel k;
  const struct {
    int64_t m, k, n;
    ir_dtype dt;
    const ir_target *t;
    const cg_template *want;
  } v[] = {
      {1, 2048, 1000, IR_F32, NULL, &cg_gemm_gemv_template},
      {8, 100, 300, IR_F32, NULL, &cg_gemm_gemv_template},
      {9, 100, 300, IR_F32, NULL, &cg_gemm_tiled_vec4_template},
      {300, 100, 8, IR_F32, NULL, &cg_gemm_gemv_template},
      {300, 100, 9, IR_F32, NULL, &cg_gemm_tiled_vec4_template},
      {4, 64, 64, IR_F16, &big, &cg_gemm_gemv_template},
      {16, 64, 64, IR_F16, &big, &cg_gemm_coopmat_template},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_node *n = gemm_node(&g, v[i].dt, v[i].m, v[i].k, v[i].n, 0, 0);
    T_OK(cg_node_gemm(n, NULL, NULL, v[i].t ? v[i].t : &t, &k));
    cr_assert_eq(k.tmpl, v[i].want, "%s: %s, not %s", k.key, k.tmpl->name, v[i].want->name);
    ir_graph_destroy(g);
  }
  /* too many columns for gemv's grid on this device: the tiled template */
  {
    int ranks[2] = {2, 2};
    const int64_t dims[2][IR_MAX_RANK] = {{1, 2}, {2, 600000}};
    int64_t od[2] = {1, 600000};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 2, od);
    T_OK(cg_node_matmul(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_gemm_tiled_vec4_template);
    t_expect_error(cg_node_matmul(n, &cg_gemm_gemv_template, NULL, &t, &k),
                   VKML_CODE_UNSUPPORTED, "grid");
    ir_graph_destroy(g);
  }
  /* asked for explicitly where both sides are long */
  ir_node *n = gemm_node(&g, IR_F32, 9, 10, 9, 0, 0);
  t_expect_error(cg_node_gemm(n, &cg_gemm_gemv_template, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "both exceed");
  ir_graph_destroy(g);
  /* f16 on a device without 16-bit storage */
  n = gemm_node(&g, IR_F16, 1, 10, 9, 0, 0);
  t_expect_error(cg_node_gemm(n, &cg_gemm_gemv_template, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "16-bit storage");
  ir_graph_destroy(g);
}

/* Layouts, vector widths, subgroup path and grid. */
Test(gemv_template, instantiation) {
  ir_target t;
  ir_target_minimum(&t);
  ir_target big = big_target();
  ir_graph *g;
  cg_kernel k;
  /* the classifier head: [1,2048] x [2048,1000], columns as vectors of 4 */
  ir_node *n = gemm_node(&g, IR_F32, 1, 2048, 1000, 0, 1);
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
  cr_assert_str_eq(define_of(&k, "WK"), "0");
  cr_assert_str_eq(define_of(&k, "VW"), "4");
  cr_assert_str_eq(define_of(&k, "MR"), "1");
  cr_assert_str_eq(define_of(&k, "SWAP"), "0");
  cr_assert_str_eq(define_of(&k, "HAS_C"), "1");
  cr_assert_str_eq(define_of(&k, "USE_SG"), "0"); /* the minimum has no arithmetic */
  cr_assert_eq(k.groups[0], 125);                 /* 1000 / (2 lanes * 4) */
  cr_assert_eq(k.groups[1], 1);
  cr_assert_eq(k.groups[2], 1);
  cr_assert_eq(k.n_buffers, 4);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_CN), 1000);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_K), 2048);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_W_SK), 1000); /* W_SK */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_W_SJ), 1);    /* W_SJ */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_C_SR), 0);    /* C [N] broadcast along rows */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_C_SC), 1);
  T_OK(cg_node_gemm(n, NULL, NULL, &big, &k));
  cr_assert_str_eq(define_of(&k, "USE_SG"), "2");
  big.subgroup_ops &= ~(uint32_t)IR_SUBGROUP_CLUSTERED;
  T_OK(cg_node_gemm(n, NULL, NULL, &big, &k));
  cr_assert_str_eq(define_of(&k, "USE_SG"), "1");
  big = big_target();
  cg_schedule s;
  T_OK(cg_schedule_parse(&cg_gemm_gemv_template, "WG_N=4,WG_K=32,VEC=4,UNROLL=1,SG=0", &s));
  T_OK(cg_node_gemm(n, &cg_gemm_gemv_template, &s, &big, &k));
  cr_assert_str_eq(define_of(&k, "USE_SG"), "0");
  cr_assert_eq(k.groups[0], 63);
  ir_graph_destroy(g);

  /* trans_b [N,K]: along k; K = 1030 = 2 * 515: vectors of 2, X too */
  n = gemm_node(&g, IR_F16, 3, 1030, 23, 1, 0);
  big = big_target();
  T_OK(cg_node_gemm(n, NULL, NULL, &big, &k));
  cr_assert_eq(k.tmpl, &cg_gemm_gemv_template);
  cr_assert_str_eq(define_of(&k, "WK"), "1");
  cr_assert_str_eq(define_of(&k, "VW"), "2");
  cr_assert_str_eq(define_of(&k, "X_VEC"), "1");
  cr_assert_str_eq(define_of(&k, "DTYPE_F16"), "1");
  cr_assert_eq(k.groups[0], 12); /* 23 columns, 2 per workgroup */
  cr_assert_eq(k.n_buffers, 3);
  ir_graph_destroy(g);

  /* N small: swapped, A [300,20] streamed along k, B^T as X (scalars) */
  n = gemm_node(&g, IR_F32, 300, 20, 3, 0, 1);
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
  cr_assert_str_eq(define_of(&k, "SWAP"), "1");
  cr_assert_str_eq(define_of(&k, "MR"), "3");
  cr_assert_str_eq(define_of(&k, "WK"), "1");
  cr_assert_str_eq(define_of(&k, "VW"), "4");
  cr_assert_str_eq(define_of(&k, "X_VEC"), "0");
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_CN), 300);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_X_SI), 1);  /* X_SI = B's column stride */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_X_SK), 3);  /* X_SK = B's row stride */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_W_SJ), 20); /* W_SJ = A's row stride */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_C_SR), 1);  /* C [N] along the kernel's rows */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_C_SC), 0);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_Y_SR), 1);  /* Y_SR */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_Y_SC), 3);  /* Y_SC */
  cr_assert_eq(k.groups[0], 150);
  ir_graph_destroy(g);

  /* batched matmul [2,1,6,10] x [3,10,7]: axes 3 (A 0, B 70), 2 (A 60, B 0) */
  {
    int ranks[2] = {4, 3};
    const int64_t dims[2][IR_MAX_RANK] = {{2, 1, 6, 10}, {3, 10, 7}};
    int64_t od[4] = {2, 3, 6, 7};
    n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 4, od);
    T_OK(cg_node_matmul(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_gemm_gemv_template);
    cr_assert_str_eq(define_of(&k, "SWAP"), "0");
    cr_assert_str_eq(define_of(&k, "VW"), "1"); /* 7 columns */
    cr_assert_eq(k.groups[2], 6);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_Y_SZ), 42); /* Y_SZ */
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_NBD), 2);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_BD0), 3);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_BSX0), 0);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_BSW0), 70);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_BD1), 2);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_BSX1), 60);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMV_BSW1), 0);
    ir_graph_destroy(g);
  }
}

/* Every variant compiles, including the clustered-subgroup one that
 * lavapipe cannot run, and f16 with vectors along k. */
Test(gemv_template, variants_compile) {
  char *dir = vt_tempdir();
  cg_compiler_opts o = {.cache_dir = dir};
  cg_compiler *cc;
  T_OK(cg_compiler_create(&o, &cc));
  ir_target big = big_target();
  static const struct {
    int64_t m, k, n;
    int tb, has_c;
    ir_dtype dt;
    const char *sched, *use_sg, *wk;
  } v[] = {
      {4, 64, 100, 0, 1, IR_F32, "WG_N=2,WG_K=64,VEC=4,UNROLL=4,SG=1", "2", "0"},
      {8, 64, 100, 1, 0, IR_F16, "WG_N=4,WG_K=16,VEC=4,UNROLL=8,SG=1", "2", "1"},
      {1, 33, 7, 1, 1, IR_F16, "WG_N=1,WG_K=128,VEC=2,UNROLL=2,SG=0", "0", "1"},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_graph *g;
    ir_node *n = gemm_node(&g, v[i].dt, v[i].m, v[i].k, v[i].n, v[i].tb, v[i].has_c);
    T_OK(ir_node_set_enum(g, n, IR_A_ACT, IR_ACT_SIGMOID));
    cg_schedule s;
    T_OK(cg_schedule_parse(&cg_gemm_gemv_template, v[i].sched, &s));
    cg_kernel k;
    T_OK(cg_node_gemm(n, &cg_gemm_gemv_template, &s, &big, &k));
    cr_assert_str_eq(define_of(&k, "USE_SG"), v[i].use_sg);
    cr_assert_str_eq(define_of(&k, "WK"), v[i].wk);
    cg_spirv spv;
    T_OK(cg_kernel_compile(cc, &k, &spv));
    cr_assert_gt(spv.bytes, 100);
    cg_spirv_free(&spv);
    ir_graph_destroy(g);
  }
  cg_compiler_destroy(cc);
  vt_rmdir(dir);
  free(dir);
}
