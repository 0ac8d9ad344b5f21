/* Errors raised on the device: the error slots of a plan's checking steps
 * (ir/plan.h IR_PLAN_ERROR_BINDING). One host-visible buffer holds a slot
 * per such step (at the storage-offset alignment, so steps never share a
 * range and never wait on each other); the executor zeroes it before a run
 * and reads it once after: the first step (in plan order) whose slot holds
 * an error fails the run, its message worded like the CPU kernel's. */
#ifndef RT_VK_ERRORS_H
#define RT_VK_ERRORS_H

#include "ir/plan.h"
#include "vk_context.h"
#include "vk_program.h"

typedef struct rt_vk_errors rt_vk_errors;

/* The slots of p's checking steps; *out NULL when it has none. */
vkml_status rt_vk_errors_create(rt_vk_context *ctx, const ir_plan *p, rt_vk_errors **out);
void rt_vk_errors_destroy(rt_vk_context *ctx, rt_vk_errors *x);

/* The binding of step's slot (a checking step of the plan). */
rt_vk_binding rt_vk_errors_binding(const rt_vk_errors *x, int step);

/* Clears every slot (before a run; the device is idle). Safe on NULL. */
vkml_status rt_vk_errors_reset(rt_vk_context *ctx, rt_vk_errors *x);

/* The first error recorded by steps first..last: INVALID_ARGUMENT naming
 * the node (nodes: the plan graph's, by id), OK when none. Safe on NULL. */
vkml_status rt_vk_errors_check(rt_vk_context *ctx, rt_vk_errors *x, const ir_node *const *nodes,
                               int first, int last);

#endif
