/* vkml-sa-replay: how many trials the annealing needs, measured against an
 * exhaustive search. Reads a schedule database in which `vktune --search
 * exhaustive` stored every valid point of some workloads on one device, and
 * replays the annealing (tuner/tuner_sa.h, the same code vktune runs) over
 * those stored costs for many seeds: a point is valid when it was stored,
 * its cost is its stored median (a failed or incorrect point costs
 * INFINITY).
 *
 * With --model (the model the exhaustive search ran on, with the same
 * --input-shape and --precision), the replay is vktune's walk: the spaces
 * come from the model on this machine's Vulkan device, which must be the
 * records' device (tuner_workloads_find, as vktune builds them), so the
 * walk starts at the workload's true default and first costs every other
 * template's default (the survey); it also counts the space's valid points
 * (whether the search was complete). Without it, no device is needed: the
 * space is the stored templates, the start the first point stored (vktune's
 * default), and there is no survey (a template's default is unknown).
 *
 * Per workload: the points, the default and the exhaustive best, and over
 * the seeds the median and worst number of trials to come within 5 % of
 * the best and to reach it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "tools/cli_common.h"
#include "tools/cli_compile.h"
#include "tunedb/tunedb.h"
#include "tuner/tuner_measure.h"
#include "tuner/tuner_sa.h"
#include "tuner/tuner_tune.h"

static const char usage[] =
    "usage: vkml-sa-replay DB [--device KEY] [--seeds N] [--min-points N] [--json]\n"
    "                     [--model MODEL [--input-shape NAME=DIMS] [--precision P]\n"
    "                      [--vk-device N]]\n"
    "  --device KEY   the device whose records to replay (default: the one device\n"
    "                 in the database, or with --model the Vulkan device's)\n"
    "  --model MODEL  replay vktune's walk: spaces, defaults and survey from MODEL\n"
    "                 compiled for the Vulkan device --vk-device (default: as vkc)\n"
    "  --seeds N      annealing runs per workload, seeds 1..N (default 50)\n"
    "  --min-points N only workloads with at least N stored points (default 20)\n";

typedef struct replay {
  tuner_space sp;
  tuner_point start;
  bool survey;
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

/* Builds the replay of one workload's records, in w's space when w is not
 * NULL (the model's: its templates and defaults, the walk starting at the
 * default with the survey), else in the space of the stored templates; false
 * with *why when a record names a template or schedule outside it. */
static bool build(replay *r, const tunedb_record_list *l, const tuner_workload *w,
                  const char **why) {
  memset(r, 0, sizeof *r);
  *why = "out of memory";
  r->pts = calloc(l->n + 1, sizeof *r->pts);
  r->cost = calloc(l->n + 1, sizeof *r->cost);
  if (!r->pts || !r->cost) return false;
  if (w) r->sp = w->space;
  r->best = INFINITY;
  for (size_t i = 0; i < l->n; i++) {
    const tunedb_record *rec = &l->items[i];
    if (rec->confirmation) continue; /* a re-measurement, not a point */
    const cg_template *t = cg_template_find(rec->template_name);
    *why = "a record's template is not in this build's space (another codegen version?)";
    if (!t) return false;
    int ti = 0;
    while (ti < r->sp.n && r->sp.tmpl[ti] != t) ti++;
    if (ti == r->sp.n) {
      if (w || r->sp.n == TUNER_MAX_TEMPLATES) return false;
      r->sp.tmpl[r->sp.n++] = t;
    }
    tuner_point p = {.tmpl = ti};
    vkml_status s = cg_schedule_parse(t, rec->schedule, &p.sched);
    if (s) {
      vkml_status_free(s);
      *why = "a record's schedule does not parse in this build";
      return false;
    }
    if (!w && ti == r->sp.n - 1 && r->sp.dflt[ti].v[0] == 0) r->sp.dflt[ti] = p.sched;
    if (find_point(r, &p) >= 0) continue; /* measured twice: keep the first */
    r->pts[r->n] = p;
    r->cost[r->n] = rec->failed || !rec->correct ? INFINITY : rec->median_ns;
    if (r->cost[r->n] < r->best) r->best = r->cost[r->n];
    r->n++;
  }
  *why = "no working point stored";
  if (r->n == 0 || !isfinite(r->best)) return false;
  r->start = w ? w->dflt : r->pts[0];
  r->survey = w != NULL;
  *why = "the workload's default point was not stored";
  return find_point(r, &r->start) >= 0;
}

