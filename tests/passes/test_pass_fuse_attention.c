/* pass_fuse_attention: which chains become one attention node (ViT's
 * scaled q.k^T, Swin's bias add and shifted-window mask, a scalar mul or
 * div of the scores), which
 * stay (softmax along another axis, a scores value read twice or a graph
 * output, a second product with alpha, broadcast batch axes, no GPU target,
 * --attention off), and that the rewritten graph computes what it did on
 * the CPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "passes/pass.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"

static const char *place_all(void *user, const ir_node *n, char *why, size_t bytes) {
  (void)user, (void)n, (void)why, (void)bytes;
  return NULL;
}

static ir_graph *parse(const char *text) {
  ir_graph *g;
  T_OK(ir_parse(text, strlen(text), "attention test", &g));
  return g;
}

static int count_op(const ir_graph *g, ir_op op) {
  int k = 0;
  ir_foreach_node(g, n) k += n->op == op;
  return k;
}

static int count_nodes(const ir_graph *g) {
  int k = 0;
  ir_foreach_node(g, n) k++;
  return k;
}

/* Runs the pass on a GPU target placing everything (or as o says); returns
 * whether it changed g, checking that g verifies and its outputs agree
 * with the graph before (rtol 1e-5 of the largest output, fp32). */
typedef vkml_status (*pass_fn)(ir_graph *, const pass_opts *, bool *);

static bool run_pass(ir_graph *g, const pass_opts *o, pass_fn pass) {
  t_rng r = t_rng_make(5);
  rt_tensor in[5], before[2], after[2];
  cr_assert_leq(g->n_inputs, 5);
  cr_assert_leq(g->n_outputs, 2);
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *t = &g->inputs[i]->type;
    in[i] = t_tensor_random(&r, t->dtype, t->rank, t->dims, -2, 2);
  }
  T_OK(rt_cpu_run_graph(g, in, g->n_inputs, before, g->n_outputs));
  bool changed = false;
  T_OK(pass(g, o, &changed));
  T_OK(ir_verify(g, "after the pass"));
  T_OK(rt_cpu_run_graph(g, in, g->n_inputs, after, g->n_outputs));
  for (int k = 0; k < g->n_outputs; k++) {
    int64_t n = rt_tensor_numel(&before[k]);
    cr_assert_eq(n, rt_tensor_numel(&after[k]));
    const float *a = before[k].data, *b = after[k].data;
    double mx = 0, dmax = 0;
    for (int64_t i = 0; i < n; i++) {
      mx = fmax(mx, fabs(a[i]));
      dmax = fmax(dmax, fabs((double)a[i] - b[i]));
    }
    cr_assert_leq(dmax, 1e-5 * mx + 1e-7, "output %d: max |d| %g of max |y| %g", k, dmax, mx);
    rt_tensor_free(&before[k]);
    rt_tensor_free(&after[k]);
  }
  for (int i = 0; i < g->n_inputs; i++) rt_tensor_free(&in[i]);
  return changed;
}

static bool fuse(ir_graph *g, const pass_opts *o) {
  return run_pass(g, o, pass_fuse_attention);
}

static pass_opts gpu(ir_target *t) {
  ir_target_minimum(t);
  t->type = IR_TARGET_DISCRETE_GPU;
  return (pass_opts){.place = place_all, .target = t};
}

/* ViT as torch exports it, after fuse_bias: q and k's scalings in alpha */
static const char *VIT = "vkir 1\ngraph @g(%q: f32[1,2,7,8], %k: f32[1,2,8,9], %v: f32[1,2,9,5])"
                         " -> (%y: f32[1,2,7,5]) {\n"
                         "  %s = matmul %q, %k {alpha=0.35} : f32[1,2,7,9]\n"
                         "  %p = softmax %s {axis=-1} : f32[1,2,7,9]\n"
                         "  %y = matmul %p, %v : f32[1,2,7,5]\n"
                         "  return %y\n"
                         "}\n";

