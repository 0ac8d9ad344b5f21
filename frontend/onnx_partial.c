/* Partial evaluation of small integer lists computed at run time: what the
 * importer still knows of a Reshape's or ConstantOfShape's shape when part
 * of it is a size known at run time only (a bounded value's). */
#include <string.h>

#include "ir/params.h"
#include "onnx_internal.h"

enum { MAX_ELEMS = IR_MAX_RANK };

/* One element: known (val), or a run-time size: the bounded axis of src
 * (src NULL: unknown origin). */
typedef struct elem {
  bool known;
  int64_t val;
  const ir_value *src;
  int axis;
} elem;

static bool is_int_list(const ir_type *t) {
  return ir_dtype_is_int(t->dtype) && t->rank <= 1 && !t->bounded &&
         ir_type_numel(t) <= MAX_ELEMS;
}

static void walk(const onnx_ctx *c, const ir_value *v, elem *e, int *count, int depth);

/* Element k of a list of n (one element broadcasts), NULL past its end. */
static const elem *at(const elem *e, int n, int k) {
  return n == 1 ? &e[0] : k < n ? &e[k] : NULL;
}

/* The elements of p's inputs (short integer or bool lists), false if one
 * is not. */
static bool operands(const onnx_ctx *c, const ir_node *p, elem (*w)[MAX_ELEMS], int *nw,
                     int depth) {
  for (int i = 0; i < p->n_inputs && i < 3; i++) {
    const ir_type *t = &p->inputs[i]->type;
    if (!(ir_dtype_is_int(t->dtype) || t->dtype == IR_BOOL) || t->rank > 1 || t->bounded ||
        ir_type_numel(t) > MAX_ELEMS)
      return false;
    walk(c, p->inputs[i], w[i], &nw[i], depth + 1);
  }
  return true;
}

/* Elements of v (a short list): e[0..*count). */
static void walk(const onnx_ctx *c, const ir_value *v, elem *e, int *count, int depth) {
  int cnt = (int)ir_type_numel(&v->type);
  *count = cnt;
  for (int k = 0; k < cnt; k++) e[k] = (elem){0};
  if (depth > 64) return;
  if (ir_value_is_const(v)) {
    const void *d = onnx_const_bytes(c, v);
    for (int k = 0; d && k < cnt; k++) e[k] = (elem){true, ir_dtype_load_i64(v->type.dtype, d, k), NULL, 0};
    return;
  }
  const ir_node *p = v->producer;
  if (!p) return;
  elem in[MAX_ELEMS];
  int ic = 0;
  switch (p->op) {
  case IR_OP_SHAPE: {
    const ir_value *x = p->inputs[0];
    for (int k = 0; k < cnt && k < x->type.rank; k++) {
      bool rt = x->type.bounded && x->type.bounded_axis == k;
      e[k] = (elem){!rt, x->type.dims[k], rt ? x : NULL, k};
    }
    return;
  }
  case IR_OP_IDENTITY:
  case IR_OP_RESHAPE:
  case IR_OP_SQUEEZE:
  case IR_OP_UNSQUEEZE:
  case IR_OP_FLATTEN:
  case IR_OP_CAST:
    if (!is_int_list(&p->inputs[0]->type)) return;
    walk(c, p->inputs[0], in, &ic, depth + 1);
    for (int k = 0; k < cnt && k < ic; k++) e[k] = in[k];
    return;
  case IR_OP_CONCAT: {
    int at = 0;
    for (int i = 0; i < p->n_inputs; i++) {
      if (!is_int_list(&p->inputs[i]->type)) return;
      walk(c, p->inputs[i], in, &ic, depth + 1);
      for (int k = 0; k < ic && at < cnt; k++, at++) e[at] = in[k];
    }
    return;
  }
  case IR_OP_GATHER: {
    const ir_value *data = p->inputs[0], *idx = p->inputs[1];
    if (!is_int_list(&data->type) || data->type.rank != 1 || !ir_value_is_const(idx)) return;
    const void *id = onnx_const_bytes(c, idx);
    if (!id) return;
    walk(c, data, in, &ic, depth + 1);
    for (int k = 0; k < cnt; k++) {
      int64_t j = ir_dtype_load_i64(idx->type.dtype, id, k);
      if (j < 0) j += ic;
      if (j < 0 || j >= ic) return;
      e[k] = in[j];
    }
    return;
  }
  case IR_OP_SLICE: {
    const ir_value *data = p->inputs[0];
    ir_slice_params sp;
    if (!is_int_list(&data->type) || data->type.rank != 1) return;
    vkml_status st = ir_slice_params_get(p, &data->type, &sp);
    if (st) {
      vkml_status_free(st);
      return;
    }
    walk(c, data, in, &ic, depth + 1);
    for (int k = 0; k < cnt; k++) {
      int64_t j = sp.start[0] + k * sp.step[0];
      if (j < 0 || j >= ic) return;
      e[k] = in[j];
    }
    return;
  }
  case IR_OP_ADD:
  case IR_OP_SUB:
  case IR_OP_EQUAL:
  case IR_OP_WHERE: {
    /* elementwise on short lists (a one-element operand broadcasts) */
    elem w[3][MAX_ELEMS];
    int nw[3];
    if (!operands(c, p, w, nw, depth)) return;
    for (int k = 0; k < cnt; k++) {
      const elem *x = at(w[0], nw[0], k), *y = at(w[1], nw[1], k);
      if (!x || !y) return;
      if (p->op == IR_OP_WHERE) {
        const elem *z = at(w[2], nw[2], k);
        if (!z) return;
        if (x->known) e[k] = x->val ? *y : *z;
      } else if (x->known && y->known) {
        int64_t r = p->op == IR_OP_ADD   ? x->val + y->val
                    : p->op == IR_OP_SUB ? x->val - y->val
                                         : x->val == y->val;
        e[k] = (elem){true, r, NULL, 0};
      } else if (p->op == IR_OP_EQUAL) {
        /* a run-time size is never negative: equal to a negative constant
         * is false (exported Expand shapes: Where(Equal(shape, -1), 1, shape)) */
        if ((x->src && y->known && y->val < 0) || (y->src && x->known && x->val < 0))
          e[k] = (elem){true, 0, NULL, 0};
      } else if (y->known && y->val == 0) {
        e[k] = *x; /* a run-time size plus (minus) a known 0 is that size */
      } else if (p->op == IR_OP_ADD && x->known && x->val == 0) {
        e[k] = *y;
      }
    }
    return;
  }
  default:
    return;
  }
}

