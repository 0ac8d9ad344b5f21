// The float unary ops of the op table as fp32 functions of the op's shader
// code (ir_op -> code: codegen/kernels/elementwise.c cg_elt_unary_code), shared by
// elementwise_unary.comp (OP baked as a #define) and elementwise_fused.comp
// (the op of each program slot a specialization constant), so both compute
// alike. Written to stay within ~1e-6 relative error of the reference
// (runtime/cpu/k_unary.c) where the GLSL built-ins promise less.
#ifndef VKML_UNARY_GLSL
#define VKML_UNARY_GLSL

#include "math.glsl" // expm1_, erf_, log_, log1p_, mad_exact, sin_ ... atanh_

#define OP_RELU 0
#define OP_SIGMOID 1
#define OP_TANH 2
#define OP_EXP 3
#define OP_LOG 4
#define OP_SQRT 5
#define OP_ERF 6
#define OP_NEG 7
#define OP_ABS 8
#define OP_RECIPROCAL 9
#define OP_SOFTPLUS 10
#define OP_SIGN 11
#define OP_FLOOR 12
#define OP_CEIL 13
#define OP_ROUND 14
#define OP_HARD_SWISH 15
#define OP_LEAKY_RELU 16
#define OP_ELU 17
#define OP_SELU 18
#define OP_HARD_SIGMOID 19
#define OP_CLIP 20
// 21, 22: not, cast (their own kernels)
#define OP_SIN 23
#define OP_COS 24
#define OP_TAN 25
#define OP_ASIN 26
#define OP_ACOS 27
#define OP_ATAN 28
#define OP_SINH 29
#define OP_COSH 30
#define OP_ASINH 31
#define OP_ACOSH 32
#define OP_ATANH 33

float clamp01(float v) { return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v); } // NaN passes

// op(x) with its scalars: leaky_relu, elu alpha; selu alpha, gamma;
// hard_sigmoid alpha, beta; clip alpha = min, beta = max.
float unary_f(uint op, float x, float alpha, float beta, float gamma) {
  switch (int(op)) {
  case OP_RELU:
    return x < 0.0 ? 0.0 : x;
  case OP_SIGMOID:
    return 1.0 / (1.0 + exp(-x));
  case OP_TANH: {
    // tanh(x) = e / (e + 2) with e = expm1(2x); saturated beyond |x| = 10
    if (isnan(x)) return x;
    float e = expm1_(2.0 * min(abs(x), 10.0));
    float r = e / (e + 2.0);
    return x < 0.0 ? -r : r;
  }
  case OP_EXP:
    return exp(x);
  case OP_LOG:
    return log_(x);
  case OP_SQRT:
    return sqrt(x);
  case OP_ERF:
    return erf_(x);
  case OP_NEG:
    return -x;
  case OP_ABS:
    return abs(x);
  case OP_RECIPROCAL:
    return 1.0 / x;
  case OP_SOFTPLUS:
    return x > 0.0 ? x + log1p_(exp(-x)) : log1p_(exp(x));
  case OP_SIGN:
    return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : (x == 0.0 ? 0.0 : x));
  case OP_FLOOR:
    return floor(x);
  case OP_CEIL:
    return ceil(x);
  case OP_ROUND:
    return roundEven(x);
  case OP_HARD_SWISH:
    return x * clamp01((x + 3.0) / 6.0); // x + 3 is exact near the root at -3
  case OP_LEAKY_RELU:
    return x < 0.0 ? alpha * x : x;
  case OP_ELU:
    return x < 0.0 ? alpha * expm1_(x) : x;
  case OP_SELU:
    return x <= 0.0 ? gamma * (alpha * expm1_(x)) : gamma * x;
  case OP_HARD_SIGMOID:
    return clamp01(mad_exact(alpha, x, beta));
  case OP_CLIP: {
    float y = x < alpha ? alpha : x; // comparisons, so that NaN passes
    return y > beta ? beta : y;
  }
  case OP_SIN:
    return sin_(x);
  case OP_COS:
    return cos_(x);
  case OP_TAN:
    return tan_(x);
  case OP_ASIN:
    return asin_(x);
  case OP_ACOS:
    return acos_(x);
  case OP_ATAN:
    return atan_(x);
  case OP_SINH:
    return sinh_(x);
  case OP_COSH:
    return cosh_(x);
  case OP_ASINH:
    return asinh_(x);
  case OP_ACOSH:
    return acosh_(x);
  case OP_ATANH:
    return atanh_(x);
  default: return x;
  }
}

#endif