/* text fuses, on a GPU target, into one attention node of n_inputs inputs
 * and this alpha, under the last product's output name */
static void expect_one(const char *text, int n_inputs, float alpha) {
  ir_graph *g = parse(text);
  ir_target t;
  pass_opts o = gpu(&t);
  cr_assert(fuse(g, &o));
  cr_assert_eq(count_nodes(g), 1);
  ir_node *a = g->first;
  cr_assert_eq(a->op, IR_OP_ATTENTION);
  cr_assert_eq(a->n_inputs, n_inputs);
  cr_assert_float_eq(ir_node_float(a, IR_A_ALPHA, 1), alpha, 1e-7);
  cr_assert_str_eq(a->outputs[0]->name, "y");
  ir_graph_destroy(g);
}

Test(fuse_attention, vit) { expect_one(VIT, 3, 0.35f); }

/* Swin: a scaled q, the relative-position bias added to the scores (over
 * windows x heads: the bias broadcasts over the windows); a div and a mul
 * of the scores by constants both fold into alpha */
Test(fuse_attention, bias_and_scales) {
  const char *text =
      "vkir 1\ngraph @g(%q: f32[4,3,6,8], %k: f32[4,3,8,6], %v: f32[4,3,6,8], %b: f32[3,6,6])"
      " -> (%y: f32[4,3,6,8]) {\n"
      "  %s = matmul %q, %k : f32[4,3,6,6]\n"
      "  %c = const f32[1] [2.0]\n"
      "  %s2 = div %s, %c : f32[4,3,6,6]\n"
      "  %d = const f32[] [0.5]\n"
      "  %s3 = mul %d, %s2 : f32[4,3,6,6]\n"
      "  %s4 = add %b, %s3 : f32[4,3,6,6]\n"
      "  %p = softmax %s4 {axis=3} : f32[4,3,6,6]\n"
      "  %y = matmul %p, %v : f32[4,3,6,8]\n"
      "  return %y\n"
      "}\n";
  expect_one(text, 4, 0.25f);
}

Test(fuse_attention, bias_scaled_scores) {
  const char *text =
      "vkir 1\ngraph @g(%q: f32[4,3,6,8], %k: f32[4,3,8,6], %v: f32[4,3,6,8], %b: f32[4,1,1,6])"
      " -> (%y: f32[4,3,6,8]) {\n"
      "  %s = matmul %q, %k {alpha=2} : f32[4,3,6,6]\n"
      "  %c = const f32[1] [4.0]\n"
      "  %s2 = div %s, %c : f32[4,3,6,6]\n"
      "  %s4 = add %s2, %b : f32[4,3,6,6]\n"
      "  %p = softmax %s4 {axis=-1} : f32[4,3,6,6]\n"
      "  %y = matmul %p, %v : f32[4,3,6,8]\n"
      "  return %y\n"
      "}\n";
  expect_one(text, 4, 0.5f);
}

/* Swin's shifted windows: the mask added between two reshapes splitting the
 * batch into (batch / windows, windows); the mask plus the bias becomes
 * the op's bias (an add and a reshape before it) */
#define SWIN_SHIFTED(B5, MASK)                                                                  \
  "vkir 1\ngraph @g(%q: f32[4,3,6,8], %k: f32[4,3,8,6], %v: f32[4,3,6,8], %b: f32[3,6,6], "   \
  "%m: f32" MASK ") -> (%y: f32[4,3,6,8]) {\n"                                                 \
  "  %s = matmul %q, %k {alpha=0.35} : f32[4,3,6,6]\n"                                          \
  "  %s1 = add %s, %b : f32[4,3,6,6]\n"                                                         \
  "  %s5 = reshape %s1 {shape=[" B5 "]} : f32[" B5 "]\n"                                        \
  "  %s6 = add %s5, %m : f32[" B5 "]\n"                                                         \
  "  %s7 = reshape %s6 {shape=[4,3,6,6]} : f32[4,3,6,6]\n"                                      \
  "  %p = softmax %s7 {axis=-1} : f32[4,3,6,6]\n"                                               \
  "  %y = matmul %p, %v : f32[4,3,6,8]\n"                                                       \
  "  return %y\n"                                                                               \
  "}\n"

