/* runtime/tensor_pb.c: TensorProto bytes built by hand here (packed and
 * unpacked encodings, every supported dtype, corrupt inputs), plus files
 * of the ONNX test data. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tensor_pb.h"
#include "test_support.h"

typedef struct buf {
  unsigned char b[4096];
  size_t n;
} buf;

static void put_varint(buf *o, uint64_t v) {
  do {
    unsigned char c = v & 0x7f;
    v >>= 7;
    o->b[o->n++] = c | (v ? 0x80 : 0);
  } while (v);
}
static void put_key(buf *o, unsigned field, unsigned wire) {
  put_varint(o, (uint64_t)field << 3 | wire);
}
static void put_bytes(buf *o, unsigned field, const void *p, size_t n) {
  put_key(o, field, 2);
  put_varint(o, n);
  memcpy(o->b + o->n, p, n);
  o->n += n;
}
/* A packed varint field from int64 values. */
static void put_packed(buf *o, unsigned field, const int64_t *v, int cnt) {
  buf tmp = {.n = 0};
  for (int i = 0; i < cnt; i++) put_varint(&tmp, (uint64_t)v[i]);
  put_bytes(o, field, tmp.b, tmp.n);
}
static void put_dims(buf *o, const int64_t *d, int rank) { put_packed(o, 1, d, rank); }
static void put_type(buf *o, int t) {
  put_key(o, 2, 0);
  put_varint(o, (uint64_t)t);
}

static rt_tensor parse_ok(const buf *o, char **name) {
  rt_tensor t;
  T_OK(rt_tensor_parse_pb(o->b, o->n, "t.pb", &t, name));
  return t;
}

static void parse_fails(const buf *o, vkml_code code, const char *want) {
  rt_tensor t;
  char *name = (char *)1;
  vkml_status s = rt_tensor_parse_pb(o->b, o->n, "t.pb", &t, &name);
  cr_assert(s != VKML_OK, "parsed, expected '%s'", want);
  cr_expect(strstr(vkml_status_message(s), want), "'%s' lacks '%s'",
            vkml_status_message(s), want);
  cr_expect(strncmp(vkml_status_message(s), "t.pb: ", 6) == 0);
  cr_expect_eq(vkml_status_code(s), code, "%s", vkml_status_message(s));
  cr_expect(t.data == NULL && name == NULL);
  vkml_status_free(s);
}

Test(tensor_pb, raw_float_with_name) {
  t_rng r = t_rng_make(3);
  float v[6];
  for (int i = 0; i < 6; i++) v[i] = (float)t_rng_nonzero(&r, -4, 4);
  buf o = {.n = 0};
  put_dims(&o, (const int64_t[]){2, 3}, 2);
  put_type(&o, 1);
  put_bytes(&o, 8, "input:0", 7);
  put_bytes(&o, 9, v, sizeof v);
  char *name;
  rt_tensor t = parse_ok(&o, &name);
  cr_expect_str_eq(name, "input:0");
  cr_expect(t.dtype == IR_F32 && t.rank == 2 && t.dims[0] == 2 && t.dims[1] == 3);
  for (int i = 0; i < 6; i++) cr_expect_eq(((float *)t.data)[i], v[i]);
  free(name);
  rt_tensor_free(&t);
}

Test(tensor_pb, float_data_packed_and_unpacked) {
  float v[3] = {1.5f, -2.25f, 1e-3f};
  buf o = {.n = 0};
  put_dims(&o, (const int64_t[]){3}, 1);
  put_type(&o, 1);
  put_bytes(&o, 4, v, 8); /* packed: first two */
  put_key(&o, 4, 5);      /* unpacked fixed32: the third */
  memcpy(o.b + o.n, &v[2], 4);
  o.n += 4;
  rt_tensor t = parse_ok(&o, NULL);
  for (int i = 0; i < 3; i++) cr_expect_eq(((float *)t.data)[i], v[i]);
  rt_tensor_free(&t);
}