/* --model: the model compiled for a Vulkan device, and its workloads. */
typedef struct model {
  ir_graph *g;
  rt_vk_context *ctx;
  tuner_workload *ws;
  int n;
  char device_key[TUNEDB_DEVICE_KEY_BYTES];
} model;

static vkml_status model_open(const char *path, const cli_shape_args *shapes,
                              const cli_compile_args *c, const char *vk_device, model *m) {
  VKML_RETURN_IF_ERROR(cli_load_model(path, shapes, &m->g));
  VKML_RETURN_IF_ERROR(cli_vk_context_open(vk_device, &m->ctx));
  const ir_target *t = rt_vk_context_target(m->ctx);
  VKML_RETURN_IF_ERROR(cli_pipeline_run(m->g, c, t));
  tunedb_device dev;
  drv_device_from_target(t, &dev, NULL, 0);
  tunedb_device_key(&dev, m->device_key);
  return tuner_workloads_find(m->g, t, &m->ws, &m->n);
}

static void model_close(model *m) {
  free(m->ws);
  if (m->ctx) {
    rt_vk_report rep;
    rt_vk_context_destroy(m->ctx, &rep);
  }
  ir_graph_destroy(m->g);
}

static const tuner_workload *model_workload(const model *m, const char *key) {
  for (int i = 0; i < m->n; i++)
    if (!strcmp(m->ws[i].key, key)) return &m->ws[i];
  return NULL;
}

typedef struct args {
  const char *path, *device, *model_path, *vk_device;
  int seeds, min_points;
  bool json;
  cli_shape_args shapes;
  cli_compile_args compile;
} args;

static bool parse_args(int argc, char **argv, args *a) {
  a->seeds = 50;
  a->min_points = 20;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    int r = cli_shape_arg_parse("vkml-sa-replay", argc, argv, &i, &a->shapes);
    if (r == 0 && !strcmp(s, "--precision"))
      r = cli_compile_arg_parse("vkml-sa-replay", argc, argv, &i, &a->compile);
    if (r < 0) return false;
    if (r > 0) continue;
    bool more = i + 1 < argc;
    if (!strcmp(s, "--json")) a->json = true;
    else if (!strcmp(s, "--device") && more) a->device = argv[++i];
    else if (!strcmp(s, "--model") && more) a->model_path = argv[++i];
    else if (!strcmp(s, "--vk-device") && more) a->vk_device = argv[++i];
    else if (!strcmp(s, "--seeds") && more) a->seeds = atoi(argv[++i]);
    else if (!strcmp(s, "--min-points") && more) a->min_points = atoi(argv[++i]);
    else if (s[0] != '-' && !a->path) a->path = s;
    else return false;
  }
  return a->path && a->seeds >= 1;
}

/* The device whose records to replay: --device, else the model's device,
 * else the database's only one. */
static vkml_status pick_device(const args *a, const model *m, const tunedb_device_list *devs,
                               const char **device) {
  *device = a->device ? a->device : a->model_path ? m->device_key : NULL;
  if (!*device) {
    if (devs->n != 1)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "%s holds %zu devices: name one with --device", a->path, devs->n);
    *device = devs->items[0].key;
  }
  if (a->model_path && strcmp(*device, m->device_key))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "the records are of device %s, but --model compiles for this "
                            "machine's %s: its spaces and defaults would not be the search's",
                            *device, m->device_key);
  return VKML_OK;
}

