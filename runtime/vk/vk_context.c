/* Context lifetime: loader, instance (with the validation layer and a
 * debug-utils messenger that counts into the context), then the device
 * (vk_device.c), memory pools and pipeline cache; teardown in reverse. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/file.h"
#include "vk_internal.h"

/* ---- small helpers shared by the runtime/vk files ------------------------ */

const char *rt_vk_result_name(VkResult r) {
  switch (r) {
#define C(x) case x: return #x;
    C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE)
    C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST)
    C(VK_ERROR_MEMORY_MAP_FAILED) C(VK_ERROR_LAYER_NOT_PRESENT)
    C(VK_ERROR_EXTENSION_NOT_PRESENT) C(VK_ERROR_FEATURE_NOT_PRESENT)
    C(VK_ERROR_INCOMPATIBLE_DRIVER) C(VK_ERROR_TOO_MANY_OBJECTS)
    C(VK_ERROR_FORMAT_NOT_SUPPORTED) C(VK_ERROR_FRAGMENTED_POOL)
    C(VK_ERROR_OUT_OF_POOL_MEMORY) C(VK_ERROR_INVALID_SHADER_NV)
    C(VK_PIPELINE_COMPILE_REQUIRED)
#undef C
  default: return "VK_ERROR_UNKNOWN";
  }
}

vkml_status rt_vk_error(VkResult r, const char *what) {
  vkml_code code = VKML_CODE_DEVICE;
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of device memory (%s)", what,
                            rt_vk_result_name(r));
  }
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY) code = VKML_CODE_OUT_OF_MEMORY;
  return vkml_status_make(code, "%s: %s (%d)", what, rt_vk_result_name(r), (int)r);
}

void rt_vk_warn(rt_vk_context *ctx, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t old = ctx->warnings ? strlen(ctx->warnings) : 0;
  char *w = realloc(ctx->warnings, old + strlen(line) + 2);
  if (!w) return;
  memcpy(w + old, line, strlen(line));
  w[old + strlen(line)] = '\n';
  w[old + strlen(line) + 1] = '\0';
  ctx->warnings = w;
}


void rt_vk_uuid_hex(const uint8_t uuid[16], char out[33]) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    out[2 * i] = hex[uuid[i] >> 4];
    out[2 * i + 1] = hex[uuid[i] & 15];
  }
  out[32] = '\0';
}

/* ---- validation messenger ------------------------------------------------ */

static VKAPI_ATTR VkBool32 VKAPI_CALL
on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                 VkDebugUtilsMessageTypeFlagsEXT types,
                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  (void)types;
  rt_vk_context *ctx = user;
  bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  bool warning = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  if (!error && !warning) return VK_FALSE;
  /* Debian 12's volk (1.3.239) lists vkGetPhysicalDeviceVideoEncodeQuality-
   * LevelPropertiesKHR among device functions, so volkLoadDeviceTable asks
   * vkGetDeviceProcAddr for it; newer validation layers (1.4) warn. Not ours
   * to fix, and harmless (the entry is never called): not counted. */
  if (!error && data && data->pMessage &&
      strstr(data->pMessage, "vkGetDeviceProcAddr(): pName is trying to grab") &&
      strstr(data->pMessage, "which is an instance level function"))
    return VK_FALSE;
  pthread_mutex_lock(&ctx->report_lock);
  if (error)
    ctx->report.n_errors++;
  else
    ctx->report.n_warnings++;
  if (!ctx->report.first_message[0]) {
    snprintf(ctx->report.first_message, sizeof ctx->report.first_message, "%s: %s",
             error ? "error" : "warning",
             data && data->pMessage ? data->pMessage : "(no message)");
  }
  pthread_mutex_unlock(&ctx->report_lock);
  return VK_FALSE;
}

static VkDebugUtilsMessengerCreateInfoEXT messenger_info(rt_vk_context *ctx) {
  VkDebugUtilsMessengerCreateInfoEXT mi = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = on_debug_message,
      .pUserData = ctx,
  };
  return mi;
}

/* ---- loader and instance ------------------------------------------------- */

static vkml_status open_loader(rt_vk_context *ctx, const char *name) {
  const char *names[2] = {name ? name : "libvulkan.so.1", name ? NULL : "libvulkan.so"};
  const char *err = "";
  for (int i = 0; i < 2 && !ctx->loader; i++) {
    if (!names[i]) continue;
    ctx->loader = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!ctx->loader) err = dlerror();
  }
  if (!ctx->loader)
    return vkml_status_make(VKML_CODE_DEVICE, "Vulkan loader not found (%s): %s",
                            names[0], err ? err : "");
  void *sym = dlsym(ctx->loader, "vkGetInstanceProcAddr");
  if (!sym)
    return vkml_status_make(VKML_CODE_DEVICE,
                            "Vulkan loader not found: %s has no vkGetInstanceProcAddr",
                            names[0]);
  /* dlsym returns an object pointer; the loader exports a function */
  memcpy(&ctx->gipa, &sym, sizeof ctx->gipa);
