/* GPU data movement, part 2: concat and split (glsl/data_concat.comp), one
 * dispatch each. Both see the tensor as [outer][row] with the row cut into
 * one block per part along the axis; the blocks' row offsets are baked, and
 * elements move in the widest units that divide every block.
 *
 * Packed (nc4hw4, every part and the whole, along the channels): when every
 * part but the last has a multiple of 4 channels, each part is a run of
 * whole texels of the whole ([N][C4][H][W][4] cut along C4), so the same
 * kernel copies the padded tensors; the pad lanes of the last part are the
 * whole's and travel along (zero in, zero out). Otherwise the PACKED path:
 * one invocation per output texel gathers its lanes through the packed
 * addresses and writes 0 past the channels.
 *
 * Bounded (concat along the run-time sized axis of every part, nothing
 * before it): the parts follow one another at offsets their counts give,
 * read on the device (BOUNDED); the whole's count is their sum. */
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

/* parts of a packed kernel: the width of cg_node_layout_operands' mask */
#define PACKED_MAX_PARTS 16

/* parts[k] are the pieces (concat inputs / split outputs), whole the joined
 * tensor. Checks the shapes agree off the axis and the sizes add up. */
static vkml_status check_parts(const ir_node *n, const ir_type *whole,
                               const ir_type *const *parts, int n_parts, int axis) {
  const char *op = ir_op_name(n->op);
  if (n_parts < 1 || n_parts > CG_DATA_MAX_PARTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %d parts (the GPU kernel binds 1..%d)",
                            op, n_parts, CG_DATA_MAX_PARTS);
  int64_t sum = 0;
  for (int p = 0; p < n_parts; p++) {
    const ir_type *x = parts[p];
    bool ok = x->dtype == whole->dtype && x->rank == whole->rank;
    for (int d = 0; ok && d < whole->rank; d++) ok = d == axis || x->dims[d] == whole->dims[d];
    if (!ok)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "%s: part %d does not match the whole off axis %d", op, p, axis);
    sum += x->dims[axis];
  }
  if (sum != whole->dims[axis])
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: the parts sum to %lld along axis %d, the whole has %lld", op,
                            (long long)sum, axis, (long long)whole->dims[axis]);
  return VKML_OK;
}

/* The row kernel over checked parts (k begun, values checked). */
static vkml_status concat_emit(bool split, const ir_type *whole, const ir_type *const *parts,
                               int n_parts, int axis, const ir_target *t, cg_kernel *k) {
  int rank = whole->rank;
  int64_t blocks[CG_DATA_MAX_PARTS];
  int64_t inner = 1, outer = 1;
  for (int d = 0; d < rank; d++) {
    if (d < axis) outer *= whole->dims[d];
    if (d > axis) inner *= whole->dims[d];
  }
  for (int p = 0; p < n_parts; p++) blocks[p] = parts[p]->dims[axis] * inner;
  int64_t es = (int64_t)ir_dtype_size(whole->dtype);
  int64_t g = cg_data_group(es, k->schedule.v[CG_DATA_KNOB_UNIT], blocks, n_parts);
  int64_t row = whole->dims[axis] * inner / g, units = outer * row;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, es * g, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SPLIT", "%d", split));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "N_PARTS", "%d", n_parts));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_ROW, (uint32_t)(row ? row : 1)));
  int64_t end = 0;
  for (int p = 0; p < n_parts; p++) {
    end += blocks[p] / g;
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_E0 + (uint32_t)p, (uint32_t)end));
  }
  k->n_buffers = n_parts + 1;
  return cg_data_grid(k, units, t);
}

/* ---- bounded: a concat along the parts' run-time sized axis ----------------- */


static vkml_status concat_bounded(const ir_node *n, int axis, const cg_template *st,
                                  const cg_schedule *s, const ir_target *t, cg_kernel *k) {
  int np = n->n_inputs;
  const ir_value *y = n->outputs[0];
  bool ok = np >= 1 && np <= CG_DATA_MAX_PARTS;
  for (int i = 0; ok && i <= np; i++) {
    const ir_value *v = i < np ? n->inputs[i] : y;
    ok = cg_rows_leading(v) && v->type.bounded_axis == axis;
  }
  if (!ok)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "concat: bounded (run-time sized) parts join on the GPU only along "
                            "their bounded axis, every part and the whole bounded there with "
                            "nothing before it, at most %d parts",
                            CG_DATA_MAX_PARTS);
  /* the unbounded twin for the checks */
  cg_twin twin;
  VKML_RETURN_IF_ERROR(cg_twin_make(n, &twin));
  const ir_type *parts[CG_DATA_MAX_PARTS];
  for (int i = 0; i < np; i++) parts[i] = &twin.vals[i].type;
  vkml_status st_ = check_parts(&twin.node, &twin.vals[np].type, parts, np, axis);
  if (!st_) st_ = cg_data_begin(k, &cg_data_concat_template, &twin.node, st, s, t);
  if (!st_) st_ = cg_data_check_values(&twin.node, t);
  cg_twin_free(&twin);
  VKML_RETURN_IF_ERROR(st_);
  cg_data_key(n, k->key, (int)sizeof k->key); /* the bounded types */
  const ir_type *wt = &y->type;
  int64_t inner = 1;
  for (int d = axis + 1; d < wt->rank; d++) inner *= wt->dims[d];
  if (inner == 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "concat: empty rows");
  int64_t es = (int64_t)ir_dtype_size(wt->dtype);
  int64_t g = cg_data_group(es, k->schedule.v[CG_DATA_KNOB_UNIT], &inner, 1);
  int64_t ru = inner / g, units = wt->dims[axis] * ru;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, es * g, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SPLIT", "0"));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "N_PARTS", "%d", np));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "BOUNDED", "1"));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_RU, (uint32_t)ru));
  k->n_buffers = np + 1;
  return cg_data_grid(k, units, t);
}

