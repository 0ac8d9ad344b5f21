/* pass_plan_memory and ir_memplan_check: hand-worked graphs with exact
 * totals per strategy, the checker refusing broken plans, thousands of
 * seeded random DAGs (every strategy valid, the orderings between them), and
 * the test models. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx_import.h"
#include "ir/memplan.h"
#include "ir/text.h"
#include "passes/plan_memory.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"

/* ---- building unverified graphs (the planner needs only structure and
 * types) ---------------------------------------------------------------------- */

static ir_value *val(ir_graph *g, int64_t elems) {
  ir_type t = ir_type_make(IR_F32, 1, &elems);
  ir_value *v = NULL;
  T_OK(ir_value_create(g, NULL, &t, &v));
  return v;
}

static ir_value *input(ir_graph *g, int64_t elems) {
  ir_value *v = val(g, elems);
  T_OK(ir_graph_add_input(g, v));
  return v;
}

static void node(ir_graph *g, ir_op op, ir_value *const *in, int n_in, ir_value *const *out,
                 int n_out) {
  ir_node *n = NULL;
  T_OK(ir_node_create(g, op, in, n_in, out, n_out, &n));
}

/* y = op(a) or op(a, b) with a fresh y of `elems` f32. */
static ir_value *op1(ir_graph *g, ir_op op, ir_value *a, int64_t elems) {
  ir_value *y = val(g, elems);
  node(g, op, &a, 1, &y, 1);
  return y;
}

static ir_value *op2(ir_graph *g, ir_value *a, ir_value *b, int64_t elems) {
  ir_value *y = val(g, elems), *in[2] = {a, b};
  node(g, IR_OP_ADD, in, 2, &y, 1);
  return y;
}

static ir_graph *empty(void) {
  ir_graph *g = NULL;
  T_OK(ir_graph_create("t", &g));
  return g;
}

/* What the default planner places: every intermediate, its storage bytes. */
static uint64_t storage_bytes(void *user, const ir_value *v) {
  (void)user;
  return (uint64_t)ir_type_storage_bytes(&v->type, v->layout);
}

typedef struct totals {
  uint64_t bytes[IR_MEMPLAN_COUNT];
  uint64_t lower;
} totals;

/* Plans g with every strategy, checks each, returns the arena sizes. */
static totals plan_all(const ir_graph *g, uint64_t align, ir_memplan_size_fn size, void *user) {
  totals t = {0};
  for (int s = 0; s < IR_MEMPLAN_COUNT; s++) {
    pass_memplan_opts o = {.strategy = (ir_memplan_strategy)s, .alignment = align,
                           .size = size, .user = user};
    ir_memplan m;
    T_OK(pass_plan_memory(g, &o, &m));
    vkml_status st = ir_memplan_check(&m, g, size, user);
    cr_assert(!st, "%s: %s", ir_memplan_strategy_name((ir_memplan_strategy)s),
              vkml_status_message(st));
    cr_assert_eq(m.strategy, (ir_memplan_strategy)s);
    t.bytes[s] = m.arena_bytes;
    if (s) cr_assert_eq(m.lower_bound, t.lower, "the lower bound does not depend on the strategy");
    t.lower = m.lower_bound;
    ir_memplan_free(&m);
  }
  return t;
}

static void expect(const totals *t, uint64_t naive, uint64_t greedy, uint64_t mcfp,
                   uint64_t best, uint64_t lower) {
  cr_expect_eq(t->bytes[IR_MEMPLAN_NAIVE], naive, "naive %llu", (unsigned long long)t->bytes[IR_MEMPLAN_NAIVE]);
  cr_expect_eq(t->bytes[IR_MEMPLAN_GREEDY], greedy, "greedy %llu", (unsigned long long)t->bytes[IR_MEMPLAN_GREEDY]);
  cr_expect_eq(t->bytes[IR_MEMPLAN_MCFP], mcfp, "mcfp %llu", (unsigned long long)t->bytes[IR_MEMPLAN_MCFP]);
  cr_expect_eq(t->bytes[IR_MEMPLAN_BEST], best, "best %llu", (unsigned long long)t->bytes[IR_MEMPLAN_BEST]);
  cr_expect_eq(t->lower, lower, "lower %llu", (unsigned long long)t->lower);
}

