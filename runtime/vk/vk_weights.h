/* rt_vk_weights: a plan's constants on one device, uploaded once, to be
 * shared by every executor of that plan on that context (the XNNPack
 * weights-cache idea: the Nth instance adds only its activations).
 *
 * The constants the plan's GPU steps bind are packed into a few device
 * buffers ("slabs" of at most 256 MiB, one of its own for a larger
 * constant), each at an offset aligned for a storage-buffer binding and
 * rounded up to 16 bytes (a kernel's last vector access stays inside; the
 * padding is zero). They are written straight from the plan's weights (a
 * mapped artifact) into mapped device memory, or through staging chunks:
 * no host copy of the whole set.
 * Read-only after creation: executors on several threads may bind it. */
#ifndef RT_VK_WEIGHTS_H
#define RT_VK_WEIGHTS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/plan.h"
#include "vk_context.h"
#include "vk_memory.h"

typedef struct rt_vk_weights rt_vk_weights;

/* Uploads plan's GPU-bound constants. max_device_bytes (0: none) caps the
 * total: beyond it OUT_OF_MEMORY naming the sizes, as for a full device.
 * Where the device maps device-local memory of its main heap (a resizable
 * BAR, an integrated or CPU device) the slabs are written there in place
 * from the plan's weights, on a few threads; elsewhere, or with staged,
 * they go up through staging chunks filled the same way.
 * ctx and plan must outlive *out (free with rt_vk_weights_destroy). */
vkml_status rt_vk_weights_create(rt_vk_context *ctx, const ir_plan *plan,
                                 uint64_t max_device_bytes, bool staged, rt_vk_weights **out);
void rt_vk_weights_destroy(rt_vk_context *ctx, rt_vk_weights *w);

/* The plan the weights were made for (an executor checks it is its own). */
const ir_plan *rt_vk_weights_plan(const rt_vk_weights *w);
/* Device bytes of all slabs. */
uint64_t rt_vk_weights_bytes(const rt_vk_weights *w);
int rt_vk_weights_count(const rt_vk_weights *w); /* constants held */
/* Whether the slabs were written in place (no staging copy). */
bool rt_vk_weights_direct(const rt_vk_weights *w);

/* Where constant value_id lives; false when no GPU step binds it. */
bool rt_vk_weights_find(const rt_vk_weights *w, int32_t value_id, rt_vk_buffer **buf,
                        uint64_t *offset, uint64_t *bytes);

#endif
