/* The nc4hw4 (packed channel) paths of the GPU kernels on the device
 * (lavapipe, validation on) against the CPU reference (rt_cpu_run_node on
 * the same node in the default layout), random non-zero inputs. The test
 * packs the inputs itself, poisons the packed output buffer, runs the
 * kernel cg_kernel_for_node gives for the node with its operands marked
 * nc4hw4, unpacks the output, asserts every pad lane (channel >= C) is
 * exactly 0 (all bits) and compares the rest:
 *   conv2d: 25 shape/attribute cases (C and M mostly not multiples of 4,
 *     strides, dilations, groups, depthwise with and without multiplier,
 *     asymmetric pads, 1x1 / 3x3 / 5x5 / 7x7, batch > 1) over the direct,
 *     1x1 and depthwise (vec4 texel path and per-channel path) templates,
 *     default schedule, f32 / f16 alternating, bias / activation rotating;
 *     plus 2 sampled points of each conv template's space, 2 cases each,
 *     and a staged-tile (SMEM) depthwise point on both depthwise paths;
 *   maxpool / avgpool / global pools: 11 cases, default schedule, + 3 points;
 *   unary ops: 12 ops / shapes, default + 3 points (vector widths 1, 2, 4);
 *   add / sub / mul / div with fused activations, same-shape operands all
 *   packed: 8 cases (div by the zero pad lanes gives NaN there: must come
 *   out 0), default + 3 points;
 *   conversion (reorder / identity, data_layout template): default ->
 *   nc4hw4 -> default round trips, bit-exact against the test's own
 *   packing, f32 / f16 / i32, default + 2 points, and a packed -> packed
 *   identity (the plain copy over the padded size);
 * and without a device, cg_node_layout_operands against what
 * cg_kernel_for_node accepts: every claimed op instantiates with its mask
 * packed, refuses a partly packed node, and every other op (or operand)
 * with a packed operand is refused as UNSUPPORTED.
 *
 * Bounds, per element (|got - want| <= rtol*|want| + atol), u = 2^-24:
 *   f32: rtol 1e-4; conv adds 2 * (K+1) * u * S (K products per output, S
 *        the same conv of |x|, |w|, |bias|: the worst fp32 rounding of the
 *        sum, x2 for an activation's slope), avgpool / global avg add
 *        2 * n * u * M (n window taps, M the same pool of |x|); maxpool,
 *        global max: exact; conversions: bit-exact.
 *   f16: rtol 2^-10 (one f16 ulp: the shader rounds its fp32 result once,
 *        the reference its exact one) + atol 2^-24 + the f32 terms above. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/binary.h"
#include "codegen/kernels/conv2d.h"
#include "codegen/core/templates.h"
#include "codegen/core/ops.h"
#include "codegen/core/core.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

#define NC4 IR_LAYOUT_NC4HW4
#define XY (1u | CG_LAYOUT_OUT(0))
#define ABY (3u | CG_LAYOUT_OUT(0))
#define U (1.0 / (1 << 24))

/* ---- harness -------------------------------------------------------------- */

typedef struct env {
  vt_env v;
  int n_run, n_dw_vec4;
  double max_err[2]; /* worst error / bound, f32 and f16 */
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

static void env_close(env *e) {
  cr_log_info("%d kernels, worst error / bound f32 %.3g f16 %.3g", e->n_run, e->max_err[0],
              e->max_err[1]);
  vt_env_close(&e->v);
}

static ir_dtype alt_dtype(const env *e, int i) {
  return (i % 2 && e->v.t->storage_16bit) ? IR_F16 : IR_F32;
}


/* ---- one node, packed, on the device ---------------------------------------- */

/* The tolerance of element i: rtol*|want| + atol + mag_k * mag[i]. */
typedef struct tol {
  double rtol, atol, mag_k;
  const rt_tensor *mag; /* NULL: none */
} tol;

static tol tol_for(ir_dtype dt, double mag_k, const rt_tensor *mag) {
  bool f16 = dt == IR_F16;
  return (tol){f16 ? 1.0001 / 1024 : 1e-4, f16 ? U : 0, mag_k, mag};
}

/* Marks the operands of mask nc4hw4 (the rest default). */
static void set_layouts(ir_node *n, uint32_t mask) {
  for (int i = 0; i < n->n_inputs; i++)
    n->inputs[i]->layout = (mask >> i) & 1 ? NC4 : IR_LAYOUT_DEFAULT;
  n->outputs[0]->layout = mask & CG_LAYOUT_OUT(0) ? NC4 : IR_LAYOUT_DEFAULT;
}

static void compare(env *e, const cg_kernel *k, const rt_tensor *got, const rt_tensor *want,
                    const tol *tl) {
  bool f16 = want->dtype == IR_F16;
  int64_t cnt = rt_tensor_numel(want);
  for (int64_t i = 0; i < cnt; i++) {
    double a = rt_load_f(got, i), b = rt_load_f(want, i);
    double bound = tl->rtol * fabs(b) + tl->atol + (tl->mag ? tl->mag_k * rt_load_f(tl->mag, i) : 0);
    double err = fabs(a - b);
    if ((isnan(b) && isnan(a)) || a == b) continue; /* infinities too */
    if (bound > 0 && err / bound > e->max_err[f16]) e->max_err[f16] = err / bound;
    if (!(err <= bound)) {
      char sched[128];
      cg_schedule_format(k->tmpl, &k->schedule, sched, sizeof sched);
      cr_assert_fail("%s [%s %s] element %lld of %lld: got %.9g want %.9g (bound %.3g)", k->key,
                     k->tmpl->name, sched, (long long)i, (long long)cnt, a, b, bound);
    }
  }
}

/* Runs n (its reference output want computed beforehand, in the default
 * layout) with the operands of mask packed: the mask must be what
 * cg_node_layout_operands names, the kernel cg_kernel_for_node's. Returns
 * false when the schedule is refused (UNSUPPORTED) and allow_refusal. */
static bool run_packed(env *e, ir_node *n, const rt_tensor *in, int n_in, const rt_tensor *want,
                       uint32_t mask, const cg_template *st, const cg_schedule *s, const tol *tl,
                       bool allow_refusal, cg_kernel *k) {
  set_layouts(n, mask);
  cr_assert_eq(cg_node_layout_operands(n, NC4), mask, "%s: mask %#x", ir_op_name(n->op),
               cg_node_layout_operands(n, NC4));
  vkml_status st_ = cg_kernel_for_node(n, st, s, e->v.t, k);
  if (st_ && allow_refusal && vkml_status_code(st_) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(st_);
    return false;
  }
  T_OK(st_);
  rt_tensor dev_in[4];
  const rt_tensor *ins[4];
  cr_assert(n_in <= 4);
  for (int i = 0; i < n_in; i++) {
    dev_in[i] = (mask >> i) & 1 ? vt_pack(&in[i]) : (rt_tensor){0};
    ins[i] = (mask >> i) & 1 ? &dev_in[i] : &in[i];
  }
  const ir_type *yt = &n->outputs[0]->type;
  rt_tensor out = vt_poisoned_packed(yt);
  vt_run_kernel(e->v.ctx, e->v.cc, k, ins, n_in, &out);
  rt_tensor got = vt_unpack(&out, yt, k->key);
  compare(e, k, &got, want, tl);
  e->n_run++;
  rt_tensor_free(&got);
  rt_tensor_free(&out);
  for (int i = 0; i < n_in; i++) rt_tensor_free(&dev_in[i]);
  return true;
}

/* The reference: n's CPU kernel on the default-layout tensors. */
static rt_tensor reference(const ir_node *n, const rt_tensor *in, int n_in) {
  rt_tensor want;
  T_OK(rt_tensor_alloc(&n->outputs[0]->type, &want));
  const rt_tensor *ins[4];
  for (int i = 0; i < n_in; i++) ins[i] = &in[i];
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(n, ins, n_in, outs, 1));
  return want;
}

