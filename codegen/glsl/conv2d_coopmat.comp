#version 450
// conv2d (f16, any number of groups) as an implicit GEMM on cooperative matrices
// (GL_KHR_ or GL_NV_cooperative_matrix through coopmat.glsl, fp16 inputs,
// fp16 or fp32 accumulation);
// codegen/kernels/conv2d_coopmat.c instantiates it. Derived from gemm_coopmat.comp:
//   y[n, m, oh, ow] = ACT(bias[m] + sum_k A[m, k] * B[k, p])
//   A[m, k] = w[m, ic, kh, kw]              k = (ic*KH + kh)*KW + kw (w itself)
//   B[k, p] = x[n, ic, oh*SH + kh*DH - PT, ow*SW + kw*DW - PL] (0 outside)
//   p = (n*OH + oh)*OW + ow over the whole batch.
// With G groups each group is its own GEMM (workgroup z = the group): M and
// C above are the group's (M/G, C/G), offset by the group's first output
// and input channel.
// A workgroup computes a BM x BN block of [M, P]: WM x WN subgroups, each TM x
// TN tiles of MS x NS; per step of BK along k it stages the weights (vector
// loads along k, As[m][k]) and the gathered im2col slice (Bs[k][p], padding
// zeros included) in shared memory, the next step's loads in flight in
// registers while this one is multiplied.
//
// Bindings: 0 = x, 1 = w, [2 = bias,] then y; f16 tensors (NCHW, or nc4hw4
//   x / y when PACKED says so).
// Knobs (#defines): WM, WN, TM, TN, BK, ACC (accumulator bits: 16, 32);
//   SLK (template conv2d_coopmat_sliced_k, absent = 1): the workgroup is SLK
//   slices of WM x WN subgroups; slice s stages and multiplies the BK-steps
//   s, s + SLK, s + 2*SLK, ... of k in tiles of its own, and the epilogue
//   adds the slices' tiles (for small outputs with a long k, as
//   sliced_k.glsl does for the scalar templates).
// Baked per device (#defines): SG (subgroup size), MS NS KS (a shape the
//   device lists for f16 x f16 -> ACC).
// Baked per workload (#defines): HAS_BIAS, ACT (ir_act), A_VEC (weight
//   loads: 1, 2, 4 halves or 8 as a uvec4; K % A_VEC == 0), B_VEC (1: the
//   general gather; 2, 4, 8: a 1x1, stride 1, unpadded conv of the default
//   layout, whose B is [C, H*W] per image, loaded as vectors along pixels;
//   H*W % B_VEC == 0), PAD (shared row padding, 0 or 8 halves), PACKED
//   (absent = 0; bit 0: x, bit 1: y in nc4hw4, see ir/graph.h: element
//   (n, c, h, w) at (((n*C4 + c/4)*H + h)*W + w)*4 + c%4; the writer of
//   channel M-1 also writes 0 to the lanes past it), W_TAPS (absent = 0;
//   1: w is stored tap-major, [M, KH, KW, C/G] (w's nhwc layout, made by
//   pass_layout), and k runs tap-major by steps, below).
// With W_TAPS each step of BK along k lies within one tap (kh, kw) of the
// kernel and BK input channels: step s is tap s % KHW of the channel block
// s / KHW (channels past C/G are zeros), so B's rows of a step share their
// input position and bounds, computed once per column, A's rows are
// vectors along a tap's channels, and consecutive steps (the taps of one
// block) read the same lines of x and w. Without W_TAPS k = (ic*KH + kh)*KW
// + kw, as w is stored in the default layout.
// X_NHWC, Y_NHWC (absent = 0; x, y stored nhwc: element (n, c, h, w) at
//   ((n*H + h)*W + w)*C + c, pass_layout's nhwc regions): with X_NHWC (needs
//   W_TAPS, C/G % 8 == 0, B_VEC = 8) a step's B rows are BK channels of one
//   tap, contiguous at each input pixel: B is loaded as 16-byte vectors
//   along the channels (as A is along w's) and staged transposed, Bs[p][k],
//   the cooperative loads of B column-major. With Y_NHWC the epilogue's
//   lanes run along output channels (the tile staged column-major), so the
//   stores of a pixel's channels are contiguous.
// Baked per shape (specialization constants): the sizes and attributes below
//   (the ids of conv2d_direct.comp), the activation's parameters.
// Every cooperative load/store offset and stride is a multiple of 16 bytes.
// Compiled as gemm_coopmat.comp is (codegen/core/coopmat.c).
#include "coopmat.glsl" // CM_*: the NV or KHR cooperative matrices (CM_KHR)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require

