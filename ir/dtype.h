/* Element types, their sizes and names, and fp16 <-> fp32 conversion.
 * Adding an element type is one row of IR_DTYPES. */
#ifndef IR_DTYPE_H
#define IR_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(ID, text name, size in bytes, is float, is signed integer) */
#define IR_DTYPES(X)                                                           \
  X(F32, "f32", 4, true, false)                                                \
  X(F16, "f16", 2, true, false)                                                \
  X(I32, "i32", 4, false, true)                                                \
  X(I64, "i64", 8, false, true)                                                \
  X(U8, "u8", 1, false, false)                                                 \
  X(I8, "i8", 1, false, true)                                                  \
  X(BOOL, "bool", 1, false, false)

typedef enum ir_dtype {
#define X(id, name, size, fl, sg) IR_##id,
  IR_DTYPES(X)
#undef X
      IR_DTYPE_COUNT
} ir_dtype;

size_t ir_dtype_size(ir_dtype t);
const char *ir_dtype_name(ir_dtype t);
bool ir_dtype_is_float(ir_dtype t);
bool ir_dtype_is_int(ir_dtype t); /* i32 i64 u8 i8 (not bool) */
/* Looks up "f32", "i64", ...; returns false if unknown. */
bool ir_dtype_from_name(const char *name, size_t len, ir_dtype *out);

/* IEEE binary16 conversion, round-to-nearest-even, NaN/Inf preserved. */
float ir_f16_to_f32(uint16_t h);
uint16_t ir_f32_to_f16(float f);

#endif
