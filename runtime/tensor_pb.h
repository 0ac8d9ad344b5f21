/* Reading ONNX TensorProto files (.pb, as in the ONNX test data) into host
 * tensors: a small hand-written protobuf wire reader, so that the runtime
 * (vkrun) needs no protobuf library. Handles dims, data_type, raw_data and
 * the typed repeated fields (float_data; int32_data for f16/u8/i8/bool/i32;
 * int64_data), packed or not, with full bounds checking. */
#ifndef RT_TENSOR_PB_H
#define RT_TENSOR_PB_H

#include <stddef.h>

#include "runtime/tensor.h"

/* Parses a serialized TensorProto. what names the source in messages (NULL:
 * "<memory>"). On success *out owns its data (rt_tensor_free) and, when name
 * is not NULL, *name is the tensor's name (malloc'd, "" if none; the caller
 * frees it). Element types outside f32 f16 i32 i64 u8 i8 bool give an
 * UNSUPPORTED status naming the ONNX type (e.g. "DOUBLE"); on any error *out
 * is zeroed and *name NULL. */
vkml_status rt_tensor_parse_pb(const void *data, size_t bytes, const char *what,
                               rt_tensor *out, char **name);
/* Reads and parses the file at path (messages name the file). */
vkml_status rt_tensor_read_pb(const char *path, rt_tensor *out, char **name);

#endif
