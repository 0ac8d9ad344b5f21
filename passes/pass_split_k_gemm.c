/* pass_split_k_gemm: split-K across workgroups for gemm and matmul
 * products of few output tiles and a long k (the 197-token projections of
 * ViT-B/16 and ViT-L/16: a 197x4096 by 4096x1024 product is 64 tiles of
 * 64x64, half a wave on a 132-SM GPU, each walking all of k).
 *
 *   y = act(a [.., K] . b [K, N] + c)        b a constant, c optional
 * becomes S partial products in one batched matmul and their sum:
 *   at = transpose(reshape(a, [M, S, K/S]), [1, 0, 2])     [S, M, K/S]
 *   p  = matmul(at, b')                                   [S, M, N]
 *        b' [S, K/S, N]: b's rows s*K/S.. (b^T's when trans_b)
 *   y  = act(reshape(reduce_sum(p, axes=[0]), y's dims) + c)
 * with the activation on the sum when there is no c, and the reshape only
 * where y's dims are not [M, N]; a gemm's y read only by a reshape (a
 * linear layer on a sequence, as fuse_bias leaves it) gets its bias add
 * after that reshape, which it replaces. The transpose is a copy of a (M*K
 * elements, small beside the product's M*N*K); each partial is rounded to
 * y's type before the sum (S roundings where there was one, in fp16).
 * Runs after fuse_activation and before fuse_elementwise, which takes the
 * bias add into what follows (a residual add), and fp16, which converts the
 * new nodes like the rest; on a GPU target only, when the graph is placed
 * (vkc --split-k off: none).
 *
 * Which products: gemm with alpha 1, trans_a 0 and beta 1 (when it has c),
 * or matmul with a of rank >= 2 and b of rank 2; b constant, f32 or f16,
 * nothing bounded, default layouts; more than GEMM_MIN_ROWS rows (fewer
 * run on gemv, which streams b once); fewer than GEMM_SPLIT_MAX_TILES tiles
 * of 64x64 and a k of at least GEMM_SPLIT_MIN_TOTAL_K; S the largest of 16,
 * 8, 4, 2 with at most GEMM_SPLIT_TARGET_TILES tiles after the split,
 * dividing k, and leaving each part a k of at least GEMM_SPLIT_MIN_K. With
 * opts->split_k_factor the given S for every product of that structure
 * whose k it divides into parts of GEMM_SPLIT_MIN_K.
 *
 * The numbers are the H200's (bench/results/2026-11-28-split-k-gemm.md,
 * one-node products with every factor, fp32 and fp16): splits of a k of
 * 768-1024 lost (ViT's 768x768 projection 25 -> 28 us fp32, 17 -> 25 fp16),
 * those of k 3072-6144 won (fp32: ViT-B/16's MLP out 80 -> 56 us at S 8,
 * ViT-L/16's 108 -> 90 at S 4, 512 tiles at S 8 lost; ConvNeXt-L's
 * fourth-stage MLP out 200 -> 59 at S 16; fp16 1.1-1.7x); k 1536 gained
 * 5 % at best. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"

#define GEMM_TILE 64
#define GEMM_MIN_ROWS 8             /* codegen's CG_GEMV_MAX_ROWS */
#define GEMM_SPLIT_MAX_TILES 128    /* products with at least this many tiles keep one piece */
#define GEMM_SPLIT_TARGET_TILES 384 /* about three workgroups per SM of a 132-SM GPU */
#define GEMM_SPLIT_MIN_TOTAL_K 2048
#define GEMM_SPLIT_MIN_K 384

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t factor_of(const ir_node *n, const pass_opts *o);

typedef struct gemm_shape {
  int64_t m, k, n;
  bool trans_b;
  ir_value *c; /* NULL: none */
} gemm_shape;

static bool plain_float(const ir_value *v, ir_dtype dt) {
  return v->type.dtype == dt && !v->type.bounded && v->layout == IR_LAYOUT_DEFAULT;
}

/* Whether n is a product this pass may split; its sizes in *s. */
static bool shape_of(const ir_node *n, gemm_shape *s) {
  if ((n->op != IR_OP_GEMM && n->op != IR_OP_MATMUL) || n->n_outputs != 1 || n->n_inputs < 2)
    return false;
  const ir_value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
  ir_dtype dt = y->type.dtype;
  if ((dt != IR_F32 && dt != IR_F16) || !plain_float(a, dt) || !plain_float(b, dt) ||
      !plain_float(y, dt) || !ir_value_is_const(b) || b->type.rank != 2 || a->type.rank < 2)
    return false;
  memset(s, 0, sizeof *s);
  s->k = a->type.dims[a->type.rank - 1];
  if (n->op == IR_OP_GEMM) {
    if (ir_node_int(n, IR_A_TRANS_A, 0) || ir_node_float(n, IR_A_ALPHA, 1.0f) != 1.0f ||
        a->type.rank != 2)
      return false;
    if (n->n_inputs == 3) {
      if (ir_node_float(n, IR_A_BETA, 1.0f) != 1.0f || !plain_float(n->inputs[2], dt)) return false;
      s->c = n->inputs[2];
    }
    s->trans_b = ir_node_int(n, IR_A_TRANS_B, 0) != 0;
  } else if (n->n_inputs != 2 || ir_node_float(n, IR_A_ALPHA, 1.0f) != 1.0f) {
    return false;
  }
  s->n = b->type.dims[s->trans_b ? 0 : 1];
  if (b->type.dims[s->trans_b ? 1 : 0] != s->k || s->k < 1) return false;
  s->m = ir_type_numel(&a->type) / s->k;
  return s->m > GEMM_MIN_ROWS && s->n > GEMM_MIN_ROWS;
}

