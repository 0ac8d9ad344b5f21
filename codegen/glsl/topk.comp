#version 450
// TopK along one axis by selection (codegen/kernels/topk.c): one workgroup per
// row (the LEN elements along the axis for one (outer, inner) pair).
//
// Bindings: 0 = x (DTYPE), 1 = values (DTYPE), 2 = indices (i64 as word
// pairs), dense C order; outputs [.., K, ..] in sorted order.
//
// Order (as the CPU reference): every element gets a 32-bit key that grows
// with its value (NaN above +inf, every NaN alike; smallest: the key
// inverted), and ties go to the lower index, so the order is that of the
// pair (key descending, index ascending), distinct for every element.
// 1. Radix select: four passes of 8-bit histograms in shared memory over
//    the elements that share the digits found so far (the digit found by a
//    scan of the histogram's suffix sums) give the K-th largest key T and
//    how many elements equal to T belong to the top K.
// 2. Collection: the elements above T go to shared memory in any order;
//    those equal to T in index order (a Hillis-Steele scan over each chunk
//    ranks them) until enough are taken. Exactly K candidates.
// 3. A bitonic sort of the candidates (padded to P, a power of two) in
//    shared memory; the first K are written, their values copied from x.
//
// RUNTIME_K: k is an input (binding 1, i64) read on the device, one row
// (ROWS = INNER = 1); K is then its upper bound known at compile time (it
// sizes P) and x may be bounded along the axis (its count through the
// extent ABI, extent.glsl). A k outside [0, count] or above K is reported
// in the error slot (kind 4; binding 4) and clamped. The outputs are
// bounded: invocation 0 writes k as their extents.
//
// Knob (#define): WG_SIZE. Baked per workload (#defines): DTYPE (0 f32,
//   1 f16, 2 i32), P (room for the candidates: it sizes shared memory),
//   RUNTIME_K; specialization constants ROWS, LEN, INNER, K, LARGEST, GX.

#extension GL_EXT_control_flow_attributes : enable
// shared-memory atomics at workgroup scope (a plain atomicAdd is device
// scope, invalid where vulkanMemoryModel is on without its device scope)
#extension GL_KHR_memory_scope_semantics : require
#if DTYPE == 1
#extension GL_EXT_shader_16bit_storage : require
#define ST float16_t
#elif DTYPE == 2
#define ST int
#else
#define ST float
#endif
#define WG_ADD(m) atomicAdd(m, 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelaxed)

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint ROWS = 1;
layout(constant_id = 1) const uint LEN = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const uint K = 1;
layout(constant_id = 4) const bool LARGEST = true;
layout(constant_id = 5) const uint GX = 1;

#ifndef RUNTIME_K
#define RUNTIME_K 0
#endif
#if RUNTIME_K
#define VB 2
#define IB 3
#else
#define VB 1
#define IB 2
#endif
layout(set = 0, binding = 0) readonly buffer Xb { ST X[]; };
layout(set = 0, binding = VB) writeonly buffer Vb { ST V[]; };
layout(set = 0, binding = IB) writeonly buffer Ib { uvec2 I[]; };
#if RUNTIME_K
layout(set = 0, binding = 1) readonly buffer Kb { uvec2 KIN[]; };
#include "extent.glsl"
#define ERROR_BINDING 4
#include "device_error.glsl"
#endif

shared uint s_hist[256];
shared uint s_suf[2][256];
shared uint s_key[P];
shared uint s_idx[P];
shared uint s_scan[2][WG_SIZE];
shared uint s_prefix, s_remaining, s_count;

uint src_at(uint o, uint i, uint j) { return (o * LEN + j) * INNER + i; } // ROWS 1 when bounded

uint key_of(uint at) {
#if DTYPE == 2
  uint u = uint(X[at]) ^ 0x80000000u;
#else
  float v = float(X[at]);
  uint b = floatBitsToUint(v);
  uint u = isnan(v) ? 0xffffffffu : ((b & 0x80000000u) != 0u ? ~b : b | 0x80000000u);
#endif
  return LARGEST ? u : ~u;
}

// a comes before b: larger key, then lower index
bool before(uint ka, uint ia, uint kb, uint ib) { return ka > kb || (ka == kb && ia < ib); }

// Whether K keeps the collection's slots inside s_key / s_idx: at most k
// (<= K) slots when K <= P, and k <= LEN for a static k (a runtime k is
// clamped to the row below). The host's values always do; a forged artifact
// may not, and robust buffer access does not cover workgroup memory: then
// the kernel returns at once (uniformly, before any barrier), its outputs
// left unwritten. Variables, not a constant expression (as rowmap_lanes_ok).
bool k_ok() {
  uint kk = K, ll = LEN;
  return kk <= uint(P) && (RUNTIME_K != 0 || kk <= ll);
}

