/* CPU reduce_* and argmax / argmin kernels. Expectations: for each output
 * element, a scan of the whole input for the elements that agree with it on
 * every kept axis (a different algorithm from the kernel's single pass). */
#include <criterion/criterion.h>
#include <math.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

/* A case of op reading the caller's x through a view (which t_case_free
 * leaves alone), with an output of dtype ydt and dims yd[0..ry). */
static void case_on(t_case *tc, ir_op op, const rt_tensor *x, ir_dtype ydt, int ry,
                    const int64_t *yd) {
  ir_type xt = rt_tensor_type(x), yt = ir_type_make(ydt, ry, yd);
  tc->in[0] = rt_tensor_view(&xt, x->data);
  t_case_make(tc, op, 1, &yt, 1);
}

/* Runs op on x with the axes (na < 0: attribute absent) and keepdims
 * (kd < 0: absent, default 1); checks against the scan reference. */
static void reduce_check(ir_op op, const rt_tensor *x, int na, const int64_t *axes, int kd) {
  int r = x->rank;
  bool mask[8] = {false};
  for (int i = 0; i < r; i++) mask[i] = na <= 0;
  for (int i = 0; i < na; i++) mask[axes[i] < 0 ? axes[i] + r : axes[i]] = true;
  bool keep = kd != 0;
  /* Output dims, and the full-rank (keepdims) view used for matching. */
  int64_t yd[8], kdims[8];
  int ry = 0;
  for (int i = 0; i < r; i++) {
    kdims[i] = mask[i] ? 1 : x->dims[i];
    if (!mask[i] || keep) yd[ry++] = kdims[i];
  }
  rt_tensor want = t_tensor_zeros(x->dtype, ry, yd);
  int64_t nout = rt_tensor_numel(&want), nin = rt_tensor_numel(x);
  bool fl = ir_dtype_is_float(x->dtype);
  for (int64_t o = 0; o < nout; o++) {
    int64_t oi[8], ii[8];
    t_unflatten(o, r, kdims, oi);
    double acc = 0;
    int64_t iacc = 0, cnt = 0;
    for (int64_t i = 0; i < nin; i++) {
      t_unflatten(i, r, x->dims, ii);
      bool match = true;
      for (int d = 0; d < r; d++) match = match && (mask[d] || ii[d] == oi[d]);
      if (!match) continue;
      double v = rt_load_f(x, i);
      int64_t iv = rt_load_i(x, i);
      if (cnt == 0) {
        acc = op == IR_OP_REDUCE_PROD ? 1 : (op == IR_OP_REDUCE_MAX || op == IR_OP_REDUCE_MIN) ? v : 0;
        iacc = op == IR_OP_REDUCE_PROD ? 1 : (op == IR_OP_REDUCE_MAX || op == IR_OP_REDUCE_MIN) ? iv : 0;
      }
      switch (op) {
      case IR_OP_REDUCE_SUM:
      case IR_OP_REDUCE_MEAN: acc += v, iacc += iv; break;
      case IR_OP_REDUCE_PROD: acc *= v, iacc *= iv; break;
      case IR_OP_REDUCE_MAX: acc = fmax(acc, v), iacc = iv > iacc ? iv : iacc; break;
      case IR_OP_REDUCE_MIN: acc = fmin(acc, v), iacc = iv < iacc ? iv : iacc; break;
      default: cr_assert_fail("not a reduction");
      }
      cnt++;
    }
    if (op == IR_OP_REDUCE_MEAN) acc /= (double)cnt;
    if (fl) rt_store_f(&want, o, acc);
    else rt_store_i(&want, o, iacc);
  }
  t_case tc = {0};
  case_on(&tc, op, x, x->dtype, ry, yd);
  if (na >= 0) T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_AXES, axes, na));
  if (kd >= 0) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_KEEPDIMS, kd));
  T_OK(t_case_run(&tc));
  if (x->dtype == IR_F16)
    t_assert_close(&tc.out[0], &want, 2e-3, 2e-3); /* one f16 rounding of the result */
  else
    t_assert_close(&tc.out[0], &want, 1e-6, 1e-6);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

static const ir_op reduce_ops[] = {IR_OP_REDUCE_MEAN, IR_OP_REDUCE_SUM, IR_OP_REDUCE_MAX,
                                   IR_OP_REDUCE_MIN, IR_OP_REDUCE_PROD};

