/* Measuring one node's kernel at a point of its space (tuner_measure.h). */
#include "tuner/tuner_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/core/ops.h"
#include "driver/driver.h"
#include "ir/util.h"
#include "runtime/cpu/executor.h"
#include "runtime/tensor.h"
#include "runtime/vk/vk_exec.h"
#include "runtime/vk/vk_memory.h"

struct tuner_bench {
  rt_vk_context *ctx;
  tuner_bench_opts o;
  cg_compiler *own_cc;
  ir_graph *g;         /* the node alone */
  const ir_node *node; /* in g */
  rt_tensor *inputs, *ref;
  int n_in, n_out;
  double tol;
  bool have_ref; /* ref holds the reference outputs */
  bool warmed; /* the first measurement (with first_warmup_ms) is done */
  rt_vk_buffer *flush; /* zeroed before each chained dispatch; NULL: none */
  /* the point being built (read by the chooser) */
  const cg_template *cur_tmpl;
  const cg_schedule *cur_sched;
  /* the reference (tuner_bench_set_reference), replayed with each point */
  struct point_exec *ref_exec;
  double ref_ns; /* its time: the scale of paired measurements */
};

/* One point's plan, built and run once (its device buffers hold data). */
typedef struct point_exec {
  ir_plan *plan;
  rt_vk_exec *x;
  int step;   /* the node's step */
  double *ns; /* per step, for replays */
} point_exec;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The value of g1 standing for v of g (created on first use). An input in
 * nhwc is a row-major graph input and a reorder to nhwc (graph edges are
 * row-major); the bench times n's step alone. */
static vkml_status map_input(ir_graph *g1, const ir_graph *g, const ir_value *v, ir_value **out) {
  bool nhwc = v->layout == IR_LAYOUT_NHWC && !ir_value_is_const(v);
  char name[512];
  snprintf(name, sizeof name, "%s%s", v->name, nhwc ? ".nhwc" : "");
  *out = ir_graph_find_value(g1, name);
  if (*out) return VKML_OK;
  if (ir_value_is_const(v)) {
    const void *data = ir_value_const_data(g, v);
    if (!data)
      return vkml_status_make(VKML_CODE_INVALID_GRAPH, "constant %%%s has no data", v->name);
    VKML_RETURN_IF_ERROR(ir_const_create_inline(g1, v->name, &v->type, data, out));
  } else {
    VKML_RETURN_IF_ERROR(ir_value_create(g1, v->name, &v->type, out));
    VKML_RETURN_IF_ERROR(ir_graph_add_input(g1, *out));
  }
  if (!nhwc) {
    (*out)->layout = v->layout;
    return VKML_OK;
  }
  ir_value *rows = *out;
  ir_node *r;
  VKML_RETURN_IF_ERROR(ir_value_create(g1, name, &v->type, out));
  (*out)->layout = IR_LAYOUT_NHWC;
  VKML_RETURN_IF_ERROR(ir_node_create(g1, IR_OP_REORDER, &rows, 1, out, 1, &r));
  r->device = IR_DEVICE_GPU;
  return VKML_OK;
}

/* A graph holding n alone (*node: its copy): its constants copied, its
 * other inputs as graph inputs, its outputs as graph outputs (an nhwc one
 * through a reorder to rows). */
static vkml_status extract(const ir_graph *g, const ir_node *n, ir_graph **out,
                           const ir_node **node) {
  ir_graph *g1 = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_create(g->name ? g->name : "tuned", &g1));
  ir_value *ins[IR_MAX_NODE_OPERANDS], *outs[IR_MAX_NODE_OPERANDS];
  ir_node *m = NULL;
  vkml_status s = VKML_OK;
  for (int i = 0; !s && i < n->n_inputs; i++) s = map_input(g1, g, n->inputs[i], &ins[i]);
  for (int i = 0; !s && i < n->n_outputs; i++) {
    char name[512];
    bool nhwc = n->outputs[i]->layout == IR_LAYOUT_NHWC;
    snprintf(name, sizeof name, "%s%s", n->outputs[i]->name, nhwc ? ".nhwc" : "");
    s = ir_value_create(g1, name, &n->outputs[i]->type, &outs[i]);
    if (!s) outs[i]->layout = n->outputs[i]->layout;
  }
  if (!s) s = ir_node_create(g1, n->op, ins, n->n_inputs, outs, n->n_outputs, &m);
  if (!s) s = ir_node_copy_attrs(g1, m, n);
  for (int i = 0; !s && i < n->n_outputs; i++) {
    ir_value *o = outs[i];
    if (o->layout == IR_LAYOUT_NHWC) {
      ir_node *r;
      s = ir_value_create(g1, n->outputs[i]->name, &o->type, &o);
      if (!s) s = ir_node_create(g1, IR_OP_REORDER, &outs[i], 1, &o, 1, &r);
      if (!s) r->device = IR_DEVICE_GPU;
    }
    if (!s) s = ir_graph_add_output(g1, o);
  }
  if (s) {
    ir_graph_destroy(g1);
    return s;
  }
  m->device = IR_DEVICE_GPU;
  *out = g1;
  *node = m;
  return VKML_OK;
}

