/* Shape inference of elementwise, neural-network and reduction ops, and the
 * attribute decoders of ir/params.h: hand-worked expected types, and for each
 * op error cases checked by message substring. Data-movement and vision ops
 * are in test_infer_data.c. */
#include <math.h>

#include "tests/ir/infer_check.h"

/* ---- elementwise ------------------------------------------------------------ */

Test(elementwise, float_unary_ops) {
  static const ir_op ops[] = {
      IR_OP_RELU, IR_OP_SIGMOID, IR_OP_TANH, IR_OP_EXP, IR_OP_LOG,
      IR_OP_SQRT, IR_OP_ERF, IR_OP_RECIPROCAL, IR_OP_SOFTPLUS, IR_OP_FLOOR,
      IR_OP_CEIL, IR_OP_ROUND, IR_OP_HARD_SWISH, IR_OP_LEAKY_RELU, IR_OP_ELU,
      IR_OP_SELU, IR_OP_HARD_SIGMOID, IR_OP_SIN, IR_OP_COS, IR_OP_TAN, IR_OP_ASIN,
      IR_OP_ACOS, IR_OP_ATAN, IR_OP_SINH, IR_OP_COSH, IR_OP_ASINH, IR_OP_ACOSH, IR_OP_ATANH};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    expect(MK(ops[i], 1, TY(IR_F16, 2, 3)), TY(IR_F16, 2, 3));
    expect(MK(ops[i], 1, bnd(F32(7, 2), 0)), bnd(F32(7, 2), 0));
    char want[64];
    snprintf(want, sizeof want, "%s: input must be f32 or f16, got i32",
             ir_op_name(ops[i]));
    expect_err(MK(ops[i], 1, TY(IR_I32, 4)), want);
  }
}

Test(elementwise, numeric_unary_ops) {
  static const ir_op ops[] = {IR_OP_NEG, IR_OP_ABS, IR_OP_SIGN, IR_OP_CLIP};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    expect(MK(ops[i], 1, TY(IR_I8, 5)), TY(IR_I8, 5));
    expect(MK(ops[i], 1, SC(IR_F32)), SC(IR_F32));
    expect_err(MK(ops[i], 1, TY(IR_BOOL, 5)), "must be numeric, got bool");
  }
}

Test(elementwise, identity_not_cast) {
  expect(MK(IR_OP_IDENTITY, 1, bnd(TY(IR_BOOL, 3, 9), 1)), bnd(TY(IR_BOOL, 3, 9), 1));
  expect(MK(IR_OP_NOT, 1, TY(IR_BOOL, 4, 1)), TY(IR_BOOL, 4, 1));
  expect_err(MK(IR_OP_NOT, 1, F32(4)), "not: input must be bool, got f32");
  expect_err(MK(IR_OP_IDENTITY, 1, F32(4), F32(4)), "identity takes 1 input, got 2");
  tn t = MK(IR_OP_CAST, 1, F32(2, 3));
  INT(t, IR_A_TO, IR_I64);
  expect(t, I64(2, 3));
  t = MK(IR_OP_CAST, 1, bnd(F32(6, 3), 0));
  INT(t, IR_A_TO, IR_F16);
  expect(t, bnd(TY(IR_F16, 6, 3), 0));
  expect_err(MK(IR_OP_CAST, 1, F32(2)), "cast: attribute 'to' is required");
  /* An unknown element type index is caught before inference. */
  t = MK(IR_OP_CAST, 1, F32(2));
  INT(t, IR_A_TO, 99);
  expect_err(t, "no value 99");
}

Test(elementwise, broadcasting) {
  expect(MK(IR_OP_ADD, 1, F32(2, 3), SC(IR_F32)), F32(2, 3));
  expect(MK(IR_OP_SUB, 1, SC(IR_F32), F32(2, 3)), F32(2, 3));
  expect(MK(IR_OP_MUL, 1, F32(3, 1), F32(1, 4)), F32(3, 4));
  expect(MK(IR_OP_DIV, 1, F32(4), F32(2, 3, 4)), F32(2, 3, 4));
  expect(MK(IR_OP_ADD, 1, F32(5, 1, 3), F32(4, 1)), F32(5, 4, 3));
  expect(MK(IR_OP_ADD, 1, F32(0, 3), F32(1, 3)), F32(0, 3));
  expect(MK(IR_OP_ADD, 1, TY(IR_I32, 1), TY(IR_I32, 1)), TY(IR_I32, 1));
  expect(MK(IR_OP_ADD, 1, bnd(F32(9, 3), 0), F32(1, 3)), bnd(F32(9, 3), 0));
  expect(MK(IR_OP_ADD, 1, F32(3), bnd(F32(9, 1), 0)), bnd(F32(9, 3), 0));
  expect_err(MK(IR_OP_ADD, 1, F32(2, 3), F32(4, 3)),
             "add: shapes [2,3] and [4,3] do not broadcast");
  expect_err(MK(IR_OP_MUL, 1, F32(0), F32(2)), "mul: shapes [0] and [2] do not");
  expect_err(MK(IR_OP_ADD, 1, bnd(F32(9, 1), 0), bnd(F32(1, 9), 1)),
             "bounded along different axes");
  expect_err(MK(IR_OP_SUB, 1, F32(2), TY(IR_I32, 2)),
             "sub: input dtypes differ (f32 and i32)");
  expect_err(MK(IR_OP_ADD, 1, TY(IR_BOOL, 2), TY(IR_BOOL, 2)), "must be numeric");
  expect_err(MK(IR_OP_DIV, 1, TY(IR_I64, 2), TY(IR_I32, 2)),
             "div: input dtypes differ (i64 and i32)");
}

