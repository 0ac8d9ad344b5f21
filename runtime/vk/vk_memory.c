/* Memory pools: a few big VkDeviceMemory blocks, each covered by one
 * VkBuffer, handed out as aligned ranges from a first-fit free list. */
#include <stdlib.h>
#include <string.h>

#include "ir/file.h"
#include "vk_internal.h"

#define DEFAULT_BLOCK_BYTES (64ull << 20)
#define FIRST_BLOCK_BYTES (1ull << 20) /* a pool's first block; then doubling */
#define BUFFER_USAGE                                                           \
  (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |     \
   VK_BUFFER_USAGE_TRANSFER_DST_BIT)

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) & ~(a - 1); }
static VkDeviceSize max_u64(VkDeviceSize a, VkDeviceSize b) { return a > b ? a : b; }

/* Picks the best memory type for a pool among those the buffer accepts:
 * required flags must be present; each wanted flag adds, each unwanted one
 * subtracts. Returns UINT32_MAX if none qualifies. */
static uint32_t pick_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
                          VkMemoryPropertyFlags need, VkMemoryPropertyFlags want,
                          VkMemoryPropertyFlags avoid) {
  uint32_t best = UINT32_MAX;
  int best_score = -1000;
  for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
    if (!(bits & (1u << i)) || (f & need) != need) continue;
    int score = 0;
    for (int b = 0; b < 32; b++) {
      if ((want >> b) & (f >> b) & 1) score += 2;
      if ((avoid >> b) & (f >> b) & 1) score -= 1;
    }
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

vkml_status rt_vk_memory_init(rt_vk_context *ctx, VkDeviceSize block_bytes) {
  /* the memory types a storage buffer with our usage may live in */
  VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = 256,
      .usage = BUFFER_USAGE,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkBuffer probe;
  VkResult r = ctx->vk.vkCreateBuffer(ctx->device, &bi, NULL, &probe);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateBuffer");
  VkMemoryRequirements req;
  ctx->vk.vkGetBufferMemoryRequirements(ctx->device, probe, &req);
  ctx->vk.vkDestroyBuffer(ctx->device, probe, NULL);

  const VkPhysicalDeviceMemoryProperties *mp = &ctx->memprops;
  uint32_t dev = pick_type(mp, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  uint32_t host = pick_type(mp, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (dev == UINT32_MAX || host == UINT32_MAX)
    return vkml_status_make(VKML_CODE_DEVICE, "device '%s' has no usable %s memory type",
                            ctx->target.name, dev == UINT32_MAX ? "device" : "host-visible");
  /* device-local and host-visible: absent on discrete GPUs without a
   * resizable BAR's type (the pool then stays empty) */
  uint32_t upload = pick_type(mp, req.memoryTypeBits,
                              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
  if (!block_bytes) block_bytes = DEFAULT_BLOCK_BYTES;
  VkDeviceSize base_align =
      max_u64(64, max_u64(req.alignment, ctx->target.min_storage_buffer_offset_alignment));
  uint32_t types[RT_VK_MEM_KIND_COUNT] = {dev, host, upload};
  for (int k = 0; k < RT_VK_MEM_KIND_COUNT; k++) {
    rt_vk_pool *p = &ctx->pools[k];
    p->type_index = types[k];
    p->present = types[k] != UINT32_MAX;
    if (!p->present) continue;
    p->heap_index = mp->memoryTypes[types[k]].heapIndex;
    p->coherent = mp->memoryTypes[types[k]].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    p->align = base_align;
    if (k != RT_VK_MEM_DEVICE && !p->coherent)
      p->align = max_u64(p->align, ctx->non_coherent_atom);
    VkDeviceSize heap = mp->memoryHeaps[p->heap_index].size;
    /* inputs are small, and a BAR heap may be only 256 MiB */
    VkDeviceSize want = k == RT_VK_MEM_UPLOAD && block_bytes > (16ull << 20) ? 16ull << 20
                                                                              : block_bytes;
    p->block_bytes = align_up(want < heap / 4 ? want : heap / 4, p->align);
    if (ctx->max_alloc_bytes && p->block_bytes > ctx->max_alloc_bytes)
      p->block_bytes = ctx->max_alloc_bytes & ~(p->align - 1);
    p->next_block = p->block_bytes < FIRST_BLOCK_BYTES ? p->block_bytes
                                                        : align_up(FIRST_BLOCK_BYTES, p->align);
    if (p->next_block > p->block_bytes) p->next_block = p->block_bytes;
  }
  return VKML_OK;
}

static void block_free(rt_vk_context *ctx, rt_vk_block *b) {
  if (b->buf) ctx->vk.vkDestroyBuffer(ctx->device, b->buf, NULL);
  if (b->mem) {
    if (b->mapped) ctx->vk.vkUnmapMemory(ctx->device, b->mem);
    ctx->vk.vkFreeMemory(ctx->device, b->mem, NULL);
  }
  free(b->free);
  free(b);
}

void rt_vk_memory_shutdown(rt_vk_context *ctx) {
  for (int k = 0; k < RT_VK_MEM_KIND_COUNT; k++) {
    rt_vk_pool *p = &ctx->pools[k];
    for (int i = 0; i < p->n_blocks; i++) block_free(ctx, p->blocks[i]);
    free(p->blocks);
    p->blocks = NULL;
    p->n_blocks = 0;
  }
}

static vkml_status block_new(rt_vk_context *ctx, rt_vk_mem_kind kind, VkDeviceSize bytes,
                             bool dedicated, rt_vk_block **out) {
  rt_vk_pool *p = &ctx->pools[kind];
  VkDeviceSize heap = ctx->memprops.memoryHeaps[p->heap_index].size;
  if (bytes > heap || (ctx->max_alloc_bytes && bytes > ctx->max_alloc_bytes))
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                            "out of device memory: %llu bytes requested, heap %u holds %llu "
                            "bytes, largest allocation %llu bytes",
                            (unsigned long long)bytes, p->heap_index,
                            (unsigned long long)heap,
                            (unsigned long long)ctx->max_alloc_bytes);
  /* what this context already holds on the heap: drivers may accept more
   * and fail (or, on a CPU device, have the process killed) when the pages
   * are touched */
  VkDeviceSize held = 0;
  for (int k = 0; k < RT_VK_MEM_KIND_COUNT; k++)
    if (ctx->pools[k].present && ctx->pools[k].heap_index == p->heap_index)
      for (int i = 0; i < ctx->pools[k].n_blocks; i++) held += ctx->pools[k].blocks[i]->bytes;
  if (held + bytes > heap)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                            "out of device memory: %llu bytes more requested, %llu of heap "
                            "%u's %llu bytes already held",
                            (unsigned long long)bytes, (unsigned long long)held, p->heap_index,
                            (unsigned long long)heap);
  /* a CPU device's memory is the host's: what all its blocks hold against
   * what the host had available when the context was made (its pages are
   * taken only when touched, so the current figure would not see them) */
  unsigned long long avail = ctx->host_avail;
  if (avail && held + bytes > avail)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                            "out of memory: %llu bytes more requested from device '%s' (a CPU, "
                            "%llu bytes held), the host had %llu bytes available",
                            (unsigned long long)bytes, ctx->target.name,
                            (unsigned long long)held, avail);
  if (p->n_blocks == p->cap_blocks) {
    int cap = p->cap_blocks ? 2 * p->cap_blocks : 8;
    rt_vk_block **nb = realloc(p->blocks, (size_t)cap * sizeof *nb);
    if (!nb) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    p->blocks = nb;
    p->cap_blocks = cap;
  }
  rt_vk_block *b = calloc(1, sizeof *b);
  if (!b || !(b->free = malloc(8 * sizeof *b->free))) {
    free(b);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  b->cap_free = 8;
  b->bytes = bytes;
  b->dedicated = dedicated;
  VkMemoryAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = bytes,
      .memoryTypeIndex = p->type_index,
  };
  vkml_status s = VKML_OK;
  VkResult r = ctx->vk.vkAllocateMemory(ctx->device, &ai, NULL, &b->mem);
  if (r != VK_SUCCESS) {
    b->mem = VK_NULL_HANDLE;
    s = rt_vk_error(r, "vkAllocateMemory");
    s = vkml_status_annotate(s, "allocating a %llu-byte %s block", (unsigned long long)bytes,
                             kind == RT_VK_MEM_HOST     ? "host"
                             : kind == RT_VK_MEM_UPLOAD ? "upload"
                                                        : "device");
  }
  VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = bytes,
      .usage = BUFFER_USAGE,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  if (!s && (r = ctx->vk.vkCreateBuffer(ctx->device, &bi, NULL, &b->buf)) != VK_SUCCESS) {
    b->buf = VK_NULL_HANDLE;
    s = rt_vk_error(r, "vkCreateBuffer");
  }
  if (!s) {
    VkMemoryRequirements req;
    ctx->vk.vkGetBufferMemoryRequirements(ctx->device, b->buf, &req);
    if (req.size > bytes || !(req.memoryTypeBits & (1u << p->type_index)))
      s = vkml_status_make(VKML_CODE_DEVICE, "block buffer does not fit its memory");
  }
  if (!s && (r = ctx->vk.vkBindBufferMemory(ctx->device, b->buf, b->mem, 0)) != VK_SUCCESS)
    s = rt_vk_error(r, "vkBindBufferMemory");
  if (!s && kind != RT_VK_MEM_DEVICE &&
      (r = ctx->vk.vkMapMemory(ctx->device, b->mem, 0, VK_WHOLE_SIZE, 0, &b->mapped)) !=
          VK_SUCCESS) {
    b->mapped = NULL;
    s = rt_vk_error(r, "vkMapMemory");
  }
  if (s) {
    block_free(ctx, b);
    return s;
  }
  b->free[0] = (rt_vk_range){0, bytes};
  b->n_free = 1;
  b->id = p->next_id++;
  p->blocks[p->n_blocks++] = b;
  *out = b;
  return VKML_OK;
}

/* First fit in one block; returns false if nothing fits. */
static bool block_take(rt_vk_block *b, VkDeviceSize size, VkDeviceSize align,
                       VkDeviceSize *off) {
  for (int i = 0; i < b->n_free; i++) {
    rt_vk_range r = b->free[i];
    VkDeviceSize a = align_up(r.off, align);
    if (a + size > r.off + r.size || a < r.off) continue;
    VkDeviceSize head = a - r.off, tail = r.off + r.size - (a + size);
    if (head && tail) {
      if (b->n_free == b->cap_free) {
        rt_vk_range *nf = realloc(b->free, 2 * (size_t)b->cap_free * sizeof *nf);
        if (!nf) return false;
        b->free = nf;
        b->cap_free *= 2;
      }
      memmove(&b->free[i + 2], &b->free[i + 1], (size_t)(b->n_free - i - 1) * sizeof *b->free);
      b->n_free++;
      b->free[i] = (rt_vk_range){r.off, head};
      b->free[i + 1] = (rt_vk_range){a + size, tail};
    } else if (head) {
      b->free[i] = (rt_vk_range){r.off, head};
    } else if (tail) {
      b->free[i] = (rt_vk_range){a + size, tail};
    } else {
      memmove(&b->free[i], &b->free[i + 1], (size_t)(b->n_free - i - 1) * sizeof *b->free);
      b->n_free--;
    }
    *off = a;
    b->n_allocs++;
    return true;
  }
  return false;
}

/* Returns [off, off+size) to the free list, merging with its neighbours.
 * Cannot fail: merging never needs a new slot, and growth is attempted
 * before an insert that needs one (on failure the range is lost, which only
 * wastes space until the block is freed). */
static void block_give(rt_vk_block *b, VkDeviceSize off, VkDeviceSize size) {
  int i = 0;
  while (i < b->n_free && b->free[i].off < off) i++;
  bool prev = i > 0 && b->free[i - 1].off + b->free[i - 1].size == off;
  bool next = i < b->n_free && off + size == b->free[i].off;
  b->n_allocs--;
  if (prev && next) {
    b->free[i - 1].size += size + b->free[i].size;
    memmove(&b->free[i], &b->free[i + 1], (size_t)(b->n_free - i - 1) * sizeof *b->free);
    b->n_free--;
  } else if (prev) {
    b->free[i - 1].size += size;
  } else if (next) {
    b->free[i].off = off;
    b->free[i].size += size;
  } else {
    if (b->n_free == b->cap_free) {
      rt_vk_range *nf = realloc(b->free, 2 * (size_t)b->cap_free * sizeof *nf);
      if (!nf) return;
      b->free = nf;
      b->cap_free *= 2;
    }
    memmove(&b->free[i + 1], &b->free[i], (size_t)(b->n_free - i) * sizeof *b->free);
    b->free[i] = (rt_vk_range){off, size};
    b->n_free++;
  }
}

static void pool_remove_block(rt_vk_context *ctx, rt_vk_pool *p, rt_vk_block *b) {
  for (int i = 0; i < p->n_blocks; i++) {
    if (p->blocks[i] != b) continue;
    memmove(&p->blocks[i], &p->blocks[i + 1], (size_t)(p->n_blocks - i - 1) * sizeof *p->blocks);
    p->n_blocks--;
    break;
  }
  block_free(ctx, b);
}

vkml_status rt_vk_buffer_create_aligned(rt_vk_context *ctx, rt_vk_mem_kind kind,
                                        uint64_t bytes, uint64_t align, rt_vk_buffer **out) {
  *out = NULL;
  if ((unsigned)kind >= RT_VK_MEM_KIND_COUNT || !bytes || (align & (align - 1)))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "buffer: bad kind, zero size or alignment %llu not a power of two",
                            (unsigned long long)align);
  rt_vk_pool *p = &ctx->pools[kind];
  if (!p->present)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "device '%s' has no memory type both device-local and host-visible",
                            ctx->target.name);
  align = max_u64(align, p->align);
  if (bytes > UINT64_MAX / 2)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of device memory: %llu bytes requested",
                            (unsigned long long)bytes);
  VkDeviceSize size = align_up(bytes, p->align);
  rt_vk_buffer *buf = calloc(1, sizeof *buf);
  if (!buf) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  VkDeviceSize off = 0;
  rt_vk_block *b = NULL;
  for (int i = 0; i < p->n_blocks && !b; i++)
    if (block_take(p->blocks[i], size, align, &off)) b = p->blocks[i];
  if (!b) {
    bool dedicated = size > p->block_bytes;
    /* pooled blocks grow geometrically up to block_bytes: a context that
     * needs a few KiB of staging does not pin 64 MiB of host memory (16 ms
     * on the H100's driver) */
    VkDeviceSize grown = size > p->next_block ? size : p->next_block;
    vkml_status s = block_new(ctx, kind, dedicated ? size : grown, dedicated, &b);
    if (!s && !dedicated)
      p->next_block = 2 * grown < p->block_bytes ? align_up(2 * grown, p->align) : p->block_bytes;
    if (!s && !block_take(b, size, align, &off))
      s = vkml_status_make(VKML_CODE_INTERNAL, "fresh block cannot hold %llu bytes",
                           (unsigned long long)size);
    if (s) {
      free(buf);
      return s;
    }
  }
  buf->kind = kind;
  buf->block = b;
  buf->offset = off;
  buf->bytes = bytes;
  buf->reserved = size;
  ctx->n_live_buffers++;
  *out = buf;
  return VKML_OK;
}

