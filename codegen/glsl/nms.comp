#version 450
// NonMaxSuppression's GPU stages (ONNX semantics, as the CPU reference and
// onnxruntime); codegen/kernels/sort.c instantiates them, passes/pass_split_nms.c
// chains them after the segmented argsort of the scores.
//
// STAGE 0, select: one workgroup per (batch, class) row walks the row's
//   boxes in score order (the argsort), in chunks of 64 candidates:
//   1. the chunk's boxes and scores go to shared memory; a NaN score is no
//      candidate, nor one at or below score_threshold (and, the order being
//      descending, neither is anything after it: the walk stops there);
//   2. every (kept box, candidate) pair is tested across the invocations,
//      without a branch per box: a candidate that overlaps a box kept
//      before the chunk is out;
//   3. the overlaps inside the chunk as a 64-bit mask per candidate (which
//      later candidates it would suppress), across the invocations;
//   4. one invocation walks the chunk in order with those masks: a
//      candidate neither out nor removed by a kept one before it is kept.
//   The walk ends at M kept boxes. Output: the kept box indices per row,
//   i32[B,C,M] in kept (score) order, the rest -1.
//   Bindings: 0 = boxes [B,N,4] (DTYPE), 1 = scores [B,C,N] (DTYPE),
//   2 = order [B,C,N] (i64 as word pairs), 3 = selected.
// STAGE 1, compact: the rows become (batch, class, box) triples
//   i64[<=B*C*M,3] in row order, a workgroup per row: its first output row
//   is the exclusive prefix sum of the rows' kept counts (each count a
//   binary search for the row's first -1; the counts before the row summed
//   across the invocations, then a tree in shared memory), and its triples
//   are written an element per invocation. The last row's workgroup writes
//   the total as the bounded output's extent (the extent ABI, extent.glsl).
//   Bindings: 0 = selected, 1 = output (i64 as word pairs, then the count).
//
// Overlap: glsl/nms_iou.glsl.
//
// Knobs (#defines): WG_SIZE (64, 128 or 256: the kept-vs-candidate tests of
// a chunk spread over all of them). Baked per workload: STAGE,
// DTYPE_F16, KEPT_SHARED (kept boxes held in shared memory; the rest are
// read back by index) (#defines); the sizes and attributes
// (specialization constants).

#extension GL_EXT_control_flow_attributes : enable
// buffer memory shared within the workgroup at workgroup scope (device
// scope is invalid where vulkanMemoryModel is on without its device scope)
#extension GL_KHR_memory_scope_semantics : require
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint B = 1;
layout(constant_id = 1) const uint C = 1;
layout(constant_id = 2) const uint NB = 1; // boxes per batch
layout(constant_id = 3) const uint M = 1;  // kept per row at most
layout(constant_id = 4) const bool CENTER = false;
layout(constant_id = 5) const uint MM = 1;
layout(constant_id = 6) const int ME = 0;
layout(constant_id = 7) const bool TIE_UP = false;
layout(constant_id = 8) const bool HAS_ST = false;
layout(constant_id = 9) const float STH = 0.0;
layout(constant_id = 10) const uint GX = 1;

#if STAGE == 0
layout(set = 0, binding = 0) readonly buffer Bb { T BX[]; };
layout(set = 0, binding = 1) readonly buffer Sb { T SC[]; };
layout(set = 0, binding = 2) readonly buffer Ob { uvec2 ORD[]; };
layout(set = 0, binding = 3) workgroupcoherent buffer Kb { int SEL[]; };

#include "nms_iou.glsl"

shared vec4 s_kept[KEPT_SHARED];
shared vec4 s_box[64];
shared int s_idx[64];
shared bool s_cand[64];
shared bool s_out[64];
shared bool s_below[64];
shared uint s_mask[64][2];
shared uint s_nkept;
shared bool s_stop;

vec4 kept_box(uint b, uint row, uint q) {
  return q < KEPT_SHARED ? s_kept[q] : load_box(b, uint(SEL[row * M + q]));
}

