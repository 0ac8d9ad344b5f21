/* ONNX Conv, ConvTranspose, MaxPool and AveragePool over three spatial axes
 * (5-D [N,C,D,H,W] inputs), lowered at import into the 2-D ops and data
 * movement (reshape, transpose, slice, pad, concat, add). There is no 3-D IR
 * op: these run on the 2-D kernels, the GPU's cooperative-matrix conv and
 * fp16 included.
 *
 * Conv: the depth taps become input channels. x, its depth padded, is seen
 * as [N, D, C, H*W] (one transpose); the kd slices x[:, t*dd :: sd] (Dout
 * depths each) are concatenated along the channel axis, group by group, into
 * [N*Dout, kd*C, H, W], and one conv2d with the weights w'[K, kd*C/g, kh, kw]
 * (w'[k, t*C/g + c] = w[k, c, t], permuted here when w is constant) computes
 * every output depth, its bias and a fused activation included; a transpose
 * puts [N, K, Dout, OH, OW]. A conv whose kernel is 1x1 over (H, W) with
 * unit strides and no padding there is a conv2d over [N, C, D, H*W] with a
 * (kd, 1) kernel: no transposes.
 *
 * Pools: max and average are separable. The window is a product of per-axis
 * windows, each clipped per axis (to the input, or to the padded extent with
 * count_include_pad), so the divisor is a product too: a 2-D pool over
 * (H, W) on [N, C*D, H, W], then one with a (kd, 1) kernel on
 * [N, C, D, OH*OW]. ceil_mode, dilations, pads and count_include_pad act per
 * axis, exactly as in the 2-D op.
 *
 * ConvTranspose: per depth tap t a conv_transpose2d of the input's depths as
 * a batch ([N*D, C, H, W]) with w[:, :, t]; input depth i lands on output
 * depth i*sd + t*dd, so each result is spread by sd (a pad on a new axis),
 * shifted by t*dd (a pad), the taps added, the depth pads cropped (a slice)
 * and the bias added last. A 1x1 kernel over (H, W) with unit strides and
 * no padding there is one conv_transpose2d over [N, C, D, H*W].
 *
 * Everything here is shapes and byte permutations: the arithmetic is the
 * emitted ops'. */
#include <string.h>

#include "onnx_internal.h"

/* Most parts of one concat node (the GPU kernel's binding limit, as
 * onnx_ops_tensor.c's CONCAT_MAX_PARTS). */
#define CAT_MAX_PARTS 31

static vkml_status check_input(const onnx_node *n) {
  if (n->in[0]->type.bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED, "3-D %s over a run-time-sized input",
                      n->op->name);
  return VKML_OK;
}

/* Axes 1 and 2 of a rank-4 v swapped. */
static vkml_status swap12(onnx_ctx *c, onnx_node *n, ir_value *v, ir_value **out) {
  return onnx_transpose(c, n, v, (const int64_t[]){0, 2, 1, 3}, out);
}

vkml_status onnx_pad_axis(onnx_ctx *c, onnx_node *n, ir_value *v, int axis, int64_t before,
                          int64_t after, ir_value **out) {
  if (!before && !after) {
    *out = v;
    return VKML_OK;
  }
  int r = v->type.rank;
  int64_t pads[2 * IR_MAX_RANK] = {0};
  pads[axis] = before;
  pads[r + axis] = after;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_PAD, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PADS, pads, 2 * r));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

/* parts concatenated along axis, in groups of at most CAT_MAX_PARTS (parts
 * is overwritten). */
static vkml_status emit_concat(onnx_ctx *c, onnx_node *n, ir_value **parts, int cnt,
                               int axis, ir_value **out) {
  while (cnt > 1) {
    int groups = 0;
    for (int i = 0; i < cnt; i += CAT_MAX_PARTS) {
      int m = cnt - i < CAT_MAX_PARTS ? cnt - i : CAT_MAX_PARTS;
      ir_value *v = parts[i];
      if (m > 1) {
        ir_node *nd;
        VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONCAT, parts + i, m, 1, false, &nd));
        VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
        VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
        v = nd->outputs[0];
      }
      parts[groups++] = v;
    }
    cnt = groups;
  }
  *out = parts[0];
  return VKML_OK;
}

