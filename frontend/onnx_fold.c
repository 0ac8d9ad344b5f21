/* Constant folding at import: nodes whose inputs are all constant are
 * evaluated here (shape computations of exported models: Shape, Gather,
 * Concat, Cast, Unsqueeze, Slice, arithmetic, ...), so that a model with
 * dynamic shapes becomes static once its input shapes are fixed. Also the
 * converters of the ops that only exist as constants (Constant, Shape, Size,
 * ConstantOfShape, Range). Semantics match the CPU reference kernels. */
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

/* Largest constant an op that only produces constants may make. */
#define CONST_MAX_ELEMENTS (INT64_C(1) << 24)

typedef struct cten {
  ir_type t;
  const void *d;
} cten;

static cten in_const(const onnx_node *n, int i) {
  cten c = {n->in[i]->type, n->in[i]->data};
  c.t.bounded = false;
  return c;
}

/* ir_type_check as a predicate (the status is freed). */
static bool type_ok(const ir_type *t) {
  vkml_status s = ir_type_check(t);
  vkml_status_free(s);
  return s == VKML_OK;
}

static void *out_alloc(onnx_ctx *c, const ir_type *t) {
  return onnx_alloc(c, (size_t)ir_type_bytes(t));
}

/* ---- indexing helpers ------------------------------------------------------ */

static bool broadcast2(const ir_type *a, const ir_type *b, ir_type *out) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  *out = *a;
  out->rank = r;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out->dims[i] = da == 1 ? db : da;
  }
  return true;
}

/* Flat index into in (right-aligned, size-1 axes broadcast) of the element
 * at flat index i of out. */
static int64_t bcast_index(const ir_type *out, const ir_type *in, int64_t i) {
  int64_t idx = 0, stride = 1;
  for (int k = out->rank - 1, j = in->rank - 1; k >= 0; k--, j--) {
    int64_t coord = i % out->dims[k];
    i /= out->dims[k];
    if (j < 0) continue;
    if (in->dims[j] != 1) idx += coord * stride;
    stride *= in->dims[j];
  }
  return idx;
}

/* ---- elementwise ------------------------------------------------------------ */

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV, B_EQ, B_GT, B_LT, B_GE, B_LE,
               B_AND, B_OR, B_MIN, B_MAX } bop;

static bool binop_from_name(const char *op, bop *out) {
  static const char *const names[] = {"Add", "Sub", "Mul", "Div", "Equal",
                                      "Greater", "Less", "GreaterOrEqual",
                                      "LessOrEqual", "And", "Or", "Min", "Max"};
  for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
    if (strcmp(names[i], op) == 0) {
      *out = (bop)i;
      return true;
    }
  return false;
}

static vkml_status binary(onnx_ctx *c, bop op, const cten *a, const cten *b,
                          cten *out, bool *ok) {
  *ok = false;
  ir_dtype d = a->t.dtype;
  bool cmp = op >= B_EQ && op <= B_LE, logic = op == B_AND || op == B_OR;
  if (b->t.dtype != d || (logic && d != IR_BOOL) || (!logic && d == IR_BOOL))
    return VKML_OK;
  ir_type t;
  if (!broadcast2(&a->t, &b->t, &t)) return VKML_OK;
  if (cmp) t.dtype = IR_BOOL;
  if (ir_type_numel(&t) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  void *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  int64_t n = ir_type_numel(&t);
  bool fl = ir_dtype_is_float(d);
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = bcast_index(&t, &a->t, i), ib = bcast_index(&t, &b->t, i);
    if (fl) {
      double x = onnx_load_f(d, a->d, ia), y = onnx_load_f(d, b->d, ib), r = 0;
      switch (op) {
      case B_ADD: r = x + y; break;
      case B_SUB: r = x - y; break;
      case B_MUL: r = x * y; break;
      case B_DIV: r = x / y; break;
      case B_MIN: r = isnan(x) || isnan(y) ? NAN : (x < y ? x : y); break;
      case B_MAX: r = isnan(x) || isnan(y) ? NAN : (x > y ? x : y); break;
      case B_EQ: r = x == y; break;
      case B_GT: r = x > y; break;
      case B_LT: r = x < y; break;
      case B_GE: r = x >= y; break;
      case B_LE: r = x <= y; break;
      default: break;
      }
      onnx_store_f(t.dtype, o, i, r);
    } else {
      int64_t x = onnx_load_i(d, a->d, ia), y = onnx_load_i(d, b->d, ib), r = 0;
      uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
      switch (op) {
      case B_ADD: r = (int64_t)(ux + uy); break;
      case B_SUB: r = (int64_t)(ux - uy); break;
      case B_MUL: r = (int64_t)(ux * uy); break;
      case B_DIV:
        if (y == 0)
          return onnx_error(VKML_CODE_INVALID_GRAPH,
                            "integer division by zero in a constant");
        r = (x == INT64_MIN && y == -1) ? INT64_MIN : x / y;
        break;
      case B_MIN: r = x < y ? x : y; break;
      case B_MAX: r = x > y ? x : y; break;
      case B_EQ: r = x == y; break;
      case B_GT: r = x > y; break;
      case B_LT: r = x < y; break;
      case B_GE: r = x >= y; break;
      case B_LE: r = x <= y; break;
      case B_AND: r = x && y; break;
      case B_OR: r = x || y; break;
      }
      onnx_store_i(t.dtype, o, i, r);
    }
  }
  out->t = t;
  out->d = o;
  *ok = true;
  return VKML_OK;
}

