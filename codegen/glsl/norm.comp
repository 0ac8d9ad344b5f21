#version 450
// layer_norm / instance_norm (codegen/kernels/norm.c; batchnorm.comp has
// the inference batchnorm). Rows as glsl/reduce.comp (row o,
//   element k at base(o) + off(k); the rows here are contiguous). Per row:
//   mean (a row reduction), then the variance as the mean of (x - mean)^2
//   (a second reduction over the same elements: two passes, as the
//   reference, so large offsets do not cancel), then
//   y = (x - mean) / sqrt(var + eps) * scale + bias.
//   Bindings: 0 = x, 1 = scale, 2 = bias (HAS_BIAS), then y.
//   INSTANCE (specialization constant 42): scale / bias are per channel,
//   channel = o % C.
//   Otherwise (layer_norm) they broadcast over the row: element k reads
//   index k (mode 1), 0 (mode 2) or decomposes k over merged axes (mode 0).
//   Knobs and host choices as reduce.comp; CACHE (#define) as softmax.comp:
//   a row share of at most CACHE loads per lane is read once.
//
// Every parameter has x's dtype; arithmetic is fp32.

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#endif
#if USE_SG
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
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
layout(constant_id = 20) const float EPS = 1e-5;
layout(constant_id = 21) const uint C = 1;      // instance_norm channels
layout(constant_id = 22) const uint S_MODE = 1; // layer_norm param addressing
layout(constant_id = 23) const uint B_MODE = 1;
layout(constant_id = 24) const uint PN = 0;     // merged axes of the row (<= 4)
layout(constant_id = 25) const uint PD0 = 1;
layout(constant_id = 26) const uint PD1 = 1;
layout(constant_id = 27) const uint PD2 = 1;
layout(constant_id = 28) const uint PD3 = 1;
layout(constant_id = 29) const uint PS0 = 0; // scale strides
layout(constant_id = 30) const uint PS1 = 0;
layout(constant_id = 31) const uint PS2 = 0;
layout(constant_id = 32) const uint PS3 = 0;
layout(constant_id = 33) const uint PB0 = 0; // bias strides
layout(constant_id = 34) const uint PB1 = 0;
layout(constant_id = 35) const uint PB2 = 0;
layout(constant_id = 36) const uint PB3 = 0;
layout(constant_id = 42) const bool INSTANCE = false;
const uint OUTS = WG_SIZE / LANES;                  // rows per workgroup

layout(binding = 0, std430) restrict readonly buffer X1 { T x1[]; };
layout(binding = 0, std430) restrict readonly buffer XV { TV xv[]; };
layout(binding = 1, std430) restrict readonly buffer S1 { T s1[]; };
layout(binding = 1, std430) restrict readonly buffer SV { TV sv_[]; };
#if HAS_BIAS
layout(binding = 2, std430) restrict readonly buffer B1 { T b1[]; };
layout(binding = 2, std430) restrict readonly buffer BV { TV bv_[]; };
#define Y_BINDING 3
#else
#define Y_BINDING 2
#endif
layout(binding = Y_BINDING, std430) restrict writeonly buffer Y1 { T y1[]; };
layout(binding = Y_BINDING, std430) restrict writeonly buffer YV { TV yv[]; };

shared float sh[WG_SIZE];
shared float res;

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

