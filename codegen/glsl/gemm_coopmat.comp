#version 450
// GEMM on cooperative matrices (GL_KHR_ or GL_NV_cooperative_matrix through
// coopmat.glsl, fp16 inputs, fp16 or fp32 accumulation) for gemm and matmul, same bindings and addressing as
// gemm_tiled.comp (codegen/kernels/gemm.c instantiates both):
//   Y[z][i][j] = ACT(ALPHA * sum_k A(z,i,k) * B(z,k,j) + BETA * C[i][j])
//
// Bindings: 0 = A, 1 = B, [2 = C when HAS_C], then Y; f16 tensors.
// Knobs (#defines): WM x WN subgroups per workgroup, each owning TM x TN
//   cooperative-matrix tiles of MS x NS outputs; K advances BK at a time
//   through shared memory, KS per multiply-add; ACC = accumulator bits (16, 32).
// Baked per device (#defines): SG (subgroup size), MS NS KS (a shape the
//   device lists for f16 x f16 -> ACC).
// Baked per workload (#defines): ACT, HAS_C, per operand A_LOAD / B_LOAD =
//   the staging loads' vector width (1, 2, 4 halves, or 8 as a uvec4;
//   alignment checked by the host), plus 10 when consecutive invocations
//   load along k, and the shared row padding A_PAD / B_PAD (0 or 8 halves).
//   Shared tiles keep the operand's own orientation (A as [m][k] or [k][m],
//   B as [k][n] or [n][k]), so staging stores are contiguous and cooperative
//   loads pick row or column major; every cooperative load/store offset and
//   stride is a multiple of 16 bytes, as VK_NV_cooperative_matrix requires.
// Baked per shape (specialization constants): as gemm_tiled.comp.
// The next tile is fetched into registers while the current one is
// multiplied. The epilogue goes through shared memory (one fp32 MS x NS tile
// per subgroup): alpha, C, the activation and the bounds are applied per
// element there.
// Compiled as codegen/core/coopmat.c says (cg_coopmat_kernel_api): the NV
// form by shaderc at optimisation level zero (Debian 12's SPIRV-Tools
// optimizer crashes on it; glslang declares the Vulkan memory model in it, so
// the device must enable vulkanMemoryModel), the KHR form by glslang 15.
#include "coopmat.glsl" // CM_*: the NV or KHR cooperative matrices (CM_KHR)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require

#define A_VEC (A_LOAD % 10)
#define A_KCONTIG (A_LOAD > 10)
#define B_VEC (B_LOAD % 10)
#define B_KCONTIG (B_LOAD > 10)

#define WG (WM * WN * SG)
#define BM (WM * TM * MS)
#define BN (WN * TN * NS)
#if A_KCONTIG
#define ASTR (BK + A_PAD) // As[m][k]
#define A_ROWS BM
#else
#define ASTR (BM + A_PAD) // As[k][m]
#define A_ROWS BK
#endif
#if B_KCONTIG
#define BSTR (BK + B_PAD) // Bs[n][k]
#define B_ROWS BN
#else
#define BSTR (BN + B_PAD) // Bs[k][n]
#define B_ROWS BK
#endif

layout(local_size_x = WG) in;

#include "gemm_params.glsl" // the sizes, strides, alpha, beta, activation, batch axes

// Vector types of the staging loads; 8 halves travel as a uvec4 (and are
// staged as one).
#if A_VEC == 8
#define AT uvec4
#elif A_VEC == 4
#define AT f16vec4
#define ACOMP comp4
#elif A_VEC == 2
#define AT f16vec2
#define ACOMP comp2
#else
#define AT float16_t
#define ACOMP comp1
#endif
#if B_VEC == 8
#define BT uvec4
#elif B_VEC == 4
#define BT f16vec4
#define BCOMP comp4
#elif B_VEC == 2
#define BT f16vec2
#define BCOMP comp2
#else
#define BT float16_t
#define BCOMP comp1
#endif

layout(binding = 0, std430) readonly buffer BufA { AT a_v[]; };
layout(binding = 1, std430) readonly buffer BufB { BT b_v[]; };
#if HAS_C
layout(binding = 2, std430) readonly buffer BufC { float16_t c_s[]; };
#endif
layout(binding = 2 + HAS_C, std430) writeonly buffer BufY { float16_t y_s[]; };