static void free_tensors(rt_tensor *t, int n) {
  for (int i = 0; t && i < n; i++) rt_tensor_free(&t[i]);
  free(t);
}

static void exec_free(point_exec *e) {
  if (!e) return;
  rt_vk_exec_destroy(e->x);
  ir_plan_destroy(e->plan);
  free(e->ns);
  free(e);
}

int tuner_bench_chain(const tuner_bench *b) { return b->o.chain; }

int tuner_bench_flush_mb(const tuner_bench *b) { return b->o.flush_mb > 0 ? b->o.flush_mb : 0; }

void tuner_bench_destroy(tuner_bench *b) {
  if (!b) return;
  free_tensors(b->inputs, b->n_in);
  free_tensors(b->ref, b->n_out);
  exec_free(b->ref_exec);
  rt_vk_buffer_destroy(b->ctx, b->flush);
  ir_graph_destroy(b->g);
  cg_compiler_destroy(b->own_cc);
  free(b);
}

vkml_status tuner_bench_create(rt_vk_context *ctx, const ir_graph *g, const ir_node *n,
                               const tuner_bench_opts *opts, tuner_bench **out) {
  *out = NULL;
  tuner_bench *b = calloc(1, sizeof *b);
  if (!b) return ir_oom("the tuner's bench");
  b->ctx = ctx;
  b->o = opts ? *opts : (tuner_bench_opts){0};
  if (b->o.runs <= 0) b->o.runs = 25;
  /* a CPU device (lavapipe) takes milliseconds per kernel against
   * microseconds of start: a chain of 2 is steady, and 8x cheaper */
  bool cpu = rt_vk_context_target(ctx)->type == IR_TARGET_CPU;
  if (b->o.chain <= 0) b->o.chain = cpu ? 2 : 16;
  if (b->o.flush_mb == 0) b->o.flush_mb = cpu ? -1 : 128;
  if (b->o.warmup <= 0) b->o.warmup = 3;
  if (b->o.warmup_ms <= 0) b->o.warmup_ms = 20;
  if (b->o.first_warmup_ms <= 0) b->o.first_warmup_ms = 500;
  b->tol = b->o.precision == IR_PRECISION_FP16 ? 1e-2 : 1e-3;
  vkml_status s = VKML_OK;
  if (!b->o.compiler) {
    s = cg_compiler_create(NULL, &b->own_cc);
    b->o.compiler = b->own_cc;
  }
  /* one flush buffer for every point's executor */
  if (!s && b->o.flush_mb > 0 && b->o.chain > 1) {
    s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, (uint64_t)b->o.flush_mb << 20, &b->flush);
    if (s) s = vkml_status_annotate(s, "the %d MiB cache-flush buffer", b->o.flush_mb);
  }
  if (!s) s = extract(g, n, &b->g, &b->node);
  if (!s) {
    b->n_in = b->g->n_inputs;
    b->n_out = b->g->n_outputs;
    b->inputs = calloc((size_t)b->n_in + 1, sizeof *b->inputs);
    b->ref = calloc((size_t)b->n_out + 1, sizeof *b->ref);
    if (!b->inputs || !b->ref) s = ir_oom("the tuner's bench");
  }
  /* random non-zero inputs, |v| in [0.1, 1), a fixed seed */
  uint64_t rng = 0x2545f4914f6cdd1dull;
  for (int i = 0; !s && i < b->n_in; i++) {
    s = rt_tensor_alloc(&b->g->inputs[i]->type, &b->inputs[i]);
    int64_t ne = s ? 0 : rt_tensor_numel(&b->inputs[i]);
    for (int64_t j = 0; j < ne; j++) {
      double u = ir_rand_unit(&rng), x = 0.1 + 0.9 * ir_rand_unit(&rng);
      rt_store_f(&b->inputs[i], j, u < 0.5 ? -x : x);
    }
  }
  if (!s && !b->o.gpu_reference) {
    s = rt_cpu_run_graph(b->g, b->inputs, b->n_in, b->ref, b->n_out);
    b->have_ref = !s;
  }
  if (s) {
    tuner_bench_destroy(b);
    char what[256];
    ir_node_describe(n, what, sizeof what);
    return vkml_status_annotate(s, "preparing to tune %s", what);
  }
  *out = b;
  return VKML_OK;
}

