/* pass_fold_batchnorm: a batchnorm whose input is the only use of a conv2d
 * or gemm output folds into that node's weights and bias.
 *
 *   y = (x - mean) * s + bias, s = scale / sqrt(var + epsilon), per channel c
 *   conv:  w'[c,...] = w[c,...] * s[c];   b'[c] = (b[c] - mean[c]) * s[c] + bias[c]
 *   gemm (channel = column n of the [M,N] output, y = alpha*A*B + beta*C):
 *          B' column n = B column n * s[n];  C'[n] = C[n]*s[n] + (bias[n] - mean[n]*s[n]) / beta
 *
 * Only when everything folded is a float constant of the same dtype, the
 * producer has no fused activation yet (the batchnorm comes after it), and
 * for gemm C is absent or a constant of shape [N] or [1,N] with beta != 0.
 * A missing bias is created. Arithmetic in double, as the CPU batchnorm,
 * rounded once to the weights' dtype; new constants come from
 * pass_const_create, the old ones are left to dce. The batchnorm's output
 * name survives (the producer takes it over). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"

static bool is_float_const(const ir_value *v, ir_dtype dt) {
  return ir_value_is_const(v) && v->type.dtype == dt;
}

/* Per-channel s[] and t[] = bias - mean * s, from the batchnorm's constants. */
static vkml_status bn_affine(const ir_graph *g, const ir_node *bn, int64_t c, double **s_out,
                             double **t_out) {
  double *sc = NULL, *bi = NULL, *me = NULL, *va = NULL;
  vkml_status st = pass_const_read_f64(g, bn->inputs[1], &sc);
  if (!st) st = pass_const_read_f64(g, bn->inputs[2], &bi);
  if (!st) st = pass_const_read_f64(g, bn->inputs[3], &me);
  if (!st) st = pass_const_read_f64(g, bn->inputs[4], &va);
  double eps = ir_node_float(bn, IR_A_EPSILON, 1e-5f);
  if (!st)
    for (int64_t i = 0; i < c; i++) {
      sc[i] = sc[i] / sqrt(va[i] + eps);
      bi[i] = bi[i] - me[i] * sc[i];
    }
  free(me);
  free(va);
  if (st) {
    free(sc);
    free(bi);
    return st;
  }
  *s_out = sc;
  *t_out = bi;
  return VKML_OK;
}

/* Sets input i of n (growing the input array for a new bias). */
static vkml_status set_input(ir_graph *g, ir_node *n, int i, ir_value *v) {
  if (i >= n->n_inputs) {
    ir_value **in = ir_arena_alloc(g->arena, sizeof *in * (size_t)(i + 1));
    if (!in) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    memcpy(in, n->inputs, sizeof *in * (size_t)n->n_inputs);
    n->inputs = in;
    n->n_inputs = i + 1;
  }
  n->inputs[i] = v;
  return VKML_OK;
}

/* What folds where: weight element i belongs to channel i / inner (conv,
 * gemm with trans_b) or i % c (gemm without: B is [K,N]). */
typedef struct fold_job {
  const ir_value *w, *b; /* b may be NULL */
  int64_t c;             /* channels */
  int64_t inner;         /* weight elements per channel (conv, gemm trans_b) */
  bool by_column;        /* gemm without trans_b: channel = i % c */
  double b_div;          /* gemm: 1 / beta applied to t (1 for conv) */
} fold_job;

