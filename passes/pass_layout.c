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
  bool *keep; /* by node id (--layout auto): the nodes of the regions kept; NULL: all */
  int n_values0, n_nodes0;
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
  bool packed = runs_packed(st, n, mask) && (!st->keep || (n->id < st->n_nodes0 && st->keep[n->id]));
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

/* ---- nhwc regions (--layout auto) ------------------------------------------------ */

/* The nodes that can run nhwc, joined through the values they would pass
 * nhwc (producer's output bit and reader's input bit both set); a value one
 * side would pass nhwc and the other not (a graph input or output counts
 * as such a side) needs a reorder: it crosses the region's edge. A region
 * is kept when it has a conv2d of more than one tap and at least
 * REGION_CONVS_PER_CROSSING conv2ds per crossing value (measured on the
 * H200, bench/results/2026-11-29-nhwc.md: a reorder costs 4-7 us, a 3x3
 * conv gains 2-8 us in nhwc; regions of 1x1 convs between depthwise convs
 * and concats lost 10-70 %). */
#define REGION_CONVS_PER_CROSSING 2

static int uf_find(int *up, int i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

/* keep[node id] for every node of g: whether it runs nhwc under
 * --layout auto. */
static vkml_status nhwc_keep(const ir_graph *g, const pass_opts *o, bool *keep) {
  int nn = g->n_nodes, nv = g->n_values;
  uint32_t *mask = calloc((size_t)nn + 1, sizeof *mask);
  int *up = malloc(sizeof *up * ((size_t)nn + 1));
  int *convs = calloc((size_t)nn + 1, sizeof *convs), *cross = calloc((size_t)nn + 1, sizeof *cross);
  bool *taps = calloc((size_t)nn + 1, sizeof *taps);
  const ir_node **node_of = calloc((size_t)nn + 1, sizeof *node_of);
  /* per value: the producer's node id and whether it would write it nhwc */
  int *prod = malloc(sizeof *prod * ((size_t)nv + 1));
  /* out: a graph output or read by a node that reads it in rows */
  bool *prod_nhwc = calloc((size_t)nv + 1, sizeof *prod_nhwc), *out = calloc((size_t)nv + 1, 1);
  vkml_status s = VKML_OK;
  if (!mask || !up || !convs || !cross || !taps || !node_of || !prod || !prod_nhwc || !out) {
    s = ir_oom(NULL);
    goto done;
  }
  for (int i = 0; i < nn; i++) up[i] = i;
  for (int i = 0; i < nv; i++) prod[i] = -1;
  for (int i = 0; i < g->n_outputs; i++) out[g->outputs[i]->id] = true;
  ir_foreach_node(g, n) {
    mask[n->id] = n->device != IR_DEVICE_CPU && o->layout_operands
                      ? o->layout_operands(o->layout_user, n, IR_LAYOUT_NHWC)
                      : 0;
    for (int k = 0; k < n->n_outputs && k < 16; k++) {
      prod[n->outputs[k]->id] = n->id;
      prod_nhwc[n->outputs[k]->id] = (mask[n->id] >> (16 + k)) & 1;
    }
  }
  /* join producer and reader through a value both pass nhwc */
  ir_foreach_node(g, n) {
    for (int k = 0; k < n->n_inputs; k++) {
      const ir_value *v = n->inputs[k];
      if (!v || ir_value_is_const(v)) continue;
      bool rd = k < 16 && (mask[n->id] >> k) & 1;
      if (!rd) out[v->id] = true;
      if (rd && prod[v->id] >= 0 && prod_nhwc[v->id])
        up[uf_find(up, n->id)] = uf_find(up, prod[v->id]);
    }
  }
  /* pass_split_k's nhwc sum (transpose [0,2,3,1], reshape, reduce_sum,
   * reshape, transpose [0,3,1,2]) joins the regions at its two ends: the
   * split conv's and its reader's */
  ir_foreach_node(g, n) node_of[n->id] = n;
  ir_foreach_node(g, n) {
    if (n->op != IR_OP_TRANSPOSE || !(mask[n->id] >> 16 & 1) || !n->inputs[0]) continue;
    const ir_node *pn = NULL;
    for (const ir_value *v = n->inputs[0]; v && prod[v->id] >= 0;) {
      pn = node_of[prod[v->id]];
      if (pn->op != IR_OP_RESHAPE && pn->op != IR_OP_REDUCE_SUM) break;
      v = pn->inputs[0];
    }
    if (pn && pn->op == IR_OP_TRANSPOSE && (mask[pn->id] & 1))
      up[uf_find(up, n->id)] = uf_find(up, pn->id);
  }
  /* count, per region, its convs and the values crossing its edge (a value
   * counted once per region and side) */
  ir_foreach_node(g, n) {
    if (!mask[n->id]) continue;
    int r = uf_find(up, n->id);
    if (n->op == IR_OP_CONV2D) {
      convs[r]++;
      const ir_type *w = &n->inputs[1]->type;
      if (w->rank == 4 && w->dims[2] * w->dims[3] > 1) taps[r] = true;
    }
    for (int k = 0; k < n->n_inputs && k < 16; k++) {
      const ir_value *v = n->inputs[k];
      if (!v || ir_value_is_const(v) || !((mask[n->id] >> k) & 1)) continue;
      if (prod[v->id] < 0 || !prod_nhwc[v->id]) cross[r]++; /* a reorder in */
    }
    for (int k = 0; k < n->n_outputs && k < 16; k++) {
      const ir_value *v = n->outputs[k];
      if (!((mask[n->id] >> (16 + k)) & 1)) continue;
      cross[r] += out[v->id]; /* a reorder out */
    }
  }
  ir_foreach_node(g, n) {
    int r = uf_find(up, n->id);
    keep[n->id] = mask[n->id] && taps[r] && convs[r] >= REGION_CONVS_PER_CROSSING * cross[r];
  }
done:
  free(mask);
  free(up);
  free(convs);
  free(cross);
  free(taps);
  free(node_of);
  free(prod);
  free(prod_nhwc);
  free(out);
  return s;
}

vkml_status pass_layout_nhwc_regions(const ir_graph *g, const pass_opts *opts, bool **keep) {
  *keep = calloc((size_t)g->n_nodes + 1, sizeof **keep);
  if (!*keep) return ir_oom(NULL);
  vkml_status s = nhwc_keep(g, opts, *keep);
  if (s) {
    free(*keep);
    *keep = NULL;
  }
  return s;
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
    uint32_t mask = n->device != IR_DEVICE_CPU && o->layout_weights
                        ? o->layout_weights(o->layout_user, n, IR_LAYOUT_NHWC)
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
  if (opts->layout != IR_LAYOUT_DEFAULT && opts->layout != IR_LAYOUT_NC4HW4 &&
      opts->layout != IR_LAYOUT_NHWC)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "layout %s: only nc4hw4 and nhwc are packed",
                            ir_layout_name(opts->layout));
  vkml_status s = VKML_OK;
  bool packing = false, weights = false;
  bool annotated = has_packed_values(g);
  bool auto_nhwc = opts->layout == IR_LAYOUT_DEFAULT && opts->layout_auto && !annotated;
  if (opts->layout != IR_LAYOUT_DEFAULT || annotated || auto_nhwc) {
    layout_state st = {.g = g,
                       .o = opts,
                       .packed = opts->layout == IR_LAYOUT_NHWC || auto_nhwc ? IR_LAYOUT_NHWC
                                                                            : IR_LAYOUT_NC4HW4,
                       .assign_all = opts->layout != IR_LAYOUT_DEFAULT || auto_nhwc,
                       .n_values0 = g->n_values,
                       .n_nodes0 = g->n_nodes};
    st.other = calloc((size_t)g->n_values + 1, sizeof *st.other);
    if (auto_nhwc) st.keep = calloc((size_t)g->n_nodes + 1, sizeof *st.keep);
    if (!st.other || (auto_nhwc && !st.keep)) {
      free(st.other);
      free(st.keep);
      return ir_oom(NULL);
    }
    if (auto_nhwc) s = nhwc_keep(g, opts, st.keep);
    if (!s) s = run(&st);
    free(st.other);
    free(st.keep);
    packing = st.changed;
  }
  if (!s) s = store_weights(g, opts, &weights);
  if (changed) *changed = packing || weights;
  return s;
}
