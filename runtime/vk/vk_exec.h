/* rt_vk_exec: runs a whole graph per its ir_plan (ir/plan.h) on one Vulkan
 * context, CPU-placed nodes on the reference kernels.
 *
 * At creation: one device arena for the intermediates the plan's memory plan
 * places (plan->mem, by passes/plan_memory through cg_plan_build), each bound
 * at its offset; one device buffer of its own for every other value a GPU
 * step binds (graph inputs and outputs, constants, and every value when the
 * plan has no memory plan; sub-allocated from the context's pools);
 * constants uploaded once, one pipeline per distinct (module, specialization,
 * layout), created on several threads at once, and every
 * run of consecutive GPU steps recorded once as an rt_vk_program (a
 * "segment"; barriers only where a dispatch depends on an earlier one).
 *
 * A run: graph inputs are uploaded (those a GPU step reads), then steps go in
 * order: each segment is a submit and a wait; a CPU step runs
 * rt_cpu_run_node on host tensors; a transfer step (the IR's download and
 * upload nodes, inserted by the placement pass) copies one tensor between
 * host and device; finally the outputs are read back. Those are the only
 * copies: the executor runs exactly what the plan says, and a CPU step
 * that finds an input missing on the host is an INTERNAL error (the plan
 * check refuses such plans first). A GPU view step whose output the memory
 * plan aliases to its input (reshape and friends) records no dispatch: the
 * bytes are already there. Host sync happens only around CPU and transfer
 * steps and at the graph's edges. A value with a data-dependent (bounded)
 * shape carries its run-time size on the device in its extent word (the
 * word after its capacity's elements, ir/graph.h): kernels read and write
 * it (codegen/glsl/extent.glsl), the executor copies it where a step says
 * so (IR_STEP_EXTENT_FROM), and a download reads the actual size. */
#ifndef RT_VK_EXEC_H
#define RT_VK_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/graph.h"
#include "ir/plan.h"
#include "runtime/tensor.h"
#include "vk_context.h"
#include "vk_program.h"
#include "vk_weights.h"

typedef struct rt_vk_exec rt_vk_exec;

/* Valid when zero-initialized. */
typedef struct rt_vk_exec_opts {
  bool timestamps;   /* per-step GPU times (needs device timestamps, else UNSUPPORTED) */
  rt_vk_wait wait;   /* how runs wait for the GPU */
  /* Cap on the device bytes this executor allocates (0: none): beyond it
   * creation fails with OUT_OF_MEMORY as if the device were full, naming the
   * value (tests, or a budget). */
  uint64_t max_device_bytes;
  /* The plan's constants, uploaded once and shared with other executors
   * of the same plan on the same context (NULL: the executor uploads its
   * own). Must outlive the executor. */
  const rt_vk_weights *weights;
  bool no_lean; /* always take the step-by-step path (tests, comparisons) */
  /* Lean path: copy every input in from host-visible staging even where
   * the device has device-local host-visible memory the kernels could read
   * it from directly (comparisons) */
  bool staged_inputs;
  /* Threads creating the pipelines at creation (0: one per core, at most
   * 8; 1: on the caller's thread only). */
  int pipeline_threads;
} rt_vk_exec_opts;

/* Prepares plan (and the graph it owns) for execution; ctx and plan must
 * outlive the executor. The plan is checked against its graph first
 * (ir_plan_check). Errors name the node or value: out of device
 * memory, pipeline creation, validation messages (DEVICE). *out is freed with
 * rt_vk_exec_destroy. */
vkml_status rt_vk_exec_create(rt_vk_context *ctx, const ir_plan *plan,
                              const rt_vk_exec_opts *opts, rt_vk_exec **out);
void rt_vk_exec_destroy(rt_vk_exec *e);

/* The lean path. When every step runs on the GPU (no CPU or transfer
 * steps), creation also records one program that copies the inputs in
 * from host-visible staging buffers, runs every dispatch and copies the
 * outputs out to staging: a run is a memcpy per input, one submit and wait,
 * a memcpy per output, with no allocation or descriptor work. Where the
 * device has memory both device-local and host-visible (RT_VK_MEM_UPLOAD),
 * an input lives there and the host writes it where the kernels read it:
 * no copy in (opts.staged_inputs turns this off).
 * rt_vk_exec_run takes it by itself. Zero copy: rt_vk_exec_input_map gives
 * graph input i's staging memory (write the input there, dense, in the
 * graph's dtype), rt_vk_exec_output_map output i's (the last run's result),
 * rt_vk_exec_run_mapped runs on what the input memory holds. NULL (and
 * INVALID_ARGUMENT) for plans with CPU steps. */
void *rt_vk_exec_input_map(rt_vk_exec *e, int i);
const void *rt_vk_exec_output_map(const rt_vk_exec *e, int i);
vkml_status rt_vk_exec_run_mapped(rt_vk_exec *e, double *step_ns);

