/* pass_split_k and pass_split_k_gemm: which fp16 and fp32 convs are split (its rules), the nodes the split
 * makes (a grouped conv of rearranged weights with the bias on group 0, the
 * reshapes, the sum, the activation under the conv's output name), and that
 * the rewritten graph computes the same thing on the CPU (fp16 tolerance:
 * each partial is rounded once more). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/memplan.h"
#include "ir/params.h"
#include "ir/text.h"
#include "passes/pass.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"

static const char *place_all(void *user, const ir_node *n, char *why, size_t bytes) {
  (void)user, (void)n, (void)why, (void)bytes;
  return NULL;
}

/* A GPU with cooperative matrices, placing every node on it, in fp16. */
static pass_opts gpu_opts(ir_target *t) {
  ir_target_minimum(t);
  t->type = IR_TARGET_DISCRETE_GPU;
  t->coopmat_khr = t->vulkan_memory_model = true;
  pass_opts o = {.precision = IR_PRECISION_FP16, .place = place_all, .target = t};
  return o;
}

/* x f16[n, c, hw, hw] -> conv2d k x k (pads k/2, bias when bias) -> y f16[n, m, hw, hw]. */
static ir_graph *conv_graph(int64_t n, int64_t c, int64_t hw, int64_t m, int64_t k, bool bias,
                            ir_act act, ir_dtype dt) {
  t_rng r = t_rng_make(7);
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  ir_type xt = ir_type_make(dt, 4, (int64_t[]){n, c, hw, hw});
  ir_type yt = ir_type_make(dt, 4, (int64_t[]){n, m, hw, hw});
  ir_value *x, *y, *ins[3];
  T_OK(ir_value_create(g, "x", &xt, &x));
  T_OK(ir_graph_add_input(g, x));
  rt_tensor w = t_tensor_random(&r, dt, 4, (int64_t[]){m, c, k, k}, -0.1, 0.1);
  rt_tensor b = t_tensor_random(&r, dt, 1, (int64_t[]){m}, -0.5, 0.5);
  ins[0] = x;
  ir_type wt = ir_type_make(dt, w.rank, w.dims), bt = ir_type_make(dt, b.rank, b.dims);
  T_OK(ir_const_create_inline(g, "w", &wt, w.data, &ins[1]));
  T_OK(ir_const_create_inline(g, "b", &bt, b.data, &ins[2]));
  rt_tensor_free(&w);
  rt_tensor_free(&b);
  T_OK(ir_value_create(g, "y", &yt, &y));
  ir_node *nd;
  T_OK(ir_node_create(g, IR_OP_CONV2D, ins, bias ? 3 : 2, &y, 1, &nd));
  int64_t p = k / 2;
  T_OK(ir_node_set_ints(g, nd, IR_A_PADS, (int64_t[]){p, p, p, p}, 4));
  if (act != IR_ACT_NONE) T_OK(ir_node_set_enum(g, nd, IR_A_ACT, act));
  T_OK(ir_graph_add_output(g, y));
  T_OK(ir_verify(g, "split_k test"));
  return g;
}

static int count_nodes(const ir_graph *g) {
  int k = 0;
  ir_foreach_node(g, n) k++;
  return k;
}

/* Runs the pass; returns whether it changed g, checking that g still
 * verifies and computes what it did (max |d| / max |y| <= 4e-3 in f16, 1e-5
 * in f32: the order of the sum changes). */
