/* The gemm / matmul templates on the device against the CPU reference
 * (rt_cpu_run_node on the same node; runtime/cpu/k_matmul.c), random
 * non-zero inputs in [-1, 1), over 29 shape/attribute combinations (odd
 * M/N/K, K not divisible by BK, GEMV, large K, transposes, alpha/beta, C of
 * shapes [], [N], [1,N], [M,1], [1,1], [M,N], fused activations, batch
 * broadcasting, 1-D operands), f32 and f16: the default tiled schedule on
 * every case, and 12 sampled points of the tiled space (two fixed extremes
 * and 10 drawn with a fixed seed) on 7 cases each. The cooperative-matrix
 * template's instantiation is unit-tested on synthetic targets and compiled
 * with shaderc; it runs only on a device with VK_NV_cooperative_matrix.
 *
 * Bounds, per element (|got - want| <= rtol*|want| + atol):
 *   atol = L * (K + 4) * u * S, with S = |alpha| * sum_k |a_ik b_kj| +
 *     |beta c_ij| (computed by the reference on |A|, |B|, |C|), u = 2^-24
 *     for fp32 accumulation (2^-11 for fp16 accumulation), K + 4 roundings
 *     (the K-term sum, alpha, beta*c, the add): the standard worst-case bound
 *     of a floating-point dot product, whatever the summation order. A
 *     relative bound alone cannot hold where the sum cancels to near zero.
 *     L = 1 without activation, 2 with one (their slopes are <= 1.5 for the
 *     parameters used).
 *   f32: rtol 1e-4.
 *   f16: rtol 2^-10 (the shader rounds its fp32 result to f16 once, the
 *     reference its double result: one f16 ulp apart at most), atol plus
 *     2^-24 (the f16 subnormal step). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/binary.h"
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

static const gcase CASES[] = {
    /* gemm */
    {G, 2, {1, 1}, 2, {1, 1}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {G, 2, {7, 13}, 2, {13, 5}, 1, {5}, 0, 0, 1, 1, IR_ACT_RELU, 0, 0},
    {G, 2, {33, 17}, 2, {17, 65}, 2, {33, 65}, 0, 0, 0.5f, -1.5f, IR_ACT_NONE, 0, 0},
    {G, 2, {1, 300}, 2, {300, 70}, 1, {70}, 0, 0, 1, 1, IR_ACT_SIGMOID, 0, 0}, /* GEMV */
    {G, 2, {16, 2048}, 2, {2048, 24}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},   /* large K */
    {G, 2, {9, 20}, 2, {9, 31}, 2, {20, 1}, 1, 0, 1, 1, IR_ACT_SILU, 0, 0},  /* trans_a */
    {G, 2, {18, 40}, 2, {12, 40}, 2, {1, 1}, 0, 1, 1, 1, IR_ACT_NONE, 0, 0}, /* trans_b */
    {G, 2, {64, 64}, 2, {64, 64}, 2, {64, 64}, 1, 1, 2.0f, 0.25f, IR_ACT_TANH, 0, 0},
    {G, 2, {64, 128}, 2, {128, 256}, 1, {256}, 0, 0, 1, 1, IR_ACT_LEAKY_RELU, 0.1f, 0},
    {G, 2, {50, 33}, 2, {33, 1}, 2, {50, 1}, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},  /* N = 1 */
    {G, 2, {17, 1}, 2, {1, 19}, 0, {0}, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},       /* K = 1, scalar C */
    {G, 2, {130, 96}, 2, {96, 80}, 2, {1, 80}, 0, 0, 1, 0, IR_ACT_CLIP, -0.5f, 0.75f},
    {G, 2, {40, 36}, 2, {40, 12}, 2, {36, 12}, 1, 0, 1, 1, IR_ACT_HARD_SIGMOID, 0.2f, 0.5f},
    {G, 2, {20, 44}, 2, {28, 44}, NOC, 0, 1, 1, 1, IR_ACT_ELU, 0.7f, 0},
    {G, 2, {3, 5}, 2, {5, 2}, 2, {3, 2}, 0, 0, -1.0f, 0, IR_ACT_HARD_SWISH, 0, 0},
    {G, 2, {1, 1000}, 2, {1000, 1}, NOC, 0, 0, 1, 1, IR_ACT_RELU6, 0, 0},
    /* matmul */
    {MM, 4, {2, 1, 6, 10}, 3, {3, 10, 7}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 1, {37}, 2, {37, 29}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 2, {23, 37}, 1, {37}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 1, {100}, 1, {100}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 3, {4, 9, 16}, 2, {16, 8}, NOC, 0, 0, 1, 1, IR_ACT_RELU, 0, 0},
    {MM, 3, {5, 3, 7}, 3, {5, 7, 9}, NOC, 0, 0, 1, 1, IR_ACT_GELU, 0, 0},
    {MM, 5, {2, 3, 1, 4, 5}, 4, {3, 6, 5, 2}, NOC, 0, 0, 1, 1, IR_ACT_GELU_TANH, 0, 0},
    {MM, 2, {1, 12}, 2, {12, 300}, NOC, 0, 0, 1, 1, IR_ACT_SIGMOID, 0, 0},
    {MM, 4, {1, 1, 8, 64}, 4, {1, 1, 64, 32}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 3, {3, 2, 1}, 2, {1, 4}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 3, {2, 64, 48}, 3, {2, 48, 64}, NOC, 0, 0, 1, 1, IR_ACT_TANH, 0, 0},
    {MM, 2, {6, 5}, 4, {2, 3, 5, 4}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 1, {7}, 3, {2, 7, 3}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    /* one row per batch, b shared: the batch folds into M (ViT's projections) */
    {MM, 3, {37, 1, 24}, 2, {24, 40}, NOC, 0, 0, 1, 1, IR_ACT_NONE, 0, 0},
    {MM, 4, {2, 3, 5, 6}, 2, {6, 9}, NOC, 0, 0, 1, 1, IR_ACT_RELU, 0, 0},
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

/* The sampled points run on these (cheap ones covering every addressing
 * kind: odd sizes, both transposes, C broadcasts, 1-D and batched matmul). */
static const int POINT_CASES[] = {2, 5, 6, 12, 16, 18, 22};
#define N_POINT_CASES ((int)(sizeof POINT_CASES / sizeof POINT_CASES[0]))

static ir_type out_type(const gcase *c, ir_dtype dt) {
  if (c->op == IR_OP_GEMM) {
    int64_t d[2] = {c->ta ? c->a[1] : c->a[0], c->tb ? c->b[0] : c->b[1]};
    return ir_type_make(dt, 2, d);
  }
  /* NumPy matmul: broadcast batch axes, then M (if a is 2-D+), N (if b is) */
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

/* A node of the case's op over in[0..n_in) with its attributes; abs_only:
 * |alpha|, |beta| and no activation (for the error scale S). */
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

/* |t| as f32. */
typedef struct env {
  vt_env v;
  double max_err[2]; /* worst |got-want| / (rtol|want| + atol) seen, f32 and f16 */
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

/* Runs case c with template tmpl / schedule s on the device and compares
 * with the reference; acc_bits is the accumulation precision. */
static void check(env *e, const gcase *c, ir_dtype dt, const cg_template *tmpl,
                  const cg_schedule *s, int acc_bits, uint64_t seed) {
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
  T_OK(cg_kernel_for_node(n, tmpl, s, e->v.t, &k));
  cr_assert_eq(k.tmpl, tmpl, "%s: instantiated %s, not %s", k.key, k.tmpl->name, tmpl->name);
  vt_poisoned(&to, 0x7f, &got); /* unwritten elements show */
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, n_in, &got);

  bool f16 = dt == IR_F16;
  double u = acc_bits == 16 ? 1.0 / 2048 : 1.0 / (1 << 24);
  double lip = c->act == IR_ACT_NONE ? 1 : 2;
  double rtol = f16 ? 1.0 / 1024 : 1e-4;
  double kk = (double)inner_k(c) + 4;
  char sched[96];
  cg_schedule_format(tmpl, s, sched, sizeof sched);
  int64_t cnt = rt_tensor_numel(&want), bad;
  double worst =
      vt_check_bound(&got, &want, &scale, rtol, lip * kk * u, f16 ? 1.0 / (1 << 24) : 0, &bad);
  if (worst > e->max_err[f16]) e->max_err[f16] = worst;
  if (bad >= 0)
    cr_assert_fail("%s [%s %s] element %lld of %lld: got %.9g want %.9g", k.key, tmpl->name,
                   sched, (long long)bad, (long long)cnt, rt_load_f(&got, bad),
                   rt_load_f(&want, bad));
  for (int i = 0; i < n_in; i++) rt_tensor_free(&in[i]), rt_tensor_free(&ab[i]);
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  rt_tensor_free(&scale);
  ir_graph_destroy(g);
  ir_graph_destroy(g_abs);
}

/* ---- the tiled template on the device ------------------------------------ */

static void default_schedule(ir_dtype dt) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, dt != IR_F16 || e.v.t->storage_16bit, "16-bit storage");
  for (int c = 0; c < N_CASES; c++)
    check(&e, &CASES[c], dt, &cg_gemm_tiled_template, &cg_gemm_tiled_template.dflt, 32,
          100u * (uint64_t)c + (dt == IR_F16));
  cr_log_info("%s: worst error / bound %.3g", ir_dtype_name(dt), e.max_err[dt == IR_F16]);
  vt_env_close(&e.v);
}

Test(vk_gemm, default_schedule_f32) { default_schedule(IR_F32); }
Test(vk_gemm, default_schedule_f16) { default_schedule(IR_F16); }

/* The sampled points: the smallest tile (2x2 invocations of 1x1, BK 4), a
 * wide flat one, then points drawn with a fixed seed among those valid on
 * the device. */
#define N_POINTS 12
static void sample_points(const ir_target *t, cg_schedule *pts) {
  const cg_template *tp = &cg_gemm_tiled_template;
  T_OK(cg_schedule_parse(tp, "WG_M=2,WG_N=2,TM=1,TN=1,BK=4", &pts[0]));
  T_OK(cg_schedule_parse(tp, "WG_M=4,WG_N=32,TM=2,TN=8,BK=8", &pts[1]));
  vt_sample_random(tp, t, 4242, 2, N_POINTS, pts);
}

/* Each point on the point cases, f32 and f16 alternating over the cases. */
static void points(int first, int step) {
  env e;
  env_open(&e);
  const ir_target *t = e.v.t;
  cg_schedule pts[N_POINTS];
  sample_points(t, pts);
  for (int p = first; p < N_POINTS; p += step) {
    T_OK(cg_schedule_check(&cg_gemm_tiled_template, &pts[p], t));
    for (int j = 0; j < N_POINT_CASES; j++) {
      ir_dtype dt = (p + j) % 2 && t->storage_16bit ? IR_F16 : IR_F32;
      check(&e, &CASES[POINT_CASES[j]], dt, &cg_gemm_tiled_template, &pts[p], 32,
            7000u + 31u * (uint64_t)p + (uint64_t)j);
    }
  }
  vt_env_close(&e.v);
}

/* gemm_tiled_vec4 (4x4 output blocks per invocation, vec4 shared loads,
 * transposed stores swizzled): its default on every case (transposes, C
 * broadcasts, batches, vectors along k or m), f32 and f16 alternating; on
 * the point cases the smallest tile, the family's three rungs (BK 8, 16 and
 * 32: each its own swizzle) and three sampled points. */
Test(vk_gemm, tiled_vec4) {
  env e;
  env_open(&e);
  const ir_target *t = e.v.t;
  const cg_template *tp = &cg_gemm_tiled_vec4_template;
  for (int c = 0; c < N_CASES; c++) {
    ir_dtype dt = c % 2 && t->storage_16bit ? IR_F16 : IR_F32;
    check(&e, &CASES[c], dt, tp, &tp->dflt, 32, 8100u + (uint64_t)c);
  }
  cg_schedule pts[7];
  T_OK(cg_schedule_parse(tp, "WG_M=4,WG_N=4,TM=4,TN=4,BK=8", &pts[0]));
  T_OK(cg_schedule_parse(tp, "WG_M=8,WG_N=8,TM=8,TN=8,BK=8", &pts[1]));
  T_OK(cg_schedule_parse(tp, "WG_M=8,WG_N=8,TM=8,TN=4,BK=16", &pts[2]));
  T_OK(cg_schedule_parse(tp, "WG_M=8,WG_N=8,TM=4,TN=4,BK=32", &pts[3]));
  vt_sample_random(tp, t, 977, 4, 7, pts);
  for (int p = 0; p < 7; p++) {
    T_OK(cg_schedule_check(tp, &pts[p], t));
    for (int j = 0; j < N_POINT_CASES; j++) {
      ir_dtype dt = (p + j) % 2 && t->storage_16bit ? IR_F16 : IR_F32;
      check(&e, &CASES[POINT_CASES[j]], dt, tp, &pts[p], 32,
            8200u + 31u * (uint64_t)p + (uint64_t)j);
    }
  }
  vt_env_close(&e.v);
}

/* Four tests of a quarter of the points each: one test stays short on a
 * cold lavapipe shader cache (every point is a new pipeline to compile). */
Test(vk_gemm, points_0) { points(0, 4); }
Test(vk_gemm, points_1) { points(1, 4); }
Test(vk_gemm, points_2) { points(2, 4); }
Test(vk_gemm, points_3) { points(3, 4); }

/* ---- the cooperative-matrix template on the device (where it exists) ------ */

Test(vk_gemm, coopmat_on_device) {
  env e;
  env_open(&e);
  const ir_target *t = e.v.t;
  const char *lacks = cg_coopmat_lacks(t);
  vt_env_skip_unless(&e.v, !lacks && cg_coopmat_shape(t, 32) >= 0,
                     lacks ? lacks : "no f16 x f16 -> f32 cooperative-matrix shape");
  static const char *const pts[] = {
      "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32", "WM=1,WN=1,TM=1,TN=1,BK=16,ACC=32",
      "WM=2,WN=4,TM=4,TN=2,BK=64,ACC=32", "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=16",
      "WM=4,WN=1,TM=1,TN=4,BK=16,ACC=16",
  };
  for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
    cg_schedule s;
    T_OK(cg_schedule_parse(&cg_gemm_coopmat_template, pts[p], &s));
    if (cg_coopmat_shape(t, s.v[5]) < 0) continue;
    vkml_status st = cg_schedule_check(&cg_gemm_coopmat_template, &s, t);
    if (st) {
      vkml_status_free(st);
      continue;
    }
    for (int c = 0; c < N_CASES; c++) {
      /* fp16 accumulation of K = 1000+ terms is outside its bound's use */
      if (s.v[5] == 16 && inner_k(&CASES[c]) > 512) continue;
      check(&e, &CASES[c], IR_F16, &cg_gemm_coopmat_template, &s, s.v[5],
            900u + 50u * (uint64_t)p + (uint64_t)c);
    }
  }
  vt_env_close(&e.v);
}

