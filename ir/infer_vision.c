/* Shape inference for vision ops: topk, cumsum, non_max_suppression and
 * roi_align. Data-dependent sizes come out as bounded types: a static
 * capacity on one axis, the actual count known at run time only. */
#include <math.h>

#include "infer.h"
#include "params.h"

vkml_status ir_infer_want_bit(const ir_node *n, ir_attr_id id, int64_t dflt) {
  int64_t v = ir_node_int(n, id, dflt);
  if (v == 0 || v == 1) return VKML_OK;
  return ir_infer_error("%s: %s is %lld, must be 0 or 1", ir_op_name(n->op),
                        ir_attr_name(id), (long long)v);
}

static vkml_status want_float(const ir_node *n, const char *what, ir_dtype d) {
  if (ir_dtype_is_float(d)) return VKML_OK;
  return ir_infer_error("%s: %s must be f32 or f16, got %s", ir_op_name(n->op),
                        what, ir_dtype_name(d));
}

static vkml_status want_shape(const ir_node *n, const char *what,
                              const ir_type *t, int rank, const int64_t *dims,
                              const char *spec) {
  bool ok = t->rank == rank;
  for (int i = 0; ok && i < rank; i++) ok = t->dims[i] == dims[i];
  if (ok) return VKML_OK;
  char s[200], w[200];
  ir_dims_format(t, s, sizeof s);
  ir_type e = ir_type_make(t->dtype, rank, dims);
  ir_dims_format(&e, w, sizeof w);
  return ir_infer_error("%s: %s is %s, expected %s %s", ir_op_name(n->op), what,
                        s, spec, w);
}

vkml_status ir_infer_topk(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0];
  if (x->dtype == IR_BOOL)
    return ir_infer_error("topk: input must be numeric, got bool");
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis);
  if (s) return vkml_status_annotate(s, "topk");
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_LARGEST, 1));
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_SORTED, 1));
  ir_type o = *x;
  if (n->n_inputs == 2) {
    const ir_type *k = &in[1];
    if (ir_node_attr(n, IR_A_K))
      return ir_infer_error("topk: k is given both as attribute and as input");
    if (k->dtype != IR_I64 || k->rank != 1 || k->dims[0] != 1 || k->bounded) {
      char sk[200];
      ir_dims_format(k, sk, sizeof sk);
      return ir_infer_error("topk: k input must be i64[1], got %s%s",
                            ir_dtype_name(k->dtype), sk);
    }
    /* k is known at run time only: capacity is the whole axis. */
    if (x->bounded && x->bounded_axis != axis)
      return ir_infer_error("topk: input is bounded along axis %d, and a "
                            "run-time k bounds axis %d", x->bounded_axis, axis);
    o.bounded = true;
    o.bounded_axis = axis;
    /* an upper bound of k known before the run (passes/pass_bound_topk.c) */
    const ir_attr *km = ir_node_attr(n, IR_A_K_MAX);
    if (km && km->u.i < 0)
      return ir_infer_error("topk: k_max is %lld, must be >= 0", (long long)km->u.i);
    if (km && km->u.i < o.dims[axis]) o.dims[axis] = km->u.i;
  } else {
    if (ir_node_attr(n, IR_A_K_MAX))
      return ir_infer_error("topk: k_max is for a run-time k");
    if (!ir_node_attr(n, IR_A_K))
      return ir_infer_error("topk: k is required (attribute or second input)");
    int64_t k = ir_node_int(n, IR_A_K, 0);
    if (k < 0 || k > x->dims[axis])
      return ir_infer_error("topk: k is %lld, must be in [0, %lld] (size of "
                            "axis %d)", (long long)k, (long long)x->dims[axis],
                            axis);
    o.dims[axis] = k;
  }
  out[0] = o;
  out[1] = o;
  out[1].dtype = IR_I64;
  return VKML_OK;
}

vkml_status ir_infer_cumsum(const ir_node *n, const ir_type *in, ir_type *out) {
  if (in[0].dtype == IR_BOOL)
    return ir_infer_error("cumsum: input must be numeric, got bool");
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), in[0].rank, &axis);
  if (s) return vkml_status_annotate(s, "cumsum");
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_EXCLUSIVE, 0));
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_REVERSE, 0));
  out[0] = in[0];
  return VKML_OK;
}

/* boxes [B,N,4] and scores [B,C,N] of one float dtype, and the attributes
 * of non_max_suppression (nms_select has them too). */
