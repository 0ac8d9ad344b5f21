#version 450
// NonMaxSuppression over one row of a run-time count of candidates (boxes
// [1,<=N,4], scores [1,1,<=N]: what batched NMS exports, the classes kept
// apart by coordinate offsets), on the whole GPU. codegen/kernels/nms.c
// instantiates the stages, passes/pass_split_nms.c chains them:
//
//   keys   = nms_keys boxes, scores           f32[1,2,N]: the score and -x_min
//   order  = argsort keys largest=1           score order, x order
//   prep   = nms_prep boxes, scores, order    i32[5,N+1]
//   state  = nms_round state, boxes, scores, order, prep    (a few times)
//   state  = nms_settle state, boxes, scores, order, prep
//   out    = nms_finish state, boxes, scores, order, prep
//
// A candidate's fate: kept unless a kept candidate above it (higher score;
// equal scores: lower index) overlaps it. Two boxes overlap only if their
// x ranges do, so the candidates that can decide one are those of a window
// of the x order: x_min below its x_max (a prefix: x_min ascends) and, of
// those, from the first whose running maximum of x_max (prefmax) passes its
// x_min. Class offsets keep a window within one class.
//
// STAGE 0, keys (a thread per capacity slot): row 0 the candidates' scores
//   (-0 as 0), row 1 -x_min of candidates with finite boxes ("windowed");
//   -inf elsewhere, past the count too: the stable descending sort puts
//   the live slots first in both rows. The boxes' and scores' counts must
//   agree (IR_DEVICE_ERROR_EXTENTS otherwise; the smaller is used).
// STAGE 1, prep (one workgroup): over the x order's windowed prefix (its
//   length n_x at word N of row 0), the running maximum of x_max as float
//   bits (row 0) and the sorted x_min (row 1); the segments of the x order
//   (one starts where no box before it reaches past its x_min: no box of
//   one overlaps a box of another, and no window crosses a start): their
//   starts in row 3 (their count at its word N), each box's in row 4; row 2
//   the state per box: UNDECIDED for windowed candidates, KEPT for
//   candidates whose box is not finite (such a box never overlaps, as in
//   the reference), NOT_CAND for the rest.
// STAGE 2, round (a thread per box, at most 2048 workgroups; Jacobi): an undecided box is REMOVED if
//   a kept box above it in its window overlaps it, KEPT if every box above
//   it that overlaps it is removed, else stays undecided. Each round decides
//   at least the highest undecided box; most are decided in a few, chains
//   of overlapping boxes take a round per link.
// STAGE 4, settle (workgroups striding over the segments; in place on the
//   executor's copy of the state, IR_STEP_COPY_IN0): a segment with
//   undecided boxes gathers them from the score order a chunk at a time
//   (everything above them then decided) and decides them 64 at a time,
//   WG_SIZE / 64 invocations scanning each box's window, in passes until
//   the 64 are decided (each pass decides at least the top undecided one).
// STAGE 3, finish (one workgroup): the kept boxes in score order become
//   (0, 0, box) triples, at most M; the count goes in the extent word (the
//   boxes' and scores' counts too: the extent ABI, extent.glsl).
//
// Bindings: keys 0 = boxes, 1 = scores, 2 = keys, 3 = error slot;
// prep 0 = boxes, 1 = scores, 2 = order (i64 as word pairs), 3 = prep;
// round and settle 0 = state in, 1 = boxes, 2 = scores, 3 = order, 4 = prep,
// 5 = state; finish: 0-4 as round, 5 = the triples (i64 as word pairs, then
// the count).
//
// Knobs (#defines): WG_SIZE (64 .. 1024). Baked per workload: STAGE,
// DTYPE_F16 (#defines); the capacity and attributes (specialization
// constants).

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1; // the capacity
layout(constant_id = 1) const bool CENTER = false;
layout(constant_id = 2) const uint MM = 1;
layout(constant_id = 3) const int ME = 0;
layout(constant_id = 4) const bool TIE_UP = false;
layout(constant_id = 5) const bool HAS_ST = false;
layout(constant_id = 6) const float STH = 0.0;
layout(constant_id = 7) const uint GX = 1;
layout(constant_id = 10) const uint M = 1;        // kept at most
layout(constant_id = 11) const uint STATE_AT = 0; // the state in the state input, in words
const uint NB = N;

