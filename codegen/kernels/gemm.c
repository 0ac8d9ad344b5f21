/* gemm and matmul on the GPU: workloads from nodes, the four templates'
 * spaces (tiled, cooperative matrix, workgroup-scope cooperative matrix,
 * GEMV), the shape plan shared by all (M N K,
 * operand strides, merged batch axes), the staging-load choice (direction,
 * vector width from the alignment) and instantiation. See codegen/kernels/gemm.h. */
#include <stdio.h>
#include <string.h>

#include "gemm.h" /* its own header: the family's face for tests */

#include "codegen/core/key.h"

enum { T_WG_M = 0, T_WG_N, T_TM, T_TN, T_BK };

/* The constraints of gemm_tiled.comp's two templates: shared memory is
 * 4*BK*(BM + BN) bytes, bounded by half the limit per operand (row padding
 * is added only where it still fits). */
#define TILED_CONSTRAINTS                                                      \
  .n_constraints = 4,                                                          \
  .constraints = {                                                             \
      {CG_LIMIT_WORKGROUP_X, 1u << T_WG_M | 1u << T_WG_N, 1},                  \
      {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << T_WG_M | 1u << T_WG_N, 1},        \
      {CG_LIMIT_SHARED_BYTES, 1u << T_WG_M | 1u << T_TM | 1u << T_BK, 8},      \
      {CG_LIMIT_SHARED_BYTES, 1u << T_WG_N | 1u << T_TN | 1u << T_BK, 8},      \
  }

const cg_template cg_gemm_tiled_template = {
    .name = "gemm_tiled",
    .glsl = "gemm_tiled.comp",
    .n_knobs = 5,
    .knobs =
        {
            {"WG_M", 5, {2, 4, 8, 16, 32}},
            {"WG_N", 5, {2, 4, 8, 16, 32}},
            {"TM", 4, {1, 2, 4, 8}},
            {"TN", 4, {1, 2, 4, 8}},
            {"BK", 4, {4, 8, 16, 32}},
        },
    TILED_CONSTRAINTS,
    .dflt = {{8, 16, 8, 4, 16}},
};

/* gemm_tiled.comp with MICRO4: each invocation's outputs in 4x4 blocks,
 * its operands read from shared memory as vec4s (fp32 arithmetic, f32 and
 * f16 data); the family's default where there are no tensor cores
 * (vec4_default). The template's own default: 64x128 tiles of 8x16
 * invocations at 8x8 outputs, BK 8. */
const cg_template cg_gemm_tiled_vec4_template = {
    .name = "gemm_tiled_vec4",
    .glsl = "gemm_tiled.comp",
    .n_knobs = 5,
    .knobs =
        {
            {"WG_M", 3, {4, 8, 16}},
            {"WG_N", 4, {4, 8, 16, 32}},
            {"TM", 2, {4, 8}},
            {"TN", 2, {4, 8}},
            {"BK", 3, {8, 16, 32}},
        },
    TILED_CONSTRAINTS,
    .dflt = {{8, 16, 8, 8, 8}},
};

enum { C_WM = 0, C_WN, C_TM, C_TN, C_BK, C_ACC };

const cg_template cg_gemm_coopmat_template = {
    .name = "gemm_coopmat",
    .glsl = "gemm_coopmat.comp",
    CG_COOPMAT_SPACE,
};

enum { C2_BM = 0, C2_BN, C2_BK, C2_ACC, C2_WG };

/* VK_NV_cooperative_matrix2: one workgroup-scope BM x BN accumulator, BK per
 * step, WG invocations (the driver's own staging; gemm_coopmat2.comp). WG 64
 * (which the H100 also lists) was 2-16x slower than 128 or 256 at every
 * tile on GEMM 4096^3 (bench/results/2026-11-28-coop-api.md): left out. */
const cg_template cg_gemm_coopmat2_template = {
    .name = "gemm_coopmat2",
    .glsl = "gemm_coopmat2.comp",
    .n_knobs = 5,
    .knobs =
        {
            {"BM", 4, {32, 64, 128, 256}},
            {"BN", 4, {32, 64, 128, 256}},
            {"BK", 3, {16, 32, 64}},
            {"ACC", 2, {16, 32}},
            {"WG", 2, {128, 256}},
        },
    .n_constraints = 2,
    .constraints =
        {
            {CG_LIMIT_WORKGROUP_X, 1u << C2_WG, 1},
            {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << C2_WG, 1},
        },
    .dflt = {{128, 128, 32, 32, 128}},
};

enum { V_WG_N = 0, V_WG_K, V_VEC, V_UNROLL, V_SG };

const cg_template cg_gemm_gemv_template = {
    .name = "gemv",
    .glsl = "gemv.comp",
    .n_knobs = 5,
    .knobs =
        {
            {"WG_N", 7, {1, 2, 4, 8, 16, 32, 64}},
            {"WG_K", 8, {1, 2, 4, 8, 16, 32, 64, 128}},
            {"VEC", 3, {1, 2, 4}},
            {"UNROLL", 4, {1, 2, 4, 8}},
            {"SG", 2, {0, 1}},
        },
    /* shared: the k-lane tree holds at most CG_GEMV_MAX_ROWS (8) rows of
     * VEC-wide fp32 partials for WG_N * WG_K / 2 lanes: 16 bytes per
     * VEC * WG_N * WG_K */
    .n_constraints = 3,
    .constraints =
        {
            {CG_LIMIT_WORKGROUP_X, 1u << V_WG_N | 1u << V_WG_K, 1},
            {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << V_WG_N | 1u << V_WG_K, 1},
            {CG_LIMIT_SHARED_BYTES, 1u << V_WG_N | 1u << V_WG_K | 1u << V_VEC, 16},
        },
    .dflt = {{2, 64, 4, 4, 1}},
};


