#version 450
// Concat and split along one axis as one dispatch (codegen/kernels/concat.c).
// Both see the tensor as rows [outer][ROW units]: part k owns the units
// [E(k-1), E(k)) of every row (E(-1) = 0), as a dense [outer][E(k) - E(k-1)]
// tensor of its own.
//   concat (SPLIT 0): one invocation per output unit finds its part by the
//     baked row offsets and copies from it;
//   split (SPLIT 1): one invocation per input unit writes it to its part.
// Units are ELEM_BYTES bytes (one element or several neighbouring ones
// moved as one word); bits are copied, so every dtype of that size works.
//
// Packed channels (nc4hw4, every part and the whole, along C) whose parts
// all start on a texel boundary are this same row copy over the padded
// [N][C4][H][W][4] views (the host bakes those). Otherwise PACKED (defined
// only then): one invocation per output texel (4 channels of one pixel)
// gathers its lanes through the packed addresses, 0 past the channels:
//   concat: over the output's texels, each lane from the part holding its
//     channel; split: over every output's texels in turn (part k owns
//     [T(k-1), T(k))), the lanes from the input.
//
// BOUNDED (concat, defined only then; the counts through the extent ABI,
// extent.glsl): every part and the whole bounded along the axis with
// nothing before it (codegen/core/extent.h): part k's count, its RU units
// per index, go to the whole after the parts before it; the whole's count
// is their sum.
//
// Bindings: concat: 0..N_PARTS-1 = the inputs, N_PARTS = the output;
//   split: 0 = the input, 1..N_PARTS = the outputs (N_PARTS <= 31; PACKED:
//   <= 16).
// Knobs (#defines): WG_SIZE, EPI (units per invocation, WG_SIZE apart),
//   UNIT_BYTES (host only: the widest unit elements may be grouped into).
// Baked (#defines): ELEM_BYTES, SPLIT, N_PARTS, PACKED. Specialization
//   constants: N (units; PACKED: texels), ROW (units per row), E0.. (each
//   part's row end, units; PACKED: channel end); PACKED: HW (pixels per
//   plane), C4 and C (the whole's texels and channels per pixel), split:
//   T0.. (each output's texel end).

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

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint ROW = 1;
layout(constant_id = 8) const uint E0 = 0;
layout(constant_id = 9) const uint E1 = 0;
layout(constant_id = 10) const uint E2 = 0;
layout(constant_id = 11) const uint E3 = 0;
layout(constant_id = 12) const uint E4 = 0;
layout(constant_id = 13) const uint E5 = 0;
layout(constant_id = 14) const uint E6 = 0;
layout(constant_id = 15) const uint E7 = 0;
layout(constant_id = 16) const uint E8 = 0;
layout(constant_id = 17) const uint E9 = 0;
layout(constant_id = 18) const uint E10 = 0;
layout(constant_id = 19) const uint E11 = 0;
layout(constant_id = 20) const uint E12 = 0;
layout(constant_id = 21) const uint E13 = 0;
layout(constant_id = 22) const uint E14 = 0;
layout(constant_id = 23) const uint E15 = 0;
layout(constant_id = 24) const uint E16 = 0;
layout(constant_id = 25) const uint E17 = 0;
layout(constant_id = 26) const uint E18 = 0;
layout(constant_id = 27) const uint E19 = 0;
layout(constant_id = 28) const uint E20 = 0;
layout(constant_id = 29) const uint E21 = 0;
layout(constant_id = 30) const uint E22 = 0;
layout(constant_id = 31) const uint E23 = 0;
layout(constant_id = 32) const uint E24 = 0;
layout(constant_id = 33) const uint E25 = 0;
layout(constant_id = 34) const uint E26 = 0;
layout(constant_id = 35) const uint E27 = 0;
layout(constant_id = 36) const uint E28 = 0;
layout(constant_id = 37) const uint E29 = 0;
layout(constant_id = 38) const uint E30 = 0;

// each part's row start
const uint ST0 = 0;
const uint ST1 = E0;
const uint ST2 = E1;
const uint ST3 = E2;
const uint ST4 = E3;
const uint ST5 = E4;
const uint ST6 = E5;
const uint ST7 = E6;
const uint ST8 = E7;
const uint ST9 = E8;
const uint ST10 = E9;
const uint ST11 = E10;
const uint ST12 = E11;
const uint ST13 = E12;
const uint ST14 = E13;
const uint ST15 = E14;
const uint ST16 = E15;
const uint ST17 = E16;
const uint ST18 = E17;
const uint ST19 = E18;
const uint ST20 = E19;
const uint ST21 = E20;
const uint ST22 = E21;
const uint ST23 = E22;
const uint ST24 = E23;
const uint ST25 = E24;
const uint ST26 = E25;
const uint ST27 = E26;
const uint ST28 = E27;
const uint ST29 = E28;
const uint ST30 = E29;

