#version 450
// Concat and split along one axis as one dispatch (codegen/cg_data_concat.c).
// Both see the tensor as rows [outer][ROW units]: part k owns the units
// [E(k-1), E(k)) of every row (E(-1) = 0), as a dense [outer][E(k) - E(k-1)]
// tensor of its own.
//   concat (SPLIT 0): one invocation per output unit finds its part by the
//     baked row offsets and copies from it;
//   split (SPLIT 1): one invocation per input unit writes it to its part.
// Units are ELEM_BYTES bytes (one element or several neighbouring ones
// moved as one word); bits are copied, so every dtype of that size works.
//
// Bindings: concat: 0..N_PARTS-1 = the inputs, N_PARTS = the output;
//   split: 0 = the input, 1..N_PARTS = the outputs (N_PARTS <= 31).
// Knobs (#defines): WG_SIZE, EPI (units per invocation, WG_SIZE apart),
//   UNIT_BYTES (host only: the widest unit elements may be grouped into).
// Baked (#defines): ELEM_BYTES, SPLIT, N_PARTS. Specialization constants:
//   N (units), ROW (units per row), E0.. (each part's row end, units).

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

#if SPLIT
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

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= N) return;
    uint o = u / ROW, r = u - o * ROW;
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
  }
}
