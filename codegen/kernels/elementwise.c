/* GPU kernels of the elementwise families: unary ops and cast
 * (elementwise_unary), the copy family (copy), and the routing of the
 * binary, variadic and where families to elementwise_binary or
 * elementwise_nary (codegen/kernels/binary.c). Helpers shared by these templates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"

enum { KNOB_WG = 0, KNOB_EPI = 1 };

const cg_template cg_unary_template = {
    .name = "elementwise_unary",
    .glsl = "elementwise_unary.comp",
    CG_ELEMENTWISE_SPACE,
};

const cg_template cg_copy_template = {
    .name = "copy",
    .glsl = "copy.comp",
    CG_ELEMENTWISE_SPACE,
};

const cg_template cg_data_layout_template = {
    .name = "data_layout",
    .glsl = "data_layout.comp",
    CG_ELEMENTWISE_SPACE,
};

/* ---- shared helpers ------------------------------------------------------ */

static vkml_status check_arity(const ir_node *n, int n_in) {
  if (n->n_inputs != n_in || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %d inputs and %d outputs", ir_op_name(n->op),
                            n->n_inputs, n->n_outputs);
  return VKML_OK;
}

static bool same_dims(const ir_type *a, const ir_type *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* A rank-4 f32 / f16 tensor in nc4hw4: its packed element count, or an
 * UNSUPPORTED status naming the template. */
static vkml_status packed_count(const char *tmpl, const ir_value *v, const ir_target *target,
                                int64_t *count) {
  const ir_type *t = &v->type;
  if (v->layout != IR_LAYOUT_NC4HW4 || t->rank != 4 || t->bounded ||
      (t->dtype != IR_F32 && t->dtype != IR_F16))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %%%s in layout %s: packed kernels take rank-4 f32 / f16 "
                            "tensors in nc4hw4", tmpl, v->name ? v->name : "?",
                            ir_layout_name(v->layout));
  int64_t bytes = ir_type_storage_bytes(t, v->layout);
  *count = bytes / (int64_t)ir_dtype_size(t->dtype);
  if (*count >= (INT64_C(1) << 31) || (uint64_t)bytes > target->max_storage_buffer_range)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: the packed %%%s (%lld bytes) exceeds 2^31 elements or the "
                            "storage-buffer range of %s", tmpl, v->name ? v->name : "?",
                            (long long)bytes, target->name);
  return VKML_OK;
}

/* Appends "{layout=nc4hw4}" (the kernel differs from the default's). */
static void key_layout(cg_kernel *k, const char *what) {
  size_t len = strlen(k->key);
  snprintf(k->key + len, sizeof k->key - len, "{%s}", what);
}

/* ---- unary ops and cast --------------------------------------------------- */

static bool takes_ints(ir_op op) {
  return op == IR_OP_NEG || op == IR_OP_ABS || op == IR_OP_SIGN || op == IR_OP_CLIP;
}

/* ONNX's float32 constants for selu (as the reference). */
#define SELU_ALPHA 1.67326319217681884765625f
#define SELU_GAMMA 1.05070102214813232421875f

typedef struct unary_attrs {
  int n;              /* attributes that matter (for the key) */
  const char *name[2];
  float alpha, beta, gamma; /* shader ALPHA, BETA, GAMMA */
} unary_attrs;

static void unary_attrs_get(const ir_node *n, unary_attrs *a) {
  memset(a, 0, sizeof *a);
  switch (n->op) {
  case IR_OP_LEAKY_RELU:
    a->alpha = ir_node_float(n, IR_A_ALPHA, 0.01f);
    a->n = 1, a->name[0] = "alpha";
    break;
  case IR_OP_ELU:
    a->alpha = ir_node_float(n, IR_A_ALPHA, 1.0f);
    a->n = 1, a->name[0] = "alpha";
    break;
  case IR_OP_SELU:
    a->alpha = ir_node_float(n, IR_A_ALPHA, SELU_ALPHA);
    a->gamma = ir_node_float(n, IR_A_GAMMA, SELU_GAMMA);
    a->n = 2, a->name[0] = "alpha", a->name[1] = "gamma";
    break;
  case IR_OP_HARD_SIGMOID:
    a->alpha = ir_node_float(n, IR_A_ALPHA, 0.2f);
    a->beta = ir_node_float(n, IR_A_BETA, 0.5f);
    a->n = 2, a->name[0] = "alpha", a->name[1] = "beta";
    break;
  case IR_OP_CLIP:
    a->alpha = ir_node_float(n, IR_A_MIN, -INFINITY);
    a->beta = ir_node_float(n, IR_A_MAX, INFINITY);
    a->n = 2, a->name[0] = "min", a->name[1] = "max";
    break;
  default: break;
  }
}

