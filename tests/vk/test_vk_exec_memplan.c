/* The intermediates' arena on the GPU: every memory planner gives the CPU
 * executor's outputs (with a CPU step in the middle, views elided, fan-out),
 * and reusing a range that an earlier dispatch still reads gets its
 * write-after-read barrier (synchronization validation is on: a missing one
 * fails the test; the barrier count says it is there because of the reuse).
 * Bounds: fp32 relu/add/mul/sub exact to rounding on both sides; sigmoid and
 * tanh differ by a few ulps between GLSL and libm: rtol 1e-5, atol 1e-6. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/plan.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

static void run_and_compare(rt_vk_exec *x, const ir_graph *g, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor in[4], got[4], want[4];
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *t = &g->inputs[i]->type;
    in[i] = t_tensor_random(&r, t->dtype, t->rank, t->dims, -2, 2);
  }
  T_OK(rt_vk_exec_run(x, in, g->n_inputs, got, g->n_outputs, NULL));
  T_OK(rt_cpu_run_graph(g, in, g->n_inputs, want, g->n_outputs));
  for (int i = 0; i < g->n_outputs; i++) {
    t_assert_close(&got[i], &want[i], 1e-5, 1e-6);
    rt_tensor_free(&got[i]);
    rt_tensor_free(&want[i]);
  }
  for (int i = 0; i < g->n_inputs; i++) rt_tensor_free(&in[i]);
}

/* mul on the CPU (forced) between GPU steps, reshapes of intermediates
 * (aliases), a value read by three steps, two outputs. */
static const char MIX[] =
    "vkir 1\n"
    "graph @mp(%x: f32[2,4,8], %y: f32[8]) -> (%out: f32[8,8], %s2: f32[2,4,8]) {\n"
    "  %a = add %x, %y : f32[2,4,8]\n"
    "  %b = relu %a : f32[2,4,8]\n"
    "  %c = mul %b, %a : f32[2,4,8]\n"
    "  %v = reshape %c {shape=[8,8]} : f32[8,8]\n"
    "  %d = sigmoid %v : f32[8,8]\n"
    "  %e = tanh %b : f32[2,4,8]\n"
    "  %f = reshape %e {shape=[8,8]} : f32[8,8]\n"
    "  %out = add %d, %f : f32[8,8]\n"
    "  %s2 = sub %e, %x : f32[2,4,8]\n"
    "  return %out, %s2\n"
    "}\n";

Test(vk_exec_memplan, every_planner_matches_the_cpu) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse(MIX);
  uint64_t arena[IR_MEMPLAN_COUNT];
  for (int s = 0; s < IR_MEMPLAN_COUNT; s++) {
    drv_opts o = {.compiler = e.cc,
                      .memory_planner = (ir_memplan_strategy)s};
    ir_plan *p;
    T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "mul", &p));
    const ir_graph *pg = p->graph;
    cr_assert_eq(p->mem.strategy, (ir_memplan_strategy)s);
    T_OK(ir_plan_check(p, pg));
    /* in the arena: a, b, c.dev (the upload of the CPU's c), d, e (own
     * storage), v and f (aliases of c.dev, e) */
    const char *alias[2][2] = {{"v", "c.dev"}, {"f", "e"}};
    for (int k = 0; k < 2; k++) {
      const ir_value *av = ir_graph_find_value(pg, alias[k][0]);
      const ir_value *root = ir_graph_find_value(pg, alias[k][1]);
      cr_assert_eq(p->mem.alias[av->id], root->id, "%s", alias[k][0]);
    }
    rt_vk_exec *x;
    T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
    for (uint64_t run = 0; run < 2; run++) run_and_compare(x, g, 7 + run);
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(x, &st);
    cr_assert_eq(st.arena_bytes, p->mem.arena_bytes);
    cr_assert_eq(st.n_arena_values, 7, "%d", st.n_arena_values);
    cr_assert_eq(st.n_views_elided, 2, "both reshapes run on the GPU as no-ops");
    /* x, y, out and s2 have buffers of their own, plus the arena */
    cr_assert_eq(st.n_buffers, 5, "%d", st.n_buffers);
    arena[s] = p->mem.arena_bytes;
    rt_vk_exec_destroy(x);
    ir_plan_destroy(p);
  }
  /* 256 bytes each; lifetimes (positions: a, b, download b, download a,
   * c on the CPU, upload c, v, d, e, f, out, s2): a[0,3], b[1,8],
   * c.dev[5,7] (v read at 7), d[7,10], e[8,11] (f read at 10): at most
   * three live at once */
  cr_assert_eq(arena[IR_MEMPLAN_NAIVE], 5 * 256);
  cr_assert_eq(arena[IR_MEMPLAN_GREEDY], 3 * 256);
  cr_assert_eq(arena[IR_MEMPLAN_MCFP], 3 * 256);
  cr_assert_eq(arena[IR_MEMPLAN_BEST], 3 * 256);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* r = tanh(x) does not depend on q = sigmoid(p) but, once p is dead, takes
 * p's bytes, which q's dispatch reads: a write-after-read that needs a
 * barrier only because of the reuse (naive: two barriers, q after p and out
 * after q and r; with reuse a third before r). */
