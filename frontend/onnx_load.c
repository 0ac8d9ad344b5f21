/* Reading ONNX model bytes: a depth-limited wire-format check (protobuf-c
 * recurses without a limit and reports no position), then protobuf-c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/file.h"
#include "onnx_internal.h"

static bool read_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= n) return false;
    uint8_t b = p[(*pos)++];
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* Walks one message's fields, recursing into sub-messages the descriptor
 * names; base is the message's offset in the file, for messages. */
static vkml_status check_message(const uint8_t *p, size_t n, size_t base,
                                 const ProtobufCMessageDescriptor *d,
                                 int depth) {
  if (depth > ONNX_MAX_NESTING)
    return vkml_status_make(VKML_CODE_PARSE,
                            "malformed protobuf: messages nested deeper than %d "
                            "(at byte %zu)", ONNX_MAX_NESTING, base);
  size_t pos = 0;
  while (pos < n) {
    size_t at = pos;
    uint64_t key, len;
    if (!read_varint(p, n, &pos, &key))
      return vkml_status_make(VKML_CODE_PARSE,
                              "malformed protobuf: truncated field key at byte %zu",
                              base + at);
    uint32_t field = (uint32_t)(key >> 3);
    if (field == 0 || key >> 3 > 0x1fffffff)
      return vkml_status_make(VKML_CODE_PARSE,
                              "malformed protobuf: invalid field number at byte %zu",
                              base + at);
    switch (key & 7) {
    case 0:
      if (!read_varint(p, n, &pos, &len))
        return vkml_status_make(VKML_CODE_PARSE,
                                "malformed protobuf: truncated varint at byte %zu",
                                base + at);
      break;
    case 1:
      if (n - pos < 8)
        return vkml_status_make(VKML_CODE_PARSE,
                                "malformed protobuf: truncated fixed64 at byte %zu",
                                base + at);
      pos += 8;
      break;
    case 5:
      if (n - pos < 4)
        return vkml_status_make(VKML_CODE_PARSE,
                                "malformed protobuf: truncated fixed32 at byte %zu",
                                base + at);
      pos += 4;
      break;
    case 2: {
      if (!read_varint(p, n, &pos, &len) || len > n - pos)
        return vkml_status_make(VKML_CODE_PARSE,
                                "malformed protobuf: length-delimited field %u at "
                                "byte %zu runs past the end of its message "
                                "(truncated file?)", field, base + at);
      const ProtobufCFieldDescriptor *f =
          d ? protobuf_c_message_descriptor_get_field(d, field) : NULL;
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE)
        VKML_RETURN_IF_ERROR(check_message(p + pos, (size_t)len, base + pos,
                                           f->descriptor, depth + 1));
      pos += (size_t)len;
      break;
    }
    default:
      return vkml_status_make(VKML_CODE_PARSE,
                              "malformed protobuf: invalid wire type %u at byte %zu",
                              (unsigned)(key & 7), base + at);
    }
  }
  return VKML_OK;
}

vkml_status onnx_model_unpack(const void *data, size_t bytes,
                              Onnx__ModelProto **out) {
  *out = NULL;
  if (bytes == 0)
    return vkml_status_make(VKML_CODE_PARSE, "empty file (not an ONNX model)");
  VKML_RETURN_IF_ERROR(check_message(data, bytes, 0, &onnx__model_proto__descriptor, 0));
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, bytes, data);
  if (!m)
    return vkml_status_make(VKML_CODE_PARSE,
                            "malformed protobuf: not a valid ONNX ModelProto");
  if (!m->graph) {
    onnx__model_proto__free_unpacked(m, NULL);
    return vkml_status_make(VKML_CODE_PARSE,
                            "not an ONNX model: the ModelProto has no graph");
  }
  *out = m;
  return VKML_OK;
}

vkml_status onnx_model_read_file(const char *path, Onnx__ModelProto **out) {
  *out = NULL;
  void *buf;
  size_t size;
  VKML_RETURN_IF_ERROR(ir_file_read(path, &buf, &size));
  vkml_status s = vkml_status_annotate(onnx_model_unpack(buf, size, out), "%s", path);
  free(buf);
  return s;
}

void onnx_model_free(Onnx__ModelProto *m) {
  if (m) onnx__model_proto__free_unpacked(m, NULL);
}

int64_t onnx_model_opset(const Onnx__ModelProto *m) {
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    const char *d = onnx_str(o->domain);
    if ((d[0] == 0 || strcmp(d, "ai.onnx") == 0) && o->has_version)
      return o->version;
  }
  return -1;
}
