/* ir_arena: a growable bump allocator. Everything a graph owns (values, nodes,
 * names, attributes, inline constants) lives in its arena and is freed at once
 * by ir_arena_destroy. No size has to be guessed up front. */
#ifndef IR_ARENA_H
#define IR_ARENA_H

#include <stddef.h>

typedef struct ir_arena ir_arena;

/* Returns NULL when out of memory. Free with ir_arena_destroy. */
ir_arena *ir_arena_create(void);
void ir_arena_destroy(ir_arena *a);

/* Zeroed, 16-byte aligned; NULL when out of memory. Lives until destroy. */
void *ir_arena_alloc(ir_arena *a, size_t bytes);
/* Copies n bytes (n may be 0: returns a valid non-NULL pointer). */
void *ir_arena_memdup(ir_arena *a, const void *src, size_t bytes);
/* Copies a NUL-terminated string; NULL in gives NULL out. */
char *ir_arena_strdup(ir_arena *a, const char *s);
char *ir_arena_strndup(ir_arena *a, const char *s, size_t n);
/* Total bytes handed out (for statistics and tests). */
size_t ir_arena_used_bytes(const ir_arena *a);

#endif
