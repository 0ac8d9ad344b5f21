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
shared float Sm[SM_AB > SM_RED ? SM_AB : SM_RED];
#define As(i) Sm[ks * (BK * BM) + (i)]
#define Bs(i) Sm[KS * BK * BM + ks * (BK * BN) + (i)]

// After the k loop's last barrier, from every invocation: slice 0's acc
// gets the other slices' sums (conflict-free: the invocations of a slice
// are neighbours); false for slices 1..KS-1, which then write nothing.
bool sliced_k_reduce(inout float acc[TM][TN], uint ks, uint tid) {
#if KS > 1
  if (ks > 0)
    [[unroll]] for (uint i = 0; i < TM; i++)
      [[unroll]] for (uint j = 0; j < TN; j++)
        Sm[(((ks - 1) * TM + i) * TN + j) * NT + tid] = acc[i][j];
  barrier();
  if (ks > 0) return false;
  for (uint s = 0; s < KS - 1; s++)
    [[unroll]] for (uint i = 0; i < TM; i++)
      [[unroll]] for (uint j = 0; j < TN; j++)
        acc[i][j] += Sm[((s * TM + i) * TN + j) * NT + tid];
#endif
  return true;
}
