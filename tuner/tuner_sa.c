/* Simulated annealing over a schedule space (tuner_sa.h). The costs the
 * caller returns are cached per run in an open-addressing table, so a point
 * is costed once however often the walk comes back to it; invalid points
 * are cached too, so the pre-filter runs once per point. */
#include "tuner/tuner_sa.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/util.h"

/* ---- the visited table --------------------------------------------------- */

enum { SLOT_EMPTY = 0, SLOT_INVALID, SLOT_VALID };

typedef struct slot {
  tuner_point p;
  double cost;
  int state;
} slot;

typedef struct visited {
  slot *v;
  int64_t cap, n; /* cap a power of two */
} visited;

static uint64_t point_hash(const tuner_space *sp, const tuner_point *p) {
  uint64_t h = ir_fnv64(&p->tmpl, sizeof p->tmpl, 14695981039346656037ull);
  return ir_fnv64(p->sched.v, sizeof p->sched.v[0] * (size_t)sp->tmpl[p->tmpl]->n_knobs, h);
}

bool tuner_point_equal(const tuner_space *sp, const tuner_point *a, const tuner_point *b) {
  if (a->tmpl != b->tmpl) return false;
  for (int k = 0; k < sp->tmpl[a->tmpl]->n_knobs; k++)
    if (a->sched.v[k] != b->sched.v[k]) return false;
  return true;
}

static slot *visited_find(const visited *vs, const tuner_space *sp, const tuner_point *p) {
  uint64_t i = point_hash(sp, p) & (uint64_t)(vs->cap - 1);
  for (;; i = (i + 1) & (uint64_t)(vs->cap - 1)) {
    slot *s = &vs->v[i];
    if (s->state == SLOT_EMPTY || tuner_point_equal(sp, &s->p, p)) return s;
  }
}

static vkml_status visited_grow(visited *vs, const tuner_space *sp) {
  if (vs->cap && 2 * (vs->n + 1) <= vs->cap) return VKML_OK;
  visited nv = {.cap = vs->cap ? 2 * vs->cap : 256, .n = vs->n};
  nv.v = calloc((size_t)nv.cap, sizeof *nv.v);
  if (!nv.v) return ir_oom("the tuner's visited points");
  for (int64_t i = 0; i < vs->cap; i++)
    if (vs->v[i].state != SLOT_EMPTY) *visited_find(&nv, sp, &vs->v[i].p) = vs->v[i];
  free(vs->v);
  *vs = nv;
  return VKML_OK;
}

/* ---- the run's state ------------------------------------------------------- */

typedef struct sa {
  const tuner_space *sp;
  const tuner_sa_opts *o;
  tuner_sa_result *r;
  visited vs;
  uint64_t rng;
  double t_start;
  int64_t n_valid_known; /* valid points seen (costed or not) */
} sa;

static int64_t rng_below(uint64_t *s, int64_t n) { return (int64_t)(ir_splitmix64(s) % (uint64_t)n); }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool out_of_budget(const sa *a) {
  if (a->r->trials >= a->o->max_trials) return true;
  return a->o->max_seconds > 0 && now_s() - a->t_start >= a->o->max_seconds;
}

/* Whether p is valid (cached). */
static vkml_status check_valid(sa *a, const tuner_point *p, bool *ok, slot **where) {
  VKML_RETURN_IF_ERROR(visited_grow(&a->vs, a->sp));
  slot *s = visited_find(&a->vs, a->sp, p);
  if (s->state == SLOT_EMPTY) {
    s->p = *p;
    s->state = (!a->o->valid || a->o->valid(a->o->user, p)) ? SLOT_VALID : SLOT_INVALID;
    s->cost = NAN; /* SLOT_VALID with a NaN cost: valid, not costed yet */
    a->vs.n++;
    a->n_valid_known += s->state == SLOT_VALID;
  }
  *ok = s->state == SLOT_VALID;
  *where = s;
  return VKML_OK;
}

/* The cost of valid point p, costing it (a trial) when not known yet.
 * *fresh says whether this was a new trial. */
static vkml_status cost_of(sa *a, slot *s, double *cost, bool *fresh) {
  *fresh = false;
  if (!isnan(s->cost)) {
    *cost = s->cost;
    return VKML_OK;
  }
  double c = INFINITY;
  VKML_RETURN_IF_ERROR(a->o->cost(a->o->user, &s->p, &c));
  if (isnan(c) || c < 0) c = INFINITY;
  s->cost = c;
  *cost = c;
  *fresh = true;
  tuner_sa_result *r = a->r;
  r->trials++;
  if (r->trials == 1) r->start_cost = c;
  if (c < r->best_cost) {
    r->best_cost = c;
    r->best = s->p;
    r->trial_of_best = r->trials;
  }
  if (a->o->on_trial) {
    tuner_trial t = {.trial = r->trials, .point = &s->p, .cost = c, .best_cost = r->best_cost,
                     .start_cost = r->start_cost};
    a->o->on_trial(a->o->user, &t);
  }
  return VKML_OK;
}

/* ---- moves ------------------------------------------------------------------ */

