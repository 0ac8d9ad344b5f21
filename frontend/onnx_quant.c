/* ONNX's integer-product ops, lowered at import into ops that have CPU and
 * GPU kernels (as onnx_lowered.c does for QuantizeLinear/DequantizeLinear):
 *   MatMulInteger  (a - a_zp) @ (b - b_zp), int32
 *   ConvInteger    conv(x - x_zp, w - w_zp), int32 (pads are zeros after the
 *                  zero point is taken off, as ONNX's reference pads)
 *   QLinearMatMul  saturate(round((a - a_zp) @ (b - b_zp) * (a_scale * b_scale
 *                  / y_scale)) + y_zp), y_zp's type
 *   QLinearConv    the same on conv(x - x_zp, w - w_zp) + B (B int32)
 * u8 and i8 operands; zero points and scales per tensor, or per row of a /
 * per column of b / per output channel of w.
 *
 * Exact as ONNX's int32 accumulation: the centred operands are multiplied
 * in f32, over chunks of k small enough that no partial sum can pass 2^24 in
 * magnitude (f32 holds every integer up to it), and the chunks' sums are
 * cast to int32 and added there. The bound is taken from the data where an
 * operand is a constant (the weights): a chunk is exact when the most the
 * other operand can be off its zero point (its type's range, narrowed by a
 * constant zero point) times the chunk's sum of |w - zero point| stays within
 * 2^24 for every output channel / column; else from both types' ranges (at
 * most 255 * 255 per product: 258 products). So most layers of real models
 * stay one conv / matmul; a k past the bound becomes a batch of chunks
 * (matmul: k padded with zeros to equal chunks; conv: the input channels of a
 * group split into groups of their own, as pass_split_k splits a conv), plus
 * one int32 reduce_sum. A conv whose single channel passes the bound keeps
 * chunks of one channel (exact while its actual sums stay within 2^24).
 * The QLinear ops requantize in f32 (ONNX's reference in f64); where k is
 * one chunk they keep its f32 sums and add B in f32.
 *
 * --precision fp16 turns these f32 values into f16 as it turns every float
 * value: the integer results are then approximate (fp16 conformance runs skip
 * integer interfaces). */
#include "onnx_internal.h"

/* f32 sums of integers are exact up to this magnitude (see above). */
#define EXACT (INT64_C(1) << 24)

/* Where an operand lies among a node's inputs: the tensor and its zero
 * point (-1: no zero point input). */
typedef struct operand {
  int v, zp;
} operand;

static void q8_range(ir_dtype t, int64_t *lo, int64_t *hi) {
  *lo = t == IR_U8 ? 0 : -128;
  *hi = t == IR_U8 ? 255 : 127;
}

/* The most |v - zero point| of an element of operand o: its type's range,
 * narrowed by a zero point that is absent (0) or a constant. */
static int64_t span(const onnx_node *n, operand o) {
  int64_t lo, hi, r = 0;
  q8_range(n->in[o.v]->type.dtype, &lo, &hi);
  const onnx_sym *z = o.zp >= 0 && onnx_has_input(n, o.zp) ? n->in[o.zp] : NULL;
  if (z && !z->is_const) return hi - lo;
  int64_t cnt = z ? ir_type_numel(&z->type) : 1;
  for (int64_t k = 0; k < cnt; k++) {
    int64_t zp = z ? ir_dtype_load_i64(z->type.dtype, z->data, k) : 0;
    int64_t d = zp - lo > hi - zp ? zp - lo : hi - zp;
    if (d > r) r = d;
  }
  return r;
}

/* Whether operand o is a constant with a constant (or no) zero point. */
static bool known(const onnx_node *n, operand o) {
  return n->in[o.v]->is_const && (o.zp < 0 || !onnx_has_input(n, o.zp) || n->in[o.zp]->is_const);
}

/* Constant operand o viewed as [outer, kdim, inner] (its zero point one
 * value, or one per outer index (per_outer) or per inner index, modulo its
 * count): whether every chunk of len along k keeps other * sum |v - zp|
 * within EXACT. */
static bool chunks_exact(const onnx_node *n, operand o, int64_t outer, int64_t kdim, int64_t inner,
                         bool per_outer, int64_t len, int64_t other) {
  const onnx_sym *v = n->in[o.v];
  const onnx_sym *z = o.zp >= 0 && onnx_has_input(n, o.zp) ? n->in[o.zp] : NULL;
  int64_t zc = z ? ir_type_numel(&z->type) : 1, limit = EXACT / other;
  for (int64_t a = 0; a < outer; a++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t zp = z ? ir_dtype_load_i64(z->type.dtype, z->data, (per_outer ? a : i) % zc) : 0;
      int64_t sum = 0;
      for (int64_t k = 0; k < kdim; k++) {
        if (k % len == 0) sum = 0;
        int64_t d = ir_dtype_load_i64(v->type.dtype, v->data, (a * kdim + k) * inner + i) - zp;
        sum += d < 0 ? -d : d;
        if (sum > limit) return false;
      }
    }
  return true;
}

