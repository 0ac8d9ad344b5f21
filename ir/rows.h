/* Bounded rows through an op: the IR side of running a node over a bounded
 * value's capacity (codegen/core/extent.h decides whether a node's GPU
 * kernel does so). Each op's rule is the rows column of its op row (ops.h
 * IR_OPS, ir_rows). */
#ifndef IR_ROWS_H
#define IR_ROWS_H

#include <stdbool.h>

#include "ir/graph.h"

/* Whether output row i of n depends on row i of its bounded input bi only
 * (and its other inputs broadcast along the rows), by n's rows rule: then
 * n computes the same on its unbounded twin over the capacity. n's bounded
 * operands are expected to have their rows leading (ir_type_rows_lead). */
bool ir_node_keeps_rows(const ir_node *n, int bi);

#endif
