/* Control flow: If, Loop and Scan (below). If: both branches are converted into the one graph (their
 * initializers and nodes; names stay unique, as ONNX requires across
 * subgraphs). A condition known at import time binds the outputs to the
 * taken branch, whose nodes alone are converted. A run-time condition runs
 * both branches — they have no side effects — and selects each output with
 * `where` on the scalar condition, on the device; branches whose outputs
 * differ in size along one axis (an empty result against a bounded keep
 * list) give a bounded output through `select`; other differences are
 * UNSUPPORTED naming both. A
 * data-dependent error in the branch not taken (an index out of range)
 * still fails the run. */
#include <string.h>

#include "onnx_internal.h"

static const Onnx__GraphProto *branch(onnx_node *n, const char *name) {
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  return a ? a->g : NULL;
}

static vkml_status convert_branch(onnx_ctx *c, const Onnx__GraphProto *gp, const char *which,
                                  int n_out) {
  if ((int)gp->n_output != n_out)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s has %zu outputs, the If %d", which,
                      gp->n_output, n_out);
  return vkml_status_annotate(onnx_convert_subgraph(c, gp), "in %s", which);
}

vkml_status onnx_convert_if(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  const Onnx__GraphProto *gt = branch(n, "then_branch"), *ge = branch(n, "else_branch");
  if (!gt || !ge)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "then_branch and else_branch are required");
  const onnx_sym *cond = n->in[0];
  if (cond->type.dtype != IR_BOOL || ir_type_numel(&cond->type) != 1 || cond->type.bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the condition must be one bool");
  int n_out = onnx_n_outputs(n);
  if (cond->is_const) {
    bool take = ((const uint8_t *)cond->data)[0] != 0;
    const Onnx__GraphProto *gp = take ? gt : ge;
    VKML_RETURN_IF_ERROR(convert_branch(c, gp, take ? "then_branch" : "else_branch", n_out));
    for (int i = 0; i < n_out; i++)
      if (onnx_output_used(n, i))
        VKML_RETURN_IF_ERROR(onnx_bind_sym(c, n, i, onnx_sym_get(c, gp->output[i]->name)));
    return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(convert_branch(c, gt, "then_branch", n_out));
  VKML_RETURN_IF_ERROR(convert_branch(c, ge, "else_branch", n_out));
  ir_value *cv;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &cv));
  if (cv->type.rank) VKML_RETURN_IF_ERROR(onnx_reshape(c, n, cv, 0, NULL, false, &cv));
  for (int i = 0; i < n_out; i++) {
    if (!onnx_output_used(n, i)) continue;
    onnx_sym *st = onnx_sym_get(c, gt->output[i]->name), *se = onnx_sym_get(c, ge->output[i]->name);
    ir_value *ins[3] = {cv, NULL, NULL}, *y;
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, st, &ins[1]));
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, se, &ins[2]));
    ir_node *nd;
    bool same = ir_type_equal(&st->type, &se->type) && !st->type.bounded;
    if (!same) {
      /* sizes that differ along one axis (an empty then-branch): select,
       * its output bounded there */
      VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SELECT, ins, 3, 1, false, &nd));
      vkml_status fs = onnx_finish(c, nd);
      if (!fs) {
        VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, i, nd->outputs[0]));
        continue;
      }
      vkml_status_free(fs);
      char a[128], b[128];
      ir_type_format(&st->type, a, sizeof a);
      ir_type_format(&se->type, b, sizeof b);
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "a run-time condition selecting output %d of %s (then_branch) or %s "
                        "(else_branch): they may differ in size along one axis only",
                        i, a, b);
    }
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_WHERE, ins, 3, 1, false, &nd));
    VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
    y = nd->outputs[0];
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, i, y));
  }
  return VKML_OK;
}

/* ---- Loop ------------------------------------------------------------------ */

/* Iterations a Loop may unroll into (each one a copy of the body). */
enum { LOOP_MAX_ITERATIONS = 1024 };

