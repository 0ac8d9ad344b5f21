#version 450
// resize, nearest (every nearest_mode), N-linear and cubic (every coordinate
// transform), as the CPU reference computes them (codegen/kernels/resize.c).
//
// The host turns each resized axis' coordinate transform into an exact
// rational map: output coordinate c -> n(c) / C with n(c) = c * A + B (A, C
// 32-bit, B a signed 64-bit value as two words BL, BH). Nearest: the input
// index is floor(n / C), the rounding rule folded into A, B, C; linear: the
// left neighbour is floor(n / C) and its weight 1 - frac with frac = (n mod
// C) / C. Both are clamped into [0, I) as the reference's edge replication
// does. The division is done exactly in 64-bit integer arithmetic built from
// 32-bit words (umulExtended), so indices match the reference bit for bit
// and no shaderInt64 is needed.
//
// Bindings: 0 = x, 1 = y (dense C order).
// Knobs (#defines): WG_SIZE, EPI (outputs per invocation, WG_SIZE apart),
//   UNIT_BYTES (host only: nearest may move several neighbouring elements of
//   an axis that is not resized as one word of at most this size).
// Baked: #defines LINEAR, ELEM_BYTES (nearest), DTYPE_F16 (linear);
//   specialization constants: axes innermost first, size-1 axes dropped and
//   neighbouring axes that are not resized merged; per axis the output dim D
//   and input stride S (units); per resized axis (C != 0) A, BL, BH, C, the
//   input dim I and W: whether n needs the 64-bit path. At most 4 resized
//   axes. Linear interpolates in fp32.

#ifndef CUBIC
#define CUBIC 0 // with LINEAR's data path: 4 taps per resized axis (CUBIC_A, EXCLUDE)
#endif

#if LINEAR
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define U float16_t
#else
#define U float
#endif
#else
#if ELEM_BYTES == 1
#extension GL_EXT_shader_8bit_storage : require
#define U uint8_t
#elif ELEM_BYTES == 2
#extension GL_EXT_shader_16bit_storage : require
#define U uint16_t
#elif ELEM_BYTES == 4
#define U uint
#elif ELEM_BYTES == 8
#define U uvec2
#else
#define U uvec4
#endif
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint RANK = 0;
layout(constant_id = 2) const int BASE = 0;
// Per axis k (<= 8, innermost first): D dim, S stride, C, A, BL, BH, I, W
layout(constant_id = 8) const uint D0 = 1;
layout(constant_id = 9) const uint D1 = 1;
layout(constant_id = 10) const uint D2 = 1;
layout(constant_id = 11) const uint D3 = 1;
layout(constant_id = 12) const uint D4 = 1;
layout(constant_id = 13) const uint D5 = 1;
layout(constant_id = 14) const uint D6 = 1;
layout(constant_id = 15) const uint D7 = 1;
layout(constant_id = 16) const uint S0 = 0;
layout(constant_id = 17) const uint S1 = 0;
layout(constant_id = 18) const uint S2 = 0;
layout(constant_id = 19) const uint S3 = 0;
layout(constant_id = 20) const uint S4 = 0;
layout(constant_id = 21) const uint S5 = 0;
layout(constant_id = 22) const uint S6 = 0;
layout(constant_id = 23) const uint S7 = 0;
layout(constant_id = 24) const uint C0 = 0;
layout(constant_id = 25) const uint C1 = 0;
layout(constant_id = 26) const uint C2 = 0;
layout(constant_id = 27) const uint C3 = 0;
layout(constant_id = 28) const uint C4 = 0;
layout(constant_id = 29) const uint C5 = 0;
layout(constant_id = 30) const uint C6 = 0;
layout(constant_id = 31) const uint C7 = 0;
layout(constant_id = 32) const uint A0 = 0;
layout(constant_id = 33) const uint A1 = 0;
layout(constant_id = 34) const uint A2 = 0;
layout(constant_id = 35) const uint A3 = 0;
layout(constant_id = 36) const uint A4 = 0;
layout(constant_id = 37) const uint A5 = 0;
layout(constant_id = 38) const uint A6 = 0;
layout(constant_id = 39) const uint A7 = 0;
layout(constant_id = 40) const uint BL0 = 0;
layout(constant_id = 41) const uint BL1 = 0;
layout(constant_id = 42) const uint BL2 = 0;
layout(constant_id = 43) const uint BL3 = 0;
layout(constant_id = 44) const uint BL4 = 0;
layout(constant_id = 45) const uint BL5 = 0;
layout(constant_id = 46) const uint BL6 = 0;
layout(constant_id = 47) const uint BL7 = 0;
layout(constant_id = 48) const uint BH0 = 0;
layout(constant_id = 49) const uint BH1 = 0;
layout(constant_id = 50) const uint BH2 = 0;
layout(constant_id = 51) const uint BH3 = 0;
layout(constant_id = 52) const uint BH4 = 0;
layout(constant_id = 53) const uint BH5 = 0;
layout(constant_id = 54) const uint BH6 = 0;
layout(constant_id = 55) const uint BH7 = 0;
layout(constant_id = 56) const uint I0 = 1;
layout(constant_id = 57) const uint I1 = 1;
layout(constant_id = 58) const uint I2 = 1;
layout(constant_id = 59) const uint I3 = 1;
layout(constant_id = 60) const uint I4 = 1;
layout(constant_id = 61) const uint I5 = 1;
layout(constant_id = 62) const uint I6 = 1;
layout(constant_id = 63) const uint I7 = 1;
layout(constant_id = 64) const bool W0 = false;
layout(constant_id = 65) const bool W1 = false;
layout(constant_id = 66) const bool W2 = false;
layout(constant_id = 67) const bool W3 = false;
layout(constant_id = 68) const bool W4 = false;
layout(constant_id = 69) const bool W5 = false;
layout(constant_id = 70) const bool W6 = false;
layout(constant_id = 71) const bool W7 = false;