/* ---- conv2d ------------------------------------------------------------------ */

typedef struct ccase {
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw;
  int64_t pads[4]; /* top, left, bottom, right */
  int64_t group;
} ccase;

/* n c h w m kh kw sh sw dh dw pads group */
static const ccase CONV[] = {
    /* direct */
    {1, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1},
    {2, 5, 7, 11, 6, 3, 3, 2, 2, 1, 1, {1, 0, 2, 1}, 1},  /* asymmetric pads */
    {1, 6, 13, 13, 7, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 1},
    {1, 3, 15, 17, 5, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1},
    {1, 7, 10, 10, 9, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 1}, /* dilation */
    {1, 6, 9, 9, 10, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2},  /* groups across texels */
    {1, 12, 8, 8, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 3},
    {1, 7, 11, 11, 3, 1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 1}, /* strided 1x1 */
    {1, 5, 12, 10, 7, 3, 1, 2, 1, 2, 1, {1, 0, 1, 0}, 1},
    {1, 1, 8, 8, 5, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 1},   /* one channel */
    {1, 33, 6, 6, 9, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1},
    {1, 8, 6, 6, 16, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1},  /* no pad lanes */
    /* 1x1 */
    {1, 3, 5, 5, 4, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1},
    {3, 7, 5, 6, 10, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1},
    {1, 5, 6, 6, 3, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1},
    {1, 8, 7, 7, 16, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1},
    {2, 13, 4, 4, 6, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1},
    /* depthwise */
    {1, 4, 9, 9, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 4},
    {1, 6, 11, 13, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 6},
    {1, 5, 15, 15, 5, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 5},
    {1, 7, 10, 10, 7, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 7}, /* dilation */
    {2, 3, 7, 9, 3, 3, 3, 1, 1, 1, 1, {0, 1, 2, 1}, 3},   /* asymmetric, batch 2 */
    {1, 3, 8, 8, 6, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 3},   /* multiplier 2 */
    {1, 9, 14, 14, 9, 3, 3, 2, 2, 1, 1, {0, 0, 1, 1}, 9},
    {1, 6, 9, 9, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 6},  /* multiplier 2 */
};
#define N_CONV ((int)(sizeof CONV / sizeof CONV[0]))

typedef struct epi {
  bool bias;
  ir_act act;
  float alpha, beta;
} epi;

static const epi EPIS[] = {
    {true, IR_ACT_NONE, 0, 0},           {true, IR_ACT_RELU, 0, 0},
    {false, IR_ACT_NONE, 0, 0},          {true, IR_ACT_CLIP, -0.5f, 1.5f},
    {false, IR_ACT_LEAKY_RELU, 0.1f, 0}, {true, IR_ACT_SIGMOID, 0, 0},
    {true, IR_ACT_RELU6, 0, 0},          {false, IR_ACT_ELU, 0.7f, 0},
    {true, IR_ACT_HARD_SWISH, 0, 0},     {true, IR_ACT_GELU, 0, 0},
};
#define N_EPIS ((int)(sizeof EPIS / sizeof EPIS[0]))

