/* Compute pipeline creation: shader module, set layout (push descriptors
 * when available), pipeline layout, specialization, through the context's
 * pipeline cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

#define SPIRV_MAGIC 0x07230203u

void rt_vk_pipeline_destroy(rt_vk_context *ctx, rt_vk_pipeline *p) {
  if (!p) return;
  if (p->pipeline) ctx->vk.vkDestroyPipeline(ctx->device, p->pipeline, NULL);
  if (p->layout) ctx->vk.vkDestroyPipelineLayout(ctx->device, p->layout, NULL);
  if (p->dsl) ctx->vk.vkDestroyDescriptorSetLayout(ctx->device, p->dsl, NULL);
  __atomic_fetch_sub(&ctx->n_live_pipelines, 1, __ATOMIC_RELAXED);
  free(p);
}

int rt_vk_pipeline_n_buffers(const rt_vk_pipeline *p) { return p->n_buffers; }
const char *rt_vk_pipeline_stats(const rt_vk_pipeline *p) { return p->stats; }

/* A statistic's name without spaces ("Register Count" -> "RegisterCount"). */
static void squeeze(char *dst, size_t n, const char *src) {
  size_t k = 0;
  for (; *src && k + 1 < n; src++)
    if (*src != ' ') dst[k++] = *src;
  dst[k] = 0;
}

/* Fills p->stats from the driver's statistics of the pipeline's (compute)
 * executable; leaves it empty when the driver has none or a query fails
 * (statistics are diagnostics, never an error). */
static void capture_stats(rt_vk_context *ctx, rt_vk_pipeline *p) {
  if (!ctx->vk.vkGetPipelineExecutablePropertiesKHR ||
      !ctx->vk.vkGetPipelineExecutableStatisticsKHR)
    return;
  VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = p->pipeline};
  uint32_t n_exec = 0;
  if (ctx->vk.vkGetPipelineExecutablePropertiesKHR(ctx->device, &pi, &n_exec, NULL) !=
          VK_SUCCESS ||
      !n_exec)
    return;
  VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                    .pipeline = p->pipeline,
                                    .executableIndex = 0};
  VkPipelineExecutableStatisticKHR st[32];
  uint32_t n = 32;
  for (uint32_t i = 0; i < n; i++)
    st[i] = (VkPipelineExecutableStatisticKHR){
        .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
  VkResult r = ctx->vk.vkGetPipelineExecutableStatisticsKHR(ctx->device, &ei, &n, st);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return;
  size_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    char name[VK_MAX_DESCRIPTION_SIZE], item[VK_MAX_DESCRIPTION_SIZE + 40];
    squeeze(name, sizeof name, st[i].name);
    const VkPipelineExecutableStatisticValueKHR *v = &st[i].value;
    int len;
    switch (st[i].format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      len = snprintf(item, sizeof item, "%s%s=%lld", k ? ", " : "", name, (long long)v->i64);
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      len = snprintf(item, sizeof item, "%s%s=%llu", k ? ", " : "", name,
                     (unsigned long long)v->u64);
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      len = snprintf(item, sizeof item, "%s%s=%g", k ? ", " : "", name, v->f64);
      break;
    default: continue; /* booleans: none worth a column */
    }
    if (len < 0 || k + (size_t)len >= sizeof p->stats) break;
    memcpy(p->stats + k, item, (size_t)len + 1);
    k += (size_t)len;
  }
}
uint32_t rt_vk_pipeline_push_bytes(const rt_vk_pipeline *p) { return p->push_bytes; }

static vkml_status check_desc(const rt_vk_context *ctx, const rt_vk_pipeline_desc *d,
                              const char *name) {
  if (!d->spirv || d->spirv_bytes < 20 || d->spirv_bytes % 4 || d->spirv[0] != SPIRV_MAGIC)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "pipeline %s: not a SPIR-V module",
                            name);
  if (d->n_buffers < 0 || d->n_buffers > 32 || d->n_spec < 0 || d->n_spec > 256 ||
      (d->n_spec && !d->spec))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "pipeline %s: bad buffer or specialization count", name);
  if (d->push_bytes % 4 || d->push_bytes > ctx->target.max_push_constant_bytes)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "pipeline %s: %u push-constant bytes (device allows %u, multiple "
                            "of 4)",
                            name, d->push_bytes, ctx->target.max_push_constant_bytes);
  return VKML_OK;
}

