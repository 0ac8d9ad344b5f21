/* pass_layout: packed channel layouts (ir/graph.h, IR_LAYOUT_NC4HW4) with
 * conversions at the edges of the packed regions.
 *
 * Which nodes run packed: a node whose operand mask (opts.layout_operands,
 * bit i = input i, bit 16 + i = output i; codegen's answer plus the caller's
 * placement) is non-zero, when opts.layout asks to pack every node that can
 * or when one of its masked outputs is annotated packed in the input graph (a
 * hand-written .vkir asks for it that way). Such a node gets every masked
 * operand packed, every other node every operand in the default layout.
 * Without opts.layout and without packed annotations the pass does nothing.
 *
 * The graph is rewritten in place so that each node reads its operands in
 * the layouts it runs with: a value needed in the other layout gets one
 * `reorder` node (inserted before its first consumer that needs it, shared by
 * every later one). Graph inputs, graph outputs and constants end up in the
 * default layout (host tensors are row-major): an output produced packed is
 * converted back by a reorder that takes over the output's name. Node ids and
 * value ids of the original graph stay; new nodes and values get fresh ones.
 *
 * Weights: a constant a GPU node's kernel reads tap-major (the mask of
 * opts.layout_operands for IR_LAYOUT_NHWC: a conv2d's w on the
 * cooperative-matrix kernels, [M, C/G, KH, KW] stored [M, KH, KW, C/G]) is
 * replaced, for that node, by a tap-major copy (one per constant, shared);
 * a tap-major constant any other node reads gets a default-layout copy.
 * This runs whatever opts.layout says; the packing above leaves tap-major
 * constants alone. */
#include "passes/pass.h"
#include "ir/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct layout_state {
  ir_graph *g;
  const pass_opts *o;
  ir_layout packed; /* the layout packed nodes use */
  bool assign_all;
  int n_values0;
  ir_value **other; /* by original value id: the version in the other layout */
  bool changed;
} layout_state;

/* v in layout want: v itself or its other version, made on first use by a
 * reorder placed before `before` (NULL: at the end). */
static vkml_status version(layout_state *st, ir_value *v, ir_layout want, ir_node *before,
                           ir_value **out) {
  if (v->layout == want) {
    *out = v;
    return VKML_OK;
  }
  if (v->id < st->n_values0 && st->other[v->id]) {
    *out = st->other[v->id];
    return VKML_OK;
  }
  ir_value *r;
  VKML_RETURN_IF_ERROR(ir_value_create_fresh(st->g, v->name, want == IR_LAYOUT_DEFAULT ? ".rows"
                                             : want == IR_LAYOUT_NC4HW4 ? ".nc4hw4" : ".nhwc",
                                             &v->type, &r));
  r->layout = want;
  ir_node *n;
  VKML_RETURN_IF_ERROR(ir_node_create(st->g, IR_OP_REORDER, &v, 1, &r, 1, &n));
  if (before) {
    ir_node_remove(st->g, n);
    ir_node_insert_before(st->g, before, n);
  }
  if (v->id < st->n_values0) st->other[v->id] = r;
  st->changed = true;
  *out = r;
  return VKML_OK;
}

/* A constant stored tap-major (the weights' step, not the packing). */
static bool taps_const(const ir_value *v) {
  return ir_value_is_const(v) && v->layout == IR_LAYOUT_NHWC;
}

static void set_layout(layout_state *st, ir_value *v, ir_layout l) {
  if (v->layout != l) st->changed = true;
  v->layout = l;
}

static uint32_t mask_of(const layout_state *st, const ir_node *n) {
  return st->o->layout_operands ? st->o->layout_operands(st->o->layout_user, n, st->packed) : 0;
}

static bool runs_packed(const layout_state *st, const ir_node *n, uint32_t mask) {
  if (!mask) return false;
  if (st->assign_all) return true;
  for (int i = 0; i < n->n_outputs && i < 16; i++)
    if ((mask >> (16 + i)) & 1 && n->outputs[i]->layout == st->packed) return true;
  return false;
}

static vkml_status rewrite_node(layout_state *st, ir_node *n) {
  if (n->op == IR_OP_REORDER) return VKML_OK; /* converts as annotated */
  uint32_t mask = mask_of(st, n);
  bool packed = runs_packed(st, n, mask);
  for (int i = 0; i < n->n_inputs; i++) {
    if (taps_const(n->inputs[i])) continue; /* the weights' step below */
    ir_layout want = packed && i < 16 && (mask >> i) & 1 ? st->packed : IR_LAYOUT_DEFAULT;
    VKML_RETURN_IF_ERROR(version(st, n->inputs[i], want, n, &n->inputs[i]));
  }
  for (int i = 0; i < n->n_outputs; i++) {
    bool p = packed && i < 16 && (mask >> (16 + i)) & 1;
    set_layout(st, n->outputs[i], p ? st->packed : IR_LAYOUT_DEFAULT);
  }
  return VKML_OK;
}

