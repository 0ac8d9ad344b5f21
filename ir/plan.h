/* ir_plan: a graph compiled for execution — what codegen produces and the
 * runtime executes (and what the .vkm artifact will serialize), so it lives in
 * ir/ and holds only plain data: no pointers into codegen or runtime structs.
 *
 * One step per node of the graph, in graph order. A GPU step names its
 * SPIR-V module (an index into the plan's module table; identical modules are
 * stored once), its buffer bindings as value ids (the node's inputs in order,
 * then its outputs: codegen/core/ops.h's convention), specialization constants,
 * push-constant bytes, the workgroup grid, and its provenance (workload key,
 * template, schedule). A CPU step runs the node on the reference kernels and
 * records why it is not on the GPU. A transfer step (the placement pass's
 * download and upload nodes) copies its input between host and device
 * memory; it is the only place data crosses: a CPU step reads what CPU
 * steps, transfers to the host, graph inputs and constants hold, a GPU step
 * what GPU steps, uploads, graph inputs and constants hold (ir_plan_check).
 *
 * Variable-length data lives in pools owned by the plan (bindings, specs,
 * push bytes, strings); steps refer to them by index, so the whole plan is a
 * handful of flat arrays. Strings are offsets into `strings` (offset 0 is "").
 *
 * A plan owns the graph it runs (`graph`, what the pass pipeline left:
 * placed, converted, with its transfer nodes): a plan and its graph travel
 * together and callers never pair them up by hand. */
#ifndef IR_PLAN_H
#define IR_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "memplan.h"
#include "target.h"

typedef enum ir_precision {
  IR_PRECISION_FP32 = 0,
  IR_PRECISION_FP16, /* f32 tensors stored as f16 inside the graph */
} ir_precision;

typedef struct ir_plan_module {
  uint32_t *words; /* SPIR-V, plan-owned */
  uint64_t bytes;
  char name[64];   /* template file, for messages */
} ir_plan_module;

typedef struct ir_plan_spec {
  uint32_t id, value;
} ir_plan_spec;

/* What a transfer step copies. */
typedef enum ir_transfer {
  IR_TRANSFER_NONE = 0,
  IR_TRANSFER_DOWNLOAD, /* device buffer -> host tensor */
  IR_TRANSFER_UPLOAD,   /* host tensor -> device buffer */
} ir_transfer;

/* A GPU step whose kernel can meet bad data (an index out of range) binds
 * one buffer more, after its outputs: IR_PLAN_ERROR_BINDING, the step's
 * error slot (IR_PLAN_ERROR_SLOT_WORDS u32 words the executor gives it,
 * zero before each run). The kernel records the first bad element there
 * (codegen/glsl/device_error.glsl: word 0 the kind, then the element, the
 * bad value as two words, the axis and its size); the run checks every slot
 * once at its end and reports the first like the CPU kernel would
 * (runtime/vk/vk_errors.c). */
#define IR_PLAN_ERROR_BINDING (-1)
#define IR_PLAN_ERROR_SLOT_WORDS 8
enum {
  IR_DEVICE_ERROR_NONE = 0,
  IR_DEVICE_ERROR_INDEX = 1,
  IR_DEVICE_ERROR_ROI_BATCH = 2,
  /* two bounded inputs of different run-time sizes (words: 1 and 4 the
   * inputs, 2 and 5 their sizes) */
  IR_DEVICE_ERROR_EXTENTS = 3,
  /* a TopK's run-time k outside [0, the row's count] (words: 2-3 k, 5 the
   * count) */
  IR_DEVICE_ERROR_TOPK_K = 4
};

/* GPU step flags. IR_STEP_COPY_IN0: before the dispatch, the executor
 * copies input 0's bytes into output 0 (same type): a scatter's kernel then
 * writes only the updates, in place. IR_STEP_EXTENT_FROM(i): the kernel
 * runs over bounded input i's capacity (codegen/core/extent.h); before the
 * dispatch the executor copies that input's extent word (ir/graph.h) into
 * every output's, all bounded with the same capacity — unless
 * IR_STEP_EXTENT_KERNEL says the kernel copies it itself (its first
 * invocation, codegen/core/template.c cg_kernel_compile): no copy command and
 * no barrier of its own in front of the dispatch. */
