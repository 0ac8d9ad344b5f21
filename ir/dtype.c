/* Element type table and IEEE half conversion. */
#include "dtype.h"

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
