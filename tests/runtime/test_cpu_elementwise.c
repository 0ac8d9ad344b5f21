/* CPU reference kernels, elementwise families: unary, cast, binary (with
 * broadcasting and fused act), variadic, where. Expectations come from naive
 * loops written here or from hand-worked values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "ir/params.h"
#include "runtime/cpu/cpu_kernels.h"
#include "tests/support/test_support.h"

/* Rounds v through one element of dtype dt (what storing it yields). */
static double round_to(ir_dtype dt, double v) {
  int64_t one = 1;
  rt_tensor t = t_tensor_zeros(dt, 1, &one);
  rt_store_f(&t, 0, v);
  double r = rt_load_f(&t, 0);
  rt_tensor_free(&t);
  return r;
}

/* Exact comparison of a float result incl. NaN and the sign of zero. */
static void expect_exact(double got, double want, const char *what, int i) {
  if (isnan(want)) {
    cr_assert(isnan(got), "%s[%d]: got %.9g, want NaN", what, i, got);
    return;
  }
  cr_assert(got == want, "%s[%d]: got %.9g, want %.9g", what, i, got, want);
  if (want == 0)
    cr_assert(signbit(got) == signbit(want), "%s[%d]: sign of zero differs", what, i);
}

/* ---- unary: every float op on random data ------------------------------------ */

static double ref_unary(ir_op op, double x) {
  switch (op) {
  case IR_OP_RELU: return fmax(x, 0.0);
  case IR_OP_SIGMOID: return exp(x) / (exp(x) + 1);
  case IR_OP_TANH: return (exp(2 * x) - 1) / (exp(2 * x) + 1);
  case IR_OP_EXP: return exp(x);
  case IR_OP_LOG: return log(x);
  case IR_OP_SQRT: return pow(x, 0.5);
  case IR_OP_ERF: return erf(x);
  case IR_OP_NEG: return 0.0 - x;
  case IR_OP_ABS: return x < 0 ? -x : x;
  case IR_OP_RECIPROCAL: return 1.0 / x;
  case IR_OP_SOFTPLUS: return log(1 + exp(x));
  case IR_OP_SIGN: return (double)((x > 0) - (x < 0));
  case IR_OP_FLOOR: return floor(x);
  case IR_OP_CEIL: return ceil(x);
  case IR_OP_ROUND: return nearbyint(x); /* default mode: half to even */
  case IR_OP_HARD_SWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
  case IR_OP_LEAKY_RELU: return x > 0 ? x : 0.01f * x;
  case IR_OP_ELU: return x > 0 ? x : exp(x) - 1;
  case IR_OP_SELU:
    return 1.05070102214813232421875 * (x > 0 ? x : 1.67326319217681884765625 * (exp(x) - 1));
  case IR_OP_HARD_SIGMOID: return fmax(0, fmin(1, 0.2f * x + 0.5f));
  case IR_OP_CLIP: return x;
  case IR_OP_SIN: return sin(x);
  case IR_OP_COS: return cos(x);
  case IR_OP_TAN: return sin(x) / cos(x);
  case IR_OP_ASIN: return atan2(x, sqrt(1 - x * x));
  case IR_OP_ACOS: return atan2(sqrt(1 - x * x), x);
  case IR_OP_ATAN: return atan2(x, 1.0);
  case IR_OP_SINH: return (exp(x) - exp(-x)) / 2;
  case IR_OP_COSH: return (exp(x) + exp(-x)) / 2;
  case IR_OP_ASINH: return log(x + sqrt(x * x + 1));
  case IR_OP_ACOSH: return log(x + sqrt(x * x - 1));
  case IR_OP_ATANH: return 0.5 * log((1 + x) / (1 - x));
  default: cr_assert_fail("no reference for %s", ir_op_name(op)); return 0;
  }
}

static void unary_random(ir_op op, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t dims[3] = {3, 5, 7};
  bool positive = op == IR_OP_LOG || op == IR_OP_SQRT;
  double lo = positive ? 0.05 : -5, hi = 5; /* within each op's domain */
  if (op == IR_OP_ASIN || op == IR_OP_ACOS || op == IR_OP_ATANH) lo = -0.99, hi = 0.99;
  if (op == IR_OP_ACOSH) lo = 1.01;
  if (op == IR_OP_TAN) lo = -1.5, hi = 1.5;
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, 3, dims, lo, hi);
  ir_type ot = ir_type_make(dt, 3, dims);
  t_case_make(&c, op, 1, &ot, 1);
  T_OK(t_case_run(&c));
  rt_tensor want = t_tensor_zeros(dt, 3, dims);
  for (int64_t i = 0; i < 105; i++) rt_store_f(&want, i, ref_unary(op, rt_load_f(&c.in[0], i)));
  if (dt == IR_F32) t_assert_close(&c.out[0], &want, 3e-7, 1e-12);
  else t_assert_close(&c.out[0], &want, 1e-3, 1e-4);
  rt_tensor_free(&want);
  t_case_free(&c);
}

static const ir_op float_unary_ops[] = {
    IR_OP_RELU, IR_OP_SIGMOID, IR_OP_TANH, IR_OP_EXP, IR_OP_LOG, IR_OP_SQRT,
    IR_OP_ERF, IR_OP_NEG, IR_OP_ABS, IR_OP_RECIPROCAL, IR_OP_SOFTPLUS, IR_OP_SIGN,
    IR_OP_FLOOR, IR_OP_CEIL, IR_OP_ROUND, IR_OP_HARD_SWISH, IR_OP_LEAKY_RELU,
    IR_OP_ELU, IR_OP_SELU, IR_OP_HARD_SIGMOID, IR_OP_CLIP, IR_OP_SIN, IR_OP_COS,
    IR_OP_TAN, IR_OP_ASIN, IR_OP_ACOS, IR_OP_ATAN, IR_OP_SINH, IR_OP_COSH,
    IR_OP_ASINH, IR_OP_ACOSH, IR_OP_ATANH};

Test(unary, every_float_op_f32) {
  for (size_t i = 0; i < sizeof float_unary_ops / sizeof *float_unary_ops; i++)
    unary_random(float_unary_ops[i], IR_F32, 100 + i);
}

Test(unary, every_float_op_f16) {
  for (size_t i = 0; i < sizeof float_unary_ops / sizeof *float_unary_ops; i++)
    unary_random(float_unary_ops[i], IR_F16, 200 + i);
}

/* Runs op on a vector of f32 values and checks exact results (want values
 * are rounded to f32 first). */
