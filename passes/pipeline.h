/* The pass pipeline: the one place that runs graph passes, in one fixed
 * order (pipeline.c reads top to bottom). Compiling is two calls: this, then
 * codegen's cg_plan_build on the rewritten graph. */
#ifndef PASS_PIPELINE_H
#define PASS_PIPELINE_H

#include <stdio.h>

#include "passes/pass.h"

/* Valid when zero-initialised (no dump; verify after each pass in debug
 * builds only). */
typedef struct pass_pipeline_opts {
  pass_opts pass;
  /* Print the IR text after the pass of this name ("all": after each) to
   * dump (NULL: stderr). An unknown name is an INVALID_ARGUMENT error
   * listing the valid ones. */
  const char *dump_after;
  FILE *dump;
  bool verify_each; /* ir_verify after every pass in release builds too */
  /* Leave out the optimizing passes (fold_constants, remove_identities,
   * dce, fold_batchnorm, merge_pad, fuse_activation, fuse_elementwise): the
   * rest, which the target needs (bounds, fp16, the splits of staged ops,
   * placement, layout, transfers), still run. What a graph costs without
   * them, for before/after measurements. */
  bool no_optimize;
} pass_pipeline_opts;

/* Verifies g, then runs every pass on it in place. A pass that leaves a
 * graph the verifier refuses is an INTERNAL error naming the pass and the
 * verifier's message (which names the node). On error g may be partly
 * rewritten. */
vkml_status pass_pipeline_run(ir_graph *g, const pass_pipeline_opts *opts);

/* Whether name is a pass name of the pipeline or "all" (NULL is fine too);
 * otherwise an INVALID_ARGUMENT error listing the valid names. Tools call
 * it before doing any work. */
vkml_status pass_check_dump_name(const char *name);

/* One pass by name (the golden tests), then ir_verify; an unknown name is
 * INVALID_ARGUMENT listing the valid ones. */
vkml_status pass_run_by_name(ir_graph *g, const char *name, const pass_opts *opts,
                             bool *changed);

/* Runs fn as the pass `name` and verifies what it left (the INTERNAL error
 * above when that fails). */
vkml_status pass_run_verified(ir_graph *g, const char *name, pass_fn fn, const pass_opts *opts,
                              bool *changed);

#endif
