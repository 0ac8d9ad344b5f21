/* Physical device choice (discrete > integrated > virtual > CPU, or an index
 * from the options / VKML_DEVICE), the ir_target filled from properties,
 * features and limits, and the logical device with one compute queue and its
 * own VolkDeviceTable. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

/* Everything about one physical device that choice and creation need. */
typedef struct dev_info {
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceSubgroupProperties subgroup;
  VkPhysicalDeviceMaintenance3Properties maint3;
  VkPhysicalDeviceDriverProperties driver; /* Vulkan 1.2; zero before */
  VkPhysicalDeviceFeatures2 f2;
  VkPhysicalDevice16BitStorageFeatures f16s;
  VkPhysicalDevice8BitStorageFeaturesKHR f8s;
  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16i8;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fcm;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR fcmk;
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV fcm2;
  VkPhysicalDeviceCooperativeMatrix2PropertiesNV pcm2;
  VkPhysicalDeviceVulkanMemoryModelFeatures fvmm;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpexec;
  bool has_pexec; /* VK_KHR_pipeline_executable_properties with pipelineExecutableInfo */
  bool has_vmm, ext_vmm;
  bool has_f8s, has_f16i8, has_cm, has_cmk, has_cm2, has_push; /* structs/extensions usable */
  bool ext_f8s, ext_f16i8;                   /* need enabling as extensions */
  uint32_t api; /* effective API version */
} dev_info;

static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(e[i].extensionName, name)) return true;
  return false;
}

