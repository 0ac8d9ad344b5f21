/* The tuner's view of a model and its measurements on a device.
 *
 * Workloads: the distinct GPU kernels of a graph, keyed by codegen's
 * workload key (cg_kernel.key: the same string on every machine), so
 * identical nodes are tuned once; each with its space, the templates that
 * instantiate for it and their defaults.
 *
 * Measurement (a tuner_bench per workload): the node alone in a graph of its
 * own (constants copied, other inputs random non-zero), its plan built with
 * the point's template and schedule, one full run whose outputs are checked
 * against the CPU reference of that graph, then timed replays of the
 * dispatch (GPU timestamps, no transfers in between; each replay a chain of
 * tuner_bench_opts.chain dispatches in one submission, timed in its steady
 * state): the median and the spread.
 *
 * Clock-stable protocol: a GPU's clocks follow its load, and a tuner leaves
 * it idle while it compiles each trial on the host, so two points timed
 * seconds apart are timed at different clocks (on the H100 the same kernel
 * measured 157, 53 and 30 us in three runs). With a reference point set
 * (tuner_bench_set_reference: the workload's default), every measurement
 * replays the reference and the point in alternation, in pairs whose order
 * alternates too, warm-up included, and takes the median of the per-pair
 * ratios point/reference: both kernels see the same clocks, a linear drift
 * cancels, and the ratio is the speedup over the default. The point's time
 * is that ratio times the reference's time (measured once, alone, after a
 * long warm-up), so all points of a workload are on one scale. A point that
 * does not compile or run is a failed * measurement, not an error: the tuner records it and moves on. */
#ifndef TUNER_TUNER_MEASURE_H
#define TUNER_TUNER_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/core/compile.h"
#include "ir/graph.h"
#include "ir/plan.h"
#include "runtime/vk/vk_context.h"
#include "runtime/vk/vk_pipeline.h"
#include "tuner/tuner_sa.h"

typedef struct tuner_workload {
  char key[512];       /* codegen's workload key */
  const ir_node *node; /* the first node of the graph with this key */
  int n_nodes;         /* nodes sharing it */
  tuner_space space;   /* templates that instantiate for it, their defaults */
  tuner_point dflt;    /* the plan's default choice (what runs untuned) */
} tuner_workload;

/* The tunable workloads of g (after the pass pipeline) on t, in graph order
 * of first appearance: nodes whose default kernel instantiates, in plain
 * layouts, with static shapes and float graph-facing inputs, whose space
 * has more than one point. *out (free()) may be NULL when *n is 0. */
vkml_status tuner_workloads_find(const ir_graph *g, const ir_target *t, tuner_workload **out,
                                 int *n);

/* The pre-filter for one workload's points (tuner_valid_fn over a
 * tuner_workload): the schedule's constraints and the kernel's refusals
 * (UNSUPPORTED). Other instantiation errors count as valid, so the
 * measurement records them as failures. */
bool tuner_workload_valid(const tuner_workload *w, const ir_target *t, const tuner_point *p);
/* The valid points of w's space on t, template by template in
 * cg_space_point order (what an exhaustive search costs): their number, and
 * the points themselves into out when it is not NULL (room for
 * tuner_space_size(&w->space)). */
int64_t tuner_workload_points(const tuner_workload *w, const ir_target *t, tuner_point *out);

/* Compiles the SPIR-V of points pts[0..n) of w on t into the SPIR-V cache
 * at cache_dir (NULL: the default one, codegen/core/compile.h) on `threads` host
 * threads (<= 0: one per core), so that their measurements, one after
 * another, find it there: the host's cores compile while the tuner, which
 * needs the GPU to itself, only measures. A point that does not instantiate
 * or compile is skipped (its measurement records the failure). Returns the
 * number compiled. Thread-safe codegen: each thread has its own compiler. */
#define TUNER_PRECOMPILE_MAX_THREADS 32
int tuner_precompile(const tuner_workload *w, const ir_target *t, const tuner_point *pts, int n,
                     const char *cache_dir, int threads);

typedef struct tuner_bench tuner_bench;

