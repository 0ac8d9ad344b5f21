/* The elementwise binary template on the device against the CPU reference
 * kernel (rt_cpu_run_node on the same node), random non-zero inputs, over 22
 * shape/broadcast combinations, f32 and f16: the default schedule (three
 * op/activation pairs per shape) and every point of the knob space (two
 * pairs per point) on 20 of the shapes. Every pipeline is compiled by the driver
 * afresh (shapes are specialization constants), which dominates the time on
 * lavapipe.
 *
 * Bounds (|got - want| <= rtol*|want| + atol):
 *   f32: rtol 1e-4, atol 0 — except hard_sigmoid / hard_swish, whose roots
 *        make fp32 evaluation ill-conditioned there (the reference works in
 *        double from the unrounded a OP b): atol 1e-6 (inputs are O(1)).
 *   f16: rtol 2^-10 (one f16 ulp: the shader rounds an fp32 result once, the
 *        reference a double one), atol 2^-24 (one f16 subnormal step). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/binary.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct bcase {
  int ra;
  int64_t a[IR_MAX_RANK];
  int rb;
  int64_t b[IR_MAX_RANK];
} bcase;

static const bcase CASES[] = {
    {1, {1}, 1, {1}},
    {0, {0}, 0, {0}},                               /* rank-0 scalars */
    {1, {7}, 1, {7}},
    {1, {1000}, 1, {1}},                            /* scalar b */
    {1, {1}, 1, {1000}},                            /* scalar a */
    {3, {2, 3, 4}, 1, {4}},                         /* row bias */
    {3, {2, 3, 4}, 2, {3, 1}},                      /* column bias */
    {3, {3, 1, 5}, 3, {1, 4, 1}},                   /* both broadcast */
    {4, {1, 16, 9, 9}, 3, {16, 1, 1}},              /* NCHW channel bias */
    {4, {2, 5, 7, 3}, 4, {2, 5, 7, 3}},             /* same shape */
    {2, {4, 1}, 2, {1, 6}},                         /* outer product */
    {2, {8, 33}, 1, {33}},                          /* odd inner axis */
    {2, {6, 8}, 2, {6, 1}},                         /* inner broadcast of b */
    {5, {2, 1, 3, 1, 5}, 5, {1, 4, 1, 2, 1}},       /* rank 5, alternating */
    {8, {1, 1, 1, 1, 1, 1, 2, 3}, 1, {3}},          /* rank 8 */
    {2, {5000, 7}, 1, {7}},                         /* many rows */
    {2, {130, 128}, 2, {1, 128}},                   /* vectorisable broadcast */
    {3, {3, 4, 5}, 0, {0}},                         /* rank-0 b */
    {3, {2, 3, 8}, 3, {2, 1, 8}},                   /* middle broadcast */
    {1, {257}, 1, {257}},                           /* odd length */
    {3, {64, 3, 3}, 3, {64, 1, 1}},                 /* per-channel 3x3 */
    {4, {1, 32, 56, 56}, 4, {1, 32, 1, 1}},         /* 100k elements */
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

/* The knob-space sweep uses 20 of them (the driver compiles every pipeline
 * afresh: time is the limit): all but [1]+[1] and [257]+[257], which the
 * rank-0 and [7]+[7] cases stand for. */
static const int POINT_CASES[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                  11, 12, 13, 14, 15, 16, 17, 18, 20, 21};
#define N_POINT_CASES ((int)(sizeof POINT_CASES / sizeof POINT_CASES[0]))

typedef struct opact {
  ir_op op;
  ir_act act;
  float alpha, beta;
} opact;

static const opact OPS[] = {
    {IR_OP_ADD, IR_ACT_NONE, 0, 0},
    {IR_OP_SUB, IR_ACT_RELU, 0, 0},
    {IR_OP_MUL, IR_ACT_RELU6, 0, 0},
    {IR_OP_DIV, IR_ACT_NONE, 0, 0},
    {IR_OP_MIN, IR_ACT_NONE, 0, 0},
    {IR_OP_MAX, IR_ACT_NONE, 0, 0},
    {IR_OP_ADD, IR_ACT_CLIP, -0.5f, 1.5f},
    {IR_OP_SUB, IR_ACT_LEAKY_RELU, 0.1f, 0},
    {IR_OP_MUL, IR_ACT_ELU, 0.7f, 0},
    {IR_OP_DIV, IR_ACT_SIGMOID, 0, 0},
    {IR_OP_ADD, IR_ACT_TANH, 0, 0},
    {IR_OP_SUB, IR_ACT_HARD_SIGMOID, 0.2f, 0.5f},
    {IR_OP_MUL, IR_ACT_HARD_SWISH, 0, 0},
    {IR_OP_ADD, IR_ACT_SILU, 0, 0},
    /* add/sub: results in [-8, 8], where gelu stays in fp32's normal range */
    {IR_OP_SUB, IR_ACT_GELU, 0, 0},
    {IR_OP_ADD, IR_ACT_GELU_TANH, 0, 0},
};
#define N_OPS ((int)(sizeof OPS / sizeof OPS[0]))

