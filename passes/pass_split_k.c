/* pass_split_k: split-K across workgroups for the tensor-core convs that
 * have too few outputs for the device and a long k (VGG-16's and ResNet-50's
 * convs at 28x28 down to 7x7: a few dozen output tiles, each walking a k of
 * 2304-4608 on one SM; bench/results/2026-11-28-vgg-fp16.md), and for fp32
 * convs on the scalar templates likewise (split_f32 below).
 *
 * The f16 (or f32) conv2d y = act(conv(x, w) + b) (one group, activation
 * none or relu) becomes S partial convs in one grouped conv2d and their sum:
 *   p = conv2d(x, w', b') {group = S}   w' [S*M, C/S, KH, KW]: group s is
 *                                        w's input channels s*C/S.. for all
 *                                        M outputs; b' = [b, 0, ..., 0]
 *   y = reshape(reduce_sum(reshape(p, [N, S, M, OH*OW]), axes=[1], act),
 *               [N, M, OH, OW])
 * so that conv2d_coopmat runs S times as many workgroups, each over k/S
 * (codegen/kernels/conv2d.c takes groups this large on the tensor cores).
 * Each partial is rounded to f16 before the sum: up to S roundings where
 * there was one (in f32, the order of the sum changes).
 *
 * With --layout nhwc (opts->layout), where the partial conv will run nhwc
 * (opts->layout_operands says so for its output), the sum is taken over
 * nhwc bytes instead: p's bytes [N, OH, OW, S, M] read through transposes
 * that relabel them (ir_node_relabels_nhwc: views, no copy),
 *   y = transpose(reshape(reduce_sum(reshape(transpose(p, [0,2,3,1]),
 *         [N*OH*OW, S, M]), axes=[1], act), [N, OH, OW, M]), [0,3,1,2])
 * so that the next conv reads y nhwc with no reorder between.
 *
 * Which convs in fp16: on a GPU target with cooperative matrices, when the
 * graph is placed; M >= 64; fewer than SPLIT_MAX_TILES tiles of
 * TILE_M x TILE_N outputs (conv2d_coopmat's largest tile); S the largest of
 * 8, 4, 2 with at most SPLIT_TARGET_TILES tiles after the split, dividing
 * C, and leaving each group a k of at least SPLIT_MIN_K. Measured on the
 * H100 (bench/results/2026-11-28-split-k.md): counted in 64x64 tiles the
 * rule took ResNet-50 fp16 from 1.03-1.07 to 0.87 ms and ResNet-18 from
 * 0.52 to 0.39 ms, and left VGG-16's 512@28 convs (104 such tiles) whole at
 * 4.7 % of the roof on 32x32 tiles; counted in 128x64 tiles it splits
 * those too. */
#include <stdlib.h>
#include <string.h>

#include "ir/params.h"
#include "passes/pass.h"

#define TILE_M 128
#define TILE_N 64
#define SPLIT_MAX_TILES 64     /* convs with at least this many tiles keep one piece */
#define SPLIT_TARGET_TILES 256 /* about two workgroups per SM of a 132-SM GPU */
#define SPLIT_MIN_K 256        /* each group's k (conv2d_coopmat's grouped rule) */

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* fp32 (the scalar templates: the grouped conv on conv2d_direct's 64x64
 * tiles): S, the largest of 8, 4, 2 that leaves at most F32_TARGET_TILES
 * tiles, where the whole conv makes fewer than F32_MAX_TILES, each group a k
 * of at least SPLIT_MIN_K. Measured on the H200
 * (bench/results/2026-11-29-video-split.md): mc3_18's convs (depths as the
 * batch) 3x3 512@16x7x7 (104 tiles) 0.31 -> 0.185 ms with S = 8 (0.21
 * with 4), 3x3 256@16x14x14 (196 tiles) 0.239 -> 0.163 with S = 4 (0.167
 * with 8), 3x3 128@16x28x28 (392 tiles) unchanged; at batch 1 ResNet-50's
 * 3x3 256@14 0.042 -> 0.030 and 512@7 0.055 -> 0.047 with S = 8. 1x1 convs
 * stay whole: with them split too, DenseNet-121 (its 1x1 convs of up to
 * 1024 channels at 14x14 and 7x7) took 2.35 -> 2.64 ms, GoogLeNet 0.75 ->
 * 0.83, MobileNetV2 0.39 -> 0.42 (ResNet-50's 1x1 2048 -> 512 at 7x7 lost
 * 10 % of its time too). */