Test(elementwise, pow_compare_logic) {
  expect(MK(IR_OP_POW, 1, F32(2, 1), TY(IR_I32, 3)), F32(2, 3));
  expect(MK(IR_OP_POW, 1, TY(IR_I64, 2), F32(2)), I64(2));
  expect_err(MK(IR_OP_POW, 1, F32(2), TY(IR_BOOL, 2)), "second input must be numeric");
  expect(MK(IR_OP_EQUAL, 1, TY(IR_I32, 2, 1), TY(IR_I32, 3)), TY(IR_BOOL, 2, 3));
  expect(MK(IR_OP_EQUAL, 1, TY(IR_BOOL, 2), TY(IR_BOOL, 1)), TY(IR_BOOL, 2));
  static const ir_op cmp[] = {IR_OP_GREATER, IR_OP_LESS, IR_OP_GREATER_OR_EQUAL,
                              IR_OP_LESS_OR_EQUAL};
  for (int i = 0; i < 4; i++) {
    expect(MK(cmp[i], 1, F32(4, 1), F32(1, 5)), TY(IR_BOOL, 4, 5));
    expect_err(MK(cmp[i], 1, TY(IR_BOOL, 2), TY(IR_BOOL, 2)), "must be numeric");
  }
  expect_err(MK(IR_OP_LESS, 1, F32(2), TY(IR_F16, 2)), "input dtypes differ");
  expect_err(MK(IR_OP_EQUAL, 1, F32(2), F32(3)), "equal: shapes [2] and [3]");
  expect(MK(IR_OP_AND, 1, TY(IR_BOOL, 3, 1), TY(IR_BOOL, 2)), TY(IR_BOOL, 3, 2));
  expect(MK(IR_OP_OR, 1, SC(IR_BOOL), TY(IR_BOOL, 2)), TY(IR_BOOL, 2));
  expect_err(MK(IR_OP_OR, 1, TY(IR_BOOL, 2), TY(IR_U8, 2)),
             "or: second input must be bool, got u8");
  expect_err(MK(IR_OP_AND, 1, F32(2), TY(IR_BOOL, 2)), "and: first input must be bool");
  expect_err(MK(IR_OP_AND, 1, TY(IR_BOOL, 2), TY(IR_BOOL, 4)), "and: shapes [2] and [4]");
}

Test(elementwise, prelu) {
  expect(MK(IR_OP_PRELU, 1, F32(1, 3, 4, 4), F32(3, 1, 1)), F32(1, 3, 4, 4));
  expect(MK(IR_OP_PRELU, 1, F32(2, 5), SC(IR_F32)), F32(2, 5));
  expect_err(MK(IR_OP_PRELU, 1, F32(1, 3, 4, 4), F32(2, 1, 1)),
             "prelu: shapes [1,3,4,4] and [2,1,1] do not broadcast");
  expect_err(MK(IR_OP_PRELU, 1, F32(1, 4), F32(3, 4)),
             "prelu: slope [3,4] does not broadcast to input [1,4]");
  expect_err(MK(IR_OP_PRELU, 1, TY(IR_I32, 2), TY(IR_I32, 2)), "must be f32 or f16");
}

Test(elementwise, variadic_and_where) {
  expect(MK(IR_OP_SUM, 1, F32(3, 1), F32(1, 4), F32(4)), F32(3, 4));
  expect(MK(IR_OP_MAX, 1, TY(IR_I32, 2, 2)), TY(IR_I32, 2, 2));
  expect(MK(IR_OP_MIN, 1, TY(IR_U8, 2), TY(IR_U8, 1)), TY(IR_U8, 2));
  expect(MK(IR_OP_MEAN, 1, F32(2), F32(2)), F32(2));
  expect_err(MK(IR_OP_MEAN, 1, TY(IR_I32, 2)), "mean: input must be f32 or f16");
  expect_err(MK(IR_OP_SUM, 1, F32(2), F32(2), TY(IR_F16, 2)),
             "sum: input 2 is f16, input 0 is f32");
  expect_err(MK(IR_OP_MAX, 1, F32(2), F32(3)), "max: shapes [2] and [3]");
  expect_err(MK(IR_OP_MIN, 1, TY(IR_BOOL, 2)), "min: input must be numeric, got bool");
  expect_err(mk(IR_OP_SUM, NULL, 0, 1), "sum takes at least 1 input, got 0");
  expect(MK(IR_OP_WHERE, 1, TY(IR_BOOL, 2, 1), F32(1, 3), F32(2, 3)), F32(2, 3));
  expect(MK(IR_OP_WHERE, 1, TY(IR_BOOL, 4, 1, 1), TY(IR_I64, 3), SC(IR_I64)),
         TY(IR_I64, 4, 1, 3));
  expect_err(MK(IR_OP_WHERE, 1, F32(2), F32(2), F32(2)),
             "where: condition must be bool, got f32");
  expect_err(MK(IR_OP_WHERE, 1, TY(IR_BOOL, 2), F32(2), TY(IR_I32, 2)),
             "where: x and y dtypes differ");
  expect_err(MK(IR_OP_WHERE, 1, TY(IR_BOOL, 3), F32(2), F32(2)),
             "do not broadcast");
  expect_err(MK(IR_OP_ADD, 1, F32(2)), "add takes 2 inputs, got 1");
}

/* ---- convolutions ----------------------------------------------------------- */

/* attention: q, kt, v as inputs, or as strided views of any inputs (dims,
 * q_view, k_view, v_view), the result transposed by perm; every view read
 * inside its input, dims and views complete, perm a permutation. */
Test(nn, attention) {
  expect(MK(IR_OP_ATTENTION, 1, F32(2, 3, 5, 8), F32(2, 3, 8, 7), F32(2, 3, 7, 4)),
         F32(2, 3, 5, 4));
  expect_err(MK(IR_OP_ATTENTION, 1, F32(2, 3, 5, 8), F32(2, 3, 6, 7), F32(2, 3, 7, 4)),
             "attention: q has D=8 but kt has 6");
#define VIEWS(x, ...)                                                          \
  t = MK(IR_OP_ATTENTION, 1, x, x, x);                                         \
  INTS(t, IR_A_DIMS, 1, 2, 20, 8, 20, 8);                                      \
  __VA_ARGS__
  tn t;
  VIEWS(F32(20, 48), INTS(t, IR_A_Q_VIEW, 0, 0, 8, 48, 1); INTS(t, IR_A_K_VIEW, 16, 0, 8, 1, 48);
        INTS(t, IR_A_V_VIEW, 32, 0, 8, 48, 1); INTS(t, IR_A_PERM, 2, 0, 1, 3);)
  expect(t, F32(20, 1, 2, 8));
  VIEWS(F32(20, 48), INTS(t, IR_A_Q_VIEW, 0, 0, 8, 48, 1); INTS(t, IR_A_K_VIEW, 16, 0, 8, 1, 48);
        INTS(t, IR_A_V_VIEW, 33, 0, 8, 48, 1);)
  expect_err(t, "attention: v's view reads element 960 of an input of 960");
  VIEWS(F32(20, 48), INTS(t, IR_A_Q_VIEW, 0, 0, 8, 48, 1); INTS(t, IR_A_K_VIEW, 16, 0, 8, 1);
        INTS(t, IR_A_V_VIEW, 32, 0, 8, 48, 1);)
  expect_err(t, "attention: kt's view has 4 entries, needs the offset and 4 strides");
  VIEWS(F32(20, 48), INTS(t, IR_A_Q_VIEW, 0, 0, 8, 48, 1); INTS(t, IR_A_K_VIEW, 16, 0, -8, 1, 48);
        INTS(t, IR_A_V_VIEW, 32, 0, 8, 48, 1);)
  expect_err(t, "attention: kt's stride -8 (0 to 2^40)");
  VIEWS(F32(20, 48), INTS(t, IR_A_Q_VIEW, 0, 0, 8, 48, 1); INTS(t, IR_A_K_VIEW, 16, 0, 8, 1, 48);
        INTS(t, IR_A_V_VIEW, 32, 0, 8, 48, 1); INTS(t, IR_A_PERM, 2, 0, 2, 3);)
  expect_err(t, "attention: perm is not a permutation (2 appears twice)");
#undef VIEWS
  t = MK(IR_OP_ATTENTION, 1, F32(20, 48), F32(20, 48), F32(20, 48));
  INTS(t, IR_A_Q_VIEW, 0, 0, 8, 48, 1);
  expect_err(t, "attention: q_view, k_view and v_view need dims");
}

