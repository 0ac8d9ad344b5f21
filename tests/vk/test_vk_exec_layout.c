/* Whole graphs with packed channels (pass_opts.layout = nc4hw4, or packed
 * annotations in the graph) on the GPU against the CPU executor: the plan's
 * graph has reorder nodes at the edges of the packed regions, every node
 * stays on the GPU, results agree; fp16; --cpu-ops next to packed regions;
 * and the plan checks that keep packed buffers away from the host.
 *
 * Bounds: fp32 rtol 1e-4, atol 1e-6 (conv sums of up to 72 products in a
 * different order than the reference); fp16 against the CPU executor on the
 * fp32 graph rtol 2e-2, atol 2e-2 (inputs O(1), weights O(1), every layer
 * rounds to f16, 2^-11 relative, through two convs of up to 72 terms). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/conv.h"
#include "codegen/core/plan.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

static ir_graph *load(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", VKML_SOURCE_ROOT, rel);
  ir_graph *g = NULL;
  T_OK(ir_parse_file(path, &g));
  return g;
}

static int count_steps(const ir_plan *p, const ir_graph *pg, ir_op op, ir_device d) {
  int i = 0, k = 0;
  ir_foreach_node(pg, n) {
    k += n->op == op && p->steps[i].device == d;
    i++;
  }
  return k;
}

static int packed_values(const ir_graph *g) {
  int k = 0;
  ir_foreach_value(g, v) k += v->layout == IR_LAYOUT_NC4HW4;
  return k;
}

/* Builds, runs twice (the recorded programs replayed) and compares with the
 * CPU executor on g. */
static ir_plan *build_and_check(vt_env *e, const ir_graph *g, const drv_opts *o, ir_layout l,
                                const char *cpu_ops, double rtol, double atol, uint64_t seed) {
  ir_plan *p;
  T_OK(vt_plan_build(g, e->t, o, l, cpu_ops, &p));
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e->ctx, p, NULL, &x));
  t_rng r = t_rng_make(seed);
  for (int run = 0; run < 2; run++) {
    rt_tensor in[4], got[4], want[4];
    cr_assert(g->n_inputs <= 4 && g->n_outputs <= 4);
    for (int i = 0; i < g->n_inputs; i++)
      in[i] = t_tensor_random(&r, g->inputs[i]->type.dtype, g->inputs[i]->type.rank,
                              g->inputs[i]->type.dims, -1, 1);
    T_OK(rt_vk_exec_run(x, in, g->n_inputs, got, g->n_outputs, NULL));
    T_OK(rt_cpu_run_graph(g, in, g->n_inputs, want, g->n_outputs));
    for (int i = 0; i < g->n_outputs; i++) {
      t_assert_close(&got[i], &want[i], rtol, atol);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    for (int i = 0; i < g->n_inputs; i++) rt_tensor_free(&in[i]);
  }
  rt_vk_exec_destroy(x);
  return p;
}

