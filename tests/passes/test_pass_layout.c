/* pass_layout: which nodes run packed, where reorders go, what stays
 * row-major, and that the rewritten graph computes the same thing. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "passes/pass.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"

/* The mask codegen gives (cg_node_layout_operands), for the ops used here:
 * conv2d x/y, pools x/y, unary x/y, same-shape binary a/b/y. */
static uint32_t mask_like_codegen(void *user, const ir_node *n, ir_layout l) {
  const bool *cpu = user;
  if (l != IR_LAYOUT_NC4HW4 || (cpu && cpu[n->op])) return 0;
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (i == 0 && v->type.rank != 4) return 0;
  }
  switch (n->op) {
  case IR_OP_CONV2D:
  case IR_OP_MAXPOOL:
  case IR_OP_AVGPOOL:
  case IR_OP_GLOBAL_AVG_POOL:
  case IR_OP_GLOBAL_MAX_POOL:
  case IR_OP_RELU:
  case IR_OP_SIGMOID:
    return 1u | (1u << 16);
  case IR_OP_ADD:
  case IR_OP_MUL:
    if (!ir_type_equal(&n->inputs[0]->type, &n->inputs[1]->type) ||
        !ir_type_equal(&n->inputs[0]->type, &n->outputs[0]->type))
      return 0;
    return 3u | (1u << 16);
  default: return 0;
  }
}

static ir_graph *load(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ir/%s", VKML_SOURCE_ROOT, name);
  ir_graph *g = NULL;
  T_OK(ir_parse_file(path, &g));
  return g;
}

static ir_graph *parse(const char *text) {
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  return g;
}

static char *print(const ir_graph *g) {
  char *s = NULL;
  size_t n;
  T_OK(ir_print(g, &s, &n));
  return s;
}

static int count_op(const ir_graph *g, ir_op op) {
  int k = 0;
  ir_foreach_node(g, n) k += n->op == op;
  return k;
}

/* Runs both graphs on the CPU with the same random inputs: reorders are
 * copies there, so the outputs must be bit-identical. */
static void assert_same_results(const ir_graph *a, const ir_graph *b, uint64_t seed) {
  cr_assert_eq(a->n_inputs, b->n_inputs);
  cr_assert_eq(a->n_outputs, b->n_outputs);
  t_rng r = t_rng_make(seed);
  rt_tensor in[8], oa[8], ob[8];
  cr_assert(a->n_inputs <= 8 && a->n_outputs <= 8);
  for (int i = 0; i < a->n_inputs; i++)
    in[i] = t_tensor_random(&r, a->inputs[i]->type.dtype, a->inputs[i]->type.rank,
                            a->inputs[i]->type.dims, -2, 2);
  T_OK(rt_cpu_run_graph(a, in, a->n_inputs, oa, a->n_outputs));
  T_OK(rt_cpu_run_graph(b, in, b->n_inputs, ob, b->n_outputs));
  for (int i = 0; i < a->n_outputs; i++) {
    cr_assert_eq(rt_tensor_bytes(&oa[i]), rt_tensor_bytes(&ob[i]));
    cr_assert(!memcmp(oa[i].data, ob[i].data, rt_tensor_bytes(&oa[i])), "output %d differs", i);
    cr_assert_str_eq(a->outputs[i]->name, b->outputs[i]->name);
    rt_tensor_free(&oa[i]);
    rt_tensor_free(&ob[i]);
  }
  for (int i = 0; i < a->n_inputs; i++) rt_tensor_free(&in[i]);
}