Test(fuse_attention, window_mask) {
  const char *fused[] = {
      SWIN_SHIFTED("1,4,3,6,6", "[4,1,6,6]"),   /* batch 1, a mask per window */
      SWIN_SHIFTED("2,2,3,6,6", "[2,2,1,6,6]"), /* batch 2, a mask per batch and window */
  };
  for (int i = 0; i < 2; i++) {
    ir_graph *g = parse(fused[i]);
    ir_target t;
    pass_opts o = gpu(&t);
    cr_assert(fuse(g, &o), "case %d", i);
    cr_assert_eq(count_nodes(g), 3, "case %d: the mask's add and reshape, the attention", i);
    cr_assert_eq(count_op(g, IR_OP_ATTENTION), 1);
    cr_assert_eq(g->last->n_inputs, 4);
    cr_assert_float_eq(ir_node_float(g->last, IR_A_ALPHA, 1), 0.35f, 1e-7);
    ir_graph_destroy(g);
  }
  /* batch 2 with one mask per window for both: the bias would index the
   * batch modulo the windows, no NumPy broadcast */
  ir_graph *g = parse(SWIN_SHIFTED("2,2,3,6,6", "[2,1,6,6]"));
  ir_target t;
  pass_opts o = gpu(&t);
  cr_assert(!fuse(g, &o));
  cr_assert_eq(count_op(g, IR_OP_ATTENTION), 0);
  ir_graph_destroy(g);
}

/* Swin's case as exported: the mask and the bias are constants, so with an
 * evaluator (the CPU kernels, as vkc passes) their sum becomes one
 * constant bias and the attention is the only node left */
Test(fuse_attention, window_mask_constant) {
  char text[8192];
  int o = snprintf(text, sizeof text,
                   "vkir 1\ngraph @g(%%q: f32[4,3,6,8], %%k: f32[4,3,8,6], %%v: f32[4,3,6,8]) -> "
                   "(%%y: f32[4,3,6,8]) {\n  %%b = const f32[3,6,6] [");
  for (int i = 0; i < 3 * 36; i++) o += snprintf(text + o, sizeof text - (size_t)o, "%s%d.25", i ? ", " : "", i % 7 - 3);
  o += snprintf(text + o, sizeof text - (size_t)o, "]\n  %%m = const f32[4,1,6,6] [");
  for (int i = 0; i < 4 * 36; i++) o += snprintf(text + o, sizeof text - (size_t)o, "%s%s", i ? ", " : "", i % 5 ? "0.0" : "-100.0");
  snprintf(text + o, sizeof text - (size_t)o,
           "]\n  %%s = matmul %%q, %%k {alpha=0.35} : f32[4,3,6,6]\n"
           "  %%s1 = add %%s, %%b : f32[4,3,6,6]\n"
           "  %%s5 = reshape %%s1 {shape=[1,4,3,6,6]} : f32[1,4,3,6,6]\n"
           "  %%s6 = add %%s5, %%m : f32[1,4,3,6,6]\n"
           "  %%s7 = reshape %%s6 {shape=[4,3,6,6]} : f32[4,3,6,6]\n"
           "  %%p = softmax %%s7 {axis=-1} : f32[4,3,6,6]\n"
           "  %%y = matmul %%p, %%v : f32[4,3,6,8]\n  return %%y\n}\n");
  for (int with_eval = 0; with_eval < 2; with_eval++) {
    ir_graph *g = parse(text);
    ir_target t;
    pass_opts po = gpu(&t);
    if (with_eval) po.eval = rt_cpu_eval_node;
    cr_assert(fuse(g, &po));
    cr_assert_eq(count_nodes(g), with_eval ? 1 : 3, "with_eval %d: %d nodes", with_eval,
                 count_nodes(g));
    cr_assert_eq(g->last->op, IR_OP_ATTENTION);
    cr_assert_eq(g->last->n_inputs, 4);
    cr_assert_eq(ir_value_is_const(g->last->inputs[3]), with_eval == 1);
    ir_graph_destroy(g);
  }
}

