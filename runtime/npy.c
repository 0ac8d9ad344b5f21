/* .npy reading and writing, plus whole-file helpers. The header is a Python
 * dict literal; we parse exactly the three keys NumPy writes. */
#include "npy.h"
#include "ir/file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vkml_status bad(const char *name, const char *why) {
  return vkml_status_make(VKML_CODE_PARSE, "%s: not a valid .npy file: %s", name, why);
}

vkml_status rt_file_write(const char *path, const void *data, size_t bytes) {
  size_t len = strlen(path);
  char *tmp = malloc(len + 5);
  if (!tmp) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  memcpy(tmp, path, len);
  memcpy(tmp + len, ".tmp", 5);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    vkml_status s = vkml_status_make(VKML_CODE_IO, "%s: %s", path, strerror(errno));
    free(tmp);
    return s;
  }
  bool ok = fwrite(data, 1, bytes, f) == bytes;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    vkml_status s = vkml_status_make(VKML_CODE_IO, "%s: write failed: %s", path, strerror(errno));
    remove(tmp);
    free(tmp);
    return s;
  }
  free(tmp);
  return VKML_OK;
}

/* ---- header dict ------------------------------------------------------ */

typedef struct hdr {
  const char *p, *end;
} hdr;

static void skip_ws(hdr *h) {
  while (h->p < h->end && isspace((unsigned char)*h->p)) h->p++;
}

static bool accept(hdr *h, char c) {
  skip_ws(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

/* A quoted Python string; returns pointer/length of the contents. */
static bool read_str(hdr *h, const char **s, size_t *n) {
  skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return false;
  char q = *h->p++;
  const char *start = h->p;
  while (h->p < h->end && *h->p != q) h->p++;
  if (h->p >= h->end) return false;
  *s = start;
  *n = (size_t)(h->p - start);
  h->p++;
  return true;
}

static const struct {
  const char *descr;
  ir_dtype dtype;
} descrs[] = {
    {"<f4", IR_F32}, {"<f2", IR_F16}, {"<i4", IR_I32}, {"<i8", IR_I64},
    {"|u1", IR_U8},  {"<u1", IR_U8},  {"|i1", IR_I8},  {"<i1", IR_I8},
    {"|b1", IR_BOOL}, {"<b1", IR_BOOL},
};

/* The dtype parse_header reports for '<f8' (float64, which the IR lacks). */
#define F64 IR_DTYPE_COUNT

static vkml_status parse_header(const char *name, hdr *h, ir_dtype *dtype,
                                int *rank, int64_t *dims) {
  bool have_descr = false, have_order = false, have_shape = false;
  if (!accept(h, '{')) return bad(name, "header is not a dict");
  while (!accept(h, '}')) {
    const char *key;
    size_t kn;
    if (!read_str(h, &key, &kn) || !accept(h, ':'))
      return bad(name, "malformed header dict");
    if (kn == 5 && !memcmp(key, "descr", 5)) {
      const char *d;
      size_t dn;
      if (!read_str(h, &d, &dn)) return bad(name, "descr is not a string");
      bool found = dn == 3 && !memcmp(d, "<f8", 3);
      if (found) *dtype = F64;
      for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++)
        if (strlen(descrs[i].descr) == dn && !memcmp(descrs[i].descr, d, dn)) {
          *dtype = descrs[i].dtype;
          found = true;
        }
      if (!found)
        return vkml_status_make(VKML_CODE_UNSUPPORTED,
                                "%s: unsupported .npy dtype '%.*s' (supported: "
                                "little-endian f4 f2 i4 i8 u1 i1 b1)",
                                name, (int)(dn > 32 ? 32 : dn), d);
      have_descr = true;
    } else if (kn == 13 && !memcmp(key, "fortran_order", 13)) {
      skip_ws(h);
      if (h->end - h->p >= 5 && !memcmp(h->p, "False", 5)) {
        h->p += 5;
      } else if (h->end - h->p >= 4 && !memcmp(h->p, "True", 4)) {
        return vkml_status_make(VKML_CODE_UNSUPPORTED,
                                "%s: Fortran-order .npy arrays are not supported "
                                "(save with np.ascontiguousarray)", name);
      } else {
        return bad(name, "fortran_order is not a bool");
      }
      have_order = true;
    } else if (kn == 5 && !memcmp(key, "shape", 5)) {
      if (!accept(h, '(')) return bad(name, "shape is not a tuple");
      *rank = 0;
      while (!accept(h, ')')) {
        skip_ws(h);
        if (*rank >= IR_MAX_RANK)
          return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: rank above %d",
                                  name, IR_MAX_RANK);
        int64_t v = 0;
        if (h->p >= h->end || !isdigit((unsigned char)*h->p))
          return bad(name, "shape entry is not a non-negative integer");
        while (h->p < h->end && isdigit((unsigned char)*h->p)) {
          if (v > (IR_MAX_ELEMENTS - 9) / 10) return bad(name, "dimension too large");
          v = v * 10 + (*h->p++ - '0');
        }
        if (h->p < h->end && *h->p == 'L') h->p++; /* Python 2 longs */
        dims[(*rank)++] = v;
        if (!accept(h, ',')) {
          if (!accept(h, ')')) return bad(name, "malformed shape tuple");
          break;
        }
      }
      have_shape = true;
    } else {
      return bad(name, "unknown header key");
    }
    if (!accept(h, ',')) {
      if (!accept(h, '}')) return bad(name, "malformed header dict");
      break;
    }
  }
  if (!have_descr || !have_order || !have_shape)
    return bad(name, "header lacks descr, fortran_order or shape");
  return VKML_OK;
}

