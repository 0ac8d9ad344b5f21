/* Which operands of a node the GPU kernels take in a packed layout
 * (cg_node_layout_operands, codegen/core/ops.h); cg_kernel_for_node (codegen/core/ops.c)
 * refuses every packed operand outside this mask.
 *
 * The mask is first derived from the op and the operands' types (rank-4
 * static f32 / f16 activations of the ops whose kernels have packed paths),
 * then confirmed by instantiating the node's kernel on a copy of the node
 * with those operands packed, on a target with every feature the kernels
 * may ask for: so the mask is non-zero exactly when the kernel accepts the
 * packed operands (a node the kernel refuses anyway gets 0 and stays in
 * the default layout). */
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/kernels/conv2d.h"
#include "ir/params.h"

#define IN(i) (1u << (i))
/* operands of the nodes that have packed paths (a conv2d: 3 inputs; concat
 * and split: up to 16 parts, the width of the mask's halves) */
#define MAX_SHADOW 16

static bool is_global_pool(ir_op op) {
  return op == IR_OP_GLOBAL_AVG_POOL || op == IR_OP_GLOBAL_MAX_POOL;
}

static bool packable(const ir_value *v) {
  if (!v) return false;
  const ir_type *t = &v->type;
  return t->rank == 4 && !t->bounded && (t->dtype == IR_F32 || t->dtype == IR_F16) &&
         ir_type_numel(t) > 0;
}

static bool same_dims(const ir_type *a, const ir_type *b) {
  return a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank);
}

/* The operands the op's kernel has packed paths for, from types alone. */
static uint32_t concat_candidate(const ir_node *n);

static uint32_t candidate(const ir_node *n, ir_layout l) {
  if (n->op == IR_OP_CONCAT || n->op == IR_OP_SPLIT)
    return l == IR_LAYOUT_NC4HW4 ? concat_candidate(n) : 0;
  if (n->n_outputs != 1 || n->n_inputs < 1 || n->n_inputs > MAX_SHADOW || !n->outputs[0])
    return 0;
  for (int i = 0; i < n->n_inputs; i++)
    if (!n->inputs[i]) return 0;
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  if (!packable(x) || !packable(y)) return 0;
  const uint32_t xy = IN(0) | CG_LAYOUT_OUT(0);
  const char *family = ir_op_family(n->op);
  if (!strcmp(family, "unary")) return n->n_inputs == 1 && n->op != IR_OP_NOT ? xy : 0;
  if (n->op == IR_OP_TRANSPOSE) {
    /* nhwc: a transpose that relabels its bytes (ir_node_relabels_nhwc):
     * x nhwc for perm [0,2,3,1], y nhwc for perm [0,3,1,2] */
    int perm[IR_MAX_RANK];
    vkml_status s = ir_perm_get(n, 4, perm);
    vkml_status_free(s);
    if (s || l != IR_LAYOUT_NHWC || perm[0] != 0) return 0;
    if (perm[1] == 2 && perm[2] == 3 && perm[3] == 1) return IN(0);
    if (perm[1] == 3 && perm[2] == 1 && perm[3] == 2) return CG_LAYOUT_OUT(0);
    return 0;
  }
  if (n->op == IR_OP_IDENTITY || n->op == IR_OP_REORDER) return n->n_inputs == 1 ? xy : 0;
  if (n->op == IR_OP_CONV2D) {
    /* nhwc: weights of one tap, constant weights (the weights' step stores
     * them tap-major), or weights already so */
    const ir_value *w = n->inputs[1];
    bool one_tap = w->type.rank == 4 && w->type.dims[2] * w->type.dims[3] == 1;
    if (l == IR_LAYOUT_NHWC && !one_tap && !ir_value_is_const(w) && w->layout != IR_LAYOUT_NHWC)
      return 0;
    return n->n_inputs == 2 || n->n_inputs == 3 ? xy : 0;
  }
  if (n->op == IR_OP_MAXPOOL || n->op == IR_OP_AVGPOOL || is_global_pool(n->op))
    return n->n_inputs == 1 ? xy : 0;
  if (n->op == IR_OP_ADD || n->op == IR_OP_SUB || n->op == IR_OP_MUL || n->op == IR_OP_DIV) {
    if (n->n_inputs != 2 || !packable(n->inputs[1])) return 0;
    if (!same_dims(&x->type, &n->inputs[1]->type) || !same_dims(&x->type, &y->type)) return 0;
    return xy | IN(1);
  }
  return 0;
}

/* Every feature and generous limits: whether a kernel accepts packed
 * operands must not depend on the device. */
