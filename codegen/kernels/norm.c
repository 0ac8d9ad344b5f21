/* softmax / log_softmax (glsl/softmax.comp), layer_norm and instance_norm
 * (glsl/norm.comp as row reductions) and batchnorm (glsl/norm.comp as a
 * per-channel affine map) on the GPU. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

enum { BN_WG = 0, BN_EPI = 1 };

const cg_template cg_batchnorm_template = {
    .name = "batchnorm",
    .glsl = "batchnorm.comp",
    CG_ELEMENTWISE_SPACE,
};

/* ---- softmax ---------------------------------------------------------------- */

vkml_status cg_node_softmax(const ir_node *n, const cg_template *st, const cg_schedule *s,
                            const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_softmax_template));
  if (n->op != IR_OP_SOFTMAX && n->op != IR_OP_LOG_SOFTMAX)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "softmax: %s", ir_op_name(n->op));
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  const ir_type *x = &n->inputs[0]->type;
  if (!ir_type_equal(x, &n->outputs[0]->type))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: output type differs from input",
                            ir_op_name(n->op));
  int axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis));
  bool mask[IR_MAX_RANK] = {false};
  mask[axis] = true;
  cg_rowmap m;
  cg_rowmap_make(x->rank, x->dims, mask, &m);
  cg_rowplan plan;
  VKML_RETURN_IF_ERROR(cg_row_begin(out, &cg_softmax_template,
                                    s ? s : &cg_softmax_template.dflt, t, &m, "softmax", &plan));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_SOFTMAX_LOG_SOFTMAX, n->op == IR_OP_LOG_SOFTMAX));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "CACHE", "%d", plan.cache));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", x->dtype == IR_F16));
  out->n_buffers = 2;
  char attrs[32];
  snprintf(attrs, sizeof attrs, "{axis=%d}", axis);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

/* ---- layer_norm / instance_norm ------------------------------------------------- */


/* Element strides of p broadcast (right-aligned) against the row shape
 * (rank nd), outermost first; 0 on broadcast axes. */
static void param_strides(const ir_type *p, int nd, int64_t *s) {
  int off = nd - p->rank;
  int64_t run = 1;
  for (int j = nd - 1; j >= 0; j--) {
    int q = j - off;
    s[j] = q < 0 || p->dims[q] == 1 ? 0 : run;
    if (q >= 0) run *= p->dims[q];
  }
}

/* 1: p is indexed like the row, 2: a single element, 0: strided. */
static uint32_t param_mode(int pn, const int64_t *pd, const int64_t *ps) {
  bool zero = true, same = true;
  int64_t run = 1;
  for (int i = 0; i < pn; i++) {
    zero = zero && ps[i] == 0;
    same = same && ps[i] == run;
    run *= pd[i];
  }
  return same ? 1 : (zero ? 2 : 0);
}

/* layer_norm's scale / bias addressing over the row's merged axes. */
static vkml_status layer_params(const ir_node *n, int axis, cg_kernel *k) {
  const ir_type *x = &n->inputs[0]->type;
  int nd = x->rank - axis;
  const int64_t *d = x->dims + axis;
  bool has_bias = n->n_inputs > 2;
  int64_t ss[IR_MAX_RANK], sb[IR_MAX_RANK] = {0};
  for (int i = 1; i < n->n_inputs; i++) {
    const ir_type *p = &n->inputs[i]->type;
    bool ok = p->rank <= nd;
    for (int j = 0; ok && j < p->rank; j++)
      ok = p->dims[j] == 1 || p->dims[j] == d[nd - p->rank + j];
    if (!ok)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "layer_norm: input %d does not broadcast to the normalised shape", i);
  }
  param_strides(&n->inputs[1]->type, nd, ss);
  if (has_bias) param_strides(&n->inputs[2]->type, nd, sb);
  /* merge neighbours (innermost first) where both stay contiguous */
  int pn = 0;
  int64_t pd[IR_MAX_RANK], ps[IR_MAX_RANK], pb[IR_MAX_RANK];
  for (int j = nd - 1; j >= 0; j--) {
    if (d[j] == 1) continue;
    if (pn && ss[j] == ps[pn - 1] * pd[pn - 1] && sb[j] == pb[pn - 1] * pd[pn - 1]) {
      pd[pn - 1] *= d[j];
      continue;
    }
    pd[pn] = d[j];
    ps[pn] = ss[j];
    pb[pn] = sb[j];
    pn++;
  }
  uint32_t smode = param_mode(pn, pd, ps), bmode = param_mode(pn, pd, pb);
  if (pn > 4 && (smode == 0 || bmode == 0))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "layer_norm: scale / bias broadcast over more than 4 merged axes");
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_S_MODE, smode));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_B_MODE, bmode));
  if (smode == 0 || bmode == 0) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_PN, (uint32_t)pn));
    for (int i = 0; i < pn; i++) {
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_PD0 + (uint32_t)i, (uint32_t)pd[i]));
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_PS0 + (uint32_t)i, (uint32_t)ps[i]));
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_PB0 + (uint32_t)i, (uint32_t)pb[i]));
    }
  }
  return VKML_OK;
}

