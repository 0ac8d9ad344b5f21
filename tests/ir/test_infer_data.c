/* Shape inference of data-movement and vision ops (hand-worked expected
 * types, error messages by substring), and robustness: random and mutated
 * attribute contents must give a type or an error, never a crash. */
#include <math.h>

#include "tests/ir/infer_check.h"

/* ---- data movement ---------------------------------------------------------------- */

Test(tensor, reshape_flatten) {
  tn t = MK(IR_OP_RESHAPE, 1, F32(2, 3, 4));
  INTS(t, IR_A_SHAPE, 4, 6);
  expect(t, F32(4, 6));
  t = MK(IR_OP_RESHAPE, 1, TY(IR_I8, 0, 5));
  INTS(t, IR_A_SHAPE, 5, 0, 7);
  expect(t, TY(IR_I8, 5, 0, 7));
  t = MK(IR_OP_RESHAPE, 1, F32(1));
  T_OK(ir_node_set_ints(t.g, t.n, IR_A_SHAPE, NULL, 0));
  expect(t, SC(IR_F32));
  t = MK(IR_OP_RESHAPE, 1, F32(3, 4));
  INTS(t, IR_A_SHAPE, 5, 3);
  expect_err(t, "reshape: 12 elements cannot become [5,3]");
  /* one -1: the rest of the elements; a second one, or -2, is an error */
  t = MK(IR_OP_RESHAPE, 1, F32(3, 4));
  INTS(t, IR_A_SHAPE, -1, 3);
  expect(t, F32(4, 3));
  t = MK(IR_OP_RESHAPE, 1, F32(3, 4));
  INTS(t, IR_A_SHAPE, -1, -1);
  expect_err(t, "reshape: shape[1] is -1; every dim is explicit and >= 0, but for one -1");
  t = MK(IR_OP_RESHAPE, 1, F32(3, 4));
  INTS(t, IR_A_SHAPE, -1, 5);
  expect_err(t, "reshape: 12 elements cannot become [-1,5]");
  expect_err(MK(IR_OP_RESHAPE, 1, F32(3, 4)), "reshape: shape is required");
  t = MK(IR_OP_RESHAPE, 1, F32(3, 4));
  INTS(t, IR_A_SHAPE, INT64_MAX, INT64_MAX, 2);
  expect_err(t, "cannot become");
  t = MK(IR_OP_RESHAPE, 1, F32(0));
  INTS(t, IR_A_SHAPE, 0, INT64_MAX);
  expect_err(t, "too large");
  /* a bounded input: its size goes to the -1 (bounded there) */
  t = MK(IR_OP_RESHAPE, 1, bnd(F32(5, 3), 0));
  INTS(t, IR_A_SHAPE, 15);
  expect_err(t, "reshape: a bounded input needs a -1 in the shape");
  t = MK(IR_OP_RESHAPE, 1, bnd(F32(5, 3), 0));
  INTS(t, IR_A_SHAPE, 3, -1);
  expect(t, bnd(F32(3, 5), 1));

  expect(MK(IR_OP_FLATTEN, 1, F32(2, 3, 4, 5)), F32(2, 60));
  t = MK(IR_OP_FLATTEN, 1, F32(2, 3, 4, 5));
  INT(t, IR_A_AXIS, 0);
  expect(t, F32(1, 120));
  t = MK(IR_OP_FLATTEN, 1, F32(2, 3, 4, 5));
  INT(t, IR_A_AXIS, 4);
  expect(t, F32(120, 1));
  t = MK(IR_OP_FLATTEN, 1, F32(2, 3, 4, 5));
  INT(t, IR_A_AXIS, -1);
  expect(t, F32(24, 5));
  t = MK(IR_OP_FLATTEN, 1, bnd(F32(7, 3, 2), 1));
  INT(t, IR_A_AXIS, 1);
  expect(t, bnd(F32(7, 6), 1));
  t = MK(IR_OP_FLATTEN, 1, F32(2, 3));
  INT(t, IR_A_AXIS, 3);
  expect_err(t, "flatten: axis 3 out of range for rank 2");
  t = MK(IR_OP_FLATTEN, 1, F32(0, INT64_C(1) << 40, INT64_C(1) << 40));
  INT(t, IR_A_AXIS, 1);
  expect_err(t, "flatten: size overflows");
}

Test(tensor, squeeze_unsqueeze) {
  expect(MK(IR_OP_SQUEEZE, 1, F32(1, 3, 1, 4)), F32(3, 4));
  tn t = MK(IR_OP_SQUEEZE, 1, F32(1, 3, 1, 4));
  INTS(t, IR_A_AXES, -2);
  expect(t, F32(1, 3, 4));
  t = MK(IR_OP_SQUEEZE, 1, bnd(F32(1, 9, 1), 1));
  expect(t, bnd(F32(9), 0));
  t = MK(IR_OP_SQUEEZE, 1, F32(1, 3));
  INTS(t, IR_A_AXES, 1);
  expect_err(t, "squeeze: axis 1 has size 3, not 1");
  t = MK(IR_OP_SQUEEZE, 1, F32(1, 3));
  INTS(t, IR_A_AXES, 0, -2);
  expect_err(t, "squeeze: axis 0 appears twice");
  t = MK(IR_OP_SQUEEZE, 1, F32(1, 3));
  INTS(t, IR_A_AXES, INT64_MIN);
  expect_err(t, "squeeze: axes[0]: axis -9223372036854775808 out of range");
  expect_err(MK(IR_OP_SQUEEZE, 1, bnd(F32(1, 3), 0)), "cannot remove bounded axis 0");

  t = MK(IR_OP_UNSQUEEZE, 1, F32(3, 4));
  INTS(t, IR_A_AXES, 0, 3);
  expect(t, F32(1, 3, 4, 1));
  t = MK(IR_OP_UNSQUEEZE, 1, F32(3, 4));
  INTS(t, IR_A_AXES, -1);
  expect(t, F32(3, 4, 1));
  t = MK(IR_OP_UNSQUEEZE, 1, SC(IR_I64));
  INTS(t, IR_A_AXES, 0);
  expect(t, I64(1));
  t = MK(IR_OP_UNSQUEEZE, 1, bnd(F32(9, 4), 0));
  INTS(t, IR_A_AXES, 0, 2);
  expect(t, bnd(F32(1, 9, 1, 4), 1));
  expect_err(MK(IR_OP_UNSQUEEZE, 1, F32(3)), "unsqueeze: axes is required");
  t = MK(IR_OP_UNSQUEEZE, 1, F32(3));
  INTS(t, IR_A_AXES, 1, -1);
  expect(t, F32(3, 1, 1));
  t = MK(IR_OP_UNSQUEEZE, 1, F32(3));
  INTS(t, IR_A_AXES, 1, -2);
  expect_err(t, "unsqueeze: axis 1 appears twice");
  t = MK(IR_OP_UNSQUEEZE, 1, F32(3));
  INTS(t, IR_A_AXES, 2);
  expect_err(t, "unsqueeze: axes[0]: axis 2 out of range for rank 2");
  t = MK(IR_OP_UNSQUEEZE, 1, F32(1, 1, 1, 1, 1, 1, 1));
  INTS(t, IR_A_AXES, 0, 1);
  expect_err(t, "unsqueeze: rank 7 + 2 new axes exceeds 8");
}

