/* What the elementwise kernels share (kernels/elementwise.c, binary.c,
 * fused.c): dtype codes, the storage checks, the 1-D grid, the unary op
 * codes and NumPy broadcast addressing. */
#ifndef CG_CORE_ELT_H
#define CG_CORE_ELT_H

#include <stdint.h>

#include "codegen/core/kernel.h"
#include "ir/graph.h"

/* The dtype code the elementwise shaders use (DT_F32 ... DT_BOOL). */
int cg_elt_dtype_code(ir_dtype t);
/* OK when the target can hold a tensor of type t in a storage buffer the
 * shaders address: storage features of its dtype, not bounded, at most
 * 2^31 elements (32-bit offsets), within max_storage_buffer_range.
 * UNSUPPORTED naming tmpl and the reason otherwise. */
vkml_status cg_elt_check_type(const char *tmpl, const ir_type *t, const ir_target *target);
/* Sets k->groups for `units` work items, per_group of them per workgroup,
 * as a 2-D grid past the x limit (one group for zero units). */
vkml_status cg_elt_grid(cg_kernel *k, int64_t units, int64_t per_group,
                        const ir_target *target);
/* elementwise_unary's shader op code of op (glsl/unary.glsl OP_RELU ...
 * OP_CLIP, then not and cast), -1 for another op. */
int cg_elt_unary_code(ir_op op);
/* IEEE bits of f, for float specialization constants. */
uint32_t cg_elt_f32_bits(float f);

/* ---- NumPy broadcast addressing (elementwise_nary, elementwise_fused) ---- */

#define CG_BCAST_MAX_INPUTS 8

/* The output's axes (innermost first) with size-1 axes dropped and
 * neighbours merged where every input stays contiguous across them; each
 * input's element strides along them and its addressing mode. */
typedef struct cg_bcast_merged {
  int rank;
  int64_t d[IR_MAX_RANK];
  int64_t s[CG_BCAST_MAX_INPUTS][IR_MAX_RANK];
  uint32_t mode[CG_BCAST_MAX_INPUTS]; /* 0 strided, 1 as the output, 2 one element */
} cg_bcast_merged;

/* Element strides of t broadcast to out's rank (0 along broadcast axes). */
void cg_bcast_strides(const ir_type *t, const ir_type *out, int64_t *s);
/* Merges the axes of out for inputs in[0..n_in) (n_in <= CG_BCAST_MAX_INPUTS),
 * each broadcastable to out. */
void cg_bcast_merge(int n_in, const ir_type *in, const ir_type *out, cg_bcast_merged *m);

#endif
