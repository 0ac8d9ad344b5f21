/* What the row kernels share (kernels/reduce.c, norm.c): the reduce,
 * global_pool, argminmax, softmax, layer_norm, instance_norm and batchnorm
 * families on glsl/reduce.comp, softmax.comp and norm.comp.
 *
 * reduce, softmax and norm see their workload as O rows ("outputs") of L
 * elements each: element k of row o is x[base(o) + off(k)], base and off
 * decomposing o and k over merged kept and reduced axes. Their knobs:
 *   WG_SIZE  invocations per workgroup {32..1024}
 *   RED      invocations sharing one row {0 = chosen from the shape, 1..1024}
 *            (must not exceed WG_SIZE: UNSUPPORTED at instantiation)
 *   VEC      vector width of loads {1,2,4}, where the shape allows
 *   SUBGROUP 1: combine with subgroup operations when a row fills the
 *            workgroup and the device has them; 0: shared memory only
 * Default WG_SIZE=128, RED=0, VEC=4, SUBGROUP=1 (valid on every device).
 *
 * The templates declare their buffers restrict: a kernel's bindings must
 * not overlap. */
#ifndef CG_CORE_REDUCTION_H
#define CG_CORE_REDUCTION_H

#include <stdbool.h>

#include "codegen/core/kernel.h"
#include "ir/graph.h"

/* Knob indices of the row templates (reduce, softmax, norm). */
enum { CG_ROW_WG = 0, CG_ROW_RED = 1, CG_ROW_VEC = 2, CG_ROW_SUBGROUP = 3 };

/* Rows over merged axes, innermost first; size-1 axes dropped. */
typedef struct cg_rowmap {
  int64_t n_rows, len; /* O and L */
  int nk, nr;          /* merged kept / reduced axes (<= 4 each) */
  int64_t kd[4], ks[4], rd[4], rs[4]; /* dims and input element strides */
  bool lanes_fast; /* the innermost axis is reduced: a row's lanes walk it */
} cg_rowmap;

/* The rows of a dense C-order tensor of dims reduced over mask. */
void cg_rowmap_make(int rank, const int64_t *dims, const bool *mask, cg_rowmap *m);

/* What the host chose for a row kernel. */
typedef struct cg_rowplan {
  int wg, lanes, vw; /* vw: vector width actually used */
  bool use_sg;
  int cache; /* loads per lane that cover its share of a row (a power of
                two <= 16), 0 when more: the CACHE #define of the templates
                that read a row several times */
} cg_rowplan;

/* Checks the schedule and the workload's size against the target and
 * fills the plan, the knob #defines, VW and USE_SG (#defines), the rowmap's
 * specialization constants (ids 0..19, see reduce.comp), LANES (id 40),
 * LANES_FAST (id 41) and the grid. name is used in messages. */
vkml_status cg_row_begin(cg_kernel *k, const cg_template *tmpl, const cg_schedule *s,
                         const ir_target *t, const cg_rowmap *m, const char *name,
                         cg_rowplan *plan);

/* UNSUPPORTED unless every input is f32 or f16 of input 0's dtype (f16
 * needing 16-bit storage), every output that dtype (i64 for argmax /
 * argmin), all of the default layout, unbounded and small enough for
 * 32-bit offsets. */
vkml_status cg_check_float_values(const ir_node *n, const ir_target *t);

/* The space of the row templates (the knobs above), as a whole cg_template
 * initializer. */
#define CG_ROW_TEMPLATE(tname, file)                                              \
  {                                                                            \
    .name = tname, .glsl = file, .n_knobs = 4,                                 \
    .knobs = {{"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},                   \
              {"RED", 12, {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},   \
              {"VEC", 3, {1, 2, 4}},                                           \
              {"SUBGROUP", 2, {0, 1}}},                                        \
    .n_constraints = 3,                                                        \
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << CG_ROW_WG, 1},                \
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << CG_ROW_WG, 1},      \
                    /* 8 bytes of partials per invocation and vector lane,     \
                     * plus the result slots */                                \
                    {CG_LIMIT_SHARED_BYTES, (1u << CG_ROW_WG) | (1u << CG_ROW_VEC), 9}}, \
    .dflt = {{128, 0, 4, 1}},                                                  \
  }

#endif
