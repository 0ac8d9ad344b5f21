/* pass_fp16: fp16 precision (opts.precision == IR_PRECISION_FP16) — every
 * f32 value (intermediates and constants) becomes f16: constants are
 * converted (round to nearest even), casts to f32 become casts to f16, f32
 * graph inputs and outputs keep their type and names with cast nodes next to
 * them. A node whose shape inference refuses f16 stays in f32 with casts
 * around it; a node without float outputs (cast to int, comparison, argmax)
 * reads exact f32 inputs where they exist anyway (graph inputs, constants).
 *
 * Converting the graph (not asking each kernel for f16) keeps the kernels'
 * contract simple — they instantiate for the dtypes they see — and keeps
 * CPU-placed nodes exact to what the GPU computes around them (the reference
 * kernels run on f16 tensors too). The caller still sees f32 inputs and
 * outputs. Built as a new graph, then swapped into g (which then owns the
 * converted weights). Moved here from codegen/core/plan.c unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/strmap.h"
#include "ir/text.h"
#include "passes/pass.h"
#include "ir/util.h"


typedef struct conv_state {
  const ir_graph *g;
  ir_graph *ng;
  ir_value **v16, **v32; /* by old value id: its f16 / f32 version in ng */
  bool *is_output;       /* by old value id */
  ir_strmap names;       /* every name in ng (value: the name), for fresh ones */
  uint8_t *blob;         /* ng's weights, being filled */
  uint64_t *blob_off;    /* by old value id: where its f32 bytes went (f32 consts) */
} conv_state;

static ir_type with_dtype(const ir_type *t, ir_dtype d) {
  ir_type r = *t;
  r.dtype = d;
  return r;
}

/* A fresh name "<base><suffix>[_N]" registered in the set. */
static vkml_status fresh_value(conv_state *st, const char *base, const char *suffix,
                               const ir_type *type, ir_value **out) {
  size_t n = strlen(base) + strlen(suffix) + 24;
  char *name = malloc(n);
  if (!name) return ir_oom(NULL);
  snprintf(name, n, "%s%s", base, suffix);
  for (int k = 2; ir_strmap_get(&st->names, name); k++) snprintf(name, n, "%s%s_%d", base, suffix, k);
  vkml_status s = ir_value_create(st->ng, name, type, out);
  free(name);
  return s ? s : ir_strmap_put(&st->names, (*out)->name, (void *)(*out)->name);
}

static vkml_status cast_node(conv_state *st, ir_value *from, ir_value *to, ir_dtype d) {
  ir_node *n;
  VKML_RETURN_IF_ERROR(ir_node_create(st->ng, IR_OP_CAST, &from, 1, &to, 1, &n));
  return ir_node_set_enum(st->ng, n, IR_A_TO, (int)d);
}

/* The f16 (want_f16) or f32 version of old f32 value v, made on demand: a
 * cast node for computed values, a second constant for constants. The f32
 * version of a graph output carries the original name (the f16 one was made
 * under a fresh name for that reason). */
static vkml_status version_of(conv_state *st, const ir_value *v, bool want_f16, ir_value **out) {
  ir_value **slot = want_f16 ? &st->v16[v->id] : &st->v32[v->id];
  if (*slot) {
    *out = *slot;
    return VKML_OK;
  }
  ir_value *have = want_f16 ? st->v32[v->id] : st->v16[v->id];
  if (!have)
    return vkml_status_make(VKML_CODE_INTERNAL, "fp16: %%%s used before its definition",
                            v->name);
  ir_type t = with_dtype(&v->type, want_f16 ? IR_F16 : IR_F32);
  if (want_f16 && ir_value_is_const(v))
    return vkml_status_make(VKML_CODE_INTERNAL, "fp16: constant %%%s has no f16 copy", v->name);
  /* A graph output's own name is free: its f16 version got a fresh one. */
  if (!want_f16 && st->is_output[v->id])
    VKML_RETURN_IF_ERROR(ir_value_create(st->ng, v->name, &t, slot));
  else
    VKML_RETURN_IF_ERROR(fresh_value(st, v->name, want_f16 ? ".f16" : ".f32", &t, slot));
  if (ir_value_is_const(v)) {
    /* the exact f32 bytes, not a rounded cast */
    (*slot)->storage = IR_CONST_BLOB;
    (*slot)->blob_offset = st->blob_off[v->id];
  } else {
    VKML_RETURN_IF_ERROR(cast_node(st, have, *slot, want_f16 ? IR_F16 : IR_F32));
  }
  *out = *slot;
  return VKML_OK;
}

/* Weights of the converted graph: every constant, f32 ones both as f16 and
 * f32 (the f32 bytes are used only when a constant is needed in f32), each
 * 64-byte aligned; other inline constants stay inline too. */
