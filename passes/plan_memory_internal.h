/* Shared by the memory planners' files (passes/plan_memory*.c) only. */
#ifndef PASS_PLAN_MEMORY_INTERNAL_H
#define PASS_PLAN_MEMORY_INTERNAL_H

#include <stdint.h>

#include "vkml_status.h"
#include "ir/util.h"

/* One storage to place: a root value with its aliases' lifetimes merged. */
typedef struct pm_buf {
  int32_t root;       /* value id */
  uint64_t size;      /* bytes, a multiple of the alignment */
  int32_t start, end; /* node positions, inclusive */
} pm_buf;

/* Each planner fills off[i] for bufs[i] (sorted by start, then root) and
 * *total; the object planners also *n_objects. */
vkml_status pm_plan_greedy(const pm_buf *b, int n, uint64_t *off, uint64_t *total,
                           int32_t *n_objects);
vkml_status pm_plan_mcfp(const pm_buf *b, int n, uint64_t *off, uint64_t *total,
                         int32_t *n_objects);
vkml_status pm_plan_pack(const pm_buf *b, int n, uint64_t *off, uint64_t *total);

/* Lays objects out one after another: off[i] = start of obj[i]'s object. */
vkml_status pm_objects_to_offsets(const pm_buf *b, int n, const int32_t *obj, int n_obj,
                                  uint64_t *off, uint64_t *total);


#endif
