/* The cooperative-matrix conv2d template (codegen/kernels/conv2d_coopmat.c,
 * glsl/conv2d_coopmat.comp). lavapipe has no VK_NV_cooperative_matrix, so
 * in CI: the template's registration and space; the choice of algorithm on
 * a synthetic target that claims cooperative matrices (as the H200 reports
 * them) and on targets lacking each feature; instantiation (tile shapes,
 * staging vectors, padding, grid, specialization constants, packed
 * operands, refusals, the per-workload default); shaderc compilation of 14
 * workload/schedule variants at optimisation level zero (the module must
 * declare CooperativeMatrixNV); and on the device (lavapipe) the family's
 * choice staying on the scalar templates, run against the CPU reference.
 * conv2d_coopmat_sliced_k (SLK slices of the workgroup along k): its
 * space, per-workload default, refusals and 5 compiled variants. On a
 * device with cooperative matrices, coopmat_on_device runs 16 cases x 4
 * schedules of conv2d_coopmat and 16 x 3 of the sliced template against the
 * reference (skipped elsewhere; the staged binaries carry it to the GPU
 * machine: bench/stage.sh).
 *
 * Bounds (device checks), per element (|got - want| <= rtol*|want| + atol):
 * rtol 2^-10 (the result is rounded to f16 once, the reference's exactly:
 * one f16 ulp apart); atol = L * (K + 2) * u * S + 2^-24, where K = C*KH*KW
 * products, S the same conv of |x|, |w|, |bias| (by the reference), u =
 * 2^-24 for fp32 accumulation and 2^-11 for fp16 (the worst case of a
 * floating-point dot product in any order, + the bias add and the rounding
 * to f16), L = 2 with an activation (slopes <= 1.5), else 1; 2^-24 is the
 * f16 subnormal step. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/conv2d.h"
#include "codegen/kernels/gemm.h"
#include "codegen/core/ops.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct ccase {
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw;
  int64_t pads[4]; /* top, left, bottom, right */
  int64_t group;
  struct {
    bool bias;
    ir_act act;
    float alpha, beta;
  } e;
} ccase;

#define NB {true, IR_ACT_NONE, 0, 0}
#define RELU {true, IR_ACT_RELU, 0, 0}

/* n c h w m kh kw sh sw dh dw pads group bias act alpha beta */
static const ccase CASES[] = {
    {1, 16, 9, 9, 32, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU},
    {2, 5, 7, 11, 6, 3, 3, 2, 2, 1, 1, {1, 0, 2, 1}, 1, {true, IR_ACT_GELU, 0, 0}}, /* asym pads */
    {1, 3, 23, 23, 16, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1, RELU},    /* K = 147 */
    {1, 24, 8, 8, 40, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, NB},       /* 1x1, vectors of 8 */
    {3, 7, 6, 6, 10, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, RELU},      /* 1x1, vectors of 4 */
    {1, 9, 5, 7, 17, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, NB},        /* 1x1, scalar */
    {1, 12, 11, 11, 20, 1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 1, RELU},   /* strided 1x1: gather */
    {1, 6, 10, 10, 9, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 1, {false, IR_ACT_LEAKY_RELU, 0.1f, 0}},
    {1, 64, 14, 14, 64, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {true, IR_ACT_CLIP, -0.5f, 1.5f}},
    {1, 33, 6, 6, 130, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {true, IR_ACT_SIGMOID, 0, 0}},
    {1, 1, 8, 8, 8, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {false, IR_ACT_TANH, 0, 0}}, /* C = 1 */
    {1, 5, 12, 10, 3, 3, 1, 2, 1, 2, 1, {1, 0, 1, 0}, 1, {true, IR_ACT_HARD_SWISH, 0, 0}},
    {4, 8, 5, 5, 24, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {true, IR_ACT_ELU, 0.7f, 0}},
    {1, 128, 4, 4, 48, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {true, IR_ACT_RELU6, 0, 0}},
    {1, 2, 6, 6, 3, 6, 6, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {true, IR_ACT_HARD_SIGMOID, 0.2f, 0.5f}},
    {1, 40, 9, 9, 70, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 1, RELU},
    /* groups whose own GEMM is large (as pass_split_k makes them): the
     * group is workgroup z, offsetting w's rows, x's and y's channels */
    {1, 128, 6, 6, 256, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 4, RELU},
    {2, 96, 5, 5, 128, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2, NB},
    /* for x and y in nhwc (channels of a group in multiples of 8): strides
     * with asymmetric pads over a batch, dilations */
    {2, 16, 13, 11, 24, 3, 3, 2, 2, 1, 1, {1, 0, 1, 1}, 1, RELU},
    {1, 32, 12, 12, 40, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 1, NB},
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

static ir_type out_type(const ccase *c, ir_dtype dt) {
  int64_t d[4] = {c->n, c->m, 0, 0};
  int64_t k[2] = {c->kh, c->kw}, s[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw};
  int64_t in[2] = {c->h, c->w};
  for (int i = 0; i < 2; i++) {
    int64_t ext = (k[i] - 1) * dl[i] + 1, pad = c->pads[i] + c->pads[i + 2];
    d[2 + i] = (in[i] + pad - ext) / s[i] + 1;
  }
  return ir_type_make(dt, 4, d);
}

static ir_node *make_node(ir_graph **g, const ccase *c, const rt_tensor *in, int n_in,
                          const ir_type *yt, bool act) {
  ir_node *n = t_node_make(g, IR_OP_CONV2D, in, n_in, yt, 1);
  t_set_window_attrs(*g, n, c->sh, c->sw, c->dh, c->dw, c->pads);
  if (c->group != 1) T_OK(ir_node_set_int(*g, n, IR_A_GROUP, c->group));
  if (act && c->e.act != IR_ACT_NONE) {
    T_OK(ir_node_set_enum(*g, n, IR_A_ACT, c->e.act));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_ALPHA, c->e.alpha));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_BETA, c->e.beta));
  }
  return n;
}

/* A node of case c (random data: only the types matter for instantiation). */
static ir_node *case_node(ir_graph **g, const ccase *c, ir_dtype dt, rt_tensor *in) {
  t_rng r = t_rng_make(7);
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / c->group, c->kh, c->kw};
  int64_t bd[1] = {c->m};
  in[0] = t_tensor_random(&r, dt, 4, xd, -1, 1);
  in[1] = t_tensor_random(&r, dt, 4, wd, -1, 1);
  in[2] = t_tensor_random(&r, dt, 1, bd, -1, 1);
  ir_type yt = out_type(c, dt);
  return make_node(g, c, in, c->e.bias ? 3 : 2, &yt, true);
}

static void free3(rt_tensor *in) {
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
}

static cg_schedule sched(const char *text) {
  cg_schedule s;
  T_OK(cg_schedule_parse(&cg_conv2d_coopmat_template, text, &s));
  return s;
}

/* ---- without a device --------------------------------------------------------- */

Test(conv_coopmat, registered_and_default_valid_on_minimum) {
  ir_target t;
  ir_target_minimum(&t);
  const cg_template *tp = &cg_conv2d_coopmat_template;
  cr_assert_eq(cg_template_find("conv2d_coopmat"), tp);
  T_OK(cg_schedule_check(tp, &tp->dflt, &t));
  char buf[96];
  cg_schedule_format(tp, &tp->dflt, buf, sizeof buf);
  cr_assert_str_eq(buf, "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32");
  /* the minimum target has no cooperative matrices: refused, not crashed */
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, &CASES[0], IR_F16, in);
  cg_kernel k;
  t.storage_16bit = true;
  t_expect_error(cg_node_conv2d(n, tp, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "VK_NV_cooperative_matrix");
  ir_graph_destroy(g);
  free3(in);
}