static bool is_q8(ir_dtype t) { return t == IR_U8 || t == IR_I8; }

static vkml_status need_q8(const onnx_node *n, int i, const char *what) {
  ir_dtype t = n->in[i]->type.dtype;
  if (!is_q8(t))
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s of %s (uint8 and int8 are imported)", what,
                      ir_dtype_name(t));
  return VKML_OK;
}

/* Operand o (named what) is u8 or i8, its zero point (may be omitted) of
 * its type. */
static vkml_status check_operand(const onnx_node *n, operand o, const char *what) {
  VKML_RETURN_IF_ERROR(need_q8(n, o.v, what));
  if (onnx_has_input(n, o.zp) && n->in[o.zp]->type.dtype != n->in[o.v]->type.dtype)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d (zero point) is %s, input %d %s", o.zp,
                      ir_dtype_name(n->in[o.zp]->type.dtype), o.v,
                      ir_dtype_name(n->in[o.v]->type.dtype));
  return VKML_OK;
}

/* n's input count within [min_in, max_in] and its two operands checked. */
static vkml_status check_operands(const onnx_node *n, int min_in, int max_in, operand a,
                                  const char *an, operand b, const char *bn) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, min_in, max_in));
  VKML_RETURN_IF_ERROR(check_operand(n, a, an));
  return check_operand(n, b, bn);
}

/* The operands' inputs: the Integer ops' (a or x, b or w, their zero
 * points), the QLinear ops' (a or x, b or w, with their scales between). */
static const operand INT_A = {0, 2}, INT_B = {1, 3}, QL_A = {0, 2}, QL_B = {3, 5};

static vkml_status need_scale(const onnx_node *n, int i) {
  if (n->in[i]->type.dtype != IR_F32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a scale of %s (float is imported)",
                      ir_dtype_name(n->in[i]->type.dtype));
  return VKML_OK;
}

/* Input i as f32 less its zero point (input z, when present), the zero
 * point one value or one per index of input i's axis `axis`. */
static vkml_status centred(onnx_ctx *c, onnx_node *n, int i, int z, int axis, ir_value **out) {
  ir_value *v, *zp, *zpf;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, i, &v));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, v, IR_F32, out));
  if (!onnx_has_input(n, z)) return VKML_OK;
  VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, z, &v->type, axis, &zp));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, zp, IR_F32, &zpf));
  return onnx_op2(c, n, IR_OP_SUB, *out, zpf, out);
}

/* A 1-D matmul operand (input i) has one row or column: its scale (input
 * sc, -1: none) and zero point (input z) must be one value each. */
static vkml_status vector_one_value(const onnx_node *n, int i, int sc, int z) {
  if (n->in[i]->type.rank != 1) return VKML_OK;
  if ((sc >= 0 && ir_type_numel(&n->in[sc]->type) != 1) ||
      (onnx_has_input(n, z) && ir_type_numel(&n->in[z]->type) != 1))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is 1-D: its scale and zero point must "
                      "be one value each", i);
  return VKML_OK;
}

/* ---- the exact integer products ------------------------------------------------- */

static vkml_status to_i32(onnx_ctx *c, onnx_node *n, ir_value *v, ir_value **out) {
  return onnx_cast(c, n, v, IR_I32, out);
}

/* The fewest equal chunks of k (a's last axis, b's second last: operands
 * oa, ob) whose f32 sums are exact. */
static int64_t matmul_chunks(const onnx_node *n, operand oa, operand ob, int64_t k) {
  int64_t sa = span(n, oa), sb = span(n, ob);
  const ir_type *ta = &n->in[oa.v]->type, *tb = &n->in[ob.v]->type;
  for (int64_t s = 1; s < k; s++) {
    int64_t len = (k + s - 1) / s;
    if (known(n, ob)) { /* b [batch, K, N], zero point per column */
      int64_t inner = tb->rank == 1 ? 1 : tb->dims[tb->rank - 1];
      if (chunks_exact(n, ob, ir_type_numel(tb) / (k * inner), k, inner, false, len, sa)) return s;
    } else if (known(n, oa)) { /* a [batch * M, K], zero point per row (of M) */
      if (chunks_exact(n, oa, ir_type_numel(ta) / k, k, 1, true, len, sb)) return s;
    } else if (len * sa * sb <= EXACT) {
      return s;
    }
  }
  return k;
}

