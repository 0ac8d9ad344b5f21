#version 450
// fused_elementwise (codegen/kernels/fused.c instantiates it): a program of float
// unary / binary ops (ir/params.h ir_fused_program) per output element, the
// inputs read with NumPy broadcasting.
//
// Bindings: 0..NIN-1 = the inputs, NIN = out; dense C-order tensors of
//   dtype DT (0 f32, 1 f16: 16-bit storage), fp32 arithmetic throughout
//   (f16 is converted on load and rounded once on store).
// Knobs (#defines): WG_SIZE (invocations per workgroup), EPI (elements per
//   invocation, each WG_SIZE elements apart).
// Baked per workload (#defines): DT, NIN, and the program: N_INSTR and per
//   slot s < N_INSTR a code C<s> = op | a << 8 | b << 16 | act << 24 (op: a
//   unary.glsl code below 64, or 64 + add sub mul div pow prelu min max;
//   a, b: registers, inputs first; a unary op has b = a). The slots are
//   unrolled and the register file indexed by constants, so the optimizer
//   folds each slot's op switch: the module holds straight-line code.
// Baked per shape (specialization constants): the element count, the
//   output dims after merging axes contiguous in every input (innermost
//   first), per input an addressing mode (0 strided, 1 as out, 2 one
//   element) and its strides, and per slot two floats PA<s>, PB<s> (the
//   op's or the act's scalars).

#if DT == 1
#extension GL_EXT_shader_16bit_storage : require
#define ST float16_t
#else
#define ST float
#endif

#define MAX_INSTR 16

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;       // output elements
layout(constant_id = 1) const uint RANK = 0;    // merged axes (<= 8)
layout(constant_id = 8) const uint D0 = 1;
layout(constant_id = 9) const uint D1 = 1;
layout(constant_id = 10) const uint D2 = 1;
layout(constant_id = 11) const uint D3 = 1;
layout(constant_id = 12) const uint D4 = 1;
layout(constant_id = 13) const uint D5 = 1;
layout(constant_id = 14) const uint D6 = 1;
layout(constant_id = 15) const uint D7 = 1;

// Input k (< 8): mode M<k>, strides S<k>_<j> along the merged axes.
layout(constant_id = 16) const uint M0 = 1;
layout(constant_id = 17) const uint M1 = 1;
layout(constant_id = 18) const uint M2 = 1;
layout(constant_id = 19) const uint M3 = 1;
layout(constant_id = 20) const uint M4 = 1;
layout(constant_id = 21) const uint M5 = 1;
layout(constant_id = 22) const uint M6 = 1;
layout(constant_id = 23) const uint M7 = 1;
layout(constant_id = 72) const uint S0_0 = 0;
layout(constant_id = 73) const uint S0_1 = 0;
layout(constant_id = 74) const uint S0_2 = 0;
layout(constant_id = 75) const uint S0_3 = 0;
layout(constant_id = 76) const uint S0_4 = 0;
layout(constant_id = 77) const uint S0_5 = 0;
layout(constant_id = 78) const uint S0_6 = 0;
layout(constant_id = 79) const uint S0_7 = 0;
layout(constant_id = 80) const uint S1_0 = 0;
layout(constant_id = 81) const uint S1_1 = 0;
layout(constant_id = 82) const uint S1_2 = 0;
layout(constant_id = 83) const uint S1_3 = 0;
layout(constant_id = 84) const uint S1_4 = 0;
layout(constant_id = 85) const uint S1_5 = 0;
layout(constant_id = 86) const uint S1_6 = 0;
layout(constant_id = 87) const uint S1_7 = 0;
layout(constant_id = 88) const uint S2_0 = 0;
layout(constant_id = 89) const uint S2_1 = 0;
layout(constant_id = 90) const uint S2_2 = 0;
layout(constant_id = 91) const uint S2_3 = 0;
layout(constant_id = 92) const uint S2_4 = 0;
layout(constant_id = 93) const uint S2_5 = 0;
layout(constant_id = 94) const uint S2_6 = 0;
layout(constant_id = 95) const uint S2_7 = 0;
layout(constant_id = 96) const uint S3_0 = 0;
layout(constant_id = 97) const uint S3_1 = 0;
layout(constant_id = 98) const uint S3_2 = 0;
layout(constant_id = 99) const uint S3_3 = 0;
layout(constant_id = 100) const uint S3_4 = 0;
layout(constant_id = 101) const uint S3_5 = 0;
layout(constant_id = 102) const uint S3_6 = 0;
layout(constant_id = 103) const uint S3_7 = 0;
layout(constant_id = 104) const uint S4_0 = 0;
layout(constant_id = 105) const uint S4_1 = 0;
layout(constant_id = 106) const uint S4_2 = 0;
layout(constant_id = 107) const uint S4_3 = 0;
layout(constant_id = 108) const uint S4_4 = 0;
layout(constant_id = 109) const uint S4_5 = 0;
layout(constant_id = 110) const uint S4_6 = 0;
layout(constant_id = 111) const uint S4_7 = 0;
layout(constant_id = 112) const uint S5_0 = 0;
layout(constant_id = 113) const uint S5_1 = 0;
layout(constant_id = 114) const uint S5_2 = 0;
layout(constant_id = 115) const uint S5_3 = 0;
layout(constant_id = 116) const uint S5_4 = 0;
layout(constant_id = 117) const uint S5_5 = 0;
layout(constant_id = 118) const uint S5_6 = 0;
layout(constant_id = 119) const uint S5_7 = 0;
layout(constant_id = 120) const uint S6_0 = 0;
layout(constant_id = 121) const uint S6_1 = 0;
layout(constant_id = 122) const uint S6_2 = 0;
layout(constant_id = 123) const uint S6_3 = 0;
layout(constant_id = 124) const uint S6_4 = 0;
layout(constant_id = 125) const uint S6_5 = 0;
layout(constant_id = 126) const uint S6_6 = 0;
layout(constant_id = 127) const uint S6_7 = 0;
layout(constant_id = 128) const uint S7_0 = 0;
layout(constant_id = 129) const uint S7_1 = 0;
layout(constant_id = 130) const uint S7_2 = 0;
layout(constant_id = 131) const uint S7_3 = 0;
layout(constant_id = 132) const uint S7_4 = 0;
layout(constant_id = 133) const uint S7_5 = 0;
layout(constant_id = 134) const uint S7_6 = 0;
layout(constant_id = 135) const uint S7_7 = 0;
#define INPUT(k) layout(binding = k, std430) readonly buffer I##k { ST i##k[]; };