/* Input i, a weight seen as [a, b, t, r], with its middle axes swapped:
 * [a, t, b, r], in the shape dims (rank 4, the same elements). A constant is
 * permuted here, a computed weight by a transpose. */
static vkml_status swap_mid(onnx_ctx *c, onnx_node *n, int i, int64_t a, int64_t b,
                            int64_t t, int64_t r, const int64_t *dims, ir_value **out) {
  const onnx_sym *s = n->in[i];
  if (s->is_const) {
    size_t es = ir_dtype_size(s->type.dtype), row = (size_t)r * es;
    char *dst = onnx_alloc(c, (size_t)(a * b * t) * row + 1);
    if (!dst) return ir_oom(NULL);
    const char *src = s->data;
    for (int64_t ia = 0; ia < a; ia++)
      for (int64_t ib = 0; ib < b; ib++)
        for (int64_t it = 0; it < t; it++)
          memcpy(dst + (size_t)((ia * t + it) * b + ib) * row,
                 src + (size_t)((ia * b + ib) * t + it) * row, row);
    ir_type ty = ir_type_make(s->type.dtype, 4, dims);
    return onnx_const_value(c, s->name, &ty, dst, out);
  }
  ir_value *v;
  int64_t in_dims[4] = {a, b, t, r};
  VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, i, 4, in_dims, &v));
  VKML_RETURN_IF_ERROR(swap12(c, n, v, &v));
  return onnx_reshape(c, n, v, 4, dims, false, out);
}

/* The 2-D attributes of a conv, conv_transpose or pool node. */
typedef struct attrs2d {
  int64_t kernel[2], strides[2], dilations[2], pads[4], output_padding[2];
  int64_t group;
  bool ceil, include_pad;
} attrs2d;

/* The (H, W) part of s. */
static attrs2d hw_attrs(const onnx_spatial *s) {
  attrs2d a = {.kernel = {s->kernel[1], s->kernel[2]},
               .strides = {s->strides[1], s->strides[2]},
               .dilations = {s->dilations[1], s->dilations[2]},
               .pads = {s->pads[1], s->pads[2], s->pads[4], s->pads[5]}};
  return a;
}

/* The depth part of s as a (D, 1) window. */
static attrs2d depth_attrs(const onnx_spatial *s) {
  attrs2d a = {.kernel = {s->kernel[0], 1},
               .strides = {s->strides[0], 1},
               .dilations = {s->dilations[0], 1},
               .pads = {s->pads[0], 0, s->pads[3], 0}};
  return a;
}

/* A 1x1 window over (H, W) with unit strides and no padding there. */
static bool hw_trivial(const onnx_spatial *s) {
  return s->kernel[1] == 1 && s->kernel[2] == 1 && s->strides[1] == 1 &&
         s->strides[2] == 1 && !s->pads[1] && !s->pads[2] && !s->pads[4] && !s->pads[5];
}

static vkml_status emit_2d(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *const *ins,
                           int n_in, const attrs2d *a, ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, ins, n_in, 1, false, &nd));
  bool pool = op == IR_OP_MAXPOOL || op == IR_OP_AVGPOOL;
  if (pool) VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_KERNEL, a->kernel, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STRIDES, a->strides, 2));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PADS, a->pads, 4));
  if (op != IR_OP_AVGPOOL)
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_DILATIONS, a->dilations, 2));
  if (op == IR_OP_CONV_TRANSPOSE2D)
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_OUTPUT_PADDING, a->output_padding, 2));
  if (!pool) VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_GROUP, a->group));
  if (pool) VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_CEIL_MODE, a->ceil));
  if (op == IR_OP_AVGPOOL)
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_COUNT_INCLUDE_PAD, a->include_pad));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

