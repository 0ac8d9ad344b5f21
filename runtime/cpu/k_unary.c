/* CPU reference kernels: elementwise unary ops (relu ... clip, not) and cast.
 * Float ops are computed in double and rounded once on store; integer ops
 * (neg, abs, sign, clip) stay in int64 arithmetic. */
#include <math.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

/* NaN passes through. */
static double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

/* Round half to even without depending on the process's rounding mode. */
static double round_half_even(double x) {
  double r = floor(x), d = x - r;
  if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0)) r += 1;
  return copysign(r, x); /* keeps -0 for -0.5 < x <= -0 as nearbyint does */
}

double rt_cpu_unary_f(ir_op op, const ir_unary_params *p, double x) {
  switch (op) {
  case IR_OP_RELU: return x < 0 ? 0 : x; /* NaN and -0 pass through */
  case IR_OP_SIGMOID: return 1 / (1 + exp(-x));
  case IR_OP_TANH: return tanh(x);
  case IR_OP_EXP: return exp(x);
  case IR_OP_LOG: return log(x);
  case IR_OP_SQRT: return sqrt(x);
  case IR_OP_ERF: return erf(x);
  case IR_OP_NEG: return -x;
  case IR_OP_ABS: return fabs(x);
  case IR_OP_RECIPROCAL: return 1 / x;
  /* log(1+e^x) without overflowing e^x for large x. */
  case IR_OP_SOFTPLUS: return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
  case IR_OP_SIGN: return x > 0 ? 1 : (x < 0 ? -1 : (x == 0 ? 0 : x));
  case IR_OP_FLOOR: return floor(x);
  case IR_OP_CEIL: return ceil(x);
  case IR_OP_ROUND: return round_half_even(x);
  case IR_OP_HARD_SWISH: return x * clamp01(x / 6 + 0.5);
  case IR_OP_LEAKY_RELU: return x < 0 ? (double)p->alpha * x : x;
  case IR_OP_ELU: return x < 0 ? (double)p->alpha * expm1(x) : x;
  case IR_OP_SELU: {
    double alpha = p->alpha, gamma = p->gamma;
    return x <= 0 ? gamma * (alpha * exp(x) - alpha) : gamma * x;
  }
  case IR_OP_HARD_SIGMOID:
    return clamp01((double)p->alpha * x + (double)p->beta);
  case IR_OP_CLIP: {
    /* Comparisons (not fmin/fmax) so that NaN propagates; min > max gives
     * max everywhere, as numpy.clip does. */
    double lo = p->lo, hi = p->hi;
    double y = x < lo ? lo : x;
    return y > hi ? hi : y;
  }
  case IR_OP_SIN: return sin(x);
  case IR_OP_COS: return cos(x);
  case IR_OP_TAN: return tan(x);
  case IR_OP_ASIN: return asin(x);
  case IR_OP_ACOS: return acos(x);
  case IR_OP_ATAN: return atan(x);
  case IR_OP_SINH: return sinh(x);
  case IR_OP_COSH: return cosh(x);
  case IR_OP_ASINH: return asinh(x);
  case IR_OP_ACOSH: return acosh(x);
  case IR_OP_ATANH: return atanh(x);
  default: return x;
  }
}

static int64_t unary_int(ir_op op, const ir_unary_params *p, int64_t x) {
  switch (op) {
  /* Two's complement wrap (neg of the minimum is itself, as in numpy). */
  case IR_OP_NEG: return (int64_t)(0 - (uint64_t)x);
  case IR_OP_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
  case IR_OP_SIGN: return x > 0 ? 1 : (x < 0 ? -1 : 0);
  case IR_OP_CLIP: {
    int64_t lo = ir_f64_to_int(p->lo, IR_I64);
    int64_t hi = ir_f64_to_int(p->hi, IR_I64);
    int64_t y = x < lo ? lo : x;
    return y > hi ? hi : y;
  }
  default: return x;
  }
}

static bool op_takes_ints(ir_op op) {
  return op == IR_OP_NEG || op == IR_OP_ABS || op == IR_OP_SIGN || op == IR_OP_CLIP;
}

vkml_status rt_cpu_unary(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  ir_op op = n->op;
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, x->rank, x->dims));
  int64_t count = rt_tensor_numel(x);

  if (op == IR_OP_NOT) {
    if (x->dtype != IR_BOOL)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "not needs a bool input, got %s",
                          ir_dtype_name(x->dtype));
    for (int64_t i = 0; i < count; i++) rt_store_i(y, i, !rt_load_i(x, i));
    return VKML_OK;
  }

  ir_unary_params p;
  ir_unary_params_get(n, &p);

  if (ir_dtype_is_float(x->dtype)) {
    for (int64_t i = 0; i < count; i++)
      rt_store_f(y, i, rt_cpu_unary_f(op, &p, rt_load_f(x, i)));
    return VKML_OK;
  }
  if (ir_dtype_is_int(x->dtype) && op_takes_ints(op)) {
    for (int64_t i = 0; i < count; i++)
      rt_store_i(y, i, unary_int(op, &p, rt_load_i(x, i)));
    return VKML_OK;
  }
  return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s does not take %s input",
                      ir_op_name(op), ir_dtype_name(x->dtype));
}

/* ---- cast ---------------------------------------------------------------- */

vkml_status rt_cpu_cast(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  const ir_attr *to = ir_node_attr(n, IR_A_TO);
  if (!to || to->u.i < 0 || to->u.i >= IR_DTYPE_COUNT)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cast needs a valid 'to'");
  ir_dtype dt = (ir_dtype)to->u.i;
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, dt, x->rank, x->dims));
  int64_t count = rt_tensor_numel(x);
  bool from_f = ir_dtype_is_float(x->dtype), to_f = ir_dtype_is_float(dt);

  if (x->dtype == dt) {
    memcpy(y->data, x->data, rt_tensor_bytes(x));
  } else if (dt == IR_BOOL) {
    /* x != 0; NaN != 0 is true, as numpy's astype(bool). */
    for (int64_t i = 0; i < count; i++)
      rt_store_i(y, i, from_f ? rt_load_f(x, i) != 0 : rt_load_i(x, i) != 0);
  } else if (from_f && to_f) {
    for (int64_t i = 0; i < count; i++) rt_store_f(y, i, rt_load_f(x, i));
  } else if (from_f) {
    /* Truncate toward zero, NaN -> 0, saturate to the target's range
       (docs/ops.md), so that inf and huge values are defined. */
    for (int64_t i = 0; i < count; i++)
      rt_store_i(y, i, ir_f64_to_int(rt_load_f(x, i), dt));
  } else if (dt == IR_F32) {
    /* int64 -> float directly: one rounding, not two through double. */
    for (int64_t i = 0; i < count; i++) {
      float f = (float)rt_load_i(x, i);
      memcpy((char *)y->data + 4 * (size_t)i, &f, 4);
    }
  } else if (to_f) {
    for (int64_t i = 0; i < count; i++) rt_store_f(y, i, (double)rt_load_i(x, i));
  } else {
    /* Integer narrowing wraps (two's complement), as numpy and onnxruntime. */
    for (int64_t i = 0; i < count; i++) rt_store_i(y, i, rt_load_i(x, i));
  }
  return VKML_OK;
}
