#version 450
// Transpose through shared memory (codegen/kernels/data_copy.c): after
// merging, the output's contiguous axis J and the input's contiguous axis I
// differ; the rest are batch axes. Each workgroup moves one TILE x TILE tile
// of (I, J) for one batch index: it reads rows of I (neighbouring
// invocations on neighbouring input addresses) into shared memory, then
// writes rows of J (neighbouring output addresses), so both sides coalesce.
// Bits are copied (units of ELEM_BYTES bytes), so every dtype works.
//
// Bindings: 0 = in, 1 = out (dense C order).
// Knobs (#defines): TILE (tile edge, the workgroup's x size), ROWS (its y
//   size: each invocation moves TILE / ROWS elements per phase).
// Baked: #defines ELEM_BYTES, PACK; specialization constants: the tile counts
//   along J and I, the group count, J's dim and input stride, I's dim and
//   output stride, per batch axis (innermost first) its dim, input and
//   output strides (elements), and the input offset of the output's origin.

// Shared memory holds 32-bit words (8- and 16-bit shared types would need
// int8/int16 arithmetic, not just storage).
#if PACK
// 16-bit elements in pairs: every load and store moves a 32-bit word of two
// neighbours (host: both contiguous dims, SJ and every batch input stride
// even; no 16-bit storage needed)
#define U uint
#define W uint
#elif ELEM_BYTES == 1
#extension GL_EXT_shader_8bit_storage : require
#define U uint8_t
#define W uint
#elif ELEM_BYTES == 2
#extension GL_EXT_shader_16bit_storage : require
#define U uint16_t
#define W uint
#elif ELEM_BYTES == 4
#define U uint
#define W uint
#else
#define U uvec2
#define W uvec2
#endif

layout(local_size_x = TILE, local_size_y = ROWS) in;

layout(constant_id = 0) const uint TILES_J = 1;
layout(constant_id = 1) const uint TILES_I = 1;
layout(constant_id = 2) const uint GROUPS = 1;
layout(constant_id = 3) const uint DJ = 1;  // output-contiguous axis
layout(constant_id = 4) const uint SJ = 1;  // its input stride
layout(constant_id = 5) const uint DI = 1;  // input-contiguous axis
layout(constant_id = 6) const uint OI = 1;  // its output stride
layout(constant_id = 7) const uint RANK = 0; // batch axes
// Batch axis k (< 6): BD dim, BS input stride, BO output stride
layout(constant_id = 8) const uint BD0 = 1;
layout(constant_id = 9) const uint BD1 = 1;
layout(constant_id = 10) const uint BD2 = 1;
layout(constant_id = 11) const uint BD3 = 1;
layout(constant_id = 12) const uint BD4 = 1;
layout(constant_id = 13) const uint BD5 = 1;
layout(constant_id = 16) const uint BS0 = 0;
layout(constant_id = 17) const uint BS1 = 0;
layout(constant_id = 18) const uint BS2 = 0;
layout(constant_id = 19) const uint BS3 = 0;
layout(constant_id = 20) const uint BS4 = 0;
layout(constant_id = 21) const uint BS5 = 0;
layout(constant_id = 24) const uint BO0 = 0;
layout(constant_id = 25) const uint BO1 = 0;
layout(constant_id = 26) const uint BO2 = 0;
layout(constant_id = 27) const uint BO3 = 0;
layout(constant_id = 28) const uint BO4 = 0;
layout(constant_id = 29) const uint BO5 = 0;
layout(constant_id = 30) const uint BASE = 0; // input offset of the output's origin (elements)

layout(binding = 0, std430) readonly buffer In { U x[]; };
layout(binding = 1, std430) writeonly buffer Out { U y[]; };

// +1 column: a column walk in the second phase hits different banks
#if PACK
#define HW (TILE / 2) // words per tile row
shared W tile[TILE][HW + 1]; // [j][word of two i]
#else
shared W tile[TILE][TILE + 1];
#endif

void main() {
  uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (g >= GROUPS) return; // the whole workgroup: barrier() stays uniform
  uint tj = g % TILES_J;
  g /= TILES_J;
  uint ti = g % TILES_I;
  uint b = g / TILES_I;
  uint in_off = BASE, out_off = 0u, c;
#define STEP(k)                                                   \
  if (RANK > k) {                                                 \
    c = RANK == k + 1 ? b : b % BD##k;                            \
    b = b / BD##k;                                                \
    in_off += c * BS##k;                                          \
    out_off += c * BO##k;                                         \
  }
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5)
#undef STEP
  uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
#if PACK
  // words: element offsets / 2 (all even). The workgroup's invocations are
  // laid out HW words wide, 2 ROWS rows deep over the TILE x TILE tile.
  uint t = ly * TILE + lx, tw = t % HW, tr = t / HW;
  uint wi = ti * HW + tw; // word of elements 2 wi, 2 wi + 1 along I
  for (uint r = tr; r < TILE; r += 2 * ROWS) {
    uint j = tj * TILE + r;
    if (2 * wi < DI && j < DJ) tile[r][tw] = x[(in_off + j * SJ) / 2 + wi];
  }
  barrier();
  uint wj = tj * HW + tw; // word of elements 2 wj, 2 wj + 1 along J
  for (uint r = tr; r < TILE; r += 2 * ROWS) {
    uint i2 = ti * TILE + r, sh = (r & 1u) * 16u;
    if (i2 < DI && 2 * wj < DJ) {
      uint lo = (tile[2 * tw][r >> 1] >> sh) & 0xffffu;
      uint hi = (tile[2 * tw + 1][r >> 1] >> sh) & 0xffffu;
      y[(out_off + i2 * OI) / 2 + wj] = lo | (hi << 16);
    }
  }
#else
  uint i = ti * TILE + lx;
  for (uint r = ly; r < TILE; r += ROWS) {
    uint j = tj * TILE + r;
    if (i < DI && j < DJ) tile[r][lx] = W(x[in_off + j * SJ + i]);
  }
  barrier();
  uint j = tj * TILE + lx;
  for (uint r = ly; r < TILE; r += ROWS) {
    uint i2 = ti * TILE + r;
    if (i2 < DI && j < DJ) y[out_off + i2 * OI + j] = U(tile[lx][r]);
  }
#endif
}
