/* pass_attention_views: an attention node reads q, kt and v as strided views
 * of the values the copies before it read, and writes its result through
 * the transpose after it.
 *
 * Exporters split attention's heads out of one qkv projection ([tokens,
 * 3 * H * D]) and merge them back after it; fuse_copies leaves one
 * strided_copy per operand (q, k transposed, v) and the merge's transpose
 * ([.., H, M, DV] -> [.., M, H, DV]): four dispatches per layer around the
 * attention (ViT, Swin). Here an operand made by a strided_copy (no roll,
 * read by this node only, no graph output) becomes a view of the copy's
 * input (attention's dims / q_view / k_view / v_view), and a result read by
 * a transpose only becomes that transpose's output (attention's perm). So
 * the projection's output is read once, in place.
 *
 * Each operand's batch axes must form at most two strided runs (the GPU
 * kernel's addressing, ir_batch_runs): an operand that does not stays as
 * it is. GPU targets, when the graph is placed, unless --attention off.
 * Runs after fuse_copies (which makes the strided_copy nodes). */
#include <stdlib.h>
#include <string.h>

#include "ir/params.h"
#include "passes/pass.h"

static bool plain(const ir_value *v) {
  return !v->type.bounded && v->layout == IR_LAYOUT_DEFAULT;
}

/* Whether strides st over the logical dims (batch axes first) suit the
 * kernel: non-negative, batch axes in at most two runs. */
static bool kernel_view(const int64_t *dims, int r, const int64_t *st) {
  for (int i = 0; i < r; i++)
    if (st[i] < 0) return false;
  int64_t inner, s0, s1;
  return ir_batch_runs(dims, st, r - 2, &inner, &s0, &s1);
}

/* The copy whose output is operand k of n, if it can become a view: its
 * offset and strides into its input. */
static ir_node *view_copy(const ir_graph *g, const int *uses, const ir_node *n, int k,
                          const int64_t *ld, int r, int64_t *off, int64_t *st) {
  const ir_value *x = n->inputs[k];
  ir_node *c = x->producer;
  if (!c || c->op != IR_OP_STRIDED_COPY || c->n_inputs != 1 || uses[x->id] != 1 ||
      ir_value_is_graph_output(g, x) || c->device != IR_DEVICE_UNPLACED ||
      !plain(c->inputs[0]) || c->inputs[0]->type.dtype != x->type.dtype)
    return NULL;
  ir_strided_params p;
  vkml_status s = ir_strided_params_get(c, &c->inputs[0]->type, &p);
  if (s) {
    vkml_status_free(s);
    return NULL;
  }
  if (p.roll_rank || p.rank != r) return NULL;
  for (int i = 0; i < r; i++)
    if (p.dims[i] != ld[i]) return NULL;
  if (!kernel_view(ld, r, p.strides)) return NULL;
  *off = p.offset;
  memcpy(st, p.strides, sizeof(int64_t) * (size_t)r);
  return c;
}

/* The transpose reading n's result only, if the result can be written
 * through it. */
static ir_node *out_transpose(const ir_graph *g, const int *uses, const ir_node *n,
                              const ir_attention_params *p, int *perm) {
  const ir_value *y = n->outputs[0];
  if (uses[y->id] != 1 || ir_value_is_graph_output(g, y)) return NULL;
  ir_node *t = NULL;
  ir_foreach_node(g, m) {
    for (int i = 0; i < m->n_inputs; i++)
      if (m->inputs[i] == y) t = m;
  }
  if (!t || t->op != IR_OP_TRANSPOSE || t->n_inputs != 1 || t->n_outputs != 1 ||
      t->device != IR_DEVICE_UNPLACED || !plain(t->outputs[0]))
    return NULL;
  vkml_status s = ir_perm_get(t, p->rank, perm);
  if (s) {
    vkml_status_free(s);
    return NULL;
  }
  ir_attention_params q = *p;
  memcpy(q.perm, perm, sizeof q.perm);
  int64_t ys[IR_MAX_RANK];
  ir_attention_y_strides(&q, ys);
  return kernel_view(p->dims, p->rank, ys) ? t : NULL;
}

