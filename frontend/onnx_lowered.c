/* ONNX ops without an IR op of their own, lowered at import into ops that
 * have CPU and GPU kernels (as onnx_einsum.c and onnx_rnn.c do for theirs):
 *   Softsign         x / (1 + |x|)
 *   ThresholdedRelu  where(x > alpha, x, 0)
 *   Shrink           where(x < -lambd, x + bias, where(x > lambd, x - bias, 0))
 *   Celu             alpha * elu(x / alpha)          (elu's alpha 1)
 *   IsNaN            not(x == x)
 *   IsInf            x == +inf, x == -inf, or either (detect_positive/negative)
 *   DepthToSpace     reshape, transpose, reshape (DCR and CRD)
 *   SpaceToDepth     reshape, transpose, reshape
 *   Trilu            where(mask, x, 0), the mask a constant of the last two axes
 *   Hardmax          cast(argmax(x) == iota) along the axis (opsets 1-12: over the
 *                    input flattened to 2-D at the axis, as they define it)
 *   EyeLike          a constant
 *   LRN              x / (bias + alpha * avg_window(x^2))^beta, the window an average
 *                    pool over the channels counting its zero padding (= sum / size)
 *   MeanVarianceNormalization  ONNX's function body: (x - E[x]) / (sqrt(E[x^2] -
 *                    E[x]^2) + 1e-9) over the axes
 *   QuantizeLinear   cast(clip(round(x / scale) + zp)) to uint8 / int8 (per tensor or axis)
 *   DequantizeLinear (cast(x) - zp) * scale
 *   DynamicQuantizeLinear  ONNX's function body (scale and zero point from x's range)
 *   OneHot           where(indices' == iota, on, off), depth a constant
 * (MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv: onnx_quant.c.)
 * Each needs float inputs (f32; IsNaN / IsInf: f32) where it computes. */
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

static vkml_status need_f32(const onnx_node *n, int i) {
  if (n->in[i]->type.dtype != IR_F32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an input of %s (imported for f32 only)",
                      ir_dtype_name(n->in[i]->type.dtype));
  return VKML_OK;
}

/* A scalar f32 constant. */
static vkml_status fconst(onnx_ctx *c, float v, ir_value **out) {
  float *d = onnx_alloc(c, sizeof *d);
  if (!d) return ir_oom(NULL);
  *d = v;
  ir_type t = ir_type_make(IR_F32, 0, NULL);
  return onnx_const_value(c, "k", &t, d, out);
}

/* ---- elementwise ------------------------------------------------------------- */

