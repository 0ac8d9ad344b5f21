/* CPU reference kernels, data movement: copy family, transpose, concat,
 * split, slice, pad, expand, tile, gather, gather_elements. Expectations come
 * from naive index arithmetic written here or from hand-worked values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

static void set_ints(t_case *c, ir_attr_id id, int count, const int64_t *v) {
  T_OK(ir_node_set_ints(c->g, c->n, id, v, count));
}

static int64_t flatten_idx(int rank, const int64_t *dims, const int64_t *idx) {
  int64_t f = 0;
  for (int d = 0; d < rank; d++) f = f * dims[d] + idx[d];
  return f;
}

static int64_t numel(int rank, const int64_t *dims) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  return n;
}

/* Element i of got equals element j of src, bit for bit. */
static void expect_elem(const rt_tensor *got, int64_t i, const rt_tensor *src, int64_t j) {
  size_t es = ir_dtype_size(got->dtype);
  cr_assert(memcmp((char *)got->data + i * (int64_t)es, (char *)src->data + j * (int64_t)es, es) == 0,
            "element %lld should be source element %lld (%g vs %g)", (long long)i, (long long)j,
            rt_load_f(got, i), rt_load_f(src, j));
}

/* ---- copy family ------------------------------------------------------------- */

Test(copy, reshape_family_is_byte_copy) {
  t_rng r = t_rng_make(1);
  int64_t in_dims[3] = {2, 3, 4}, r2[2] = {4, 6}, r4[4] = {2, 1, 12, 1}, f[2] = {2, 12};
  const struct {
    ir_op op;
    int rank;
    const int64_t *dims;
  } cases[] = {{IR_OP_RESHAPE, 2, r2}, {IR_OP_FLATTEN, 2, f}, {IR_OP_UNSQUEEZE, 4, r4},
               {IR_OP_IDENTITY, 3, in_dims}};
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I64, IR_U8, IR_BOOL};
  for (int k = 0; k < 4; k++)
    for (int d = 0; d < 5; d++) {
      t_case c = {0};
      c.in[0] = t_tensor_random(&r, dts[d], 3, in_dims, -100, 100);
      if (dts[d] == IR_F16) ((uint16_t *)c.in[0].data)[5] = 0x7e01; /* NaN with payload */
      ir_type ot = ir_type_make(dts[d], cases[k].rank, cases[k].dims);
      t_case_make(&c, cases[k].op, 1, &ot, 1);
      if (cases[k].op == IR_OP_RESHAPE) set_ints(&c, IR_A_SHAPE, 2, r2);
      T_OK(t_case_run(&c));
      cr_assert(memcmp(c.out[0].data, c.in[0].data, rt_tensor_bytes(&c.in[0])) == 0, "%s %s",
                ir_op_name(cases[k].op), ir_dtype_name(dts[d]));
      t_case_free(&c);
    }
  /* squeeze of [2,1,3] -> [2,3] */
  int64_t sq_in[3] = {2, 1, 3}, sq_out[2] = {2, 3};
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, IR_I32, 3, sq_in, -100, 100);
  ir_type ot = ir_type_make(IR_I32, 2, sq_out);
  t_case_make(&c, IR_OP_SQUEEZE, 1, &ot, 1);
  T_OK(t_case_run(&c));
  for (int64_t i = 0; i < 6; i++) expect_elem(&c.out[0], i, &c.in[0], i);
  t_case_free(&c);

  /* an output of another element count is refused */
  c.in[0] = t_tensor_random(&r, IR_F32, 3, in_dims, -1, 1);
  ot = ir_type_make(IR_F32, 2, sq_out);
  t_case_make(&c, IR_OP_RESHAPE, 1, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INTERNAL, "elements");
  t_case_free(&c);
}

/* ---- transpose ------------------------------------------------------------------- */

static void transpose_case(ir_dtype dt, int rank, const int64_t *dims, const int64_t *perm,
                           uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t p[8], od[8], oidx[8], iidx[8];
  for (int d = 0; d < rank; d++) p[d] = perm ? perm[d] : rank - 1 - d;
  for (int d = 0; d < rank; d++) od[d] = dims[p[d]];
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -1000, 1000);
  ir_type ot = ir_type_make(dt, rank, od);
  t_case_make(&c, IR_OP_TRANSPOSE, 1, &ot, 1);
  if (perm) set_ints(&c, IR_A_PERM, rank, perm);
  T_OK(t_case_run(&c));
  int64_t n = numel(rank, od);
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, rank, od, oidx);
    for (int d = 0; d < rank; d++) iidx[p[d]] = oidx[d];
    expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, iidx));
  }
  t_case_free(&c);
}