#ifdef BOUNDED
#include "extent.glsl"
layout(constant_id = 56) const uint RU = 1;
#endif

#ifdef PACKED
// a texel of 4 elements as 32-bit words
#if ELEM_BYTES == 2
#define TEX uvec2
#define TEXOF(v) uvec2((v).x | ((v).y << 16), (v).z | ((v).w << 16))
#else
#define TEX uvec4
#define TEXOF(v) (v)
#endif
layout(constant_id = 2) const uint HW = 1;
layout(constant_id = 3) const uint C4 = 1;
layout(constant_id = 4) const uint C = 1;
#endif

#if defined(PACKED) && SPLIT
layout(constant_id = 40) const uint T0 = 0;
layout(constant_id = 41) const uint T1 = 0;
layout(constant_id = 42) const uint T2 = 0;
layout(constant_id = 43) const uint T3 = 0;
layout(constant_id = 44) const uint T4 = 0;
layout(constant_id = 45) const uint T5 = 0;
layout(constant_id = 46) const uint T6 = 0;
layout(constant_id = 47) const uint T7 = 0;
layout(constant_id = 48) const uint T8 = 0;
layout(constant_id = 49) const uint T9 = 0;
layout(constant_id = 50) const uint T10 = 0;
layout(constant_id = 51) const uint T11 = 0;
layout(constant_id = 52) const uint T12 = 0;
layout(constant_id = 53) const uint T13 = 0;
layout(constant_id = 54) const uint T14 = 0;
layout(constant_id = 55) const uint T15 = 0;
const uint TS0 = 0;
const uint TS1 = T0;
const uint TS2 = T1;
const uint TS3 = T2;
const uint TS4 = T3;
const uint TS5 = T4;
const uint TS6 = T5;
const uint TS7 = T6;
const uint TS8 = T7;
const uint TS9 = T8;
const uint TS10 = T9;
const uint TS11 = T10;
const uint TS12 = T11;
const uint TS13 = T12;
const uint TS14 = T13;
const uint TS15 = T14;
layout(binding = 0, std430) readonly buffer In { U x[]; };
#define PART(k) layout(binding = k + 1, std430) writeonly buffer P##k { TEX p##k[]; };
// texel t belongs to output k, at its texel tl; lanes from the input
#define PICK(k)                                                              \
  if (t < T##k) {                                                            \
    uint tl = t - TS##k, ck = E##k - ST##k, ck4 = (ck + 3u) / 4u;            \
    uint px = tl % HW, r = tl / HW;                                          \
    uint c0 = (r % ck4) * 4u, nb = r / ck4;                                  \
    uvec4 v = uvec4(0u);                                                     \
    for (uint l = 0; l < 4u && c0 + l < ck; l++) {                           \
      uint c = ST##k + c0 + l;                                               \
      v[l] = uint(x[((nb * C4 + c / 4u) * HW + px) * 4u + (c & 3u)]);        \
    }                                                                        \
    p##k[tl] = TEXOF(v);                                                     \
    continue;                                                                \
  }
