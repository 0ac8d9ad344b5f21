/* ir_verify: the whole-graph checks every pass can run after itself. Per-op
 * rules (arity, attributes, types) live in shape inference (ir_infer_node);
 * this file checks the graph's structure and compares inferred types with
 * the annotated ones. Runs in O(values log values + nodes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* "FILE:LINE:COL: " (LINE:COL omitted for line 0, FILE for NULL there). */
static void location(const char *file, int line, int col, char *buf, size_t bytes) {
  if (line > 0)
    snprintf(buf, bytes, "%s:%d:%d: ", file ? file : "<input>", line, col);
  else if (file)
    snprintf(buf, bytes, "%s: ", file);
  else
    buf[0] = 0;
}

static vkml_status verr(const char *file, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static vkml_status verr(const char *file, int line, int col, const char *fmt, ...) {
  char loc[512], msg[768];
  location(file, line, col, loc, sizeof loc);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vkml_status_make(VKML_CODE_INVALID_GRAPH, "%s%s", loc, msg);
}

/* An error about node n: "FILE:LINE:COL: conv2d %y: reason". */
static vkml_status node_err(const char *file, const ir_node *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static vkml_status node_err(const char *file, const ir_node *n, const char *fmt, ...) {
  char desc[256], msg[768];
  ir_node_describe(n, desc, sizeof desc);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return verr(file, n->line, n->col, "%s: %s", desc, msg);
}

static int cmp_value_name(const void *a, const void *b) {
  const ir_value *x = *(const ir_value *const *)a, *y = *(const ir_value *const *)b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->id > y->id) - (x->id < y->id);
}

static vkml_status check_names(const ir_graph *g, const char *file) {
  size_t n = 0;
  ir_foreach_value(g, v) {
    if (!v->name) return verr(file, v->line, v->col, "value #%d has no name", v->id);
    n++;
  }
  if (n < 2) return VKML_OK;
  const ir_value **sorted = malloc(n * sizeof *sorted);
  if (!sorted) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  size_t i = 0;
  ir_foreach_value(g, v) sorted[i++] = v;
  qsort(sorted, n, sizeof *sorted, cmp_value_name);
  vkml_status s = VKML_OK;
  for (i = 1; i < n && !s; i++)
    if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0)
      s = verr(file, sorted[i]->line, sorted[i]->col, "duplicate value name %%%s",
               sorted[i]->name);
  free(sorted);
  return s;
}

static vkml_status check_value(const ir_graph *g, const ir_value *v, const char *file) {
  vkml_status s = ir_type_check(&v->type);
  if (s) {
    char loc[512];
    location(file, v->line, v->col, loc, sizeof loc);
    return vkml_status_annotate(s, "%s%%%s", loc, v->name);
  }
  if ((unsigned)v->layout >= IR_LAYOUT_COUNT)
    return verr(file, v->line, v->col, "%%%s: invalid layout %d", v->name, (int)v->layout);
  if (v->layout != IR_LAYOUT_DEFAULT && (v->type.rank != 4 || v->type.bounded))
    return verr(file, v->line, v->col, "%%%s: layout %s needs a static rank-4 type", v->name,
                ir_layout_name(v->layout));
  if (v->storage == IR_CONST_INLINE && !v->inline_data)
    return verr(file, v->line, v->col, "constant %%%s has no data", v->name);
  if (v->storage == IR_CONST_BLOB) {
    uint64_t bytes = (uint64_t)ir_type_bytes(&v->type);
    if (!g->blob)
      return verr(file, v->line, v->col,
                  "constant %%%s refers to the weights blob but no blob is attached",
                  v->name);
    if (v->blob_offset > g->blob_bytes || bytes > g->blob_bytes - v->blob_offset)
      return verr(file, v->line, v->col,
                  "constant %%%s: bytes [%llu, %llu) lie outside the weights blob (%llu bytes)",
                  v->name, (unsigned long long)v->blob_offset,
                  (unsigned long long)(v->blob_offset + bytes),
                  (unsigned long long)g->blob_bytes);
    /* kernels read the elements in place: each at an address of its size */
    size_t es = ir_dtype_size(v->type.dtype);
    if (es > 1 && v->blob_offset % es)
      return verr(file, v->line, v->col,
                  "constant %%%s: offset %llu in the weights blob is not a multiple of its "
                  "element size (%zu bytes)",
                  v->name, (unsigned long long)v->blob_offset, es);
  }
  return VKML_OK;
}

