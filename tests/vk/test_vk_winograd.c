/* conv2d_winograd against the direct convolution: the weights transformed
 * as pass_winograd transforms them (ir_winograd_weights), the kernel run on
 * the device, the output compared with the CPU reference's conv2d (double)
 * on ResNet / VGG shapes (reduced in size for lavapipe) with random
 * non-zero data. The error bound is relative to the output's largest
 * magnitude: fp32 WINOGRAD_F2_BOUND for F(2x2,3x3), WINOGRAD_F4_BOUND for
 * F(4x4,3x3) (its transforms multiply by up to 8 and 1/24: larger rounding),
 * as docs/ops.md states them. The pass itself: a conv it takes becomes
 * conv2d_winograd, one it does not stays. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/params.h"
#include "ir/winograd.h"
#include "passes/pass.h"
#include "ir/text.h"
#include "passes/pipeline.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"
#include "vk_test.h"

#define WINOGRAD_F2_BOUND 2e-6
#define WINOGRAD_F4_BOUND 1e-5

typedef struct wcase {
  int64_t n, c, k, h, w;
  int64_t pads[4];
} wcase;

static const wcase CASES[] = {
    {1, 64, 64, 28, 28, {1, 1, 1, 1}},   /* ResNet-50 layer1's 3x3, reduced */
    {1, 128, 128, 14, 14, {1, 1, 1, 1}}, /* layer2 */
    {1, 256, 256, 7, 7, {1, 1, 1, 1}},   /* layer3 / VGG's 256 */
    {2, 3, 32, 17, 19, {1, 1, 1, 1}},    /* a first layer: 3 channels, odd sizes, batch 2 */
    {1, 16, 24, 9, 10, {0, 2, 1, 0}},    /* asymmetric pads */
};

/* Worst |got - want| / max |want| of case c with tile m on the device. */
static double run_case(vt_env *e, const wcase *c, int m, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->k, c->c, 3, 3}, bd[1] = {c->k};
  rt_tensor x = t_tensor_random(&r, IR_F32, 4, xd, -2, 2);
  rt_tensor w = t_tensor_random(&r, IR_F32, 4, wd, -1, 1);
  rt_tensor b = t_tensor_random(&r, IR_F32, 1, bd, -1, 1);
  int64_t oh = c->h + c->pads[0] + c->pads[2] - 2, ow = c->w + c->pads[1] + c->pads[3] - 2;
  int64_t yd[4] = {c->n, c->k, oh, ow};
  ir_type yt = ir_type_make(IR_F32, 4, yd);
  /* the reference: conv2d on the CPU (double inside) */
  const rt_tensor direct_in[3] = {x, w, b};
  ir_graph *g;
  ir_node *dn = t_node_make(&g, IR_OP_CONV2D, direct_in, 3, &yt, 1);
  T_OK(ir_node_set_ints(g, dn, IR_A_PADS, c->pads, 4));
  rt_tensor want;
  T_OK(rt_tensor_alloc(&yt, &want));
  const rt_tensor *ins[3] = {&x, &w, &b};
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(dn, ins, 3, outs, 1));
  ir_graph_destroy(g);
  /* the Winograd form on the device */
  int a = m + 2;
  int64_t ud[3] = {a * a, c->c, c->k};
  ir_type ut = ir_type_make(IR_F32, 3, ud);
  rt_tensor u;
  T_OK(rt_tensor_alloc(&ut, &u));
  ir_winograd_weights(m, w.data, c->k, c->c, u.data);
  const rt_tensor wino_in[3] = {x, u, b};
  ir_node *wn = t_node_make(&g, IR_OP_CONV2D_WINOGRAD, wino_in, 3, &yt, 1);
  T_OK(ir_node_set_ints(g, wn, IR_A_PADS, c->pads, 4));
  T_OK(ir_node_set_int(g, wn, IR_A_OUT_TILE, m));
  cg_kernel k;
  T_OK(cg_kernel_for_node(wn, NULL, NULL, e->t, &k));
  rt_tensor got;
  vt_poisoned(&yt, 0x7f, &got);
  const rt_tensor *wins[3] = {&x, &u, &b};
  vt_run_kernel(e->ctx, e->cc, &k, wins, 3, &got);
  const float *gp = got.data, *wp = want.data;
  double scale = 0, err = 0;
  int64_t total = ir_type_numel(&yt);
  for (int64_t i = 0; i < total; i++) scale = fmax(scale, fabs(wp[i]));
  for (int64_t i = 0; i < total; i++) {
    cr_assert(isfinite(gp[i]), "element %lld is %g (not written?)", (long long)i, (double)gp[i]);
    err = fmax(err, fabs((double)gp[i] - (double)wp[i]));
  }
  ir_graph_destroy(g);
  rt_tensor_free(&x), rt_tensor_free(&w), rt_tensor_free(&b), rt_tensor_free(&u);
  rt_tensor_free(&want), rt_tensor_free(&got);
  return err / (scale > 0 ? scale : 1);
}