Test(vk_exec_layout, mobilenet_block_packed) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load("tests/ir/mobilenet_block.vkir");
  drv_opts o = {.compiler = e.cc};
  ir_plan *p = build_and_check(&e, g, &o, IR_LAYOUT_NC4HW4, NULL, 1e-4, 1e-6, 1);
  const ir_graph *pg = p->graph;
  cr_assert(pg != g, "a packed plan runs its own copy of the graph");
  /* 3 convs, the add and the pool packed; %input in, %pooled out */
  cr_assert_eq(count_steps(p, pg, IR_OP_REORDER, IR_DEVICE_GPU), 2);
  cr_assert_eq(count_steps(p, pg, IR_OP_CONV2D, IR_DEVICE_GPU), 3);
  int n_gpu, n_cpu, n_transfer;
  ir_plan_counts(p, &n_gpu, &n_cpu, &n_transfer);
  cr_assert_eq(n_cpu + n_transfer, 0);
  cr_assert_geq(packed_values(pg), 6);
  ir_foreach_node(pg, n) if (n->op == IR_OP_CONV2D) {
    cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_NC4HW4);
    cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_NC4HW4);
  }
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec_layout, tinycnn_packed_fp32_and_fp16) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load("tests/models/tinycnn/model.vkir");
  drv_opts o = {.compiler = e.cc};
  ir_plan *p = build_and_check(&e, g, &o, IR_LAYOUT_NC4HW4, NULL, 1e-4, 1e-6, 2);
  const ir_graph *pg = p->graph;
  /* conv, maxpool, conv, global pool packed: reorders at %x and %g */
  cr_assert_eq(count_steps(p, pg, IR_OP_REORDER, IR_DEVICE_GPU), 2);
  ir_plan_destroy(p);
  o.precision = IR_PRECISION_FP16;
  p = build_and_check(&e, g, &o, IR_LAYOUT_NC4HW4, NULL, 2e-2, 2e-2, 3);
  pg = p->graph;
  cr_assert_eq(count_steps(p, pg, IR_OP_REORDER, IR_DEVICE_GPU), 2);
  ir_foreach_node(pg, n) if (n->op == IR_OP_CONV2D) {
    cr_assert_eq(n->inputs[0]->type.dtype, IR_F16);
    cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_NC4HW4);
  }
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec_layout, cpu_ops_split_the_packed_regions) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load("tests/models/tinycnn/model.vkir");
  /* maxpool on the CPU: conv1 packed, back to rows for the pool, conv2 packed again */
  drv_opts o = {.compiler = e.cc};
  ir_plan *p = build_and_check(&e, g, &o, IR_LAYOUT_NC4HW4, "MaxPool", 1e-4, 1e-6, 4);
  const ir_graph *pg = p->graph;
  cr_assert_eq(count_steps(p, pg, IR_OP_MAXPOOL, IR_DEVICE_CPU), 1);
  cr_assert_eq(count_steps(p, pg, IR_OP_REORDER, IR_DEVICE_GPU), 4);
  /* the reorders stay on the GPU: one download before the pool, one upload
   * after it */
  int n_transfer;
  ir_plan_counts(p, NULL, NULL, &n_transfer);
  cr_assert_eq(n_transfer, 2);
  ir_foreach_node(pg, n) if (n->op == IR_OP_MAXPOOL) {
    cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_DEFAULT);
    cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_DEFAULT);
  }
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec_layout, annotations_ask_for_packing_without_the_option) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @g(%x: f32[2,7,9,5]) -> (%y: f32[2,7,9,5] nc4hw4, %z: f32[2,7,9,5]) {\n"
                     "  %y = relu %x : f32[2,7,9,5] nc4hw4\n"
                     "  %z = sigmoid %y : f32[2,7,9,5]\n"
                     "  return %y, %z\n"
                     "}\n";
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  drv_opts o = {.compiler = e.cc};
  ir_plan *p = build_and_check(&e, g, &o, IR_LAYOUT_DEFAULT, NULL, 1e-6, 0, 5);
  const ir_graph *pg = p->graph;
  /* relu packed (annotated): x in, y out (shared by sigmoid and the output) */
  cr_assert_eq(count_steps(p, pg, IR_OP_REORDER, IR_DEVICE_GPU), 2);
  ir_foreach_node(pg, n) if (n->op == IR_OP_RELU) cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_NC4HW4);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

static int values_in(const ir_graph *g, ir_layout l) {
  int k = 0;
  ir_foreach_value(g, v) k += v->layout == l && !ir_value_is_const(v);
  return k;
}

/* --layout nhwc: the elementwise ops over one shape and the pools run nhwc
 * anywhere (a region between reorders, unfused with no_opt), a conv2d where the
 * device runs it on the cooperative-matrix templates (fp16, channels of a
 * group in multiples of 8; test_vk_conv_coopmat checks its kernel), the
 * rest in the default layout; results as the CPU executor's, fp32 and
 * fp16. */
