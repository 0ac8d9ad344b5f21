/* attention (pass_fuse_attention's op) on glsl/attention.comp: a workgroup
 * per block of query rows of one batch element, the keys walked in blocks
 * with an online softmax, the scores in registers and workgroup memory
 * only.
 *
 * Knobs: TC (invocations along a key block, which is 4 * TC keys), WG_M
 * (invocations along the rows), TR (rows per invocation), SG (rows'
 * reductions by subgroup shuffles where the device has them): WG_M * TC
 * invocations take WG_M * TR rows. Workgroup memory grows with the head
 * sizes (q's rows, kt's and v's key blocks, the block's probabilities), so
 * the default is the first rung of a ladder that fits the device, kt's and
 * v's blocks share one buffer where both do not fit (SPLIT_KV 0: two more
 * barriers per block), the next blocks are loaded into registers during
 * this one's work where each invocation's share is at most MAX_PREFETCH
 * vec4s (PREFETCH), and a point that does not fit is refused
 * (UNSUPPORTED) for the tuner to skip. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

enum { AT_TC = 0, AT_WG_M = 1, AT_TR = 2, AT_SG = 3 };

const cg_template cg_attention_template = {
    .name = "attention",
    .glsl = "attention.comp",
    .n_knobs = 4,
    .knobs = {{"TC", 4, {4, 8, 16, 32}},
              {"WG_M", 5, {2, 4, 8, 16, 32}},
              {"TR", 3, {1, 2, 4}},
              {"SG", 2, {0, 1}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, (1u << AT_TC) | (1u << AT_WG_M), 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, (1u << AT_TC) | (1u << AT_WG_M), 1}},
    .dflt = {{8, 4, 2, 1}},
};

/* The default's ladder, largest first: key blocks of 64, 32, then 16. */
static const cg_schedule LADDER[] = {
    {{16, 16, 2, 1}}, {{16, 8, 2, 1}}, {{8, 8, 2, 1}}, {{8, 4, 2, 1}}, {{4, 4, 1, 1}}};

#define MAX_HEAD 256 /* head sizes past this would need OC beyond registers */
#define MAX_ACC 64   /* output floats per invocation */
#define MAX_PREFETCH 12 /* vec4s of the next blocks per invocation */

/* The vec4s of kt's block (*k) and v's block (*v) under schedule s for
 * heads of d and dv (the GLSL's K_SIZE, V_SIZE). */
static void block_vec4s(const cg_schedule *s, int64_t d, int64_t dv, int64_t *k, int64_t *v) {
  int64_t tc = s->v[AT_TC];
  *k = (d + 3) / 4 * 4 * tc;
  *v = 4 * tc * ((dv + 3) / 4);
}

/* Workgroup bytes of schedule s for heads of d and dv (the GLSL's sizes),
 * with kt's and v's blocks apart (split) or in one buffer. */
static int64_t shared_bytes(const cg_schedule *s, int64_t d, int64_t dv, bool split) {
  int64_t tc = s->v[AT_TC], bm = (int64_t)s->v[AT_WG_M] * s->v[AT_TR], k, v;
  block_vec4s(s, d, dv, &k, &v);
  int64_t kv = split ? k + v : (k > v ? k : v);
  return 16 * (bm * ((d + 3) / 4 + 1) + kv + bm * (tc + 1)) + 4 * bm * tc;
}

/* The bias's batch strides as at most two groups: batch index b is
 * (b / inner) * s0 + (b % inner) * s1 in the bias. False when the
 * broadcast pattern over the batch axes needs more. */
static bool bias_batch(const ir_type *scores, const ir_type *bias, int64_t *inner, int64_t *s0,
                       int64_t *s1, int64_t *sm, int64_t *sn) {
  int r = scores->rank;
  int64_t st[IR_MAX_RANK], acc = 1;
  for (int i = r - 1; i >= 0; i--) {
    int bi = i - (r - bias->rank);
    int64_t bd = bi >= 0 ? bias->dims[bi] : 1;
    st[i] = bd == 1 ? 0 : acc;
    acc *= bd;
  }
  *sm = st[r - 2];
  *sn = st[r - 1];
  return ir_batch_runs(scores->dims, st, r - 2, inner, s0, s1);
}

