/* Converters for ONNX elementwise ops: unary activations, Clip, Cast,
 * Identity/Dropout, binary arithmetic and comparisons, variadic Min/Max/Sum/
 * Mean, Where, Not. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

static const struct {
  const char *onnx;
  ir_op op;
} elementwise[] = {
    {"Relu", IR_OP_RELU},         {"Sigmoid", IR_OP_SIGMOID},
    {"Tanh", IR_OP_TANH},         {"Exp", IR_OP_EXP},
    {"Log", IR_OP_LOG},           {"Sqrt", IR_OP_SQRT},
    {"Erf", IR_OP_ERF},           {"Neg", IR_OP_NEG},
    {"Abs", IR_OP_ABS},           {"Reciprocal", IR_OP_RECIPROCAL},
    {"Softplus", IR_OP_SOFTPLUS}, {"Sign", IR_OP_SIGN},
    {"Sin", IR_OP_SIN},           {"Cos", IR_OP_COS},       {"Tan", IR_OP_TAN},
    {"Asin", IR_OP_ASIN},         {"Acos", IR_OP_ACOS},     {"Atan", IR_OP_ATAN},
    {"Sinh", IR_OP_SINH},         {"Cosh", IR_OP_COSH},     {"Asinh", IR_OP_ASINH},
    {"Acosh", IR_OP_ACOSH},       {"Atanh", IR_OP_ATANH},
    {"Floor", IR_OP_FLOOR},       {"Ceil", IR_OP_CEIL},
    {"Round", IR_OP_ROUND},       {"HardSwish", IR_OP_HARD_SWISH},
    {"Not", IR_OP_NOT},           {"Add", IR_OP_ADD},
    {"Sub", IR_OP_SUB},           {"Mul", IR_OP_MUL},
    {"Div", IR_OP_DIV},           {"Pow", IR_OP_POW},
    {"PRelu", IR_OP_PRELU},       {"Equal", IR_OP_EQUAL},
    {"Greater", IR_OP_GREATER},   {"Less", IR_OP_LESS},
    {"GreaterOrEqual", IR_OP_GREATER_OR_EQUAL},
    {"LessOrEqual", IR_OP_LESS_OR_EQUAL},
    {"And", IR_OP_AND},           {"Or", IR_OP_OR},
    {"Xor", IR_OP_XOR},           {"Mod", IR_OP_MOD},
    {"Min", IR_OP_MIN},           {"Max", IR_OP_MAX},
    {"Sum", IR_OP_SUM},           {"Mean", IR_OP_MEAN},
    {"Where", IR_OP_WHERE},
};

bool onnx_elementwise_op(const char *op_type, ir_op *out) {
  for (size_t i = 0; i < sizeof elementwise / sizeof elementwise[0]; i++)
    if (strcmp(elementwise[i].onnx, op_type) == 0) {
      *out = elementwise[i].op;
      return true;
    }
  return false;
}

/* k inputs, one output, no attributes. */
static vkml_status direct(onnx_ctx *c, onnx_node *n, int k) {
  ir_op op;
  if (!onnx_elementwise_op(n->op->name, &op))
    return onnx_error(VKML_CODE_INTERNAL, "no IR op for %s", n->op->name);
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, k, k));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, k, &nd));
  if (op == IR_OP_MOD) {
    int64_t fmod = onnx_attr_i(n, "fmod", 0);
    if (!fmod && ir_dtype_is_float(n->in[0]->type.dtype))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "Mod of floats needs fmod=1");
    if (fmod) VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_FMOD, 1));
  }
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_unary(onnx_ctx *c, onnx_node *n) { return direct(c, n, 1); }
vkml_status onnx_convert_not(onnx_ctx *c, onnx_node *n) { return direct(c, n, 1); }

/* Before opset 7, B broadcasts only with broadcast=1, aligned at axis
 * (default: trailing, as NumPy); PRelu's 1-D slope runs along channels. */
static vkml_status legacy_rhs(onnx_ctx *c, onnx_node *n, ir_value **b) {
  int ra = n->in[0]->type.rank, rb = n->in[1]->type.rank;
  const ir_type *bt = &n->in[1]->type;
  int64_t axis = -1;
  if (strcmp(n->op->name, "PRelu") == 0) {
    if (rb == 1 && ra > 2 && bt->dims[0] == n->in[0]->type.dims[1]) axis = 1;
  } else if (onnx_attr_i(n, "broadcast", 0) != 0 && onnx_attr(n, "axis")) {
    axis = onnx_attr_i(n, "axis", 0);
    if (axis < 0) axis += ra;
    if (axis < 0 || axis + rb > ra)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "broadcast axis %lld does not fit "
                        "ranks %d and %d", (long long)axis, ra, rb);
  }
  if (axis < 0 || axis + rb == ra) return onnx_input(c, n, 1, b);
  int64_t dims[IR_MAX_RANK];
  int r = (int)(ra - axis);
  for (int i = 0; i < r; i++) dims[i] = i < rb ? bt->dims[i] : 1;
  return onnx_input_reshaped(c, n, 1, r, dims, b);
}

vkml_status onnx_convert_binary(onnx_ctx *c, onnx_node *n) {
  if (c->opset >= 7) return direct(c, n, 2);
  ir_op op;
  if (!onnx_elementwise_op(n->op->name, &op))
    return onnx_error(VKML_CODE_INTERNAL, "no IR op for %s", n->op->name);
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  ir_value *ins[2];
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &ins[0]));
  VKML_RETURN_IF_ERROR(legacy_rhs(c, n, &ins[1]));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, ins, 2, 1, true, &nd));
  return onnx_done(c, n, nd);
}
vkml_status onnx_convert_where(onnx_ctx *c, onnx_node *n) { return direct(c, n, 3); }

