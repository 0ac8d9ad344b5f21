/* pass_remove_identities: nodes whose output is their input, unchanged.
 *
 * identity; a one-input concat, sum, mean, min or max; reshape, flatten,
 * squeeze, unsqueeze to the input's own shape; a cast to the input's own
 * type; a resize whose every scale is 1 and whose output has the input's
 * shape (nearest or linear: the sample positions fall exactly on the input
 * elements; not tf_half_pixel_for_nn, whose half-pixel shift rounds to the
 * next element with some nearest modes; not cubic); a max or average pool
 * of 1x1 windows at stride 1 without pads; a pad of zero on every side
 * (torchvision's Swin pads each block to a multiple of its window, by zero
 * where the size already is one); a slice that takes every element in
 * order (step 1 along the whole axis); a strided_copy that reads its input
 * in order (offset 0, its own shape, row-major strides). Dropout does not reach
 * the IR (the importer makes it an identity). The readers of the output read
 * the input instead; a graph output keeps its name (pass_node_bypass).
 *
 * Also a transpose that moves only axes of size 1 (the others keep their
 * order: ViT's [197,1,768] <-> [1,197,768] around attention) moves no
 * element: it becomes a reshape to its output's dims, which shares its
 * input's bytes on the GPU (no dispatch), and goes as an identity where
 * the dims do not change either. */
#include "ir/params.h"
#include "passes/pass.h"

static bool resize_is_identity(const ir_node *n) {
  ir_resize_params p;
  vkml_status s = ir_resize_params_get(n, &n->inputs[0]->type, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  if (p.mode == IR_RESIZE_CUBIC || p.coord == IR_COORD_TF_HALF_PIXEL_FOR_NN) return false;
  for (int i = 0; i < n->inputs[0]->type.rank; i++)
    if (p.scale[i] != 1.0f) return false;
  return true;
}

/* A max or average pool over 1x1 windows at stride 1 without pads: each
 * output element is its input element (torchvision's VGG ends its features
 * with AdaptiveAvgPool2d((7, 7)) on a 7x7 input, exported so). */
static bool pool_is_identity(const ir_node *n) {
  ir_pool_params p;
  vkml_status s = ir_pool_params_get(n, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  return p.kernel[0] == 1 && p.kernel[1] == 1 && p.strides[0] == 1 && p.strides[1] == 1 &&
         !p.pads[0] && !p.pads[1] && !p.pads[2] && !p.pads[3];
}

/* Whether transpose n keeps the order of its input's axes of size > 1. */
static bool transpose_moves_nothing(const ir_node *n) {
  if (n->op != IR_OP_TRANSPOSE || n->n_inputs != 1 || n->n_outputs != 1) return false;
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  if (x->type.bounded || y->type.bounded || x->layout != IR_LAYOUT_DEFAULT ||
      y->layout != IR_LAYOUT_DEFAULT || x->type.rank != y->type.rank)
    return false;
  int r = x->type.rank;
  int64_t rev[IR_MAX_RANK];
  const int64_t *perm;
  int np = ir_node_ints(n, IR_A_PERM, &perm);
  if (np < 0) { /* ONNX's default: the axes reversed */
    for (int i = 0; i < r; i++) rev[i] = r - 1 - i;
    perm = rev;
    np = r;
  }
  if (np != r) return false;
  int64_t last = -1;
  for (int i = 0; i < r; i++) {
    if (perm[i] < 0 || perm[i] >= r) return false;
    if (x->type.dims[perm[i]] == 1) continue;
    if (perm[i] < last) return false;
    last = perm[i];
  }
  return true;
}

static bool pad_is_identity(const ir_node *n) {
  ir_pad_params p;
  int rank = n->inputs[0]->type.rank;
  vkml_status s = ir_pad_params_get(n, rank, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  for (int i = 0; i < rank; i++)
    if (p.begins[i] || p.ends[i]) return false;
  return true;
}

/* (the output's type is the input's: checked by the caller) */
static bool slice_is_identity(const ir_node *n) {
  const ir_type *x = &n->inputs[0]->type;
  ir_slice_params p;
  vkml_status s = ir_slice_params_get(n, x, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  for (int i = 0; i < x->rank; i++)
    if (x->dims[i] > 1 && (p.start[i] != 0 || p.step[i] != 1 || p.count[i] != x->dims[i]))
      return false;
  return true;
}

static bool strided_copy_is_identity(const ir_node *n) {
  const ir_type *x = &n->inputs[0]->type;
  ir_strided_params p;
  vkml_status s = ir_strided_params_get(n, x, &p);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  if (p.offset != 0 || p.rank != x->rank) return false;
  int64_t run = 1;
  for (int i = x->rank - 1; i >= 0; i--) {
    if (p.dims[i] != x->dims[i] || (x->dims[i] > 1 && p.strides[i] != run)) return false;
    run *= x->dims[i];
  }
  return true;
}

static bool is_identity(const ir_node *n) {
  if (n->n_inputs < 1 || n->n_outputs != 1) return false;
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  if (!ir_type_equal(&x->type, &y->type) || x->layout != y->layout) return false;
  switch (n->op) {
  case IR_OP_IDENTITY:
  case IR_OP_RESHAPE:
  case IR_OP_FLATTEN:
  case IR_OP_SQUEEZE:
  case IR_OP_UNSQUEEZE:
  case IR_OP_CAST: return true;
  case IR_OP_CONCAT:
  case IR_OP_SUM:
  case IR_OP_MEAN:
  case IR_OP_MIN:
  case IR_OP_MAX: return n->n_inputs == 1;
  case IR_OP_RESIZE: return resize_is_identity(n);
  case IR_OP_MAXPOOL:
  case IR_OP_AVGPOOL: return pool_is_identity(n);
  case IR_OP_PAD: return n->n_inputs == 1 && pad_is_identity(n);
  case IR_OP_SLICE: return n->n_inputs == 1 && slice_is_identity(n);
  case IR_OP_STRIDED_COPY: return strided_copy_is_identity(n);
  default: return false;
  }
}

vkml_status pass_remove_identities(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  bool any = false;
  for (ir_node *n = g->first, *next; n; n = next) {
    next = n->next;
    if (transpose_moves_nothing(n)) {
      const ir_type *y = &n->outputs[0]->type;
      VKML_RETURN_IF_ERROR(ir_node_set_ints(g, n, IR_A_SHAPE, y->dims, y->rank));
      ir_node_remove_attr(n, IR_A_PERM);
      n->op = IR_OP_RESHAPE;
      any = true;
    }
    if (!is_identity(n)) continue;
    bool removed;
    pass_node_bypass(g, n, 0, &removed);
    any = any || removed;
  }
  if (changed) *changed = any;
  return VKML_OK;
}