static vkml_status nms_check(const ir_node *n, const ir_type *boxes, const ir_type *scores) {
  VKML_RETURN_IF_ERROR(want_float(n, "boxes", boxes->dtype));
  if (scores->dtype != boxes->dtype)
    return ir_infer_error("%s: scores are %s, boxes are %s", ir_op_name(n->op),
                          ir_dtype_name(scores->dtype), ir_dtype_name(boxes->dtype));
  /* non_max_suppression takes boxes bounded along N (a run-time count of
   * candidates; the output's capacity from N's), and so do its one-row
   * stages (nms_keys ...); nms_select does not */
  bool along_n = (!boxes->bounded || boxes->bounded_axis == 1) &&
                 (!scores->bounded || scores->bounded_axis == 2);
  bool takes_bounded = n->op != IR_OP_NMS_SELECT;
  if ((boxes->bounded || scores->bounded) && (!takes_bounded || !along_n))
    return ir_infer_error("%s: bounded inputs are not supported%s", ir_op_name(n->op),
                          takes_bounded ? " (but along N)" : "");
  if (boxes->rank != 3 || boxes->dims[2] != 4) {
    char sb[200];
    ir_dims_format(boxes, sb, sizeof sb);
    return ir_infer_error("%s: boxes must be [B,N,4], got %s", ir_op_name(n->op), sb);
  }
  if (scores->rank != 3 || scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1]) {
    char sb[200], ss[200];
    ir_dims_format(boxes, sb, sizeof sb);
    ir_dims_format(scores, ss, sizeof ss);
    return ir_infer_error("%s: scores %s must be [B,C,N] with boxes %s", ir_op_name(n->op), ss,
                          sb);
  }
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_CENTER_POINT_BOX, 0));
  int64_t maxb = ir_node_int(n, IR_A_MAX_OUTPUT_BOXES, 0);
  if (maxb < 0)
    return ir_infer_error("%s: max_output_boxes_per_class is %lld, must be >= 0",
                          ir_op_name(n->op), (long long)maxb);
  float iou = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f);
  if (!(iou >= 0.0f && iou <= 1.0f))
    return ir_infer_error("%s: iou_threshold is %g, must be in [0, 1]", ir_op_name(n->op),
                          (double)iou);
  if (isnan(ir_node_float(n, IR_A_SCORE_THRESHOLD, 0.0f)))
    return ir_infer_error("%s: score_threshold is NaN", ir_op_name(n->op));
  return VKML_OK;
}

/* The boxes kept per (batch, class): max_output_boxes_per_class, at most N. */
static int64_t nms_per_class(const ir_node *n, int64_t n_boxes) {
  int64_t maxb = ir_node_int(n, IR_A_MAX_OUTPUT_BOXES, 0);
  return maxb < n_boxes ? maxb : n_boxes;
}

/* [<=cap, 3] i64: (batch, class, box) triples. */
static vkml_status nms_triples(const char *op, int64_t b, int64_t c, int64_t per, ir_type *out) {
  int64_t cap = 0;
  if (!ir_checked_mul(b, c, &cap) || !ir_checked_mul(cap, per, &cap))
    return ir_infer_error("%s: output capacity overflows", op);
  int64_t dims[2] = {cap, 3};
  *out = ir_type_make(IR_I64, 2, dims);
  out->bounded = true;
  out->bounded_axis = 0;
  return VKML_OK;
}

vkml_status ir_infer_non_max_suppression(const ir_node *n, const ir_type *in,
                                         ir_type *out) {
  VKML_RETURN_IF_ERROR(nms_check(n, &in[0], &in[1]));
  return nms_triples("non_max_suppression", in[1].dims[0], in[1].dims[1],
                     nms_per_class(n, in[0].dims[1]), &out[0]);
}

vkml_status ir_infer_nms_select(const ir_node *n, const ir_type *in, ir_type *out) {
  VKML_RETURN_IF_ERROR(nms_check(n, &in[0], &in[1]));
  const ir_type *order = &in[2];
  if (order->dtype != IR_I64 || order->bounded)
    return ir_infer_error("nms_select: order must be a static i64 tensor, got %s",
                          ir_dtype_name(order->dtype));
  VKML_RETURN_IF_ERROR(want_shape(n, "order", order, 3, in[1].dims, "(the scores' shape)"));
  int64_t dims[3] = {in[1].dims[0], in[1].dims[1], nms_per_class(n, in[0].dims[1])};
  out[0] = ir_type_make(IR_I32, 3, dims);
  return VKML_OK;
}

