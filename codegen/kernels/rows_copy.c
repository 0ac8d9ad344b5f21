/* Copies of leading rows counted on the device (glsl/rows_copy.comp):
 *   select: ONNX If between branches of different sizes, e.g. torchvision's
 *     batched NMS returning an empty i64[0] when there are no boxes and the
 *     bounded keep list otherwise; the condition is read on the device;
 *   slice: the first rows of a bounded value (keep[:300]);
 *   to_capacity: a bounded value's capacity as a static value, the live
 *     rows then a fill value (the first stage of a long topk with a
 *     run-time k, pass_split_topk);
 *   reshape (flatten, squeeze, unsqueeze) of a bounded value merging the
 *   axes after its bounded axis into it ([<=150,20,4] -> [<=3000,4]): each
 *   input row is Y_PER_A output rows.
 * y's rows are min(the chosen input's rows x Y_PER_A, y's capacity), its
 * extent word that count. Every operand is in the default layout with its rows leading
 * (cg_rows_leading: dims before the axis 1), so the live elements are a
 * prefix and the copy moves 32-bit words without looking at the dtype. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/dtype.h"
#include "ir/params.h"

const cg_template cg_rows_copy_template = {
    .name = "rows_copy", .glsl = "rows_copy.comp", .n_knobs = 0, .dflt = {{0}}};

#define DYNAMIC 0xffffffffu
#define WG 128

static vkml_status refuse(const ir_node *n, const char *why) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s", ir_op_name(n->op), why);
}

/* v's rows along its bounded axis, or a static v's along axis (-1: v is
 * one row), and the bytes of a row. */
static vkml_status operand(const ir_node *n, const ir_value *v, int axis, const ir_type *y,
                           uint32_t *rows, uint64_t *row_bytes) {
  const ir_type *t = &v->type;
  if (v->layout != IR_LAYOUT_DEFAULT || t->dtype != y->dtype)
    return refuse(n, "its operands differ in dtype or layout from the output");
  if (t->bounded) axis = t->bounded_axis;
  if (axis < 0) {
    *rows = 1;
    *row_bytes = (uint64_t)ir_type_bytes(t);
    return VKML_OK;
  }
  if (axis >= t->rank) return refuse(n, "its operands differ in rank");
  for (int d = 0; d < axis; d++)
    if (t->dims[d] != 1) return refuse(n, "the rows of a bounded value lead (dims before 1)");
  uint64_t rb = (uint64_t)ir_dtype_size(t->dtype);
  for (int d = axis + 1; d < t->rank; d++) rb *= (uint64_t)t->dims[d];
  *row_bytes = rb;
  *rows = t->bounded ? DYNAMIC : (uint32_t)t->dims[axis];
  return VKML_OK;
}

