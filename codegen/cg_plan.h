/* cg_plan_build: compiles a graph into an ir_plan (ir/plan.h) for one
 * target — placement (pass 1 of DESIGN.md's device placement, in spirit),
 * kernel instantiation and SPIR-V compilation of every GPU node.
 *
 * Placement, per node in graph order: CPU if its op is forced there
 * (opts.cpu_ops) or the IR places the node there (`@cpu`), if an input or output has a bounded (data-dependent) shape,
 * or if a tensor it binds exceeds the device's storage-buffer range; else GPU
 * when its kernel instantiates (cg_kernel_for_node, default schedule), CPU
 * with the kernel's UNSUPPORTED reason otherwise. The CPU steps' reasons are
 * kept in the plan for --profile and listings. Any other kernel error (a bug,
 * a GLSL compile error) fails the build naming the node.
 *
 * Layouts: when opts.layout asks for a packed layout or the graph annotates
 * a value with one, the plan runs a copy of the graph rewritten by
 * pass_layout (packed nodes, reorder nodes at the edges of packed regions,
 * graph inputs and outputs row-major); the mask comes from
 * cg_node_layout_operands for nodes that are not kept on the CPU.
 *
 * Precision fp16: the plan runs a converted copy of the graph that it owns
 * (ir_plan.graph), made by cg_graph_to_fp16 below. Converting the graph (not
 * asking each kernel for f16) keeps the kernels' contract simple — they
 * instantiate for the dtypes they see — and keeps CPU-placed nodes exact
 * to what the GPU computes around them (the reference kernels run on f16
 * tensors too). The caller still sees f32 inputs and outputs.
 *
 * Memory: the intermediates that GPU steps bind share one arena, placed by
 * passes/plan_memory (opts.memory_planner) into plan->mem; graph inputs,
 * outputs and constants keep buffers of their own. */
#ifndef CG_PLAN_H
#define CG_PLAN_H

#include <stdbool.h>

#include "codegen/cg_kernel.h"
#include "ir/graph.h"
#include "ir/memplan.h"
#include "ir/plan.h"
#include "ir/target.h"

/* Chooses and instantiates the kernel of one node (the tuner and the tests
 * plug in here); UNSUPPORTED places the node on the CPU. */
typedef vkml_status (*cg_kernel_chooser)(void *user, const ir_node *n, const ir_target *t,
                                         cg_kernel *out);

/* Valid when zero-initialized. */
typedef struct cg_plan_opts {
  ir_precision precision;
  /* Ops forced onto the CPU, comma-separated: IR names ("conv2d") or ONNX
   * spellings ("Conv", "NonMaxSuppression"); NULL or "" for none. An
   * unknown name is an INVALID_ARGUMENT error. */
  const char *cpu_ops;
  cg_compiler *compiler; /* NULL: one with default options, for the call */
  cg_kernel_chooser choose; /* NULL: cg_kernel_for_node, default schedules */
  void *choose_user;
  /* IR_LAYOUT_NC4HW4: every node whose GPU kernel can run packed does
   * (passes/pass_layout.h, assign_all). Default: only the nodes whose
   * outputs the graph annotates as packed. */
  ir_layout layout;
  /* How the intermediates share the arena (zero: IR_MEMPLAN_BEST). */
  ir_memplan_strategy memory_planner;
} cg_plan_opts;

/* Builds the plan of g (verified) for target t. *out is freed with
 * ir_plan_destroy; it must not outlive g (unless it owns a converted graph,
 * it refers to g's nodes and values by id). Errors: a bad cpu_ops list,
 * fp16 on a device without 16-bit storage (UNSUPPORTED), a kernel or shader
 * compile failure (naming the node). */
vkml_status cg_plan_build(const ir_graph *g, const ir_target *t, const cg_plan_opts *opts,
                          ir_plan **out);

/* The memory plan of a built plan p (its graph: ir_plan_graph(p, g)) with
 * strategy s, for target t: every intermediate a GPU step binds, its storage
 * bytes rounded up to 16 (kernels' last vector access stays inside), offsets
 * aligned to minStorageBufferOffsetAlignment. cg_plan_build stores one in
 * p->mem; `vkc run --stats` compares them. *out is freed with
 * ir_memplan_free. */
vkml_status cg_plan_memory(const ir_plan *p, const ir_graph *g, const ir_target *t,
                           ir_memplan_strategy s, ir_memplan *out);

/* Parses a --cpu-ops list into mask[IR_OP_COUNT] (true: forced to the CPU).
 * Names are matched ignoring case and '_', plus the ONNX spellings whose IR
 * op has another name (Conv, ConvTranspose, BatchNormalization,
 * InstanceNormalization, LayerNormalization, AveragePool, GlobalAveragePool,
 * ...). */
vkml_status cg_cpu_ops_parse(const char *list, bool *mask);

/* A copy of g in which every f32 value (intermediates and constants) is f16:
 * constants are converted (round to nearest even), casts to f32 become casts
 * to f16, f32 graph inputs and outputs keep their type and names with cast
 * nodes next to them. A node whose shape inference refuses f16 stays in f32
 * with casts around it; a node without float outputs (cast to int,
 * comparison, argmax) reads exact f32 inputs where they exist anyway (graph
 * inputs, constants). The copy owns its weights; *out is freed with
 * ir_graph_destroy. */
vkml_status cg_graph_to_fp16(const ir_graph *g, ir_graph **out);

#endif