/* a [..., M, K] @ b [..., K, N] of centred f32 values (operands oa, ob of
 * n), into int32 (either may be 1-D, as in numpy.matmul); with f32_ok, left
 * in f32 where k is one chunk (its values are the exact integers). */
static vkml_status matmul_exact(onnx_ctx *c, onnx_node *n, ir_value *a, ir_value *b, operand oa,
                                operand ob, bool f32_ok, ir_value **out) {
  int ra = a->type.rank, rb = b->type.rank;
  if (ra < 1 || rb < 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "matmul of a rank-%d and a rank-%d input", ra,
                      rb);
  if (a->type.bounded || b->type.bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "inputs sized at run time");
  bool a1 = ra == 1, b1 = rb == 1;
  if (a1) VKML_RETURN_IF_ERROR(onnx_reshape(c, n, a, 2, (int64_t[]){1, a->type.dims[0]}, false, &a));
  if (b1) VKML_RETURN_IF_ERROR(onnx_reshape(c, n, b, 2, (int64_t[]){b->type.dims[0], 1}, false, &b));
  ra = a->type.rank;
  rb = b->type.rank;
  int64_t k = a->type.dims[ra - 1];
  if (b->type.dims[rb - 2] != k)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "a has %lld columns, b %lld rows", (long long)k,
                      (long long)b->type.dims[rb - 2]);
  ir_value *y;
  int64_t s = matmul_chunks(n, oa, ob, k);
  if (s == 1) {
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MATMUL, a, b, &y));
    if (!f32_ok) VKML_RETURN_IF_ERROR(to_i32(c, n, y, &y));
  } else {
    /* k as s chunks of kc: a [..., M, s, kc] -> [..., s, M, kc], b [..., s,
     * kc, N]; the chunks' products [..., s, M, N] summed over s in int32 */
    int64_t kc = (k + s - 1) / s;
    int64_t d[IR_MAX_RANK + 1], perm[IR_MAX_RANK + 1];
    if (ra + 1 > IR_MAX_RANK || rb + 1 > IR_MAX_RANK)
      return onnx_error(VKML_CODE_UNSUPPORTED, "matmul of rank %d: its chunks of k need one "
                        "axis more", ra > rb ? ra : rb);
    VKML_RETURN_IF_ERROR(onnx_pad_axis(c, n, a, ra - 1, 0, s * kc - k, &a));
    VKML_RETURN_IF_ERROR(onnx_pad_axis(c, n, b, rb - 2, 0, s * kc - k, &b));
    for (int i = 0; i < ra - 1; i++) d[i] = a->type.dims[i];
    d[ra - 1] = s;
    d[ra] = kc;
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, a, ra + 1, d, false, &a));
    for (int i = 0; i < ra + 1; i++) perm[i] = i;
    perm[ra - 2] = ra - 1;
    perm[ra - 1] = ra - 2;
    VKML_RETURN_IF_ERROR(onnx_transpose(c, n, a, perm, &a));
    for (int i = 0; i < rb - 2; i++) d[i] = b->type.dims[i];
    d[rb - 2] = s;
    d[rb - 1] = kc;
    d[rb] = b->type.dims[rb - 1];
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, b, rb + 1, d, false, &b));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MATMUL, a, b, &y));
    VKML_RETURN_IF_ERROR(to_i32(c, n, y, &y));
    int64_t ax = y->type.rank - 3;
    VKML_RETURN_IF_ERROR(onnx_reduce(c, n, IR_OP_REDUCE_SUM, y, &ax, 1, false, &y));
  }
  if (a1 || b1) { /* numpy.matmul drops the axes it added */
    int r = y->type.rank, o = 0;
    int64_t d[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
      if (!((a1 && i == r - 2) || (b1 && i == r - 1))) d[o++] = y->type.dims[i];
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, o, d, false, &y));
  }
  *out = y;
  return VKML_OK;
}

/* conv(x, w) of centred f32 values (operands ox, ow of n) with n's
 * attributes, into int32: a group's input channels in the fewest chunks
 * whose f32 sums are exact; with f32_ok, left in f32 where they are one. */
