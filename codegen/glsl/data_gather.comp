#version 450
// gather, gather_elements and gather_nd (codegen/kernels/gather.c).
//   gather (MODE 0): data seen as [outer][DIM][INNER units], out as
//     [outer][NIDX][INNER]: out[o][j][i] = data[o][idx[j]][i];
//   gather_elements (MODE 1): out has the indices' shape;
//     out[c] = data[sum_k c_k * S_k + idx[c] * AXS] with S = 0 on the axis;
//   gather_nd (MODE 2): data seen as [batch][BSL slices of INNER units],
//     indices as [batch][NIDX tuples][RANK], out as [batch][NIDX][INNER]:
//     out[b][t][i] = data[b][sum_j idx[b][t][j] * S_j][i], coordinate j
//     checked against D_j (axis AXIS + j).
// Indices are i32 (IDX64 0) or i64 (IDX64 1, read as two 32-bit words, so
// no shaderInt64 is needed). A negative index wraps once (+ DIM). An index
// still outside [0, DIM) is an error, as on the CPU: the kernel records it
// in the step's error slot (device_error.glsl; the run reports it naming the
// node) and reads the clamped index instead, never out of bounds.
// Units are ELEM_BYTES bytes (gather may group neighbouring elements of the
// inner block into one word); bits are copied, so every dtype works.
//
// Bounded indices (binding 1; the extent ABI, extent.glsl): a run-time
// count of leading index rows (codegen/kernels/gather.c); outputs past
// count x ROW_UNITS are not written (their indices are not read: past the
// count they are not data).
// Bounded data too (binding 0, gather): bounded along the gathered axis;
// indices are checked against its run-time size instead of DIM.
//
// Bindings: 0 = data, 1 = indices, 2 = out (dense C order), 3 = the error
// slot.
// Knobs (#defines): WG_SIZE, EPI (outputs per invocation, WG_SIZE apart),
//   UNIT_BYTES (host only: the widest unit elements may be grouped into).
// Baked: #defines ELEM_BYTES, MODE, IDX64; specialization constants below
//   (gather_elements axes innermost first, size-1 axes dropped and
//   contiguous ones merged).

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

layout(constant_id = 0) const uint N = 1;     // output units
layout(constant_id = 1) const uint INNER = 1; // gather: units per index
layout(constant_id = 2) const uint NIDX = 1;  // gather: index count
layout(constant_id = 3) const int DIM = 1;    // data's size along the axis
layout(constant_id = 4) const int AXS = 0;    // gather_elements: axis stride
layout(constant_id = 5) const uint RANK = 0;  // gather_elements: merged axes
layout(constant_id = 6) const uint AXIS = 0;  // the axis (for error reports)
layout(constant_id = 7) const uint BSL = 1;   // gather_nd: slices per batch
#include "index_axes.glsl" // D0..D7, S0..S7: the walked axes
layout(constant_id = 25) const uint ROW_UNITS = 0;
#include "extent.glsl"
#define ROWS_LIMIT VKML_EXT_HAS(1)
#define DATA_BOUNDED VKML_EXT_HAS(0)

layout(binding = 0, std430) readonly buffer Data { U x[]; };
#if IDX64
layout(binding = 1, std430) readonly buffer Idx { uvec2 ind[]; };
#else
layout(binding = 1, std430) readonly buffer Idx { int ind[]; };
#endif
layout(binding = 2, std430) writeonly buffer Out { U y[]; };
#define ERROR_BINDING 3
#include "device_error.glsl"

#include "index.glsl" // fix_index_at: one index wrapped once, checked, clamped

int g_dim = DIM; // the gathered axis's size (DATA_BOUNDED: set at run time)
int fix_index(uint j) { return fix_index_at(j, g_dim, AXIS); }

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#if ROWS_LIMIT
  uint n_active = min(N, min(vkml_extent(1), 0xffffffffu / max(ROW_UNITS, 1u)) * ROW_UNITS);
#else
  uint n_active = N;
#endif
#if DATA_BOUNDED
  g_dim = int(min(vkml_extent(0), uint(DIM)));
#endif
  for (uint e = 0; e < EPI; e++) {
    uint u = (group * EPI + e) * WG_SIZE + gl_LocalInvocationID.x;
    if (u >= n_active) return;
#if MODE == 0
    uint t = u / INNER, i = u - t * INNER;
    uint o = t / NIDX, j = t - o * NIDX;
    int at = fix_index(j);
    if (g_dim <= 0) return; // every index was reported: nothing to read
    y[u] = x[(o * uint(DIM) + uint(at)) * INNER + i];
#elif MODE == 2
    uint t = u / INNER, i = u - t * INNER, b = t / NIDX;
    uint first = t * RANK, slice = b * BSL;
#define COORD(k) if (RANK > k) slice += uint(fix_index_at(first + k, int(D##k), AXIS + k) * S##k);
    COORD(0) COORD(1) COORD(2) COORD(3) COORD(4) COORD(5) COORD(6) COORD(7)
#undef COORD
    y[u] = x[slice * INNER + i];
#else
    uint r = u;
    int off = fix_index(u) * AXS, c;
#define STEP(k)                                                   \
    if (RANK > k) {                                               \
      c = int(RANK == k + 1 ? r : r % D##k);                      \
      r = r / D##k;                                               \
      off += c * S##k;                                            \
    }
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
    y[u] = x[off];
#endif
  }
}
