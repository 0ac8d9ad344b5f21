/* vktune: tunes a model's GPU kernels on one device into a schedule
 * database (tuner/tuner_tune.h): every distinct workload searched by
 * simulated annealing, every trial measured with GPU timestamps, checked
 * against the CPU reference and committed as it finishes, so a killed run
 * resumes where it stopped. `vkc run MODEL --db FILE` then runs with the
 * tuned schedules. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_compile.h"
#include "driver/driver.h"
#include "tunedb/tunedb.h"
#include "tuner/tuner_lock.h"
#include "tuner/tuner_tune.h"
#include "vkml.h"

#define TOOL "vktune"

static const char usage[] =
    "usage: vktune MODEL --db FILE [options]\n"
    "  MODEL                  .onnx or .vkir\n"
    "  --db FILE              the schedule database (created when missing)\n"
    "  --budget-trials N      points tried per workload (default 32)\n"
    "  --budget-seconds S     wall-clock budget for the whole model (instead of\n"
    "                         trials): each workload's default is timed first,\n"
    "                         then half the budget is shared evenly, half by\n"
    "                         nodes x default time\n"
    "  --seed N               the search's seed (default 1)\n"
    "  --ops OP,OP            tune only these ops' workloads (IR or ONNX names,\n"
    "                         e.g. conv2d,gemm,matmul; default: every op)\n"
    "  --search sa|exhaustive simulated annealing (default), or every valid point\n"
    "                         of each space (budgets ignored: for comparisons)\n"
    "  --device N             Vulkan device index (default: VKML_DEVICE, else the best)\n"
    "  --runs R               timed replays per trial (default 25)\n"
    "  --chain C              dispatches in a row per replay, timed in their\n"
    "                         steady state (default 16, 2 on a CPU device;\n"
    "                         1: one per submission)\n"
    "  --flush-mb M           MiB zeroed before each timed dispatch, which then\n"
    "                         starts from cold caches (default 128, none on a\n"
    "                         CPU device; 0: none)\n"
    "  --compile-threads N    host threads compiling points before they are\n"
    "                         measured (default 0: each trial compiles its own)\n"
    "  --precision fp32|fp16  tune the kernels of the fp16 graph\n"
    "  --cpu-ops OP,OP        ops kept on the CPU (as vkc run)\n"
    "  --input-shape NAME=D,D,...   (.onnx)\n"
    "  --json                 the final table as JSON on stdout\n"
    "  -o OUT.vkm             after tuning, write the artifact with the tuned\n"
    "                         schedules (as vkc compile MODEL --db FILE)\n"
    "  --no-wait              fail when another vktune is tuning on the device\n"
    "                         (default: wait for it, saying so on stderr)\n"
    "One vktune measures on a device at a time (a lock file per device in\n"
    "$XDG_RUNTIME_DIR/vkml, else in the cache directory): kernels timed beside\n"
    "another tuner's are slowed down by it. Everything else is checked before\n"
    "the database is created or opened. An option other than --input-shape given\n"
    "twice is a usage error.\n"
    "Progress goes to stderr: a bar on a terminal, a line per workload otherwise.\n"
    "Identical workloads of the model are tuned once. Run the model with the\n"
    "tuned schedules: vkrun OUT.vkm, or vkc run MODEL --db FILE.\n";

typedef struct args {
  const char *model, *db, *out;
  int64_t trials;
  double seconds;
  uint64_t seed;
  const char *device, *ops;
  bool exhaustive;
  int runs, chain, flush_mb;
  int compile_threads; /* tuner_tune_opts' */
  bool json, no_wait;
  cli_shape_args shapes;
  cli_compile_args compile;
} args;

