/* Graph -> ir_plan: --cpu-ops parsing, the fp16 graph conversion, placement
 * and kernel compilation (see cg_plan.h). */
#include "codegen/cg_plan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_ops.h"
#include "ir/text.h"
#include "passes/pass_layout.h"
#include "passes/plan_memory.h"

static vkml_status oom(void) {
  return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
}

/* ---- --cpu-ops ------------------------------------------------------------ */

/* ONNX op types whose IR op has another name (after folding case and '_'). */
static const struct {
  const char *onnx;
  ir_op op;
} ONNX_ALIASES[] = {
    {"conv", IR_OP_CONV2D},
    {"convtranspose", IR_OP_CONV_TRANSPOSE2D},
    {"batchnormalization", IR_OP_BATCHNORM},
    {"instancenormalization", IR_OP_INSTANCE_NORM},
    {"layernormalization", IR_OP_LAYER_NORM},
    {"averagepool", IR_OP_AVGPOOL},
    {"globalaveragepool", IR_OP_GLOBAL_AVG_POOL},
    {"hardswish", IR_OP_HARD_SWISH},
};

/* Lower case without '_' into out (at most out_bytes - 1 characters). */
static void fold_name(const char *s, size_t len, char *out, size_t out_bytes) {
  size_t o = 0;
  for (size_t i = 0; i < len && o + 1 < out_bytes; i++)
    if (s[i] != '_') out[o++] = (char)tolower((unsigned char)s[i]);
  out[o] = 0;
}

vkml_status cg_cpu_ops_parse(const char *list, bool *mask) {
  for (int i = 0; i < IR_OP_COUNT; i++) mask[i] = false;
  if (!list) return VKML_OK;
  const char *p = list;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && isspace((unsigned char)*p)) p++, len--;
    while (len && isspace((unsigned char)p[len - 1])) len--;
    if (len) {
      char want[64], have[64];
      fold_name(p, len, want, sizeof want);
      bool found = false;
      for (int op = 0; op < IR_OP_COUNT; op++) {
        const char *name = ir_op_name((ir_op)op);
        fold_name(name, strlen(name), have, sizeof have);
        if (len < sizeof want && !strcmp(want, have)) mask[op] = found = true;
      }
      for (size_t a = 0; a < sizeof ONNX_ALIASES / sizeof ONNX_ALIASES[0]; a++)
        if (len < sizeof want && !strcmp(want, ONNX_ALIASES[a].onnx))
          mask[ONNX_ALIASES[a].op] = found = true;
      if (!found)
        return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--cpu-ops: unknown op '%.*s'",
                                (int)len, p);
    }
    p = e ? e + 1 : p + strlen(p);
  }
  return VKML_OK;
}

/* ---- fp16 conversion -------------------------------------------------------- */

/* A set of names (open addressing), to make the names of inserted values
 * unique. Holds pointers to strings that outlive it. */
