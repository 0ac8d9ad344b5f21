/* Constant folding at import: a node whose inputs are all constant (the
 * shape computations of exported models: Shape, Gather, Concat, Cast,
 * Unsqueeze, Slice, arithmetic, ...) is converted as usual and the IR it
 * became is evaluated at once through the evaluator the caller injects
 * (onnx_import_opts.eval: the CPU reference kernels, rt_cpu_eval_node), so
 * that a model with dynamic shapes becomes static once its input shapes are
 * fixed and the converters after it see constants where ONNX has parameter
 * inputs. The importer has no arithmetic of its own: what a folded node
 * computes is what the reference kernels (and pass_fold_constants, the same
 * evaluator later in the pipeline) compute.
 *
 * The folded outputs keep their IR values, which become constants in place
 * (same names); the evaluated nodes leave the graph, and values nothing
 * uses any more are dropped when the import ends. When any node of the
 * conversion cannot be evaluated (no evaluator, a data-dependent size, the
 * kernel refuses), the converted IR simply stays. */
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"
#include "onnx_internal.h"

const void *onnx_const_bytes(const onnx_ctx *c, const ir_value *v) {
  if (v->storage == IR_CONST_INLINE) return v->inline_data;
  for (int i = c->n_blob - 1; i >= 0; i--)
    if (c->blob_vals[i] == v) return c->blob_data[i];
  return NULL;
}

/* Makes v (an output of a node about to leave the graph) a constant
 * holding data (import-owned), as onnx_const_value would have made it. */
static vkml_status make_const(onnx_ctx *c, ir_value *v, const void *data) {
  int64_t bytes = ir_type_bytes(&v->type);
  v->producer = NULL;
  v->producer_output = 0;
  if (c->inline_max_bytes >= 0 && bytes <= c->inline_max_bytes) {
    void *copy = ir_arena_alloc(c->g->arena, (size_t)(bytes ? bytes : 1));
    if (!copy) return ir_oom(NULL);
    if (bytes) memcpy(copy, data, (size_t)bytes);
    v->storage = IR_CONST_INLINE;
    v->inline_data = copy;
    return VKML_OK;
  }
  if (c->n_blob == c->cap_blob) {
    int ncap = c->cap_blob ? c->cap_blob * 2 : 32;
    ir_value **nv = realloc(c->blob_vals, sizeof *nv * (size_t)ncap);
    if (!nv) return ir_oom(NULL);
    c->blob_vals = nv;
    const void **nd = realloc(c->blob_data, sizeof *nd * (size_t)ncap);
    if (!nd) return ir_oom(NULL);
    c->blob_data = nd;
    c->cap_blob = ncap;
  }
  v->storage = IR_CONST_BLOB;
  v->blob_offset = 0;
  c->blob_vals[c->n_blob] = v;
  c->blob_data[c->n_blob++] = data;
  return VKML_OK;
}

/* What one fold evaluated: each output value of the emitted nodes and its
 * bytes. */
typedef struct folded {
  ir_value **vals;
  void **data;
  int n, cap;
} folded;

static const void *folded_bytes(const folded *f, const ir_value *v) {
  for (int i = 0; i < f->n; i++)
    if (f->vals[i] == v) return f->data[i];
  return NULL;
}

static bool folded_add(folded *f, ir_value *v, void *data) {
  if (f->n == f->cap) {
    int ncap = f->cap ? 2 * f->cap : 8;
    ir_value **nv = realloc(f->vals, sizeof *nv * (size_t)ncap);
    if (nv) f->vals = nv;
    void **nd = nv ? realloc(f->data, sizeof *nd * (size_t)ncap) : NULL;
    if (nd) f->data = nd;
    if (!nv || !nd) return false;
    f->cap = ncap;
  }
  f->vals[f->n] = v;
  f->data[f->n++] = data;
  return true;
}

/* Evaluates nd on constant inputs into import-owned outputs; *ok false when
 * it cannot be (an input that is no constant, a bounded output, the
 * evaluator has no kernel for it). Any other evaluator error is the
 * model's (an index out of range in a constant): an INVALID_GRAPH error. */