static bool parse_num(const char *s, double lo, double hi, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (!*s || *end || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

/* The options that take one value: given twice, which one counts would be
 * a guess (--input-shape, one per input, may repeat). */
static const char *const single_opts[] = {
    "-o",     "--db",   "--seed",  "--budget-trials", "--budget-seconds", "--device",
    "--precision", "--search", "--runs", "--chain", "--flush-mb", "--compile-threads",
    "--ops",  "--cpu-ops",
};
#define N_SINGLE_OPTS ((int)(sizeof single_opts / sizeof single_opts[0]))

/* 0 ok, 2 usage error (printed). */
static int parse_args(int argc, char **argv, args *a) {
  bool seen[N_SINGLE_OPTS] = {0};
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    for (int k = 0; k < N_SINGLE_OPTS; k++) {
      if (strcmp(s, single_opts[k])) continue;
      if (seen[k]) {
        fprintf(stderr, "%s: %s given twice\n", TOOL, s);
        return 2;
      }
      seen[k] = true;
    }
    int r = cli_shape_arg_parse(TOOL, argc, argv, &i, &a->shapes);
    if (r == 0 && (!strcmp(s, "--precision") || !strcmp(s, "--cpu-ops")))
      r = cli_compile_arg_parse(TOOL, argc, argv, &i, &a->compile);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (!strcmp(s, "--json") || !strcmp(s, "--no-wait")) {
      *(s[2] == 'j' ? &a->json : &a->no_wait) = true;
      continue;
    }
    if (!strcmp(s, "-o")) {
      if (i + 1 >= argc || !cli_has_ext(argv[i + 1], ".vkm")) {
        fprintf(stderr, "%s: -o needs OUT.vkm (the artifact's name ends in .vkm)\n", TOOL);
        return 2;
      }
      a->out = argv[++i];
      continue;
    }
    bool takes = !strcmp(s, "--db") || !strcmp(s, "--budget-trials") ||
                 !strcmp(s, "--budget-seconds") || !strcmp(s, "--seed") ||
                 !strcmp(s, "--device") || !strcmp(s, "--runs") || !strcmp(s, "--chain") ||
                 !strcmp(s, "--flush-mb") || !strcmp(s, "--ops") ||
                 !strcmp(s, "--compile-threads") ||
                 !strcmp(s, "--search");
    if (takes && i + 1 >= argc) {
      fprintf(stderr, "%s: %s needs a value\n", TOOL, s);
      return 2;
    }
    double v;
    if (!strcmp(s, "--db")) {
      a->db = argv[++i];
    } else if (!strcmp(s, "--device")) {
      a->device = argv[++i];
    } else if (!strcmp(s, "--ops")) {
      a->ops = argv[++i];
    } else if (!strcmp(s, "--search")) {
      const char *how = argv[++i];
      if (strcmp(how, "sa") && strcmp(how, "exhaustive")) {
        fprintf(stderr, "%s: --search expects sa or exhaustive, got '%s'\n", TOOL, how);
        return 2;
      }
      a->exhaustive = how[0] == 'e';
    } else if (!strcmp(s, "--flush-mb")) {
      if (!parse_num(argv[++i], 0, 65536, &v) || v != floor(v)) {
        fprintf(stderr, "%s: --flush-mb expects a whole number of MiB, got '%s'\n", TOOL, argv[i]);
        return 2;
      }
      a->flush_mb = v ? (int)v : -1;
    } else if (!strcmp(s, "--compile-threads")) {
      if (!parse_num(argv[++i], 0, TUNER_PRECOMPILE_MAX_THREADS, &v) || v != floor(v)) {
        fprintf(stderr, "%s: --compile-threads expects a whole number from 0 to %d, got '%s'\n",
                TOOL, TUNER_PRECOMPILE_MAX_THREADS, argv[i]);
        return 2;
      }
      a->compile_threads = (int)v;
    } else if (!strcmp(s, "--budget-trials") || !strcmp(s, "--seed") || !strcmp(s, "--runs") ||
               !strcmp(s, "--chain")) {
      const char *val = argv[++i];
      double hi = s[2] == 'r' || s[2] == 'c' ? 100000 : 1e15;
      if (!parse_num(val, s[2] == 's' ? 0 : 1, hi, &v) || v != floor(v)) {
        fprintf(stderr, "%s: %s expects a whole number, got '%s'\n", TOOL, s, val);
        return 2;
      }
      if (s[2] == 'b') a->trials = (int64_t)v;
      else if (s[2] == 's') a->seed = (uint64_t)v;
      else if (s[2] == 'c') a->chain = (int)v;
      else a->runs = (int)v;
    } else if (!strcmp(s, "--budget-seconds")) {
      if (!parse_num(argv[++i], 0.001, 1e9, &a->seconds)) {
        fprintf(stderr, "%s: --budget-seconds expects a positive number, got '%s'\n", TOOL,
                argv[i]);
        return 2;
      }
    } else if (s[0] != '-' && !a->model) {
      a->model = s;
    } else {
      fprintf(stderr, "%s: unexpected argument '%s' (see vktune --help)\n", TOOL, s);
      return 2;
    }
  }
  if (!a->model || !a->db) {
    fprintf(stderr, "%s: %s (see vktune --help)\n", TOOL,
            !a->model ? "no MODEL given" : "--db FILE is required");
    return 2;
  }
  if (a->trials && a->seconds) {
    fprintf(stderr, "%s: --budget-trials and --budget-seconds exclude each other\n", TOOL);
    return 2;
  }
  return 0;
}

/* ---- progress ----------------------------------------------------------------- */

typedef struct progress {
  bool tty;
  double budget_s;   /* --budget-seconds; 0: none */
  int last_workload; /* plain mode: the workload whose line is due */
  tuner_progress last; /* its w is not kept valid: op and n_nodes are */
} progress;

static void fmt_eta(double s, char *buf, size_t n) {
  if (s < 0) snprintf(buf, n, "--:--");
  else snprintf(buf, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

static double speedup(double dflt, double best) {
  return isfinite(dflt) && isfinite(best) && best > 0 && dflt > 0 ? dflt / best : NAN;
}

/* ns as microseconds with 2 decimals, or "-" when unknown: never nan/inf */
static const char *fmt_us(double ns, char *buf, size_t n) {
  if (isfinite(ns) && ns > 0) snprintf(buf, n, "%.2f", ns / 1e3);
  else snprintf(buf, n, "-");
  return buf;
}

/* "1.23x", or "-" when unknown */
static const char *fmt_speedup(double sp, char *buf, size_t n) {
  if (isfinite(sp) && sp > 0) snprintf(buf, n, "%.2fx", sp);
  else snprintf(buf, n, "-");
  return buf;
}

static void workload_line(const progress *pr, const tuner_progress *p) {
  char d[32], b[32], sp[32], t[64] = "";
  /* under a time budget the run's progress is its time */
  if (pr->budget_s > 0) snprintf(t, sizeof t, ", %.1f of %g s", p->elapsed_s, pr->budget_s);
  fprintf(stderr, "%s: [%d/%d] %s x%d: %lld trials, default %s us, best %s us (%s)%s\n", TOOL,
          p->workload + 1, p->n_workloads, p->op, p->n_nodes, (long long)p->trial,
          fmt_us(p->default_ns, d, sizeof d), fmt_us(p->best_ns, b, sizeof b),
          fmt_speedup(speedup(p->default_ns, p->best_ns), sp, sizeof sp), t);
}

static void on_progress(void *user, const tuner_progress *p) {
  progress *pr = user;
  if (!pr->tty) {
    /* a line when a workload is done: the previous one, now a new one starts */
    if (p->workload != pr->last_workload && pr->last.op) workload_line(pr, &pr->last);
    pr->last_workload = p->workload;
    pr->last = *p;
    return;
  }
  char eta[32];
  fmt_eta(p->eta_s, eta, sizeof eta);
  /* the workload's trials, or under a time budget the whole run's time */
  double done = p->max_trials > 0 ? (double)p->trial / (double)p->max_trials
                : pr->budget_s > 0 ? p->elapsed_s / pr->budget_s
                                   : 0;
  int width = 20, filled = (int)(width * fmin(fmax(done, 0), 1));
  char bar[32];
  for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
  bar[width] = 0;
  char sp[32];
  /* measured: trials timed (and stored) now; from db: found stored before */
  fprintf(stderr, "\r[%d/%d] %-14.14s [%s] %lld trials  best %s  measured %lld  from db %lld  "
          "ETA %s ",
          p->workload + 1, p->n_workloads, p->op, bar, (long long)p->trial,
          fmt_speedup(speedup(p->default_ns, p->best_ns), sp, sizeof sp), (long long)p->measured,
          (long long)p->stored, eta);
  pr->last = *p;
}

/* ---- the final table ------------------------------------------------------------ */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static void json_ns(FILE *f, double ns) {
  if (isfinite(ns)) fprintf(f, "%.1f", ns);
  else fprintf(f, "null");
}

/* Geometric mean of the speedups (the walk's, or the confirmed ones),
 * weighted by node count. */
static double geomean(const tuner_result *r, bool confirmed) {
  double lsum = 0;
  int n = 0;
  for (int i = 0; i < r->n; i++) {
    double s = confirmed ? r->rows[i].confirmed_speedup
                         : speedup(r->rows[i].default_ns, r->rows[i].tuned_ns);
    if (isnan(s)) continue;
    lsum += r->rows[i].n_nodes * log(s);
    n += r->rows[i].n_nodes;
  }
  return n ? exp(lsum / n) : NAN;
}

static void print_json(const tuner_result *r, const char *db) {
  printf("{\"device\":");
  json_str(stdout, r->device_key);
  printf(",\"db\":");
  json_str(stdout, db);
  printf(",\"seconds\":%.3f,\"measured\":%lld,\"stored\":%lld,\"geomean_speedup\":", r->seconds,
         (long long)r->measured, (long long)r->stored);
  for (int c = 0; c < 2; c++) {
    double g = geomean(r, c);
    if (c) printf(",\"geomean_confirmed_speedup\":");
    if (isnan(g)) printf("null");
    else printf("%.4f", g);
  }
  printf(",\"workloads\":[");
  for (int i = 0; i < r->n; i++) {
    const tuner_result_row *w = &r->rows[i];
    printf("%s{\"key\":", i ? "," : "");
    json_str(stdout, w->key);
    printf(",\"op\":");
    json_str(stdout, w->op);
    printf(",\"nodes\":%d,\"default_ns\":", w->n_nodes);
    json_ns(stdout, w->default_ns);
    printf(",\"tuned_ns\":");
    json_ns(stdout, w->tuned_ns);
    printf(",\"confirmed_speedup\":");
    if (isnan(w->confirmed_speedup)) printf("null");
    else printf("%.4f", w->confirmed_speedup);
    printf(",\"trials\":%lld,\"measured\":%lld,\"stored\":%lld,\"template\":", (long long)w->trials,
           (long long)w->measured, (long long)w->stored);
    json_str(stdout, w->best_template);
    printf(",\"schedule\":");
    json_str(stdout, w->best_schedule);
    printf(",\"seeded_from\":");
    if (w->seeded != TUNEDB_NEAR_NONE) json_str(stdout, w->seeded_from);
    else printf("null");
    printf("}");
  }
  printf("]}\n");
}

static void print_table(const tuner_result *r) {
  printf("%-4s %-18s %5s %12s %12s %8s %9s %7s  %s\n", "#", "op", "nodes", "default_us",
         "tuned_us", "speedup", "confirmed", "trials", "best schedule");
  for (int i = 0; i < r->n; i++) {
    const tuner_result_row *w = &r->rows[i];
    /* n/a: no working point, or the confirming measurement failed */
    char sp[16] = "n/a", conf[16] = "n/a", d[32], t[32];
    double s = speedup(w->default_ns, w->tuned_ns);
    if (!isnan(s)) snprintf(sp, sizeof sp, "%.2fx", s);
    if (!isnan(w->confirmed_speedup)) snprintf(conf, sizeof conf, "%.2fx", w->confirmed_speedup);
    printf("%-4d %-18s %5d %12s %12s %8s %9s %7lld  %s %s%s%s%s\n", i + 1, w->op, w->n_nodes,
           fmt_us(w->default_ns, d, sizeof d), fmt_us(w->tuned_ns, t, sizeof t), sp, conf,
           (long long)w->trials,
           w->best_template, w->best_schedule, w->seeded ? "  (started from " : "",
           w->seeded ? w->seeded_from : "", w->seeded ? ")" : "");
  }
  char g[32], gc[32];
  printf("device %s: %d workloads, %lld trials measured, %lld found in the database, %.1f s; "
         "geometric-mean speedup %s, confirmed %s (weighted by nodes)\n",
         r->device_key, r->n, (long long)r->measured, (long long)r->stored, r->seconds,
         fmt_speedup(geomean(r, false), g, sizeof g), fmt_speedup(geomean(r, true), gc, sizeof gc));
}

/* ---- main --------------------------------------------------------------------------- */

static void on_lock_wait(void *user, long pid) {
  const rt_vk_context *ctx = user;
  char name[300], who[48] = "";
  cli_escape(rt_vk_context_target(ctx)->name, name, sizeof name, true);
  if (pid) snprintf(who, sizeof who, " (pid %ld)", pid);
  fprintf(stderr, "%s: waiting for another vktune on device %d, %s%s\n", TOOL,
          rt_vk_context_device_index(ctx), name, who);
}

/* The device's tuning lock (tuner_lock.h): one vktune measures on it. */
static vkml_status lock_device(rt_vk_context *ctx, bool no_wait, tuner_lock **out) {
  tunedb_device dev;
  char key[TUNEDB_DEVICE_KEY_BYTES];
  drv_device_from_target(rt_vk_context_target(ctx), &dev, NULL, 0);
  tunedb_device_key(&dev, key);
  tuner_lock_opts lo = {.no_wait = no_wait, .on_wait = on_lock_wait, .user = ctx};
  vkml_status s = tuner_lock_acquire(key, rt_vk_context_device_index(ctx), &lo, out);
  if (vkml_status_code(s) != VKML_CODE_IO) return s;
  /* no lock file can be made (a read-only home): the lock guards the
   * numbers, it need not stop the run */
  char msg[600];
  cli_escape(vkml_status_message(s), msg, sizeof msg, true);
  fprintf(stderr, "%s: tuning without the device lock: %s\n", TOOL, msg);
  vkml_status_free(s);
  return VKML_OK;
}

static vkml_status tune(const args *a, tuner_result *res) {
  ir_graph *g = NULL;
  tunedb *db = NULL;
  rt_vk_context *ctx = NULL;
  tuner_lock *lock = NULL;
  if (a->device && !strcmp(a->device, "cpu"))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vktune tunes GPU kernels: --device cpu "
                                                        "has nothing to tune");
  /* everything that can be refused is, before the database is created or
   * opened: a failed vktune leaves no file behind */
  bool only[IR_OP_COUNT], cpu_ops[IR_OP_COUNT];
  bool filter = a->ops && *a->ops;
  drv_opts d;
  vkml_status s = filter ? drv_op_list_parse(a->ops, "--ops", only) : VKML_OK;
  if (!s) s = cli_drv_opts(&a->compile, cpu_ops, &d);
  cli_drv_shapes(&a->shapes, &d);
  char tool[64];
  snprintf(tool, sizeof tool, "vktune %s", vkml_version());
  d.tool = tool;
  if (!s && a->out) s = cli_out_path_check(a->out);
  drv_source src = {.path = a->model};
  if (!s) s = drv_import(&src, &d, &g);
  if (!s) s = cli_vk_context_open(a->device, &ctx);
  const ir_target *t = ctx ? rt_vk_context_target(ctx) : NULL;
  if (!s) s = drv_passes(g, t, &d);
  if (!s) s = lock_device(ctx, a->no_wait, &lock);
  tunedb_open_opts dbo = {.flags = TUNEDB_OPEN_CREATE};
  if (!s) s = tunedb_open(a->db, &dbo, &db);
  progress pr = {.tty = isatty(STDERR_FILENO), .budget_s = a->seconds, .last_workload = -1};
  tuner_tune_opts o = {
      .budget_trials = a->trials,
      .budget_seconds = a->seconds,
      .seed = a->seed,
      .ops = filter ? only : NULL,
      .exhaustive = a->exhaustive,
      .bench = {.runs = a->runs,
                .chain = a->chain,
                .flush_mb = a->flush_mb,
                .precision = a->compile.precision},
      .compile_threads = a->compile_threads,
      .tool_version = vkml_version(),
      .progress = on_progress,
      .progress_user = &pr,
  };
  if (!s) s = tuner_tune_graph(ctx, g, db, &o, res);
  tuner_lock_release(lock); /* measuring is done */
  if (pr.tty && pr.last.op) fprintf(stderr, "\n");
  else if (pr.last.op) workload_line(&pr, &pr.last);
  tunedb_close(db); /* -o reads what was just tuned, as vkc compile --db would */
  if (!s && a->out) {
    /* the plan vkc compile --db would make, written to a->out */
    d.db = a->db;
    ir_plan *plan = NULL;
    s = drv_plan(&g, t, &d, NULL, &plan);
    if (!s) s = drv_artifact_write(plan, t, &d, a->out);
    ir_plan_destroy(plan);
  }
  if (ctx) {
    rt_vk_report rep;
    rt_vk_context_destroy(ctx, &rep);
    if (!s && (rep.n_errors || rep.n_leaked))
      s = vkml_status_make(VKML_CODE_DEVICE, "Vulkan validation: %u errors, %d leaked objects; "
                           "first: %s", rep.n_errors, rep.n_leaked, rep.first_message);
  }
  ir_graph_destroy(g);
  return s;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "--version")) {
    printf("vktune %s\n", vkml_version());
    return 0;
  }
  args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (!rc) {
    tuner_result res = {0};
    vkml_status s = tune(&a, &res);
    if (s) {
      rc = cli_fail(TOOL, s);
    } else {
      if (a.json) print_json(&res, a.db);
      else print_table(&res);
      if (!res.n && a.ops && *a.ops)
        fprintf(stderr, "%s: no workload of these ops to tune (--ops %s)\n", TOOL, a.ops);
      else if (!res.n)
        fprintf(stderr, "%s: no GPU kernel of the model has a schedule to choose\n", TOOL);
    }
    tuner_result_free(&res);
  }
  cli_shape_args_free(&a.shapes);
  return rc;
}
