/* ONNX RNN, GRU and LSTM, lowered at import into ops that have kernels: gemm,
 * slice, split, reshape, transpose, concat, the unary activations, add / sub /
 * mul / div, clip, greater and where. There is no recurrent IR op.
 *
 * The time loop is unrolled over the static sequence length: per direction
 * the input projection of every step is one gemm (X·Wᵀ + Wb + Rb), then each
 * step is a gemm of the state by Rᵀ (the step's projection as its C operand),
 * a split into the gates, their activations and the elementwise update.
 * sequence_lens becomes a mask per step (constant, or a greater of the
 * run-time lengths against the step): where it is false the state stays and
 * the step's output is 0. Every node is an ordinary op, so the whole loop
 * runs in one device program.
 *
 * Semantics follow the ONNX operators (opsets 7 and 14, layout from 14) and
 * onnxruntime where the spec is silent: clip bounds every activation's input
 * (LSTM's h(Ct) included, Ct itself unclipped); input_forget makes
 * ft = 1 - it; activation_alpha / activation_beta are consumed in order by
 * the activations that take them. Everything here is shapes and wiring: the
 * arithmetic is the emitted ops'. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"

/* Parts of one IR concat (the GPU concat kernel's binding limit, as
 * onnx_convert_concat's). */
#define RNN_CONCAT_MAX_PARTS 31

typedef enum rnn_kind { RNN_PLAIN, RNN_GRU, RNN_LSTM } rnn_kind;

typedef enum rnn_act_kind {
  ACT_SIGMOID, ACT_TANH, ACT_RELU, ACT_AFFINE, ACT_LEAKY_RELU, ACT_THRESHOLDED_RELU,
  ACT_SCALED_TANH, ACT_HARD_SIGMOID, ACT_ELU, ACT_SOFTSIGN, ACT_SOFTPLUS,
} rnn_act_kind;

/* The activations the ONNX recurrent ops list: how many of alpha, beta each
 * takes and their defaults (the ONNX operators of the same names; Affine and
 * ScaledTanh as onnxruntime). */
static const struct {
  const char *name;
  rnn_act_kind kind;
  int n_params;
  float alpha, beta;
} act_table[] = {
    {"Sigmoid", ACT_SIGMOID, 0, 0, 0},
    {"Tanh", ACT_TANH, 0, 0, 0},
    {"Relu", ACT_RELU, 0, 0, 0},
    {"Affine", ACT_AFFINE, 2, 1.0f, 0.0f},
    {"LeakyRelu", ACT_LEAKY_RELU, 1, 0.01f, 0},
    {"ThresholdedRelu", ACT_THRESHOLDED_RELU, 1, 1.0f, 0},
    {"ScaledTanh", ACT_SCALED_TANH, 2, 1.0f, 1.0f},
    {"HardSigmoid", ACT_HARD_SIGMOID, 2, 0.2f, 0.5f},
    {"Elu", ACT_ELU, 1, 1.0f, 0},
    {"Softsign", ACT_SOFTSIGN, 0, 0, 0},
    {"Softplus", ACT_SOFTPLUS, 0, 0, 0},
};

typedef struct rnn_act {
  rnn_act_kind kind;
  float alpha, beta;
} rnn_act;

/* What every emitting helper needs. */
typedef struct rnn_ctx {
  onnx_ctx *c;
  onnx_node *n;
  ir_dtype dt;       /* X's float type */
  bool has_clip;
  float clip;
  ir_value *zero, *one; /* scalars of dt, made on first use */
} rnn_ctx;

/* ---- emitting --------------------------------------------------------------- */

static vkml_status scalar(rnn_ctx *r, double v, ir_value **out) {
  ir_type t = ir_type_make(r->dt, 0, NULL);
  void *data = onnx_alloc(r->c, ir_dtype_size(r->dt));
  if (!data) return ir_oom(NULL);
  ir_dtype_store_f64(r->dt, data, 0, v);
  return onnx_const_value(r->c, "rnn_scalar", &t, data, out);
}

static vkml_status zero_of(rnn_ctx *r, ir_value **out) {
  if (!r->zero) VKML_RETURN_IF_ERROR(scalar(r, 0.0, &r->zero));
  *out = r->zero;
  return VKML_OK;
}

static vkml_status one_of(rnn_ctx *r, ir_value **out) {
  if (!r->one) VKML_RETURN_IF_ERROR(scalar(r, 1.0, &r->one));
  *out = r->one;
  return VKML_OK;
}

static vkml_status unary(rnn_ctx *r, ir_op op, ir_value *x, ir_value **out) {
  return onnx_emit1(r->c, r->n, op, &x, 1, false, out);
}