static vkml_status unary_instantiate(const ir_node *n, const cg_schedule *s,
                                     const ir_target *target, cg_kernel *k) {
  const cg_template *tp = &cg_unary_template;
  VKML_RETURN_IF_ERROR(check_arity(n, 1));
  ir_op op = n->op;
  const ir_type *ti = &n->inputs[0]->type, *to = &n->outputs[0]->type;
  ir_dtype di = ti->dtype, dout = di;
  if (op == IR_OP_CAST) {
    const ir_attr *a = ir_node_attr(n, IR_A_TO);
    if (!a || a->u.i < 0 || a->u.i >= IR_DTYPE_COUNT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "cast: no valid 'to'");
    dout = (ir_dtype)a->u.i;
  } else if (cg_elt_unary_code(op) < 0) {
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: not a unary op", ir_op_name(op));
  } else if (op == IR_OP_NOT ? di != IR_BOOL
                             : !(ir_dtype_is_float(di) || (takes_ints(op) && ir_dtype_is_int(di)))) {
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s input", ir_op_name(op),
                            ir_dtype_name(di));
  }
  if (to->dtype != dout || !same_dims(ti, to))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: output type does not match the input",
                            ir_op_name(op));
  VKML_RETURN_IF_ERROR(cg_elt_check_type(tp->name, ti, target));
  VKML_RETURN_IF_ERROR(cg_elt_check_type(tp->name, to, target));
  /* packed: float unary ops, in and out both nc4hw4 (same dims, checked);
   * both nhwc: as the default layout */
  bool packed = ir_node_any_packed(n), nhwc = packed && ir_node_all_nhwc(n);
  int64_t count = ir_type_numel(ti);
  if (nhwc) {
    if (op == IR_OP_CAST || !ir_dtype_is_float(di)) return cg_check_default_layout(n, tp->name);
    packed = false;
  }
  if (packed) {
    if (op == IR_OP_CAST || !ir_dtype_is_float(di))
      return cg_check_default_layout(n, tp->name);
    VKML_RETURN_IF_ERROR(packed_count(tp->name, n->inputs[0], target, &count));
    VKML_RETURN_IF_ERROR(packed_count(tp->name, n->outputs[0], target, &count));
  }

  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tp, s, target));
  if (packed) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACKED", "1"));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "OP", "%d", cg_elt_unary_code(op)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTI", "%d", cg_elt_dtype_code(di)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTO", "%d", cg_elt_dtype_code(dout)));

  unary_attrs at;
  unary_attrs_get(n, &at);
  char tin[128], tout[128], attrs[128] = "";
  ir_type_format(ti, tin, sizeof tin);
  ir_type_format(to, tout, sizeof tout);
  float vals[2] = {at.alpha, op == IR_OP_SELU ? at.gamma : at.beta};
  for (int i = 0, len = 0; i < at.n; i++)
    len += snprintf(attrs + len, sizeof attrs - (size_t)len, "%s%s=%.9g%s", i ? "," : "{",
                    at.name[i], (double)vals[i], i == at.n - 1 ? "}" : "");
  snprintf(k->key, sizeof k->key, "%s(%s)->%s%s", ir_op_name(op), tin, tout, attrs);

  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_N, (uint32_t)count));
  if (nhwc) key_layout(k, "layout=nhwc");
  if (packed) {
    key_layout(k, "layout=nc4hw4");
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_PK_C, (uint32_t)ti->dims[1]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_PK_C4, (uint32_t)((ti->dims[1] + 3) / 4)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_PK_HW, (uint32_t)(ti->dims[2] * ti->dims[3])));
  }
  if (at.n) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_ALPHA, cg_elt_f32_bits(at.alpha)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_BETA, cg_elt_f32_bits(at.beta)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_GAMMA, cg_elt_f32_bits(at.gamma)));
  }
  if (op == IR_OP_CLIP && ir_dtype_is_int(di)) {
    /* bounds truncated toward zero (docs/ops.md); the 32-bit domain of
       i32 / u8 / i8 takes them saturated, which clamps alike */
    ir_dtype dom = di == IR_I64 ? IR_I64 : IR_I32;
    int64_t lo = ir_f64_to_int(at.alpha, dom), hi = ir_f64_to_int(at.beta, dom);
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_ILO0, (uint32_t)(uint64_t)lo));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_ILO1, (uint32_t)((uint64_t)lo >> 32)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_IHI0, (uint32_t)(uint64_t)hi));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_UNARY_IHI1, (uint32_t)((uint64_t)hi >> 32)));
  }
  k->n_buffers = 2;
  int wg = s->v[KNOB_WG], epi = s->v[KNOB_EPI];
  int vw = epi < 4 ? epi : 4;
  return cg_elt_grid(k, count / vw, (int64_t)wg * (epi / vw), target);
}

