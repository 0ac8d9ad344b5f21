/* CPU reference kernels: plain, obviously-correct C for every op family of
 * the op table. They are the oracle for GPU kernels and the fallback executor
 * for CPU-placed nodes: correctness beats speed here, except that conv2d,
 * conv_transpose2d, gemm and float matmul take a blocked fp32 fast path (k_sgemm.h) unless
 * rt_cpu_ctx.reference asks for the plain loops.
 *
 * A kernel reads its inputs and the node's attributes and writes its outputs.
 * The executor allocates each output with the capacity of the node's output
 * type and sets its dims; a kernel with data-dependent output size (topk with
 * a runtime k, non_max_suppression) overwrites dims with the actual size. */
#ifndef RT_CPU_KERNELS_H
#define RT_CPU_KERNELS_H

#include "ir/graph.h"
#include "runtime/tensor.h"

struct rt_threads;

/* How kernels run. NULL, or zero-initialized: the fast paths (conv, gemm,
 * matmul in fp32, within fp32 rounding of the reference) on the calling
 * thread alone. */
typedef struct rt_cpu_ctx {
  struct rt_threads *pool; /* threads for the fast paths (threads.h); NULL: none */
  bool reference;           /* the plain loops in double only: the oracle */
} rt_cpu_ctx;

typedef struct rt_cpu_args {
  const ir_node *node;
  const rt_tensor *const *in; /* n_in inputs, actual sizes */
  int n_in;
  rt_tensor *const *out; /* n_out outputs, allocated by the caller */
  int n_out;
  const rt_cpu_ctx *ctx; /* NULL: defaults */
} rt_cpu_args;

typedef vkml_status (*rt_cpu_kernel)(const rt_cpu_args *a);

/* One function per op family (the family column of IR_OPS; a family
 * serving several ops is declared once per op, which C allows). */
#define X(id, name, family, ...) vkml_status rt_cpu_##family(const rt_cpu_args *a);
IR_OPS(X)
#undef X

/* The kernel for an op (every op has one). */
rt_cpu_kernel rt_cpu_kernel_for(ir_op op);

/* Runs one node on host tensors: checks arity, runs the kernel. */
vkml_status rt_cpu_run_node(const ir_node *n, const rt_tensor *const *in,
                            int n_in, rt_tensor *const *out, int n_out);
/* The same, the kernels running as ctx says (NULL: as rt_cpu_run_node). */
vkml_status rt_cpu_run_node_ctx(const rt_cpu_ctx *ctx, const ir_node *n,
                                const rt_tensor *const *in, int n_in,
                                rt_tensor *const *out, int n_out);

/* Runs n on dense bytes: in[i] holds n->inputs[i]'s type, out[i] has room
 * for n->outputs[i]'s (static) type. The shape of passes/pass.h's
 * pass_eval_fn, so a compiler can hand it to constant folding without
 * runtime/ knowing passes/; user is unused. */
vkml_status rt_cpu_eval_node(void *user, const ir_node *n, const void *const *in,
                             void *const *out);

/* Helper for kernel error messages: UNSUPPORTED / INVALID_ARGUMENT statuses
 * naming the node. */
vkml_status rt_cpu_error(const ir_node *n, vkml_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
