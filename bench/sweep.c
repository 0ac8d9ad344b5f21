/* vkml-sweep: times every schedule point (or a random sample) of one node's
 * GPU kernel on a real device, checks each point's output against a
 * reference, and ranks the points against the default choice; used by hand
 * to pick better default schedules (bench/README.md). A thin tool over the
 * tuner's measurement (tuner/tuner_measure.h): the node alone, each point
 * timed in pairs with the default (the clock-stable protocol). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/compile.h"
#include "codegen/core/ops.h"
#include "codegen/core/template.h"
#include "ir/cost.h"
#include "driver/driver.h"
#include "ir/text.h"
#include "runtime/vk/vk_context.h"
#include "tuner/tuner_measure.h"
#include "tunedb/tunedb_json.h"
#include "ir/util.h"

static const char usage[] =
    "usage: vkml-sweep MODEL.vkir [options]\n"
    "  --device N             Vulkan device index (default: VKML_DEVICE, else the best one)\n"
    "  --node NAME            the node producing %NAME (default: the first node with a GPU kernel)\n"
    "  --template NAME        sweep this template only (default: every template of the\n"
    "                         node's family that instantiates for it)\n"
    "  --fix KNOB=V[,KNOB=V]  only points with these knob values\n"
    "  --all                  every point of each space (the default)\n"
    "  --sample K             K random valid points per template (plus its default)\n"
    "  --seed S               sampling seed (default 1)\n"
    "  --runs R               timed runs per point (default 20)\n"
    "  --chain C              dispatches in a row per run, timed in their steady\n"
    "                         state (default 16, 2 on a CPU device;\n"
    "                         1: one per submission)\n"
    "  --flush-mb M           MiB zeroed before each timed dispatch (cold caches;\n"
    "                         default 128, none on a CPU device; 0: none)\n"
    "  --warmup W             untimed runs per point (default 5)\n"
    "  --warmup-ms T          and at least T ms of them (default 100; the default\n"
    "                         point, measured first, at least 500)\n"
    "  --precision fp32|fp16  f16 tensors inside the graph (default fp32)\n"
    "  --ref cpu|default      reference output: the CPU executor (default) or the GPU\n"
    "                         output of the default choice (for nodes too large for\n"
    "                         the reference kernels)\n"
    "  --winograd auto|off|f2|f4\n"
    "                         as vkc's (default auto): off keeps the 3x3 convs that\n"
    "                         pass_winograd would take as conv2d nodes\n"
    "  --json                 one JSON object on stdout instead of the table\n"
    "  --json-file PATH       also write that JSON object to PATH\n"
    "The node runs alone. Each point is replayed in pairs with the default, in\n"
    "alternating order: vs_default is the median of the per-pair time ratios (both\n"
    "kernels at the same clocks), median_us that ratio times the default's time\n"
    "(measured alone first); then GFLOP/s, GB/s and the relative error against the\n"
    "reference (max abs err / max |ref|): above 1e-3 (fp32) or 1e-2 (fp16) is WRONG.\n"
    "Where the driver reports them (VK_KHR_pipeline_executable_properties), each\n"
    "point's pipeline statistics follow in brackets (registers, spills, ... in the\n"
    "driver's names; \"kernel_stats\" in JSON).\n";

#define TOOL "vkml-sweep"
#define MAX_FIX 16
#define MAX_TMPL 16

typedef struct args {
  const char *model, *node, *tmpl, *json_file;
  int device; /* -1: automatic */
  bool all, json, ref_default;
  pass_winograd_mode winograd;
  int64_t sample;
  uint64_t seed;
  int runs, chain, flush_mb, warmup, warmup_ms;
  ir_precision precision;
  int n_fix;
  char fix_name[MAX_FIX][32];
  int fix_value[MAX_FIX];
} args;

/* One measured (or refused) point. */
typedef struct point {
  const cg_template *tmpl;
  cg_schedule sched;
  char text[256];   /* formatted schedule */
  bool tdefault;    /* the template's default for this workload */
  bool pdefault;    /* the plan's default choice (template and schedule) */
  bool ok;          /* measured */
  bool wrong;
  double median_us, ratio, rel; /* ratio: to the default, paired */
  char error[256];  /* failed: why */
  char stats[RT_VK_STATS_BYTES]; /* the driver's statistics of its pipeline ("": none) */
} point;