#define F32_TILE 64
#define F32_MAX_TILES 256
#define F32_TARGET_TILES 1024

static int64_t split_f32(int64_t m, int64_t pixels, int64_t c, int64_t r) {
  int64_t tiles = ceil_div(m, F32_TILE) * ceil_div(pixels, F32_TILE);
  if (m < 64 || r == 1 || tiles >= F32_MAX_TILES) return 0;
  for (int64_t s = 8; s >= 2; s /= 2)
    if (tiles * s <= F32_TARGET_TILES && c % s == 0 && c / s * r >= SPLIT_MIN_K) return s;
  return 0;
}

/* S for n, 0 when n stays whole. */
static int64_t split_of(const ir_node *n, const pass_opts *o) {
  const ir_target *t = o->target;
  bool f16 = o->precision == IR_PRECISION_FP16;
  if (f16 ? !(t->coopmat_nv || t->coopmat_khr) || !t->vulkan_memory_model
          : o->precision != IR_PRECISION_FP32)
    return 0;
  ir_dtype dt = f16 ? IR_F16 : IR_F32;
  if (n->op != IR_OP_CONV2D || n->n_inputs < 2 || n->n_inputs > 3 || n->n_outputs != 1) return 0;
  const ir_value *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
  if (x->type.dtype != dt || w->type.dtype != dt || x->type.rank != 4 ||
      w->type.rank != 4 || y->type.rank != 4 || x->type.bounded || y->type.bounded ||
      !ir_value_is_const(w) || (n->n_inputs == 3 && !ir_value_is_const(n->inputs[2])))
    return 0;
  if (x->layout != IR_LAYOUT_DEFAULT || y->layout != IR_LAYOUT_DEFAULT) return 0;
  if (ir_node_int(n, IR_A_GROUP, 1) != 1) return 0;
  ir_act_params a;
  ir_act_params_get(n, &a);
  if (a.kind != IR_ACT_NONE && a.kind != IR_ACT_RELU) return 0;
  int64_t m = y->type.dims[1], c = x->type.dims[1], r = w->type.dims[2] * w->type.dims[3];
  if (o->split_k_factor) {
    int64_t f = o->split_k_factor;
    return c % f == 0 && c / f * r >= SPLIT_MIN_K ? f : 0;
  }
  if (!f16) return split_f32(m, y->type.dims[0] * y->type.dims[2] * y->type.dims[3], c, r);
  int64_t tiles =
      ceil_div(m, TILE_M) * ceil_div(y->type.dims[0] * y->type.dims[2] * y->type.dims[3], TILE_N);
  if (m < 64 || tiles >= SPLIT_MAX_TILES) return 0;
  for (int64_t s = 8; s >= 2; s /= 2)
    if (tiles * s <= SPLIT_TARGET_TILES && c % s == 0 && c / s * r >= SPLIT_MIN_K) return s;
  return 0;
}

/* w' [S*M, C/S, KH, KW] and b' [S*M] (bias on group 0) as new constants. */
static vkml_status split_weights(ir_graph *g, const ir_node *n, int64_t s, ir_value **wv,
                                 ir_value **bv) {
  const ir_value *w = n->inputs[1];
  int64_t m = w->type.dims[0], c = w->type.dims[1], r = w->type.dims[2] * w->type.dims[3];
  size_t es = ir_dtype_size(w->type.dtype), row = (size_t)(c / s * r) * es;
  const char *src = ir_value_const_data(g, w);
  char *dst = malloc((size_t)(m * c * r) * es + 1);
  if (!src || !dst) {
    free(dst);
    return vkml_status_make(src ? VKML_CODE_OUT_OF_MEMORY : VKML_CODE_INTERNAL,
                            src ? "out of host memory" : "split_k: weights without data");
  }
  for (int64_t q = 0; q < s; q++)
    for (int64_t o = 0; o < m; o++)
      memcpy(dst + (size_t)(q * m + o) * row, src + ((size_t)(o * c * r) + (size_t)(q * (c / s) * r)) * es,
             row);
  int64_t dims[4] = {s * m, c / s, w->type.dims[2], w->type.dims[3]};
  ir_type wt = ir_type_make(w->type.dtype, 4, dims);
  vkml_status st = pass_const_create(g, w->name, ".splitk", &wt, dst, wv);
  free(dst);
  VKML_RETURN_IF_ERROR(st);
  *bv = NULL;
  if (n->n_inputs < 3) return VKML_OK;
  const ir_value *b = n->inputs[2];
  const char *bsrc = ir_value_const_data(g, b);
  size_t bes = ir_dtype_size(b->type.dtype), bytes = (size_t)(s * m) * bes;
  char *bd = calloc(1, bytes);
  if (!bsrc || !bd) {
    free(bd);
    return vkml_status_make(bsrc ? VKML_CODE_OUT_OF_MEMORY : VKML_CODE_INTERNAL,
                            bsrc ? "out of host memory" : "split_k: bias without data");
  }
  memcpy(bd, bsrc, (size_t)m * bes);
  ir_type bt = ir_type_make(b->type.dtype, 1, (int64_t[]){s * m});
  st = pass_const_create(g, b->name, ".splitk", &bt, bd, bv);
  free(bd);
  return st;
}

