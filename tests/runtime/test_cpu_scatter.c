/* CPU reference kernels: gather_nd, scatter_elements, scatter_nd — the ONNX
 * operator documents' examples, every reduction over duplicate indices (in
 * the indices' order: a later duplicate wins for none), negative indices,
 * integer wrap-around, and the errors (an index out of range naming it, a
 * reduction on bool). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

static void check(const rt_tensor *got, const double *want, int64_t n) {
  cr_assert_eq(rt_tensor_numel(got), n);
  for (int64_t i = 0; i < n; i++)
    cr_assert_eq(rt_load_f(got, i), want[i], "at %lld: got %g, want %g", (long long)i,
                 rt_load_f(got, i), want[i]);
}

/* A one-node case: in[0..n_in) built by the caller, output type, attrs. */
static void run(t_case *c, ir_op op, int n_in, ir_type out, int64_t axis, int red,
                int64_t batch_dims) {
  t_case_make(c, op, n_in, &out, 1);
  if (op == IR_OP_SCATTER_ELEMENTS) T_OK(ir_node_set_int(c->g, c->n, IR_A_AXIS, axis));
  if (op != IR_OP_GATHER_ND) T_OK(ir_node_set_enum(c->g, c->n, IR_A_REDUCTION, red));
  if (batch_dims) T_OK(ir_node_set_int(c->g, c->n, IR_A_BATCH_DIMS, batch_dims));
}

Test(gather_nd, onnx_examples) {
  /* data [[0,1],[2,3]]: indices [[0,0],[1,1]] -> [0,3]; [[1],[0]] -> rows */
  int64_t d2[2] = {2, 2}, i22[2] = {2, 2}, i21[2] = {2, 1};
  const double data2[4] = {0, 1, 2, 3};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_I32, 2, d2, data2);
  c.in[1] = t_tensor_from(IR_I64, 2, i22, (double[]){0, 0, 1, 1});
  run(&c, IR_OP_GATHER_ND, 2, ir_type_make(IR_I32, 1, (int64_t[]){2}), 0, 0, 0);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){0, 3}, 2);
  t_case_free(&c);
  memset(&c, 0, sizeof c);
  c.in[0] = t_tensor_from(IR_F32, 2, d2, data2);
  c.in[1] = t_tensor_from(IR_I32, 2, i21, (double[]){1, -2});
  run(&c, IR_OP_GATHER_ND, 2, ir_type_make(IR_F32, 2, d2), 0, 0, 0);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){2, 3, 0, 1}, 4);
  t_case_free(&c);
  /* batch_dims 1: data [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[1],[0]] */
  int64_t d3[3] = {2, 2, 2};
  memset(&c, 0, sizeof c);
  c.in[0] = t_tensor_from(IR_F32, 3, d3, (double[]){0, 1, 2, 3, 4, 5, 6, 7});
  c.in[1] = t_tensor_from(IR_I64, 2, i21, (double[]){1, 0});
  run(&c, IR_OP_GATHER_ND, 2, ir_type_make(IR_F32, 2, d2), 0, 0, 1);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){2, 3, 4, 5}, 4);
  t_case_free(&c);
}

Test(gather_nd, out_of_range_names_the_index) {
  int64_t d2[2] = {2, 2}, i22[2] = {2, 2};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d2, (double[]){0, 1, 2, 3});
  c.in[1] = t_tensor_from(IR_I64, 2, i22, (double[]){0, 5, 1, 1});
  run(&c, IR_OP_GATHER_ND, 2, ir_type_make(IR_F32, 1, (int64_t[]){2}), 0, 0, 0);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT,
                 "index 5 (indices element 1) out of range for axis 1 of size 2");
  t_case_free(&c);
}

/* data [1,2,3,4,5], indices [1,1,-1], updates [10,20,30] (f32 and i32). */
Test(scatter_elements, every_reduction_over_duplicates) {
  const double want[5][5] = {
      {1, 20, 3, 4, 30},  /* none: the later duplicate */
      {1, 32, 3, 4, 35},  /* add */
      {1, 400, 3, 4, 150}, /* mul */
      {1, 20, 3, 4, 30},  /* max */
      {1, 2, 3, 4, 5},    /* min */
  };
  int64_t n = 5, k = 3;
  ir_dtype dts[2] = {IR_F32, IR_I32};
  for (int d = 0; d < 2; d++)
    for (int r = 0; r < 5; r++) {
      t_case c = {0};
      c.in[0] = t_tensor_from(dts[d], 1, &n, (double[]){1, 2, 3, 4, 5});
      c.in[1] = t_tensor_from(IR_I64, 1, &k, (double[]){1, 1, -1});
      c.in[2] = t_tensor_from(dts[d], 1, &k, (double[]){10, 20, 30});
      run(&c, IR_OP_SCATTER_ELEMENTS, 3, ir_type_make(dts[d], 1, &n), 0, r, 0);
      T_OK(t_case_run(&c));
      check(&c.out[0], want[r], 5);
      t_case_free(&c);
    }
}

