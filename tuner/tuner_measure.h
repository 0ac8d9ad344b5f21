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
 * against the CPU reference of that graph, then a warm-up by time and timed
 * replays of the dispatch (GPU timestamps, no transfers in between): the
 * median and the spread. A point that does not compile or run is a failed
 * measurement, not an error: the tuner records it and moves on. */
#ifndef TUNER_TUNER_MEASURE_H
#define TUNER_TUNER_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/cg_compile.h"
#include "ir/graph.h"
#include "ir/plan.h"
#include "runtime/vk/vk_context.h"
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

typedef struct tuner_bench tuner_bench;

/* Valid when zeroed. */
typedef struct tuner_bench_opts {
  int runs;           /* timed replays; 0: 25 */
  int warmup;         /* untimed replays, at least; 0: 3 */
  double warmup_ms;   /* and at least this long; 0: 20 */
  /* The bench's first measurement warms up at least this long: the GPU sat
   * idle (and clocked down) while the CPU reference ran, and a default
   * timed at low clocks would flatter every later point. 0: 500 */
  double first_warmup_ms;
  ir_precision precision; /* the graph's (recorded in plans; fp16 needs 16-bit storage) */
  cg_compiler *compiler;  /* NULL: one with default options, per bench */
} tuner_bench_opts;

/* Prepares the measurement of node n of g: its one-node graph, random
 * inputs (fixed seed), the CPU reference. ctx and g must outlive it; freed
 * with tuner_bench_destroy. */
vkml_status tuner_bench_create(rt_vk_context *ctx, const ir_graph *g, const ir_node *n,
                               const tuner_bench_opts *o, tuner_bench **out);
void tuner_bench_destroy(tuner_bench *b);

typedef struct tuner_measurement {
  double median_ns;   /* of the node's dispatch */
  double spread_ns;   /* half the distance between the 10th and 90th percentile */
  int64_t runs;
  double rel_err;     /* max |got - ref| / max |ref| */
  bool correct;       /* rel_err within the tolerance (1e-3 fp32, 1e-2 fp16) */
  bool failed;        /* did not compile or run: message says why */
  char message[256];
} tuner_measurement;

/* Measures template tmpl with schedule s on the bench's node. Only running
 * out of (host or device) memory is an error; a point that fails to build
 * or run sets out->failed. */
vkml_status tuner_bench_measure(tuner_bench *b, const cg_template *tmpl, const cg_schedule *s,
                                tuner_measurement *out);

#endif
