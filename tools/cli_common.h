/* Shared command-line plumbing of vkc, vkrun and vktune: the run options and
 * messages (cli_common.c), and running a model through the public C API,
 * include/vkml.h, with its outputs, --bench statistics and --profile
 * (cli_run.c, its reports in cli_report.c). Nothing here includes vkml's
 * internals: vkrun links the runtime library's API and nothing else. */
#ifndef TOOLS_CLI_COMMON_H
#define TOOLS_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vkml.h"

/* Options of the run step shared by `vkrun` and `vkc run`. */
typedef struct cli_run_opts {
  const char *input_names[64]; /* NAME=FILE as given: NAME ends at '=' */
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
  vkml_wait wait;         /* GPU --wait */
  bool staged_inputs;     /* GPU --inputs staged */
  double peak_gflops, peak_gbs; /* --peak: the device's roofs for --profile (0: none) */
  const char *tool;       /* "vkrun", "vkc run": messages on stderr */
  /* vkrun: seconds vkml_model_load took, printed with --bench on a GPU
   * (negative: not measured) */
  double load_s;
  /* vkc run --stats: printed after the results (its JSON member written by
   * the callback) */
  void (*extra)(void *user, bool json);
  void *extra_user;
} cli_run_opts;

/* o with its defaults (tool named in messages). */
void cli_run_opts_init(cli_run_opts *o, const char *tool);

/* Tries to consume argv[*i] (and its value) as a run option. Returns 1 if
 * consumed, 0 if not a run option, -1 on a malformed one (message printed). */
int cli_run_opts_parse(const char *tool, int argc, char **argv, int *i,
                       cli_run_opts *o);
/* Help text for the run options. */
extern const char cli_run_opts_help[];

/* True when o selects the CPU reference kernels explicitly (--device cpu). */
bool cli_device_is_cpu(const cli_run_opts *o);
/* o->device as a device choice: NULL the default Vulkan device, "cpu", or
 * an index (INVALID_ARGUMENT otherwise). */
vkml_status cli_device_parse(const char *device, vkml_device_kind *kind, int *index);

/* Runs m on the device o names through the C API: inputs bound from files
 * (or, for --bench and --profile without any --input, seeded random values,
 * said on stderr), warm-up, timed runs, outputs printed or written,
 * --bench statistics, the device memory and load times, --profile's per-step
 * table. */
vkml_status cli_run_model(vkml_model *m, const cli_run_opts *o);

/* The C API's element types by name ("f32", ...) and a tensor's type as
 * text, "f32[1,3,<=5]" (bounded_axis >= 0 marks a capacity). */
const char *cli_dtype_name(vkml_dtype t);
void cli_type_format(vkml_dtype t, int rank, const int64_t *dims, int bounded_axis, char *buf,
                     size_t bytes);

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
