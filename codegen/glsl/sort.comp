#version 450
// Segmented argsort, the stages of the integrated-GPU TVM paper's sort
// (codegen/kernels/sort.c instantiates them; passes/pass_split_sort.c chains
// them). Every element becomes a triple (segment, order key, position) and
// the triples are sorted ascending, which sorts each segment by key and
// keeps equal keys in position order (stable). The state between stages is
// i32[KEYW + 2, N]: plane 0 the segments, then the keys (KEYW words: 1, or
// 2 for i64, high word first), then the positions.
//
// STAGE 0, block: one workgroup sorts a block of WIDTH = WG_SIZE * R
//   triples in shared memory (bitonic; the tail padded with triples above
//   every other). Blocks start at the array's start (offsets) or at each
//   row's (rows: a row never shares a block). Bindings: 0 = x (DTYPE),
//   [1 = offsets (i64 as word pairs) when OFFSETS], then the state.
// STAGE 1, merge: runs of WIDTH become runs of 2 WIDTH, from the array's
//   start or, with LEN > 0, each row's (the rounds stop once a run holds
//   a row). A triple's place in the merged run is its index in its own run
//   plus the number of triples of the other run below it (a binary
//   search). Segments that lie on one side of the boundary between the two
//   runs do not interleave: their triples stay where they are and need no
//   search; only the segment that spans the boundary is merged.
//   Bindings: 0 = state in, 1 = state out.
// STAGE 2, index: the positions as i64 indices within their segments.
//   Bindings: 0 = state, [1 = offsets when OFFSETS], then y (i64 as word
//   pairs).
//
// The order key (as runtime/cpu/k_sort.c): grows with the value, NaN above
// +inf (every NaN alike), -0 as +0; inverted for LARGEST. Segments: rows of
// LEN along the last axis, or offsets[S+1] (the segment of position p is
// the last one starting at or before p: empty segments hold nothing).
//
// Knobs (#defines): WG_SIZE; R (block stage: WIDTH / WG_SIZE). Baked per workload: STAGE,
//   DTYPE (0 f32, 1 f16, 2 i32, 3 i64), KEYW, OFFSETS (#defines); N, LEN (the row
//   length; merge: 0 for the whole array), NSEG, WIDTH, LARGEST, GX
//   (specialization constants).

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE == 1
#extension GL_EXT_shader_16bit_storage : require
#define ST float16_t
#elif DTYPE == 2
#define ST int
#elif DTYPE == 3
#define ST uvec2 // i64 as word pairs (low, high)
#else
#define ST float
#endif
// the state's planes: segment, KEYW key words (high first), position
#define POSP ((uint(KEYW) + 1u) * N) // the position plane's first element

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

// a before b: (segment, key high, key low, position) compared in order
// (a 32-bit key has its high word 0)
bool before(uvec4 a, uvec4 b) {
  return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z != b.z ? a.z < b.z : a.w < b.w;
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
#if KEYW == 2
shared uint s_khi[BLOCK];
#define KHI_AT(t) s_khi[t]
#else
#define KHI_AT(t) 0u
#endif
shared uint s_key[BLOCK];
shared uint s_pos[BLOCK];

// (high, low) words of the order key
uvec2 key_of(uint p) {
#if DTYPE == 3
  uvec2 u = uvec2(X[p].y ^ 0x80000000u, X[p].x);
#elif DTYPE == 2
  uvec2 u = uvec2(0u, uint(X[p]) ^ 0x80000000u);
#else
  float v = float(X[p]);
  uint b = floatBitsToUint(v);
  uvec2 u = uvec2(0u, isnan(v) ? 0xffffffffu
                               : v == 0.0 ? 0x80000000u
                                          : ((b & 0x80000000u) != 0u ? ~b : b | 0x80000000u));
#endif
  return LARGEST ? uvec2(KEYW == 2u ? ~u.x : 0u, ~u.y) : u;
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
    uvec2 key = in_range ? key_of(p) : uvec2(0xffffffffu);
#if KEYW == 2
    s_khi[t] = key.x;
#endif
    s_key[t] = key.y;
    s_pos[t] = in_range ? p : 0xffffffffu;
  }
  barrier();
  // bitonic: the BLOCK / 2 pairs (t, t + j) of a step spread over the
  // invocations, R / 2 each (one pair for half of them when R is 1)
  for (uint k = 2u; k <= BLOCK; k <<= 1) {
    for (uint j = k >> 1; j > 0u; j >>= 1) {
      for (uint i = lid; i < BLOCK / 2u; i += WG_SIZE) {
        uint low = i & (j - 1u), t = ((i - low) << 1) | low, q = t | j;
        uvec4 a = uvec4(SEG_AT(t), KHI_AT(t), s_key[t], s_pos[t]);
        uvec4 b = uvec4(SEG_AT(q), KHI_AT(q), s_key[q], s_pos[q]);
        if (before(b, a) == ((t & k) == 0u)) {
#if OFFSETS
          s_seg[t] = b.x, s_seg[q] = a.x;
#endif
#if KEYW == 2
          s_khi[t] = b.y, s_khi[q] = a.y;
#endif
          s_key[t] = b.z, s_pos[t] = b.w;
          s_key[q] = a.z, s_pos[q] = a.w;
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
#if KEYW == 2
      S[N + p] = s_khi[t];
#endif
      S[KEYW * N + p] = s_key[t];
      S[POSP + p] = s_pos[t];
    }
  }
}

#elif STAGE == 1
uvec4 at(uint p) {
  return uvec4(I[p], KEYW == 2u ? I[N + p] : 0u, I[KEYW * N + p], I[POSP + p]);
}

// how many triples of [lo, hi) come before e (the runs are sorted)
uint rank_in(uint lo, uint hi, uvec4 e) {
  uint a = lo, b = hi;
  while (a < b) {
    uint mid = (a + b) >> 1;
    if (before(at(mid), e)) a = mid + 1u;
    else b = mid;
  }
  return a - lo;
}

void main() {
  uint p = group_index() * WG_SIZE + gl_LocalInvocationID.x;
  if (p >= N) return;
  uvec4 e = at(p);
  uint start = LEN > 0u ? p - p % LEN : 0u, end = LEN > 0u ? start + LEN : N;
  uint lo = start + ((p - start) & ~(2u * WIDTH - 1u)), mid = lo + WIDTH;
  uint dest = p;
  if (mid < end) {
    uint hi = min(lo + 2u * WIDTH, end);
    if (p < mid) {
      // in the first run: after the second run's triples below it
      if (before(at(mid), e)) dest = p + rank_in(mid, hi, e);
    } else {
      // in the second run: after the first run's triples below it
      uint r = before(at(mid - 1u), e) ? WIDTH : rank_in(lo, mid, e);
      dest = lo + (p - mid) + r;
    }
  }
  S[dest] = e.x;
  if (KEYW == 2u) S[N + dest] = e.y;
  S[KEYW * N + dest] = e.z;
  S[POSP + dest] = e.w;
}

#else
void main() {
  uint p = group_index() * WG_SIZE + gl_LocalInvocationID.x;
  if (p >= N) return;
  uint seg = I[p], pos = I[POSP + p];
#if OFFSETS
  uint start = O[min(seg, NSEG)].x;
#else
  uint start = seg * LEN;
#endif
  Y[p] = uvec2(pos - start, 0u);
}
#endif
