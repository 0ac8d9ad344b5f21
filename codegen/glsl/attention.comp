#version 450
// attention (pass_fuse_attention's op; codegen/kernels/attention.c
// instantiates it): y[b,i,:] = sum_j p_j v[b,j,:] with
// p = softmax_j(ALPHA * q[b,i,:] . kt[b,:,j] + bias[b,i,j]), in one pass
// over the keys (FlashAttention's online softmax: the running maximum and
// sum of each query row rescale what was accumulated when the maximum
// grows), so the scores never reach memory.
//
// Bindings: 0 = q [BATCH,M,DH], 1 = kt [BATCH,DH,N], 2 = v [BATCH,N,DV],
// (3 = bias, when HAS_BIAS), then y [BATCH,M,DV], of DTYPE; each operand's
// element (b, row, col) at OFF + (b / INNER) * S0 + (b % INNER) * S1 +
// row * SR + col * SC (its Q_, K_, V_, Y_ specialization constants: a
// strided view, ir_attention_params; dense C order by default). With
// K_ROWS (kt's rows contiguous: k as the projection wrote it) kt's block is
// read key by key, four depths at a time, and transposed into workgroup
// memory, so that neighbouring invocations read neighbouring elements.
// A workgroup takes BM = WG_M * TR query rows of one batch element (q's
// rows stay in workgroup memory) and walks the keys in blocks of
// BN = 4 * TC:
//   1. kt's and v's blocks into workgroup memory (one after the other in
//      one buffer unless SPLIT_KV; with PREFETCH from registers, where each
//      invocation's share of the next blocks is loaded while this one is
//      worked on);
//   2. invocation (tr, tc) computes the scores of rows tr*TR.. and keys
//      4*tc.. (4 of them, vec4 reads of q and kt), scaled, biased, -inf
//      past N; each row's block maximum and sum of exp(s - max) are reduced
//      over the TC invocations sharing the row (subgroup shuffles when
//      USE_SG, else through workgroup memory); the row's running maximum and
//      sum are updated in registers, its outputs rescaled, and its
//      probabilities written to P;
//   3. each invocation adds P . v to its outputs: rows tr*TR.., columns
//      4*tc + 4*TC*j.. (vec4 reads of P and v).
// At the end y = acc / sum. As the CPU reference (k_attention.c): a row of
// scores all -inf, or holding +inf or NaN, gives NaN. Arithmetic in fp32.
// With USE_SG, where the subgroups (of at least TC lanes) fill the
// workgroup, the invocations are numbered by subgroup (gl_SubgroupID *
// gl_SubgroupSize + gl_SubgroupInvocationID), so that the TC invocations of
// a row are TC neighbouring lanes of one subgroup; elsewhere (a uniform
// branch at run time) the reductions go through workgroup memory.
//
// Knobs (#defines): TC (invocations along the keys), WG_M (along the
// rows), TR (rows per invocation), SG (subgroups where the device allows).
// Baked: DTYPE_F16, HAS_BIAS, DH, DV, USE_SG, SPLIT_KV, PREFETCH, K_ROWS (#defines: workgroup
// memory is sized by them); the shape, ALPHA and the bias's strides
// (specialization constants): the bias index of batch element b is
// (b / BIAS_INNER) * BIAS_S0 + (b % BIAS_INNER) * BIAS_S1.

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif
#if USE_SG
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

