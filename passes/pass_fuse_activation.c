/* pass_fuse_activation: an activation whose input is the only use of a
 * node that takes a fused activation (conv2d, conv_transpose2d, gemm,
 * matmul, add/sub/mul/div: IR_OPF_ACT) and has none yet becomes that node's
 * `act` (ir/ops.h ir_act): relu, clip (relu6 when it is [0, 6]), leaky_relu,
 * elu, sigmoid, tanh, hard_sigmoid, hard_swish. The producer takes over the
 * activation's output name.
 *
 * Also the activations exporters spell out, on a producer output x read by
 * exactly these two nodes: silu = mul(x, sigmoid(x)), and hard_swish =
 * mul(x, hard_sigmoid(x) {alpha=1/6, beta=0.5}) (PyTorch before opset 14;
 * the fused act divides by 6 where the spelled form multiplies by the f32
 * nearest 1/6, a difference of one rounding).
 *
 * Not fused: gelu (0.5 * x * (1 + erf(x / sqrt 2)), five nodes), which has
 * no ir_act; integer outputs (the act has no integer form). */
#include <math.h>
#include <stdlib.h>

#include "passes/pass.h"

/* The fused form of activation node u, or false if it has none. */
static bool act_of(const ir_node *u, ir_act *kind, float *alpha, float *beta) {
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
    int want_uses = 1;
    if (spelled_act(u, uses, &x, &hs, &kind)) {
      alpha = beta = 0;
      want_uses = 2;
    } else if (!act_of(u, &kind, &alpha, &beta)) {
      continue;
    }
    ir_node *p = x->producer;
    if (!p || !(ir_op_get(p->op)->flags & IR_OPF_ACT) || p->n_outputs != 1) continue;
    if (uses[x->id] != want_uses || !ir_dtype_is_float(x->type.dtype)) continue;
    if (ir_node_int(p, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) continue;
    if (!ir_type_equal(&x->type, &u->outputs[0]->type) || x->layout != u->outputs[0]->layout ||
        p->device != u->device)
      continue;
    s = set_act(g, p, kind, alpha, beta);
    if (s) break;
    if (hs) {
      if (next == hs) next = hs->next;
      ir_node_remove(g, hs);
    }
    pass_node_absorb(g, p, 0, u);
    if (changed) *changed = true;
  }
  free(uses);
  return s;
}
