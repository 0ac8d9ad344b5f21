/* Row reductions on the GPU: the mapping shared by the reduce, softmax and
 * norm templates (rows over merged axes, lanes per row, vector width,
 * subgroup use, grid), and the reduce, global_pool and argminmax families
 * on glsl/reduce.comp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_ops.h"
#include "codegen/cg_reduce.h"
#include "codegen/cg_rows.h"
#include "ir/params.h"

#define ROW_TEMPLATE(tname, file)                                              \
  {                                                                            \
    .name = tname, .glsl = file, .n_knobs = 4,                                 \
    .knobs = {{"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},                   \
              {"RED", 12, {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},   \
              {"VEC", 3, {1, 2, 4}},                                           \
              {"SUBGROUP", 2, {0, 1}}},                                        \
    .n_constraints = 3,                                                        \
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << CG_ROW_WG, 1},                \
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << CG_ROW_WG, 1},      \
                    /* 8 bytes of partials per invocation and vector lane,     \
                     * plus the result slots */                                \
                    {CG_LIMIT_SHARED_BYTES, (1u << CG_ROW_WG) | (1u << CG_ROW_VEC), 9}}, \
    .dflt = {{128, 0, 4, 1}},                                                  \
  }

const cg_template cg_reduce_template = ROW_TEMPLATE("reduce", "reduce.comp");
const cg_template cg_softmax_template = ROW_TEMPLATE("softmax", "softmax.comp");
const cg_template cg_norm_template = ROW_TEMPLATE("norm", "norm.comp");

/* ---- shared helpers ------------------------------------------------------ */

void cg_rowmap_make(int rank, const int64_t *dims, const bool *mask, cg_rowmap *m) {
  memset(m, 0, sizeof *m);
  m->n_rows = 1;
  m->len = 1;
  int last = -1; /* 0 kept, 1 reduced: the kind of the previous merged axis */
  int64_t stride = 1;
  for (int j = rank - 1; j >= 0; j--) {
    int64_t d = dims[j];
    bool red = mask[j];
    if (red) m->len *= d;
    else m->n_rows *= d;
    if (d != 1) {
      /* neighbours of one kind with only size-1 axes between are contiguous */
      if (last == (int)red) {
        if (red) m->rd[m->nr - 1] *= d;
        else m->kd[m->nk - 1] *= d;
      } else if (red) {
        m->rd[m->nr] = d;
        m->rs[m->nr++] = stride;
      } else {
        m->kd[m->nk] = d;
        m->ks[m->nk++] = stride;
      }
      last = red;
    }
    stride *= d;
  }
  /* with no axis left (all size 1) the single element is at offset 0 */
  m->lanes_fast = m->nr > 0 ? m->rs[0] == 1 : true;
  if (m->nk > 0 && m->ks[0] == 1) m->lanes_fast = false;
}

static int64_t pow2ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Lanes per row when RED=0 (measured on an H200, see the report of issue
 * 4). Rows along the contiguous axis: enough lanes to sweep a row with ~8
 * elements each. Rows across it: enough invocations to fill a large GPU
 * (slots x lanes ~ 128K), but at least 4 slots per workgroup so that a
 * load instruction still covers a run of neighbouring outputs, and never
 * more lanes than elements. */
static int auto_lanes(const cg_rowmap *m, int wg, int vw) {
  if (m->lanes_fast) {
    int64_t want = (m->len + 8 * vw - 1) / (8 * vw);
    return (int)clamp64(pow2ceil(want), 1, wg);
  }
  int64_t slots = m->n_rows / vw;
  int64_t want = (131072 + slots - 1) / (slots > 0 ? slots : 1);
  int64_t cap = wg / 4 > 1 ? wg / 4 : 1;
  if (pow2ceil(m->len) < cap) cap = pow2ceil(m->len);
  return (int)clamp64(pow2ceil(want), 1, cap);
}

static bool subgroups_usable(const ir_target *t) {
  uint32_t need = IR_SUBGROUP_BASIC | IR_SUBGROUP_VOTE | IR_SUBGROUP_ARITHMETIC;
  return t->subgroup_in_compute && (t->subgroup_ops & need) == need && t->subgroup_size > 0;
}