typedef struct points {
  point *v;
  int n, cap;
} points;

/* The sweep's state. */
typedef struct sweep {
  const args *a;
  rt_vk_context *ctx;
  const ir_target *t;
  cg_compiler *cc;
  const ir_graph *g; /* the compiled graph (fp16: converted) */
  const ir_node *target;
  tuner_bench *bench;
  double tol;
  /* counters */
  int64_t n_refused_constraints, n_refused_kernel, n_failed, n_wrong;
} sweep;

/* ---- small helpers ------------------------------------------------------------ */



static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}


/* A JSON number, or null for inf / NaN. */
static void json_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.6g", v);
  else fputs("null", f);
}

static vkml_status points_push(points *p, const point *x) {
  if (p->n == p->cap) {
    int ncap = p->cap ? 2 * p->cap : 64;
    point *nv = realloc(p->v, sizeof *nv * (size_t)ncap);
    if (!nv) return ir_oom(NULL);
    p->v = nv;
    p->cap = ncap;
  }
  p->v[p->n++] = *x;
  return VKML_OK;
}

static bool sched_equal(const cg_template *t, const cg_schedule *a, const cg_schedule *b) {
  for (int i = 0; i < t->n_knobs; i++)
    if (a->v[i] != b->v[i]) return false;
  return true;
}

/* ---- arguments ------------------------------------------------------------------ */

static vkml_status parse_fix(args *a, const char *list) {
  const char *p = list;
  while (*p) {
    const char *eq = strchr(p, '='), *comma = strchr(p, ',');
    if (!comma) comma = p + strlen(p);
    if (!eq || eq > comma || eq == p || eq - p >= 32)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--fix expects KNOB=V[,KNOB=V], got '%s'",
                              list);
    if (a->n_fix == MAX_FIX)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--fix: more than %d knobs", MAX_FIX);
    char num[32];
    size_t nl = (size_t)(comma - eq - 1);
    if (nl == 0 || nl >= sizeof num)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--fix: bad value in '%s'", list);
    memcpy(num, eq + 1, nl);
    num[nl] = 0;
    int64_t v;
    if (!parse_int(num, INT32_MIN, INT32_MAX, &v))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--fix: '%s' is not an integer", num);
    memcpy(a->fix_name[a->n_fix], p, (size_t)(eq - p));
    a->fix_name[a->n_fix][eq - p] = 0;
    a->fix_value[a->n_fix++] = (int)v;
    p = *comma ? comma + 1 : comma;
  }
  return VKML_OK;
}

