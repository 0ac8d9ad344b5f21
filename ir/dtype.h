/* Element types, their sizes and names, fp16 <-> fp32 conversion, and element
 * load/store through double / int64 — the one definition of how values
 * convert between dtypes, shared by the importer's folding, the passes,
 * codegen's baked constants and the CPU reference kernels.
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

/* double -> int64 as every float-to-integer conversion here: truncation
 * toward zero, NaN -> 0, saturation at the int64 range (where C leaves the
 * conversion undefined). */
int64_t ir_f64_to_i64(double v);
/* ir_f64_to_i64, then saturated to the range of integer dtype t (i32 u8 i8;
 * i64 and bool: the int64 range) — ONNX Cast and integer clip bounds. */
int64_t ir_f64_to_int(double v, ir_dtype t);

/* Element i of an array of dtype t (no alignment needed), read or written
 * through double (float types) or int64 (integers, bool). Across kinds:
 * float -> integer by ir_f64_to_i64 then wrapping to the width (store) or
 * not (load), integer -> f16 rounded to nearest even, anything -> bool is
 * v != 0 (NaN too). */
double ir_dtype_load_f64(ir_dtype t, const void *data, int64_t i);
int64_t ir_dtype_load_i64(ir_dtype t, const void *data, int64_t i);
void ir_dtype_store_f64(ir_dtype t, void *data, int64_t i, double v);
void ir_dtype_store_i64(ir_dtype t, void *data, int64_t i, int64_t v);

#endif
