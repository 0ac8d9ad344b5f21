/* Index helpers shared by the CPU reference kernels: output checks, NumPy
 * broadcasting and N-d index iteration. Internal to runtime/cpu/. */
#ifndef RT_CPU_K_INDEX_H
#define RT_CPU_K_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu_kernels.h"

/* Checks that output `which` of the node has the dtype, rank and dims the
 * kernel computed, and that its buffer holds them (so a malformed graph gives
 * an INTERNAL status naming the node, never an overflow). */
vkml_status rt_cpu_check_out(const ir_node *n, int which, const rt_tensor *out,
                             ir_dtype dtype, int rank, const int64_t *dims);

/* NumPy broadcast of the dims of ts[0..n_t); INVALID_ARGUMENT naming the
 * node if they do not broadcast. */
vkml_status rt_cpu_broadcast_dims(const ir_node *n, int n_t,
                                  const rt_tensor *const *ts, int *rank,
                                  int64_t *dims);

/* Element strides of t seen through a broadcast to (rank, dims): 0 along
 * broadcast axes. t must be broadcastable to dims. */
void rt_cpu_bcast_strides(const rt_tensor *t, int rank, const int64_t *dims,
                          int64_t *strides);

/* Steps the multi-index idx (row-major) through dims; false after the last. */
static inline bool rt_cpu_index_next(int rank, const int64_t *dims,
                                     int64_t *idx) {
  for (int d = rank - 1; d >= 0; d--) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

static inline int64_t rt_cpu_index_offset(int rank, const int64_t *idx,
                                          const int64_t *strides) {
  int64_t o = 0;
  for (int d = 0; d < rank; d++) o += idx[d] * strides[d];
  return o;
}

/* Same dtype check for inputs a kernel copies as raw bytes. */
vkml_status rt_cpu_check_same_dtype(const ir_node *n, const rt_tensor *a,
                                    const rt_tensor *b, int index_b);

/* double -> integer dtype t (i32 i64 u8 i8): truncates toward zero, NaN -> 0,
 * saturates to t's range. */
int64_t rt_cpu_float_to_int(double v, ir_dtype t);

#endif
