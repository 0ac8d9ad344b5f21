/* ONNX Einsum, lowered at import into ops that have kernels: transpose,
 * reshape, slice, matmul, mul and reduce_sum. There is no einsum IR op.
 *
 * Each operand's labels are made unique first (a label repeated within one
 * operand is a diagonal: its axes are made adjacent, merged, and sliced with
 * the stride that steps along the diagonal), and labels no other operand nor
 * the output needs are summed away. Operands are then contracted pairwise,
 * left to right: the labels both share and a later operand or the output
 * needs are batch axes, the shared rest are contracted, each side's own are
 * its rows or columns. Floats contract through a batched matmul; integers,
 * and floats without rows and columns or without anything to contract,
 * through a broadcast mul and a reduce_sum. A final transpose puts the
 * output's order.
 *
 * Semantics are numpy.einsum's, which the ONNX reference runs: size-1 axes
 * broadcast against any size, '...' axes align from the right, an implicit
 * output lists '...' and then the labels used once in character order.
 * Everything here is shapes: the arithmetic is the emitted ops'. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"

/* 'A'-'Z' are labels 0-25, 'a'-'z' 26-51 (character order: the implicit
 * output's), the axes '...' covers 52 on, aligned from the right. */
#define EIN_LETTERS 52
#define EIN_LABELS (EIN_LETTERS + IR_MAX_RANK)
/* Most letters one term may name (a rank-8 tensor names at most 8: longer
 * terms are refused against the rank, not truncated). */
#define EIN_TERM_MAX 64
#define EIN_MAX_OPERANDS 32

typedef uint64_t ein_set; /* a set of labels, bit l */

typedef struct ein_term {
  int n;                      /* letters (without '...') */
  int8_t lab[EIN_TERM_MAX];   /* letter labels in order */
  int ell;                    /* letters before '...', -1: no '...' */
} ein_term;

typedef struct ein_eq {
  int n_in;
  ein_term in[EIN_MAX_OPERANDS];
  bool explicit_out;          /* has "->" */
  ein_term out;
} ein_eq;

/* An operand during the lowering: a value and the label of each axis. */
typedef struct ein_op {
  ir_value *v;
  int input; /* the ONNX input v still is unchanged, else -1 */
  int rank;
  int8_t lab[IR_MAX_RANK];
} ein_op;

static const char *label_name(int l, char *buf, size_t bytes) {
  if (l < 26) snprintf(buf, bytes, "'%c'", 'A' + l);
  else if (l < EIN_LETTERS) snprintf(buf, bytes, "'%c'", 'a' + (l - 26));
  else snprintf(buf, bytes, "'...' axis %d", l - EIN_LETTERS);
  return buf;
}

/* ---- parsing ---------------------------------------------------------------- */

static vkml_status parse_term(const char *eq, const char *s, const char *e, ein_term *t) {
  memset(t, 0, sizeof *t);
  t->ell = -1;
  for (const char *p = s; p < e; p++) {
    if (*p == ' ') continue;
    if (*p == '.') {
      if (e - p < 3 || p[1] != '.' || p[2] != '.')
        return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': a '.' that is not part of "
                          "'...'", eq);
      if (t->ell >= 0)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': '...' twice in one term",
                          eq);
      t->ell = t->n;
      p += 2;
      continue;
    }
    int l;
    if (*p >= 'A' && *p <= 'Z') l = *p - 'A';
    else if (*p >= 'a' && *p <= 'z') l = 26 + (*p - 'a');
    else
      return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': unexpected character '%c'",
                        eq, *p);
    if (t->n == EIN_TERM_MAX)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': a term names more than %d "
                        "axes", eq, EIN_TERM_MAX);
    t->lab[t->n++] = (int8_t)l;
  }
  return VKML_OK;
}