/* The template the family instantiates for case c on target t. */
/* The kernel the family gives case c by default on t (its template checked
 * against cg_conv_choose_for), and its schedule as text. */
static void default_kernel(const ccase *c, ir_dtype dt, const ir_target *t, cg_kernel *k,
                           char *sched, size_t n_sched) {
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, c, dt, in);
  cg_conv_workload w;
  T_OK(cg_conv_workload_from_node(n, &w));
  const cg_template *via_choose = cg_conv_choose_for(&w, t);
  T_OK(cg_kernel_for_node(n, NULL, NULL, t, k));
  cr_assert_eq(k->tmpl, via_choose, "%s: cg_conv_choose_for says %s, the family ran %s", k->key,
               via_choose->name, k->tmpl->name);
  cg_schedule_format(k->tmpl, &k->schedule, sched, n_sched);
  ir_graph_destroy(g);
  free3(in);
}

static const cg_template *chosen(const ccase *c, ir_dtype dt, const ir_target *t) {
  cg_kernel k;
  char sched[128];
  default_kernel(c, dt, t, &k, sched, sizeof sched);
  return k.tmpl;
}

Test(conv_coopmat, choice) {
  const cg_template *cm = &cg_conv2d_coopmat_template, *direct = &cg_conv2d_direct_template;
  ir_target t = vt_coop_target();
  /* every f16 conv with one group: 3x3, strided, 7x7, 1x1, C = 1 */
  for (int i = 0; i < N_CASES; i++) cr_assert_eq(chosen(&CASES[i], IR_F16, &t), cm, "case %d", i);
  /* f32: the scalar templates */
  cr_assert_eq(chosen(&CASES[0], IR_F32, &t), direct);
  cr_assert_eq(chosen(&CASES[3], IR_F32, &t), direct);
  /* grouped and depthwise f16 */
  ccase grouped = {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2, NB};
  ccase dw = {1, 6, 9, 9, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 6, NB};
  cr_assert_eq(chosen(&grouped, IR_F16, &t), direct);
  cr_assert_eq(chosen(&dw, IR_F16, &t), &cg_conv2d_depthwise_template);
  /* a target lacking any one feature: the scalar templates */
  for (int f = 0; f < 7; f++) {
    t = vt_coop_target();
    if (f == 0) t.coopmat_nv = false;
    if (f == 1) t.fp16_arith = false;
    if (f == 2) t.vulkan_memory_model = false;
    if (f == 3) t.n_coopmat_shapes = 1; /* f16-accumulating shape only */
    if (f == 4) t.subgroup_in_compute = false;
    if (f == 5) t.subgroup_size = 48;
    if (f == 6) t.subgroup_ops = 0;
    cr_assert_eq(chosen(&CASES[0], IR_F16, &t), direct, "feature %d", f);
    cr_assert_not(cg_conv_coopmat_suits(&t), "feature %d", f);
  }
  /* lavapipe-like: no cooperative matrices */
  ir_target_minimum(&t);
  t.storage_16bit = true;
  cr_assert_eq(chosen(&CASES[0], IR_F16, &t), direct);
  cr_assert_eq(chosen(&CASES[3], IR_F16, &t), direct);
  /* a default that does not fit (the grid): the family falls back */
  t = vt_coop_target();
  t.max_workgroup_count[0] = 2;
  t.max_workgroup_count[1] = 2;
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, &CASES[8], IR_F16, in); /* 196 pixels, 64 channels */
  cg_kernel k;
  vkml_status st = cg_kernel_for_node(n, NULL, NULL, &t, &k);
  /* the scalar default may not fit either; it must not be the coopmat one */
  if (!st) cr_assert_neq(k.tmpl, cm);
  else {
    cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
    cr_assert(!strstr(vkml_status_message(st), "conv2d_coopmat"), "%s", vkml_status_message(st));
    vkml_status_free(st);
  }
  t_expect_error(cg_node_conv2d(n, cm, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "workgroups");
  ir_graph_destroy(g);
  free3(in);
}