/* Whether case c (f16) instantiates with tmpl / s on t. */
static vkml_status instantiates(const gcase *c, const cg_template *tmpl, const cg_schedule *s,
                                const ir_target *t) {
  t_rng r = t_rng_make(1);
  int n_in = c->rc >= 0 ? 3 : 2;
  rt_tensor in[3];
  in[0] = t_tensor_random(&r, IR_F16, c->ra, c->a, -1, 1);
  in[1] = t_tensor_random(&r, IR_F16, c->rb, c->b, -1, 1);
  if (n_in == 3) in[2] = t_tensor_random(&r, IR_F16, c->rc, c->c, -1, 1);
  ir_type to = out_type(c, IR_F16);
  ir_graph *g;
  ir_node *n = make_node(&g, c, in, n_in, &to, false);
  cg_kernel k;
  vkml_status st = cg_kernel_for_node(n, tmpl, s, t, &k);
  ir_graph_destroy(g);
  for (int i = 0; i < n_in; i++) rt_tensor_free(&in[i]);
  return st;
}

/* gemm_coopmat2 (VK_NV_cooperative_matrix2) on the device, where it exists:
 * tiles larger and smaller than the cases, both accumulators, both
 * workgroup sizes the H100 lists. */
Test(vk_gemm, coopmat2_on_device) {
  env e;
  env_open(&e);
  const ir_target *t = e.v.t;
  vt_env_skip_unless(&e.v, t->coopmat2 && cg_compiler_has_glslang15(),
                     "VK_NV_cooperative_matrix2 (or glslang 15 in this build)");
  static const char *const pts[] = {
      "BM=128,BN=128,BK=32,ACC=32,WG=256", "BM=32,BN=32,BK=16,ACC=32,WG=128",
      "BM=64,BN=256,BK=64,ACC=32,WG=256", "BM=64,BN=64,BK=32,ACC=16,WG=128",
      "BM=256,BN=64,BK=16,ACC=16,WG=256",
  };
  int ran = 0;
  for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
    cg_schedule s;
    T_OK(cg_schedule_parse(&cg_gemm_coopmat2_template, pts[p], &s));
    for (int c = 0; c < N_CASES; c++) {
      if (s.v[3] == 16 && inner_k(&CASES[c]) > 512) continue;
      vkml_status st = instantiates(&CASES[c], &cg_gemm_coopmat2_template, &s, t);
      if (st) { /* a shape the device does not list, or no unit stride */
        cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED, "%s", vkml_status_message(st));
        vkml_status_free(st);
        continue;
      }
      check(&e, &CASES[c], IR_F16, &cg_gemm_coopmat2_template, &s, s.v[3],
            1300u + 50u * (uint64_t)p + (uint64_t)c);
      ran++;
    }
  }
  cr_assert_gt(ran, 0, "no point instantiated on %s", t->name);
  vt_env_close(&e.v);
}