#define MAX_BATCH_AXES 4

static vkml_status unsupported(const char *tmpl, const char *why) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s", tmpl, why);
}

/* ---- workloads ------------------------------------------------------------ */

vkml_status cg_gemm_workload_from_node(const ir_node *n, cg_gemm_workload *out) {
  memset(out, 0, sizeof *out);
  const char *op = ir_op_name(n->op);
  if (n->op != IR_OP_GEMM && n->op != IR_OP_MATMUL)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "gemm: %s is not gemm or matmul", op);
  int max_in = n->op == IR_OP_GEMM ? 3 : 2;
  if (n->n_inputs < 2 || n->n_inputs > max_in || n->n_outputs != 1 || !n->inputs[0] ||
      !n->inputs[1] || !n->outputs[0])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %d inputs, %d outputs", op,
                            n->n_inputs, n->n_outputs);
  out->op = n->op;
  out->a = n->inputs[0]->type;
  out->b = n->inputs[1]->type;
  out->out = n->outputs[0]->type;
  out->has_c = n->n_inputs == 3 && n->inputs[2];
  if (out->has_c) out->c = n->inputs[2]->type;
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] && n->inputs[i]->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: input %d is not in the default layout",
                              op, i);
  if (n->outputs[0]->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: output is not in the default layout", op);
  ir_act_params_get(n, &out->act);
  if (n->op == IR_OP_GEMM) {
    out->trans_a = ir_node_int(n, IR_A_TRANS_A, 0) != 0;
    out->trans_b = ir_node_int(n, IR_A_TRANS_B, 0) != 0;
    out->alpha = ir_node_float(n, IR_A_ALPHA, 1.0f);
    out->beta = ir_node_float(n, IR_A_BETA, 1.0f);
  } else {
    out->alpha = ir_node_float(n, IR_A_ALPHA, 1.0f);
    out->beta = 0.0f;
  }
  return VKML_OK;
}

void cg_gemm_workload_key(const cg_gemm_workload *w, char *buf, int buf_bytes) {
  char ta[128], tb[128], tc[128] = "", to[128], attrs[256] = "";
  ir_type_format(&w->a, ta, sizeof ta);
  ir_type_format(&w->b, tb, sizeof tb);
  ir_type_format(&w->out, to, sizeof to);
  if (w->has_c) {
    tc[0] = ',';
    ir_type_format(&w->c, tc + 1, sizeof tc - 1);
  }
  int n = 0;
  size_t cap = sizeof attrs;
#define ATTR(...) n += snprintf(attrs + n, cap - (size_t)n, __VA_ARGS__)
  if (w->op == IR_OP_GEMM) {
    if (w->trans_a) ATTR(",trans_a=1");
    if (w->trans_b) ATTR(",trans_b=1");
  }
  if (w->alpha != 1.0f) ATTR(",alpha=%.9g", (double)w->alpha);
  if (w->op == IR_OP_GEMM && w->beta != 1.0f) ATTR(",beta=%.9g", (double)w->beta);
  n += cg_act_key(&w->act, attrs + n, cap - (size_t)n);
#undef ATTR
  if (n) attrs[0] = '{';
  snprintf(buf, (size_t)buf_bytes, "%s(%s,%s%s)->%s%s%s", ir_op_name(w->op), ta, tb, tc, to,
           attrs, n ? "}" : "");
}

/* ---- the shape plan ----------------------------------------------------------- */

/* Element strides: A(z,i,k) = A[aoff(z) + i*a_si + k*a_sk], B(z,k,j) =
 * B[boff(z) + k*b_sk + j*b_sj], C[i*c_si + j*c_sj]; batch axes merged,
 * innermost first, with per-operand element strides (0: broadcast). */
typedef struct gemm_plan {
  int64_t m, n, k, batch;
  int nbd;
  int64_t bd[MAX_BATCH_AXES], bsa[MAX_BATCH_AXES], bsb[MAX_BATCH_AXES];
  int64_t a_si, a_sk, b_sk, b_sj, c_si, c_sj;
} gemm_plan;

static vkml_status plan_gemm(const cg_gemm_workload *w, gemm_plan *p) {
  if (w->a.rank != 2 || w->b.rank != 2)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "gemm: a and b must have rank 2");
  int64_t ar = w->a.dims[0], ac = w->a.dims[1], br = w->b.dims[0], bc = w->b.dims[1];
  p->m = w->trans_a ? ac : ar;
  p->k = w->trans_a ? ar : ac;
  p->n = w->trans_b ? br : bc;
  if ((w->trans_b ? bc : br) != p->k)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "gemm: inner dimensions differ");
  p->a_si = w->trans_a ? 1 : p->k;
  p->a_sk = w->trans_a ? p->m : 1;
  p->b_sk = w->trans_b ? 1 : p->n;
  p->b_sj = w->trans_b ? p->k : 1;
  p->batch = 1;
  p->nbd = 0;
  if (w->out.rank != 2 || w->out.dims[0] != p->m || w->out.dims[1] != p->n)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "gemm: output is not [%lld,%lld]",
                            (long long)p->m, (long long)p->n);
  if (w->has_c) {
    if (w->c.rank > 2)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "gemm: c has rank %d", w->c.rank);
    int64_t cm = w->c.rank == 2 ? w->c.dims[0] : 1, cn = w->c.rank >= 1 ? w->c.dims[w->c.rank - 1] : 1;
    if ((cm != 1 && cm != p->m) || (cn != 1 && cn != p->n))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "gemm: c does not broadcast to [M,N]");
    p->c_si = cm == 1 ? 0 : cn;
    p->c_sj = cn == 1 ? 0 : 1;
  }
  return VKML_OK;
}

