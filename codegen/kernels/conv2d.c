/* conv2d / conv_transpose2d kernels (see codegen/core/conv.h): the templates' spaces,
 * workloads and keys, the choice of algorithm, instantiation (specialization
 * constants, grid) and the family entry points of codegen/core/ops.h; the
 * cooperative-matrix template lives in codegen/kernels/conv2d_coopmat.c. */
#include <stdio.h>
#include <string.h>

#include "conv2d.h" /* its own header: the family's face for tests */

/* ---- templates ------------------------------------------------------------ */

enum { K_WG_M = 0, K_WG_N, K_TM, K_TN, K_BK, K_KS };
enum { K_WG_X = 0, K_WG_Y, K_CPW, K_OPX, K_OPY, K_SMEM };

/* The tile knobs of the GEMM-like templates (the sliced ones add KS). */
#define GEMM_TILE_KNOBS                                                        \
  {"WG_M", 4, {4, 8, 16, 32}}, {"WG_N", 4, {8, 16, 32, 64}},                   \
      {"TM", 4, {1, 2, 4, 8}}, {"TN", 4, {1, 2, 4, 8}}, {"BK", 4, {4, 8, 16, 32}}

/* Shared memory of the GEMM-like templates is 4*BK*(BM + BN) bytes; the two
 * constraints bound each half by half the limit (products only). */
#define GEMM_KNOBS                                                             \
  .n_knobs = 5,                                                                \
  .knobs = {GEMM_TILE_KNOBS},                                                  \
  .n_constraints = 5,                                                          \
  .constraints = {                                                             \
      {CG_LIMIT_WORKGROUP_X, 1u << K_WG_N, 1},                                 \
      {CG_LIMIT_WORKGROUP_Y, 1u << K_WG_M, 1},                                 \
      {CG_LIMIT_WORKGROUP_INVOCATIONS, (1u << K_WG_M) | (1u << K_WG_N), 1},    \
      {CG_LIMIT_SHARED_BYTES, (1u << K_WG_M) | (1u << K_TM) | (1u << K_BK), 8}, \
      {CG_LIMIT_SHARED_BYTES, (1u << K_WG_N) | (1u << K_TN) | (1u << K_BK), 8}, \
  }

const cg_template cg_conv2d_direct_template = {
    .name = "conv2d_direct",
    .glsl = "conv2d_direct.comp",
    GEMM_KNOBS,
    .dflt = {{8, 16, 8, 8, 8}},
};

const cg_template cg_conv2d_1x1_template = {
    .name = "conv2d_1x1",
    .glsl = "conv2d_1x1.comp",
    GEMM_KNOBS,
    .dflt = {{8, 16, 8, 8, 8}},
};

/* conv2d_direct and conv2d_1x1 with the workgroup split along k into KS
 * slices (glsl/sliced_k.glsl): KS times the invocations and the tiles, and
 * the slices' sums, (KS-1)*BM*BN words, in the same shared memory after the
 * tiles. The shared-memory constraints bound the As tiles, the Bs tiles (a
 * quarter of the limit each) and the sums (KS*BM*BN words, within the limit)
 * as products: 64x64 tiles take 2 slices within 48 KiB. Their defaults
 * (sk_default) are chosen per workload. */
