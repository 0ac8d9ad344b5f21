/* Shape inference for neural-network ops: convolutions, gemm/matmul,
 * normalisations, pooling, softmax and resize. Attribute decoding and its
 * validation live in params.c; this file checks how inputs agree. All size
 * arithmetic is checked: attributes are untrusted. */
#include <string.h>

#include "infer.h"
#include "params.h"
#include "winograd.h"

static const char *const hw_names[2] = {"H", "W"};

static vkml_status want_float(const ir_node *n, const char *what, ir_dtype d) {
  if (ir_dtype_is_float(d)) return VKML_OK;
  return ir_infer_error("%s: %s must be f32 or f16, got %s", ir_op_name(n->op),
                        what, ir_dtype_name(d));
}

static vkml_status want_dtype(const ir_node *n, const char *what,
                              const ir_type *t, ir_dtype d) {
  if (t->dtype == d) return VKML_OK;
  return ir_infer_error("%s: %s is %s, expected %s like the input",
                        ir_op_name(n->op), what, ir_dtype_name(t->dtype),
                        ir_dtype_name(d));
}

static vkml_status want_rank(const ir_node *n, const char *what,
                             const ir_type *t, int rank) {
  if (t->rank == rank) return VKML_OK;
  char s[200];
  ir_dims_format(t, s, sizeof s);
  return ir_infer_error("%s: %s must have rank %d, got %s", ir_op_name(n->op),
                        what, rank, s);
}

/* Parameters per channel: rank 1 of size c, same dtype as x. */
static vkml_status want_vec(const ir_node *n, const char *what,
                            const ir_type *t, ir_dtype d, int64_t c) {
  VKML_RETURN_IF_ERROR(want_dtype(n, what, t, d));
  VKML_RETURN_IF_ERROR(want_rank(n, what, t, 1));
  if (t->dims[0] != c)
    return ir_infer_error("%s: %s has %lld entries, expected %lld",
                          ir_op_name(n->op), what, (long long)t->dims[0],
                          (long long)c);
  return VKML_OK;
}

/* Only `allowed` (-1: none) may be a bounded (capacity) axis of t. */
static vkml_status bounded_only(const ir_node *n, const char *what,
                                const ir_type *t, int allowed) {
  if (!t->bounded || t->bounded_axis == allowed) return VKML_OK;
  return ir_infer_error("%s: %s is bounded along axis %d, which this op "
                        "cannot take", ir_op_name(n->op), what, t->bounded_axis);
}

/* ---- convolutions ----------------------------------------------------------- */

static vkml_status conv_common(const ir_node *n, const ir_type *in,
                               ir_conv_params *p) {
  const ir_type *x = &in[0], *w = &in[1];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  VKML_RETURN_IF_ERROR(want_rank(n, "input", x, 4));
  VKML_RETURN_IF_ERROR(want_dtype(n, "weight", w, x->dtype));
  VKML_RETURN_IF_ERROR(want_rank(n, "weight", w, 4));
  VKML_RETURN_IF_ERROR(bounded_only(n, "input", x, 0));
  VKML_RETURN_IF_ERROR(bounded_only(n, "weight", w, -1));
  if (n->n_inputs > 2) VKML_RETURN_IF_ERROR(bounded_only(n, "bias", &in[2], -1));
  VKML_RETURN_IF_ERROR(ir_conv_params_get(n, w, p));
  if (x->dims[1] % p->group != 0)
    return ir_infer_error("%s: input has %lld channels, not divisible by group "
                          "%lld", ir_op_name(n->op), (long long)x->dims[1],
                          (long long)p->group);
  return VKML_OK;
}

