/* Synchronous host <-> device copies through host-visible staging, and the
 * submit-and-wait helper shared with programs (vk_program.c). */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "vk_internal.h"

#define STAGING_CHUNK (16ull << 20)

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

vkml_status rt_vk_submit_wait(rt_vk_context *ctx, VkCommandBuffer cmd, VkFence fence,
                              bool spin, uint64_t sleep_ns) {
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cmd,
  };
  pthread_mutex_lock(&ctx->queue_lock);
  VkResult r = ctx->vk.vkQueueSubmit(ctx->queue, 1, &si, fence);
  pthread_mutex_unlock(&ctx->queue_lock);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkQueueSubmit");
  if (sleep_ns) {
    /* most of the expected GPU time asleep, the rest spinning */
    struct timespec ts = {(time_t)(sleep_ns / 1000000000ull), (long)(sleep_ns % 1000000000ull)};
    nanosleep(&ts, NULL);
  }
  if (spin) {
    uint64_t t0 = now_ns();
    while ((r = ctx->vk.vkGetFenceStatus(ctx->device, fence)) == VK_NOT_READY) {
      if (now_ns() - t0 > ctx->fence_timeout_ns) {
        r = VK_TIMEOUT;
        break;
      }
      sched_yield();
    }
  } else {
    /* a finite timeout on a GPU so a hung device becomes an error, not a
     * hang (a CPU device is only slow: no timeout unless asked) */
    r = ctx->vk.vkWaitForFences(ctx->device, 1, &fence, VK_TRUE, ctx->fence_timeout_ns);
  }
  if (r != VK_SUCCESS) {
    /* The work may still be running: drain the queue before the caller
     * frees what it uses. Freeing in-flight command buffers, pipelines and
     * memory crashed lavapipe's queue thread (SIGSEGV, exit 139) after a
     * timed-out wait on a loaded machine. A hung GPU ends here in the
     * driver's DEVICE_LOST. */
    pthread_mutex_lock(&ctx->queue_lock);
    ctx->vk.vkQueueWaitIdle(ctx->queue);
    pthread_mutex_unlock(&ctx->queue_lock);
    ctx->vk.vkResetFences(ctx->device, 1, &fence);
    return rt_vk_error(r, spin ? "vkGetFenceStatus" : "vkWaitForFences");
  }
  r = ctx->vk.vkResetFences(ctx->device, 1, &fence);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkResetFences");
  return VKML_OK;
}

static vkml_status check_range(const rt_vk_buffer *buf, uint64_t offset, uint64_t bytes) {
  if (offset > buf->bytes || bytes > buf->bytes - offset)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "copy of %llu bytes at offset %llu exceeds a %llu-byte buffer",
                            (unsigned long long)bytes, (unsigned long long)offset,
                            (unsigned long long)buf->bytes);
  return VKML_OK;
}

/* Host writes to / reads from a host pool range, honouring non-coherent
 * memory (ranges widened to nonCoherentAtomSize; pool ranges are aligned to
 * it, and blocks are sized in multiples of it). */
static vkml_status host_sync(rt_vk_context *ctx, const rt_vk_buffer *buf, uint64_t offset,
                             uint64_t bytes, bool flush) {
  if (ctx->pools[buf->kind].coherent) return VKML_OK;
  VkDeviceSize atom = ctx->non_coherent_atom ? ctx->non_coherent_atom : 1;
  VkDeviceSize lo = (buf->offset + offset) / atom * atom;
  VkDeviceSize hi = (buf->offset + offset + bytes + atom - 1) / atom * atom;
  if (hi > buf->block->bytes) hi = buf->block->bytes;
  VkMappedMemoryRange mr = {
      .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
      .memory = buf->block->mem,
      .offset = lo,
      .size = hi - lo,
  };
  VkResult r = flush ? ctx->vk.vkFlushMappedMemoryRanges(ctx->device, 1, &mr)
                     : ctx->vk.vkInvalidateMappedMemoryRanges(ctx->device, 1, &mr);
  return r == VK_SUCCESS ? VKML_OK : rt_vk_error(r, "mapped memory range");
}

static void global_barrier(rt_vk_context *ctx, VkPipelineStageFlags src_stage,
                           VkAccessFlags src, VkPipelineStageFlags dst_stage,
                           VkAccessFlags dst) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = src,
      .dstAccessMask = dst,
  };
  ctx->vk.vkCmdPipelineBarrier(ctx->xfer_cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0,
                               NULL);
}