vkml_status cg_node_attention(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_attention_template));
  if (n->n_inputs < 3 || n->n_inputs > 4 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "attention: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  for (int i = 0; i <= n->n_inputs; i++)
    VKML_RETURN_IF_ERROR(cg_elt_check_type(
        "attention", i < n->n_inputs ? &n->inputs[i]->type : &n->outputs[0]->type, t));
  VKML_RETURN_IF_ERROR(cg_check_default_layout(n, "attention"));
  const ir_type *q = &n->inputs[0]->type, *v = &n->inputs[2]->type, *y = &n->outputs[0]->type;
  if ((q->dtype != IR_F32 && q->dtype != IR_F16) || y->dtype != q->dtype)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "attention: the GPU kernel takes f32 or f16");
  ir_type in_types[4];
  for (int i = 0; i < n->n_inputs; i++) in_types[i] = n->inputs[i]->type;
  ir_attention_params ap;
  VKML_RETURN_IF_ERROR(ir_attention_params_get(n, in_types, n->n_inputs, &ap));
  int r = ap.rank;
  int64_t m = ap.m, d = ap.d, nk = ap.n, dv = ap.dv, batch = ap.batch;
  /* each operand's batch axes as at most two runs, its row and column strides */
  int64_t ost[4][IR_MAX_RANK], runs[4][3];
  for (int k = 0; k < 3; k++) memcpy(ost[k], ap.st[k], sizeof ost[k]);
  ir_attention_y_strides(&ap, ost[3]);
  for (int k = 0; k < 4; k++)
    if (!ir_batch_runs(ap.dims, ost[k], r - 2, &runs[k][0], &runs[k][1], &runs[k][2]))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "attention: operand %d's batch axes need more than two strides", k);
  /* kt read key by key where its depth is contiguous and its keys are not */
  bool k_rows = ost[1][r - 2] == 1 && ost[1][r - 1] != 1;
  if (d > MAX_HEAD || dv > MAX_HEAD || m < 1 || nk < 1 || d < 1 || dv < 1 ||
      ir_type_numel(q) > INT32_MAX || ir_type_numel(&n->inputs[1]->type) > INT32_MAX ||
      ir_type_numel(v) > INT32_MAX || ir_type_numel(y) > INT32_MAX ||
      (n->n_inputs == 4 && ir_type_numel(&n->inputs[3]->type) > INT32_MAX))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "attention: the GPU kernel takes head sizes of 1 to %d and fewer "
                            "than 2^31 elements per operand (bias included)",
                            MAX_HEAD);
  int64_t inner = 1, s0 = 0, s1 = 0, sm = 0, sn = 0;
  bool has_bias = n->n_inputs == 4;
  if (has_bias) {
    ir_type scores = ir_type_make(q->dtype, r, ap.dims);
    scores.dims[r - 1] = nk;
    if (!bias_batch(&scores, &n->inputs[3]->type, &inner, &s0, &s1, &sm, &sn))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "attention: the bias broadcasts over the batch axes in more "
                              "than two runs");
  }
  if (!s) {
    int i = 0, nl = (int)(sizeof LADDER / sizeof LADDER[0]);
    while (i < nl - 1 && (cg_schedule_check(&cg_attention_template, &LADDER[i], t) != VKML_OK ||
                          shared_bytes(&LADDER[i], d, dv, false) > t->max_shared_bytes))
      i++;
    s = &LADDER[i];
  }
  bool split = shared_bytes(s, d, dv, true) <= t->max_shared_bytes;
  if (shared_bytes(s, d, dv, false) > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "attention: %lld bytes of workgroup memory, the device has %u",
                            (long long)shared_bytes(s, d, dv, false), t->max_shared_bytes);
  int64_t tc = s->v[AT_TC], bm = (int64_t)s->v[AT_WG_M] * s->v[AT_TR];
  int64_t acc = s->v[AT_TR] * 4 * (((dv + 3) / 4 + tc - 1) / tc);
  if (acc > MAX_ACC)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "attention: %lld outputs per invocation (TC too small or TR too "
                            "large for a head of %lld)",
                            (long long)acc, (long long)dv);
  uint32_t sg_need = IR_SUBGROUP_BASIC | IR_SUBGROUP_SHUFFLE;
  bool use_sg = s->v[AT_SG] && t->subgroup_in_compute && (t->subgroup_ops & sg_need) == sg_need;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_attention_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", q->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "HAS_BIAS", "%d", has_bias));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DH", "%lld", (long long)d));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DV", "%lld", (long long)dv));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "USE_SG", "%d", use_sg));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "SPLIT_KV", "%d", split));
  /* the next blocks in registers where each invocation's share is small */
  int64_t wgs = (int64_t)s->v[AT_WG_M] * tc, kb, vb;
  block_vec4s(s, d, dv, &kb, &vb);
  int64_t per = (kb + wgs - 1) / wgs + (vb + wgs - 1) / wgs;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "PREFETCH", "%d", per <= MAX_PREFETCH));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "K_ROWS", "%d", k_rows));
  const cg_spec_value specs[] = {
      {CG_SPEC_ATTENTION_BATCH, (uint32_t)batch},
      {CG_SPEC_ATTENTION_M, (uint32_t)m},
      {CG_SPEC_ATTENTION_N, (uint32_t)nk},
      {CG_SPEC_ATTENTION_ALPHA, cg_elt_f32_bits(ir_node_float(n, IR_A_ALPHA, 1.0f))},
      {CG_SPEC_ATTENTION_BIAS_INNER, (uint32_t)inner},
      {CG_SPEC_ATTENTION_BIAS_S0, (uint32_t)s0},
      {CG_SPEC_ATTENTION_BIAS_S1, (uint32_t)s1},
      {CG_SPEC_ATTENTION_BIAS_SM, (uint32_t)sm},
      {CG_SPEC_ATTENTION_BIAS_SN, (uint32_t)sn},
      {CG_SPEC_ATTENTION_Q_INNER, (uint32_t)runs[0][0]},
      {CG_SPEC_ATTENTION_Q_S0, (uint32_t)runs[0][1]},
      {CG_SPEC_ATTENTION_Q_S1, (uint32_t)runs[0][2]},
      {CG_SPEC_ATTENTION_Q_SR, (uint32_t)ost[0][r - 2]},
      {CG_SPEC_ATTENTION_Q_SC, (uint32_t)ost[0][r - 1]},
      {CG_SPEC_ATTENTION_Q_OFF, (uint32_t)ap.off[0]},
      {CG_SPEC_ATTENTION_K_INNER, (uint32_t)runs[1][0]},
      {CG_SPEC_ATTENTION_K_S0, (uint32_t)runs[1][1]},
      {CG_SPEC_ATTENTION_K_S1, (uint32_t)runs[1][2]},
      {CG_SPEC_ATTENTION_K_SR, (uint32_t)ost[1][r - 2]},
      {CG_SPEC_ATTENTION_K_SC, (uint32_t)ost[1][r - 1]},
      {CG_SPEC_ATTENTION_K_OFF, (uint32_t)ap.off[1]},
      {CG_SPEC_ATTENTION_V_INNER, (uint32_t)runs[2][0]},
      {CG_SPEC_ATTENTION_V_S0, (uint32_t)runs[2][1]},
      {CG_SPEC_ATTENTION_V_S1, (uint32_t)runs[2][2]},
      {CG_SPEC_ATTENTION_V_SR, (uint32_t)ost[2][r - 2]},
      {CG_SPEC_ATTENTION_V_SC, (uint32_t)ost[2][r - 1]},
      {CG_SPEC_ATTENTION_V_OFF, (uint32_t)ap.off[2]},
      {CG_SPEC_ATTENTION_Y_INNER, (uint32_t)runs[3][0]},
      {CG_SPEC_ATTENTION_Y_S0, (uint32_t)runs[3][1]},
      {CG_SPEC_ATTENTION_Y_S1, (uint32_t)runs[3][2]},
      {CG_SPEC_ATTENTION_Y_SR, (uint32_t)ost[3][r - 2]},
      {CG_SPEC_ATTENTION_Y_SC, (uint32_t)ost[3][r - 1]},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  int64_t groups = (m + bm - 1) / bm * batch;
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, groups, CG_SPEC_ATTENTION_GX, "attention"));
  out->n_buffers = n->n_inputs + 1;
  char attrs[512];
  int o = snprintf(attrs, sizeof attrs, "{alpha=%.9g", (double)ir_node_float(n, IR_A_ALPHA, 1.0f));
  if (ap.views || ap.perm[0] != 0 || ap.perm[r - 1] != r - 1)
    for (int k = 0; k < 4 && o < (int)sizeof attrs; k++) {
      o += snprintf(attrs + o, sizeof attrs - (size_t)o, ", v%d=[%lld", k,
                    (long long)(k < 3 ? ap.off[k] : 0));
      for (int i = 0; i < r && o < (int)sizeof attrs; i++)
        o += snprintf(attrs + o, sizeof attrs - (size_t)o, ",%lld", (long long)ost[k][i]);
      if (o < (int)sizeof attrs) o += snprintf(attrs + o, sizeof attrs - (size_t)o, "]");
    }
  if (o < (int)sizeof attrs) snprintf(attrs + o, sizeof attrs - (size_t)o, "}");
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