Test(vk_exec_layout, nhwc_regions) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @g(%x: f32[2,12,7,5], %y: f32[2,12,7,5]) -> (%o: f32[2,12,7,5], "
                     "%s: f32[2,12,1,1], %q: f32[2,12,4,3]) {\n"
                     "  %a = sigmoid %x : f32[2,12,7,5]\n"
                     "  %b = mul %a, %y : f32[2,12,7,5]\n"
                     "  %c = tanh %b : f32[2,12,7,5]\n"
                     "  %o = add %c, %x : f32[2,12,7,5]\n"
                     "  %s = global_avg_pool %o : f32[2,12,1,1]\n"
                     "  %m = maxpool %o {kernel=[3,3], strides=[2,2], pads=[1,1,1,1]} : "
                     "f32[2,12,4,3]\n"
                     "  %q = avgpool %m {kernel=[2,2], pads=[1,0,0,1], count_include_pad=0} : "
                     "f32[2,12,4,3]\n"
                     "  return %o, %s, %q\n"
                     "}\n";
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  drv_opts o = {.compiler = e.cc, .no_opt = true};
  for (int fp16 = 0; fp16 < 2; fp16++) {
    o.precision = fp16 ? IR_PRECISION_FP16 : IR_PRECISION_FP32;
    ir_plan *p = build_and_check(&e, g, &o, IR_LAYOUT_NHWC, NULL, fp16 ? 2e-2 : 1e-6,
                                 fp16 ? 2e-2 : 1e-7, 7);
    const ir_graph *pg = p->graph;
    /* %x and %y in, the three outputs out */
    cr_assert_eq(count_steps(p, pg, IR_OP_REORDER, IR_DEVICE_GPU), 5);
    ir_foreach_node(pg, n) if (n->op == IR_OP_MUL || n->op == IR_OP_TANH ||
                              n->op == IR_OP_MAXPOOL || n->op == IR_OP_AVGPOOL ||
                              n->op == IR_OP_GLOBAL_AVG_POOL) {
      cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_NHWC);
      cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_NHWC);
    }
    ir_plan_destroy(p);
  }
  ir_graph_destroy(g);
  /* convs: nhwc only on the cooperative-matrix templates */
  g = load("tests/ir/mobilenet_block.vkir");
  o.no_opt = false;
  for (int fp16 = 0; fp16 < 2; fp16++) {
    o.precision = fp16 ? IR_PRECISION_FP16 : IR_PRECISION_FP32;
    ir_plan *p = build_and_check(&e, g, &o, IR_LAYOUT_NHWC, NULL, fp16 ? 2e-2 : 1e-4,
                                 fp16 ? 2e-2 : 1e-6, 8);
    bool coop = fp16 && cg_conv_coopmat_suits(e.t);
    int n_nhwc = 0;
    ir_foreach_node(p->graph, n) if (n->op == IR_OP_CONV2D) {
      int64_t cpg = n->inputs[0]->type.dims[1] / ir_node_int(n, IR_A_GROUP, 1);
      bool nh = n->inputs[0]->layout == IR_LAYOUT_NHWC;
      cr_assert(!nh || (coop && cpg % 8 == 0), "conv2d %s: x nhwc", n->outputs[0]->name);
      cr_assert_eq(n->outputs[0]->layout, n->inputs[0]->layout);
      n_nhwc += nh;
    }
    if (!coop) cr_assert_eq(n_nhwc, 0);
    cr_log_info("mobilenet_block %s: %d convs nhwc, %d values nhwc", fp16 ? "fp16" : "fp32",
                n_nhwc, values_in(p->graph, IR_LAYOUT_NHWC));
    ir_plan_destroy(p);
  }
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec_layout, plans_keep_packed_buffers_off_the_host) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load("tests/models/tinycnn/model.vkir");
  drv_opts o = {.compiler = e.cc};
  ir_plan *p;
  ir_graph *h;
  T_OK(ir_graph_clone(g, &h));
  const ir_graph *h0 = h;
  T_OK(drv_plan(&h, e.t, &o, NULL, &p));
  cr_assert(p->graph == h0 && !h, "the plan owns the graph it was built from");
  /* the same plan against a graph whose output claims to be packed */
  g->outputs[0]->layout = IR_LAYOUT_NC4HW4;
  t_expect_error(ir_plan_check(p, g), VKML_CODE_INVALID_ARGUMENT, "graph output %prob");
  g->outputs[0]->layout = IR_LAYOUT_DEFAULT;
  /* a CPU step binding a packed value (the flatten reads %g.host, the
   * download of %g) */
  ir_plan *pc;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "flatten", &pc));
  ir_value *gh = ir_graph_find_value(pc->graph, "g.host");
  cr_assert_not_null(gh);
  gh->layout = IR_LAYOUT_NC4HW4;
  t_expect_error(ir_plan_check(pc, pc->graph), VKML_CODE_INVALID_ARGUMENT,
                 "runs on the CPU but binds a packed value");
  gh->layout = IR_LAYOUT_DEFAULT;
  T_OK(ir_plan_check(pc, pc->graph));
  ir_plan_destroy(pc);
  ir_plan_destroy(p);
  /* a layout the kernels do not pack */
  t_expect_error(vt_plan_build(g, e.t, &o, IR_LAYOUT_COUNT, NULL, &p), VKML_CODE_UNSUPPORTED,
                 "only nc4hw4 and nhwc");
  ir_graph_destroy(g);
  vt_env_close(&e);
}