vkml_status rt_vk_buffer_create(rt_vk_context *ctx, rt_vk_mem_kind kind, uint64_t bytes,
                                rt_vk_buffer **out) {
  return rt_vk_buffer_create_aligned(ctx, kind, bytes, 1, out);
}

void rt_vk_buffer_destroy(rt_vk_context *ctx, rt_vk_buffer *buf) {
  if (!buf) return;
  rt_vk_block *b = buf->block;
  block_give(b, buf->offset, buf->reserved);
  if (b->dedicated && !b->n_allocs) pool_remove_block(ctx, &ctx->pools[buf->kind], b);
  ctx->n_live_buffers--;
  free(buf);
}

void rt_vk_memory_trim(rt_vk_context *ctx) {
  for (int k = 0; k < RT_VK_MEM_KIND_COUNT; k++) {
    rt_vk_pool *p = &ctx->pools[k];
    for (int i = p->n_blocks - 1; i >= 0; i--)
      if (!p->blocks[i]->n_allocs) pool_remove_block(ctx, p, p->blocks[i]);
  }
}

int rt_vk_memory_heap(const rt_vk_context *ctx, rt_vk_mem_kind kind) {
  return rt_vk_memory_has(ctx, kind) ? (int)ctx->pools[kind].heap_index : -1;
}

