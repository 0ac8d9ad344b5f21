/* The CPU kernels' thread pool (runtime/cpu/threads.h): every index of a
 * parallel-for exactly once in chunks of at most the grain, worker numbers
 * below the pool's size, and a parallel-for called from inside another
 * (which runs on its caller) at every pool size. */
#include <criterion/criterion.h>
#include <stdatomic.h>

#include "runtime/cpu/threads.h"
#include "tests/support/test_support.h"

typedef struct count_job {
  atomic_int *hits;
  int64_t grain;
  atomic_int max_worker;
  rt_threads *pool; /* nested: each chunk runs a parallel-for of its own */
  atomic_int nested;
} count_job;

static void count_inner(void *user, int64_t b, int64_t e, int worker) {
  (void)worker;
  count_job *j = user;
  atomic_fetch_add(&j->nested, (int)(e - b));
}

static void count_range(void *user, int64_t b, int64_t e, int worker) {
  count_job *j = user;
  cr_assert(e - b >= 1 && e - b <= j->grain);
  for (int64_t i = b; i < e; i++) atomic_fetch_add(&j->hits[i], 1);
  int m = atomic_load(&j->max_worker);
  while (worker > m && !atomic_compare_exchange_weak(&j->max_worker, &m, worker)) {
  }
  if (j->pool) {
    count_job inner = {.hits = NULL};
    atomic_init(&inner.nested, 0);
    rt_parallel_for(j->pool, 5, 1, count_inner, &inner);
    atomic_fetch_add(&j->nested, atomic_load(&inner.nested));
  }
}

Test(cpu_threads, every_index_once) {
  for (int threads = 1; threads <= 4; threads++) {
    rt_threads *pool;
    T_OK(rt_threads_create(threads, &pool));
    cr_assert_eq(rt_threads_count(pool), threads);
    for (int rep = 0; rep < 50; rep++) {
      int64_t n = 1 + rep * 37 % 301, grain = 1 + rep % 7;
      atomic_int hits[301];
      for (int i = 0; i < 301; i++) atomic_init(&hits[i], 0);
      count_job j = {.hits = hits, .grain = grain, .pool = rep % 2 ? pool : NULL};
      atomic_init(&j.max_worker, 0);
      atomic_init(&j.nested, 0);
      rt_parallel_for(pool, n, grain, count_range, &j);
      for (int64_t i = 0; i < 301; i++)
        cr_assert_eq(atomic_load(&hits[i]), i < n ? 1 : 0, "threads %d n %lld: index %lld",
                     threads, (long long)n, (long long)i);
      cr_assert_lt(atomic_load(&j.max_worker), threads);
      if (rep % 2) cr_assert_eq(atomic_load(&j.nested), 5 * (int)((n + grain - 1) / grain));
    }
    rt_threads_destroy(pool);
  }
  rt_parallel_for(NULL, 0, 1, count_range, NULL); /* nothing to do: fn never called */
}