vkml_status onnx_convert_softsign(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  ir_value *x, *a, *one, *den, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ABS, &x, 1, false, &a));
  VKML_RETURN_IF_ERROR(fconst(c, 1.0f, &one));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, a, one, &den));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, x, den, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_thresholded_relu(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  float alpha = onnx_attr_f(n, "alpha", 1.0f);
  VKML_RETURN_IF_ERROR(n->err);
  ir_value *x, *al, *zero, *g, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(fconst(c, alpha, &al));
  VKML_RETURN_IF_ERROR(fconst(c, 0.0f, &zero));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_GREATER, x, al, &g));
  VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, g, x, zero, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_shrink(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  float lambd = onnx_attr_f(n, "lambd", 0.5f), bias = onnx_attr_f(n, "bias", 0.0f);
  VKML_RETURN_IF_ERROR(n->err);
  ir_value *x, *lo, *hi, *b, *zero, *lt, *gt, *xp, *xm, *inner, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(fconst(c, -lambd, &lo));
  VKML_RETURN_IF_ERROR(fconst(c, lambd, &hi));
  VKML_RETURN_IF_ERROR(fconst(c, bias, &b));
  VKML_RETURN_IF_ERROR(fconst(c, 0.0f, &zero));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_LESS, x, lo, &lt));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_GREATER, x, hi, &gt));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, x, b, &xp));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, x, b, &xm));
  VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, gt, xm, zero, &inner));
  VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, lt, xp, inner, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_celu(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  float alpha = onnx_attr_f(n, "alpha", 1.0f);
  VKML_RETURN_IF_ERROR(n->err);
  if (!(alpha != 0.0f) || !isfinite(alpha))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "alpha %g (must be finite and non-zero)",
                      (double)alpha);
  ir_value *x, *al, *xs, *e, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(fconst(c, alpha, &al));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, x, al, &xs));
  ir_node *elu;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_ELU, &xs, 1, 1, false, &elu));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, elu, IR_A_ALPHA, 1.0f));
  VKML_RETURN_IF_ERROR(onnx_finish(c, elu));
  e = elu->outputs[0];
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, al, e, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_isnan(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  ir_value *x, *eq, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_EQUAL, x, x, &eq));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_NOT, &eq, 1, false, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_isinf(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  bool pos = onnx_attr_i(n, "detect_positive", 1) != 0;
  bool neg = onnx_attr_i(n, "detect_negative", 1) != 0;
  VKML_RETURN_IF_ERROR(n->err);
  const ir_type *t = &n->in[0]->type;
  if (!pos && !neg) { /* detects nothing: all false */
    if (t->bounded) return onnx_error(VKML_CODE_UNSUPPORTED, "an input sized at run time");
    ir_type bt = ir_type_make(IR_BOOL, t->rank, t->dims);
    void *z = onnx_alloc(c, (size_t)ir_type_numel(&bt) + 1);
    if (!z) return ir_oom(NULL);
    return onnx_bind_const(c, n, 0, &bt, z, true);
  }
  ir_value *x, *v, *inf, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  v = x;
  if (pos && neg) VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ABS, &x, 1, false, &v));
  VKML_RETURN_IF_ERROR(fconst(c, pos ? INFINITY : -INFINITY, &inf));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_EQUAL, v, inf, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* ---- rearrangements ---------------------------------------------------------------- */

/* x [N,C,H,W] with blocksize b: a static rank-4 input whose sizes divide. */
static vkml_status block_input(onnx_ctx *c, onnx_node *n, ir_value **x, int64_t *b) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  *b = onnx_attr_i(n, "blocksize", 0);
  VKML_RETURN_IF_ERROR(n->err);
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, x));
  const ir_type *t = &(*x)->type;
  if (*b < 1) return onnx_error(VKML_CODE_INVALID_GRAPH, "blocksize %lld", (long long)*b);
  if (t->rank != 4 || t->bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the input must be a rank-4 [N,C,H,W] tensor "
                      "of static shape, not rank %d%s", t->rank, t->bounded ? " bounded" : "");
  return VKML_OK;
}

vkml_status onnx_convert_depth_to_space(onnx_ctx *c, onnx_node *n) {
  ir_value *x, *r, *t, *y;
  int64_t b;
  VKML_RETURN_IF_ERROR(block_input(c, n, &x, &b));
  const char *mode = onnx_attr_s(c, n, "mode", "DCR");
  VKML_RETURN_IF_ERROR(n->err);
  bool crd = !strcmp(mode, "CRD");
  if (!crd && strcmp(mode, "DCR"))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "mode '%s' (DCR or CRD)", mode);
  const int64_t *d = x->type.dims;
  if (d[1] % (b * b))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%lld channels do not divide into blocks of %lld",
                      (long long)d[1], (long long)(b * b));
  int64_t cc = d[1] / (b * b);
  int64_t s_dcr[6] = {d[0], b, b, cc, d[2], d[3]}, p_dcr[6] = {0, 3, 4, 1, 5, 2};
  int64_t s_crd[6] = {d[0], cc, b, b, d[2], d[3]}, p_crd[6] = {0, 1, 4, 2, 5, 3};
  int64_t out[4] = {d[0], cc, d[2] * b, d[3] * b};
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 6, crd ? s_crd : s_dcr, false, &r));
  VKML_RETURN_IF_ERROR(onnx_transpose(c, n, r, crd ? p_crd : p_dcr, &t));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, t, 4, out, false, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_space_to_depth(onnx_ctx *c, onnx_node *n) {
  ir_value *x, *r, *t, *y;
  int64_t b;
  VKML_RETURN_IF_ERROR(block_input(c, n, &x, &b));
  const int64_t *d = x->type.dims;
  if (d[2] % b || d[3] % b)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%lldx%lld does not divide into blocks of %lld",
                      (long long)d[2], (long long)d[3], (long long)b);
  int64_t s[6] = {d[0], d[1], d[2] / b, b, d[3] / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
  int64_t out[4] = {d[0], d[1] * b * b, d[2] / b, d[3] / b};
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 6, s, false, &r));
  VKML_RETURN_IF_ERROR(onnx_transpose(c, n, r, p, &t));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, t, 4, out, false, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* ---- masks and constants ------------------------------------------------------------- */