static vkml_status parse_equation(const char *eq, ein_eq *q) {
  memset(q, 0, sizeof *q);
  const char *arrow = strstr(eq, "->");
  const char *lhs_end = arrow ? arrow : eq + strlen(eq);
  if (arrow && (strchr(arrow + 2, '-') || strchr(arrow + 2, '>') || strchr(arrow + 2, ',')))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': the output is one term after "
                      "one '->'", eq);
  for (const char *p = eq; p < lhs_end; p++)
    if (*p == '-' || *p == '>')
      return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': unexpected character '%c'",
                        eq, *p);
  const char *s = eq;
  for (;;) {
    const char *comma = memchr(s, ',', (size_t)(lhs_end - s));
    const char *e = comma ? comma : lhs_end;
    if (q->n_in == EIN_MAX_OPERANDS)
      return onnx_error(VKML_CODE_UNSUPPORTED, "equation '%s': more than %d operands", eq,
                        EIN_MAX_OPERANDS);
    VKML_RETURN_IF_ERROR(parse_term(eq, s, e, &q->in[q->n_in++]));
    if (!comma) break;
    s = comma + 1;
  }
  q->explicit_out = arrow != NULL;
  if (arrow) VKML_RETURN_IF_ERROR(parse_term(eq, arrow + 2, arrow + 2 + strlen(arrow + 2),
                                             &q->out));
  return VKML_OK;
}

/* ---- emitting ----------------------------------------------------------------- */

static int64_t dim_of(const ein_op *o, int axis) { return o->v->type.dims[axis]; }

static int axis_of(const ein_op *o, int l) {
  for (int i = 0; i < o->rank; i++)
    if (o->lab[i] == l) return i;
  return -1;
}

static ein_set labels_of(const ein_op *o) {
  ein_set s = 0;
  for (int i = 0; i < o->rank; i++) s |= (ein_set)1 << o->lab[i];
  return s;
}

static bool dims_equal(const ir_value *v, int rank, const int64_t *dims) {
  if (v->type.rank != rank) return false;
  for (int i = 0; i < rank; i++)
    if (v->type.dims[i] != dims[i]) return false;
  return true;
}

/* v reshaped to dims (v itself when it has them). */
static vkml_status reshape_to(onnx_ctx *c, onnx_node *n, ir_value **v, int rank,
                              const int64_t *dims) {
  if (dims_equal(*v, rank, dims)) return VKML_OK;
  if (rank > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an intermediate result needs rank %d, more "
                      "than %d", rank, IR_MAX_RANK);
  return onnx_reshape(c, n, *v, rank, dims, false, v);
}

/* o's axes permuted: axis i of the result is axis perm[i] of o. */
static vkml_status op_transpose(onnx_ctx *c, onnx_node *n, ein_op *o, const int *perm) {
  bool identity = true;
  int64_t p64[IR_MAX_RANK];
  int8_t lab[IR_MAX_RANK];
  for (int i = 0; i < o->rank; i++) {
    identity = identity && perm[i] == i;
    p64[i] = perm[i];
    lab[i] = o->lab[perm[i]];
  }
  if (identity) return VKML_OK;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_TRANSPOSE, &o->v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PERM, p64, o->rank));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  o->v = nd->outputs[0];
  o->input = -1;
  memcpy(o->lab, lab, sizeof lab);
  return VKML_OK;
}

/* o summed over the axes whose labels are in drop. */
static vkml_status op_sum(onnx_ctx *c, onnx_node *n, ein_op *o, ein_set drop) {
  int64_t axes[IR_MAX_RANK];
  int n_axes = 0, r = 0;
  for (int i = 0; i < o->rank; i++) {
    if (drop >> o->lab[i] & 1) axes[n_axes++] = i;
    else o->lab[r++] = o->lab[i];
  }
  if (!n_axes) return VKML_OK;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_REDUCE_SUM, &o->v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, axes, n_axes));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_KEEPDIMS, 0));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  o->v = nd->outputs[0];
  o->input = -1;
  o->rank = r;
  return VKML_OK;
}

/* o without its axis of label l, which has size 1 (it broadcasts). */
static vkml_status op_squeeze(onnx_ctx *c, onnx_node *n, ein_op *o, int l) {
  int64_t dims[IR_MAX_RANK];
  int r = 0;
  for (int i = 0; i < o->rank; i++)
    if (o->lab[i] != l) {
      dims[r] = dim_of(o, i);
      o->lab[r++] = o->lab[i];
    }
  VKML_RETURN_IF_ERROR(reshape_to(c, n, &o->v, r, dims));
  o->input = -1;
  o->rank = r;
  return VKML_OK;
}

/* The diagonal over each label o repeats: its k axes of size d side by side
 * and merged are d^k elements, of which the diagonal is every
 * (d^k - 1) / (d - 1)-th, from 0. */
