/* The conv2d / conv_transpose2d templates (codegen/kernels/conv2d.c) on the device
 * against the CPU reference kernel (rt_cpu_run_node on the same node), on
 * random non-zero inputs: for each of the four algorithms (direct, 1x1,
 * depthwise, transposed) 22 shape/attribute cases with the default schedule
 * (fitted to each workload), alternately f32 and f16, a bias / activation
 * pair rotating over the cases; and a sampled subset of each template's knob
 * space (6 points, 2 cases each, one dtype and epilogue per point). Every
 * shape is a pipeline that lavapipe compiles afresh (~0.1-0.5 s): the counts
 * keep the executable near 20 s. Plus, without a device: the algorithm
 * choice, keys, and what is refused.
 *
 * Bounds, per element (|got - want| <= rtol*|want| + atol):
 *   f32: rtol 1e-4; atol = 2 * (K+1) * 2^-24 * S, where K is the number of
 *        products summed (C/group * kh * kw), S the same convolution of |x|,
 *        |w|, |bias| (computed by the reference): the worst-case error of an
 *        fp32 sum of K+1 terms, times 2 for the activation's slope (<= 1.5).
 *        It matters only where the sum cancels to near 0.
 *   f16: rtol 2^-10 (the shader rounds its fp32 result to f16 once, the
 *        reference its exact one: they may differ by one f16 ulp), atol =
 *        2^-24 (one f16 subnormal step) + the fp32 term above. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/conv2d.h"
#include "codegen/core/ops.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct ccase {
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw;
  int64_t pads[4]; /* top, left, bottom, right */
  int64_t group;
  int64_t opad[2]; /* conv_transpose2d only */
} ccase;

/* n c h w m kh kw sh sw dh dw pads group opad */
static const ccase DIRECT[] = {
    {1, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0}},
    {2, 5, 7, 11, 6, 3, 3, 2, 2, 1, 1, {1, 0, 2, 1}, 1, {0}},   /* asymmetric pads */
    {1, 4, 13, 13, 16, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 1, {0}},
    {1, 3, 15, 17, 5, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1, {0}},
    {1, 6, 10, 10, 9, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 1, {0}},  /* dilation */
    {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2, {0}},    /* groups */
    {1, 12, 8, 8, 12, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 4, {0}},
    {1, 6, 9, 9, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 6, {0}},   /* depthwise x2 */
    {3, 7, 5, 6, 10, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {0}},   /* 1x1 */
    {1, 7, 11, 11, 3, 1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 1, {0}},  /* strided 1x1 */
    {1, 3, 1, 17, 4, 1, 5, 1, 1, 1, 1, {0, 2, 0, 2}, 1, {0}},   /* 1-D */
    {1, 5, 12, 10, 7, 3, 1, 2, 1, 2, 1, {1, 0, 1, 0}, 1, {0}},
    {1, 2, 6, 6, 3, 6, 6, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {0}},    /* 1x1 output */
    {1, 9, 23, 19, 33, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0}},
    {2, 16, 14, 14, 20, 3, 3, 2, 2, 1, 1, {0, 1, 1, 0}, 1, {0}},
    {1, 1, 8, 8, 8, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {0}},    /* one channel */
    {1, 10, 7, 7, 70, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0}},
    {1, 33, 6, 6, 9, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0}},
    {1, 4, 9, 9, 4, 5, 5, 2, 2, 2, 2, {4, 4, 4, 4}, 1, {0}},
    {1, 6, 8, 8, 4, 2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, 1, {0}},
    {1, 8, 10, 10, 16, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 8, {0}},
    {1, 3, 5, 5, 4, 3, 3, 1, 1, 1, 1, {0, 2, 1, 0}, 1, {0}},
};