vkml_status cg_node_unary(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (st && st != &cg_unary_template) return cg_check_refuse_template(n, st);
  return unary_instantiate(n, cg_schedule_or_default(&cg_unary_template, s), t, out);
}

/* ---- copy ------------------------------------------------------------------ */

static vkml_status copy_instantiate(const ir_node *n, const cg_schedule *s,
                                    const ir_target *target, cg_kernel *k) {
  const cg_template *tp = &cg_copy_template;
  VKML_RETURN_IF_ERROR(check_arity(n, 1));
  const ir_type *ti = &n->inputs[0]->type, *to = &n->outputs[0]->type;
  if (ti->dtype != to->dtype || ir_type_numel(ti) != ir_type_numel(to))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: output is not the input's bytes",
                            ir_op_name(n->op));
  if (ti->bounded || to->bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "copy: bounded shapes run on the CPU");
  int64_t bytes = ir_type_bytes(ti);
  ir_layout lay = n->inputs[0]->layout;
  if (lay != IR_LAYOUT_DEFAULT || n->outputs[0]->layout != IR_LAYOUT_DEFAULT) {
    /* both packed alike (the caller routes conversions): the same bytes */
    if ((n->op != IR_OP_IDENTITY && n->op != IR_OP_REORDER) || lay != n->outputs[0]->layout ||
        !same_dims(ti, to))
      return cg_check_default_layout(n, tp->name);
    if (lay != IR_LAYOUT_NHWC || !ir_node_all_nhwc(n)) {
      int64_t cnt;
      VKML_RETURN_IF_ERROR(packed_count(tp->name, n->inputs[0], target, &cnt));
    }
    bytes = ir_type_storage_bytes(ti, lay);
  }
  if ((uint64_t)bytes > target->max_storage_buffer_range || bytes / 16 > (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "copy: %lld bytes exceed the storage-buffer range of %s",
                            (long long)bytes, target->name);
  bool byte_tail = bytes % 4 != 0;
  if (byte_tail && !target->storage_8bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "copy: %lld bytes (not whole words) need 8-bit storage, which %s lacks",
                            (long long)bytes, target->name);

  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tp, s, target));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "BYTE_TAIL", "%d", byte_tail));
  char tin[128], tout[128];
  ir_type_format(ti, tin, sizeof tin);
  ir_type_format(to, tout, sizeof tout);
  snprintf(k->key, sizeof k->key, "%s(%s)->%s", ir_op_name(n->op), tin, tout);
  if (lay != IR_LAYOUT_DEFAULT) key_layout(k, lay == IR_LAYOUT_NHWC ? "layout=nhwc" : "layout=nc4hw4");
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_COPY_NQ, (uint32_t)(bytes / 16)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_COPY_NW, (uint32_t)(bytes / 4)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_COPY_NB, (uint32_t)bytes));
  k->n_buffers = 2;
  return cg_elt_grid(k, bytes / 16, (int64_t)s->v[KNOB_WG] * s->v[KNOB_EPI], target);
}

/* ---- layout conversion (reorder / identity between layouts) ---------------- */

