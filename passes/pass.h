/* The pass contract: every graph pass is
 *
 *   vkml_status pass_x(ir_graph *g, const pass_opts *opts, bool *changed)
 *
 * rewriting g in place (Mesa NIR's nir_opt_* shape: a status because a pass
 * can fail on a bad graph or out of memory; *changed, which may be NULL, is
 * NIR's progress). A pass leaves a graph that ir_verify accepts; the pipeline
 * (pipeline.h) checks that in debug builds. passes/ includes ir/ only: what a
 * pass must ask the runtime or codegen comes through the callbacks below,
 * which the caller injects. */
#ifndef PASS_H
#define PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/graph.h"
#include "ir/plan.h"
#include "ir/target.h"

/* The folding evaluator (ir/graph.h's ir_eval_fn: rt_cpu_eval_node). */
typedef ir_eval_fn pass_eval_fn;

/* Operand mask of n in a packed layout: bit i = input i, bit 16 + i =
 * output i may be packed; 0 = n runs in the default layout only (codegen's
 * cg_query_layout_operands answers it for the GPU kernels). */
typedef uint32_t (*pass_layout_operands_fn)(void *user, const ir_node *n, ir_layout layout);

/* Why n cannot run on the GPU, or NULL when it can: the reason is written
 * into why (bytes long) and returned (codegen's cg_query_place answers it:
 * no GPU kernel, too many bindings for the device, --cpu-ops, ...). */
typedef const char *(*pass_place_fn)(void *user, const ir_node *n, char *why, size_t bytes);

/* Default of pass_opts.fold_max_bytes: a folded result larger than this
 * stays computed at run time (a constant that large costs file size and
 * upload; a small one saves a dispatch). */
#define PASS_FOLD_MAX_BYTES (64 * 1024)
/* A larger result still folds, up to this size, when it holds no more
 * elements than the node's largest constant input (no broadcast growth). */
#define PASS_FOLD_SAME_MAX_BYTES (64 * 1024 * 1024)
/* Constants a pass creates go inline (printed in the text) up to this size,
 * into the weights blob above it. */
#define PASS_INLINE_MAX_BYTES 64

/* pass_winograd's choice: AUTO (the default rule, pass_winograd.c), OFF
 * (none), F2 / F4 (every conv it can take, F(2x2,3x3) / F(4x4,3x3)). */
typedef enum pass_winograd_mode {
  PASS_WINOGRAD_AUTO = 0,
  PASS_WINOGRAD_OFF,
  PASS_WINOGRAD_F2,
  PASS_WINOGRAD_F4,
} pass_winograd_mode;

/* s as a pass_winograd_mode ("auto", "off", "f2", "f4": the tools'
 * --winograd); false for anything else. */
bool pass_winograd_mode_parse(const char *s, pass_winograd_mode *out);

/* Valid when zero-initialised: no folding evaluator (fold_constants does
 * nothing), fp32, no packed layout unless the graph annotates one. */
typedef struct pass_opts {
  pass_eval_fn eval; /* fold_constants; NULL: nothing is folded */
  void *eval_user;
  int64_t fold_max_bytes; /* 0: PASS_FOLD_MAX_BYTES */
  ir_precision precision; /* IR_PRECISION_FP16: pass_fp16 converts the graph */
  /* pass_layout: IR_LAYOUT_NC4HW4 or IR_LAYOUT_NHWC packs every node that
   * can run in that layout; IR_LAYOUT_DEFAULT packs only nodes whose outputs
   * the graph annotates (nc4hw4). */
  ir_layout layout;
  /* with layout IR_LAYOUT_DEFAULT and no annotations: nhwc where it pays,
   * the regions pass_layout_nhwc_regions keeps (--layout auto) */
  bool layout_auto;
  pass_layout_operands_fn layout_operands; /* NULL: nothing runs packed */
  /* the constants a node's kernel reads tap-major (asked with
   * IR_LAYOUT_NHWC); NULL: none */
  pass_layout_operands_fn layout_weights;
  void *layout_user; /* of both */
  /* pass_place: NULL places nothing (the graph runs on the CPU executor,
   * which ignores placement). */
  pass_place_fn place;
  void *place_user;
  /* pass_place: a node that cannot run on the GPU is an error listing every
   * such node and its reason (--fallback never). */
  bool fallback_never;
  /* pass_winograd: which 3x3 stride-1 convs become conv2d_winograd; its
   * default rule applies on a GPU target only (target NULL: none) */
  pass_winograd_mode winograd;
  /* pass_split_k, pass_split_k_gemm: off (their rules apply on a GPU
   * target only) */
  bool no_split_k;
  /* pass_split_k, pass_split_k_gemm: 0 their rules; else this factor (2,
   * 4, 8 or 16) for every conv and product of the structure they split, on
   * any target placed on */
  int split_k_factor;
  /* pass_fuse_attention: off (its rule applies on a GPU target only) */
  bool no_fuse_attention;
  /* pass_fuse_attention: every chain, fp16 ones past its key limit too */
  bool fuse_attention_all;
  const ir_target *target;
} pass_opts;