vkml_status onnx_convert_trilu(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 2));
  bool upper = onnx_attr_i(n, "upper", 1) != 0;
  VKML_RETURN_IF_ERROR(n->err);
  int64_t k = 0;
  if (onnx_has_input(n, 1)) {
    const onnx_sym *ks = n->in[1];
    if (!ks->is_const || ir_type_numel(&ks->type) != 1 || !ir_dtype_is_int(ks->type.dtype))
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "k must be one integer known at import time (the mask is a constant)");
    k = (int64_t)ir_dtype_load_f64(ks->type.dtype, ks->data, 0);
  }
  ir_value *x;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  const ir_type *t = &x->type;
  if (t->rank < 2 || t->bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the input must have rank >= 2 and a static "
                      "shape, not rank %d%s", t->rank, t->bounded ? " bounded" : "");
  int64_t rows = t->dims[t->rank - 2], cols = t->dims[t->rank - 1];
  uint8_t *m = onnx_alloc(c, (size_t)(rows * cols + 1));
  if (!m) return ir_oom(NULL);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) m[i * cols + j] = upper ? j - i >= k : j - i <= k;
  int64_t md[2] = {rows, cols};
  ir_type mt = ir_type_make(IR_BOOL, 2, md);
  ir_value *mask, *zero, *y;
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "trilu_mask", &mt, m, &mask));
  void *z = onnx_alloc(c, 8);
  if (!z) return ir_oom(NULL);
  ir_type zt = ir_type_make(t->dtype, 0, NULL);
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "zero", &zt, z, &zero));
  VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, mask, x, zero, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_eye_like(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  int64_t k = onnx_attr_i(n, "k", 0);
  ir_dtype dt = n->in[0]->type.dtype;
  if (onnx_attr(n, "dtype")) {
    int64_t code = onnx_attr_i(n, "dtype", 0);
    if (!onnx_dtype_to_ir((int32_t)code, &dt))
      return onnx_error(VKML_CODE_UNSUPPORTED, "dtype %lld", (long long)code);
  }
  VKML_RETURN_IF_ERROR(n->err);
  const ir_type *t = &n->in[0]->type;
  if (t->rank != 2 || t->bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the input must be a 2-D tensor of static shape");
  ir_type ot = ir_type_make(dt, 2, t->dims);
  int64_t es = (int64_t)ir_dtype_size(dt), cnt = ir_type_numel(&ot);
  uint8_t *d = onnx_alloc(c, (size_t)(es * cnt + 8));
  if (!d) return ir_oom(NULL);
  for (int64_t i = 0; i < t->dims[0]; i++) {
    int64_t j = i + k;
    if (j >= 0 && j < t->dims[1]) ir_dtype_store_f64(dt, d, i * t->dims[1] + j, 1.0);
  }
  return onnx_bind_const(c, n, 0, &ot, d, true);
}

/* ---- Hardmax ---------------------------------------------------------------------- */

/* one-hot of the first maximum along axis of x (rank r). */
static vkml_status hardmax_along(onnx_ctx *c, onnx_node *n, ir_value *x, int axis,
                                 ir_value **out) {
  ir_node *am;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_ARGMAX, &x, 1, 1, false, &am));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, am, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, am, IR_A_KEEPDIMS, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, am));
  const ir_type *t = &x->type;
  int64_t len = t->dims[axis], dims[IR_MAX_RANK];
  for (int i = 0; i < t->rank; i++) dims[i] = i == axis ? len : 1;
  int64_t *iota = onnx_alloc(c, sizeof *iota * (size_t)(len + 1));
  if (!iota) return ir_oom(NULL);
  for (int64_t i = 0; i < len; i++) iota[i] = i;
  ir_type it = ir_type_make(IR_I64, t->rank, dims);
  ir_value *iv, *eq;
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "hardmax_iota", &it, iota, &iv));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_EQUAL, am->outputs[0], iv, &eq));
  return onnx_cast(c, n, eq, t->dtype, out);
}

