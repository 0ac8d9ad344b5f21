/* conv2d_winograd on glsl/conv2d_winograd.comp: its space, default and
 * instantiation. The op computes a 3x3, stride-1 conv2d by Winograd's
 * F(m x m, 3 x 3) on weights pass_winograd transformed (ir/winograd.h). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

enum { W_TK = 0, W_TT, W_RK, W_RT, W_CB };

/* TK x TT threads per transform position (a^2 = 16 or 36 of them), each
 * with RK x RT outputs; CB input channels a step. The constraints assume
 * m = 4 (36 positions, the larger): workgroup size and each shared tile
 * (fp32) within the device's limits; instantiation checks the exact sizes
 * and splits the epilogue until it fits. */
const cg_template cg_conv2d_winograd_template = {
    .name = "conv2d_winograd",
    .glsl = "conv2d_winograd.comp",
    .n_knobs = 5,
    .knobs = {{"TK", 4, {1, 2, 4, 8}},
              {"TT", 4, {1, 2, 4, 8}},
              {"RK", 4, {1, 2, 4, 8}},
              {"RT", 3, {1, 2, 4}},
              {"CB", 4, {2, 4, 8, 16}}},
    .n_constraints = 4,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 3u, 36},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 3u, 36},
                    {CG_LIMIT_SHARED_BYTES, 2u | 8u | 16u, 144},
                    {CG_LIMIT_SHARED_BYTES, 1u | 4u | 16u, 144}},
    /* valid on a Vulkan 1.1 minimum device; per workload, default_for */
    .dflt = {{1, 2, 4, 4, 2}},
};

/* Per-workload defaults, largest first: the first whose workgroup and
 * shared memory fit the device (exactly, as instantiate checks). */
static const int LADDER[][5] = {
    {4, 4, 4, 4, 8}, {4, 4, 4, 4, 4}, {2, 4, 4, 4, 4}, {2, 2, 4, 4, 4}, {1, 2, 4, 4, 2},
};

static vkml_status unsupported(const char *why) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "conv2d_winograd: %s", why);
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Whether schedule s with tile m fits t: the workgroup, and the shared
 * floats (the step's tiles; then the epilogue in *rounds parts, halving the
 * channels of a part until it fits). */
static vkml_status fits(const cg_schedule *s, int m, const ir_target *t, int64_t *rounds) {
  const int *v = s->v;
  int64_t a2 = (int64_t)(m + 2) * (m + 2);
  int64_t wg = a2 * v[W_TK] * v[W_TT], kb = (int64_t)v[W_TK] * v[W_RK],
          tb = (int64_t)v[W_TT] * v[W_RT];
  if (wg > t->max_workgroup_invocations || wg > t->max_workgroup_size[0])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "conv2d_winograd: %lld invocations exceed the limits of %s",
                            (long long)wg, t->name);
  int64_t main_f = a2 * v[W_CB] * (tb + kb), r = 1;
  while (4 * a2 * (kb / r) * tb > t->max_shared_bytes && r < v[W_TK]) r *= 2;
  int64_t epi_f = a2 * (kb / r) * tb;
  int64_t shared = 4 * (main_f > epi_f ? main_f : epi_f);
  if (shared > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "conv2d_winograd: %lld bytes of shared memory exceed the %u of %s",
                            (long long)shared, t->max_shared_bytes, t->name);
  *rounds = r;
  return VKML_OK;
}

vkml_status cg_node_conv2d_winograd(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                    const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  const cg_template *tp = &cg_conv2d_winograd_template;
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, tp));
  if (n->n_inputs < 2 || n->n_inputs > 3 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "conv2d_winograd: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  VKML_RETURN_IF_ERROR(cg_check_default_layout(n, "conv2d_winograd"));
  const ir_type *x = &n->inputs[0]->type, *u = &n->inputs[1]->type, *y = &n->outputs[0]->type;
  for (int i = 0; i < n->n_inputs; i++)
    VKML_RETURN_IF_ERROR(cg_elt_check_type("conv2d_winograd", &n->inputs[i]->type, t));
  VKML_RETURN_IF_ERROR(cg_elt_check_type("conv2d_winograd", y, t));
  if ((x->dtype != IR_F32 && x->dtype != IR_F16) || x->bounded || x->rank != 4 ||
      u->rank != 3 || y->rank != 4)
    return unsupported("the GPU kernel takes f32 or f16 x [N,C,H,W] of static sizes");
  cg_conv_workload w = {.op = IR_OP_CONV2D};
  int m;
  VKML_RETURN_IF_ERROR(ir_winograd_params_get(n, &w.p, &m));
  w.x = *x, w.y = *y, w.has_bias = n->n_inputs > 2;
  w.n = x->dims[0], w.c = x->dims[1], w.h = x->dims[2], w.wd = x->dims[3];
  w.m = y->dims[1], w.oh = y->dims[2], w.ow = y->dims[3];
  cg_schedule chosen = tp->dflt;
  if (!s) {
    for (size_t i = 0; i < sizeof LADDER / sizeof LADDER[0]; i++) {
      cg_schedule c = {{0}};
      memcpy(c.v, LADDER[i], sizeof LADDER[i]);
      int64_t r;
      vkml_status no = fits(&c, m, t, &r);
      if (!no) {
        chosen = c;
        break;
      }
      vkml_status_free(no);
    }
    s = &chosen;
  }
  const int *v = s->v;
  int64_t kb = (int64_t)v[W_TK] * v[W_RK], tb = (int64_t)v[W_TT] * v[W_RT], rounds;
  VKML_RETURN_IF_ERROR(fits(s, m, t, &rounds));
  int64_t tiles = w.n * ceil_div(w.oh, m) * ceil_div(w.ow, m);
  int64_t gx = ceil_div(tiles, tb), gy = ceil_div(w.m, kb);
  if (gx > t->max_workgroup_count[0] || gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "conv2d_winograd: %lldx%lld workgroups exceed the grid of %s",
                            (long long)gx, (long long)gy, t->name);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, tp, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MT", "%d", m));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "HAS_BIAS", "%d", w.has_bias));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "ACT", "%d", (int)w.p.act.kind));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "ROUNDS", "%d", (int)rounds));
  VKML_RETURN_IF_ERROR(cg_conv_specs(out, &w));
  out->groups[0] = (uint32_t)gx;
  out->groups[1] = (uint32_t)gy;
  out->groups[2] = 1;
  out->n_buffers = w.has_bias ? 4 : 3;
  char attrs[192];
  int len = snprintf(attrs, sizeof attrs, "{pads=[%lld,%lld,%lld,%lld],out_tile=%d",
                     (long long)w.p.pads[0], (long long)w.p.pads[1], (long long)w.p.pads[2],
                     (long long)w.p.pads[3], m);
  /* every activation parameter, used or not: distinct workloads never share a key */
  if (w.p.act.kind != IR_ACT_NONE)
    len += snprintf(attrs + len, sizeof attrs - (size_t)len, ",act=%s,act_alpha=%.9g,act_beta=%.9g",
                    ir_enum_value_name(IR_ENUM_ACT, w.p.act.kind), (double)w.p.act.alpha,
                    (double)w.p.act.beta);
  snprintf(attrs + len, sizeof attrs - (size_t)len, "}");
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
