/* non_zero's GPU stages on glsl/nonzero.comp: nonzero_flags and
 * nonzero_write (pass_split_nonzero puts an exclusive cumsum between them).
 * non_zero itself is a staged op (core/staged.h). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"

const cg_template cg_nonzero_template = {
    .name = "nonzero",
    .glsl = "nonzero.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 4, {64, 128, 256, 512}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128}},
};

static vkml_status nonzero_stage(const ir_node *n, int stage, const cg_template *st,
                                 const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_nonzero_template));
  const ir_type *x = &n->inputs[0]->type;
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT ||
        (v->type.bounded && i == 1 && n->op == IR_OP_NONZERO_WRITE) ||
        (i == 0 && v->type.bounded && !cg_rows_leading(v)))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: packed layouts, and bounded inputs but one whose rows lead, "
                              "stay on the CPU", ir_op_name(n->op));
  }
  int dt = cg_nonzero_dtype(x->dtype);
  if (dt < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s stays on the CPU", ir_op_name(n->op),
                            ir_dtype_name(x->dtype));
  if (dt == 1 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: f16 needs 16-bit storage, which %s lacks",
                            ir_op_name(n->op), t->name);
  int64_t numel = ir_type_numel(x);
  if (numel >= (INT64_C(1) << 31) || x->rank > 8)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: 2^31 elements or more",
                            ir_op_name(n->op));
  if (!s) s = &cg_nonzero_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_nonzero_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "STAGE", "%d", stage));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE", "%d", dt));
  if (x->bounded) {
    int64_t row = 1;
    for (int d = x->bounded_axis + 1; d < x->rank; d++) row *= x->dims[d];
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_NONZERO_ROW, (uint32_t)row));
  }
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_NONZERO_N, (uint32_t)numel));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_NONZERO_RANK, (uint32_t)x->rank));
  for (int d = 0; d < 8; d++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_NONZERO_D0 + (uint32_t)d, d < x->rank ? (uint32_t)x->dims[d] : 1));
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, (numel + s->v[0] - 1) / s->v[0], CG_SPEC_NONZERO_GX, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + 1;
  cg_node_key(n, "", out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_nonzero_flags(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                  const ir_target *t, cg_kernel *out) {
  return nonzero_stage(n, 0, st, s, t, out);
}

vkml_status cg_node_nonzero_write(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                  const ir_target *t, cg_kernel *out) {
  return nonzero_stage(n, 1, st, s, t, out);
}