/* graphs that must stay as they are, on a GPU target */
Test(fuse_attention, kept) {
  const char *cases[] = {
      /* softmax along the queries */
      "vkir 1\ngraph @g(%q: f32[2,7,8], %k: f32[2,8,7], %v: f32[2,7,5]) -> (%y: f32[2,7,5]) {\n"
      "  %s = matmul %q, %k : f32[2,7,7]\n"
      "  %p = softmax %s {axis=1} : f32[2,7,7]\n"
      "  %y = matmul %p, %v : f32[2,7,5]\n  return %y\n}\n",
      /* the probabilities are a graph output too */
      "vkir 1\ngraph @g(%q: f32[2,7,8], %k: f32[2,8,9], %v: f32[2,9,5]) -> (%y: f32[2,7,5], %p: f32[2,7,9]) {\n"
      "  %s = matmul %q, %k : f32[2,7,9]\n"
      "  %p = softmax %s {axis=-1} : f32[2,7,9]\n"
      "  %y = matmul %p, %v : f32[2,7,5]\n  return %y, %p\n}\n",
      /* the scores read twice */
      "vkir 1\ngraph @g(%q: f32[2,7,8], %k: f32[2,8,9], %v: f32[2,9,5]) -> (%y: f32[2,7,5], %z: f32[2,7,9]) {\n"
      "  %s = matmul %q, %k : f32[2,7,9]\n"
      "  %p = softmax %s {axis=-1} : f32[2,7,9]\n"
      "  %y = matmul %p, %v : f32[2,7,5]\n"
      "  %z = relu %s : f32[2,7,9]\n  return %y, %z\n}\n",
      /* the second product scaled */
      "vkir 1\ngraph @g(%q: f32[2,7,8], %k: f32[2,8,9], %v: f32[2,9,5]) -> (%y: f32[2,7,5]) {\n"
      "  %s = matmul %q, %k : f32[2,7,9]\n"
      "  %p = softmax %s {axis=-1} : f32[2,7,9]\n"
      "  %y = matmul %p, %v {alpha=2} : f32[2,7,5]\n  return %y\n}\n",
      /* v broadcast over the batch */
      "vkir 1\ngraph @g(%q: f32[2,7,8], %k: f32[2,8,9], %v: f32[9,5]) -> (%y: f32[2,7,5]) {\n"
      "  %s = matmul %q, %k : f32[2,7,9]\n"
      "  %p = softmax %s {axis=-1} : f32[2,7,9]\n"
      "  %y = matmul %p, %v : f32[2,7,5]\n  return %y\n}\n",
      /* an activation on the scores */
      "vkir 1\ngraph @g(%q: f32[2,7,8], %k: f32[2,8,9], %v: f32[2,9,5]) -> (%y: f32[2,7,5]) {\n"
      "  %s = matmul %q, %k {act=relu} : f32[2,7,9]\n"
      "  %p = softmax %s {axis=-1} : f32[2,7,9]\n"
      "  %y = matmul %p, %v : f32[2,7,5]\n  return %y\n}\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ir_graph *g = parse(cases[i]);
    ir_target t;
    pass_opts o = gpu(&t);
    int before = count_nodes(g);
    cr_assert(!fuse(g, &o), "case %zu fused", i);
    cr_assert_eq(count_nodes(g), before);
    ir_graph_destroy(g);
  }
}

