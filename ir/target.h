/* ir_target: a plain description of one device's capabilities and limits.
 *
 * The runtime fills it from Vulkan (runtime/vk); codegen and the tuner read it
 * to decide which schedules are valid. It lives in ir/ because both sides need
 * it and neither may include the other: it must stay plain C with no Vulkan
 * types. Sizes are in bytes, counts in elements or invocations. */
#ifndef IR_TARGET_H
#define IR_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef enum ir_target_type {
  IR_TARGET_OTHER = 0,
  IR_TARGET_INTEGRATED_GPU,
  IR_TARGET_DISCRETE_GPU,
  IR_TARGET_VIRTUAL_GPU,
  IR_TARGET_CPU, /* e.g. lavapipe */
} ir_target_type;

/* Subgroup operation classes; the bit values equal VkSubgroupFeatureFlagBits
 * so the runtime can copy the mask. */
enum {
  IR_SUBGROUP_BASIC = 1u << 0,
  IR_SUBGROUP_VOTE = 1u << 1,
  IR_SUBGROUP_ARITHMETIC = 1u << 2,
  IR_SUBGROUP_BALLOT = 1u << 3,
  IR_SUBGROUP_SHUFFLE = 1u << 4,
  IR_SUBGROUP_SHUFFLE_RELATIVE = 1u << 5,
  IR_SUBGROUP_CLUSTERED = 1u << 6,
  IR_SUBGROUP_QUAD = 1u << 7,
};

/* Component types of cooperative-matrix shapes (a subset of
 * VkComponentTypeNV that kernels care about). */
typedef enum ir_coopmat_type {
  IR_COOPMAT_F16 = 0,
  IR_COOPMAT_F32,
  IR_COOPMAT_F64,
  IR_COOPMAT_I8,
  IR_COOPMAT_I32,
  IR_COOPMAT_U8,
  IR_COOPMAT_U32,
  IR_COOPMAT_OTHER,
} ir_coopmat_type;

/* One supported D = A(MxK) * B(KxN) + C(MxN) shape, of subgroup scope. */
typedef struct ir_coopmat_shape {
  uint32_t m, n, k;
  ir_coopmat_type a, b, c, d;
  bool khr; /* listed by VK_KHR_cooperative_matrix (else by the NV extension) */
} ir_coopmat_shape;

#define IR_TARGET_MAX_HEAPS 16
#define IR_TARGET_MAX_COOPMAT 48
#define IR_TARGET_MAX_COOPMAT2 16

typedef struct ir_target_heap {
  uint64_t bytes;
  bool device_local;
} ir_target_heap;

