#version 450
// Copies of leading rows whose count is known only on the device
// (codegen/cg_rows_copy.c): select (ONNX If between branches of different
// sizes: the empty result or a bounded NMS keep list), a slice of a
// bounded value's first rows, a reshape merging axes into the bounded one.
// y gets rows = min(rows of the chosen input x Y_PER_A, Y_ROWS), copied as
// 32-bit words (every value is dense from its start,
// ir/graph.h); a bounded y gets that count in its extent word.
//
// to_capacity (FILL 1): a bounded value's capacity as a static y, the live
// elements then the fill pattern (FILL0 / FILL1 for even / odd words: an
// element replicated to 32 bits, an i64 split in two) up to Y_ROWS rows.
// Baked (#define): SELECT (1: select, 0: slice, reshape, to_capacity), FILL.
// Bindings: SELECT 1: 0 = cond (one bool, byte 0), 1 = a, 2 = b, 3 = y;
//   SELECT 0: 0 = a, 1 = y.
// Specialization constants: ROW_BYTES (bytes per
//   row along the axis), A_ROWS / B_ROWS (a static operand's rows, or
//   0xffffffff: read them at word A_EXT / B_EXT, its extent word), Y_ROWS
//   (y's capacity in rows), Y_EXT (y's extent word, 0xffffffff: y static),
//   Y_PER_A (output rows per input row; ROW_BYTES is an output row's).
//   One invocation per word of y's capacity, striding past the grid.

layout(local_size_x = 128) in;
layout(constant_id = 2) const uint ROW_BYTES = 4;
layout(constant_id = 3) const uint A_ROWS = 0;
layout(constant_id = 4) const uint A_EXT = 0;
layout(constant_id = 5) const uint B_ROWS = 0;
layout(constant_id = 6) const uint B_EXT = 0;
layout(constant_id = 7) const uint Y_ROWS = 0;
layout(constant_id = 8) const uint Y_EXT = 0xffffffffu;
layout(constant_id = 9) const uint Y_PER_A = 1;
layout(constant_id = 10) const uint FILL0 = 0;
layout(constant_id = 11) const uint FILL1 = 0;

const uint DYNAMIC = 0xffffffffu;

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
  uint rows = first ? (A_ROWS == DYNAMIC ? a[A_EXT] : A_ROWS)
                    : (B_ROWS == DYNAMIC ? b[B_EXT] : B_ROWS);
#else
  uint rows = A_ROWS == DYNAMIC ? a[A_EXT] : A_ROWS;
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
  if (gid == 0u && Y_EXT != DYNAMIC) y[Y_EXT] = rows;
#endif
}