/* The body's names undefined again before its next iteration. */
static vkml_status forget_body(onnx_ctx *c, const Onnx__GraphProto *gp) {
  for (size_t i = 0; i < gp->n_input; i++)
    VKML_RETURN_IF_ERROR(onnx_sym_forget(c, onnx_str(gp->input[i]->name)));
  for (size_t i = 0; i < gp->n_initializer; i++)
    VKML_RETURN_IF_ERROR(onnx_sym_forget(c, onnx_str(gp->initializer[i]->name)));
  for (size_t i = 0; i < gp->n_node; i++)
    for (size_t k = 0; k < gp->node[i]->n_output; k++)
      VKML_RETURN_IF_ERROR(onnx_sym_forget(c, onnx_str(gp->node[i]->output[k])));
  return VKML_OK;
}

/* A one-element constant of type t (i64 or bool scalar) for a body input. */
static vkml_status bind_scalar(onnx_ctx *c, const char *name, ir_dtype dt, int64_t v) {
  if (!name[0]) return VKML_OK;
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_sym_add(c, name, &s));
  s->type = ir_type_make(dt, 0, NULL);
  void *d = onnx_alloc(c, 8);
  if (!d) return ir_oom(NULL);
  if (dt == IR_BOOL) *(uint8_t *)d = v != 0;
  else memcpy(d, &v, sizeof v);
  s->is_const = true;
  s->data = d;
  return VKML_OK;
}

static vkml_status const_scalar(const onnx_sym *s, const char *what, double *out) {
  if (!s->is_const || ir_type_numel(&s->type) != 1)
    return onnx_error(VKML_CODE_UNSUPPORTED,
                      "a Loop whose %s is computed at run time (only loops with a trip count "
                      "and condition known at import time are unrolled)",
                      what);
  *out = ir_dtype_load_f64(s->type.dtype, s->data, 0);
  return VKML_OK;
}

/* vals[0..count) stacked along a new axis (in reverse order when reverse),
 * into *out. */
static vkml_status stack_values(onnx_ctx *c, onnx_node *n, onnx_sym **vals, int count,
                                int64_t axis, bool reverse, ir_value **out) {
  ir_value **parts = onnx_alloc(c, sizeof *parts * (size_t)count);
  if (!parts) return ir_oom(NULL);
  for (int i = 0; i < count; i++) {
    ir_value *v;
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, vals[reverse ? count - 1 - i : i], &v));
    ir_node *u;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_UNSQUEEZE, &v, 1, 1, false, &u));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, u, IR_A_AXES, &axis, 1));
    VKML_RETURN_IF_ERROR(onnx_finish(c, u));
    parts[i] = u->outputs[0];
  }
  if (count == 1) {
    *out = parts[0];
    return VKML_OK;
  }
  ir_node *cat;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONCAT, parts, count, 1, false, &cat));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, cat, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(onnx_finish(c, cat));
  *out = cat->outputs[0];
  return VKML_OK;
}

/* Scan output k: the iterations' values stacked along a new axis 0. */
static vkml_status stack(onnx_ctx *c, onnx_node *n, int out, onnx_sym **vals, int count) {
  ir_value *v;
  VKML_RETURN_IF_ERROR(stack_values(c, n, vals, count, 0, false, &v));
  return onnx_bind_named(c, n, out, v);
}

/* Loop with a trip count and condition known at import time, unrolled: the
 * body converted once per iteration (its names undefined in between), the
 * iteration number and condition bound as constants, so shape arithmetic
 * inside folds; the body's condition must fold too. A run-time Loop is
 * UNSUPPORTED, saying which part is computed at run time. */
