/* ir_infer_node: arity and attribute checks, then the op's own inference. */
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "text.h"

static vkml_status check_node(const ir_node *n) {
  const ir_op_info *info = ir_op_get(n->op);
  if (!info) return ir_infer_error("unknown op");
  if (n->n_inputs < info->min_inputs ||
      (info->max_inputs >= 0 && n->n_inputs > info->max_inputs)) {
    if (info->min_inputs == info->max_inputs)
      return ir_infer_error("%s takes %d input%s, got %d", ir_op_name(n->op),
                            info->min_inputs, info->min_inputs == 1 ? "" : "s",
                            n->n_inputs);
    if (info->max_inputs < 0)
      return ir_infer_error("%s takes at least %d input%s, got %d",
                            ir_op_name(n->op), info->min_inputs,
                            info->min_inputs == 1 ? "" : "s", n->n_inputs);
    return ir_infer_error("%s takes %d to %d inputs, got %d", ir_op_name(n->op),
                          info->min_inputs, info->max_inputs, n->n_inputs);
  }
  if (n->n_outputs < info->min_outputs ||
      (info->max_outputs >= 0 && n->n_outputs > info->max_outputs)) {
    if (info->min_outputs == info->max_outputs)
      return ir_infer_error("%s produces %d output%s, got %d", ir_op_name(n->op),
                            info->min_outputs, info->min_outputs == 1 ? "" : "s",
                            n->n_outputs);
    return ir_infer_error("%s produces at least %d output%s, got %d",
                          ir_op_name(n->op), info->min_outputs,
                          info->min_outputs == 1 ? "" : "s", n->n_outputs);
  }
  for (int i = 0; i < n->n_attrs; i++) {
    const ir_attr *a = &n->attrs[i];
    if ((unsigned)a->id >= IR_A_COUNT || !ir_op_has_attr(n->op, a->id))
      return ir_infer_error("%s has no attribute '%s'", ir_op_name(n->op),
                            (unsigned)a->id < IR_A_COUNT ? ir_attr_name(a->id) : "?");
    ir_enum en = ir_attr_enum_of(a->id);
    if (en != IR_ENUM_NONE && (a->u.i < 0 || a->u.i >= ir_enum_count(en)))
      return ir_infer_error("attribute '%s' has no value %lld", ir_attr_name(a->id),
                            (long long)a->u.i);
  }
  return VKML_OK;
}

vkml_status ir_infer_node_types(const ir_node *n, const ir_type *in,
                                ir_type *out) {
  VKML_RETURN_IF_ERROR(check_node(n));
  for (int i = 0; i < n->n_inputs; i++) VKML_RETURN_IF_ERROR(ir_type_check(&in[i]));
  for (int i = 0; i < n->n_outputs; i++) memset(&out[i], 0, sizeof out[i]);
  VKML_RETURN_IF_ERROR(ir_op_get(n->op)->infer(n, in, out));
  for (int i = 0; i < n->n_outputs; i++) VKML_RETURN_IF_ERROR(ir_type_check(&out[i]));
  return VKML_OK;
}

vkml_status ir_infer_node(const ir_node *n, ir_type *out) {
  ir_type in_small[16];
  ir_type *in = in_small;
  /* Variadic ops may exceed 16 inputs: allocate then. */
  ir_type *heap = NULL;
  if (n->n_inputs > 16) {
    heap = malloc(sizeof *heap * (size_t)n->n_inputs);
    if (!heap) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    in = heap;
  }
  for (int i = 0; i < n->n_inputs; i++) in[i] = n->inputs[i]->type;
  vkml_status s = ir_infer_node_types(n, in, out);
  free(heap);
  return s;
}
