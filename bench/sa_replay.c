/* vkml-sa-replay: how many trials the annealing needs, measured against an
 * exhaustive search. Reads a schedule database in which `vktune --search
 * exhaustive` stored every valid point of some workloads on one device, and
 * replays the annealing (tuner/tuner_sa.h, the same code vktune runs) over
 * those stored costs for many seeds: a point is valid when it was stored,
 * its cost is its stored median (a failed or incorrect point costs
 * INFINITY), the walk starts at the first point stored (vktune's default).
 * Per workload: the space size, the exhaustive best, and over the seeds the
 * median and worst number of trials to come within 5 % of the best and to
 * reach it. No device needed: the measurements are the database's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb.h"
#include "tuner/tuner_sa.h"

static const char usage[] =
    "usage: vkml-sa-replay DB [--device KEY] [--seeds N] [--min-points N] [--json]\n"
    "  --device KEY   the device whose records to replay (default: the one device\n"
    "                 in the database; required when there are several)\n"
    "  --seeds N      annealing runs per workload, seeds 1..N (default 50)\n"
    "  --min-points N only workloads with at least N stored points (default 20)\n";

typedef struct replay {
  tuner_space sp;
  /* stored points: template index, schedule, cost */
  tuner_point *pts;
  double *cost;
  int n;
  double best;
  /* per run */
  int64_t within5, exact; /* first trial reaching each; 0: not yet */
} replay;

static int find_point(const replay *r, const tuner_point *p) {
  for (int i = 0; i < r->n; i++)
    if (tuner_point_equal(&r->sp, &r->pts[i], p)) return i;
  return -1;
}

static bool valid(void *user, const tuner_point *p) { return find_point(user, p) >= 0; }

static vkml_status cost(void *user, const tuner_point *p, double *c) {
  replay *r = user;
  int i = find_point(r, p);
  *c = i < 0 ? INFINITY : r->cost[i];
  return VKML_OK;
}