static vkml_status conv_exact(onnx_ctx *c, onnx_node *n, ir_value *x, ir_value *w, operand ox,
                              operand ow, bool f32_ok, ir_value **out) {
  int64_t g = onnx_attr_i(n, "group", 1);
  VKML_RETURN_IF_ERROR(n->err);
  const ir_type *wt = &w->type;
  if (wt->rank < 3 || wt->rank > 4)
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s over %d spatial axes (1-D and 2-D are imported)",
                      n->op->name, wt->rank - 2);
  if (g < 1 || wt->dims[0] % g)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "group %lld does not divide the %lld output "
                      "channels", (long long)g, (long long)wt->dims[0]);
  int64_t m = wt->dims[0], cg = wt->dims[1], taps = 1, mg = m / g;
  for (int i = 2; i < wt->rank; i++) taps *= wt->dims[i];
  /* chunks: the fewest that divide cg and are exact */
  int64_t sx = span(n, ox), sw = span(n, ow), s = 1;
  for (; s < cg; s++) {
    if (cg % s) continue;
    int64_t len = (cg / s) * taps;
    if (known(n, ow) ? chunks_exact(n, ow, m, cg * taps, 1, true, len, sx)
                     : len * sx * sw <= EXACT)
      break;
  }
  ir_value *y;
  if (s == 1) {
    VKML_RETURN_IF_ERROR(onnx_conv_on(c, n, x, w, g, &y));
    if (f32_ok) {
      *out = y;
      return VKML_OK;
    }
    return to_i32(c, n, y, out);
  }
  /* w [g, mg, s, cc, taps] -> [g, s, mg, cc, taps] -> [g*s*mg, cc, kernel]:
   * output channel (gi*s + si)*mg + mi sees chunk si of group gi */
  int64_t cc = cg / s, d[5] = {g, mg, s, cc, taps};
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, w, 5, d, false, &w));
  VKML_RETURN_IF_ERROR(onnx_transpose(c, n, w, (const int64_t[]){0, 2, 1, 3, 4}, &w));
  int64_t wd[4] = {g * s * mg, cc, wt->dims[2], wt->rank == 4 ? wt->dims[3] : 0};
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, w, wt->rank, wd, false, &w));
  VKML_RETURN_IF_ERROR(onnx_conv_on(c, n, x, w, g * s, &y));
  /* [N, g*s*mg, spatial] -> [N, g, s, mg, P], summed over s in int32, ->
   * [N, m, spatial] */
  int r = y->type.rank;
  int64_t p = 1, yd[4] = {y->type.dims[0], m};
  for (int i = 2; i < r; i++) {
    yd[i] = y->type.dims[i];
    p *= yd[i];
  }
  int64_t pd[5] = {yd[0], g, s, mg, p};
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, 5, pd, false, &y));
  VKML_RETURN_IF_ERROR(to_i32(c, n, y, &y));
  int64_t ax = 2;
  VKML_RETURN_IF_ERROR(onnx_reduce(c, n, IR_OP_REDUCE_SUM, y, &ax, 1, false, &y));
  return onnx_reshape(c, n, y, r, yd, false, out);
}

/* ---- the converters -------------------------------------------------------------- */

