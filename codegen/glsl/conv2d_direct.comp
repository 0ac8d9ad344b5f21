#version 450
// conv2d, general form (groups, strides, dilations, asymmetric pads), as an
// implicit GEMM per group (codegen/kernels/conv2d.c instantiates it):
//   out[n, g*MG + m, oh, ow] = ACT(bias[g*MG + m] + sum_k A[m, k] * B[k, p])
//   A[m, k] = w[g*MG + m, ic, kh, kw]          k = (ic*KH + kh)*KW + kw
//     (K_TAP_OUTER: k = (kh*KW + kw)*CG + ic, see FETCH)
//   B[k, p] = x[n, g*CG + ic, oh*SH + kh*DH - PT, ow*SW + kw*DW - PL] (0 outside)
//   p = (n*OH + oh)*OW + ow over the whole batch.
// A workgroup computes a BM x BN block (BM = WG_M*TM output channels by
// BN = WG_N*TN output pixels); per step of BK along k it stages the weights
// and the input tile under its pixels (the im2col slice, gathered with its
// padding) in shared memory, loading the next step's into registers while it
// computes this one; each invocation keeps TM x TN outputs in registers (runs
// of up to 4 neighbouring channels and pixels: vector reads of shared memory,
// conflict-free across invocations, coalesced stores).
//
// Bindings: 0 = x, 1 = w, [2 = bias,] then out; dense NCHW tensors of DTYPE.
// Knobs (#defines): WG_M, WG_N (workgroup shape), TM, TN (outputs per
//   invocation), BK (k per shared-memory step); KS (template
//   conv2d_sliced_k, absent = 1): KS slices of the workgroup split k
//   (sliced_k.glsl).
// Baked per workload (#defines): DTYPE_F16, HAS_BIAS, ACT (the fused activation),
//   K_TAP_OUTER (absent = 0; needs CG % BK == 0).
// Baked per shape (specialization constants): the sizes and attributes below,
//   the activation's parameters.
// Packed operands (#defines, absent = 0): X_NC4HW4 / Y_NC4HW4 read x /
//   write out in nc4hw4 (ir/graph.h): element (n, c, h, w) at
//   (((n*C4 + c/4)*H + h)*W + w)*4 + c%4; the writer of channel M-1 also
//   writes 0 to the lanes past it.
// Shared memory: 4 * KS * BK * (BM + BN) bytes, at least 4 * (KS-1) * BM * BN
// (sliced_k.glsl). Arithmetic and accumulation fp32.
#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif

#define NT (WG_M * WG_N) // invocations of one slice
#define BM (WG_M * TM)
#define BN (WG_N * TN)
// An invocation's outputs: runs of VM (VN) neighbouring channels (pixels),
// the runs WG_M*VM (WG_N*VN) apart, so that its shared-memory reads are
// vectors and neighbouring invocations read neighbouring words.
#define VM (TM < 4 ? TM : 4)
#define VN (TN < 4 ? TN : 4)
#define MI(i) (((i) / VM) * (WG_M * VM) + tm * VM + (i) % VM)
#define NJ(j) (((j) / VN) * (WG_N * VN) + tn * VN + (j) % VN)
// B-tile loading: BNC threads per row, RSTEP rows at once, COLS columns and
// RPT rows per thread (everything is a power of two).
#define BNC (BN < NT ? BN : NT)
#define RSTEP (NT / BNC)
#define COLS (BN / BNC)
#define RPT (BK > RSTEP ? BK / RSTEP : 1)
// A-tile loading: NT >= 32 >= BK, so a thread's k column is fixed.
#define MSTEP (NT / BK)
#define MPT (BM > MSTEP ? BM / MSTEP : 1)

#include "sliced_k.glsl" // KS, the tiles As(i) and Bs(i), sliced_k_reduce

layout(local_size_x = WG_N, local_size_y = WG_M, local_size_z = KS) in;

#include "conv_params.glsl" // the sizes and attributes, ACT_ALPHA, ACT_BETA

