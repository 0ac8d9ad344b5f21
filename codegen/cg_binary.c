/* Elementwise binary ops: the template's space, workload keys and
 * instantiation (shape canonicalisation into merged axes, addressing modes,
 * vector-path choice, grid). */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_binary.h"

enum { KNOB_WG = 0, KNOB_EPI = 1 };

const cg_template cg_binary_template = {
    .name = "elementwise_binary",
    .glsl = "elementwise_binary.comp",
    .n_knobs = 2,
    .knobs =
        {
            {"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},
            {"EPI", 4, {1, 2, 4, 8}},
        },
    .n_constraints = 2,
    .constraints =
        {
            {CG_LIMIT_WORKGROUP_X, 1u << KNOB_WG, 1},
            {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << KNOB_WG, 1},
        },
    .dflt = {{128, 4}},
};

/* Spec constant ids (see the template). */
enum {
  SPEC_N = 0,
  SPEC_RANK = 1,
  SPEC_A_MODE = 2,
  SPEC_B_MODE = 3,
  SPEC_VEC_OK = 4,
  SPEC_ALPHA = 5,
  SPEC_BETA = 6,
  SPEC_D = 8,
  SPEC_SA = 16,
  SPEC_SB = 24,
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

static bool act_uses_alpha(ir_act a) {
  return a == IR_ACT_CLIP || a == IR_ACT_LEAKY_RELU || a == IR_ACT_ELU ||
         a == IR_ACT_HARD_SIGMOID;
}
static bool act_uses_beta(ir_act a) { return a == IR_ACT_CLIP || a == IR_ACT_HARD_SIGMOID; }

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
  return VKML_OK;
}

void cg_binary_workload_key(const cg_binary_workload *w, char *buf, int buf_bytes) {
  char ta[128], tb[128], to[128], act[96] = "";
  ir_type_format(&w->a, ta, sizeof ta);
  ir_type_format(&w->b, tb, sizeof tb);
  ir_type_format(&w->out, to, sizeof to);
  if (w->act.kind != IR_ACT_NONE) {
    int n = snprintf(act, sizeof act, "{act=%s", ir_enum_value_name(IR_ENUM_ACT, w->act.kind));
    if (act_uses_alpha(w->act.kind))
      n += snprintf(act + n, sizeof act - (size_t)n, ",act_alpha=%.9g", (double)w->act.alpha);
    if (act_uses_beta(w->act.kind))
      n += snprintf(act + n, sizeof act - (size_t)n, ",act_beta=%.9g", (double)w->act.beta);
    snprintf(act + n, sizeof act - (size_t)n, "}");
  }
  snprintf(buf, (size_t)buf_bytes, "%s(%s,%s)->%s%s", ir_op_name(w->op), ta, tb, to, act);
}

/* The output's axes (innermost first) with size-1 axes dropped and
 * neighbours merged where both inputs stay contiguous across them. */
typedef struct merged {
  int rank;
  int64_t d[IR_MAX_RANK], sa[IR_MAX_RANK], sb[IR_MAX_RANK];
} merged;

/* Broadcast strides of t against out's axes, outermost first. */
static void bcast_strides(const ir_type *t, const ir_type *out, int64_t *s) {
  int off = out->rank - t->rank;
  int64_t run = 1;
  for (int j = out->rank - 1; j >= 0; j--) {
    int k = j - off;
    if (k < 0) {
      s[j] = 0;
      continue;
    }
    s[j] = t->dims[k] == 1 ? 0 : run;
    run *= t->dims[k];
  }
}

static void merge_axes(const cg_binary_workload *w, merged *m) {
  int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK];
  bcast_strides(&w->a, &w->out, sa);
  bcast_strides(&w->b, &w->out, sb);
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

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
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
  uint32_t a_mode = addr_mode(&m, m.sa), b_mode = addr_mode(&m, m.sb);
  int wg = s->v[KNOB_WG], epi = s->v[KNOB_EPI];
  int vw = epi < 4 ? epi : 4;
  bool vec_ok = vw > 1 && m.rank > 0 && n % vw == 0 && m.d[0] % vw == 0;
  if (a_mode == 0) vec_ok = vec_ok && (m.sa[0] == 0 || m.sa[0] == 1);
  if (b_mode == 0) vec_ok = vec_ok && (m.sb[0] == 0 || m.sb[0] == 1);

  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_N, (uint32_t)n));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_RANK, (uint32_t)m.rank));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_A_MODE, a_mode));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_B_MODE, b_mode));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_VEC_OK, vec_ok));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_ALPHA, f32_bits(w->act.alpha)));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_BETA, f32_bits(w->act.beta)));
  for (int i = 0; i < m.rank; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_D + (uint32_t)i, (uint32_t)m.d[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_SA + (uint32_t)i, (uint32_t)m.sa[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, SPEC_SB + (uint32_t)i, (uint32_t)m.sb[i]));
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