static void unary_vec(ir_op op, int count, const double *xs, const double *want,
                      void (*attrs)(t_case *)) {
  int64_t d = count;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &d, xs);
  ir_type ot = ir_type_make(IR_F32, 1, &d);
  t_case_make(&c, op, 1, &ot, 1);
  if (attrs) attrs(&c);
  T_OK(t_case_run(&c));
  for (int i = 0; i < count; i++)
    expect_exact(rt_load_f(&c.out[0], i), round_to(IR_F32, want[i]), ir_op_name(op), i);
  t_case_free(&c);
}

#define VEC(op, attrs, ...)                                                    \
  do {                                                                         \
    const double io_[][2] = {__VA_ARGS__};                                     \
    int n_ = (int)(sizeof io_ / sizeof io_[0]);                                \
    double x_[32], w_[32];                                                     \
    for (int i_ = 0; i_ < n_; i_++) {                                          \
      x_[i_] = io_[i_][0];                                                     \
      w_[i_] = io_[i_][1];                                                     \
    }                                                                          \
    unary_vec(op, n_, x_, w_, attrs);                                          \
  } while (0)

Test(unary, edge_values) {
  const double inf = INFINITY, nan = NAN;
  VEC(IR_OP_RELU, NULL, {-0.0, -0.0}, {nan, nan}, {1e30, 1e30}, {-1e30, 0}, {-inf, 0},
      {inf, inf}, {2.5, 2.5});
  VEC(IR_OP_ABS, NULL, {-0.0, 0.0}, {nan, nan}, {-inf, inf}, {-1e30, 1e30}, {-3.5, 3.5});
  VEC(IR_OP_NEG, NULL, {0.0, -0.0}, {-0.0, 0.0}, {nan, nan}, {inf, -inf}, {1.25, -1.25});
  VEC(IR_OP_SIGN, NULL, {-0.0, 0.0}, {nan, nan}, {-1e-30, -1}, {1e30, 1}, {-inf, -1});
  VEC(IR_OP_SIGMOID, NULL, {-1000, 0}, {1000, 1}, {0, 0.5}, {nan, nan});
  VEC(IR_OP_TANH, NULL, {50, 1}, {-50, -1}, {-0.0, -0.0}, {nan, nan});
  VEC(IR_OP_EXP, NULL, {100, inf}, {-1000, 0}, {0, 1}, {-inf, 0}, {nan, nan});
  VEC(IR_OP_LOG, NULL, {0, -inf}, {-1, nan}, {1, 0}, {inf, inf});
  VEC(IR_OP_SQRT, NULL, {-1, nan}, {-0.0, -0.0}, {4, 2}, {inf, inf});
  VEC(IR_OP_RECIPROCAL, NULL, {0, inf}, {-0.0, -inf}, {4, 0.25}, {inf, 0}, {-inf, -0.0});
  VEC(IR_OP_SOFTPLUS, NULL, {100, 100}, {1000, 1000}, {-100, 3.720075976020836e-44},
      {0, 0.69314718055994531}, {nan, nan});
  VEC(IR_OP_FLOOR, NULL, {-0.5, -1}, {-0.0, -0.0}, {2.999, 2}, {1e30, 1e30}, {nan, nan});
  VEC(IR_OP_CEIL, NULL, {-0.5, -0.0}, {2.001, 3}, {-2.5, -2}, {inf, inf});
  VEC(IR_OP_ROUND, NULL, {0.5, 0}, {1.5, 2}, {2.5, 2}, {3.5, 4}, {-0.5, -0.0},
      {-1.5, -2}, {-2.5, -2}, {2.4999, 2}, {-0.4, -0.0}, {0.6, 1}, {1e30, 1e30},
      {nan, nan}, {-inf, -inf});
  VEC(IR_OP_ERF, NULL, {0, 0}, {10, 1}, {-10, -1}, {nan, nan});
  VEC(IR_OP_HARD_SWISH, NULL, {-3, -0.0}, {3, 3}, {-4, -0.0}, {6, 6}, {1.5, 1.5 * 0.75});
  VEC(IR_OP_HARD_SIGMOID, NULL, {-10, 0}, {10, 1}, {0, 0.5}, {nan, nan});
  VEC(IR_OP_ELU, NULL, {-1000, -1}, {2, 2}, {-0.0, -0.0});
  VEC(IR_OP_LEAKY_RELU, NULL, {-100, -1}, {3, 3}, {nan, nan});
}

static void set_alpha02(t_case *c) { T_OK(ir_node_set_float(c->g, c->n, IR_A_ALPHA, 0.25f)); }
static void set_hsig(t_case *c) {
  T_OK(ir_node_set_float(c->g, c->n, IR_A_ALPHA, 0.5f));
  T_OK(ir_node_set_float(c->g, c->n, IR_A_BETA, 0.25f));
}
static void set_selu(t_case *c) {
  T_OK(ir_node_set_float(c->g, c->n, IR_A_ALPHA, 2.0f));
  T_OK(ir_node_set_float(c->g, c->n, IR_A_GAMMA, 3.0f));
}
static void set_clip(t_case *c) {
  T_OK(ir_node_set_float(c->g, c->n, IR_A_MIN, -1.5f));
  T_OK(ir_node_set_float(c->g, c->n, IR_A_MAX, 2.0f));
}
static void set_clip_min(t_case *c) { T_OK(ir_node_set_float(c->g, c->n, IR_A_MIN, 0.5f)); }
static void set_clip_inverted(t_case *c) {
  T_OK(ir_node_set_float(c->g, c->n, IR_A_MIN, 3.0f));
  T_OK(ir_node_set_float(c->g, c->n, IR_A_MAX, 1.0f));
}

Test(unary, attributes) {
  VEC(IR_OP_LEAKY_RELU, set_alpha02, {-4, -1}, {4, 4}, {-0.5, -0.125});
  VEC(IR_OP_ELU, set_alpha02, {-1, 0.25 * (exp(-1.0) - 1)}, {3, 3});
  VEC(IR_OP_HARD_SIGMOID, set_hsig, {1, 0.75}, {-1, 0}, {-0.25, 0.125}, {2, 1});
  VEC(IR_OP_SELU, set_selu, {1, 3}, {-1, 6 * (exp(-1.0) - 1)}, {0, 0});
  VEC(IR_OP_SELU, NULL, {1, 1.05070102214813232421875},
      {-1, 1.05070102214813232421875 * 1.67326319217681884765625 * (exp(-1.0) - 1)});
  VEC(IR_OP_CLIP, set_clip, {-3, -1.5}, {3, 2}, {0.5, 0.5}, {NAN, NAN}, {-INFINITY, -1.5});
  VEC(IR_OP_CLIP, set_clip_min, {-3, 0.5}, {1e30, 1e30});
  VEC(IR_OP_CLIP, set_clip_inverted, {0, 1}, {2, 1}, {5, 1}); /* numpy: max wins */
}

