/* pass_fuse_attention: scaled dot-product attention as exporters write it,
 *
 *   s = matmul(q, kt) {alpha}          q [..,M,D], kt [..,D,N]
 *   s = s * c  or  s / c               (optional, repeated; c one-element constants)
 *   s = s + bias                       (optional, bias broadcasting to s)
 *   s = reshape(reshape(s, [B/W, W, H, M, N]) + mask, [B, H, M, N])
 *                                      (optional: Swin's shifted windows)
 *   p = softmax(s, axis = last)
 *   y = matmul(p, v)                   v [..,N,Dv]
 *
 * becomes one attention node (q, kt, v[, bias]) {alpha}: the scores and
 * probabilities ([..,M,N], 16 x 197 x 197 floats per ViT layer) never
 * reach memory, and three to five dispatches become one
 * (glsl/attention.comp). A window mask becomes part of the bias: the mask
 * plus the bias (one add, where both are there), reshaped to [B, H, M, N]'s
 * rank (folded into one constant where mask and bias are constants and
 * opts->eval is set, pass_fold_node), where that broadcasts (its two leading axes both whole or both 1:
 * batch 1, or a mask per batch and window). Every intermediate must be read by the next node
 * only and be no graph output; q, kt and v of one float dtype with equal
 * batch axes (no broadcast), nothing bounded, default layouts; the
 * products without fused activations and the second without alpha.
 *
 * Runs after fuse_bias (which leaves attention's q and k scalings in the
 * first product's alpha) and before fuse_elementwise (which would take the
 * bias add into a fused kernel), on a GPU target only, when the graph is
 * placed (vkc --attention off: none). The CPU runs the op too
 * (runtime/cpu/k_attention.c), so placement may still put it there.
 *
 * In fp16 on a target with cooperative matrices, only products of fewer
 * than FP16_MAX_KEYS keys: there the two batched matmuls run on the tensor
 * cores while the attention kernel computes in fp32 on the FMA units. On
 * the H200 (bench/results/2026-11-28-attention.md, call 3) fp16 ViT-B/16
 * and ViT-L/16 (197 keys) ran 2-4 % slower with it, Swin-T (49) and
 * ViT-B/32 (50) 2-5 % faster; in fp32 all four gain 5-11 %. */
#include <math.h>
#include <stdlib.h>

#include "ir/params.h"
#include "passes/pass.h"

#define FP16_MAX_KEYS 128

static bool plain(const ir_value *v, ir_dtype dt) {
  return v->type.dtype == dt && !v->type.bounded && v->layout == IR_LAYOUT_DEFAULT;
}

/* v is read by one node and is no graph output: it may disappear */
static bool private_value(const ir_graph *g, const int *uses, const ir_value *v) {
  return uses[v->id] == 1 && !ir_value_is_graph_output(g, v);
}

static bool no_act(const ir_node *n) {
  return ir_node_int(n, IR_A_ACT, IR_ACT_NONE) == IR_ACT_NONE;
}

/* The one-element float constant of mul or div node n by which its other
 * operand x is scaled (*scale: c, or 1/c for div), or false. */
static bool scalar_scale(const ir_graph *g, const ir_node *n, ir_value **x, double *scale) {
  if ((n->op != IR_OP_MUL && n->op != IR_OP_DIV) || n->n_inputs != 2 || !no_act(n)) return false;
  for (int i = 0; i < 2; i++) {
    if (n->op == IR_OP_DIV && i == 0) continue; /* c / x is no scaling */
    const ir_value *k = n->inputs[i];
    const void *data = ir_value_const_data(g, k);
    if (!data || ir_type_numel(&k->type) != 1 || k->type.dtype != n->outputs[0]->type.dtype)
      continue;
    if (!ir_type_equal(&n->inputs[1 - i]->type, &n->outputs[0]->type)) continue;
    double c = ir_dtype_load_f64(k->type.dtype, data, 0);
    *scale = n->op == IR_OP_DIV ? 1.0 / c : c;
    if (!isfinite(*scale)) return false;
    *x = n->inputs[1 - i];
    return true;
  }
  return false;
}

#define MAX_SCALES 4

typedef struct match {
  ir_node *qk, *add, *softmax, *pv;
  ir_node *r1, *add_mask, *r2; /* the window mask's reshapes and add, or NULL */
  ir_value *mask;
  ir_type bias5, bias4; /* with a mask: mask + bias, and that as the bias */
  ir_node *scales[MAX_SCALES];
  int n_scales;
  ir_value *q, *kt, *v, *bias;
  double alpha;
} match;

static bool is_reshape(const ir_node *n) {
  return n && n->op == IR_OP_RESHAPE && n->n_inputs == 1 && n->n_outputs == 1;
}

/* Whether scores s (4-D) are reshape(reshape(s4, [B/W, W, H, M, N]) + mask,
 * s's dims), every intermediate private; the parts in *m. */
