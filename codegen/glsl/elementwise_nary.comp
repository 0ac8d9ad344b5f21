#version 450
// Elementwise ops of 1..7 inputs with NumPy broadcasting (codegen/kernels/binary.c
// instantiates it): arithmetic with a fused activation (integer types
// included), pow, prelu, comparisons, and / or, variadic min / max / sum /
// mean, where.
//
// Bindings: 0..NIN-1 = the inputs, NIN = out; dense C-order tensors. Input 0
//   has dtype DTA, the others DTB (they differ only for pow's exponent and
//   where's condition), out DTO.
// Knobs (#defines): WG_SIZE (invocations per workgroup), EPI (elements per
//   invocation: vectors of VW = min(EPI, 4) elements, EPI / VW of them, each
//   chunk WG_SIZE vectors apart).
// Baked per workload (#defines): OP, ACT, NIN, DTA, DTB, DTO (dtype codes as
//   in elementwise_unary.comp), WIDE_I32 (i32 computes in int64_t).
// Baked per shape (specialization constants): the element count, the output
//   dims after merging axes contiguous in every input (innermost first), an
//   addressing mode per input (0 strided, 1 same as out, 2 a single
//   element), the strided inputs' element strides (0 = broadcast), whether
//   the vector path applies (host checks that a vector never crosses the
//   innermost axis and every input's innermost stride is 0 or 1), the
//   activation's constants.
// Floats compute in fp32 (sum / mean compensated, so that cancellation
// costs no accuracy against the double reference); integers in int or
// int64_t (i64), wrapping like the reference.

#define DT_F32 0
#define DT_F16 1
#define DT_I32 2
#define DT_I64 3
#define DT_U8 4
#define DT_I8 5
#define DT_BOOL 6

#if DTA == DT_F16 || DTB == DT_F16 || DTO == DT_F16
#extension GL_EXT_shader_16bit_storage : require
#endif
#if DTA >= DT_U8 || DTB >= DT_U8 || DTO >= DT_U8
#extension GL_EXT_shader_8bit_storage : require
#endif
#if DTA == DT_I64 || DTB == DT_I64 || DTO == DT_I64 || WIDE_I32
#extension GL_ARB_gpu_shader_int64 : require
#endif

#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_POW 4
#define OP_PRELU 5
#define OP_EQUAL 6
#define OP_GREATER 7
#define OP_LESS 8
#define OP_GREATER_OR_EQUAL 9
#define OP_LESS_OR_EQUAL 10
#define OP_AND 11
#define OP_OR 12
#define OP_MIN 13
#define OP_MAX 14
#define OP_SUM 15
#define OP_MEAN 16
#define OP_WHERE 17
#define OP_XOR 18
#define OP_MOD 19 // FMOD: the sign of x, else of y; floats through math.glsl's exact fmod_

// where moves bool bytes unchanged, as the reference's memcpy
#if OP == OP_WHERE && DTB == DT_BOOL
#undef DTB
#define DTB DT_U8
#undef DTO
#define DTO DT_U8
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define ST_0 float
#define ST_1 float16_t
#define ST_2 int
#define ST_3 int64_t
#define ST_4 uint8_t
#define ST_5 int8_t
#define ST_6 uint8_t
#define CT_0 float
#define CT_1 float
#define CT_2 int
#define CT_3 int64_t
#define CT_4 int
#define CT_5 int
#define CT_6 int
// storage -> compute and back, applied to buffer reads and writes directly
// (8- and 16-bit values cannot be locals without the arithmetic extensions)
#define LD_0(x) (x)
#define LD_1(x) float(x)
#define LD_2(x) (x)
#define LD_3(x) (x)
#define LD_4(x) int(uint(x))
#define LD_5(x) int(x)
#define LD_6(x) (uint(x) != 0u ? 1 : 0)
#define SV_0(x) (x)
#define SV_1(x) float16_t(x)
#define SV_2(x) (x)
#define SV_3(x) (x)
#define SV_4(x) uint8_t(uint(x))
#define SV_5(x) int8_t(x)
#define SV_6(x) uint8_t((x) != 0 ? 1u : 0u)

