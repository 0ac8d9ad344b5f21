// Accurate fp32 helpers shared by the templates (#include "math.glsl"; the
// compiler resolves it among the embedded files, codegen/core/compile.c). They
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

// Natural log to ~2 ulp everywhere (GLSL's log only promises an absolute
// error near 1): x = m * 2^e with m in [sqrt(1/2), sqrt(2)),
// log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172.
float log_(float x) {
  if (!(x > 0.0) || isinf(x)) return log(x); // 0, negative, NaN, inf
  int e;
  float m = frexp(x, e);
  if (m < 0.70710678) {
    m *= 2.0;
    e -= 1;
  }
  float f = m - 1.0; // exact
  float s = f / (2.0 + f);
  float z = s * s;
  float r = 2.0 * s * (1.0 + z * (1.0 / 3.0 + z * (1.0 / 5.0 + z * (1.0 / 7.0 + z * (1.0 / 9.0 +
            z * (1.0 / 11.0))))));
  float fe = float(e);
  return fe * 0.693138122558593750 + (fe * 9.0580006145e-06 + r); // ln 2 split (Cody-Waite)
}

// log(1 + y) for y >= 0 without losing y's low bits.
float log1p_(float y) {
  precise float u = 1.0 + y;
  if (u == 1.0) return y;
  precise float d = u - 1.0;
  return log_(u) * (y / d);
}

// a * x + b with one rounding (GLSL's fma may round twice): Dekker's
// product and Knuth's two-sum, so hard_sigmoid keeps its accuracy at its root.
float mad_exact(float a, float x, float b) {
  precise float p = a * x;
  if (!(abs(p) < 1e30)) return p + b; // huge, inf or NaN: the split would overflow
  precise float ca = 4097.0 * a, ah = ca - (ca - a), al = a - ah;
  precise float cx = 4097.0 * x, xh = cx - (cx - x), xl = x - xh;
  precise float e = ((ah * xh - p) + ah * xl + al * xh) + al * xl;
  precise float s = p + b, bb = s - p;
  precise float t = (p - (s - bb)) + (b - bb);
  return s + (t + e);
}

// ---- trigonometric and hyperbolic: Cephes' single-precision algorithms ----

// Cephes' minimax polynomials on [-pi/4, pi/4].
float sin_poly_(float z) {
  float zz = z * z;
  return ((-1.9515295891e-4 * zz + 8.3321608736e-3) * zz - 1.6666654611e-1) * zz * z + z;
}
float cos_poly_(float z) {
  float zz = z * z;
  return ((2.443315711809948e-5 * zz - 1.388731625493765e-3) * zz + 4.166664568298827e-2) *
         zz * zz - 0.5 * zz + 1.0;
}

// sin(x), or cos(x) with want_cos: |x| reduced by an even multiple j of
// pi/4, pi/4 in three parts whose products with j are exact below |x| =
// 8192 (beyond, and for inf / NaN, the built-ins).
float sincos_(float x, bool want_cos) {
  float ax = abs(x);
  if (!(ax < 8192.0)) return want_cos ? cos(x) : sin(x);
  uint j = uint(ax * 1.27323954473516);
  float y = float(j);
  if ((j & 1u) != 0u) {
    j += 1u;
    y += 1.0;
  }
  j &= 7u;
  float sign = !want_cos && x < 0.0 ? -1.0 : 1.0;
  if (j > 3u) {
    j -= 4u;
    sign = -sign;
  }
  if (want_cos && j > 1u) sign = -sign;
  precise float z = ((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) -
                    y * 3.77489497744594108e-8;
  // j is 0 or 2 here: at 2 the other function's polynomial
  float r = (j == 2u) != want_cos ? cos_poly_(z) : sin_poly_(z);
  return sign * r;
}

float sin_(float x) { return sincos_(x, false); }
float cos_(float x) { return sincos_(x, true); }
float tan_(float x) { return sincos_(x, false) / sincos_(x, true); }

// asin on [0, 1] (Cephes' asinf; above 1/2 through asin(1 - 2z) = pi/2 - 2 asin(sqrt(z))).
float asin_pos_(float a) {
  bool big = a > 0.5;
  float z = big ? 0.5 * (1.0 - a) : a * a;
  float x = big ? sqrt(z) : a;
  float r = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z +
              7.4953002686e-2) * z + 1.6666752422e-1) * z * x + x;
  return big ? 1.5707963267948966 - (r + r) : r;
}