/* Records one staging copy in xfer_cmd, submits and waits. */
static vkml_status copy_once(rt_vk_context *ctx, const rt_vk_buffer *src, VkDeviceSize soff,
                             const rt_vk_buffer *dst, VkDeviceSize doff, VkDeviceSize bytes,
                             bool to_device) {
  VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  VkResult r = ctx->vk.vkBeginCommandBuffer(ctx->xfer_cmd, &bi);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkBeginCommandBuffer");
  if (!to_device) /* shader or transfer writes of earlier submissions */
    global_barrier(ctx, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  else /* earlier readers/writers of the destination (write after read) */
    global_barrier(ctx, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferCopy region = {
      .srcOffset = src->offset + soff, .dstOffset = dst->offset + doff, .size = bytes};
  ctx->vk.vkCmdCopyBuffer(ctx->xfer_cmd, src->block->buf, dst->block->buf, 1, &region);
  if (to_device)
    global_barrier(ctx, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  else
    global_barrier(ctx, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  r = ctx->vk.vkEndCommandBuffer(ctx->xfer_cmd);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkEndCommandBuffer");
  return rt_vk_submit_wait(ctx, ctx->xfer_cmd, ctx->xfer_fence, false, 0);
}

/* The staging loop: chunks of at most STAGING_CHUNK bytes, each filled by
 * fill (uploads) or drained by drain (downloads) from the mapped staging
 * memory. */
typedef void (*chunk_fn)(void *user, uint64_t done, void *stage, uint64_t n);

static vkml_status transfer(rt_vk_context *ctx, rt_vk_buffer *buf, uint64_t offset,
                            uint64_t bytes, bool to_device, chunk_fn fn, void *user) {
  VKML_RETURN_IF_ERROR(check_range(buf, offset, bytes));
  if (!bytes) return VKML_OK;
  if (buf->kind != RT_VK_MEM_DEVICE) {
    /* mapped (HOST, UPLOAD): the caller has waited for any GPU work on buf (programs end with a
     * barrier to host reads before their fence) */
    char *p = (char *)rt_vk_buffer_map(buf) + offset;
    if (to_device) {
      fn(user, 0, p, bytes);
      return host_sync(ctx, buf, offset, bytes, true);
    }
    VKML_RETURN_IF_ERROR(host_sync(ctx, buf, offset, bytes, false));
    fn(user, 0, p, bytes);
    return VKML_OK;
  }
  uint64_t chunk = bytes < STAGING_CHUNK ? bytes : STAGING_CHUNK;
  rt_vk_buffer *stage;
  VKML_RETURN_IF_ERROR(rt_vk_buffer_create(ctx, RT_VK_MEM_HOST, chunk, &stage));
  vkml_status s = VKML_OK;
  char *sp = rt_vk_buffer_map(stage);
  for (uint64_t done = 0; done < bytes && !s; done += chunk) {
    uint64_t n = bytes - done < chunk ? bytes - done : chunk;
    if (to_device) {
      fn(user, done, sp, n);
      s = host_sync(ctx, stage, 0, n, true);
      if (!s) s = copy_once(ctx, stage, 0, buf, offset + done, n, true);
    } else {
      s = copy_once(ctx, buf, offset + done, stage, 0, n, false);
      if (!s) s = host_sync(ctx, stage, 0, n, false);
      if (!s) fn(user, done, sp, n);
    }
  }
  rt_vk_buffer_destroy(ctx, stage);
  return s;
}

static void copy_in(void *user, uint64_t done, void *stage, uint64_t n) {
  memcpy(stage, (const char *)user + done, n);
}

static void copy_out(void *user, uint64_t done, void *stage, uint64_t n) {
  memcpy((char *)user + done, stage, n);
}

vkml_status rt_vk_buffer_upload_fill(rt_vk_context *ctx, rt_vk_buffer *buf, uint64_t offset,
                                     uint64_t bytes,
                                     void (*fill)(void *user, uint64_t at, void *dst,
                                                  uint64_t n),
                                     void *user) {
  return transfer(ctx, buf, offset, bytes, true, fill, user);
}

vkml_status rt_vk_buffer_flush(rt_vk_context *ctx, const rt_vk_buffer *buf, uint64_t offset,
                               uint64_t bytes) {
  VKML_RETURN_IF_ERROR(check_range(buf, offset, bytes));
  return buf->kind != RT_VK_MEM_DEVICE && bytes ? host_sync(ctx, buf, offset, bytes, true)
                                                 : VKML_OK;
}

vkml_status rt_vk_buffer_invalidate(rt_vk_context *ctx, const rt_vk_buffer *buf,
                                    uint64_t offset, uint64_t bytes) {
  VKML_RETURN_IF_ERROR(check_range(buf, offset, bytes));
  return buf->kind != RT_VK_MEM_DEVICE && bytes ? host_sync(ctx, buf, offset, bytes, false)
                                                 : VKML_OK;
}

vkml_status rt_vk_buffer_upload(rt_vk_context *ctx, rt_vk_buffer *buf, uint64_t offset,
                                const void *data, uint64_t bytes) {
  return transfer(ctx, buf, offset, bytes, true, copy_in, (void *)data);
}

vkml_status rt_vk_buffer_download(rt_vk_context *ctx, rt_vk_buffer *buf, uint64_t offset,
                                  void *data, uint64_t bytes) {
  return transfer(ctx, buf, offset, bytes, false, copy_out, data);
}
