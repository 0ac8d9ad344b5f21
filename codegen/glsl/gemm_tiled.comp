#version 450
// Tiled GEMM through shared memory with register blocking, for gemm (ONNX
// Gemm) and matmul (NumPy matmul, batches along the grid's z):
//   Y[z][i][j] = ACT(ALPHA * sum_k A(z,i,k) * B(z,k,j) + BETA * C[i][j])
// (codegen/kernels/gemm.c instantiates it).
//
// Bindings: 0 = A, 1 = B, [2 = C when HAS_C], then Y; dense tensors of DTYPE,
//   addressed through baked strides (transposes, 1-D operands, broadcast
//   batches): A(z,i,k) = A[aoff(z) + i*A_SI + k*A_SK], B(z,k,j) likewise,
//   C[i][j] = C[i*C_SI + j*C_SJ] (0 strides broadcast), Y dense [z][M][N].
// Knobs (#defines): WG_M x WG_N invocations per workgroup, each computing
//   TM x TN outputs in registers (rows ty + r*WG_M, columns tx + c*WG_N, so
//   that neighbouring invocations read shared memory without conflicts and
//   write neighbouring outputs); the workgroup tile is BM x BN with
//   BM = WG_M*TM, BN = WG_N*TN; K advances BK at a time through shared memory.
// Baked per workload (#defines): DTYPE_F16, ACT, HAS_C, and per operand
//   A_LOAD / B_LOAD = the staging loads' vector width (1, 2, 4; alignment
//   checked by the host), plus 10 when consecutive invocations load along k
//   (else along m for A, n for B), and the shared row padding A_PAD / B_PAD
//   (1 breaks the bank conflicts of transposing stores).
// Baked per shape (specialization constants): M N K, the strides, up to four
//   merged batch axes with per-operand element strides, alpha/beta, the
//   activation's parameters.
// Arithmetic and accumulation are fp32 (fp16 data converted on load, rounded
// once on store); out-of-range tile elements are staged as zeros, so the
// inner loop has no bounds checks.
// MICRO4 (template gemm_tiled_vec4; TM, TN multiples of 4; pads 0 or 4):
// an invocation's TM x TN outputs are blocks of 4x4 (rows q*4*WG_M + 4*ty +
// 0..3, columns p*4*WG_N + 4*tx + 0..3), and each step of k reads its TM + TN
// operands from shared memory as vec4s: TM*TN/(TM/4 + TN/4) multiply-adds per
// shared load (16 at 8x8) instead of TM*TN/(TM + TN) (2.7 at 8x4), which is
// what bounds the scalar form on GPUs with one shared load per clock.
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

#define A_VEC (A_LOAD % 10)
#define A_KCONTIG (A_LOAD > 10)
#define B_VEC (B_LOAD % 10)
#define B_KCONTIG (B_LOAD > 10)

#define WG (WG_M * WG_N)
#define BM (WG_M * TM)
#define BN (WG_N * TN)
#define ASTR (BM + A_PAD) // shared row stride of As[k][m]
#define BSTR (BN + B_PAD) // shared row stride of Bs[k][n]

layout(local_size_x = WG) in;

#include "gemm_params.glsl" // the sizes, strides, alpha, beta, activation, batch axes

#if A_VEC == 4
#define AT T4
#define AF vec4
#elif A_VEC == 2
#define AT T2
#define AF vec2
#else
#define AT T
#define AF float
#endif
#if B_VEC == 4
#define BT T4
#define BF vec4
#elif B_VEC == 2
#define BT T2
#define BF vec2
#else
#define BT T
#define BF float
#endif
#if A_VEC == 1
#define ACOMP(v, c) (v)
#else
#define ACOMP(v, c) (v)[c]
#endif
#if B_VEC == 1
#define BCOMP(v, c) (v)
#else
#define BCOMP(v, c) (v)[c]
#endif

layout(binding = 0, std430) readonly buffer BufA { AT a_v[]; };
layout(binding = 1, std430) readonly buffer BufB { BT b_v[]; };
#if HAS_C
layout(binding = 2, std430) readonly buffer BufC { T c_s[]; };
#endif
layout(binding = 2 + HAS_C, std430) writeonly buffer BufY { T y_s[]; };