vkml_status rt_npy_parse(const void *bytes, size_t n_bytes, const char *name,
                         rt_tensor *out) {
  return rt_npy_parse_as(bytes, n_bytes, name, IR_DTYPE_COUNT, out, NULL);
}

vkml_status rt_npy_parse_as(const void *bytes, size_t n_bytes, const char *name, ir_dtype want,
                            rt_tensor *out, bool *converted) {
  memset(out, 0, sizeof *out);
  if (converted) *converted = false;
  const unsigned char *b = bytes;
  if (n_bytes < 10 || memcmp(b, "\x93NUMPY", 6) != 0) return bad(name, "bad magic");
  size_t hlen, hoff;
  if (b[6] == 1) {
    hlen = (size_t)b[8] | (size_t)b[9] << 8;
    hoff = 10;
  } else if (b[6] == 2 || b[6] == 3) {
    if (n_bytes < 12) return bad(name, "truncated header");
    hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    hoff = 12;
  } else {
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: .npy format version %d.%d",
                            name, b[6], b[7]);
  }
  if (hlen > n_bytes - hoff) return bad(name, "truncated header");
  hdr h = {(const char *)b + hoff, (const char *)b + hoff + hlen};
  ir_dtype dtype = IR_F32;
  int rank = 0;
  int64_t dims[IR_MAX_RANK] = {0};
  VKML_RETURN_IF_ERROR(parse_header(name, &h, &dtype, &rank, dims));
  bool f64 = dtype == F64;
  if (f64 && want != IR_F32 && want != IR_F16) {
    if (want == IR_DTYPE_COUNT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: float64 data ('<f8'): vkml has no f64 type (save it as "
                              "float32)", name);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: float64 data where %s is wanted: float64 is converted for f32 "
                            "and f16 only, never to integers (save the array as %s)",
                            name, ir_dtype_name(want), ir_dtype_name(want));
  }
  if (f64) dtype = IR_I64; /* 8 bytes an element, for the size checks below */
  ir_type t = ir_type_make(dtype, rank, dims);
  vkml_status s = ir_type_check(&t);
  if (s) return vkml_status_annotate(s, "%s", name);
  size_t data_bytes = (size_t)ir_type_bytes(&t), off = hoff + hlen;
  if (n_bytes - off < data_bytes)
    return vkml_status_make(VKML_CODE_PARSE,
                            "%s: truncated .npy data: %zu bytes, %zu expected",
                            name, n_bytes - off, data_bytes);
  if (n_bytes - off > data_bytes)
    return vkml_status_make(VKML_CODE_PARSE, "%s: %zu trailing bytes after .npy data",
                            name, n_bytes - off - data_bytes);
  if (f64) {
    /* element by element: the data need not be 8-byte aligned in memory */
    t.dtype = want;
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&t, out));
    int64_t n = ir_type_numel(&t);
    for (int64_t i = 0; i < n; i++) {
      double v;
      memcpy(&v, b + off + 8 * (size_t)i, 8);
      ir_dtype_store_f64(want, out->data, i, v);
    }
    if (converted) *converted = true;
    return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(rt_tensor_alloc(&t, out));
  if (data_bytes) memcpy(out->data, b + off, data_bytes);
  if (dtype == IR_BOOL) /* normalise: any non-zero byte is true */
    for (size_t i = 0; i < data_bytes; i++) ((unsigned char *)out->data)[i] = b[off + i] != 0;
  return VKML_OK;
}

