/* Packed-layout assignment with reorder insertion (see pass_layout.h). */
#include "passes/pass_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct layout_state {
  ir_graph *g;
  const pass_layout_opts *o;
  int n_values0;
  ir_value **other; /* by original value id: the version in the other layout */
  bool changed;
} layout_state;

static vkml_status oom(void) {
  return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
}

/* "<base>.<suffix>", made unique with "_N". */
static vkml_status fresh_value(ir_graph *g, const char *base, const char *suffix,
                               const ir_type *t, ir_value **out) {
  size_t n = strlen(base) + strlen(suffix) + 24;
  char *name = malloc(n);
  if (!name) return oom();
  snprintf(name, n, "%s.%s", base, suffix);
  for (int k = 2; ir_graph_find_value(g, name); k++) snprintf(name, n, "%s.%s_%d", base, suffix, k);
  vkml_status s = ir_value_create(g, name, t, out);
  free(name);
  return s;
}

/* v in layout want: v itself or its other version, made on first use by a
 * reorder placed before `before` (NULL: at the end). */
static vkml_status version(layout_state *st, ir_value *v, ir_layout want, ir_node *before,
                           ir_value **out) {
  if (v->layout == want) {
    *out = v;
    return VKML_OK;
  }
  if (v->id < st->n_values0 && st->other[v->id]) {
    *out = st->other[v->id];
    return VKML_OK;
  }
  ir_value *r;
  VKML_RETURN_IF_ERROR(fresh_value(st->g, v->name, want == IR_LAYOUT_DEFAULT ? "rows"
                                                    : ir_layout_name(want), &v->type, &r));
  r->layout = want;
  ir_node *n;
  VKML_RETURN_IF_ERROR(ir_node_create(st->g, IR_OP_REORDER, &v, 1, &r, 1, &n));
  if (before) {
    ir_node_remove(st->g, n);
    ir_node_insert_before(st->g, before, n);
  }
  if (v->id < st->n_values0) st->other[v->id] = r;
  st->changed = true;
  *out = r;
  return VKML_OK;
}

static void set_layout(layout_state *st, ir_value *v, ir_layout l) {
  if (v->layout != l) st->changed = true;
  v->layout = l;
}

static uint32_t mask_of(const layout_state *st, const ir_node *n) {
  return st->o->operands ? st->o->operands(st->o->user, n, st->o->layout) : 0;
}

static bool runs_packed(const layout_state *st, const ir_node *n, uint32_t mask) {
  if (!mask) return false;
  if (st->o->assign_all) return true;
  for (int i = 0; i < n->n_outputs && i < 16; i++)
    if ((mask >> (16 + i)) & 1 && n->outputs[i]->layout == st->o->layout) return true;
  return false;
}

static vkml_status rewrite_node(layout_state *st, ir_node *n) {
  if (n->op == IR_OP_REORDER) return VKML_OK; /* converts as annotated */
  uint32_t mask = mask_of(st, n);
  bool packed = runs_packed(st, n, mask);
  for (int i = 0; i < n->n_inputs; i++) {
    ir_layout want = packed && i < 16 && (mask >> i) & 1 ? st->o->layout : IR_LAYOUT_DEFAULT;
    VKML_RETURN_IF_ERROR(version(st, n->inputs[i], want, n, &n->inputs[i]));
  }
  for (int i = 0; i < n->n_outputs; i++) {
    bool p = packed && i < 16 && (mask >> (16 + i)) & 1;
    set_layout(st, n->outputs[i], p ? st->o->layout : IR_LAYOUT_DEFAULT);
  }
  return VKML_OK;
}

/* A graph output stored packed: a reorder back to rows takes over its name. */
static vkml_status unpack_output(layout_state *st, int i) {
  ir_value *v = st->g->outputs[i];
  if (v->layout == IR_LAYOUT_DEFAULT) return VKML_OK;
  ir_value *r;
  VKML_RETURN_IF_ERROR(version(st, v, IR_LAYOUT_DEFAULT, NULL, &r));
  if (r->producer && r->producer->inputs[0] == v && strstr(r->name, ".rows")) {
    const char *t = v->name;
    v->name = r->name;
    r->name = t;
  }
  st->g->outputs[i] = r;
  return VKML_OK;
}

static vkml_status run(layout_state *st) {
  ir_graph *g = st->g;
  ir_foreach_value(g, v) if (ir_value_is_const(v)) set_layout(st, v, IR_LAYOUT_DEFAULT);
  for (int i = 0; i < g->n_inputs; i++) set_layout(st, g->inputs[i], IR_LAYOUT_DEFAULT);
  /* the original nodes, in order (reorders get inserted among them) */
  ir_node **nodes = malloc(sizeof *nodes * ((size_t)g->n_nodes + 1));
  if (!nodes) return oom();
  int k = 0;
  ir_foreach_node(g, n) nodes[k++] = n;
  vkml_status s = VKML_OK;
  for (int i = 0; i < k && !s; i++) s = rewrite_node(st, nodes[i]);
  free(nodes);
  for (int i = 0; i < g->n_outputs && !s; i++) s = unpack_output(st, i);
  return s;
}

vkml_status pass_layout(ir_graph *g, const pass_layout_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (opts->layout == IR_LAYOUT_DEFAULT || (unsigned)opts->layout >= IR_LAYOUT_COUNT)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "pass_layout: no packed layout given");
  layout_state st = {.g = g, .o = opts, .n_values0 = g->n_values};
  st.other = calloc((size_t)g->n_values + 1, sizeof *st.other);
  if (!st.other) return oom();
  vkml_status s = run(&st);
  free(st.other);
  if (changed) *changed = st.changed;
  return s;
}