static vkml_status make_constants(conv_state *st) {
  const ir_graph *g = st->g;
  uint64_t total = 0;
  ir_foreach_value(g, v) {
    if (!ir_value_is_const(v)) continue;
    uint64_t b = (uint64_t)ir_type_bytes(&v->type);
    total += (b + 63) / 64 * 64;
    if (v->type.dtype == IR_F32) total += ((b / 2) + 63) / 64 * 64;
  }
  st->blob = malloc(total ? (size_t)total : 1);
  if (!st->blob) return ir_oom(NULL);
  ir_graph_set_blob(st->ng, st->blob, total, true);
  uint64_t off = 0;
  ir_foreach_value(g, v) {
    if (!ir_value_is_const(v)) continue;
    const void *data = ir_value_const_data(g, v);
    if (!data)
      return vkml_status_make(VKML_CODE_INVALID_GRAPH,
                              "constant %%%s: weights blob missing or too small", v->name);
    uint64_t b = (uint64_t)ir_type_bytes(&v->type);
    memcpy(st->blob + off, data, (size_t)b);
    uint64_t raw = off;
    off += (b + 63) / 64 * 64;
    ir_value *nv;
    if (v->type.dtype != IR_F32) {
      /* small inline integers (shape arithmetic) stay inline: what reads
       * them at compile time (ir/bounds.h) sees them there */
      if (v->storage == IR_CONST_INLINE)
        VKML_RETURN_IF_ERROR(ir_const_create_inline(st->ng, v->name, &v->type, data, &nv));
      else
        VKML_RETURN_IF_ERROR(ir_const_create_blob(st->ng, v->name, &v->type, raw, &nv));
      st->v16[v->id] = st->v32[v->id] = nv;
      continue;
    }
    st->blob_off[v->id] = raw;
    int64_t n = ir_type_numel(&v->type);
    uint16_t *h = (uint16_t *)(st->blob + off);
    for (int64_t i = 0; i < n; i++) {
      float f;
      memcpy(&f, (const uint8_t *)data + 4 * i, 4);
      h[i] = ir_f32_to_f16(f);
    }
    ir_type t16 = with_dtype(&v->type, IR_F16);
    if (st->is_output[v->id])
      VKML_RETURN_IF_ERROR(fresh_value(st, v->name, ".f16", &t16, &nv));
    else
      VKML_RETURN_IF_ERROR(ir_value_create(st->ng, v->name, &t16, &nv));
    nv->storage = IR_CONST_BLOB;
    nv->blob_offset = off;
    st->v16[v->id] = nv;
    off += ((b / 2) + 63) / 64 * 64;
  }
  return VKML_OK;
}

/* Whether n can run with its f32 tensors in f16: shape inference must accept
 * the f16 input types and give the f16 output types (a cast to f32 becomes a
 * cast to f16, checked by the caller). */
static bool node_takes_f16(const ir_node *n) {
  if (n->n_inputs > IR_MAX_NODE_OPERANDS || n->n_outputs > IR_MAX_NODE_OPERANDS) return false;
  ir_type in[IR_MAX_NODE_OPERANDS], out[IR_MAX_NODE_OPERANDS];
  for (int i = 0; i < n->n_inputs; i++)
    in[i] = n->inputs[i]->type.dtype == IR_F32 ? with_dtype(&n->inputs[i]->type, IR_F16)
                                                 : n->inputs[i]->type;
  vkml_status s = ir_infer_node_types(n, in, out);
  if (s) {
    vkml_status_free(s);
    return false;
  }
  for (int i = 0; i < n->n_outputs; i++) {
    ir_type want = n->outputs[i]->type;
    if (want.dtype == IR_F32) want.dtype = IR_F16;
    if (!ir_type_equal(&want, &out[i])) return false;
  }
  return true;
}

/* A node without float outputs (a cast to int, a comparison, an argmax)
 * reads its f32 inputs exactly when that costs nothing: each has an f32
 * version already (a graph input, a value computed in f32) or is a constant. */
static bool reads_f32_for_free(const conv_state *st, const ir_node *n) {
  for (int i = 0; i < n->n_outputs; i++)
    if (ir_dtype_is_float(n->outputs[i]->type.dtype)) return false;
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (v->type.dtype == IR_F32 && !st->v32[v->id] && !ir_value_is_const(v)) return false;
  }
  return true;
}

