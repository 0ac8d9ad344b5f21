/* What the run and its reports share (cli_run.c runs a model for vkc and
 * vkrun; cli_report.c prints --bench, --profile and the memory and load
 * reports). Internal to tools/; the public C API only. */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include "cli_common.h"

/* What runs the model: an instance on a Vulkan device or on the CPU. */
typedef struct runner {
  vkml_model *m;
  vkml_instance *inst;
  bool gpu;           /* a Vulkan device (not VKML_DEVICE_CPU) */
  const char *device; /* "cpu", or the GPU's name */
  int n_steps;        /* vkml_model_step_count */
} runner;

/* Sorts v[0..n) ascending. */
void cli_sort_doubles(double *v, int n);
/* The median of v[0..n) (sorts v). */
double cli_median_of(double *v, int n);
/* The per-step table of --profile: row_secs per step, the medians over the
 * timed runs. */
void cli_print_profile(const runner *rn, const double *row_secs, const cli_run_opts *o);
/* The device memory of a GPU run and how its runs split (--bench). */
void cli_print_device_memory(const runner *rn, bool json);
/* The load times to the first result (vkrun --bench): load_s the model's
 * load, first_s the first run. */
void cli_print_load(const runner *rn, double load_s, double first_s, bool json);

#endif
