/* Converters for ONNX neural-network ops: Conv, ConvTranspose (1-D through a
 * unit H axis, auto_pad resolved to explicit pads; 3-D lowered to 2-D ops in
 * onnx_conv3d.c), Gemm, MatMul, the normalisations, pools and
 * Softmax/LogSoftmax. Resize lives in onnx_ops_vision.c. */
#include <string.h>

#include "onnx_internal.h"

/* The 2-D IR attributes of a 1-D or 2-D conv or pool (a 1-D op gets H = 1). */
typedef struct spatial {
  int sp; /* spatial axes in the ONNX op: 1 or 2 */
  int64_t kernel[2], strides[2], dilations[2], pads[4]; /* top left bottom right */
} spatial;

static vkml_status spatial_rank(const onnx_node *n, const ir_type *x, int *sp) {
  if (x->rank < 3 || x->rank > 5)
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "%s input must be 3-D, 4-D or 5-D [N,C,...], not rank %d",
                      n->op->name, x->rank);
  *sp = x->rank - 2;
  return VKML_OK;
}

/* Kernel extents, strides, dilations and pads beyond this are refused, so
 * that size arithmetic cannot overflow. */
#define SPATIAL_MAX (INT64_C(1) << 24)

/* A list attribute of exactly sp (or 2*sp for pads) values, or dflt. */
static vkml_status list_attr(onnx_node *n, const char *name, int want,
                             int64_t dflt, int64_t *out) {
  const int64_t *v;
  int cnt = onnx_attr_ints(n, name, &v);
  for (int i = 0; i < want; i++) out[i] = dflt;
  if (cnt < 0) return VKML_OK;
  if (cnt != want)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute '%s' has %d values, "
                      "expected %d", name, cnt, want);
  for (int i = 0; i < want; i++) {
    if (v[i] < -SPATIAL_MAX || v[i] > SPATIAL_MAX)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute '%s' value %lld is out "
                        "of range", name, (long long)v[i]);
    out[i] = v[i];
  }
  return VKML_OK;
}

/* Reads strides, dilations, pads and auto_pad (resolved against x's spatial
 * extents) for a kernel k[] already known, per ONNX spatial axis. */
static vkml_status spatial_get(onnx_ctx *c, onnx_node *n, const ir_type *x,
                               int sp, const int64_t *k, bool has_dilations,
                               onnx_spatial *out) {
  int64_t *s = out->strides, *d = out->dilations, *p = out->pads;
  VKML_RETURN_IF_ERROR(list_attr(n, "strides", sp, 1, s));
  VKML_RETURN_IF_ERROR(list_attr(n, "dilations", sp, 1, d));
  if (!has_dilations && onnx_attr(n, "dilations"))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s has no attribute 'dilations' "
                      "at opset %lld", n->op->name, (long long)c->opset);
  VKML_RETURN_IF_ERROR(list_attr(n, "pads", 2 * sp, 0, p));
  for (int i = 0; i < sp; i++) {
    if (s[i] < 1 || d[i] < 1 || k[i] < 1)
      return onnx_error(VKML_CODE_INVALID_GRAPH,
                        "kernel, strides and dilations must be >= 1");
  }
  for (int i = 0; i < 2 * sp; i++)
    if (p[i] < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "pads must be >= 0");
  const char *ap = onnx_attr_s(c, n, "auto_pad", "NOTSET");
  bool upper = strcmp(ap, "SAME_UPPER") == 0, lower = strcmp(ap, "SAME_LOWER") == 0;
  if (upper || lower || strcmp(ap, "VALID") == 0) {
    for (int i = 0; i < sp; i++) {
      int64_t in = x->dims[2 + i], keff = (k[i] - 1) * d[i] + 1, total = 0;
      if (upper || lower) {
        int64_t o = (in + s[i] - 1) / s[i];
        total = (o - 1) * s[i] + keff - in;
        if (total < 0) total = 0;
      }
      p[i] = lower ? (total + 1) / 2 : total / 2;
      p[sp + i] = total - p[i];
    }
  } else if (strcmp(ap, "NOTSET") != 0) {
    return onnx_error(VKML_CODE_INVALID_GRAPH, "unknown auto_pad '%s'", ap);
  }
  out->sp = sp;
  for (int i = 0; i < sp; i++) out->kernel[i] = k[i];
  return VKML_OK;
}

