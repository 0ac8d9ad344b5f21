#version 450
// Elementwise binary op with NumPy broadcasting and a fused activation:
//   out[i] = ACT(a[ia(i)] OP b[ib(i)])      (codegen/kernels/binary.c instantiates it)
//
// Bindings: 0 = a, 1 = b, 2 = out, dense C-order tensors of DTYPE.
// Knobs (#defines): WG_SIZE (invocations per workgroup), EPI (elements per
//   invocation: vectors of VW = min(EPI, 4) elements, EPI / VW of them, each
//   chunk WG_SIZE vectors apart so neighbouring invocations touch
//   neighbouring memory).
// Baked per workload (#defines): OP, ACT, DTYPE_F16.
// Baked per shape (specialization constants): the element count, the output
//   dims after merging contiguous axes (innermost first), each input's
//   element strides along them (0 = broadcast), an addressing mode per input
//   and whether the vector path applies (host checks that a vector never
//   crosses the innermost axis and every input's innermost stride is 0 or 1).
// Packed (#define PACKED, absent = 0): a, b and out are rank-4 tensors of
//   one shape in nc4hw4 (ir/graph.h), addressed as flat buffers of N packed
//   elements; the lanes of channels >= C (specialization constants PK_C,
//   PK_C4, PK_HW) are written 0 whatever the op and act make of them.
// Arithmetic is fp32 (fp16 data is converted on load and rounded on store).

#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define T2 f16vec2
#define T4 f16vec4
#else
#define T float
#define T2 vec2
#define T4 vec4
#endif

#if EPI >= 4
#define VW 4
#define TV T4
#define FV vec4
#elif EPI == 2
#define VW 2
#define TV T2
#define FV vec2
#else
#define VW 1
#define TV T
#define FV float
#endif
#define CHUNKS (EPI / VW)

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;      // output elements
layout(constant_id = 1) const uint RANK = 0;   // merged axes (<= 8)
layout(constant_id = 2) const uint A_MODE = 0; // 0 strided, 1 same as out, 2 scalar
layout(constant_id = 3) const uint B_MODE = 0;
layout(constant_id = 4) const bool VEC_OK = false;
layout(constant_id = 5) const float ACT_ALPHA = 0.0;
layout(constant_id = 6) const float ACT_BETA = 0.0;
layout(constant_id = 8) const uint D0 = 1;
layout(constant_id = 9) const uint D1 = 1;
layout(constant_id = 10) const uint D2 = 1;
layout(constant_id = 11) const uint D3 = 1;
layout(constant_id = 12) const uint D4 = 1;
layout(constant_id = 13) const uint D5 = 1;
layout(constant_id = 14) const uint D6 = 1;
layout(constant_id = 15) const uint D7 = 1;
layout(constant_id = 16) const uint SA0 = 0;
layout(constant_id = 17) const uint SA1 = 0;
layout(constant_id = 18) const uint SA2 = 0;
layout(constant_id = 19) const uint SA3 = 0;
layout(constant_id = 20) const uint SA4 = 0;
layout(constant_id = 21) const uint SA5 = 0;
layout(constant_id = 22) const uint SA6 = 0;
layout(constant_id = 23) const uint SA7 = 0;
layout(constant_id = 24) const uint SB0 = 0;
layout(constant_id = 25) const uint SB1 = 0;
layout(constant_id = 26) const uint SB2 = 0;
layout(constant_id = 27) const uint SB3 = 0;
layout(constant_id = 28) const uint SB4 = 0;
layout(constant_id = 29) const uint SB5 = 0;
layout(constant_id = 30) const uint SB6 = 0;
layout(constant_id = 31) const uint SB7 = 0;

#ifndef PACKED
#define PACKED 0
#endif
#if PACKED
layout(constant_id = 32) const uint PK_C = 4;
layout(constant_id = 33) const uint PK_C4 = 1;
layout(constant_id = 34) const uint PK_HW = 1;
// element i of a packed buffer holds channel ((i / 4 / HW) % C4) * 4 + i % 4
bool pad_lane(uint i) { return PK_C % 4 != 0 && ((i >> 2) / PK_HW) % PK_C4 * 4 + (i & 3) >= PK_C; }
#endif