/* ---- templates and instantiation without a device --------------------------- */

Test(gemm_template, registered_and_defaults_valid_on_minimum) {
  ir_target t;
  ir_target_minimum(&t);
  const cg_template *tp[3] = {&cg_gemm_tiled_template, &cg_gemm_coopmat_template,
                              &cg_gemm_tiled_vec4_template};
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(cg_template_find(tp[i]->name), tp[i], "%s is not registered", tp[i]->name);
    T_OK(cg_schedule_check(tp[i], &tp[i]->dflt, &t));
  }
  char buf[96];
  cg_schedule_format(&cg_gemm_tiled_template, &cg_gemm_tiled_template.dflt, buf, sizeof buf);
  cr_assert_str_eq(buf, "WG_M=8,WG_N=16,TM=8,TN=4,BK=16");
}

/* Every point the constraints accept on a target fits it: invocations and
 * the tiles' shared memory (4 * BK * (BM + BN) bytes, before padding); and
 * every point they reject exceeds one of them. */
Test(gemm_template, tiled_constraints_match_the_sizes) {
  ir_target t;
  ir_target_minimum(&t);
  const cg_template *tp = &cg_gemm_tiled_template;
  int n_ok = 0;
  for (int64_t i = 0; i < cg_space_size(tp); i++) {
    cg_schedule s;
    cg_space_point(tp, i, &s);
    int64_t wg = (int64_t)s.v[0] * s.v[1], bm = (int64_t)s.v[0] * s.v[2],
            bn = (int64_t)s.v[1] * s.v[3], bk = s.v[4];
    bool fits = wg <= 128 && 4 * bk * (bm + bn) <= 16384;
    bool halves = 8 * bk * bm <= 16384 && 8 * bk * bn <= 16384;
    vkml_status st = cg_schedule_check(tp, &s, &t);
    if (!st) {
      cr_assert(fits, "point %lld accepted but does not fit", (long long)i);
      n_ok++;
    } else {
      cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
      cr_assert(!(wg <= 128 && halves), "point %lld rejected although it fits", (long long)i);
      vkml_status_free(st);
    }
  }
  cr_assert_gt(n_ok, 200, "only %d valid points on the minimum target", n_ok);
}