static void axes_sweep(ir_op op, const rt_tensor *x) {
  static const int64_t sets[][3] = {{0}, {1}, {2}, {-1}, {0, 2}, {1, 2}, {-3, -2}, {0, 1, 2}};
  static const int counts[] = {1, 1, 1, 1, 2, 2, 2, 3};
  for (int kd = -1; kd <= 1; kd++) {
    reduce_check(op, x, -1, NULL, kd);
    for (int s = 0; s < 8; s++) reduce_check(op, x, counts[s], sets[s], kd);
  }
}

Test(reduce, float_axes_keepdims) {
  t_rng r = t_rng_make(7);
  int64_t xd[3] = {2, 3, 4};
  for (int k = 0; k < 5; k++) {
    /* prod: magnitudes around 1 keep the product in range */
    bool prod = reduce_ops[k] == IR_OP_REDUCE_PROD;
    rt_tensor x = prod ? t_tensor_random(&r, IR_F32, 3, xd, 0.6, 1.6)
                       : t_tensor_random(&r, IR_F32, 3, xd, -5, 5);
    axes_sweep(reduce_ops[k], &x);
    rt_tensor_free(&x);
  }
}

Test(reduce, f16) {
  t_rng r = t_rng_make(8);
  int64_t xd[3] = {2, 3, 4};
  rt_tensor x = t_tensor_random(&r, IR_F16, 3, xd, 0.6, 1.6);
  for (int k = 0; k < 5; k++) {
    reduce_check(reduce_ops[k], &x, 1, (int64_t[]){1}, 1);
    reduce_check(reduce_ops[k], &x, 2, (int64_t[]){0, 2}, 0);
  }
  rt_tensor_free(&x);
}

Test(reduce, integers) {
  t_rng r = t_rng_make(9);
  int64_t xd[3] = {2, 3, 4};
  ir_dtype types[] = {IR_I32, IR_I64, IR_I8};
  for (int t = 0; t < 3; t++) {
    rt_tensor x = t_tensor_random(&r, types[t], 3, xd, -6, 6);
    for (int k = 1; k < 5; k++) {
      reduce_check(reduce_ops[k], &x, -1, NULL, 0);
      reduce_check(reduce_ops[k], &x, 1, (int64_t[]){1}, 1);
      reduce_check(reduce_ops[k], &x, 2, (int64_t[]){0, -1}, 0);
    }
    rt_tensor_free(&x);
  }
}

Test(reduce, hand_worked) {
  int64_t xd[2] = {2, 3}, yd[1] = {2};
  rt_tensor x = t_tensor_from(IR_F32, 2, xd, (double[]){1, -2, 3, 4, 5, -6});
  struct { ir_op op; double v[2]; } cases[] = {
      {IR_OP_REDUCE_SUM, {2, 3}},   {IR_OP_REDUCE_MEAN, {2.0 / 3, 1}},
      {IR_OP_REDUCE_MAX, {3, 5}},   {IR_OP_REDUCE_MIN, {-2, -6}},
      {IR_OP_REDUCE_PROD, {-6, -120}},
  };
  for (int k = 0; k < 5; k++) {
    rt_tensor want = t_tensor_from(IR_F32, 1, yd, cases[k].v);
    t_case tc = {0};
    case_on(&tc, cases[k].op, &x, IR_F32, 1, yd);
    T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_AXES, (int64_t[]){1}, 1));
    T_OK(ir_node_set_int(tc.g, tc.n, IR_A_KEEPDIMS, 0));
    T_OK(t_case_run(&tc));
    t_assert_close(&tc.out[0], &want, 1e-7, 0);
    t_case_free(&tc);
    rt_tensor_free(&want);
  }
  rt_tensor_free(&x);
}

/* Reducing a zero-size axis gives the identity (ONNX opset 18): sum 0,
 * prod 1, max -inf, min +inf. */
Test(reduce, empty_axis) {
  int64_t xd[3] = {2, 0, 3}, yd[3] = {2, 1, 3};
  rt_tensor x = t_tensor_zeros(IR_F32, 3, xd);
  ir_op ops[4] = {IR_OP_REDUCE_SUM, IR_OP_REDUCE_PROD, IR_OP_REDUCE_MAX, IR_OP_REDUCE_MIN};
  const double want[4] = {0.0, 1.0, -INFINITY, INFINITY};
  for (int k = 0; k < 4; k++) {
    t_case tc = {0};
    case_on(&tc, ops[k], &x, IR_F32, 3, yd);
    rt_tensor *y = &tc.out[0];
    for (int i = 0; i < 6; i++) rt_store_f(y, i, 42); /* must be overwritten */
    T_OK(ir_node_set_ints(tc.g, tc.n, IR_A_AXES, (int64_t[]){1}, 1));
    T_OK(t_case_run(&tc));
    for (int i = 0; i < 6; i++) cr_assert_eq(rt_load_f(y, i), want[k], "%s", ir_op_name(ops[k]));
    t_case_free(&tc);
  }
  rt_tensor_free(&x);
}