Test(nn, conv2d_basic) {
  tn t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3), F32(4));
  INTS(t, IR_A_PADS, 1, 1, 1, 1);
  INT(t, IR_A_ACT, IR_ACT_RELU6);
  expect(t, F32(1, 4, 8, 8));
  /* (7 + 2 - 3) / 2 + 1 = 4 */
  t = MK(IR_OP_CONV2D, 1, F32(2, 3, 7, 7), F32(5, 3, 3, 3));
  INTS(t, IR_A_PADS, 1, 1, 1, 1);
  INTS(t, IR_A_STRIDES, 2, 2);
  expect(t, F32(2, 5, 4, 4));
  expect(MK(IR_OP_CONV2D, 1, bnd(F32(6, 3, 5, 5), 0), F32(2, 3, 1, 1)),
         bnd(F32(6, 2, 5, 5), 0));
}

Test(nn, conv2d_groups_dilation_asymmetric) {
  /* H: ext (3-1)*2+1 = 5; 10+1+2-5 = 8; 8/3+1 = 3.
   * W: ext 3; 12+0+3-3 = 12; 12/2+1 = 7. */
  tn t = MK(IR_OP_CONV2D, 1, F32(2, 8, 10, 12), F32(6, 4, 3, 3), F32(6));
  INT(t, IR_A_GROUP, 2);
  INTS(t, IR_A_DILATIONS, 2, 1);
  INTS(t, IR_A_PADS, 1, 0, 2, 3);
  INTS(t, IR_A_STRIDES, 3, 2);
  expect(t, F32(2, 6, 3, 7));
  /* depthwise */
  t = MK(IR_OP_CONV2D, 1, TY(IR_F16, 1, 32, 9, 9), TY(IR_F16, 32, 1, 3, 3));
  INT(t, IR_A_GROUP, 32);
  INTS(t, IR_A_STRIDES, 2, 2);
  expect(t, TY(IR_F16, 1, 32, 4, 4));
}

Test(nn, conv2d_errors) {
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 4, 3, 3)),
             "conv2d: input has 3 channels but weight expects 4 (group 1)");
  tn t = MK(IR_OP_CONV2D, 1, F32(1, 6, 8, 8), F32(4, 3, 3, 3));
  INT(t, IR_A_GROUP, 4);
  expect_err(t, "conv2d: input has 6 channels, not divisible by group 4");
  t = MK(IR_OP_CONV2D, 1, F32(1, 6, 8, 8), F32(3, 3, 3, 3));
  INT(t, IR_A_GROUP, 2);
  expect_err(t, "conv2d: 3 output channels not divisible by group 2");
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3), F32(5)),
             "conv2d: bias has 5 entries, expected 4");
  expect_err(MK(IR_OP_CONV2D, 1, F32(3, 8, 8), F32(4, 3, 3, 3)),
             "conv2d: input must have rank 4, got [3,8,8]");
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3)),
             "conv2d: weight must have rank 4");
  expect_err(MK(IR_OP_CONV2D, 1, TY(IR_I32, 1, 3, 8, 8), TY(IR_I32, 4, 3, 3, 3)),
             "conv2d: input must be f32 or f16, got i32");
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), TY(IR_F16, 4, 3, 3, 3)),
             "conv2d: weight is f16, expected f32");
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 2, 8), F32(4, 3, 3, 3)),
             "kernel extent 3 (kernel 3, dilation 1) is larger than the padded "
             "input 2 along H");
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 0, 3)), "empty 0x3 kernel");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_STRIDES, 1, 1, 1);
  expect_err(t, "conv2d: strides must have 2 entries, got 3");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_STRIDES, 1, 0);
  expect_err(t, "conv2d: strides[1] is 0, must be >= 1");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_PADS, 0, -1, 0, 0);
  expect_err(t, "conv2d: pads[1] is -1, must be >= 0");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_PADS, 1, 1);
  expect_err(t, "pads must have 4 entries, got 2");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INT(t, IR_A_GROUP, 0);
  expect_err(t, "conv2d: group is 0, must be >= 1");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_OUTPUT_PADDING, 0, 0);
  expect_err(t, "conv2d has no attribute 'output_padding'");
  /* hostile sizes */
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_PADS, INT64_MAX, 0, INT64_MAX, 0);
  expect_err(t, "pads[0] is 9223372036854775807, too large");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INTS(t, IR_A_DILATIONS, INT64_C(1) << 40, INT64_C(1) << 40);
  expect_err(t, "larger than the padded input");
  t = MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), F32(4, 3, 3, 3));
  INT(t, IR_A_GROUP, INT64_MAX);
  expect_err(t, "not divisible by group");
  expect_err(MK(IR_OP_CONV2D, 1, F32(1, 3, 8, 8), bnd(F32(4, 3, 3, 3), 0)),
             "weight is bounded along axis 0");
}

