/* The tuner's measurement (tuner/tuner_measure.c) on lavapipe: the
 * clock-stable protocol times each point in pairs with the reference, and a
 * point's time is its ratio to the reference on the reference's scale. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "test_support.h"
#include "tuner/tuner_measure.h"
#include "vk_test.h"

static const char gemm_text[] =
    "vkir 1\n"
    "graph @g(%a: f32[48,72], %b: f32[72,40]) -> (%y: f32[48,40]) {\n"
    "  %y = gemm %a, %b : f32[48,40]\n"
    "  return %y\n"
    "}\n";

/* The workload of the graph's one node, and a point of its space other
 * than the default. */
static void workload_of(const vt_env *e, const ir_graph *g, tuner_workload **w,
                        tuner_point *other) {
  int n = 0;
  T_OK(tuner_workloads_find(g, e->t, w, &n));
  cr_assert_eq(n, 1);
  const tuner_workload *x = *w;
  *other = x->dflt;
  /* another valid point: the first neighbour the pre-filter accepts */
  for (int i = 0; i < x->space.n; i++) {
    tuner_point p = {.tmpl = i, .sched = x->space.dflt[i]};
    const cg_template *tm = x->space.tmpl[i];
    for (int k = 0; k < tm->n_knobs; k++)
      for (int v = 0; v < tm->knobs[k].n_values; v++) {
        p.sched.v[k] = tm->knobs[k].values[v];
        if (!tuner_point_equal(&x->space, &p, &x->dflt) && tuner_workload_valid(x, e->t, &p)) {
          *other = p;
          return;
        }
        p.sched = x->space.dflt[i];
      }
  }
  cr_assert_fail("no other valid point");
}

/* The gemm graph, its one workload and another valid point of it. */
typedef struct fixture {
  vt_env e;
  ir_graph *g;
  tuner_workload *w;
  tuner_point other;
} fixture;

static void fixture_open(fixture *f) {
  vt_env_open(&f->e);
  f->g = vt_parse(gemm_text);
  f->w = NULL;
  workload_of(&f->e, f->g, &f->w, &f->other);
}

static void fixture_close(fixture *f) {
  free(f->w);
  ir_graph_destroy(f->g);
  vt_env_close(&f->e);
}

Test(tuner_bench, points_are_timed_in_pairs_with_the_reference) {
  fixture f;
  fixture_open(&f);
  const tuner_workload *w = f.w;
  const tuner_point other = f.other;
  tuner_bench *b = NULL;
  tuner_bench_opts o = {.runs = 9, .warmup_ms = 1, .first_warmup_ms = 1, .compiler = f.e.cc};
  T_OK(tuner_bench_create(f.e.ctx, f.g, w->node, &o, &b));
  const cg_template *dt = w->space.tmpl[w->dflt.tmpl], *ot = w->space.tmpl[other.tmpl];

  /* without a reference: the point's own median, no ratio */
  tuner_measurement m;
  T_OK(tuner_bench_measure(b, ot, &other.sched, &m));
  cr_assert(!m.failed && m.correct, "%s", m.message);
  cr_assert(m.median_ns > 0 && m.ratio == 0 && m.median_ns == m.raw_median_ns);
  cr_assert_eq(m.runs, 9);

  /* the reference is measured alone, 4x the runs, on its own scale */
  T_OK(tuner_bench_set_reference(b, dt, &w->dflt.sched, 0, &m));
  cr_assert(!m.failed && m.correct, "%s", m.message);
  cr_assert(m.median_ns > 0 && m.ratio == 0);
  cr_assert_eq(m.runs, 36);

  /* the reference against itself: a ratio near 1 (pairs on one device
   * under the same load), the time on the reference's scale */
  T_OK(tuner_bench_measure(b, dt, &w->dflt.sched, &m));
  cr_assert(!m.failed && m.correct, "%s", m.message);
  cr_assert(m.ratio > 0.5 && m.ratio < 2, "the reference against itself: ratio %g", m.ratio);

  /* a given scale: every time is the ratio times that scale */
  T_OK(tuner_bench_set_reference(b, dt, &w->dflt.sched, 1000, &m));
  T_OK(tuner_bench_measure(b, ot, &other.sched, &m));
  cr_assert(!m.failed && m.correct && m.ratio > 0, "%s", m.message);
  cr_assert_float_eq(m.median_ns, 1000 * m.ratio, 1e-9 * m.median_ns);
  cr_assert(m.raw_median_ns > 0 && m.spread_ns >= 0);

  /* the confirming measurement: paired, `times` x the runs */
  T_OK(tuner_bench_confirm(b, ot, &other.sched, 4, &m));
  cr_assert(!m.failed && m.ratio > 0);
  cr_assert_eq(m.runs, 36);

  tuner_bench_destroy(b);
  fixture_close(&f);
}

/* Chains: a replay times `chain` dispatches in a row (2 by default on a CPU
 * device such as lavapipe), each after a cache flush of flush_mb MiB (none
 * by default on a CPU device); one per submission (chain 1), longer chains
 * and flushed ones time the same kernel and check the point the same. */