/* The 2-D IR form of a 1-D or 2-D op's attributes. */
static void spatial_2d(const onnx_spatial *in, spatial *out) {
  int sp = in->sp, o = 2 - sp; /* 1-D: the W axis carries the data */
  out->sp = sp;
  for (int i = 0; i < 2; i++) {
    out->kernel[i] = 1;
    out->strides[i] = 1;
    out->dilations[i] = 1;
    out->pads[i] = out->pads[2 + i] = 0;
  }
  for (int i = 0; i < sp; i++) {
    out->kernel[o + i] = in->kernel[i];
    out->strides[o + i] = in->strides[i];
    out->dilations[o + i] = in->dilations[i];
    out->pads[o + i] = in->pads[i];
    out->pads[2 + o + i] = in->pads[sp + i];
  }
}

/* x [N,C,L] -> [N,C,1,L] for 1-D ops (constants are retyped, not copied). */
static vkml_status to_2d(onnx_ctx *c, onnx_node *n, int i, ir_value **out) {
  const ir_type *t = &n->in[i]->type;
  int64_t dims[4] = {t->dims[0], t->dims[1], 1, t->dims[2]};
  return onnx_input_reshaped(c, n, i, 4, dims, out);
}

/* Finishes a node built on 2-D values: for a 1-D op drops the unit H axis of
 * output 0 again. */
static vkml_status finish_spatial(onnx_ctx *c, onnx_node *n, ir_node *nd, int sp) {
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  ir_value *y = nd->outputs[0];
  if (sp == 1) {
    int64_t dims[3] = {y->type.dims[0], y->type.dims[1], y->type.dims[3]};
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, 3, dims, true, &y));
  }
  return onnx_bind(c, n, 0, y);
}

static vkml_status set_spatial(onnx_ctx *c, ir_node *nd, const spatial *sp,
                               bool kernel, bool dilations) {
  if (kernel) VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_KERNEL, sp->kernel, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STRIDES, sp->strides, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PADS, sp->pads, 4));
  if (dilations)
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_DILATIONS, sp->dilations, 2));
  return VKML_OK;
}

/* The kernel extent from the weight, checked against kernel_shape. */
static vkml_status weight_kernel(onnx_node *n, const ir_type *x, const ir_type *w,
                                 int sp, int64_t *k) {
  if (w->rank != x->rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "weight has rank %d, input rank %d",
                      w->rank, x->rank);
  int64_t ks[3];
  for (int i = 0; i < sp; i++) k[i] = w->dims[2 + i];
  if (onnx_attr(n, "kernel_shape")) {
    VKML_RETURN_IF_ERROR(list_attr(n, "kernel_shape", sp, 0, ks));
    for (int i = 0; i < sp; i++)
      if (ks[i] != k[i])
        return onnx_error(VKML_CODE_INVALID_GRAPH,
                          "kernel_shape %lld differs from the weight's %lld",
                          (long long)ks[i], (long long)k[i]);
  }
  return VKML_OK;
}

static vkml_status conv_inputs(onnx_ctx *c, onnx_node *n, int sp, ir_value **ins) {
  if (sp == 1) {
    VKML_RETURN_IF_ERROR(to_2d(c, n, 0, &ins[0]));
    VKML_RETURN_IF_ERROR(to_2d(c, n, 1, &ins[1]));
  } else {
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &ins[0]));
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 1, &ins[1]));
  }
  if (onnx_has_input(n, 2)) VKML_RETURN_IF_ERROR(onnx_input(c, n, 2, &ins[2]));
  return VKML_OK;
}

/* A Conv's IR node on given values x and w (1-D or 2-D), n's attributes
 * (strides, dilations, pads, auto_pad, kernel_shape against w) and group. */