/* Inserts before n the reshape of v to ts (the parts along axis 1) and its
 * sum over axis 1 (type tsum), with the split conv's relu; *out: the sum. */
static vkml_status split_sum(ir_graph *g, ir_node *n, ir_value *v, const ir_type *ts,
                             const ir_type *tsum, const ir_act_params *a, ir_value **out) {
  const char *base = n->outputs[0]->name;
  const ir_type *types[1] = {ts};
  const char *sfx[1] = {".split"};
  ir_node *k;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_RESHAPE, &v, 1, base, types, sfx, NULL, 1, &k));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, k, IR_A_SHAPE, ts->dims, ts->rank));
  types[0] = tsum;
  sfx[0] = ".sum";
  ir_value *parts = k->outputs[0];
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_REDUCE_SUM, &parts, 1, base, types, sfx, NULL,
                                        1, &k));
  int64_t axis = 1;
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, k, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, k, IR_A_KEEPDIMS, 0));
  /* the activation is the sum's (one dispatch fewer than a relu after it) */
  if (a->kind == IR_ACT_RELU) VKML_RETURN_IF_ERROR(ir_node_set_int(g, k, IR_A_ACT, IR_ACT_RELU));
  *out = k->outputs[0];
  return VKML_OK;
}

/* The nhwc form's tail (above): transpose p to [N, OH, OW, S*M], reshape to
 * [N*OH*OW, S, M], sum over S with the activation, back to y. */
static vkml_status nhwc_sum(ir_graph *g, ir_node *n, ir_value *p, int64_t s,
                            const ir_act_params *a) {
  ir_value *y = n->outputs[0];
  const int64_t *yd = y->type.dims;
  int64_t nb = yd[0], m = yd[1], oh = yd[2], ow = yd[3];
  ir_dtype dt = y->type.dtype;
  const char *base = y->name;
  ir_type tt = ir_type_make(dt, 4, (int64_t[]){nb, oh, ow, s * m});
  ir_type t3 = ir_type_make(dt, 3, (int64_t[]){nb * oh * ow, s, m});
  ir_type t2 = ir_type_make(dt, 2, (int64_t[]){nb * oh * ow, m});
  ir_type t4 = ir_type_make(dt, 4, (int64_t[]){nb, oh, ow, m});
  const ir_type *types[1] = {&tt};
  const char *sfx[1] = {".rows"};
  ir_value *in1[1] = {p};
  ir_node *k;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_TRANSPOSE, in1, 1, base, types, sfx, NULL, 1, &k));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, k, IR_A_PERM, (int64_t[]){0, 2, 3, 1}, 4));
  VKML_RETURN_IF_ERROR(split_sum(g, n, k->outputs[0], &t3, &t2, a, &in1[0]));
  types[0] = &t4;
  sfx[0] = ".summed";
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_RESHAPE, in1, 1, base, types, sfx, NULL, 1, &k));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, k, IR_A_SHAPE, t4.dims, 4));
  /* the last node takes y over (its name, its readers, a graph output) */
  ir_value *outs[1] = {y};
  in1[0] = k->outputs[0];
  types[0] = &y->type;
  sfx[0] = ".nchw";
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_TRANSPOSE, in1, 1, base, types, sfx, outs, 1, &k));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, k, IR_A_PERM, (int64_t[]){0, 3, 1, 2}, 4));
  ir_node_remove(g, n);
  return VKML_OK;
}

/* --layout auto's regions of the graph before the splits (computed once,
 * where an f16 conv is split): keep[id], for the n0 nodes then. */
