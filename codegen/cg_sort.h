/* The segmented argsort's stages and non_max_suppression's (cg_sort.c).
 *
 * sort template (glsl/sort.comp), knob WG_SIZE {64..1024} (default 128):
 * sort_block (a block of `width` triples per workgroup, bitonic in shared
 * memory: width / WG_SIZE per invocation), sort_merge (one triple per
 * invocation), sort_index (one element per invocation).
 * nms template (glsl/nms.comp), knob WG_SIZE {64, 128, 256} (default 128):
 * nms_select and nms_compact, a workgroup per (batch, class); nms_compact
 * writes the bounded output's extent word.
 *
 * argsort, non_max_suppression and non_zero have no kernel of their own
 * (their cg_node_* return UNSUPPORTED; the op table flags them
 * IR_OPF_STAGED), and the placement asks cg_staged_reason whether their
 * stages can run on t. */
#ifndef CG_SORT_H
#define CG_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codegen/cg_kernel.h"
#include "ir/graph.h"
#include "ir/target.h"

extern const cg_template cg_sort_template; /* sort.comp: WG_SIZE */
extern const cg_template cg_nms_template;  /* nms.comp: WG_SIZE */
/* nms_window.comp (cg_nms_window.c): the stages of NMS over one bounded
 * row (nms_keys, nms_prep, nms_round, nms_finish); knob WG_SIZE */
extern const cg_template cg_nms_window_template;
/* The iou threshold t as the nms kernels test it (glsl/nms_iou.glsl): the
 * midpoint mm * 2^me between t and the next float, and whether a quotient
 * equal to it rounds up. */
void cg_nms_iou_midpoint(float t, uint32_t *mm, int32_t *me, bool *tie_up);
/* Whether non_max_suppression node n takes the one-row form of
 * glsl/nms_window.comp: boxes [1,<=N,4] and scores [1,1,<=N], both bounded
 * along N (what batched NMS exports). */
bool cg_nms_is_window(const ir_node *n);
/* nonzero.comp (cg_nonzero.c): nonzero_flags and nonzero_write, an
 * element per invocation; knob WG_SIZE */
extern const cg_template cg_nonzero_template;
/* glsl/nonzero.comp's DTYPE for x, or -1 (the CPU keeps it) */
int cg_nonzero_dtype(ir_dtype d);

/* Why the stages of staged op n cannot run on t (why: room for the
 * message), or NULL. */
const char *cg_staged_reason(const ir_node *n, const ir_target *t, char *why, size_t bytes);

#endif