vkml_status onnx_convert_loop(onnx_ctx *c, onnx_node *n) {
  const Onnx__GraphProto *body = branch(n, "body");
  if (!body) return onnx_error(VKML_CODE_INVALID_GRAPH, "the body is required");
  int n_carried = n->n_in - 2;
  if (n_carried < 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "needs inputs M and cond (either may be empty)");
  int n_scan = (int)body->n_output - 1 - n_carried;
  if ((int)body->n_input != n_carried + 2 || n_scan < 0 || onnx_n_outputs(n) != n_carried + n_scan)
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "the body has %zu inputs and %zu outputs for %d loop-carried values and "
                      "%d outputs",
                      body->n_input, body->n_output, n_carried, onnx_n_outputs(n));
  double trip = (double)LOOP_MAX_ITERATIONS + 1, cond = 1;
  if (onnx_has_input(n, 0)) VKML_RETURN_IF_ERROR(const_scalar(n->in[0], "trip count", &trip));
  if (onnx_has_input(n, 1)) VKML_RETURN_IF_ERROR(const_scalar(n->in[1], "condition", &cond));
  if (!onnx_has_input(n, 0) && !onnx_has_input(n, 1))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "a Loop with neither trip count nor condition");
  const onnx_sym **cur = onnx_alloc(c, sizeof *cur * (size_t)(n_carried + 1));
  onnx_sym **scans = onnx_alloc(c, sizeof *scans * (size_t)(n_scan + 1) * LOOP_MAX_ITERATIONS);
  if (!cur || !scans) return ir_oom(NULL);
  for (int j = 0; j < n_carried; j++) {
    if (!onnx_has_input(n, 2 + j))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "loop-carried input %d is missing", j);
    cur[j] = n->in[2 + j];
  }
  int it = 0;
  for (; it < trip && cond != 0; it++) {
    if (it == LOOP_MAX_ITERATIONS)
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "a Loop of more than %d iterations (loops are unrolled at import)",
                        LOOP_MAX_ITERATIONS);
    if (it) VKML_RETURN_IF_ERROR(forget_body(c, body));
    VKML_RETURN_IF_ERROR(bind_scalar(c, onnx_str(body->input[0]->name), IR_I64, it));
    VKML_RETURN_IF_ERROR(bind_scalar(c, onnx_str(body->input[1]->name), IR_BOOL, 1));
    for (int j = 0; j < n_carried; j++) {
      const char *name = onnx_str(body->input[2 + j]->name);
      if (name[0]) VKML_RETURN_IF_ERROR(onnx_sym_alias(c, name, cur[j]));
    }
    VKML_RETURN_IF_ERROR(
        vkml_status_annotate(onnx_convert_subgraph(c, body), "in the body, iteration %d", it));
    onnx_sym *co = onnx_sym_get(c, onnx_str(body->output[0]->name));
    VKML_RETURN_IF_ERROR(const_scalar(co, "body's condition", &cond));
    for (int j = 0; j < n_carried; j++) cur[j] = onnx_sym_get(c, body->output[1 + j]->name);
    for (int k = 0; k < n_scan; k++)
      scans[k * LOOP_MAX_ITERATIONS + it] =
          onnx_sym_get(c, body->output[1 + n_carried + k]->name);
  }
  for (int j = 0; j < n_carried; j++) VKML_RETURN_IF_ERROR(onnx_bind_sym(c, n, j, cur[j]));
  for (int k = 0; k < n_scan; k++) {
    if (!onnx_output_used(n, n_carried + k)) continue;
    if (!it)
      return onnx_error(VKML_CODE_UNSUPPORTED, "a Loop that runs no iteration has scan outputs");
    VKML_RETURN_IF_ERROR(stack(c, n, n_carried + k, scans + k * LOOP_MAX_ITERATIONS, it));
  }
  return VKML_OK;
}

/* ---- Scan ------------------------------------------------------------------ */

/* A symbol for the body input `name` standing for v (none for ""). */
static vkml_status bind_value(onnx_ctx *c, const char *name, ir_value *v) {
  if (!name[0]) return VKML_OK;
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_sym_add(c, name, &s));
  s->type = v->type;
  s->v = v;
  return VKML_OK;
}

/* An unnamed symbol for v (results between the steps of a Scan). */
static onnx_sym *value_sym(onnx_ctx *c, ir_value *v) {
  onnx_sym *s = onnx_alloc(c, sizeof *s);
  if (!s) return NULL;
  s->name = v->name;
  s->type = v->type;
  s->v = v;
  return s;
}