#define BM (WG_M * TR)
#define BN (4 * TC)
#define WGS (WG_M * TC)
#define D4 ((DH + 3) / 4)       // q's and kt's depth in vec4s
#define QP (D4 + 1)             // q's row pitch in vec4s (a pad against bank conflicts)
#define VP ((DV + 3) / 4)       // v's row pitch in vec4s
#define OC4 ((VP + TC - 1) / TC) // output vec4s per invocation and row
#define PP (TC + 1)             // P's row pitch in vec4s
#define K_SIZE (D4 * 4 * TC)    // kt's block: [4*D4][TC] vec4s (4 keys each)
#define V_SIZE (BN * VP)        // v's block: [BN][VP] vec4s
#if SPLIT_KV
#define KV_SIZE (K_SIZE + V_SIZE)
#define V_BASE K_SIZE
#else
#define KV_SIZE (K_SIZE > V_SIZE ? K_SIZE : V_SIZE)
#define V_BASE 0
#endif

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
layout(constant_id = 10) const uint Q_INNER = 1;
layout(constant_id = 11) const uint Q_S0 = 0;
layout(constant_id = 12) const uint Q_S1 = 0;
layout(constant_id = 13) const uint Q_SR = 0;
layout(constant_id = 14) const uint Q_SC = 1;
layout(constant_id = 15) const uint Q_OFF = 0;
layout(constant_id = 16) const uint K_INNER = 1;
layout(constant_id = 17) const uint K_S0 = 0;
layout(constant_id = 18) const uint K_S1 = 0;
layout(constant_id = 19) const uint K_SR = 0;
layout(constant_id = 20) const uint K_SC = 1;
layout(constant_id = 21) const uint K_OFF = 0;
layout(constant_id = 22) const uint V_INNER = 1;
layout(constant_id = 23) const uint V_S0 = 0;
layout(constant_id = 24) const uint V_S1 = 0;
layout(constant_id = 25) const uint V_SR = 0;
layout(constant_id = 26) const uint V_SC = 1;
layout(constant_id = 27) const uint V_OFF = 0;
layout(constant_id = 28) const uint Y_INNER = 1;
layout(constant_id = 29) const uint Y_S0 = 0;
layout(constant_id = 30) const uint Y_S1 = 0;
layout(constant_id = 31) const uint Y_SR = 0;
layout(constant_id = 32) const uint Y_SC = 1;

layout(set = 0, binding = 0) restrict readonly buffer Qb { T q[]; };
layout(set = 0, binding = 1) restrict readonly buffer Kb { T kt[]; };
layout(set = 0, binding = 2) restrict readonly buffer Vb { T v[]; };
#if HAS_BIAS
layout(set = 0, binding = 3) restrict readonly buffer Bb { T bias[]; };
layout(set = 0, binding = 4) restrict writeonly buffer Yb { T y[]; };
#else
layout(set = 0, binding = 3) restrict writeonly buffer Yb { T y[]; };
#endif

shared vec4 QSH[BM * QP];
shared vec4 KV[KV_SIZE];
shared vec4 P[BM * PP];
shared float RED[BM * TC];

const float NEG_INF = -1.0 / 0.0;

// this workgroup's batch element's first element in q, kt, v and y
uint q_base, k_base, v_base, y_base;

// subgroups of at least TC lanes filling the workgroup (uniform)
bool sg_rows() {
#if USE_SG
  return gl_SubgroupSize >= TC && WGS % gl_SubgroupSize == 0;
#else
  return false;
#endif
}

// the invocation's number: by subgroup lanes where sg_rows (the header)
uint local_id() {
#if USE_SG
  if (sg_rows()) return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#endif
  return gl_LocalInvocationID.x;
}

// x[i] reduced (maximum or sum) over the TC invocations holding row
// tr * TR + i; every invocation calls it (barriers without USE_SG)
void reduce_rows(inout float x[TR], bool is_max, uint tr, uint tc) {
#if USE_SG
  if (sg_rows()) {
    [[unroll]] for (uint o = TC / 2; o > 0; o /= 2)
      [[unroll]] for (uint i = 0; i < TR; i++) {
        float other = subgroupShuffleXor(x[i], o);
        x[i] = is_max ? max(x[i], other) : x[i] + other;
      }
    return;
  }
#endif
  [[unroll]] for (uint i = 0; i < TR; i++) RED[(tr * TR + i) * TC + tc] = x[i];
  barrier();
  [[unroll]] for (uint i = 0; i < TR; i++) {
    float r = RED[(tr * TR + i) * TC];
    for (uint t = 1; t < TC; t++) {
      float o = RED[(tr * TR + i) * TC + t];
      r = is_max ? max(r, o) : r + o;
    }
    x[i] = r;
  }
  barrier();
}

float load_q(uint b, uint row, uint d) {
  return row < M && d < DH ? float(q[q_base + row * Q_SR + d * Q_SC]) : 0.0;
}

#if K_ROWS
// unit e of kt's block at keys n0..: key e / D4, depths 4 * (e % D4)..+3
vec4 load_k4(uint b, uint n0, uint e) {
  uint key = n0 + e / D4, d = (e % D4) * 4;
  vec4 k4 = vec4(0.0);
  if (key < N && e < K_SIZE)
    [[unroll]] for (uint j = 0; j < 4; j++)
      if (d + j < DH) k4[j] = float(kt[k_base + (d + j) * K_SR + key * K_SC]);
  return k4;
}