Test(tensor_pb, int32_data_for_small_types) {
  /* int8 (negative values: sign-extended 10-byte varints), uint8, bool,
   * int32, and f16 bit patterns all travel in int32_data. */
  struct {
    int onnx;
    ir_dtype dt;
    int64_t in[4];
    double want[4];
  } cases[] = {
      {3, IR_I8, {-128, -1, 5, 127}, {-128, -1, 5, 127}},
      {2, IR_U8, {0, 200, 255, 17}, {0, 200, 255, 17}},
      {9, IR_BOOL, {1, 0, 1, 1}, {1, 0, 1, 1}},
      {6, IR_I32, {-2147483648LL, 7, -9, 2147483647}, {-2147483648.0, 7, -9, 2147483647}},
      {10, IR_F16, {0x3c00, 0xc000, 0x3800, 0x7c00}, {1.0, -2.0, 0.5, INFINITY}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    buf o = {.n = 0};
    put_dims(&o, (const int64_t[]){2, 2}, 2);
    put_type(&o, cases[c].onnx);
    put_packed(&o, 5, cases[c].in, 4);
    rt_tensor t = parse_ok(&o, NULL);
    cr_expect_eq(t.dtype, cases[c].dt, "case %zu", c);
    for (int i = 0; i < 4; i++)
      cr_expect_eq(rt_load_f(&t, i), cases[c].want[i], "case %zu [%d]: %g", c, i,
                   rt_load_f(&t, i));
    rt_tensor_free(&t);
  }
}

Test(tensor_pb, int64_data_unpacked_and_unpacked_dims) {
  buf o = {.n = 0};
  put_key(&o, 1, 0); /* dims, one varint each */
  put_varint(&o, 3);
  put_type(&o, 7);
  const int64_t v[3] = {INT64_MIN, -5, 1234567890123LL};
  for (int i = 0; i < 3; i++) {
    put_key(&o, 7, 0);
    put_varint(&o, (uint64_t)v[i]);
  }
  rt_tensor t = parse_ok(&o, NULL);
  cr_expect(t.rank == 1 && t.dims[0] == 3 && t.dtype == IR_I64);
  for (int i = 0; i < 3; i++) cr_expect_eq(((int64_t *)t.data)[i], v[i]);
  rt_tensor_free(&t);
}

Test(tensor_pb, scalar_and_empty) {
  buf o = {.n = 0};
  put_type(&o, 7);
  put_packed(&o, 7, (const int64_t[]){42}, 1);
  rt_tensor t = parse_ok(&o, NULL);
  cr_expect(t.rank == 0 && ((int64_t *)t.data)[0] == 42);
  rt_tensor_free(&t);
  o.n = 0;
  put_dims(&o, (const int64_t[]){0, 3}, 2);
  put_type(&o, 1);
  t = parse_ok(&o, NULL);
  cr_expect(t.rank == 2 && rt_tensor_numel(&t) == 0);
  rt_tensor_free(&t);
}

Test(tensor_pb, unsupported_types_name_the_type) {
  const struct {
    int code;
    const char *name;
  } types[] = {{11, "DOUBLE"}, {8, "STRING"}, {4, "UINT16"}, {16, "BFLOAT16"},
               {13, "UINT64"}, {99, "an unknown type"}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    buf o = {.n = 0};
    put_dims(&o, (const int64_t[]){1}, 1);
    put_type(&o, types[i].code);
    put_bytes(&o, 9, "\0\0\0\0\0\0\0\0", 8);
    char want[64];
    snprintf(want, sizeof want, "element type %s is not supported", types[i].name);
    parse_fails(&o, VKML_CODE_UNSUPPORTED, want);
  }
}

Test(tensor_pb, corrupt_inputs) {
  float v[4] = {1, 2, 3, 4};
  buf o = {.n = 0};
  put_dims(&o, (const int64_t[]){4}, 1);
  put_type(&o, 1);
  put_bytes(&o, 9, v, 12); /* 3 floats for 4 elements */
  parse_fails(&o, VKML_CODE_PARSE, "raw_data has 12 bytes, f32[4 elements] needs 16");

  o.n = 0;
  put_dims(&o, (const int64_t[]){4}, 1);
  put_type(&o, 1);
  put_bytes(&o, 4, v, 12);
  parse_fails(&o, VKML_CODE_PARSE, "3 values stored, the shape needs 4");

  o.n = 0;
  put_dims(&o, (const int64_t[]){2}, 1);
  put_bytes(&o, 9, v, 8);
  parse_fails(&o, VKML_CODE_PARSE, "no data_type");

  o.n = 0;
  put_dims(&o, (const int64_t[]){2}, 1);
  put_type(&o, 1);
  put_bytes(&o, 9, v, 8);
  o.n -= 3; /* truncated inside raw_data */
  parse_fails(&o, VKML_CODE_PARSE, "truncated or corrupt field");

  o.n = 0;
  put_dims(&o, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1}, 9);
  put_type(&o, 1);
  parse_fails(&o, VKML_CODE_UNSUPPORTED, "tensor rank above 8");

  o.n = 0;
  put_dims(&o, (const int64_t[]){-3}, 1);
  put_type(&o, 1);
  parse_fails(&o, VKML_CODE_PARSE, "negative dimension");

  /* A huge shape with little data: refused before allocating. */
  o.n = 0;
  put_dims(&o, (const int64_t[]){1 << 20, 1 << 19}, 2);
  put_type(&o, 1);
  put_bytes(&o, 9, v, 16);
  parse_fails(&o, VKML_CODE_PARSE, "raw_data has 16 bytes");

  o.n = 0;
  put_dims(&o, (const int64_t[]){2}, 1);
  put_type(&o, 1);
  put_key(&o, 4, 0); /* float_data as a varint: wrong wire type */
  put_varint(&o, 1);
  put_key(&o, 4, 0);
  put_varint(&o, 1);
  parse_fails(&o, VKML_CODE_PARSE, "corrupt typed data field");

  o.n = 0;
  put_type(&o, 1);
  put_key(&o, 14, 0);
  put_varint(&o, 1);
  parse_fails(&o, VKML_CODE_UNSUPPORTED, "external data");
}

