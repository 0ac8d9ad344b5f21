/* pass_winograd: a 3x3, stride-1, dilation-1, one-group conv2d on constant
 * f32 weights becomes conv2d_winograd (docs/ops.md) on U = G w G^T,
 * computed here once in double (ir/winograd.h) and stored as a new constant
 * [a^2, C, K]; the conv's pads, bias and fused activation carry over, the
 * old weights are left to dce. Runs after fuse_activation (so the
 * activation is the conv's) and before fp16 (which converts U as it
 * converts weights).
 *
 * Which convs: opts->winograd. F2 / F4 take every conv they can; OFF none;
 * AUTO (the default) the rule below, on a GPU target only. */
#include <stdlib.h>
#include <string.h>

#include "ir/params.h"
#include "ir/winograd.h"
#include "passes/pass.h"

/* Whether n is a conv2d the Winograd form computes. */
static bool takes(const ir_graph *g, const ir_node *n) {
  (void)g;
  if (n->op != IR_OP_CONV2D || n->n_inputs < 2) return false;
  const ir_value *x = n->inputs[0], *w = n->inputs[1];
  if (x->type.dtype != IR_F32 || w->type.dtype != IR_F32 || !ir_value_is_const(w) ||
      x->type.rank != 4 || w->type.rank != 4 || x->type.bounded || w->type.dims[2] != 3 ||
      w->type.dims[3] != 3)
    return false;
  if (n->n_inputs > 2 && n->inputs[2]->type.dtype != IR_F32) return false;
  ir_conv_params p;
  vkml_status s = ir_conv_params_get(n, &w->type, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  return p.group == 1 && p.strides[0] == 1 && p.strides[1] == 1 && p.dilations[0] == 1 &&
         p.dilations[1] == 1 && w->type.dims[1] == x->type.dims[1];
}

static vkml_status rewrite(ir_graph *g, ir_node *n, int m) {
  const ir_value *w = n->inputs[1];
  int64_t k = w->type.dims[0], c = w->type.dims[1], a = m + 2;
  double *wd = NULL;
  VKML_RETURN_IF_ERROR(pass_const_read_f64(g, w, &wd));
  int64_t nw = k * c * 9;
  float *wf = malloc(sizeof *wf * (size_t)(nw + 1));
  float *u = malloc(sizeof *u * (size_t)(a * a * c * k + 1));
  vkml_status s = VKML_OK;
  if (!wf || !u) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  ir_value *uv = NULL;
  if (!s) {
    for (int64_t i = 0; i < nw; i++) wf[i] = (float)wd[i];
    ir_winograd_weights(m, wf, k, c, u);
    int64_t dims[3] = {a * a, c, k};
    ir_type ut = ir_type_make(IR_F32, 3, dims);
    s = pass_const_create(g, w->name, m == 4 ? ".wino4" : ".wino2", &ut, u, &uv);
  }
  free(wd);
  free(wf);
  free(u);
  VKML_RETURN_IF_ERROR(s);
  n->op = IR_OP_CONV2D_WINOGRAD;
  n->inputs[1] = uv;
  ir_node_remove_attr(n, IR_A_STRIDES);
  ir_node_remove_attr(n, IR_A_DILATIONS);
  ir_node_remove_attr(n, IR_A_GROUP);
  return ir_node_set_int(g, n, IR_A_OUT_TILE, m);
}

/* The default rule: the tile for n, 0 for the direct conv. Measured on the
 * H100 (bench/results/2026-11-27-winograd.md, VGG-16's and ResNet-50's 3x3
 * convs in fp32, each against the direct default): Winograd paid only
 * where a conv does at least 2^25 multiply-adds per tap (C x K x OH x OW:
 * VGG-16 from 128@112 on, 1.12-1.6x) and lost where it does fewer
 * (ResNet-50's 128@28 0.91x, 256@14 0.65x; its 64@56 gained 1.5x, left out
 * by this rule); F(4x4) beat F(2x2) at 28x28 only (512@28: 1.42-1.54x
 * against 1.12-1.14x), and lost to it at 14x14 (0.63x) and 56x56. */
/* ... and only at 14x14 outputs per image or more, and fewer than 224x224
 * over the batch (bench/results/2026-11-29-video-split.md, H200, the video
 * classifiers' 3-D convs as lowered, depths as the batch, with and without
 * the rule): F(2x2) lost at 7x7 (r3d_18's 3x3x3 512@2x7x7, 1536 channels:
 * 0.41 against 0.26 ms direct) and over 16 x 56x56 (mc3_18's and r3d_18's
 * first 3x3x3 convs: 0.52 against 0.48 ms), as on VGG-16's 64@224 above;
 * it won at 28x28 x 8 and 14x14 x 4 (r3d_18: 0.33 against 0.37, 0.23
 * against 0.35). */
#define WINO_MIN_PIXELS 196
#define WINO_MAX_OUTPUT_PIXELS (224 * 224)

static int auto_tile(const ir_node *n, const pass_opts *o) {
  if (!o || !o->target || o->target->type == IR_TARGET_CPU || o->precision != IR_PRECISION_FP32)
    return 0;
  const ir_type *x = &n->inputs[0]->type, *y = &n->outputs[0]->type;
  double work = (double)x->dims[1] * (double)y->dims[1] * (double)y->dims[2] * (double)y->dims[3];
  if (work < (double)(1 << 25)) return 0;
  int64_t pixels = y->dims[2] * y->dims[3];
  if (pixels < WINO_MIN_PIXELS || y->dims[0] * pixels >= WINO_MAX_OUTPUT_PIXELS) return 0;
  return pixels > 400 && pixels <= 1024 ? 4 : 2;
}

bool pass_winograd_mode_parse(const char *s, pass_winograd_mode *out) {
  static const char *const names[] = {"auto", "off", "f2", "f4"};
  for (int k = 0; k < 4; k++)
    if (!strcmp(s, names[k])) {
      *out = (pass_winograd_mode)k;
      return true;
    }
  return false;
}

vkml_status pass_winograd(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  pass_winograd_mode mode = opts ? opts->winograd : PASS_WINOGRAD_AUTO;
  if (mode == PASS_WINOGRAD_OFF) return VKML_OK;
  ir_foreach_node(g, n) {
    if (!takes(g, n)) continue;
    int m = mode == PASS_WINOGRAD_F4   ? 4
            : mode == PASS_WINOGRAD_F2 ? 2
                                       : auto_tile(n, opts);
    if (!m) continue;
    VKML_RETURN_IF_ERROR(rewrite(g, n, m));
    if (changed) *changed = true;
  }
  return VKML_OK;
}
