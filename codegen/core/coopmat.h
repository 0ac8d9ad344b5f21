/* Cooperative matrices (VK_NV_cooperative_matrix), shared by the GEMM and
 * conv templates that use them (kernels/gemm.c, kernels/conv2d_coopmat.c). */
#ifndef CG_CORE_COOPMAT_H
#define CG_CORE_COOPMAT_H

#include "codegen/core/template.h"
#include "ir/target.h"

/* The space shared by the cooperative-matrix templates (gemm_coopmat,
 * conv2d_coopmat): knobs WM, WN, TM, TN, BK, ACC (in that order) and their
 * constraints — assuming 32-wide subgroups and 16x16 tiles, the A and B
 * tiles (f16) and the epilogue tiles (fp32) each within a third of the
 * shared memory; instantiation checks the exact sizes. Default
 * WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32. Use after .name and .glsl. */
#define CG_COOPMAT_SPACE                                                       \
  .n_knobs = 6,                                                                \
  .knobs = {{"WM", 3, {1, 2, 4}},                                              \
            {"WN", 3, {1, 2, 4}},                                              \
            {"TM", 3, {1, 2, 4}},                                              \
            {"TN", 3, {1, 2, 4}},                                              \
            {"BK", 3, {16, 32, 64}},                                           \
            {"ACC", 2, {16, 32}}},                                             \
  .n_constraints = 5,                                                          \
  .constraints = {{CG_LIMIT_WORKGROUP_X, 3u, 32},                              \
                  {CG_LIMIT_WORKGROUP_INVOCATIONS, 3u, 32},                    \
                  {CG_LIMIT_SHARED_BYTES, 1u | 4u | 16u, 96},                  \
                  {CG_LIMIT_SHARED_BYTES, 2u | 8u | 16u, 96},                  \
                  {CG_LIMIT_SHARED_BYTES, 3u, 3072}},                          \
  .dflt = {{2, 2, 2, 2, 32, 32}}

/* Index into target->coopmat_shapes of the shape the cooperative-matrix
 * templates use for f16 x f16 with acc_bits (16 or 32) accumulation:
 * 16x16x16 if listed, else the largest; -1 if none. */
int cg_coopmat_shape(const ir_target *target, int acc_bits);

#endif
