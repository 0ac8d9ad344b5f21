#version 450
// Segmented argsort, the stages of the integrated-GPU TVM paper's sort
// (codegen/cg_sort.c instantiates them; passes/pass_split_sort.c chains
// them). Every element becomes a triple (segment, order key, position) and
// the triples are sorted ascending, which sorts each segment by key and
// keeps equal keys in position order (stable). The state between stages is
// i32[3,N]: plane 0 the segments, plane 1 the keys, plane 2 the positions.
//
// STAGE 0, block: one workgroup sorts a block of WIDTH = WG_SIZE * R
//   triples in shared memory (bitonic; the tail padded with triples above
//   every other). Blocks start at the array's start (offsets) or at each
//   row's (rows: a row never shares a block). Bindings: 0 = x (DTYPE),
//   [1 = offsets (i64 as word pairs) when OFFSETS], then the state.
// STAGE 1, merge: runs of WIDTH become runs of 2 WIDTH, from the array's
//   start or, with LEN > 0, each row's (the rounds stop once a run holds
//   a row). Merge path: a workgroup makes TILE = WG_SIZE * MR outputs of
//   one pair of runs; two binary searches along the tile's first and last
//   diagonals find the parts of both runs it takes, which are read into
//   shared memory in order (coalesced), and each invocation merges MR
//   outputs from its own split of the tile. Segments on one side of the
//   runs' boundary come out where they were (their triples compare below
//   or above the other run's): only a segment spanning the boundary
//   interleaves. Bindings: 0 = state in, 1 = state out.
// STAGE 2, index: the positions as i64 indices within their segments.
//   Bindings: 0 = state, [1 = offsets when OFFSETS], then y (i64 as word
//   pairs).
//
// The order key (as runtime/cpu/k_sort.c): grows with the value, NaN above
// +inf (every NaN alike), -0 as +0; inverted for LARGEST. Segments: rows of
// LEN along the last axis, or offsets[S+1] (the segment of position p is
// the last one starting at or before p: empty segments hold nothing).
//
// Knobs (#defines): WG_SIZE; R (block stage: WIDTH / WG_SIZE), MR (merge
//   stage: outputs per invocation, a tile within 2 WIDTH). Baked per workload: STAGE,
//   DTYPE (0 f32, 1 f16, 2 i32), OFFSETS (#defines); N, LEN (the row
//   length; merge: 0 for the whole array), NSEG, WIDTH, LARGEST, GX
//   (specialization constants).

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE == 1
#extension GL_EXT_shader_16bit_storage : require
#define ST float16_t
#elif DTYPE == 2
#define ST int
#else
#define ST float
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint LEN = 1;
layout(constant_id = 2) const uint NSEG = 1;
layout(constant_id = 3) const uint WIDTH = 1;
layout(constant_id = 4) const bool LARGEST = false;
layout(constant_id = 5) const uint GX = 1;

#if STAGE == 0
layout(set = 0, binding = 0) readonly buffer Xb { ST X[]; };
#if OFFSETS
layout(set = 0, binding = 1) readonly buffer Ob { uvec2 O[]; };
layout(set = 0, binding = 2) writeonly buffer Sb { uint S[]; };
#else
layout(set = 0, binding = 1) writeonly buffer Sb { uint S[]; };
#endif
#elif STAGE == 1
layout(set = 0, binding = 0) readonly buffer Ib { uint I[]; };
layout(set = 0, binding = 1) writeonly buffer Sb { uint S[]; };
#else
layout(set = 0, binding = 0) readonly buffer Ib { uint I[]; };
#if OFFSETS
layout(set = 0, binding = 1) readonly buffer Ob { uvec2 O[]; };
layout(set = 0, binding = 2) writeonly buffer Yb { uvec2 Y[]; };
#else
layout(set = 0, binding = 1) writeonly buffer Yb { uvec2 Y[]; };
#endif
#endif

// a before b, the triples compared in order
bool before(uvec3 a, uvec3 b) {
  return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z < b.z;
}

uint group_index() { return gl_WorkGroupID.y * GX + gl_WorkGroupID.x; }

#if STAGE == 0
#define BLOCK (WG_SIZE * R)
#if OFFSETS
shared uint s_seg[BLOCK];
#define SEG_AT(t) s_seg[t]
#else
#define SEG_AT(t) 0u // a block lies in one row: the segment is the row's
#endif
shared uint s_key[BLOCK];
shared uint s_pos[BLOCK];

uint key_of(uint p) {
#if DTYPE == 2
  uint u = uint(X[p]) ^ 0x80000000u;
#else
  float v = float(X[p]);
  uint b = floatBitsToUint(v);
  uint u = isnan(v) ? 0xffffffffu
                    : v == 0.0 ? 0x80000000u : ((b & 0x80000000u) != 0u ? ~b : b | 0x80000000u);
#endif
  return LARGEST ? ~u : u;
}

uint segment_of(uint p) {
#if OFFSETS
  uint lo = 0u, hi = NSEG; // offsets[lo] <= p < offsets[hi]
  while (hi - lo > 1u) {
    uint mid = (lo + hi) >> 1;
    if (O[mid].x <= p) lo = mid;
    else hi = mid;
  }
  return lo;
#else
  return p / LEN;
#endif
}