Test(nn, conv_transpose2d) {
  /* H: 2*(5-1) + 1 + (3-1)*1 + 1 - 1 - 1 = 10; W: 2*(6-1) + 0 + 3 - 2 = 11 */
  tn t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 5, 6), F32(4, 3, 3, 3), F32(3));
  INTS(t, IR_A_STRIDES, 2, 2);
  INTS(t, IR_A_PADS, 1, 1, 1, 1);
  INTS(t, IR_A_OUTPUT_PADDING, 1, 0);
  expect(t, F32(1, 3, 10, 11));
  /* groups 2: M = 2*2; dilation 2: H = 4 + (3-1)*2 + 1 = 9; W: 4 + 2 + 1 = 7 */
  t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 5, 5), F32(4, 2, 3, 3));
  INT(t, IR_A_GROUP, 2);
  INTS(t, IR_A_DILATIONS, 2, 1);
  expect(t, F32(1, 4, 9, 7));
  /* output_padding may reach max(stride, dilation) - 1 via the dilation */
  t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 2, 3, 3), F32(2, 1, 2, 2));
  INTS(t, IR_A_DILATIONS, 3, 1);
  INTS(t, IR_A_OUTPUT_PADDING, 2, 0);
  expect(t, F32(1, 1, 2 + 2 + 3 + 1, 2 + 1 + 1));
}

Test(nn, conv_transpose2d_errors) {
  tn t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 5, 6), F32(4, 3, 3, 3));
  INTS(t, IR_A_STRIDES, 2, 2);
  INTS(t, IR_A_OUTPUT_PADDING, 2, 0);
  expect_err(t, "output_padding[0] is 2, must be less than max(stride, dilation) = 2");
  t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 5, 6), F32(4, 3, 3, 3));
  INTS(t, IR_A_OUTPUT_PADDING, -1, 0);
  expect_err(t, "output_padding[0] is -1, must be >= 0");
  expect_err(MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 5, 6), F32(5, 3, 3, 3)),
             "conv_transpose2d: input has 4 channels but weight expects 5");
  expect_err(MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 5, 6), F32(4, 3, 3, 3), F32(4)),
             "conv_transpose2d: bias has 4 entries, expected 3");
  t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 2, 2), F32(4, 3, 3, 3));
  INTS(t, IR_A_PADS, 3, 0, 3, 0);
  expect_err(t, "conv_transpose2d: output H would be -2");
  t = MK(IR_OP_CONV_TRANSPOSE2D, 1, F32(1, 4, 2, 2), F32(4, 3, 3, 3));
  INTS(t, IR_A_STRIDES, INT64_C(1) << 40, 1);
  expect_err(t, "too large");
}

/* ---- gemm / matmul ---------------------------------------------------------- */

Test(nn, gemm) {
  expect(MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4)), F32(3, 4));
  tn t = MK(IR_OP_GEMM, 1, F32(5, 3), F32(4, 5), F32(4));
  INT(t, IR_A_TRANS_A, 1);
  INT(t, IR_A_TRANS_B, 1);
  expect(t, F32(3, 4));
  expect(MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4), F32(3, 1)), F32(3, 4));
  expect(MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4), F32(1)), F32(3, 4));
  expect(MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4), SC(IR_F32)), F32(3, 4));
  expect(MK(IR_OP_GEMM, 1, TY(IR_I32, 2, 2), TY(IR_I32, 2, 7)), TY(IR_I32, 2, 7));
  expect(MK(IR_OP_GEMM, 1, bnd(F32(9, 5), 0), F32(5, 4)), bnd(F32(9, 4), 0));
  expect_err(MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4), F32(4, 4)),
             "gemm: c [4,4] does not broadcast to [3,4]");
  expect_err(MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4), F32(1, 3, 4)),
             "does not broadcast to [3,4]");
  expect_err(MK(IR_OP_GEMM, 1, F32(3, 5), F32(6, 4)),
             "gemm: a has K=5 (trans_a=0) but b has K=6 (trans_b=0)");
  expect_err(MK(IR_OP_GEMM, 1, F32(2, 3, 5), F32(5, 4)), "gemm: a must have rank 2");
  expect_err(MK(IR_OP_GEMM, 1, F32(3, 5), TY(IR_F16, 5, 4)), "input dtypes differ");
  expect_err(MK(IR_OP_GEMM, 1, F32(3, 5), bnd(F32(5, 4), 0)), "b is bounded along axis 0");
  t = MK(IR_OP_GEMM, 1, F32(3, 5), F32(5, 4));
  INT(t, IR_A_TRANS_A, 2);
  expect_err(t, "trans_a and trans_b must be 0 or 1");
}

Test(nn, matmul) {
  expect(MK(IR_OP_MATMUL, 1, F32(2, 3), F32(3, 4)), F32(2, 4));
  expect(MK(IR_OP_MATMUL, 1, F32(3), F32(3, 4)), F32(4));
  expect(MK(IR_OP_MATMUL, 1, F32(2, 3), F32(3)), F32(2));
  expect(MK(IR_OP_MATMUL, 1, F32(3), F32(3)), SC(IR_F32));
  expect(MK(IR_OP_MATMUL, 1, F32(2, 1, 3, 4), F32(5, 4, 6)), F32(2, 5, 3, 6));
  expect(MK(IR_OP_MATMUL, 1, F32(4), F32(2, 4, 5)), F32(2, 5));
  expect(MK(IR_OP_MATMUL, 1, F32(7, 2, 4), F32(4)), F32(7, 2));
  expect(MK(IR_OP_MATMUL, 1, TY(IR_I64, 2, 2), TY(IR_I64, 2, 2)), TY(IR_I64, 2, 2));
  expect(MK(IR_OP_MATMUL, 1, bnd(F32(9, 3), 0), F32(3, 4)), bnd(F32(9, 4), 0));
  expect(MK(IR_OP_MATMUL, 1, F32(2, 3), bnd(F32(3, 8), 1)), bnd(F32(2, 8), 1));
  expect(MK(IR_OP_MATMUL, 1, bnd(F32(6, 2, 3), 0), F32(3, 4)), bnd(F32(6, 2, 4), 0));
  expect_err(MK(IR_OP_MATMUL, 1, F32(2, 3), F32(4, 5)),
             "matmul: a has K=3 but b has K=4 ([2,3] x [4,5])");
  expect_err(MK(IR_OP_MATMUL, 1, F32(2, 2, 3), F32(3, 3, 4)),
             "matmul: batch dimensions: shapes [2] and [3] do not broadcast");
  expect_err(MK(IR_OP_MATMUL, 1, SC(IR_F32), F32(3)), "matmul: inputs must have rank >= 1");
  expect_err(MK(IR_OP_MATMUL, 1, F32(2, 3), TY(IR_I32, 3, 4)), "input dtypes differ");
  expect_err(MK(IR_OP_MATMUL, 1, bnd(F32(2, 3), 1), F32(3, 4)), "contracted axis K is bounded");
}