static const ccase ONE[] = {
    {1, 3, 5, 5, 4, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 4, 4, 4, 8, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},    /* vec4 w and x */
    {1, 7, 9, 9, 5, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},    /* neither */
    {2, 16, 8, 8, 24, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 5, 6, 6, 3, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},    /* vec4 x only */
    {1, 8, 7, 7, 16, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},   /* vec4 w only */
    {3, 12, 3, 5, 10, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 64, 4, 4, 32, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 33, 10, 10, 17, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 1, 9, 9, 6, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 20, 1, 1, 40, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 9, 1, 13, 7, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {2, 24, 14, 14, 12, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 3, 17, 19, 2, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 128, 2, 2, 9, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 6, 28, 28, 6, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {4, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 40, 7, 7, 70, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 4, 11, 1, 4, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 2, 64, 3, 130, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 36, 6, 6, 36, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, {0}, 1, {0}},    /* a single product */
};

/* group == c; m = c * multiplier */
static const ccase DW[] = {
    {1, 4, 9, 9, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 4, {0}},
    {1, 6, 11, 13, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 6, {0}},
    {1, 3, 8, 8, 6, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 3, {0}},     /* multiplier 2 */
    {1, 5, 15, 15, 5, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 5, {0}},
    {1, 8, 10, 10, 8, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 8, {0}},
    {2, 3, 7, 9, 3, 3, 3, 1, 1, 1, 1, {0, 1, 2, 1}, 3, {0}},     /* asymmetric */
    {1, 7, 12, 5, 7, 3, 5, 1, 2, 1, 1, {1, 2, 1, 2}, 7, {0}},
    {1, 16, 6, 6, 48, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 16, {0}},  /* multiplier 3 */
    {1, 2, 19, 21, 2, 3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 2, {0}},
    {1, 10, 4, 4, 10, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 10, {0}},
    {1, 9, 14, 14, 9, 3, 3, 2, 2, 1, 1, {0, 0, 1, 1}, 9, {0}},   /* "same" pads */
    {1, 5, 20, 20, 5, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 5, {0}},
    {1, 3, 9, 9, 6, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 3, {0}},     /* 1x1 */
    {1, 12, 7, 7, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 12, {0}},
    {1, 6, 33, 17, 6, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 6, {0}},
    {1, 4, 10, 10, 4, 3, 3, 2, 2, 3, 3, {3, 3, 3, 3}, 4, {0}},
    {1, 1, 8, 8, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0}},     /* c = 1 */
    {3, 5, 6, 6, 10, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 5, {0}},
    {1, 7, 9, 9, 7, 7, 7, 1, 1, 1, 1, {3, 3, 3, 3}, 7, {0}},
    {1, 8, 40, 3, 8, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 8, {0}},
    {1, 4, 5, 5, 4, 5, 5, 1, 1, 1, 1, {0, 0, 0, 0}, 4, {0}},
    {2, 2, 3, 4, 4, 2, 3, 1, 1, 2, 1, {1, 0, 0, 2}, 2, {0}},
};

/* x [n,c,h,w], w [c, m/group, kh, kw] */
static const ccase TR[] = {
    {1, 4, 5, 5, 6, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {0, 0}},
    {1, 4, 5, 5, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, {1, 1}},
    {1, 3, 4, 6, 5, 4, 4, 2, 2, 1, 1, {1, 1, 1, 1}, 1, {0, 0}},
    {2, 6, 3, 3, 4, 5, 5, 3, 3, 1, 1, {0, 0, 0, 0}, 1, {2, 1}},  /* 2 taps per phase */
    {1, 8, 4, 4, 8, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 2, {0, 0}},  /* groups */
    {1, 6, 5, 5, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 6, {1, 1}},  /* depthwise */
    {1, 5, 6, 4, 3, 5, 5, 1, 1, 2, 2, {2, 2, 2, 2}, 1, {0, 0}},  /* dilation */
    {1, 4, 3, 5, 7, 2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, 1, {0, 0}},
    {1, 3, 7, 7, 4, 3, 3, 2, 2, 2, 2, {1, 0, 2, 1}, 1, {0, 0}},  /* asymmetric */
    {1, 7, 4, 4, 9, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, {0, 0}},
    {1, 2, 5, 3, 3, 3, 2, 2, 3, 1, 1, {0, 1, 1, 0}, 1, {0, 0}},
    {1, 16, 3, 3, 8, 7, 7, 4, 4, 1, 1, {0, 0, 0, 0}, 1, {0, 0}},
    {1, 9, 6, 6, 10, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, {0, 0}},
    {1, 4, 1, 9, 4, 1, 4, 1, 2, 1, 1, {0, 1, 0, 1}, 1, {0, 0}},  /* 1-D */
    {1, 12, 5, 5, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 3, {0, 0}},
    {1, 3, 8, 8, 2, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1, {1, 1}},
    {1, 4, 4, 4, 33, 3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, {0, 0}},
    {3, 5, 3, 4, 6, 3, 3, 2, 2, 1, 1, {2, 2, 2, 2}, 1, {0, 0}},
    {1, 6, 4, 4, 4, 5, 5, 3, 3, 2, 2, {1, 1, 1, 1}, 1, {0, 0}},  /* taps step 3 */
    {1, 4, 5, 5, 4, 3, 3, 2, 2, 2, 2, {0, 0, 0, 0}, 1, {0, 0}},  /* tap-less phases */
    {1, 33, 3, 3, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0, 0}},
    {1, 2, 6, 6, 2, 5, 5, 2, 2, 1, 1, {4, 0, 0, 4}, 1, {0, 0}},
};

