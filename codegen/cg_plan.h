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
 * The graph comes from the pass pipeline (passes/pipeline.h), which did
 * the fp16 conversion (opts.precision says it did: checked against the
 * device, recorded in the plan) and the layout assignment; the pipeline
 * asks codegen which operands a node's kernel can take packed through
 * cg_layout_query_operands, and a node with a packed operand never goes to
 * the CPU here (an error names it).
 *
 * Memory: the intermediates that GPU steps bind share one arena, placed by
 * the planner the caller passes in (opts.plan_memory: passes/plan_memory's
 * pass_plan_memory, strategy opts.memory_planner) into plan->mem; graph
 * inputs, outputs and constants keep buffers of their own. Without a planner
 * every value gets its own buffer. */
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
  /* IR_PRECISION_FP16: the graph was converted by the pass pipeline; the
   * device must have 16-bit storage. Recorded in the plan. */
  ir_precision precision;
  /* Ops forced onto the CPU, comma-separated: IR names ("conv2d") or ONNX
   * spellings ("Conv", "NonMaxSuppression"); NULL or "" for none. An
   * unknown name is an INVALID_ARGUMENT error. */
  const char *cpu_ops;
  cg_compiler *compiler; /* NULL: one with default options, for the call */
  cg_kernel_chooser choose; /* NULL: cg_kernel_for_node, default schedules */
  void *choose_user;
  /* The memory planner (pass_plan_memory; codegen may not include passes/,
   * so the caller hands it in, as the pass pipeline hands in codegen's
   * layout query). NULL: no arena, every value its own buffer. */
  ir_memplan_fn plan_memory;
  /* Its strategy (zero: IR_MEMPLAN_BEST). */
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
 * p->mem; `vkc run --stats` compares them. planner NULL: *out stays empty.
 * *out is freed with ir_memplan_free. */
vkml_status cg_plan_memory(const ir_plan *p, const ir_graph *g, const ir_target *t,
                           ir_memplan_fn planner, ir_memplan_strategy s, ir_memplan *out);

/* Parses a --cpu-ops list into mask[IR_OP_COUNT] (true: forced to the CPU).
 * Names are matched ignoring case and '_', plus the ONNX spellings whose IR
 * op has another name (Conv, ConvTranspose, BatchNormalization,
 * InstanceNormalization, LayerNormalization, AveragePool, GlobalAveragePool,
 * ...). */
vkml_status cg_cpu_ops_parse(const char *list, bool *mask);

/* What the layout pass asks codegen (passes/pass.h, pass_layout_operands_fn):
 * the operands n's GPU kernel can take packed, 0 for a node that stays on
 * the CPU (forced by cpu_ops, @cpu, too many bindings, a bounded or too
 * large tensor). Initialise with the target and --cpu-ops list the plan will
 * be built with; q must outlive the pipeline run. */
typedef struct cg_layout_query {
  const ir_target *t;
  bool forced[IR_OP_COUNT];
} cg_layout_query;
vkml_status cg_layout_query_init(cg_layout_query *q, const ir_target *t, const char *cpu_ops);
uint32_t cg_layout_query_operands(void *user, const ir_node *n, ir_layout layout);

#endif