#define SLICED_K_KNOBS                                                                              \
  .n_knobs = 6,                                                                                     \
  .knobs = {GEMM_TILE_KNOBS, {"KS", 4, {2, 4, 8, 16}}},                                             \
  .n_constraints = 7,                                                                               \
  .constraints =                                                                                    \
      {                                                                                             \
          {CG_LIMIT_WORKGROUP_X, 1u << K_WG_N, 1},                                                  \
          {CG_LIMIT_WORKGROUP_Y, 1u << K_WG_M, 1},                                                  \
          {CG_LIMIT_WORKGROUP_Z, 1u << K_KS, 1},                                                    \
          {CG_LIMIT_WORKGROUP_INVOCATIONS, (1u << K_WG_M) | (1u << K_WG_N) | (1u << K_KS), 1},      \
          {CG_LIMIT_SHARED_BYTES, (1u << K_WG_M) | (1u << K_TM) | (1u << K_BK) | (1u << K_KS), 16}, \
          {CG_LIMIT_SHARED_BYTES, (1u << K_WG_N) | (1u << K_TN) | (1u << K_BK) | (1u << K_KS), 16}, \
          {CG_LIMIT_SHARED_BYTES,                                                                   \
           (1u << K_WG_M) | (1u << K_TM) | (1u << K_WG_N) | (1u << K_TN) | (1u << K_KS), 4},        \
      },                                                                                            \
  .dflt = {{4, 16, 4, 4, 8, 2}}

const cg_template cg_conv2d_sliced_k_template = {
    .name = "conv2d_sliced_k",
    .glsl = "conv2d_direct.comp",
    SLICED_K_KNOBS,
};

const cg_template cg_conv2d_1x1_sliced_k_template = {
    .name = "conv2d_1x1_sliced_k",
    .glsl = "conv2d_1x1.comp",
    SLICED_K_KNOBS,
};

/* The staged tile's size depends on the kernel, stride and dilation: the
 * instantiation checks it against the target (cg_conv_instantiate). The
 * default reads through the cache (SMEM=0): as fast on the H200, and it fits
 * every kernel. */
const cg_template cg_conv2d_depthwise_template = {
    .name = "conv2d_depthwise",
    .glsl = "conv2d_depthwise.comp",
    .n_knobs = 6,
    .knobs =
        {
            {"WG_X", 4, {4, 8, 16, 32}},
            {"WG_Y", 4, {1, 2, 4, 8}},
            {"CPW", 3, {1, 2, 4}},
            {"OPX", 3, {1, 2, 4}},
            {"OPY", 3, {1, 2, 4}},
            {"SMEM", 2, {0, 1}},
        },
    .n_constraints = 4,
    .constraints =
        {
            {CG_LIMIT_WORKGROUP_X, 1u << K_WG_X, 1},
            {CG_LIMIT_WORKGROUP_Y, 1u << K_WG_Y, 1},
            {CG_LIMIT_WORKGROUP_Z, 1u << K_CPW, 1},
            {CG_LIMIT_WORKGROUP_INVOCATIONS, (1u << K_WG_X) | (1u << K_WG_Y) | (1u << K_CPW), 1},
        },
    .dflt = {{32, 2, 1, 2, 4, 0}},
};

const cg_template cg_conv_transpose2d_template = {
    .name = "conv_transpose2d",
    .glsl = "conv_transpose2d.comp",
    GEMM_KNOBS,
    .dflt = {{8, 16, 4, 4, 8}},
};

/* ---- workloads -------------------------------------------------------------- */

/* ---- the choice of algorithm ------------------------------------------------ */

static bool is_1x1(const cg_conv_workload *w) {
  const ir_conv_params *p = &w->p;
  return w->op == IR_OP_CONV2D && p->kernel[0] == 1 && p->kernel[1] == 1 &&
         p->strides[0] == 1 && p->strides[1] == 1 && !p->pads[0] && !p->pads[1] &&
         !p->pads[2] && !p->pads[3] && p->group == 1;
}

static bool is_depthwise(const cg_conv_workload *w) {
  return w->op == IR_OP_CONV2D && w->p.group == w->c;
}

/* 1x1 convs go to the direct template too: on the H200 it beat conv2d_1x1
 * on every ResNet-50 / MobileNetV2 1x1 shape swept (1.16x-1.49x, best point
 * against best point; bench/results/2026-11-22-h200-sweep.md). conv2d_1x1
 * stays in the space for the tuner. */