vkml_status cg_row_begin(cg_kernel *k, const cg_template *tmpl, const cg_schedule *s,
                         const ir_target *t, const cg_rowmap *m, const char *name,
                         cg_rowplan *plan) {
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tmpl, s, t));
  int wg = s->v[CG_ROW_WG], red = s->v[CG_ROW_RED], vec = s->v[CG_ROW_VEC];
  if (red > wg)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: RED=%d exceeds WG_SIZE=%d", name, red,
                            wg);
  if (m->nk > 4 || m->nr > 4)
    return vkml_status_make(VKML_CODE_INTERNAL, "%s: more than 4 merged axes of a kind", name);
  /* the vector runs along the contiguous axis and must not cross it */
  int64_t inner = m->lanes_fast ? (m->nr ? m->rd[0] : 1) : m->kd[0];
  int vw = vec;
  while (vw > 1 && inner % vw) vw /= 2;
  plan->wg = wg;
  plan->vw = vw;
  plan->lanes = red ? red : auto_lanes(m, wg, vw);
  plan->use_sg = s->v[CG_ROW_SUBGROUP] && plan->lanes == wg && subgroups_usable(t);
  /* a lane's share of a row, in loads; rows read more than once (softmax,
   * norms) keep a share of up to 16 loads in registers */
  int64_t step = (int64_t)plan->lanes * (m->lanes_fast ? vw : 1);
  int64_t per_lane = (m->len + step - 1) / step;
  plan->cache = per_lane <= 16 ? (int)pow2ceil(per_lane) : 0;
  /* VW and USE_SG change types and capabilities: #defines. The lanes are
   * specialization constants, so that shapes share SPIR-V modules. */
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VW", "%d", vw));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "USE_SG", "%d", plan->use_sg));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 40, (uint32_t)plan->lanes));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 41, m->lanes_fast));

  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 0, (uint32_t)m->n_rows));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 1, (uint32_t)m->len));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 2, (uint32_t)m->nk));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 3, (uint32_t)m->nr));
  for (int i = 0; i < m->nk; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 4 + (uint32_t)i, (uint32_t)m->kd[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 8 + (uint32_t)i, (uint32_t)m->ks[i]));
  }
  for (int i = 0; i < m->nr; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 12 + (uint32_t)i, (uint32_t)m->rd[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 16 + (uint32_t)i, (uint32_t)m->rs[i]));
  }

  int64_t per_slot = m->lanes_fast ? 1 : vw;
  int64_t slots = (m->n_rows + per_slot - 1) / per_slot;
  int64_t outs = wg / plan->lanes;
  int64_t groups = slots ? (slots + outs - 1) / outs : 1;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  int64_t gy = gx ? (groups + gx - 1) / gx : 1;
  if (gx < 1 || gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %lld workgroups exceed the grid of %s",
                            name, (long long)groups, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}

static vkml_status check_value(const ir_node *n, const ir_value *v, ir_dtype want) {
  const ir_type *ty = &v->type;
  if (ty->dtype != want)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %%%s is %s, the kernel wants %s",
                            ir_op_name(n->op), v->name, ir_dtype_name(ty->dtype),
                            ir_dtype_name(want));
  if (ty->bounded || v->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %%%s is bounded or not in the default layout", ir_op_name(n->op),
                            v->name);
  /* offsets are 32-bit in the shaders; i64 outputs take two words each */
  if (ir_type_numel(ty) >= (INT64_C(1) << 30))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %%%s has 2^30 elements or more",
                            ir_op_name(n->op), v->name);
  return VKML_OK;
}

vkml_status cg_check_float_values(const ir_node *n, const ir_target *t) {
  if (n->n_inputs < 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %d inputs, %d outputs",
                            ir_op_name(n->op), n->n_inputs, n->n_outputs);
  ir_dtype dt = n->inputs[0]->type.dtype;
  if (dt != IR_F32 && dt != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s is not f32 or f16 on the GPU",
                            ir_op_name(n->op), ir_dtype_name(dt));
  if (dt == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: f16 needs 16-bit storage, which %s lacks",
                            ir_op_name(n->op), t->name);
  for (int i = 0; i < n->n_inputs; i++) VKML_RETURN_IF_ERROR(check_value(n, n->inputs[i], dt));
  bool arg = n->op == IR_OP_ARGMAX || n->op == IR_OP_ARGMIN;
  return check_value(n, n->outputs[0], arg ? IR_I64 : dt);
}

