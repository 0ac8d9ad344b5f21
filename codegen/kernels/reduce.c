/* Row reductions on the GPU: the mapping shared by the reduce, softmax and
 * norm templates (rows over merged axes, lanes per row, vector width,
 * subgroup use, grid), and the reduce, global_pool and argminmax families
 * on glsl/reduce.comp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/core.h"
#include "codegen/core/elt.h"
#include "ir/params.h"

const cg_template cg_reduce_template = CG_ROW_TEMPLATE("reduce", "reduce.comp");
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

/* n reduces i32 or i64 values; such a reduction of a small static tensor
 * runs on reduce_int.comp (below). */
static bool reduce_is_int(const ir_node *n);
static vkml_status reduce_int(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out);

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
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_REDUCE_OP, (uint32_t)op));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_REDUCE_SELECT_LAST, last));
  ir_act_params a;
  ir_act_params_get(n, &a);
  if (a.kind != IR_ACT_NONE) {
    if (op != OP_SUM)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s takes no fused activation",
                              ir_op_name(n->op));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_REDUCE_ACT_KIND, (uint32_t)a.kind));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_REDUCE_ACT_ALPHA, cg_elt_f32_bits(a.alpha)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_REDUCE_ACT_BETA, cg_elt_f32_bits(a.beta)));
  }
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
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_REDUCE_EXT_ROW, (uint32_t)row));
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
  if (n->n_inputs == 1 && n->n_outputs == 1 && reduce_is_int(n))
    return reduce_int(n, st, s, t, out);
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
  len += snprintf(attrs + len, sizeof attrs - (size_t)len, "],keepdims=%d", keep);
  ir_act_params a;
  ir_act_params_get(n, &a);
  len += cg_act_key(&a, attrs + len, sizeof attrs - (size_t)len);
  snprintf(attrs + len, sizeof attrs - (size_t)len, "}");
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

/* ---- integer reductions (glsl/reduce_int.comp): sum, prod, max and min of
 * small static i32 / i64 tensors, one invocation per output element. What
 * exported graphs reduce in integers is shape arithmetic (the element count
 * of a run-time sized value, reduce_prod(shape(x)), tested against zero by
 * torchvision's batched NMS): keeping it on the device keeps the If after
 * it there too. Reductions over nothing stay on the CPU. ---- */

const cg_template cg_reduce_int_template = {
    .name = "reduce_int", .glsl = "reduce_int.comp", .n_knobs = 0, .dflt = {{0}}};

/* small enough for one serial walk per output element */
#define REDUCE_INT_MAX_ELEMENTS (INT64_C(1) << 20)

static bool reduce_is_int(const ir_node *n) {
  ir_dtype dt = n->inputs[0]->type.dtype;
  return dt == IR_I32 || dt == IR_I64;
}

static vkml_status reduce_int(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_reduce_int_template));
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  const ir_type *xt = &x->type;
  int op = n->op == IR_OP_REDUCE_SUM ? 0 : n->op == IR_OP_REDUCE_PROD ? 1
         : n->op == IR_OP_REDUCE_MAX ? 2 : n->op == IR_OP_REDUCE_MIN ? 3 : -1;
  if (op < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s reduces on the GPU only by sum, "
                            "prod, max or min", ir_op_name(n->op), ir_dtype_name(xt->dtype));
  if (ir_node_int(n, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: a fused activation on %s values (floats "
                            "only)", ir_op_name(n->op), ir_dtype_name(xt->dtype));
  if (xt->dtype == IR_I64 && !t->int64_arith)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: i64 needs shaderInt64, which %s lacks",
                            ir_op_name(n->op), t->name);
  if (xt->bounded || y->type.bounded || x->layout != IR_LAYOUT_DEFAULT ||
      y->layout != IR_LAYOUT_DEFAULT || y->type.dtype != xt->dtype || xt->rank > 8)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: integers reduce on the GPU only static, of rank <= 8, in the "
                            "default layout", ir_op_name(n->op));
  if (ir_type_numel(xt) > REDUCE_INT_MAX_ELEMENTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s reductions of more than %lld "
                            "elements stay on the CPU", ir_op_name(n->op),
                            ir_dtype_name(xt->dtype), (long long)REDUCE_INT_MAX_ELEMENTS);
  bool mask[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_reduce_axes_get(n, xt->rank, mask));
  uint32_t bits = 0;
  int64_t out_n = 1;
  for (int d = 0; d < xt->rank; d++) {
    if (mask[d] && xt->dims[d] == 0)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: a reduction over nothing stays on "
                              "the CPU", ir_op_name(n->op));
    if (mask[d]) bits |= 1u << d;
    else out_n *= xt->dims[d];
  }
  if (out_n != ir_type_numel(&y->type))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %lld output elements, %%%s has %lld",
                            ir_op_name(n->op), (long long)out_n, y->name,
                            (long long)ir_type_numel(&y->type));
  if (!s) s = &cg_reduce_int_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_reduce_int_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "OP", "%d", op));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DT", "%d", xt->dtype == IR_I64 ? 3 : 2));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_REDUCE_INT_RANK, (uint32_t)(xt->rank ? xt->rank : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_REDUCE_INT_MASK, bits));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_REDUCE_INT_OUT_N, (uint32_t)out_n));
  for (int d = 0; d < xt->rank; d++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_REDUCE_INT_D0 + (uint32_t)d, (uint32_t)xt->dims[d]));
  out->n_buffers = 2;
  out->groups[0] = (uint32_t)((out_n + 63) / 64);
  out->groups[1] = out->groups[2] = 1;
  char attrs[32];
  snprintf(attrs, sizeof attrs, "{reduced=0x%x}", bits);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