/* ---- hand-worked graphs ----------------------------------------------------- */

/* x -> t1 (400 B) -> t2 (800 B) -> t3 (400 B) -> y: t3 reuses t1's space. */
Test(plan_memory, chain) {
  ir_graph *g = empty();
  ir_value *x = input(g, 10);
  ir_value *t1 = op1(g, IR_OP_RELU, x, 100);
  ir_value *t2 = op1(g, IR_OP_RELU, t1, 200);
  ir_value *t3 = op1(g, IR_OP_RELU, t2, 100);
  ir_value *y = op1(g, IR_OP_RELU, t3, 10);
  T_OK(ir_graph_add_output(g, y));
  totals t = plan_all(g, 1, NULL, NULL);
  expect(&t, 1600, 1200, 1200, 1200, 1200);
  ir_memplan m;
  T_OK(pass_plan_memory(g, &(pass_memplan_opts){.strategy = IR_MEMPLAN_GREEDY}, &m));
  cr_expect_eq(m.offsets[t1->id], m.offsets[t3->id], "t3 takes t1's object");
  cr_expect_eq(m.n_objects, 2);
  cr_expect_eq(m.offsets[x->id], -1, "graph inputs stay out of the arena");
  cr_expect_eq(m.offsets[y->id], -1, "graph outputs stay out of the arena");
  ir_memplan_free(&m);
  ir_graph_destroy(g);
}

/* Greedy hands a's big object to the small c (the only free one), so d needs
 * a new one; the flow gives d a's object instead. Lifetimes (positions):
 * a[0,1] 160 B, b[1,3] 40 B, c[2,3] 40 B, d[3,4] 160 B. */
Test(plan_memory, greedy_worse_than_mcfp) {
  ir_graph *g = empty();
  ir_value *x = input(g, 10);
  ir_value *a = op1(g, IR_OP_RELU, x, 40);
  ir_value *b = op1(g, IR_OP_RELU, a, 10);
  ir_value *c = op1(g, IR_OP_RELU, x, 10);
  ir_value *d = op2(g, b, c, 40);
  T_OK(ir_graph_add_output(g, op1(g, IR_OP_RELU, d, 10)));
  totals t = plan_all(g, 1, NULL, NULL);
  expect(&t, 400, 360, 240, 240, 240);
  ir_graph_destroy(g);
}

/* Two 200 B tensors live together fit in the 400 B a left, which no shared
 * object can do: a[0,1] 400, s[1,3] 4, b[2,4] 200, c[3,4] 200. */
Test(plan_memory, offsets_beat_objects) {
  ir_graph *g = empty();
  ir_value *x = input(g, 10);
  ir_value *a = op1(g, IR_OP_RELU, x, 100);
  ir_value *s = op1(g, IR_OP_RELU, a, 1);
  ir_value *b = op1(g, IR_OP_RELU, s, 50);
  ir_value *c = op1(g, IR_OP_RELU, s, 50);
  T_OK(ir_graph_add_output(g, op2(g, b, c, 50)));
  totals t = plan_all(g, 1, NULL, NULL);
  expect(&t, 804, 604, 604, 404, 404);
  ir_graph_destroy(g);
}

/* Sizes and offsets follow the alignment: four 4-byte tensors, two live at a
 * time, at alignment 256. */
Test(plan_memory, alignment) {
  ir_graph *g = empty();
  ir_value *v = input(g, 1);
  for (int i = 0; i < 4; i++) v = op1(g, IR_OP_RELU, v, 1);
  T_OK(ir_graph_add_output(g, op1(g, IR_OP_RELU, v, 1)));
  totals t = plan_all(g, 256, NULL, NULL);
  expect(&t, 1024, 512, 512, 512, 512);
  pass_memplan_opts o = {.alignment = 48};
  ir_memplan m;
  vkml_status s = pass_plan_memory(g, &o, &m);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT, "48 is not a power of two");
  vkml_status_free(s);
  ir_graph_destroy(g);
}

/* A view aliases its root and keeps it alive until the view's last reader:
 * a[0,4] (read through v at 4) overlaps b[2,4], so b cannot take a's space
 * (without the extension a would end at 1 and the arena be 128 B). A view of
 * a graph input gets its own space (the input is not in the arena). */
