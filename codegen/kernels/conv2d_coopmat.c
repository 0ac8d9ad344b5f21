/* conv2d on cooperative matrices (glsl/conv2d_coopmat.comp, see codegen/core/conv.h):
 * its space, the per-workload default, the staging-load choice and
 * instantiation. Kept apart from codegen/kernels/conv2d.c, whose scalar templates share
 * nothing with it but the workload and the specialization constants. */
#include <string.h>

#include "codegen/core/core.h"

enum { C_WM = 0, C_WN, C_TM, C_TN, C_BK, C_ACC, C_SLK };

/* The space of gemm_coopmat (CG_COOPMAT_SPACE, codegen/kernels/gemm.h). */
const cg_template cg_conv2d_coopmat_template = {
    .name = "conv2d_coopmat",
    .glsl = "conv2d_coopmat.comp",
    CG_COOPMAT_SPACE,
};

/* The same with SLK slices of the workgroup splitting k (see the shader):
 * SLK times the invocations, the staged tiles and the epilogue tiles. The
 * constraints are CG_COOPMAT_SPACE's with SLK in every product; the
 * instantiation checks the exact sizes. Default: conv2d_coopmat's with two
 * slices (sliced_default picks per workload). */
#define SLK_BIT (1u << C_SLK)
const cg_template cg_conv2d_coopmat_sliced_k_template = {
    .name = "conv2d_coopmat_sliced_k",
    .glsl = "conv2d_coopmat.comp",
    .n_knobs = 7,
    .knobs = {{"WM", 3, {1, 2, 4}},
              {"WN", 3, {1, 2, 4}},
              {"TM", 3, {1, 2, 4}},
              {"TN", 3, {1, 2, 4}},
              {"BK", 3, {16, 32, 64}},
              {"ACC", 2, {16, 32}},
              {"SLK", 3, {2, 4, 8}}},
    .n_constraints = 5,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 3u | SLK_BIT, 32},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 3u | SLK_BIT, 32},
                    {CG_LIMIT_SHARED_BYTES, 1u | 4u | 16u | SLK_BIT, 96},
                    {CG_LIMIT_SHARED_BYTES, 2u | 8u | 16u | SLK_BIT, 96},
                    {CG_LIMIT_SHARED_BYTES, 3u | SLK_BIT, 3072}},
    .dflt = {{1, 1, 1, 1, 32, 32, 2}},
};


bool cg_conv_coopmat_suits(const ir_target *t) {
  return !cg_coopmat_lacks(t) && cg_coopmat_shape(t, cg_conv2d_coopmat_template.dflt.v[C_ACC]) >= 0;
}

static vkml_status unsupported(const char *why) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "conv2d_coopmat: %s", why);
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Workgroups below which the default takes the next, smaller tile (about
 * two per compute unit of a large GPU). */
#define COOP_MIN_TILES 256
/* Tiles of 128x64 (512 invocations: skipped where the target has fewer),
 * 64x64, 64x32, 32x32, 32x16, 16x16 outputs (16x16 matrix tiles); the
 * smallest take deeper K steps, their blocks being few and long. In a
 * sampled sweep on the H200 (fp16, 17 points each) the rung this picks was
 * the best or within 1.1x of it on ResNet-50's 3x3 64@56, 1x1 64->256@56,
 * conv1 7x7/2, 3x3 512@7, and 1.3x off on 3x3 256@56 at batch 8 (a point
 * with fp16 accumulation led there). */
static const int COOP_LADDER[][6] = {
    {4, 4, 2, 1, 64, 32},
    {2, 2, 2, 2, 32, 32},
    {2, 2, 2, 1, 32, 32},
    {2, 2, 1, 1, 32, 32},
    {2, 1, 1, 1, 64, 32},
    {1, 1, 1, 1, 64, 32},
};
/* The first rung's 128x64 tiles for a long k (K >= COOP_LONG_K): 4
 * subgroups of 4x2 matrix tiles each, k in steps of 16. Timed paired with
 * the first rung on the H200 (bench/results/2026-11-27-retina-fp16.md) on
 * RetinaNet's convs of over 2M outputs: 1.41x on the 3x3 256->256 at
 * 100x100, 1.25x on its 3x3 256->819, 1.20x on a 1x1 512->256; 0.90-0.98x
 * on 1x1 convs of K 64 to 256, which keep the first rung. */