#if EPI >= 4
#define VW 4
#elif EPI == 2
#define VW 2
#else
#define VW 1
#endif
#define CHUNKS (EPI / VW)

#if VW == 4
#define VS_0 vec4
#define VS_1 f16vec4
#define VS_2 ivec4
#define VS_3 i64vec4
#define VS_4 u8vec4
#define VS_5 i8vec4
#define VS_6 u8vec4
#define IVEC ivec4
#define UVEC uvec4
#define FVEC vec4
#define I64VEC i64vec4
#elif VW == 2
#define VS_0 vec2
#define VS_1 f16vec2
#define VS_2 ivec2
#define VS_3 i64vec2
#define VS_4 u8vec2
#define VS_5 i8vec2
#define VS_6 u8vec2
#define IVEC ivec2
#define UVEC uvec2
#define FVEC vec2
#define I64VEC i64vec2
#else
#define VS_0 float
#define VS_1 float16_t
#define VS_2 int
#define VS_3 int64_t
#define VS_4 uint8_t
#define VS_5 int8_t
#define VS_6 uint8_t
#define IVEC int
#define UVEC uint
#define FVEC float
#define I64VEC int64_t
#endif
#define CV_0 FVEC
#define CV_1 FVEC
#define CV_2 IVEC
#define CV_3 I64VEC
#define CV_4 IVEC
#define CV_5 IVEC
#define CV_6 IVEC
#define LDV_0(x) (x)
#define LDV_1(x) FVEC(x)
#define LDV_2(x) (x)
#define LDV_3(x) (x)
#define LDV_4(x) IVEC(UVEC(x))
#define LDV_5(x) IVEC(x)
#define SVV_0(x) (x)
#define SVV_1(x) VS_1(x)
#define SVV_2(x) (x)
#define SVV_3(x) (x)
#define SVV_4(x) VS_4(UVEC(x))
#define SVV_5(x) VS_5(x)
#if VW > 1
#define LDV_6(x) IVEC(notEqual(UVEC(x), UVEC(0u)))
#define SVV_6(x) VS_6(UVEC(notEqual(x, IVEC(0))))
#else
#define LDV_6(x) LD_6(x)
#define SVV_6(x) SV_6(x)
#endif

#if WIDE_I32
// i32 arithmetic with an activation runs in int64_t, as the reference's
// does, so that the activation sees the unwrapped value
#undef CT_2
#undef LD_2
#undef SV_2
#undef CV_2
#undef LDV_2
#undef SVV_2
#define CT_2 int64_t
#define LD_2(x) int64_t(x)
#define SV_2(x) int(x)
#define CV_2 I64VEC
#define LDV_2(x) I64VEC(x)
#define SVV_2(x) VS_2(x)
#endif

#define TA CAT(ST_, DTA)
#define TB CAT(ST_, DTB)
#define TO CAT(ST_, DTO)
#define TVA CAT(VS_, DTA)
#define TVB CAT(VS_, DTB)
#define TVO CAT(VS_, DTO)
#define CA CAT(CT_, DTA)
#define CB CAT(CT_, DTB)
#define CO CAT(CT_, DTO)
#define CVA CAT(CV_, DTA)
#define CVB CAT(CV_, DTB)
#define CVO CAT(CV_, DTO)
#define LDA(x) CAT(LD_, DTA)(x)
#define LDB(x) CAT(LD_, DTB)(x)
#define LDVA(x) CAT(LDV_, DTA)(x)
#define LDVB(x) CAT(LDV_, DTB)(x)
#define SVO(x) CAT(SV_, DTO)(x)
#define SVVO(x) CAT(SVV_, DTO)(x)

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;    // output elements
layout(constant_id = 1) const uint RANK = 0; // merged axes (<= 8)
layout(constant_id = 2) const bool VEC_OK = false;
layout(constant_id = 3) const float ACT_ALPHA = 0.0; // float activation constants
layout(constant_id = 4) const float ACT_BETA = 0.0;
layout(constant_id = 5) const uint ILO0 = 0; // integer clip bounds, low / high words
layout(constant_id = 6) const uint ILO1 = 0;
layout(constant_id = 7) const uint IHI0 = 0;
layout(constant_id = 8) const uint IHI1 = 0;
layout(constant_id = 16) const uint D0 = 1;
layout(constant_id = 17) const uint D1 = 1;
layout(constant_id = 18) const uint D2 = 1;
layout(constant_id = 19) const uint D3 = 1;
layout(constant_id = 20) const uint D4 = 1;
layout(constant_id = 21) const uint D5 = 1;
layout(constant_id = 22) const uint D6 = 1;
layout(constant_id = 23) const uint D7 = 1;
const uint NV = N / VW;