Test(plan_memory, views_alias_and_extend_lifetimes) {
  ir_graph *g = empty();
  ir_value *x = input(g, 16);
  ir_value *a = op1(g, IR_OP_RELU, x, 16);
  ir_value *v = op1(g, IR_OP_RESHAPE, a, 16);
  ir_value *b = op1(g, IR_OP_RELU, x, 16);
  ir_value *w = op1(g, IR_OP_FLATTEN, x, 16);
  ir_value *y = val(g, 16), *in[3] = {v, b, w};
  node(g, IR_OP_SUM, in, 3, &y, 1);
  T_OK(ir_graph_add_output(g, y));
  ir_memplan m;
  T_OK(pass_plan_memory(g, NULL, &m));
  T_OK(ir_memplan_check(&m, g, NULL, NULL));
  cr_expect_eq(m.alias[v->id], a->id);
  cr_expect_eq(m.offsets[v->id], m.offsets[a->id]);
  cr_expect_eq(m.alias[w->id], -1, "a view of a graph input has its own storage");
  cr_expect_geq(m.offsets[w->id], 0);
  ir_memplan_free(&m);
  totals t = plan_all(g, 1, NULL, NULL);
  expect(&t, 3 * 64, 3 * 64, 3 * 64, 3 * 64, 3 * 64);
  ir_graph_destroy(g);
}

/* A value whose producer was unlinked from the node list gets no space, and
 * the checker does not ask for any. */
Test(plan_memory, unlinked_producer) {
  ir_graph *g = empty();
  ir_value *x = input(g, 16);
  ir_value *a = op1(g, IR_OP_RELU, x, 16);
  ir_value *orphan = op1(g, IR_OP_RELU, x, 1000);
  T_OK(ir_graph_add_output(g, op1(g, IR_OP_RELU, a, 16)));
  ir_node_remove(g, orphan->producer);
  ir_memplan m;
  T_OK(pass_plan_memory(g, NULL, &m));
  T_OK(ir_memplan_check(&m, g, storage_bytes, NULL));
  cr_expect_eq(m.offsets[orphan->id], -1);
  cr_expect_eq(m.arena_bytes, 64);
  ir_memplan_free(&m);
  ir_graph_destroy(g);
}

/* tinycnn by hand: c1 9248 B [0,1], p1 2048 [1,2], c2 576 [2,3], g 48 [3,5]
 * (flatten %f aliases it; gemm reads %f at 5), logits 20 [5,6]. */
Test(plan_memory, tinycnn_exact) {
  ir_graph *g = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/models/tinycnn/model.vkir", VKML_SOURCE_ROOT);
  T_OK(ir_parse_file(path, &g));
  totals t = plan_all(g, 1, NULL, NULL);
  expect(&t, 11940, 11296, 11296, 11296, 11296);
  ir_memplan m;
  T_OK(pass_plan_memory(g, NULL, &m));
  ir_value *f = ir_graph_find_value(g, "f"), *gv = ir_graph_find_value(g, "g");
  cr_expect_eq(m.alias[f->id], gv->id);
  ir_memplan_free(&m);
  ir_graph_destroy(g);
}

/* ---- the checker refuses broken plans ---------------------------------------- */

static void expect_refused(const ir_memplan *m, const ir_graph *g, const char *what) {
  vkml_status s = ir_memplan_check(m, g, storage_bytes, NULL);
  cr_expect(s != VKML_OK, "checker accepted %s", what);
  cr_expect(!s || strstr(vkml_status_message(s), "memory plan"), "%s", vkml_status_message(s));
  vkml_status_free(s);
}