typedef struct name_set {
  const char **slots;
  size_t cap; /* power of two */
  size_t n;
} name_set;

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static bool name_set_has(const name_set *s, const char *name) {
  for (size_t i = name_hash(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (!s->slots[i]) return false;
    if (!strcmp(s->slots[i], name)) return true;
  }
}

/* The set is sized for every name it will ever hold (see conv_state). */
static void name_set_add(name_set *s, const char *name) {
  size_t i = name_hash(name) & (s->cap - 1);
  while (s->slots[i]) {
    if (!strcmp(s->slots[i], name)) return;
    i = (i + 1) & (s->cap - 1);
  }
  s->slots[i] = name;
  s->n++;
}

typedef struct conv_state {
  const ir_graph *g;
  ir_graph *ng;
  ir_value **v16, **v32; /* by old value id: its f16 / f32 version in ng */
  bool *is_output;       /* by old value id */
  name_set names;
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
  if (!name) return oom();
  snprintf(name, n, "%s%s", base, suffix);
  for (int k = 2; name_set_has(&st->names, name); k++) snprintf(name, n, "%s%s_%d", base, suffix, k);
  vkml_status s = ir_value_create(st->ng, name, type, out);
  free(name);
  if (!s) name_set_add(&st->names, (*out)->name);
  return s;
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
 * 64-byte aligned. */
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
  if (!st->blob) return oom();
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
  if (n->n_inputs > 64 || n->n_outputs > 64) return false;
  ir_type in[64], out[64];
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
  ir_value *ins[64], *outs[64];
  if (n->n_inputs > 64 || n->n_outputs > 64)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "fp16: node with more than 64 operands");
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
  ir_foreach_value(g, v) name_set_add(&st->names, v->name);
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

vkml_status cg_graph_to_fp16(const ir_graph *g, ir_graph **out) {
  *out = NULL;
  conv_state st = {0};
  st.g = g;
  size_t nv = (size_t)g->n_values + 1;
  /* every old value has at most two names in ng besides its own */
  st.names.cap = 64;
  while (st.names.cap < 6 * nv) st.names.cap *= 2;
  st.names.slots = calloc(st.names.cap, sizeof *st.names.slots);
  st.v16 = calloc(nv, sizeof *st.v16);
  st.v32 = calloc(nv, sizeof *st.v32);
  st.is_output = calloc(nv, sizeof *st.is_output);
  st.blob_off = calloc(nv, sizeof *st.blob_off);
  vkml_status s = VKML_OK;
  if (!st.names.slots || !st.v16 || !st.v32 || !st.is_output || !st.blob_off) s = oom();
  if (!s) s = ir_graph_create(g->name, &st.ng);
  if (!s) s = convert(&st);
  if (s) ir_graph_destroy(st.ng);
  else *out = st.ng;
  free(st.names.slots);
  free(st.v16);
  free(st.v32);
  free(st.is_output);
  free(st.blob_off);
  return s ? vkml_status_annotate(s, "fp16 conversion of @%s", g->name ? g->name : "") : VKML_OK;
}

/* ---- placement and compilation ----------------------------------------------- */

static vkml_status choose_default(void *user, const ir_node *n, const ir_target *t,
                                  cg_kernel *out) {
  (void)user;
  return cg_kernel_for_node(n, NULL, NULL, t, out);
}

/* Modules compiled in this build, by template and defines, so that identical
 * kernels (same shapes differ only in specialization constants) compile once. */
typedef struct module_memo {
  char **keys;
  int32_t *index;
  int n, cap;
} module_memo;

static void memo_free(module_memo *m) {
  for (int i = 0; i < m->n; i++) free(m->keys[i]);
  free(m->keys);
  free(m->index);
}

static char *kernel_source_key(const cg_kernel *k) {
  size_t n = strlen(k->source_name) + 16;
  for (int i = 0; i < k->n_defines; i++) n += strlen(k->def_name[i]) + strlen(k->def_value[i]) + 2;
  char *s = malloc(n);
  if (!s) return NULL;
  size_t o = (size_t)snprintf(s, n, "%s|O%d", k->source_name, (int)k->opt);
  for (int i = 0; i < k->n_defines; i++)
    o += (size_t)snprintf(s + o, n - o, "|%s=%s", k->def_name[i], k->def_value[i]);
  return s;
}

static vkml_status module_for(ir_plan *p, cg_compiler *cc, module_memo *m, const cg_kernel *k,
                              int32_t *index) {
  char *key = kernel_source_key(k);
  if (!key) return oom();
  for (int i = 0; i < m->n; i++)
    if (!strcmp(m->keys[i], key)) {
      free(key);
      *index = m->index[i];
      return VKML_OK;
    }
  if (m->n == m->cap) {
    int ncap = m->cap ? 2 * m->cap : 16;
    char **nk = realloc(m->keys, sizeof *nk * (size_t)ncap);
    if (nk) m->keys = nk;
    int32_t *ni = nk ? realloc(m->index, sizeof *ni * (size_t)ncap) : NULL;
    if (ni) m->index = ni;
    if (!nk || !ni) {
      free(key);
      return oom();
    }
    m->cap = ncap;
  }
  cg_spirv spv = {0};
  vkml_status s = cg_kernel_compile(cc, k, &spv);
  if (!s) s = ir_plan_add_module(p, k->source_name, spv.words, spv.bytes, index);
  cg_spirv_free(&spv);
  if (s) {
    free(key);
    return s;
  }
  m->keys[m->n] = key;
  m->index[m->n++] = *index;
  return VKML_OK;
}

/* Why n cannot go to the GPU before asking for a kernel, or NULL. */
static const char *cpu_only_reason(const ir_node *n, const ir_target *t, const bool *forced,
                                   char *buf, size_t bytes) {
  if (forced[n->op]) return "forced onto the CPU (--cpu-ops)";
  if (n->device == IR_DEVICE_CPU) return "placed on the CPU in the IR (@cpu)";
  /* every kernel binds one storage buffer per operand (cg_ops.h); checked
   * here, before the layout pass asks for a mask, so such a node is never
   * packed */
  if (t->max_storage_buffers_per_stage &&
      (uint64_t)n->n_inputs + (uint64_t)n->n_outputs > t->max_storage_buffers_per_stage) {
    snprintf(buf, bytes,
             "binds %d storage buffers; the device allows %u per shader stage "
             "(maxPerStageDescriptorStorageBuffers)",
             n->n_inputs + n->n_outputs, t->max_storage_buffers_per_stage);
    return buf;
  }
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->type.bounded) {
      snprintf(buf, bytes, "%%%s has a data-dependent (bounded) shape", v->name);
      return buf;
    }
    if (t->max_storage_buffer_range &&
        (uint64_t)ir_type_bytes(&v->type) > t->max_storage_buffer_range) {
      snprintf(buf, bytes, "%%%s (%lld bytes) exceeds the device's storage-buffer range",
               v->name, (long long)ir_type_bytes(&v->type));
      return buf;
    }
  }
  return NULL;
}