static vkml_status plan_matmul(const cg_gemm_workload *w, gemm_plan *p) {
  const ir_type *a = &w->a, *b = &w->b;
  if (a->rank < 1 || b->rank < 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "matmul: inputs must have rank >= 1");
  /* 1-D promotion: a [K] is [1,K], b [K] is [K,1] */
  p->m = a->rank >= 2 ? a->dims[a->rank - 2] : 1;
  p->k = a->dims[a->rank - 1];
  p->n = b->rank >= 2 ? b->dims[b->rank - 1] : 1;
  if ((b->rank >= 2 ? b->dims[b->rank - 2] : b->dims[0]) != p->k)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "matmul: inner dimensions differ");
  p->a_si = p->k;
  p->a_sk = 1;
  p->b_sk = p->n;
  p->b_sj = 1;
  int ra = a->rank >= 2 ? a->rank - 2 : 0, rb = b->rank >= 2 ? b->rank - 2 : 0;
  int rbatch = ra > rb ? ra : rb;
  int64_t want[IR_MAX_RANK + 2];
  int rw = 0;
  int64_t mat_a = p->m * p->k, mat_b = p->k * p->n;
  int64_t run_a = 1, run_b = 1; /* in whole matrices */
  int64_t bd[IR_MAX_RANK], sa[IR_MAX_RANK], sb[IR_MAX_RANK];
  for (int i = rbatch - 1; i >= 0; i--) {
    int ia = i - (rbatch - ra), ib = i - (rbatch - rb);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "matmul: batch axes do not broadcast");
    bd[i] = da == 1 ? db : da;
    sa[i] = da == 1 ? 0 : run_a * mat_a;
    sb[i] = db == 1 ? 0 : run_b * mat_b;
    run_a *= da;
    run_b *= db;
  }
  for (int i = 0; i < rbatch; i++) want[rw++] = bd[i];
  if (a->rank >= 2) want[rw++] = p->m;
  if (b->rank >= 2) want[rw++] = p->n;
  bool ok = w->out.rank == rw;
  for (int i = 0; ok && i < rw; i++) ok = w->out.dims[i] == want[i];
  if (!ok) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "matmul: output shape mismatch");
  /* merge batch axes (innermost first) where both operands stay regular */
  p->batch = 1;
  p->nbd = 0;
  int64_t md[IR_MAX_RANK], ma[IR_MAX_RANK], mb[IR_MAX_RANK];
  int nm = 0;
  for (int i = rbatch - 1; i >= 0; i--) {
    p->batch *= bd[i];
    if (bd[i] == 1) continue;
    if (nm && sa[i] == ma[nm - 1] * md[nm - 1] && sb[i] == mb[nm - 1] * md[nm - 1]) {
      md[nm - 1] *= bd[i];
      continue;
    }
    md[nm] = bd[i], ma[nm] = sa[i], mb[nm] = sb[i];
    nm++;
  }
  /* B shared along the innermost batch axis and A's matrices consecutive
   * along it: those matrices are one of bd*M rows (and so are the
   * output's), e.g. [197,1,768] x [768,2304] (ViT's projections as torch
   * exports them) is one 197x768 by 768x2304 GEMM, not 197 GEMVs that each
   * read all of B */
  if (nm && mb[0] == 0 && ma[0] == mat_a && a->rank >= 2) {
    p->m *= md[0];
    p->batch /= md[0];
    for (int i = 1; i < nm; i++) md[i - 1] = md[i], ma[i - 1] = ma[i], mb[i - 1] = mb[i];
    nm--;
  }
  if (nm > MAX_BATCH_AXES)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "matmul: %d batch axes after merging (at most %d)", nm,
                            MAX_BATCH_AXES);
  p->nbd = nm;
  for (int i = 0; i < nm; i++) p->bd[i] = md[i], p->bsa[i] = ma[i], p->bsb[i] = mb[i];
  return VKML_OK;
}

/* Checks shared by both templates and the plan. */
static vkml_status plan_workload(const cg_gemm_workload *w, const ir_target *t, const char *tmpl,
                                 gemm_plan *p) {
  memset(p, 0, sizeof *p);
  if (w->op != IR_OP_GEMM && w->op != IR_OP_MATMUL)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: op %s", tmpl, ir_op_name(w->op));
  if ((unsigned)w->act.kind >= IR_ACT_COUNT)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: bad act", tmpl);
  ir_dtype dt = w->out.dtype;
  if (dt != IR_F32 && dt != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s is not f32 or f16", tmpl,
                            ir_dtype_name(dt));
  if (w->a.dtype != dt || w->b.dtype != dt || (w->has_c && w->c.dtype != dt))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: mixed dtypes", tmpl);
  if (w->a.bounded || w->b.bounded || w->out.bounded || (w->has_c && w->c.bounded))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: bounded shapes", tmpl);
  if (dt == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: f16 needs 16-bit storage, which %s lacks",
                            tmpl, t->name);
  if (w->has_c && w->op != IR_OP_GEMM)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: matmul takes no c", tmpl);
  VKML_RETURN_IF_ERROR(w->op == IR_OP_GEMM ? plan_gemm(w, p) : plan_matmul(w, p));
  /* offsets are 32-bit in the shaders */
  int64_t lim = INT64_C(1) << 31;
  if (ir_type_numel(&w->a) >= lim || ir_type_numel(&w->b) >= lim ||
      ir_type_numel(&w->out) >= lim || (w->has_c && ir_type_numel(&w->c) >= lim))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: a tensor has 2^31 or more elements",
                            tmpl);
  return VKML_OK;
}