#elif defined(PACKED)
layout(binding = N_PARTS, std430) writeonly buffer Out { TEX y[]; };
#define PART(k) layout(binding = k, std430) readonly buffer P##k { U p##k[]; };
// channel c (of the output texel's lane l) comes from part k
#define PICK(k)                                                              \
  if (c < E##k) {                                                            \
    uint cl = c - ST##k, ck4 = (E##k - ST##k + 3u) / 4u;                     \
    v[l] = uint(p##k[((nb * ck4 + cl / 4u) * HW + px) * 4u + (cl & 3u)]);    \
    continue;                                                                \
  }
#elif SPLIT
layout(binding = 0, std430) readonly buffer In { U x[]; };
#define PART(k) layout(binding = k + 1, std430) writeonly buffer P##k { U p##k[]; };
// the unit goes to part k at row o
#define PICK(k)                                                  \
  if (r < E##k) {                                                \
    p##k[o * (E##k - ST##k) + (r - ST##k)] = x[u];               \
    continue;                                                    \
  }
#else
layout(binding = N_PARTS, std430) writeonly buffer Out { U y[]; };
#define PART(k) layout(binding = k, std430) readonly buffer P##k { U p##k[]; };
#define PICK(k)                                                  \
  if (r < E##k) {                                                \
    y[u] = p##k[o * (E##k - ST##k) + (r - ST##k)];               \
    continue;                                                    \
  }
#endif

#if N_PARTS > 0
PART(0)
#endif
#if N_PARTS > 1
PART(1)
#endif
#if N_PARTS > 2
PART(2)
#endif
#if N_PARTS > 3
PART(3)
#endif
#if N_PARTS > 4
PART(4)
#endif
#if N_PARTS > 5
PART(5)
#endif
#if N_PARTS > 6
PART(6)
#endif
#if N_PARTS > 7
PART(7)
#endif
#if N_PARTS > 8
PART(8)
#endif
#if N_PARTS > 9
PART(9)
#endif
#if N_PARTS > 10
PART(10)
#endif
#if N_PARTS > 11
PART(11)
#endif
#if N_PARTS > 12
PART(12)
#endif
#if N_PARTS > 13
PART(13)
#endif
#if N_PARTS > 14
PART(14)
#endif
#if N_PARTS > 15
PART(15)
#endif
#if N_PARTS > 16
PART(16)
#endif
#if N_PARTS > 17
PART(17)
#endif
#if N_PARTS > 18
PART(18)
#endif
#if N_PARTS > 19
PART(19)
#endif
#if N_PARTS > 20
PART(20)
#endif
#if N_PARTS > 21
PART(21)
#endif
#if N_PARTS > 22
PART(22)
#endif
#if N_PARTS > 23
PART(23)
#endif
#if N_PARTS > 24
PART(24)
#endif
#if N_PARTS > 25
PART(25)
#endif
#if N_PARTS > 26
PART(26)
#endif
#if N_PARTS > 27
PART(27)
#endif
#if N_PARTS > 28
PART(28)
#endif
#if N_PARTS > 29
PART(29)
#endif
#if N_PARTS > 30
PART(30)
#endif


#ifdef BOUNDED
// part k: units [sb[k], eb[k]) of the whole
#define EXT(k) sb[k] = run; run += vkml_extent(k) * RU; eb[k] = run;
#define PICKB(k) if (u < eb[k]) { y[u] = p##k[u - sb[k]]; continue; }
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#ifdef BOUNDED
  uint sb[N_PARTS], eb[N_PARTS], run = 0u;
#if N_PARTS > 0
  EXT(0)
#endif
#if N_PARTS > 1
  EXT(1)
#endif
#if N_PARTS > 2
  EXT(2)
#endif
#if N_PARTS > 3
  EXT(3)
#endif
#if N_PARTS > 4
  EXT(4)
#endif
#if N_PARTS > 5
  EXT(5)
#endif
#if N_PARTS > 6
  EXT(6)
#endif
#if N_PARTS > 7
  EXT(7)
#endif
#if N_PARTS > 8
  EXT(8)
#endif
#if N_PARTS > 9
  EXT(9)
#endif
#if N_PARTS > 10
  EXT(10)
#endif
#if N_PARTS > 11
  EXT(11)
#endif
#if N_PARTS > 12
  EXT(12)
#endif
#if N_PARTS > 13
  EXT(13)
#endif
#if N_PARTS > 14
  EXT(14)
#endif
#if N_PARTS > 15
  EXT(15)
#endif
#if N_PARTS > 16
  EXT(16)
#endif
#if N_PARTS > 17
  EXT(17)
#endif
#if N_PARTS > 18
  EXT(18)
#endif
#if N_PARTS > 19
  EXT(19)
#endif
#if N_PARTS > 20
  EXT(20)
#endif
#if N_PARTS > 21
  EXT(21)
#endif
#if N_PARTS > 22
  EXT(22)
#endif
#if N_PARTS > 23
  EXT(23)
#endif
#if N_PARTS > 24
  EXT(24)
#endif
#if N_PARTS > 25
  EXT(25)
#endif
#if N_PARTS > 26
  EXT(26)
#endif
#if N_PARTS > 27
  EXT(27)
#endif
#if N_PARTS > 28
  EXT(28)
#endif
#if N_PARTS > 29
  EXT(29)
#endif
#if N_PARTS > 30
  EXT(30)
#endif
  if (group == 0u && gl_LocalInvocationID.x == 0u) vkml_set_extent(N_PARTS, run / max(RU, 1u));
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= run) return;
#if N_PARTS > 0
    PICKB(0)
