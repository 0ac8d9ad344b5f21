/* .npy reading and writing against files written by NumPy itself. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "runtime/npy.h"
#include "../support/test_support.h"

static const char *path_of(const char *name) {
  static char buf[1024]; /* test-only scratch */
  snprintf(buf, sizeof buf, "%s/tests/runtime/npy/%s", VKML_SOURCE_ROOT, name);
  return buf;
}

static rt_tensor read_ok(const char *name) {
  rt_tensor t;
  T_OK(rt_npy_read(path_of(name), &t));
  return t;
}

static void expect_error(const char *name, vkml_code code, const char *substr) {
  rt_tensor t;
  vkml_status s = rt_npy_read(path_of(name), &t);
  cr_assert_not_null(s, "%s: expected an error", name);
  cr_assert_eq(vkml_status_code(s), code, "%s: code %s: %s", name,
               vkml_code_name(vkml_status_code(s)), vkml_status_message(s));
  cr_assert(strstr(vkml_status_message(s), substr), "%s: message '%s' lacks '%s'",
            name, vkml_status_message(s), substr);
  cr_assert(strstr(vkml_status_message(s), name), "message must name the file");
  cr_assert_null(t.data);
  vkml_status_free(s);
}

Test(npy, reads_every_dtype_written_by_numpy) {
  rt_tensor t = read_ok("f32_2x3.npy");
  cr_assert_eq(t.dtype, IR_F32);
  cr_assert_eq(t.rank, 2);
  cr_assert_eq(t.dims[0], 2);
  cr_assert_eq(t.dims[1], 3);
  double want[] = {1.5, -2.25, 3, 4, 5.125, -6};
  for (int i = 0; i < 6; i++) cr_assert_eq(rt_load_f(&t, i), want[i]);
  rt_tensor_free(&t);

  t = read_ok("f16_5.npy");
  cr_assert_eq(t.dtype, IR_F16);
  cr_assert_eq(rt_load_f(&t, 0), 0.5);
  cr_assert_eq(rt_load_f(&t, 1), -1);
  cr_assert_eq(rt_load_f(&t, 2), 65504);
  cr_assert_float_eq(rt_load_f(&t, 3), 6.1e-5, 1e-7);
  rt_tensor_free(&t);

  t = read_ok("i32_2x2x2.npy");
  cr_assert_eq(t.dtype, IR_I32);
  cr_assert_eq(t.rank, 3);
  for (int i = 0; i < 8; i++) cr_assert_eq(rt_load_i(&t, i), -3 * (i + 1));
  rt_tensor_free(&t);

  t = read_ok("i64_scalar.npy");
  cr_assert_eq(t.dtype, IR_I64);
  cr_assert_eq(t.rank, 0);
  cr_assert_eq(rt_load_i(&t, 0), -1234567890123LL);
  rt_tensor_free(&t);

  t = read_ok("u8_4.npy");
  cr_assert_eq(t.dtype, IR_U8);
  cr_assert_eq(rt_load_i(&t, 2), 200);
  cr_assert_eq(rt_load_i(&t, 3), 255);
  rt_tensor_free(&t);

  t = read_ok("i8_3.npy");
  cr_assert_eq(t.dtype, IR_I8);
  cr_assert_eq(rt_load_i(&t, 0), -128);
  cr_assert_eq(rt_load_i(&t, 2), 127);
  rt_tensor_free(&t);

  t = read_ok("bool_2x2.npy");
  cr_assert_eq(t.dtype, IR_BOOL);
  cr_assert_eq(rt_load_i(&t, 0), 1);
  cr_assert_eq(rt_load_i(&t, 1), 0);
  cr_assert_eq(rt_load_i(&t, 3), 1);
  rt_tensor_free(&t);

  t = read_ok("empty_0x3.npy");
  cr_assert_eq(t.rank, 2);
  cr_assert_eq(t.dims[0], 0);
  cr_assert_eq(t.dims[1], 3);
  rt_tensor_free(&t);

  t = read_ok("v2_f32.npy");
  cr_assert_eq(t.dims[0], 3);
  cr_assert_eq(rt_load_f(&t, 2), 9);
  rt_tensor_free(&t);
}

Test(npy, refuses_what_it_cannot_represent) {
  expect_error("f64_2.npy", VKML_CODE_UNSUPPORTED, "'<f8'");
  expect_error("be_f32.npy", VKML_CODE_UNSUPPORTED, "'>f4'");
  expect_error("fortran.npy", VKML_CODE_UNSUPPORTED, "Fortran");
  expect_error("truncated.npy", VKML_CODE_PARSE, "truncated");
  expect_error("trailing.npy", VKML_CODE_PARSE, "trailing");
  expect_error("badmagic.npy", VKML_CODE_PARSE, "magic");
  expect_error("garbage.npy", VKML_CODE_PARSE, "magic");
  expect_error("no_such_file.npy", VKML_CODE_IO, "No such file");
}

