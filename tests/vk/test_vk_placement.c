/* Placement (passes/pass_place.c, pass_insert_transfers.c) on real models
 * on lavapipe: forcing any single op type onto the CPU gives the outputs of
 * the all-GPU run, with exactly the transfers the graph needs; and
 * --fallback never names every node that would leave the GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "ir/text.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

static ir_graph *load(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", VKML_SOURCE_ROOT, rel);
  ir_graph *g = NULL;
  /* batch 1, as in the model's bundled input (export_real_cnns.py); the
   * shape applies to the .onnx models only */
  size_t n = strlen(path);
  const char *names[] = {"input"};
  const int ranks[] = {4};
  const int64_t dims[4] = {1, 3, 40, 48};
  const int64_t *dp[] = {dims};
  drv_opts o = {.import = {.shape_names = names, .shape_ranks = ranks, .shape_dims = dp}};
  o.import.n_shapes = n > 5 && !strcmp(path + n - 5, ".onnx");
  drv_source src = {.path = path};
  T_OK(drv_import(&src, &o, &g));
  return g;
}

/* A copy of g compiled as vkc run compiles it (drv_compile_graph: the pass
 * pipeline with codegen's placement and layout queries, then the plan),
 * cpu_ops forced onto the CPU; the plan owns the copy. */
static ir_plan *compile(vt_env *e, const ir_graph *g, const char *cpu_ops, ir_layout layout) {
  ir_graph *h;
  T_OK(ir_graph_clone(g, &h));
  const ir_graph *h0 = h;
  bool forced[IR_OP_COUNT];
  T_OK(drv_op_list_parse(cpu_ops, "--cpu-ops", forced));
  drv_opts o = {.cpu_ops = forced, .layout = layout, .compiler = e->cc};
  ir_plan *p;
  vkml_status s = drv_compile_graph(&h, e->t, &o, NULL, &p);
  cr_assert(!s, "%s: %s", cpu_ops ? cpu_ops : "all-GPU", vkml_status_message(s));
  cr_assert_eq(p->graph, h0, "the plan owns the graph it runs");
  return p;
}

/* The transfers are exactly the crossings: each has a reader, none copies
 * the same value the same way twice, and no other node reads a value made
 * on the other device (the plan check, which cg_plan_build ran). Returns
 * how many there are. */
static int check_transfers(const ir_graph *g, const char *what) {
  int n = 0;
  ir_foreach_node(g, t) {
    if (t->op != IR_OP_DOWNLOAD && t->op != IR_OP_UPLOAD) continue;
    n++;
    bool read = false;
    ir_foreach_node(g, r) for (int i = 0; i < r->n_inputs; i++) read |= r->inputs[i] == t->outputs[0];
    cr_assert(read, "%s: %%%s is copied but nothing reads the copy", what, t->outputs[0]->name);
    for (ir_node *u = t->next; u; u = u->next)
      cr_assert(u->op != t->op || u->inputs[0] != t->inputs[0], "%s: %%%s is copied twice",
                what, t->inputs[0]->name);
  }
  return n;
}