const uint CG = C / G;
const uint MG = M / G;
const uint KHW = KH * KW;
const uint K = CG * KHW;
const uint HW = H * W;
const uint OHW = OH * OW;
const uint P = NB * OHW;

#ifndef K_TAP_OUTER
#define K_TAP_OUTER 0
#endif
#ifndef X_NC4HW4
#define X_NC4HW4 0
#endif
#ifndef Y_NC4HW4
#define Y_NC4HW4 0
#endif
// x at (column c's image, the group's input channel ic, row ih, column iw)
#if X_NC4HW4
const uint C4 = (C + 3) / 4;
#define XAT(c, ic, ih, iw)                                                     \
  x[cx[c] + (((g * CG + (ic)) >> 2) * HW + uint(ih) * W + uint(iw)) * 4 + ((g * CG + (ic)) & 3)]
#else
#define XAT(c, ic, ih, iw) x[cx[c] + (ic) * HW + uint(ih) * W + uint(iw)]
#endif

layout(binding = 0, std430) readonly buffer X { T x[]; };
layout(binding = 1, std430) readonly buffer Wt { T w[]; };
#if HAS_BIAS
layout(binding = 2, std430) readonly buffer Bias { T bias[]; };
layout(binding = 3, std430) writeonly buffer O { T o[]; };
#else
layout(binding = 2, std430) writeonly buffer O { T o[]; };
#endif

// ---- the activation ---------------------------------------------------------

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

void main() {
  const uint tn = gl_LocalInvocationID.x, tm = gl_LocalInvocationID.y;
  const uint tid = tm * WG_N + tn; // within the slice
  const uint ks = SLICE_ID;
  const uint g = gl_WorkGroupID.z;
  const uint m0 = gl_WorkGroupID.y * BM;
  const uint p0 = gl_WorkGroupID.x * BN;

  // The B columns this invocation loads: their pixel's top-left input
  // position and the offset of the group's first input channel.
  const uint col0 = tid % BNC, row0 = tid / BNC;
  int cih[COLS], ciw[COLS];
  uint cx[COLS];
  bool cok[COLS];
  [[unroll]] for (uint c = 0; c < COLS; c++) {
    uint p = p0 + col0 + c * BNC;
    cok[c] = p < P;
    uint nb = p / OHW, q = p % OHW;
    cih[c] = int((q / OW) * SH) - PT;
    ciw[c] = int((q % OW) * SW) - PL;
#if X_NC4HW4
    cx[c] = nb * C4 * HW * 4;
#else
    cx[c] = (nb * C + g * CG) * HW;
#endif
  }
  // The A column (k) this invocation loads and its first rows.
  const uint ka = tid % BK, ma = tid / BK;
  const uint wbase = (g * MG + m0) * K;

  // Global loads for the next step go to registers while this one computes.
  float ra[MPT], rb[RPT * COLS];
#if K_TAP_OUTER
  // k = (kh*KW + kw)*CG + ic: a step (BK rows, CG % BK == 0) lies within one
  // tap of the kernel, so its rows of B share their input position and
  // bounds, computed once per column.
#define FETCH(K0)                                                              \
  {                                                                            \
    uint kb = (K0), tap = kb / CG, ic0 = kb % CG;                              \
    int dh = int((tap / KW) * DH), dw = int((tap % KW) * DW);                  \
    [[unroll]] for (uint r = 0; r < MPT; r++) {                                \
      uint mm = ma + r * MSTEP;                                                \
      ra[r] = 0.0;                                                             \
      if (kb < K && m0 + mm < MG && mm < BM)                                   \
        ra[r] = float(w[wbase + mm * K + (ic0 + ka) * KHW + tap]);             \
    }                                                                          \
    [[unroll]] for (uint c = 0; c < COLS; c++) {                               \
      int ih = cih[c] + dh, iw = ciw[c] + dw;                                  \
      bool ok = kb < K && cok[c] && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W); \
      [[unroll]] for (uint r = 0; r < RPT; r++) {                              \
        rb[r * COLS + c] = 0.0;                                                \
        if (ok && row0 + r * RSTEP < BK)                                       \
          rb[r * COLS + c] = float(XAT(c, ic0 + row0 + r * RSTEP, ih, iw));    \
      }                                                                        \
    }                                                                          \
  }
