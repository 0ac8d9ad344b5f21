/* The import driver: model checks, graph inputs and initializers, node order,
 * the per-node conversion loop (fold or convert), graph outputs, the weights
 * blob and the final verification. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"
#include "ir/text.h"
#include "onnx_internal.h"

/* ---- graph inputs ------------------------------------------------------------ */

static void node_label(const Onnx__NodeProto *p, int index, char *buf, int bytes) {
  const char *op = onnx_str(p->op_type);
  if (p->name && p->name[0])
    snprintf(buf, (size_t)bytes, "%s node '%s'", op, p->name);
  else if (p->n_output && p->output[0] && p->output[0][0])
    snprintf(buf, (size_t)bytes, "%s node #%d (output '%s')", op, index, p->output[0]);
  else
    snprintf(buf, (size_t)bytes, "%s node #%d", op, index);
}

static int find_name(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], name) == 0) return i;
  return -1;
}

/* Inputs and outputs must be tensors of a supported element type. */
vkml_status onnx_check_io_type(const Onnx__ValueInfoProto *vi, const char *what) {
  const Onnx__TypeProto *tp = vi->type;
  const char *name = onnx_str(vi->name);
  if (!tp) return VKML_OK;
  const char *kind = NULL;
  switch (tp->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: break;
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: kind = "a sequence"; break;
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: kind = "a map"; break;
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: kind = "an optional"; break;
  case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: kind = "a sparse tensor"; break;
  default: return VKML_OK;
  }
  if (kind)
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s '%s' is %s", what, name, kind);
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  ir_dtype d;
  char nb[32];
  if (tt && tt->has_elem_type && tt->elem_type != 0 &&
      !onnx_dtype_to_ir(tt->elem_type, &d))
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s '%s' has element type %s", what,
                      name, onnx_dtype_name(tt->elem_type, nb, sizeof nb));
  return VKML_OK;
}

/* The declared type of a graph input, with --input-shape overrides. */
static vkml_status input_type(onnx_ctx *c, const Onnx__ValueInfoProto *vi,
                              ir_type *t) {
  const char *name = onnx_str(vi->name);
  const Onnx__TypeProto *tp = vi->type;
  char nb[32];
  VKML_RETURN_IF_ERROR(onnx_check_io_type(vi, "input"));
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      !tp->tensor_type)
    return onnx_error(VKML_CODE_UNSUPPORTED, "input '%s' is not a tensor", name);
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  int32_t et = tt->has_elem_type ? tt->elem_type : 0;
  memset(t, 0, sizeof *t);
  if (!onnx_dtype_to_ir(et, &t->dtype))
    return onnx_error(VKML_CODE_UNSUPPORTED, "input '%s' has element type %s", name,
                      onnx_dtype_name(et, nb, sizeof nb));
  const onnx_import_opts *o = c->opts;
  int ov = o->shape_names ? find_name(o->shape_names, o->n_shapes, name) : -1;
  const Onnx__TensorShapeProto *sh = tt->shape;
  const char *file = ov >= 0 && o->shape_files ? o->shape_files[ov] : NULL;
  if (file && sh) {
    /* a file's shape fixes symbolic dimensions only */
    bool all_known = true;
    for (size_t i = 0; i < sh->n_dim; i++)
      all_known &= sh->dim[i]->value_case ==
                       ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                   sh->dim[i]->dim_value >= 0;
    if (all_known) ov = -1;
  }
  /* what a message names: the option, or the file the shape came from */
  char from[600];
  if (file) snprintf(from, sizeof from, "--input %s=%s", name, file);
  else snprintf(from, sizeof from, "--input-shape %s", name);
  if (ov >= 0) {
    int rank = o->shape_ranks[ov];
    if (rank < 0 || rank > IR_MAX_RANK)
      return onnx_error(VKML_CODE_INVALID_ARGUMENT, "%s: rank %d outside [0, %d]", from, rank,
                        IR_MAX_RANK);
    if (sh && (int)sh->n_dim != rank)
      return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                        "%s: %d dims given, the model's input has %zu", from, rank, sh->n_dim);
    t->rank = rank;
    for (int i = 0; i < rank; i++) {
      int64_t d = o->shape_dims[ov][i];
      const Onnx__TensorShapeProto__Dimension *dim = sh ? sh->dim[i] : NULL;
      if (dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
          dim->dim_value != d)
        return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                          "%s: dim %d is %lld in the model, %lld given", from, i,
                          (long long)dim->dim_value, (long long)d);
      t->dims[i] = d;
    }
  } else {
    if (!sh)
      return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                        "input '%s' has no shape; give one with --input-shape "
                        "%s=D,D,...", name, name);
    if (sh->n_dim > IR_MAX_RANK)
      return onnx_error(VKML_CODE_UNSUPPORTED, "input '%s' has rank %zu (at most %d)",
                        name, sh->n_dim, IR_MAX_RANK);
    t->rank = (int)sh->n_dim;
    for (size_t i = 0; i < sh->n_dim; i++) {
      const Onnx__TensorShapeProto__Dimension *dim = sh->dim[i];
      if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
          dim->dim_value < 0) {
        const char *sym =
            dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                ? onnx_str(dim->dim_param) : "?";
        return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                          "input '%s' has symbolic dimension '%s' (axis %zu); give "
                          "the shape with --input-shape %s=D,D,... (or an --input "
                          "file to vkc run or vkc compile)", name, sym, i, name);
      }
      t->dims[i] = dim->dim_value;
    }
  }
  vkml_status s = ir_type_check(t);
  if (s) return vkml_status_annotate(s, "input '%s'", name);
  return VKML_OK;
}