vkml_status onnx_convert_hardmax(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  bool v13 = c->opset >= 13;
  int64_t axis = onnx_attr_i(n, "axis", v13 ? -1 : 1);
  VKML_RETURN_IF_ERROR(n->err);
  ir_value *x, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  const ir_type *t = &x->type;
  int r = t->rank;
  if (t->bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an input sized at run time");
  if (r < 1 || axis < -r || axis >= r)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld of a rank-%d input", (long long)axis,
                      r);
  if (axis < 0) axis += r;
  if (v13) {
    VKML_RETURN_IF_ERROR(hardmax_along(c, n, x, (int)axis, &y));
    return onnx_bind_named(c, n, 0, y);
  }
  /* opsets 1-12: over x as [prod(dims before axis), prod(dims from axis)] */
  int64_t d2[2] = {1, 1};
  for (int i = 0; i < r; i++) d2[i >= axis] *= t->dims[i];
  ir_value *x2, *h2;
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 2, d2, false, &x2));
  VKML_RETURN_IF_ERROR(hardmax_along(c, n, x2, 1, &h2));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, h2, r, t->dims, false, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* ---- normalizations ------------------------------------------------------------------- */

vkml_status onnx_convert_lrn(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  float alpha = onnx_attr_f(n, "alpha", 1e-4f), beta = onnx_attr_f(n, "beta", 0.75f);
  float bias = onnx_attr_f(n, "bias", 1.0f);
  int64_t size = onnx_attr_i(n, "size", 0);
  VKML_RETURN_IF_ERROR(n->err);
  if (size < 1) return onnx_error(VKML_CODE_INVALID_GRAPH, "size %lld (required, >= 1)",
                                  (long long)size);
  ir_value *x, *sq, *r4, *win, *back, *scaled, *based, *p, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  const ir_type *t = &x->type;
  if (t->rank < 2 || t->bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the input must be [N,C,...] of static shape");
  int64_t rest = 1;
  for (int i = 2; i < t->rank; i++) rest *= t->dims[i];
  /* the squares as [N,1,C,rest]: an average pool of size x 1 over C with
   * the window's zero padding counted is the window's sum / size */
  int64_t d4[4] = {t->dims[0], 1, t->dims[1], rest};
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x, x, &sq));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, sq, 4, d4, false, &r4));
  ir_node *pool;
  int64_t kern[2] = {size, 1}, strides[2] = {1, 1}, dil[2] = {1, 1};
  int64_t pads[4] = {(size - 1) / 2, 0, size - 1 - (size - 1) / 2, 0};
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_AVGPOOL, &r4, 1, 1, false, &pool));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, pool, IR_A_KERNEL, kern, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, pool, IR_A_STRIDES, strides, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, pool, IR_A_PADS, pads, 4));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, pool, IR_A_DILATIONS, dil, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, pool, IR_A_CEIL_MODE, 0));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, pool, IR_A_COUNT_INCLUDE_PAD, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, pool));
  win = pool->outputs[0];
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, win, t->rank, t->dims, false, &back));
  ir_value *al, *bi, *be;
  VKML_RETURN_IF_ERROR(fconst(c, alpha, &al));
  VKML_RETURN_IF_ERROR(fconst(c, bias, &bi));
  VKML_RETURN_IF_ERROR(fconst(c, beta, &be));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, back, al, &scaled));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, scaled, bi, &based));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_POW, based, be, &p));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, x, p, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_mvn(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  const int64_t *ax;
  int n_ax = onnx_attr_ints(n, "axes", &ax);
  VKML_RETURN_IF_ERROR(n->err);
  static const int64_t dflt[3] = {0, 2, 3};
  if (n_ax < 0) {
    ax = dflt;
    n_ax = 3;
  }
  ir_value *x, *m, *m2, *xx, *ex2, *var, *sd, *eps, *den, *dx, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_reduce(c, n, IR_OP_REDUCE_MEAN, x, ax, n_ax, true, &m));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, m, m, &m2));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x, x, &xx));
  VKML_RETURN_IF_ERROR(onnx_reduce(c, n, IR_OP_REDUCE_MEAN, xx, ax, n_ax, true, &ex2));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, ex2, m2, &var));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SQRT, &var, 1, false, &sd));
  VKML_RETURN_IF_ERROR(fconst(c, 1e-9f, &eps));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, sd, eps, &den));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, x, m, &dx));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, dx, den, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* ---- quantization (QDQ): computed in f32, as ONNX's reference does --------------- */

