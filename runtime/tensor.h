/* rt_tensor: a host tensor (dense, C order) as the CPU kernels, the executor
 * and tensor I/O see it. dims are the actual sizes; for a bounded IR type they
 * may be smaller than the type's capacity. */
#ifndef RT_TENSOR_H
#define RT_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/graph.h"

typedef struct rt_tensor {
  ir_dtype dtype;
  int rank;
  int64_t dims[IR_MAX_RANK];
  void *data;       /* owned when owns_data */
  size_t cap_bytes; /* bytes allocated at data */
  bool owns_data;
} rt_tensor;

/* Allocates a zeroed tensor with the type's dims (capacity for bounded types).
 * Free with rt_tensor_free. */
vkml_status rt_tensor_alloc(const ir_type *t, rt_tensor *out);
/* Allocates with explicit dtype and dims. */
vkml_status rt_tensor_alloc_dims(ir_dtype dtype, int rank, const int64_t *dims,
                                 rt_tensor *out);
/* A non-owning view of bytes (e.g. a constant in the weights blob). */
rt_tensor rt_tensor_view(const ir_type *t, const void *data);
/* Frees owned data and zeroes the struct; safe on zeroed tensors. */
void rt_tensor_free(rt_tensor *t);

int64_t rt_tensor_numel(const rt_tensor *t);
size_t rt_tensor_bytes(const rt_tensor *t);
/* The tensor's actual type (dtype, rank, dims; not bounded). */
ir_type rt_tensor_type(const rt_tensor *t);

/* Element access by flat index, converting through double (float types) or
 * int64 (integer types, bool). Reference kernels use these so one loop serves
 * every dtype; the conversions are ir/dtype.h's, which the importer's folding
 * and codegen share (f16 rounded to nearest even on store). */
static inline double rt_load_f(const rt_tensor *t, int64_t i) {
  return ir_dtype_load_f64(t->dtype, t->data, i);
}
static inline void rt_store_f(rt_tensor *t, int64_t i, double v) {
  ir_dtype_store_f64(t->dtype, t->data, i, v);
}
static inline int64_t rt_load_i(const rt_tensor *t, int64_t i) {
  return ir_dtype_load_i64(t->dtype, t->data, i);
}
static inline void rt_store_i(rt_tensor *t, int64_t i, int64_t v) {
  ir_dtype_store_i64(t->dtype, t->data, i, v);
}

/* Row-major strides (in elements) for dims. */
void rt_strides(int rank, const int64_t *dims, int64_t *strides);

#endif
