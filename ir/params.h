/* Attribute decoding shared by shape inference, the CPU kernels and codegen:
 * one place fills the defaults, so every consumer agrees on them. */
#ifndef IR_PARAMS_H
#define IR_PARAMS_H

#include <math.h>

#include "graph.h"

typedef struct ir_act_params {
  ir_act kind;
  float alpha, beta; /* see ir_act in ops.h */
} ir_act_params;

/* 2-D convolution / transposed convolution. pads are ONNX order
 * [top, left, bottom, right]. kernel comes from the weight shape. */
typedef struct ir_conv_params {
  int64_t kernel[2], strides[2], dilations[2], pads[4], output_padding[2];
  int64_t group;
  ir_act_params act;
} ir_conv_params;

typedef struct ir_pool_params {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
  bool ceil_mode, count_include_pad;
} ir_pool_params;

/* Per-axis resolved slice of an input: output dim i has count[i] elements
 * taken at start[i] + k*step[i]. Axes not sliced: start 0, step 1, count dim. */
typedef struct ir_slice_params {
  int64_t start[IR_MAX_RANK], step[IR_MAX_RANK], count[IR_MAX_RANK];
} ir_slice_params;

typedef struct ir_resize_params {
  ir_resize_mode mode;
  ir_coord_mode coord;
  ir_nearest_mode nearest;
  float cubic_coeff_a;
  bool exclude_outside;
  float scale[IR_MAX_RANK];      /* used by the coordinate transform */
  int64_t out_dims[IR_MAX_RANK]; /* output size per axis */
  bool from_sizes;               /* sizes given (else scales): see ir_resize_axis_scale */
} ir_resize_params;

typedef struct ir_pad_params {
  int64_t begins[IR_MAX_RANK], ends[IR_MAX_RANK]; /* negative: crop */
  ir_pad_mode mode;
  float value;
} ir_pad_params;

/* The scalar attributes of the float unary ops, defaults filled (docs/ops.md;
 * selu's are ONNX's float32 constants): leaky_relu and elu use alpha, selu
 * alpha and gamma, hard_sigmoid alpha and beta, clip lo (min) and hi (max). */
typedef struct ir_unary_params {
  float alpha, beta, gamma, lo, hi;
} ir_unary_params;

void ir_unary_params_get(const ir_node *n, ir_unary_params *out);

/* fused_elementwise (docs/ops.md): a program over registers. Registers
 * 0..n_in-1 are the inputs (read through their broadcast to the output
 * shape), instruction i writes register n_in + i, the last instruction's
 * register is the output. Every register holds a value of the output's
 * dtype: a result is rounded to it, as the unfused node's output would be. */
#define IR_FUSED_MAX_INPUTS 8
#define IR_FUSED_MAX_INSTRS 16

typedef struct ir_fused_instr {
  ir_op op;          /* ir_fused_op_arity(op) > 0 */
  int a, b;          /* operand registers; b is -1 for a unary op */
  ir_act_params act; /* add sub mul div: the fused act (alpha, beta = p) */
  /* the op's scalars (ir_fused_instr_params): leaky_relu, elu: alpha;
   * selu: alpha, gamma; hard_sigmoid: alpha, beta; clip: min, max;
   * add sub mul div: the act's alpha, beta; otherwise 0 */
  float p[2];
} ir_fused_instr;

typedef struct ir_fused_program {
  int n_in, n_instr;
  ir_fused_instr instr[IR_FUSED_MAX_INSTRS];
} ir_fused_program;

/* 1 for the float unary ops a program may hold, 2 for the binary ones
 * (add sub mul div with their act, pow, prelu, two-input min and max), 0 for
 * every other op. */
int ir_fused_op_arity(ir_op op);
/* Decodes and checks n's program (attributes ops, regs, params): every op
 * allowed, registers defined before their use, at most
 * IR_FUSED_MAX_INSTRS instructions. INVALID_GRAPH naming the problem. */
vkml_status ir_fused_program_get(const ir_node *n, ir_fused_program *out);
/* The instruction scalars p[2] of an unfused node of op n->op (what
 * ir_fused_instr.p holds for it). */
void ir_fused_instr_params(const ir_node *n, float p[2]);
/* The unary scalars of instruction i (p unpacked into their fields). */
void ir_fused_unary_params(const ir_fused_instr *i, ir_unary_params *out);

/* Defaults: act none, alpha 0.01 for leaky_relu, 1 for elu, 0.2/0.5 for
 * hard_sigmoid, 0/6 for clip. */