static ir_type conv_out(const ccase *c, ir_dtype dt) {
  int64_t d[4] = {c->n, c->m, 0, 0};
  int64_t k[2] = {c->kh, c->kw}, s[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw}, in[2] = {c->h, c->w};
  for (int i = 0; i < 2; i++)
    d[2 + i] = (in[i] + c->pads[i] + c->pads[i + 2] - ((k[i] - 1) * dl[i] + 1)) / s[i] + 1;
  return ir_type_make(dt, 4, d);
}

static ir_node *conv_node(ir_graph **g, const ccase *c, const rt_tensor *in, int n_in,
                          const ir_type *yt, const epi *ep) {
  ir_node *n = t_node_make(g, IR_OP_CONV2D, in, n_in, yt, 1);
  t_set_window_attrs(*g, n, c->sh, c->sw, c->dh, c->dw, c->pads);
  if (c->group != 1) T_OK(ir_node_set_int(*g, n, IR_A_GROUP, c->group));
  if (ep && ep->act != IR_ACT_NONE) {
    T_OK(ir_node_set_enum(*g, n, IR_A_ACT, ep->act));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_ALPHA, ep->alpha));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_BETA, ep->beta));
  }
  return n;
}

static bool conv_case(env *e, const ccase *c, const epi *ep, ir_dtype dt, const cg_template *st,
                      const cg_schedule *s, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / c->group, c->kh, c->kw};
  int64_t bd[1] = {c->m};
  rt_tensor in[3] = {t_tensor_random(&r, dt, 4, xd, -2, 2), t_tensor_random(&r, dt, 4, wd, -1, 1),
                     t_tensor_random(&r, dt, 1, bd, -1, 1)};
  int n_in = ep->bias ? 3 : 2;
  ir_type yt = conv_out(c, dt), mt = conv_out(c, IR_F32);
  ir_graph *g, *ga;
  ir_node *n = conv_node(&g, c, in, n_in, &yt, ep);
  rt_tensor want = reference(n, in, n_in);
  rt_tensor ab[3] = {vt_abs_f32(&in[0]), vt_abs_f32(&in[1]), vt_abs_f32(&in[2])};
  ir_node *na = conv_node(&ga, c, ab, n_in, &mt, NULL);
  rt_tensor mag = reference(na, ab, n_in);
  double terms = (double)(c->c / c->group * c->kh * c->kw) + 1;
  tol tl = tol_for(dt, 2 * terms * U, &mag);
  cg_kernel k;
  bool ran = run_packed(e, n, in, n_in, &want, XY, st, s, &tl, st != NULL, &k);
  if (ran) {
    /* the family's own choice (1x1 convs too go to direct; conv2d_1x1 runs
     * as a sampled point), with the depthwise vec4 path when M == C */
    bool dw = c->group == c->c && c->c > 1;
    const cg_template *want_t = st ? st
                                   : dw ? &cg_conv2d_depthwise_template
                                        : &cg_conv2d_direct_template;
    cr_assert_eq(k.tmpl, want_t, "%s ran %s", k.key, k.tmpl->name);
    bool vec4 = false;
    for (int i = 0; i < k.n_defines; i++) vec4 = vec4 || !strcmp(k.def_name[i], "DW_VEC4");
    cr_assert_eq(vec4, dw && c->m == c->c, "%s: DW_VEC4 %d", k.key, vec4);
    e->n_dw_vec4 += vec4;
  }
  rt_tensor_free(&want);
  rt_tensor_free(&mag);
  for (int i = 0; i < 3; i++) {
    rt_tensor_free(&in[i]);
    rt_tensor_free(&ab[i]);
  }
  ir_graph_destroy(g);
  ir_graph_destroy(ga);
  return ran;
}

Test(vk_layout, conv2d_default) {
  env e;
  env_open(&e);
  for (int i = 0; i < N_CONV; i++)
    conv_case(&e, &CONV[i], &EPIS[i % N_EPIS], alt_dtype(&e, i), NULL, NULL, 100 + (uint64_t)i);
  cr_assert_eq(e.n_run, N_CONV);
  cr_assert_geq(e.n_dw_vec4, 5);
  env_close(&e);
}

Test(vk_layout, conv2d_points) {
  env e;
  env_open(&e);
  /* cases each template runs: direct, 1x1, depthwise (vec4 and per-channel) */
  static const int cases[3][2] = {{1, 5}, {13, 16}, {18, 22}};
  const cg_template *tm[3] = {&cg_conv2d_direct_template, &cg_conv2d_1x1_template,
                              &cg_conv2d_depthwise_template};
  int refused = 0;
  for (int t = 0; t < 3; t++) {
    cg_schedule pts[2];
    cr_assert_eq(vt_sample_points(tm[t], e.v.t, 1, 211, 2, pts), 2);
    for (int p = 0; p < 2; p++)
      for (int j = 0; j < 2; j++) {
        const ccase *c = &CONV[cases[t][j]];
        if (!conv_case(&e, c, &EPIS[(3 * t + p) % N_EPIS], alt_dtype(&e, p), tm[t], &pts[p],
                       500 + 10 * (uint64_t)t + 2 * (uint64_t)p + (uint64_t)j))
          refused++; /* a staged depthwise tile too large for the device */
      }
  }
  /* the staged (SMEM) depthwise tile, vec4 and per-channel */
  static const cg_schedule staged = {{8, 2, 2, 1, 2, 1}};
  cr_assert(conv_case(&e, &CONV[18], &EPIS[1], IR_F32, tm[2], &staged, 520));
  cr_assert(conv_case(&e, &CONV[22], &EPIS[3], alt_dtype(&e, 1), tm[2], &staged, 521));
  cr_assert_leq(refused, 2);
  env_close(&e);
}

