#version 450
// Depthwise conv2d (group == C, channel multiplier MULT = M / C), strides,
// dilations, asymmetric pads (codegen/kernels/conv2d.c instantiates it):
//   out[n, m, oh, ow] = ACT(bias[m] + sum_{kh,kw} w[m, 0, kh, kw] *
//                           x[n, m / MULT, oh*SH + kh*DH - PT, ow*SW + kw*DW - PL])
// A workgroup computes a TH x TW tile of output pixels (TH = WG_Y*OPY,
// TW = WG_X*OPX) for CPW output channels (local z); with SMEM it first
// stages the input tile under it, halo included (IN_TH x IN_TW per channel,
// sized by the host from the kernel, stride and dilation), in shared memory,
// so that each input element is read from memory once rather than once per
// tap. Each invocation keeps OPY x OPX outputs in registers, WG_Y rows and
// WG_X columns apart (coalesced stores).
//
// Bindings: 0 = x, 1 = w, [2 = bias,] then out; dense NCHW tensors of DTYPE.
// Knobs (#defines): WG_X, WG_Y, CPW (workgroup shape), OPX, OPY (outputs per
//   invocation), SMEM (stage the input tile in shared memory).
// Baked per workload (#defines): DTYPE_F16, HAS_BIAS, ACT (the fused activation).
// Baked per shape (specialization constants): sizes and attributes, the
//   activation's parameters, the staged tile's extent.
// Packed operands (#defines, absent = 0): X_NC4HW4 / Y_NC4HW4 read x /
//   write out in nc4hw4 (ir/graph.h) one channel per invocation (the writer
//   of channel M-1 also writes 0 to the lanes past it). DW_VEC4 (x and y
//   packed, M == C): each invocation computes one texel (4 channels) with
//   vec4 loads, the workgroup's z counts texel planes, the staged tile
//   holds vec4 (16 * SMEM_ELEMS bytes), and the lanes past M are written 0.
// Shared memory: 4 * SMEM_ELEMS bytes (CPW * IN_TH * IN_TW with SMEM, else 4).
#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define T4 f16vec4
#else
#define T float
#define T4 vec4
#endif
#ifndef X_NC4HW4
#define X_NC4HW4 0
#endif
#ifndef Y_NC4HW4
#define Y_NC4HW4 0
#endif
#ifndef DW_VEC4
#define DW_VEC4 0
#endif

#define TH (WG_Y * OPY)
#define TW (WG_X * OPX)
#define NXY (WG_X * WG_Y)

layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = CPW) in;

#include "conv_params.glsl" // the sizes and attributes, ACT_ALPHA, ACT_BETA
layout(constant_id = 19) const uint IN_TH = 1; // (TH-1)*SH + (KH-1)*DH + 1
layout(constant_id = 20) const uint IN_TW = 1; // (TW-1)*SW + (KW-1)*DW + 1
layout(constant_id = 21) const uint SMEM_ELEMS = 1;

const uint MULT = M / C;
const uint HW = H * W;
const uint KHW = KH * KW;

const uint OHW = OH * OW;
const uint C4 = (C + 3) / 4;
const uint M4 = (M + 3) / 4;

#if DW_VEC4
layout(binding = 0, std430) readonly buffer X { T4 x[]; };
#else
layout(binding = 0, std430) readonly buffer X { T x[]; };
#endif
layout(binding = 1, std430) readonly buffer Wt { T w[]; };
#if HAS_BIAS
layout(binding = 2, std430) readonly buffer Bias { T bias[]; };
#define OUT_BINDING 3
#else
#define OUT_BINDING 2
#endif
#if DW_VEC4
layout(binding = OUT_BINDING, std430) writeonly buffer O { T4 o[]; };
shared vec4 tile[SMEM_ELEMS];
#define F vec4
#else
layout(binding = OUT_BINDING, std430) writeonly buffer O { T o[]; };
shared float tile[SMEM_ELEMS];
#define F float
#endif
// x at row ih, column iw of this invocation's input plane (xbase: its first)
#if DW_VEC4
#define XAT(ih, iw) vec4(x[xbase + uint(ih) * W + uint(iw)])
#elif X_NC4HW4
#define XAT(ih, iw) float(x[xbase + (uint(ih) * W + uint(iw)) * 4])
#else
#define XAT(ih, iw) float(x[xbase + uint(ih) * W + uint(iw)])
#endif

// ---- the activation ---------------------------------------------------------

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

#if DW_VEC4
vec4 act4(vec4 v) {
  vec4 r;
  for (int k = 0; k < 4; k++) r[k] = act(v[k]);
  return r;
}
#endif

#if SMEM
// Whether the staged tile's specialization constants keep every index of
// tile[] inside it (CPW * IN_TH * IN_TW <= SMEM_ELEMS, and the furthest
// tap of the tile's last output inside IN_TH x IN_TW), the factors bounded
// so that no product wraps. The host's values always do; a forged artifact
// may not, and robust buffer access does not cover workgroup memory: then
// the kernel returns at once (uniformly, before its barrier), its output
// left unwritten. Variables, not a constant expression: glslang folds && of
// specialization constants into invalid SPIR-V (as rowmap_lanes_ok).
bool tile_ok() {
  uint th = IN_TH, tw = IN_TW, se = SMEM_ELEMS;
  uint sh = SH, sw = SW, dh = DH, dw = DW, kh = KH, kw = KW;
  if (sh > 4096u || sw > 4096u || dh > 4096u || dw > 4096u || kh - 1u > 4095u || kw - 1u > 4095u)
    return false;
  if (th == 0u || tw == 0u) return false;
  uint ry = uint(TH - 1) * sh + (kh - 1u) * dh, rx = uint(TW - 1) * sw + (kw - 1u) * dw;
  return ry < th && rx < tw && th <= se / uint(CPW) / tw;
}
#endif