/* 0 ok, 2 usage error (message printed), 1 help printed. */
static int parse_args(int argc, char **argv, args *a) {
  *a = (args){.device = -1, .seed = 1, .runs = 20, .warmup = 5, .warmup_ms = 100};
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
      printf("%s", usage);
      return 1;
    }
    if (!strcmp(o, "--all")) {
      a->all = true;
      continue;
    }
    if (!strcmp(o, "--json")) {
      a->json = true;
      continue;
    }
    if (o[0] != '-') {
      if (a->model) {
        fprintf(stderr, TOOL ": unexpected argument '%s'\n", o);
        return 2;
      }
      a->model = o;
      continue;
    }
    static const char *const with_value[] = {"--device", "--node", "--template", "--fix",
                                             "--sample", "--seed", "--runs", "--chain", "--flush-mb", "--warmup",
                                             "--warmup-ms",
                                             "--precision", "--ref", "--json-file",
                                             "--winograd", NULL};
    int k = 0;
    while (with_value[k] && strcmp(with_value[k], o)) k++;
    if (!with_value[k]) {
      fprintf(stderr, TOOL ": unknown option '%s' (see --help)\n", o);
      return 2;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, TOOL ": %s needs a value\n", o);
      return 2;
    }
    const char *v = argv[++i];
    int64_t n = 0;
    bool good = true;
    if (!strcmp(o, "--device")) good = parse_int(v, 0, 1000, &n), a->device = (int)n;
    else if (!strcmp(o, "--node")) a->node = v;
    else if (!strcmp(o, "--template")) a->tmpl = v;
    else if (!strcmp(o, "--json-file")) a->json_file = v;
    else if (!strcmp(o, "--sample")) good = parse_int(v, 1, 1000000, &a->sample);
    else if (!strcmp(o, "--seed")) good = parse_int(v, 0, INT64_MAX, &n), a->seed = (uint64_t)n;
    else if (!strcmp(o, "--runs")) good = parse_int(v, 1, 100000, &n), a->runs = (int)n;
    else if (!strcmp(o, "--chain")) good = parse_int(v, 1, 100000, &n), a->chain = (int)n;
    else if (!strcmp(o, "--flush-mb"))
      good = parse_int(v, 0, 65536, &n), a->flush_mb = n ? (int)n : -1;
    else if (!strcmp(o, "--warmup")) good = parse_int(v, 0, 100000, &n), a->warmup = (int)n;
    else if (!strcmp(o, "--warmup-ms")) good = parse_int(v, 0, 100000, &n), a->warmup_ms = (int)n;
    else if (!strcmp(o, "--precision")) {
      good = !strcmp(v, "fp32") || !strcmp(v, "fp16");
      a->precision = good && v[2] == '1' ? IR_PRECISION_FP16 : IR_PRECISION_FP32;
    } else if (!strcmp(o, "--winograd")) {
      good = pass_winograd_mode_parse(v, &a->winograd);
    } else if (!strcmp(o, "--ref")) {
      good = !strcmp(v, "cpu") || !strcmp(v, "default");
      a->ref_default = !strcmp(v, "default");
    } else {
      vkml_status s = parse_fix(a, v);
      if (s) {
        fprintf(stderr, TOOL ": %s\n", vkml_status_message(s));
        vkml_status_free(s);
        return 2;
      }
    }
    if (!good) {
      fprintf(stderr, TOOL ": bad value '%s' for %s\n", v, o);
      return 2;
    }
  }
  if (!a->model) {
    fprintf(stderr, TOOL ": no MODEL.vkir given (see --help)\n");
    return 2;
  }
  if (a->all && a->sample) {
    fprintf(stderr, TOOL ": --all and --sample exclude each other\n");
    return 2;
  }
  return 0;
}

/* ---- the workload ----------------------------------------------------------------- */

static bool node_has_output(const ir_node *n, const char *name) {
  for (int i = 0; i < n->n_outputs; i++)
    if (!strcmp(n->outputs[i]->name, name)) return true;
  return false;
}

/* The node to sweep in g: --node names an output of it, else the first node
 * with a GPU kernel. */
static vkml_status find_target(const ir_graph *g, const char *name, const ir_target *t,
                               const ir_node **out) {
  *out = NULL;
  ir_foreach_node(g, n) {
    if (name) {
      if (node_has_output(n, name)) *out = n;
      if (*out) break;
      continue;
    }
    cg_kernel k;
    vkml_status s = cg_kernel_for_node(n, NULL, NULL, t, &k);
    if (!s) {
      *out = n;
      break;
    }
    vkml_status_free(s);
  }
  if (*out) return VKML_OK;
  if (name)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "no node produces %%%s", name);
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "no node of @%s has a GPU kernel on %s",
                          g->name ? g->name : "", t->name);
}

/* The node of the fp16 copy h that corresponds to n of g: the same op at the
 * same position among the nodes of that op (the conversion keeps node order
 * and only adds casts). */
static const ir_node *corresponding_node(const ir_graph *g, const ir_node *n, const ir_graph *h) {
  int ordinal = 0;
  ir_foreach_node(g, m) {
    if (m == n) break;
    ordinal += m->op == n->op;
  }
  ir_foreach_node(h, m) {
    if (m->op != n->op) continue;
    if (ordinal-- == 0) return m;
  }
  return NULL;
}

/* Measures one point into p (p->ok, or p->error). */
/* A completed measurement m into p (counted). */
static void take(sweep *w, point *p, const tuner_measurement *m) {
  p->ok = true;
  p->median_us = m->median_ns / 1e3;
  p->ratio = m->ratio;
  p->rel = m->rel_err;
  p->wrong = !m->correct;
  snprintf(p->stats, sizeof p->stats, "%s", m->kernel_stats);
  w->n_wrong += p->wrong;
}

