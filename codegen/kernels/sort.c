/* The segmented argsort's stages on glsl/sort.comp (sort_block,
 * sort_merge, sort_index) and non_max_suppression's on glsl/nms.comp
 * (nms_select, nms_compact). argsort and non_max_suppression themselves
 * have no kernel: the passes split_sort and split_nms turn them into these
 * stages when the placement lets them run on the GPU (cg_staged_reason
 * says whether their stages can). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

const cg_template cg_sort_template = {
    .name = "sort",
    .glsl = "sort.comp",
    .n_knobs = 1,
    .knobs = {{"WG_SIZE", 5, {64, 128, 256, 512, 1024}}},
    .n_constraints = 2,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},
    .dflt = {{128}}, /* the most every Vulkan 1.1 device runs */
};

enum { SORT_BLOCK, SORT_MERGE, SORT_INDEX };

static vkml_status sort_stage(const ir_node *n, int stage, const cg_template *st,
                              const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_sort_template));
  VKML_RETURN_IF_ERROR(cg_check_stage_operands(n));
  const ir_type *x = &n->inputs[0]->type;
  bool offsets = n->n_inputs == 2;
  int dt = 0;
  if (stage == SORT_BLOCK) {
    dt = cg_sort_key_dtype(x->dtype);
    if (dt < 0)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "sort_block: %s keys stay on the CPU",
                              ir_dtype_name(x->dtype));
    if (dt == 1 && !t->storage_16bit)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "sort_block: f16 needs 16-bit storage, which %s lacks", t->name);
  }
  int64_t numel = stage == SORT_BLOCK ? ir_type_numel(x) : x->dims[1];
  int64_t len = 1, nseg = 1, width = ir_node_int(n, IR_A_WIDTH, 1), groups;
  if (offsets) nseg = n->inputs[1]->type.dims[0] - 1;
  if (stage == SORT_BLOCK) len = x->dims[x->rank - 1];
  if (stage == SORT_MERGE) len = ir_node_int(n, IR_A_ROW, 0);
  if (stage == SORT_INDEX && !offsets) {
    const int64_t *shape;
    int rank = ir_node_ints(n, IR_A_SHAPE, &shape);
    if (rank < 1) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "sort_index: no shape");
    len = shape[rank - 1];
  }
  if (!s) s = &cg_sort_template.dflt;
  int wg = s->v[0];
  if (stage == SORT_BLOCK) {
    uint64_t shared = (uint64_t)width * (dt == 3 ? 16 : 12);
    if (width < wg || width % wg)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "sort_block: a block of %lld is not a multiple of WG_SIZE %d",
                              (long long)width, wg);
    if (shared > t->max_shared_bytes)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "sort_block: a block of %lld needs %llu bytes of shared memory, "
                              "%s has %u",
                              (long long)width, (unsigned long long)shared, t->name,
                              (unsigned)t->max_shared_bytes);
  }
  VKML_RETURN_IF_ERROR(cg_kernel_begin(out, &cg_sort_template, s, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "STAGE", "%d", stage));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE", "%d", dt));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "OFFSETS", "%d", offsets));
  /* key words: two for i64 (the state's planes, less segment and position) */
  int keyw = stage == SORT_BLOCK ? (dt == 3 ? 2 : 1) : (int)x->dims[0] - 2;
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "KEYW", "%d", keyw));
  if (stage == SORT_BLOCK)
    VKML_RETURN_IF_ERROR(cg_kernel_define(out, "R", "%lld", (long long)(width / wg)));
  bool largest = ir_node_int(n, IR_A_LARGEST, 0) != 0;
  if (stage != SORT_MERGE && !len) len = 1; /* an empty row: nothing to do */
  const cg_spec_value specs[] = {
      {CG_SPEC_SORT_N, (uint32_t)numel}, {CG_SPEC_SORT_LEN, (uint32_t)len},
      {CG_SPEC_SORT_NSEG, (uint32_t)nseg}, {CG_SPEC_SORT_WIDTH, (uint32_t)width},
      {CG_SPEC_SORT_LARGEST, largest},
  };
  VKML_RETURN_IF_ERROR(CG_KERNEL_SPECS(out, specs));
  if (stage == SORT_BLOCK && !offsets) /* blocks from each row's start */
    groups = numel / len * ((len + width - 1) / width);
  else
    groups = (numel + (stage == SORT_BLOCK ? width : wg) - 1) / (stage == SORT_BLOCK ? width : wg);
  VKML_RETURN_IF_ERROR(cg_fold_grid(out, t, groups, CG_SPEC_SORT_GX, ir_op_name(n->op)));
  out->n_buffers = n->n_inputs + 1;
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{width=%lld,row=%lld,largest=%d}", (long long)width,
           (long long)(stage == SORT_MERGE ? len : 0), largest);
  cg_node_key(n, attrs, out->key, sizeof out->key);
  return VKML_OK;
}

vkml_status cg_node_sort_block(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return sort_stage(n, SORT_BLOCK, st, s, t, out);
}

vkml_status cg_node_sort_merge(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return sort_stage(n, SORT_MERGE, st, s, t, out);
}

vkml_status cg_node_sort_index(const ir_node *n, const cg_template *st, const cg_schedule *s,
                               const ir_target *t, cg_kernel *out) {
  return sort_stage(n, SORT_INDEX, st, s, t, out);
}

/* ---- non_max_suppression --------------------------------------------------- */

/* ---- the staged ops ----------------------------------------------------------- */
