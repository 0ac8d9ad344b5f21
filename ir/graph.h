/* The tensor IR: a graph owns its values and nodes in one arena.
 *
 * Values are typed tensors with static shapes. A data-dependent size (NMS,
 * TopK with a runtime k) is a static capacity on one `bounded` axis; the
 * actual count along it is known at run time only and travels with the
 * runtime tensor. Constants are values whose bytes live in the graph's weights
 * blob (offset, length) or inline in the arena. Nodes are kept in a doubly
 * linked list in topological order. */
#ifndef IR_GRAPH_H
#define IR_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "dtype.h"
#include "ops.h"
#include "vkml_status.h"

#define IR_MAX_RANK 8
/* Largest element count / byte size a tensor may have (fits in int64 with
 * room for index arithmetic). */
#define IR_MAX_ELEMENTS (INT64_C(1) << 40)

typedef struct ir_type {
  ir_dtype dtype;
  int rank;          /* 0 = scalar */
  bool bounded;      /* dims[bounded_axis] is a capacity, not the size */
  int bounded_axis;
  int64_t dims[IR_MAX_RANK];
} ir_type;

typedef enum ir_layout {
  IR_LAYOUT_DEFAULT = 0, /* plain row-major in the order of dims */
  /* A rank-4 [N,C,H,W] value stored as [N, H, W, C]: element (n,c,h,w) at
   * ((n*H + h)*W + w)*C + c. Today only a GPU conv2d's constant weights
   * [M, C/G, KH, KW], stored tap-major for the cooperative-matrix kernels
   * (pass_layout; ir/plan.c refuses it elsewhere); a device layout, as
   * nc4hw4: the CPU conv reads such weights through a row-major copy. */
  IR_LAYOUT_NHWC,
  /* A rank-4 [N,C,H,W] value stored as [N, ceil(C/4), H, W, 4] in C order:
   * element (n,c,h,w) at (((n*C4 + c/4)*H + h)*W + w)*4 + c%4, the lanes of
   * channels c >= C hold 0 (every writer stores 0 there, readers may rely
   * on it). A device-buffer layout only: host tensors (graph inputs and
   * outputs, CPU kernels) are always row-major. */
  IR_LAYOUT_NC4HW4,
  IR_LAYOUT_COUNT
} ir_layout;

typedef enum ir_device {
  IR_DEVICE_UNPLACED = 0,
  IR_DEVICE_GPU,
  IR_DEVICE_CPU,
} ir_device;

typedef enum ir_const_storage {
  IR_CONST_NONE = 0, /* not a constant */
  IR_CONST_BLOB,     /* bytes at blob_offset in the graph's weights blob */
  IR_CONST_INLINE,   /* bytes in the arena, printed inline in the text */
} ir_const_storage;

typedef struct ir_node ir_node;

typedef struct ir_value {
  const char *name; /* unique in the graph, without the '%' */
  ir_type type;
  ir_layout layout;
  ir_node *producer;   /* NULL for graph inputs and constants */
  int producer_output; /* index among producer's outputs */
  ir_const_storage storage;
  uint64_t blob_offset;  /* IR_CONST_BLOB: byte offset into the blob */
  const void *inline_data; /* IR_CONST_INLINE: arena-owned bytes */
  int id;        /* dense, unique per graph: index for side tables */
  int line, col; /* where defined in .vkir text (0 if not parsed) */
  struct ir_value *next; /* all values in definition order */
} ir_value;

typedef struct ir_attr {
  ir_attr_id id;
  int n; /* element count of INTS / FLOATS */
  union {
    int64_t i; /* INT, ENUM */
    float f;
    int64_t *ints;
    float *floats;
    const char *s;
  } u;
} ir_attr;

