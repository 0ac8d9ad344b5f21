/* GPU data movement, part 5: transpose through shared-memory tiles
 * (glsl/data_transpose.comp). The strided copy (data_copy) reads a true
 * transpose with a stride between neighbouring invocations; the tiled
 * kernel reads and writes whole rows. cg_node_transpose (cg_data.c) picks it
 * by default when both tile edges are at least 8 elements. */
#include <string.h>

#include "codegen/cg_data.h"

enum { KNOB_TILE = 0, KNOB_ROWS = 1 };
enum { SPEC_TILES_J = 0, SPEC_TILES_I = 1, SPEC_GROUPS = 2, SPEC_DJ = 3, SPEC_SJ = 4,
       SPEC_DI = 5, SPEC_OI = 6, SPEC_RANK = 7, SPEC_BD = 8, SPEC_BS = 16, SPEC_BO = 24 };

/* Shared memory is TILE * (TILE + 1) elements of at most 8 bytes (or
 * TILE * (TILE / 2 + 1) words of 16-bit pairs): 8.25 KiB at TILE 32, inside
 * the 16 KiB every device has, so no constraint on it. */
const cg_template cg_data_transpose_template = {
    .name = "data_transpose",
    .glsl = "data_transpose.comp",
    .n_knobs = 2,
    .knobs = {{"TILE", 3, {8, 16, 32}}, {"ROWS", 6, {1, 2, 4, 8, 16, 32}}},
    .n_constraints = 3,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << KNOB_TILE, 1},
                    {CG_LIMIT_WORKGROUP_Y, 1u << KNOB_ROWS, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, (1u << KNOB_TILE) | (1u << KNOB_ROWS), 1}},
    .dflt = {{32, 4}},
};

int cg_data_transpose_axis(const cg_data_axes *a) {
  if (a->rank < 2 || a->s[0] == 1) return -1;
  for (int i = 1; i < a->rank; i++)
    if (a->s[i] == 1) return i;
  return -1;
}

vkml_status cg_data_transpose_tiled(const ir_node *n, const cg_data_axes *a, ir_dtype dt,
                                    const cg_template *st, const cg_schedule *s,
                                    const ir_target *t, cg_kernel *k) {
  int p = cg_data_transpose_axis(a);
  if (p < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "data_transpose: %s keeps the input's contiguous axis innermost "
                            "(data_copy runs it)", ir_op_name(n->op));
  VKML_RETURN_IF_ERROR(cg_data_begin(k, &cg_data_transpose_template, n, st, s, t));
  int64_t tile = k->schedule.v[KNOB_TILE];
  /* 16-bit elements move in pairs when every offset is even */
  bool pack = ir_dtype_size(dt) == 2 && a->d[0] % 2 == 0 && a->d[p] % 2 == 0 && a->s[0] % 2 == 0;
  for (int i = 1; i < a->rank && pack; i++) pack = i == p || a->s[i] % 2 == 0;
  int64_t edge = tile;
  int64_t out_stride[IR_MAX_RANK], run = 1, batch = 1;
  for (int i = 0; i < a->rank; i++) {
    out_stride[i] = run;
    run *= a->d[i];
    if (i != 0 && i != p) batch *= a->d[i];
  }
  int64_t tiles_j = (a->d[0] + edge - 1) / edge, tiles_i = (a->d[p] + edge - 1) / edge;
  int64_t groups = tiles_j * tiles_i * batch;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, pack ? 4 : (int64_t)ir_dtype_size(dt), t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACK", "%d", pack));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_TILES_J, (uint32_t)tiles_j));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_TILES_I, (uint32_t)tiles_i));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_GROUPS, (uint32_t)groups));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_DJ, (uint32_t)a->d[0]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_SJ, (uint32_t)a->s[0]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_DI, (uint32_t)a->d[p]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_OI, (uint32_t)out_stride[p]));
  uint32_t b = 0;
  for (int i = 1; i < a->rank; i++) {
    if (i == p) continue;
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_BD + b, (uint32_t)a->d[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_BS + b, (uint32_t)a->s[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_BO + b, (uint32_t)out_stride[i]));
    b++;
  }
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_RANK, b));
  k->n_buffers = 2;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "data_transpose: %lld workgroups exceed "
                            "the grid of %s", (long long)groups, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}