typedef vkml_status (*pass_fn)(ir_graph *g, const pass_opts *opts, bool *changed);

/* The passes, one file each (what each does: the file's header comment). */
vkml_status pass_fold_constants(ir_graph *g, const pass_opts *opts, bool *changed);
/* Folds node n as pass_fold_constants would (all its inputs constant,
 * opts->eval set), with no size limit but PASS_FOLD_SAME_MAX_BYTES: for a
 * pass that builds a constant expression on purpose (pass_fuse_attention's
 * mask plus bias). *folded says whether n was replaced by constants. */
vkml_status pass_fold_node(ir_graph *g, ir_node *n, const pass_opts *opts, bool *folded);
vkml_status pass_remove_identities(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_dce(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_hoist_channelwise(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_fold_batchnorm(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_merge_pad(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_fuse_activation(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_fuse_elementwise(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_fuse_copies(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_fuse_attention(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_attention_views(ir_graph *g, const pass_opts *opts, bool *changed);
/* Whether the attention passes run: a GPU target, the graph being placed,
 * not --attention off. */
bool pass_attention_wanted(const pass_opts *opts);
vkml_status pass_winograd(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_fp16(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_nonzero(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_scan(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_reduce(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_topk(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_bound_topk(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_nms(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_sort(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_k(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_split_k_gemm(ir_graph *g, const pass_opts *opts, bool *changed);
/* pass_split_k_gemm's factor for gemm or matmul node n (0: whole). */
int64_t pass_split_k_gemm_factor(const ir_node *n, const pass_opts *opts);
vkml_status pass_fuse_bias(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_layout(ir_graph *g, const pass_opts *opts, bool *changed);
/* --layout auto's choice (opts->layout_auto): *keep (g->n_nodes entries by
 * node id, freed by the caller) says which nodes of g lie in an nhwc region
 * that pays (pass_layout.c: the nodes that can run nhwc, joined through the
 * values they would pass nhwc; a region is kept when it holds a conv2d of
 * more than one tap and at least twice as many conv2ds as values crossing
 * its edge, each a reorder). pass_split_k asks it once, before its splits. */
vkml_status pass_layout_nhwc_regions(const ir_graph *g, const pass_opts *opts, bool **keep);
vkml_status pass_place(ir_graph *g, const pass_opts *opts, bool *changed);
vkml_status pass_insert_transfers(ir_graph *g, const pass_opts *opts, bool *changed);

/* ---- helpers the passes share (pass_util.c) ---- */

/* A new constant named "<base><suffix>" (fresh), holding a copy of data:
 * inline up to PASS_INLINE_MAX_BYTES, in the weights blob above. */
vkml_status pass_const_create(ir_graph *g, const char *base, const char *suffix,
                              const ir_type *type, const void *data, ir_value **out);

/* n's output 0 carries the same tensor as its input `in` (same type and
 * layout): removes n, its readers reading the input instead. When the output
 * is a graph output its name must survive, so the input's producer takes the
 * output over instead; impossible when the input is a graph input, a
 * constant or itself a graph output: then n stays and *removed is false. */
void pass_node_bypass(ir_graph *g, ir_node *n, int in, bool *removed);

/* producer's output k is read by consumer only (and is no graph output):
 * consumer's output 0 becomes producer's output k and consumer is removed
 * (how a fused activation or a folded batchnorm disappears, keeping the
 * later name). */
void pass_node_absorb(ir_graph *g, ir_node *producer, int k, ir_node *consumer);

/* A node of op on ins, inserted before `before` (NULL: at the end). Output
 * i is outs[i] when outs and outs[i] are given (a value the node takes over
 * from its old producer), else a fresh value "<base><suffixes[i]>" of type
 * types[i]. */
vkml_status pass_node_insert(ir_graph *g, ir_node *before, ir_op op, ir_value *const *ins,
                             int n_in, const char *base, const ir_type *const *types,
                             const char *const *suffixes, ir_value *const *outs, int n_out,
                             ir_node **node);

/* For the passes that rewrite nodes on their way to the GPU (split_scan,
 * split_topk, split_nms, split_sort, split_nonzero): nothing unless the graph is being placed (opts->place);
 * else every node `wants` accepts is rewritten, again over the whole graph
 * until no node is left (a rewrite may make nodes that want it too), then
 * unused values are dropped. */
vkml_status pass_rewrite_until_done(ir_graph *g, const pass_opts *opts,
                                    bool (*wants)(const ir_node *, const pass_opts *),
                                    vkml_status (*rewrite)(ir_graph *, ir_node *),
                                    bool *changed);

/* The fused form (ir_act and its alpha, beta) of activation node u: relu,
 * sigmoid, tanh, hard_swish, leaky_relu, elu, hard_sigmoid, clip; false for
 * any other op (pass_fuse_activation.c). */
bool pass_act_of(const ir_node *u, ir_act *kind, float *alpha, float *beta);

/* The f32 elements of a constant as doubles (malloc'd, freed by the
 * caller); UNSUPPORTED for a non-float constant. */
vkml_status pass_const_read_f64(const ir_graph *g, const ir_value *v, double **out);

#endif
