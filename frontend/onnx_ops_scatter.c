/* Converters for GatherND, ScatterElements (and the deprecated Scatter,
 * opset 9-10, the same op without reduction) and ScatterND. */
#include <string.h>

#include "onnx_internal.h"

vkml_status onnx_convert_gather_nd(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  int64_t b = onnx_attr_i(n, "batch_dims", 0);
  if (b < 0) return onnx_error(VKML_CODE_INVALID_GRAPH, "batch_dims %lld is negative", (long long)b);
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_GATHER_ND, 2, &nd));
  if (b) VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_BATCH_DIMS, b));
  return onnx_done(c, n, nd);
}

/* reduction (opset 16: none add mul; 18: max min too). */
static vkml_status reduction(onnx_ctx *c, onnx_node *n, int *out) {
  const char *v = onnx_attr_s(c, n, "reduction", "none");
  if (!ir_enum_from_name(IR_ENUM_REDUCTION, v, strlen(v), out))
    return onnx_error(VKML_CODE_UNSUPPORTED, "reduction '%s'", v);
  return VKML_OK;
}

static vkml_status scatter(onnx_ctx *c, onnx_node *n, ir_op op) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 3));
  int red = 0;
  VKML_RETURN_IF_ERROR(reduction(c, n, &red));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, 3, &nd));
  if (op == IR_OP_SCATTER_ELEMENTS) {
    int rank = n->in[0]->type.rank;
    int64_t axis = onnx_attr_i(n, "axis", 0);
    if (axis < -rank || axis >= rank)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                        (long long)axis, rank);
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis < 0 ? axis + rank : axis));
  }
  if (red) VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_REDUCTION, red));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_scatter_elements(onnx_ctx *c, onnx_node *n) {
  return scatter(c, n, IR_OP_SCATTER_ELEMENTS);
}

vkml_status onnx_convert_scatter_nd(onnx_ctx *c, onnx_node *n) {
  return scatter(c, n, IR_OP_SCATTER_ND);
}