Test(transpose, perms_up_to_rank5) {
  const int64_t d1[1] = {5}, d2[2] = {3, 4}, d3[3] = {2, 3, 4}, d4[4] = {2, 3, 1, 4},
                d5[5] = {2, 3, 1, 4, 2};
  const int64_t p1[] = {0}, p2[] = {1, 0}, p3a[] = {0, 2, 1}, p3b[] = {2, 0, 1}, p3c[] = {1, 2, 0},
                p4a[] = {0, 2, 3, 1}, p4b[] = {3, 1, 0, 2}, p5a[] = {4, 3, 2, 1, 0},
                p5b[] = {1, 3, 0, 4, 2}, p5c[] = {0, 1, 2, 4, 3};
  const ir_dtype dts[] = {IR_F32, IR_I64, IR_U8, IR_F16};
  uint64_t seed = 10;
  for (int k = 0; k < 4; k++) {
    transpose_case(dts[k], 1, d1, p1, seed++);
    transpose_case(dts[k], 2, d2, p2, seed++);
    transpose_case(dts[k], 3, d3, p3a, seed++);
    transpose_case(dts[k], 3, d3, p3b, seed++);
    transpose_case(dts[k], 3, d3, p3c, seed++);
    transpose_case(dts[k], 3, d3, NULL, seed++); /* default: reversed */
    transpose_case(dts[k], 4, d4, p4a, seed++);
    transpose_case(dts[k], 4, d4, p4b, seed++);
    transpose_case(dts[k], 5, d5, p5a, seed++);
    transpose_case(dts[k], 5, d5, p5b, seed++);
    transpose_case(dts[k], 5, d5, p5c, seed++);
  }
}

Test(transpose, hand_worked) {
  int64_t d[2] = {2, 3}, od[2] = {3, 2};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d, (double[]){1, 2, 3, 4, 5, 6});
  ir_type ot = ir_type_make(IR_F32, 2, od);
  t_case_make(&c, IR_OP_TRANSPOSE, 1, &ot, 1);
  T_OK(t_case_run(&c));
  const double want[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; i++) cr_assert_eq(rt_load_f(&c.out[0], i), want[i]);
  t_case_free(&c);
}

/* ---- concat / split ---------------------------------------------------------------- */

static void concat_case(ir_dtype dt, int axis_attr, int n_in, const int64_t *sizes, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  const int64_t base[3] = {2, 3, 4};
  int axis = axis_attr < 0 ? axis_attr + 3 : axis_attr;
  int64_t od[3] = {2, 3, 4};
  od[axis] = 0;
  t_case c = {0};
  for (int k = 0; k < n_in; k++) {
    int64_t d[3] = {base[0], base[1], base[2]};
    d[axis] = sizes[k];
    od[axis] += sizes[k];
    c.in[k] = t_tensor_random(&r, dt, 3, d, -100, 100);
  }
  ir_type ot = ir_type_make(dt, 3, od);
  t_case_make(&c, IR_OP_CONCAT, n_in, &ot, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, axis_attr));
  T_OK(t_case_run(&c));
  int64_t n = numel(3, od), idx[3];
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, 3, od, idx);
    int k = 0;
    while (idx[axis] >= c.in[k].dims[axis]) idx[axis] -= c.in[k++].dims[axis];
    expect_elem(&c.out[0], i, &c.in[k], flatten_idx(3, c.in[k].dims, idx));
  }
  t_case_free(&c);
}

Test(concat, each_axis_uneven) {
  const int64_t s3[] = {1, 3, 2}, s4[] = {2, 0, 1, 3}, s1[] = {3};
  uint64_t seed = 100;
  for (int axis = -3; axis < 3; axis++) {
    concat_case(IR_F32, axis, 3, s3, seed++);
    concat_case(IR_I8, axis, 4, s4, seed++);
    concat_case(IR_F16, axis, 1, s1, seed++);
  }
}

