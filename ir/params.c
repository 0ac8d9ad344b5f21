/* Attribute decoding with defaults and validation (see params.h), plus the
 * small helpers shape inference shares: checked arithmetic, shape strings,
 * axis normalisation and broadcasting. Must never trust attribute contents:
 * every value is range-checked before it is used in arithmetic. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "params.h"
#include "winograd.h"

vkml_status ir_infer_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vkml_status s = vkml_status_makev(VKML_CODE_INVALID_GRAPH, fmt, ap);
  va_end(ap);
  return s;
}

/* ---- shared helpers ----------------------------------------------------- */

bool ir_checked_add(int64_t a, int64_t b, int64_t *out) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return false;
  *out = a + b;
  return true;
}

bool ir_checked_mul(int64_t a, int64_t b, int64_t *out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return true;
  }
  /* Work on magnitudes in uint64 so INT64_MIN needs no special case. */
  uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
  uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
  bool neg = (a < 0) != (b < 0);
  uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  if (ua > lim / ub) return false;
  uint64_t p = ua * ub;
  if (p > lim) return false;
  *out = neg ? (int64_t)((uint64_t)0 - p) : (int64_t)p;
  return true;
}

void ir_dims_format(const ir_type *t, char *buf, int buf_bytes) {
  if (buf_bytes <= 0) return;
  int off = snprintf(buf, (size_t)buf_bytes, "[");
  int rank = t->rank < 0 ? 0 : (t->rank > IR_MAX_RANK ? IR_MAX_RANK : t->rank);
  for (int i = 0; i < rank && off < buf_bytes; i++)
    off += snprintf(buf + off, (size_t)(buf_bytes - off), "%s%s%lld",
                    i ? "," : "",
                    t->bounded && t->bounded_axis == i ? "<=" : "",
                    (long long)t->dims[i]);
  if (off < buf_bytes) snprintf(buf + off, (size_t)(buf_bytes - off), "]");
}

vkml_status ir_axis_normalize(int64_t axis, int rank, int *out) {
  if (axis < -(int64_t)rank || axis >= (int64_t)rank) {
    if (rank == 0)
      return ir_infer_error("axis %lld out of range for a scalar (rank 0)",
                            (long long)axis);
    return ir_infer_error("axis %lld out of range for rank %d (valid: %d..%d)",
                          (long long)axis, rank, -rank, rank - 1);
  }
  *out = (int)(axis < 0 ? axis + rank : axis);
  return VKML_OK;
}

vkml_status ir_broadcast(const ir_type *a, const ir_type *b, ir_type *out) {
  if (a->rank < 0 || a->rank > IR_MAX_RANK || b->rank < 0 || b->rank > IR_MAX_RANK)
    return ir_infer_error("bad rank %d or %d", a->rank, b->rank);
  ir_type r;
  memset(&r, 0, sizeof r);
  r.dtype = a->dtype;
  r.rank = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r.rank; i++) {
    int ia = i - (r.rank - a->rank), ib = i - (r.rank - b->rank);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    bool from_a = ia >= 0 && (da == db || db == 1);
    bool from_b = ib >= 0 && (da == db || da == 1);
    if (da != db && da != 1 && db != 1) {
      char sa[200], sb[200];
      ir_dims_format(a, sa, sizeof sa);
      ir_dims_format(b, sb, sizeof sb);
      return ir_infer_error("shapes %s and %s do not broadcast", sa, sb);
    }
    r.dims[i] = da == 1 ? db : da;
    /* A bounded (capacity) axis stays bounded where its size reaches the
     * output. */
    bool bnd = (from_a && a->bounded && a->bounded_axis == ia) ||
               (from_b && b->bounded && b->bounded_axis == ib);
    if (bnd) {
      if (r.bounded && r.bounded_axis != i)
        return ir_infer_error("inputs are bounded along different axes");
      r.bounded = true;
      r.bounded_axis = i;
    }
  }
  *out = r;
  return VKML_OK;
}

/* ---- activation ---------------------------------------------------------- */

void ir_act_params_get(const ir_node *n, ir_act_params *out) {
  int64_t k = ir_node_int(n, IR_A_ACT, IR_ACT_NONE);
  out->kind = (k < 0 || k >= IR_ACT_COUNT) ? IR_ACT_NONE : (ir_act)k;
  float alpha = 0, beta = 0;
  switch (out->kind) {
  case IR_ACT_CLIP: alpha = 0; beta = 6; break;
  case IR_ACT_LEAKY_RELU: alpha = 0.01f; break;
  case IR_ACT_ELU: alpha = 1; break;
  case IR_ACT_HARD_SIGMOID: alpha = 0.2f; beta = 0.5f; break;
  default: break;
  }
  out->alpha = ir_node_float(n, IR_A_ACT_ALPHA, alpha);
  out->beta = ir_node_float(n, IR_A_ACT_BETA, beta);
}

