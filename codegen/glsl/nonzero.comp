#version 450
// NonZero's GPU stages (codegen/kernels/nonzero.c; passes/pass_split_nonzero.c
// puts an exclusive cumsum of the flags between them): the positions of
// x's non-zero elements in row-major order, as numpy's nonzero (NaN is
// non-zero, -0 is zero), compacted through the scan.
//
// STAGE 0, flags: F[p] = 1 where x[p] is non-zero, else 0.
//   Bindings: 0 = x (DTYPE), 1 = flags (i32).
// STAGE 1, write: the element at p, non-zero, is column O[p] (the
//   exclusive cumsum of the flags) of the output i64[RANK, count], count
//   = O[N-1] + flag(N-1) read from the offsets, so no host round trip sits
//   between the stages; the first invocation writes count as the bounded
//   output's extent (the extent ABI, extent.glsl).
//   Bindings: 0 = x, 1 = offsets (i32), 2 = output (i64 as word pairs).
//
// A bounded x (its rows leading: ir/graph.h) holds its run-time count of
// rows of ROW elements as a prefix of its capacity; the elements past them
// count as zeros, so both stages read the count.
//
// Knob (#define): WG_SIZE. Baked per workload: STAGE, DTYPE (0 f32, 1 f16,
//   2 i32, 3 i64, 4 bytes: bool, u8, i8) (#defines); N (the capacity's
//   elements), RANK, the dims D0..D7 (the capacity's), GX, ROW
//   (specialization constants).

#if DTYPE == 1
#extension GL_EXT_shader_16bit_storage : require
#define ST float16_t
#elif DTYPE == 2
#define ST int
#elif DTYPE == 3
#define ST uvec2
#elif DTYPE == 4
#define ST uint // bool, u8, i8: four bytes a word (no 8-bit storage needed)
#else
#define ST float
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint RANK = 1;
layout(constant_id = 2) const uint D0 = 1;
layout(constant_id = 3) const uint D1 = 1;
layout(constant_id = 4) const uint D2 = 1;
layout(constant_id = 5) const uint D3 = 1;
layout(constant_id = 6) const uint D4 = 1;
layout(constant_id = 7) const uint D5 = 1;
layout(constant_id = 8) const uint D6 = 1;
layout(constant_id = 9) const uint D7 = 1;
layout(constant_id = 10) const uint GX = 1;
layout(constant_id = 12) const uint ROW = 1;

layout(set = 0, binding = 0) readonly buffer Xb { ST X[]; };
#include "extent.glsl"
uint live; // x's live elements
#if STAGE == 0
layout(set = 0, binding = 1) writeonly buffer Fb { int F[]; };
#else
layout(set = 0, binding = 1) readonly buffer Ob { int O[]; };
layout(set = 0, binding = 2) writeonly buffer Yb { uvec2 Y[]; };
#endif

bool nonzero(uint p) {
  if (p >= live) return false;
#if DTYPE == 4
  return ((X[p >> 2] >> ((p & 3u) * 8u)) & 0xffu) != 0u;
#elif DTYPE == 3
  return X[p] != uvec2(0u);
#elif DTYPE == 2
  return X[p] != 0;
#else
  float v = float(X[p]);
  return !(v == 0.0); // NaN is non-zero
#endif
}

uint dim(uint d) {
  return d == 0u ? D0 : d == 1u ? D1 : d == 2u ? D2 : d == 3u ? D3
       : d == 4u ? D4 : d == 5u ? D5 : d == 6u ? D6 : D7;
}

void main() {
  uint p = (gl_WorkGroupID.y * GX + gl_WorkGroupID.x) * WG_SIZE + gl_LocalInvocationID.x;
#if VKML_EXT_HAS(0)
  live = min(vkml_extent(0) * ROW, N);
#else
  live = N;
#endif
#if STAGE == 0
  if (p < N) F[p] = nonzero(p) ? 1 : 0;
#else
  uint count = N == 0u ? 0u : uint(O[N - 1u]) + (nonzero(N - 1u) ? 1u : 0u);
#if VKML_EXT_HAS(2)
  if (p == 0u) vkml_set_extent(2, count);
#endif
  if (p >= N || !nonzero(p)) return;
  uint col = uint(O[p]), rest = p;
  for (uint d = RANK; d-- > 0u;) {
    uint n = dim(d);
    Y[d * count + col] = uvec2(rest % n, 0u);
    rest /= n;
  }
#endif
}