Test(plan_memory, checker_refuses) {
  ir_graph *g = empty();
  ir_value *x = input(g, 16);
  ir_value *a = op1(g, IR_OP_RELU, x, 16);
  ir_value *v = op1(g, IR_OP_RESHAPE, a, 16);
  ir_value *b = op1(g, IR_OP_RELU, x, 16);
  ir_value *y = op2(g, v, b, 16);
  T_OK(ir_graph_add_output(g, y));
  ir_memplan good, m;
  T_OK(pass_plan_memory(g, &(pass_memplan_opts){.alignment = 64}, &good));
  T_OK(ir_memplan_check(&good, g, NULL, NULL));

  T_OK(ir_memplan_copy(&good, &m));
  m.offsets[b->id] = m.offsets[a->id] + 32; /* overlaps a while both live */
  expect_refused(&m, g, "an overlap");
  ir_memplan_free(&m);

  T_OK(ir_memplan_copy(&good, &m));
  m.offsets[b->id] += 16;
  m.arena_bytes += 64;
  expect_refused(&m, g, "a misaligned offset");
  ir_memplan_free(&m);

  T_OK(ir_memplan_copy(&good, &m));
  m.arena_bytes -= 1;
  expect_refused(&m, g, "a storage past the arena");
  ir_memplan_free(&m);

  T_OK(ir_memplan_copy(&good, &m));
  m.alias[v->id] = b->id;
  m.offsets[v->id] = m.offsets[b->id];
  expect_refused(&m, g, "an alias of a value it is not a view of");
  ir_memplan_free(&m);

  T_OK(ir_memplan_copy(&good, &m));
  m.offsets[y->id] = 0;
  m.bytes[y->id] = 64;
  expect_refused(&m, g, "a graph output in the arena");
  ir_memplan_free(&m);

  T_OK(ir_memplan_copy(&good, &m));
  m.offsets[a->id] = -1;
  m.bytes[a->id] = 0;
  m.offsets[v->id] = -1;
  m.alias[v->id] = -1;
  m.bytes[v->id] = 0;
  vkml_status s = ir_memplan_check(&m, g, NULL, NULL);
  cr_expect(!s, "no space asked for: nothing missing");
  vkml_status_free(s);
  expect_refused(&m, g, "a missing intermediate");
  ir_memplan_free(&m);
  ir_memplan_free(&good);
  ir_graph_destroy(g);
}

/* ---- random DAGs --------------------------------------------------------------- */

typedef struct drop_ctx {
  uint64_t seed;
} drop_ctx;

/* Keeps about 85% of the values (the rest stay on the host, as CPU-only
 * values do), sized as the default does. */