static const int COOP_LONG_K_RUNG[6] = {2, 2, 4, 2, 16, 32};
#define COOP_LONG_K 512
/* 64x64 tiles with k in steps of 64 for a group of at least COOP_WIDE_M
 * output channels and a k of at least COOP_LONG_K, taken after the first
 * rung where they give COOP_MIN_TILES / 2 workgroups. Timed paired with the
 * ladder's choice on the H200 (bench/results/2026-11-28-exact-bk.md, call
 * 3): 1.29x on VGG-16's 3x3 256@56 (against 64x32 tiles at BK 32), 1.39x
 * and 1.30x on its split 512@28 and 512@14 (against 64x64 at BK 32), 1.04x
 * on RetinaNet's 256@100 (which keeps the first rung); 0.82x on the 3x3
 * 128@112 (a group of 128 channels) and 0.3-0.4x on ResNet-50's 3x3 convs
 * of 64-256 channels at 56-14 (too few workgroups), which this leaves on
 * the ladder. Fitted on these ten shapes of one device. */
static const int COOP_WIDE_RUNG[6] = {2, 2, 2, 2, 64, 32};
#define COOP_WIDE_M 256

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/* BK 64 only where the steps of SLK slices cover k exactly (k % (SLK * 64)
 * == 0), else BK 32. Measured on the H200 (bench/results/2026-11-28-conv-taps.md,
 * call 10: 1x1 convs at 7x7 of 768, 832 and 1024 channels on 16x16 tiles):
 * every point at BK 64 whose slices' steps ran past k was 3-9x slower
 * than its neighbours (832 -> 32 with 2 slices, 85.9 µs against 14.3 at BK
 * 32; 832 -> 256, split in two groups of 416, 68.9 against 13.3 at BK 32),
 * while BK 32 past k and BK 64 within it were not. */
static void exact_bk(cg_schedule *s, int64_t kdim, int64_t slk) {
  if (s->v[C_BK] == 64 && kdim % (slk * 64) != 0) s->v[C_BK] = 32;
}

/* The default for w: the first rung that gives COOP_MIN_TILES workgroups
 * and passes the target's constraints, else the last valid rung, else the
 * template's default. A rung whose tiles are taller than w's M (rounded up
 * to a matrix tile) is passed over: half its rows would be padding (on the
 * H200, 64-channel convs of 2.5M-10M outputs ran 1.45-2.0x faster on the
 * next rung's 64x64 tiles than on the first's 128x64). */
static void coop_default(const cg_conv_workload *w, const ir_target *t, int ms, int ns,
                         cg_schedule *s) {
  int n = (int)(sizeof COOP_LADDER / sizeof COOP_LADDER[0]);
  cg_schedule best = cg_conv2d_coopmat_template.dflt;
  int64_t kdim = cg_conv_k(w), mg = w->m / w->p.group; /* a group's GEMM */
  bool wide = mg >= COOP_WIDE_M && kdim >= COOP_LONG_K && kdim % 64 == 0;
  /* the ladder, COOP_WIDE_RUNG (index -1) after its first rung when wide */
  for (int i = 0; i < n + 1; i++) {
    int r = i == 0 ? 0 : i == 1 ? -1 : i - 1;
    if (r < 0 && !wide) continue;
    cg_schedule c = {{0}};
    const int *rung = r < 0                         ? COOP_WIDE_RUNG
                      : r == 0 && kdim >= COOP_LONG_K ? COOP_LONG_K_RUNG
                                                      : COOP_LADDER[r];
    for (int k = 0; k < 6; k++) c.v[k] = rung[k];
    exact_bk(&c, kdim, 1);
    if (r >= 0 && r + 1 < n && (int64_t)c.v[C_WM] * c.v[C_TM] * ms > round_up(mg, ms)) continue;
    vkml_status st = cg_schedule_check(&cg_conv2d_coopmat_template, &c, t);
    if (st) {
      vkml_status_free(st);
      continue;
    }
    int64_t bm = (int64_t)c.v[C_WM] * c.v[C_TM] * ms, bn = (int64_t)c.v[C_WN] * c.v[C_TN] * ns;
    int64_t tiles = ceil_div(mg, bm) * ceil_div(w->n * w->oh * w->ow, bn) * w->p.group;
    if (r < 0) {
      if (tiles < COOP_MIN_TILES / 2) continue;
      best = c;
      break;
    }
    best = c;
    if (tiles >= COOP_MIN_TILES) break;
  }
  *s = best;
}