void ir_unary_params_get(const ir_node *n, ir_unary_params *out) {
  memset(out, 0, sizeof *out);
  switch (n->op) {
  case IR_OP_LEAKY_RELU: out->alpha = ir_node_float(n, IR_A_ALPHA, 0.01f); break;
  case IR_OP_ELU: out->alpha = ir_node_float(n, IR_A_ALPHA, 1.0f); break;
  case IR_OP_SELU:
    out->alpha = ir_node_float(n, IR_A_ALPHA, 1.67326319217681884765625f);
    out->gamma = ir_node_float(n, IR_A_GAMMA, 1.05070102214813232421875f);
    break;
  case IR_OP_HARD_SIGMOID:
    out->alpha = ir_node_float(n, IR_A_ALPHA, 0.2f);
    out->beta = ir_node_float(n, IR_A_BETA, 0.5f);
    break;
  case IR_OP_CLIP:
    out->lo = ir_node_float(n, IR_A_MIN, -INFINITY);
    out->hi = ir_node_float(n, IR_A_MAX, INFINITY);
    break;
  default: break;
  }
}

/* ---- int-list attributes --------------------------------------------------- */

/* Reads an int list of exactly `count` entries into dst (default dflt when
 * absent), each >= lo. */
static vkml_status ints_get(const ir_node *n, ir_attr_id id, int count,
                            int64_t dflt, int64_t lo, int64_t *dst) {
  const int64_t *v;
  int len = ir_node_ints(n, id, &v);
  if (len < 0) {
    for (int i = 0; i < count; i++) dst[i] = dflt;
    return VKML_OK;
  }
  if (len != count)
    return ir_infer_error("%s: %s must have %d entries, got %d",
                          ir_op_name(n->op), ir_attr_name(id), count, len);
  for (int i = 0; i < count; i++) {
    if (v[i] < lo)
      return ir_infer_error("%s: %s[%d] is %lld, must be >= %lld",
                            ir_op_name(n->op), ir_attr_name(id), i,
                            (long long)v[i], (long long)lo);
    /* Values beyond any tensor size only invite overflow downstream. */
    if (v[i] > IR_MAX_ELEMENTS)
      return ir_infer_error("%s: %s[%d] is %lld, too large", ir_op_name(n->op),
                            ir_attr_name(id), i, (long long)v[i]);
    dst[i] = v[i];
  }
  return VKML_OK;
}

vkml_status ir_conv_params_get(const ir_node *n, const ir_type *w,
                               ir_conv_params *out) {
  const char *op = ir_op_name(n->op);
  memset(out, 0, sizeof *out);
  if (w->rank != 4)
    return ir_infer_error("%s: weight must have rank 4, got rank %d", op, w->rank);
  out->kernel[0] = w->dims[2];
  out->kernel[1] = w->dims[3];
  if (out->kernel[0] < 1 || out->kernel[1] < 1)
    return ir_infer_error("%s: weight has an empty %lldx%lld kernel", op,
                          (long long)out->kernel[0], (long long)out->kernel[1]);
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_STRIDES, 2, 1, 1, out->strides));
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_DILATIONS, 2, 1, 1, out->dilations));
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_PADS, 4, 0, 0, out->pads));
  VKML_RETURN_IF_ERROR(
      ints_get(n, IR_A_OUTPUT_PADDING, 2, 0, 0, out->output_padding));
  for (int i = 0; i < 2; i++) {
    int64_t s = out->strides[i], d = out->dilations[i];
    int64_t lim = s > d ? s : d;
    if (out->output_padding[i] >= lim)
      return ir_infer_error("%s: output_padding[%d] is %lld, must be less than "
                            "max(stride, dilation) = %lld",
                            op, i, (long long)out->output_padding[i],
                            (long long)lim);
  }
  out->group = ir_node_int(n, IR_A_GROUP, 1);
  if (out->group < 1)
    return ir_infer_error("%s: group is %lld, must be >= 1", op,
                          (long long)out->group);
  ir_act_params_get(n, &out->act);
  return VKML_OK;
}

