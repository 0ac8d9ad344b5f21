/* pass_fuse_bias: a matmul whose only reader adds a constant row becomes a
 * gemm with that row as its bias, which the gemm kernels add in their
 * epilogue (one dispatch where there were two):
 *
 *   y = add(matmul(a [..., M', K], b [K, N]), c)    c: [N] or [1, ..., N],
 *                                                      or of one element
 *   ->  y = reshape(gemm(reshape(a, [M, K]), b, c'), y's dims)
 *
 * with M the product of a's leading dims (reshapes are views: no dispatch)
 * and c' the constant as a vector. This is how exporters write a linear
 * layer on a sequence (PyTorch's nn.Linear on [L, B, E] or [B, L, E]:
 * ViT-B/16's qkv projection and MLP, 24 of its adds). Runs before
 * hoist_channelwise, so that an activation after y moves onto the gemm and
 * fuse_activation takes it there.
 *
 * Only float tensors of one dtype, the matmul without a fused activation,
 * a of rank >= 2 and b of rank 2 (a batch of b's is another product),
 * neither bounded, the matmul's output read by the add alone (no graph
 * output), the add without an activation, and y of the matmul's type.
 *
 * Also the other linear term of a product's epilogue: an operand of a
 * matmul or gemm (not gemm's c) that is a mul by a one-element float
 * constant, read by that product alone, becomes the product's alpha
 * (times its alpha so far), the mul gone. Attention as torch exports it
 * scales q and k by d^-1/4 each before q.k^T: two dispatches per layer. */
#include <math.h>
#include <stdlib.h>

#include "passes/pass.h"

/* Whether c is a constant row for an [.., N] product: one element, or N
 * elements along the last axis with every other axis 1. */
static bool is_row(const ir_value *c, const ir_type *y) {
  if (!ir_value_is_const(c) || c->type.dtype != y->dtype || c->type.bounded ||
      c->type.rank > y->rank || c->layout != IR_LAYOUT_DEFAULT)
    return false;
  int64_t n = y->dims[y->rank - 1], count = ir_type_numel(&c->type);
  if (count == 1) return true;
  if (c->type.rank < 1 || c->type.dims[c->type.rank - 1] != n) return false;
  return count == n;
}

/* The matmul and the constant add n takes, or false. */
static bool takes(const ir_graph *g, const int *uses, const ir_node *n, ir_node **mm,
                  ir_value **row) {
  if (n->op != IR_OP_ADD || n->n_inputs != 2 || n->n_outputs != 1) return false;
  if (ir_node_int(n, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) return false;
  const ir_type *y = &n->outputs[0]->type;
  if (!ir_dtype_is_float(y->dtype) || y->bounded || y->rank < 2) return false;
  for (int i = 0; i < 2; i++) {
    ir_value *p = n->inputs[i], *c = n->inputs[1 - i];
    ir_node *m = p->producer;
    if (!m || m->op != IR_OP_MATMUL || m->n_inputs != 2 || m->n_outputs != 1) continue;
    if (uses[p->id] != 1 || ir_value_is_graph_output(g, p)) continue;
    if (ir_node_int(m, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) continue;
    const ir_value *a = m->inputs[0], *b = m->inputs[1];
    if (!ir_type_equal(&p->type, y) || p->layout != IR_LAYOUT_DEFAULT ||
        n->outputs[0]->layout != IR_LAYOUT_DEFAULT)
      continue;
    if (a->type.dtype != y->dtype || b->type.dtype != y->dtype || a->type.rank < 2 ||
        b->type.rank != 2 || a->type.bounded || b->type.bounded ||
        a->layout != IR_LAYOUT_DEFAULT || b->layout != IR_LAYOUT_DEFAULT)
      continue;
    if (!is_row(c, y)) continue;
    *mm = m;
    *row = c;
    return true;
  }
  return false;
}

static vkml_status rewrite(ir_graph *g, ir_node *add, ir_node *mm, ir_value *row) {
  ir_value *a = mm->inputs[0], *b = mm->inputs[1], *y = add->outputs[0];
  const ir_type *yt = &y->type;
  int64_t k = a->type.dims[a->type.rank - 1], n = yt->dims[yt->rank - 1], m = 1;
  for (int i = 0; i < a->type.rank - 1; i++) m *= a->type.dims[i];
  const char *base = y->name;
  /* the bias as a vector */
  ir_value *c = row;
  if (row->type.rank != 1) {
    int64_t cn = ir_type_numel(&row->type);
    ir_type ct = ir_type_make(row->type.dtype, 1, &cn);
    const void *data = ir_value_const_data(g, row);
    if (!data)
      return vkml_status_make(VKML_CODE_INTERNAL, "fuse_bias: constant %%%s without data",
                              row->name);
    VKML_RETURN_IF_ERROR(pass_const_create(g, row->name, ".row", &ct, data, &c));
  }
  ir_node *r1 = NULL, *gemm, *r2;
  ir_value *a2 = a;
  if (a->type.rank != 2) {
    ir_type at = ir_type_make(a->type.dtype, 2, (int64_t[]){m, k});
    const ir_type *types[1] = {&at};
    const char *sfx[1] = {".rows"};
    VKML_RETURN_IF_ERROR(
        pass_node_insert(g, mm, IR_OP_RESHAPE, &a, 1, base, types, sfx, NULL, 1, &r1));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r1, IR_A_SHAPE, at.dims, 2));
    a2 = r1->outputs[0];
  }
  bool flat = yt->rank == 2;
  ir_type gt = ir_type_make(yt->dtype, 2, (int64_t[]){m, n});
  const ir_type *types[1] = {&gt};
  const char *sfx[1] = {".gemm"};
  ir_value *ins[3] = {a2, b, c}, *outs[1] = {y};
  VKML_RETURN_IF_ERROR(
      pass_node_insert(g, add, IR_OP_GEMM, ins, 3, base, types, sfx, flat ? outs : NULL, 1, &gemm));
  float alpha = ir_node_float(mm, IR_A_ALPHA, 1.0f);
  if (alpha != 1.0f) VKML_RETURN_IF_ERROR(ir_node_set_float(g, gemm, IR_A_ALPHA, alpha));
  if (!flat) {
    ir_value *g0 = gemm->outputs[0];
    const ir_type *yts[1] = {yt};
    const char *ysfx[1] = {".out"};
    VKML_RETURN_IF_ERROR(
        pass_node_insert(g, add, IR_OP_RESHAPE, &g0, 1, base, yts, ysfx, outs, 1, &r2));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r2, IR_A_SHAPE, yt->dims, yt->rank));
  }
  ir_node_remove(g, add);
  ir_node_remove(g, mm);
  return VKML_OK;
}