static vkml_status binary(rnn_ctx *r, ir_op op, ir_value *a, ir_value *b, ir_value **out) {
  ir_value *ins[2] = {a, b};
  return onnx_emit1(r->c, r->n, op, ins, 2, false, out);
}

/* op with float attributes a0 (and a1 when id1 is not IR_A_COUNT). */
static vkml_status unary_attrs(rnn_ctx *r, ir_op op, ir_value *x, ir_attr_id id0, float a0,
                               ir_attr_id id1, float a1, ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(r->c, r->n, op, &x, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_float(r->c->g, nd, id0, a0));
  if (id1 != IR_A_COUNT) VKML_RETURN_IF_ERROR(ir_node_set_float(r->c->g, nd, id1, a1));
  VKML_RETURN_IF_ERROR(onnx_finish(r->c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

static vkml_status mul_scalar(rnn_ctx *r, ir_value *x, double k, ir_value **out) {
  ir_value *s;
  VKML_RETURN_IF_ERROR(scalar(r, k, &s));
  return binary(r, IR_OP_MUL, x, s, out);
}

static vkml_status reshape(rnn_ctx *r, ir_value *v, int rank, const int64_t *dims,
                           ir_value **out) {
  bool same = v->type.rank == rank;
  for (int i = 0; same && i < rank; i++) same = v->type.dims[i] == dims[i];
  if (same) {
    *out = v;
    return VKML_OK;
  }
  return onnx_reshape(r->c, r->n, v, rank, dims, false, out);
}

/* v[start:end] along axis. */
static vkml_status slice(rnn_ctx *r, ir_value *v, int64_t axis, int64_t start, int64_t end,
                         ir_value **out) {
  if (start == 0 && end == v->type.dims[axis]) {
    *out = v;
    return VKML_OK;
  }
  ir_node *nd;
  int64_t step = 1;
  VKML_RETURN_IF_ERROR(onnx_emit(r->c, r->n, IR_OP_SLICE, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(r->c->g, nd, IR_A_STARTS, &start, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(r->c->g, nd, IR_A_ENDS, &end, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(r->c->g, nd, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(r->c->g, nd, IR_A_STEPS, &step, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(r->c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

/* v [..., Σ sizes] split along its last axis into k parts. */
static vkml_status split_last(rnn_ctx *r, ir_value *v, int k, const int64_t *sizes,
                              ir_value **parts) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(r->c, r->n, IR_OP_SPLIT, &v, 1, k, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(r->c->g, nd, IR_A_AXIS, v->type.rank - 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(r->c->g, nd, IR_A_SPLIT, sizes, k));
  VKML_RETURN_IF_ERROR(onnx_finish(r->c, nd));
  for (int i = 0; i < k; i++) parts[i] = nd->outputs[i];
  return VKML_OK;
}

/* a·bᵀ (+ cc when not NULL): a [M,K], b [N,K]. */
static vkml_status gemm_bt(rnn_ctx *r, ir_value *a, ir_value *b, ir_value *cc, ir_value **out) {
  ir_value *ins[3] = {a, b, cc};
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(r->c, r->n, IR_OP_GEMM, ins, cc ? 3 : 2, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(r->c->g, nd, IR_A_TRANS_B, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(r->c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

static vkml_status transpose(rnn_ctx *r, ir_value *v, const int64_t *perm, ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(r->c, r->n, IR_OP_TRANSPOSE, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(r->c->g, nd, IR_A_PERM, perm, v->type.rank));
  VKML_RETURN_IF_ERROR(onnx_finish(r->c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

/* parts concatenated along axis 0, as a tree of concats of at most
 * RNN_CONCAT_MAX_PARTS parts. parts is overwritten. */
static vkml_status concat0(rnn_ctx *r, ir_value **parts, int count, ir_value **out) {
  while (count > 1) {
    int n_groups = 0;
    for (int first = 0; first < count; first += RNN_CONCAT_MAX_PARTS) {
      int cnt = count - first < RNN_CONCAT_MAX_PARTS ? count - first : RNN_CONCAT_MAX_PARTS;
      if (cnt == 1) {
        parts[n_groups++] = parts[first];
        continue;
      }
      ir_node *nd;
      VKML_RETURN_IF_ERROR(onnx_emit(r->c, r->n, IR_OP_CONCAT, parts + first, cnt, 1, false,
                                     &nd));
      VKML_RETURN_IF_ERROR(ir_node_set_int(r->c->g, nd, IR_A_AXIS, 0));
      VKML_RETURN_IF_ERROR(onnx_finish(r->c, nd));
      parts[n_groups++] = nd->outputs[0];
    }
    count = n_groups;
  }
  *out = parts[0];
  return VKML_OK;
}

/* f(x), with the clip on its input. */
static vkml_status act_apply(rnn_ctx *r, const rnn_act *a, ir_value *x, ir_value **out) {
  if (r->has_clip)
    VKML_RETURN_IF_ERROR(unary_attrs(r, IR_OP_CLIP, x, IR_A_MIN, -r->clip, IR_A_MAX, r->clip,
                                     &x));
  ir_value *t, *u;
  switch (a->kind) {
  case ACT_SIGMOID: return unary(r, IR_OP_SIGMOID, x, out);
  case ACT_TANH: return unary(r, IR_OP_TANH, x, out);
  case ACT_RELU: return unary(r, IR_OP_RELU, x, out);
  case ACT_SOFTPLUS: return unary(r, IR_OP_SOFTPLUS, x, out);
  case ACT_LEAKY_RELU:
    return unary_attrs(r, IR_OP_LEAKY_RELU, x, IR_A_ALPHA, a->alpha, IR_A_COUNT, 0, out);
  case ACT_ELU: return unary_attrs(r, IR_OP_ELU, x, IR_A_ALPHA, a->alpha, IR_A_COUNT, 0, out);
  case ACT_HARD_SIGMOID:
    return unary_attrs(r, IR_OP_HARD_SIGMOID, x, IR_A_ALPHA, a->alpha, IR_A_BETA, a->beta,
                       out);
  case ACT_AFFINE: /* alpha·x + beta */
    VKML_RETURN_IF_ERROR(mul_scalar(r, x, a->alpha, &t));
    VKML_RETURN_IF_ERROR(scalar(r, a->beta, &u));
    return binary(r, IR_OP_ADD, t, u, out);
  case ACT_SCALED_TANH: /* alpha·tanh(beta·x) */
    VKML_RETURN_IF_ERROR(mul_scalar(r, x, a->beta, &t));
    VKML_RETURN_IF_ERROR(unary(r, IR_OP_TANH, t, &t));
    return mul_scalar(r, t, a->alpha, out);
  case ACT_THRESHOLDED_RELU: /* x > alpha ? x : 0 */
    VKML_RETURN_IF_ERROR(scalar(r, a->alpha, &u));
    VKML_RETURN_IF_ERROR(binary(r, IR_OP_GREATER, x, u, &t));
    VKML_RETURN_IF_ERROR(zero_of(r, &u));
    {
      ir_value *ins[3] = {t, x, u};
      return onnx_emit1(r->c, r->n, IR_OP_WHERE, ins, 3, false, out);
    }
  case ACT_SOFTSIGN: /* x / (1 + |x|) */
    VKML_RETURN_IF_ERROR(unary(r, IR_OP_ABS, x, &t));
    VKML_RETURN_IF_ERROR(one_of(r, &u));
    VKML_RETURN_IF_ERROR(binary(r, IR_OP_ADD, t, u, &t));
    return binary(r, IR_OP_DIV, x, t, out);
  }
  return onnx_error(VKML_CODE_INTERNAL, "activation kind %d", (int)a->kind);
}

/* where(mask, a, b); a when there is no mask. */
static vkml_status masked(rnn_ctx *r, ir_value *mask, ir_value *a, ir_value *b, ir_value **out) {
  if (!mask) {
    *out = a;
    return VKML_OK;
  }
  ir_value *ins[3] = {mask, a, b};
  return onnx_emit1(r->c, r->n, IR_OP_WHERE, ins, 3, false, out);
}

/* ---- attributes ---------------------------------------------------------------- */

static bool name_eq(const char *a, size_t a_len, const char *b) {
  if (a_len != strlen(b)) return false;
  for (size_t i = 0; i < a_len; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
  return true;
}

/* The activations of every direction: n_act per direction, from the
 * attribute (n_act names reused by both directions, or n_act per direction)
 * or the op's defaults. */
static vkml_status read_activations(onnx_node *n, int n_act, int n_dirs,
                                    const rnn_act_kind *dflt, rnn_act *acts) {
  const Onnx__AttributeProto *a = onnx_attr(n, "activations");
  if (!a) {
    for (int d = 0; d < n_dirs; d++)
      for (int k = 0; k < n_act; k++) {
        acts[d * n_act + k].kind = dflt[k];
        acts[d * n_act + k].alpha = acts[d * n_act + k].beta = 0;
      }
    return VKML_OK;
  }
  int count = (int)a->n_strings;
  if (count != n_act && count != n_act * n_dirs)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'activations' lists %d function%s; "
                      "%s takes %d per direction (%d direction%s)", count,
                      count == 1 ? "" : "s", n->op->name, n_act, n_dirs,
                      n_dirs == 1 ? "" : "s");
  const float *alphas, *betas;
  int n_alpha = onnx_attr_floats(n, "activation_alpha", &alphas);
  int n_beta = onnx_attr_floats(n, "activation_beta", &betas);
  int ia = 0, ib = 0;
  for (int i = 0; i < count; i++) {
    const char *s = a->strings[i].len ? (const char *)a->strings[i].data : "";
    size_t len = a->strings[i].len;
    int found = -1;
    for (int k = 0; k < (int)(sizeof act_table / sizeof act_table[0]); k++)
      if (name_eq(s, len, act_table[k].name)) found = k;
    if (found < 0)
      return onnx_error(VKML_CODE_UNSUPPORTED, "activation '%.*s' (activations[%d]) is not "
                        "one the ONNX recurrent ops list (Sigmoid, Tanh, Relu, Affine, "
                        "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, "
                        "Softplus)", len > 64 ? 64 : (int)len, s, i);
    rnn_act *o = &acts[i];
    o->kind = act_table[found].kind;
    o->alpha = act_table[found].alpha;
    o->beta = act_table[found].beta;
    if (act_table[found].n_params >= 1 && ia < n_alpha) o->alpha = alphas[ia++];
    if (act_table[found].n_params >= 2 && ib < n_beta) o->beta = betas[ib++];
  }
  if (count < n_act * n_dirs)
    for (int k = 0; k < n_act; k++) acts[n_act + k] = acts[k];
  return VKML_OK;
}

/* Input i's type checked: rank and dims (-1: any). */
static vkml_status check_input(onnx_node *n, int i, const char *what, int rank,
                               const int64_t *dims) {
  const ir_type *t = &n->in[i]->type;
  if (t->bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s ('%s') has a size known only at run time "
                      "(axis %d): the time loop is unrolled at import and needs static shapes",
                      what, n->in[i]->name, t->bounded_axis);
  bool ok = t->rank == rank;
  for (int k = 0; ok && k < rank; k++) ok = dims[k] < 0 || t->dims[k] == dims[k];
  if (ok) return VKML_OK;
  char want[96], got[96];
  int p = 0, q = 0;
  p += snprintf(want + p, sizeof want - (size_t)p, "[");
  for (int k = 0; k < rank && p < (int)sizeof want - 24; k++)
    p += dims[k] < 0 ? snprintf(want + p, sizeof want - (size_t)p, "%s?", k ? "," : "")
                     : snprintf(want + p, sizeof want - (size_t)p, "%s%lld", k ? "," : "",
                                (long long)dims[k]);
  snprintf(want + p, sizeof want - (size_t)p, "]");
  q += snprintf(got + q, sizeof got - (size_t)q, "[");
  for (int k = 0; k < t->rank && q < (int)sizeof got - 24; k++)
    q += snprintf(got + q, sizeof got - (size_t)q, "%s%lld", k ? "," : "",
                  (long long)t->dims[k]);
  snprintf(got + q, sizeof got - (size_t)q, "]");
  return onnx_error(VKML_CODE_INVALID_GRAPH, "%s ('%s') has shape %s, expected %s", what,
                    n->in[i]->name, got, want);
}

/* ---- the converter --------------------------------------------------------------- */

enum { IN_X, IN_W, IN_R, IN_B, IN_SEQ, IN_H0, IN_C0, IN_P };

vkml_status onnx_convert_rnn(onnx_ctx *c, onnx_node *n) {
  const char *op = n->op->name;
  rnn_kind kind = strcmp(op, "LSTM") == 0 ? RNN_LSTM : strcmp(op, "GRU") == 0 ? RNN_GRU
                                                                              : RNN_PLAIN;
  int n_gates = kind == RNN_LSTM ? 4 : kind == RNN_GRU ? 3 : 1;
  int n_act = kind == RNN_LSTM ? 3 : kind == RNN_GRU ? 2 : 1;
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, kind == RNN_LSTM ? 8 : 6));
  for (int i = 0; i < 3; i++)
    if (!onnx_has_input(n, i))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d (%s) is missing", i,
                        i == 0 ? "X" : i == 1 ? "W" : "R");

  /* attributes */
  const char *dir = onnx_attr_s(c, n, "direction", "forward");
  int64_t layout = c->opset >= 14 ? onnx_attr_i(n, "layout", 0) : 0;
  int64_t hidden_attr = onnx_attr_i(n, "hidden_size", -1);
  bool input_forget = kind == RNN_LSTM && onnx_attr_i(n, "input_forget", 0) != 0;
  bool lbr = kind == RNN_GRU && onnx_attr_i(n, "linear_before_reset", 0) != 0;
  rnn_ctx r = {.c = c, .n = n};
  r.has_clip = onnx_attr(n, "clip") != NULL;
  r.clip = onnx_attr_f(n, "clip", 0);
  if (n->err) return VKML_OK; /* the driver reports it */
  int n_dirs;
  bool fwd[2];
  if (strcmp(dir, "forward") == 0) n_dirs = 1, fwd[0] = true;
  else if (strcmp(dir, "reverse") == 0) n_dirs = 1, fwd[0] = false;
  else if (strcmp(dir, "bidirectional") == 0) n_dirs = 2, fwd[0] = true, fwd[1] = false;
  else
    return onnx_error(VKML_CODE_INVALID_GRAPH, "direction '%s' is none of forward, reverse, "
                      "bidirectional", dir);
  if (layout != 0 && layout != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "layout %lld is neither 0 nor 1",
                      (long long)layout);
  if (r.has_clip && !(r.clip > 0))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "clip %g is not a positive threshold",
                      (double)r.clip);
  static const rnn_act_kind dflt_lstm[] = {ACT_SIGMOID, ACT_TANH, ACT_TANH},
                            dflt_gru[] = {ACT_SIGMOID, ACT_TANH}, dflt_rnn[] = {ACT_TANH};
  rnn_act acts[6];
  VKML_RETURN_IF_ERROR(read_activations(n, n_act, n_dirs,
                                        kind == RNN_LSTM ? dflt_lstm
                                        : kind == RNN_GRU ? dflt_gru : dflt_rnn, acts));
  if (n->err) return VKML_OK;

  /* shapes */
  const ir_type *xt = &n->in[IN_X]->type;
  r.dt = xt->dtype;
  if (r.dt != IR_F32 && r.dt != IR_F16)
    return onnx_error(VKML_CODE_UNSUPPORTED, "X is %s: the recurrent ops take f32 or f16",
                      ir_dtype_name(r.dt));
  if (xt->bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "X ('%s') has a %s known only at run time: the "
                      "time loop is unrolled at import over a static sequence length",
                      n->in[IN_X]->name,
                      xt->bounded_axis == (layout ? 1 : 0) ? "sequence length" : "batch size");
  if (xt->rank != 3)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "X has rank %d, expected 3", xt->rank);
  int64_t S = xt->dims[layout ? 1 : 0], Bn = xt->dims[layout ? 0 : 1], I = xt->dims[2];
  const ir_type *rt = &n->in[IN_R]->type;
  int64_t H = rt->rank == 3 ? rt->dims[2] : hidden_attr;
  if (hidden_attr >= 0 && hidden_attr != H)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "hidden_size is %lld but R is [.., .., %lld]",
                      (long long)hidden_attr, (long long)H);
  if (H <= 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "hidden size %lld", (long long)H);
  int64_t GH = n_gates * H;
  VKML_RETURN_IF_ERROR(check_input(n, IN_W, "W", 3, (int64_t[]){n_dirs, GH, I}));
  VKML_RETURN_IF_ERROR(check_input(n, IN_R, "R", 3, (int64_t[]){n_dirs, GH, H}));
  if (onnx_has_input(n, IN_B))
    VKML_RETURN_IF_ERROR(check_input(n, IN_B, "B", 2, (int64_t[]){n_dirs, 2 * GH}));
  int64_t state_dims[3] = {layout ? Bn : n_dirs, layout ? n_dirs : Bn, H};
  if (onnx_has_input(n, IN_H0))
    VKML_RETURN_IF_ERROR(check_input(n, IN_H0, "initial_h", 3, state_dims));
  if (kind == RNN_LSTM && onnx_has_input(n, IN_C0))
    VKML_RETURN_IF_ERROR(check_input(n, IN_C0, "initial_c", 3, state_dims));
  if (kind == RNN_LSTM && onnx_has_input(n, IN_P))
    VKML_RETURN_IF_ERROR(check_input(n, IN_P, "P", 2, (int64_t[]){n_dirs, 3 * H}));
  for (int i = IN_W; i < n->n_in; i++)
    if (onnx_has_input(n, i) && i != IN_SEQ && n->in[i]->type.dtype != r.dt)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is %s, X %s", i,
                        ir_dtype_name(n->in[i]->type.dtype), ir_dtype_name(r.dt));
  if (S < 1)
    return onnx_error(VKML_CODE_UNSUPPORTED, "a sequence of length %lld", (long long)S);

  /* sequence_lens: a constant mask per step where some item has ended, or
   * the run-time lengths [B,1] to compare with each step */
  ir_value *seq_rt = NULL;
  int64_t *seq_vals = NULL;
  if (onnx_has_input(n, IN_SEQ)) {
    VKML_RETURN_IF_ERROR(check_input(n, IN_SEQ, "sequence_lens", 1, (int64_t[]){Bn}));
    const onnx_sym *s = n->in[IN_SEQ];
    if (!ir_dtype_is_int(s->type.dtype))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "sequence_lens is %s, expected int32",
                        ir_dtype_name(s->type.dtype));
    if (s->is_const) {
      seq_vals = onnx_alloc(c, sizeof *seq_vals * (size_t)Bn);
      if (!seq_vals) return ir_oom(NULL);
      for (int64_t b = 0; b < Bn; b++) {
        seq_vals[b] = (int64_t)ir_dtype_load_f64(s->type.dtype, s->data, b);
        if (seq_vals[b] < 0 || seq_vals[b] > S)
          return onnx_error(VKML_CODE_INVALID_GRAPH, "sequence_lens[%lld] is %lld, outside "
                            "[0, %lld]", (long long)b, (long long)seq_vals[b], (long long)S);
      }
    } else {
      VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, IN_SEQ, 2, (int64_t[]){Bn, 1}, &seq_rt));
    }
  }

  /* X as [S*B, I] in time order */
  ir_value *x;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_X, &x));
  if (layout) VKML_RETURN_IF_ERROR(transpose(&r, x, (int64_t[]){1, 0, 2}, &x));
  VKML_RETURN_IF_ERROR(reshape(&r, x, 2, (int64_t[]){S * Bn, I}, &x));

  ir_value *w_all, *r_all, *b_all = NULL, *h0_all = NULL, *c0_all = NULL, *p_all = NULL;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_W, &w_all));
  VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_R, &r_all));
  if (onnx_has_input(n, IN_B)) VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_B, &b_all));
  if (onnx_has_input(n, IN_H0)) VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_H0, &h0_all));
  if (kind == RNN_LSTM && onnx_has_input(n, IN_C0))
    VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_C0, &c0_all));
  if (kind == RNN_LSTM && onnx_has_input(n, IN_P))
    VKML_RETURN_IF_ERROR(onnx_input(c, n, IN_P, &p_all));

  /* the masks, shared by the directions: NULL where every item runs */
  ir_value **masks = onnx_alloc(c, sizeof *masks * (size_t)S);
  if (!masks) return ir_oom(NULL);
  for (int64_t t = 0; t < S; t++) {
    if (seq_vals) {
      bool all = true;
      for (int64_t b = 0; b < Bn; b++) all = all && t < seq_vals[b];
      if (all) continue;
      ir_type mt = ir_type_make(IR_BOOL, 2, (int64_t[]){Bn, 1});
      uint8_t *m = onnx_alloc(c, (size_t)Bn);
      if (!m) return ir_oom(NULL);
      for (int64_t b = 0; b < Bn; b++) m[b] = t < seq_vals[b];
      VKML_RETURN_IF_ERROR(onnx_const_value(c, "rnn_mask", &mt, m, &masks[t]));
    } else if (seq_rt) {
      ir_type st = ir_type_make(seq_rt->type.dtype, 0, NULL);
      void *d = onnx_alloc(c, ir_dtype_size(st.dtype));
      if (!d) return ir_oom(NULL);
      ir_dtype_store_f64(st.dtype, d, 0, (double)t);
      ir_value *tv;
      VKML_RETURN_IF_ERROR(onnx_const_value(c, "rnn_step", &st, d, &tv));
      VKML_RETURN_IF_ERROR(binary(&r, IR_OP_GREATER, seq_rt, tv, &masks[t]));
    }
  }

  /* per time step and direction, each [1,B,H] (Y's parts, time-major) */
  bool want_y = onnx_output_used(n, 0);
  ir_value **y_parts = want_y ? onnx_alloc(c, sizeof *y_parts * (size_t)(S * n_dirs)) : NULL;
  if (want_y && !y_parts) return ir_oom(NULL);
  ir_value *h_last[2], *c_last[2];
  int64_t bh[2] = {Bn, H}, bh3[3] = {1, Bn, H};

  for (int d = 0; d < n_dirs; d++) {
    const rnn_act *f = &acts[d * n_act], *g = &acts[d * n_act + 1], *hact = &acts[d * n_act + 2];
    ir_value *wd, *rd, *bias = NULL, *rbh = NULL;
    VKML_RETURN_IF_ERROR(slice(&r, w_all, 0, d, d + 1, &wd));
    VKML_RETURN_IF_ERROR(reshape(&r, wd, 2, (int64_t[]){GH, I}, &wd));
    VKML_RETURN_IF_ERROR(slice(&r, r_all, 0, d, d + 1, &rd));
    VKML_RETURN_IF_ERROR(reshape(&r, rd, 2, (int64_t[]){GH, H}, &rd));
    if (b_all) {
      /* the projection's bias: Wb + Rb, but for GRU's linear_before_reset
       * the h gate's Rbh goes inside r ⊙ (...) instead */
      ir_value *bd, *wb, *rb;
      VKML_RETURN_IF_ERROR(slice(&r, b_all, 0, d, d + 1, &bd));
      VKML_RETURN_IF_ERROR(reshape(&r, bd, 1, (int64_t[]){2 * GH}, &bd));
      VKML_RETURN_IF_ERROR(slice(&r, bd, 0, 0, GH, &wb));
      VKML_RETURN_IF_ERROR(slice(&r, bd, 0, GH, 2 * GH, &rb));
      if (lbr) {
        /* [Rbz, Rbr, 0]: a where against a constant mask of the gates */
        ir_value *keep, *zero;
        VKML_RETURN_IF_ERROR(slice(&r, rb, 0, 2 * H, GH, &rbh));
        ir_type mt = ir_type_make(IR_BOOL, 1, (int64_t[]){GH});
        uint8_t *m = onnx_alloc(c, (size_t)GH);
        if (!m) return ir_oom(NULL);
        for (int64_t k = 0; k < GH; k++) m[k] = k < 2 * H;
        VKML_RETURN_IF_ERROR(onnx_const_value(c, "rnn_gates", &mt, m, &keep));
        VKML_RETURN_IF_ERROR(zero_of(&r, &zero));
        VKML_RETURN_IF_ERROR(masked(&r, keep, rb, zero, &rb));
      }
      VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, wb, rb, &bias));
    }
    /* every step's X·Wᵀ + bias at once: [S, B, G·H] */
    ir_value *xw;
    VKML_RETURN_IF_ERROR(gemm_bt(&r, x, wd, bias, &xw));
    VKML_RETURN_IF_ERROR(reshape(&r, xw, 3, (int64_t[]){S, Bn, GH}, &xw));
    ir_value *r_zr = rd, *r_h = NULL;
    if (kind == RNN_GRU) {
      VKML_RETURN_IF_ERROR(slice(&r, rd, 0, 0, 2 * H, &r_zr));
      VKML_RETURN_IF_ERROR(slice(&r, rd, 0, 2 * H, GH, &r_h));
    }
    /* the initial states [B,H] (zeros when absent) */
    ir_value *hs, *cs = NULL;
    ir_value *init[2] = {h0_all, c0_all}, **state[2] = {&hs, &cs};
    for (int k = 0; k < (kind == RNN_LSTM ? 2 : 1); k++) {
      if (init[k]) {
        VKML_RETURN_IF_ERROR(slice(&r, init[k], layout ? 1 : 0, d, d + 1, state[k]));
        VKML_RETURN_IF_ERROR(reshape(&r, *state[k], 2, bh, state[k]));
      } else {
        ir_type zt = ir_type_make(r.dt, 2, bh);
        void *z = onnx_alloc(c, (size_t)ir_type_bytes(&zt));
        if (!z) return ir_oom(NULL);
        VKML_RETURN_IF_ERROR(onnx_const_value(c, "rnn_zeros", &zt, z, state[k]));
      }
    }
    ir_value *pi = NULL, *po = NULL, *pf = NULL;
    if (p_all) {
      ir_value *pd;
      VKML_RETURN_IF_ERROR(slice(&r, p_all, 0, d, d + 1, &pd));
      VKML_RETURN_IF_ERROR(reshape(&r, pd, 1, (int64_t[]){3 * H}, &pd));
      VKML_RETURN_IF_ERROR(slice(&r, pd, 0, 0, H, &pi));
      VKML_RETURN_IF_ERROR(slice(&r, pd, 0, H, 2 * H, &po));
      VKML_RETURN_IF_ERROR(slice(&r, pd, 0, 2 * H, 3 * H, &pf));
    }

    for (int64_t k = 0; k < S; k++) {
      int64_t t = fwd[d] ? k : S - 1 - k;
      ir_value *xt_, *pre, *hn, *cn = NULL, *tmp, *tmp2;
      VKML_RETURN_IF_ERROR(slice(&r, xw, 0, t, t + 1, &xt_));
      VKML_RETURN_IF_ERROR(reshape(&r, xt_, 2, (int64_t[]){Bn, GH}, &xt_));
      if (kind == RNN_PLAIN) {
        VKML_RETURN_IF_ERROR(gemm_bt(&r, hs, rd, xt_, &pre));
        VKML_RETURN_IF_ERROR(act_apply(&r, f, pre, &hn));
      } else if (kind == RNN_LSTM) {
        ir_value *gt[4]; /* i, o, f, c */
        VKML_RETURN_IF_ERROR(gemm_bt(&r, hs, rd, xt_, &pre));
        VKML_RETURN_IF_ERROR(split_last(&r, pre, 4, (int64_t[]){H, H, H, H}, gt));
        ir_value *it, *ft, *ct, *ot;
        if (pi) {
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, cs, pi, &tmp));
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, gt[0], tmp, &gt[0]));
        }
        VKML_RETURN_IF_ERROR(act_apply(&r, f, gt[0], &it));
        if (input_forget) {
          VKML_RETURN_IF_ERROR(one_of(&r, &tmp));
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_SUB, tmp, it, &ft));
        } else {
          if (pf) {
            VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, cs, pf, &tmp));
            VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, gt[2], tmp, &gt[2]));
          }
          VKML_RETURN_IF_ERROR(act_apply(&r, f, gt[2], &ft));
        }
        VKML_RETURN_IF_ERROR(act_apply(&r, g, gt[3], &ct));
        /* Ct = ft ⊙ Ct-1 + it ⊙ ct */
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, ft, cs, &tmp));
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, it, ct, &tmp2));
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, tmp, tmp2, &cn));
        if (po) {
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, cn, po, &tmp));
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, gt[1], tmp, &gt[1]));
        }
        VKML_RETURN_IF_ERROR(act_apply(&r, f, gt[1], &ot));
        VKML_RETURN_IF_ERROR(act_apply(&r, hact, cn, &tmp));
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, ot, tmp, &hn));
      } else {
        ir_value *xp[2], *zr[2], *zt, *rt_, *ht;
        VKML_RETURN_IF_ERROR(split_last(&r, xt_, 2, (int64_t[]){2 * H, H}, xp));
        VKML_RETURN_IF_ERROR(gemm_bt(&r, hs, r_zr, xp[0], &pre));
        VKML_RETURN_IF_ERROR(split_last(&r, pre, 2, (int64_t[]){H, H}, zr));
        VKML_RETURN_IF_ERROR(act_apply(&r, f, zr[0], &zt));
        VKML_RETURN_IF_ERROR(act_apply(&r, f, zr[1], &rt_));
        if (lbr) {
          /* g(Xh + Wbh + rt ⊙ (H·Rhᵀ + Rbh)) */
          VKML_RETURN_IF_ERROR(gemm_bt(&r, hs, r_h, rbh, &tmp));
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, rt_, tmp, &tmp));
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, xp[1], tmp, &tmp));
        } else {
          /* g(Xh + Wbh + Rbh + (rt ⊙ H)·Rhᵀ) */
          VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, rt_, hs, &tmp));
          VKML_RETURN_IF_ERROR(gemm_bt(&r, tmp, r_h, xp[1], &tmp));
        }
        VKML_RETURN_IF_ERROR(act_apply(&r, g, tmp, &ht));
        /* Ht = (1 - zt) ⊙ ht + zt ⊙ Ht-1 = ht + zt ⊙ (Ht-1 - ht) */
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_SUB, hs, ht, &tmp));
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_MUL, zt, tmp, &tmp));
        VKML_RETURN_IF_ERROR(binary(&r, IR_OP_ADD, ht, tmp, &hn));
      }
      /* an item past its length keeps its state and outputs 0 */
      ir_value *mask = masks[t], *y, *zero = NULL;
      if (mask && want_y) VKML_RETURN_IF_ERROR(zero_of(&r, &zero));
      if (want_y) {
        VKML_RETURN_IF_ERROR(masked(&r, mask, hn, zero, &y));
        VKML_RETURN_IF_ERROR(reshape(&r, y, 3, bh3, &y_parts[t * n_dirs + d]));
      }
      VKML_RETURN_IF_ERROR(masked(&r, mask, hn, hs, &hs));
      if (cn) VKML_RETURN_IF_ERROR(masked(&r, mask, cn, cs, &cs));
    }
    h_last[d] = hs;
    c_last[d] = cs;
  }

  /* Y [S, dirs, B, H] (layout 1: [B, S, dirs, H]) */
  if (want_y) {
    ir_value *y;
    VKML_RETURN_IF_ERROR(concat0(&r, y_parts, (int)(S * n_dirs), &y));
    VKML_RETURN_IF_ERROR(reshape(&r, y, 4, (int64_t[]){S, n_dirs, Bn, H}, &y));
    if (layout) VKML_RETURN_IF_ERROR(transpose(&r, y, (int64_t[]){2, 0, 1, 3}, &y));
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, 0, y));
  }
  /* Y_h, Y_c [dirs, B, H] (layout 1: [B, dirs, H]) */
  for (int k = 1; k <= (kind == RNN_LSTM ? 2 : 1); k++) {
    if (!onnx_output_used(n, k)) continue;
    ir_value *parts[2], *v;
    for (int d = 0; d < n_dirs; d++)
      VKML_RETURN_IF_ERROR(reshape(&r, k == 1 ? h_last[d] : c_last[d], 3, bh3, &parts[d]));
    VKML_RETURN_IF_ERROR(concat0(&r, parts, n_dirs, &v));
    if (layout) VKML_RETURN_IF_ERROR(transpose(&r, v, (int64_t[]){1, 0, 2}, &v));
    VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, k, v));
  }
  return VKML_OK;
}