vkml_status onnx_partial_ints(onnx_ctx *c, onnx_node *n, int i, const char *what, int64_t *vals,
                              bool *known, int *count) {
  return onnx_partial_sizes(c, n, i, what, vals, known, NULL, NULL, count);
}

vkml_status onnx_partial_sizes(onnx_ctx *c, onnx_node *n, int i, const char *what,
                               int64_t *vals, bool *known, const ir_value **src, int *axis,
                               int *count) {
  if (!onnx_has_input(n, i))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d ('%s') is missing", i, what);
  onnx_sym *s = n->in[i];
  if (!is_int_list(&s->type))
    return onnx_error(VKML_CODE_UNSUPPORTED,
                      "input %d ('%s') must be a list of at most %d integers", i, what,
                      MAX_ELEMS);
  if (s->is_const) {
    *count = (int)ir_type_numel(&s->type);
    for (int k = 0; k < *count; k++) {
      vals[k] = ir_dtype_load_i64(s->type.dtype, s->data, k);
      known[k] = true;
      if (src) src[k] = NULL;
    }
    return VKML_OK;
  }
  ir_value *v;
  VKML_RETURN_IF_ERROR(onnx_sym_value(c, s, &v));
  elem e[MAX_ELEMS];
  walk(c, v, e, count, 0);
  for (int k = 0; k < *count; k++) {
    vals[k] = e[k].val;
    known[k] = e[k].known;
    if (src) src[k] = e[k].src;
    if (axis) axis[k] = e[k].axis;
  }
  return VKML_OK;
}

const ir_value *onnx_shape_source(const ir_value *v) {
  for (int depth = 0; v && v->producer && depth < 64; depth++) {
    const ir_node *p = v->producer;
    if (p->op == IR_OP_SHAPE) return p->inputs[0];
    if (p->op != IR_OP_IDENTITY && !(p->op == IR_OP_CAST && ir_dtype_is_int(v->type.dtype)))
      return NULL;
    v = p->inputs[0];
  }
  return NULL;
}