static vkml_status convert_node(conv_state *st, const ir_node *n) {
  ir_value *ins[IR_MAX_NODE_OPERANDS], *outs[IR_MAX_NODE_OPERANDS];
  if (n->n_inputs > IR_MAX_NODE_OPERANDS || n->n_outputs > IR_MAX_NODE_OPERANDS)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "fp16: node with more than %d operands",
                            IR_MAX_NODE_OPERANDS);
  bool cast_to_f32 = n->op == IR_OP_CAST && ir_node_int(n, IR_A_TO, -1) == IR_F32;
  bool f16 = cast_to_f32 || (!reads_f32_for_free(st, n) && node_takes_f16(n));
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (v->type.dtype == IR_F32) VKML_RETURN_IF_ERROR(version_of(st, v, f16, &ins[i]));
    else ins[i] = st->v16[v->id];
    if (!ins[i])
      return vkml_status_make(VKML_CODE_INTERNAL, "fp16: %%%s used before its definition",
                              v->name);
  }
  for (int i = 0; i < n->n_outputs; i++) {
    const ir_value *v = n->outputs[i];
    if (v->type.dtype == IR_F32 && f16) {
      ir_type t = with_dtype(&v->type, IR_F16);
      if (st->is_output[v->id]) VKML_RETURN_IF_ERROR(fresh_value(st, v->name, ".f16", &t, &outs[i]));
      else VKML_RETURN_IF_ERROR(ir_value_create(st->ng, v->name, &t, &outs[i]));
      st->v16[v->id] = outs[i];
    } else {
      VKML_RETURN_IF_ERROR(ir_value_create(st->ng, v->name, &v->type, &outs[i]));
      if (v->type.dtype == IR_F32) st->v32[v->id] = outs[i];
      else st->v16[v->id] = st->v32[v->id] = outs[i];
    }
    outs[i]->layout = v->layout;
  }
  ir_node *nn;
  VKML_RETURN_IF_ERROR(ir_node_create(st->ng, n->op, ins, n->n_inputs, outs, n->n_outputs, &nn));
  nn->device = n->device;
  VKML_RETURN_IF_ERROR(ir_node_copy_attrs(st->ng, nn, n));
  if (cast_to_f32) VKML_RETURN_IF_ERROR(ir_node_set_enum(st->ng, nn, IR_A_TO, IR_F16));
  return VKML_OK;
}

static vkml_status convert(conv_state *st) {
  const ir_graph *g = st->g;
  for (int i = 0; i < g->n_outputs; i++) st->is_output[g->outputs[i]->id] = true;
  ir_foreach_value(g, v) VKML_RETURN_IF_ERROR(ir_strmap_put(&st->names, v->name, (void *)v->name));
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_value *v = g->inputs[i];
    ir_value *nv = st->v32[v->id] ? st->v32[v->id] : st->v16[v->id];
    if (!nv) {
      VKML_RETURN_IF_ERROR(ir_value_create(st->ng, v->name, &v->type, &nv));
      nv->layout = v->layout;
      st->v32[v->id] = nv;
      if (v->type.dtype != IR_F32) st->v16[v->id] = nv;
    }
    VKML_RETURN_IF_ERROR(ir_graph_add_input(st->ng, nv));
  }
  VKML_RETURN_IF_ERROR(make_constants(st));
  ir_foreach_node(g, n) VKML_RETURN_IF_ERROR(convert_node(st, n));
  for (int i = 0; i < g->n_outputs; i++) {
    const ir_value *v = g->outputs[i];
    ir_value *nv;
    if (v->type.dtype == IR_F32) VKML_RETURN_IF_ERROR(version_of(st, v, false, &nv));
    else nv = st->v16[v->id];
    if (!nv)
      return vkml_status_make(VKML_CODE_INTERNAL, "fp16: output %%%s is never defined",
                              v->name);
    VKML_RETURN_IF_ERROR(ir_graph_add_output(st->ng, nv));
  }
  return ir_verify(st->ng, "<fp16 conversion>");
}

static vkml_status to_fp16(const ir_graph *g, ir_graph **out) {
  *out = NULL;
  conv_state st = {0};
  st.g = g;
  size_t nv = (size_t)g->n_values + 1;
  st.v16 = calloc(nv, sizeof *st.v16);
  st.v32 = calloc(nv, sizeof *st.v32);
  st.is_output = calloc(nv, sizeof *st.is_output);
  st.blob_off = calloc(nv, sizeof *st.blob_off);
  vkml_status s = VKML_OK;
  if (!st.v16 || !st.v32 || !st.is_output || !st.blob_off) s = ir_oom(NULL);
  if (!s) s = ir_graph_create(g->name, &st.ng);
  if (!s) s = convert(&st);
  if (s) ir_graph_destroy(st.ng);
  else *out = st.ng;
  ir_strmap_free(&st.names);
  free(st.v16);
  free(st.v32);
  free(st.is_output);
  free(st.blob_off);
  return s ? vkml_status_annotate(s, "fp16 conversion of @%s", g->name ? g->name : "") : VKML_OK;
}

vkml_status pass_fp16(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (opts->precision != IR_PRECISION_FP16) return VKML_OK;
  ir_graph *h = NULL;
  VKML_RETURN_IF_ERROR(to_fp16(g, &h));
  /* h's nodes and values point into h's arena, not at the ir_graph struct,
   * so swapping the structs hands g the converted graph */
  ir_graph tmp = *g;
  *g = *h;
  *h = tmp;
  ir_graph_destroy(h);
  if (changed) *changed = true;
  return VKML_OK;
}