struct ir_node {
  ir_op op;
  ir_device device;
  int n_inputs, n_outputs, n_attrs;
  ir_value **inputs;  /* arena-owned */
  ir_value **outputs; /* arena-owned */
  ir_attr *attrs;     /* arena-owned, at most IR_A_COUNT */
  int id;
  int line, col; /* position in .vkir text (0 if not parsed) */
  ir_node *prev, *next;
};

typedef struct ir_graph {
  ir_arena *arena;
  const char *name;
  ir_value **inputs, **outputs; /* arena-owned arrays */
  int n_inputs, n_outputs;
  int cap_inputs, cap_outputs;
  ir_node *first, *last; /* topological order */
  ir_value *first_value, *last_value;
  int n_nodes, n_values; /* also the next ids */
  /* Weights blob: bytes of every IR_CONST_BLOB constant. */
  const uint8_t *blob;
  uint64_t blob_bytes;
  void *blob_owned; /* freed by ir_graph_destroy when non-NULL */
  uint64_t blob_cap; /* bytes allocated at blob_owned (ir_graph_blob_append) */
} ir_graph;

/* ---- types ------------------------------------------------------------ */

ir_type ir_type_make(ir_dtype dtype, int rank, const int64_t *dims);
bool ir_type_equal(const ir_type *a, const ir_type *b);
/* A tensor of (unbounded) type actual is a value of type t: the same
 * dtype and dims, but at most the capacity along t's bounded axis. */
bool ir_type_holds(const ir_type *t, const ir_type *actual);
/* Element count (capacity for bounded types). */
int64_t ir_type_numel(const ir_type *t);
int64_t ir_type_bytes(const ir_type *t);
/* Bytes of a tensor of type t stored in layout l (nc4hw4 pads C to a
 * multiple of 4; every other layout: ir_type_bytes). */
int64_t ir_type_storage_bytes(const ir_type *t, ir_layout l);
/* A value's bytes on the device: its storage rounded up to 16 (a kernel's
 * last vector access stays inside), at least 16; a bounded type has 16
 * more for its extent word: a u32 at ir_type_extent_offset holding the
 * run-time size along the bounded axis, written by the kernel that makes
 * the value (its elements are dense at that size). */
uint64_t ir_type_device_bytes(const ir_type *t, ir_layout l);
/* A rank-4 tensor of type t (static) from the default layout to nhwc
 * (to_nhwc) or back: src and dst of ir_type_bytes(t) bytes, not
 * overlapping. ([N,C,H,W] <-> [N,H,W,C]: a conv's weights to tap-major.) */
void ir_layout_nhwc_copy(const ir_type *t, const void *src, void *dst, bool to_nhwc);
uint64_t ir_type_extent_offset(const ir_type *t, ir_layout l);
/* t is bounded and every dim before its bounded axis is 1: in the default
 * layout its live elements are a prefix of its capacity. */
bool ir_type_rows_lead(const ir_type *t);
/* Checks rank <= IR_MAX_RANK, dims >= 0, element count <= IR_MAX_ELEMENTS. */
vkml_status ir_type_check(const ir_type *t);
/* Writes e.g. "f32[1,3,<=5]" into buf (always NUL-terminated). */
void ir_type_format(const ir_type *t, char *buf, int buf_bytes);

const char *ir_layout_name(ir_layout l);
bool ir_layout_from_name(const char *name, int len, ir_layout *out);
const char *ir_device_name(ir_device d);

/* ---- graph ------------------------------------------------------------- */

/* Creates an empty graph; free with ir_graph_destroy. name may be NULL. */
vkml_status ir_graph_create(const char *name, ir_graph **out);
void ir_graph_destroy(ir_graph *g);

/* Hands the weights blob to the graph. With take_ownership the graph free()s
 * data on destroy; otherwise data must outlive the graph. */
void ir_graph_set_blob(ir_graph *g, const void *data, uint64_t bytes,
                       bool take_ownership);

/* Creates a (non-constant) value; name NULL gives a fresh unique name. The
 * value belongs to the graph. */
