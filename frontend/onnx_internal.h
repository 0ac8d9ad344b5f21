/* Internals shared by the ONNX importer's files (not installed): the import
 * context, the symbol table of ONNX value names, node and attribute helpers,
 * the op table and constant folding. */
#ifndef ONNX_INTERNAL_H
#define ONNX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "frontend/onnx.pb-c.h"
#include "frontend/onnx_import.h"
#include "ir/graph.h"
#include "ir/strmap.h"
#include "ir/util.h"

/* Deepest message nesting accepted in a model (protobuf-c recurses). */
#define ONNX_MAX_NESTING 64
#define ONNX_MIN_OPSET 1
#define ONNX_MAX_OPSET 21
/* Constants with at most this many elements are folded when every input of
 * a node is constant (shape computations are tiny; weights stay IR ops). */
#define ONNX_FOLD_MAX_ELEMENTS (INT64_C(1) << 16)

static inline const char *onnx_str(const char *s) { return s ? s : ""; }

/* ---- loading (onnx_load.c) --------------------------------------------- */

/* Checks the wire format (lengths, nesting depth) and unpacks. Errors are
 * PARSE statuses without the file name. */
vkml_status onnx_model_unpack(const void *data, size_t bytes,
                              Onnx__ModelProto **out);
/* Reads and unpacks a file; errors name the file. */
vkml_status onnx_model_read_file(const char *path, Onnx__ModelProto **out);
void onnx_model_free(Onnx__ModelProto *m);
/* The default domain's opset, or -1 when the model imports none. */
int64_t onnx_model_opset(const Onnx__ModelProto *m);
/* Opset in range and every op type known (one UNSUPPORTED error listing
 * each unknown op type with a node). */
vkml_status onnx_check_model_ops(const Onnx__ModelProto *m);

/* ---- import context ---------------------------------------------------- */

/* What an ONNX value name stands for. */
typedef struct onnx_sym {
  const char *name; /* ONNX name */
  ir_type type;
  bool is_const;
  const void *data; /* constant bytes (ir_type_bytes(&type)), ctx-owned */
  ir_value *v;      /* IR value; NULL for a constant no IR node uses yet */
} onnx_sym;

typedef struct onnx_op_entry onnx_op_entry;

typedef struct onnx_ctx {
  const char *path; /* for messages */
  const char *base_dir; /* external data directory; NULL refuses it */
  const onnx_import_opts *opts;
  int64_t opset;
  int64_t inline_max_bytes;
  ir_graph *g;
  ir_arena *scratch; /* import-time names, syms and small data */
  ir_strmap syms;     /* ONNX name -> onnx_sym */
  ir_strmap ir_names; /* IR value names in use */
  void **bufs;       /* malloc'd constant data, freed after import */
  int n_bufs, cap_bufs;
  ir_value **blob_vals; /* constants placed in the blob at the end */
  const void **blob_data;
  int n_blob, cap_blob;
  int n_fresh;
  onnx_sym forgotten; /* marks a name undefined again (onnx_sym_forget) */
} onnx_ctx;

/* One ONNX node being converted. */
typedef struct onnx_node {
  const Onnx__NodeProto *p;
  const onnx_op_entry *op;
  int index;
  char label[192]; /* "Conv node 'c1'" or "Conv node #3 (output 'y')" */
  int n_in;
  onnx_sym **in; /* NULL where an optional input is omitted ("") */
  vkml_status err; /* first attribute error (sticky) */
} onnx_node;

/* Zeroed memory owned by the context until the import ends (NULL: OOM). */
void *onnx_alloc(onnx_ctx *c, size_t bytes);

/* ---- tensors (onnx_tensor.c) ------------------------------------------- */

bool onnx_dtype_to_ir(int32_t onnx_type, ir_dtype *out);
int32_t onnx_dtype_from_ir(ir_dtype t);
/* "FLOAT", "DOUBLE", ... ("type 99" for unknown codes, in buf). */
const char *onnx_dtype_name(int32_t onnx_type, char *buf, int buf_bytes);
/* Decodes an initializer / attribute tensor into type and bytes (raw_data,
 * typed fields or external data under c->base_dir), checking sizes. */
vkml_status onnx_tensor_decode(onnx_ctx *c, const Onnx__TensorProto *t,
                               ir_type *type, const void **data);
/* Element access on constant bytes: ir_dtype_load_f64 and friends (ir/dtype.h). */

