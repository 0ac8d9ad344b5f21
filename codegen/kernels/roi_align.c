/* roi_align on glsl/roi_align.comp. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/bounds.h"
#include "ir/params.h"

const cg_template cg_roi_align_template = {
    .name = "roi_align",
    .glsl = "roi_align.comp",
    CG_ELEMENTWISE_SPACE,
};

/* ---- roi_align ----------------------------------------------------------------- */

vkml_status cg_node_roi_align(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_roi_align_template));
  if (n->n_inputs != 3 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "roi_align: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_type *x = &n->inputs[0]->type, *rois = &n->inputs[1]->type;
  const ir_type *bi = &n->inputs[2]->type, *y = &n->outputs[0]->type;
  /* bounded: rois, batch indices and the output along R, the same
   * capacity; the kernel reads both counts and checks they agree */
  bool bounded = rois->bounded;
  for (int i = 0; i < 4; i++) {
    const ir_value *v = i < 3 ? n->inputs[i] : n->outputs[0];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "roi_align: packed layouts stay on the CPU");
    if (v->type.bounded != (bounded && i > 0) || (v->type.bounded && v->type.bounded_axis != 0))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "roi_align: the GPU kernel takes a run-time count of rois only "
                              "with rois, batch indices and output all bounded along R");
  }
  if (x->dtype != IR_F32 && x->dtype != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: %s is not f32 or f16 on the GPU",
                            ir_dtype_name(x->dtype));
  if (x->dtype == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "roi_align: f16 needs 16-bit storage, which %s lacks", t->name);
  if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != 4 || rois->dtype != x->dtype ||
      bi->rank != 1 || bi->dims[0] != rois->dims[0] || (bi->dtype != IR_I64 && bi->dtype != IR_I32) ||
      y->dtype != x->dtype || y->rank != 4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "roi_align: the GPU kernel takes x [N,C,H,W], rois [R,4] of x's "
                            "dtype and i64 or i32 batch indices [R]");
  /* the reference refuses an empty feature map when there is work */
  if (x->dims[2] == 0 || x->dims[3] == 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: empty feature map");
  int64_t oh = ir_node_int(n, IR_A_OUTPUT_HEIGHT, 1), ow = ir_node_int(n, IR_A_OUTPUT_WIDTH, 1);
  int64_t total = ir_type_numel(y);
  if (oh < 1 || ow < 1 || y->dims[0] != rois->dims[0] || y->dims[1] != x->dims[1] ||
      y->dims[2] != oh || y->dims[3] != ow)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "roi_align: output shape does not match");
  if (ir_type_numel(x) >= (INT64_C(1) << 31) || total >= (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: 2^31 elements or more");
  int64_t coord = ir_node_int(n, IR_A_COORD_MODE, IR_COORD_HALF_PIXEL);
  if (coord != IR_COORD_HALF_PIXEL && coord != IR_COORD_OUTPUT_HALF_PIXEL)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: coordinate mode");
  int64_t ratio = ir_node_int(n, IR_A_SAMPLING_RATIO, 0);
  float scale = ir_node_float(n, IR_A_SPATIAL_SCALE, 1.0f);
  uint32_t scale_bits;
  memcpy(&scale_bits, &scale, sizeof scale_bits);
  bool max_mode = ir_node_int(n, IR_A_ROI_MODE, IR_ROI_AVG) == IR_ROI_MAX;

  if (!s) s = &cg_roi_align_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_roi_align_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "BI_I64", "%d", bi->dtype == IR_I64));
  if (bounded) out->extent_from = 2; /* the output's extent is the rois' */
  const cg_spec_value specs[] = {
      {CG_SPEC_ROI_ALIGN_N, (uint32_t)x->dims[0]},
      {CG_SPEC_ROI_ALIGN_C, (uint32_t)x->dims[1]},
      {CG_SPEC_ROI_ALIGN_H, (uint32_t)x->dims[2]},
      {CG_SPEC_ROI_ALIGN_W, (uint32_t)x->dims[3]},
      {CG_SPEC_ROI_ALIGN_R, (uint32_t)rois->dims[0]},
      {CG_SPEC_ROI_ALIGN_OH, (uint32_t)oh},
      {CG_SPEC_ROI_ALIGN_OW, (uint32_t)ow},
      {CG_SPEC_ROI_ALIGN_RATIO, (uint32_t)(ratio < 0 ? 0 : ratio > 65537 ? 65537 : ratio)},
      {CG_SPEC_ROI_ALIGN_MAX_MODE, max_mode},
      {CG_SPEC_ROI_ALIGN_HALF_PIXEL, coord == IR_COORD_HALF_PIXEL},
      {CG_SPEC_ROI_ALIGN_SCALE_BITS, scale_bits},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  int64_t per_group = (int64_t)s->v[0] * s->v[1];
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, (total + per_group - 1) / per_group,
                                    CG_SPEC_ROI_ALIGN_GX, "roi_align"));
  out->n_buffers = 5;
  out->error_slot = true;
  char attrs[320];
  snprintf(attrs, sizeof attrs,
           "{mode=%s,output_height=%lld,output_width=%lld,sampling_ratio=%lld,"
           "spatial_scale=%.9g,coordinate_transformation_mode=%s}",
           max_mode ? "max" : "avg", (long long)oh, (long long)ow, (long long)ratio,
           (double)scale, coord == IR_COORD_HALF_PIXEL ? "half_pixel" : "output_half_pixel");
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

