/* The segmented argsort's stages on glsl/sort.comp (sort_block,
 * sort_merge, sort_index) and non_max_suppression's on glsl/nms.comp
 * (nms_select, nms_compact). argsort and non_max_suppression themselves
 * have no kernel: the passes split_sort and split_nms turn them into these
 * stages when the placement lets them run on the GPU (cg_staged_reason
 * says whether their stages can). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_ops.h"
#include "codegen/cg_reduce.h"
#include "codegen/cg_rows.h"
#include "codegen/cg_sort.h"
#include "ir/params.h"

const cg_template cg_sort_template = {
    .name = "sort",
    .glsl = "sort.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 5, {64, 128, 256, 512, 1024}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

const cg_template cg_nms_template = {
    .name = "nms",
    .glsl = "nms.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 3, {64, 128, 256}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

enum { SORT_BLOCK, SORT_MERGE, SORT_INDEX };

static vkml_status fold(cg_kernel *out, const ir_target *t, int64_t groups, const char *op) {
  return cg_fold_grid(out, t, groups, 5, op);
}

/* Dense, unbounded, under 2^31 elements: what every stage needs. */
static vkml_status want_plain(const ir_node *n) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT || (v->type.bounded && n->op != IR_OP_NMS_COMPACT))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: bounded inputs or packed layouts stay on the CPU",
                              ir_op_name(n->op));
    if (ir_type_numel(&v->type) >= (INT64_C(1) << 31) / 3)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: too many elements for 32-bit indices",
                              ir_op_name(n->op));
  }
  return VKML_OK;
}

static int key_dtype(ir_dtype d) {
  return d == IR_F32 ? 0 : d == IR_F16 ? 1 : d == IR_I32 ? 2 : d == IR_I64 ? 3 : -1;
}

