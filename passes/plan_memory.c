/* Memory planning driver: which values need storage, views, lifetimes, the
 * lower bound and the naive layout; the other strategies live in
 * plan_memory_objects.c (greedy, mcfp) and plan_memory_pack.c (best). */
#include "passes/plan_memory.h"

#include <stdlib.h>
#include <string.h>

#include "passes/plan_memory_internal.h"

static uint64_t default_size(void *user, const ir_value *v) {
  (void)user;
  return (uint64_t)ir_type_storage_bytes(&v->type, v->layout);
}

vkml_status pm_objects_to_offsets(const pm_buf *b, int n, const int32_t *obj, int n_obj,
                                  uint64_t *off, uint64_t *total) {
  uint64_t *size = calloc((size_t)n_obj + 1, sizeof *size);
  if (!size) return ir_oom(NULL);
  for (int i = 0; i < n; i++)
    if (b[i].size > size[obj[i]]) size[obj[i]] = b[i].size;
  uint64_t at = 0;
  for (int k = 0; k < n_obj; k++) {
    uint64_t s = size[k];
    size[k] = at; /* now the object's offset */
    at += s;
  }
  for (int i = 0; i < n; i++) off[i] = size[obj[i]];
  *total = at;
  free(size);
  return VKML_OK;
}

static int buf_cmp(const void *a, const void *b) {
  const pm_buf *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->root < y->root ? -1 : x->root > y->root;
}

/* Largest sum of sizes live at one position (a difference array over
 * positions). */
static vkml_status lower_bound(const pm_buf *b, int n, int n_pos, uint64_t *out) {
  int64_t *delta = calloc((size_t)n_pos + 2, sizeof *delta);
  if (!delta) return ir_oom(NULL);
  for (int i = 0; i < n; i++) {
    delta[b[i].start] += (int64_t)b[i].size;
    delta[b[i].end + 1] -= (int64_t)b[i].size;
  }
  int64_t live = 0, best = 0;
  for (int p = 0; p <= n_pos; p++) {
    live += delta[p];
    if (live > best) best = live;
  }
  free(delta);
  *out = (uint64_t)best;
  return VKML_OK;
}

/* The storages of g: sizes, views turned into aliases, merged lifetimes. */
static vkml_status collect(const ir_graph *g, const pass_memplan_opts *o, uint64_t align,
                           ir_memplan *m, pm_buf **out_bufs, int *out_n) {
  ir_memplan_size_fn size = o->size ? o->size : default_size;
  size_t nv = (size_t)g->n_values + 1;
  bool *edge = calloc(nv, sizeof *edge);
  int32_t *start = malloc(nv * sizeof *start), *end = malloc(nv * sizeof *end);
  pm_buf *bufs = malloc(nv * sizeof *bufs);
  vkml_status s = VKML_OK;
  if (!edge || !start || !end || !bufs) {
    s = ir_oom(NULL);
    goto out;
  }
  for (size_t i = 0; i < nv; i++) start[i] = end[i] = INT32_MIN;
  ir_foreach_value(g, v) edge[v->id] = ir_value_is_const(v) || !v->producer;
  for (int i = 0; i < g->n_outputs; i++) edge[g->outputs[i]->id] = true;
  ir_foreach_value(g, v) {
    uint64_t b = edge[v->id] ? 0 : size(o->user, v);
    if (!b) continue;
    if (b > UINT64_MAX / 2) {
      s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%%%s: %llu bytes", v->name,
                           (unsigned long long)b);
      goto out;
    }
    m->bytes[v->id] = b;
    m->offsets[v->id] = 0; /* in the arena; placed below */
  }
  /* views, in node order so that a chain of views finds its root */
  int32_t pos = 0;
  ir_foreach_node(g, n) {
    if (ir_node_is_view(n)) {
      const ir_value *in = n->inputs[0], *y = n->outputs[0];
      int32_t r = m->alias[in->id] >= 0 ? m->alias[in->id] : in->id;
      if (m->offsets[y->id] >= 0 && m->offsets[r] >= 0 && m->bytes[y->id] <= m->bytes[r])
        m->alias[y->id] = r;
    }
    for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
      const ir_value *v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
      if (m->offsets[v->id] < 0) continue;
      int32_t r = m->alias[v->id] >= 0 ? m->alias[v->id] : v->id;
      /* the root is defined first (its producer precedes every reader) */
      if (start[r] == INT32_MIN) start[r] = pos;
      end[r] = pos;
    }
    pos++;
  }
out:
  if (!s) {
    int n = 0;
    ir_foreach_value(g, v) {
      if (m->offsets[v->id] >= 0 && m->alias[v->id] < 0 && start[v->id] == INT32_MIN) {
        /* no node in the list touches it (its producer was unlinked) */
        m->offsets[v->id] = -1;
        m->bytes[v->id] = 0;
      }
      if (m->offsets[v->id] < 0 || m->alias[v->id] >= 0) continue;
      uint64_t b = (m->bytes[v->id] + align - 1) / align * align;
      bufs[n++] = (pm_buf){v->id, b, start[v->id], end[v->id]};
    }
    qsort(bufs, (size_t)n, sizeof *bufs, buf_cmp);
    *out_bufs = bufs;
    *out_n = n;
    bufs = NULL;
  }
  free(edge);
  free(start);
  free(end);
  free(bufs);
  return s;
}

vkml_status pass_plan_memory(const ir_graph *g, const pass_memplan_opts *opts, ir_memplan *out) {
  pass_memplan_opts o = opts ? *opts : (pass_memplan_opts){0};
  uint64_t align = o.alignment ? o.alignment : 1;
  memset(out, 0, sizeof *out);
  if (align & (align - 1))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "memory plan: alignment %llu is not a power of two",
                            (unsigned long long)align);
  if (!ir_memplan_strategy_name(o.strategy))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "memory plan: unknown strategy %d",
                            (int)o.strategy);
  VKML_RETURN_IF_ERROR(ir_memplan_alloc(out, g->n_values));
  out->strategy = o.strategy;
  out->alignment = align;
  pm_buf *b = NULL;
  uint64_t *off = NULL;
  int n = 0;
  vkml_status s = collect(g, &o, align, out, &b, &n);
  if (!s && !(off = calloc((size_t)n + 1, sizeof *off))) s = ir_oom(NULL);
  if (!s) s = lower_bound(b, n, g->n_nodes, &out->lower_bound);
  if (!s) {
    switch (o.strategy) {
    case IR_MEMPLAN_NAIVE:
      for (int i = 0; i < n; i++) off[i] = out->arena_bytes, out->arena_bytes += b[i].size;
      break;
    case IR_MEMPLAN_GREEDY:
      s = pm_plan_greedy(b, n, off, &out->arena_bytes, &out->n_objects);
      break;
    case IR_MEMPLAN_MCFP:
      s = pm_plan_mcfp(b, n, off, &out->arena_bytes, &out->n_objects);
      break;
    default:
      s = pm_plan_pack(b, n, off, &out->arena_bytes);
      break;
    }
  }
  if (!s) {
    for (int i = 0; i < n; i++) {
      out->offsets[b[i].root] = (int64_t)off[i];
      out->bytes[b[i].root] = b[i].size;
    }
    ir_foreach_value(g, v) {
      int32_t r = out->alias[v->id];
      if (r >= 0) out->offsets[v->id] = out->offsets[r];
    }
  }
  free(b);
  free(off);
  if (s) ir_memplan_free(out);
  return s;
}
