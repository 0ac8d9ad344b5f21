/* Compute pipelines from SPIR-V words: set 0 holds n storage buffers at
 * bindings 0..n-1 (push descriptors where the device has them, otherwise
 * descriptor sets from a pool owned by each program), optional push
 * constants, specialization constants. Creation goes through the context's
 * VkPipelineCache, persisted on disk per device (pipelineCacheUUID). */
#ifndef RT_VK_PIPELINE_H
#define RT_VK_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "vk_context.h"

typedef struct rt_vk_pipeline rt_vk_pipeline;

/* One 32-bit specialization constant (int, uint, float bits or bool 0/1). */
typedef struct rt_vk_spec {
  uint32_t id, value;
} rt_vk_spec;

typedef struct rt_vk_pipeline_desc {
  const char *name;       /* for messages; may be NULL */
  const uint32_t *spirv;  /* SPIR-V words, borrowed for the call */
  size_t spirv_bytes;
  const char *entry;      /* default "main" */
  int n_buffers;          /* storage buffers, bindings 0..n-1 of set 0 */
  uint32_t push_bytes;    /* push-constant range (compute stage), 0 for none */
  const rt_vk_spec *spec; /* borrowed for the call */
  int n_spec;
} rt_vk_pipeline_desc;

/* Creates a pipeline; free with rt_vk_pipeline_destroy. */
vkml_status rt_vk_pipeline_create(rt_vk_context *ctx, const rt_vk_pipeline_desc *desc,
                                  rt_vk_pipeline **out);
void rt_vk_pipeline_destroy(rt_vk_context *ctx, rt_vk_pipeline *p);
/* Validates SPIR-V a plan brought (an artifact's is untrusted) before any
 * driver sees it: SPIRV-Tools' validator for the device's Vulkan version,
 * then an entry point "main" for GLCompute whose literal workgroup size is
 * within the device's limits. CORRUPT naming the module and the first
 * problem. A module that passed is remembered in the context's cache
 * directory (spirv-valid/, an empty file named by the SHA-256 of the words,
 * the validator's version and what the check depended on): the next load
 * of the same module skips the validator (~1-5 ms a kernel). */
vkml_status rt_vk_spirv_check(const rt_vk_context *ctx, const uint32_t *words, size_t bytes,
                              const char *name);
/* The module's resources against the pipeline a step makes of it: every
 * DescriptorSet decoration 0 (the one set vkml's kernels use) and every
 * Binding below n_buffers (the step's bindings). The driver trusts this
 * agreement: a forged DescriptorSet of 0xffffffff crashed lavapipe inside
 * vkCreateComputePipelines. CORRUPT naming the module. The module passed
 * rt_vk_spirv_check (every instruction in bounds). */
vkml_status rt_vk_spirv_check_bindings(const uint32_t *words, size_t bytes, int n_buffers,
                                       const char *name);
int rt_vk_pipeline_n_buffers(const rt_vk_pipeline *p);
/* What the driver reported of the compiled pipeline, as "name=value, ..."
 * in its own names (NVIDIA: the register count and its kin; lavapipe: its
 * instruction counts), integers and floats only; "" when the context does
 * not capture statistics (rt_vk_context_opts.pipeline_stats) or the driver
 * reported none. At most RT_VK_STATS_BYTES - 1 characters (cut at a
 * statistic). */
#define RT_VK_STATS_BYTES 192
const char *rt_vk_pipeline_stats(const rt_vk_pipeline *p);
uint32_t rt_vk_pipeline_push_bytes(const rt_vk_pipeline *p);

/* The pipeline cache file of this context. */
typedef struct rt_vk_pcache_info {
  const char *path;    /* NULL when disabled; valid while the context lives */
  size_t loaded_bytes; /* driver cache bytes accepted from the file at start, 0 if none */
  size_t data_bytes;   /* driver cache bytes now */
  int n_created;       /* pipelines created through the cache since start */
} rt_vk_pcache_info;
void rt_vk_pcache_info_get(rt_vk_context *ctx, rt_vk_pcache_info *out);
/* Writes the cache file now (atomically: temporary file, then rename).
 * Also done at context destroy when pipelines were created. */
vkml_status rt_vk_pcache_save(rt_vk_context *ctx);

#endif