static vkml_status replay_all(const args *a, tunedb *db, const char *device, const model *m) {
  char **keys = NULL;
  size_t n_keys = 0;
  VKML_RETURN_IF_ERROR(tunedb_workload_keys(db, &keys, &n_keys));
  const ir_target *t = m->ctx ? rt_vk_context_target(m->ctx) : NULL;
  int seeds = a->seeds;
  int64_t *w5 = calloc((size_t)seeds, sizeof *w5), *ex = calloc((size_t)seeds, sizeof *ex);
  vkml_status s = w5 && ex ? VKML_OK : ir_oom("the replay");
  if (a->json)
    printf("{\"device\":\"%s\",\"seeds\":%d,\"model_spaces\":%s,\"workloads\":[", device, seeds,
           m->ctx ? "true" : "false");
  else
    printf("%-52s %6s %6s %10s %10s %14s %14s %14s\n", "workload", "points", "valid",
           "default_ns", "best_ns", "to5%_median", "to5%_worst", "best_median");
  int printed = 0;
  for (size_t k = 0; !s && k < n_keys; k++) {
    tunedb_record_list l = {0};
    if ((s = tunedb_records_get(db, device, keys[k], &l))) break;
    const tuner_workload *w = m->ctx ? model_workload(m, keys[k]) : NULL;
    if (m->ctx && !w) { /* another model's workload */
      tunedb_record_list_free(&l);
      continue;
    }
    replay r = {0};
    const char *why = "";
    bool ok = l.n >= (size_t)a->min_points && build(&r, &l, w, &why);
    if (!ok && l.n >= (size_t)a->min_points)
      fprintf(stderr, "vkml-sa-replay: skipped %s: %s\n", keys[k], why);
    for (int sd = 0; ok && sd < seeds; sd++) {
      r.within5 = r.exact = 0;
      tuner_sa_opts so = {.seed = (uint64_t)sd + 1, .max_trials = r.n, .start = &r.start,
                          .survey = r.survey, .valid = valid, .cost = cost, .user = &r,
                          .on_trial = on_trial};
      tuner_sa_result res;
      if ((s = tuner_sa_run(&r.sp, &so, &res))) break;
      w5[sd] = r.within5 ? r.within5 : r.n;
      ex[sd] = r.exact ? r.exact : r.n;
    }
    if (ok && !s) {
      qsort(w5, (size_t)seeds, sizeof *w5, cmp_i64);
      qsort(ex, (size_t)seeds, sizeof *ex, cmp_i64);
      int64_t m5 = w5[seeds / 2], worst5 = w5[seeds - 1], mex = ex[seeds / 2];
      int64_t nv = w ? tuner_workload_points(w, t, NULL) : -1;
      double c0 = r.cost[find_point(&r, &r.start)];
      if (a->json)
        printf("%s{\"workload\":\"%s\",\"points\":%d,\"valid_points\":%lld,\"default_ns\":%.1f,"
               "\"best_ns\":%.1f,\"to_within_5pct_median\":%lld,\"to_within_5pct_worst\":%lld,"
               "\"to_best_median\":%lld}",
               printed ? "," : "", keys[k], r.n, (long long)nv, c0, r.best, (long long)m5,
               (long long)worst5, (long long)mex);
      else
        printf("%-52.52s %6d %6lld %10.0f %10.0f %6lld (%4.1f%%) %6lld (%4.1f%%) %6lld (%4.1f%%)\n",
               keys[k], r.n, (long long)nv, c0, r.best, (long long)m5, 100.0 * (double)m5 / r.n,
               (long long)worst5, 100.0 * (double)worst5 / r.n, (long long)mex,
               100.0 * (double)mex / r.n);
      printed++;
    }
    free(r.pts);
    free(r.cost);
    tunedb_record_list_free(&l);
  }
  if (a->json) printf("]}\n");
  free(w5);
  free(ex);
  tunedb_strings_free(keys, n_keys);
  return s;
}

int main(int argc, char **argv) {
  args a = {0};
  if (!parse_args(argc, argv, &a)) {
    fputs(usage, stderr);
    cli_shape_args_free(&a.shapes);
    return 2;
  }
  model m = {0};
  tunedb *db = NULL;
  tunedb_open_opts o = {.flags = TUNEDB_OPEN_READONLY};
  vkml_status s = tunedb_open(a.path, &o, &db);
  if (!s && a.model_path) s = model_open(a.model_path, &a.shapes, &a.compile, a.vk_device, &m);
  tunedb_device_list devs = {0};
  if (!s) s = tunedb_devices_list(db, &devs);
  const char *device = NULL;
  if (!s) s = pick_device(&a, &m, &devs, &device);
  if (!s) s = replay_all(&a, db, device, &m);
  tunedb_device_list_free(&devs);
  tunedb_close(db);
  model_close(&m);
  cli_shape_args_free(&a.shapes);
  if (s) {
    fprintf(stderr, "vkml-sa-replay: %s\n", vkml_status_message(s));
    vkml_status_free(s);
    return 1;
  }
  return 0;
}