static vkml_status query_device(rt_vk_context *ctx, VkPhysicalDevice pd, dev_info *d) {
  memset(d, 0, sizeof *d);
  ctx->fn.vkGetPhysicalDeviceProperties(pd, &d->props);
  d->api = d->props.apiVersion < ctx->api_version ? d->props.apiVersion : ctx->api_version;

  uint32_t n = 0;
  VkResult r = ctx->fn.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkEnumerateDeviceExtensionProperties");
  VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
  if (!e) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  r = ctx->fn.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e);
  if (r < 0) {
    free(e);
    return rt_vk_error(r, "vkEnumerateDeviceExtensionProperties");
  }
  bool v12 = d->api >= VK_API_VERSION_1_2;
  d->ext_f8s = !v12 && has_ext(e, n, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  d->ext_f16i8 = !v12 && has_ext(e, n, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  d->has_f8s = v12 || d->ext_f8s;
  d->has_f16i8 = v12 || d->ext_f16i8;
  d->ext_vmm = !v12 && has_ext(e, n, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  d->has_vmm = v12 || d->ext_vmm;
  d->has_cm = has_ext(e, n, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
              ctx->fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV;
  d->has_cmk = has_ext(e, n, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
               ctx->fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR;
  /* VK_NV_cooperative_matrix2 builds on the KHR one */
  d->has_cm2 = d->has_cmk && has_ext(e, n, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME) &&
               ctx->fn.vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV;
  /* VKML_COOPMAT=nv|khr keeps one of the two subgroup-scope APIs (to compare
   * them on a device that has both; either also turns cooperative_matrix2
   * off); anything else keeps all */
  const char *only = getenv("VKML_COOPMAT");
  if (only && !strcmp(only, "nv")) d->has_cmk = d->has_cm2 = false;
  if (only && !strcmp(only, "khr")) d->has_cm = d->has_cm2 = false;
  d->has_push = has_ext(e, n, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  d->has_pexec = has_ext(e, n, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  free(e);

  /* properties: subgroups (core 1.1), maintenance3 (max allocation size) */
  d->maint3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  if (v12) {
    d->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    d->maint3.pNext = &d->driver;
  }
  d->subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  d->subgroup.pNext = &d->maint3;
  if (d->has_cm2) {
    d->pcm2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV;
    d->pcm2.pNext = d->maint3.pNext;
    d->maint3.pNext = &d->pcm2;
  }
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                    .pNext = &d->subgroup};
  ctx->fn.vkGetPhysicalDeviceProperties2(pd, &p2);

  /* features: chain only structs the device knows */
  void *chain = NULL;
  d->f16s.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  d->f16s.pNext = chain;
  chain = &d->f16s;
  if (d->has_f8s) {
    d->f8s.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES_KHR;
    d->f8s.pNext = chain;
    chain = &d->f8s;
  }
  if (d->has_f16i8) {
    d->f16i8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR;
    d->f16i8.pNext = chain;
    chain = &d->f16i8;
  }
  if (d->has_cm) {
    d->fcm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
    d->fcm.pNext = chain;
    chain = &d->fcm;
  }
  if (d->has_cmk) {
    d->fcmk.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
    d->fcmk.pNext = chain;
    chain = &d->fcmk;
  }
  if (d->has_cm2) {
    d->fcm2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV;
    d->fcm2.pNext = chain;
    chain = &d->fcm2;
  }
  if (d->has_vmm) {
    d->fvmm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES;
    d->fvmm.pNext = chain;
    chain = &d->fvmm;
  }
  if (d->has_pexec) {
    d->fpexec.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    d->fpexec.pNext = chain;
    chain = &d->fpexec;
  }
  d->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  d->f2.pNext = chain;
  ctx->fn.vkGetPhysicalDeviceFeatures2(pd, &d->f2);
  d->has_cm = d->has_cm && d->fcm.cooperativeMatrix;
  d->has_pexec = d->has_pexec && d->fpexec.pipelineExecutableInfo;
  d->has_cmk = d->has_cmk && d->fcmk.cooperativeMatrix;
  d->has_cm2 = d->has_cm2 && d->has_cmk && d->fcm2.cooperativeMatrixWorkgroupScope &&
               d->fcm2.cooperativeMatrixFlexibleDimensions &&
               d->fcm2.cooperativeMatrixPerElementOperations &&
               d->fcm2.cooperativeMatrixTensorAddressing;
  /* with the memory model on, Device-scope atomics (a kernel's error slot,
   * glsl/device_error.glsl) need its device scope too: both, or neither */
  d->has_vmm = d->has_vmm && d->fvmm.vulkanMemoryModel && d->fvmm.vulkanMemoryModelDeviceScope;
  return VKML_OK;
}

static int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
  default: return 0;
  }
}

static ir_target_type target_type(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return IR_TARGET_DISCRETE_GPU;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return IR_TARGET_INTEGRATED_GPU;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return IR_TARGET_VIRTUAL_GPU;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return IR_TARGET_CPU;
  default: return IR_TARGET_OTHER;
  }
}

static ir_coopmat_type cm_type(VkComponentTypeNV t) {
  switch (t) {
  case VK_COMPONENT_TYPE_FLOAT16_NV: return IR_COOPMAT_F16;
  case VK_COMPONENT_TYPE_FLOAT32_NV: return IR_COOPMAT_F32;
  case VK_COMPONENT_TYPE_FLOAT64_NV: return IR_COOPMAT_F64;
  case VK_COMPONENT_TYPE_SINT8_NV: return IR_COOPMAT_I8;
  case VK_COMPONENT_TYPE_SINT32_NV: return IR_COOPMAT_I32;
  case VK_COMPONENT_TYPE_UINT8_NV: return IR_COOPMAT_U8;
  case VK_COMPONENT_TYPE_UINT32_NV: return IR_COOPMAT_U32;
  default: return IR_COOPMAT_OTHER;
  }
}

/* Parses VKML_DEVICE; -1 when unset. */
static vkml_status env_device(int *out) {
  *out = -1;
  const char *v = getenv("VKML_DEVICE");
  if (!v || !*v) return VKML_OK;
  char *end;
  errno = 0;
  long i = strtol(v, &end, 10);
  if (errno || *end || i < 0 || i > 1000000)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "VKML_DEVICE=%s: expected a device index (0, 1, ...)", v);
  *out = (int)i;
  return VKML_OK;
}

static uint32_t pick_queue_family(rt_vk_context *ctx, VkPhysicalDevice pd, uint32_t *ts_bits) {
  uint32_t n = 0;
  ctx->fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
  VkQueueFamilyProperties q[32];
  if (n > 32) n = 32;
  ctx->fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
  uint32_t best = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++) {
    if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || !q[i].queueCount) continue;
    /* prefer a family with timestamps */
    if (best == UINT32_MAX || (!q[best].timestampValidBits && q[i].timestampValidBits))
      best = i;
  }
  *ts_bits = best == UINT32_MAX ? 0 : q[best].timestampValidBits;
  return best;
}

