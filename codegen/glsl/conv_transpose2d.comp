#version 450
// conv_transpose2d as a gather (codegen/kernels/conv2d.c instantiates it): each
// output pixel sums the input pixels and taps that map onto it,
//   out[n, g*MG + m, oh, ow] = ACT(bias + sum over ic, kh, kw with
//       oh + PT - kh*DH = ih*SH, ow + PL - kw*DW = iw*SW, (ih, iw) inside x of
//       x[n, g*CG + ic, ih, iw] * w[g*CG + ic, m, kh, kw]).
// Output pixels fall into SH x SW phases by (oh + PT) mod SH and
// (ow + PL) mod SW; within a phase the same taps apply to every pixel (those
// with kh*DH = phase mod SH, every STEP_KH-th from the first), so each phase
// is a dense implicit GEMM, [MG, CG*taps] x [CG*taps, pixels of the phase],
// with no multiply by a tap that does not exist. Workgroups: x = pixel
// blocks of the largest phase, y = output-channel blocks, z = group*SH*SW +
// phase. Tiles, registers and shared memory as in conv2d_direct.comp.
//
// Bindings: 0 = x, 1 = w, [2 = bias,] then out; dense NCHW tensors of DTYPE.
// Knobs (#defines): WG_M, WG_N, TM, TN, BK (as in conv2d_direct.comp).
// Baked per workload (#defines): DTYPE_F16, HAS_BIAS, ACT (the fused activation).
// Baked per shape (specialization constants): sizes and attributes, the
//   activation's parameters, STEP_KH = SH / gcd(SH, DH) and STEP_KW.
// Shared memory: 4 * BK * (BM + BN) bytes. Arithmetic and accumulation fp32.
#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif

#define NT (WG_M * WG_N)
#define BM (WG_M * TM)
#define BN (WG_N * TN)
// An invocation's outputs: runs of VM (VN) neighbouring channels (pixels),
// the runs WG_M*VM (WG_N*VN) apart, so that its shared-memory reads are
// vectors and neighbouring invocations read neighbouring words.
#define VM (TM < 4 ? TM : 4)
#define VN (TN < 4 ? TN : 4)
#define MI(i) (((i) / VM) * (WG_M * VM) + tm * VM + (i) % VM)
#define NJ(j) (((j) / VN) * (WG_N * VN) + tn * VN + (j) % VN)
#define BNC (BN < NT ? BN : NT)
#define RSTEP (NT / BNC)
#define COLS (BN / BNC)
#define RPT (BK > RSTEP ? BK / RSTEP : 1)
#define MSTEP (NT / BK)
#define MPT (BM > MSTEP ? BM / MSTEP : 1)

layout(local_size_x = WG_N, local_size_y = WG_M, local_size_z = 1) in;

#include "conv_params.glsl" // the sizes and attributes, ACT_ALPHA, ACT_BETA
layout(constant_id = 19) const uint STEP_KH = 1;
layout(constant_id = 20) const uint STEP_KW = 1;

const uint CG = C / G;
const uint MG = M / G;
const uint KHW = KH * KW;
const uint HW = H * W;
const int DKH = int(STEP_KH * DH / SH); // input-row step between taps
const int DKW = int(STEP_KW * DW / SW);

layout(binding = 0, std430) readonly buffer X { T x[]; };
layout(binding = 1, std430) readonly buffer Wt { T w[]; };
#if HAS_BIAS
layout(binding = 2, std430) readonly buffer Bias { T bias[]; };
layout(binding = 3, std430) writeonly buffer O { T o[]; };
#else
layout(binding = 2, std430) writeonly buffer O { T o[]; };
#endif

shared float As[BK * BM]; // [k][m]
shared float Bs[BK * BN]; // [k][p]

// ---- the activation ---------------------------------------------------------

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

// First tap index of one axis whose offset t*d is congruent to r mod s, or
// k (none), and how many there are (every step-th up to k).
void taps(uint r, uint s, uint d, uint k, uint step, out uint first, out uint count) {
  first = k;
  for (uint t = 0; t < step; t++)
    if ((t * d) % s == r) {
      first = t;
      break;
    }
  count = first < k ? (k - first + step - 1) / step : 0;
}