vkml_status ir_infer_conv2d(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *w = &in[1];
  ir_conv_params p;
  VKML_RETURN_IF_ERROR(conv_common(n, in, &p));
  int64_t c = x->dims[1], m = w->dims[0], expect;
  if (!ir_checked_mul(w->dims[1], p.group, &expect))
    return ir_infer_error("conv2d: input has %lld channels but weight expects "
                          "%lld per group (group %lld)", (long long)c,
                          (long long)w->dims[1], (long long)p.group);
  if (expect != c)
    return ir_infer_error("conv2d: input has %lld channels but weight expects "
                          "%lld (group %lld)", (long long)c, (long long)expect,
                          (long long)p.group);
  if (m % p.group != 0)
    return ir_infer_error("conv2d: %lld output channels not divisible by group "
                          "%lld", (long long)m, (long long)p.group);
  if (n->n_inputs > 2)
    VKML_RETURN_IF_ERROR(want_vec(n, "bias", &in[2], x->dtype, m));
  ir_type o = *x;
  o.dims[1] = m;
  for (int i = 0; i < 2; i++) {
    int64_t ext, padded;
    if (!ir_checked_mul(p.kernel[i] - 1, p.dilations[i], &ext) ||
        !ir_checked_add(ext, 1, &ext) ||
        !ir_checked_add(x->dims[2 + i], p.pads[i], &padded) ||
        !ir_checked_add(padded, p.pads[i + 2], &padded))
      return ir_infer_error("conv2d: sizes along %s overflow", hw_names[i]);
    if (padded < ext)
      return ir_infer_error("conv2d: kernel extent %lld (kernel %lld, dilation "
                            "%lld) is larger than the padded input %lld along %s",
                            (long long)ext, (long long)p.kernel[i],
                            (long long)p.dilations[i], (long long)padded,
                            hw_names[i]);
    o.dims[2 + i] = (padded - ext) / p.strides[i] + 1;
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_conv2d_winograd(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *u = &in[1];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  VKML_RETURN_IF_ERROR(want_rank(n, "input", x, 4));
  VKML_RETURN_IF_ERROR(want_dtype(n, "transformed weight", u, x->dtype));
  VKML_RETURN_IF_ERROR(want_rank(n, "transformed weight", u, 3));
  VKML_RETURN_IF_ERROR(bounded_only(n, "input", x, 0));
  VKML_RETURN_IF_ERROR(bounded_only(n, "transformed weight", u, -1));
  ir_conv_params p;
  int m;
  VKML_RETURN_IF_ERROR(ir_winograd_params_get(n, &p, &m));
  int64_t a = m + 2;
  if (u->dims[0] != a * a || u->dims[1] != x->dims[1])
    return ir_infer_error("conv2d_winograd: transformed weight is [%lld,%lld,%lld], expected "
                          "[%lld, %lld input channels, output channels]",
                          (long long)u->dims[0], (long long)u->dims[1], (long long)u->dims[2],
                          (long long)(a * a), (long long)x->dims[1]);
  int64_t k = u->dims[2];
  if (n->n_inputs > 2) {
    VKML_RETURN_IF_ERROR(bounded_only(n, "bias", &in[2], -1));
    VKML_RETURN_IF_ERROR(want_vec(n, "bias", &in[2], x->dtype, k));
  }
  const int64_t *pads = p.pads;
  ir_type o = *x;
  o.dims[1] = k;
  for (int i = 0; i < 2; i++) {
    int64_t padded;
    if (!ir_checked_add(x->dims[2 + i], pads[i], &padded) ||
        !ir_checked_add(padded, pads[i + 2], &padded))
      return ir_infer_error("conv2d_winograd: sizes along %s overflow", hw_names[i]);
    if (padded < 3)
      return ir_infer_error("conv2d_winograd: the 3x3 kernel is larger than the padded "
                            "input %lld along %s",
                            (long long)padded, hw_names[i]);
    o.dims[2 + i] = padded - 2;
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_conv_transpose2d(const ir_node *n, const ir_type *in,
                                      ir_type *out) {
  const ir_type *x = &in[0], *w = &in[1];
  ir_conv_params p;
  VKML_RETURN_IF_ERROR(conv_common(n, in, &p));
  int64_t c = x->dims[1], m;
  if (w->dims[0] != c)
    return ir_infer_error("conv_transpose2d: input has %lld channels but weight "
                          "expects %lld", (long long)c, (long long)w->dims[0]);
  if (!ir_checked_mul(w->dims[1], p.group, &m))
    return ir_infer_error("conv_transpose2d: output channels overflow");
  if (n->n_inputs > 2)
    VKML_RETURN_IF_ERROR(want_vec(n, "bias", &in[2], x->dtype, m));
  ir_type o = *x;
  o.dims[1] = m;
  for (int i = 0; i < 2; i++) {
    /* s*(H-1) + op + (k-1)*d + 1 - pt - pb */
    int64_t h = x->dims[2 + i], a, b, r;
    if (h < 1)
      return ir_infer_error("conv_transpose2d: input is empty along %s",
                            hw_names[i]);
    if (!ir_checked_mul(p.strides[i], h - 1, &a) ||
        !ir_checked_mul(p.kernel[i] - 1, p.dilations[i], &b) ||
        !ir_checked_add(a, b, &r) ||
        !ir_checked_add(r, p.output_padding[i] + 1, &r))
      return ir_infer_error("conv_transpose2d: sizes along %s overflow",
                            hw_names[i]);
    r = r - p.pads[i] - p.pads[i + 2]; /* pads <= 2^40 each: no overflow */
    if (r < 1)
      return ir_infer_error("conv_transpose2d: output %s would be %lld; pads "
                            "too large", hw_names[i], (long long)r);
    o.dims[2 + i] = r;
  }
  out[0] = o;
  return VKML_OK;
}

/* ---- gemm / matmul ------------------------------------------------------------ */

static vkml_status want_numeric_same(const ir_node *n, const ir_type *a,
                                     const ir_type *b) {
  if (a->dtype == IR_BOOL)
    return ir_infer_error("%s: inputs must be numeric, got bool",
                          ir_op_name(n->op));
  if (a->dtype != b->dtype)
    return ir_infer_error("%s: input dtypes differ (%s and %s)",
                          ir_op_name(n->op), ir_dtype_name(a->dtype),
                          ir_dtype_name(b->dtype));
  return VKML_OK;
}

vkml_status ir_infer_gemm(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *a = &in[0], *b = &in[1];
  VKML_RETURN_IF_ERROR(want_numeric_same(n, a, b));
  VKML_RETURN_IF_ERROR(want_rank(n, "a", a, 2));
  VKML_RETURN_IF_ERROR(want_rank(n, "b", b, 2));
  int64_t ta = ir_node_int(n, IR_A_TRANS_A, 0), tb = ir_node_int(n, IR_A_TRANS_B, 0);
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
    return ir_infer_error("gemm: trans_a and trans_b must be 0 or 1");
  int64_t m = a->dims[ta], ka = a->dims[1 - ta];
  int64_t kb = b->dims[tb], nn = b->dims[1 - tb];
  if (ka != kb)
    return ir_infer_error("gemm: a has K=%lld (trans_a=%d) but b has K=%lld "
                          "(trans_b=%d)", (long long)ka, (int)ta, (long long)kb,
                          (int)tb);
  VKML_RETURN_IF_ERROR(bounded_only(n, "a", a, (int)ta));
  VKML_RETURN_IF_ERROR(bounded_only(n, "b", b, (int)(1 - tb)));
  int64_t dims[2] = {m, nn};
  ir_type o = ir_type_make(a->dtype, 2, dims);
  if (a->bounded && b->bounded)
    return ir_infer_error("gemm: a and b are both bounded");
  if (a->bounded) o.bounded = true, o.bounded_axis = 0;
  if (b->bounded) o.bounded = true, o.bounded_axis = 1;
  if (n->n_inputs > 2) {
    const ir_type *c = &in[2];
    VKML_RETURN_IF_ERROR(want_dtype(n, "c", c, a->dtype));
    VKML_RETURN_IF_ERROR(bounded_only(n, "c", c, -1));
    bool ok = c->rank <= 2;
    for (int i = 0; ok && i < c->rank; i++) {
      int64_t d = c->dims[i], t = dims[2 - c->rank + i];
      ok = d == t || d == 1;
    }
    if (!ok) {
      char sc[200];
      ir_dims_format(c, sc, sizeof sc);
      return ir_infer_error("gemm: c %s does not broadcast to [%lld,%lld]", sc,
                            (long long)m, (long long)nn);
    }
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_matmul(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *a = &in[0], *b = &in[1];
  VKML_RETURN_IF_ERROR(want_numeric_same(n, a, b));
  if (a->rank < 1 || b->rank < 1)
    return ir_infer_error("matmul: inputs must have rank >= 1, got %d and %d",
                          a->rank, b->rank);
  /* 1-D promotion: a [K] -> [1,K], b [K] -> [K,1]; the 1 is dropped again. */
  ir_type pa = *a, pb = *b;
  if (a->rank == 1) {
    pa.rank = 2, pa.dims[0] = 1, pa.dims[1] = a->dims[0];
    if (a->bounded) pa.bounded_axis = 1;
  }
  if (b->rank == 1) {
    pb.rank = 2, pb.dims[0] = b->dims[0], pb.dims[1] = 1;
  }
  int ra = pa.rank, rb = pb.rank;
  int64_t m = pa.dims[ra - 2], ka = pa.dims[ra - 1];
  int64_t kb = pb.dims[rb - 2], nn = pb.dims[rb - 1];
  if (ka != kb) {
    char sa[200], sb[200];
    ir_dims_format(a, sa, sizeof sa);
    ir_dims_format(b, sb, sizeof sb);
    return ir_infer_error("matmul: a has K=%lld but b has K=%lld (%s x %s)",
                          (long long)ka, (long long)kb, sa, sb);
  }
  if ((pa.bounded && pa.bounded_axis == ra - 1) ||
      (pb.bounded && pb.bounded_axis == rb - 2))
    return ir_infer_error("matmul: the contracted axis K is bounded");
  /* Batch dims broadcast; ir_broadcast also carries a bounded batch axis. */
  ir_type ba = pa, bb = pb;
  ba.rank = ra - 2, bb.rank = rb - 2;
  ba.bounded = pa.bounded && pa.bounded_axis < ra - 2;
  bb.bounded = pb.bounded && pb.bounded_axis < rb - 2;
  ir_type o;
  vkml_status s = ir_broadcast(&ba, &bb, &o);
  if (s) return vkml_status_annotate(s, "matmul: batch dimensions");
  bool bm = pa.bounded && pa.bounded_axis == ra - 2;
  bool bn = pb.bounded && pb.bounded_axis == rb - 1;
  if ((bm || bn) && o.bounded)
    return ir_infer_error("matmul: inputs are bounded along different axes");
  if (bm && bn) return ir_infer_error("matmul: a and b are both bounded");
  int r = o.rank;
  if (a->rank > 1) {
    if (bm) o.bounded = true, o.bounded_axis = r;
    o.dims[r++] = m;
  }
  if (b->rank > 1) {
    if (bn) o.bounded = true, o.bounded_axis = r;
    o.dims[r++] = nn;
  }
  o.rank = r;
  o.dtype = a->dtype;
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_attention(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *q = &in[0];
  for (int i = 0; i < n->n_inputs; i++) {
    VKML_RETURN_IF_ERROR(want_float(n, i == 3 ? "bias" : "q, kt and v", in[i].dtype));
    if (in[i].dtype != q->dtype)
      return ir_infer_error("attention: input dtypes differ (%s and %s)", ir_dtype_name(q->dtype),
                            ir_dtype_name(in[i].dtype));
    if (in[i].bounded) return ir_infer_error("attention: input %d is bounded", i);
  }
  ir_attention_params p;
  VKML_RETURN_IF_ERROR(ir_attention_params_get(n, in, n->n_inputs, &p));
  int r = p.rank;
  if (n->n_inputs == 4) {
    ir_type scores = ir_type_make(q->dtype, r, p.dims), b;
    scores.dims[r - 1] = p.n;
    vkml_status s = ir_broadcast(&scores, &in[3], &b);
    if (s) return vkml_status_annotate(s, "attention: bias");
    for (int i = 0; i < r; i++)
      if (in[3].rank > r || b.rank != r || b.dims[i] != scores.dims[i])
        return ir_infer_error("attention: the bias does not broadcast to the scores' shape");
  }
  int64_t od[IR_MAX_RANK];
  for (int i = 0; i < r; i++) od[i] = p.dims[p.perm[i]];
  out[0] = ir_type_make(q->dtype, r, od);
  return VKML_OK;
}

/* ---- normalisations ------------------------------------------------------------ */

vkml_status ir_infer_batchnorm(const ir_node *n, const ir_type *in, ir_type *out) {
  static const char *const names[] = {"scale", "bias", "mean", "var"};
  const ir_type *x = &in[0];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  if (x->rank < 2)
    return ir_infer_error("batchnorm: input must have rank >= 2, got %d", x->rank);
  if (x->bounded && x->bounded_axis == 1)
    return ir_infer_error("batchnorm: input is bounded along the channel axis");
  for (int i = 0; i < 4; i++) {
    VKML_RETURN_IF_ERROR(want_vec(n, names[i], &in[1 + i], x->dtype, x->dims[1]));
    VKML_RETURN_IF_ERROR(bounded_only(n, names[i], &in[1 + i], -1));
  }
  out[0] = *x;
  return VKML_OK;
}

vkml_status ir_infer_instance_norm(const ir_node *n, const ir_type *in,
                                   ir_type *out) {
  static const char *const names[] = {"scale", "bias"};
  const ir_type *x = &in[0];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  if (x->rank < 3)
    return ir_infer_error("instance_norm: input must have rank >= 3, got %d",
                          x->rank);
  VKML_RETURN_IF_ERROR(bounded_only(n, "input", x, 0));
  for (int i = 0; i < 2; i++) {
    VKML_RETURN_IF_ERROR(want_vec(n, names[i], &in[1 + i], x->dtype, x->dims[1]));
    VKML_RETURN_IF_ERROR(bounded_only(n, names[i], &in[1 + i], -1));
  }
  out[0] = *x;
  return VKML_OK;
}

vkml_status ir_infer_layer_norm(const ir_node *n, const ir_type *in,
                                ir_type *out) {
  static const char *const names[] = {"scale", "bias"};
  const ir_type *x = &in[0];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "layer_norm");
  if (x->bounded && x->bounded_axis >= axis)
    return ir_infer_error("layer_norm: input is bounded along normalised axis %d",
                          x->bounded_axis);
  /* The normalised tail x.shape[axis:]. */
  ir_type tail = *x;
  tail.rank = x->rank - axis;
  tail.bounded = false;
  memmove(tail.dims, x->dims + axis, sizeof tail.dims[0] * (size_t)tail.rank);
  for (int i = 1; i < n->n_inputs; i++) {
    const ir_type *p = &in[i];
    VKML_RETURN_IF_ERROR(want_dtype(n, names[i - 1], p, x->dtype));
    VKML_RETURN_IF_ERROR(bounded_only(n, names[i - 1], p, -1));
    bool ok = p->rank <= tail.rank;
    for (int j = 0; ok && j < p->rank; j++) {
      int64_t d = p->dims[j], t = tail.dims[tail.rank - p->rank + j];
      ok = d == t || d == 1;
    }
    if (!ok) {
      char sp[200], st[200];
      ir_dims_format(p, sp, sizeof sp);
      ir_dims_format(&tail, st, sizeof st);
      return ir_infer_error("layer_norm: %s %s does not broadcast to the "
                            "normalised shape %s", names[i - 1], sp, st);
    }
  }
  out[0] = *x;
  return VKML_OK;
}

/* ---- pooling ------------------------------------------------------------------ */

vkml_status ir_infer_pool(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  const char *op = ir_op_name(n->op);
  /* ONNX MaxPool also takes 8-bit integers; AvgPool is float only. */
  bool int8 = x->dtype == IR_I8 || x->dtype == IR_U8;
  if (!(n->op == IR_OP_MAXPOOL && int8))
    VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  VKML_RETURN_IF_ERROR(want_rank(n, "input", x, 4));
  VKML_RETURN_IF_ERROR(bounded_only(n, "input", x, 0));
  ir_pool_params p;
  VKML_RETURN_IF_ERROR(ir_pool_params_get(n, &p));
  ir_type o = *x;
  for (int i = 0; i < 2; i++) {
    vkml_status s = ir_pool_out_dim(&p, i, x->dims[2 + i], &o.dims[2 + i]);
    if (s) return vkml_status_annotate(s, "%s along %s", op, hw_names[i]);
  }
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_global_pool(const ir_node *n, const ir_type *in,
                                 ir_type *out) {
  const ir_type *x = &in[0];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  if (x->rank < 3)
    return ir_infer_error("%s: input must have rank >= 3 ([N,C,spatial...]), "
                          "got %d", ir_op_name(n->op), x->rank);
  ir_type o = *x;
  for (int i = 2; i < x->rank; i++) o.dims[i] = 1;
  if (o.bounded && o.bounded_axis >= 2) o.bounded = false, o.bounded_axis = 0;
  out[0] = o;
  return VKML_OK;
}

vkml_status ir_infer_softmax(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(want_float(n, "input", in[0].dtype));
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), in[0].rank, &axis);
  if (s) return vkml_status_annotate(s, "%s", ir_op_name(n->op));
  out[0] = in[0];
  return VKML_OK;
}

vkml_status ir_infer_resize(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  ir_resize_params p;
  VKML_RETURN_IF_ERROR(ir_resize_params_get(n, x, &p));
  if (p.mode == IR_RESIZE_NEAREST) {
    if (x->dtype == IR_BOOL)
      return ir_infer_error("resize: input must be numeric, got bool");
  } else {
    VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  }
  /* a bounded axis left alone (scale 1: each run's size is its own; sizes
   * would name the capacity) stays bounded */
  if (x->bounded && (p.from_sizes || p.scale[x->bounded_axis] != 1.0f))
    return ir_infer_error("resize: input is bounded along axis %d, which only a scale of 1 "
                          "there keeps (%s)",
                          x->bounded_axis, p.from_sizes ? "sizes given" : "scale not 1");
  ir_type o = *x;
  for (int i = 0; i < x->rank; i++) o.dims[i] = p.out_dims[i];
  out[0] = o;
  return VKML_OK;
}

/* ---- reductions ------------------------------------------------------------------ */

/* Reduces x over mask: size 1 with keepdims, else removed. A bounded axis
 * that is reduced leaves nothing bounded. */
static ir_type reduced_type(const ir_type *x, const bool *mask, bool keep) {
  ir_type o = *x;
  o.rank = 0;
  o.bounded = false;
  for (int i = 0; i < x->rank; i++) {
    if (mask[i] && !keep) continue;
    if (!mask[i] && x->bounded && x->bounded_axis == i) {
      o.bounded = true;
      o.bounded_axis = o.rank;
    }
    o.dims[o.rank++] = mask[i] ? 1 : x->dims[i];
  }
  return o;
}

static vkml_status keepdims_get(const ir_node *n, bool *keep) {
  int64_t k = ir_node_int(n, IR_A_KEEPDIMS, 1);
  if (k != 0 && k != 1)
    return ir_infer_error("%s: keepdims is %lld, must be 0 or 1",
                          ir_op_name(n->op), (long long)k);
  *keep = k != 0;
  return VKML_OK;
}

vkml_status ir_infer_reduce(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  if (x->dtype == IR_BOOL)
    return ir_infer_error("%s: input must be numeric, got bool", ir_op_name(n->op));
  bool mask[IR_MAX_RANK], keep = true;
  VKML_RETURN_IF_ERROR(ir_reduce_axes_get(n, x->rank, mask));
  VKML_RETURN_IF_ERROR(keepdims_get(n, &keep));
  /* nothing reduces to the identity, as ONNX's opset 18: -inf (the type's
   * least) for max, +inf (its greatest) for min, 0, NaN and 1 for sum, mean
   * and prod; a bounded value may be empty at run time (batched NMS's max
   * coordinate over no boxes) */
  out[0] = reduced_type(x, mask, keep);
  return VKML_OK;
}

vkml_status ir_infer_argminmax(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  if (x->dtype == IR_BOOL)
    return ir_infer_error("%s: input must be numeric, got bool", ir_op_name(n->op));
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "%s", ir_op_name(n->op));
  bool keep = true;
  VKML_RETURN_IF_ERROR(keepdims_get(n, &keep));
  int64_t last = ir_node_int(n, IR_A_SELECT_LAST_INDEX, 0);
  if (last != 0 && last != 1)
    return ir_infer_error("%s: select_last_index is %lld, must be 0 or 1",
                          ir_op_name(n->op), (long long)last);
  if (x->dims[axis] == 0)
    return ir_infer_error("%s: cannot reduce empty axis %d", ir_op_name(n->op),
                          axis);
  bool mask[IR_MAX_RANK] = {false};
  mask[axis] = true;
  out[0] = reduced_type(x, mask, keep);
  out[0].dtype = IR_I64;
  return VKML_OK;
}
