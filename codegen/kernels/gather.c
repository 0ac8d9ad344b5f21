/* GPU data movement, part 3: gather and gather_elements
 * (glsl/data_gather.comp) with i32 or i64 indices. An index out of range
 * (after one wrap of negatives) is reported through the step's error slot,
 * as the CPU reference reports it, and clamped: the kernel never reads out
 * of bounds. */
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"



static vkml_status check_io(const ir_node *n, const ir_type **x, const ir_type **ind,
                            const ir_type **y) {
  const char *op = ir_op_name(n->op);
  if (n->n_inputs != 2 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: expects 2 inputs and 1 output",
                            op);
  *x = &n->inputs[0]->type;
  *ind = &n->inputs[1]->type;
  *y = &n->outputs[0]->type;
  if ((*ind)->dtype != IR_I32 && (*ind)->dtype != IR_I64)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: indices must be i32 or i64, got %s",
                            op, ir_dtype_name((*ind)->dtype));
  if ((*x)->rank == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: cannot gather from a scalar", op);
  return VKML_OK;
}

static vkml_status check_out(const ir_node *n, const ir_type *y, ir_dtype dt, int rank,
                             const int64_t *dims) {
  ir_type want = ir_type_make(dt, rank, dims);
  if (!ir_type_equal(&want, y)) {
    char a[160], b[160];
    ir_type_format(&want, a, sizeof a);
    ir_type_format(y, b, sizeof b);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: output is %s, expected %s",
                            ir_op_name(n->op), b, a);
  }
  return VKML_OK;
}

/* Bounded indices, a run-time count of index rows: indices and output
 * bounded along a leading axis (codegen/core/extent.h) of the same capacity;
 * data not bounded, or (gather) bounded along the gathered axis, leading.
 * The kernel is n's unbounded twin at the capacity; it reads the count
 * through the extent ABI, and invocations past count x the output units
 * per row return before reading an index; indices are checked against the
 * data's run-time size when it is bounded; the output takes the indices'
 * extent (IR_STEP_EXTENT_FROM). */
typedef struct gather_rows {
  bool on;
  cg_twin twin;
  int64_t cap;
} gather_rows;

static vkml_status rows_begin(const ir_node **n, gather_rows *r) {
  const ir_node *m = *n;
  r->on = false;
  r->twin.vals = NULL;
  r->twin.ptrs = NULL;
  if (!cg_node_any_bounded(m)) return VKML_OK;
  int axis = -1;
  const ir_type *xt = &m->inputs[0]->type;
  if (m->op == IR_OP_GATHER && xt->bounded) {
    vkml_status s = ir_axis_normalize(ir_node_int(m, IR_A_AXIS, 0), xt->rank, &axis);
    if (s) {
      vkml_status_free(s);
      axis = -1;
    }
  }
  if (m->n_inputs != 2 || m->n_outputs != 1 ||
      (xt->bounded && (axis != xt->bounded_axis || !cg_rows_leading(m->inputs[0]))) ||
      !cg_rows_leading(m->inputs[1]) || !cg_rows_leading(m->outputs[0]) ||
      m->inputs[1]->type.bounded_axis == m->inputs[1]->type.rank - (m->op == IR_OP_GATHER_ND) ||
      (m->op == IR_OP_GATHER_ND && ir_node_int(m, IR_A_BATCH_DIMS, 0) != 0))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: a bounded (run-time sized) operand runs on the GPU only as "
                            "indices with a run-time count of leading rows (and, for gather, "
                            "data bounded along the gathered axis)",
                            ir_op_name(m->op));
  const ir_type *it = &m->inputs[1]->type, *yt = &m->outputs[0]->type;
  r->cap = it->dims[it->bounded_axis];
  if (yt->dims[yt->bounded_axis] != r->cap)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: output and indices differ in capacity",
                            ir_op_name(m->op));
  VKML_RETURN_IF_ERROR(cg_twin_make(m, &r->twin));
  r->on = true;
  *n = &r->twin.node;
  return VKML_OK;
}