const cg_template *cg_conv_choose(const cg_conv_workload *w) {
  if (w->op == IR_OP_CONV_TRANSPOSE2D) return &cg_conv_transpose2d_template;
  if (is_depthwise(w) && w->c > 1) return &cg_conv2d_depthwise_template;
  return &cg_conv2d_direct_template;
}

static bool coopmat_runs(const cg_conv_workload *w) {
  return w->op == IR_OP_CONV2D && w->y.dtype == IR_F16;
}

/* Groups the cooperative-matrix templates take by default: one, or groups
 * whose own GEMM is large (at least 64 output channels and a k of 256, as
 * pass_split_k makes them); small groups (ResNeXt's, RegNet's) stay with
 * the scalar templates, unmeasured on the tensor cores. */
static bool coopmat_groups(const cg_conv_workload *w) {
  int64_t g = w->p.group;
  return g == 1 || (w->m / g >= 64 && cg_conv_k(w) >= 256);
}

/* The sliced-k defaults, from the tuner's survey on the H100 (each
 * template's default timed paired with the plan's, ResNet-50 and
 * MobileNetV2 at batch 1; bench/results/2026-11-27-chained-timing.md, "What
 * the survey says about the defaults"):
 * - conv2d_sliced_k's default was >= 0.99x conv2d_direct's on every
 *   one-group conv of both models in fp32 (up to 3.6x: 3x3 512@7): taken for
 *   one-group convs up to 2^21 outputs (the largest measured: 1.2M);
 * - conv2d_coopmat_sliced_k's beat conv2d_coopmat's (up to 3.3x) exactly
 *   where M x N <= 102400 outputs and K >= 96, and lost (down to 0.46x)
 *   elsewhere.
 * Untuned whole runs on the H100 took 1.39x (ResNet-50 fp16) and 1.67x
 * (fp32) less time with these defaults. On a CPU device (lavapipe) or one of
 * unknown type the plain templates stay: not measured there. */
#define SLICED_MAX_OUTPUTS (1 << 21)
/* ... except those with a long k (K >= LONG_K) where conv2d_direct's 64x64
 * tile (vec4 reads of its tiles, k tap-major) beat the sliced default on the
 * H200 (bench/results/2026-11-27-conv-variants.md): against sliced 32x32
 * tiles where it makes at least 256 tiles (3x3 128@100, 314 tiles: 1.31x;
 * 256@50, 160 tiles: 0.95x), against the 16x16 rung (where 32x32 would
 * make fewer than GEMM_MIN_TILES) down to 80 tiles (3x3 512@25: 1.17x;
 * 256@25, 40 tiles: 0.61x). */
#define LONG_K 1024
#define LONG_K_MIN_TILES 80
#define LONG_K_TILES_VS_32 256
#define COOP_SLICED_MAX_OUTPUTS 102400
#define COOP_SLICED_MIN_K 96