vkml_status ir_value_create(ir_graph *g, const char *name, const ir_type *type,
                            ir_value **out);
/* Creates a constant with its bytes copied into the arena (inline).
 * bytes must equal ir_type_bytes(type). */
vkml_status ir_const_create_inline(ir_graph *g, const char *name,
                                   const ir_type *type, const void *data,
                                   ir_value **out);
/* Creates a constant stored in the blob at offset (bounds checked by the
 * verifier, since the blob may be attached later). */
vkml_status ir_const_create_blob(ir_graph *g, const char *name,
                                 const ir_type *type, uint64_t offset,
                                 ir_value **out);
/* Bytes of a constant, or NULL if v is not a constant or its blob range is
 * out of bounds. */
const void *ir_value_const_data(const ir_graph *g, const ir_value *v);
bool ir_value_is_const(const ir_value *v);

vkml_status ir_graph_add_input(ir_graph *g, ir_value *v);
vkml_status ir_graph_add_output(ir_graph *g, ir_value *v);
/* Finds a value by name (linear scan), NULL if none. */
ir_value *ir_graph_find_value(const ir_graph *g, const char *name);

/* Creates a node at the end of the graph. outputs[i]->producer is set. The
 * arrays are copied. */
vkml_status ir_node_create(ir_graph *g, ir_op op, ir_value *const *inputs,
                           int n_inputs, ir_value *const *outputs,
                           int n_outputs, ir_node **out);
/* Unlinks a node from the graph's list (memory stays in the arena). */
void ir_node_remove(ir_graph *g, ir_node *n);
/* Moves/inserts a node (already created, possibly unlinked) before pos. */
void ir_node_insert_before(ir_graph *g, ir_node *pos, ir_node *n);

/* A copy of g: same names, ids, types, layouts, placements, attributes,
 * inputs and outputs. The copy borrows g's weights blob (g's blob must
 * outlive it). Free with ir_graph_destroy. */
vkml_status ir_graph_clone(const ir_graph *g, ir_graph **out);
/* Copies every attribute of from onto to (and its text position). */
vkml_status ir_node_copy_attrs(ir_graph *g, ir_node *to, const ir_node *from);

/* ---- rewriting (ir/rewrite.c; what passes share) ------------------------ */

/* The most inputs (and the most outputs) a node may have: every kernel binds
 * one buffer per operand and the executors size their tables by it. The
 * verifier refuses more. */
#define IR_MAX_NODE_OPERANDS 64

/* Creates a value named "<base><suffix>", made unique with "_N" (linear
 * scan of the graph's names). */
vkml_status ir_value_create_fresh(ir_graph *g, const char *base, const char *suffix,
                                  const ir_type *type, ir_value **out);
/* Appends bytes to the graph's weights blob (64-byte aligned, copied; the
 * graph then owns its blob, grown geometrically) and sets *offset. The old
 * blob pointer may be freed: clones that borrow it must not outlive this. */
vkml_status ir_graph_blob_append(ir_graph *g, const void *data, uint64_t bytes,
                                 uint64_t *offset);
/* Rewrites the blob to hold only the bytes of the graph's blob constants
 * (64-byte aligned, in value order, a range shared by several constants
 * once) when that is smaller, e.g. after the fp16 pass left the fp32
 * originals behind; *saved (may be NULL) gets the bytes dropped. The graph
 * then owns its blob. */
vkml_status ir_graph_blob_compact(ir_graph *g, uint64_t *saved);
/* Makes every reader of from (node inputs, graph outputs) read to instead. */
void ir_value_replace_uses(ir_graph *g, ir_value *from, ir_value *to);
/* Readers of every value, by value id: node input slots plus graph output
 * slots. *out (g->n_values + 1 entries) is freed by the caller. */
