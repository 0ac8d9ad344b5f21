#version 450
// attention (pass_fuse_attention's op; codegen/kernels/attention.c
// instantiates it): y[b,i,:] = sum_j p_j v[b,j,:] with
// p = softmax_j(ALPHA * q[b,i,:] . kt[b,:,j] + bias[b,i,j]), in one pass
// over the keys (FlashAttention's online softmax: the running maximum and
// sum of each query row rescale what was accumulated when the maximum
// grows), so the scores never reach memory.
//
// Bindings: 0 = q [BATCH,M,DH], 1 = kt [BATCH,DH,N], 2 = v [BATCH,N,DV],
// (3 = bias, when HAS_BIAS), then y [BATCH,M,DV]; dense C order of DTYPE.
// A workgroup takes BM = WG_M * TR query rows of one batch element and
// walks the keys in blocks of BN = 4 * TC:
//   1. kt's block into workgroup memory (q's rows are there from the start);
//   2. scores: invocation (tr, tc) computes rows tr*TR.. and keys tc + j*TC
//      (j < 4), scaled, biased, -inf past N, into P;
//   3. BM invocations, one per row, take the block's maximum, rescale the
//      row's sum and write exp(s - max) back into P (the rescale factor into
//      CORR), while the others load v's block where kt's was;
//   4. each invocation rescales its outputs (rows tr*TR.., columns
//      tc + j*TC, j < OC) and adds P . v.
// At the end y = acc / sum. As the CPU reference (k_attention.c): a row of
// scores all -inf, or holding +inf or NaN, gives NaN. Arithmetic in fp32.
//
// Knobs (#defines): TC (invocations along the keys), WG_M (along the
// rows), TR (rows per invocation). Baked: DTYPE_F16, HAS_BIAS, DH, DV, OC
// (#defines: workgroup memory is sized by them); the shape, ALPHA and the
// bias's strides (specialization constants): the bias index of batch
// element b is (b / BIAS_INNER) * BIAS_S0 + (b % BIAS_INNER) * BIAS_S1.

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif

#define BM (WG_M * TR)
#define BN (4 * TC)
#define WGS (WG_M * TC)
#define QS (DH + 1)     // q's row pitch in workgroup memory
#define PS (BN + 1)     // P's row pitch
#define KV_SIZE (DH * BN > BN * DV ? DH * BN : BN * DV)

layout(local_size_x = WGS) in;

layout(constant_id = 0) const uint BATCH = 1;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint N = 1;
layout(constant_id = 3) const float ALPHA = 1.0;
layout(constant_id = 4) const uint BIAS_INNER = 1;
layout(constant_id = 5) const uint BIAS_S0 = 0;
layout(constant_id = 6) const uint BIAS_S1 = 0;
layout(constant_id = 7) const uint BIAS_SM = 0;
layout(constant_id = 8) const uint BIAS_SN = 0;
layout(constant_id = 9) const uint GX = 1;

layout(set = 0, binding = 0) restrict readonly buffer Qb { T q[]; };
layout(set = 0, binding = 1) restrict readonly buffer Kb { T kt[]; };
layout(set = 0, binding = 2) restrict readonly buffer Vb { T v[]; };
#if HAS_BIAS
layout(set = 0, binding = 3) restrict readonly buffer Bb { T bias[]; };
layout(set = 0, binding = 4) restrict writeonly buffer Yb { T y[]; };
#else
layout(set = 0, binding = 3) restrict writeonly buffer Yb { T y[]; };
#endif

shared float QSH[BM * QS];
shared float KV[KV_SIZE];
shared float P[BM * PS];
shared float CORR[BM];