/* Index of value v among knob k's candidates (the nearest one if v is not a
 * candidate: a template's default may be computed for the workload). */
static int knob_index(const cg_knob *k, int v) {
  int best = 0;
  for (int i = 1; i < k->n_values; i++)
    if (abs(k->values[i] - v) < abs(k->values[best] - v)) best = i;
  return best;
}

/* Knobs of `to` that `from` has too (same name) take from's value, or the
 * nearest candidate: templates of one family tile alike (conv2d's direct
 * and 1x1 kernels share WG_M, WG_N, TM, TN, BK), so a switch keeps the
 * tiling the walk found instead of restarting at the default. */
static void carry_knobs(const cg_template *from, const cg_schedule *fs, const cg_template *to,
                        cg_schedule *ts) {
  for (int k = 0; k < to->n_knobs; k++)
    for (int f = 0; f < from->n_knobs; f++)
      if (!strcmp(from->knobs[f].name, to->knobs[k].name))
        ts->v[k] = to->knobs[k].values[knob_index(&to->knobs[k], fs->v[f])];
}

/* A neighbour of cur: another template (carry_knobs), or one knob moved one
 * step (mostly) or to any other candidate. */
static void neighbour(sa *a, const tuner_point *cur, tuner_point *out) {
  const tuner_space *sp = a->sp;
  *out = *cur;
  const cg_template *t = sp->tmpl[cur->tmpl];
  int movable[CG_MAX_KNOBS], n_movable = 0;
  for (int k = 0; k < t->n_knobs; k++)
    if (t->knobs[k].n_values > 1) movable[n_movable++] = k;
  if (sp->n > 1 && (n_movable == 0 || ir_rand_unit(&a->rng) < a->o->p_switch)) {
    int other = (int)rng_below(&a->rng, sp->n - 1);
    out->tmpl = other >= cur->tmpl ? other + 1 : other;
    out->sched = sp->dflt[out->tmpl];
    carry_knobs(t, &cur->sched, sp->tmpl[out->tmpl], &out->sched);
    return;
  }
  if (n_movable == 0) return;
  const cg_knob *kn = &t->knobs[movable[rng_below(&a->rng, n_movable)]];
  int k = (int)(kn - t->knobs);
  int i = knob_index(kn, cur->sched.v[k]), j;
  if (ir_rand_unit(&a->rng) < 0.75) {
    j = i + (ir_rand_unit(&a->rng) < 0.5 ? -1 : 1);
    if (j < 0) j = 1;
    if (j >= kn->n_values) j = kn->n_values - 2;
  } else {
    j = (int)rng_below(&a->rng, kn->n_values - 1);
    if (j >= i) j++;
  }
  out->sched.v[k] = kn->values[j];
}

static void random_point(sa *a, tuner_point *out) {
  memset(out, 0, sizeof *out);
  out->tmpl = (int)rng_below(&a->rng, a->sp->n);
  const cg_template *t = a->sp->tmpl[out->tmpl];
  cg_space_point(t, rng_below(&a->rng, cg_space_size(t)), &out->sched);
}

/* A valid point not costed yet: random draws first, then (small spaces, or
 * when the draws keep hitting known points) a scan from a random offset.
 * *found false when every valid point has been costed. */
static vkml_status fresh_point(sa *a, tuner_point *out, bool *found) {
  *found = false;
  for (int tries = 0; tries < 64; tries++) {
    tuner_point p;
    random_point(a, &p);
    bool ok;
    slot *s;
    VKML_RETURN_IF_ERROR(check_valid(a, &p, &ok, &s));
    if (ok && isnan(s->cost)) {
      *out = p;
      *found = true;
      return VKML_OK;
    }
  }
  int64_t size = tuner_space_size(a->sp);
  int64_t off = rng_below(&a->rng, size);
  for (int64_t i = 0; i < size; i++) {
    int64_t idx = (off + i) % size;
    tuner_point p = {0};
    for (p.tmpl = 0; idx >= cg_space_size(a->sp->tmpl[p.tmpl]); p.tmpl++)
      idx -= cg_space_size(a->sp->tmpl[p.tmpl]);
    cg_space_point(a->sp->tmpl[p.tmpl], idx, &p.sched);
    bool ok;
    slot *s;
    VKML_RETURN_IF_ERROR(check_valid(a, &p, &ok, &s));
    if (ok && isnan(s->cost)) {
      *out = p;
      *found = true;
      return VKML_OK;
    }
  }
  return VKML_OK;
}

/* ---- the search --------------------------------------------------------------- */

int64_t tuner_space_size(const tuner_space *sp) {
  int64_t n = 0;
  for (int i = 0; i < sp->n; i++) n += cg_space_size(sp->tmpl[i]);
  return n;
}

static vkml_status check_space(const tuner_space *sp, const tuner_sa_opts *o) {
  if (sp->n < 1 || sp->n > TUNER_MAX_TEMPLATES)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "tuner: a space of %d templates (1 to %d)", sp->n,
                            TUNER_MAX_TEMPLATES);
  if (!o->cost) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "tuner: no cost function");
  if (o->start && (o->start->tmpl < 0 || o->start->tmpl >= sp->n))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "tuner: start template %d of %d",
                            o->start->tmpl, sp->n);
  return VKML_OK;
}