Test(tensor, transpose_concat) {
  expect(MK(IR_OP_TRANSPOSE, 1, F32(2, 3, 4)), F32(4, 3, 2));
  tn t = MK(IR_OP_TRANSPOSE, 1, bnd(F32(9, 3, 4), 0));
  INTS(t, IR_A_PERM, 1, 2, 0);
  expect(t, bnd(F32(3, 4, 9), 2));
  t = MK(IR_OP_TRANSPOSE, 1, F32(2, 3, 4));
  INTS(t, IR_A_PERM, 0, 2, 2);
  expect_err(t, "transpose: perm is not a permutation (2 appears twice)");
  t = MK(IR_OP_TRANSPOSE, 1, F32(2, 3, 4));
  INTS(t, IR_A_PERM, 1, 0);
  expect_err(t, "transpose: perm has 2 entries, input has rank 3");
  t = MK(IR_OP_TRANSPOSE, 1, F32(2, 3));
  INTS(t, IR_A_PERM, 0, INT64_MAX);
  expect_err(t, "perm[1] is 9223372036854775807, outside [0, 2)");

  t = MK(IR_OP_CONCAT, 1, F32(2, 3), F32(2, 5), F32(2, 0));
  INT(t, IR_A_AXIS, -1);
  expect(t, F32(2, 8));
  t = MK(IR_OP_CONCAT, 1, bnd(F32(9, 3), 0), F32(4, 3));
  INT(t, IR_A_AXIS, 0);
  expect(t, bnd(F32(13, 3), 0));
  t = MK(IR_OP_CONCAT, 1, F32(2, 3), F32(3, 3));
  INT(t, IR_A_AXIS, 1);
  expect_err(t, "concat: input 1 [3,3] differs from input 0 [2,3] along axis 0");
  t = MK(IR_OP_CONCAT, 1, F32(2, 3), F32(2));
  INT(t, IR_A_AXIS, 0);
  expect_err(t, "concat: input 1 [2] has rank 1, input 0 [2,3] has rank 2");
  t = MK(IR_OP_CONCAT, 1, F32(2, 3), TY(IR_I32, 2, 3));
  INT(t, IR_A_AXIS, 0);
  expect_err(t, "concat: input 1 is i32, input 0 is f32");
  expect_err(MK(IR_OP_CONCAT, 1, F32(2)), "concat: axis is required");
  t = MK(IR_OP_CONCAT, 1, SC(IR_F32));
  INT(t, IR_A_AXIS, 0);
  expect_err(t, "concat: axis 0 out of range for a scalar");
}

/* strided_copy: the output is its shape; every element it reads must lie
 * inside the input, whatever the strides' signs (clear errors, not reads
 * past the buffer). */
Test(tensor, strided_copy) {
  tn t = MK(IR_OP_STRIDED_COPY, 1, F32(20, 144));
  INTS(t, IR_A_SHAPE, 4, 12, 20);
  INTS(t, IR_A_STRIDES, 12, 1, 144);
  INT(t, IR_A_OFFSET, 48);
  expect(t, F32(4, 12, 20));
  t = MK(IR_OP_STRIDED_COPY, 1, TY(IR_I64, 5, 7));
  INTS(t, IR_A_SHAPE, 3, 4, 4);
  INTS(t, IR_A_STRIDES, 0, -7, 2);
  INT(t, IR_A_OFFSET, 28);
  expect(t, TY(IR_I64, 3, 4, 4));
  t = MK(IR_OP_STRIDED_COPY, 1, F32(20, 144));
  INTS(t, IR_A_SHAPE, 4, 12, 20);
  INTS(t, IR_A_STRIDES, 12, 1, 144);
  INT(t, IR_A_OFFSET, 100);
  expect_err(t, "strided_copy: reads elements 100..2883 of an input of 2880");
  t = MK(IR_OP_STRIDED_COPY, 1, F32(5, 7));
  INTS(t, IR_A_SHAPE, 3, 4);
  INTS(t, IR_A_STRIDES, 0, -7);
  expect_err(t, "strided_copy: reads elements -21..0 of an input of 35");
  t = MK(IR_OP_STRIDED_COPY, 1, F32(5, 7));
  INTS(t, IR_A_SHAPE, 3, 4);
  INTS(t, IR_A_STRIDES, 1);
  expect_err(t, "strided_copy: shape has 2 entries but strides has 1");
  t = MK(IR_OP_STRIDED_COPY, 1, F32(5, 7));
  INTS(t, IR_A_SHAPE, 3, -4);
  INTS(t, IR_A_STRIDES, 1, 1);
  expect_err(t, "strided_copy: bad dim -4");
  t = MK(IR_OP_STRIDED_COPY, 1, F32(5, 7));
  INTS(t, IR_A_SHAPE, 3);
  INTS(t, IR_A_STRIDES, INT64_MAX);
  expect_err(t, "strided_copy: stride 9223372036854775807 out of range");
  expect_err(MK(IR_OP_STRIDED_COPY, 1, F32(5, 7)), "strided_copy: shape and strides are required");
  t = MK(IR_OP_STRIDED_COPY, 1, bnd(F32(9, 3), 0));
  INTS(t, IR_A_SHAPE, 3);
  INTS(t, IR_A_STRIDES, 1);
  expect_err(t, "strided_copy: a bounded input");
  /* an empty output reads nothing */
  t = MK(IR_OP_STRIDED_COPY, 1, F32(5, 7));
  INTS(t, IR_A_SHAPE, 0, 4);
  INTS(t, IR_A_STRIDES, 1000, 1);
  expect(t, F32(0, 4));
}