/* Integer unary ops: hand-worked, including two's complement wrap. */
static void int_unary(ir_op op, ir_dtype dt, int count, const int64_t *xs, const int64_t *want,
                      void (*attrs)(t_case *)) {
  int64_t d = count;
  t_case c = {0};
  c.in[0] = t_tensor_zeros(dt, 1, &d);
  for (int i = 0; i < count; i++) rt_store_i(&c.in[0], i, xs[i]);
  ir_type ot = ir_type_make(dt, 1, &d);
  t_case_make(&c, op, 1, &ot, 1);
  if (attrs) attrs(&c);
  T_OK(t_case_run(&c));
  for (int i = 0; i < count; i++)
    cr_assert_eq(rt_load_i(&c.out[0], i), want[i], "%s %s[%d]: got %lld want %lld",
                 ir_op_name(op), ir_dtype_name(dt), i, (long long)rt_load_i(&c.out[0], i),
                 (long long)want[i]);
  t_case_free(&c);
}

static void set_clip_frac(t_case *c) {
  T_OK(ir_node_set_float(c->g, c->n, IR_A_MIN, -2.7f));
  T_OK(ir_node_set_float(c->g, c->n, IR_A_MAX, 3.9f));
}

Test(unary, integers) {
  int64_t x32[] = {5, -7, 0, INT32_MIN, INT32_MAX};
  int64_t neg32[] = {-5, 7, 0, INT32_MIN, -INT32_MAX};
  int64_t abs32[] = {5, 7, 0, INT32_MIN, INT32_MAX};
  int64_t sgn32[] = {1, -1, 0, -1, 1};
  int64_t clip32[] = {3, -2, 0, -2, 3}; /* bounds truncate toward zero */
  int_unary(IR_OP_NEG, IR_I32, 5, x32, neg32, NULL);
  int_unary(IR_OP_ABS, IR_I32, 5, x32, abs32, NULL);
  int_unary(IR_OP_SIGN, IR_I32, 5, x32, sgn32, NULL);
  int_unary(IR_OP_CLIP, IR_I32, 5, x32, clip32, set_clip_frac);

  int64_t x64[] = {INT64_MIN, INT64_MAX, -3, 9000000000000000001};
  int64_t neg64[] = {INT64_MIN, -INT64_MAX, 3, -9000000000000000001};
  int64_t abs64[] = {INT64_MIN, INT64_MAX, 3, 9000000000000000001};
  int64_t clip64[] = {-2, 3, -2, 3};
  int_unary(IR_OP_NEG, IR_I64, 4, x64, neg64, NULL);
  int_unary(IR_OP_ABS, IR_I64, 4, x64, abs64, NULL);
  int_unary(IR_OP_CLIP, IR_I64, 4, x64, clip64, set_clip_frac);

  int64_t x8[] = {-128, 127, -1, 3};
  int64_t neg8[] = {-128, -127, 1, -3};
  int64_t abs8[] = {-128, 127, 1, 3};
  int_unary(IR_OP_NEG, IR_I8, 4, x8, neg8, NULL);
  int_unary(IR_OP_ABS, IR_I8, 4, x8, abs8, NULL);

  int64_t xu8[] = {0, 1, 200, 255};
  int64_t negu8[] = {0, 255, 56, 1};
  int64_t sgnu8[] = {0, 1, 1, 1};
  int64_t clipu8[] = {0, 1, 3, 3};
  int_unary(IR_OP_NEG, IR_U8, 4, xu8, negu8, NULL);
  int_unary(IR_OP_ABS, IR_U8, 4, xu8, xu8, NULL);
  int_unary(IR_OP_SIGN, IR_U8, 4, xu8, sgnu8, NULL);
  int_unary(IR_OP_CLIP, IR_U8, 4, xu8, clipu8, set_clip_frac);

  int64_t b[] = {0, 1, 1, 0};
  int64_t nb[] = {1, 0, 0, 1};
  int_unary(IR_OP_NOT, IR_BOOL, 4, b, nb, NULL);
}

Test(unary, rejects_bad_dtypes) {
  int64_t d = 3;
  double v[] = {1, 2, 3};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_I32, 1, &d, v);
  ir_type ot = ir_type_make(IR_I32, 1, &d);
  t_case_make(&c, IR_OP_RELU, 1, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "i32");
  t_case_free(&c);

  c.in[0] = t_tensor_from(IR_F32, 1, &d, v);
  ot = ir_type_make(IR_F32, 1, &d);
  t_case_make(&c, IR_OP_NOT, 1, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "bool");
  t_case_free(&c);

  /* output of the wrong shape: refused, not overrun */
  int64_t d2 = 2;
  c.in[0] = t_tensor_from(IR_F32, 1, &d, v);
  ot = ir_type_make(IR_F32, 1, &d2);
  t_case_make(&c, IR_OP_EXP, 1, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INTERNAL, "output 0");
  t_case_free(&c);
}

/* ---- cast ---------------------------------------------------------------------- */

static const ir_dtype all_dtypes[] = {IR_F32, IR_F16, IR_I32, IR_I64, IR_U8, IR_I8, IR_BOOL};

static bool is_fl(ir_dtype t) { return t == IR_F32 || t == IR_F16; }

/* The expected cast of one source element, by the rules of docs/ops.md:
 * float -> int truncates, NaN -> 0, saturates; int -> int wraps; -> bool is
 * x != 0. Returns the value as the destination holds it. */
static void cast_expect(const rt_tensor *src, int64_t i, ir_dtype to, double *wf, int64_t *wi) {
  if (to == IR_BOOL) {
    *wi = is_fl(src->dtype) ? !(rt_load_f(src, i) == 0) : rt_load_i(src, i) != 0;
    return;
  }
  if (is_fl(to)) {
    *wf = is_fl(src->dtype) ? rt_load_f(src, i) : (double)(float)rt_load_i(src, i);
    return;
  }
  int64_t lo = to == IR_I32 ? INT32_MIN : to == IR_U8 ? 0 : to == IR_I8 ? -128 : INT64_MIN;
  int64_t hi = to == IR_I32 ? INT32_MAX : to == IR_U8 ? 255 : to == IR_I8 ? 127 : INT64_MAX;
  if (is_fl(src->dtype)) {
    double v = rt_load_f(src, i);
    if (isnan(v)) *wi = 0;
    else if (v >= 0x1p63) *wi = hi;
    else if (v <= -0x1p63) *wi = lo;
    else {
      double t = trunc(v);
      *wi = t < (double)lo ? lo : t > (double)hi ? hi : (int64_t)t;
    }
    return;
  }
  uint64_t u = (uint64_t)rt_load_i(src, i);
  switch (to) {
  case IR_I32: *wi = (int64_t)(u & 0xffffffffu) - ((u & 0x80000000u) ? (INT64_C(1) << 32) : 0); break;
  case IR_U8: *wi = (int64_t)(u & 0xff); break;
  case IR_I8: *wi = (int64_t)(u & 0xff) - ((u & 0x80) ? 256 : 0); break;
  default: *wi = (int64_t)u; break;
  }
}