static vkml_status op_diagonal(onnx_ctx *c, onnx_node *n, ein_op *o) {
  int perm[IR_MAX_RANK], n_perm = 0, n_uniq = 0, reps[IR_MAX_RANK];
  int8_t uniq[IR_MAX_RANK];
  bool seen[EIN_LABELS] = {false};
  for (int i = 0; i < o->rank; i++) {
    if (seen[o->lab[i]]) continue;
    seen[o->lab[i]] = true;
    uniq[n_uniq] = o->lab[i];
    reps[n_uniq] = 0;
    for (int j = i; j < o->rank; j++)
      if (o->lab[j] == o->lab[i]) {
        perm[n_perm++] = j;
        reps[n_uniq]++;
      }
    n_uniq++;
  }
  if (n_uniq == o->rank) return VKML_OK;
  VKML_RETURN_IF_ERROR(op_transpose(c, n, o, perm));
  int64_t merged[IR_MAX_RANK], starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK],
      steps[IR_MAX_RANK];
  int n_slice = 0, a = 0;
  for (int u = 0; u < n_uniq; u++) {
    int64_t d = dim_of(o, a), m = 1, step = 0;
    for (int k = 0; k < reps[u]; k++) {
      m *= d;
      step = step * d + 1;
    }
    merged[u] = m;
    if (d > 1 && reps[u] > 1) {
      axes[n_slice] = u;
      starts[n_slice] = 0;
      ends[n_slice] = m;
      steps[n_slice++] = step;
    }
    a += reps[u];
  }
  VKML_RETURN_IF_ERROR(reshape_to(c, n, &o->v, n_uniq, merged));
  o->input = -1;
  if (n_slice) {
    ir_node *nd;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SLICE, &o->v, 1, 1, false, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STARTS, starts, n_slice));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_ENDS, ends, n_slice));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, axes, n_slice));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STEPS, steps, n_slice));
    VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
    o->v = nd->outputs[0];
  }
  o->rank = n_uniq;
  memcpy(o->lab, uniq, sizeof uniq);
  return VKML_OK;
}

/* Labels of o in set, sorted by key (stable). */
static int pick(const ein_op *o, ein_set set, const int *key, int8_t *out) {
  int k = 0;
  for (int i = 0; i < o->rank; i++)
    if (set >> o->lab[i] & 1) out[k++] = o->lab[i];
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && key[out[j - 1]] > key[out[j]]; j--) {
      int8_t t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return k;
}

/* The product of a and b, summed over the labels they share that keep lacks:
 * *out has the shared kept labels (batch), then a's own, then b's own, each
 * group in the order of out_pos (the output's positions; others after). */