vkml_status onnx_conv_on(onnx_ctx *c, onnx_node *n, ir_value *x, ir_value *w, int64_t group,
                         ir_value **out) {
  int sp = 2;
  int64_t k[3];
  onnx_spatial os;
  spatial s;
  VKML_RETURN_IF_ERROR(spatial_rank(n, &x->type, &sp));
  VKML_RETURN_IF_ERROR(weight_kernel(n, &x->type, &w->type, sp, k));
  VKML_RETURN_IF_ERROR(spatial_get(c, n, &x->type, sp, k, true, &os));
  if (sp == 3)
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s over 3 spatial axes (1-D and 2-D are imported)",
                      n->op->name);
  spatial_2d(&os, &s);
  ir_value *ins[2] = {x, w};
  if (sp == 1)
    for (int i = 0; i < 2; i++) {
      const ir_type *t = &ins[i]->type;
      int64_t dims[4] = {t->dims[0], t->dims[1], 1, t->dims[2]};
      VKML_RETURN_IF_ERROR(onnx_reshape(c, n, ins[i], 4, dims, false, &ins[i]));
    }
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONV2D, ins, 2, 1, false, &nd));
  VKML_RETURN_IF_ERROR(set_spatial(c, nd, &s, false, true));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_GROUP, group));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  ir_value *y = nd->outputs[0];
  if (sp == 1) {
    int64_t dims[3] = {y->type.dims[0], y->type.dims[1], y->type.dims[3]};
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, 3, dims, false, &y));
  }
  *out = y;
  return VKML_OK;
}

vkml_status onnx_convert_conv(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  const ir_type *x = &n->in[0]->type, *w = &n->in[1]->type;
  int sp = 2;
  int64_t k[3];
  onnx_spatial os;
  spatial s;
  VKML_RETURN_IF_ERROR(spatial_rank(n, x, &sp));
  VKML_RETURN_IF_ERROR(weight_kernel(n, x, w, sp, k));
  VKML_RETURN_IF_ERROR(spatial_get(c, n, x, sp, k, true, &os));
  int64_t group = onnx_attr_i(n, "group", 1);
  if (sp == 3) return onnx_conv3d(c, n, &os, group);
  spatial_2d(&os, &s);
  ir_value *ins[3];
  VKML_RETURN_IF_ERROR(conv_inputs(c, n, sp, ins));
  int n_in = onnx_has_input(n, 2) ? 3 : 2;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONV2D, ins, n_in, 1, sp == 2, &nd));
  VKML_RETURN_IF_ERROR(set_spatial(c, nd, &s, false, true));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_GROUP, group));
  return finish_spatial(c, n, nd, sp);
}