/* strided_copy of a rolled input: roll_dims hold the input's elements, one
 * shift in [0, dim) per dim, both attributes or neither. */
Test(tensor, strided_copy_roll) {
#define ROLLED(...)                                                            \
  t = MK(IR_OP_STRIDED_COPY, 1, F32(1, 6, 4, 3));                              \
  INTS(t, IR_A_SHAPE, 72);                                                     \
  INTS(t, IR_A_STRIDES, 1);                                                    \
  __VA_ARGS__
  tn t;
  ROLLED(INTS(t, IR_A_ROLL_DIMS, 1, 6, 4, 3); INTS(t, IR_A_ROLL_SHIFTS, 0, 2, 3, 0);)
  expect(t, F32(72));
  ROLLED(INTS(t, IR_A_ROLL_DIMS, 1, 6, 4, 3); INTS(t, IR_A_ROLL_SHIFTS, 0, 6, 3, 0);)
  expect_err(t, "strided_copy: roll shift 6 outside [0, 6)");
  ROLLED(INTS(t, IR_A_ROLL_DIMS, 1, 6, 4, 3); INTS(t, IR_A_ROLL_SHIFTS, 0, -1, 3, 0);)
  expect_err(t, "strided_copy: roll shift -1 outside [0, 6)");
  ROLLED(INTS(t, IR_A_ROLL_DIMS, 1, 6, 4, 3); INTS(t, IR_A_ROLL_SHIFTS, 0, 1, 3);)
  expect_err(t, "strided_copy: roll_dims and roll_shifts go together, one shift per dim");
  ROLLED(INTS(t, IR_A_ROLL_DIMS, 6, 4, 2); INTS(t, IR_A_ROLL_SHIFTS, 0, 1, 1);)
  expect_err(t, "strided_copy: roll dims hold 48 elements, the input 72");
  ROLLED(INTS(t, IR_A_ROLL_DIMS, 6, 0, 2); INTS(t, IR_A_ROLL_SHIFTS, 0, 0, 1);)
  expect_err(t, "strided_copy: bad roll dim 0");
  ROLLED(INTS(t, IR_A_ROLL_SHIFTS, 0, 2, 3, 0);)
  expect_err(t, "strided_copy: roll_dims and roll_shifts go together, one shift per dim");
#undef ROLLED
}

Test(tensor, split) {
  tn t = MK(IR_OP_SPLIT, 3, F32(6, 4));
  ir_type w3[3] = {F32(2, 4), F32(2, 4), F32(2, 4)};
  expect_n(t, w3, 3);
  t = MK(IR_OP_SPLIT, 3, bnd(F32(9, 6), 0));
  INT(t, IR_A_AXIS, -1);
  INTS(t, IR_A_SPLIT, 1, 2, 3);
  ir_type wb[3] = {bnd(F32(9, 1), 0), bnd(F32(9, 2), 0), bnd(F32(9, 3), 0)};
  expect_n(t, wb, 3);
  t = MK(IR_OP_SPLIT, 2, F32(5));
  INTS(t, IR_A_SPLIT, 0, 5);
  ir_type w2[2] = {F32(0), F32(5)};
  expect_n(t, w2, 2);
  expect_err(MK(IR_OP_SPLIT, 3, F32(7, 4)),
             "split: axis 0 of size 7 does not split into 3 equal parts");
  t = MK(IR_OP_SPLIT, 2, F32(7, 4));
  INTS(t, IR_A_SPLIT, 3, 3);
  expect_err(t, "split: split sizes sum to 6 but axis 0 has size 7");
  t = MK(IR_OP_SPLIT, 2, F32(7, 4));
  INTS(t, IR_A_SPLIT, 3, 2, 2);
  expect_err(t, "split: split has 3 entries for 2 outputs");
  t = MK(IR_OP_SPLIT, 2, F32(7, 4));
  INTS(t, IR_A_SPLIT, 8, -1);
  expect_err(t, "split: split[1] is -1");
  t = MK(IR_OP_SPLIT, 2, F32(7, 4));
  INTS(t, IR_A_SPLIT, INT64_MAX, INT64_MAX);
  expect_err(t, "split: split sizes overflow");
  expect_err(MK(IR_OP_SPLIT, 2, bnd(F32(8, 4), 0)), "cannot split along bounded axis 0");
}

Test(tensor, slice) {
  tn t = MK(IR_OP_SLICE, 1, F32(10, 6));
  INTS(t, IR_A_STARTS, 2, -4);
  INTS(t, IR_A_ENDS, 8, INT64_MAX);
  expect(t, F32(6, 4));
  t = MK(IR_OP_SLICE, 1, F32(10, 6));
  INTS(t, IR_A_STARTS, -1);
  INTS(t, IR_A_ENDS, INT64_MIN);
  INTS(t, IR_A_AXES, -2);
  INTS(t, IR_A_STEPS, -3); /* 9 6 3 0 */
  expect(t, F32(4, 6));
  t = MK(IR_OP_SLICE, 1, bnd(F32(10, 6), 0));
  INTS(t, IR_A_STARTS, 1);
  INTS(t, IR_A_ENDS, 3);
  INTS(t, IR_A_AXES, 1);
  expect(t, bnd(F32(10, 2), 0));
  t = MK(IR_OP_SLICE, 1, F32(10));
  INTS(t, IR_A_STARTS, 3);
  INTS(t, IR_A_ENDS, 3);
  expect(t, F32(0));
  t = MK(IR_OP_SLICE, 1, F32(10));
  INTS(t, IR_A_STARTS, 0);
  INTS(t, IR_A_ENDS, 1);
  INTS(t, IR_A_STEPS, 0);
  expect_err(t, "slice: steps[0] is 0");
  t = MK(IR_OP_SLICE, 1, F32(10, 6));
  INTS(t, IR_A_STARTS, 0, 0);
  INTS(t, IR_A_ENDS, 1, 1);
  INTS(t, IR_A_AXES, 1, -1);
  expect_err(t, "slice: axis 1 appears twice in axes");
  t = MK(IR_OP_SLICE, 1, F32(10));
  INTS(t, IR_A_STARTS, 0);
  expect_err(t, "slice: ends is required");
  t = MK(IR_OP_SLICE, 1, F32(10));
  INTS(t, IR_A_STARTS, 0);
  INTS(t, IR_A_ENDS, 1, 2);
  expect_err(t, "slice: starts has 1 entries but ends has 2");
  t = MK(IR_OP_SLICE, 1, F32(10));
  INTS(t, IR_A_STARTS, 0);
  INTS(t, IR_A_ENDS, 1);
  INTS(t, IR_A_AXES, 1);
  expect_err(t, "slice: axes[0]: axis 1 out of range for rank 1");
  t = MK(IR_OP_SLICE, 1, F32(10));
  INTS(t, IR_A_STARTS, 0, 0);
  INTS(t, IR_A_ENDS, 1, 1);
  expect_err(t, "slice: 2 slice entries for an input of rank 1");
}

