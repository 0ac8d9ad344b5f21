/* rt_vk_context: one Vulkan instance + logical device with a compute queue,
 * the device's ir_target, its memory pools, pipeline cache and diagnostics.
 *
 * Everything Vulkan lives in the context (per-context loader handle,
 * instance function table and VolkDeviceTable): there are no process-global
 * function pointers, so several contexts on different devices may coexist.
 * A context is not thread-safe: use it from one thread at a time, with two
 * exceptions: distinct programs (vk_program.h) may run from several threads
 * at once (queue submissions are serialized inside), and pipelines may be
 * created from several threads at once (rt_vk_pipeline_create). */
#ifndef RT_VK_CONTEXT_H
#define RT_VK_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/target.h"
#include "vkml_status.h"

typedef struct rt_vk_context rt_vk_context;

/* Device features a caller can require; a missing one is a DEVICE status
 * naming the feature. */
enum {
  RT_VK_REQ_FP16 = 1u << 0,       /* shaderFloat16 */
  RT_VK_REQ_STORAGE16 = 1u << 1,  /* storageBuffer16BitAccess */
  RT_VK_REQ_INT8 = 1u << 2,       /* shaderInt8 */
  RT_VK_REQ_STORAGE8 = 1u << 3,   /* storageBuffer8BitAccess */
  RT_VK_REQ_COOPMAT_NV = 1u << 4, /* VK_NV_cooperative_matrix */
  RT_VK_REQ_TIMESTAMPS = 1u << 5, /* timestamps on the compute queue */
};

/* Valid when zero-initialized. */
typedef struct rt_vk_context_opts {
  bool validation;    /* VK_LAYER_KHRONOS_validation (also VKML_VALIDATION=1) */
  bool validation_sync; /* and its synchronization validation (implies validation) */
  bool select_device; /* use device_index, not VKML_DEVICE / automatic */
  int device_index;   /* index in vkEnumeratePhysicalDevices order */
  uint32_t required;  /* RT_VK_REQ_* */
  bool no_push_descriptors; /* descriptor pools even where push descriptors exist */
  const char *loader;       /* loader library (default libvulkan.so.1) */
  const char *cache_dir;    /* default $XDG_CACHE_HOME/vkml or ~/.cache/vkml */
  bool no_pipeline_cache;   /* neither load nor save the pipeline cache file */
  uint64_t block_bytes;     /* memory block size (default 64 MiB) */
  /* How long a blocking wait for the GPU may take before it is an error
   * (DEVICE, "VK_TIMEOUT"); 0: 60 s on a GPU, none on a CPU device. After a
   * failed wait the queue is drained first, so the caller may free what the
   * work used. */
  uint64_t fence_timeout_ns;
  /* Pipelines capture what the driver reports of the compiled code
   * (VK_KHR_pipeline_executable_properties: registers, spills, ... as the
   * driver names them; rt_vk_pipeline_stats) where the device has the
   * extension; also VKML_PIPELINE_STATS=1. For profiles and sweeps: a
   * driver may bypass its pipeline cache for such pipelines. */
  bool pipeline_stats;
} rt_vk_context_opts;

/* What the validation layer said over the context's life, and what the
 * caller forgot to destroy. */
typedef struct rt_vk_report {
  uint32_t n_errors, n_warnings; /* validation (debug-utils) messages */
  char first_message[1024];      /* first warning or error, "" if none */
  int n_leaked;                  /* rt_vk buffers/pipelines/programs alive */
} rt_vk_report;

/* Creates a context. Errors: no loader ("Vulkan loader not found"), no
 * device, index out of range, missing required feature, validation requested
 * but not installed. *out is freed with rt_vk_context_destroy. */
vkml_status rt_vk_context_create(const rt_vk_context_opts *opts,
                                 rt_vk_context **out);
/* Saves the pipeline cache (if new pipelines were made), destroys every
 * Vulkan object the context owns and fills *report (may be NULL) with the
 * final validation counts, including what validation says at device and
 * instance destruction (leaked objects). Safe on NULL. */
void rt_vk_context_destroy(rt_vk_context *ctx, rt_vk_report *report);

const ir_target *rt_vk_context_target(const rt_vk_context *ctx);
/* Where rt_vk_context_create's time went, in seconds: opening the loader,
 * the instance (ICDs and layers load here), choosing and creating the
 * device (properties, features, the logical device), reading the pipeline
 * cache file. */
typedef struct rt_vk_open_times {
  double loader_s, instance_s, device_s, pipeline_cache_s;
} rt_vk_open_times;
void rt_vk_context_open_times(const rt_vk_context *ctx, rt_vk_open_times *out);

/* Number of physical devices the instance reports; index of the chosen one. */
int rt_vk_context_device_count(const rt_vk_context *ctx);
int rt_vk_context_device_index(const rt_vk_context *ctx);
void rt_vk_context_report(const rt_vk_context *ctx, rt_vk_report *out);
/* Warnings the library did not treat as errors (e.g. an ignored corrupt
 * pipeline cache file), one per line; "" if none. The library never prints:
 * callers decide. Valid until the next call that adds a warning. */
const char *rt_vk_context_warnings(const rt_vk_context *ctx);

/* Hex of the pipelineCacheUUID (33 bytes with the NUL). */
void rt_vk_uuid_hex(const uint8_t uuid[16], char out[33]);

#endif