static bool window_mask(const ir_graph *g, const int *uses, const ir_value *s, ir_dtype dt,
                        match *m) {
  ir_node *r2 = s->producer;
  if (!is_reshape(r2) || s->type.rank != 4) return false;
  ir_value *x5 = r2->inputs[0];
  ir_node *a2 = x5->producer;
  if (!plain(x5, dt) || !private_value(g, uses, x5) || !a2 || a2->op != IR_OP_ADD ||
      a2->n_inputs != 2 || !no_act(a2))
    return false;
  for (int i = 0; i < 2; i++) {
    ir_value *a = a2->inputs[i], *mk = a2->inputs[1 - i];
    ir_node *r1 = a->producer;
    if (!is_reshape(r1) || !plain(a, dt) || !private_value(g, uses, a) || !plain(mk, dt) ||
        a->type.rank != 5 || mk->type.rank > 5 || !ir_type_equal(&a->type, &x5->type))
      continue;
    const ir_value *s4 = r1->inputs[0];
    const int64_t *d5 = a->type.dims, *d4 = s4->type.dims;
    if (!plain(s4, dt) || !private_value(g, uses, s4) || !ir_type_equal(&s4->type, &s->type) ||
        d5[0] * d5[1] != d4[0] || d5[2] != d4[1] || d5[3] != d4[2] || d5[4] != d4[3])
      continue;
    m->r1 = r1;
    m->add_mask = a2;
    m->r2 = r2;
    m->mask = mk;
    return true;
  }
  return false;
}

/* With a window mask: the mask plus the bias (5-D), and its 4-D form if it
 * broadcasts to the scores (file comment); false otherwise. */
static bool mask_bias(match *m) {
  const ir_type *s5 = &m->r1->outputs[0]->type;
  ir_type b5 = m->mask->type;
  if (m->bias) {
    const ir_type *b = &m->bias->type; /* broadcast over the windows' batch in 4-D */
    if (b->rank == 4 && b->dims[0] != 1) return false;
    vkml_status st = ir_broadcast(&m->mask->type, b, &b5);
    if (st) {
      vkml_status_free(st);
      return false;
    }
  }
  int64_t d[5];
  for (int i = 0; i < 5; i++) d[i] = i < 5 - b5.rank ? 1 : b5.dims[i - (5 - b5.rank)];
  bool whole = d[0] == s5->dims[0] && d[1] == s5->dims[1];
  if (!whole && (d[0] != 1 || d[1] != 1)) return false;
  m->bias5 = b5;
  m->bias4 = ir_type_make(b5.dtype, 4, (int64_t[]){d[0] * d[1], d[2], d[3], d[4]});
  return true;
}

/* Whether the chain ending in product pv (y = matmul(p, v)) is attention
 * (file comment); its parts in *m. */
static bool matches(const ir_graph *g, const pass_opts *o, const int *uses, ir_node *pv,
                    match *m) {
  *m = (match){.pv = pv};
  if (pv->op != IR_OP_MATMUL || pv->n_inputs != 2 || pv->n_outputs != 1 || !no_act(pv) ||
      ir_node_float(pv, IR_A_ALPHA, 1.0f) != 1.0f)
    return false;
  ir_value *p = pv->inputs[0], *y = pv->outputs[0];
  ir_dtype dt = y->type.dtype;
  if ((dt != IR_F32 && dt != IR_F16) || !plain(y, dt) || !plain(p, dt) || !private_value(g, uses, p))
    return false;
  ir_node *sm = p->producer;
  int r = p->type.rank;
  if (!sm || sm->op != IR_OP_SOFTMAX || r < 2) return false;
  int64_t ax = ir_node_int(sm, IR_A_AXIS, -1);
  if (ax != -1 && ax != r - 1) return false;
  m->softmax = sm;
  ir_value *s = sm->inputs[0];
  if (!plain(s, dt) || !private_value(g, uses, s) || !s->producer) return false;
  if (window_mask(g, uses, s, dt, m)) s = m->r1->inputs[0];
  ir_node *n = s->producer;
  if (!n) return false;
  if (n->op == IR_OP_ADD && n->n_inputs == 2 && no_act(n)) {
    for (int i = 0; i < 2 && !m->add; i++) {
      ir_value *a = n->inputs[i], *b = n->inputs[1 - i];
      if (!a->producer || !ir_type_equal(&a->type, &s->type) || !plain(a, dt) ||
          !private_value(g, uses, a) || !plain(b, dt) || b->type.rank > r)
        continue;
      ir_node *an = a->producer;
      ir_value *x;
      double c;
      /* the scores' side: the product, or a scaling of it (checked below) */
      if (an->op != IR_OP_MATMUL && !scalar_scale(g, an, &x, &c)) continue;
      m->add = n;
      m->bias = b;
      s = a;
    }
    if (!m->add) return false;
    n = s->producer;
  }
  m->alpha = 1.0;
  ir_value *x;
  double c;
  while (scalar_scale(g, n, &x, &c)) {
    if (m->n_scales == MAX_SCALES || !plain(x, dt) || !private_value(g, uses, x) || !x->producer)
      return false;
    m->alpha *= c;
    m->scales[m->n_scales++] = n;
    n = x->producer;
  }
  if (n->op != IR_OP_MATMUL || n->n_inputs != 2 || n->n_outputs != 1 || !no_act(n)) return false;
  m->qk = n;
  m->alpha *= ir_node_float(n, IR_A_ALPHA, 1.0f);
  if (!isfinite(m->alpha)) return false;
  m->q = n->inputs[0];
  m->kt = n->inputs[1];
  m->v = pv->inputs[1];
  const ir_value *ops[3] = {m->q, m->kt, m->v};
  for (int i = 0; i < 3; i++) {
    if (!plain(ops[i], dt) || ops[i]->type.rank != r) return false;
    for (int k = 0; k < r - 2; k++)
      if (ops[i]->type.dims[k] != y->type.dims[k]) return false;
  }
  if (m->mask && !mask_bias(m)) return false;
  const ir_target *t = o->target;
  if (!o->fuse_attention_all && o->precision == IR_PRECISION_FP16 &&
      (t->coopmat_khr || t->coopmat_nv) &&
      m->kt->type.dims[r - 1] >= FP16_MAX_KEYS)
    return false;
  return true;
}