Test(concat, mismatched_inputs) {
  int64_t a[2] = {2, 3}, b[2] = {3, 3}, o[2] = {4, 3};
  t_case c = {0};
  c.in[0] = t_tensor_zeros(IR_F32, 2, a);
  c.in[1] = t_tensor_zeros(IR_F32, 2, b);
  ir_type ot = ir_type_make(IR_F32, 2, o);
  t_case_make(&c, IR_OP_CONCAT, 2, &ot, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, 1));
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "shape");
  t_case_free(&c);
}

static void split_case(ir_dtype dt, int axis_attr, int n_out, const int64_t *sizes,
                       uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t d[3] = {4, 6, 5};
  int axis = axis_attr < 0 ? axis_attr + 3 : axis_attr;
  ir_type ot[8];
  for (int k = 0; k < n_out; k++) {
    int64_t od[3] = {d[0], d[1], d[2]};
    od[axis] = sizes ? sizes[k] : d[axis] / n_out;
    ot[k] = ir_type_make(dt, 3, od);
  }
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, 3, d, -100, 100);
  t_case_make(&c, IR_OP_SPLIT, 1, ot, n_out);
  if (axis_attr != 0) T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, axis_attr));
  if (sizes) set_ints(&c, IR_A_SPLIT, n_out, sizes);
  T_OK(t_case_run(&c));
  int64_t first = 0, idx[3];
  for (int k = 0; k < n_out; k++) {
    int64_t n = numel(3, ot[k].dims);
    for (int64_t i = 0; i < n; i++) {
      t_unflatten(i, 3, ot[k].dims, idx);
      idx[axis] += first;
      expect_elem(&c.out[k], i, &c.in[0], flatten_idx(3, d, idx));
    }
    first += ot[k].dims[axis];
  }
  t_case_free(&c);
}

Test(split, each_axis) {
  uint64_t seed = 200;
  const int64_t s0[] = {1, 3}, s1[] = {2, 0, 4}, s2[] = {1, 2, 2};
  const ir_dtype dts[] = {IR_F32, IR_I64, IR_U8};
  for (int k = 0; k < 3; k++) {
    split_case(dts[k], 0, 2, s0, seed++);
    split_case(dts[k], 1, 3, s1, seed++);
    split_case(dts[k], 2, 3, s2, seed++);
    split_case(dts[k], -1, 3, s2, seed++);
    split_case(dts[k], 0, 2, NULL, seed++);  /* equal parts */
    split_case(dts[k], -2, 3, NULL, seed++); /* 6 / 3 */
    split_case(dts[k], 2, 5, NULL, seed++);
  }
}

Test(split, bad_sizes) {
  int64_t d[2] = {4, 6}, o1[2] = {4, 2}, o2[2] = {4, 3};
  ir_type ot[2] = {ir_type_make(IR_F32, 2, o1), ir_type_make(IR_F32, 2, o2)};
  t_case c = {0};
  c.in[0] = t_tensor_zeros(IR_F32, 2, d);
  t_case_make(&c, IR_OP_SPLIT, 1, ot, 2);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, 1));
  set_ints(&c, IR_A_SPLIT, 2, (int64_t[]){2, 3});
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "sum");
  t_case_free(&c);

  int64_t oe[2] = {4, 1};
  ir_type o4 = ir_type_make(IR_F32, 2, oe), ot4[4] = {o4, o4, o4, o4};
  c.in[0] = t_tensor_zeros(IR_F32, 2, d);
  t_case_make(&c, IR_OP_SPLIT, 1, ot4, 4);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, 1));
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "equal");
  t_case_free(&c);
}

/* ---- slice ------------------------------------------------------------------------ */

/* ONNX Slice resolution, written out independently of ir/params.c. */
static void ref_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *s0,
                           int64_t *cnt) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = start < 0 ? 0 : start > dim ? dim : start;
    end = end < 0 ? 0 : end > dim ? dim : end;
    *cnt = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
    end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
    *cnt = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  }
  *s0 = start;
}

typedef struct slice_spec {
  int n;
  int64_t starts[4], ends[4], axes[4], steps[4];
  bool has_axes, has_steps;
} slice_spec;