void main() {
  if (!k_ok()) return;
  uint row = gl_WorkGroupID.y * GX + gl_WorkGroupID.x;
  uint lid = gl_LocalInvocationID.x;
  uint len = LEN, k = K;
#if RUNTIME_K
#if VKML_EXT_HAS(0)
  len = min(LEN, vkml_extent(0));
#endif
  uvec2 kw = KIN[0];
  uint most = min(len, K);
  if (kw.y == 0u && kw.x <= most) {
    k = kw.x;
  } else {
    if (row == 0u && lid == 0u) report_error(4u, 0u, kw.x, kw.y, 0u, len);
    k = kw.y == 0u ? most : 0u;
  }
  if (row == 0u && lid == 0u) {
    vkml_set_extent(VB, k);
    vkml_set_extent(IB, k);
  }
#endif
  if (row >= ROWS || k == 0u) return;
  uint o = row / INNER, i = row - o * INNER;

  // 1. radix select of the k-th largest key
  uint prefix = 0u, mask = 0u, remaining = k;
  [[unroll]] for (int shift = 24; shift >= 0; shift -= 8) {
    for (uint b = lid; b < 256u; b += WG_SIZE) s_hist[b] = 0u;
    barrier();
    for (uint j = lid; j < len; j += WG_SIZE) {
      uint u = key_of(src_at(o, i, j));
      if ((u & mask) == prefix) WG_ADD(s_hist[(u >> uint(shift)) & 255u]);
    }
    barrier();
    // suffix sums of the histogram (Hillis-Steele, double-buffered): the
    // digit is the one bin whose suffix reaches `remaining` while the
    // next one's does not
    for (uint b = lid; b < 256u; b += WG_SIZE) s_suf[0][b] = s_hist[b];
    barrier();
    uint src = 0u;
    for (uint d = 1u; d < 256u; d <<= 1) {
      for (uint b = lid; b < 256u; b += WG_SIZE)
        s_suf[1u - src][b] = s_suf[src][b] + (b + d < 256u ? s_suf[src][b + d] : 0u);
      src = 1u - src;
      barrier();
    }
    for (uint b = lid; b < 256u; b += WG_SIZE) {
      uint above = b < 255u ? s_suf[src][b + 1u] : 0u;
      if (s_suf[src][b] >= remaining && above < remaining) {
        s_prefix = prefix | (b << uint(shift));
        s_remaining = remaining - above;
      }
    }
    barrier();
    prefix = s_prefix;
    remaining = s_remaining;
    mask |= 255u << uint(shift);
    barrier();
  }
  uint T = prefix, need = remaining; // take `need` elements equal to T

  // 2. collection
  if (lid == 0u) s_count = 0u;
  barrier();
  uint taken = 0u;
  for (uint base = 0u; base < len; base += WG_SIZE) {
    uint j = base + lid;
    uint u = j < len ? key_of(src_at(o, i, j)) : 0u;
    bool gt = j < len && u > T, eq = j < len && u == T;
    if (gt) {
      uint slot = WG_ADD(s_count);
      s_key[slot] = u;
      s_idx[slot] = j;
    }
    if (taken < need) { // uniform: every invocation holds the same count
      s_scan[0][lid] = eq ? 1u : 0u;
      barrier();
      uint src = 0u;
      for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        uint x = s_scan[src][lid];
        if (lid >= d) x += s_scan[src][lid - d];
        s_scan[1u - src][lid] = x;
        src = 1u - src;
        barrier();
      }
      uint rank = taken + s_scan[src][lid] - (eq ? 1u : 0u);
      if (eq && rank < need) {
        uint slot = WG_ADD(s_count);
        s_key[slot] = u;
        s_idx[slot] = j;
      }
      taken += s_scan[src][WG_SIZE - 1u];
      barrier();
    }
  }
  barrier();
  for (uint t = k + lid; t < P; t += WG_SIZE) {
    s_key[t] = 0u;
    s_idx[t] = 0xffffffffu;
  }
  barrier();

  // 3. bitonic sort, descending by (key, -index)
  for (uint size = 2u; size <= P; size <<= 1) {
    for (uint stride = size >> 1; stride > 0u; stride >>= 1) {
      for (uint t = lid; t < P; t += WG_SIZE) {
        uint q = t ^ stride;
        if (q > t) {
          bool down = (t & size) == 0u; // this run ends up descending
          uint ka = s_key[t], ia = s_idx[t], kb = s_key[q], ib = s_idx[q];
          if (before(kb, ib, ka, ia) == down) {
            s_key[t] = kb;
            s_idx[t] = ib;
            s_key[q] = ka;
            s_idx[q] = ia;
          }
        }
      }
      barrier();
    }
  }

  for (uint t = lid; t < k; t += WG_SIZE) {
    uint j = s_idx[t];
    uint dst = (o * k + t) * INNER + i; // k = K but for RUNTIME_K (one row)
    V[dst] = X[src_at(o, i, j)];
    I[dst] = uvec2(j, 0u);
  }
}