vkml_status onnx_convert_conv_transpose(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  const ir_type *x = &n->in[0]->type, *w = &n->in[1]->type;
  int sp = 2;
  int64_t k[3], s[3], d[3], p[6], op[3], os[3];
  VKML_RETURN_IF_ERROR(spatial_rank(n, x, &sp));
  VKML_RETURN_IF_ERROR(weight_kernel(n, x, w, sp, k));
  VKML_RETURN_IF_ERROR(list_attr(n, "strides", sp, 1, s));
  VKML_RETURN_IF_ERROR(list_attr(n, "dilations", sp, 1, d));
  VKML_RETURN_IF_ERROR(list_attr(n, "pads", 2 * sp, 0, p));
  VKML_RETURN_IF_ERROR(list_attr(n, "output_padding", sp, 0, op));
  for (int i = 0; i < sp; i++)
    if (s[i] < 1 || d[i] < 1 || op[i] < 0 || p[i] < 0 || p[sp + i] < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH,
                        "strides and dilations must be >= 1, pads and "
                        "output_padding >= 0");
  const char *ap = onnx_attr_s(c, n, "auto_pad", "NOTSET");
  bool upper = strcmp(ap, "SAME_UPPER") == 0, lower = strcmp(ap, "SAME_LOWER") == 0;
  if (!upper && !lower && strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "unknown auto_pad '%s'", ap);
  if (strcmp(ap, "VALID") == 0)
    for (int i = 0; i < 2 * sp; i++) p[i] = 0;
  /* An explicit output_shape (or SAME padding) fixes the pads: the total is
   * what the full output exceeds the wanted one by; negative totals grow
   * output_padding instead. */
  const int64_t *osv;
  int n_os = onnx_attr_ints(n, "output_shape", &osv);
  bool have_os = n_os >= 0;
  if (have_os) {
    if (n_os != sp && n_os != sp + 2)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "output_shape has %d values, "
                        "expected %d", n_os, sp);
    for (int i = 0; i < sp; i++) {
      os[i] = osv[n_os - sp + i];
      if (os[i] < 0 || os[i] > IR_MAX_ELEMENTS)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "output_shape value %lld is out "
                          "of range", (long long)os[i]);
    }
  } else if (upper || lower) {
    for (int i = 0; i < sp; i++) os[i] = x->dims[2 + i] * s[i];
    have_os = true;
  }
  if (have_os) {
    for (int i = 0; i < sp; i++) {
      int64_t total = s[i] * (x->dims[2 + i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - os[i];
      if (total < 0) {
        op[i] -= total;
        total = 0;
      }
      if (upper) {
        p[i] = total / 2;
        p[sp + i] = total - total / 2;
      } else {
        p[i] = total - total / 2;
        p[sp + i] = total / 2;
      }
    }
  }
  int64_t group = onnx_attr_i(n, "group", 1);
  if (sp == 3) {
    onnx_spatial sp3 = {.sp = 3};
    for (int i = 0; i < 3; i++) {
      sp3.kernel[i] = k[i];
      sp3.strides[i] = s[i];
      sp3.dilations[i] = d[i];
      sp3.pads[i] = p[i];
      sp3.pads[3 + i] = p[3 + i];
    }
    return onnx_conv_transpose3d(c, n, &sp3, op, group);
  }
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0},
          opd[2] = {0, 0};
  int o = 2 - sp;
  for (int i = 0; i < sp; i++) {
    st[o + i] = s[i];
    dl[o + i] = d[i];
    pd[o + i] = p[i];
    pd[2 + o + i] = p[sp + i];
    opd[o + i] = op[i];
  }
  ir_value *ins[3];
  VKML_RETURN_IF_ERROR(conv_inputs(c, n, sp, ins));
  int n_in = onnx_has_input(n, 2) ? 3 : 2;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONV_TRANSPOSE2D, ins, n_in, 1, sp == 2, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STRIDES, st, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PADS, pd, 4));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_DILATIONS, dl, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_OUTPUT_PADDING, opd, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_GROUP, group));
  return finish_spatial(c, n, nd, sp);
}

vkml_status onnx_convert_gemm(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  int n_in = onnx_has_input(n, 2) ? 3 : 2;
  ir_value *ins[3];
  for (int i = 0; i < n_in; i++) VKML_RETURN_IF_ERROR(onnx_input(c, n, i, &ins[i]));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_GEMM, ins, n_in, 1, true, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_ALPHA, onnx_attr_f(n, "alpha", 1)));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_BETA, onnx_attr_f(n, "beta", 1)));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_TRANS_A, onnx_attr_i(n, "transA", 0)));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_TRANS_B, onnx_attr_i(n, "transB", 0)));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_matmul(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_MATMUL, 2, &nd));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_batchnorm(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 5, 5));
  if (onnx_attr_i(n, "training_mode", 0) != 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "BatchNormalization in training mode");
  for (int i = 1; i < onnx_n_outputs(n); i++)
    if (onnx_output_used(n, i))
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "BatchNormalization in training mode (running statistics "
                        "outputs)");
  if (c->opset < 9 && onnx_attr_i(n, "spatial", 1) != 1)
    return onnx_error(VKML_CODE_UNSUPPORTED, "BatchNormalization with spatial=0");
  if (c->opset < 7 && onnx_attr_i(n, "is_test", 0) == 0)
    return onnx_error(VKML_CODE_UNSUPPORTED, "BatchNormalization in training mode "
                      "(is_test=0)");
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_BATCHNORM, 5, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_EPSILON,
                                         onnx_attr_f(n, "epsilon", 1e-5f)));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_instance_norm(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_INSTANCE_NORM, 3, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_EPSILON,
                                         onnx_attr_f(n, "epsilon", 1e-5f)));
  return onnx_done(c, n, nd);
}

