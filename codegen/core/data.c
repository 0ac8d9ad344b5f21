/* The data-movement kernels' helpers (data.h). */
#include <string.h>

#include "codegen/core/data.h"
#include "codegen/core/key.h"
#include "codegen/core/spec.h"
#include "ir/params.h"
vkml_status cg_data_begin(cg_kernel *k, const cg_template *tmpl, const ir_node *n,
                          const cg_template *st, const cg_schedule *s, const ir_target *t) {
  memset(k, 0, sizeof *k);
  if (st && st != tmpl)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: a schedule of template %s given to template %s",
                            ir_op_name(n->op), st->name, tmpl->name);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tmpl, s ? s : &tmpl->dflt, t));
  cg_data_key(n, k->key, sizeof k->key);
  return VKML_OK;
}

static vkml_status check_type(const ir_node *n, const ir_type *ty, const ir_target *t) {
  if (ty->bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: bounded (run-time sized) tensors run on the CPU",
                            ir_op_name(n->op));
  int64_t cnt = ir_type_numel(ty), bytes = ir_type_bytes(ty);
  if (cnt >= (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %lld elements (the kernel indexes in 32 bits)",
                            ir_op_name(n->op), (long long)cnt);
  if ((uint64_t)bytes > t->max_storage_buffer_range)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: a %lld-byte tensor exceeds the storage buffer range of %s",
                            ir_op_name(n->op), (long long)bytes, t->name);
  return VKML_OK;
}

vkml_status cg_data_check_values(const ir_node *n, const ir_target *t) {
  for (int i = 0; i < n->n_inputs; i++)
    VKML_RETURN_IF_ERROR(check_type(n, &n->inputs[i]->type, t));
  for (int i = 0; i < n->n_outputs; i++)
    VKML_RETURN_IF_ERROR(check_type(n, &n->outputs[i]->type, t));
  return VKML_OK;
}

int64_t cg_data_group(int64_t es, int64_t max_bytes, const int64_t *vals, int n_vals) {
  int64_t g = 1;
  while (es * g * 2 <= max_bytes) {
    bool ok = true;
    for (int i = 0; i < n_vals && ok; i++) ok = vals[i] % (g * 2) == 0;
    if (!ok) break;
    g *= 2;
  }
  return g;
}

vkml_status cg_data_define_unit(cg_kernel *k, int64_t unit_bytes, const ir_target *t) {
  if (unit_bytes == 1 && !t->storage_8bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: 1-byte elements that cannot be grouped need 8-bit storage, "
                            "which %s lacks", k->tmpl->name, t->name);
  if (unit_bytes == 2 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: 2-byte elements that cannot be grouped need 16-bit storage, "
                            "which %s lacks", k->tmpl->name, t->name);
  if (unit_bytes != 1 && unit_bytes != 2 && unit_bytes != 4 && unit_bytes != 8 && unit_bytes != 16)
    return vkml_status_make(VKML_CODE_INTERNAL, "%s: unit of %lld bytes", k->tmpl->name,
                            (long long)unit_bytes);
  return cg_kernel_define(k, "ELEM_BYTES", "%d", (int)unit_bytes);
}

vkml_status cg_data_grid(cg_kernel *k, int64_t items, const ir_target *t) {
  int64_t per_group = (int64_t)k->schedule.v[CG_DATA_KNOB_WG] * k->schedule.v[CG_DATA_KNOB_EPI];
  int64_t groups = items > 0 ? (items + per_group - 1) / per_group : 1;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  if (gx < 1) gx = 1;
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %lld workgroups exceed the grid of %s",
                            k->tmpl->name, (long long)groups, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}

vkml_status cg_data_axis(const ir_node *n, int rank, int64_t dflt, int *axis) {
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, dflt), rank, axis);
  if (s) return vkml_status_annotate(s, "%s", ir_op_name(n->op));
  return VKML_OK;
}

int cg_data_index_walk(const ir_type *x, const ir_type *ind, int axis, int64_t *axis_stride,
                       int64_t *md, int64_t *ms) {
  int64_t xs[IR_MAX_RANK] = {0}, run = 1;
  *axis_stride = 0;
  if (axis < 0 || axis >= x->rank) return 0;
  for (int d = x->rank - 1; d >= 0; d--) {
    xs[d] = run;
    run *= x->dims[d];
  }
  *axis_stride = xs[axis];
  int m = 0;
  for (int d = x->rank - 1; d >= 0; d--) {
    int64_t sd = d == axis ? 0 : xs[d];
    if (ind->dims[d] == 1) continue;
    if (m > 0 && sd == ms[m - 1] * md[m - 1] && sd != 0) {
      md[m - 1] *= ind->dims[d];
      continue;
    }
    md[m] = ind->dims[d];
    ms[m++] = sd;
  }
  return m;
}

vkml_status cg_data_spec_axes(cg_kernel *k, int n, const int64_t *dims, const int64_t *strides) {
  for (int i = 0; i < n; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_INDEX_AXES_D0 + (uint32_t)i, (uint32_t)dims[i]));
    VKML_RETURN_IF_ERROR(
        cg_kernel_spec(k, CG_SPEC_INDEX_AXES_S0 + (uint32_t)i, (uint32_t)strides[i]));
  }
  return VKML_OK;
}
