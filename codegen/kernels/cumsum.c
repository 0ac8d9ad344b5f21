/* cumsum on the scan template (glsl/scan.comp). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/bounds.h"
#include "ir/params.h"

enum { CG_SCAN_WG = 0, CG_SCAN_R = 1, CG_SCAN_MODE = 2 };

const cg_template cg_scan_template = {
    .name = "scan",
    .glsl = "scan.comp",
    .n_knobs = 3,
    .knobs = {{"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},
              {"R", 5, {1, 2, 4, 8, 16}},
              {"MODE", 4, {0, 1, 2, 3}}},
    .n_constraints = 3,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << CG_SCAN_WG, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << CG_SCAN_WG, 1},
                    /* the chunk (WG_SIZE * R accumulators of at most 8
                     * bytes) and two rows of WG_SIZE totals: <= 24 * WG * R */
                    {CG_LIMIT_SHARED_BYTES, (1u << CG_SCAN_WG) | (1u << CG_SCAN_R), 24}},
    .dflt = {{128, 4, 0}},
};

/* ---- cumsum ---------------------------------------------------------------- */

static int scan_dtype(ir_dtype dt) {
  switch (dt) {
  case IR_F32: return 0;
  case IR_F16: return 1;
  case IR_I32: return 2;
  case IR_I64: return 3;
  default: return -1;
  }
}

enum { MAP_SERIAL, MAP_BLOCKED, MAP_TILED };

/* Serial rows when they are short, or when neighbouring rows are
 * neighbouring in memory (the axis is not innermost) and there are enough
 * of them to fill a large GPU; a workgroup per row along a contiguous axis;
 * tiles of neighbouring columns otherwise (a workgroup per strided row
 * loads one element per row of memory). */
static int auto_mapping(int64_t rows, int64_t len, int64_t inner) {
  if (len <= 32) return MAP_SERIAL;
  if (inner == 1) return MAP_BLOCKED;
  if (rows >= 16384 || len <= 256) return MAP_SERIAL;
  return inner >= 16 ? MAP_TILED : MAP_BLOCKED;
}

vkml_status cg_node_cumsum(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_scan_template));
  if (n->n_inputs != 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "cumsum: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_value *xv = n->inputs[0], *yv = n->outputs[0];
  const ir_type *x = &xv->type, *y = &yv->type;
  int dt = scan_dtype(x->dtype);
  if (dt < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "cumsum: %s is not f32, f16, i32 or i64 on "
                            "the GPU", ir_dtype_name(x->dtype));
  if (x->dtype == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "cumsum: f16 needs 16-bit storage, which %s lacks", t->name);
  if (x->bounded || y->bounded || xv->layout != IR_LAYOUT_DEFAULT ||
      yv->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "cumsum: bounded tensors or packed layouts stay on the CPU");
  if (y->dtype != x->dtype || !ir_type_equal(x, y))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "cumsum: the output must have the input's dtype and shape");
  if (x->rank == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "cumsum of a scalar");
  /* element offsets are 32-bit in the shader */
  if (ir_type_numel(x) >= (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "cumsum: 2^31 elements or more");
  int axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis));
  bool exclusive = ir_node_int(n, IR_A_EXCLUSIVE, 0) != 0;
  bool reverse = ir_node_int(n, IR_A_REVERSE, 0) != 0;
  int64_t outer = 1, inner = 1, len = x->dims[axis];
  for (int i = 0; i < axis; i++) outer *= x->dims[i];
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  int64_t rows = outer * inner;

  if (!s) s = &cg_scan_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_scan_template, s, t));
  int wg = s->v[CG_SCAN_WG], mode = s->v[CG_SCAN_MODE];
  int map = mode == 0 ? auto_mapping(rows, len, inner) : mode - 1;
  if (rows == 0) map = MAP_SERIAL; /* nothing to do (and no tile arithmetic on 0) */
  /* tiles: 32 neighbouring columns (128 bytes of f32), down to 8 (a 32-byte
   * sector) while there are too few tiles to fill a large GPU (~512
   * workgroups): more invocations along the axis instead */
  int tile_c = wg >= 32 ? 32 : wg;
  while (map == MAP_TILED && tile_c > 8 && outer * ((inner + tile_c - 1) / tile_c) < 512)
    tile_c /= 2;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE", "%d", dt));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_ROWS, (uint32_t)rows));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_LEN, (uint32_t)len));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_INNER, (uint32_t)inner));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_EXCLUSIVE, exclusive));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_REVERSE, reverse));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_MAPPING, (uint32_t)map));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCAN_TILE_C, (uint32_t)tile_c));
  int64_t groups = map == MAP_BLOCKED ? rows
                   : map == MAP_TILED ? (inner ? rows / inner * ((inner + tile_c - 1) / tile_c) : 0)
                                      : (rows + wg - 1) / wg;
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, groups, CG_SPEC_SCAN_GX, "cumsum"));
  out->n_buffers = 2;
  char attrs[80];
  snprintf(attrs, sizeof attrs, "{axis=%d,exclusive=%d,reverse=%d}", axis, exclusive, reverse);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

