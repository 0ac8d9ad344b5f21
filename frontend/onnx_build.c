/* What the op converters build with: fresh IR names, the symbol table of
 * ONNX values, constants (inline or placed in the blob at the end), emitting
 * IR nodes with shape inference, binding ONNX outputs, and reading parameter
 * inputs that must be constant. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"
#include "ir/text.h"
#include "onnx_internal.h"

vkml_status onnx_error(vkml_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vkml_status s = vkml_status_makev(code, fmt, ap);
  va_end(ap);
  return s;
}

void *onnx_alloc(onnx_ctx *c, size_t bytes) {
  if (c->n_bufs == c->cap_bufs) {
    int ncap = c->cap_bufs ? c->cap_bufs * 2 : 64;
    void **nb = realloc(c->bufs, sizeof *nb * (size_t)ncap);
    if (!nb) return NULL;
    c->bufs = nb;
    c->cap_bufs = ncap;
  }
  void *p = calloc(1, bytes ? bytes : 1);
  if (p) c->bufs[c->n_bufs++] = p;
  return p;
}

/* ---- names ---------------------------------------------------------------- */

/* IR names keep [A-Za-z0-9_.-] (no quoting needed in the text form);
 * anything else becomes '_' (ONNX names may hold '/', ':', spaces). */
const char *onnx_ir_name(onnx_ctx *c, const char *base) {
  size_t len = strlen(base);
  if (len > 200) len = 200;
  /* Room for a "_N" suffix from onnx_fresh_name. */
  char *buf = ir_arena_alloc(c->scratch, len + 24);
  if (!buf) return NULL;
  for (size_t i = 0; i < len; i++) {
    char ch = base[i];
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
    buf[i] = ok ? ch : '_';
  }
  if (len == 0) buf[len++] = 'v';
  buf[len] = 0;
  return buf;
}

const char *onnx_fresh_name(onnx_ctx *c, const char *base) {
  char *buf = (char *)onnx_ir_name(c, base);
  if (!buf) return NULL;
  size_t len = strlen(buf);
  while (ir_strmap_get(&c->ir_names, buf))
    snprintf(buf + len, 24, "_%d", ++c->n_fresh);
  vkml_status s = ir_strmap_put(&c->ir_names, buf, buf);
  if (s) { /* callers report NULL as out of memory */
    vkml_status_free(s);
    return NULL;
  }
  return buf;
}

onnx_sym *onnx_sym_get(onnx_ctx *c, const char *name) {
  onnx_sym *s = ir_strmap_get(&c->syms, name);
  return s == &c->forgotten ? NULL : s;
}

vkml_status onnx_sym_forget(onnx_ctx *c, const char *name) {
  if (!name || !name[0] || !ir_strmap_get(&c->syms, name)) return VKML_OK;
  return ir_strmap_put(&c->syms, name, &c->forgotten);
}

vkml_status onnx_sym_alias(onnx_ctx *c, const char *name, const onnx_sym *sym) {
  if (onnx_sym_get(c, name))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "value '%s' is defined twice", name);
  const char *key = ir_arena_strdup(c->scratch, name);
  if (!key) return ir_oom(NULL);
  return ir_strmap_put(&c->syms, key, (void *)sym);
}

vkml_status onnx_sym_add(onnx_ctx *c, const char *name, onnx_sym **out) {
  if (onnx_sym_get(c, name))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "value '%s' is defined twice", name);
  onnx_sym *s = ir_arena_alloc(c->scratch, sizeof *s);
  if (!s) return ir_oom(NULL);
  s->name = ir_arena_strdup(c->scratch, name);
  if (!s->name) return ir_oom(NULL);
  VKML_RETURN_IF_ERROR(ir_strmap_put(&c->syms, s->name, s));
  *out = s;
  return VKML_OK;
}

/* ---- constants ------------------------------------------------------------ */

