/* Staged ops (IR_OPF_STAGED: argsort, non_max_suppression, non_zero): no
 * kernel of their own. When the placement puts one on the GPU, a pass
 * splits it into stages that have kernels (passes/pass_split_sort.c,
 * pass_split_nms.c, pass_split_nonzero.c; kernels/sort.c, nms.c,
 * nonzero.c); their cg_node_* here refuse with that explanation, and
 * cg_staged_reason says whether the stages can run on a target. */
#ifndef CG_CORE_STAGED_H
#define CG_CORE_STAGED_H

#include <stddef.h>

#include "codegen/core/kernel.h"
#include "ir/graph.h"
#include "ir/target.h"

/* Why the stages of staged op n cannot run on t (why: room for the
 * message), or NULL. */
const char *cg_staged_reason(const ir_node *n, const ir_target *t, char *why, size_t bytes);

/* The order-key code glsl/sort.comp takes for keys of dtype d (0 f32, 1
 * f16, 2 i32, 3 i64), or -1: such keys sort on the CPU. */
int cg_sort_key_dtype(ir_dtype d);
/* glsl/nonzero.comp's DTYPE for x, or -1 (the CPU keeps it). */
int cg_nonzero_dtype(ir_dtype d);

#endif