typedef struct ir_target {
  /* identity */
  uint32_t vendor_id, device_id;
  uint32_t driver_version; /* vendor-encoded, as Vulkan reports it */
  uint32_t driver_id;      /* VkDriverId (Vulkan 1.2); 0 if unknown */
  uint32_t api_version;    /* VK_MAKE_API_VERSION encoding */
  char name[256];
  ir_target_type type;
  uint8_t pipeline_cache_uuid[16];

  /* subgroups */
  uint32_t subgroup_size; /* 0 if unknown */
  uint32_t subgroup_ops;  /* IR_SUBGROUP_* mask */
  bool subgroup_in_compute;

  /* compute limits */
  uint32_t max_shared_bytes;
  uint32_t max_workgroup_size[3];
  uint32_t max_workgroup_invocations;
  uint32_t max_workgroup_count[3];
  uint32_t max_push_constant_bytes;
  uint64_t max_storage_buffer_range; /* bytes one descriptor may cover */
  /* Storage buffers one compute pipeline may bind (the smallest of
   * maxPerStageDescriptorStorageBuffers, maxDescriptorSetStorageBuffers and
   * maxPerStageResources: every kernel binds its buffers in one set); 0:
   * unknown (no check). Vulkan's minimum is 4. */
  uint32_t max_storage_buffers_per_stage;
  uint32_t min_storage_buffer_offset_alignment;

  /* arithmetic and storage types (enabled on the device when true) */
  bool fp16_arith;     /* shaderFloat16 */
  bool int8_arith;     /* shaderInt8 */
  bool int16_arith;    /* shaderInt16 */
  bool int64_arith;    /* shaderInt64 */
  bool storage_16bit;  /* storageBuffer16BitAccess */
  bool storage_8bit;   /* storageBuffer8BitAccess */

  /* VK_NV_cooperative_matrix, VK_KHR_cooperative_matrix (enabled on the
   * device when true; VKML_COOPMAT=nv or =khr keeps only that one, for
   * comparisons). codegen/core/coopmat.h chooses which the kernels use. */
  bool coopmat_nv;
  bool coopmat_khr;
  /* vulkanMemoryModel enabled on the device: glslang 12 declares the Vulkan
   * memory model in every GL_NV_cooperative_matrix shader, so those kernels
   * need it. */
  bool vulkan_memory_model;
  int n_coopmat_shapes; /* both extensions' shapes, each marked */
  ir_coopmat_shape coopmat_shapes[IR_TARGET_MAX_COOPMAT];
  /* VK_NV_cooperative_matrix2 with workgroup scope, flexible dimensions,
   * per-element operations and tensor addressing (all enabled when true;
   * VKML_COOPMAT=nv or =khr turns it off too), and its workgroup-scope
   * f16 x f16 shapes: m, n, k are the granularities, and workgroups of
   * coopmat2_invocations[i] invocations run them. */
  bool coopmat2;
  uint32_t coopmat2_max_workgroup;
  int n_coopmat2_shapes;
  ir_coopmat_shape coopmat2_shapes[IR_TARGET_MAX_COOPMAT2];
  uint32_t coopmat2_invocations[IR_TARGET_MAX_COOPMAT2];

  bool push_descriptors; /* VK_KHR_push_descriptor in use */

  /* timing */
  float timestamp_period_ns; /* nanoseconds per timestamp tick */
  uint32_t timestamp_valid_bits; /* of the compute queue; 0: no timestamps */

  /* memory */
  int n_heaps;
  ir_target_heap heaps[IR_TARGET_MAX_HEAPS];
} ir_target;

static inline const char *ir_target_type_name(ir_target_type t) {
  switch (t) {
  case IR_TARGET_INTEGRATED_GPU: return "integrated-gpu";
  case IR_TARGET_DISCRETE_GPU: return "discrete-gpu";
  case IR_TARGET_VIRTUAL_GPU: return "virtual-gpu";
  case IR_TARGET_CPU: return "cpu";
  default: return "other";
  }
}

/* A GPU (integrated, discrete, virtual): the device types the defaults
 * measured on GPUs apply to, not a CPU device (lavapipe) or one of unknown
 * type. */
static inline bool ir_target_is_gpu(const ir_target *t) {
  return t->type == IR_TARGET_DISCRETE_GPU || t->type == IR_TARGET_INTEGRATED_GPU ||
         t->type == IR_TARGET_VIRTUAL_GPU;
}

/* The weakest Vulkan 1.1 compute device the specification allows (its
 * required minimum limits, no optional features). A schedule valid here is
 * valid on every device: templates check their default schedules against
 * it. */
static inline void ir_target_minimum(ir_target *t) {
  memset(t, 0, sizeof *t);
  strcpy(t->name, "vulkan-1.1-minimum");
  t->api_version = (1u << 22) | (1u << 12);
  t->subgroup_size = 1;
  t->subgroup_ops = IR_SUBGROUP_BASIC;
  t->max_shared_bytes = 16384;
  t->max_workgroup_size[0] = 128;
  t->max_workgroup_size[1] = 128;
  t->max_workgroup_size[2] = 64;
  t->max_workgroup_invocations = 128;
  t->max_workgroup_count[0] = 65535;
  t->max_workgroup_count[1] = 65535;
  t->max_workgroup_count[2] = 65535;
  t->max_push_constant_bytes = 128;
  t->max_storage_buffer_range = 1u << 27;
  t->max_storage_buffers_per_stage = 4;
  t->min_storage_buffer_offset_alignment = 256;
}

#endif
