#version 450
// Elementwise unary ops and cast on a dense tensor: out[i] = OP(in[i])
// (codegen/kernels/elementwise.c instantiates it).
//
// Bindings: 0 = in (DTI), 1 = out (DTO), dense C-order.
// Knobs (#defines): WG_SIZE (invocations per workgroup), EPI (elements per
//   invocation: vectors of VW = min(EPI, 4) elements, EPI / VW of them, each
//   chunk WG_SIZE vectors apart so that neighbouring invocations touch
//   neighbouring memory).
// Baked per workload (#defines): OP, DTI, DTO (dtype codes below).
// Baked per shape / attribute (specialization constants): the element count,
//   float attributes (alpha, beta, gamma, clip bounds) and the integer clip
//   bounds (two 32-bit words each; the host saturates them to the domain).
// Packed (#define PACKED, absent = 0): the tensor is a rank-4 float tensor
//   in nc4hw4 (ir/graph.h) on both sides, N counts the packed buffer's
//   elements, and the lanes of channels >= C (specialization constants
//   PK_C, PK_C4, PK_HW) are written 0 whatever OP makes of their 0 input.
// Float ops compute in fp32 (f16 is converted on load, rounded on store);
// integer ops in int (i32 i8 u8 bool) or int64_t (i64), wrapping as the
// reference does. The functions below are written to stay within ~1e-6
// relative error of the double-precision reference where the GLSL built-ins
// promise less (log near 1, erf near 0, expm1, hard_sigmoid's root).

// dtype codes: f32 f16 i32 i64 u8 i8 bool
#define DT_F32 0
#define DT_F16 1
#define DT_I32 2
#define DT_I64 3
#define DT_U8 4
#define DT_I8 5
#define DT_BOOL 6

#if DTI == DT_F16 || DTO == DT_F16
#extension GL_EXT_shader_16bit_storage : require
#endif
#if DTI >= DT_U8 || DTO >= DT_U8
#extension GL_EXT_shader_8bit_storage : require
#endif
#if DTI == DT_I64 || DTO == DT_I64
#extension GL_ARB_gpu_shader_int64 : require
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// storage types, their vectors, compute types
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
// storage -> compute (bool: any non-zero byte is true) and back. 8- and
// 16-bit values cannot be locals or arguments without the arithmetic
// extensions, so these apply to buffer reads and writes directly; IVEC,
// UVEC, FVEC are the compute vectors of width VW.
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
#define LDV_0(x) (x)
#define LDV_1(x) FVEC(x)
#define LDV_2(x) (x)
#define LDV_3(x) (x)
#define LDV_4(x) IVEC(UVEC(x))
#define LDV_5(x) IVEC(x)
#define LDV_6(x) IVEC(notEqual(UVEC(x), UVEC(0u)))
#define SVV_0(x) (x)
#define SVV_1(x) VS_1(x)
#define SVV_2(x) (x)
#define SVV_3(x) (x)
#define SVV_4(x) VS_4(UVEC(x))
#define SVV_5(x) VS_5(x)
#define SVV_6(x) VS_6(UVEC(notEqual(x, IVEC(0))))

#define TI CAT(ST_, DTI)
#define TO CAT(ST_, DTO)
#define CTI CAT(CT_, DTI)
#define CTO CAT(CT_, DTO)
#define LDI(x) CAT(LD_, DTI)(x)
#define SVO(x) CAT(SV_, DTO)(x)

#if EPI >= 4
#define VW 4
#elif EPI == 2
#define VW 2
#else
#define VW 1
#endif
// vectors of VW storage (VS_) and compute (CV_) values
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
#endif
#if VW > 1
#define TVI CAT(VS_, DTI)
#define TVO CAT(VS_, DTO)
#define CV_0 FVEC
#define CV_1 FVEC
#define CV_2 IVEC
#define CV_3 I64VEC
#define CV_4 IVEC
#define CV_5 IVEC
#define CV_6 IVEC
#define CVI CAT(CV_, DTI)
#define CVO CAT(CV_, DTO)
#define LDVI(x) CAT(LDV_, DTI)(x)
#define SVVO(x) CAT(SVV_, DTO)(x)
#else
#define TVI TI
#define TVO TO
#endif
#define CHUNKS (EPI / VW)

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1; // elements
layout(constant_id = 1) const float ALPHA = 0.0;
layout(constant_id = 2) const float BETA = 0.0;
layout(constant_id = 3) const float GAMMA = 0.0;
layout(constant_id = 4) const uint ILO0 = 0; // integer clip bounds, low / high words
layout(constant_id = 5) const uint ILO1 = 0;
layout(constant_id = 6) const uint IHI0 = 0;
layout(constant_id = 7) const uint IHI1 = 0;
const uint NV = N / VW; // whole vectors; the last N % VW elements are a tail

