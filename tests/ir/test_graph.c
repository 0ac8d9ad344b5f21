/* The IR foundation: arena, element types, fp16 conversion, types, graph
 * builders, attributes, node list editing, status values and the op table. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ir/arena.h"
#include "ir/graph.h"
#include "ir/text.h"
#include "tests/support/test_support.h"

/* ---- arena ------------------------------------------------------------------ */

Test(arena, many_small_allocations_stay_intact) {
  ir_arena *a = ir_arena_create();
  cr_assert(a);
  enum { N = 20000 };
  static unsigned char *ptrs[N];
  static size_t sizes[N];
  t_rng r = t_rng_make(7);
  size_t total = 0;
  for (int i = 0; i < N; i++) {
    sizes[i] = (size_t)(t_rng_next(&r) % 200);
    ptrs[i] = ir_arena_alloc(a, sizes[i]);
    cr_assert(ptrs[i]);
    cr_assert_eq((uintptr_t)ptrs[i] % 16, 0, "allocation %d not 16-byte aligned", i);
    for (size_t j = 0; j < sizes[i]; j++) {
      cr_assert_eq(ptrs[i][j], 0, "allocation %d not zeroed", i);
      ptrs[i][j] = (unsigned char)(i * 31 + (int)j + 1);
    }
    total += sizes[i];
  }
  /* Nothing overlapped: every byte still holds what was written. */
  for (int i = 0; i < N; i++)
    for (size_t j = 0; j < sizes[i]; j++)
      cr_assert_eq(ptrs[i][j], (unsigned char)(i * 31 + (int)j + 1),
                   "allocation %d byte %zu clobbered", i, j);
  cr_assert_geq(ir_arena_used_bytes(a), total);
  ir_arena_destroy(a);
}

Test(arena, big_allocations) {
  ir_arena *a = ir_arena_create();
  size_t before = ir_arena_used_bytes(a);
  size_t big = (size_t)48 << 20;
  unsigned char *p = ir_arena_alloc(a, big);
  cr_assert(p);
  cr_assert_eq((uintptr_t)p % 16, 0);
  cr_assert(p[0] == 0 && p[big / 2] == 0 && p[big - 1] == 0);
  memset(p, 0xab, big);
  unsigned char *q = ir_arena_alloc(a, 100); /* after a big one: still fine */
  cr_assert(q && q[0] == 0 && q[99] == 0);
  cr_assert(q + 100 <= p || q >= p + big);
  cr_assert_eq(p[big - 1], 0xab);
  cr_assert_geq(ir_arena_used_bytes(a) - before, big + 100);
  /* Requests that cannot be satisfied fail cleanly. */
  cr_assert_null(ir_arena_alloc(a, SIZE_MAX));
  cr_assert_null(ir_arena_alloc(a, SIZE_MAX - 8));
  cr_assert_null(ir_arena_alloc(a, SIZE_MAX / 2 + 2));
  ir_arena_destroy(a);
}

Test(arena, dup_helpers) {
  ir_arena *a = ir_arena_create();
  const int64_t src[3] = {5, -7, INT64_MAX};
  int64_t *d = ir_arena_memdup(a, src, sizeof src);
  cr_assert(d && d != src && d[0] == 5 && d[1] == -7 && d[2] == INT64_MAX);
  cr_assert_not_null(ir_arena_memdup(a, NULL, 0));
  cr_assert_null(ir_arena_strdup(a, NULL));
  char *s = ir_arena_strdup(a, "conv_1");
  cr_assert_str_eq(s, "conv_1");
  char *n = ir_arena_strndup(a, "relu6xyz", 5);
  cr_assert_str_eq(n, "relu6");
  ir_arena_destroy(a);
  ir_arena_destroy(NULL);
}

/* ---- dtypes ------------------------------------------------------------------ */

