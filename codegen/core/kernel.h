/* cg_kernel: one template instantiated for one workload and schedule —
 * what the runtime needs to build a pipeline and dispatch it, with no
 * runtime types (codegen never includes runtime/): the template source and
 * its #defines (knobs and baked choices), specialization constants (shapes
 * and constants baked at pipeline creation), the binding count and the grid.
 * Buffers are bound at set 0, bindings 0..n_buffers-1, in the order the
 * template documents: the node's inputs, its outputs, then (error_slot)
 * the step's error slot. */
#ifndef CG_CORE_KERNEL_H
#define CG_CORE_KERNEL_H

#include <stdint.h>

#include "codegen/core/compile.h"
#include "codegen/core/template.h"

#define CG_MAX_DEFINES 32 /* elementwise_fused: 5 and one per program slot */
#define CG_MAX_SPEC 144 /* elementwise_fused: 16 program slots of 3 and 8 inputs of 9 */

typedef struct cg_kernel {
  const cg_template *tmpl;
  cg_schedule schedule;
  const char *source_name; /* the embedded template */
  const char *source;
  int n_defines;
  char def_name[CG_MAX_DEFINES][32];
  char def_value[CG_MAX_DEFINES][48];
  int n_spec;
  uint32_t spec_id[CG_MAX_SPEC];
  uint32_t spec_value[CG_MAX_SPEC];
  int n_buffers;
  /* the kernel can meet bad data: its last binding (n_buffers - 1) is the
   * step's error slot (ir/plan.h IR_PLAN_ERROR_BINDING,
   * glsl/device_error.glsl) */
  bool error_slot;
  /* output 0 starts as a copy of input 0 (the executor copies before the
   * dispatch: ir/plan.h IR_STEP_COPY_IN0); the kernel writes in place */
  bool copy_input0;
  /* the node runs over a bounded input's capacity (codegen/core/extent.h): 1 + the
   * input whose extent word the outputs take (ir/plan.h
   * IR_STEP_EXTENT_FROM), 0 for none */
  int extent_from;
  /* with extent_from: the kernel's first invocation copies the extent word
   * itself (glsl/extent_copy.glsl, set by cg_kernel_for_node; ir/plan.h
   * IR_STEP_EXTENT_KERNEL) */
  bool extent_in_kernel;
  uint32_t push_bytes;
  uint32_t groups[3];
  cg_opt_level opt; /* shaderc optimisation; zero-initialized: CG_OPT_PERFORMANCE */
  char key[512]; /* the workload key (same on every machine) */
} cg_kernel;

/* Starts a kernel: template source, the schedule's knobs as #defines.
 * Checks the schedule against the target. */
vkml_status cg_kernel_begin(cg_kernel *k, const cg_template *t, const cg_schedule *s,
                            const ir_target *target);
/* Adds a #define (value printf-formatted). */
vkml_status cg_kernel_define(cg_kernel *k, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Sets specialization constant id (by name: CG_SPEC_<FILE>_<NAME>,
 * codegen/core/spec.h) to value (float bits for a float constant, 0 or 1
 * for a bool). */
vkml_status cg_kernel_spec(cg_kernel *k, uint32_t id, uint32_t value);
/* Several at once: cg_kernel_specs(k, (cg_spec_value[]){{ID, v}, ...}, n),
 * or CG_KERNEL_SPECS(k, array) for a named array. */
typedef struct cg_spec_value {
  uint32_t id, value;
} cg_spec_value;
vkml_status cg_kernel_specs(cg_kernel *k, const cg_spec_value *v, int n);
#define CG_KERNEL_SPECS(k, array) cg_kernel_specs(k, array, (int)(sizeof(array) / sizeof((array)[0])))
/* The grid of `groups` workgroups, folded into y beyond the device's x
 * limit; the kernel recovers its flat index as gl_WorkGroupID.y * GX +
 * gl_WorkGroupID.x, GX being specialization constant gx_spec. UNSUPPORTED
 * when y overflows too. */
vkml_status cg_fold_grid(cg_kernel *out, const ir_target *t, int64_t groups, uint32_t gx_spec,
                         const char *op);
/* Compiles the kernel's source with its defines. */
vkml_status cg_kernel_compile(cg_compiler *c, const cg_kernel *k, cg_spirv *out);

#endif