/* ---- staging loads ---------------------------------------------------------------- */

/* The widest w <= max_w (a power of 2) for which vectors along an axis of
 * unit stride stay inside rows and aligned: the axis length, the other
 * axis' stride (unless that axis has one element), every batch stride and
 * the tile's extent along the axis are multiples of w. */
static int vec_width(int64_t len, int64_t other_len, int64_t other_stride, const int64_t *bstr,
                     int nbd, int tile, int max_w) {
  for (int w = max_w; w > 1; w /= 2) {
    bool ok = len % w == 0 && tile % w == 0 && (other_len == 1 || other_stride % w == 0);
    for (int i = 0; ok && i < nbd; i++) ok = bstr[i] % w == 0;
    if (ok) return w;
  }
  return 1;
}

/* Loading direction and width of an operand with x-axis (m of A, n of B)
 * length/stride/tile and k-axis likewise. Returns A_LOAD / B_LOAD: the
 * width, plus 10 when loading along k. */
static int load_code(int64_t x_len, int64_t x_s, int x_tile, int64_t k_len, int64_t k_s,
                     int k_tile, const int64_t *bstr, int nbd, int max_w) {
  int wk = k_s == 1 ? vec_width(k_len, x_len, x_s, bstr, nbd, k_tile, max_w) : 0;
  int wx = x_s == 1 ? vec_width(x_len, k_len, k_s, bstr, nbd, x_tile, max_w) : 0;
  if (wk == 0 && wx == 0) return 11; /* no unit stride: scalars along k */
  return wk >= wx ? 10 + wk : wx;
}

/* Specialization constants, defines and grid common to both templates. */
static vkml_status emit_common(cg_kernel *k, const cg_gemm_workload *w, const gemm_plan *p,
                               const ir_target *t, int bm, int bn) {
  cg_gemm_workload_key(w, k->key, sizeof k->key);
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ACT", "%d", (int)w->act.kind));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "HAS_C", "%d", w->has_c ? 1 : 0));
  const cg_spec_value spec[] = {
      {CG_SPEC_GEMM_PARAMS_M, (uint32_t)p->m},           {CG_SPEC_GEMM_PARAMS_N, (uint32_t)p->n},
      {CG_SPEC_GEMM_PARAMS_K, (uint32_t)p->k},           {CG_SPEC_GEMM_PARAMS_A_SI, (uint32_t)p->a_si},
      {CG_SPEC_GEMM_PARAMS_A_SK, (uint32_t)p->a_sk},     {CG_SPEC_GEMM_PARAMS_B_SK, (uint32_t)p->b_sk},
      {CG_SPEC_GEMM_PARAMS_B_SJ, (uint32_t)p->b_sj},     {CG_SPEC_GEMM_PARAMS_C_SI, (uint32_t)p->c_si},
      {CG_SPEC_GEMM_PARAMS_C_SJ, (uint32_t)p->c_sj},     {CG_SPEC_GEMM_PARAMS_ALPHA, cg_elt_f32_bits(w->alpha)},
      {CG_SPEC_GEMM_PARAMS_BETA, cg_elt_f32_bits(w->beta)},     {CG_SPEC_GEMM_PARAMS_ACT_ALPHA, cg_elt_f32_bits(w->act.alpha)},
      {CG_SPEC_GEMM_PARAMS_ACT_BETA, cg_elt_f32_bits(w->act.beta)}, {CG_SPEC_GEMM_PARAMS_NBD, (uint32_t)p->nbd},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(k, spec));
  for (int i = 0; i < p->nbd; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_GEMM_PARAMS_BD0 + (uint32_t)i, (uint32_t)p->bd[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_GEMM_PARAMS_BSA0 + (uint32_t)i, (uint32_t)p->bsa[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_GEMM_PARAMS_BSB0 + (uint32_t)i, (uint32_t)p->bsb[i]));
  }
  k->n_buffers = w->has_c ? 4 : 3;
  k->push_bytes = 0;
  int64_t gx = (p->n + bn - 1) / bn, gy = (p->m + bm - 1) / bm, gz = p->batch;
  if (gx < 1) gx = 1;
  if (gy < 1) gy = 1;
  if (gz < 1) gz = 1;
  if (gx > t->max_workgroup_count[0] || gy > t->max_workgroup_count[1] ||
      gz > t->max_workgroup_count[2])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: grid %lldx%lldx%lld exceeds the workgroup counts of %s",
                            k->tmpl->name, (long long)gx, (long long)gy, (long long)gz, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = (uint32_t)gz;
  return VKML_OK;
}

/* ---- the tiled template ------------------------------------------------------------ */

