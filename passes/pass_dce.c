/* pass_dce: dead-code elimination. A node none of whose outputs reaches a
 * graph output is removed (every op is pure); then values nothing refers to
 * any more (unused constants, outputs of removed nodes) leave the value
 * list, so they are neither printed nor uploaded. Graph inputs stay: they
 * are the interface. */
#include <stdlib.h>

#include "passes/pass.h"

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
  if (changed) *changed = removed || dropped;
  return VKML_OK;
}