static vkml_status eval_node(onnx_ctx *c, ir_node *nd, folded *f, bool *ok) {
  *ok = false;
  const void *ins[IR_MAX_NODE_OPERANDS];
  void *outs[IR_MAX_NODE_OPERANDS];
  if (nd->n_inputs > IR_MAX_NODE_OPERANDS || nd->n_outputs > IR_MAX_NODE_OPERANDS)
    return VKML_OK;
  for (int i = 0; i < nd->n_inputs; i++) {
    const ir_value *v = nd->inputs[i];
    ins[i] = ir_value_is_const(v) ? onnx_const_bytes(c, v) : folded_bytes(f, v);
    if (!ins[i] && ir_type_bytes(&v->type)) return VKML_OK;
  }
  for (int i = 0; i < nd->n_outputs; i++) {
    const ir_type *t = &nd->outputs[i]->type;
    if (t->bounded) return VKML_OK;
    outs[i] = onnx_alloc(c, (size_t)ir_type_bytes(t) + 1);
    if (!outs[i]) return ir_oom(NULL);
  }
  vkml_status s = c->opts->eval(c->opts->eval_user, nd, ins, outs);
  if (vkml_status_code(s) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(s); /* the node stays a node */
    return VKML_OK;
  }
  if (s) {
    vkml_status e = onnx_error(VKML_CODE_INVALID_GRAPH, "%s (evaluated at import: its inputs "
                               "are constant)", vkml_status_message(s));
    vkml_status_free(s);
    return e;
  }
  for (int i = 0; i < nd->n_outputs; i++)
    if (!folded_add(f, nd->outputs[i], outs[i])) return ir_oom(NULL);
  *ok = true;
  return VKML_OK;
}

/* The nodes the converter emitted (after `mark`) evaluated; when all of
 * them were, the ONNX outputs become constants and the nodes go. */
static vkml_status fold_emitted(onnx_ctx *c, onnx_node *n, ir_node *mark) {
  ir_node *first = mark ? mark->next : c->g->first;
  if (!first) return VKML_OK;
  folded f = {0};
  vkml_status s = VKML_OK;
  bool ok = true;
  for (ir_node *nd = first; nd && ok && !s; nd = nd->next) s = eval_node(c, nd, &f, &ok);
  for (int i = 0; !s && ok && i < onnx_n_outputs(n); i++) {
    if (!onnx_output_used(n, i)) continue;
    onnx_sym *sym = onnx_sym_get(c, n->p->output[i]);
    const void *data = sym && sym->v ? folded_bytes(&f, sym->v) : NULL;
    if (!data) continue; /* bound to something the fold did not make */
    s = make_const(c, sym->v, data);
    sym->is_const = true;
    sym->data = data;
    sym->type = sym->v->type;
  }
  if (!s && ok) {
    /* the nodes leave; outputs no sym kept are dropped at the end */
    for (ir_node *nd = first, *next; nd; nd = next) {
      next = nd->next;
      ir_node_remove(c->g, nd);
    }
  }
  free(f.vals);
  free(f.data);
  return s;
}

vkml_status onnx_fold_node(onnx_ctx *c, onnx_node *n, bool *done) {
  *done = false;
  const char *op = n->op->name;
  if (!n->in[0]) return VKML_OK;
  if (!strcmp(op, "Reshape") || !strcmp(op, "Flatten") || !strcmp(op, "Squeeze") ||
      !strcmp(op, "Unsqueeze")) {
    /* Same bytes, new shape: no copy, no size limit, no evaluator. */
    ir_type in = n->in[0]->type, t;
    in.bounded = false;
    int64_t axes[IR_MAX_RANK];
    int n_axes;
    VKML_RETURN_IF_ERROR(onnx_movement_type(c, n, &in, &t, axes, &n_axes));
    *done = true;
    return onnx_bind_const(c, n, 0, &t, n->in[0]->data, true);
  }
  if (!c->opts->eval || ir_type_numel(&n->in[0]->type) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  /* the kernels define x / 0 = 0 for integers (they must not trap on
   * data); a constant divisor of 0 is a broken model, said so here */
  if (!strcmp(op, "Div") && n->n_in == 2 && n->in[1] && !ir_dtype_is_float(n->in[1]->type.dtype))
    for (int64_t i = 0; i < ir_type_numel(&n->in[1]->type); i++)
      if (ir_dtype_load_i64(n->in[1]->type.dtype, n->in[1]->data, i) == 0)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "integer division by zero in a constant");
  ir_node *mark = c->g->last;
  VKML_RETURN_IF_ERROR(n->op->convert(c, n));
  *done = true;
  if (n->err) return VKML_OK; /* the driver reports it */
  return fold_emitted(c, n, mark);
}
