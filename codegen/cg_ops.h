/* One entry point from an IR node to its GPU kernel: the op table's kernel
 * family (third column of IR_OPS) picks the instantiation function, as it
 * picks the CPU kernel. A family or a workload the GPU cannot run (dtype,
 * shape, device feature, or no GPU kernel yet) returns UNSUPPORTED, and the
 * node is placed on the CPU.
 *
 * Binding convention for every kernel: set 0, bindings 0..n_inputs-1 = the
 * node's inputs in order, then its outputs; each a dense C-order tensor of
 * its value's type (default layout). One node is one dispatch. */
#ifndef CG_OPS_H
#define CG_OPS_H

#include "codegen/cg_kernel.h"
#include "ir/graph.h"
#include "ir/target.h"

#define CG_FAMILIES(X)                                                         \
  X(unary) X(copy) X(cast) X(binary) X(variadic) X(where) X(conv2d)            \
  X(conv_transpose2d) X(gemm) X(matmul) X(batchnorm) X(instance_norm)          \
  X(layer_norm) X(pool) X(global_pool) X(softmax) X(resize) X(reduce)          \
  X(argminmax) X(transpose) X(concat) X(split) X(slice) X(pad) X(expand)       \
  X(tile) X(gather) X(gather_elements) X(topk) X(cumsum)                       \
  X(non_max_suppression) X(roi_align)

/* sched NULL: the template's default schedule. When a family has several
 * templates (e.g. conv2d direct / 1x1 / depthwise), sched_template names the
 * one a schedule belongs to (NULL: the family's own choice). */
#define X(f)                                                                   \
  vkml_status cg_node_##f(const ir_node *n, const cg_template *sched_template, \
                          const cg_schedule *sched, const ir_target *t,        \
                          cg_kernel *out);
CG_FAMILIES(X)
#undef X

/* Instantiates the GPU kernel for n (see above). */
vkml_status cg_kernel_for_node(const ir_node *n, const cg_template *sched_template,
                               const cg_schedule *sched, const ir_target *t,
                               cg_kernel *out);

#endif
