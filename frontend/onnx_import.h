/* ONNX importer: an ONNX model (protobuf, default-domain opsets 1..17, each op
 * checked against the oldest opset whose semantics its converter follows)
 * becomes a verified-
 * shape ir_graph. Parameters that ONNX passes as inputs (Reshape's shape,
 * Slice's starts, Clip's min, ...) become attributes, so they must be
 * constants: initializers, Constant nodes, shape computations folded at
 * import, or graph inputs frozen through the options. Nothing here writes
 * files. */
#ifndef ONNX_IMPORT_H
#define ONNX_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/graph.h"

/* Valid when zero-initialised (every field optional). Arrays are read during
 * the call only. */
typedef struct onnx_import_opts {
  /* --input-shape NAME=D,D,...: input shape_names[i] gets the dims
   * shape_dims[i][0 .. shape_ranks[i]), replacing symbolic ones. */
  int n_shapes;
  const char *const *shape_names;
  const int *shape_ranks;
  const int64_t *const *shape_dims;
  /* NULL, or per shape NULL (--input-shape) or the tensor file it was read
   * from (vkc --input NAME=FILE): such a shape fixes symbolic dimensions
   * only (an input whose dims are all known keeps them), and messages name
   * the file. */
  const char *const *shape_files;
  /* Graph inputs frozen to values: they become constants and leave the
   * graph's input list. const_types[i] must match the input's declared type;
   * const_data[i] holds ir_type_bytes(&const_types[i]) bytes (copied). */
  int n_consts;
  const char *const *const_names;
  const ir_type *const_types;
  const void *const *const_data;
  /* Constants of at most this many bytes are kept inline (printed in the
   * text form); larger ones go to the weights blob at 64-byte aligned
   * offsets. 0 means 64; negative means never inline. */
  int64_t inline_max_bytes;
  /* Where external-data tensors are looked up. NULL: the model file's
   * directory (onnx_import_file) or refused (onnx_import_buffer). */
  const char *base_dir;
  /* Constant folding at import (shape computations: Shape, Gather, Concat,
   * ... feeding Reshape): nodes whose inputs are all constant run through
   * this evaluator (the CPU reference kernels: rt_cpu_eval_node). NULL:
   * nothing is folded, and a model whose parameter inputs (a Reshape's
   * shape, ...) are computed fails to import. */
  ir_eval_fn eval;
  void *eval_user;
} onnx_import_opts;

/* Imports the model at path. opts may be NULL. On success *out is a graph
 * whose weights blob (if any constant needed one) is owned by the graph; the
 * caller destroys it with ir_graph_destroy. On error *out is NULL and the
 * message names the file, the node and the reason; an unsupported op type
 * yields one UNSUPPORTED error listing every unsupported op type of the model
 * with a node each. */
vkml_status onnx_import_file(const char *path, const onnx_import_opts *opts,
                             ir_graph **out);
/* Same from bytes in memory; name is used in messages (NULL: "<memory>"). */
vkml_status onnx_import_buffer(const void *data, size_t bytes, const char *name,
                               const onnx_import_opts *opts, ir_graph **out);

/* What a caller needs to know before importing (the conformance runner:
 * which inputs to freeze and which to feed). */
typedef struct onnx_model_info {
  int n_inputs;       /* graph inputs that are not initializers, in order */
  char **input_names; /* ONNX names */
  /* input_is_param[i]: the input reaches a parameter position (Reshape's
   * shape, TopK's K, Range's bounds, ...), directly or through other nodes,
   * so it must be frozen to a value for the import to succeed (TopK's K
   * excepted: it may also stay a run-time input). */
  bool *input_is_param;
  int n_outputs;
  char **output_names;
  int64_t opset; /* of the default domain */
} onnx_model_info;

/* Reads the model's interface. Fails like onnx_import_file on a malformed
 * file, and with the same UNSUPPORTED error when the model uses op types the
 * importer does not know. Free with onnx_model_info_free (also safe on a
 * zeroed struct; *out is zeroed on error). */
vkml_status onnx_model_info_read(const char *path, onnx_model_info *out);
void onnx_model_info_free(onnx_model_info *info);

/* Parses a command-line "NAME=D,D,..." into *name (malloc'd, caller frees),
 * dims and *rank (at most IR_MAX_RANK dims, each >= 0; "NAME=" is a scalar). */
/* Parses a comma-separated list of op names into mask[IR_OP_COUNT] (true:
 * listed): IR names ("conv2d") or ONNX spellings ("Conv",
 * "BatchNormalization", "GlobalAveragePool", ...), matched ignoring case and
 * '_'. NULL or "" lists none. An unknown name is an INVALID_ARGUMENT error
 * "<what>: unknown op 'NAME'". */
vkml_status onnx_op_list_parse(const char *list, const char *what, bool *mask);

vkml_status onnx_shape_arg_parse(const char *arg, char **name, int *rank,
                                 int64_t dims[IR_MAX_RANK]);

#endif