static bool split(ir_graph *g, const pass_opts *o) {
  t_rng r = t_rng_make(11);
  const ir_type *it = &g->inputs[0]->type;
  rt_tensor in = t_tensor_random(&r, it->dtype, it->rank, it->dims, -1, 1);
  rt_tensor before, after;
  T_OK(rt_cpu_run_graph(g, &in, 1, &before, 1));
  bool changed = false, changed2 = false;
  T_OK(pass_split_k(g, o, &changed));
  T_OK(pass_split_k_gemm(g, o, &changed2));
  changed = changed || changed2;
  T_OK(ir_verify(g, "after split_k"));
  T_OK(rt_cpu_run_graph(g, &in, 1, &after, 1));
  int64_t cnt = rt_tensor_numel(&before);
  double worst = 0, ymax = 0;
  for (int64_t i = 0; i < cnt; i++) {
    double a = rt_load_f(&before, i), b = rt_load_f(&after, i);
    cr_assert(isfinite(b));
    worst = fmax(worst, fabs(a - b));
    ymax = fmax(ymax, fabs(a));
  }
  double tol = before.dtype == IR_F32 ? 1e-5 : 4e-3;
  cr_assert_leq(worst, tol * ymax, "max |d| %g, max |y| %g", worst, ymax);
  rt_tensor_free(&in);
  rt_tensor_free(&before);
  rt_tensor_free(&after);
  return changed;
}

/* 3x3 256 -> 128 at 6x6: one 128x64 tile; 8 groups keep a k of 288. */
Test(split_k, splits_a_long_k_conv_with_few_outputs) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  ir_graph *g = conv_graph(1, 256, 6, 128, 3, true, IR_ACT_RELU, IR_F16);
  cr_assert(split(g, &o));
  const ir_node *conv = NULL, *sum = NULL, *last = NULL;
  ir_foreach_node(g, n) {
    if (n->op == IR_OP_CONV2D) conv = n;
    if (n->op == IR_OP_REDUCE_SUM) sum = n;
    last = n;
  }
  cr_assert(conv && sum);
  cr_assert_eq(ir_node_int(conv, IR_A_GROUP, 1), 8);
  ir_act_params a;
  ir_act_params_get(conv, &a);
  cr_assert_eq(a.kind, IR_ACT_NONE, "the activation moves to the sum");
  ir_act_params_get(sum, &a);
  cr_assert_eq(a.kind, IR_ACT_RELU);
  const ir_type *wt = &conv->inputs[1]->type, *bt = &conv->inputs[2]->type;
  cr_assert_eq(wt->dims[0], 8 * 128);
  cr_assert_eq(wt->dims[1], 32);
  cr_assert_eq(bt->dims[0], 8 * 128);
  cr_assert_eq(conv->outputs[0]->type.dims[1], 8 * 128);
  cr_assert_eq(sum->outputs[0]->type.rank, 3);
  cr_assert_eq(last->op, IR_OP_RESHAPE);
  cr_assert_str_eq(last->outputs[0]->name, "y");
  cr_assert_eq(g->outputs[0], last->outputs[0]);
  cr_assert_eq(count_nodes(g), 4); /* conv, reshape, reduce_sum {act=relu}, reshape */
  ir_graph_destroy(g);
}

/* As codegen answers for --layout nhwc on a device with cooperative
 * matrices: f16 conv2d x and y, relabelling transposes, elementwise ops. */
static uint32_t nhwc_like_codegen(void *user, const ir_node *n, ir_layout l) {
  (void)user;
  if (l != IR_LAYOUT_NHWC || n->n_outputs != 1) return 0;
  if (n->op == IR_OP_CONV2D) return n->outputs[0]->type.dtype == IR_F16 ? 1u | 1u << 16 : 0;
  if (n->op == IR_OP_TRANSPOSE) {
    int perm[4];
    T_OK(ir_perm_get(n, 4, perm));
    return perm[1] == 2 ? 1u : perm[1] == 3 ? 1u << 16 : 0;
  }
  return 0;
}

/* --layout nhwc: where the partial conv runs nhwc the sum reads its bytes
 * through two relabelling transposes (the same values on the CPU, batch 2,
 * where the transposes are real); after pass_layout the conv writes nhwc,
 * both transposes are views (ir_node_is_view) and no reorder is left
 * between the conv and y. */
