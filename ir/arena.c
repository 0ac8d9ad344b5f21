/* Chunked bump allocator; chunks double in size, large requests get their own
 * chunk. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
  struct chunk *prev;
  size_t cap, used;
  _Alignas(16) unsigned char data[];
} chunk;

struct ir_arena {
  chunk *head;
  size_t next_cap, total;
};

ir_arena *ir_arena_create(void) {
  ir_arena *a = calloc(1, sizeof *a);
  if (a) a->next_cap = 4096;
  return a;
}

void ir_arena_destroy(ir_arena *a) {
  if (!a) return;
  for (chunk *c = a->head; c;) {
    chunk *p = c->prev;
    free(c);
    c = p;
  }
  free(a);
}

void *ir_arena_alloc(ir_arena *a, size_t bytes) {
  size_t need = (bytes + 15) & ~(size_t)15;
  if (need < bytes) return NULL; /* overflow */
  if (need == 0) need = 16;
  chunk *c = a->head;
  if (!c || c->cap - c->used < need) {
    size_t cap = a->next_cap;
    while (cap < need) {
      if (cap > SIZE_MAX / 2) return NULL;
      cap *= 2;
    }
    if (cap > SIZE_MAX - sizeof(chunk)) return NULL;
    c = malloc(sizeof(chunk) + cap);
    if (!c) return NULL;
    c->cap = cap;
    c->used = 0;
    c->prev = a->head;
    a->head = c;
    if (a->next_cap < (1u << 24)) a->next_cap *= 2;
  }
  void *p = c->data + c->used;
  c->used += need;
  a->total += need;
  memset(p, 0, need);
  return p;
}

void *ir_arena_memdup(ir_arena *a, const void *src, size_t bytes) {
  void *p = ir_arena_alloc(a, bytes);
  if (p && bytes) memcpy(p, src, bytes);
  return p;
}

char *ir_arena_strndup(ir_arena *a, const char *s, size_t n) {
  if (!s) return NULL;
  char *p = ir_arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *ir_arena_strdup(ir_arena *a, const char *s) {
  return s ? ir_arena_strndup(a, s, strlen(s)) : NULL;
}

size_t ir_arena_used_bytes(const ir_arena *a) { return a->total; }