static vkml_status fold_unary(onnx_ctx *c, onnx_node *n, bool *done) {
  cten a = in_const(n, 0);
  const char *op = n->op->name;
  ir_dtype d = a.t.dtype;
  bool fl = ir_dtype_is_float(d);
  bool float_only = !strcmp(op, "Sqrt") || !strcmp(op, "Floor") ||
                    !strcmp(op, "Ceil") || !strcmp(op, "Round");
  bool is_not = !strcmp(op, "Not");
  if (is_not != (d == IR_BOOL) || (float_only && !fl)) return VKML_OK;
  void *o = out_alloc(c, &a.t);
  if (!o) return ir_oom(NULL);
  int64_t cnt = ir_type_numel(&a.t);
  for (int64_t i = 0; i < cnt; i++) {
    if (fl) {
      double x = onnx_load_f(d, a.d, i), r;
      if (!strcmp(op, "Neg")) r = -x;
      else if (!strcmp(op, "Abs")) r = fabs(x);
      else if (!strcmp(op, "Sqrt")) r = sqrt(x);
      else if (!strcmp(op, "Floor")) r = floor(x);
      else if (!strcmp(op, "Ceil")) r = ceil(x);
      else r = nearbyint(x); /* Round: half to even */
      onnx_store_f(d, o, i, r);
    } else {
      int64_t x = onnx_load_i(d, a.d, i), r;
      if (!strcmp(op, "Neg")) r = (int64_t)(0 - (uint64_t)x);
      else if (!strcmp(op, "Abs")) r = x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
      else r = !x; /* Not */
      onnx_store_i(d, o, i, r);
    }
  }
  *done = true;
  return onnx_bind_const(c, n, 0, &a.t, o, true);
}

