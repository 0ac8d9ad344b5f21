/* The op table: one row per op (IR_OPS below) drives the text parser and
 * printer, the verifier, shape inference, the CPU reference kernels, the GPU
 * kernel lookup and what the placement asks of bounded operands.
 *
 * Adding an op: docs/adding-an-op.md. */
#ifndef IR_OPS_H
#define IR_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "vkml_status.h"

/* The op rows: everything about an op that is not its kernels' code.
 *
 *   X(ID, text name, family, infer, IO(in_min, in_max, out_min, out_max),
 *     attributes, flags, rows)
 *
 *   family  the kernels: rt_cpu_<family> (runtime/cpu/) and cg_node_<family>
 *           (codegen/kernels/); several ops may share one
 *   infer   shape inference, ir_infer_<infer> (ir/infer_*.c)
 *   IO      input and output counts; a maximum of -1 is variadic
 *   attrs   ATTRS(IR_A_..., ...) or NO_ATTRS; `name` and `cpu_reason` are
 *           allowed on every op
 *   flags   IR_OPF_<flag> names joined by |, or 0 (see enum below)
 *   rows    how the rows of a bounded input pass through the op: IR_ROWS_<rows>
 *           (ir/rows.h ir_node_keeps_rows)
 *
 * Only ir/op_table.c expands every column; other users take ID, name and
 * family. Adding an op: docs/adding-an-op.md. */
