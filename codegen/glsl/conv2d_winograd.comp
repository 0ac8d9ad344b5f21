#version 450
// conv2d_winograd (codegen/kernels/conv2d_winograd.c): a 3x3, stride-1
// conv2d by Winograd's F(MT x MT, 3 x 3) (ir/winograd.h), on the weights
// transformed at compile time, U [A2, C, M] (xi = row * AL + column of the
// AL x AL transform, k fastest). One workgroup computes KB output channels of
// TB output tiles (tile t = (n * TH + th) * TW + tw, MT x MT pixels each):
//   per step of CB input channels: the input tiles' transforms
//     V[xi][c][t] = (BT d BT^T)[xi] (d: the AL x AL input patch, zeros
//     outside x) and U's slice go to shared memory; thread (xi, tk, tt)
//     adds U[xi][c][k] * V[xi][c][t] into its RK x RT registers;
//   then the products M[xi][k][t] go through shared memory (ROUNDS parts of
//   the channels) and each (k, t) becomes its output tile AT M AT^T, plus
//   the bias, through the activation, the pixels inside y written.
// Accumulation in fp32 (f16 tensors are read and written as f16).
//
// Bindings: 0 = x [NB, C, H, W], 1 = U [A2, C, M], [2 = bias [M],] then
//   y [NB, M, OH, OW]; f32 or f16 (F16), default layout.
// Knobs (#defines): TK, TT (threads per transform position along channels
//   and tiles), RK, RT (each one's outputs), CB (input channels a step).
// Baked per workload (#defines): MT (2 or 4), F16, HAS_BIAS, ACT (ir_act),
//   ROUNDS (parts of the epilogue, so that it fits the shared memory; TK %
//   ROUNDS == 0).
// Baked per shape (specialization constants): conv_params.glsl's sizes
//   (KH = KW = 3, strides and dilations 1, one group) and the activation's.
#extension GL_EXT_control_flow_attributes : require
#if F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define ST float16_t
#else
#define ST float
#endif

#define AL (MT + 2)
#define A2 (AL * AL)
#define KB (TK * RK)
#define TB (TT * RT)
#define WG (A2 * TK * TT)
#define KBR (KB / ROUNDS)
#define TKR (TK / ROUNDS)

layout(local_size_x = WG) in;

#include "conv_params.glsl" // NB C H W M OH OW ... PT PL, ACT_ALPHA ACT_BETA

layout(binding = 0, std430) readonly buffer X { ST x[]; };
layout(binding = 1, std430) readonly buffer U { ST u[]; };
#if HAS_BIAS
layout(binding = 2, std430) readonly buffer Bias { ST bias[]; };
#endif
layout(binding = 2 + HAS_BIAS, std430) writeonly buffer Y { ST y[]; };

#include "act.glsl" // act(x) (codegen/glsl/act.glsl)

const uint TH_ = (OH + MT - 1) / MT; // tiles along H
const uint TW_ = (OW + MT - 1) / MT;
const uint T = NB * TH_ * TW_;

// shared: the step's V [A2][CB][TB] and U [A2][CB][KB]; after the last step
// the products of one part, M [A2][KBR][TB]
#define VS 0
#define US (A2 * CB * TB)
#define SMEM_MAIN (A2 * CB * (TB + KB))
#define SMEM_EPI (A2 * KBR * TB)
shared float S[SMEM_MAIN > SMEM_EPI ? SMEM_MAIN : SMEM_EPI];

// B^T (AL x AL) and A^T (MT x AL), as ir/winograd.c has them
#if MT == 2
const float BT[16] = float[16](1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1);
const float AT[8] = float[8](1, 1, 1, 0, 0, 1, -1, -1);
#else
const float BT[36] = float[36](4, 0, -5, 0, 1, 0, 0, -4, -4, 1, 1, 0, 0, 4, -4, -1, 1, 0,
                               0, -2, -1, 2, 1, 0, 0, 2, -1, -2, 1, 0, 0, 4, 0, -5, 0, 1);
const float AT[24] = float[24](1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0,
                               0, 1, -1, 8, -8, 1);
