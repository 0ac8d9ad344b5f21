/* pass_split_sort: an argsort on its way to the GPU becomes the segmented
 * sort of the integrated-GPU TVM paper, in stages over a sort state
 * i32[3,n] (segment, order key, position of every element; i32[4,n] with the
 * two words of an i64 key):
 *
 *   st0 = sort_block x [offsets]   blocks of W elements sorted, a workgroup each
 *   st1 = sort_merge st0 width=W   runs of W merged in pairs into runs of 2W
 *   ...   sort_merge width=2W, 4W, ... until one run holds every segment
 *   y   = sort_index st [offsets]  positions as indices within their segments
 *
 * Ragged segments (offsets) need no padding: a segment that spans a run
 * boundary is merged, the others are copied where they are; the rounds go
 * on until a run covers the whole array. Rows (no offsets) have their
 * blocks and runs start at each row's start (merge attribute row), so the
 * rounds stop once a run covers a row: 4 rounds for rows of 8732 however
 * many rows, where runs over the whole array would take 10 for 91 rows.
 *
 * Only when the graph is being placed (opts.place) and the callback lets
 * the argsort run on the GPU (codegen's cg_staged_reason). */
#include <stdio.h>

#include "passes/pass.h"

#define BLOCK_MAX 1024 /* 12 KiB of shared memory: every Vulkan device */
#define BLOCK_MIN 256  /* a few invocations of every workgroup size up to 256 */

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_ARGSORT || n->device == IR_DEVICE_CPU) return false;
  ir_dtype d = n->inputs[0]->type.dtype; /* the stages' order keys */
  if (d != IR_F32 && d != IR_F16 && d != IR_I32 && d != IR_I64) return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

/* The block: the segment's length (rows) or the array's rounded up to a
 * power of two, in [BLOCK_MIN, BLOCK_MAX]. */
static int64_t block_of(int64_t n) {
  int64_t w = BLOCK_MIN;
  while (w < n && w < BLOCK_MAX) w *= 2;
  return w;
}


static vkml_status split(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *offs = n->n_inputs == 2 ? n->inputs[1] : NULL;
  ir_value *y = n->outputs[0];
  int64_t numel = ir_type_numel(&x->type), len = x->type.dims[x->type.rank - 1];
  int64_t row = offs ? 0 : len, w = block_of(offs ? numel : len);
  int64_t sdims[2] = {x->type.dtype == IR_I64 ? 4 : 3, numel}; /* i64: two key planes */
  ir_type st = ir_type_make(IR_I32, 2, sdims);
  const ir_type *types[1] = {&st};
  char sfx[32];
  const char *sfxs[1] = {sfx};
  ir_value *ins[2] = {x, offs};
  ir_node *blk;
  snprintf(sfx, sizeof sfx, ".sorted%lld", (long long)w);
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_SORT_BLOCK, ins, offs ? 2 : 1, y->name,
                                        types, sfxs, NULL, 1, &blk));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, blk, IR_A_LARGEST, ir_node_int(n, IR_A_LARGEST, 0)));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, blk, IR_A_WIDTH, w));
  ir_value *cur = blk->outputs[0];
  for (int64_t until = offs ? numel : len; w < until; w *= 2) {
    ir_node *m;
    snprintf(sfx, sizeof sfx, ".sorted%lld", (long long)(2 * w));
    VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_SORT_MERGE, &cur, 1, y->name, types,
                                          sfxs, NULL, 1, &m));
    VKML_RETURN_IF_ERROR(ir_node_set_int(g, m, IR_A_WIDTH, w));
    if (row) VKML_RETURN_IF_ERROR(ir_node_set_int(g, m, IR_A_ROW, row));
    cur = m->outputs[0];
  }
  ir_node *idx;
  ir_value *iins[2] = {cur, offs}, *outs[1] = {y};
  const ir_type *ytypes[1] = {&y->type};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_SORT_INDEX, iins, offs ? 2 : 1, y->name,
                                        ytypes, NULL, outs, 1, &idx));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, idx, IR_A_SHAPE, x->type.dims, x->type.rank));
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_sort(ir_graph *g, const pass_opts *opts, bool *changed) {
  return pass_rewrite_until_done(g, opts, wants_split, split, changed);
}
