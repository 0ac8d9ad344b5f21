/* Broadcasting elementwise ops, elementwise_binary and elementwise_nary:
 * the templates' spaces, workload keys and instantiation (shape
 * canonicalisation into merged axes, addressing modes, vector-path choice,
 * grid). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "binary.h" /* its own header: the family's face for tests */

#include "codegen/core/key.h"

enum { KNOB_WG = 0, KNOB_EPI = 1 };

const cg_template cg_binary_template = {
    .name = "elementwise_binary",
    .glsl = "elementwise_binary.comp",
    CG_ELEMENTWISE_SPACE,
};


static int op_code(ir_op op) {
  switch (op) {
  case IR_OP_ADD: return 0;
  case IR_OP_SUB: return 1;
  case IR_OP_MUL: return 2;
  case IR_OP_DIV: return 3;
  case IR_OP_MIN: return 4;
  case IR_OP_MAX: return 5;
  default: return -1;
  }
}

vkml_status cg_binary_workload_from_node(const ir_node *n, cg_binary_workload *out) {
  memset(out, 0, sizeof *out);
  if (op_code(n->op) < 0 || n->n_inputs != 2 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "elementwise_binary: %s with %d inputs is not a binary op it runs",
                            ir_op_name(n->op), n->n_inputs);
  out->op = n->op;
  out->act.kind = IR_ACT_NONE;
  if (n->op != IR_OP_MIN && n->op != IR_OP_MAX) ir_act_params_get(n, &out->act);
  out->a = n->inputs[0]->type;
  out->b = n->inputs[1]->type;
  out->out = n->outputs[0]->type;
  ir_layout la = n->inputs[0]->layout, lb = n->inputs[1]->layout, lo = n->outputs[0]->layout;
  if (ir_node_all_nhwc(n)) {
    out->layout = IR_LAYOUT_NHWC; /* one shape (checked): as the default layout */
  } else if (la != IR_LAYOUT_DEFAULT || lb != IR_LAYOUT_DEFAULT || lo != IR_LAYOUT_DEFAULT) {
    if (la != IR_LAYOUT_NC4HW4 || lb != la || lo != la)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "elementwise_binary: %s with a, b, out in layouts %s, %s, %s (all "
                              "nc4hw4, all nhwc or all default)",
                              ir_op_name(n->op), ir_layout_name(la), ir_layout_name(lb),
                              ir_layout_name(lo));
    out->layout = IR_LAYOUT_NC4HW4;
  }
  return VKML_OK;
}

/* "{act=...,act_alpha=...}" or "" for no activation. */
static void act_format(const ir_act_params *a, char *buf, size_t buf_bytes) {
  int n = cg_act_key(a, buf, buf_bytes - 1); /* ",act=..." */
  if (n <= 0 || (size_t)n >= buf_bytes - 1) return;
  buf[0] = '{';
  buf[n] = '}';
  buf[n + 1] = '\0';
}

void cg_binary_workload_key(const cg_binary_workload *w, char *buf, int buf_bytes) {
  char ta[128], tb[128], to[128], act[96];
  ir_type_format(&w->a, ta, sizeof ta);
  ir_type_format(&w->b, tb, sizeof tb);
  ir_type_format(&w->out, to, sizeof to);
  act_format(&w->act, act, sizeof act);
  snprintf(buf, (size_t)buf_bytes, "%s(%s,%s)->%s%s%s", ir_op_name(w->op), ta, tb, to, act,
           w->layout == IR_LAYOUT_NC4HW4 ? "{layout=nc4hw4}"
           : w->layout == IR_LAYOUT_NHWC ? "{layout=nhwc}"
                                         : "");
}

/* The output's axes (innermost first) with size-1 axes dropped and
 * neighbours merged where both inputs stay contiguous across them. */
typedef struct merged {
  int rank;
  int64_t d[IR_MAX_RANK], sa[IR_MAX_RANK], sb[IR_MAX_RANK];
} merged;