Test(dtype, names_sizes_kinds) {
  static const struct {
    ir_dtype t;
    const char *name;
    size_t size;
    bool fl, in;
  } rows[] = {
      {IR_F32, "f32", 4, true, false}, {IR_F16, "f16", 2, true, false},
      {IR_I32, "i32", 4, false, true}, {IR_I64, "i64", 8, false, true},
      {IR_U8, "u8", 1, false, true},   {IR_I8, "i8", 1, false, true},
      {IR_BOOL, "bool", 1, false, false},
  };
  cr_assert_eq(IR_DTYPE_COUNT, 7);
  for (int i = 0; i < 7; i++) {
    cr_assert_str_eq(ir_dtype_name(rows[i].t), rows[i].name);
    cr_assert_eq(ir_dtype_size(rows[i].t), rows[i].size);
    cr_assert_eq(ir_dtype_is_float(rows[i].t), rows[i].fl);
    cr_assert_eq(ir_dtype_is_int(rows[i].t), rows[i].in);
    ir_dtype back;
    cr_assert(ir_dtype_from_name(rows[i].name, strlen(rows[i].name), &back));
    cr_assert_eq(back, rows[i].t);
  }
  ir_dtype d = IR_F32;
  cr_assert(!ir_dtype_from_name("f64", 3, &d));
  cr_assert(!ir_dtype_from_name("f3", 2, &d));   /* prefix only */
  cr_assert(!ir_dtype_from_name("f32x", 4, &d)); /* longer */
  cr_assert(ir_dtype_from_name("i64,", 3, &d) && d == IR_I64); /* length-bounded */
  cr_assert_str_eq(ir_dtype_name((ir_dtype)99), "?");
}

/* ---- fp16 ----------------------------------------------------------------------- */

static bool h_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

Test(f16, exhaustive_round_trip) {
  for (uint32_t h = 0; h < 65536; h++) {
    float f = ir_f16_to_f32((uint16_t)h);
    uint16_t back = ir_f32_to_f16(f);
    if (h_is_nan((uint16_t)h)) {
      cr_assert(isnan(f), "0x%04x should decode to NaN", h);
      cr_assert(h_is_nan(back), "0x%04x: NaN came back as 0x%04x", h, back);
      cr_assert_eq(back & 0x8000, h & 0x8000, "0x%04x: NaN sign lost", h);
    } else {
      cr_assert_eq(back, h, "0x%04x -> %.9g -> 0x%04x", h, (double)f, back);
    }
  }
}

Test(f16, decode_values) {
  /* value = (-1)^s * 2^(e-15) * (1 + m/1024), subnormal 2^-14 * m/1024 */
  for (uint32_t h = 0; h < 0x7c00; h += 37) {
    uint32_t e = h >> 10, m = h & 0x3ff;
    double want = e ? ldexp(1.0 + m / 1024.0, (int)e - 15) : ldexp(m / 1024.0, -14);
    cr_assert_eq((double)ir_f16_to_f32((uint16_t)h), want, "0x%04x", h);
    cr_assert_eq((double)ir_f16_to_f32((uint16_t)(h | 0x8000)), -want, "0x%04x", h);
  }
  cr_assert(isinf(ir_f16_to_f32(0x7c00)) && ir_f16_to_f32(0x7c00) > 0);
  cr_assert(isinf(ir_f16_to_f32(0xfc00)) && ir_f16_to_f32(0xfc00) < 0);
  cr_assert(signbit(ir_f16_to_f32(0x8000)) && ir_f16_to_f32(0x8000) == 0);
}