/* ---- symbols and nodes (onnx_build.c) -------------------------------- */

onnx_sym *onnx_sym_get(onnx_ctx *c, const char *name);
/* name undefined again (a Loop body's names before its next iteration). */
vkml_status onnx_sym_forget(onnx_ctx *c, const char *name);
/* name stands for what sym stands for (an alias sharing the symbol). */
vkml_status onnx_sym_alias(onnx_ctx *c, const char *name, const onnx_sym *sym);
/* A new symbol; error if the name is already defined. */
vkml_status onnx_sym_add(onnx_ctx *c, const char *name, onnx_sym **out);
/* The IR value of a symbol, materialising a constant on first use. */
vkml_status onnx_sym_value(onnx_ctx *c, onnx_sym *s, ir_value **out);
/* base with the characters IR names cannot hold replaced (not reserved). */
const char *onnx_ir_name(onnx_ctx *c, const char *base);
/* A fresh unique IR value name derived from base. */
const char *onnx_fresh_name(onnx_ctx *c, const char *base);
/* The IR value of input i, materialising a constant; error if omitted. */
vkml_status onnx_input(onnx_ctx *c, onnx_node *n, int i, ir_value **out);
/* An IR constant for (type, data), e.g. a parameter the importer made up.
 * data must stay valid until the import ends (model- or onnx_alloc-owned):
 * blob constants are copied only when the blob is laid out. */
vkml_status onnx_const_value(onnx_ctx *c, const char *base, const ir_type *t,
                             const void *data, ir_value **out);
static inline bool onnx_has_input(const onnx_node *n, int i) {
  return i < n->n_in && n->in[i] != NULL;
}
static inline int onnx_n_outputs(const onnx_node *n) {
  return (int)n->p->n_output;
}
/* True if output i exists and is named (not an omitted optional output). */
bool onnx_output_used(const onnx_node *n, int i);

/* Creates an IR node of op on ins with n_out outputs (named after the ONNX
 * outputs when final, fresh names otherwise) and the source node name. */
vkml_status onnx_emit(onnx_ctx *c, onnx_node *n, ir_op op,
                      ir_value *const *ins, int n_in, int n_out, bool final,
                      ir_node **out);
/* Shape inference for a node made by onnx_emit: sets its output types. */
vkml_status onnx_finish(onnx_ctx *c, ir_node *nd);
/* emit + finish for a node without attributes; *out is output 0. */
vkml_status onnx_emit1(onnx_ctx *c, onnx_node *n, ir_op op,
                       ir_value *const *ins, int n_in, bool final,
                       ir_value **out);
/* emit1 of a binary / ternary op on helper values (fresh output). */
vkml_status onnx_op2(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *a, ir_value *b,
                     ir_value **out);
vkml_status onnx_op3(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *a, ir_value *b, ir_value *d,
                     ir_value **out);
/* count elements of v along axis from start by step, a slice node (v itself
 * when that is all of it). */
vkml_status onnx_slice_axis(onnx_ctx *c, onnx_node *n, ir_value *v, int axis, int64_t start,
                            int64_t step, int64_t count, ir_value **out);
/* emit on ONNX inputs 0..n_in-1 with one final output. */
vkml_status onnx_emit_inputs(onnx_ctx *c, onnx_node *n, ir_op op, int n_in,
                             ir_node **out);
/* finish, then bind every output of nd to the ONNX outputs in order. */
vkml_status onnx_done(onnx_ctx *c, onnx_node *n, ir_node *nd);
/* Error unless min <= inputs <= max (max -1: no limit). */
vkml_status onnx_check_arity(const onnx_node *n, int min, int max);
/* Input i with the same elements in a new shape: a retyped constant, or a
 * reshape node. */
vkml_status onnx_input_reshaped(onnx_ctx *c, onnx_node *n, int i, int rank,
                                const int64_t *dims, ir_value **out);
/* A reshape of v to dims (fresh value). */
vkml_status onnx_reshape(onnx_ctx *c, onnx_node *n, ir_value *v, int rank,
                         const int64_t *dims, bool final, ir_value **out);
/* Helper nodes on IR values (fresh outputs): v transposed by perm (v's
 * rank values); v reduced by op over axes with keepdims; v cast to `to`
 * (v itself when it already is). */
vkml_status onnx_transpose(onnx_ctx *c, onnx_node *n, ir_value *v, const int64_t *perm,
                           ir_value **out);