static vkml_status measure(sweep *w, point *p) {
  tuner_measurement m;
  VKML_RETURN_IF_ERROR(tuner_bench_measure(w->bench, p->tmpl, &p->sched, &m));
  if (m.failed) {
    snprintf(p->error, sizeof p->error, "%s", m.message);
    w->n_failed++;
    return VKML_OK;
  }
  take(w, p, &m);
  return VKML_OK;
}

/* ---- output -------------------------------------------------------------------------- */

static void print_point_text(const sweep *w, const point *p, double flops, double bytes) {
  printf("%-18s %-40s ", p->tmpl->name, p->text);
  if (!p->ok) {
    printf("FAILED: %s\n", p->error);
    fflush(stdout);
    return;
  }
  printf("%10.2f ", p->median_us);
  if (flops > 0) printf("%9.1f ", flops / p->median_us / 1e3);
  else printf("%9s ", "-");
  printf("%8.1f %10.3g %10.3f", bytes / p->median_us / 1e3, p->rel, p->ratio);
  if (p->pdefault) printf("  default");
  else if (p->tdefault) printf("  template-default");
  if (p->wrong) printf("  WRONG (rel err %.3g > %.0e)", p->rel, w->tol);
  if (p->stats[0]) printf("  [%s]", p->stats);
  printf("\n");
  fflush(stdout);
}

static int cmp_point(const void *x, const void *y) {
  const point *a = *(const point *const *)x, *b = *(const point *const *)y;
  return (a->median_us > b->median_us) - (a->median_us < b->median_us);
}

/* The measured, correct points fastest first (caller frees). */
static const point **ranking(const points *ps, int *n) {
  const point **r = malloc(sizeof *r * (size_t)(ps->n ? ps->n : 1));
  *n = 0;
  if (!r) return NULL;
  for (int i = 0; i < ps->n; i++)
    if (ps->v[i].ok && !ps->v[i].wrong) r[(*n)++] = &ps->v[i];
  qsort(r, (size_t)*n, sizeof *r, cmp_point);
  return r;
}

/* ---- enumeration ------------------------------------------------------------------ */

/* Whether s agrees with every --fix knob the template has. */
static bool fix_matches(const args *a, const cg_template *t, const cg_schedule *s) {
  for (int i = 0; i < a->n_fix; i++) {
    int k = cg_knob_index(t, a->fix_name[i]);
    if (k >= 0 && s->v[k] != a->fix_value[i]) return false;
  }
  return true;
}

/* A candidate: refused (constraints or kernel: counted, *valid false), or
 * valid. Other instantiation errors are failures worth showing. */
static vkml_status candidate(sweep *w, const cg_template *t, const cg_schedule *s, bool *valid,
                             char *err, size_t err_bytes) {
  *valid = false;
  err[0] = 0;
  vkml_status st = cg_schedule_check(t, s, w->t);
  if (st) {
    vkml_status_free(st);
    w->n_refused_constraints++;
    return VKML_OK;
  }
  cg_kernel k;
  st = cg_kernel_for_node(w->target, t, s, w->t, &k);
  if (vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(st);
    w->n_refused_kernel++;
    return VKML_OK;
  }
  if (st) {
    snprintf(err, err_bytes, "%s", vkml_status_message(st));
    vkml_status_free(st);
    return VKML_OK;
  }
  *valid = true;
  return VKML_OK;
}