static void check_model(const char *rel, double rtol, double atol) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load(rel);
  t_rng r = t_rng_make(21);
  rt_tensor in[4], want[8], got[8];
  cr_assert(g->n_inputs <= 4 && g->n_outputs <= 8);
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *t = &g->inputs[i]->type;
    in[i] = t_tensor_random(&r, t->dtype, t->rank, t->dims, -1, 1);
  }
  ir_plan *all = compile(&e, g, NULL, IR_LAYOUT_DEFAULT);
  int n_gpu, n_cpu, n_transfer;
  ir_plan_counts(all, &n_gpu, &n_cpu, &n_transfer);
  cr_assert(n_cpu == 0 && n_transfer == 0, "%s: all-GPU has %d CPU steps", rel, n_cpu);
  vt_exec_once(&e, all, in, g->n_inputs, want, g->n_outputs);
  /* every op type the compiled graph runs, forced onto the CPU alone */
  bool seen[IR_OP_COUNT] = {false};
  ir_foreach_node(all->graph, n) seen[n->op] = true;
  int forced = 0;
  for (int op = 0; op < IR_OP_COUNT; op++) {
    if (!seen[op] || op == IR_OP_REORDER) continue;
    const char *name = ir_op_name((ir_op)op);
    ir_plan *p = compile(&e, g, name, IR_LAYOUT_DEFAULT);
    char what[128];
    snprintf(what, sizeof what, "%s with %s on the CPU", rel, name);
    ir_foreach_node(p->graph, n) if ((int)n->op == op) {
      cr_assert_eq(n->device, IR_DEVICE_CPU, "%s", what);
      cr_assert(strstr(ir_node_string(n, IR_A_CPU_REASON), "--cpu-ops"), "%s", what);
    }
    int nt = check_transfers(p->graph, what);
    ir_plan_counts(p, NULL, &n_cpu, &n_transfer);
    cr_assert(n_cpu > 0 && nt == n_transfer && nt > 0, "%s: %d CPU steps, %d transfers", what,
              n_cpu, nt);
    vt_exec_once(&e, p, in, g->n_inputs, got, g->n_outputs);
    for (int k = 0; k < g->n_outputs; k++) {
      t_assert_close(&got[k], &want[k], rtol, atol);
      rt_tensor_free(&got[k]);
    }
    cr_log_info("%s: %d CPU steps, %d transfers", what, n_cpu, nt);
    ir_plan_destroy(p);
    forced++;
  }
  cr_assert_geq(forced, 4, "%s: only %d op types", rel, forced);
  for (int k = 0; k < g->n_outputs; k++) rt_tensor_free(&want[k]);
  for (int i = 0; i < g->n_inputs; i++) rt_tensor_free(&in[i]);
  ir_plan_destroy(all);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_placement, tinycnn_any_op_on_the_cpu) {
  check_model("tests/models/tinycnn/model.vkir", 1e-4, 1e-5);
}

Test(vk_placement, smallnet_any_op_on_the_cpu) {
  check_model("tests/models/real/smallnet_op13.onnx", 1e-4, 1e-5);
}

/* Packed layouts: a CPU node between packed GPU kernels gets its reorders
 * on the GPU and its transfers in the default layout. */
Test(vk_placement, packed_regions_around_a_cpu_node) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load("tests/models/tinycnn/model.vkir");
  ir_plan *all = compile(&e, g, NULL, IR_LAYOUT_NC4HW4);
  ir_plan *p = compile(&e, g, "maxpool", IR_LAYOUT_NC4HW4);
  ir_foreach_node(p->graph, n) if (n->op == IR_OP_DOWNLOAD || n->op == IR_OP_UPLOAD) {
    cr_assert_eq(n->inputs[0]->layout, IR_LAYOUT_DEFAULT);
    cr_assert_eq(n->outputs[0]->layout, IR_LAYOUT_DEFAULT);
  }
  cr_assert_eq(check_transfers(p->graph, "tinycnn nc4hw4, maxpool on the CPU"), 2);
  t_rng r = t_rng_make(5);
  const ir_type *t = &g->inputs[0]->type;
  rt_tensor in = t_tensor_random(&r, t->dtype, t->rank, t->dims, -1, 1), want, got;
  vt_exec_once(&e, all, &in, 1, &want, 1);
  vt_exec_once(&e, p, &in, 1, &got, 1);
  t_assert_close(&got, &want, 1e-4, 1e-5);
  rt_tensor_free(&got);
  rt_tensor_free(&want);
  rt_tensor_free(&in);
  ir_plan_destroy(p);
  ir_plan_destroy(all);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* --fallback never: the compile fails listing every node that would run
 * on the CPU, each with where it is and why. */
Test(vk_placement, fallback_never_lists_the_nodes) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = load("tests/models/tinycnn/model.vkir");
  bool forced[IR_OP_COUNT];
  T_OK(drv_op_list_parse("maxpool,softmax", "--cpu-ops", forced));
  drv_opts o = {.cpu_ops = forced, .fallback_never = true};
  vkml_status s = drv_passes(g, e.t, &o);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED);
  const char *m = vkml_status_message(s);
  cr_assert(strstr(m, "pass place: 2 nodes cannot run on the GPU (--fallback never):"), "%s", m);
  cr_assert(strstr(m, "maxpool %") && strstr(m, "softmax %"), "%s", m);
  cr_assert(strstr(m, ": forced onto the CPU (--cpu-ops)"), "%s", m);
  vkml_status_free(s);
  ir_graph_destroy(g);
  /* nothing forced: every tinycnn node has a GPU kernel */
  g = load("tests/models/tinycnn/model.vkir");
  o.cpu_ops = NULL;
  T_OK(drv_passes(g, e.t, &o));
  ir_graph_destroy(g);
  vt_env_close(&e);
}
