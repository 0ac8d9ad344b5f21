/* Checks the kernels share before they instantiate. */
#ifndef CG_CORE_CHECK_H
#define CG_CORE_CHECK_H

#include "codegen/core/template.h"
#include "ir/graph.h"

/* INVALID_ARGUMENT unless sched_template is NULL or want. */
vkml_status cg_check_template(const ir_node *n, const cg_template *sched_template,
                              const cg_template *want);
/* What the stages of the staged ops (sort, nms) need of every operand:
 * dense (the default layout), unbounded (but nms_compact's output), under
 * 2^31 / 3 elements (their 32-bit indices); UNSUPPORTED otherwise. */
vkml_status cg_check_stage_operands(const ir_node *n);

/* INVALID_ARGUMENT: a schedule of template st does not apply to n. */
vkml_status cg_check_refuse_template(const ir_node *n, const cg_template *st);
/* UNSUPPORTED unless every operand of n is in the default layout (the
 * message names tmpl). */
vkml_status cg_check_default_layout(const ir_node *n, const char *tmpl);

#endif