void main() {
  const uint n_blocks = (M + BM - 1) / BM;
  uint g = gl_WorkGroupID.y * GX + gl_WorkGroupID.x;
  if (g >= n_blocks * BATCH) return; // whole workgroups only
  uint b = g / n_blocks, m0 = (g % n_blocks) * BM;
  uint lid = gl_LocalInvocationID.x, tc = lid % TC, tr = lid / TC;
  uint bias_base = (b / BIAS_INNER) * BIAS_S0 + (b % BIAS_INNER) * BIAS_S1;

  for (uint e = lid; e < BM * DH; e += WGS) {
    uint r = e / DH, d = e % DH;
    QSH[r * QS + d] = m0 + r < M ? float(q[(b * M + m0 + r) * DH + d]) : 0.0;
  }

  float acc[TR][OC];
  [[unroll]] for (uint i = 0; i < TR; i++) [[unroll]] for (uint j = 0; j < OC; j++) acc[i][j] = 0.0;
  float row_max = -1.0 / 0.0, row_sum = 0.0; // row lid's (lid < BM)

  for (uint n0 = 0; n0 < N; n0 += BN) {
    barrier(); // the previous block's readers of KV and P are done
    for (uint e = lid; e < DH * BN; e += WGS) {
      uint d = e / BN, c = e % BN;
      KV[e] = n0 + c < N ? float(kt[(b * DH + d) * N + n0 + c]) : 0.0;
    }
    barrier();
    float s[TR][4];
    [[unroll]] for (uint i = 0; i < TR; i++) [[unroll]] for (uint j = 0; j < 4; j++) s[i][j] = 0.0;
    for (uint d = 0; d < DH; d++) {
      float kv[4], qv[TR];
      [[unroll]] for (uint j = 0; j < 4; j++) kv[j] = KV[d * BN + tc + j * TC];
      [[unroll]] for (uint i = 0; i < TR; i++) qv[i] = QSH[(tr * TR + i) * QS + d];
      [[unroll]] for (uint i = 0; i < TR; i++)
        [[unroll]] for (uint j = 0; j < 4; j++) s[i][j] = fma(qv[i], kv[j], s[i][j]);
    }
    [[unroll]] for (uint i = 0; i < TR; i++) {
      uint r = tr * TR + i;
      [[unroll]] for (uint j = 0; j < 4; j++) {
        uint c = tc + j * TC;
        float val = ALPHA * s[i][j];
#if HAS_BIAS
        if (m0 + r < M && n0 + c < N)
          val += float(bias[bias_base + (m0 + r) * BIAS_SM + (n0 + c) * BIAS_SN]);
#endif
        P[r * PS + c] = n0 + c < N ? val : -1.0 / 0.0;
      }
    }
    barrier();
    if (lid < BM) {
      uint cnt = min(BN, N - n0);
      float mx = row_max;
      for (uint c = 0; c < cnt; c++) mx = max(mx, P[lid * PS + c]);
      // -inf so far: nothing accumulated, no rescale (exp(-inf - -inf) is NaN)
      float corr = row_max == -1.0 / 0.0 ? 0.0 : exp(row_max - mx);
      float sum = 0.0;
      for (uint c = 0; c < cnt; c++) {
        float sv = P[lid * PS + c];
        float p = sv == -1.0 / 0.0 ? 0.0 : exp(sv - mx);
        P[lid * PS + c] = p;
        sum += p;
      }
      for (uint c = cnt; c < BN; c++) P[lid * PS + c] = 0.0;
      row_sum = row_sum * corr + sum;
      row_max = mx;
      CORR[lid] = corr;
    }
    for (uint e = lid; e < BN * DV; e += WGS) {
      uint j = e / DV, c = e % DV;
      KV[e] = n0 + j < N ? float(v[(b * N + n0 + j) * DV + c]) : 0.0;
    }
    barrier();
    [[unroll]] for (uint i = 0; i < TR; i++) {
      float corr = CORR[tr * TR + i];
      [[unroll]] for (uint j = 0; j < OC; j++) acc[i][j] *= corr;
    }
    for (uint k = 0; k < BN; k++) {
      float pv[TR], vv[OC];
      [[unroll]] for (uint i = 0; i < TR; i++) pv[i] = P[(tr * TR + i) * PS + k];
      [[unroll]] for (uint j = 0; j < OC; j++) vv[j] = KV[k * DV + min(tc + j * TC, DV - 1)];
      [[unroll]] for (uint i = 0; i < TR; i++)
        [[unroll]] for (uint j = 0; j < OC; j++) acc[i][j] = fma(pv[i], vv[j], acc[i][j]);
    }
  }
  barrier();
  if (lid < BM) CORR[lid] = row_sum; // the rows' sums, for every invocation
  barrier();
  [[unroll]] for (uint i = 0; i < TR; i++) {
    // no continue or break in these loops: acc must stay in registers
    uint r = tr * TR + i;
    float inv = 1.0 / CORR[r];
    [[unroll]] for (uint j = 0; j < OC; j++) {
      uint c = tc + j * TC;
      if (m0 + r < M && c < DV) y[(b * M + m0 + r) * DV + c] = T(acc[i][j] * inv);
    }
  }
}
