/* ir_memplan: where each intermediate tensor lives in one device arena —
 * what passes/plan_memory computes, the runtime binds, and the .vkm artifact
 * will serialize. Plain data by value id; no pointers into the graph.
 *
 * A value in the arena has an offset (aligned to `alignment`) and a byte
 * count. A view (reshape, flatten, squeeze, unsqueeze, same-layout identity)
 * has no storage of its own: `alias` names the value whose bytes it shares
 * (the root, which owns storage itself), and its offset equals the root's.
 * Graph inputs, graph outputs and constants are never in the arena.
 *
 * Lifetimes: values are numbered by the position of their producer in the
 * graph's node order; a value (with its views) is live from its producer's
 * position to the position of its last reader, both inclusive (a kernel never
 * writes an output over one of its own inputs). Two storages whose lifetimes
 * intersect must not overlap in bytes. */
#ifndef IR_MEMPLAN_H
#define IR_MEMPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"

typedef enum ir_memplan_strategy {
  IR_MEMPLAN_BEST = 0, /* offset packing by lifetime, never worse than the others */
  IR_MEMPLAN_NAIVE,    /* every tensor its own space */
  IR_MEMPLAN_GREEDY,   /* TFLite-GPU Algorithm 1: shared objects, closest size */
  IR_MEMPLAN_MCFP,     /* TFLite-GPU: shared objects by minimum-cost flow */
  IR_MEMPLAN_COUNT
} ir_memplan_strategy;

typedef struct ir_memplan {
  ir_memplan_strategy strategy;
  int32_t n_values;  /* entries in the tables below (the graph's n_values) */
  int64_t *offsets;  /* by value id: byte offset in the arena, -1: not there */
  uint64_t *bytes;   /* by value id: bytes it may use at offsets[id] (0: none) */
  int32_t *alias;    /* by value id: the root it is a view of, -1: own storage */
  uint64_t arena_bytes;
  uint64_t alignment;   /* every root offset is a multiple of it */
  uint64_t lower_bound; /* largest sum of storage bytes live at one step */
  int32_t n_objects;    /* shared objects (greedy, mcfp); 0 for offset packing */
} ir_memplan;

/* "best", "naive", "greedy", "mcfp"; NULL for a bad value. */
const char *ir_memplan_strategy_name(ir_memplan_strategy s);
/* false when name is none of them. */
bool ir_memplan_strategy_from_name(const char *name, ir_memplan_strategy *out);

/* Bytes a value needs in the arena (0: not in the arena). */
typedef uint64_t (*ir_memplan_size_fn)(void *user, const ir_value *v);

/* What a planner is asked (passes/plan_memory.h). Valid when zero-initialized. */
typedef struct ir_memplan_opts {
  ir_memplan_strategy strategy; /* zero: IR_MEMPLAN_BEST */
  /* Offset alignment in bytes, a power of two (the device's
   * minStorageBufferOffsetAlignment); 0: 1. Every storage's size is rounded
   * up to it too. */
  uint64_t alignment;
  /* Bytes v needs in the arena, 0: not in the arena. NULL: every value that
   * is not a graph input, output or constant, ir_type_storage_bytes of its
   * type and layout. */
  ir_memplan_size_fn size;
  void *user;
} ir_memplan_opts;

/* A memory planner (passes' pass_plan_memory), as codegen is handed it by
 * its caller: codegen may not include passes/. *out is freed with
 * ir_memplan_free (also on error: it is then empty). */
typedef vkml_status (*ir_memplan_fn)(const ir_graph *g, const ir_memplan_opts *opts,
                                     ir_memplan *out);

/* Allocates the tables for n_values values (every offset -1, alias -1, bytes
 * 0). Tables are freed by ir_memplan_free, which leaves *m zeroed. */
vkml_status ir_memplan_alloc(ir_memplan *m, int32_t n_values);
void ir_memplan_free(ir_memplan *m);
/* A deep copy into *out (freed with ir_memplan_free). */
vkml_status ir_memplan_copy(const ir_memplan *m, ir_memplan *out);

/* The independent check of a plan against its graph (g in execution order):
 * tables sized for g; inputs, outputs and constants outside the arena; every
 * value for which need (may be NULL) asks bytes has at least that many;
 * roots aligned and inside arena_bytes; an alias names a root in the arena
 * whose offset it shares, is produced by a view of the root (or of another
 * alias of it) and fits in its bytes; and no two storages live at the same
 * step overlap. Lifetimes are recomputed here from g, not taken from the
 * planner. INTERNAL status naming the values on failure. */
vkml_status ir_memplan_check(const ir_memplan *m, const ir_graph *g, ir_memplan_size_fn need,
                             void *user);

/* Whether n is a view: its one output may share its first input's bytes
 * (reshape, flatten, squeeze, unsqueeze in the default layout on both sides,
 * identity with the same type and layout, a transpose that relabels nhwc
 * bytes: ir_node_relabels_nhwc). */
bool ir_node_is_view(const ir_node *n);

#endif