static vkml_status make_layouts(rt_vk_context *ctx, rt_vk_pipeline *p) {
  VkDescriptorSetLayoutBinding b[32];
  for (int i = 0; i < p->n_buffers; i++)
    b[i] = (VkDescriptorSetLayoutBinding){
        .binding = (uint32_t)i,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
    };
  VkDescriptorSetLayoutCreateInfo li = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .flags = p->push_desc ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
      .bindingCount = (uint32_t)p->n_buffers,
      .pBindings = b,
  };
  VkResult r = ctx->vk.vkCreateDescriptorSetLayout(ctx->device, &li, NULL, &p->dsl);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreateDescriptorSetLayout");
  VkPushConstantRange pr = {
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = p->push_bytes};
  VkPipelineLayoutCreateInfo pli = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &p->dsl,
      .pushConstantRangeCount = p->push_bytes ? 1 : 0,
      .pPushConstantRanges = &pr,
  };
  r = ctx->vk.vkCreatePipelineLayout(ctx->device, &pli, NULL, &p->layout);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkCreatePipelineLayout");
  return VKML_OK;
}

vkml_status rt_vk_pipeline_create(rt_vk_context *ctx, const rt_vk_pipeline_desc *d,
                                  rt_vk_pipeline **out) {
  *out = NULL;
  const char *name = d->name ? d->name : "(unnamed)";
  VKML_RETURN_IF_ERROR(check_desc(ctx, d, name));
  rt_vk_pipeline *p = calloc(1, sizeof *p);
  if (!p) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  __atomic_fetch_add(&ctx->n_live_pipelines, 1, __ATOMIC_RELAXED);
  p->n_buffers = d->n_buffers;
  p->push_bytes = d->push_bytes;
  p->push_desc = ctx->target.push_descriptors;
  snprintf(p->name, sizeof p->name, "%s", name);

  VkShaderModule mod = VK_NULL_HANDLE;
  VkSpecializationMapEntry *map = NULL;
  uint32_t *values = NULL;
  vkml_status s = make_layouts(ctx, p);
  if (!s && d->n_spec) {
    map = calloc((size_t)d->n_spec, sizeof *map);
    values = calloc((size_t)d->n_spec, sizeof *values);
    if (!map || !values) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    for (int i = 0; !s && i < d->n_spec; i++) {
      map[i] = (VkSpecializationMapEntry){
          .constantID = d->spec[i].id, .offset = (uint32_t)(4 * i), .size = 4};
      values[i] = d->spec[i].value;
    }
  }
  if (!s) {
    VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = d->spirv_bytes,
        .pCode = d->spirv,
    };
    VkResult r = ctx->vk.vkCreateShaderModule(ctx->device, &mi, NULL, &mod);
    if (r != VK_SUCCESS) {
      mod = VK_NULL_HANDLE;
      s = rt_vk_error(r, "vkCreateShaderModule");
    }
  }
  if (!s) {
    VkSpecializationInfo si = {
        .mapEntryCount = (uint32_t)d->n_spec,
        .pMapEntries = map,
        .dataSize = 4 * (size_t)d->n_spec,
        .pData = values,
    };
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = mod,
                .pName = d->entry ? d->entry : "main",
                .pSpecializationInfo = d->n_spec ? &si : NULL,
            },
        .layout = p->layout,
        .flags = ctx->pipeline_stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0,
    };
    VkResult r =
        ctx->vk.vkCreateComputePipelines(ctx->device, ctx->pcache, 1, &ci, NULL, &p->pipeline);
    if (r != VK_SUCCESS) {
      p->pipeline = VK_NULL_HANDLE;
      s = rt_vk_error(r, "vkCreateComputePipelines");
    } else {
      __atomic_fetch_add(&ctx->pcache_created, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&ctx->pcache_dirty, true, __ATOMIC_RELAXED);
      if (ctx->pipeline_stats) capture_stats(ctx, p);
    }
  }
  if (mod) ctx->vk.vkDestroyShaderModule(ctx->device, mod, NULL);
  free(map);
  free(values);
  if (s) {
    rt_vk_pipeline_destroy(ctx, p);
    return vkml_status_annotate(s, "pipeline %s", name);
  }
  *out = p;
  return VKML_OK;
}