static vkml_status tiled_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                     const ir_target *t, const cg_template *tmpl,
                                     cg_kernel *k) {
  memset(k, 0, sizeof *k);
  bool micro4 = tmpl == &cg_gemm_tiled_vec4_template;
  gemm_plan p;
  VKML_RETURN_IF_ERROR(plan_workload(w, t, tmpl->name, &p));
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tmpl, s, t));
  int bm = s->v[T_WG_M] * s->v[T_TM], bn = s->v[T_WG_N] * s->v[T_TN], bk = s->v[T_BK];
  int a_load = load_code(p.m, p.a_si, bm, p.k, p.a_sk, bk, p.bsa, p.nbd, 4);
  int b_load = load_code(p.n, p.b_sj, bn, p.k, p.b_sk, bk, p.bsb, p.nbd, 4);
  /* pad rows that are stored transposed (loaded along k), where it fits:
   * one float, or four (vec4 rows); vec4 rows are swizzled instead where
   * BK > 8 (gemm_tiled.comp) */
  bool swz = micro4 && bk > 8;
  int unit = micro4 ? 4 : 1;
  int a_pad = a_load > 10 && !swz ? unit : 0, b_pad = b_load > 10 && !swz ? unit : 0;
  int a_swz = a_load > 10 && swz, b_swz = b_load > 10 && swz;
  int64_t shared = 4 * (int64_t)bk * (bm + a_pad + bn + b_pad);
  if (shared > t->max_shared_bytes) a_pad = b_pad = 0;
  if (micro4 && (s->v[T_TM] % 4 || s->v[T_TN] % 4))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: TM and TN must be multiples of 4",
                            tmpl->name);
  if (micro4) {
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "MICRO4", "1"));
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_SWZ", "%d", a_swz));
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_SWZ", "%d", b_swz));
  }
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", w->out.dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_LOAD", "%d", a_load));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_LOAD", "%d", b_load));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_PAD", "%d", a_pad));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_PAD", "%d", b_pad));
  return emit_common(k, w, &p, t, bm, bn);
}

vkml_status cg_gemm_tiled_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                      const ir_target *t, cg_kernel *k) {
  return tiled_instantiate(w, s, t, &cg_gemm_tiled_template, k);
}

vkml_status cg_gemm_tiled_vec4_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                           const ir_target *t, cg_kernel *k) {
  return tiled_instantiate(w, s, t, &cg_gemm_tiled_vec4_template, k);
}

/* ---- the cooperative-matrix template ----------------------------------------------- */

vkml_status cg_gemm_coopmat_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                        const ir_target *t, cg_kernel *k) {
  memset(k, 0, sizeof *k);
  const char *name = "gemm_coopmat";
  gemm_plan p;
  VKML_RETURN_IF_ERROR(plan_workload(w, t, name, &p));
  if (w->out.dtype != IR_F16) return unsupported(name, "cooperative matrices take f16 only");
  const char *lacks = cg_coopmat_lacks(t);
  if (lacks) return unsupported(name, lacks);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, &cg_gemm_coopmat_template, s, t));
  VKML_RETURN_IF_ERROR(cg_coopmat_kernel_api(k, t));
  int acc = s->v[C_ACC];
  int si = cg_coopmat_shape(t, acc);
  if (si < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %s lists no f16 x f16 -> f%d cooperative-matrix shape", name,
                            t->name, acc);
  const ir_coopmat_shape *cs = &t->coopmat_shapes[si];
  int ms = (int)cs->m, ns = (int)cs->n, ks = (int)cs->k, sg = (int)t->subgroup_size;
  int bm = s->v[C_WM] * s->v[C_TM] * ms, bn = s->v[C_WN] * s->v[C_TN] * ns, bk = s->v[C_BK];
  int64_t wg = (int64_t)s->v[C_WM] * s->v[C_WN] * sg;
  if (wg > t->max_workgroup_invocations || wg > t->max_workgroup_size[0])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld invocations (subgroups of %d) exceed the limits of %s",
                            name, (long long)wg, sg, t->name);
  int a_load = load_code(p.m, p.a_si, bm, p.k, p.a_sk, bk, p.bsa, p.nbd, 8);
  int b_load = load_code(p.n, p.b_sj, bn, p.k, p.b_sk, bk, p.bsb, p.nbd, 8);
  bool ak = a_load > 10, bkc = b_load > 10;
  /* shared: A as [BM][BK+pad] or [BK][BM+pad], B as [BN][BK+pad] or
   * [BK][BN+pad] (f16), the epilogue tiles (fp32) */
  int64_t a_rows = ak ? bm : bk, a_cols = ak ? bk : bm, b_rows = bkc ? bn : bk,
          b_cols = bkc ? bk : bn;
  int64_t epi = 4 * (int64_t)s->v[C_WM] * s->v[C_WN] * ms * ns;
  int pad = 8;
  int64_t shared = 2 * (a_rows * (a_cols + pad) + b_rows * (b_cols + pad)) + epi;
  if (shared > t->max_shared_bytes) {
    pad = 0;
    shared = 2 * (a_rows * a_cols + b_rows * b_cols) + epi;
  }
  if (shared > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld bytes of shared memory exceed the %u of %s", name,
                            (long long)shared, t->max_shared_bytes, t->name);
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SG", "%d", sg));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "MS", "%d", ms));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "NS", "%d", ns));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "KS", "%d", ks));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_LOAD", "%d", a_load));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_LOAD", "%d", b_load));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_PAD", "%d", pad));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_PAD", "%d", pad));
  return emit_common(k, w, &p, t, bm, bn);
}

/* ---- the workgroup-scope cooperative-matrix template ---------------------------- */

