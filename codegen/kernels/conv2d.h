/* conv2d and conv_transpose2d on the GPU: five templates, f32 and f16
 * (16-bit storage, fp32 accumulation), bias and fused activation.
 *
 *   conv2d_direct     every conv2d (groups, strides, dilations, asymmetric
 *                     pads): implicit GEMM, output channels x output pixels
 *                     per workgroup, weights and the gathered input tile
 *                     staged in shared memory (glsl/conv2d_direct.comp)
 *   conv2d_1x1        1x1, stride 1, no pad, one group: [M,C] x [C,H*W]
 *                     tiled GEMM with vec4 loads (glsl/conv2d_1x1.comp)
 *   conv2d_depthwise  group == C (any channel multiplier): output-pixel tiles
 *                     with the input tile and halo in shared memory
 *                     (glsl/conv2d_depthwise.comp)
 *   conv_transpose2d  the gather form, one dense implicit GEMM per output
 *                     phase (glsl/conv_transpose2d.comp)
 *   conv2d_coopmat    f16 conv2d with one group on VK_NV_cooperative_matrix:
 *                     implicit GEMM weights [M, C*KH*KW] x im2col [C*KH*KW,
 *                     N*OH*OW], the gathered slice staged in shared memory,
 *                     fp32 (or fp16: knob ACC) accumulation
 *                     (glsl/conv2d_coopmat.comp, codegen/kernels/conv2d_coopmat.c)
 *
 * Knobs of the GEMM-like templates: WG_M x WG_N invocations (output channels
 * x pixels), TM x TN outputs per invocation, BK reduction elements per
 * shared-memory step; conv2d_sliced_k and conv2d_1x1_sliced_k add KS, slices
 * of the workgroup splitting k (glsl/sliced_k.glsl). Cooperative matrix: as
 * gemm_coopmat (codegen/kernels/gemm.h): WM x WN subgroups, each TM x TN matrix tiles, BK,
 * ACC; conv2d_coopmat_sliced_k adds SLK. Depthwise: WG_X x WG_Y x CPW
 * invocations (pixel columns x rows x channels), OPX x OPY outputs per
 * invocation, SMEM (stage input). */
#ifndef CG_KERNELS_CONV2D_H
#define CG_KERNELS_CONV2D_H

#include "codegen/core/core.h"
#include "ir/graph.h"
#include "ir/params.h"


/* The family's own template for w: conv_transpose2d for a transposed conv;
 * conv2d_depthwise when group == C > 1; conv2d_direct otherwise (1x1 convs
 * included: it measured faster than conv2d_1x1, which the tuner may still
 * pick). */
const cg_template *cg_conv_choose(const cg_conv_workload *w);
/* The choice on a target: conv2d_coopmat for an f16 conv2d with one group
 * where the target can run it (VK_NV_cooperative_matrix with an f16 shape,
 * fp16 arithmetic, 16-bit storage, the Vulkan memory model, basic subgroup
 * operations), else cg_conv_choose. On a GPU (integrated, discrete or
 * virtual: not a CPU device, nor one of unknown type) the sliced-k
 * variants where the survey measured them faster: conv2d_coopmat_sliced_k
 * for at most 102400 outputs and K >= 96; conv2d_sliced_k in place of
 * conv2d_direct for one-group convs of at most 2^21 outputs. */
const cg_template *cg_conv_choose_for(const cg_conv_workload *w, const ir_target *target);
/* Instantiates template t (NULL: cg_conv_choose_for; where its default
 * does not fit, UNSUPPORTED, and s is NULL: the next choice,
 * conv2d_coopmat_sliced_k -> conv2d_coopmat -> cg_conv_choose, and
 * conv2d_sliced_k -> conv2d_direct) for w with schedule s.
 * s NULL: the template's default fitted to w (fewer outputs per invocation
 * where blocks would be mostly empty or too few to fill a GPU; for
 * depthwise, the pixel tile shrunk to the image), still valid wherever the
 * default is. UNSUPPORTED when t does not run w, the target lacks what w
 * needs (16-bit storage for f16) or the schedule, its shared memory (the
 * depthwise staged tile) or the grid does not fit the target. */
vkml_status cg_conv_instantiate(const cg_conv_workload *w, const cg_template *t,
                                const cg_schedule *s, const ir_target *target, cg_kernel *out);
/* The operand mask (bit 1: w) of conv2d n's inputs that its kernel on
 * target t reads tap-major (IR_LAYOUT_NHWC: w [M, C/G, KH, KW] stored
 * [M, KH, KW, C/G]): w of a kernel of more than one tap where the default
 * kernel with w so is a cooperative-matrix one whose step (BK) divides
 * C/G; 0 otherwise. pass_layout
 * stores constant weights that way (cg_query_layout_operands). */
uint32_t cg_conv2d_weight_layouts(const ir_node *n, const ir_target *t);

#endif
