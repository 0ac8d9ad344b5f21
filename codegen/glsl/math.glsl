// Accurate fp32 helpers shared by the templates (#include "math.glsl"; the
// compiler resolves it among the embedded files, codegen/cg_compile.c). They
// stay within ~1e-6 relative error of the double-precision reference where
// GLSL has no built-in (erf, erfc) or its built-in promises less (expm1 near
// 0). Functions only: no bindings, no constants a template must declare.
#ifndef VKML_MATH_GLSL
#define VKML_MATH_GLSL

// exp(x) - 1: Taylor series below |x| = 0.5 (no cancellation), else exp - 1.
float expm1_(float x) {
  if (abs(x) < 0.5)
    return x * (1.0 + x * (1.0 / 2.0 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 +
           x * (1.0 / 720.0 + x * (1.0 / 5040.0 + x * (1.0 / 40320.0))))))));
  return exp(x) - 1.0;
}

// erfc(a) for a >= 1 (NaN passes) to ~5e-7 relative: Numerical Recipes'
// Chebyshev fit t exp(-a^2 + P(t)), t = 1 / (1 + a/2), with a^2 split into
// ah^2 (exact: ah keeps 12 bits) and (a - ah)(a + ah), as fdlibm does, so
// that the rounding of a^2 ~ 90 does not cost 5e-6. Relative, not absolute,
// accuracy: gelu's negative tail is x * erfc.
float erfc_tail_(float a) {
  float t = 1.0 / (1.0 + 0.5 * a);
  float p = t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
            t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 +
            t * 0.17087277))))))));
  float ah = uintBitsToFloat(floatBitsToUint(a) & 0xfffff000u);
  return t * exp(-ah * ah) * exp((ah - a) * (ah + a) + (p - 1.26551223));
}

// erf: the Taylor series of x * P(x^2) below |x| = 1 (relative accuracy at
// 0), 1 - erfc above.
float erf_(float x) {
  float ax = abs(x);
  if (ax < 1.0) {
    float z = x * x;
    float p = 1.4807192815879218e-08;
    p = p * z - 1.6365844691234924e-07;
    p = p * z + 1.6462114365889246e-06;
    p = p * z - 1.492565035840625e-05;
    p = p * z + 0.00012055332981789664;
    p = p * z - 0.0008548327023450852;
    p = p * z + 0.005223977625442188;
    p = p * z - 0.026866170645131252;
    p = p * z + 0.11283791670955126;
    p = p * z - 0.37612638903183754;
    p = p * z + 1.1283791670955126;
    return x * p;
  }
  float y = 1.0 - erfc_tail_(ax);
  return x < 0.0 ? -y : y; // NaN: y is NaN
}

// erfc(x) = 1 - erf(x), without the cancellation for x >= 1.
float erfc_(float x) {
  if (x >= 1.0) return erfc_tail_(x);
  if (x <= -1.0) return 2.0 - erfc_tail_(-x);
  return 1.0 - erf_(x); // |x| < 1 or NaN
}

#endif