Test(split_k, nhwc_form) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  o.layout = IR_LAYOUT_NHWC;
  o.layout_operands = nhwc_like_codegen;
  ir_graph *g = conv_graph(2, 256, 6, 128, 3, true, IR_ACT_RELU, IR_F16);
  cr_assert(split(g, &o));
  int n_tr = 0;
  const ir_node *sum = NULL, *last = NULL;
  ir_foreach_node(g, n) {
    n_tr += n->op == IR_OP_TRANSPOSE;
    if (n->op == IR_OP_REDUCE_SUM) sum = n;
    last = n;
  }
  cr_assert_eq(n_tr, 2);
  cr_assert(sum);
  cr_assert_eq(sum->inputs[0]->type.dims[0], 2 * 6 * 6); /* [N*OH*OW, S, M] */
  cr_assert_eq(last->op, IR_OP_TRANSPOSE);
  cr_assert_str_eq(last->outputs[0]->name, "y");
  /* y's reader: a relu, nhwc too */
  bool changed;
  T_OK(pass_layout(g, &o, &changed));
  T_OK(ir_verify(g, "after layout"));
  int n_views = 0, n_reorders = 0;
  ir_foreach_node(g, n) {
    if (n->op == IR_OP_CONV2D) cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_NHWC);
    n_views += n->op == IR_OP_TRANSPOSE && ir_node_is_view(n);
    n_reorders += n->op == IR_OP_REORDER;
  }
  cr_assert_eq(n_views, 2);
  /* x into the conv, y (nhwc) back to rows for the graph output */
  cr_assert_eq(n_reorders, 2);
  ir_graph_destroy(g);
  /* --layout auto: one conv and two values crossing its edge is a region
   * that does not pay: the row-major sum, no transpose */
  o.layout = IR_LAYOUT_DEFAULT;
  o.layout_auto = true;
  g = conv_graph(2, 256, 6, 128, 3, true, IR_ACT_RELU, IR_F16);
  cr_assert(split(g, &o));
  ir_foreach_node(g, n) cr_assert_neq(n->op, IR_OP_TRANSPOSE);
  ir_graph_destroy(g);
}

/* No activation and no bias: the last reshape takes the output; batch 2;
 * a 1x1 conv of k 512 splits in 2 (its 8-way split would leave k 64). */
Test(split_k, no_activation_no_bias_and_the_k_floor) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  ir_graph *g = conv_graph(2, 512, 4, 256, 1, false, IR_ACT_NONE, IR_F16);
  cr_assert(split(g, &o));
  const ir_node *conv = NULL, *last = NULL;
  ir_foreach_node(g, n) {
    if (n->op == IR_OP_CONV2D) conv = n;
    last = n;
  }
  cr_assert_eq(conv->n_inputs, 2);
  cr_assert_eq(ir_node_int(conv, IR_A_GROUP, 1), 2);
  cr_assert_eq(last->op, IR_OP_RESHAPE);
  cr_assert_str_eq(last->outputs[0]->name, "y");
  ir_graph_destroy(g);
}

/* What stays whole: enough tiles already, a short k, few output channels,
 * an activation other than relu, fp32, no GPU placement, no cooperative
 * matrices, --split-k off. */
Test(split_k, leaves_the_rest) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  struct {
    int64_t n, c, hw, m, k;
    ir_act act;
    ir_dtype dt;
  } keep[] = {
      {1, 64, 64, 128, 3, IR_ACT_RELU, IR_F16},   /* 1 x 64 tiles of 128x64: enough */
      {1, 16, 6, 128, 3, IR_ACT_RELU, IR_F16},    /* k 144 */
      {1, 256, 6, 32, 3, IR_ACT_RELU, IR_F16},    /* 32 output channels */
      {1, 256, 6, 128, 3, IR_ACT_SIGMOID, IR_F16},
      {1, 256, 6, 128, 3, IR_ACT_RELU, IR_F32},
  };
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
    ir_graph *g = conv_graph(keep[i].n, keep[i].c, keep[i].hw, keep[i].m, keep[i].k, true,
                             keep[i].act, keep[i].dt);
    cr_assert_not(split(g, &o), "case %zu", i);
    ir_graph_destroy(g);
  }
  pass_opts variants[4] = {o, o, o, o};
  variants[0].place = NULL;
  variants[1].no_split_k = true;
  ir_target cpu = t, plain = t;
  cpu.type = IR_TARGET_CPU;
  plain.coopmat_khr = plain.coopmat_nv = false;
  variants[2].target = &cpu;
  variants[3].target = &plain;
  for (int i = 0; i < 4; i++) {
    ir_graph *g = conv_graph(1, 256, 6, 128, 3, true, IR_ACT_RELU, IR_F16);
    cr_assert_not(split(g, &variants[i]), "variant %d", i);
    ir_graph_destroy(g);
  }
}

