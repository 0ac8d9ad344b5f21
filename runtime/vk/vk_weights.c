/* rt_vk_weights: a plan's GPU-bound constants packed into a few device
 * slabs, uploaded once through staging (see vk_weights.h). */
#include "vk_weights.h"

#include <stdlib.h>
#include <string.h>

#include "ir/util.h"

#define SLAB_BYTES (256ull << 20)

typedef struct slot {
  int32_t value; /* value id; slots are in value-id order */
  int slab;
  uint64_t offset, bytes; /* bytes: bound range (data + zero padding) */
  const void *data;
  uint64_t data_bytes;
} slot;

struct rt_vk_weights {
  const ir_plan *plan;
  rt_vk_buffer **slabs;
  uint64_t *slab_bytes;
  int n_slabs;
  slot *slots;
  int n_slots;
  int32_t *slot_of; /* by value id: index into slots, -1 */
  int n_values;
  uint64_t total;
};

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

/* Marks the constants GPU steps bind. */
static vkml_status collect(rt_vk_weights *w, uint64_t align) {
  const ir_plan *p = w->plan;
  const ir_graph *g = p->graph;
  w->n_values = g->n_values;
  w->slot_of = malloc(((size_t)g->n_values + 1) * sizeof *w->slot_of);
  w->slots = calloc((size_t)g->n_values + 1, sizeof *w->slots);
  if (!w->slot_of || !w->slots) return ir_oom(NULL);
  for (int i = 0; i <= g->n_values; i++) w->slot_of[i] = -1;
  bool *need = calloc((size_t)g->n_values + 1, sizeof *need);
  if (!need) return ir_oom(NULL);
  ir_plan_mark_bound(p, need);
  vkml_status st = VKML_OK;
  uint64_t slab_used = 0;
  int slab = -1;
  ir_foreach_value(g, v) {
    if (!need[v->id] || !ir_value_is_const(v)) continue;
    const void *data = ir_value_const_data(g, v);
    if (!data) {
      st = vkml_status_make(VKML_CODE_INVALID_GRAPH,
                            "constant %%%s: weights blob missing or too small", v->name);
      break;
    }
    /* rounded up to 16 bytes, as every bound value */
    uint64_t bytes = ir_type_device_bytes(&v->type, v->layout);
    uint64_t at = align_up(slab_used, align);
    if (slab < 0 || (at + bytes > SLAB_BYTES && slab_used)) {
      slab++;
      at = 0;
    }
    slot *sl = &w->slots[w->n_slots];
    *sl = (slot){v->id, slab, at, bytes, data, (uint64_t)ir_type_bytes(&v->type)};
    if (sl->data_bytes > bytes) sl->data_bytes = bytes;
    w->slot_of[v->id] = w->n_slots++;
    slab_used = at + bytes;
    w->n_slabs = slab + 1;
  }
  free(need);
  return st;
}

typedef struct fill_ctx {
  const rt_vk_weights *w;
  int slab;
  int next; /* first slot that may still overlap the next chunk */
} fill_ctx;

/* Bytes [at, at+n) of a slab: constants' data, zeros between and after. */
static void fill_slab(void *user, uint64_t at, void *dst, uint64_t n) {
  fill_ctx *f = user;
  const rt_vk_weights *w = f->w;
  char *out = dst;
  memset(out, 0, n);
  for (int i = f->next; i < w->n_slots; i++) {
    const slot *sl = &w->slots[i];
    if (sl->slab != f->slab || sl->offset >= at + n) break;
    uint64_t lo = sl->offset > at ? sl->offset : at;
    uint64_t end = sl->offset + sl->data_bytes;
    uint64_t hi = end < at + n ? end : at + n;
    if (hi > lo) memcpy(out + (lo - at), (const char *)sl->data + (lo - sl->offset), hi - lo);
    if (sl->offset + sl->bytes <= at + n) f->next = i + 1;
  }
}

static vkml_status upload(rt_vk_context *ctx, rt_vk_weights *w, uint64_t max_bytes) {
  w->slabs = calloc((size_t)w->n_slabs + 1, sizeof *w->slabs);
  w->slab_bytes = calloc((size_t)w->n_slabs + 1, sizeof *w->slab_bytes);
  if (!w->slabs || !w->slab_bytes) return ir_oom(NULL);
  for (int i = 0; i < w->n_slots; i++) {
    const slot *sl = &w->slots[i];
    if (sl->offset + sl->bytes > w->slab_bytes[sl->slab])
      w->slab_bytes[sl->slab] = sl->offset + sl->bytes;
  }
  for (int k = 0; k < w->n_slabs; k++) w->total += w->slab_bytes[k];
  if (max_bytes && w->total > max_bytes)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                            "the weights need %llu device bytes, over the budget of %llu",
                            (unsigned long long)w->total, (unsigned long long)max_bytes);
  for (int k = 0; k < w->n_slabs; k++) {
    vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, w->slab_bytes[k], &w->slabs[k]);
    if (s)
      return vkml_status_annotate(s, "weights (%llu bytes in all)", (unsigned long long)w->total);
    int first = 0;
    while (first < w->n_slots && w->slots[first].slab != k) first++;
    fill_ctx f = {w, k, first};
    VKML_RETURN_IF_ERROR(
        rt_vk_buffer_upload_fill(ctx, w->slabs[k], 0, w->slab_bytes[k], fill_slab, &f));
  }
  return VKML_OK;
}

vkml_status rt_vk_weights_create(rt_vk_context *ctx, const ir_plan *plan,
                                 uint64_t max_device_bytes, rt_vk_weights **out) {
  *out = NULL;
  if (!plan->graph) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "the plan has no graph");
  rt_vk_weights *w = calloc(1, sizeof *w);
  if (!w) return ir_oom(NULL);
  w->plan = plan;
  uint64_t align = rt_vk_context_target(ctx)->min_storage_buffer_offset_alignment;
  if (align < 64) align = 64;
  vkml_status s = collect(w, align);
  if (!s) s = upload(ctx, w, max_device_bytes);
  if (s) {
    rt_vk_weights_destroy(ctx, w);
    return s;
  }
  *out = w;
  return VKML_OK;
}

void rt_vk_weights_destroy(rt_vk_context *ctx, rt_vk_weights *w) {
  if (!w) return;
  for (int k = 0; w->slabs && k < w->n_slabs; k++) rt_vk_buffer_destroy(ctx, w->slabs[k]);
  free(w->slabs);
  free(w->slab_bytes);
  free(w->slots);
  free(w->slot_of);
  free(w);
}

const ir_plan *rt_vk_weights_plan(const rt_vk_weights *w) { return w->plan; }
uint64_t rt_vk_weights_bytes(const rt_vk_weights *w) { return w->total; }
int rt_vk_weights_count(const rt_vk_weights *w) { return w->n_slots; }

bool rt_vk_weights_find(const rt_vk_weights *w, int32_t value_id, rt_vk_buffer **buf,
                        uint64_t *offset, uint64_t *bytes) {
  if (value_id < 0 || value_id > w->n_values || w->slot_of[value_id] < 0) return false;
  const slot *sl = &w->slots[w->slot_of[value_id]];
  *buf = w->slabs[sl->slab];
  *offset = sl->offset;
  *bytes = sl->bytes;
  return true;
}