typedef struct family {
  const char *name;
  const cg_template *tmpl;
  const ccase *cases;
  int n_cases;
  bool transpose;
} family;

#define FAM(nm, t, arr, tr) {nm, &t, arr, (int)(sizeof arr / sizeof arr[0]), tr}
static const family FAMS[6] = {
    FAM("direct", cg_conv2d_direct_template, DIRECT, false),
    FAM("1x1", cg_conv2d_1x1_template, ONE, false),
    FAM("depthwise", cg_conv2d_depthwise_template, DW, false),
    FAM("transpose", cg_conv_transpose2d_template, TR, true),
    FAM("sliced_k", cg_conv2d_sliced_k_template, DIRECT, false),
    FAM("1x1_sliced_k", cg_conv2d_1x1_sliced_k_template, ONE, false),
};

typedef struct epi {
  bool bias;
  ir_act act;
  float alpha, beta;
} epi;

static const epi EPIS[] = {
    {true, IR_ACT_NONE, 0, 0},          {true, IR_ACT_RELU, 0, 0},
    {false, IR_ACT_NONE, 0, 0},         {true, IR_ACT_RELU6, 0, 0},
    {false, IR_ACT_LEAKY_RELU, 0.1f, 0}, {true, IR_ACT_CLIP, -0.5f, 1.5f},
    {true, IR_ACT_LEAKY_RELU, 0.2f, 0}, {false, IR_ACT_RELU6, 0, 0},
    {true, IR_ACT_ELU, 0.7f, 0},        {true, IR_ACT_SIGMOID, 0, 0},
    {false, IR_ACT_TANH, 0, 0},         {true, IR_ACT_HARD_SIGMOID, 0.2f, 0.5f},
    {true, IR_ACT_HARD_SWISH, 0, 0},    {true, IR_ACT_GELU, 0, 0},
    {false, IR_ACT_GELU_TANH, 0, 0},    {true, IR_ACT_SILU, 0, 0},
};
#define N_EPIS ((int)(sizeof EPIS / sizeof EPIS[0]))

/* ---- building the node --------------------------------------------------- */

static ir_type out_type(const ccase *c, bool tr, ir_dtype dt) {
  int64_t d[4] = {c->n, c->m, 0, 0};
  int64_t k[2] = {c->kh, c->kw}, s[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw};
  int64_t in[2] = {c->h, c->w};
  for (int i = 0; i < 2; i++) {
    int64_t ext = (k[i] - 1) * dl[i] + 1, pad = c->pads[i] + c->pads[i + 2];
    d[2 + i] = tr ? s[i] * (in[i] - 1) + c->opad[i] + ext - pad : (in[i] + pad - ext) / s[i] + 1;
  }
  return ir_type_make(dt, 4, d);
}

static void weight_dims(const ccase *c, bool tr, int64_t *d) {
  d[0] = tr ? c->c : c->m;
  d[1] = tr ? c->m / c->group : c->c / c->group;
  d[2] = c->kh;
  d[3] = c->kw;
}

static ir_node *make_node(ir_graph **g, const ccase *c, bool tr, const rt_tensor *in, int n_in,
                          const ir_type *yt, const epi *e) {
  ir_node *n = t_node_make(g, tr ? IR_OP_CONV_TRANSPOSE2D : IR_OP_CONV2D, in, n_in, yt, 1);
  t_set_window_attrs(*g, n, c->sh, c->sw, c->dh, c->dw, c->pads);
  if (c->group != 1) T_OK(ir_node_set_int(*g, n, IR_A_GROUP, c->group));
  if (tr && (c->opad[0] || c->opad[1]))
    T_OK(ir_node_set_ints(*g, n, IR_A_OUTPUT_PADDING, c->opad, 2));
  if (e && e->act != IR_ACT_NONE) {
    T_OK(ir_node_set_enum(*g, n, IR_A_ACT, e->act));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_ALPHA, e->alpha));
    T_OK(ir_node_set_float(*g, n, IR_A_ACT_BETA, e->beta));
  }
  return n;
}

/* ---- the device check ------------------------------------------------------ */

