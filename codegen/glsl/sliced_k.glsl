// The k split of the GEMM-like conv templates (conv2d_direct.comp,
// conv2d_1x1.comp; templates conv2d_sliced_k, conv2d_1x1_sliced_k): the
// workgroup is KS slices of WG_M x WG_N invocations along z (knob KS, absent
// = 1); slice ks takes the BK-steps ks, ks + KS, ks + 2*KS, ... of k into
// tiles of its own, and at the end sliced_k_reduce adds the slices' sums.
// For the late layers at batch 1 (a 7x7 output has 49 pixels), where a grid
// of BM x BN blocks leaves most of the GPU idle and each block walks a long k.
// Needs BM, BN, BK, TM, TN, NT defined; declares the shared memory: the
// slices' tiles As(i) [k][m] and Bs(i) [k][p] (ks = SLICE_ID in scope),
// reused for the sums of slices 1..KS-1 after the k loop. Shared memory:
// 4 * KS * BK * (BM + BN) bytes, at least 4 * (KS-1) * BM * BN.
#ifndef KS
#define KS 1
#endif
// The invocation's slice (a constant with one slice, so that the unsliced
// templates index their tiles as before).
#if KS > 1
#define SLICE_ID gl_LocalInvocationID.z
#else
#define SLICE_ID 0u
#endif
#define SM_AB (KS * BK * (BM + BN))
#define SM_RED ((KS - 1) * BM * BN)
#define SM_WORDS (SM_AB > SM_RED ? SM_AB : SM_RED)
// Where an invocation's outputs are runs of 4 channels by runs of 4 pixels
// (TM, TN >= 4), the tiles are vec4 words and each run is one vector read,
// with the loop over k unrolled (1.2x on the H200 for 64x64 tiles,
// bench/results/2026-11-27-conv-variants.md); else scalar words (a scalar
// read of a vec4 word with a run-time lane costs more there).
#define TILE_VEC4 (TM >= 4 && TN >= 4)
#if TILE_VEC4
shared vec4 Sm4[SM_WORDS / 4];
#define SMW(i) Sm4[(i) >> 2][(i) & 3]
#define TILE_UNROLL [[unroll]]
#else
shared float Sm[SM_WORDS];
#define SMW(i) Sm[i]
#define TILE_UNROLL
#endif
// this slice's tiles start at words SM_A0 and SM_B0 (ks in scope)
#define SM_A0 (ks * (BK * BM))
#define SM_B0 (KS * BK * BM + ks * (BK * BN))
#define As(i) SMW(SM_A0 + (i))
#define Bs(i) SMW(SM_B0 + (i))

// The operands of step kk: a[i] = As(kk*BM + MI(i)), b[j] = Bs(kk*BN + NJ(j))
// (MI, NJ, tm, tn from the template).
#if TILE_VEC4
#define TILE_READS(kk, a, b)                                                   \
  [[unroll]] for (uint q = 0; q < TM / 4; q++) {                               \
    vec4 v = Sm4[(SM_A0 + (kk) * BM + MI(4 * q)) >> 2];                        \
    a[4 * q] = v.x, a[4 * q + 1] = v.y, a[4 * q + 2] = v.z, a[4 * q + 3] = v.w; \
  }                                                                            \
  [[unroll]] for (uint q = 0; q < TN / 4; q++) {                               \
    vec4 v = Sm4[(SM_B0 + (kk) * BN + NJ(4 * q)) >> 2];                        \
    b[4 * q] = v.x, b[4 * q + 1] = v.y, b[4 * q + 2] = v.z, b[4 * q + 3] = v.w; \
  }
#else
#define TILE_READS(kk, a, b)                                                   \
  [[unroll]] for (uint i = 0; i < TM; i++) a[i] = As((kk) * BM + MI(i));       \
  [[unroll]] for (uint j = 0; j < TN; j++) b[j] = Bs((kk) * BN + NJ(j));
#endif

// After the k loop's last barrier, from every invocation: slice 0's acc
// gets the other slices' sums (conflict-free: the invocations of a slice
// are neighbours); false for slices 1..KS-1, which then write nothing.
bool sliced_k_reduce(inout float acc[TM][TN], uint ks, uint tid) {
#if KS > 1
  if (ks > 0)
    [[unroll]] for (uint i = 0; i < TM; i++)
      [[unroll]] for (uint j = 0; j < TN; j++)
        SMW((((ks - 1) * TM + i) * TN + j) * NT + tid) = acc[i][j];
  barrier();
  if (ks > 0) return false;
  for (uint s = 0; s < KS - 1; s++)
    [[unroll]] for (uint i = 0; i < TM; i++)
      [[unroll]] for (uint j = 0; j < TN; j++)
        acc[i][j] += SMW(((s * TM + i) * TN + j) * NT + tid);
#endif
  return true;
}