/* What a hostile user hands in: a symlink to /dev/zero, a sparse file far
 * larger than memory; refused before anything is read (no process killed by
 * the OOM killer). */
Test(npy, hostile_files_are_refused_before_reading) {
  char link[256], big[256];
  snprintf(link, sizeof link, "/tmp/vkml_test_npy_zero_%d.npy", (int)getpid());
  snprintf(big, sizeof big, "/tmp/vkml_test_npy_big_%d.npy", (int)getpid());
  unlink(link);
  cr_assert_eq(symlink("/dev/zero", link), 0);
  rt_tensor t;
  t_expect_error(rt_npy_read(link, &t), VKML_CODE_IO, "not a regular file");
  unlink(link);
  FILE *f = fopen(big, "wb");
  cr_assert(f);
  fclose(f);
  /* 1 TiB of holes (more than any machine here has): refused by size */
  if (truncate(big, (off_t)1 << 40) == 0)
    t_expect_error(rt_npy_read(big, &t), VKML_CODE_OUT_OF_MEMORY,
                   "1099511627776 bytes, more than the");
  else
    cr_log_warn("%s: no sparse 1 TiB file here (%s): size check not exercised", big,
                strerror(errno));
  unlink(big);
}

Test(npy, write_then_read_round_trips_bit_exact_for_every_dtype) {
  t_rng r = t_rng_make(11);
  for (int d = 0; d < IR_DTYPE_COUNT; d++) {
    int64_t dims[3] = {3, 1, 5};
    rt_tensor t = t_tensor_random(&r, (ir_dtype)d, 3, dims, -50, 50);
    char path[256];
    snprintf(path, sizeof path, "/tmp/vkml_test_npy_%d_%d.npy", (int)getpid(), d);
    T_OK(rt_npy_write(path, &t));
    rt_tensor back;
    T_OK(rt_npy_read(path, &back));
    cr_assert_eq(back.dtype, t.dtype);
    cr_assert_eq(back.rank, 3);
    cr_assert_eq(memcmp(back.data, t.data, rt_tensor_bytes(&t)), 0, "dtype %s", ir_dtype_name((ir_dtype)d));
    remove(path);
    rt_tensor_free(&t);
    rt_tensor_free(&back);
  }
}

Test(npy, encoded_header_is_numpy_layout) {
  int64_t dims[1] = {4};
  double v[4] = {1, 2, 3, 4};
  rt_tensor t = t_tensor_from(IR_F32, 1, dims, v);
  void *buf;
  size_t n;
  T_OK(rt_npy_encode(&t, &buf, &n));
  cr_assert_eq(n % 16, 0);
  cr_assert_eq((n - 16) % 64, 0, "header padded to 64 bytes");
  const char *hdr = (const char *)buf + 10;
  cr_assert(strstr(hdr, "'shape': (4,)"), "1-D shape needs a trailing comma");
  cr_assert_eq(((char *)buf)[n - 17], '\n');
  rt_tensor back;
  T_OK(rt_npy_parse(buf, n, "mem", &back));
  cr_assert_eq(rt_load_f(&back, 3), 4);
  free(buf);
  rt_tensor_free(&t);
  rt_tensor_free(&back);
}

Test(npy, mutated_headers_never_crash) {
  FILE *f = fopen(path_of("f32_2x3.npy"), "rb");
  cr_assert_not_null(f);
  unsigned char orig[256];
  size_t n = fread(orig, 1, sizeof orig, f);
  fclose(f);
  t_rng r = t_rng_make(3);
  for (int iter = 0; iter < 20000; iter++) {
    unsigned char m[256];
    memcpy(m, orig, n);
    int flips = 1 + (int)(t_rng_next(&r) % 4);
    for (int k = 0; k < flips; k++) m[t_rng_next(&r) % 90] = (unsigned char)t_rng_next(&r);
    size_t len = n - (t_rng_next(&r) % 8 == 0 ? t_rng_next(&r) % n : 0);
    rt_tensor t;
    vkml_status s = rt_npy_parse(m, len, "m", &t);
    if (!s) {
      cr_assert(rt_tensor_bytes(&t) <= len);
      rt_tensor_free(&t);
    }
    vkml_status_free(s);
  }
}