// The same bindings seen as scalars and as vectors.
layout(binding = 0, std430) readonly buffer A1 { T a1[]; };
layout(binding = 0, std430) readonly buffer AV { TV av[]; };
layout(binding = 1, std430) readonly buffer B1 { T b1[]; };
layout(binding = 1, std430) readonly buffer BV { TV bv[]; };
layout(binding = 2, std430) writeonly buffer O1 { T o1[]; };
layout(binding = 2, std430) writeonly buffer OV { TV ov[]; };
#ifndef EXTENT_CHECK
#define EXTENT_CHECK 0
#endif
#if EXTENT_CHECK // bounded a and b (codegen/core/extent.c): binding 3 the error slot
#define EXTENT_INPUTS 2
#define EXTENT_ERROR_BINDING 3
#include "extent_check.glsl"
#endif

// ---- the operation ---------------------------------------------------------

#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_MIN 4
#define OP_MAX 5

#include "math.glsl" // div_: the correctly rounded quotient

float op(float x, float y) {
#if OP == OP_ADD
  return x + y;
#elif OP == OP_SUB
  return x - y;
#elif OP == OP_MUL
  return x * y;
#elif OP == OP_DIV
  return div_(x, y);
#elif OP == OP_MIN
  // NaN propagates, as the reference (numpy.minimum)
  return isnan(x) || isnan(y) ? x + y : (y < x ? y : x);
#elif OP == OP_MAX
  return isnan(x) || isnan(y) ? x + y : (y > x ? y : x);
#endif
}

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

FV apply(FV x, FV y) {
#if VW == 1
  return act(op(x, y));
#else
  FV r;
  for (int k = 0; k < VW; k++) r[k] = act(op(x[k], y[k]));
  return r;
#endif
}

// Zero in the pad lanes of a packed output (elements i, i+1, ...).
FV mask_pad(FV r, uint i) {
#if PACKED && VW == 1
  if (pad_lane(i)) r = 0.0;
#elif PACKED
  for (int k = 0; k < VW; k++)
    if (pad_lane(i + k)) r[k] = 0.0;
#endif
  return r;
}
float mask_pad1(float r, uint i) {
#if PACKED
  if (pad_lane(i)) r = 0.0;
#endif
  return r;
}

// ---- addressing --------------------------------------------------------------

// Element offsets of a and b for output element i. Folded by the driver
// once the specialization constants are known.
void offsets(uint i, out uint oa, out uint ob) {
  oa = 0;
  ob = 0;
  if (A_MODE != 0 && B_MODE != 0) {
    oa = A_MODE == 1 ? i : 0;
    ob = B_MODE == 1 ? i : 0;
    return;
  }
  uint r = i, c;
#define STEP(k)                   \
  if (RANK > k) {                 \
    c = r % D##k;                 \
    r = r / D##k;                 \
    oa += c * SA##k;              \
    ob += c * SB##k;              \
  }
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
  if (A_MODE == 1) oa = i;
  if (A_MODE == 2) oa = 0;
  if (B_MODE == 1) ob = i;
  if (B_MODE == 2) ob = 0;
}

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint lane = gl_LocalInvocationID.x;
#if EXTENT_CHECK
  check_extents();
#endif
  if (VEC_OK) {
    // vectors v = group * WG_SIZE * CHUNKS + c * WG_SIZE + lane
    for (uint c = 0; c < CHUNKS; c++) {
      uint v = (group * CHUNKS + c) * WG_SIZE + lane;
      uint i = v * VW;
      if (i >= N) return;
      uint oa, ob;
      offsets(i, oa, ob);
      // an input whose innermost stride is 0 repeats one element along the vector
      FV x = (A_MODE == 2 || (A_MODE == 0 && SA0 == 0)) ? FV(float(a1[oa])) : FV(av[oa / VW]);
      FV y = (B_MODE == 2 || (B_MODE == 0 && SB0 == 0)) ? FV(float(b1[ob])) : FV(bv[ob / VW]);
      ov[v] = TV(mask_pad(apply(x, y), i));
    }
  } else {
    for (uint c = 0; c < EPI; c++) {
      uint i = (group * EPI + c) * WG_SIZE + lane;
      if (i >= N) return;
      uint oa, ob;
      offsets(i, oa, ob);
      o1[i] = T(mask_pad1(act(op(float(a1[oa]), float(b1[ob]))), i));
    }
  }
}