void cg_node_key(const ir_node *n, const char *attrs, char *buf, int buf_bytes) {
  int len = snprintf(buf, (size_t)buf_bytes, "%s(", ir_op_name(n->op));
  for (int i = 0; i < n->n_inputs && len < buf_bytes; i++) {
    char ty[160];
    ir_type_format(&n->inputs[i]->type, ty, sizeof ty);
    len += snprintf(buf + len, (size_t)(buf_bytes - len), "%s%s", i ? "," : "", ty);
  }
  if (len < buf_bytes) {
    char ty[160];
    ir_type_format(&n->outputs[0]->type, ty, sizeof ty);
    snprintf(buf + len, (size_t)(buf_bytes - len), ")->%s%s", ty, attrs);
  }
}

vkml_status cg_check_template(const ir_node *n, const cg_template *sched_template,
                              const cg_template *want) {
  if (sched_template && sched_template != want)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: template %s, not %s",
                            ir_op_name(n->op), sched_template->name, want->name);
  return VKML_OK;
}

/* Output dims of x reduced over mask (keepdims: size 1, else dropped)
 * against the node's output type. */
static vkml_status check_reduced_out(const ir_node *n, const bool *mask, bool keep) {
  const ir_type *x = &n->inputs[0]->type, *y = &n->outputs[0]->type;
  int r = 0;
  bool ok = true;
  for (int i = 0; i < x->rank; i++) {
    if (mask[i] && !keep) continue;
    int64_t d = mask[i] ? 1 : x->dims[i];
    ok = ok && r < y->rank && y->dims[r] == d;
    r++;
  }
  if (!ok || r != y->rank)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: output shape does not match",
                            ir_op_name(n->op));
  return VKML_OK;
}

/* ---- reduce.comp families ------------------------------------------------- */

enum { OP_SUM, OP_MEAN, OP_MAX, OP_MIN, OP_PROD, OP_ARGMAX, OP_ARGMIN };

static vkml_status reduce_instantiate(const ir_node *n, const bool *mask, int op, bool last,
                                      const char *attrs, const cg_schedule *s,
                                      const ir_target *t, cg_kernel *k) {
  const ir_type *x = &n->inputs[0]->type;
  cg_rowmap m;
  cg_rowmap_make(x->rank, x->dims, mask, &m);
  if (m.len == 0 && (op == OP_ARGMAX || op == OP_ARGMIN))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s over an empty axis",
                            ir_op_name(n->op));
  cg_rowplan plan;
  VKML_RETURN_IF_ERROR(cg_row_begin(k, &cg_reduce_template, s ? s : &cg_reduce_template.dflt, t,
                                    &m, "reduce", &plan));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "IS_ARG", "%d", op == OP_ARGMAX || op == OP_ARGMIN));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 42, (uint32_t)op));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, 43, last));
  k->n_buffers = 2;
  cg_node_key(n, attrs, k->key, sizeof k->key);
  return VKML_OK;
}

static int define_int(const cg_kernel *k, const char *name, int dflt) {
  for (int i = 0; i < k->n_defines; i++)
    if (!strcmp(k->def_name[i], name)) return atoi(k->def_value[i]);
  return dflt;
}

/* A max, min, sum or prod over every axis of a bounded input whose live
 * elements are a prefix (cg_rows_leading): the kernel reads the count. */
