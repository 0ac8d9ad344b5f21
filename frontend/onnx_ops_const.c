/* The ONNX ops that only ever make constants (Constant, Shape, Size,
 * ConstantOfShape, Range): their converters bind constant outputs; no IR
 * node comes of them. */
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

/* Largest constant an op that only produces constants may make. */
#define CONST_MAX_ELEMENTS (INT64_C(1) << 24)

/* ir_type_check as a predicate (the status is freed). */
static bool type_ok(const ir_type *t) {
  vkml_status s = ir_type_check(t);
  vkml_status_free(s);
  return s == VKML_OK;
}

static void *out_alloc(onnx_ctx *c, const ir_type *t) {
  return onnx_alloc(c, (size_t)ir_type_bytes(t));
}

vkml_status onnx_convert_constant(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 0, 0));
  if (n->p->n_attribute != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "Constant needs exactly one "
                      "attribute, has %zu", n->p->n_attribute);
  const Onnx__AttributeProto *a = n->p->attribute[0];
  const char *name = onnx_str(a->name);
  ir_type t;
  const void *data;
  if (!strcmp(name, "value")) {
    if (!a->t)
      return onnx_error(VKML_CODE_PARSE, "attribute 'value' holds no tensor");
    VKML_RETURN_IF_ERROR(onnx_tensor_decode(c, a->t, &t, &data));
    return onnx_bind_const(c, n, 0, &t, data, true);
  }
  if (!strcmp(name, "value_float") || !strcmp(name, "value_int")) {
    bool f = name[6] == 'f';
    if (f) {
      float v = onnx_attr_f(n, name, 0);
      t = ir_type_make(IR_F32, 0, NULL);
      return onnx_bind_const(c, n, 0, &t, &v, false);
    }
    int64_t v = onnx_attr_i(n, name, 0);
    t = ir_type_make(IR_I64, 0, NULL);
    return onnx_bind_const(c, n, 0, &t, &v, false);
  }
  if (!strcmp(name, "value_floats")) {
    const float *v;
    int cnt = onnx_attr_floats(n, name, &v);
    int64_t d = cnt < 0 ? 0 : cnt;
    t = ir_type_make(IR_F32, 1, &d);
    float zero = 0;
    return onnx_bind_const(c, n, 0, &t, cnt > 0 ? (const void *)v : &zero, false);
  }
  if (!strcmp(name, "value_ints")) {
    const int64_t *v;
    int cnt = onnx_attr_ints(n, name, &v);
    int64_t d = cnt < 0 ? 0 : cnt, zero = 0;
    t = ir_type_make(IR_I64, 1, &d);
    return onnx_bind_const(c, n, 0, &t, cnt > 0 ? (const void *)v : &zero, false);
  }
  return onnx_error(VKML_CODE_UNSUPPORTED, "Constant with attribute '%s'", name);
}

vkml_status onnx_convert_shape(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  const ir_type *in = &n->in[0]->type;
  int64_t r = in->rank, b = onnx_attr_i(n, "start", 0), e = onnx_attr_i(n, "end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = b < 0 ? 0 : (b > r ? r : b);
  e = e < 0 ? 0 : (e > r ? r : e);
  int64_t cnt = e > b ? e - b : 0, dims[IR_MAX_RANK + 1];
  if (in->bounded && in->bounded_axis >= b && in->bounded_axis < e) {
    /* a size known at run time only: the shape op reads it on the device */
    ir_value *x, *s;
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SHAPE, &x, 1, cnt == r, &s));
    if (cnt == r) return onnx_bind(c, n, 0, s);
    ir_node *sl;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SLICE, &s, 1, 1, true, &sl));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sl, IR_A_STARTS, &b, 1));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sl, IR_A_ENDS, &e, 1));
    return onnx_done(c, n, sl);
  }
  for (int64_t i = 0; i < cnt; i++) dims[i] = in->dims[b + i];
  ir_type t = ir_type_make(IR_I64, 1, &cnt);
  return onnx_bind_const(c, n, 0, &t, dims, false);
}

