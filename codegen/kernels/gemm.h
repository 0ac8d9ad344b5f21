/* GEMM templates for gemm (ONNX Gemm: transposes, alpha/beta, C broadcast to
 * [M,N], fused activation) and matmul (NumPy matmul: 1-D promotion, batch
 * broadcasting), f32 and f16 (16-bit storage, fp32 accumulation).
 *
 * gemm_tiled (glsl/gemm_tiled.comp): shared-memory tiles with register
 *   blocking. Knobs WG_M x WG_N invocations, each TM x TN outputs (tile
 *   BM = WG_M*TM by BN = WG_N*TN), BK = K step staged in shared memory.
 *   Default WG_M=8, WG_N=16, TM=8, TN=4, BK=16 (64x64 tiles, 128
 *   invocations, 8 KiB shared), valid on every Vulkan 1.1 device.
 * gemm_coopmat (glsl/gemm_coopmat.comp): VK_NV_cooperative_matrix, f16 only
 *   (accumulation fp16 or fp32: knob ACC). Knobs WM x WN subgroups, each TM x
 *   TN matrix tiles of a shape the device lists (16x16x16 preferred), BK. Its
 *   constraints assume 32-wide subgroups and 16x16 tiles; instantiation
 *   checks the exact sizes on the target. Compiled without SPIRV-Tools
 *   optimisation (cg_kernel.opt = CG_OPT_ZERO).
 * gemv (glsl/gemv.comp): one side with at most CG_GEMV_MAX_ROWS rows (M, or
 *   N with the roles swapped), memory-bound on the other operand (the
 *   weights), which is streamed once with coalesced vector loads along its
 *   contiguous axis (either B layout; batched matmul along the grid's z).
 *   A workgroup owns a block of columns; its WG_K k lanes split K and their
 *   partials are combined by subgroup adds (where the device has subgroup
 *   arithmetic; knob SG) and a tree in shared memory. Knobs WG_N (columns,
 *   or column vectors, per workgroup), WG_K, VEC (largest vector width),
 *   UNROLL (weight loads in flight per lane), SG. Default WG_N=2, WG_K=64,
 *   VEC=4, UNROLL=4, SG=1 (128 invocations, <= 8 KiB shared). Up to 8 rows,
 *   a weight is used by 8 FMAs per 4 bytes (f32): past that the tiled
 *   template's reuse wins. */
#ifndef CG_KERNELS_GEMM_H
#define CG_KERNELS_GEMM_H

#include "codegen/core/core.h"
#include "ir/graph.h"
#include "ir/params.h"


#define CG_GEMV_MAX_ROWS 8

typedef struct cg_gemm_workload {
  ir_op op;           /* IR_OP_GEMM or IR_OP_MATMUL */
  ir_type a, b, c, out; /* c only when has_c */
  bool has_c;
  bool trans_a, trans_b; /* gemm only */
  float alpha, beta;     /* gemm only (matmul: 1, 0) */
  ir_act_params act;
} cg_gemm_workload;

/* The workload of a gemm or matmul node (f32 or f16, every tensor the same
 * dtype, default layout); UNSUPPORTED otherwise. */
vkml_status cg_gemm_workload_from_node(const ir_node *n, cg_gemm_workload *out);
/* Canonical key, e.g. "gemm(f32[3,4],f32[5,4],f32[5])->f32[3,5]{trans_b=1,alpha=0.5}". */
void cg_gemm_workload_key(const cg_gemm_workload *w, char *buf, int buf_bytes);

/* Instantiates a template for a workload. Bindings: 0 = A, 1 = B, 2 = C
 * (gemm with C), then Y; dense C-order tensors. UNSUPPORTED when the target
 * lacks something the workload or template needs, or the schedule does not
 * fit it. */
vkml_status cg_gemm_tiled_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                      const ir_target *target, cg_kernel *out);
vkml_status cg_gemm_coopmat_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                        const ir_target *target, cg_kernel *out);
/* gemm_tiled with 4x4 blocks of outputs per invocation read as vec4s from
 * shared memory (cg_gemm_tiled_vec4_template); TM and TN multiples of 4. */
vkml_status cg_gemm_tiled_vec4_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                           const ir_target *target, cg_kernel *out);
/* VK_NV_cooperative_matrix2 (target->coopmat2) and glslang 15; A and B each
 * with an axis of unit stride. */
vkml_status cg_gemm_coopmat2_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                         const ir_target *target, cg_kernel *out);
/* UNSUPPORTED when both M and N exceed CG_GEMV_MAX_ROWS or the output is
 * empty. */
vkml_status cg_gemm_gemv_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                     const ir_target *target, cg_kernel *out);

/* cg_node_gemm / cg_node_matmul (codegen/core/ops.h): sched_template names
 * cg_gemm_tiled_template, cg_gemm_tiled_vec4_template,
 * cg_gemm_coopmat_template, cg_gemm_coopmat2_template (only when named: not
 * a default yet) or cg_gemm_gemv_template;
 * NULL lets the family choose: gemv when min(M, N) is 1..CG_GEMV_MAX_ROWS
 * (per batch), else the cooperative-matrix template for f16 when the target
 * can run it, else gemm_tiled_vec4; a default that the workload does not fit
 * (UNSUPPORTED, e.g. its grid) falls through to the next (sched, when given,
 * must belong to the choice). */

#endif
