/* A graph's distinct tunable GPU workloads and their spaces
 * (tuner_measure.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "ir/memplan.h"
#include "ir/util.h"
#include "tuner/tuner_measure.h"

/* Whether the tuner can run n alone: plain or nhwc layouts (the bench
 * converts at the edges, tuner_measure.c), static shapes, and float inputs
 * apart from constants (it makes random inputs). */
static bool benchable(const ir_node *n) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v && v->layout == IR_LAYOUT_NC4HW4) return false;
  }
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (v->type.bounded) return false;
    if (!ir_value_is_const(v) && !ir_dtype_is_float(v->type.dtype)) return false;
  }
  for (int i = 0; i < n->n_outputs; i++)
    if (n->outputs[i]->type.bounded) return false;
  return true;
}

static void space_of(const ir_node *n, const ir_target *t, const cg_kernel *dflt,
                            tuner_workload *w) {
  memset(&w->space, 0, sizeof w->space);
  for (int i = 0; cg_templates[i] && w->space.n < TUNER_MAX_TEMPLATES; i++) {
    const cg_template *tm = cg_templates[i];
    cg_kernel k;
    /* a template of another family, or one refused for this node, is not
     * in the space */
    vkml_status s = cg_kernel_for_node(n, tm, NULL, t, &k);
    if (s) {
      vkml_status_free(s);
      continue;
    }
    if (k.tmpl != tm) continue;
    w->space.tmpl[w->space.n] = tm;
    w->space.dflt[w->space.n] = k.schedule;
    if (tm == dflt->tmpl) {
      w->dflt.tmpl = w->space.n;
      w->dflt.sched = dflt->schedule;
    }
    w->space.n++;
  }
}

vkml_status tuner_workloads_find(const ir_graph *g, const ir_target *t, tuner_workload **out,
                                 int *n_out) {
  *out = NULL;
  *n_out = 0;
  tuner_workload *ws = NULL;
  int n = 0, cap = 0;
  vkml_status s = VKML_OK;
  ir_foreach_node(g, nd) {
    if (nd->device == IR_DEVICE_CPU || nd->op == IR_OP_UPLOAD || !benchable(nd)) continue;
    /* a view (flatten, reshape, ...) shares its input's bytes: the plan runs
     * it without a dispatch, so its copy kernel's schedule is never used */
    if (ir_node_is_view(nd)) continue;
    cg_kernel k;
    s = cg_kernel_for_node(nd, NULL, NULL, t, &k);
    if (vkml_status_code(s) == VKML_CODE_UNSUPPORTED) {
      vkml_status_free(s);
      s = VKML_OK;
      continue;
    }
    if (s) break;
    bool seen = false;
    for (int i = 0; i < n && !seen; i++)
      if (!strcmp(ws[i].key, k.key)) {
        ws[i].n_nodes++;
        seen = true;
      }
    if (seen) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      tuner_workload *nw = realloc(ws, sizeof *ws * (size_t)cap);
      if (!nw) {
        s = ir_oom("the tuner's workloads");
        break;
      }
      ws = nw;
    }
    tuner_workload *w = &ws[n];
    memset(w, 0, sizeof *w);
    snprintf(w->key, sizeof w->key, "%s", k.key);
    w->node = nd;
    w->n_nodes = 1;
    w->dflt.tmpl = -1;
    space_of(nd, t, &k, w);
    /* the default's template must be in the space, and the space must
     * offer a choice */
    if (w->dflt.tmpl < 0 || tuner_space_size(&w->space) < 2) continue;
    n++;
  }
  if (s) {
    free(ws);
    return vkml_status_annotate(s, "finding the workloads to tune");
  }
  *out = ws;
  *n_out = n;
  return VKML_OK;
}

bool tuner_workload_valid(const tuner_workload *w, const ir_target *t, const tuner_point *p) {
  const cg_template *tm = w->space.tmpl[p->tmpl];
  vkml_status s = cg_schedule_check(tm, &p->sched, t);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  cg_kernel k;
  s = cg_kernel_for_node(w->node, tm, &p->sched, t, &k);
  bool refused = vkml_status_code(s) == VKML_CODE_UNSUPPORTED;
  vkml_status_free(s);
  return !refused;
}

int64_t tuner_workload_points(const tuner_workload *w, const ir_target *t, tuner_point *out) {
  int64_t n = 0;
  for (int i = 0; i < w->space.n; i++)
    for (int64_t k = 0; k < cg_space_size(w->space.tmpl[i]); k++) {
      tuner_point p = {.tmpl = i};
      cg_space_point(w->space.tmpl[i], k, &p.sched);
      if (!tuner_workload_valid(w, t, &p)) continue;
      if (out) out[n] = p;
      n++;
    }
  return n;
}
