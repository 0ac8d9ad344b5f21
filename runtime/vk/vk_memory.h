/* Device memory: a few large VkDeviceMemory blocks per pool, sub-allocated
 * first-fit with alignment; one VkBuffer spans each block, so a buffer here
 * is a (block buffer, offset, size) range and costs no Vulkan object.
 *
 * Three pools: DEVICE (device-local, for tensors; never mapped, reached
 * through staging), HOST (host-visible, for staging and read-back) and
 * UPLOAD (device-local and host-visible, mapped: inputs the host writes and
 * kernels read in place, with no copy; only where the device offers such a
 * memory type, e.g. a resizable BAR or a CPU or integrated GPU). An
 * allocation larger than a block gets a dedicated block, released when it
 * is freed. */
#ifndef RT_VK_MEMORY_H
#define RT_VK_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vk_context.h"

typedef enum rt_vk_mem_kind {
  RT_VK_MEM_DEVICE = 0,
  RT_VK_MEM_HOST,
  RT_VK_MEM_UPLOAD,
  RT_VK_MEM_KIND_COUNT
} rt_vk_mem_kind;

typedef struct rt_vk_buffer rt_vk_buffer;

/* Whether the device has memory of this kind (DEVICE and HOST always;
 * UPLOAD only where a memory type is both device-local and host-visible). */
bool rt_vk_memory_has(const rt_vk_context *ctx, rt_vk_mem_kind kind);
/* The Vulkan memory heap a kind draws on; -1 where the device lacks it. */
int rt_vk_memory_heap(const rt_vk_context *ctx, rt_vk_mem_kind kind);

/* Allocates bytes (> 0) aligned to the pool's alignment (at least
 * minStorageBufferOffsetAlignment and 64). Out of device memory (including a
 * request larger than the heap) is an OUT_OF_MEMORY status naming the size;
 * a kind the device lacks is UNSUPPORTED. Free with rt_vk_buffer_destroy. */
vkml_status rt_vk_buffer_create(rt_vk_context *ctx, rt_vk_mem_kind kind,
                                uint64_t bytes, rt_vk_buffer **out);
/* Same with a stricter alignment (a power of two). */
vkml_status rt_vk_buffer_create_aligned(rt_vk_context *ctx,
                                        rt_vk_mem_kind kind, uint64_t bytes,
                                        uint64_t align, rt_vk_buffer **out);
/* Returns the range to its block's free list. Safe on NULL. */
void rt_vk_buffer_destroy(rt_vk_context *ctx, rt_vk_buffer *buf);

uint64_t rt_vk_buffer_bytes(const rt_vk_buffer *buf);
/* Host pointer of a HOST or UPLOAD buffer (coherent or flushed by the calls
 * below); NULL for DEVICE buffers. */
void *rt_vk_buffer_map(const rt_vk_buffer *buf);

/* Where a buffer lives: block id within its pool and byte offset. */
typedef struct rt_vk_buffer_info {
  rt_vk_mem_kind kind;
  int block_id;
  uint64_t offset, bytes;
} rt_vk_buffer_info;
void rt_vk_buffer_info_get(const rt_vk_buffer *buf, rt_vk_buffer_info *out);

typedef struct rt_vk_mem_stats {
  int n_blocks;
  uint64_t reserved_bytes; /* sum of block sizes */
  uint64_t used_bytes;     /* sum of live allocations (with alignment) */
  int n_allocs;
  uint64_t alignment; /* the pool's minimum alignment */
} rt_vk_mem_stats;
void rt_vk_memory_stats(const rt_vk_context *ctx, rt_vk_mem_kind kind,
                        rt_vk_mem_stats *out);
/* Releases empty (non-dedicated) blocks. */
void rt_vk_memory_trim(rt_vk_context *ctx);

/* Synchronous copies between host memory and [offset, offset+bytes) of buf,
 * through staging for DEVICE buffers. They wait for the queue to finish the
 * copy, so the caller may reuse host memory at once; GPU work submitted
 * earlier on the context's queue is ordered before them. */
vkml_status rt_vk_buffer_upload(rt_vk_context *ctx, rt_vk_buffer *buf,
                                uint64_t offset, const void *data,
                                uint64_t bytes);
vkml_status rt_vk_buffer_download(rt_vk_context *ctx, rt_vk_buffer *buf,
                                  uint64_t offset, void *data, uint64_t bytes);
/* An upload whose bytes are produced in pieces: fill(user, at, dst, n)
 * writes bytes [at, at+n) of the range into dst (staging memory, or the
 * mapping of a HOST buffer). No host image of the whole range is made. */
vkml_status rt_vk_buffer_upload_fill(rt_vk_context *ctx, rt_vk_buffer *buf, uint64_t offset,
                                     uint64_t bytes,
                                     void (*fill)(void *user, uint64_t at, void *dst,
                                                  uint64_t n),
                                     void *user);

/* For a HOST or UPLOAD buffer written or read through its mapping: make host writes
 * visible to the device (flush) or device writes visible to the host
 * (invalidate); no-ops on coherent memory and DEVICE buffers. */
vkml_status rt_vk_buffer_flush(rt_vk_context *ctx, const rt_vk_buffer *buf, uint64_t offset,
                               uint64_t bytes);
vkml_status rt_vk_buffer_invalidate(rt_vk_context *ctx, const rt_vk_buffer *buf,
                                    uint64_t offset, uint64_t bytes);

#endif
