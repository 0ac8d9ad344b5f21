#version 450
// conv2d with a 1x1 kernel, stride 1, no padding and one group: a GEMM per
// image (codegen/kernels/conv2d.c instantiates it):
//   out[n, m, p] = ACT(bias[m] + sum_c w[m, c] * x[n, c, p])   p over H*W
// i.e. [M, C] x [C, H*W]. A workgroup computes a BM x BN block (BM = WG_M*TM
// output channels by BN = WG_N*TN pixels of one image, z = the image); per
// step of BK channels it stages both tiles in shared memory, with vec4 loads
// where rows allow them (C % 4 == 0 for w, H*W % 4 == 0 for x); each
// invocation keeps TM x TN outputs in registers (as in conv2d_direct.comp).
//
// Bindings: 0 = x, 1 = w, [2 = bias,] then out; dense NCHW tensors of DTYPE.
// Knobs (#defines): WG_M, WG_N, TM, TN, BK (as in conv2d_direct.comp); KS
//   (template conv2d_1x1_sliced_k, absent = 1): KS slices of the workgroup
//   split k (sliced_k.glsl).
// Baked per workload (#defines): DTYPE_F16, HAS_BIAS, ACT (the fused activation).
// Baked per shape (specialization constants): sizes, the activation's
//   parameters, and whether each operand takes the vec4 path.
// Packed operands (#defines, absent = 0): X_NC4HW4 / Y_NC4HW4 read x /
//   write out in nc4hw4 (ir/graph.h); a packed x takes the scalar B path
//   (the host clears VEC_B), the writer of channel M-1 also writes 0 to the
//   lanes past it.
// Shared memory: 4 * KS * BK * (BM + BN) bytes, at least 4 * (KS-1) * BM * BN
// (sliced_k.glsl). Arithmetic and accumulation fp32.
#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define T4 f16vec4
#else
#define T float
#define T4 vec4
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
// scalar B loads: BNC threads per row, RSTEP rows at once, COLS x RPT each
#define BNC (BN < NT ? BN : NT)
#define RSTEP (NT / BNC)
#define COLS (BN / BNC)
#define RPT (BK > RSTEP ? BK / RSTEP : 1)
// vec4 B loads, likewise in vectors (BN is a multiple of 4)
#define BN4 (BN / 4)
#define BNC4 (BN4 < NT ? BN4 : NT)
#define RSTEP4 (NT / BNC4)
#define COLS4 (BN4 / BNC4)
#define RPT4 (BK > RSTEP4 ? BK / RSTEP4 : 1)
// A loads: scalar (a fixed k per invocation) or vec4 (BK is a multiple of 4)
#define MSTEP (NT / BK)
#define MPT (BM > MSTEP ? BM / MSTEP : 1)
#define BK4 (BK / 4)
#define MSTEP4 (NT / BK4)
#define MPT4 (BM > MSTEP4 ? BM / MSTEP4 : 1)

#include "sliced_k.glsl" // KS, the tiles As(i) and Bs(i), sliced_k_reduce

layout(local_size_x = WG_N, local_size_y = WG_M, local_size_z = KS) in;

#include "conv_params.glsl" // the sizes and attributes, ACT_ALPHA, ACT_BETA
layout(constant_id = 19) const bool VEC_A = false; // C % 4 == 0
layout(constant_id = 20) const bool VEC_B = false; // H*W % 4 == 0

const uint HW = H * W;

#ifndef X_NC4HW4
#define X_NC4HW4 0
#endif
#ifndef Y_NC4HW4
#define Y_NC4HW4 0
#endif
// x at (this image's input channel k, pixel p)
#if X_NC4HW4
const uint C4 = (C + 3) / 4;
#define XAT(k, p) x[xbase + (((k) >> 2) * HW + (p)) * 4 + ((k) & 3)]
#else
#define XAT(k, p) x[xbase + (k) * HW + (p)]
#endif

layout(binding = 0, std430) readonly buffer X { T x[]; };
layout(binding = 0, std430) readonly buffer X4 { T4 x4[]; };
layout(binding = 1, std430) readonly buffer Wt { T w[]; };
layout(binding = 1, std430) readonly buffer Wt4 { T4 w4[]; };
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
  const uint nb = gl_WorkGroupID.z;
  const uint m0 = gl_WorkGroupID.y * BM;
  const uint p0 = gl_WorkGroupID.x * BN;
#if X_NC4HW4
  const uint xbase = nb * C4 * HW * 4;
#else
  const uint xbase = nb * C * HW;
#endif

  // Global loads for the next step go to registers while this one computes
  // (only one of each pair of paths survives specialization).
  const uint ka = tid % BK, ma = tid / BK;              // scalar A
  const uint ka4 = (tid % BK4) * 4, ma4 = tid / BK4;    // vec4 A
  const uint col0 = tid % BNC, row0 = tid / BNC;        // scalar B
  const uint col4 = (tid % BNC4) * 4, row4 = tid / BNC4; // vec4 B
  float ra[MPT], rb[RPT * COLS];
  vec4 ra4[MPT4], rb4[RPT4 * COLS4];