vkml_status ir_winograd_params_get(const ir_node *n, ir_conv_params *out, int *m) {
  memset(out, 0, sizeof *out);
  int64_t t = ir_node_int(n, IR_A_OUT_TILE, 0);
  if (!ir_winograd_tile_ok(t))
    return ir_infer_error("%s: out_tile is %lld, must be 2 or 4", ir_op_name(n->op),
                          (long long)t);
  *m = (int)t;
  for (int i = 0; i < 2; i++) out->kernel[i] = 3, out->strides[i] = out->dilations[i] = 1;
  out->group = 1;
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_PADS, 4, 0, 0, out->pads));
  ir_act_params_get(n, &out->act);
  return VKML_OK;
}

/* ---- pooling --------------------------------------------------------------- */

vkml_status ir_pool_params_get(const ir_node *n, ir_pool_params *out) {
  const char *op = ir_op_name(n->op);
  memset(out, 0, sizeof *out);
  if (!ir_node_attr(n, IR_A_KERNEL))
    return ir_infer_error("%s: kernel is required", op);
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_KERNEL, 2, 1, 1, out->kernel));
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_STRIDES, 2, 1, 1, out->strides));
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_DILATIONS, 2, 1, 1, out->dilations));
  VKML_RETURN_IF_ERROR(ints_get(n, IR_A_PADS, 4, 0, 0, out->pads));
  int64_t cm = ir_node_int(n, IR_A_CEIL_MODE, 0);
  int64_t cip = ir_node_int(n, IR_A_COUNT_INCLUDE_PAD, 0);
  if (cm != 0 && cm != 1)
    return ir_infer_error("%s: ceil_mode is %lld, must be 0 or 1", op, (long long)cm);
  if (cip != 0 && cip != 1)
    return ir_infer_error("%s: count_include_pad is %lld, must be 0 or 1", op,
                          (long long)cip);
  out->ceil_mode = cm != 0;
  out->count_include_pad = cip != 0;
  return VKML_OK;
}

vkml_status ir_pool_out_dim(const ir_pool_params *p, int axis, int64_t in,
                            int64_t *out) {
  int64_t k = p->kernel[axis], d = p->dilations[axis], s = p->strides[axis];
  int64_t pt = p->pads[axis], pb = p->pads[axis + 2];
  int64_t ext, padded, lead;
  /* Window extent (k-1)*d+1 and padded input; all parts are >= 0. */
  if (!ir_checked_mul(k - 1, d, &ext) || !ir_checked_add(ext, 1, &ext) ||
      !ir_checked_add(in, pt, &lead) || !ir_checked_add(lead, pb, &padded))
    return ir_infer_error("pooling sizes overflow");
  if (padded < ext)
    return ir_infer_error("pooling window larger than padded input (window "
                          "%lld, padded input %lld)",
                          (long long)ext, (long long)padded);
  int64_t span = padded - ext;
  int64_t o = span / s + 1;
  if (p->ceil_mode && span % s != 0) {
    o++;
    /* Drop a last window that would start inside the end padding. */
    int64_t start;
    if (!ir_checked_mul(o - 1, s, &start) || start >= lead) o--;
  }
  if (o < 1)
    return ir_infer_error("pooling window larger than padded input (window "
                          "%lld, padded input %lld)",
                          (long long)ext, (long long)padded);
  *out = o;
  return VKML_OK;
}

/* ---- slice ---------------------------------------------------------------- */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