vkml_status onnx_const_value(onnx_ctx *c, const char *base, const ir_type *t,
                             const void *data, ir_value **out) {
  const char *name = onnx_fresh_name(c, base);
  if (!name) return ir_oom(NULL);
  int64_t bytes = ir_type_bytes(t);
  if (c->inline_max_bytes >= 0 && bytes <= c->inline_max_bytes)
    return ir_const_create_inline(c->g, name, t, data, out);
  VKML_RETURN_IF_ERROR(ir_const_create_blob(c->g, name, t, 0, out));
  if (c->n_blob == c->cap_blob) {
    int ncap = c->cap_blob ? c->cap_blob * 2 : 32;
    ir_value **nv = realloc(c->blob_vals, sizeof *nv * (size_t)ncap);
    if (!nv) return ir_oom(NULL);
    c->blob_vals = nv;
    const void **nd = realloc(c->blob_data, sizeof *nd * (size_t)ncap);
    if (!nd) return ir_oom(NULL);
    c->blob_data = nd;
    c->cap_blob = ncap;
  }
  c->blob_vals[c->n_blob] = *out;
  c->blob_data[c->n_blob++] = data;
  return VKML_OK;
}

vkml_status onnx_sym_value(onnx_ctx *c, onnx_sym *s, ir_value **out) {
  if (!s->v) VKML_RETURN_IF_ERROR(onnx_const_value(c, s->name, &s->type, s->data, &s->v));
  *out = s->v;
  return VKML_OK;
}

vkml_status onnx_input(onnx_ctx *c, onnx_node *n, int i, ir_value **out) {
  if (!onnx_has_input(n, i))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is missing", i);
  return onnx_sym_value(c, n->in[i], out);
}

bool onnx_output_used(const onnx_node *n, int i) {
  return i < (int)n->p->n_output && n->p->output[i] && n->p->output[i][0];
}

/* ---- emitting IR ----------------------------------------------------------- */

vkml_status onnx_emit(onnx_ctx *c, onnx_node *n, ir_op op,
                      ir_value *const *ins, int n_in, int n_out, bool final,
                      ir_node **out) {
  ir_value **outs = onnx_alloc(c, sizeof *outs * (size_t)(n_out ? n_out : 1));
  if (!outs) return ir_oom(NULL);
  /* Helper values are "<first ONNX output>.<IR op>", so that they never take
   * the name an ONNX output will want. */
  char base[256];
  snprintf(base, sizeof base, "%s.%s",
           onnx_output_used(n, 0) ? n->p->output[0] : n->op->name, ir_op_name(op));
  for (int i = 0; i < n_out; i++) {
    bool named = final && onnx_output_used(n, i);
    const char *name = onnx_fresh_name(c, named ? n->p->output[i] : base);
    if (!name) return ir_oom(NULL);
    ir_type t;
    memset(&t, 0, sizeof t);
    VKML_RETURN_IF_ERROR(ir_value_create(c->g, name, &t, &outs[i]));
  }
  VKML_RETURN_IF_ERROR(ir_node_create(c->g, op, ins, n_in, outs, n_out, out));
  if (n->p->name && n->p->name[0])
    VKML_RETURN_IF_ERROR(ir_node_set_string(c->g, *out, IR_A_NAME, n->p->name));
  return VKML_OK;
}

vkml_status onnx_finish(onnx_ctx *c, ir_node *nd) {
  (void)c;
  ir_type small[8];
  ir_type *types = small;
  if (nd->n_outputs > 8) {
    types = onnx_alloc(c, sizeof *types * (size_t)nd->n_outputs);
    if (!types) return ir_oom(NULL);
  }
  vkml_status s = ir_infer_node(nd, types);
  if (s) {
    /* Name the IR op unless inference's message already does. */
    const char *op = ir_op_name(nd->op), *msg = vkml_status_message(s);
    size_t l = strlen(op);
    if (strncmp(msg, op, l) != 0 || msg[l] != ':') s = vkml_status_annotate(s, "%s", op);
    return s;
  }
  for (int i = 0; i < nd->n_outputs; i++) nd->outputs[i]->type = types[i];
  return VKML_OK;
}

vkml_status onnx_emit1(onnx_ctx *c, onnx_node *n, ir_op op,
                       ir_value *const *ins, int n_in, bool final,
                       ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, ins, n_in, 1, final, &nd));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

vkml_status onnx_emit_inputs(onnx_ctx *c, onnx_node *n, ir_op op, int n_in,
                             ir_node **out) {
  ir_value **ins = onnx_alloc(c, sizeof *ins * (size_t)(n_in ? n_in : 1));
  if (!ins) return ir_oom(NULL);
  for (int i = 0; i < n_in; i++) VKML_RETURN_IF_ERROR(onnx_input(c, n, i, &ins[i]));
  return onnx_emit(c, n, op, ins, n_in, 1, true, out);
}

