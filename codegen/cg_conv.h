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
 *                     (glsl/conv2d_coopmat.comp, cg_conv_coopmat.c)
 *
 * Knobs of the GEMM-like templates: WG_M x WG_N invocations (output channels
 * x pixels), TM x TN outputs per invocation, BK reduction elements per
 * shared-memory step; conv2d_sliced_k and conv2d_1x1_sliced_k add KS, slices
 * of the workgroup splitting k (glsl/sliced_k.glsl). Cooperative matrix: as
 * gemm_coopmat (cg_gemm.h): WM x WN subgroups, each TM x TN matrix tiles, BK,
 * ACC; conv2d_coopmat_sliced_k adds SLK. Depthwise: WG_X x WG_Y x CPW
 * invocations (pixel columns x rows x channels), OPX x OPY outputs per
 * invocation, SMEM (stage input). */
#ifndef CG_CONV_H
#define CG_CONV_H

#include "codegen/cg_kernel.h"
#include "ir/graph.h"
#include "ir/params.h"

extern const cg_template cg_conv2d_direct_template;
extern const cg_template cg_conv2d_1x1_template;
extern const cg_template cg_conv2d_sliced_k_template;
extern const cg_template cg_conv2d_1x1_sliced_k_template;
extern const cg_template cg_conv2d_depthwise_template;
extern const cg_template cg_conv_transpose2d_template;
extern const cg_template cg_conv2d_coopmat_template;
extern const cg_template cg_conv2d_coopmat_sliced_k_template;

typedef struct cg_conv_workload {
  ir_op op;           /* IR_OP_CONV2D or IR_OP_CONV_TRANSPOSE2D */
  ir_type x, w, b, y; /* b: rank 0 when there is no bias */
  bool has_bias;
  ir_conv_params p;
  /* x [n, c, h, wd], y [n, m, oh, ow], kernel kh x kw (from p) */
  int64_t n, c, h, wd, m, oh, ow;
  /* conv2d only: x and y may be IR_LAYOUT_NC4HW4 (each on its own; the
   * depthwise template reads vec4 texels when both are and M == C);
   * zero-initialized: the default layout */
  ir_layout x_layout, y_layout;
} cg_conv_workload;

/* The workload of a conv2d / conv_transpose2d node (f32 or f16, every
 * tensor the same dtype, default layout but for a conv2d's x and y, which
 * may be nc4hw4, consistent shapes). UNSUPPORTED for
 * what the GPU kernels do not run, INVALID_ARGUMENT for inconsistent nodes. */
vkml_status cg_conv_workload_from_node(const ir_node *n, cg_conv_workload *out);
/* The length of a conv2d's reduction per group: C/group * KH * KW. */
int64_t cg_conv_k(const cg_conv_workload *w);
/* Canonical key with every attribute, e.g.
 * "conv2d(f32[1,3,8,8],f32[4,3,3,3],f32[4])->f32[1,4,8,8]{strides=[1,1],
 * pads=[1,1,1,1],dilations=[1,1],group=1}" (+ output_padding for transposed
 * convs, + act/act_alpha/act_beta when there is one). */
void cg_conv_workload_key(const cg_conv_workload *w, char *buf, int buf_bytes);
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

/* Internal, shared by cg_conv.c and cg_conv_coopmat.c. */
/* The sizes and attributes as specialization constants 0..15, the
 * activation's parameters as 17 and 18 (the ids of every conv2d template). */
vkml_status cg_conv_specs(cg_kernel *k, const cg_conv_workload *w);
/* Whether target can run conv2d_coopmat at all (see cg_conv_choose_for). */
bool cg_conv_coopmat_suits(const ir_target *target);
/* conv2d_coopmat, or conv2d_coopmat_sliced_k (tmpl), for w (s NULL: its
 * default for w, a short ladder of tile sizes by the number of workgroups,
 * then the slices); UNSUPPORTED when w is not an f16
 * conv2d with one group, the target lacks a feature, or the schedule (with
 * the device's tile shape and subgroup size), its shared memory or grid do
 * not fit the target. */
vkml_status cg_conv_coopmat_instantiate(const cg_conv_workload *w, const cg_template *tmpl,
                                        const cg_schedule *s, const ir_target *target,
                                        cg_kernel *out);

#endif