vkml_status ir_strided_params_get(const ir_node *n, const ir_type *in, ir_strided_params *out) {
  const int64_t *shape, *strides;
  int ns = ir_node_ints(n, IR_A_SHAPE, &shape), nt = ir_node_ints(n, IR_A_STRIDES, &strides);
  if (ns < 0 || nt < 0) return ir_infer_error("strided_copy: shape and strides are required");
  if (ns != nt)
    return ir_infer_error("strided_copy: shape has %d entries but strides has %d", ns, nt);
  if (ns > IR_MAX_RANK) return ir_infer_error("strided_copy: rank %d over %d", ns, IR_MAX_RANK);
  if (in->bounded) return ir_infer_error("strided_copy: a bounded input");
  out->rank = ns;
  out->offset = ir_node_int(n, IR_A_OFFSET, 0);
  if (out->offset < -IR_MAX_ELEMENTS || out->offset > IR_MAX_ELEMENTS)
    return ir_infer_error("strided_copy: offset %lld out of range", (long long)out->offset);
  int64_t lo = out->offset, hi = out->offset, count = 1;
  for (int d = 0; d < ns; d++) {
    if (shape[d] < 0 || (shape[d] && count > IR_MAX_ELEMENTS / shape[d]))
      return ir_infer_error("strided_copy: bad dim %lld", (long long)shape[d]);
    out->dims[d] = shape[d];
    out->strides[d] = strides[d];
    count *= shape[d];
    int64_t lim = INT64_C(1) << 40;
    if (strides[d] > lim || strides[d] < -lim)
      return ir_infer_error("strided_copy: stride %lld out of range", (long long)strides[d]);
    /* each span under 2^57, so that eight of them and the offset add up
     * without overflow */
    if (fabs((double)(shape[d] ? shape[d] - 1 : 0) * (double)strides[d]) > 0x1p57)
      return ir_infer_error("strided_copy: dim %lld at stride %lld reads past any input",
                            (long long)shape[d], (long long)strides[d]);
    int64_t span = (shape[d] ? shape[d] - 1 : 0) * strides[d];
    if (span < 0) lo += span;
    else hi += span;
  }
  if (count && (lo < 0 || hi >= ir_type_numel(in)))
    return ir_infer_error("strided_copy: reads elements %lld..%lld of an input of %lld",
                          (long long)lo, (long long)hi, (long long)ir_type_numel(in));
  const int64_t *rd, *rs;
  int nrd = ir_node_ints(n, IR_A_ROLL_DIMS, &rd), nrs = ir_node_ints(n, IR_A_ROLL_SHIFTS, &rs);
  out->roll_rank = 0;
  if (nrd < 0 && nrs < 0) return VKML_OK;
  if (nrd < 0 || nrs != nrd)
    return ir_infer_error("strided_copy: roll_dims and roll_shifts go together, one shift per dim");
  if (nrd < 1 || nrd > IR_MAX_RANK)
    return ir_infer_error("strided_copy: %d roll dims (1..%d)", nrd, IR_MAX_RANK);
  int64_t prod = 1;
  for (int d = 0; d < nrd; d++) {
    if (rd[d] < 1 || prod > IR_MAX_ELEMENTS / rd[d])
      return ir_infer_error("strided_copy: bad roll dim %lld", (long long)rd[d]);
    if (rs[d] < 0 || rs[d] >= rd[d])
      return ir_infer_error("strided_copy: roll shift %lld outside [0, %lld)", (long long)rs[d],
                            (long long)rd[d]);
    prod *= rd[d];
    out->roll_dims[d] = rd[d];
    out->roll_shifts[d] = rs[d];
  }
  if (prod != ir_type_numel(in))
    return ir_infer_error("strided_copy: roll dims hold %lld elements, the input %lld",
                          (long long)prod, (long long)ir_type_numel(in));
  out->roll_rank = nrd;
  return VKML_OK;
}

/* Where x' element p (an index into x as roll_dims, rolled) lies in x. */
int64_t ir_strided_unroll(const ir_strided_params *p, int64_t e) {
  int64_t q = 0, w = 1;
  for (int d = p->roll_rank - 1; d >= 0; d--) {
    int64_t c = e % p->roll_dims[d] + p->roll_shifts[d];
    e /= p->roll_dims[d];
    if (c >= p->roll_dims[d]) c -= p->roll_dims[d];
    q += c * w;
    w *= p->roll_dims[d];
  }
  return q;
}

/* ---- attention's operands ------------------------------------------------ */

static void row_major(const int64_t *dims, int r, int64_t *st) {
  int64_t run = 1;
  for (int i = r - 1; i >= 0; i--) {
    st[i] = run;
    run *= dims[i];
  }
}