bool rt_vk_memory_has(const rt_vk_context *ctx, rt_vk_mem_kind kind) {
  return (unsigned)kind < RT_VK_MEM_KIND_COUNT && ctx->pools[kind].present;
}

uint64_t rt_vk_buffer_bytes(const rt_vk_buffer *buf) { return buf->bytes; }

void *rt_vk_buffer_map(const rt_vk_buffer *buf) {
  if (buf->kind == RT_VK_MEM_DEVICE) return NULL;
  return (char *)buf->block->mapped + buf->offset;
}

void rt_vk_buffer_info_get(const rt_vk_buffer *buf, rt_vk_buffer_info *out) {
  out->kind = buf->kind;
  out->block_id = buf->block->id;
  out->offset = buf->offset;
  out->bytes = buf->bytes;
}

void rt_vk_memory_stats(const rt_vk_context *ctx, rt_vk_mem_kind kind, rt_vk_mem_stats *out) {
  memset(out, 0, sizeof *out);
  const rt_vk_pool *p = &ctx->pools[kind];
  out->alignment = p->align;
  out->n_blocks = p->n_blocks;
  for (int i = 0; i < p->n_blocks; i++) {
    const rt_vk_block *b = p->blocks[i];
    out->reserved_bytes += b->bytes;
    out->n_allocs += b->n_allocs;
    VkDeviceSize free_bytes = 0;
    for (int j = 0; j < b->n_free; j++) free_bytes += b->free[j].size;
    out->used_bytes += b->bytes - free_bytes;
  }
}
