/* What the conv2d family's kernel files share (kernels/conv2d.c, the
 * direct, 1x1, sliced-k, depthwise and transposed templates;
 * kernels/conv2d_coopmat.c, the cooperative-matrix ones): the workload of a
 * conv2d / conv_transpose2d node, its key and the specialization constants
 * every conv template takes, and the cooperative-matrix file's entry point
 * (the family's choice in conv2d.c calls it). */
#ifndef CG_CORE_CONV_H
#define CG_CORE_CONV_H

#include "codegen/core/kernel.h"
#include "ir/graph.h"
#include "ir/params.h"

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
  /* conv2d only: w may be IR_LAYOUT_NHWC, stored [m, kh, kw, c/group]
   * (tap-major; the cooperative-matrix templates only) */
  ir_layout w_layout;
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
/* The sizes, attributes and activation parameters as the specialization
 * constants of glsl/conv_params.glsl, which every conv template includes. */
vkml_status cg_conv_specs(cg_kernel *k, const cg_conv_workload *w);
/* Whether target can run conv2d_coopmat at all (see cg_conv_choose_for,
 * kernels/conv2d.h). */
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
