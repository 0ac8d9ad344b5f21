/* A small thread pool for the CPU kernels: a fixed set of pthreads owned by
 * whoever runs kernels repeatedly (a CPU instance), and a parallel-for over
 * an index range. No process-global state: a kernel given no pool runs on
 * the calling thread. Internal to runtime/. */
#ifndef RT_CPU_THREADS_H
#define RT_CPU_THREADS_H

#include <stdint.h>

#include "vkml.h"

typedef struct rt_threads rt_threads;

/* The threads a pool would use by default: the online cores, capped by the
 * environment variable VKML_CPU_THREADS when it holds a positive number. */
int rt_threads_default(void);

/* A pool of n_threads workers counting the caller (n_threads - 1 threads
 * are started; n_threads <= 0 means rt_threads_default()). A pool
 * of one thread starts none. Free with rt_threads_destroy. */
vkml_status rt_threads_create(int n_threads, rt_threads **out);
/* Joins the workers. Safe on NULL. */
void rt_threads_destroy(rt_threads *p);
/* Threads counting the caller; 1 for NULL. */
int rt_threads_count(const rt_threads *p);

/* fn(user, begin, end, worker) over [begin, end) chunks of [0, n), each at
 * most `grain` long (grain < 1 means 1), on the pool's threads and the
 * caller's; returns when all are done. worker is in [0, threads) and no two
 * chunks running at once share it, so it can index per-thread scratch.
 * With a NULL pool, one thread, or when the pool is busy (a call from
 * inside fn, or from another thread at the same time) it runs everything on
 * the caller as worker 0. */
typedef void (*rt_cpu_range_fn)(void *user, int64_t begin, int64_t end, int worker);
void rt_parallel_for(rt_threads *p, int64_t n, int64_t grain, rt_cpu_range_fn fn,
                         void *user);

#endif
