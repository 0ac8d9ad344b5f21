/* The elementwise templates besides elementwise_binary (cg_binary.h):
 *
 *  - elementwise_unary (glsl/elementwise_unary.comp): every unary op and
 *    cast, f32 and f16 (16-bit storage, fp32 math), the integer forms of
 *    neg / abs / sign / clip, not on bool, casts between every pair of
 *    f32 f16 i32 i64 u8 i8 bool;
 *  - copy (glsl/copy.comp): identity, reshape, flatten, squeeze, unsqueeze
 *    and same-type cast as a vectorised byte copy.
 *
 * Both have knobs WG_SIZE {32..1024} and EPI {1,2,4,8} (elements, or for
 * copy 16-byte vectors, per invocation); defaults WG_SIZE=128, EPI=4, valid
 * on every Vulkan 1.1 device. Nodes reach them through cg_ops.h
 * (cg_node_unary, cg_node_cast, cg_node_copy).
 *
 * Device needs: f16 -> 16-bit storage, u8 / i8 / bool -> 8-bit storage,
 * i64 -> shaderInt64; UNSUPPORTED without them. */
#ifndef CG_ELEMENTWISE_H
#define CG_ELEMENTWISE_H

#include "codegen/cg_kernel.h"
#include "ir/graph.h"

extern const cg_template cg_unary_template;
extern const cg_template cg_copy_template;
/* glsl/elementwise_fused.comp (cg_fused.c): fused_elementwise's program,
 * f32 / f16, 1..8 broadcast inputs; the elementwise space. */
extern const cg_template cg_fused_template;
/* glsl/data_layout.comp: reorder / identity between the default layout and
 * nc4hw4 (rank 4, 2- and 4-byte elements), one invocation per packed texel;
 * the elementwise space (EPI: texels per invocation). */
extern const cg_template cg_data_layout_template;

/* ---- shared by the elementwise templates (this file and cg_binary.c) ---- */

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

#endif
