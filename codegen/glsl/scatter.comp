#version 450
// scatter_elements (MODE 0) and scatter_nd (MODE 1) (codegen/kernels/scatter.c).
// The output already holds the data: the step copies input 0 into output 0
// before this dispatch (ir/plan.h IR_STEP_COPY_IN0). An invocation per
// update element writes it where its index points, combined with what is
// there by RED: 0 replace, 1 add, 2 mul, 3 max, 4 min (max / min propagate
// NaN, as the CPU reference). Duplicate indices: every reduction sees every
// update (an atomic compare-and-swap loop per element; float add and mul in
// whatever order the invocations come, so within rounding of the CPU's
// order); replace keeps one of them, as ONNX leaves it.
//   scatter_elements: updates have the indices' shape; update c goes to
//     out[sum_k c_k * S_k + idx[c] * AXS] (S = 0 on the axis);
//   scatter_nd: indices [NT][RANK], updates [NT][SLICE]: update (t, e) goes
//     to out[(sum_j idx[t][j] * S_j) * SLICE + e], coordinate j checked
//     against D_j.
// Elements of ES bytes (1, 2, 4; 8 for replace only) are read and written
// as parts of 32-bit words (no 8/16-bit storage feature); DT says how to
// combine them: 0 f32, 1 f16, 2 signed integer, 3 unsigned integer. An
// index out of range is reported in the error slot (index.glsl) and
// clamped.
//
// Bounded operands (scatter_elements; the extent ABI, extent.glsl): data,
// indices, updates and output bounded along the scatter axis
// (codegen/kernels/scatter.c): the indices' and updates' counts must agree
// (else error kind 3) and bound the invocations (ROW_UNITS update elements
// per row); an index is checked against the data's count. The output's
// extent is the executor's copy of the data's (IR_STEP_EXTENT_FROM).
//
// Bindings: 0 = data (not read: the copy put it in the output), 1 = indices,
// 2 = updates, 3 = out, 4 = the error slot.
// Knobs (#defines): WG_SIZE, EPI (updates per invocation, WG_SIZE apart).
// Baked: #defines ES, DT, RED, MODE, IDX64; specialization constants below.

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;     // update elements
layout(constant_id = 1) const uint SLICE = 1; // scatter_nd: elements per slice
layout(constant_id = 3) const int DIM = 1;    // scatter_elements: the axis's size
layout(constant_id = 4) const int AXS = 0;    // scatter_elements: the axis's stride
layout(constant_id = 5) const uint RANK = 0;  // merged axes / index tuple length
layout(constant_id = 6) const uint AXIS = 0;  // the (first) indexed axis, for reports
#include "index_axes.glsl" // D0..D7, S0..S7: the walked axes
layout(constant_id = 27) const uint ROW_UNITS = 0;
#include "extent.glsl"
#define ROWS VKML_EXT_HAS(1)

#if IDX64
layout(binding = 1, std430) readonly buffer Idx { uvec2 ind[]; };
#else
layout(binding = 1, std430) readonly buffer Idx { int ind[]; };
#endif
#if ES == 8
layout(binding = 2, std430) readonly buffer Upd { uvec2 upd[]; };
layout(binding = 3, std430) buffer Out { uvec2 y[]; };
#else
layout(binding = 2, std430) readonly buffer Upd { uint upd[]; };
layout(binding = 3, std430) buffer Out { uint y[]; };
#endif
#define ERROR_BINDING 4
#include "device_error.glsl"
#include "index.glsl"

#if ES < 4
const uint MASK = (1u << (ES * 8)) - 1u;
#endif

// Update element u's bits (the low ES bytes).
#if ES == 8
uvec2 load_update(uint u) { return upd[u]; }
#elif ES == 4
uint load_update(uint u) { return upd[u]; }
#else
uint load_update(uint u) { return (upd[u * ES / 4] >> ((u * ES % 4) * 8)) & MASK; }
#endif

#if RED != 0
#if DT == 0 || DT == 1
float pick(float a, float b) { // RED 3: max, 4: min; NaN wins
  if (isnan(a) || isnan(b)) return isnan(a) ? a : b;
  return RED == 3 ? max(a, b) : min(a, b);
}
float combine_f(float a, float b) {
  return RED == 1 ? a + b : RED == 2 ? a * b : pick(a, b);
}
#endif
#if DT == 2
int combine_i(int a, int b) {
  return RED == 1 ? a + b : RED == 2 ? a * b : RED == 3 ? max(a, b) : min(a, b);
}
#elif DT == 3
uint combine_u(uint a, uint b) {
  return RED == 1 ? a + b : RED == 2 ? a * b : RED == 3 ? max(a, b) : min(a, b);
}
#endif

// The element bits `old` combined with the update bits `v`.
uint combine(uint old, uint v) {
#if DT == 0
  return floatBitsToUint(combine_f(uintBitsToFloat(old), uintBitsToFloat(v)));
#elif DT == 1
  return packHalf2x16(vec2(combine_f(unpackHalf2x16(old).x, unpackHalf2x16(v).x), 0.0)) & 0xffffu;
#elif DT == 2
#if ES < 4
  int a = bitfieldExtract(int(old), 0, ES * 8), b = bitfieldExtract(int(v), 0, ES * 8);
#else
  int a = int(old), b = int(v);
#endif
  return uint(combine_i(a, b));
#else
  return combine_u(old, v);
#endif
}
#endif

#if ES == 8
void store(uint pos, uvec2 v) { y[pos] = v; }
#else
void store(uint pos, uint v) {
#if ES == 4 && RED == 0
  y[pos] = v;
#else
  uint w = pos * ES / 4;
#if ES == 4
  const uint sh = 0u, mask = 0xffffffffu;
#else
  uint sh = (pos * ES % 4) * 8, mask = MASK << sh;
#endif
  uint old = atomicOr(y[w], 0u);
  for (;;) {
#if RED == 0
    uint nv = v;
#elif ES == 4
    uint nv = combine(old, v);
#else
    uint nv = combine((old >> sh) & MASK, v);
#endif
    uint word = (old & ~mask) | ((nv << sh) & mask);
    uint prev = atomicCompSwap(y[w], old, word);
    if (prev == old) break;
    old = prev;
  }
#endif
}
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#if ROWS
  uint ni = vkml_extent(1), nu = vkml_extent(2);
  if (ni != nu && group == 0u && gl_LocalInvocationID.x == 0u) report_error(3u, 1u, ni, 0u, 2u, nu);
  uint n_active = min(N, min(min(ni, nu), 0xffffffffu / max(ROW_UNITS, 1u)) * ROW_UNITS);
  int dim = int(vkml_extent(0));
#else
  uint n_active = N;
  int dim = DIM;
#endif
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= n_active) return;
#if MODE == 0
    uint r = u;
    int k = fix_index_at(u, dim, AXIS), c;
    if (dim <= 0) return; // reported: no element to write
    int off = k * AXS;
#define STEP(k)                                                   \
    if (RANK > k) {                                               \
      c = int(RANK == k + 1 ? r : r % D##k);                      \
      r = r / D##k;                                               \
      off += c * S##k;                                            \
    }
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
    store(uint(off), load_update(u));
#else
    uint t = u / SLICE, i = u - t * SLICE, first = t * RANK, slice = 0;
#define COORD(k) if (RANK > k) slice += uint(fix_index_at(first + k, int(D##k), AXIS + k) * S##k);
    COORD(0) COORD(1) COORD(2) COORD(3) COORD(4) COORD(5) COORD(6) COORD(7)
#undef COORD
    store(slice * SLICE + i, load_update(u));
#endif
  }
}