static void on_trial(void *user, const tuner_trial *t) {
  replay *r = user;
  if (!r->within5 && t->best_cost <= 1.05 * r->best) r->within5 = t->trial;
  if (!r->exact && t->best_cost <= r->best) r->exact = t->trial;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Builds the replay of one workload's records; false when a record names a
 * template or schedule this build does not know. */
static bool build(replay *r, const tunedb_record_list *l) {
  memset(r, 0, sizeof *r);
  r->pts = calloc(l->n + 1, sizeof *r->pts);
  r->cost = calloc(l->n + 1, sizeof *r->cost);
  if (!r->pts || !r->cost) return false;
  r->best = INFINITY;
  for (size_t i = 0; i < l->n; i++) {
    const tunedb_record *rec = &l->items[i];
    const cg_template *t = cg_template_find(rec->template_name);
    if (!t) return false;
    int ti = 0;
    while (ti < r->sp.n && r->sp.tmpl[ti] != t) ti++;
    if (ti == r->sp.n) {
      if (r->sp.n == TUNER_MAX_TEMPLATES) return false;
      r->sp.tmpl[r->sp.n++] = t;
    }
    tuner_point p = {.tmpl = ti};
    vkml_status s = cg_schedule_parse(t, rec->schedule, &p.sched);
    if (s) {
      vkml_status_free(s);
      return false;
    }
    if (ti == r->sp.n - 1 && r->sp.dflt[ti].v[0] == 0) r->sp.dflt[ti] = p.sched;
    if (find_point(r, &p) >= 0) continue; /* measured twice: keep the first */
    r->pts[r->n] = p;
    r->cost[r->n] = rec->failed || !rec->correct ? INFINITY : rec->median_ns;
    if (r->cost[r->n] < r->best) r->best = r->cost[r->n];
    r->n++;
  }
  return r->n > 0 && isfinite(r->best);
}

int main(int argc, char **argv) {
  const char *path = NULL, *device = NULL;
  int seeds = 50, min_points = 20;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
    else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--min-points") && i + 1 < argc) min_points = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else {
      fputs(usage, stderr);
      return 2;
    }
  }
  if (!path || seeds < 1) {
    fputs(usage, stderr);
    return 2;
  }
  tunedb *db = NULL;
  tunedb_open_opts o = {.flags = TUNEDB_OPEN_READONLY};
  vkml_status s = tunedb_open(path, &o, &db);
  tunedb_device_list devs = {0};
  if (!s) s = tunedb_devices_list(db, &devs);
  if (!s && !device) {
    if (devs.n != 1)
      s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s holds %zu devices: name one with --device",
                           path, devs.n);
    else device = devs.items[0].key;
  }
  char **keys = NULL;
  size_t n_keys = 0;
  if (!s) s = tunedb_workload_keys(db, &keys, &n_keys);
  if (s) {
    fprintf(stderr, "vkml-sa-replay: %s\n", vkml_status_message(s));
    vkml_status_free(s);
    tunedb_device_list_free(&devs);
    tunedb_close(db);
    return 1;
  }
  int64_t *w5 = calloc((size_t)seeds, sizeof *w5), *ex = calloc((size_t)seeds, sizeof *ex);
  if (json) printf("{\"device\":\"%s\",\"seeds\":%d,\"workloads\":[", device, seeds);
  else
    printf("%-60s %7s %12s %14s %14s %14s\n", "workload (device)", "points", "best_ns",
           "to5%_median", "to5%_worst", "best_median");
  int printed = 0;
  for (size_t k = 0; k < n_keys; k++) {
    tunedb_record_list l = {0};
    if ((s = tunedb_records_get(db, device, keys[k], &l))) break;
    replay r = {0};
    bool ok = l.n >= (size_t)min_points && build(&r, &l);
    for (int sd = 0; ok && sd < seeds; sd++) {
      r.within5 = r.exact = 0;
      tuner_sa_opts so = {.seed = (uint64_t)sd + 1, .max_trials = r.n, .start = &r.pts[0],
                          .valid = valid, .cost = cost, .user = &r, .on_trial = on_trial};
      tuner_sa_result res;
      if ((s = tuner_sa_run(&r.sp, &so, &res))) break;
      w5[sd] = r.within5 ? r.within5 : r.n;
      ex[sd] = r.exact ? r.exact : r.n;
    }
    if (ok && !s) {
      qsort(w5, (size_t)seeds, sizeof *w5, cmp_i64);
      qsort(ex, (size_t)seeds, sizeof *ex, cmp_i64);
      int64_t m5 = w5[seeds / 2], worst5 = w5[seeds - 1], mex = ex[seeds / 2];
      if (json)
        printf("%s{\"workload\":\"%s\",\"points\":%d,\"best_ns\":%.1f,\"to_within_5pct_median\":%lld,"
               "\"to_within_5pct_worst\":%lld,\"to_best_median\":%lld}",
               printed ? "," : "", keys[k], r.n, r.best, (long long)m5, (long long)worst5,
               (long long)mex);
      else
        printf("%-60.60s %7d %12.0f %6lld (%4.1f%%) %6lld (%4.1f%%) %6lld (%4.1f%%)\n", keys[k], r.n,
               r.best, (long long)m5, 100.0 * (double)m5 / r.n, (long long)worst5,
               100.0 * (double)worst5 / r.n, (long long)mex, 100.0 * (double)mex / r.n);
      printed++;
    }
    free(r.pts);
    free(r.cost);
    tunedb_record_list_free(&l);
    if (s) break;
  }
  if (json) printf("]}\n");
  free(w5);
  free(ex);
  tunedb_strings_free(keys, n_keys);
  tunedb_device_list_free(&devs);
  tunedb_close(db);
  if (s) {
    fprintf(stderr, "vkml-sa-replay: %s\n", vkml_status_message(s));
    vkml_status_free(s);
    return 1;
  }
  return 0;
}
