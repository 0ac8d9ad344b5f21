/* Graph construction, attributes and types. */
#include "graph.h"
#include "ir/params.h"
#include "ir/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- types ------------------------------------------------------------ */

ir_type ir_type_make(ir_dtype dtype, int rank, const int64_t *dims) {
  ir_type t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = rank;
  for (int i = 0; i < rank && i < IR_MAX_RANK; i++) t.dims[i] = dims[i];
  return t;
}

bool ir_type_equal(const ir_type *a, const ir_type *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->bounded != b->bounded)
    return false;
  if (a->bounded && a->bounded_axis != b->bounded_axis) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

bool ir_type_holds(const ir_type *t, const ir_type *actual) {
  if (actual->bounded || t->dtype != actual->dtype || t->rank != actual->rank) return false;
  for (int i = 0; i < t->rank; i++)
    if (t->bounded && i == t->bounded_axis ? actual->dims[i] > t->dims[i]
                                           : actual->dims[i] != t->dims[i])
      return false;
  return true;
}

int64_t ir_type_numel(const ir_type *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

int64_t ir_type_bytes(const ir_type *t) {
  return ir_type_numel(t) * (int64_t)ir_dtype_size(t->dtype);
}

int64_t ir_type_storage_bytes(const ir_type *t, ir_layout l) {
  if (l != IR_LAYOUT_NC4HW4 || t->rank != 4) return ir_type_bytes(t);
  int64_t c = t->dims[1];
  if (c <= 0) return ir_type_bytes(t);
  return ir_type_bytes(t) / c * ((c + 3) / 4 * 4);
}

void ir_layout_nhwc_copy(const ir_type *t, const void *src, void *dst, bool to_nhwc) {
  int64_t n = t->dims[0], c = t->dims[1], sp = t->dims[2] * t->dims[3];
  size_t es = ir_dtype_size(t->dtype);
  const uint8_t *s = src;
  uint8_t *d = dst;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < c; j++)
      for (int64_t k = 0; k < sp; k++) {
        size_t chw = (size_t)((i * c + j) * sp + k) * es, hwc = (size_t)((i * sp + k) * c + j) * es;
        memcpy(d + (to_nhwc ? hwc : chw), s + (to_nhwc ? chw : hwc), es);
      }
}

bool ir_type_rows_lead(const ir_type *t) {
  if (!t->bounded) return false;
  for (int d = 0; d < t->bounded_axis; d++)
    if (t->dims[d] != 1) return false;
  return true;
}

uint64_t ir_type_extent_offset(const ir_type *t, ir_layout l) {
  return ((uint64_t)ir_type_storage_bytes(t, l) + 15) / 16 * 16;
}

uint64_t ir_type_device_bytes(const ir_type *t, ir_layout l) {
  uint64_t b = ir_type_extent_offset(t, l) + (t->bounded ? 16 : 0);
  return b ? b : 16;
}

vkml_status ir_type_check(const ir_type *t) {
  if ((unsigned)t->dtype >= IR_DTYPE_COUNT)
    return vkml_status_make(VKML_CODE_INVALID_GRAPH, "invalid element type");
  if (t->rank < 0 || t->rank > IR_MAX_RANK)
    return vkml_status_make(VKML_CODE_INVALID_GRAPH,
                            "rank %d outside [0, %d]", t->rank, IR_MAX_RANK);
  if (t->bounded && (t->bounded_axis < 0 || t->bounded_axis >= t->rank))
    return vkml_status_make(VKML_CODE_INVALID_GRAPH, "bounded axis out of range");
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0)
      return vkml_status_make(VKML_CODE_INVALID_GRAPH,
                              "negative dimension %lld", (long long)t->dims[i]);
    if (t->dims[i] > IR_MAX_ELEMENTS ||
        (t->dims[i] > 0 && n > IR_MAX_ELEMENTS / t->dims[i]))
      return vkml_status_make(VKML_CODE_INVALID_GRAPH,
                              "tensor too large (more than 2^40 elements)");
    n *= t->dims[i];
  }
  return VKML_OK;
}

void ir_type_format(const ir_type *t, char *buf, int buf_bytes) {
  int off = snprintf(buf, (size_t)buf_bytes, "%s[", ir_dtype_name(t->dtype));
  for (int i = 0; i < t->rank && off < buf_bytes; i++)
    off += snprintf(buf + off, (size_t)(buf_bytes - off), "%s%s%lld",
                    i ? "," : "", t->bounded && t->bounded_axis == i ? "<=" : "",
                    (long long)t->dims[i]);
  if (off < buf_bytes) snprintf(buf + off, (size_t)(buf_bytes - off), "]");
}

