/* What the run and its reports share (cli_run.c runs a graph for vkc and
 * vkrun; cli_report.c prints --bench, --profile and the memory and load
 * reports). Internal to tools/. */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include "cli_common.h"
#include "runtime/vk/vk_exec.h"

/* What runs the graph: the CPU executor (exec NULL; profile rows are node
 * ids) or a GPU executor (profile rows are plan steps). */
typedef struct runner {
  const ir_graph *g;   /* the graph that runs (GPU: the plan's) */
  double weights_s, exec_s; /* GPU: weight upload; pipelines, buffers, recording */
  bool pcache_warm;         /* GPU: the pipeline cache file had data */
  rt_vk_open_times open;    /* GPU: the context's creation */
  rt_vk_exec *exec;
  const ir_plan *plan; /* GPU: the steps */
  const char *device;  /* "cpu", or the GPU's name */
  const ir_target *target; /* GPU: the device (its peaks file, cli_peaks.h) */
  int n_rows;
} runner;

/* Sorts v[0..n) ascending. */
void cli_sort_doubles(double *v, int n);
/* The median of v[0..n) (sorts v). */
double cli_median_of(double *v, int n);
/* The per-op table of --profile: row_secs per row (plan step, or node id on
 * the CPU), the medians over runs. */
void cli_print_profile(const runner *rn, const double *row_secs, int runs, const cli_run_opts *o);
/* The memory report of a CPU or GPU run (--bench). */
void cli_print_memory(const cli_memory_stats *m, bool json);
void cli_print_device_memory(const runner *rn, bool json);
/* The load times to the first result (--bench). */
void cli_print_load(const runner *rn, const cli_load_times *l, double first_s, bool json);

#endif
