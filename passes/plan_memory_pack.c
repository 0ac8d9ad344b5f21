/* The default planner: offset packing by lifetime (what TFLite's later arena
 * planner and Pisarchyk & Lee's "greedy by size" do). Storages are taken in
 * one order and each goes into the smallest gap, among the storages already
 * placed whose lifetimes intersect its own, that holds it (else above them
 * all). The result depends on the order, so several orders are tried, and
 * the greedy and mcfp shared-object layouts are candidates too: the smallest
 * arena wins, so this is never worse than either of them. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "passes/plan_memory_internal.h"

typedef enum order { BY_SIZE, BY_SIZE_LONGEST, BY_AREA, BY_LENGTH, BY_START, N_ORDERS } order;

typedef struct sort_ctx {
  const pm_buf *b;
  order o;
} sort_ctx;

static int cmp_u64_desc(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }

/* qsort has no context argument; the index carries a pointer to it. */
typedef struct keyed {
  int32_t i;
  const sort_ctx *c;
} keyed;

static int keyed_cmp(const void *pa, const void *pb) {
  const keyed *ka = pa, *kb = pb;
  const pm_buf *a = &ka->c->b[ka->i], *b = &kb->c->b[kb->i];
  uint64_t la = (uint64_t)(a->end - a->start + 1), lb = (uint64_t)(b->end - b->start + 1);
  int r = 0;
  switch (ka->c->o) {
  case BY_SIZE: r = cmp_u64_desc(a->size, b->size); break;
  case BY_SIZE_LONGEST:
    r = cmp_u64_desc(a->size, b->size);
    if (!r) r = cmp_u64_desc(la, lb);
    break;
  case BY_AREA: r = cmp_u64_desc(a->size * la, b->size * lb); break;
  case BY_LENGTH:
    r = cmp_u64_desc(la, lb);
    if (!r) r = cmp_u64_desc(a->size, b->size);
    break;
  default: break; /* BY_START: the input order */
  }
  return r ? r : ka->i - kb->i;
}

typedef struct placed {
  uint64_t off, size;
} placed;

static int placed_cmp(const void *pa, const void *pb) {
  const placed *a = pa, *b = pb;
  return a->off < b->off ? -1 : a->off > b->off;
}

/* Places b in order `idx`: the best-fitting gap among the placed storages
 * that are live with each one. O(n^2 log n), fine for graphs of thousands. */
static void pack_in_order(const pm_buf *b, int n, const keyed *idx, placed *scratch,
                          bool *is_placed, uint64_t *off, uint64_t *total) {
  for (int i = 0; i < n; i++) is_placed[i] = false;
  uint64_t top = 0;
  for (int k = 0; k < n; k++) {
    int i = idx[k].i;
    int m = 0;
    for (int j = 0; j < n; j++)
      if (is_placed[j] && b[j].start <= b[i].end && b[i].start <= b[j].end)
        scratch[m++] = (placed){off[j], b[j].size};
    qsort(scratch, (size_t)m, sizeof *scratch, placed_cmp);
    uint64_t at = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
    for (int j = 0; j < m; j++) {
      if (scratch[j].off > at) {
        uint64_t gap = scratch[j].off - at;
        if (gap >= b[i].size && gap < best_gap) best = at, best_gap = gap;
      }
      if (scratch[j].off + scratch[j].size > at) at = scratch[j].off + scratch[j].size;
    }
    off[i] = best != UINT64_MAX ? best : at;
    is_placed[i] = true;
    if (off[i] + b[i].size > top) top = off[i] + b[i].size;
  }
  *total = top;
}

vkml_status pm_plan_pack(const pm_buf *b, int n, uint64_t *off, uint64_t *total) {
  size_t sz = (size_t)n + 1;
  keyed *idx = malloc(sz * sizeof *idx);
  placed *scratch = malloc(sz * sizeof *scratch);
  bool *is_placed = malloc(sz * sizeof *is_placed);
  uint64_t *cand = malloc(sz * sizeof *cand);
  vkml_status s = VKML_OK;
  if (!idx || !scratch || !is_placed || !cand) {
    s = ir_oom(NULL);
    goto out;
  }
  *total = UINT64_MAX;
  for (int o = 0; o < N_ORDERS; o++) {
    sort_ctx c = {b, (order)o};
    for (int i = 0; i < n; i++) idx[i] = (keyed){i, &c};
    qsort(idx, (size_t)n, sizeof *idx, keyed_cmp);
    uint64_t t;
    pack_in_order(b, n, idx, scratch, is_placed, cand, &t);
    if (t < *total) *total = t, memcpy(off, cand, (size_t)n * sizeof *off);
  }
  for (int which = 0; which < 2; which++) {
    uint64_t t;
    int32_t n_obj;
    s = which ? pm_plan_mcfp(b, n, cand, &t, &n_obj) : pm_plan_greedy(b, n, cand, &t, &n_obj);
    if (s) goto out;
    if (t < *total) *total = t, memcpy(off, cand, (size_t)n * sizeof *off);
  }
  if (n == 0) *total = 0;
out:
  free(idx);
  free(scratch);
  free(is_placed);
  free(cand);
  return s;
}