static vkml_status sort_stage(const ir_node *n, int stage, const cg_template *st,
                              const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_sort_template));
  VKML_RETURN_IF_ERROR(want_plain(n));
  const ir_type *x = &n->inputs[0]->type;
  bool offsets = n->n_inputs == 2;
  int dt = 0;
  if (stage == SORT_BLOCK) {
    dt = key_dtype(x->dtype);
    if (dt < 0)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "sort_block: %s keys stay on the CPU",
                              ir_dtype_name(x->dtype));
    if (dt == 1 && !t->storage_16bit)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "sort_block: f16 needs 16-bit storage, which %s lacks", t->name);
  }
  int64_t numel = stage == SORT_BLOCK ? ir_type_numel(x) : x->dims[1];
  int64_t len = 1, nseg = 1, width = ir_node_int(n, IR_A_WIDTH, 1), groups;
  if (offsets) nseg = n->inputs[1]->type.dims[0] - 1;
  if (stage == SORT_BLOCK) len = x->dims[x->rank - 1];
  if (stage == SORT_MERGE) len = ir_node_int(n, IR_A_ROW, 0);
  if (stage == SORT_INDEX && !offsets) {
    const int64_t *shape;
    int rank = ir_node_ints(n, IR_A_SHAPE, &shape);
    if (rank < 1) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "sort_index: no shape");
    len = shape[rank - 1];
  }
  if (!s) s = &cg_sort_template.dflt;
  int wg = s->v[0];
  if (stage == SORT_BLOCK) {
    uint64_t shared = (uint64_t)width * (dt == 3 ? 16 : 12);
    if (width < wg || width % wg)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "sort_block: a block of %lld is not a multiple of WG_SIZE %d",
                              (long long)width, wg);
    if (shared > t->max_shared_bytes)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "sort_block: a block of %lld needs %llu bytes of shared memory, "
                              "%s has %u",
                              (long long)width, (unsigned long long)shared, t->name,
                              (unsigned)t->max_shared_bytes);
  }
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_sort_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "STAGE", "%d", stage));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE", "%d", dt));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "OFFSETS", "%d", offsets));
  /* key words: two for i64 (the state's planes, less segment and position) */
  int keyw = stage == SORT_BLOCK ? (dt == 3 ? 2 : 1) : (int)x->dims[0] - 2;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "KEYW", "%d", keyw));
  if (stage == SORT_BLOCK)
    VKML_RETURN_IF_ERROR(cg_kernel_define(out, "R", "%lld", (long long)(width / wg)));
  bool largest = ir_node_int(n, IR_A_LARGEST, 0) != 0;
  if (stage != SORT_MERGE && !len) len = 1; /* an empty row: nothing to do */
  uint32_t spec[5] = {(uint32_t)numel, (uint32_t)len, (uint32_t)nseg, (uint32_t)width, largest};
  for (uint32_t i = 0; i < 5; i++) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, i, spec[i]));
  if (stage == SORT_BLOCK && !offsets) /* blocks from each row's start */
    groups = numel / len * ((len + width - 1) / width);
  else
    groups = (numel + (stage == SORT_BLOCK ? width : wg) - 1) / (stage == SORT_BLOCK ? width : wg);
  VKML_RETURN_IF_ERROR(fold(out, t, groups, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + 1;
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{width=%lld,row=%lld,largest=%d}", (long long)width,
           (long long)(stage == SORT_MERGE ? len : 0), largest);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_sort_block(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return sort_stage(n, SORT_BLOCK, st, s, t, out);
}

vkml_status cg_node_sort_merge(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return sort_stage(n, SORT_MERGE, st, s, t, out);
}

vkml_status cg_node_sort_index(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return sort_stage(n, SORT_INDEX, st, s, t, out);
}

/* ---- non_max_suppression --------------------------------------------------- */

/* The midpoint m = mm * 2^me between the threshold t and the next float,
 * and whether a quotient equal to m rounds up (t's last mantissa bit is
 * odd: ties go to even). */
void cg_nms_iou_midpoint(float t, uint32_t *mm, int32_t *me, bool *tie_up) {
  if (t == 0.0f) { /* the next float is 2^-149 */
    *mm = 1, *me = -150, *tie_up = false;
    return;
  }
  int e;
  double f = frexp((double)t, &e); /* t = f * 2^e, f in [0.5, 1) */
  uint32_t mant = (uint32_t)ldexp(f, 24);
  *mm = 2 * mant + 1;
  *me = e - 25;
  *tie_up = mant & 1;
}

static vkml_status nms_stage(const ir_node *n, int stage, const cg_template *st,
                             const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_nms_template));
  VKML_RETURN_IF_ERROR(want_plain(n));
  const ir_type *sel = stage ? &n->inputs[0]->type : &n->outputs[0]->type;
  bool f16 = false;
  if (!stage) {
    ir_dtype d = n->inputs[0]->type.dtype;
    if (d != IR_F32 && d != IR_F16)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "nms_select: %s boxes stay on the CPU",
                              ir_dtype_name(d));
    f16 = d == IR_F16;
    if (f16 && !t->storage_16bit)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "nms_select: f16 needs 16-bit storage, which %s lacks", t->name);
  }
  int64_t b = sel->dims[0], c = sel->dims[1], m = sel->dims[2];
  int64_t nb = stage ? 1 : n->inputs[0]->type.dims[1];
  if (!s) s = &cg_nms_template.dflt;
  /* the kept boxes in shared memory: up to what leaves room for the rest */
  int64_t kept = m < 1 ? 1 : m;
  uint64_t fixed = 64 * (16 + 4 + 3 + 8) + 64;
  if (kept > 1024) kept = 1024;
  while (kept > 1 && fixed + (uint64_t)kept * 16 > t->max_shared_bytes) kept /= 2;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_nms_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "STAGE", "%d", stage));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", f16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "KEPT_SHARED", "%lld", (long long)kept));
  /* the extent word after the capacity (ir_value_device_bytes), in word pairs */
  int64_t cap_bytes = b * c * m * 3 * 8;
  VKML_RETURN_IF_ERROR(
      cg_kernel_define(out, "EXTENT_AT", "%lldu", (long long)((cap_bytes + 15) / 16 * 2)));
  uint32_t mm = 1;
  int32_t me = 0;
  bool tie_up = false;
  float iou = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f);
  cg_nms_iou_midpoint(iou, &mm, &me, &tie_up);
  const ir_attr *sa = ir_node_attr(n, IR_A_SCORE_THRESHOLD);
  float sth = sa ? sa->u.f : 0.0f;
  uint32_t sth_bits;
  memcpy(&sth_bits, &sth, sizeof sth_bits);
  uint32_t spec[10] = {(uint32_t)b, (uint32_t)c, (uint32_t)nb, (uint32_t)m,
                       ir_node_int(n, IR_A_CENTER_POINT_BOX, 0) != 0, mm, (uint32_t)me,
                       tie_up, sa != NULL, sth_bits};
  for (uint32_t i = 0; i < 10; i++) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, i, spec[i]));
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, b * c, 10, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + 1;
  char attrs[160];
  snprintf(attrs, sizeof attrs,
           "{center_point_box=%d,iou_threshold=%.9g,score_threshold=%s%.9g}", (int)spec[4],
           (double)iou, sa ? "" : "none:", (double)sth);
  cg_node_key(n, stage ? "" : attrs, out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_nms_select(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return nms_stage(n, 0, st, s, t, out);
}

vkml_status cg_node_nms_compact(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                const ir_target *t, cg_kernel *out) {
  return nms_stage(n, 1, st, s, t, out);
}

/* ---- the staged ops ----------------------------------------------------------- */

static vkml_status staged(const ir_node *n) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED,
                          "%s has no kernel of its own: on the GPU it runs in stages "
                          "(passes split_sort / split_nms / split_nonzero)",
                          ir_op_name(n->op));
}