void main() {
  uint row = gl_WorkGroupID.y * GX + gl_WorkGroupID.x;
  if (row >= B * C) return;
  uint lid = gl_LocalInvocationID.x, b = row / C;
  if (lid == 0u) {
    s_nkept = 0u;
    s_stop = M == 0u;
  }
  barrier();
  for (uint base = 0u; base < NB && !s_stop; base += 64u) {
    if (lid < 64u) {
      uint j = base + lid;
      bool cand = false, below = false;
      int idx = -1;
      vec4 box = vec4(0.0);
      if (j < NB) {
        idx = int(ORD[row * NB + j].x);
        float sc = float(SC[row * NB + uint(idx)]);
        cand = !isnan(sc) && !(HAS_ST && !(sc > STH));
        below = !isnan(sc) && !cand; // then all after it score no higher
        box = load_box(b, uint(idx));
      }
      s_box[lid] = box;
      s_idx[lid] = idx;
      s_cand[lid] = cand;
      s_out[lid] = false;
      s_below[lid] = below;
    }
    barrier();
    // 2. against the boxes kept before this chunk
    uint nk = s_nkept;
    for (uint p = lid; p < 64u * nk; p += WG_SIZE) {
      uint t = p & 63u; // s_out[t] only ever turns true: reading it early is safe
      if (s_cand[t] && !s_out[t] && overlaps(kept_box(b, row, p >> 6), s_box[t])) s_out[t] = true;
    }
    // 3. inside the chunk: bit u of candidate t's mask, u > t
    for (uint p = lid; p < 128u; p += WG_SIZE) {
      uint t = p & 63u, w = p >> 6, bits = 0u;
      vec4 bt = s_box[t];
      for (uint k = 0u; k < 32u; k++) {
        uint u = w * 32u + k;
        if (u > t && s_cand[t] && s_cand[u] && overlaps(bt, s_box[u])) bits |= 1u << k;
      }
      s_mask[t][w] = bits;
    }
    barrier();
    // 4. in order
    if (lid == 0u) {
      uint removed0 = 0u, removed1 = 0u, k = nk;
      for (uint t = 0u; t < 64u && k < M; t++) {
        uint gone = t < 32u ? (removed0 >> t) & 1u : (removed1 >> (t - 32u)) & 1u;
        if (!s_cand[t] || s_out[t] || gone != 0u) continue;
        SEL[row * M + k] = s_idx[t];
        if (k < KEPT_SHARED) s_kept[k] = s_box[t];
        k++;
        removed0 |= s_mask[t][0];
        removed1 |= s_mask[t][1];
      }
      s_nkept = k;
      bool below = false;
      for (uint t = 0u; t < 64u; t++) below = below || s_below[t];
      // s_stop is written here only, between the barriers, and read at
      // the loop's head by every invocation alike
      if (k >= M || below) s_stop = true;
    }
    // the kept indices written above are read back by kept_box
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                   gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
  }
  for (uint q = s_nkept + lid; q < M; q += WG_SIZE) SEL[row * M + q] = -1;
}

#else
layout(set = 0, binding = 0) readonly buffer Kb { int SEL[]; };
layout(set = 0, binding = 1) writeonly buffer Yb { uvec2 Y[]; };
#include "extent.glsl" // the output's count

shared uint s_part[WG_SIZE];

// kept boxes in a row: the first -1 (kept ones come first)
uint row_count(uint row) {
  uint lo = 0u, hi = M;
  while (lo < hi) {
    uint mid = (lo + hi) >> 1;
    if (SEL[row * M + mid] >= 0) lo = mid + 1u;
    else hi = mid;
  }
  return lo;
}

void main() {
  uint row = gl_WorkGroupID.y * GX + gl_WorkGroupID.x, lid = gl_LocalInvocationID.x;
  if (B * C == 0u && row == 0u && lid == 0u) vkml_set_extent(1, 0u); // no rows, no boxes
  if (row >= B * C) return;
  // the row's first output: the kept boxes of the rows before it
  uint before = 0u;
  for (uint q = lid; q < row; q += WG_SIZE) before += row_count(q);
  s_part[lid] = before;
  barrier();
  for (uint d = WG_SIZE >> 1; d > 0u; d >>= 1) {
    if (lid < d) s_part[lid] += s_part[lid + d];
    barrier();
  }
  uint first = s_part[0], n = row_count(row), bb = row / C, cc = row - bb * C;
  for (uint q = lid; q < n; q += WG_SIZE) {
    uint o = (first + q) * 3u;
    Y[o] = uvec2(bb, 0u);
    Y[o + 1u] = uvec2(cc, 0u);
    Y[o + 2u] = uvec2(uint(SEL[row * M + q]), 0u);
  }
  if (row == B * C - 1u && lid == 0u) vkml_set_extent(1, first + n);
}
#endif