static void merge_axes(const cg_binary_workload *w, merged *m) {
  int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK];
  cg_bcast_strides(&w->a, &w->out, sa);
  cg_bcast_strides(&w->b, &w->out, sb);
  m->rank = 0;
  for (int j = w->out.rank - 1; j >= 0; j--) {
    int64_t d = w->out.dims[j];
    if (d == 1) continue;
    if (m->rank) {
      int k = m->rank - 1;
      if (sa[j] == m->sa[k] * m->d[k] && sb[j] == m->sb[k] * m->d[k]) {
        m->d[k] *= d;
        continue;
      }
    }
    m->d[m->rank] = d;
    m->sa[m->rank] = sa[j];
    m->sb[m->rank] = sb[j];
    m->rank++;
  }
}

/* 1: addresses like the output, 2: a single element, 0: strided. */
static uint32_t addr_mode(const merged *m, const int64_t *s) {
  bool zero = true, contiguous = true;
  int64_t run = 1;
  for (int k = 0; k < m->rank; k++) {
    zero = zero && s[k] == 0;
    contiguous = contiguous && s[k] == run;
    run *= m->d[k];
  }
  return contiguous ? 1 : (zero ? 2 : 0);
}

static vkml_status check_workload(const cg_binary_workload *w, const ir_target *target) {
  if (op_code(w->op) < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "elementwise_binary: op %s",
                            ir_op_name(w->op));
  if ((w->op == IR_OP_MIN || w->op == IR_OP_MAX) && w->act.kind != IR_ACT_NONE)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "elementwise_binary: %s takes no act",
                            ir_op_name(w->op));
  if ((unsigned)w->act.kind >= IR_ACT_COUNT)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "elementwise_binary: bad act");
  ir_dtype dt = w->out.dtype;
  if (dt != IR_F32 && dt != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "elementwise_binary: %s is not f32 or f16",
                            ir_dtype_name(dt));
  if (w->a.dtype != dt || w->b.dtype != dt || w->a.bounded || w->b.bounded || w->out.bounded)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "elementwise_binary: mixed dtypes or bounded shapes");
  if (dt == IR_F16 && !target->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "elementwise_binary: f16 needs 16-bit storage, which %s lacks",
                            target->name);
  ir_type bc;
  VKML_RETURN_IF_ERROR(ir_broadcast(&w->a, &w->b, &bc));
  if (!ir_type_equal(&bc, &w->out))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "elementwise_binary: output shape is not the broadcast of the inputs");
  if (w->layout == IR_LAYOUT_NHWC) {
    if (w->out.rank != 4 || !ir_type_equal(&w->a, &w->out) || !ir_type_equal(&w->b, &w->out))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "elementwise_binary: nhwc needs a, b and out of one rank-4 shape");
  } else if (w->layout != IR_LAYOUT_DEFAULT) {
    if (w->layout != IR_LAYOUT_NC4HW4 || (w->op != IR_OP_ADD && w->op != IR_OP_SUB &&
                                          w->op != IR_OP_MUL && w->op != IR_OP_DIV))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "elementwise_binary: %s in layout %s (nc4hw4: add, sub, mul, div)",
                              ir_op_name(w->op), ir_layout_name(w->layout));
    if (w->out.rank != 4 || !ir_type_equal(&w->a, &w->out) || !ir_type_equal(&w->b, &w->out))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "elementwise_binary: nc4hw4 needs a, b and out of one rank-4 shape");
    if (ir_type_storage_bytes(&w->out, w->layout) / 2 >= (INT64_C(1) << 31))
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "elementwise_binary: more than 2^31 packed elements");
  }
  /* offsets are 32-bit in the shader */
  int64_t lim = INT64_C(1) << 31;
  if (ir_type_numel(&w->out) > lim || ir_type_numel(&w->a) > lim || ir_type_numel(&w->b) > lim)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "elementwise_binary: more than 2^31 elements");
  return VKML_OK;
}

