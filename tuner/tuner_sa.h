/* tuner_sa: simulated annealing over one workload's schedule space — the
 * union of the templates that instantiate for it, each with its knobs
 * (codegen/core/template.h) — as tuner/README.md describes: start
 * from a given point (the default, or the nearest device's best), neighbour
 * = one knob moved or a switch of template, a worse point accepted with
 * probability exp(-d/T) where d is the difference of log-costs (so the
 * temperature does not depend on the kernel's time scale), geometric
 * cooling, restarts (alternately from the best point and from a random
 * unvisited one) when the temperature is spent or the best stopped
 * improving.
 *
 * No cost model: every cost comes from the caller (a measurement on the
 * device, a stored record, or a synthetic function in the tests); a cheap
 * validity callback (the analytic pre-filter) discards points before they
 * cost anything. A point is costed at most once per run. Deterministic: the
 * trials depend only on the seed and the costs returned. Uses no globals;
 * knows nothing of Vulkan or the database. */
#ifndef TUNER_TUNER_SA_H
#define TUNER_TUNER_SA_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/core/template.h"
#include "vkml_status.h"

#define TUNER_MAX_TEMPLATES 8

/* One point: a template of the space and a schedule of it. */
typedef struct tuner_point {
  int tmpl; /* index into tuner_space.tmpl */
  cg_schedule sched;
} tuner_point;

/* A workload's space: the templates that can run it, each with its default
 * schedule for the workload. Templates are borrowed. */
typedef struct tuner_space {
  int n;
  const cg_template *tmpl[TUNER_MAX_TEMPLATES];
  cg_schedule dflt[TUNER_MAX_TEMPLATES];
} tuner_space;

/* The analytic pre-filter: whether p can run at all (the schedule's
 * constraints against the device, the template's own refusals). Never a
 * trial. */
typedef bool (*tuner_valid_fn)(void *user, const tuner_point *p);
/* The cost of p (lower is better, e.g. median ns); INFINITY for a point
 * that failed to build or run or gave a wrong result: such a point is never
 * chosen. A non-OK status stops the search and is returned (device lost,
 * database error). */
typedef vkml_status (*tuner_cost_fn)(void *user, const tuner_point *p, double *cost);

/* Told after every trial (progress bars). */
typedef struct tuner_trial {
  int64_t trial;          /* 1-based */
  const tuner_point *point;
  double cost;
  double best_cost;       /* the best so far, this trial included */
  double start_cost;      /* the start point's cost (the first trial) */
} tuner_trial;
typedef void (*tuner_trial_fn)(void *user, const tuner_trial *t);

/* Valid when zero-initialized apart from cost. */
typedef struct tuner_sa_opts {
  uint64_t seed;        /* 0: 1 */
  int64_t max_trials;   /* distinct points costed; 0: 64 */
  double max_seconds;   /* wall clock; 0: no limit */
  double t0;            /* starting temperature (log-cost units); 0: 0.25 */
  double cooling;       /* temperature factor per step; 0: 0.92 */
  double t_min;         /* restart below this; 0: 0.005 */
  int patience;         /* steps without a better best before a restart; 0: 40 */
  double p_switch;      /* chance a neighbour switches template; 0: 0.15 */
  const tuner_point *start; /* NULL: template 0's default */
  /* after the start, each other template's default is costed once and the
   * walk begins at the best of them (a template whose good region is far
   * from the start's is then reached without waiting for a switch); off:
   * the walk begins at the start */
  bool survey;
  tuner_valid_fn valid; /* NULL: every point valid */
  tuner_cost_fn cost;
  void *user;           /* for valid, cost and on_trial */
  tuner_trial_fn on_trial; /* may be NULL */
} tuner_sa_opts;

typedef struct tuner_sa_result {
  tuner_point best;     /* valid only when best_cost is finite */
  double best_cost;     /* INFINITY: no point worked */
  double start_cost;
  int64_t trials;       /* distinct points costed */
  int64_t trial_of_best; /* the trial that found best (1-based) */
  int64_t steps;        /* proposals, revisits and invalid ones included */
  int restarts;
  bool exhausted;       /* every valid point of the space was costed */
} tuner_sa_result;

/* Searches sp. Errors: an empty space or a start point outside it
 * (INVALID_ARGUMENT), out of memory, or the cost callback's error. */
vkml_status tuner_sa_run(const tuner_space *sp, const tuner_sa_opts *o, tuner_sa_result *out);

/* Costs every valid point of sp (template by template, in cg_space_point
 * order): the reference the annealing is measured against. o's seed,
 * budget and annealing fields are ignored; on_trial is told. */
vkml_status tuner_exhaustive(const tuner_space *sp, const tuner_sa_opts *o, tuner_sa_result *out);

/* Points in the space (the sum of the templates' space sizes). */
int64_t tuner_space_size(const tuner_space *sp);
bool tuner_point_equal(const tuner_space *sp, const tuner_point *a, const tuner_point *b);

#endif