/* ONNX's axis-1 example; NaN wins max; i8 add wraps; f16 rounds. */
Test(scatter_elements, examples_nan_and_wrap) {
  int64_t d[2] = {1, 5}, id[2] = {1, 2};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d, (double[]){1, 2, 3, 4, 5});
  c.in[1] = t_tensor_from(IR_I32, 2, id, (double[]){1, 3});
  c.in[2] = t_tensor_from(IR_F32, 2, id, (double[]){1.5, 2.5});
  run(&c, IR_OP_SCATTER_ELEMENTS, 3, ir_type_make(IR_F32, 2, d), 1, 0, 0);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){1, 1.5, 3, 2.5, 5}, 5);
  t_case_free(&c);

  int64_t n = 3, k = 2;
  memset(&c, 0, sizeof c);
  c.in[0] = t_tensor_from(IR_F32, 1, &n, (double[]){1, NAN, 3});
  c.in[1] = t_tensor_from(IR_I64, 1, &k, (double[]){0, 1});
  c.in[2] = t_tensor_from(IR_F32, 1, &k, (double[]){NAN, 7});
  run(&c, IR_OP_SCATTER_ELEMENTS, 3, ir_type_make(IR_F32, 1, &n), 0, IR_SCATTER_MAX, 0);
  T_OK(t_case_run(&c));
  cr_assert(isnan(rt_load_f(&c.out[0], 0)) && isnan(rt_load_f(&c.out[0], 1)));
  cr_assert_eq(rt_load_f(&c.out[0], 2), 3);
  t_case_free(&c);

  memset(&c, 0, sizeof c);
  c.in[0] = t_tensor_from(IR_I8, 1, &n, (double[]){100, -100, 0});
  c.in[1] = t_tensor_from(IR_I64, 1, &k, (double[]){0, 1});
  c.in[2] = t_tensor_from(IR_I8, 1, &k, (double[]){100, -100});
  run(&c, IR_OP_SCATTER_ELEMENTS, 3, ir_type_make(IR_I8, 1, &n), 0, IR_SCATTER_ADD, 0);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){-56, 56, 0}, 3);
  t_case_free(&c);
}

Test(scatter_elements, errors) {
  int64_t n = 3, k = 2;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &n, (double[]){1, 2, 3});
  c.in[1] = t_tensor_from(IR_I64, 1, &k, (double[]){0, -4});
  c.in[2] = t_tensor_from(IR_F32, 1, &k, (double[]){5, 6});
  run(&c, IR_OP_SCATTER_ELEMENTS, 3, ir_type_make(IR_F32, 1, &n), 0, 0, 0);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT,
                 "index -4 (indices element 1) out of range for axis 0 of size 3");
  t_case_free(&c);
}

Test(scatter_nd, onnx_examples_and_reductions) {
  /* data 1..8, indices [[4],[3],[1],[7]], updates [9,10,11,12] */
  int64_t n = 8, id[2] = {4, 1}, k = 4;
  const double data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &n, data);
  c.in[1] = t_tensor_from(IR_I64, 2, id, (double[]){4, 3, 1, 7});
  c.in[2] = t_tensor_from(IR_F32, 1, &k, (double[]){9, 10, 11, 12});
  run(&c, IR_OP_SCATTER_ND, 3, ir_type_make(IR_F32, 1, &n), 0, 0, 0);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){1, 11, 3, 10, 9, 6, 7, 12}, 8);
  t_case_free(&c);
  /* slices: data [3,2], indices [[0],[2],[0]] (a duplicate), mul */
  int64_t d[2] = {3, 2}, i3[2] = {3, 1}, u[2] = {3, 2};
  memset(&c, 0, sizeof c);
  c.in[0] = t_tensor_from(IR_I32, 2, d, (double[]){1, 2, 3, 4, 5, 6});
  c.in[1] = t_tensor_from(IR_I32, 2, i3, (double[]){0, 2, -3});
  c.in[2] = t_tensor_from(IR_I32, 2, u, (double[]){2, 3, 4, 5, 10, 10});
  run(&c, IR_OP_SCATTER_ND, 3, ir_type_make(IR_I32, 2, d), 0, IR_SCATTER_MUL, 0);
  T_OK(t_case_run(&c));
  check(&c.out[0], (double[]){20, 60, 3, 4, 20, 30}, 6);
  t_case_free(&c);
  /* out of range in the second coordinate */
  int64_t i2[2] = {1, 2}, one = 1;
  memset(&c, 0, sizeof c);
  c.in[0] = t_tensor_from(IR_F32, 2, d, (double[]){1, 2, 3, 4, 5, 6});
  c.in[1] = t_tensor_from(IR_I64, 2, i2, (double[]){1, 2});
  c.in[2] = t_tensor_from(IR_F32, 1, &one, (double[]){0});
  run(&c, IR_OP_SCATTER_ND, 3, ir_type_make(IR_F32, 2, d), 0, 0, 0);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT,
                 "index 2 (indices element 1) out of range for axis 1 of size 2");
  t_case_free(&c);
}
