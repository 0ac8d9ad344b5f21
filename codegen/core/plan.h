/* cg_plan_build: compiles a placed graph into an ir_plan (ir/plan.h) for
 * one target: kernel instantiation and SPIR-V compilation of every GPU node.
 *
 * The graph comes from the pass pipeline (passes/pipeline.h), which did the
 * fp16 conversion (opts.precision says it did: checked against the device,
 * recorded in the plan), placement and layout. The passes ask codegen
 * through the callbacks below: cg_query_place (pass 1 of placement: why a
 * node cannot run on the GPU — --cpu-ops, no kernel for it, too many
 * bindings, a bounded or too large tensor — or NULL) and
 * cg_query_layout_operands (which operands a node's kernel takes packed).
 *
 * Steps follow the graph exactly: a @cpu node is a CPU step (its
 * cpu_reason kept for --profile and listings), a download/upload a transfer
 * step, every other node a GPU step; a node left unplaced is compiled for
 * the GPU (a single-node graph of the tuner needs no placement) and a
 * kernel error then names it. The plan is checked (ir_plan_check) before it
 * is returned: a value crossing devices without a transfer fails the build.
 *
 * Memory: the intermediates that GPU steps bind share one arena, placed by
 * the planner the caller passes in (opts.plan_memory: passes/plan_memory's
 * pass_plan_memory, strategy opts.memory_planner) into plan->mem; graph
 * inputs, outputs and constants keep buffers of their own. Without a planner
 * every value gets its own buffer. */
#ifndef CG_PLAN_H
#define CG_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "codegen/core/kernel.h"
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

/* Builds the plan of g (verified; from the pass pipeline) for target t. On
 * success the plan owns g (plan->graph, freed by ir_plan_destroy): the
 * caller lets go of it and reaches the graph through the plan. On error g
 * is still the caller's. Errors: fp16 on a device
 * without 16-bit storage (UNSUPPORTED), a kernel or shader compile failure
 * (naming the node), a crossing without its transfer. */
vkml_status cg_plan_build(ir_graph *g, const ir_target *t, const cg_plan_opts *opts,
                          ir_plan **out);

/* The memory plan of a built plan p (over p->graph) with strategy s, for target t: every intermediate a GPU step binds, its storage
 * bytes rounded up to 16 (kernels' last vector access stays inside), offsets
 * aligned to minStorageBufferOffsetAlignment. cg_plan_build stores one in
 * p->mem; `vkc run --stats` compares them. planner NULL: *out stays empty.
 * *out is freed with ir_memplan_free. */
vkml_status cg_plan_memory(const ir_plan *p, const ir_target *t, ir_memplan_fn planner,
                           ir_memplan_strategy s, ir_memplan *out);

/* What the placement and layout passes ask codegen (passes/pass.h's
 * pass_place_fn and pass_layout_operands_fn; pass &query as their user).
 * Initialise with the target and the ops forced onto the CPU
 * (cpu_ops[IR_OP_COUNT], NULL: none; the tools parse --cpu-ops with the
 * driver's drv_op_list_parse); q must outlive the pipeline run.
 *
 * cg_query_place: why n cannot run on the GPU, or NULL.
 * cg_query_layout_operands: the activations n's GPU kernel can take in
 * layout (IR_LAYOUT_NC4HW4, or IR_LAYOUT_NHWC on this target:
 * cg_node_layout_operands_on), 0 for a node on the CPU.
 * cg_query_layout_weights: the constants n's GPU kernel reads tap-major
 * (IR_LAYOUT_NHWC: a conv2d's weights, cg_conv2d_weight_layouts), 0 for a
 * node on the CPU. */
typedef struct cg_query {
  const ir_target *t;
  bool forced[IR_OP_COUNT];
} cg_query;
void cg_query_init(cg_query *q, const ir_target *t, const bool *cpu_ops);
const char *cg_query_place(void *user, const ir_node *n, char *why, size_t bytes);
uint32_t cg_query_layout_operands(void *user, const ir_node *n, ir_layout layout);
uint32_t cg_query_layout_weights(void *user, const ir_node *n, ir_layout layout);

#endif