vkml_status ir_infer_nms_compact(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *sel = &in[0];
  if (sel->dtype != IR_I32 || sel->rank != 3 || sel->bounded) {
    char ss[200];
    ir_dims_format(sel, ss, sizeof ss);
    return ir_infer_error("nms_compact: input must be i32[B,C,M], got %s%s",
                          ir_dtype_name(sel->dtype), ss);
  }
  (void)n;
  return nms_triples("nms_compact", sel->dims[0], sel->dims[1], sel->dims[2], &out[0]);
}

bool ir_nms_is_one_row(const ir_type *b, const ir_type *s) {
  return b->rank == 3 && s->rank == 3 && b->bounded && b->bounded_axis == 1 && s->bounded &&
         s->bounded_axis == 2 && b->dims[0] == 1 && s->dims[0] == 1 && s->dims[1] == 1 &&
         b->dims[1] == s->dims[2];
}

/* The one-row NMS stages' boxes [1,<=N,4] and scores [1,1,<=N], bounded
 * along N, at `at` in the inputs; N in *cap. */
static vkml_status nms_row_check(const ir_node *n, const ir_type *in, int at, int64_t *cap) {
  const ir_type *b = &in[at], *s = &in[at + 1];
  VKML_RETURN_IF_ERROR(nms_check(n, b, s));
  /* bounded along N in a graph; at their actual size in a CPU run */
  if (b->dims[0] != 1 || s->dims[1] != 1 || (!ir_nms_is_one_row(b, s) && (b->bounded || s->bounded)))
    return ir_infer_error("%s: needs boxes [1,<=N,4] and scores [1,1,<=N]", ir_op_name(n->op));
  *cap = b->dims[1];
  if (*cap >= INT32_MAX / 4) return ir_infer_error("%s: too many boxes", ir_op_name(n->op));
  return VKML_OK;
}

/* order: the argsort of nms_keys, i64[1,2,N]; prep i32[5,N+1] */
static vkml_status nms_row_order(const ir_node *n, const ir_type *order, int64_t cap) {
  int64_t dims[3] = {1, 2, cap};
  if (order->bounded || order->dtype != IR_I64)
    return ir_infer_error("%s: order must be a static i64 tensor", ir_op_name(n->op));
  return want_shape(n, "order", order, 3, dims, "(nms_keys' argsort)");
}

vkml_status ir_infer_nms_keys(const ir_node *n, const ir_type *in, ir_type *out) {
  int64_t cap = 0;
  VKML_RETURN_IF_ERROR(nms_row_check(n, in, 0, &cap));
  int64_t dims[3] = {1, 2, cap};
  out[0] = ir_type_make(IR_F32, 3, dims);
  return VKML_OK;
}

vkml_status ir_infer_nms_prep(const ir_node *n, const ir_type *in, ir_type *out) {
  int64_t cap = 0;
  VKML_RETURN_IF_ERROR(nms_row_check(n, in, 0, &cap));
  VKML_RETURN_IF_ERROR(nms_row_order(n, &in[2], cap));
  int64_t dims[2] = {5, cap + 1};
  out[0] = ir_type_make(IR_I32, 2, dims);
  return VKML_OK;
}

/* round, settle and finish: state (prep's, or a round's i32[N]), boxes,
 * scores, order, prep */
static vkml_status nms_state_check(const ir_node *n, const ir_type *in, int64_t *cap) {
  VKML_RETURN_IF_ERROR(nms_row_check(n, in, 1, cap));
  VKML_RETURN_IF_ERROR(nms_row_order(n, &in[3], *cap));
  int64_t pdims[2] = {5, *cap + 1}, sdims[1] = {*cap};
  VKML_RETURN_IF_ERROR(want_shape(n, "prep", &in[4], 2, pdims, "(nms_prep's)"));
  const ir_type *st = &in[0];
  bool is_prep = st->rank == 2;
  if (st->dtype != IR_I32 || in[4].dtype != IR_I32 || st->bounded || in[4].bounded)
    return ir_infer_error("%s: state and prep must be static i32 tensors", ir_op_name(n->op));
  return want_shape(n, "state", st, is_prep ? 2 : 1, is_prep ? pdims : sdims,
                    "(nms_prep's or a round's)");
}

vkml_status ir_infer_nms_round(const ir_node *n, const ir_type *in, ir_type *out) {
  int64_t cap = 0;
  VKML_RETURN_IF_ERROR(nms_state_check(n, in, &cap));
  /* settle works in place on a copy of its state input */
  if (n->op == IR_OP_NMS_SETTLE && in[0].rank != 1)
    return ir_infer_error("nms_settle: state must be a round's i32[N]");
  int64_t dims[1] = {cap};
  out[0] = ir_type_make(IR_I32, 1, dims);
  return VKML_OK;
}