vkml_status cg_binary_instantiate(const cg_binary_workload *w, const cg_schedule *s,
                                  const ir_target *target, cg_kernel *k) {
  memset(k, 0, sizeof *k);
  VKML_RETURN_IF_ERROR(check_workload(w, target));
  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, &cg_binary_template, s, target));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "OP", "%d", op_code(w->op)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ACT", "%d", (int)w->act.kind));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTYPE_F16", "%d", w->out.dtype == IR_F16));
  cg_binary_workload_key(w, k->key, sizeof k->key);

  merged m;
  merge_axes(w, &m);
  int64_t n = ir_type_numel(&w->out);
  bool packed = w->layout == IR_LAYOUT_NC4HW4;
  int64_t pc = 0, pc4 = 0, phw = 0;
  if (packed) {
    /* one shape, one layout: the packed buffers are added element by element */
    pc = w->out.dims[1], pc4 = (pc + 3) / 4, phw = w->out.dims[2] * w->out.dims[3];
    n = w->out.dims[0] * pc4 * phw * 4;
    m.rank = 1;
    m.d[0] = n;
    m.sa[0] = m.sb[0] = 1;
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACKED", "1"));
  }
  uint32_t a_mode = addr_mode(&m, m.sa), b_mode = addr_mode(&m, m.sb);
  int wg = s->v[KNOB_WG], epi = s->v[KNOB_EPI];
  int vw = epi < 4 ? epi : 4;
  bool vec_ok = vw > 1 && m.rank > 0 && n % vw == 0 && m.d[0] % vw == 0;
  if (a_mode == 0) vec_ok = vec_ok && (m.sa[0] == 0 || m.sa[0] == 1);
  if (b_mode == 0) vec_ok = vec_ok && (m.sb[0] == 0 || m.sb[0] == 1);

  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_N, (uint32_t)n));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_RANK, (uint32_t)m.rank));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_A_MODE, a_mode));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_B_MODE, b_mode));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_VEC_OK, vec_ok));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_ACT_ALPHA, cg_elt_f32_bits(w->act.alpha)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_ACT_BETA, cg_elt_f32_bits(w->act.beta)));
  for (int i = 0; i < m.rank; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_D0 + (uint32_t)i, (uint32_t)m.d[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_SA0 + (uint32_t)i, (uint32_t)m.sa[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_SB0 + (uint32_t)i, (uint32_t)m.sb[i]));
  }
  if (packed) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_PK_C, (uint32_t)pc));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_PK_C4, (uint32_t)pc4));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_BINARY_PK_HW, (uint32_t)phw));
  }
  k->n_buffers = 3;
  k->push_bytes = 0;

  /* one invocation per EPI elements; a 2-D grid past the x limit */
  int64_t per_group = (int64_t)wg * epi;
  int64_t groups = n ? (n + per_group - 1) / per_group : 1;
  int64_t gx = groups < target->max_workgroup_count[0] ? groups : target->max_workgroup_count[0];
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > target->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "elementwise_binary: %lld workgroups exceed the grid of %s",
                            (long long)groups, target->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}

/* ---- elementwise_nary ------------------------------------------------------ */

const cg_template cg_nary_template = {
    .name = "elementwise_nary",
    .glsl = "elementwise_nary.comp",
    CG_ELEMENTWISE_SPACE,
};


int cg_nary_code(ir_op op) {
  switch (op) {
  case IR_OP_ADD: return 0;
  case IR_OP_SUB: return 1;
  case IR_OP_MUL: return 2;
  case IR_OP_DIV: return 3;
  case IR_OP_POW: return 4;
  case IR_OP_PRELU: return 5;
  case IR_OP_EQUAL: return 6;
  case IR_OP_GREATER: return 7;
  case IR_OP_LESS: return 8;
  case IR_OP_GREATER_OR_EQUAL: return 9;
  case IR_OP_LESS_OR_EQUAL: return 10;
  case IR_OP_AND: return 11;
  case IR_OP_OR: return 12;
  case IR_OP_MIN: return 13;
  case IR_OP_MAX: return 14;
  case IR_OP_SUM: return 15;
  case IR_OP_MEAN: return 16;
  case IR_OP_WHERE: return 17;
  case IR_OP_XOR: return 18;
  case IR_OP_MOD: return 19;
  default: return -1;
  }
}

static bool is_arith(ir_op op) {
  return op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL || op == IR_OP_DIV;
}