typedef struct env {
  vt_env v;
  int n_run;
  double max_err[2]; /* worst |got-want| / (rtol|want| + atol) seen, f32 and f16 */
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

/* |t| as an f32 tensor (exact for f16 data). */
/* Runs case c through template t with schedule s (NULL: the default) on
 * the device and compares with the reference. Returns false (and checks
 * nothing) when the instantiation is refused with UNSUPPORTED and
 * allow_unsupported is set. */
static bool check(env *e, const family *f, const ccase *c, const epi *ep, ir_dtype dt,
                  const cg_schedule *s, uint64_t seed, bool allow_unsupported) {
  t_rng r = t_rng_make(seed);
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4], bd[1] = {c->m};
  weight_dims(c, f->transpose, wd);
  rt_tensor in[3] = {t_tensor_random(&r, dt, 4, xd, -2, 2), t_tensor_random(&r, dt, 4, wd, -1, 1),
                     t_tensor_random(&r, dt, 1, bd, -1, 1)};
  int n_in = ep->bias ? 3 : 2;
  ir_type yt = out_type(c, f->transpose, dt);
  ir_graph *g, *ga;
  ir_node *n = make_node(&g, c, f->transpose, in, n_in, &yt, ep);

  cg_conv_workload w;
  T_OK(cg_conv_workload_from_node(n, &w));
  cg_kernel k;
  vkml_status st = cg_conv_instantiate(&w, f->tmpl, s, e->v.t, &k);
  if (st && allow_unsupported && vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(st);
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
    ir_graph_destroy(g);
    return false;
  }
  T_OK(st);
  cr_assert_eq(k.tmpl, f->tmpl);

  rt_tensor want, got, mag;
  T_OK(rt_tensor_alloc(&yt, &want));
  const rt_tensor *ins[3] = {&in[0], &in[1], &in[2]};
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(n, ins, n_in, outs, 1));

  /* S: the same convolution of absolute values, no activation */
  rt_tensor ab[3] = {vt_abs_f32(&in[0]), vt_abs_f32(&in[1]), vt_abs_f32(&in[2])};
  ir_type mt = yt;
  mt.dtype = IR_F32;
  T_OK(rt_tensor_alloc(&mt, &mag));
  ir_node *na = make_node(&ga, c, f->transpose, ab, n_in, &mt, NULL);
  const rt_tensor *abs_in[3] = {&ab[0], &ab[1], &ab[2]};
  rt_tensor *mag_out[1] = {&mag};
  T_OK(rt_cpu_run_node(na, abs_in, n_in, mag_out, 1));

  vt_poisoned(&yt, 0x7f, &got); /* unwritten elements show */
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, n_in, &got);

  bool f16 = dt == IR_F16;
  double terms = (double)(c->c / c->group) * (double)(c->kh * c->kw) + 1;
  double rtol = f16 ? 1.0001 / 1024 : 1e-4;
  double u = 1.0 / (1 << 24);
  int64_t cnt = rt_tensor_numel(&want), bad;
  double worst = vt_check_bound(&got, &want, &mag, rtol, 2 * terms * u, f16 ? u : 0, &bad);
  if (worst > e->max_err[f16]) e->max_err[f16] = worst;
  if (bad >= 0) {
    double bad_tol = rtol * fabs(rt_load_f(&want, bad)) + 2 * terms * u * rt_load_f(&mag, bad) +
                     (f16 ? u : 0);
    char sched[128];
    cg_schedule_format(k.tmpl, &k.schedule, sched, sizeof sched);
    cr_assert_fail("%s [%s %s] element %lld of %lld: got %.9g want %.9g (tolerance %.3g)", k.key,
                   k.tmpl->name, sched, (long long)bad, (long long)cnt, rt_load_f(&got, bad),
                   rt_load_f(&want, bad), bad_tol);
  }
  e->n_run++;
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  rt_tensor_free(&mag);
  for (int i = 0; i < 3; i++) {
    rt_tensor_free(&in[i]);
    rt_tensor_free(&ab[i]);
  }
  ir_graph_destroy(g);
  ir_graph_destroy(ga);
  return true;
}

/* Every case of a family with the default schedule, alternately f32 and f16
 * (each pipeline is compiled afresh by lavapipe: time is the limit). */
static void default_schedule(int fam) {
  env e;
  env_open(&e);
  const family *f = &FAMS[fam];
  for (int i = 0; i < f->n_cases; i++) {
    ir_dtype dt = (i % 2 && e.v.t->storage_16bit) ? IR_F16 : IR_F32;
    check(&e, f, &f->cases[i], &EPIS[(i + 3 * fam) % N_EPIS], dt, NULL,
          1000u * (uint64_t)fam + (uint64_t)i, false);
  }
  cr_assert_eq(e.n_run, f->n_cases);
  cr_log_info("%s: worst error / bound %.3g (f32) %.3g (f16)", f->name, e.max_err[0],
              e.max_err[1]);
  vt_env_close(&e.v);
}