Test(f16, encode_rounding) {
  static const struct {
    double v;
    uint16_t h;
  } cases[] = {
      {1.0, 0x3c00},
      {-2.0, 0xc000},
      {0.1, 0x2e66},                 /* 0x2e66.66.. rounds down */
      {1.0 + 1.0 / 2048, 0x3c00},    /* tie: to even (down) */
      {1.0 + 3.0 / 2048, 0x3c02},    /* tie: to even (up) */
      {1.0 + 1.0 / 2048 + 1.0 / 65536, 0x3c01}, /* just above the tie */
      {65504.0, 0x7bff},             /* largest finite */
      {65519.0, 0x7bff},             /* below the midpoint to 65536 */
      {65520.0, 0x7c00},             /* midpoint: to even = overflow to inf */
      {1e6, 0x7c00},
      {-1e6, 0xfc00},
      {0x1p-14, 0x0400},             /* smallest normal */
      {0x1p-24, 0x0001},             /* smallest subnormal */
      {0x1p-25, 0x0000},             /* tie between 0 and 2^-24: to even 0 */
      {0x1.8p-25, 0x0001},           /* above the tie */
      {0x3p-25, 0x0002},             /* tie between 1 and 2 ulps: to even 2 */
      {0x5p-25, 0x0002},             /* tie between 2 and 3 ulps: to even 2 */
      {0x3ffp-24, 0x03ff},           /* largest subnormal */
      {0x7ffp-25, 0x0400},           /* tie into the first normal: even */
      {-0x1p-26, 0x8000},            /* underflow keeps the sign */
      {1e-10, 0x0000},
      {-0.0, 0x8000},
      {INFINITY, 0x7c00},
      {-INFINITY, 0xfc00},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint16_t got = ir_f32_to_f16((float)cases[i].v);
    cr_assert_eq(got, cases[i].h, "%a -> 0x%04x, want 0x%04x", cases[i].v, got,
                 cases[i].h);
  }
  cr_assert(h_is_nan(ir_f32_to_f16(NAN)));
  cr_assert(h_is_nan(ir_f32_to_f16(-NAN)));
  /* a NaN whose payload lives only in the low bits must stay NaN */
  uint32_t bits = 0x7f800001u;
  float low_nan;
  memcpy(&low_nan, &bits, 4);
  cr_assert(h_is_nan(ir_f32_to_f16(low_nan)));
}

Test(f16, nearest_on_random_values) {
  /* Against an independent oracle: the nearest of the two neighbouring
   * halves, found by search over the decoded (exact) values. */
  t_rng r = t_rng_make(11);
  for (int i = 0; i < 20000; i++) {
    float f = (float)t_rng_nonzero(&r, -70000, 70000) *
              (float)ldexp(1.0, (int)(t_rng_next(&r) % 40) - 30);
    uint16_t h = ir_f32_to_f16(f);
    double back = ir_f16_to_f32(h), err = fabs(back - (double)f);
    uint16_t mag = h & 0x7fff;
    if (mag == 0x7c00) {
      cr_assert_geq(fabs((double)f), 65520.0, "%a overflowed", (double)f);
      continue;
    }
    /* neighbours must not be strictly closer */
    if (mag > 0) {
      double lo = ir_f16_to_f32((uint16_t)(h - 1));
      cr_assert_leq(err, fabs(lo - (double)f), "%a -> 0x%04x", (double)f, h);
    }
    if (mag < 0x7bff) {
      double hi = ir_f16_to_f32((uint16_t)(h + 1));
      cr_assert_leq(err, fabs(hi - (double)f), "%a -> 0x%04x", (double)f, h);
    }
  }
}

/* ---- types ----------------------------------------------------------------------- */

Test(types, make_equal_numel_format) {
  int64_t d[3] = {1, 3, 5};
  ir_type t = ir_type_make(IR_F16, 3, d);
  cr_assert_eq(ir_type_numel(&t), 15);
  cr_assert_eq(ir_type_bytes(&t), 30);
  ir_type u = t;
  cr_assert(ir_type_equal(&t, &u));
  u.bounded = true;
  u.bounded_axis = 2;
  cr_assert(!ir_type_equal(&t, &u));
  char buf[64];
  ir_type_format(&u, buf, sizeof buf);
  cr_assert_str_eq(buf, "f16[1,3,<=5]");
  ir_type_format(&t, buf, 6); /* truncated, still terminated */
  cr_assert_eq(strlen(buf), 5);
  ir_type s = ir_type_make(IR_BOOL, 0, NULL);
  cr_assert_eq(ir_type_numel(&s), 1);
  ir_type_format(&s, buf, sizeof buf);
  cr_assert_str_eq(buf, "bool[]");
  u.dims[0] = 2;
  u.bounded = false;
  cr_assert(!ir_type_equal(&t, &u));
}

