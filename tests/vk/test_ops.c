/* The op test table (op_cases.h) on the device: every row a test. For each
 * dtype of the row, the graph's text form round-trips, and the graph runs
 * on the CPU reference once and on the GPU
 * once per template that takes its first node and per schedule of it (the
 * default, then points sampled from the template's space), every step on
 * the GPU under the validation layer; outputs agree within the row's
 * tolerance (fp32 1e-4 relative by default, fp16 1e-2), integers and
 * booleans exactly. Inputs are random, non-zero, seeded by the row. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_case.h"
#include "op_cases.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"
#include "vk_test.h"

/* points per template: the default and this many - 1 sampled ones */
#define SCHEDULES 2
#define MAX_TEMPLATES 8
#define MAX_IO 8

typedef struct forced {
  ir_op op;
  const cg_template *tm;
  const cg_schedule *s;
} forced;

/* The chooser of the plan: the forced template and schedule for the nodes
 * of the op under test, the defaults elsewhere. */
static vkml_status choose(void *user, const ir_node *n, const ir_target *t, cg_kernel *out) {
  const forced *f = user;
  if (f->tm && n->op == f->op) return cg_kernel_for_node(n, f->tm, f->s, t, out);
  return cg_kernel_for_node(n, NULL, NULL, t, out);
}

static uint64_t seed_of(const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (; *name; name++) h = (h ^ (unsigned char)*name) * 1099511628211ull;
  return h;
}

static void random_inputs(const op_case *c, const ir_graph *g, rt_tensor *in, int *n_in) {
  t_rng r = t_rng_make(seed_of(c->name));
  double lo = c->lo || c->hi ? c->lo : -2, hi = c->lo || c->hi ? c->hi : 2;
  double ilo = c->ilo || c->ihi ? c->ilo : 0, ihi = c->ilo || c->ihi ? c->ihi : 3;
  *n_in = g->n_inputs;
  cr_assert_leq(g->n_inputs, MAX_IO);
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *ty = &g->inputs[i]->type;
    bool fl = ir_dtype_is_float(ty->dtype);
    if (fl || ty->dtype == IR_BOOL) {
      in[i] = t_tensor_random(&r, ty->dtype, ty->rank, ty->dims, lo, hi);
    } else {
      /* integers uniform in [ilo, ihi), zero included */
      in[i] = t_tensor_zeros(ty->dtype, ty->rank, ty->dims);
      for (int64_t e = 0; e < rt_tensor_numel(&in[i]); e++)
        rt_store_f(&in[i], e, floor(t_rng_uniform(&r, ilo, ihi)));
    }
  }
}

static void compare(const op_case *c, ir_dtype dt, const char *what, const rt_tensor *got,
                    const rt_tensor *want, int n_out) {
  bool h = dt == IR_F16;
  double rtol = h ? (c->rtol16 ? c->rtol16 : 1e-2) : (c->rtol ? c->rtol : 1e-4);
  double atol = h ? (c->atol16 ? c->atol16 : 1e-2) : (c->atol ? c->atol : 1e-5);
  for (int i = 0; i < n_out; i++) {
    bool exact = !ir_dtype_is_float(want[i].dtype);
    cr_log_info("%s %s output %d", c->name, what, i);
    t_assert_close(&got[i], &want[i], exact ? 0 : rtol, exact ? 0 : atol);
  }
}

/* One GPU run of text with template tm and schedule s forced on the op's
 * nodes (tm NULL: the defaults everywhere). */
static void gpu_run(const vt_env *e, const char *text, ir_op op, const cg_template *tm,
                    const cg_schedule *s, const rt_tensor *in, int n_in, rt_tensor *got,
                    int n_out) {
  ir_graph *g = vt_parse(text);
  forced f = {op, tm, s};
  drv_opts o = {.compiler = e->cc, .choose = choose, .choose_user = &f};
  ir_plan *p;
  T_OK(vt_plan_build(g, e->t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  ir_graph_destroy(g);
  for (int i = 0; i < p->n_steps; i++)
    cr_assert_eq(p->steps[i].device, IR_DEVICE_GPU, "step %d (%s) is not on the GPU: %s", i,
                 ir_plan_str(p, p->steps[i].key), ir_plan_str(p, p->steps[i].reason));
  vt_exec_once(e, p, in, n_in, got, n_out);
  ir_plan_destroy(p);
}

/* The text form round-trips: print(parse(print(g))) == print(g). */
static void check_text(const ir_graph *g) {
  char *a, *b;
  size_t la, lb;
  T_OK(ir_print(g, &a, &la));
  ir_graph *g2 = vt_parse(a);
  T_OK(ir_print(g2, &b, &lb));
  cr_assert_str_eq(a, b, "the text form does not round-trip");
  ir_graph_destroy(g2);
  free(a);
  free(b);
}

static void run_dtype(const vt_env *e, const op_case *c, ir_dtype dt) {
  char *text = oc_text(c, dt);
  ir_graph *ref = vt_parse(text);
  check_text(ref);
  rt_tensor in[MAX_IO], want[MAX_IO], got[MAX_IO];
  int n_in, n_out = ref->n_outputs;
  cr_assert_leq(n_out, MAX_IO);
  random_inputs(c, ref, in, &n_in);
  T_OK(rt_cpu_run_graph(ref, in, n_in, want, n_out));
  ir_node *n = oc_first_node(ref);
  const cg_template *tms[MAX_TEMPLATES];
  int nt = c->gpu_only_default ? 0 : oc_templates(n, e->t, tms, MAX_TEMPLATES);
  if (nt == 0) {
    gpu_run(e, text, n->op, NULL, NULL, in, n_in, got, n_out);
    compare(c, dt, "default", got, want, n_out);
    for (int i = 0; i < n_out; i++) rt_tensor_free(&got[i]);
  }
  for (int ti = 0; ti < nt; ti++) {
    cg_schedule ss[SCHEDULES];
    int ns = oc_schedules(n, tms[ti], e->t, ss, SCHEDULES);
    for (int si = 0; si < ns; si++) {
      char what[256];
      cg_schedule_format(tms[ti], &ss[si], what + snprintf(what, 64, "%s ", tms[ti]->name),
                         (int)sizeof what - 64);
      gpu_run(e, text, n->op, tms[ti], &ss[si], in, n_in, got, n_out);
      compare(c, dt, what, got, want, n_out);
      for (int i = 0; i < n_out; i++) rt_tensor_free(&got[i]);
    }
  }
  for (int i = 0; i < n_in; i++) rt_tensor_free(&in[i]);
  for (int i = 0; i < n_out; i++) rt_tensor_free(&want[i]);
  ir_graph_destroy(ref);
  free(text);
}

static void run_case(const op_case *c) {
  vt_env e;
  vt_env_open(&e);
  for (unsigned f = 1; f <= I64; f <<= 1) {
    if (!(c->dtypes & f)) continue;
    ir_dtype dt = oc_dtype(f);
    if (dt == IR_F16 && !e.t->storage_16bit) continue; /* fp16 needs 16-bit storage */
    if (dt == IR_I64 && !e.t->int64_arith) continue;
    run_dtype(&e, c, dt);
  }
  vt_env_close(&e);
}

#define X(id, ...)                                                             \
  Test(ops, id) { run_case(&(const op_case){.name = #id, __VA_ARGS__}); }
OP_CASES(X)
#undef X