/* ---- normalisation ------------------------------------------------------------ */

Test(nn, batchnorm_instance_layer_norm) {
  ir_type c3 = F32(3);
  expect(MK(IR_OP_BATCHNORM, 1, F32(2, 3, 4, 4), c3, c3, c3, c3), F32(2, 3, 4, 4));
  expect(MK(IR_OP_BATCHNORM, 1, F32(2, 3), c3, c3, c3, c3), F32(2, 3));
  expect_err(MK(IR_OP_BATCHNORM, 1, F32(2, 3, 4, 4), c3, F32(4), c3, c3),
             "batchnorm: bias has 4 entries, expected 3");
  expect_err(MK(IR_OP_BATCHNORM, 1, F32(2, 3, 4, 4), c3, c3, c3, F32(3, 1)),
             "batchnorm: var must have rank 1, got [3,1]");
  expect_err(MK(IR_OP_BATCHNORM, 1, TY(IR_I32, 2, 3), c3, c3, c3, c3), "must be f32 or f16");
  expect_err(MK(IR_OP_BATCHNORM, 1, F32(3), c3, c3, c3, c3), "rank >= 2");
  expect(MK(IR_OP_INSTANCE_NORM, 1, F32(2, 3, 5), c3, c3), F32(2, 3, 5));
  expect_err(MK(IR_OP_INSTANCE_NORM, 1, F32(2, 3), c3, c3),
             "instance_norm: input must have rank >= 3, got 2");
  expect_err(MK(IR_OP_INSTANCE_NORM, 1, F32(2, 3, 5), c3, TY(IR_F16, 3)),
             "instance_norm: bias is f16, expected f32");
  expect(MK(IR_OP_LAYER_NORM, 1, F32(2, 3, 4), F32(4), F32(4)), F32(2, 3, 4));
  tn t = MK(IR_OP_LAYER_NORM, 1, F32(2, 3, 4), F32(3, 4), F32(1, 4));
  INT(t, IR_A_AXIS, 1);
  expect(t, F32(2, 3, 4));
  expect(MK(IR_OP_LAYER_NORM, 1, bnd(F32(9, 4), 0), F32(4)), bnd(F32(9, 4), 0));
  expect_err(MK(IR_OP_LAYER_NORM, 1, F32(2, 3, 4), F32(3)),
             "layer_norm: scale [3] does not broadcast to the normalised shape [4]");
  t = MK(IR_OP_LAYER_NORM, 1, F32(2, 3, 4), F32(4));
  INT(t, IR_A_AXIS, 3);
  expect_err(t, "layer_norm: axis 3 out of range for rank 3");
}

/* ---- pooling ------------------------------------------------------------------ */

static tn pool(ir_op op, int64_t h, int64_t k, int64_t s, int64_t pt, int64_t pb,
               int64_t d, int ceil) {
  tn t = MK(op, 1, F32(1, 2, h, 6));
  INTS(t, IR_A_KERNEL, k, 1);
  INTS(t, IR_A_STRIDES, s, 1);
  INTS(t, IR_A_PADS, pt, 0, pb, 0);
  INTS(t, IR_A_DILATIONS, d, 1);
  INT(t, IR_A_CEIL_MODE, ceil);
  return t;
}

Test(nn, pool_sizes) {
  expect(pool(IR_OP_MAXPOOL, 5, 2, 2, 0, 0, 1, 0), F32(1, 2, 2, 6));
  expect(pool(IR_OP_MAXPOOL, 5, 2, 2, 0, 0, 1, 1), F32(1, 2, 3, 6));
  expect(pool(IR_OP_AVGPOOL, 6, 3, 2, 0, 0, 1, 1), F32(1, 2, 3, 6));
  expect(pool(IR_OP_AVGPOOL, 6, 3, 2, 0, 0, 1, 0), F32(1, 2, 2, 6));
  /* padded 7, span 5: floor 3, ceil 4 but window 4 would start at 6 >= 5+1,
   * inside the bottom padding: dropped. */
  expect(pool(IR_OP_MAXPOOL, 5, 2, 2, 1, 1, 1, 1), F32(1, 2, 3, 6));
  expect(pool(IR_OP_MAXPOOL, 5, 2, 2, 1, 1, 1, 0), F32(1, 2, 3, 6));
  /* same but the 4th window starts at 6 < 6+1: kept. */
  expect(pool(IR_OP_MAXPOOL, 6, 3, 2, 1, 1, 1, 1), F32(1, 2, 4, 6));
  expect(pool(IR_OP_MAXPOOL, 6, 3, 2, 1, 1, 1, 0), F32(1, 2, 3, 6));
  /* dilation 2, k 3: extent 5; (7-5)/1+1 = 3; stride 2 on 8: span 3, floor 2,
   * ceil 3 */
  expect(pool(IR_OP_MAXPOOL, 7, 3, 1, 0, 0, 2, 0), F32(1, 2, 3, 6));
  expect(pool(IR_OP_MAXPOOL, 8, 3, 2, 0, 0, 2, 1), F32(1, 2, 3, 6));
  expect(pool(IR_OP_MAXPOOL, 8, 3, 2, 0, 0, 2, 0), F32(1, 2, 2, 6));
  /* kernel covering the padded input exactly */
  expect(pool(IR_OP_AVGPOOL, 3, 5, 1, 1, 1, 1, 1), F32(1, 2, 1, 6));
  tn t = MK(IR_OP_AVGPOOL, 1, bnd(F32(7, 1, 4, 4), 0));
  INTS(t, IR_A_KERNEL, 2, 2);
  INTS(t, IR_A_STRIDES, 2, 2);
  INT(t, IR_A_COUNT_INCLUDE_PAD, 1);
  expect(t, bnd(F32(7, 1, 2, 2), 0));
  t = MK(IR_OP_MAXPOOL, 1, TY(IR_U8, 1, 1, 4, 4));
  INTS(t, IR_A_KERNEL, 3, 3);
  expect(t, TY(IR_U8, 1, 1, 2, 2));
}