layout(binding = 0, std430) readonly buffer X { U x[]; };
layout(binding = 1, std430) writeonly buffer Y { U y[]; };

// n - q * cm as a signed 64-bit value (hi, lo); |result| < 2^62.
void rem64(uint hi, uint lo, uint q, uint cm, out int rh, out uint rl) {
  uint ph, pl, borrow;
  umulExtended(q, cm, ph, pl);
  rl = usubBorrow(lo, pl, borrow);
  rh = int(hi - ph - borrow);
}

// Maps output coordinate c of one axis: i0 = floor(n / cm) clamped into
// [0, in), frac = the weight of i0 + 1 (0 where clamped). Where the host
// found that n and (in - 1) * cm fit 31 bits (wide false), 32-bit integer
// arithmetic (the division by a constant folds into a multiply) does.
void axis_map(bool wide, uint c, uint a, uint bl, uint bh, uint cm, uint in_dim, out uint i0,
              out float frac) {
  if (!wide) {
    int n = int(c * a + bl);
    i0 = 0u;
    frac = 0.0;
    if (n < 0) return;
    if (uint(n) >= (in_dim - 1u) * cm) {
      i0 = in_dim - 1u;
      return;
    }
    i0 = uint(n) / cm;
    frac = float(uint(n) - i0 * cm) / float(cm);
    return;
  }
  uint hi, lo, carry;
  umulExtended(c, a, hi, lo);
  lo = uaddCarry(lo, bl, carry);
  hi = hi + bh + carry;
  i0 = 0u;
  frac = 0.0;
  if (int(hi) < 0) return; // left of the first input element
  uint th, tl;
  umulExtended(in_dim - 1u, cm, th, tl);
  if (hi > th || (hi == th && lo >= tl)) { // at or right of the last one
    i0 = in_dim - 1u;
    return;
  }
  // n / cm < in_dim - 1 < 2^31: an fp32 estimate, then exact corrections
  float fc = float(cm);
  uint q = min(uint((float(hi) * 4294967296.0 + float(lo)) / fc), in_dim - 1u);
  int rh;
  uint rl;
  rem64(hi, lo, q, cm, rh, rl);
  q = uint(int(q) + int(floor((float(rh) * 4294967296.0 + float(rl)) / fc)));
  rem64(hi, lo, q, cm, rh, rl);
  if (rh < 0) {
    q -= 1u;
    rl += cm;
  } else if (rh > 0 || rl >= cm) {
    q += 1u;
    rl -= cm;
  }
  i0 = q;
  frac = float(rl) / fc;
}