vkml_status cg_gemm_coopmat2_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                         const ir_target *t, cg_kernel *k) {
  memset(k, 0, sizeof *k);
  const char *name = "gemm_coopmat2";
  gemm_plan p;
  VKML_RETURN_IF_ERROR(plan_workload(w, t, name, &p));
  if (w->out.dtype != IR_F16) return unsupported(name, "cooperative matrices take f16 only");
  if (!t->coopmat2) return unsupported(name, "the device lacks VK_NV_cooperative_matrix2");
  if (!cg_compiler_has_glslang15())
    return unsupported(name, "it needs glslang 15, which this build lacks (tools/build-deps.sh)");
  if (!t->vulkan_memory_model || !t->fp16_arith)
    return unsupported(name, "the device does not enable the Vulkan memory model (which glslang "
                             "declares in cooperative-matrix shaders) and fp16 arithmetic");
  /* each operand needs one axis of unit stride: the rows of its tensor layout */
  int a_t = p.a_sk == 1 ? 0 : p.a_si == 1 ? 1 : -1;
  int b_t = p.b_sj == 1 ? 0 : p.b_sk == 1 ? 1 : -1;
  if (a_t < 0 || b_t < 0) return unsupported(name, "an operand has no axis of unit stride");
  int bm = s->v[C2_BM], bn = s->v[C2_BN], bk = s->v[C2_BK], acc = s->v[C2_ACC];
  uint32_t wg = (uint32_t)s->v[C2_WG];
  ir_coopmat_type at = acc == 16 ? IR_COOPMAT_F16 : IR_COOPMAT_F32;
  bool shape = false;
  for (int i = 0; i < t->n_coopmat2_shapes && i < IR_TARGET_MAX_COOPMAT2 && !shape; i++) {
    const ir_coopmat_shape *c = &t->coopmat2_shapes[i];
    shape = c->a == IR_COOPMAT_F16 && c->b == IR_COOPMAT_F16 && c->c == at && c->d == at &&
            t->coopmat2_invocations[i] == wg && c->m && c->n && c->k && bm % (int)c->m == 0 &&
            bn % (int)c->n == 0 && bk % (int)c->k == 0;
  }
  if (!shape)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %s lists no workgroup-scope f16 x f16 -> f%d shape for %u "
                            "invocations that divides %dx%dx%d",
                            name, t->name, acc, wg, bm, bn, bk);
  if (t->coopmat2_max_workgroup && wg > t->coopmat2_max_workgroup)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %u invocations exceed the %u of %s",
                            name, wg, t->coopmat2_max_workgroup, t->name);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, &cg_gemm_coopmat2_template, s, t));
  k->opt = CG_OPT_GLSLANG15_VK13;
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "A_T", "%d", a_t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "B_T", "%d", b_t));
  return emit_common(k, w, &p, t, bm, bn);
}

/* ---- the GEMV template ---------------------------------------------------------------- */


vkml_status cg_gemm_gemv_instantiate(const cg_gemm_workload *w, const cg_schedule *s,
                                     const ir_target *t, cg_kernel *k) {
  memset(k, 0, sizeof *k);
  const char *name = "gemv";
  gemm_plan p;
  VKML_RETURN_IF_ERROR(plan_workload(w, t, name, &p));
  if (p.m == 0 || p.n == 0) return unsupported(name, "empty output");
  /* the small side is the rows; the other operand is streamed as weights */
  bool swap = p.n < p.m;
  int64_t rows = swap ? p.n : p.m, cols = swap ? p.m : p.n;
  if (rows > CG_GEMV_MAX_ROWS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: M=%lld and N=%lld both exceed %d", name,
                            (long long)p.m, (long long)p.n, CG_GEMV_MAX_ROWS);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, &cg_gemm_gemv_template, s, t));
  /* X(r,k), W(k,c), Cm(r,c), Y(r,c) in the kernel's orientation */
  int64_t x_si = p.a_si, x_sk = p.a_sk, w_sk = p.b_sk, w_sj = p.b_sj;
  int64_t c_sr = p.c_si, c_sc = p.c_sj, y_sr = p.n, y_sc = 1;
  const int64_t *bsx = p.bsa, *bsw = p.bsb;
  if (swap) {
    x_si = p.b_sj, x_sk = p.b_sk, w_sk = p.a_sk, w_sj = p.a_si;
    c_sr = p.c_sj, c_sc = p.c_si, y_sr = 1, y_sc = p.n;
    bsx = p.bsb, bsw = p.bsa;
  }
  int wg_n = s->v[V_WG_N], wg_k = s->v[V_WG_K], vec = s->v[V_VEC];
  /* W is read along k when its k stride is 1 (and its columns are not) */
  bool wk = w_sk == 1 && (cols == 1 || w_sj != 1);
  int vw = 1, x_vec = 0;
  if (wk) {
    vw = vec_width(p.k, cols, w_sj, bsw, p.nbd, vec, vec);
    x_vec = vw > 1 && x_sk == 1 && vec_width(p.k, rows, x_si, bsx, p.nbd, vw, vw) == vw;
  } else if (w_sj == 1) {
    vw = vec_width(cols, p.k, w_sk, bsw, p.nbd, vec, vec);
  }
  int cv = wk ? 1 : vw, half = wg_k > 1 ? wg_k / 2 : 1;
  int64_t shared = 4 * rows * cv * wg_n * half;
  if (shared > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld bytes of shared memory exceed the %u of %s", name,
                            (long long)shared, t->max_shared_bytes, t->name);
  uint32_t need = IR_SUBGROUP_BASIC | IR_SUBGROUP_ARITHMETIC;
  int use_sg = 0;
  if (s->v[V_SG] && wg_k > 1 && t->subgroup_in_compute && (t->subgroup_ops & need) == need)
    use_sg = t->subgroup_ops & IR_SUBGROUP_CLUSTERED ? 2 : 1;
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", w->out.dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ACT", "%d", (int)w->act.kind));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "HAS_C", "%d", w->has_c ? 1 : 0));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "MR", "%d", (int)rows));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "WK", "%d", wk ? 1 : 0));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VW", "%d", vw));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "X_VEC", "%d", x_vec));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "USE_SG", "%d", use_sg));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "SWAP", "%d", swap ? 1 : 0));
  cg_gemm_workload_key(w, k->key, sizeof k->key);
  const cg_spec_value spec[] = {
      {CG_SPEC_GEMV_CN, (uint32_t)cols},          {CG_SPEC_GEMV_K, (uint32_t)p.k},
      {CG_SPEC_GEMV_X_SI, (uint32_t)x_si},        {CG_SPEC_GEMV_X_SK, (uint32_t)x_sk},
      {CG_SPEC_GEMV_W_SK, (uint32_t)w_sk},        {CG_SPEC_GEMV_W_SJ, (uint32_t)w_sj},
      {CG_SPEC_GEMV_C_SR, (uint32_t)c_sr},        {CG_SPEC_GEMV_C_SC, (uint32_t)c_sc},
      {CG_SPEC_GEMV_Y_SR, (uint32_t)y_sr},        {CG_SPEC_GEMV_Y_SC, (uint32_t)y_sc},
      {CG_SPEC_GEMV_Y_SZ, (uint32_t)(p.m * p.n)}, {CG_SPEC_GEMV_ALPHA, cg_elt_f32_bits(w->alpha)},
      {CG_SPEC_GEMV_BETA, cg_elt_f32_bits(w->beta)},     {CG_SPEC_GEMV_ACT_ALPHA, cg_elt_f32_bits(w->act.alpha)},
      {CG_SPEC_GEMV_ACT_BETA, cg_elt_f32_bits(w->act.beta)}, {CG_SPEC_GEMV_NBD, (uint32_t)p.nbd},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(k, spec));
  for (int i = 0; i < p.nbd; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_GEMV_BD0 + (uint32_t)i, (uint32_t)p.bd[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_GEMV_BSX0 + (uint32_t)i, (uint32_t)bsx[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_GEMV_BSW0 + (uint32_t)i, (uint32_t)bsw[i]));
  }
  k->n_buffers = w->has_c ? 4 : 3;
  k->push_bytes = 0;
  int64_t per = (int64_t)wg_n * cv;
  int64_t gx = (cols + per - 1) / per, gz = p.batch < 1 ? 1 : p.batch;
  if (gx > t->max_workgroup_count[0] || gz > t->max_workgroup_count[2])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: grid %lldx1x%lld exceeds the workgroup counts of %s", name,
                            (long long)gx, (long long)gz, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = 1;
  k->groups[2] = (uint32_t)gz;
  return VKML_OK;
}