Test(gemm_template, coopmat_shape_choice) {
  ir_target t = vt_coop_target();
  cr_assert_eq(cg_coopmat_shape(&t, 32), 2); /* 16x16x16 preferred */
  cr_assert_eq(cg_coopmat_shape(&t, 16), 0); /* the only f16-accumulating one */
  t.coopmat_shapes[2].k = 32;                     /* 16x16x32 is not stageable */
  cr_assert_eq(cg_coopmat_shape(&t, 32), 1);
  t.n_coopmat_shapes = 1;
  cr_assert_eq(cg_coopmat_shape(&t, 32), -1);
  ir_target m;
  ir_target_minimum(&m);
  cr_assert_eq(cg_coopmat_shape(&m, 32), -1);
}

Test(gemm_template, coopmat_instantiation) {
  ir_target t = vt_coop_target();
  ir_graph *g;
  /* gemm f16 [100,64]^T... : a [64,100] trans_a, b [64,72], c [72] */
  int ranks[3] = {2, 2, 1};
  const int64_t dims[3][IR_MAX_RANK] = {{64, 100}, {64, 72}, {72}};
  int64_t od[2] = {100, 72};
  ir_node *n = vt_type_node(&g, IR_OP_GEMM, IR_F16, 3, ranks, dims, 2, od);
  T_OK(ir_node_set_int(g, n, IR_A_TRANS_A, 1));
  T_OK(ir_node_set_float(g, n, IR_A_ALPHA, 0.5f));
  cg_kernel k;
  /* the family's own choice on this device: cooperative matrices */
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
  cr_assert_eq(k.tmpl, &cg_gemm_coopmat_template);
  cr_assert_eq(k.opt, CG_OPT_ZERO);
  cr_assert_eq(k.n_buffers, 4);
  cr_assert_str_eq(vt_define_of(&k, "MS"), "16");
  cr_assert_str_eq(vt_define_of(&k, "NS"), "16");
  cr_assert_str_eq(vt_define_of(&k, "KS"), "16");
  cr_assert_str_eq(vt_define_of(&k, "SG"), "32");
  cr_assert_str_eq(vt_define_of(&k, "HAS_C"), "1");
  /* a is [K,M] with M contiguous (100 = 4*25: vectors of 4); b is [K,N] with
   * N contiguous (72 = 8*9: vectors of 8, uvec4) */
  cr_assert_str_eq(vt_define_of(&k, "A_LOAD"), "4");
  cr_assert_str_eq(vt_define_of(&k, "B_LOAD"), "8");
  /* the default ladder's last rung (none gives 256 workgroups): 16x16 tiles */
  char sc[96];
  cg_schedule_format(k.tmpl, &k.schedule, sc, sizeof sc);
  cr_assert_str_eq(sc, "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32");
  cr_assert_eq(k.groups[0], 5);
  cr_assert_eq(k.groups[1], 7);
  cr_assert_eq(k.groups[2], 1);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_M), 100);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_N), 72);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_K), 64);
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_A_SI), 1);   /* A_SI */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_A_SK), 100); /* A_SK */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_C_SI), 0);   /* C broadcast along i */
  cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_C_SJ), 1);
  float alpha;
  uint32_t ab = vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_ALPHA);
  memcpy(&alpha, &ab, 4);
  cr_assert_float_eq(alpha, 0.5f, 0);
  cr_assert_str_eq(k.key, "gemm(f16[64,100],f16[64,72],f16[72])->f16[100,72]{trans_a=1,alpha=0.5}");

  /* fp16 accumulation: the 16x8x16 shape */
  cg_schedule s;
  T_OK(cg_schedule_parse(&cg_gemm_coopmat_template, "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=16", &s));
  T_OK(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k));
  cr_assert_str_eq(vt_define_of(&k, "NS"), "8");
  cr_assert_eq(k.groups[0], 3); /* 72 / (2*2*8) */

  /* the tiled template when asked for */
  T_OK(cg_node_gemm(n, &cg_gemm_tiled_template, NULL, &t, &k));
  cr_assert_eq(k.tmpl, &cg_gemm_tiled_template);
  cr_assert_eq(k.opt, CG_OPT_PERFORMANCE);

  /* without a subgroup size of 32 the widest workgroups no longer fit */
  t.subgroup_size = 64;
  t.max_workgroup_invocations = t.max_workgroup_size[0] = 512;
  T_OK(cg_schedule_parse(&cg_gemm_coopmat_template, "WM=4,WN=4,TM=1,TN=1,BK=16,ACC=32", &s));
  T_OK(cg_schedule_check(&cg_gemm_coopmat_template, &s, &t));
  t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k),
                 VKML_CODE_UNSUPPORTED, "invocations");
  /* shared memory is checked with the device's shapes and padding */
  t = vt_coop_target();
  t.max_shared_bytes = 20000;
  T_OK(cg_schedule_parse(&cg_gemm_coopmat_template, "WM=2,WN=2,TM=2,TN=2,BK=64,ACC=32", &s));
  t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k),
                 VKML_CODE_UNSUPPORTED, "shared memory");

  /* what the path does not take */
  t = vt_coop_target();
  t.coopmat_nv = false;
  t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "lacks cooperative matrices");
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k)); /* the family falls back to tiles */
  cr_assert_eq(k.tmpl, &cg_gemm_tiled_vec4_template);
  t = vt_coop_target();
  t.fp16_arith = false;
  t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "fp16 arithmetic");
  t = vt_coop_target();
  t.vulkan_memory_model = false;
  t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "memory model");
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
  cr_assert_eq(k.tmpl, &cg_gemm_tiled_vec4_template);
  ir_graph_destroy(g);

  int64_t od32[2] = {100, 72};
  n = vt_type_node(&g, IR_OP_GEMM, IR_F32, 3, ranks, dims, 2, od32);
  T_OK(ir_node_set_int(g, n, IR_A_TRANS_A, 1));
  t = vt_coop_target();
  t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "f16 only");
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
  cr_assert_eq(k.tmpl, &cg_gemm_tiled_vec4_template);
  ir_graph_destroy(g);
}