/* v at position p along axis, that axis removed. */
static vkml_status take(onnx_ctx *c, onnx_node *n, ir_value *v, int64_t axis, int64_t p,
                        ir_value **out) {
  ir_node *nd;
  int64_t end = p + 1, step = 1;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SLICE, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STARTS, &p, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_ENDS, &end, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STEPS, &step, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  ir_node *sq;
  ir_value *sl = nd->outputs[0];
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SQUEEZE, &sl, 1, 1, false, &sq));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sq, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, sq));
  *out = sq->outputs[0];
  return VKML_OK;
}

/* One scan, unrolled: n_state states (cur, updated in place), m scan inputs
 * xs scanned along axes[j] (reverse where dirs[j]), len steps; the body's
 * scan outputs of step t into outs[k * len + t]. *steps counts the body's
 * conversions (the unrolling budget, shared by a batch's scans). */
typedef struct scan_run {
  const Onnx__GraphProto *body;
  int n_state, m, k;
  const int64_t *axes, *dirs;
  int64_t len;
  int steps;
} scan_run;

static vkml_status run_scan(onnx_ctx *c, onnx_node *n, scan_run *r, const onnx_sym **cur,
                            ir_value **xs, onnx_sym **outs) {
  const Onnx__GraphProto *b = r->body;
  for (int64_t t = 0; t < r->len; t++) {
    if (r->steps == LOOP_MAX_ITERATIONS)
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "a Scan of more than %d steps (scans are unrolled at import)",
                        LOOP_MAX_ITERATIONS);
    if (r->steps++) VKML_RETURN_IF_ERROR(forget_body(c, b));
    for (int i = 0; i < r->n_state; i++) {
      const char *name = onnx_str(b->input[i]->name);
      if (name[0]) VKML_RETURN_IF_ERROR(onnx_sym_alias(c, name, cur[i]));
    }
    for (int j = 0; j < r->m; j++) {
      ir_value *x;
      int64_t p = r->dirs[j] ? r->len - 1 - t : t;
      VKML_RETURN_IF_ERROR(take(c, n, xs[j], r->axes[j], p, &x));
      VKML_RETURN_IF_ERROR(bind_value(c, onnx_str(b->input[r->n_state + j]->name), x));
    }
    VKML_RETURN_IF_ERROR(vkml_status_annotate(onnx_convert_subgraph(c, b),
                                              "in the body, step %lld", (long long)t));
    for (int i = 0; i < r->n_state; i++) cur[i] = onnx_sym_get(c, b->output[i]->name);
    for (int k = 0; k < r->k; k++)
      outs[k * r->len + t] = onnx_sym_get(c, b->output[r->n_state + k]->name);
  }
  return VKML_OK;
}

/* An axis attribute's list (count values, default 0), each in [-rank, rank). */
static vkml_status axis_list(onnx_node *n, const char *name, int count, int64_t *out) {
  const int64_t *v;
  int got = onnx_attr_ints(n, name, &v);
  if (got >= 0 && got != count)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s has %d values for %d tensors", name, got,
                      count);
  for (int i = 0; i < count; i++) out[i] = got >= 0 ? v[i] : 0;
  return VKML_OK;
}

/* Scan (opset 8, 9+), unrolled at import like a Loop: the scan axes' lengths
 * are known then. Each step slices the scan inputs, converts the body with
 * the states of the step before, and the scan outputs stack the steps (in
 * reverse where a direction says so). Opset 8's leading batch axis is
 * scanned batch by batch; its sequence_lens must be the scan length (a
 * constant), anything else is UNSUPPORTED. */
