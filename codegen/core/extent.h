/* Bounded rows: GPU kernels over a bounded (run-time sized) value's
 * capacity.
 *
 * A bounded value whose every dim before its bounded axis is 1 (in the
 * default layout) keeps its actual elements as a prefix of its capacity
 * (ir/graph.h: dense at the actual size). A node that works independently
 * per index along that axis — elementwise ops, a gemm or matmul over
 * bounded rows, softmax along another axis, reshapes that keep the rows,
 * a slice, gather or split along another axis, a transpose that moves only
 * axes of size 1 — then runs on the GPU as its
 * unbounded twin at the capacity: the executor first copies the bounded
 * input's extent word into every output's (ir/plan.h IR_STEP_EXTENT_FROM),
 * and the rows past the actual size compute values nobody reads.
 *
 * One bounded value per node (as one or several operands), or, for
 * elementwise ops of at most 4 inputs, several: when they provably have
 * one run-time size (they come from one value through nodes whose outputs
 * take an input's extent: bounded rows, transfers; at most 32 back)
 * nothing is checked, otherwise the kernel compares their extent words on
 * the device and reports a mismatch (glsl/extent_check.glsl,
 * cg_rows_check_extents). */
#ifndef CG_CORE_EXTENT_H
#define CG_CORE_EXTENT_H

#include "codegen/core/kernel.h"
#include "codegen/core/spec.h"
#include "ir/graph.h"

/* n's unbounded twin: the same node on copies of its operands with the
 * bounded flag cleared, what a kernel over the capacities is instantiated
 * for. cg_twin_make fills t (NULL operands stay NULL); free with
 * cg_twin_free. */
typedef struct cg_twin {
  ir_node node;
  ir_value *vals;  /* n_inputs + n_outputs copies */
  ir_value **ptrs;
} cg_twin;
vkml_status cg_twin_make(const ir_node *n, cg_twin *t);
void cg_twin_free(cg_twin *t);
/* Whether any operand of n is bounded. */
bool cg_node_any_bounded(const ir_node *n);

/* v is bounded, in the default layout, every dim before its bounded axis
 * 1: its actual elements are a prefix of its capacity. */
bool cg_rows_leading(const ir_value *v);

/* The input whose extent word n's outputs take when n runs over bounded
 * rows as above, or -1 (no bounded operand, or not such a node). */
int cg_rows_extent_input(const ir_node *n);
/* n (over bounded rows) has bounded inputs whose sizes must be compared on
 * the device: not provably one. */
bool cg_rows_check_extents(const ir_node *n);

/* ---- the extent ABI (glsl/extent.glsl) -------------------------------------- */

/* Most outputs whose extent word a kernel over bounded rows copies itself
 * (glsl/extent_copy.glsl); past them the executor copies. */
#define CG_EXTENT_MAX_OUTPUTS 4
/* The specialization constant of binding j's extent word. */
#define CG_EXTENT_WORD_SPEC(j) (CG_SPEC_EXTENT_VKML_EXT_WORD0 + (uint32_t)(j))

/* Applies the extent ABI to k, the kernel of n (cg_kernel_for_node calls it
 * for every kernel): for each bounded operand j of n (binding j: inputs,
 * then outputs), its extent word's index as specialization constant
 * CG_EXTENT_WORD_SPEC(j) and bit j of the defines VKML_EXT_LO / VKML_EXT_HI
 * (a twin's kernel over bounded rows also has VKML_EXT_TWIN);
 * and where k runs over bounded rows (k->extent_from) and no executor copy
 * of input 0 comes first (k->copy_input0), the extent copy of
 * glsl/extent_copy.glsl (k->extent_in_kernel). Nothing for a node without
 * bounded operands. */
vkml_status cg_extent_abi(const ir_node *n, cg_kernel *k);

#endif