/* Batched matmul: merged batch axes, strides, 1-D operands (the tiled
 * template: the family would pick gemv for these few rows). */
Test(gemm_template, matmul_plan) {
  ir_target t;
  ir_target_minimum(&t);
  ir_graph *g;
  cg_kernel k;
  /* [2,1,6,10] x [3,10,7] -> [2,3,6,7]: batch axes (inner first) 3 (a: 0,
   * b: 70), 2 (a: 60, b: 0) */
  {
    int ranks[2] = {4, 3};
    const int64_t dims[2][IR_MAX_RANK] = {{2, 1, 6, 10}, {3, 10, 7}};
    int64_t od[4] = {2, 3, 6, 7};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 4, od);
    T_OK(cg_node_matmul(n, &cg_gemm_tiled_template, NULL, &t, &k));
    cr_assert_eq(k.groups[2], 6);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_NBD), 2);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BD0), 3);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BSA0), 0);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BSB0), 70);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BD1), 2);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BSA1), 60);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BSB1), 0);
    cr_assert_eq(k.n_buffers, 3);
    cr_assert_str_eq(k.key, "matmul(f32[2,1,6,10],f32[3,10,7])->f32[2,3,6,7]");
    ir_graph_destroy(g);
  }
  /* [4,5,8,16] x [4,5,16,8]: both contiguous over the batch: one axis of 20 */
  {
    int ranks[2] = {4, 4};
    const int64_t dims[2][IR_MAX_RANK] = {{4, 5, 8, 16}, {4, 5, 16, 8}};
    int64_t od[4] = {4, 5, 8, 8};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 4, od);
    T_OK(ir_node_set_enum(g, n, IR_A_ACT, IR_ACT_RELU));
    T_OK(cg_node_matmul(n, &cg_gemm_tiled_template, NULL, &t, &k));
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_NBD), 1);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BD0), 20);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BSA0), 128);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_BSB0), 128);
    cr_assert_str_eq(vt_define_of(&k, "A_LOAD"), "14"); /* along k, vectors of 4 */
    cr_assert_str_eq(vt_define_of(&k, "B_LOAD"), "4");  /* along n */
    cr_assert_str_eq(k.key, "matmul(f32[4,5,8,16],f32[4,5,16,8])->f32[4,5,8,8]{act=relu}");
    ir_graph_destroy(g);
  }
  /* [197,1,768] x [768,2304]: b shared along the batch, a's matrices
   * consecutive: one 197x768 by 768x2304 GEMM (no batch axis left); with an
   * outer batch axis too ([2,3,5,6] x [6,9]) both fold: 30 rows */
  {
    int ranks[2] = {3, 2};
    const int64_t dims[2][IR_MAX_RANK] = {{197, 1, 768}, {768, 2304}};
    int64_t od[3] = {197, 1, 2304};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 3, od);
    T_OK(cg_node_matmul(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_gemm_tiled_vec4_template, "%s", k.tmpl->name);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_M), 197);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_NBD), 0);
    cr_assert_eq(k.groups[2], 1);
    ir_graph_destroy(g);
    int ranks2[2] = {4, 2};
    const int64_t dims2[2][IR_MAX_RANK] = {{2, 3, 5, 6}, {6, 9}};
    int64_t od2[4] = {2, 3, 5, 9};
    n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks2, dims2, 4, od2);
    T_OK(cg_node_matmul(n, &cg_gemm_tiled_template, NULL, &t, &k));
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_M), 30);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_NBD), 0);
    ir_graph_destroy(g);
  }
  /* [37] x [37]: a 1x1 result from 1-D operands, no vectors (37 is odd) */
  {
    int ranks[2] = {1, 1};
    const int64_t dims[2][IR_MAX_RANK] = {{37}, {37}};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 0, NULL);
    T_OK(cg_node_matmul(n, &cg_gemm_tiled_template, NULL, &t, &k));
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_M), 1);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_N), 1);
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_GEMM_PARAMS_K), 37);
    cr_assert_str_eq(vt_define_of(&k, "A_LOAD"), "11");
    cr_assert_str_eq(vt_define_of(&k, "B_LOAD"), "11");
    ir_graph_destroy(g);
  }
}

