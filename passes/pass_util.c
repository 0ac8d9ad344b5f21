/* Helpers the passes share (declared in pass.h). */
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"

vkml_status pass_const_create(ir_graph *g, const char *base, const char *suffix,
                              const ir_type *type, const void *data, ir_value **out) {
  int64_t bytes = ir_type_bytes(type);
  if (bytes <= PASS_INLINE_MAX_BYTES) {
    /* a fresh name first, then the inline constant under it */
    ir_value *probe;
    VKML_RETURN_IF_ERROR(ir_value_create_fresh(g, base, suffix, type, &probe));
    probe->storage = IR_CONST_INLINE;
    probe->inline_data = ir_arena_memdup(g->arena, data, (size_t)bytes);
    if (!probe->inline_data)
      return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    *out = probe;
    return VKML_OK;
  }
  uint64_t off;
  VKML_RETURN_IF_ERROR(ir_graph_blob_append(g, data, (uint64_t)bytes, &off));
  ir_value *v;
  VKML_RETURN_IF_ERROR(ir_value_create_fresh(g, base, suffix, type, &v));
  v->storage = IR_CONST_BLOB;
  v->blob_offset = off;
  *out = v;
  return VKML_OK;
}

void pass_node_bypass(ir_graph *g, ir_node *n, int in, bool *removed) {
  ir_value *x = n->inputs[in], *y = n->outputs[0];
  *removed = false;
  if (!ir_value_is_graph_output(g, y)) {
    ir_value_replace_uses(g, y, x);
  } else {
    if (!x->producer || ir_value_is_graph_output(g, x) || ir_value_is_graph_input(g, x))
      return;
    /* y keeps its name: x's producer now defines y, x's readers read y */
    ir_node *p = x->producer;
    p->outputs[x->producer_output] = y;
    y->producer = p;
    y->producer_output = x->producer_output;
    x->producer = NULL;
    ir_value_replace_uses(g, x, y);
  }
  ir_node_remove(g, n);
  *removed = true;
}

void pass_node_absorb(ir_graph *g, ir_node *producer, int k, ir_node *consumer) {
  ir_value *old = producer->outputs[k], *y = consumer->outputs[0];
  producer->outputs[k] = y;
  y->producer = producer;
  y->producer_output = k;
  old->producer = NULL;
  ir_node_remove(g, consumer);
}

vkml_status pass_const_read_f64(const ir_graph *g, const ir_value *v, double **out) {
  *out = NULL;
  const void *p = ir_value_const_data(g, v);
  if (!p || (v->type.dtype != IR_F32 && v->type.dtype != IR_F16))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%%%s is not a float constant", v->name);
  int64_t n = ir_type_numel(&v->type);
  double *d = malloc(sizeof *d * (size_t)(n ? n : 1));
  if (!d) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  for (int64_t i = 0; i < n; i++) d[i] = ir_dtype_load_f64(v->type.dtype, p, i);
  *out = d;
  return VKML_OK;
}

vkml_status pass_node_insert(ir_graph *g, ir_node *before, ir_op op, ir_value *const *ins,
                             int n_in, const char *base, const ir_type *const *types,
                             const char *const *suffixes, ir_value *const *outs, int n_out,
                             ir_node **node) {
  ir_value *o[IR_MAX_NODE_OPERANDS];
  if (n_out < 1 || n_out > IR_MAX_NODE_OPERANDS)
    return vkml_status_make(VKML_CODE_INTERNAL, "pass_node_insert: %d outputs", n_out);
  for (int i = 0; i < n_out; i++) {
    o[i] = outs ? outs[i] : NULL;
    if (!o[i]) VKML_RETURN_IF_ERROR(ir_value_create_fresh(g, base, suffixes[i], types[i], &o[i]));
  }
  VKML_RETURN_IF_ERROR(ir_node_create(g, op, ins, n_in, o, n_out, node));
  if (before) { /* created at the end */
    ir_node_remove(g, *node);
    ir_node_insert_before(g, before, *node);
  }
  return VKML_OK;
}

vkml_status pass_rewrite_until_done(ir_graph *g, const pass_opts *opts,
                                    bool (*wants)(const ir_node *, const pass_opts *),
                                    vkml_status (*rewrite)(ir_graph *, ir_node *),
                                    bool *changed) {
  if (changed) *changed = false;
  if (!opts || !opts->place) return VKML_OK;
  for (bool again = true; again;) {
    again = false;
    for (ir_node *n = g->first, *next; n; n = next) {
      next = n->next;
      if (!wants(n, opts)) continue;
      VKML_RETURN_IF_ERROR(rewrite(g, n));
      again = true;
      if (changed) *changed = true;
    }
  }
  int dropped;
  return ir_graph_drop_unused_values(g, &dropped);
}