// Staged in 16-byte units (A_U = 8 halves) where the loads come in uvec4s, so
// that one store moves 8 halves; cooperative loads then count offsets and
// strides in those units (all multiples of 8 halves).
#if A_VEC == 8
#define A_U 8
shared uvec4 As[A_ROWS * ASTR / 8];
#else
#define A_U 1
shared float16_t As[A_ROWS * ASTR];
#endif
#if B_VEC == 8
#define B_U 8
shared uvec4 Bs[B_ROWS * BSTR / 8];
#else
#define B_U 1
shared float16_t Bs[B_ROWS * BSTR];
#endif
shared float Cs[WM * WN * MS * NS];

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

// ---- staging (register prefetch of the next tile, as gemm_tiled.comp) --------

#if A_KCONTIG
#define A_ITEMS (BM * (BK / A_VEC))
#else
#define A_ITEMS (BK * (BM / A_VEC))
#endif
#if B_KCONTIG
#define B_ITEMS (BN * (BK / B_VEC))
#else
#define B_ITEMS (BK * (BN / B_VEC))
#endif
#define A_IT ((A_ITEMS + WG - 1) / WG)
#define B_IT ((B_ITEMS + WG - 1) / WG)

AT ra[A_IT];
BT rb[B_IT];

// One element of a staged vector.
float16_t comp1(float16_t v, uint c) { return v; }
float16_t comp2(f16vec2 v, uint c) { return v[c]; }
float16_t comp4(f16vec4 v, uint c) { return v[c]; }

void a_item(uint e, out uint m, out uint k) {
#if A_KCONTIG
  k = (e % (BK / A_VEC)) * A_VEC;
  m = e / (BK / A_VEC);
#else
  m = (e % (BM / A_VEC)) * A_VEC;
  k = e / (BM / A_VEC);
#endif
}
void b_item(uint e, out uint k, out uint n) {
#if B_KCONTIG
  k = (e % (BK / B_VEC)) * B_VEC;
  n = e / (BK / B_VEC);
#else
  n = (e % (BN / B_VEC)) * B_VEC;
  k = e / (BN / B_VEC);
#endif
}

// Every invocation loads, whatever its item: where the tiles cover the
// operand exactly (A_EXACT, B_EXACT) as is, else from an address clamped
// into the operand, the value zeroed where it lies outside. A load behind a
// bounds branch instead cost gemm_coopmat 1.27-1.36x on GEMM 4096^3 (H200,
// bench/results/2026-11-28-vendor.md). (Sums of remainders, not &&, of
// specialization constants: glslang wrote undefined ids for those.)
#if A_ITEMS % WG == 0
#define A_EXACT (M % BM + K % BK == 0)
#else
#define A_EXACT false
#endif
#if B_ITEMS % WG == 0
#define B_EXACT (N % BN + K % BK == 0)
#else
#define B_EXACT false
#endif
#if A_KCONTIG
#define A_LASTM (M - 1)
#define A_LASTK (K - A_VEC)
#else
#define A_LASTM (M - A_VEC)
#define A_LASTK (K - 1)
#endif
#if B_KCONTIG
#define B_LASTN (N - 1)
#define B_LASTK (K - B_VEC)
#else
#define B_LASTN (N - B_VEC)
#define B_LASTK (K - 1)
#endif

void fetch(uint lid, uint aoff, uint boff, uint m0, uint n0, uint k0) {
  [[unroll]] for (uint it = 0; it < A_IT; it++) {
    uint e = it * WG + lid, m, k;
    a_item(e, m, k);
    uint gm = m0 + m, gk = k0 + k;
    bool ok = A_EXACT || ((A_ITEMS % WG == 0 || e < A_ITEMS) && gm < M && gk < K);
    if (!A_EXACT) {
      gm = min(gm, A_LASTM);
      gk = min(gk, A_LASTK);
    }
    AT v = a_v[(aoff + gm * A_SI + gk * A_SK) / A_VEC];
    ra[it] = ok ? v : AT(0);
  }
  [[unroll]] for (uint it = 0; it < B_IT; it++) {
    uint e = it * WG + lid, k, n;
    b_item(e, k, n);
    uint gn = n0 + n, gk = k0 + k;
    bool ok = B_EXACT || ((B_ITEMS % WG == 0 || e < B_ITEMS) && gn < N && gk < K);
    if (!B_EXACT) {
      gn = min(gn, B_LASTN);
      gk = min(gk, B_LASTK);
    }
    BT v = b_v[(boff + gk * B_SK + gn * B_SJ) / B_VEC];
    rb[it] = ok ? v : BT(0);
  }
}

