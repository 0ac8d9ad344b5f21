/* ONNX TensorProto decoding (raw, typed fields, external data) and element
 * access on constant bytes. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"
#include "ir/file.h"

enum {
  T_FLOAT = 1, T_UINT8 = 2, T_INT8 = 3, T_UINT16 = 4, T_INT16 = 5, T_INT32 = 6,
  T_INT64 = 7, T_STRING = 8, T_BOOL = 9, T_FLOAT16 = 10, T_DOUBLE = 11,
  T_UINT32 = 12, T_UINT64 = 13, T_COMPLEX64 = 14, T_COMPLEX128 = 15,
  T_BFLOAT16 = 16,
};

bool onnx_dtype_to_ir(int32_t t, ir_dtype *out) {
  switch (t) {
  case T_FLOAT: *out = IR_F32; return true;
  case T_FLOAT16: *out = IR_F16; return true;
  case T_INT32: *out = IR_I32; return true;
  case T_INT64: *out = IR_I64; return true;
  case T_UINT8: *out = IR_U8; return true;
  case T_INT8: *out = IR_I8; return true;
  case T_BOOL: *out = IR_BOOL; return true;
  default: return false;
  }
}

int32_t onnx_dtype_from_ir(ir_dtype t) {
  switch (t) {
  case IR_F32: return T_FLOAT;
  case IR_F16: return T_FLOAT16;
  case IR_I32: return T_INT32;
  case IR_I64: return T_INT64;
  case IR_U8: return T_UINT8;
  case IR_I8: return T_INT8;
  case IR_BOOL: return T_BOOL;
  default: return 0;
  }
}

const char *onnx_dtype_name(int32_t t, char *buf, int buf_bytes) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
      "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64",
      "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  if (t >= 0 && t < (int32_t)(sizeof names / sizeof names[0])) return names[t];
  snprintf(buf, (size_t)buf_bytes, "type %d", (int)t);
  return buf;
}

/* ---- external data ------------------------------------------------------- */

/* Reads bytes of an external-data tensor. The location must stay inside the
 * model directory: no absolute path, no "..", and no symlink out of it. */
static vkml_status read_external(onnx_ctx *c, const Onnx__TensorProto *t,
                                 size_t want, void **out) {
  const char *location = NULL;
  int64_t offset = 0, length = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *k = onnx_str(t->external_data[i]->key);
    const char *v = onnx_str(t->external_data[i]->value);
    char *end = NULL;
    if (strcmp(k, "location") == 0) {
      location = v;
    } else if (strcmp(k, "offset") == 0 || strcmp(k, "length") == 0) {
      errno = 0;
      long long x = strtoll(v, &end, 10);
      if (errno || end == v || *end || x < 0)
        return onnx_error(VKML_CODE_PARSE, "external data %s '%s' is not a "
                          "non-negative integer", k, v);
      if (k[0] == 'o') offset = x; else length = x;
    }
  }
  if (!location || !location[0])
    return onnx_error(VKML_CODE_PARSE, "external data without a location");
  if (!c->base_dir)
    return onnx_error(VKML_CODE_UNSUPPORTED,
                      "external data '%s' needs the model's directory "
                      "(model given in memory)", location);
  if (location[0] == '/' || strstr(location, "\\"))
    return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                      "external data path '%s' is absolute; it must be relative "
                      "to the model's directory", location);
  for (const char *s = location; *s;) {
    const char *e = strchr(s, '/');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == 2 && s[0] == '.' && s[1] == '.')
      return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                        "external data path '%s' escapes the model's directory",
                        location);
    s += len + (e ? 1 : 0);
  }
  if (length >= 0 && (uint64_t)length != want)
    return onnx_error(VKML_CODE_PARSE,
                      "external data '%s': length %lld, but the tensor needs %zu "
                      "bytes", location, (long long)length, want);
  size_t plen = strlen(c->base_dir) + 1 + strlen(location) + 1;
  char *path = onnx_alloc(c, plen);
  if (!path) return ir_oom(NULL);
  snprintf(path, plen, "%s/%s", c->base_dir, location);
  char *real_base = realpath(c->base_dir, NULL), *real_file = realpath(path, NULL);
  vkml_status s = VKML_OK;
  if (!real_base || !real_file) {
    s = onnx_error(VKML_CODE_IO, "external data '%s': cannot open: %s", location,
                   strerror(errno));
    goto done;
  }
  size_t bl = strlen(real_base);
  if (strncmp(real_file, real_base, bl) != 0 ||
      (real_file[bl] != '/' && !(bl == 1 && real_base[0] == '/'))) {
    s = onnx_error(VKML_CODE_INVALID_ARGUMENT,
                   "external data path '%s' escapes the model's directory",
                   location);
    goto done;
  }
  FILE *f;
  s = ir_file_fopen(real_file, &f);
  if (s) {
    s = vkml_status_annotate(s, "external data '%s'", location);
    goto done;
  }
  long fsize = -1;
  if (fseek(f, 0, SEEK_END) == 0) fsize = ftell(f);
  if (fsize < 0 || offset > fsize || want > (uint64_t)(fsize - offset)) {
    fclose(f);
    s = onnx_error(VKML_CODE_IO,
                   "external data '%s': file too short for %zu bytes at offset "
                   "%lld", location, want, (long long)offset);
    goto done;
  }
  void *buf = onnx_alloc(c, want ? want : 1);
  if (!buf) {
    fclose(f);
    s = ir_oom(NULL);
    goto done;
  }
  if (offset > LONG_MAX || fseek(f, (long)offset, SEEK_SET) != 0 ||
      fread(buf, 1, want, f) != want) {
    s = onnx_error(VKML_CODE_IO,
                   "external data '%s': file too short for %zu bytes at offset "
                   "%lld", location, want, (long long)offset);
  }
  fclose(f);
  *out = buf;