vkml_status ir_attention_params_get(const ir_node *n, const ir_type *in, int n_in,
                                    ir_attention_params *out) {
  memset(out, 0, sizeof *out);
  if (n_in < 3) return ir_infer_error("attention: %d inputs, needs q, kt and v", n_in);
  const int64_t *dims, *view[3];
  int nd = ir_node_ints(n, IR_A_DIMS, &dims);
  int nv[3] = {ir_node_ints(n, IR_A_Q_VIEW, &view[0]), ir_node_ints(n, IR_A_K_VIEW, &view[1]),
               ir_node_ints(n, IR_A_V_VIEW, &view[2])};
  static const char *const names[3] = {"q", "kt", "v"};
  int r;
  int64_t ld[3][IR_MAX_RANK]; /* each operand's logical dims */
  out->views = nd >= 0;
  if (!out->views) {
    if (nv[0] >= 0 || nv[1] >= 0 || nv[2] >= 0)
      return ir_infer_error("attention: q_view, k_view and v_view need dims");
    r = in[0].rank;
    if (r < 2 || in[1].rank != r || in[2].rank != r)
      return ir_infer_error("attention: q, kt and v need one rank of at least 2, got %d, %d, %d",
                            r, in[1].rank, in[2].rank);
    for (int i = 0; i < r - 2; i++)
      if (in[1].dims[i] != in[0].dims[i] || in[2].dims[i] != in[0].dims[i])
        return ir_infer_error("attention: batch axis %d differs (%lld, %lld, %lld)", i,
                              (long long)in[0].dims[i], (long long)in[1].dims[i],
                              (long long)in[2].dims[i]);
    out->m = in[0].dims[r - 2];
    out->d = in[0].dims[r - 1];
    out->n = in[1].dims[r - 1];
    out->dv = in[2].dims[r - 1];
    if (in[1].dims[r - 2] != out->d)
      return ir_infer_error("attention: q has D=%lld but kt has %lld", (long long)out->d,
                            (long long)in[1].dims[r - 2]);
    if (in[2].dims[r - 2] != out->n)
      return ir_infer_error("attention: kt has N=%lld keys but v has %lld", (long long)out->n,
                            (long long)in[2].dims[r - 2]);
    for (int k = 0; k < 3; k++) row_major(in[k].dims, r, out->st[k]);
  } else {
    r = nd - 2;
    if (r < 2 || r > IR_MAX_RANK)
      return ir_infer_error("attention: dims has %d entries (batch axes, M, D, N, DV)", nd);
    for (int i = 0; i < nd; i++)
      if (dims[i] < 1 || dims[i] > IR_MAX_ELEMENTS)
        return ir_infer_error("attention: dims[%d] is %lld", i, (long long)dims[i]);
    out->m = dims[r - 2];
    out->d = dims[r - 1];
    out->n = dims[r];
    out->dv = dims[r + 1];
  }
  int64_t batch = 1;
  for (int i = 0; i < r - 2; i++) {
    int64_t b = out->views ? dims[i] : in[0].dims[i];
    if (b && batch > IR_MAX_ELEMENTS / b) return ir_infer_error("attention: batch too large");
    batch *= b;
    for (int k = 0; k < 3; k++) ld[k][i] = b;
    out->dims[i] = b;
  }
  out->batch = batch;
  out->rank = r;
  ld[0][r - 2] = out->m, ld[0][r - 1] = out->d;
  ld[1][r - 2] = out->d, ld[1][r - 1] = out->n;
  ld[2][r - 2] = out->n, ld[2][r - 1] = out->dv;
  out->dims[r - 2] = out->m;
  out->dims[r - 1] = out->dv;
  for (int k = 0; k < 3 && out->views; k++) {
    if (nv[k] != r + 1)
      return ir_infer_error("attention: %s's view has %d entries, needs the offset and %d "
                            "strides", names[k], nv[k] < 0 ? 0 : nv[k], r);
    out->off[k] = view[k][0];
    int64_t hi = view[k][0], lim = INT64_C(1) << 40;
    if (hi < 0 || hi > lim) return ir_infer_error("attention: %s's offset %lld", names[k], (long long)hi);
    for (int i = 0; i < r; i++) {
      int64_t s = view[k][i + 1];
      if (s < 0 || s > lim)
        return ir_infer_error("attention: %s's stride %lld (0 to 2^40)", names[k], (long long)s);
      out->st[k][i] = s;
      if ((double)(ld[k][i] - 1) * (double)s > 0x1p57) /* (no overflow below) */
        return ir_infer_error("attention: %s's view reads past any input", names[k]);
      hi += (ld[k][i] - 1) * s;
    }
    if (in[k].bounded) return ir_infer_error("attention: input %d is bounded", k);
    if (hi >= ir_type_numel(&in[k]))
      return ir_infer_error("attention: %s's view reads element %lld of an input of %lld",
                            names[k], (long long)hi, (long long)ir_type_numel(&in[k]));
  }
  if (ir_node_ints(n, IR_A_PERM, &dims) < 0) {
    for (int i = 0; i < r; i++) out->perm[i] = i;
    return VKML_OK;
  }
  return ir_perm_get(n, r, out->perm);
}

