/* The op table: one row per op drives the text parser and printer, the
 * verifier, shape inference, the CPU reference kernels and (later) codegen.
 *
 * Adding an op: one X(...) row here, one row in op_table.c (arity, attributes,
 * shape inference), and a CPU kernel for its family in runtime/cpu/. */
#ifndef IR_OPS_H
#define IR_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "vkml_status.h"

/* X(ID, text name, kernel family). The family names the CPU kernel
 * (rt_cpu_<family> in runtime/cpu/) and later the GLSL emitter. */
#define IR_OPS(X)                                                              \
  /* elementwise unary */                                                      \
  X(RELU, "relu", unary)                                                       \
  X(SIGMOID, "sigmoid", unary)                                                 \
  X(TANH, "tanh", unary)                                                       \
  X(EXP, "exp", unary)                                                         \
  X(LOG, "log", unary)                                                         \
  X(SQRT, "sqrt", unary)                                                       \
  X(ERF, "erf", unary)                                                         \
  X(NEG, "neg", unary)                                                         \
  X(ABS, "abs", unary)                                                         \
  X(RECIPROCAL, "reciprocal", unary)                                           \
  X(SOFTPLUS, "softplus", unary)                                               \
  X(SIGN, "sign", unary)                                                       \
  X(FLOOR, "floor", unary)                                                     \
  X(CEIL, "ceil", unary)                                                       \
  X(ROUND, "round", unary)                                                     \
  X(HARD_SWISH, "hard_swish", unary)                                           \
  X(LEAKY_RELU, "leaky_relu", unary)                                           \
  X(ELU, "elu", unary)                                                         \
  X(SELU, "selu", unary)                                                       \
  X(HARD_SIGMOID, "hard_sigmoid", unary)                                       \
  X(CLIP, "clip", unary)                                                       \
  X(NOT, "not", unary)                                                         \
  X(IDENTITY, "identity", copy)                                                \
  X(REORDER, "reorder", copy) /* identity; output in its own layout */        \
  /* device transfers (pass_insert_transfers): identity, output on the CPU  \
   * (download) or on the GPU (upload) */                                      \
  X(DOWNLOAD, "download", copy)                                                \
  X(UPLOAD, "upload", copy)                                                    \
  X(CAST, "cast", cast)                                                        \
  /* elementwise binary, NumPy broadcasting */                                 \
  X(ADD, "add", binary)                                                        \
  X(SUB, "sub", binary)                                                        \
  X(MUL, "mul", binary)                                                        \
  X(DIV, "div", binary)                                                        \
  X(POW, "pow", binary)                                                        \
  X(PRELU, "prelu", binary)                                                    \
  X(EQUAL, "equal", binary)                                                    \
  X(GREATER, "greater", binary)                                                \
  X(LESS, "less", binary)                                                      \
  X(GREATER_OR_EQUAL, "greater_or_equal", binary)                              \
  X(LESS_OR_EQUAL, "less_or_equal", binary)                                    \
  X(AND, "and", binary)                                                        \
  X(OR, "or", binary)                                                          \
  X(XOR, "xor", binary)                                                        \
  /* remainder: fmod=1 C's fmod (sign of x; floats need it), fmod=0 the      \
   * sign of y (Python's %); integer / 0 is 0 */                               \
  X(MOD, "mod", binary)                                                        \
  /* elementwise variadic (>= 1 input), NumPy broadcasting */                  \
  X(MIN, "min", variadic)                                                      \
  X(MAX, "max", variadic)                                                      \
  X(SUM, "sum", variadic)                                                      \
  X(MEAN, "mean", variadic)                                                    \
  X(WHERE, "where", where)                                                     \
  /* cond (one bool), a, b -> a if cond else b; sizes may differ along one   \
   * axis (the output is bounded there: ONNX If's branches) */                 \
  X(SELECT, "select", select)                                                  \
  /* x bounded, its rows leading -> its capacity as a static value: the live \
   * elements, then `value` (a long topk with a run-time k is split through \
   * it: pass_split_topk) */                                                  \
  X(TO_CAPACITY, "to_capacity", to_capacity)                                   \
  /* a chain or small DAG of float elementwise ops as one program           \
   * (pass_fuse_elementwise; ir/params.h ir_fused_program) */                  \
  X(FUSED_ELEMENTWISE, "fused_elementwise", fused_elementwise)                 \
  /* neural-network ops */                                                     \
  X(CONV2D, "conv2d", conv2d)                                                  \
  X(CONV_TRANSPOSE2D, "conv_transpose2d", conv_transpose2d)                    \
  X(GEMM, "gemm", gemm)                                                        \
  X(MATMUL, "matmul", matmul)                                                  \
  X(BATCHNORM, "batchnorm", batchnorm)                                         \
  X(INSTANCE_NORM, "instance_norm", instance_norm)                             \
  X(LAYER_NORM, "layer_norm", layer_norm)                                      \
  X(MAXPOOL, "maxpool", pool)                                                  \
  X(AVGPOOL, "avgpool", pool)                                                  \
  X(GLOBAL_AVG_POOL, "global_avg_pool", global_pool)                           \
  X(GLOBAL_MAX_POOL, "global_max_pool", global_pool)                           \
  X(SOFTMAX, "softmax", softmax)                                               \
  X(LOG_SOFTMAX, "log_softmax", softmax)                                       \
  X(RESIZE, "resize", resize)                                                  \
  /* reductions */                                                             \
  X(REDUCE_MEAN, "reduce_mean", reduce)                                        \
  X(REDUCE_SUM, "reduce_sum", reduce)                                          \
  X(REDUCE_MAX, "reduce_max", reduce)                                          \
  X(REDUCE_MIN, "reduce_min", reduce)                                          \
  X(REDUCE_PROD, "reduce_prod", reduce)                                        \
  X(ARGMAX, "argmax", argminmax)                                               \
  X(ARGMIN, "argmin", argminmax)                                               \
  /* data movement */                                                          \
  X(RESHAPE, "reshape", copy)                                                  \
  X(FLATTEN, "flatten", copy)                                                  \
  X(SQUEEZE, "squeeze", copy)                                                  \
  X(UNSQUEEZE, "unsqueeze", copy)                                              \
  X(TRANSPOSE, "transpose", transpose)                                         \
  X(CONCAT, "concat", concat)                                                  \
  X(SPLIT, "split", split)                                                     \
  X(SLICE, "slice", slice)                                                     \
  X(PAD, "pad", pad)                                                           \
  X(EXPAND, "expand", expand)                                                  \
  X(TILE, "tile", tile)                                                        \
  X(GATHER, "gather", gather)                                                  \
  X(GATHER_ELEMENTS, "gather_elements", gather_elements)                       \
  X(GATHER_ND, "gather_nd", gather_nd)                                         \
  /* x's dims as i64[rank] at run time (a bounded axis: its actual size) */    \
  X(SHAPE, "shape", shape)                                                     \
  /* data with updates written at indices (ONNX ScatterElements, ScatterND;  \
   * reduction none add mul max min) */                                        \
  X(SCATTER_ELEMENTS, "scatter_elements", scatter_elements)                    \
  X(SCATTER_ND, "scatter_nd", scatter_nd)                                      \
  /* vision ops */                                                             \
  X(TOPK, "topk", topk)                                                        \
  X(CUMSUM, "cumsum", cumsum)                                                  \
  X(NON_MAX_SUPPRESSION, "non_max_suppression", non_max_suppression)           \
  X(ROI_ALIGN, "roi_align", roi_align)                                         \
  /* segmented argsort and its GPU stages (passes/pass_split_sort.c) */        \
  X(ARGSORT, "argsort", argsort)                                               \
  X(SORT_BLOCK, "sort_block", sort_block)                                      \
  X(SORT_MERGE, "sort_merge", sort_merge)                                      \
  X(SORT_INDEX, "sort_index", sort_index)                                      \
  /* non_max_suppression's GPU stages (passes/pass_split_nms.c) */             \
  X(NMS_SELECT, "nms_select", nms_select)                                      \
  X(NMS_COMPACT, "nms_compact", nms_compact)                                   \
  /* ... and over one bounded row (passes/pass_split_nms.c) */                 \
  X(NMS_KEYS, "nms_keys", nms_window)                                          \
  X(NMS_PREP, "nms_prep", nms_window)                                          \
  X(NMS_ROUND, "nms_round", nms_window)                                        \
  X(NMS_SETTLE, "nms_settle", nms_window)                                      \
  X(NMS_FINISH, "nms_finish", nms_window)                                      \
  /* non_zero and its GPU stages (passes/pass_split_nonzero.c) */              \
  X(NON_ZERO, "non_zero", non_zero)                                            \
  X(NONZERO_FLAGS, "nonzero_flags", nonzero_flags)                             \
  X(NONZERO_WRITE, "nonzero_write", nonzero_write)

typedef enum ir_op {
#define X(id, name, family) IR_OP_##id,
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
  X(K_MAX, "k_max", INT, NONE)

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

enum {
  IR_OPF_ELEMENTWISE = 1 << 0, /* output[i] depends on input[i] only */
  IR_OPF_ACT = 1 << 1,         /* accepts a fused activation */
  IR_OPF_BOUNDED_OUT = 1 << 2, /* output size may be data dependent */
};

/* Name and family come from IR_OPS: ir_op_name(), ir_op_family(). */
typedef struct ir_op_info {
  int min_inputs, max_inputs; /* max -1: variadic */
  int min_outputs, max_outputs; /* max -1: variadic */
  const ir_attr_id *attrs;      /* terminated by IR_A_END; `name` is implicit */
  ir_infer_fn infer;
  unsigned flags;
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
