/* Program recording: dependency-driven barriers, descriptors (pushed, or
 * sets from a pool sized at finish), timestamps, replayed submission. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk_internal.h"
#include "vk_program.h"

#define MAX_BINDINGS 32
#define MAX_PUSH 256

typedef struct range {
  VkBuffer buf;
  VkDeviceSize off, size;
} range;

/* A recorded command: a dispatch, or (pipe NULL) a buffer copy from r[0]
 * to r[1], or (fill) zeros written over r[0] between full barriers. */
typedef struct dispatch {
  const rt_vk_pipeline *pipe;
  bool fill;
  int n;
  range r[MAX_BINDINGS];
  rt_vk_access access[MAX_BINDINGS];
  uint32_t push_bytes;
  unsigned char push[MAX_PUSH];
  uint32_t groups[3];
} dispatch;

typedef struct range_list {
  range *v;
  int n, cap;
} range_list;

struct rt_vk_program {
  rt_vk_context *ctx;
  dispatch *d;
  int n, cap;
  bool finished, ran, timestamps;
  bool has_copies; /* barriers then cover the transfer stage too */
  uint64_t last_ns; /* the last run's submit-to-fence time (host clock) */
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkDescriptorPool dpool;
  VkQueryPool qpool;
  int n_barriers;
  int barrier_before[64];
};

vkml_status rt_vk_program_create(rt_vk_context *ctx, bool timestamps, rt_vk_program **out) {
  *out = NULL;
  if (timestamps && !ctx->target.timestamp_valid_bits)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "device '%s' has no compute timestamps",
                            ctx->target.name);
  rt_vk_program *p = calloc(1, sizeof *p);
  if (!p) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  p->ctx = ctx;
  p->timestamps = timestamps;
  ctx->n_live_programs++;
  *out = p;
  return VKML_OK;
}

void rt_vk_program_destroy(rt_vk_context *ctx, rt_vk_program *p) {
  if (!p) return;
  VkDevice dev = ctx->device;
  if (p->fence) ctx->vk.vkDestroyFence(dev, p->fence, NULL);
  if (p->pool) ctx->vk.vkDestroyCommandPool(dev, p->pool, NULL);
  if (p->dpool) ctx->vk.vkDestroyDescriptorPool(dev, p->dpool, NULL);
  if (p->qpool) ctx->vk.vkDestroyQueryPool(dev, p->qpool, NULL);
  free(p->d);
  ctx->n_live_programs--;
  free(p);
}

static dispatch *append(rt_vk_program *p) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    dispatch *nd = realloc(p->d, (size_t)cap * sizeof *nd);
    if (!nd) return NULL;
    p->d = nd;
    p->cap = cap;
  }
  dispatch *d = &p->d[p->n];
  memset(d, 0, sizeof *d);
  return d;
}

vkml_status rt_vk_program_dispatch(rt_vk_program *p, const rt_vk_pipeline *pipe,
                                   const rt_vk_binding *b, int n_b, const void *push,
                                   uint32_t push_bytes, const uint32_t groups[3]) {
  const ir_target *t = &p->ctx->target;
  if (p->finished)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "program already finished");
  if (n_b != pipe->n_buffers || push_bytes != pipe->push_bytes || (push_bytes && !push))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "dispatch of %s: %d buffers and %u push bytes given, pipeline "
                            "takes %d and %u",
                            pipe->name, n_b, push_bytes, pipe->n_buffers, pipe->push_bytes);
  for (int i = 0; i < 3; i++)
    if (!groups[i] || groups[i] > t->max_workgroup_count[i])
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "dispatch of %s: %u workgroups along axis %d (device allows 1..%u)",
                              pipe->name, groups[i], i, t->max_workgroup_count[i]);
  dispatch *d = append(p);
  if (!d) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  for (int i = 0; i < n_b; i++) {
    const rt_vk_buffer *buf = b[i].buf;
    uint64_t bytes = b[i].bytes ? b[i].bytes : (buf && b[i].offset < buf->bytes
                                                    ? buf->bytes - b[i].offset
                                                    : 0);
    if (!buf || !bytes || b[i].offset > buf->bytes || bytes > buf->bytes - b[i].offset ||
        !(b[i].access & RT_VK_READ_WRITE))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "dispatch of %s: binding %d is empty, out of its buffer or has "
                              "no access",
                              pipe->name, i);
    VkDeviceSize off = buf->offset + b[i].offset;
    if (off % t->min_storage_buffer_offset_alignment || bytes > t->max_storage_buffer_range)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "dispatch of %s: binding %d at offset %llu is not aligned to %u "
                              "or larger than %llu bytes",
                              pipe->name, i, (unsigned long long)off,
                              t->min_storage_buffer_offset_alignment,
                              (unsigned long long)t->max_storage_buffer_range);
    d->r[i] = (range){buf->block->buf, off, bytes};
    d->access[i] = b[i].access;
  }
  d->pipe = pipe;
  d->n = n_b;
  d->push_bytes = push_bytes;
  if (push_bytes) memcpy(d->push, push, push_bytes);
  memcpy(d->groups, groups, sizeof d->groups);
  p->n++;
  return VKML_OK;
}