/* The window mask plus the bias as one 4-D bias before node `before`:
 * *add (NULL without a bias) and *reshape are the nodes made. */
static vkml_status combine_mask(ir_graph *g, const match *m, ir_node *before, ir_node **add,
                                ir_node **reshape) {
  const char *base = m->pv->outputs[0]->name;
  ir_value *b5 = m->mask;
  *add = NULL;
  if (m->bias) {
    ir_value *ins[2] = {m->mask, m->bias};
    const ir_type *t5[1] = {&m->bias5};
    VKML_RETURN_IF_ERROR(pass_node_insert(g, before, IR_OP_ADD, ins, 2, base, t5,
                                          (const char *const[]){".mask_bias"}, NULL, 1, add));
    b5 = (*add)->outputs[0];
  }
  const ir_type *t4[1] = {&m->bias4};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, before, IR_OP_RESHAPE, &b5, 1, base, t4,
                                        (const char *const[]){".attn_bias"}, NULL, 1, reshape));
  return ir_node_set_ints(g, *reshape, IR_A_SHAPE, m->bias4.dims, 4);
}

/* The mask plus the bias folded into one constant where both are constants
 * (Swin's mask and relative-position bias: 2.4 MB at Swin-B's first stage,
 * one dispatch fewer per shifted block). */
static vkml_status fold_mask(ir_graph *g, const pass_opts *opts, ir_node *add, ir_node *reshape) {
  bool folded = true;
  if (add) VKML_RETURN_IF_ERROR(pass_fold_node(g, add, opts, &folded));
  if (folded) VKML_RETURN_IF_ERROR(pass_fold_node(g, reshape, opts, &folded));
  return VKML_OK;
}

static vkml_status rewrite(ir_graph *g, const pass_opts *opts, const match *m) {
  ir_value *ins[4] = {m->q, m->kt, m->v, m->bias};
  ir_node *mask_add = NULL, *mask_reshape = NULL;
  if (m->mask) {
    VKML_RETURN_IF_ERROR(combine_mask(g, m, m->pv, &mask_add, &mask_reshape));
    ins[3] = mask_reshape->outputs[0];
  }
  ir_value *y = m->pv->outputs[0];
  ir_node *at;
  const ir_type *types[1] = {&y->type};
  const char *sfx[1] = {""};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, m->pv, IR_OP_ATTENTION, ins, ins[3] ? 4 : 3, y->name,
                                        types, sfx, &y, 1, &at));
  if (m->alpha != 1.0) VKML_RETURN_IF_ERROR(ir_node_set_float(g, at, IR_A_ALPHA, (float)m->alpha));
  const char *name = ir_node_string(m->qk, IR_A_NAME);
  if (name) VKML_RETURN_IF_ERROR(ir_node_set_string(g, at, IR_A_NAME, name));
  ir_node *gone[6] = {m->pv, m->softmax, m->r2, m->add_mask, m->r1, m->add};
  for (int i = 0; i < 6; i++)
    if (gone[i]) ir_node_remove(g, gone[i]);
  for (int i = 0; i < m->n_scales; i++) ir_node_remove(g, m->scales[i]);
  ir_node_remove(g, m->qk);
  return mask_reshape ? fold_mask(g, opts, mask_add, mask_reshape) : VKML_OK;
}

bool pass_attention_wanted(const pass_opts *opts) {
  return opts && opts->target && opts->place && !opts->no_fuse_attention &&
         ir_target_is_gpu(opts->target);
}

vkml_status pass_fuse_attention(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (!pass_attention_wanted(opts)) return VKML_OK;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  vkml_status s = VKML_OK;
  bool any = false;
  for (ir_node *n = g->first, *next; n && !s; n = next) {
    next = n->next;
    match m;
    if (!matches(g, opts, uses, n, &m)) continue;
    s = rewrite(g, opts, &m);
    any = any || !s;
  }
  free(uses);
  if (changed) *changed = any;
  if (s || !any) return s;
  int dropped;
  return ir_graph_drop_unused_values(g, &dropped);
}
