/* pass_merge_pad: a constant pad of the spatial axes (H, W of a rank-4
 * tensor; none on N or C, none negative) whose only reader is a conv2d or a
 * pool folds into that node's own pads, when that is exact:
 *
 * - conv2d: the pad value is 0 (the conv pads with zeros);
 * - avgpool without ceil_mode, pad value 0: the pool counts the padded zeros
 *   (count_include_pad=1, set when the pool has no pads of its own, required
 *   when it has);
 * - maxpool without ceil_mode, dilation 1: the pool ignores its pads, so the
 *   pad value must never win a window — it is -inf, or at most the least
 *   value the input can take (a relu, a clip, a sigmoid in front); and every
 *   window must still hold an input element, i.e. the total pads on each
 *   side stay below the kernel size.
 *
 * ceil_mode is excluded because its rule for dropping a last window depends
 * on where the pool's own padding starts. */
#include <math.h>
#include <stdlib.h>

#include "ir/params.h"
#include "passes/pass.h"

/* A lower bound of every element of v, or -inf when none is known. */
static double lower_bound(const ir_value *v) {
  const ir_node *p = v->producer;
  if (!p) return -INFINITY;
  switch (p->op) {
  case IR_OP_RELU:
  case IR_OP_SIGMOID:
  case IR_OP_HARD_SIGMOID: return 0;
  case IR_OP_CLIP: return ir_node_float(p, IR_A_MIN, -INFINITY);
  default: break;
  }
  if (ir_op_get(p->op)->flags & IR_OPF_ACT) {
    ir_act_params a;
    ir_act_params_get(p, &a);
    switch (a.kind) {
    case IR_ACT_RELU:
    case IR_ACT_RELU6:
    case IR_ACT_SIGMOID:
    case IR_ACT_HARD_SIGMOID: return 0;
    case IR_ACT_CLIP: return a.alpha;
    default: break;
    }
  }
  return -INFINITY;
}

/* The spatial pads (top, left, bottom, right) of a mergeable pad node. */
static bool spatial_pads(const ir_node *pad, int64_t sp[4], float *value) {
  const ir_type *t = &pad->inputs[0]->type;
  if (t->rank != 4 || t->bounded) return false;
  ir_pad_params p;
  vkml_status s = ir_pad_params_get(pad, 4, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  if (p.mode != IR_PAD_CONSTANT) return false;
  for (int a = 0; a < 4; a++) {
    if (p.begins[a] < 0 || p.ends[a] < 0) return false;
    if (a < 2 && (p.begins[a] || p.ends[a])) return false;
  }
  sp[0] = p.begins[2];
  sp[1] = p.begins[3];
  sp[2] = p.ends[2];
  sp[3] = p.ends[3];
  *value = p.value;
  return true;
}

static bool pool_takes(const ir_node *pad, const ir_node *c, const int64_t sp[4], float value,
                       bool *set_cip) {
  ir_pool_params p;
  vkml_status s = ir_pool_params_get(c, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  if (p.ceil_mode) return false;
  bool own = p.pads[0] || p.pads[1] || p.pads[2] || p.pads[3];
  if (c->op == IR_OP_AVGPOOL) {
    if (value != 0.0f || (own && !p.count_include_pad)) return false;
    *set_cip = !p.count_include_pad;
    return true;
  }
  if (p.dilations[0] != 1 || p.dilations[1] != 1) return false;
  if (!(value == -INFINITY || (double)value <= lower_bound(pad->inputs[0]))) return false;
  for (int i = 0; i < 4; i++)
    if (p.pads[i] + sp[i] > p.kernel[i % 2] - 1) return false;
  return true;
}

static vkml_status merge(ir_graph *g, ir_node *pad, ir_node *c, const int64_t sp[4]) {
  const int64_t *old;
  int n = ir_node_ints(c, IR_A_PADS, &old);
  int64_t pads[4];
  for (int i = 0; i < 4; i++) pads[i] = (n == 4 ? old[i] : 0) + sp[i];
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, c, IR_A_PADS, pads, 4));
  c->inputs[0] = pad->inputs[0];
  ir_node_remove(g, pad);
  return VKML_OK;
}

vkml_status pass_merge_pad(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  vkml_status s = VKML_OK;
  for (ir_node *c = g->first; c && !s; c = c->next) {
    if (c->op != IR_OP_CONV2D && c->op != IR_OP_AVGPOOL && c->op != IR_OP_MAXPOOL) continue;
    ir_value *y = c->inputs[0];
    ir_node *pad = y->producer;
    if (!pad || pad->op != IR_OP_PAD || uses[y->id] != 1) continue;
    if (y->layout != IR_LAYOUT_DEFAULT || pad->inputs[0]->layout != IR_LAYOUT_DEFAULT) continue;
    int64_t sp[4];
    float value;
    if (!spatial_pads(pad, sp, &value)) continue;
    bool set_cip = false;
    if (c->op == IR_OP_CONV2D ? value != 0.0f : !pool_takes(pad, c, sp, value, &set_cip))
      continue;
    s = merge(g, pad, c, sp);
    if (!s && set_cip) s = ir_node_set_int(g, c, IR_A_COUNT_INCLUDE_PAD, 1);
    if (!s && changed) *changed = true;
  }
  free(uses);
  return s;
}
