/* Whole-graph copies, for passes that rewrite a graph the caller still
 * owns (the plan builder's layout assignment). */
#include <stdlib.h>

#include "graph.h"

vkml_status ir_node_copy_attrs(ir_graph *g, ir_node *to, const ir_node *from) {
  for (int i = 0; i < from->n_attrs; i++) {
    const ir_attr *a = &from->attrs[i];
    vkml_status s = VKML_OK;
    switch (ir_attr_kind_of(a->id)) {
    case IR_ATTR_INT: s = ir_node_set_int(g, to, a->id, a->u.i); break;
    case IR_ATTR_ENUM: s = ir_node_set_enum(g, to, a->id, (int)a->u.i); break;
    case IR_ATTR_FLOAT: s = ir_node_set_float(g, to, a->id, a->u.f); break;
    case IR_ATTR_INTS: s = ir_node_set_ints(g, to, a->id, a->u.ints, a->n); break;
    case IR_ATTR_FLOATS: s = ir_node_set_floats(g, to, a->id, a->u.floats, a->n); break;
    case IR_ATTR_STRING: s = ir_node_set_string(g, to, a->id, a->u.s); break;
    }
    VKML_RETURN_IF_ERROR(s);
  }
  to->line = from->line;
  to->col = from->col;
  return VKML_OK;
}

static vkml_status clone_into(const ir_graph *g, ir_graph *ng, ir_value **map) {
  ir_foreach_value(g, v) {
    ir_value *nv;
    if (v->storage == IR_CONST_INLINE)
      VKML_RETURN_IF_ERROR(ir_const_create_inline(ng, v->name, &v->type, v->inline_data, &nv));
    else if (v->storage == IR_CONST_BLOB)
      VKML_RETURN_IF_ERROR(ir_const_create_blob(ng, v->name, &v->type, v->blob_offset, &nv));
    else
      VKML_RETURN_IF_ERROR(ir_value_create(ng, v->name, &v->type, &nv));
    nv->layout = v->layout;
    nv->line = v->line;
    nv->col = v->col;
    map[v->id] = nv;
  }
  ir_value *ins[64], *outs[64];
  ir_foreach_node(g, n) {
    if (n->n_inputs > 64 || n->n_outputs > 64)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "clone: node with more than 64 operands");
    for (int i = 0; i < n->n_inputs; i++) ins[i] = map[n->inputs[i]->id];
    for (int i = 0; i < n->n_outputs; i++) outs[i] = map[n->outputs[i]->id];
    ir_node *nn;
    VKML_RETURN_IF_ERROR(ir_node_create(ng, n->op, ins, n->n_inputs, outs, n->n_outputs, &nn));
    nn->device = n->device;
    VKML_RETURN_IF_ERROR(ir_node_copy_attrs(ng, nn, n));
  }
  for (int i = 0; i < g->n_inputs; i++)
    VKML_RETURN_IF_ERROR(ir_graph_add_input(ng, map[g->inputs[i]->id]));
  for (int i = 0; i < g->n_outputs; i++)
    VKML_RETURN_IF_ERROR(ir_graph_add_output(ng, map[g->outputs[i]->id]));
  return VKML_OK;
}

vkml_status ir_graph_clone(const ir_graph *g, ir_graph **out) {
  *out = NULL;
  ir_value **map = calloc((size_t)g->n_values + 1, sizeof *map);
  if (!map) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  ir_graph *ng = NULL;
  vkml_status s = ir_graph_create(g->name, &ng);
  if (!s) {
    ir_graph_set_blob(ng, g->blob, g->blob_bytes, false);
    s = clone_into(g, ng, map);
  }
  free(map);
  if (s) {
    ir_graph_destroy(ng);
    return s;
  }
  *out = ng;
  return VKML_OK;
}
