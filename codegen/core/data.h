/* What the data-movement kernels share (kernels/data_copy.c, concat.c,
 * gather.c, scatter.c, resize.c, shape.c).
 *
 * These kernels move bits, not values (resize linear excepted): what matters
 * is the element size. Elements of 4 and 8 bytes need nothing of the
 * device, 2-byte ones 16-bit storage, 1-byte ones 8-bit storage, unless the
 * layout lets several neighbouring elements move as one 32-bit or wider
 * word ("units" of up to UNIT_BYTES bytes).
 *
 * The data templates but data_transpose share one space (CG_DATA_KNOBS):
 * WG_SIZE {32..1024}, EPI (units per invocation) {1,2,4,8}, UNIT_BYTES
 * {4,8,16}. Default WG_SIZE=128, EPI=4, UNIT_BYTES=16, valid on every
 * Vulkan 1.1 device. */
#ifndef CG_CORE_DATA_H
#define CG_CORE_DATA_H

#include "codegen/core/kernel.h"
#include "ir/graph.h"

enum { CG_DATA_KNOB_WG = 0, CG_DATA_KNOB_EPI = 1, CG_DATA_KNOB_UNIT = 2 };

/* Most parts (concat inputs, split outputs) of one kernel: it binds at most
 * 32 buffers (the runtime's pipeline limit, within every device's
 * maxPushDescriptors). A device allowing fewer storage buffers per stage
 * (ir_target max_storage_buffers_per_stage, Vulkan minimum 4) gets the node
 * on the CPU from cg_plan_build. Packed (nc4hw4 along the channels): at
 * most 16 parts, the width of cg_node_layout_operands' mask. */
#define CG_DATA_MAX_PARTS 31

/* Starts kernel k of template tmpl for node n: the schedule (s, or the
 * default when NULL; st must be NULL or tmpl), its knobs as #defines, and
 * the workload key. */
vkml_status cg_data_begin(cg_kernel *k, const cg_template *tmpl, const ir_node *n,
                          const cg_template *st, const cg_schedule *s, const ir_target *t);
/* A reorder (or identity) of a rank-4 [N,C,H,W] value between the default
 * layout and nhwc: the transpose of its bytes, [N,C,H*W] <-> [N,H*W,C], on
 * data_transpose (or data_copy, where the tiles would be mostly empty). */
vkml_status cg_data_reorder_nhwc(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                 const ir_target *t, cg_kernel *out);
/* UNSUPPORTED unless every input and output of n has a static shape, fewer
 * than 2^31 elements (the shaders index in 32 bits) and fits one storage
 * buffer binding of t. */
vkml_status cg_data_check_values(const ir_node *n, const ir_target *t);
/* Elements per unit: the largest power of two g with g * es <= max_bytes
 * dividing every vals[i] (g = 1 when es >= max_bytes). */
int64_t cg_data_group(int64_t es, int64_t max_bytes, const int64_t *vals, int n_vals);
/* #define ELEM_BYTES; UNSUPPORTED when units of that size need a storage
 * feature t lacks. */
vkml_status cg_data_define_unit(cg_kernel *k, int64_t unit_bytes, const ir_target *t);
/* One invocation per EPI of `items`, WG_SIZE per workgroup, the groups laid
 * out x-first then y (past the x limit); N = 0 dispatches one group. */
vkml_status cg_data_grid(cg_kernel *k, int64_t items, const ir_target *t);
/* The axis of n's `axis` attribute (default dflt) normalised for rank. */
vkml_status cg_data_axis(const ir_node *n, int rank, int64_t dflt, int *axis);
/* The dims and strides of the axes a gather or scatter template walks
 * (glsl/index_axes.glsl, which data_gather.comp and scatter.comp include). */
vkml_status cg_data_spec_axes(cg_kernel *k, int n, const int64_t *dims, const int64_t *strides);
/* gather_elements / scatter_elements addressing: the indices' axes
 * (innermost first; size-1 ones dropped, contiguous ones merged) walking x
 * (C order): dims md, strides ms, the axis's stride 0 (it contributes
 * through the index, *axis_stride apart). Returns the count. */
int cg_data_index_walk(const ir_type *x, const ir_type *ind, int axis, int64_t *axis_stride,
                       int64_t *md, int64_t *ms);

/* The shared space; use inside a cg_template initializer after .name and
 * .glsl. */
#define CG_DATA_KNOBS                                                          \
  .n_knobs = 3,                                                                \
  .knobs = {{"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},                     \
            {"EPI", 4, {1, 2, 4, 8}},                                          \
            {"UNIT_BYTES", 3, {4, 8, 16}}},                                    \
  .n_constraints = 2,                                                          \
  .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << CG_DATA_KNOB_WG, 1},            \
                  {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << CG_DATA_KNOB_WG, 1}}, \
  .dflt = {{128, 4, 16}}

#endif
