/* The CPU executor: runs a whole verified graph on the reference kernels. */
#ifndef RT_CPU_EXECUTOR_H
#define RT_CPU_EXECUTOR_H

#include "cpu_kernels.h"
#include "ir/graph.h"
#include "runtime/tensor.h"

/* Runs g. inputs[i] binds g->inputs[i]; its dtype and dims must be the
 * input's type, or fit in it for a bounded input (at most its capacity
 * along the bounded axis: ir_type_holds); a message names the input
 * otherwise. outputs receives
 * n_outputs == g->n_outputs freshly allocated tensors; the caller frees each
 * with rt_tensor_free (also on error: they are zeroed then). Intermediate
 * tensors are freed after their last use. */
vkml_status rt_cpu_run_graph(const ir_graph *g, const rt_tensor *inputs,
                             int n_inputs, rt_tensor *outputs, int n_outputs);

/* Same, and when node_seconds is non-NULL it receives the wall time of every
 * node, indexed by node id (g->n_nodes entries, zeroed first). */
vkml_status rt_cpu_run_graph_profiled(const ir_graph *g, const rt_tensor *inputs,
                                      int n_inputs, rt_tensor *outputs,
                                      int n_outputs, double *node_seconds);

/* Same, the kernels running as ctx says (its pool's threads; NULL: the
 * calling thread, fast paths on). */
vkml_status rt_cpu_run_graph_ctx(const rt_cpu_ctx *ctx, const ir_graph *g,
                                 const rt_tensor *inputs, int n_inputs, rt_tensor *outputs,
                                 int n_outputs, double *node_seconds);

#endif
