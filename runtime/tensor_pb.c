/* ONNX TensorProto wire-format reader (see tensor_pb.h). Field numbers from
 * onnx.proto: 1 dims, 2 data_type, 3 segment, 4 float_data, 5 int32_data,
 * 7 int64_data, 8 name, 9 raw_data, 13 external_data, 14 data_location. */
#include "tensor_pb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/file.h"

typedef struct pb_reader {
  const uint8_t *p;
  size_t n, pos;
} pb_reader;

static bool rd_varint(pb_reader *r, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (r->pos >= r->n) return false;
    uint8_t b = r->p[r->pos++];
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* One field: number, wire type, and for wire type 2 the payload range. */
typedef struct pb_field {
  uint32_t num, wire;
  uint64_t value;            /* wire types 0, 1, 5 */
  const uint8_t *payload;    /* wire type 2 */
  size_t len;
} pb_field;

static bool rd_field(pb_reader *r, pb_field *f) {
  uint64_t key;
  if (!rd_varint(r, &key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) return false;
  f->num = (uint32_t)(key >> 3);
  f->wire = (uint32_t)(key & 7);
  switch (f->wire) {
  case 0: return rd_varint(r, &f->value);
  case 1:
    if (r->n - r->pos < 8) return false;
    memcpy(&f->value, r->p + r->pos, 8);
    r->pos += 8;
    return true;
  case 5: {
    if (r->n - r->pos < 4) return false;
    uint32_t v;
    memcpy(&v, r->p + r->pos, 4);
    f->value = v;
    r->pos += 4;
    return true;
  }
  case 2: {
    uint64_t len;
    if (!rd_varint(r, &len) || len > r->n - r->pos) return false;
    f->payload = r->p + r->pos;
    f->len = (size_t)len;
    r->pos += (size_t)len;
    return true;
  }
  default: return false;
  }
}

static const char *onnx_type_name(uint64_t t) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
      "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64",
      "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  return t < sizeof names / sizeof names[0] ? names[t] : "an unknown type";
}

static bool dtype_of(uint64_t t, ir_dtype *out) {
  switch (t) {
  case 1: *out = IR_F32; return true;
  case 2: *out = IR_U8; return true;
  case 3: *out = IR_I8; return true;
  case 6: *out = IR_I32; return true;
  case 7: *out = IR_I64; return true;
  case 9: *out = IR_BOOL; return true;
  case 10: *out = IR_F16; return true;
  default: return false;
  }
}

/* Calls fn for each value of a repeated numeric field occurrence (packed or
 * not). fixed32: 4-byte values (float_data), else varints. */
typedef struct typed_sink {
  rt_tensor *t; /* NULL: count only */
  int64_t count;
  bool fixed32;
} typed_sink;

static void sink_put(typed_sink *s, uint64_t v) {
  if (s->t && s->count < rt_tensor_numel(s->t)) {
    rt_tensor *t = s->t;
    char *p = (char *)t->data + (size_t)s->count * ir_dtype_size(t->dtype);
    switch (t->dtype) {
    case IR_F32: { uint32_t b = (uint32_t)v; memcpy(p, &b, 4); break; }
    case IR_F16: { uint16_t h = (uint16_t)v; memcpy(p, &h, 2); break; }
    case IR_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    /* int32_data holds sign-extended int32 varints */
    default: rt_store_i(t, s->count, (int64_t)(int32_t)(uint32_t)v); break;
    }
  }
  s->count++;
}

static bool sink_field(typed_sink *s, const pb_field *f) {
  if (f->wire == 2) {
    pb_reader r = {f->payload, f->len, 0};
    if (s->fixed32) {
      if (f->len % 4) return false;
      for (size_t i = 0; i < f->len; i += 4) {
        uint32_t v;
        memcpy(&v, f->payload + i, 4);
        sink_put(s, v);
      }
      return true;
    }
    while (r.pos < r.n) {
      uint64_t v;
      if (!rd_varint(&r, &v)) return false;
      sink_put(s, v);
    }
    return true;
  }
  if ((s->fixed32 && f->wire != 5) || (!s->fixed32 && f->wire != 0)) return false;
  sink_put(s, f->value);
  return true;
}

static vkml_status bad(const char *what, const char *msg) {
  return vkml_status_make(VKML_CODE_PARSE, "%s: malformed TensorProto: %s", what, msg);
}

vkml_status rt_tensor_parse_pb(const void *data, size_t bytes, const char *what,
                               rt_tensor *out, char **name) {
  memset(out, 0, sizeof *out);
  if (name) *name = NULL;
  if (!what) what = "<memory>";
  int64_t dims[IR_MAX_RANK];
  int rank = 0;
  uint64_t dtype_code = 0;
  bool have_type = false, external = false;
  const uint8_t *raw = NULL, *name_p = NULL;
  size_t raw_len = 0, name_len = 0;
  pb_reader r = {data, bytes, 0};
  /* Pass 1: everything but the typed values. */
  while (r.pos < r.n) {
    pb_field f;
    if (!rd_field(&r, &f)) return bad(what, "truncated or corrupt field");
    switch (f.num) {
    case 1: { /* dims: packed or not */
      pb_reader d = {f.payload, f.len, 0};
      uint64_t v;
      bool packed = f.wire == 2;
      if (!packed && f.wire != 0) return bad(what, "dims has the wrong wire type");
      while (packed ? d.pos < d.n : true) {
        if (packed) {
          if (!rd_varint(&d, &v)) return bad(what, "truncated dims");
        } else {
          v = f.value;
        }
        if (rank == IR_MAX_RANK)
          return vkml_status_make(VKML_CODE_UNSUPPORTED,
                                  "%s: tensor rank above %d", what, IR_MAX_RANK);
        if ((int64_t)v < 0)
          return bad(what, "negative dimension");
        dims[rank++] = (int64_t)v;
        if (!packed) break;
      }
      break;
    }
    case 2:
      if (f.wire != 0) return bad(what, "data_type has the wrong wire type");
      dtype_code = f.value;
      have_type = true;
      break;
    case 3: return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: segmented tensor", what);
    case 8:
      if (f.wire != 2) return bad(what, "name has the wrong wire type");
      name_p = f.payload;
      name_len = f.len;
      break;
    case 9:
      if (f.wire != 2) return bad(what, "raw_data has the wrong wire type");
      raw = f.payload;
      raw_len = f.len;
      break;
    case 14:
      if (f.wire != 0) return bad(what, "data_location has the wrong wire type");
      external = f.value == 1;
      break;
    default: break;
    }
  }
  if (!have_type) return bad(what, "no data_type");
  ir_dtype dt;
  if (!dtype_of(dtype_code, &dt))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: element type %s is not supported", what,
                            onnx_type_name(dtype_code));
  if (external)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: tensor with external data", what);
  ir_type ty = ir_type_make(dt, rank, dims);
  vkml_status s = ir_type_check(&ty);
  if (s) {
    vkml_status_free(s);
    return bad(what, "tensor too large");
  }
  /* Sizes are checked against the file before anything is allocated, so a
   * small corrupt file cannot ask for a huge buffer. */
  int64_t numel = ir_type_numel(&ty);
  size_t want = (size_t)ir_type_bytes(&ty);
  uint32_t field = dt == IR_F32 ? 4 : dt == IR_I64 ? 7 : 5;
  if (raw) {
    if (raw_len != want)
      return vkml_status_make(VKML_CODE_PARSE,
                              "%s: raw_data has %zu bytes, %s[%lld elements] needs %zu",
                              what, raw_len, ir_dtype_name(dt), (long long)numel, want);
  } else {
    typed_sink count = {NULL, 0, dt == IR_F32};
    r.pos = 0;
    while (r.pos < r.n) {
      pb_field f;
      rd_field(&r, &f); /* validated in pass 1 */
      if (f.num == field && !sink_field(&count, &f))
        return bad(what, "corrupt typed data field");
    }
    if (count.count != numel)
      return vkml_status_make(VKML_CODE_PARSE,
                              "%s: %lld values stored, the shape needs %lld", what,
                              (long long)count.count, (long long)numel);
  }
  VKML_RETURN_IF_ERROR(rt_tensor_alloc(&ty, out));
  if (raw) {
    if (want) memcpy(out->data, raw, want);
  } else {
    /* Pass 2: the typed values. */
    typed_sink sink = {out, 0, dt == IR_F32};
    r.pos = 0;
    while (r.pos < r.n) {
      pb_field f;
      rd_field(&r, &f);
      if (f.num == field) sink_field(&sink, &f);
    }
  }
  if (name) {
    *name = malloc(name_len + 1);
    if (!*name) {
      rt_tensor_free(out);
      return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    }
    if (name_len) memcpy(*name, name_p, name_len);
    (*name)[name_len] = 0;
  }
  return VKML_OK;
}

vkml_status rt_tensor_read_pb(const char *path, rt_tensor *out, char **name) {
  memset(out, 0, sizeof *out);
  if (name) *name = NULL;
  void *buf;
  size_t size;
  VKML_RETURN_IF_ERROR(ir_file_read(path, &buf, &size));
  vkml_status s = rt_tensor_parse_pb(buf, size, path, out, name);
  free(buf);
  return s;
}