static vkml_status add_inputs(onnx_ctx *c, const Onnx__GraphProto *gp) {
  const onnx_import_opts *o = c->opts;
  for (size_t i = 0; i < gp->n_input; i++) {
    const Onnx__ValueInfoProto *vi = gp->input[i];
    const char *name = onnx_str(vi->name);
    if (!name[0])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "graph input %zu has no name", i);
    onnx_sym *s = onnx_sym_get(c, name);
    if (s && s->is_const && !s->v) continue; /* an initializer (old IR versions) */
    ir_type t;
    VKML_RETURN_IF_ERROR(input_type(c, vi, &t));
    VKML_RETURN_IF_ERROR(onnx_sym_add(c, name, &s));
    s->type = t;
    int fz = o->const_names ? find_name(o->const_names, o->n_consts, name) : -1;
    if (fz >= 0) {
      const ir_type *ft = &o->const_types[fz];
      if (!ir_type_equal(ft, &t)) {
        char a[96], b[96];
        ir_type_format(&t, a, sizeof a);
        ir_type_format(ft, b, sizeof b);
        return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                          "frozen input '%s': the model declares %s, the value is %s",
                          name, a, b);
      }
      size_t bytes = (size_t)ir_type_bytes(&t);
      void *copy = onnx_alloc(c, bytes);
      if (!copy) return ir_oom(NULL);
      if (bytes) memcpy(copy, o->const_data[fz], bytes);
      s->is_const = true;
      s->data = copy;
      continue;
    }
    const char *irname = onnx_fresh_name(c, name);
    if (!irname) return ir_oom(NULL);
    VKML_RETURN_IF_ERROR(ir_value_create(c->g, irname, &t, &s->v));
    VKML_RETURN_IF_ERROR(ir_graph_add_input(c->g, s->v));
  }
  /* Every override must name an input. */
  for (int i = 0; i < o->n_shapes; i++) {
    onnx_sym *s = onnx_sym_get(c, o->shape_names[i]);
    if (!s || (s->is_const && find_name(o->const_names, o->n_consts, s->name) < 0)) {
      if (o->shape_files && o->shape_files[i])
        return onnx_error(VKML_CODE_INVALID_ARGUMENT, "--input %s=%s: the model has no input '%s'",
                          o->shape_names[i], o->shape_files[i], o->shape_names[i]);
      return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                        "--input-shape: the model has no input '%s'", o->shape_names[i]);
    }
  }
  for (int i = 0; i < o->n_consts; i++) {
    onnx_sym *s = onnx_sym_get(c, o->const_names[i]);
    if (!s || !s->is_const || s->v)
      return onnx_error(VKML_CODE_INVALID_ARGUMENT,
                        "cannot freeze '%s': the model has no such input",
                        o->const_names[i]);
  }
  return VKML_OK;
}