Test(cast, every_pair) {
  const double fvals[] = {1.5, -2.7, 0.0, -0.0, 300.9, -300.2, NAN, INFINITY, -INFINITY,
                          65504, 1e10, -1e10, 0.4, 127.99, -128.5, 255.5, 3e9};
  const double ivals[] = {1, -2, 0, 127, -128, 255, 300, -300, 70000, 2147483647,
                          -2147483648.0, 5e9, -5e9, 65519, 65520, 16777217, 9007199254740993.0};
  int64_t n = 17;
  for (size_t s = 0; s < 7; s++) {
    ir_dtype from = all_dtypes[s];
    for (size_t d = 0; d < 7; d++) {
      ir_dtype to = all_dtypes[d];
      t_case c = {0};
      c.in[0] = t_tensor_from(from, 1, &n, is_fl(from) ? fvals : ivals);
      if (from == IR_I64) /* t_tensor_from goes through double: set exactly */
        rt_store_i(&c.in[0], 16, INT64_C(9007199254740993));
      ir_type ot = ir_type_make(to, 1, &n);
      t_case_make(&c, IR_OP_CAST, 1, &ot, 1);
      T_OK(ir_node_set_enum(c.g, c.n, IR_A_TO, (int)to));
      T_OK(t_case_run(&c));
      for (int64_t i = 0; i < n; i++) {
        double wf = 0;
        int64_t wi = 0;
        cast_expect(&c.in[0], i, to, &wf, &wi);
        if (is_fl(to)) {
          double got = rt_load_f(&c.out[0], i);
          expect_exact(got, round_to(to, wf), "cast", (int)(s * 100 + d * 10));
        } else {
          cr_assert_eq(rt_load_i(&c.out[0], i), wi, "cast %s->%s [%lld]: got %lld want %lld",
                       ir_dtype_name(from), ir_dtype_name(to), (long long)i,
                       (long long)rt_load_i(&c.out[0], i), (long long)wi);
        }
      }
      t_case_free(&c);
    }
  }
}

Test(cast, hand_worked) {
  int64_t n = 6;
  const double f[] = {NAN, INFINITY, -INFINITY, -0.9, 2.9, -1e20};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &n, f);
  ir_type ot = ir_type_make(IR_I32, 1, &n);
  t_case_make(&c, IR_OP_CAST, 1, &ot, 1);
  T_OK(ir_node_set_enum(c.g, c.n, IR_A_TO, IR_I32));
  T_OK(t_case_run(&c));
  const int64_t want[] = {0, INT32_MAX, INT32_MIN, 0, 2, INT32_MIN};
  for (int i = 0; i < 6; i++) cr_assert_eq(rt_load_i(&c.out[0], i), want[i], "i32[%d]", i);
  t_case_free(&c);

  c.in[0] = t_tensor_from(IR_F32, 1, &n, f);
  ot = ir_type_make(IR_BOOL, 1, &n);
  t_case_make(&c, IR_OP_CAST, 1, &ot, 1);
  T_OK(ir_node_set_enum(c.g, c.n, IR_A_TO, IR_BOOL));
  T_OK(t_case_run(&c));
  for (int i = 0; i < 6; i++) cr_assert_eq(((uint8_t *)c.out[0].data)[i], 1, "bool[%d]", i);
  t_case_free(&c);

  /* i64 -> f32 rounds once: 2^24 + 1 -> 2^24, 2^53 + 1 -> 2^53 */
  int64_t two = 2;
  c.in[0] = t_tensor_zeros(IR_I64, 1, &two);
  rt_store_i(&c.in[0], 0, (INT64_C(1) << 24) + 1);
  rt_store_i(&c.in[0], 1, -((INT64_C(1) << 53) + 1));
  ot = ir_type_make(IR_F32, 1, &two);
  t_case_make(&c, IR_OP_CAST, 1, &ot, 1);
  T_OK(ir_node_set_enum(c.g, c.n, IR_A_TO, IR_F32));
  T_OK(t_case_run(&c));
  cr_assert_eq(rt_load_f(&c.out[0], 0), 16777216.0);
  cr_assert_eq(rt_load_f(&c.out[0], 1), -9007199254740992.0);
  t_case_free(&c);
}

/* ---- binary ---------------------------------------------------------------------- */

/* Flat index of the element of a tensor of (rank, dims) that output
 * multi-index oidx (of rank ro) reads under NumPy broadcasting. */
static int64_t bcast_index(int ro, const int64_t *oidx, int rank, const int64_t *dims) {
  int64_t flat = 0;
  for (int d = 0; d < rank; d++) {
    int64_t c = dims[d] == 1 ? 0 : oidx[ro - rank + d];
    flat = flat * dims[d] + c;
  }
  return flat;
}

static bool is_cmp(ir_op op) {
  return op == IR_OP_EQUAL || op == IR_OP_GREATER || op == IR_OP_LESS ||
         op == IR_OP_GREATER_OR_EQUAL || op == IR_OP_LESS_OR_EQUAL;
}

static double ref_binary_f(ir_op op, double x, double y) {
  switch (op) {
  case IR_OP_ADD: return x + y;
  case IR_OP_SUB: return x - y;
  case IR_OP_MUL: return x * y;
  case IR_OP_DIV: return x / y;
  case IR_OP_POW: return pow(x, y);
  case IR_OP_PRELU: return x >= 0 ? x : x * y;
  case IR_OP_EQUAL: return x == y;
  case IR_OP_GREATER: return x > y;
  case IR_OP_LESS: return x < y;
  case IR_OP_GREATER_OR_EQUAL: return !(x < y);
  case IR_OP_LESS_OR_EQUAL: return !(x > y);
  default: cr_assert_fail("op"); return 0;
  }
}