typedef struct slice_case {
  int64_t start, end, step, want_start, want_count;
} slice_case;

Test(params, slice_clamping) {
  static const slice_case cases[] = {
      {2, 8, 1, 2, 6},
      {-3, INT64_MAX, 1, 7, 3},
      {8, 2, -2, 8, 3},                  /* 8 6 4 */
      {INT64_MAX, INT64_MIN, -1, 9, 10}, /* full reverse */
      {-1, -11, -1, 9, 10},              /* end -11+10 = -1: keeps index 0 */
      {-1, -10, -1, 9, 9},               /* end 0 excluded */
      {20, 30, 1, 0, 0},
      {-20, 3, 1, 0, 3},
      {0, 10, 3, 0, 4},                  /* 0 3 6 9 */
      {1, 10, 3, 1, 3},                  /* 1 4 7 */
      {9, -20, INT64_MIN, 9, 1},
      {0, 10, INT64_MAX, 0, 1},
      {5, 5, 1, 0, 0},
      {5, 5, -1, 0, 0},
      {3, 7, -1, 0, 0},
      {INT64_MIN, INT64_MAX, 4, 0, 3},   /* 0 4 8 */
      {12, 0, -4, 9, 3},                 /* 9 5 1 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const slice_case *c = &cases[i];
    tn t = MK(IR_OP_SLICE, 1, F32(4, 10));
    INTS(t, IR_A_STARTS, c->start);
    INTS(t, IR_A_ENDS, c->end);
    INTS(t, IR_A_AXES, 1);
    INTS(t, IR_A_STEPS, c->step);
    ir_slice_params p;
    T_OK(ir_slice_params_get(t.n, &t.n->inputs[0]->type, &p));
    cr_assert_eq(p.count[1], c->want_count, "case %zu: count %lld want %lld", i,
                 (long long)p.count[1], (long long)c->want_count);
    if (c->want_count)
      cr_assert_eq(p.start[1], c->want_start, "case %zu: start %lld want %lld",
                   i, (long long)p.start[1], (long long)c->want_start);
    cr_assert_eq(p.step[1], c->step);
    /* the untouched axis */
    cr_assert(p.start[0] == 0 && p.step[0] == 1 && p.count[0] == 4);
    ir_graph_destroy(t.g);
  }
  /* empty axis: nothing to take either way */
  for (int neg = 0; neg < 2; neg++) {
    tn t = MK(IR_OP_SLICE, 1, F32(0));
    INTS(t, IR_A_STARTS, 0);
    INTS(t, IR_A_ENDS, neg ? INT64_MIN : INT64_MAX);
    INTS(t, IR_A_STEPS, neg ? -1 : 1);
    expect(t, F32(0));
  }
}

Test(tensor, pad) {
  tn t = MK(IR_OP_PAD, 1, F32(2, 3));
  INTS(t, IR_A_PADS, 1, 0, 2, -1);
  expect(t, F32(5, 2));
  t = MK(IR_OP_PAD, 1, TY(IR_U8, 4, 4));
  INTS(t, IR_A_PADS, 3, 0, 0, 3);
  INT(t, IR_A_PAD_MODE, IR_PAD_REFLECT);
  expect(t, TY(IR_U8, 7, 7));
  t = MK(IR_OP_PAD, 1, bnd(F32(9, 2), 0));
  INTS(t, IR_A_PADS, 0, 1, 0, 1);
  INT(t, IR_A_PAD_MODE, IR_PAD_EDGE);
  expect(t, bnd(F32(9, 4), 0));
  ir_pad_params pp;
  t = MK(IR_OP_PAD, 1, F32(2, 3));
  INTS(t, IR_A_PADS, 1, 2, 3, 4);
  FLT(t, IR_A_VALUE, 2.5f);
  T_OK(ir_pad_params_get(t.n, 2, &pp));
  cr_assert(pp.begins[0] == 1 && pp.begins[1] == 2 && pp.ends[0] == 3 && pp.ends[1] == 4);
  cr_assert(pp.mode == IR_PAD_CONSTANT && pp.value == 2.5f);
  ir_graph_destroy(t.g);

  t = MK(IR_OP_PAD, 1, F32(2, 3));
  INTS(t, IR_A_PADS, 0, -2, 0, -2);
  expect_err(t, "pad: axis 1 of size 3 cannot be padded by (-2, -2)");
  t = MK(IR_OP_PAD, 1, F32(2, 3));
  INTS(t, IR_A_PADS, 0, 0);
  expect_err(t, "pad: pads must have 4 entries (2 x rank 2), got 2");
  expect_err(MK(IR_OP_PAD, 1, F32(2, 3)), "pad: pads is required");
  t = MK(IR_OP_PAD, 1, F32(2, 3));
  INTS(t, IR_A_PADS, 0, 3, 0, 0);
  INT(t, IR_A_PAD_MODE, IR_PAD_REFLECT);
  expect_err(t, "pad: reflect pads (3, 0) must be less than the size 3 of axis 1");
  t = MK(IR_OP_PAD, 1, F32(0, 3));
  INTS(t, IR_A_PADS, 1, 0, 0, 0);
  INT(t, IR_A_PAD_MODE, IR_PAD_EDGE);
  expect_err(t, "pad: edge mode cannot pad empty axis 0");
  t = MK(IR_OP_PAD, 1, F32(2, 3));
  INTS(t, IR_A_PADS, INT64_MIN, 0, 0, 0);
  expect_err(t, "pad: pads[0] is -9223372036854775808, too large");
}