Test(nn, pool_errors) {
  expect_err(pool(IR_OP_MAXPOOL, 3, 5, 1, 0, 1, 1, 0),
             "maxpool along H: pooling window larger than padded input");
  expect_err(pool(IR_OP_AVGPOOL, 3, 3, 1, 0, 0, 2, 1),
             "pooling window larger than padded input (window 5, padded input 3)");
  expect_err(MK(IR_OP_MAXPOOL, 1, F32(1, 2, 4, 4)), "maxpool: kernel is required");
  tn t = MK(IR_OP_MAXPOOL, 1, F32(1, 2, 4, 4));
  INTS(t, IR_A_KERNEL, 2, 2, 2);
  expect_err(t, "maxpool: kernel must have 2 entries, got 3");
  t = MK(IR_OP_AVGPOOL, 1, F32(1, 2, 4, 4));
  INTS(t, IR_A_KERNEL, 2, 0);
  expect_err(t, "avgpool: kernel[1] is 0, must be >= 1");
  t = MK(IR_OP_MAXPOOL, 1, F32(1, 2, 4, 4));
  INTS(t, IR_A_KERNEL, 2, 2);
  INT(t, IR_A_CEIL_MODE, 2);
  expect_err(t, "maxpool: ceil_mode is 2, must be 0 or 1");
  t = MK(IR_OP_MAXPOOL, 1, F32(2, 4, 4));
  INTS(t, IR_A_KERNEL, 2, 2);
  expect_err(t, "maxpool: input must have rank 4, got [2,4,4]");
  t = MK(IR_OP_AVGPOOL, 1, TY(IR_I8, 1, 2, 4, 4));
  INTS(t, IR_A_KERNEL, 2, 2);
  expect_err(t, "avgpool: input must be f32 or f16, got i8");
  t = MK(IR_OP_MAXPOOL, 1, F32(1, 2, 4, 4));
  INTS(t, IR_A_KERNEL, INT64_MAX, 2);
  expect_err(t, "maxpool: kernel[0] is 9223372036854775807, too large");
  t = MK(IR_OP_MAXPOOL, 1, F32(1, 2, 4, 4));
  INTS(t, IR_A_KERNEL, INT64_C(1) << 40, 2);
  INTS(t, IR_A_DILATIONS, INT64_C(1) << 40, 1);
  expect_err(t, "pooling sizes overflow");
}

Test(nn, global_pool_softmax) {
  expect(MK(IR_OP_GLOBAL_AVG_POOL, 1, F32(2, 3, 5, 7)), F32(2, 3, 1, 1));
  expect(MK(IR_OP_GLOBAL_MAX_POOL, 1, F32(2, 3, 5, 7, 2)), F32(2, 3, 1, 1, 1));
  expect(MK(IR_OP_GLOBAL_MAX_POOL, 1, bnd(F32(2, 3, 5), 2)), F32(2, 3, 1));
  expect_err(MK(IR_OP_GLOBAL_AVG_POOL, 1, F32(2, 3)), "global_avg_pool: input must have rank >= 3");
  expect_err(MK(IR_OP_GLOBAL_MAX_POOL, 1, TY(IR_I32, 2, 3, 4)), "must be f32 or f16");
  expect(MK(IR_OP_SOFTMAX, 1, F32(2, 5)), F32(2, 5));
  tn t = MK(IR_OP_LOG_SOFTMAX, 1, F32(2, 5, 3));
  INT(t, IR_A_AXIS, -3);
  expect(t, F32(2, 5, 3));
  t = MK(IR_OP_SOFTMAX, 1, F32(2, 5));
  INT(t, IR_A_AXIS, 2);
  expect_err(t, "softmax: axis 2 out of range for rank 2");
  expect_err(MK(IR_OP_LOG_SOFTMAX, 1, TY(IR_I32, 4)), "log_softmax: input must be f32");
}

/* ---- resize ------------------------------------------------------------------- */

Test(nn, resize) {
  tn t = MK(IR_OP_RESIZE, 1, F32(1, 3, 4, 5));
  FLOATS(t, IR_A_SCALES, 1, 1, 2, 1.5f);
  expect(t, F32(1, 3, 8, 7)); /* floor(7.5) */
  t = MK(IR_OP_RESIZE, 1, F32(1, 3, 10, 5));
  FLOATS(t, IR_A_SCALES, 1, 1, 0.3f, 0.5f);
  expect(t, F32(1, 3, 3, 2));
  t = MK(IR_OP_RESIZE, 1, F32(1, 3, 4, 5));
  INTS(t, IR_A_SIZES, 1, 3, 9, 2);
  INT(t, IR_A_RESIZE_MODE, IR_RESIZE_LINEAR);
  expect(t, F32(1, 3, 9, 2));
  t = MK(IR_OP_RESIZE, 1, TY(IR_I32, 2, 2));
  FLOATS(t, IR_A_SCALES, 2, 3);
  expect(t, TY(IR_I32, 4, 6));

  t = MK(IR_OP_RESIZE, 1, F32(2, 2));
  FLOATS(t, IR_A_SCALES, 2, 2);
  INTS(t, IR_A_SIZES, 4, 4);
  expect_err(t, "resize: scales and sizes are both given");
  expect_err(MK(IR_OP_RESIZE, 1, F32(2, 2)), "resize: one of scales or sizes is required");
  t = MK(IR_OP_RESIZE, 1, F32(1, 3, 4, 5));
  FLOATS(t, IR_A_SCALES, 2, 2);
  expect_err(t, "resize: scales has 2 entries, input has rank 4");
  t = MK(IR_OP_RESIZE, 1, F32(2, 2));
  FLOATS(t, IR_A_SCALES, 1, 0);
  expect_err(t, "resize: scales[1] is 0, must be a finite value > 0");
  t = MK(IR_OP_RESIZE, 1, F32(2, 2));
  FLOATS(t, IR_A_SCALES, 1, 1e30f);
  expect_err(t, "resize: output dimension 1 too large");
  t = MK(IR_OP_RESIZE, 1, F32(2, 2));
  INTS(t, IR_A_SIZES, 2, -1);
  expect_err(t, "resize: sizes[1] is -1, must be >= 0");
  t = MK(IR_OP_RESIZE, 1, TY(IR_I32, 2, 2));
  FLOATS(t, IR_A_SCALES, 2, 2);
  INT(t, IR_A_RESIZE_MODE, IR_RESIZE_CUBIC);
  expect_err(t, "resize: input must be f32 or f16, got i32");
  t = MK(IR_OP_RESIZE, 1, F32(2, 2));
  FLOATS(t, IR_A_SCALES, 2, 2);
  INT(t, IR_A_COORD_MODE, IR_COORD_OUTPUT_HALF_PIXEL);
  expect_err(t, "output_half_pixel is for roi_align only");
  t = MK(IR_OP_RESIZE, 1, F32(0, 2));
  INTS(t, IR_A_SIZES, 3, 2);
  expect_err(t, "resize: cannot resize empty axis 0 to 3");
  t = MK(IR_OP_RESIZE, 1, F32(2, 2));
  FLOATS(t, IR_A_SCALES, 2, NAN);
  expect_err(t, "resize: scales[1] is nan");
}