vkml_status cg_nary_workload_from_node(const ir_node *n, cg_nary_workload *out) {
  memset(out, 0, sizeof *out);
  if (cg_nary_code(n->op) < 0 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "elementwise_nary: %s is not an op it runs",
                            ir_op_name(n->op));
  if (n->n_inputs < 1 || n->n_inputs > CG_NARY_MAX_INPUTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "elementwise_nary: %s with %d inputs (at most %d: one binding each)",
                            ir_op_name(n->op), n->n_inputs, CG_NARY_MAX_INPUTS);
  out->op = n->op;
  out->act.kind = IR_ACT_NONE;
  if (is_arith(n->op)) ir_act_params_get(n, &out->act);
  out->fmod = n->op == IR_OP_MOD && ir_node_int(n, IR_A_FMOD, 0) != 0;
  out->n_in = n->n_inputs;
  for (int i = 0; i < n->n_inputs; i++) out->in[i] = n->inputs[i]->type;
  out->out = n->outputs[0]->type;
  return VKML_OK;
}

void cg_nary_workload_key(const cg_nary_workload *w, char *buf, int buf_bytes) {
  char t[128], act[96];
  int len = snprintf(buf, (size_t)buf_bytes, "%s(", ir_op_name(w->op));
  for (int i = 0; i < w->n_in && len < buf_bytes; i++) {
    ir_type_format(&w->in[i], t, sizeof t);
    len += snprintf(buf + len, (size_t)(buf_bytes - len), "%s%s", i ? "," : "", t);
  }
  ir_type_format(&w->out, t, sizeof t);
  act_format(&w->act, act, sizeof act);
  if (len < buf_bytes)
    snprintf(buf + len, (size_t)(buf_bytes - len), ")->%s%s%s", t, act,
             w->fmod ? "{fmod=1}" : "");
}

static vkml_status nary_unsupported(const cg_nary_workload *w, const char *why) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "elementwise_nary: %s %s", ir_op_name(w->op),
                          why);
}

/* Dtype rules of docs/ops.md (as the reference kernels check them). */
static vkml_status nary_check_dtypes(const cg_nary_workload *w, const ir_target *target,
                                     bool *wide) {
  ir_op op = w->op;
  ir_dtype a = w->in[0].dtype, b = w->n_in > 1 ? w->in[1].dtype : a, o = w->out.dtype;
  bool cmp = op >= IR_OP_EQUAL && op <= IR_OP_LESS_OR_EQUAL;
  int want_in = op == IR_OP_WHERE ? 3
                : cg_nary_code(op) <= cg_nary_code(IR_OP_OR) || op == IR_OP_XOR ||
                          op == IR_OP_MOD
                      ? 2
                                                                                : 0;
  *wide = false;
  if (want_in && w->n_in != want_in) return nary_unsupported(w, "with a wrong input count");
  for (int i = 2; i < w->n_in; i++)
    if (w->in[i].dtype != b) return nary_unsupported(w, "with mixed input dtypes");
  if (op == IR_OP_WHERE) {
    if (a != IR_BOOL || o != b) return nary_unsupported(w, "needs a bool condition, x and y alike");
    return VKML_OK;
  }
  if (op != IR_OP_POW && a != b) return nary_unsupported(w, "with mixed input dtypes");
  if (op == IR_OP_AND || op == IR_OP_OR || op == IR_OP_XOR) {
    if (a != IR_BOOL || o != IR_BOOL) return nary_unsupported(w, "needs bool inputs and output");
    return VKML_OK;
  }
  if (cmp) {
    if (o != IR_BOOL) return nary_unsupported(w, "needs a bool output");
    return VKML_OK;
  }
  if (a == IR_BOOL || b == IR_BOOL || o != a) return nary_unsupported(w, "needs numeric inputs");
  bool fa = ir_dtype_is_float(a);
  if (op == IR_OP_MEAN && !fa) return nary_unsupported(w, "takes floats only");
  /* float mod: math.glsl's fmod_, exact as C's */
  /* the reference truncates pow(int, float) from double: fp32 would differ
     wherever the exact result is an integer */
  if (op == IR_OP_POW && !fa && ir_dtype_is_float(b))
    return nary_unsupported(w, "with an integer base and a float exponent runs on the CPU");
  if ((unsigned)w->act.kind >= IR_ACT_COUNT) return nary_unsupported(w, "with a bad act");
  if (!fa && w->act.kind != IR_ACT_NONE) {
    ir_act k = w->act.kind;
    if (k != IR_ACT_RELU && k != IR_ACT_RELU6 && k != IR_ACT_CLIP)
      return nary_unsupported(w, "on integers fuses relu, relu6 or clip only");
    /* the reference applies it to the unwrapped int64 result */
    if (a == IR_I32) {
      if (!target->int64_arith)
        return nary_unsupported(w, "on i32 with an activation needs shaderInt64");
      *wide = true;
    }
  }
  return VKML_OK;
}

