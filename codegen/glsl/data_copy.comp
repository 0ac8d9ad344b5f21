#version 450
// Strided gather copy: transpose, slice (any step sign), expand, tile and pad
// (constant / reflect / edge) as one template (codegen/kernels/data_copy.c):
//   out[u] = in[BASE + sum_k map_k(c_k) * S_k]     c = multi-index of u
// Units are ELEM_BYTES bytes: one element, or several neighbouring elements
// moved as one word where the host found the layout allows it. Bits are
// copied, never converted, so every dtype of that size works.
//
// Bindings: 0 = in, 1 = out (dense C order).
// Knobs (#defines): WG_SIZE, EPI (units per invocation, WG_SIZE apart so
//   neighbouring invocations touch neighbouring memory), UNIT_BYTES (the
//   widest unit the host may group elements into; read by the host only).
// Baked per workload (#defines): ELEM_BYTES (1 2 4 8 16), MODE, PAD_MODE.
// Baked per shape (specialization constants): the unit count, the output
//   axes after dropping size-1 axes and merging contiguous ones (innermost
//   first), per axis the output dim D, the input stride S (units, signed),
//   and A / B: tile: the input dim (c -> c % A); pad: the output range
//   [A, B) that lies inside the input (outside: constant value, clamp to
//   it, or mirror into it). BASE is the input offset of the origin.
// MODE_ROLL (strided_copy with roll_dims): that sum indexes x' = the input
//   viewed as RRANK dims RD (innermost first) and rolled by RS on each, so
//   it is mapped back into the input: c_k -> (c_k + RS_k) mod RD_k. Units
//   are single elements there.
// Offsets wrap mod 2^32 (SPIR-V integer addition does): only the final sum
// must be in range, which the host guarantees.

#if ELEM_BYTES == 1
#extension GL_EXT_shader_8bit_storage : require
#define U uint8_t
#define PAD_UNIT uint8_t(pad_word())
#elif ELEM_BYTES == 2
#extension GL_EXT_shader_16bit_storage : require
#define U uint16_t
#define PAD_UNIT uint16_t(pad_word())
#elif ELEM_BYTES == 4
#define U uint
#define PAD_UNIT PV0
#elif ELEM_BYTES == 8
#define U uvec2
#define PAD_UNIT uvec2(PV0, PV1)
#else
#define U uvec4
#define PAD_UNIT uvec4(PV0, PV1, PV2, PV3)
#endif

#define MODE_AFFINE 0
#define MODE_TILE 1
#define MODE_PAD 2
#define MODE_ROLL 3
#define PAD_CONSTANT 0
#define PAD_REFLECT 1
#define PAD_EDGE 2

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint RANK = 0;
layout(constant_id = 2) const int BASE = 0;
layout(constant_id = 3) const uint PV0 = 0;
layout(constant_id = 4) const uint PV1 = 0;
layout(constant_id = 5) const uint PV2 = 0;
layout(constant_id = 6) const uint PV3 = 0;
layout(constant_id = 8) const uint D0 = 1;
layout(constant_id = 9) const uint D1 = 1;
layout(constant_id = 10) const uint D2 = 1;
layout(constant_id = 11) const uint D3 = 1;
layout(constant_id = 12) const uint D4 = 1;
layout(constant_id = 13) const uint D5 = 1;
layout(constant_id = 14) const uint D6 = 1;
layout(constant_id = 15) const uint D7 = 1;
layout(constant_id = 16) const int S0 = 0;
layout(constant_id = 17) const int S1 = 0;
layout(constant_id = 18) const int S2 = 0;
layout(constant_id = 19) const int S3 = 0;
layout(constant_id = 20) const int S4 = 0;
layout(constant_id = 21) const int S5 = 0;
layout(constant_id = 22) const int S6 = 0;
layout(constant_id = 23) const int S7 = 0;
layout(constant_id = 24) const int A0 = 0;
layout(constant_id = 25) const int A1 = 0;
layout(constant_id = 26) const int A2 = 0;
layout(constant_id = 27) const int A3 = 0;
layout(constant_id = 28) const int A4 = 0;
layout(constant_id = 29) const int A5 = 0;
layout(constant_id = 30) const int A6 = 0;
layout(constant_id = 31) const int A7 = 0;
layout(constant_id = 32) const int B0 = 0;
layout(constant_id = 33) const int B1 = 0;
layout(constant_id = 34) const int B2 = 0;
layout(constant_id = 35) const int B3 = 0;
layout(constant_id = 36) const int B4 = 0;
layout(constant_id = 37) const int B5 = 0;
layout(constant_id = 38) const int B6 = 0;
layout(constant_id = 39) const int B7 = 0;
layout(constant_id = 40) const uint RRANK = 0;
layout(constant_id = 41) const uint RD0 = 1;
layout(constant_id = 42) const uint RD1 = 1;
layout(constant_id = 43) const uint RD2 = 1;
layout(constant_id = 44) const uint RD3 = 1;
layout(constant_id = 45) const uint RD4 = 1;
layout(constant_id = 46) const uint RD5 = 1;
layout(constant_id = 47) const uint RD6 = 1;
layout(constant_id = 48) const uint RD7 = 1;
layout(constant_id = 49) const uint RS0 = 0;
layout(constant_id = 50) const uint RS1 = 0;
layout(constant_id = 51) const uint RS2 = 0;
layout(constant_id = 52) const uint RS3 = 0;
layout(constant_id = 53) const uint RS4 = 0;
layout(constant_id = 54) const uint RS5 = 0;
layout(constant_id = 55) const uint RS6 = 0;
layout(constant_id = 56) const uint RS7 = 0;

