/* Element load/store and float-to-integer conversion (ir/dtype.h): the one
 * definition the importer's folding, the passes, codegen and the CPU
 * reference kernels share. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ir/dtype.h"

Test(dtype, f64_to_i64_truncates_and_saturates) {
  cr_assert_eq(ir_f64_to_i64(2.9), 2);
  cr_assert_eq(ir_f64_to_i64(-2.9), -2);
  cr_assert_eq(ir_f64_to_i64(NAN), 0);
  cr_assert_eq(ir_f64_to_i64(INFINITY), INT64_MAX);
  cr_assert_eq(ir_f64_to_i64(-INFINITY), INT64_MIN);
  cr_assert_eq(ir_f64_to_i64(9223372036854775808.0), INT64_MAX);   /* 2^63 */
  cr_assert_eq(ir_f64_to_i64(-9223372036854775808.0), INT64_MIN);  /* -2^63, exact */
  cr_assert_eq(ir_f64_to_i64(-1e300), INT64_MIN);
  cr_assert_eq(ir_f64_to_i64(9007199254740993.0), INT64_C(9007199254740992));
}

Test(dtype, f64_to_int_saturates_to_the_dtype) {
  cr_assert_eq(ir_f64_to_int(3e9, IR_I32), INT32_MAX);
  cr_assert_eq(ir_f64_to_int(-3e9, IR_I32), INT32_MIN);
  cr_assert_eq(ir_f64_to_int(300.7, IR_U8), 255);
  cr_assert_eq(ir_f64_to_int(-0.9, IR_U8), 0);
  cr_assert_eq(ir_f64_to_int(-5.5, IR_U8), 0);
  cr_assert_eq(ir_f64_to_int(-200.0, IR_I8), -128);
  cr_assert_eq(ir_f64_to_int(127.99, IR_I8), 127);
  cr_assert_eq(ir_f64_to_int(3e9, IR_I64), 3000000000);
  cr_assert_eq(ir_f64_to_int(3e9, IR_BOOL), 3000000000); /* bool: the int64 range */
  cr_assert_eq(ir_f64_to_int(NAN, IR_I8), 0);
}

Test(dtype, load_store_round_trip_every_dtype) {
  /* misaligned on purpose: constants sit at any byte offset */
  unsigned char buf[1 + 8 * 4 + 1];
  const double fv[4] = {1.5, -2.25, 1000.0, -0.0};
  const int64_t iv[4] = {1, -2, 100, 0};
  for (int t = 0; t < IR_DTYPE_COUNT; t++) {
    ir_dtype d = (ir_dtype)t;
    memset(buf, 0xa5, sizeof buf);
    for (int i = 0; i < 4; i++) {
      if (ir_dtype_is_float(d)) ir_dtype_store_f64(d, buf + 1, i, fv[i]);
      else ir_dtype_store_i64(d, buf + 1, i, d == IR_U8 ? (iv[i] < 0 ? -iv[i] : iv[i]) : iv[i]);
    }
    for (int i = 0; i < 4; i++) {
      if (ir_dtype_is_float(d)) {
        cr_assert_eq(ir_dtype_load_f64(d, buf + 1, i), fv[i], "%s[%d]", ir_dtype_name(d), i);
      } else if (d == IR_BOOL) {
        cr_assert_eq(ir_dtype_load_i64(d, buf + 1, i), iv[i] != 0, "bool[%d]", i);
      } else {
        int64_t want = d == IR_U8 ? (iv[i] < 0 ? -iv[i] : iv[i]) : iv[i];
        cr_assert_eq(ir_dtype_load_i64(d, buf + 1, i), want, "%s[%d]", ir_dtype_name(d), i);
        cr_assert_eq(ir_dtype_load_f64(d, buf + 1, i), (double)want);
      }
    }
    /* nothing written past the four elements */
    cr_assert_eq(buf[1 + 4 * ir_dtype_size(d)], 0xa5, "%s overran", ir_dtype_name(d));
  }
}

Test(dtype, conversions_across_kinds) {
  unsigned char b[8];
  /* float -> integer on store: truncation and saturation, then the width */
  ir_dtype_store_f64(IR_I32, b, 0, -7.9);
  cr_assert_eq(ir_dtype_load_i64(IR_I32, b, 0), -7);
  ir_dtype_store_f64(IR_I64, b, 0, NAN);
  cr_assert_eq(ir_dtype_load_i64(IR_I64, b, 0), 0);
  ir_dtype_store_f64(IR_I64, b, 0, 1e30);
  cr_assert_eq(ir_dtype_load_i64(IR_I64, b, 0), INT64_MAX);
  /* integers wrap to the width */
  ir_dtype_store_i64(IR_U8, b, 0, 257);
  cr_assert_eq(ir_dtype_load_i64(IR_U8, b, 0), 1);
  ir_dtype_store_i64(IR_I8, b, 0, 255);
  cr_assert_eq(ir_dtype_load_i64(IR_I8, b, 0), -1);
  ir_dtype_store_i64(IR_I32, b, 0, INT64_C(0x100000005));
  cr_assert_eq(ir_dtype_load_i64(IR_I32, b, 0), 5);
  /* bool is v != 0, NaN included */
  ir_dtype_store_f64(IR_BOOL, b, 0, NAN);
  cr_assert_eq(ir_dtype_load_i64(IR_BOOL, b, 0), 1);
  ir_dtype_store_f64(IR_BOOL, b, 0, 0.0);
  cr_assert_eq(ir_dtype_load_f64(IR_BOOL, b, 0), 0.0);
  /* f16: round to nearest even on store; integers through double */
  ir_dtype_store_f64(IR_F16, b, 0, 2049.0);  /* tie between 2048 and 2050 */
  cr_assert_eq(ir_dtype_load_f64(IR_F16, b, 0), 2048.0);
  ir_dtype_store_i64(IR_F16, b, 0, 2051);    /* tie between 2050 and 2052 */
  cr_assert_eq(ir_dtype_load_f64(IR_F16, b, 0), 2052.0);
  ir_dtype_store_f64(IR_F16, b, 0, 1e6);
  cr_assert(isinf(ir_dtype_load_f64(IR_F16, b, 0)));
  cr_assert_eq(ir_dtype_load_i64(IR_F16, b, 0), INT64_MAX);
  /* float -> integer on load: truncation */
  ir_dtype_store_f64(IR_F32, b, 0, -3.75);
  cr_assert_eq(ir_dtype_load_i64(IR_F32, b, 0), -3);
}