void ir_attention_y_strides(const ir_attention_params *p, int64_t *st) {
  int64_t od[IR_MAX_RANK], os[IR_MAX_RANK];
  for (int i = 0; i < p->rank; i++) od[i] = p->dims[p->perm[i]];
  row_major(od, p->rank, os);
  for (int i = 0; i < p->rank; i++) st[p->perm[i]] = os[i];
}

bool ir_batch_runs(const int64_t *dims, const int64_t *st, int nb, int64_t *inner, int64_t *s0,
                   int64_t *s1) {
  int64_t rd[IR_MAX_RANK], rs[IR_MAX_RANK];
  int nr = 0;
  for (int i = 0; i < nb; i++) {
    if (dims[i] == 1) continue;
    if (nr && ((rs[nr - 1] == 0 && st[i] == 0) || (st[i] != 0 && rs[nr - 1] == st[i] * dims[i]))) {
      rd[nr - 1] *= dims[i];
      rs[nr - 1] = st[i];
      continue;
    }
    rd[nr] = dims[i];
    rs[nr++] = st[i];
  }
  if (nr > 2) return false;
  *inner = nr == 2 ? rd[1] : nr == 1 ? rd[0] : 1;
  *s0 = nr == 2 ? rs[0] : 0;
  *s1 = nr >= 1 ? rs[nr - 1] : 0;
  return true;
}

vkml_status ir_slice_params_get(const ir_node *n, const ir_type *in,
                                ir_slice_params *out) {
  const char *op = ir_op_name(n->op);
  const int64_t *starts, *ends, *axes, *steps;
  int ns = ir_node_ints(n, IR_A_STARTS, &starts);
  int ne = ir_node_ints(n, IR_A_ENDS, &ends);
  int na = ir_node_ints(n, IR_A_AXES, &axes);
  int nst = ir_node_ints(n, IR_A_STEPS, &steps);
  if (ns < 0) return ir_infer_error("%s: starts is required", op);
  if (ne < 0) return ir_infer_error("%s: ends is required", op);
  if (ne != ns)
    return ir_infer_error("%s: starts has %d entries but ends has %d", op, ns, ne);
  if (na >= 0 && na != ns)
    return ir_infer_error("%s: starts has %d entries but axes has %d", op, ns, na);
  if (nst >= 0 && nst != ns)
    return ir_infer_error("%s: starts has %d entries but steps has %d", op, ns, nst);
  if (in->rank < 0 || in->rank > IR_MAX_RANK)
    return ir_infer_error("%s: bad input rank %d", op, in->rank);
  if (ns > in->rank)
    return ir_infer_error("%s: %d slice entries for an input of rank %d", op, ns,
                          in->rank);
  for (int i = 0; i < in->rank; i++) {
    out->start[i] = 0;
    out->step[i] = 1;
    out->count[i] = in->dims[i];
  }
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < ns; i++) {
    int ax = i;
    if (na >= 0) {
      vkml_status s = ir_axis_normalize(axes[i], in->rank, &ax);
      if (s) return vkml_status_annotate(s, "%s: axes[%d]", op, i);
    }
    if (seen[ax]) return ir_infer_error("%s: axis %d appears twice in axes", op, ax);
    seen[ax] = true;
    int64_t st = nst >= 0 ? steps[i] : 1;
    if (st == 0) return ir_infer_error("%s: steps[%d] is 0", op, i);
    int64_t dim = in->dims[ax], b = starts[i], e = ends[i];
    /* b, e < 0 and dim >= 0: the sums cannot overflow. */
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    int64_t count;
    if (st > 0) {
      b = clamp64(b, 0, dim);
      e = clamp64(e, 0, dim);
      uint64_t span = e > b ? (uint64_t)(e - b) : 0;
      count = (int64_t)(span / (uint64_t)st + (span % (uint64_t)st != 0));
    } else {
      b = clamp64(b, 0, dim - 1);
      e = clamp64(e, -1, dim - 1);
      uint64_t ust = (uint64_t)0 - (uint64_t)st;
      uint64_t span = b > e ? (uint64_t)(b - e) : 0;
      count = (int64_t)(span / ust + (span % ust != 0));
    }
    out->start[ax] = count > 0 ? b : 0;
    out->step[ax] = st;
    out->count[ax] = count;
  }
  return VKML_OK;
}

/* ---- resize --------------------------------------------------------------- */