INPUT(0)
#if NIN > 1
INPUT(1)
#endif
#if NIN > 2
INPUT(2)
#endif
#if NIN > 3
INPUT(3)
#endif
#if NIN > 4
INPUT(4)
#endif
#if NIN > 5
INPUT(5)
#endif
#if NIN > 6
INPUT(6)
#endif
#if NIN > 7
INPUT(7)
#endif
layout(binding = NIN, std430) writeonly buffer O { ST o[]; };

// Slot s (< 16): scalars PA<s>, PB<s>; its code C<s> is a #define.
layout(constant_id = 40) const float PA0 = 0.0;
layout(constant_id = 41) const float PB0 = 0.0;
layout(constant_id = 42) const float PA1 = 0.0;
layout(constant_id = 43) const float PB1 = 0.0;
layout(constant_id = 44) const float PA2 = 0.0;
layout(constant_id = 45) const float PB2 = 0.0;
layout(constant_id = 46) const float PA3 = 0.0;
layout(constant_id = 47) const float PB3 = 0.0;
layout(constant_id = 48) const float PA4 = 0.0;
layout(constant_id = 49) const float PB4 = 0.0;
layout(constant_id = 50) const float PA5 = 0.0;
layout(constant_id = 51) const float PB5 = 0.0;
layout(constant_id = 52) const float PA6 = 0.0;
layout(constant_id = 53) const float PB6 = 0.0;
layout(constant_id = 54) const float PA7 = 0.0;
layout(constant_id = 55) const float PB7 = 0.0;
layout(constant_id = 56) const float PA8 = 0.0;
layout(constant_id = 57) const float PB8 = 0.0;
layout(constant_id = 58) const float PA9 = 0.0;
layout(constant_id = 59) const float PB9 = 0.0;
layout(constant_id = 60) const float PA10 = 0.0;
layout(constant_id = 61) const float PB10 = 0.0;
layout(constant_id = 62) const float PA11 = 0.0;
layout(constant_id = 63) const float PB11 = 0.0;
layout(constant_id = 64) const float PA12 = 0.0;
layout(constant_id = 65) const float PB12 = 0.0;
layout(constant_id = 66) const float PA13 = 0.0;
layout(constant_id = 67) const float PB13 = 0.0;
layout(constant_id = 68) const float PA14 = 0.0;
layout(constant_id = 69) const float PB14 = 0.0;
layout(constant_id = 70) const float PA15 = 0.0;
layout(constant_id = 71) const float PB15 = 0.0;