#ifndef PACKED
#define PACKED 0
#endif
#define X_NC4HW4 (PACKED & 1)
#define Y_NC4HW4 ((PACKED >> 1) & 1)

#ifndef SLK
#define SLK 1
#endif
#ifndef W_TAPS
#define W_TAPS 0
#endif
#ifndef X_NHWC
#define X_NHWC 0
#endif
#ifndef Y_NHWC
#define Y_NHWC 0
#endif
#if X_NHWC && (!W_TAPS || B_VEC != 8)
#error X_NHWC needs W_TAPS and B_VEC 8
#endif
#define WGS (WM * WN * SG) // invocations of one slice
#define WG (WGS * SLK)
#define BM (WM * TM * MS)
#define BN (WN * TN * NS)
#define ASTR (BK + PAD) // As[m][k]
#if X_NHWC
#define BSTR (BK + PAD) // Bs[p][k]
#define B_ROWS BN
#else
#define BSTR (BN + PAD) // Bs[k][p]
#define B_ROWS BK
#endif

layout(local_size_x = WG) in;

#include "conv_params.glsl" // the sizes and attributes, ACT_ALPHA, ACT_BETA

const uint KHW = KH * KW;
const uint CPG = C / G, MPG = M / G; // a group's input and output channels
const uint K = CPG * KHW;
const uint HW = H * W;
const uint OHW = OH * OW;
const uint P = NB * OHW;
#if W_TAPS
const uint CBLK = (CPG + BK - 1) / BK; // channel blocks of a tap
const uint NSTEP = KHW * CBLK;
#else
const uint NSTEP = (K + BK - 1) / BK;
#endif

#if A_VEC == 8
#define AT uvec4
#elif A_VEC == 4
#define AT f16vec4
#elif A_VEC == 2
#define AT f16vec2
#else
#define AT float16_t
#endif
#if B_VEC == 8
#define BT uvec4
#elif B_VEC == 4
#define BT f16vec4
#elif B_VEC == 2
#define BT f16vec2
#else
#define BT float16_t
#endif

layout(binding = 0, std430) readonly buffer X { BT x_v[]; };
layout(binding = 1, std430) readonly buffer Wt { AT w_v[]; };
#if HAS_BIAS
layout(binding = 2, std430) readonly buffer Bias { float16_t bias[]; };
#endif
layout(binding = 2 + HAS_BIAS, std430) writeonly buffer Y { float16_t y[]; };

// 8 halves travel and are staged as one uvec4; cooperative loads then count
// offsets and strides in those 16-byte units (A_U, B_U). One A and one B
// tile per slice (A_SL, B_SL elements apart), one epilogue tile per subgroup.
#if A_VEC == 8
#define A_U 8
#else
#define A_U 1
#endif
#if B_VEC == 8
#define B_U 8
#else
#define B_U 1
#endif
#define A_SL (BM * ASTR / A_U)
#define B_SL (B_ROWS * BSTR / B_U)
#if A_VEC == 8
shared uvec4 As[SLK * A_SL];
#else
shared float16_t As[SLK * A_SL];
#endif
#if B_VEC == 8
shared uvec4 Bs[SLK * B_SL];
#else
shared float16_t Bs[SLK * B_SL];
#endif
shared float Cs[SLK * WM * WN * MS * NS];
// an epilogue tile into Cs (column-major with Y_NHWC; CM_STORE pastes its
// last argument, so the two forms are spelled out)
#if Y_NHWC
#define CS_STORE(m) CM_STORE(m, Cs, cbase, MS, true)
#else
#define CS_STORE(m) CM_STORE(m, Cs, cbase, NS, false)
#endif