Test(tensor, expand_tile) {
  tn t = MK(IR_OP_EXPAND, 1, F32(3, 1));
  INTS(t, IR_A_SHAPE, 2, 1, 4);
  expect(t, F32(2, 3, 4));
  t = MK(IR_OP_EXPAND, 1, F32(3, 1));
  INTS(t, IR_A_SHAPE, 1);
  expect(t, F32(3, 1));
  t = MK(IR_OP_EXPAND, 1, bnd(TY(IR_I64, 9, 1), 0));
  INTS(t, IR_A_SHAPE, 1, 5);
  expect(t, bnd(TY(IR_I64, 9, 5), 0));
  t = MK(IR_OP_EXPAND, 1, F32(3, 2));
  INTS(t, IR_A_SHAPE, 4);
  expect_err(t, "expand: shapes [3,2] and [4] do not broadcast");
  t = MK(IR_OP_EXPAND, 1, F32(3, 2));
  INTS(t, IR_A_SHAPE, -1, 2);
  expect_err(t, "expand: shape[0] is -1, must be >= 0");
  expect_err(MK(IR_OP_EXPAND, 1, F32(3)), "expand: shape is required");
  t = MK(IR_OP_EXPAND, 1, F32(1));
  INTS(t, IR_A_SHAPE, INT64_MAX);
  expect_err(t, "too large");

  t = MK(IR_OP_TILE, 1, F32(2, 3));
  INTS(t, IR_A_REPEATS, 2, 0);
  expect(t, F32(4, 0));
  t = MK(IR_OP_TILE, 1, TY(IR_BOOL, 2, 3));
  INTS(t, IR_A_REPEATS, 1, 3);
  expect(t, TY(IR_BOOL, 2, 9));
  t = MK(IR_OP_TILE, 1, F32(2, 3));
  INTS(t, IR_A_REPEATS, 2);
  expect_err(t, "tile: repeats has 1 entries, input has rank 2");
  t = MK(IR_OP_TILE, 1, F32(2, 3));
  INTS(t, IR_A_REPEATS, 1, -2);
  expect_err(t, "tile: repeats[1] is -2, must be >= 0");
  expect_err(MK(IR_OP_TILE, 1, F32(2, 3)), "tile: repeats is required");
  t = MK(IR_OP_TILE, 1, F32(2, 3));
  INTS(t, IR_A_REPEATS, INT64_MAX, 1);
  expect_err(t, "tile: axis 0 overflows");
  t = MK(IR_OP_TILE, 1, F32(2, 3));
  INTS(t, IR_A_REPEATS, INT64_C(1) << 39, 2);
  expect_err(t, "too large");
}

Test(tensor, gather) {
  tn t = MK(IR_OP_GATHER, 1, F32(5, 4, 3), I64(2, 6));
  INT(t, IR_A_AXIS, 1);
  expect(t, F32(5, 2, 6, 3));
  t = MK(IR_OP_GATHER, 1, F32(5, 4, 3), SC(IR_I32));
  INT(t, IR_A_AXIS, -2);
  expect(t, F32(5, 3));
  expect(MK(IR_OP_GATHER, 1, TY(IR_I64, 5), TY(IR_I32, 7)), TY(IR_I64, 7));
  /* rows picked by an NMS-like bounded index list keep the bound */
  t = MK(IR_OP_GATHER, 1, F32(5, 4), bnd(I64(30), 0));
  INT(t, IR_A_AXIS, 1);
  expect(t, bnd(F32(5, 30), 1));
  expect(MK(IR_OP_GATHER, 1, bnd(F32(30, 3), 0), I64(2)), F32(2, 3));
  t = MK(IR_OP_GATHER, 1, bnd(F32(30, 3), 0), I64(2, 2));
  INT(t, IR_A_AXIS, 1);
  expect(t, bnd(F32(30, 2, 2), 0));
  expect_err(MK(IR_OP_GATHER, 1, F32(5, 4), F32(2)),
             "gather: indices must be i32 or i64, got f32");
  t = MK(IR_OP_GATHER, 1, F32(5, 4), I64(2));
  INT(t, IR_A_AXIS, 2);
  expect_err(t, "gather: axis 2 out of range for rank 2");
  expect_err(MK(IR_OP_GATHER, 1, SC(IR_F32), I64(2)), "gather: data must have rank >= 1");
  expect_err(MK(IR_OP_GATHER, 1, F32(0, 4), I64(2)), "gather: cannot gather from empty axis 0");
  expect_err(MK(IR_OP_GATHER, 1, F32(2, 2, 2, 2, 2), I64(2, 2, 2, 2, 2)),
             "gather: output rank 9 exceeds 8");
  expect_err(MK(IR_OP_GATHER, 1, bnd(F32(3, 9), 1), bnd(I64(4), 0)),
             "gather: data and indices are both bounded");

  t = MK(IR_OP_GATHER_ELEMENTS, 1, F32(3, 4), I64(5, 4));
  expect(t, F32(5, 4));
  t = MK(IR_OP_GATHER_ELEMENTS, 1, TY(IR_I8, 3, 4), TY(IR_I32, 2, 7));
  INT(t, IR_A_AXIS, -1);
  expect(t, TY(IR_I8, 2, 7));
  t = MK(IR_OP_GATHER_ELEMENTS, 1, F32(3, 4), I64(2, 5));
  expect_err(t, "gather_elements: indices [2,5] exceed data [3,4] along axis 1");
  expect_err(MK(IR_OP_GATHER_ELEMENTS, 1, F32(3, 4), I64(3)),
             "gather_elements: indices [3] and data [3,4] differ in rank");
  expect_err(MK(IR_OP_GATHER_ELEMENTS, 1, F32(3, 4), TY(IR_U8, 3, 4)),
             "gather_elements: indices must be i32 or i64, got u8");
  t = MK(IR_OP_GATHER_ELEMENTS, 1, F32(3, 4), I64(3, 4));
  INT(t, IR_A_AXIS, -3);
  expect_err(t, "gather_elements: axis -3 out of range");
}

/* ---- vision --------------------------------------------------------------------- */

