/* fused_elementwise on the GPU: the template elementwise_fused
 * (glsl/elementwise_fused.comp), its space (the elementwise one), workload
 * key and instantiation. The program's length and op codes are #defines
 * (the optimizer folds every slot's op switch and drops the unused slots:
 * a module holds only the ops it runs, some 10 KB instead of 325 KB when
 * all 16 slots and every op were kept for specialization time), its
 * scalars specialization constants; the inputs are addressed as
 * elementwise_nary's (cg_bcast_merge). Row-major operands only: the layout
 * pass never packs it (cg_node_layout_operands answers 0). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

enum { KNOB_WG = 0, KNOB_EPI = 1 };

const cg_template cg_fused_template = {
    .name = "elementwise_fused",
    .glsl = "elementwise_fused.comp",
    CG_ELEMENTWISE_SPACE,
};


/* The shader's op code: unary.glsl's below 64, 64 + k for the binary ops. */
static int shader_op(ir_op op) {
  switch (op) {
  case IR_OP_ADD: return 64;
  case IR_OP_SUB: return 65;
  case IR_OP_MUL: return 66;
  case IR_OP_DIV: return 67;
  case IR_OP_POW: return 68;
  case IR_OP_PRELU: return 69;
  case IR_OP_MIN: return 70;
  case IR_OP_MAX: return 71;
  default: {
    int c = cg_elt_unary_code(op);
    return c >= 0 && c < 64 && ir_fused_op_arity(op) == 1 ? c : -1;
  }
  }
}

static vkml_status unsupported(const char *why) {
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "elementwise_fused: %s", why);
}

vkml_status cg_node_fused_elementwise(const ir_node *n, const cg_template *st,
                                      const cg_schedule *s, const ir_target *target,
                                      cg_kernel *k) {
  const cg_template *tp = &cg_fused_template;
  memset(k, 0, sizeof *k);
  if (st && st != tp)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "fused_elementwise: schedule of template %s does not apply", st->name);
  if (!s) s = &tp->dflt;
  ir_fused_program p;
  VKML_RETURN_IF_ERROR(ir_fused_program_get(n, &p));
  if (n->n_inputs > CG_BCAST_MAX_INPUTS || n->n_outputs != 1)
    return unsupported("more inputs than bindings it has");
  const ir_type *out = &n->outputs[0]->type;
  ir_type in[CG_BCAST_MAX_INPUTS];
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[0];
    if (v->layout != IR_LAYOUT_DEFAULT) return unsupported("packed operands");
    if (v->type.dtype != IR_F32 && v->type.dtype != IR_F16) return unsupported("not f32 or f16");
    if (v->type.dtype != out->dtype) return unsupported("mixed dtypes");
    VKML_RETURN_IF_ERROR(cg_elt_check_type(tp->name, &v->type, target));
    if (i < n->n_inputs) in[i] = v->type;
  }
  ir_type bc = in[0];
  for (int i = 1; i < n->n_inputs; i++) {
    ir_type t = bc;
    VKML_RETURN_IF_ERROR(ir_broadcast(&t, &in[i], &bc));
  }
  if (!ir_type_equal(&bc, out)) return unsupported("output is not the broadcast of the inputs");

  cg_bcast_merged m;
  cg_bcast_merge(n->n_inputs, in, out, &m);
  int n_spec = 2 + m.rank + 2 * p.n_instr;
  for (int i = 0; i < n->n_inputs; i++) n_spec += 1 + (m.mode[i] == 0 ? m.rank : 0);
  if (n_spec > CG_MAX_SPEC) return unsupported("needs too many specialization constants");

  VKML_RETURN_IF_ERROR(cg_kernel_begin(k, tp, s, target));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "DT", "%d", out->dtype == IR_F16));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "NIN", "%d", n->n_inputs));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "N_INSTR", "%d", p.n_instr));

  /* key: the types, then the program as the text form writes it */
  int len = snprintf(k->key, sizeof k->key, "%s(", ir_op_name(n->op));
  char t[128];
  for (int i = 0; i <= n->n_inputs && len < (int)sizeof k->key; i++) {
    ir_type_format(i < n->n_inputs ? &in[i] : out, t, sizeof t);
    len += snprintf(k->key + len, sizeof k->key - (size_t)len, "%s%s",
                    i == n->n_inputs ? ")->" : (i ? "," : ""), t);
  }
  if (len < (int)sizeof k->key)
    len += snprintf(k->key + len, sizeof k->key - (size_t)len, "{ops=%s,regs=",
                    ir_node_string(n, IR_A_OPS));
  for (int i = 0; i < p.n_instr && len < (int)sizeof k->key; i++)
    len += snprintf(k->key + len, sizeof k->key - (size_t)len, "%s%d,%d", i ? "," : "[",
                    p.instr[i].a, p.instr[i].b);
  for (int i = 0; i < p.n_instr && len < (int)sizeof k->key; i++)
    len += snprintf(k->key + len, sizeof k->key - (size_t)len, "%s%.9g,%.9g",
                    i ? "," : "],params=[", (double)p.instr[i].p[0], (double)p.instr[i].p[1]);
  if (len < (int)sizeof k->key) snprintf(k->key + len, sizeof k->key - (size_t)len, "]}");

  int64_t count = ir_type_numel(out);
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_N, (uint32_t)count));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_RANK, (uint32_t)m.rank));
  for (int j = 0; j < m.rank; j++)
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_D0 + (uint32_t)j, (uint32_t)m.d[j]));
  for (int i = 0; i < n->n_inputs; i++) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_M0 + (uint32_t)i, m.mode[i]));
    if (m.mode[i] == 0)
      for (int j = 0; j < m.rank; j++)
        VKML_RETURN_IF_ERROR(
            cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_S0_0 + 8 * (uint32_t)i + (uint32_t)j, (uint32_t)m.s[i][j]));
  }
  for (int i = 0; i < p.n_instr; i++) {
    const ir_fused_instr *in_i = &p.instr[i];
    int op = shader_op(in_i->op);
    if (op < 0) return unsupported("an op it does not run");
    int b = in_i->b < 0 ? in_i->a : in_i->b; /* unary: a harmless read */
    uint32_t code = (uint32_t)op | (uint32_t)in_i->a << 8 | (uint32_t)b << 16 |
                    (uint32_t)in_i->act.kind << 24;
    char name[16];
    snprintf(name, sizeof name, "C%d", i);
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, name, "%uu", code));
    VKML_RETURN_IF_ERROR(
        cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_PA0 + 2 * (uint32_t)i, cg_elt_f32_bits(in_i->p[0])));
    VKML_RETURN_IF_ERROR(
        cg_kernel_spec(k, CG_SPEC_ELEMENTWISE_FUSED_PA0 + 2 * (uint32_t)i + 1, cg_elt_f32_bits(in_i->p[1])));
  }
  k->n_buffers = n->n_inputs + 1;
  k->push_bytes = 0;
  return cg_elt_grid(k, count, (int64_t)s->v[KNOB_WG] * s->v[KNOB_EPI], target);
}