// ---- the activation ---------------------------------------------------------

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

// ---- staging -------------------------------------------------------------------

// The invocations of a slice stage its tiles (lid: the index within the
// slice; a_off, b_off: the slice's tiles).
// A: BM rows of BK/A_VEC vectors, consecutive invocations along k.
#define A_ITEMS (BM * (BK / A_VEC))
#define A_IT ((A_ITEMS + WGS - 1) / WGS)
// B: BK rows of NV vectors (pixels); an invocation keeps its columns over
// the whole loop (BNC invocations per row, RSTEP rows at once, COLS columns
// and RPT rows each; powers of two).
#define NV (BN / B_VEC)
#define BNC (NV < WGS ? NV : WGS)
#define RSTEP (WGS / BNC)
#define COLS (NV / BNC)
#define RPT (BK > RSTEP ? BK / RSTEP : 1)

AT ra[A_IT];
#if X_NHWC
// B: BN pixels of BK/8 vectors (channels), consecutive invocations along
// the channels of a pixel; an invocation keeps its items' pixels over the
// whole loop.
#define B_ITEMS (BN * (BK / 8))
#define B_IT ((B_ITEMS + WGS - 1) / WGS)
BT rb[B_IT];
uint bpix[B_IT];  // the item's image's first pixel (n * H * W)
int bih[B_IT], biw[B_IT];
bool bok[B_IT];
#else
BT rb[RPT * COLS];
#endif
// The slice's tiles (SLK > 1): A_IX(i), B_IX(i) index its part of As, Bs.
#if SLK > 1
uint a_off, b_off;
#define A_IX(i) (a_off + (i))
#define B_IX(i) (b_off + (i))
#else
#define A_IX(i) (i)
#define B_IX(i) (i)
#endif

// This workgroup's group: its first output channel (rows of w and y) and
// its first input channel.
uint gm0, gc0;

// The B columns of this invocation: the image's offset in x, and (gather)
// the top-left input position of the column's pixel.
#if !X_NHWC
uint cx[COLS];
int cih[COLS], ciw[COLS];
bool cok[COLS];
#endif

#if X_NC4HW4
const uint C4 = (C + 3) / 4;
#define XAT(c, ic, ih, iw) x_v[cx[c] + (((ic) >> 2) * HW + uint(ih) * W + uint(iw)) * 4 + ((ic) & 3)]
#else
#define XAT(c, ic, ih, iw) x_v[cx[c] + (ic) * HW + uint(ih) * W + uint(iw)]
#endif

// Every invocation loads, whatever its item (as gemm_coopmat.comp's fetch):
// where the tiles cover the operand exactly as is, else from an address
// clamped into it, the value zeroed where it lies outside (padding
// included). A slice's steps run past K unless SLK * BK divides it; B's rows
// past BK (RSTEP > BK) are loaded and not staged.
// (Sums of remainders, not &&, of specialization constants: glslang wrote
// undefined ids for those, as a global const bool or inline.)
// K_REM: 0 where every slice's steps lie inside k.
#if W_TAPS
#define K_REM (CPG % BK + NSTEP % SLK)
#else
#define K_REM (K % (SLK * BK))
#endif
#if A_ITEMS % WGS == 0
#define A_EXACT (MPG % BM + K_REM == 0)
#else
#define A_EXACT false
#endif
#define BK_EXACT (K_REM + (RSTEP <= BK ? 0 : 1) == 0)
#define BP_EXACT (P % BN == 0)

#if X_NC4HW4
#define XP(c, ic, pos) x_v[cx[c] + (((ic) >> 2) * HW + (pos)) * 4 + ((ic) & 3)]
#else
#define XP(c, ic, pos) x_v[cx[c] + (ic) * HW + (pos)]
#endif