/* The sliced default: conv2d_coopmat's rung (coop_default) with the most
 * slices (up to 8) that pass the constraints and give each slice at least
 * 8 steps of k (at least 2 slices), BK as exact_bk says for them, else the
 * template's default. */
static void sliced_default(const cg_conv_workload *w, const ir_target *t, int ms, int ns,
                           cg_schedule *s) {
  const cg_template *tp = &cg_conv2d_coopmat_sliced_k_template;
  coop_default(w, t, ms, ns, s);
  int64_t k = cg_conv_k(w);
  cg_schedule base = *s;
  for (int slk = 8; slk >= 2; slk /= 2) {
    *s = base;
    s->v[C_SLK] = slk;
    if (slk > 2 && k < (int64_t)slk * s->v[C_BK] * 8) continue;
    exact_bk(s, k, slk);
    vkml_status st = cg_schedule_check(tp, s, t);
    if (!st) return;
    vkml_status_free(st);
  }
  *s = tp->dflt;
}

static bool is_1x1_dense(const cg_conv_workload *w) {
  const ir_conv_params *p = &w->p;
  return p->kernel[0] == 1 && p->kernel[1] == 1 && p->strides[0] == 1 && p->strides[1] == 1 &&
         !p->pads[0] && !p->pads[1] && !p->pads[2] && !p->pads[3];
}

/* The widest of 8, 4, 2 halves dividing n, else 1. */
static int vec_of(int64_t n) {
  return n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
}