vkml_status onnx_convert_matmul_integer(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(check_operands(n, 2, 4, INT_A, "A", INT_B, "B"));
  VKML_RETURN_IF_ERROR(vector_one_value(n, 0, -1, 2));
  VKML_RETURN_IF_ERROR(vector_one_value(n, 1, -1, 3));
  int ra = n->in[0]->type.rank, rb = n->in[1]->type.rank;
  ir_value *a, *b, *y;
  /* a's zero point per row (a's axis -2), b's per column (b's last) */
  VKML_RETURN_IF_ERROR(centred(c, n, 0, 2, ra >= 2 ? ra - 2 : 0, &a));
  VKML_RETURN_IF_ERROR(centred(c, n, 1, 3, rb - 1, &b));
  VKML_RETURN_IF_ERROR(matmul_exact(c, n, a, b, INT_A, INT_B, false, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_conv_integer(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(check_operands(n, 2, 4, INT_A, "x", INT_B, "w"));
  if (onnx_has_input(n, 2) && ir_type_numel(&n->in[2]->type) != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "x_zero_point must be one value");
  ir_value *x, *w, *y;
  VKML_RETURN_IF_ERROR(centred(c, n, 0, 2, 1, &x));
  VKML_RETURN_IF_ERROR(centred(c, n, 1, 3, 0, &w)); /* per output channel */
  VKML_RETURN_IF_ERROR(conv_exact(c, n, x, w, INT_A, INT_B, false, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* acc (int32, or f32 holding the exact integers) * (s1 * s2 / s3)
 * requantized to y_zp's type (s1, s2: the operands' scales, shaped like
 * their zero points; inputs i3, z3: y's). The product is f32 either way. */
static vkml_status qlinear_out(onnx_ctx *c, onnx_node *n, ir_value *acc, ir_value *s1,
                               ir_value *s2, int i3, int z3) {
  ir_dtype to = n->in[z3]->type.dtype;
  if (!is_q8(to))
    return onnx_error(VKML_CODE_UNSUPPORTED, "y_zero_point of %s (uint8 and int8 are imported)",
                      ir_dtype_name(to));
  if (ir_type_numel(&n->in[i3]->type) != 1 || ir_type_numel(&n->in[z3]->type) != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "y_scale and y_zero_point must be one value each");
  ir_value *s3, *z, *zf, *k, *v, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, i3, &s3));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, z3, &z));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, z, IR_F32, &zf));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, s1, s2, &k));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, k, s3, &k));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, acc, IR_F32, &v));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, v, k, &v));
  VKML_RETURN_IF_ERROR(onnx_requantize(c, n, v, zf, to, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
 * y_zero_point */
vkml_status onnx_convert_qlinear_matmul(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(check_operands(n, 8, 8, QL_A, "a", QL_B, "b"));
  VKML_RETURN_IF_ERROR(need_scale(n, 1));
  VKML_RETURN_IF_ERROR(need_scale(n, 4));
  VKML_RETURN_IF_ERROR(need_scale(n, 6));
  VKML_RETURN_IF_ERROR(vector_one_value(n, 0, 1, 2));
  VKML_RETURN_IF_ERROR(vector_one_value(n, 3, 4, 5));
  int ra = n->in[0]->type.rank, rb = n->in[3]->type.rank;
  int axa = ra >= 2 ? ra - 2 : 0, axb = rb - 1;
  ir_value *a, *b, *sa, *sb, *acc;
  VKML_RETURN_IF_ERROR(centred(c, n, 0, 2, axa, &a));
  VKML_RETURN_IF_ERROR(centred(c, n, 3, 5, axb, &b));
  VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, 1, &n->in[0]->type, axa, &sa));
  VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, 4, &n->in[3]->type, axb, &sb));
  VKML_RETURN_IF_ERROR(matmul_exact(c, n, a, b, QL_A, QL_B, true, &acc));
  return qlinear_out(c, n, acc, sa, sb, 6, 7);
}

/* inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
 * y_zero_point[, B] */
vkml_status onnx_convert_qlinear_conv(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(check_operands(n, 8, 9, QL_A, "x", QL_B, "w"));
  VKML_RETURN_IF_ERROR(need_scale(n, 1));
  VKML_RETURN_IF_ERROR(need_scale(n, 4));
  VKML_RETURN_IF_ERROR(need_scale(n, 6));
  if (ir_type_numel(&n->in[1]->type) != 1 || ir_type_numel(&n->in[2]->type) != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "x_scale and x_zero_point must be one value each");
  const ir_type *wt = &n->in[3]->type;
  ir_value *x, *w, *sx, *sw, *acc;
  VKML_RETURN_IF_ERROR(centred(c, n, 0, 2, 1, &x));
  VKML_RETURN_IF_ERROR(centred(c, n, 3, 5, 0, &w));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 1, &sx));
  /* w's scale per output channel: broadcast along y's channel axis */
  int64_t sd[IR_MAX_RANK] = {1};
  const ir_type *st = &n->in[4]->type;
  if (ir_type_numel(st) == 1) {
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 4, &sw));
  } else {
    if (st->rank != 1 || st->dims[0] != wt->dims[0])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "w_scale has %lld values for %lld output "
                        "channels", (long long)ir_type_numel(st), (long long)wt->dims[0]);
    for (int i = 1; i < wt->rank; i++) sd[i] = 1;
    sd[1] = wt->dims[0];
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 4, wt->rank, sd, &sw));
  }
  VKML_RETURN_IF_ERROR(conv_exact(c, n, x, w, QL_A, QL_B, true, &acc));
  if (onnx_has_input(n, 8)) {
    const ir_type *bt = &n->in[8]->type;
    if (bt->dtype != IR_I32 || bt->rank != 1 || bt->dims[0] != wt->dims[0])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "B must be int32 with one value per output "
                        "channel (%lld)", (long long)wt->dims[0]);
    int64_t bd[IR_MAX_RANK];
    for (int i = 0; i < wt->rank; i++) bd[i] = i == 1 ? wt->dims[0] : 1;
    ir_value *bias;
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 8, wt->rank, bd, &bias));
    /* added in acc's type: int32 (chunks), or f32 (rounded as the
     * requantization's product is) */
    VKML_RETURN_IF_ERROR(onnx_cast(c, n, bias, acc->type.dtype, &bias));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, acc, bias, &acc));
  }
  return qlinear_out(c, n, acc, sx, sw, 6, 7);
}