#else
#define FETCH(K0)                                                              \
  {                                                                            \
    uint k = (K0) + ka;                                                        \
    [[unroll]] for (uint r = 0; r < MPT; r++) {                                \
      uint mm = ma + r * MSTEP;                                                \
      ra[r] = 0.0;                                                             \
      if (k < K && m0 + mm < MG && mm < BM) ra[r] = float(w[wbase + mm * K + k]); \
    }                                                                          \
    [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {                         \
      uint r = e / COLS, c = e % COLS;                                         \
      uint kb = (K0) + row0 + r * RSTEP;                                       \
      uint ic = kb / KHW, t = kb % KHW;                                        \
      int ih = cih[c] + int((t / KW) * DH), iw = ciw[c] + int((t % KW) * DW);  \
      rb[e] = 0.0;                                                             \
      if (kb < K && cok[c] && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W)) \
        rb[e] = float(XAT(c, ic, ih, iw));                                     \
    }                                                                          \
  }
#endif

  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; i++)
    [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = 0.0;

  // Step k0 stores the chunk fetched by the step before into shared memory
  // and multiplies it while the loads of chunk k0 are in flight. A slice's
  // chunk at k0 starts at k0 + ks * BK (zeros past K); every slice runs the
  // same steps, so the barriers stay uniform.
  for (uint k0 = 0; k0 < K + KS * BK; k0 += KS * BK) {
    if (k0 > 0) {
      [[unroll]] for (uint r = 0; r < MPT; r++) {
        uint mm = ma + r * MSTEP;
        if (mm < BM) As(ka * BM + mm) = ra[r];
      }
      [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {
        uint kk = row0 + (e / COLS) * RSTEP;
        if (kk < BK) Bs(kk * BN + col0 + (e % COLS) * BNC) = rb[e];
      }
      barrier();
    }
    if (k0 < K) {
      FETCH(k0 + ks * BK)
    }
    if (k0 > 0) {
      TILE_UNROLL for (uint kk = 0; kk < BK; kk++) {
        float a[TM], b[TN];
        TILE_READS(kk, a, b)
        [[unroll]] for (uint i = 0; i < TM; i++)
          [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
      }
      barrier();
    }
  }

  if (!sliced_k_reduce(acc, ks, tid)) return;

  float bv[TM];
  [[unroll]] for (uint i = 0; i < TM; i++) {
#if HAS_BIAS
    bv[i] = float(bias[g * MG + min(m0 + MI(i), MG - 1)]);
#else
    bv[i] = 0.0;
#endif
  }
  [[unroll]] for (uint j = 0; j < TN; j++) {
    uint p = p0 + NJ(j);
#if Y_NC4HW4
    const uint M4 = (M + 3) / 4;
    uint yb = (p / OHW) * M4 * OHW * 4 + (p % OHW) * 4;
    [[unroll]] for (uint i = 0; i < TM; i++) {
      uint ch = g * MG + m0 + MI(i);
      if (m0 + MI(i) < MG && p < P) {
        uint a = yb + (ch >> 2) * OHW * 4;
        o[a + (ch & 3)] = T(act(acc[i][j] + bv[i]));
        if (M % 4 != 0 && ch == M - 1)
          for (uint l = M % 4; l < 4; l++) o[a + l] = T(0.0);
      }
    }
#else
    uint ob = ((p / OHW) * M + g * MG + m0) * OHW + p % OHW;
    [[unroll]] for (uint i = 0; i < TM; i++)
      if (m0 + MI(i) < MG && p < P) o[ob + MI(i) * OHW] = T(act(acc[i][j] + bv[i]));
#endif
  }
}