#define IR_OPS(X)                                                                                  \
  /* elementwise unary */                                                                          \
  X(RELU, "relu", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                       \
  X(SIGMOID, "sigmoid", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                 \
  X(TANH, "tanh", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                       \
  X(EXP, "exp", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                         \
  X(LOG, "log", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                         \
  X(SQRT, "sqrt", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                       \
  X(ERF, "erf", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                         \
  X(NEG, "neg", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                         \
  X(ABS, "abs", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                         \
  X(RECIPROCAL, "reciprocal", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)           \
  X(SOFTPLUS, "softplus", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)               \
  X(SIGN, "sign", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                       \
  X(FLOOR, "floor", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                     \
  X(CEIL, "ceil", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                       \
  X(ROUND, "round", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                     \
  X(HARD_SWISH, "hard_swish", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)           \
  X(LEAKY_RELU, "leaky_relu", unary, unary, IO(1, 1, 1, 1), ATTRS(IR_A_ALPHA), ELEMENTWISE, SAME)  \
  X(ELU, "elu", unary, unary, IO(1, 1, 1, 1), ATTRS(IR_A_ALPHA), ELEMENTWISE, SAME)                \
  X(SELU, "selu", unary, unary, IO(1, 1, 1, 1), ATTRS(IR_A_ALPHA, IR_A_GAMMA), ELEMENTWISE, SAME)  \
  X(HARD_SIGMOID, "hard_sigmoid", unary, unary, IO(1, 1, 1, 1),                                    \
    ATTRS(IR_A_ALPHA, IR_A_BETA), ELEMENTWISE, SAME)                                               \
  X(CLIP, "clip", unary, unary, IO(1, 1, 1, 1), ATTRS(IR_A_MIN, IR_A_MAX), ELEMENTWISE, SAME)      \
  X(SIN, "sin", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                \
  X(COS, "cos", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                \
  X(TAN, "tan", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                \
  X(ASIN, "asin", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)              \
  X(ACOS, "acos", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)              \
  X(ATAN, "atan", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)              \
  X(SINH, "sinh", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)              \
  X(COSH, "cosh", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)              \
  X(ASINH, "asinh", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)            \
  X(ACOSH, "acosh", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)            \
  X(ATANH, "atanh", unary, unary, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)            \
  X(NOT, "not", unary, not, IO(1, 1, 1, 1), NO_ATTRS, ELEMENTWISE, SAME)                           \
  /* copies: identity; reorder (the output in its own layout); the transfers */                    \
  /* pass_insert_transfers puts between devices (download: output on the CPU, */                   \
  /* upload: on the GPU) */                                                                        \
  X(IDENTITY, "identity", copy, unary, IO(1, 1, 1, 1),                                             \
    NO_ATTRS, ELEMENTWISE | ROWS_COPY, SAME)                                                       \
  X(REORDER, "reorder", copy, unary, IO(1, 1, 1, 1), NO_ATTRS, ROWS_COPY, NONE)                    \
  X(DOWNLOAD, "download", copy, unary, IO(1, 1, 1, 1), NO_ATTRS, TRANSFER, NONE)                   \
  X(UPLOAD, "upload", copy, unary, IO(1, 1, 1, 1), NO_ATTRS, TRANSFER, NONE)                       \
  X(CAST, "cast", cast, cast, IO(1, 1, 1, 1), ATTRS(IR_A_TO), ELEMENTWISE, SAME)                   \
  /* elementwise binary, NumPy broadcasting; mod: fmod=1 C's fmod (sign of x; */                   \
  /* floats need it), fmod=0 the sign of y (Python's %); integer / 0 is 0 */                       \
  X(ADD, "add", binary, binary, IO(2, 2, 1, 1), ATTRS(ACT_ATTRS), ELEMENTWISE | ACT, BROADCAST)    \
  X(SUB, "sub", binary, binary, IO(2, 2, 1, 1), ATTRS(ACT_ATTRS), ELEMENTWISE | ACT, BROADCAST)    \
  X(MUL, "mul", binary, binary, IO(2, 2, 1, 1), ATTRS(ACT_ATTRS), ELEMENTWISE | ACT, BROADCAST)    \
  X(DIV, "div", binary, binary, IO(2, 2, 1, 1), ATTRS(ACT_ATTRS), ELEMENTWISE | ACT, BROADCAST)    \
  X(POW, "pow", binary, binary, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)                  \
  X(PRELU, "prelu", binary, prelu, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)               \
  X(EQUAL, "equal", binary, compare, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)             \
  X(GREATER, "greater", binary, compare, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)         \
  X(LESS, "less", binary, compare, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)               \
  X(GREATER_OR_EQUAL, "greater_or_equal", binary, compare, IO(2, 2, 1, 1),                         \
    NO_ATTRS, ELEMENTWISE, BROADCAST)                                                              \
  X(LESS_OR_EQUAL, "less_or_equal", binary, compare, IO(2, 2, 1, 1),                               \
    NO_ATTRS, ELEMENTWISE, BROADCAST)                                                              \
  X(AND, "and", binary, logic, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)                   \
  X(OR, "or", binary, logic, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)                     \
  X(XOR, "xor", binary, logic, IO(2, 2, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)                   \
  X(MOD, "mod", binary, binary, IO(2, 2, 1, 1), ATTRS(IR_A_FMOD), ELEMENTWISE, BROADCAST)          \
  /* elementwise variadic (>= 1 input), NumPy broadcasting */                                      \
  X(MIN, "min", variadic, variadic, IO(1, -1, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)             \
  X(MAX, "max", variadic, variadic, IO(1, -1, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)             \
  X(SUM, "sum", variadic, variadic, IO(1, -1, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)             \
  X(MEAN, "mean", variadic, variadic, IO(1, -1, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)           \
  X(WHERE, "where", where, where, IO(3, 3, 1, 1), NO_ATTRS, ELEMENTWISE, BROADCAST)                \
  /* select: cond (one bool), a, b -> a if cond else b; sizes may differ along */                  \
  /* one axis (the output is bounded there: ONNX If's branches). */                                \
  /* to_capacity: x bounded, its rows leading -> its capacity as a static value: */                \
  /* the live elements, then `value` (a long topk with a run-time k is split */                    \
  /* through it: pass_split_topk) */                                                               \
  X(SELECT, "select", select, select, IO(3, 3, 1, 1),                                              \
    NO_ATTRS, READS_EXTENT | WRITES_EXTENT, NONE)                                                  \
  X(TO_CAPACITY, "to_capacity", to_capacity, to_capacity, IO(1, 1, 1, 1),                          \
    ATTRS(IR_A_VALUE), READS_EXTENT, NONE)                                                         \
  /* a chain or small DAG of float elementwise ops as one program */                               \
  /* (pass_fuse_elementwise; ir/params.h ir_fused_program) */                                      \
  X(FUSED_ELEMENTWISE, "fused_elementwise", fused_elementwise, fused_elementwise,                  \
    IO(1, IR_FUSED_MAX_INPUTS, 1, 1), ATTRS(IR_A_OPS, IR_A_REGS, IR_A_PARAMS), ELEMENTWISE, NONE)  \
  /* neural-network ops */                                                                         \
  X(CONV2D, "conv2d", conv2d, conv2d, IO(2, 3, 1, 1),                                              \
    ATTRS(IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS, IR_A_GROUP, ACT_ATTRS), ACT, BATCH)             \
  X(CONV_TRANSPOSE2D, "conv_transpose2d", conv_transpose2d, conv_transpose2d, IO(2, 3, 1, 1),      \
    ATTRS(IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS, IR_A_GROUP, IR_A_OUTPUT_PADDING, ACT_ATTRS),    \
          ACT, BATCH)                                                                              \
  /* a 3x3, stride-1 conv2d by Winograd's F(m x m, 3 x 3), m = out_tile, on                        \
   * weights transformed ahead (pass_winograd; docs/ops.md) */                                     \
  X(CONV2D_WINOGRAD, "conv2d_winograd", conv2d_winograd, conv2d_winograd, IO(2, 3, 1, 1),          \
    ATTRS(IR_A_PADS, IR_A_OUT_TILE, ACT_ATTRS), ACT, BATCH)                                        \
  X(GEMM, "gemm", gemm, gemm, IO(2, 3, 1, 1),                                                      \
    ATTRS(IR_A_ALPHA, IR_A_BETA, IR_A_TRANS_A, IR_A_TRANS_B, ACT_ATTRS), ACT, GEMM)                \
  X(MATMUL, "matmul", matmul, matmul, IO(2, 2, 1, 1), ATTRS(IR_A_ALPHA, ACT_ATTRS), ACT, MATMUL)   \
  /* attention: y = softmax(alpha q . kt + bias) . v over the last two axes */                     \
  /* (pass_fuse_attention): q [..,M,D], kt [..,D,N], v [..,N,Dv] with equal */                    \
  /* batch axes, bias (optional) broadcasting to [..,M,N]; y [..,M,Dv] */                          \
  X(ATTENTION, "attention", attention, attention, IO(3, 4, 1, 1),                                \
    ATTRS(IR_A_ALPHA, IR_A_DIMS, IR_A_Q_VIEW, IR_A_K_VIEW, IR_A_V_VIEW, IR_A_PERM), 0, NONE)       \
  X(BATCHNORM, "batchnorm", batchnorm, batchnorm, IO(5, 5, 1, 1), ATTRS(IR_A_EPSILON), 0, BATCH)   \
  X(INSTANCE_NORM, "instance_norm", instance_norm, instance_norm, IO(3, 3, 1, 1),                  \
    ATTRS(IR_A_EPSILON), 0, BATCH)                                                                 \
  X(LAYER_NORM, "layer_norm", layer_norm, layer_norm, IO(2, 3, 1, 1),                              \
    ATTRS(IR_A_AXIS, IR_A_EPSILON), 0, TAIL)                                                       \
  X(MAXPOOL, "maxpool", pool, pool, IO(1, 1, 1, 1),                                                \
    ATTRS(IR_A_KERNEL, IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS, IR_A_CEIL_MODE), 0, BATCH)         \
  X(AVGPOOL, "avgpool", pool, pool, IO(1, 1, 1, 1),                                                \
    ATTRS(IR_A_KERNEL, IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS, IR_A_CEIL_MODE,                    \
          IR_A_COUNT_INCLUDE_PAD), 0, BATCH)                                                       \
  X(GLOBAL_AVG_POOL, "global_avg_pool", global_pool, global_pool, IO(1, 1, 1, 1),                  \
    NO_ATTRS, 0, BATCH)                                                                            \
  X(GLOBAL_MAX_POOL, "global_max_pool", global_pool, global_pool, IO(1, 1, 1, 1),                  \
    NO_ATTRS, 0, BATCH)                                                                            \
  X(SOFTMAX, "softmax", softmax, softmax, IO(1, 1, 1, 1), ATTRS(IR_A_AXIS), 0, AXIS)               \
  X(LOG_SOFTMAX, "log_softmax", softmax, softmax, IO(1, 1, 1, 1), ATTRS(IR_A_AXIS), 0, AXIS)       \
  X(RESIZE, "resize", resize, resize, IO(1, 1, 1, 1),                                              \
    ATTRS(IR_A_RESIZE_MODE, IR_A_SCALES, IR_A_SIZES, IR_A_COORD_MODE, IR_A_NEAREST_MODE,           \
          IR_A_CUBIC_COEFF_A, IR_A_EXCLUDE_OUTSIDE), 0, BATCH)                                     \
  /* reductions */                                                                                 \
  X(REDUCE_MEAN, "reduce_mean", reduce, reduce, IO(1, 1, 1, 1),                                    \
    ATTRS(IR_A_AXES, IR_A_KEEPDIMS), 0, NONE)                                                      \
  X(REDUCE_SUM, "reduce_sum", reduce, reduce, IO(1, 1, 1, 1),                                      \
    ATTRS(IR_A_AXES, IR_A_KEEPDIMS, ACT_ATTRS), READS_EXTENT | ACT, NONE)                          \
  X(REDUCE_MAX, "reduce_max", reduce, reduce, IO(1, 1, 1, 1),                                      \
    ATTRS(IR_A_AXES, IR_A_KEEPDIMS), READS_EXTENT, NONE)                                           \
  X(REDUCE_MIN, "reduce_min", reduce, reduce, IO(1, 1, 1, 1),                                      \
    ATTRS(IR_A_AXES, IR_A_KEEPDIMS), READS_EXTENT, NONE)                                           \
  X(REDUCE_PROD, "reduce_prod", reduce, reduce, IO(1, 1, 1, 1),                                    \
    ATTRS(IR_A_AXES, IR_A_KEEPDIMS), READS_EXTENT, NONE)                                           \
  X(ARGMAX, "argmax", argminmax, argminmax, IO(1, 1, 1, 1),                                        \
    ATTRS(IR_A_AXIS, IR_A_KEEPDIMS, IR_A_SELECT_LAST_INDEX), 0, NONE)                              \
  X(ARGMIN, "argmin", argminmax, argminmax, IO(1, 1, 1, 1),                                        \
    ATTRS(IR_A_AXIS, IR_A_KEEPDIMS, IR_A_SELECT_LAST_INDEX), 0, NONE)                              \
  /* data movement */                                                                              \
  X(RESHAPE, "reshape", copy, reshape, IO(1, 1, 1, 1),                                             \
    ATTRS(IR_A_SHAPE), READS_EXTENT | WRITES_EXTENT | ROWS_COPY, SAME)                             \
  X(FLATTEN, "flatten", copy, flatten, IO(1, 1, 1, 1),                                             \
    ATTRS(IR_A_AXIS), READS_EXTENT | WRITES_EXTENT | ROWS_COPY, SAME)                              \
  X(SQUEEZE, "squeeze", copy, squeeze, IO(1, 1, 1, 1),                                             \
    ATTRS(IR_A_AXES), READS_EXTENT | WRITES_EXTENT | ROWS_COPY, SAME)                              \
  X(UNSQUEEZE, "unsqueeze", copy, unsqueeze, IO(1, 1, 1, 1),                                       \
    ATTRS(IR_A_AXES), READS_EXTENT | WRITES_EXTENT | ROWS_COPY, SAME)                              \
  X(TRANSPOSE, "transpose", transpose, transpose, IO(1, 1, 1, 1), ATTRS(IR_A_PERM), 0, TRANSPOSE)  \
  /* strided_copy: y[i] = x_flat[offset + i . strides] (pass_fuse_copies) */                       \
  X(STRIDED_COPY, "strided_copy", strided_copy, strided_copy, IO(1, 1, 1, 1),                      \
    ATTRS(IR_A_SHAPE, IR_A_STRIDES, IR_A_OFFSET, IR_A_ROLL_DIMS, IR_A_ROLL_SHIFTS), 0, NONE)       \
  X(CONCAT, "concat", concat, concat, IO(1, -1, 1, 1),                                             \
    ATTRS(IR_A_AXIS), READS_EXTENT | WRITES_EXTENT, CONCAT)                                        \
  X(SPLIT, "split", split, split, IO(1, 1, 1, -1), ATTRS(IR_A_AXIS, IR_A_SPLIT), 0, SPLIT)         \
  X(SLICE, "slice", slice, slice, IO(1, 1, 1, 1),                                                  \
    ATTRS(IR_A_STARTS, IR_A_ENDS, IR_A_AXES, IR_A_STEPS),                                          \
    READS_EXTENT | WRITES_EXTENT | ROWS_COPY, SLICE)                                               \
  X(PAD, "pad", pad, pad, IO(1, 1, 1, 1), ATTRS(IR_A_PADS, IR_A_PAD_MODE, IR_A_VALUE), 0, NONE)    \
  X(EXPAND, "expand", expand, expand, IO(1, 1, 1, 1), ATTRS(IR_A_SHAPE), 0, NONE)                  \
  X(TILE, "tile", tile, tile, IO(1, 1, 1, 1), ATTRS(IR_A_REPEATS), 0, NONE)                        \
  X(GATHER, "gather", gather, gather, IO(2, 2, 1, 1),                                              \
    ATTRS(IR_A_AXIS), READS_EXTENT | WRITES_EXTENT, GATHER)                                        \
  X(GATHER_ELEMENTS, "gather_elements", gather_elements, gather_elements, IO(2, 2, 1, 1),          \
    ATTRS(IR_A_AXIS), 0, NONE)                                                                     \
  /* gather_nd: data, indices [..., k] -> data's slices at the index tuples; */                    \
  /* the first batch_dims axes of both are shared */                                               \
  X(GATHER_ND, "gather_nd", gather_nd, gather_nd, IO(2, 2, 1, 1),                                  \
    ATTRS(IR_A_BATCH_DIMS), READS_EXTENT | WRITES_EXTENT, NONE)                                    \
  /* x's dims as i64[rank] at run time (a bounded axis: its actual size) */                        \
  X(SHAPE, "shape", shape, shape, IO(1, 1, 1, 1), NO_ATTRS, READS_EXTENT, NONE)                    \
  /* scatter_elements: data, indices, updates (indices' shape) -> data with */                     \
  /* each update at its index along axis; scatter_nd: data, indices [..., k], */                   \
  /* updates [indices' dims but the last, data dims from k]; reduction none */                     \
  /* add mul max min */                                                                            \
  X(SCATTER_ELEMENTS, "scatter_elements", scatter_elements, scatter_elements, IO(3, 3, 1, 1),      \
    ATTRS(IR_A_AXIS, IR_A_REDUCTION), READS_EXTENT | WRITES_EXTENT, NONE)                          \
  X(SCATTER_ND, "scatter_nd", scatter_nd, scatter_nd, IO(3, 3, 1, 1),                              \
    ATTRS(IR_A_REDUCTION), 0, NONE)                                                                \
  /* vision ops. topk: k from the attribute, or from a run-time i64[1] second */                   \
  /* input (then the output is bounded along axis) */                                              \
  X(TOPK, "topk", topk, topk, IO(1, 2, 2, 2),                                                      \
    ATTRS(IR_A_K, IR_A_AXIS, IR_A_LARGEST, IR_A_SORTED, IR_A_K_MAX),                               \
          BOUNDED_OUT | READS_EXTENT | WRITES_EXTENT, NONE)                                        \
  X(CUMSUM, "cumsum", cumsum, cumsum, IO(1, 1, 1, 1),                                              \
    ATTRS(IR_A_AXIS, IR_A_EXCLUSIVE, IR_A_REVERSE), 0, NONE)                                       \
  X(NON_MAX_SUPPRESSION, "non_max_suppression", non_max_suppression, non_max_suppression,          \
    IO(2, 2, 1, 1), ATTRS(IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES, IR_A_IOU_THRESHOLD,        \
          IR_A_SCORE_THRESHOLD), BOUNDED_OUT | STAGED | READS_EXTENT | WRITES_EXTENT, NONE)        \
  X(ROI_ALIGN, "roi_align", roi_align, roi_align, IO(3, 3, 1, 1),                                  \
    ATTRS(IR_A_ROI_MODE, IR_A_OUTPUT_HEIGHT, IR_A_OUTPUT_WIDTH, IR_A_SAMPLING_RATIO,               \
          IR_A_SPATIAL_SCALE, IR_A_COORD_MODE), READS_EXTENT | WRITES_EXTENT, NONE)                \
  /* grid_sample: x [N,C,H,W] sampled at grid [N,Ho,Wo,2] (x, y in [-1, 1]) */                   \
  /* -> [N,C,Ho,Wo]: mode nearest / linear / cubic, padding_mode constant */                       \
  /* (zeros) / edge (border) / reflect, align_corners (ONNX GridSample) */                        \
  X(GRID_SAMPLE, "grid_sample", grid_sample, grid_sample, IO(2, 2, 1, 1),                          \
    ATTRS(IR_A_RESIZE_MODE, IR_A_PADDING_MODE, IR_A_ALIGN_CORNERS), 0, NONE)                       \
  /* argsort: x along its last axis, or a 1-D x cut into segments by i64 */                        \
  /* offsets [S+1]; i64 indices within each segment (stable; NaN above every */                    \
  /* number). Its GPU stages (passes/pass_split_sort.c) work on a sort state */                    \
  /* i32[P,n] (segment, order key: one plane, two for i64, position): blocks of */                 \
  /* `width` sorted (rows: from each row's start), runs of `width` merged in */                    \
  /* pairs (within rows of `row` elements when given), the state turned into */                    \
  /* indices. */                                                                                   \
  X(ARGSORT, "argsort", argsort, argsort, IO(1, 2, 1, 1), ATTRS(IR_A_LARGEST), STAGED, NONE)       \
  X(SORT_BLOCK, "sort_block", sort_block, sort_block, IO(1, 2, 1, 1),                              \
    ATTRS(IR_A_LARGEST, IR_A_WIDTH), 0, NONE)                                                      \
  X(SORT_MERGE, "sort_merge", sort_merge, sort_merge, IO(1, 1, 1, 1),                              \
    ATTRS(IR_A_WIDTH, IR_A_ROW), 0, NONE)                                                          \
  X(SORT_INDEX, "sort_index", sort_index, sort_index, IO(1, 2, 1, 1), ATTRS(IR_A_SHAPE), 0, NONE)  \
  /* non_max_suppression's GPU stages (passes/pass_split_nms.c): nms_select: */                    \
  /* boxes, scores, their argsort (descending) -> the kept boxes per (batch, */                    \
  /* class), i32[B,C,M] padded with -1; nms_compact: those -> the bounded */                       \
  /* i64[<=B*C*M,3]. */                                                                            \
  X(NMS_SELECT, "nms_select", nms_select, nms_select, IO(3, 3, 1, 1),                              \
    ATTRS(IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES, IR_A_IOU_THRESHOLD, IR_A_SCORE_THRESHOLD), \
          0, NONE)                                                                                 \
  X(NMS_COMPACT, "nms_compact", nms_compact, nms_compact, IO(1, 1, 1, 1),                          \
    NO_ATTRS, BOUNDED_OUT | WRITES_EXTENT, NONE)                                                   \
  /* ... and over one bounded row (boxes [1,<=N,4], scores [1,1,<=N]; */                           \
  /* glsl/nms_window.comp has the algorithm): nms_keys -> f32[1,2,N] (scores, */                   \
  /* -x_min; -inf for the rest), their argsort -> nms_prep (boxes, scores, */                      \
  /* order) -> i32[5,N+1] (running x_max and sorted x_min over the x order, n_x */                 \
  /* at [0][N]; the first state per box; the x order's segment starts, their */                    \
  /* count at [3][N]; each box's segment); nms_round (state, boxes, scores, */                     \
  /* order, prep) -> i32[N] the next state; nms_settle (the same) -> the final */                  \
  /* state; nms_finish (the same) -> the bounded i64[<=M,3] triples. */                            \
  X(NMS_KEYS, "nms_keys", nms_window, nms_keys, IO(2, 2, 1, 1),                                    \
    ATTRS(NMS_ATTRS), READS_EXTENT, NONE)                                                          \
  X(NMS_PREP, "nms_prep", nms_window, nms_prep, IO(3, 3, 1, 1),                                    \
    ATTRS(NMS_ATTRS), READS_EXTENT, NONE)                                                          \
  X(NMS_ROUND, "nms_round", nms_window, nms_round, IO(5, 5, 1, 1),                                 \
    ATTRS(NMS_ATTRS), READS_EXTENT, NONE)                                                          \
  X(NMS_SETTLE, "nms_settle", nms_window, nms_round, IO(5, 5, 1, 1),                               \
    ATTRS(NMS_ATTRS), READS_EXTENT, NONE)                                                          \
  X(NMS_FINISH, "nms_finish", nms_window, nms_finish, IO(5, 5, 1, 1),                              \
    ATTRS(NMS_ATTRS), BOUNDED_OUT | READS_EXTENT | WRITES_EXTENT, NONE)                            \
  /* non_zero: the positions of x's non-zero elements (NaN counts), row major, */                  \
  /* as i64[rank, <=numel]; on the GPU (passes/pass_split_nonzero.c) */                            \
  /* nonzero_flags (i32 0/1 per element, flattened), an exclusive cumsum of */                     \
  /* them, nonzero_write (x, the offsets -> the positions, their count from the */                 \
  /* last offset). */                                                                              \
  X(NON_ZERO, "non_zero", non_zero, non_zero, IO(1, 1, 1, 1),                                      \
    NO_ATTRS, BOUNDED_OUT | STAGED | READS_EXTENT | WRITES_EXTENT, NONE)                           \
  X(NONZERO_FLAGS, "nonzero_flags", nonzero_flags, nonzero_flags, IO(1, 1, 1, 1),                  \
    NO_ATTRS, READS_EXTENT, NONE)                                                                  \
  X(NONZERO_WRITE, "nonzero_write", nonzero_write, nonzero_write, IO(2, 2, 1, 1),                  \
    NO_ATTRS, BOUNDED_OUT | READS_EXTENT | WRITES_EXTENT, NONE)

typedef enum ir_op {
#define X(id, name, family, ...) IR_OP_##id,
  IR_OPS(X)
#undef X
      IR_OP_COUNT
} ir_op;

/* Attribute kinds. */
typedef enum ir_attr_kind {
  IR_ATTR_INT,
  IR_ATTR_FLOAT, /* stored as f32, like ONNX */
  IR_ATTR_INTS,
  IR_ATTR_FLOATS,
  IR_ATTR_STRING,
  IR_ATTR_ENUM, /* one name of a fixed set, stored as its index */
} ir_attr_kind;

/* Enumerations usable as attribute values: X(ID, names...) — names are in
 * ir_enum_names(). The index of a name is the stored value. */
typedef enum ir_enum {
  IR_ENUM_NONE = 0,
  IR_ENUM_ACT,          /* ir_act */
  IR_ENUM_PAD_MODE,     /* constant reflect edge */
  IR_ENUM_RESIZE_MODE,  /* nearest linear cubic */
  IR_ENUM_COORD_MODE,   /* ir_coord_mode */
  IR_ENUM_NEAREST_MODE, /* ir_nearest_mode */
  IR_ENUM_ROI_MODE,     /* avg max */
  IR_ENUM_DTYPE,        /* ir_dtype names */
  IR_ENUM_REDUCTION,    /* ir_scatter_reduction: none add mul max min */
  IR_ENUM_COUNT
} ir_enum;

/* X(ID, text name, kind, enum). Text names may repeat across ids (e.g.
 * "mode"); one op never lists two ids with the same text name. */
#define IR_ATTRS(X)                                                            \
  X(NAME, "name", STRING, NONE) /* source node name; allowed on every op */    \
  /* why the placement pass put the node on the CPU; allowed on every op */     \
  X(CPU_REASON, "cpu_reason", STRING, NONE)                                    \
  X(STRIDES, "strides", INTS, NONE)                                            \
  X(PADS, "pads", INTS, NONE)                                                  \
  X(DILATIONS, "dilations", INTS, NONE)                                        \
  X(GROUP, "group", INT, NONE)                                                 \
  X(KERNEL, "kernel", INTS, NONE)                                              \
  X(OUTPUT_PADDING, "output_padding", INTS, NONE)                              \
  X(OUT_TILE, "out_tile", INT, NONE)                                           \
  X(CEIL_MODE, "ceil_mode", INT, NONE)                                         \
  X(COUNT_INCLUDE_PAD, "count_include_pad", INT, NONE)                         \
  X(ACT, "act", ENUM, ACT)                                                     \
  X(ACT_ALPHA, "act_alpha", FLOAT, NONE)                                       \
  X(ACT_BETA, "act_beta", FLOAT, NONE)                                         \
  X(ALPHA, "alpha", FLOAT, NONE)                                               \
  X(BETA, "beta", FLOAT, NONE)                                                 \
  X(GAMMA, "gamma", FLOAT, NONE)                                               \
  X(MIN, "min", FLOAT, NONE)                                                   \
  X(MAX, "max", FLOAT, NONE)                                                   \
  X(EPSILON, "epsilon", FLOAT, NONE)                                           \
  X(TRANS_A, "trans_a", INT, NONE)                                             \
  X(TRANS_B, "trans_b", INT, NONE)                                             \
  X(AXIS, "axis", INT, NONE)                                                   \
  X(AXES, "axes", INTS, NONE)                                                  \
  X(KEEPDIMS, "keepdims", INT, NONE)                                           \
  X(SELECT_LAST_INDEX, "select_last_index", INT, NONE)                         \
  X(SHAPE, "shape", INTS, NONE)                                                \
  X(PERM, "perm", INTS, NONE)                                                  \
  X(SPLIT, "split", INTS, NONE)                                                \
  X(STARTS, "starts", INTS, NONE)                                              \
  X(ENDS, "ends", INTS, NONE)                                                  \
  X(STEPS, "steps", INTS, NONE)                                                \
  X(REPEATS, "repeats", INTS, NONE)                                            \
  X(FMOD, "fmod", INT, NONE)                                                   \
  X(PAD_MODE, "mode", ENUM, PAD_MODE)                                          \
  X(VALUE, "value", FLOAT, NONE)                                               \
  X(RESIZE_MODE, "mode", ENUM, RESIZE_MODE)                                    \
  X(SCALES, "scales", FLOATS, NONE)                                            \
  X(SIZES, "sizes", INTS, NONE)                                                \
  X(COORD_MODE, "coordinate_transformation_mode", ENUM, COORD_MODE)            \
  X(NEAREST_MODE, "nearest_mode", ENUM, NEAREST_MODE)                          \
  X(CUBIC_COEFF_A, "cubic_coeff_a", FLOAT, NONE)                               \
  X(EXCLUDE_OUTSIDE, "exclude_outside", INT, NONE)                             \
  X(TO, "to", ENUM, DTYPE)                                                     \
  X(K, "k", INT, NONE)                                                         \
  X(LARGEST, "largest", INT, NONE)                                             \
  X(SORTED, "sorted", INT, NONE)                                               \
  X(EXCLUSIVE, "exclusive", INT, NONE)                                         \
  X(REVERSE, "reverse", INT, NONE)                                             \
  X(CENTER_POINT_BOX, "center_point_box", INT, NONE)                           \
  X(MAX_OUTPUT_BOXES, "max_output_boxes_per_class", INT, NONE)                 \
  X(IOU_THRESHOLD, "iou_threshold", FLOAT, NONE)                               \
  X(SCORE_THRESHOLD, "score_threshold", FLOAT, NONE)                           \
  X(ROI_MODE, "mode", ENUM, ROI_MODE)                                          \
  X(OUTPUT_HEIGHT, "output_height", INT, NONE)                                 \
  X(OUTPUT_WIDTH, "output_width", INT, NONE)                                   \
  X(SAMPLING_RATIO, "sampling_ratio", INT, NONE)                               \
  X(SPATIAL_SCALE, "spatial_scale", FLOAT, NONE)                               \
  X(WIDTH, "width", INT, NONE)                                                 \
  X(ROW, "row", INT, NONE)                                                     \
  X(BATCH_DIMS, "batch_dims", INT, NONE)                                       \
  X(REDUCTION, "reduction", ENUM, REDUCTION)                                   \
  /* fused_elementwise's program (ir/params.h ir_fused_program_get) */         \
  X(OPS, "ops", STRING, NONE)                                                  \
  X(REGS, "regs", INTS, NONE)                                                  \
  X(PARAMS, "params", FLOATS, NONE)                                            \
  /* topk with a run-time k: its upper bound, the outputs' capacity */         \
  X(K_MAX, "k_max", INT, NONE)                                                 \
  /* grid_sample */                                                            \
  X(PADDING_MODE, "padding_mode", ENUM, PAD_MODE)                              \
  X(ALIGN_CORNERS, "align_corners", INT, NONE)                                 \
  /* strided_copy's first element in its input; its input's roll */           \
  X(OFFSET, "offset", INT, NONE)                                               \
  X(ROLL_DIMS, "roll_dims", INTS, NONE)                                        \
  X(ROLL_SHIFTS, "roll_shifts", INTS, NONE)                                    \
  /* attention reading strided views of its inputs: [batch.., M, D, N, DV] */  \
  /* and per operand [offset, one stride per axis]                          */  \
  X(DIMS, "dims", INTS, NONE)                                                  \
  X(Q_VIEW, "q_view", INTS, NONE)                                              \
  X(K_VIEW, "k_view", INTS, NONE)                                              \
  X(V_VIEW, "v_view", INTS, NONE)

typedef enum ir_attr_id {
#define X(id, name, kind, en) IR_A_##id,
  IR_ATTRS(X)
#undef X
      IR_A_COUNT,
  IR_A_END = -1 /* terminates attribute lists in the op table */
} ir_attr_id;

/* Fused activation (attribute `act`, parameters act_alpha / act_beta):
 * clip uses alpha=min beta=max; leaky_relu, elu use alpha; hard_sigmoid uses
 * alpha, beta. */
typedef enum ir_act {
  IR_ACT_NONE,
  IR_ACT_RELU,
  IR_ACT_RELU6,
  IR_ACT_CLIP,
  IR_ACT_LEAKY_RELU,
  IR_ACT_ELU,
  IR_ACT_SIGMOID,
  IR_ACT_TANH,
  IR_ACT_HARD_SIGMOID,
  IR_ACT_HARD_SWISH,
  IR_ACT_SILU,      /* x * sigmoid(x) (swish) */
  IR_ACT_GELU,      /* 0.5 x (1 + erf(x / sqrt 2)) */
  IR_ACT_GELU_TANH, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  IR_ACT_COUNT
} ir_act;

typedef enum ir_pad_mode { IR_PAD_CONSTANT, IR_PAD_REFLECT, IR_PAD_EDGE } ir_pad_mode;
typedef enum ir_resize_mode { IR_RESIZE_NEAREST, IR_RESIZE_LINEAR, IR_RESIZE_CUBIC } ir_resize_mode;
typedef enum ir_coord_mode {
  IR_COORD_HALF_PIXEL,
  IR_COORD_ASYMMETRIC,
  IR_COORD_PYTORCH_HALF_PIXEL,
  IR_COORD_TF_HALF_PIXEL_FOR_NN,
  IR_COORD_ALIGN_CORNERS,
  IR_COORD_OUTPUT_HALF_PIXEL, /* roi_align (opset < 16 behaviour) */
} ir_coord_mode;
typedef enum ir_nearest_mode {
  IR_NEAREST_ROUND_PREFER_FLOOR,
  IR_NEAREST_ROUND_PREFER_CEIL,
  IR_NEAREST_FLOOR,
  IR_NEAREST_CEIL,
} ir_nearest_mode;
typedef enum ir_roi_mode { IR_ROI_AVG, IR_ROI_MAX } ir_roi_mode;
/* How scatter_elements / scatter_nd combine an update with the element
 * there: replace it (duplicates: the last in the indices' order on the
 * CPU, any one of them on the GPU, as ONNX leaves it), or reduce. */
typedef enum ir_scatter_reduction {
  IR_SCATTER_NONE,
  IR_SCATTER_ADD,
  IR_SCATTER_MUL,
  IR_SCATTER_MAX,
  IR_SCATTER_MIN,
} ir_scatter_reduction;

struct ir_node;
struct ir_type;

/* Computes the types of a node's outputs from its attributes and the input
 * types in[0..n->n_inputs) (passed explicitly so the executor can re-infer
 * with run-time sizes of bounded tensors). Writes n->n_outputs types into out.
 * Returns an INVALID_GRAPH status whose message names the problem (the caller
 * adds the node's location). */
typedef vkml_status (*ir_infer_fn)(const struct ir_node *n,
                                   const struct ir_type *in,
                                   struct ir_type *out);

/* Op flags (the flags column of IR_OPS). */
enum {
  IR_OPF_ELEMENTWISE = 1 << 0, /* output[i] depends on input[i] only */
  IR_OPF_ACT = 1 << 1,         /* accepts a fused activation */
  IR_OPF_BOUNDED_OUT = 1 << 2, /* output size may be data dependent */
  /* the GPU runs the op only as the stages a pass splits it into
   * (passes/pass_split_*.c); its own GPU kernel entry refuses */
  IR_OPF_STAGED = 1 << 3,
  /* the GPU kernel reads a bounded input's extent word itself (the extent
   * ABI: codegen/glsl/extent.glsl); without the flag a bounded input
   * reaches the GPU only through the op's rows (IR_ROWS_*) */
  IR_OPF_READS_EXTENT = 1 << 4,
  /* the GPU kernel writes its bounded outputs' extent words */
  IR_OPF_WRITES_EXTENT = 1 << 5,
  /* a copy between devices (pass_insert_transfers): a plan step, no kernel */
  IR_OPF_TRANSFER = 1 << 6,
  /* a bounded input whose rows the op does not keep (IR_ROWS_*) is copied
   * by the bounded-rows copy (a slice to the first rows, a reshape merging
   * axes into the bounded one: codegen/kernels/rows_copy.c) */
  IR_OPF_ROWS_COPY = 1 << 7,
};

/* How the rows of a bounded input (its rows leading: ir_type_rows_lead)
 * pass through an op: output row i depends on input row i only, so the op
 * runs as its unbounded twin over the capacity (the rows column of IR_OPS;
 * ir/rows.h ir_node_keeps_rows has the conditions). */
typedef enum ir_rows {
  IR_ROWS_NONE,      /* no: the kernel reads extents (IR_OPF_READS_EXTENT) or the CPU runs it */
  IR_ROWS_SAME,      /* unary, cast and reshapes: the same elements per row */
  IR_ROWS_BROADCAST, /* NumPy broadcasting: the others broadcast along the rows */
  IR_ROWS_TRANSPOSE, /* a transpose that moves only axes of size 1 */
  IR_ROWS_GEMM,      /* A's rows, not transposed */
  IR_ROWS_MATMUL,    /* A's rows, or a batch axis B lacks */
  IR_ROWS_AXIS,      /* along another axis than `axis` (softmax) */
  IR_ROWS_CONCAT,    /* parts bounded alike, joined along another axis */
  IR_ROWS_SPLIT,     /* split along another axis */
  IR_ROWS_GATHER,    /* data's rows, indices addressing a later axis */
  IR_ROWS_SLICE,     /* a slice keeping the bounded axis whole */
  IR_ROWS_BATCH,     /* the batch axis (N) of the data input, the weights not bounded: convs,
                        pools, norms over a run-time count of RoIs; resize at scale 1 there */
  IR_ROWS_TAIL,      /* over the axes from `axis` on, all after the bounded one (layer_norm) */
} ir_rows;

/* The op's row of IR_OPS but its name and family (ir_op_name(),
 * ir_op_family()). */
typedef struct ir_op_info {
  int min_inputs, max_inputs;   /* max -1: variadic */
  int min_outputs, max_outputs; /* max -1: variadic */
  const ir_attr_id *attrs;      /* terminated by IR_A_END; `name` is implicit */
  ir_infer_fn infer;
  unsigned flags; /* IR_OPF_* */
  ir_rows rows;
} ir_op_info;

const ir_op_info *ir_op_get(ir_op op);
const char *ir_op_name(ir_op op);
const char *ir_op_family(ir_op op);
/* Looks an op up by text name; false if unknown. */
bool ir_op_from_name(const char *name, size_t len, ir_op *out);

const char *ir_attr_name(ir_attr_id id);
ir_attr_kind ir_attr_kind_of(ir_attr_id id);
ir_enum ir_attr_enum_of(ir_attr_id id);
/* True if op accepts attribute id. */
bool ir_op_has_attr(ir_op op, ir_attr_id id);
/* Finds the attribute id with this text name among op's attributes. */
bool ir_op_attr_from_name(ir_op op, const char *name, size_t len, ir_attr_id *out);

/* Enum value names, e.g. ir_enum_value_name(IR_ENUM_ACT, IR_ACT_RELU6) ==
 * "relu6". Returns NULL past the end. */
const char *ir_enum_value_name(ir_enum e, int value);
int ir_enum_count(ir_enum e);
bool ir_enum_from_name(ir_enum e, const char *name, size_t len, int *out);

#endif
