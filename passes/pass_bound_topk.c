/* pass_bound_topk: a topk whose k comes at run time has outputs bounded by
 * the whole axis. Detection exports take k = min(constant, count), so k has
 * an upper bound known before the run (ir/bounds.h); the pass records it
 * (attribute k_max, which inference takes as the outputs' capacity) and
 * re-infers every node after, so everything downstream shrinks with it:
 * RetinaNet's per-level top 1000 of up to 8.19M candidates stops carrying
 * 8.19M-row capacities into the box decoding and the final NMS.
 *
 * A graph that no longer infers with a smaller capacity (a shape baked from
 * the old one) keeps its types and the node loses the attribute. */
#include <stdlib.h>

#include "ir/bounds.h"
#include "ir/text.h"
#include "passes/pass.h"

/* Re-infers every node from `from` on; false (types as they were) when one
 * fails. saved: room for every value's type, by id. */
static bool reinfer_from(ir_graph *g, ir_node *from, ir_type *saved) {
  ir_foreach_value(g, v) saved[v->id] = v->type;
  bool on = false, ok = true;
  ir_foreach_node(g, n) {
    on = on || n == from;
    if (!on) continue;
    ir_type out[IR_MAX_NODE_OPERANDS];
    vkml_status s = ir_infer_node(n, out);
    if (s) {
      vkml_status_free(s);
      ok = false;
      break;
    }
    for (int i = 0; i < n->n_outputs; i++) n->outputs[i]->type = out[i];
  }
  if (!ok) ir_foreach_value(g, v) v->type = saved[v->id];
  return ok;
}

vkml_status pass_bound_topk(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  *changed = false;
  ir_type *saved = malloc(sizeof *saved * (size_t)(g->n_values ? g->n_values : 1));
  if (!saved) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "bound_topk: out of memory");
  vkml_status st = VKML_OK;
  ir_foreach_node(g, n) {
    if (n->op != IR_OP_TOPK || n->n_inputs != 2 || ir_node_attr(n, IR_A_K_MAX)) continue;
    const ir_type *y = &n->outputs[0]->type;
    int64_t hi;
    if (!y->bounded || ir_int_upper_bounds(n->inputs[1], &hi, 1) != 1) continue;
    if (hi < 0 || hi >= y->dims[y->bounded_axis]) continue;
    st = ir_node_set_int(g, n, IR_A_K_MAX, hi);
    if (st) break;
    if (reinfer_from(g, n, saved)) {
      *changed = true;
    } else {
      ir_node_remove_attr(n, IR_A_K_MAX);
    }
  }
  free(saved);
  return st;
}