Test(types, check) {
  int64_t ok[2] = {INT64_C(1) << 20, INT64_C(1) << 20};
  ir_type t = ir_type_make(IR_F32, 2, ok);
  T_OK(ir_type_check(&t));
  int64_t big[2] = {INT64_C(1) << 21, INT64_C(1) << 20};
  t = ir_type_make(IR_F32, 2, big);
  vkml_status s = ir_type_check(&t);
  cr_assert(s && strstr(vkml_status_message(s), "too large"));
  vkml_status_free(s);
  int64_t neg[2] = {2, -1};
  t = ir_type_make(IR_F32, 2, neg);
  s = ir_type_check(&t);
  cr_assert(s && strstr(vkml_status_message(s), "negative dimension -1"));
  vkml_status_free(s);
  t = ir_type_make(IR_F32, 2, ok);
  t.rank = 9;
  s = ir_type_check(&t);
  cr_assert(s && strstr(vkml_status_message(s), "rank 9"));
  vkml_status_free(s);
  t = ir_type_make(IR_F32, 2, ok);
  t.bounded = true;
  t.bounded_axis = 2;
  s = ir_type_check(&t);
  cr_assert(s && strstr(vkml_status_message(s), "bounded axis"));
  vkml_status_free(s);
}

/* ---- graph building --------------------------------------------------------------- */

Test(graph, values_constants_inputs_outputs) {
  ir_graph *g;
  T_OK(ir_graph_create(NULL, &g));
  cr_assert_str_eq(g->name, "main");
  int64_t d[2] = {2, 3};
  ir_type t = ir_type_make(IR_F32, 2, d);
  ir_value *x, *y, *anon;
  T_OK(ir_value_create(g, "x", &t, &x));
  T_OK(ir_value_create(g, "y", &t, &y));
  T_OK(ir_value_create(g, NULL, &t, &anon));
  cr_assert_str_eq(x->name, "x");
  cr_assert(anon->name && strcmp(anon->name, "x") && strcmp(anon->name, "y"));
  cr_assert(x->id == 0 && y->id == 1 && anon->id == 2 && g->n_values == 3);
  cr_assert(ir_type_equal(&x->type, &t));
  cr_assert(!ir_value_is_const(x) && !x->producer);

  float data[6] = {1.5f, -2, 3, 4, 5, 6.25f};
  ir_value *c;
  T_OK(ir_const_create_inline(g, "c", &t, data, &c));
  data[0] = 99; /* the constant holds a copy */
  const float *cd = ir_value_const_data(g, c);
  cr_assert(ir_value_is_const(c) && cd && cd[0] == 1.5f && cd[5] == 6.25f);
  cr_assert_null(ir_value_const_data(g, x));

  ir_value *b;
  T_OK(ir_const_create_blob(g, "w", &t, 8, &b));
  cr_assert_null(ir_value_const_data(g, b)); /* no blob yet */
  uint8_t *blob = malloc(40);
  for (int i = 0; i < 40; i++) blob[i] = (uint8_t)(i + 1);
  ir_graph_set_blob(g, blob, 40, true);
  const uint8_t *bd = ir_value_const_data(g, b);
  cr_assert(bd == blob + 8 && bd[0] == 9);
  ir_value *far;
  T_OK(ir_const_create_blob(g, "far", &t, 20, &far)); /* 20 + 24 > 40 */
  cr_assert_null(ir_value_const_data(g, far));

  for (int i = 0; i < 20; i++) { /* grow past the first capacity */
    ir_value *v;
    T_OK(ir_value_create(g, NULL, &t, &v));
    T_OK(ir_graph_add_input(g, v));
    T_OK(ir_graph_add_output(g, v));
  }
  T_OK(ir_graph_add_input(g, x));
  cr_assert(g->n_inputs == 21 && g->inputs[20] == x && g->n_outputs == 20);
  cr_assert_eq(ir_graph_find_value(g, "w"), b);
  cr_assert_eq(ir_graph_find_value(g, "y"), y);
  cr_assert_null(ir_graph_find_value(g, "nope"));
  int n = 0;
  ir_foreach_value(g, v) cr_assert_eq(v->id, n++);
  cr_assert_eq(n, g->n_values);
  ir_graph_destroy(g); /* frees the owned blob */
}

