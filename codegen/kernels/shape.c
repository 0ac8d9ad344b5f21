/* shape on the GPU (glsl/shape.comp): a static value's dims are baked; a
 * bounded axis's size is read through the extent ABI, so shape arithmetic
 * on run-time sizes stays on the device. */
#include <string.h>

#include "codegen/core/core.h"

const cg_template cg_shape_template = {
    .name = "shape", .glsl = "shape.comp", .n_knobs = 0, .dflt = {{0}}};

vkml_status cg_node_shape(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_shape_template));
  const ir_value *x = n->inputs[0];
  const ir_type *xt = &x->type;
  if (xt->rank < 1 || xt->rank > 8 || x->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "shape: rank %d or a packed layout",
                            xt->rank);
  for (int d = 0; d < xt->rank; d++)
    if (xt->dims[d] > UINT32_MAX)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "shape: a dim beyond 32 bits");
  if (!s) s = &cg_shape_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_shape_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SHAPE_RANK, (uint32_t)xt->rank));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SHAPE_BOUNDED_AXIS,
                                      xt->bounded ? (uint32_t)xt->bounded_axis : UINT32_MAX));
  for (int d = 0; d < xt->rank; d++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SHAPE_D0 + (uint32_t)d, (uint32_t)xt->dims[d]));
  out->n_buffers = 2;
  out->groups[0] = out->groups[1] = out->groups[2] = 1;
  cg_node_key(n, "", out->key, sizeof out->key);
  return VKML_OK;
}