#ifndef MICRO4
#define MICRO4 0
#endif
#if MICRO4
// vec4 rows of ASTR/4 (BSTR/4) slots. An operand loaded along k is stored
// transposed: each invocation writes its A_VEC values of one m to A_VEC
// rows, and a warp's invocations cover BK/A_VEC such steps of k. With BK 8
// the pad of 4 floats (A_PAD) leaves those stores free of bank conflicts;
// with BK 16 and 32 it left 2- and 4-way conflicts, so there (A_SWZ, from
// the host) the rows have no pad and the slot of (k, m) is (m/4) XOR A_SW(k),
// which spreads the steps over 8 slots (32 banks). The reads XOR one row's
// slots with one value: conflict-free as before. (At BK 8, where the pad
// suffices, 4096^3 ran 1.3x slower swizzled, as it did unswizzled with the
// grouping of the reads that A_RD avoids: 2026-11-28-fp32-gemm.md.)
#ifndef A_SWZ
#define A_SWZ 0
#endif
#ifndef B_SWZ
#define B_SWZ 0
#endif
#if A_SWZ
#define A_SWS (8 * A_VEC / BK > 1 ? 8 * A_VEC / BK : 1)
#define A_SW(k) ((((k) / A_VEC) * A_SWS) & (BM / 4 - 1))
#else
#define A_SW(k) 0
#endif
#if B_SWZ
#define B_SWS (8 * B_VEC / BK > 1 ? 8 * B_VEC / BK : 1)
#define B_SW(k) ((((k) / B_VEC) * B_SWS) & (BN / 4 - 1))
#else
#define B_SW(k) 0
#endif
shared vec4 As4[BK * ASTR / 4];
shared vec4 Bs4[BK * BSTR / 4];
// A_RD(kk, off, t): slot off + t of row kk. Unswizzled it is read as
// (row + off) + t, so that off is a constant offset of the load: written
// row + (off + t), the NVIDIA driver's code for 4096^3 at BK 8 held 114
// registers against 145 and ran 1.4x slower (2026-11-28-fp32-gemm.md).
#if A_SWZ
#define A_SLOT(k, m) ((k) * (ASTR / 4) + (((m) >> 2) ^ A_SW(k)))
#define A_RD(kk, off, t) As4[(kk) * (ASTR / 4) + (((off) + (t)) ^ A_SW(kk))]
#else
#define A_SLOT(k, m) (((k) * ASTR + (m)) >> 2)
#define A_RD(kk, off, t) As4[((kk) * ASTR) / 4 + (off) + (t)]
#endif
#if B_SWZ
#define B_SLOT(k, n) ((k) * (BSTR / 4) + (((n) >> 2) ^ B_SW(k)))
#define B_RD(kk, off, t) Bs4[(kk) * (BSTR / 4) + (((off) + (t)) ^ B_SW(kk))]
#else
#define B_SLOT(k, n) (((k) * BSTR + (n)) >> 2)
#define B_RD(kk, off, t) Bs4[((kk) * BSTR) / 4 + (off) + (t)]
#endif
#if A_SWZ
#define A_PUT(k, m, v) As4[A_SLOT(k, m)][(m) & 3] = (v)
#else
#define A_PUT(k, m, v) As4[((k) * ASTR + (m)) >> 2][((k) * ASTR + (m)) & 3] = (v)
#endif
#if B_SWZ
#define B_PUT(k, n, v) Bs4[B_SLOT(k, n)][(n) & 3] = (v)
#else
#define B_PUT(k, n, v) Bs4[((k) * BSTR + (n)) >> 2][((k) * BSTR + (n)) & 3] = (v)
#endif
#else
shared float As[BK * ASTR];
shared float Bs[BK * BSTR];
#define A_PUT(k, m, v) As[(k) * ASTR + (m)] = (v)
#define B_PUT(k, n, v) Bs[(k) * BSTR + (n)] = (v)
#endif

// ---- the activation ---------------------------------------------------------

#include "act.glsl" // act(x), expm1_, erf_ (codegen/glsl/act.glsl, math.glsl)

// ---- staging ------------------------------------------------------------------
// The next tile is fetched from global memory into registers (ra, rb) while
// the current one is multiplied out of shared memory, then stashed.
// Tile items are vectors of A_VEC (B_VEC) along the loading direction;
// A(m0.., k0..) goes to As[k][m], B(k0.., n0..) to Bs[k][n].

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

AF ra[A_IT];
BF rb[B_IT];

// (m, k) of tile item e of A, (k, n) of B, relative to the tile.
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