vkml_status onnx_per_axis(onnx_ctx *c, onnx_node *n, int i, const ir_type *x, int64_t axis,
                          ir_value **out) {
  VKML_RETURN_IF_ERROR(onnx_input(c, n, i, out));
  const ir_type *t = &(*out)->type;
  if (ir_type_numel(t) == 1 && t->rank <= 1) return VKML_OK;
  int r = x->rank;
  if (t->rank != 1 || r < 1 || axis < -r || axis >= r || x->bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "input %d: a scalar, or a 1-D tensor along axis %lld of the input", i,
                      (long long)axis);
  if (axis < 0) axis += r;
  if (t->dims[0] != x->dims[axis])
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d has %lld values for axis %lld of %lld",
                      i, (long long)t->dims[0], (long long)axis, (long long)x->dims[axis]);
  int64_t d[IR_MAX_RANK];
  for (int k = 0; k < r; k++) d[k] = k == axis ? t->dims[0] : 1;
  return onnx_input_reshaped(c, n, i, r, d, out);
}

vkml_status onnx_requantize(onnx_ctx *c, onnx_node *n, ir_value *v, ir_value *zpf, ir_dtype to,
                            ir_value **out) {
  ir_value *r, *s;
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ROUND, &v, 1, false, &r));
  if (zpf) VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, r, zpf, &r));
  ir_node *cl;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CLIP, &r, 1, 1, false, &cl));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, cl, IR_A_MIN, to == IR_U8 ? 0.0f : -128.0f));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, cl, IR_A_MAX, to == IR_U8 ? 255.0f : 127.0f));
  VKML_RETURN_IF_ERROR(onnx_finish(c, cl));
  s = cl->outputs[0];
  return onnx_cast(c, n, s, to, out);
}

/* Opset 21's block quantization (block_size) is refused by name. */
static vkml_status no_blocks(onnx_node *n) {
  if (onnx_attr_i(n, "block_size", 0) != 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "block quantization (block_size %lld)",
                      (long long)onnx_attr_i(n, "block_size", 0));
  return n->err;
}

vkml_status onnx_convert_quantize_linear(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  int64_t axis = onnx_attr_i(n, "axis", 1);
  VKML_RETURN_IF_ERROR(no_blocks(n));
  ir_dtype to = onnx_has_input(n, 2) ? n->in[2]->type.dtype : IR_U8;
  if (onnx_attr(n, "output_dtype")) { /* opset 21 */
    int64_t code = onnx_attr_i(n, "output_dtype", 0);
    ir_dtype od;
    if (!onnx_dtype_to_ir((int32_t)code, &od) || (onnx_has_input(n, 2) && od != to))
      return onnx_error(VKML_CODE_UNSUPPORTED, "output_dtype %lld%s", (long long)code,
                        onnx_has_input(n, 2) ? " (other than the zero point's)" : "");
    to = od;
  }
  if (to != IR_U8 && to != IR_I8)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a zero point of %s (uint8 and int8 are imported)",
                      ir_dtype_name(to));
  ir_dtype xt = n->in[0]->type.dtype;
  if (xt != IR_F32 && xt != IR_I32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an input of %s (float and int32 are imported)",
                      ir_dtype_name(xt));
  if (n->in[1]->type.dtype != IR_F32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a scale of %s (float is imported)",
                      ir_dtype_name(n->in[1]->type.dtype));
  ir_value *x, *xf, *sc, *zp = NULL, *zpf = NULL, *q, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, x, IR_F32, &xf));
  VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, 1, &x->type, axis, &sc));
  if (onnx_has_input(n, 2)) {
    VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, 2, &x->type, axis, &zp));
    VKML_RETURN_IF_ERROR(onnx_cast(c, n, zp, IR_F32, &zpf));
  }
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, xf, sc, &q));
  VKML_RETURN_IF_ERROR(onnx_requantize(c, n, q, zpf, to, &y));
  return onnx_bind_named(c, n, 0, y);
}

