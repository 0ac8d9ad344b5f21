#version 450
// Reduction over a set of axes: reduce_{sum,mean,max,min,prod}, the global
// pools (a reduction over the spatial axes) and argmax / argmin (one axis,
// i64 indices). codegen/kernels/reduce.c instantiates it.
//
// Bindings: 0 = x (DTYPE), 1 = y (DTYPE, or i64 indices written as pairs of
// uint32 words: low = index, high = 0), dense C order.
//
// Mapping: output o's input elements are x[base(o) + off(k)], k in [0, L).
// A workgroup holds OUTS = WG_SIZE / LANES slots; LANES invocations share a
// slot. LANES_FAST (the innermost input axis is reduced): the lanes of a slot
// are neighbouring invocations and walk k with vectors of VW elements; a slot
// is one output. Otherwise (the innermost axis is kept) neighbouring
// invocations are neighbouring slots, and a slot is VW neighbouring outputs
// read as one vector. Each invocation reduces its share serially, then the
// lanes of a slot combine their partials: a tree in shared memory, or, when
// one slot fills the workgroup (USE_SG), subgroup operations and one round
// through shared memory.
//
// Knobs (#defines): WG_SIZE, RED (lanes; 0 = chosen by the host), VEC,
//   SUBGROUP. Chosen by the host: VW, USE_SG (#defines: they change types
//   and capabilities), LANES, LANES_FAST (specialization constants, so that
//   shapes sharing a schedule share one SPIR-V module).
// Baked per workload: IS_ARG (#define: the output type), DTYPE_F16
//   (#define); OP and SELECT_LAST (specialization constants 42, 43);
//   reduce_sum's fused activation (46-48: ACT_KIND, ACT_ALPHA, ACT_BETA).
// Baked per shape (specialization constants): O, L, the kept axes (dims and
//   input strides, innermost first, merged) and the reduced axes likewise.
// Arithmetic is fp32. max / min propagate NaN; argmax / argmin skip NaN
// except at index 0, where a NaN wins (the reference's sequential scan).
// min and argmin negate their input and run as max and argmax.

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

#define OP_SUM 0
#define OP_MEAN 1
#define OP_MAX 2
#define OP_MIN 3
#define OP_PROD 4
#define OP_ARGMAX 5
#define OP_ARGMIN 6


#define NONE 0xffffffffu

layout(local_size_x = WG_SIZE) in;

#include "rowmap.glsl" // O, L, the merged axes, LANES, LANES_FAST
const uint OUTS = WG_SIZE / LANES;                  // slots per workgroup
const uint NV = VW - (VW - 1) * LANES_FAST;         // outputs per slot
layout(constant_id = 42) const uint OP = 0;
layout(constant_id = 43) const uint SELECT_LAST = 0;
// a whole reduction of a bounded input (its live elements a prefix; its
// count through the extent ABI, extent.glsl): the elements per bounded
// index; the row is then extent * EXT_ROW long (-inf / +inf / 0 / 1 for an
// empty max / min / sum / prod, as ONNX's opset 18)
layout(constant_id = 45) const uint EXT_ROW = 1;
#include "extent.glsl"
// reduce_sum's fused activation (an ir_act value, 0: none) and its alpha,
// beta, applied to each result (act_by, act.glsl)
layout(constant_id = 46) const uint ACT_KIND = 0;
layout(constant_id = 47) const float ACT_ALPHA = 0.0;
layout(constant_id = 48) const float ACT_BETA = 0.0;
#include "act.glsl"
const bool IS_MAX = OP == OP_MAX || OP == OP_MIN;
const bool NEG = OP == OP_MIN || OP == OP_ARGMIN;

layout(binding = 0, std430) restrict readonly buffer X1 { T x1[]; };
layout(binding = 0, std430) restrict readonly buffer XV { TV xv[]; };
#if IS_ARG
layout(binding = 1, std430) restrict writeonly buffer Y { uint y[]; };
#else
layout(binding = 1, std430) restrict writeonly buffer Y { T y[]; };
#endif

shared float sv[WG_SIZE * VW];
shared float rv[VW];
#if IS_ARG
shared uint si[WG_SIZE * VW];
shared uint ri[VW];
#endif

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

// VW elements at element offset a (a multiple of VW when VW > 1).
void load(uint a, out float v[VW]) {
#if VW == 1
  v[0] = float(x1[a]);
#else
  FV t = FV(xv[a / VW]);
  [[unroll]] for (int c = 0; c < VW; c++) v[c] = float(t[c]);
#endif
}

float identity() {
  if (OP == OP_PROD) return 1.0;
  if (IS_MAX || IS_ARG != 0) return -INF;
  return 0.0;
}

float comb(float a, float b) {
  if (OP == OP_PROD) return a * b;
  if (IS_MAX) return isnan(a) || isnan(b) ? a + b : max(a, b);
  return a + b;
}

// Folds element k (value v) into a running argmax (a, ai) over increasing k.
void take(inout float a, inout uint ai, float v, uint k) {
  if (isnan(v)) return;
  if (ai == NONE || v > a || (SELECT_LAST != 0 && v == a)) {
    a = v;
    ai = k;
  }
}

// Merges two argmax partials whose indices interleave.
void merge(inout float a, inout uint ai, float b, uint bi) {
  if (bi == NONE) return;
  bool tb = ai == NONE || b > a || (b == a && (SELECT_LAST != 0 ? bi > ai : bi < ai));
  if (tb) {
    a = b;
    ai = bi;
  }
}