static void slice_case(ir_dtype dt, int rank, const int64_t *dims, const slice_spec *sp,
                       uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t start[8], step[8], cnt[8];
  for (int d = 0; d < rank; d++) {
    start[d] = 0;
    step[d] = 1;
    cnt[d] = dims[d];
  }
  for (int k = 0; k < sp->n; k++) {
    int64_t ax = sp->has_axes ? sp->axes[k] : k;
    if (ax < 0) ax += rank;
    step[ax] = sp->has_steps ? sp->steps[k] : 1;
    ref_slice_axis(dims[ax], sp->starts[k], sp->ends[k], step[ax], &start[ax], &cnt[ax]);
  }
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -100, 100);
  ir_type ot = ir_type_make(dt, rank, cnt);
  t_case_make(&c, IR_OP_SLICE, 1, &ot, 1);
  set_ints(&c, IR_A_STARTS, sp->n, sp->starts);
  set_ints(&c, IR_A_ENDS, sp->n, sp->ends);
  if (sp->has_axes) set_ints(&c, IR_A_AXES, sp->n, sp->axes);
  if (sp->has_steps) set_ints(&c, IR_A_STEPS, sp->n, sp->steps);
  T_OK(t_case_run(&c));
  int64_t n = numel(rank, cnt), oidx[8], iidx[8];
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, rank, cnt, oidx);
    for (int d = 0; d < rank; d++) iidx[d] = start[d] + oidx[d] * step[d];
    expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, iidx));
  }
  t_case_free(&c);
}

Test(slice, onnx_rules) {
  const int64_t d2[2] = {5, 4}, d3[3] = {4, 5, 6};
  const slice_spec specs2[] = {
      {1, {1}, {-1}, {0}, {0}, false, false},
      {2, {-1, 3}, {INT64_MIN, INT64_MIN}, {0}, {-1, -2}, false, true}, /* full reversal */
      {1, {0}, {INT64_MAX}, {1}, {2}, true, true},
      {1, {10}, {-10}, {0}, {-3}, false, true},                          /* clamps both */
      {2, {-2, 1}, {100, -1}, {-1, 0}, {1, 1}, true, true},              /* negative axes */
      {1, {-100}, {100}, {0}, {1}, false, false},
      {1, {3}, {1}, {0}, {1}, false, false},                             /* empty */
      {1, {1}, {3}, {-1}, {-1}, true, true},                             /* empty, step < 0 */
  };
  const slice_spec specs3[] = {
      {3, {3, -1, 1}, {0, -6, INT64_MAX}, {0, 1, 2}, {-2, -2, 3}, true, true},
      {2, {1, 0}, {INT64_MAX, 2}, {2, 0}, {2, 1}, true, true},
      {1, {-3}, {-1}, {1}, {1}, true, false},
  };
  uint64_t seed = 300;
  const ir_dtype dts[] = {IR_F32, IR_I32, IR_I8};
  for (int k = 0; k < 3; k++) {
    for (size_t s = 0; s < sizeof specs2 / sizeof *specs2; s++)
      slice_case(dts[k], 2, d2, &specs2[s], seed++);
    for (size_t s = 0; s < sizeof specs3 / sizeof *specs3; s++)
      slice_case(dts[k], 3, d3, &specs3[s], seed++);
  }
}

Test(slice, hand_worked) {
  int64_t d = 10, o = 3;
  double v[10];
  for (int i = 0; i < 10; i++) v[i] = i + 1;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_I64, 1, &d, v);
  ir_type ot = ir_type_make(IR_I64, 1, &o);
  t_case_make(&c, IR_OP_SLICE, 1, &ot, 1);
  set_ints(&c, IR_A_STARTS, 1, (int64_t[]){8});
  set_ints(&c, IR_A_ENDS, 1, (int64_t[]){1});
  set_ints(&c, IR_A_STEPS, 1, (int64_t[]){-3});
  T_OK(t_case_run(&c));
  cr_assert_eq(rt_load_i(&c.out[0], 0), 9);
  cr_assert_eq(rt_load_i(&c.out[0], 1), 6);
  cr_assert_eq(rt_load_i(&c.out[0], 2), 3);
  t_case_free(&c);
}

/* ---- pad ----------------------------------------------------------------------------- */

