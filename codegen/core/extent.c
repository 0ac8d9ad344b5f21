/* Bounded rows (codegen/core/extent.h): which nodes run over a bounded value's
 * capacity, and which input's extent word their outputs take. */
#include "codegen/core/extent.h"

#include <stdio.h>
#include <stdlib.h>

#include "ir/params.h"
#include "ir/rows.h"

vkml_status cg_twin_make(const ir_node *n, cg_twin *t) {
  int nv = n->n_inputs + n->n_outputs;
  t->vals = malloc(sizeof *t->vals * (size_t)(nv ? nv : 1));
  t->ptrs = malloc(sizeof *t->ptrs * (size_t)(nv ? nv : 1));
  if (!t->vals || !t->ptrs) {
    cg_twin_free(t);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  t->node = *n;
  for (int i = 0; i < nv; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    t->ptrs[i] = NULL;
    if (!v) continue;
    t->vals[i] = *v;
    t->vals[i].type.bounded = false;
    t->ptrs[i] = &t->vals[i];
  }
  t->node.inputs = t->ptrs;
  t->node.outputs = t->ptrs + n->n_inputs;
  return VKML_OK;
}

void cg_twin_free(cg_twin *t) {
  free(t->vals);
  free(t->ptrs);
  t->vals = NULL;
  t->ptrs = NULL;
}

bool cg_node_any_bounded(const ir_node *n) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v && v->type.bounded) return true;
  }
  return false;
}

bool cg_rows_leading(const ir_value *v) {
  return v->layout == IR_LAYOUT_DEFAULT && ir_type_rows_lead(&v->type);
}

/* Elementwise ops with NumPy broadcasting (binary, variadic, where). */
static bool elementwise(const ir_node *n) { return ir_op_get(n->op)->rows == IR_ROWS_BROADCAST; }

/* The value whose run-time size v's bounded axis provably has: back
 * through the nodes whose outputs take an input's extent (bounded rows,
 * transfers), at most `depth` of them. */
static const ir_value *extent_origin(const ir_value *v, int depth) {
  while (depth-- > 0 && v->producer) {
    const ir_node *p = v->producer;
    int from = p->op == IR_OP_UPLOAD || p->op == IR_OP_DOWNLOAD ? 0 : cg_rows_extent_input(p);
    if (from < 0) return v;
    v = p->inputs[from];
  }
  return v;
}

/* a and b provably have one run-time size. By value id: the placement asks
 * about copies of a node's operands (cg_query_place), whose producers lead
 * back to the graph's own values. */
static bool same_extent(const ir_value *a, const ir_value *b) {
  return extent_origin(a, 32)->id == extent_origin(b, 32)->id;
}

int cg_rows_extent_input(const ir_node *n) {
  int bi = -1;
  for (int i = 0; i < n->n_inputs; i++) {
    if (!n->inputs[i] || !n->inputs[i]->type.bounded) continue;
    if (!cg_rows_leading(n->inputs[i])) return -1;
    if (bi < 0) {
      bi = i;
      continue;
    }
    /* another bounded value: elementwise ops of at most 4 inputs take it
     * (their kernels compare the sizes on the device unless they provably
     * agree: cg_rows_check_extents), a concat only one whose size provably
     * agrees (its kernel cannot compare) */
    if (n->inputs[i] == n->inputs[bi]) continue;
    if (n->op == IR_OP_CONCAT) {
      if (!same_extent(n->inputs[i], n->inputs[bi])) return -1;
    } else if (!elementwise(n) || n->n_inputs > 4) {
      return -1;
    }
  }
  if (bi < 0 || n->n_outputs < 1) return -1;
  int64_t cap = n->inputs[bi]->type.dims[n->inputs[bi]->type.bounded_axis];
  for (int i = 0; i < n->n_inputs; i++) /* every bounded input: one capacity */
    if (n->inputs[i] && n->inputs[i]->type.bounded &&
        n->inputs[i]->type.dims[n->inputs[i]->type.bounded_axis] != cap)
      return -1;
  for (int i = 0; i < n->n_outputs; i++) {
    const ir_value *y = n->outputs[i];
    if (!cg_rows_leading(y) || y->type.dims[y->type.bounded_axis] != cap) return -1;
  }
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] && n->inputs[i]->layout != IR_LAYOUT_DEFAULT) return -1;
  return ir_node_keeps_rows(n, bi) ? bi : -1;
}

bool cg_rows_check_extents(const ir_node *n) {
  const ir_value *first = NULL;
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (!v || !v->type.bounded || v == first) continue;
    if (!first) {
      first = v;
      continue;
    }
    if (!same_extent(v, first)) return true;
  }
  return false;
}

/* The extent word of operand j of n (binding j), as a word index, or
 * 0xffffffff when it is not bounded. */
static uint32_t operand_word(const ir_node *n, int j) {
  const ir_value *v = j < n->n_inputs ? n->inputs[j] : n->outputs[j - n->n_inputs];
  if (!v || !v->type.bounded) return 0xffffffffu;
  return (uint32_t)(ir_type_extent_offset(&v->type, v->layout) / 4);
}

vkml_status cg_extent_abi(const ir_node *n, cg_kernel *k) {
  uint32_t lo = 0, hi = 0;
  int n_ops = n->n_inputs + n->n_outputs;
  for (int j = 0; j < n_ops; j++) {
    uint32_t w = operand_word(n, j);
    if (w == 0xffffffffu) continue;
    if (j >= 32)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%s: bounded operand %d past the extent ABI's 32 bindings",
                              ir_op_name(n->op), j);
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_EXTENT_WORD_SPEC(j), w));
    if (j < 16) lo |= 1u << j;
    else hi |= 1u << (j - 16);
  }
  if (lo) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VKML_EXT_LO", "%u", lo));
  if (hi) VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VKML_EXT_HI", "%u", hi));
  /* a kernel whose outputs take an input's extent word (bounded rows, a
   * gather over run-time index rows, RoiAlign over run-time rois) copies it
   * itself: no copy command, and no barrier of its own, per step. Not where
   * the executor first copies input 0 into output 0 (scatter). */
  if (!k->extent_from || k->copy_input0 || n->n_outputs < 1 ||
      n->n_outputs > CG_EXTENT_MAX_OUTPUTS || k->n_buffers < n_ops ||
      k->extent_from > n->n_inputs)
    return VKML_OK;
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VKML_EXTENT_IN", "%d", k->extent_from - 1));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VKML_EXTENT_OUTS", "%d", n->n_outputs));
  for (int i = 0; i < n->n_outputs; i++) {
    char name[32];
    snprintf(name, sizeof name, "VKML_EXTENT_OUT%d", i);
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, name, "%d", n->n_inputs + i));
  }
  k->extent_in_kernel = true;
  return VKML_OK;
}