void main() {
#if SMEM
  if (!tile_ok()) return;
#endif
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint lz = gl_LocalInvocationID.z;
#if DW_VEC4
  const uint cidx = gl_WorkGroupID.z * CPW + lz; // over NB*M4 texel planes
  const bool cok = cidx < NB * M4;
  const uint nb = cidx / M4, m = (cidx % M4) * 4; // m: the texel's first channel
  const uint xbase = cidx * HW;
#else
  const uint cidx = gl_WorkGroupID.z * CPW + lz; // over NB*M
  const bool cok = cidx < NB * M;
  const uint nb = cidx / M, m = cidx % M;
#if X_NC4HW4
  const uint ci = m / MULT;
  const uint xbase = (nb * C4 + ci / 4) * HW * 4 + ci % 4;
#else
  const uint xbase = (nb * C + m / MULT) * HW;
#endif
#endif
  const uint oy0 = gl_WorkGroupID.y * TH, ox0 = gl_WorkGroupID.x * TW;
  const int iy0 = int(oy0 * SH) - PT, ix0 = int(ox0 * SW) - PL;

#if SMEM
  {
    const uint tbase = lz * IN_TH * IN_TW;
    for (uint e = ty * WG_X + tx; e < IN_TH * IN_TW; e += NXY) {
      int ih = iy0 + int(e / IN_TW), iw = ix0 + int(e % IN_TW);
      F v = F(0.0);
      if (cok && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W))
        v = XAT(ih, iw);
      tile[tbase + e] = v;
    }
  }
  barrier();
#endif
  if (!cok) return;

#if DW_VEC4
  // the texel's channels, those past M clamped (their lanes are written 0)
  const uvec4 mc = min(uvec4(m, m + 1, m + 2, m + 3), uvec4(M - 1));
#if HAS_BIAS
  const vec4 bv = vec4(float(bias[mc.x]), float(bias[mc.y]), float(bias[mc.z]), float(bias[mc.w]));
#else
  const vec4 bv = vec4(0.0);
#endif
#else
#if HAS_BIAS
  const float bv = float(bias[m]);
#else
  const float bv = 0.0;
#endif
#endif
  F acc[OPY][OPX];
  [[unroll]] for (uint i = 0; i < OPY; i++)
    [[unroll]] for (uint j = 0; j < OPX; j++) acc[i][j] = F(0.0);

  for (uint kh = 0; kh < KH; kh++) {
    for (uint kw = 0; kw < KW; kw++) {
#if DW_VEC4
      const uint t = kh * KW + kw;
      vec4 wv = vec4(float(w[mc.x * KHW + t]), float(w[mc.y * KHW + t]), float(w[mc.z * KHW + t]),
                     float(w[mc.w * KHW + t]));
#else
      float wv = float(w[m * KHW + kh * KW + kw]);
#endif
      [[unroll]] for (uint i = 0; i < OPY; i++) {
        uint ry = (ty + i * WG_Y) * SH + kh * DH; // row in the input tile
        [[unroll]] for (uint j = 0; j < OPX; j++) {
          uint rx = (tx + j * WG_X) * SW + kw * DW;
#if SMEM
          F v = tile[(lz * IN_TH + ry) * IN_TW + rx];
#else
          int ih = iy0 + int(ry), iw = ix0 + int(rx);
          F v = F(0.0);
          if (ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W))
            v = XAT(ih, iw);
#endif
          acc[i][j] = fma(wv, v, acc[i][j]);
        }
      }
    }
  }

#if DW_VEC4
  const uint obase = cidx * OHW;
  // lanes of channels >= M
  const bvec4 pad = greaterThanEqual(uvec4(m, m + 1, m + 2, m + 3), uvec4(M));
  [[unroll]] for (uint i = 0; i < OPY; i++) {
    uint oy = oy0 + ty + i * WG_Y;
    [[unroll]] for (uint j = 0; j < OPX; j++) {
      uint ox = ox0 + tx + j * WG_X;
      if (oy < OH && ox < OW)
        o[obase + oy * OW + ox] = T4(mix(act4(acc[i][j] + bv), vec4(0.0), pad));
    }
  }
#else
#if Y_NC4HW4
  const uint obase = (nb * M4 + m / 4) * OHW * 4 + m % 4;
#define OAT(oy, ox) o[obase + ((oy) * OW + (ox)) * 4]
#else
  const uint obase = (nb * M + m) * OH * OW;
#define OAT(oy, ox) o[obase + (oy) * OW + (ox)]
#endif
  [[unroll]] for (uint i = 0; i < OPY; i++) {
    uint oy = oy0 + ty + i * WG_Y;
    [[unroll]] for (uint j = 0; j < OPX; j++) {
      uint ox = ox0 + tx + j * WG_X;
      if (oy < OH && ox < OW) {
        OAT(oy, ox) = T(act(acc[i][j] + bv));
#if Y_NC4HW4
        if (M % 4 != 0 && m == M - 1)
          for (uint l = M % 4; l < 4; l++) o[obase - m % 4 + (oy * OW + ox) * 4 + l] = T(0.0);
#endif
      }
    }
  }
#endif
}