/* Naive pad for pads that do not crop and reflect pads < dim. */
static void pad_case(ir_dtype dt, int rank, const int64_t *dims, const int64_t *pads, int mode,
                     float value, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t od[8], oidx[8], iidx[8];
  for (int d = 0; d < rank; d++) od[d] = dims[d] + pads[d] + pads[rank + d];
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -100, 100);
  ir_type ot = ir_type_make(dt, rank, od);
  t_case_make(&c, IR_OP_PAD, 1, &ot, 1);
  set_ints(&c, IR_A_PADS, 2 * rank, pads);
  if (mode) T_OK(ir_node_set_enum(c.g, c.n, IR_A_PAD_MODE, mode));
  if (value != 0) T_OK(ir_node_set_float(c.g, c.n, IR_A_VALUE, value));
  T_OK(t_case_run(&c));
  int64_t n = numel(rank, od);
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, rank, od, oidx);
    bool inside = true;
    for (int d = 0; d < rank; d++) {
      int64_t x = oidx[d] - pads[d], len = dims[d];
      if (x < 0 || x >= len) {
        inside = false;
        if (mode == IR_PAD_REFLECT) x = x < 0 ? -x : 2 * (len - 1) - x;
        if (mode == IR_PAD_EDGE) x = x < 0 ? 0 : len - 1;
      }
      iidx[d] = x;
    }
    if (inside || mode != IR_PAD_CONSTANT) {
      expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, iidx));
    } else if (ir_dtype_is_float(dt)) {
      cr_assert_eq(rt_load_f(&c.out[0], i), (double)value, "pad value at %lld", (long long)i);
    } else {
      /* truncated toward zero, saturated to the dtype (u8: -3 -> 0) */
      int64_t pv = (int64_t)value;
      if (dt == IR_U8 && pv < 0) pv = 0;
      cr_assert_eq(rt_load_i(&c.out[0], i), pv, "pad value at %lld", (long long)i);
    }
  }
  t_case_free(&c);
}

Test(pad, constant_reflect_edge) {
  const int64_t d2[2] = {3, 4}, d3[3] = {2, 3, 4};
  const int64_t p_a[4] = {1, 2, 0, 1}, p_b[4] = {2, 1, 1, 3}, p_c[4] = {1, 2, 3, 1},
                p_3[6] = {1, 0, 2, 0, 2, 1};
  uint64_t seed = 400;
  const ir_dtype dts[] = {IR_F32, IR_I64, IR_U8, IR_F16};
  for (int k = 0; k < 4; k++) {
    pad_case(dts[k], 2, d2, p_a, IR_PAD_CONSTANT, 0, seed++);
    pad_case(dts[k], 2, d2, p_a, IR_PAD_CONSTANT, 2.5f, seed++);
    pad_case(dts[k], 2, d2, p_b, IR_PAD_REFLECT, 0, seed++);
    pad_case(dts[k], 2, d2, p_c, IR_PAD_EDGE, 0, seed++);
    pad_case(dts[k], 3, d3, p_3, IR_PAD_CONSTANT, -3, seed++);
    pad_case(dts[k], 3, d3, p_3, IR_PAD_REFLECT, 0, seed++);
    pad_case(dts[k], 3, d3, p_3, IR_PAD_EDGE, 0, seed++);
  }
}

static void pad_hand(int64_t len, const double *x, int64_t begin, int64_t end, int mode,
                     float value, int64_t out_len, const double *want) {
  int64_t d[2] = {1, len}, od[2] = {1, out_len};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d, x);
  ir_type ot = ir_type_make(IR_F32, 2, od);
  t_case_make(&c, IR_OP_PAD, 1, &ot, 1);
  set_ints(&c, IR_A_PADS, 4, (int64_t[]){0, begin, 0, end});
  T_OK(ir_node_set_enum(c.g, c.n, IR_A_PAD_MODE, mode));
  T_OK(ir_node_set_float(c.g, c.n, IR_A_VALUE, value));
  T_OK(t_case_run(&c));
  for (int64_t i = 0; i < out_len; i++)
    cr_assert_eq(rt_load_f(&c.out[0], i), want[i], "mode %d [%lld]: got %g want %g", mode,
                 (long long)i, rt_load_f(&c.out[0], i), want[i]);
  t_case_free(&c);
}