/* ---- packed (nc4hw4) along the channels ------------------------------------ */

static bool is_packed(const ir_value *v) { return v && v->layout != IR_LAYOUT_DEFAULT; }

/* The [N, C4, H, W, 4] texel view of an nc4hw4 rank-4 type. */
static ir_type texel_view(const ir_type *x) {
  int64_t d[5] = {x->dims[0], (x->dims[1] + 3) / 4, x->dims[2], x->dims[3], 4};
  return ir_type_make(x->dtype, 5, d);
}

/* Every operand in nc4hw4, rank 4, along axis 1, a float type of 2 or 4
 * bytes, within 32-bit indexing and the storage-buffer range padded. */
static vkml_status check_packed(const ir_node *n, const ir_type *whole, int n_parts, int axis,
                                const ir_target *t) {
  const char *op = ir_op_name(n->op);
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->type.bounded)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: bounded (run-time sized) tensors run on the CPU", op);
    if (v->layout != IR_LAYOUT_NC4HW4)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: %%%s in layout %s: the packed kernel takes every part and "
                              "the whole in nc4hw4", op, v->name ? v->name : "?",
                              ir_layout_name(v->layout));
    int64_t bytes = ir_type_storage_bytes(&v->type, IR_LAYOUT_NC4HW4);
    if (bytes < 0 || bytes / (int64_t)ir_dtype_size(v->type.dtype) >= (INT64_C(1) << 31) ||
        (uint64_t)bytes > t->max_storage_buffer_range)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: %%%s: %lld packed bytes exceed 2^31 elements or the "
                              "storage-buffer range of %s", op, v->name ? v->name : "?",
                              (long long)bytes, t->name);
  }
  if (whole->rank != 4 || axis != 1 || (whole->dtype != IR_F32 && whole->dtype != IR_F16))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: nc4hw4 parts are joined along the channels of rank-4 f32 / "
                            "f16 tensors only", op);
  if (n_parts > PACKED_MAX_PARTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %d packed parts (at most %d)", op,
                            n_parts, PACKED_MAX_PARTS);
  return VKML_OK;
}

/* The workload key with the layout: the key is cut short enough to take
 * the suffix (a long key's hash covers the types and attributes). */
static void packed_key(const ir_node *n, cg_kernel *k) {
  static const char suffix[] = "{layout=nc4hw4}";
  cg_data_key(n, k->key, (int)(sizeof k->key - sizeof suffix));
  size_t len = strlen(k->key);
  memcpy(k->key + len, suffix, sizeof suffix);
}

/* One invocation per output texel; lanes gathered through the packed
 * addresses (glsl/data_concat.comp, PACKED). */
static vkml_status packed_gather(bool split, const ir_type *whole, const ir_type *const *parts,
                                 int n_parts, const ir_target *t, cg_kernel *k) {
  int64_t es = (int64_t)ir_dtype_size(whole->dtype);
  int64_t hw = whole->dims[2] * whole->dims[3], c4 = (whole->dims[1] + 3) / 4;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, es, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SPLIT", "%d", split));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "N_PARTS", "%d", n_parts));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACKED", "1"));
  int64_t texels = split ? 0 : whole->dims[0] * c4 * hw, c_end = 0;
  for (int p = 0; p < n_parts; p++) {
    c_end += parts[p]->dims[1];
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_E0 + (uint32_t)p, (uint32_t)c_end));
    if (split) {
      texels += whole->dims[0] * ((parts[p]->dims[1] + 3) / 4) * hw;
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_T0 + (uint32_t)p, (uint32_t)texels));
    }
  }
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_N, (uint32_t)texels));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_HW, (uint32_t)(hw ? hw : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_C4, (uint32_t)c4));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_CONCAT_C, (uint32_t)whole->dims[1]));
  k->n_buffers = n_parts + 1;
  return cg_data_grid(k, texels, t);
}

