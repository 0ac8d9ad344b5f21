/* pass_dce: dead-code elimination. A node none of whose outputs reaches a
 * graph output is removed (every op is pure); then values nothing refers to
 * any more (unused constants, outputs of removed nodes) leave the value
 * list, so they are neither printed nor uploaded. Graph inputs stay: they
 * are the interface. When the graph owns its weights blob (a pass appended
 * to it) and constants in it died, the blob is compacted to the live ones;
 * a borrowed blob (a mapped file) is left alone rather than copied. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"

/* Rewrites an owned blob to hold only the live blob constants (64-byte
 * aligned, in value order). */
static vkml_status compact_blob(ir_graph *g) {
  uint64_t live = 0;
  ir_foreach_value(g, v) if (v->storage == IR_CONST_BLOB)
      live += ((uint64_t)ir_type_bytes(&v->type) + 63) / 64 * 64;
  if (!g->blob_owned || live >= g->blob_bytes) return VKML_OK;
  uint8_t *nb = malloc(live ? (size_t)live : 1);
  if (!nb) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  uint64_t off = 0;
  ir_foreach_value(g, v) if (v->storage == IR_CONST_BLOB) {
    uint64_t b = (uint64_t)ir_type_bytes(&v->type), pad = (b + 63) / 64 * 64;
    memcpy(nb + off, g->blob + v->blob_offset, (size_t)b);
    memset(nb + off + b, 0, (size_t)(pad - b));
    v->blob_offset = off;
    off += pad;
  }
  ir_graph_set_blob(g, nb, live, true);
  return VKML_OK;
}

vkml_status pass_dce(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  bool *live = calloc((size_t)g->n_values + 1, sizeof *live);
  if (!live) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  for (int i = 0; i < g->n_outputs; i++) live[g->outputs[i]->id] = true;
  int removed = 0;
  for (ir_node *n = g->last, *prev; n; n = prev) {
    prev = n->prev;
    bool used = false;
    for (int i = 0; i < n->n_outputs; i++) used = used || live[n->outputs[i]->id];
    if (!used) {
      ir_node_remove(g, n);
      removed++;
      continue;
    }
    for (int i = 0; i < n->n_inputs; i++) live[n->inputs[i]->id] = true;
  }
  free(live);
  int dropped = 0;
  VKML_RETURN_IF_ERROR(ir_graph_drop_unused_values(g, &dropped));
  if (dropped) VKML_RETURN_IF_ERROR(compact_blob(g));
  if (changed) *changed = removed || dropped;
  return VKML_OK;
}