static int64_t outputs_of(const cg_conv_workload *w) {
  return (int64_t)w->n * w->m * w->oh * w->ow;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

#define GEMM_MIN_TILES 384

static bool long_k_direct(int64_t k, int64_t pixels, int64_t channels) {
  int64_t t64 = ceil_div(pixels, 64) * ceil_div(channels, 64);
  int64_t t32 = ceil_div(pixels, 32) * ceil_div(channels, 32);
  return k >= LONG_K && t64 >= LONG_K_MIN_TILES &&
         (t64 >= LONG_K_TILES_VS_32 || t32 < GEMM_MIN_TILES);
}

/* fp16 convs on the scalar templates ran at 0.86-1.11x of fp32 on the H200
 * (bench/results/2026-11-22-h200-run2.md), the cooperative-matrix GEMM at
 * 3.2-3.4x: every dense f16 conv goes to the tensor cores where it can. */
const cg_template *cg_conv_choose_for(const cg_conv_workload *w, const ir_target *target) {
  bool gpu = ir_target_is_gpu(target);
  if (coopmat_runs(w) && coopmat_groups(w) && cg_conv_coopmat_suits(target)) {
    bool sliced =
        gpu && outputs_of(w) <= COOP_SLICED_MAX_OUTPUTS && cg_conv_k(w) >= COOP_SLICED_MIN_K;
    return sliced ? &cg_conv2d_coopmat_sliced_k_template : &cg_conv2d_coopmat_template;
  }
  const cg_template *t = cg_conv_choose(w);
  if (gpu && t == &cg_conv2d_direct_template && w->p.group == 1 &&
      outputs_of(w) <= SLICED_MAX_OUTPUTS &&
      !long_k_direct(cg_conv_k(w), (int64_t)w->n * w->oh * w->ow, w->m))
    return &cg_conv2d_sliced_k_template;
  return t;
}

/* The template to try when t's default does not fit w (UNSUPPORTED), or
 * NULL. */
static const cg_template *default_fallback(const cg_template *t, const cg_conv_workload *w) {
  if (t == &cg_conv2d_coopmat_sliced_k_template) return &cg_conv2d_coopmat_template;
  if (t == &cg_conv2d_coopmat_template) return cg_conv_choose(w);
  if (t == &cg_conv2d_sliced_k_template) return &cg_conv2d_direct_template;
  return NULL;
}

/* Why t cannot run w, or NULL. */
static const char *mismatch(const cg_template *t, const cg_conv_workload *w) {
  if (t == &cg_conv_transpose2d_template)
    return w->op == IR_OP_CONV_TRANSPOSE2D ? NULL : "runs conv_transpose2d only";
  if (w->op != IR_OP_CONV2D) return "runs conv2d only";
  bool coop = t == &cg_conv2d_coopmat_template || t == &cg_conv2d_coopmat_sliced_k_template;
  if (w->w_layout != IR_LAYOUT_DEFAULT && !coop)
    return "reads w in the default layout only (w is stored tap-major, nhwc)";
  if ((w->x_layout == IR_LAYOUT_NHWC || w->y_layout == IR_LAYOUT_NHWC) && !coop)
    return "reads x and writes y in the default or nc4hw4 layout only (nhwc: the "
           "cooperative-matrix templates)";
  if (t == &cg_conv2d_direct_template || t == &cg_conv2d_sliced_k_template) return NULL;
  if (t == &cg_conv2d_1x1_template || t == &cg_conv2d_1x1_sliced_k_template)
    return is_1x1(w) ? NULL : "needs a 1x1 kernel, stride 1, no pads and one group";
  if (t == &cg_conv2d_depthwise_template) return is_depthwise(w) ? NULL : "needs group == C";
  if (t == &cg_conv2d_coopmat_template || t == &cg_conv2d_coopmat_sliced_k_template)
    return coopmat_runs(w) ? NULL : "runs f16 convs only";
  return "is not a convolution template";
}

/* ---- instantiation -------------------------------------------------------------- */

static int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static vkml_status set_grid(cg_kernel *k, const ir_target *t, int64_t gx, int64_t gy, int64_t gz) {
  const int64_t g[3] = {gx, gy, gz};
  for (int i = 0; i < 3; i++) {
    if (g[i] > t->max_workgroup_count[i])
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: %lld workgroups along axis %d exceed the grid of %s (%u)",
                              k->tmpl->name, (long long)g[i], i, t->name,
                              t->max_workgroup_count[i]);
    k->groups[i] = (uint32_t)g[i];
  }
  return VKML_OK;
}

/* The GEMM-like templates' problem: pixels (x blocks) by channels (y blocks)
 * per z slice, and the length of k (0: not used). */
typedef struct gemm_dims {
  int64_t pixels, channels, gz, k;
} gemm_dims;