#define POINTS 6
#define CASES_PER_POINT 2

static void sampled_points(int fam) {
  env e;
  env_open(&e);
  const family *f = &FAMS[fam];
  cg_schedule pts[POINTS];
  /* the all-smallest point, then a stride coprime with the space size */
  int np = vt_sample_points(f->tmpl, e.v.t, 0, 379, POINTS, pts);
  cr_assert_eq(np, POINTS);
  int skipped = 0;
  /* one dtype and epilogue per point, so that its cases share one module */
  for (int p = 0; p < np; p++)
    for (int j = 0; j < CASES_PER_POINT; j++) {
      int ci = (p * CASES_PER_POINT + j) % f->n_cases;
      ir_dtype dt = (p % 2 && e.v.t->storage_16bit) ? IR_F16 : IR_F32;
      /* depthwise points that stage too large a tile are refused for the
       * larger kernels: allowed, counted */
      if (!check(&e, f, &f->cases[ci], &EPIS[(5 * p + fam) % N_EPIS], dt, &pts[p],
                 7000u * (uint64_t)fam + 97u * (uint64_t)p + (uint64_t)j,
                 f->tmpl == &cg_conv2d_depthwise_template))
        skipped++;
    }
  cr_assert(skipped <= np * CASES_PER_POINT / 4, "%d cases refused", skipped);
  cr_log_info("%s: %d points, %d runs, %d refused, worst error / bound %.3g (f32) %.3g (f16)",
              f->name, np, e.n_run, skipped, e.max_err[0], e.max_err[1]);
  vt_env_close(&e.v);
}

Test(vk_conv, direct_default) { default_schedule(0); }
Test(vk_conv, direct_points) { sampled_points(0); }
Test(vk_conv, gemm1x1_default) { default_schedule(1); }
Test(vk_conv, gemm1x1_points) { sampled_points(1); }
Test(vk_conv, depthwise_default) { default_schedule(2); }
Test(vk_conv, depthwise_points) { sampled_points(2); }
Test(vk_conv, transpose_default) { default_schedule(3); }
Test(vk_conv, transpose_points) { sampled_points(3); }
Test(vk_conv, sliced_k_default) { default_schedule(4); }
Test(vk_conv, sliced_k_points) { sampled_points(4); }
Test(vk_conv, gemm1x1_sliced_k_default) { default_schedule(5); }
Test(vk_conv, gemm1x1_sliced_k_points) { sampled_points(5); }

/* Depthwise case c (f32, no bias) on random inputs (seed): its node in *g,
 * output type *yt, workload *w, and the template's default schedule with
 * the input tile staged in shared memory (SMEM=1) in *s. */
static void depthwise_staged(const ccase *c, uint64_t seed, rt_tensor in[2], ir_graph **g,
                             ir_type *yt, cg_conv_workload *w, cg_schedule *s) {
  const cg_template *t = FAMS[2].tmpl;
  t_rng r = t_rng_make(seed);
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, 1, c->kh, c->kw};
  in[0] = t_tensor_random(&r, IR_F32, 4, xd, -1, 1);
  in[1] = t_tensor_random(&r, IR_F32, 4, wd, -1, 1);
  *yt = out_type(c, false, IR_F32);
  ir_node *n = make_node(g, c, false, in, 2, yt, NULL);
  T_OK(cg_conv_workload_from_node(n, w));
  *s = t->dflt;
  s->v[cg_knob_index(t, "SMEM")] = 1;
}

/* A depthwise conv whose staged tile cannot fit (dilation 24): a schedule
 * with SMEM=1 is refused, the default (which reads through the cache) runs
 * and is right. */
Test(vk_conv, depthwise_staged_tile_too_large) {
  env e;
  env_open(&e);
  const family *f = &FAMS[2];
  ccase c = {1, 3, 20, 20, 3, 5, 5, 1, 1, 24, 24, {40, 40, 40, 40}, 3, {0}};
  rt_tensor in[2];
  ir_type yt;
  ir_graph *g;
  cg_conv_workload w;
  cg_schedule s;
  depthwise_staged(&c, 5, in, &g, &yt, &w, &s);
  cg_kernel k;
  t_expect_error(cg_conv_instantiate(&w, f->tmpl, &s, e.v.t, &k), VKML_CODE_UNSUPPORTED,
                 "shared memory");
  T_OK(cg_conv_instantiate(&w, NULL, NULL, e.v.t, &k));
  cr_assert_eq(k.tmpl, f->tmpl);
  cr_assert_eq(k.schedule.v[cg_knob_index(f->tmpl, "SMEM")], 0);
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  ir_graph_destroy(g);
  check(&e, f, &c, &EPIS[1], IR_F32, NULL, 11, false);
  vt_env_close(&e.v);
}

