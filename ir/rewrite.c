/* Graph edits the passes share: fresh names, blob growth, use replacement
 * and counting, dropping values nothing refers to. Kept in ir/ because both
 * passes/ and codegen/ rewrite graphs and may not include each other. */
#include "graph.h"
#include "ir/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vkml_status ir_value_create_fresh(ir_graph *g, const char *base, const char *suffix,
                                  const ir_type *type, ir_value **out) {
  size_t n = strlen(base) + strlen(suffix) + 24;
  char *name = malloc(n);
  if (!name) return ir_oom("rewriting the graph");
  snprintf(name, n, "%s%s", base, suffix);
  for (int k = 2; ir_graph_find_value(g, name); k++) snprintf(name, n, "%s%s_%d", base, suffix, k);
  vkml_status s = ir_value_create(g, name, type, out);
  free(name);
  return s;
}

vkml_status ir_graph_blob_append(ir_graph *g, const void *data, uint64_t bytes,
                                 uint64_t *offset) {
  uint64_t at = (g->blob_bytes + 63) / 64 * 64;
  if (bytes > UINT64_MAX / 2 - at) return ir_oom("rewriting the graph");
  uint64_t need = at + bytes;
  if (!g->blob_owned || need > g->blob_cap) {
    uint64_t cap = g->blob_cap > 4096 ? g->blob_cap : 4096;
    while (cap < need) cap *= 2;
    uint8_t *nb = malloc((size_t)cap);
    if (!nb) return ir_oom("rewriting the graph");
    if (g->blob_bytes) memcpy(nb, g->blob, (size_t)g->blob_bytes);
    free(g->blob_owned);
    g->blob = nb;
    g->blob_owned = nb;
    g->blob_cap = cap;
  }
  uint8_t *b = g->blob_owned;
  if (at > g->blob_bytes) memset(b + g->blob_bytes, 0, (size_t)(at - g->blob_bytes));
  memcpy(b + at, data, (size_t)bytes);
  g->blob_bytes = need;
  *offset = at;
  return VKML_OK;
}

void ir_value_replace_uses(ir_graph *g, ir_value *from, ir_value *to) {
  ir_foreach_node(g, n) for (int i = 0; i < n->n_inputs; i++) if (n->inputs[i] == from)
      n->inputs[i] = to;
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == from) g->outputs[i] = to;
}

vkml_status ir_graph_count_uses(const ir_graph *g, int **out) {
  int *uses = calloc((size_t)g->n_values + 1, sizeof *uses);
  if (!uses) return ir_oom("rewriting the graph");
  ir_foreach_node(g, n) for (int i = 0; i < n->n_inputs; i++) uses[n->inputs[i]->id]++;
  for (int i = 0; i < g->n_outputs; i++) uses[g->outputs[i]->id]++;
  *out = uses;
  return VKML_OK;
}

bool ir_value_is_graph_output(const ir_graph *g, const ir_value *v) {
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == v) return true;
  return false;
}

bool ir_value_is_graph_input(const ir_graph *g, const ir_value *v) {
  for (int i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] == v) return true;
  return false;
}

vkml_status ir_graph_drop_unused_values(ir_graph *g, int *n_dropped) {
  int dropped = 0;
  bool *keep = calloc((size_t)g->n_values + 1, sizeof *keep);
  if (!keep) return ir_oom("rewriting the graph");
  for (int i = 0; i < g->n_inputs; i++) keep[g->inputs[i]->id] = true;
  for (int i = 0; i < g->n_outputs; i++) keep[g->outputs[i]->id] = true;
  ir_foreach_node(g, n) {
    for (int i = 0; i < n->n_inputs; i++) keep[n->inputs[i]->id] = true;
    for (int i = 0; i < n->n_outputs; i++) keep[n->outputs[i]->id] = true;
  }
  ir_value *prev = NULL;
  for (ir_value *v = g->first_value; v;) {
    ir_value *next = v->next;
    if (keep[v->id]) {
      prev = v;
    } else {
      if (prev) prev->next = next;
      else g->first_value = next;
      if (g->last_value == v) g->last_value = prev;
      v->next = NULL;
      dropped++;
    }
    v = next;
  }
  free(keep);
  if (n_dropped) *n_dropped = dropped;
  return VKML_OK;
}

vkml_status ir_graph_blob_compact(ir_graph *g, uint64_t *saved) {
  if (saved) *saved = 0;
  /* the live ranges, in value order; a range two constants share is kept once */
  uint64_t need = 0;
  int n = 0;
  ir_foreach_value(g, v) if (v->storage == IR_CONST_BLOB) n++;
  uint64_t *old_off = calloc((size_t)n + 1, sizeof *old_off);
  uint64_t *new_off = calloc((size_t)n + 1, sizeof *new_off);
  uint64_t *len = calloc((size_t)n + 1, sizeof *len);
  if (!old_off || !new_off || !len) {
    free(old_off);
    free(new_off);
    free(len);
    return ir_oom("compacting the weights");
  }
  int k = 0;
  ir_foreach_value(g, v) {
    if (v->storage != IR_CONST_BLOB) continue;
    uint64_t b = (uint64_t)ir_type_bytes(&v->type);
    int same = -1;
    for (int j = 0; j < k && same < 0; j++)
      if (old_off[j] == v->blob_offset && len[j] == b) same = j;
    if (same >= 0) continue;
    old_off[k] = v->blob_offset;
    len[k] = b;
    new_off[k] = (need + 63) / 64 * 64;
    need = new_off[k] + b;
    k++;
  }
  vkml_status s = VKML_OK;
  if (need < g->blob_bytes) {
    uint8_t *nb = malloc(need ? (size_t)need : 1);
    if (!nb) {
      s = ir_oom("compacting the weights");
    } else {
      memset(nb, 0, (size_t)need);
      for (int j = 0; j < k; j++)
        if (len[j]) memcpy(nb + new_off[j], g->blob + old_off[j], (size_t)len[j]);
      ir_foreach_value(g, v) {
        if (v->storage != IR_CONST_BLOB) continue;
        uint64_t b = (uint64_t)ir_type_bytes(&v->type);
        for (int j = 0; j < k; j++)
          if (old_off[j] == v->blob_offset && len[j] == b) {
            v->blob_offset = new_off[j];
            break;
          }
      }
      if (saved) *saved = g->blob_bytes - need;
      ir_graph_set_blob(g, nb, need, true);
    }
  }
  free(old_off);
  free(new_off);
  free(len);
  return s;
}