#if CUBIC
// The cubic taps of one axis (the reference's, runtime/cpu/k_resize.c): xo =
// n / cm clamped into [-2, in + 2], left = ceil(xo) - 1 = floor((n - 1) / cm),
// r = xo - left in (0, 1]; taps left - 1 .. left + 2 with Keys' weights of
// coefficient CUBIC_A; EXCLUDE zeroes the taps outside the input and
// renormalises. n fits 31 bits here (the host keeps wide axes off cubic).
void cubic_taps(uint c, uint a, uint bl, uint cm, uint in_dim, out int id0, out float w[4]) {
  int icm = int(cm), n = int(c * a + bl);
  n = clamp(n, -2 * icm, (int(in_dim) + 2) * icm);
  int nm = n - 1;
  int left = nm >= 0 ? nm / icm : -((-nm + icm - 1) / icm);
  float r = float(n - left * icm) / float(cm), s = 1.0 - r, A = CUBIC_A;
  w[0] = ((A * (r + 1.0) - 5.0 * A) * (r + 1.0) + 8.0 * A) * (r + 1.0) - 4.0 * A;
  w[1] = ((A + 2.0) * r - (A + 3.0)) * r * r + 1.0;
  w[2] = ((A + 2.0) * s - (A + 3.0)) * s * s + 1.0;
  w[3] = ((A * (s + 1.0) - 5.0 * A) * (s + 1.0) + 8.0 * A) * (s + 1.0) - 4.0 * A;
  id0 = left - 1;
#if EXCLUDE
  float sum = 0.0;
  for (int t = 0; t < 4; t++) {
    if (id0 + t < 0 || id0 + t >= int(in_dim)) w[t] = 0.0;
    sum += w[t];
  }
  if (sum != 0.0)
    for (int t = 0; t < 4; t++) w[t] /= sum;
#endif
}
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= N) return;
    uint r = u, c, i0;
    int off = BASE;
    float frac;
#if CUBIC
    // the taps' corners over the resized axes (at most two: 16), as linear's
    int nc = 1;
    int coff[16];
    float cw[16];
    coff[0] = 0;
    cw[0] = 1.0;
#define MAP(k)
#define RESIZED(k)                                                            \
    {                                                                         \
      int id0;                                                                \
      float w4[4];                                                            \
      cubic_taps(c, A##k, BL##k, C##k, I##k, id0, w4);                        \
      for (int j = 0; j < nc; j++) {                                          \
        int o0 = coff[j];                                                     \
        float w0 = cw[j];                                                     \
        for (int t = 0; t < 4; t++) {                                         \
          int idx = clamp(id0 + t, 0, int(I##k) - 1);                         \
          coff[j + t * nc] = o0 + idx * int(S##k);                            \
          cw[j + t * nc] = w0 * w4[t];                                        \
        }                                                                     \
      }                                                                       \
      nc *= 4;                                                                \
    }
#elif LINEAR
    // the corners of the resized axes: offsets and weights (a corner of
    // weight 0 is never read, as the reference drops zero weights)
    int nc = 1;
    int coff[16];
    float cw[16];
    coff[0] = 0;
    cw[0] = 1.0;
#define MAP(k) axis_map(W##k, c, A##k, BL##k, BH##k, C##k, I##k, i0, frac);
#define RESIZED(k)                                                            \
    for (int j = 0; j < nc; j++) {                                            \
      coff[j + nc] = coff[j] + int((frac > 0.0 ? i0 + 1u : i0) * S##k);       \
      cw[j + nc] = cw[j] * frac;                                              \
      coff[j] += int(i0 * S##k);                                              \
      cw[j] *= 1.0 - frac;                                                    \
    }                                                                         \
    nc *= 2;
#else
#define MAP(k) axis_map(W##k, c, A##k, BL##k, BH##k, C##k, I##k, i0, frac);
#define RESIZED(k) off += int(i0 * S##k);
#endif
#define STEP(k)                                                               \
    if (RANK > k) {                                                           \
      c = RANK == k + 1 ? r : r % D##k;                                       \
      r = r / D##k;                                                           \
      if (C##k == 0u) {                                                       \
        off += int(c * S##k);                                                 \
      } else {                                                                \
        MAP(k)                                                                \
        RESIZED(k)                                                            \
      }                                                                       \
    }
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
#undef MAP
#undef RESIZED
#if LINEAR
    float acc = 0.0;
    for (int j = 0; j < nc; j++)
      if (cw[j] != 0.0) acc += cw[j] * float(x[off + coff[j]]);
    y[u] = U(acc);
#else
    y[u] = x[off];
#endif
  }
}