/* Builds a reduce_mean over axes [axis, rank) with keepdims. */
static vkml_status mean_tail(onnx_ctx *c, onnx_node *n, ir_value *x, int axis,
                             ir_value **out) {
  int64_t axes[IR_MAX_RANK];
  int cnt = 0;
  for (int i = axis; i < x->type.rank; i++) axes[cnt++] = i;
  return onnx_reduce(c, n, IR_OP_REDUCE_MEAN, x, axes, cnt, true, out);
}

/* LayerNormalization; the optional Mean and InvStdDev outputs are computed
 * with reductions next to the layer_norm op (stash type f32). */
vkml_status onnx_convert_layer_norm(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 3));
  int rank = n->in[0]->type.rank;
  int64_t axis = onnx_attr_i(n, "axis", -1);
  float eps = onnx_attr_f(n, "epsilon", 1e-5f);
  if (axis < -rank || axis >= rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                      (long long)axis, rank);
  if (axis < 0) axis += rank;
  if (onnx_attr_i(n, "stash_type", 1) != 1)
    return onnx_error(VKML_CODE_UNSUPPORTED, "LayerNormalization stash_type other "
                      "than FLOAT");
  int n_in = onnx_has_input(n, 2) ? 3 : 2;
  ir_value *ins[3];
  for (int i = 0; i < n_in; i++) VKML_RETURN_IF_ERROR(onnx_input(c, n, i, &ins[i]));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_LAYER_NORM, ins, n_in, 1, true, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_EPSILON, eps));
  VKML_RETURN_IF_ERROR(onnx_done(c, n, nd));
  if (!onnx_output_used(n, 1) && !onnx_output_used(n, 2)) return VKML_OK;
  ir_value *x = ins[0], *mean, *d, *sq, *var, *ve, *sd, *inv, *e;
  if (x->type.dtype != IR_F32) {
    ir_node *cn;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CAST, &x, 1, 1, false, &cn));
    VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, cn, IR_A_TO, IR_F32));
    VKML_RETURN_IF_ERROR(onnx_finish(c, cn));
    x = cn->outputs[0];
  }
  VKML_RETURN_IF_ERROR(mean_tail(c, n, x, (int)axis, &mean));
  ir_value *xm[2] = {x, mean};
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SUB, xm, 2, false, &d));
  ir_value *dd[2] = {d, d};
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_MUL, dd, 2, false, &sq));
  VKML_RETURN_IF_ERROR(mean_tail(c, n, sq, (int)axis, &var));
  ir_type st = ir_type_make(IR_F32, 0, NULL);
  float *epsp = onnx_alloc(c, sizeof *epsp);
  if (!epsp) return ir_oom(NULL);
  *epsp = eps;
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "epsilon", &st, epsp, &e));
  ir_value *vpe[2] = {var, e};
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ADD, vpe, 2, false, &ve));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SQRT, &ve, 1, false, &sd));
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_RECIPROCAL, &sd, 1, false, &inv));
  VKML_RETURN_IF_ERROR(onnx_bind_named(c, n, 1, mean));
  return onnx_bind_named(c, n, 2, inv);
}

/* MaxPool, AveragePool, or (lp) the average that LpPool's lowering sums
 * with: padding counted, dilations only of 1 (the IR's avgpool has none). */
