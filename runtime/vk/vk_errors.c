/* Error slots of a plan's checking steps (see vk_errors.h). */
#include "vk_errors.h"

#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "vk_memory.h"

struct rt_vk_errors {
  const ir_plan *plan;
  rt_vk_buffer *buf; /* host-visible */
  uint64_t stride;   /* bytes between slots */
  int *slot;         /* by step: slot index, -1: the step does not check */
  int n_slots;
};

vkml_status rt_vk_errors_create(rt_vk_context *ctx, const ir_plan *p, rt_vk_errors **out) {
  *out = NULL;
  int n = 0;
  for (int i = 0; i < p->n_steps; i++)
    if (p->steps[i].device == IR_DEVICE_GPU && ir_plan_step_checks(p, &p->steps[i])) n++;
  if (!n) return VKML_OK;
  rt_vk_errors *x = calloc(1, sizeof *x);
  if (!x || !(x->slot = malloc(sizeof *x->slot * (size_t)p->n_steps))) {
    free(x);
    return ir_oom(NULL);
  }
  x->plan = p;
  uint64_t align = rt_vk_context_target(ctx)->min_storage_buffer_offset_alignment;
  x->stride = IR_PLAN_ERROR_SLOT_WORDS * 4;
  while (align && x->stride % align) x->stride += IR_PLAN_ERROR_SLOT_WORDS * 4;
  for (int i = 0; i < p->n_steps; i++)
    x->slot[i] = p->steps[i].device == IR_DEVICE_GPU && ir_plan_step_checks(p, &p->steps[i])
                     ? x->n_slots++
                     : -1;
  vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_HOST, x->stride * (uint64_t)n, &x->buf);
  if (!s) s = rt_vk_errors_reset(ctx, x);
  if (s) {
    rt_vk_errors_destroy(ctx, x);
    return vkml_status_annotate(s, "the device error slots");
  }
  *out = x;
  return VKML_OK;
}

void rt_vk_errors_destroy(rt_vk_context *ctx, rt_vk_errors *x) {
  if (!x) return;
  rt_vk_buffer_destroy(ctx, x->buf);
  free(x->slot);
  free(x);
}

rt_vk_binding rt_vk_errors_binding(const rt_vk_errors *x, int step) {
  int k = x && step >= 0 && step < x->plan->n_steps ? x->slot[step] : -1;
  if (k < 0) return (rt_vk_binding){0};
  return (rt_vk_binding){x->buf, x->stride * (uint64_t)k, IR_PLAN_ERROR_SLOT_WORDS * 4,
                         RT_VK_WRITE};
}

vkml_status rt_vk_errors_reset(rt_vk_context *ctx, rt_vk_errors *x) {
  if (!x) return VKML_OK;
  uint64_t bytes = x->stride * (uint64_t)x->n_slots;
  memset(rt_vk_buffer_map(x->buf), 0, bytes);
  return rt_vk_buffer_flush(ctx, x->buf, 0, bytes);
}

/* The message of a slot's error (words as device_error.glsl writes them). */
static vkml_status slot_error(const uint32_t *w) {
  if (w[0] == IR_DEVICE_ERROR_INDEX) {
    long long v = (long long)(int64_t)((uint64_t)w[3] << 32 | w[2]);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "index %lld (indices element %u) out of range for axis %u of size "
                            "%u (found on the GPU)",
                            v, w[1], w[4], w[5]);
  }
  if (w[0] == IR_DEVICE_ERROR_ROI_BATCH) {
    long long v = (long long)(int64_t)((uint64_t)w[3] << 32 | w[2]);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "batch index %lld of roi %u outside [0, %u) (found on the GPU)", v,
                            w[1], w[5]);
  }
  if (w[0] == IR_DEVICE_ERROR_TOPK_K) {
    long long v = (long long)(int64_t)((uint64_t)w[3] << 32 | w[2]);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "k = %lld outside [0, %u] (found on the GPU)", v, w[5]);
  }
  if (w[0] == IR_DEVICE_ERROR_EXTENTS)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "inputs %u and %u have %u and %u rows at run time; they must agree "
                            "(found on the GPU)",
                            w[1], w[4], w[2], w[5]);
  return vkml_status_make(VKML_CODE_INTERNAL, "the device reported error kind %u", w[0]);
}

vkml_status rt_vk_errors_check(rt_vk_context *ctx, rt_vk_errors *x, const ir_node *const *nodes,
                               int first, int last) {
  if (!x) return VKML_OK;
  VKML_RETURN_IF_ERROR(
      rt_vk_buffer_invalidate(ctx, x->buf, 0, x->stride * (uint64_t)x->n_slots));
  const uint8_t *base = rt_vk_buffer_map(x->buf);
  for (int i = first; i <= last; i++) {
    if (x->slot[i] < 0) continue;
    const uint32_t *w = (const uint32_t *)(base + x->stride * (uint64_t)x->slot[i]);
    if (!w[0]) continue;
    const ir_node *n = nodes[x->plan->steps[i].node];
    vkml_status s = slot_error(w);
    char d[160];
    ir_node_describe(n, d, sizeof d);
    return vkml_status_annotate(s, "%s", d);
  }
  return VKML_OK;
}