vkml_status cg_node_argsort(const ir_node *n, const cg_template *st, const cg_schedule *s,
                            const ir_target *t, cg_kernel *out) {
  (void)st, (void)s, (void)t, (void)out;
  return staged(n);
}

vkml_status cg_node_non_zero(const ir_node *n, const cg_template *st, const cg_schedule *s,
                             const ir_target *t, cg_kernel *out) {
  (void)st, (void)s, (void)t, (void)out;
  return staged(n);
}

vkml_status cg_node_non_max_suppression(const ir_node *n, const cg_template *st,
                                        const cg_schedule *s, const ir_target *t,
                                        cg_kernel *out) {
  (void)st, (void)s, (void)t, (void)out;
  return staged(n);
}

const char *cg_staged_reason(const ir_node *n, const ir_target *t, char *why, size_t bytes) {
  const ir_type *x = &n->inputs[0]->type;
  /* bounded and still on the GPU: one-row NMS (glsl/nms_window.comp), a
   * non_zero of a value whose rows lead (its stages read the count) */
  bool one_row = cg_nms_is_window(n) ||
                 (n->op == IR_OP_NON_ZERO && cg_rows_leading(n->inputs[0]));
  for (int i = 0; i < n->n_inputs; i++) {
    if (n->inputs[i]->type.bounded && !one_row)
      return "a bounded input stays on the CPU (but a one-row NMS's, a non_zero's whose rows "
             "lead)";
    if (ir_type_numel(&n->inputs[i]->type) >= (INT64_C(1) << 31) / 3)
      return "too many elements for 32-bit indices";
  }
  if (n->op == IR_OP_ARGSORT && key_dtype(x->dtype) < 0) {
    snprintf(why, bytes, "%s keys sort on the CPU (the GPU's order keys: f32, f16, i32, i64)",
             ir_dtype_name(x->dtype));
    return why;
  }
  if (n->op == IR_OP_NON_ZERO && (cg_nonzero_dtype(x->dtype) < 0 || x->rank > 8)) {
    snprintf(why, bytes, "non_zero of %s stays on the CPU", ir_dtype_name(x->dtype));
    return why;
  }
  if (n->op == IR_OP_NON_MAX_SUPPRESSION && x->dtype != IR_F32 && x->dtype != IR_F16) {
    snprintf(why, bytes, "%s boxes stay on the CPU", ir_dtype_name(x->dtype));
    return why;
  }
  if (x->dtype == IR_F16 && !t->storage_16bit) return "f16 needs 16-bit storage";
  if (t->max_shared_bytes < 1024 * 12) return "the device's shared memory is under 12 KiB";
  return NULL;
}
