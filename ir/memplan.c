/* ir_memplan: tables, strategy names and the independent checker (see
 * memplan.h). The checker recomputes lifetimes from the graph on its own so
 * that a planner bug cannot hide behind the planner's own bookkeeping. */
#include "memplan.h"
#include "ir/util.h"

#include <stdlib.h>
#include <string.h>

static const char *const NAMES[IR_MEMPLAN_COUNT] = {"best", "naive", "greedy", "mcfp"};

const char *ir_memplan_strategy_name(ir_memplan_strategy s) {
  return (unsigned)s < IR_MEMPLAN_COUNT ? NAMES[s] : NULL;
}

bool ir_memplan_strategy_from_name(const char *name, ir_memplan_strategy *out) {
  for (int i = 0; name && i < IR_MEMPLAN_COUNT; i++)
    if (!strcmp(name, NAMES[i])) {
      *out = (ir_memplan_strategy)i;
      return true;
    }
  return false;
}

vkml_status ir_memplan_alloc(ir_memplan *m, int32_t n_values) {
  memset(m, 0, sizeof *m);
  size_t n = (size_t)(n_values > 0 ? n_values : 0) + 1;
  m->offsets = malloc(n * sizeof *m->offsets);
  m->bytes = calloc(n, sizeof *m->bytes);
  m->alias = malloc(n * sizeof *m->alias);
  if (!m->offsets || !m->bytes || !m->alias) {
    ir_memplan_free(m);
    return ir_oom(NULL);
  }
  for (size_t i = 0; i < n; i++) m->offsets[i] = -1, m->alias[i] = -1;
  m->n_values = n_values;
  m->alignment = 1;
  return VKML_OK;
}

void ir_memplan_free(ir_memplan *m) {
  free(m->offsets);
  free(m->bytes);
  free(m->alias);
  memset(m, 0, sizeof *m);
}

vkml_status ir_memplan_copy(const ir_memplan *m, ir_memplan *out) {
  VKML_RETURN_IF_ERROR(ir_memplan_alloc(out, m->n_values));
  size_t n = (size_t)(m->n_values > 0 ? m->n_values : 0);
  if (n) {
    memcpy(out->offsets, m->offsets, n * sizeof *m->offsets);
    memcpy(out->bytes, m->bytes, n * sizeof *m->bytes);
    memcpy(out->alias, m->alias, n * sizeof *m->alias);
  }
  out->strategy = m->strategy;
  out->arena_bytes = m->arena_bytes;
  out->alignment = m->alignment;
  out->lower_bound = m->lower_bound;
  out->n_objects = m->n_objects;
  return VKML_OK;
}

bool ir_node_is_view(const ir_node *n) {
  if (n->n_inputs < 1 || n->n_outputs != 1) return false;
  const ir_value *in = n->inputs[0], *out = n->outputs[0];
  if (in->type.dtype != out->type.dtype || in->type.bounded || out->type.bounded) return false;
  switch (n->op) {
  case IR_OP_IDENTITY:
    return in->layout == out->layout && ir_type_equal(&in->type, &out->type);
  case IR_OP_RESHAPE:
  case IR_OP_FLATTEN:
  case IR_OP_SQUEEZE:
  case IR_OP_UNSQUEEZE:
    /* row-major bytes do not change; a packed layout's would */
    return in->layout == IR_LAYOUT_DEFAULT && out->layout == IR_LAYOUT_DEFAULT &&
           ir_type_numel(&in->type) == ir_type_numel(&out->type);
  case IR_OP_TRANSPOSE:
    return ir_node_relabels_nhwc(n); /* nhwc bytes read as row-major, or back */
  default:
    return false;
  }
}

typedef struct span {
  int32_t root;
  int64_t start, end; /* node positions, inclusive */
} span;

static int span_cmp(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : x->root - y->root;
}

static vkml_status fail(const ir_value *v, const char *what) {
  return vkml_status_make(VKML_CODE_INTERNAL, "memory plan: %%%s %s", v->name, what);
}