/* fp32, on a GPU without cooperative matrices (conv2d_direct's 64x64
 * tiles): 3x3 256 -> 128 over 4 x 14x14 (26 tiles) and at 7x7 (2 tiles)
 * split in 8; 256 tiles and more, a k under 512, or a 1x1 kernel stay
 * whole. */
Test(split_k, fp32_rule) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  t.coopmat_khr = t.coopmat_nv = false;
  o.precision = IR_PRECISION_FP32;
  ir_graph *g = conv_graph(4, 256, 14, 128, 3, true, IR_ACT_RELU, IR_F32);
  cr_assert(split(g, &o));
  const ir_node *conv = NULL, *sum = NULL;
  ir_foreach_node(g, n) {
    if (n->op == IR_OP_CONV2D) conv = n;
    if (n->op == IR_OP_REDUCE_SUM) sum = n;
  }
  cr_assert(conv && sum);
  cr_assert_eq(ir_node_int(conv, IR_A_GROUP, 1), 8);
  cr_assert_eq(conv->outputs[0]->type.dtype, IR_F32);
  cr_assert_eq(sum->outputs[0]->type.dtype, IR_F32);
  ir_graph_destroy(g);
  g = conv_graph(1, 256, 7, 128, 3, true, IR_ACT_RELU, IR_F32);
  cr_assert(split(g, &o));
  ir_foreach_node(g, n) if (n->op == IR_OP_CONV2D) cr_assert_eq(ir_node_int(n, IR_A_GROUP, 1), 8);
  ir_graph_destroy(g);
  struct {
    int64_t n, c, hw, m, k;
  } keep[] = {
      {2, 64, 64, 128, 3},  /* 256 tiles */
      {1, 48, 7, 128, 3},   /* k 432: 2 groups would leave 216 */
      {1, 2048, 7, 512, 1}, /* 1x1 */
  };
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
    g = conv_graph(keep[i].n, keep[i].c, keep[i].hw, keep[i].m, keep[i].k, true, IR_ACT_RELU,
                   IR_F32);
    cr_assert_not(split(g, &o), "case %zu", i);
    ir_graph_destroy(g);
  }
}

/* ---- products (pass_split_k_gemm.c) ---------------------------------------- */

/* x [m,k] (or [1,m,k] as a matmul) . w [k,n] (+ b [n] as gemm's c) with
 * act, of dtype dt; w random in [-0.1, 0.1) when fill, else zeros. */
