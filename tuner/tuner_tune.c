/* Tuning a graph's workloads into the schedule database (tuner_tune.h). */
#include "tuner/tuner_tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/driver.h"
#include "ir/util.h"

void tuner_result_free(tuner_result *r) {
  free(r->rows);
  memset(r, 0, sizeof *r);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One workload's tuning state (the cost function's user). */
typedef struct job {
  rt_vk_context *ctx;
  const ir_target *t;
  tunedb *db;
  const tuner_tune_opts *o;
  const tuner_workload *w;
  tuner_bench *bench;
  tuner_result *res;
  tuner_result_row *row;
  tuner_progress prog;
  double t_start;      /* of the whole run */
  bool default_known;  /* the default point's cost is c_default */
  double c_default;
  int default_hits;    /* the walk costed the default point */
} job;

static double cost_of_record(bool failed, bool correct, double median_ns) {
  return failed || !correct ? INFINITY : median_ns;
}

static bool valid(void *user, const tuner_point *p) {
  const job *j = user;
  return tuner_workload_valid(j->w, j->t, p);
}

/* The stored trial of (tm, sched) on this device: *found, and its cost. */
static vkml_status stored_cost(job *j, const cg_template *tm, const char *sched, bool *found,
                               double *c) {
  tunedb_record_list list = {0};
  VKML_RETURN_IF_ERROR(tunedb_trial_find(j->db, j->res->device_key, j->w->key, tm->name, sched,
                                         &list));
  *found = list.n > 0;
  if (*found) {
    const tunedb_record *r = &list.items[0];
    *c = cost_of_record(r->failed, r->correct, r->median_ns);
    j->row->stored++;
    j->res->stored++;
  }
  tunedb_record_list_free(&list);
  return VKML_OK;
}

/* Commits the measurement m of (tm, sched), a trial or a confirmation (not
 * counted as measured); *c its cost. */
static vkml_status store(job *j, const cg_template *tm, const char *sched,
                         const tuner_measurement *m, bool confirmation, double *c) {
  tunedb_record r = {
      .device_key = j->res->device_key,
      .workload_key = j->w->key,
      .template_name = tm->name,
      .schedule = sched,
      .median_ns = m->failed ? 0 : m->median_ns,
      .spread_ns = m->failed ? 0 : m->spread_ns,
      .runs = m->runs,
      .correct = m->correct,
      .failed = m->failed,
      .message = m->failed ? m->message : NULL,
      .tool_version = j->o->tool_version ? j->o->tool_version : "",
      .confirmation = confirmation,
  };
  char msg[300];
  if (!m->failed && !m->correct) {
    snprintf(msg, sizeof msg, "output differs from the CPU reference (relative error %.3g)",
             m->rel_err);
    r.message = msg;
  }
  VKML_RETURN_IF_ERROR(tunedb_record_put(j->db, &r));
  if (!confirmation) {
    j->row->measured++;
    j->res->measured++;
  }
  *c = cost_of_record(m->failed, m->correct, m->median_ns);
  return VKML_OK;
}

/* The point's cost: the stored trial, else a measurement stored now. */
static vkml_status cost(void *user, const tuner_point *p, double *c) {
  job *j = user;
  if (j->default_known && tuner_point_equal(&j->w->space, p, &j->w->dflt)) {
    *c = j->c_default;
    j->default_hits++;
    return VKML_OK;
  }
  const cg_template *tm = j->w->space.tmpl[p->tmpl];
  char sched[256];
  cg_schedule_format(tm, &p->sched, sched, sizeof sched);
  bool found;
  VKML_RETURN_IF_ERROR(stored_cost(j, tm, sched, &found, c));
  if (found) return VKML_OK;
  tuner_measurement m;
  VKML_RETURN_IF_ERROR(tuner_bench_measure(j->bench, tm, &p->sched, &m));
  return store(j, tm, sched, &m, false, c);
}

/* The point of this workload's space a record names, when it is one. */
static bool point_of_record(const job *j, const tunedb_record *r, tuner_point *p) {
  for (int i = 0; i < j->w->space.n; i++) {
    const cg_template *tm = j->w->space.tmpl[i];
    if (strcmp(tm->name, r->template_name)) continue;
    *p = (tuner_point){.tmpl = i};
    vkml_status s = cg_schedule_parse(tm, r->schedule, &p->sched);
    if (!s) return true;
    vkml_status_free(s);
    return false;
  }
  return false;
}