void main() {
  uint lid = gl_LocalInvocationID.x, g = group_index();
#if OFFSETS
  uint base = g * BLOCK, end = N;
#else
  uint per_row = (LEN + BLOCK - 1u) / BLOCK, row = g / per_row;
  uint base = row * LEN + (g - row * per_row) * BLOCK, end = row * LEN + LEN;
#endif
  if (base >= N) return;
  [[unroll]] for (uint r = 0u; r < R; r++) {
    uint t = r * WG_SIZE + lid, p = base + t;
    bool in_range = p < end;
#if OFFSETS
    s_seg[t] = in_range ? segment_of(p) : 0xffffffffu;
#endif
    s_key[t] = in_range ? key_of(p) : 0xffffffffu;
    s_pos[t] = in_range ? p : 0xffffffffu;
  }
  barrier();
  // bitonic: the BLOCK / 2 pairs (t, t + j) of a step spread over the
  // invocations, R / 2 each (one pair for half of them when R is 1)
  for (uint k = 2u; k <= BLOCK; k <<= 1) {
    for (uint j = k >> 1; j > 0u; j >>= 1) {
      for (uint i = lid; i < BLOCK / 2u; i += WG_SIZE) {
        uint low = i & (j - 1u), t = ((i - low) << 1) | low, q = t | j;
        uvec3 a = uvec3(SEG_AT(t), s_key[t], s_pos[t]), b = uvec3(SEG_AT(q), s_key[q], s_pos[q]);
        if (before(b, a) == ((t & k) == 0u)) {
#if OFFSETS
          s_seg[t] = b.x, s_seg[q] = a.x;
#endif
          s_key[t] = b.y, s_pos[t] = b.z;
          s_key[q] = a.y, s_pos[q] = a.z;
        }
      }
      barrier();
    }
  }
  [[unroll]] for (uint r = 0u; r < R; r++) {
    uint t = r * WG_SIZE + lid, p = base + t;
    if (p < end) {
#if OFFSETS
      S[p] = s_seg[t];
#else
      S[p] = row;
#endif
      S[N + p] = s_key[t];
      S[2u * N + p] = s_pos[t];
    }
  }
}

#elif STAGE == 1
#define TILE (WG_SIZE * MR)
shared uvec3 s_in[TILE];
shared uint s_split[2];

uvec3 at(uint p) { return uvec3(I[p], I[N + p], I[2u * N + p]); }

// Merge path: of the first d outputs of merging a[0..na) and b[0..nb),
// how many come from a (the triples are distinct: no ties)
uint split_global(uint a, uint na, uint b, uint nb, uint d) {
  uint lo = d > nb ? d - nb : 0u, hi = min(d, na);
  while (lo < hi) {
    uint m = (lo + hi) >> 1;
    if (before(at(a + m), at(b + d - 1u - m))) lo = m + 1u;
    else hi = m;
  }
  return lo;
}

uint split_shared(uint na, uint nb, uint d) {
  uint lo = d > nb ? d - nb : 0u, hi = min(d, na);
  while (lo < hi) {
    uint m = (lo + hi) >> 1;
    if (before(s_in[m], s_in[na + d - 1u - m])) lo = m + 1u;
    else hi = m;
  }
  return lo;
}

void main() {
  // the tile: TILE outputs of one pair of runs (2 WIDTH is a multiple of
  // TILE), from the array's start or, with LEN > 0, from its row's
  uint g = group_index(), lid = gl_LocalInvocationID.x, start = 0u, end = N, t0 = g * TILE;
  if (LEN > 0u) {
    uint per_row = (LEN + TILE - 1u) / TILE, row = g / per_row;
    start = row * LEN;
    end = start + LEN;
    t0 = start + (g - row * per_row) * TILE;
  }
  if (t0 >= end) return;
  uint t1 = min(t0 + TILE, end);
  uint lo = start + ((t0 - start) & ~(2u * WIDTH - 1u)), mid = min(lo + WIDTH, end);
  uint hi = min(lo + 2u * WIDTH, end), na = mid - lo, nb = hi - mid;
  // 1. where the tile's first and last outputs split the two runs
  if (lid < 2u) s_split[lid] = split_global(lo, na, mid, nb, (lid == 0u ? t0 : t1) - lo);
  barrier();
  uint a0 = s_split[0], a1 = s_split[1], b0 = t0 - lo - a0, b1 = t1 - lo - a1;
  uint ta = a1 - a0, n = t1 - t0;
  // 2. the tile's share of both runs into shared memory, read in order
  for (uint k = lid; k < n; k += WG_SIZE) s_in[k] = at(k < ta ? lo + a0 + k : mid + b0 + k - ta);
  barrier();
  // 3. each invocation merges MR outputs from its own split of the tile
  uint d = lid * MR;
  if (d >= n) return;
  uint i = split_shared(ta, n - ta, d), j = ta + d - i;
  [[unroll]] for (uint r = 0u; r < MR; r++) {
    uint o = d + r;
    if (o >= n) break;
    bool from_a = j >= n || (i < ta && before(s_in[i], s_in[j]));
    uvec3 e = from_a ? s_in[i] : s_in[j];
    if (from_a) i++;
    else j++;
    uint q = t0 + o;
    S[q] = e.x;
    S[N + q] = e.y;
    S[2u * N + q] = e.z;
  }
}

#else
void main() {
  uint p = group_index() * WG_SIZE + gl_LocalInvocationID.x;
  if (p >= N) return;
  uint seg = I[p], pos = I[2u * N + p];
#if OFFSETS
  uint start = O[min(seg, NSEG)].x;
#else
  uint start = seg * LEN;
#endif
  Y[p] = uvec2(pos - start, 0u);
}
#endif