vkml_status rt_npy_read(const char *path, rt_tensor *out) {
  void *buf;
  size_t n;
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(ir_file_read(path, &buf, &n));
  vkml_status s = rt_npy_parse(buf, n, path, out);
  free(buf);
  return s;
}

vkml_status rt_npy_read_as(const char *path, ir_dtype want, rt_tensor *out, bool *converted) {
  void *buf;
  size_t n;
  memset(out, 0, sizeof *out);
  if (converted) *converted = false;
  VKML_RETURN_IF_ERROR(ir_file_read(path, &buf, &n));
  vkml_status s = rt_npy_parse_as(buf, n, path, want, out, converted);
  free(buf);
  return s;
}

static const char *descr_of(ir_dtype t) {
  switch (t) {
  case IR_F32: return "<f4";
  case IR_F16: return "<f2";
  case IR_I32: return "<i4";
  case IR_I64: return "<i8";
  case IR_U8: return "|u1";
  case IR_I8: return "|i1";
  case IR_BOOL: return "|b1";
  default: return NULL;
  }
}

vkml_status rt_npy_encode(const rt_tensor *t, void **out, size_t *out_bytes) {
  *out = NULL;
  *out_bytes = 0;
  const char *descr = descr_of(t->dtype);
  if (!descr) return vkml_status_make(VKML_CODE_UNSUPPORTED, "no .npy dtype for this tensor");
  char dict[512];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < t->rank; i++)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)t->dims[i],
                  t->rank == 1 ? "," : (i + 1 < t->rank ? ", " : ""));
  n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
  /* magic(6) + version(2) + len(2) + dict + padding + '\n', total % 64 == 0 */
  size_t total_hdr = (10 + (size_t)n + 1 + 63) / 64 * 64;
  size_t hlen = total_hdr - 10, data = rt_tensor_bytes(t);
  unsigned char *buf = malloc(total_hdr + data);
  if (!buf) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (unsigned char)(hlen & 0xff);
  buf[9] = (unsigned char)(hlen >> 8);
  memcpy(buf + 10, dict, (size_t)n);
  memset(buf + 10 + n, ' ', hlen - (size_t)n - 1);
  buf[total_hdr - 1] = '\n';
  if (data) memcpy(buf + total_hdr, t->data, data);
  *out = buf;
  *out_bytes = total_hdr + data;
  return VKML_OK;
}

vkml_status rt_npy_write(const char *path, const rt_tensor *t) {
  void *buf;
  size_t n;
  VKML_RETURN_IF_ERROR(rt_npy_encode(t, &buf, &n));
  vkml_status s = rt_file_write(path, buf, n);
  free(buf);
  return s;
}
