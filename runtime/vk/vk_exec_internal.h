/* What the parts of the executor share (vk_exec.c: building it;
 * vk_exec_run.c: running it; vk_exec_chain.c: chained replays for timing):
 * its state and a few helpers. Internal to runtime/vk. */
#ifndef RT_VK_EXEC_INTERNAL_H
#define RT_VK_EXEC_INTERNAL_H

#include "vk_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "ir/file.h"
#include "ir/memplan.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/threads.h"
#include "vk_errors.h"
#include "vk_memory.h"
#include "vk_pipeline.h"
#include "vk_weights.h"
#include "ir/util.h"

typedef struct pipe_entry {
  const ir_plan_step *step; /* the first step that uses it */
  int first_step;           /* its index */
  uint64_t hash;
  rt_vk_pipeline *pipe;
  vkml_status err; /* of its creation (parallel phase) */
} pipe_entry;

typedef struct segment {
  int first, last; /* step indices, inclusive */
  rt_vk_program *prog; /* NULL when every step in it is an elided view */
  rt_vk_program *chain; /* its commands chain_repeat times (rt_vk_exec_replay_chained) */
  int chain_cmds;       /* commands of one repeat */
} segment;

struct rt_vk_exec {
  rt_vk_context *ctx;
  rt_threads *cpu_pool; /* the CPU steps' kernels' threads (NULL: none, or no CPU step) */
  rt_cpu_ctx cpu;       /* how the CPU steps run: on cpu_pool */
  const ir_graph *g; /* the graph the plan runs */
  const ir_plan *plan;
  rt_vk_exec_opts opts;
  const ir_node **nodes;   /* by node id */
  const ir_value **values; /* by value id */
  rt_vk_buffer **bufs;     /* by value id; NULL: the value stays on the host;
                              the arena for values the memory plan places */
  rt_vk_buffer **owned;    /* by value id: the buffer made for it (freed with
                              the executor; bufs may share it) */
  uint64_t *buf_off;       /* by value id: where its bytes start in bufs[id] */
  uint64_t *buf_bytes;     /* by value id: bytes bound */
  rt_vk_buffer *arena;     /* the intermediates' shared buffer (plan->mem) */
  rt_tensor *host;         /* by value id: host copies (owned, or views) */
  bool *host_valid;        /* by value id, during a run */
  int *step_pipe;          /* by step: index into pipes, -1 on the CPU */
  int *step_seg;           /* by step: index into segs, -1 on the CPU */
  bool *step_edge_view;    /* by step: a view at the graph's edge sharing bytes
                              (alias_edge_views) */
  int *step_disp;          /* by step: dispatch index in its segment, -1: none
                              (CPU, or a view that shares its input's bytes) */
  pipe_entry *pipes;
  int n_pipes;
  uint8_t *module_ok;      /* by plan module: validated (rt_vk_spirv_check) */
  segment *segs;
  int n_segs;
  double *seg_ns; /* scratch for program timings */
  int chain_repeat; /* of the segments' chained programs (0: none yet) */
  const rt_vk_buffer *chain_flush; /* and the buffer they zero before each repeat */
  double *chain_ns, *chain_t; /* scratch for their timings, per repeat */
  const rt_vk_weights *weights; /* the constants (shared, or own_weights) */
  rt_vk_weights *own_weights;
  /* the lean path (plans whose steps all run on the GPU): one program that
   * copies the inputs in from host-visible staging, runs every dispatch and
   * copies the outputs out; a run is memcpy, one submit, memcpy */
  rt_vk_program *io_prog;
  rt_vk_buffer **in_stage, **out_stage; /* by graph input / output index */
  bool *in_direct; /* by graph input: in_stage is the kernels' own buffer
                      (UPLOAD memory, no copy in; not owned here) */
  int io_first;                         /* io_prog command of the first dispatch */
  double *io_ns;                        /* scratch for its timings */
  rt_vk_errors *errors;  /* the checking steps' error slots; NULL: none */
  uint32_t seen_errors; /* validation errors already reported */
  rt_vk_exec_stats stats;
};

/* Monotonic time in nanoseconds. */
double rt_vk_exec_now_ns(void);
/* s with n's description in front, unless it starts with it already (the
 * CPU kernels name their node: one prefix per message). */
vkml_status rt_vk_exec_at_node(vkml_status s, const ir_node *n);
/* A DEVICE status when the validation layer reported new errors. */
vkml_status rt_vk_exec_check_validation(rt_vk_exec *e, const ir_node *n, const char *what);

/* Appends the dispatches of steps first..last to *prog (created on the
 * first one); fills step_disp (command index relative to the first
 * dispatch) and, with count, the stats (vk_exec.c). */
vkml_status rt_vk_exec_record_dispatches(rt_vk_exec *e, int first, int last, rt_vk_program **prog,
                                         bool count);
/* Runs one recorded program of segment sg and checks its error slots and
 * the validation layer; kind names it in messages (vk_exec_run.c). */
vkml_status rt_vk_exec_submit_segment(rt_vk_exec *e, const segment *sg, rt_vk_program *prog,
                                      const char *kind);
/* A step's copy commands before its dispatch (IR_STEP_COPY_IN0, then one
 * per output for IR_STEP_EXTENT_FROM without IR_STEP_EXTENT_KERNEL), whose
 * time counts as the step's: the entries before the dispatch's (t)
 * (vk_exec_run.c). */
double rt_vk_exec_copy_ns(const rt_vk_exec *e, int step, const double *t);

#endif