/* The default point, measured alone and made the bench's reference (every
 * later trial is timed paired with it); its cost is the stored trial's
 * when there is one, which then also sets the scale. */
static vkml_status measure_default(job *j, double *c) {
  const tuner_point *d = &j->w->dflt;
  const cg_template *tm = j->w->space.tmpl[d->tmpl];
  char sched[256];
  cg_schedule_format(tm, &d->sched, sched, sizeof sched);
  bool found;
  VKML_RETURN_IF_ERROR(stored_cost(j, tm, sched, &found, c));
  tuner_measurement m;
  VKML_RETURN_IF_ERROR(tuner_bench_set_reference(j->bench, tm, &d->sched,
                                                 found && isfinite(*c) ? *c : 0, &m));
  if (found) return VKML_OK;
  return store(j, tm, sched, &m, false, c);
}

/* Whether the latest record of (tmpl, sched) on this device is a
 * confirmation. */
static vkml_status confirmed_before(job *j, const char *tmpl, const char *sched, bool *yes) {
  tunedb_record_list l = {0};
  VKML_RETURN_IF_ERROR(tunedb_records_get(j->db, j->res->device_key, j->w->key, &l));
  *yes = false;
  for (size_t i = 0; i < l.n; i++) /* in measurement order: the last one counts */
    if (!strcmp(l.items[i].template_name, tmpl) && !strcmp(l.items[i].schedule, sched))
      *yes = l.items[i].confirmation;
  tunedb_record_list_free(&l);
  return VKML_OK;
}

/* Points confirmed at most per workload, after its latest trial. */
#define CONFIRM_ROUNDS 3

/* The confirmations this workload may still take: CONFIRM_ROUNDS less
 * those stored on this device since its latest trial. A run that measured
 * no new trial finds the earlier run's rounds spent and measures nothing
 * (an identical rerun changes nothing); one that was killed while
 * confirming finishes the rounds. */
static vkml_status confirmations_left(job *j, int *left) {
  tunedb_record_list l = {0};
  VKML_RETURN_IF_ERROR(tunedb_records_get(j->db, j->res->device_key, j->w->key, &l));
  int n = 0;
  for (size_t i = l.n; i-- > 0 && l.items[i].confirmation;) n++;
  tunedb_record_list_free(&l);
  *left = n < CONFIRM_ROUNDS ? CONFIRM_ROUNDS - n : 0;
  return VKML_OK;
}

/* The walk's best measured afresh against the default (pairs, 4x the runs),
 * stored as a confirmation: free of the bias of picking the minimum of many
 * noisy trials, it replaces the point's trial in the database's best view.
 * Where that leaves another measured point the best, that one is confirmed
 * in turn, up to CONFIRM_ROUNDS points (confirmations_left). The row then
 * names the database's best (what `vkc compile --db` takes) and its
 * confirmed speedup (1 when it is the default). A point whose latest record
 * is a confirmation is not measured again. */
static vkml_status confirm(job *j, const tuner_point *best) {
  tuner_result_row *row = j->row;
  row->confirmed_speedup = NAN;
  if (!isfinite(row->tuned_ns) || !isfinite(row->default_ns)) return VKML_OK;
  int left;
  VKML_RETURN_IF_ERROR(confirmations_left(j, &left));
  tuner_point p = *best;
  for (;;) {
    if (tuner_point_equal(&j->w->space, &p, &j->w->dflt)) {
      row->confirmed_speedup = 1;
      row->tuned_ns = row->default_ns;
      break;
    }
    const cg_template *tm = j->w->space.tmpl[p.tmpl];
    char sched[256];
    cg_schedule_format(tm, &p.sched, sched, sizeof sched);
    /* confirmed by an earlier run when that is the point's latest record (a
     * rerun measures nothing again) */
    bool confirmed;
    VKML_RETURN_IF_ERROR(confirmed_before(j, tm->name, sched, &confirmed));
    if (!confirmed) {
      if (left == 0) {
        row->confirmed_speedup = NAN; /* the row's best is not confirmed */
        break;
      }
      tuner_measurement m;
      double c;
      VKML_RETURN_IF_ERROR(tuner_bench_confirm(j->bench, tm, &p.sched, 4, &m));
      VKML_RETURN_IF_ERROR(store(j, tm, sched, &m, true, &c));
      left--;
    }
    row->confirmed_speedup = NAN;
    /* the database's best now (a failed or wrong confirmation has put the
     * point out of it) */
    tunedb_record_list l = {0};
    VKML_RETURN_IF_ERROR(tunedb_best_get(j->db, j->res->device_key, j->w->key, &l));
    bool next = l.n && point_of_record(j, &l.items[0], &p);
    bool done = !next || l.items[0].confirmation;
    if (next) {
      row->tuned_ns = l.items[0].median_ns;
      snprintf(row->best_template, sizeof row->best_template, "%s", l.items[0].template_name);
      snprintf(row->best_schedule, sizeof row->best_schedule, "%s", l.items[0].schedule);
      if (l.items[0].confirmation && l.items[0].median_ns > 0)
        row->confirmed_speedup = row->default_ns / l.items[0].median_ns;
    }
    tunedb_record_list_free(&l);
    if (done) break;
  }
  return VKML_OK;
}

