/* Vision ops: cumsum on the scan template (glsl/scan.comp), roi_align on
 * glsl/roi_align.comp, topk (a static k up to what shared memory holds) on
 * glsl/topk.comp. non_max_suppression runs in stages (cg_sort.c). */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_ops.h"
#include "codegen/cg_reduce.h"
#include "codegen/cg_vision.h"
#include "ir/bounds.h"
#include "ir/params.h"

const cg_template cg_roi_align_template = {
    .name = "roi_align",
    .glsl = "roi_align.comp",
    CG_ELEMENTWISE_SPACE,
};

const cg_template cg_topk_template = {
    .name = "topk",
    .glsl = "topk.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 5, {64, 128, 256, 512, 1024}}},
    .n_constraints = 3,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1},
                    /* the scan rows; the candidates are checked per workload */
                    {CG_LIMIT_SHARED_BYTES, 1u << 0, 8}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

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
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 0, (uint32_t)rows));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 1, (uint32_t)len));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 2, (uint32_t)inner));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 3, exclusive));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 4, reverse));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 5, (uint32_t)map));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 7, (uint32_t)tile_c));
  int64_t groups = map == MAP_BLOCKED ? rows
                   : map == MAP_TILED ? (inner ? rows / inner * ((inner + tile_c - 1) / tile_c) : 0)
                                      : (rows + wg - 1) / wg;
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, groups, 6, "cumsum"));
  out->n_buffers = 2;
  char attrs[80];
  snprintf(attrs, sizeof attrs, "{axis=%d,exclusive=%d,reverse=%d}", axis, exclusive, reverse);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

/* ---- roi_align ----------------------------------------------------------------- */

vkml_status cg_node_roi_align(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_roi_align_template));
  if (n->n_inputs != 3 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "roi_align: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_type *x = &n->inputs[0]->type, *rois = &n->inputs[1]->type;
  const ir_type *bi = &n->inputs[2]->type, *y = &n->outputs[0]->type;
  /* bounded: rois, batch indices and the output along R, the same
   * capacity; the kernel reads both counts and checks they agree */
  bool bounded = rois->bounded;
  for (int i = 0; i < 4; i++) {
    const ir_value *v = i < 3 ? n->inputs[i] : n->outputs[0];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "roi_align: packed layouts stay on the CPU");
    if (v->type.bounded != (bounded && i > 0) || (v->type.bounded && v->type.bounded_axis != 0))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "roi_align: the GPU kernel takes a run-time count of rois only "
                              "with rois, batch indices and output all bounded along R");
  }
  if (x->dtype != IR_F32 && x->dtype != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: %s is not f32 or f16 on the GPU",
                            ir_dtype_name(x->dtype));
  if (x->dtype == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "roi_align: f16 needs 16-bit storage, which %s lacks", t->name);
  if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != 4 || rois->dtype != x->dtype ||
      bi->rank != 1 || bi->dims[0] != rois->dims[0] || (bi->dtype != IR_I64 && bi->dtype != IR_I32) ||
      y->dtype != x->dtype || y->rank != 4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "roi_align: the GPU kernel takes x [N,C,H,W], rois [R,4] of x's "
                            "dtype and i64 or i32 batch indices [R]");
  /* the reference refuses an empty feature map when there is work */
  if (x->dims[2] == 0 || x->dims[3] == 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: empty feature map");
  int64_t oh = ir_node_int(n, IR_A_OUTPUT_HEIGHT, 1), ow = ir_node_int(n, IR_A_OUTPUT_WIDTH, 1);
  int64_t total = ir_type_numel(y);
  if (oh < 1 || ow < 1 || y->dims[0] != rois->dims[0] || y->dims[1] != x->dims[1] ||
      y->dims[2] != oh || y->dims[3] != ow)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "roi_align: output shape does not match");
  if (ir_type_numel(x) >= (INT64_C(1) << 31) || total >= (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: 2^31 elements or more");
  int64_t coord = ir_node_int(n, IR_A_COORD_MODE, IR_COORD_HALF_PIXEL);
  if (coord != IR_COORD_HALF_PIXEL && coord != IR_COORD_OUTPUT_HALF_PIXEL)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "roi_align: coordinate mode");
  int64_t ratio = ir_node_int(n, IR_A_SAMPLING_RATIO, 0);
  float scale = ir_node_float(n, IR_A_SPATIAL_SCALE, 1.0f);
  uint32_t scale_bits;
  memcpy(&scale_bits, &scale, sizeof scale_bits);
  bool max_mode = ir_node_int(n, IR_A_ROI_MODE, IR_ROI_AVG) == IR_ROI_MAX;

  if (!s) s = &cg_roi_align_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_roi_align_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "BI_I64", "%d", bi->dtype == IR_I64));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "BOUNDED", "%d", bounded));
  if (bounded) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 12, (uint32_t)(ir_type_extent_offset(rois, IR_LAYOUT_DEFAULT) / 4)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 13, (uint32_t)(ir_type_extent_offset(bi, IR_LAYOUT_DEFAULT) / 4)));
    out->extent_from = 2; /* the output's extent is the rois' */
  }
  uint32_t spec[11] = {(uint32_t)x->dims[0], (uint32_t)x->dims[1], (uint32_t)x->dims[2],
                       (uint32_t)x->dims[3], (uint32_t)rois->dims[0], (uint32_t)oh, (uint32_t)ow,
                       (uint32_t)(ratio < 0 ? 0 : ratio > 65537 ? 65537 : ratio), max_mode,
                       coord == IR_COORD_HALF_PIXEL, scale_bits};
  for (uint32_t i = 0; i < 11; i++) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, i, spec[i]));
  int64_t per_group = (int64_t)s->v[0] * s->v[1];
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, (total + per_group - 1) / per_group, 11, "roi_align"));
  out->n_buffers = 5;
  out->error_slot = true;
  char attrs[320];
  snprintf(attrs, sizeof attrs,
           "{mode=%s,output_height=%lld,output_width=%lld,sampling_ratio=%lld,"
           "spatial_scale=%.9g,coordinate_transformation_mode=%s}",
           max_mode ? "max" : "avg", (long long)oh, (long long)ow, (long long)ratio,
           (double)scale, coord == IR_COORD_HALF_PIXEL ? "half_pixel" : "output_half_pixel");
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