/* ---- argmax / argmin ---------------------------------------------------------- */

static void arg_check(ir_op op, const rt_tensor *x, int64_t axis, int kd, int last) {
  int r = x->rank, ax = (int)(axis < 0 ? axis + r : axis);
  int64_t yd[8];
  int ry = 0;
  for (int i = 0; i < r; i++) {
    if (i != ax) yd[ry++] = x->dims[i];
    else if (kd != 0) yd[ry++] = 1;
  }
  rt_tensor want = t_tensor_zeros(IR_I64, ry, yd);
  int64_t outer = 1, inner = 1, len = x->dims[ax];
  for (int i = 0; i < ax; i++) outer *= x->dims[i];
  for (int i = ax + 1; i < r; i++) inner *= x->dims[i];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      /* extreme value first, then the first / last position holding it */
      double best = rt_load_f(x, o * len * inner + in);
      for (int64_t k = 0; k < len; k++) {
        double v = rt_load_f(x, (o * len + k) * inner + in);
        best = op == IR_OP_ARGMAX ? fmax(best, v) : fmin(best, v);
      }
      int64_t pos = -1;
      for (int64_t k = 0; k < len; k++)
        if (rt_load_f(x, (o * len + k) * inner + in) == best && (pos < 0 || last)) pos = k;
      rt_store_i(&want, o * inner + in, pos);
    }
  t_case tc = {0};
  case_on(&tc, op, x, IR_I64, ry, yd);
  if (axis != 0) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_AXIS, axis));
  if (kd >= 0) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_KEEPDIMS, kd));
  if (last) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_SELECT_LAST_INDEX, 1));
  T_OK(t_case_run(&tc));
  t_assert_close(&tc.out[0], &want, 0, 0);
  t_case_free(&tc);
  rt_tensor_free(&want);
}

Test(argminmax, ties_axes_keepdims) {
  t_rng r = t_rng_make(17);
  int64_t xd[3] = {3, 4, 5};
  ir_dtype types[] = {IR_F32, IR_F16, IR_I32, IR_I64};
  for (int t = 0; t < 4; t++) {
    /* Values from {-2,..,2}: many ties along every axis. */
    rt_tensor x = t_tensor_zeros(types[t], 3, xd);
    for (int64_t i = 0; i < 60; i++) rt_store_f(&x, i, (double)(int)(t_rng_next(&r) % 5) - 2);
    for (int k = 0; k < 2; k++)
      for (int64_t ax = -3; ax < 3; ax++)
        for (int kd = -1; kd <= 1; kd++)
          for (int last = 0; last < 2; last++)
            arg_check(k ? IR_OP_ARGMIN : IR_OP_ARGMAX, &x, ax, kd, last);
    rt_tensor_free(&x);
  }
}

Test(argminmax, hand_worked) {
  int64_t xd[1] = {5}, yd[1] = {1};
  rt_tensor x = t_tensor_from(IR_F32, 1, xd, (double[]){1, 3, 0, 3, 0});
  struct { ir_op op; int last; int64_t want; } cases[] = {
      {IR_OP_ARGMAX, 0, 1}, {IR_OP_ARGMAX, 1, 3}, {IR_OP_ARGMIN, 0, 2}, {IR_OP_ARGMIN, 1, 4}};
  for (int k = 0; k < 4; k++) {
    t_case tc = {0};
    case_on(&tc, cases[k].op, &x, IR_I64, 1, yd);
    if (cases[k].last) T_OK(ir_node_set_int(tc.g, tc.n, IR_A_SELECT_LAST_INDEX, 1));
    T_OK(t_case_run(&tc));
    cr_assert_eq(rt_load_i(&tc.out[0], 0), cases[k].want, "case %d: got %lld", k,
                 (long long)rt_load_i(&tc.out[0], 0));
    t_case_free(&tc);
  }
  rt_tensor_free(&x);
}