Test(vision, topk) {
  tn t = MK(IR_OP_TOPK, 2, F32(3, 10));
  INT(t, IR_A_K, 4);
  ir_type w[2] = {F32(3, 4), I64(3, 4)};
  expect_n(t, w, 2);
  t = MK(IR_OP_TOPK, 2, TY(IR_I32, 6, 3));
  INT(t, IR_A_K, 0);
  INT(t, IR_A_AXIS, 0);
  INT(t, IR_A_LARGEST, 0);
  ir_type w0[2] = {TY(IR_I32, 0, 3), I64(0, 3)};
  expect_n(t, w0, 2);
  t = MK(IR_OP_TOPK, 2, F32(3, 10), I64(1));
  ir_type wb[2] = {bnd(F32(3, 10), 1), bnd(I64(3, 10), 1)};
  expect_n(t, wb, 2);
  t = MK(IR_OP_TOPK, 2, F32(3, 10));
  INT(t, IR_A_K, 11);
  expect_err(t, "topk: k is 11, must be in [0, 10] (size of axis 1)");
  t = MK(IR_OP_TOPK, 2, F32(3, 10));
  INT(t, IR_A_K, INT64_MIN);
  expect_err(t, "topk: k is -9223372036854775808");
  expect_err(MK(IR_OP_TOPK, 2, F32(3, 10)), "topk: k is required");
  expect_err(MK(IR_OP_TOPK, 2, F32(3, 10), TY(IR_I32, 1)), "topk: k input must be i64[1], got i32[1]");
  expect_err(MK(IR_OP_TOPK, 2, F32(3, 10), I64(2)), "k input must be i64[1]");
  t = MK(IR_OP_TOPK, 2, F32(3, 10), I64(1));
  INT(t, IR_A_K, 2);
  expect_err(t, "topk: k is given both as attribute and as input");
  expect_err(MK(IR_OP_TOPK, 2, bnd(F32(3, 10), 0), I64(1)),
             "topk: input is bounded along axis 0, and a run-time k bounds axis 1");
  t = MK(IR_OP_TOPK, 2, TY(IR_BOOL, 3));
  INT(t, IR_A_K, 1);
  expect_err(t, "topk: input must be numeric");
  t = MK(IR_OP_TOPK, 2, F32(3));
  INT(t, IR_A_K, 1);
  INT(t, IR_A_SORTED, 7);
  expect_err(t, "topk: sorted is 7, must be 0 or 1");
  expect_err(MK(IR_OP_TOPK, 1, F32(3)), "topk produces 2 outputs, got 1");
}

Test(vision, cumsum) {
  expect(MK(IR_OP_CUMSUM, 1, TY(IR_I32, 3, 4)), TY(IR_I32, 3, 4));
  tn t = MK(IR_OP_CUMSUM, 1, F32(3, 4));
  INT(t, IR_A_AXIS, -1);
  INT(t, IR_A_REVERSE, 1);
  INT(t, IR_A_EXCLUSIVE, 1);
  expect(t, F32(3, 4));
  t = MK(IR_OP_CUMSUM, 1, F32(3, 4));
  INT(t, IR_A_AXIS, 2);
  expect_err(t, "cumsum: axis 2 out of range for rank 2");
  t = MK(IR_OP_CUMSUM, 1, F32(3, 4));
  INT(t, IR_A_EXCLUSIVE, 2);
  expect_err(t, "cumsum: exclusive is 2, must be 0 or 1");
  expect_err(MK(IR_OP_CUMSUM, 1, TY(IR_BOOL, 3)), "cumsum: input must be numeric");
}

Test(vision, non_max_suppression) {
  tn t = MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(2, 3, 10));
  INT(t, IR_A_MAX_OUTPUT_BOXES, 4);
  FLT(t, IR_A_IOU_THRESHOLD, 0.5f);
  expect(t, bnd(I64(24, 3), 0));
  t = MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(2, 3, 10));
  INT(t, IR_A_MAX_OUTPUT_BOXES, INT64_MAX);
  expect(t, bnd(I64(60, 3), 0));
  expect(MK(IR_OP_NON_MAX_SUPPRESSION, 1, TY(IR_F16, 1, 5, 4), TY(IR_F16, 1, 1, 5)),
         bnd(I64(0, 3), 0));
  expect_err(MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 5), F32(2, 3, 10)),
             "non_max_suppression: boxes must be [B,N,4], got [2,10,5]");
  expect_err(MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(1, 3, 10)),
             "non_max_suppression: scores [1,3,10] must be [B,C,N] with boxes [2,10,4]");
  expect_err(MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(2, 3, 9)), "must be [B,C,N]");
  expect_err(MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), TY(IR_F16, 2, 3, 10)),
             "non_max_suppression: scores are f16, boxes are f32");
  expect_err(MK(IR_OP_NON_MAX_SUPPRESSION, 1, TY(IR_I32, 2, 10, 4), TY(IR_I32, 2, 3, 10)),
             "boxes must be f32 or f16");
  t = MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(2, 3, 10));
  FLT(t, IR_A_IOU_THRESHOLD, 1.5f);
  expect_err(t, "iou_threshold is 1.5, must be in [0, 1]");
  t = MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(2, 3, 10));
  INT(t, IR_A_MAX_OUTPUT_BOXES, -1);
  expect_err(t, "max_output_boxes_per_class is -1, must be >= 0");
  t = MK(IR_OP_NON_MAX_SUPPRESSION, 1, F32(2, 10, 4), F32(2, 3, 10));
  INT(t, IR_A_CENTER_POINT_BOX, 2);
  expect_err(t, "center_point_box is 2, must be 0 or 1");
}

Test(vision, roi_align) {
  tn t = MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), I64(5));
  INT(t, IR_A_OUTPUT_HEIGHT, 2);
  INT(t, IR_A_OUTPUT_WIDTH, 3);
  INT(t, IR_A_ROI_MODE, IR_ROI_MAX);
  expect(t, F32(5, 3, 2, 3));
  expect(MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), TY(IR_I32, 5)),
         F32(5, 3, 1, 1));
  expect(MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), bnd(F32(9, 4), 0), bnd(I64(9), 0)),
         bnd(F32(9, 3, 1, 1), 0));
  expect_err(MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), F32(5)),
             "roi_align: batch_indices must be i64 or i32, got f32");
  expect_err(MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 5), I64(5)),
             "roi_align: rois must be [R,4], got [5,5]");
  expect_err(MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), I64(4)),
             "roi_align: batch_indices is [4], expected [R] = [5]");
  expect_err(MK(IR_OP_ROI_ALIGN, 1, F32(3, 8, 8), F32(5, 4), I64(5)),
             "roi_align: input must be [N,C,H,W], got [3,8,8]");
  expect_err(MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), TY(IR_F16, 5, 4), I64(5)),
             "roi_align: rois are f16, input is f32");
  t = MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), I64(5));
  INT(t, IR_A_OUTPUT_HEIGHT, 0);
  expect_err(t, "output_height and output_width must be >= 1, got 0 and 1");
  t = MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), I64(5));
  INT(t, IR_A_SAMPLING_RATIO, -1);
  expect_err(t, "roi_align: sampling_ratio is -1");
  t = MK(IR_OP_ROI_ALIGN, 1, F32(2, 3, 8, 8), F32(5, 4), I64(5));
  INT(t, IR_A_COORD_MODE, IR_COORD_ALIGN_CORNERS);
  expect_err(t, "roi_align: coordinate_transformation_mode must be half_pixel");
}