vkml_status onnx_convert_dequantize_linear(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  int64_t axis = onnx_attr_i(n, "axis", 1);
  VKML_RETURN_IF_ERROR(no_blocks(n));
  ir_dtype xt = n->in[0]->type.dtype;
  if (xt != IR_U8 && xt != IR_I8 && xt != IR_I32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an input of %s (uint8, int8 and int32 are "
                      "imported)", ir_dtype_name(xt));
  if (n->in[1]->type.dtype != IR_F32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a scale of %s (float is imported)",
                      ir_dtype_name(n->in[1]->type.dtype));
  ir_value *x, *xf, *sc, *zp, *zpf, *d, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, x, IR_F32, &xf));
  VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, 1, &x->type, axis, &sc));
  d = xf;
  if (onnx_has_input(n, 2)) {
    VKML_RETURN_IF_ERROR(onnx_per_axis(c, n, 2, &x->type, axis, &zp));
    VKML_RETURN_IF_ERROR(onnx_cast(c, n, zp, IR_F32, &zpf));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, xf, zpf, &d));
  }
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, d, sc, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* min or max over every axis of v, then against 0: a scalar. */
static vkml_status range_end(onnx_ctx *c, onnx_node *n, ir_value *v, bool max, ir_value *zero,
                             ir_value **out) {
  int64_t axes[IR_MAX_RANK];
  for (int i = 0; i < v->type.rank; i++) axes[i] = i;
  ir_value *r;
  VKML_RETURN_IF_ERROR(onnx_reduce(c, n, max ? IR_OP_REDUCE_MAX : IR_OP_REDUCE_MIN, v, axes,
                                   v->type.rank, false, &r));
  return onnx_op2(c, n, max ? IR_OP_MAX : IR_OP_MIN, r, zero, out);
}

/* ONNX's function body: the range [min(0, min x), max(0, max x)] onto 0..255. */
vkml_status onnx_convert_dynamic_quantize_linear(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  ir_value *x, *zero, *q255, *lo, *hi, *span, *scale, *mz, *izp, *zpr, *zpc, *zp8, *q, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  if (x->type.bounded || ir_type_numel(&x->type) == 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an empty input or one sized at run time");
  VKML_RETURN_IF_ERROR(fconst(c, 0.0f, &zero));
  VKML_RETURN_IF_ERROR(fconst(c, 255.0f, &q255));
  VKML_RETURN_IF_ERROR(range_end(c, n, x, false, zero, &lo));
  VKML_RETURN_IF_ERROR(range_end(c, n, x, true, zero, &hi));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, hi, lo, &span));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, span, q255, &scale));
  /* zero point: saturate(0 - lo / scale), rounded half to even */
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, lo, scale, &mz));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_SUB, zero, mz, &izp));
  ir_node *cl;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CLIP, &izp, 1, 1, false, &cl));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, cl, IR_A_MIN, 0.0f));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, cl, IR_A_MAX, 255.0f));
  VKML_RETURN_IF_ERROR(onnx_finish(c, cl));
  zpc = cl->outputs[0];
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ROUND, &zpc, 1, false, &zpr));
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, zpr, IR_U8, &zp8));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, x, scale, &q));
  VKML_RETURN_IF_ERROR(onnx_requantize(c, n, q, zpr, IR_U8, &y));
  VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, 0, y));
  if (onnx_output_used(n, 1)) VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, 1, scale));
  if (onnx_output_used(n, 2)) VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, 2, zp8));
  return VKML_OK;
}

/* ---- opsets 18-21's activations and GroupNormalization --------------------------- */