vkml_status onnx_convert_variadic(onnx_ctx *c, onnx_node *n) {
  ir_op op;
  if (!onnx_elementwise_op(n->op->name, &op))
    return onnx_error(VKML_CODE_INTERNAL, "no IR op for %s", n->op->name);
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, -1));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, n->n_in, &nd));
  return onnx_done(c, n, nd);
}

/* Unary op with float attributes copied from ONNX (same names). */
static vkml_status unary_attrs(onnx_ctx *c, onnx_node *n, ir_op op,
                               const char *a1, ir_attr_id id1, float d1,
                               const char *a2, ir_attr_id id2, float d2) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, id1, onnx_attr_f(n, a1, d1)));
  if (a2) VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, id2, onnx_attr_f(n, a2, d2)));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_leaky_relu(onnx_ctx *c, onnx_node *n) {
  return unary_attrs(c, n, IR_OP_LEAKY_RELU, "alpha", IR_A_ALPHA, 0.01f, NULL, 0, 0);
}

vkml_status onnx_convert_elu(onnx_ctx *c, onnx_node *n) {
  return unary_attrs(c, n, IR_OP_ELU, "alpha", IR_A_ALPHA, 1.0f, NULL, 0, 0);
}

vkml_status onnx_convert_selu(onnx_ctx *c, onnx_node *n) {
  return unary_attrs(c, n, IR_OP_SELU, "alpha", IR_A_ALPHA, 1.67326319217681884765625f,
                     "gamma", IR_A_GAMMA, 1.05070102214813232421875f);
}

vkml_status onnx_convert_hard_sigmoid(onnx_ctx *c, onnx_node *n) {
  return unary_attrs(c, n, IR_OP_HARD_SIGMOID, "alpha", IR_A_ALPHA, 0.2f, "beta",
                     IR_A_BETA, 0.5f);
}

/* Clip: attributes before opset 11, optional constant inputs after. */
vkml_status onnx_convert_clip(onnx_ctx *c, onnx_node *n) {
  bool has_min = false, has_max = false;
  double lo = -INFINITY, hi = INFINITY;
  if (c->opset < 11) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
    has_min = onnx_attr(n, "min") != NULL;
    has_max = onnx_attr(n, "max") != NULL;
    lo = onnx_attr_f(n, "min", -FLT_MAX);
    hi = onnx_attr_f(n, "max", FLT_MAX);
  } else {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 3));
    if (onnx_has_input(n, 1)) {
      VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 1, "min", &lo));
      has_min = true;
    }
    if (onnx_has_input(n, 2)) {
      VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 2, "max", &hi));
      has_max = true;
    }
  }
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_CLIP, 1, &nd));
  if (has_min) VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_MIN, (float)lo));
  if (has_max) VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_MAX, (float)hi));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_cast(onnx_ctx *c, onnx_node *n) {
  if (strcmp(n->op->name, "CastLike") == 0) { /* to = the dtype of input 1 */
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
    ir_node *nd;
    VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_CAST, 1, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_TO, (int)n->in[1]->type.dtype));
    return onnx_done(c, n, nd);
  }
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  const Onnx__AttributeProto *a = onnx_attr(n, "to");
  if (!a) return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'to' is missing");
  int64_t to = onnx_attr_i(n, "to", 0);
  ir_dtype d;
  char nb[32];
  if (to < INT32_MIN || to > INT32_MAX || !onnx_dtype_to_ir((int32_t)to, &d))
    return onnx_error(VKML_CODE_UNSUPPORTED, "Cast to %s",
                      onnx_dtype_name((int32_t)to, nb, sizeof nb));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_CAST, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_TO, (int)d));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_identity(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  return onnx_bind_sym(c, n, 0, n->in[0]);
}

/* Inference-mode Dropout is the identity; its mask is all ones. */
vkml_status onnx_convert_dropout(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 3));
  if (onnx_has_input(n, 2)) {
    /* Training mode drops nothing only with ratio 0. */
    double training, ratio = 0.5;
    VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 2, "training_mode", &training));
    if (onnx_has_input(n, 1))
      VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 1, "ratio", &ratio));
    if (training != 0 && ratio != 0)
      return onnx_error(VKML_CODE_UNSUPPORTED, "Dropout in training mode");
  }
  const onnx_sym *x = n->in[0];
  VKML_RETURN_IF_ERROR(onnx_bind_sym(c, n, 0, x));
  if (onnx_output_used(n, 1)) {
    ir_type t = x->type;
    t.bounded = false;
    t.dtype = c->opset < 10 ? x->type.dtype : IR_BOOL;
    int64_t numel = ir_type_numel(&t);
    if (numel > (INT64_C(1) << 24))
      return onnx_error(VKML_CODE_UNSUPPORTED, "Dropout mask of %lld elements",
                        (long long)numel);
    void *ones = onnx_alloc(c, (size_t)ir_type_bytes(&t));
    if (!ones) return ir_oom(NULL);
    for (int64_t i = 0; i < numel; i++) ir_dtype_store_i64(t.dtype, ones, i, 1);
    VKML_RETURN_IF_ERROR(onnx_bind_const(c, n, 1, &t, ones, true));
  }
  return VKML_OK;
}