/* ---- hostile attributes ------------------------------------------------------------ */

static int64_t wild_int(t_rng *r) {
  static const int64_t special[] = {0, 1, -1, 2, 3, -2, INT64_MAX, INT64_MIN,
                                    INT64_C(1) << 40, -(INT64_C(1) << 40),
                                    INT64_C(1) << 62, 4};
  uint64_t k = t_rng_next(r) % 20;
  return k < 12 ? special[k] : (int64_t)(t_rng_next(r) % 9) - 2;
}

static float wild_float(t_rng *r) {
  static const float special[] = {0, 1, -1, 0.5f, 2, 1e30f, -1e30f, 1e-30f,
                                  INFINITY, -INFINITY, NAN};
  uint64_t k = t_rng_next(r) % 16;
  return k < 11 ? special[k] : (float)t_rng_uniform(r, -3, 3);
}

/* Random input types and attribute contents for every op: inference must
 * answer OK with legal types or an INVALID_GRAPH message, never crash (run
 * under ASan/UBSan to make that a real check). */
Test(robustness, random_attributes_never_crash) {
  t_rng r = t_rng_make(2024);
  int n_ok = 0, n_err = 0;
  for (int op = 0; op < IR_OP_COUNT; op++) {
    const ir_op_info *info = ir_op_get((ir_op)op);
    for (int it = 0; it < 2000; it++) {
      int ni = info->min_inputs + (int)(t_rng_next(&r) % 2);
      if (info->max_inputs >= 0 && ni > info->max_inputs) ni = info->max_inputs;
      int no = info->min_outputs + (int)(t_rng_next(&r) % 2);
      if (info->max_outputs >= 0 && no > info->max_outputs) no = info->max_outputs;
      ir_type in[8];
      int rank = (int)(t_rng_next(&r) % 5);
      for (int i = 0; i < ni; i++) {
        in[i] = ir_type_make(IR_F32, 0, NULL);
        bool odd = t_rng_next(&r) % 4 == 0;
        in[i].dtype = odd ? (ir_dtype)(t_rng_next(&r) % IR_DTYPE_COUNT) : IR_F32;
        in[i].rank = odd ? (int)(t_rng_next(&r) % 5) : rank;
        for (int d = 0; d < in[i].rank; d++)
          in[i].dims[d] = t_rng_next(&r) % 64 ? (int64_t)(t_rng_next(&r) % 6)
                                               : INT64_C(1) << 20;
        if (in[i].rank && t_rng_next(&r) % 8 == 0) {
          in[i].bounded = true;
          in[i].bounded_axis = (int)(t_rng_next(&r) % (uint64_t)in[i].rank);
        }
      }
      tn t = mk((ir_op)op, in, ni, no);
      for (const ir_attr_id *a = info->attrs; *a != IR_A_END; a++) {
        if (t_rng_next(&r) % 2) continue;
        int64_t iv[9];
        float fv[9];
        int cnt = (int)(t_rng_next(&r) % 10);
        for (int i = 0; i < cnt; i++) iv[i] = wild_int(&r), fv[i] = wild_float(&r);
        switch (ir_attr_kind_of(*a)) {
        case IR_ATTR_INT: INT(t, *a, wild_int(&r)); break;
        case IR_ATTR_ENUM: {
          int ne = ir_enum_count(ir_attr_enum_of(*a));
          INT(t, *a, (int64_t)(t_rng_next(&r) % (uint64_t)(ne + 1)));
          break;
        }
        case IR_ATTR_FLOAT: FLT(t, *a, wild_float(&r)); break;
        case IR_ATTR_INTS: T_OK(ir_node_set_ints(t.g, t.n, *a, iv, cnt)); break;
        case IR_ATTR_FLOATS: T_OK(ir_node_set_floats(t.g, t.n, *a, fv, cnt)); break;
        case IR_ATTR_STRING: break;
        }
      }
      ir_type out[8];
      vkml_status s = ir_infer_node(t.n, out);
      if (s) {
        cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_GRAPH, "%s: %s",
                     ir_op_name((ir_op)op), vkml_status_message(s));
        cr_assert_gt(strlen(vkml_status_message(s)), 5);
        vkml_status_free(s);
        n_err++;
      } else {
        for (int i = 0; i < no; i++) T_OK(ir_type_check(&out[i]));
        n_ok++;
      }
      ir_graph_destroy(t.g);
    }
  }
  /* Both paths must actually be exercised. */
  cr_assert_gt(n_ok, 1000, "only %d successful inferences", n_ok);
  cr_assert_gt(n_err, 1000, "only %d errors", n_err);
}

/* Valid seeds mutated one attribute or one dim at a time, so that the deeper
 * checks (behind arity, rank and channel agreement) see hostile values too. */
typedef struct seed {
  ir_op op;
  int n_in, n_out;
  ir_type in[5];
  ir_attr_id ids[3];
  int64_t vals[3][4];
  int counts[3]; /* 0: INT vals[i][0]; n > 0: INTS of n; -1: skipped */
  /* ids end at the first IR_A_NAME (0) */
} seed;

