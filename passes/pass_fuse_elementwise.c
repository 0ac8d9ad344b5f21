/* pass_fuse_elementwise: a connected group of float elementwise nodes
 * becomes one fused_elementwise node (ir/params.h ir_fused_program), one
 * kernel and no intermediate tensors. The group keeps its last node's output
 * value (and name).
 *
 * Fusible nodes: the ops ir_fused_op_arity allows (the float unary ops,
 * add/sub/mul/div with their act, pow, prelu, two-input min/max), one output,
 * every operand and the output of one dtype, f32 or f16 (integers never:
 * their ops wrap and truncate in their own ways), unplaced, in the default
 * layout (the pass runs before placement and layout).
 *
 * A group grows from its last node (the root; nodes are visited last first)
 * towards the producers of its operands: a producer joins when it is
 * fusible, not in another group, and every reader of its output (every node
 * input slot and graph output slot) is already in the group — so no
 * intermediate escapes and nothing outside needs one. Growing repeats until
 * nothing joins, so a DAG whose intermediate is read twice inside (t * u
 * with u = sigmoid(t)) is taken whole. A join that would need more than
 * IR_FUSED_MAX_INPUTS distinct outside inputs (the GPU kernel binds one
 * buffer each) or more than IR_FUSED_MAX_INSTRS instructions is skipped.
 * Every value in the group broadcasts to the root's output (each node's
 * output is the broadcast of its operands and every node reaches the root),
 * so evaluating the program at the root's resolution is exact; the pass
 * still checks that the inputs' broadcast is the root's type. A group of
 * one node stays as it is. With a placement callback (pass_opts.place), a
 * node it would put on the CPU is never fused (--cpu-ops keeps its ops
 * visible and on the CPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/params.h"
#include "passes/pass.h"

/* Whether n may be an instruction of a program. */
static bool fusible(const ir_node *n) {
  int arity = ir_fused_op_arity(n->op);
  if (!arity || n->n_inputs != arity || n->n_outputs != 1) return false;
  if (n->device != IR_DEVICE_UNPLACED || ir_node_any_packed(n)) return false;
  ir_dtype dt = n->outputs[0]->type.dtype;
  if (dt != IR_F32 && dt != IR_F16) return false;
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i]->type.dtype != dt || n->inputs[i]->type.bounded) return false;
  return !n->outputs[0]->type.bounded;
}

typedef struct group {
  ir_node *nodes[IR_FUSED_MAX_INSTRS];
  int n_nodes;
} group;

static bool in_group(const group *gr, const ir_node *n) {
  for (int i = 0; i < gr->n_nodes; i++)
    if (gr->nodes[i] == n) return true;
  return false;
}

/* Input slots of group nodes that read v. */
static int reads_in_group(const group *gr, const ir_value *v) {
  int k = 0;
  for (int i = 0; i < gr->n_nodes; i++)
    for (int j = 0; j < gr->nodes[i]->n_inputs; j++) k += gr->nodes[i]->inputs[j] == v;
  return k;
}

/* The distinct values group nodes read that no group node produces, in
 * first-read order over ordered (topological) nodes; -1 past max. */
static int outside_inputs(ir_node *const *ordered, int n_nodes, ir_value **ins, int max) {
  int n = 0;
  for (int i = 0; i < n_nodes; i++) {
    for (int j = 0; j < ordered[i]->n_inputs; j++) {
      ir_value *v = ordered[i]->inputs[j];
      bool inside = false, seen = false;
      for (int k = 0; k < n_nodes && !inside; k++) inside = ordered[k] == v->producer;
      for (int k = 0; k < n && !seen; k++) seen = ins[k] == v;
      if (inside || seen) continue;
      if (n == max) return -1;
      ins[n++] = v;
    }
  }
  return n;
}

/* The group's nodes in graph order. */
static void order_group(const ir_graph *g, const group *gr, ir_node **ordered) {
  int k = 0;
  ir_foreach_node(g, n) if (in_group(gr, n)) ordered[k++] = n;
}

/* Grows gr (holding its root) as the file comment says. */
static void grow(const ir_graph *g, const int *uses, const bool *taken, group *gr) {
  for (bool joined = true; joined;) {
    joined = false;
    for (int i = 0; i < gr->n_nodes && gr->n_nodes < IR_FUSED_MAX_INSTRS; i++) {
      for (int j = 0; j < gr->nodes[i]->n_inputs; j++) {
        ir_value *v = gr->nodes[i]->inputs[j];
        ir_node *p = v->producer;
        if (!p || taken[p->id] || in_group(gr, p) || !fusible(p)) continue;
        if (p->outputs[0]->type.dtype != gr->nodes[0]->outputs[0]->type.dtype) continue;
        if (ir_value_is_graph_output(g, v) || reads_in_group(gr, v) != uses[v->id]) continue;
        gr->nodes[gr->n_nodes++] = p;
        ir_node *ordered[IR_FUSED_MAX_INSTRS];
        ir_value *ins[IR_FUSED_MAX_INPUTS];
        order_group(g, gr, ordered);
        if (outside_inputs(ordered, gr->n_nodes, ins, IR_FUSED_MAX_INPUTS) < 0) {
          gr->n_nodes--; /* too many inputs with p */
          continue;
        }
        joined = true;
        if (gr->n_nodes == IR_FUSED_MAX_INSTRS) break;
      }
    }
  }
}

