#version 450
// maxpool / avgpool over NCHW with strides, dilations, asymmetric pads and
// ceil_mode (docs/ops.md; the host computes OH / OW, including the dropped
// last window), count_include_pad for avgpool. codegen/kernels/pool.c
// instantiates it.
//
// Bindings: 0 = x [N,C,H,W], 1 = y [N,C,OH,OW], dense, DTYPE.
// Each invocation computes a TILE_H x TILE_W tile of one plane's outputs;
// neighbouring invocations take neighbouring tiles along OW. With REUSE the
// tile's input rows are read once each into registers (SPAN_W values per
// row) and every window of the tile that covers them takes its taps from
// there; the loops are unrolled so that the tap tests fold at compile time.
// Without REUSE (large windows) each output walks its own window.
//
// Knobs (#defines): WG_SIZE, TILE_W, TILE_H.
// Baked per workload: KH, KW, SH, SW, DH, DW, REUSE, DTYPE_F16, DTYPE_I8 (#defines:
//   the loops unroll on them); per shape (specialization constants): planes,
//   H, W, OH, OW, pads, tiles per row / column, IS_MAX, COUNT_PAD.
// Packed (#define PACKED, absent = 0): x and y in nc4hw4 (ir/graph.h); a
//   plane is one texel plane (4 channels) of N * ceil(C/4), every value a
//   vec4 (one load per pixel for 4 channels), and the lanes of channels
//   >= C (specialization constant C) are written 0. Global pools run here
//   packed, as a window over the whole plane.
// NHWC (#define, absent = 0): x and y in nhwc (element (n, c, h, w) at
//   ((n*H + h)*W + w)*C + c); neighbouring invocations take neighbouring
//   channels of one tile (coalesced), a pixel's next value C apart. Global
//   pools run here in nhwc too.
// Arithmetic is fp32. Padding never enters a max; NaN propagates; a window
// entirely in padding gives -inf (max) or 0 (avg), as the reference.

#extension GL_EXT_control_flow_attributes : enable
#ifndef DTYPE_I8
#define DTYPE_I8 0
#endif
#if DTYPE_I8
// u8 (1) / i8 (2) max pools (default layout only): every value is exact in
// fp32; the result saturates into the type as the reference's conversion
// does (a window entirely in padding, -inf, gives the type's lowest value)
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#if DTYPE_I8 == 1
#define T uint8_t
#define T_LO 0.0
#define T_HI 255.0
#else
#define T int8_t
#define T_LO -128.0
#define T_HI 127.0
#endif
#define T4 T
#elif DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define T4 f16vec4
#else
#define T float
#define T4 vec4
#endif
#ifndef PACKED
#define PACKED 0
#endif
#if PACKED
#define F vec4
#else
#define F float
#endif

#define SPAN_H ((TILE_H - 1) * SH + (KH - 1) * DH + 1)
#define SPAN_W ((TILE_W - 1) * SW + (KW - 1) * DW + 1)

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint PLANES = 1;
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int W = 1;
layout(constant_id = 3) const int OH = 1;
layout(constant_id = 4) const int OW = 1;
layout(constant_id = 5) const int PT = 0;
layout(constant_id = 6) const int PL = 0;
layout(constant_id = 7) const int PB = 0;
layout(constant_id = 8) const int PR = 0;
layout(constant_id = 9) const uint TILES_W = 1;
layout(constant_id = 10) const uint TILES_H = 1;
layout(constant_id = 11) const bool IS_MAX = false;
layout(constant_id = 12) const bool COUNT_PAD = false; // avgpool: count_include_pad

#ifndef NHWC
#define NHWC 0
#endif
#if PACKED || NHWC
layout(constant_id = 13) const uint C = 4;  // channels
#endif
#if PACKED
layout(constant_id = 14) const uint C4 = 1; // texel planes per image
layout(binding = 0, std430) restrict readonly buffer X { T4 x[]; };
layout(binding = 1, std430) restrict writeonly buffer Y { T4 y[]; };
#define LDX(i) vec4(x[i])
#else
layout(binding = 0, std430) restrict readonly buffer X { T x[]; };
layout(binding = 1, std430) restrict writeonly buffer Y { T y[]; };
#define LDX(i) float(x[i])
#endif

#define INF uintBitsToFloat(0x7f800000u)

float comb(float acc, float v) {
  if (IS_MAX) return isnan(acc) ? acc : ((v > acc || isnan(v)) ? v : acc);
  return acc + v;
}
#if PACKED
vec4 comb(vec4 acc, vec4 v) {
  if (!IS_MAX) return acc + v;
  vec4 r;
  for (int k = 0; k < 4; k++) r[k] = comb(acc[k], v[k]);
  return r;
}
#endif

