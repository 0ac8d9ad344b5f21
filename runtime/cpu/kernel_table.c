/* Maps every op of the op table to its family's CPU kernel. */
#include <stdarg.h>
#include <stdio.h>

#include "cpu_kernels.h"

static const rt_cpu_kernel kernels[IR_OP_COUNT] = {
#define X(id, name, family, ...) [IR_OP_##id] = rt_cpu_##family,
    IR_OPS(X)
#undef X
};

rt_cpu_kernel rt_cpu_kernel_for(ir_op op) {
  return (unsigned)op < IR_OP_COUNT ? kernels[op] : NULL;
}

vkml_status rt_cpu_error(const ir_node *n, vkml_code code, const char *fmt, ...) {
  char where[256], msg[512];
  ir_node_describe(n, where, sizeof where);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vkml_status_make(code, "%s: %s", where, msg);
}

vkml_status rt_cpu_run_node(const ir_node *n, const rt_tensor *const *in,
                            int n_in, rt_tensor *const *out, int n_out) {
  return rt_cpu_run_node_ctx(NULL, n, in, n_in, out, n_out);
}

vkml_status rt_cpu_run_node_ctx(const rt_cpu_ctx *ctx, const ir_node *n,
                                const rt_tensor *const *in, int n_in,
                                rt_tensor *const *out, int n_out) {
  rt_cpu_kernel k = rt_cpu_kernel_for(n->op);
  if (!k) return rt_cpu_error(n, VKML_CODE_INTERNAL, "no CPU kernel");
  if (n_in != n->n_inputs || n_out != n->n_outputs)
    return rt_cpu_error(n, VKML_CODE_INTERNAL, "tensor count mismatch");
  rt_cpu_args a = {n, in, n_in, out, n_out, ctx};
  return k(&a);
}