// Input k (< 7): mode M<k>, strides S<k>_<j> along the merged axes.
layout(constant_id = 24) const uint M0 = 1;
layout(constant_id = 25) const uint M1 = 1;
layout(constant_id = 26) const uint M2 = 1;
layout(constant_id = 27) const uint M3 = 1;
layout(constant_id = 28) const uint M4 = 1;
layout(constant_id = 29) const uint M5 = 1;
layout(constant_id = 30) const uint M6 = 1;
layout(constant_id = 32) const uint S0_0 = 0;
layout(constant_id = 33) const uint S0_1 = 0;
layout(constant_id = 34) const uint S0_2 = 0;
layout(constant_id = 35) const uint S0_3 = 0;
layout(constant_id = 36) const uint S0_4 = 0;
layout(constant_id = 37) const uint S0_5 = 0;
layout(constant_id = 38) const uint S0_6 = 0;
layout(constant_id = 39) const uint S0_7 = 0;
layout(constant_id = 40) const uint S1_0 = 0;
layout(constant_id = 41) const uint S1_1 = 0;
layout(constant_id = 42) const uint S1_2 = 0;
layout(constant_id = 43) const uint S1_3 = 0;
layout(constant_id = 44) const uint S1_4 = 0;
layout(constant_id = 45) const uint S1_5 = 0;
layout(constant_id = 46) const uint S1_6 = 0;
layout(constant_id = 47) const uint S1_7 = 0;
layout(constant_id = 48) const uint S2_0 = 0;
layout(constant_id = 49) const uint S2_1 = 0;
layout(constant_id = 50) const uint S2_2 = 0;
layout(constant_id = 51) const uint S2_3 = 0;
layout(constant_id = 52) const uint S2_4 = 0;
layout(constant_id = 53) const uint S2_5 = 0;
layout(constant_id = 54) const uint S2_6 = 0;
layout(constant_id = 55) const uint S2_7 = 0;
layout(constant_id = 56) const uint S3_0 = 0;
layout(constant_id = 57) const uint S3_1 = 0;
layout(constant_id = 58) const uint S3_2 = 0;
layout(constant_id = 59) const uint S3_3 = 0;
layout(constant_id = 60) const uint S3_4 = 0;
layout(constant_id = 61) const uint S3_5 = 0;
layout(constant_id = 62) const uint S3_6 = 0;
layout(constant_id = 63) const uint S3_7 = 0;
layout(constant_id = 64) const uint S4_0 = 0;
layout(constant_id = 65) const uint S4_1 = 0;
layout(constant_id = 66) const uint S4_2 = 0;
layout(constant_id = 67) const uint S4_3 = 0;
layout(constant_id = 68) const uint S4_4 = 0;
layout(constant_id = 69) const uint S4_5 = 0;
layout(constant_id = 70) const uint S4_6 = 0;
layout(constant_id = 71) const uint S4_7 = 0;
layout(constant_id = 72) const uint S5_0 = 0;
layout(constant_id = 73) const uint S5_1 = 0;
layout(constant_id = 74) const uint S5_2 = 0;
layout(constant_id = 75) const uint S5_3 = 0;
layout(constant_id = 76) const uint S5_4 = 0;
layout(constant_id = 77) const uint S5_5 = 0;
layout(constant_id = 78) const uint S5_6 = 0;
layout(constant_id = 79) const uint S5_7 = 0;
layout(constant_id = 80) const uint S6_0 = 0;
layout(constant_id = 81) const uint S6_1 = 0;
layout(constant_id = 82) const uint S6_2 = 0;
layout(constant_id = 83) const uint S6_3 = 0;
layout(constant_id = 84) const uint S6_4 = 0;
layout(constant_id = 85) const uint S6_5 = 0;
layout(constant_id = 86) const uint S6_6 = 0;
layout(constant_id = 87) const uint S6_7 = 0;
#if VW > 1
#define INPUT(k, T, TV)                                                        \
  layout(binding = k, std430) readonly buffer I##k { T i##k[]; };              \
  layout(binding = k, std430) readonly buffer IV##k { TV iv##k[]; };
