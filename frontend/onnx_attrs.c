/* ONNX node attribute access with kind checks. */
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"
#include "onnx_internal.h"
#include "ir/util.h"

/* ---- attributes ---------------------------------------------------------- */

const Onnx__AttributeProto *onnx_attr(const onnx_node *n, const char *name) {
  for (size_t i = 0; i < n->p->n_attribute; i++) {
    const Onnx__AttributeProto *a = n->p->attribute[i];
    if (strcmp(onnx_str(a->name), name) == 0) return a;
  }
  return NULL;
}

static const char *kind_name(int k) {
  static const char *const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING",
                                      "TENSOR", "GRAPH", "FLOATS", "INTS",
                                      "STRINGS", "TENSORS", "GRAPHS"};
  return k >= 0 && k < (int)(sizeof names / sizeof names[0]) ? names[k] : "other";
}

/* An attribute declaring another kind records an error; one without a type
 * (old exporters) is judged by which field is set. */
static bool kind_ok(onnx_node *n, const Onnx__AttributeProto *a, int want,
                    bool present) {
  int k = a->has_type ? (int)a->type : 0;
  if (k == want || (k == 0 && present)) return true;
  if (!n->err)
    n->err = onnx_error(VKML_CODE_PARSE, "attribute '%s' has type %s, expected %s",
                        onnx_str(a->name), kind_name(k), kind_name(want));
  return false;
}

int64_t onnx_attr_i(onnx_node *n, const char *name, int64_t dflt) {
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  if (!a || !kind_ok(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, a->has_i))
    return dflt;
  return a->i;
}

float onnx_attr_f(onnx_node *n, const char *name, float dflt) {
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  if (!a || !kind_ok(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, a->has_f))
    return dflt;
  return a->f;
}

const char *onnx_attr_s(onnx_ctx *c, onnx_node *n, const char *name,
                        const char *dflt) {
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  if (!a || !kind_ok(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, a->has_s))
    return dflt;
  /* an empty string has no data pointer */
  const char *data = a->s.len ? (const char *)a->s.data : "";
  const char *s = ir_arena_strndup(c->scratch, data, a->s.len);
  if (!s && !n->err) n->err = ir_oom(NULL);
  return s ? s : dflt;
}

int onnx_attr_ints(onnx_node *n, const char *name, const int64_t **out) {
  *out = NULL;
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  if (!a || !kind_ok(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, a->n_ints > 0))
    return -1;
  if (a->n_ints > 1u << 20) {
    if (!n->err)
      n->err = onnx_error(VKML_CODE_PARSE, "attribute '%s' has %zu values",
                          onnx_str(a->name), a->n_ints);
    return -1;
  }
  *out = a->ints;
  return (int)a->n_ints;
}

int onnx_attr_floats(onnx_node *n, const char *name, const float **out) {
  *out = NULL;
  const Onnx__AttributeProto *a = onnx_attr(n, name);
  if (!a ||
      !kind_ok(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, a->n_floats > 0))
    return -1;
  if (a->n_floats > 1u << 20) {
    if (!n->err)
      n->err = onnx_error(VKML_CODE_PARSE, "attribute '%s' has %zu values",
                          onnx_str(a->name), a->n_floats);
    return -1;
  }
  *out = a->floats;
  return (int)a->n_floats;
}
