/* The annealing core on synthetic cost landscapes with known optima: it
 * finds them within budget, is deterministic for a seed, never costs an
 * invalid point or one point twice, never chooses a failed point, and stops
 * on the cost function's error. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tuner/tuner_sa.h"
#include "tuner/tuner_tune.h"

#define K8 8, {1, 2, 3, 4, 5, 6, 7, 8}

/* 4 knobs of 8 values: 4096 points. */
static const cg_template bowl = {
    .name = "bowl",
    .glsl = "none",
    .n_knobs = 4,
    .knobs = {{"A", K8}, {"B", K8}, {"C", K8}, {"D", K8}},
    .dflt = {{1, 1, 1, 1}},
};
/* A second template of the same shape, whose optimum is lower. */
static const cg_template bowl2 = {
    .name = "bowl2",
    .glsl = "none",
    .n_knobs = 3,
    .knobs = {{"P", K8}, {"Q", K8}, {"R", 4, {16, 32, 64, 128}}},
    .dflt = {{8, 8, 16}},
};

static const int opt1[4] = {5, 2, 7, 3};
static const int opt2[3] = {2, 6, 64};

typedef struct land {
  bool rugged;        /* multiply by 1 + 0.5 * hash noise (not at the optimum) */
  bool two;           /* bowl2 exists (and holds the global optimum) */
  bool a_times_b_max; /* A * B > 24 is invalid */
  bool fail_a8;       /* points with A == 8 fail (INFINITY) */
  int error_at;       /* the cost function fails at this call (0: never) */
  int calls;
  int64_t n_told;     /* on_trial calls */
  double last_best;
  int invalid_costed;
  int counts[2][4096]; /* costings per point */
  /* the trial sequence */
  int n_seq;
  tuner_point seq[8192];
} land;