static ir_node *node3(ir_graph *g, ir_value *in, const char *out_name) {
  ir_value *o;
  T_OK(ir_value_create(g, out_name, &in->type, &o));
  ir_node *n;
  T_OK(ir_node_create(g, IR_OP_RELU, &in, 1, &o, 1, &n));
  return n;
}

static void expect_order(ir_graph *g, ir_node *const *want, int n) {
  int i = 0;
  ir_node *prev = NULL;
  ir_foreach_node(g, x) {
    cr_assert(i < n, "more nodes than expected");
    cr_assert_eq(x, want[i], "node %d out of order", i);
    cr_assert_eq(x->prev, prev);
    prev = x;
    i++;
  }
  cr_assert_eq(i, n);
  cr_assert_eq(g->last, n ? want[n - 1] : NULL);
  cr_assert_eq(g->first, n ? want[0] : NULL);
}

Test(graph, nodes_remove_insert) {
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  int64_t d[1] = {4};
  ir_type t = ir_type_make(IR_F32, 1, d);
  ir_value *x;
  T_OK(ir_value_create(g, "x", &t, &x));
  ir_node *a = node3(g, x, "a"), *b = node3(g, a->outputs[0], "b"),
          *c = node3(g, b->outputs[0], "c");
  cr_assert(a->outputs[0]->producer == a && a->outputs[0]->producer_output == 0);
  cr_assert(b->inputs[0] == a->outputs[0] && b->n_inputs == 1 && b->n_outputs == 1);
  cr_assert(a->id == 0 && c->id == 2 && g->n_nodes == 3);
  expect_order(g, (ir_node *[]){a, b, c}, 3);
  ir_node_remove(g, b);
  expect_order(g, (ir_node *[]){a, c}, 2);
  ir_node_insert_before(g, a, b);
  expect_order(g, (ir_node *[]){b, a, c}, 3);
  ir_node_remove(g, c);
  expect_order(g, (ir_node *[]){b, a}, 2);
  ir_node_insert_before(g, NULL, c);
  expect_order(g, (ir_node *[]){b, a, c}, 3);
  ir_node_remove(g, b);
  ir_node_insert_before(g, c, b);
  expect_order(g, (ir_node *[]){a, b, c}, 3);
  ir_node_remove(g, a);
  ir_node_remove(g, b);
  ir_node_remove(g, c);
  expect_order(g, NULL, 0);
  ir_node_insert_before(g, NULL, b);
  expect_order(g, (ir_node *[]){b}, 1);
  ir_graph_destroy(g);
}