/* Valid when zeroed. */
typedef struct tuner_bench_opts {
  int runs;           /* timed replays; 0: 25 */
  /* Dispatches per timed replay, in a row in one submission
   * (rt_vk_exec_replay_chained): a replay's time is the median of its
   * repeats after the first, the kernel's steady-state cost inside a stream
   * of work. 1: one dispatch per submission, timed from the top of the
   * pipe (the protocol before 2026-11-27, whose start-of-submission cost
   * was most of a small kernel's time). 0: 16, 2 on a CPU device */
  int chain;
  /* MiB of a device buffer zeroed before each dispatch of the chain, so
   * that each starts from cold caches (weights come from memory, as they
   * do in a model larger than the cache). 0: 128 on a GPU, none on a CPU
   * device; -1: none (what the previous dispatch left stays cached). */
  int flush_mb;
  int warmup;         /* untimed replays, at least; 0: 3 */
  double warmup_ms;   /* and at least this long; 0: 20 */
  /* The bench's first measurement warms up at least this long: the GPU sat
   * idle (and clocked down) while the CPU reference ran, and a default
   * timed at low clocks would flatter every later point. 0: 500 */
  double first_warmup_ms;
  ir_precision precision; /* the graph's (recorded in plans; fp16 needs 16-bit storage) */
  /* Check points against the reference point's GPU output instead of the
   * CPU reference (nodes too large for the CPU kernels, e.g. a 4096^3
   * gemm): tuner_bench_set_reference must come before any other
   * measurement. */
  bool gpu_reference;
  cg_compiler *compiler;  /* NULL: one with default options, per bench */
} tuner_bench_opts;

/* Prepares the measurement of node n of g: its one-node graph, random
 * inputs (fixed seed), the CPU reference (unless opts.gpu_reference). ctx and g must outlive it; freed
 * with tuner_bench_destroy. */
vkml_status tuner_bench_create(rt_vk_context *ctx, const ir_graph *g, const ir_node *n,
                               const tuner_bench_opts *o, tuner_bench **out);
/* The dispatches per timed replay the bench uses (opts.chain, or its
 * default for the device). */
int tuner_bench_chain(const tuner_bench *b);
/* The MiB zeroed before each chained dispatch (0: none). */
int tuner_bench_flush_mb(const tuner_bench *b);

void tuner_bench_destroy(tuner_bench *b);

typedef struct tuner_measurement {
  double median_ns;   /* of the node's dispatch; with a reference: ratio * reference_ns */
  double spread_ns;   /* half the distance between the 10th and 90th percentile */
  int64_t runs;
  /* With a reference: the median over the pairs of point/reference (the
   * point's time relative to the reference, < 1 is faster), and the raw
   * median of the point's own timestamps. Without: 0, and median_ns. */
  double ratio;
  double raw_median_ns;
  double rel_err;     /* max |got - ref| / max |ref| */
  bool correct;       /* rel_err within the tolerance (1e-3 fp32, 1e-2 fp16) */
  bool failed;        /* did not compile or run: message says why */
  char message[256];
  /* The driver's statistics of the point's pipeline where the context
   * captures them (rt_vk_context_opts.pipeline_stats), else "". */
  char kernel_stats[RT_VK_STATS_BYTES];
} tuner_measurement;

/* Measures template tmpl with schedule s on the bench's node. Only running
 * out of (host or device) memory is an error; a point that fails to build
 * or run sets out->failed. */
vkml_status tuner_bench_measure(tuner_bench *b, const cg_template *tmpl, const cg_schedule *s,
                                tuner_measurement *out);

/* Makes (tmpl, s) the reference later measurements are paired with (the
 * protocol above) and measures it alone: first_warmup_ms of warm-up, 4x the
 * runs. Its time, the scale of every later median_ns, is scale_ns when that
 * is > 0 (a stored measurement of the same point, so a resumed run stays on
 * its first run's scale), else the one measured here. When the reference
 * fails (out->failed) the bench measures points alone, as without one. */
vkml_status tuner_bench_set_reference(tuner_bench *b, const cg_template *tmpl,
                                      const cg_schedule *s, double scale_ns,
                                      tuner_measurement *out);

/* A fresh measurement of (tmpl, s) against the reference with `times` x the
 * runs (the walk's best point is the minimum of many noisy measurements, so
 * its own ratio is biased low: the confirmed ratio is not). */
vkml_status tuner_bench_confirm(tuner_bench *b, const cg_template *tmpl, const cg_schedule *s,
                                int times, tuner_measurement *out);

#endif