vkml_status onnx_done(onnx_ctx *c, onnx_node *n, ir_node *nd) {
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  for (int i = 0; i < nd->n_outputs; i++)
    VKML_RETURN_IF_ERROR(onnx_bind(c, n, i, nd->outputs[i]));
  return VKML_OK;
}

vkml_status onnx_check_arity(const onnx_node *n, int min, int max) {
  if (n->n_in < min || (max >= 0 && n->n_in > max)) {
    if (min == max)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "expects %d input%s, got %d", min,
                        min == 1 ? "" : "s", n->n_in);
    if (max < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "expects at least %d input%s, got %d",
                        min, min == 1 ? "" : "s", n->n_in);
    return onnx_error(VKML_CODE_INVALID_GRAPH, "expects %d to %d inputs, got %d", min,
                      max, n->n_in);
  }
  for (int i = 0; i < min; i++)
    if (!n->in[i])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "required input %d is empty", i);
  return VKML_OK;
}

vkml_status onnx_reshape(onnx_ctx *c, onnx_node *n, ir_value *v, int rank,
                         const int64_t *dims, bool final, ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_RESHAPE, &v, 1, 1, final, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_SHAPE, dims, rank));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

vkml_status onnx_input_reshaped(onnx_ctx *c, onnx_node *n, int i, int rank,
                                const int64_t *dims, ir_value **out) {
  if (!onnx_has_input(n, i))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d is missing", i);
  const onnx_sym *s = n->in[i];
  ir_type t = ir_type_make(s->type.dtype, rank, dims);
  if (ir_type_numel(&t) != ir_type_numel(&s->type))
    return onnx_error(VKML_CODE_INTERNAL, "reshape changes the element count");
  if (s->is_const) return onnx_const_value(c, s->name, &t, s->data, out);
  ir_value *v;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, i, &v));
  return onnx_reshape(c, n, v, rank, dims, false, out);
}

vkml_status onnx_bind_named(onnx_ctx *c, onnx_node *n, int i, ir_value *v) {
  if (!onnx_output_used(n, i)) return VKML_OK;
  /* The scratch name dies with the import: the graph keeps a copy. */
  const char *name = onnx_fresh_name(c, n->p->output[i]);
  char *copy = name ? ir_arena_strdup(c->g->arena, name) : NULL;
  if (!copy) return ir_oom(NULL);
  v->name = copy;
  return onnx_bind(c, n, i, v);
}

vkml_status onnx_bind(onnx_ctx *c, onnx_node *n, int i, ir_value *v) {
  if (!onnx_output_used(n, i)) return VKML_OK;
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_sym_add(c, n->p->output[i], &s));
  s->type = v->type;
  s->v = v;
  return VKML_OK;
}

vkml_status onnx_bind_sym(onnx_ctx *c, onnx_node *n, int i, const onnx_sym *sym) {
  if (!onnx_output_used(n, i)) return VKML_OK;
  /* The alias shares the symbol, so a constant is materialised once. */
  return onnx_sym_alias(c, n->p->output[i], sym);
}

vkml_status onnx_bind_const(onnx_ctx *c, onnx_node *n, int i,
                            const ir_type *t, const void *data, bool share) {
  if (!onnx_output_used(n, i)) return VKML_OK;
  VKML_RETURN_IF_ERROR(ir_type_check(t));
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_sym_add(c, n->p->output[i], &s));
  s->type = *t;
  s->is_const = true;
  if (share) {
    s->data = data;
  } else {
    size_t bytes = (size_t)ir_type_bytes(t);
    void *copy = onnx_alloc(c, bytes);
    if (!copy) return ir_oom(NULL);
    if (bytes) memcpy(copy, data, bytes);
    s->data = copy;
  }
  return VKML_OK;
}

/* ---- parameters ------------------------------------------------------------ */

vkml_status onnx_param(onnx_ctx *c, onnx_node *n, int i, const char *what,
                       onnx_sym **out) {
  (void)c;
  if (!onnx_has_input(n, i))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d ('%s') is missing", i, what);
  onnx_sym *s = n->in[i];
  if (!s->is_const) {
    bool graph_input = s->v && !s->v->producer;
    return onnx_error(VKML_CODE_UNSUPPORTED,
                      "input %d ('%s' = '%s') must be a constant: it becomes an "
                      "attribute%s", i, what, s->name,
                      graph_input ? " (it is a graph input: freeze it to a value)"
                                  : " (it is computed at run time)");
  }
  *out = s;
  return VKML_OK;
}

