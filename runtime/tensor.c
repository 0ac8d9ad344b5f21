/* Host tensors and typed element access. */
#include "tensor.h"

#include <math.h>
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

double rt_load_f(const rt_tensor *t, int64_t i) {
  const void *p = (const char *)t->data + (size_t)i * ir_dtype_size(t->dtype);
  switch (t->dtype) {
  case IR_F32: { float v; memcpy(&v, p, 4); return v; }
  case IR_F16: { uint16_t v; memcpy(&v, p, 2); return ir_f16_to_f32(v); }
  default: return (double)rt_load_i(t, i);
  }
}

void rt_store_f(rt_tensor *t, int64_t i, double v) {
  void *p = (char *)t->data + (size_t)i * ir_dtype_size(t->dtype);
  switch (t->dtype) {
  case IR_F32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case IR_F16: { uint16_t h = ir_f32_to_f16((float)v); memcpy(p, &h, 2); return; }
  case IR_BOOL: rt_store_i(t, i, v != 0); return;
  default: {
    /* float -> int conversion truncates toward zero, as C and ONNX Cast do;
     * NaN and out-of-range values saturate instead of being undefined. */
    int64_t x;
    if (isnan(v)) x = 0;
    else if (v >= 9.2233720368547758e18) x = INT64_MAX;
    else if (v <= -9.2233720368547758e18) x = INT64_MIN;
    else x = (int64_t)v;
    rt_store_i(t, i, x);
    return;
  }
  }
}

int64_t rt_load_i(const rt_tensor *t, int64_t i) {
  const char *p = (const char *)t->data + (size_t)i * ir_dtype_size(t->dtype);
  switch (t->dtype) {
  case IR_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case IR_I64: { int64_t v; memcpy(&v, p, 8); return v; }
  case IR_U8: return (uint8_t)*p;
  case IR_I8: return (int8_t)*p;
  case IR_BOOL: return *p != 0;
  case IR_F32:
  case IR_F16: {
    double d = rt_load_f(t, i);
    if (isnan(d)) return 0;
    if (d >= 9.2233720368547758e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)d;
  }
  default: return 0;
  }
}

void rt_store_i(rt_tensor *t, int64_t i, int64_t v) {
  char *p = (char *)t->data + (size_t)i * ir_dtype_size(t->dtype);
  switch (t->dtype) {
  case IR_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return; }
  case IR_I64: memcpy(p, &v, 8); return;
  case IR_U8: *(uint8_t *)p = (uint8_t)v; return;
  case IR_I8: *(int8_t *)p = (int8_t)v; return;
  case IR_BOOL: *p = v != 0; return;
  case IR_F32:
  case IR_F16: rt_store_f(t, i, (double)v); return;
  default: return;
  }
}

void rt_strides(int rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}