/* ---- topk ---------------------------------------------------------------------- */

/* topk with k an input (one row): K, the bound of k known at compile time
 * (ir/bounds.h) and at most the row's capacity; the extent words. */
static vkml_status topk_runtime_k(const ir_node *n, int axis, int64_t *k_bound,
                                  uint32_t words[3]) {
  const ir_type *x = &n->inputs[0]->type, *kt = &n->inputs[1]->type;
  const ir_type *vt = &n->outputs[0]->type, *it = &n->outputs[1]->type;
  if (kt->dtype != IR_I64 || ir_type_numel(kt) != 1 || kt->bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "topk: a run-time k on the GPU is one i64");
  for (int d = 0; d < x->rank; d++)
    if (d != axis && x->dims[d] != 1)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "topk: a run-time k runs on the GPU for one row only");
  if ((x->bounded && x->bounded_axis != axis) || !vt->bounded || vt->bounded_axis != axis ||
      !it->bounded || it->bounded_axis != axis)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: bounded along another axis than the selection's");
  int64_t hi;
  if (ir_int_upper_bounds(n->inputs[1], &hi, 1) != 1)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: no bound of the run-time k is known before the run (it "
                            "sizes the GPU kernel)");
  /* the outputs' capacity (k_max: passes/pass_bound_topk.c) caps it too; a
   * run-time k above K is an error the kernel reports */
  *k_bound = hi < 0 ? 0 : hi < x->dims[axis] ? hi : x->dims[axis];
  if (*k_bound > vt->dims[axis]) *k_bound = vt->dims[axis];
  words[0] = x->bounded ? (uint32_t)(ir_type_extent_offset(x, IR_LAYOUT_DEFAULT) / 4)
                        : 0xffffffffu;
  words[1] = (uint32_t)(ir_type_extent_offset(vt, IR_LAYOUT_DEFAULT) / 4);
  words[2] = (uint32_t)(ir_type_extent_offset(it, IR_LAYOUT_DEFAULT) / 4);
  return VKML_OK;
}

/* On a GPU, rows up to TOPK_FEW_ROWS of at least TOPK_WIDE_LEN elements
 * take the widest workgroup (see cg_node_topk). */
#define TOPK_FEW_ROWS 64
#define TOPK_WIDE_LEN 2048