layout(binding = 0, std430) readonly buffer In { U x[]; };
layout(binding = 1, std430) writeonly buffer Out { U y[]; };

// Narrowing a specialization constant would be a specialization-constant
// op that SPIR-V 1.3 forbids for 8/16-bit types: narrow a plain value.
uint pad_word() {
  uint w = PV0;
  return w;
}

// Pad: the coordinate c of an axis whose in-range output span is [a, b).
// Returns false for a constant-padded position.
bool pad_map(inout int c, int a, int b) {
  if (c >= a && c < b) return true;
#if PAD_MODE == PAD_CONSTANT
  return false;
#elif PAD_MODE == PAD_EDGE
  c = c < a ? a : b - 1;
  return true;
#else
  // reflect without repeating the edge; the pattern is symmetric about a, so
  // |c - a| avoids a modulo of a negative number
  int len = b - a;
  if (len == 1) {
    c = a;
    return true;
  }
  int period = 2 * (len - 1);
  int r = abs(c - a) % period;
  c = a + (r < len ? r : period - r);
  return true;
#endif
}

#if MODE == MODE_ROLL
// x' element e (row-major over RD) -> its input element
int unroll(uint e) {
  uint q = 0, w = 1, c;
#define RSTEP(k)                                                  \
  if (RRANK > k) {                                                \
    c = e % RD##k + RS##k;                                        \
    e = e / RD##k;                                                \
    q += (c >= RD##k ? c - RD##k : c) * w;                        \
    w *= RD##k;                                                   \
  }
  RSTEP(0) RSTEP(1) RSTEP(2) RSTEP(3) RSTEP(4) RSTEP(5) RSTEP(6) RSTEP(7)
#undef RSTEP
  return int(q);
}
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= N) return;
    uint r = u;
    int off = BASE;
    bool inside = true;
    int c;
#if MODE == MODE_AFFINE || MODE == MODE_ROLL
#define STEP(k)                                                   \
    if (RANK > k) {                                               \
      c = int(RANK == k + 1 ? r : r % D##k);                      \
      r = r / D##k;                                               \
      off += c * S##k;                                            \
    }
#elif MODE == MODE_TILE
#define STEP(k)                                                   \
    if (RANK > k) {                                               \
      c = int(RANK == k + 1 ? r : r % D##k);                      \
      r = r / D##k;                                               \
      if (uint(A##k) != D##k) c = c % A##k;                       \
      off += c * S##k;                                            \
    }
#else
#define STEP(k)                                                   \
    if (RANK > k) {                                               \
      c = int(RANK == k + 1 ? r : r % D##k);                      \
      r = r / D##k;                                               \
      if (A##k != 0 || uint(B##k) != D##k) inside = pad_map(c, A##k, B##k) && inside; \
      off += c * S##k;                                            \
    }
#endif
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
#if MODE == MODE_ROLL
    off = unroll(uint(off));
#endif
    // a branch, not a select: a padded position's offset is not readable
    if (inside) y[u] = x[off];
    else y[u] = PAD_UNIT;
  }
}