static gemm_dims gemm_dims_of(const cg_template *t, const cg_conv_workload *w) {
  const ir_conv_params *p = &w->p;
  int64_t G = p->group;
  if (t == &cg_conv2d_1x1_template || t == &cg_conv2d_1x1_sliced_k_template)
    return (gemm_dims){w->h * w->wd, w->m, w->n, w->c};
  if (t == &cg_conv_transpose2d_template)
    return (gemm_dims){w->n * ceil_div(w->oh, p->strides[0]) * ceil_div(w->ow, p->strides[1]),
                       w->m / G, G * p->strides[0] * p->strides[1]};
  return (gemm_dims){w->n * w->oh * w->ow, w->m / G, G, cg_conv_k(w)};
}

static int64_t gemm_groups(const cg_schedule *s, const gemm_dims *d) {
  int64_t bm = (int64_t)s->v[K_WG_M] * s->v[K_TM], bn = (int64_t)s->v[K_WG_N] * s->v[K_TN];
  return ceil_div(d->pixels, bn) * ceil_div(d->channels, bm) * d->gz;
}

/* Workgroups below which the default schedule trades register blocking for
 * parallelism (a fraction of a large GPU's compute units times two). */
#define GEMM_MIN_GROUPS 128

/* The default of a GEMM-like template for one workload: the template's
 * default with fewer outputs per invocation where a block would be mostly
 * empty or the grid too small to fill the device; always as valid as it. */
static void gemm_default(const cg_template *t, const gemm_dims *d, cg_schedule *s) {
  *s = t->dflt;
  while (s->v[K_TM] > 1 && (int64_t)s->v[K_WG_M] * s->v[K_TM] / 2 >= d->channels)
    s->v[K_TM] /= 2;
  while (s->v[K_TN] > 1 && (int64_t)s->v[K_WG_N] * s->v[K_TN] / 2 >= d->pixels) s->v[K_TN] /= 2;
  while (gemm_groups(s, d) < GEMM_MIN_GROUPS) {
    if (s->v[K_TN] > 2 && s->v[K_TN] >= s->v[K_TM]) s->v[K_TN] /= 2;
    else if (s->v[K_TM] > 2) s->v[K_TM] /= 2;
    else break;
  }
}

/* The default of the forward conv GEMM templates (direct, 1x1): the largest
 * tile of a short ladder that still gives GEMM_MIN_TILES workgroups (about
 * three per compute unit of a large GPU), else the smallest. The rungs are
 * the schedules that led their class in the H200 sweeps recorded in
 * bench/results/2026-11-22-h200-sweep.md: 64x64 tiles for large outputs,
 * 32x32, and 16x16 with a deeper K step for the late, small-spatial layers;
 * conv2d_direct keeps 64x64 for a long k (long_k_direct).
 * A rung the target cannot run falls back to gemm_default. */
static const int CONV_LADDER[][5] = {
    {8, 16, 8, 4, 8}, /* 64 x 64, 128 invocations */
    {8, 8, 4, 4, 8},  /* 32 x 32, 64 invocations */
    {4, 16, 4, 1, 16}, /* 16 x 16, 64 invocations */
};

static void conv_default(const cg_template *t, const gemm_dims *d, const ir_target *target,
                         cg_schedule *s) {
  int n = (int)(sizeof CONV_LADDER / sizeof CONV_LADDER[0]);
  for (int r = 0; r < n; r++) {
    for (int k = 0; k < 5; k++) s->v[k] = CONV_LADDER[r][k];
    if (r + 1 < n && gemm_groups(s, d) < GEMM_MIN_TILES &&
        !(r == 0 && t == &cg_conv2d_direct_template && ir_target_is_gpu(target) &&
          long_k_direct(d->k, d->pixels, d->channels)))
      continue;
    vkml_status st = cg_schedule_check(t, s, target);
    if (!st) return;
    vkml_status_free(st);
  }
  gemm_default(t, d, s);
}

static bool is_sliced_k(const cg_template *t) {
  return t == &cg_conv2d_sliced_k_template || t == &cg_conv2d_1x1_sliced_k_template;
}