// Loads step st (of NSTEP; past them: zeros) of this slice into registers.
void fetch(uint lid, uint m0, uint st, uint col0, uint row0) {
#if W_TAPS
  // one tap, channels ic0 .. ic0 + BK of the group
  uint tap = st % KHW, ic0 = (st / KHW) * BK;
  [[unroll]] for (uint it = 0; it < A_IT; it++) {
    uint e = it * WGS + lid;
    uint j = (e % (BK / A_VEC)) * A_VEC, m = e / (BK / A_VEC);
    uint gm = m0 + m, ic = ic0 + j;
    bool ok = A_EXACT || ((A_ITEMS % WGS == 0 || e < A_ITEMS) && gm < MPG && ic < CPG && st < NSTEP);
    if (!A_EXACT) {
      gm = min(gm, MPG - 1);
      ic = min(ic, CPG - A_VEC);
    }
    AT v = w_v[(((gm0 + gm) * KHW + tap) * CPG + ic) / A_VEC];
    ra[it] = ok ? v : AT(0);
  }
  int dh = int((tap / KW) * DH), dw = int((tap % KW) * DW);
#if X_NHWC
  [[unroll]] for (uint it = 0; it < B_IT; it++) {
    uint e = it * WGS + lid;
    uint ic = ic0 + (e % (BK / 8)) * 8;
    int ih = bih[it] + dh, iw = biw[it] + dw;
    bool ok = bok[it] && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W) &&
              (CPG % BK == 0 || ic < CPG) && st < NSTEP;
    uint pos = bpix[it] + uint(clamp(ih, 0, int(H) - 1)) * W + uint(clamp(iw, 0, int(W) - 1));
    ic = min(ic, CPG - 8);
    BT v = x_v[(pos * C + gc0 + ic) / 8];
    rb[it] = ok ? v : BT(0);
  }
#else
  [[unroll]] for (uint c = 0; c < COLS; c++) {
    int ih = cih[c] + dh, iw = ciw[c] + dw;
    bool cin = (BP_EXACT || cok[c]) && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W);
    uint pos = uint(clamp(ih, 0, int(H) - 1)) * W + uint(clamp(iw, 0, int(W) - 1));
    [[unroll]] for (uint r = 0; r < RPT; r++) {
      uint ic = ic0 + row0 + r * RSTEP;
      bool ok = cin && (BK_EXACT || (ic < CPG && st < NSTEP));
      if (!BK_EXACT) ic = min(ic, CPG - 1);
      BT v = XP(c, gc0 + ic, pos);
      rb[r * COLS + c] = ok ? v : BT(0);
    }
  }
#endif
#else
  uint k0 = st * BK;
  [[unroll]] for (uint it = 0; it < A_IT; it++) {
    uint e = it * WGS + lid;
    uint k = (e % (BK / A_VEC)) * A_VEC, m = e / (BK / A_VEC);
    uint gm = m0 + m, gk = k0 + k;
    bool ok = A_EXACT || ((A_ITEMS % WGS == 0 || e < A_ITEMS) && gm < MPG && gk < K);
    if (!A_EXACT) {
      gm = min(gm, MPG - 1);
      gk = min(gk, K - A_VEC);
    }
    AT v = w_v[((gm0 + gm) * K + gk) / A_VEC];
    ra[it] = ok ? v : AT(0);
  }
  [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {
    uint r = e / COLS, c = e % COLS;
    uint kb = k0 + row0 + r * RSTEP;
    bool ok = (BK_EXACT || kb < K) && (BP_EXACT || cok[c]);
    if (!BK_EXACT) kb = min(kb, K - 1);
#if B_VEC > 1
    // 1x1, stride 1, no pads: B is x's [C, H*W] rows per image
    BT v = x_v[(cx[c] + (gc0 + kb) * HW) / B_VEC];
#else
    uint ic = gc0 + kb / KHW, t = kb % KHW;
    int ih = cih[c] + int((t / KW) * DH), iw = ciw[c] + int((t % KW) * DW);
    ok = ok && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W);
    BT v = XAT(c, ic, clamp(ih, 0, int(H) - 1), clamp(iw, 0, int(W) - 1));
#endif
    rb[e] = ok ? v : BT(0);
  }