float asin_(float x) {
  float a = abs(x);
  if (!(a <= 1.0)) return uintBitsToFloat(0x7fc00000u); // |x| > 1, NaN
  float r = asin_pos_(a);
  return x < 0.0 ? -r : r;
}

float acos_(float x) {
  if (!(abs(x) <= 1.0)) return uintBitsToFloat(0x7fc00000u);
  if (x < -0.5) return 3.14159265358979 - 2.0 * asin_pos_(sqrt(0.5 * (1.0 + x)));
  if (x > 0.5) return 2.0 * asin_pos_(sqrt(0.5 * (1.0 - x)));
  return 1.5707963267948966 - (x < 0.0 ? -asin_pos_(-x) : asin_pos_(x));
}

// Cephes' atanf: |x| brought below tan(pi/8) by atan(x) = pi/2 - atan(1/x)
// or pi/4 + atan((x - 1) / (x + 1)).
float atan_(float x) {
  if (isnan(x)) return x;
  float a = abs(x), y = 0.0;
  if (a > 2.414213562373095) {
    y = 1.5707963267948966;
    a = -1.0 / a;
  } else if (a > 0.4142135623730950) {
    y = 0.7853981633974483;
    a = (a - 1.0) / (a + 1.0);
  }
  float z = a * a;
  y += (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z -
        3.33329491539e-1) * z * a + a;
  return x < 0.0 ? -y : y;
}

// e^a / 2 for a >= 20 (sinh, cosh there): 0.5 exp(a) while exp(a) is finite,
// past a = 88 exp(a - ln 2), so that it overflows where they do, not before.
float half_exp_(float a) { return a < 88.0 ? 0.5 * exp(a) : exp(a - 0.6931471805599453); }

// sinh, cosh through expm1 / exp below |x| = 20.
float sinh_(float x) {
  float a = abs(x), r;
  if (a < 20.0) {
    float e = expm1_(a);
    r = 0.5 * (e + e / (e + 1.0));
  } else {
    r = half_exp_(a);
  }
  return x < 0.0 ? -r : r; // NaN: r is NaN
}

float cosh_(float x) {
  float a = abs(x);
  if (a < 20.0) {
    float e = exp(a);
    return 0.5 * (e + 1.0 / e);
  }
  return half_exp_(a);
}

// asinh(x) = sign log1p(a + a^2 / (1 + sqrt(1 + a^2))); past 2^12, log(2a).
float asinh_(float x) {
  float a = abs(x), r;
  if (a > 4096.0) r = log_(a) + 0.6931471805599453;
  else r = log1p_(a + a * a / (1.0 + sqrt(1.0 + a * a)));
  return x < 0.0 ? -r : r;
}

// acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))), exact near 1; past 2^12, log(2x).
float acosh_(float x) {
  if (!(x >= 1.0)) return uintBitsToFloat(0x7fc00000u); // below 1, NaN
  if (x > 4096.0) return log_(x) + 0.6931471805599453;
  float t = x - 1.0;
  return log1p_(t + sqrt(t * (x + 1.0)));
}

// atanh(x) = sign log1p(2a / (1 - a)) / 2.
float atanh_(float x) {
  float a = abs(x);
  if (!(a <= 1.0)) return uintBitsToFloat(0x7fc00000u);
  float r = a == 1.0 ? uintBitsToFloat(0x7f800000u) : 0.5 * log1p_(2.0 * a / (1.0 - a));
  return x < 0.0 ? -r : r;
}

// x / y correctly rounded, as the reference's double division rounded to
// f32 (SPIR-V's OpFDiv may be 2.5 ulp off: quantization rounds x / scale at
// its ties). The quotient is moved to the float whose rounding interval
// holds x / y, decided exactly in integers: x / y against the midpoint m of
// two neighbouring floats is x against m y, m's 25-bit and y's 24-bit
// significands multiplied by umulExtended. Integers, not a Dekker product in
// floats: a driver that contracts x - q y into an fma (the NVIDIA driver did,
// `precise` notwithstanding) would silently undo that correction. Huge, tiny,
// zero, inf and NaN operands keep the plain quotient.
uint div_sig_(uint b) { return (b & 0x7fffffu) | 0x800000u; } // a normal float's significand
int div_exp_(uint b) { return int((b >> 23) & 0xffu) - 150; }  // its value: sig * 2^exp