static void on_trial(void *user, const tuner_trial *t) {
  job *j = user;
  j->row->trials = t->trial;
  if (!j->o->progress) return;
  tuner_progress *p = &j->prog;
  p->trial = t->trial;
  p->measured = j->res->measured;
  p->stored = j->res->stored;
  p->best_ns = fmin(t->best_cost, p->best_ns);
  p->elapsed_s = now_s() - j->t_start;
  p->eta_s = -1;
  if (j->o->budget_seconds > 0) {
    p->eta_s = j->o->budget_seconds - p->elapsed_s;
  } else if (p->max_trials > 0) {
    /* trials left in the whole run at the pace so far */
    double done = (double)p->workload * (double)p->max_trials + (double)t->trial;
    double left = (double)p->n_workloads * (double)p->max_trials - done;
    if (done > 0) p->eta_s = p->elapsed_s / done * left;
  }
  j->o->progress(j->o->progress_user, p);
}

/* Where the walk starts: the nearest other device's best, when it is a
 * valid point of this space; else the default. */
static vkml_status start_point(job *j, const tunedb_device *dev, tuner_point *start) {
  *start = j->w->dflt;
  tunedb_nearness how;
  tunedb_record_list near = {0};
  VKML_RETURN_IF_ERROR(tunedb_nearest_best(j->db, dev, j->w->key, &how, &near));
  if (near.n && how != TUNEDB_NEAR_EXACT) {
    const tunedb_record *r = &near.items[0];
    tuner_point p;
    if (point_of_record(j, r, &p) && tuner_workload_valid(j->w, j->t, &p)) {
      *start = p;
      j->row->seeded = how;
      snprintf(j->row->seeded_from, sizeof j->row->seeded_from, "%s", r->device_key);
    }
  }
  tunedb_record_list_free(&near);
  return VKML_OK;
}

static vkml_status workload_put(tunedb *db, const tuner_workload *w) {
  char what[400], json[1200];
  ir_node_describe(w->node, what, sizeof what);
  /* the description as a JSON string (escape quotes and backslashes) */
  char esc[820];
  int e = 0;
  for (const char *c = what; *c && e < (int)sizeof esc - 3; c++) {
    if (*c == '"' || *c == '\\') esc[e++] = '\\';
    esc[e++] = (unsigned char)*c < 0x20 ? ' ' : *c;
  }
  esc[e] = 0;
  snprintf(json, sizeof json, "{\"node\":\"%s\",\"nodes\":%d}", esc, w->n_nodes);
  return tunedb_workload_put(db, w->key, ir_op_name(w->node->op), json);
}

/* Where the time goes: nodes x the default's time, the default's stored
 * trial on this device when there is one, else a quick measurement against
 * its own GPU output (few runs, nothing stored; a failure weighs as the
 * mean of the others, marked by a negative weight). */