vkml_status onnx_reduce(onnx_ctx *c, onnx_node *n, ir_op op, ir_value *v, const int64_t *axes,
                        int n_axes, bool keepdims, ir_value **out);
vkml_status onnx_cast(onnx_ctx *c, onnx_node *n, ir_value *v, ir_dtype to, ir_value **out);
/* onnx_bind after renaming v (a helper value) after ONNX output i. */
vkml_status onnx_bind_named(onnx_ctx *c, onnx_node *n, int i, ir_value *v);
/* Binds ONNX output i to what sym stands for (Identity, Dropout). */
vkml_status onnx_bind_sym(onnx_ctx *c, onnx_node *n, int i, const onnx_sym *sym);
/* Binds ONNX output i to an IR value / a constant (data copied unless
 * it is already context- or model-owned: share says so). */
vkml_status onnx_bind(onnx_ctx *c, onnx_node *n, int i, ir_value *v);
vkml_status onnx_bind_const(onnx_ctx *c, onnx_node *n, int i,
                            const ir_type *t, const void *data, bool share);

/* Parameter inputs: must be constant. what names the parameter in the
 * message ("shape"). Integer constants of any integer dtype. */
vkml_status onnx_param(onnx_ctx *c, onnx_node *n, int i, const char *what,
                       onnx_sym **out);
vkml_status onnx_param_ints(onnx_ctx *c, onnx_node *n, int i, const char *what,
                            int64_t **vals, int *count);
vkml_status onnx_param_floats(onnx_ctx *c, onnx_node *n, int i,
                              const char *what, float **vals, int *count);
/* A one-element constant as double. */
vkml_status onnx_param_scalar(onnx_ctx *c, onnx_node *n, int i,
                              const char *what, double *out);
/* Errors naming the node are built by the driver: converters return plain
 * messages. */