/* ---- pools ------------------------------------------------------------------- */

typedef struct pcase {
  ir_op op;
  int64_t d[4], k[2], s[2], dil[2], pads[4];
  bool ceil, cip;
} pcase;

#define MAXP IR_OP_MAXPOOL
#define AVGP IR_OP_AVGPOOL
static const pcase POOLS[] = {
    {MAXP, {1, 5, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, false},
    {MAXP, {2, 3, 8, 10}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false, false},
    {MAXP, {1, 6, 7, 7}, {3, 3}, {1, 1}, {2, 2}, {1, 1, 1, 1}, false, false},
    {MAXP, {1, 7, 11, 11}, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}, true, false},
    {MAXP, {1, 5, 5, 5}, {2, 2}, {2, 2}, {1, 1}, {2, 2, 2, 2}, false, false}, /* all-pad windows */
    {AVGP, {1, 5, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, false},
    {AVGP, {1, 6, 8, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 1, 1}, true, true},
    {AVGP, {2, 3, 7, 7}, {2, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, false},
    {IR_OP_GLOBAL_AVG_POOL, {1, 5, 7, 7}, {0}, {0}, {0}, {0}, false, false},
    {IR_OP_GLOBAL_AVG_POOL, {2, 10, 3, 5}, {0}, {0}, {0}, {0}, false, false},
    {IR_OP_GLOBAL_MAX_POOL, {1, 7, 6, 6}, {0}, {0}, {0}, {0}, false, false},
    {IR_OP_GLOBAL_MAX_POOL, {1, 3, 1, 1}, {0}, {0}, {0}, {0}, false, false},
};
#define N_POOLS ((int)(sizeof POOLS / sizeof POOLS[0]))

static int64_t pool_dim(const pcase *p, int i) {
  int64_t ext = (p->k[i] - 1) * p->dil[i] + 1, span = p->d[2 + i] + p->pads[i] + p->pads[i + 2] - ext;
  int64_t o = (p->ceil ? (span + p->s[i] - 1) / p->s[i] : span / p->s[i]) + 1;
  /* ceil_mode drops a last window that starts in the end padding */
  if (p->ceil && (o - 1) * p->s[i] >= p->d[2 + i] + p->pads[i]) o--;
  return o;
}

static ir_node *pool_node(ir_graph **g, const pcase *p, const rt_tensor *x, ir_dtype dt) {
  bool global = p->op != MAXP && p->op != AVGP;
  int64_t yd[4] = {p->d[0], p->d[1], global ? 1 : pool_dim(p, 0), global ? 1 : pool_dim(p, 1)};
  ir_type yt = ir_type_make(dt, 4, yd);
  ir_node *n = t_node_make(g, p->op, x, 1, &yt, 1);
  if (global) return n;
  T_OK(ir_node_set_ints(*g, n, IR_A_KERNEL, p->k, 2));
  t_set_window_attrs(*g, n, p->s[0], p->s[1], p->dil[0], p->dil[1], p->pads);
  if (p->ceil) T_OK(ir_node_set_int(*g, n, IR_A_CEIL_MODE, 1));
  if (p->cip) T_OK(ir_node_set_int(*g, n, IR_A_COUNT_INCLUDE_PAD, 1));
  return n;
}

static void pool_case(env *e, const pcase *p, ir_dtype dt, const cg_schedule *s, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, dt, 4, p->d, -4, 4), ax = vt_abs_f32(&x);
  ir_graph *g, *ga;
  ir_node *n = pool_node(&g, p, &x, dt);
  ir_node *na = pool_node(&ga, p, &ax, IR_F32);
  rt_tensor want = reference(n, &x, 1), mag = reference(na, &ax, 1);
  bool is_max = p->op == MAXP || p->op == IR_OP_GLOBAL_MAX_POOL;
  int64_t taps = p->op == AVGP ? p->k[0] * p->k[1] : p->d[2] * p->d[3];
  tol tl = tol_for(dt, is_max ? 0 : 2 * (double)taps * U, &mag);
  if (is_max) tl.rtol = tl.atol = 0; /* a max is one of the inputs */
  cg_kernel k;
  run_packed(e, n, &x, 1, &want, XY, s ? &cg_pool2d_template : NULL, s, &tl, false, &k);
  cr_assert_eq(k.tmpl, &cg_pool2d_template);
  rt_tensor_free(&x);
  rt_tensor_free(&ax);
  rt_tensor_free(&want);
  rt_tensor_free(&mag);
  ir_graph_destroy(g);
  ir_graph_destroy(ga);
}

/* Three tests (half the cases each, then the points): pool pipelines compile
 * slowly on a cold lavapipe shader cache. */
static void pools_default(int first) {
  env e;
  env_open(&e);
  for (int i = first; i < N_POOLS; i += 2)
    pool_case(&e, &POOLS[i], alt_dtype(&e, i), NULL, 300 + (uint64_t)i);
  cr_assert_eq(e.n_run, (N_POOLS - first + 1) / 2);
  env_close(&e);
}

Test(vk_layout, pools_even) { pools_default(0); }
Test(vk_layout, pools_odd) { pools_default(1); }

Test(vk_layout, pools_points) {
  env e;
  env_open(&e);
  static const cg_schedule pts[] = {{{32, 1, 1}}, {{64, 4, 2}}, {{256, 2, 4}}};
  for (int p = 0; p < 3; p++)
    pool_case(&e, &POOLS[(3 * p) % N_POOLS], alt_dtype(&e, p + 1), &pts[p], 350 + (uint64_t)p);
  cr_assert_eq(e.n_run, 3);
  env_close(&e);
}

/* ---- unary --------------------------------------------------------------------- */

typedef struct ucase {
  ir_op op;
  int64_t d[4];
  float a, b; /* alpha / min, beta / max where the op takes them */
} ucase;

static const ucase UNARY[] = {
    {IR_OP_RELU, {1, 3, 5, 7}, 0, 0},
    {IR_OP_SIGMOID, {2, 5, 4, 4}, 0, 0},
    {IR_OP_TANH, {1, 6, 3, 3}, 0, 0},
    {IR_OP_CLIP, {1, 7, 2, 5}, -0.5f, 1.25f},
    {IR_OP_HARD_SWISH, {3, 7, 1, 9}, 0, 0},
    {IR_OP_LEAKY_RELU, {1, 1, 6, 6}, 0.1f, 0},
    {IR_OP_ELU, {1, 13, 3, 2}, 0.7f, 0},
    {IR_OP_EXP, {1, 8, 2, 3}, 0, 0},
    {IR_OP_HARD_SIGMOID, {1, 5, 5, 5}, 0.2f, 0.5f},
    {IR_OP_SOFTPLUS, {2, 2, 3, 3}, 0, 0},
    {IR_OP_ABS, {1, 9, 2, 2}, 0, 0},
    {IR_OP_NEG, {1, 6, 7, 1}, 0, 0},
};
#define N_UNARY ((int)(sizeof UNARY / sizeof UNARY[0]))

static void unary_case(env *e, const ucase *u, ir_dtype dt, const cg_schedule *s, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, dt, 4, u->d, -2, 2);
  ir_type yt = ir_type_make(dt, 4, u->d);
  ir_graph *g;
  ir_node *n = t_node_make(&g, u->op, &x, 1, &yt, 1);
  if (u->op == IR_OP_CLIP) {
    T_OK(ir_node_set_float(g, n, IR_A_MIN, u->a));
    T_OK(ir_node_set_float(g, n, IR_A_MAX, u->b));
  } else if (u->op == IR_OP_LEAKY_RELU || u->op == IR_OP_ELU) {
    T_OK(ir_node_set_float(g, n, IR_A_ALPHA, u->a));
  } else if (u->op == IR_OP_HARD_SIGMOID) {
    T_OK(ir_node_set_float(g, n, IR_A_ALPHA, u->a));
    T_OK(ir_node_set_float(g, n, IR_A_BETA, u->b));
  }
  rt_tensor want = reference(n, &x, 1);
  tol tl = tol_for(dt, 0, NULL);
  cg_kernel k;
  run_packed(e, n, &x, 1, &want, XY, s ? &cg_unary_template : NULL, s, &tl, false, &k);
  cr_assert_eq(k.tmpl, &cg_unary_template);
  rt_tensor_free(&x);
  rt_tensor_free(&want);
  ir_graph_destroy(g);
}