#ifndef PACKED
#define PACKED 0
#endif
#if PACKED
layout(constant_id = 8) const uint PK_C = 4;
layout(constant_id = 9) const uint PK_C4 = 1;
layout(constant_id = 10) const uint PK_HW = 1;
// element i of the packed buffer holds channel ((i / 4 / HW) % C4) * 4 + i % 4
bool pad_lane(uint i) { return PK_C % 4 != 0 && ((i >> 2) / PK_HW) % PK_C4 * 4 + (i & 3) >= PK_C; }
#define APPLY_AT(x, i) (pad_lane(i) ? SVO(CTO(0)) : APPLY(x))
#else
#define APPLY_AT(x, i) APPLY(x)
#endif

layout(binding = 0, std430) readonly buffer I1 { TI i1[]; };
layout(binding = 0, std430) readonly buffer IV { TVI iv[]; };
layout(binding = 1, std430) writeonly buffer O1 { TO o1[]; };
layout(binding = 1, std430) writeonly buffer OV { TVO ov[]; };

#include "unary.glsl" // OP_RELU ... OP_CLIP, unary_f
#define OP_NOT 21
#define OP_CAST 22

// ---- accurate fp32 helpers --------------------------------------------------



// ---- the operation ------------------------------------------------------------

#if OP == OP_CAST
CTO op1(CTI x) {
#if DTO == DT_BOOL
#if DTI <= DT_F16
  return x == 0.0 ? 0 : 1; // NaN is true, as numpy's astype(bool)
#else
  return x != CTI(0) ? 1 : 0;
#endif
#elif DTI <= DT_F16 && DTO <= DT_F16
  return x;
#elif DTI <= DT_F16
  // truncation toward zero, NaN -> 0, saturated to the target's range
  if (isnan(x)) return CTO(0);
#if DTO == DT_I32
  if (x >= 2147483648.0) return 2147483647;
  if (x <= -2147483648.0) return -2147483647 - 1;
  return int(x);
#elif DTO == DT_I64
  if (x >= 9223372036854775808.0) return 9223372036854775807l;
  if (x <= -9223372036854775808.0) return -9223372036854775807l - 1l;
  return int64_t(x);
#elif DTO == DT_U8
  return int(clamp(trunc(x), 0.0, 255.0));
#else
  return int(clamp(trunc(x), -128.0, 127.0));
#endif
#elif DTO <= DT_F16
  return float(x); // one rounding (i64 included)
#else
  return CTO(x); // integer narrowing wraps, widening extends
#endif
}

#elif OP == OP_NOT
int op1(int x) { return x != 0 ? 0 : 1; }

#elif DTI <= DT_F16
float op1(float x) { return unary_f(OP, x, ALPHA, BETA, GAMMA); }

#else // integer neg abs sign clip, wrapping like the reference
CTI op1(CTI x) {
#if OP == OP_NEG
  return CTI(0) - x;
#elif OP == OP_ABS
  return x < CTI(0) ? CTI(0) - x : x;
#elif OP == OP_SIGN
  return x > CTI(0) ? CTI(1) : (x < CTI(0) ? CTI(-1) : CTI(0));
#elif OP == OP_CLIP
#if DTI == DT_I64
  int64_t lo = packInt2x32(ivec2(ILO0, ILO1));
  int64_t hi = packInt2x32(ivec2(IHI0, IHI1));
#else
  int lo = int(ILO0), hi = int(IHI0);
#endif
  CTI y = x < lo ? lo : x;
  return y > hi ? hi : y;
#endif
}
#endif

#define APPLY(x) SVO(op1(LDI(x)))

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint lane = gl_LocalInvocationID.x;
  for (uint c = 0; c < CHUNKS; c++) {
    uint v = (group * CHUNKS + c) * WG_SIZE + lane;
    if (v >= NV) break;
#if VW == 1
    ov[v] = APPLY_AT(iv[v], v);
#else
    CVI x = LDVI(iv[v]);
    CVO r;
    for (int k = 0; k < VW; k++) r[k] = op1(x[k]);
#if PACKED
    for (int k = 0; k < VW; k++)
      if (pad_lane(v * VW + k)) r[k] = CTO(0);
#endif
    ov[v] = SVVO(r);
#endif
  }
#if VW > 1
  // the last N % VW elements
  if (group == 0 && lane < N - NV * VW) {
    uint i = NV * VW + lane;
    o1[i] = APPLY_AT(i1[i], i);
  }
#endif
}