/* Runs the graph: inputs[i] binds the graph's input i (dtype and dims must
 * match exactly); outputs receives n_out == the graph's output count freshly
 * allocated tensors, freed by the caller with rt_tensor_free (zeroed on
 * error). step_ns (NULL, or plan->n_steps entries) receives each step's time
 * in nanoseconds: GPU timestamps for GPU steps (with opts.timestamps, else
 * 0), host wall time for CPU steps including their transfers. */
vkml_status rt_vk_exec_run(rt_vk_exec *e, const rt_tensor *inputs, int n_in,
                           rt_tensor *outputs, int n_out, double *step_ns);

/* Submits every recorded GPU segment once more, in order, without input
 * uploads, CPU steps or output downloads: the device buffers still hold the
 * last rt_vk_exec_run's data, so each kernel recomputes the same values. For
 * measuring kernels back to back (a GPU left idle between timed dispatches,
 * e.g. while large tensors cross the bus, lowers its clocks). step_ns (NULL,
 * or plan->n_steps entries): GPU timestamps of GPU steps (with
 * opts.timestamps), 0 for CPU and transfer steps. Needs one completed run.
 * With CPU steps in the plan, a value an upload step wrote may since have
 * been overwritten in
 * the arena by a later step (its space reused), so kernels after it read
 * other data: the timings hold, the outputs do not. */
vkml_status rt_vk_exec_replay(rt_vk_exec *e, double *step_ns);

/* As rt_vk_exec_replay, with each segment's commands recorded `repeat`
 * (>= 2) times in a row in one submission, each repeat ordered after the
 * one before by the usual barriers (as a node waits on its producer in a
 * graph). A GPU step's time is the median over repeats 2.. of its
 * commands' timestamp intervals: the steady-state cost of the step inside
 * a stream of work, without the first repeat's start of submission (the
 * command processor's start, the caches and clocks of a GPU that sat idle
 * while the host waited), which a single dispatch per submission pays in
 * full (measured in bench/results/2026-11-27-chained-timing.md). The data
 * stay in the same buffers across repeats; with flush (NULL: none; a device
 * buffer of a multiple of 4 bytes, larger than the GPU's last-level cache,
 * that must outlive the chained programs), each repeat starts after zeros
 * written over it (rt_vk_program_fill), timed from cold caches instead of
 * from the data the repeat before left there. A step's time runs from the
 * end of that fill (or of the repeat before) to its end, its barrier
 * included. The chained programs are recorded on the first call and kept (a
 * call with another repeat or flush buffer records them again). Outputs
 * recompute the same values (steps that write in place copy their input
 * first, each repeat). */
vkml_status rt_vk_exec_replay_chained(rt_vk_exec *e, int repeat, const rt_vk_buffer *flush,
                                      double *step_ns);

/* Whether plan step `step` records a dispatch: false for CPU and transfer
 * steps and for
 * GPU view steps that share their input's bytes (no kernel runs). */
bool rt_vk_exec_step_dispatches(const rt_vk_exec *e, int step);
/* The driver's statistics of step `step`'s pipeline (rt_vk_pipeline_stats):
 * "" for steps without one or where the context does not capture them. */
const char *rt_vk_exec_step_stats(const rt_vk_exec *e, int step);

typedef struct rt_vk_exec_stats {
  int n_gpu_steps, n_cpu_steps, n_transfer_steps;
  int cpu_threads;      /* the CPU steps' kernels' threads (0: no CPU step) */
  int n_segments;       /* recorded programs */
  int n_pipelines;      /* distinct pipelines created */
  int n_buffers;        /* device buffers (the arena, one per other bound
                           value but constants) */
  uint64_t device_bytes; /* their total size, plus the weights unless shared */
  uint64_t arena_bytes;  /* the intermediates' arena (plan->mem.arena_bytes) */
  int n_arena_values;    /* values bound inside it */
  int n_views_elided;    /* GPU view steps recorded without a dispatch */
  int n_barriers;        /* pipeline barriers between dispatches, all segments */
  int64_t n_runs;
  int64_t n_segment_runs; /* program submissions over all runs */
  /* host<->device tensor copies over all runs: transfer steps, graph inputs
   * and outputs (constants go up at creation, uncounted) */
  int64_t n_uploads, n_downloads;
  int64_t n_replays;              /* rt_vk_exec_replay calls */
  bool lean;                      /* runs take the lean path */
  uint64_t weight_bytes;          /* device bytes of the constants */
  bool weights_shared;            /* they belong to opts.weights (not counted
                                     in device_bytes) */
  uint64_t staging_bytes;         /* host-visible bytes of the lean path */
  int n_direct_inputs;            /* lean path: graph inputs the host writes
                                     into device-local host-visible memory
                                     the kernels read (no copy in) */
  /* lean runs, summed: host copies in and out; submit to fence signalled */
  double host_copy_ns, submit_wait_ns;
} rt_vk_exec_stats;
void rt_vk_exec_stats_get(const rt_vk_exec *e, rt_vk_exec_stats *out);

#endif
