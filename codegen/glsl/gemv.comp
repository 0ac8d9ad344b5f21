#version 450
// GEMV: gemm / matmul with few rows (R <= 8) on one side, memory-bound on the
// weights (codegen/kernels/gemm.c instantiates it):
//   Y(z,r,c) = ACT(ALPHA * sum_k X(z,r,k) * W(z,k,c) + BETA * Cm(r,c))
// X is the small operand (R rows), W the weights (CN columns). Normally X = A
// and W = B (r = i, c = j); with SWAP (N small, M large) X = B^T, W = A^T
// and the output and C strides are swapped by the host.
//
// Bindings: 0 = A, 1 = B, [2 = C when HAS_C], then Y (dense, as
//   codegen/glsl/gemm_tiled.comp): X is binding SWAP, W binding 1 - SWAP.
// Mapping: a workgroup of WG_N x WG_K invocations (k lanes fastest) owns a
//   block of output columns for every row. Each lane walks K with stride WG_K
//   (UNROLL independent weight loads in flight) and keeps R partial sums:
//   WK = 0 (W contiguous along its columns, e.g. gemm trans_b = 0 / matmul
//     [K,N]): a lane owns VW neighbouring columns and loads them as one
//     vector per k; a workgroup owns WG_N * VW columns.
//   WK = 1 (W contiguous along k, gemm trans_b = 1 [N,K]): a lane owns one
//     column and loads VW neighbouring k as one vector (X likewise when
//     X_VEC, else VW scalars); the k lanes of a column read one contiguous
//     run; a workgroup owns WG_N columns.
//   The WG_K partials of a column are then combined: with USE_SG (1:
//   subgroup arithmetic, 2: plus clustered operations) by subgroup adds
//   first, the rest by a tree in shared memory; the k-lane-0 invocation
//   applies alpha, C, the activation and stores.
// Knobs (#defines): WG_N, WG_K, VEC (largest vector width), UNROLL, SG
//   (subgroups allowed). Chosen by the host: VW (<= VEC, alignment checked),
//   X_VEC, WK, USE_SG, SWAP, MR (= R), DTYPE_F16, ACT, HAS_C.
// Baked per shape (specialization constants): CN K, the strides, up to four
//   merged batch axes (grid z) with per-operand element strides, alpha/beta,
//   the activation's parameters.
// Arithmetic and accumulation are fp32; fp16 data is converted on load and
// rounded once on store.
#extension GL_EXT_control_flow_attributes : require
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define T2 f16vec2
#define T4 f16vec4
#else
#define T float
#define T2 vec2
#define T4 vec4
#endif
#if USE_SG
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if USE_SG == 2
#extension GL_KHR_shader_subgroup_clustered : require
#endif
#endif

#define WG (WG_N * WG_K)
layout(local_size_x = WG) in;

layout(constant_id = 0) const uint CN = 1; // columns (of W and Y)
layout(constant_id = 1) const uint K = 1;
layout(constant_id = 2) const uint X_SI = 0;
layout(constant_id = 3) const uint X_SK = 0;
layout(constant_id = 4) const uint W_SK = 0;
layout(constant_id = 5) const uint W_SJ = 0;
layout(constant_id = 6) const uint C_SR = 0;
layout(constant_id = 7) const uint C_SC = 0;
layout(constant_id = 8) const uint Y_SR = 0;
layout(constant_id = 9) const uint Y_SC = 0;
layout(constant_id = 10) const uint Y_SZ = 0; // elements per batch of Y
layout(constant_id = 11) const float ALPHA = 1.0;
layout(constant_id = 12) const float BETA = 1.0;
layout(constant_id = 13) const float ACT_ALPHA = 0.0;
layout(constant_id = 14) const float ACT_BETA = 0.0;
layout(constant_id = 15) const uint NBD = 0; // merged batch axes (<= 4), innermost first
layout(constant_id = 16) const uint BD0 = 1;
layout(constant_id = 17) const uint BD1 = 1;
layout(constant_id = 18) const uint BD2 = 1;
layout(constant_id = 19) const uint BD3 = 1;
layout(constant_id = 20) const uint BSX0 = 0;
layout(constant_id = 21) const uint BSX1 = 0;
layout(constant_id = 22) const uint BSX2 = 0;
layout(constant_id = 23) const uint BSX3 = 0;
layout(constant_id = 24) const uint BSW0 = 0;
layout(constant_id = 25) const uint BSW1 = 0;
layout(constant_id = 26) const uint BSW2 = 0;
layout(constant_id = 27) const uint BSW3 = 0;

