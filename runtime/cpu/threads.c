/* The CPU kernels' thread pool: workers sleep on a condition variable until
 * a parallel-for publishes a new generation, then take chunks off a shared
 * atomic counter; the caller takes chunks too and waits for every worker to
 * check back in, so no worker can miss a generation or see a stale one. */
#include "threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct rt_threads {
  int n_threads; /* counting the caller */
  pthread_t *threads;
  int n_started;
  pthread_mutex_t busy; /* held by the parallel-for in progress */
  pthread_mutex_t mu;   /* guards everything below but `next` */
  pthread_cond_t wake, done;
  uint64_t generation;
  bool stop;
  int active; /* workers not yet back from this generation */
  /* the job of the current generation */
  rt_cpu_range_fn fn;
  void *user;
  int64_t n, grain;
  atomic_int_fast64_t next;
};

typedef struct worker_arg {
  rt_threads *p;
  int id;
} worker_arg;

int rt_threads_default(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  const char *cap = getenv("VKML_CPU_THREADS");
  if (cap && *cap) {
    char *end;
    long c = strtol(cap, &end, 10);
    if (*end == '\0' && c > 0 && c < n) n = c;
  }
  return n > 1024 ? 1024 : (int)n;
}

static void run_chunks(rt_threads *p, int worker) {
  for (;;) {
    int64_t b = atomic_fetch_add(&p->next, p->grain);
    if (b >= p->n) return;
    int64_t e = p->n - b < p->grain ? p->n : b + p->grain;
    p->fn(p->user, b, e, worker);
  }
}

static void *worker_main(void *arg) {
  worker_arg *w = arg;
  rt_threads *p = w->p;
  int id = w->id;
  free(w);
  uint64_t seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->generation == seen) pthread_cond_wait(&p->wake, &p->mu);
    if (p->stop) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    run_chunks(p, id);
    pthread_mutex_lock(&p->mu);
    if (--p->active == 0) pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
}

vkml_status rt_threads_create(int n_threads, rt_threads **out) {
  *out = NULL;
  if (n_threads <= 0) n_threads = rt_threads_default();
  rt_threads *p = calloc(1, sizeof *p);
  if (!p) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  p->n_threads = 1;
  pthread_mutex_init(&p->busy, NULL);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);
  if (n_threads > 1) {
    p->threads = calloc((size_t)n_threads - 1, sizeof *p->threads);
    if (!p->threads) {
      rt_threads_destroy(p);
      return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    }
  }
  for (int i = 1; i < n_threads; i++) {
    worker_arg *w = malloc(sizeof *w);
    if (!w) break;
    w->p = p;
    w->id = i;
    if (pthread_create(&p->threads[p->n_started], NULL, worker_main, w)) {
      free(w);
      break; /* fewer threads than asked: still a working pool */
    }
    p->n_started++;
  }
  p->n_threads = 1 + p->n_started;
  *out = p;
  return VKML_OK;
}

void rt_threads_destroy(rt_threads *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n_started; i++) pthread_join(p->threads[i], NULL);
  free(p->threads);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->busy);
  free(p);
}

int rt_threads_count(const rt_threads *p) { return p ? p->n_threads : 1; }

void rt_parallel_for(rt_threads *p, int64_t n, int64_t grain, rt_cpu_range_fn fn,
                         void *user) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (!p || p->n_threads < 2 || n <= grain || pthread_mutex_trylock(&p->busy) != 0) {
    for (int64_t b = 0; b < n; b += grain) fn(user, b, n - b < grain ? n : b + grain, 0);
    return;
  }
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->user = user;
  p->n = n;
  p->grain = grain;
  atomic_store(&p->next, 0);
  p->active = p->n_started;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  run_chunks(p, 0);
  pthread_mutex_lock(&p->mu);
  while (p->active > 0) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
  pthread_mutex_unlock(&p->busy);
}