static void fill_target(rt_vk_context *ctx, const dev_info *d, uint32_t ts_bits,
                        bool push) {
  ir_target *t = &ctx->target;
  const VkPhysicalDeviceLimits *l = &d->props.limits;
  memset(t, 0, sizeof *t);
  t->vendor_id = d->props.vendorID;
  t->device_id = d->props.deviceID;
  t->driver_version = d->props.driverVersion;
  t->driver_id = (uint32_t)d->driver.driverID;
  t->api_version = d->api;
  snprintf(t->name, sizeof t->name, "%s", d->props.deviceName);
  t->type = target_type(d->props.deviceType);
  memcpy(t->pipeline_cache_uuid, d->props.pipelineCacheUUID, 16);
  t->subgroup_size = d->subgroup.subgroupSize;
  t->subgroup_ops = d->subgroup.supportedOperations & 0xffu;
  t->subgroup_in_compute = d->subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  t->max_shared_bytes = l->maxComputeSharedMemorySize;
  for (int i = 0; i < 3; i++) {
    t->max_workgroup_size[i] = l->maxComputeWorkGroupSize[i];
    t->max_workgroup_count[i] = l->maxComputeWorkGroupCount[i];
  }
  t->max_workgroup_invocations = l->maxComputeWorkGroupInvocations;
  t->max_push_constant_bytes = l->maxPushConstantsSize;
  t->max_storage_buffer_range = l->maxStorageBufferRange;
  /* kernels bind all their buffers in one set of one stage */
  t->max_storage_buffers_per_stage = l->maxPerStageDescriptorStorageBuffers;
  if (l->maxDescriptorSetStorageBuffers < t->max_storage_buffers_per_stage)
    t->max_storage_buffers_per_stage = l->maxDescriptorSetStorageBuffers;
  if (l->maxPerStageResources < t->max_storage_buffers_per_stage)
    t->max_storage_buffers_per_stage = l->maxPerStageResources;
  t->min_storage_buffer_offset_alignment = (uint32_t)l->minStorageBufferOffsetAlignment;
  t->fp16_arith = d->has_f16i8 && d->f16i8.shaderFloat16;
  t->int8_arith = d->has_f16i8 && d->f16i8.shaderInt8;
  t->int16_arith = d->f2.features.shaderInt16;
  t->int64_arith = d->f2.features.shaderInt64;
  t->storage_16bit = d->f16s.storageBuffer16BitAccess;
  t->storage_8bit = d->has_f8s && d->f8s.storageBuffer8BitAccess;
  t->coopmat_nv = d->has_cm;
  t->coopmat_khr = d->has_cmk;
  t->coopmat2 = d->has_cm2 && d->api >= VK_API_VERSION_1_3; /* its shaders are SPIR-V 1.6 */
  t->coopmat2_max_workgroup = t->coopmat2 ? d->pcm2.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize : 0;
  t->vulkan_memory_model = d->has_vmm;
  t->push_descriptors = push;
  t->timestamp_period_ns = l->timestampPeriod;
  t->timestamp_valid_bits = ts_bits;
  t->n_heaps = (int)ctx->memprops.memoryHeapCount;
  if (t->n_heaps > IR_TARGET_MAX_HEAPS) t->n_heaps = IR_TARGET_MAX_HEAPS;
  for (int i = 0; i < t->n_heaps; i++) {
    t->heaps[i].bytes = ctx->memprops.memoryHeaps[i].size;
    t->heaps[i].device_local =
        ctx->memprops.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
  }
}

static void add_shape(ir_target *t, uint32_t m, uint32_t n, uint32_t k, VkComponentTypeNV a,
                      VkComponentTypeNV b, VkComponentTypeNV c, VkComponentTypeNV d, bool khr) {
  if (t->n_coopmat_shapes >= IR_TARGET_MAX_COOPMAT) return;
  ir_coopmat_shape *s = &t->coopmat_shapes[t->n_coopmat_shapes++];
  *s = (ir_coopmat_shape){m, n, k, cm_type(a), cm_type(b), cm_type(c), cm_type(d), khr};
}

