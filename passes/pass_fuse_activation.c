/* pass_fuse_activation: an activation whose input is the only use of a
 * node that takes a fused activation (conv2d, conv_transpose2d, gemm,
 * matmul, add/sub/mul/div, reduce_sum: IR_OPF_ACT) and has none yet
 * becomes that node's `act` (ir/ops.h ir_act): relu, clip (relu6 when it
 * is [0, 6]), leaky_relu, elu, sigmoid, tanh, hard_sigmoid, hard_swish.
 * The producer takes over the activation's output name. Also through a
 * reshape, flatten, squeeze or unsqueeze between them whose input the view
 * alone reads (through_view): the activation goes onto the producer and
 * the view takes its output name.
 *
 * Also the activations exporters spell out, on a producer output x read by
 * exactly these two nodes: silu = mul(x, sigmoid(x)), and hard_swish =
 * mul(x, hard_sigmoid(x) {alpha=1/6, beta=0.5}) (PyTorch before opset 14;
 * the fused act divides by 6 where the spelled form multiplies by the f32
 * nearest 1/6, a difference of one rounding).
 *
 * And gelu as PyTorch and ONNX exports spell it, five nodes on x (read by
 * exactly two of them): 0.5 * x * (1 + erf(x / sqrt 2)), the three factors
 * multiplied in any grouping and operand order, x / sqrt 2 also as
 * x * (1 / sqrt 2), 1 + erf also as erf + 1; constants of one element
 * within float rounding of 0.5, sqrt 2 (1 / sqrt 2) and 1, every
 * intermediate read by the chain only and of x's type.
 *
 * Not fused: gelu's tanh spelling (eight nodes reading x four times; the
 * act exists, gelu_tanh); a gelu chain on x without a fusible producer (a
 * graph input, layer_norm: there is no unary gelu op to fall back to, so it
 * stays five nodes); integer outputs (the act has no integer form). */
#include <math.h>
#include <stdlib.h>

#include "passes/pass.h"

bool pass_act_of(const ir_node *u, ir_act *kind, float *alpha, float *beta) {
  *alpha = 0;
  *beta = 0;
  switch (u->op) {
  case IR_OP_RELU: *kind = IR_ACT_RELU; return true;
  case IR_OP_SIGMOID: *kind = IR_ACT_SIGMOID; return true;
  case IR_OP_TANH: *kind = IR_ACT_TANH; return true;
  case IR_OP_HARD_SWISH: *kind = IR_ACT_HARD_SWISH; return true;
  case IR_OP_LEAKY_RELU:
    *kind = IR_ACT_LEAKY_RELU;
    *alpha = ir_node_float(u, IR_A_ALPHA, 0.01f);
    return true;
  case IR_OP_ELU:
    *kind = IR_ACT_ELU;
    *alpha = ir_node_float(u, IR_A_ALPHA, 1.0f);
    return true;
  case IR_OP_HARD_SIGMOID:
    *kind = IR_ACT_HARD_SIGMOID;
    *alpha = ir_node_float(u, IR_A_ALPHA, 0.2f);
    *beta = ir_node_float(u, IR_A_BETA, 0.5f);
    return true;
  case IR_OP_CLIP:
    *alpha = ir_node_float(u, IR_A_MIN, -INFINITY);
    *beta = ir_node_float(u, IR_A_MAX, INFINITY);
    *kind = *alpha == 0.0f && *beta == 6.0f ? IR_ACT_RELU6 : IR_ACT_CLIP;
    return true;
  default: return false;
  }
}

static vkml_status set_act(ir_graph *g, ir_node *p, ir_act kind, float alpha, float beta) {
  VKML_RETURN_IF_ERROR(ir_node_set_enum(g, p, IR_A_ACT, (int)kind));
  bool a = kind == IR_ACT_CLIP || kind == IR_ACT_LEAKY_RELU || kind == IR_ACT_ELU ||
           kind == IR_ACT_HARD_SIGMOID;
  bool b = kind == IR_ACT_CLIP || kind == IR_ACT_HARD_SIGMOID;
  if (a) VKML_RETURN_IF_ERROR(ir_node_set_float(g, p, IR_A_ACT_ALPHA, alpha));
  if (b) VKML_RETURN_IF_ERROR(ir_node_set_float(g, p, IR_A_ACT_BETA, beta));
  return VKML_OK;
}

