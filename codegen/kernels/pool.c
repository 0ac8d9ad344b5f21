/* maxpool / avgpool on the GPU (glsl/pool2d.comp): the template's space,
 * workload key and instantiation, in the default layout and in nc4hw4 (x
 * and y both packed: one vec4 per pixel and texel plane). Packed global
 * pools run here too (codegen/core/ops.c routes them), as a window over the plane. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

enum { KNOB_WG = 0, KNOB_TW = 1, KNOB_TH = 2 };

const cg_template cg_pool2d_template = {
    .name = "pool2d",
    .glsl = "pool2d.comp",
    .n_knobs = 3,
    .knobs =
        {
            {"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},
            {"TILE_W", 3, {1, 2, 4}},
            {"TILE_H", 3, {1, 2, 4}},
        },
    .n_constraints = 2,
    .constraints =
        {
            {CG_LIMIT_WORKGROUP_X, 1u << KNOB_WG, 1},
            {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << KNOB_WG, 1},
        },
    .dflt = {{128, 2, 1}},
};


static bool is_global(ir_op op) {
  return op == IR_OP_GLOBAL_AVG_POOL || op == IR_OP_GLOBAL_MAX_POOL;
}

/* As cg_check_float_values, with nc4hw4 or nhwc allowed for x and y
 * together (floats): *packed says nc4hw4, *nhwc nhwc. */
static vkml_status check_values(const ir_node *n, const ir_target *t, bool *packed, bool *nhwc) {
  if (n->n_inputs != 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %d inputs, %d outputs",
                            ir_op_name(n->op), n->n_inputs, n->n_outputs);
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  ir_dtype dt = x->type.dtype;
  *packed = *nhwc = false;
  bool is_max = n->op == IR_OP_MAXPOOL; /* (global_max_pool takes floats only) */
  bool int8 = dt == IR_U8 || dt == IR_I8;
  if (dt != IR_F32 && dt != IR_F16 && !(is_max && int8))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s is not f32 or f16 on the GPU%s",
                            ir_op_name(n->op), ir_dtype_name(dt),
                            is_max ? " (nor u8 or i8)" : "");
  if (int8 && !(t->storage_8bit && t->int8_arith))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %s needs 8-bit storage and arithmetic, which %s lacks",
                            ir_op_name(n->op), ir_dtype_name(dt), t->name);
  if (dt == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: f16 needs 16-bit storage, which %s lacks",
                            ir_op_name(n->op), t->name);
  if (y->type.dtype != dt)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %%%s is %s, the kernel wants %s",
                            ir_op_name(n->op), y->name, ir_dtype_name(y->type.dtype),
                            ir_dtype_name(dt));
  *packed = !int8 && x->layout == IR_LAYOUT_NC4HW4 && y->layout == IR_LAYOUT_NC4HW4;
  *nhwc = !int8 && x->layout == IR_LAYOUT_NHWC && y->layout == IR_LAYOUT_NHWC &&
          x->type.rank == 4 && y->type.rank == 4;
  if (!*packed && !*nhwc && (x->layout != IR_LAYOUT_DEFAULT || y->layout != IR_LAYOUT_DEFAULT))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: x in layout %s, y in %s (both default, both nc4hw4 or both "
                            "nhwc)",
                            ir_op_name(n->op), ir_layout_name(x->layout),
                            ir_layout_name(y->layout));
  for (int i = 0; i < 2; i++) {
    const ir_value *v = i ? y : x;
    if (v->type.bounded)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %%%s is bounded", ir_op_name(n->op),
                              v->name);
    /* offsets are 32-bit in the shader (in elements, packed or not) */
    int64_t cnt = ir_type_storage_bytes(&v->type, v->layout) / (int64_t)ir_dtype_size(dt);
    if (cnt >= (INT64_C(1) << 30))
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %%%s has 2^30 elements or more",
                              ir_op_name(n->op), v->name);
  }
  return VKML_OK;
}

