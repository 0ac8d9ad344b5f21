/* Data-movement GPU kernels (cg_data*.c): their templates and the helpers
 * they share. Internal to codegen; the entry points are cg_node_<family> in
 * cg_ops.h.
 *
 * These kernels move bits, not values (resize linear excepted): what matters
 * is the element size. Elements of 4 and 8 bytes need nothing of the
 * device, 2-byte ones 16-bit storage, 1-byte ones 8-bit storage, unless the
 * layout lets several neighbouring elements move as one 32-bit or wider
 * word ("units" of up to UNIT_BYTES bytes).
 *
 * The data templates but data_transpose share one space: WG_SIZE
 * {32..1024}, EPI (units per invocation) {1,2,4,8}, UNIT_BYTES {4,8,16}.
 * Default WG_SIZE=128, EPI=4, UNIT_BYTES=16, valid on every Vulkan 1.1
 * device. */
#ifndef CG_DATA_H
#define CG_DATA_H

#include "codegen/cg_ops.h"

/* glsl/data_copy.comp: transpose, slice, expand, tile, pad. */
extern const cg_template cg_data_copy_template;
/* glsl/data_transpose.comp: transpose through shared-memory tiles; knobs
 * TILE {8,16,32} x ROWS {1..32} (default 32 x 4), its own space. */
extern const cg_template cg_data_transpose_template;
/* glsl/data_concat.comp: concat (inputs as separate bindings); also every
 * operand in nc4hw4 along axis 1 of rank-4 f32 / f16 values (cg_layout.c
 * claims those). */
extern const cg_template cg_data_concat_template;
/* glsl/data_concat.comp: split (every output written by one dispatch). */
extern const cg_template cg_data_split_template;
/* glsl/data_gather.comp: gather, gather_elements, gather_nd. */
extern const cg_template cg_data_gather_template;
/* glsl/scatter.comp: scatter_elements, scatter_nd (cg_data_scatter.c; knobs
 * WG_SIZE and EPI). */
extern const cg_template cg_data_scatter_template;
/* glsl/shape.comp: shape (cg_shape.c; no knobs). */
extern const cg_template cg_shape_template;
/* glsl/data_resize.comp: resize nearest and linear. */
extern const cg_template cg_data_resize_template;

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
/* The canonical workload key of n: op, input and output types, attributes
 * (other than name) in attribute-id order, e.g.
 * "transpose(f32[2,3,4])->(f32[4,2,3]){perm=[2,0,1]}". Long keys end in a
 * hash of the full text. */
void cg_data_key(const ir_node *n, char *buf, int buf_bytes);
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
/* A transpose's output axes, innermost first, after size-1 axes are dropped
 * and contiguous ones merged: dims and input strides (elements). */
typedef struct cg_data_axes {
  int rank;
  int64_t d[IR_MAX_RANK], s[IR_MAX_RANK];
} cg_data_axes;
/* The output axis the input holds contiguously (stride 1) when it is not the
 * output's innermost: then the tiled transpose applies. Else -1. */
int cg_data_transpose_axis(const cg_data_axes *a);
/* Instantiates data_transpose (cg_data_transpose.c) for transpose node n
 * whose merged axes are a; UNSUPPORTED when it does not apply. */
vkml_status cg_data_transpose_tiled(const ir_node *n, const cg_data_axes *a, ir_dtype dt,
                                    const cg_template *st, const cg_schedule *s,
                                    const ir_target *t, cg_kernel *k);
/* The axis of n's `axis` attribute (default dflt) normalised for rank. */
vkml_status cg_data_axis(const ir_node *n, int rank, int64_t dflt, int *axis);
/* gather_elements / scatter_elements addressing: the indices' axes
 * (innermost first; size-1 ones dropped, contiguous ones merged) walking x
 * (C order): dims md, strides ms, the axis's stride 0 (it contributes
 * through the index, *axis_stride apart). Returns the count. */
/* Specialization constants 8 + i and 16 + i: the dims and strides of the
 * axes a gather or scatter template walks (data_gather.comp, scatter.comp). */
vkml_status cg_data_spec_axes(cg_kernel *k, int n, const int64_t *dims, const int64_t *strides);
int cg_data_index_walk(const ir_type *x, const ir_type *ind, int axis, int64_t *axis_stride,
                       int64_t *md, int64_t *ms);

#endif