#if VW == 4
#define WT T4
#define FV vec4
#elif VW == 2
#define WT T2
#define FV vec2
#else
#define WT T
#define FV float
#endif
// f16 vectors are read as packed words (one 8- or 4-byte load: drivers may
// split 16-bit vector loads into scalar ones)
#if DTYPE_F16 && VW == 4
#undef WT
#define WT uvec2
#define TOF(v) vec4(unpackHalf2x16((v).x), unpackHalf2x16((v).y))
#elif DTYPE_F16 && VW == 2
#undef WT
#define WT uint
#define TOF(v) unpackHalf2x16(v)
#else
#define TOF(v) FV(v)
#endif
#if VW == 1
#define COMP(v, c) (v)
#else
#define COMP(v, c) (v)[c]
#endif

layout(binding = 1 - SWAP, std430) readonly buffer BufW { WT w_v[]; };
#if WK && X_VEC
layout(binding = SWAP, std430) readonly buffer BufX { WT x_v[]; };
#else
layout(binding = SWAP, std430) readonly buffer BufX { T x_s[]; };
#endif
#if HAS_C
layout(binding = 2, std430) readonly buffer BufC { T c_s[]; };
#endif
layout(binding = 2 + HAS_C, std430) writeonly buffer BufY { T y_s[]; };

// partials per lane and row: WK = 0, VW columns; WK = 1, one column
#if WK
#define PT float
#define CV 1
#define PCOMP(v, c) (v)
#else
#define PT FV
#define CV VW
#define PCOMP(v, c) COMP(v, c)
#endif
#define HALF (WG_K > 1 ? WG_K / 2 : 1)
shared PT red[MR * WG_N * HALF];

// ---- the activation ---------------------------------------------------------

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

// ---- loads ----------------------------------------------------------------------

#if WK
// X(r, kv*VW .. +VW) as a vector
FV x_at(uint xoff, uint r, uint kv) {
#if X_VEC
  return TOF(x_v[(xoff + r * X_SI) / VW + kv]);
#elif VW == 1
  return float(x_s[xoff + r * X_SI + kv * X_SK]);
#else
  uint b = xoff + r * X_SI + kv * VW * X_SK;
  FV v;
  [[unroll]] for (uint c = 0; c < VW; c++) v[c] = float(x_s[b + c * X_SK]);
  return v;
#endif
}
#else
float x_at(uint xoff, uint r, uint k) { return float(x_s[xoff + r * X_SI + k * X_SK]); }
#endif

float hsum(FV v) {
#if VW == 4
  return (v.x + v.y) + (v.z + v.w);
#elif VW == 2
  return v.x + v.y;
#else
  return v;
#endif
}