/* Appends the points of template t (its default first), measuring each. */
static vkml_status sweep_template(sweep *w, const cg_template *t, const cg_kernel *dflt,
                                  const cg_kernel *plan_dflt, points *ps, double flops,
                                  double bytes) {
  const args *a = w->a;
  int64_t size = cg_space_size(t);
  point p = {.tmpl = t, .sched = dflt->schedule, .tdefault = true};
  cg_schedule_format(t, &p.sched, p.text, sizeof p.text);
  /* the plan's default was measured first, as the reference */
  if (plan_dflt->tmpl != t || !sched_equal(t, &plan_dflt->schedule, &dflt->schedule)) {
    VKML_RETURN_IF_ERROR(measure(w, &p));
    if (!a->json) print_point_text(w, &p, flops, bytes);
    VKML_RETURN_IF_ERROR(points_push(ps, &p));
  }
  uint64_t rng = a->seed ^ (uint64_t)size * 0x9e3779b97f4a7c15ull;
  int64_t want = a->sample ? a->sample : size;
  int64_t tries = a->sample ? (size < 64 * a->sample ? size * 4 : 64 * a->sample) : size;
  /* sampled indices already seen (sampling only) */
  int64_t *seen = NULL;
  int64_t n_seen = 0;
  if (a->sample) {
    seen = malloc(sizeof *seen * (size_t)tries);
    if (!seen) return ir_oom(NULL);
  }
  int64_t got = 0;
  for (int64_t i = 0; i < tries && got < want; i++) {
    int64_t idx = i;
    if (a->sample) {
      idx = (int64_t)(ir_splitmix64(&rng) % (uint64_t)size);
      bool dup = false;
      for (int64_t j = 0; j < n_seen && !dup; j++) dup = seen[j] == idx;
      if (dup) continue;
      seen[n_seen++] = idx;
    }
    point q = {.tmpl = t};
    cg_space_point(t, idx, &q.sched);
    if (sched_equal(t, &q.sched, &dflt->schedule) || !fix_matches(a, t, &q.sched)) continue;
    bool valid;
    vkml_status s = candidate(w, t, &q.sched, &valid, q.error, sizeof q.error);
    if (s) {
      free(seen);
      return s;
    }
    cg_schedule_format(t, &q.sched, q.text, sizeof q.text);
    if (!valid && !q.error[0]) continue;
    got++;
    if (valid) s = measure(w, &q);
    else w->n_failed++;
    if (s) {
      free(seen);
      return s;
    }
    if (!a->json) print_point_text(w, &q, flops, bytes);
    if ((s = points_push(ps, &q))) {
      free(seen);
      return s;
    }
  }
  free(seen);
  return VKML_OK;
}

/* The templates to sweep: --template, or every template that instantiates
 * for the node with its default schedule. dflt[i] is each one's default. */
static vkml_status pick_templates(sweep *w, const cg_template **tm, cg_kernel *dflt, int *n) {
  *n = 0;
  if (w->a->tmpl) {
    const cg_template *t = cg_template_find(w->a->tmpl);
    if (!t) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "unknown template '%s'", w->a->tmpl);
    vkml_status s = cg_kernel_for_node(w->target, t, NULL, w->t, &dflt[0]);
    if (s) return vkml_status_annotate(s, "template %s does not instantiate for this node", t->name);
    tm[(*n)++] = t;
    return VKML_OK;
  }
  for (int i = 0; cg_templates[i] && *n < MAX_TMPL; i++) {
    const cg_template *t = cg_templates[i];
    vkml_status s = cg_kernel_for_node(w->target, t, NULL, w->t, &dflt[*n]);
    if (s) {
      vkml_status_free(s);
      continue;
    }
    if (dflt[*n].tmpl == t) tm[(*n)++] = t;
  }
  if (!*n) return vkml_status_make(VKML_CODE_UNSUPPORTED, "no template instantiates for the node");
  return VKML_OK;
}

/* Every --fix knob must belong to a swept template and name a candidate. */
static vkml_status check_fix(const args *a, const cg_template *const *tm, int n) {
  for (int i = 0; i < a->n_fix; i++) {
    bool known = false, value_ok = false;
    for (int j = 0; j < n; j++) {
      int k = cg_knob_index(tm[j], a->fix_name[i]);
      if (k < 0) continue;
      known = true;
      for (int v = 0; v < tm[j]->knobs[k].n_values; v++)
        value_ok |= tm[j]->knobs[k].values[v] == a->fix_value[i];
    }
    if (!known)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--fix: unknown knob '%s'",
                              a->fix_name[i]);
    if (!value_ok)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--fix: %s=%d is not a candidate value",
                              a->fix_name[i], a->fix_value[i]);
  }
  return VKML_OK;
}

/* ---- main --------------------------------------------------------------------------- */