/* in fp16 on a cooperative-matrix target, only below 128 keys */
Test(fuse_attention, fp16_keys) {
  const char *text =
      "vkir 1\ngraph @g(%q: f32[1,2,7,8], %k: f32[1,2,8,128], %v: f32[1,2,128,5])"
      " -> (%y: f32[1,2,7,5]) {\n"
      "  %s = matmul %q, %k : f32[1,2,7,128]\n"
      "  %p = softmax %s {axis=-1} : f32[1,2,7,128]\n"
      "  %y = matmul %p, %v : f32[1,2,7,5]\n"
      "  return %y\n"
      "}\n";
  ir_target t;
  pass_opts o = gpu(&t);
  o.precision = IR_PRECISION_FP16;
  ir_graph *g = parse(text);
  cr_assert(fuse(g, &o), "fp16 without cooperative matrices");
  ir_graph_destroy(g);
  t.coopmat_khr = true;
  g = parse(text);
  cr_assert(!fuse(g, &o), "fp16, cooperative matrices, 128 keys");
  ir_graph_destroy(g);
  g = parse(VIT);
  cr_assert(fuse(g, &o), "fp16, cooperative matrices, 9 keys");
  ir_graph_destroy(g);
  o.precision = IR_PRECISION_FP32;
  g = parse(text);
  cr_assert(fuse(g, &o), "fp32, cooperative matrices, 128 keys");
  ir_graph_destroy(g);
  o.precision = IR_PRECISION_FP16;
  o.fuse_attention_all = true; /* vkc --attention all */
  g = parse(text);
  cr_assert(fuse(g, &o), "fp16, cooperative matrices, 128 keys, --attention all");
  ir_graph_destroy(g);
}

/* only on a GPU target, when placing, and not with --attention off */
Test(fuse_attention, targets) {
  ir_target t;
  pass_opts none = {0}, cpu = gpu(&t), off = gpu(&t);
  ir_target tc = t;
  tc.type = IR_TARGET_CPU;
  cpu.target = &tc;
  off.no_fuse_attention = true;
  const pass_opts *os[] = {&none, &cpu, &off};
  for (int i = 0; i < 3; i++) {
    ir_graph *g = parse(VIT);
    cr_assert(!fuse(g, os[i]), "options %d fused", i);
    cr_assert_eq(count_op(g, IR_OP_ATTENTION), 0);
    ir_graph_destroy(g);
  }
}

/* pass_attention_views: ViT's heads (one batch axis of 1, the result
 * merged as [tokens, 1, heads, dh]) and Swin's (windows and heads, two
 * strided batch runs, a bias): the three copies and the transpose go, the
 * attention reads the projection and writes the merged layout; results as
 * before on the CPU */
Test(attention_views, heads_and_windows) {
  const char *cases[] = {
      "vkir 1\ngraph @g(%x: f32[20,48]) -> (%y: f32[20,16]) {\n"
      "  %q = strided_copy %x {shape=[1,2,20,8], strides=[0,8,48,1]} : f32[1,2,20,8]\n"
      "  %kt = strided_copy %x {shape=[1,2,8,20], strides=[0,8,1,48], offset=16} : f32[1,2,8,20]\n"
      "  %v = strided_copy %x {shape=[1,2,20,8], strides=[0,8,48,1], offset=32} : f32[1,2,20,8]\n"
      "  %a = attention %q, %kt, %v {alpha=0.35} : f32[1,2,20,8]\n"
      "  %t = transpose %a {perm=[2,0,1,3]} : f32[20,1,2,8]\n"
      "  %y = reshape %t {shape=[20,16]} : f32[20,16]\n  return %y\n}\n",
      "vkir 1\ngraph @g(%x: f32[15,24], %b: f32[2,5,5]) -> (%y: f32[15,8]) {\n"
      "  %q = strided_copy %x {shape=[3,2,5,4], strides=[120,4,24,1]} : f32[3,2,5,4]\n"
      "  %kt = strided_copy %x {shape=[3,2,4,5], strides=[120,4,1,24], offset=8} : f32[3,2,4,5]\n"
      "  %v = strided_copy %x {shape=[3,2,5,4], strides=[120,4,24,1], offset=16} : f32[3,2,5,4]\n"
      "  %a = attention %q, %kt, %v, %b {alpha=0.5} : f32[3,2,5,4]\n"
      "  %t = transpose %a {perm=[0,2,1,3]} : f32[3,5,2,4]\n"
      "  %y = reshape %t {shape=[15,8]} : f32[15,8]\n  return %y\n}\n",
  };
  for (int i = 0; i < 2; i++) {
    ir_graph *g = parse(cases[i]);
    ir_target t;
    pass_opts o = gpu(&t);
    cr_assert(run_pass(g, &o, pass_attention_views), "case %d", i);
    cr_assert_eq(count_nodes(g), 2, "case %d: the attention and the reshape", i);
    cr_assert_eq(count_op(g, IR_OP_STRIDED_COPY) + count_op(g, IR_OP_TRANSPOSE), 0);
    const ir_node *a = g->first;
    cr_assert_eq(a->op, IR_OP_ATTENTION);
    for (int k = 0; k < 3; k++) cr_assert_eq(a->inputs[k], g->inputs[0], "case %d operand %d", i, k);
    const int64_t *perm;
    cr_assert_eq(ir_node_ints(a, IR_A_PERM, &perm), 4);
    cr_assert_eq(perm[0], i ? 0 : 2);
    ir_graph_destroy(g);
  }
}