static vkml_status add_initializers(onnx_ctx *c, const Onnx__GraphProto *gp) {
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *t = gp->initializer[i];
    const char *name = onnx_str(t->name);
    if (!name[0])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "initializer %zu has no name", i);
    onnx_sym *s;
    VKML_RETURN_IF_ERROR(onnx_sym_add(c, name, &s));
    VKML_RETURN_IF_ERROR(
        vkml_status_annotate(onnx_tensor_decode(c, t, &s->type, &s->data),
                             "initializer '%s'", name));
    s->is_const = true;
  }
  if (gp->n_sparse_initializer)
    return onnx_error(VKML_CODE_UNSUPPORTED, "sparse initializers are not supported");
  return VKML_OK;
}

/* ---- node checks and order ----------------------------------------------- */

/* The nodes of gp and of the graphs in its nodes' attributes (If's
 * branches), depth first, appended to *list (grown); depth bounds nesting. */
static vkml_status collect_nodes(const Onnx__GraphProto *gp, int depth,
                                 const Onnx__NodeProto ***list, size_t *n, size_t *cap) {
  if (depth > ONNX_MAX_NESTING)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "subgraphs nested deeper than %d",
                      ONNX_MAX_NESTING);
  for (size_t i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    if (*n == *cap) {
      size_t nc = *cap ? 2 * *cap : 64;
      const Onnx__NodeProto **nl = realloc((void *)*list, nc * sizeof *nl);
      if (!nl) return ir_oom(NULL);
      *list = nl;
      *cap = nc;
    }
    (*list)[(*n)++] = p;
    for (size_t a = 0; a < p->n_attribute; a++)
      if (p->attribute[a]->g)
        VKML_RETURN_IF_ERROR(collect_nodes(p->attribute[a]->g, depth + 1, list, n, cap));
  }
  return VKML_OK;
}

/* One error listing each unsupported op type once, with a node each (the
 * nodes of subgraphs too). */
static vkml_status check_ops(const Onnx__GraphProto *gp, int64_t opset) {
  size_t cap = 256, len = 0, n_nodes = 0, cap_nodes = 0;
  char *msg = NULL;
  const Onnx__NodeProto **nodes = NULL;
  vkml_status s = collect_nodes(gp, 0, &nodes, &n_nodes, &cap_nodes);
  for (size_t i = 0; !s && i < n_nodes; i++) {
    const Onnx__NodeProto *p = nodes[i];
    const char *op = onnx_str(p->op_type), *dom = onnx_str(p->domain);
    bool std_domain = !dom[0] || strcmp(dom, "ai.onnx") == 0;
    const onnx_op_entry *e = std_domain ? onnx_op_find(op) : NULL;
    if (e && opset >= e->min_opset) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      const Onnx__NodeProto *q = nodes[j];
      seen = strcmp(onnx_str(q->op_type), op) == 0 &&
             strcmp(onnx_str(q->domain), dom) == 0;
    }
    if (seen) continue;
    char label[256], item[600];
    if (p->name && p->name[0])
      snprintf(label, sizeof label, "node %s", p->name);
    else if (p->n_output && p->output[0] && p->output[0][0])
      snprintf(label, sizeof label, "node #%zu, output %s", i, p->output[0]);
    else
      snprintf(label, sizeof label, "node #%zu", i);
    if (e)
      snprintf(item, sizeof item, "%s%s (%s; opset %lld semantics)", len ? ", " : "",
               op, label, (long long)opset);
    else if (!std_domain)
      snprintf(item, sizeof item, "%s%s:%s (%s)", len ? ", " : "", dom, op, label);
    else
      snprintf(item, sizeof item, "%s%s (%s)", len ? ", " : "", op, label);
    size_t il = strlen(item);
    if (!msg || len + il + 1 > cap) {
      while (len + il + 1 > cap) cap *= 2;
      char *nm = realloc(msg, cap);
      if (!nm) {
        free(msg);
        free((void *)nodes);
        return ir_oom(NULL);
      }
      msg = nm;
    }
    memcpy(msg + len, item, il + 1);
    len += il;
  }
  if (msg && !s) s = onnx_error(VKML_CODE_UNSUPPORTED, "unsupported ops: %s", msg);
  free(msg);
  free((void *)nodes);
  return s;
}