#else
#define INPUT(k, T, TV)                                                        \
  layout(binding = k, std430) readonly buffer I##k { T i##k[]; };
#endif

INPUT(0, TA, TVA)
#if NIN > 1
INPUT(1, TB, TVB)
#endif
#if NIN > 2
INPUT(2, TB, TVB)
#endif
#if NIN > 3
INPUT(3, TB, TVB)
#endif
#if NIN > 4
INPUT(4, TB, TVB)
#endif
#if NIN > 5
INPUT(5, TB, TVB)
#endif
#if NIN > 6
INPUT(6, TB, TVB)
#endif
layout(binding = NIN, std430) writeonly buffer O1 { TO o1[]; };
#if VW > 1
layout(binding = NIN, std430) writeonly buffer OV { TVO ov[]; };
#endif

// ---- addressing ------------------------------------------------------------

// Output element i -> coordinates along the merged axes (folded by the
// driver once the specialization constants are known).
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
#define OFF(k) off(i, c, M##k, S##k##_0, S##k##_1, S##k##_2, S##k##_3, S##k##_4, S##k##_5, \
                   S##k##_6, S##k##_7)
// one element of input k (a = input 0's dtype, b = the others')
#define EA(k) LDA(i##k[OFF(k)])
#define EB(k) LDB(i##k[OFF(k)])
// a vector of input k: one element repeated when its innermost stride is 0
#define SPLAT(k) (M##k == 2 || (M##k == 0 && S##k##_0 == 0))
#define VA(k) (SPLAT(k) ? CVA(EA(k)) : LDVA(iv##k[OFF(k) / VW]))
#define VB(k) (SPLAT(k) ? CVB(EB(k)) : LDVB(iv##k[OFF(k) / VW]))

// ---- the operation ----------------------------------------------------------

// also for integer outputs: iact below tests ACT against its names
#include "act.glsl" // act(x); math.glsl: expm1_, erf_, pow_ (C's pow, as the reference)

#if DTA > DT_F16 && DTA != DT_BOOL
// The integer activations the host allows: exact relu, relu6, clip.
CA iact(CA v) {
#if ACT == ACT_RELU
  return v < CA(0) ? CA(0) : v;
#elif ACT == ACT_RELU6
  return v < CA(0) ? CA(0) : (v > CA(6) ? CA(6) : v);
#elif ACT == ACT_CLIP
#if DTA == DT_I64 || WIDE_I32
  int64_t lo = packInt2x32(ivec2(ILO0, ILO1)), hi = packInt2x32(ivec2(IHI0, IHI1));
#else
  int lo = int(ILO0), hi = int(IHI0);
#endif
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
#else
  return v;
#endif
}