/* Gelu (opset 20): 0.5 x (1 + erf(x / sqrt 2)), spelled as the exporters
 * spell it (pass_fuse_activation folds it into an act=gelu), or with
 * approximate="tanh" 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
vkml_status onnx_convert_gelu(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  const char *ap = onnx_attr_s(c, n, "approximate", "none");
  VKML_RETURN_IF_ERROR(n->err);
  bool tanh_form = !strcmp(ap, "tanh");
  if (!tanh_form && strcmp(ap, "none"))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "approximate '%s' (none or tanh)", ap);
  ir_value *x, *one, *half, *t, *a, *m, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(fconst(c, 1.0f, &one));
  VKML_RETURN_IF_ERROR(fconst(c, 0.5f, &half));
  if (tanh_form) {
    ir_value *k3, *kp, *x2, *x3, *c3, *in, *s;
    VKML_RETURN_IF_ERROR(fconst(c, 0.044715f, &k3));
    VKML_RETURN_IF_ERROR(fconst(c, 0.7978845608028654f, &kp));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x, x, &x2));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x2, x, &x3));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x3, k3, &c3));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, x, c3, &in));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, in, kp, &s));
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_TANH, &s, 1, false, &t));
  } else {
    ir_value *r2, *d;
    VKML_RETURN_IF_ERROR(fconst(c, 1.4142135623730951f, &r2));
    VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_DIV, x, r2, &d));
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ERF, &d, 1, false, &t));
  }
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, t, one, &a));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x, a, &m));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, m, half, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* Mish (opset 18): x tanh(softplus(x)). */
vkml_status onnx_convert_mish(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  ir_value *x, *sp, *t, *y;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SOFTPLUS, &x, 1, false, &sp));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_TANH, &sp, 1, false, &t));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, x, t, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* GroupNormalization (opset 18: scale and bias per group; 21: per channel):
 * x [N,C,...] as [N,G,C/G*rest] through instance_norm (scale and bias per
 * group at 18, ones and zeros at 21), back to x's shape, then at 21 the
 * channels' scale and bias. */
vkml_status onnx_convert_group_norm(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  VKML_RETURN_IF_ERROR(need_f32(n, 0));
  int64_t g = onnx_attr_i(n, "num_groups", 0);
  float eps = onnx_attr_f(n, "epsilon", 1e-5f);
  VKML_RETURN_IF_ERROR(n->err);
  ir_value *x, *sc, *bi;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  const ir_type *t = &x->type;
  if (t->rank < 2 || t->bounded)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the input must be [N,C,...] of static shape");
  int64_t ch = t->dims[1];
  if (g < 1 || ch % g)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "num_groups %lld does not divide %lld channels",
                      (long long)g, (long long)ch);
  bool per_channel = c->opset >= 21;
  int64_t want = per_channel ? ch : g;
  for (int i = 1; i <= 2; i++) {
    const ir_type *p = &n->in[i]->type;
    if (p->rank != 1 || p->dims[0] != want || p->dtype != IR_F32)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "%s must be f32[%lld] (opset %lld: per %s)",
                        i == 1 ? "scale" : "bias", (long long)want, (long long)c->opset,
                        per_channel ? "channel" : "group");
  }
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 1, &sc));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 2, &bi));
  int64_t rest = 1;
  for (int i = 2; i < t->rank; i++) rest *= t->dims[i];
  int64_t d3[3] = {t->dims[0], g, ch / g * rest};
  ir_value *r3, *gs = sc, *gb = bi, *nrm, *back, *y;
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 3, d3, false, &r3));
  if (per_channel) {
    float *ones = onnx_alloc(c, sizeof *ones * (size_t)g), *zeros = onnx_alloc(c, sizeof *zeros * (size_t)g);
    if (!ones || !zeros) return ir_oom(NULL);
    for (int64_t i = 0; i < g; i++) ones[i] = 1.0f;
    ir_type vt = ir_type_make(IR_F32, 1, &g);
    VKML_RETURN_IF_ERROR(onnx_const_value(c, "group_ones", &vt, ones, &gs));
    VKML_RETURN_IF_ERROR(onnx_const_value(c, "group_zeros", &vt, zeros, &gb));
  }
  ir_value *ins[3] = {r3, gs, gb};
  ir_node *in;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_INSTANCE_NORM, ins, 3, 1, false, &in));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, in, IR_A_EPSILON, eps));
  VKML_RETURN_IF_ERROR(onnx_finish(c, in));
  nrm = in->outputs[0];
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, nrm, t->rank, t->dims, false, &back));
  if (!per_channel) return onnx_bind_named(c, n, 0, back);
  int64_t cd[IR_MAX_RANK];
  for (int i = 0; i < t->rank - 1; i++) cd[i] = i == 0 ? ch : 1;
  ir_value *scb, *bib, *m;
  VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 1, t->rank - 1, cd, &scb));
  VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 2, t->rank - 1, cd, &bib));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_MUL, back, scb, &m));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, m, bib, &y));
  return onnx_bind_named(c, n, 0, y);
}