static vkml_status norm_rows(const ir_node *n, const cg_template *st, const cg_schedule *s,
                             const ir_target *t, cg_kernel *k, int first_axis, bool instance) {
  const ir_type *x = &n->inputs[0]->type;
  bool mask[IR_MAX_RANK] = {false};
  for (int i = first_axis; i < x->rank; i++) mask[i] = true;
  cg_rowmap m;
  cg_rowmap_make(x->rank, x->dims, mask, &m);
  /* the rows are contiguous: their lanes walk them even when a row has a
   * single element */
  m.lanes_fast = true;
  cg_rowplan plan;
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_norm_template));
  VKML_RETURN_IF_ERROR(cg_row_begin(k, &cg_norm_template, s ? s : &cg_norm_template.dflt, t, &m,
                                    ir_op_name(n->op), &plan));
  bool has_bias = n->n_inputs > 2;
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_INSTANCE, instance));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "HAS_BIAS", "%d", has_bias));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "CACHE", "%d", plan.cache));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", x->dtype == IR_F16));
  float eps = ir_node_float(n, IR_A_EPSILON, 1e-5f);
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_EPS, cg_elt_f32_bits(eps)));
  if (instance) VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_NORM_C, (uint32_t)x->dims[1]));
  else VKML_RETURN_IF_ERROR(layer_params(n, first_axis, k));
  k->n_buffers = n->n_inputs + 1;
  char attrs[64];
  if (instance) snprintf(attrs, sizeof attrs, "{epsilon=%.9g}", (double)eps);
  else snprintf(attrs, sizeof attrs, "{axis=%d,epsilon=%.9g}", first_axis, (double)eps);
  cg_node_key(n, attrs, k->key, sizeof k->key);
  return VKML_OK;
}

static vkml_status check_channel_vectors(const ir_node *n, int first, int64_t c) {
  for (int i = first; i < n->n_inputs; i++) {
    const ir_type *p = &n->inputs[i]->type;
    if (p->rank != 1 || p->dims[0] != c)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input %d must have shape [%lld]",
                              ir_op_name(n->op), i, (long long)c);
  }
  return VKML_OK;
}

vkml_status cg_node_layer_norm(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->op != IR_OP_LAYER_NORM || n->n_inputs < 2 || n->n_inputs > 3)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "layer_norm: %s with %d inputs",
                            ir_op_name(n->op), n->n_inputs);
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  const ir_type *x = &n->inputs[0]->type;
  if (!ir_type_equal(x, &n->outputs[0]->type))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "layer_norm: output type differs");
  int axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis));
  return norm_rows(n, st, s, t, out, axis, false);
}

vkml_status cg_node_instance_norm(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                  const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->op != IR_OP_INSTANCE_NORM || n->n_inputs != 3)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "instance_norm: %s with %d inputs",
                            ir_op_name(n->op), n->n_inputs);
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  const ir_type *x = &n->inputs[0]->type;
  if (x->rank < 3 || !ir_type_equal(x, &n->outputs[0]->type))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "instance_norm: input rank %d < 3 or output type differs", x->rank);
  VKML_RETURN_IF_ERROR(check_channel_vectors(n, 1, x->dims[1]));
  return norm_rows(n, st, s, t, out, 2, true);
}

/* ---- batchnorm ------------------------------------------------------------------ */

vkml_status cg_node_batchnorm(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_batchnorm_template));
  if (n->op != IR_OP_BATCHNORM || n->n_inputs != 5)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "batchnorm: %s with %d inputs",
                            ir_op_name(n->op), n->n_inputs);
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  const ir_type *x = &n->inputs[0]->type;
  if (x->rank < 2 || !ir_type_equal(x, &n->outputs[0]->type))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "batchnorm: input rank %d < 2 or output type differs", x->rank);
  VKML_RETURN_IF_ERROR(check_channel_vectors(n, 1, x->dims[1]));
  if (!s) s = &cg_batchnorm_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_batchnorm_template, s, t));
  int64_t numel = ir_type_numel(x), inner = 1;
  for (int i = 2; i < x->rank; i++) inner *= x->dims[i];
  int wg = s->v[BN_WG], epi = s->v[BN_EPI];
  int vw = epi < 4 ? epi : 4;
  while (vw > 1 && inner % vw) vw /= 2;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "VW", "%d", vw));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_BATCHNORM_N, (uint32_t)numel));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_BATCHNORM_INNER, (uint32_t)(inner ? inner : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_BATCHNORM_C, (uint32_t)(x->dims[1] ? x->dims[1] : 1)));
  float eps = ir_node_float(n, IR_A_EPSILON, 1e-5f);
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_BATCHNORM_EPS, cg_elt_f32_bits(eps)));
  out->n_buffers = 6;
  char attrs[40];
  snprintf(attrs, sizeof attrs, "{epsilon=%.9g}", (double)eps);
  cg_node_key(n, attrs, out->key, sizeof out->key);

  /* invocations of EPI elements (CHUNKS vectors of vw) */
  int chunks = (epi + vw - 1) / vw;
  int64_t per_group = (int64_t)wg * chunks * vw;
  int64_t groups = numel ? (numel + per_group - 1) / per_group : 1;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "batchnorm: %lld workgroups exceed the grid",
                            (long long)groups);
  out->groups[0] = (uint32_t)gx;
  out->groups[1] = (uint32_t)gy;
  out->groups[2] = 1;
  return VKML_OK;
}

const cg_template cg_softmax_template = CG_ROW_TEMPLATE("softmax", "softmax.comp");

const cg_template cg_norm_template = CG_ROW_TEMPLATE("norm", "norm.comp");