#endif

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint xi = lid / (TK * TT), r = lid % (TK * TT), tk = r / TT, tt = r % TT;
  uint t0 = gl_WorkGroupID.x * TB, k0 = gl_WorkGroupID.y * KB;

  float acc[RK][RT];
  [[unroll]] for (uint i = 0; i < RK; i++)
    [[unroll]] for (uint j = 0; j < RT; j++) acc[i][j] = 0.0;

  for (uint c0 = 0; c0 < C; c0 += CB) {
    // the input tiles' transforms, one (channel, tile) pair at a time
    for (uint e = lid; e < CB * TB; e += WG) {
      uint cl = e / TB, tl = e % TB, c = c0 + cl, t = t0 + tl;
      float d[A2];
      bool live = c < C && t < T;
      uint n = t / (TH_ * TW_), q = t % (TH_ * TW_);
      int ih0 = int((q / TW_) * MT) - PT, iw0 = int((q % TW_) * MT) - PL;
      uint base = (n * C + c) * H * W;
      [[unroll]] for (uint i = 0; i < AL; i++)
        [[unroll]] for (uint j = 0; j < AL; j++) {
          int ih = ih0 + int(i), iw = iw0 + int(j);
          d[i * AL + j] = live && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W)
                              ? float(x[base + uint(ih) * W + uint(iw)])
                              : 0.0;
        }
      float tmp[A2]; // BT d
      [[unroll]] for (uint i = 0; i < AL; i++)
        [[unroll]] for (uint j = 0; j < AL; j++) {
          float s = 0.0;
          [[unroll]] for (uint k = 0; k < AL; k++) s += BT[i * AL + k] * d[k * AL + j];
          tmp[i * AL + j] = s;
        }
      [[unroll]] for (uint i = 0; i < AL; i++)
        [[unroll]] for (uint j = 0; j < AL; j++) { // (BT d) BT^T
          float s = 0.0;
          [[unroll]] for (uint k = 0; k < AL; k++) s += tmp[i * AL + k] * BT[j * AL + k];
          S[VS + ((i * AL + j) * CB + cl) * TB + tl] = s;
        }
    }
    // U's slice: k fastest, as U is laid out
    for (uint e = lid; e < A2 * CB * KB; e += WG) {
      uint kl = e % KB, cl = (e / KB) % CB, p = e / (KB * CB);
      uint c = c0 + cl, k = k0 + kl;
      S[US + e] = c < C && k < M ? float(u[(p * C + c) * M + k]) : 0.0;
    }
    barrier();
    [[unroll]] for (uint cl = 0; cl < CB; cl++) {
      float a[RK], b[RT];
      [[unroll]] for (uint i = 0; i < RK; i++) a[i] = S[US + (xi * CB + cl) * KB + tk * RK + i];
      [[unroll]] for (uint j = 0; j < RT; j++) b[j] = S[VS + (xi * CB + cl) * TB + tt * RT + j];
      [[unroll]] for (uint i = 0; i < RK; i++)
        [[unroll]] for (uint j = 0; j < RT; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    barrier();
  }

  // the output transforms, KBR output channels at a time
  for (uint rd = 0; rd < ROUNDS; rd++) {
    if (tk / TKR == rd) {
      [[unroll]] for (uint i = 0; i < RK; i++)
        [[unroll]] for (uint j = 0; j < RT; j++)
          S[(xi * KBR + (tk % TKR) * RK + i) * TB + tt * RT + j] = acc[i][j];
    }
    barrier();
    for (uint e = lid; e < KBR * TB; e += WG) {
      uint kl = e / TB, tl = e % TB, k = k0 + rd * KBR + kl, t = t0 + tl;
      if (k >= M || t >= T) continue;
      float tmp[MT * AL]; // AT mm
      [[unroll]] for (uint i = 0; i < MT; i++)
        [[unroll]] for (uint j = 0; j < AL; j++) {
          float s = 0.0;
          [[unroll]] for (uint q = 0; q < AL; q++)
            s += AT[i * AL + q] * S[((q * AL + j) * KBR + kl) * TB + tl];
          tmp[i * AL + j] = s;
        }
      uint n = t / (TH_ * TW_), q = t % (TH_ * TW_);
      uint oh0 = (q / TW_) * MT, ow0 = (q % TW_) * MT;
#if HAS_BIAS
      float bk = float(bias[k]);
#else
      float bk = 0.0;
#endif
      [[unroll]] for (uint i = 0; i < MT; i++)
        [[unroll]] for (uint j = 0; j < MT; j++) { // (AT mm) AT^T
          float s = 0.0;
          [[unroll]] for (uint q2 = 0; q2 < AL; q2++) s += tmp[i * AL + q2] * AT[j * AL + q2];
          uint oh = oh0 + i, ow = ow0 + j;
          if (oh < OH && ow < OW) y[((n * M + k) * OH + oh) * OW + ow] = ST(act(s + bk));
        }
    }
    barrier();
  }
}