Test(vk_winograd, matches_the_direct_convolution) {
  vt_env e;
  vt_env_open(&e);
  double worst[2] = {0, 0};
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
    for (int t = 0; t < 2; t++) {
      int m = t ? 4 : 2;
      double rel = run_case(&e, &CASES[i], m, 900u + 10u * (uint64_t)i + (uint64_t)t);
      double bound = m == 4 ? WINOGRAD_F4_BOUND : WINOGRAD_F2_BOUND;
      cr_assert(rel <= bound, "F(%dx%d,3x3), case %zu (C %lld, K %lld, %lldx%lld): relative "
                              "error %.3g, bound %.0e",
                m, m, i, (long long)CASES[i].c, (long long)CASES[i].k, (long long)CASES[i].h,
                (long long)CASES[i].w, rel, bound);
      worst[t] = fmax(worst[t], rel);
    }
  cr_log_info("worst relative error: F2 %.3g, F4 %.3g", worst[0], worst[1]);
  vt_env_close(&e);
}

/* The graph of the pass test: a conv it takes (3x3, stride 1, relu) and one
 * it does not (stride 2), both on constant weights w[6,4,3,3]. */
static ir_graph *pass_graph(void) {
  char *text = malloc(16384);
  cr_assert_not_null(text);
  int len = snprintf(text, 16384,
                     "vkir 1\n"
                     "graph @g(%%x: f32[1,4,8,8]) -> (%%a: f32[1,6,8,8], %%s: f32[1,6,4,4]) {\n"
                     "  %%c = const f32[6,4,3,3] [");
  for (int i = 0; i < 216; i++)
    len += snprintf(text + len, 16384 - (size_t)len, "%s%g", i ? ", " : "", 0.01 * (i % 17) - 0.08);
  snprintf(text + len, 16384 - (size_t)len,
           "]\n"
           "  %%a = conv2d %%x, %%c {pads=[1,1,1,1], act=relu} : f32[1,6,8,8]\n"
           "  %%s = conv2d %%x, %%c {strides=[2,2], pads=[1,1,1,1]} : f32[1,6,4,4]\n"
           "  return %%a, %%s\n"
           "}\n");
  ir_graph *g;
  T_OK(ir_parse(text, strlen(text), "pass.vkir", &g));
  free(text);
  return g;
}

/* pass_winograd takes 3x3 stride-1 one-group f32 convs on constant weights
 * (F2 or F4 as asked; AUTO without a target takes none) and leaves the others; the
 * graph computes what it did (CPU executor). */
Test(vk_winograd, the_pass_takes_what_it_can) {
  t_rng r = t_rng_make(77);
  int64_t xd[4] = {1, 4, 8, 8};
  rt_tensor x = t_tensor_random(&r, IR_F32, 4, xd, -1, 1);
  ir_graph *g0 = pass_graph();
  rt_tensor want[2];
  T_OK(rt_cpu_run_graph(g0, &x, 1, want, 2));
  for (int mode = PASS_WINOGRAD_AUTO; mode <= PASS_WINOGRAD_F4; mode++) {
    ir_graph *g = pass_graph();
    pass_opts o = {.winograd = (pass_winograd_mode)mode};
    bool changed;
    T_OK(pass_run_by_name(g, "winograd", &o, &changed));
    bool takes = mode == PASS_WINOGRAD_F2 || mode == PASS_WINOGRAD_F4;
    cr_assert_eq(changed, takes, "mode %d", mode);
    ir_foreach_node(g, n) {
      bool strided = !strcmp(n->outputs[0]->name, "s");
      ir_op want_op = takes && !strided ? IR_OP_CONV2D_WINOGRAD : IR_OP_CONV2D;
      cr_assert_eq(n->op, want_op, "mode %d: %%%s is %s", mode, n->outputs[0]->name,
                   ir_op_name(n->op));
      if (n->op == IR_OP_CONV2D_WINOGRAD)
        cr_assert_eq(ir_node_int(n, IR_A_OUT_TILE, 0), mode == PASS_WINOGRAD_F4 ? 4 : 2);
    }
    rt_tensor got[2];
    T_OK(rt_cpu_run_graph(g, &x, 1, got, 2));
    for (int k = 0; k < 2; k++) {
      const float *gp = got[k].data, *wp = want[k].data;
      for (int64_t i = 0; i < ir_type_numel(&g->outputs[k]->type); i++)
        cr_assert(fabs((double)gp[i] - (double)wp[i]) <= 1e-5 * (1 + fabs((double)wp[i])),
                  "mode %d, output %d, element %lld: %g, want %g", mode, k, (long long)i,
                  (double)gp[i], (double)wp[i]);
      rt_tensor_free(&got[k]);
    }
    ir_graph_destroy(g);
  }
  rt_tensor_free(&want[0]), rt_tensor_free(&want[1]), rt_tensor_free(&x);
  ir_graph_destroy(g0);
}

