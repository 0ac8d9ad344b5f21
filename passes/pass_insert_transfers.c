/* pass_insert_transfers: device placement, pass 2 of 2 (passes/README.md). Every
 * edge whose ends sit on different devices gets an explicit copy:
 *
 *   %c = conv2d@gpu %x, %w : f32[1,8,4,4]
 *   %c.host = download@cpu %c : f32[1,8,4,4]
 *   %t = topk@cpu %c.host ... {cpu_reason="..."}
 *   %t.dev = upload@gpu %t ...
 *
 * One copy per value and direction, inserted before the first node that
 * reads it on the other side and shared by every later reader there, so
 * neighbouring CPU nodes exchange host tensors directly and a run of them
 * costs one transfer each way. Graph inputs and constants need none: the
 * executor holds them on both sides (inputs are the interface; constants
 * go up once). Graph outputs are read back wherever they were produced.
 *
 * Nodes created after pass 1 (the layout pass's reorders) are still
 * unplaced: they run on the GPU (a packed layout lives in device buffers
 * only) and are tagged so here. A graph nothing placed (no pass 1 callback)
 * is left as it is. The executor then runs exactly these steps: no copy it
 * makes is missing from the IR (ir_plan_check refuses a plan that needs
 * one). */
#include <stdlib.h>

#include "ir/util.h"
#include "passes/pass.h"

static bool any_placed(const ir_graph *g) {
  ir_foreach_node(g, n) if (n->device != IR_DEVICE_UNPLACED) return true;
  return false;
}

/* The copy of v onto device d, inserted before `before`. */
static vkml_status make_transfer(ir_graph *g, ir_value *v, ir_device d, ir_node *before,
                                 ir_value **out) {
  if (v->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_INTERNAL,
                            "%%%s (layout %s) crosses to the %s: the layout pass should have "
                            "reordered it",
                            v->name, ir_layout_name(v->layout), d == IR_DEVICE_CPU ? "CPU" : "GPU");
  ir_value *t;
  VKML_RETURN_IF_ERROR(
      ir_value_create_fresh(g, v->name, d == IR_DEVICE_CPU ? ".host" : ".dev", &v->type, &t));
  ir_node *n;
  VKML_RETURN_IF_ERROR(ir_node_create(g, d == IR_DEVICE_CPU ? IR_OP_DOWNLOAD : IR_OP_UPLOAD, &v, 1,
                                      &t, 1, &n));
  n->device = d;
  ir_node_remove(g, n); /* created last: moved before its first reader */
  ir_node_insert_before(g, before, n);
  *out = t;
  return VKML_OK;
}

vkml_status pass_insert_transfers(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  if (!any_placed(g)) return VKML_OK;
  size_t nv = (size_t)g->n_values + 1;
  /* by value id of the graph as it came: its copy on the host, the device */
  ir_value **on_cpu = calloc(nv, sizeof *on_cpu), **on_gpu = calloc(nv, sizeof *on_gpu);
  vkml_status s = on_cpu && on_gpu ? VKML_OK : ir_oom("placing the graph");
  for (ir_node *n = g->first; n && !s; n = n->next) {
    if (n->device == IR_DEVICE_UNPLACED) {
      n->device = IR_DEVICE_GPU;
      if (changed) *changed = true;
    }
    if (n->op == IR_OP_DOWNLOAD || n->op == IR_OP_UPLOAD) continue;
    for (int i = 0; i < n->n_inputs && !s; i++) {
      ir_value *v = n->inputs[i];
      if (!v->producer || v->producer->device == n->device || (size_t)v->id >= nv) continue;
      ir_value **slot = n->device == IR_DEVICE_CPU ? &on_cpu[v->id] : &on_gpu[v->id];
      if (!*slot) s = make_transfer(g, v, n->device, n, slot);
      if (s) break;
      n->inputs[i] = *slot;
      if (changed) *changed = true;
    }
  }
  free(on_cpu);
  free(on_gpu);
  return s;
}