vkml_status ir_resize_params_get(const ir_node *n, const ir_type *in,
                                 ir_resize_params *out) {
  const char *op = ir_op_name(n->op);
  memset(out, 0, sizeof *out);
  out->mode = (ir_resize_mode)ir_node_int(n, IR_A_RESIZE_MODE, IR_RESIZE_NEAREST);
  out->coord = (ir_coord_mode)ir_node_int(n, IR_A_COORD_MODE, IR_COORD_HALF_PIXEL);
  out->nearest = (ir_nearest_mode)ir_node_int(n, IR_A_NEAREST_MODE,
                                              IR_NEAREST_ROUND_PREFER_FLOOR);
  out->cubic_coeff_a = ir_node_float(n, IR_A_CUBIC_COEFF_A, -0.75f);
  int64_t ex = ir_node_int(n, IR_A_EXCLUDE_OUTSIDE, 0);
  if (ex != 0 && ex != 1)
    return ir_infer_error("%s: exclude_outside is %lld, must be 0 or 1", op,
                          (long long)ex);
  out->exclude_outside = ex != 0;
  /* in range after inference's enum check; a node built through the API and
   * never inferred is refused here, once for every consumer */
  if ((unsigned)out->mode > IR_RESIZE_CUBIC || (unsigned)out->coord > IR_COORD_OUTPUT_HALF_PIXEL ||
      (unsigned)out->nearest > IR_NEAREST_CEIL)
    return ir_infer_error("%s: mode %d, coordinate_transformation_mode %d or nearest_mode %d "
                          "out of range", op, (int)out->mode, (int)out->coord,
                          (int)out->nearest);
  if (out->coord == IR_COORD_OUTPUT_HALF_PIXEL)
    return ir_infer_error("%s: coordinate_transformation_mode output_half_pixel "
                          "is for roi_align only", op);
  const float *scales;
  const int64_t *sizes;
  int nsc = ir_node_floats(n, IR_A_SCALES, &scales);
  int nsz = ir_node_ints(n, IR_A_SIZES, &sizes);
  if (nsc >= 0 && nsz >= 0)
    return ir_infer_error("%s: scales and sizes are both given; give one", op);
  if (nsc < 0 && nsz < 0)
    return ir_infer_error("%s: one of scales or sizes is required", op);
  out->from_sizes = nsz >= 0;
  int cnt = nsc >= 0 ? nsc : nsz;
  if (in->rank < 0 || in->rank > IR_MAX_RANK)
    return ir_infer_error("%s: bad input rank %d", op, in->rank);
  if (cnt != in->rank)
    return ir_infer_error("%s: %s has %d entries, input has rank %d", op,
                          nsc >= 0 ? "scales" : "sizes", cnt, in->rank);
  for (int i = 0; i < in->rank; i++) {
    int64_t dim = in->dims[i];
    if (nsc >= 0) {
      float sc = scales[i];
      if (!(sc > 0) || isinf(sc))
        return ir_infer_error("%s: scales[%d] is %g, must be a finite value > 0",
                              op, i, (double)sc);
      double o = floor((double)dim * (double)sc);
      if (o > (double)IR_MAX_ELEMENTS)
        return ir_infer_error("%s: output dimension %d too large", op, i);
      out->scale[i] = sc;
      out->out_dims[i] = (int64_t)o;
    } else {
      int64_t sz = sizes[i];
      if (sz < 0)
        return ir_infer_error("%s: sizes[%d] is %lld, must be >= 0", op, i,
                              (long long)sz);
      if (dim == 0 && sz != 0)
        return ir_infer_error("%s: cannot resize empty axis %d to %lld", op, i,
                              (long long)sz);
      out->out_dims[i] = sz;
      out->scale[i] = dim == 0 ? 1.0f : (float)sz / (float)dim;
    }
  }
  return VKML_OK;
}

void ir_resize_axis_scale(const ir_resize_params *p, int d, int64_t in, int64_t out,
                          double *scale, double *len_resized) {
  *scale = p->from_sizes ? (double)out / (double)in : (double)p->scale[d];
  *len_resized = p->from_sizes ? (double)out : *scale * (double)in;
}

double ir_resize_coord(ir_coord_mode mode, double x, double scale, int64_t in, int64_t out,
                       double len_resized) {
  switch (mode) {
  case IR_COORD_HALF_PIXEL: return (x + 0.5) / scale - 0.5;
  case IR_COORD_ASYMMETRIC: return x / scale;
  case IR_COORD_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  case IR_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
  case IR_COORD_ALIGN_CORNERS:
    return len_resized == 1.0 ? 0.0 : x * (double)(in - 1) / (len_resized - 1.0);
  default: return 0.0;
  }
}

