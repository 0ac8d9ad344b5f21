/* pass_split_reduce: a reduction of few, long rows becomes two. The row
 * kernels (codegen/core/reduction.h) give a row one workgroup at most, so a
 * whole tensor reduced to one value (DynamicQuantizeLinear's min and max,
 * a loss's sum) runs on one compute unit; split, each row is cut into blocks
 * of SPLIT_BLOCK elements reduced apart, then the blocks' results:
 *
 *   x3 = reshape x: [rows, nb, B] (the reduced axes, trailing, merged)
 *   p  = reduce x3 over its last axis        [rows, nb]
 *   r  = reduce p over its last axis          [rows]
 *   y  = reshape r to y's shape
 *
 * for reduce_sum, reduce_max, reduce_min and reduce_mean (a mean of equal
 * blocks' means is the mean). Only when the reduced axes (size-1 axes
 * aside) come after every kept one, so that a row is contiguous, and a block
 * size between SPLIT_BLOCK_MIN and SPLIT_BLOCK_MAX divides it, and without a
 * fused activation (reduce_sum's: it belongs after the last). Integers stay
 * exact (sums wrap in any order); float sums are added in another order.
 * Only when the graph is being placed (opts.place) and the callback lets
 * the node run on the GPU: the CPU reference reduces a row in one loop. */
#include <string.h>

#include "passes/pass.h"

#define SPLIT_MIN_LEN 32768 /* longer rows are split ... */
#define SPLIT_MAX_ROWS 128  /* ... when fewer than this share them */
#define SPLIT_BLOCK 4096    /* elements per block, the divisor nearest it */
#define SPLIT_BLOCK_MIN 1024
#define SPLIT_BLOCK_MAX 16384

static bool splittable_op(ir_op op) {
  return op == IR_OP_REDUCE_SUM || op == IR_OP_REDUCE_MAX || op == IR_OP_REDUCE_MIN ||
         op == IR_OP_REDUCE_MEAN;
}

/* n's rows: *len elements reduced per output, *rows outputs; false unless
 * the reduced axes (size-1 axes aside) all follow the kept ones. */
static bool trailing_rows(const ir_node *n, int64_t *rows, int64_t *len) {
  const ir_type *x = &n->inputs[0]->type;
  bool red[IR_MAX_RANK] = {false};
  const int64_t *axes;
  int n_axes = ir_node_ints(n, IR_A_AXES, &axes);
  if (n_axes <= 0) { /* no axes: every axis */
    for (int i = 0; i < x->rank; i++) red[i] = true;
  } else {
    for (int i = 0; i < n_axes; i++) {
      int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
      if (a < 0 || a >= x->rank) return false;
      red[a] = true;
    }
  }
  *rows = *len = 1;
  bool seen_reduced = false;
  for (int i = 0; i < x->rank; i++) {
    if (x->dims[i] == 1) continue;
    if (red[i]) {
      seen_reduced = true;
      *len *= x->dims[i];
    } else {
      if (seen_reduced) return false;
      *rows *= x->dims[i];
    }
  }
  return true;
}

/* The divisor of len nearest SPLIT_BLOCK within the bounds, or 0. */
static int64_t block_of(int64_t len) {
  for (int64_t d = 0; d <= SPLIT_BLOCK_MAX; d++) {
    int64_t lo = SPLIT_BLOCK - d, hi = SPLIT_BLOCK + d;
    if (lo >= SPLIT_BLOCK_MIN && len % lo == 0) return lo;
    if (hi <= SPLIT_BLOCK_MAX && len % hi == 0) return hi;
    if (lo < SPLIT_BLOCK_MIN && hi > SPLIT_BLOCK_MAX) break;
  }
  return 0;
}

static bool wants_split(const ir_node *n, const pass_opts *opts) {
  if (!splittable_op(n->op) || n->device == IR_DEVICE_CPU || n->n_inputs != 1) return false;
  if (ir_node_int(n, IR_A_ACT, IR_ACT_NONE) != IR_ACT_NONE) return false; /* a fused activation */
  const ir_type *x = &n->inputs[0]->type;
  if (x->bounded || x->rank == 0 || n->inputs[0]->layout != IR_LAYOUT_DEFAULT) return false;
  int64_t rows, len;
  if (!trailing_rows(n, &rows, &len) || len < SPLIT_MIN_LEN || rows >= SPLIT_MAX_ROWS ||
      !block_of(len))
    return false;
  char why[256];
  return opts->place(opts->place_user, n, why, sizeof why) == NULL;
}

/* A node of op on in before n, its output a fresh value of type t (or
 * `out`), named after n's output. */
static vkml_status emit(ir_graph *g, ir_node *n, ir_op op, ir_value *in, const ir_type *t,
                        const char *suffix, ir_value *out, ir_node **node) {
  return pass_node_insert(g, n, op, &in, 1, n->outputs[0]->name, &t, &suffix, &out, 1, node);
}

static vkml_status emit_reshape(ir_graph *g, ir_node *n, ir_value *in, const ir_type *t,
                                const char *suffix, ir_value *out, ir_value **res) {
  ir_node *r;
  VKML_RETURN_IF_ERROR(emit(g, n, IR_OP_RESHAPE, in, t, suffix, out, &r));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r, IR_A_SHAPE, t->dims, t->rank));
  *res = r->outputs[0];
  return VKML_OK;
}

/* n's op over the last axis of in (rank 2 or 3), that axis dropped. */
static vkml_status emit_reduce(ir_graph *g, ir_node *n, ir_value *in, const char *suffix,
                               ir_value **res) {
  ir_type t = in->type;
  t.rank--;
  int64_t axis = t.rank, keep = 0;
  ir_node *r;
  VKML_RETURN_IF_ERROR(emit(g, n, n->op, in, &t, suffix, NULL, &r));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, r, IR_A_AXES, &axis, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_int(g, r, IR_A_KEEPDIMS, keep));
  *res = r->outputs[0];
  return VKML_OK;
}

static vkml_status split(ir_graph *g, ir_node *n) {
  ir_value *x = n->inputs[0], *y = n->outputs[0];
  int64_t rows, len;
  trailing_rows(n, &rows, &len);
  int64_t b = block_of(len);
  ir_type t3 = x->type;
  t3.rank = 3;
  t3.dims[0] = rows;
  t3.dims[1] = len / b;
  t3.dims[2] = b;
  ir_value *x3, *p, *r, *yr;
  VKML_RETURN_IF_ERROR(emit_reshape(g, n, x, &t3, ".blocks", NULL, &x3));
  VKML_RETURN_IF_ERROR(emit_reduce(g, n, x3, ".block", &p));
  VKML_RETURN_IF_ERROR(emit_reduce(g, n, p, ".rows", &r));
  /* the last node takes y over (and n goes) */
  VKML_RETURN_IF_ERROR(emit_reshape(g, n, r, &y->type, "", y, &yr));
  ir_node_remove(g, n);
  return VKML_OK;
}

vkml_status pass_split_reduce(ir_graph *g, const pass_opts *opts, bool *changed) {
  /* the blocks' row is short (len / SPLIT_BLOCK_MIN at most): split once,
   * but until nothing is left, as the other split passes */
  return pass_rewrite_until_done(g, opts, wants_split, split, changed);
}