static ir_graph *product_graph(int64_t m, int64_t k, int64_t n, bool gemm, ir_act act,
                               ir_dtype dt, bool fill) {
  t_rng r = t_rng_make(9);
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  ir_type xt = gemm ? ir_type_make(dt, 2, (int64_t[]){m, k}) : ir_type_make(dt, 3, (int64_t[]){1, m, k});
  ir_type yt = gemm ? ir_type_make(dt, 2, (int64_t[]){m, n}) : ir_type_make(dt, 3, (int64_t[]){1, m, n});
  ir_value *x, *y, *ins[3];
  T_OK(ir_value_create(g, "x", &xt, &x));
  T_OK(ir_graph_add_input(g, x));
  rt_tensor w = fill ? t_tensor_random(&r, dt, 2, (int64_t[]){k, n}, -0.1, 0.1) : (rt_tensor){0};
  if (!fill) T_OK(rt_tensor_alloc_dims(dt, 2, (int64_t[]){k, n}, &w));
  rt_tensor b = t_tensor_random(&r, dt, 1, (int64_t[]){n}, -0.5, 0.5);
  ir_type wt = ir_type_make(dt, 2, w.dims), bt = ir_type_make(dt, 1, b.dims);
  ins[0] = x;
  T_OK(ir_const_create_inline(g, "w", &wt, w.data, &ins[1]));
  T_OK(ir_const_create_inline(g, "b", &bt, b.data, &ins[2]));
  rt_tensor_free(&w);
  rt_tensor_free(&b);
  T_OK(ir_value_create(g, "y", &yt, &y));
  ir_node *nd;
  T_OK(ir_node_create(g, gemm ? IR_OP_GEMM : IR_OP_MATMUL, ins, gemm ? 3 : 2, &y, 1, &nd));
  if (act != IR_ACT_NONE) T_OK(ir_node_set_enum(g, nd, IR_A_ACT, act));
  T_OK(ir_graph_add_output(g, y));
  T_OK(ir_verify(g, "split_k test"));
  return g;
}

static int64_t factor_of(int64_t m, int64_t k, int64_t n, const pass_opts *o) {
  ir_graph *g = product_graph(m, k, n, true, IR_ACT_NONE, IR_F32, false);
  int64_t f = pass_split_k_gemm_factor(g->first, o);
  ir_graph_destroy(g);
  return f;
}

/* gemm with bias and gelu: reshape, transpose, the batched matmul of the
 * parts, their sum, the bias add with the activation under y's name. */
Test(split_k, splits_a_gemm) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  o.precision = IR_PRECISION_FP32;
  ir_graph *g = product_graph(100, 2048, 256, true, IR_ACT_GELU, IR_F32, true);
  cr_assert(split(g, &o));
  ir_op want[] = {IR_OP_RESHAPE, IR_OP_TRANSPOSE, IR_OP_MATMUL, IR_OP_REDUCE_SUM, IR_OP_ADD};
  int i = 0;
  const ir_node *last = NULL;
  ir_foreach_node(g, n) {
    cr_assert_lt(i, 5);
    cr_assert_eq(n->op, want[i], "node %d is %s", i, ir_op_name(n->op));
    if (n->op == IR_OP_MATMUL) {
      cr_assert_eq(n->outputs[0]->type.dims[0], 4, "k 2048 in parts of at least 384");
      cr_assert_eq(n->inputs[0]->type.dims[2], 512);
      cr_assert_eq(ir_node_int(n, IR_A_ACT, IR_ACT_NONE), IR_ACT_NONE);
    }
    last = n;
    i++;
  }
  cr_assert_eq(ir_node_int(last, IR_A_ACT, IR_ACT_NONE), IR_ACT_GELU);
  cr_assert_str_eq(last->outputs[0]->name, "y");
  ir_graph_destroy(g);
}

/* A matmul of a rank-3 input without bias, its relu on the sum, the last
 * reshape back to [1, m, n] under y's name; fp16 (no tensor cores needed). */
Test(split_k, splits_a_matmul_fp16) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  t.coopmat_khr = false;
  ir_graph *g = product_graph(67, 2048, 64, false, IR_ACT_RELU, IR_F16, true);
  cr_assert(split(g, &o));
  const ir_node *sum = NULL, *last = NULL;
  ir_foreach_node(g, n) {
    if (n->op == IR_OP_REDUCE_SUM) sum = n;
    last = n;
  }
  cr_assert(sum);
  cr_assert_eq(sum->inputs[0]->type.dims[0], 4, "k 2048 in parts of at least 384");
  cr_assert_eq(ir_node_int(sum, IR_A_ACT, IR_ACT_NONE), IR_ACT_RELU);
  cr_assert_eq(last->op, IR_OP_RESHAPE);
  cr_assert_str_eq(last->outputs[0]->name, "y");
  cr_assert_eq(last->outputs[0]->type.rank, 3);
  ir_graph_destroy(g);
}