/* The staged tile's specialization constants forged (as a tampered artifact
 * could carry them): a staged depthwise kernel (SMEM=1) whose IN_TH, IN_TW or
 * SMEM_ELEMS would index tile[] past its end, or whose stride is 2^31, returns
 * at once (tile_ok), its output left unwritten; with the host's values it
 * writes every element. Without the check the tile's reads and writes leave
 * workgroup memory, which robust buffer access does not cover. */
Test(vk_conv, depthwise_forged_tile_leaves_the_kernel_at_once) {
  env e;
  env_open(&e);
  const family *f = &FAMS[2];
  ccase c = {1, 4, 17, 19, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 4, {0}};
  rt_tensor in[2];
  ir_type yt;
  ir_graph *g;
  cg_conv_workload w;
  cg_schedule s;
  depthwise_staged(&c, 9, in, &g, &yt, &w, &s);
  cg_kernel k;
  T_OK(cg_conv_instantiate(&w, f->tmpl, &s, e.v.t, &k));
  int at[4] = {-1, -1, -1, -1};
  const uint32_t ids[4] = {CG_SPEC_CONV2D_DEPTHWISE_IN_TH, CG_SPEC_CONV2D_DEPTHWISE_IN_TW,
                           CG_SPEC_CONV2D_DEPTHWISE_SMEM_ELEMS, CG_SPEC_CONV_PARAMS_SH};
  for (int j = 0; j < k.n_spec; j++)
    for (int i = 0; i < 4; i++)
      if (k.spec_id[j] == ids[i]) at[i] = j;
  for (int i = 0; i < 4; i++) cr_assert_geq(at[i], 0, "%s sets no spec %u", k.key, ids[i]);
  const struct {
    int which;
    uint32_t value; /* 0: the host's, the kernel writes */
  } forge[] = {{0, 0},         {0, 1},         {1, 2},          {2, 1},
               {2, 7},         {0, 0x10000u},  {1, 0xffffffffu}, {3, 0x80000000u}};
  const rt_tensor *ins[2] = {&in[0], &in[1]};
  for (size_t v = 0; v < sizeof forge / sizeof forge[0]; v++) {
    cg_kernel fk = k;
    bool forged = forge[v].value != 0;
    if (forged) fk.spec_value[at[forge[v].which]] = forge[v].value;
    rt_tensor got;
    vt_poisoned(&yt, 0x7f, &got);
    vt_run_kernel(e.v.ctx, e.v.cc, &fk, ins, 2, &got);
    size_t untouched = vt_untouched(&got, 0x7f);
    if (forged)
      cr_assert_eq(untouched, rt_tensor_bytes(&got), "%s: spec %u = %#x wrote %zu bytes", k.key,
                   ids[forge[v].which], forge[v].value, rt_tensor_bytes(&got) - untouched);
    else
      cr_assert_lt(untouched, rt_tensor_bytes(&got) / 4, "%s: the host's values wrote nothing", k.key);
    rt_tensor_free(&got);
  }
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  ir_graph_destroy(g);
  vt_env_close(&e.v);
}

/* ---- without a device ---------------------------------------------------------- */

static const cg_template *chosen(const ccase *c, bool tr, ir_dtype dt, const ir_target *t) {
  rt_tensor in[2];
  int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4];
  weight_dims(c, tr, wd);
  in[0] = t_tensor_zeros(dt, 4, xd);
  in[1] = t_tensor_zeros(dt, 4, wd);
  ir_type yt = out_type(c, tr, dt);
  ir_graph *g;
  ir_node *n = make_node(&g, c, tr, in, 2, &yt, NULL);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, t, &k));
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
  ir_graph_destroy(g);
  return k.tmpl;
}