/* v [N, K, D, H*W] as the node's output [N, K, D, H, W]. */
static vkml_status bind_5d(onnx_ctx *c, onnx_node *n, ir_value *v, int64_t h, int64_t w) {
  const int64_t *d = v->type.dims;
  int64_t dims[5] = {d[0], d[1], d[2], h, w};
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, v, 5, dims, true, &v));
  return onnx_bind(c, n, 0, v);
}

static vkml_status check_group(int64_t g, int64_t c_in, int64_t c_out) {
  if (g < 1 || c_in % g || c_out % g)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "group %lld does not divide the channels "
                      "(%lld in, %lld out)", (long long)g, (long long)c_in, (long long)c_out);
  return VKML_OK;
}

vkml_status onnx_conv3d(onnx_ctx *c, onnx_node *n, const onnx_spatial *s, int64_t g) {
  VKML_RETURN_IF_ERROR(check_input(n));
  const ir_type *xt = &n->in[0]->type, *wt = &n->in[1]->type;
  int64_t N = xt->dims[0], C = xt->dims[1], D = xt->dims[2], H = xt->dims[3], W = xt->dims[4];
  int64_t K = wt->dims[0], Cg = wt->dims[1], kd = s->kernel[0];
  VKML_RETURN_IF_ERROR(check_group(g, C, K));
  if (Cg != C / g)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "weight has %lld input channels, expected "
                      "%lld (channels / group)", (long long)Cg, (long long)(C / g));
  int64_t sd = s->strides[0], dd = s->dilations[0];
  int64_t Dp = D + s->pads[0] + s->pads[3], keff = (kd - 1) * dd + 1;
  if (Dp < keff)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the kernel's depth extent %lld exceeds the "
                      "padded input's %lld", (long long)keff, (long long)Dp);
  int64_t Do = (Dp - keff) / sd + 1;
  int n_in = onnx_has_input(n, 2) ? 3 : 2;
  ir_value *ins[3], *y;
  if (n_in == 3) VKML_RETURN_IF_ERROR(onnx_input(c, n, 2, &ins[2]));
  attrs2d a;
  if (hw_trivial(s)) {
    a = depth_attrs(s);
    a.group = g;
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 0, 4, (int64_t[]){N, C, D, H * W}, &ins[0]));
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 1, 4, (int64_t[]){K, Cg, kd, 1}, &ins[1]));
    VKML_RETURN_IF_ERROR(emit_2d(c, n, IR_OP_CONV2D, ins, n_in, &a, &y));
    return bind_5d(c, n, y, H, W);
  }
  a = hw_attrs(s);
  a.group = g;
  int64_t kh = s->kernel[1], kw = s->kernel[2];
  /* x: [N, C, D, HW] -> depth padded -> [N, Dp, C, HW] (-> [N, Dp, g, C/g, HW]) */
  ir_value *x, **parts = onnx_alloc(c, sizeof *parts * (size_t)kd);
  if (!parts) return ir_oom(NULL);
  VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 0, 4, (int64_t[]){N, C, D, H * W}, &x));
  VKML_RETURN_IF_ERROR(onnx_pad_axis(c, n, x, 2, s->pads[0], s->pads[3], &x));
  VKML_RETURN_IF_ERROR(swap12(c, n, x, &x));
  int cat_axis = 2;
  if (g > 1 && kd > 1) {
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 5, (int64_t[]){N, Dp, g, Cg, H * W}, false, &x));
    cat_axis = 3;
  }
  for (int64_t t = 0; t < kd; t++)
    VKML_RETURN_IF_ERROR(onnx_slice_axis(c, n, x, 1, t * dd, sd, Do, &parts[t]));
  VKML_RETURN_IF_ERROR(emit_concat(c, n, parts, (int)kd, cat_axis, &x));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 4, (int64_t[]){N * Do, kd * C, H, W}, false,
                                    &ins[0]));
  VKML_RETURN_IF_ERROR(swap_mid(c, n, 1, K, Cg, kd, kh * kw,
                                (int64_t[]){K, kd * Cg, kh, kw}, &ins[1]));
  VKML_RETURN_IF_ERROR(emit_2d(c, n, IR_OP_CONV2D, ins, n_in, &a, &y));
  int64_t OH = y->type.dims[2], OW = y->type.dims[3];
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, 4, (int64_t[]){N, Do, K, OH * OW}, false, &y));
  VKML_RETURN_IF_ERROR(swap12(c, n, y, &y));
  return bind_5d(c, n, y, OH, OW);
}