Test(gemm_template, unsupported_workloads) {
  ir_target t;
  ir_target_minimum(&t);
  ir_graph *g;
  cg_kernel k;
  int ranks[2] = {2, 2};
  const int64_t dims[2][IR_MAX_RANK] = {{3, 4}, {4, 5}};
  int64_t od[2] = {3, 5};
  ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_I32, 2, ranks, dims, 2, od);
  t_expect_error(cg_node_matmul(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "not f32 or f16");
  ir_graph_destroy(g);
  n = vt_type_node(&g, IR_OP_MATMUL, IR_F16, 2, ranks, dims, 2, od);
  t_expect_error(cg_node_matmul(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "16-bit storage");
  t_expect_error(cg_node_matmul(n, &cg_binary_template, NULL, &t, &k),
                 VKML_CODE_INVALID_ARGUMENT, "not a gemm template");
  ir_graph_destroy(g);
  /* a grid past the device's workgroup counts */
  const int64_t big[2][IR_MAX_RANK] = {{1, 2}, {2, 70000 * 64}};
  int64_t obig[2] = {1, 70000 * 64};
  n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, big, 2, obig);
  t_expect_error(cg_node_matmul(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "grid");
  ir_graph_destroy(g);
}

/* VK_KHR_cooperative_matrix, the portable path: chosen over the NV one where
 * the device has both and the build has glslang 15; its own shape list (here
 * 16x16x16 for fp16 accumulation, where NV lists 16x8x16); the Vulkan memory
 * model needed as for NV; without glslang 15 a KHR-only device has no
 * coopmat path. */
Test(gemm_template, coopmat_khr_choice) {
  ir_target t = vt_coop_khr_target();
  ir_graph *g;
  int ranks[2] = {2, 2};
  const int64_t dims[2][IR_MAX_RANK] = {{64, 96}, {96, 80}};
  int64_t od[2] = {64, 80};
  ir_node *n = vt_type_node(&g, IR_OP_GEMM, IR_F16, 2, ranks, dims, 2, od);
  cg_kernel k;
  cg_schedule s;
  T_OK(cg_schedule_parse(&cg_gemm_coopmat_template, "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=16", &s));
  if (cg_compiler_has_glslang15()) {
    cr_assert_eq(cg_coopmat_api_of(&t), CG_COOPMAT_KHR);
    T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_gemm_coopmat_template);
    cr_assert_str_eq(vt_define_of(&k, "CM_KHR"), "1");
    cr_assert_eq(k.opt, CG_OPT_GLSLANG15);
    T_OK(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k));
    cr_assert_str_eq(vt_define_of(&k, "NS"), "16");
    t.vulkan_memory_model = false;
    t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k), VKML_CODE_UNSUPPORTED,
                   "memory model");
    /* VKML_COOPMAT=nv: the NV form, with its shapes */
    t = vt_coop_khr_target();
    t.coopmat_khr = false;
    cr_assert_eq(cg_coopmat_api_of(&t), CG_COOPMAT_NV);
    T_OK(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k));
    cr_assert_str_eq(vt_define_of(&k, "CM_KHR"), "0");
    cr_assert_str_eq(vt_define_of(&k, "NS"), "8");
  } else {
    t.coopmat_nv = false;
    cr_assert_eq(cg_coopmat_api_of(&t), CG_COOPMAT_NONE);
    t_expect_error(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k), VKML_CODE_UNSUPPORTED,
                   "glslang 15");
  }
  ir_graph_destroy(g);
}

/* gemm_coopmat's default: the first of 128x128 (2x2 subgroups of 4x4
 * matrix tiles, k in 32s, fp32 accumulation), 64x64, 64x32, 32x32, 32x16
 * and 16x16 tiles (k in 64s) that gives 256 workgroups (batches count). */