Test(vk_conv, algorithm_choice) {
  ir_target t;
  ir_target_minimum(&t);
  t.storage_16bit = true;
  /* 1x1 (any): direct, which measured faster than the 1x1 GEMM template */
  cr_assert_eq(chosen(&ONE[3], false, IR_F32, &t), &cg_conv2d_direct_template);
  cr_assert_eq(chosen(&DIRECT[9], false, IR_F32, &t), &cg_conv2d_direct_template);
  /* group == C: depthwise, multiplier or not; group 2 of 8: direct */
  cr_assert_eq(chosen(&DW[2], false, IR_F16, &t), &cg_conv2d_depthwise_template);
  cr_assert_eq(chosen(&DIRECT[7], false, IR_F32, &t), &cg_conv2d_depthwise_template);
  cr_assert_eq(chosen(&DIRECT[5], false, IR_F32, &t), &cg_conv2d_direct_template);
  cr_assert_eq(chosen(&DIRECT[0], false, IR_F16, &t), &cg_conv2d_direct_template);
  /* c == group == 1 is an ordinary conv */
  cr_assert_eq(chosen(&DW[16], false, IR_F32, &t), &cg_conv2d_direct_template);
  cr_assert_eq(chosen(&TR[1], true, IR_F32, &t), &cg_conv_transpose2d_template);
}