const uint UNDECIDED = 0u, KEPT = 1u, REMOVED = 2u, NOT_CAND = 3u;
const uint ROW = N + 1u; // prep's row length
// prep's rows: running x_max (n_x after it), sorted x_min, the first state,
// segment starts (their count after them), each box's segment
const uint P_XMAX = 0u, P_XMIN = ROW, P_STATE = 2u * ROW, P_SEG = 3u * ROW, P_SEG_OF = 4u * ROW;

#if STAGE == 0
layout(set = 0, binding = 0) readonly buffer Bb { T BX[]; };
layout(set = 0, binding = 1) readonly buffer Sb { T SC[]; };
layout(set = 0, binding = 2) writeonly buffer Kb { float KEY[]; };
#define BOXES_AT 0
#define SCORES_AT 1
#define ERROR_BINDING 3
#include "device_error.glsl"
#elif STAGE == 1
layout(set = 0, binding = 0) readonly buffer Bb { T BX[]; };
layout(set = 0, binding = 1) readonly buffer Sb { T SC[]; };
layout(set = 0, binding = 2) readonly buffer Ob { uvec2 ORD[]; };
layout(set = 0, binding = 3) writeonly buffer Pb { uint PREP[]; };
#define BOXES_AT 0
#define SCORES_AT 1
#else
layout(set = 0, binding = 0) readonly buffer Ib { uint STATE_IN[]; };
layout(set = 0, binding = 1) readonly buffer Bb { T BX[]; };
layout(set = 0, binding = 2) readonly buffer Sb { T SC[]; };
layout(set = 0, binding = 3) readonly buffer Ob { uvec2 ORD[]; };
layout(set = 0, binding = 4) readonly buffer Pb { uint PREP[]; };
#define BOXES_AT 1
#define SCORES_AT 2
#if STAGE == 2
layout(set = 0, binding = 5) writeonly buffer Yb { uint STATE[]; };
#elif STAGE == 3
layout(set = 0, binding = 5) writeonly buffer Tb { uvec2 Y[]; };
#else
layout(set = 0, binding = 5) coherent buffer Yb { uint STATE[]; };
#endif
#endif

#include "nms_iou.glsl"
#include "extent.glsl" // the boxes' and scores' counts; finish: the output's

#define NEG_INF uintBitsToFloat(0xff800000u)

bool candidate(float sc) { return !isnan(sc) && !(HAS_ST && !(sc > STH)); }

// all four coordinates finite (a box that is not never overlaps another)
bool finite_box(vec4 b) {
  uvec4 e = floatBitsToUint(b) & 0x7f800000u;
  return all(notEqual(e, uvec4(0x7f800000u)));
}

uint live_count() { return min(vkml_extent(SCORES_AT), N); }

#if STAGE == 0
void main() {
  uint i = (gl_WorkGroupID.y * GX + gl_WorkGroupID.x) * WG_SIZE + gl_LocalInvocationID.x;
  if (i >= N) return;
  uint ns = vkml_extent(SCORES_AT), nb = vkml_extent(BOXES_AT);
  if (i == 0u && ns != nb) report_error(3u, 0u, nb, 0u, 1u, ns);
  float sk = NEG_INF, xk = NEG_INF;
  if (i < min(min(ns, nb), N)) {
    float sc = float(SC[i]);
    if (candidate(sc)) {
      sk = (floatBitsToUint(sc) & 0x7fffffffu) == 0u ? 0.0 : sc;
      vec4 b = load_box(0u, i);
      if (finite_box(b)) xk = -b.x;
    }
  }
  KEY[i] = sk;
  KEY[N + i] = xk;
}

#elif STAGE == 1
shared uint s_count[WG_SIZE];
shared float s_max[WG_SIZE];
shared float s_min[WG_SIZE];

