/* rt_vk_weights: a plan's GPU-bound constants packed into a few device
 * slabs, uploaded once through staging (see vk_weights.h). */
#include "vk_weights.h"

#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "runtime/cpu/threads.h"

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
  bool direct; /* slabs in mapped device-local memory (direct_upload) */
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

/* Bytes [at, at+n) of slab `slab`, written once each (a write-combined
 * mapping pays for every store): the constants' data and the zeros between
 * and after them. */
static void fill_range(const rt_vk_weights *w, int slab, uint64_t at, char *out, uint64_t n) {
  /* the first slot of the slab ending past `at`: slots are in offset order */
  int lo = 0, hi = w->n_slots;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const slot *sl = &w->slots[mid];
    if (sl->slab < slab || (sl->slab == slab && sl->offset + sl->bytes <= at)) lo = mid + 1;
    else hi = mid;
  }
  uint64_t cur = at, end = at + n;
  for (int i = lo; i < w->n_slots && cur < end; i++) {
    const slot *sl = &w->slots[i];
    if (sl->slab != slab || sl->offset >= end) break;
    uint64_t d0 = sl->offset > cur ? sl->offset : cur;
    uint64_t d1 = sl->offset + sl->data_bytes < end ? sl->offset + sl->data_bytes : end;
    if (d0 > cur) memset(out + (cur - at), 0, d0 - cur);
    if (d1 > d0) {
      memcpy(out + (d0 - at), (const char *)sl->data + (d0 - sl->offset), d1 - d0);
      cur = d1;
    } else {
      cur = d0;
    }
  }
  if (cur < end) memset(out + (cur - at), 0, end - cur);
}

/* fill_range over 4 MiB parts on a pool of threads (runtime/cpu/threads.h):
 * one core's stores do not reach the host's (or a BAR's) write bandwidth. */
#define FILL_PART_BYTES (4ull << 20)
#define FILL_MAX_THREADS 8

typedef struct fill_ctx {
  const rt_vk_weights *w;
  int slab;
  rt_threads *pool; /* NULL: the calling thread */
  uint64_t at;      /* the range being filled: [at, at + n) of the slab, into out */
  uint64_t n;
  char *out;
} fill_ctx;

static void fill_parts(void *user, int64_t begin, int64_t end, int worker) {
  (void)worker;
  const fill_ctx *f = user;
  for (int64_t i = begin; i < end; i++) {
    uint64_t a = (uint64_t)i * FILL_PART_BYTES;
    uint64_t n = f->n - a < FILL_PART_BYTES ? f->n - a : FILL_PART_BYTES;
    fill_range(f->w, f->slab, f->at + a, f->out + a, n);
  }
}

static void fill_parallel(fill_ctx *f, uint64_t at, char *out, uint64_t n) {
  f->at = at;
  f->out = out;
  f->n = n;
  rt_parallel_for(f->pool, (int64_t)((n + FILL_PART_BYTES - 1) / FILL_PART_BYTES), 1, fill_parts,
                  f);
}

static void fill_chunk(void *user, uint64_t at, void *dst, uint64_t n) {
  fill_parallel(user, at, dst, n);
}

/* Whether the slabs go straight into device-local memory the host maps
 * (a resizable BAR, an integrated or CPU device): written once from the
 * mapped artifact, with no staging copy and no submission. Only where that
 * memory type draws on the same heap as device memory: a 256 MiB BAR heap
 * is left to the inputs. */
static bool direct_upload(const rt_vk_context *ctx) {
  return rt_vk_memory_has(ctx, RT_VK_MEM_UPLOAD) &&
         rt_vk_memory_heap(ctx, RT_VK_MEM_UPLOAD) == rt_vk_memory_heap(ctx, RT_VK_MEM_DEVICE);
}

static vkml_status upload_slabs(rt_vk_context *ctx, rt_vk_weights *w, fill_ctx *f);

static vkml_status upload(rt_vk_context *ctx, rt_vk_weights *w, uint64_t max_bytes,
                          bool staged) {
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
  w->direct = !staged && direct_upload(ctx);
  /* no pool (no threads to be had, or one core): the calling thread fills */
  int threads = rt_threads_default();
  uint64_t parts = (w->total + FILL_PART_BYTES - 1) / FILL_PART_BYTES;
  if (threads > FILL_MAX_THREADS) threads = FILL_MAX_THREADS;
  if ((uint64_t)threads > parts) threads = (int)parts;
  fill_ctx f = {w, 0, NULL, 0, 0, NULL};
  if (threads > 1) vkml_status_free(rt_threads_create(threads, &f.pool));
  vkml_status s = upload_slabs(ctx, w, &f);
  rt_threads_destroy(f.pool);
  return s;
}

static vkml_status upload_slabs(rt_vk_context *ctx, rt_vk_weights *w, fill_ctx *f) {
  for (int k = 0; k < w->n_slabs; k++) {
    rt_vk_mem_kind kind = w->direct ? RT_VK_MEM_UPLOAD : RT_VK_MEM_DEVICE;
    vkml_status s = rt_vk_buffer_create(ctx, kind, w->slab_bytes[k], &w->slabs[k]);
    if (s && w->direct) { /* the mappable type may be the scarcer one */
      vkml_status_free(s);
      w->direct = false;
      s = rt_vk_buffer_create(ctx, kind = RT_VK_MEM_DEVICE, w->slab_bytes[k], &w->slabs[k]);
    }
    if (s)
      return vkml_status_annotate(s, "weights (%llu bytes in all)", (unsigned long long)w->total);
    f->slab = k;
    if (kind == RT_VK_MEM_UPLOAD) {
      fill_parallel(f, 0, rt_vk_buffer_map(w->slabs[k]), w->slab_bytes[k]);
      VKML_RETURN_IF_ERROR(rt_vk_buffer_flush(ctx, w->slabs[k], 0, w->slab_bytes[k]));
      continue;
    }
    VKML_RETURN_IF_ERROR(
        rt_vk_buffer_upload_fill(ctx, w->slabs[k], 0, w->slab_bytes[k], fill_chunk, f));
  }
  return VKML_OK;
}

vkml_status rt_vk_weights_create(rt_vk_context *ctx, const ir_plan *plan,
                                 uint64_t max_device_bytes, bool staged, rt_vk_weights **out) {
  *out = NULL;
  if (!plan->graph) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "the plan has no graph");
  rt_vk_weights *w = calloc(1, sizeof *w);
  if (!w) return ir_oom(NULL);
  w->plan = plan;
  uint64_t align = rt_vk_context_target(ctx)->min_storage_buffer_offset_alignment;
  if (align < 64) align = 64;
  vkml_status s = collect(w, align);
  if (!s) s = upload(ctx, w, max_device_bytes, staged);
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
bool rt_vk_weights_direct(const rt_vk_weights *w) { return w->direct; }

bool rt_vk_weights_find(const rt_vk_weights *w, int32_t value_id, rt_vk_buffer **buf,
                        uint64_t *offset, uint64_t *bytes) {
  if (value_id < 0 || value_id > w->n_values || w->slot_of[value_id] < 0) return false;
  const slot *sl = &w->slots[w->slot_of[value_id]];
  *buf = w->slabs[sl->slab];
  *offset = sl->offset;
  *bytes = sl->bytes;
  return true;
}
