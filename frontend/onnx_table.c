/* The ONNX op types the importer knows: converter, whether constant inputs
 * fold, which inputs are parameters (must be constant: they become
 * attributes), and the oldest opset whose semantics the converter follows
 * (up to opset 17; older ones where the converter knows them). */
#include <string.h>

#include "onnx_internal.h"

#define F onnx_fold_node
#define P(i) (1u << (i))

static const onnx_op_entry ops[] = {
    /* elementwise unary */
    {"Relu", onnx_convert_unary, F, 0, 1},
    {"Sigmoid", onnx_convert_unary, F, 0, 1},
    {"Tanh", onnx_convert_unary, F, 0, 1},
    {"Exp", onnx_convert_unary, F, 0, 1},
    {"Log", onnx_convert_unary, F, 0, 1},
    {"Sqrt", onnx_convert_unary, F, 0, 1},
    {"Erf", onnx_convert_unary, F, 0, 9},
    {"Neg", onnx_convert_unary, F, 0, 1},
    {"Abs", onnx_convert_unary, F, 0, 1},
    {"Reciprocal", onnx_convert_unary, F, 0, 1},
    {"Softplus", onnx_convert_unary, F, 0, 1},
    {"Sign", onnx_convert_unary, F, 0, 9},
    {"Floor", onnx_convert_unary, F, 0, 1},
    {"Ceil", onnx_convert_unary, F, 0, 1},
    {"Round", onnx_convert_unary, F, 0, 11},
    {"HardSwish", onnx_convert_unary, F, 0, 14},
    {"LeakyRelu", onnx_convert_leaky_relu, F, 0, 1},
    {"Elu", onnx_convert_elu, F, 0, 1},
    {"Selu", onnx_convert_selu, F, 0, 1},
    {"HardSigmoid", onnx_convert_hard_sigmoid, F, 0, 1},
    {"Clip", onnx_convert_clip, F, P(1) | P(2), 6},
    {"Not", onnx_convert_not, F, 0, 1},
    {"Identity", onnx_convert_identity, NULL, 0, 1},
    {"Dropout", onnx_convert_dropout, NULL, P(1) | P(2), 7},
    {"Cast", onnx_convert_cast, F, 0, 6},
    {"CastLike", onnx_convert_cast, NULL, 0, 15},
    /* elementwise binary and variadic */
    {"Add", onnx_convert_binary, F, 0, 1},
    {"Sub", onnx_convert_binary, F, 0, 1},
    {"Mul", onnx_convert_binary, F, 0, 1},
    {"Div", onnx_convert_binary, F, 0, 1},
    {"Pow", onnx_convert_binary, F, 0, 1},
    {"PRelu", onnx_convert_binary, NULL, 0, 1},
    {"Equal", onnx_convert_binary, F, 0, 1},
    {"Greater", onnx_convert_binary, F, 0, 1},
    {"Less", onnx_convert_binary, F, 0, 1},
    {"GreaterOrEqual", onnx_convert_binary, F, 0, 12},
    {"LessOrEqual", onnx_convert_binary, F, 0, 12},
    {"And", onnx_convert_binary, F, 0, 1},
    {"Or", onnx_convert_binary, F, 0, 1},
    {"Xor", onnx_convert_binary, F, 0, 7},
    {"Mod", onnx_convert_binary, F, 0, 10},
    {"Min", onnx_convert_variadic, F, 0, 6},
    {"Max", onnx_convert_variadic, F, 0, 6},
    {"Sum", onnx_convert_variadic, F, 0, 6},
    {"Mean", onnx_convert_variadic, F, 0, 6},
    {"Where", onnx_convert_where, F, 0, 9},
    /* neural-network ops */
    {"Conv", onnx_convert_conv, NULL, 0, 1},
    {"ConvTranspose", onnx_convert_conv_transpose, NULL, 0, 1},
    {"Gemm", onnx_convert_gemm, NULL, 0, 1},
    {"MatMul", onnx_convert_matmul, NULL, 0, 1},
    {"Einsum", onnx_convert_einsum, F, 0, 12},
    {"RNN", onnx_convert_rnn, NULL, 0, 7},
    {"GRU", onnx_convert_rnn, NULL, 0, 7},
    {"LSTM", onnx_convert_rnn, NULL, 0, 7},
    {"BatchNormalization", onnx_convert_batchnorm, NULL, 0, 1},
    {"InstanceNormalization", onnx_convert_instance_norm, NULL, 0, 1},
    {"LayerNormalization", onnx_convert_layer_norm, NULL, 0, 17},
    {"MaxPool", onnx_convert_maxpool, NULL, 0, 1},
    {"AveragePool", onnx_convert_avgpool, NULL, 0, 1},
    {"LpPool", onnx_convert_lppool, NULL, 0, 11},
    {"GlobalAveragePool", onnx_convert_global_pool, NULL, 0, 1},
    {"GlobalMaxPool", onnx_convert_global_pool, NULL, 0, 1},
    {"Softmax", onnx_convert_softmax, F, 0, 1},
    {"LogSoftmax", onnx_convert_softmax, F, 0, 1},
    {"Resize", onnx_convert_resize, NULL, P(1) | P(2) | P(3), 10},
    {"Upsample", onnx_convert_upsample, NULL, P(1), 7},
    /* reductions */
    {"ReduceMean", onnx_convert_reduce, F, P(1), 1},
    {"ReduceSum", onnx_convert_reduce, F, P(1), 1},
    {"ReduceMax", onnx_convert_reduce, F, P(1), 1},
    {"ReduceMin", onnx_convert_reduce, F, P(1), 1},
    {"ReduceL1", onnx_convert_reduce, F, P(1), 1},
    {"ReduceL2", onnx_convert_reduce, F, P(1), 1},
    {"ReduceSumSquare", onnx_convert_reduce, F, P(1), 1},
    {"ReduceLogSum", onnx_convert_reduce, F, P(1), 1},
    {"ReduceLogSumExp", onnx_convert_reduce, F, P(1), 1},
    {"ReduceProd", onnx_convert_reduce, F, P(1), 1},
    {"ArgMax", onnx_convert_argminmax, F, 0, 1},
    {"ArgMin", onnx_convert_argminmax, F, 0, 1},
    /* data movement */
    {"Reshape", onnx_convert_reshape, F, P(1), 5},
    {"Flatten", onnx_convert_flatten, F, 0, 1},
    {"Squeeze", onnx_convert_squeeze, F, P(1), 1},
    {"Unsqueeze", onnx_convert_unsqueeze, F, P(1), 1},
    {"Transpose", onnx_convert_transpose, F, 0, 1},
    {"Concat", onnx_convert_concat, F, 0, 4},
    {"Split", onnx_convert_split, F, P(1), 2},
    {"Slice", onnx_convert_slice, F, P(1) | P(2) | P(3) | P(4), 1},
    {"Pad", onnx_convert_pad, F, P(1) | P(2), 2},
    {"Expand", onnx_convert_expand, F, P(1), 8},
    {"Tile", onnx_convert_tile, F, P(1), 6},
    {"Gather", onnx_convert_gather, F, 0, 1},
    {"GatherElements", onnx_convert_gather_elements, F, 0, 11},
    {"GatherND", onnx_convert_gather_nd, F, 0, 11},
    {"Scatter", onnx_convert_scatter_elements, F, 0, 9},
    {"ScatterElements", onnx_convert_scatter_elements, F, 0, 11},
    {"ScatterND", onnx_convert_scatter_nd, F, 0, 11},
    /* control flow */
    {"If", onnx_convert_if, NULL, 0, 1},
    {"Loop", onnx_convert_loop, NULL, 0, 1},
    {"Scan", onnx_convert_scan, NULL, 0, 8},
    /* vision ops */
    {"TopK", onnx_convert_topk, F, P(1), 1},
    {"CumSum", onnx_convert_cumsum, F, P(1), 11},
    {"NonMaxSuppression", onnx_convert_nms, NULL, P(2) | P(3) | P(4), 10},
    {"RoiAlign", onnx_convert_roi_align, NULL, 0, 10},
    {"GridSample", onnx_convert_mapped, NULL, 0, 16, IR_OP_GRID_SAMPLE, 2, 2,
     (const onnx_attr_map[]){
         {"mode", IR_A_RESIZE_MODE, "bilinear", "bilinear=linear,bicubic=cubic"},
         {"padding_mode", IR_A_PADDING_MODE, "zeros", "zeros=constant,border=edge,reflection=reflect"},
         {"align_corners", IR_A_ALIGN_CORNERS, "0", NULL},
         {0}}},
    {"NonZero", onnx_convert_nonzero, NULL, 0, 9},
    /* constants and shape computations (always folded) */
    {"Constant", onnx_convert_constant, NULL, 0, 1},
    {"Shape", onnx_convert_shape, NULL, 0, 1},
    {"Size", onnx_convert_size, NULL, 0, 1},
    {"ConstantOfShape", onnx_convert_constant_of_shape, NULL, P(0), 9},
    {"Range", onnx_convert_range, NULL, P(0) | P(1) | P(2), 11},
};

const onnx_op_entry *onnx_op_find(const char *op_type) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(ops[i].name, op_type) == 0) return &ops[i];
  return NULL;
}
