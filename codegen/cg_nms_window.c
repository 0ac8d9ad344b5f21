/* NMS over one bounded row on glsl/nms_window.comp: the stages nms_keys,
 * nms_prep, nms_round, nms_settle and nms_finish that passes/pass_split_nms.c makes of
 * a non_max_suppression whose boxes [1,<=N,4] and scores [1,1,<=N] hold a
 * run-time count of candidates (the shader's header has the algorithm). */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_ops.h"
#include "codegen/cg_reduce.h"
#include "codegen/cg_sort.h"
#include "ir/infer.h"
#include "ir/params.h"

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

bool cg_nms_is_window(const ir_node *n) {
  return n->op == IR_OP_NON_MAX_SUPPRESSION &&
         ir_nms_is_one_row(&n->inputs[0]->type, &n->inputs[1]->type);
}

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
  if (stage == FINISH) {
    const ir_type *y = &n->outputs[0]->type;
    per = y->dims[0];
    VKML_RETURN_IF_ERROR(cg_kernel_define(
        out, "EXTENT_AT", "%lldu",
        (long long)(ir_type_extent_offset(y, IR_LAYOUT_DEFAULT) / 8)));
  } else {
    VKML_RETURN_IF_ERROR(cg_kernel_define(out, "EXTENT_AT", "0u"));
  }
  uint32_t mm = 1;
  int32_t me = 0;
  bool tie_up = false;
  float iou = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f);
  cg_nms_iou_midpoint(iou, &mm, &me, &tie_up);
  const ir_attr *sa = ir_node_attr(n, IR_A_SCORE_THRESHOLD);
  float sth = sa ? sa->u.f : 0.0f;
  uint32_t sth_bits;
  memcpy(&sth_bits, &sth, sizeof sth_bits);
  /* the state input: prep's third row, or a round's output */
  uint32_t state_at = 0;
  if (stage >= ROUND && n->inputs[0]->type.rank == 2) state_at = (uint32_t)(2 * (cap + 1));
  uint32_t spec[12] = {(uint32_t)cap,
                       ir_node_int(n, IR_A_CENTER_POINT_BOX, 0) != 0,
                       mm,
                       (uint32_t)me,
                       tie_up,
                       sa != NULL,
                       sth_bits,
                       1,
                       (uint32_t)(ir_type_extent_offset(sc, IR_LAYOUT_DEFAULT) / 4),
                       (uint32_t)(ir_type_extent_offset(bt, IR_LAYOUT_DEFAULT) / 4),
                       (uint32_t)per,
                       state_at};
  for (uint32_t i = 0; i < 12; i++)
    if (i != 7) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, i, spec[i]));
  /* settle: workgroups striding over the segments; round over the count */
  int64_t groups = stage == PREP || stage == FINISH ? 1
                 : stage == SETTLE ? (cap < 1024 ? cap : 1024)
                 : (cap + s->v[0] - 1) / s->v[0];
  if (stage == ROUND && groups > 2048) groups = 2048;
  if (groups < 1) groups = 1;
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, groups, 7, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + n->n_outputs + (stage == KEYS);
  out->error_slot = stage == KEYS;
  out->copy_input0 = stage == SETTLE;
  char attrs[192];
  snprintf(attrs, sizeof attrs,
           "{center_point_box=%d,iou_threshold=%.9g,score_threshold=%s%.9g,max=%lld}",
           (int)spec[1], (double)iou, sa ? "" : "none:", (double)sth, (long long)per);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