// Stores go along the loading direction, contiguous in shared memory.
void stash(uint lid) {
  [[unroll]] for (uint it = 0; it < A_IT; it++) {
    uint e = it * WG + lid, m, k;
    if (A_ITEMS % WG != 0 && e >= A_ITEMS) break;
    a_item(e, m, k);
#if A_KCONTIG
    uint o = m * ASTR + k;
#else
    uint o = k * ASTR + m;
#endif
#if A_VEC == 8
    As[o / 8] = ra[it];
#else
    [[unroll]] for (uint c = 0; c < A_VEC; c++) As[o + c] = ACOMP(ra[it], c);
#endif
  }
  [[unroll]] for (uint it = 0; it < B_IT; it++) {
    uint e = it * WG + lid, k, n;
    if (B_ITEMS % WG != 0 && e >= B_ITEMS) break;
    b_item(e, k, n);
#if B_KCONTIG
    uint o = n * BSTR + k;
#else
    uint o = k * BSTR + n;
#endif
#if B_VEC == 8
    Bs[o / 8] = rb[it];
#else
    [[unroll]] for (uint c = 0; c < B_VEC; c++) Bs[o + c] = BCOMP(rb[it], c);
#endif
  }
}

void main() {
  if (min(M, N) == 0) return; // (the clamped loads need a row and a column)
  uint lid = gl_LocalInvocationID.x;
  uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  uint sm = sg / WN, sn = sg % WN;
  uint n0 = gl_WorkGroupID.x * BN, m0 = gl_WorkGroupID.y * BM;

  uint z = gl_WorkGroupID.z, r = z, aoff = 0, boff = 0, c;
#define STEP(i)                   \
  if (NBD > i) {                  \
    c = r % BD##i;                \
    r = r / BD##i;                \
    aoff += c * BSA##i;           \
    boff += c * BSB##i;           \
  }
  STEP(0) STEP(1) STEP(2) STEP(3)
#undef STEP

  CM_ACC(MS, NS) acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; i++)
    [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = CM_ACC(MS, NS)(0.0);

  if (K > 0) fetch(lid, aoff, boff, m0, n0, 0);
  for (uint k0 = 0; k0 < K; k0 += BK) {
    stash(lid);
    barrier();
    if (k0 + BK < K) fetch(lid, aoff, boff, m0, n0, k0 + BK);
    [[unroll]] for (uint kk = 0; kk < BK; kk += KS) {
      CM_A(MS, KS) a[TM];
      CM_B(KS, NS) b[TN];
      [[unroll]] for (uint i = 0; i < TM; i++) {
        uint row = (sm * TM + i) * MS;
#if A_KCONTIG
        CM_LOAD(a[i], As, (row * ASTR + kk) / A_U, ASTR / A_U, false);
#else
        CM_LOAD(a[i], As, (kk * ASTR + row) / A_U, ASTR / A_U, true);
#endif
      }
      [[unroll]] for (uint j = 0; j < TN; j++) {
        uint col = (sn * TN + j) * NS;
#if B_KCONTIG
        CM_LOAD(b[j], Bs, (col * BSTR + kk) / B_U, BSTR / B_U, true);
#else
        CM_LOAD(b[j], Bs, (kk * BSTR + col) / B_U, BSTR / B_U, false);
#endif
      }
      [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = CM_MULADD(a[i], b[j], acc[i][j]);
    }
    barrier();
  }

  // epilogue: one tile at a time through this subgroup's slice of Cs
  uint yoff = z * M * N, cbase = sg * (MS * NS);
  [[unroll]] for (uint i = 0; i < TM; i++) {
    [[unroll]] for (uint j = 0; j < TN; j++) {
#if ACC == 32
      CM_STORE(acc[i][j], Cs, cbase, NS, false);
#else
      CM_F32(MS, NS) t = CM_F32(MS, NS)(acc[i][j]);
      CM_STORE(t, Cs, cbase, NS, false);
#endif
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      uint ti = m0 + (sm * TM + i) * MS, tj = n0 + (sn * TN + j) * NS;
      for (uint e = lane; e < MS * NS; e += SG) {
        uint gi = ti + e / NS, gj = tj + e % NS;
        if (gi < M && gj < N) {
          float v = ALPHA * Cs[cbase + e];
#if HAS_C
          v += BETA * float(c_s[gi * C_SI + gj * C_SJ]);
#endif
          y_s[yoff + gi * N + gj] = float16_t(act(v));
        }
      }
      subgroupMemoryBarrierShared();
      subgroupBarrier();
    }
  }
}