vkml_status onnx_param_ints(onnx_ctx *c, onnx_node *n, int i, const char *what,
                            int64_t **vals, int *count) {
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_param(c, n, i, what, &s));
  if (!ir_dtype_is_int(s->type.dtype))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d ('%s') must be an "
                      "integer tensor, not %s", i, what, ir_dtype_name(s->type.dtype));
  int64_t cnt = ir_type_numel(&s->type);
  if (s->type.rank > 1 || cnt > (1 << 20))
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "input %d ('%s') must be a scalar or a 1-D list", i, what);
  int64_t *v = onnx_alloc(c, sizeof *v * (size_t)(cnt ? cnt : 1));
  if (!v) return ir_oom(NULL);
  for (int64_t k = 0; k < cnt; k++) v[k] = ir_dtype_load_i64(s->type.dtype, s->data, k);
  *vals = v;
  *count = (int)cnt;
  return VKML_OK;
}

vkml_status onnx_param_floats(onnx_ctx *c, onnx_node *n, int i,
                              const char *what, float **vals, int *count) {
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_param(c, n, i, what, &s));
  int64_t cnt = ir_type_numel(&s->type);
  if (s->type.rank > 1 || cnt > (1 << 20))
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "input %d ('%s') must be a scalar or a 1-D list", i, what);
  float *v = onnx_alloc(c, sizeof *v * (size_t)(cnt ? cnt : 1));
  if (!v) return ir_oom(NULL);
  for (int64_t k = 0; k < cnt; k++) v[k] = (float)ir_dtype_load_f64(s->type.dtype, s->data, k);
  *vals = v;
  *count = (int)cnt;
  return VKML_OK;
}

vkml_status onnx_param_scalar(onnx_ctx *c, onnx_node *n, int i,
                              const char *what, double *out) {
  onnx_sym *s;
  VKML_RETURN_IF_ERROR(onnx_param(c, n, i, what, &s));
  if (ir_type_numel(&s->type) != 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input %d ('%s') must hold one "
                      "value, not %lld", i, what,
                      (long long)ir_type_numel(&s->type));
  *out = ir_dtype_load_f64(s->type.dtype, s->data, 0);
  return VKML_OK;
}


/* ---- helper nodes on IR values ---------------------------------------------- */

vkml_status onnx_transpose(onnx_ctx *c, onnx_node *n, ir_value *v, const int64_t *perm,
                           ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_TRANSPOSE, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PERM, perm, v->type.rank));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

vkml_status onnx_reduce(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *v, const int64_t *axes,
                        int n_axes, bool keepdims, ir_value **out) {
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, axes, n_axes));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_KEEPDIMS, keepdims));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

vkml_status onnx_cast(onnx_ctx *c, onnx_node *n, ir_value *v, ir_dtype to, ir_value **out) {
  if (v->type.dtype == to) {
    *out = v;
    return VKML_OK;
  }
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CAST, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_TO, (int)to));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}

vkml_status onnx_op2(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *a, ir_value *b,
                     ir_value **out) {
  ir_value *ins[2] = {a, b};
  return onnx_emit1(c, n, op, ins, 2, false, out);
}

vkml_status onnx_op3(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *a, ir_value *b, ir_value *d,
                     ir_value **out) {
  ir_value *ins[3] = {a, b, d};
  return onnx_emit1(c, n, op, ins, 3, false, out);
}

vkml_status onnx_slice_axis(onnx_ctx *c, onnx_node *n, ir_value *v, int axis, int64_t start,
                            int64_t step, int64_t count, ir_value **out) {
  if (start == 0 && step == 1 && count == v->type.dims[axis]) {
    *out = v;
    return VKML_OK;
  }
  int64_t end = start + step * (count - 1) + 1, ax = axis;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SLICE, &v, 1, 1, false, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STARTS, &start, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_ENDS, &end, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, &ax, 1));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STEPS, &step, 1));
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  *out = nd->outputs[0];
  return VKML_OK;
}
