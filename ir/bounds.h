/* Upper bounds of small integer values known before a graph runs: what a
 * kernel can size itself by when the value itself is computed at run time
 * (TopK's k from min(constant, a run-time count), codegen/kernels/roi_align.c). */
#ifndef IR_BOUNDS_H
#define IR_BOUNDS_H

#include <stdint.h>

#include "ir/graph.h"

/* Writes an upper bound of each of v's elements (row-major) to hi and
 * returns how many (at most max), or -1 when none is known. Known: inline
 * integer constants; shape (a bounded axis: its capacity); and what
 * gather with constant indices, concat, reshape/flatten/squeeze/unsqueeze/
 * identity, transfers, integer casts, reduce_min / reduce_max over all elements, and
 * elementwise min / max make of known bounds. */
int ir_int_upper_bounds(const ir_value *v, int64_t *hi, int max);

#endif