static int64_t ref_binary_i(ir_op op, int64_t x, int64_t y) {
  switch (op) {
  case IR_OP_ADD: return x + y;
  case IR_OP_SUB: return x - y;
  case IR_OP_MUL: return x * y;
  case IR_OP_DIV: return x / y;
  case IR_OP_POW: {
    int64_t r = 1;
    for (int64_t k = 0; k < y; k++) r *= x;
    return r;
  }
  case IR_OP_PRELU: return x >= 0 ? x : x * y;
  case IR_OP_EQUAL: return x == y;
  case IR_OP_GREATER: return x > y;
  case IR_OP_LESS: return x < y;
  case IR_OP_GREATER_OR_EQUAL: return x >= y;
  case IR_OP_LESS_OR_EQUAL: return x <= y;
  case IR_OP_AND: return x && y;
  case IR_OP_OR: return x || y;
  default: cr_assert_fail("op"); return 0;
  }
}

typedef struct shape {
  int rank;
  int64_t dims[4];
} shape;

/* Broadcast patterns: (a, b, out). */
static const shape patterns[][3] = {
    {{0, {0}}, {2, {2, 3}}, {2, {2, 3}}},                      /* scalar */
    {{2, {3, 1}}, {2, {1, 4}}, {2, {3, 4}}},                   /* [3,1]x[1,4] */
    {{3, {2, 3, 4}}, {1, {4}}, {3, {2, 3, 4}}},                /* rank mismatch */
    {{1, {3}}, {4, {2, 1, 2, 1}}, {4, {2, 1, 2, 3}}},           /* rank mismatch, both ways */
    {{2, {2, 3}}, {2, {2, 3}}, {2, {2, 3}}},                   /* same shape */
    {{3, {2, 1, 5}}, {0, {0}}, {3, {2, 1, 5}}},                /* scalar second */
};

static void binary_case(ir_op op, ir_dtype dt, const shape *p, uint64_t seed, bool equal_some) {
  t_rng r = t_rng_make(seed);
  bool fl = is_fl(dt);
  double alo = -9, ahi = 10, blo = -9, bhi = 10;
  if (op == IR_OP_POW) {
    alo = fl ? 0.5 : -4;
    ahi = fl ? 3 : 5;
    blo = fl ? -2 : 0;
    bhi = fl ? 2 : 5;
  }
  if (dt == IR_BOOL) alo = blo = 0, ahi = bhi = 2;
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, p[0].rank, p[0].dims, alo, ahi);
  c.in[1] = t_tensor_random(&r, dt, p[1].rank, p[1].dims, blo, bhi);
  if (op == IR_OP_POW && !fl) /* exponents 0..4 (random data avoids 0) */
    for (int64_t i = 0; i < rt_tensor_numel(&c.in[1]); i++)
      rt_store_i(&c.in[1], i, (int64_t)(t_rng_next(&r) % 5));
  if (equal_some) /* make some elements equal so that == and >= are exercised */
    for (int64_t i = 0; i < rt_tensor_numel(&c.in[1]); i += 2)
      rt_store_f(&c.in[1], i, rt_load_f(&c.in[0], i % rt_tensor_numel(&c.in[0])));
  bool to_bool = is_cmp(op) || op == IR_OP_AND || op == IR_OP_OR;
  ir_dtype odt = to_bool ? IR_BOOL : dt;
  ir_type ot = ir_type_make(odt, p[2].rank, p[2].dims);
  t_case_make(&c, op, 2, &ot, 1);
  T_OK(t_case_run(&c));
  rt_tensor want = t_tensor_zeros(odt, p[2].rank, p[2].dims);
  int64_t n = rt_tensor_numel(&want), oidx[4];
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, p[2].rank, p[2].dims, oidx);
    int64_t ia = bcast_index(p[2].rank, oidx, p[0].rank, p[0].dims);
    int64_t ib = bcast_index(p[2].rank, oidx, p[1].rank, p[1].dims);
    if (fl) rt_store_f(&want, i, ref_binary_f(op, rt_load_f(&c.in[0], ia), rt_load_f(&c.in[1], ib)));
    else rt_store_i(&want, i, ref_binary_i(op, rt_load_i(&c.in[0], ia), rt_load_i(&c.in[1], ib)));
  }
  double rtol = dt == IR_F16 ? 1e-3 : 1e-6;
  t_assert_close(&c.out[0], &want, rtol, dt == IR_F16 ? 1e-3 : 0);
  rt_tensor_free(&want);
  t_case_free(&c);
}

Test(binary, arithmetic_broadcast) {
  const ir_op ops[] = {IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV, IR_OP_POW};
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I32, IR_I64};
  uint64_t seed = 1;
  for (size_t o = 0; o < 5; o++)
    for (size_t d = 0; d < 4; d++)
      for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++)
        binary_case(ops[o], dts[d], patterns[p], seed++, false);
}

Test(binary, comparisons_and_logic) {
  const ir_op ops[] = {IR_OP_EQUAL, IR_OP_GREATER, IR_OP_LESS, IR_OP_GREATER_OR_EQUAL,
                       IR_OP_LESS_OR_EQUAL};
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I32, IR_I64, IR_U8, IR_BOOL};
  uint64_t seed = 500;
  for (size_t o = 0; o < 5; o++)
    for (size_t d = 0; d < 6; d++)
      for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++)
        binary_case(ops[o], dts[d], patterns[p], seed++, true);
  for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
    binary_case(IR_OP_AND, IR_BOOL, patterns[p], seed++, false);
    binary_case(IR_OP_OR, IR_BOOL, patterns[p], seed++, false);
  }
}

Test(binary, compare_nan) {
  int64_t d = 3;
  const double a[] = {NAN, 1, NAN}, b[] = {NAN, NAN, 2};
  const ir_op ops[] = {IR_OP_EQUAL, IR_OP_GREATER, IR_OP_LESS, IR_OP_GREATER_OR_EQUAL,
                       IR_OP_LESS_OR_EQUAL};
  for (int o = 0; o < 5; o++) {
    t_case c = {0};
    c.in[0] = t_tensor_from(IR_F32, 1, &d, a);
    c.in[1] = t_tensor_from(IR_F32, 1, &d, b);
    ir_type ot = ir_type_make(IR_BOOL, 1, &d);
    t_case_make(&c, ops[o], 2, &ot, 1);
    T_OK(t_case_run(&c));
    for (int i = 0; i < 3; i++)
      cr_assert_eq(((uint8_t *)c.out[0].data)[i], 0, "%s NaN [%d]", ir_op_name(ops[o]), i);
    t_case_free(&c);
  }
}