/* The subgroup-scope shapes each enabled extension lists, marked by which. */
static void fill_coopmat(rt_vk_context *ctx) {
  ir_target *t = &ctx->target;
  uint32_t n = 0;
  if (t->coopmat_nv &&
      ctx->fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(ctx->phys, &n, NULL) == VK_SUCCESS) {
    VkCooperativeMatrixPropertiesNV p[IR_TARGET_MAX_COOPMAT];
    if (n > IR_TARGET_MAX_COOPMAT) n = IR_TARGET_MAX_COOPMAT;
    for (uint32_t i = 0; i < n; i++)
      p[i] = (VkCooperativeMatrixPropertiesNV){
          .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV};
    if (ctx->fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(ctx->phys, &n, p) >= 0)
      for (uint32_t i = 0; i < n; i++)
        if (p[i].scope == VK_SCOPE_SUBGROUP_NV)
          add_shape(t, p[i].MSize, p[i].NSize, p[i].KSize, p[i].AType, p[i].BType, p[i].CType,
                    p[i].DType, false);
  }
  n = 0;
  if (t->coopmat_khr &&
      ctx->fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(ctx->phys, &n, NULL) == VK_SUCCESS) {
    VkCooperativeMatrixPropertiesKHR p[IR_TARGET_MAX_COOPMAT];
    if (n > IR_TARGET_MAX_COOPMAT) n = IR_TARGET_MAX_COOPMAT;
    for (uint32_t i = 0; i < n; i++)
      p[i] = (VkCooperativeMatrixPropertiesKHR){
          .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR};
    if (ctx->fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(ctx->phys, &n, p) >= 0)
      for (uint32_t i = 0; i < n; i++)
        if (p[i].scope == VK_SCOPE_SUBGROUP_NV && !p[i].saturatingAccumulation)
          add_shape(t, p[i].MSize, p[i].NSize, p[i].KSize, p[i].AType, p[i].BType, p[i].CType,
                    p[i].ResultType, true);
  }
  n = 0;
  if (t->coopmat2 && ctx->fn.vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(
                         ctx->phys, &n, NULL) == VK_SUCCESS) {
    VkCooperativeMatrixFlexibleDimensionsPropertiesNV p[IR_TARGET_MAX_COOPMAT];
    if (n > IR_TARGET_MAX_COOPMAT) n = IR_TARGET_MAX_COOPMAT;
    for (uint32_t i = 0; i < n; i++)
      p[i] = (VkCooperativeMatrixFlexibleDimensionsPropertiesNV){
          .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV};
    if (ctx->fn.vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(ctx->phys, &n,
                                                                                  p) >= 0)
      for (uint32_t i = 0; i < n && t->n_coopmat2_shapes < IR_TARGET_MAX_COOPMAT2; i++) {
        if (p[i].scope != VK_SCOPE_WORKGROUP_NV || p[i].saturatingAccumulation) continue;
        int j = t->n_coopmat2_shapes++;
        t->coopmat2_shapes[j] = (ir_coopmat_shape){
            p[i].MGranularity,  p[i].NGranularity,  p[i].KGranularity,      cm_type(p[i].AType),
            cm_type(p[i].BType), cm_type(p[i].CType), cm_type(p[i].ResultType), true};
        t->coopmat2_invocations[j] = p[i].workgroupInvocations;
      }
  }
}

static vkml_status check_required(const ir_target *t, uint32_t req) {
  static const struct {
    uint32_t bit;
    const char *what;
  } names[] = {
      {RT_VK_REQ_FP16, "fp16 arithmetic (shaderFloat16)"},
      {RT_VK_REQ_STORAGE16, "16-bit storage (storageBuffer16BitAccess)"},
      {RT_VK_REQ_INT8, "int8 arithmetic (shaderInt8)"},
      {RT_VK_REQ_STORAGE8, "8-bit storage (storageBuffer8BitAccess)"},
      {RT_VK_REQ_COOPMAT_NV, "cooperative matrix (VK_NV_cooperative_matrix)"},
      {RT_VK_REQ_TIMESTAMPS, "timestamp queries on the compute queue"},
  };
  bool have[] = {t->fp16_arith, t->storage_16bit, t->int8_arith, t->storage_8bit,
                 t->coopmat_nv, t->timestamp_valid_bits > 0};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if ((req & names[i].bit) && !have[i])
      return vkml_status_make(VKML_CODE_DEVICE, "device '%s' lacks %s, which was requested",
                              t->name, names[i].what);
  return VKML_OK;
}