Test(tensor_pb, every_prefix_of_a_tensor) {
  float v[5] = {1, 2, 3, 4, 5};
  buf o = {.n = 0};
  put_dims(&o, (const int64_t[]){5}, 1);
  put_type(&o, 1);
  put_bytes(&o, 8, "x", 1);
  put_bytes(&o, 9, v, sizeof v);
  for (size_t len = 0; len < o.n; len++) {
    rt_tensor t;
    vkml_status s = rt_tensor_parse_pb(o.b, len, NULL, &t, NULL);
    cr_expect(s != VKML_OK, "prefix of %zu bytes parsed", len);
    cr_expect(t.data == NULL);
    vkml_status_free(s);
  }
}

Test(tensor_pb, onnx_test_data_file) {
  const char *p = "/usr/share/libonnx-testdata/data/node/test_add/test_data_set_0/input_0.pb";
  FILE *f = fopen(p, "rb");
  if (!f) cr_skip_test("ONNX test data not installed");
  fclose(f);
  rt_tensor t;
  char *name;
  T_OK(rt_tensor_read_pb(p, &t, &name));
  cr_expect(t.dtype == IR_F32 && t.rank == 3);
  cr_expect(t.dims[0] == 3 && t.dims[1] == 4 && t.dims[2] == 5);
  cr_expect_str_eq(name, "x");
  /* Random normal data: not all zero, finite. */
  int nonzero = 0;
  for (int64_t i = 0; i < rt_tensor_numel(&t); i++) {
    double x = rt_load_f(&t, i);
    cr_expect(isfinite(x));
    nonzero += x != 0;
  }
  cr_expect(nonzero > 50);
  free(name);
  rt_tensor_free(&t);

  vkml_status s = rt_tensor_read_pb("/nonexistent/x.pb", &t, NULL);
  cr_expect_eq(vkml_status_code(s), VKML_CODE_IO);
  cr_expect(strstr(vkml_status_message(s), "/nonexistent/x.pb: cannot open"));
  vkml_status_free(s);
}