typedef struct auto_regions {
  bool *keep;
  int n0;
} auto_regions;

/* Whether the partial conv will run nhwc: its output in the layout pass's
 * mask for nhwc, with --layout nhwc or where --layout auto keeps conv n
 * (the conv it splits) in an nhwc region. */
static bool runs_nhwc(const ir_node *n, const ir_node *conv, const pass_opts *o,
                      const auto_regions *ar) {
  bool kept = o->layout == IR_LAYOUT_NHWC || (ar->keep && n->id < ar->n0 && ar->keep[n->id]);
  return kept && o->layout_operands &&
         (o->layout_operands(o->layout_user, conv, IR_LAYOUT_NHWC) >> 16) & 1;
}

static vkml_status rewrite(ir_graph *g, ir_node *n, int64_t s, const pass_opts *o,
                           const auto_regions *ar) {
  ir_value *x = n->inputs[0], *y = n->outputs[0], *wv, *bv;
  VKML_RETURN_IF_ERROR(split_weights(g, n, s, &wv, &bv));
  const int64_t *yd = y->type.dims;
  int64_t nb = yd[0], m = yd[1], oh = yd[2], ow = yd[3];
  ir_act_params a;
  ir_act_params_get(n, &a);
  const char *base = y->name;
  /* the partial sums */
  ir_dtype dt = y->type.dtype;
  ir_type pt = ir_type_make(dt, 4, (int64_t[]){nb, s * m, oh, ow});
  ir_value *ins[3] = {x, wv, bv};
  const ir_type *types[1] = {&pt};
  const char *sfx[1] = {".partials"};
  ir_node *conv;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_CONV2D, ins, bv ? 3 : 2, base, types, sfx,
                                        NULL, 1, &conv));
  VKML_RETURN_IF_ERROR(ir_node_copy_attrs(g, conv, n));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, conv, IR_A_GROUP, s));
  ir_node_remove_attr(conv, IR_A_ACT);
  ir_node_remove_attr(conv, IR_A_ACT_ALPHA);
  ir_node_remove_attr(conv, IR_A_ACT_BETA);
  if (runs_nhwc(n, conv, o, ar)) return nhwc_sum(g, n, conv->outputs[0], s, &a);
  /* [N, S, M, OH*OW], summed over S, back to [N, M, OH, OW], the activation */
  ir_type t4 = ir_type_make(dt, 4, (int64_t[]){nb, s, m, oh * ow});
  ir_type t3 = ir_type_make(dt, 3, (int64_t[]){nb, m, oh * ow});
  ir_node *r2;
  ir_value *in1[1];
  VKML_RETURN_IF_ERROR(split_sum(g, n, conv->outputs[0], &t4, &t3, &a, &in1[0]));
  ir_type t4y = y->type;
  types[0] = &t4y;
  sfx[0] = ".summed";
  /* the last node takes y over (its name, its readers, a graph output) */
  ir_value *outs[1] = {y};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_RESHAPE, in1, 1, base, types, sfx, outs, 1, &r2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r2, IR_A_SHAPE, yd, 4));
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_k(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  const ir_target *t = opts ? opts->target : NULL;
  /* the rule is for GPUs; a factor given applies to any target placed on */
  if (!t || !opts->place || opts->no_split_k || (!ir_target_is_gpu(t) && !opts->split_k_factor))
    return VKML_OK;
  bool any = false;
  auto_regions ar = {.n0 = g->n_nodes};
  vkml_status st = VKML_OK;
  if (opts->layout == IR_LAYOUT_DEFAULT && opts->layout_auto && opts->layout_operands) {
    bool f16 = false;
    ir_foreach_node(g, n) f16 = f16 || (split_of(n, opts) && n->outputs[0]->type.dtype == IR_F16);
    if (f16) VKML_RETURN_IF_ERROR(pass_layout_nhwc_regions(g, opts, &ar.keep));
  }
  for (ir_node *n = g->first, *next; n && !st; n = next) {
    next = n->next; /* the rewrite inserts before n and removes n */
    int64_t s = split_of(n, opts);
    if (!s) continue;
    st = rewrite(g, n, s, opts, &ar);
    any = true;
  }
  free(ar.keep);
  VKML_RETURN_IF_ERROR(st);
  if (changed) *changed = any;
  int dropped;
  return any ? ir_graph_drop_unused_values(g, &dropped) : VKML_OK;
}