// base^e wrapping; a negative exponent truncates 1/base^-e (docs/ops.md)
CA ipow(CA base, CB e) {
  if (e < CB(0)) return base == CA(1) ? CA(1) : (base == CA(-1) ? ((e & CB(1)) != CB(0) ? CA(-1) : CA(1)) : CA(0));
  CA r = CA(1);
  while (e != CB(0)) {
    if ((e & CB(1)) != CB(0)) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}
#endif

#if OP <= OP_LESS_OR_EQUAL || OP == OP_MOD
// two inputs: x of DTA, y of DTB
CO binop(CA x, CB y) {
#if OP >= OP_EQUAL && OP <= OP_LESS_OR_EQUAL
#if OP == OP_EQUAL
  return x == y ? 1 : 0;
#elif OP == OP_GREATER
  return x > y ? 1 : 0;
#elif OP == OP_LESS
  return x < y ? 1 : 0;
#elif OP == OP_GREATER_OR_EQUAL
  return x >= y ? 1 : 0;
#else
  return x <= y ? 1 : 0;
#endif
#elif DTA <= DT_F16
#if OP == OP_ADD
  return act(x + y);
#elif OP == OP_SUB
  return act(x - y);
#elif OP == OP_MUL
  return act(x * y);
#elif OP == OP_DIV
  return act(div_(x, y));
#elif OP == OP_POW
  return pow_(x, float(y));
#elif OP == OP_MOD
  // C's fmod (exact), moved to y's sign unless FMOD, as the reference
  float r = fmod_(x, float(y));
  if (FMOD == 0 && r != 0.0 && (r < 0.0) != (float(y) < 0.0)) r += float(y);
  return r;
#else
  return x < 0.0 ? y * x : x; // prelu; NaN passes
#endif
#else // integers, wrapping
#if OP == OP_ADD
  return iact(x + y);
#elif OP == OP_SUB
  return iact(x - y);
#elif OP == OP_MUL
  return iact(x * y);
#elif OP == OP_DIV
  // truncating; / 0 is 0 and / -1 wraps, as the reference defines them
  return iact(y == CB(0) ? CA(0) : (y == CB(-1) ? CA(0) - x : x / y));
#elif OP == OP_POW
  return ipow(x, y);
#elif OP == OP_MOD
  // % 0 is 0, as the reference; the truncating quotient (OpSDiv) gives the
  // remainder with x's sign, moved to y's unless FMOD
  if (y == CB(0) || y == CB(-1)) return CA(0);
  CA r = x - (x / y) * y;
  if (FMOD == 0 && r != CA(0) && (r < CA(0)) != (y < CB(0))) r += y;
  return r;
#else
  return x < CA(0) ? y * x : x;
#endif
#endif
}
#endif

#if OP == OP_SUM || OP == OP_MEAN
#if DTA <= DT_F16
// Knuth's two-sum: s + comp carries the sum to about twice fp32's precision.
void acc_add(inout float s, inout float comp, float x) {
  precise float t = s + x;
  precise float bb = t - s;
  precise float err = (s - (t - bb)) + (x - bb);
  comp += err;
  s = t;
}
#endif
#endif

#if OP == OP_MIN || OP == OP_MAX
CA mm(CA acc, CA v) {
#if DTA <= DT_F16
  if (isnan(v)) return v; // NaN propagates, as numpy.minimum
  if (isnan(acc)) return acc;
#endif
#if OP == OP_MIN
  return v < acc ? v : acc;
#else
  return v > acc ? v : acc;
#endif
}
#endif

// Value of output element i from the element loaders E0..E6 (E0 of DTA).
#if OP <= OP_LESS_OR_EQUAL || OP == OP_MOD
#define COMPUTE(E0, E1, E2, E3, E4, E5, E6) binop(E0, E1)
#elif OP == OP_AND
#define COMPUTE(E0, E1, E2, E3, E4, E5, E6) ((E0 != 0 && E1 != 0) ? 1 : 0)
#elif OP == OP_OR
#define COMPUTE(E0, E1, E2, E3, E4, E5, E6) ((E0 != 0 || E1 != 0) ? 1 : 0)
#elif OP == OP_WHERE
#define COMPUTE(E0, E1, E2, E3, E4, E5, E6) (E0 != 0 ? E1 : E2)
#elif OP == OP_XOR
#define COMPUTE(E0, E1, E2, E3, E4, E5, E6) (((E0 != 0) != (E1 != 0)) ? 1 : 0)
#endif

// ---- main -------------------------------------------------------------------

// Scalar: output element i.
CO element(uint i) {
  uint c[8];
  coords(i, c);
#if OP >= OP_MIN && OP <= OP_MEAN
  CA acc = EA(0);
#if (OP == OP_SUM || OP == OP_MEAN) && DTA <= DT_F16
  float comp = 0.0;
#define FOLD(k) acc_add(acc, comp, EA(k));
#elif OP == OP_SUM || OP == OP_MEAN
#define FOLD(k) acc += EB(k);
#else
#define FOLD(k) acc = mm(acc, EB(k));
#endif
#if NIN > 1
  FOLD(1)
#endif
#if NIN > 2
  FOLD(2)
#endif
#if NIN > 3
  FOLD(3)
#endif
#if NIN > 4
  FOLD(4)
#endif
#if NIN > 5
  FOLD(5)
#endif
#if NIN > 6
  FOLD(6)
#endif
#undef FOLD
#if (OP == OP_SUM || OP == OP_MEAN) && DTA <= DT_F16
  if (!isinf(acc) && !isnan(acc)) acc += comp;
#endif
#if OP == OP_MEAN
  acc /= float(NIN);
#endif
  return acc;
#elif NIN == 3
  return COMPUTE(EA(0), EB(1), EB(2), 0, 0, 0, 0);
#elif NIN == 2
  return COMPUTE(EA(0), EB(1), 0, 0, 0, 0, 0);
#endif
}

#if VW > 1
// Vector: VW consecutive outputs starting at i (within one innermost row).
CVO vector(uint i) {
  uint c[8];
  coords(i, c);
  CVA a = VA(0);
#if OP >= OP_MIN && OP <= OP_MEAN
  CVO r = a;
#if (OP == OP_SUM || OP == OP_MEAN) && DTA <= DT_F16
  FVEC comp = FVEC(0.0);
#define FOLD(k)                                                                \
  {                                                                            \
    CVB b = VB(k);                                                             \
    for (int q = 0; q < VW; q++) acc_add(r[q], comp[q], b[q]);                \
  }
#elif OP == OP_SUM || OP == OP_MEAN
#define FOLD(k) r += VB(k);
#else
#define FOLD(k)                                                                \
  {                                                                            \
    CVB b = VB(k);                                                             \
    for (int q = 0; q < VW; q++) r[q] = mm(r[q], b[q]);                        \
  }
#endif
#if NIN > 1
  FOLD(1)
#endif
#if NIN > 2
  FOLD(2)
#endif
#if NIN > 3
  FOLD(3)
#endif
#if NIN > 4
  FOLD(4)
#endif
#if NIN > 5
  FOLD(5)
#endif
#if NIN > 6
  FOLD(6)
#endif
#undef FOLD
#if (OP == OP_SUM || OP == OP_MEAN) && DTA <= DT_F16
  for (int q = 0; q < VW; q++)
    if (!isinf(r[q]) && !isnan(r[q])) r[q] += comp[q];
#endif
#if OP == OP_MEAN
  r /= float(NIN);
#endif
  return r;
#else
  CVB b1 = VB(1);
#if NIN > 2
  CVB b2 = VB(2);
#endif
  CVO r;
  for (int q = 0; q < VW; q++) {
#if NIN > 2
    r[q] = COMPUTE(a[q], b1[q], b2[q], 0, 0, 0, 0);
#else
    r[q] = COMPUTE(a[q], b1[q], 0, 0, 0, 0, 0);
#endif
  }
  return r;
#endif
}
#endif

#ifndef EXTENT_CHECK
#define EXTENT_CHECK 0
#endif
#if EXTENT_CHECK // bounded inputs (codegen/core/extent.c): binding NIN + 1 the error slot
#define EXTENT_INPUTS NIN
#define EXTENT_ERROR_BINDING (NIN + 1)
#include "extent_check.glsl"
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint lane = gl_LocalInvocationID.x;
#if EXTENT_CHECK
  check_extents();
#endif
#if VW > 1
  if (VEC_OK) {
    for (uint ch = 0; ch < CHUNKS; ch++) {
      uint v = (group * CHUNKS + ch) * WG_SIZE + lane;
      if (v >= NV) break;
      ov[v] = SVVO(vector(v * VW));
    }
    // the last N % VW elements (only when every input is contiguous or single)
    if (group == 0 && lane < N - NV * VW) {
      uint i = NV * VW + lane;
      o1[i] = SVO(element(i));
    }
    return;
  }
#endif
  for (uint ch = 0; ch < EPI; ch++) {
    uint i = (group * EPI + ch) * WG_SIZE + lane;
    if (i >= N) break;
    o1[i] = SVO(element(i));
  }
}