vkml_status ir_graph_count_uses(const ir_graph *g, int **out);
bool ir_value_is_graph_output(const ir_graph *g, const ir_value *v);
bool ir_value_is_graph_input(const ir_graph *g, const ir_value *v);
/* Drops from the value list every value nothing refers to any more: not a
 * graph input or output, read by no node and produced by no node in the
 * list (dead constants, outputs of removed nodes). Returns how many. */
vkml_status ir_graph_drop_unused_values(ir_graph *g, int *n_dropped);

/* ---- attributes ------------------------------------------------------- */

/* Setters replace an existing attribute with the same id. They do not check
 * that the op accepts the attribute: the verifier does. */
vkml_status ir_node_set_int(ir_graph *g, ir_node *n, ir_attr_id id, int64_t v);
vkml_status ir_node_set_float(ir_graph *g, ir_node *n, ir_attr_id id, float v);
vkml_status ir_node_set_ints(ir_graph *g, ir_node *n, ir_attr_id id,
                             const int64_t *v, int count);
vkml_status ir_node_set_floats(ir_graph *g, ir_node *n, ir_attr_id id,
                               const float *v, int count);
vkml_status ir_node_set_string(ir_graph *g, ir_node *n, ir_attr_id id,
                               const char *s);
vkml_status ir_node_set_enum(ir_graph *g, ir_node *n, ir_attr_id id, int v);
/* Drops attribute id from n (nothing when absent); the others keep their
 * order. */
void ir_node_remove_attr(ir_node *n, ir_attr_id id);

const ir_attr *ir_node_attr(const ir_node *n, ir_attr_id id);
int64_t ir_node_int(const ir_node *n, ir_attr_id id, int64_t dflt);
float ir_node_float(const ir_node *n, ir_attr_id id, float dflt);
/* Returns the element count and sets *out, or -1 (and *out = NULL) if the
 * attribute is absent. */
int ir_node_ints(const ir_node *n, ir_attr_id id, const int64_t **out);
int ir_node_floats(const ir_node *n, ir_attr_id id, const float **out);
const char *ir_node_string(const ir_node *n, ir_attr_id id);
/* Whether an input or output of n is in a layout other than the default
 * (constants stored tap-major, nhwc, are weights, not packed: not counted). */
bool ir_node_any_packed(const ir_node *n);
/* Whether every input and output of n is a static rank-4 value in nhwc
 * (activations in nhwc, pass_layout's --layout nhwc): an elementwise
 * kernel over one shape runs such a node as it runs the default layout. */
bool ir_node_all_nhwc(const ir_node *n);
/* Whether n is a transpose that relabels nhwc bytes: perm [0,2,3,1] from
 * an nhwc x to a default-layout y ([N,C,H,W] stored [N,H,W,C] read as the
 * row-major [N,H,W,C]), or perm [0,3,1,2] from a default-layout x to an
 * nhwc y: y's bytes are x's (a view, ir/memplan.h; a copy where the
 * memory plan does not alias them). */
bool ir_node_relabels_nhwc(const ir_node *n);
/* A short description for messages: "conv2d %y" or "conv2d %y (Conv_3)". */
void ir_node_describe(const ir_node *n, char *buf, int buf_bytes);

/* Runs n on the host: inputs[i] holds n->inputs[i]'s bytes (dense,
 * row-major, its type), outputs[i] has room for n->outputs[i]'s type. The
 * CPU reference kernels' rt_cpu_eval_node (runtime/cpu/cpu_kernels.h) has
 * this shape; constant folding (pass_fold_constants, the ONNX importer)
 * receives it from its caller, so neither passes/ nor frontend/ depends on
 * runtime/. */
typedef vkml_status (*ir_eval_fn)(void *user, const ir_node *n, const void *const *inputs,
                                  void *const *outputs);

/* Iteration helpers. */
#define ir_foreach_node(g, n) for (ir_node *n = (g)->first; n; n = n->next)
#define ir_foreach_value(g, v)                                                 \
  for (ir_value *v = (g)->first_value; v; v = v->next)

#endif
