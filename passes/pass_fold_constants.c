/* pass_fold_constants: a node whose inputs are all constants and whose
 * outputs together hold at most opts.fold_max_bytes (or, up to
 * PASS_FOLD_SAME_MAX_BYTES, no more elements than its largest input: the
 * model already carries a constant that large, as Swin's window mask, an
 * equal / not / where chain over a [windows, 49, 49] constant) is run once,
 * at compile time, through the evaluator the caller injects (opts.eval: the CPU
 * reference kernels, so the folded value is what the CPU would compute at
 * run time), and its outputs become constants (pass_const_create: inline
 * when small, else in the weights blob). Nodes are visited in order, so a
 * chain of constant nodes folds in one run. A folded graph output keeps its
 * name. Without an evaluator the pass does nothing; bounded (data-dependent)
 * outputs and reorders (a layout conversion, not a value) are not folded. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"

static bool foldable(const ir_graph *g, const ir_node *n, int64_t max_bytes) {
  if (n->op == IR_OP_REORDER || n->n_inputs < 1) return false;
  if (n->n_inputs > IR_MAX_NODE_OPERANDS || n->n_outputs > IR_MAX_NODE_OPERANDS) return false;
  for (int i = 0; i < n->n_inputs; i++)
    if (!ir_value_is_const(n->inputs[i]) || !ir_value_const_data(g, n->inputs[i])) return false;
  int64_t bytes = 0, elems = 0, largest_in = 0;
  for (int i = 0; i < n->n_outputs; i++) {
    const ir_value *v = n->outputs[i];
    if (v->type.bounded || v->layout != IR_LAYOUT_DEFAULT) return false;
    bytes += ir_type_bytes(&v->type);
    elems += ir_type_numel(&v->type);
  }
  for (int i = 0; i < n->n_inputs; i++) {
    int64_t e = ir_type_numel(&n->inputs[i]->type);
    largest_in = e > largest_in ? e : largest_in;
  }
  return bytes <= max_bytes || (elems <= largest_in && bytes <= PASS_FOLD_SAME_MAX_BYTES);
}

/* out[i] becomes constant c: readers read c; a graph output passes its name
 * on to c. */
static void replace_output(ir_graph *g, ir_value *old, ir_value *c) {
  if (ir_value_is_graph_output(g, old)) {
    const char *t = old->name;
    old->name = c->name;
    c->name = t;
  }
  ir_value_replace_uses(g, old, c);
  old->producer = NULL;
}

static vkml_status fold(ir_graph *g, ir_node *n, const pass_opts *o) {
  const void *in[IR_MAX_NODE_OPERANDS];
  void *out[IR_MAX_NODE_OPERANDS] = {0};
  ir_value *consts[IR_MAX_NODE_OPERANDS];
  for (int i = 0; i < n->n_inputs; i++) in[i] = ir_value_const_data(g, n->inputs[i]);
  vkml_status s = VKML_OK;
  for (int i = 0; i < n->n_outputs && !s; i++) {
    out[i] = calloc(1, (size_t)ir_type_bytes(&n->outputs[i]->type) + 1);
    if (!out[i]) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  if (!s) s = o->eval(o->eval_user, n, in, out);
  /* ir_value_const_data pointers into the blob stay valid until the first
   * constant is created (the blob may move then): every output is computed
   * before any is stored. */
  for (int i = 0; i < n->n_outputs && !s; i++)
    s = pass_const_create(g, n->outputs[i]->name, ".c", &n->outputs[i]->type, out[i],
                          &consts[i]);
  for (int i = 0; i < n->n_outputs; i++) free(out[i]);
  if (s) return s;
  for (int i = 0; i < n->n_outputs; i++) replace_output(g, n->outputs[i], consts[i]);
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_fold_node(ir_graph *g, ir_node *n, const pass_opts *opts, bool *folded) {
  *folded = false;
  if (!opts || !opts->eval || !foldable(g, n, PASS_FOLD_SAME_MAX_BYTES)) return VKML_OK;
  vkml_status s = fold(g, n, opts);
  if (s && vkml_status_code(s) != VKML_CODE_OUT_OF_MEMORY) {
    vkml_status_free(s); /* it stays, as in pass_fold_constants */
    return VKML_OK;
  }
  *folded = !s;
  return s;
}

vkml_status pass_fold_constants(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (!opts->eval) return VKML_OK;
  int64_t max_bytes = opts->fold_max_bytes > 0 ? opts->fold_max_bytes : PASS_FOLD_MAX_BYTES;
  for (ir_node *n = g->first, *next; n; n = next) {
    next = n->next;
    if (!foldable(g, n, max_bytes)) continue;
    vkml_status s = fold(g, n, opts);
    /* a node the kernels refuse (an index out of range, ...) stays, to fail
     * or clamp at run time exactly as it would have */
    if (s && vkml_status_code(s) != VKML_CODE_OUT_OF_MEMORY) {
      vkml_status_free(s);
      continue;
    }
    if (s) {
      char d[160];
      ir_node_describe(n, d, sizeof d);
      return vkml_status_annotate(s, "folding %s", d);
    }
    if (changed) *changed = true;
  }
  return VKML_OK;
}
