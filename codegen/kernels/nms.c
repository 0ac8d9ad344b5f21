#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/infer.h"
#include "ir/params.h"
const cg_template cg_nms_template = {
    .name = "nms",
    .glsl = "nms.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 3, {64, 128, 256}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

/* The midpoint m = mm * 2^me between the threshold t and the next float,
 * and whether a quotient equal to m rounds up (t's last mantissa bit is
 * odd: ties go to even). */
static void iou_midpoint(float t, uint32_t *mm, int32_t *me, bool *tie_up) {
  if (t == 0.0f) { /* the next float is 2^-149 */
    *mm = 1, *me = -150, *tie_up = false;
    return;
  }
  int e;
  double f = frexp((double)t, &e); /* t = f * 2^e, f in [0.5, 1) */
  uint32_t mant = (uint32_t)ldexp(f, 24);
  *mm = 2 * mant + 1;
  *me = e - 25;
  *tie_up = mant & 1;
}

static vkml_status nms_stage(const ir_node *n, int stage, const cg_template *st,
                             const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_nms_template));
  VKML_RETURN_IF_ERROR(cg_check_stage_operands(n));
  const ir_type *sel = stage ? &n->inputs[0]->type : &n->outputs[0]->type;
  bool f16 = false;
  if (!stage) {
    ir_dtype d = n->inputs[0]->type.dtype;
    if (d != IR_F32 && d != IR_F16)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "nms_select: %s boxes stay on the CPU",
                              ir_dtype_name(d));
    f16 = d == IR_F16;
    if (f16 && !t->storage_16bit)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "nms_select: f16 needs 16-bit storage, which %s lacks", t->name);
  }
  int64_t b = sel->dims[0], c = sel->dims[1], m = sel->dims[2];
  int64_t nb = stage ? 1 : n->inputs[0]->type.dims[1];
  if (!s) s = &cg_nms_template.dflt;
  /* the kept boxes in shared memory: up to what leaves room for the rest */
  int64_t kept = m < 1 ? 1 : m;
  uint64_t fixed = 64 * (16 + 4 + 3 + 8) + 64;
  if (kept > 1024) kept = 1024;
  while (kept > 1 && fixed + (uint64_t)kept * 16 > t->max_shared_bytes) kept /= 2;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_nms_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "STAGE", "%d", stage));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", f16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "KEPT_SHARED", "%lld", (long long)kept));
  uint32_t mm = 1;
  int32_t me = 0;
  bool tie_up = false;
  float iou = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f);
  iou_midpoint(iou, &mm, &me, &tie_up);
  const ir_attr *sa = ir_node_attr(n, IR_A_SCORE_THRESHOLD);
  float sth = sa ? sa->u.f : 0.0f;
  uint32_t sth_bits;
  memcpy(&sth_bits, &sth, sizeof sth_bits);
  const cg_spec_value specs[] = {
      {CG_SPEC_NMS_B, (uint32_t)b},
      {CG_SPEC_NMS_C, (uint32_t)c},
      {CG_SPEC_NMS_NB, (uint32_t)nb},
      {CG_SPEC_NMS_M, (uint32_t)m},
      {CG_SPEC_NMS_CENTER, ir_node_int(n, IR_A_CENTER_POINT_BOX, 0) != 0},
      {CG_SPEC_NMS_MM, mm},
      {CG_SPEC_NMS_ME, (uint32_t)me},
      {CG_SPEC_NMS_TIE_UP, tie_up},
      {CG_SPEC_NMS_HAS_ST, sa != NULL},
      {CG_SPEC_NMS_STH, sth_bits},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, b * c, CG_SPEC_NMS_GX, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + 1;
  char attrs[160];
  snprintf(attrs, sizeof attrs,
           "{center_point_box=%d,iou_threshold=%.9g,score_threshold=%s%.9g}", (int)specs[4].value,
           (double)iou, sa ? "" : "none:", (double)sth);
  cg_node_key(n, stage ? "" : attrs, out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_nms_select(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return nms_stage(n, 0, st, s, t, out);
}

vkml_status cg_node_nms_compact(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                const ir_target *t, cg_kernel *out) {
  return nms_stage(n, 1, st, s, t, out);
}

/* ---- non_max_suppression over one bounded row (glsl/nms_window.comp) ---- */

const cg_template cg_nms_window_template = {
    .name = "nms_window",
    .glsl = "nms_window.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 5, {64, 128, 256, 512, 1024}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

enum { KEYS, PREP, ROUND, FINISH, SETTLE }; /* nms_window.comp's STAGE */

/* The stage's boxes and scores (after the state, for round, settle and
 * finish). */
static void operands(const ir_node *n, int stage, const ir_value **boxes,
                     const ir_value **scores) {
  int at = stage >= ROUND ? 1 : 0; /* after the state */
  *boxes = n->inputs[at];
  *scores = n->inputs[at + 1];
}

vkml_status cg_node_nms_window(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_nms_window_template));
  int stage = n->op == IR_OP_NMS_KEYS ? KEYS : n->op == IR_OP_NMS_PREP ? PREP
            : n->op == IR_OP_NMS_ROUND ? ROUND : n->op == IR_OP_NMS_SETTLE ? SETTLE : FINISH;
  const ir_value *boxes, *scores;
  operands(n, stage, &boxes, &scores);
  const ir_type *bt = &boxes->type, *sc = &scores->type;
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: packed layouts stay on the CPU",
                              ir_op_name(n->op));
  }
  if (!ir_nms_is_one_row(bt, sc))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: needs boxes [1,<=N,4] and scores [1,1,<=N]", ir_op_name(n->op));
  int64_t cap = bt->dims[1];
  if (cap >= (INT64_C(1) << 31) / 4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: too many boxes for 32-bit indices",
                            ir_op_name(n->op));
  bool f16 = bt->dtype == IR_F16;
  if ((bt->dtype != IR_F32 && !f16) || sc->dtype != bt->dtype)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s boxes stay on the CPU",
                            ir_op_name(n->op), ir_dtype_name(bt->dtype));
  if (f16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: f16 needs 16-bit storage, which %s lacks", ir_op_name(n->op),
                            t->name);
  /* prep and finish are one workgroup, settle one per segment: the widest
   * the device runs, unless a schedule says otherwise */
  cg_schedule wide;
  if (!s && (stage == PREP || stage == FINISH || stage == SETTLE)) {
    cg_schedule_widest(&cg_nms_window_template, t, &wide);
    s = &wide;
  }
  if (!s) s = &cg_nms_window_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_nms_window_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "STAGE", "%d", stage));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", f16));
  int64_t per = 0;
  if (stage == FINISH) per = n->outputs[0]->type.dims[0];
  uint32_t mm = 1;
  int32_t me = 0;
  bool tie_up = false;
  float iou = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f);
  iou_midpoint(iou, &mm, &me, &tie_up);
  const ir_attr *sa = ir_node_attr(n, IR_A_SCORE_THRESHOLD);
  float sth = sa ? sa->u.f : 0.0f;
  uint32_t sth_bits;
  memcpy(&sth_bits, &sth, sizeof sth_bits);
  /* the state input: prep's third row, or a round's output */
  uint32_t state_at = 0;
  if (stage >= ROUND && n->inputs[0]->type.rank == 2) state_at = (uint32_t)(2 * (cap + 1));
  bool center = ir_node_int(n, IR_A_CENTER_POINT_BOX, 0) != 0;
  const cg_spec_value specs[] = {
      {CG_SPEC_NMS_WINDOW_N, (uint32_t)cap},   {CG_SPEC_NMS_WINDOW_CENTER, center},
      {CG_SPEC_NMS_WINDOW_MM, mm},             {CG_SPEC_NMS_WINDOW_ME, (uint32_t)me},
      {CG_SPEC_NMS_WINDOW_TIE_UP, tie_up},     {CG_SPEC_NMS_WINDOW_HAS_ST, sa != NULL},
      {CG_SPEC_NMS_WINDOW_STH, sth_bits},      {CG_SPEC_NMS_WINDOW_M, (uint32_t)per},
      {CG_SPEC_NMS_WINDOW_STATE_AT, state_at},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  /* settle: workgroups striding over the segments; round over the count */
  int64_t groups = stage == PREP || stage == FINISH ? 1
                 : stage == SETTLE ? (cap < 1024 ? cap : 1024)
                 : (cap + s->v[0] - 1) / s->v[0];
  if (stage == ROUND && groups > 2048) groups = 2048;
  if (groups < 1) groups = 1;
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, groups, CG_SPEC_NMS_WINDOW_GX, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + n->n_outputs + (stage == KEYS);
  out->error_slot = stage == KEYS;
  out->copy_input0 = stage == SETTLE;
  char attrs[192];
  snprintf(attrs, sizeof attrs,
           "{center_point_box=%d,iou_threshold=%.9g,score_threshold=%s%.9g,max=%lld}",
           (int)center, (double)iou, sa ? "" : "none:", (double)sth, (long long)per);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