/* volkLoadDeviceTable reads volk's global vkGetDeviceProcAddr: set it to this
 * context's loader entry point and load the table under one lock, so the
 * global is never relied on anywhere else. */
static pthread_mutex_t volk_lock = PTHREAD_MUTEX_INITIALIZER;

static void load_device_table(rt_vk_context *ctx) {
  pthread_mutex_lock(&volk_lock);
  vkGetDeviceProcAddr = ctx->fn.vkGetDeviceProcAddr;
  volkLoadDeviceTable(&ctx->vk, ctx->device);
  vkGetDeviceProcAddr = NULL;
  pthread_mutex_unlock(&volk_lock);
}

static vkml_status create_device(rt_vk_context *ctx, dev_info *d, bool push) {
  const char *exts[8];
  uint32_t n_exts = 0;
  if (push) exts[n_exts++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  if (d->ext_f8s) exts[n_exts++] = VK_KHR_8BIT_STORAGE_EXTENSION_NAME;
  if (d->ext_f16i8) exts[n_exts++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
  if (d->has_cm) exts[n_exts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
  if (d->has_cmk) exts[n_exts++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
  if (ctx->target.coopmat2) exts[n_exts++] = VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
  if (d->ext_vmm) exts[n_exts++] = VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME;
  if (ctx->pipeline_stats) exts[n_exts++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;

  /* Enable exactly the features the target advertises (the ones kernels may
   * use), nothing else. */
  const ir_target *t = &ctx->target;
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.features.shaderInt16 = t->int16_arith;
  f2.features.shaderInt64 = t->int64_arith;
  /* A kernel's out-of-bounds access (a forged artifact's specialization
   * constants can make one) is contained on a GPU by its MMU (the device is
   * lost, an error); on a CPU device it would touch the process's own
   * memory: there, accesses are clamped to the bound ranges. */
  f2.features.robustBufferAccess =
      t->type == IR_TARGET_CPU && d->f2.features.robustBufferAccess;
  VkPhysicalDevice16BitStorageFeatures f16s = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      .storageBuffer16BitAccess = t->storage_16bit,
  };
  f2.pNext = &f16s;
  void **tail = &f16s.pNext;
  VkPhysicalDevice8BitStorageFeaturesKHR f8s = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES_KHR,
      .storageBuffer8BitAccess = t->storage_8bit,
  };
  if (d->has_f8s) {
    *tail = &f8s;
    tail = &f8s.pNext;
  }
  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16i8 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR,
      .shaderFloat16 = t->fp16_arith,
      .shaderInt8 = t->int8_arith,
  };
  if (d->has_f16i8) {
    *tail = &f16i8;
    tail = &f16i8.pNext;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fcm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
      .cooperativeMatrix = VK_TRUE,
  };
  if (d->has_cm) {
    *tail = &fcm;
    tail = &fcm.pNext;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR fcmk = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
      .cooperativeMatrix = VK_TRUE,
  };
  if (d->has_cmk) {
    *tail = &fcmk;
    tail = &fcmk.pNext;
  }
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV fcm2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV,
      .cooperativeMatrixWorkgroupScope = VK_TRUE,
      .cooperativeMatrixFlexibleDimensions = VK_TRUE,
      .cooperativeMatrixPerElementOperations = VK_TRUE,
      .cooperativeMatrixTensorAddressing = VK_TRUE,
  };
  if (t->coopmat2) {
    *tail = &fcm2;
    tail = &fcm2.pNext;
  }
  VkPhysicalDeviceVulkanMemoryModelFeatures fvmm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
      .vulkanMemoryModel = t->vulkan_memory_model,
      .vulkanMemoryModelDeviceScope = t->vulkan_memory_model,
  };
  if (d->has_vmm) {
    *tail = &fvmm;
    tail = &fvmm.pNext;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpexec = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
      .pipelineExecutableInfo = VK_TRUE,
  };
  if (ctx->pipeline_stats) {
    *tail = &fpexec;
    tail = &fpexec.pNext;
  }

  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = ctx->queue_family,
      .queueCount = 1,
      .pQueuePriorities = &prio,
  };
  VkDeviceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = &f2,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qi,
      .enabledExtensionCount = n_exts,
      .ppEnabledExtensionNames = exts,
  };
  VkResult r = ctx->fn.vkCreateDevice(ctx->phys, &ci, NULL, &ctx->device);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateDevice");
  load_device_table(ctx);
  if (!ctx->vk.vkCreateComputePipelines || !ctx->vk.vkQueueSubmit)
    return vkml_status_make(VKML_CODE_DEVICE, "device function table incomplete");
  if (push && !ctx->vk.vkCmdPushDescriptorSetKHR)
    return vkml_status_make(VKML_CODE_DEVICE, "vkCmdPushDescriptorSetKHR missing");
  ctx->vk.vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
  return VKML_OK;
}