void main() {
  uint lid = gl_LocalInvocationID.x, n = live_count();
  // the state per box, and how many are windowed
  uint windowed = 0u;
  for (uint i = lid; i < n; i += WG_SIZE) {
    float sc = float(SC[i]);
    uint st = NOT_CAND;
    if (candidate(sc)) {
      bool fin = finite_box(load_box(0u, i));
      st = fin ? UNDECIDED : KEPT;
      windowed += fin ? 1u : 0u;
    }
    PREP[P_STATE + i] = st;
  }
  s_count[lid] = windowed;
  barrier();
  for (uint d = WG_SIZE >> 1; d > 0u; d >>= 1) {
    if (lid < d) s_count[lid] += s_count[lid + d];
    barrier();
  }
  uint nx = s_count[0];
  barrier();
  // along the x order a chunk at a time: the running maximum of x_max, and
  // the segments: one starts where no box before reaches past its x_min
  float carry = NEG_INF;
  uint segs = 0u;
  for (uint base = 0u; base < nx; base += WG_SIZE) {
    uint p = base + lid, i = 0u;
    float xmax = NEG_INF, xmin = NEG_INF;
    if (p < nx) {
      i = ORD[N + p].x;
      vec4 b = load_box(0u, i);
      xmax = b.z;
      xmin = b.x;
      PREP[P_XMIN + p] = floatBitsToUint(xmin);
    }
    s_max[lid] = xmax;
    barrier();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
      float v = lid >= d ? s_max[lid - d] : NEG_INF;
      barrier();
      s_max[lid] = max(s_max[lid], v);
      barrier();
    }
    float run = max(carry, s_max[lid]);
    float before = lid == 0u ? carry : max(carry, s_max[lid - 1u]);
    if (p < nx) PREP[P_XMAX + p] = floatBitsToUint(run);
    bool start = p < nx && (p == 0u || before <= xmin);
    s_count[lid] = start ? 1u : 0u;
    barrier();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
      uint v = lid >= d ? s_count[lid - d] : 0u;
      barrier();
      s_count[lid] += v;
      barrier();
    }
    uint seg = segs + s_count[lid] - 1u; // p's segment
    if (start) PREP[P_SEG + seg] = p;
    if (p < nx) PREP[P_SEG_OF + i] = seg;
    carry = max(carry, s_max[WG_SIZE - 1u]);
    segs += s_count[WG_SIZE - 1u];
    barrier();
  }
  if (lid == 0u) {
    PREP[P_XMAX + N] = nx;
    PREP[P_SEG + N] = segs;
  }
}

#else
// box j is above box i: a higher score, or an equal one and a lower index
bool above(float sj, uint j, float si, uint i) { return sj > si || (sj == si && j < i); }

// i's fate from the states in S, over the window positions lane, lane +
// LANES, ...: REMOVED (a kept box above it overlaps it), UNDECIDED (one
// that overlaps it is undecided) or KEPT, from these positions alone
#define DECIDE(S, S_AT)                                                         \
  uint decide_##S(uint i, uint lane, uint lanes) {                            \
    vec4 bi = load_box(0u, i);                                                \
    float si = float(SC[i]);                                                  \
    uint nx = PREP[P_XMAX + N];                                               \
    /* end: the first x_min at or past bi's x_max */                          \
    uint lo = 0u, hi = nx;                                                    \
    while (lo < hi) {                                                         \
      uint mid = (lo + hi) >> 1;                                              \
      if (uintBitsToFloat(PREP[P_XMIN + mid]) < bi.z) lo = mid + 1u;          \
      else hi = mid;                                                          \
    }                                                                         \
    uint end = lo;                                                            \
    /* lo: the first running x_max past bi's x_min */                         \
    lo = 0u, hi = end;                                                        \
    while (lo < hi) {                                                         \
      uint mid = (lo + hi) >> 1;                                              \
      if (uintBitsToFloat(PREP[P_XMAX + mid]) > bi.x) hi = mid;               \
      else lo = mid + 1u;                                                     \
    }                                                                         \
    bool pending = false;                                                     \
    for (uint p = lo + lane; p < end; p += lanes) {                           \
      uint j = ORD[N + p].x;                                                  \
      if (j == i) continue;                                                   \
      uint st = S[S_AT + j];                                                  \
      if (st == REMOVED || (pending && st == UNDECIDED)) continue;            \
      if (!above(float(SC[j]), j, si, i)) continue;                           \
      if (!overlaps(load_box(0u, j), bi)) continue;                           \
      if (st == KEPT) return REMOVED;                                         \
      pending = true;                                                         \
    }                                                                         \
    return pending ? UNDECIDED : KEPT;                                        \
  }

#if STAGE == 2
DECIDE(STATE_IN, STATE_AT)

// a grid of at most 2048 workgroups striding over the count, not the
// capacity
void main() {
  uint n = live_count(), step = gl_NumWorkGroups.x * WG_SIZE;
  for (uint i = gl_WorkGroupID.x * WG_SIZE + gl_LocalInvocationID.x; i < n; i += step) {
    uint st = STATE_IN[STATE_AT + i];
    STATE[i] = st == UNDECIDED ? decide_STATE_IN(i, 0u, 1u) : st;
  }
}

#elif STAGE == 3
shared uint s_flag[WG_SIZE];

