/* GPU data movement, part 2: concat and split (glsl/data_concat.comp), one
 * dispatch each. Both see the tensor as [outer][row] with the row cut into
 * one block per part along the axis; the blocks' row offsets are baked, and
 * elements move in the widest units that divide every block. */
#include <string.h>

#include "codegen/cg_data.h"
#include "ir/params.h"

enum { SPEC_N = 0, SPEC_ROW = 1, SPEC_E = 8 };

/* parts[k] are the pieces (concat inputs / split outputs), whole the joined
 * tensor. Checks the shapes agree off the axis and the sizes add up. */
static vkml_status concat_like(const ir_node *n, const cg_template *tmpl, bool split,
                               const ir_type *whole, const ir_type *const *parts, int n_parts,
                               int axis, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *k) {
  const char *op = ir_op_name(n->op);
  if (n_parts < 1 || n_parts > CG_DATA_MAX_PARTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %d parts (the GPU kernel binds 1..%d)",
                            op, n_parts, CG_DATA_MAX_PARTS);
  int rank = whole->rank;
  int64_t sum = 0, blocks[CG_DATA_MAX_PARTS];
  int64_t inner = 1, outer = 1;
  for (int d = 0; d < rank; d++) {
    if (d < axis) outer *= whole->dims[d];
    if (d > axis) inner *= whole->dims[d];
  }
  for (int p = 0; p < n_parts; p++) {
    const ir_type *x = parts[p];
    bool ok = x->dtype == whole->dtype && x->rank == rank;
    for (int d = 0; ok && d < rank; d++) ok = d == axis || x->dims[d] == whole->dims[d];
    if (!ok)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "%s: part %d does not match the whole off axis %d", op, p, axis);
    blocks[p] = x->dims[axis] * inner;
    sum += x->dims[axis];
  }
  if (sum != whole->dims[axis])
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: the parts sum to %lld along axis %d, the whole has %lld", op,
                            (long long)sum, axis, (long long)whole->dims[axis]);

  VKML_RETURN_IF_ERROR(cg_data_begin(k, tmpl, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  int64_t es = (int64_t)ir_dtype_size(whole->dtype);
  int64_t g = cg_data_group(es, k->schedule.v[CG_DATA_KNOB_UNIT], blocks, n_parts);
  int64_t row = whole->dims[axis] * inner / g, units = outer * row;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, es * g, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SPLIT", "%d", split));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "N_PARTS", "%d", n_parts));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_ROW, (uint32_t)(row ? row : 1)));
  int64_t end = 0;
  for (int p = 0; p < n_parts; p++) {
    end += blocks[p] / g;
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_E + (uint32_t)p, (uint32_t)end));
  }
  k->n_buffers = n_parts + 1;
  return cg_data_grid(k, units, t);
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