/* The sliced-k default: the direct default's tile (conv_default), then the
 * most slices (up to 8) that keep the invocations within the target, give
 * each slice at least 8 steps of k and keep the sums within the bound they
 * were measured under; always as valid as the template's default. */
static void sk_default(const cg_template *t, const cg_conv_workload *w, const gemm_dims *d,
                       const ir_target *target, cg_schedule *s) {
  conv_default(t, d, target, s);
  int64_t k = cg_conv_k(w);
  int64_t bm = (int64_t)s->v[K_WG_M] * s->v[K_TM], bn = (int64_t)s->v[K_WG_N] * s->v[K_TN];
  for (int ks = 8; ks >= 2; ks /= 2) {
    s->v[K_KS] = ks;
    if (ks > 2 && k < (int64_t)ks * s->v[K_BK] * 8) continue;
    /* the sums' bound of the space these defaults were measured in
     * (8*KS*BM*BN bytes), tighter than the constraint since */
    if (8 * ks * bm * bn > (int64_t)target->max_shared_bytes) continue;
    vkml_status st = cg_schedule_check(t, s, target);
    if (!st) return;
    vkml_status_free(st);
  }
  *s = t->dflt;
}

/* Depthwise over packed x and y with one input channel per output channel:
 * each invocation computes 4 channels (one texel) at once. */
static bool dw_vec4(const cg_conv_workload *w) {
  return w->x_layout == IR_LAYOUT_NC4HW4 && w->y_layout == IR_LAYOUT_NC4HW4 && w->m == w->c;
}

/* Depthwise: the staged tile (SMEM) and its shared-memory bytes (vec4
 * entries on the packed path). */
static void dw_tile(const cg_conv_workload *w, const cg_schedule *s, int64_t *in_th,
                    int64_t *in_tw, int64_t *bytes) {
  const ir_conv_params *p = &w->p;
  int64_t th = (int64_t)s->v[K_WG_Y] * s->v[K_OPY], tw = (int64_t)s->v[K_WG_X] * s->v[K_OPX];
  *in_th = (th - 1) * p->strides[0] + (p->kernel[0] - 1) * p->dilations[0] + 1;
  *in_tw = (tw - 1) * p->strides[1] + (p->kernel[1] - 1) * p->dilations[1] + 1;
  *bytes = (dw_vec4(w) ? 16 : 4) * s->v[K_CPW] * *in_th * *in_tw;
}

/* The depthwise default for one workload: the template's default tile
 * shrunk to the image, then more channels per workgroup to keep 64
 * invocations; always as valid as the template's default. */
static void dw_default(const cg_conv_workload *w, cg_schedule *s) {
  *s = cg_conv2d_depthwise_template.dflt;
  int *v = s->v;
  while ((int64_t)v[K_WG_X] * v[K_OPX] / 2 >= w->ow) {
    if (v[K_OPX] > 1) v[K_OPX] /= 2;
    else if (v[K_WG_X] > 4) v[K_WG_X] /= 2;
    else break;
  }
  while ((int64_t)v[K_WG_Y] * v[K_OPY] / 2 >= w->oh) {
    if (v[K_OPY] > 1) v[K_OPY] /= 2;
    else if (v[K_WG_Y] > 1) v[K_WG_Y] /= 2;
    else break;
  }
  while (v[K_WG_X] * v[K_WG_Y] * v[K_CPW] < 64 && v[K_CPW] < 4) v[K_CPW] *= 2;
}

static vkml_status instantiate(const cg_conv_workload *w, const cg_template *t,
                               const cg_schedule *s, const ir_target *target, cg_kernel *k);

