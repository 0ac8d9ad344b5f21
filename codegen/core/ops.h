/* One entry point from an IR node to its GPU kernel: the op table's kernel
 * family (the family column of IR_OPS) picks the instantiation function,
 * cg_node_<family> in codegen/kernels/, as it picks the CPU kernel. A family or a workload the GPU cannot run (dtype,
 * shape, device feature, or no GPU kernel yet) returns UNSUPPORTED, and the
 * node is placed on the CPU.
 *
 * Binding convention for every kernel: set 0, bindings 0..n_inputs-1 = the
 * node's inputs in order, then its outputs; each a dense tensor of its
 * value's type in its value's layout (C order unless packed, see below).
 * One node is one dispatch. */
#ifndef CG_CORE_OPS_H
#define CG_CORE_OPS_H

#include "codegen/core/kernel.h"
#include "ir/graph.h"
#include "ir/target.h"

/* sched NULL: the template's default schedule. When a family has several
 * templates (e.g. conv2d direct / 1x1 / depthwise), sched_template names the
 * one a schedule belongs to (NULL: the family's own choice). */
#define X(id, name, family, ...)                                             \
  vkml_status cg_node_##family(const ir_node *n, const cg_template *sched_template, \
                               const cg_schedule *sched, const ir_target *t, cg_kernel *out);
IR_OPS(X)
#undef X

/* The instantiation function of n's family, as cg_kernel_for_node calls it
 * (a packed global pool: pool2d's window over the plane), without the
 * layout guard and the bounded-operand conventions in front of it: for
 * core/layout.c, which instantiates packed copies of a node. */
typedef vkml_status (*cg_node_fn)(const ir_node *n, const cg_template *sched_template,
                                  const cg_schedule *sched, const ir_target *t, cg_kernel *out);
cg_node_fn cg_node_fn_for(const ir_node *n);

/* The bounded-rows copy (kernels/rows_copy.c, glsl/rows_copy.comp): the
 * kernel of an IR_OPF_ROWS_COPY node with a bounded operand that does not
 * run as its unbounded twin (extent.h): a slice of bounded x to its first
 * rows (start 0, step 1, an end >= 0 along the bounded axis, other axes
 * whole), or a reshape (flatten, squeeze, unsqueeze, identity) of bounded x
 * whose rows lead into y whose rows lead, each x row whole y rows
 * ([<=150,20,4] -> [<=3000,4]); UNSUPPORTED otherwise. */
vkml_status cg_node_rows_copy(const ir_node *n, const cg_template *sched_template,
                              const cg_schedule *sched, const ir_target *t, cg_kernel *out);

/* Packed layouts (ir/graph.h, IR_LAYOUT_NC4HW4). A kernel reads and writes
 * each operand in its value's layout. The operands a node's GPU kernel can
 * take packed — its rank-4 activations: conv2d x and y, pool x and y, unary
 * x and y, a binary op's a, b and y when all three have the same shape,
 * every part and the whole of a concat or split along the channels (at most
 * 16 parts), a reorder's either side — as a mask: bit i = input i, bit 16 + i = output i;
 * 0 when the node runs in the default layout only. All-or-none: a node whose
 * mask is non-zero runs either with every operand of the mask packed or with
 * none (a reorder: any combination). Weights, bias and every other operand
 * stay in the default layout. Every other family refuses (UNSUPPORTED) a
 * non-default operand. */
#define CG_LAYOUT_OUT(i) (1u << (16 + (i)))
uint32_t cg_node_layout_operands(const ir_node *n, ir_layout l);
/* The same for layout l on target t: nhwc (activations) depends on the
 * device (a conv2d runs nhwc x and y on the cooperative-matrix templates
 * only; the elementwise ops over one shape anywhere); nc4hw4 does not (t
 * is not consulted). cg_node_layout_operands(n, nhwc) is 0. */
uint32_t cg_node_layout_operands_on(const ir_node *n, ir_layout l, const ir_target *t);

/* Instantiates the GPU kernel for n (see above). */
vkml_status cg_kernel_for_node(const ir_node *n, const cg_template *sched_template,
                               const cg_schedule *sched, const ir_target *t,
                               cg_kernel *out);

#endif