vkml_status onnx_convert_size(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  if (n->in[0]->type.bounded) {
    /* the product of the run-time shape */
    ir_value *x, *s;
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SHAPE, &x, 1, false, &s));
    ir_node *p;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_REDUCE_PROD, &s, 1, 1, true, &p));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, p, IR_A_KEEPDIMS, 0));
    return onnx_done(c, n, p);
  }
  int64_t v = ir_type_numel(&n->in[0]->type);
  ir_type t = ir_type_make(IR_I64, 0, NULL);
  return onnx_bind_const(c, n, 0, &t, &v, false);
}

/* Constant bytes of type t, every element the one at vd. */
static vkml_status filled(onnx_ctx *c, const ir_type *t, const void *vd, char **out) {
  if (!type_ok(t) || ir_type_numel(t) > CONST_MAX_ELEMENTS)
    return onnx_error(VKML_CODE_UNSUPPORTED, "ConstantOfShape output too large");
  char *o = out_alloc(c, t);
  if (!o) return ir_oom(NULL);
  size_t es = ir_dtype_size(t->dtype);
  for (int64_t i = 0, m = ir_type_numel(t); i < m; i++) memcpy(o + (size_t)i * es, vd, es);
  *out = o;
  return VKML_OK;
}

/* A tensor of x's run-time shape broadcast with the value tensor vt, every
 * element the value: where(x as bool, value, value). ConstantOfShape(Shape(x))
 * of a bounded x (full_like) with a one-element value. */
static vkml_status fill_like(onnx_ctx *c, onnx_node *n, const ir_value *x, const ir_type *vt,
                             const void *vd, bool final, ir_value **out) {
  ir_value *xv = (ir_value *)x, *b, *v, *ins[3];
  ir_node *cast;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CAST, &xv, 1, 1, false, &cast));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, cast, IR_A_TO, IR_BOOL));
  VKML_RETURN_IF_ERROR(onnx_finish(c, cast));
  b = cast->outputs[0];
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "fill", vt, vd, &v));
  ins[0] = b;
  ins[1] = ins[2] = v;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_WHERE, ins, 3, 1, final, &nd));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

/* ConstantOfShape whose shape holds one size known at run time only, a
 * bounded axis of some value src (Concat(Shape(rois)[0], [C, 7, 7])): src
 * narrowed to that axis ([<=n] laid along the output's axis k, 1 elsewhere)
 * decides the size, where() broadcasts the value over the known dims. */
static vkml_status fill_runtime(onnx_ctx *c, onnx_node *n, int in, const ir_type *vt,
                                const void *vd, bool final, ir_value **out) {
  int64_t dims[IR_MAX_RANK];
  bool known[IR_MAX_RANK];
  const ir_value *src[IR_MAX_RANK];
  int axis[IR_MAX_RANK], cnt, k = -1;
  VKML_RETURN_IF_ERROR(onnx_partial_sizes(c, n, in, "shape", dims, known, src, axis, &cnt));
  for (int i = 0; i < cnt; i++) {
    if (known[i]) {
      if (dims[i] < 0)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = %lld is negative", i,
                          (long long)dims[i]);
      continue;
    }
    if (k >= 0 || !src[i])
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "input %d ('shape') is computed at run time%s", in,
                        k >= 0 ? " in more than one entry" : " from values the importer cannot follow");
    k = i;
  }
  if (k < 0) { /* computed at run time from sizes that are all static: a constant */
    ir_type ct = ir_type_make(vt->dtype, cnt, dims);
    char *o;
    VKML_RETURN_IF_ERROR(filled(c, &ct, vd, &o));
    return onnx_const_value(c, "fill", &ct, o, out);
  }
  /* src narrowed to its bounded axis: [<=n], then laid along axis k */
  ir_value *x = (ir_value *)src[k];
  int a = axis[k], r = x->type.rank;
  if (r > 1) {
    int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK];
    int m = 0;
    for (int d = 0; d < r; d++)
      if (d != a) {
        starts[m] = 0;
        ends[m] = 1;
        axes[m++] = d;
      }
    ir_node *sl;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SLICE, &x, 1, 1, false, &sl));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sl, IR_A_STARTS, starts, m));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sl, IR_A_ENDS, ends, m));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sl, IR_A_AXES, axes, m));
    VKML_RETURN_IF_ERROR(onnx_finish(c, sl));
    x = sl->outputs[0];
  }
  int64_t lay[IR_MAX_RANK], full[IR_MAX_RANK];
  for (int d = 0; d < cnt; d++) {
    lay[d] = d == k ? -1 : 1;
    full[d] = d == k ? 1 : dims[d];
  }
  ir_node *rs;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_RESHAPE, &x, 1, 1, false, &rs));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, rs, IR_A_SHAPE, lay, cnt));
  VKML_RETURN_IF_ERROR(onnx_finish(c, rs));
  ir_type ft = ir_type_make(vt->dtype, cnt, full);
  char *o;
  VKML_RETURN_IF_ERROR(filled(c, &ft, vd, &o));
  return fill_like(c, n, rs->outputs[0], &ft, o, final, out);
}