#define FETCH(K0)                                                              \
  if (VEC_A) {                                                                 \
    uint k = (K0) + ka4;                                                       \
    [[unroll]] for (uint r = 0; r < MPT4; r++) {                               \
      uint m = m0 + ma4 + r * MSTEP4;                                          \
      ra4[r] = vec4(0.0);                                                      \
      if (k < C && m < M) ra4[r] = vec4(w4[(m * C + k) / 4]);                  \
    }                                                                          \
  } else {                                                                     \
    uint k = (K0) + ka;                                                        \
    [[unroll]] for (uint r = 0; r < MPT; r++) {                                \
      uint m = m0 + ma + r * MSTEP;                                            \
      ra[r] = 0.0;                                                             \
      if (k < C && m < M) ra[r] = float(w[m * C + k]);                         \
    }                                                                          \
  }                                                                            \
  if (VEC_B) {                                                                 \
    [[unroll]] for (uint e = 0; e < RPT4 * COLS4; e++) {                       \
      uint k = (K0) + row4 + (e / COLS4) * RSTEP4;                             \
      uint p = p0 + col4 + (e % COLS4) * BNC4 * 4;                             \
      rb4[e] = vec4(0.0);                                                      \
      if (k < C && p < HW) rb4[e] = vec4(x4[(xbase + k * HW + p) / 4]);        \
    }                                                                          \
  } else {                                                                     \
    [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {                         \
      uint k = (K0) + row0 + (e / COLS) * RSTEP;                               \
      uint p = p0 + col0 + (e % COLS) * BNC;                                   \
      rb[e] = 0.0;                                                             \
      if (k < C && p < HW) rb[e] = float(XAT(k, p));                           \
    }                                                                          \
  }

  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; i++)
    [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = 0.0;

  // Step k0 stores the chunk fetched by the step before into shared memory
  // and multiplies it while the loads of chunk k0 are in flight. A slice's
  // chunk at k0 starts at k0 + ks * BK (zeros past C); every slice runs the
  // same steps, so the barriers stay uniform.
  for (uint k0 = 0; k0 < C + KS * BK; k0 += KS * BK) {
    if (k0 > 0) {
      if (VEC_A) {
        [[unroll]] for (uint r = 0; r < MPT4; r++) {
          uint mm = ma4 + r * MSTEP4;
          if (mm < BM) {
            As(ka4 * BM + mm) = ra4[r].x;
            As((ka4 + 1) * BM + mm) = ra4[r].y;
            As((ka4 + 2) * BM + mm) = ra4[r].z;
            As((ka4 + 3) * BM + mm) = ra4[r].w;
          }
        }
      } else {
        [[unroll]] for (uint r = 0; r < MPT; r++) {
          uint mm = ma + r * MSTEP;
          if (mm < BM) As(ka * BM + mm) = ra[r];
        }
      }
      if (VEC_B) {
        [[unroll]] for (uint e = 0; e < RPT4 * COLS4; e++) {
          uint kk = row4 + (e / COLS4) * RSTEP4, nn = col4 + (e % COLS4) * BNC4 * 4;
          if (kk < BK) {
            Bs(kk * BN + nn) = rb4[e].x;
            Bs(kk * BN + nn + 1) = rb4[e].y;
            Bs(kk * BN + nn + 2) = rb4[e].z;
            Bs(kk * BN + nn + 3) = rb4[e].w;
          }
        }
      } else {
        [[unroll]] for (uint e = 0; e < RPT * COLS; e++) {
          uint kk = row0 + (e / COLS) * RSTEP;
          if (kk < BK) Bs(kk * BN + col0 + (e % COLS) * BNC) = rb[e];
        }
      }
      barrier();
    }
    if (k0 < C) {
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
    bv[i] = float(bias[min(m0 + MI(i), M - 1)]);
#else
    bv[i] = 0.0;
#endif
  }
  [[unroll]] for (uint j = 0; j < TN; j++) {
    uint p = p0 + NJ(j);
#if Y_NC4HW4
    const uint M4 = (M + 3) / 4;
    uint yb = (nb * M4 * HW + p) * 4;
    [[unroll]] for (uint i = 0; i < TM; i++) {
      uint ch = m0 + MI(i);
      if (ch < M && p < HW) {
        uint a = yb + (ch >> 2) * HW * 4;
        o[a + (ch & 3)] = T(act(acc[i][j] + bv[i]));
        if (M % 4 != 0 && ch == M - 1)
          for (uint l = M % 4; l < 4; l++) o[a + l] = T(0.0);
      }
    }
#else
    uint ob = (nb * M + m0) * HW + p;
    [[unroll]] for (uint i = 0; i < TM; i++)
      if (m0 + MI(i) < M && p < HW) o[ob + MI(i) * HW] = T(act(acc[i][j] + bv[i]));
#endif
  }
}