static vkml_status default_weight(rt_vk_context *ctx, const ir_graph *g, tunedb *db,
                                  const tuner_tune_opts *o, const char *device_key,
                                  const tuner_workload *w, bool first, double *weight) {
  const cg_template *tm = w->space.tmpl[w->dflt.tmpl];
  char sched[256];
  cg_schedule_format(tm, &w->dflt.sched, sched, sizeof sched);
  tunedb_record_list list = {0};
  VKML_RETURN_IF_ERROR(tunedb_trial_find(db, device_key, w->key, tm->name, sched, &list));
  const tunedb_record *r = list.n ? &list.items[0] : NULL;
  double ns = r ? cost_of_record(r->failed, r->correct, r->median_ns) : INFINITY;
  tunedb_record_list_free(&list);
  if (!isfinite(ns)) {
    tuner_bench_opts bo = o->bench;
    bo.gpu_reference = true;
    bo.runs = 3; /* the reference takes 4x: 12 */
    bo.warmup = 1;
    bo.warmup_ms = 1;
    bo.first_warmup_ms = first ? 200 : 2; /* the GPU sat idle before the first */
    tuner_bench *b = NULL;
    tuner_measurement m;
    VKML_RETURN_IF_ERROR(tuner_bench_create(ctx, g, w->node, &bo, &b));
    vkml_status s = tuner_bench_set_reference(b, tm, &w->dflt.sched, 0, &m);
    tuner_bench_destroy(b);
    VKML_RETURN_IF_ERROR(s);
    ns = cost_of_record(m.failed, m.correct, m.median_ns);
  }
  *weight = isfinite(ns) && ns > 0 ? ns * w->n_nodes : -1;
  return VKML_OK;
}

/* Compiles on compile_threads host threads what the search will measure
 * (tuner_tune_opts.compile_threads; 0: nothing): every valid point of an
 * exhaustive search, else the start and each template's default (the
 * survey). Only out of memory is an error. */
static vkml_status precompile(const job *j, const tuner_point *start) {
  const tuner_tune_opts *o = j->o;
  const tuner_workload *w = j->w;
  const cg_compiler *bc = o->bench.compiler;
  const char *dir = bc ? cg_compiler_cache_dir(bc) : NULL;
  if (o->compile_threads == 0 || (bc && !dir)) return VKML_OK; /* off, or no cache to fill */
  int64_t cap = o->exhaustive ? tuner_space_size(&w->space) : w->space.n + 1;
  tuner_point *pts = calloc((size_t)cap, sizeof *pts);
  if (!pts) return ir_oom("the tuner's points to compile");
  int n = 0;
  if (o->exhaustive) {
    n = (int)tuner_workload_points(w, j->t, pts);
  } else {
    pts[n++] = *start;
    for (int i = 0; i < w->space.n; i++)
      if (i != start->tmpl) pts[n++] = (tuner_point){.tmpl = i, .sched = w->space.dflt[i]};
  }
  tuner_precompile(w, j->t, pts, n, dir, o->compile_threads > 0 ? o->compile_threads : 0);
  free(pts);
  return VKML_OK;
}

void tuner_budget_shares(const double *weight, int n, double *share) {
  double known = 0, sum = 0;
  int n_known = 0;
  for (int i = 0; i < n; i++)
    if (weight[i] > 0) known += weight[i], n_known++;
  double mean = n_known ? known / n_known : 1;
  for (int i = 0; i < n; i++) sum += share[i] = weight[i] > 0 ? weight[i] : mean;
  for (int i = 0; i < n; i++) share[i] = 0.5 / n + 0.5 * share[i] / sum;
}

static vkml_status budget_shares(rt_vk_context *ctx, const ir_graph *g, tunedb *db,
                                 const tuner_tune_opts *o, const char *device_key,
                                 const tuner_workload *ws, int n, double *share) {
  double *weight = calloc((size_t)n, sizeof *weight);
  if (!weight) return ir_oom("the tuner's budget");
  vkml_status s = VKML_OK;
  for (int i = 0; !s && i < n; i++)
    s = default_weight(ctx, g, db, o, device_key, &ws[i], i == 0, &weight[i]);
  if (!s) tuner_budget_shares(weight, n, share);
  free(weight);
  return s;
}