/* The plan's default, measured alone: the reference every other point is
 * paired with, and with --ref default the outputs they are checked
 * against. */
static vkml_status reference(sweep *w, const cg_kernel *plan_dflt, points *ps, double flops,
                             double bytes) {
  const cg_template *t = plan_dflt->tmpl;
  point p = {.tmpl = t, .sched = plan_dflt->schedule, .pdefault = true, .tdefault = true};
  cg_schedule_format(t, &p.sched, p.text, sizeof p.text);
  tuner_measurement m;
  VKML_RETURN_IF_ERROR(tuner_bench_set_reference(w->bench, t, &p.sched, 0, &m));
  if (m.failed)
    return vkml_status_make(VKML_CODE_DEVICE, "the default %s %s failed: %s", t->name, p.text,
                            m.message);
  take(w, &p, &m);
  p.ratio = 1;
  if (!w->a->json) print_point_text(w, &p, flops, bytes);
  return points_push(ps, &p);
}

static void print_text_header(const sweep *w, double flops, double bytes) {
  const args *a = w->a;
  char desc[256];
  ir_node_describe(w->target, desc, sizeof desc);
  printf("%s: %s\n", a->model, desc);
  printf("device %s, %s, median of %d runs paired with the default, after %d warm-up; "
         "reference: %s; %.4g GFLOP, %.4g MB\n",
         w->t->name, a->precision ? "fp16" : "fp32", a->runs, a->warmup,
         a->ref_default ? "the default's GPU output" : "CPU executor", flops / 1e9, bytes / 1e6);
  printf("%-18s %-40s %10s %9s %8s %10s %10s\n", "template", "schedule", "median_us", "GFLOP/s",
         "GB/s", "rel_err", "vs_default");
  fflush(stdout);
}

static void print_text_summary(const sweep *w, const point *const *r, int nr, int rank,
                               const point *pd) {
  printf("\n%d measured, %lld WRONG, %lld failed; skipped %lld refused by the template's "
         "constraints, %lld by the kernel\n",
         nr + (int)w->n_wrong, (long long)w->n_wrong, (long long)w->n_failed,
         (long long)w->n_refused_constraints, (long long)w->n_refused_kernel);
  printf("best %d:\n", nr < 5 ? nr : 5);
  for (int i = 0; i < nr && i < 5; i++)
    printf("  %d. %-18s %-40s %10.2f us%s\n", i + 1, r[i]->tmpl->name, r[i]->text,
           r[i]->median_us, r[i] == pd ? "  default" : "");
  if (!pd) printf("default: not measured\n");
  else if (!rank)
    printf("default %s %s: not ranked (%s)\n", pd->tmpl->name, pd->text,
           pd->ok ? "WRONG" : pd->error);
  else if (rank == 1)
    printf("default %s %s: rank 1 of %d, %.2f us: the fastest point\n", pd->tmpl->name,
           pd->text, nr, pd->median_us);
  else
    printf("default %s %s: rank %d of %d, %.2f us; best %.2f us (%.2fx faster)\n",
           pd->tmpl->name, pd->text, rank, nr, pd->median_us, r[0]->median_us,
           pd->median_us / r[0]->median_us);
}

static void json_point(FILE *f, const point *p, double flops, double bytes) {
  fprintf(f, "{\"template\": ");
  tunedb_json_string(f, p->tmpl->name);
  fprintf(f, ", \"schedule\": ");
  tunedb_json_string(f, p->text);
  fprintf(f, ", \"default\": %s, \"template_default\": %s, \"ok\": %s",
          p->pdefault ? "true" : "false", p->tdefault ? "true" : "false",
          p->ok ? "true" : "false");
  if (!p->ok) {
    fprintf(f, ", \"error\": ");
    tunedb_json_string(f, p->error);
    fputc('}', f);
    return;
  }
  fprintf(f, ", \"median_us\": ");
  json_num(f, p->median_us);
  fprintf(f, ", \"gflops\": ");
  json_num(f, flops > 0 ? flops / p->median_us / 1e3 : NAN);
  fprintf(f, ", \"gbps\": ");
  json_num(f, bytes / p->median_us / 1e3);
  fprintf(f, ", \"vs_default\": ");
  json_num(f, p->ratio);
  fprintf(f, ", \"rel_err\": ");
  json_num(f, p->rel);
  fprintf(f, ", \"wrong\": %s", p->wrong ? "true" : "false");
  if (p->stats[0]) {
    fprintf(f, ", \"kernel_stats\": ");
    tunedb_json_string(f, p->stats);
  }
  fprintf(f, "}");
}

