/* Internals shared by the runtime/vk files: the context struct, memory pool
 * structs and small helpers. Not installed; nothing outside runtime/vk
 * includes it (tests use the public vk_*.h headers). */
#ifndef RT_VK_INTERNAL_H
#define RT_VK_INTERNAL_H

/* volk's symbols (global function pointers named like the Vulkan entry
 * points) must not leak out of libvkml_runtime: an application linking the
 * real loader would bind to them. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif
#include <volk.h>
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#include <pthread.h>

#include "vk_context.h"
#include "vk_khr_coopmat.h"
#include "vk_memory.h"
#include "vk_pipeline.h"

/* Instance-level functions, loaded per context through the context's own
 * vkGetInstanceProcAddr (volk's global instance pointers are never used). */
#define RT_VK_GLOBAL_FNS(X)                                                    \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceExtensionProperties)                                    \
  X(vkEnumerateInstanceLayerProperties)

#define RT_VK_INSTANCE_FNS(X)                                                  \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

/* Optional (extension) instance functions; NULL when absent. */
#define RT_VK_INSTANCE_EXT_FNS(X)                                              \
  X(vkCreateDebugUtilsMessengerEXT)                                            \
  X(vkDestroyDebugUtilsMessengerEXT)                                           \
  X(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)                          \
  X(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)                         \
  X(vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)

typedef struct rt_vk_ifn {
#define X(f) PFN_##f f;
  RT_VK_GLOBAL_FNS(X) RT_VK_INSTANCE_FNS(X) RT_VK_INSTANCE_EXT_FNS(X)
#undef X
} rt_vk_ifn;

/* ---- memory ------------------------------------------------------------- */

typedef struct rt_vk_range {
  VkDeviceSize off, size;
} rt_vk_range;

typedef struct rt_vk_block {
  VkDeviceMemory mem;
  VkBuffer buf; /* one buffer over the whole block; sub-allocations are ranges */
  VkDeviceSize bytes;
  void *mapped; /* host pool only */
  rt_vk_range *free; /* sorted by offset, coalesced */
  int n_free, cap_free;
  int n_allocs;
  bool dedicated; /* made for one allocation larger than a block; freed when empty */
  int id;         /* unique within the pool, for tests and messages */
} rt_vk_block;

typedef struct rt_vk_pool {
  uint32_t type_index, heap_index;
  bool present; /* the device has a memory type for it */
  bool coherent;
  VkDeviceSize block_bytes, align;
  VkDeviceSize next_block; /* the next pooled block's size (doubling to block_bytes) */
  rt_vk_block **blocks;
  int n_blocks, cap_blocks, next_id;
} rt_vk_pool;

struct rt_vk_buffer {
  rt_vk_mem_kind kind;
  rt_vk_block *block;
  VkDeviceSize offset, bytes, reserved; /* reserved: size of the range taken */
};

/* ---- pipelines ---------------------------------------------------------- */

struct rt_vk_pipeline {
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  int n_buffers;
  uint32_t push_bytes;
  bool push_desc; /* the set is pushed (VK_KHR_push_descriptor) */
  char name[64];
  char stats[RT_VK_STATS_BYTES]; /* the driver's statistics ("" when not captured) */
};

/* ---- context ------------------------------------------------------------ */

struct rt_vk_context {
  void *loader; /* dlopen handle */
  PFN_vkGetInstanceProcAddr gipa;
  rt_vk_ifn fn;
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice phys;
  int n_physical, phys_index;
  uint32_t api_version; /* effective: min(instance, device) */
  VkDevice device;
  struct VolkDeviceTable vk;
  uint32_t queue_family;
  VkQueue queue;
  pthread_mutex_t queue_lock; /* vkQueueSubmit needs the queue to itself */
  ir_target target;
  VkPhysicalDeviceMemoryProperties memprops;
  VkDeviceSize non_coherent_atom, max_alloc_bytes;
  unsigned long long host_avail; /* CPU devices: host memory available at creation */
  uint64_t fence_timeout_ns;     /* a run's wait (rt_vk_context_opts.fence_timeout_ns) */
  bool pipeline_stats; /* pipelines capture the driver's statistics (vk_pipeline.c) */
  rt_vk_open_times open_times;

  rt_vk_report report; /* validation counts; the messenger's pUserData is ctx */
  pthread_mutex_t report_lock; /* the messenger may be called from any thread */
  char *warnings;      /* library warnings, '\n'-separated, heap */

  rt_vk_pool pools[RT_VK_MEM_KIND_COUNT];
  VkCommandPool xfer_pool; /* synchronous uploads/downloads */
  VkCommandBuffer xfer_cmd;
  VkFence xfer_fence;

  VkPipelineCache pcache;
  char *pcache_path; /* NULL when the cache file is disabled */
  char *verdict_dir; /* the SPIR-V validator's verdicts (vk_spirv.c); NULL: none */
  size_t pcache_loaded_bytes;
  int pcache_created; /* pipelines created since start */
  bool pcache_dirty;

  int n_live_buffers, n_live_pipelines, n_live_programs;
};

/* A status for a failed Vulkan call: OUT_OF_MEMORY for the out-of-memory
 * results, DEVICE otherwise; the message is "<what>: VK_ERROR_...". */
vkml_status rt_vk_error(VkResult r, const char *what);
const char *rt_vk_result_name(VkResult r);
/* Appends a line to the context's warnings (dropped if out of memory). */
void rt_vk_warn(rt_vk_context *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Device selection, target fill and logical device (vk_device.c). */
vkml_status rt_vk_device_open(rt_vk_context *ctx, const rt_vk_context_opts *o);

/* Memory pools (vk_memory.c). */
vkml_status rt_vk_memory_init(rt_vk_context *ctx, VkDeviceSize block_bytes);
void rt_vk_memory_shutdown(rt_vk_context *ctx);

/* Submits cmd on the context's queue, sleeps sleep_ns (0: not), waits on
 * fence (blocking, or spinning on vkGetFenceStatus; either gives up after
 * the context's fence timeout, draining the queue first), resets the fence
 * (vk_transfer.c). */
vkml_status rt_vk_submit_wait(rt_vk_context *ctx, VkCommandBuffer cmd, VkFence fence,
                              bool spin, uint64_t sleep_ns);

/* Pipeline cache file (vk_pcache.c). */
vkml_status rt_vk_pcache_open(rt_vk_context *ctx, const rt_vk_context_opts *o);
void rt_vk_pcache_close(rt_vk_context *ctx);


#endif