Test(pass_layout, packs_every_packable_node_and_converts_at_the_edges) {
  ir_graph *g = load("mobilenet_block.vkir");
  ir_graph *h = NULL;
  T_OK(ir_graph_clone(g, &h));
  pass_opts o = {.layout = IR_LAYOUT_NC4HW4, .layout_operands = mask_like_codegen};
  bool changed = false;
  T_OK(pass_layout(h, &o, &changed));
  cr_assert(changed);
  T_OK(ir_verify(h, "<pass>"));
  /* %input feeds two packed nodes through one reorder; %pooled goes back to
   * rows before flatten (which cannot run packed). */
  cr_assert_eq(count_op(h, IR_OP_REORDER), 2);
  char *text = print(h);
  cr_assert(strstr(text, "  %input.nc4hw4 = reorder %input : f32[1,8,16,16] nc4hw4\n"
                         "  %expand = conv2d %input.nc4hw4,"), "%s", text);
  cr_assert(strstr(text, "%residual = add %project, %input.nc4hw4 {name=\"block/add\"} : "
                         "f32[1,8,16,16] nc4hw4\n"), "%s", text);
  cr_assert(strstr(text, "%pooled = global_avg_pool %residual : f32[1,8,1,1] nc4hw4\n"
                         "  %pooled.rows = reorder %pooled : f32[1,8,1,1]\n"
                         "  %flat = flatten %pooled.rows : f32[1,8]\n"), "%s", text);
  cr_assert(strstr(text, "(%input: f32[1,8,16,16]) -> (%logits: f32[1,10])"), "%s", text);
  free(text);
  assert_same_results(g, h, 1);
  /* a second run finds nothing to do */
  T_OK(pass_layout(h, &o, &changed));
  cr_assert(!changed);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

Test(pass_layout, without_assign_all_only_annotated_nodes_run_packed) {
  ir_graph *g = parse("vkir 1\n"
                      "graph @g(%x: f32[2,5,6,6]) -> (%y: f32[2,5,6,6]) {\n"
                      "  %a = relu %x : f32[2,5,6,6] nc4hw4\n"
                      "  %b = sigmoid %a : f32[2,5,6,6]\n"
                      "  %y = mul %a, %b : f32[2,5,6,6]\n"
                      "  return %y\n"
                      "}\n");
  ir_graph *h = NULL;
  T_OK(ir_graph_clone(g, &h));
  pass_opts o = {.layout_operands = mask_like_codegen};
  T_OK(pass_layout(h, &o, NULL));
  T_OK(ir_verify(h, "<pass>"));
  char *text = print(h);
  cr_assert_str_eq(text, "vkir 1\n"
                         "graph @g(%x: f32[2,5,6,6]) -> (%y: f32[2,5,6,6]) {\n"
                         "  %x.nc4hw4 = reorder %x : f32[2,5,6,6] nc4hw4\n"
                         "  %a = relu %x.nc4hw4 : f32[2,5,6,6] nc4hw4\n"
                         "  %a.rows = reorder %a : f32[2,5,6,6]\n"
                         "  %b = sigmoid %a.rows : f32[2,5,6,6]\n"
                         "  %y = mul %a.rows, %b : f32[2,5,6,6]\n"
                         "  return %y\n"
                         "}\n");
  free(text);
  assert_same_results(g, h, 2);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

Test(pass_layout, a_packed_graph_output_keeps_its_name_and_comes_back_in_rows) {
  ir_graph *g = parse("vkir 1\n"
                      "graph @g(%x: f32[1,3,5,7]) -> (%y: f32[1,3,5,7], %z: f32[1,3,5,7]) {\n"
                      "  %y = relu %x : f32[1,3,5,7]\n"
                      "  %z = sigmoid %y : f32[1,3,5,7]\n"
                      "  return %y, %z\n"
                      "}\n");
  ir_graph *h = NULL;
  T_OK(ir_graph_clone(g, &h));
  pass_opts o = {.layout = IR_LAYOUT_NC4HW4, .layout_operands = mask_like_codegen};
  T_OK(pass_layout(h, &o, NULL));
  T_OK(ir_verify(h, "<pass>"));
  for (int i = 0; i < h->n_outputs; i++) {
    cr_assert_eq(h->outputs[i]->layout, IR_LAYOUT_DEFAULT);
    cr_assert_eq(h->outputs[i]->producer->op, IR_OP_REORDER);
  }
  cr_assert_str_eq(h->outputs[0]->name, "y");
  cr_assert_str_eq(h->outputs[1]->name, "z");
  /* %y's packed value feeds sigmoid directly, no round trip through rows */
  ir_foreach_node(h, n) if (n->op == IR_OP_SIGMOID) {
    cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_NC4HW4);
    cr_assert_eq(n->inputs[0]->producer->op, IR_OP_RELU);
  }
  cr_assert_eq(count_op(h, IR_OP_REORDER), 3);
  assert_same_results(g, h, 3);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

Test(pass_layout, nodes_kept_on_the_cpu_and_annotated_inputs_end_up_in_rows) {
  /* the input and the constant are annotated packed; host tensors are rows */
  ir_graph *g = parse("vkir 1\n"
                      "graph @g(%x: f32[1,6,4,4] nc4hw4) -> (%y: f32[1,6,4,4]) {\n"
                      "  %k = const f32[1,6,4,4] nc4hw4 @blob[0, 384]\n"
                      "  %a = add %x, %k : f32[1,6,4,4] nc4hw4\n"
                      "  %y = relu %a : f32[1,6,4,4]\n"
                      "  return %y\n"
                      "}\n");
  float blob[96];
  for (int i = 0; i < 96; i++) blob[i] = 0.25f * (float)(i % 7) - 0.6f;
  ir_graph_set_blob(g, blob, sizeof blob, false);
  T_OK(ir_verify(g, "<test>"));
  bool cpu[IR_OP_COUNT] = {0};
  cpu[IR_OP_RELU] = true; /* as --cpu-ops relu */
  ir_graph *h = NULL;
  T_OK(ir_graph_clone(g, &h));
  pass_opts o = {.layout_operands = mask_like_codegen, .layout_user = cpu};
  T_OK(pass_layout(h, &o, NULL));
  T_OK(ir_verify(h, "<pass>"));
  cr_assert_eq(h->inputs[0]->layout, IR_LAYOUT_DEFAULT);
  ir_foreach_value(h, v) if (ir_value_is_const(v)) cr_assert_eq(v->layout, IR_LAYOUT_DEFAULT);
  ir_foreach_node(h, n) if (n->op == IR_OP_RELU) {
    cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_DEFAULT);
    cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_DEFAULT);
  }
  /* add runs packed (annotated): both operands converted, result back to rows */
  cr_assert_eq(count_op(h, IR_OP_REORDER), 3);
  assert_same_results(g, h, 4);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

/* As codegen answers for IR_LAYOUT_NHWC on a device with cooperative
 * matrices (cg_conv2d_weight_layouts): a GPU conv2d's w of several taps. */
static uint32_t taps_like_codegen(void *user, const ir_node *n, ir_layout l) {
  (void)user;
  if (l != IR_LAYOUT_NHWC || n->op != IR_OP_CONV2D) return 0;
  const ir_type *w = &n->inputs[1]->type;
  return w->dims[2] * w->dims[3] > 1 ? 1u << 1 : 0;
}

Test(pass_layout, stores_a_gpu_convs_constant_weights_tap_major_and_back) {
  /* %w feeds a GPU conv and a CPU conv; %w1 a 1x1 conv (one tap) */
  ir_graph *g = parse("vkir 1\n"
                      "graph @g(%x: f32[1,3,5,5]) -> (%y: f32[1,4,5,5], %z: f32[1,4,3,3], "
                      "%u: f32[1,2,5,5]) {\n"
                      "  %w = const f32[4,3,3,3] @blob[0, 432]\n"
                      "  %w1 = const f32[2,3,1,1] @blob[432, 24]\n"
                      "  %y = conv2d@gpu %x, %w {pads=[1,1,1,1]} : f32[1,4,5,5]\n"
                      "  %z = conv2d@cpu %x, %w : f32[1,4,3,3]\n"
                      "  %u = conv2d@gpu %x, %w1 : f32[1,2,5,5]\n"
                      "  return %y, %z, %u\n"
                      "}\n");
  float blob[114];
  for (int i = 0; i < 114; i++) blob[i] = 0.125f * (float)(i % 11) - 0.5f;
  ir_graph_set_blob(g, blob, sizeof blob, false);
  T_OK(ir_verify(g, "<test>"));
  ir_graph *h = NULL;
  T_OK(ir_graph_clone(g, &h));
  pass_opts o = {.layout_weights = taps_like_codegen};
  bool changed = false;
  T_OK(pass_layout(h, &o, &changed));
  cr_assert(changed);
  T_OK(ir_verify(h, "<pass>"));
  const ir_node *gy = ir_graph_find_value(h, "y")->producer;
  const ir_node *gz = ir_graph_find_value(h, "z")->producer;
  const ir_node *gu = ir_graph_find_value(h, "u")->producer;
  const ir_value *wt = gy->inputs[1];
  cr_assert_str_eq(wt->name, "w.taps");
  cr_assert_eq(wt->layout, IR_LAYOUT_NHWC);
  cr_assert(ir_type_equal(&wt->type, &ir_graph_find_value(h, "w")->type));
  cr_assert_str_eq(gz->inputs[1]->name, "w"); /* the CPU conv's stays */
  cr_assert_eq(gz->inputs[1]->layout, IR_LAYOUT_DEFAULT);
  cr_assert_str_eq(gu->inputs[1]->name, "w1");
  cr_assert_eq(gu->inputs[1]->layout, IR_LAYOUT_DEFAULT);
  /* element (m, c, kh, kw) at ((m*3 + kh)*3 + kw)*3 + c */
  const float *d = ir_value_const_data(h, wt);
  for (int m = 0; m < 4; m++)
    for (int c = 0; c < 3; c++)
      for (int t = 0; t < 9; t++)
        cr_assert_eq(d[(m * 9 + t) * 3 + c], blob[(m * 3 + c) * 9 + t], "m %d c %d tap %d", m, c, t);
  /* the CPU executor reads tap-major weights as well: the same outputs */
  assert_same_results(g, h, 5);
  /* the text says so, and reads back */
  char *text = print(h);
  cr_assert(strstr(text, "%w.taps = const f32[4,3,3,3] nhwc @blob["), "%s", text);
  free(text);
  /* asked again, nothing changes; where no kernel reads it tap-major
   * (another device), a default-layout copy comes back */
  changed = true;
  T_OK(pass_layout(h, &o, &changed));
  cr_assert(!changed);
  pass_opts none = {0};
  T_OK(pass_layout(h, &none, &changed));
  cr_assert(changed);
  T_OK(ir_verify(h, "<pass>"));
  gy = ir_graph_find_value(h, "y")->producer;
  cr_assert_eq(gy->inputs[1]->layout, IR_LAYOUT_DEFAULT);
  cr_assert(!memcmp(ir_value_const_data(h, gy->inputs[1]), blob, 432));
  assert_same_results(g, h, 6);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

Test(pass_layout, leaves_an_unannotated_graph_alone_and_refuses_unpacked_layouts) {
  ir_graph *g = load("mobilenet_block.vkir");
  char *before = print(g);
  pass_opts o = {.layout_operands = mask_like_codegen};
  bool changed = true;
  T_OK(pass_layout(g, &o, &changed));
  cr_assert(!changed);
  char *after = print(g);
  cr_assert_str_eq(before, after);
  o.layout = IR_LAYOUT_COUNT;
  t_expect_error(pass_layout(g, &o, NULL), VKML_CODE_UNSUPPORTED, "only nc4hw4 and nhwc");
  free(before);
  free(after);
  ir_graph_destroy(g);
}

Test(ir_clone, copies_names_ids_layouts_and_attributes) {
  ir_graph *g = load("layouts_devices.vkir");
  ir_graph *h = NULL;
  T_OK(ir_graph_clone(g, &h));
  char *a = print(g), *b = print(h);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
  cr_assert_eq(g->n_values, h->n_values);
  cr_assert_eq(g->n_nodes, h->n_nodes);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

/* As codegen answers for nhwc on a device with cooperative matrices: a
 * one-group conv2d's x and y (a depthwise conv stays in rows), relu, add. */
static uint32_t nhwc_like_codegen(void *user, const ir_node *n, ir_layout l) {
  (void)user;
  if (l != IR_LAYOUT_NHWC || n->inputs[0]->type.rank != 4) return 0;
  if (n->op == IR_OP_CONV2D) return ir_node_int(n, IR_A_GROUP, 1) == 1 ? 1u | 1u << 16 : 0;
  if (n->op == IR_OP_RELU) return 1u | 1u << 16;
  if (n->op == IR_OP_ADD) return 3u | 1u << 16;
  return 0;
}

static int nhwc_convs(const ir_graph *g) {
  int k = 0;
  ir_foreach_node(g, n) k += n->op == IR_OP_CONV2D && n->outputs[0]->layout == IR_LAYOUT_NHWC;
  return k;
}

/* --layout auto: a chain of four 3x3 convs (two values crossing its edge,
 * each a reorder) runs nhwc; 1x1 convs between depthwise convs (each
 * region one conv, no 3x3, two crossings) and a chain of three 3x3 convs
 * (three convs, two crossings) stay in rows; explicit nhwc packs them all. */
Test(pass_layout, auto_keeps_the_nhwc_regions_that_pay) {
  static const char *const head = "vkir 1\n"
                                  "graph @g(%x: f16[1,16,8,8]) -> (%y: f16[1,16,8,8]) {\n"
                                  "  %w = const f16[16,16,3,3] @blob[0, 4608]\n"
                                  "  %w1 = const f16[16,16,1,1] @blob[0, 512]\n"
                                  "  %wd = const f16[16,1,3,3] @blob[0, 288]\n";
  static const char *const bodies[3] = {
      "  %a = conv2d %x, %w {pads=[1,1,1,1], act=relu} : f16[1,16,8,8]\n"
      "  %b = conv2d %a, %w {pads=[1,1,1,1]} : f16[1,16,8,8]\n"
      "  %c = conv2d %b, %w {pads=[1,1,1,1], act=relu} : f16[1,16,8,8]\n"
      "  %d = add %c, %a : f16[1,16,8,8]\n"
      "  %y = conv2d %d, %w {pads=[1,1,1,1]} : f16[1,16,8,8]\n",
      "  %a = conv2d %x, %w1 : f16[1,16,8,8]\n"
      "  %b = conv2d %a, %wd {pads=[1,1,1,1], group=16} : f16[1,16,8,8]\n"
      "  %c = conv2d %b, %w1 : f16[1,16,8,8]\n"
      "  %d = conv2d %c, %wd {pads=[1,1,1,1], group=16} : f16[1,16,8,8]\n"
      "  %y = conv2d %d, %w1 : f16[1,16,8,8]\n",
      "  %a = conv2d %x, %w {pads=[1,1,1,1], act=relu} : f16[1,16,8,8]\n"
      "  %b = conv2d %a, %w {pads=[1,1,1,1]} : f16[1,16,8,8]\n"
      "  %y = conv2d %b, %w {pads=[1,1,1,1], act=relu} : f16[1,16,8,8]\n"};
  static const int kept[3] = {4, 0, 0}, all[3] = {4, 3, 3};
  static uint8_t blob[4608];
  for (int i = 0; i < 3; i++) {
    char text[2048];
    snprintf(text, sizeof text, "%s%s  return %%y\n}\n", head, bodies[i]);
    for (int mode = 0; mode < 2; mode++) {
      ir_graph *g = parse(text);
      ir_graph_set_blob(g, blob, sizeof blob, false);
      pass_opts o = {.layout_operands = nhwc_like_codegen};
      if (mode) o.layout = IR_LAYOUT_NHWC;
      else o.layout_auto = true;
      T_OK(pass_layout(g, &o, NULL));
      T_OK(ir_verify(g, "<pass>"));
      cr_assert_eq(nhwc_convs(g), mode ? all[i] : kept[i], "graph %d, %s", i,
                   mode ? "nhwc" : "auto");
      ir_graph_destroy(g);
    }
  }
}