/* what stays: a copy read twice (q and v the same copy), so only kt's view
 * and the transpose move; copies whose batch axes need three strided runs
 * (the kernel's addressing has two), the result a graph output of no
 * transpose; anything without a GPU target or with --attention off */
Test(attention_views, kept) {
  const char *twice =
      "vkir 1\ngraph @g(%x: f32[20,48]) -> (%y: f32[20,1,2,8]) {\n"
      "  %q = strided_copy %x {shape=[1,2,20,8], strides=[0,8,48,1]} : f32[1,2,20,8]\n"
      "  %kt = strided_copy %x {shape=[1,2,8,20], strides=[0,8,1,48], offset=16} : f32[1,2,8,20]\n"
      "  %a = attention %q, %kt, %q : f32[1,2,20,8]\n"
      "  %y = transpose %a {perm=[2,0,1,3]} : f32[20,1,2,8]\n  return %y\n}\n";
  ir_graph *g = parse(twice);
  ir_target t;
  pass_opts o = gpu(&t);
  cr_assert(run_pass(g, &o, pass_attention_views));
  cr_assert_eq(count_op(g, IR_OP_STRIDED_COPY), 1, "q's copy, read twice, stays");
  cr_assert_eq(count_op(g, IR_OP_TRANSPOSE), 0);
  ir_graph_destroy(g);
  const char *runs3 =
      "vkir 1\ngraph @g(%x: f32[2,2,3,4,16]) -> (%y: f32[2,3,2,4,4]) {\n"
      "  %q = strided_copy %x {shape=[2,3,2,4,4], strides=[384,64,192,16,1]} : f32[2,3,2,4,4]\n"
      "  %kt = strided_copy %x {shape=[2,3,2,4,4], strides=[384,64,192,1,16], offset=4} : f32[2,3,2,4,4]\n"
      "  %v = strided_copy %x {shape=[2,3,2,4,4], strides=[384,64,192,16,1], offset=8} : f32[2,3,2,4,4]\n"
      "  %y = attention %q, %kt, %v : f32[2,3,2,4,4]\n  return %y\n}\n";
  g = parse(runs3);
  o = gpu(&t);
  cr_assert(!run_pass(g, &o, pass_attention_views));
  cr_assert_eq(count_op(g, IR_OP_STRIDED_COPY), 3);
  ir_graph_destroy(g);
  const char *plain_cases[] = {twice, runs3};
  for (int i = 0; i < 2; i++) {
    g = parse(plain_cases[i]);
    pass_opts none = {0};
    cr_assert(!run_pass(g, &none, pass_attention_views), "no target, case %d", i);
    ir_graph_destroy(g);
    g = parse(plain_cases[i]);
    o = gpu(&t);
    o.no_fuse_attention = true;
    cr_assert(!run_pass(g, &o, pass_attention_views), "--attention off, case %d", i);
    ir_graph_destroy(g);
  }
}
