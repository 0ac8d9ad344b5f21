#version 450
// Copies of leading rows whose count is known only on the device
// (codegen/kernels/rows_copy.c): select (ONNX If between branches of different
// sizes: the empty result or a bounded NMS keep list), a slice of a
// bounded value's first rows, a reshape merging axes into the bounded one.
// y gets rows = min(rows of the chosen input x Y_PER_A, Y_ROWS), copied as
// 32-bit words (every value is dense from its start, ir/graph.h); a bounded
// y gets that count as its extent (the extent ABI, extent.glsl, which also
// gives a bounded input's rows).
//
// to_capacity (FILL 1): a bounded value's capacity as a static y, the live
// elements then the fill pattern (FILL0 / FILL1 for even / odd words: an
// element replicated to 32 bits, an i64 split in two) up to Y_ROWS rows.
// Baked (#define): SELECT (1: select, 0: slice, reshape, to_capacity), FILL.
// Bindings: SELECT 1: 0 = cond (one bool, byte 0), 1 = a, 2 = b, 3 = y;
//   SELECT 0: 0 = a, 1 = y.
// Specialization constants: ROW_BYTES (bytes per row along the axis),
//   A_ROWS / B_ROWS (a static operand's rows), Y_ROWS (y's capacity in
//   rows), Y_PER_A (output rows per input row; ROW_BYTES is an output
//   row's).
//   One invocation per word of y's capacity, striding past the grid.

layout(local_size_x = 128) in;
layout(constant_id = 2) const uint ROW_BYTES = 4;
layout(constant_id = 3) const uint A_ROWS = 0;
layout(constant_id = 5) const uint B_ROWS = 0;
layout(constant_id = 7) const uint Y_ROWS = 0;
layout(constant_id = 9) const uint Y_PER_A = 1;
layout(constant_id = 10) const uint FILL0 = 0;
layout(constant_id = 11) const uint FILL1 = 0;

#if SELECT
#define AB 1
#define BB 2
#define YB 3
#else
#define AB 0
#define YB 1
#endif
#include "extent.glsl"

#if SELECT
layout(binding = 0, std430) readonly buffer C { uint cond[]; };
layout(binding = 1, std430) readonly buffer A { uint a[]; };
layout(binding = 2, std430) readonly buffer B { uint b[]; };
layout(binding = 3, std430) writeonly buffer Y { uint y[]; };
#else
layout(binding = 0, std430) readonly buffer A { uint a[]; };
layout(binding = 1, std430) writeonly buffer Y { uint y[]; };
#endif

void main() {
#if SELECT
  bool first = (cond[0] & 0xffu) != 0u;
#if VKML_EXT_HAS(BB)
  uint b_rows = vkml_extent(BB);
#else
  uint b_rows = B_ROWS;
#endif
#endif
#if VKML_EXT_HAS(AB)
  uint a_rows = vkml_extent(AB);
#else
  uint a_rows = A_ROWS;
#endif
#if SELECT
  uint rows = first ? a_rows : b_rows;
#else
  uint rows = a_rows;
#endif
  rows = min(rows * Y_PER_A, Y_ROWS);
  uint total = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint gid = gl_GlobalInvocationID.x;
#if FILL
  uint live = rows * ROW_BYTES, words = (Y_ROWS * ROW_BYTES + 3u) / 4u;
  for (uint w = gid; w < words; w += total) {
    uint fill = (w & 1u) == 0u ? FILL0 : FILL1;
    if (w * 4u + 4u <= live) y[w] = a[w];
    else if (w * 4u >= live) y[w] = fill;
    else {
      uint keep = (1u << ((live - w * 4u) * 8u)) - 1u; // the live bytes of a straddling word
      y[w] = (a[w] & keep) | (fill & ~keep);
    }
  }
#else
  uint words = (rows * ROW_BYTES + 3u) / 4u;
  for (uint w = gid; w < words; w += total) {
#if SELECT
    y[w] = first ? a[w] : b[w];
#else
    y[w] = a[w];
#endif
  }
#if VKML_EXT_HAS(YB)
  if (gid == 0u) vkml_set_extent(YB, rows);
#endif
#endif
}
