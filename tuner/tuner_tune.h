/* tuner_tune: tunes every distinct workload of a graph on one device into a
 * schedule database (what vktune runs; plans take their schedules from it
 * through the driver's chooser, driver/driver.h).
 *
 * Per workload: the default point is measured first (the baseline) and
 * becomes the reference every later trial is timed against (pairs, the
 * clock-stable protocol of tuner_measure.h); the walk starts there, or at the best point of the nearest other device in
 * the database (tunedb_nearest_best) when that point is in this device's
 * space; every trial is looked up in the database first (a rerun after a
 * kill re-measures nothing it stored) and otherwise measured and committed
 * at once, failed and incorrect trials flagged. At the end the best point
 * is measured once more against the default, with 4x the runs (not stored):
 * the confirmed speedup, free of the bias of picking the minimum of many
 * noisy trials. */
#ifndef TUNER_TUNER_TUNE_H
#define TUNER_TUNER_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/core/plan.h"
#include "tunedb/tunedb.h"
#include "tuner/tuner_measure.h"

/* Progress, after every trial. */
typedef struct tuner_progress {
  int workload, n_workloads; /* 0-based index, count */
  const tuner_workload *w;   /* valid during the call only */
  const char *op;            /* the workload's op name (static) */
  int n_nodes;               /* nodes sharing the workload */
  int64_t trial, max_trials; /* of this workload; max_trials 0 under a time budget */
  int64_t measured, stored;  /* trials measured now / found in the database (all workloads) */
  double default_ns, best_ns; /* this workload's; INFINITY while unknown */
  double elapsed_s, eta_s;   /* eta_s < 0: unknown */
} tuner_progress;
typedef void (*tuner_progress_fn)(void *user, const tuner_progress *p);

/* Valid when zeroed (a default budget of 32 trials per workload). */
typedef struct tuner_tune_opts {
  int64_t budget_trials;   /* per workload */
  /* For the whole graph, instead of trials: each workload's default is
   * timed first (its stored trial, else a quick measurement, not stored),
   * and the budget is shared out half evenly, half in proportion to nodes x
   * the default's time; what a workload leaves unused goes to the rest. */
  double budget_seconds;
  uint64_t seed;           /* 0: 1 */
  /* Only the workloads of these ops (ops[IR_OP_COUNT], true: tuned; the
   * caller parses vktune --ops with drv_op_list_parse); NULL: every op. */
  const bool *ops;
  /* Every valid point of each workload instead of the annealing (the
   * reference the annealing is measured against); budgets are ignored. */
  bool exhaustive;
  tuner_bench_opts bench;
  /* Host threads that compile points into the SPIR-V cache before they are
   * measured (tuner_precompile): every valid point of an exhaustive search
   * up front, the start and the survey's template defaults of the
   * annealing. 0: none, each trial compiles its own (the default: on the
   * H100 an exhaustive search cut at 40 s stored 25 and 1 points with 16
   * threads, against 226 and 224 without, bench/results/
   * 2026-11-27-search-and-fleet.md); < 0: one per core. */
  int compile_threads;
  const char *tool_version; /* recorded with each trial; NULL: "" */
  tuner_progress_fn progress;
  void *progress_user;
} tuner_tune_opts;

/* The shares of a time budget (summing to 1) for workloads that take
 * weight[i] (nodes x the default's time; <= 0: unknown, counted as the mean
 * of the known): half shared evenly, half in proportion to the weights, so
 * that the long convs get the trials and every workload still gets some. */
void tuner_budget_shares(const double *weight, int n, double *share);

typedef struct tuner_result_row {
  char key[512];
  const char *op;          /* static */
  int n_nodes;
  double default_ns, tuned_ns; /* INFINITY: no working point */
  /* default / best from the confirming measurement (paired, after the
   * walk); 1 when the default is the best; NAN when not measured */
  double confirmed_speedup;
  char best_template[64];
  char best_schedule[256];
  int64_t trials, measured, stored;
  tunedb_nearness seeded;  /* where the walk started: NONE = the default */
  char seeded_from[TUNEDB_DEVICE_KEY_BYTES];
} tuner_result_row;

typedef struct tuner_result {
  tuner_result_row *rows; /* one per tuned workload, graph order; free() */
  int n;
  char device_key[TUNEDB_DEVICE_KEY_BYTES];
  int64_t measured, stored;
  double seconds;
} tuner_result;
void tuner_result_free(tuner_result *r);

/* Tunes the workloads of g (after the pass pipeline) on ctx's device into
 * db. Errors: a bad ops list, the database (named by tunedb), running out of
 * memory; a schedule that fails is a flagged trial, not an error. */
vkml_status tuner_tune_graph(rt_vk_context *ctx, const ir_graph *g, tunedb *db,
                             const tuner_tune_opts *o, tuner_result *out);

#endif