enum {
  IR_STEP_COPY_IN0 = 1u << 0,
  IR_STEP_EXTENT_KERNEL = 1u << 1,
  IR_STEP_EXTENT_SHIFT = 8,
  IR_STEP_EXTENT_MASK = 0xffu << IR_STEP_EXTENT_SHIFT,
  IR_STEP_FLAGS_ALL = IR_STEP_COPY_IN0 | IR_STEP_EXTENT_KERNEL | IR_STEP_EXTENT_MASK
};
#define IR_STEP_EXTENT_FROM(i) ((uint32_t)((i) + 1) << IR_STEP_EXTENT_SHIFT)
/* The input index of an IR_STEP_EXTENT_FROM flag, or -1. */
#define IR_STEP_EXTENT_INPUT(flags) \
  ((int)(((flags) & IR_STEP_EXTENT_MASK) >> IR_STEP_EXTENT_SHIFT) - 1)
/* The input whose extent word the executor copies before the dispatch, or
 * -1 (none, or the kernel copies it: IR_STEP_EXTENT_KERNEL). */
#define IR_STEP_EXTENT_COPY_INPUT(flags) \
  (((flags) & IR_STEP_EXTENT_KERNEL) ? -1 : IR_STEP_EXTENT_INPUT(flags))

/* Workgroups a step may launch beyond 4 per element of its tensors (a few
 * for empty tensors; see ir_plan_check). */
#define IR_PLAN_GRID_SLACK 1024

typedef struct ir_plan_step {
  int32_t node;     /* node id in the plan's graph */
  ir_device device; /* IR_DEVICE_GPU; IR_DEVICE_CPU for CPU and transfer steps */
  ir_transfer transfer; /* a transfer step (the host drives the copy) */
  /* GPU steps (zero / -1 on the CPU) */
  int32_t module;     /* index into modules */
  int32_t n_bindings; /* node inputs, then outputs (then the error slot) */
  int32_t bindings;   /* first index in plan->bindings */
  int32_t n_spec, spec; /* count, first index in plan->specs */
  uint32_t push_bytes;
  int32_t push;       /* first byte in plan->push */
  uint32_t groups[3]; /* at most 4 x the elements of its tensors +
                         IR_PLAN_GRID_SLACK workgroups in all (ir_plan_check) */
  uint32_t flags; /* IR_STEP_* */
  int32_t key, tmpl, schedule; /* provenance: offsets into strings */
  /* CPU steps */
  int32_t reason; /* why not on the GPU (offset into strings) */
} ir_plan_step;

typedef struct ir_plan {
  ir_precision precision;
  ir_graph *graph; /* the graph the plan runs, owned (freed with the plan) */
  int32_t graph_nodes, graph_values; /* n_nodes / n_values of the graph the
                                        steps refer to (a consistency check) */
  int n_steps;
  ir_plan_step *steps;
  int n_modules;
  ir_plan_module *modules;
  int n_bindings;
  int32_t *bindings; /* value ids */
  int n_specs;
  ir_plan_spec *specs;
  uint64_t push_bytes;
  uint8_t *push;
  uint64_t strings_bytes;
  char *strings;
  /* Where the intermediates GPU steps bind live in the executor's one arena
   * (by value id of the plan's graph); no tables (mem.offsets NULL): every
   * value its own buffer. Owned; freed by ir_plan_destroy. */
  ir_memplan mem;
  /* Memory the plan's graph borrows (an artifact's mapped file: the
   * weights blob points into it), released after the graph by
   * ir_plan_destroy; NULL: none. */
  void *backing;
  uint64_t backing_bytes;
  void (*backing_release)(void *backing, uint64_t bytes);
  /* capacities (internal) */
  int cap_steps, cap_modules, cap_bindings, cap_specs;
  uint64_t cap_push, cap_strings;
} ir_plan;

