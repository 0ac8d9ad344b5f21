/* Compiling a workload's points ahead of their measurements, on several
 * host threads (tuner_measure.h, tuner_precompile). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "codegen/core/kernel.h"
#include "codegen/core/ops.h"
#include "ir/util.h"
#include "tuner/tuner_measure.h"

typedef struct work {
  const tuner_workload *w;
  const ir_target *t;
  const tuner_point *pts;
  int n;
  const char *cache_dir;
  atomic_int next;
  atomic_int compiled;
} work;

static void *worker(void *arg) {
  work *k = arg;
  cg_compiler *c = NULL;
  cg_compiler_opts co = {.cache_dir = k->cache_dir};
  vkml_status s = cg_compiler_create(&co, &c);
  if (s) {
    vkml_status_free(s);
    return NULL;
  }
  for (int i; (i = atomic_fetch_add(&k->next, 1)) < k->n;) {
    const tuner_point *p = &k->pts[i];
    cg_kernel kern;
    /* a point that does not instantiate or compile fails again when it is
     * measured, which records why */
    s = cg_kernel_for_node(k->w->node, k->w->space.tmpl[p->tmpl], &p->sched, k->t, &kern);
    cg_spirv spv = {0};
    if (!s) s = cg_kernel_compile(c, &kern, &spv);
    if (!s) atomic_fetch_add(&k->compiled, 1);
    vkml_status_free(s);
    cg_spirv_free(&spv);
  }
  cg_compiler_destroy(c);
  return NULL;
}

int tuner_precompile(const tuner_workload *w, const ir_target *t, const tuner_point *pts, int n,
                     const char *cache_dir, int threads) {
  if (threads <= 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores > 0 ? (int)cores : 1;
  }
  if (threads > TUNER_PRECOMPILE_MAX_THREADS) threads = TUNER_PRECOMPILE_MAX_THREADS;
  if (threads > n) threads = n;
  work k = {.w = w, .t = t, .pts = pts, .n = n, .cache_dir = cache_dir};
  atomic_init(&k.next, 0);
  atomic_init(&k.compiled, 0);
  pthread_t tid[TUNER_PRECOMPILE_MAX_THREADS];
  int started = 0;
  while (started < threads && !pthread_create(&tid[started], NULL, worker, &k)) started++;
  if (!started) worker(&k); /* no thread to be had: this one does it */
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  return atomic_load(&k.compiled);
}
