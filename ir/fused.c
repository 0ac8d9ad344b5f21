/* fused_elementwise's program (params.h): which ops a program may hold, the
 * decoder and checker of its attributes, the mapping of an unfused node's
 * scalars onto an instruction's. The text form is
 *
 *   ops="mul sigmoid add:relu"   one op name per instruction, ':act' for
 *                                add sub mul div with a fused activation
 *   regs=[0,1, 3,-1, 4,2]        two operand registers per instruction
 *                                (-1: none, for a unary op)
 *   params=[...]                 two floats per instruction (absent: 0) */
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "params.h"

int ir_fused_op_arity(ir_op op) {
  switch (op) {
  case IR_OP_RELU: case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_EXP: case IR_OP_LOG:
  case IR_OP_SQRT: case IR_OP_ERF: case IR_OP_NEG: case IR_OP_ABS: case IR_OP_RECIPROCAL:
  case IR_OP_SOFTPLUS: case IR_OP_SIGN: case IR_OP_FLOOR: case IR_OP_CEIL: case IR_OP_ROUND:
  case IR_OP_HARD_SWISH: case IR_OP_LEAKY_RELU: case IR_OP_ELU: case IR_OP_SELU:
  case IR_OP_HARD_SIGMOID: case IR_OP_CLIP: case IR_OP_SIN: case IR_OP_COS: case IR_OP_TAN:
  case IR_OP_ASIN: case IR_OP_ACOS: case IR_OP_ATAN: case IR_OP_SINH: case IR_OP_COSH:
  case IR_OP_ASINH: case IR_OP_ACOSH: case IR_OP_ATANH:
    return 1;
  case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_POW:
  case IR_OP_PRELU: case IR_OP_MIN: case IR_OP_MAX:
    return 2;
  default: return 0;
  }
}

static bool takes_act(ir_op op) {
  return op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL || op == IR_OP_DIV;
}

static vkml_status bad(const ir_node *n, const char *fmt, const char *arg, int i) {
  char msg[160];
  snprintf(msg, sizeof msg, fmt, arg, i);
  return ir_infer_error("%s: %s", ir_op_name(n->op), msg);
}

/* The instruction's op (and act) from the token tok[0..len). */
static vkml_status parse_op(const ir_node *n, int i, const char *tok, size_t len,
                            ir_fused_instr *in) {
  const char *colon = memchr(tok, ':', len);
  size_t op_len = colon ? (size_t)(colon - tok) : len;
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(len < 60 ? len : 60), tok);
  if (!ir_op_from_name(tok, op_len, &in->op))
    return bad(n, "ops: '%s' (instruction %d) is not an op", name, i);
  if (!ir_fused_op_arity(in->op))
    return bad(n, "ops: %s (instruction %d) is not an op a fused program may hold", name, i);
  in->act.kind = IR_ACT_NONE;
  if (colon) {
    int act;
    if (!takes_act(in->op))
      return bad(n, "ops: '%s' (instruction %d): only add, sub, mul and div take an act", name,
                 i);
    if (!ir_enum_from_name(IR_ENUM_ACT, colon + 1, len - op_len - 1, &act))
      return bad(n, "ops: '%s' (instruction %d) names no act", name, i);
    in->act.kind = (ir_act)act;
  }
  return VKML_OK;
}

vkml_status ir_fused_program_get(const ir_node *n, ir_fused_program *out) {
  memset(out, 0, sizeof *out);
  out->n_in = n->n_inputs;
  const char *ops = ir_node_string(n, IR_A_OPS);
  if (!ops) return ir_infer_error("%s: attribute 'ops' is required", ir_op_name(n->op));
  for (const char *p = ops;;) {
    while (*p == ' ') p++;
    if (!*p) break;
    size_t len = strcspn(p, " ");
    if (out->n_instr == IR_FUSED_MAX_INSTRS)
      return ir_infer_error("%s: more than %d instructions", ir_op_name(n->op),
                            IR_FUSED_MAX_INSTRS);
    VKML_RETURN_IF_ERROR(parse_op(n, out->n_instr, p, len, &out->instr[out->n_instr]));
    out->n_instr++;
    p += len;
  }
  if (out->n_instr == 0) return ir_infer_error("%s: 'ops' is empty", ir_op_name(n->op));

  const int64_t *regs;
  int n_regs = ir_node_ints(n, IR_A_REGS, &regs);
  if (n_regs != 2 * out->n_instr)
    return ir_infer_error("%s: regs must have 2 entries per instruction (%d), got %d",
                          ir_op_name(n->op), 2 * out->n_instr, n_regs < 0 ? 0 : n_regs);
  const float *params;
  int n_params = ir_node_floats(n, IR_A_PARAMS, &params);
  if (n_params >= 0 && n_params != 2 * out->n_instr)
    return ir_infer_error("%s: params must have 2 entries per instruction (%d), got %d",
                          ir_op_name(n->op), 2 * out->n_instr, n_params);
  for (int i = 0; i < out->n_instr; i++) {
    ir_fused_instr *in = &out->instr[i];
    int64_t a = regs[2 * i], b = regs[2 * i + 1], defined = out->n_in + i;
    bool unary = ir_fused_op_arity(in->op) == 1;
    if (a < 0 || a >= defined || (unary ? b != -1 : (b < 0 || b >= defined)))
      return ir_infer_error("%s: instruction %d (%s) reads registers %lld, %lld: %s",
                            ir_op_name(n->op), i, ir_op_name(in->op), (long long)a,
                            (long long)b,
                            unary ? "a unary op reads one register below its own and "
                                    "-1 as the second"
                                  : "a binary op reads two registers below its own");
    in->a = (int)a;
    in->b = (int)b;
    in->p[0] = n_params < 0 ? 0 : params[2 * i];
    in->p[1] = n_params < 0 ? 0 : params[2 * i + 1];
    in->act.alpha = in->act.kind != IR_ACT_NONE ? in->p[0] : 0;
    in->act.beta = in->act.kind != IR_ACT_NONE ? in->p[1] : 0;
  }
  return VKML_OK;
}

void ir_fused_instr_params(const ir_node *n, float p[2]) {
  p[0] = p[1] = 0;
  if (takes_act(n->op)) {
    ir_act_params a;
    ir_act_params_get(n, &a);
    if (a.kind != IR_ACT_NONE) p[0] = a.alpha, p[1] = a.beta;
    return;
  }
  ir_unary_params u;
  ir_unary_params_get(n, &u);
  switch (n->op) {
  case IR_OP_LEAKY_RELU: case IR_OP_ELU: p[0] = u.alpha; break;
  case IR_OP_SELU: p[0] = u.alpha, p[1] = u.gamma; break;
  case IR_OP_HARD_SIGMOID: p[0] = u.alpha, p[1] = u.beta; break;
  case IR_OP_CLIP: p[0] = u.lo, p[1] = u.hi; break;
  default: break;
  }
}

void ir_fused_unary_params(const ir_fused_instr *i, ir_unary_params *out) {
  memset(out, 0, sizeof *out);
  switch (i->op) {
  case IR_OP_LEAKY_RELU: case IR_OP_ELU: out->alpha = i->p[0]; break;
  case IR_OP_SELU: out->alpha = i->p[0], out->gamma = i->p[1]; break;
  case IR_OP_HARD_SIGMOID: out->alpha = i->p[0], out->beta = i->p[1]; break;
  case IR_OP_CLIP: out->lo = i->p[0], out->hi = i->p[1]; break;
  default: break;
  }
}
