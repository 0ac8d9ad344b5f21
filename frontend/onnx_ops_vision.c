/* Converters for ONNX Resize/Upsample and the vision ops: TopK, CumSum,
 * NonMaxSuppression, RoiAlign, NonZero. */
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

static vkml_status enum_attr(onnx_ctx *c, onnx_node *n, const char *attr,
                             const char *dflt, ir_enum e, int *out) {
  const char *v = onnx_attr_s(c, n, attr, dflt);
  if (!ir_enum_from_name(e, v, strlen(v), out))
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s '%s'", attr, v);
  return VKML_OK;
}

/* Resize with scales (floats) or sizes (ints): exactly one non-empty. */
static vkml_status resize_emit(onnx_ctx *c, onnx_node *n, int mode, int coord,
                               int nearest, const float *scales, int n_scales,
                               const int64_t *sizes, int n_sizes) {
  int rank = n->in[0]->type.rank;
  if (n_scales > 0 && n_sizes > 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "both scales and sizes are given");
  if (n_scales <= 0 && n_sizes <= 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "neither scales nor sizes is given");
  if ((n_scales > 0 && n_scales != rank) || (n_sizes > 0 && n_sizes != rank))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s has %d values for rank %d",
                      n_scales > 0 ? "scales" : "sizes",
                      n_scales > 0 ? n_scales : n_sizes, rank);
  /* Output extents must stay representable (scales can be anything). */
  for (int i = 0; i < n_scales; i++) {
    double o = floor((double)n->in[0]->type.dims[i] * scales[i]);
    if (!(scales[i] > 0) || !(o <= (double)IR_MAX_ELEMENTS))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "scales[%d] = %g is out of range", i,
                        (double)scales[i]);
  }
  for (int i = 0; i < n_sizes; i++)
    if (sizes[i] < 0 || sizes[i] > IR_MAX_ELEMENTS)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "sizes[%d] = %lld is out of range", i,
                        (long long)sizes[i]);
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_RESIZE, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_RESIZE_MODE, mode));
  if (n_scales > 0)
    VKML_RETURN_IF_ERROR(ir_node_set_floats(c->g, nd, IR_A_SCALES, scales, n_scales));
  else
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_SIZES, sizes, n_sizes));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_COORD_MODE, coord));
  if (mode == IR_RESIZE_NEAREST)
    VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_NEAREST_MODE, nearest));
  if (mode == IR_RESIZE_CUBIC) {
    VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_CUBIC_COEFF_A,
                                           onnx_attr_f(n, "cubic_coeff_a", -0.75f)));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_EXCLUDE_OUTSIDE,
                                         onnx_attr_i(n, "exclude_outside", 0) != 0));
  }
  return onnx_done(c, n, nd);
}

/* "linear" and "bilinear" (Upsample-7) are the same N-linear mode. */
static vkml_status mode_attr(onnx_ctx *c, onnx_node *n, int *mode) {
  const char *m = onnx_attr_s(c, n, "mode", "nearest");
  if (strcmp(m, "bilinear") == 0) m = "linear";
  if (!ir_enum_from_name(IR_ENUM_RESIZE_MODE, m, strlen(m), mode))
    return onnx_error(VKML_CODE_UNSUPPORTED, "mode '%s'", m);
  return VKML_OK;
}

/* Resize-18's attributes: antialias (refused when on), axes (the scales or
 * sizes given for those axes only: the others keep their size), and
 * keep_aspect_ratio_policy (with sizes: not_larger / not_smaller take one
 * scale for the given axes, the smallest / largest of sizes / dims, and
 * size = round(scale * dim), as ONNX's reference does). */
