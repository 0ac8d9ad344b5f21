/* The string hash map (see strmap.h). */
#include "strmap.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The slot holding key, or the empty slot where it would go. */
static ir_strmap_slot *slot_find(ir_strmap_slot *slots, size_t cap, const char *key,
                                 size_t len, uint64_t h) {
  for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
    ir_strmap_slot *e = &slots[i];
    if (!e->key) return e;
    if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) return e;
  }
}

void *ir_strmap_get_n(const ir_strmap *m, const char *key, size_t len) {
  if (!m->cap) return NULL;
  const ir_strmap_slot *e =
      slot_find(m->slots, m->cap, key, len, ir_fnv64(key, len, IR_FNV64_SEED));
  return e->key ? e->value : NULL;
}

void *ir_strmap_get(const ir_strmap *m, const char *key) {
  return ir_strmap_get_n(m, key, strlen(key));
}

vkml_status ir_strmap_put_n(ir_strmap *m, const char *key, size_t len, void *value) {
  assert(key && value);
  if ((m->count + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap > SIZE_MAX / sizeof *m->slots) return ir_oom(NULL);
    ir_strmap_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) return ir_oom(NULL);
    for (size_t i = 0; i < m->cap; i++) {
      const ir_strmap_slot *e = &m->slots[i];
      if (e->key) *slot_find(ns, ncap, e->key, e->len, e->hash) = *e;
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
  }
  uint64_t h = ir_fnv64(key, len, IR_FNV64_SEED);
  ir_strmap_slot *e = slot_find(m->slots, m->cap, key, len, h);
  if (!e->key) {
    *e = (ir_strmap_slot){key, len, h, value};
    m->count++;
  } else {
    e->value = value;
  }
  return VKML_OK;
}

vkml_status ir_strmap_put(ir_strmap *m, const char *key, void *value) {
  return ir_strmap_put_n(m, key, strlen(key), value);
}

void ir_strmap_free(ir_strmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}