Test(binary, prelu) {
  const shape pats[][3] = {
      {{4, {2, 3, 2, 2}}, {3, {3, 1, 1}}, {4, {2, 3, 2, 2}}}, /* per channel */
      {{2, {3, 4}}, {0, {0}}, {2, {3, 4}}},                   /* scalar slope */
      {{2, {3, 4}}, {1, {4}}, {2, {3, 4}}},
  };
  uint64_t seed = 900;
  for (size_t p = 0; p < 3; p++) {
    binary_case(IR_OP_PRELU, IR_F32, pats[p], seed++, false);
    binary_case(IR_OP_PRELU, IR_F16, pats[p], seed++, false);
    binary_case(IR_OP_PRELU, IR_I32, pats[p], seed++, false);
  }
  /* the slope must broadcast to x, not x to the slope */
  int64_t dx = 3, ds[2] = {2, 3};
  double v[] = {1, -2, 3, -4, 5, -6};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &dx, v);
  c.in[1] = t_tensor_from(IR_F32, 2, ds, v);
  ir_type ot = ir_type_make(IR_F32, 2, ds);
  t_case_make(&c, IR_OP_PRELU, 2, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "slope");
  t_case_free(&c);
}

/* Hand-worked integer semantics: truncating division, division by zero,
 * wrap, pow with negative or float exponents. */
static void int_binary(ir_op op, ir_dtype dt, ir_dtype edt, int count, const int64_t *a,
                       const double *b, const int64_t *want) {
  int64_t d = count;
  t_case c = {0};
  c.in[0] = t_tensor_zeros(dt, 1, &d);
  for (int i = 0; i < count; i++) rt_store_i(&c.in[0], i, a[i]);
  c.in[1] = t_tensor_from(edt, 1, &d, b);
  ir_type ot = ir_type_make(dt, 1, &d);
  t_case_make(&c, op, 2, &ot, 1);
  T_OK(t_case_run(&c));
  for (int i = 0; i < count; i++)
    cr_assert_eq(rt_load_i(&c.out[0], i), want[i], "%s %s [%d]: got %lld want %lld",
                 ir_op_name(op), ir_dtype_name(dt), i, (long long)rt_load_i(&c.out[0], i),
                 (long long)want[i]);
  t_case_free(&c);
}

Test(binary, integer_semantics) {
  int64_t a[] = {7, -7, 7, -7, 5, 0};
  double b[] = {2, 2, -2, -2, 0, 0};
  int64_t q[] = {3, -3, -3, 3, 0, 0};
  int_binary(IR_OP_DIV, IR_I32, IR_I32, 6, a, b, q);
  int_binary(IR_OP_DIV, IR_I64, IR_I64, 6, a, b, q);

  int64_t big[] = {INT32_MAX, INT32_MIN, 65536};
  double one[] = {1, -1, 65536};
  int64_t sum[] = {INT32_MIN, INT32_MAX, 0}; /* wraps */
  int_binary(IR_OP_ADD, IR_I32, IR_I32, 3, big, (double[]){1, -1, -65536}, sum);
  int64_t prod[] = {INT32_MAX, INT32_MIN, 0}; /* 2^32 wraps to 0 */
  int_binary(IR_OP_MUL, IR_I32, IR_I32, 3, big, one, prod);
  int64_t quo[] = {INT32_MAX, INT32_MIN, 1}; /* INT32_MIN / -1 wraps */
  int_binary(IR_OP_DIV, IR_I32, IR_I32, 3, big, one, quo);
  int64_t m64[] = {INT64_MIN, INT64_MAX};
  int64_t q64[] = {INT64_MIN, -INT64_MAX};
  int_binary(IR_OP_DIV, IR_I64, IR_I64, 2, m64, (double[]){-1, -1}, q64);
  int_binary(IR_OP_ADD, IR_I64, IR_I64, 2, (int64_t[]){INT64_MAX, INT64_MIN},
             (double[]){1, -1}, (int64_t[]){INT64_MIN, INT64_MAX});

  int64_t pb[] = {3, -2, 2, 1, -1, -1, 0, 0, 2};
  double pe[] = {4, 3, -1, -5, -3, -2, 0, -1, 62};
  int64_t pw[] = {81, -8, 0, 1, -1, 1, 1, 0, INT64_C(1) << 62};
  int_binary(IR_OP_POW, IR_I64, IR_I64, 9, pb, pe, pw);
  int_binary(IR_OP_POW, IR_I32, IR_I64, 8, pb, pe, pw); /* exponent dtype differs */
  /* 3^21 = 10460353203 wraps in i32 to 1870418611 */
  int_binary(IR_OP_POW, IR_I32, IR_I32, 1, (int64_t[]){3}, (double[]){21},
             (int64_t[]){1870418611});
  /* integer base, float exponent: computed in double, truncated */
  int_binary(IR_OP_POW, IR_I32, IR_F32, 3, (int64_t[]){2, 9, -8}, (double[]){0.5, 0.5, 2},
             (int64_t[]){1, 3, 64});
  int_binary(IR_OP_SUB, IR_U8, IR_U8, 2, (int64_t[]){3, 200}, (double[]){5, 100},
             (int64_t[]){254, 100});
}

Test(binary, float_pow_int_exponent) {
  int64_t d = 4;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &d, (double[]){1.5, -2, 4, 0});
  c.in[1] = t_tensor_from(IR_I32, 1, &d, (double[]){2, 3, -1, -1});
  ir_type ot = ir_type_make(IR_F32, 1, &d);
  t_case_make(&c, IR_OP_POW, 2, &ot, 1);
  T_OK(t_case_run(&c));
  const double want[] = {2.25, -8, 0.25, INFINITY};
  for (int i = 0; i < 4; i++) expect_exact(rt_load_f(&c.out[0], i), want[i], "pow", i);
  t_case_free(&c);
}