void main() {
  const uint tn = gl_LocalInvocationID.x, tm = gl_LocalInvocationID.y;
  const uint tid = tm * WG_N + tn;
  const uint g = gl_WorkGroupID.z / (SH * SW), ph = gl_WorkGroupID.z % (SH * SW);
  const uint rh = ph / SW, rw = ph % SW;
  // the phase's first output row/column and its extent
  const uint ohf = (rh + SH - uint(PT) % SH) % SH, owf = (rw + SW - uint(PL) % SW) % SW;
  const uint PHr = ohf < OH ? (OH - ohf + SH - 1) / SH : 0;
  const uint PWr = owf < OW ? (OW - owf + SW - 1) / SW : 0;
  const uint PQ = PHr * PWr, P = NB * PQ;
  const uint m0 = gl_WorkGroupID.y * BM;
  const uint p0 = gl_WorkGroupID.x * BN;
  if (p0 >= P) return; // the whole workgroup: smaller phase

  uint kh0, nvh, kw0, nvw;
  taps(rh, SH, DH, KH, STEP_KH, kh0, nvh);
  taps(rw, SW, DW, KW, STEP_KW, kw0, nvw);
  const uint K = CG * nvh * nvw; // k = (th*nvw + tw)*CG + ic
  // input row of pixel row j at tap th: bh + j - th*DKH (exact divisions)
  const int bh = (int(ohf) + PT - int(kh0 * DH)) / int(SH);
  const int bw = (int(owf) + PL - int(kw0 * DW)) / int(SW);

  const uint col0 = tid % BNC, row0 = tid / BNC;
  int cih[COLS], ciw[COLS];
  uint cx[COLS];
  bool cok[COLS];
  [[unroll]] for (uint c = 0; c < COLS; c++) {
    uint p = p0 + col0 + c * BNC;
    cok[c] = p < P;
    uint nb = p / max(PQ, 1u), q = p % max(PQ, 1u);
    cih[c] = bh + int(q / max(PWr, 1u));
    ciw[c] = bw + int(q % max(PWr, 1u));
    cx[c] = (nb * C + g * CG) * HW;
  }
  const uint ka = tid % BK, ma = tid / BK;

  // Global loads for the next step go to registers while this one computes.
  float ra[MPT], rb[RPT * COLS];
#define FETCH(K0)                                                              \
  {                                                                            \
    uint k = (K0) + ka;                                                        \
    uint tap = k / CG, th = tap / nvw, tw = tap % nvw;                         \
    uint wo = ((g * CG + k % CG) * MG + m0) * KHW + (kh0 + th * STEP_KH) * KW +  \
              kw0 + tw * STEP_KW;                                              \
    [[unroll]] for (uint r = 0; r < MPT; r++) {                                \
      uint mm = ma + r * MSTEP;                                                \
      ra[r] = 0.0;                                                             \
      if (k < K && m0 + mm < MG && mm < BM) ra[r] = float(w[wo + mm * KHW]);   \
    }                                                                          \
    [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {                         \
      uint r = e / COLS, c = e % COLS;                                         \
      uint kb = (K0) + row0 + r * RSTEP;                                       \
      uint tb = kb / CG;                                                       \
      int ih = cih[c] - int(tb / nvw) * DKH, iw = ciw[c] - int(tb % nvw) * DKW; \
      rb[e] = 0.0;                                                             \
      if (kb < K && cok[c] && ih >= 0 && ih < int(H) && iw >= 0 && iw < int(W)) \
        rb[e] = float(x[cx[c] + (kb % CG) * HW + uint(ih) * W + uint(iw)]);    \
    }                                                                          \
  }

  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; i++)
    [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = 0.0;

  // Step k0 stores the chunk fetched by the step before into shared memory
  // and multiplies it while the loads of chunk k0 are in flight.
  for (uint k0 = 0; k0 < K + BK; k0 += BK) {
    if (k0 > 0) {
      [[unroll]] for (uint r = 0; r < MPT; r++) {
        uint mm = ma + r * MSTEP;
        if (mm < BM) As[ka * BM + mm] = ra[r];
      }
      [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {
        uint kk = row0 + (e / COLS) * RSTEP;
        if (kk < BK) Bs[kk * BN + col0 + (e % COLS) * BNC] = rb[e];
      }
      barrier();
    }
    if (k0 < K) {
      FETCH(k0)
    }
    if (k0 > 0) {
      for (uint kk = 0; kk < BK; kk++) {
        float a[TM], b[TN];
        [[unroll]] for (uint i = 0; i < TM; i++) a[i] = As[kk * BM + MI(i)];
        [[unroll]] for (uint j = 0; j < TN; j++) b[j] = Bs[kk * BN + NJ(j)];
        [[unroll]] for (uint i = 0; i < TM; i++)
          [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
      }
      barrier();
    }
  }

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
    uint nb = p / PQ, q = p % PQ;
    uint oh = ohf + (q / PWr) * SH, ow = owf + (q % PWr) * SW;
    uint ob = ((nb * M + g * MG + m0) * OH + oh) * OW + ow;
    [[unroll]] for (uint i = 0; i < TM; i++)
      if (m0 + MI(i) < MG && p < P) o[ob + MI(i) * OH * OW] = T(act(acc[i][j] + bv[i]));
  }
}