static const char *const layout_names[IR_LAYOUT_COUNT] = {"default", "nhwc", "nc4hw4"};

const char *ir_layout_name(ir_layout l) {
  return (unsigned)l < IR_LAYOUT_COUNT ? layout_names[l] : "?";
}

bool ir_layout_from_name(const char *name, int len, ir_layout *out) {
  for (int i = 1; i < IR_LAYOUT_COUNT; i++)
    if ((int)strlen(layout_names[i]) == len && !memcmp(layout_names[i], name, (size_t)len)) {
      *out = (ir_layout)i;
      return true;
    }
  return false;
}

const char *ir_device_name(ir_device d) {
  switch (d) {
  case IR_DEVICE_GPU: return "gpu";
  case IR_DEVICE_CPU: return "cpu";
  default: return "unplaced";
  }
}

/* ---- graph ------------------------------------------------------------- */

vkml_status ir_graph_create(const char *name, ir_graph **out) {
  *out = NULL;
  ir_graph *g = calloc(1, sizeof *g);
  if (!g) return ir_oom("building the graph");
  g->arena = ir_arena_create();
  if (!g->arena) {
    free(g);
    return ir_oom("building the graph");
  }
  g->name = ir_arena_strdup(g->arena, name ? name : "main");
  if (!g->name) {
    ir_graph_destroy(g);
    return ir_oom("building the graph");
  }
  *out = g;
  return VKML_OK;
}

void ir_graph_destroy(ir_graph *g) {
  if (!g) return;
  free(g->blob_owned);
  ir_arena_destroy(g->arena);
  free(g);
}

void ir_graph_set_blob(ir_graph *g, const void *data, uint64_t bytes,
                       bool take_ownership) {
  if (g->blob_owned && g->blob_owned != data) free(g->blob_owned);
  g->blob = data;
  g->blob_bytes = bytes;
  g->blob_owned = take_ownership ? (void *)data : NULL;
  g->blob_cap = take_ownership ? bytes : 0;
}

static vkml_status value_new(ir_graph *g, const char *name, const ir_type *type,
                             ir_value **out) {
  ir_value *v = ir_arena_alloc(g->arena, sizeof *v);
  if (!v) return ir_oom("building the graph");
  char tmp[32];
  if (!name) {
    snprintf(tmp, sizeof tmp, "t%d", g->n_values);
    name = tmp;
  }
  v->name = ir_arena_strdup(g->arena, name);
  if (!v->name) return ir_oom("building the graph");
  v->type = *type;
  v->id = g->n_values++;
  if (g->last_value)
    g->last_value->next = v;
  else
    g->first_value = v;
  g->last_value = v;
  *out = v;
  return VKML_OK;
}

vkml_status ir_value_create(ir_graph *g, const char *name, const ir_type *type,
                            ir_value **out) {
  return value_new(g, name, type, out);
}

vkml_status ir_const_create_inline(ir_graph *g, const char *name,
                                   const ir_type *type, const void *data,
                                   ir_value **out) {
  VKML_RETURN_IF_ERROR(ir_type_check(type));
  int64_t bytes = ir_type_bytes(type);
  void *copy = ir_arena_memdup(g->arena, data, (size_t)bytes);
  if (!copy) return ir_oom("building the graph");
  VKML_RETURN_IF_ERROR(value_new(g, name, type, out));
  (*out)->storage = IR_CONST_INLINE;
  (*out)->inline_data = copy;
  return VKML_OK;
}

vkml_status ir_const_create_blob(ir_graph *g, const char *name,
                                 const ir_type *type, uint64_t offset,
                                 ir_value **out) {
  VKML_RETURN_IF_ERROR(value_new(g, name, type, out));
  (*out)->storage = IR_CONST_BLOB;
  (*out)->blob_offset = offset;
  return VKML_OK;
}

bool ir_value_is_const(const ir_value *v) { return v->storage != IR_CONST_NONE; }

const void *ir_value_const_data(const ir_graph *g, const ir_value *v) {
  if (v->storage == IR_CONST_INLINE) return v->inline_data;
  if (v->storage != IR_CONST_BLOB || !g->blob) return NULL;
  uint64_t bytes = (uint64_t)ir_type_bytes(&v->type);
  if (v->blob_offset > g->blob_bytes || bytes > g->blob_bytes - v->blob_offset)
    return NULL;
  return g->blob + v->blob_offset;
}

