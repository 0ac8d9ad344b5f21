/* CPU reference kernels: gather and gather_elements (gather_nd and the
 * scatters: k_scatter.c). Negative indices wrap once; an index still out
 * of range is an INVALID_ARGUMENT naming it (rt_cpu_fix_index). */
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

vkml_status rt_cpu_fix_index(const ir_node *n, int64_t raw, int64_t at, int axis, int64_t dim,
                             int64_t *out) {
  int64_t v = raw < 0 ? raw + dim : raw;
  if (v < 0 || v >= dim)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "index %lld (indices element %lld) out of range for axis %d of size %lld",
                        (long long)raw, (long long)at, axis, (long long)dim);
  *out = v;
  return VKML_OK;
}

vkml_status rt_cpu_check_indices(const ir_node *n, const rt_tensor *ind) {
  if (ind->dtype != IR_I32 && ind->dtype != IR_I64)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "indices must be i32 or i64, got %s",
                        ir_dtype_name(ind->dtype));
  return VKML_OK;
}

vkml_status rt_cpu_gather(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *ind = a->in[1];
  rt_tensor *y = a->out[0];
  VKML_RETURN_IF_ERROR(rt_cpu_check_indices(n, ind));
  int axis;
  if (x->rank == 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cannot gather from a scalar");
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis));
  int rank = x->rank - 1 + ind->rank;
  if (rank > IR_MAX_RANK)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output rank %d exceeds %d", rank,
                        IR_MAX_RANK);
  int64_t dims[IR_MAX_RANK];
  int r = 0;
  for (int d = 0; d < axis; d++) dims[r++] = x->dims[d];
  for (int d = 0; d < ind->rank; d++) dims[r++] = ind->dims[d];
  for (int d = axis + 1; d < x->rank; d++) dims[r++] = x->dims[d];
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, dims));

  int64_t outer = rt_cpu_dims_prod(x->dims, 0, axis), dim = x->dims[axis];
  int64_t inner = rt_cpu_dims_prod(x->dims, axis + 1, x->rank), n_idx = rt_tensor_numel(ind);
  size_t block = (size_t)inner * ir_dtype_size(x->dtype);
  for (int64_t j = 0; j < n_idx; j++) {
    int64_t k = 0;
    VKML_RETURN_IF_ERROR(rt_cpu_fix_index(n, rt_load_i(ind, j), j, axis, dim, &k));
    if (!block) continue;
    for (int64_t o = 0; o < outer; o++)
      memcpy((char *)y->data + (size_t)(o * n_idx + j) * block,
             (const char *)x->data + (size_t)(o * dim + k) * block, block);
  }
  return VKML_OK;
}

vkml_status rt_cpu_gather_elements(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *ind = a->in[1];
  rt_tensor *y = a->out[0];
  VKML_RETURN_IF_ERROR(rt_cpu_check_indices(n, ind));
  int rank = x->rank, axis;
  if (rank == 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cannot gather from a scalar");
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), rank, &axis));
  if (ind->rank != rank)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "indices have rank %d, data rank %d",
                        ind->rank, rank);
  for (int d = 0; d < rank; d++)
    if (d != axis && ind->dims[d] > x->dims[d])
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "indices dim %d (%lld) exceeds data's (%lld)", d,
                          (long long)ind->dims[d], (long long)x->dims[d]);
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, ind->dims));

  int64_t xs[IR_MAX_RANK], idx[IR_MAX_RANK] = {0}, count = rt_tensor_numel(ind);
  rt_strides(rank, x->dims, xs);
  size_t es = ir_dtype_size(x->dtype);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, ind->dims, idx)) {
    int64_t k = 0;
    VKML_RETURN_IF_ERROR(rt_cpu_fix_index(n, rt_load_i(ind, i), i, axis, x->dims[axis], &k));
    int64_t off = (k - idx[axis]) * xs[axis] + rt_cpu_index_offset(rank, idx, xs);
    memcpy((char *)y->data + (size_t)i * es, (const char *)x->data + (size_t)off * es, es);
  }
  return VKML_OK;
}
