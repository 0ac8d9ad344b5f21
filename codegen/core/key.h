/* Workload keys: the canonical text naming what a kernel is for (op,
 * operand types, attributes), the same on every machine; the tuner and the
 * schedule database index by it. */
#ifndef CG_CORE_KEY_H
#define CG_CORE_KEY_H

#include "ir/graph.h"
#include "ir/params.h"

/* A fused activation in a key's attributes: ",act=NAME" and, where the act
 * uses them, ",act_alpha=A", ",act_beta=B" (%.9g); "" for none. Returns
 * the length written (as snprintf). */
int cg_act_key(const ir_act_params *a, char *buf, size_t buf_bytes);
/* "op(f32[2,3],f32[3])->f32[2,3]" followed by attrs (may be ""). */
void cg_node_key(const ir_node *n, const char *attrs, char *buf, int buf_bytes);
/* The canonical workload key of n: op, input and output types, attributes
 * (other than name) in attribute-id order, e.g.
 * "transpose(f32[2,3,4])->(f32[4,2,3]){perm=[2,0,1]}". Long keys end in a
 * hash of the full text. */
void cg_data_key(const ir_node *n, char *buf, int buf_bytes);

#endif