static vkml_status rows_copy(const ir_node *n, const ir_value *a, const ir_value *b,
                             const uint32_t *fill, const cg_template *st, const cg_schedule *s,
                             const ir_target *t, cg_kernel *out) {
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_rows_copy_template));
  const ir_value *y = n->outputs[0];
  const ir_type *yt = &y->type;
  if (y->layout != IR_LAYOUT_DEFAULT) return refuse(n, "the output is packed");
  /* to_capacity: y static, its rows along a's bounded axis */
  int axis = yt->bounded ? yt->bounded_axis : fill ? a->type.bounded_axis : -1;
  uint32_t ar, br = 0;
  uint64_t arb, brb = 0, yrb;
  VKML_RETURN_IF_ERROR(operand(n, a, axis, yt, &ar, &arb));
  if (b) VKML_RETURN_IF_ERROR(operand(n, b, axis, yt, &br, &brb));
  if (!b && yt->rank != a->type.rank && n->op != IR_OP_RESHAPE && n->op != IR_OP_FLATTEN &&
      n->op != IR_OP_SQUEEZE && n->op != IR_OP_UNSQUEEZE)
    return refuse(n, "its operand differs in rank from the output");
  if (b && (a->type.rank != yt->rank || b->type.rank != yt->rank))
    return refuse(n, "its operands differ in rank from the output");
  uint32_t yr;
  VKML_RETURN_IF_ERROR(operand(n, y, axis, yt, &yr, &yrb));
  /* an input row is y_per_a output rows (a reshape merging axes into the
   * bounded one), else the rows match */
  uint64_t y_per_a = yrb && arb % yrb == 0 ? arb / yrb : 0;
  if (!y_per_a || (b && brb != arb) || (b && y_per_a != 1))
    return refuse(n, "its operands' rows are not whole output rows");
  if (ar != DYNAMIC && (uint64_t)ar * y_per_a > UINT32_MAX / 2)
    return refuse(n, "2 GiB or more");
  uint64_t cap_rows = axis < 0 ? 1 : (uint64_t)yt->dims[axis];
  uint64_t words = (cap_rows * yrb + 3) / 4;
  if (cap_rows * yrb >= UINT32_MAX / 2 || (uint64_t)ir_type_bytes(&a->type) >= UINT32_MAX / 2 ||
      (b && (uint64_t)ir_type_bytes(&b->type) >= UINT32_MAX / 2))
    return refuse(n, "2 GiB or more");
  if (!s) s = &cg_rows_copy_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_rows_copy_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "SELECT", "%d", b ? 1 : 0));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "FILL", "%d", fill ? 1 : 0));
  if (fill) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_ROWS_COPY_FILL0, fill[0]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_ROWS_COPY_FILL1, fill[1]));
  }
  const cg_spec_value specs[] = {
      {CG_SPEC_ROWS_COPY_ROW_BYTES, (uint32_t)yrb}, {CG_SPEC_ROWS_COPY_A_ROWS, ar},
      {CG_SPEC_ROWS_COPY_B_ROWS, br},               {CG_SPEC_ROWS_COPY_Y_ROWS, (uint32_t)cap_rows},
      {CG_SPEC_ROWS_COPY_Y_PER_A, (uint32_t)y_per_a},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  uint64_t groups = (words + WG - 1) / WG, mx = t->max_workgroup_count[0];
  if (!groups) groups = 1;
  if (mx && groups > mx) groups = mx;
  out->groups[0] = (uint32_t)groups;
  out->groups[1] = out->groups[2] = 1;
  out->n_buffers = n->n_inputs + 1;
  cg_node_key(n, "", out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_select(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->n_inputs != 3 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "select: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_type *c = &n->inputs[0]->type;
  if (c->dtype != IR_BOOL || c->bounded || ir_type_numel(c) != 1)
    return refuse(n, "the condition is not one bool");
  return rows_copy(n, n->inputs[1], n->inputs[2], NULL, st, s, t, out);
}

static vkml_status rows_slice(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  const ir_value *x = n->inputs[0];
  const ir_type *xt = &x->type;
  if (!xt->bounded || !cg_rows_leading(x) || !n->outputs[0]->type.bounded)
    return refuse(n, "a bounded value is sliced on the GPU along its bounded axis only, "
                     "its rows leading");
  /* along the bounded axis: from 0 to a non-negative end, step 1 (an end
   * counted from the back would be relative to the run-time size); every
   * other axis whole */
  const int64_t *starts, *ends, *axes, *steps;
  int ns = ir_node_ints(n, IR_A_STARTS, &starts), ne = ir_node_ints(n, IR_A_ENDS, &ends);
  int na = ir_node_ints(n, IR_A_AXES, &axes), nst = ir_node_ints(n, IR_A_STEPS, &steps);
  if (ns < 0 || ne != ns || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "slice: malformed starts/ends");
  for (int i = 0; i < ns; i++) {
    int ax = i;
    if (na >= 0) VKML_RETURN_IF_ERROR(ir_axis_normalize(axes[i], xt->rank, &ax));
    int64_t st1 = nst >= 0 ? steps[i] : 1;
    bool whole = starts[i] == 0 && st1 == 1 && ends[i] >= xt->dims[ax];
    if (ax == xt->bounded_axis ? (starts[i] != 0 || st1 != 1 || ends[i] < 0) : !whole)
      return refuse(n, "a bounded value is sliced on the GPU only to its first rows "
                       "(start 0, step 1, an end >= 0), other axes whole");
  }
  return rows_copy(n, x, NULL, NULL, st, s, t, out);
}

static vkml_status rows_reshape(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  if (!x->type.bounded || !y->type.bounded || !cg_rows_leading(x) || !cg_rows_leading(y))
    return refuse(n, "a bounded value is reshaped on the GPU only with its rows leading, "
                     "before and after");
  return rows_copy(n, x, NULL, NULL, st, s, t, out);
}

vkml_status cg_node_to_capacity(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  const ir_value *x = n->inputs[0];
  if (!x->type.bounded || !cg_rows_leading(x) || n->outputs[0]->type.bounded)
    return refuse(n, "the input must be bounded, its rows leading");
  /* the fill value's bits, replicated to 32-bit words (even, odd) */
  float v = ir_node_float(n, IR_A_VALUE, 0.0f);
  uint32_t fill[2];
  switch (x->type.dtype) {
  case IR_F32: memcpy(&fill[0], &v, 4); fill[1] = fill[0]; break;
  case IR_F16: {
    uint32_t h = ir_f32_to_f16(v);
    fill[0] = fill[1] = h | h << 16;
    break;
  }
  case IR_I32: fill[0] = fill[1] = (uint32_t)(int32_t)v; break;
  case IR_I64: {
    uint64_t w = (uint64_t)(int64_t)v;
    fill[0] = (uint32_t)w, fill[1] = (uint32_t)(w >> 32);
    break;
  }
  default: return refuse(n, "f32, f16, i32 or i64 only");
  }
  return rows_copy(n, x, NULL, fill, st, s, t, out);
}

vkml_status cg_node_rows_copy(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  if (n->n_inputs != 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %d inputs, %d outputs",
                            ir_op_name(n->op), n->n_inputs, n->n_outputs);
  if (n->op == IR_OP_SLICE) return rows_slice(n, st, s, t, out);
  return rows_reshape(n, st, s, t, out);
}