vkml_status rt_vk_program_copy(rt_vk_program *p, const rt_vk_buffer *src, uint64_t src_off,
                               const rt_vk_buffer *dst, uint64_t dst_off, uint64_t bytes) {
  if (p->finished)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "program already finished");
  if (!src || !dst || !bytes || src_off > src->bytes || bytes > src->bytes - src_off ||
      dst_off > dst->bytes || bytes > dst->bytes - dst_off)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "copy of %llu bytes: empty, or outside its buffers",
                            (unsigned long long)bytes);
  dispatch *d = append(p);
  if (!d) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  d->n = 2;
  d->r[0] = (range){src->block->buf, src->offset + src_off, bytes};
  d->r[1] = (range){dst->block->buf, dst->offset + dst_off, bytes};
  d->access[0] = RT_VK_READ;
  d->access[1] = RT_VK_WRITE;
  p->has_copies = true;
  p->n++;
  return VKML_OK;
}

vkml_status rt_vk_program_fill(rt_vk_program *p, const rt_vk_buffer *buf) {
  if (p->finished)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "program already finished");
  if (!buf || !buf->bytes || buf->bytes % 4 || buf->offset % 4)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "a fill needs a buffer of a non-zero multiple of 4 bytes");
  dispatch *d = append(p);
  if (!d) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  d->fill = true;
  d->n = 1;
  d->r[0] = (range){buf->block->buf, buf->offset, buf->bytes};
  d->access[0] = RT_VK_WRITE;
  p->has_copies = true;
  p->n++;
  return VKML_OK;
}

/* Every earlier command's work and writes done before any later one starts. */
static void full_barrier(rt_vk_program *p) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
  };
  VkPipelineStageFlags st = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  p->ctx->vk.vkCmdPipelineBarrier(p->cmd, st, st, 0, 1, &mb, 0, NULL, 0, NULL);
}

static bool overlaps(const range *a, const range *b) {
  return a->buf == b->buf && a->off < b->off + b->size && b->off < a->off + a->size;
}

static bool list_hits(const range_list *l, const range *r) {
  for (int i = 0; i < l->n; i++)
    if (overlaps(&l->v[i], r)) return true;
  return false;
}

static bool list_add(range_list *l, const range *r) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    range *nv = realloc(l->v, (size_t)cap * sizeof *nv);
    if (!nv) return false;
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->n++] = *r;
  return true;
}

/* Emits the barrier dispatch i needs (if any) and adds its accesses to the
 * pending lists: writes not yet made visible, reads not yet waited for. */
