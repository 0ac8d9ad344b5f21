/* pass_plan_memory: places the intermediate tensors of a graph in one device
 * arena (ir/memplan.h), by one of four strategies:
 *
 *   naive   every tensor its own space (the baseline);
 *   greedy  TFLite-GPU's Algorithm 1 (Lee et al. 2019): nodes in order, each
 *           intermediate output takes the free shared object closest in size
 *           (growing it when smaller), objects are freed after their tensor's
 *           last reader; objects are then laid out one after another;
 *   mcfp    the same paper's minimum-cost-flow assignment of tensors to
 *           shared objects (successive shortest paths with potentials);
 *   best    (default) offset packing by lifetime: tensors sorted by a few
 *           orderings (size, lifetime, area, start), each placed in the
 *           best-fitting gap left by the tensors live at the same time; the
 *           smallest of those and of the greedy and mcfp layouts wins, so it
 *           is never larger than either.
 *
 * Which values go in the arena and how many bytes each takes is the caller's
 * (opts.size: codegen asks for the values GPU steps bind, rounded for vector
 * access); graph inputs, graph outputs and constants never do. Views
 * (ir_node_is_view) of an arena value get no storage of their own: they alias
 * the root, which then lives until the last reader of any alias. The lower
 * bound (largest sum of storage bytes live at one step) is filled in for
 * every strategy.
 *
 * A pure function of the graph rather than an in-place pass: the graph is
 * not changed, the result goes into the plan. */
#ifndef PASS_PLAN_MEMORY_H
#define PASS_PLAN_MEMORY_H

#include "ir/graph.h"
#include "ir/memplan.h"

/* The options are ir/memplan.h's (codegen receives this function as an
 * ir_memplan_fn through cg_plan_opts). */
typedef ir_memplan_opts pass_memplan_opts;

/* Plans g (verified, nodes in execution order) into *out, which the caller
 * frees with ir_memplan_free (also on error: *out is then empty). */
vkml_status pass_plan_memory(const ir_graph *g, const pass_memplan_opts *opts, ir_memplan *out);

#endif