/* A CPU step; host tensors are row-major, so n may not bind packed values. */
static vkml_status cpu_step(ir_plan *p, const ir_node *n, const char *reason) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%%%s is in layout %s but the node runs on the CPU (%s)", v->name,
                              ir_layout_name(v->layout), reason);
  }
  return ir_plan_add_cpu_step(p, n->id, reason);
}

static vkml_status place_node(ir_plan *p, const ir_node *n, const ir_target *t,
                              const cg_plan_opts *o, const bool *forced, cg_compiler *cc,
                              module_memo *memo, cg_kernel *k) {
  char why[256];
  const char *reason = cpu_only_reason(n, t, forced, why, sizeof why);
  if (reason) return cpu_step(p, n, reason);
  cg_kernel_chooser choose = o->choose ? o->choose : choose_default;
  vkml_status s = choose(o->choose_user, n, t, k);
  if (vkml_status_code(s) == VKML_CODE_UNSUPPORTED) {
    vkml_status s2 = cpu_step(p, n, vkml_status_message(s));
    vkml_status_free(s);
    return s2;
  }
  VKML_RETURN_IF_ERROR(s);
  if (k->n_buffers != n->n_inputs + n->n_outputs || !k->tmpl || !k->source)
    return vkml_status_make(VKML_CODE_INTERNAL, "kernel %s binds %d buffers, the node %d",
                            k->key, k->n_buffers, n->n_inputs + n->n_outputs);
  if (!k->groups[0] || !k->groups[1] || !k->groups[2])
    return cpu_step(p, n, "the kernel's grid is empty");
  int32_t module;
  VKML_RETURN_IF_ERROR(module_for(p, cc, memo, k, &module));
  int32_t bind[128];
  ir_plan_spec spec[CG_MAX_SPEC];
  if (n->n_inputs + n->n_outputs > 128)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "more than 128 operands");
  for (int i = 0; i < n->n_inputs; i++) bind[i] = n->inputs[i]->id;
  for (int i = 0; i < n->n_outputs; i++) bind[n->n_inputs + i] = n->outputs[i]->id;
  for (int i = 0; i < k->n_spec; i++) spec[i] = (ir_plan_spec){k->spec_id[i], k->spec_value[i]};
  char sched[256];
  cg_schedule_format(k->tmpl, &k->schedule, sched, sizeof sched);
  ir_plan_gpu_desc d = {
      .node = n->id,
      .module = module,
      .bindings = bind,
      .n_bindings = n->n_inputs + n->n_outputs,
      .specs = spec,
      .n_specs = k->n_spec,
      .push = NULL, /* cg_kernel carries no push-constant data yet */
      .push_bytes = k->push_bytes,
      .groups = {k->groups[0], k->groups[1], k->groups[2]},
      .key = k->key,
      .tmpl = k->tmpl->name,
      .schedule = sched,
  };
  return ir_plan_add_gpu_step(p, &d);
}

/* ---- layouts ------------------------------------------------------------------ */

typedef struct layout_ctx {
  const ir_target *t;
  const bool *forced;
} layout_ctx;

static uint32_t plan_layout_operands(void *user, const ir_node *n, ir_layout l) {
  const layout_ctx *c = user;
  char why[256];
  if (cpu_only_reason(n, c->t, c->forced, why, sizeof why)) return 0;
  return cg_node_layout_operands(n, l);
}

static bool has_packed_values(const ir_graph *g) {
  ir_foreach_value(g, v) if (v->layout != IR_LAYOUT_DEFAULT) return true;
  return false;
}