static uint64_t some_values(void *user, const ir_value *v) {
  const drop_ctx *c = user;
  uint64_t h = (c->seed ^ (uint64_t)v->id * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
  if ((h >> 40) % 100 < 15) return 0;
  return (uint64_t)ir_type_storage_bytes(&v->type, v->layout);
}

static int64_t rand_elems(t_rng *r) {
  /* mostly small, sometimes large: the size spread makes strategies differ */
  uint64_t k = t_rng_next(r) % 100;
  if (k < 60) return 1 + (int64_t)(t_rng_next(r) % 64);
  if (k < 90) return 64 + (int64_t)(t_rng_next(r) % 1024);
  return 1024 + (int64_t)(t_rng_next(r) % 16384);
}

/* A random DAG: nodes read 1-3 earlier values (biased to recent ones, like
 * real nets), some are views, some have two outputs, some outputs are graph
 * outputs or dead. */
static ir_graph *random_dag(t_rng *r) {
  ir_graph *g = empty();
  int cap = 256, n = 0;
  ir_value **vals = malloc(sizeof *vals * (size_t)cap);
  int n_in = 1 + (int)(t_rng_next(r) % 2);
  for (int i = 0; i < n_in; i++) vals[n++] = input(g, rand_elems(r));
  if (t_rng_next(r) % 2) {
    int64_t e = 8;
    ir_type t = ir_type_make(IR_F32, 1, &e);
    float data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    T_OK(ir_const_create_inline(g, NULL, &t, data, &vals[n++]));
  }
  int n_nodes = 1 + (int)(t_rng_next(r) % 60);
  for (int k = 0; k < n_nodes && n + 2 < cap; k++) {
    ir_value *in[3];
    int n_pick = 1 + (int)(t_rng_next(r) % 3);
    for (int i = 0; i < n_pick; i++) {
      int back = (int)(t_rng_next(r) % (uint64_t)(t_rng_next(r) % 3 ? (n < 4 ? n : 4) : n));
      in[i] = vals[n - 1 - back];
    }
    uint64_t kind = t_rng_next(r) % 10;
    if (kind < 2) {
      /* a view (reshape/flatten/identity keep the element count) */
      ir_op ops[3] = {IR_OP_RESHAPE, IR_OP_FLATTEN, IR_OP_IDENTITY};
      vals[n++] = op1(g, ops[t_rng_next(r) % 3], in[0], ir_type_numel(&in[0]->type));
    } else if (kind < 3) {
      ir_value *out[2] = {val(g, rand_elems(r)), val(g, rand_elems(r))};
      node(g, IR_OP_SPLIT, in, n_pick, out, 2);
      vals[n++] = out[0];
      vals[n++] = out[1];
    } else {
      ir_value *y = val(g, rand_elems(r));
      node(g, IR_OP_ADD, in, n_pick, &y, 1);
      vals[n++] = y;
    }
  }
  /* the last value and a few random ones are graph outputs (not inputs or
   * constants) */
  for (int i = n - 1; i >= 0; i--) {
    bool last = i == n - 1;
    if (!vals[i]->producer || (!last && t_rng_next(r) % 8)) continue;
    bool dup = false;
    for (int k = 0; k < g->n_outputs; k++) dup = dup || g->outputs[k] == vals[i];
    if (!dup) T_OK(ir_graph_add_output(g, vals[i]));
  }
  free(vals);
  return g;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

Test(plan_memory, random_dags, .timeout = 60) {
  t_rng r = t_rng_make(20261124);
  const uint64_t aligns[4] = {1, 4, 64, 256};
  int n_best_strictly_better = 0, n_greedy_ne_mcfp = 0;
  for (int iter = 0; iter < 3000; iter++) {
    ir_graph *g = random_dag(&r);
    uint64_t align = aligns[t_rng_next(&r) % 4];
    drop_ctx c = {t_rng_next(&r)};
    bool drop = t_rng_next(&r) % 3 == 0;
    totals t = plan_all(g, align, drop ? some_values : NULL, drop ? &c : NULL);
    uint64_t naive = t.bytes[IR_MEMPLAN_NAIVE], greedy = t.bytes[IR_MEMPLAN_GREEDY];
    uint64_t mcfp = t.bytes[IR_MEMPLAN_MCFP], best = t.bytes[IR_MEMPLAN_BEST];
    cr_assert_leq(t.lower, best, "iteration %d", iter);
    cr_assert_leq(best, min_u64(greedy, mcfp), "iteration %d", iter);
    cr_assert_leq(greedy, naive, "iteration %d", iter);
    cr_assert_leq(mcfp, naive, "iteration %d", iter);
    n_best_strictly_better += best < min_u64(greedy, mcfp);
    n_greedy_ne_mcfp += greedy != mcfp;
    ir_graph_destroy(g);
  }
  /* the cases are varied enough to tell the strategies apart */
  cr_expect_gt(n_best_strictly_better, 100, "%d", n_best_strictly_better);
  cr_expect_gt(n_greedy_ne_mcfp, 100, "%d", n_greedy_ne_mcfp);
}

/* mcfp is an optimal assignment to shared objects under the paper's cost
 * (reuse cost max(0, size_y - size_x)), so it never needs more objects'
 * worth than naive and, on a chain of equal sizes, exactly the two objects a
 * chain needs. */
Test(plan_memory, mcfp_chain_of_equal_sizes) {
  ir_graph *g = empty();
  ir_value *v = input(g, 4);
  for (int i = 0; i < 50; i++) v = op1(g, IR_OP_RELU, v, 25);
  T_OK(ir_graph_add_output(g, op1(g, IR_OP_RELU, v, 4)));
  ir_memplan m;
  T_OK(pass_plan_memory(g, &(pass_memplan_opts){.strategy = IR_MEMPLAN_MCFP}, &m));
  T_OK(ir_memplan_check(&m, g, NULL, NULL));
  cr_expect_eq(m.n_objects, 2);
  cr_expect_eq(m.arena_bytes, 200);
  ir_memplan_free(&m);
  ir_graph_destroy(g);
}

/* ---- the paper's Table 3 ------------------------------------------------------
 * MobileNet v1 and v2 at 224x224, batch 1, activations fused into the convs
 * (as TFLite runs them), f16: the paper's naive / greedy / mcfp in MiB are
 * MobileNet 9.6 / 2.3 / 2.7 and MobileNetV2 13.2 / 4.0 / 3.8. Only shapes
 * and edges matter to the planners, so the graphs are bare (no weights). */

static ir_value *nchw(ir_graph *g, int64_t c, int64_t hw) {
  int64_t d[4] = {1, c, hw, hw};
  ir_type t = ir_type_make(IR_F16, 4, d);
  ir_value *v = NULL;
  T_OK(ir_value_create(g, NULL, &t, &v));
  return v;
}

static ir_value *layer(ir_graph *g, ir_op op, ir_value *a, ir_value *b, int64_t c, int64_t hw) {
  ir_value *y = nchw(g, c, hw), *in[2] = {a, b};
  node(g, op, in, b ? 2 : 1, &y, 1);
  return y;
}

#define CH(v) ((v)->type.dims[1])
#define HW(v) ((v)->type.dims[2])

static ir_graph *mobilenet_v1(void) {
  ir_graph *g = empty();
  ir_value *x = nchw(g, 3, 224);
  T_OK(ir_graph_add_input(g, x));
  ir_value *v = layer(g, IR_OP_CONV2D, x, NULL, 32, 112);
  const int cfg[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},  {512, 1},
                          {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  for (int i = 0; i < 13; i++) {
    v = layer(g, IR_OP_CONV2D, v, NULL, CH(v), HW(v) / cfg[i][1]); /* depthwise */
    v = layer(g, IR_OP_CONV2D, v, NULL, cfg[i][0], HW(v));         /* pointwise */
  }
  v = layer(g, IR_OP_GLOBAL_AVG_POOL, v, NULL, CH(v), 1);
  v = layer(g, IR_OP_CONV2D, v, NULL, 1000, 1);
  T_OK(ir_graph_add_output(g, layer(g, IR_OP_SOFTMAX, v, NULL, 1000, 1)));
  return g;
}

static ir_graph *mobilenet_v2(void) {
  ir_graph *g = empty();
  ir_value *x = nchw(g, 3, 224);
  T_OK(ir_graph_add_input(g, x));
  ir_value *v = layer(g, IR_OP_CONV2D, x, NULL, 32, 112);
  /* expansion t, channels c, repeats n, stride s (torchvision's table) */
  const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                         {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (int i = 0; i < 7; i++)
    for (int r = 0; r < cfg[i][2]; r++) {
      int stride = r ? 1 : cfg[i][3];
      ir_value *in = v, *h = v;
      if (cfg[i][0] != 1) h = layer(g, IR_OP_CONV2D, h, NULL, CH(in) * cfg[i][0], HW(in));
      h = layer(g, IR_OP_CONV2D, h, NULL, CH(h), HW(h) / stride);
      h = layer(g, IR_OP_CONV2D, h, NULL, cfg[i][1], HW(h));
      if (stride == 1 && CH(in) == cfg[i][1]) h = layer(g, IR_OP_ADD, in, h, CH(h), HW(h));
      v = h;
    }
  v = layer(g, IR_OP_CONV2D, v, NULL, 1280, 7);
  v = layer(g, IR_OP_GLOBAL_AVG_POOL, v, NULL, 1280, 1);
  T_OK(ir_graph_add_output(g, layer(g, IR_OP_CONV2D, v, NULL, 1000, 1)));
  return g;
}

/* MiB to one decimal, as the paper prints them. */
static int tenths_mib(uint64_t bytes) { return (int)(bytes / 1048576.0 * 10 + 0.5); }

Test(plan_memory, paper_table3) {
  ir_graph *g = mobilenet_v1();
  totals t = plan_all(g, 16, NULL, NULL);
  /* the peak: the first pointwise conv reads 112x112x32 and writes x64 */
  expect(&t, 10089424, 2408448, 2809856, 2408448, 2 * 112 * 112 * (32 + 64));
  cr_expect_eq(tenths_mib(t.bytes[IR_MEMPLAN_NAIVE]), 96);
  cr_expect_eq(tenths_mib(t.bytes[IR_MEMPLAN_GREEDY]), 23);
  cr_expect_eq(tenths_mib(t.bytes[IR_MEMPLAN_MCFP]), 27);
  ir_graph_destroy(g);
  g = mobilenet_v2();
  t = plan_all(g, 16, NULL, NULL);
  expect(&t, 13791552, 4214784, 3938816, 3010560, 3010560);
  cr_expect_eq(tenths_mib(t.bytes[IR_MEMPLAN_NAIVE]), 132);
  cr_expect_eq(tenths_mib(t.bytes[IR_MEMPLAN_GREEDY]), 40);
  cr_expect_eq(tenths_mib(t.bytes[IR_MEMPLAN_MCFP]), 38);
  ir_graph_destroy(g);
}

/* Past 512 tensors mcfp keeps only the reuse edges between tensors near in
 * size (plan_memory_objects.c): still a valid plan, never above naive, and
 * best still no larger. A chain of 700 with skip connections. */
Test(plan_memory, large_graph, .timeout = 60) {
  t_rng r = t_rng_make(77);
  ir_graph *g = empty();
  ir_value *v[702];
  v[0] = input(g, 16);
  for (int i = 1; i <= 700; i++) {
    ir_value *a = v[i - 1], *b = v[i > 4 ? i - 1 - (int)(t_rng_next(&r) % 4) : 0];
    v[i] = op2(g, a, b, rand_elems(&r));
  }
  T_OK(ir_graph_add_output(g, v[700]));
  totals t = plan_all(g, 64, NULL, NULL);
  cr_assert_leq(t.bytes[IR_MEMPLAN_MCFP], t.bytes[IR_MEMPLAN_NAIVE]);
  cr_assert_leq(t.bytes[IR_MEMPLAN_BEST], t.bytes[IR_MEMPLAN_MCFP]);
  cr_assert_leq(t.bytes[IR_MEMPLAN_BEST], t.bytes[IR_MEMPLAN_GREEDY]);
  cr_assert_leq(t.lower, t.bytes[IR_MEMPLAN_BEST]);
  ir_graph_destroy(g);
}

/* ---- the test models -------------------------------------------------------------- */

static void check_model(const ir_graph *g, const char *name) {
  totals t = plan_all(g, 64, NULL, NULL);
  uint64_t best = t.bytes[IR_MEMPLAN_BEST];
  cr_log_info("%s: naive %llu greedy %llu mcfp %llu best %llu lower %llu", name,
              (unsigned long long)t.bytes[IR_MEMPLAN_NAIVE],
              (unsigned long long)t.bytes[IR_MEMPLAN_GREEDY],
              (unsigned long long)t.bytes[IR_MEMPLAN_MCFP], (unsigned long long)best,
              (unsigned long long)t.lower);
  cr_expect_leq(best, t.bytes[IR_MEMPLAN_GREEDY], "%s", name);
  cr_expect_leq(best, t.bytes[IR_MEMPLAN_MCFP], "%s", name);
  cr_expect_leq(t.lower, best, "%s", name);
  cr_expect_lt(best, t.bytes[IR_MEMPLAN_NAIVE], "%s: planning saves memory", name);
}

static ir_graph *import_real(const char *name, int64_t h, int64_t w) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/models/real/%s.onnx", VKML_SOURCE_ROOT, name);
  const char *names[1] = {"input"};
  int ranks[1] = {4};
  int64_t dims[4] = {1, 3, h, w};
  const int64_t *pdims[1] = {dims};
  onnx_import_opts o = {.n_shapes = 1, .shape_names = names, .shape_ranks = ranks,
                        .shape_dims = pdims, .eval = rt_cpu_eval_node};
  ir_graph *g = NULL;
  T_OK(onnx_import_file(path, &o, &g));
  return g;
}

Test(plan_memory, real_models) {
  ir_graph *g = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/models/tinycnn/model.vkir", VKML_SOURCE_ROOT);
  T_OK(ir_parse_file(path, &g));
  check_model(g, "tinycnn");
  ir_graph_destroy(g);
  g = import_real("smallnet_op13", 40, 48);
  check_model(g, "smallnet_op13");
  ir_graph_destroy(g);
  g = import_real("squeezenet1_1_op11", 224, 224);
  check_model(g, "squeezenet1_1_op11");
  ir_graph_destroy(g);
}