vkml_status ir_infer_nms_finish(const ir_node *n, const ir_type *in, ir_type *out) {
  int64_t cap = 0;
  VKML_RETURN_IF_ERROR(nms_state_check(n, in, &cap));
  return nms_triples("nms_finish", 1, 1, nms_per_class(n, cap), &out[0]);
}

vkml_status ir_infer_roi_align(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *rois = &in[1], *bi = &in[2];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  if (x->rank != 4) {
    char sx[200];
    ir_dims_format(x, sx, sizeof sx);
    return ir_infer_error("roi_align: input must be [N,C,H,W], got %s", sx);
  }
  if (x->bounded)
    return ir_infer_error("roi_align: input is bounded; this op needs static sizes");
  if (rois->dtype != x->dtype)
    return ir_infer_error("roi_align: rois are %s, input is %s",
                          ir_dtype_name(rois->dtype), ir_dtype_name(x->dtype));
  if (rois->rank != 2 || rois->dims[1] != 4) {
    char sr[200];
    ir_dims_format(rois, sr, sizeof sr);
    return ir_infer_error("roi_align: rois must be [R,4], got %s", sr);
  }
  int64_t r = rois->dims[0];
  if (bi->dtype != IR_I64 && bi->dtype != IR_I32)
    return ir_infer_error("roi_align: batch_indices must be i64 or i32, got %s",
                          ir_dtype_name(bi->dtype));
  VKML_RETURN_IF_ERROR(want_shape(n, "batch_indices", bi, 1, &r, "[R] ="));
  if ((rois->bounded && rois->bounded_axis != 0) ||
      (bi->bounded && bi->bounded_axis != 0))
    return ir_infer_error("roi_align: rois may be bounded along axis 0 only");
  int64_t oh = ir_node_int(n, IR_A_OUTPUT_HEIGHT, 1);
  int64_t ow = ir_node_int(n, IR_A_OUTPUT_WIDTH, 1);
  if (oh < 1 || ow < 1 || oh > IR_MAX_ELEMENTS || ow > IR_MAX_ELEMENTS)
    return ir_infer_error("roi_align: output_height and output_width must be "
                          ">= 1, got %lld and %lld", (long long)oh, (long long)ow);
  int64_t sr = ir_node_int(n, IR_A_SAMPLING_RATIO, 0);
  if (sr < 0)
    return ir_infer_error("roi_align: sampling_ratio is %lld, must be >= 0",
                          (long long)sr);
  float sc = ir_node_float(n, IR_A_SPATIAL_SCALE, 1.0f);
  if (!isfinite(sc))
    return ir_infer_error("roi_align: spatial_scale must be finite");
  int64_t cm = ir_node_int(n, IR_A_COORD_MODE, IR_COORD_HALF_PIXEL);
  if (cm != IR_COORD_HALF_PIXEL && cm != IR_COORD_OUTPUT_HALF_PIXEL)
    return ir_infer_error("roi_align: coordinate_transformation_mode must be "
                          "half_pixel or output_half_pixel");
  int64_t dims[4] = {r, x->dims[1], oh, ow};
  out[0] = ir_type_make(x->dtype, 4, dims);
  if (rois->bounded || bi->bounded) {
    out[0].bounded = true;
    out[0].bounded_axis = 0;
  }
  return VKML_OK;
}

vkml_status ir_infer_grid_sample(const ir_node *n, const ir_type *in, ir_type *out) {
  const ir_type *x = &in[0], *grid = &in[1];
  VKML_RETURN_IF_ERROR(want_float(n, "input", x->dtype));
  if (grid->dtype != x->dtype)
    return ir_infer_error("grid_sample: grid is %s, input is %s", ir_dtype_name(grid->dtype),
                          ir_dtype_name(x->dtype));
  if (x->bounded || grid->bounded)
    return ir_infer_error("grid_sample: bounded operands; this op needs static sizes");
  if (x->rank != 4 || grid->rank != 4 || grid->dims[0] != x->dims[0] || grid->dims[3] != 2) {
    char sx[200], sg[200];
    ir_dims_format(x, sx, sizeof sx);
    ir_dims_format(grid, sg, sizeof sg);
    return ir_infer_error("grid_sample: input must be [N,C,H,W] and grid [N,Ho,Wo,2], got %s "
                          "and %s", sx, sg);
  }
  VKML_RETURN_IF_ERROR(ir_infer_want_bit(n, IR_A_ALIGN_CORNERS, 0));
  int64_t d[4] = {x->dims[0], x->dims[1], grid->dims[1], grid->dims[2]};
  out[0] = ir_type_make(x->dtype, 4, d);
  return VKML_OK;
}

