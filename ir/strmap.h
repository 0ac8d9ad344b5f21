/* ir_strmap: the one string -> pointer hash table (open addressing, linear
 * probing over ir_fnv64, load at most 1/2, doubling). The IR text parser's
 * names, the ONNX importer's symbol tables and the fp16 pass's name set use
 * it. Keys are not copied: a key must stay valid and unchanged while the
 * map holds it. Nothing iterates the map, so its order never shows. */
#ifndef IR_STRMAP_H
#define IR_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "vkml_status.h"

typedef struct ir_strmap_slot {
  const char *key; /* NULL: empty; not owned */
  size_t len;      /* key bytes (a key may be a prefix of a longer string) */
  uint64_t hash;   /* ir_fnv64 of the key's bytes */
  void *value;     /* never NULL in a used slot */
} ir_strmap_slot;

/* Valid when zeroed; release with ir_strmap_free. */
typedef struct ir_strmap {
  ir_strmap_slot *slots; /* cap entries, cap a power of two or 0 */
  size_t cap, count;
} ir_strmap;

/* The value stored under key (NUL-terminated, or its first len bytes);
 * NULL when absent. */
void *ir_strmap_get(const ir_strmap *m, const char *key);
void *ir_strmap_get_n(const ir_strmap *m, const char *key, size_t len);

/* Inserts key -> value (value not NULL), replacing the value of a key
 * already there (the stored key pointer stays the first one). On out of
 * memory (ir_oom, caller frees) the map is unchanged. */
vkml_status ir_strmap_put(ir_strmap *m, const char *key, void *value);
vkml_status ir_strmap_put_n(ir_strmap *m, const char *key, size_t len, void *value);

/* Frees the slots (not keys or values) and zeroes the map. */
void ir_strmap_free(ir_strmap *m);

#endif