// unit e into the block's layout below (vec4 (d, keys 4c..4c+3) at d * TC + c)
void store_k4(uint e, vec4 k4) {
  if (e >= K_SIZE) return;
  uint key = e / D4, d = (e % D4) * 4;
  [[unroll]] for (uint j = 0; j < 4; j++) KV[(d + j) * TC + key / 4][key % 4] = k4[j];
}
#else
// element e of kt's block at keys n0..: vec4 (d, keys 4c..4c+3), e = d * TC + c
vec4 load_k4(uint b, uint n0, uint e) {
  uint d = e / TC, c = n0 + (e % TC) * 4;
  vec4 k4 = vec4(0.0);
  if (d < DH && e < K_SIZE)
    [[unroll]] for (uint j = 0; j < 4; j++)
      if (c + j < N) k4[j] = float(kt[k_base + d * K_SR + (c + j) * K_SC]);
  return k4;
}

void store_k4(uint e, vec4 k4) {
  if (e < K_SIZE) KV[e] = k4;
}
#endif

// element e of v's block at keys n0..: vec4 (key j, columns 4c..4c+3), e = j * VP + c
vec4 load_v4(uint b, uint n0, uint e) {
  uint j = n0 + e / VP, c = (e % VP) * 4;
  vec4 v4 = vec4(0.0);
  if (j < N && e < V_SIZE)
    [[unroll]] for (uint k = 0; k < 4; k++)
      if (c + k < DV) v4[k] = float(v[v_base + j * V_SR + (c + k) * V_SC]);
  return v4;
}

#if PREFETCH
// each invocation's share of the next blocks, loaded during this one's work
const uint KPT = (K_SIZE + WGS - 1) / WGS, VPT = (V_SIZE + WGS - 1) / WGS;
#endif