static vkml_status contract(onnx_ctx *c, onnx_node *n, ein_op *a, ein_op *b, ein_set keep,
                            const int *out_pos, ein_op *out) {
  ein_set both = labels_of(a) & labels_of(b);
  /* a shared label to sum that broadcasts on one side: that side does not
   * vary along it, so it leaves that side and is summed on the other */
  for (int l = 0; l < EIN_LABELS; l++) {
    if (!(both >> l & 1) || (keep >> l & 1)) continue;
    int64_t da = dim_of(a, axis_of(a, l)), db = dim_of(b, axis_of(b, l));
    if (da == db) continue;
    VKML_RETURN_IF_ERROR(op_squeeze(c, n, da == 1 ? a : b, l));
  }
  both = labels_of(a) & labels_of(b);
  VKML_RETURN_IF_ERROR(op_sum(c, n, a, labels_of(a) & ~both & ~keep));
  VKML_RETURN_IF_ERROR(op_sum(c, n, b, labels_of(b) & ~both & ~keep));
  ein_set sa = labels_of(a), sb = labels_of(b);
  int key_a[EIN_LABELS], key_b[EIN_LABELS], key_k[EIN_LABELS];
  for (int l = 0; l < EIN_LABELS; l++) key_a[l] = key_b[l] = key_k[l] = 0;
  for (int i = 0; i < a->rank; i++) {
    int l = a->lab[i];
    key_a[l] = out_pos[l] >= 0 ? out_pos[l] : EIN_LABELS + i;
    key_k[l] = i;
  }
  for (int i = 0; i < b->rank; i++) {
    int l = b->lab[i];
    key_b[l] = out_pos[l] >= 0 ? out_pos[l] : EIN_LABELS + i;
  }
  int8_t bt[IR_MAX_RANK], ml[IR_MAX_RANK], nl[IR_MAX_RANK], kl[IR_MAX_RANK];
  int n_bt = pick(a, sa & sb & keep, key_a, bt);
  int n_m = pick(a, sa & ~sb, key_a, ml);
  int n_n = pick(b, sb & ~sa, key_b, nl);
  int n_k = pick(a, sa & sb & ~keep, key_k, kl);
  if (n_bt + n_m + n_n > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an intermediate result needs rank %d, more "
                      "than %d", n_bt + n_m + n_n, IR_MAX_RANK);
  int64_t pm = 1, pn = 1, pk = 1, m_dims[IR_MAX_RANK], n_dims[IR_MAX_RANK];
  for (int i = 0; i < n_m; i++) pm *= m_dims[i] = dim_of(a, axis_of(a, ml[i]));
  for (int i = 0; i < n_n; i++) pn *= n_dims[i] = dim_of(b, axis_of(b, nl[i]));
  for (int i = 0; i < n_k; i++) pk *= dim_of(a, axis_of(a, kl[i]));
  /* floats with rows or columns and something to sum over go to matmul:
   * [bt, M, K] x [bt, K, N]; the rest multiply [bt, M, 1, K] by
   * [bt, 1, N, K] (the empty groups left out) and sum over K */
  bool mm = ir_dtype_is_float(a->v->type.dtype) && n_k > 0 && (n_m > 0 || n_n > 0);
  int perm[IR_MAX_RANK], r = 0;
  for (int i = 0; i < n_bt; i++) perm[r++] = axis_of(a, bt[i]);
  for (int i = 0; i < n_m; i++) perm[r++] = axis_of(a, ml[i]);
  for (int i = 0; i < n_k; i++) perm[r++] = axis_of(a, kl[i]);
  VKML_RETURN_IF_ERROR(op_transpose(c, n, a, perm));
  r = 0;
  for (int i = 0; i < n_bt; i++) perm[r++] = axis_of(b, bt[i]);
  if (mm)
    for (int i = 0; i < n_k; i++) perm[r++] = axis_of(b, kl[i]);
  for (int i = 0; i < n_n; i++) perm[r++] = axis_of(b, nl[i]);
  if (!mm)
    for (int i = 0; i < n_k; i++) perm[r++] = axis_of(b, kl[i]);
  VKML_RETURN_IF_ERROR(op_transpose(c, n, b, perm));
  /* the batch axes stay as they are (matmul and mul broadcast them), merged
   * into one only where the rank would pass the limit and neither side
   * broadcasts */
  int rank = n_bt + (mm ? 2 : (n_m > 0) + (n_n > 0) + (n_k > 0));
  bool merge = rank > IR_MAX_RANK;
  int64_t pbt = 1, bt_dims[IR_MAX_RANK];
  for (int i = 0; i < n_bt; i++) {
    int64_t da = dim_of(a, i), db = dim_of(b, i);
    merge = merge && da == db;
    bt_dims[i] = da > db ? da : db;
    pbt *= bt_dims[i];
  }
  int64_t da[IR_MAX_RANK + 3], db[IR_MAX_RANK + 3];
  int ra = 0, rb = 0;
  if (merge && n_bt) {
    da[ra++] = db[rb++] = pbt;
  } else {
    for (int i = 0; i < n_bt; i++) {
      da[ra++] = dim_of(a, i);
      db[rb++] = dim_of(b, i);
    }
  }
  if (mm) {
    da[ra++] = pm, da[ra++] = pk;
    db[rb++] = pk, db[rb++] = pn;
  } else {
    if (n_m) da[ra++] = pm, db[rb++] = 1;
    if (n_n) da[ra++] = 1, db[rb++] = pn;
    if (n_k) da[ra++] = pk, db[rb++] = pk;
  }
  VKML_RETURN_IF_ERROR(reshape_to(c, n, &a->v, ra, da));
  VKML_RETURN_IF_ERROR(reshape_to(c, n, &b->v, rb, db));
  ir_value *ins[2] = {a->v, b->v}, *y;
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, mm ? IR_OP_MATMUL : IR_OP_MUL, ins, 2, false, &y));
  if (!mm && n_k) {
    ir_node *nd;
    int64_t last = y->type.rank - 1;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_REDUCE_SUM, &y, 1, 1, false, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, &last, 1));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_KEEPDIMS, 0));
    VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
    y = nd->outputs[0];
  }
  /* back to one axis per label */
  int64_t dims[IR_MAX_RANK];
  memset(out, 0, sizeof *out);
  out->input = -1;
  for (int i = 0; i < n_bt; i++) dims[out->rank] = bt_dims[i], out->lab[out->rank++] = bt[i];
  for (int i = 0; i < n_m; i++) dims[out->rank] = m_dims[i], out->lab[out->rank++] = ml[i];
  for (int i = 0; i < n_n; i++) dims[out->rank] = n_dims[i], out->lab[out->rank++] = nl[i];
  VKML_RETURN_IF_ERROR(reshape_to(c, n, &y, out->rank, dims));
  out->v = y;
  return VKML_OK;
}