/* A graph of one conv2d (3x3, pads 1) of c -> k channels at hw x hw on
 * constant weights (pass_const_create). */
static ir_graph *one_conv(int64_t c, int64_t k, int64_t hw) {
  ir_graph *g;
  T_OK(ir_graph_create("one", &g));
  int64_t xd[4] = {1, c, hw, hw}, wd[4] = {k, c, 3, 3}, yd[4] = {1, k, hw, hw};
  ir_type xt = ir_type_make(IR_F32, 4, xd), wt = ir_type_make(IR_F32, 4, wd),
          yt = ir_type_make(IR_F32, 4, yd);
  ir_value *x, *w, *y;
  T_OK(ir_value_create(g, "x", &xt, &x));
  T_OK(ir_graph_add_input(g, x));
  float *wdata = calloc((size_t)(k * c * 9), sizeof *wdata);
  cr_assert_not_null(wdata);
  T_OK(pass_const_create(g, "w", "", &wt, wdata, &w));
  free(wdata);
  T_OK(ir_value_create(g, "y", &yt, &y));
  ir_value *ins[2] = {x, w};
  ir_node *n;
  T_OK(ir_node_create(g, IR_OP_CONV2D, ins, 2, &y, 1, &n));
  static const int64_t pads[4] = {1, 1, 1, 1};
  T_OK(ir_node_set_ints(g, n, IR_A_PADS, pads, 4));
  T_OK(ir_graph_add_output(g, y));
  return g;
}

/* The tile AUTO gives the conv (0: stays direct). */
static int auto_tile_of(int64_t c, int64_t k, int64_t hw, const ir_target *t, ir_precision prec) {
  ir_graph *g = one_conv(c, k, hw);
  pass_opts o = {.target = t, .precision = prec};
  T_OK(pass_run_by_name(g, "winograd", &o, NULL));
  int m = 0;
  ir_foreach_node(g, n) if (n->op == IR_OP_CONV2D_WINOGRAD) m = (int)ir_node_int(n, IR_A_OUT_TILE, 0);
  ir_graph_destroy(g);
  return m;
}

/* The default rule (pass_winograd.c, from the H100's measurements): on a
 * GPU in fp32, convs of at least 2^25 multiply-adds per tap at 14x14 to
 * under 224x224 outputs (over the batch), F(4x4) at 21x21..32x32 outputs,
 * F(2x2) elsewhere; nothing on a CPU device, in fp16 or without a target. */
Test(vk_winograd, the_default_rule) {
  ir_target gpu, cpu;
  ir_target_minimum(&gpu);
  gpu.type = IR_TARGET_DISCRETE_GPU;
  cpu = gpu;
  cpu.type = IR_TARGET_CPU;
  cr_assert_eq(auto_tile_of(32, 32, 200, &gpu, IR_PRECISION_FP32), 2);  /* 2^25.3, 200x200 */
  cr_assert_eq(auto_tile_of(256, 256, 24, &gpu, IR_PRECISION_FP32), 4); /* 2^25.2, 24x24 */
  cr_assert_eq(auto_tile_of(512, 512, 14, &gpu, IR_PRECISION_FP32), 2); /* 196 outputs */
  cr_assert_eq(auto_tile_of(64, 64, 56, &gpu, IR_PRECISION_FP32), 0);   /* 2^23.6 */
  cr_assert_eq(auto_tile_of(64, 64, 224, &gpu, IR_PRECISION_FP32), 0);  /* 224x224 outputs */
  cr_assert_eq(auto_tile_of(1536, 512, 7, &gpu, IR_PRECISION_FP32), 0); /* 2^25.2, 7x7 */
  cr_assert_eq(auto_tile_of(32, 32, 200, &cpu, IR_PRECISION_FP32), 0);
  cr_assert_eq(auto_tile_of(32, 32, 200, &gpu, IR_PRECISION_FP16), 0);
  cr_assert_eq(auto_tile_of(32, 32, 200, NULL, IR_PRECISION_FP32), 0);
}