static void capable_target(ir_target *t) {
  ir_target_minimum(t);
  strcpy(t->name, "packed-layout-check");
  t->storage_16bit = t->storage_8bit = t->int64_arith = true;
  t->fp16_arith = t->int8_arith = t->int16_arith = true;
  for (int i = 0; i < 3; i++) t->max_workgroup_count[i] = 0x7fffffffu;
  t->max_storage_buffer_range = UINT32_MAX;
  t->max_storage_buffers_per_stage = UINT32_MAX;
}

/* Whether n's kernel instantiates with the operands of mask in layout l
 * (inputs: in_l, outputs: out_l for the masked ones) on target tg (NULL:
 * capable_target). A conv2d whose x is nhwc reads its w tap-major where
 * the weights' step stores it so (cg_conv2d_weight_layouts), and is taken
 * on the cooperative-matrix templates only (nhwc x and y are theirs). */
static bool instantiates(const ir_node *n, uint32_t mask, ir_layout in_l, ir_layout out_l,
                         const ir_target *tg) {
  if (n->n_inputs > MAX_SHADOW || n->n_outputs > MAX_SHADOW) return false;
  ir_value vi[MAX_SHADOW], vo[MAX_SHADOW];
  ir_value *pi[MAX_SHADOW], *po[MAX_SHADOW];
  for (int i = 0; i < n->n_inputs; i++) {
    vi[i] = *n->inputs[i];
    /* (a conv2d's w keeps its layout: the weights' step's, tap-major or not) */
    bool w = n->op == IR_OP_CONV2D && i == 1;
    vi[i].layout = (mask >> i) & 1 ? in_l : w ? n->inputs[i]->layout : IR_LAYOUT_DEFAULT;
    pi[i] = &vi[i];
  }
  for (int i = 0; i < n->n_outputs; i++) {
    vo[i] = *n->outputs[i];
    vo[i].layout = (mask >> (16 + i)) & 1 ? out_l : IR_LAYOUT_DEFAULT;
    po[i] = &vo[i];
  }
  ir_node sn = *n;
  sn.inputs = pi;
  sn.outputs = po;
  ir_target t;
  capable_target(&t);
  if (!tg) tg = &t;
  if (n->op == IR_OP_CONV2D && in_l == IR_LAYOUT_NHWC && cg_conv2d_weight_layouts(&sn, tg))
    vi[1].layout = IR_LAYOUT_NHWC;
  cg_kernel k;
  vkml_status s = cg_node_fn_for(&sn)(&sn, NULL, NULL, tg, &k);
  bool ok = s == VKML_OK;
  vkml_status_free(s);
  return ok;
}

/* concat / split along the channels (axis 1) of rank-4 values: every part
 * and the whole packed (data_concat.comp's packed paths), at most
 * MAX_SHADOW parts. */
static uint32_t concat_candidate(const ir_node *n) {
  bool split = n->op == IR_OP_SPLIT;
  int n_parts = split ? n->n_outputs : n->n_inputs;
  if ((split ? n->n_inputs : n->n_outputs) != 1 || n_parts < 1 || n_parts > MAX_SHADOW)
    return 0;
  uint32_t m = 0;
  for (int i = 0; i < n->n_inputs; i++) {
    if (!packable(n->inputs[i])) return 0;
    m |= IN(i);
  }
  for (int i = 0; i < n->n_outputs; i++) {
    if (!packable(n->outputs[i])) return 0;
    m |= CG_LAYOUT_OUT(i);
  }
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), 4, &axis);
  bool ok = !s && axis == 1;
  vkml_status_free(s);
  return ok ? m : 0;
}

static uint32_t operands(const ir_node *n, ir_layout l, const ir_target *t) {
  if (!n || (l != IR_LAYOUT_NC4HW4 && l != IR_LAYOUT_NHWC) || (unsigned)n->op >= IR_OP_COUNT)
    return 0;
  uint32_t m = candidate(n, l);
  if (!m) return 0;
  if (!instantiates(n, m, l, l, t)) return 0;
  if (n->op == IR_OP_REORDER || n->op == IR_OP_IDENTITY) {
    /* converts: either side alone too */
    if (!instantiates(n, m, l, IR_LAYOUT_DEFAULT, t) ||
        !instantiates(n, m, IR_LAYOUT_DEFAULT, l, t))
      return 0;
  }
  return m;
}

uint32_t cg_node_layout_operands(const ir_node *n, ir_layout l) {
  return l == IR_LAYOUT_NC4HW4 ? operands(n, l, NULL) : 0;
}

uint32_t cg_node_layout_operands_on(const ir_node *n, ir_layout l, const ir_target *t) {
  return operands(n, l, l == IR_LAYOUT_NHWC ? t : NULL);
}