vkml_status tuner_tune_graph(rt_vk_context *ctx, const ir_graph *g, tunedb *db,
                             const tuner_tune_opts *o, tuner_result *out) {
  memset(out, 0, sizeof *out);
  double t_start = now_s();
  const ir_target *t = rt_vk_context_target(ctx);
  tunedb_device dev;
  char limits[512];
  drv_device_from_target(t, &dev, limits, sizeof limits);
  tunedb_device_key(&dev, out->device_key);
  VKML_RETURN_IF_ERROR(tunedb_device_put(db, &dev));
  tuner_workload *ws = NULL;
  int n = 0;
  VKML_RETURN_IF_ERROR(tuner_workloads_find(g, t, &ws, &n));
  if (o->ops) {
    int kept = 0;
    for (int i = 0; i < n; i++)
      if (o->ops[ws[i].node->op]) ws[kept++] = ws[i];
    n = kept;
  }
  out->rows = calloc((size_t)n + 1, sizeof *out->rows);
  if (!out->rows) {
    free(ws);
    return ir_oom("the tuner's results");
  }
  int64_t per_trials = o->budget_trials > 0 ? o->budget_trials : 32;
  vkml_status s = VKML_OK;
  /* a time budget: each workload's share, the rest carried forward */
  double *share = NULL;
  if (o->budget_seconds > 0 && !o->exhaustive && n > 0) {
    share = calloc((size_t)n, sizeof *share);
    s = share ? budget_shares(ctx, g, db, o, out->device_key, ws, n, share)
              : ir_oom("the tuner's budget");
  }
  for (int i = 0; !s && i < n; i++) {
    const tuner_workload *w = &ws[i];
    tuner_result_row *row = &out->rows[i];
    snprintf(row->key, sizeof row->key, "%s", w->key);
    row->op = ir_op_name(w->node->op);
    row->n_nodes = w->n_nodes;
    row->default_ns = row->tuned_ns = INFINITY;
    row->confirmed_speedup = NAN;
    out->n = i + 1;
    job j = {.ctx = ctx, .t = t, .db = db, .o = o, .w = w, .res = out, .row = row,
             .t_start = t_start};
    j.prog = (tuner_progress){.workload = i, .n_workloads = n, .w = w, .op = row->op,
                              .n_nodes = w->n_nodes,
                              .max_trials = o->budget_seconds > 0 || o->exhaustive ? 0 : per_trials,
                              .default_ns = INFINITY, .best_ns = INFINITY};
    s = workload_put(db, w);
    if (!s) s = tuner_bench_create(ctx, g, w->node, &o->bench, &j.bench);
    /* where the walk starts, before this device has a record of its own
     * (the default's, stored next, would be the nearest best and hide the
     * other devices') */
    tuner_point start;
    if (!s) s = start_point(&j, &dev, &start);
    /* the baseline first: the default point, the reference of the rest */
    double c_default = INFINITY;
    if (!s) s = measure_default(&j, &c_default);
    j.default_known = true;
    j.c_default = c_default;
    row->default_ns = c_default;
    j.prog.default_ns = c_default;
    tuner_sa_opts so = {
        .seed = (o->seed ? o->seed : 1) ^ ir_fnv64_str(w->key),
        .max_trials = per_trials,
        .start = &start,
        .survey = true,
        .valid = valid,
        .cost = cost,
        .user = &j,
        .on_trial = on_trial,
    };
    if (share) {
      /* this workload's share of what is left, against the shares to come */
      double left = o->budget_seconds - (now_s() - t_start), rest = 0;
      for (int k = i; k < n; k++) rest += share[k];
      so.max_seconds = left > 0 ? left * share[i] / rest : 1e-9;
      so.max_trials = INT64_MAX;
    }
    if (!s) s = precompile(&j, &start);
    tuner_sa_result r;
    if (!s) s = o->exhaustive ? tuner_exhaustive(&w->space, &so, &r)
                              : tuner_sa_run(&w->space, &so, &r);
    if (!s) {
      /* the default was costed before the walk; the walk may not revisit it */
      bool dflt_best = c_default <= r.best_cost;
      const tuner_point *best = dflt_best ? &w->dflt : &r.best;
      row->tuned_ns = dflt_best ? c_default : r.best_cost;
      row->trials = r.trials + (j.default_hits == 0);
      if (isfinite(row->tuned_ns)) {
        snprintf(row->best_template, sizeof row->best_template, "%s",
                 w->space.tmpl[best->tmpl]->name);
        cg_schedule_format(w->space.tmpl[best->tmpl], &best->sched, row->best_schedule,
                           sizeof row->best_schedule);
      }
      s = confirm(&j, best);
    }
    tuner_bench_destroy(j.bench);
  }
  free(ws);
  free(share);
  out->seconds = now_s() - t_start;
  return s;
}
