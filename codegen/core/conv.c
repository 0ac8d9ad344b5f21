/* The conv2d family's workload, key and specialization constants (conv.h). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/conv.h"
#include "codegen/core/elt.h"
#include "codegen/core/key.h"
#include "codegen/core/spec.h"
/* Largest stride, dilation, pad or kernel extent the shaders' 32-bit index
 * arithmetic is checked for. */
#define ATTR_LIMIT 65535

#define ELEM_LIMIT (INT64_C(1) << 31)

static vkml_status bad(vkml_code code, const ir_node *n, const char *why) {
  return vkml_status_make(code, "%s: %s", ir_op_name(n->op), why);
}

int64_t cg_conv_k(const cg_conv_workload *w) {
  return (int64_t)(w->c / w->p.group) * w->p.kernel[0] * w->p.kernel[1];
}

vkml_status cg_conv_workload_from_node(const ir_node *n, cg_conv_workload *o) {
  memset(o, 0, sizeof *o);
  if (n->op != IR_OP_CONV2D && n->op != IR_OP_CONV_TRANSPOSE2D)
    return bad(VKML_CODE_UNSUPPORTED, n, "not a convolution");
  if (n->n_inputs < 2 || n->n_inputs > 3 || n->n_outputs != 1)
    return bad(VKML_CODE_INVALID_ARGUMENT, n, "expects 2 or 3 inputs and 1 output");
  o->op = n->op;
  o->x = n->inputs[0]->type;
  o->w = n->inputs[1]->type;
  o->y = n->outputs[0]->type;
  o->has_bias = n->n_inputs == 3;
  if (o->has_bias) o->b = n->inputs[2]->type;
  ir_dtype dt = o->y.dtype;
  if (dt != IR_F32 && dt != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: dtype %s; the GPU kernels run f32 and f16",
                            ir_op_name(n->op), ir_dtype_name(dt));
  for (int i = 0; i < n->n_inputs + 1; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[0];
    if (v->type.dtype != dt)
      return bad(VKML_CODE_UNSUPPORTED, n, "inputs and output of different dtypes");
    /* a conv2d's x and y may be packed (nc4hw4) or nhwc */
    bool act_io = o->op == IR_OP_CONV2D && (i == 0 || i == n->n_inputs);
    bool taps = o->op == IR_OP_CONV2D && i == 1; /* w may be stored tap-major */
    if (v->type.bounded ||
        (v->layout != IR_LAYOUT_DEFAULT &&
         !(act_io && (v->layout == IR_LAYOUT_NC4HW4 || v->layout == IR_LAYOUT_NHWC)) &&
         !(taps && v->layout == IR_LAYOUT_NHWC)))
      return bad(VKML_CODE_UNSUPPORTED, n,
                 "bounded shapes, and layouts other than a conv2d's nc4hw4 or nhwc x and y and "
                 "nhwc w, are not supported");
    if (ir_type_storage_bytes(&v->type, v->layout) / (int64_t)ir_dtype_size(dt) >= ELEM_LIMIT)
      return bad(VKML_CODE_UNSUPPORTED, n, "a tensor of 2^31 elements or more");
  }
  o->x_layout = n->inputs[0]->layout;
  o->y_layout = n->outputs[0]->layout;
  o->w_layout = n->inputs[1]->layout;
  if (o->x.rank != 4 || o->w.rank != 4 || o->y.rank != 4 ||
      (o->has_bias && o->b.rank != 1))
    return bad(VKML_CODE_INVALID_ARGUMENT, n, "x, w and y must have rank 4, bias rank 1");
  VKML_RETURN_IF_ERROR(ir_conv_params_get(n, &o->w, &o->p));
  const ir_conv_params *p = &o->p;
  for (int i = 0; i < 2; i++)
    if (p->strides[i] > ATTR_LIMIT || p->dilations[i] > ATTR_LIMIT || p->kernel[i] > ATTR_LIMIT ||
        p->pads[i] > ATTR_LIMIT || p->pads[i + 2] > ATTR_LIMIT ||
        p->output_padding[i] > ATTR_LIMIT || p->kernel[i] < 1)
      return bad(VKML_CODE_UNSUPPORTED, n, "kernel, stride, dilation or pad out of range");
  o->n = o->x.dims[0], o->c = o->x.dims[1], o->h = o->x.dims[2], o->wd = o->x.dims[3];
  int64_t G = p->group, want[4];
  if (o->op == IR_OP_CONV2D) {
    o->m = o->w.dims[0];
    if (o->c % G || o->c / G != o->w.dims[1] || o->m % G)
      return bad(VKML_CODE_INVALID_ARGUMENT, n, "channels do not match the weight and group");
    int64_t eh = (p->kernel[0] - 1) * p->dilations[0] + 1;
    int64_t ew = (p->kernel[1] - 1) * p->dilations[1] + 1;
    int64_t ph = o->h + p->pads[0] + p->pads[2], pw = o->wd + p->pads[1] + p->pads[3];
    if (ph < eh || pw < ew)
      return bad(VKML_CODE_INVALID_ARGUMENT, n, "kernel larger than the padded input");
    want[2] = (ph - eh) / p->strides[0] + 1;
    want[3] = (pw - ew) / p->strides[1] + 1;
  } else {
    if (o->w.dims[0] != o->c || o->c % G)
      return bad(VKML_CODE_INVALID_ARGUMENT, n, "channels do not match the weight and group");
    o->m = o->w.dims[1] * G;
    want[2] = p->strides[0] * (o->h - 1) + p->output_padding[0] +
              (p->kernel[0] - 1) * p->dilations[0] + 1 - p->pads[0] - p->pads[2];
    want[3] = p->strides[1] * (o->wd - 1) + p->output_padding[1] +
              (p->kernel[1] - 1) * p->dilations[1] + 1 - p->pads[1] - p->pads[3];
  }
  want[0] = o->n, want[1] = o->m;
  for (int i = 0; i < 4; i++)
    if (o->y.dims[i] != want[i])
      return bad(VKML_CODE_INVALID_ARGUMENT, n, "output shape does not match the attributes");
  if (o->has_bias && o->b.dims[0] != o->m)
    return bad(VKML_CODE_INVALID_ARGUMENT, n, "bias must have one element per output channel");
  o->oh = want[2], o->ow = want[3];
  if (ir_type_numel(&o->x) == 0 || ir_type_numel(&o->y) == 0)
    return bad(VKML_CODE_UNSUPPORTED, n, "empty tensors");
  if ((unsigned)p->act.kind >= IR_ACT_COUNT) return bad(VKML_CODE_INVALID_ARGUMENT, n, "bad act");
  return VKML_OK;
}