Test(vk_layout, unary) {
  env e;
  env_open(&e);
  for (int i = 0; i < N_UNARY; i++)
    unary_case(&e, &UNARY[i], alt_dtype(&e, i), NULL, 400 + (uint64_t)i);
  static const cg_schedule pts[] = {{{32, 1}}, {{64, 2}}, {{256, 8}}};
  for (int p = 0; p < 3; p++)
    unary_case(&e, &UNARY[(5 * p + 1) % N_UNARY], alt_dtype(&e, p), &pts[p], 450 + (uint64_t)p);
  env_close(&e);
}

/* ---- binary -------------------------------------------------------------------- */

typedef struct bcase {
  ir_op op;
  int64_t d[4];
  ir_act act;
  float a, b;
} bcase;

static const bcase BINARY[] = {
    {IR_OP_ADD, {1, 3, 5, 7}, IR_ACT_RELU, 0, 0},
    {IR_OP_SUB, {2, 5, 4, 4}, IR_ACT_NONE, 0, 0},
    {IR_OP_MUL, {1, 6, 3, 3}, IR_ACT_CLIP, -0.5f, 1.5f},
    {IR_OP_DIV, {1, 7, 2, 5}, IR_ACT_NONE, 0, 0}, /* 0 / 0 in the pad lanes */
    {IR_OP_ADD, {3, 2, 1, 9}, IR_ACT_SIGMOID, 0, 0},
    {IR_OP_SUB, {1, 9, 6, 6}, IR_ACT_LEAKY_RELU, 0.2f, 0},
    {IR_OP_MUL, {1, 8, 3, 2}, IR_ACT_NONE, 0, 0},
    {IR_OP_DIV, {1, 1, 4, 4}, IR_ACT_ELU, 1.0f, 0},
};
#define N_BINARY ((int)(sizeof BINARY / sizeof BINARY[0]))