static vkml_status record_barrier(rt_vk_program *p, int i, range_list *w, range_list *r) {
  rt_vk_context *ctx = p->ctx;
  const dispatch *d = &p->d[i];
  bool need = false;
  for (int k = 0; k < d->n && !need; k++) {
    need = list_hits(w, &d->r[k]);                                /* RAW, WAW */
    if (d->access[k] & RT_VK_WRITE) need = need || list_hits(r, &d->r[k]); /* WAR */
  }
  if (need) {
    /* with copies in the program, both sides cover the transfer stage */
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    VkAccessFlags src_access = VK_ACCESS_SHADER_WRITE_BIT;
    VkAccessFlags dst_access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    if (p->has_copies) {
      stages |= VK_PIPELINE_STAGE_TRANSFER_BIT;
      src_access |= VK_ACCESS_TRANSFER_WRITE_BIT;
      dst_access |= VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    }
    VkBufferMemoryBarrier *bm = calloc(w->n ? (size_t)w->n : 1, sizeof *bm);
    if (!bm) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    for (int k = 0; k < w->n; k++)
      bm[k] = (VkBufferMemoryBarrier){
          .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
          .srcAccessMask = src_access,
          .dstAccessMask = dst_access,
          .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
          .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
          .buffer = w->v[k].buf,
          .offset = w->v[k].off,
          .size = w->v[k].size,
      };
    /* a write-after-read needs only the execution dependency */
    ctx->vk.vkCmdPipelineBarrier(p->cmd, stages, stages, 0, 0, NULL,
                                 (uint32_t)w->n, bm, 0, NULL);
    free(bm);
    if (p->n_barriers < 64) p->barrier_before[p->n_barriers] = i;
    p->n_barriers++;
    w->n = 0;
    r->n = 0;
  }
  for (int k = 0; k < d->n; k++) {
    bool ok = true;
    if (d->access[k] & RT_VK_WRITE) ok = list_add(w, &d->r[k]);
    if (d->access[k] & RT_VK_READ) ok = ok && list_add(r, &d->r[k]);
    if (!ok) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  return VKML_OK;
}

static vkml_status create_objects(rt_vk_program *p) {
  rt_vk_context *ctx = p->ctx;
  VkCommandPoolCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .queueFamilyIndex = ctx->queue_family,
  };
  VkResult r = ctx->vk.vkCreateCommandPool(ctx->device, &ci, NULL, &p->pool);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = p->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  r = ctx->vk.vkAllocateCommandBuffers(ctx->device, &ai, &p->cmd);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkAllocateCommandBuffers");
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = ctx->vk.vkCreateFence(ctx->device, &fi, NULL, &p->fence);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateFence");
  if (p->timestamps) {
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = (uint32_t)p->n + 1,
    };
    r = ctx->vk.vkCreateQueryPool(ctx->device, &qi, NULL, &p->qpool);
    if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateQueryPool");
  }
  int n_desc = 0;
  bool pooled = false;
  for (int i = 0; i < p->n; i++) {
    if (!p->d[i].pipe) continue; /* a copy */
    n_desc += p->d[i].n;
    pooled = pooled || (!p->d[i].pipe->push_desc && p->d[i].n);
  }
  if (pooled) {
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (uint32_t)n_desc};
    VkDescriptorPoolCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = (uint32_t)p->n,
        .poolSizeCount = 1,
        .pPoolSizes = &ps,
    };
    r = ctx->vk.vkCreateDescriptorPool(ctx->device, &pi, NULL, &p->dpool);
    if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateDescriptorPool");
  }
  return VKML_OK;
}

/* Binds dispatch d's buffers: pushed, or through a set from the pool. */
static vkml_status bind_buffers(rt_vk_program *p, const dispatch *d) {
  rt_vk_context *ctx = p->ctx;
  if (!d->n) return VKML_OK;
  VkDescriptorBufferInfo bi[MAX_BINDINGS];
  VkWriteDescriptorSet wr[MAX_BINDINGS];
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (!d->pipe->push_desc) {
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = p->dpool,
        .descriptorSetCount = 1,
        .pSetLayouts = &d->pipe->dsl,
    };
    VkResult r = ctx->vk.vkAllocateDescriptorSets(ctx->device, &ai, &set);
    if (r != VK_SUCCESS) return rt_vk_error(r, "vkAllocateDescriptorSets");
  }
  for (int k = 0; k < d->n; k++) {
    bi[k] = (VkDescriptorBufferInfo){d->r[k].buf, d->r[k].off, d->r[k].size};
    wr[k] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = set,
        .dstBinding = (uint32_t)k,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &bi[k],
    };
  }
  if (d->pipe->push_desc) {
    ctx->vk.vkCmdPushDescriptorSetKHR(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe->layout,
                                      0, (uint32_t)d->n, wr);
  } else {
    ctx->vk.vkUpdateDescriptorSets(ctx->device, (uint32_t)d->n, wr, 0, NULL);
    ctx->vk.vkCmdBindDescriptorSets(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe->layout, 0,
                                    1, &set, 0, NULL);
  }
  return VKML_OK;
}

