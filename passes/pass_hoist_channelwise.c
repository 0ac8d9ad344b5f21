/* pass_hoist_channelwise: a batchnorm or a fusible activation (relu,
 * sigmoid, tanh, clip, leaky_relu, elu, hard_sigmoid, hard_swish) whose
 * input comes from a conv2d, conv_transpose2d, gemm or matmul through
 * reshapes and transposes moves before them, onto that node's output, where
 * fold_batchnorm and fuse_activation then take it. The 3-D convolutions'
 * lowering (frontend/onnx_conv3d.c) ends in such a chain:
 *
 *   conv2d [N·D, K, H, W] -> reshape [N, D, K, H·W] -> transpose [N, K, D, H·W]
 *     -> reshape [N, K, D, H, W] -> batchnorm -> relu
 *
 * An activation is elementwise, so any such chain commutes with it. A
 * batchnorm scales channel c (axis 1): it moves only when axis 1 at the
 * chain's end is, intact, the producer's channel axis (axis 1 of a conv's
 * [N, K, H, W], of a gemm's [M, N]): a transpose moves the axis, a reshape
 * keeps it when the dims before it multiply to the same count on both
 * sides and its size is the same, so every element keeps its channel.
 *
 * Only when every value on the chain is read by the next node alone (none
 * a graph output), nothing is bounded or packed, the producer has no fused
 * activation yet (an activation also goes onto a batchnorm hoisted before
 * it) and, for a batchnorm, is a conv2d or gemm whose weights
 * fold_batchnorm can scale (float constants: checked there; when they are
 * not, the batchnorm stays before the chain, as exact). */
#include <stdlib.h>

#include "passes/pass.h"

enum { MAX_CHAIN = 8 };

/* An activation fuse_activation fuses (pass_act_of). */
static bool fusible(const ir_node *u) {
  ir_act kind;
  float alpha, beta;
  return pass_act_of(u, &kind, &alpha, &beta);
}

static bool plain(const ir_value *v) {
  return !v->type.bounded && v->layout == IR_LAYOUT_DEFAULT;
}

/* Output axis a of a reshape from x to y: the input axis holding the same
 * elements at the same strides, or -1. */
static int reshape_axis_back(const ir_type *x, const ir_type *y, int a) {
  int64_t before = 1;
  for (int d = 0; d < a; d++) before *= y->dims[d];
  int64_t acc = 1;
  for (int d = 0; d < x->rank; d++) {
    if (acc == before && x->dims[d] == y->dims[a]) return d;
    acc *= x->dims[d];
  }
  return -1;
}

/* Walks from x back through single-reader reshapes and transposes; *start
 * receives the value where the chain begins, chain[] its nodes from x's
 * producer back, *axis the tracked axis (-1 in, -1 out: not tracked; -2
 * out: lost). Returns the chain's length. */
static int walk_back(const ir_graph *g, const int *uses, ir_value *x, ir_node **chain,
                     ir_value **start, int *axis) {
  int n = 0;
  ir_value *v = x;
  while (n < MAX_CHAIN && v->producer &&
         (v->producer->op == IR_OP_RESHAPE || v->producer->op == IR_OP_TRANSPOSE) &&
         uses[v->id] == 1 && !ir_value_is_graph_output(g, v) && plain(v) &&
         plain(v->producer->inputs[0])) {
    ir_node *p = v->producer;
    ir_value *in = p->inputs[0];
    if (*axis >= 0) {
      if (p->op == IR_OP_TRANSPOSE) {
        const int64_t *perm;
        int np = ir_node_ints(p, IR_A_PERM, &perm);
        *axis = np == v->type.rank ? (int)perm[*axis] : v->type.rank - 1 - *axis;
      } else {
        *axis = reshape_axis_back(&in->type, &v->type, *axis);
        if (*axis < 0) {
          *axis = -2;
          break;
        }
      }
    }
    chain[n++] = p;
    v = in;
  }
  *start = v;
  return n;
}

static bool takes(const ir_graph *g, const int *uses, const ir_node *u, const ir_value *start,
                  int axis) {
  const ir_node *p = start->producer;
  if (!p || uses[start->id] != 1 || ir_value_is_graph_output(g, start) || !plain(start) ||
      start->type.dtype != u->outputs[0]->type.dtype)
    return false;
  /* an activation also onto a batchnorm hoisted before it: fold_batchnorm
   * leaves it on the conv */
  if (u->op != IR_OP_BATCHNORM && p->op == IR_OP_BATCHNORM) return true;
  if (!(ir_op_get(p->op)->flags & IR_OPF_ACT) || ir_node_int(p, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE)
    return false;
  if (u->op != IR_OP_BATCHNORM) return true;
  return (p->op == IR_OP_CONV2D || p->op == IR_OP_GEMM) && axis == 1;
}

static vkml_status hoist(ir_graph *g, ir_node *u, ir_node **chain, int n, ir_value *start) {
  ir_value *ins[IR_MAX_NODE_OPERANDS];
  for (int i = 0; i < u->n_inputs; i++) ins[i] = u->inputs[i];
  ins[0] = start;
  const ir_type *types[1] = {&start->type};
  const char *suffix[1] = {"_h"};
  ir_node *nu;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, chain[n - 1], u->op, ins, u->n_inputs,
                                        start->name ? start->name : "hoist", types, suffix, NULL,
                                        1, &nu));
  VKML_RETURN_IF_ERROR(ir_node_copy_attrs(g, nu, u));
  chain[n - 1]->inputs[0] = nu->outputs[0];
  bool removed;
  pass_node_bypass(g, u, 0, &removed);
  if (!removed) /* cannot happen: u's input is a reshape's, read by u alone */
    return vkml_status_make(VKML_CODE_INTERNAL, "hoist_channelwise: %s stayed",
                            ir_op_name(u->op));
  return VKML_OK;
}

vkml_status pass_hoist_channelwise(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  for (bool again = true; again;) {
    again = false;
    int *uses = NULL;
    VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
    vkml_status s = VKML_OK;
    for (ir_node *u = g->first; u && !s && !again; u = u->next) {
      if (u->op != IR_OP_BATCHNORM && !fusible(u)) continue;
      ir_node *chain[MAX_CHAIN];
      ir_value *start;
      int axis = u->op == IR_OP_BATCHNORM ? 1 : -1;
      if (!plain(u->inputs[0]) || !plain(u->outputs[0])) continue;
      int n = walk_back(g, uses, u->inputs[0], chain, &start, &axis);
      if (!n || axis == -2 || !takes(g, uses, u, start, axis)) continue;
      s = hoist(g, u, chain, n, start);
      again = !s; /* the uses changed: count them again */
      if (!s && changed) *changed = true;
    }
    free(uses);
    VKML_RETURN_IF_ERROR(s);
  }
  return VKML_OK;
}