// Index into scale (s) or bias (!s) of row element k (layer_norm).
uint pidx(bool s, uint k) {
  uint mode = s ? S_MODE : B_MODE;
  if (mode == 1) return k;
  if (mode == 2) return 0;
  uint b = 0, r = k, c;
  if (PN > 0) { c = r % PD0; r /= PD0; b += c * (s ? PS0 : PB0); }
  if (PN > 1) { c = r % PD1; r /= PD1; b += c * (s ? PS1 : PB1); }
  if (PN > 2) { c = r % PD2; r /= PD2; b += c * (s ? PS2 : PB2); }
  if (PN > 3) { c = r % PD3; b += c * (s ? PS3 : PB3); }
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

void load_params(uint k, uint ch, out float sc[VW], out float bi[VW]) {
  if (INSTANCE) {
    [[unroll]] for (int c = 0; c < VW; c++) {
      sc[c] = float(s1[ch]);
#if HAS_BIAS
      bi[c] = float(b1[ch]);
#else
      bi[c] = 0.0;
#endif
    }
    return;
  }
#if VW > 1
  if (S_MODE == 1) {
    FV t = FV(sv_[k / VW]);
    [[unroll]] for (int c = 0; c < VW; c++) sc[c] = t[c];
  } else
#endif
  {
    [[unroll]] for (int c = 0; c < VW; c++) sc[c] = float(s1[pidx(true, k + c)]);
  }
#if HAS_BIAS
#if VW > 1
  if (B_MODE == 1) {
    FV t = FV(bv_[k / VW]);
    [[unroll]] for (int c = 0; c < VW; c++) bi[c] = t[c];
  } else
#endif
  {
    [[unroll]] for (int c = 0; c < VW; c++) bi[c] = float(b1[pidx(false, k + c)]);
  }
#else
  [[unroll]] for (int c = 0; c < VW; c++) bi[c] = 0.0;
#endif
}

#if CACHE > 0
// The lane's share of the row is CACHE loads at most: read once, kept in
// registers (cv) for the later passes; the loop unrolls.
#define ROW_LOOP(i, k) [[unroll]] for (uint i = 0, k = kfirst; i < CACHE; i++, k += kstep) if (k < L)
#else
#define ROW_LOOP(i, k) for (uint i = 0, k = kfirst; k < L; k += kstep)
#endif

uint sidx(uint slot, uint lane) { return LANES_FAST != 0 ? slot * LANES + lane : lane * OUTS + slot; }

// Sum of v over the lanes of this invocation's row, returned to every lane.
// Called by every invocation of the workgroup (it holds barriers).
float row_sum(float v, uint slot, uint lane) {
#if USE_SG
  v = subgroupAdd(v);
  if (subgroupElect()) sh[gl_SubgroupID] = v;
  barrier();
  if (gl_SubgroupID == 0) {
    float r = 0.0;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r += sh[i];
    r = subgroupAdd(r);
    if (subgroupElect()) res = r;
  }
  barrier();
  float out_ = res;
#else
  sh[sidx(slot, lane)] = v;
  barrier();
  [[unroll]] for (uint st = LANES / 2; st > 0; st >>= 1) {
    if (lane < st) sh[sidx(slot, lane)] += sh[sidx(slot, lane + st)];
    barrier();
  }
  float out_ = sh[sidx(slot, 0)];
#endif
  barrier(); // the next call reuses sh
  return out_;
}

void main() {
  if (!rowmap_lanes_ok()) return;
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint tid = gl_LocalInvocationID.x;
  uint lane = LANES_FAST != 0 ? tid % LANES : tid / OUTS;
  uint slot = LANES_FAST != 0 ? tid / LANES : tid % OUTS;
  uint o = group * OUTS + slot; // rows are contiguous: one row per slot
  bool live = o < O;
  uint b = live ? base_of(o) : 0;

  uint kfirst = lane * VW, kstep = LANES * VW;
#if CACHE > 0
  float cv[CACHE * VW];
#endif
  float acc = 0.0;
  if (live) {
    ROW_LOOP(i, k) {
      float v[VW];
      load(b + off_of(k), v);
      [[unroll]] for (int c = 0; c < VW; c++) {
#if CACHE > 0
        cv[i * VW + c] = v[c];
#endif
        acc += v[c];
      }
    }
  }
  float mean = row_sum(acc, slot, lane) / float(L);
  acc = 0.0;
  if (live) {
    ROW_LOOP(i, k) {
      float v[VW];
#if CACHE > 0
      [[unroll]] for (int c = 0; c < VW; c++) v[c] = cv[i * VW + c];
#else
      load(b + off_of(k), v);
#endif
      [[unroll]] for (int c = 0; c < VW; c++) {
        float d = v[c] - mean;
        acc += d * d;
      }
    }
  }
  float var = row_sum(acc, slot, lane) / float(L);
  if (!live) return;
  float inv = 1.0 / sqrt(var + EPS);
  uint ch = o % C;
  ROW_LOOP(i, k) {
    uint a = b + off_of(k);
    float v[VW], sc[VW], bi[VW];
#if CACHE > 0
    [[unroll]] for (int c = 0; c < VW; c++) v[c] = cv[i * VW + c];
#else
    load(a, v);
#endif
    load_params(k, ch, sc, bi);
#if VW == 1
    y1[a] = T((v[0] - mean) * inv * sc[0] + bi[0]);
#else
    FV t;
    [[unroll]] for (int c = 0; c < VW; c++) t[c] = (v[c] - mean) * inv * sc[c] + bi[c];
    yv[a / VW] = TV(t);
#endif
  }
}