#if USE_SG
float sg_comb(float v) {
  if (OP == OP_PROD) return subgroupMul(v);
  if (IS_MAX) {
    float m = subgroupMax(v);
    return subgroupAny(isnan(v)) ? QNAN : m;
  }
  return subgroupAdd(v);
}

void sg_merge(inout float a, inout uint ai) {
  bool valid = ai != NONE;
  float m = subgroupMax(valid ? a : -INF);
  bool any_valid = subgroupAny(valid);
  bool cand = valid && a == m;
  uint bi = SELECT_LAST != 0 ? subgroupMax(cand ? ai : 0u) : subgroupMin(cand ? ai : NONE);
  a = any_valid ? m : -INF;
  ai = any_valid ? bi : NONE;
}
#endif

uint sidx(uint slot, uint lane) { return LANES_FAST != 0 ? slot * LANES + lane : lane * OUTS + slot; }

void main() {
  if (!rowmap_lanes_ok()) return;
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint tid = gl_LocalInvocationID.x;
  uint lane = LANES_FAST != 0 ? tid % LANES : tid / OUTS;
  uint slot = LANES_FAST != 0 ? tid / LANES : tid % OUTS;
  uint o0 = (group * OUTS + slot) * NV;
  bool live = o0 < O;

  float acc[VW];
  uint aidx[VW];
  for (uint c = 0; c < NV; c++) {
    acc[c] = identity();
    aidx[c] = NONE;
  }

  if (live) {
    uint b = base_of(o0);
    // rows along the contiguous axis: the vector holds k .. k+VW-1 of one
    // output; across it: element k of VW neighbouring outputs
    uint kfirst = LANES_FAST != 0 ? lane * VW : lane;
    uint kstep = LANES_FAST != 0 ? LANES * VW : LANES;
#if VKML_EXT_HAS(0)
    uint len = min(L, vkml_extent(0) * EXT_ROW);
#else
    uint len = L;
#endif
    for (uint k = kfirst; k < len; k += kstep) {
      float v[VW];
      load(b + off_of(k), v);
      [[unroll]] for (uint c = 0; c < VW; c++) {
        uint r = LANES_FAST != 0 ? 0 : c;
        if (NEG) v[c] = -v[c];
#if IS_ARG
        take(acc[r], aidx[r], v[c], LANES_FAST != 0 ? k + c : k);
#else
        acc[r] = comb(acc[r], v[c]);
#endif
      }
    }
  }

#if USE_SG
  // One slot per workgroup (LANES == WG_SIZE): any subgroup layout works.
  for (uint c = 0; c < NV; c++) {
#if IS_ARG
    sg_merge(acc[c], aidx[c]);
    if (subgroupElect()) {
      sv[gl_SubgroupID * NV + c] = acc[c];
      si[gl_SubgroupID * NV + c] = aidx[c];
    }
#else
    acc[c] = sg_comb(acc[c]);
    if (subgroupElect()) sv[gl_SubgroupID * NV + c] = acc[c];
#endif
  }
  barrier();
  if (gl_SubgroupID == 0) {
    for (uint c = 0; c < NV; c++) {
      float r = identity();
      uint q = NONE;
      for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {
#if IS_ARG
        merge(r, q, sv[i * NV + c], si[i * NV + c]);
#else
        r = comb(r, sv[i * NV + c]);
#endif
      }
#if IS_ARG
      sg_merge(r, q);
      if (subgroupElect()) {
        rv[c] = r;
        ri[c] = q;
      }
#else
      r = sg_comb(r);
      if (subgroupElect()) rv[c] = r;
#endif
    }
  }
  barrier();
#define RES_V(c) rv[c]
#define RES_I(c) ri[c]
#else
  for (uint c = 0; c < NV; c++) {
    sv[sidx(slot, lane) * NV + c] = acc[c];
#if IS_ARG
    si[sidx(slot, lane) * NV + c] = aidx[c];
#endif
  }
  barrier();
  [[unroll]] for (uint s = LANES / 2; s > 0; s >>= 1) {
    if (lane < s) {
      for (uint c = 0; c < NV; c++) {
        uint i = sidx(slot, lane) * NV + c, j = sidx(slot, lane + s) * NV + c;
#if IS_ARG
        float a = sv[i];
        uint ai = si[i];
        merge(a, ai, sv[j], si[j]);
        sv[i] = a;
        si[i] = ai;
#else
        sv[i] = comb(sv[i], sv[j]);
#endif
      }
    }
    barrier();
  }
#define RES_V(c) sv[sidx(slot, 0) * NV + (c)]
#define RES_I(c) si[sidx(slot, 0) * NV + (c)]
#endif

  if (lane == 0 && live) {
    for (uint c = 0; c < NV; c++) {
      uint o = o0 + c;
#if IS_ARG
      uint q = RES_I(c);
      // the reference keeps index 0 when x at index 0 is NaN
      if (isnan(float(x1[base_of(o)])) || q == NONE) q = 0;
      y[2 * o] = q;
      y[2 * o + 1] = 0;
#else
      float r = RES_V(c);
      if (OP == OP_MEAN) r = L == 0 ? QNAN : r / float(L);
      if (NEG) r = -r;
      if (ACT_KIND != 0) r = act_by(ACT_KIND, r, ACT_ALPHA, ACT_BETA);
      y[o] = T(r);
#endif
    }
  }
}