// Every invocation loads, whatever its item (as gemm_coopmat.comp's fetch):
// as is where the tiles cover the operand, else from an address clamped into
// it, the value zeroed where it lies outside; no load behind a branch.
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
    AF v = AF(a_v[(aoff + gm * A_SI + gk * A_SK) / A_VEC]);
    ra[it] = ok ? v : AF(0.0);
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
    BF v = BF(b_v[(boff + gk * B_SK + gn * B_SJ) / B_VEC]);
    rb[it] = ok ? v : BF(0.0);
  }
}

void stash(uint lid) {
  [[unroll]] for (uint it = 0; it < A_IT; it++) {
    uint e = it * WG + lid, m, k;
    if (A_ITEMS % WG == 0 || e < A_ITEMS) { // (no break: see the epilogue)
      a_item(e, m, k);
#if A_KCONTIG
      [[unroll]] for (uint c = 0; c < A_VEC; c++) A_PUT(k + c, m, ACOMP(ra[it], c));
#elif MICRO4 && A_VEC == 4
      As4[A_SLOT(k, m)] = ra[it];
#else
      [[unroll]] for (uint c = 0; c < A_VEC; c++) A_PUT(k, m + c, ACOMP(ra[it], c));
#endif
    }
  }
  [[unroll]] for (uint it = 0; it < B_IT; it++) {
    uint e = it * WG + lid, k, n;
    if (B_ITEMS % WG == 0 || e < B_ITEMS) {
      b_item(e, k, n);
#if B_KCONTIG
      [[unroll]] for (uint c = 0; c < B_VEC; c++) B_PUT(k + c, n, BCOMP(rb[it], c));
#elif MICRO4 && B_VEC == 4
      Bs4[B_SLOT(k, n)] = rb[it];
#else
      [[unroll]] for (uint c = 0; c < B_VEC; c++) B_PUT(k, n + c, BCOMP(rb[it], c));
#endif
    }
  }
}

void main() {
  if (min(M, N) == 0) return; // (the clamped loads need a row and a column)
  uint lid = gl_LocalInvocationID.x;
  uint tx = lid % WG_N, ty = lid / WG_N;
  uint n0 = gl_WorkGroupID.x * BN, m0 = gl_WorkGroupID.y * BM;

  // batch offsets: the grid's z walks the merged batch axes, innermost first
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

  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; i++)
    [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = 0.0;

  if (K > 0) fetch(lid, aoff, boff, m0, n0, 0);
  for (uint k0 = 0; k0 < K; k0 += BK) {
    stash(lid);
    barrier();
    if (k0 + BK < K) fetch(lid, aoff, boff, m0, n0, k0 + BK);
    // not [[unroll]]: unrolled BK times, the module costs shaderc's
    // optimizer about a second; drivers unroll this loop themselves
    for (uint kk = 0; kk < BK; kk++) {
#if MICRO4
      vec4 av[TM / 4], bv[TN / 4];
      [[unroll]] for (uint q = 0; q < TM / 4; q++) av[q] = A_RD(kk, q * WG_M, ty);
      [[unroll]] for (uint p = 0; p < TN / 4; p++) bv[p] = B_RD(kk, p * WG_N, tx);
      [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN; j++)
          acc[i][j] = fma(av[i / 4][i % 4], bv[j / 4][j % 4], acc[i][j]);
#else
      float av[TM], bv[TN];
      [[unroll]] for (uint i = 0; i < TM; i++) av[i] = As[kk * ASTR + ty + i * WG_M];
      [[unroll]] for (uint j = 0; j < TN; j++) bv[j] = Bs[kk * BSTR + tx + j * WG_N];
      [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN; j++) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
#endif
    }
    barrier();
  }

  // No break or continue in these loops: spirv-opt unrolls only loops without
  // them, and a loop left rolled indexes acc[][] at run time, which the
  // NVIDIA driver answers by moving acc to local memory (10-35x slower).
  uint yoff = z * M * N;
  [[unroll]] for (uint i = 0; i < TM; i++) {
#if MICRO4
    uint gi = m0 + (i / 4) * 4 * WG_M + 4 * ty + i % 4;
#else
    uint gi = m0 + ty + i * WG_M;
#endif
    [[unroll]] for (uint j = 0; j < TN; j++) {
#if MICRO4
      uint gj = n0 + (j / 4) * 4 * WG_N + 4 * tx + j % 4;
#else
      uint gj = n0 + tx + j * WG_N;
#endif
      if (gi < M && gj < N) {
        float v = ALPHA * acc[i][j];
#if HAS_C
        v += BETA * float(c_s[gi * C_SI + gj * C_SJ]);
#endif
        y_s[yoff + gi * N + gj] = T(act(v));
      }
    }
  }
}