Test(gemm_template, coopmat_default_tiles) {
  ir_target t = vt_coop_khr_target();
  if (cg_coopmat_lacks(&t)) t = vt_coop_target();
  cr_assert_null(cg_coopmat_lacks(&t));
  static const struct {
    int64_t m, k, n;
    const char *want;
  } v[] = {
      {4096, 4096, 4096, "WM=2,WN=2,TM=4,TN=4,BK=32,ACC=32"},
      {2048, 64, 2048, "WM=2,WN=2,TM=4,TN=4,BK=32,ACC=32"}, /* 16 x 16 = 256 tiles */
      {2048, 64, 1920, "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32"}, /* 16 x 15 */
      /* ViT-B's projections: 7 x 48 tiles of 32x16 */
      {197, 768, 768, "WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32"},
      {197, 3072, 768, "WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32"},
      {197, 768, 3072, "WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32"}, /* 4 x 96 of 64x32 */
      {197, 768, 2304, "WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32"}, /* 4 x 72 */
      {64, 32, 64, "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32"},     /* too few for any */
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_graph *g;
    int ranks[2] = {2, 2};
    const int64_t dims[2][IR_MAX_RANK] = {{v[i].m, v[i].k}, {v[i].k, v[i].n}};
    int64_t od[2] = {v[i].m, v[i].n};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F16, 2, ranks, dims, 2, od);
    cg_kernel k;
    T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_gemm_coopmat_template);
    char got[128];
    cg_schedule_format(k.tmpl, &k.schedule, got, sizeof got);
    cr_assert_str_eq(got, v[i].want, "%lldx%lldx%lld", (long long)v[i].m, (long long)v[i].k,
                     (long long)v[i].n);
    ir_graph_destroy(g);
  }
}

/* The family's default without tensor cores: gemm_tiled_vec4 at the first
 * of 64x64 and 64x32 tiles that gives 512 workgroups, else 32x32 (ViT-B's
 * fp32 projections, M 197); gemm_tiled named without a schedule: its own
 * default. */
Test(gemm_template, tiled_default_tiles) {
  ir_target t;
  ir_target_minimum(&t);
  static const struct {
    int64_t m, k, n;
    const char *want;
  } v[] = {
      {2048, 64, 1024, "WG_M=8,WG_N=8,TM=8,TN=8,BK=8"},  /* 32 x 16 tiles of 64x64 */
      {1024, 64, 1024, "WG_M=8,WG_N=8,TM=8,TN=4,BK=16"}, /* 16 x 32 of 64x32 */
      {1024, 64, 512, "WG_M=8,WG_N=8,TM=4,TN=4,BK=32"},  /* 16 x 16 of 64x32: 32x32 */
      {197, 768, 2304, "WG_M=8,WG_N=8,TM=4,TN=4,BK=32"}, /* 7 x 72 of 32x32 */
      {20, 30, 40, "WG_M=8,WG_N=8,TM=4,TN=4,BK=32"},     /* small: the last */
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_graph *g;
    int ranks[2] = {2, 2};
    const int64_t dims[2][IR_MAX_RANK] = {{v[i].m, v[i].k}, {v[i].k, v[i].n}};
    int64_t od[2] = {v[i].m, v[i].n};
    ir_node *n = vt_type_node(&g, IR_OP_MATMUL, IR_F32, 2, ranks, dims, 2, od);
    cg_kernel k;
    T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_gemm_tiled_vec4_template);
    char got[128];
    cg_schedule_format(k.tmpl, &k.schedule, got, sizeof got);
    cr_assert_str_eq(got, v[i].want, "%lldx%lldx%lld", (long long)v[i].m, (long long)v[i].k,
                     (long long)v[i].n);
    /* named without a schedule: the template's own default */
    T_OK(cg_node_gemm(n, &cg_gemm_tiled_template, NULL, &t, &k));
    cg_schedule_format(k.tmpl, &k.schedule, got, sizeof got);
    cr_assert_str_eq(got, "WG_M=8,WG_N=16,TM=8,TN=4,BK=16");
    ir_graph_destroy(g);
  }
}

/* gemm_coopmat2: only when named (not a default yet); the operands'
 * orientation as defines; Vulkan 1.3 SPIR-V from glslang 15; refused
 * without the extension, for a workgroup size or tile the device does not
 * list, past its workgroup limit; compiles where the build has glslang 15. */