/* The rule on ViT-, ConvNeXt- and Swin-sized products (under 128 tiles of
 * 64x64, k >= 2048, parts of k >= 384, at most 384 tiles after), what
 * stays whole, and a factor given. */
Test(split_k, gemm_rule) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  o.precision = IR_PRECISION_FP32;
  cr_assert_eq(factor_of(197, 4096, 1024, &o), 4);  /* ViT-L/16's MLP out: 64 tiles */
  cr_assert_eq(factor_of(197, 3072, 768, &o), 8);   /* ViT-B/16's: 48 */
  cr_assert_eq(factor_of(49, 6144, 1536, &o), 16);  /* ConvNeXt-L's 4th stage: 24 */
  cr_assert_eq(factor_of(49, 3072, 768, &o), 8);    /* Swin-T's: 12, parts of 384 */
  cr_assert_eq(factor_of(49, 1536, 6144, &o), 0);   /* k 1536 */
  cr_assert_eq(factor_of(197, 768, 768, &o), 0);    /* k 768 */
  cr_assert_eq(factor_of(197, 4096, 4096, &o), 0);  /* 256 tiles */
  cr_assert_eq(factor_of(8, 4096, 1024, &o), 0);    /* 8 rows: gemv's */
  cr_assert_eq(factor_of(4096, 4096, 8, &o), 0);    /* 8 columns */
  o.split_k_factor = 8;
  cr_assert_eq(factor_of(197, 4096, 4096, &o), 8);  /* given: whatever the tiles */
  cr_assert_eq(factor_of(197, 768, 64, &o), 0);     /* but parts of k >= 384 */
  /* a matmul whose b is not constant, a gemm with alpha or trans_a */
  o.split_k_factor = 0;
  ir_graph *g = product_graph(100, 2048, 256, true, IR_ACT_NONE, IR_F32, false);
  ir_node *n = g->first;
  T_OK(ir_node_set_float(g, n, IR_A_ALPHA, 2.0f));
  cr_assert_eq(pass_split_k_gemm_factor(n, &o), 0);
  T_OK(ir_node_set_float(g, n, IR_A_ALPHA, 1.0f));
  T_OK(ir_node_set_float(g, n, IR_A_BETA, 0.5f));
  cr_assert_eq(pass_split_k_gemm_factor(n, &o), 0);
  T_OK(ir_node_set_float(g, n, IR_A_BETA, 1.0f));
  cr_assert_eq(pass_split_k_gemm_factor(n, &o), 4);
  ir_graph_destroy(g);
  g = product_graph(100, 2048, 256, false, IR_ACT_NONE, IR_F32, false);
  ir_type wt = g->first->inputs[1]->type;
  ir_value *w2;
  T_OK(ir_value_create(g, "w2", &wt, &w2));
  T_OK(ir_graph_add_input(g, w2));
  g->first->inputs[1] = w2;
  cr_assert_eq(pass_split_k_gemm_factor(g->first, &o), 0);
  ir_graph_destroy(g);
  /* not on a CPU target, not unplaced, not with --split-k off */
  pass_opts variants[3] = {o, o, o};
  ir_target cpu = t;
  cpu.type = IR_TARGET_CPU;
  variants[0].target = &cpu;
  variants[1].place = NULL;
  variants[2].no_split_k = true;
  for (int i = 0; i < 3; i++) {
    g = product_graph(100, 2048, 256, true, IR_ACT_NONE, IR_F32, true);
    cr_assert_not(split(g, &variants[i]), "variant %d", i);
    ir_graph_destroy(g);
  }
}

/* Two linear layers on a sequence, each with a residual add, as ViT's MLP
 * out: fuse_bias makes gemm + reshape; after the split the bias add
 * follows the reshape, so fuse_elementwise joins it to the residual add
 * (one dispatch for both), in both layers (the rewrite removes the reshape
 * after the product: the walk goes on past it). The graph computes what it
 * did. */