vkml_status onnx_convert_scan(onnx_ctx *c, onnx_node *n) {
  const Onnx__GraphProto *body = branch(n, "body");
  if (!body) return onnx_error(VKML_CODE_INVALID_GRAPH, "the body is required");
  int64_t m64 = onnx_attr_i(n, "num_scan_inputs", 0);
  VKML_RETURN_IF_ERROR(n->err);
  bool v8 = c->opset < 9;
  int first = v8 ? 1 : 0; /* opset 8: sequence_lens first */
  int m = (int)m64, n_state = n->n_in - first - m;
  int k = onnx_n_outputs(n) - n_state;
  if (m64 < 1 || m64 > 64 || n_state < 0 || k < 0 || (int)body->n_input != n_state + m ||
      (int)body->n_output != n_state + k)
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "num_scan_inputs %lld, %d inputs and %d outputs against a body of %zu "
                      "inputs and %zu outputs",
                      (long long)m64, n->n_in, onnx_n_outputs(n), body->n_input,
                      body->n_output);
  int64_t *axes = onnx_alloc(c, sizeof *axes * (size_t)(m + 1));
  int64_t *dirs = onnx_alloc(c, sizeof *dirs * (size_t)(m + 1));
  int64_t *oaxes = onnx_alloc(c, sizeof *oaxes * (size_t)(k + 1));
  int64_t *odirs = onnx_alloc(c, sizeof *odirs * (size_t)(k + 1));
  ir_value **xs = onnx_alloc(c, sizeof *xs * (size_t)(m + 1));
  const onnx_sym **cur = onnx_alloc(c, sizeof *cur * (size_t)(n_state + 1));
  if (!axes || !dirs || !oaxes || !odirs || !xs || !cur) return ir_oom(NULL);
  VKML_RETURN_IF_ERROR(axis_list(n, v8 ? "directions" : "scan_input_directions", m, dirs));
  if (!v8) {
    VKML_RETURN_IF_ERROR(axis_list(n, "scan_input_axes", m, axes));
    VKML_RETURN_IF_ERROR(axis_list(n, "scan_output_axes", k, oaxes));
    VKML_RETURN_IF_ERROR(axis_list(n, "scan_output_directions", k, odirs));
  }
  for (int j = 0; j < m; j++) {
    if (dirs[j] != 0 && dirs[j] != 1)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "scan input %d: direction %lld (0 or 1)", j,
                        (long long)dirs[j]);
    VKML_RETURN_IF_ERROR(onnx_input(c, n, first + n_state + j, &xs[j]));
  }
  for (int i = 0; i < n_state; i++) {
    if (!onnx_has_input(n, first + i))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "state input %d is missing", i);
    cur[i] = n->in[first + i];
  }
  /* the scan length: opset 8 scans axis 1 under the batch axis */
  int64_t len = -1, batch = 1;
  for (int j = 0; j < m; j++) {
    const ir_type *t = &xs[j]->type;
    if (t->bounded)
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "scan input %d is sized at run time (scans are unrolled at import)", j);
    int r = t->rank - (v8 ? 1 : 0);
    int64_t a = v8 ? 0 : axes[j];
    if (r < 1 || a < -r || a >= r)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "scan input %d: axis %lld of a rank-%d tensor",
                        j, (long long)a, t->rank);
    axes[j] = a < 0 ? a + r : a;
    int64_t l = t->dims[axes[j] + (v8 ? 1 : 0)];
    if (len >= 0 && l != len)
      return onnx_error(VKML_CODE_INVALID_GRAPH,
                        "scan inputs of %lld and %lld steps", (long long)len, (long long)l);
    len = l;
    if (v8) {
      if (j && t->dims[0] != batch)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "scan inputs of batch %lld and %lld",
                          (long long)batch, (long long)t->dims[0]);
      batch = t->dims[0];
    }
  }
  if (len < 1 && k > 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a Scan of no step has scan outputs");
  if (v8 && onnx_has_input(n, 0)) {
    const onnx_sym *sl = n->in[0];
    bool ok = sl->is_const && ir_type_numel(&sl->type) == batch;
    for (int64_t b = 0; ok && b < batch; b++)
      ok = ir_dtype_load_f64(sl->type.dtype, sl->data, b) == (double)len;
    if (!ok)
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "sequence_lens other than the scan length (%lld) for every batch",
                        (long long)len);
  }
  scan_run r = {.body = body, .n_state = n_state, .m = m, .k = k, .axes = axes, .dirs = dirs,
                .len = len};
  if (!v8) {
    onnx_sym **outs = onnx_alloc(c, sizeof *outs * (size_t)(k * len + 1));
    if (!outs) return ir_oom(NULL);
    VKML_RETURN_IF_ERROR(run_scan(c, n, &r, cur, xs, outs));
    for (int i = 0; i < n_state; i++) VKML_RETURN_IF_ERROR(onnx_bind_sym(c, n, i, cur[i]));
    for (int q = 0; q < k; q++) {
      if (!onnx_output_used(n, n_state + q)) continue;
      int rank = outs[q * len]->type.rank + 1;
      int64_t a = oaxes[q];
      if (a < -rank || a >= rank || (odirs[q] != 0 && odirs[q] != 1))
        return onnx_error(VKML_CODE_INVALID_GRAPH, "scan output %d: axis %lld, direction %lld",
                          q, (long long)a, (long long)odirs[q]);
      ir_value *v;
      VKML_RETURN_IF_ERROR(stack_values(c, n, outs + q * len, (int)len, a < 0 ? a + rank : a,
                                        odirs[q] == 1, &v));
      VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, n_state + q, v));
    }
    return VKML_OK;
  }
  /* opset 8: batch by batch, then the batches stacked along axis 0 */
  if (batch < 1) return onnx_error(VKML_CODE_UNSUPPORTED, "a Scan over an empty batch");
  onnx_sym **fin = onnx_alloc(c, sizeof *fin * (size_t)(n_state * batch + 1));
  onnx_sym **per = onnx_alloc(c, sizeof *per * (size_t)(k * batch + 1));
  onnx_sym **outs = onnx_alloc(c, sizeof *outs * (size_t)(k * len + 1));
  ir_value **xb = onnx_alloc(c, sizeof *xb * (size_t)(m + 1));
  const onnx_sym **cb = onnx_alloc(c, sizeof *cb * (size_t)(n_state + 1));
  if (!fin || !per || !outs || !xb || !cb) return ir_oom(NULL);
  for (int64_t b = 0; b < batch; b++) {
    for (int i = 0; i < n_state; i++) {
      ir_value *sv, *s0;
      VKML_RETURN_IF_ERROR(onnx_sym_value(c, (onnx_sym *)cur[i], &sv));
      if (sv->type.rank < 1 || sv->type.dims[0] != batch)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "state %d is not of batch %lld", i,
                          (long long)batch);
      VKML_RETURN_IF_ERROR(take(c, n, sv, 0, b, &s0));
      if (!(cb[i] = value_sym(c, s0))) return ir_oom(NULL);
    }
    for (int j = 0; j < m; j++) VKML_RETURN_IF_ERROR(take(c, n, xs[j], 0, b, &xb[j]));
    VKML_RETURN_IF_ERROR(run_scan(c, n, &r, cb, xb, outs));
    for (int i = 0; i < n_state; i++) fin[i * batch + b] = (onnx_sym *)cb[i];
    for (int q = 0; q < k; q++) {
      ir_value *v;
      VKML_RETURN_IF_ERROR(stack_values(c, n, outs + q * len, (int)len, 0, false, &v));
      if (!(per[q * batch + b] = value_sym(c, v))) return ir_oom(NULL);
    }
  }
  for (int i = 0; i < n_state; i++) {
    ir_value *v;
    VKML_RETURN_IF_ERROR(stack_values(c, n, fin + i * batch, (int)batch, 0, false, &v));
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, i, v));
  }
  for (int q = 0; q < k; q++) {
    if (!onnx_output_used(n, n_state + q)) continue;
    ir_value *v;
    VKML_RETURN_IF_ERROR(stack_values(c, n, per + q * batch, (int)batch, 0, false, &v));
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, n_state + q, v));
  }
  return VKML_OK;
}
