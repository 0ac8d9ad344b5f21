#version 450
// softmax / log_softmax along one axis, fused: one pass computes each row's
// maximum and sum of exponentials together (online: the sum is rescaled when
// the maximum grows), the lanes of a row combine their (max, sum) pairs, and
// a second pass writes exp(x - max) / sum or (x - max) - log(sum).
// codegen/kernels/norm.c instantiates it.
//
// Bindings: 0 = x, 1 = y (same shape), dense C order of DTYPE.
// Mapping, knobs and specialization constants as glsl/reduce.comp: row o,
// element k is at base(o) + off(k) in x and in y.
// Baked per workload: DTYPE_F16 (#define), LOG_SOFTMAX (specialization
//   constant 42). CACHE (#define, from the host): when a lane's share of a
//   row takes at most CACHE loads, the first pass keeps it in registers and
//   the second reads it from there, so x is read once.
// As the reference: a NaN or +inf in a row, or a row of -inf, gives NaN.

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#endif
#if USE_SG
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#endif

#if DTYPE_F16
#define T float16_t
#define T2 f16vec2
#define T4 f16vec4
#else
#define T float
#define T2 vec2
#define T4 vec4
#endif

#if VW == 4
#define TV T4
#define FV vec4
#elif VW == 2
#define TV T2
#define FV vec2
#else
#define TV T
#define FV float
#endif


layout(local_size_x = WG_SIZE) in;

#include "rowmap.glsl" // O, L, the merged axes, LANES, LANES_FAST
const uint OUTS = WG_SIZE / LANES;                  // slots per workgroup
const uint NV = VW - (VW - 1) * LANES_FAST;         // outputs per slot
layout(constant_id = 42) const bool LOG_SOFTMAX = false;

layout(binding = 0, std430) restrict readonly buffer X1 { T x1[]; };
layout(binding = 0, std430) restrict readonly buffer XV { TV xv[]; };
layout(binding = 1, std430) restrict writeonly buffer Y1 { T y1[]; };
layout(binding = 1, std430) restrict writeonly buffer YV { TV yv[]; };

shared float sm[WG_SIZE * VW];
shared float ss[WG_SIZE * VW];
shared float rm[VW];
shared float rs[VW];

#define INF uintBitsToFloat(0x7f800000u)
#define QNAN uintBitsToFloat(0x7fc00000u)

uint base_of(uint o) {
  uint b = 0, r = o, c;
  if (NK > 0) { c = r % KD0; r /= KD0; b += c * KS0; }
  if (NK > 1) { c = r % KD1; r /= KD1; b += c * KS1; }
  if (NK > 2) { c = r % KD2; r /= KD2; b += c * KS2; }
  if (NK > 3) { c = r % KD3; b += c * KS3; }
  return b;
}

uint off_of(uint k) {
  uint b = 0, r = k, c;
  if (NR > 0) { c = r % RD0; r /= RD0; b += c * RS0; }
  if (NR > 1) { c = r % RD1; r /= RD1; b += c * RS1; }
  if (NR > 2) { c = r % RD2; r /= RD2; b += c * RS2; }
  if (NR > 3) { c = r % RD3; b += c * RS3; }
  return b;
}

void load(uint a, out float v[VW]) {
#if VW == 1
  v[0] = float(x1[a]);
#else
  FV t = FV(xv[a / VW]);
  [[unroll]] for (int c = 0; c < VW; c++) v[c] = float(t[c]);
#endif
}

void store(uint a, float v[VW]) {
#if VW == 1
  y1[a] = T(v[0]);
#else
  FV t;
  [[unroll]] for (int c = 0; c < VW; c++) t[c] = v[c];
  yv[a / VW] = TV(t);
#endif
}

// Online update of a row's (max m, sum s of exp(x - m)) with element x.
void push(inout float m, inout float s, float x) {
  if (x > m) {
    s = s * exp(m - x) + 1.0;
    m = x;
  } else {
    // -inf adds nothing (exp(-inf - -inf) would be NaN); NaN poisons s
    s += x == -INF ? 0.0 : exp(x - m);
  }
}

float maxn(float a, float b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }

// s * exp(m - mm) for a partial (m, s) rescaled to the larger maximum mm.
float rescale(float m, float s, float mm) { return s == 0.0 ? 0.0 : s * exp(m - mm); }

void merge(inout float m, inout float s, float m2, float s2) {
  float mm = maxn(m, m2);
  s = rescale(m, s, mm) + rescale(m2, s2, mm);
  m = mm;
}