Test(gemm_template, coopmat2) {
  ir_target t = vt_coop2_target();
  const cg_template *tp = &cg_gemm_coopmat2_template;
  cr_assert_eq(cg_template_find("gemm_coopmat2"), tp);
  ir_graph *g;
  int ranks[3] = {2, 2, 1};
  const int64_t dims[3][IR_MAX_RANK] = {{96, 200}, {80, 96}, {80}}; /* both transposed */
  int64_t od[2] = {200, 80};
  ir_node *n = vt_type_node(&g, IR_OP_GEMM, IR_F16, 3, ranks, dims, 2, od);
  T_OK(ir_node_set_int(g, n, IR_A_TRANS_A, 1));
  T_OK(ir_node_set_int(g, n, IR_A_TRANS_B, 1));
  cg_kernel k;
  T_OK(cg_node_gemm(n, NULL, NULL, &t, &k));
  cr_assert_neq(k.tmpl, tp, "the family's default");
  if (!cg_compiler_has_glslang15()) {
    t_expect_error(cg_node_gemm(n, tp, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "glslang 15");
    ir_graph_destroy(g);
    return;
  }
  T_OK(cg_node_gemm(n, tp, NULL, &t, &k));
  cr_assert_eq(k.tmpl, tp);
  cr_assert_eq(k.opt, CG_OPT_GLSLANG15_VK13);
  cr_assert_str_eq(vt_define_of(&k, "A_T"), "1");
  cr_assert_str_eq(vt_define_of(&k, "B_T"), "1");
  cr_assert_str_eq(vt_define_of(&k, "BM"), "128");
  cr_assert_eq(k.groups[0], 1); /* 80 / 128 */
  cr_assert_eq(k.groups[1], 2); /* 200 / 128 */
  char *dir = vt_tempdir();
  cg_compiler_opts o = {.cache_dir = dir};
  cg_compiler *cc;
  T_OK(cg_compiler_create(&o, &cc));
  static const char *const pts[] = {"BM=128,BN=128,BK=32,ACC=32,WG=256",
                                    "BM=32,BN=64,BK=16,ACC=16,WG=128"};
  for (int p = 0; p < 2; p++) {
    cg_schedule s;
    T_OK(cg_schedule_parse(tp, pts[p], &s));
    T_OK(cg_node_gemm(n, tp, &s, &t, &k));
    cg_spirv spv;
    T_OK(cg_kernel_compile(cc, &k, &spv));
    cr_assert_eq(spv.words[1], 0x00010600u, "SPIR-V 1.6");
    cr_assert(vt_has_capability(&spv, 5433), "%s: no CooperativeMatrixTensorAddressingNV", pts[p]);
    cr_assert(vt_has_capability(&spv, 5432), "%s: no CooperativeMatrixPerElementOperationsNV", pts[p]);
    cg_spirv_free(&spv);
  }
  cg_compiler_destroy(cc);
  vt_rmdir(dir);
  free(dir);
  cg_schedule s;
  T_OK(cg_schedule_parse(tp, "BM=128,BN=128,BK=32,ACC=32,WG=256", &s));
  for (int i = 0; i < t.n_coopmat2_shapes; i++) t.coopmat2_invocations[i] = 128;
  t_expect_error(cg_node_gemm(n, tp, &s, &t, &k), VKML_CODE_UNSUPPORTED, "256 invocations");
  t = vt_coop2_target();
  t.coopmat2_max_workgroup = 128;
  T_OK(cg_schedule_parse(tp, "BM=128,BN=128,BK=32,ACC=32,WG=256", &s));
  t_expect_error(cg_node_gemm(n, tp, &s, &t, &k), VKML_CODE_UNSUPPORTED, "exceed");
  t = vt_coop2_target();
  t.coopmat2_shapes[3].m = 48; /* f32 accumulators at 256 invocations: 48-row granules */
  t_expect_error(cg_node_gemm(n, tp, &s, &t, &k), VKML_CODE_UNSUPPORTED, "divides 128x128x32");
  t = vt_coop_khr_target();
  t_expect_error(cg_node_gemm(n, tp, &s, &t, &k), VKML_CODE_UNSUPPORTED,
                 "VK_NV_cooperative_matrix2");
  ir_graph_destroy(g);
}

/* The cooperative-matrix template compiles (at optimisation level zero) for
 * every staging variant and both accumulators, and the module declares the
 * CooperativeMatrixNV capability, or in the KHR form CooperativeMatrixKHR;
 * both with the Vulkan memory model, which glslang adds to either. */
Test(gemm_template, coopmat_compiles) {
  char *dir = vt_tempdir();
  cg_compiler_opts o = {.cache_dir = dir};
  cg_compiler *cc;
  T_OK(cg_compiler_create(&o, &cc));
  static const struct {
    int ta, tb, has_c;
    int64_t m, k, n;
    const char *sched, *a_load, *b_load;
  } v[] = {
      /* vectors of 8 halves along k (A) and n (B) */
      {0, 0, 1, 64, 64, 64, "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32", "18", "8"},
      /* vectors of 4 along m (A transposed) and k (B transposed) */
      {1, 1, 0, 100, 36, 70, "WM=1,WN=4,TM=4,TN=1,BK=16,ACC=16", "4", "14"},
      /* scalars along k */
      {0, 1, 1, 7, 13, 5, "WM=4,WN=1,TM=1,TN=2,BK=64,ACC=32", "11", "11"},
  };
  /* both forms: NV, and KHR where the build has glslang 15 (no memory model) */
  for (int khr = 0; khr <= (int)cg_compiler_has_glslang15(); khr++)
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_target t = khr ? vt_coop_khr_target() : vt_coop_target();
    ir_graph *g;
    int ranks[3] = {2, 2, 1};
    const int64_t dims[3][IR_MAX_RANK] = {{v[i].ta ? v[i].k : v[i].m, v[i].ta ? v[i].m : v[i].k},
                                          {v[i].tb ? v[i].n : v[i].k, v[i].tb ? v[i].k : v[i].n},
                                          {v[i].n}};
    int64_t od[2] = {v[i].m, v[i].n};
    ir_node *n = vt_type_node(&g, IR_OP_GEMM, IR_F16, v[i].has_c ? 3 : 2, ranks, dims, 2, od);
    if (v[i].ta) T_OK(ir_node_set_int(g, n, IR_A_TRANS_A, 1));
    if (v[i].tb) T_OK(ir_node_set_int(g, n, IR_A_TRANS_B, 1));
    T_OK(ir_node_set_enum(g, n, IR_A_ACT, IR_ACT_SIGMOID));
    cg_schedule s;
    T_OK(cg_schedule_parse(&cg_gemm_coopmat_template, v[i].sched, &s));
    cg_kernel k;
    T_OK(cg_node_gemm(n, &cg_gemm_coopmat_template, &s, &t, &k));
    cr_assert_str_eq(vt_define_of(&k, "A_LOAD"), v[i].a_load);
    cr_assert_str_eq(vt_define_of(&k, "B_LOAD"), v[i].b_load);
    cg_spirv spv;
    T_OK(cg_kernel_compile(cc, &k, &spv));
    cr_assert_str_eq(vt_define_of(&k, "CM_KHR"), khr ? "1" : "0");
    cr_assert_eq(k.opt, khr ? CG_OPT_GLSLANG15 : CG_OPT_ZERO);
    cr_assert(vt_has_capability(&spv, khr ? 6022 : 5357), "%s: no CooperativeMatrix%s capability",
              v[i].sched, khr ? "KHR" : "NV");
    cr_assert(vt_has_capability(&spv, 5345), "%s: no memory model", v[i].sched);
    cg_spirv_free(&spv);
    ir_graph_destroy(g);
  }
  cg_compiler_destroy(cc);
  vt_rmdir(dir);
  free(dir);
}