void main() {
#if USE_SG
  // lanes numbered through the subgroups, so that the k lanes of a column
  // share a subgroup (or fill whole ones) whatever the driver's numbering
  uint lid = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
  uint lid = gl_LocalInvocationID.x;
#endif
  uint tk = lid % WG_K, tn = lid / WG_K;

  uint z = gl_WorkGroupID.z, rem = z, xoff = 0, woff = 0, cz;
#define STEP(i)                   \
  if (NBD > i) {                  \
    cz = rem % BD##i;             \
    rem = rem / BD##i;            \
    xoff += cz * BSX##i;          \
    woff += cz * BSW##i;          \
  }
  STEP(0) STEP(1) STEP(2) STEP(3)
#undef STEP

  FV acc[MR];
  [[unroll]] for (uint r = 0; r < MR; r++) acc[r] = FV(0.0);

#if WK
  uint c0 = gl_WorkGroupID.x * WG_N + tn;
  if (c0 < CN) {
    uint wb = (woff + c0 * W_SJ) / VW; // W_SK = 1
    const uint KV = K / VW;
    uint kv = tk;
    for (; kv + (UNROLL - 1) * WG_K < KV; kv += UNROLL * WG_K) {
      FV w[UNROLL];
      [[unroll]] for (uint u = 0; u < UNROLL; u++) w[u] = TOF(w_v[wb + kv + u * WG_K]);
      [[unroll]] for (uint u = 0; u < UNROLL; u++)
        [[unroll]] for (uint r = 0; r < MR; r++)
          acc[r] = fma(x_at(xoff, r, kv + u * WG_K), w[u], acc[r]);
    }
    for (; kv < KV; kv += WG_K) {
      FV w = TOF(w_v[wb + kv]);
      [[unroll]] for (uint r = 0; r < MR; r++) acc[r] = fma(x_at(xoff, r, kv), w, acc[r]);
    }
  }
  PT p[MR];
  [[unroll]] for (uint r = 0; r < MR; r++) p[r] = hsum(acc[r]);
#else
  uint c0 = (gl_WorkGroupID.x * WG_N + tn) * VW;
  if (c0 < CN) {
    uint wb = woff + c0 * W_SJ; // W_SJ = 1 when VW > 1
    uint k = tk;
    for (; k + (UNROLL - 1) * WG_K < K; k += UNROLL * WG_K) {
      FV w[UNROLL];
      [[unroll]] for (uint u = 0; u < UNROLL; u++)
        w[u] = TOF(w_v[(wb + (k + u * WG_K) * W_SK) / VW]);
      [[unroll]] for (uint u = 0; u < UNROLL; u++)
        [[unroll]] for (uint r = 0; r < MR; r++)
          acc[r] = fma(FV(x_at(xoff, r, k + u * WG_K)), w[u], acc[r]);
    }
    for (; k < K; k += WG_K) {
      FV w = TOF(w_v[(wb + k * W_SK) / VW]);
      [[unroll]] for (uint r = 0; r < MR; r++) acc[r] = fma(FV(x_at(xoff, r, k)), w, acc[r]);
    }
  }
  PT p[MR];
  [[unroll]] for (uint r = 0; r < MR; r++) p[r] = acc[r];
#endif

  // ---- combine the k lanes: partial sums of g neighbouring k lanes end in
  // the lane whose tk is a multiple of g; then a tree through shared memory
  // (every lane reaches here: subgroup operations and barriers in uniform
  // control flow)
  uint g = 1;
#if USE_SG
  if (WG_K > 1) {
    if (gl_SubgroupSize >= WG_K) {
#if USE_SG == 2
      [[unroll]] for (uint r = 0; r < MR; r++) p[r] = subgroupClusteredAdd(p[r], WG_K);
      g = WG_K;
#else
      if (gl_SubgroupSize == WG_K) {
        [[unroll]] for (uint r = 0; r < MR; r++) p[r] = subgroupAdd(p[r]);
        g = WG_K;
      }
#endif
    } else {
      // WG_K and the subgroup size are powers of two: whole subgroups
      [[unroll]] for (uint r = 0; r < MR; r++) p[r] = subgroupAdd(p[r]);
      g = gl_SubgroupSize;
    }
  }
#endif
  for (uint s = WG_K / 2; s >= g; s /= 2) {
    if (tk >= s && tk < 2 * s && tk % g == 0)
      [[unroll]] for (uint r = 0; r < MR; r++) red[(r * WG_N + tn) * HALF + (tk - s) / g] = p[r];
    barrier();
    if (tk < s && tk % g == 0)
      [[unroll]] for (uint r = 0; r < MR; r++) p[r] += red[(r * WG_N + tn) * HALF + tk / g];
    barrier();
  }

  if (tk != 0 || c0 >= CN) return;
  uint yoff = z * Y_SZ;
  [[unroll]] for (uint r = 0; r < MR; r++) {
    [[unroll]] for (uint c = 0; c < CV; c++) {
      uint col = c0 + c;
      float v = ALPHA * PCOMP(p[r], c);
#if HAS_C
      v += BETA * float(c_s[r * C_SR + col * C_SC]);
#endif
      y_s[yoff + r * Y_SR + col * Y_SC] = T(act(v));
    }
  }
}