typedef struct env {
  vt_env v;
  double max_err[2]; /* worst |got-want| / |want| seen, f32 and f16 */
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

static void check(env *e, const bcase *c, const opact *o, ir_dtype dt, const cg_schedule *s,
                  uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor in[2] = {t_tensor_random(&r, dt, c->ra, c->a, -4, 4),
                     t_tensor_random(&r, dt, c->rb, c->b, -4, 4)};
  ir_type ta = rt_tensor_type(&in[0]), tb = rt_tensor_type(&in[1]), to;
  T_OK(ir_broadcast(&ta, &tb, &to));
  ir_graph *g;
  ir_node *n = t_node_make(&g, o->op, in, 2, &to, 1);
  if (o->act != IR_ACT_NONE) {
    T_OK(ir_node_set_enum(g, n, IR_A_ACT, o->act));
    T_OK(ir_node_set_float(g, n, IR_A_ACT_ALPHA, o->alpha));
    T_OK(ir_node_set_float(g, n, IR_A_ACT_BETA, o->beta));
  }
  rt_tensor want, got;
  T_OK(rt_tensor_alloc(&to, &want));
  const rt_tensor *ins[2] = {&in[0], &in[1]};
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(n, ins, 2, outs, 1));

  cg_binary_workload w;
  T_OK(cg_binary_workload_from_node(n, &w));
  cg_kernel k;
  T_OK(cg_binary_instantiate(&w, s, e->v.t, &k));
  /* poison the output so that unwritten elements show */
  vt_poisoned(&to, 0x7f, &got);
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, 2, &got);

  bool f16 = dt == IR_F16;
  bool ill = o->act == IR_ACT_HARD_SIGMOID || o->act == IR_ACT_HARD_SWISH;
  double rtol = f16 ? 1.0 / 1024 : 1e-4;
  double atol = f16 ? 1.0 / (1 << 24) : (ill ? 1e-6 : 0);
  char sched[64];
  cg_schedule_format(&cg_binary_template, s, sched, sizeof sched);
  /* one assertion per case: criterion reports every assertion it sees */
  int64_t cnt = rt_tensor_numel(&want), bad = -1;
  for (int64_t i = 0; i < cnt; i++) {
    double a = rt_load_f(&got, i), b = rt_load_f(&want, i);
    double err = fabs(a - b);
    if (b != 0 && err / fabs(b) > e->max_err[f16]) e->max_err[f16] = err / fabs(b);
    if (!(err <= atol + rtol * fabs(b)) && bad < 0) bad = i;
  }
  if (bad >= 0)
    cr_assert_fail("%s [%s] element %lld of %lld: got %.9g want %.9g", k.key, sched,
                   (long long)bad, (long long)cnt, rt_load_f(&got, bad), rt_load_f(&want, bad));
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  ir_graph_destroy(g);
}

/* Default schedule: three op/activation pairs per shape (each pair meets at
 * least five shapes), both dtypes. */
static void default_schedule(ir_dtype dt) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, dt != IR_F16 || e.v.t->storage_16bit, "16-bit storage");
  static const int shift[3] = {0, 5, 9};
  for (int c = 0; c < N_CASES; c++)
    for (int j = 0; j < 3; j++)
      check(&e, &CASES[c], &OPS[(c + shift[j]) % N_OPS], dt, &cg_binary_template.dflt,
            1000u * (uint64_t)c + (uint64_t)j);
  cr_log_info("%s: max relative error %.3g", ir_dtype_name(dt), e.max_err[dt == IR_F16]);
  vt_env_close(&e.v);
}

Test(vk_binary, default_schedule_f32) { default_schedule(IR_F32); }
Test(vk_binary, default_schedule_f16) { default_schedule(IR_F16); }

/* Every point of the space on 20 shapes. Each point uses two op/activation
 * pairs (alternating over the shapes) that rotate with the point, so that
 * across the space every pair meets several points while compilation stays
 * cheap. Points invalid on this device are skipped (and must be rejected by
 * the constraint check). */
static void every_point(ir_dtype dt, int64_t first, int64_t step) {
  env e;
  env_open(&e);
  const ir_target *t = e.v.t;
  vt_env_skip_unless(&e.v, dt != IR_F16 || t->storage_16bit, "16-bit storage");
  int64_t n = cg_space_size(&cg_binary_template);
  for (int64_t p = first; p < n; p += step) {
    cg_schedule s;
    cg_space_point(&cg_binary_template, p, &s);
    vkml_status st = cg_schedule_check(&cg_binary_template, &s, t);
    if (st) {
      cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
      vkml_status_free(st);
      continue;
    }
    for (int j = 0; j < N_POINT_CASES; j++) {
      int c = POINT_CASES[j];
      check(&e, &CASES[c], &OPS[(2 * p + j % 2) % N_OPS], dt, &s, 77u * (uint64_t)p + (uint64_t)c);
    }
  }
  vt_env_close(&e.v);
}

Test(vk_binary, every_point_f32_even) { every_point(IR_F32, 0, 2); }
Test(vk_binary, every_point_f32_odd) { every_point(IR_F32, 1, 2); }
Test(vk_binary, every_point_f16_even) { every_point(IR_F16, 0, 2); }
Test(vk_binary, every_point_f16_odd) { every_point(IR_F16, 1, 2); }