void main() {
  const uint n_blocks = (M + BM - 1) / BM;
  uint g = gl_WorkGroupID.y * GX + gl_WorkGroupID.x;
  if (g >= n_blocks * BATCH) return; // whole workgroups only
  uint b = g / n_blocks, m0 = (g % n_blocks) * BM;
  uint lid = local_id(), tc = lid % TC, tr = lid / TC;
  uint bias_base = (b / BIAS_INNER) * BIAS_S0 + (b % BIAS_INNER) * BIAS_S1;
  q_base = Q_OFF + (b / Q_INNER) * Q_S0 + (b % Q_INNER) * Q_S1;
  k_base = K_OFF + (b / K_INNER) * K_S0 + (b % K_INNER) * K_S1;
  v_base = V_OFF + (b / V_INNER) * V_S0 + (b % V_INNER) * V_S1;
  y_base = (b / Y_INNER) * Y_S0 + (b % Y_INNER) * Y_S1;

  for (uint e = lid; e < BM * D4; e += WGS) {
    uint r = e / D4, d = (e % D4) * 4;
    QSH[r * QP + e % D4] = vec4(load_q(b, m0 + r, d), load_q(b, m0 + r, d + 1),
                                load_q(b, m0 + r, d + 2), load_q(b, m0 + r, d + 3));
  }

  vec4 acc[TR][OC4];
  float row_max[TR], row_sum[TR];
  [[unroll]] for (uint i = 0; i < TR; i++) {
    [[unroll]] for (uint j = 0; j < OC4; j++) acc[i][j] = vec4(0.0);
    row_max[i] = NEG_INF;
    row_sum[i] = 0.0;
  }

#if PREFETCH
  vec4 kreg[KPT], vreg[VPT];
  [[unroll]] for (uint i = 0; i < KPT; i++) kreg[i] = load_k4(b, 0, lid + i * WGS);
  [[unroll]] for (uint i = 0; i < VPT; i++) vreg[i] = load_v4(b, 0, lid + i * WGS);
#endif
  for (uint n0 = 0; n0 < N; n0 += BN) {
    barrier(); // the previous block's readers of KV and P are done
#if PREFETCH
    [[unroll]] for (uint i = 0; i < KPT; i++) store_k4(lid + i * WGS, kreg[i]);
#if SPLIT_KV
    [[unroll]] for (uint i = 0; i < VPT; i++)
      if (lid + i * WGS < V_SIZE) KV[V_BASE + lid + i * WGS] = vreg[i];
    [[unroll]] for (uint i = 0; i < KPT; i++) kreg[i] = load_k4(b, n0 + BN, lid + i * WGS);
    [[unroll]] for (uint i = 0; i < VPT; i++) vreg[i] = load_v4(b, n0 + BN, lid + i * WGS);
#endif
#else
    for (uint e = lid; e < K_SIZE; e += WGS) store_k4(e, load_k4(b, n0, e));
#if SPLIT_KV
    for (uint e = lid; e < V_SIZE; e += WGS) KV[V_BASE + e] = load_v4(b, n0, e);
#endif
#endif
    barrier();
    vec4 s[TR];
    [[unroll]] for (uint i = 0; i < TR; i++) s[i] = vec4(0.0);
    for (uint d4 = 0; d4 < D4; d4++) {
      vec4 qv[TR], kv[4];
      [[unroll]] for (uint i = 0; i < TR; i++) qv[i] = QSH[(tr * TR + i) * QP + d4];
      [[unroll]] for (uint k = 0; k < 4; k++) kv[k] = KV[(d4 * 4 + k) * TC + tc];
      [[unroll]] for (uint i = 0; i < TR; i++)
        [[unroll]] for (uint k = 0; k < 4; k++) s[i] = fma(vec4(qv[i][k]), kv[k], s[i]);
    }
    float bmax[TR];
    [[unroll]] for (uint i = 0; i < TR; i++) {
      uint r = m0 + tr * TR + i;
      [[unroll]] for (uint j = 0; j < 4; j++) {
        uint c = n0 + 4 * tc + j;
        float val = ALPHA * s[i][j];
#if HAS_BIAS
        if (r < M && c < N) val += float(bias[bias_base + r * BIAS_SM + c * BIAS_SN]);
#endif
        s[i][j] = c < N ? val : NEG_INF;
      }
      bmax[i] = max(max(s[i].x, s[i].y), max(s[i].z, s[i].w));
    }
    reduce_rows(bmax, true, tr, tc);
    float bsum[TR], corr[TR];
    [[unroll]] for (uint i = 0; i < TR; i++) {
      float mx = max(row_max[i], bmax[i]);
      // -inf so far: nothing accumulated, no rescale (exp(-inf - -inf) is NaN)
      corr[i] = row_max[i] == NEG_INF ? 0.0 : exp(row_max[i] - mx);
      [[unroll]] for (uint j = 0; j < 4; j++) s[i][j] = s[i][j] == NEG_INF ? 0.0 : exp(s[i][j] - mx);
      bsum[i] = s[i].x + s[i].y + s[i].z + s[i].w;
      row_max[i] = mx;
      P[(tr * TR + i) * PP + tc] = s[i];
    }
    reduce_rows(bsum, false, tr, tc);
    [[unroll]] for (uint i = 0; i < TR; i++) {
      row_sum[i] = row_sum[i] * corr[i] + bsum[i];
      [[unroll]] for (uint j = 0; j < OC4; j++) acc[i][j] *= corr[i];
    }
    barrier(); // P written; kt's block read
#if !SPLIT_KV
#if PREFETCH
    [[unroll]] for (uint i = 0; i < VPT; i++)
      if (lid + i * WGS < V_SIZE) KV[V_BASE + lid + i * WGS] = vreg[i];
    [[unroll]] for (uint i = 0; i < KPT; i++) kreg[i] = load_k4(b, n0 + BN, lid + i * WGS);
    [[unroll]] for (uint i = 0; i < VPT; i++) vreg[i] = load_v4(b, n0 + BN, lid + i * WGS);
#else
    for (uint e = lid; e < V_SIZE; e += WGS) KV[V_BASE + e] = load_v4(b, n0, e);
#endif
    barrier();
#endif
    for (uint k4 = 0; k4 < TC; k4++) {
      vec4 pv[TR];
      [[unroll]] for (uint i = 0; i < TR; i++) pv[i] = P[(tr * TR + i) * PP + k4];
      [[unroll]] for (uint k = 0; k < 4; k++) {
        vec4 vv[OC4];
        [[unroll]] for (uint j = 0; j < OC4; j++)
          vv[j] = KV[V_BASE + (k4 * 4 + k) * VP + min(tc + j * TC, VP - 1)];
        [[unroll]] for (uint i = 0; i < TR; i++)
          [[unroll]] for (uint j = 0; j < OC4; j++) acc[i][j] = fma(vec4(pv[i][k]), vv[j], acc[i][j]);
      }
    }
  }
  // no continue or break in these loops: acc must stay in registers
  [[unroll]] for (uint i = 0; i < TR; i++) {
    uint r = m0 + tr * TR + i;
    float inv = 1.0 / row_sum[i];
    [[unroll]] for (uint j = 0; j < OC4; j++) {
      uint c = 4 * (tc + j * TC);
      [[unroll]] for (uint k = 0; k < 4; k++)
        if (r < M && c + k < DV) y[y_base + r * Y_SR + (c + k) * Y_SC] = T(acc[i][j][k] * inv);
    }
  }
}
