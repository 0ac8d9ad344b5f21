/* Shared command-line plumbing of the tools that compile (vkc, vktune):
 * --input-shape and the compile options, turned into the driver's options
 * (driver/driver.h: the compile itself is the driver's). */
#ifndef TOOLS_CLI_COMPILE_H
#define TOOLS_CLI_COMPILE_H

#include <stdbool.h>

#include "driver/driver.h"
#include "ir/graph.h"
#include "ir/memplan.h"
#include "ir/target.h"
#include "runtime/vk/vk_context.h"

/* --input-shape arguments collected for the importer, and shapes read
 * from --input files (files[i] non-NULL: they fix symbolic dims only). */
typedef struct cli_shape_args {
  int n;
  char *names[64];
  int ranks[64];
  int64_t dims[64][IR_MAX_RANK];
  const int64_t *dim_ptrs[64];
  const char *files[64];
} cli_shape_args;

/* Compile options (`vkc run`, `vktune`). */
typedef struct cli_compile_args {
  ir_precision precision;
  const char *cpu_ops;
  ir_layout layout;
  bool layout_fixed; /* --layout default|nc4hw4|nhwc given (else auto) */
  const char *dump_after;
  ir_memplan_strategy memory_planner;
  bool stats;
  bool no_opt;
  bool fallback_never; /* --fallback never: a node off the GPU fails the compile */
  pass_winograd_mode winograd; /* --winograd auto|off|f2|f4 */
  bool split_k_off;            /* --split-k off */
  int split_k_factor;          /* --split-k N (0: auto) */
  bool attention_off;          /* --attention off */
  bool attention_all;          /* --attention all */
  const char *db; /* --db FILE: schedules from this database */
} cli_compile_args;

bool cli_has_ext(const char *path, const char *ext);

/* Whether an output file can be written at path, checked before the work
 * that makes it: not a directory, and its directory exists and is
 * writable. IO status naming path and the reason. */
vkml_status cli_out_path_check(const char *path);

/* Consumes --input-shape VALUE; 1 consumed, 0 not ours, -1 bad (printed). */
int cli_shape_arg_parse(const char *tool, int argc, char **argv, int *i, cli_shape_args *a);
void cli_shape_args_free(cli_shape_args *a);

/* For an ONNX model: the shape of each --input NAME=FILE whose NAME has no
 * --input-shape, read from FILE, added to a (vkc run, vkc compile: an
 * input's symbolic dimensions from the file it will run with). A model of
 * another kind is left alone. */
vkml_status cli_shapes_from_inputs(const char *model, int n_inputs, const char *const *names,
                                   const char *const *files, cli_shape_args *a);

/* Opens the Vulkan device `device` names (an index in vkEnumeratePhysicalDevices
 * order), or the default one (VKML_DEVICE, else discrete > integrated >
 * CPU) when it is NULL. VKML_VALIDATION=1 turns the validation layer on.
 * *out is freed with rt_vk_context_destroy. */
vkml_status cli_vk_context_open(const char *device, rt_vk_context **out);

/* Loads .onnx (imported with the shape overrides) or .vkir (verified):
 * drv_import. */
vkml_status cli_load_model(const char *path, const cli_shape_args *a, ir_graph **g);
/* The shapes as the driver's import options (o points into a). */
void cli_drv_shapes(const cli_shape_args *a, drv_opts *o);

/* Consumes --precision, --cpu-ops, --layout, --dump-after, --memory-planner,
 * --fallback, --stats, --no-opt, --db; 1 consumed, 0 not ours, -1 bad (printed). */
int cli_compile_arg_parse(const char *tool, int argc, char **argv, int *i, cli_compile_args *c);

/* c's options as the driver's (*o points into c and cpu_ops, which must
 * outlive it): --cpu-ops parsed into cpu_ops[IR_OP_COUNT] (an unknown op is
 * INVALID_ARGUMENT naming it), precision, placement, layout, dumps,
 * --no-opt, planner, --db. */
vkml_status cli_drv_opts(const cli_compile_args *c, bool *cpu_ops, drv_opts *o);

/* The pass pipeline on g for a GPU target t (NULL: for the CPU executor)
 * with c's options: drv_passes. */
vkml_status cli_pipeline_run(ir_graph *g, const cli_compile_args *c, const ir_target *t);

#endif