Test(split_k, bias_add_joins_the_residual_add) {
  ir_target t;
  pass_opts o = gpu_opts(&t);
  o.precision = IR_PRECISION_FP32;
  int64_t m = 67, k = 2048;
  t_rng r = t_rng_make(3);
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  ir_type xt = ir_type_make(IR_F32, 3, (int64_t[]){1, m, k});
  ir_value *x;
  T_OK(ir_value_create(g, "x", &xt, &x));
  T_OK(ir_graph_add_input(g, x));
  for (int layer = 0; layer < 2; layer++) {
    /* x <- x + (x . w + b) */
    char name[16];
    rt_tensor w = t_tensor_random(&r, IR_F32, 2, (int64_t[]){k, k}, -0.02, 0.02);
    rt_tensor b = t_tensor_random(&r, IR_F32, 1, (int64_t[]){k}, -0.5, 0.5);
    ir_type wt = ir_type_make(IR_F32, 2, w.dims), bt = ir_type_make(IR_F32, 1, b.dims);
    ir_value *wv, *bv, *p, *q, *y;
    snprintf(name, sizeof name, "w%d", layer);
    T_OK(ir_const_create_inline(g, name, &wt, w.data, &wv));
    snprintf(name, sizeof name, "b%d", layer);
    T_OK(ir_const_create_inline(g, name, &bt, b.data, &bv));
    rt_tensor_free(&w);
    rt_tensor_free(&b);
    snprintf(name, sizeof name, "p%d", layer);
    T_OK(ir_value_create(g, name, &xt, &p));
    snprintf(name, sizeof name, "q%d", layer);
    T_OK(ir_value_create(g, name, &xt, &q));
    snprintf(name, sizeof name, "y%d", layer);
    T_OK(ir_value_create(g, name, &xt, &y));
    ir_node *nd;
    T_OK(ir_node_create(g, IR_OP_MATMUL, (ir_value *[]){x, wv}, 2, &p, 1, &nd));
    T_OK(ir_node_create(g, IR_OP_ADD, (ir_value *[]){p, bv}, 2, &q, 1, &nd));
    T_OK(ir_node_create(g, IR_OP_ADD, (ir_value *[]){q, x}, 2, &y, 1, &nd));
    x = y;
  }
  T_OK(ir_graph_add_output(g, x));
  T_OK(ir_verify(g, "residual"));
  rt_tensor in = t_tensor_random(&r, IR_F32, 3, xt.dims, -1, 1), before, after;
  T_OK(rt_cpu_run_graph(g, &in, 1, &before, 1));
  bool ch;
  T_OK(pass_fuse_bias(g, &o, &ch));
  cr_assert(ch);
  T_OK(pass_split_k_gemm(g, &o, &ch));
  cr_assert(ch);
  T_OK(pass_fuse_elementwise(g, &o, &ch));
  cr_assert(ch);
  T_OK(ir_verify(g, "after"));
  int adds = 0, fused = 0, parts = 0;
  ir_foreach_node(g, n) {
    adds += n->op == IR_OP_ADD;
    parts += n->op == IR_OP_MATMUL;
    if (n->op != IR_OP_FUSED_ELEMENTWISE) continue;
    fused++;
    cr_assert_eq(n->inputs[0]->producer->op, IR_OP_RESHAPE, "the bias and residual adds");
  }
  cr_assert_eq(parts, 2, "both products split");
  cr_assert_eq(adds, 0);
  cr_assert_eq(fused, 2);
  T_OK(rt_cpu_run_graph(g, &in, 1, &after, 1));
  double worst = 0, ymax = 0;
  for (int64_t i = 0; i < rt_tensor_numel(&before); i++) {
    worst = fmax(worst, fabs(rt_load_f(&before, i) - rt_load_f(&after, i)));
    ymax = fmax(ymax, fabs(rt_load_f(&before, i)));
  }
  cr_assert_leq(worst, 1e-5 * ymax);
  rt_tensor_free(&in);
  rt_tensor_free(&before);
  rt_tensor_free(&after);
  ir_graph_destroy(g);
}