vkml_status cg_nary_instantiate(const cg_nary_workload *w, const cg_schedule *s,
                                const ir_target *target, cg_kernel *k) {
  const char *name = cg_nary_template.name;
  memset(k, 0, sizeof *k);
  if (cg_nary_code(w->op) < 0 || w->n_in < 1 || w->n_in > CG_NARY_MAX_INPUTS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s with %d inputs", name,
                            ir_op_name(w->op), w->n_in);
  bool wide;
  VKML_RETURN_IF_ERROR(nary_check_dtypes(w, target, &wide));
  ir_type bc = w->in[0];
  for (int i = 0; i < w->n_in; i++) {
    VKML_RETURN_IF_ERROR(cg_elt_check_type(name, &w->in[i], target));
    if (i) {
      ir_type t = bc;
      VKML_RETURN_IF_ERROR(ir_broadcast(&t, &w->in[i], &bc));
    }
  }
  VKML_RETURN_IF_ERROR(cg_elt_check_type(name, &w->out, target));
  bool dims_ok = bc.rank == w->out.rank;
  for (int j = 0; dims_ok && j < bc.rank; j++) dims_ok = bc.dims[j] == w->out.dims[j];
  if (w->op == IR_OP_PRELU) /* the slope broadcasts to x, never x to the slope */
    dims_ok = dims_ok && w->in[0].rank == bc.rank &&
              !memcmp(w->in[0].dims, bc.dims, sizeof(int64_t) * (size_t)bc.rank);
  if (!dims_ok)
    return nary_unsupported(w, "output shape is not the broadcast of the inputs");

  cg_bcast_merged m;
  cg_bcast_merge(w->n_in, w->in, &w->out, &m);
  ir_dtype da = w->in[0].dtype;
  bool fact = ir_dtype_is_float(da) && is_arith(w->op) && w->act.kind != IR_ACT_NONE;
  bool iclip = !ir_dtype_is_float(da) && w->act.kind == IR_ACT_CLIP;
  int n_spec = 3 + m.rank + (fact ? 2 : 0) + (iclip ? 4 : 0);
  for (int i = 0; i < w->n_in; i++) n_spec += (m.mode[i] != 1) + (m.mode[i] == 0 ? m.rank : 0);
  if (n_spec > CG_MAX_SPEC)
    return nary_unsupported(w, "broadcast needs too many specialization constants");

  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, &cg_nary_template, s, target));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "OP", "%d", cg_nary_code(w->op)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "ACT", "%d", (int)w->act.kind));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "NIN", "%d", w->n_in));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "FMOD", "%d", w->fmod));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTA", "%d", cg_elt_dtype_code(da)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(
      k, "DTB", "%d", cg_elt_dtype_code(w->n_in > 1 ? w->in[1].dtype : da)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DTO", "%d", cg_elt_dtype_code(w->out.dtype)));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "WIDE_I32", "%d", wide));
  cg_nary_workload_key(w, k->key, sizeof k->key);

  int64_t n = ir_type_numel(&w->out);
  int wg = s->v[KNOB_WG], epi = s->v[KNOB_EPI];
  int vw = epi < 4 ? epi : 4;
  bool vec_ok = vw > 1 && m.rank > 0 && (m.rank == 1 || m.d[0] % vw == 0);
  for (int i = 0; i < w->n_in; i++)
    if (m.mode[i] == 0) vec_ok = vec_ok && (m.s[i][0] == 0 || m.s[i][0] == 1);

  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_N, (uint32_t)n));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_RANK, (uint32_t)m.rank));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_VEC_OK, vec_ok));
  if (fact) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_ACT_ALPHA, cg_elt_f32_bits(w->act.alpha)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_ACT_BETA, cg_elt_f32_bits(w->act.beta)));
  }
  if (iclip) {
    /* bounds truncated toward zero (as the reference's), saturated to the
       32-bit domain unless the kernel computes in int64_t */
    double bd[2] = {w->act.alpha, w->act.beta};
    for (int i = 0; i < 2; i++) {
      int64_t v = isnan(bd[i]) ? 0
                  : bd[i] >= 9223372036854775808.0 ? INT64_MAX
                  : bd[i] < -9223372036854775808.0 ? INT64_MIN
                                                   : (int64_t)bd[i];
      if (da != IR_I64 && !wide) v = v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : v);
      uint32_t id = i ? CG_SPEC_ELEMENTWISE_NARY_IHI0 : CG_SPEC_ELEMENTWISE_NARY_ILO0;
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, id, (uint32_t)(uint64_t)v));
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, id + 1, (uint32_t)((uint64_t)v >> 32)));
    }
  }
  for (int j = 0; j < m.rank; j++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_D0 + (uint32_t)j, (uint32_t)m.d[j]));
  for (int i = 0; i < w->n_in; i++) {
    if (m.mode[i] != 1)
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_M0 + (uint32_t)i, m.mode[i]));
    if (m.mode[i] == 0)
      for (int j = 0; j < m.rank; j++)
        VKML_RETURN_IF_ERROR(
            cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_NARY_S0_0 + 8 * (uint32_t)i + (uint32_t)j, (uint32_t)m.s[i][j]));
  }
  k->n_buffers = w->n_in + 1;
  k->push_bytes = 0;
  if (vec_ok) return cg_elt_grid(k, n / vw, (int64_t)wg * (epi / vw), target);
  return cg_elt_grid(k, n, (int64_t)wg * epi, target);
}