/* ---- the converter ------------------------------------------------------------- */

vkml_status onnx_convert_einsum(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, -1));
  const char *eq = onnx_attr_s(c, n, "equation", NULL);
  if (n->err) return VKML_OK; /* the driver reports it */
  if (!eq) return onnx_error(VKML_CODE_INVALID_GRAPH, "no 'equation' attribute");
  ein_eq *q = onnx_alloc(c, sizeof *q);
  if (!q) return ir_oom(NULL);
  VKML_RETURN_IF_ERROR(parse_equation(eq, q));
  if (q->n_in != n->n_in)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s' has %d operand%s, the node %d "
                      "input%s", eq, q->n_in, q->n_in == 1 ? "" : "s", n->n_in,
                      n->n_in == 1 ? "" : "s");
  ir_dtype dt = n->in[0]->type.dtype;
  for (int i = 0; i < n->n_in; i++) {
    if (!n->in[i]) return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is empty", i);
    const ir_type *t = &n->in[i]->type;
    if (t->dtype != dt)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is %s, input 0 %s: Einsum takes one "
                        "type", i, ir_dtype_name(t->dtype), ir_dtype_name(dt));
    if (!ir_dtype_is_float(dt) && !ir_dtype_is_int(dt))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is %s: Einsum takes numbers", i,
                        ir_dtype_name(dt));
    if (t->bounded)
      return onnx_error(VKML_CODE_UNSUPPORTED, "input %d ('%s') has a size known only at run "
                        "time (axis %d): the lowering needs static shapes", i, n->in[i]->name,
                        t->bounded_axis);
  }
  /* the axes '...' covers: as many as the widest operand's */
  int n_ell = 0;
  for (int i = 0; i < n->n_in; i++) {
    const ein_term *t = &q->in[i];
    int rank = n->in[i]->type.rank, e = rank - t->n;
    if (e < 0 || (t->ell < 0 && e != 0))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': operand %d names %d axes%s, "
                        "but input %d has rank %d", eq, i, t->n,
                        t->ell >= 0 ? " and '...'" : "", i, rank);
    if (e > n_ell) n_ell = e;
  }
  /* every operand's labels and sizes; size-1 axes broadcast */
  ein_op *ops = onnx_alloc(c, sizeof *ops * (size_t)n->n_in);
  if (!ops) return ir_oom(NULL);
  int64_t size[EIN_LABELS];
  int count[EIN_LABELS], size_from[EIN_LABELS];
  for (int l = 0; l < EIN_LABELS; l++) size[l] = -1, count[l] = 0, size_from[l] = -1;
  for (int i = 0; i < n->n_in; i++) {
    const ein_term *t = &q->in[i];
    ein_op *o = &ops[i];
    o->rank = n->in[i]->type.rank;
    o->input = i;
    int e = o->rank - t->n, r = 0;
    for (int k = 0; k <= t->n; k++) {
      if (k == t->ell)
        for (int j = 0; j < e; j++) o->lab[r++] = (int8_t)(EIN_LETTERS + n_ell - e + j);
      if (k < t->n) o->lab[r++] = t->lab[k];
    }
    int64_t mine[EIN_LABELS];
    for (int l = 0; l < EIN_LABELS; l++) mine[l] = -1;
    for (int k = 0; k < o->rank; k++) {
      int l = o->lab[k];
      int64_t d = n->in[i]->type.dims[k];
      char nb[32];
      if (l < EIN_LETTERS) count[l]++;
      if (mine[l] >= 0 && mine[l] != d)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': label %s repeats in "
                          "operand %d over axes of sizes %lld and %lld", eq,
                          label_name(l, nb, sizeof nb), i, (long long)mine[l], (long long)d);
      mine[l] = d;
      if (size[l] < 0 || size[l] == 1) {
        if (size[l] < 0 || d != 1) size[l] = d, size_from[l] = i;
      } else if (d != 1 && d != size[l]) {
        return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': label %s is %lld in "
                          "operand %d but %lld in operand %d", eq,
                          label_name(l, nb, sizeof nb), (long long)size[l], size_from[l],
                          (long long)d, i);
      }
    }
  }
  /* the output's labels */
  int8_t out_lab[EIN_LABELS];
  int out_rank = 0;
  if (q->explicit_out) {
    const ein_term *t = &q->out;
    if (t->ell < 0 && n_ell > 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': the operands' '...' covers "
                        "%d ax%s, but the output has no '...'", eq, n_ell,
                        n_ell == 1 ? "is" : "es");
    for (int k = 0; k <= t->n; k++) {
      if (k == t->ell)
        for (int j = 0; j < n_ell; j++) out_lab[out_rank++] = (int8_t)(EIN_LETTERS + j);
      if (k == t->n) break;
      int l = t->lab[k];
      char nb[32];
      if (size[l] < 0)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': output label %s is in no "
                          "operand", eq, label_name(l, nb, sizeof nb));
      for (int j = 0; j < out_rank; j++)
        if (out_lab[j] == l)
          return onnx_error(VKML_CODE_INVALID_GRAPH, "equation '%s': output label %s "
                            "repeats", eq, label_name(l, nb, sizeof nb));
      out_lab[out_rank++] = (int8_t)l;
    }
  } else {
    for (int j = 0; j < n_ell; j++) out_lab[out_rank++] = (int8_t)(EIN_LETTERS + j);
    for (int l = 0; l < EIN_LETTERS; l++)
      if (count[l] == 1) out_lab[out_rank++] = (int8_t)l;
  }
  if (out_rank > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "equation '%s': the output has rank %d, more than "
                      "%d", eq, out_rank, IR_MAX_RANK);
  int out_pos[EIN_LABELS];
  ein_set out_set = 0;
  for (int l = 0; l < EIN_LABELS; l++) out_pos[l] = -1;
  for (int j = 0; j < out_rank; j++) {
    out_pos[out_lab[j]] = j;
    out_set |= (ein_set)1 << out_lab[j];
  }

  /* each operand: its diagonals, then the sums nothing else needs */
  for (int i = 0; i < n->n_in; i++) {
    VKML_RETURN_IF_ERROR(onnx_input(c, n, i, &ops[i].v));
    VKML_RETURN_IF_ERROR(op_diagonal(c, n, &ops[i]));
  }
  for (int i = 0; i < n->n_in; i++) {
    ein_set others = out_set;
    for (int j = 0; j < n->n_in; j++)
      if (j != i) others |= labels_of(&ops[j]);
    VKML_RETURN_IF_ERROR(op_sum(c, n, &ops[i], labels_of(&ops[i]) & ~others));
  }
  /* left to right */
  ein_op acc = ops[0];
  for (int i = 1; i < n->n_in; i++) {
    ein_set keep = out_set;
    for (int j = i + 1; j < n->n_in; j++) keep |= labels_of(&ops[j]);
    ein_op next;
    VKML_RETURN_IF_ERROR(contract(c, n, &acc, &ops[i], keep, out_pos, &next));
    acc = next;
  }
  /* what is left is the output's labels, in some order */
  assert(labels_of(&acc) == out_set && acc.rank == out_rank);
  int perm[IR_MAX_RANK];
  for (int j = 0; j < out_rank; j++) perm[j] = axis_of(&acc, out_lab[j]);
  VKML_RETURN_IF_ERROR(op_transpose(c, n, &acc, perm));
  if (acc.input >= 0) return onnx_bind_sym(c, n, 0, n->in[acc.input]);
  return onnx_bind_named(c, n, 0, acc.v);
}