/* Device features a plan's kernels need (from their SPIR-V capabilities). */
enum {
  IR_NEED_FP16_ARITH = 1u << 0,   /* Float16: shaderFloat16 */
  IR_NEED_INT8_ARITH = 1u << 1,   /* Int8 */
  IR_NEED_INT16_ARITH = 1u << 2,  /* Int16 */
  IR_NEED_INT64_ARITH = 1u << 3,  /* Int64 */
  IR_NEED_STORAGE_16BIT = 1u << 4, /* StorageBuffer16BitAccess */
  IR_NEED_STORAGE_8BIT = 1u << 5,  /* StorageBuffer8BitAccess */
  IR_NEED_COOPMAT_NV = 1u << 6,    /* CooperativeMatrixNV */
  IR_NEED_VULKAN_MEMORY_MODEL = 1u << 7,
  IR_NEED_COOPMAT_KHR = 1u << 8,   /* CooperativeMatrixKHR */
  IR_NEED_COOPMAT2 = 1u << 9,      /* the VK_NV_cooperative_matrix2 capabilities */
};
typedef struct ir_plan_needs {
  uint32_t features;     /* IR_NEED_* */
  uint32_t subgroup_ops; /* IR_SUBGROUP_* (GroupNonUniform* capabilities) */
} ir_plan_needs;

/* What a GPU step adds (arrays borrowed for the call; strings may be NULL). */
typedef struct ir_plan_gpu_desc {
  int32_t node;
  int32_t module;
  const int32_t *bindings;
  int n_bindings;
  const ir_plan_spec *specs;
  int n_specs;
  const void *push; /* push_bytes bytes, NULL: zeros */
  uint32_t push_bytes;
  uint32_t groups[3];
  uint32_t flags; /* IR_STEP_* */
  const char *key, *tmpl, *schedule;
} ir_plan_gpu_desc;

/* An empty plan (no graph yet); free with ir_plan_destroy (which also
 * destroys plan->graph). */
vkml_status ir_plan_create(ir_plan **out);
void ir_plan_destroy(ir_plan *p);

/* Adds a SPIR-V module (copied) unless an identical one is there; *index is
 * its index either way. */
vkml_status ir_plan_add_module(ir_plan *p, const char *name, const uint32_t *words,
                               uint64_t bytes, int32_t *index);
vkml_status ir_plan_add_gpu_step(ir_plan *p, const ir_plan_gpu_desc *d);
vkml_status ir_plan_add_cpu_step(ir_plan *p, int32_t node, const char *reason);
vkml_status ir_plan_add_transfer_step(ir_plan *p, int32_t node, ir_transfer t);

/* String at a pool offset ("" for a bad one). */
const char *ir_plan_str(const ir_plan *p, int32_t off);
static inline const int32_t *ir_plan_step_bindings(const ir_plan *p, const ir_plan_step *s) {
  return p->bindings + s->bindings;
}

/* Whether GPU step s binds an error slot (its last binding). */
static inline bool ir_plan_step_checks(const ir_plan *p, const ir_plan_step *s) {
  return s->n_bindings > 0 && ir_plan_step_bindings(p, s)[s->n_bindings - 1] == IR_PLAN_ERROR_BINDING;
}
/* Sets bound[id] for every value a GPU step binds (bound has n_values
 * entries, cleared by the caller). */
void ir_plan_mark_bound(const ir_plan *p, bool *bound);

/* Checks that p fits g (its own graph, or one read from a file with it): one step per node in
 * graph order, bindings equal to each GPU node's inputs then outputs (and an error
 * slot), pool
 * ranges and module indices in bounds, non-empty grids, transfer steps for
 * download/upload nodes only, and no value crossing between devices except
 * through a transfer step. A plan that came from
 * a file is checked before use; INVALID_ARGUMENT names the step. */
vkml_status ir_plan_check(const ir_plan *p, const ir_graph *g);

/* What p's SPIR-V modules declare they need (their OpCapability
 * instructions that map to a device feature); INVALID_ARGUMENT for a
 * module that is no SPIR-V (a damaged plan), naming it. */
vkml_status ir_plan_needs_get(const ir_plan *p, ir_plan_needs *out);
/* UNSUPPORTED naming the first feature in needs that t lacks, or OK. */
vkml_status ir_target_check_needs(const ir_target *t, const ir_plan_needs *needs);

/* Steps on each device, and transfer steps (each may be NULL). */
void ir_plan_counts(const ir_plan *p, int *n_gpu, int *n_cpu, int *n_transfer);

#endif