/* ---- node entry points ---------------------------------------------------------------- */

/* The family's default: GEMV when one side has 1..CG_GEMV_MAX_ROWS rows. */
static bool gemv_suits(const cg_gemm_workload *w, const ir_target *t) {
  gemm_plan p;
  vkml_status st = plan_workload(w, t, "gemv", &p);
  if (st) {
    vkml_status_free(st);
    return false;
  }
  int64_t rows = p.m < p.n ? p.m : p.n;
  return rows >= 1 && rows <= CG_GEMV_MAX_ROWS;
}

/* gemm_coopmat's default for w: the first of these workgroup tiles that
 * gives COOP_GEMM_MIN_TILES workgroups and passes the target's constraints,
 * else the last that passes (fp32 accumulation; fp16 is the tuner's to
 * pick): 128x128 (2x2 subgroups of 4x4 matrix tiles, k in steps of 32),
 * 64x64 (the template's default), 64x32, 32x32, then 32x16 and 16x16 with
 * k in steps of 64.
 * - 128x128: on the H100, GEMM 4096^3 fp16 took 651.6 us against 64x64's
 *   1157.5 (bench/results/2026-11-28-kernel-stats.md); on an H200, 499.2 us
 *   since the staging loads lost their bounds branch, 407.0 at the sweep's
 *   best point, 128x256 with fp16 accumulation (2026-11-28-coop-loads.md).
 * - the smaller rungs: ViT-B/16's projections (197 tokens) ran on 48-192
 *   workgroups of 64x64; on the H200 (2026-11-28-conv-taps.md, call 5) the
 *   rung this picks took 39.4 us for 197x3072 by 3072x768 (64x64: 81.6),
 *   12.4 for 768x768 (24.3), 22.0 for 768x2304 (24.6; 32x32 best, 20.1),
 *   22.4 for 768x3072 (24.1; the best of six rungs). */