void ir_act_params_get(const ir_node *n, ir_act_params *out);
/* conv2d / conv_transpose2d. Validates list lengths and values (strides and
 * dilations >= 1, pads >= 0, group >= 1); kernel comes from the weight type
 * w (rank 4). Channel agreement is left to shape inference. */
vkml_status ir_conv_params_get(const ir_node *n, const ir_type *w,
                               ir_conv_params *out);
/* conv2d_winograd: the conv2d it computes (3x3 kernel, strides and
 * dilations 1, group 1, its pads and act) and *m, its out_tile (2 or 4). */
vkml_status ir_winograd_params_get(const ir_node *n, ir_conv_params *out, int *m);
/* maxpool / avgpool: kernel required, the rest defaulted and validated. */
vkml_status ir_pool_params_get(const ir_node *n, ir_pool_params *out);
/* Pool output extent along one spatial axis (index 0 = H, 1 = W), including
 * the ceil_mode rule of docs/ops.md. Error if the window does not fit. */
vkml_status ir_pool_out_dim(const ir_pool_params *p, int axis, int64_t in,
                            int64_t *out);
/* strided_copy: output dims (shape), element strides into the input (one
 * per output axis, any sign) and offset; checks that every element read
 * lies inside in (an empty output reads nothing). With roll_dims and
 * roll_shifts (roll_rank > 0) the strides index x' = the input viewed as
 * roll_dims and rolled: x'[c] = x[(c_k + shift_k) mod dim_k] (Swin's
 * torch.roll, exported as slices and a concat, pass_fuse_copies). */
typedef struct ir_strided_params {
  int rank;
  int64_t dims[IR_MAX_RANK], strides[IR_MAX_RANK], offset;
  int roll_rank;
  int64_t roll_dims[IR_MAX_RANK], roll_shifts[IR_MAX_RANK];
} ir_strided_params;
vkml_status ir_strided_params_get(const ir_node *n, const ir_type *in, ir_strided_params *out);
/* x' element e (row-major over roll_dims) -> its element of the input. */
int64_t ir_strided_unroll(const ir_strided_params *p, int64_t e);

/* attention's operands q [.., M, D], kt [.., D, N], v [.., N, DV] (the batch
 * axes shared) and result [.., M, DV]: logical rank r, each operand read
 * from its input at an element offset with one stride per logical axis.
 * Without dims / views that is the input itself (row-major, offset 0); with
 * dims ([batch.., M, D, N, DV]) and q_view, k_view, v_view ([offset,
 * strides..], strides >= 0) a strided view of any input holding every
 * element it reads (pass_attention_views: the heads straight out of the
 * qkv projection). perm (absent: identity) writes the result transposed:
 * output axis i is logical axis perm[i]. */
typedef struct ir_attention_params {
  int rank;
  int64_t dims[IR_MAX_RANK]; /* the result's logical dims: batch.., M, DV */
  int64_t m, d, n, dv, batch;
  bool views;
  int64_t off[3], st[3][IR_MAX_RANK]; /* q, kt, v */
  int perm[IR_MAX_RANK];
} ir_attention_params;
vkml_status ir_attention_params_get(const ir_node *n, const ir_type *in, int n_in,
                                    ir_attention_params *out);
/* The result's element strides per logical axis (the output row-major over
 * the permuted dims). */
void ir_attention_y_strides(const ir_attention_params *p, int64_t *st);
/* Strides over leading batch axes (dims, st; nb of them) as at most two
 * runs, row-major: batch index b lies at (b / *inner) * *s0 + (b % *inner)
 * * *s1. False when that needs more runs. */
bool ir_batch_runs(const int64_t *dims, const int64_t *st, int nb, int64_t *inner, int64_t *s0,
                   int64_t *s1);
/* Resolves starts/ends/axes/steps against the input type (ONNX clamping). */
vkml_status ir_slice_params_get(const ir_node *n, const ir_type *in,
                                ir_slice_params *out);
/* Resolves scales/sizes, modes and output dims against the input type;
 * every mode it returns is one the coordinate helpers below implement. */
vkml_status ir_resize_params_get(const ir_node *n, const ir_type *in,
                                 ir_resize_params *out);
/* The coordinate semantics of resize (ONNX Resize-13), in one place for the
 * CPU reference (runtime/cpu/k_resize.c) and for what codegen bakes into the
 * GPU kernel (codegen/kernels/resize.c checks its exact integer maps
 * against them). All in double, as the ONNX reference computes. */
/* Axis d (in -> out elements): the scale and resized length the coordinate
 * transform uses — sizes give the exact ratio out/in, scales the float. */
void ir_resize_axis_scale(const ir_resize_params *p, int d, int64_t in, int64_t out,
                          double *scale, double *len_resized);