static vkml_status pool(onnx_ctx *c, onnx_node *n, ir_op op, bool lp, onnx_spatial *out) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  if (onnx_output_used(n, 1))
    return onnx_error(VKML_CODE_UNSUPPORTED, "MaxPool with an Indices output");
  const ir_type *x = &n->in[0]->type;
  int sp = 2;
  int64_t k[3];
  onnx_spatial os;
  spatial s;
  VKML_RETURN_IF_ERROR(spatial_rank(n, x, &sp));
  if (!onnx_attr(n, "kernel_shape"))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'kernel_shape' is missing");
  VKML_RETURN_IF_ERROR(list_attr(n, "kernel_shape", sp, 1, k));
  /* dilations: MaxPool's; LpPool's from opset 18 and AveragePool's from 19
   * are read and must be 1 */
  bool dil = op == IR_OP_MAXPOOL || (lp && c->opset >= 18) || (!lp && c->opset >= 19);
  VKML_RETURN_IF_ERROR(spatial_get(c, n, x, sp, k, dil, &os));
  for (int i = 0; op == IR_OP_AVGPOOL && i < sp; i++)
    if (os.dilations[i] != 1)
      return onnx_error(VKML_CODE_UNSUPPORTED, "%s with dilations other than 1",
                        lp ? "LpPool" : "AveragePool");
  if (out) *out = os;
  bool ceil = onnx_attr_i(n, "ceil_mode", 0) != 0;
  bool include_pad = lp || onnx_attr_i(n, "count_include_pad", 0) != 0;
  if (sp == 3) return onnx_pool3d(c, n, op, &os, ceil, include_pad);
  spatial_2d(&os, &s);
  ir_value *in;
  if (sp == 1)
    VKML_RETURN_IF_ERROR(to_2d(c, n, 0, &in));
  else
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &in));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, &in, 1, 1, sp == 2, &nd));
  VKML_RETURN_IF_ERROR(set_spatial(c, nd, &s, true, dil));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_CEIL_MODE, ceil));
  if (op == IR_OP_AVGPOOL)
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_COUNT_INCLUDE_PAD, include_pad));
  return finish_spatial(c, n, nd, sp);
}

vkml_status onnx_convert_maxpool(onnx_ctx *c, onnx_node *n) {
  return pool(c, n, IR_OP_MAXPOOL, false, NULL);
}

vkml_status onnx_convert_avgpool(onnx_ctx *c, onnx_node *n) {
  return pool(c, n, IR_OP_AVGPOOL, false, NULL);
}

/* Along one axis of length len: how many of the window's taps at output o
 * fall inside the padded input (what AveragePool with count_include_pad
 * divides by, ceil_mode's overhanging windows included). */
static int64_t taps_inside(int64_t o, int64_t len, int64_t k, int64_t stride, int64_t pb,
                           int64_t pe) {
  int64_t start = o * stride - pb, n = 0;
  for (int64_t t = 0; t < k; t++) n += start + t >= -pb && start + t < len + pe;
  return n;
}

/* LpPool: y = (sum over the window of |x|^p)^(1/p), padding counted as
 * zeros, lowered to |x|^p (x*x for p = 2), AveragePool counting padding
 * (the 2-D op, or 3-D's lowering), times the per-position tap count (a
 * constant), then the p-th root. 1-D, 2-D and 3-D; dilations of 1 only. */