vkml_status cg_conv_instantiate(const cg_conv_workload *w, const cg_template *t,
                                const cg_schedule *s, const ir_target *target, cg_kernel *k) {
  if (t) return instantiate(w, t, s, target, k);
  /* the target's choice; where its default does not fit, the next one */
  for (t = cg_conv_choose_for(w, target);; t = default_fallback(t, w)) {
    vkml_status r = instantiate(w, t, s, target, k);
    if (!r || vkml_status_code(r) != VKML_CODE_UNSUPPORTED || s || !default_fallback(t, w))
      return r;
    vkml_status_free(r);
  }
}

static vkml_status instantiate(const cg_conv_workload *w, const cg_template *t,
                               const cg_schedule *s, const ir_target *target, cg_kernel *k) {
  memset(k, 0, sizeof *k);
  const char *why = mismatch(t, w);
  if (why)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "template %s %s", t->name, why);
  if (t == &cg_conv2d_coopmat_template || t == &cg_conv2d_coopmat_sliced_k_template)
    return cg_conv_coopmat_instantiate(w, t, s, target, k);
  if (w->y.dtype == IR_F16 && !target->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: f16 needs 16-bit storage, which %s lacks",
                            t->name, target->name);
  cg_schedule sched = s ? *s : t->dflt;
  int64_t in_th = 1, in_tw = 1, smem = 0;
  gemm_dims gd = gemm_dims_of(t, w);
  if (!s && t == &cg_conv2d_depthwise_template) dw_default(w, &sched);
  else if (!s && is_sliced_k(t)) sk_default(t, w, &gd, target, &sched);
  else if (!s && t != &cg_conv_transpose2d_template) conv_default(t, &gd, target, &sched);
  else if (!s) gemm_default(t, &gd, &sched);
  VKML_RETURN_IF_ERROR(cg_schedule_check(t, &sched, target));
  if (t == &cg_conv2d_depthwise_template) {
    dw_tile(w, &sched, &in_th, &in_tw, &smem);
    if (sched.v[K_SMEM] && smem > target->max_shared_bytes)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: the staged input tile needs %lld bytes of shared memory, "
                              "more than the %u of %s",
                              t->name, (long long)smem, target->max_shared_bytes, target->name);
  }
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, t, &sched, target));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", w->y.dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "HAS_BIAS", "%d", w->has_bias));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ACT", "%d", (int)w->p.act.kind));
  /* direct: k tap-major where every step of BK stays within one tap (the
   * im2col rows of a step share their position) */
  if (t == &cg_conv2d_direct_template &&
      w->p.kernel[0] * w->p.kernel[1] > 1 && (w->c / w->p.group) % sched.v[K_BK] == 0)
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "K_TAP_OUTER", "1"));
  /* packed operands: only then defined, so that default-layout kernels keep
   * their source key */
  bool vec4 = t == &cg_conv2d_depthwise_template && dw_vec4(w);
  if (vec4) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DW_VEC4", "1"));
  else if (w->x_layout == IR_LAYOUT_NC4HW4)
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "X_NC4HW4", "1"));
  if (!vec4 && w->y_layout == IR_LAYOUT_NC4HW4)
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "Y_NC4HW4", "1"));
  VKML_RETURN_IF_ERROR(cg_conv_specs(k, w));
  cg_conv_workload_key(w, k->key, sizeof k->key);
  k->n_buffers = w->has_bias ? 4 : 3;
  k->push_bytes = 0;

  const ir_conv_params *p = &w->p;
  if (t == &cg_conv2d_1x1_template || t == &cg_conv2d_1x1_sliced_k_template) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV2D_1X1_VEC_A, w->c % 4 == 0));
    /* vec4 x loads run along pixels: the default layout's rows only */
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV2D_1X1_VEC_B,
                                        w->x_layout == IR_LAYOUT_DEFAULT && (w->h * w->wd) % 4 == 0));
  }
  if (t == &cg_conv_transpose2d_template) {
    int64_t sh = p->strides[0], sw = p->strides[1];
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV_TRANSPOSE2D_STEP_KH,
                                        (uint32_t)(sh / gcd(sh, p->dilations[0]))));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV_TRANSPOSE2D_STEP_KW,
                                        (uint32_t)(sw / gcd(sw, p->dilations[1]))));
  }
  if (t != &cg_conv2d_depthwise_template) {
    int64_t bm = (int64_t)sched.v[K_WG_M] * sched.v[K_TM];
    int64_t bn = (int64_t)sched.v[K_WG_N] * sched.v[K_TN];
    return set_grid(k, target, ceil_div(gd.pixels, bn), ceil_div(gd.channels, bm), gd.gz);
  }
  /* depthwise */
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV2D_DEPTHWISE_IN_TH, (uint32_t)in_th));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV2D_DEPTHWISE_IN_TW, (uint32_t)in_tw));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_CONV2D_DEPTHWISE_SMEM_ELEMS,
                                      sched.v[K_SMEM] ? (uint32_t)(smem / (vec4 ? 16 : 4)) : 1u));
  int64_t th = (int64_t)sched.v[K_WG_Y] * sched.v[K_OPY];
  int64_t tw = (int64_t)sched.v[K_WG_X] * sched.v[K_OPX];
  int64_t planes = w->n * (vec4 ? ceil_div(w->m, 4) : w->m);
  return set_grid(k, target, ceil_div(w->ow, tw), ceil_div(w->oh, th),
                  ceil_div(planes, sched.v[K_CPW]));
}