static vkml_status fold_cast(onnx_ctx *c, onnx_node *n, bool *done) {
  int64_t to = onnx_attr_i(n, "to", 0);
  ir_dtype d;
  if (to < 0 || to > INT32_MAX || !onnx_dtype_to_ir((int32_t)to, &d)) return VKML_OK;
  cten a = in_const(n, 0);
  ir_type t = a.t;
  t.dtype = d;
  void *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  int64_t cnt = ir_type_numel(&t);
  for (int64_t i = 0; i < cnt; i++) {
    if (ir_dtype_is_float(a.t.dtype))
      onnx_store_f(d, o, i, onnx_load_f(a.t.dtype, a.d, i));
    else
      onnx_store_i(d, o, i, onnx_load_i(a.t.dtype, a.d, i));
  }
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

static vkml_status fold_where(onnx_ctx *c, onnx_node *n, bool *done) {
  if (n->n_in != 3 || !n->in[1] || !n->in[2]) return VKML_OK;
  cten k = in_const(n, 0), x = in_const(n, 1), y = in_const(n, 2);
  if (k.t.dtype != IR_BOOL || x.t.dtype != y.t.dtype) return VKML_OK;
  ir_type t1, t;
  if (!broadcast2(&x.t, &y.t, &t1) || !broadcast2(&t1, &k.t, &t)) return VKML_OK;
  t.dtype = x.t.dtype;
  if (ir_type_numel(&t) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  void *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  size_t es = ir_dtype_size(t.dtype);
  for (int64_t i = 0, cnt = ir_type_numel(&t); i < cnt; i++) {
    bool pick = onnx_load_i(IR_BOOL, k.d, bcast_index(&t, &k.t, i));
    const cten *s = pick ? &x : &y;
    memcpy((char *)o + (size_t)i * es,
           (const char *)s->d + (size_t)bcast_index(&t, &s->t, i) * es, es);
  }
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

/* ---- data movement -------------------------------------------------------- */

static vkml_status fold_concat(onnx_ctx *c, onnx_node *n, bool *done) {
  cten a = in_const(n, 0);
  int rank = a.t.rank;
  int64_t axis = onnx_attr_i(n, "axis", 0);
  if (!onnx_attr(n, "axis") || axis < -rank || axis >= rank) return VKML_OK;
  if (axis < 0) axis += rank;
  ir_type t = a.t;
  t.dims[axis] = 0;
  for (int i = 0; i < n->n_in; i++) {
    if (!n->in[i]) return VKML_OK;
    const ir_type *it = &n->in[i]->type;
    if (it->dtype != t.dtype || it->rank != rank) return VKML_OK;
    for (int k = 0; k < rank; k++)
      if (k != axis && it->dims[k] != t.dims[k]) return VKML_OK;
    t.dims[axis] += it->dims[axis];
  }
  if (!type_ok(&t) || ir_type_numel(&t) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  int64_t outer = 1, inner = (int64_t)ir_dtype_size(t.dtype);
  for (int k = 0; k < axis; k++) outer *= t.dims[k];
  for (int k = (int)axis + 1; k < rank; k++) inner *= t.dims[k];
  size_t pos = 0;
  for (int64_t o_i = 0; o_i < outer; o_i++)
    for (int i = 0; i < n->n_in; i++) {
      size_t chunk = (size_t)(n->in[i]->type.dims[axis] * inner);
      if (chunk) memcpy(o + pos, (const char *)n->in[i]->data + (size_t)o_i * chunk, chunk);
      pos += chunk;
    }
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

static vkml_status fold_gather(onnx_ctx *c, onnx_node *n, bool *done) {
  if (n->n_in != 2 || !n->in[1]) return VKML_OK;
  cten a = in_const(n, 0), ix = in_const(n, 1);
  if (ix.t.dtype != IR_I32 && ix.t.dtype != IR_I64) return VKML_OK;
  int rank = a.t.rank;
  int64_t axis = onnx_attr_i(n, "axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank) return VKML_OK;
  if (axis < 0) axis += rank;
  if (rank - 1 + ix.t.rank > IR_MAX_RANK) return VKML_OK;
  ir_type t = a.t;
  t.rank = 0;
  for (int k = 0; k < axis; k++) t.dims[t.rank++] = a.t.dims[k];
  for (int k = 0; k < ix.t.rank; k++) t.dims[t.rank++] = ix.t.dims[k];
  for (int k = (int)axis + 1; k < rank; k++) t.dims[t.rank++] = a.t.dims[k];
  if (ir_type_numel(&t) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  int64_t outer = 1, inner = (int64_t)ir_dtype_size(t.dtype), dim = a.t.dims[axis];
  for (int k = 0; k < axis; k++) outer *= a.t.dims[k];
  for (int k = (int)axis + 1; k < rank; k++) inner *= a.t.dims[k];
  int64_t n_ix = ir_type_numel(&ix.t);
  size_t pos = 0;
  for (int64_t oi = 0; oi < outer; oi++)
    for (int64_t j = 0; j < n_ix; j++) {
      int64_t k = onnx_load_i(ix.t.dtype, ix.d, j);
      if (k < -dim || k >= dim)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "index %lld out of range [-%lld, "
                          "%lld)", (long long)k, (long long)dim, (long long)dim);
      if (k < 0) k += dim;
      memcpy(o + pos, (const char *)a.d + (size_t)((oi * dim + k) * inner), (size_t)inner);
      pos += (size_t)inner;
    }
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

vkml_status onnx_slice_resolve(int rank, const int64_t *dims,
                               const int64_t *starts, const int64_t *ends,
                               const int64_t *axes, const int64_t *steps,
                               int n, int64_t *start, int64_t *step,
                               int64_t *count) {
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < rank; i++) {
    start[i] = 0;
    step[i] = 1;
    count[i] = dims[i];
  }
  for (int i = 0; i < n; i++) {
    int64_t ax = axes ? axes[i] : i;
    if (ax < -rank || ax >= rank)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "slice axis %lld out of range for "
                        "rank %d", (long long)ax, rank);
    if (ax < 0) ax += rank;
    if (seen[ax])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "slice axis %lld repeated",
                        (long long)ax);
    seen[ax] = true;
    int64_t dim = dims[ax], st = steps ? steps[i] : 1, b = starts[i], e = ends[i];
    if (st == 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "step 0 on axis %lld", (long long)ax);
    /* ONNX: negative indices count from the end, then clamp to [0, dim]
     * (stepping forward) or [0, dim-1] / [-1, dim-1] (stepping back). */
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    int64_t cnt = 0;
    if (st > 0) {
      b = b < 0 ? 0 : (b > dim ? dim : b);
      e = e < 0 ? 0 : (e > dim ? dim : e);
      cnt = e > b ? (e - b - 1) / st + 1 : 0;
    } else if (dim > 0) {
      b = b < 0 ? 0 : (b > dim - 1 ? dim - 1 : b);
      e = e < -1 ? -1 : (e > dim - 1 ? dim - 1 : e);
      int64_t back = st == INT64_MIN ? INT64_MAX : -st;
      cnt = b > e ? (b - e - 1) / back + 1 : 0;
    }
    start[ax] = cnt ? b : 0;
    step[ax] = st;
    count[ax] = cnt;
  }
  return VKML_OK;
}

static vkml_status fold_slice(onnx_ctx *c, onnx_node *n, bool *done) {
  cten a = in_const(n, 0);
  ir_type t;
  int64_t start[IR_MAX_RANK], step[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(onnx_slice_type(c, n, &a.t, &t, start, step));
  if (ir_type_numel(&t) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  size_t es = ir_dtype_size(t.dtype);
  int64_t in_strides[IR_MAX_RANK], s = 1;
  for (int k = a.t.rank - 1; k >= 0; k--) {
    in_strides[k] = s;
    s *= a.t.dims[k];
  }
  for (int64_t i = 0, cnt = ir_type_numel(&t); i < cnt; i++) {
    int64_t rem = i, src = 0;
    for (int k = t.rank - 1; k >= 0; k--) {
      int64_t coord = rem % t.dims[k];
      rem /= t.dims[k];
      src += (start[k] + coord * step[k]) * in_strides[k];
    }
    memcpy(o + (size_t)i * es, (const char *)a.d + (size_t)src * es, es);
  }
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

static vkml_status fold_expand(onnx_ctx *c, onnx_node *n, bool *done) {
  if (n->n_in != 2) return VKML_OK;
  cten a = in_const(n, 0);
  int64_t *shape;
  int cnt;
  VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, "shape", &shape, &cnt));
  if (cnt > IR_MAX_RANK) return VKML_OK;
  ir_type st = ir_type_make(a.t.dtype, cnt, shape), t;
  for (int i = 0; i < cnt; i++)
    if (shape[i] < 0) return VKML_OK;
  if (!broadcast2(&a.t, &st, &t) || !type_ok(&t) ||
      ir_type_numel(&t) > ONNX_FOLD_MAX_ELEMENTS)
    return VKML_OK;
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  size_t es = ir_dtype_size(t.dtype);
  for (int64_t i = 0, m = ir_type_numel(&t); i < m; i++)
    memcpy(o + (size_t)i * es, (const char *)a.d + (size_t)bcast_index(&t, &a.t, i) * es, es);
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

static vkml_status fold_transpose(onnx_ctx *c, onnx_node *n, bool *done) {
  cten a = in_const(n, 0);
  int rank = a.t.rank;
  const int64_t *pv;
  int cnt = onnx_attr_ints(n, "perm", &pv);
  int perm[IR_MAX_RANK];
  bool used[IR_MAX_RANK] = {false};
  if (cnt >= 0 && cnt != rank) return VKML_OK;
  for (int i = 0; i < rank; i++) {
    int64_t p = cnt >= 0 ? pv[i] : rank - 1 - i;
    if (p < 0 || p >= rank || used[p]) return VKML_OK;
    used[p] = true;
    perm[i] = (int)p;
  }
  if (ir_type_numel(&a.t) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  ir_type t = a.t;
  int64_t in_strides[IR_MAX_RANK], s = 1;
  for (int k = rank - 1; k >= 0; k--) {
    in_strides[k] = s;
    s *= a.t.dims[k];
  }
  for (int i = 0; i < rank; i++) t.dims[i] = a.t.dims[perm[i]];
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  size_t es = ir_dtype_size(t.dtype);
  for (int64_t i = 0, m = ir_type_numel(&t); i < m; i++) {
    int64_t rem = i, src = 0;
    for (int k = rank - 1; k >= 0; k--) {
      src += (rem % t.dims[k]) * in_strides[perm[k]];
      rem /= t.dims[k];
    }
    memcpy(o + (size_t)i * es, (const char *)a.d + (size_t)src * es, es);
  }
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

/* ReduceProd over every axis (products of shape vectors). */
static vkml_status fold_reduce_prod(onnx_ctx *c, onnx_node *n, bool *done) {
  cten a = in_const(n, 0);
  const int64_t *axes;
  int cnt = onnx_attr_ints(n, "axes", &axes);
  if (n->n_in != 1 || (cnt >= 0 && cnt != a.t.rank) || !ir_dtype_is_int(a.t.dtype))
    return VKML_OK;
  int64_t p = 1;
  for (int64_t i = 0, m = ir_type_numel(&a.t); i < m; i++)
    p = (int64_t)((uint64_t)p * (uint64_t)onnx_load_i(a.t.dtype, a.d, i));
  bool keep = onnx_attr_i(n, "keepdims", 1) != 0;
  ir_type t = a.t;
  for (int i = 0; i < t.rank; i++) t.dims[i] = 1;
  if (!keep) t.rank = 0;
  void *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  onnx_store_i(t.dtype, o, 0, p);
  *done = true;
  return onnx_bind_const(c, n, 0, &t, o, true);
}

vkml_status onnx_fold_node(onnx_ctx *c, onnx_node *n, bool *done) {
  *done = false;
  const char *op = n->op->name;
  if (!n->in[0]) return VKML_OK;
  if (!strcmp(op, "Reshape") || !strcmp(op, "Flatten") || !strcmp(op, "Squeeze") ||
      !strcmp(op, "Unsqueeze")) {
    /* Same bytes, new shape: no copy, no size limit. */
    ir_type t;
    int64_t axes[IR_MAX_RANK];
    int n_axes;
    cten a = in_const(n, 0);
    VKML_RETURN_IF_ERROR(onnx_movement_type(c, n, &a.t, &t, axes, &n_axes));
    *done = true;
    return onnx_bind_const(c, n, 0, &t, a.d, true);
  }
  if (ir_type_numel(&n->in[0]->type) > ONNX_FOLD_MAX_ELEMENTS) return VKML_OK;
  bop b;
  if (binop_from_name(op, &b)) {
    /* Legacy axis broadcasting is left to the converter. */
    if (n->n_in < 1 || n->n_in > 64 || (c->opset < 7 && onnx_attr(n, "axis")))
      return VKML_OK;
    cten acc = in_const(n, 0);
    if (n->n_in == 1 && (b == B_MIN || b == B_MAX)) {
      *done = true;
      return onnx_bind_sym(c, n, 0, n->in[0]);
    }
    if (n->n_in != 2 && b != B_MIN && b != B_MAX) return VKML_OK;
    for (int i = 1; i < n->n_in; i++) {
      if (!n->in[i]) return VKML_OK;
      cten next = in_const(n, i), r;
      bool ok;
      VKML_RETURN_IF_ERROR(binary(c, b, &acc, &next, &r, &ok));
      if (!ok) return VKML_OK;
      acc = r;
    }
    *done = true;
    return onnx_bind_const(c, n, 0, &acc.t, acc.d, true);
  }
  if (!strcmp(op, "Neg") || !strcmp(op, "Abs") || !strcmp(op, "Sqrt") ||
      !strcmp(op, "Floor") || !strcmp(op, "Ceil") || !strcmp(op, "Round") ||
      !strcmp(op, "Not"))
    return n->n_in == 1 ? fold_unary(c, n, done) : VKML_OK;
  if (!strcmp(op, "Cast")) return n->n_in == 1 ? fold_cast(c, n, done) : VKML_OK;
  if (!strcmp(op, "Where")) return fold_where(c, n, done);
  if (!strcmp(op, "Concat")) return fold_concat(c, n, done);
  if (!strcmp(op, "Gather")) return fold_gather(c, n, done);
  if (!strcmp(op, "Slice")) return fold_slice(c, n, done);
  if (!strcmp(op, "Expand")) return fold_expand(c, n, done);
  if (!strcmp(op, "Transpose")) return n->n_in == 1 ? fold_transpose(c, n, done) : VKML_OK;
  if (!strcmp(op, "ReduceProd")) return fold_reduce_prod(c, n, done);
  return VKML_OK;
}

/* ---- ops that only make constants --------------------------------------- */

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
  if (in->bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "Shape of a tensor whose size is "
                      "known at run time only");
  int64_t r = in->rank, b = onnx_attr_i(n, "start", 0), e = onnx_attr_i(n, "end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = b < 0 ? 0 : (b > r ? r : b);
  e = e < 0 ? 0 : (e > r ? r : e);
  int64_t cnt = e > b ? e - b : 0, dims[IR_MAX_RANK + 1];
  for (int64_t i = 0; i < cnt; i++) dims[i] = in->dims[b + i];
  ir_type t = ir_type_make(IR_I64, 1, &cnt);
  return onnx_bind_const(c, n, 0, &t, dims, false);
}

vkml_status onnx_convert_size(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  if (n->in[0]->type.bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "Size of a tensor whose size is "
                      "known at run time only");
  int64_t v = ir_type_numel(&n->in[0]->type);
  ir_type t = ir_type_make(IR_I64, 0, NULL);
  return onnx_bind_const(c, n, 0, &t, &v, false);
}

vkml_status onnx_convert_constant_of_shape(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  int64_t *dims;
  int cnt;
  VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 0, "shape", &dims, &cnt));
  if (cnt > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "ConstantOfShape of rank %d", cnt);
  for (int i = 0; i < cnt; i++)
    if (dims[i] < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = %lld is negative", i,
                        (long long)dims[i]);
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
  ir_type t = ir_type_make(vt.dtype, cnt, dims);
  if (!type_ok(&t) || ir_type_numel(&t) > CONST_MAX_ELEMENTS)
    return onnx_error(VKML_CODE_UNSUPPORTED, "ConstantOfShape output too large");
  char *o = out_alloc(c, &t);
  if (!o) return ir_oom(NULL);
  size_t es = ir_dtype_size(t.dtype);
  for (int64_t i = 0, m = ir_type_numel(&t); i < m; i++) memcpy(o + (size_t)i * es, vd, es);
  return onnx_bind_const(c, n, 0, &t, o, true);
}

vkml_status onnx_convert_range(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  onnx_sym *s[3];
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
    double b = onnx_load_f(d, s[0]->data, 0), e = onnx_load_f(d, s[1]->data, 0),
           st = onnx_load_f(d, s[2]->data, 0);
    double m = ceil((e - b) / st);
    if (st == 0 || isnan(m))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "Range with delta 0 or NaN bounds");
    if (m > (double)CONST_MAX_ELEMENTS)
      return onnx_error(VKML_CODE_UNSUPPORTED, "Range of %.0f elements", m);
    cnt = m > 0 ? (int64_t)m : 0;
  } else {
    int64_t b = onnx_load_i(d, s[0]->data, 0), e = onnx_load_i(d, s[1]->data, 0),
            st = onnx_load_i(d, s[2]->data, 0);
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
      onnx_store_f(d, o, i, onnx_load_f(d, s[0]->data, 0) +
                                (double)i * onnx_load_f(d, s[2]->data, 0));
    else
      onnx_store_i(d, o, i, (int64_t)((uint64_t)onnx_load_i(d, s[0]->data, 0) +
                                      (uint64_t)i * (uint64_t)onnx_load_i(d, s[2]->data, 0)));
  }
  return onnx_bind_const(c, n, 0, &t, o, true);
}