Test(conv_coopmat, instantiation) {
  ir_target t = vt_coop_target();
  const cg_template *cm = &cg_conv2d_coopmat_template;
  ir_graph *g;
  rt_tensor in[3];
  cg_kernel k;
  /* 3x3, 16 -> 32 channels, 9x9: K = 144 (vectors of 8), 81 pixels */
  ir_node *n = case_node(&g, &CASES[0], IR_F16, in);
  T_OK(cg_node_conv2d(n, NULL, NULL, &t, &k));
  cr_assert_eq(k.tmpl, cm);
  cr_assert_eq(k.opt, CG_OPT_ZERO);
  cr_assert_eq(k.n_buffers, 4);
  cr_assert_str_eq(vt_define_of(&k, "MS"), "16");
  cr_assert_str_eq(vt_define_of(&k, "NS"), "16");
  cr_assert_str_eq(vt_define_of(&k, "KS"), "16");
  cr_assert_str_eq(vt_define_of(&k, "SG"), "32");
  cr_assert_str_eq(vt_define_of(&k, "A_VEC"), "8");
  cr_assert_str_eq(vt_define_of(&k, "B_VEC"), "1");
  cr_assert_str_eq(vt_define_of(&k, "PAD"), "8");
  cr_assert_str_eq(vt_define_of(&k, "HAS_BIAS"), "1");
  cr_assert_str_eq(vt_define_of(&k, "ACT"), "1");
  cr_assert_null(vt_define_of(&k, "PACKED"));
  /* few workgroups: the smallest rung, 16x16 tiles; K = 144, not a
   * multiple of 64: BK 32 (exact_bk) */
  char buf[96];
  cg_schedule_format(cm, &k.schedule, buf, sizeof buf);
  cr_assert_str_eq(buf, "WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32");
  cr_assert_eq(k.groups[0], 6); /* 81 / 16 */
  cr_assert_eq(k.groups[1], 2); /* 32 / 16 */
  cr_assert_eq(k.groups[2], 1);
  const uint32_t want[] = {1, 16, 9, 9, 32, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  const uint32_t ids[] = {CG_SPEC_CONV_PARAMS_NB, CG_SPEC_CONV_PARAMS_C,  CG_SPEC_CONV_PARAMS_H,
                          CG_SPEC_CONV_PARAMS_W,  CG_SPEC_CONV_PARAMS_M,  CG_SPEC_CONV_PARAMS_OH,
                          CG_SPEC_CONV_PARAMS_OW, CG_SPEC_CONV_PARAMS_KH, CG_SPEC_CONV_PARAMS_KW,
                          CG_SPEC_CONV_PARAMS_SH, CG_SPEC_CONV_PARAMS_SW, CG_SPEC_CONV_PARAMS_DH,
                          CG_SPEC_CONV_PARAMS_DW, CG_SPEC_CONV_PARAMS_PT, CG_SPEC_CONV_PARAMS_PL,
                          CG_SPEC_CONV_PARAMS_G};
  for (uint32_t i = 0; i < 16; i++)
    cr_assert_eq(vt_spec_of(&k, ids[i]), want[i], "spec %u", ids[i]);
  char key[512];
  cg_conv_workload w;
  T_OK(cg_conv_workload_from_node(n, &w));
  cg_conv_workload_key(&w, key, sizeof key);
  cr_assert_str_eq(k.key, key);
  /* an explicit schedule: 64x64 tiles; fp16 accumulation takes 16x8x16 */
  cg_schedule s = sched("WM=2,WN=2,TM=2,TN=2,BK=32,ACC=16");
  T_OK(cg_node_conv2d(n, cm, &s, &t, &k));
  cr_assert_str_eq(vt_define_of(&k, "NS"), "8");
  cr_assert_str_eq(vt_define_of(&k, "KS"), "16");
  cr_assert_eq(k.groups[0], 3); /* 81 / (2*2*8) */
  cr_assert_eq(k.groups[1], 1);
  /* shared memory with the device's shape, 64x64 tiles, BK 32: padded
   * 2*(64*40 + 32*72) + 4*4*256 = 13824 bytes, unpadded 12288; padding
   * goes first, then the schedule is refused */
  s = sched("WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32");
  t.max_shared_bytes = 13824;
  T_OK(cg_node_conv2d(n, cm, &s, &t, &k));
  cr_assert_str_eq(vt_define_of(&k, "PAD"), "8");
  t.max_shared_bytes = 13823;
  T_OK(cg_node_conv2d(n, cm, &s, &t, &k));
  cr_assert_str_eq(vt_define_of(&k, "PAD"), "0");
  t.max_shared_bytes = 12287;
  t_expect_error(cg_node_conv2d(n, cm, &s, &t, &k), VKML_CODE_UNSUPPORTED, "shared memory");
  /* 64-wide subgroups: the widest workgroups no longer fit */
  t = vt_coop_target();
  t.subgroup_size = 64;
  t.max_workgroup_invocations = t.max_workgroup_size[0] = 512;
  s = sched("WM=4,WN=4,TM=1,TN=1,BK=16,ACC=32");
  T_OK(cg_schedule_check(cm, &s, &t));
  t_expect_error(cg_node_conv2d(n, cm, &s, &t, &k), VKML_CODE_UNSUPPORTED, "invocations");
  /* what it does not run */
  t = vt_coop_target();
  t.coopmat_nv = false;
  t_expect_error(cg_node_conv2d(n, cm, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "VK_NV_cooperative_matrix");
  t = vt_coop_target();
  t.vulkan_memory_model = false;
  t_expect_error(cg_node_conv2d(n, cm, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "memory model");
  t = vt_coop_target();
  t.fp16_arith = false;
  t_expect_error(cg_node_conv2d(n, cm, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "fp16 arithmetic");
  ir_graph_destroy(g);
  free3(in);
  t = vt_coop_target();
  n = case_node(&g, &CASES[0], IR_F32, in);
  t_expect_error(cg_node_conv2d(n, cm, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "f16 convs");
  ir_graph_destroy(g);
  free3(in);
  /* groups: each group's GEMM a slice of workgroups along z (the family
   * picks it for small groups only when asked) */
  ccase grouped = {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2, NB};
  n = case_node(&g, &grouped, IR_F16, in);
  T_OK(cg_node_conv2d(n, cm, NULL, &t, &k));
  cr_assert_eq(k.groups[2], 2);
  cr_assert_eq(k.groups[1], 1); /* 4 channels a group: one 16-row tile */
  T_OK(cg_node_conv2d(n, NULL, NULL, &t, &k));
  cr_assert_neq(k.tmpl, cm);
  ir_graph_destroy(g);
  free3(in);
}

/* The staging vectors and the default's ladder on ResNet-50-like shapes. */
Test(conv_coopmat, vectors_and_default_ladder) {
  ir_target t = vt_coop_target();
  static const struct {
    ccase c;
    const char *a_vec, *b_vec, *sched;
    uint32_t gx, gy;
  } v[] = {
      /* 1x1 64 -> 256 at 56x56: 3136 pixels (vectors of 8 along them);
       * 128x64 tiles give 98 workgroups, 64x64 ones 196, 64x32 ones 392 */
      {{1, 64, 56, 56, 256, 1, 1, 1, 1, 1, 1, {0}, 1, RELU}, "8", "8",
       "WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32", 98, 4},
      /* 3x3 256 at 56x56, batch 8: 128x64 tiles, K = 2304: the long-k rung */
      {{8, 256, 56, 56, 256, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, "8", "1",
       "WM=2,WN=2,TM=4,TN=2,BK=16,ACC=32", 392, 2},
      /* 1x1 64 -> 256 at 200x200 (K = 64): the first rung */
      {{1, 64, 200, 200, 256, 1, 1, 1, 1, 1, 1, {0}, 1, RELU}, "8", "8",
       "WM=4,WN=4,TM=2,TN=1,BK=64,ACC=32", 625, 2},
      /* 3x3 64 at 200x200: 128 rows would be half padding: 64x64 tiles */
      {{1, 64, 200, 200, 64, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, "8", "1",
       "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32", 625, 1},
      /* 1x1 32 -> 16 at 112x112: every rung but the last is taller than
       * 16; K = 32: BK 32 */
      {{1, 32, 112, 112, 16, 1, 1, 1, 1, 1, 1, {0}, 1, RELU}, "8", "8",
       "WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32", 784, 1},
      /* conv1 7x7 s2: K = 147 (scalars), 112x112: 64x32 tiles */
      {{1, 3, 224, 224, 64, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1, RELU}, "1", "1",
       "WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32", 392, 1},
      /* 3x3 64 at 56x56: 32x16 tiles */
      {{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, "8", "1",
       "WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32", 196, 2},
      /* 3x3 512 at 7x7: 49 pixels, the smallest tiles */
      {{1, 512, 7, 7, 512, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, "8", "1",
       "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32", 4, 32},
      /* 1x1 with 14x14 = 196 pixels: vectors of 4; K = 1024 */
      {{1, 1024, 14, 14, 256, 1, 1, 1, 1, 1, 1, {0}, 1, RELU}, "8", "4",
       "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32", 13, 16},
      /* 1x1, odd sizes: scalars; K = 9 (BK 32) */
      {{1, 9, 5, 7, 17, 1, 1, 1, 1, 1, 1, {0}, 1, NB}, "1", "1",
       "WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32", 3, 2},
      /* K = 6: pairs */
      {{2, 6, 6, 6, 5, 1, 1, 1, 1, 1, 1, {0}, 1, NB}, "2", "4",
       "WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32", 5, 1},
      /* the wide rung (COOP_WIDE_RUNG), a group of >= 256 outputs and a k of
       * >= 512: VGG-16's 3x3 256@56 (98 workgroups of 128x64, 196 of
       * 64x64), its 512@28 split in 4 groups (as pass_split_k leaves it:
       * 416); not a group of 128 (3x3 128@112: the 64x64 rung at BK 32),
       * nor a k of 288 (ResNet-50's 256@14 split in 8) */
      {{1, 256, 56, 56, 256, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, "8", "1",
       "WM=2,WN=2,TM=2,TN=2,BK=64,ACC=32", 49, 4},
      {{1, 512, 28, 28, 2048, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 4, NB}, "8", "1",
       "WM=2,WN=2,TM=2,TN=2,BK=64,ACC=32", 13, 8},
      {{1, 128, 112, 112, 128, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, "8", "1",
       "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32", 196, 2},
      {{1, 256, 14, 14, 2048, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 8, NB}, "8", "1",
       "WM=2,WN=2,TM=1,TN=1,BK=32,ACC=32", 7, 8},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_graph *g;
    rt_tensor in[3];
    ir_node *n = case_node(&g, &v[i].c, IR_F16, in);
    cg_kernel k;
    T_OK(cg_node_conv2d(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_conv2d_coopmat_template);
    cr_assert_str_eq(vt_define_of(&k, "A_VEC"), v[i].a_vec, "case %zu", i);
    cr_assert_str_eq(vt_define_of(&k, "B_VEC"), v[i].b_vec, "case %zu", i);
    char buf[96];
    cg_schedule_format(k.tmpl, &k.schedule, buf, sizeof buf);
    cr_assert_str_eq(buf, v[i].sched, "case %zu", i);
    cr_assert_eq(k.groups[0], v[i].gx, "case %zu: %u", i, k.groups[0]);
    cr_assert_eq(k.groups[1], v[i].gy, "case %zu: %u", i, k.groups[1]);
    T_OK(cg_schedule_check(k.tmpl, &k.schedule, &t));
    ir_graph_destroy(g);
    free3(in);
  }
}

/* Packed x and y (nc4hw4): PACKED bits, scalar gathers for a packed 1x1;
 * the packed-layout mask of conv2d is unchanged (the kernels of both
 * choices take packed x and y). */
Test(conv_coopmat, packed_operands) {
  ir_target t = vt_coop_target();
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, &CASES[3], IR_F16, in); /* 1x1, vectors of 8 */
  cr_assert_eq(cg_node_layout_operands(n, IR_LAYOUT_NC4HW4), 1u | CG_LAYOUT_OUT(0));
  cg_kernel k;
  static const struct {
    ir_layout x, y;
    const char *packed, *b_vec;
  } v[] = {
      {IR_LAYOUT_NC4HW4, IR_LAYOUT_DEFAULT, "1", "1"},
      {IR_LAYOUT_DEFAULT, IR_LAYOUT_NC4HW4, "2", "8"},
      {IR_LAYOUT_NC4HW4, IR_LAYOUT_NC4HW4, "3", "1"},
  };
  for (int i = 0; i < 3; i++) {
    n->inputs[0]->layout = v[i].x;
    n->outputs[0]->layout = v[i].y;
    T_OK(cg_node_conv2d(n, NULL, NULL, &t, &k));
    cr_assert_eq(k.tmpl, &cg_conv2d_coopmat_template);
    cr_assert_str_eq(vt_define_of(&k, "PACKED"), v[i].packed);
    cr_assert_str_eq(vt_define_of(&k, "B_VEC"), v[i].b_vec);
  }
  ir_graph_destroy(g);
  free3(in);
}

/* The template compiles (optimisation level zero) for every staging
 * variant, both accumulators, packed operands, with and without bias, and
 * the module declares the CooperativeMatrixNV capability. */
/* Compiles k (variant i) and checks that the module declares
 * CooperativeMatrixNV, or for the KHR form (CM_KHR=1) CooperativeMatrixKHR. */
static void compiles_coopmat(cg_compiler *cc, const cg_kernel *k, size_t i) {
  cg_spirv spv;
  T_OK(cg_kernel_compile(cc, k, &spv));
  if (!strcmp(vt_define_of(k, "CM_KHR"), "1")) {
    cr_assert_eq(k->opt, CG_OPT_GLSLANG15);
    cr_assert(vt_has_capability(&spv, 6022), "variant %zu: no CooperativeMatrixKHR capability", i);
  } else {
    cr_assert(vt_has_capability(&spv, 5357), "variant %zu: no CooperativeMatrixNV capability", i);
  }
  cg_spirv_free(&spv);
}

Test(conv_coopmat, compiles) {
  char *dir = vt_tempdir();
  cg_compiler_opts o = {.cache_dir = dir};
  cg_compiler *cc;
  T_OK(cg_compiler_create(&o, &cc));
  static const struct {
    int ci;
    const char *sched; /* NULL: the default */
    int packed;
    int subgroup;
    bool taps; /* w tap-major (W_TAPS) */
    bool nhwc; /* x and y nhwc (X_NHWC, Y_NHWC) */
  } v[] = {
      {0, NULL, 0, 32},
      {1, "WM=2,WN=2,TM=2,TN=2,BK=32,ACC=16", 0, 32},
      {2, "WM=4,WN=1,TM=1,TN=4,BK=16,ACC=32", 0, 32},
      {3, NULL, 0, 32},                                  /* B as uvec4 */
      {3, "WM=1,WN=4,TM=4,TN=1,BK=64,ACC=16", 3, 32},    /* packed */
      {4, "WM=2,WN=1,TM=2,TN=1,BK=16,ACC=32", 0, 32},    /* B f16vec4 */
      {5, "WM=1,WN=2,TM=1,TN=2,BK=32,ACC=32", 1, 32},
      {6, NULL, 2, 32},
      {7, "WM=4,WN=4,TM=1,TN=1,BK=16,ACC=32", 0, 32},    /* 512 invocations */
      {8, "WM=2,WN=2,TM=1,TN=4,BK=64,ACC=32", 0, 32},
      {11, NULL, 0, 64},                                 /* 64-wide subgroups */
      {13, "WM=1,WN=1,TM=4,TN=4,BK=32,ACC=32", 0, 32},
      {14, "WM=1,WN=1,TM=1,TN=1,BK=16,ACC=16", 0, 32},
      {12, "WM=4,WN=2,TM=1,TN=2,BK=32,ACC=32", 2, 32},
      {16, NULL, 0, 32},                                 /* 4 groups */
      {17, "WM=2,WN=2,TM=1,TN=1,BK=32,ACC=32", 3, 32},   /* 2 groups, packed */
      {0, NULL, 0, 32, true},                            /* w tap-major: */
      {9, "WM=2,WN=1,TM=1,TN=2,BK=16,ACC=32", 0, 32, true}, /* C = 33: scalar A */
      {15, "WM=1,WN=2,TM=2,TN=1,BK=64,ACC=16", 1, 32, true}, /* 5x5, packed x */
      {16, NULL, 2, 32, true},                           /* 4 groups, packed y */
      {0, NULL, 0, 32, true, true},                      /* x and y nhwc: */
      {3, "WM=1,WN=4,TM=4,TN=1,BK=64,ACC=16", 0, 32, false, true}, /* 1x1, BK > C */
      {16, NULL, 0, 32, true, true},                     /* 4 groups */
      {18, "WM=2,WN=2,TM=1,TN=2,BK=16,ACC=32", 0, 64, true, true}, /* strided */
  };
  /* both forms: NV, and KHR where the build has glslang 15 */
  for (int khr = 0; khr <= (int)cg_compiler_has_glslang15(); khr++)
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_target t = khr ? vt_coop_khr_target() : vt_coop_target();
    t.subgroup_size = (uint32_t)v[i].subgroup;
    ir_graph *g;
    rt_tensor in[3];
    ir_node *n = case_node(&g, &CASES[v[i].ci], IR_F16, in);
    if (v[i].packed & 1) n->inputs[0]->layout = IR_LAYOUT_NC4HW4;
    if (v[i].packed & 2) n->outputs[0]->layout = IR_LAYOUT_NC4HW4;
    if (v[i].taps) n->inputs[1]->layout = IR_LAYOUT_NHWC;
    if (v[i].nhwc) n->inputs[0]->layout = n->outputs[0]->layout = IR_LAYOUT_NHWC;
    cg_schedule s;
    if (v[i].sched) s = sched(v[i].sched);
    cg_kernel k;
    cg_conv_workload w;
    T_OK(cg_conv_workload_from_node(n, &w));
    T_OK(cg_conv_coopmat_instantiate(&w, &cg_conv2d_coopmat_template, v[i].sched ? &s : NULL, &t, &k));
    cr_assert_str_eq(vt_define_of(&k, "CM_KHR"), khr ? "1" : "0");
    if (v[i].taps || v[i].nhwc) cr_assert_str_eq(vt_define_of(&k, "W_TAPS"), "1");
    else cr_assert_null(vt_define_of(&k, "W_TAPS"));
    if (v[i].nhwc) cr_assert_str_eq(vt_define_of(&k, "X_NHWC"), "1");
    else cr_assert_null(vt_define_of(&k, "X_NHWC"));
    compiles_coopmat(cc, &k, i);
    ir_graph_destroy(g);
    free3(in);
  }
  cg_compiler_destroy(cc);
  vt_rmdir(dir);
  free(dir);
}

/* x and y nhwc (a group's channels in multiples of 8), w tap-major where
 * the kernel has more than one tap (as pass_layout makes them): every
 * case's node takes the layouts on a target with cooperative matrices,
 * through the family's choice and the two templates; the layout mask says
 * so. */
Test(conv_coopmat, nhwc_operands) {
  ir_target t = vt_coop_target();
  int n_nhwc = 0;
  for (int c = 0; c < N_CASES; c++) {
    const ccase *cc = &CASES[c];
    if ((cc->c / cc->group) % 8) continue;
    ir_graph *g;
    rt_tensor in[3];
    ir_node *n = case_node(&g, cc, IR_F16, in);
    n->inputs[0]->layout = n->outputs[0]->layout = IR_LAYOUT_NHWC;
    if (cc->kh * cc->kw > 1) n->inputs[1]->layout = IR_LAYOUT_NHWC;
    cr_assert_eq(cg_node_layout_operands_on(n, IR_LAYOUT_NHWC, &t), 1u | CG_LAYOUT_OUT(0),
                 "case %d", c);
    cg_kernel k;
    const cg_template *tm[3] = {NULL, &cg_conv2d_coopmat_template,
                                &cg_conv2d_coopmat_sliced_k_template};
    for (int i = 0; i < 3; i++) {
      vkml_status st = cg_kernel_for_node(n, tm[i], NULL, &t, &k);
      cr_assert_eq(vkml_status_code(st), VKML_CODE_OK, "case %d template %d: %s", c, i,
                   vkml_status_message(st));
      cr_assert_str_eq(vt_define_of(&k, "X_NHWC"), "1");
    }
    n_nhwc++;
    ir_graph_destroy(g);
    free3(in);
  }
  cr_assert_geq(n_nhwc, 8);
}

/* A model's constant weights reach the cooperative-matrix kernel tap-major:
 * compiled for a target with cooperative matrices (fp16), the 3x3 conv of 64
 * channels reads a tap-major (nhwc) copy of its weights that pass_layout
 * made, and its kernel defines W_TAPS; the 1x1 conv's weights stay as they
 * are (one tap), and so do the 3x3 conv's of 3 channels (its step of 32 or
 * 64 channels would be mostly zeros). On a target without them nothing
 * changes. */
typedef struct kernels_seen {
  int n_taps, n_coop;
} kernels_seen;

static vkml_status see(void *user, const ir_node *n, const ir_target *t, cg_kernel *out) {
  kernels_seen *ks = user;
  VKML_RETURN_IF_ERROR(cg_kernel_for_node(n, NULL, NULL, t, out));
  ks->n_coop += out->tmpl == &cg_conv2d_coopmat_template ||
                out->tmpl == &cg_conv2d_coopmat_sliced_k_template;
  ks->n_taps += vt_define_of(out, "W_TAPS") != NULL;
  return VKML_OK;
}

Test(conv_coopmat, plan_stores_constant_weights_tap_major) {
  static const char text[] =
      "vkir 1\n"
      "graph @g(%x: f32[1,3,12,12]) -> (%y: f32[1,8,12,12]) {\n"
      "  %w0 = const f32[64,3,3,3] @blob[0, 6912]\n"
      "  %w = const f32[32,64,3,3] @blob[6912, 73728]\n"
      "  %w1 = const f32[8,32,1,1] @blob[80640, 1024]\n"
      "  %a = conv2d %x, %w0 {pads=[1,1,1,1]} : f32[1,64,12,12]\n"
      "  %c = conv2d %a, %w {pads=[1,1,1,1], act=relu} : f32[1,32,12,12]\n"
      "  %y = conv2d %c, %w1 : f32[1,8,12,12]\n"
      "  return %y\n"
      "}\n";
  enum { BLOB = 81664 };
  float *blob = malloc(BLOB);
  cr_assert(blob);
  for (int i = 0; i < BLOB / 4; i++) blob[i] = 0.01f * (float)(i % 13) - 0.05f;
  cg_compiler *cc = vt_compiler();
  for (int coop = 0; coop < 2; coop++) {
    ir_graph *g = NULL;
    T_OK(ir_parse(text, sizeof text - 1, "<test>", &g));
    ir_graph_set_blob(g, blob, BLOB, false);
    T_OK(ir_verify(g, "<test>"));
    ir_target t = vt_coop_target();
    if (!coop) t.coopmat_nv = false, t.n_coopmat_shapes = 0;
    kernels_seen ks = {0};
    drv_opts o = {.compiler = cc, .precision = IR_PRECISION_FP16, .choose = see, .choose_user = &ks};
    ir_plan *p;
    T_OK(vt_plan_build(g, &t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
    /* the convs (f16: a cast makes the f32 output %y) */
    const ir_value *w0 = NULL, *w = NULL, *w1 = NULL;
    ir_foreach_node(p->graph, n) if (n->op == IR_OP_CONV2D) {
      const ir_type *ty = &n->inputs[1]->type;
      *(ty->dims[2] == 1 ? &w1 : ty->dims[1] == 3 ? &w0 : &w) = n->inputs[1];
    }
    cr_assert(w0 && w && w1);
    cr_assert_eq(w0->layout, IR_LAYOUT_DEFAULT);
    cr_assert_eq(w->layout, coop ? IR_LAYOUT_NHWC : IR_LAYOUT_DEFAULT, "%s", w->name);
    cr_assert_eq(w->type.dtype, IR_F16);
    cr_assert_eq(w1->layout, IR_LAYOUT_DEFAULT);
    cr_assert_eq(ks.n_coop, coop ? 3 : 0);
    cr_assert_eq(ks.n_taps, coop ? 1 : 0);
    if (coop) { /* element (m, c, kh, kw) of w at ((m*3 + kh)*3 + kw)*64 + c */
      const uint16_t *d = ir_value_const_data(p->graph, w);
      cr_assert(d, "%s has no data", w->name);
      for (int i = 0; i < 32 * 64 * 9; i += 37) {
        int m = i / 576, ch = i / 9 % 64, tap = i % 9;
        cr_assert_eq(ir_dtype_load_f64(IR_F16, d, (m * 9 + tap) * 64 + ch),
                     (double)(_Float16)blob[1728 + i], "element %d", i);
      }
    }
    ir_plan_destroy(p);
    ir_graph_destroy(g);
  }
  cg_compiler_destroy(cc);
  free(blob);
}

/* conv2d_coopmat_sliced_k: its default valid on the minimum target; the
 * per-workload default (more than 2 slices only where each gets 8 steps of k); the slices
 * multiply the invocations and the shared memory (refused past the
 * target's); variants compile (CooperativeMatrixNV). */
/* The sliced-k defaults on a GPU (cg_conv_choose_for, from the survey on
 * the H100): conv2d_coopmat_sliced_k for f16 convs of at most 102400
 * outputs with K >= 96, else conv2d_coopmat; conv2d_sliced_k for one-group
 * scalar convs of at most 2^21 outputs, else conv2d_direct, and
 * conv2d_direct for some with a long k (long_k_direct); depthwise and
 * grouped convs unchanged; a CPU device or one of unknown type keeps the
 * plain templates. Where the sliced default does not fit, the family falls
 * back to the plain one. */
Test(conv_coopmat, sliced_defaults_on_a_gpu) {
  const cg_template *cm = &cg_conv2d_coopmat_template;
  const cg_template *direct = &cg_conv2d_direct_template, *sk = &cg_conv2d_sliced_k_template;
  ir_target t = vt_coop_target();
  t.type = IR_TARGET_DISCRETE_GPU;
  static const struct {
    ccase c;
    const cg_template *f16, *f32;
  } v[] = {
      /* 3x3 512 at 7x7: 25088 outputs, K = 4608 */
      {{1, 512, 7, 7, 512, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, &cg_conv2d_coopmat_sliced_k_template,
       &cg_conv2d_sliced_k_template},
      /* 1x1 1024 -> 256 at 14x14: 50176 outputs, K = 1024 */
      {{1, 1024, 14, 14, 256, 1, 1, 1, 1, 1, 1, {0}, 1, RELU}, &cg_conv2d_coopmat_sliced_k_template,
       &cg_conv2d_sliced_k_template},
      /* 1x1 64 -> 384 at 14x14: 75264 outputs but K = 64 */
      {{1, 64, 14, 14, 384, 1, 1, 1, 1, 1, 1, {0}, 1, NB}, &cg_conv2d_coopmat_template,
       &cg_conv2d_sliced_k_template},
      /* 1x1 64 -> 256 at 56x56: 802816 outputs */
      {{1, 64, 56, 56, 256, 1, 1, 1, 1, 1, 1, {0}, 1, RELU}, &cg_conv2d_coopmat_template,
       &cg_conv2d_sliced_k_template},
      /* 3x3 64 at 224x224, batch 2: 6.4M outputs, beyond what was measured */
      {{2, 64, 224, 224, 64, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, &cg_conv2d_coopmat_template,
       &cg_conv2d_direct_template},
      /* a long k, 80 tiles of 64x64 and 320 of 32x32 (3x3 512 at 25x25, K = 4608): direct */
      {{1, 512, 25, 25, 512, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, &cg_conv2d_coopmat_template,
       &cg_conv2d_direct_template},
      /* 3x3 128 at 100x100: 1.28M outputs, K = 1152, 314 tiles: direct */
      {{1, 128, 100, 100, 128, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, &cg_conv2d_coopmat_template,
       &cg_conv2d_direct_template},
      /* 3x3 256 at 50x50: K = 2304, 160 tiles but 632 of 32x32: sliced */
      {{1, 256, 50, 50, 256, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, &cg_conv2d_coopmat_template,
       &cg_conv2d_sliced_k_template},
      /* 3x3 256 at 25x25: K = 2304 but 40 tiles: sliced */
      {{1, 256, 25, 25, 256, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU}, &cg_conv2d_coopmat_template,
       &cg_conv2d_sliced_k_template},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    cr_assert_eq(chosen(&v[i].c, IR_F16, &t), v[i].f16, "case %zu f16", i);
    cr_assert_eq(chosen(&v[i].c, IR_F32, &t), v[i].f32, "case %zu f32", i);
  }
  /* the long-k direct default: the 64x64 rung (below GEMM_MIN_TILES), k
   * tap-major */
  cg_kernel k;
  char sched[128];
  default_kernel(&v[5].c, IR_F32, &t, &k, sched, sizeof sched);
  cr_assert_str_eq(sched, "WG_M=8,WG_N=16,TM=8,TN=4,BK=8");
  bool tap = false;
  for (int i = 0; i < k.n_defines; i++) tap |= !strcmp(k.def_name[i], "K_TAP_OUTER");
  cr_assert(tap);
  /* the space takes 64x64 tiles in 2 slices within 48 KiB (the sums,
   * 4*KS*BM*BN bytes), not in 4; the sliced default keeps the bound it was
   * measured under (8*KS*BM*BN): 3x3 256@50 keeps 32x32 tiles in 4 slices,
   * though the space would take 8 */
  {
    ir_target t48 = t;
    t48.max_shared_bytes = 49152;
    t48.max_workgroup_invocations = 1024;
    static const struct {
      const char *sched;
      bool ok;
    } pts[] = {{"WG_M=8,WG_N=16,TM=8,TN=4,BK=8,KS=2", true},
               {"WG_M=8,WG_N=16,TM=8,TN=4,BK=8,KS=4", false},
               {"WG_M=8,WG_N=8,TM=4,TN=4,BK=8,KS=8", true}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
      cg_schedule s;
      T_OK(cg_schedule_parse(sk, pts[i].sched, &s));
      vkml_status st = cg_schedule_check(sk, &s, &t48);
      cr_expect_eq(st == VKML_OK, pts[i].ok, "%s", pts[i].sched);
      vkml_status_free(st);
    }
    default_kernel(&v[7].c, IR_F32, &t48, &k, sched, sizeof sched);
    cr_expect_eq(k.tmpl, sk);
    cr_expect_str_eq(sched, "WG_M=8,WG_N=8,TM=4,TN=4,BK=8,KS=4");
  }
  ccase grouped = {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2, NB};
  ccase dw = {1, 6, 9, 9, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 6, NB};
  cr_assert_eq(chosen(&grouped, IR_F16, &t), direct);
  cr_assert_eq(chosen(&dw, IR_F32, &t), &cg_conv2d_depthwise_template);
  /* a CPU device, a device of unknown type: the plain templates */
  ir_target_type plain[] = {IR_TARGET_CPU, IR_TARGET_OTHER};
  for (int i = 0; i < 2; i++) {
    t.type = plain[i];
    cr_assert_eq(chosen(&v[0].c, IR_F16, &t), cm, "type %d", plain[i]);
    cr_assert_eq(chosen(&v[0].c, IR_F32, &t), direct, "type %d", plain[i]);
  }
  /* the sliced default does not fit (too few invocations per workgroup for
   * its slices): the plain template's */
  t.type = IR_TARGET_INTEGRATED_GPU;
  t.max_workgroup_invocations = 64;
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, &v[0].c, IR_F32, in);
  cg_conv_workload w;
  T_OK(cg_conv_workload_from_node(n, &w));
  cr_assert_eq(cg_conv_choose_for(&w, &t), sk);
  t_expect_error(cg_node_conv2d(n, sk, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "");
  T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
  cr_assert_eq(k.tmpl, direct, "%s", k.tmpl->name);
  ir_graph_destroy(g);
  free3(in);
}

Test(conv_coopmat, sliced_k) {
  const cg_template *tp = &cg_conv2d_coopmat_sliced_k_template;
  ir_target t;
  ir_target_minimum(&t);
  cr_assert_eq(cg_template_find("conv2d_coopmat_sliced_k"), tp);
  T_OK(cg_schedule_check(tp, &tp->dflt, &t));
  char *dir = vt_tempdir();
  cg_compiler_opts o = {.cache_dir = dir};
  cg_compiler *cc;
  T_OK(cg_compiler_create(&o, &cc));
  t = vt_coop_target();
  int slk = cg_knob_index(tp, "SLK");
  cr_assert_eq(slk, 6);
  static const struct {
    int ci;
    const char *sched; /* NULL: the default */
  } v[] = {
      {8, NULL}, /* K = 576 in steps of 64 (the last rung): 2 slices */
      {5, NULL}, /* K = 9: 2 slices */
      {0, "WM=2,WN=2,TM=1,TN=1,BK=16,ACC=32,SLK=4"},
      {3, "WM=1,WN=2,TM=2,TN=1,BK=32,ACC=16,SLK=2"}, /* B as uvec4 */
      {2, "WM=1,WN=1,TM=1,TN=1,BK=16,ACC=32,SLK=8"},
  };
  int want_slk[] = {2, 2, 4, 2, 8};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    ir_graph *g;
    rt_tensor in[3];
    ir_node *n = case_node(&g, &CASES[v[i].ci], IR_F16, in);
    cg_schedule s;
    if (v[i].sched) T_OK(cg_schedule_parse(tp, v[i].sched, &s));
    cg_kernel k;
    T_OK(cg_kernel_for_node(n, tp, v[i].sched ? &s : NULL, &t, &k));
    cr_assert_eq(k.tmpl, tp);
    cr_assert_eq(k.schedule.v[slk], want_slk[i], "variant %zu: SLK=%d", i, k.schedule.v[slk]);
    compiles_coopmat(cc, &k, i);
    ir_graph_destroy(g);
    free3(in);
  }
  /* ResNet-50's last 3x3 (K = 4608 over 64-steps, 49 pixels): 8 slices */
  ccase last = {1, 512, 7, 7, 64, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, RELU};
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, &last, IR_F16, in);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, tp, NULL, &t, &k));
  cr_assert_eq(k.schedule.v[slk], 8);
  ir_graph_destroy(g);
  free3(in);
  /* BK 64 only where the slices' steps cover k exactly (exact_bk): 1x1
   * convs at 7x7 on 16x16 tiles, 768 and 1024 channels in 2 slices of
   * 64-steps, 832 (13 steps) in 32-steps; the plain template the same with
   * one slice (832 whole at BK 64, split in groups of 416 at BK 32) */
  int bk = cg_knob_index(tp, "BK");
  const struct {
    int64_t c, group;
    const cg_template *tmpl;
    int want;
  } ex[] = {{768, 1, tp, 64},
            {1024, 1, tp, 64},
            {832, 1, tp, 32},
            {832, 1, &cg_conv2d_coopmat_template, 64},
            {832, 2, &cg_conv2d_coopmat_template, 32},
            {768, 2, &cg_conv2d_coopmat_template, 64}};
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    ccase c1 = {1, ex[i].c, 7, 7, 32 * ex[i].group, 1, 1, 1, 1, 1, 1, {0}, ex[i].group, RELU};
    n = case_node(&g, &c1, IR_F16, in);
    T_OK(cg_kernel_for_node(n, ex[i].tmpl, NULL, &t, &k));
    cr_expect_eq(k.schedule.v[bk], ex[i].want, "case %zu: BK=%d", i, k.schedule.v[bk]);
    ir_graph_destroy(g);
    free3(in);
  }
  /* 8 slices of 16 subgroups: 4096 invocations, refused */
  n = case_node(&g, &CASES[8], IR_F16, in);
  cg_schedule s;
  T_OK(cg_schedule_parse(tp, "WM=4,WN=4,TM=1,TN=1,BK=16,ACC=32,SLK=8", &s));
  cr_assert_neq(vkml_status_code(cg_schedule_check(tp, &s, &t)), VKML_CODE_OK);
  t_expect_error(cg_node_conv2d(n, tp, &s, &t, &k), VKML_CODE_UNSUPPORTED, "");
  ir_graph_destroy(g);
  free3(in);
  cg_compiler_destroy(cc);
  vt_rmdir(dir);
  free(dir);
}

/* ---- on the device ----------------------------------------------------------------- */

typedef struct env {
  vt_env v;
  int n_run;
  double max_err;
  /* w tap-major (nhwc, as pass_layout stores constant weights for these
   * kernels) for the kernels of more than one tap; the reference reads the
   * default layout */
  bool taps;
  int n_taps;
  /* x and y in nhwc too (--layout nhwc) where the case allows it (a
   * group's channels in multiples of 8); x and y converted around the run */
  bool nhwc;
  int n_nhwc;
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

/* Runs f16 case c through the family's choice (tmpl NULL) or tmpl with s,
 * checks the template it ran (want) and the values against the reference;
 * acc_bits: the accumulation precision. */
static void check(env *e, const ccase *c, const cg_template *tmpl, const cg_schedule *s,
                  const cg_template *want_tmpl, int acc_bits, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / c->group, c->kh, c->kw};
  int64_t bd[1] = {c->m};
  rt_tensor in[3] = {t_tensor_random(&r, IR_F16, 4, xd, -2, 2),
                     t_tensor_random(&r, IR_F16, 4, wd, -1, 1),
                     t_tensor_random(&r, IR_F16, 1, bd, -1, 1)};
  int n_in = c->e.bias ? 3 : 2;
  ir_type yt = out_type(c, IR_F16), mt = out_type(c, IR_F32);
  ir_graph *g, *ga;
  ir_node *n = make_node(&g, c, in, n_in, &yt, true);
  rt_tensor want, got, mag;
  T_OK(rt_tensor_alloc(&yt, &want));
  T_OK(rt_tensor_alloc(&mt, &mag));
  const rt_tensor *ins[3] = {&in[0], &in[1], &in[2]};
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(n, ins, n_in, outs, 1));
  /* the kernel's w: tap-major where asked ([M, KH, KW, C/G]) */
  rt_tensor wt = {0};
  bool taps = e->taps && c->kh * c->kw > 1;
  if (taps) {
    T_OK(rt_tensor_alloc_dims(IR_F16, 4, wd, &wt));
    int64_t cg = wd[1], sp = c->kh * c->kw;
    for (int64_t m = 0; m < c->m; m++)
      for (int64_t j = 0; j < cg; j++)
        for (int64_t t = 0; t < sp; t++)
          rt_store_f(&wt, (m * sp + t) * cg + j, rt_load_f(&in[1], (m * cg + j) * sp + t));
    n->inputs[1]->layout = IR_LAYOUT_NHWC;
    ins[1] = &wt;
  }
  /* x and y nhwc: x's bytes transposed for the kernel, y's back below */
  bool nhwc = e->nhwc && (c->c / c->group) % 8 == 0;
  rt_tensor xt = {0};
  if (nhwc) {
    T_OK(rt_tensor_alloc_dims(IR_F16, 4, xd, &xt));
    ir_layout_nhwc_copy(&n->inputs[0]->type, in[0].data, xt.data, true);
    n->inputs[0]->layout = n->outputs[0]->layout = IR_LAYOUT_NHWC;
    ins[0] = &xt;
  }
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, tmpl, s, e->v.t, &k));
  if (nhwc) {
    cr_assert_str_eq(vt_define_of(&k, "X_NHWC"), "1", "%s", k.key);
    cr_assert_str_eq(vt_define_of(&k, "Y_NHWC"), "1", "%s", k.key);
    e->n_nhwc++;
  }
  if (taps) {
    cr_assert_str_eq(vt_define_of(&k, "W_TAPS"), "1", "%s", k.key);
    e->n_taps++;
  }
  if (want_tmpl)
    cr_assert_eq(k.tmpl, want_tmpl, "%s ran on %s", k.key, k.tmpl->name);
  else /* the family's choice: one of the two cooperative-matrix templates */
    cr_assert(k.tmpl == &cg_conv2d_coopmat_template ||
                  k.tmpl == &cg_conv2d_coopmat_sliced_k_template,
              "%s ran on %s", k.key, k.tmpl->name);
  rt_tensor ab[3] = {vt_abs_f32(&in[0]), vt_abs_f32(&in[1]), vt_abs_f32(&in[2])};
  ir_node *na = make_node(&ga, c, ab, n_in, &mt, false);
  const rt_tensor *abs_in[3] = {&ab[0], &ab[1], &ab[2]};
  rt_tensor *mag_out[1] = {&mag};
  T_OK(rt_cpu_run_node(na, abs_in, n_in, mag_out, 1));
  vt_poisoned(&yt, 0x7f, &got); /* unwritten elements show */
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, n_in, &got);
  if (nhwc) { /* y back to the default layout (the poison moves along) */
    rt_tensor yn;
    T_OK(rt_tensor_alloc(&yt, &yn));
    ir_layout_nhwc_copy(&yt, got.data, yn.data, false);
    rt_tensor_free(&got);
    got = yn;
  }

  double terms = (double)(c->c / c->group) * (double)(c->kh * c->kw) + 2;
  double u = acc_bits == 16 ? 1.0 / 2048 : 1.0 / (1 << 24), f16u = 1.0 / (1 << 24);
  double lip = c->e.act == IR_ACT_NONE ? 1 : 2, rtol = 1.0 / 1024;
  int64_t cnt = rt_tensor_numel(&want), bad;
  double worst = vt_check_bound(&got, &want, &mag, rtol, lip * terms * u, f16u, &bad);
  if (worst > e->max_err) e->max_err = worst;
  if (bad >= 0) {
    char sc[128];
    cg_schedule_format(k.tmpl, &k.schedule, sc, sizeof sc);
    cr_assert_fail("%s [%s %s] element %lld of %lld: got %.9g want %.9g", k.key, k.tmpl->name,
                   sc, (long long)bad, (long long)cnt, rt_load_f(&got, bad),
                   rt_load_f(&want, bad));
  }
  e->n_run++;
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  rt_tensor_free(&mag);
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]), rt_tensor_free(&ab[i]);
  rt_tensor_free(&wt);
  rt_tensor_free(&xt);
  ir_graph_destroy(g);
  ir_graph_destroy(ga);
}

/* Without cooperative matrices (lavapipe) f16 convs stay on the scalar
 * templates and are right; asking for the template is refused. */
Test(vk_conv_coopmat, fallback_on_device) {
  env e;
  env_open(&e);
  char name[sizeof e.v.t->name];
  snprintf(name, sizeof name, "%s", e.v.t->name); /* e.v.t dies with the context */
  if (cg_conv_coopmat_suits(e.v.t)) {
    vt_env_close(&e.v);
    cr_skip("%s has cooperative matrices: coopmat_on_device covers it", name);
  }
  vt_env_skip_unless(&e.v, e.v.t->storage_16bit, "16-bit storage");
  static const int pick[] = {0, 3, 7, 12};
  for (int i = 0; i < 4; i++)
    check(&e, &CASES[pick[i]], NULL, NULL, &cg_conv2d_direct_template, 32, 50u + (uint64_t)i);
  cr_assert_eq(e.n_run, 4);
  ir_graph *g;
  rt_tensor in[3];
  ir_node *n = case_node(&g, &CASES[0], IR_F16, in);
  cg_kernel k;
  vkml_status st = cg_node_conv2d(n, &cg_conv2d_coopmat_template, NULL, e.v.t, &k);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
  vkml_status_free(st);
  ir_graph_destroy(g);
  free3(in);
  vt_env_close(&e.v);
}

/* Where the device has cooperative matrices: every case with the family's
 * default, and three other points (both accumulators). */
Test(vk_conv_coopmat, coopmat_on_device) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, cg_conv_coopmat_suits(e.v.t),
                     "VK_NV_cooperative_matrix with an f16 shape, fp16 arithmetic, 16-bit "
                     "storage, the Vulkan memory model or basic subgroup operations");
  const cg_template *cm = &cg_conv2d_coopmat_template;
  /* w in the default layout, then tap-major, then x and y nhwc too */
  for (int tp = 0; tp < 3; tp++) {
    e.taps = tp > 0;
    e.nhwc = tp == 2;
    /* the family's default (small outputs with a long k go to the sliced
     * template on a GPU: cg_conv_choose_for) */
    for (int c = 0; c < N_CASES; c++)
      check(&e, &CASES[c], NULL, NULL, NULL, 32, 300u + (uint64_t)c);
    static const char *const pts[] = {"WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32",
                                      "WM=4,WN=1,TM=1,TN=4,BK=16,ACC=32",
                                      "WM=1,WN=2,TM=2,TN=1,BK=64,ACC=16"};
    for (int p = 0; p < 3; p++) {
      cg_schedule s = sched(pts[p]);
      if (cg_coopmat_shape(e.v.t, s.v[5]) < 0) continue;
      vkml_status st = cg_schedule_check(cm, &s, e.v.t);
      if (st) {
        vkml_status_free(st);
        continue;
      }
      for (int c = 0; c < N_CASES; c++) {
        /* fp16 accumulation of long sums is outside its bound's use */
        if (s.v[5] == 16 && CASES[c].c * CASES[c].kh * CASES[c].kw > 256) continue;
        check(&e, &CASES[c], cm, &s, cm, s.v[5], 400u + 20u * (uint64_t)p + (uint64_t)c);
      }
    }
    /* the sliced template: its per-workload default and two points */
    const cg_template *sk = &cg_conv2d_coopmat_sliced_k_template;
    for (int c = 0; c < N_CASES; c++) check(&e, &CASES[c], sk, NULL, sk, 32, 500u + (uint64_t)c);
    static const char *const spts[] = {"WM=2,WN=1,TM=1,TN=2,BK=16,ACC=32,SLK=4",
                                       "WM=1,WN=1,TM=2,TN=1,BK=32,ACC=32,SLK=8"};
    for (int p = 0; p < 2; p++) {
      cg_schedule s;
      T_OK(cg_schedule_parse(sk, spts[p], &s));
      for (int c = 0; c < N_CASES; c++)
        check(&e, &CASES[c], sk, &s, sk, 32, 600u + 20u * (uint64_t)p + (uint64_t)c);
    }
  }
  cr_assert_gt(e.n_taps, 0);
  cr_assert_gt(e.n_nhwc, 0);
  cr_log_info("%d runs (%d with w tap-major, %d with x and y nhwc), worst error / bound %.3g",
              e.n_run, e.n_taps, e.n_nhwc, e.max_err);
  vt_env_close(&e.v);
}