Test(pad, negative_and_wide) {
  const double x[5] = {1, 2, 3, 4, 5};
  /* crop one at the start, pad two at the end */
  pad_hand(5, x, -1, 2, IR_PAD_CONSTANT, 9, 6, (double[]){2, 3, 4, 5, 9, 9});
  /* reflect / edge work on the cropped extent (onnxruntime) */
  pad_hand(5, x, -1, 2, IR_PAD_REFLECT, 0, 6, (double[]){2, 3, 4, 5, 4, 3});
  pad_hand(5, x, 2, -2, IR_PAD_EDGE, 0, 5, (double[]){1, 1, 1, 2, 3});
  pad_hand(5, x, -2, 2, IR_PAD_EDGE, 0, 5, (double[]){3, 4, 5, 5, 5});
  pad_hand(5, x, 2, -1, IR_PAD_REFLECT, 0, 6, (double[]){3, 2, 1, 2, 3, 4});
  pad_hand(5, x, -2, -2, IR_PAD_REFLECT, 0, 1, (double[]){3});
  /* reflect wider than the axis repeats, as numpy.pad */
  pad_hand(3, x, 4, 0, IR_PAD_REFLECT, 0, 7, (double[]){1, 2, 3, 2, 1, 2, 3});
  pad_hand(1, x, 2, 1, IR_PAD_REFLECT, 0, 4, (double[]){1, 1, 1, 1});

  /* rank 2: crop rows, pad and crop columns */
  int64_t d[2] = {3, 4}, od[2] = {2, 3};
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i + 1;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_I32, 2, d, v);
  ir_type ot = ir_type_make(IR_I32, 2, od);
  t_case_make(&c, IR_OP_PAD, 1, &ot, 1);
  set_ints(&c, IR_A_PADS, 4, (int64_t[]){-1, 1, 0, -2});
  T_OK(ir_node_set_float(c.g, c.n, IR_A_VALUE, -7.9f));
  T_OK(t_case_run(&c));
  const int64_t want[6] = {-7, 5, 6, -7, 9, 10};
  for (int i = 0; i < 6; i++) cr_assert_eq(rt_load_i(&c.out[0], i), want[i], "[%d]", i);
  t_case_free(&c);

  /* cropping more than the axis holds is an error */
  int64_t d1[1] = {3}, o1[1] = {0};
  c.in[0] = t_tensor_zeros(IR_F32, 1, d1);
  ot = ir_type_make(IR_F32, 1, o1);
  t_case_make(&c, IR_OP_PAD, 1, &ot, 1);
  set_ints(&c, IR_A_PADS, 2, (int64_t[]){-4, 1});
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "crop");
  t_case_free(&c);
}

/* ---- expand / tile ------------------------------------------------------------------ */

static void expand_case(ir_dtype dt, int rank, const int64_t *dims, int n_shape,
                        const int64_t *shape, int orank, const int64_t *od, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -100, 100);
  ir_type ot = ir_type_make(dt, orank, od);
  t_case_make(&c, IR_OP_EXPAND, 1, &ot, 1);
  set_ints(&c, IR_A_SHAPE, n_shape, shape);
  T_OK(t_case_run(&c));
  int64_t n = numel(orank, od), oidx[8], iidx[8];
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, orank, od, oidx);
    for (int d = 0; d < rank; d++) iidx[d] = dims[d] == 1 ? 0 : oidx[orank - rank + d];
    expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, iidx));
  }
  t_case_free(&c);
}

Test(expand, bidirectional) {
  uint64_t seed = 500;
  const ir_dtype dts[] = {IR_F32, IR_I64, IR_BOOL};
  for (int k = 0; k < 3; k++) {
    expand_case(dts[k], 2, (int64_t[]){3, 1}, 3, (int64_t[]){2, 1, 4}, 3, (int64_t[]){2, 3, 4},
                seed++);
    expand_case(dts[k], 2, (int64_t[]){2, 3}, 1, (int64_t[]){3}, 2, (int64_t[]){2, 3}, seed++);
    expand_case(dts[k], 2, (int64_t[]){3, 1}, 2, (int64_t[]){1, 1}, 2, (int64_t[]){3, 1}, seed++);
    expand_case(dts[k], 0, (int64_t[]){1}, 2, (int64_t[]){2, 2}, 2, (int64_t[]){2, 2}, seed++);
    expand_case(dts[k], 3, (int64_t[]){1, 4, 1}, 4, (int64_t[]){2, 3, 1, 5}, 4,
                (int64_t[]){2, 3, 4, 5}, seed++);
  }
  t_case c = {0};
  int64_t d = 3, o = 4;
  c.in[0] = t_tensor_zeros(IR_F32, 1, &d);
  ir_type ot = ir_type_make(IR_F32, 1, &o);
  t_case_make(&c, IR_OP_EXPAND, 1, &ot, 1);
  set_ints(&c, IR_A_SHAPE, 1, &o);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "broadcast");
  t_case_free(&c);
}