vkml_status onnx_fill_runtime(onnx_ctx *c, onnx_node *n, int in, const ir_type *vt,
                              const void *vd, bool final, ir_value **out) {
  if (n->in[in]->v && onnx_shape_source(n->in[in]->v))
    return fill_like(c, n, onnx_shape_source(n->in[in]->v), vt, vd, final, out);
  return fill_runtime(c, n, in, vt, vd, final, out);
}

vkml_status onnx_convert_constant_of_shape(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  ir_type vt = ir_type_make(IR_F32, 0, NULL);
  float zero = 0;
  const void *vd = &zero;
  const Onnx__AttributeProto *a = onnx_attr(n, "value");
  if (a) {
    if (!a->t) return onnx_error(VKML_CODE_PARSE, "attribute 'value' holds no tensor");
    VKML_RETURN_IF_ERROR(onnx_tensor_decode(c, a->t, &vt, &vd));
    if (ir_type_numel(&vt) != 1)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "value must hold one element");
  }
  if (!n->in[0]->is_const) {
    ir_type st = ir_type_make(vt.dtype, 0, NULL);
    ir_value *y;
    VKML_RETURN_IF_ERROR(onnx_fill_runtime(c, n, 0, &st, vd, true, &y));
    return onnx_bind(c, n, 0, y);
  }
  int64_t *dims;
  int cnt;
  VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 0, "shape", &dims, &cnt));
  if (cnt > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "ConstantOfShape of rank %d", cnt);
  for (int i = 0; i < cnt; i++)
    if (dims[i] < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = %lld is negative", i,
                        (long long)dims[i]);
  ir_type t = ir_type_make(vt.dtype, cnt, dims);
  char *o;
  VKML_RETURN_IF_ERROR(filled(c, &t, vd, &o));
  return onnx_bind_const(c, n, 0, &t, o, true);
}

/* Range(0, n, 1) with n a size known at run time only (arange of a count):
 * the exclusive cumsum of ones of that run-time shape, bounded. */
static vkml_status range_runtime(onnx_ctx *c, onnx_node *n) {
  const onnx_sym *b = n->in[0], *st = n->in[2];
  ir_dtype d = n->in[1]->type.dtype;
  if (!b->is_const || !st->is_const || !ir_dtype_is_int(d) || b->type.dtype != d ||
      st->type.dtype != d || ir_type_numel(&b->type) != 1 || ir_type_numel(&st->type) != 1 ||
      ir_dtype_load_i64(d, b->data, 0) != 0 || ir_dtype_load_i64(d, st->data, 0) != 1) {
    onnx_sym *s;
    VKML_RETURN_IF_ERROR(onnx_param(c, n, 1, "limit", &s));
    return onnx_error(VKML_CODE_INTERNAL, "Range: a run-time limit");
  }
  ir_type vt = ir_type_make(d, 0, NULL);
  uint8_t one[8] = {0};
  ir_dtype_store_i64(d, one, 0, 1);
  ir_value *ones;
  VKML_RETURN_IF_ERROR(onnx_fill_runtime(c, n, 1, &vt, one, false, &ones));
  ir_node *cs;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CUMSUM, &ones, 1, 1, true, &cs));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, cs, IR_A_AXIS, 0));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, cs, IR_A_EXCLUSIVE, 1));
  return onnx_done(c, n, cs);
}