vkml_status onnx_convert_lppool(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  int64_t p = onnx_attr_i(n, "p", 2);
  if (p < 1) return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute p = %lld (must be >= 1)", (long long)p);
  if (n->in[0]->type.dtype != IR_F32)
    return onnx_error(VKML_CODE_UNSUPPORTED, "an input of %s (LpPool is imported for f32 only)",
                      ir_dtype_name(n->in[0]->type.dtype));
  ir_value *x, *t;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  ir_type st = ir_type_make(IR_F32, 0, NULL);
  if (p == 1) {
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ABS, &x, 1, false, &t));
  } else if (p == 2) {
    ir_value *xx[2] = {x, x};
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_MUL, xx, 2, false, &t));
  } else {
    float *pf = onnx_alloc(c, sizeof *pf);
    if (!pf) return ir_oom(NULL);
    *pf = (float)p;
    ir_value *a, *pv;
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ABS, &x, 1, false, &a));
    VKML_RETURN_IF_ERROR(onnx_const_value(c, "p", &st, pf, &pv));
    ir_value *ap[2] = {a, pv};
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_POW, ap, 2, false, &t));
  }
  /* the average pool reads |x|^p through a symbol of its own in input 0's place */
  onnx_sym *ts = onnx_alloc(c, sizeof *ts), *orig = n->in[0];
  if (!ts) return ir_oom(NULL);
  ts->name = t->name;
  ts->type = t->type;
  ts->v = t;
  n->in[0] = ts;
  onnx_spatial os;
  vkml_status st_pool = pool(c, n, IR_OP_AVGPOOL, true, &os);
  n->in[0] = orig;
  VKML_RETURN_IF_ERROR(st_pool);
  onnx_sym *ys = onnx_output_used(n, 0) ? onnx_sym_get(c, n->p->output[0]) : NULL;
  if (!ys || !ys->v) return VKML_OK;
  /* the tap counts, [out spatial...], broadcast over N and C */
  const ir_type *yt = &ys->v->type;
  int sp = os.sp;
  int64_t cnt = 1, dims[3];
  for (int i = 0; i < sp; i++) cnt *= dims[i] = yt->dims[2 + i];
  float *d = onnx_alloc(c, sizeof *d * (size_t)(cnt ? cnt : 1));
  if (!d) return ir_oom(NULL);
  const int64_t *xd = orig->type.dims;
  for (int64_t e = 0; e < cnt; e++) {
    int64_t r = e, v = 1;
    for (int i = sp - 1; i >= 0; i--) {
      v *= taps_inside(r % dims[i], xd[2 + i], os.kernel[i], os.strides[i], os.pads[i],
                       os.pads[sp + i]);
      r /= dims[i];
    }
    d[e] = (float)v;
  }
  ir_type dt = ir_type_make(IR_F32, sp, dims);
  ir_value *dv, *sum, *y;
  VKML_RETURN_IF_ERROR(onnx_const_value(c, "lppool_taps", &dt, d, &dv));
  ir_value *ad[2] = {ys->v, dv};
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_MUL, ad, 2, false, &sum));
  if (p == 1) {
    y = sum;
  } else if (p == 2) {
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_SQRT, &sum, 1, false, &y));
  } else {
    float *ip = onnx_alloc(c, sizeof *ip);
    if (!ip) return ir_oom(NULL);
    *ip = 1.0f / (float)p;
    ir_value *iv;
    VKML_RETURN_IF_ERROR(onnx_const_value(c, "inv_p", &st, ip, &iv));
    ir_value *si[2] = {sum, iv};
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_POW, si, 2, false, &y));
  }
  ys->v = y;
  ys->type = y->type;
  return VKML_OK;
}

vkml_status onnx_convert_global_pool(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  bool avg = strcmp(n->op->name, "GlobalAveragePool") == 0;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(
      c, n, avg ? IR_OP_GLOBAL_AVG_POOL : IR_OP_GLOBAL_MAX_POOL, 1, &nd));
  return onnx_done(c, n, nd);
}

/* Softmax / LogSoftmax. Before opset 13 the input is coerced to 2-D at axis
 * ([d0*..*d(axis-1), d(axis)*..]) and normalised over the second axis. */
vkml_status onnx_convert_softmax(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  ir_op op = strcmp(n->op->name, "Softmax") == 0 ? IR_OP_SOFTMAX : IR_OP_LOG_SOFTMAX;
  const ir_type *t = &n->in[0]->type;
  int rank = t->rank;
  bool legacy = c->opset < 13;
  int64_t axis = onnx_attr_i(n, "axis", legacy ? 1 : -1);
  if (rank == 0 || axis < -rank || axis >= rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                      (long long)axis, rank);
  if (axis < 0) axis += rank;
  ir_value *x;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  bool coerce = legacy && axis != rank - 1;
  if (coerce) {
    int64_t dims[2] = {1, 1};
    for (int i = 0; i < rank; i++) dims[i < axis ? 0 : 1] *= t->dims[i];
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 2, dims, false, &x));
  }
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, &x, 1, 1, !coerce, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, coerce ? 1 : axis));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  ir_value *y = nd->outputs[0];
  if (coerce) VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, rank, t->dims, true, &y));
  return onnx_bind(c, n, 0, y);
}
