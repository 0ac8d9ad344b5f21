/* Integer reductions on the GPU (glsl/reduce_int.comp): sum, prod, max and
 * min of small static i32 / i64 tensors, one invocation per output element.
 * What exported graphs reduce in integers is shape arithmetic (the element
 * count of a run-time sized value, reduce_prod(shape(x)), tested against
 * zero by torchvision's batched NMS): keeping it on the device keeps the
 * If after it there too. Reductions over nothing stay on the CPU. */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_ops.h"
#include "codegen/cg_reduce.h"
#include "ir/params.h"

const cg_template cg_reduce_int_template = {
    .name = "reduce_int", .glsl = "reduce_int.comp", .n_knobs = 0, .dflt = {{0}}};

/* small enough for one serial walk per output element */
#define REDUCE_INT_MAX_ELEMENTS (INT64_C(1) << 20)

bool cg_reduce_is_int(const ir_node *n) {
  ir_dtype dt = n->inputs[0]->type.dtype;
  return dt == IR_I32 || dt == IR_I64;
}

vkml_status cg_reduce_int(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_reduce_int_template));
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  const ir_type *xt = &x->type;
  int op = n->op == IR_OP_REDUCE_SUM ? 0 : n->op == IR_OP_REDUCE_PROD ? 1
         : n->op == IR_OP_REDUCE_MAX ? 2 : n->op == IR_OP_REDUCE_MIN ? 3 : -1;
  if (op < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s reduces on the GPU only by sum, "
                            "prod, max or min", ir_op_name(n->op), ir_dtype_name(xt->dtype));
  if (xt->dtype == IR_I64 && !t->int64_arith)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: i64 needs shaderInt64, which %s lacks",
                            ir_op_name(n->op), t->name);
  if (xt->bounded || y->type.bounded || x->layout != IR_LAYOUT_DEFAULT ||
      y->layout != IR_LAYOUT_DEFAULT || y->type.dtype != xt->dtype || xt->rank > 8)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: integers reduce on the GPU only static, of rank <= 8, in the "
                            "default layout", ir_op_name(n->op));
  if (ir_type_numel(xt) > REDUCE_INT_MAX_ELEMENTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s reductions of more than %lld "
                            "elements stay on the CPU", ir_op_name(n->op),
                            ir_dtype_name(xt->dtype), (long long)REDUCE_INT_MAX_ELEMENTS);
  bool mask[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_reduce_axes_get(n, xt->rank, mask));
  uint32_t bits = 0;
  int64_t out_n = 1;
  for (int d = 0; d < xt->rank; d++) {
    if (mask[d] && xt->dims[d] == 0)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: a reduction over nothing stays on "
                              "the CPU", ir_op_name(n->op));
    if (mask[d]) bits |= 1u << d;
    else out_n *= xt->dims[d];
  }
  if (out_n != ir_type_numel(&y->type))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %lld output elements, %%%s has %lld",
                            ir_op_name(n->op), (long long)out_n, y->name,
                            (long long)ir_type_numel(&y->type));
  if (!s) s = &cg_reduce_int_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_reduce_int_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "OP", "%d", op));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DT", "%d", xt->dtype == IR_I64 ? 3 : 2));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 0, (uint32_t)(xt->rank ? xt->rank : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 1, bits));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 2, (uint32_t)out_n));
  for (int d = 0; d < xt->rank; d++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 8 + (uint32_t)d, (uint32_t)xt->dims[d]));
  out->n_buffers = 2;
  out->groups[0] = (uint32_t)((out_n + 63) / 64);
  out->groups[1] = out->groups[2] = 1;
  char attrs[32];
  snprintf(attrs, sizeof attrs, "{reduced=0x%x}", bits);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
