/* NumPy .npy tensor files (format versions 1.0, 2.0 and 3.0; C order;
 * little-endian f32 f16 i32 i64 u8 i8 bool). Anything else is refused with a
 * message naming the file and the reason. */
#ifndef RT_NPY_H
#define RT_NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/tensor.h"

/* Parses an in-memory .npy image. name is used in messages. *out is allocated
 * (rt_tensor_free); on error it is zeroed. */
vkml_status rt_npy_parse(const void *bytes, size_t n_bytes, const char *name,
                         rt_tensor *out);
vkml_status rt_npy_read(const char *path, rt_tensor *out);
/* As rt_npy_parse / rt_npy_read, for a tensor of dtype want (IR_DTYPE_COUNT:
 * any): float64 data ('<f8', NumPy's default float; the IR has no f64) is
 * converted to want when it is f32 or f16 (*converted, may be NULL, then
 * true), and refused naming want otherwise. Other dtypes are read as they
 * are: the caller compares them with want. */
vkml_status rt_npy_parse_as(const void *bytes, size_t n_bytes, const char *name, ir_dtype want,
                            rt_tensor *out, bool *converted);
vkml_status rt_npy_read_as(const char *path, ir_dtype want, rt_tensor *out, bool *converted);
/* Encodes t as a version 1.0 .npy image; *out is malloc'd (caller frees). */
vkml_status rt_npy_encode(const rt_tensor *t, void **out, size_t *out_bytes);
/* Writes atomically: to PATH.tmp, then rename, so a failure leaves nothing
 * half-written. */
vkml_status rt_npy_write(const char *path, const rt_tensor *t);

/* Writes a whole file atomically (PATH.tmp + rename). */
vkml_status rt_file_write(const char *path, const void *data, size_t bytes);

#endif
