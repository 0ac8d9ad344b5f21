/* pass_split_scan: a cumsum along a long axis over few rows becomes a scan
 * across workgroups (the integrated-GPU TVM paper's scan, its cross-block
 * stage without a host round trip). The scan kernel gives each row one
 * workgroup, so a single row of 16M elements would run on one compute unit;
 * split, the row is cut into blocks of SPLIT_BLOCK elements:
 *
 *   xp  = pad x along the axis to nb * B with zeros (when B does not divide L)
 *   x4  = reshape xp: the axis becomes (nb, B)
 *   li  = cumsum x4 along B (inclusive, the node's direction)
 *   tot = slice li: each block's last element in scan order (its total)
 *   pre = cumsum tot along nb, exclusive (the totals of the blocks before)
 *   loc = li, or for an exclusive scan cumsum x4 along B exclusive
 *   y4  = loc + pre (broadcast over B)
 *   y   = reshape y4 (and slice off the padding)
 *
 * Every block is a workgroup of its own and the totals' scan is small; the
 * zeros of the padding add nothing (forward they come last, reverse they
 * come first). Integers stay exact (wrapping adds, in any order); floats
 * are summed in another order. pre is itself a cumsum, split again when it
 * is still long.
 *
 * Only when the graph is being placed (opts.place) and the callback lets the
 * node run on the GPU: the CPU reference scans a row in one loop. */
#include <stdio.h>
#include <string.h>

#include "passes/pass.h"

#define SPLIT_MIN_LEN 16384 /* longer axes are split ... */
#define SPLIT_MAX_ROWS 1024 /* ... when fewer rows than this share them */
#define SPLIT_BLOCK 4096    /* elements per block (eight default chunks) */

typedef struct builder {
  ir_graph *g;
  ir_node *before; /* new nodes go in front of it */
  const char *base;
} builder;

/* A node of op on in (and in2) before the cumsum, its output a fresh value
 * of type t (or `out`). */
static vkml_status emit(builder *b, ir_op op, ir_value *in, ir_value *in2, const ir_type *t,
                        const char *suffix, ir_value *out, ir_node **node) {
  ir_value *ins[2] = {in, in2};
  return pass_node_insert(b->g, b->before, op, ins, in2 ? 2 : 1, b->base, &t, &suffix, &out, 1,
                          node);
}

static vkml_status emit_cumsum(builder *b, ir_value *in, int axis, bool exclusive, bool reverse,
                               const char *suffix, ir_value **out) {
  ir_node *n;
  VKML_RETURN_IF_ERROR(emit(b, IR_OP_CUMSUM, in, NULL, &in->type, suffix, NULL, &n));
  VKML_RETURN_IF_ERROR(ir_node_set_int(b->g, n, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(b->g, n, IR_A_EXCLUSIVE, exclusive));
  VKML_RETURN_IF_ERROR(ir_node_set_int(b->g, n, IR_A_REVERSE, reverse));
  *out = n->outputs[0];
  return VKML_OK;
}

static vkml_status emit_reshape(builder *b, ir_value *in, const ir_type *t, const char *suffix,
                                ir_value *out, ir_value **res) {
  ir_node *n;
  VKML_RETURN_IF_ERROR(emit(b, IR_OP_RESHAPE, in, NULL, t, suffix, out, &n));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, n, IR_A_SHAPE, t->dims, t->rank));
  *res = n->outputs[0];
  return VKML_OK;
}

