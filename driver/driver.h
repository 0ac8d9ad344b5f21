/* The compile driver: the one place that wires import, the pass pipeline,
 * codegen's plan and the artifact (driver.c reads top to bottom), with the
 * callbacks the stages ask each other through: constant folding on the CPU
 * reference kernels (eval), placement and layout from codegen's query
 * (place, layout_operands), the memory planner (plan_memory), the kernel
 * chooser (a schedule database, or the caller's). Tools, the tuner, the
 * benchmarks and the tests compile through here; vkml_compile
 * (include/vkml_compile.h, driver_api.c) is its public face. Nothing below
 * the driver includes it. */
#ifndef DRV_DRIVER_H
#define DRV_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "codegen/core/plan.h"
#include "frontend/onnx_import.h"
#include "ir/artifact.h"
#include "ir/graph.h"
#include "ir/memplan.h"
#include "ir/plan.h"
#include "ir/target.h"
#include "passes/pass.h"
#include "tunedb/tunedb.h"

/* What a compile does beyond the defaults. Valid when zero-initialized
 * (every pass, fp32, default layout and schedules, the best planner).
 * Arrays and strings are read during the calls only. */
typedef struct drv_opts {
  /* import (.onnx): the input shapes (--input-shape, or from --input
   * files) and frozen inputs (the conformance runner's parameters), as
   * onnx_import_opts takes them; its eval is the driver's (constant folding
   * on the CPU reference kernels) */
  onnx_import_opts import;

  /* the pass pipeline */
  ir_precision precision;
  const bool *cpu_ops;  /* [IR_OP_COUNT]: ops kept on the CPU; NULL: none */
  bool fallback_never;  /* a node that cannot run on the GPU fails the compile */
  ir_layout layout;     /* IR_LAYOUT_NC4HW4: packed wherever a kernel takes it */
  bool layout_auto;     /* with IR_LAYOUT_DEFAULT: nhwc where it pays (pass_opts) */
  pass_winograd_mode winograd; /* which 3x3 convs run as conv2d_winograd */
  bool split_k_off;            /* no pass_split_k (vkc --split-k off) */
  int split_k_factor;          /* pass_split_k's factor everywhere (vkc --split-k N; 0: its rule) */
  bool attention_off;          /* no pass_fuse_attention (vkc --attention off) */
  bool attention_all;          /* fp16 chains of any length too (vkc --attention all) */
  /* Only the passes a target needs (bounds, fp16, the splits of staged
   * ops, placement, layout, transfers): vkc --no-opt, and the tests that
   * keep the nodes they place. */
  bool no_opt;
  const char *dump_after; /* print the IR after this pass ("all": each; the
                             tools take VKML_DUMP when not given) */
  FILE *dump;             /* to here (NULL: stderr) */

  /* the plan */
  ir_memplan_strategy memory_planner;
  cg_compiler *compiler; /* NULL: the plan's own, default options */
  const char *db; /* each GPU kernel's schedule from this database (read only) */
  /* Or the caller's chooser (the tuner's trials, the tests' schedules):
   * it wins over db. */
  cg_kernel_chooser choose;
  void *choose_user;

  /* the artifact's provenance: the tool ("vkc 0.1.0"; NULL: "vkml") */
  const char *tool;
} drv_opts;

/* What the plan's kernels came from, with drv_opts.db. */
typedef struct drv_report {
  int n_exact, n_nearest, n_default; /* GPU kernels tuned on this device, the
                                        nearest one, the default */
} drv_report;

/* The model a compile starts from: a file (path), or bytes (data, bytes;
 * name for messages, NULL "<memory>"). A .onnx name, or bytes that start as
 * a ModelProto does (0x08), are ONNX; anything else is IR text (.vkir; its
 * weights in NAME.bin beside a file). */
typedef struct drv_source {
  const char *path;
  const void *data;
  size_t bytes;
  const char *name;
} drv_source;

/* ---- the stages (driver.c runs them in order) ---- */