static vkml_status push_value(ir_graph *g, ir_value ***arr, int *n, int *cap,
                              ir_value *v) {
  if (*n == *cap) {
    int ncap = *cap ? *cap * 2 : 8;
    ir_value **na = ir_arena_alloc(g->arena, sizeof *na * (size_t)ncap);
    if (!na) return ir_oom("building the graph");
    if (*n) memcpy(na, *arr, sizeof *na * (size_t)*n);
    *arr = na;
    *cap = ncap;
  }
  (*arr)[(*n)++] = v;
  return VKML_OK;
}

vkml_status ir_graph_add_input(ir_graph *g, ir_value *v) {
  return push_value(g, &g->inputs, &g->n_inputs, &g->cap_inputs, v);
}

vkml_status ir_graph_add_output(ir_graph *g, ir_value *v) {
  return push_value(g, &g->outputs, &g->n_outputs, &g->cap_outputs, v);
}

ir_value *ir_graph_find_value(const ir_graph *g, const char *name) {
  ir_foreach_value(g, v) if (strcmp(v->name, name) == 0) return v;
  return NULL;
}

vkml_status ir_node_create(ir_graph *g, ir_op op, ir_value *const *inputs,
                           int n_inputs, ir_value *const *outputs,
                           int n_outputs, ir_node **out) {
  ir_node *n = ir_arena_alloc(g->arena, sizeof *n);
  if (!n) return ir_oom("building the graph");
  n->op = op;
  n->n_inputs = n_inputs;
  n->n_outputs = n_outputs;
  n->inputs = ir_arena_memdup(g->arena, inputs, sizeof *inputs * (size_t)n_inputs);
  n->outputs = ir_arena_memdup(g->arena, outputs, sizeof *outputs * (size_t)n_outputs);
  n->attrs = ir_arena_alloc(g->arena, sizeof *n->attrs * IR_A_COUNT);
  if (!n->inputs || !n->outputs || !n->attrs) return ir_oom("building the graph");
  for (int i = 0; i < n_outputs; i++) {
    outputs[i]->producer = n;
    outputs[i]->producer_output = i;
  }
  n->id = g->n_nodes++;
  ir_node_insert_before(g, NULL, n);
  *out = n;
  return VKML_OK;
}

void ir_node_remove(ir_graph *g, ir_node *n) {
  if (n->prev)
    n->prev->next = n->next;
  else if (g->first == n)
    g->first = n->next;
  if (n->next)
    n->next->prev = n->prev;
  else if (g->last == n)
    g->last = n->prev;
  n->prev = n->next = NULL;
}

void ir_node_insert_before(ir_graph *g, ir_node *pos, ir_node *n) {
  if (!pos) { /* append */
    n->prev = g->last;
    n->next = NULL;
    if (g->last)
      g->last->next = n;
    else
      g->first = n;
    g->last = n;
    return;
  }
  n->next = pos;
  n->prev = pos->prev;
  if (pos->prev)
    pos->prev->next = n;
  else
    g->first = n;
  pos->prev = n;
}

/* ---- attributes ------------------------------------------------------- */

static ir_attr *attr_slot(ir_node *n, ir_attr_id id) {
  for (int i = 0; i < n->n_attrs; i++)
    if (n->attrs[i].id == id) return &n->attrs[i];
  ir_attr *a = &n->attrs[n->n_attrs++];
  memset(a, 0, sizeof *a);
  a->id = id;
  return a;
}

vkml_status ir_node_set_int(ir_graph *g, ir_node *n, ir_attr_id id, int64_t v) {
  (void)g;
  attr_slot(n, id)->u.i = v;
  return VKML_OK;
}

vkml_status ir_node_set_enum(ir_graph *g, ir_node *n, ir_attr_id id, int v) {
  return ir_node_set_int(g, n, id, v);
}

vkml_status ir_node_set_float(ir_graph *g, ir_node *n, ir_attr_id id, float v) {
  (void)g;
  attr_slot(n, id)->u.f = v;
  return VKML_OK;
}

vkml_status ir_node_set_ints(ir_graph *g, ir_node *n, ir_attr_id id,
                             const int64_t *v, int count) {
  int64_t *copy = ir_arena_memdup(g->arena, v, sizeof *v * (size_t)count);
  if (!copy) return ir_oom("building the graph");
  ir_attr *a = attr_slot(n, id);
  a->u.ints = copy;
  a->n = count;
  return VKML_OK;
}