static void binary_case(env *e, const bcase *bc, ir_dtype dt, const cg_schedule *s,
                        uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor in[2] = {t_tensor_random(&r, dt, 4, bc->d, -2, 2),
                     t_tensor_random(&r, dt, 4, bc->d, -2, 2)};
  ir_type yt = ir_type_make(dt, 4, bc->d);
  ir_graph *g;
  ir_node *n = t_node_make(&g, bc->op, in, 2, &yt, 1);
  if (bc->act != IR_ACT_NONE) {
    T_OK(ir_node_set_enum(g, n, IR_A_ACT, bc->act));
    T_OK(ir_node_set_float(g, n, IR_A_ACT_ALPHA, bc->a));
    T_OK(ir_node_set_float(g, n, IR_A_ACT_BETA, bc->b));
  }
  rt_tensor want = reference(n, in, 2);
  tol tl = tol_for(dt, 0, NULL);
  cg_kernel k;
  run_packed(e, n, in, 2, &want, ABY, s ? &cg_binary_template : NULL, s, &tl, false, &k);
  cr_assert_str_eq(k.tmpl->name, "elementwise_binary");
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  rt_tensor_free(&want);
  ir_graph_destroy(g);
}

Test(vk_layout, binary) {
  env e;
  env_open(&e);
  for (int i = 0; i < N_BINARY; i++)
    binary_case(&e, &BINARY[i], alt_dtype(&e, i), NULL, 600 + (uint64_t)i);
  static const cg_schedule pts[] = {{{32, 1}}, {{128, 2}}, {{64, 8}}};
  for (int p = 0; p < 3; p++)
    binary_case(&e, &BINARY[(3 * p + 3) % N_BINARY], alt_dtype(&e, p), &pts[p],
                650 + (uint64_t)p);
  env_close(&e);
}

/* ---- conversions ------------------------------------------------------------------ */

static void assert_same_bytes(const rt_tensor *got, const rt_tensor *want, const char *what) {
  size_t bytes = rt_tensor_bytes(want), es = ir_dtype_size(want->dtype);
  cr_assert_eq(rt_tensor_bytes(got), bytes, "%s: %zu bytes, want %zu", what,
               rt_tensor_bytes(got), bytes);
  for (size_t i = 0; i < bytes; i++)
    if (((const unsigned char *)got->data)[i] != ((const unsigned char *)want->data)[i])
      cr_assert_fail("%s: element %zu differs (got %g, want %g)", what, i / es,
                     rt_load_f(got, (int64_t)(i / es)), rt_load_f(want, (int64_t)(i / es)));
}

/* The kernel of a reorder / identity node: through cg_kernel_for_node for
 * the float types the mask covers, cg_node_copy itself for the others. */
static void copy_kernel(env *e, ir_node *n, const cg_template *st, const cg_schedule *s,
                        cg_kernel *k) {
  ir_dtype dt = n->inputs[0]->type.dtype;
  if (dt == IR_F32 || dt == IR_F16) {
    cr_assert_eq(cg_node_layout_operands(n, NC4), XY);
    T_OK(cg_kernel_for_node(n, st, s, e->v.t, k));
  } else {
    cr_assert_eq(cg_node_layout_operands(n, NC4), 0u); /* floats only */
    T_OK(cg_node_copy(n, st, s, e->v.t, k));
  }
}

/* default -> nc4hw4 on the device (against the test's packing, pad lanes
 * included), then nc4hw4 -> default (against the original), bit-exact. */
static void round_trip(env *e, ir_op op, ir_dtype dt, const int64_t *d, const cg_schedule *s,
                       uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, dt, 4, d, -1000, 1000);
  ir_type ty = ir_type_make(dt, 4, d);
  const cg_template *st = s ? &cg_data_layout_template : NULL;
  ir_graph *g;
  ir_node *n = t_node_make(&g, op, &x, 1, &ty, 1);
  cg_kernel k;

  set_layouts(n, CG_LAYOUT_OUT(0));
  copy_kernel(e, n, st, s, &k);
  cr_assert_eq(k.tmpl, &cg_data_layout_template);
  rt_tensor packed = vt_poisoned_packed(&ty), want = vt_pack(&x);
  const rt_tensor *ins[1] = {&x};
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, 1, &packed);
  assert_same_bytes(&packed, &want, k.key);

  set_layouts(n, 1u);
  copy_kernel(e, n, st, s, &k);
  cr_assert_eq(k.tmpl, &cg_data_layout_template);
  rt_tensor back;
  vt_poisoned(&ty, 0x7f, &back);
  ins[0] = &packed;
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, 1, &back);
  assert_same_bytes(&back, &x, k.key);
  e->n_run += 2;
  rt_tensor_free(&x);
  rt_tensor_free(&packed);
  rt_tensor_free(&want);
  rt_tensor_free(&back);
  ir_graph_destroy(g);
}

Test(vk_layout, conversions) {
  env e;
  env_open(&e);
  static const int64_t shapes[][4] = {{1, 3, 5, 7}, {2, 6, 3, 3}, {1, 8, 4, 4}, {1, 1, 1, 1},
                                      {3, 5, 2, 9}};
  for (int i = 0; i < 5; i++) {
    round_trip(&e, i % 2 ? IR_OP_IDENTITY : IR_OP_REORDER, IR_F32, shapes[i], NULL,
               700 + (uint64_t)i);
    if (e.v.t->storage_16bit)
      round_trip(&e, IR_OP_REORDER, IR_F16, shapes[(i + 1) % 5], NULL, 710 + (uint64_t)i);
  }
  round_trip(&e, IR_OP_REORDER, IR_I32, shapes[4], NULL, 720);
  static const cg_schedule pts[] = {{{32, 1}}, {{256, 8}}};
  for (int p = 0; p < 2; p++)
    round_trip(&e, IR_OP_REORDER, alt_dtype(&e, p), shapes[p + 2], &pts[p], 730 + (uint64_t)p);

  /* packed -> packed: the plain copy over the padded size */
  t_rng r = t_rng_make(740);
  int64_t d[4] = {2, 5, 3, 3};
  rt_tensor x = t_tensor_random(&r, IR_F32, 4, d, -1, 1), px = vt_pack(&x);
  ir_type ty = ir_type_make(IR_F32, 4, d);
  ir_graph *g;
  ir_node *n = t_node_make(&g, IR_OP_IDENTITY, &x, 1, &ty, 1);
  set_layouts(n, XY);
  cg_kernel k;
  copy_kernel(&e, n, NULL, NULL, &k);
  cr_assert_eq(k.tmpl, &cg_copy_template);
  rt_tensor out = vt_poisoned_packed(&ty);
  const rt_tensor *ins[1] = {&px};
  vt_run_kernel(e.v.ctx, e.v.cc, &k, ins, 1, &out);
  assert_same_bytes(&out, &px, k.key);
  rt_tensor_free(&x);
  rt_tensor_free(&px);
  rt_tensor_free(&out);
  ir_graph_destroy(g);
  env_close(&e);
}

