/* ONNX importer on small generated models (tests/frontend/gen_models.py):
 * the IR each ONNX form becomes (auto_pad resolved, opset variants of
 * attributes vs inputs, 1-D ops, legacy Softmax, shape folding, constants,
 * external data, frozen inputs) and its results on the CPU executor against
 * NumPy references computed by the generator. */
#include <math.h>

#include "ir/text.h"
#include "onnx_test_util.h"

#define INTS(...) ((const int64_t[]){__VA_ARGS__}), \
                  (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

Test(onnx_import, conv_auto_pad_same_upper_and_lower) {
  ir_graph *g = import_model("conv_same_upper", NULL);
  ir_node *c = nth_node(g, IR_OP_CONV2D, 0);
  cr_assert(c);
  expect_ints(c, IR_A_PADS, INTS(0, 0, 1, 1));
  expect_ints(c, IR_A_STRIDES, INTS(2, 2));
  cr_expect_eq(c->outputs[0]->type.dims[2], 3);
  run_compare(g, "conv_same_upper", 1, 1);
  ir_graph_destroy(g);

  g = import_model("conv_same_lower", NULL);
  c = nth_node(g, IR_OP_CONV2D, 0);
  expect_ints(c, IR_A_PADS, INTS(1, 1, 0, 0));
  cr_expect_str_eq(ir_node_string(c, IR_A_NAME), "conv");
  run_compare(g, "conv_same_lower", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, conv1d_goes_through_unit_height) {
  ir_graph *g = import_model("conv1d", NULL);
  ir_node *c = nth_node(g, IR_OP_CONV2D, 0);
  cr_assert(c);
  expect_ints(c, IR_A_PADS, INTS(0, 1, 0, 2));
  expect_ints(c, IR_A_STRIDES, INTS(1, 2));
  /* The weight constant is retyped to [4,2,1,3], the input reshaped. */
  const ir_type *w = &c->inputs[1]->type;
  cr_expect(ir_value_is_const(c->inputs[1]));
  cr_expect(w->rank == 4 && w->dims[2] == 1 && w->dims[3] == 3);
  cr_expect_eq(c->inputs[0]->producer->op, IR_OP_RESHAPE);
  ir_value *y = g->outputs[0];
  cr_expect(y->type.rank == 3 && y->type.dims[1] == 4 && y->type.dims[2] == 4);
  cr_expect_eq(y->producer->op, IR_OP_RESHAPE);
  run_compare(g, "conv1d", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, conv_transpose_output_shape_sets_pads) {
  ir_graph *g = import_model("convtranspose_output_shape", NULL);
  ir_node *c = nth_node(g, IR_OP_CONV_TRANSPOSE2D, 0);
  cr_assert(c);
  expect_ints(c, IR_A_PADS, INTS(1, 1, 0, 0));
  expect_ints(c, IR_A_OUTPUT_PADDING, INTS(0, 0));
  run_compare(g, "convtranspose_output_shape", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, pools_ceil_mode_and_count_include_pad) {
  ir_graph *g = import_model("maxpool_ceil", NULL);
  ir_node *p = nth_node(g, IR_OP_MAXPOOL, 0);
  cr_assert(p);
  cr_expect_eq(ir_node_int(p, IR_A_CEIL_MODE, 0), 1);
  expect_ints(p, IR_A_KERNEL, INTS(3, 3));
  run_compare(g, "maxpool_ceil", 1, 1);
  ir_graph_destroy(g);

  g = import_model("avgpool_include_pad", NULL);
  p = nth_node(g, IR_OP_AVGPOOL, 0);
  cr_assert(p);
  cr_expect_eq(ir_node_int(p, IR_A_COUNT_INCLUDE_PAD, 0), 1);
  expect_ints(p, IR_A_PADS, INTS(1, 1, 1, 1));
  run_compare(g, "avgpool_include_pad", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, softmax_before_opset13_coerces_to_2d) {
  ir_graph *g = import_model("softmax_opset11", NULL);
  cr_expect_eq(count_nodes(g), 3);
  ir_node *r = nth_node(g, IR_OP_RESHAPE, 0), *s = nth_node(g, IR_OP_SOFTMAX, 0);
  cr_assert(r && s);
  expect_ints(r, IR_A_SHAPE, INTS(2, 12));
  cr_expect_eq(ir_node_int(s, IR_A_AXIS, -1), 1);
  run_compare(g, "softmax_opset11", 1, 1);
  ir_graph_destroy(g);

  g = import_model("softmax_opset13", NULL);
  cr_expect_eq(count_nodes(g), 1);
  s = nth_node(g, IR_OP_SOFTMAX, 0);
  cr_assert(s);
  cr_expect_eq(ir_node_int(s, IR_A_AXIS, -1), 1);
  run_compare(g, "softmax_opset13", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, clip_attributes_and_inputs_agree) {
  const char *names[] = {"clip_opset6", "clip_opset12"};
  for (int i = 0; i < 2; i++) {
    ir_graph *g = import_model(names[i], NULL);
    ir_node *c = nth_node(g, IR_OP_CLIP, 0);
    cr_assert(c);
    cr_expect_float_eq(ir_node_float(c, IR_A_MIN, 0), -0.5f, 1e-7);
    cr_expect_float_eq(ir_node_float(c, IR_A_MAX, 0), 0.75f, 1e-7);
    cr_expect_eq(c->n_inputs, 1, "min/max must not stay inputs");
    run_compare(g, names[i], 1, 1);
    ir_graph_destroy(g);
  }
}

Test(onnx_import, reduce_axes_attribute_input_and_noop) {
  const char *names[] = {"reducesum_opset11", "reducesum_opset13"};
  for (int i = 0; i < 2; i++) {
    ir_graph *g = import_model(names[i], NULL);
    ir_node *r = nth_node(g, IR_OP_REDUCE_SUM, 0);
    cr_assert(r);
    expect_ints(r, IR_A_AXES, INTS(1));
    cr_expect_eq(ir_node_int(r, IR_A_KEEPDIMS, 1), 0);
    run_compare(g, names[i], 1, 1);
    ir_graph_destroy(g);
  }
  /* noop_with_empty_axes is the identity: the output is the input, renamed
   * by an identity node. */
  ir_graph *g = import_model("reducesum_noop", NULL);
  cr_expect_eq(count_nodes(g), 1);
  cr_assert(nth_node(g, IR_OP_IDENTITY, 0));
  cr_expect_eq(g->first->inputs[0], g->inputs[0]);
  cr_expect_str_eq(g->outputs[0]->name, "y");
  run_compare(g, "reducesum_noop", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, squeeze_unsqueeze_axes_normalised) {
  const char *names[] = {"squeeze_opset11", "squeeze_opset13"};
  for (int i = 0; i < 2; i++) {
    ir_graph *g = import_model(names[i], NULL);
    ir_node *s = nth_node(g, IR_OP_SQUEEZE, 0), *u = nth_node(g, IR_OP_UNSQUEEZE, 0);
    cr_assert(s && u, "%s", names[i]);
    expect_ints(s, IR_A_AXES, INTS(1, 3));
    expect_ints(u, IR_A_AXES, INTS(2));
    run_compare(g, names[i], 1, 1);
    ir_graph_destroy(g);
  }
}

Test(onnx_import, split_sizes_attribute_and_input) {
  const char *names[] = {"split_opset11", "split_opset13"};
  for (int i = 0; i < 2; i++) {
    ir_graph *g = import_model(names[i], NULL);
    ir_node *s = nth_node(g, IR_OP_SPLIT, 0);
    cr_assert(s);
    expect_ints(s, IR_A_SPLIT, INTS(1, 3));
    cr_expect_eq(s->n_inputs, 1);
    cr_expect_eq(s->n_outputs, 2);
    run_compare(g, names[i], 1, 2);
    ir_graph_destroy(g);
  }
}

Test(onnx_import, slice_attributes_and_negative_steps) {
  ir_graph *g = import_model("slice_opset9", NULL);
  ir_node *s = nth_node(g, IR_OP_SLICE, 0);
  cr_assert(s);
  expect_ints(s, IR_A_STARTS, INTS(1, 0));
  expect_ints(s, IR_A_ENDS, INTS(3, 100));
  run_compare(g, "slice_opset9", 1, 1);
  ir_graph_destroy(g);

  g = import_model("slice_opset13", NULL);
  s = nth_node(g, IR_OP_SLICE, 0);
  cr_assert(s);
  expect_ints(s, IR_A_AXES, INTS(1));
  expect_ints(s, IR_A_STEPS, INTS(-2));
  cr_expect_eq(g->outputs[0]->type.dims[1], 3);
  run_compare(g, "slice_opset13", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, resize_opset10_and_sizes) {
  ir_graph *g = import_model("resize_opset10", NULL);
  ir_node *r = nth_node(g, IR_OP_RESIZE, 0);
  cr_assert(r);
  cr_expect_eq(ir_node_int(r, IR_A_COORD_MODE, -1), IR_COORD_ASYMMETRIC);
  cr_expect_eq(ir_node_int(r, IR_A_NEAREST_MODE, -1), IR_NEAREST_FLOOR);
  const float *sc;
  cr_assert_eq(ir_node_floats(r, IR_A_SCALES, &sc), 4);
  cr_expect(sc[2] == 2.0f && sc[3] == 2.0f);
  run_compare(g, "resize_opset10", 1, 1);
  ir_graph_destroy(g);

  g = import_model("resize_sizes", NULL);
  r = nth_node(g, IR_OP_RESIZE, 0);
  cr_assert(r);
  expect_ints(r, IR_A_SIZES, INTS(1, 1, 3, 5));
  cr_expect(!ir_node_attr(r, IR_A_SCALES));
  run_compare(g, "resize_sizes", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, shape_subgraph_folds_with_input_shape) {
  const char *names[] = {"x"};
  const int64_t dims[] = {2, 3, 4, 5};
  const int64_t *dimv[] = {dims};
  const int ranks[] = {4};
  onnx_import_opts o = {0};
  o.n_shapes = 1;
  o.shape_names = names;
  o.shape_dims = dimv;
  o.shape_ranks = ranks;
  ir_graph *g = import_model("shape_fold", &o);
  /* Shape, Gather, Mul, Unsqueeze, Concat, Range and Cast are all gone. */
  cr_expect_eq(count_nodes(g), 3);
  ir_node *r = nth_node(g, IR_OP_RESHAPE, 0), *a = nth_node(g, IR_OP_ADD, 0);
  cr_assert(r && a && nth_node(g, IR_OP_RELU, 0));
  expect_ints(r, IR_A_SHAPE, INTS(2, 3, 20));
  cr_assert(ir_value_is_const(a->inputs[1]));
  const float *rng = ir_value_const_data(g, a->inputs[1]);
  cr_assert(rng);
  for (int i = 0; i < 20; i++) cr_expect_eq(rng[i], (float)i);
  run_compare(g, "shape_fold", 1, 1);
  ir_graph_destroy(g);
}

/* Folding evaluates through the caller's evaluator only: without one the
 * shape computation stays, and the op that needs it constant says so
 * (naming node, input and reason). The folded constants keep their ONNX
 * names. */
Test(onnx_import, folding_needs_the_injected_evaluator) {
  const char *names[] = {"x"};
  const int64_t dims[] = {2, 3, 4, 5};
  const int64_t *dimv[] = {dims};
  const int ranks[] = {4};
  onnx_import_opts o = {.n_shapes = 1, .shape_names = names, .shape_dims = dimv,
                        .shape_ranks = ranks};
  char *p = model_path("shape_fold", ".onnx");
  ir_graph *g = NULL;
  vkml_status s = onnx_import_file(p, &o, &g);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED, "%s", vkml_status_message(s));
  /* the Reshape resolves its shape from what it knows (onnx_partial.c):
   * the Range after it is the first to need a constant */
  cr_expect(strstr(vkml_status_message(s), "Range node") &&
                strstr(vkml_status_message(s), "must be a constant"),
            "%s", vkml_status_message(s));
  cr_expect_null(g);
  vkml_status_free(s);
  free(p);
  g = import_model("shape_fold", &o); /* with the CPU kernels */
  char *text;
  size_t n;
  T_OK(ir_print(g, &text, &n));
  cr_expect(!strstr(text, "gather") && !strstr(text, "concat") && !strstr(text, "cast"), "%s",
            text);
  free(text);
  ir_graph_destroy(g);
}

Test(onnx_import, unsorted_nodes_are_ordered) {
  ir_graph *g = import_model("unsorted", NULL);
  cr_assert_eq(count_nodes(g), 2);
  cr_expect_eq(g->first->op, IR_OP_EXP);
  cr_expect_eq(g->last->op, IR_OP_NEG);
  run_compare(g, "unsorted", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, constant_node_forms) {
  ir_graph *g = import_model("constants", NULL);
  ir_node *r = nth_node(g, IR_OP_RESHAPE, 0), *m = nth_node(g, IR_OP_MUL, 0);
  cr_assert(r && m);
  expect_ints(r, IR_A_SHAPE, INTS(3, 2));
  const float *k = ir_value_const_data(g, m->inputs[1]);
  cr_assert(k && m->inputs[1]->type.rank == 0);
  cr_expect_eq(*k, 1.5f);
  run_compare(g, "constants", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, identity_and_dropout_are_elided) {
  /* Both vanish; one identity names the graph output after the ONNX one. */
  ir_graph *g = import_model("identity_dropout", NULL);
  cr_expect_eq(count_nodes(g), 1);
  cr_expect_eq(g->first->op, IR_OP_IDENTITY);
  cr_expect_eq(g->first->inputs[0], g->inputs[0]);
  cr_expect_str_eq(g->outputs[0]->name, "y");
  cr_expect(ir_value_is_const(g->outputs[1]));
  cr_expect_str_eq(g->outputs[1]->name, "mask");
  cr_expect_eq(g->outputs[1]->type.dtype, IR_BOOL);
  run_compare(g, "identity_dropout", 1, 2);
  ir_graph_destroy(g);
}

Test(onnx_import, gemm_batchnorm_layernorm_values) {
  ir_graph *g = import_model("gemm", NULL);
  ir_node *n = nth_node(g, IR_OP_GEMM, 0);
  cr_assert(n);
  cr_expect_float_eq(ir_node_float(n, IR_A_ALPHA, 1), 0.5f, 1e-7);
  cr_expect_float_eq(ir_node_float(n, IR_A_BETA, 1), 2.0f, 1e-7);
  cr_expect_eq(ir_node_int(n, IR_A_TRANS_B, 0), 1);
  run_compare(g, "gemm", 1, 1);
  ir_graph_destroy(g);

  g = import_model("batchnorm", NULL);
  cr_assert(nth_node(g, IR_OP_BATCHNORM, 0));
  run_compare(g, "batchnorm", 1, 1);
  ir_graph_destroy(g);

  /* Mean and InvStdDev come from reductions next to layer_norm. */
  g = import_model("layernorm", NULL);
  n = nth_node(g, IR_OP_LAYER_NORM, 0);
  cr_assert(n);
  cr_expect_eq(ir_node_int(n, IR_A_AXIS, 0), 2);
  cr_expect(nth_node(g, IR_OP_REDUCE_MEAN, 1) != NULL);
  run_compare(g, "layernorm", 1, 3);
  ir_graph_destroy(g);
}

/* If: a run-time condition keeps both branches and selects with where; a
 * constant one imports only its branch. */
Test(onnx_import, if_branches) {
  ir_graph *g = import_model("if_runtime", NULL);
  cr_assert(nth_node(g, IR_OP_WHERE, 0));
  cr_assert(nth_node(g, IR_OP_ADD, 0) && nth_node(g, IR_OP_MUL, 0));
  run_compare(g, "if_runtime", 2, 1);
  ir_graph_destroy(g);
  g = import_model("if_const", NULL);
  cr_assert_null(nth_node(g, IR_OP_WHERE, 0));
  cr_assert_null(nth_node(g, IR_OP_MUL, 0), "the else branch is not imported");
  run_compare(g, "if_const", 1, 1);
  ir_graph_destroy(g);
}

/* Loop: unrolled at import, the body's condition folding per iteration;
 * a trip count computed at run time is refused, saying so. */
Test(onnx_import, loop_unrolled) {
  ir_graph *g = import_model("loop_unrolled", NULL);
  cr_assert(nth_node(g, IR_OP_CONCAT, 0), "the scan output stacks the iterations");
  cr_assert(nth_node(g, IR_OP_MUL, 2) && !nth_node(g, IR_OP_MUL, 3), "three iterations");
  run_compare(g, "loop_unrolled", 1, 2);
  ir_graph_destroy(g);
  import_fails("loop_runtime.onnx", NULL, VKML_CODE_UNSUPPORTED,
               "Loop node 'loop1': a Loop whose trip count is computed at run time");
}

/* Shape and Size of a bounded value: the shape op, at run time. */
Test(onnx_import, shape_of_a_bounded_value) {
  ir_graph *g = import_model("shape_runtime", NULL);
  cr_assert(nth_node(g, IR_OP_SHAPE, 0));
  run_compare(g, "shape_runtime", 2, 3);
  ir_graph_destroy(g);
}

/* Reshape, ConstantOfShape (of the Shape, and of a Concat holding one
 * run-time size), Expand to an exported Where(Equal(shape, -1), 1, shape),
 * Reshape to [n, -1, 1], ScatterElements on bounded data, Slice to
 * [0, 0 + n), Range(0, n, 1) and If on TopK's run-time count; Concat of 70;
 * ConstantOfShape of a run-time Shape's entries that are all known. */
Test(onnx_import, runtime_shapes) {
  ir_graph *g = import_model("runtime_shapes", NULL);
  cr_assert(nth_node(g, IR_OP_SELECT, 0), "the If selects a bounded output");
  ir_node *rs = nth_node(g, IR_OP_RESHAPE, 0);
  cr_assert(rs && rs->outputs[0]->type.bounded && rs->outputs[0]->type.bounded_axis == 0);
  run_compare(g, "runtime_shapes", 3, 11);
  ir_graph_destroy(g);
}

Test(onnx_import, topk_runtime_k_is_bounded) {
  ir_graph *g = import_model("topk_runtime_k", NULL);
  ir_node *t = nth_node(g, IR_OP_TOPK, 0);
  cr_assert(t);
  cr_expect_eq(t->n_inputs, 2);
  cr_expect(!ir_node_attr(t, IR_A_K));
  cr_expect(t->outputs[0]->type.bounded);
  run_compare(g, "topk_runtime_k", 2, 2);
  ir_graph_destroy(g);

  /* Frozen, K becomes the attribute and the outputs are static. */
  rt_tensor k = read_pb("topk_runtime_k", "in", 1);
  const char *names[] = {"k"};
  ir_type kt = rt_tensor_type(&k);
  const void *kd[] = {k.data};
  onnx_import_opts o = {0};
  o.n_consts = 1;
  o.const_names = names;
  o.const_types = &kt;
  o.const_data = kd;
  g = import_model("topk_runtime_k", &o);
  t = nth_node(g, IR_OP_TOPK, 0);
  cr_assert(t);
  cr_expect_eq(ir_node_int(t, IR_A_K, -1), 2);
  cr_expect(!t->outputs[0]->type.bounded);
  int feed[] = {0};
  run_compare_feed(g, "topk_runtime_k", feed, 1, 2);
  ir_graph_destroy(g);
  rt_tensor_free(&k);
}

Test(onnx_import, large_constants_in_aligned_blob) {
  ir_graph *g = import_model("blob", NULL);
  ir_node *mm = nth_node(g, IR_OP_MATMUL, 0), *add = nth_node(g, IR_OP_ADD, 0);
  cr_assert(mm && add);
  ir_value *w = mm->inputs[1], *b = add->inputs[1];
  cr_expect_eq(w->storage, IR_CONST_BLOB);
  cr_expect_eq(b->storage, IR_CONST_BLOB); /* 160 bytes > 64 */
  cr_expect_eq(w->blob_offset % 64, 0);
  cr_expect_eq(b->blob_offset % 64, 0);
  cr_expect(g->blob_bytes >= 6400 + 160);
  run_compare(g, "blob", 1, 1);
  ir_graph_destroy(g);

  onnx_import_opts o = {0};
  o.inline_max_bytes = 1 << 20;
  g = import_model("blob", &o);
  mm = nth_node(g, IR_OP_MATMUL, 0);
  cr_expect_eq(mm->inputs[1]->storage, IR_CONST_INLINE);
  cr_expect_eq(g->blob_bytes, 0);
  run_compare(g, "blob", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, frozen_input_becomes_attribute) {
  rt_tensor shape = read_pb("frozen_shape", "in", 1);
  const char *names[] = {"shape"};
  ir_type st = rt_tensor_type(&shape);
  const void *sd[] = {shape.data};
  onnx_import_opts o = {0};
  o.n_consts = 1;
  o.const_names = names;
  o.const_types = &st;
  o.const_data = sd;
  ir_graph *g = import_model("frozen_shape", &o);
  cr_expect_eq(g->n_inputs, 1);
  ir_node *r = nth_node(g, IR_OP_RESHAPE, 0);
  cr_assert(r);
  expect_ints(r, IR_A_SHAPE, INTS(3, 2, 2));
  int feed[] = {0};
  run_compare_feed(g, "frozen_shape", feed, 1, 1);
  ir_graph_destroy(g);
  rt_tensor_free(&shape);
}

Test(onnx_import, external_data_next_to_the_model) {
  ir_graph *g = import_model("ext_ok/model", NULL);
  run_compare(g, "ext_ok", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, model_info_marks_parameter_inputs) {
  struct {
    const char *name;
    int n_inputs;
    bool param[2];
  } cases[] = {{"frozen_shape", 2, {false, true}},
               {"topk_runtime_k", 2, {false, true}},
               {"shape_fold", 1, {false}}, /* Shape reads only the type */
               {"blob", 1, {false}}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *p = model_path(cases[i].name, ".onnx");
    onnx_model_info info;
    T_OK(onnx_model_info_read(p, &info));
    cr_assert_eq(info.n_inputs, cases[i].n_inputs, "%s", cases[i].name);
    for (int k = 0; k < info.n_inputs; k++)
      cr_expect_eq(info.input_is_param[k], cases[i].param[k], "%s input %d",
                   cases[i].name, k);
    cr_expect_eq(info.n_outputs, strcmp(cases[i].name, "topk_runtime_k") ? 1 : 2);
    cr_expect_eq(info.opset, strcmp(cases[i].name, "topk_runtime_k") ? 13 : 11);
    onnx_model_info_free(&info);
    free(p);
  }
}

Test(onnx_import, buffer_import_matches_file_import) {
  char *p = model_path("gemm", ".onnx");
  FILE *f = fopen(p, "rb");
  cr_assert(f);
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  ir_graph *a = NULL, *b = NULL;
  T_OK(onnx_import_buffer(buf, n, "gemm", NULL, &a));
  T_OK(onnx_import_file(p, NULL, &b));
  char *ta, *tb;
  size_t la, lb;
  T_OK(ir_print(a, &ta, &la));
  T_OK(ir_print(b, &tb, &lb));
  cr_expect(la == lb && memcmp(ta, tb, la) == 0, "buffer and file imports differ");
  cr_expect(strstr(ta, "gemm") != NULL);
  free(ta);
  free(tb);
  ir_graph_destroy(a);
  ir_graph_destroy(b);
  free(p);

  /* External data needs a directory: refused from memory. */
  p = model_path("ext_ok/model", ".onnx");
  f = fopen(p, "rb");
  cr_assert(f);
  n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  vkml_status s = onnx_import_buffer(buf, n, NULL, NULL, &a);
  cr_assert(s);
  cr_expect(strstr(vkml_status_message(s), "needs the model's directory"),
            "%s", vkml_status_message(s));
  cr_expect(strncmp(vkml_status_message(s), "<memory>: ", 10) == 0);
  vkml_status_free(s);
  free(p);
}

Test(onnx_import, shape_argument_parser) {
  char *name;
  int rank;
  int64_t d[IR_MAX_RANK];
  T_OK(onnx_shape_arg_parse("input:0=1,3,224,224", &name, &rank, d));
  cr_expect_str_eq(name, "input:0");
  cr_expect_eq(rank, 4);
  cr_expect(d[0] == 1 && d[1] == 3 && d[2] == 224 && d[3] == 224);
  free(name);
  T_OK(onnx_shape_arg_parse("s=", &name, &rank, d));
  cr_expect_eq(rank, 0);
  free(name);
  const char *bad[] = {"x=1,,2", "=1", "x=-1", "x=1,", "x", "x=1,2,3,4,5,6,7,8,9",
                       "x=a"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    vkml_status s = onnx_shape_arg_parse(bad[i], &name, &rank, d);
    cr_expect(s != VKML_OK, "'%s' accepted", bad[i]);
    cr_expect(name == NULL);
    cr_expect(s && strstr(vkml_status_message(s), "--input-shape"));
    vkml_status_free(s);
  }
}

Test(onnx_import, import_is_deterministic) {
  char *t[2];
  size_t l[2];
  for (int i = 0; i < 2; i++) {
    ir_graph *g = import_model("layernorm", NULL);
    T_OK(ir_print(g, &t[i], &l[i]));
    ir_graph_destroy(g);
  }
  cr_expect(l[0] == l[1] && memcmp(t[0], t[1], l[0]) == 0);
  free(t[0]);
  free(t[1]);
}

Test(onnx_import, dynamic_cnn_becomes_static) {
  const char *names[] = {"x"};
  const int64_t dims[] = {2, 3, 8, 6};
  const int64_t *dimv[] = {dims};
  const int ranks[] = {4};
  onnx_import_opts o = {0};
  o.n_shapes = 1;
  o.shape_names = names;
  o.shape_dims = dimv;
  o.shape_ranks = ranks;
  ir_graph *g = import_model("cnn_dynamic", &o);
  /* conv bn relu maxpool conv relu gap reshape gemm softmax: the shape
   * computation folded into the reshape's attribute. */
  static const ir_op want[] = {IR_OP_CONV2D, IR_OP_BATCHNORM, IR_OP_RELU,
                               IR_OP_MAXPOOL, IR_OP_CONV2D, IR_OP_RELU,
                               IR_OP_GLOBAL_AVG_POOL, IR_OP_RESHAPE, IR_OP_GEMM,
                               IR_OP_SOFTMAX};
  int i = 0;
  ir_foreach_node(g, n) {
    cr_assert_lt(i, 10, "more nodes than expected");
    cr_expect_eq(n->op, want[i], "node %d is %s", i, ir_op_name(n->op));
    i++;
  }
  cr_expect_eq(i, 10);
  expect_ints(nth_node(g, IR_OP_RESHAPE, 0), IR_A_SHAPE, INTS(2, 6));
  expect_ints(nth_node(g, IR_OP_CONV2D, 1), IR_A_PADS, INTS(1, 1, 1, 1));
  cr_expect_str_eq(ir_node_string(nth_node(g, IR_OP_GEMM, 0), IR_A_NAME), "/fc/Gemm");
  cr_expect(g->outputs[0]->type.rank == 2 && g->outputs[0]->type.dims[0] == 2 &&
            g->outputs[0]->type.dims[1] == 5);
  run_compare(g, "cnn_dynamic", 1, 1);
  ir_graph_destroy(g);
}

Test(onnx_import, everything_in_the_blob) {
  /* Negative inline_max_bytes: even the importer's own constants (the
   * layer-norm epsilon) live in the blob. */
  onnx_import_opts o = {0};
  o.inline_max_bytes = -1;
  ir_graph *g = import_model("layernorm", &o);
  int n_const = 0;
  ir_foreach_value(g, v) if (ir_value_is_const(v)) {
    cr_expect_eq(v->storage, IR_CONST_BLOB, "%%%s is inline", v->name);
    cr_expect_eq(v->blob_offset % 64, 0);
    n_const++;
  }
  cr_expect_eq(n_const, 3);
  ir_node *add = nth_node(g, IR_OP_ADD, 0);
  cr_assert(add);
  const float *eps = ir_value_const_data(g, add->inputs[1]);
  cr_assert(eps);
  cr_expect_float_eq(*eps, 1e-5f, 1e-12);
  run_compare(g, "layernorm", 1, 3);
  ir_graph_destroy(g);
}

/* --cpu-ops and vktune --ops: IR names and ONNX spellings. */
Test(onnx_import, op_list_names) {
  bool m[IR_OP_COUNT];
  T_OK(onnx_op_list_parse("Conv, BatchNormalization,non_max_suppression,TopK,GlobalAveragePool,"
                        "MaxPool,,HardSwish", "--cpu-ops", m));
  ir_op want[] = {IR_OP_CONV2D, IR_OP_BATCHNORM, IR_OP_NON_MAX_SUPPRESSION, IR_OP_TOPK,
                  IR_OP_GLOBAL_AVG_POOL, IR_OP_MAXPOOL, IR_OP_HARD_SWISH};
  int n = 0;
  for (int i = 0; i < IR_OP_COUNT; i++) n += m[i];
  cr_assert_eq(n, 7);
  for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) cr_assert(m[want[i]]);
  T_OK(onnx_op_list_parse(NULL, "--cpu-ops", m));
  for (int i = 0; i < IR_OP_COUNT; i++) cr_assert(!m[i]);
  t_expect_error(onnx_op_list_parse("add,Frobnicate", "--ops", m), VKML_CODE_INVALID_ARGUMENT,
                 "--ops: unknown op 'Frobnicate'");
}
