/* The op table rows, attribute and enum tables. */
#include <string.h>

#include "graph.h"
#include "infer.h"
#include "params.h"

#define ATTRS(...) ((const ir_attr_id[]){__VA_ARGS__, IR_A_END})
#define NO_ATTRS ((const ir_attr_id[]){IR_A_END})
#define ACT_ATTRS IR_A_ACT, IR_A_ACT_ALPHA, IR_A_ACT_BETA
#define VARIADIC (-1)
#define NMS_ATTRS                                                              \
  IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES, IR_A_IOU_THRESHOLD, IR_A_SCORE_THRESHOLD

/* Rows: name and family come from IR_OPS; the rest is here. */
#define ROW(id, in_lo, in_hi, out_lo, out_hi, attrs_, infer_, flags_)          \
  [IR_OP_##id] = {.min_inputs = in_lo, .max_inputs = in_hi,                    \
                  .min_outputs = out_lo, .max_outputs = out_hi,                \
                  .attrs = attrs_, .infer = ir_infer_##infer_, .flags = flags_}
#define UNARY(id, attrs_) ROW(id, 1, 1, 1, 1, attrs_, unary, IR_OPF_ELEMENTWISE)
#define BIN(id, infer_, fl) ROW(id, 2, 2, 1, 1, NO_ATTRS, infer_, IR_OPF_ELEMENTWISE | (fl))
#define ARITH(id) ROW(id, 2, 2, 1, 1, ATTRS(ACT_ATTRS), binary, IR_OPF_ELEMENTWISE | IR_OPF_ACT)
#define VAR(id) ROW(id, 1, VARIADIC, 1, 1, NO_ATTRS, variadic, IR_OPF_ELEMENTWISE)
#define REDUCE(id) ROW(id, 1, 1, 1, 1, ATTRS(IR_A_AXES, IR_A_KEEPDIMS), reduce, 0)

static const ir_op_info op_rows[IR_OP_COUNT] = {
    UNARY(RELU, NO_ATTRS),
    UNARY(SIGMOID, NO_ATTRS),
    UNARY(TANH, NO_ATTRS),
    UNARY(EXP, NO_ATTRS),
    UNARY(LOG, NO_ATTRS),
    UNARY(SQRT, NO_ATTRS),
    UNARY(ERF, NO_ATTRS),
    UNARY(NEG, NO_ATTRS),
    UNARY(ABS, NO_ATTRS),
    UNARY(RECIPROCAL, NO_ATTRS),
    UNARY(SOFTPLUS, NO_ATTRS),
    UNARY(SIGN, NO_ATTRS),
    UNARY(FLOOR, NO_ATTRS),
    UNARY(CEIL, NO_ATTRS),
    UNARY(ROUND, NO_ATTRS),
    UNARY(HARD_SWISH, NO_ATTRS),
    UNARY(LEAKY_RELU, ATTRS(IR_A_ALPHA)),
    UNARY(ELU, ATTRS(IR_A_ALPHA)),
    UNARY(SELU, ATTRS(IR_A_ALPHA, IR_A_GAMMA)),
    UNARY(HARD_SIGMOID, ATTRS(IR_A_ALPHA, IR_A_BETA)),
    UNARY(CLIP, ATTRS(IR_A_MIN, IR_A_MAX)),
    ROW(NOT, 1, 1, 1, 1, NO_ATTRS, not, IR_OPF_ELEMENTWISE),
    UNARY(IDENTITY, NO_ATTRS),
    ROW(REORDER, 1, 1, 1, 1, NO_ATTRS, unary, 0),
    ROW(DOWNLOAD, 1, 1, 1, 1, NO_ATTRS, unary, 0),
    ROW(UPLOAD, 1, 1, 1, 1, NO_ATTRS, unary, 0),
    ROW(CAST, 1, 1, 1, 1, ATTRS(IR_A_TO), cast, IR_OPF_ELEMENTWISE),

    ARITH(ADD),
    ARITH(SUB),
    ARITH(MUL),
    ARITH(DIV),
    BIN(POW, binary, 0),
    BIN(PRELU, prelu, 0),
    BIN(EQUAL, compare, 0),
    BIN(GREATER, compare, 0),
    BIN(LESS, compare, 0),
    BIN(GREATER_OR_EQUAL, compare, 0),
    BIN(LESS_OR_EQUAL, compare, 0),
    BIN(AND, logic, 0),
    BIN(OR, logic, 0),
    BIN(XOR, logic, 0),
    ROW(SELECT, 3, 3, 1, 1, NO_ATTRS, select, 0),
    ROW(TO_CAPACITY, 1, 1, 1, 1, ATTRS(IR_A_VALUE), to_capacity, 0),
    ROW(MOD, 2, 2, 1, 1, ATTRS(IR_A_FMOD), binary, IR_OPF_ELEMENTWISE),
    VAR(MIN),
    VAR(MAX),
    VAR(SUM),
    VAR(MEAN),
    ROW(WHERE, 3, 3, 1, 1, NO_ATTRS, where, IR_OPF_ELEMENTWISE),
    ROW(FUSED_ELEMENTWISE, 1, IR_FUSED_MAX_INPUTS, 1, 1,
        ATTRS(IR_A_OPS, IR_A_REGS, IR_A_PARAMS), fused_elementwise, IR_OPF_ELEMENTWISE),

    ROW(CONV2D, 2, 3, 1, 1,
        ATTRS(IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS, IR_A_GROUP, ACT_ATTRS),
        conv2d, IR_OPF_ACT),
    ROW(CONV_TRANSPOSE2D, 2, 3, 1, 1,
        ATTRS(IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS, IR_A_GROUP,
              IR_A_OUTPUT_PADDING, ACT_ATTRS),
        conv_transpose2d, IR_OPF_ACT),
    ROW(GEMM, 2, 3, 1, 1,
        ATTRS(IR_A_ALPHA, IR_A_BETA, IR_A_TRANS_A, IR_A_TRANS_B, ACT_ATTRS),
        gemm, IR_OPF_ACT),
    ROW(MATMUL, 2, 2, 1, 1, ATTRS(ACT_ATTRS), matmul, IR_OPF_ACT),
    ROW(BATCHNORM, 5, 5, 1, 1, ATTRS(IR_A_EPSILON), batchnorm, 0),
    ROW(INSTANCE_NORM, 3, 3, 1, 1, ATTRS(IR_A_EPSILON), instance_norm, 0),
    ROW(LAYER_NORM, 2, 3, 1, 1, ATTRS(IR_A_AXIS, IR_A_EPSILON), layer_norm, 0),
    ROW(MAXPOOL, 1, 1, 1, 1,
        ATTRS(IR_A_KERNEL, IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS,
              IR_A_CEIL_MODE),
        pool, 0),
    ROW(AVGPOOL, 1, 1, 1, 1,
        ATTRS(IR_A_KERNEL, IR_A_STRIDES, IR_A_PADS, IR_A_DILATIONS,
              IR_A_CEIL_MODE, IR_A_COUNT_INCLUDE_PAD),
        pool, 0),
    ROW(GLOBAL_AVG_POOL, 1, 1, 1, 1, NO_ATTRS, global_pool, 0),
    ROW(GLOBAL_MAX_POOL, 1, 1, 1, 1, NO_ATTRS, global_pool, 0),
    ROW(SOFTMAX, 1, 1, 1, 1, ATTRS(IR_A_AXIS), softmax, 0),
    ROW(LOG_SOFTMAX, 1, 1, 1, 1, ATTRS(IR_A_AXIS), softmax, 0),
    ROW(RESIZE, 1, 1, 1, 1,
        ATTRS(IR_A_RESIZE_MODE, IR_A_SCALES, IR_A_SIZES, IR_A_COORD_MODE,
              IR_A_NEAREST_MODE, IR_A_CUBIC_COEFF_A, IR_A_EXCLUDE_OUTSIDE),
        resize, 0),

    REDUCE(REDUCE_MEAN),
    REDUCE(REDUCE_SUM),
    REDUCE(REDUCE_MAX),
    REDUCE(REDUCE_MIN),
    REDUCE(REDUCE_PROD),
    ROW(ARGMAX, 1, 1, 1, 1,
        ATTRS(IR_A_AXIS, IR_A_KEEPDIMS, IR_A_SELECT_LAST_INDEX), argminmax, 0),
    ROW(ARGMIN, 1, 1, 1, 1,
        ATTRS(IR_A_AXIS, IR_A_KEEPDIMS, IR_A_SELECT_LAST_INDEX), argminmax, 0),

    ROW(RESHAPE, 1, 1, 1, 1, ATTRS(IR_A_SHAPE), reshape, 0),
    ROW(FLATTEN, 1, 1, 1, 1, ATTRS(IR_A_AXIS), flatten, 0),
    ROW(SQUEEZE, 1, 1, 1, 1, ATTRS(IR_A_AXES), squeeze, 0),
    ROW(UNSQUEEZE, 1, 1, 1, 1, ATTRS(IR_A_AXES), unsqueeze, 0),
    ROW(TRANSPOSE, 1, 1, 1, 1, ATTRS(IR_A_PERM), transpose, 0),
    ROW(CONCAT, 1, VARIADIC, 1, 1, ATTRS(IR_A_AXIS), concat, 0),
    ROW(SPLIT, 1, 1, 1, VARIADIC, ATTRS(IR_A_AXIS, IR_A_SPLIT), split, 0),
    ROW(SLICE, 1, 1, 1, 1,
        ATTRS(IR_A_STARTS, IR_A_ENDS, IR_A_AXES, IR_A_STEPS), slice, 0),
    ROW(PAD, 1, 1, 1, 1, ATTRS(IR_A_PADS, IR_A_PAD_MODE, IR_A_VALUE), pad, 0),
    ROW(EXPAND, 1, 1, 1, 1, ATTRS(IR_A_SHAPE), expand, 0),
    ROW(TILE, 1, 1, 1, 1, ATTRS(IR_A_REPEATS), tile, 0),
    ROW(GATHER, 2, 2, 1, 1, ATTRS(IR_A_AXIS), gather, 0),
    ROW(GATHER_ELEMENTS, 2, 2, 1, 1, ATTRS(IR_A_AXIS), gather_elements, 0),
    /* gather_nd: data, indices [..., k] -> data's slices at the index
     * tuples; the first batch_dims axes of both are shared */
    ROW(GATHER_ND, 2, 2, 1, 1, ATTRS(IR_A_BATCH_DIMS), gather_nd, 0),
    ROW(SHAPE, 1, 1, 1, 1, NO_ATTRS, shape, 0),
    /* scatter_elements: data, indices, updates (indices' shape) -> data
     * with each update at its index along axis; scatter_nd: data, indices
     * [..., k], updates [indices' dims but the last, data dims from k] */
    ROW(SCATTER_ELEMENTS, 3, 3, 1, 1, ATTRS(IR_A_AXIS, IR_A_REDUCTION), scatter_elements, 0),
    ROW(SCATTER_ND, 3, 3, 1, 1, ATTRS(IR_A_REDUCTION), scatter_nd, 0),

    /* topk: k from the attribute, or from a runtime i64[1] second input
     * (then the output is bounded along axis). */
    ROW(TOPK, 1, 2, 2, 2, ATTRS(IR_A_K, IR_A_AXIS, IR_A_LARGEST, IR_A_SORTED, IR_A_K_MAX),
        topk, IR_OPF_BOUNDED_OUT),
    ROW(CUMSUM, 1, 1, 1, 1, ATTRS(IR_A_AXIS, IR_A_EXCLUSIVE, IR_A_REVERSE),
        cumsum, 0),
    ROW(NON_MAX_SUPPRESSION, 2, 2, 1, 1,
        ATTRS(IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES, IR_A_IOU_THRESHOLD,
              IR_A_SCORE_THRESHOLD),
        non_max_suppression, IR_OPF_BOUNDED_OUT),
    ROW(ROI_ALIGN, 3, 3, 1, 1,
        ATTRS(IR_A_ROI_MODE, IR_A_OUTPUT_HEIGHT, IR_A_OUTPUT_WIDTH,
              IR_A_SAMPLING_RATIO, IR_A_SPATIAL_SCALE, IR_A_COORD_MODE),
        roi_align, 0),

    /* argsort: x along its last axis, or a 1-D x cut into segments by
     * i64 offsets [S+1]; i64 indices within each segment (stable; NaN above
     * every number). Its GPU stages work on a sort state i32[P,n] (segment,
     * order key: one plane, two for i64, position): blocks of `width` sorted (rows: from each
     * row's start), runs of `width` merged in pairs (within rows of `row`
     * elements when given), the state turned into indices. */
    ROW(ARGSORT, 1, 2, 1, 1, ATTRS(IR_A_LARGEST), argsort, 0),
    ROW(SORT_BLOCK, 1, 2, 1, 1, ATTRS(IR_A_LARGEST, IR_A_WIDTH), sort_block, 0),
    ROW(SORT_MERGE, 1, 1, 1, 1, ATTRS(IR_A_WIDTH, IR_A_ROW), sort_merge, 0),
    ROW(SORT_INDEX, 1, 2, 1, 1, ATTRS(IR_A_SHAPE), sort_index, 0),
    /* nms_select: boxes, scores, their argsort (descending) -> the kept
     * boxes per (batch, class), i32[B,C,M] padded with -1; nms_compact:
     * those -> non_max_suppression's bounded i64[<=B*C*M,3]. */
    ROW(NMS_SELECT, 3, 3, 1, 1,
        ATTRS(IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES, IR_A_IOU_THRESHOLD,
              IR_A_SCORE_THRESHOLD),
        nms_select, 0),
    ROW(NMS_COMPACT, 1, 1, 1, 1, NO_ATTRS, nms_compact, IR_OPF_BOUNDED_OUT),
    /* non_max_suppression over one bounded row (boxes [1,<=N,4], scores
     * [1,1,<=N]; glsl/nms_window.comp has the algorithm): nms_keys ->
     * f32[1,2,N] (scores, -x_min; -inf for the rest), their argsort ->
     * nms_prep (boxes, scores, order) -> i32[5,N+1] (running x_max and
     * sorted x_min over the x order, n_x at [0][N]; the first state per
     * box; the x order's segment starts, their count at [3][N]; each box's
     * segment); nms_round (state, boxes, scores, order, prep) -> i32[N] the
     * next state; nms_settle (the same) -> the final state; nms_finish (the
     * same) -> the bounded i64[<=M,3] triples. */
    ROW(NMS_KEYS, 2, 2, 1, 1, ATTRS(NMS_ATTRS), nms_keys, 0),
    ROW(NMS_PREP, 3, 3, 1, 1, ATTRS(NMS_ATTRS), nms_prep, 0),
    ROW(NMS_ROUND, 5, 5, 1, 1, ATTRS(NMS_ATTRS), nms_round, 0),
    ROW(NMS_SETTLE, 5, 5, 1, 1, ATTRS(NMS_ATTRS), nms_round, 0),
    ROW(NMS_FINISH, 5, 5, 1, 1, ATTRS(NMS_ATTRS), nms_finish, IR_OPF_BOUNDED_OUT),
    /* non_zero: the positions of x's non-zero elements (NaN counts), row
     * major, as i64[rank, <=numel]; on the GPU nonzero_flags (i32 0/1 per
     * element, flattened), an exclusive cumsum of them, nonzero_write (x,
     * the offsets -> the positions, their count from the last offset). */
    ROW(NON_ZERO, 1, 1, 1, 1, NO_ATTRS, non_zero, IR_OPF_BOUNDED_OUT),
    ROW(NONZERO_FLAGS, 1, 1, 1, 1, NO_ATTRS, nonzero_flags, 0),
    ROW(NONZERO_WRITE, 2, 2, 1, 1, NO_ATTRS, nonzero_write, IR_OPF_BOUNDED_OUT),
};

static const char *const op_names[IR_OP_COUNT] = {
#define X(id, name, family) [IR_OP_##id] = name,
    IR_OPS(X)
#undef X
};
static const char *const op_families[IR_OP_COUNT] = {
#define X(id, name, family) [IR_OP_##id] = #family,
    IR_OPS(X)
#undef X
};

static const struct {
  const char *name;
  ir_attr_kind kind;
  ir_enum en;
} attr_rows[IR_A_COUNT] = {
#define X(id, name, kind, en) [IR_A_##id] = {name, IR_ATTR_##kind, IR_ENUM_##en},
    IR_ATTRS(X)
#undef X
};

static const char *const act_names[] = {
    "none", "relu", "relu6", "clip", "leaky_relu", "elu",
    "sigmoid", "tanh", "hard_sigmoid", "hard_swish", "silu", "gelu", "gelu_tanh", NULL};
static const char *const pad_mode_names[] = {"constant", "reflect", "edge", NULL};
static const char *const resize_mode_names[] = {"nearest", "linear", "cubic", NULL};
static const char *const coord_mode_names[] = {
    "half_pixel", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
    "align_corners", "output_half_pixel", NULL};
static const char *const nearest_mode_names[] = {
    "round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL};
static const char *const roi_mode_names[] = {"avg", "max", NULL};
static const char *const reduction_names[] = {"none", "add", "mul", "max", "min", NULL};

static const char *const *enum_table(ir_enum e) {
  switch (e) {
  case IR_ENUM_ACT: return act_names;
  case IR_ENUM_PAD_MODE: return pad_mode_names;
  case IR_ENUM_RESIZE_MODE: return resize_mode_names;
  case IR_ENUM_COORD_MODE: return coord_mode_names;
  case IR_ENUM_NEAREST_MODE: return nearest_mode_names;
  case IR_ENUM_ROI_MODE: return roi_mode_names;
  case IR_ENUM_REDUCTION: return reduction_names;
  default: return NULL;
  }
}

const ir_op_info *ir_op_get(ir_op op) {
  if ((unsigned)op >= IR_OP_COUNT) return NULL;
  return &op_rows[op];
}

const char *ir_op_name(ir_op op) {
  return (unsigned)op < IR_OP_COUNT ? op_names[op] : "?";
}

const char *ir_op_family(ir_op op) {
  return (unsigned)op < IR_OP_COUNT ? op_families[op] : "?";
}

bool ir_op_from_name(const char *name, size_t len, ir_op *out) {
  for (int i = 0; i < IR_OP_COUNT; i++) {
    if (strlen(op_names[i]) == len && memcmp(op_names[i], name, len) == 0) {
      *out = (ir_op)i;
      return true;
    }
  }
  return false;
}

const char *ir_attr_name(ir_attr_id id) { return attr_rows[id].name; }
ir_attr_kind ir_attr_kind_of(ir_attr_id id) { return attr_rows[id].kind; }
ir_enum ir_attr_enum_of(ir_attr_id id) { return attr_rows[id].en; }

bool ir_op_has_attr(ir_op op, ir_attr_id id) {
  if (id == IR_A_NAME || id == IR_A_CPU_REASON) return true;
  for (const ir_attr_id *a = op_rows[op].attrs; *a != IR_A_END; a++)
    if (*a == id) return true;
  return false;
}

bool ir_op_attr_from_name(ir_op op, const char *name, size_t len,
                          ir_attr_id *out) {
  static const ir_attr_id everywhere[] = {IR_A_NAME, IR_A_CPU_REASON};
  for (size_t i = 0; i < sizeof everywhere / sizeof everywhere[0]; i++) {
    const char *an = attr_rows[everywhere[i]].name;
    if (strlen(an) == len && memcmp(an, name, len) == 0) {
      *out = everywhere[i];
      return true;
    }
  }
  for (const ir_attr_id *a = op_rows[op].attrs; *a != IR_A_END; a++) {
    const char *an = attr_rows[*a].name;
    if (strlen(an) == len && memcmp(an, name, len) == 0) {
      *out = *a;
      return true;
    }
  }
  return false;
}

int ir_enum_count(ir_enum e) {
  if (e == IR_ENUM_DTYPE) return IR_DTYPE_COUNT;
  const char *const *t = enum_table(e);
  int n = 0;
  while (t && t[n]) n++;
  return n;
}

const char *ir_enum_value_name(ir_enum e, int value) {
  if (value < 0 || value >= ir_enum_count(e)) return NULL;
  if (e == IR_ENUM_DTYPE) return ir_dtype_name((ir_dtype)value);
  return enum_table(e)[value];
}

bool ir_enum_from_name(ir_enum e, const char *name, size_t len, int *out) {
  int n = ir_enum_count(e);
  for (int i = 0; i < n; i++) {
    const char *v = ir_enum_value_name(e, i);
    if (strlen(v) == len && memcmp(v, name, len) == 0) {
      *out = i;
      return true;
    }
  }
  return false;
}