vkml_status onnx_check_model_ops(const Onnx__ModelProto *m) {
  int64_t opset = onnx_model_opset(m);
  if (opset >= 0 && (opset < ONNX_MIN_OPSET || opset > ONNX_MAX_OPSET))
    return onnx_error(VKML_CODE_UNSUPPORTED, "opset %lld (supported: %d to %d)",
                      (long long)opset, ONNX_MIN_OPSET, ONNX_MAX_OPSET);
  /* Ops of other domains are listed even when the default one is absent. */
  VKML_RETURN_IF_ERROR(check_ops(m->graph, opset < 0 ? ONNX_MAX_OPSET : opset));
  if (opset < 0)
    return onnx_error(VKML_CODE_PARSE, "the model imports no opset of the default "
                      "domain");
  return VKML_OK;
}

/* Node order: the file's order when it is topological (the usual case),
 * else Kahn's algorithm; a cycle or a dangling input is an error. */
static vkml_status order_nodes(onnx_ctx *c, const Onnx__GraphProto *gp,
                               int *order) {
  size_t n = gp->n_node;
  vkml_status s = VKML_OK;
  ir_strmap producer = {0};
  int *pending = NULL, *queue = NULL, *users = NULL, *user_start = NULL;
  for (size_t i = 0; i < n; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    for (size_t k = 0; k < p->n_output; k++) {
      const char *o = onnx_str(p->output[k]);
      if (!o[0]) continue;
      char label[192];
      node_label(p, (int)i, label, sizeof label);
      if (ir_strmap_get(&producer, o) || onnx_sym_get(c, o)) {
        s = onnx_error(VKML_CODE_INVALID_GRAPH, "%s: output '%s' is already "
                       "defined (by another node, an input or an initializer)",
                       label, o);
        goto done;
      }
      if ((s = ir_strmap_put(&producer, o, (void *)(intptr_t)(i + 1)))) goto done;
    }
  }
  /* Dangling inputs, and whether the given order is already topological. */
  bool sorted = true;
  for (size_t i = 0; i < n; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    for (size_t k = 0; k < p->n_input; k++) {
      const char *in = onnx_str(p->input[k]);
      if (!in[0]) continue;
      intptr_t pi = (intptr_t)ir_strmap_get(&producer, in);
      if (!pi && !onnx_sym_get(c, in)) {
        char label[192];
        node_label(p, (int)i, label, sizeof label);
        s = onnx_error(VKML_CODE_INVALID_GRAPH,
                       "%s: input '%s' is not defined by any node, graph input or "
                       "initializer", label, in);
        goto done;
      }
      if (pi && (size_t)(pi - 1) >= i) sorted = false;
    }
  }
  if (sorted) {
    for (size_t i = 0; i < n; i++) order[i] = (int)i;
    goto done;
  }
  pending = calloc(n + 1, sizeof *pending);
  queue = calloc(n + 1, sizeof *queue);
  user_start = calloc(2 * n + 2, sizeof *user_start);
  size_t n_edges = 0;
  for (size_t i = 0; i < n; i++) n_edges += gp->node[i]->n_input;
  users = calloc(n_edges + 1, sizeof *users);
  if (!pending || !queue || !user_start || !users) {
    s = ir_oom(NULL);
    goto done;
  }
  /* Consumers of node j: users[user_start[j] .. user_start[j + 1]). */
  int *cursor = user_start + n + 1;
  for (size_t i = 0; i < n; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    for (size_t k = 0; k < p->n_input; k++) {
      intptr_t pi = (intptr_t)ir_strmap_get(&producer, onnx_str(p->input[k]));
      if (!pi) continue;
      user_start[pi]++;
      pending[i]++;
    }
  }
  for (size_t j = 1; j <= n; j++) user_start[j] += user_start[j - 1];
  for (size_t j = 0; j < n; j++) cursor[j] = user_start[j];
  for (size_t i = 0; i < n; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    for (size_t k = 0; k < p->n_input; k++) {
      intptr_t pi = (intptr_t)ir_strmap_get(&producer, onnx_str(p->input[k]));
      if (pi) users[cursor[pi - 1]++] = (int)i;
    }
  }
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (!pending[i]) queue[tail++] = (int)i;
  while (head < tail) {
    int j = queue[head];
    order[head++] = j;
    for (int u = user_start[j]; u < user_start[j + 1]; u++)
      if (--pending[users[u]] == 0) queue[tail++] = users[u];
  }
  if (head < n) {
    for (size_t i = 0; i < n; i++)
      if (pending[i]) {
        char label[192];
        node_label(gp->node[i], (int)i, label, sizeof label);
        s = onnx_error(VKML_CODE_INVALID_GRAPH,
                       "the graph has a cycle through %s", label);
        break;
      }
  }
done:
  ir_strmap_free(&producer);
  free(pending);
  free(queue);
  free(users);
  free(user_start);
  return s;
}