static int index_of(const cg_template *t, const cg_schedule *s) {
  int idx = 0, mul = 1;
  for (int k = 0; k < t->n_knobs; k++) {
    int v = 0;
    while (t->knobs[k].values[v] != s->v[k]) v++;
    idx += v * mul;
    mul *= t->knobs[k].n_values;
  }
  return idx;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

static bool valid(void *user, const tuner_point *p) {
  const land *l = user;
  return !(l->a_times_b_max && p->tmpl == 0 && p->sched.v[0] * p->sched.v[1] > 24);
}

static double landscape(const land *l, const tuner_point *p) {
  const cg_template *t = p->tmpl ? &bowl2 : &bowl;
  const int *opt = p->tmpl ? opt2 : opt1;
  double c = p->tmpl ? 90 : 100;
  bool at_opt = true;
  for (int k = 0; k < t->n_knobs; k++) {
    int d = k == 2 && p->tmpl ? (int)log2(p->sched.v[k] / 16.0) - (int)log2(opt[k] / 16.0)
                              : p->sched.v[k] - opt[k];
    c += (k + 1) * 3.0 * d * d;
    at_opt = at_opt && d == 0;
  }
  if (l->rugged && !at_opt)
    c *= 1 + 0.5 * (double)(mix((uint64_t)(p->tmpl * 4096 + index_of(t, &p->sched))) % 1000) / 1000;
  return c;
}

static vkml_status cost(void *user, const tuner_point *p, double *c) {
  land *l = user;
  l->calls++;
  if (l->error_at && l->calls == l->error_at)
    return vkml_status_make(VKML_CODE_INTERNAL, "the device was lost");
  if (!valid(user, p)) l->invalid_costed++;
  l->counts[p->tmpl][index_of(p->tmpl ? &bowl2 : &bowl, &p->sched)]++;
  if (l->n_seq < 8192) l->seq[l->n_seq++] = *p;
  *c = l->fail_a8 && p->tmpl == 0 && p->sched.v[0] == 8 ? INFINITY : landscape(l, p);
  return VKML_OK;
}

static tuner_space space(bool two) {
  tuner_space sp = {.n = two ? 2 : 1, .tmpl = {&bowl, &bowl2}};
  sp.dflt[0] = bowl.dflt;
  sp.dflt[1] = bowl2.dflt;
  return sp;
}

static double optimum(const land *l) { return l->two ? 90 : 100; }

static tuner_sa_result run(land *l, uint64_t seed, int64_t trials) {
  tuner_space sp = space(l->two);
  tuner_sa_opts o = {.seed = seed, .max_trials = trials, .valid = valid, .cost = cost, .user = l};
  tuner_sa_result r;
  vkml_status s = tuner_sa_run(&sp, &o, &r);
  cr_assert_eq(s, VKML_OK, "%s", vkml_status_message(s));
  return r;
}

Test(tuner_sa, smooth_bowl_found_in_a_tenth_of_the_space) {
  for (uint64_t seed = 1; seed <= 10; seed++) {
    static land l;
    memset(&l, 0, sizeof l);
    tuner_sa_result r = run(&l, seed, 410);
    cr_assert_eq(r.best_cost, 100, "seed %llu: best %g after %lld trials", (unsigned long long)seed,
                 r.best_cost, (long long)r.trials);
    cr_assert_eq(r.start_cost, landscape(&l, &(tuner_point){.sched = bowl.dflt}));
    cr_assert_leq(r.trials, 410);
  }
}

/* Local minima everywhere (hash noise of up to +50 %): within 10 % of the
 * space (where random sampling finds the optimum one time in ten) every
 * seed comes within 5 % of the optimum, and 9 of 10 reach it (measured:
 * all 10, at trials 42..153). */
Test(tuner_sa, rugged_landscape) {
  int near = 0, exact = 0;
  for (uint64_t seed = 1; seed <= 10; seed++) {
    static land l;
    memset(&l, 0, sizeof l);
    l.rugged = true;
    tuner_sa_result r = run(&l, seed, 410);
    near += r.best_cost <= 1.05 * optimum(&l);
    exact += r.best_cost == optimum(&l);
  }
  cr_assert_eq(near, 10, "%d of 10 seeds within 5 %%", near);
  cr_assert_geq(exact, 9, "%d of 10 seeds at the optimum", exact);
}

Test(tuner_sa, switches_template_to_the_better_one) {
  for (uint64_t seed = 1; seed <= 10; seed++) {
    static land l;
    memset(&l, 0, sizeof l);
    l.two = true;
    tuner_sa_result r = run(&l, seed, 500);
    cr_assert_eq(r.best.tmpl, 1, "seed %llu stayed on template %d (best %g)",
                 (unsigned long long)seed, r.best.tmpl, r.best_cost);
    cr_assert_eq(r.best_cost, 90, "seed %llu: best %g", (unsigned long long)seed, r.best_cost);
  }
}

/* The survey: the second trial is bowl2's default, and with it the walk
 * begins there (its default is better than bowl's); off, the walk begins
 * at the start and its second trial is a neighbour of it. */
Test(tuner_sa, survey_costs_each_template_default_first) {
  for (int on = 0; on < 2; on++) {
    static land l;
    memset(&l, 0, sizeof l);
    l.two = true;
    tuner_space sp = space(true);
    tuner_sa_opts o = {.seed = 5, .max_trials = 3, .p_switch = 0.01, .survey = on,
                       .valid = valid, .cost = cost, .user = &l};
    tuner_sa_result r;
    vkml_status s = tuner_sa_run(&sp, &o, &r);
    cr_assert_eq(s, VKML_OK, "%s", vkml_status_message(s));
    cr_assert_eq(l.n_seq, 3);
    cr_assert_eq(l.seq[0].tmpl, 0);
    cr_assert_eq(index_of(&bowl, &l.seq[0].sched), 0); /* bowl's default */
    if (on) {
      cr_assert_eq(l.seq[1].tmpl, 1);
      cr_assert_eq(index_of(&bowl2, &l.seq[1].sched), index_of(&bowl2, &bowl2.dflt));
      /* the walk goes on from bowl2's default: a neighbour in bowl2 */
      cr_assert_eq(l.seq[2].tmpl, 1);
    } else {
      cr_assert_eq(l.seq[1].tmpl, 0);
      cr_assert_eq(l.seq[2].tmpl, 0);
    }
  }
}

/* A template that shares bowl's knobs A, B, C and adds its own E. */
static const cg_template bowl3 = {
    .name = "bowl3",
    .glsl = "none",
    .n_knobs = 4,
    .knobs = {{"E", 3, {10, 20, 30}}, {"C", K8}, {"A", K8}, {"B", 4, {1, 3, 5, 7}}},
    .dflt = {{20, 1, 1, 1}},
};

/* Every point costs the same: records the trial sequence only. */
static vkml_status cost_record(void *user, const tuner_point *p, double *c) {
  land *l = user;
  if (l->n_seq < 8192) l->seq[l->n_seq++] = *p;
  *c = 100;
  return VKML_OK;
}

Test(tuner_sa, a_template_switch_keeps_the_shared_knobs) {
  static land l;
  memset(&l, 0, sizeof l);
  tuner_space sp = {.n = 2, .tmpl = {&bowl, &bowl3}};
  sp.dflt[0] = bowl.dflt;
  sp.dflt[1] = bowl3.dflt;
  tuner_point start = {.tmpl = 0, .sched = {{5, 6, 7, 3}}};
  tuner_sa_opts o = {.seed = 3, .max_trials = 2, .p_switch = 1, .start = &start,
                     .cost = cost_record, .user = &l};
  tuner_sa_result r;
  vkml_status s = tuner_sa_run(&sp, &o, &r);
  cr_assert_eq(s, VKML_OK, "%s", vkml_status_message(s));
  cr_assert_eq(l.n_seq, 2);
  /* E from bowl3's default; C and A carried; B = 6 is not a candidate of
   * bowl3's B: the nearest (5 and 7 are as near: the first) */
  const tuner_point *p = &l.seq[1];
  cr_assert_eq(p->tmpl, 1);
  cr_assert_eq(p->sched.v[0], 20);
  cr_assert_eq(p->sched.v[1], 7);
  cr_assert_eq(p->sched.v[2], 5);
  cr_assert_eq(p->sched.v[3], 5);
}

Test(tuner_sa, deterministic_for_a_seed) {
  static land a, b, c;
  a.rugged = b.rugged = c.rugged = a.two = b.two = c.two = true;
  tuner_sa_result ra = run(&a, 7, 300), rb = run(&b, 7, 300);
  run(&c, 8, 300);
  tuner_space sp = space(true);
  cr_assert_eq(a.n_seq, b.n_seq);
  cr_assert_eq(ra.best_cost, rb.best_cost);
  cr_assert_eq(ra.trial_of_best, rb.trial_of_best);
  for (int i = 0; i < a.n_seq; i++)
    cr_assert(tuner_point_equal(&sp, &a.seq[i], &b.seq[i]), "trial %d differs", i + 1);
  bool differs = false;
  for (int i = 0; i < a.n_seq && i < c.n_seq; i++)
    differs = differs || !tuner_point_equal(&sp, &a.seq[i], &c.seq[i]);
  cr_assert(differs, "another seed walks the same way");
}

/* A budget larger than the space: every valid point costed exactly once,
 * no invalid one, the walk ends exhausted at the exhaustive search's best. */
Test(tuner_sa, exhausts_a_space_without_repeats) {
  static land l, e;
  l.a_times_b_max = e.a_times_b_max = true;
  l.rugged = e.rugged = true;
  tuner_sa_result r = run(&l, 3, 100000);
  tuner_space sp = space(false);
  tuner_sa_opts o = {.valid = valid, .cost = cost, .user = &e};
  tuner_sa_result x;
  cr_assert_eq(tuner_exhaustive(&sp, &o, &x), VKML_OK);
  int n_valid = 0;
  for (int a = 1; a <= 8; a++)
    for (int b = 1; b <= 8; b++) n_valid += a * b <= 24;
  n_valid *= 64;
  cr_assert_eq(x.trials, n_valid);
  cr_assert(x.exhausted);
  cr_assert(r.exhausted, "stopped after %lld trials", (long long)r.trials);
  cr_assert_eq(r.trials, n_valid);
  cr_assert_eq(r.best_cost, x.best_cost);
  cr_assert_eq(l.invalid_costed, 0);
  cr_assert_eq(e.invalid_costed, 0);
  for (int i = 0; i < 4096; i++) cr_assert_leq(l.counts[0][i], 1, "point %d costed twice", i);
}

/* Points that fail (INFINITY) are never the best, the start point included. */
Test(tuner_sa, failed_points_never_chosen) {
  static land l;
  l.fail_a8 = true;
  tuner_space sp = space(false);
  tuner_point start = {.sched = {{8, 1, 1, 1}}};
  tuner_sa_opts o = {.seed = 5, .max_trials = 300, .cost = cost, .user = &l, .start = &start};
  tuner_sa_result r;
  cr_assert_eq(tuner_sa_run(&sp, &o, &r), VKML_OK);
  cr_assert(isinf(r.start_cost));
  cr_assert(isfinite(r.best_cost));
  cr_assert_neq(r.best.sched.v[0], 8);
  cr_assert_eq(r.best_cost, 100);
}

Test(tuner_sa, cost_error_stops_the_search) {
  static land l;
  l.error_at = 5;
  tuner_space sp = space(false);
  tuner_sa_opts o = {.max_trials = 100, .cost = cost, .user = &l};
  tuner_sa_result r;
  vkml_status s = tuner_sa_run(&sp, &o, &r);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INTERNAL);
  cr_assert(strstr(vkml_status_message(s), "device was lost"));
  cr_assert_eq(l.calls, 5);
  cr_assert_eq(r.trials, 4);
  vkml_status_free(s);
}