static void tile_case(ir_dtype dt, int rank, const int64_t *dims, const int64_t *rep,
                      uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t od[8], oidx[8], iidx[8];
  for (int d = 0; d < rank; d++) od[d] = dims[d] * rep[d];
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -100, 100);
  ir_type ot = ir_type_make(dt, rank, od);
  t_case_make(&c, IR_OP_TILE, 1, &ot, 1);
  set_ints(&c, IR_A_REPEATS, rank, rep);
  T_OK(t_case_run(&c));
  int64_t n = numel(rank, od);
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, rank, od, oidx);
    for (int d = 0; d < rank; d++) iidx[d] = oidx[d] - (oidx[d] / dims[d]) * dims[d];
    expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, iidx));
  }
  t_case_free(&c);
}

Test(tile, repeats) {
  uint64_t seed = 600;
  const ir_dtype dts[] = {IR_F32, IR_I8, IR_I64};
  for (int k = 0; k < 3; k++) {
    tile_case(dts[k], 2, (int64_t[]){2, 3}, (int64_t[]){2, 3}, seed++);
    tile_case(dts[k], 3, (int64_t[]){2, 1, 3}, (int64_t[]){1, 4, 2}, seed++);
    tile_case(dts[k], 2, (int64_t[]){2, 3}, (int64_t[]){0, 1}, seed++);
    tile_case(dts[k], 1, (int64_t[]){4}, (int64_t[]){1}, seed++);
  }
  int64_t d[2] = {1, 2}, od[2] = {2, 4};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d, (double[]){7, 8});
  ir_type ot = ir_type_make(IR_F32, 2, od);
  t_case_make(&c, IR_OP_TILE, 1, &ot, 1);
  set_ints(&c, IR_A_REPEATS, 2, (int64_t[]){2, 2});
  T_OK(t_case_run(&c));
  const double want[8] = {7, 8, 7, 8, 7, 8, 7, 8};
  for (int i = 0; i < 8; i++) cr_assert_eq(rt_load_f(&c.out[0], i), want[i]);
  t_case_free(&c);
}

/* ---- gather ------------------------------------------------------------------------- */

static void gather_case(ir_dtype dt, ir_dtype it, int rank, const int64_t *dims, int axis_attr,
                        int irank, const int64_t *idims, const int64_t *ivals, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  int orank = rank - 1 + irank;
  int64_t od[8], oidx[8], iidx[8], jidx[8];
  int o = 0;
  for (int d = 0; d < axis; d++) od[o++] = dims[d];
  for (int d = 0; d < irank; d++) od[o++] = idims[d];
  for (int d = axis + 1; d < rank; d++) od[o++] = dims[d];
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -100, 100);
  c.in[1] = t_tensor_zeros(it, irank, idims);
  int64_t ni = numel(irank, idims);
  for (int64_t i = 0; i < ni; i++) rt_store_i(&c.in[1], i, ivals[i]);
  ir_type ot = ir_type_make(dt, orank, od);
  t_case_make(&c, IR_OP_GATHER, 2, &ot, 1);
  if (axis_attr) T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, axis_attr));
  T_OK(t_case_run(&c));
  int64_t n = numel(orank, od);
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, orank, od, oidx);
    for (int d = 0; d < irank; d++) jidx[d] = oidx[axis + d];
    int64_t k = ivals[flatten_idx(irank, idims, jidx)];
    if (k < 0) k += dims[axis];
    for (int d = 0; d < rank; d++)
      iidx[d] = d < axis ? oidx[d] : d == axis ? k : oidx[d - 1 + irank];
    expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, iidx));
  }
  t_case_free(&c);
}

Test(gather, axes_and_negative_indices) {
  uint64_t seed = 700;
  const int64_t d2[2] = {5, 4}, d3[3] = {2, 3, 4};
  gather_case(IR_F32, IR_I64, 2, d2, 0, 1, (int64_t[]){3}, (int64_t[]){4, -1, 0}, seed++);
  gather_case(IR_I64, IR_I32, 2, d2, 1, 2, (int64_t[]){2, 2}, (int64_t[]){-4, 3, 1, 0}, seed++);
  gather_case(IR_F16, IR_I32, 3, d3, -1, 1, (int64_t[]){2}, (int64_t[]){-1, 2}, seed++);
  gather_case(IR_U8, IR_I64, 3, d3, 1, 2, (int64_t[]){1, 3}, (int64_t[]){2, -3, 1}, seed++);
  gather_case(IR_F32, IR_I64, 3, d3, 2, 3, (int64_t[]){2, 1, 2}, (int64_t[]){3, 0, -2, 1}, seed++);
  /* scalar indices drop the axis */
  gather_case(IR_F32, IR_I64, 2, d2, 1, 0, (int64_t[]){1}, (int64_t[]){-2}, seed++);
  gather_case(IR_I32, IR_I32, 1, (int64_t[]){6}, 0, 0, (int64_t[]){1}, (int64_t[]){5}, seed++);
}