#define X(f) ctx->fn.f = (PFN_##f)ctx->gipa(NULL, #f);
  RT_VK_GLOBAL_FNS(X)
#undef X
  if (!ctx->fn.vkCreateInstance)
    return vkml_status_make(VKML_CODE_DEVICE, "Vulkan loader %s is unusable", names[0]);
  return VKML_OK;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool env_true(const char *name) {
  const char *v = getenv(name);
  return v && (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"));
}

static bool has_layer(rt_vk_context *ctx, const char *layer) {
  uint32_t n = 0;
  if (ctx->fn.vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || !n) return false;
  VkLayerProperties *p = calloc(n, sizeof *p);
  if (!p) return false;
  bool found = false;
  if (ctx->fn.vkEnumerateInstanceLayerProperties(&n, p) >= 0)
    for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(p[i].layerName, layer);
  free(p);
  return found;
}

static bool has_instance_ext(rt_vk_context *ctx, const char *layer, const char *ext) {
  uint32_t n = 0;
  if (ctx->fn.vkEnumerateInstanceExtensionProperties(layer, &n, NULL) != VK_SUCCESS || !n)
    return false;
  VkExtensionProperties *p = calloc(n, sizeof *p);
  if (!p) return false;
  bool found = false;
  if (ctx->fn.vkEnumerateInstanceExtensionProperties(layer, &n, p) >= 0)
    for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(p[i].extensionName, ext);
  free(p);
  return found;
}

static vkml_status create_instance(rt_vk_context *ctx, bool validation, bool sync) {
  static const char *const vlayer = "VK_LAYER_KHRONOS_validation";
  uint32_t version = VK_API_VERSION_1_0;
  PFN_vkEnumerateInstanceVersion env_fn =
      (PFN_vkEnumerateInstanceVersion)ctx->gipa(NULL, "vkEnumerateInstanceVersion");
  if (env_fn) env_fn(&version);
  if (version < VK_API_VERSION_1_1)
    return vkml_status_make(VKML_CODE_DEVICE,
                            "the Vulkan loader supports only %u.%u; vkml needs 1.1",
                            VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
  if (version > VK_API_VERSION_1_3) version = VK_API_VERSION_1_3;

  const char *layers[1];
  uint32_t n_layers = 0;
  const char *exts[3];
  uint32_t n_exts = 0;
  bool debug_utils = false;
  if (validation) {
    if (!has_layer(ctx, vlayer))
      return vkml_status_make(VKML_CODE_DEVICE,
                              "validation requested but %s is not installed "
                              "(Debian: vulkan-validationlayers)",
                              vlayer);
    layers[n_layers++] = vlayer;
    debug_utils = has_instance_ext(ctx, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                  has_instance_ext(ctx, vlayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (!debug_utils)
      return vkml_status_make(VKML_CODE_DEVICE,
                              "validation requested but VK_EXT_debug_utils is missing");
    exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (sync) {
      if (!has_instance_ext(ctx, vlayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME))
        return vkml_status_make(VKML_CODE_DEVICE,
                                "synchronization validation requested but the validation "
                                "layer lacks VK_EXT_validation_features");
      exts[n_exts++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    }
  }

  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "vkml",
      .pEngineName = "vkml",
      .apiVersion = version,
  };
  /* Chained so that vkCreateInstance/vkDestroyInstance are reported too. */
  VkDebugUtilsMessengerCreateInfoEXT mi = messenger_info(ctx);
  static const VkValidationFeatureEnableEXT sync_feature[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT vf = {
      .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
      .enabledValidationFeatureCount = 1,
      .pEnabledValidationFeatures = sync_feature,
  };
  if (validation && sync) mi.pNext = &vf;
  VkInstanceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pNext = debug_utils ? &mi : NULL,
      .pApplicationInfo = &app,
      .enabledLayerCount = n_layers,
      .ppEnabledLayerNames = layers,
      .enabledExtensionCount = n_exts,
      .ppEnabledExtensionNames = exts,
  };
  VkResult r = ctx->fn.vkCreateInstance(&ci, NULL, &ctx->instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return vkml_status_make(VKML_CODE_DEVICE, "no Vulkan device: no compatible driver installed");
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateInstance");
  ctx->api_version = version;

#define X(f) ctx->fn.f = (PFN_##f)ctx->gipa(ctx->instance, #f);
  RT_VK_INSTANCE_FNS(X)
  RT_VK_INSTANCE_EXT_FNS(X)
#undef X
#define X(f)                                                                   \
  if (!ctx->fn.f) return vkml_status_make(VKML_CODE_DEVICE, "Vulkan loader lacks " #f);
  RT_VK_INSTANCE_FNS(X)
#undef X
  if (debug_utils) {
    if (!ctx->fn.vkCreateDebugUtilsMessengerEXT || !ctx->fn.vkDestroyDebugUtilsMessengerEXT)
      return vkml_status_make(VKML_CODE_DEVICE, "VK_EXT_debug_utils functions missing");
    mi.pNext = NULL; /* the validation features belong to the instance only */
    r = ctx->fn.vkCreateDebugUtilsMessengerEXT(ctx->instance, &mi, NULL, &ctx->messenger);
    if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateDebugUtilsMessengerEXT");
  }
  return VKML_OK;
}

static vkml_status create_xfer(rt_vk_context *ctx) {
  VkCommandPoolCreateInfo pi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT |
               VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
      .queueFamilyIndex = ctx->queue_family,
  };
  VkResult r = ctx->vk.vkCreateCommandPool(ctx->device, &pi, NULL, &ctx->xfer_pool);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = ctx->xfer_pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  r = ctx->vk.vkAllocateCommandBuffers(ctx->device, &ai, &ctx->xfer_cmd);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkAllocateCommandBuffers");
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = ctx->vk.vkCreateFence(ctx->device, &fi, NULL, &ctx->xfer_fence);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateFence");
  return VKML_OK;
}

vkml_status rt_vk_context_create(const rt_vk_context_opts *opts, rt_vk_context **out) {
  *out = NULL;
  rt_vk_context_opts o = {0};
  if (opts) o = *opts;
  rt_vk_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  ctx->phys_index = -1;
  pthread_mutex_init(&ctx->queue_lock, NULL);
  pthread_mutex_init(&ctx->report_lock, NULL);

  double t0 = now_s();
  vkml_status s = open_loader(ctx, o.loader);
  double t1 = now_s();
  if (!s)
    s = create_instance(ctx, o.validation || o.validation_sync || env_true("VKML_VALIDATION"),
                        o.validation_sync);
  double t2 = now_s();
  if (!s) s = rt_vk_device_open(ctx, &o);
  double t3 = now_s();
  if (!s) s = create_xfer(ctx);
  if (!s) s = rt_vk_memory_init(ctx, o.block_bytes);
  if (!s && ctx->target.type == IR_TARGET_CPU) ctx->host_avail = ir_memory_available();
  ctx->fence_timeout_ns = o.fence_timeout_ns               ? o.fence_timeout_ns
                          : ctx->target.type == IR_TARGET_CPU ? UINT64_MAX
                                                              : 60ull * 1000000000ull;
  double t4 = now_s();
  if (!s) s = rt_vk_pcache_open(ctx, &o);
  ctx->open_times = (rt_vk_open_times){t1 - t0, t2 - t1, t3 - t2, now_s() - t4};
  if (s) {
    rt_vk_context_destroy(ctx, NULL);
    return s;
  }
  *out = ctx;
  return VKML_OK;
}

void rt_vk_context_destroy(rt_vk_context *ctx, rt_vk_report *report) {
  if (!ctx) return;
  if (ctx->device) {
    ctx->vk.vkDeviceWaitIdle(ctx->device);
    rt_vk_pcache_close(ctx);
    rt_vk_memory_shutdown(ctx);
    if (ctx->xfer_fence) ctx->vk.vkDestroyFence(ctx->device, ctx->xfer_fence, NULL);
    if (ctx->xfer_pool) ctx->vk.vkDestroyCommandPool(ctx->device, ctx->xfer_pool, NULL);
    /* validation reports objects still alive here */
    ctx->vk.vkDestroyDevice(ctx->device, NULL);
  }
  if (ctx->messenger)
    ctx->fn.vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
  if (ctx->instance) ctx->fn.vkDestroyInstance(ctx->instance, NULL);
  if (report) {
    *report = ctx->report;
    report->n_leaked = ctx->n_live_buffers + ctx->n_live_pipelines + ctx->n_live_programs;
  }
  if (ctx->loader) dlclose(ctx->loader);
  free(ctx->pcache_path);
  free(ctx->verdict_dir);
  free(ctx->warnings);
  pthread_mutex_destroy(&ctx->queue_lock);
  pthread_mutex_destroy(&ctx->report_lock);
  free(ctx);
}

const ir_target *rt_vk_context_target(const rt_vk_context *ctx) { return &ctx->target; }

void rt_vk_context_open_times(const rt_vk_context *ctx, rt_vk_open_times *out) {
  *out = ctx->open_times;
}
int rt_vk_context_device_count(const rt_vk_context *ctx) { return ctx->n_physical; }
int rt_vk_context_device_index(const rt_vk_context *ctx) { return ctx->phys_index; }

void rt_vk_context_report(const rt_vk_context *ctx, rt_vk_report *out) {
  pthread_mutex_lock((pthread_mutex_t *)&ctx->report_lock);
  *out = ctx->report;
  pthread_mutex_unlock((pthread_mutex_t *)&ctx->report_lock);
  out->n_leaked = ctx->n_live_buffers + ctx->n_live_pipelines + ctx->n_live_programs;
}

const char *rt_vk_context_warnings(const rt_vk_context *ctx) {
  return ctx->warnings ? ctx->warnings : "";
}
