/* Control flow: If and Loop (below). If: both branches are converted into the one graph (their
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

/* Scan output k: the iterations' values stacked along a new axis 0. */
static vkml_status stack(onnx_ctx *c, onnx_node *n, int out, onnx_sym **vals, int count) {
  ir_value **parts = onnx_alloc(c, sizeof *parts * (size_t)count);
  if (!parts) return ir_oom(NULL);
  for (int i = 0; i < count; i++) {
    ir_value *v;
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, vals[i], &v));
    ir_node *u;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_UNSQUEEZE, &v, 1, 1, false, &u));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, u, IR_A_AXES, (const int64_t[]){0}, 1));
    VKML_RETURN_IF_ERROR(onnx_finish(c, u));
    parts[i] = u->outputs[0];
  }
  ir_node *cat;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONCAT, parts, count, 1, false, &cat));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, cat, IR_A_AXIS, 0));
  VKML_RETURN_IF_ERROR(onnx_finish(c, cat));
  return onnx_bind_named(c, n, out, cat->outputs[0]);
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
