// The fused activation act(x) of a template (#include "act.glsl"): ACT (a
// #define) is an ir_act value (ir/ops.h); the template declares float
// constants ACT_ALPHA, ACT_BETA (the act's alpha, beta) before the include.
// act_by(kind, x, alpha, beta) is the same with the act chosen at run time
// (or by a specialization constant: elementwise_fused.comp).
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

// One function per act, shared by act() (the act a template bakes in as
// ACT) and act_by() (the act chosen by a specialization constant, as the
// fused program's), so that both compute alike.
float act_relu_(float x) { return x > 0.0 ? x : 0.0; }
float act_relu6_(float x) { return x < 0.0 ? 0.0 : (x > 6.0 ? 6.0 : x); }
float act_clip_(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
float act_leaky_relu_(float x, float alpha) { return x >= 0.0 ? x : alpha * x; }
float act_elu_(float x, float alpha) { return x >= 0.0 ? x : alpha * expm1_(x); }
float act_sigmoid_(float x) { return 1.0 / (1.0 + exp(-x)); }
float act_tanh_(float x) {
  // tanh(x) = e / (e + 2) with e = expm1(2|x|); saturated beyond |x| = 10
  if (isnan(x)) return x;
  float e = expm1_(2.0 * min(abs(x), 10.0));
  return sign(x) * (e / (e + 2.0));
}
float act_hard_sigmoid_(float x, float alpha, float beta) {
  float y = fma(alpha, x, beta); // one rounding: no cancellation near y = 0
  return y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
}
float act_hard_swish_(float x) {
  float y = (x + 3.0) / 6.0; // x + 3 is exact near the root at -3
  return x * (y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y));
}
float act_silu_(float x) { return x / (1.0 + exp(-x)); }
float act_gelu_(float x) {
  // 0.5 x (1 + erf(x / sqrt 2)) as 0.5 x erfc(-x / sqrt 2): no cancellation
  // in the negative tail (below x ~ -13 it leaves fp32's normal range)
  return 0.5 * x * erfc_(-0.70710678 * x);
}
float act_gelu_tanh_(float x) {
  // 0.5 (1 + tanh u) = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)
  float u = 0.7978845608 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

// The act of ir_act value kind with its alpha and beta.
float act_by(uint kind, float x, float alpha, float beta) {
  switch (int(kind)) {
  case ACT_RELU: return act_relu_(x);
  case ACT_RELU6: return act_relu6_(x);
  case ACT_CLIP: return act_clip_(x, alpha, beta);
  case ACT_LEAKY_RELU: return act_leaky_relu_(x, alpha);
  case ACT_ELU: return act_elu_(x, alpha);
  case ACT_SIGMOID: return act_sigmoid_(x);
  case ACT_TANH: return act_tanh_(x);
  case ACT_HARD_SIGMOID: return act_hard_sigmoid_(x, alpha, beta);
  case ACT_HARD_SWISH: return act_hard_swish_(x);
  case ACT_SILU: return act_silu_(x);
  case ACT_GELU: return act_gelu_(x);
  case ACT_GELU_TANH: return act_gelu_tanh_(x);
  default: return x;
  }
}

float act(float x) {
#if ACT == ACT_NONE
  return x;
#elif ACT == ACT_RELU
  return act_relu_(x);
#elif ACT == ACT_RELU6
  return act_relu6_(x);
#elif ACT == ACT_CLIP
  return act_clip_(x, ACT_ALPHA, ACT_BETA);
#elif ACT == ACT_LEAKY_RELU
  return act_leaky_relu_(x, ACT_ALPHA);
#elif ACT == ACT_ELU
  return act_elu_(x, ACT_ALPHA);
#elif ACT == ACT_SIGMOID
  return act_sigmoid_(x);
#elif ACT == ACT_TANH
  return act_tanh_(x);
#elif ACT == ACT_HARD_SIGMOID
  return act_hard_sigmoid_(x, ACT_ALPHA, ACT_BETA);
#elif ACT == ACT_HARD_SWISH
  return act_hard_swish_(x);
#elif ACT == ACT_SILU
  return act_silu_(x);
#elif ACT == ACT_GELU
  return act_gelu_(x);
#elif ACT == ACT_GELU_TANH
  return act_gelu_tanh_(x);
#else
#error unknown ACT (ir_act): add it here, to act_by and to ir_act_apply
#endif
}

#endif
