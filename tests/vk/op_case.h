/* A row of the op test table (op_cases.h) and what its two runners share:
 * the graph text for one dtype, its first node, the templates that take
 * that node on a target and the schedules sampled from their spaces. */
#ifndef VK_OP_CASE_H
#define VK_OP_CASE_H

#include <stdbool.h>

#include "codegen/core/core.h"
#include "ir/graph.h"

typedef struct op_case {
  const char *name;
  unsigned dtypes; /* F32 F16 I32 I64 (op_cases.h) */
  const char *inputs, *outputs, *body;
  double lo, hi;   /* float inputs; both 0: -2, 2 */
  double ilo, ihi; /* integer inputs; both 0: 0, 3 */
  double rtol, atol, rtol16, atol16; /* 0: the defaults */
  bool gpu_only_default;
} op_case;

/* The dtype of flag bit f (F32 ...). */
ir_dtype oc_dtype(unsigned f);
/* The case's graph text with $T as dtype dt (malloc'ed). */
char *oc_text(const op_case *c, ir_dtype dt);
/* The first node of g: the one under test. */
ir_node *oc_first_node(ir_graph *g);
/* The templates that take n on t as themselves (what the tuner's space of n
 * is: kernels/<family>.c's choice honours the template asked for), at most
 * max, in registry order; returns how many. */
int oc_templates(const ir_node *n, const ir_target *t, const cg_template **out, int max);
/* tm's default for n (the family's fitted default, as cg_kernel_for_node
 * instantiates it) and up to want - 1 other points of its space valid on
 * t, spread over the space by a fixed stride; returns how many. */
int oc_schedules(const ir_node *n, const cg_template *tm, const ir_target *t, cg_schedule *out,
                 int want);

#endif
