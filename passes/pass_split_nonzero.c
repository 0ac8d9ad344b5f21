/* pass_split_nonzero: a non_zero on its way to the GPU becomes a
 * compaction through the scan (the integrated-GPU TVM paper's use of it):
 *
 *   flags = nonzero_flags x        i32[numel]: 1 where x is non-zero
 *   offs  = cumsum flags           exclusive: each non-zero's column
 *   out   = nonzero_write x, offs  the positions i64[rank, <=numel]; the
 *                                  count (last offset + last flag) read on
 *                                  the device and written as the bounded
 *                                  output's extent word
 *
 * The cumsum is split across workgroups by split_scan when it is long
 * (this pass runs before it). Only when the graph is being placed
 * (opts.place) and the callback lets the node run on the GPU (codegen's
 * cg_staged_reason). */
#include "passes/pass.h"

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_NON_ZERO || n->device == IR_DEVICE_CPU) return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

static vkml_status split(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *out = n->outputs[0];
  int64_t numel = ir_type_numel(&x->type);
  ir_type ft = ir_type_make(IR_I32, 1, &numel);
  const ir_type *types[1] = {&ft};
  const char *fsfx[1] = {".flags"}, *osfx[1] = {".offsets"};
  ir_node *flags, *scan, *write;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_NONZERO_FLAGS, &x, 1, out->name, types, fsfx,
                                        NULL, 1, &flags));
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_CUMSUM, &flags->outputs[0], 1, out->name,
                                        types, osfx, NULL, 1, &scan));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, scan, IR_A_AXIS, 0));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, scan, IR_A_EXCLUSIVE, 1));
  ir_value *wins[2] = {x, scan->outputs[0]}, *wouts[1] = {out};
  const ir_type *wtypes[1] = {&out->type};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_NONZERO_WRITE, wins, 2, out->name, wtypes,
                                        NULL, wouts, 1, &write));
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_nonzero(ir_graph *g, const pass_opts *opts, bool *changed) {
  return pass_rewrite_until_done(g, opts, wants_split, split, changed);
}