/* A graph output stored packed: a reorder back to rows takes over its name. */
static vkml_status unpack_output(layout_state *st, int i) {
  ir_value *v = st->g->outputs[i];
  if (v->layout == IR_LAYOUT_DEFAULT) return VKML_OK;
  ir_value *r;
  VKML_RETURN_IF_ERROR(version(st, v, IR_LAYOUT_DEFAULT, NULL, &r));
  if (r->producer && r->producer->inputs[0] == v && strstr(r->name, ".rows")) {
    const char *t = v->name;
    v->name = r->name;
    r->name = t;
  }
  st->g->outputs[i] = r;
  return VKML_OK;
}

static vkml_status run(layout_state *st) {
  ir_graph *g = st->g;
  ir_foreach_value(g, v) {
    if (ir_value_is_const(v) && !taps_const(v)) set_layout(st, v, IR_LAYOUT_DEFAULT);
  }
  for (int i = 0; i < g->n_inputs; i++) set_layout(st, g->inputs[i], IR_LAYOUT_DEFAULT);
  /* the original nodes, in order (reorders get inserted among them) */
  ir_node **nodes = malloc(sizeof *nodes * ((size_t)g->n_nodes + 1));
  if (!nodes) return ir_oom(NULL);
  int k = 0;
  ir_foreach_node(g, n) nodes[k++] = n;
  vkml_status s = VKML_OK;
  for (int i = 0; i < k && !s; i++) s = rewrite_node(st, nodes[i]);
  free(nodes);
  for (int i = 0; i < g->n_outputs && !s; i++) s = unpack_output(st, i);
  return s;
}

static bool has_packed_values(const ir_graph *g) {
  ir_foreach_value(g, v) if (v->layout != IR_LAYOUT_DEFAULT && !taps_const(v)) return true;
  return false;
}

/* ---- weights ----------------------------------------------------------------- */

/* v's bytes [N, C, S] as [N, S, C] (to_taps), or back, in a new constant of
 * layout `want`. */
static vkml_status taps_copy(ir_graph *g, ir_value *v, ir_layout want, ir_value **out) {
  const uint8_t *src = ir_value_const_data(g, v);
  if (!src) return vkml_status_make(VKML_CODE_INTERNAL, "%%%s: constant without data", v->name);
  const ir_type *t = &v->type;
  bool to_taps = want == IR_LAYOUT_NHWC;
  uint8_t *dst = malloc((size_t)ir_type_bytes(t) + 1);
  if (!dst) return ir_oom(NULL);
  ir_layout_nhwc_copy(t, src, dst, to_taps);
  vkml_status s = pass_const_create(g, v->name, to_taps ? ".taps" : ".rows", t, dst, out);
  free(dst);
  if (!s) (*out)->layout = want;
  return s;
}

/* Each node's constant inputs in the layout its kernel reads them. */
static vkml_status store_weights(ir_graph *g, const pass_opts *o, bool *changed) {
  int n0 = g->n_values;
  ir_value **copy = calloc((size_t)n0 + 1, sizeof *copy); /* by value id */
  if (!copy) return ir_oom(NULL);
  vkml_status s = VKML_OK;
  ir_foreach_node(g, n) {
    uint32_t mask = n->device != IR_DEVICE_CPU && o->layout_operands
                        ? o->layout_operands(o->layout_user, n, IR_LAYOUT_NHWC)
                        : 0;
    for (int i = 0; i < n->n_inputs && !s; i++) {
      ir_value *v = n->inputs[i];
      if (!v || !ir_value_is_const(v) || v->id >= n0 ||
          (v->layout != IR_LAYOUT_DEFAULT && v->layout != IR_LAYOUT_NHWC))
        continue;
      bool taps = i < 16 && (mask >> i) & 1 && v->type.rank == 4 && !v->type.bounded;
      ir_layout want = taps ? IR_LAYOUT_NHWC : IR_LAYOUT_DEFAULT;
      if (v->layout == want) continue;
      if (!copy[v->id]) s = taps_copy(g, v, want, &copy[v->id]);
      if (!s) n->inputs[i] = copy[v->id];
      *changed = true;
    }
    if (s) break;
  }
  free(copy);
  return s;
}

vkml_status pass_layout(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (opts->layout != IR_LAYOUT_DEFAULT && opts->layout != IR_LAYOUT_NC4HW4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "layout %s: only nc4hw4 is packed",
                            ir_layout_name(opts->layout));
  vkml_status s = VKML_OK;
  bool packing = false, weights = false;
  if (opts->layout != IR_LAYOUT_DEFAULT || has_packed_values(g)) {
    layout_state st = {.g = g,
                       .o = opts,
                       .packed = IR_LAYOUT_NC4HW4,
                       .assign_all = opts->layout == IR_LAYOUT_NC4HW4,
                       .n_values0 = g->n_values};
    st.other = calloc((size_t)g->n_values + 1, sizeof *st.other);
    if (!st.other) return ir_oom(NULL);
    s = run(&st);
    free(st.other);
    packing = st.changed;
  }
  if (!s) s = store_weights(g, opts, &weights);
  if (changed) *changed = packing || weights;
  return s;
}