/* ---- conversion loop --------------------------------------------------------- */

static bool all_inputs_const(const onnx_node *n) {
  int present = 0;
  for (int i = 0; i < n->n_in; i++) {
    if (!n->in[i]) continue;
    if (!n->in[i]->is_const) return false;
    present++;
  }
  return present > 0;
}

static vkml_status convert_node(onnx_ctx *c, const Onnx__NodeProto *p, int index) {
  onnx_node n;
  memset(&n, 0, sizeof n);
  n.p = p;
  n.index = index;
  n.op = onnx_op_find(onnx_str(p->op_type));
  node_label(p, index, n.label, sizeof n.label);
  if (p->n_input > (1u << 20) || p->n_output > (1u << 16))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%s: too many inputs or outputs",
                      n.label);
  n.n_in = (int)p->n_input;
  n.in = onnx_alloc(c, sizeof *n.in * (p->n_input + 1));
  if (!n.in) return ir_oom(NULL);
  for (size_t i = 0; i < p->n_input; i++) {
    const char *name = onnx_str(p->input[i]);
    n.in[i] = name[0] ? onnx_sym_get(c, name) : NULL;
  }
  vkml_status s = VKML_OK;
  bool done = false;
  if (n.op->fold && all_inputs_const(&n)) s = n.op->fold(c, &n, &done);
  if (!s && !done) s = n.op->convert(c, &n);
  if (!s && n.err) {
    s = n.err;
    n.err = VKML_OK;
  }
  vkml_status_free(n.err);
  /* A converter must define every named output. */
  for (size_t i = 0; !s && i < p->n_output; i++)
    if (onnx_output_used(&n, (int)i) && !onnx_sym_get(c, p->output[i]))
      s = onnx_error(VKML_CODE_UNSUPPORTED, "output %zu ('%s') is not supported",
                     i, p->output[i]);
  return s ? vkml_status_annotate(s, "%s", n.label) : VKML_OK;
}

/* gp's nodes in a topological order, converted. */
static vkml_status convert_nodes(onnx_ctx *c, const Onnx__GraphProto *gp) {
  int *order = onnx_alloc(c, sizeof *order * (gp->n_node + 1));
  if (!order) return ir_oom(NULL);
  VKML_RETURN_IF_ERROR(order_nodes(c, gp, order));
  for (size_t i = 0; i < gp->n_node; i++)
    VKML_RETURN_IF_ERROR(convert_node(c, gp->node[order[i]], order[i]));
  return VKML_OK;
}

vkml_status onnx_convert_subgraph(onnx_ctx *c, const Onnx__GraphProto *gp) {
  for (size_t i = 0; i < gp->n_input; i++)
    if (!onnx_sym_get(c, onnx_str(gp->input[i]->name)))
      return onnx_error(VKML_CODE_INTERNAL, "subgraph input '%s' is not bound",
                        onnx_str(gp->input[i]->name));
  VKML_RETURN_IF_ERROR(add_initializers(c, gp));
  VKML_RETURN_IF_ERROR(convert_nodes(c, gp));
  for (size_t i = 0; i < gp->n_output; i++)
    if (!onnx_sym_get(c, onnx_str(gp->output[i]->name)))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "subgraph output '%s' is not defined",
                        onnx_str(gp->output[i]->name));
  return VKML_OK;
}