/* Writes p's new weights (scaled per channel) and bias (input bias_input). */
static vkml_status fold(ir_graph *g, ir_node *p, const fold_job *j, const double *s,
                        const double *t, int bias_input) {
  ir_dtype dt = j->w->type.dtype;
  double *w = NULL, *b = NULL;
  void *nw = NULL, *nb = NULL;
  int64_t nwel = ir_type_numel(&j->w->type);
  vkml_status st = pass_const_read_f64(g, j->w, &w);
  if (!st && j->b) st = pass_const_read_f64(g, j->b, &b);
  nw = malloc((size_t)ir_type_bytes(&j->w->type) + 1);
  nb = malloc((size_t)j->c * ir_dtype_size(dt) + 1);
  if (!st && (!nw || !nb)) st = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  if (!st) {
    for (int64_t i = 0; i < nwel; i++) {
      int64_t ch = j->by_column ? i % j->c : i / j->inner;
      ir_dtype_store_f64(dt, nw, i, w[i] * s[ch]);
    }
    for (int64_t ch = 0; ch < j->c; ch++) {
      double old = b ? b[ch] * s[ch] : 0;
      ir_dtype_store_f64(dt, nb, ch, old + t[ch] * j->b_div);
    }
    ir_type bt = j->b ? j->b->type : ir_type_make(dt, 1, &j->c);
    ir_value *wv, *bv;
    st = pass_const_create(g, j->w->name, ".bn", &j->w->type, nw, &wv);
    if (!st) st = pass_const_create(g, j->b ? j->b->name : p->outputs[0]->name,
                                    j->b ? ".bn" : ".bias", &bt, nb, &bv);
    if (!st) st = set_input(g, p, 1, wv);
    if (!st) st = set_input(g, p, bias_input, bv);
  }
  free(w);
  free(b);
  free(nw);
  free(nb);
  return st;
}

/* Whether bn (reading p's only output) folds into p; fills the job. */
static bool foldable(const ir_node *p, const ir_node *bn, fold_job *j) {
  const ir_value *x = p->outputs[0];
  ir_dtype dt = x->type.dtype;
  if (dt != IR_F32 && dt != IR_F16) return false;
  if (ir_node_int(p, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) return false;
  for (int i = 1; i < 5; i++)
    if (!is_float_const(bn->inputs[i], dt)) return false;
  const ir_value *w = p->inputs[1], *b = p->n_inputs > 2 ? p->inputs[2] : NULL;
  if (!is_float_const(w, dt) || (b && !is_float_const(b, dt))) return false;
  int64_t c = x->type.dims[1];
  *j = (fold_job){.w = w, .b = b, .c = c, .b_div = 1};
  if (p->op == IR_OP_CONV2D) {
    if (w->type.rank != 4 || w->type.dims[0] != c || c == 0) return false;
    if (b && (b->type.rank != 1 || b->type.dims[0] != c)) return false;
    j->inner = ir_type_numel(&w->type) / c;
    return true;
  }
  /* gemm */
  double beta = ir_node_float(p, IR_A_BETA, 1.0f);
  if (x->type.rank != 2 || w->type.rank != 2 || c == 0) return false;
  if (b) {
    bool row = (b->type.rank == 1 && b->type.dims[0] == c) ||
               (b->type.rank == 2 && b->type.dims[0] == 1 && b->type.dims[1] == c);
    if (!row || beta == 0) return false;
    j->b_div = 1.0 / beta;
  }
  if (ir_node_int(p, IR_A_TRANS_B, 0)) {
    if (w->type.dims[0] != c) return false;
    j->inner = w->type.dims[1];
  } else {
    if (w->type.dims[1] != c) return false;
    j->by_column = true;
  }
  return true;
}

vkml_status pass_fold_batchnorm(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  vkml_status st = VKML_OK;
  for (ir_node *bn = g->first, *next; bn && !st; bn = next) {
    next = bn->next;
    if (bn->op != IR_OP_BATCHNORM) continue;
    ir_value *x = bn->inputs[0];
    ir_node *p = x->producer;
    if (!p || (p->op != IR_OP_CONV2D && p->op != IR_OP_GEMM) || p->n_outputs != 1) continue;
    if (uses[x->id] != 1 || x->layout != IR_LAYOUT_DEFAULT) continue;
    fold_job j;
    if (!foldable(p, bn, &j)) continue;
    double *s = NULL, *t = NULL;
    st = bn_affine(g, bn, j.c, &s, &t);
    if (!st) st = fold(g, p, &j, s, t, 2);
    if (!st && p->op == IR_OP_GEMM && !j.b) st = ir_node_set_float(g, p, IR_A_BETA, 1.0f);
    free(s);
    free(t);
    if (st) break;
    pass_node_absorb(g, p, 0, bn);
    if (changed) *changed = true;
  }
  free(uses);
  return st;
}
