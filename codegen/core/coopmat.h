/* Cooperative matrices, shared by the GEMM and conv templates that use them
 * (kernels/gemm.c, kernels/conv2d_coopmat.c): which API they are written
 * in, the shapes, the space. One GLSL source serves both APIs through the
 * macros of glsl/coopmat.glsl (CM_KHR chooses). */
#ifndef CG_CORE_COOPMAT_H
#define CG_CORE_COOPMAT_H

#include "codegen/core/kernel.h"
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

typedef enum cg_coopmat_api {
  CG_COOPMAT_NONE = 0,
  CG_COOPMAT_NV,  /* GL_NV_cooperative_matrix, compiled by shaderc (glslang 12) */
  CG_COOPMAT_KHR, /* GL_KHR_cooperative_matrix, compiled by glslang 15 */
} cg_coopmat_api;

/* The API the templates use on target: VK_KHR_cooperative_matrix where the
 * device enables it and this build links glslang 15 (the portable path);
 * else VK_NV_cooperative_matrix where the device enables it; either only
 * with the Vulkan memory model, which glslang declares in every
 * cooperative-matrix shader; else none. */
cg_coopmat_api cg_coopmat_api_of(const ir_target *target);

/* NULL when target can run the cooperative-matrix templates (an API above,
 * fp16 arithmetic and storage, basic subgroup operations in compute with a
 * power-of-two subgroup size), else why not. */
const char *cg_coopmat_lacks(const ir_target *target);

/* Defines CM_KHR (0 or 1) on k and compiles it with the API's compiler
 * (cg_kernel.opt). Call after cg_kernel_begin. */
vkml_status cg_coopmat_kernel_api(cg_kernel *k, const ir_target *target);

/* Index into target->coopmat_shapes of the shape the cooperative-matrix
 * templates use for f16 x f16 with acc_bits (16 or 32) accumulation, among
 * those of cg_coopmat_api_of's extension: 16x16x16 if listed, else the
 * largest; -1 if none. */
int cg_coopmat_shape(const ir_target *target, int acc_bits);

#endif