Test(tuner_bench, chains_time_the_dispatch_in_its_steady_state) {
  fixture f;
  fixture_open(&f);
  const cg_template *ot = f.w->space.tmpl[f.other.tmpl];
  int chains[] = {0, 1, 5, 3}, flush[] = {0, 0, -1, 1};
  bool cpu = f.e.t->type == IR_TARGET_CPU;
  for (int c = 0; c < 4; c++) {
    tuner_bench *b = NULL;
    tuner_bench_opts o = {.runs = 5, .chain = chains[c], .flush_mb = flush[c], .warmup_ms = 1,
                          .first_warmup_ms = 1, .compiler = f.e.cc};
    T_OK(tuner_bench_create(f.e.ctx, f.g, f.w->node, &o, &b));
    cr_assert_eq(tuner_bench_chain(b), chains[c] ? chains[c] : cpu ? 2 : 16);
    cr_assert_eq(tuner_bench_flush_mb(b), flush[c] > 0 ? flush[c] : flush[c] < 0 || cpu ? 0 : 128);
    tuner_measurement m;
    T_OK(tuner_bench_measure(b, ot, &f.other.sched, &m));
    cr_assert(!m.failed && m.correct, "chain %d: %s", chains[c], m.message);
    cr_assert(m.median_ns > 0 && m.median_ns < 1e9, "chain %d: %g ns", chains[c], m.median_ns);
    tuner_bench_destroy(b);
  }
  fixture_close(&f);
}

/* tuner_precompile: the points' SPIR-V, compiled on several threads into a
 * cache, is what the bench's measurements then find there (the one-node
 * graph they build gives the same kernels): nothing is compiled again. */
Test(tuner_bench, precompiled_points_are_cache_hits) {
  fixture f;
  fixture_open(&f);
  char *dir = vt_tempdir();
  tuner_point pts[2] = {f.w->dflt, f.other};
  cr_assert_eq(tuner_precompile(f.w, f.e.t, pts, 2, dir, 2), 2);
  /* a point that does not instantiate is skipped, not an error */
  tuner_point bad = f.other;
  for (int k = 0; k < f.w->space.tmpl[bad.tmpl]->n_knobs; k++) bad.sched.v[k] = 1 << 20;
  cr_assert_eq(tuner_precompile(f.w, f.e.t, &bad, 1, dir, 0), 0);

  cg_compiler *cc = NULL;
  cg_compiler_opts co = {.cache_dir = dir};
  T_OK(cg_compiler_create(&co, &cc));
  tuner_bench *b = NULL;
  tuner_bench_opts o = {.runs = 3, .warmup_ms = 1, .first_warmup_ms = 1, .compiler = cc};
  T_OK(tuner_bench_create(f.e.ctx, f.g, f.w->node, &o, &b));
  tuner_measurement m;
  T_OK(tuner_bench_set_reference(b, f.w->space.tmpl[f.w->dflt.tmpl], &f.w->dflt.sched, 0, &m));
  cr_assert(!m.failed && m.correct, "%s", m.message);
  T_OK(tuner_bench_measure(b, f.w->space.tmpl[f.other.tmpl], &f.other.sched, &m));
  cr_assert(!m.failed && m.correct, "%s", m.message);
  cg_compiler_stats st;
  cg_compiler_stats_get(cc, &st);
  cr_assert_eq(st.n_compiled, 0, "%d kernels compiled again", st.n_compiled);
  cr_assert_geq(st.n_cache_hits, 2);
  tuner_bench_destroy(b);
  cg_compiler_destroy(cc);
  vt_rmdir(dir);
  free(dir);
  fixture_close(&f);
}

/* A node in nhwc (--layout nhwc / auto regions): the bench runs it between
 * reorders at the graph's edges (which are row-major), times its step
 * alone and checks it against the CPU reference. */
Test(tuner_bench, nhwc_nodes) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse("vkir 1\n"
                         "graph @g(%x: f32[2,16,6,5]) -> (%y: f32[2,16,6,5]) {\n"
                         "  %a = reorder@gpu %x : f32[2,16,6,5] nhwc\n"
                         "  %b = sigmoid@gpu %a : f32[2,16,6,5] nhwc\n"
                         "  %y = reorder@gpu %b : f32[2,16,6,5]\n"
                         "  return %y\n"
                         "}\n");
  tuner_workload *ws = NULL;
  int n = 0;
  T_OK(tuner_workloads_find(g, e.t, &ws, &n));
  int seen = 0;
  for (int i = 0; i < n; i++) {
    tuner_bench *b = NULL;
    tuner_bench_opts o = {.runs = 3, .warmup_ms = 1, .first_warmup_ms = 1, .compiler = e.cc};
    T_OK(tuner_bench_create(e.ctx, g, ws[i].node, &o, &b));
    tuner_measurement m;
    const tuner_point *p = &ws[i].dflt;
    T_OK(tuner_bench_measure(b, ws[i].space.tmpl[p->tmpl], &p->sched, &m));
    cr_assert(!m.failed && m.correct && m.median_ns > 0, "%s: %s", ws[i].key, m.message);
    seen += ws[i].node->op == IR_OP_SIGMOID;
    tuner_bench_destroy(b);
  }
  cr_assert_eq(seen, 1, "the sigmoid in nhwc is a workload");
  free(ws);
  ir_graph_destroy(g);
  vt_env_close(&e);
}