vkml_status onnx_convert_range(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  onnx_sym *s[3];
  if (n->in[1] && !n->in[1]->is_const && n->in[0] && n->in[2]) {
    /* a limit the importer can still work out is a constant one */
    int64_t v[IR_MAX_RANK];
    bool known[IR_MAX_RANK];
    const ir_value *src[IR_MAX_RANK];
    int axis[IR_MAX_RANK], cnt = 0;
    vkml_status ps = onnx_partial_sizes(c, n, 1, "limit", v, known, src, axis, &cnt);
    bool runtime = !ps && cnt == 1 && !known[0] && src[0];
    vkml_status_free(ps);
    if (runtime) return range_runtime(c, n);
    if (cnt != 1 || !known[0]) {
      onnx_sym *p;
      VKML_RETURN_IF_ERROR(onnx_param(c, n, 1, "limit", &p)); /* its message */
      return onnx_error(VKML_CODE_INTERNAL, "Range: a run-time limit");
    }
    /* this node's view of the limit: a constant symbol (import-owned) */
    onnx_sym *lim = onnx_alloc(c, sizeof *lim);
    void *d = onnx_alloc(c, 8);
    if (!lim || !d) return ir_oom(NULL);
    *lim = *n->in[1];
    ir_dtype_store_i64(lim->type.dtype, d, 0, v[0]);
    lim->data = d;
    lim->is_const = true;
    lim->v = NULL;
    n->in[1] = lim;
  }
  static const char *const what[3] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; i++) {
    VKML_RETURN_IF_ERROR(onnx_param(c, n, i, what[i], &s[i]));
    if (ir_type_numel(&s[i]->type) != 1 || s[i]->type.dtype != s[0]->type.dtype)
      return onnx_error(VKML_CODE_INVALID_GRAPH,
                        "start, limit and delta must be scalars of one type");
  }
  ir_dtype d = s[0]->type.dtype;
  if (d == IR_BOOL) return onnx_error(VKML_CODE_INVALID_GRAPH, "Range of bool");
  int64_t cnt;
  if (ir_dtype_is_float(d)) {
    double b = ir_dtype_load_f64(d, s[0]->data, 0), e = ir_dtype_load_f64(d, s[1]->data, 0),
           st = ir_dtype_load_f64(d, s[2]->data, 0);
    double m = ceil((e - b) / st);
    if (st == 0 || isnan(m))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "Range with delta 0 or NaN bounds");
    if (m > (double)CONST_MAX_ELEMENTS)
      return onnx_error(VKML_CODE_UNSUPPORTED, "Range of %.0f elements", m);
    cnt = m > 0 ? (int64_t)m : 0;
  } else {
    int64_t b = ir_dtype_load_i64(d, s[0]->data, 0), e = ir_dtype_load_i64(d, s[1]->data, 0),
            st = ir_dtype_load_i64(d, s[2]->data, 0);
    if (st == 0) return onnx_error(VKML_CODE_INVALID_GRAPH, "Range with delta 0");
    double m = ceil(((double)e - (double)b) / (double)st);
    if (m > (double)CONST_MAX_ELEMENTS)
      return onnx_error(VKML_CODE_UNSUPPORTED, "Range of %.0f elements", m);
    cnt = m > 0 ? (int64_t)m : 0;
  }
  ir_type t = ir_type_make(d, 1, &cnt);
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  for (int64_t i = 0; i < cnt; i++) {
    if (ir_dtype_is_float(d))
      ir_dtype_store_f64(d, o, i, ir_dtype_load_f64(d, s[0]->data, 0) +
                                (double)i * ir_dtype_load_f64(d, s[2]->data, 0));
    else
      ir_dtype_store_i64(d, o, i, (int64_t)((uint64_t)ir_dtype_load_i64(d, s[0]->data, 0) +
                                      (uint64_t)i * (uint64_t)ir_dtype_load_i64(d, s[2]->data, 0)));
  }
  return onnx_bind_const(c, n, 0, &t, o, true);
}