static vkml_status record(rt_vk_program *p) {
  rt_vk_context *ctx = p->ctx;
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkResult r = ctx->vk.vkBeginCommandBuffer(p->cmd, &bi);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkBeginCommandBuffer");
  if (p->timestamps) {
    ctx->vk.vkCmdResetQueryPool(p->cmd, p->qpool, 0, (uint32_t)p->n + 1);
    ctx->vk.vkCmdWriteTimestamp(p->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, p->qpool, 0);
  }
  range_list w = {0}, rd = {0};
  vkml_status s = VKML_OK;
  const rt_vk_pipeline *bound = NULL;
  for (int i = 0; i < p->n && !s; i++) {
    const dispatch *d = &p->d[i];
    if (d->fill) {
      full_barrier(p);
      ctx->vk.vkCmdFillBuffer(p->cmd, d->r[0].buf, d->r[0].off, d->r[0].size, 0);
      full_barrier(p);
      w.n = rd.n = 0;
      if (p->timestamps)
        ctx->vk.vkCmdWriteTimestamp(p->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, p->qpool,
                                    (uint32_t)i + 1);
      continue;
    }
    s = record_barrier(p, i, &w, &rd);
    if (!s && !d->pipe) {
      VkBufferCopy region = {d->r[0].off, d->r[1].off, d->r[0].size};
      ctx->vk.vkCmdCopyBuffer(p->cmd, d->r[0].buf, d->r[1].buf, 1, &region);
      if (p->timestamps)
        ctx->vk.vkCmdWriteTimestamp(p->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, p->qpool,
                                    (uint32_t)i + 1);
      continue;
    }
    if (!s && d->pipe != bound) {
      ctx->vk.vkCmdBindPipeline(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe->pipeline);
      bound = d->pipe;
    }
    if (!s) s = bind_buffers(p, d);
    if (s) break;
    if (d->push_bytes)
      ctx->vk.vkCmdPushConstants(p->cmd, d->pipe->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                 d->push_bytes, d->push);
    ctx->vk.vkCmdDispatch(p->cmd, d->groups[0], d->groups[1], d->groups[2]);
    if (p->timestamps)
      ctx->vk.vkCmdWriteTimestamp(p->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, p->qpool,
                                  (uint32_t)i + 1);
  }
  free(w.v);
  free(rd.v);
  /* results go to the host, transfers or the next run */
  VkPipelineStageFlags last = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       VK_ACCESS_HOST_READ_BIT,
  };
  if (p->has_copies) {
    last |= VK_PIPELINE_STAGE_TRANSFER_BIT;
    mb.srcAccessMask |= VK_ACCESS_TRANSFER_WRITE_BIT;
  }
  ctx->vk.vkCmdPipelineBarrier(p->cmd, last,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                   VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                               0, 1, &mb, 0, NULL, 0, NULL);
  r = ctx->vk.vkEndCommandBuffer(p->cmd);
  if (!s && r != VK_SUCCESS) s = rt_vk_error(r, "vkEndCommandBuffer");
  return s;
}

vkml_status rt_vk_program_finish(rt_vk_program *p) {
  if (p->finished) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "program already finished");
  p->finished = true;
  VKML_RETURN_IF_ERROR(create_objects(p));
  return record(p);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

vkml_status rt_vk_program_run(rt_vk_program *p, rt_vk_wait wait) {
  if (!p->finished || !p->cmd)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "program not finished");
  /* hybrid: asleep for 3/4 of the last run's time, then spinning; the first
   * run blocks (nothing to predict from) */
  bool hybrid = wait == RT_VK_WAIT_HYBRID && p->last_ns;
  uint64_t t0 = now_ns();
  VKML_RETURN_IF_ERROR(rt_vk_submit_wait(p->ctx, p->cmd, p->fence,
                                         wait == RT_VK_WAIT_SPIN || hybrid,
                                         hybrid ? p->last_ns / 4 * 3 : 0));
  p->last_ns = now_ns() - t0;
  p->ran = true;
  return VKML_OK;
}

void rt_vk_program_stats_get(const rt_vk_program *p, rt_vk_program_stats *out) {
  memset(out, 0, sizeof *out);
  out->n_dispatches = p->n;
  out->n_barriers = p->n_barriers;
  memcpy(out->barrier_before, p->barrier_before, sizeof out->barrier_before);
}

vkml_status rt_vk_program_timings(rt_vk_program *p, double *ns, int n, double *total_ns) {
  rt_vk_context *ctx = p->ctx;
  if (!p->timestamps || !p->ran)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "timings need a program with timestamps that has run");
  uint64_t *t = calloc((size_t)p->n + 1, sizeof *t);
  if (!t) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  VkResult r = ctx->vk.vkGetQueryPoolResults(
      ctx->device, p->qpool, 0, (uint32_t)p->n + 1, ((size_t)p->n + 1) * sizeof *t, t,
      sizeof *t, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS) {
    free(t);
    return rt_vk_error(r, "vkGetQueryPoolResults");
  }
  uint32_t bits = ctx->target.timestamp_valid_bits;
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  double period = ctx->target.timestamp_period_ns;
  for (int i = 0; i < p->n && i < n; i++)
    ns[i] = (double)(((t[i + 1] & mask) - (t[i] & mask)) & mask) * period;
  if (total_ns) *total_ns = (double)(((t[p->n] & mask) - (t[0] & mask)) & mask) * period;
  free(t);
  return VKML_OK;
}
