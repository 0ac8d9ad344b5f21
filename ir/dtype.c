/* Element type table, IEEE half conversion, element load/store. */
#include "dtype.h"

#include <math.h>
#include <string.h>

static const struct {
  const char *name;
  size_t size;
  bool is_float, is_signed;
} dtypes[IR_DTYPE_COUNT] = {
#define X(id, name, size, fl, sg) [IR_##id] = {name, size, fl, sg},
    IR_DTYPES(X)
#undef X
};

size_t ir_dtype_size(ir_dtype t) { return dtypes[t].size; }
const char *ir_dtype_name(ir_dtype t) {
  return (unsigned)t < IR_DTYPE_COUNT ? dtypes[t].name : "?";
}
bool ir_dtype_is_float(ir_dtype t) { return dtypes[t].is_float; }
bool ir_dtype_is_int(ir_dtype t) { return !dtypes[t].is_float && t != IR_BOOL; }

bool ir_dtype_from_name(const char *name, size_t len, ir_dtype *out) {
  for (int i = 0; i < IR_DTYPE_COUNT; i++) {
    if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, name, len) == 0) {
      *out = (ir_dtype)i;
      return true;
    }
  }
  return false;
}

float ir_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { /* subnormal: normalise */
      int e = -1;
      do {
        e++;
        man <<= 1;
      } while (!(man & 0x400));
      bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t ir_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) /* inf / nan (keep a quiet nan bit) */
    return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) { /* subnormal or zero */
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000;
    int shift = 14 - e;
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)e << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++; /* may carry into exp: correct */
  return (uint16_t)(sign | half);
}

/* ---- conversions and element access ---------------------------------------- */

int64_t ir_f64_to_i64(double v) {
  if (isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

int64_t ir_f64_to_int(double v, ir_dtype t) {
  int64_t lo = INT64_MIN, hi = INT64_MAX, x = ir_f64_to_i64(v);
  switch (t) {
  case IR_I32: lo = INT32_MIN; hi = INT32_MAX; break;
  case IR_U8: lo = 0; hi = UINT8_MAX; break;
  case IR_I8: lo = INT8_MIN; hi = INT8_MAX; break;
  default: break;
  }
  return x < lo ? lo : (x > hi ? hi : x);
}

double ir_dtype_load_f64(ir_dtype t, const void *data, int64_t i) {
  const char *p = (const char *)data + (size_t)i * ir_dtype_size(t);
  switch (t) {
  case IR_F32: { float v; memcpy(&v, p, 4); return v; }
  case IR_F16: { uint16_t v; memcpy(&v, p, 2); return ir_f16_to_f32(v); }
  default: return (double)ir_dtype_load_i64(t, data, i);
  }
}

int64_t ir_dtype_load_i64(ir_dtype t, const void *data, int64_t i) {
  const char *p = (const char *)data + (size_t)i * ir_dtype_size(t);
  switch (t) {
  case IR_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case IR_I64: { int64_t v; memcpy(&v, p, 8); return v; }
  case IR_U8: return (uint8_t)*p;
  case IR_I8: return (int8_t)*p;
  case IR_BOOL: return *p != 0;
  case IR_F32:
  case IR_F16: return ir_f64_to_i64(ir_dtype_load_f64(t, data, i));
  default: return 0;
  }
}

void ir_dtype_store_f64(ir_dtype t, void *data, int64_t i, double v) {
  char *p = (char *)data + (size_t)i * ir_dtype_size(t);
  switch (t) {
  case IR_F32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case IR_F16: { uint16_t h = ir_f32_to_f16((float)v); memcpy(p, &h, 2); return; }
  case IR_BOOL: *p = v != 0; return;
  default: ir_dtype_store_i64(t, data, i, ir_f64_to_i64(v)); return;
  }
}

void ir_dtype_store_i64(ir_dtype t, void *data, int64_t i, int64_t v) {
  char *p = (char *)data + (size_t)i * ir_dtype_size(t);
  switch (t) {
  /* integers wrap to the width */
  case IR_I32: { int32_t x = (int32_t)(uint32_t)(uint64_t)v; memcpy(p, &x, 4); return; }
  case IR_I64: memcpy(p, &v, 8); return;
  case IR_U8: *(uint8_t *)p = (uint8_t)(uint64_t)v; return;
  case IR_I8: *(int8_t *)p = (int8_t)(uint8_t)(uint64_t)v; return;
  case IR_BOOL: *p = v != 0; return;
  case IR_F32:
  case IR_F16: ir_dtype_store_f64(t, data, i, (double)v); return;
  default: return;
  }
}