static vkml_status resize18(onnx_ctx *c, onnx_node *n, float **scales, int *n_scales,
                            int64_t **sizes, int *n_sizes) {
  if (onnx_attr_i(n, "antialias", 0) != 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "Resize antialias");
  const ir_type *t = &n->in[0]->type;
  int rank = t->rank;
  const int64_t *ax;
  int n_ax = onnx_attr_ints(n, "axes", &ax);
  VKML_RETURN_IF_ERROR(n->err);
  int64_t axes[IR_MAX_RANK];
  if (n_ax < 0) {
    n_ax = rank;
    for (int i = 0; i < rank; i++) axes[i] = i;
  } else {
    if (n_ax > rank)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "axes has %d values for rank %d", n_ax, rank);
    for (int i = 0; i < n_ax; i++) {
      int64_t a = ax[i] < 0 ? ax[i] + rank : ax[i];
      if (a < 0 || a >= rank)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "axes[%d] = %lld for rank %d", i,
                          (long long)ax[i], rank);
      for (int j = 0; j < i; j++)
        if (axes[j] == a) return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld twice", (long long)a);
      axes[i] = a;
    }
  }
  const char *pol = onnx_attr_s(c, n, "keep_aspect_ratio_policy", "stretch");
  bool stretch = !strcmp(pol, "stretch"), smaller = !strcmp(pol, "not_smaller");
  if (!stretch && !smaller && strcmp(pol, "not_larger"))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "keep_aspect_ratio_policy '%s'", pol);
  if ((*n_scales > 0 && *n_scales != n_ax) || (*n_sizes > 0 && *n_sizes != n_ax))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s has %d values for %d axes",
                      *n_scales > 0 ? "scales" : "sizes", *n_scales > 0 ? *n_scales : *n_sizes,
                      n_ax);
  if (*n_sizes > 0 && !stretch) {
    double k = smaller ? 0 : INFINITY;
    for (int i = 0; i < n_ax; i++) {
      double r = (double)(*sizes)[i] / (double)t->dims[axes[i]];
      k = smaller ? fmax(k, r) : fmin(k, r);
    }
    for (int i = 0; i < n_ax; i++) (*sizes)[i] = (int64_t)nearbyint(k * (double)t->dims[axes[i]]);
  }
  if (n_ax == rank && axes[0] == 0) {
    bool identity = true;
    for (int i = 0; i < rank; i++) identity = identity && axes[i] == i;
    if (identity) return VKML_OK;
  }
  /* back to every axis, in order */
  if (*n_scales > 0) {
    float *full = onnx_alloc(c, sizeof *full * (size_t)rank);
    if (!full) return ir_oom(NULL);
    for (int i = 0; i < rank; i++) full[i] = 1.0f;
    for (int i = 0; i < n_ax; i++) full[axes[i]] = (*scales)[i];
    *scales = full;
    *n_scales = rank;
  }
  if (*n_sizes > 0) {
    int64_t *full = onnx_alloc(c, sizeof *full * (size_t)rank);
    if (!full) return ir_oom(NULL);
    for (int i = 0; i < rank; i++) full[i] = t->dims[i];
    for (int i = 0; i < n_ax; i++) full[axes[i]] = (*sizes)[i];
    *sizes = full;
    *n_sizes = rank;
  }
  return VKML_OK;
}

vkml_status onnx_convert_resize(onnx_ctx *c, onnx_node *n) {
  int mode, coord = IR_COORD_ASYMMETRIC, nearest = IR_NEAREST_FLOOR;
  VKML_RETURN_IF_ERROR(mode_attr(c, n, &mode));
  float *scales = NULL;
  int64_t *sizes = NULL;
  int n_scales = -1, n_sizes = -1;
  if (c->opset < 11) {
    /* Resize-10 is Upsample with scales as an input. */
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
    if (mode == IR_RESIZE_CUBIC)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "mode 'cubic' needs opset 11");
    VKML_RETURN_IF_ERROR(onnx_param_floats(c, n, 1, "scales", &scales, &n_scales));
  } else {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 4));
    const char *cm = onnx_attr_s(c, n, "coordinate_transformation_mode", "half_pixel");
    if (strcmp(cm, "tf_crop_and_resize") == 0)
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "Resize coordinate_transformation_mode 'tf_crop_and_resize'");
    if (!ir_enum_from_name(IR_ENUM_COORD_MODE, cm, strlen(cm), &coord) ||
        coord == IR_COORD_OUTPUT_HALF_PIXEL)
      return onnx_error(VKML_CODE_UNSUPPORTED, "coordinate_transformation_mode '%s'",
                        cm);
    VKML_RETURN_IF_ERROR(enum_attr(c, n, "nearest_mode", "round_prefer_floor",
                                   IR_ENUM_NEAREST_MODE, &nearest));
    if (onnx_has_input(n, 2))
      VKML_RETURN_IF_ERROR(onnx_param_floats(c, n, 2, "scales", &scales, &n_scales));
    if (onnx_has_input(n, 3))
      VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 3, "sizes", &sizes, &n_sizes));
  }
  if (c->opset >= 18)
    VKML_RETURN_IF_ERROR(resize18(c, n, &scales, &n_scales, &sizes, &n_sizes));
  return resize_emit(c, n, mode, coord, nearest, scales, n_scales, sizes, n_sizes);
}

vkml_status onnx_convert_upsample(onnx_ctx *c, onnx_node *n) {
  int mode;
  VKML_RETURN_IF_ERROR(mode_attr(c, n, &mode));
  if (mode == IR_RESIZE_CUBIC)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "Upsample has no mode 'cubic'");
  float *scales;
  int n_scales;
  if (c->opset < 9) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
    const float *s;
    n_scales = onnx_attr_floats(n, "scales", &s);
    if (n_scales < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'scales' is missing");
    scales = (float *)s;
  } else {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
    VKML_RETURN_IF_ERROR(onnx_param_floats(c, n, 1, "scales", &scales, &n_scales));
  }
  return resize_emit(c, n, mode, IR_COORD_ASYMMETRIC, IR_NEAREST_FLOOR, scales,
                     n_scales, NULL, -1);
}