int64_t pass_split_k_gemm_factor(const ir_node *n, const pass_opts *o) {
  const ir_target *t = o ? o->target : NULL;
  if (!t || !o->place || o->no_split_k || (!ir_target_is_gpu(t) && !o->split_k_factor)) return 0;
  return factor_of(n, o);
}

static int64_t factor_of(const ir_node *n, const pass_opts *o) {
  gemm_shape s;
  if (!shape_of(n, &s)) return 0;
  if (o->split_k_factor) {
    int64_t f = o->split_k_factor;
    return s.k % f == 0 && s.k / f >= GEMM_SPLIT_MIN_K ? f : 0;
  }
  int64_t tiles = ceil_div(s.m, GEMM_TILE) * ceil_div(s.n, GEMM_TILE);
  if (tiles >= GEMM_SPLIT_MAX_TILES || s.k < GEMM_SPLIT_MIN_TOTAL_K) return 0;
  for (int64_t f = 16; f >= 2; f /= 2)
    if (tiles * f <= GEMM_SPLIT_TARGET_TILES && s.k % f == 0 && s.k / f >= GEMM_SPLIT_MIN_K)
      return f;
  return 0;
}

/* b' [S, K/S, N] from b [K, N] (or [N, K] when trans_b): the same rows of
 * k in order, as a new constant. */
static vkml_status split_b(ir_graph *g, const ir_value *b, const gemm_shape *s, int64_t f,
                           ir_value **out) {
  size_t es = ir_dtype_size(b->type.dtype);
  const char *src = ir_value_const_data(g, b);
  char *dst = malloc((size_t)(s->k * s->n) * es + 1);
  if (!src || !dst) {
    free(dst);
    return vkml_status_make(src ? VKML_CODE_OUT_OF_MEMORY : VKML_CODE_INTERNAL,
                            src ? "out of host memory" : "split_k: weights without data");
  }
  if (!s->trans_b) {
    memcpy(dst, src, (size_t)(s->k * s->n) * es); /* [K, N] is [S, K/S, N] already */
  } else {
    for (int64_t kk = 0; kk < s->k; kk++)
      for (int64_t j = 0; j < s->n; j++)
        memcpy(dst + (size_t)(kk * s->n + j) * es, src + (size_t)(j * s->k + kk) * es, es);
  }
  ir_type t = ir_type_make(b->type.dtype, 3, (int64_t[]){f, s->k / f, s->n});
  vkml_status st = pass_const_create(g, b->name, ".splitk", &t, dst, out);
  free(dst);
  return st;
}

static vkml_status copy_act(ir_graph *g, ir_node *dst, const ir_node *src) {
  static const ir_attr_id ids[] = {IR_A_ACT, IR_A_ACT_ALPHA, IR_A_ACT_BETA};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    if (!ir_node_attr(src, ids[i])) continue;
    if (ids[i] == IR_A_ACT)
      VKML_RETURN_IF_ERROR(ir_node_set_enum(g, dst, ids[i], (int)ir_node_int(src, ids[i], 0)));
    else
      VKML_RETURN_IF_ERROR(ir_node_set_float(g, dst, ids[i], ir_node_float(src, ids[i], 0)));
  }
  return VKML_OK;
}

/* One node of op on one or two inputs before n, output type t named
 * y's name + sfx, or the value take itself (a value it takes over). */
static vkml_status add_node(ir_graph *g, ir_node *n, ir_op op, ir_value *x, ir_value *x2,
                            const ir_type *t, const char *sfx, ir_value *take, ir_node **out) {
  ir_value *ins[2] = {x, x2};
  const ir_type *types[1] = {t};
  const char *sfxs[1] = {sfx};
  ir_value *outs[1] = {take};
  return pass_node_insert(g, n, op, ins, x2 ? 2 : 1, n->outputs[0]->name, types, sfxs,
                          take ? outs : NULL, 1, out);
}