static const char WAR[] = "vkir 1\n"
                          "graph @war(%x: f32[4,64]) -> (%out: f32[4,64]) {\n"
                          "  %p = relu %x : f32[4,64]\n"
                          "  %q = sigmoid %p : f32[4,64]\n"
                          "  %r = tanh %x : f32[4,64]\n"
                          "  %out = add %q, %r : f32[4,64]\n"
                          "  return %out\n"
                          "}\n";

Test(vk_exec_memplan, reused_range_gets_its_barrier) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse(WAR);
  const ir_value *p_v = ir_graph_find_value(g, "p"), *r_v = ir_graph_find_value(g, "r");
  const ir_memplan_strategy which[2] = {IR_MEMPLAN_NAIVE, IR_MEMPLAN_BEST};
  for (int k = 0; k < 2; k++) {
    drv_opts o = {.compiler = e.cc, .memory_planner = which[k]};
    ir_plan *p;
    ir_graph *h;
    T_OK(ir_graph_clone(g, &h));
    T_OK(drv_plan(&h, e.t, &o, NULL, &p));
    bool reused = p->mem.offsets[p_v->id] == p->mem.offsets[r_v->id];
    cr_assert_eq(reused, which[k] == IR_MEMPLAN_BEST, "best puts r where p was");
    cr_assert_eq(p->mem.arena_bytes, (which[k] == IR_MEMPLAN_BEST ? 2u : 3u) * 1024);
    rt_vk_exec *x;
    T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
    for (uint64_t run = 0; run < 3; run++) run_and_compare(x, g, 40 + run);
    vt_assert_clean(e.ctx);
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(x, &st);
    cr_assert_eq(st.n_segments, 1);
    cr_assert_eq(st.n_barriers, reused ? 3 : 2, "%d barriers", st.n_barriers);
    rt_vk_exec_destroy(x);
    ir_plan_destroy(p);
  }
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* Views at the graph's edges share bytes instead of copying: a reshape of a
 * graph input and of a constant is read in place, a reshape that is the
 * only reader of an intermediate and gives a graph output its bytes makes
 * the producer write into the output's buffer. An intermediate with another
 * reader keeps its copy. Lean and step by step (a CPU step reads a view of
 * the input), every planner: same results as the CPU. */
static const char EDGES[] =
    "vkir 1\n"
    "graph @edges(%x: f32[4,6]) -> (%y: f32[2,12], %z: f32[24], %w: f32[3,8]) {\n"
    "  %c = const f32[6,4] [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24]\n"
    "  %xr = reshape %x {shape=[24]} : f32[24]\n"
    "  %cr = reshape %c {shape=[24]} : f32[24]\n"
    "  %a = add %xr, %cr : f32[24]\n"
    "  %y = reshape %a {shape=[2,12]} : f32[2,12]\n"
    "  %b = relu %xr : f32[24]\n"
    "  %z = exp %b : f32[24]\n"
    "  %w = reshape %b {shape=[3,8]} : f32[3,8]\n"
    "  return %y, %z, %w\n"
    "}\n";

Test(vk_exec_memplan, views_at_the_edges_share_bytes) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse(EDGES);
  for (int v = 0; v < 2; v++) { /* lean; and with exp on the CPU */
    drv_opts o = {.compiler = e.cc};
    ir_plan *p;
    T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, v ? "exp" : NULL, &p));
    rt_vk_exec *x;
    T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(x, &st);
    /* %xr, %cr (read in place) and %y (written by the add) run no
     * kernel; %w keeps its copy (%b is read by exp too) */
    cr_assert_eq(st.n_views_elided, 3, "variant %d: %d views elided", v, st.n_views_elided);
    cr_assert_eq(st.lean, v == 0);
    for (int i = 0; i < p->n_steps; i++) {
      const ir_node *n = NULL;
      ir_foreach_node(p->graph, m) if (m->id == p->steps[i].node) n = m;
      if (n && !strcmp(n->outputs[0]->name, "w") && p->steps[i].device == IR_DEVICE_GPU)
        cr_assert(rt_vk_exec_step_dispatches(x, i), "the reshape to %%w must copy");
    }
    for (int round = 0; round < 2; round++) run_and_compare(x, g, 40 + (uint64_t)(2 * v + round));
    rt_vk_exec_destroy(x);
    ir_plan_destroy(p);
  }
  ir_graph_destroy(g);
  vt_env_close(&e);
}