/* Import: a verified graph (*out freed by the caller with ir_graph_destroy;
 * NULL on error). --input-shape on a .vkir model is INVALID_ARGUMENT. */
vkml_status drv_import(const drv_source *src, const drv_opts *o, ir_graph **out);

/* The pass pipeline, in place, for target t; NULL: for the CPU executor
 * (nothing placed, no layout; --cpu-ops and --fallback never are then
 * refused by the tools before). On error g may be partly rewritten. */
vkml_status drv_passes(ir_graph *g, const ir_target *t, const drv_opts *o);

/* Codegen's plan of *g (placed by drv_passes, or a graph whose nodes the
 * caller placed) for t, the schedules from o->choose, else o->db, else the
 * defaults; the memory planner wired in. On success the plan owns the
 * graph (*g becomes NULL); rep (may be NULL) gets the database's counts. */
vkml_status drv_plan(ir_graph **g, const ir_target *t, const drv_opts *o, drv_report *rep,
                     ir_plan **out);

/* Writes plan's artifact to path (a temporary file beside it, renamed over
 * it), every error naming path. */
vkml_status drv_artifact_write(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                               const char *path);
/* The same as bytes (*out malloc'd, freed by the caller). */
vkml_status drv_artifact_encode(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                                uint8_t **out, size_t *bytes);

/* ---- the whole compile ---- */

/* drv_passes then drv_plan on *g (the plan owns it on success). */
vkml_status drv_compile_graph(ir_graph **g, const ir_target *t, const drv_opts *o,
                              drv_report *rep, ir_plan **out);
/* Import, passes, plan for t; then, when artifact_path is given, the
 * artifact written there. *out (may be NULL: the artifact only) is freed
 * with ir_plan_destroy. */
vkml_status drv_compile(const drv_source *src, const ir_target *t, const drv_opts *o,
                        const char *artifact_path, drv_report *rep, ir_plan **out);

/* ---- what the stages share with their callers ---- */

/* Comma-separated op names into mask[IR_OP_COUNT] (--cpu-ops, vktune
 * --ops): IR names or ONNX spellings, ignoring case and '_'; NULL or ""
 * lists none. An unknown name is INVALID_ARGUMENT "<what>: unknown op 'X'". */
vkml_status drv_op_list_parse(const char *list, const char *what, bool *mask);

/* "NAME=D,D,..." (--input-shape) into *name (malloc'd, freed by the
 * caller), *rank and dims. */
vkml_status drv_shape_arg_parse(const char *arg, char **name, int *rank,
                                int64_t dims[IR_MAX_RANK]);

/* Every memory planner on a built plan's intermediates (vkc run --stats):
 * arena bytes and shared objects by ir_memplan_strategy, the lower bound
 * and alignment (the same for all). */
typedef struct drv_memory_stats {
  uint64_t bytes[IR_MEMPLAN_COUNT];
  int32_t n_objects[IR_MEMPLAN_COUNT];
  uint64_t lower_bound, alignment;
} drv_memory_stats;
vkml_status drv_memory_stats_get(const ir_plan *plan, const ir_target *t, drv_memory_stats *out);

/* The schedule database's description of target t (limits_json, when
 * given, receives its limits as JSON and *out points at it). */
void drv_device_from_target(const ir_target *t, tunedb_device *out, char *limits_json,
                            int limits_bytes);

/* A cg_kernel_chooser over a schedule database (drv_plan uses it for
 * drv_opts.db): each node's workload takes the best record of this device,
 * else of the nearest device; a record that does not instantiate here
 * (another codegen version) falls back to the default. Counts what it did. */
typedef struct drv_db_chooser {
  tunedb *db;
  tunedb_device dev;
  drv_report counts;
  vkml_status error; /* the first database error (the node then takes the default) */
} drv_db_chooser;
void drv_db_chooser_init(drv_db_chooser *c, tunedb *db, const ir_target *t);
vkml_status drv_db_choose(void *user, const ir_node *n, const ir_target *t, cg_kernel *out);

#endif
