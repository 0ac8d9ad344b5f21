/* topk on glsl/topk.comp: a static k up to what shared memory holds, or a
 * run-time k read on the device. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/bounds.h"
#include "ir/params.h"

const cg_template cg_topk_template = {
    .name = "topk",
    .glsl = "topk.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 5, {64, 128, 256, 512, 1024}}},
    .n_constraints = 3,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1},
                    /* the scan rows; the candidates are checked per workload */
                    {CG_LIMIT_SHARED_BYTES, 1u << 0, 8}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

/* ---- topk ---------------------------------------------------------------------- */

/* topk with k an input (one row): K, the bound of k known at compile time
 * (ir/bounds.h) and at most the row's capacity. */
static vkml_status topk_runtime_k(const ir_node *n, int axis, int64_t *k_bound) {
  const ir_type *x = &n->inputs[0]->type, *kt = &n->inputs[1]->type;
  const ir_type *vt = &n->outputs[0]->type, *it = &n->outputs[1]->type;
  if (kt->dtype != IR_I64 || ir_type_numel(kt) != 1 || kt->bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "topk: a run-time k on the GPU is one i64");
  for (int d = 0; d < x->rank; d++)
    if (d != axis && x->dims[d] != 1)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "topk: a run-time k runs on the GPU for one row only");
  if ((x->bounded && x->bounded_axis != axis) || !vt->bounded || vt->bounded_axis != axis ||
      !it->bounded || it->bounded_axis != axis)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: bounded along another axis than the selection's");
  int64_t hi;
  if (ir_int_upper_bounds(n->inputs[1], &hi, 1) != 1)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: no bound of the run-time k is known before the run (it "
                            "sizes the GPU kernel)");
  /* the outputs' capacity (k_max: passes/pass_bound_topk.c) caps it too; a
   * run-time k above K is an error the kernel reports */
  *k_bound = hi < 0 ? 0 : hi < x->dims[axis] ? hi : x->dims[axis];
  if (*k_bound > vt->dims[axis]) *k_bound = vt->dims[axis];
  return VKML_OK;
}

/* On a GPU, rows up to TOPK_FEW_ROWS of at least TOPK_WIDE_LEN elements
 * take the widest workgroup (see cg_node_topk). */
#define TOPK_FEW_ROWS 64
#define TOPK_WIDE_LEN 2048

vkml_status cg_node_topk(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_topk_template));
  bool runtime_k = n->n_inputs == 2;
  if ((n->n_inputs != 1 && !runtime_k) || n->n_outputs != 2)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk: %d inputs, %d outputs",
                            n->n_inputs, n->n_outputs);
  const ir_value *xv = n->inputs[0], *vv = n->outputs[0], *iv = n->outputs[1];
  const ir_type *x = &xv->type, *vt = &vv->type, *it = &iv->type;
  int dt = x->dtype == IR_F32 ? 0 : x->dtype == IR_F16 ? 1 : x->dtype == IR_I32 ? 2 : -1;
  if (dt < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "topk: %s is not f32, f16 or i32 on the GPU",
                            ir_dtype_name(x->dtype));
  if (dt == 1 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: f16 needs 16-bit storage, which %s lacks", t->name);
  if ((!runtime_k && (x->bounded || vt->bounded || it->bounded)) ||
      xv->layout != IR_LAYOUT_DEFAULT || vv->layout != IR_LAYOUT_DEFAULT ||
      iv->layout != IR_LAYOUT_DEFAULT)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: bounded tensors or packed layouts stay on the CPU");
  if (x->rank == 0) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk of a scalar");
  int axis;
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis));
  const ir_attr *ka = ir_node_attr(n, IR_A_K);
  int64_t k = 0, len = x->dims[axis];
  if (runtime_k)
    VKML_RETURN_IF_ERROR(topk_runtime_k(n, axis, &k));
  else if (!ka)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk needs k");
  else
    k = ka->u.i;
  if (k < 0 || k > len)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk: k = %lld outside [0, %lld]",
                            (long long)k, (long long)len);
  bool shape_ok = vt->dtype == x->dtype && it->dtype == IR_I64 && vt->rank == x->rank &&
                  it->rank == x->rank;
  int64_t cap = len; /* a run-time k's outputs: the axis, or k_max */
  const ir_attr *km = ir_node_attr(n, IR_A_K_MAX);
  if (km && km->u.i < cap) cap = km->u.i;
  for (int i = 0; shape_ok && i < x->rank; i++)
    shape_ok = vt->dims[i] == (i == axis ? (runtime_k ? cap : k) : x->dims[i]) &&
               it->dims[i] == vt->dims[i];
  if (!shape_ok)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "topk: output types do not match");
  if (ir_type_numel(x) >= (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "topk: 2^31 elements or more");
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; i++) outer *= x->dims[i];
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  int64_t rows = outer * inner;
  cg_schedule wide;
  if (!s) {
    s = &cg_topk_template.dflt;
    /* a few long rows (a detector's candidates): each workgroup streams its
     * row five times, so the widest workgroup the device allows keeps the
     * most loads in flight (a tuned schedule overrides). On a GPU, fewer
     * rows than workgroups it runs at once (the stages of a split TopK:
     * tens of blocks, then one row of their candidates) leave it idle while
     * a narrow workgroup walks its barriers: wide there too. */
    if ((rows <= 8 && len >= 65536) ||
        (ir_target_is_gpu(t) && rows <= TOPK_FEW_ROWS && len >= TOPK_WIDE_LEN)) {
      cg_schedule_widest(&cg_topk_template, t, &wide);
      s = &wide;
    }
  }
  int wg = s->v[0];
  /* the candidates, sorted in shared memory: k up to what it holds (larger
   * k needs the segmented sort) */
  int64_t p = 1;
  while (p < k) p *= 2;
  uint64_t shared = (uint64_t)p * 8 + 3 * 256 * 4 + (uint64_t)wg * 8 + 16;
  if (shared > t->max_shared_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "topk: k = %lld needs %llu bytes of shared memory, %s has %u", (long long)k,
                            (unsigned long long)shared, t->name, (unsigned)t->max_shared_bytes);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_topk_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE", "%d", dt));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "P", "%lld", (long long)p));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "RUNTIME_K", "%d", runtime_k));
  bool largest = ir_node_int(n, IR_A_LARGEST, 1) != 0;
  const cg_spec_value specs[] = {
      {CG_SPEC_TOPK_ROWS, (uint32_t)rows}, {CG_SPEC_TOPK_LEN, (uint32_t)len},
      {CG_SPEC_TOPK_INNER, (uint32_t)inner}, {CG_SPEC_TOPK_K, (uint32_t)k},
      {CG_SPEC_TOPK_LARGEST, largest},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, rows, CG_SPEC_TOPK_GX, "topk"));
  out->n_buffers = runtime_k ? 5 : 3;
  out->error_slot = runtime_k;
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{k=%lld,axis=%d,largest=%d}", (long long)k, axis, largest);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}