double ir_resize_left(double xo, int64_t in, int64_t *left) {
  if (!(xo > -2.0)) xo = -2.0;
  if (xo > (double)in + 2.0) xo = (double)in + 2.0;
  double xi = ceil(xo) - 1.0;
  *left = (int64_t)xi;
  return xo - xi;
}

int64_t ir_resize_nearest(ir_nearest_mode m, double xo, int64_t in) {
  int64_t left;
  double r = ir_resize_left(xo, in, &left);
  bool right;
  if (r == 1.0) right = true;
  else if (m == IR_NEAREST_ROUND_PREFER_FLOOR) right = r > 0.5;
  else if (m == IR_NEAREST_ROUND_PREFER_CEIL) right = r >= 0.5;
  else if (m == IR_NEAREST_FLOOR) right = false;
  else right = true;
  int64_t id = left + (right ? 1 : 0);
  return id < 0 ? 0 : (id >= in ? in - 1 : id);
}

/* ---- pad -------------------------------------------------------------------- */

vkml_status ir_pad_params_get(const ir_node *n, int rank, ir_pad_params *out) {
  const char *op = ir_op_name(n->op);
  memset(out, 0, sizeof *out);
  const int64_t *pads;
  int np = ir_node_ints(n, IR_A_PADS, &pads);
  if (rank < 0 || rank > IR_MAX_RANK)
    return ir_infer_error("%s: bad input rank %d", op, rank);
  if (np < 0) return ir_infer_error("%s: pads is required", op);
  if (np != 2 * rank)
    return ir_infer_error("%s: pads must have %d entries (2 x rank %d), got %d",
                          op, 2 * rank, rank, np);
  for (int i = 0; i < np; i++)
    if (pads[i] > IR_MAX_ELEMENTS || pads[i] < -IR_MAX_ELEMENTS)
      return ir_infer_error("%s: pads[%d] is %lld, too large", op, i,
                            (long long)pads[i]);
  for (int i = 0; i < rank; i++) {
    out->begins[i] = pads[i];
    out->ends[i] = pads[rank + i];
  }
  out->mode = (ir_pad_mode)ir_node_int(n, IR_A_PAD_MODE, IR_PAD_CONSTANT);
  out->value = ir_node_float(n, IR_A_VALUE, 0.0f);
  return VKML_OK;
}

/* ---- axes lists --------------------------------------------------------------- */

vkml_status ir_reduce_axes_get(const ir_node *n, int rank, bool *mask) {
  const char *op = ir_op_name(n->op);
  const int64_t *axes;
  int na = ir_node_ints(n, IR_A_AXES, &axes);
  if (rank < 0 || rank > IR_MAX_RANK)
    return ir_infer_error("%s: bad input rank %d", op, rank);
  /* Absent or empty: every axis (ONNX noop_with_empty_axes=0). */
  for (int i = 0; i < rank; i++) mask[i] = na <= 0;
  for (int i = 0; i < na; i++) {
    int ax = 0; /* set when s is OK (gcc -O2 cannot tell once inlined) */
    vkml_status s = ir_axis_normalize(axes[i], rank, &ax);
    if (s) return vkml_status_annotate(s, "%s: axes[%d]", op, i);
    if (mask[ax]) return ir_infer_error("%s: axis %d appears twice in axes", op, ax);
    mask[ax] = true;
  }
  return VKML_OK;
}

vkml_status ir_perm_get(const ir_node *n, int rank, int *perm) {
  const char *op = ir_op_name(n->op);
  const int64_t *p;
  int np = ir_node_ints(n, IR_A_PERM, &p);
  if (rank < 0 || rank > IR_MAX_RANK)
    return ir_infer_error("%s: bad input rank %d", op, rank);
  if (np < 0) {
    for (int i = 0; i < rank; i++) perm[i] = rank - 1 - i;
    return VKML_OK;
  }
  if (np != rank)
    return ir_infer_error("%s: perm has %d entries, input has rank %d", op, np, rank);
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < np; i++) {
    if (p[i] < 0 || p[i] >= rank)
      return ir_infer_error("%s: perm[%d] is %lld, outside [0, %d)", op, i,
                            (long long)p[i], rank);
    if (seen[p[i]])
      return ir_infer_error("%s: perm is not a permutation (%lld appears twice)",
                            op, (long long)p[i]);
    seen[p[i]] = true;
    perm[i] = (int)p[i];
  }
  return VKML_OK;
}