void cg_conv_workload_key(const cg_conv_workload *w, char *buf, int buf_bytes) {
  char tx[128], tw[128], tb[128] = "", ty[128];
  ir_type_format(&w->x, tx, sizeof tx);
  ir_type_format(&w->w, tw, sizeof tw);
  ir_type_format(&w->y, ty, sizeof ty);
  if (w->has_bias) {
    tb[0] = ',';
    ir_type_format(&w->b, tb + 1, sizeof tb - 1);
  }
  const ir_conv_params *p = &w->p;
  char attrs[400];
  int n = snprintf(attrs, sizeof attrs,
                   "{strides=[%lld,%lld],pads=[%lld,%lld,%lld,%lld],dilations=[%lld,%lld],"
                   "group=%lld",
                   (long long)p->strides[0], (long long)p->strides[1], (long long)p->pads[0],
                   (long long)p->pads[1], (long long)p->pads[2], (long long)p->pads[3],
                   (long long)p->dilations[0], (long long)p->dilations[1], (long long)p->group);
  if (w->op == IR_OP_CONV_TRANSPOSE2D)
    n += snprintf(attrs + n, sizeof attrs - (size_t)n, ",output_padding=[%lld,%lld]",
                  (long long)p->output_padding[0], (long long)p->output_padding[1]);
  n += cg_act_key(&p->act, attrs + n, sizeof attrs - (size_t)n);
  if (w->x_layout != IR_LAYOUT_DEFAULT)
    n += snprintf(attrs + n, sizeof attrs - (size_t)n, ",x_layout=%s", ir_layout_name(w->x_layout));
  if (w->y_layout != IR_LAYOUT_DEFAULT)
    n += snprintf(attrs + n, sizeof attrs - (size_t)n, ",y_layout=%s", ir_layout_name(w->y_layout));
  snprintf(attrs + n, sizeof attrs - (size_t)n, "}");
  snprintf(buf, (size_t)buf_bytes, "%s(%s,%s%s)->%s%s", ir_op_name(w->op), tx, tw, tb, ty, attrs);
}

vkml_status cg_conv_specs(cg_kernel *k, const cg_conv_workload *w) {
  const ir_conv_params *p = &w->p;
  const cg_spec_value specs[] = {
      {CG_SPEC_CONV_PARAMS_NB, (uint32_t)w->n},
      {CG_SPEC_CONV_PARAMS_C, (uint32_t)w->c},
      {CG_SPEC_CONV_PARAMS_H, (uint32_t)w->h},
      {CG_SPEC_CONV_PARAMS_W, (uint32_t)w->wd},
      {CG_SPEC_CONV_PARAMS_M, (uint32_t)w->m},
      {CG_SPEC_CONV_PARAMS_OH, (uint32_t)w->oh},
      {CG_SPEC_CONV_PARAMS_OW, (uint32_t)w->ow},
      {CG_SPEC_CONV_PARAMS_KH, (uint32_t)p->kernel[0]},
      {CG_SPEC_CONV_PARAMS_KW, (uint32_t)p->kernel[1]},
      {CG_SPEC_CONV_PARAMS_SH, (uint32_t)p->strides[0]},
      {CG_SPEC_CONV_PARAMS_SW, (uint32_t)p->strides[1]},
      {CG_SPEC_CONV_PARAMS_DH, (uint32_t)p->dilations[0]},
      {CG_SPEC_CONV_PARAMS_DW, (uint32_t)p->dilations[1]},
      {CG_SPEC_CONV_PARAMS_PT, (uint32_t)p->pads[0]},
      {CG_SPEC_CONV_PARAMS_PL, (uint32_t)p->pads[1]},
      {CG_SPEC_CONV_PARAMS_G, (uint32_t)p->group},
      {CG_SPEC_CONV_PARAMS_ACT_ALPHA, cg_elt_f32_bits(p->act.alpha)},
      {CG_SPEC_CONV_PARAMS_ACT_BETA, cg_elt_f32_bits(p->act.beta)},
  };
  return CG_KERNEL_SPECS(k, specs);
}