static vkml_status choose(void *user, const ir_node *n, const ir_target *t, cg_kernel *out) {
  const tuner_bench *b = user;
  /* the point for the node; the reorders at an nhwc node's edges: their
   * defaults */
  if (n->op == IR_OP_REORDER && n != b->node) return cg_kernel_for_node(n, NULL, NULL, t, out);
  return cg_kernel_for_node(n, b->cur_tmpl, b->cur_sched, t, out);
}

/* max |got - ref| / max |ref| over every output (integer outputs: 0 or
 * INFINITY). */
static double rel_error(const rt_tensor *got, const rt_tensor *ref, int n) {
  double err = 0, ref_max = 0;
  for (int o = 0; o < n; o++) {
    int64_t ne = rt_tensor_numel(&ref[o]);
    if (rt_tensor_numel(&got[o]) != ne || got[o].dtype != ref[o].dtype) return INFINITY;
    bool fl = ir_dtype_is_float(ref[o].dtype);
    for (int64_t i = 0; i < ne; i++) {
      if (!fl) {
        if (rt_load_i(&got[o], i) != rt_load_i(&ref[o], i)) return INFINITY;
        continue;
      }
      double a = rt_load_f(&got[o], i), r = rt_load_f(&ref[o], i);
      double d = fabs(a - r);
      if (isnan(d)) d = isnan(a) && isnan(r) ? 0 : INFINITY;
      if (d > err) err = d;
      if (fabs(r) > ref_max) ref_max = fabs(r);
    }
  }
  return err == 0 ? 0 : err / (ref_max > 0 ? ref_max : 1e-30);
}

/* Builds the bench's current point, runs it once and checks its outputs
 * into m; a status here is the point's failure (recorded), except host
 * out-of-memory. */
static vkml_status exec_build(tuner_bench *b, tuner_measurement *m, point_exec **out) {
  *out = NULL;
  const ir_target *t = rt_vk_context_target(b->ctx);
  drv_opts po = {.compiler = b->o.compiler, .choose = choose, .choose_user = b,
                 .precision = b->o.precision};
  point_exec *e = calloc(1, sizeof *e);
  rt_tensor *got = calloc((size_t)b->n_out + 1, sizeof *got);
  /* each point's plan owns a copy of the one-node graph */
  ir_graph *g = NULL;
  vkml_status s = e && got ? ir_graph_clone(b->g, &g) : ir_oom("a tuner trial");
  if (!s) s = drv_plan(&g, t, &po, NULL, &e->plan);
  ir_graph_destroy(g); /* NULL once the plan has it */
  if (e) e->step = -1;
  for (int i = 0; !s && i < e->plan->n_steps; i++)
    if (e->plan->steps[i].node == b->node->id) e->step = i;
  if (!s && (e->step < 0 || e->plan->steps[e->step].device != IR_DEVICE_GPU))
    s = vkml_status_make(VKML_CODE_INTERNAL, "the node did not go to the GPU");
  if (!s && strcmp(ir_plan_str(e->plan, e->plan->steps[e->step].tmpl), b->cur_tmpl->name))
    s = vkml_status_make(VKML_CODE_INTERNAL, "the plan ran template %s, not %s",
                         ir_plan_str(e->plan, e->plan->steps[e->step].tmpl), b->cur_tmpl->name);
  if (!s && !(e->ns = calloc((size_t)e->plan->n_steps, sizeof *e->ns)))
    s = ir_oom("a tuner trial");
  rt_vk_exec_opts xo = {.timestamps = true};
  if (!s) s = rt_vk_exec_create(b->ctx, e->plan, &xo, &e->x);
  if (!s) s = rt_vk_exec_run(e->x, b->inputs, b->n_in, got, b->n_out, e->ns);
  if (!s && !b->have_ref) {
    /* gpu_reference: the reference point's outputs are the reference */
    for (int i = 0; i < b->n_out; i++) {
      b->ref[i] = got[i];
      memset(&got[i], 0, sizeof got[i]);
    }
    b->have_ref = true;
    m->correct = true;
  } else if (!s) {
    m->rel_err = rel_error(got, b->ref, b->n_out);
    m->correct = m->rel_err <= b->tol;
  }
  for (int i = 0; got && i < b->n_out; i++) rt_tensor_free(&got[i]);
  free(got);
  if (s) {
    exec_free(e);
    return s;
  }
  *out = e;
  return VKML_OK;
}

static vkml_status replay(const tuner_bench *b, point_exec *e, double *ns) {
  VKML_RETURN_IF_ERROR(b->o.chain > 1 ? rt_vk_exec_replay_chained(e->x, b->o.chain, b->flush, e->ns)
                                      : rt_vk_exec_replay(e->x, e->ns));
  *ns = e->ns[e->step];
  return VKML_OK;
}

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double spread_of(const double *sorted, int n) {
  return 0.5 * (sorted[(n - 1) * 9 / 10] - sorted[(n - 1) / 10]);
}