/* The whole result as one JSON object (written at the end, so that a
 * failure never leaves half an object behind). */
static void write_json(FILE *f, const sweep *w, const points *ps, const point *const *r, int nr,
                       int rank, double flops, double bytes) {
  const args *a = w->a;
  char desc[256];
  ir_node_describe(w->target, desc, sizeof desc);
  fprintf(f, "{\"model\": ");
  tunedb_json_string(f, a->model);
  fprintf(f, ", \"node\": ");
  tunedb_json_string(f, desc);
  fprintf(f, ", \"device\": ");
  tunedb_json_string(f, w->t->name);
  fprintf(f, ", \"precision\": \"%s\", \"runs\": %d, \"warmup\": %d, \"reference\": \"%s\", "
             "\"chain\": %d, \"flush_mb\": %d, \"paired\": true, \"flops\": %.0f, \"bytes\": %.0f, \"tolerance\": %g, "
             "\"points\": [",
          a->precision ? "fp16" : "fp32", a->runs, a->warmup, a->ref_default ? "default" : "cpu",
          tuner_bench_chain(w->bench), tuner_bench_flush_mb(w->bench), flops, bytes, w->tol);
  for (int i = 0; i < ps->n; i++) {
    if (i) fprintf(f, ",\n  ");
    json_point(f, &ps->v[i], flops, bytes);
  }
  fprintf(f, "], \"refused_constraints\": %lld, \"refused_kernel\": %lld, \"failed\": %lld, "
             "\"wrong\": %lld, \"ranked\": %d, \"default_rank\": %d, \"best\": [",
          (long long)w->n_refused_constraints, (long long)w->n_refused_kernel,
          (long long)w->n_failed, (long long)w->n_wrong, nr, rank);
  for (int i = 0; i < nr && i < 5; i++) {
    if (i) fprintf(f, ", ");
    json_point(f, r[i], flops, bytes);
  }
  fprintf(f, "]}\n");
}

/* Text summary and / or JSON (stdout, --json-file). */
static vkml_status report(const sweep *w, const points *ps, double flops, double bytes) {
  const args *a = w->a;
  const point *pd = NULL;
  for (int i = 0; i < ps->n; i++)
    if (ps->v[i].pdefault) pd = &ps->v[i];
  int nr = 0, rank = 0;
  const point **r = ranking(ps, &nr);
  if (!r) return ir_oom(NULL);
  for (int i = 0; i < nr; i++)
    if (r[i] == pd) rank = i + 1;
  if (a->json) write_json(stdout, w, ps, r, nr, rank, flops, bytes);
  else print_text_summary(w, r, nr, rank, pd);
  vkml_status s = VKML_OK;
  if (a->json_file) {
    FILE *f = fopen(a->json_file, "w");
    if (!f) {
      s = vkml_status_make(VKML_CODE_IO, "cannot write %s", a->json_file);
    } else {
      write_json(f, w, ps, r, nr, rank, flops, bytes);
      if (fclose(f)) s = vkml_status_make(VKML_CODE_IO, "%s: write failed", a->json_file);
    }
  }
  free(r);
  return s;
}