static vkml_status rows_end(const gather_rows *r, int64_t units, cg_kernel *out) {
  if (!r->on) return VKML_OK;
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_ROW_UNITS,
                                      (uint32_t)(r->cap ? units / r->cap : 0)));
  out->extent_from = 2; /* input 1, the indices */
  return VKML_OK;
}

/* A gather kernel for n (or, over run-time counts of index rows, for its
 * unbounded twin: rows_begin), the twin freed on every path. */
typedef vkml_status (*gather_kernel_fn)(const ir_node *, const gather_rows *,
                                        const cg_template *, const cg_schedule *,
                                        const ir_target *, cg_kernel *);
static vkml_status with_rows(gather_kernel_fn fn, const ir_node *n, const cg_template *st,
                             const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  gather_rows rows;
  VKML_RETURN_IF_ERROR(rows_begin(&n, &rows));
  vkml_status r = fn(n, &rows, st, s, t, out);
  cg_twin_free(&rows.twin);
  return r;
}

/* An empty axis has no index to clamp to: the reference rejects any index. */
static vkml_status check_dim(const ir_node *n, int64_t dim, int64_t n_out) {
  if (dim == 0 && n_out > 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: indices into an empty axis are all out of range",
                            ir_op_name(n->op));
  return VKML_OK;
}