/* ---- the mask against the kernels, without a device ------------------------------- */

static const int64_t D4[4] = {1, 5, 6, 6};

typedef struct mnode {
  ir_graph *g;
  ir_node *n;
} mnode;

/* A node of op over inputs of the given dims (f32 unless dt), output dims yd. */
static mnode mk(ir_op op, ir_dtype dt, int n_in, const int64_t (*xd)[4], const int *ranks,
                const int64_t *yd, int yrank) {
  rt_tensor in[3];
  for (int i = 0; i < n_in; i++) in[i] = t_tensor_zeros(dt, ranks ? ranks[i] : 4, xd[i]);
  ir_type yt = ir_type_make(dt, yrank, yd);
  mnode m;
  m.n = t_node_make(&m.g, op, in, n_in, &yt, 1);
  for (int i = 0; i < n_in; i++) rt_tensor_free(&in[i]);
  return m;
}

static mnode mk1(ir_op op, ir_dtype dt) {
  const int64_t xd[1][4] = {{1, 5, 6, 6}};
  return mk(op, dt, 1, xd, NULL, D4, 4);
}

static mnode mk2(ir_op op, ir_dtype dt, const int64_t *bd) {
  const int64_t xd[2][4] = {{1, 5, 6, 6}, {bd[0], bd[1], bd[2], bd[3]}};
  return mk(op, dt, 2, xd, NULL, D4, 4);
}

static bool has(const char *msg, const char *part) { return msg && strstr(msg, part); }

/* A claimed node: its mask is `want`, it instantiates with the mask packed
 * and in the default layout, and a node with one masked operand packed
 * less is refused (converters excepted); nothing for other layouts. */
static void claimed(const ir_target *t, mnode m, uint32_t want) {
  ir_node *n = m.n;
  cg_kernel k;
  char dkey[512];
  cr_assert_eq(cg_node_layout_operands(n, NC4), want, "%s: mask %#x", ir_op_name(n->op),
               cg_node_layout_operands(n, NC4));
  cr_assert_eq(cg_node_layout_operands(n, IR_LAYOUT_DEFAULT), 0u);
  cr_assert_eq(cg_node_layout_operands(n, IR_LAYOUT_NHWC), 0u);
  T_OK(cg_kernel_for_node(n, NULL, NULL, t, &k));
  snprintf(dkey, sizeof dkey, "%s", k.key);
  set_layouts(n, want);
  T_OK(cg_kernel_for_node(n, NULL, NULL, t, &k));
  cr_assert(strstr(k.key, "nc4hw4") && strcmp(k.key, dkey), "%s: key %s", ir_op_name(n->op),
            k.key);
  bool converts = n->op == IR_OP_REORDER || n->op == IR_OP_IDENTITY;
  for (int b = 0; b < 32; b++) {
    if (!((want >> b) & 1)) continue;
    set_layouts(n, want & ~(1u << b));
    vkml_status s = cg_kernel_for_node(n, NULL, NULL, t, &k);
    if (converts) T_OK(s);
    else t_expect_error(s, VKML_CODE_UNSUPPORTED, "all packed or none");
  }
  ir_graph_destroy(m.g);
}

/* An op or operand outside the masks: packing operand `which` (bit as in
 * the mask) is refused by the guard with the standard message. */
static void refused(const ir_target *t, mnode m, uint32_t which, uint32_t want_mask) {
  ir_node *n = m.n;
  cr_assert_eq(cg_node_layout_operands(n, NC4), want_mask, "%s: mask %#x", ir_op_name(n->op),
               cg_node_layout_operands(n, NC4));
  set_layouts(n, which);
  cg_kernel k;
  vkml_status s = cg_kernel_for_node(n, NULL, NULL, t, &k);
  cr_assert(vkml_status_code(s) == VKML_CODE_UNSUPPORTED &&
                has(vkml_status_message(s), "in layout nc4hw4: this kernel reads the default "
                                            "layout only"),
            "%s: %s", ir_op_name(n->op), s ? vkml_status_message(s) : "accepted");
  vkml_status_free(s);
  ir_graph_destroy(m.g);
}

static mnode conv_m(const ccase *c, ir_dtype dt) {
  rt_tensor in[3];
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / c->group, c->kh, c->kw};
  int64_t bd[1] = {c->m};
  in[0] = t_tensor_zeros(dt, 4, xd);
  in[1] = t_tensor_zeros(dt, 4, wd);
  in[2] = t_tensor_zeros(dt, 1, bd);
  ir_type yt = conv_out(c, dt);
  mnode m;
  epi ep = {true, IR_ACT_RELU, 0, 0};
  m.n = conv_node(&m.g, c, in, 3, &yt, &ep);
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  return m;
}