/* Inference and the comparison with the annotated output types. */
static vkml_status check_types(const ir_node *n, const char *file) {
  ir_type small[8];
  ir_type *out = small;
  if (n->n_outputs > 8) {
    out = malloc(sizeof *out * (size_t)n->n_outputs);
    if (!out) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  vkml_status s = ir_infer_node(n, out);
  if (s) {
    char desc[256], loc[512];
    ir_node_describe(n, desc, sizeof desc);
    location(file, n->line, n->col, loc, sizeof loc);
    s = vkml_status_annotate(s, "%s%s", loc, desc);
  }
  for (int i = 0; i < n->n_outputs && !s; i++) {
    const ir_value *v = n->outputs[i];
    if (!ir_type_equal(&v->type, &out[i])) {
      char a[128], b[128];
      ir_type_format(&v->type, a, sizeof a);
      ir_type_format(&out[i], b, sizeof b);
      s = node_err(file, n, "output %%%s: annotated %s but inferred %s", v->name, a, b);
    }
  }
  if (out != small) free(out);
  return s;
}

/* Placement (passes/pass_place.c, pass_insert_transfers.c): a transfer
 * runs where its output lives and moves row-major bytes (host tensors have
 * no packed layout); only a CPU node says why it is on the CPU. */
static vkml_status check_placement(const ir_node *n, const char *file) {
  if (n->op == IR_OP_DOWNLOAD || n->op == IR_OP_UPLOAD) {
    ir_device want = n->op == IR_OP_DOWNLOAD ? IR_DEVICE_CPU : IR_DEVICE_GPU;
    const char *what = n->op == IR_OP_DOWNLOAD ? "a download" : "an upload";
    if (n->device != want)
      return node_err(file, n, "%s runs @%s", what, ir_device_name(want));
    const ir_value *packed = n->inputs[0]->layout != IR_LAYOUT_DEFAULT ? n->inputs[0]
                             : n->outputs[0]->layout != IR_LAYOUT_DEFAULT ? n->outputs[0]
                                                                            : NULL;
    if (packed)
      return node_err(file, n, "%s copies row-major tensors only (%%%s is %s)", what,
                      packed->name, ir_layout_name(packed->layout));
  }
  if (ir_node_attr(n, IR_A_CPU_REASON) && n->device != IR_DEVICE_CPU)
    return node_err(file, n, "cpu_reason on a node that is not @cpu");
  return VKML_OK;
}

static vkml_status check_node(const ir_graph *g, const ir_node *n, bool *defined,
                              const char *file) {
  if ((unsigned)n->op >= IR_OP_COUNT) return node_err(file, n, "unknown op %d", (int)n->op);
  if (n->n_inputs > IR_MAX_NODE_OPERANDS || n->n_outputs > IR_MAX_NODE_OPERANDS)
    return node_err(file, n, "%d inputs and %d outputs; a node may have at most %d of each",
                    n->n_inputs, n->n_outputs, IR_MAX_NODE_OPERANDS);
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (!v) return node_err(file, n, "input %d is missing", i);
    if (v->id < 0 || v->id >= g->n_values)
      return node_err(file, n, "input %%%s does not belong to the graph", v->name);
    if (!defined[v->id]) {
      if (v->producer)
        return node_err(file, n, "input %%%s is used before its definition", v->name);
      return node_err(file, n,
                      "input %%%s is not defined (no graph input, constant or node output)",
                      v->name);
    }
  }
  for (int i = 0; i < n->n_outputs; i++) {
    const ir_value *v = n->outputs[i];
    if (!v) return node_err(file, n, "output %d is missing", i);
    if (v->id < 0 || v->id >= g->n_values)
      return node_err(file, n, "output %%%s does not belong to the graph", v->name);
    if (defined[v->id] || v->producer != n || v->producer_output != i)
      return node_err(file, n, "output %%%s is defined more than once", v->name);
  }
  VKML_RETURN_IF_ERROR(check_types(n, file));
  VKML_RETURN_IF_ERROR(check_placement(n, file));
  for (int i = 0; i < n->n_outputs; i++) defined[n->outputs[i]->id] = true;
  return VKML_OK;
}

vkml_status ir_verify(const ir_graph *g, const char *filename) {
  if (!g) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "ir_verify: no graph");
  const char *file = filename;
  VKML_RETURN_IF_ERROR(check_names(g, file));
  ir_foreach_value(g, v) {
    if (v->id < 0 || v->id >= g->n_values)
      return verr(file, v->line, v->col, "value %%%s has an invalid id", v->name);
    VKML_RETURN_IF_ERROR(check_value(g, v, file));
  }
  bool *defined = calloc((size_t)g->n_values + 1, sizeof *defined);
  if (!defined) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  vkml_status s = VKML_OK;
  ir_foreach_value(g, v) if (v->storage != IR_CONST_NONE) {
    if (v->producer) {
      s = verr(file, v->line, v->col, "constant %%%s is also a node output", v->name);
      goto out;
    }
    defined[v->id] = true;
  }
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_value *v = g->inputs[i];
    if (!v) {
      s = verr(file, 0, 0, "graph input %d is missing", i);
      goto out;
    }
    if (v->id < 0 || v->id >= g->n_values || defined[v->id] || v->producer) {
      s = verr(file, v->line, v->col,
               "graph input %%%s is also a constant, a node output or another input",
               v->name);
      goto out;
    }
    defined[v->id] = true;
  }
  ir_foreach_node(g, n) {
    s = check_node(g, n, defined, file);
    if (s) goto out;
  }
  if (g->n_outputs < 1) {
    s = verr(file, 0, 0, "graph @%s has no outputs", g->name ? g->name : "?");
    goto out;
  }
  for (int i = 0; i < g->n_outputs; i++) {
    const ir_value *v = g->outputs[i];
    if (!v || v->id < 0 || v->id >= g->n_values || !defined[v->id]) {
      s = verr(file, v ? v->line : 0, v ? v->col : 0, "graph output %%%s is not defined",
               v ? v->name : "?");
      goto out;
    }
  }
out:
  free(defined);
  return s;
}