/* Whether mul node u is x * sigmoid(x) (silu) or x * hard_sigmoid(x) with
 * hard_swish's constants, in either operand order; *x receives x, *h the
 * sigmoid node, *kind the act. */
static bool spelled_act(const ir_node *u, const int *uses, ir_value **x, ir_node **h,
                        ir_act *kind) {
  if (u->op != IR_OP_MUL || ir_node_int(u, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) return false;
  for (int k = 0; k < 2; k++) {
    ir_value *a = u->inputs[k], *b = u->inputs[1 - k];
    ir_node *p = b->producer;
    if (!p || p->inputs[0] != a || uses[b->id] != 1) continue;
    if (p->op == IR_OP_SIGMOID) {
      *kind = IR_ACT_SILU;
    } else if (p->op == IR_OP_HARD_SIGMOID) {
      float alpha = ir_node_float(p, IR_A_ALPHA, 0.2f), beta = ir_node_float(p, IR_A_BETA, 0.5f);
      if (fabsf(alpha - 1.0f / 6.0f) > 1e-7f || beta != 0.5f) continue;
      *kind = IR_ACT_HARD_SWISH;
    } else {
      continue;
    }
    if (uses[a->id] != 2 || !ir_type_equal(&a->type, &u->outputs[0]->type)) continue;
    *x = a;
    *h = p;
    return true;
  }
  return false;
}

/* ---- gelu = 0.5 * x * (1 + erf(x / sqrt 2)) ---------------------------- */

/* The intermediate nodes of a matched gelu chain, all removed on fusion. */
typedef struct gelu_chain {
  ir_node *nodes[4];
  int n_nodes;
} gelu_chain;

/* v is a float constant of one element within float rounding of want. */
static bool const_near(const ir_graph *g, const ir_value *v, double want) {
  if (!ir_value_is_const(v) || ir_type_numel(&v->type) != 1) return false;
  double *d = NULL;
  vkml_status s = pass_const_read_f64(g, v, &d);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  double tol = v->type.dtype == IR_F16 ? 1.0 / 1024 : 1e-6; /* a few ulps, relative */
  bool ok = fabs(d[0] - want) <= tol * fabs(want);
  free(d);
  return ok;
}

/* v is produced by a node of op op without an act, read by the chain only
 * (one use), of type t: that node, or NULL. */
static ir_node *chain_node(const ir_value *v, const int *uses, ir_op op, const ir_type *t) {
  ir_node *p = v->producer;
  if (!p || p->op != op || p->n_outputs != 1 || uses[v->id] != 1) return NULL;
  if (ir_node_int(p, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) return NULL;
  return ir_type_equal(&v->type, t) ? p : NULL;
}

/* The operand of binary node n other than the constant near want, or NULL
 * (k: the operand that must be the constant, -1 for either). */
static ir_value *other_than_const(const ir_graph *g, const ir_node *n, int k, double want) {
  for (int i = 0; i < 2; i++)
    if ((k < 0 || k == i) && const_near(g, n->inputs[i], want)) return n->inputs[1 - i];
  return NULL;
}

/* a is 1 + erf(x / sqrt 2) for the given x: its three nodes go to c. */
static bool gelu_erf_term(const ir_graph *g, const ir_value *a, const ir_value *x,
                          const int *uses, gelu_chain *c) {
  ir_node *add = chain_node(a, uses, IR_OP_ADD, &x->type);
  ir_value *e = add ? other_than_const(g, add, -1, 1.0) : NULL;
  ir_node *erf = e ? chain_node(e, uses, IR_OP_ERF, &x->type) : NULL;
  if (!erf) return false;
  ir_value *d = erf->inputs[0];
  ir_node *scale = chain_node(d, uses, IR_OP_DIV, &x->type);
  if (scale) {
    if (other_than_const(g, scale, 1, 1.41421356237309505) != x) return false;
  } else {
    scale = chain_node(d, uses, IR_OP_MUL, &x->type);
    if (!scale || other_than_const(g, scale, -1, 0.70710678118654752) != x) return false;
  }
  c->nodes[c->n_nodes++] = add;
  c->nodes[c->n_nodes++] = erf;
  c->nodes[c->n_nodes++] = scale;
  return true;
}

/* Whether mul node u is gelu of some x: *x receives x, c the other four
 * nodes. u = f * m where m = mul of two of the factors {x, 0.5, A}. */
static bool spelled_gelu(const ir_graph *g, const ir_node *u, const int *uses, ir_value **x,
                         gelu_chain *c) {
  if (u->op != IR_OP_MUL || ir_node_int(u, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) return false;
  const ir_type *t = &u->outputs[0]->type;
  for (int k = 0; k < 2; k++) {
    ir_node *m = chain_node(u->inputs[k], uses, IR_OP_MUL, t);
    if (!m) continue;
    ir_value *f[3] = {u->inputs[1 - k], m->inputs[0], m->inputs[1]};
    for (int h = 0; h < 3; h++) { /* f[h] = 0.5 */
      if (!const_near(g, f[h], 0.5)) continue;
      for (int a = 0; a < 3; a++) { /* f[a] = 1 + erf(f[xi] / sqrt 2) */
        int xi = 3 - h - a;
        if (a == h || xi == h || xi == a) continue;
        c->n_nodes = 0;
        c->nodes[c->n_nodes++] = m;
        if (!ir_type_equal(&f[xi]->type, t) || !gelu_erf_term(g, f[a], f[xi], uses, c)) continue;
        *x = f[xi];
        return true;
      }
    }
  }
  return false;
}

/* The reshape (flatten, squeeze, unsqueeze) producing x, when its input z
 * is read by it alone (no graph output) and made by another node: the
 * activation on x can go onto z's producer (pass_fuse_bias leaves a
 * linear layer on a sequence as gemm -> reshape -> activation). NULL
 * otherwise. */
static ir_node *through_view(const ir_graph *g, const int *uses, const ir_value *x,
                             int want_uses) {
  ir_node *v = x->producer;
  if (!v || v->n_inputs < 1 || v->n_outputs != 1 || uses[x->id] != want_uses) return NULL;
  if (v->op != IR_OP_RESHAPE && v->op != IR_OP_FLATTEN && v->op != IR_OP_SQUEEZE &&
      v->op != IR_OP_UNSQUEEZE)
    return NULL;
  const ir_value *z = v->inputs[0];
  if (!z->producer || uses[z->id] != 1 || ir_value_is_graph_output(g, z) ||
      z->type.dtype != x->type.dtype || z->type.bounded || x->type.bounded ||
      z->layout != IR_LAYOUT_DEFAULT || x->layout != IR_LAYOUT_DEFAULT)
    return NULL;
  return v;
}

vkml_status pass_fuse_activation(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  vkml_status s = VKML_OK;
  for (ir_node *u = g->first, *next; u && !s; u = next) {
    next = u->next;
    ir_act kind;
    float alpha, beta;
    ir_value *x = u->inputs[0];
    ir_node *hs = NULL;
    gelu_chain chain = {{0}, 0};
    int want_uses = 1;
    if (spelled_act(u, uses, &x, &hs, &kind)) {
      alpha = beta = 0;
      want_uses = 2;
    } else if (spelled_gelu(g, u, uses, &x, &chain)) {
      kind = IR_ACT_GELU;
      alpha = beta = 0;
      want_uses = 2;
    } else if (!pass_act_of(u, &kind, &alpha, &beta)) {
      continue;
    }
    ir_node *p = x->producer, *view = through_view(g, uses, x, want_uses);
    if (view) p = view->inputs[0]->producer;
    if (!p || !(ir_op_get(p->op)->flags & IR_OPF_ACT) || p->n_outputs != 1) continue;
    if (uses[x->id] != want_uses || !ir_dtype_is_float(x->type.dtype)) continue;
    if (ir_node_int(p, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) continue;
    if (!ir_type_equal(&x->type, &u->outputs[0]->type) || x->layout != u->outputs[0]->layout ||
        p->device != u->device || (view && view->device != u->device))
      continue;
    s = set_act(g, p, kind, alpha, beta);
    if (s) break;
    if (hs) chain.nodes[chain.n_nodes++] = hs;
    /* the chain feeds u, so it precedes u (ir_verify): next is none of it */
    for (int i = 0; i < chain.n_nodes; i++) ir_node_remove(g, chain.nodes[i]);
    /* through a view, the view takes the activation's output over (an
     * activation is elementwise: act(view(z)) = view(act(z))) */
    pass_node_absorb(g, view ? view : p, 0, u);
    if (changed) *changed = true;
  }
  free(uses);
  return s;
}