// The sign of X 2^ex / (Y 2^ey) - (the midpoint of the positive normal
// floats with bits a and a + 1); 2 where the exponents are not as a
// quotient near that midpoint has them.
int div_cmp_mid_(uint X, int ex, uint Y, int ey, uint a) {
  int ea = div_exp_(a), eb = div_exp_(a + 1u);
  uint M = div_sig_(a) + (div_sig_(a + 1u) << uint(eb - ea)); // midpoint: M 2^(ea - 1)
  uint ph, pl;
  umulExtended(M, Y, ph, pl);
  int d = ex - (ea - 1) - ey; // X 2^d against M Y
  if (d <= 0 || d >= 32) return 2;
  uint xh = X >> uint(32 - d), xl = X << uint(d);
  if (xh != ph) return xh < ph ? -1 : 1;
  return xl == pl ? 0 : xl < pl ? -1 : 1;
}

float div_(float x, float y) {
  precise float q = x / y;
  if (!(abs(q) < 1e30) || !(abs(q) > 1e-30) || !(abs(y) < 1e30) || !(abs(y) > 1e-30) ||
      !(abs(x) < 1e30) || !(abs(x) > 1e-30))
    return q;
  uint bx = floatBitsToUint(abs(x)), by = floatBitsToUint(abs(y));
  uint X = div_sig_(bx), Y = div_sig_(by);
  int ex = div_exp_(bx), ey = div_exp_(by);
  uint c = floatBitsToUint(abs(q));
  for (int it = 0; it < 4; it++) { // OpFDiv is within 2.5 ulp: at most 3 moves
    int up = div_cmp_mid_(X, ex, Y, ey, c);
    if (up == 2) return q;
    if (up > 0) {
      c++;
      continue;
    }
    if (up == 0) { // a tie (a quotient of floats never is one): to even
      c += c & 1u;
      break;
    }
    int lo = div_cmp_mid_(X, ex, Y, ey, c - 1u);
    if (lo == 2) return q;
    if (lo < 0) {
      c--;
      continue;
    }
    if (lo == 0) c -= c & 1u;
    break;
  }
  float r = uintBitsToFloat(c);
  return (x < 0.0) != (y < 0.0) ? -r : r;
}

// C's fmod, exact: |x| reduced by |y| 2^e for e from the exponents'
// difference down to 0, each subtraction exact (Sterbenz: t <= r < 2t);
// as many steps as the exponents differ (at most ~280). As C: NaN when y is
// 0, x is infinite or either is NaN; x when |x| < |y| or y is infinite.
float fmod_(float x, float y) {
  if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return uintBitsToFloat(0x7fc00000u);
  float ax = abs(x), ay = abs(y);
  if (isinf(y) || ax < ay) return x;
  int ex, ey;
  frexp(ax, ex);
  frexp(ay, ey);
  precise float r = ax;
  for (int e = ex - ey; e >= 0; e--) {
    float t = ldexp(ay, e);
    if (r >= t) r -= t;
  }
  return x < 0.0 ? -r : r;
}

// C's pow (which the reference uses) for float base and exponent.
float pow_(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0; // even for a NaN operand
  if (isnan(x) || isnan(y)) return x + y;
  bool yint = floor(y) == y; // +-inf count as even integers
  bool yodd = yint && abs(y) < 16777216.0 && (int(abs(y)) & 1) == 1;
  if (x < 0.0 && !yint) return uintBitsToFloat(0x7fc00000u);
  float ax = abs(x), r;
  if (ax == 0.0) r = y < 0.0 ? uintBitsToFloat(0x7f800000u) : 0.0;
  else if (isinf(ax)) r = y < 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
  else if (isinf(y)) r = (ax > 1.0) == (y > 0.0) ? uintBitsToFloat(0x7f800000u) : 0.0;
  else r = exp(y * log_(ax));
  bool neg = (floatBitsToUint(x) >> 31) != 0u; // -0 included
  return neg && yodd ? -r : r;
}

#endif