/* ---- outputs and blob ---------------------------------------------------------- */

static vkml_status add_outputs(onnx_ctx *c, const Onnx__GraphProto *gp) {
  if (gp->n_output == 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "the graph has no outputs");
  for (size_t i = 0; i < gp->n_output; i++) {
    const Onnx__ValueInfoProto *vi = gp->output[i];
    const char *name = onnx_str(vi->name);
    onnx_sym *s = onnx_sym_get(c, name);
    if (!s)
      return onnx_error(VKML_CODE_INVALID_GRAPH,
                        "graph output '%s' is not defined by any node", name);
    ir_value *v;
    VKML_RETURN_IF_ERROR(onnx_sym_value(c, s, &v));
    if (strcmp(s->name, name) != 0) {
      /* An alias (Identity, Dropout, ...) of another value: an identity node
       * gives the output its own name (vkrun names output files after it). */
      ir_value *y;
      ir_node *nd;
      const char *yn = onnx_fresh_name(c, name);
      if (!yn) return ir_oom(NULL);
      VKML_RETURN_IF_ERROR(ir_value_create(c->g, yn, &v->type, &y));
      VKML_RETURN_IF_ERROR(ir_node_create(c->g, IR_OP_IDENTITY, &v, 1, &y, 1, &nd));
      VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
      v = y;
    }
    /* The declared type must agree with what the importer computed. */
    const Onnx__TypeProto *tp = vi->type;
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type) {
      const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
      char a[96], b[32];
      ir_type_format(&v->type, a, sizeof a);
      ir_dtype d;
      if (tt->has_elem_type && tt->elem_type != 0) {
        if (!onnx_dtype_to_ir(tt->elem_type, &d))
          return onnx_error(VKML_CODE_UNSUPPORTED, "output '%s' has element type %s",
                            name, onnx_dtype_name(tt->elem_type, b, sizeof b));
        if (d != v->type.dtype)
          return onnx_error(VKML_CODE_INVALID_GRAPH,
                            "output '%s': the model declares %s, the importer "
                            "computes %s", name, onnx_dtype_name(tt->elem_type, b, sizeof b), a);
      }
      const Onnx__TensorShapeProto *sh = tt->shape;
      bool static_shape = sh != NULL && !v->type.bounded;
      for (size_t k = 0; static_shape && k < sh->n_dim; k++)
        static_shape = sh->dim[k]->value_case ==
                       ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      if (static_shape) {
        bool same = (int)sh->n_dim == v->type.rank;
        for (size_t k = 0; same && k < sh->n_dim; k++)
          same = sh->dim[k]->dim_value == v->type.dims[k];
        if (!same)
          return onnx_error(VKML_CODE_INVALID_GRAPH,
                            "output '%s': the importer computes %s, which differs "
                            "from the model's declared shape", name, a);
      }
    }
    VKML_RETURN_IF_ERROR(ir_graph_add_output(c->g, v));
  }
  return VKML_OK;
}

static vkml_status place_blob(onnx_ctx *c) {
  /* constants dropped since they were made take no room */
  bool *live = calloc((size_t)c->g->n_values + 1, sizeof *live);
  if (!live) return ir_oom(NULL);
  ir_foreach_value(c->g, v) live[v->id] = true;
  int kept = 0;
  for (int i = 0; i < c->n_blob; i++)
    if (live[c->blob_vals[i]->id]) {
      c->blob_vals[kept] = c->blob_vals[i];
      c->blob_data[kept++] = c->blob_data[i];
    }
  c->n_blob = kept;
  free(live);
  uint64_t total = 0;
  for (int i = 0; i < c->n_blob; i++) {
    total = (total + 63) & ~(uint64_t)63;
    c->blob_vals[i]->blob_offset = total;
    total += (uint64_t)ir_type_bytes(&c->blob_vals[i]->type);
  }
  if (!c->n_blob) return VKML_OK;
  uint8_t *blob = calloc(1, (size_t)total ? (size_t)total : 1);
  if (!blob) return ir_oom(NULL);
  for (int i = 0; i < c->n_blob; i++) {
    size_t bytes = (size_t)ir_type_bytes(&c->blob_vals[i]->type);
    if (bytes) memcpy(blob + c->blob_vals[i]->blob_offset, c->blob_data[i], bytes);
  }
  ir_graph_set_blob(c->g, blob, total, true);
  return VKML_OK;
}