vkml_status onnx_pool3d(onnx_ctx *c, onnx_node *n, ir_op op, const onnx_spatial *s,
                        bool ceil, bool include_pad) {
  VKML_RETURN_IF_ERROR(check_input(n));
  const ir_type *xt = &n->in[0]->type;
  int64_t N = xt->dims[0], C = xt->dims[1], D = xt->dims[2], OH = xt->dims[3],
          OW = xt->dims[4];
  ir_value *v;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &v));
  if (!hw_trivial(s)) {
    attrs2d a = hw_attrs(s);
    a.ceil = ceil;
    a.include_pad = include_pad;
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, v, 4, (int64_t[]){N, C * D, OH, OW}, false, &v));
    VKML_RETURN_IF_ERROR(emit_2d(c, n, op, &v, 1, &a, &v));
    OH = v->type.dims[2];
    OW = v->type.dims[3];
  }
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, v, 4, (int64_t[]){N, C, D, OH * OW}, false, &v));
  if (s->kernel[0] != 1 || s->strides[0] != 1 || s->pads[0] || s->pads[3]) {
    attrs2d a = depth_attrs(s);
    a.ceil = ceil;
    a.include_pad = include_pad;
    VKML_RETURN_IF_ERROR(emit_2d(c, n, op, &v, 1, &a, &v));
  }
  return bind_5d(c, n, v, OH, OW);
}

/* Depth tap t of the transposed conv's weight w [C, M/g, kd, kh, kw]:
 * w[:, :, t] as [C, M/g, kh, kw]. */
static vkml_status weight_tap(onnx_ctx *c, onnx_node *n, int64_t t, ir_value **out) {
  const onnx_sym *s = n->in[1];
  const int64_t *wd = s->type.dims;
  int64_t cm = wd[0] * wd[1], kd = wd[2], r = wd[3] * wd[4];
  int64_t dims[4] = {wd[0], wd[1], wd[3], wd[4]};
  if (s->is_const) {
    size_t row = (size_t)r * ir_dtype_size(s->type.dtype);
    char *dst = onnx_alloc(c, (size_t)cm * row + 1);
    if (!dst) return ir_oom(NULL);
    const char *src = s->data;
    for (int64_t i = 0; i < cm; i++)
      memcpy(dst + (size_t)i * row, src + (size_t)(i * kd + t) * row, row);
    ir_type ty = ir_type_make(s->type.dtype, 4, dims);
    return onnx_const_value(c, s->name, &ty, dst, out);
  }
  ir_value *v;
  VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 1, 3, (int64_t[]){cm, kd, r}, &v));
  VKML_RETURN_IF_ERROR(onnx_slice_axis(c, n, v, 1, t, 1, 1, &v));
  return onnx_reshape(c, n, v, 4, dims, false, out);
}