#define COOP_GEMM_MIN_TILES 256
static const int COOP_GEMM_LADDER[][6] = {
    {2, 2, 4, 4, 32, 32}, {2, 2, 2, 2, 32, 32}, {2, 2, 2, 1, 32, 32},
    {2, 2, 1, 1, 32, 32}, {2, 1, 1, 1, 64, 32}, {1, 1, 1, 1, 64, 32},
};
static void coopmat_default(const cg_gemm_workload *w, const ir_target *t, cg_schedule *out) {
  *out = cg_gemm_coopmat_template.dflt;
  gemm_plan p;
  vkml_status st = plan_workload(w, t, "gemm_coopmat", &p);
  int si = st ? -1 : cg_coopmat_shape(t, 32);
  vkml_status_free(st);
  if (si < 0) return;
  int64_t ms = t->coopmat_shapes[si].m, ns = t->coopmat_shapes[si].n;
  for (size_t r = 0; r < sizeof COOP_GEMM_LADDER / sizeof COOP_GEMM_LADDER[0]; r++) {
    const int *g = COOP_GEMM_LADDER[r];
    cg_schedule c = {{0}};
    for (int k = 0; k < 6; k++) c.v[k] = g[k];
    st = cg_schedule_check(&cg_gemm_coopmat_template, &c, t);
    if (st) {
      vkml_status_free(st);
      continue;
    }
    *out = c;
    int64_t bm = (int64_t)g[C_WM] * g[C_TM] * ms, bn = (int64_t)g[C_WN] * g[C_TN] * ns;
    if (((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn) * p.batch >= COOP_GEMM_MIN_TILES) return;
  }
}

/* The family's default without tensor cores, gemm_tiled_vec4's ladder: the
 * first of 64x64 tiles (8x8 invocations of 8x8 outputs, BK 8) and 64x32
 * (8x4 outputs, BK 16) that gives VEC4_BIG_TILES workgroups, else 32x32
 * (4x4 outputs, BK 32); false where none passes the target's constraints.
 * On the H200, fp32 (bench/results/2026-11-28-fp32-gemm.md):
 * - 4096^3 at 64x64 ran at 40.8 TFLOP/s, 64 % of the measured FMA peak
 *   (gemm_tiled's default: 30.0); 1024^3 at 64x32 0.76x of 32x32, at 64x64
 *   0.85x; ConvNeXt-L's 3136x192 by 192x768 at 64x64 0.88x of 64x32.
 * - at 32x32 the projections of ViT-B/16, ViT-L/16 (197 rows) and
 *   ConvNeXt-L (196) ran at 0.61-1.03x gemm_tiled's default, where larger
 *   tiles left the GPU idle (1.3-3.5x slower); attention's batched matmuls
 *   at 0.93-1.2x its time before the swizzle, which took ViT-L/16's q.k^T
 *   from 13.8 to 10.8 us.
 * gemm_tiled's default by workgroup count, which this replaces, is in
 * 2026-11-28-matmul-fold.md. */
#define VEC4_BIG_TILES 512
static bool vec4_default(const cg_gemm_workload *w, const ir_target *t, cg_schedule *out) {
  static const int ladder[][5] = {
      {8, 8, 8, 8, 8},  /* 64x64 */
      {8, 8, 8, 4, 16}, /* 64x32 */
      {8, 8, 4, 4, 32}, /* 32x32 */
  };
  gemm_plan p;
  vkml_status st = plan_workload(w, t, "gemm_tiled_vec4", &p);
  if (st) {
    vkml_status_free(st);
    return false;
  }
  bool found = false;
  for (size_t r = 0; r < sizeof ladder / sizeof ladder[0]; r++) {
    cg_schedule c = {{0}};
    for (int k = 0; k < 5; k++) c.v[k] = ladder[r][k];
    st = cg_schedule_check(&cg_gemm_tiled_vec4_template, &c, t);
    if (st) {
      vkml_status_free(st);
      continue;
    }
    *out = c;
    found = true;
    int64_t bm = (int64_t)c.v[T_WG_M] * c.v[T_TM], bn = (int64_t)c.v[T_WG_N] * c.v[T_TN];
    if (((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn) * p.batch >= VEC4_BIG_TILES) break;
  }
  return found;
}

static bool coopmat_suits(const cg_gemm_workload *w, const ir_target *t) {
  return w->out.dtype == IR_F16 && !cg_coopmat_lacks(t) &&
         cg_coopmat_shape(t, cg_gemm_coopmat_template.dflt.v[C_ACC]) >= 0;
}

static vkml_status node_kernel(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  cg_gemm_workload w;
  VKML_RETURN_IF_ERROR(cg_gemm_workload_from_node(n, &w));
  if (st && st != &cg_gemm_tiled_template && st != &cg_gemm_tiled_vec4_template &&
      st != &cg_gemm_coopmat_template && st != &cg_gemm_coopmat2_template &&
      st != &cg_gemm_gemv_template)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: template %s is not a gemm template",
                            ir_op_name(n->op), st->name);
  if (!st) {
    if (gemv_suits(&w, t)) {
      vkml_status r = cg_gemm_gemv_instantiate(&w, s ? s : &cg_gemm_gemv_template.dflt, t, out);
      if (!r || vkml_status_code(r) != VKML_CODE_UNSUPPORTED || s) return r;
      vkml_status_free(r); /* e.g. the grid does not fit: the general templates */
    }
    if (coopmat_suits(&w, t)) {
      cg_schedule d;
      if (!s) coopmat_default(&w, t, &d);
      vkml_status r = cg_gemm_coopmat_instantiate(&w, s ? s : &d, t, out);
      if (!r || vkml_status_code(r) != VKML_CODE_UNSUPPORTED || s) return r;
      vkml_status_free(r); /* the default does not fit: tiles */
    }
    st = &cg_gemm_tiled_template;
    if (!s) {
      cg_schedule d;
      if (vec4_default(&w, t, &d)) return cg_gemm_tiled_vec4_instantiate(&w, &d, t, out);
      /* (any Vulkan device fits the 32x32 rung: this names what fails) */
      return cg_gemm_tiled_instantiate(&w, &cg_gemm_tiled_template.dflt, t, out);
    }
  }
  if (!s) s = &st->dflt;
  if (st == &cg_gemm_tiled_vec4_template) return cg_gemm_tiled_vec4_instantiate(&w, s, t, out);
  if (st == &cg_gemm_coopmat_template) return cg_gemm_coopmat_instantiate(&w, s, t, out);
  if (st == &cg_gemm_coopmat2_template) return cg_gemm_coopmat2_instantiate(&w, s, t, out);
  if (st == &cg_gemm_gemv_template) return cg_gemm_gemv_instantiate(&w, s, t, out);
  return cg_gemm_tiled_instantiate(&w, s, t, out);
}

vkml_status cg_node_gemm(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out) {
  return node_kernel(n, st, s, t, out);
}

vkml_status cg_node_matmul(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  return node_kernel(n, st, s, t, out);
}