static vkml_status layout_instantiate(const ir_node *n, const cg_schedule *s,
                                      const ir_target *target, cg_kernel *k) {
  const cg_template *tp = &cg_data_layout_template;
  VKML_RETURN_IF_ERROR(check_arity(n, 1));
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  const ir_type *ti = &x->type, *to = &y->type;
  bool pack = y->layout == IR_LAYOUT_NC4HW4 && x->layout == IR_LAYOUT_DEFAULT;
  bool unpack = x->layout == IR_LAYOUT_NC4HW4 && y->layout == IR_LAYOUT_DEFAULT;
  if (!pack && !unpack)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: from layout %s to %s: %s converts "
                            "between default and nc4hw4 only", ir_op_name(n->op),
                            ir_layout_name(x->layout), ir_layout_name(y->layout), tp->name);
  if (!ir_type_equal(ti, to) || ti->rank != 4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s converts a rank-4 tensor to the same "
                            "type", ir_op_name(n->op), tp->name);
  int64_t es = (int64_t)ir_dtype_size(ti->dtype);
  if (es != 2 && es != 4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s moves 2- and 4-byte elements, not %s",
                            ir_op_name(n->op), tp->name, ir_dtype_name(ti->dtype));
  if (ti->bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: bounded shapes run on the CPU",
                            ir_op_name(n->op));
  if (es == 2 && !target->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: 2-byte elements need 16-bit storage, which %s lacks", tp->name,
                            target->name);
  int64_t c = ti->dims[1], c4 = (c + 3) / 4, hw = ti->dims[2] * ti->dims[3];
  int64_t texels = ti->dims[0] * c4 * hw;
  int64_t bytes = ir_type_storage_bytes(ti, IR_LAYOUT_NC4HW4);
  if (texels * 4 >= (INT64_C(1) << 31) || (uint64_t)bytes > target->max_storage_buffer_range)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld packed bytes exceed 2^31 elements or the storage-buffer "
                            "range of %s", tp->name, (long long)bytes, target->name);
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tp, s, target));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DIR", "%d", unpack));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ELEM_BYTES", "%d", (int)es));
  char tin[128];
  ir_type_format(ti, tin, sizeof tin);
  snprintf(k->key, sizeof k->key, "%s(%s)->%s{layout=%s->%s}", ir_op_name(n->op), tin, tin,
           ir_layout_name(x->layout), ir_layout_name(y->layout));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_LAYOUT_TEXELS, (uint32_t)texels));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_LAYOUT_C, (uint32_t)c));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_LAYOUT_C4, (uint32_t)c4));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_LAYOUT_HW, (uint32_t)hw));
  k->n_buffers = 2;
  return cg_elt_grid(k, texels, (int64_t)s->v[KNOB_WG] * s->v[KNOB_EPI], target);
}

vkml_status cg_node_copy(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(check_arity(n, 1));
  if (n->inputs[0]->layout == IR_LAYOUT_NHWC || n->outputs[0]->layout == IR_LAYOUT_NHWC) {
    if (n->inputs[0]->layout != n->outputs[0]->layout) return cg_data_reorder_nhwc(n, st, s, t, out);
  } else if (n->inputs[0]->layout != n->outputs[0]->layout) {
    if (st && st != &cg_data_layout_template) return cg_check_refuse_template(n, st);
    return layout_instantiate(n, cg_schedule_or_default(&cg_data_layout_template, s), t, out);
  }
  if (st && st != &cg_copy_template) return cg_check_refuse_template(n, st);
  return copy_instantiate(n, cg_schedule_or_default(&cg_copy_template, s), t, out);
}

/* A cast to the same type is a copy, unless the unary template is asked for. */
vkml_status cg_node_cast(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(check_arity(n, 1));
  VKML_RETURN_IF_ERROR(cg_check_default_layout(n, "cast"));
  bool same = n->inputs[0]->type.dtype == n->outputs[0]->type.dtype;
  if (st == &cg_copy_template || (!st && same)) {
    if (!same) return cg_check_refuse_template(n, st);
    return copy_instantiate(n, cg_schedule_or_default(&cg_copy_template, s), t, out);
  }
  if (st && st != &cg_unary_template) return cg_check_refuse_template(n, st);
  return unary_instantiate(n, cg_schedule_or_default(&cg_unary_template, s), t, out);
}

/* ---- binary, variadic, where ----------------------------------------------- */