vkml_status onnx_conv_transpose3d(onnx_ctx *c, onnx_node *n, const onnx_spatial *s,
                                  const int64_t *out_pad, int64_t g) {
  VKML_RETURN_IF_ERROR(check_input(n));
  const ir_type *xt = &n->in[0]->type, *wt = &n->in[1]->type;
  int64_t N = xt->dims[0], C = xt->dims[1], D = xt->dims[2], H = xt->dims[3], W = xt->dims[4];
  int64_t Mg = wt->dims[1], kd = s->kernel[0], M = Mg * g;
  if (wt->dims[0] != C)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "weight has %lld input channels, the input "
                      "%lld", (long long)wt->dims[0], (long long)C);
  VKML_RETURN_IF_ERROR(check_group(g, C, M));
  int64_t sd = s->strides[0], dd = s->dilations[0], pb = s->pads[0];
  int64_t full = sd * (D - 1) + out_pad[0] + (kd - 1) * dd + 1;
  int64_t Do = full - pb - s->pads[3];
  if (Do < 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the output's depth would be %lld",
                      (long long)Do);
  int n_in = onnx_has_input(n, 2) ? 3 : 2;
  if (n_in == 3 && (n->in[2]->type.rank != 1 || n->in[2]->type.dims[0] != M))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "bias must be [%lld]", (long long)M);
  ir_value *ins[3], *y;
  attrs2d a;
  if (hw_trivial(s) && !out_pad[1] && !out_pad[2]) {
    if (n_in == 3) VKML_RETURN_IF_ERROR(onnx_input(c, n, 2, &ins[2]));
    a = depth_attrs(s);
    a.output_padding[0] = out_pad[0];
    a.group = g;
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 0, 4, (int64_t[]){N, C, D, H * W}, &ins[0]));
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 1, 4, (int64_t[]){C, Mg, kd, 1}, &ins[1]));
    VKML_RETURN_IF_ERROR(emit_2d(c, n, IR_OP_CONV_TRANSPOSE2D, ins, n_in, &a, &y));
    return bind_5d(c, n, y, H, W);
  }
  a = hw_attrs(s);
  a.output_padding[0] = out_pad[1];
  a.output_padding[1] = out_pad[2];
  a.group = g;
  ir_value *x, *acc = NULL;
  VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 0, 4, (int64_t[]){N, C, D, H * W}, &x));
  VKML_RETURN_IF_ERROR(swap12(c, n, x, &x));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, x, 4, (int64_t[]){N * D, C, H, W}, false, &x));
  /* every tap spread and shifted onto a depth axis of length len */
  int64_t len = (kd - 1) * dd + D * sd;
  if (len < full) len = full;
  int64_t OH = 0, OW = 0;
  for (int64_t t = 0; t < kd; t++) {
    ir_value *z, *in2[2] = {x, NULL};
    VKML_RETURN_IF_ERROR(weight_tap(c, n, t, &in2[1]));
    VKML_RETURN_IF_ERROR(emit_2d(c, n, IR_OP_CONV_TRANSPOSE2D, in2, 2, &a, &z));
    OH = z->type.dims[2];
    OW = z->type.dims[3];
    int64_t inner = M * OH * OW;
    if (sd > 1) {
      VKML_RETURN_IF_ERROR(onnx_reshape(c, n, z, 4, (int64_t[]){N, D, 1, inner}, false, &z));
      VKML_RETURN_IF_ERROR(onnx_pad_axis(c, n, z, 2, 0, sd - 1, &z));
    }
    VKML_RETURN_IF_ERROR(onnx_reshape(c, n, z, 3, (int64_t[]){N, D * sd, inner}, false, &z));
    VKML_RETURN_IF_ERROR(onnx_pad_axis(c, n, z, 1, t * dd, len - t * dd - D * sd, &z));
    if (acc) {
      ir_value *sum[2] = {acc, z};
      VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ADD, sum, 2, false, &z));
    }
    acc = z;
  }
  VKML_RETURN_IF_ERROR(onnx_slice_axis(c, n, acc, 1, pb, 1, Do, &y));
  VKML_RETURN_IF_ERROR(onnx_reshape(c, n, y, 4, (int64_t[]){N, Do, M, OH * OW}, false, &y));
  VKML_RETURN_IF_ERROR(swap12(c, n, y, &y));
  if (n_in == 3) {
    ir_value *b, *sum[2] = {y, NULL};
    VKML_RETURN_IF_ERROR(onnx_input_reshaped(c, n, 2, 3, (int64_t[]){M, 1, 1}, &b));
    sum[1] = b;
    VKML_RETURN_IF_ERROR(onnx_emit1(c, n, IR_OP_ADD, sum, 2, false, &y));
  }
  return bind_5d(c, n, y, OH, OW);
}
