/* Host tensors and typed element access. */
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

vkml_status rt_tensor_alloc_dims(ir_dtype dtype, int rank, const int64_t *dims,
                                 rt_tensor *out) {
  memset(out, 0, sizeof *out);
  ir_type t = ir_type_make(dtype, rank, dims);
  VKML_RETURN_IF_ERROR(ir_type_check(&t));
  size_t bytes = (size_t)ir_type_bytes(&t);
  out->data = calloc(1, bytes ? bytes : 1);
  if (!out->data)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                            "out of host memory allocating %zu bytes", bytes);
  out->dtype = dtype;
  out->rank = rank;
  memcpy(out->dims, dims, sizeof *dims * (size_t)rank);
  out->cap_bytes = bytes;
  out->owns_data = true;
  return VKML_OK;
}

vkml_status rt_tensor_alloc(const ir_type *t, rt_tensor *out) {
  return rt_tensor_alloc_dims(t->dtype, t->rank, t->dims, out);
}

rt_tensor rt_tensor_view(const ir_type *t, const void *data) {
  rt_tensor v;
  memset(&v, 0, sizeof v);
  v.dtype = t->dtype;
  v.rank = t->rank;
  memcpy(v.dims, t->dims, sizeof v.dims);
  v.data = (void *)data;
  v.cap_bytes = (size_t)ir_type_bytes(t);
  return v;
}

void rt_tensor_free(rt_tensor *t) {
  if (t->owns_data) free(t->data);
  memset(t, 0, sizeof *t);
}

int64_t rt_tensor_numel(const rt_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

size_t rt_tensor_bytes(const rt_tensor *t) {
  return (size_t)rt_tensor_numel(t) * ir_dtype_size(t->dtype);
}

ir_type rt_tensor_type(const rt_tensor *t) {
  return ir_type_make(t->dtype, t->rank, t->dims);
}

void rt_strides(int rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}