#include "act.glsl"   // act_by
#include "unary.glsl" // unary_f (math.glsl: pow_)

// ---- addressing (as elementwise_nary.comp) ----------------------------------

void coords(uint i, out uint c[8]) {
  uint r = i;
#define STEP(j)                                                                \
  c[j] = 0;                                                                    \
  if (RANK > j) {                                                              \
    c[j] = r % D##j;                                                           \
    r = r / D##j;                                                              \
  }
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
}

uint off(uint i, uint c[8], uint m, uint s0, uint s1, uint s2, uint s3, uint s4, uint s5,
         uint s6, uint s7) {
  if (m == 1) return i;
  if (m == 2) return 0;
  return c[0] * s0 + c[1] * s1 + c[2] * s2 + c[3] * s3 + c[4] * s4 + c[5] * s5 + c[6] * s6 +
         c[7] * s7;
}
#define LOAD(k) float(i##k[off(i, c, M##k, S##k##_0, S##k##_1, S##k##_2, S##k##_3, S##k##_4, \
                                S##k##_5, S##k##_6, S##k##_7)])

// ---- one instruction ---------------------------------------------------------

// The reference's scalar functions: runtime/cpu/k_unary.c, k_binary.c.
float instr(uint code, float x, float y, float pa, float pb) {
  uint op = code & 255u;
  if (op < 64u) return unary_f(op, x, pa, pb, pb); // selu's gamma and a beta are pb
  float v;
  switch (int(op) - 64) {
  case 0: v = x + y; break;
  case 1: v = x - y; break;
  case 2: v = x * y; break;
  case 3: v = div_(x, y); break;
  case 4: return pow_(x, y);
  case 5: return x < 0.0 ? y * x : x; // prelu; NaN passes
  case 6: // min, max: NaN propagates, as numpy.minimum
    if (isnan(y)) return y;
    if (isnan(x)) return x;
    return y < x ? y : x;
  case 7:
    if (isnan(y)) return y;
    if (isnan(x)) return x;
    return y > x ? y : x;
  default: return x;
  }
  return act_by(code >> 24, v, pa, pb);
}

// ---- main --------------------------------------------------------------------

float element(uint i) {
  uint c[8];
  coords(i, c);
  float r[NIN + N_INSTR];
  r[0] = LOAD(0);
#if NIN > 1
  r[1] = LOAD(1);
#endif
#if NIN > 2
  r[2] = LOAD(2);
#endif
#if NIN > 3
  r[3] = LOAD(3);
#endif
#if NIN > 4
  r[4] = LOAD(4);
#endif
#if NIN > 5
  r[5] = LOAD(5);
#endif
#if NIN > 6
  r[6] = LOAD(6);
#endif
#if NIN > 7
  r[7] = LOAD(7);
#endif
#define EXEC(s)                                                                \
  r[NIN + s] = instr(C##s, r[(C##s >> 8) & 255u], r[(C##s >> 16) & 255u], PA##s, PB##s);
#if N_INSTR > 0
  EXEC(0)
#endif
#if N_INSTR > 1
  EXEC(1)
#endif
#if N_INSTR > 2
  EXEC(2)
#endif
#if N_INSTR > 3
  EXEC(3)
#endif
#if N_INSTR > 4
  EXEC(4)
#endif
#if N_INSTR > 5
  EXEC(5)
#endif
#if N_INSTR > 6
  EXEC(6)
#endif
#if N_INSTR > 7
  EXEC(7)
#endif
#if N_INSTR > 8
  EXEC(8)
#endif
#if N_INSTR > 9
  EXEC(9)
#endif
#if N_INSTR > 10
  EXEC(10)
#endif
#if N_INSTR > 11
  EXEC(11)
#endif
#if N_INSTR > 12
  EXEC(12)
#endif
#if N_INSTR > 13
  EXEC(13)
#endif
#if N_INSTR > 14
  EXEC(14)
#endif
#if N_INSTR > 15
  EXEC(15)
#endif
#undef EXEC
  return r[NIN + N_INSTR - 1];
}

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  for (uint ch = 0; ch < EPI; ch++) {
    uint i = (group * EPI + ch) * WG_SIZE + gl_LocalInvocationID.x;
    if (i >= N) break;
    o[i] = ST(element(i));
  }
}