vkml_status cg_node_topk(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_topk_template));
  bool runtime_k = n->n_inputs == 2;
  if ((n->n_inputs != 1 && !runtime_k) || n->n_outputs != 2)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_value *xv = n->inputs[0], *vv = n->outputs[0], *iv = n->outputs[1];
  const ir_type *x = &xv->type, *vt = &vv->type, *it = &iv->type;
  int dt = x->dtype == IR_F32 ? 0 : x->dtype == IR_F16 ? 1 : x->dtype == IR_I32 ? 2 : -1;
  if (dt < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "topk: %s is not f32, f16 or i32 on the GPU",
                            ir_dtype_name(x->dtype));
  if (dt == 1 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: f16 needs 16-bit storage, which %s lacks", t->name);
  if ((!runtime_k && (x->bounded || vt->bounded || it->bounded)) ||
      xv->layout != IR_LAYOUT_DEFAULT || vv->layout != IR_LAYOUT_DEFAULT ||
      iv->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: bounded tensors or packed layouts stay on the CPU");
  if (x->rank == 0) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk of a scalar");
  int axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis));
  const ir_attr *ka = ir_node_attr(n, IR_A_K);
  int64_t k = 0, len = x->dims[axis];
  uint32_t words[3] = {0xffffffffu, 0, 0};
  if (runtime_k)
    VKML_RETURN_IF_ERROR(topk_runtime_k(n, axis, &k, words));
  else if (!ka)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk needs k");
  else
    k = ka->u.i;
  if (k < 0 || k > len)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk: k = %lld outside [0, %lld]",
                            (long long)k, (long long)len);
  bool shape_ok = vt->dtype == x->dtype && it->dtype == IR_I64 && vt->rank == x->rank &&
                  it->rank == x->rank;
  int64_t cap = len; /* a run-time k's outputs: the axis, or k_max */
  const ir_attr *km = ir_node_attr(n, IR_A_K_MAX);
  if (km && km->u.i < cap) cap = km->u.i;
  for (int i = 0; shape_ok && i < x->rank; i++)
    shape_ok = vt->dims[i] == (i == axis ? (runtime_k ? cap : k) : x->dims[i]) &&
               it->dims[i] == vt->dims[i];
  if (!shape_ok)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk: output types do not match");
  if (ir_type_numel(x) >= (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "topk: 2^31 elements or more");
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; i++) outer *= x->dims[i];
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  int64_t rows = outer * inner;
  cg_schedule wide;
  if (!s) {
    s = &cg_topk_template.dflt;
    /* a few long rows (a detector's candidates): each workgroup streams its
     * row five times, so the widest workgroup the device allows keeps the
     * most loads in flight (a tuned schedule overrides). On a GPU, fewer
     * rows than workgroups it runs at once (the stages of a split TopK:
     * tens of blocks, then one row of their candidates) leave it idle while
     * a narrow workgroup walks its barriers: wide there too. */
    if ((rows <= 8 && len >= 65536) ||
        (ir_target_is_gpu(t) && rows <= TOPK_FEW_ROWS && len >= TOPK_WIDE_LEN)) {
      cg_schedule_widest(&cg_topk_template, t, &wide);
      s = &wide;
    }
  }
  int wg = s->v[0];
  /* the candidates, sorted in shared memory: k up to what it holds (larger
   * k needs the segmented sort) */
  int64_t p = 1;
  while (p < k) p *= 2;
  uint64_t shared = (uint64_t)p * 8 + 3 * 256 * 4 + (uint64_t)wg * 8 + 16;
  if (shared > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: k = %lld needs %llu bytes of shared memory, %s has %u", (long long)k,
                            (unsigned long long)shared, t->name, (unsigned)t->max_shared_bytes);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_topk_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE", "%d", dt));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "P", "%lld", (long long)p));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "RUNTIME_K", "%d", runtime_k));
  bool largest = ir_node_int(n, IR_A_LARGEST, 1) != 0;
  uint32_t spec[5] = {(uint32_t)rows, (uint32_t)len, (uint32_t)inner, (uint32_t)k, largest};
  for (uint32_t i = 0; i < 5; i++) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, i, spec[i]));
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, rows, 5, "topk"));
  if (runtime_k)
    for (uint32_t i = 0; i < 3; i++) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 6 + i, words[i]));
  out->n_buffers = runtime_k ? 5 : 3;
  out->error_slot = runtime_k;
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{k=%lld,axis=%d,largest=%d}", (long long)k, axis, largest);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
