/* Shared command-line plumbing of vkc, vkrun and vktune: the run options,
 * tensor files, messages (cli_common.c), running a graph on the CPU or a
 * GPU with its outputs and --bench statistics (cli_run.c, its reports in
 * cli_report.c). Links the runtime library only, so vkrun stays free of the
 * compiler's dependencies. */
#ifndef TOOLS_CLI_COMMON_H
#define TOOLS_CLI_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/graph.h"
#include "ir/memplan.h"
#include "ir/plan.h"
#include "runtime/tensor.h"
#include "runtime/vk/vk_context.h"

/* Intermediate bytes per memory planner (`vkc run --stats`), printed with
 * the run's results. */
typedef struct cli_memory_stats {
  uint64_t bytes[IR_MEMPLAN_COUNT]; /* arena bytes, by ir_memplan_strategy */
  int32_t n_objects[IR_MEMPLAN_COUNT];
  uint64_t lower_bound;
  uint64_t alignment;
  ir_memplan_strategy chosen; /* the one the run uses */
} cli_memory_stats;

/* Options of the run step shared by `vkrun` and `vkc run`. */
/* Where the time to the first result went (vkrun MODEL.vkm on a GPU);
 * seconds, negative: not measured. */
typedef struct cli_load_times {
  double map_s;      /* map the artifact, verify checksums, decode */
  double device_s;   /* Vulkan instance, device, pipeline cache file */
} cli_load_times;

typedef struct cli_run_opts {
  const char *input_names[64];
  const char *input_files[64];
  int n_inputs;
  const char *output_dir; /* NULL: print outputs */
  const char *device;     /* "cpu" or a Vulkan device index; NULL: the default
                             Vulkan device (vkrun of a .vkir: the CPU) */
  int bench;              /* timed runs; 0: none */
  int warmup;             /* untimed runs before timing; -1: default */
  int warmup_ms;          /* and at least this long; -1: default (GPU 200, CPU 0) */
  bool replay;            /* GPU: timed runs replay the recorded kernels only */
  bool profile, json;
  int wait;               /* GPU --wait: 0 block, 1 spin, 2 hybrid */
  bool staged_inputs;     /* GPU --inputs staged */
  double peak_gflops, peak_gbs; /* --peak: the device's roofs for --profile (0: none) */
  const cli_memory_stats *memory; /* printed after the results; NULL: none */
  const cli_load_times *load;     /* printed with --bench; NULL: none */
} cli_run_opts;

/* Tries to consume argv[*i] (and its value) as a run option. Returns 1 if
 * consumed, 0 if not a run option, -1 on a malformed one (message printed). */
int cli_run_opts_parse(const char *tool, int argc, char **argv, int *i,
                       cli_run_opts *o);
/* Help text for the run options. */
extern const char cli_run_opts_help[];

/* Runs g (already verified) on the CPU executor per o: binds inputs, runs,
 * prints or writes outputs, benchmark and profile. A --device other than
 * "cpu" is refused (vkrun runs .vkir files on the CPU only). */
vkml_status cli_run_graph(const ir_graph *g, const cli_run_opts *o);

/* True when o selects the CPU executor explicitly (--device cpu). */
bool cli_device_is_cpu(const cli_run_opts *o);

/* Opens the Vulkan device o->device names (an index in
 * vkEnumeratePhysicalDevices order), or the default one (VKML_DEVICE, else
 * discrete > integrated > CPU) when it is NULL. VKML_VALIDATION=1 turns the
 * validation layer on. *out is freed with rt_vk_context_destroy. */
vkml_status cli_vk_context_open(const cli_run_opts *o, rt_vk_context **out);

/* Runs plan (and its graph) on ctx (the plan was built for ctx's target):
 * like cli_run_graph,
 * with --bench timing whole runs and --profile listing every step with its
 * device (GPU steps timed by GPU timestamps, CPU steps by wall time), its
 * kernel or the reason it is on the CPU. */
vkml_status cli_run_graph_gpu(rt_vk_context *ctx, const ir_plan *plan, const cli_run_opts *o);

/* Loads a tensor from .npy or ONNX TensorProto .pb (by extension). */
vkml_status cli_tensor_read(const char *path, rt_tensor *out);

/* Replaces characters outside [A-Za-z0-9._-] by '_' (and an empty or dot-only
 * name by "_"). out must hold strlen(in) + 2 bytes. */
void cli_sanitize_name(const char *in, char *out);

/* Prints "TOOL: message" to stderr, frees s, returns the exit code (1). */
int cli_fail(const char *tool, vkml_status s);

/* Copies in to out (cap bytes, NUL-terminated; cut short when full) for a
 * terminal: control characters, C1 controls and invalid UTF-8 become \xNN;
 * with one_line, line breaks become " | ". Returns the length written. */
size_t cli_escape(const char *in, char *out, size_t cap, bool one_line);

/* CLOCK_MONOTONIC in seconds. */
double cli_now_seconds(void);

/* s as a JSON string literal on f (quotes and control characters escaped). */
void cli_print_json_string(FILE *f, const char *s);

#endif