/* TopK: k from the attribute (opset < 10) or input 1; a K computed at run
 * time stays an input (the outputs are then bounded). */
vkml_status onnx_convert_topk(onnx_ctx *c, onnx_node *n) {
  int rank = n->in[0] ? n->in[0]->type.rank : 0;
  int64_t axis = onnx_attr_i(n, "axis", -1);
  if (axis < -rank || axis >= rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                      (long long)axis, rank);
  if (axis < 0) axis += rank;
  ir_value *ins[2];
  int n_in = 1;
  int64_t k = -1;
  if (c->opset < 10) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
    if (!onnx_attr(n, "k"))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'k' is missing");
    k = onnx_attr_i(n, "k", 0);
  } else {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
    const onnx_sym *ks = n->in[1];
    if (ks->type.dtype != IR_I64 || ir_type_numel(&ks->type) != 1)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "K must be a one-element int64 "
                        "tensor");
    if (ks->is_const) {
      k = ir_dtype_load_i64(IR_I64, ks->data, 0);
    } else {
      VKML_RETURN_IF_ERROR(onnx_input(c, n, 1, &ins[1]));
      n_in = 2;
    }
  }
  if (n_in == 1 && (k < 0 || (rank > 0 && k > n->in[0]->type.dims[axis])))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "k = %lld out of range", (long long)k);
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &ins[0]));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_TOPK, ins, n_in, 2, true, &nd));
  if (n_in == 1) VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_K, k));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_LARGEST,
                                       onnx_attr_i(n, "largest", 1) != 0));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_SORTED,
                                       onnx_attr_i(n, "sorted", 1) != 0));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_cumsum(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  onnx_sym *as;
  VKML_RETURN_IF_ERROR(onnx_param(c, n, 1, "axis", &as));
  if (!ir_dtype_is_int(as->type.dtype) || ir_type_numel(&as->type) != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis must be one integer");
  int64_t axis = ir_dtype_load_i64(as->type.dtype, as->data, 0);
  int rank = n->in[0]->type.rank;
  if (axis < -rank || axis >= rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                      (long long)axis, rank);
  if (axis < 0) axis += rank;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_CUMSUM, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_EXCLUSIVE,
                                       onnx_attr_i(n, "exclusive", 0) != 0));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_REVERSE,
                                       onnx_attr_i(n, "reverse", 0) != 0));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_nms(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 5));
  double max_boxes = 0, iou = 0, score = 0;
  if (onnx_has_input(n, 2))
    VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 2, "max_output_boxes_per_class",
                                           &max_boxes));
  if (onnx_has_input(n, 3))
    VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 3, "iou_threshold", &iou));
  if (onnx_has_input(n, 4))
    VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 4, "score_threshold", &score));
  if (max_boxes < 0) max_boxes = 0;
  if (max_boxes > 1e15) max_boxes = 1e15;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_NON_MAX_SUPPRESSION, 2, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_CENTER_POINT_BOX,
                                       onnx_attr_i(n, "center_point_box", 0)));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_MAX_OUTPUT_BOXES,
                                       (int64_t)max_boxes));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_IOU_THRESHOLD, (float)iou));
  if (onnx_has_input(n, 4))
    VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_SCORE_THRESHOLD, (float)score));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_roi_align(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  int mode, coord = IR_COORD_OUTPUT_HALF_PIXEL;
  VKML_RETURN_IF_ERROR(enum_attr(c, n, "mode", "avg", IR_ENUM_ROI_MODE, &mode));
  if (c->opset >= 16) {
    const char *cm = onnx_attr_s(c, n, "coordinate_transformation_mode", "half_pixel");
    if (strcmp(cm, "half_pixel") == 0) coord = IR_COORD_HALF_PIXEL;
    else if (strcmp(cm, "output_half_pixel") == 0) coord = IR_COORD_OUTPUT_HALF_PIXEL;
    else return onnx_error(VKML_CODE_UNSUPPORTED,
                           "coordinate_transformation_mode '%s'", cm);
  }
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_ROI_ALIGN, 3, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_ROI_MODE, mode));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_OUTPUT_HEIGHT,
                                       onnx_attr_i(n, "output_height", 1)));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_OUTPUT_WIDTH,
                                       onnx_attr_i(n, "output_width", 1)));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_SAMPLING_RATIO,
                                       onnx_attr_i(n, "sampling_ratio", 0)));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_SPATIAL_SCALE,
                                         onnx_attr_f(n, "spatial_scale", 1.0f)));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_COORD_MODE, coord));
  return onnx_done(c, n, nd);
}

/* NonZero: the positions of the non-zero elements, i64[rank, <=numel]. */
vkml_status onnx_convert_nonzero(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  if (n->in[0]->type.rank == 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "NonZero of a scalar is not supported");
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_NON_ZERO, 1, &nd));
  return onnx_done(c, n, nd);
}