// the kept boxes in score order as triples, at most M (settle decided all)
void main() {
  uint lid = gl_LocalInvocationID.x, n = live_count(), total = 0u;
  for (uint base = 0u; base < n && total < M; base += WG_SIZE) {
    uint p = base + lid, i = p < n ? ORD[p].x : 0u;
    uint st = p < n ? STATE_IN[i] : NOT_CAND;
    s_flag[lid] = st == KEPT ? 1u : 0u;
    barrier();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
      uint v = lid >= d ? s_flag[lid - d] : 0u;
      barrier();
      s_flag[lid] += v;
      barrier();
    }
    uint at = total + s_flag[lid] - 1u;
    if (st == KEPT && at < M) {
      Y[at * 3u] = uvec2(0u);
      Y[at * 3u + 1u] = uvec2(0u);
      Y[at * 3u + 2u] = uvec2(i, 0u);
    }
    total += s_flag[WG_SIZE - 1u];
    barrier();
  }
  if (lid == 0u) vkml_set_extent(5, min(total, M));
}

#else
DECIDE(STATE, 0u)

// per segment (a workgroup each, strided): its undecided boxes gathered
// from the score order a chunk at a time, then decided CH at a time with
// LANES invocations on each box's window (the scans are the latency)
const uint CH = WG_SIZE >= 64u ? 64u : WG_SIZE, LANES = WG_SIZE / CH;

shared uint s_list[WG_SIZE];
shared uint s_flag[WG_SIZE];
shared uint s_st[CH];
shared uint s_lane[WG_SIZE];
shared bool s_more;

// decides s_list[0..count) in order: all boxes above them are decided
void settle_list(uint count) {
  uint lid = gl_LocalInvocationID.x, slot = lid / LANES, lane = lid - slot * LANES;
  for (uint sub = 0u; sub < count; sub += CH) {
    uint q = sub + slot, i = q < count ? s_list[q] : 0u;
    if (lane == 0u) s_st[slot] = q < count ? UNDECIDED : NOT_CAND;
    barrier();
    for (;;) {
      uint st = s_st[slot];
      s_lane[lid] = st == UNDECIDED ? decide_STATE(i, lane, LANES) : st;
      if (lid == 0u) s_more = false;
      barrier();
      if (lane == 0u && st == UNDECIDED) {
        uint nst = KEPT;
        for (uint l = 0u; l < LANES; l++) {
          uint v = s_lane[lid + l];
          if (v == REMOVED) nst = REMOVED;
          else if (v == UNDECIDED && nst == KEPT) nst = UNDECIDED;
        }
        s_st[slot] = nst;
        if (nst != UNDECIDED) STATE[i] = nst;
        else s_more = true;
      }
      memoryBarrierBuffer();
      barrier();
      bool more = s_more;
      barrier(); // every invocation has read the flag before it is reset
      if (!more) break;
    }
  }
}

void main() {
  uint lid = gl_LocalInvocationID.x, n = live_count();
  uint segs = PREP[P_SEG + N], nx = PREP[P_XMAX + N];
  for (uint seg = gl_WorkGroupID.x; seg < segs; seg += gl_NumWorkGroups.x) {
    uint a = PREP[P_SEG + seg], b = seg + 1u < segs ? PREP[P_SEG + seg + 1u] : nx;
    // how many of its boxes are undecided
    uint left = 0u;
    for (uint p = a + lid; p < b; p += WG_SIZE)
      left += STATE[ORD[N + p].x] == UNDECIDED ? 1u : 0u;
    s_flag[lid] = left;
    barrier();
    for (uint d = WG_SIZE >> 1; d > 0u; d >>= 1) {
      if (lid < d) s_flag[lid] += s_flag[lid + d];
      barrier();
    }
    left = s_flag[0];
    barrier();
    // the score order until they are all decided
    for (uint base = 0u; base < n && left > 0u; base += WG_SIZE) {
      uint p = base + lid, i = p < n ? ORD[p].x : 0u;
      bool mine = p < n && STATE[i] == UNDECIDED && PREP[P_SEG_OF + i] == seg;
      s_flag[lid] = mine ? 1u : 0u;
      barrier();
      for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        uint v = lid >= d ? s_flag[lid - d] : 0u;
        barrier();
        s_flag[lid] += v;
        barrier();
      }
      if (mine) s_list[s_flag[lid] - 1u] = i;
      uint count = s_flag[WG_SIZE - 1u];
      barrier();
      settle_list(count);
      left -= count;
      barrier();
    }
  }
}
#endif
#endif
