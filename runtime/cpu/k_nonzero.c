/* CPU reference kernels: non_zero (numpy's nonzero: the positions of the
 * non-zero elements in row-major order, NaN and -0 as numpy counts them:
 * NaN is non-zero, -0 is zero) and its GPU stages nonzero_flags (1 where
 * non-zero) and nonzero_write (the positions from an exclusive cumsum of
 * the flags), so that a split graph runs on the CPU too. */
#include <string.h>

#include "cpu_kernels.h"
#include "k_util.h"

static bool is_nonzero(const rt_tensor *x, int64_t i) {
  if (ir_dtype_is_float(x->dtype)) return rt_load_f(x, i) != 0.0; /* NaN != 0 */
  return rt_load_i(x, i) != 0;
}

/* The positions output: i64[rank, <=numel], its actual count set. */
static vkml_status positions_out(const ir_node *n, const rt_tensor *x, rt_tensor *out,
                                 int64_t count) {
  int64_t numel = rt_tensor_numel(x);
  if (out->dtype != IR_I64 || out->rank != 2 || out->dims[0] != x->rank || out->dims[1] < count ||
      out->dims[1] > numel)
    return rt_cpu_error(n, VKML_CODE_INTERNAL, "the output has no room for %lld positions",
                        (long long)count);
  out->dims[1] = count;
  return VKML_OK;
}

/* Writes element i's coordinates as column col of out [rank, count]. */
static void put_position(const rt_tensor *x, rt_tensor *out, int64_t i, int64_t col,
                         int64_t count) {
  for (int d = x->rank - 1; d >= 0; d--) {
    int64_t dim = x->dims[d];
    rt_store_i(out, d * count + col, dim ? i % dim : 0);
    i = dim ? i / dim : 0;
  }
}

vkml_status rt_cpu_non_zero(const rt_cpu_args *a) {
  const rt_tensor *x = a->in[0];
  int64_t numel = rt_tensor_numel(x), count = 0;
  for (int64_t i = 0; i < numel; i++) count += is_nonzero(x, i);
  VKML_RETURN_IF_ERROR(positions_out(a->node, x, a->out[0], count));
  for (int64_t i = 0, col = 0; i < numel; i++)
    if (is_nonzero(x, i)) put_position(x, a->out[0], i, col++, count);
  return VKML_OK;
}

/* (a bounded x: its actual elements; the executor sizes the flags alike) */
vkml_status rt_cpu_nonzero_flags(const rt_cpu_args *a) {
  const rt_tensor *x = a->in[0];
  int64_t numel = rt_tensor_numel(x);
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, a->out[0], IR_I32, 1, &numel));
  for (int64_t i = 0; i < numel; i++) rt_store_i(a->out[0], i, is_nonzero(x, i));
  return VKML_OK;
}

vkml_status rt_cpu_nonzero_write(const rt_cpu_args *a) {
  const rt_tensor *x = a->in[0], *offs = a->in[1];
  int64_t numel = rt_tensor_numel(x);
  if (offs->dtype != IR_I32 || rt_tensor_numel(offs) != numel)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "offsets must be i32[%lld]",
                        (long long)numel);
  int64_t count = numel ? rt_load_i(offs, numel - 1) + is_nonzero(x, numel - 1) : 0;
  if (count < 0 || count > numel)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                        "the offsets count %lld positions of %lld elements", (long long)count,
                        (long long)numel);
  VKML_RETURN_IF_ERROR(positions_out(a->node, x, a->out[0], count));
  for (int64_t i = 0; i < numel; i++) {
    if (!is_nonzero(x, i)) continue;
    int64_t col = rt_load_i(offs, i);
    if (col < 0 || col >= count)
      return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "offset %lld at %lld is out of "
                          "range", (long long)col, (long long)i);
    put_position(x, a->out[0], i, col, count);
  }
  return VKML_OK;
}
