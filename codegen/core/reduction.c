/* The row kernels' mapping (reduction.h): rows over merged axes, lanes per row,
 * vector width, subgroup use, grid. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/reduction.h"
#include "codegen/core/spec.h"
/* ---- shared helpers ------------------------------------------------------ */

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
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_LANES, (uint32_t)plan->lanes));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_LANES_FAST, m->lanes_fast));

  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_O, (uint32_t)m->n_rows));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_L, (uint32_t)m->len));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_NK, (uint32_t)m->nk));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_NR, (uint32_t)m->nr));
  for (int i = 0; i < m->nk; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_KD0 + (uint32_t)i, (uint32_t)m->kd[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_KS0 + (uint32_t)i, (uint32_t)m->ks[i]));
  }
  for (int i = 0; i < m->nr; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_RD0 + (uint32_t)i, (uint32_t)m->rd[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ROWMAP_RS0 + (uint32_t)i, (uint32_t)m->rs[i]));
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
