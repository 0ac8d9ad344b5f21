/* The broadcasting elementwise templates.
 *
 * elementwise_binary (glsl/elementwise_binary.comp): add, sub, mul, div with
 * a fused activation, and two-input min / max, with NumPy broadcasting, for
 * f32 and f16 (16-bit storage, fp32 arithmetic).
 *
 * elementwise_nary (glsl/elementwise_nary.comp): 1..7 inputs with NumPy
 * broadcasting: add, sub, mul, div (+ act) of every numeric type, pow,
 * prelu, the comparisons, and / or, variadic min / max / sum / mean, where.
 * Device needs as codegen/core/elt.h states (f16, 8-bit types, i64).
 *
 * Knobs of both: WG_SIZE {32..1024}, EPI (elements per invocation = vector
 * width up to 4, then several vectors) {1,2,4,8}. Default WG_SIZE=128,
 * EPI=4, valid on every Vulkan 1.1 device. */
#ifndef CG_KERNELS_BINARY_H
#define CG_KERNELS_BINARY_H

#include "codegen/core/core.h"
#include "ir/graph.h"
#include "ir/params.h"


typedef struct cg_binary_workload {
  ir_op op;          /* ADD SUB MUL DIV MIN MAX */
  ir_act_params act; /* NONE for MIN / MAX */
  ir_type a, b, out; /* same dtype (f32 or f16); out = broadcast(a, b) */
  /* IR_LAYOUT_NC4HW4: a, b and out are rank-4 of one shape, all packed
   * (add / sub / mul / div only); zero-initialized: the default layout */
  ir_layout layout;
} cg_binary_workload;

/* The workload of a node: add/sub/mul/div (with act) or min/max of exactly
 * two inputs, f32 or f16. UNSUPPORTED otherwise. */
vkml_status cg_binary_workload_from_node(const ir_node *n, cg_binary_workload *out);
/* Canonical key, e.g. "add(f32[2,3],f32[3])->f32[2,3]{act=relu}". */
void cg_binary_workload_key(const cg_binary_workload *w, char *buf, int buf_bytes);
/* Instantiates the template: bindings 0 = a, 1 = b, 2 = out, each a dense
 * C-order tensor. UNSUPPORTED when the target lacks what the workload needs
 * (16-bit storage for f16) or the schedule does not fit the target. */
vkml_status cg_binary_instantiate(const cg_binary_workload *w, const cg_schedule *s,
                                  const ir_target *target, cg_kernel *out);

/* ---- elementwise_nary ---- */

#define CG_NARY_MAX_INPUTS 7 /* + the output: 8 bindings */


typedef struct cg_nary_workload {
  ir_op op;
  ir_act_params act; /* add sub mul div only */
  bool fmod;         /* mod: the remainder takes x's sign */
  int n_in;
  ir_type in[CG_NARY_MAX_INPUTS], out;
} cg_nary_workload;

/* The workload of a binary-family, variadic or where node. UNSUPPORTED for
 * other ops or more than CG_NARY_MAX_INPUTS inputs. */
vkml_status cg_nary_workload_from_node(const ir_node *n, cg_nary_workload *out);
/* Canonical key, e.g. "where(bool[2,3],i64[3],i64[2,1])->i64[2,3]". */
void cg_nary_workload_key(const cg_nary_workload *w, char *buf, int buf_bytes);
/* Instantiates the template: bindings 0..n_in-1 = the inputs, n_in = out.
 * UNSUPPORTED when the workload or target is outside what it covers: an
 * integer base with a float exponent in pow, integer activations other than
 * relu / relu6 / clip, missing device features, broadcasts needing more than
 * CG_MAX_SPEC specialization constants. */
vkml_status cg_nary_instantiate(const cg_nary_workload *w, const cg_schedule *s,
                                const ir_target *target, cg_kernel *out);

/* elementwise_nary's shader op code of op (-1: not one it runs). */
int cg_nary_code(ir_op op);

#endif