/* n's parts checked; every operand of n packed. */
static vkml_status concat_packed(const ir_node *n, const cg_template *tmpl, bool split,
                                 const ir_type *whole, const ir_type *const *parts, int n_parts,
                                 int axis, const cg_template *st, const cg_schedule *s,
                                 const ir_target *t, cg_kernel *k) {
  VKML_RETURN_IF_ERROR(check_packed(n, whole, n_parts, axis, t));
  VKML_RETURN_IF_ERROR(cg_data_begin(k, tmpl, n, st, s, t));
  packed_key(n, k);
  bool texel_aligned = true;
  for (int p = 0; p + 1 < n_parts; p++) texel_aligned = texel_aligned && parts[p]->dims[1] % 4 == 0;
  if (!texel_aligned) return packed_gather(split, whole, parts, n_parts, t, k);
  ir_type vwhole = texel_view(whole), vparts[PACKED_MAX_PARTS];
  const ir_type *pv[PACKED_MAX_PARTS];
  for (int p = 0; p < n_parts; p++) {
    vparts[p] = texel_view(parts[p]);
    pv[p] = &vparts[p];
  }
  return concat_emit(split, &vwhole, pv, n_parts, 1, t, k);
}

/* The kernel for checked parts in the operands' layouts. */
static vkml_status concat_like(const ir_node *n, const cg_template *tmpl, bool split,
                               const ir_type *whole, const ir_type *const *parts, int n_parts,
                               int axis, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *k) {
  VKML_RETURN_IF_ERROR(check_parts(n, whole, parts, n_parts, axis));
  bool packed = false;
  for (int i = 0; i < n->n_inputs; i++) packed = packed || is_packed(n->inputs[i]);
  for (int i = 0; i < n->n_outputs; i++) packed = packed || is_packed(n->outputs[i]);
  if (packed)
    return concat_packed(n, tmpl, split, whole, parts, n_parts, axis, st, s, t, k);
  VKML_RETURN_IF_ERROR(cg_data_begin(k, tmpl, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  return concat_emit(split, whole, parts, n_parts, axis, t, k);
}

vkml_status cg_node_concat(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->n_inputs < 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "concat: expects inputs and 1 output");
  const ir_type *y = &n->outputs[0]->type;
  if (!ir_node_attr(n, IR_A_AXIS))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "concat needs 'axis'");
  if (y->rank == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "concat: cannot concat scalars");
  int axis;
  VKML_RETURN_IF_ERROR(cg_data_axis(n, y->rank, 0, &axis));
  bool bounded = y->bounded;
  for (int i = 0; i < n->n_inputs; i++) bounded = bounded || n->inputs[i]->type.bounded;
  if (bounded) return concat_bounded(n, axis, st, s, t, out);
  const ir_type *parts[CG_DATA_MAX_PARTS];
  for (int i = 0; i < n->n_inputs && i < CG_DATA_MAX_PARTS; i++) parts[i] = &n->inputs[i]->type;
  return concat_like(n, &cg_data_concat_template, false, y, parts, n->n_inputs, axis, st, s,
                     t, out);
}

vkml_status cg_node_split(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->n_inputs != 1 || n->n_outputs < 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "split: expects 1 input and outputs");
  const ir_type *x = &n->inputs[0]->type;
  if (x->rank == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "split: cannot split a scalar");
  int axis;
  VKML_RETURN_IF_ERROR(cg_data_axis(n, x->rank, 0, &axis));
  /* the outputs must have the sizes the attribute (or equal parts) gives */
  const int64_t *split;
  int n_split = ir_node_ints(n, IR_A_SPLIT, &split);
  if (n_split >= 0 && n_split != n->n_outputs)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "split: %d sizes for %d outputs",
                            n_split, n->n_outputs);
  if (n_split < 0 && x->dims[axis] % n->n_outputs != 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "split: axis %d of size %lld does not split into %d equal parts",
                            axis, (long long)x->dims[axis], n->n_outputs);
  const ir_type *parts[CG_DATA_MAX_PARTS];
  for (int i = 0; i < n->n_outputs && i < CG_DATA_MAX_PARTS; i++) {
    parts[i] = &n->outputs[i]->type;
    int64_t want = n_split >= 0 ? split[i] : x->dims[axis] / n->n_outputs;
    if (parts[i]->rank != x->rank || parts[i]->dims[axis] != want)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "split: output %d has the wrong size along axis %d", i, axis);
  }
  return concat_like(n, &cg_data_split_template, true, x, parts, n->n_outputs, axis, st, s, t,
                     out);
}

const cg_template cg_data_concat_template = {"data_concat", "data_concat.comp", CG_DATA_KNOBS};

const cg_template cg_data_split_template = {"data_split", "data_concat.comp", CG_DATA_KNOBS};