Test(tuner_sa, bad_spaces_refused) {
  static land l;
  tuner_space empty = {0};
  tuner_sa_opts o = {.cost = cost, .user = &l};
  tuner_sa_result r;
  vkml_status s = tuner_sa_run(&empty, &o, &r);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  tuner_space sp = space(false);
  tuner_point start = {.tmpl = 3};
  o.start = &start;
  s = tuner_sa_run(&sp, &o, &r);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  cr_assert_eq(l.calls, 0);
}

static void on_trial(void *user, const tuner_trial *t) {
  land *l = user;
  cr_assert_eq(t->trial, ++l->n_told, "trials told in order");
  cr_assert_leq(t->best_cost, t->cost);
  cr_assert_leq(t->best_cost, l->last_best, "the best so far never gets worse");
  l->last_best = t->best_cost;
}

Test(tuner_sa, trial_callback_sees_progress) {
  static land l;
  l.last_best = INFINITY;
  tuner_space sp = space(false);
  tuner_sa_opts o = {.seed = 2, .max_trials = 50, .cost = cost, .user = &l, .on_trial = on_trial};
  tuner_sa_result r;
  cr_assert_eq(tuner_sa_run(&sp, &o, &r), VKML_OK);
  cr_assert_eq(r.trials, 50);
  cr_assert_eq(l.calls, 50);
  cr_assert_eq(l.n_told, 50);
  cr_assert_eq(l.last_best, r.best_cost);
}

/* A time budget's shares: half even, half by weight (nodes x default
 * time); unknown weights count as the mean of the known; they sum to 1. */
Test(tuner_budget, shares_follow_where_the_time_goes) {
  double w[4] = {100, 300, -1, 0}, s[4];
  tuner_budget_shares(w, 4, s);
  /* unknown: the mean of the known, 200; total 100 + 300 + 200 + 200 */
  double want[4] = {0.125 + 0.5 * 100 / 800, 0.125 + 0.5 * 300 / 800, 0.125 + 0.5 * 200 / 800,
                    0.125 + 0.5 * 200 / 800};
  double sum = 0;
  for (int i = 0; i < 4; i++) {
    cr_assert_float_eq(s[i], want[i], 1e-12, "share %d: %g", i, s[i]);
    sum += s[i];
  }
  cr_assert_float_eq(sum, 1, 1e-12);
  /* nothing known: even shares */
  double none[3] = {-1, -1, -1};
  tuner_budget_shares(none, 3, s);
  for (int i = 0; i < 3; i++) cr_assert_float_eq(s[i], 1.0 / 3, 1e-12);
}