Test(vk_conv, refusals_and_key) {
  ir_target t;
  ir_target_minimum(&t);
  rt_tensor in[3];
  t_rng r = t_rng_make(3);
  int64_t xd[4] = {1, 3, 8, 8}, wd[4] = {4, 3, 3, 3}, bd[1] = {4};
  in[0] = t_tensor_random(&r, IR_F16, 4, xd, -1, 1);
  in[1] = t_tensor_random(&r, IR_F16, 4, wd, -1, 1);
  in[2] = t_tensor_random(&r, IR_F16, 1, bd, -1, 1);
  ccase c = {1, 3, 8, 8, 4, 3, 3, 2, 1, 1, 1, {1, 1, 0, 1}, 1, {0}};
  epi ep = {true, IR_ACT_LEAKY_RELU, 0.25f, 0};
  ir_type yt = out_type(&c, false, IR_F16);
  ir_graph *g;
  ir_node *n = make_node(&g, &c, false, in, 3, &yt, &ep);
  cg_conv_workload w;
  T_OK(cg_conv_workload_from_node(n, &w));
  char key[512];
  cg_conv_workload_key(&w, key, sizeof key);
  cr_assert_str_eq(key, "conv2d(f16[1,3,8,8],f16[4,3,3,3],f16[4])->f16[1,4,4,8]{strides=[2,1],"
                        "pads=[1,1,0,1],dilations=[1,1],group=1,act=leaky_relu,act_alpha=0.25}");
  cg_kernel k;
  /* f16 without 16-bit storage */
  t_expect_error(cg_node_conv2d(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "16-bit storage");
  t.storage_16bit = true;
  T_OK(cg_node_conv2d(n, NULL, NULL, &t, &k));
  cr_assert_str_eq(k.key, key);
  cr_assert_eq(k.n_buffers, 4);
  /* templates that do not run this node */
  t_expect_error(cg_node_conv2d(n, &cg_conv2d_1x1_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "1x1");
  t_expect_error(cg_node_conv2d(n, &cg_conv2d_depthwise_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "group == C");
  t_expect_error(cg_node_conv2d(n, &cg_conv_transpose2d_template, NULL, &t, &k),
                 VKML_CODE_UNSUPPORTED, "conv_transpose2d only");
  /* a schedule that does not fit the device */
  cg_schedule big;
  T_OK(cg_schedule_parse(&cg_conv2d_direct_template, "WG_M=32,WG_N=64,TM=8,TN=8,BK=32", &big));
  t_expect_error(cg_node_conv2d(n, &cg_conv2d_direct_template, &big, &t, &k),
                 VKML_CODE_UNSUPPORTED, "exceeds");
  /* a schedule that is no point of the space */
  cg_schedule bogus = {{0}};
  t_expect_error(cg_node_conv2d(n, &cg_conv2d_depthwise_template, &bogus, &t, &k),
                 VKML_CODE_UNSUPPORTED, "group == C");
  t_expect_error(cg_node_conv2d(n, &cg_conv2d_direct_template, &bogus, &t, &k),
                 VKML_CODE_INVALID_ARGUMENT, "not a candidate");
  /* a grid larger than the device's: 32 pixels in blocks of 8 */
  cg_schedule small;
  T_OK(cg_schedule_parse(&cg_conv2d_direct_template, "WG_M=4,WG_N=8,TM=1,TN=1,BK=4", &small));
  T_OK(cg_node_conv2d(n, &cg_conv2d_direct_template, &small, &t, &k));
  cr_assert_eq(k.groups[0], 4);
  t.max_workgroup_count[0] = 3;
  t_expect_error(cg_node_conv2d(n, &cg_conv2d_direct_template, &small, &t, &k),
                 VKML_CODE_UNSUPPORTED, "workgroups");
  ir_graph_destroy(g);

  /* integer convs stay on the CPU */
  rt_tensor ii[2] = {t_tensor_random(&r, IR_I32, 4, xd, -3, 3),
                     t_tensor_random(&r, IR_I32, 4, wd, -3, 3)};
  ir_type it = ir_type_make(IR_I32, 4, (int64_t[]){1, 4, 6, 6});
  n = t_node_make(&g, IR_OP_CONV2D, ii, 2, &it, 1);
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "i32");
  ir_graph_destroy(g);
  /* an output shape that contradicts the attributes */
  ir_type wrong = ir_type_make(IR_F16, 4, (int64_t[]){1, 4, 7, 6});
  n = t_node_make(&g, IR_OP_CONV2D, in, 2, &wrong, 1);
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_INVALID_ARGUMENT,
                 "output shape");
  ir_graph_destroy(g);
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  rt_tensor_free(&ii[0]);
  rt_tensor_free(&ii[1]);
}

/* conv2d_direct runs k tap-major (K_TAP_OUTER) where every step of BK stays
 * within one tap of the kernel: f32 and f16, with groups, dilation, strides
 * and asymmetric pads, vec4 tiles (TM, TN >= 4) and scalar ones; not where a
 * group's channels are no multiple of BK (the last case at BK 16), nor in
 * conv2d_sliced_k (slower there on the H200), which runs the same cases. */
static const ccase TAP[] = {
    {1, 64, 9, 11, 24, 3, 3, 1, 1, 2, 2, {2, 1, 2, 1}, 2, {0}},  /* 32 channels a group */
    {2, 16, 13, 10, 40, 5, 3, 2, 1, 1, 1, {2, 0, 1, 1}, 1, {0}}, /* 16 */
    {1, 24, 8, 8, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, {0}},    /* 24 */
};

static bool defines(const cg_kernel *k, const char *name) {
  for (int i = 0; i < k->n_defines; i++)
    if (!strcmp(k->def_name[i], name)) return true;
  return false;
}

Test(vk_conv, tap_major_k) {
  env e;
  env_open(&e);
  static const struct {
    int fam;
    const char *sched;
  } pts[] = {
      {0, "WG_M=8,WG_N=16,TM=8,TN=4,BK=8"},
      {0, "WG_M=4,WG_N=16,TM=4,TN=1,BK=16"},
      {4, "WG_M=8,WG_N=8,TM=4,TN=4,BK=8,KS=4"},
      {4, "WG_M=4,WG_N=16,TM=2,TN=2,BK=16,KS=2"},
      {4, "WG_M=8,WG_N=16,TM=8,TN=4,BK=8,KS=2"}, /* 64x64 tiles in 2 slices */
  };
  int tap_major = 0;
  for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++)
    for (size_t i = 0; i < sizeof TAP / sizeof TAP[0]; i++) {
      const family *f = &FAMS[pts[p].fam];
      const ccase *c = &TAP[i];
      cg_schedule s;
      T_OK(cg_schedule_parse(f->tmpl, pts[p].sched, &s));
      int bk = s.v[cg_knob_index(f->tmpl, "BK")];
      /* the kernel's define, from a node of the case's shape */
      rt_tensor in[2];
      t_rng r = t_rng_make(5);
      int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4];
      weight_dims(c, false, wd);
      in[0] = t_tensor_random(&r, IR_F32, 4, xd, -1, 1);
      in[1] = t_tensor_random(&r, IR_F32, 4, wd, -1, 1);
      ir_type yt = out_type(c, false, IR_F32);
      ir_graph *g;
      ir_node *n = make_node(&g, c, false, in, 2, &yt, NULL);
      cg_conv_workload w;
      cg_kernel k;
      T_OK(cg_conv_workload_from_node(n, &w));
      T_OK(cg_conv_instantiate(&w, f->tmpl, &s, e.v.t, &k));
      bool want = f->tmpl == &cg_conv2d_direct_template && (c->c / c->group) % bk == 0;
      cr_assert_eq(defines(&k, "K_TAP_OUTER"), want, "case %zu %s", i, pts[p].sched);
      tap_major += want;
      ir_graph_destroy(g);
      rt_tensor_free(&in[0]);
      rt_tensor_free(&in[1]);
      ir_dtype dt = (i % 2 && e.v.t->storage_16bit) ? IR_F16 : IR_F32;
      check(&e, f, c, &EPIS[(p + i) % N_EPIS], dt, &s, 9000u + 10u * p + i, false);
    }
  cr_assert_eq(tap_major, 5);
  vt_env_close(&e.v);
}