Test(graph, attributes) {
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  int64_t d[4] = {1, 3, 8, 8};
  ir_type t = ir_type_make(IR_F32, 4, d);
  ir_value *x, *y;
  T_OK(ir_value_create(g, "x", &t, &x));
  T_OK(ir_value_create(g, "y", &t, &y));
  ir_node *n;
  T_OK(ir_node_create(g, IR_OP_MAXPOOL, &x, 1, &y, 1, &n));
  cr_assert_null(ir_node_attr(n, IR_A_KERNEL));
  cr_assert_eq(ir_node_int(n, IR_A_CEIL_MODE, 7), 7);
  cr_assert_eq(ir_node_float(n, IR_A_ALPHA, 0.25f), 0.25f);
  const int64_t *iv;
  const float *fv;
  cr_assert_eq(ir_node_ints(n, IR_A_KERNEL, &iv), -1);
  cr_assert_null(iv);
  cr_assert_eq(ir_node_floats(n, IR_A_SCALES, &fv), -1);
  cr_assert_null(ir_node_string(n, IR_A_NAME));

  int64_t k[2] = {3, 2};
  T_OK(ir_node_set_ints(g, n, IR_A_KERNEL, k, 2));
  k[0] = 100; /* copied */
  cr_assert_eq(ir_node_ints(n, IR_A_KERNEL, &iv), 2);
  cr_assert(iv[0] == 3 && iv[1] == 2);
  T_OK(ir_node_set_int(g, n, IR_A_CEIL_MODE, 1));
  T_OK(ir_node_set_int(g, n, IR_A_CEIL_MODE, -5)); /* replaces */
  cr_assert_eq(ir_node_int(n, IR_A_CEIL_MODE, 0), -5);
  float sc[3] = {0.5f, 2, 1e-3f};
  T_OK(ir_node_set_floats(g, n, IR_A_SCALES, sc, 3));
  cr_assert_eq(ir_node_floats(n, IR_A_SCALES, &fv), 3);
  cr_assert(fv[0] == 0.5f && fv[2] == 1e-3f);
  T_OK(ir_node_set_float(g, n, IR_A_ALPHA, -1.75f));
  cr_assert_eq(ir_node_float(n, IR_A_ALPHA, 0), -1.75f);
  T_OK(ir_node_set_enum(g, n, IR_A_PAD_MODE, IR_PAD_EDGE));
  cr_assert_eq(ir_node_int(n, IR_A_PAD_MODE, 0), IR_PAD_EDGE);
  T_OK(ir_node_set_ints(g, n, IR_A_PADS, NULL, 0));
  cr_assert_eq(ir_node_ints(n, IR_A_PADS, &iv), 0);
  char src[] = "MaxPool_7";
  T_OK(ir_node_set_string(g, n, IR_A_NAME, src));
  src[0] = 'X';
  cr_assert_str_eq(ir_node_string(n, IR_A_NAME), "MaxPool_7");
  cr_assert_eq(n->n_attrs, 7);
  const ir_attr *a = ir_node_attr(n, IR_A_KERNEL);
  cr_assert(a && a->id == IR_A_KERNEL && a->n == 2);

  char buf[64];
  ir_node_describe(n, buf, sizeof buf);
  cr_assert_str_eq(buf, "maxpool %y (MaxPool_7)");
  ir_node *m;
  T_OK(ir_node_create(g, IR_OP_RELU, &y, 1, &x, 1, &m));
  ir_node_describe(m, buf, sizeof buf);
  cr_assert_str_eq(buf, "relu %x");
  ir_graph_destroy(g);
}

/* ---- op table ----------------------------------------------------------------------- */

Test(ops, names_and_attributes) {
  for (int i = 0; i < IR_OP_COUNT; i++) {
    const char *name = ir_op_name((ir_op)i);
    ir_op back;
    cr_assert(ir_op_from_name(name, strlen(name), &back) && back == (ir_op)i, "%s", name);
    const ir_op_info *info = ir_op_get((ir_op)i);
    cr_assert(info && info->infer, "%s has no inference", name);
    cr_assert(info->min_inputs >= 1 && info->min_outputs >= 1, "%s", name);
    cr_assert(ir_op_has_attr((ir_op)i, IR_A_NAME));
  }
  cr_assert_str_eq(ir_op_name(IR_OP_CONV2D), "conv2d");
  cr_assert_str_eq(ir_op_family(IR_OP_MAXPOOL), "pool");
  cr_assert_null(ir_op_get(IR_OP_COUNT));
  ir_op op;
  cr_assert(!ir_op_from_name("conv", 4, &op));
  ir_attr_id id;
  cr_assert(ir_op_attr_from_name(IR_OP_PAD, "mode", 4, &id) && id == IR_A_PAD_MODE);
  cr_assert(ir_op_attr_from_name(IR_OP_RESIZE, "mode", 4, &id) && id == IR_A_RESIZE_MODE);
  cr_assert(!ir_op_attr_from_name(IR_OP_RELU, "mode", 4, &id));
  cr_assert(ir_op_has_attr(IR_OP_CONV2D, IR_A_GROUP));
  cr_assert(!ir_op_has_attr(IR_OP_CONV2D, IR_A_OUTPUT_PADDING));
  cr_assert_str_eq(ir_enum_value_name(IR_ENUM_ACT, IR_ACT_RELU6), "relu6");
  cr_assert_str_eq(ir_enum_value_name(IR_ENUM_DTYPE, IR_I8), "i8");
  cr_assert_null(ir_enum_value_name(IR_ENUM_PAD_MODE, 3));
  int v;
  cr_assert(ir_enum_from_name(IR_ENUM_COORD_MODE, "align_corners", 13, &v) &&
            v == IR_COORD_ALIGN_CORNERS);
  cr_assert(!ir_enum_from_name(IR_ENUM_ROI_MODE, "min", 3, &v));
}