Test(robustness, mutated_valid_nodes_never_crash) {
  const ir_type c4 = F32(4);
  const seed seeds[] = {
      {IR_OP_CONV2D, 3, 1, {F32(1, 4, 9, 9), F32(6, 2, 3, 3), F32(6)},
       {IR_A_GROUP, IR_A_PADS, IR_A_STRIDES}, {{2}, {1, 1, 1, 1}, {2, 2}}, {0, 4, 2}},
      {IR_OP_CONV_TRANSPOSE2D, 2, 1, {F32(1, 4, 5, 5), F32(4, 3, 3, 3)},
       {IR_A_OUTPUT_PADDING, IR_A_STRIDES, IR_A_DILATIONS}, {{1, 1}, {2, 2}, {1, 1}}, {2, 2, 2}},
      {IR_OP_GEMM, 3, 1, {F32(3, 5), F32(4, 5), F32(4)}, {IR_A_TRANS_B}, {{1}}, {0}},
      {IR_OP_BATCHNORM, 5, 1, {F32(2, 4, 3), c4, c4, c4, c4}, {IR_A_EPSILON}, {{0}}, {-1}},
      {IR_OP_INSTANCE_NORM, 3, 1, {F32(2, 4, 3), c4, c4}, {IR_A_EPSILON}, {{0}}, {-1}},
      {IR_OP_LAYER_NORM, 3, 1, {F32(2, 4, 3), F32(4, 3), F32(3)}, {IR_A_AXIS}, {{1}}, {0}},
      {IR_OP_MAXPOOL, 1, 1, {F32(1, 2, 7, 7)}, {IR_A_KERNEL, IR_A_PADS, IR_A_CEIL_MODE},
       {{3, 3}, {1, 1, 1, 1}, {1}}, {2, 4, 0}},
      {IR_OP_AVGPOOL, 1, 1, {F32(1, 2, 7, 7)}, {IR_A_KERNEL, IR_A_DILATIONS, IR_A_STRIDES},
       {{2, 2}, {2, 2}, {2, 2}}, {2, 2, 2}},
      {IR_OP_RESIZE, 1, 1, {F32(1, 2, 4, 4)}, {IR_A_SIZES}, {{1, 2, 8, 8}}, {4}},
      {IR_OP_SLICE, 1, 1, {F32(6, 5)}, {IR_A_STARTS, IR_A_ENDS, IR_A_STEPS},
       {{1, -1}, {5, 0}, {2, -1}}, {2, 2, 2}},
      {IR_OP_PAD, 1, 1, {F32(6, 5)}, {IR_A_PADS}, {{1, 2, 0, -1}}, {4}},
      {IR_OP_TILE, 1, 1, {F32(6, 5)}, {IR_A_REPEATS}, {{2, 3}}, {2}},
      {IR_OP_RESHAPE, 1, 1, {F32(6, 5)}, {IR_A_SHAPE}, {{3, 10}}, {2}},
      {IR_OP_EXPAND, 1, 1, {F32(6, 1)}, {IR_A_SHAPE}, {{2, 6, 4}}, {3}},
      {IR_OP_UNSQUEEZE, 1, 1, {F32(6, 1)}, {IR_A_AXES}, {{0, -1}}, {2}},
      {IR_OP_CONCAT, 2, 1, {F32(6, 1), F32(6, 3)}, {IR_A_AXIS}, {{1}}, {0}},
      {IR_OP_SPLIT, 1, 2, {F32(6, 4)}, {IR_A_SPLIT, IR_A_AXIS}, {{1, 3}, {1}}, {2, 0}},
      {IR_OP_GATHER, 2, 1, {F32(6, 4), I64(3)}, {IR_A_AXIS}, {{1}}, {0}},
      {IR_OP_GATHER_ELEMENTS, 2, 1, {F32(6, 4), I64(2, 4)}, {IR_A_AXIS}, {{0}}, {0}},
      {IR_OP_TOPK, 1, 2, {F32(6, 4)}, {IR_A_K, IR_A_AXIS}, {{2}, {0}}, {0, 0}},
      {IR_OP_NON_MAX_SUPPRESSION, 2, 1, {F32(1, 6, 4), F32(1, 2, 6)},
       {IR_A_MAX_OUTPUT_BOXES}, {{3}}, {0}},
      {IR_OP_ROI_ALIGN, 3, 1, {F32(1, 2, 6, 6), F32(3, 4), I64(3)},
       {IR_A_OUTPUT_HEIGHT, IR_A_SAMPLING_RATIO}, {{2}, {2}}, {0, 0}},
      {IR_OP_WHERE, 3, 1, {TY(IR_BOOL, 6, 1), F32(1, 4), F32(6, 4)}, {IR_A_NAME}, {{0}}, {-1}},
  };
  t_rng r = t_rng_make(99);
  for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
    const seed *sd = &seeds[si];
    int n_ok = 0;
    for (int it = 0; it < 1500; it++) {
      ir_type in[5];
      memcpy(in, sd->in, sizeof in);
      bool mutate_dim = it > 0 && t_rng_next(&r) % 3 == 0;
      if (mutate_dim) {
        ir_type *ty = &in[t_rng_next(&r) % (uint64_t)sd->n_in];
        if (ty->rank) {
          int64_t *d = &ty->dims[t_rng_next(&r) % (uint64_t)ty->rank];
          static const int64_t repl[] = {0, 1, 2, 3, 5, INT64_C(1) << 20};
          *d = t_rng_next(&r) % 2 ? *d + 1 : repl[t_rng_next(&r) % 6];
        }
      }
      tn t = mk(sd->op, in, sd->n_in, sd->n_out);
      int wild = it > 0 && !mutate_dim ? (int)(t_rng_next(&r) % 3) : -1;
      for (int a = 0; a < 3 && sd->ids[a] != IR_A_NAME; a++) {
        if (sd->counts[a] < 0) continue; /* float attribute: left default */
        int64_t v[9];
        int cnt = sd->counts[a];
        memcpy(v, sd->vals[a], sizeof sd->vals[a]);
        if (a == wild) {
          if (cnt && t_rng_next(&r) % 4 == 0) cnt = (int)(t_rng_next(&r) % 9);
          for (int k = 0; k < (cnt ? cnt : 1); k++)
            if (k >= 4 || t_rng_next(&r) % 2) v[k] = wild_int(&r);
        }
        if (cnt)
          T_OK(ir_node_set_ints(t.g, t.n, sd->ids[a], v, cnt));
        else if (sd->counts[a] == 0)
          INT(t, sd->ids[a], v[0]);
      }
      ir_type out[8];
      vkml_status s = ir_infer_node(t.n, out);
      if (it == 0)
        cr_assert(s == VKML_OK, "seed %s: %s", ir_op_name(sd->op), vkml_status_message(s));
      if (s) {
        cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_GRAPH);
        vkml_status_free(s);
      } else {
        for (int i = 0; i < sd->n_out; i++) T_OK(ir_type_check(&out[i]));
        n_ok++;
      }
      ir_graph_destroy(t.g);
    }
    cr_assert_gt(n_ok, 30, "%s: only %d mutants inferred", ir_op_name(sd->op), n_ok);
  }
}