/* The reshape that is y's only reader (how fuse_bias leaves a linear layer
 * on a sequence: gemm, then a reshape back to [.., M', N]) when the bias c
 * is a row that broadcasts along its output; NULL otherwise. The bias add
 * then goes after it, next to whatever reads it (a residual add, which
 * fuse_elementwise joins). */
static ir_node *bias_reshape(const ir_graph *g, const ir_value *y, const gemm_shape *s) {
  if (ir_value_is_graph_output(g, y)) return NULL;
  int64_t cn = ir_type_numel(&s->c->type);
  if (cn != 1 && (cn != s->n || s->c->type.dims[s->c->type.rank - 1] != s->n)) return NULL;
  ir_node *r = NULL;
  ir_foreach_node(g, u) {
    for (int i = 0; i < u->n_inputs; i++) {
      if (u->inputs[i] != y) continue;
      if (r || u->op != IR_OP_RESHAPE || u->n_outputs != 1) return NULL;
      r = u;
    }
  }
  if (!r) return NULL;
  const ir_type *o = &r->outputs[0]->type;
  return o->rank >= 1 && o->dims[o->rank - 1] == s->n && r->outputs[0]->layout == IR_LAYOUT_DEFAULT ? r : NULL;
}

/* Rewrites n (file comment); *next is the node after those it replaced. */
static vkml_status rewrite(ir_graph *g, ir_node *n, int64_t f, ir_node **next) {
  gemm_shape s;
  if (!shape_of(n, &s)) return vkml_status_make(VKML_CODE_INTERNAL, "split_k: not a product");
  ir_value *a = n->inputs[0], *y = n->outputs[0], *bv;
  ir_node *after = s.c ? bias_reshape(g, y, &s) : NULL;
  *next = after ? after->next : n->next;
  ir_value *out = after ? after->outputs[0] : y; /* what the last node produces */
  VKML_RETURN_IF_ERROR(split_b(g, n->inputs[1], &s, f, &bv));
  ir_dtype dt = y->type.dtype;
  bool flat = out->type.rank == 2; /* out is [M, N] itself */
  ir_type rows = ir_type_make(dt, 3, (int64_t[]){s.m, f, s.k / f});
  ir_type parts_a = ir_type_make(dt, 3, (int64_t[]){f, s.m, s.k / f});
  ir_type parts = ir_type_make(dt, 3, (int64_t[]){f, s.m, s.n});
  ir_type sum_t = ir_type_make(dt, 2, (int64_t[]){s.m, s.n});
  ir_node *r1, *tr, *mm, *sum, *r2, *add;
  VKML_RETURN_IF_ERROR(add_node(g, n, IR_OP_RESHAPE, a, NULL, &rows, ".splitk_rows", NULL, &r1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r1, IR_A_SHAPE, rows.dims, 3));
  VKML_RETURN_IF_ERROR(
      add_node(g, n, IR_OP_TRANSPOSE, r1->outputs[0], NULL, &parts_a, ".splitk_a", NULL, &tr));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, tr, IR_A_PERM, (int64_t[]){1, 0, 2}, 3));
  VKML_RETURN_IF_ERROR(
      add_node(g, n, IR_OP_MATMUL, tr->outputs[0], bv, &parts, ".partials", NULL, &mm));
  VKML_RETURN_IF_ERROR(add_node(g, n, IR_OP_REDUCE_SUM, mm->outputs[0], NULL, &sum_t, ".sum",
                                flat && !s.c ? out : NULL, &sum));
  int64_t axis = 0;
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, sum, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, sum, IR_A_KEEPDIMS, 0));
  ir_value *v = sum->outputs[0];
  if (!flat) {
    VKML_RETURN_IF_ERROR(add_node(g, n, IR_OP_RESHAPE, v, NULL, &out->type, ".summed",
                                  s.c ? NULL : out, &r2));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r2, IR_A_SHAPE, out->type.dims, out->type.rank));
    v = r2->outputs[0];
  }
  if (s.c) {
    VKML_RETURN_IF_ERROR(add_node(g, n, IR_OP_ADD, v, s.c, &out->type, ".biased", out, &add));
    VKML_RETURN_IF_ERROR(copy_act(g, add, n));
  } else {
    VKML_RETURN_IF_ERROR(copy_act(g, sum, n)); /* an activation commutes with the reshape */
  }
  if (after) ir_node_remove(g, after);
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_k_gemm(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  bool any = false;
  for (ir_node *n = g->first, *next; n; n = next) {
    next = n->next; /* the rewrite inserts before n, removes n (and its reshape) */
    int64_t f = pass_split_k_gemm_factor(n, opts);
    if (!f) continue;
    VKML_RETURN_IF_ERROR(rewrite(g, n, f, &next));
    any = true;
  }
  if (changed) *changed = any;
  int dropped;
  return any ? ir_graph_drop_unused_values(g, &dropped) : VKML_OK;
}