vkml_status ir_node_set_floats(ir_graph *g, ir_node *n, ir_attr_id id,
                               const float *v, int count) {
  float *copy = ir_arena_memdup(g->arena, v, sizeof *v * (size_t)count);
  if (!copy) return ir_oom("building the graph");
  ir_attr *a = attr_slot(n, id);
  a->u.floats = copy;
  a->n = count;
  return VKML_OK;
}

vkml_status ir_node_set_string(ir_graph *g, ir_node *n, ir_attr_id id,
                               const char *s) {
  char *copy = ir_arena_strdup(g->arena, s);
  if (!copy) return ir_oom("building the graph");
  attr_slot(n, id)->u.s = copy;
  return VKML_OK;
}

void ir_node_remove_attr(ir_node *n, ir_attr_id id) {
  int k = 0;
  for (int i = 0; i < n->n_attrs; i++)
    if (n->attrs[i].id != id) n->attrs[k++] = n->attrs[i];
  n->n_attrs = k;
}

const ir_attr *ir_node_attr(const ir_node *n, ir_attr_id id) {
  for (int i = 0; i < n->n_attrs; i++)
    if (n->attrs[i].id == id) return &n->attrs[i];
  return NULL;
}

int64_t ir_node_int(const ir_node *n, ir_attr_id id, int64_t dflt) {
  const ir_attr *a = ir_node_attr(n, id);
  return a ? a->u.i : dflt;
}

float ir_node_float(const ir_node *n, ir_attr_id id, float dflt) {
  const ir_attr *a = ir_node_attr(n, id);
  return a ? a->u.f : dflt;
}

int ir_node_ints(const ir_node *n, ir_attr_id id, const int64_t **out) {
  const ir_attr *a = ir_node_attr(n, id);
  *out = a ? a->u.ints : NULL;
  return a ? a->n : -1;
}

int ir_node_floats(const ir_node *n, ir_attr_id id, const float **out) {
  const ir_attr *a = ir_node_attr(n, id);
  *out = a ? a->u.floats : NULL;
  return a ? a->n : -1;
}

const char *ir_node_string(const ir_node *n, ir_attr_id id) {
  const ir_attr *a = ir_node_attr(n, id);
  return a ? a->u.s : NULL;
}

bool ir_node_all_nhwc(const ir_node *n) {
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (!v || v->layout != IR_LAYOUT_NHWC || v->type.rank != 4 || v->type.bounded) return false;
  }
  return n->n_inputs + n->n_outputs > 0;
}

bool ir_node_relabels_nhwc(const ir_node *n) {
  if (n->op != IR_OP_TRANSPOSE || n->n_inputs != 1 || n->n_outputs != 1) return false;
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  if (x->type.rank != 4 || x->type.bounded || y->type.bounded) return false;
  int perm[IR_MAX_RANK];
  vkml_status s = ir_perm_get(n, 4, perm);
  vkml_status_free(s);
  if (s) return false;
  static const int to_rows[4] = {0, 2, 3, 1}, to_nhwc[4] = {0, 3, 1, 2};
  if (x->layout == IR_LAYOUT_NHWC && y->layout == IR_LAYOUT_DEFAULT)
    return !memcmp(perm, to_rows, sizeof to_rows);
  if (x->layout == IR_LAYOUT_DEFAULT && y->layout == IR_LAYOUT_NHWC)
    return !memcmp(perm, to_nhwc, sizeof to_nhwc);
  return false;
}

void ir_node_describe(const ir_node *n, char *buf, int buf_bytes) {
  const char *src = ir_node_string(n, IR_A_NAME);
  const char *out = n->n_outputs ? n->outputs[0]->name : "?";
  if (src)
    snprintf(buf, (size_t)buf_bytes, "%s %%%s (%s)", ir_op_name(n->op), out, src);
  else
    snprintf(buf, (size_t)buf_bytes, "%s %%%s", ir_op_name(n->op), out);
}

bool ir_node_any_packed(const ir_node *n) {
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (v && v->layout != IR_LAYOUT_DEFAULT &&
        !(v->layout == IR_LAYOUT_NHWC && ir_value_is_const(v)))
      return true;
  }
  for (int i = 0; i < n->n_outputs; i++)
    if (n->outputs[i] && n->outputs[i]->layout != IR_LAYOUT_DEFAULT) return true;
  return false;
}