static vkml_status set_view(ir_graph *g, ir_node *n, ir_attr_id id, int64_t off,
                            const int64_t *st, int r) {
  int64_t v[IR_MAX_RANK + 1];
  v[0] = off;
  memcpy(v + 1, st, sizeof(int64_t) * (size_t)r);
  return ir_node_set_ints(g, n, id, v, r + 1);
}

/* Rewrites n where one of its operands or its result can go through a
 * view; *done says whether it did. */
static vkml_status rewrite(ir_graph *g, const int *uses, ir_node *n, bool *done) {
  *done = false;
  if (n->op != IR_OP_ATTENTION || n->device != IR_DEVICE_UNPLACED || n->n_outputs != 1 ||
      ir_node_ints(n, IR_A_DIMS, &(const int64_t *){NULL}) >= 0 ||
      ir_node_ints(n, IR_A_PERM, &(const int64_t *){NULL}) >= 0)
    return VKML_OK;
  ir_type types[4];
  for (int i = 0; i < n->n_inputs && i < 4; i++) types[i] = n->inputs[i]->type;
  ir_attention_params p;
  vkml_status s = ir_attention_params_get(n, types, n->n_inputs, &p);
  if (s) {
    vkml_status_free(s);
    return VKML_OK;
  }
  int r = p.rank;
  int64_t ld[3][IR_MAX_RANK], off[3] = {0, 0, 0}, st[3][IR_MAX_RANK];
  for (int k = 0; k < 3; k++) {
    memcpy(ld[k], n->inputs[k]->type.dims, sizeof ld[k]);
    memcpy(st[k], p.st[k], sizeof st[k]);
  }
  ir_node *copies[3];
  bool any = false;
  for (int k = 0; k < 3; k++) {
    copies[k] = view_copy(g, uses, n, k, ld[k], r, &off[k], st[k]);
    any = any || copies[k];
  }
  int perm[IR_MAX_RANK];
  ir_node *t = out_transpose(g, uses, n, &p, perm);
  if (!any && !t) return VKML_OK;
  if (any) {
    int64_t dims[IR_MAX_RANK + 2];
    memcpy(dims, p.dims, sizeof(int64_t) * (size_t)(r - 2));
    dims[r - 2] = p.m, dims[r - 1] = p.d, dims[r] = p.n, dims[r + 1] = p.dv;
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, n, IR_A_DIMS, dims, r + 2));
    static const ir_attr_id ids[3] = {IR_A_Q_VIEW, IR_A_K_VIEW, IR_A_V_VIEW};
    for (int k = 0; k < 3; k++) {
      VKML_RETURN_IF_ERROR(set_view(g, n, ids[k], off[k], st[k], r));
      if (copies[k]) n->inputs[k] = copies[k]->inputs[0];
    }
  }
  if (t) {
    int64_t pl[IR_MAX_RANK];
    for (int i = 0; i < r; i++) pl[i] = perm[i];
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, n, IR_A_PERM, pl, r));
    pass_node_absorb(g, n, 0, t);
  }
  *done = true;
  return VKML_OK;
}

vkml_status pass_attention_views(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (!pass_attention_wanted(opts)) return VKML_OK;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  vkml_status s = VKML_OK;
  bool any = false;
  for (ir_node *n = g->first; n; n = n->next) { /* (rewrite may remove the node after n) */
    char why[256];
    if (n->op != IR_OP_ATTENTION || opts->place(opts->place_user, n, why, sizeof why)) continue;
    bool done;
    s = rewrite(g, uses, n, &done);
    if (s) break;
    any = any || done;
  }
  free(uses);
  if (s) return s;
  if (changed) *changed = any;
  return any ? pass_dce(g, opts, NULL) : VKML_OK;
}