static vkml_status import_graph(onnx_ctx *c, const Onnx__ModelProto *m) {
  const Onnx__GraphProto *gp = m->graph;
  VKML_RETURN_IF_ERROR(onnx_check_model_ops(m));
  c->opset = onnx_model_opset(m);
  VKML_RETURN_IF_ERROR(ir_graph_create(onnx_ir_name(c, onnx_str(gp->name)), &c->g));
  VKML_RETURN_IF_ERROR(add_initializers(c, gp));
  VKML_RETURN_IF_ERROR(add_inputs(c, gp));
  VKML_RETURN_IF_ERROR(convert_nodes(c, gp));
  VKML_RETURN_IF_ERROR(add_outputs(c, gp));
  /* what folding left unused (evaluated nodes' outputs, their constants) */
  VKML_RETURN_IF_ERROR(ir_graph_drop_unused_values(c->g, NULL));
  VKML_RETURN_IF_ERROR(place_blob(c));
  /* A failure here is an importer bug, but better reported than passed on. */
  vkml_status s = ir_verify(c->g, NULL);
  if (s)
    return vkml_status_annotate(s, "the imported graph does not verify");
  return VKML_OK;
}

static void ctx_free(onnx_ctx *c) {
  for (int i = 0; i < c->n_bufs; i++) free(c->bufs[i]);
  free(c->bufs);
  free(c->blob_vals);
  free(c->blob_data);
  ir_strmap_free(&c->syms);
  ir_strmap_free(&c->ir_names);
  ir_arena_destroy(c->scratch);
}

static vkml_status import_model(const Onnx__ModelProto *m, const char *name,
                                const char *base_dir,
                                const onnx_import_opts *opts, ir_graph **out) {
  static const onnx_import_opts no_opts;
  onnx_ctx c;
  memset(&c, 0, sizeof c);
  c.path = name;
  c.base_dir = opts && opts->base_dir ? opts->base_dir : base_dir;
  c.opts = opts ? opts : &no_opts;
  c.inline_max_bytes = c.opts->inline_max_bytes ? c.opts->inline_max_bytes : 64;
  c.scratch = ir_arena_create();
  vkml_status s = c.scratch ? import_graph(&c, m) : ir_oom(NULL);
  if (s) {
    ir_graph_destroy(c.g);
    c.g = NULL;
  }
  *out = c.g;
  ctx_free(&c);
  return vkml_status_annotate(s, "%s", name);
}

vkml_status onnx_import_buffer(const void *data, size_t bytes, const char *name,
                               const onnx_import_opts *opts, ir_graph **out) {
  *out = NULL;
  if (!name) name = "<memory>";
  Onnx__ModelProto *m;
  VKML_RETURN_IF_ERROR(vkml_status_annotate(onnx_model_unpack(data, bytes, &m),
                                            "%s", name));
  vkml_status s = import_model(m, name, NULL, opts, out);
  onnx_model_free(m);
  return s;
}

vkml_status onnx_import_file(const char *path, const onnx_import_opts *opts,
                             ir_graph **out) {
  *out = NULL;
  Onnx__ModelProto *m;
  VKML_RETURN_IF_ERROR(onnx_model_read_file(path, &m));
  /* External data lives next to the model. */
  char *dir = strdup(path);
  if (!dir) {
    onnx_model_free(m);
    return ir_oom(NULL);
  }
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = 0;
  else if (slash) *slash = 0;
  else strcpy(dir, ".");
  vkml_status s = import_model(m, path, dir, opts, out);
  free(dir);
  onnx_model_free(m);
  return s;
}
