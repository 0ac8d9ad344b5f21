/* Checks the kernels share (check.h). */
#include <stdint.h>

#include "codegen/core/check.h"

#include <stdbool.h>
vkml_status cg_check_template(const ir_node *n, const cg_template *sched_template,
                              const cg_template *want) {
  if (sched_template && sched_template != want)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: template %s, not %s",
                            ir_op_name(n->op), sched_template->name, want->name);
  return VKML_OK;
}

/* Dense, unbounded, under 2^31 elements: what every stage needs. */
vkml_status cg_check_stage_operands(const ir_node *n) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT || (v->type.bounded && n->op != IR_OP_NMS_COMPACT))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: bounded inputs or packed layouts stay on the CPU",
                              ir_op_name(n->op));
    if (ir_type_numel(&v->type) >= (INT64_C(1) << 31) / 3)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: too many elements for 32-bit indices",
                              ir_op_name(n->op));
  }
  return VKML_OK;
}

vkml_status cg_check_refuse_template(const ir_node *n, const cg_template *st) {
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: schedule of template %s does not apply",
                          ir_op_name(n->op), st->name);
}

vkml_status cg_check_default_layout(const ir_node *n, const char *tmpl) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: %%%s in layout %s: %s reads the default layout only",
                              ir_op_name(n->op), v->name ? v->name : "?",
                              ir_layout_name(v->layout), tmpl);
  }
  return VKML_OK;
}
