/* Work and traffic of a node, for GFLOP/s and GB/s in profiles and sweeps
 * (see cost.h). */
#include "cost.h"

#include <string.h>

/* 2 per multiply-add for conv / gemm / matmul / attention, 1 per output element for
 * elementwise families, 0 (unknown) otherwise. */
double ir_node_flops(const ir_node *n) {
  if (!n->n_outputs) return 0;
  const ir_type *y = &n->outputs[0]->type;
  double out = (double)ir_type_numel(y);
  const char *fam = ir_op_family(n->op);
  if (!strcmp(fam, "conv2d") && n->n_inputs >= 2 && n->inputs[1]->type.rank == 4) {
    const int64_t *w = n->inputs[1]->type.dims;
    return 2 * out * (double)(w[1] * w[2] * w[3]);
  }
  if (!strcmp(fam, "conv_transpose2d") && n->n_inputs >= 2 && n->inputs[1]->type.rank == 4) {
    const int64_t *w = n->inputs[1]->type.dims;
    return 2 * (double)ir_type_numel(&n->inputs[0]->type) * (double)(w[1] * w[2] * w[3]);
  }
  if ((!strcmp(fam, "matmul") || !strcmp(fam, "gemm")) && n->n_inputs >= 2) {
    const ir_type *a = &n->inputs[0]->type;
    int64_t k = a->rank ? a->dims[a->rank - 1] : 1;
    if (n->op != IR_OP_MATMUL && ir_node_int(n, IR_A_TRANS_A, 0) && a->rank == 2) k = a->dims[0];
    return 2 * out * (double)k;
  }
  if (n->op == IR_OP_ATTENTION && n->n_inputs >= 3) {
    /* its two products: q . kt and p . v (the softmax's exps not counted) */
    const ir_type *q = &n->inputs[0]->type, *kt = &n->inputs[1]->type;
    if (q->rank < 2) return 0;
    double rows = (double)ir_type_numel(q) / (double)q->dims[q->rank - 1];
    double keys = (double)kt->dims[kt->rank - 1];
    return 2 * rows * keys * (double)q->dims[q->rank - 1] + 2 * out * keys;
  }
  if (!strcmp(fam, "unary") || !strcmp(fam, "binary") || !strcmp(fam, "variadic") ||
      !strcmp(fam, "where"))
    return out;
  return 0;
}

/* Every input, weight and output once. */
double ir_node_bytes(const ir_node *n) {
  double b = 0;
  for (int i = 0; i < n->n_inputs; i++) b += (double)ir_type_bytes(&n->inputs[i]->type);
  for (int i = 0; i < n->n_outputs; i++) b += (double)ir_type_bytes(&n->outputs[i]->type);
  return b;
}