/* ---- OneHot ---------------------------------------------------------------------- */

/* OneHot(indices, depth, values[off, on]; axis -1) with a depth known at
 * import (it sets the output's size): where(equal(idx', iota), on, off),
 * idx' = indices with negative ones moved up by depth (ONNX: indices in
 * [-depth, depth - 1]; others match no position), unsqueezed at the axis,
 * iota the depth positions along it. */
vkml_status onnx_convert_one_hot(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  int64_t axis = onnx_attr_i(n, "axis", -1);
  VKML_RETURN_IF_ERROR(n->err);
  const onnx_sym *ds = n->in[1];
  if (!ds->is_const || ir_type_numel(&ds->type) != 1)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a depth computed at run time (it sets the "
                      "output's size)");
  double dv = ir_dtype_load_f64(ds->type.dtype, ds->data, 0);
  if (!(dv >= 1) || dv > 1e9)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "depth %g", dv);
  int64_t depth = (int64_t)dv;
  ir_value *idx, *vals;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &idx));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 2, &vals));
  const ir_type *it = &idx->type;
  if (it->bounded || it->rank + 1 > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "indices sized at run time or of rank %d",
                      it->rank);
  if (ir_type_numel(&vals->type) != 2)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "values must hold 2 elements (off, on)");
  int r = it->rank + 1;
  if (axis < -r || axis >= r)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld for an output of rank %d",
                      (long long)axis, r);
  if (axis < 0) axis += r;
  /* indices as i64, negative ones + depth */
  ir_value *i64v, *zero, *dep, *neg, *up, *fixed;
  VKML_RETURN_IF_ERROR(onnx_cast(c, n, idx, IR_I64, &i64v));
  int64_t *z = onnx_alloc(c, 16);
  if (!z) return ir_oom(NULL);
  z[0] = 0, z[1] = depth;
  ir_type st = ir_type_make(IR_I64, 0, NULL);
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "zero", &st, &z[0], &zero));
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "depth", &st, &z[1], &dep));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_LESS, i64v, zero, &neg));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_ADD, i64v, dep, &up));
  VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, neg, up, i64v, &fixed));
  ir_node *un;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_UNSQUEEZE, &fixed, 1, 1, false, &un));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, un, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, un));
  int64_t dims[IR_MAX_RANK], *iota = onnx_alloc(c, sizeof *iota * (size_t)depth);
  if (!iota) return ir_oom(NULL);
  for (int i = 0; i < r; i++) dims[i] = i == axis ? depth : 1;
  for (int64_t i = 0; i < depth; i++) iota[i] = i;
  ir_type iot = ir_type_make(IR_I64, r, dims);
  ir_value *iv, *hit, *flat, *off, *on, *y;
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "onehot_iota", &iot, iota, &iv));
  VKML_RETURN_IF_ERROR(onnx_op2(c, n, IR_OP_EQUAL, un->outputs[0], iv, &hit));
  /* off and on: the two values as scalars */
  int64_t two = 2;
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, vals, 1, &two, false, &flat));
  ir_node *sp;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SPLIT, &flat, 1, 2, false, &sp));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, sp, IR_A_AXIS, 0));
  VKML_RETURN_IF_ERROR(onnx_finish(c, sp));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, sp->outputs[0], 0, NULL, false, &off));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, sp->outputs[1], 0, NULL, false, &on));
  VKML_RETURN_IF_ERROR(onnx_op3(c, n, IR_OP_WHERE, hit, on, off, &y));
  return onnx_bind_named(c, n, 0, y);
}