/* Rewrites the plan's graph for packed layouts when asked (see cg_plan.h). */
static vkml_status assign_layouts(ir_plan *p, const ir_graph *g, const ir_target *t,
                                  const cg_plan_opts *o, const bool *forced) {
  const ir_graph *pg = ir_plan_graph(p, g);
  if (o->layout == IR_LAYOUT_DEFAULT && !has_packed_values(pg)) return VKML_OK;
  if (o->layout != IR_LAYOUT_DEFAULT && o->layout != IR_LAYOUT_NC4HW4)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "layout %s: the GPU kernels pack nc4hw4 only",
                            ir_layout_name(o->layout));
  if (!p->graph) VKML_RETURN_IF_ERROR(ir_graph_clone(g, &p->graph));
  layout_ctx c = {t, forced};
  pass_layout_opts lo = {
      .layout = IR_LAYOUT_NC4HW4,
      .assign_all = o->layout == IR_LAYOUT_NC4HW4,
      .operands = plan_layout_operands,
      .user = &c,
  };
  VKML_RETURN_IF_ERROR(pass_layout(p->graph, &lo, NULL));
  return ir_verify(p->graph, "<layout assignment>");
}

/* ---- memory ------------------------------------------------------------------ */

static uint64_t gpu_bound_bytes(void *user, const ir_value *v) {
  const bool *bound = user;
  if (!bound[v->id]) return 0;
  uint64_t b = ((uint64_t)ir_type_storage_bytes(&v->type, v->layout) + 15) / 16 * 16;
  return b ? b : 16;
}

vkml_status cg_plan_memory(const ir_plan *p, const ir_graph *g, const ir_target *t,
                           ir_memplan_strategy strategy, ir_memplan *out) {
  const ir_graph *pg = ir_plan_graph(p, g);
  memset(out, 0, sizeof *out);
  bool *bound = calloc((size_t)pg->n_values + 1, sizeof *bound);
  if (!bound) return oom();
  for (int i = 0; i < p->n_steps; i++) {
    const ir_plan_step *s = &p->steps[i];
    if (s->device != IR_DEVICE_GPU) continue;
    for (int k = 0; k < s->n_bindings; k++) bound[ir_plan_step_bindings(p, s)[k]] = true;
  }
  uint64_t align = t->min_storage_buffer_offset_alignment ? t->min_storage_buffer_offset_alignment : 1;
  pass_memplan_opts mo = {
      .strategy = strategy, .alignment = align, .size = gpu_bound_bytes, .user = bound};
  vkml_status s = pass_plan_memory(pg, &mo, out);
#ifndef NDEBUG
  /* the independent check, in debug builds (ir_plan_check repeats it before
   * a plan runs) */
  if (!s) s = ir_memplan_check(out, pg, gpu_bound_bytes, bound);
  if (s) ir_memplan_free(out);
#endif
  free(bound);
  return s;
}

vkml_status cg_plan_build(const ir_graph *g, const ir_target *t, const cg_plan_opts *opts,
                          ir_plan **out) {
  *out = NULL;
  cg_plan_opts o = opts ? *opts : (cg_plan_opts){0};
  bool forced[IR_OP_COUNT];
  VKML_RETURN_IF_ERROR(cg_cpu_ops_parse(o.cpu_ops, forced));
  if (o.precision != IR_PRECISION_FP32 && o.precision != IR_PRECISION_FP16)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "unknown precision %d", (int)o.precision);
  if (o.precision == IR_PRECISION_FP16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "fp16 precision needs 16-bit storage buffers, which %s lacks",
                            t->name);
  ir_plan *p = NULL;
  cg_compiler *own = NULL;
  module_memo memo = {0};
  cg_kernel *k = malloc(sizeof *k);
  vkml_status s = k ? ir_plan_create(&p) : oom();
  if (s) goto out;
  p->precision = o.precision;
  if (o.precision == IR_PRECISION_FP16 && (s = cg_graph_to_fp16(g, &p->graph))) goto out;
  if ((s = assign_layouts(p, g, t, &o, forced))) goto out;
  const ir_graph *pg = ir_plan_graph(p, g);
  p->graph_nodes = pg->n_nodes;
  p->graph_values = pg->n_values;
  cg_compiler *cc = o.compiler;
  if (!cc) {
    s = cg_compiler_create(&(cg_compiler_opts){0}, &own);
    if (s) goto out;
    cc = own;
  }
  ir_foreach_node(pg, n) {
    s = place_node(p, n, t, &o, forced, cc, &memo, k);
    if (s) {
      char d[160];
      ir_node_describe(n, d, sizeof d);
      s = vkml_status_annotate(s, "%s", d);
      goto out;
    }
  }
  s = cg_plan_memory(p, g, t, o.memory_planner, &p->mem);
out:
  memo_free(&memo);
  cg_compiler_destroy(own);
  free(k);
  if (s) {
    ir_plan_destroy(p);
    return s;
  }
  *out = p;
  return VKML_OK;
}