/* Per-value checks that need no lifetimes. */
static vkml_status check_value(const ir_memplan *m, const ir_value *const *vals,
                               const bool *edge, const bool *used, const ir_value *v,
                               ir_memplan_size_fn need, void *user) {
  int id = v->id;
  bool in_arena = m->offsets[id] >= 0;
  /* a value no node touches needs no space (its producer was unlinked) */
  uint64_t want = need && used[id] ? need(user, v) : 0;
  if (want && !edge[id] && (!in_arena || m->bytes[id] < want))
    return fail(v, "needs arena bytes and has none or too few");
  if (!in_arena) {
    if (m->alias[id] >= 0 || m->bytes[id]) return fail(v, "has bytes or an alias but no offset");
    return VKML_OK;
  }
  if (edge[id]) return fail(v, "is a graph input, output or constant but in the arena");
  if (!m->bytes[id]) return fail(v, "is in the arena with zero bytes");
  int32_t r = m->alias[id];
  if (r < 0) {
    if ((uint64_t)m->offsets[id] % m->alignment) return fail(v, "is not aligned");
    if ((uint64_t)m->offsets[id] > m->arena_bytes ||
        m->bytes[id] > m->arena_bytes - (uint64_t)m->offsets[id])
      return fail(v, "ends past the arena");
    return VKML_OK;
  }
  if (r >= m->n_values || !vals[r] || m->alias[r] >= 0 || m->offsets[r] < 0)
    return fail(v, "aliases something that is not a root in the arena");
  if (m->offsets[r] != m->offsets[id] || m->bytes[id] > m->bytes[r])
    return fail(v, "does not lie inside the storage it aliases");
  const ir_node *p = v->producer;
  const ir_value *src = p && p->n_inputs ? p->inputs[0] : NULL;
  if (!p || !ir_node_is_view(p) || !src ||
      (src->id != r && (src->id >= m->n_values || m->alias[src->id] != r)))
    return fail(v, "aliases a value it is not a view of");
  return VKML_OK;
}

vkml_status ir_memplan_check(const ir_memplan *m, const ir_graph *g, ir_memplan_size_fn need,
                             void *user) {
  if (m->n_values != g->n_values || !m->offsets || !m->bytes || !m->alias)
    return vkml_status_make(VKML_CODE_INTERNAL,
                            "memory plan: tables for %d values, the graph has %d",
                            (int)m->n_values, g->n_values);
  if (!m->alignment || (m->alignment & (m->alignment - 1)))
    return vkml_status_make(VKML_CODE_INTERNAL, "memory plan: alignment %llu",
                            (unsigned long long)m->alignment);
  size_t nv = (size_t)g->n_values + 1;
  const ir_value **vals = calloc(nv, sizeof *vals);
  bool *edge = calloc(nv, sizeof *edge), *used = calloc(nv, sizeof *used);
  int64_t *start = malloc(nv * sizeof *start), *end = malloc(nv * sizeof *end);
  span *spans = malloc(nv * sizeof *spans);
  vkml_status s = VKML_OK;
  if (!vals || !edge || !used || !start || !end || !spans) {
    s = ir_oom(NULL);
    goto out;
  }
  for (size_t i = 0; i < nv; i++) start[i] = INT64_MAX, end[i] = -1;
  ir_foreach_value(g, v) {
    vals[v->id] = v;
    edge[v->id] = ir_value_is_const(v) || !v->producer;
  }
  for (int i = 0; i < g->n_outputs; i++) edge[g->outputs[i]->id] = true;
  ir_foreach_node(g, n) {
    for (int k = 0; k < n->n_inputs; k++) used[n->inputs[k]->id] = true;
    for (int k = 0; k < n->n_outputs; k++) used[n->outputs[k]->id] = true;
  }
  ir_foreach_value(g, v) {
    if ((s = check_value(m, vals, edge, used, v, need, user))) goto out;
  }
  /* lifetimes of each storage: its root's and every alias's definitions and
   * reads */
  int64_t pos = 0;
  ir_foreach_node(g, n) {
    for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
      const ir_value *v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
      if (m->offsets[v->id] < 0) continue;
      int32_t r = m->alias[v->id] >= 0 ? m->alias[v->id] : v->id;
      if (pos < start[r]) start[r] = pos;
      if (pos > end[r]) end[r] = pos;
    }
    pos++;
  }
  int n_spans = 0;
  ir_foreach_value(g, v) {
    if (m->offsets[v->id] < 0 || m->alias[v->id] >= 0) continue;
    if (end[v->id] < 0) start[v->id] = end[v->id] = 0; /* never touched: be strict */
    spans[n_spans++] = (span){v->id, start[v->id], end[v->id]};
  }
  qsort(spans, (size_t)n_spans, sizeof *spans, span_cmp);
  for (int i = 0; i < n_spans; i++)
    for (int j = i + 1; j < n_spans && spans[j].start <= spans[i].end; j++) {
      int32_t a = spans[i].root, b = spans[j].root;
      uint64_t ao = (uint64_t)m->offsets[a], bo = (uint64_t)m->offsets[b];
      if (ao < bo + m->bytes[b] && bo < ao + m->bytes[a]) {
        s = vkml_status_make(VKML_CODE_INTERNAL,
                             "memory plan: %%%s [%llu,+%llu) and %%%s [%llu,+%llu) overlap "
                             "while both live (steps %lld-%lld and %lld-%lld)",
                             vals[a]->name, (unsigned long long)ao,
                             (unsigned long long)m->bytes[a], vals[b]->name,
                             (unsigned long long)bo, (unsigned long long)m->bytes[b],
                             (long long)spans[i].start, (long long)spans[i].end,
                             (long long)spans[j].start, (long long)spans[j].end);
        goto out;
      }
    }
out:
  free(vals);
  free(edge);
  free(used);
  free(start);
  free(end);
  free(spans);
  return s;
}
