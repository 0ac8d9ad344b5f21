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
 * Boxes [1,<=N,4] and scores [1,1,<=N] bounded along N (one row of a
 * run-time count of candidates: batched NMS) take the one-row chain of
 * codegen/glsl/nms_window.comp instead:
 *
 *   keys  = nms_keys boxes, scores           f32[1,2,N]
 *   order = argsort keys largest=1           i64[1,2,N]
 *   prep  = nms_prep boxes, scores, order    i32[5,N+1]
 *   s1    = nms_round prep, boxes, scores, order, prep    (NMS_ROUNDS times)
 *   s     = nms_settle sR, boxes, scores, order, prep
 *   out   = nms_finish s, boxes, scores, order, prep
 *
 * Only when the graph is being placed (opts.place) and the callback lets
 * the node run on the GPU (codegen's cg_staged_reason). */
#include "ir/infer.h"
#include "passes/pass.h"

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_NON_MAX_SUPPRESSION || n->device == IR_DEVICE_CPU) return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

/* Whole-GPU rounds before the settle per segment: each decides at least
 * the highest undecided box, most go in the first two (H100, run 13 of
 * bench/results/2026-11-26-h100-detection.md: 2 rounds and settle take
 * 0.5-1.8 ms in the four models, 4 rounds 0.8-2.2). */
enum { NMS_ROUNDS = 2 };

static vkml_status copy_attrs(ir_graph *g, const ir_node *from, ir_node *to) {
  static const ir_attr_id copied[] = {IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES,
                                      IR_A_IOU_THRESHOLD, IR_A_SCORE_THRESHOLD};
  for (unsigned i = 0; i < sizeof copied / sizeof copied[0]; i++) {
    const ir_attr *a = ir_node_attr(from, copied[i]);
    if (!a) continue;
    if (copied[i] == IR_A_IOU_THRESHOLD || copied[i] == IR_A_SCORE_THRESHOLD)
      VKML_RETURN_IF_ERROR(ir_node_set_float(g, to, copied[i], a->u.f));
    else
      VKML_RETURN_IF_ERROR(ir_node_set_int(g, to, copied[i], a->u.i));
  }
  return VKML_OK;
}

/* One stage before n: op over ins, its outputs typed by inference. */
static vkml_status stage(ir_graph *g, ir_node *n, ir_op op, ir_value *const *ins, int n_in,
                         const char *sfx, ir_value *const *outs, int n_out, ir_node **made) {
  ir_type in[5], out[1];
  for (int i = 0; i < n_in; i++) in[i] = ins[i]->type;
  /* attributes first: inference reads them (a bare node to hold them) */
  ir_node probe = {.op = op};
  probe.attrs = n->attrs, probe.n_attrs = n->n_attrs;
  VKML_RETURN_IF_ERROR(ir_op_get(op)->infer(&probe, in, out));
  const ir_type *types[1] = {&out[0]};
  const char *sfxs[1] = {sfx};
  VKML_RETURN_IF_ERROR(
      pass_node_insert(g, n, op, ins, n_in, n->outputs[0]->name, types, sfxs, outs, n_out, made));
  return copy_attrs(g, n, *made);
}

static vkml_status split_row(ir_graph *g, ir_node *n) {
  ir_value *boxes = n->inputs[0], *scores = n->inputs[1], *out = n->outputs[0];
  ir_node *keys, *sort, *prep, *round, *fin;
  ir_value *kin[2] = {boxes, scores};
  VKML_RETURN_IF_ERROR(stage(g, n, IR_OP_NMS_KEYS, kin, 2, ".keys", NULL, 1, &keys));
  const ir_type *otypes[1] = {&keys->outputs[0]->type};
  ir_type ot = *otypes[0];
  ot.dtype = IR_I64;
  otypes[0] = &ot;
  const char *osfx[1] = {".order"};
  VKML_RETURN_IF_ERROR(pass_node_insert(g, n, IR_OP_ARGSORT, &keys->outputs[0], 1, out->name,
                                        otypes, osfx, NULL, 1, &sort));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, sort, IR_A_LARGEST, 1));
  ir_value *order = sort->outputs[0];
  ir_value *pin[3] = {boxes, scores, order};
  VKML_RETURN_IF_ERROR(stage(g, n, IR_OP_NMS_PREP, pin, 3, ".prep", NULL, 1, &prep));
  ir_value *state = prep->outputs[0];
  for (int r = 0; r < NMS_ROUNDS; r++) {
    ir_value *rin[5] = {state, boxes, scores, order, prep->outputs[0]};
    VKML_RETURN_IF_ERROR(stage(g, n, IR_OP_NMS_ROUND, rin, 5, ".round", NULL, 1, &round));
    state = round->outputs[0];
  }
  ir_value *set_in[5] = {state, boxes, scores, order, prep->outputs[0]};
  ir_node *settle;
  VKML_RETURN_IF_ERROR(stage(g, n, IR_OP_NMS_SETTLE, set_in, 5, ".settled", NULL, 1, &settle));
  ir_value *fin_in[5] = {settle->outputs[0], boxes, scores, order, prep->outputs[0]};
  ir_value *fin_out[1] = {out};
  VKML_RETURN_IF_ERROR(stage(g, n, IR_OP_NMS_FINISH, fin_in, 5, NULL, fin_out, 1, &fin));
  ir_node_remove(g, n);
  return VKML_OK;
}

static vkml_status split(ir_graph *g, ir_node *n) {
  if (ir_nms_is_one_row(&n->inputs[0]->type, &n->inputs[1]->type)) return split_row(g, n);
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
  VKML_RETURN_IF_ERROR(copy_attrs(g, n, sel));
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
