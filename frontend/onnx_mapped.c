/* The generic converter (onnx_internal.h onnx_convert_mapped): one IR node
 * of the row's op on the ONNX node's inputs, its attributes read as the
 * row's map says. Ops that need no more than that take a table row only
 * (onnx_table.c; docs/adding-an-op.md). */
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* name translated by a "onnx=ir,onnx=ir" list, into buf. */
static const char *renamed(const char *name, const char *rename, char *buf, size_t bytes) {
  size_t len = strlen(name);
  for (const char *p = rename; p && *p;) {
    const char *eq = strchr(p, '='), *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    if (eq && eq < end && (size_t)(eq - p) == len && !strncmp(p, name, len)) {
      size_t n = (size_t)(end - eq - 1);
      if (n >= bytes) n = bytes - 1;
      memcpy(buf, eq + 1, n);
      buf[n] = '\0';
      return buf;
    }
    p = *end ? end + 1 : end;
  }
  return name;
}

static vkml_status map_attr(onnx_ctx *c, onnx_node *n, ir_node *nd, const onnx_attr_map *m) {
  bool present = onnx_attr(n, m->onnx) != NULL;
  if (!present && !m->dflt) return VKML_OK;
  switch (ir_attr_kind_of(m->ir)) {
  case IR_ATTR_INT:
    return ir_node_set_int(c->g, nd, m->ir, onnx_attr_i(n, m->onnx, m->dflt ? atoll(m->dflt) : 0));
  case IR_ATTR_FLOAT:
    return ir_node_set_float(c->g, nd, m->ir,
                             onnx_attr_f(n, m->onnx, m->dflt ? strtof(m->dflt, NULL) : 0.0f));
  case IR_ATTR_ENUM: {
    char buf[64];
    const char *v = renamed(onnx_attr_s(c, n, m->onnx, m->dflt ? m->dflt : ""), m->rename, buf,
                            sizeof buf);
    int e;
    if (!ir_enum_from_name(ir_attr_enum_of(m->ir), v, strlen(v), &e))
      return onnx_error(VKML_CODE_UNSUPPORTED, "%s '%s'", m->onnx,
                        onnx_attr_s(c, n, m->onnx, m->dflt ? m->dflt : ""));
    return ir_node_set_enum(c->g, nd, m->ir, e);
  }
  case IR_ATTR_INTS: {
    const int64_t *v;
    int k = onnx_attr_ints(n, m->onnx, &v);
    return k < 0 ? VKML_OK : ir_node_set_ints(c->g, nd, m->ir, v, k);
  }
  case IR_ATTR_FLOATS: {
    const float *v;
    int k = onnx_attr_floats(n, m->onnx, &v);
    return k < 0 ? VKML_OK : ir_node_set_floats(c->g, nd, m->ir, v, k);
  }
  default:
    return onnx_error(VKML_CODE_INTERNAL, "attribute %s: no mapping for its kind", m->onnx);
  }
}

vkml_status onnx_convert_mapped(onnx_ctx *c, onnx_node *n) {
  const onnx_op_entry *e = n->op;
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, e->min_in, e->max_in));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, e->ir, n->n_in, &nd));
  for (const onnx_attr_map *m = e->attrs; m && m->onnx; m++)
    VKML_RETURN_IF_ERROR(map_attr(c, n, nd, m));
  return onnx_done(c, n, nd);
}