/* "mul" or "add:relu". */
static void op_token(const ir_node *n, char *buf, size_t bytes) {
  ir_act_params act = {IR_ACT_NONE, 0, 0};
  if (n->op == IR_OP_ADD || n->op == IR_OP_SUB || n->op == IR_OP_MUL || n->op == IR_OP_DIV)
    ir_act_params_get(n, &act);
  if (act.kind == IR_ACT_NONE) snprintf(buf, bytes, "%s", ir_op_name(n->op));
  else
    snprintf(buf, bytes, "%s:%s", ir_op_name(n->op), ir_enum_value_name(IR_ENUM_ACT, act.kind));
}

/* Replaces the group by one fused_elementwise node at the root's place;
 * *done is false (and the graph untouched) when the shapes do not allow it. */
static vkml_status fuse(ir_graph *g, const group *gr, ir_node **fused) {
  *fused = NULL;
  ir_node *ordered[IR_FUSED_MAX_INSTRS];
  ir_value *ins[IR_FUSED_MAX_INPUTS];
  order_group(g, gr, ordered);
  int n_in = outside_inputs(ordered, gr->n_nodes, ins, IR_FUSED_MAX_INPUTS);
  ir_node *root = ordered[gr->n_nodes - 1];
  ir_value *out = root->outputs[0];
  if (n_in < 1) return VKML_OK;
  ir_type bc = ins[0]->type;
  for (int i = 1; i < n_in; i++) {
    ir_type t = bc;
    vkml_status s = ir_broadcast(&t, &ins[i]->type, &bc);
    if (s) {
      vkml_status_free(s);
      return VKML_OK;
    }
  }
  if (!ir_type_equal(&bc, &out->type)) return VKML_OK;

  char ops[IR_FUSED_MAX_INSTRS * 32] = "";
  int64_t regs[2 * IR_FUSED_MAX_INSTRS];
  float params[2 * IR_FUSED_MAX_INSTRS];
  bool any_param = false;
  size_t len = 0;
  for (int i = 0; i < gr->n_nodes; i++) {
    const ir_node *n = ordered[i];
    char tok[32];
    op_token(n, tok, sizeof tok);
    len += (size_t)snprintf(ops + len, sizeof ops - len, "%s%s", i ? " " : "", tok);
    for (int j = 0; j < 2; j++) {
      regs[2 * i + j] = -1;
      if (j >= n->n_inputs) continue;
      const ir_value *v = n->inputs[j];
      for (int k = 0; k < n_in; k++)
        if (ins[k] == v) regs[2 * i + j] = k;
      for (int k = 0; k < i; k++)
        if (ordered[k]->outputs[0] == v) regs[2 * i + j] = n_in + k;
    }
    ir_fused_instr_params(n, &params[2 * i]);
    any_param = any_param || params[2 * i] != 0 || params[2 * i + 1] != 0;
  }

  ir_node *f;
  VKML_RETURN_IF_ERROR(ir_node_create(g, IR_OP_FUSED_ELEMENTWISE, ins, n_in, &out, 1, &f));
  VKML_RETURN_IF_ERROR(ir_node_set_string(g, f, IR_A_OPS, ops));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(g, f, IR_A_REGS, regs, 2 * gr->n_nodes));
  if (any_param)
    VKML_RETURN_IF_ERROR(ir_node_set_floats(g, f, IR_A_PARAMS, params, 2 * gr->n_nodes));
  const char *name = ir_node_string(root, IR_A_NAME);
  if (name) VKML_RETURN_IF_ERROR(ir_node_set_string(g, f, IR_A_NAME, name));
  f->line = root->line;
  f->col = root->col;
  ir_node_remove(g, f); /* created last: it takes the root's place */
  ir_node_insert_before(g, root, f);
  for (int i = 0; i < gr->n_nodes; i++) ir_node_remove(g, ordered[i]);
  out->producer = f;
  out->producer_output = 0;
  *fused = f;
  return VKML_OK;
}

vkml_status pass_fuse_elementwise(ir_graph *g, const pass_opts *opts, bool *changed) {
  (void)opts;
  if (changed) *changed = false;
  int *uses = NULL;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(g, &uses));
  int n_ids = g->n_nodes; /* fused nodes get ids past these */
  bool *taken = calloc((size_t)n_ids + 1, sizeof *taken);
  if (!taken) {
    free(uses);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  vkml_status s = VKML_OK;
  bool any = false;
  /* a node placement would keep off the GPU (--cpu-ops, no kernel) stays a
   * node of its own: the user asked for it there, or the fused kernel
   * could not run it either */
  if (opts && opts->place)
    ir_foreach_node(g, n) {
      char why[256];
      if (n->id >= 0 && n->id < n_ids && fusible(n) && opts->place(opts->place_user, n, why, sizeof why))
        taken[n->id] = true;
    }
  /* last first: a group's root is the node its chain ends in */
  for (ir_node *n = g->last, *prev; n && !s; n = prev) {
    prev = n->prev;
    if (n->id < 0 || n->id >= n_ids || taken[n->id] || !fusible(n)) continue;
    group gr = {.nodes = {n}, .n_nodes = 1};
    grow(g, uses, taken, &gr);
    for (int i = 0; i < gr.n_nodes; i++) taken[gr.nodes[i]->id] = true;
    if (gr.n_nodes < 2) continue;
    ir_node *f;
    s = fuse(g, &gr, &f);
    if (f) prev = f->prev; /* the group's other nodes left the list */
    any = any || f;
  }
  if (!s && any) {
    int dropped;
    s = ir_graph_drop_unused_values(g, &dropped);
  }
  free(taken);
  free(uses);
  if (changed) *changed = any;
  return s;
}