/* Times e: warm-up by count and time, then `runs` timed replays; with a
 * reference (ref), pairs of both in alternating order. */
static vkml_status time_exec(tuner_bench *b, point_exec *e, point_exec *ref, int runs,
                             double warm_ms, tuner_measurement *m) {
  double *t = calloc((size_t)runs, sizeof *t), *r = calloc((size_t)runs, sizeof *r);
  double *q = calloc((size_t)runs, sizeof *q);
  vkml_status s = t && r && q ? VKML_OK : ir_oom("a tuner trial");
  double t0 = now_s(), x;
  for (int i = 1; !s && (i < b->o.warmup || now_s() - t0 < 1e-3 * warm_ms); i++) {
    s = replay(b, e, &x);
    if (!s && ref) s = replay(b, ref, &x);
  }
  for (int i = 0; !s && i < runs; i++) {
    if (ref && i % 2) s = replay(b, ref, &r[i]);
    if (!s) s = replay(b, e, &t[i]);
    if (!s && ref && !(i % 2)) s = replay(b, ref, &r[i]);
    if (!s && ref) q[i] = r[i] > 0 ? t[i] / r[i] : INFINITY;
  }
  if (!s) {
    m->runs = runs;
    m->raw_median_ns = median_of(t, runs);
    if (ref) {
      m->ratio = median_of(q, runs);
      m->median_ns = m->ratio * b->ref_ns;
      m->spread_ns = spread_of(q, runs) * b->ref_ns;
    } else {
      m->median_ns = m->raw_median_ns;
      m->spread_ns = spread_of(t, runs);
    }
  }
  free(t);
  free(r);
  free(q);
  return s;
}

/* Builds, checks and times the point (tmpl, sched) into m, `runs` times
 * (paired with the reference when there is one); *keep (NULL: freed) gets
 * its exec. */
static vkml_status measure(tuner_bench *b, const cg_template *tmpl, const cg_schedule *sched,
                           int runs, double warm_ms, tuner_measurement *m, point_exec **keep) {
  memset(m, 0, sizeof *m);
  b->cur_tmpl = tmpl;
  b->cur_sched = sched;
  point_exec *e = NULL;
  vkml_status s = exec_build(b, m, &e);
  if (!s)
    snprintf(m->kernel_stats, sizeof m->kernel_stats, "%s", rt_vk_exec_step_stats(e->x, e->step));
  if (!s) s = time_exec(b, e, b->ref_exec, runs, warm_ms, m);
  if (!s) b->warmed = true;
  if (!s && keep) *keep = e;
  else exec_free(e);
  if (!s) return VKML_OK;
  if (vkml_status_code(s) == VKML_CODE_OUT_OF_MEMORY) return s;
  m->failed = true;
  m->correct = false;
  snprintf(m->message, sizeof m->message, "%s", vkml_status_message(s));
  vkml_status_free(s);
  return VKML_OK;
}

static vkml_status need_ref(const tuner_bench *b) {
  if (b->have_ref) return VKML_OK;
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                          "the bench checks against the GPU reference: set the reference first");
}

vkml_status tuner_bench_measure(tuner_bench *b, const cg_template *tmpl, const cg_schedule *sched,
                                tuner_measurement *out) {
  VKML_RETURN_IF_ERROR(need_ref(b));
  return measure(b, tmpl, sched, b->o.runs, b->warmed ? b->o.warmup_ms : b->o.first_warmup_ms,
                 out, NULL);
}

vkml_status tuner_bench_set_reference(tuner_bench *b, const cg_template *tmpl,
                                      const cg_schedule *sched, double scale_ns,
                                      tuner_measurement *out) {
  exec_free(b->ref_exec);
  b->ref_exec = NULL;
  point_exec *e = NULL;
  VKML_RETURN_IF_ERROR(measure(b, tmpl, sched, 4 * b->o.runs, b->o.first_warmup_ms, out, &e));
  if (out->failed) return VKML_OK;
  b->ref_exec = e;
  b->ref_ns = scale_ns > 0 ? scale_ns : out->median_ns;
  return VKML_OK;
}

vkml_status tuner_bench_confirm(tuner_bench *b, const cg_template *tmpl, const cg_schedule *sched,
                                int times, tuner_measurement *out) {
  VKML_RETURN_IF_ERROR(need_ref(b));
  return measure(b, tmpl, sched, (times > 1 ? times : 1) * b->o.runs, b->o.warmup_ms, out, NULL);
}