/* The one-element float constant mul node m multiplies its other operand
 * by (*x the operand, *c its value), or false. */
static bool scalar_mul(const ir_graph *g, const ir_node *m, ir_value **x, float *c) {
  if (m->op != IR_OP_MUL || m->n_inputs != 2 || m->n_outputs != 1 ||
      ir_node_int(m, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE)
    return false;
  const ir_type *y = &m->outputs[0]->type;
  for (int i = 0; i < 2; i++) {
    ir_value *k = m->inputs[i], *o = m->inputs[1 - i];
    const void *data = ir_value_const_data(g, k);
    if (!data || ir_type_numel(&k->type) != 1 || k->type.dtype != y->dtype) continue;
    if (!ir_type_equal(&o->type, y) || o->layout != m->outputs[0]->layout) continue;
    *x = o;
    *c = (float)ir_dtype_load_f64(k->type.dtype, data, 0);
    return true;
  }
  return false;
}

/* Folds the scalar muls feeding products into their alpha (file comment). */
static bool fold_scales(ir_graph *g, const int *uses) {
  bool any = false;
  ir_foreach_node(g, p) {
    if (p->op != IR_OP_MATMUL && p->op != IR_OP_GEMM) continue;
    if (!ir_dtype_is_float(p->outputs[0]->type.dtype)) continue;
    for (int i = 0; i < 2 && i < p->n_inputs; i++) {
      ir_value *v = p->inputs[i], *x;
      ir_node *m = v->producer;
      float c;
      if (!m || uses[v->id] != 1 || ir_value_is_graph_output(g, v) || !scalar_mul(g, m, &x, &c))
        continue;
      if (!isfinite(c)) continue;
      vkml_status st = ir_node_set_float(g, p, IR_A_ALPHA, ir_node_float(p, IR_A_ALPHA, 1.0f) * c);
      if (st) { /* out of memory for an attribute: leave the mul */
        vkml_status_free(st);
        continue;
      }
      p->inputs[i] = x;
      ir_node_remove(g, m);
      any = true;
    }
  }
  return any;
}

vkml_status pass_fuse_bias(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  vkml_status s = VKML_OK;
  bool any = false;
  for (ir_node *n = g->first, *next; n && !s; n = next) {
    next = n->next;
    ir_node *mm;
    ir_value *row;
    if (!takes(g, uses, n, &mm, &row)) continue;
    s = rewrite(g, n, mm, row);
    if (!s) any = true;
  }
  free(uses);
  uses = NULL;
  if (!s) s = ir_graph_count_uses(g, &uses);
  if (!s && fold_scales(g, uses)) any = true;
  free(uses);
  if (changed) *changed = any;
  if (s || !any) return s;
  int dropped;
  return ir_graph_drop_unused_values(g, &dropped);
}