#if CACHE > 0
// The lane's share of the row is CACHE loads at most: read once, kept in
// registers (cv) for the later passes; the loop unrolls.
#define ROW_LOOP(i, k) [[unroll]] for (uint i = 0, k = kfirst; i < CACHE; i++, k += kstep) if (k < L)
#else
#define ROW_LOOP(i, k) for (uint i = 0, k = kfirst; k < L; k += kstep)
#endif

uint sidx(uint slot, uint lane) { return LANES_FAST != 0 ? slot * LANES + lane : lane * OUTS + slot; }

#if USE_SG
void sg_merge(inout float m, inout float s) {
  float mm = subgroupMax(m);
  if (subgroupAny(isnan(m))) mm = QNAN;
  s = subgroupAdd(rescale(m, s, mm));
  m = mm;
}
#endif

void main() {
  if (!rowmap_lanes_ok()) return;
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint tid = gl_LocalInvocationID.x;
  uint lane = LANES_FAST != 0 ? tid % LANES : tid / OUTS;
  uint slot = LANES_FAST != 0 ? tid / LANES : tid % OUTS;
  uint o0 = (group * OUTS + slot) * NV;
  bool live = o0 < O;
  uint b = live ? base_of(o0) : 0;

  float m[VW], s[VW];
  for (uint c = 0; c < NV; c++) {
    m[c] = -INF;
    s[c] = 0.0;
  }
  uint kfirst = LANES_FAST != 0 ? lane * VW : lane;
  uint kstep = LANES_FAST != 0 ? LANES * VW : LANES;
#if CACHE > 0
  float cv[CACHE * VW];
#endif
  if (live) {
    ROW_LOOP(i, k) {
      float v[VW];
      load(b + off_of(k), v);
      [[unroll]] for (uint c = 0; c < VW; c++) {
#if CACHE > 0
        cv[i * VW + c] = v[c];
#endif
        push(m[LANES_FAST != 0 ? 0 : c], s[LANES_FAST != 0 ? 0 : c], v[c]);
      }
    }
  }

#if USE_SG
  for (uint c = 0; c < NV; c++) {
    sg_merge(m[c], s[c]);
    if (subgroupElect()) {
      sm[gl_SubgroupID * NV + c] = m[c];
      ss[gl_SubgroupID * NV + c] = s[c];
    }
  }
  barrier();
  if (gl_SubgroupID == 0) {
    for (uint c = 0; c < NV; c++) {
      float mm = -INF, sum = 0.0;
      for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize)
        merge(mm, sum, sm[i * NV + c], ss[i * NV + c]);
      sg_merge(mm, sum);
      if (subgroupElect()) {
        rm[c] = mm;
        rs[c] = sum;
      }
    }
  }
  barrier();
  for (uint c = 0; c < NV; c++) {
    m[c] = rm[c];
    s[c] = rs[c];
  }
#else
  for (uint c = 0; c < NV; c++) {
    sm[sidx(slot, lane) * NV + c] = m[c];
    ss[sidx(slot, lane) * NV + c] = s[c];
  }
  barrier();
  [[unroll]] for (uint st = LANES / 2; st > 0; st >>= 1) {
    if (lane < st) {
      for (uint c = 0; c < NV; c++) {
        uint i = sidx(slot, lane) * NV + c, j = sidx(slot, lane + st) * NV + c;
        float mm = sm[i], sum = ss[i];
        merge(mm, sum, sm[j], ss[j]);
        sm[i] = mm;
        ss[i] = sum;
      }
    }
    barrier();
  }
  for (uint c = 0; c < NV; c++) {
    m[c] = sm[sidx(slot, 0) * NV + c];
    s[c] = ss[sidx(slot, 0) * NV + c];
  }
#endif

  if (!live) return;
  float ls[VW];
  for (uint c = 0; c < NV; c++) {
    if (m[c] == INF) s[c] = QNAN; // inf - inf, as the reference
    ls[c] = log(s[c]);
  }
  ROW_LOOP(i, k) {
    uint a = b + off_of(k);
    float v[VW];
#if CACHE > 0
    [[unroll]] for (uint c = 0; c < VW; c++) v[c] = cv[i * VW + c];
#else
    load(a, v);
#endif
    [[unroll]] for (uint c = 0; c < VW; c++) {
      uint r = LANES_FAST != 0 ? 0 : c;
      v[c] = LOG_SOFTMAX ? (v[c] - m[r]) - ls[r] : exp(v[c] - m[r]) / s[r];
    }
    store(a, v);
  }
}