/* w->g (g's compiled copy) is ready; the device is open. */
static vkml_status run_sweep(sweep *w, const ir_graph *g) {
  const args *a = w->a;
  const ir_node *target0;
  VKML_RETURN_IF_ERROR(find_target(g, a->node, w->t, &target0));
  if (a->precision == IR_PRECISION_FP16 && !w->t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "fp16 needs 16-bit storage, which %s lacks",
                            w->t->name);
  w->target = corresponding_node(g, target0, w->g);
  if (!w->target) return vkml_status_make(VKML_CODE_INTERNAL, "the compiled copy lacks the node");
  if (ir_node_any_packed(w->target))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "the node runs packed layouts (annotated): "
                                                   "the sweep needs plain layouts");
  vkml_status s = VKML_OK;
  points ps = {0};
  const cg_template *tm[MAX_TMPL];
  cg_kernel *dflt = malloc(sizeof *dflt * (MAX_TMPL + 1));
  int n_tm = 0;
  if (!dflt) return ir_oom(NULL);
  cg_kernel *plan_dflt = dflt + MAX_TMPL;
  s = cg_kernel_for_node(w->target, NULL, NULL, w->t, plan_dflt);
  if (s) s = vkml_status_annotate(s, "the node has no default GPU kernel");
  if (!s) s = pick_templates(w, tm, dflt, &n_tm);
  if (!s) s = check_fix(a, tm, n_tm);
  tuner_bench_opts bo = {.runs = a->runs, .chain = a->chain, .flush_mb = a->flush_mb, .warmup = a->warmup > 0 ? a->warmup : 1,
                         .warmup_ms = a->warmup_ms > 0 ? a->warmup_ms : 1e-3,
                         .first_warmup_ms = a->warmup_ms > 500 ? a->warmup_ms : 500,
                         .precision = a->precision, .compiler = w->cc,
                         .gpu_reference = a->ref_default};
  if (!s) s = tuner_bench_create(w->ctx, w->g, w->target, &bo, &w->bench);
  if (s) goto done;

  double flops = ir_node_flops(w->target), bytes = ir_node_bytes(w->target);
  if (!a->json) print_text_header(w, flops, bytes);
  s = reference(w, plan_dflt, &ps, flops, bytes);
  for (int i = 0; i < n_tm && !s; i++)
    s = sweep_template(w, tm[i], &dflt[i], plan_dflt, &ps, flops, bytes);
  if (!s) s = report(w, &ps, flops, bytes);
done:
  tuner_bench_destroy(w->bench);
  free(ps.v);
  free(dflt);
  return s;
}

static int fail(vkml_status s) {
  fprintf(stderr, TOOL ": %s\n", vkml_status_message(s));
  vkml_status_free(s);
  return 1;
}

int main(int argc, char **argv) {
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc == 1 ? 0 : 2;
  ir_graph *g = NULL;
  vkml_status s = ir_parse_file(a.model, &g);
  if (s) return fail(s);
  sweep w = {.a = &a, .tol = a.precision == IR_PRECISION_FP16 ? 1e-2 : 1e-3};
  rt_vk_context_opts co = {.select_device = a.device >= 0,
                           .device_index = a.device,
                           .required = RT_VK_REQ_TIMESTAMPS,
                           .pipeline_stats = true};
  s = rt_vk_context_create(&co, &w.ctx);
  if (!s) w.t = rt_vk_context_target(w.ctx);
  /* compiled as vkc run compiles (the driver's pass pipeline for the
   * device, then the plan in the bench), on a copy: the target node is
   * found in g */
  ir_graph *gc = NULL;
  drv_opts d = {.precision = a.precision, .winograd = a.winograd};
  if (!s) s = ir_graph_clone(g, &gc);
  if (!s) s = drv_passes(gc, w.t, &d);
  w.g = gc ? gc : g;
  if (!s) s = cg_compiler_create(&(cg_compiler_opts){0}, &w.cc);
  if (!s) s = run_sweep(&w, g);
  cg_compiler_destroy(w.cc);
  if (w.ctx) {
    const char *warn = rt_vk_context_warnings(w.ctx);
    if (warn && *warn)
      fprintf(stderr, TOOL ": warning: %s%s", warn, warn[strlen(warn) - 1] == '\n' ? "" : "\n");
    rt_vk_report rep;
    rt_vk_context_destroy(w.ctx, &rep);
    if (!s && (rep.n_errors || rep.n_leaked))
      s = vkml_status_make(VKML_CODE_DEVICE, "Vulkan validation: %u errors, %d leaked objects; "
                           "first: %s", rep.n_errors, rep.n_leaked, rep.first_message);
  }
  ir_graph_destroy(gc);
  ir_graph_destroy(g);
  if (s) {
    fflush(stdout);
    return fail(s);
  }
  return w.n_wrong ? 3 : 0;
}
