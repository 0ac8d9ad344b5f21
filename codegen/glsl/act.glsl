// The fused activation act(x) of a template (#include "act.glsl"): ACT (a
// #define) is an ir_act value (ir/ops.h); the template declares float
// constants ACT_ALPHA, ACT_BETA (the act's alpha, beta) before the include.
// Written as the reference ir_act_apply (ir/params.h) writes them, so that
// NaN behaves alike; float only (integer outputs take no act but exact
// relu, relu6 and clip, which elementwise_nary.comp does in integers).
#ifndef VKML_ACT_GLSL
#define VKML_ACT_GLSL

#include "math.glsl"

// ir_act, in its order
#define ACT_NONE 0
#define ACT_RELU 1
#define ACT_RELU6 2
#define ACT_CLIP 3
#define ACT_LEAKY_RELU 4
#define ACT_ELU 5
#define ACT_SIGMOID 6
#define ACT_TANH 7
#define ACT_HARD_SIGMOID 8
#define ACT_HARD_SWISH 9
#define ACT_SILU 10
#define ACT_GELU 11
#define ACT_GELU_TANH 12

float act(float x) {
#if ACT == ACT_NONE
  return x;
#elif ACT == ACT_RELU
  return x > 0.0 ? x : 0.0;
#elif ACT == ACT_RELU6
  return x < 0.0 ? 0.0 : (x > 6.0 ? 6.0 : x);
#elif ACT == ACT_CLIP
  return x < ACT_ALPHA ? ACT_ALPHA : (x > ACT_BETA ? ACT_BETA : x);
#elif ACT == ACT_LEAKY_RELU
  return x >= 0.0 ? x : ACT_ALPHA * x;
#elif ACT == ACT_ELU
  return x >= 0.0 ? x : ACT_ALPHA * expm1_(x);
#elif ACT == ACT_SIGMOID
  return 1.0 / (1.0 + exp(-x));
#elif ACT == ACT_TANH
  // tanh(x) = e / (e + 2) with e = expm1(2|x|); saturated beyond |x| = 10
  if (isnan(x)) return x;
  float e = expm1_(2.0 * min(abs(x), 10.0));
  return sign(x) * (e / (e + 2.0));
#elif ACT == ACT_HARD_SIGMOID
  float y = fma(ACT_ALPHA, x, ACT_BETA); // one rounding: no cancellation near y = 0
  return y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
#elif ACT == ACT_HARD_SWISH
  float y = (x + 3.0) / 6.0; // x + 3 is exact near the root at -3
  return x * (y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y));
#elif ACT == ACT_SILU
  return x / (1.0 + exp(-x));
#elif ACT == ACT_GELU
  // 0.5 x (1 + erf(x / sqrt 2)) as 0.5 x erfc(-x / sqrt 2): no cancellation
  // in the negative tail (below x ~ -13 it leaves fp32's normal range)
  return 0.5 * x * erfc_(-0.70710678 * x);
#elif ACT == ACT_GELU_TANH
  // 0.5 (1 + tanh u) = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)
  float u = 0.7978845608 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
#else
#error unknown ACT (ir_act): add it here and to ir_act_apply
#endif
}

#endif