#endif
}

// A component of a staged vector.
#if A_VEC == 4 || A_VEC == 2
#define ACOMP(v, c) v[c]
#else
#define ACOMP(v, c) v
#endif
#if B_VEC == 4 || B_VEC == 2
#define BCOMP(v, c) v[c]
#else
#define BCOMP(v, c) v
#endif

void stash(uint lid, uint col0, uint row0) {
  [[unroll]] for (uint it = 0; it < A_IT; it++) {
    uint e = it * WGS + lid;
    if (A_ITEMS % WGS != 0 && e >= A_ITEMS) break;
    uint o = (e / (BK / A_VEC)) * ASTR + (e % (BK / A_VEC)) * A_VEC;
#if A_VEC == 8
    As[A_IX(o / 8)] = ra[it];
#else
    [[unroll]] for (uint c = 0; c < A_VEC; c++) As[A_IX(o + c)] = ACOMP(ra[it], c);
#endif
  }
#if X_NHWC
  [[unroll]] for (uint it = 0; it < B_IT; it++) {
    uint e = it * WGS + lid;
    if (B_ITEMS % WGS != 0 && e >= B_ITEMS) break;
    Bs[B_IX(((e / (BK / 8)) * BSTR + (e % (BK / 8)) * 8) / 8)] = rb[it];
  }
#else
  [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {
    uint kk = row0 + (e / COLS) * RSTEP;
    if (RSTEP > BK && kk >= BK) break;
    uint o = kk * BSTR + (col0 + (e % COLS) * BNC) * B_VEC;
#if B_VEC == 8
    Bs[B_IX(o / 8)] = rb[e];
#else
    [[unroll]] for (uint c = 0; c < B_VEC; c++) Bs[B_IX(o + c)] = BCOMP(rb[e], c);
#endif
  }
#endif
}

void main() {
#if SLK > 1
  // staging: slice gl_LocalInvocationID.x / WGS; multiplying: the slice of
  // subgroup sg (the barriers between them make the two independent)
  uint lid = gl_LocalInvocationID.x % WGS, sl = gl_LocalInvocationID.x / WGS;
  a_off = sl * A_SL;
  b_off = sl * B_SL;
  uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  uint sgs = sg % (WM * WN), sgl = sg / (WM * WN); // within the slice, the slice
  uint ca = sgl * A_SL, cb = sgl * B_SL;
#define CA_(o) (ca + (o))
#define CB_(o) (cb + (o))
  uint sm = sgs / WN, sn = sgs % WN;
#else
  // (one slice, as the unsliced template always was: the same module)
  uint lid = gl_LocalInvocationID.x;
  uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  uint sm = sg / WN, sn = sg % WN;
#define sl 0
#define CA_(o) (o)
#define CB_(o) (o)
#endif
  uint p0 = gl_WorkGroupID.x * BN, m0 = gl_WorkGroupID.y * BM;
  gm0 = gl_WorkGroupID.z * MPG;
  gc0 = gl_WorkGroupID.z * CPG;

#if X_NHWC
  uint col0 = 0, row0 = 0;
  [[unroll]] for (uint it = 0; it < B_IT; it++) {
    uint e = it * WGS + lid, p = p0 + e / (BK / 8);
    bok[it] = (B_ITEMS % WGS == 0 || e < B_ITEMS) && p < P;
    uint nb = min(p / OHW, NB - 1), q = p % OHW;
    bpix[it] = nb * HW;
    bih[it] = int((q / OW) * SH) - PT;
    biw[it] = int((q % OW) * SW) - PL;
  }
#else
  uint col0 = lid % BNC, row0 = lid / BNC;
  [[unroll]] for (uint c = 0; c < COLS; c++) {
    uint p = p0 + (col0 + c * BNC) * B_VEC;
    cok[c] = p < P;
    uint nb = min(p / OHW, NB - 1), q = p % OHW; // (a column past P loads from the last image)
#if B_VEC > 1
    cx[c] = nb * C * HW + q;
#elif X_NC4HW4
    cx[c] = nb * C4 * HW * 4;
#else
    cx[c] = nb * C * HW;
#endif
    cih[c] = int((q / OW) * SH) - PT;
    ciw[c] = int((q % OW) * SW) - PL;
  }
#endif

  CM_ACC(MS, NS) acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; i++)
    [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = CM_ACC(MS, NS)(0.0);

  // every slice runs the same steps (zeros past K): uniform barriers
  fetch(lid, m0, sl, col0, row0);
  for (uint s0 = 0; s0 < NSTEP; s0 += SLK) {
    stash(lid, col0, row0);
    barrier();
    if (s0 + SLK < NSTEP) fetch(lid, m0, s0 + SLK + sl, col0, row0);
    [[unroll]] for (uint kk = 0; kk < BK; kk += KS) {
      CM_A(MS, KS) a[TM];
      CM_B(KS, NS) b[TN];
      [[unroll]] for (uint i = 0; i < TM; i++) {
        uint row = (sm * TM + i) * MS;
        CM_LOAD(a[i], As, CA_((row * ASTR + kk) / A_U), ASTR / A_U, false);
      }
      [[unroll]] for (uint j = 0; j < TN; j++) {
        uint col = (sn * TN + j) * NS;
#if X_NHWC
        CM_LOAD(b[j], Bs, CB_((col * BSTR + kk) / B_U), BSTR / B_U, true);
#else
        CM_LOAD(b[j], Bs, CB_((kk * BSTR + col) / B_U), BSTR / B_U, false);
#endif
      }
      [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = CM_MULADD(a[i], b[j], acc[i][j]);
    }
    barrier();
  }

  // epilogue: one tile at a time through this subgroup's part of Cs; lanes
  // run along pixels (Y_NHWC: along channels, the tile stored column-major)
  // so the stores are coalesced; with SLK > 1 the subgroups of slice 0 add
  // the other slices' tiles and write
  uint cbase = sg * (MS * NS);
  [[unroll]] for (uint i = 0; i < TM; i++) {
    [[unroll]] for (uint j = 0; j < TN; j++) {
#if ACC == 32
      CS_STORE(acc[i][j]);
#else
      CM_F32(MS, NS) t = CM_F32(MS, NS)(acc[i][j]);
      CS_STORE(t);
#endif
#if SLK > 1
      barrier();
#else
      subgroupMemoryBarrierShared();
      subgroupBarrier();
#endif
      uint ti = m0 + (sm * TM + i) * MS, tj = p0 + (sn * TN + j) * NS;
#if SLK > 1
      for (uint e = lane; e < (sgl == 0 ? MS * NS : 0); e += SG) {
#else
      for (uint e = lane; e < MS * NS; e += SG) {
#endif
#if Y_NHWC
        uint mi = ti + e % MS, p = tj + e / MS, m = gm0 + mi; // m: y's channel
#else
        uint mi = ti + e / NS, p = tj + e % NS, m = gm0 + mi; // m: y's channel
#endif
        if (mi < MPG && p < P) {
          float v = Cs[cbase + e];
#if SLK > 1
          [[unroll]] for (uint s = 1; s < SLK; s++) v += Cs[cbase + s * (WM * WN * MS * NS) + e];
#endif
#if HAS_BIAS
          v += float(bias[m]);
#endif
          uint nb = p / OHW, q = p % OHW;
#if Y_NC4HW4
          const uint M4 = (M + 3) / 4;
          uint a = ((nb * M4 + (m >> 2)) * OHW + q) * 4;
          y[a + (m & 3)] = float16_t(act(v));
          if (M % 4 != 0 && m == M - 1)
            for (uint l = M % 4; l < 4; l++) y[a + l] = float16_t(0.0);
#elif Y_NHWC
          y[p * M + m] = float16_t(act(v));
#else
          y[(nb * M + m) * OHW + q] = float16_t(act(v));
#endif
        }
      }
#if SLK > 1
      barrier();
#else
      subgroupMemoryBarrierShared();
      subgroupBarrier();
#endif
    }
  }
}