Test(params, resize_scales_from_sizes) {
  tn t = MK(IR_OP_RESIZE, 1, F32(1, 3, 4, 5));
  INTS(t, IR_A_SIZES, 1, 3, 9, 2);
  ir_resize_params p;
  T_OK(ir_resize_params_get(t.n, &t.n->inputs[0]->type, &p));
  cr_assert_eq(p.mode, IR_RESIZE_NEAREST);
  cr_assert_eq(p.coord, IR_COORD_HALF_PIXEL);
  cr_assert_eq(p.nearest, IR_NEAREST_ROUND_PREFER_FLOOR);
  cr_assert_float_eq(p.cubic_coeff_a, -0.75f, 0);
  cr_assert(!p.exclude_outside);
  cr_assert_eq(p.scale[2], 9.0f / 4.0f);
  cr_assert_eq(p.scale[3], 2.0f / 5.0f);
  cr_assert_eq(p.scale[0], 1.0f);
  cr_assert_eq(p.out_dims[2], 9);
  ir_graph_destroy(t.g);
  t = MK(IR_OP_RESIZE, 1, F32(3, 4));
  FLOATS(t, IR_A_SCALES, 1.25f, 0.6f);
  INT(t, IR_A_COORD_MODE, IR_COORD_ALIGN_CORNERS);
  T_OK(ir_resize_params_get(t.n, &t.n->inputs[0]->type, &p));
  cr_assert_eq(p.coord, IR_COORD_ALIGN_CORNERS);
  cr_assert_eq(p.scale[1], 0.6f);
  cr_assert_eq(p.out_dims[0], 3); /* floor(3.75) */
  cr_assert_eq(p.out_dims[1], 2); /* floor(2.4) */
  ir_graph_destroy(t.g);
}

/* ---- reductions ---------------------------------------------------------------- */

Test(reduce, shapes) {
  static const ir_op ops[] = {IR_OP_REDUCE_MEAN, IR_OP_REDUCE_SUM, IR_OP_REDUCE_MAX,
                              IR_OP_REDUCE_MIN, IR_OP_REDUCE_PROD};
  for (int i = 0; i < 5; i++) {
    tn t = MK(ops[i], 1, F32(2, 3, 4));
    INTS(t, IR_A_AXES, 1);
    expect(t, F32(2, 1, 4));
    t = MK(ops[i], 1, F32(2, 3, 4));
    INTS(t, IR_A_AXES, -1, 0);
    INT(t, IR_A_KEEPDIMS, 0);
    expect(t, F32(3));
    expect(MK(ops[i], 1, TY(IR_I32, 2, 3)), TY(IR_I32, 1, 1));
    t = MK(ops[i], 1, F32(2, 3, 4));
    INT(t, IR_A_KEEPDIMS, 0);
    expect(t, SC(IR_F32));
    t = MK(ops[i], 1, bnd(F32(9, 3), 0));
    INTS(t, IR_A_AXES, 1);
    INT(t, IR_A_KEEPDIMS, 0);
    expect(t, bnd(F32(9), 0));
    t = MK(ops[i], 1, F32(2, 3, 4));
    INTS(t, IR_A_AXES, 1, -2);
    expect_err(t, "axis 1 appears twice in axes");
    t = MK(ops[i], 1, F32(2, 3, 4));
    INTS(t, IR_A_AXES, 3);
    expect_err(t, "axes[0]: axis 3 out of range for rank 3");
    t = MK(ops[i], 1, F32(2, 3));
    INT(t, IR_A_KEEPDIMS, 5);
    expect_err(t, "keepdims is 5, must be 0 or 1");
    expect_err(MK(ops[i], 1, TY(IR_BOOL, 2)), "input must be numeric, got bool");
  }
  /* nothing reduces to the identity (ONNX opset 18): -inf for max */
  expect(MK(IR_OP_REDUCE_MAX, 1, F32(2, 0)), F32(1, 1));
  expect(MK(IR_OP_REDUCE_SUM, 1, F32(2, 0)), F32(1, 1));
}

Test(reduce, argminmax) {
  expect(MK(IR_OP_ARGMAX, 1, F32(4, 5)), I64(1, 5));
  tn t = MK(IR_OP_ARGMIN, 1, TY(IR_I32, 4, 5, 6));
  INT(t, IR_A_AXIS, -1);
  INT(t, IR_A_KEEPDIMS, 0);
  INT(t, IR_A_SELECT_LAST_INDEX, 1);
  expect(t, I64(4, 5));
  t = MK(IR_OP_ARGMAX, 1, F32(4, 5));
  INT(t, IR_A_AXIS, 2);
  expect_err(t, "argmax: axis 2 out of range for rank 2");
  t = MK(IR_OP_ARGMIN, 1, F32(4, 5));
  INT(t, IR_A_SELECT_LAST_INDEX, 3);
  expect_err(t, "argmin: select_last_index is 3");
  expect_err(MK(IR_OP_ARGMAX, 1, F32(0, 5)), "cannot reduce empty axis 0");
}

/* ---- attribute decoders and helpers ------------------------------------------------ */