static vkml_status gather_kernel(const ir_node *n, const gather_rows *rows, const cg_template *st,
                        const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  const ir_type *x = NULL, *ind = NULL, *y = NULL;
  VKML_RETURN_IF_ERROR(check_io(n, &x, &ind, &y));
  int axis;
  VKML_RETURN_IF_ERROR(cg_data_axis(n, x->rank, 0, &axis));
  int rank = x->rank - 1 + ind->rank;
  if (rank > IR_MAX_RANK)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "gather: output rank %d exceeds %d",
                            rank, IR_MAX_RANK);
  int64_t dims[IR_MAX_RANK], outer = 1, inner = 1, n_idx = ir_type_numel(ind);
  int r = 0;
  for (int d = 0; d < axis; d++) outer *= dims[r++] = x->dims[d];
  for (int d = 0; d < ind->rank; d++) dims[r++] = ind->dims[d];
  for (int d = axis + 1; d < x->rank; d++) inner *= dims[r++] = x->dims[d];
  VKML_RETURN_IF_ERROR(check_out(n, y, x->dtype, rank, dims));
  int64_t n_out = outer * n_idx * inner, dim = x->dims[axis];
  VKML_RETURN_IF_ERROR(check_dim(n, dim, n_out));

  VKML_RETURN_IF_ERROR(cg_data_begin(out, &cg_data_gather_template, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  int64_t es = (int64_t)ir_dtype_size(x->dtype);
  int64_t g = cg_data_group(es, out->schedule.v[CG_DATA_KNOB_UNIT], &inner, 1);
  VKML_RETURN_IF_ERROR(cg_data_define_unit(out, es * g, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MODE", "0"));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "IDX64", "%d", ind->dtype == IR_I64));
  int64_t units = n_out / g;
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_INNER, (uint32_t)(inner ? inner / g : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_NIDX, (uint32_t)(n_idx ? n_idx : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_DIM, (uint32_t)dim));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_AXIS, (uint32_t)axis));
  VKML_RETURN_IF_ERROR(rows_end(rows, units, out));
  out->n_buffers = 4;
  out->error_slot = true;
  return cg_data_grid(out, units, t);
}
vkml_status cg_node_gather(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  return with_rows(gather_kernel, n, st, s, t, out);
}

vkml_status cg_node_gather_elements(const ir_node *n, const cg_template *st,
                                    const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  const ir_type *x = NULL, *ind = NULL, *y = NULL;
  VKML_RETURN_IF_ERROR(check_io(n, &x, &ind, &y));
  int rank = x->rank, axis;
  VKML_RETURN_IF_ERROR(cg_data_axis(n, rank, 0, &axis));
  if (ind->rank != rank)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "gather_elements: indices have rank %d, data rank %d", ind->rank,
                            rank);
  for (int d = 0; d < rank; d++)
    if (d != axis && ind->dims[d] > x->dims[d])
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "gather_elements: indices dim %d (%lld) exceeds data's (%lld)", d,
                              (long long)ind->dims[d], (long long)x->dims[d]);
  VKML_RETURN_IF_ERROR(check_out(n, y, x->dtype, rank, ind->dims));
  int64_t n_out = ir_type_numel(ind), dim = x->dims[axis];
  VKML_RETURN_IF_ERROR(check_dim(n, dim, n_out));

  VKML_RETURN_IF_ERROR(cg_data_begin(out, &cg_data_gather_template, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  int64_t axs, md[IR_MAX_RANK], ms[IR_MAX_RANK];
  int m = n_out > 0 ? cg_data_index_walk(x, ind, axis, &axs, md, ms) : 0;
  int64_t es = (int64_t)ir_dtype_size(x->dtype);
  VKML_RETURN_IF_ERROR(cg_data_define_unit(out, es, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MODE", "1"));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "IDX64", "%d", ind->dtype == IR_I64));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_N, (uint32_t)n_out));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_DIM, (uint32_t)dim));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_AXS, (uint32_t)axs));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_RANK, (uint32_t)m));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_AXIS, (uint32_t)axis));
  VKML_RETURN_IF_ERROR(cg_data_spec_axes(out, m, md, ms));
  out->n_buffers = 4;
  out->error_slot = true;
  return cg_data_grid(out, n_out, t);
}

static vkml_status gather_nd_kernel(const ir_node *n, const gather_rows *rows, const cg_template *st,
                        const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  const ir_type *x = NULL, *ind = NULL, *y = NULL;
  VKML_RETURN_IF_ERROR(check_io(n, &x, &ind, &y));
  ir_nd_params p;
  vkml_status ps = ir_nd_params_get(x, ind, ir_node_int(n, IR_A_BATCH_DIMS, 0), &p);
  if (ps) return vkml_status_annotate(ps, "gather_nd");
  int64_t dims[IR_MAX_RANK];
  int r = 0;
  for (int d = 0; d < ind->rank - 1; d++) dims[r++] = ind->dims[d];
  for (int d = p.batch_dims + p.k; d < x->rank && r < IR_MAX_RANK; d++) dims[r++] = x->dims[d];
  VKML_RETURN_IF_ERROR(check_out(n, y, x->dtype, r, dims));
  int64_t n_out = p.batch * p.tuples * p.slice;
  for (int j = 0; j < p.k; j++) VKML_RETURN_IF_ERROR(check_dim(n, p.dims[j], n_out));

  VKML_RETURN_IF_ERROR(cg_data_begin(out, &cg_data_gather_template, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  int64_t es = (int64_t)ir_dtype_size(x->dtype), inner = p.slice;
  int64_t g = cg_data_group(es, out->schedule.v[CG_DATA_KNOB_UNIT], &inner, 1);
  VKML_RETURN_IF_ERROR(cg_data_define_unit(out, es * g, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "MODE", "2"));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "IDX64", "%d", ind->dtype == IR_I64));
  int64_t units = n_out / g;
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_INNER, (uint32_t)(inner ? inner / g : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_NIDX, (uint32_t)(p.tuples ? p.tuples : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_RANK, (uint32_t)p.k));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_AXIS, (uint32_t)p.batch_dims));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_GATHER_BSL, (uint32_t)p.batch_slices));
  VKML_RETURN_IF_ERROR(cg_data_spec_axes(out, p.k, p.dims, p.strides));
  VKML_RETURN_IF_ERROR(rows_end(rows, units, out));
  out->n_buffers = 4;
  out->error_slot = true;
  return cg_data_grid(out, units, t);
}
vkml_status cg_node_gather_nd(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  return with_rows(gather_nd_kernel, n, st, s, t, out);
}

const cg_template cg_data_gather_template = {"data_gather", "data_gather.comp", CG_DATA_KNOBS};
