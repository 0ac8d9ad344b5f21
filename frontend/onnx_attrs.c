/* ONNX node attribute access with kind checks, and the string map used for
 * the importer's symbol tables. */
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"
#include "onnx_internal.h"
#include "ir/util.h"

/* ---- string map ---------------------------------------------------------- */

void *onnx_map_get(const onnx_map *m, const char *key) {
  if (!m->cap) return NULL;
  size_t mask = (size_t)m->cap - 1;
  for (size_t i = (size_t)ir_fnv64_str(key) & mask;; i = (i + 1) & mask) {
    if (!m->slots[i].key) return NULL;
    if (strcmp(m->slots[i].key, key) == 0) return m->slots[i].value;
  }
}

static void put_slot(onnx_map_entry *slots, int cap, const char *key, void *value) {
  size_t mask = (size_t)cap - 1;
  for (size_t i = (size_t)ir_fnv64_str(key) & mask;; i = (i + 1) & mask) {
    if (!slots[i].key || strcmp(slots[i].key, key) == 0) {
      slots[i].key = key;
      slots[i].value = value;
      return;
    }
  }
}

bool onnx_map_put(onnx_map *m, const char *key, void *value) {
  if ((m->count + 1) * 2 > m->cap) {
    int ncap = m->cap ? m->cap * 2 : 64;
    onnx_map_entry *ns = calloc((size_t)ncap, sizeof *ns);
    if (!ns) return false;
    for (int i = 0; i < m->cap; i++)
      if (m->slots[i].key) put_slot(ns, ncap, m->slots[i].key, m->slots[i].value);
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
  }
  if (!onnx_map_get(m, key)) m->count++;
  put_slot(m->slots, m->cap, key, value);
  return true;
}

void onnx_map_free(onnx_map *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

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
  const char *s = ir_arena_strndup(c->scratch, (const char *)a->s.data, a->s.len);
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