static vkml_status reduce_bounded(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                  const ir_target *t, cg_kernel *out) {
  const ir_value *x = n->inputs[0];
  bool mask[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_reduce_axes_get(n, x->type.rank, mask));
  bool all = true;
  for (int i = 0; i < x->type.rank; i++) all = all && mask[i];
  if (!all || n->op == IR_OP_REDUCE_MEAN || !cg_rows_leading(x) || n->outputs[0]->type.bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: a bounded input reduces on the GPU only over every axis "
                            "(max, min, sum, prod), its live elements a prefix",
                            ir_op_name(n->op));
  int64_t row = 1;
  for (int d = x->type.bounded_axis + 1; d < x->type.rank; d++) row *= x->type.dims[d];
  cg_twin twin;
  VKML_RETURN_IF_ERROR(cg_twin_make(n, &twin));
  vkml_status r = cg_node_reduce(&twin.node, st, s, t, out);
  cg_twin_free(&twin);
  VKML_RETURN_IF_ERROR(r);
  int vw = define_int(out, "VW", 1);
  if (vw > 1 && row % vw)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: rows of %lld elements of a bounded input, vectors of %d",
                            ir_op_name(n->op), (long long)row, vw);
  VKML_RETURN_IF_ERROR(cg_kernel_spec(
      out, 44, (uint32_t)(ir_type_extent_offset(&x->type, IR_LAYOUT_DEFAULT) / 4)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, 45, (uint32_t)row));
  /* the key of the bounded type, with the twin's attributes */
  char attrs[160] = "";
  const char *brace = strrchr(out->key, '{');
  if (brace) snprintf(attrs, sizeof attrs, "%s", brace);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_reduce(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->n_inputs == 1 && n->n_outputs == 1 && cg_reduce_is_int(n))
    return cg_reduce_int(n, st, s, t, out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_reduce_template));
  if (n->n_inputs == 1 && n->inputs[0]->type.bounded) return reduce_bounded(n, st, s, t, out);
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  int op;
  switch (n->op) {
  case IR_OP_REDUCE_SUM: op = OP_SUM; break;
  case IR_OP_REDUCE_MEAN: op = OP_MEAN; break;
  case IR_OP_REDUCE_MAX: op = OP_MAX; break;
  case IR_OP_REDUCE_MIN: op = OP_MIN; break;
  case IR_OP_REDUCE_PROD: op = OP_PROD; break;
  default:
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "reduce: %s is not a reduction",
                            ir_op_name(n->op));
  }
  const ir_type *x = &n->inputs[0]->type;
  bool mask[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_reduce_axes_get(n, x->rank, mask));
  bool keep = ir_node_int(n, IR_A_KEEPDIMS, 1) != 0;
  VKML_RETURN_IF_ERROR(check_reduced_out(n, mask, keep));
  char attrs[128];
  int len = snprintf(attrs, sizeof attrs, "{axes=[");
  for (int i = 0, first = 1; i < x->rank; i++)
    if (mask[i]) {
      len += snprintf(attrs + len, sizeof attrs - (size_t)len, "%s%d", first ? "" : ",", i);
      first = 0;
    }
  snprintf(attrs + len, sizeof attrs - (size_t)len, "],keepdims=%d}", keep);
  return reduce_instantiate(n, mask, op, false, attrs, s, t, out);
}

vkml_status cg_node_global_pool(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_reduce_template));
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  const ir_type *x = &n->inputs[0]->type;
  if (x->rank < 3)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input rank %d < 3",
                            ir_op_name(n->op), x->rank);
  bool mask[IR_MAX_RANK] = {false};
  for (int i = 2; i < x->rank; i++) mask[i] = true;
  VKML_RETURN_IF_ERROR(check_reduced_out(n, mask, true));
  return reduce_instantiate(n, mask, n->op == IR_OP_GLOBAL_MAX_POOL ? OP_MAX : OP_MEAN, false,
                            "", s, t, out);
}

vkml_status cg_node_argminmax(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_reduce_template));
  if (n->op != IR_OP_ARGMAX && n->op != IR_OP_ARGMIN)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "argminmax: %s", ir_op_name(n->op));
  VKML_RETURN_IF_ERROR(cg_check_float_values(n, t));
  const ir_type *x = &n->inputs[0]->type;
  int axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis));
  bool keep = ir_node_int(n, IR_A_KEEPDIMS, 1) != 0;
  bool last = ir_node_int(n, IR_A_SELECT_LAST_INDEX, 0) != 0;
  bool mask[IR_MAX_RANK] = {false};
  mask[axis] = true;
  VKML_RETURN_IF_ERROR(check_reduced_out(n, mask, keep));
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{axis=%d,keepdims=%d,select_last_index=%d}", axis, keep, last);
  return reduce_instantiate(n, mask, n->op == IR_OP_ARGMAX ? OP_ARGMAX : OP_ARGMIN, last, attrs,
                            s, t, out);
}