static mnode pool_m(const pcase *p, ir_dtype dt) {
  rt_tensor x = t_tensor_zeros(dt, 4, p->d);
  mnode m;
  m.n = pool_node(&m.g, p, &x, dt);
  rt_tensor_free(&x);
  return m;
}

Test(vk_layout, operands_mask_matches_kernels) {
  ir_target t;
  ir_target_minimum(&t);
  t.storage_16bit = true;
  for (int f = 0; f < 2; f++) {
    ir_dtype dt = f ? IR_F16 : IR_F32;
    claimed(&t, conv_m(&CONV[1], dt), XY);  /* direct */
    claimed(&t, conv_m(&CONV[13], dt), XY); /* 1x1 */
    claimed(&t, conv_m(&CONV[18], dt), XY); /* depthwise, vec4 */
    claimed(&t, conv_m(&CONV[22], dt), XY); /* depthwise, multiplier 2 */
    for (int i = 0; i < N_POOLS; i += 2) claimed(&t, pool_m(&POOLS[i], dt), XY);
    claimed(&t, pool_m(&POOLS[N_POOLS - 1], dt), XY);
    static const ir_op un[] = {IR_OP_RELU, IR_OP_SIGMOID, IR_OP_CLIP, IR_OP_HARD_SWISH,
                               IR_OP_EXP, IR_OP_ROUND};
    for (int i = 0; i < 6; i++) claimed(&t, mk1(un[i], dt), XY);
    static const ir_op bin[] = {IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV};
    for (int i = 0; i < 4; i++) claimed(&t, mk2(bin[i], dt, D4), ABY);
    claimed(&t, mk1(IR_OP_REORDER, dt), XY);
    claimed(&t, mk1(IR_OP_IDENTITY, dt), XY);
  }

  /* ops without packed paths, and operands outside the masks */
  static const ir_op others[] = {IR_OP_SOFTMAX, IR_OP_REDUCE_SUM, IR_OP_TRANSPOSE,
                                 IR_OP_RESHAPE, IR_OP_CAST, IR_OP_NOT, IR_OP_BATCHNORM,
                                 IR_OP_RESIZE, IR_OP_PAD, IR_OP_SLICE};
  for (int i = 0; i < 10; i++) refused(&t, mk1(others[i], IR_F32), 1u, 0);
  refused(&t, mk1(IR_OP_SOFTMAX, IR_F32), CG_LAYOUT_OUT(0), 0);
  static const ir_op two[] = {IR_OP_MIN, IR_OP_MAX, IR_OP_POW, IR_OP_PRELU, IR_OP_EQUAL,
                              IR_OP_CONCAT, IR_OP_SUM};
  for (int i = 0; i < 7; i++) refused(&t, mk2(two[i], IR_F32, D4), 1u, 0);
  const int64_t bc[4] = {1, 5, 1, 1};
  refused(&t, mk2(IR_OP_ADD, IR_F32, bc), 1u, 0);            /* broadcasting */
  refused(&t, mk2(IR_OP_ADD, IR_I32, D4), ABY, 0);           /* not float */
  refused(&t, mk1(IR_OP_RELU, IR_I32), XY, 0);
  refused(&t, mk1(IR_OP_REORDER, IR_I32), CG_LAYOUT_OUT(0), 0);
  {
    const int64_t xd[1][4] = {{5, 6, 6, 0}};
    const int ranks[1] = {3};
    refused(&t, mk(IR_OP_RELU, IR_F32, 1, xd, ranks, xd[0], 3), 1u, 0); /* rank 3 */
  }
  {
    /* relu to another dtype: its kernel refuses it in any layout */
    const int64_t xd[1][4] = {{1, 5, 6, 6}};
    mnode m = mk(IR_OP_RELU, IR_F32, 1, xd, NULL, D4, 4);
    m.n->outputs[0]->type.dtype = IR_F16;
    refused(&t, m, XY, 0);
  }
  ccase tr = {1, 4, 5, 5, 6, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 1};
  mnode ct = conv_m(&tr, IR_F32);
  ct.n->op = IR_OP_CONV_TRANSPOSE2D;
  refused(&t, ct, XY, 0);
  refused(&t, conv_m(&CONV[0], IR_F32), XY | 2u, XY); /* a packed weight */
  refused(&t, conv_m(&CONV[0], IR_F32), XY | 4u, XY); /* a packed bias */

  /* nhwc: an elementwise op over one shape takes it on both sides (as the
   * default layout), not on one */
  mnode m = mk1(IR_OP_RELU, IR_F32);
  m.n->inputs[0]->layout = m.n->outputs[0]->layout = IR_LAYOUT_NHWC;
  cr_assert_eq(cg_node_layout_operands_on(m.n, IR_LAYOUT_NHWC, &t), XY);
  cr_assert_eq(cg_node_layout_operands(m.n, IR_LAYOUT_NHWC), 0u); /* nc4hw4's question only */
  cg_kernel k;
  T_OK(cg_kernel_for_node(m.n, NULL, NULL, &t, &k));
  cr_assert(strstr(k.key, "{layout=nhwc}"), "%s", k.key);
  m.n->outputs[0]->layout = IR_LAYOUT_DEFAULT;
  t_expect_error(cg_kernel_for_node(m.n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "in layout nhwc");
  ir_graph_destroy(m.g);
}
