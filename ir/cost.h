/* A node's arithmetic and memory traffic, counted from its types: what a
 * profile divides by time to get GFLOP/s and GB/s. */
#ifndef IR_COST_H
#define IR_COST_H

#include "graph.h"

/* 2 per multiply-add for conv / conv-transpose / gemm / matmul, 1 per
 * output element for the elementwise families, 0 (unknown) otherwise. */
double ir_node_flops(const ir_node *n);
/* Every input (weights included) and output read or written once. */
double ir_node_bytes(const ir_node *n);

#endif