/* ---- status -------------------------------------------------------------------------- */

Test(status, make_annotate_message_code) {
  cr_assert_eq(vkml_status_code(VKML_OK), VKML_CODE_OK);
  cr_assert_str_eq(vkml_status_message(VKML_OK), "ok");
  cr_assert_null(vkml_status_annotate(VKML_OK, "file %s", "a.vkir"));
  cr_assert_null(vkml_status_make(VKML_CODE_OK, "nothing"));
  vkml_status s = vkml_status_make(VKML_CODE_INVALID_GRAPH, "node %d: %s", 4, "bad");
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_GRAPH);
  cr_assert_str_eq(vkml_status_message(s), "node 4: bad");
  cr_assert_eq(vkml_status_annotate(s, "%s:%d", "m.vkir", 12), s);
  cr_assert_str_eq(vkml_status_message(s), "m.vkir:12: node 4: bad");
  vkml_status_annotate(s, "outer");
  cr_assert_str_eq(vkml_status_message(s), "outer: m.vkir:12: node 4: bad");
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_GRAPH);
  vkml_status_free(s);
  vkml_status_free(VKML_OK);
  char longmsg[3000];
  memset(longmsg, 'z', sizeof longmsg - 1);
  longmsg[sizeof longmsg - 1] = 0;
  s = vkml_status_make(VKML_CODE_IO, "%s", longmsg);
  cr_assert_eq(strlen(vkml_status_message(s)), sizeof longmsg - 1);
  vkml_status_free(s);
  cr_assert_str_eq(vkml_code_name(VKML_CODE_OUT_OF_MEMORY), "out of memory");
  cr_assert_str_eq(vkml_code_name(VKML_CODE_PARSE), "parse error");
  cr_assert_str_eq(vkml_code_name((vkml_code)1234), "unknown");
}

/* ---- rewriting helpers (ir/rewrite.c) ---- */

Test(rewrite, blob_append_copies_a_borrowed_blob_aligns_and_grows) {
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  uint8_t borrowed[10];
  for (int i = 0; i < 10; i++) borrowed[i] = (uint8_t)(i + 1);
  ir_graph_set_blob(g, borrowed, sizeof borrowed, false);
  uint64_t off;
  float f[3] = {1.5f, -2.0f, 3.25f};
  T_OK(ir_graph_blob_append(g, f, sizeof f, &off));
  cr_assert_eq(off, 64);
  cr_assert_neq(g->blob, borrowed, "the borrowed blob is copied, not written");
  cr_assert_eq(g->blob_bytes, 64 + sizeof f);
  cr_assert_eq(memcmp(g->blob, borrowed, sizeof borrowed), 0);
  cr_assert_eq(memcmp(g->blob + off, f, sizeof f), 0);
  /* many appends: geometric growth keeps every earlier byte */
  uint64_t last = 0;
  for (int k = 0; k < 200; k++) {
    uint8_t chunk[100];
    memset(chunk, k + 1, sizeof chunk);
    T_OK(ir_graph_blob_append(g, chunk, sizeof chunk, &last));
    cr_assert_eq(last % 64, 0);
  }
  cr_assert_eq(memcmp(g->blob + off, f, sizeof f), 0);
  cr_assert_eq(g->blob[last], 200);
  cr_assert_leq(g->blob_bytes, g->blob_cap);
  ir_graph_destroy(g);
}