// Taps of a window starting at p (stride-1 positions p + i*d, i < k) that
// count towards an average.
int taps(int p, int d, int k, int n, int pad_lo, int pad_hi) {
  int cnt = 0;
  for (int i = 0; i < k; i++) {
    int q = p + i * d;
    if (COUNT_PAD) cnt += q >= -pad_lo && q < n + pad_hi ? 1 : 0;
    else cnt += q >= 0 && q < n ? 1 : 0;
  }
  return cnt;
}

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint inv = group * WG_SIZE + gl_LocalInvocationID.x;
#if NHWC
  // channel innermost: a pixel's values PS = C apart
  uint ch = inv % C, r0 = inv / C;
  uint tw_i = r0 % TILES_W, rest = r0 / TILES_W;
  uint th_i = rest % TILES_H, nb = rest / TILES_H;
  if (nb * C + ch >= PLANES) return;
  uint xb = nb * uint(H) * uint(W) * C + ch, yb = nb * uint(OH) * uint(OW) * C + ch;
#define PS C
#else
  uint tw_i = inv % TILES_W, rest = inv / TILES_W;
  uint th_i = rest % TILES_H, plane = rest / TILES_H;
  if (plane >= PLANES) return;
  uint xb = plane * uint(H) * uint(W), yb = plane * uint(OH) * uint(OW);
#define PS 1u
#endif
  int oh0 = int(th_i) * TILE_H, ow0 = int(tw_i) * TILE_W;

  F acc[TILE_H][TILE_W];
  [[unroll]] for (int th = 0; th < TILE_H; th++)
    [[unroll]] for (int tw = 0; tw < TILE_W; tw++) acc[th][tw] = F(IS_MAX ? -INF : 0.0);

  int hb = oh0 * SH - PT, wb = ow0 * SW - PL;
#if REUSE
  [[unroll]] for (int r = 0; r < SPAN_H; r++) {
    bool used = false;
    [[unroll]] for (int th = 0; th < TILE_H; th++)
      [[unroll]] for (int i = 0; i < KH; i++) used = used || th * SH + i * DH == r;
    int h = hb + r;
    if (!used || h < 0 || h >= H) continue;
    F rowv[SPAN_W];
    bool win[SPAN_W];
    [[unroll]] for (int c = 0; c < SPAN_W; c++) {
      int w = wb + c;
      win[c] = w >= 0 && w < W;
      rowv[c] = win[c] ? LDX(xb + uint(h * W + w) * PS) : F(0.0);
    }
    [[unroll]] for (int th = 0; th < TILE_H; th++)
      [[unroll]] for (int i = 0; i < KH; i++) {
        if (th * SH + i * DH != r) continue;
        [[unroll]] for (int tw = 0; tw < TILE_W; tw++)
          [[unroll]] for (int j = 0; j < KW; j++) {
            int c = tw * SW + j * DW;
            if (win[c]) acc[th][tw] = comb(acc[th][tw], rowv[c]);
          }
      }
  }
#else
  [[unroll]] for (int th = 0; th < TILE_H; th++)
    [[unroll]] for (int tw = 0; tw < TILE_W; tw++) {
      int h0 = hb + th * SH, w0 = wb + tw * SW;
      F a = acc[th][tw];
      for (int i = 0; i < KH; i++) {
        int h = h0 + i * DH;
        if (h < 0 || h >= H) continue;
        for (int j = 0; j < KW; j++) {
          int w = w0 + j * DW;
          if (w >= 0 && w < W) a = comb(a, LDX(xb + uint(h * W + w) * PS));
        }
      }
      acc[th][tw] = a;
    }
#endif

  [[unroll]] for (int th = 0; th < TILE_H; th++) {
    int oh = oh0 + th;
    if (oh >= OH) break;
    [[unroll]] for (int tw = 0; tw < TILE_W; tw++) {
      int ow = ow0 + tw;
      if (ow >= OW) break;
      F r = acc[th][tw];
      if (!IS_MAX) {
        int cnt = taps(oh * SH - PT, DH, KH, H, PT, PB) * taps(ow * SW - PL, DW, KW, W, PL, PR);
        r = cnt > 0 ? r / float(cnt) : F(0.0);
      }
#if PACKED
      // lanes of channels >= C: 0 (a max over padding only would give -inf)
      if (C % 4 != 0 && plane % C4 == C4 - 1)
        for (uint k = C % 4; k < 4; k++) r[k] = 0.0;
      y[yb + uint(oh * OW + ow) * PS] = T4(r);
#else
#if DTYPE_I8
      y[yb + uint(oh * OW + ow) * PS] = T(clamp(r, T_LO, T_HI));
#else
      y[yb + uint(oh * OW + ow) * PS] = T(r);
#endif
#endif
    }
  }
}