/* f32 / f16 add, sub, mul, div and two-input min / max go to
 * elementwise_binary; the rest (and anything when elementwise_nary's
 * schedule is given) to elementwise_nary. */
static vkml_status broadcast_node(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                  const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (st && st != &cg_binary_template && st != &cg_nary_template) return cg_check_refuse_template(n, st);
  if (ir_node_any_packed(n)) {
    /* packed: elementwise_binary's same-shape path, or nothing */
    if (st == &cg_nary_template) return cg_check_default_layout(n, cg_nary_template.name);
    cg_binary_workload bw;
    VKML_RETURN_IF_ERROR(cg_binary_workload_from_node(n, &bw));
    if (bw.layout == IR_LAYOUT_DEFAULT) return cg_check_default_layout(n, cg_binary_template.name);
    return cg_binary_instantiate(&bw, cg_schedule_or_default(&cg_binary_template, s), t, out);
  }
  if (st != &cg_nary_template) {
    cg_binary_workload bw;
    vkml_status e = cg_binary_workload_from_node(n, &bw);
    bool fl = !e && (bw.out.dtype == IR_F32 || bw.out.dtype == IR_F16) &&
              bw.a.dtype == bw.out.dtype && bw.b.dtype == bw.out.dtype;
    if (fl) return cg_binary_instantiate(&bw, cg_schedule_or_default(&cg_binary_template, s), t, out);
    if (st == &cg_binary_template) {
      if (e) return e;
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "elementwise_binary: %s is not f32 or f16",
                              ir_dtype_name(bw.out.dtype));
    }
    vkml_status_free(e);
  }
  cg_nary_workload w;
  VKML_RETURN_IF_ERROR(cg_nary_workload_from_node(n, &w));
  return cg_nary_instantiate(&w, cg_schedule_or_default(&cg_nary_template, s), t, out);
}

vkml_status cg_node_binary(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  return broadcast_node(n, st, s, t, out);
}

vkml_status cg_node_variadic(const ir_node *n, const cg_template *st, const cg_schedule *s,
                             const ir_target *t, cg_kernel *out) {
  return broadcast_node(n, st, s, t, out);
}

vkml_status cg_node_where(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (st && st != &cg_nary_template) return cg_check_refuse_template(n, st);
  VKML_RETURN_IF_ERROR(cg_check_default_layout(n, cg_nary_template.name));
  cg_nary_workload w;
  VKML_RETURN_IF_ERROR(cg_nary_workload_from_node(n, &w));
  return cg_nary_instantiate(&w, cg_schedule_or_default(&cg_nary_template, s), t, out);
}