static void result_init(tuner_sa_result *r) {
  memset(r, 0, sizeof *r);
  r->best_cost = INFINITY;
  r->start_cost = INFINITY;
}

/* The annealing walk; a->r filled as it goes. */
static vkml_status anneal(sa *a) {
  const tuner_sa_opts *o = a->o;
  tuner_sa_result *r = a->r;
  tuner_point cur = {0};
  if (o->start) cur = *o->start;
  else cur.sched = a->sp->dflt[0];
  double c_cur = INFINITY;
  bool ok, fresh;
  slot *s;
  VKML_RETURN_IF_ERROR(check_valid(a, &cur, &ok, &s));
  if (ok) VKML_RETURN_IF_ERROR(cost_of(a, s, &c_cur, &fresh));
  if (o->survey) {
    tuner_point first = cur;
    for (int i = 0; i < a->sp->n && !out_of_budget(a); i++) {
      if (i == first.tmpl) continue;
      tuner_point p = {.tmpl = i, .sched = a->sp->dflt[i]};
      double c;
      VKML_RETURN_IF_ERROR(check_valid(a, &p, &ok, &s));
      if (!ok) continue;
      VKML_RETURN_IF_ERROR(cost_of(a, s, &c, &fresh));
      if (c < c_cur || !isfinite(c_cur)) {
        cur = p;
        c_cur = c;
      }
    }
  }
  double temp = o->t0;
  int64_t since_best = 0, misses = 0;
  double best_seen = r->best_cost;
  while (!out_of_budget(a)) {
    r->steps++;
    bool restart = temp < o->t_min || since_best >= o->patience || misses >= 64;
    tuner_point next;
    if (restart) {
      r->restarts++;
      temp = o->t0;
      since_best = 0;
      misses = 0;
      /* odd restarts from the best point, even ones (and a walk without any
       * working point) from a random point not costed yet */
      if (r->restarts % 2 == 1 && isfinite(r->best_cost)) {
        cur = r->best;
        c_cur = r->best_cost;
        continue;
      }
      bool found;
      VKML_RETURN_IF_ERROR(fresh_point(a, &next, &found));
      if (!found) {
        r->exhausted = true;
        break;
      }
    } else {
      neighbour(a, &cur, &next);
    }
    VKML_RETURN_IF_ERROR(check_valid(a, &next, &ok, &s));
    if (!ok) {
      misses++;
      continue;
    }
    double c_next;
    VKML_RETURN_IF_ERROR(cost_of(a, s, &c_next, &fresh));
    misses = fresh ? 0 : misses + 1;
    bool accept;
    if (restart || !isfinite(c_cur)) accept = isfinite(c_next) || restart;
    else if (!isfinite(c_next)) accept = false;
    else {
      double d = log(c_next) - log(c_cur);
      accept = d <= 0 || ir_rand_unit(&a->rng) < exp(-d / temp);
    }
    if (accept) {
      cur = next;
      c_cur = c_next;
    }
    temp *= o->cooling;
    if (r->best_cost < best_seen) {
      best_seen = r->best_cost;
      since_best = 0;
    } else {
      since_best++;
    }
  }
  return VKML_OK;
}

vkml_status tuner_sa_run(const tuner_space *sp, const tuner_sa_opts *opts, tuner_sa_result *out) {
  result_init(out);
  VKML_RETURN_IF_ERROR(check_space(sp, opts));
  tuner_sa_opts o = *opts;
  if (!o.seed) o.seed = 1;
  if (o.max_trials <= 0) o.max_trials = 64;
  if (o.t0 <= 0) o.t0 = 0.25;
  if (o.cooling <= 0 || o.cooling >= 1) o.cooling = 0.92;
  if (o.t_min <= 0) o.t_min = 0.005;
  if (o.patience <= 0) o.patience = 40;
  if (o.p_switch <= 0) o.p_switch = 0.15;
  sa a = {.sp = sp, .o = &o, .r = out, .rng = o.seed, .t_start = now_s()};
  vkml_status s = anneal(&a);
  free(a.vs.v);
  return s;
}

vkml_status tuner_exhaustive(const tuner_space *sp, const tuner_sa_opts *opts,
                             tuner_sa_result *out) {
  result_init(out);
  VKML_RETURN_IF_ERROR(check_space(sp, opts));
  sa a = {.sp = sp, .o = opts, .r = out, .t_start = now_s()};
  vkml_status s = VKML_OK;
  for (int t = 0; !s && t < sp->n; t++) {
    int64_t size = cg_space_size(sp->tmpl[t]);
    for (int64_t i = 0; !s && i < size; i++) {
      tuner_point p = {.tmpl = t};
      cg_space_point(sp->tmpl[t], i, &p.sched);
      bool ok, fresh;
      slot *sl;
      double c;
      s = check_valid(&a, &p, &ok, &sl);
      if (!s && ok) s = cost_of(&a, sl, &c, &fresh);
      out->steps++;
    }
  }
  out->exhausted = !s;
  free(a.vs.v);
  return s;
}
