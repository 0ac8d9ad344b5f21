/* pass_layout: packed channel layouts (ir/graph.h, IR_LAYOUT_NC4HW4) with
 * conversions at the edges of the packed regions.
 *
 * Which nodes run packed: a node whose operand mask (opts.operands, bit i =
 * input i, bit 16 + i = output i; codegen's cg_node_layout_operands plus the
 * caller's placement) is non-zero, when opts.assign_all is set or when one of
 * its masked outputs is annotated with opts.layout in the input graph (a
 * hand-written .vkir asks for it that way). Such a node gets every masked
 * operand in opts.layout, every other node every operand in the default
 * layout.
 *
 * The graph is rewritten in place so that each node reads its operands in
 * the layouts it runs with: a value needed in the other layout gets one
 * `reorder` node (inserted before its first consumer that needs it, shared by
 * every later one). Graph inputs, graph outputs and constants end up in the
 * default layout (host tensors are row-major): an output produced packed is
 * converted back by a reorder that takes over the output's name. Node ids and
 * value ids of the original graph stay; new nodes and values get fresh ones.
 * Returns whether anything changed. */
#ifndef PASS_LAYOUT_H
#define PASS_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/graph.h"

typedef struct pass_layout_opts {
  ir_layout layout; /* the packed layout (IR_LAYOUT_NC4HW4) */
  bool assign_all;  /* pack every node that can run packed */
  /* Operand mask of n in `layout` (0: n runs in the default layout only). */
  uint32_t (*operands)(void *user, const ir_node *n, ir_layout layout);
  void *user;
} pass_layout_opts;

/* *changed (may be NULL) says whether g was modified. On error g may be
 * partly rewritten (callers run it on a copy). */
vkml_status pass_layout(ir_graph *g, const pass_layout_opts *opts, bool *changed);

#endif