#endif
#if N_PARTS > 1
    PICKB(1)
#endif
#if N_PARTS > 2
    PICKB(2)
#endif
#if N_PARTS > 3
    PICKB(3)
#endif
#if N_PARTS > 4
    PICKB(4)
#endif
#if N_PARTS > 5
    PICKB(5)
#endif
#if N_PARTS > 6
    PICKB(6)
#endif
#if N_PARTS > 7
    PICKB(7)
#endif
#if N_PARTS > 8
    PICKB(8)
#endif
#if N_PARTS > 9
    PICKB(9)
#endif
#if N_PARTS > 10
    PICKB(10)
#endif
#if N_PARTS > 11
    PICKB(11)
#endif
#if N_PARTS > 12
    PICKB(12)
#endif
#if N_PARTS > 13
    PICKB(13)
#endif
#if N_PARTS > 14
    PICKB(14)
#endif
#if N_PARTS > 15
    PICKB(15)
#endif
#if N_PARTS > 16
    PICKB(16)
#endif
#if N_PARTS > 17
    PICKB(17)
#endif
#if N_PARTS > 18
    PICKB(18)
#endif
#if N_PARTS > 19
    PICKB(19)
#endif
#if N_PARTS > 20
    PICKB(20)
#endif
#if N_PARTS > 21
    PICKB(21)
#endif
#if N_PARTS > 22
    PICKB(22)
#endif
#if N_PARTS > 23
    PICKB(23)
#endif
#if N_PARTS > 24
    PICKB(24)
#endif
#if N_PARTS > 25
    PICKB(25)
#endif
#if N_PARTS > 26
    PICKB(26)
#endif
#if N_PARTS > 27
    PICKB(27)
#endif
#if N_PARTS > 28
    PICKB(28)
#endif
#if N_PARTS > 29
    PICKB(29)
#endif
#if N_PARTS > 30
    PICKB(30)
#endif
  }
  return;
#endif
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= N) return;
#if defined(PACKED) && SPLIT
    uint t = u;
#elif defined(PACKED)
    uint px = u % HW, r = u / HW;
    uint c0 = (r % C4) * 4u, nb = r / C4;
    uvec4 v = uvec4(0u);
    for (uint l = 0; l < 4u && c0 + l < C; l++) {
      uint c = c0 + l;
#else
    uint o = u / ROW, r = u - o * ROW;
#endif
#if N_PARTS > 0
    PICK(0)
#endif
#if N_PARTS > 1
    PICK(1)
#endif
#if N_PARTS > 2
    PICK(2)
#endif
#if N_PARTS > 3
    PICK(3)
#endif
#if N_PARTS > 4
    PICK(4)
#endif
#if N_PARTS > 5
    PICK(5)
#endif
#if N_PARTS > 6
    PICK(6)
#endif
#if N_PARTS > 7
    PICK(7)
#endif
#if N_PARTS > 8
    PICK(8)
#endif
#if N_PARTS > 9
    PICK(9)
#endif
#if N_PARTS > 10
    PICK(10)
#endif
#if N_PARTS > 11
    PICK(11)
#endif
#if N_PARTS > 12
    PICK(12)
#endif
#if N_PARTS > 13
    PICK(13)
#endif
#if N_PARTS > 14
    PICK(14)
#endif
#if N_PARTS > 15
    PICK(15)
#endif
#if N_PARTS > 16
    PICK(16)
#endif
#if N_PARTS > 17
    PICK(17)
#endif
#if N_PARTS > 18
    PICK(18)
#endif
#if N_PARTS > 19
    PICK(19)
#endif
#if N_PARTS > 20
    PICK(20)
#endif
#if N_PARTS > 21
    PICK(21)
#endif
#if N_PARTS > 22
    PICK(22)
#endif
#if N_PARTS > 23
    PICK(23)
#endif
#if N_PARTS > 24
    PICK(24)
#endif
#if N_PARTS > 25
    PICK(25)
#endif
#if N_PARTS > 26
    PICK(26)
#endif
#if N_PARTS > 27
    PICK(27)
#endif
#if N_PARTS > 28
    PICK(28)
#endif
#if N_PARTS > 29
    PICK(29)
#endif
#if N_PARTS > 30
    PICK(30)
#endif
#if defined(PACKED) && !SPLIT
    }
    y[u] = TEXOF(v);
#endif
  }
}
