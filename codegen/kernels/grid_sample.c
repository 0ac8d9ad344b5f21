/* grid_sample on glsl/grid_sample.comp: an output element per invocation
 * step, the elementwise space (WG_SIZE, EPI). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"

const cg_template cg_grid_sample_template = {
    .name = "grid_sample",
    .glsl = "grid_sample.comp",
    CG_ELEMENTWISE_SPACE,
};

vkml_status cg_node_grid_sample(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_grid_sample_template));
  if (n->n_inputs != 2 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "grid_sample: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_type *x = &n->inputs[0]->type, *g = &n->inputs[1]->type, *y = &n->outputs[0]->type;
  for (int i = 0; i < 3; i++)
    VKML_RETURN_IF_ERROR(cg_elt_check_type("grid_sample", i < 2 ? &n->inputs[i]->type : y, t));
  VKML_RETURN_IF_ERROR(cg_check_default_layout(n, "grid_sample"));
  if ((x->dtype != IR_F32 && x->dtype != IR_F16) || g->dtype != x->dtype || x->rank != 4 ||
      g->rank != 4 || y->rank != 4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "grid_sample: the GPU kernel takes f32 or f16 x [N,C,H,W] and a "
                            "grid [N,Ho,Wo,2] of x's dtype");
  int mode = (int)ir_node_int(n, IR_A_RESIZE_MODE, IR_RESIZE_LINEAR);
  int pad = (int)ir_node_int(n, IR_A_PADDING_MODE, IR_PAD_CONSTANT);
  bool align = ir_node_int(n, IR_A_ALIGN_CORNERS, 0) != 0;
  int64_t total = ir_type_numel(y);
  if (!s) s = &cg_grid_sample_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_grid_sample_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MODE", "%d",
                                        mode == IR_RESIZE_NEAREST ? 0
                                        : mode == IR_RESIZE_CUBIC ? 2
                                                                  : 1));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "PAD", "%d",
                                        pad == IR_PAD_EDGE ? 1 : pad == IR_PAD_REFLECT ? 2 : 0));
  const cg_spec_value specs[] = {
      {CG_SPEC_GRID_SAMPLE_N, (uint32_t)x->dims[0]},  {CG_SPEC_GRID_SAMPLE_C, (uint32_t)x->dims[1]},
      {CG_SPEC_GRID_SAMPLE_H, (uint32_t)x->dims[2]},  {CG_SPEC_GRID_SAMPLE_W, (uint32_t)x->dims[3]},
      {CG_SPEC_GRID_SAMPLE_OH, (uint32_t)y->dims[2]}, {CG_SPEC_GRID_SAMPLE_OW, (uint32_t)y->dims[3]},
      {CG_SPEC_GRID_SAMPLE_ALIGN, align},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  int64_t per_group = (int64_t)s->v[0] * s->v[1];
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, (total + per_group - 1) / per_group,
                                    CG_SPEC_GRID_SAMPLE_GX, "grid_sample"));
  out->n_buffers = 3;
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{mode=%s,padding_mode=%s,align_corners=%d}",
           ir_enum_value_name(IR_ENUM_RESIZE_MODE, mode), ir_enum_value_name(IR_ENUM_PAD_MODE, pad),
           (int)align);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