vkml_status cg_conv_coopmat_instantiate(const cg_conv_workload *w, const cg_template *tmpl,
                                        const cg_schedule *s, const ir_target *t,
                                        cg_kernel *k) {
  memset(k, 0, sizeof *k);
  bool sliced = tmpl == &cg_conv2d_coopmat_sliced_k_template;
  if (!sliced) tmpl = &cg_conv2d_coopmat_template;
  if (w->op != IR_OP_CONV2D) return unsupported("runs conv2d only");
  if (w->p.group < 1 || w->m % w->p.group || w->c % w->p.group)
    return unsupported("groups must divide the input and output channels");
  if (w->y.dtype != IR_F16) return unsupported("cooperative matrices take f16 only");
  const char *lacks = cg_coopmat_lacks(t);
  if (lacks) return unsupported(lacks);
  int si = cg_coopmat_shape(t, 32);
  cg_schedule sched;
  if (s) sched = *s;
  else if (si >= 0 && sliced)
    sliced_default(w, t, (int)t->coopmat_shapes[si].m, (int)t->coopmat_shapes[si].n, &sched);
  else if (si >= 0)
    coop_default(w, t, (int)t->coopmat_shapes[si].m, (int)t->coopmat_shapes[si].n, &sched);
  else sched = tmpl->dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tmpl, &sched, t));
  VKML_RETURN_IF_ERROR(cg_coopmat_kernel_api(k, t));
  const char *name = tmpl->name;
  int64_t slk = sliced ? sched.v[C_SLK] : 1;
  int acc = sched.v[C_ACC];
  si = cg_coopmat_shape(t, acc);
  if (si < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %s lists no f16 x f16 -> f%d cooperative-matrix shape", name,
                            t->name, acc);
  const ir_coopmat_shape *cs = &t->coopmat_shapes[si];
  int ms = (int)cs->m, ns = (int)cs->n, ks = (int)cs->k, sg = (int)t->subgroup_size;
  int64_t bm = (int64_t)sched.v[C_WM] * sched.v[C_TM] * ms;
  int64_t bn = (int64_t)sched.v[C_WN] * sched.v[C_TN] * ns, bk = sched.v[C_BK];
  int64_t wg = (int64_t)sched.v[C_WM] * sched.v[C_WN] * sg * slk;
  if (wg > t->max_workgroup_invocations || wg > t->max_workgroup_size[0])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld invocations (subgroups of %d) exceed the limits of %s",
                            name, (long long)wg, sg, t->name);
  const ir_conv_params *p = &w->p;
  /* x / y nhwc (pass_layout's --layout nhwc): B's vectors run along a tap's
   * input channels, so k must run tap-major (w nhwc, or a 1x1 kernel, whose
   * default layout is tap-major) in vectors of 8 within a group */
  bool x_nhwc = w->x_layout == IR_LAYOUT_NHWC, y_nhwc = w->y_layout == IR_LAYOUT_NHWC;
  if ((x_nhwc || y_nhwc) &&
      (w->x_layout == IR_LAYOUT_NC4HW4 || w->y_layout == IR_LAYOUT_NC4HW4))
    return unsupported("x and y nhwc and nc4hw4 mixed");
  if (x_nhwc && ((w->c / p->group) % 8 ||
                 (w->w_layout != IR_LAYOUT_NHWC && p->kernel[0] * p->kernel[1] > 1)))
    return unsupported("x in nhwc needs a group's input channels in multiples of 8 and w "
                       "tap-major (nhwc)");
  /* shared, per slice: As [BM][BK+pad], Bs [BK][BN+pad] (x nhwc: [BN][BK+pad])
   * (f16), the epilogue tiles (fp32) */
  int64_t epi = 4 * slk * sched.v[C_WM] * sched.v[C_WN] * ms * ns;
  int pad = 8;
  int64_t b_pad = x_nhwc ? bn * pad : bk * pad;
  int64_t shared = 2 * slk * (bm * (bk + pad) + bk * bn + b_pad) + epi;
  if (shared > t->max_shared_bytes) {
    pad = 0;
    shared = 2 * slk * (bm * bk + bk * bn) + epi;
  }
  if (shared > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld bytes of shared memory exceed the %u of %s", name,
                            (long long)shared, t->max_shared_bytes, t->name);
  int64_t kdim = cg_conv_k(w);
  /* w stored tap-major (nhwc, pass_layout): k runs tap-major too, and A's
   * vectors run along a tap's channels (W_TAPS); else along k */
  bool w_taps = (w->w_layout == IR_LAYOUT_NHWC && p->kernel[0] * p->kernel[1] > 1) || x_nhwc;
  int a_vec = w_taps ? vec_of(w->c / p->group) : vec_of(kdim);
  /* vectors along pixels: the rows of a 1x1 conv's B, default layout only;
   * H*W % B_VEC == 0 keeps every vector inside one image */
  int b_vec = x_nhwc                                                ? 8
              : is_1x1_dense(w) && w->x_layout == IR_LAYOUT_DEFAULT ? vec_of(w->h * w->wd)
                                                                    : 1;
  int packed = (w->x_layout == IR_LAYOUT_NC4HW4 ? 1 : 0) | (w->y_layout == IR_LAYOUT_NC4HW4 ? 2 : 0);
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SG", "%d", sg));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "MS", "%d", ms));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "NS", "%d", ns));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "KS", "%d", ks));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "HAS_BIAS", "%d", w->has_bias));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ACT", "%d", (int)p->act.kind));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_VEC", "%d", a_vec));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_VEC", "%d", b_vec));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PAD", "%d", pad));
  /* only then defined, so that default-layout kernels keep their source key */
  if (packed) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACKED", "%d", packed));
  if (w_taps) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "W_TAPS", "1"));
  if (x_nhwc) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "X_NHWC", "1"));
  if (y_nhwc) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "Y_NHWC", "1"));
  VKML_RETURN_IF_ERROR(cg_conv_specs(k, w));
  cg_conv_workload_key(w, k->key, sizeof k->key);
  k->n_buffers = w->has_bias ? 4 : 3;
  k->push_bytes = 0;
  int64_t gx = ceil_div(w->n * w->oh * w->ow, bn), gy = ceil_div(w->m / w->p.group, bm),
          gz = w->p.group;
  if (gx > t->max_workgroup_count[0] || gy > t->max_workgroup_count[1] ||
      gz > t->max_workgroup_count[2])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lldx%lldx%lld workgroups exceed the grid of %s (%u x %u x %u)",
                            name, (long long)gx, (long long)gy, (long long)gz, t->name,
                            t->max_workgroup_count[0], t->max_workgroup_count[1],
                            t->max_workgroup_count[2]);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = (uint32_t)gz; /* the groups */
  return VKML_OK;
}
