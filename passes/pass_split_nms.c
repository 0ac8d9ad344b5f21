/* pass_split_nms: a non_max_suppression on its way to the GPU becomes
 *
 *   order = argsort scores largest=1   each (batch, class) row by score,
 *                                      descending (split again by split_sort)
 *   sel   = nms_select boxes, scores, order   the kept boxes per row, -1 after
 *   out   = nms_compact sel            the (batch, class, box) triples, the
 *                                      bounded output with its extent word
 *
 * with the node's attributes on nms_select. Ties in score keep the lower
 * box index first (the argsort is stable), as the CPU reference.
 *
 * Only when the graph is being placed (opts.place) and the callback lets
 * the node run on the GPU (codegen's cg_staged_reason). */
#include "passes/pass.h"

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_NON_MAX_SUPPRESSION || n->device == IR_DEVICE_CPU) return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

static vkml_status split(ir_graph *g, ir_node *n) {
  ir_value *boxes = n->inputs[0], *scores = n->inputs[1], *out = n->outputs[0];
  ir_type ot = scores->type;
  ot.dtype = IR_I64;
  const ir_type *otypes[1] = {&ot};
  const char *osfx[1] = {".order"};
  ir_node *sort;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_ARGSORT, &scores, 1, out->name, otypes,
                                        osfx, NULL, 1, &sort));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, sort, IR_A_LARGEST, 1));

  int64_t nb = boxes->type.dims[1], per = ir_node_int(n, IR_A_MAX_OUTPUT_BOXES, 0);
  if (per > nb) per = nb;
  if (per < 0) per = 0;
  int64_t sdims[3] = {scores->type.dims[0], scores->type.dims[1], per};
  ir_type stype = ir_type_make(IR_I32, 3, sdims);
  const ir_type *stypes[1] = {&stype};
  const char *ssfx[1] = {".selected"};
  ir_value *sins[3] = {boxes, scores, sort->outputs[0]};
  ir_node *sel;
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_NMS_SELECT, sins, 3, out->name, stypes, ssfx,
                                        NULL, 1, &sel));
  static const ir_attr_id copied[] = {IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES,
                                      IR_A_IOU_THRESHOLD, IR_A_SCORE_THRESHOLD};
  for (unsigned i = 0; i < sizeof copied / sizeof copied[0]; i++) {
    const ir_attr *a = ir_node_attr(n, copied[i]);
    if (!a) continue;
    if (copied[i] == IR_A_IOU_THRESHOLD || copied[i] == IR_A_SCORE_THRESHOLD)
      VKML_RETURN_IF_ERROR(ir_node_set_float(g, sel, copied[i], a->u.f));
    else
      VKML_RETURN_IF_ERROR(ir_node_set_int(g, sel, copied[i], a->u.i));
  }
  ir_node *compact;
  ir_value *couts[1] = {out};
  const ir_type *ctypes[1] = {&out->type};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_NMS_COMPACT, &sel->outputs[0], 1, out->name,
                                        ctypes, NULL, couts, 1, &compact));
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_nms(ir_graph *g, const pass_opts *opts, bool *changed) {
  return pass_rewrite_until_done(g, opts, wants_split, split, changed);
}