/* ---- family entry points (codegen/core/ops.h) ---------------------------------------------- */

static vkml_status node_conv(const ir_node *n, const cg_template *st, const cg_schedule *s,
                             const ir_target *t, cg_kernel *out) {
  cg_conv_workload w;
  VKML_RETURN_IF_ERROR(cg_conv_workload_from_node(n, &w));
  return cg_conv_instantiate(&w, st, s, t, out);
}

vkml_status cg_node_conv2d(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  return node_conv(n, st, s, t, out);
}

vkml_status cg_node_conv_transpose2d(const ir_node *n, const cg_template *st,
                                     const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  return node_conv(n, st, s, t, out);
}

uint32_t cg_conv2d_weight_layouts(const ir_node *n, const ir_target *t) {
  if (!n || n->op != IR_OP_CONV2D || n->n_inputs < 2 || n->n_inputs > 3 || n->n_outputs != 1)
    return 0;
  const ir_value *w = n->inputs[1];
  if (!w || w->type.rank != 4 || w->type.bounded || w->type.dims[2] * w->type.dims[3] < 2)
    return 0;
  /* the node as it would run with w tap-major: taken where the default
   * kernel on t is a cooperative-matrix one that reads it so */
  ir_value vi[3], *pi[3];
  for (int i = 0; i < n->n_inputs; i++) {
    vi[i] = *n->inputs[i];
    pi[i] = &vi[i];
  }
  vi[1].layout = IR_LAYOUT_NHWC;
  ir_node sn = *n;
  sn.inputs = pi;
  cg_kernel k;
  vkml_status s = node_conv(&sn, NULL, NULL, t, &k);
  bool ok = !s && (k.tmpl == &cg_conv2d_coopmat_template ||
                   k.tmpl == &cg_conv2d_coopmat_sliced_k_template);
  vkml_status_free(s);
  /* and a step's BK channels all real: a tap-major step spans one tap, so
   * channels past C/G in its block are zeros multiplied (on the H200,
   * ResNet's 7x7 conv of 3 channels ran 3.5x slower so, and a 3x3 stride-2
   * conv of 32 channels per group with BK 64 1.8x) */
  int bk = ok ? cg_knob_index(k.tmpl, "BK") : -1;
  int64_t cpg = w->type.dims[1];
  ok = ok && bk >= 0 && k.schedule.v[bk] > 0 && cpg % k.schedule.v[bk] == 0;
  return ok ? 1u << 1 : 0;
}