vkml_status onnx_error(vkml_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- attributes (onnx_attrs.c) ---------------------------------------- */

const Onnx__AttributeProto *onnx_attr(const onnx_node *n, const char *name);
/* Getters return dflt when absent; a wrong kind records n->err. */
int64_t onnx_attr_i(onnx_node *n, const char *name, int64_t dflt);
float onnx_attr_f(onnx_node *n, const char *name, float dflt);
/* NUL-terminated copy in scratch, or dflt. */
const char *onnx_attr_s(onnx_ctx *c, onnx_node *n, const char *name,
                        const char *dflt);
/* Element count (-1 when absent) and *out. */
int onnx_attr_ints(onnx_node *n, const char *name, const int64_t **out);
int onnx_attr_floats(onnx_node *n, const char *name, const float **out);

/* A graph input or output must be a tensor of a supported element type
 * (what: "input" or "output", for the message). */
vkml_status onnx_check_io_type(const Onnx__ValueInfoProto *vi, const char *what);

/* ---- op table (onnx_table.c) ------------------------------------------- */

typedef vkml_status (*onnx_convert_fn)(onnx_ctx *c, onnx_node *n);
/* Folds a node whose inputs are all constant: binds constant outputs and
 * sets *done, or leaves *done false to fall back to the converter. */
typedef vkml_status (*onnx_fold_fn)(onnx_ctx *c, onnx_node *n, bool *done);

/* How one ONNX attribute becomes an IR attribute (the rows the generic
 * converter onnx_convert_mapped takes): ONNX name, IR attribute (its kind
 * says how to read the ONNX one: int, float, ints, floats, or a string
 * naming an enum value), the ONNX default as text (NULL: absent stays
 * absent), and for enums the ONNX names that differ from the IR's as
 * "onnx=ir,onnx=ir" (NULL: the same names). */
typedef struct onnx_attr_map {
  const char *onnx;
  ir_attr_id ir;
  const char *dflt;
  const char *rename;
} onnx_attr_map;

struct onnx_op_entry {
  const char *name;
  onnx_convert_fn convert;
  onnx_fold_fn fold;    /* NULL: never folded */
  uint32_t param_mask;  /* inputs in parameter positions (bit i = input i) */
  int min_opset;        /* older versions have other semantics */
  /* onnx_convert_mapped: one IR node of op `ir` on the ONNX inputs (their
   * count in [min_in, max_in]) with the attributes of `attrs` (terminated
   * by an entry with onnx NULL) */
  ir_op ir;
  int min_in, max_in;
  const onnx_attr_map *attrs;
};

const onnx_op_entry *onnx_op_find(const char *op_type);

/* Converters, one per ONNX op family (onnx_ops_*.c). */
#define ONNX_CONVERTERS(X)                                                     \
  X(unary) X(leaky_relu) X(elu) X(selu) X(hard_sigmoid) X(clip) X(cast)        \
  X(identity) X(dropout) X(binary) X(variadic) X(where) X(not)                 \
  X(conv) X(conv_transpose) X(gemm) X(matmul) X(batchnorm) X(instance_norm)    \
  X(layer_norm) X(maxpool) X(avgpool) X(lppool) X(global_pool) X(softmax)      \
  X(resize)                                                                    \
  X(upsample) X(reduce) X(argminmax) X(reshape) X(flatten) X(squeeze)          \
  X(unsqueeze) X(transpose) X(concat) X(split) X(slice) X(pad) X(expand)       \
  X(tile) X(gather) X(gather_elements) X(topk) X(cumsum) X(nms) X(roi_align)   \
  X(nonzero) X(constant) X(shape) X(size) X(constant_of_shape) X(range)        \
  X(gather_nd) X(scatter_elements) X(scatter_nd) X(if) X(loop) X(scan)         \
  X(einsum) /* onnx_einsum.c: lowered into ops that have kernels */            \
  X(rnn) /* onnx_rnn.c: RNN, GRU, LSTM unrolled into ops that have kernels */   \
  X(softsign) X(thresholded_relu) X(shrink) X(celu) X(isnan) X(isinf)          \
  X(depth_to_space) X(space_to_depth) X(trilu) X(eye_like) X(hardmax) X(lrn)   \
  X(mvn) X(quantize_linear) X(dequantize_linear) X(dynamic_quantize_linear)     \
  X(gelu) X(mish) X(group_norm) X(one_hot)                                     \
  /* onnx_lowered.c: lowered into ops that have kernels */                     \
  X(matmul_integer) X(conv_integer) X(qlinear_matmul) X(qlinear_conv)          \
  /* onnx_quant.c, likewise */                                                 \
  X(nll_loss) X(softmax_cross_entropy) /* onnx_loss.c, likewise */             \
  X(compress) X(reverse_sequence) /* onnx_select.c, likewise */               \
  X(mapped) /* onnx_mapped.c: an op whose table row says it all */

#define X(name) vkml_status onnx_convert_##name(onnx_ctx *c, onnx_node *n);
ONNX_CONVERTERS(X)
#undef X

/* The bytes of constant v, which the import made (inline, or a blob
 * constant whose bytes wait until the blob is laid out) (onnx_fold.c). */
const void *onnx_const_bytes(const onnx_ctx *c, const ir_value *v);

/* What is known at import time of a small 1-D (or scalar) integer input i
 * that is computed at run time, e.g. Concat(Gather(Shape(x), 0), [-1, 4])
 * with x bounded: *count elements, vals[k] valid where known[k]; the walk
 * follows shape, concat, gather / slice of constants, unsqueeze, squeeze,
 * reshape, identity and integer casts back to constants and static dims
 * (onnx_partial.c). A constant input is all known. Error when the input is
 * not a list of at most IR_MAX_RANK integers. */
vkml_status onnx_partial_ints(onnx_ctx *c, onnx_node *n, int i, const char *what, int64_t *vals,
                              bool *known, int *count);
/* The same, and where a run-time element comes from: the bounded axis
 * axis[k] of value src[k] (NULL: not known). */
vkml_status onnx_partial_sizes(onnx_ctx *c, onnx_node *n, int i, const char *what,
                               int64_t *vals, bool *known, const ir_value **src, int *axis,
                               int *count);
/* A tensor of the run-time shape input in holds (one size known at run time
 * only, the rest known: onnx_partial_sizes), every element vd (a scalar of
 * type vt): the value *out, named after ONNX output 0 when final
 * (onnx_ops_const.c; ConstantOfShape, Expand). */
vkml_status onnx_fill_runtime(onnx_ctx *c, onnx_node *n, int in, const ir_type *vt,
                              const void *vd, bool final, ir_value **out);
/* The value x when v is x's shape computed at run time (shape op, through
 * identities and integer casts), else NULL. */
const ir_value *onnx_shape_source(const ir_value *v);

/* Converts a subgraph's initializers and nodes into c's graph (If's
 * branches; a Loop body, whose inputs the caller has bound); outer names
 * are visible, ONNX keeps every name unique; its outputs are then symbols
 * (onnx_import.c). Inputs that are not bound are an error. */
vkml_status onnx_convert_subgraph(onnx_ctx *c, const Onnx__GraphProto *gp);

/* A conv or pool node's spatial attributes resolved against its input
 * (auto_pad made explicit), per ONNX spatial axis (onnx_ops_nn.c). */
typedef struct onnx_spatial {
  int sp; /* spatial axes: 1 to 3 */
  int64_t kernel[3], strides[3], dilations[3];
  int64_t pads[6]; /* ONNX order: every axis's begin, then every end */
} onnx_spatial;

/* A Conv's IR node on given values x and w (1-D or 2-D), n's attributes
 * (strides, dilations, pads, auto_pad, kernel_shape against w) and group:
 * *out its output, unbound (onnx_ops_nn.c; ConvInteger, QLinearConv). */
vkml_status onnx_conv_on(onnx_ctx *c, onnx_node *n, ir_value *x, ir_value *w, int64_t group,
                         ir_value **out);
/* v with `before` and `after` zeros along axis (v itself when both are 0;
 * onnx_conv3d.c). */
vkml_status onnx_pad_axis(onnx_ctx *c, onnx_node *n, ir_value *v, int axis, int64_t before,
                          int64_t after, ir_value **out);

/* Quantization helpers (onnx_lowered.c): a scale or zero point (input i)
 * for x: a one-element one as is, a 1-D one of x's axis length reshaped to
 * broadcast along that axis (per-axis); saturate(round_half_even(v) [+ zpf])
 * into to (u8 or i8), v and zpf f32. */
vkml_status onnx_per_axis(onnx_ctx *c, onnx_node *n, int i, const ir_type *x, int64_t axis,
                          ir_value **out);
vkml_status onnx_requantize(onnx_ctx *c, onnx_node *n, ir_value *v, ir_value *zpf, ir_dtype to,
                            ir_value **out);

/* 3-D (5-D input) Conv, pools and ConvTranspose lowered into 2-D ops
 * (onnx_conv3d.c); they bind the node's output. group is ONNX's; the pools
 * take MAXPOOL or AVGPOOL; out_pad is ConvTranspose's output_padding. */
vkml_status onnx_conv3d(onnx_ctx *c, onnx_node *n, const onnx_spatial *s, int64_t group);
vkml_status onnx_pool3d(onnx_ctx *c, onnx_node *n, ir_op op, const onnx_spatial *s,
                        bool ceil_mode, bool count_include_pad);
vkml_status onnx_conv_transpose3d(onnx_ctx *c, onnx_node *n, const onnx_spatial *s,
                                  const int64_t *out_pad, int64_t group);

/* The IR op an ONNX elementwise op maps to (unary, binary, variadic). */
bool onnx_elementwise_op(const char *op_type, ir_op *out);

/* Constant folding (onnx_fold.c). */
vkml_status onnx_fold_node(onnx_ctx *c, onnx_node *n, bool *done);
/* Resolves ONNX Slice starts/ends/axes/steps on dims into per-axis start,
 * step and count (as ONNX clamps them). */
vkml_status onnx_slice_resolve(int rank, const int64_t *dims,
                               const int64_t *starts, const int64_t *ends,
                               const int64_t *axes, const int64_t *steps,
                               int n, int64_t *start, int64_t *step,
                               int64_t *count);
/* Output type of Reshape / Flatten / Squeeze / Unsqueeze on in; axes_out
 * receives the normalised axes (Flatten: its axis; Squeeze: the dropped ones;
 * Unsqueeze: the inserted ones). */
vkml_status onnx_movement_type(onnx_ctx *c, onnx_node *n, const ir_type *in,
                               ir_type *out, int64_t *axes_out, int *n_axes);
/* Output type of Slice on in, and its per-axis start and step. */
vkml_status onnx_slice_type(onnx_ctx *c, onnx_node *n, const ir_type *in,
                            ir_type *out, int64_t *start, int64_t *step);
/* ONNX Reshape's 0 and -1 resolved against the input dims. */
vkml_status onnx_reshape_resolve(const ir_type *in, const int64_t *shape,
                                 int n, bool allowzero, int64_t *dims);

#endif