vkml_status cg_node_pool(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *k) {
  memset(k, 0, sizeof *k);
  VKML_RETURN_IF_ERROR(cg_check_template(n, st, &cg_pool2d_template));
  if (n->op != IR_OP_MAXPOOL && n->op != IR_OP_AVGPOOL && !is_global(n->op))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "pool: %s", ir_op_name(n->op));
  bool packed = false, nhwc = false;
  VKML_RETURN_IF_ERROR(check_values(n, t, &packed, &nhwc));
  const ir_type *x = &n->inputs[0]->type, *y = &n->outputs[0]->type;
  if (x->rank != 4 || y->rank != 4)
    return vkml_status_make(is_global(n->op) ? VKML_CODE_UNSUPPORTED : VKML_CODE_INVALID_ARGUMENT,
                            "%s: input and output must have rank 4", ir_op_name(n->op));
  ir_pool_params p;
  int64_t oh, ow;
  if (is_global(n->op)) {
    /* a window over the whole plane: the mean of H*W values, or their max */
    p = (ir_pool_params){.kernel = {x->dims[2], x->dims[3]}, .strides = {1, 1},
                         .dilations = {1, 1}};
    oh = ow = 1;
    if (x->dims[2] < 1 || x->dims[3] < 1)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: empty planes", ir_op_name(n->op));
  } else {
    VKML_RETURN_IF_ERROR(ir_pool_params_get(n, &p));
    VKML_RETURN_IF_ERROR(ir_pool_out_dim(&p, 0, x->dims[2], &oh));
    VKML_RETURN_IF_ERROR(ir_pool_out_dim(&p, 1, x->dims[3], &ow));
  }
  if (y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1] || y->dims[2] != oh ||
      y->dims[3] != ow)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: output shape does not match",
                            ir_op_name(n->op));
  /* the shader computes positions in int32 */
  int64_t lim = INT64_C(1) << 20;
  for (int i = 0; i < 2; i++)
    if (p.kernel[i] > lim || p.strides[i] > lim || p.dilations[i] > lim || p.pads[i] > lim ||
        p.pads[i + 2] > lim)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: window parameters beyond 2^20",
                              ir_op_name(n->op));

  /* one output per plane: no tile to share windows */
  cg_schedule global_dflt = cg_pool2d_template.dflt;
  global_dflt.v[KNOB_TW] = global_dflt.v[KNOB_TH] = 1;
  if (!s) s = is_global(n->op) ? &global_dflt : &cg_pool2d_template.dflt;
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, &cg_pool2d_template, s, t));
  int wg = s->v[KNOB_WG], tw = s->v[KNOB_TW], th = s->v[KNOB_TH];
  /* Register reuse unrolls the tile's rows and taps: only for small ones. */
  int64_t span_w = (tw - 1) * p.strides[1] + (p.kernel[1] - 1) * p.dilations[1] + 1;
  int64_t span_h = (th - 1) * p.strides[0] + (p.kernel[0] - 1) * p.dilations[0] + 1;
  bool reuse = (int64_t)th * tw * p.kernel[0] * p.kernel[1] <= 256 && span_w <= 64 && span_h <= 64;
  bool is_max = n->op == IR_OP_MAXPOOL || n->op == IR_OP_GLOBAL_MAX_POOL;
  static const char *const names[6] = {"KH", "KW", "SH", "SW", "DH", "DW"};
  int64_t vals[6] = {p.kernel[0],  p.kernel[1],    p.strides[0],
                     p.strides[1], p.dilations[0], p.dilations[1]};
  for (int i = 0; i < 6; i++)
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, names[i], "%lld", (long long)vals[i]));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "REUSE", "%d", reuse));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", x->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_I8", "%d",
                                        x->dtype == IR_U8 ? 1 : x->dtype == IR_I8 ? 2 : 0));
  if (packed) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACKED", "1"));
  if (nhwc) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "NHWC", "1"));

  int64_t c4 = (x->dims[1] + 3) / 4;
  int64_t planes = x->dims[0] * (packed ? c4 : x->dims[1]);
  int64_t tiles_w = (ow + tw - 1) / tw, tiles_h = (oh + th - 1) / th;
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_PLANES, (uint32_t)planes));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_H, (uint32_t)x->dims[2]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_W, (uint32_t)x->dims[3]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_OH, (uint32_t)oh));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_OW, (uint32_t)ow));
  for (int i = 0; i < 4; i++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_PT + (uint32_t)i, (uint32_t)p.pads[i]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_TILES_W, (uint32_t)(tiles_w ? tiles_w : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_TILES_H, (uint32_t)(tiles_h ? tiles_h : 1)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_IS_MAX, is_max));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_COUNT_PAD, !is_max && p.count_include_pad));
  if (packed || nhwc) VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_C, (uint32_t)x->dims[1]));
  if (packed) VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_POOL2D_C4, (uint32_t)c4));
  k->n_buffers = 2;

  char attrs[288];
  snprintf(attrs, sizeof attrs,
           "{kernel=[%lld,%lld],strides=[%lld,%lld],pads=[%lld,%lld,%lld,%lld],"
           "dilations=[%lld,%lld],ceil_mode=%d%s%s}",
           (long long)p.kernel[0], (long long)p.kernel[1], (long long)p.strides[0],
           (long long)p.strides[1], (long long)p.pads[0], (long long)p.pads[1],
           (long long)p.pads[2], (long long)p.pads[3], (long long)p.dilations[0],
           (long long)p.dilations[1], p.ceil_mode,
           is_max ? "" : (p.count_include_pad ? ",count_include_pad=1" : ",count_include_pad=0"),
           packed ? ",layout=nc4hw4" : nhwc ? ",layout=nhwc" : "");
  cg_node_key(n, attrs, k->key, sizeof k->key);

  int64_t invocations = planes * tiles_h * tiles_w;
  int64_t groups = invocations ? (invocations + wg - 1) / wg : 1;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %lld workgroups exceed the grid of %s",
                            ir_op_name(n->op), (long long)groups, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}