/* Fused activation on add/sub/mul/div. */
static void act_case(ir_op op, ir_dtype dt, ir_act act, float alpha, float beta, bool set_params,
                     uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t da[2] = {4, 5}, db[1] = {5};
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, dt, 2, da, -9, 10);
  c.in[1] = t_tensor_random(&r, dt, 1, db, -9, 10);
  ir_type ot = ir_type_make(dt, 2, da);
  t_case_make(&c, op, 2, &ot, 1);
  T_OK(ir_node_set_enum(c.g, c.n, IR_A_ACT, (int)act));
  if (set_params) {
    T_OK(ir_node_set_float(c.g, c.n, IR_A_ACT_ALPHA, alpha));
    T_OK(ir_node_set_float(c.g, c.n, IR_A_ACT_BETA, beta));
  }
  T_OK(t_case_run(&c));
  rt_tensor want = t_tensor_zeros(dt, 2, da);
  for (int64_t i = 0; i < 20; i++) {
    if (is_fl(dt)) {
      double v = ref_binary_f(op, rt_load_f(&c.in[0], i), rt_load_f(&c.in[1], i % 5));
      switch (act) {
      case IR_ACT_RELU: v = v > 0 ? v : 0; break;
      case IR_ACT_RELU6: v = fmin(fmax(v, 0), 6); break;
      case IR_ACT_CLIP: v = fmin(fmax(v, alpha), beta); break;
      case IR_ACT_LEAKY_RELU: v = v > 0 ? v : v * (set_params ? alpha : 0.01f); break;
      case IR_ACT_SIGMOID: v = 1 / (1 + exp(-v)); break;
      case IR_ACT_TANH: v = tanh(v); break;
      case IR_ACT_HARD_SWISH: v = v * fmin(fmax(v + 3, 0), 6) / 6; break;
      case IR_ACT_SILU: v = v * (1 / (1 + exp(-v))); break;
      case IR_ACT_GELU: v = 0.5 * v * (1 + erf(v / sqrt(2.0))); break;
      case IR_ACT_GELU_TANH:
        v = 0.5 * v * (1 + tanh(sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        break;
      default: break;
      }
      rt_store_f(&want, i, v);
    } else {
      int64_t v = ref_binary_i(op, rt_load_i(&c.in[0], i), rt_load_i(&c.in[1], i % 5));
      if (act == IR_ACT_RELU) v = v > 0 ? v : 0;
      if (act == IR_ACT_RELU6) v = v < 0 ? 0 : v > 6 ? 6 : v;
      rt_store_i(&want, i, v);
    }
  }
  t_assert_close(&c.out[0], &want, 1e-6, 1e-7);
  rt_tensor_free(&want);
  t_case_free(&c);
}

Test(binary, fused_act) {
  const ir_op ops[] = {IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV};
  uint64_t seed = 1200;
  for (int o = 0; o < 4; o++) {
    act_case(ops[o], IR_F32, IR_ACT_RELU, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_RELU6, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_CLIP, -1.5f, 2.5f, true, seed++);
    act_case(ops[o], IR_F32, IR_ACT_LEAKY_RELU, 0.3f, 0, true, seed++);
    act_case(ops[o], IR_F32, IR_ACT_LEAKY_RELU, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_SIGMOID, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_TANH, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_HARD_SWISH, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_SILU, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_GELU, 0, 0, false, seed++);
    act_case(ops[o], IR_F32, IR_ACT_GELU_TANH, 0, 0, false, seed++);
    act_case(ops[o], IR_I32, IR_ACT_RELU, 0, 0, false, seed++);
    act_case(ops[o], IR_I64, IR_ACT_RELU6, 0, 0, false, seed++);
  }
}

/* ir_act_apply's gelu against x * Phi(x) from tables of the normal CDF, the
 * tail included (where 1 + erf would cancel to nothing), and gelu_tanh
 * against its tanh formula where that formula does not cancel. */
Test(binary, gelu_reference) {
  static const struct {
    double x, want;
  } gelu[] = {
      {1, 0.8413447460685429},
      {-1, -0.15865525393145707},
      {-5, -5 * 2.866515718791939e-07},
      {-10, -10 * 7.61985302416047e-24},
      {0, 0},
  };
  ir_act_params p = {IR_ACT_GELU, 0, 0};
  for (size_t i = 0; i < sizeof gelu / sizeof gelu[0]; i++) {
    double got = ir_act_apply(&p, gelu[i].x);
    cr_assert(fabs(got - gelu[i].want) <= 1e-12 * fabs(gelu[i].want),
              "gelu(%g) = %.17g, want %.17g", gelu[i].x, got, gelu[i].want);
  }
  p.kind = IR_ACT_GELU_TANH;
  for (double x = -3; x <= 3; x += 0.25) {
    double want = 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    double got = ir_act_apply(&p, x);
    cr_assert(fabs(got - want) <= 1e-13 * fabs(want) + 1e-300,
              "gelu_tanh(%g) = %.17g, want %.17g", x, got, want);
  }
  double tail = ir_act_apply(&p, -10); /* the formula above cancels to -0 */
  cr_assert(tail < 0 && tail > -1e-36, "gelu_tanh(-10) = %g", tail);
  p.kind = IR_ACT_GELU;
  cr_assert(isnan(ir_act_apply(&p, NAN)));
  cr_assert(ir_act_apply(&p, INFINITY) == INFINITY);
}

Test(binary, errors) {
  int64_t d3[2] = {2, 3}, d4 = 4;
  double v[] = {1, 2, 3, 4, 5, 6};
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 2, d3, v);
  c.in[1] = t_tensor_from(IR_F32, 1, &d4, v);
  ir_type ot = ir_type_make(IR_F32, 2, d3);
  t_case_make(&c, IR_OP_ADD, 2, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "broadcast");
  t_case_free(&c);

  c.in[0] = t_tensor_from(IR_F32, 2, d3, v);
  c.in[1] = t_tensor_from(IR_I32, 2, d3, v);
  ot = ir_type_make(IR_F32, 2, d3);
  t_case_make(&c, IR_OP_MUL, 2, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "i32");
  t_case_free(&c);

  c.in[0] = t_tensor_from(IR_I32, 2, d3, v);
  c.in[1] = t_tensor_from(IR_I32, 2, d3, v);
  ot = ir_type_make(IR_BOOL, 2, d3);
  t_case_make(&c, IR_OP_AND, 2, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "bool");
  t_case_free(&c);
}

/* ---- variadic ------------------------------------------------------------------------ */