done:
  free(real_base);
  free(real_file);
  return s;
}

/* ---- decoding ------------------------------------------------------------ */

vkml_status onnx_tensor_decode(onnx_ctx *c, const Onnx__TensorProto *t,
                               ir_type *type, const void **data) {
  char nb[32];
  int32_t dt = t->has_data_type ? t->data_type : 0;
  ir_dtype d;
  if (!onnx_dtype_to_ir(dt, &d))
    return onnx_error(VKML_CODE_UNSUPPORTED, "tensor '%s' has element type %s "
                      "(supported: FLOAT FLOAT16 INT32 INT64 UINT8 INT8 BOOL)",
                      onnx_str(t->name), onnx_dtype_name(dt, nb, sizeof nb));
  if (t->n_dims > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "tensor '%s' has rank %zu (at most %d)",
                      onnx_str(t->name), t->n_dims, IR_MAX_RANK);
  memset(type, 0, sizeof *type);
  type->dtype = d;
  type->rank = (int)t->n_dims;
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0)
      return onnx_error(VKML_CODE_PARSE, "tensor '%s' has negative dimension %lld",
                        onnx_str(t->name), (long long)t->dims[i]);
    type->dims[i] = t->dims[i];
  }
  vkml_status s = ir_type_check(type);
  if (s) {
    vkml_status_free(s);
    return onnx_error(VKML_CODE_PARSE, "tensor '%s' is too large",
                      onnx_str(t->name));
  }
  if (t->segment)
    return onnx_error(VKML_CODE_UNSUPPORTED, "tensor '%s' is segmented",
                      onnx_str(t->name));
  int64_t n = ir_type_numel(type);
  size_t bytes = (size_t)ir_type_bytes(type), esize = ir_dtype_size(d);
  if (t->has_data_location &&
      t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
    void *buf = NULL;
    VKML_RETURN_IF_ERROR(vkml_status_annotate(read_external(c, t, bytes, &buf),
                                              "tensor '%s'", onnx_str(t->name)));
    *data = buf;
    return VKML_OK;
  }
  if (t->has_raw_data) {
    if (t->raw_data.len != bytes)
      return onnx_error(VKML_CODE_PARSE,
                        "tensor '%s': raw_data has %zu bytes, but %s with %lld "
                        "elements needs %zu", onnx_str(t->name), t->raw_data.len,
                        ir_dtype_name(d), (long long)n, bytes);
    if (bytes == 0) {
      *data = onnx_alloc(c, 1);
      return *data ? VKML_OK : ir_oom(NULL);
    }
    *data = t->raw_data.data; /* lives as long as the model */
    return VKML_OK;
  }
  size_t have;
  const char *field;
  switch (d) {
  case IR_F32: have = t->n_float_data; field = "float_data"; break;
  case IR_I64: have = t->n_int64_data; field = "int64_data"; break;
  default: have = t->n_int32_data; field = "int32_data"; break;
  }
  if (have != (size_t)n)
    return onnx_error(VKML_CODE_PARSE,
                      "tensor '%s': %s has %zu elements, but the shape needs %lld%s",
                      onnx_str(t->name), field, have, (long long)n,
                      have == 0 ? " (no data)" : "");
  char *buf = onnx_alloc(c, bytes ? bytes : 1);
  if (!buf) return ir_oom(NULL);
  for (int64_t i = 0; i < n; i++) {
    char *p = buf + (size_t)i * esize;
    switch (d) {
    case IR_F32: memcpy(p, &t->float_data[i], 4); break;
    case IR_I64: memcpy(p, &t->int64_data[i], 8); break;
    case IR_F16: {
      uint16_t h = (uint16_t)(uint32_t)t->int32_data[i];
      memcpy(p, &h, 2);
      break;
    }
    case IR_I32: memcpy(p, &t->int32_data[i], 4); break;
    default: ir_dtype_store_i64(d, buf, i, t->int32_data[i]); break;
    }
  }
  *data = buf;
  return VKML_OK;
}