/* in[..., start:end, ...] along axis. */
static vkml_status emit_slice(builder *b, ir_value *in, int axis, int64_t start, int64_t end,
                              const char *suffix, ir_value *out, ir_value **res) {
  ir_type t = in->type;
  t.dims[axis] = end - start;
  ir_node *n;
  VKML_RETURN_IF_ERROR(emit(b, IR_OP_SLICE, in, NULL, &t, suffix, out, &n));
  int64_t ax = axis, one = 1;
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, n, IR_A_STARTS, &start, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, n, IR_A_ENDS, &end, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, n, IR_A_AXES, &ax, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(b->g, n, IR_A_STEPS, &one, 1));
  *res = n->outputs[0];
  return VKML_OK;
}

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (n->op != IR_OP_CUMSUM || n->device == IR_DEVICE_CPU || n->n_inputs != 1) return false;
  const ir_type *x = &n->inputs[0]->type;
  if (x->bounded || x->rank == 0 || x->rank >= IR_MAX_RANK) return false;
  if (n->inputs[0]->layout != IR_LAYOUT_DEFAULT) return false;
  int64_t axis = ir_node_int(n, IR_A_AXIS, 0);
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis >= x->rank) return false;
  int64_t len = x->dims[axis], numel = ir_type_numel(x);
  if (len <= SPLIT_MIN_LEN || numel / len >= SPLIT_MAX_ROWS) return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

static vkml_status split(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *y = n->outputs[0];
  int rank = x->type.rank;
  int axis = (int)ir_node_int(n, IR_A_AXIS, 0);
  if (axis < 0) axis += rank;
  bool exclusive = ir_node_int(n, IR_A_EXCLUSIVE, 0) != 0;
  bool reverse = ir_node_int(n, IR_A_REVERSE, 0) != 0;
  int64_t len = x->type.dims[axis], B = SPLIT_BLOCK, nb = (len + B - 1) / B;
  builder b = {g, n, y->name};

  ir_value *xp = x;
  ir_type tp = x->type;
  tp.dims[axis] = nb * B;
  if (nb * B != len) {
    ir_node *pad;
    VKML_RETURN_IF_ERROR(emit(&b, IR_OP_PAD, x, NULL, &tp, ".pad", NULL, &pad));
    int64_t pads[2 * IR_MAX_RANK] = {0};
    pads[rank + axis] = nb * B - len;
    VKML_RETURN_IF_ERROR(ir_node_set_ints(g, pad, IR_A_PADS, pads, 2 * rank));
    VKML_RETURN_IF_ERROR(ir_node_set_enum(g, pad, IR_A_PAD_MODE, IR_PAD_CONSTANT));
    VKML_RETURN_IF_ERROR(ir_node_set_float(g, pad, IR_A_VALUE, 0));
    xp = pad->outputs[0];
  }
  ir_type t4 = x->type;
  t4.rank = rank + 1;
  for (int i = rank; i > axis + 1; i--) t4.dims[i] = x->type.dims[i - 1];
  t4.dims[axis] = nb;
  t4.dims[axis + 1] = B;
  ir_value *x4, *li, *tot, *pre, *loc, *y4;
  VKML_RETURN_IF_ERROR(emit_reshape(&b, xp, &t4, ".blocks", NULL, &x4));
  VKML_RETURN_IF_ERROR(emit_cumsum(&b, x4, axis + 1, false, reverse, ".local", &li));
  int64_t last = reverse ? 0 : B - 1;
  VKML_RETURN_IF_ERROR(emit_slice(&b, li, axis + 1, last, last + 1, ".total", NULL, &tot));
  VKML_RETURN_IF_ERROR(emit_cumsum(&b, tot, axis, true, reverse, ".carry", &pre));
  loc = li;
  if (exclusive)
    VKML_RETURN_IF_ERROR(emit_cumsum(&b, x4, axis + 1, true, reverse, ".local_ex", &loc));
  ir_node *add;
  VKML_RETURN_IF_ERROR(emit(&b, IR_OP_ADD, loc, pre, &t4, ".sum", NULL, &add));
  y4 = add->outputs[0];
  /* the last node takes y over (and n goes) */
  ir_value *yp;
  if (nb * B == len) {
    VKML_RETURN_IF_ERROR(emit_reshape(&b, y4, &y->type, "", y, &yp));
  } else {
    VKML_RETURN_IF_ERROR(emit_reshape(&b, y4, &tp, ".padded", NULL, &yp));
    VKML_RETURN_IF_ERROR(emit_slice(&b, yp, axis, 0, len, "", y, &yp));
  }
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_scan(ir_graph *g, const pass_opts *opts, bool *changed) {
  /* a split's carry scan may be long again: until nothing is left */
  return pass_rewrite_until_done(g, opts, wants_split, split, changed);
}