static void variadic_case(ir_op op, ir_dtype dt, int n_in, uint64_t seed) {
  static const shape shapes[4] = {{2, {3, 1}}, {1, {4}}, {3, {2, 1, 4}}, {0, {0}}};
  const shape out_shapes[4] = {{2, {3, 1}}, {2, {3, 4}}, {3, {2, 3, 4}}, {3, {2, 3, 4}}};
  const shape *os = &out_shapes[n_in - 1];
  t_rng r = t_rng_make(seed);
  t_case c = {0};
  for (int k = 0; k < n_in; k++)
    c.in[k] = t_tensor_random(&r, dt, shapes[k].rank, shapes[k].dims, -50, 50);
  ir_type ot = ir_type_make(dt, os->rank, os->dims);
  t_case_make(&c, op, n_in, &ot, 1);
  T_OK(t_case_run(&c));
  rt_tensor want = t_tensor_zeros(dt, os->rank, os->dims);
  int64_t n = rt_tensor_numel(&want), oidx[4];
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, os->rank, os->dims, oidx);
    double af = 0;
    int64_t ai = 0;
    for (int k = 0; k < n_in; k++) {
      int64_t j = bcast_index(os->rank, oidx, shapes[k].rank, shapes[k].dims);
      double vf = rt_load_f(&c.in[k], j);
      int64_t vi = rt_load_i(&c.in[k], j);
      if (k == 0) {
        af = vf;
        ai = vi;
      } else if (op == IR_OP_MIN) {
        af = fmin(af, vf);
        ai = vi < ai ? vi : ai;
      } else if (op == IR_OP_MAX) {
        af = fmax(af, vf);
        ai = vi > ai ? vi : ai;
      } else {
        af += vf;
        ai += vi;
      }
    }
    if (op == IR_OP_MEAN) af /= n_in;
    if (is_fl(dt)) rt_store_f(&want, i, af);
    else rt_store_i(&want, i, ai);
  }
  t_assert_close(&c.out[0], &want, dt == IR_F16 ? 2e-3 : 1e-6, dt == IR_F16 ? 1e-2 : 1e-6);
  rt_tensor_free(&want);
  t_case_free(&c);
}

Test(variadic, one_to_four_inputs) {
  const ir_op ops[] = {IR_OP_MIN, IR_OP_MAX, IR_OP_SUM, IR_OP_MEAN};
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I32, IR_I64, IR_I8};
  uint64_t seed = 3000;
  for (int o = 0; o < 4; o++)
    for (int d = 0; d < 5; d++) {
      if (ops[o] == IR_OP_MEAN && !is_fl(dts[d])) continue;
      for (int k = 1; k <= 4; k++) variadic_case(ops[o], dts[d], k, seed++);
    }
}

Test(variadic, nan_propagates_and_mean_needs_floats) {
  int64_t d = 3;
  const ir_op ops[] = {IR_OP_MIN, IR_OP_MAX, IR_OP_SUM, IR_OP_MEAN};
  for (int o = 0; o < 4; o++) {
    t_case c = {0};
    c.in[0] = t_tensor_from(IR_F32, 1, &d, (double[]){NAN, 1, 2});
    c.in[1] = t_tensor_from(IR_F32, 1, &d, (double[]){0, NAN, 3});
    c.in[2] = t_tensor_from(IR_F32, 1, &d, (double[]){5, 7, 1});
    ir_type ot = ir_type_make(IR_F32, 1, &d);
    t_case_make(&c, ops[o], 3, &ot, 1);
    T_OK(t_case_run(&c));
    cr_assert(isnan(rt_load_f(&c.out[0], 0)) && isnan(rt_load_f(&c.out[0], 1)), "%s",
              ir_op_name(ops[o]));
    double want2[] = {1, 3, 6, 2};
    cr_assert_eq(rt_load_f(&c.out[0], 2), want2[o], "%s", ir_op_name(ops[o]));
    t_case_free(&c);
  }
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_I32, 1, &d, (double[]){1, 2, 3});
  ir_type ot = ir_type_make(IR_I32, 1, &d);
  t_case_make(&c, IR_OP_MEAN, 1, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "i32");
  t_case_free(&c);
}

/* ---- where ---------------------------------------------------------------------------- */

static void where_case(ir_dtype dt, const shape *p, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  t_case c = {0};
  c.in[0] = t_tensor_random(&r, IR_BOOL, p[0].rank, p[0].dims, 0, 2);
  /* both branches must be taken whatever the random bits */
  rt_store_i(&c.in[0], 0, 1);
  rt_store_i(&c.in[0], rt_tensor_numel(&c.in[0]) - 1, 0);
  c.in[1] = t_tensor_random(&r, dt, p[1].rank, p[1].dims, -100, 100);
  c.in[2] = t_tensor_random(&r, dt, p[2].rank, p[2].dims, -100, 100);
  ir_type ot = ir_type_make(dt, p[3].rank, p[3].dims);
  t_case_make(&c, IR_OP_WHERE, 3, &ot, 1);
  T_OK(t_case_run(&c));
  rt_tensor want = t_tensor_zeros(dt, p[3].rank, p[3].dims);
  int64_t n = rt_tensor_numel(&want), oidx[4];
  int n_true = 0;
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, p[3].rank, p[3].dims, oidx);
    bool cond = rt_load_i(&c.in[0], bcast_index(p[3].rank, oidx, p[0].rank, p[0].dims));
    n_true += cond;
    int k = cond ? 1 : 2;
    int64_t j = bcast_index(p[3].rank, oidx, p[k].rank, p[k].dims);
    if (is_fl(dt)) rt_store_f(&want, i, rt_load_f(&c.in[k], j));
    else rt_store_i(&want, i, rt_load_i(&c.in[k], j));
  }
  cr_assert(n_true > 0 && n_true < n, "condition should be mixed (seed %llu: %d of %lld)",
            (unsigned long long)seed, n_true, (long long)n);
  t_assert_close(&c.out[0], &want, 0, 0);
  rt_tensor_free(&want);
  t_case_free(&c);
}

Test(where, broadcast_all_three) {
  const shape p1[4] = {{3, {2, 1, 3}}, {2, {4, 3}}, {0, {0}}, {3, {2, 4, 3}}};
  const shape p2[4] = {{1, {5}}, {2, {3, 1}}, {2, {1, 5}}, {2, {3, 5}}};
  const shape p3[4] = {{2, {3, 4}}, {2, {3, 4}}, {2, {3, 4}}, {2, {3, 4}}};
  const ir_dtype dts[] = {IR_F32, IR_F16, IR_I64, IR_I8, IR_U8};
  uint64_t seed = 4000;
  for (int d = 0; d < 5; d++) {
    where_case(dts[d], p1, seed++);
    where_case(dts[d], p2, seed++);
    where_case(dts[d], p3, seed++);
  }
}

Test(where, bad_condition) {
  int64_t d = 2;
  t_case c = {0};
  c.in[0] = t_tensor_from(IR_F32, 1, &d, (double[]){1, 0});
  c.in[1] = t_tensor_from(IR_F32, 1, &d, (double[]){1, 2});
  c.in[2] = t_tensor_from(IR_F32, 1, &d, (double[]){3, 4});
  ir_type ot = ir_type_make(IR_F32, 1, &d);
  t_case_make(&c, IR_OP_WHERE, 3, &ot, 1);
  t_expect_error(t_case_run(&c), VKML_CODE_INVALID_ARGUMENT, "bool");
  t_case_free(&c);
}
