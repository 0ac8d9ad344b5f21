/* rt_vk_program: a list of dispatches recorded once into one command buffer
 * and replayed by every run. A barrier goes between two dispatches only when
 * the later one depends on the earlier (read after write, write after write,
 * write after read on overlapping buffer ranges). Optional timestamps around
 * every dispatch. A run is a submit and a fence wait, nothing more. */
#ifndef RT_VK_PROGRAM_H
#define RT_VK_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "vk_context.h"
#include "vk_memory.h"
#include "vk_pipeline.h"

typedef struct rt_vk_program rt_vk_program;

typedef enum rt_vk_access {
  RT_VK_READ = 1,
  RT_VK_WRITE = 2,
  RT_VK_READ_WRITE = 3,
} rt_vk_access;

/* A range of a buffer bound to one binding of a dispatch. */
typedef struct rt_vk_binding {
  rt_vk_buffer *buf;
  uint64_t offset; /* bytes; the buffer's offset plus this must be aligned to
                      minStorageBufferOffsetAlignment */
  uint64_t bytes;  /* 0: to the end of the buffer */
  rt_vk_access access;
} rt_vk_binding;

typedef enum rt_vk_wait {
  RT_VK_WAIT_BLOCK = 0, /* sleep on the fence (power-friendly default) */
  RT_VK_WAIT_SPIN,      /* poll the fence (lowest latency) */
  RT_VK_WAIT_HYBRID,    /* sleep 3/4 of the last run's time, then poll */
} rt_vk_wait;

/* With timestamps, the device must have them (else UNSUPPORTED). Free with
 * rt_vk_program_destroy; pipelines and buffers used by a program must
 * outlive it. */
vkml_status rt_vk_program_create(rt_vk_context *ctx, bool timestamps, rt_vk_program **out);
void rt_vk_program_destroy(rt_vk_context *ctx, rt_vk_program *p);

/* Appends a dispatch of groups[0..2] workgroups. bindings has the pipeline's
 * buffer count; push has its push-constant bytes (copied). Only before
 * rt_vk_program_finish. */
vkml_status rt_vk_program_dispatch(rt_vk_program *p, const rt_vk_pipeline *pipe,
                                   const rt_vk_binding *bindings, int n_bindings,
                                   const void *push, uint32_t push_bytes,
                                   const uint32_t groups[3]);
/* Appends a copy of bytes from src at src_off to dst at dst_off (any
 * pools: staging in and out of a whole run). Barriers order it against the
 * program's other commands like a dispatch reading src and writing dst.
 * Counts as a command for timings (its own entry). */
vkml_status rt_vk_program_copy(rt_vk_program *p, const rt_vk_buffer *src, uint64_t src_off,
                               const rt_vk_buffer *dst, uint64_t dst_off, uint64_t bytes);
/* Appends zeros written over the whole of buf (a multiple of 4 bytes),
 * with every command before it finished first and every command after it
 * waiting for it: over a buffer larger than the device's last-level cache
 * it leaves the cache holding none of the program's data (timing a kernel
 * from cold caches). Counts as a command for timings. */
vkml_status rt_vk_program_fill(rt_vk_program *p, const rt_vk_buffer *buf);
/* Records the command buffer (once). */
vkml_status rt_vk_program_finish(rt_vk_program *p);
/* Submits the recorded commands and waits; may be called any number of
 * times. */
vkml_status rt_vk_program_run(rt_vk_program *p, rt_vk_wait wait);

typedef struct rt_vk_program_stats {
  int n_dispatches; /* commands: dispatches, copies and fills */
  int n_barriers; /* between dispatches (not the final one before the host) */
  int barrier_before[64]; /* dispatch indices that got a barrier before them (first 64) */
} rt_vk_program_stats;
void rt_vk_program_stats_get(const rt_vk_program *p, rt_vk_program_stats *out);

/* Per-dispatch GPU times of the last run in nanoseconds (ns[i] from the end
 * of dispatch i-1, or the start, to the end of dispatch i) and the total.
 * Needs a program made with timestamps and at least one run. */
vkml_status rt_vk_program_timings(rt_vk_program *p, double *ns, int n, double *total_ns);

#endif