Test(gather, out_of_range_index_is_an_error) {
  int64_t d[2] = {5, 2}, di = 3, od[2] = {3, 2};
  const int64_t bad[2] = {5, -6};
  for (int k = 0; k < 2; k++) {
    t_case c = {0};
    c.in[0] = t_tensor_zeros(IR_F32, 2, d);
    c.in[1] = t_tensor_zeros(IR_I64, 1, &di);
    rt_store_i(&c.in[1], 0, 1);
    rt_store_i(&c.in[1], 1, bad[k]);
    ir_type ot = ir_type_make(IR_F32, 2, od);
    t_case_make(&c, IR_OP_GATHER, 2, &ot, 1);
    char want[32];
    snprintf(want, sizeof want, "index %lld", (long long)bad[k]);
    t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, want);
    t_case_free(&c);
  }
}

static void gather_elements_case(ir_dtype dt, int rank, const int64_t *dims, int axis_attr,
                                 const int64_t *idims, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, rank, dims, -100, 100);
  c.in[1] = t_tensor_zeros(IR_I64, rank, idims);
  int64_t n = numel(rank, idims), oidx[8];
  int n_neg = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = (int64_t)(t_rng_next(&r) % (uint64_t)(2 * dims[axis])) - dims[axis];
    n_neg += v < 0;
    rt_store_i(&c.in[1], i, v);
  }
  cr_assert(n_neg > 0 && n_neg < n);
  ir_type ot = ir_type_make(dt, rank, idims);
  t_case_make(&c, IR_OP_GATHER_ELEMENTS, 2, &ot, 1);
  if (axis_attr) T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, axis_attr));
  T_OK(t_case_run(&c));
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, rank, idims, oidx);
    int64_t k = rt_load_i(&c.in[1], i);
    oidx[axis] = k < 0 ? k + dims[axis] : k;
    expect_elem(&c.out[0], i, &c.in[0], flatten_idx(rank, dims, oidx));
  }
  t_case_free(&c);
}

Test(gather_elements, axes) {
  uint64_t seed = 800;
  gather_elements_case(IR_F32, 2, (int64_t[]){3, 4}, 0, (int64_t[]){5, 4}, seed++);
  gather_elements_case(IR_I64, 2, (int64_t[]){3, 4}, 1, (int64_t[]){3, 6}, seed++);
  gather_elements_case(IR_F16, 2, (int64_t[]){3, 4}, 1, (int64_t[]){2, 3}, seed++);
  gather_elements_case(IR_I8, 3, (int64_t[]){2, 3, 4}, -1, (int64_t[]){2, 2, 5}, seed++);
  gather_elements_case(IR_F32, 3, (int64_t[]){2, 3, 4}, 1, (int64_t[]){2, 4, 4}, seed++);
}

Test(gather_elements, hand_worked_and_errors) {
  /* ONNX example: data [[1,2],[3,4]], indices [[0,0],[1,0]], axis 1 */
  int64_t d[2] = {2, 2};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d, (double[]){1, 2, 3, 4});
  c.in[1] = t_tensor_from(IR_I32, 2, d, (double[]){0, 0, 1, 0});
  ir_type ot = ir_type_make(IR_F32, 2, d);
  t_case_make(&c, IR_OP_GATHER_ELEMENTS, 2, &ot, 1);
  T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, 1));
  T_OK(t_case_run(&c));
  const double want[4] = {1, 1, 4, 3};
  for (int i = 0; i < 4; i++) cr_assert_eq(rt_load_f(&c.out[0], i), want[i]);
  t_case_free(&c);

  c.in[0] = t_tensor_from(IR_F32, 2, d, (double[]){1, 2, 3, 4});
  c.in[1] = t_tensor_from(IR_I64, 2, d, (double[]){0, 0, 2, 0});
  t_case_make(&c, IR_OP_GATHER_ELEMENTS, 2, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "index 2");
  t_case_free(&c);
}