Test(rewrite, fresh_names_uses_and_dropping_unused_values) {
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  int64_t d[1] = {4};
  ir_type t = ir_type_make(IR_F32, 1, d);
  ir_value *x, *y, *z, *k, *k2;
  float kd[4] = {1, 2, 3, 4};
  T_OK(ir_value_create(g, "x", &t, &x));
  T_OK(ir_graph_add_input(g, x));
  T_OK(ir_const_create_inline(g, "k", &t, kd, &k));
  T_OK(ir_value_create_fresh(g, "k", "", &t, &k2));
  cr_assert_str_eq(k2->name, "k_2");
  T_OK(ir_value_create_fresh(g, "x", ".rows", &t, &y));
  cr_assert_str_eq(y->name, "x.rows");
  T_OK(ir_value_create(g, "z", &t, &z));
  ir_node *a, *b;
  ir_value *ins[2] = {x, k};
  T_OK(ir_node_create(g, IR_OP_ADD, ins, 2, &y, 1, &a));
  T_OK(ir_node_create(g, IR_OP_RELU, &y, 1, &z, 1, &b));
  T_OK(ir_graph_add_output(g, z));
  T_OK(ir_graph_add_output(g, y));
  int *uses;
  T_OK(ir_graph_count_uses(g, &uses));
  cr_assert_eq(uses[x->id], 1);
  cr_assert_eq(uses[y->id], 2); /* relu and the graph output */
  cr_assert_eq(uses[k2->id], 0);
  free(uses);
  cr_assert(ir_value_is_graph_output(g, y));
  cr_assert(ir_value_is_graph_input(g, x) && !ir_value_is_graph_input(g, y));
  ir_value_replace_uses(g, y, x);
  cr_assert_eq(b->inputs[0], x);
  cr_assert_eq(g->outputs[1], x);
  ir_node_remove(g, a);
  int dropped = 0;
  T_OK(ir_graph_drop_unused_values(g, &dropped));
  cr_assert_eq(dropped, 3, "k, k_2 and x.rows go; x and z stay"); /* k unused after a left */
  int n = 0;
  ir_foreach_value(g, v) n++;
  cr_assert_eq(n, 2);
  cr_assert_eq(g->last_value, z);
  ir_graph_destroy(g);
}

Test(rewrite, blob_compact_keeps_only_live_constants) {
  /* %a and %b share one range; bytes [128, 512) belong to nothing (the
   * fp32 originals the fp16 pass leaves behind, say) */
  const char *text = "vkir 1\n"
                     "graph @g(%x: f32[4]) -> (%y: f32[4], %z: f32[4]) {\n"
                     "  %a = const f32[4] @blob[256, 16]\n"
                     "  %b = const f32[4] @blob[256, 16]\n"
                     "  %c = const f32[4] @blob[64, 16]\n"
                     "  %s = add %x, %a : f32[4]\n"
                     "  %y = mul %s, %b : f32[4]\n"
                     "  %z = sub %x, %c : f32[4]\n"
                     "  return %y, %z\n"
                     "}\n";
  ir_graph *g;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  uint8_t blob[512];
  for (int i = 0; i < 512; i++) blob[i] = (uint8_t)(i * 7 + 1);
  ir_graph_set_blob(g, blob, sizeof blob, false);
  const uint8_t *want[3];
  const char *names[3] = {"a", "b", "c"};
  uint8_t before[3][16];
  for (int i = 0; i < 3; i++) {
    want[i] = ir_value_const_data(g, ir_graph_find_value(g, names[i]));
    memcpy(before[i], want[i], 16);
  }
  uint64_t saved;
  T_OK(ir_graph_blob_compact(g, &saved));
  cr_assert_eq(g->blob_bytes, 64 + 16, "%llu", (unsigned long long)g->blob_bytes);
  cr_assert_eq(saved, 512 - 80);
  cr_assert_neq(g->blob, blob);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(memcmp(ir_value_const_data(g, ir_graph_find_value(g, names[i])), before[i], 16), 0,
                 "%%%s", names[i]);
  cr_assert_eq(ir_graph_find_value(g, "a")->blob_offset, ir_graph_find_value(g, "b")->blob_offset);
  /* compact already: nothing changes */
  const uint8_t *kept = g->blob;
  T_OK(ir_graph_blob_compact(g, &saved));
  cr_assert_eq(saved, 0);
  cr_assert_eq(g->blob, kept);
  ir_graph_destroy(g);
}