Test(params, act_defaults) {
  static const struct {
    ir_act kind;
    float alpha, beta;
  } cases[] = {{IR_ACT_NONE, 0, 0},          {IR_ACT_CLIP, 0, 6},
               {IR_ACT_LEAKY_RELU, 0.01f, 0}, {IR_ACT_ELU, 1, 0},
               {IR_ACT_HARD_SIGMOID, 0.2f, 0.5f}, {IR_ACT_RELU6, 0, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tn t = MK(IR_OP_ADD, 1, F32(2), F32(2));
    if (cases[i].kind != IR_ACT_NONE) INT(t, IR_A_ACT, cases[i].kind);
    ir_act_params a;
    ir_act_params_get(t.n, &a);
    cr_assert_eq(a.kind, cases[i].kind);
    cr_assert_eq(a.alpha, cases[i].alpha, "case %zu alpha %g", i, (double)a.alpha);
    cr_assert_eq(a.beta, cases[i].beta, "case %zu beta %g", i, (double)a.beta);
    FLT(t, IR_A_ACT_ALPHA, -3.5f);
    ir_act_params_get(t.n, &a);
    cr_assert_eq(a.alpha, -3.5f);
    ir_graph_destroy(t.g);
  }
}

Test(params, conv_and_pool_defaults) {
  tn t = MK(IR_OP_CONV2D, 1, F32(1, 4, 9, 9), F32(8, 2, 5, 3));
  INT(t, IR_A_GROUP, 2);
  INT(t, IR_A_ACT, IR_ACT_LEAKY_RELU);
  ir_conv_params c;
  T_OK(ir_conv_params_get(t.n, &t.n->inputs[1]->type, &c));
  cr_assert(c.kernel[0] == 5 && c.kernel[1] == 3);
  cr_assert(c.strides[0] == 1 && c.strides[1] == 1);
  cr_assert(c.dilations[0] == 1 && c.dilations[1] == 1);
  for (int i = 0; i < 4; i++) cr_assert_eq(c.pads[i], 0);
  cr_assert(c.output_padding[0] == 0 && c.output_padding[1] == 0);
  cr_assert_eq(c.group, 2);
  cr_assert(c.act.kind == IR_ACT_LEAKY_RELU && c.act.alpha == 0.01f);
  ir_graph_destroy(t.g);

  t = MK(IR_OP_AVGPOOL, 1, F32(1, 4, 9, 9));
  INTS(t, IR_A_KERNEL, 3, 2);
  INTS(t, IR_A_PADS, 1, 0, 2, 1);
  INT(t, IR_A_COUNT_INCLUDE_PAD, 1);
  ir_pool_params p;
  T_OK(ir_pool_params_get(t.n, &p));
  cr_assert(p.kernel[0] == 3 && p.kernel[1] == 2);
  cr_assert(p.strides[0] == 1 && p.dilations[1] == 1);
  cr_assert(p.pads[0] == 1 && p.pads[1] == 0 && p.pads[2] == 2 && p.pads[3] == 1);
  cr_assert(!p.ceil_mode && p.count_include_pad);
  int64_t o;
  T_OK(ir_pool_out_dim(&p, 0, 9, &o)); /* 9+1+2-3+1 = 10 */
  cr_assert_eq(o, 10);
  T_OK(ir_pool_out_dim(&p, 1, 9, &o)); /* 9+0+1-2+1 = 9 */
  cr_assert_eq(o, 9);
  vkml_status s = ir_pool_out_dim(&p, 1, 0, &o); /* padded 1 < 2 */
  cr_assert(s && strstr(vkml_status_message(s), "pooling window larger than padded input"));
  vkml_status_free(s);
  ir_graph_destroy(t.g);
}

Test(params, axes_perm_broadcast) {
  int ax;
  T_OK(ir_axis_normalize(-1, 3, &ax));
  cr_assert_eq(ax, 2);
  T_OK(ir_axis_normalize(0, 1, &ax));
  cr_assert_eq(ax, 0);
  vkml_status s = ir_axis_normalize(-4, 3, &ax);
  cr_assert(s && strstr(vkml_status_message(s), "axis -4 out of range for rank 3"));
  vkml_status_free(s);
  s = ir_axis_normalize(INT64_MAX, 8, &ax);
  cr_assert(s);
  vkml_status_free(s);

  tn t = MK(IR_OP_TRANSPOSE, 1, F32(2, 3, 4, 5));
  int perm[IR_MAX_RANK];
  T_OK(ir_perm_get(t.n, 4, perm));
  cr_assert(perm[0] == 3 && perm[1] == 2 && perm[2] == 1 && perm[3] == 0);
  INTS(t, IR_A_PERM, 0, 3, 1, 2);
  T_OK(ir_perm_get(t.n, 4, perm));
  cr_assert(perm[0] == 0 && perm[1] == 3 && perm[2] == 1 && perm[3] == 2);
  ir_graph_destroy(t.g);

  t = MK(IR_OP_REDUCE_SUM, 1, F32(2, 3, 4, 5));
  bool mask[IR_MAX_RANK];
  T_OK(ir_reduce_axes_get(t.n, 4, mask));
  cr_assert(mask[0] && mask[1] && mask[2] && mask[3]);
  INTS(t, IR_A_AXES, -1, 1);
  T_OK(ir_reduce_axes_get(t.n, 4, mask));
  cr_assert(!mask[0] && mask[1] && !mask[2] && mask[3]);
  ir_graph_destroy(t.g);

  ir_type a = F32(3, 1, 5), b = TY(IR_I32, 4, 1), o;
  T_OK(ir_broadcast(&a, &b, &o));
  ir_type want = F32(3, 4, 5);
  cr_assert(ir_type_equal(&o, &want));
  ir_type sa = SC(IR_F32), sb = SC(IR_F32);
  T_OK(ir_broadcast(&sa, &sb, &o));
  cr_assert(o.rank == 0 && o.dtype == IR_F32);
  ir_type c = F32(3, 2);
  s = ir_broadcast(&a, &c, &o);
  cr_assert(s && strstr(vkml_status_message(s), "shapes [3,1,5] and [3,2] do not broadcast"));
  vkml_status_free(s);

  int64_t r;
  cr_assert(ir_checked_mul(INT64_C(3037000499), INT64_C(3037000499), &r));
  cr_assert_eq(r, INT64_C(9223372030926249001));
  cr_assert(!ir_checked_mul(INT64_C(3037000500), INT64_C(3037000500), &r));
  cr_assert(ir_checked_mul(INT64_MIN, 1, &r) && r == INT64_MIN);
  cr_assert(!ir_checked_mul(INT64_MIN, -1, &r));
  cr_assert(ir_checked_mul(-4, 5, &r) && r == -20);
  cr_assert(ir_checked_add(INT64_MAX - 1, 1, &r) && r == INT64_MAX);
  cr_assert(!ir_checked_add(INT64_MAX, 1, &r));
  cr_assert(!ir_checked_add(INT64_MIN, -1, &r));
}