/* x_original: output coordinate x in input coordinates, per coordinate mode. */
double ir_resize_coord(ir_coord_mode mode, double x, double scale, int64_t in, int64_t out,
                       double len_resized);
/* The left neighbour of input coordinate xo, ceil(xo) - 1 (*left), and xo's
 * distance from it in (0, 1] (returned): an integer xo sits at ratio 1 on its
 * right neighbour, as in the ONNX reference. xo is first clamped to one
 * pixel beyond [0, in) — further out every tap clamps to the edge anyway —
 * which keeps the integer conversion defined. */
double ir_resize_left(double xo, int64_t in, int64_t *left);
/* The nearest input index of xo under nearest_mode m, clamped to [0, in). */
int64_t ir_resize_nearest(ir_nearest_mode m, double xo, int64_t in);
/* pads (2*rank, begins then ends), mode and value, validated for rank. */
vkml_status ir_pad_params_get(const ir_node *n, int rank, ir_pad_params *out);
/* Reduction axes (absent: all) as a mask of length rank; duplicates and
 * out-of-range axes are errors. */
vkml_status ir_reduce_axes_get(const ir_node *n, int rank, bool *mask);
/* transpose perm (absent: reversed), validated as a permutation of rank. */
vkml_status ir_perm_get(const ir_node *n, int rank, int *perm);

/* Maps axis in [-rank, rank) to [0, rank). */
vkml_status ir_axis_normalize(int64_t axis, int rank, int *out);

/* gather_nd / scatter_nd addressing (ir/infer_scatter.c): the data seen as
 * [batch][slices of `slice` elements], indices as [batch][tuples][k]; the
 * tuple (i_0..i_k-1), each wrapped once if negative and in [0, dims[j]),
 * picks slice sum i_j * strides[j] of its batch. */
typedef struct ir_nd_params {
  int batch_dims, k;
  int64_t batch;         /* product of the shared leading axes */
  int64_t tuples;        /* index tuples per batch */
  int64_t slice;         /* elements per slice: data dims from batch_dims + k */
  int64_t batch_slices;  /* slices per batch of the data */
  int64_t dims[IR_MAX_RANK], strides[IR_MAX_RANK]; /* the indexed axes */
} ir_nd_params;
/* Checks data and indices against each other (ONNX GatherND / ScatterND
 * rules; batch_dims 0 for scatter); an INVALID_GRAPH status names the
 * mismatch. */
vkml_status ir_nd_params_get(const ir_type *data, const ir_type *indices, int64_t batch_dims,
                             ir_nd_params *out);
/* NumPy broadcast of two shapes into out (dtype taken from a). */
vkml_status ir_broadcast(const ir_type *a, const ir_type *b, ir_type *out);

/* Applies a fused activation (reference semantics, in double). */
static inline double ir_act_apply(const ir_act_params *a, double x) {
  switch (a->kind) {
  case IR_ACT_NONE: return x;
  case IR_ACT_RELU: return x > 0 ? x : 0;
  case IR_ACT_RELU6: return x < 0 ? 0 : (x > 6 ? 6 : x);
  case IR_ACT_CLIP: return x < a->alpha ? a->alpha : (x > a->beta ? a->beta : x);
  case IR_ACT_LEAKY_RELU: return x >= 0 ? x : a->alpha * x;
  case IR_ACT_ELU: return x >= 0 ? x : a->alpha * (exp(x) - 1);
  case IR_ACT_SIGMOID: return 1 / (1 + exp(-x));
  case IR_ACT_TANH: return tanh(x);
  case IR_ACT_HARD_SIGMOID: {
    double y = a->alpha * x + a->beta;
    return y < 0 ? 0 : (y > 1 ? 1 : y);
  }
  case IR_ACT_HARD_SWISH: {
    double y = x / 6 + 0.5;
    return x * (y < 0 ? 0 : (y > 1 ? 1 : y));
  }
  case IR_ACT_SILU: return x / (1 + exp(-x));
  /* erfc and the sigmoid form: 1 + erf(z) and 1 + tanh(z) lose every digit
   * to cancellation for x << 0, where gelu is tiny but not zero. */
  case IR_ACT_GELU: return 0.5 * x * erfc(-x * 0.70710678118654752440);
  case IR_ACT_GELU_TANH: {
    double u = 0.79788456080286535588 * (x + 0.044715 * x * x * x); /* sqrt(2/pi) */
    return x / (1 + exp(-2 * u)); /* 0.5 (1 + tanh u) = sigmoid(2u) */
  }
  case IR_ACT_COUNT: break;
  }
  return x;
}

#endif