vkml_status rt_vk_device_open(rt_vk_context *ctx, const rt_vk_context_opts *o) {
  uint32_t n = 0;
  VkResult r = ctx->fn.vkEnumeratePhysicalDevices(ctx->instance, &n, NULL);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkEnumeratePhysicalDevices");
  if (!n) return vkml_status_make(VKML_CODE_DEVICE, "no Vulkan device found");
  VkPhysicalDevice *pds = calloc(n, sizeof *pds);
  if (!pds) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  r = ctx->fn.vkEnumeratePhysicalDevices(ctx->instance, &n, pds);
  if (r < 0) {
    free(pds);
    return rt_vk_error(r, "vkEnumeratePhysicalDevices");
  }
  ctx->n_physical = (int)n;

  int want = o->select_device ? o->device_index : -1;
  vkml_status s = VKML_OK;
  if (!o->select_device) s = env_device(&want);
  if (!s && want >= (int)n)
    s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                         "device index %d out of range: %u Vulkan device%s found", want, n,
                         n == 1 ? "" : "s");
  if (!s && o->select_device && want < 0)
    s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "device index %d out of range", want);
  int chosen = want;
  dev_info d;
  if (!s && chosen < 0) {
    /* automatic: best type first, then the earliest; skip pre-1.1 devices */
    int best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
      VkPhysicalDeviceProperties p;
      ctx->fn.vkGetPhysicalDeviceProperties(pds[i], &p);
      if (p.apiVersion < VK_API_VERSION_1_1) continue;
      if (type_rank(p.deviceType) > best_rank) {
        best_rank = type_rank(p.deviceType);
        chosen = (int)i;
      }
    }
    if (chosen < 0) s = vkml_status_make(VKML_CODE_DEVICE, "no Vulkan 1.1 device found");
  }
  if (!s) {
    ctx->phys = pds[chosen];
    ctx->phys_index = chosen;
    s = query_device(ctx, ctx->phys, &d);
  }
  free(pds);
  VKML_RETURN_IF_ERROR(s);
  if (d.api < VK_API_VERSION_1_1)
    return vkml_status_make(VKML_CODE_DEVICE, "device %d '%s' supports only Vulkan %u.%u",
                            chosen, d.props.deviceName, VK_API_VERSION_MAJOR(d.api),
                            VK_API_VERSION_MINOR(d.api));

  uint32_t ts_bits = 0;
  ctx->queue_family = pick_queue_family(ctx, ctx->phys, &ts_bits);
  if (ctx->queue_family == UINT32_MAX)
    return vkml_status_make(VKML_CODE_DEVICE, "device '%s' has no compute queue",
                            d.props.deviceName);
  ctx->fn.vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->memprops);
  ctx->non_coherent_atom = d.props.limits.nonCoherentAtomSize;
  ctx->max_alloc_bytes = d.maint3.maxMemoryAllocationSize;
  ctx->api_version = d.api;
  bool push = d.has_push && !o->no_push_descriptors;
  const char *ps = getenv("VKML_PIPELINE_STATS");
  ctx->pipeline_stats = d.has_pexec && (o->pipeline_stats || (ps && !strcmp(ps, "1")));
  fill_target(ctx, &d, ts_bits, push);
  fill_coopmat(ctx);
  VKML_RETURN_IF_ERROR(check_required(&ctx->target, o->required));
  return create_device(ctx, &d, push);
}
