/* GPU data movement, part 4: scatter_elements and scatter_nd
 * (glsl/scatter.comp). The step copies the data into the output first
 * (cg_kernel.copy_input0), then one invocation per update element writes it
 * in place, reductions by a compare-and-swap loop on the 32-bit word that
 * holds the element. Declined (the node goes to the CPU): reductions on
 * 8-byte elements (i64: no 64-bit atomics asked of the device). */
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

const cg_template cg_data_scatter_template = {
    "data_scatter", "scatter.comp", .n_knobs = 2,
    .knobs = {{"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}}, {"EPI", 4, {1, 2, 4, 8}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1}, {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128, 1}}};


/* scatter_elements over run-time counts: data, indices, updates and output
 * bounded along the scatter axis, leading (codegen/core/extent.h), one
 * capacity. The kernel is n's unbounded twin at the capacity; it reads
 * the counts through the extent ABI (glsl/scatter.comp). */
typedef struct scatter_rows {
  bool on;
  cg_twin twin;
  int64_t cap;
} scatter_rows;

static vkml_status rows_begin(const ir_node **n, scatter_rows *r) {
  const ir_node *m = *n;
  r->on = false;
  r->twin.vals = NULL;
  r->twin.ptrs = NULL;
  if (!cg_node_any_bounded(m)) return VKML_OK;
  const char *op = ir_op_name(m->op);
  bool ok = m->op == IR_OP_SCATTER_ELEMENTS && m->n_inputs == 3 && m->n_outputs == 1;
  int axis = 0;
  if (ok) {
    vkml_status s = ir_axis_normalize(ir_node_int(m, IR_A_AXIS, 0), m->inputs[0]->type.rank, &axis);
    ok = !s;
    vkml_status_free(s);
  }
  for (int i = 0; ok && i < 4; i++) {
    const ir_value *v = i < 3 ? m->inputs[i] : m->outputs[0];
    ok = cg_rows_leading(v) && v->type.bounded_axis == axis &&
         v->type.dims[axis] == m->inputs[0]->type.dims[axis];
  }
  if (!ok)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: bounded (run-time sized) operands run on the GPU only for "
                            "scatter_elements with data, indices, updates and output bounded "
                            "along the scatter axis",
                            op);
  r->cap = m->inputs[0]->type.dims[axis];
  VKML_RETURN_IF_ERROR(cg_twin_make(m, &r->twin));
  r->on = true;
  *n = &r->twin.node;
  return VKML_OK;
}

static vkml_status rows_end(const scatter_rows *r, int64_t n_upd, cg_kernel *out) {
  if (!r->on) return VKML_OK;
  VKML_RETURN_IF_ERROR(
      cg_kernel_spec(out, CG_SPEC_SCATTER_ROW_UNITS, (uint32_t)(r->cap ? n_upd / r->cap : 0)));
  out->extent_from = 1; /* input 0, the data */
  return VKML_OK;
}

/* Checks shared by both ops; the element's defines. */
static vkml_status begin(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out, ir_scatter_reduction *red) {
  memset(out, 0, sizeof *out);
  const char *op = ir_op_name(n->op);
  if (n->n_inputs != 3 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: expects 3 inputs and 1 output",
                            op);
  const ir_type *x = &n->inputs[0]->type, *ind = &n->inputs[1]->type, *y = &n->outputs[0]->type;
  if (ind->dtype != IR_I32 && ind->dtype != IR_I64)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: indices must be i32 or i64, got %s",
                            op, ir_dtype_name(ind->dtype));
  if (!ir_type_equal(x, y) || n->inputs[2]->type.dtype != x->dtype)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: output and updates must match data",
                            op);
  for (int i = 0; i < 3; i++)
    if (n->inputs[i]->type.bounded)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: bounded input %d on the GPU", op, i);
  *red = (ir_scatter_reduction)ir_node_int(n, IR_A_REDUCTION, IR_SCATTER_NONE);
  size_t es = ir_dtype_size(x->dtype);
  if (es == 8 && *red != IR_SCATTER_NONE)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: reduction on %s data (needs 64-bit atomics) on the GPU", op,
                            ir_dtype_name(x->dtype));
  VKML_RETURN_IF_ERROR(cg_data_begin(out, &cg_data_scatter_template, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  int dt = x->dtype == IR_F32 ? 0 : x->dtype == IR_F16 ? 1 : x->dtype == IR_I32 || x->dtype == IR_I8 ? 2 : 3;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "ES", "%d", (int)es));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DT", "%d", dt));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "RED", "%d", (int)*red));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "IDX64", "%d", ind->dtype == IR_I64));
  out->n_buffers = 5;
  out->error_slot = true;
  out->copy_input0 = true;
  return VKML_OK;
}

static vkml_status scatter_elements_kernel(const ir_node *n, const scatter_rows *rows,
                                           const cg_template *st, const cg_schedule *s,
                                           const ir_target *t, cg_kernel *out) {
  ir_scatter_reduction red;
  VKML_RETURN_IF_ERROR(begin(n, st, s, t, out, &red));
  const ir_type *x = &n->inputs[0]->type, *ind = &n->inputs[1]->type;
  int rank = x->rank, axis;
  VKML_RETURN_IF_ERROR(cg_data_axis(n, rank, 0, &axis));
  if (ind->rank != rank || n->inputs[2]->type.rank != rank ||
      memcmp(ind->dims, n->inputs[2]->type.dims, sizeof(int64_t) * (size_t)rank))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "scatter_elements: indices and updates must have data's rank and "
                            "one shape");
  int64_t n_upd = ir_type_numel(ind);
  int64_t axs, md[IR_MAX_RANK], ms[IR_MAX_RANK];
  int m = n_upd > 0 ? cg_data_index_walk(x, ind, axis, &axs, md, ms) : 0;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MODE", "0"));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_N, (uint32_t)n_upd));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_DIM, (uint32_t)x->dims[axis]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_AXS, (uint32_t)axs));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_RANK, (uint32_t)m));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_AXIS, (uint32_t)axis));
  VKML_RETURN_IF_ERROR(cg_data_spec_axes(out, m, md, ms));
  VKML_RETURN_IF_ERROR(rows_end(rows, n_upd, out));
  return cg_data_grid(out, n_upd, t);
}

vkml_status cg_node_scatter_elements(const ir_node *n, const cg_template *st,
                                     const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  scatter_rows rows;
  VKML_RETURN_IF_ERROR(rows_begin(&n, &rows));
  vkml_status r = scatter_elements_kernel(n, &rows, st, s, t, out);
  cg_twin_free(&rows.twin);
  return r;
}

vkml_status cg_node_scatter_nd(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  ir_scatter_reduction red;
  VKML_RETURN_IF_ERROR(begin(n, st, s, t, out, &red));
  ir_nd_params p;
  vkml_status ps = ir_nd_params_get(&n->inputs[0]->type, &n->inputs[1]->type, 0, &p);
  if (ps) return vkml_status_annotate(ps, "scatter_nd");
  int64_t n_upd = p.tuples * p.slice;
  if (ir_type_numel(&n->inputs[2]->type) != n_upd)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "scatter_nd: updates have %lld elements, "
                            "expected %lld", (long long)ir_type_numel(&n->inputs[2]->type),
                            (long long)n_upd);
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MODE", "1"));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_N, (uint32_t)n_upd));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_SLICE, (uint32_t)(p.slice ? p.slice : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SCATTER_RANK, (uint32_t)p.k));
  VKML_RETURN_IF_ERROR(cg_data_spec_axes(out, p.k, p.dims, p.strides));
  return cg_data_grid(out, n_upd, t);
}
