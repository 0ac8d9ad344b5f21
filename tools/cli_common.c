/* Shared CLI plumbing (see cli_common.h). */
#include "cli_common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "ir/cost.h"
#include "runtime/cpu/executor.h"
#include "runtime/npy.h"
#include "runtime/tensor_pb.h"
#include "runtime/vk/vk_exec.h"

const char cli_run_opts_help[] =
    "  --input NAME=FILE   bind a graph input to a .npy or ONNX TensorProto .pb file\n"
    "  --output DIR        write one DIR/NAME.npy per graph output\n"
    "  --device N|cpu      Vulkan device index, or the CPU executor (vkrun: .vkir\n"
    "                      runs on the CPU only)\n"
    "  --bench N           time N runs and print latency statistics\n"
    "  --warmup N          untimed runs before --bench (default 2)\n"
    "  --warmup-ms MS      and warm up for at least MS ms (default: GPU 200, CPU 0;\n"
    "                      an idle GPU runs at lower clocks)\n"
    "  --replay            GPU: timed runs re-submit the recorded kernels only (no\n"
    "                      uploads, downloads or CPU steps): kernel times back to back\n"
    "  --wait block|spin|hybrid\n"
    "                      GPU: sleep on the fence (default), poll it (lowest\n"
    "                      latency, a core busy while the GPU runs), or sleep 3/4\n"
    "                      of the last run's time and then poll\n"
    "  --inputs direct|staged\n"
    "                      GPU, all steps on the GPU: write inputs into device-local\n"
    "                      host-visible memory the kernels read, where the device\n"
    "                      has it (default), or into staging copied in by the run\n"
    "  --profile           per-op time table (median over the timed runs): output\n"
    "                      shape, GFLOP/s and GB/s from each op's work and traffic\n"
    "  --peak GFLOPS,GBS   the device's peaks (e.g. from bench/peaks.py): --profile\n"
    "                      adds each op's % of the nearer roof\n"
    "  --json              machine-readable output\n";

/* Length of the valid UTF-8 sequence at p that is not a C1 control
 * (U+0080..U+009F, which some terminals obey), else 0. */
static int utf8_printable(const unsigned char *p) {
  int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
  if (p[0] >= 0xf5) n = 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) return 0;
  if (n == 3 && p[0] == 0xe0 && p[1] < 0xa0) return 0; /* overlong */
  if (n == 4 && p[0] == 0xf0 && p[1] < 0x90) return 0;
  return n;
}

size_t cli_escape(const char *in, char *out, size_t cap, bool one_line) {
  size_t o = 0;
  const unsigned char *p = (const unsigned char *)in;
  while (*p && o + 5 < cap) {
    int n;
    if (*p == '\n' && one_line) {
      if (p[1] && o + 3 < cap) o += (size_t)snprintf(out + o, cap - o, " | ");
      p++;
    } else if (*p == '\r' && one_line) {
      p++;
    } else if (*p >= 0x20 && *p < 0x7f) {
      out[o++] = (char)*p++;
    } else if (*p >= 0x80 && (n = utf8_printable(p)) > 0) {
      if (o + (size_t)n >= cap) break;
      memcpy(out + o, p, (size_t)n);
      o += (size_t)n;
      p += n;
    } else {
      o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p++);
    }
  }
  out[o] = '\0';
  return o;
}

int cli_fail(const char *tool, vkml_status s) {
  /* One line, whatever the message quotes (a shader compiler's output can
   * span several: line breaks become " | "), and no byte a model file put
   * there reaches the terminal as a control character (\xNN instead). */
  const char *m = vkml_status_message(s);
  size_t cap = 4 * strlen(m) + 8;
  char *e = malloc(cap);
  if (e) cli_escape(m, e, cap, true);
  fprintf(stderr, "%s: %s\n", tool, e ? e : "out of memory (printing an error)");
  free(e);
  vkml_status_free(s);
  return 1;
}

static bool parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 0 || v > 1000000) return false;
  *out = (int)v;
  return true;
}

int cli_run_opts_parse(const char *tool, int argc, char **argv, int *i,
                       cli_run_opts *o) {
  const char *a = argv[*i];
  bool takes_value = !strcmp(a, "--input") || !strcmp(a, "--output") ||
                     !strcmp(a, "--device") || !strcmp(a, "--bench") ||
                     !strcmp(a, "--warmup") || !strcmp(a, "--warmup-ms") ||
                     !strcmp(a, "--wait") || !strcmp(a, "--peak") ||
                     !strcmp(a, "--inputs");
  if (!takes_value) {
    if (!strcmp(a, "--profile")) o->profile = true;
    else if (!strcmp(a, "--replay")) o->replay = true;
    else if (!strcmp(a, "--json")) o->json = true;
    else return 0;
    return 1;
  }
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value\n", tool, a);
    return -1;
  }
  const char *v = argv[++*i];
  if (!strcmp(a, "--input")) {
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1]) {
      fprintf(stderr, "%s: --input expects NAME=FILE, got '%s'\n", tool, v);
      return -1;
    }
    if (o->n_inputs == 64) {
      fprintf(stderr, "%s: more than 64 --input options\n", tool);
      return -1;
    }
    size_t len = (size_t)(eq - v);
    for (int k = 0; k < o->n_inputs; k++)
      if (!strncmp(o->input_names[k], v, len) && o->input_names[k][len] == '=') {
        fprintf(stderr, "%s: --input %.*s given twice\n", tool, (int)len, v);
        return -1;
      }
    o->input_names[o->n_inputs] = v; /* NAME ends at '=' */
    o->input_files[o->n_inputs++] = eq + 1;
  } else if (!strcmp(a, "--output")) {
    o->output_dir = v;
  } else if (!strcmp(a, "--device")) {
    o->device = v;
  } else if (!strcmp(a, "--peak")) {
    char *end;
    o->peak_gflops = strtod(v, &end);
    o->peak_gbs = *end == ',' ? strtod(end + 1, &end) : -1;
    if (*end || !(o->peak_gflops >= 0) || !(o->peak_gbs >= 0)) {
      fprintf(stderr, "%s: --peak expects GFLOPS,GBS (e.g. 60000,3000), got '%s'\n", tool, v);
      return -1;
    }
  } else if (!strcmp(a, "--wait")) {
    if (strcmp(v, "block") && strcmp(v, "spin") && strcmp(v, "hybrid")) {
      fprintf(stderr, "%s: --wait expects block, spin or hybrid, got '%s'\n", tool, v);
      return -1;
    }
    o->wait = !strcmp(v, "spin") ? 1 : !strcmp(v, "hybrid") ? 2 : 0;
  } else if (!strcmp(a, "--inputs")) {
    if (strcmp(v, "direct") && strcmp(v, "staged")) {
      fprintf(stderr, "%s: --inputs expects direct or staged, got '%s'\n", tool, v);
      return -1;
    }
    o->staged_inputs = !strcmp(v, "staged");
  } else if (!parse_int(v, !strcmp(a, "--bench")       ? &o->bench
                          : !strcmp(a, "--warmup-ms") ? &o->warmup_ms
                                                      : &o->warmup)) {
    fprintf(stderr, "%s: %s expects a non-negative integer, got '%s'\n", tool, a, v);
    return -1;
  }
  return 1;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

vkml_status cli_tensor_read(const char *path, rt_tensor *out) {
  if (ends_with(path, ".pb")) {
    char *name = NULL;
    vkml_status s = rt_tensor_read_pb(path, out, &name);
    free(name);
    return s;
  }
  if (ends_with(path, ".npy")) return rt_npy_read(path, out);
  memset(out, 0, sizeof *out);
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                          "%s: unknown tensor file type (expected .npy or .pb)", path);
}

void cli_sanitize_name(const char *in, char *out) {
  size_t n = 0;
  bool only_dots = true;
  for (const char *p = in; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out[n++] = ok ? c : '_';
    if (c != '.') only_dots = false;
  }
  out[n] = 0;
  if (n == 0 || only_dots) strcpy(out, "_");
}

static bool name_matches(const char *binding, const char *name) {
  size_t n = (size_t)(strchr(binding, '=') - binding);
  if (binding[0] == '%') { binding++; n--; }
  return strlen(name) == n && !memcmp(binding, name, n);
}

static vkml_status bind_inputs(const ir_graph *g, const cli_run_opts *o,
                               rt_tensor *inputs) {
  for (int b = 0; b < o->n_inputs; b++) {
    bool known = false;
    for (int i = 0; i < g->n_inputs; i++) known |= name_matches(o->input_names[b], g->inputs[i]->name);
    if (!known) {
      int n = (int)(strchr(o->input_names[b], '=') - o->input_names[b]);
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input %.*s: the graph has no input of that name",
                              n, o->input_names[b]);
    }
  }
  for (int i = 0; i < g->n_inputs; i++) {
    const char *file = NULL;
    for (int b = 0; b < o->n_inputs; b++)
      if (name_matches(o->input_names[b], g->inputs[i]->name)) file = o->input_files[b];
    if (!file) {
      char t[128];
      ir_type_format(&g->inputs[i]->type, t, sizeof t);
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "missing --input %s=FILE (%s)", g->inputs[i]->name, t);
    }
    VKML_RETURN_IF_ERROR(cli_tensor_read(file, &inputs[i]));
  }
  return VKML_OK;
}

static void print_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void print_value(FILE *f, const rt_tensor *t, int64_t i) {
  if (ir_dtype_is_float(t->dtype)) {
    double v = rt_load_f(t, i);
    if (isnan(v)) fputs("NaN", f);
    else if (isinf(v)) fputs(v > 0 ? "Infinity" : "-Infinity", f);
    else fprintf(f, "%.9g", v);
  } else if (t->dtype == IR_BOOL) {
    fputs(rt_load_i(t, i) ? "true" : "false", f);
  } else {
    fprintf(f, "%lld", (long long)rt_load_i(t, i));
  }
}

static void print_outputs(const ir_graph *g, const rt_tensor *outs, bool json) {
  if (json) printf("\"outputs\": [");
  for (int o = 0; o < g->n_outputs; o++) {
    const rt_tensor *t = &outs[o];
    int64_t n = rt_tensor_numel(t);
    ir_type ty = rt_tensor_type(t);
    char tbuf[160];
    ir_type_format(&ty, tbuf, sizeof tbuf);
    if (json) {
      printf("%s{\"name\": ", o ? ", " : "");
      print_json_string(stdout, g->outputs[o]->name);
      printf(", \"dtype\": \"%s\", \"shape\": [", ir_dtype_name(t->dtype));
      for (int d = 0; d < t->rank; d++) printf("%s%lld", d ? ", " : "", (long long)t->dims[d]);
      printf("], \"data\": [");
      for (int64_t i = 0; i < n; i++) {
        if (i) printf(", ");
        print_value(stdout, t, i);
      }
      printf("]}");
      continue;
    }
    char name[1024];
    cli_escape(g->outputs[o]->name, name, sizeof name, false);
    printf("%%%s: %s", name, tbuf);
    if (n > 0 && t->dtype != IR_BOOL) {
      double lo = INFINITY, hi = -INFINITY, sum = 0;
      for (int64_t i = 0; i < n; i++) {
        double v = rt_load_f(t, i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
      }
      printf("  min %.6g max %.6g mean %.6g", lo, hi, sum / (double)n);
    }
    printf("\n  [");
    for (int64_t i = 0; i < n && i < 16; i++) {
      if (i) printf(", ");
      print_value(stdout, t, i);
    }
    printf("%s]\n", n > 16 ? ", ..." : "");
  }
  if (json) printf("]");
}

static vkml_status write_outputs(const ir_graph *g, const rt_tensor *outs,
                                 const char *dir) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return vkml_status_make(VKML_CODE_IO, "%s: cannot create directory: %s", dir, strerror(errno));
  /* Encode everything and check file names before writing anything. */
  vkml_status s = VKML_OK;
  int n = g->n_outputs;
  char **paths = calloc((size_t)n + 1, sizeof *paths);
  void **bufs = calloc((size_t)n + 1, sizeof *bufs);
  size_t *sizes = calloc((size_t)n + 1, sizeof *sizes);
  if (!paths || !bufs || !sizes) {
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    goto out;
  }
  for (int o = 0; o < n && !s; o++) {
    const char *name = g->outputs[o]->name;
    size_t len = strlen(dir) + strlen(name) + 8;
    char *clean = malloc(strlen(name) + 2);
    paths[o] = malloc(len);
    if (!clean || !paths[o]) {
      free(clean);
      s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
      break;
    }
    cli_sanitize_name(name, clean);
    snprintf(paths[o], len, "%s/%s.npy", dir, clean);
    free(clean);
    for (int p = 0; p < o && !s; p++)
      if (!strcmp(paths[p], paths[o]) && g->outputs[p] != g->outputs[o])
        s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                             "outputs %%%s and %%%s would both be written to %s",
                             g->outputs[p]->name, name, paths[o]);
    if (!s) s = rt_npy_encode(&outs[o], &bufs[o], &sizes[o]);
  }
  /* all or nothing: a target that cannot be replaced (a directory, ...)
   * fails before anything is written; then every file under a temporary
   * name, renamed when all are written; on a failure the temporaries go */
  for (int o = 0; o < n && !s; o++) {
    struct stat st;
    if (!stat(paths[o], &st) && !S_ISREG(st.st_mode))
      s = vkml_status_make(VKML_CODE_IO, "%s: exists and is not a file", paths[o]);
  }
  char tmp[4096];
  int written = 0;
  for (int o = 0; o < n && !s; o++, written++) {
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", paths[o], (long)getpid());
    s = rt_file_write(tmp, bufs[o], sizes[o]);
    if (s) remove(tmp);
  }
  for (int o = 0; o < written; o++) {
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", paths[o], (long)getpid());
    if (!s && rename(tmp, paths[o]))
      s = vkml_status_make(VKML_CODE_IO, "%s: %s", paths[o], strerror(errno));
    if (s) remove(tmp);
  }
out:
  for (int o = 0; paths && bufs && o < n; o++) {
    free(paths[o]);
    free(bufs[o]);
  }
  free(paths);
  free(bufs);
  free(sizes);
  return s;
}

double cli_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void free_tensors(rt_tensor *t, int n) {
  for (int i = 0; t && i < n; i++) rt_tensor_free(&t[i]);
}

/* What runs the graph: the CPU executor (exec NULL; profile rows are node
 * ids) or a GPU executor (profile rows are plan steps). */
typedef struct runner {
  const ir_graph *g;   /* the graph that runs (GPU: the plan's) */
  double weights_s, exec_s; /* GPU: weight upload; pipelines, buffers, recording */
  bool pcache_warm;         /* GPU: the pipeline cache file had data */
  rt_vk_open_times open;    /* GPU: the context's creation */
  rt_vk_exec *exec;
  const ir_plan *plan; /* GPU: the steps */
  const char *device;  /* "cpu", or the GPU's name */
  int n_rows;
} runner;

static vkml_status run_once(const runner *rn, const rt_tensor *inputs, rt_tensor *outs,
                            double *row_tmp, bool replay) {
  const ir_graph *g = rn->g;
  if (rn->exec && replay) {
    VKML_RETURN_IF_ERROR(rt_vk_exec_replay(rn->exec, row_tmp));
    for (int i = 0; row_tmp && i < rn->n_rows; i++) row_tmp[i] *= 1e-9; /* ns -> s */
    return VKML_OK;
  }
  if (!rn->exec)
    return rt_cpu_run_graph_profiled(g, inputs, g->n_inputs, outs, g->n_outputs, row_tmp);
  VKML_RETURN_IF_ERROR(rt_vk_exec_run(rn->exec, inputs, g->n_inputs, outs, g->n_outputs,
                                      row_tmp));
  for (int i = 0; row_tmp && i < rn->n_rows; i++) row_tmp[i] *= 1e-9; /* ns -> s */
  return VKML_OK;
}

/* Runs the graph `times` times (replay: re-submitting the recorded kernels,
 * keeping the outputs of the last full run); per-run seconds go to secs (if
 * non-NULL) and per-row seconds of run r to row_secs[r * n_rows + i]. */
static vkml_status run_times(const runner *rn, const rt_tensor *inputs, rt_tensor *outs,
                             int times, double *secs, double *row_secs, double *row_tmp,
                             bool replay) {
  for (int r = 0; r < times; r++) {
    if (!replay) free_tensors(outs, rn->g->n_outputs);
    double t0 = cli_now_seconds();
    VKML_RETURN_IF_ERROR(run_once(rn, inputs, outs, row_tmp, replay));
    if (secs) secs[r] = cli_now_seconds() - t0;
    if (row_secs)
      for (int i = 0; i < rn->n_rows; i++) row_secs[(size_t)r * rn->n_rows + i] = row_tmp[i];
  }
  return VKML_OK;
}

/* Warm-up: one full run (the outputs), then more until `runs` runs and
 * `ms` milliseconds have passed; returns the number of runs made. */
static vkml_status warm_up(const runner *rn, const rt_tensor *inputs, rt_tensor *outs, int runs,
                           int ms, bool replay, int *made, double *first_s) {
  double t0 = cli_now_seconds();
  *made = 0;
  VKML_RETURN_IF_ERROR(run_times(rn, inputs, outs, 1, first_s, NULL, NULL, false));
  for (*made = 1; *made < runs || cli_now_seconds() - t0 < 1e-3 * ms; ++*made)
    VKML_RETURN_IF_ERROR(run_times(rn, inputs, outs, 1, NULL, NULL, NULL, replay));
  return VKML_OK;
}

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One profile row: node n, its seconds, and for GPU runs the step (kernel,
 * the reason it is on the CPU, or the direction of a transfer). */
static void profile_row(const runner *rn, const ir_node *n, const ir_plan_step *st, int step,
                        double secs, double total, int runs, const cli_run_opts *o,
                        bool first) {
  bool json = o->json;
  /* a view whose output shares its input's bytes runs no kernel */
  bool no_dispatch = st && st->device == IR_DEVICE_GPU && !rt_vk_exec_step_dispatches(rn->exec, step);
  const char *dev = st && st->transfer ? "copy" : st && st->device == IR_DEVICE_GPU ? "gpu" : "cpu";
  const char *dir = st && st->transfer == IR_TRANSFER_DOWNLOAD ? "device to host" : "host to device";
  char out[256];
  cli_escape(n->n_outputs ? n->outputs[0]->name : "", out, sizeof out, false);
  /* GFLOP/s and GB/s: the node's work and traffic (ir/cost.h) over its time */
  double flops = st && st->transfer ? 0 : ir_node_flops(n), bytes = ir_node_bytes(n);
  if (st && st->transfer) bytes /= 2; /* one tensor crosses once */
  double gflops = flops > 0 && secs > 0 ? flops * runs / secs / 1e9 : -1;
  double gbs = secs > 0 && !no_dispatch ? bytes * runs / secs / 1e9 : -1;
  /* % of the device's peak (--peak): the nearer of the two roofs */
  double pct = -1;
  if (o->peak_gflops > 0 && gflops >= 0) pct = 100 * gflops / o->peak_gflops;
  if (o->peak_gbs > 0 && gbs >= 0 && 100 * gbs / o->peak_gbs > pct) pct = 100 * gbs / o->peak_gbs;
  const ir_type *ot = n->n_outputs ? &n->outputs[0]->type : NULL;
  char shape[64] = "-";
  if (ot) {
    size_t k = 0;
    shape[0] = '\0';
    for (int d = 0; d < ot->rank && k < sizeof shape; d++)
      k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", d ? "x" : "",
                            (long long)ot->dims[d]);
    if (!ot->rank) snprintf(shape, sizeof shape, "scalar");
  }
  if (json) {
    printf("%s{\"op\": \"%s\", \"output\": ", first ? "" : ", ", ir_op_name(n->op));
    print_json_string(stdout, n->n_outputs ? n->outputs[0]->name : "");
    printf(", \"shape\": [");
    for (int d = 0; ot && d < ot->rank; d++) printf("%s%lld", d ? ", " : "", (long long)ot->dims[d]);
    printf("], \"device\": \"%s\", \"ms\": %.6f", dev, 1e3 * secs / runs);
    if (gflops >= 0) printf(", \"gflops\": %.3f", gflops);
    if (gbs >= 0) printf(", \"gbs\": %.3f", gbs);
    if (pct >= 0) printf(", \"pct_of_peak\": %.2f", pct);
    if (st && st->device == IR_DEVICE_GPU) {
      printf(", \"kernel\": ");
      print_json_string(stdout, ir_plan_str(rn->plan, st->tmpl));
      printf(", \"schedule\": ");
      print_json_string(stdout, ir_plan_str(rn->plan, st->schedule));
      if (no_dispatch) printf(", \"dispatch\": false");
    } else if (st && st->transfer) {
      printf(", \"transfer\": \"%s\"", dir);
    } else if (st) {
      printf(", \"reason\": ");
      print_json_string(stdout, ir_plan_str(rn->plan, st->reason));
    }
    printf("}");
    return;
  }
  printf("%-20s %%%-31.31s %-18.18s %-6s %10.4f %6.1f%%", ir_op_name(n->op), out, shape, dev,
         1e3 * secs / runs, total > 0 ? 100 * secs / total : 0.0);
  if (gflops >= 0) printf(" %9.1f", gflops);
  else printf(" %9s", "-");
  if (gbs >= 0) printf(" %8.1f", gbs);
  else printf(" %8s", "-");
  if (o->peak_gflops > 0 || o->peak_gbs > 0) {
    if (pct >= 0) printf(" %6.1f", pct);
    else printf(" %6s", "-");
  }
  if (no_dispatch)
    printf("  no dispatch: shares its input's bytes");
  else if (st && st->device == IR_DEVICE_GPU)
    printf("  %s %s", ir_plan_str(rn->plan, st->tmpl), ir_plan_str(rn->plan, st->schedule));
  else if (st && st->transfer)
    printf("  %s", dir);
  else if (st)
    printf("  %s", ir_plan_str(rn->plan, st->reason));
  printf("\n");
}

static void print_profile(const runner *rn, const double *row_secs, int runs,
                          const cli_run_opts *o) {
  bool json = o->json;
  double total = 0;
  for (int i = 0; i < rn->n_rows; i++) total += row_secs[i];
  if (json) printf("\"profile\": [");
  else printf("%-20s %-32s %-18s %-6s %10s %7s %9s %8s%s%s\n", "op", "output", "shape", "device",
              "ms", "%", "GFLOP/s", "GB/s",
              o->peak_gflops > 0 || o->peak_gbs > 0 ? " %peak" : "",
              rn->exec ? "  kernel / why on the CPU" : "");
  int i = 0;
  const ir_graph *g = rn->g;
  ir_foreach_node(g, n) {
    const ir_plan_step *st = rn->exec ? &rn->plan->steps[i] : NULL;
    profile_row(rn, n, st, i, row_secs[rn->exec ? i : n->id], total, runs, o, i == 0);
    i++;
  }
  if (json) printf("]");
  else printf("%-20s %-32s %-18s %-6s %10.4f\n", "total", "", "", "", 1e3 * total / runs);
}

/* The --stats table: arena bytes per planner next to the lower bound. */
static void print_memory(const cli_memory_stats *m, bool json) {
  if (json) {
    printf("\"memory\": {\"planner\": \"%s\", \"alignment\": %llu, \"lower_bound\": %llu, "
           "\"intermediate_bytes\": {",
           ir_memplan_strategy_name(m->chosen), (unsigned long long)m->alignment,
           (unsigned long long)m->lower_bound);
    for (int i = 0; i < IR_MEMPLAN_COUNT; i++)
      printf("%s\"%s\": %llu", i ? ", " : "", ir_memplan_strategy_name((ir_memplan_strategy)i),
             (unsigned long long)m->bytes[i]);
    printf("}}");
    return;
  }
  printf("memory planner   intermediate bytes   MB        / lower bound   shared objects\n");
  /* naive, greedy, mcfp, best: the enum starts with best */
  for (int k = 0; k < IR_MEMPLAN_COUNT; k++) {
    ir_memplan_strategy i = (ir_memplan_strategy)((k + 1) % IR_MEMPLAN_COUNT);
    char objs[32] = "-";
    if (m->n_objects[i]) snprintf(objs, sizeof objs, "%d", (int)m->n_objects[i]);
    printf("%-6s%-10s %20llu %9.3f   %13.3f   %s\n", ir_memplan_strategy_name(i),
           i == m->chosen ? " (used)" : "", (unsigned long long)m->bytes[i],
           (double)m->bytes[i] / 1e6,
           m->lower_bound ? (double)m->bytes[i] / (double)m->lower_bound : 1.0, objs);
  }
  printf("%-16s %20llu %9.3f   (alignment %llu)\n", "lower bound",
         (unsigned long long)m->lower_bound, (double)m->lower_bound / 1e6,
         (unsigned long long)m->alignment);
}

/* Device memory of the run (--bench): the weights, the intermediates'
 * arena, the other device buffers, host-visible staging; and how the lean
 * path's runs split their time. */
static void print_device_memory(const runner *rn, bool json) {
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(rn->exec, &st);
  uint64_t own = st.device_bytes - (st.weights_shared ? 0 : st.weight_bytes);
  uint64_t other = own - st.arena_bytes;
  double runs = st.n_runs ? (double)st.n_runs : 1;
  if (json) {
    printf("\"device_memory\": {\"weights\": %llu, \"arena\": %llu, \"other\": %llu, "
           "\"staging\": %llu}, \"lean\": %s, \"direct_inputs\": %d",
           (unsigned long long)st.weight_bytes, (unsigned long long)st.arena_bytes,
           (unsigned long long)other, (unsigned long long)st.staging_bytes,
           st.lean ? "true" : "false", st.n_direct_inputs);
    if (st.lean)
      printf(", \"run_split_ms\": {\"host_copy\": %.6f, \"submit_wait\": %.6f}",
             1e-6 * st.host_copy_ns / runs, 1e-6 * st.submit_wait_ns / runs);
    return;
  }
  printf("device memory: weights %.3f MB, intermediates' arena %.3f MB, other buffers %.3f MB; "
         "host-visible staging %.3f MB\n",
         (double)st.weight_bytes / 1e6, (double)st.arena_bytes / 1e6, (double)other / 1e6,
         (double)st.staging_bytes / 1e6);
  if (st.lean)
    printf("each run (mean over all): host copies %.4f ms, submit to fence %.4f ms; one "
           "submission; %d of %d inputs written where the kernels read them\n",
           1e-6 * st.host_copy_ns / runs, 1e-6 * st.submit_wait_ns / runs, st.n_direct_inputs,
           rn->g->n_inputs);
  else
    printf("runs go step by step (%d segments, %d CPU steps, %d transfers)\n", st.n_segments,
           st.n_cpu_steps, st.n_transfer_steps);
}

/* Load to first result (vkrun MODEL.vkm --bench). */
static void print_load(const runner *rn, const cli_load_times *l, double first_s, bool json) {
  double total = l->map_s + l->device_s + rn->weights_s + rn->exec_s + first_s;
  const rt_vk_open_times *d = &rn->open;
  if (json) {
    printf("\"load_ms\": {\"map\": %.3f, \"device\": %.3f, \"weights\": %.3f, "
           "\"pipelines\": %.3f, \"first_run\": %.3f, \"total\": %.3f, "
           "\"pipeline_cache_warm\": %s, \"device_split\": {\"loader\": %.3f, "
           "\"instance\": %.3f, \"device\": %.3f, \"pipeline_cache_file\": %.3f}}",
           1e3 * l->map_s, 1e3 * l->device_s, 1e3 * rn->weights_s, 1e3 * rn->exec_s,
           1e3 * first_s, 1e3 * total, rn->pcache_warm ? "true" : "false", 1e3 * d->loader_s,
           1e3 * d->instance_s, 1e3 * d->device_s, 1e3 * d->pipeline_cache_s);
    return;
  }
  printf("load to first result %.1f ms: map+verify %.1f, device %.1f (loader %.1f, instance "
         "%.1f, device %.1f, pipeline cache file %.1f), weights %.1f, pipelines %.1f "
         "(pipeline cache %s), first run %.1f\n",
         1e3 * total, 1e3 * l->map_s, 1e3 * l->device_s, 1e3 * d->loader_s,
         1e3 * d->instance_s, 1e3 * d->device_s, 1e3 * d->pipeline_cache_s,
         1e3 * rn->weights_s, 1e3 * rn->exec_s, rn->pcache_warm ? "warm" : "cold",
         1e3 * first_s);
}

static vkml_status run_with(const runner *rn, const cli_run_opts *o) {
  const ir_graph *g = rn->g;
  vkml_status s = VKML_OK;
  int nin = g->n_inputs, nout = g->n_outputs, runs = o->bench > 0 ? o->bench : 1;
  rt_tensor *inputs = calloc((size_t)nin + 1, sizeof *inputs);
  rt_tensor *outs = calloc((size_t)nout + 1, sizeof *outs);
  double *secs = calloc((size_t)runs, sizeof *secs);
  double *node_all = calloc((size_t)runs * rn->n_rows + 1, sizeof *node_all);
  double *node_secs = calloc((size_t)rn->n_rows + 1, sizeof *node_secs);
  double *node_tmp = calloc((size_t)(runs > rn->n_rows ? runs : rn->n_rows) + 1, sizeof *node_tmp);
  if (!inputs || !outs || !secs || !node_all || !node_secs || !node_tmp) {
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    goto out;
  }
  if (o->replay && !rn->exec) {
    s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--replay needs a GPU run (--device N)");
    goto out;
  }
  s = bind_inputs(g, o, inputs);
  if (s) goto out;
  int warmup = o->bench > 0 ? (o->warmup >= 0 ? o->warmup : 2) : 0;
  /* drivers may compile pipelines at their first dispatch: keep that out of
   * a GPU profile */
  if (rn->exec && o->profile && o->bench <= 0) warmup = o->warmup >= 0 ? o->warmup : 1;
  int warm_ms = o->warmup_ms >= 0 ? o->warmup_ms : rn->exec ? 200 : 0;
  if (!warmup && !o->replay) warm_ms = 0;
  double first_s = -1;
  if (warmup || o->replay)
    s = warm_up(rn, inputs, outs, warmup, warm_ms, o->replay, &warmup, &first_s);
  if (!s) s = run_times(rn, inputs, outs, runs, secs, o->profile ? node_all : NULL,
                        o->profile ? node_tmp : NULL, o->replay);
  if (s) goto out;
  if (first_s < 0) first_s = secs[0];
  /* the GPU time of each run: its GPU steps' timestamps (with --profile) */
  double gpu_med = -1;
  if (o->profile && rn->exec) {
    for (int r = 0; r < runs; r++) {
      node_tmp[r] = 0;
      for (int i = 0; i < rn->n_rows; i++)
        if (rn->plan->steps[i].device == IR_DEVICE_GPU && !rn->plan->steps[i].transfer)
          node_tmp[r] += node_all[(size_t)r * rn->n_rows + i];
    }
    gpu_med = median_of(node_tmp, runs);
  }
  for (int i = 0; o->profile && i < rn->n_rows; i++) {
    for (int r = 0; r < runs; r++) node_tmp[r] = node_all[(size_t)r * rn->n_rows + i];
    node_secs[i] = median_of(node_tmp, runs);
  }
  if (o->output_dir) {
    s = write_outputs(g, outs, o->output_dir);
    if (s) goto out;
  }
  if (o->json) {
    printf("{\"device\": \"%s\"", rn->exec ? "gpu" : "cpu");
    if (rn->exec) {
      printf(", \"device_name\": ");
      print_json_string(stdout, rn->device);
    }
  }
  if (!o->output_dir) {
    if (o->json) printf(", ");
    print_outputs(g, outs, o->json);
  }
  if (o->bench > 0) {
    qsort(secs, (size_t)runs, sizeof *secs, cmp_double);
    double sum = 0;
    for (int r = 0; r < runs; r++) sum += secs[r];
    double med = runs % 2 ? secs[runs / 2] : 0.5 * (secs[runs / 2 - 1] + secs[runs / 2]);
    double p90 = secs[(runs * 9 + 9) / 10 - 1]; /* the ceil(0.9 runs)-th */
    if (o->json) {
      printf(", \"bench\": {\"runs\": %d, \"warmup\": %d, \"replay\": %s, \"min_ms\": %.6f, "
             "\"median_ms\": %.6f, \"p90_ms\": %.6f, \"mean_ms\": %.6f, \"max_ms\": %.6f",
             runs, warmup, o->replay ? "true" : "false", 1e3 * secs[0], 1e3 * med, 1e3 * p90,
             1e3 * sum / runs, 1e3 * secs[runs - 1]);
      if (gpu_med >= 0) printf(", \"gpu_median_ms\": %.6f", 1e3 * gpu_med);
      printf("}");
    } else {
      printf("bench (%s%s, %d %sruns after %d warm-up): min %.3f ms  median %.3f ms  "
             "p90 %.3f ms  mean %.3f ms  max %.3f ms\n",
             rn->exec ? "gpu: " : "", rn->device, runs, o->replay ? "replayed " : "", warmup,
             1e3 * secs[0], 1e3 * med, 1e3 * p90, 1e3 * sum / runs, 1e3 * secs[runs - 1]);
      if (gpu_med >= 0)
        printf("GPU time (kernels' timestamps, median of the runs): %.3f ms\n", 1e3 * gpu_med);
    }
  }
  if (o->bench > 0 && rn->exec) {
    if (o->json) printf(", ");
    print_device_memory(rn, o->json);
  }
  if (o->bench > 0 && o->load && rn->exec) {
    if (o->json) printf(", ");
    print_load(rn, o->load, first_s, o->json);
  }
  if (o->profile) {
    if (o->json) printf(", ");
    print_profile(rn, node_secs, 1, o);
  }
  if (o->memory) {
    if (o->json) printf(", ");
    print_memory(o->memory, o->json);
  }
  if (o->json) printf("}\n");
out:
  free_tensors(inputs, nin);
  free_tensors(outs, nout);
  free(inputs);
  free(outs);
  free(secs);
  free(node_all);
  free(node_secs);
  free(node_tmp);
  return s;
}

vkml_status cli_run_graph(const ir_graph *g, const cli_run_opts *o) {
  if (o->device && strcmp(o->device, "cpu") != 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "--device %s: .vkir models run on the CPU only here (use "
                            "--device cpu; `vkc run` runs them on a GPU)", o->device);
  runner rn = {.g = g, .device = "cpu", .n_rows = g->n_nodes};
  return run_with(&rn, o);
}

bool cli_device_is_cpu(const cli_run_opts *o) { return o->device && !strcmp(o->device, "cpu"); }

vkml_status cli_vk_context_open(const cli_run_opts *o, rt_vk_context **out) {
  rt_vk_context_opts co = {0};
  *out = NULL;
  if (o->device) {
    int idx;
    if (!parse_int(o->device, &idx))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--device expects a device index or 'cpu', got '%s'", o->device);
    co.select_device = true;
    co.device_index = idx;
  }
  return rt_vk_context_create(&co, out);
}

vkml_status cli_run_graph_gpu(rt_vk_context *ctx, const ir_plan *plan, const cli_run_opts *o) {
  const ir_target *t = rt_vk_context_target(ctx);
  runner rn = {.g = plan->graph, .plan = plan, .device = t->name, .n_rows = plan->n_steps};
  rt_vk_pcache_info pc;
  rt_vk_pcache_info_get(ctx, &pc);
  rn.pcache_warm = pc.loaded_bytes > 0;
  rt_vk_context_open_times(ctx, &rn.open);
  /* a plan for another device is refused before anything goes up */
  ir_plan_needs needs;
  VKML_RETURN_IF_ERROR(ir_plan_needs_get(plan, &needs));
  VKML_RETURN_IF_ERROR(ir_target_check_needs(t, &needs));
  double t0 = cli_now_seconds();
  rt_vk_weights *w = NULL;
  VKML_RETURN_IF_ERROR(rt_vk_weights_create(ctx, plan, 0, &w));
  rn.weights_s = cli_now_seconds() - t0;
  rt_vk_exec_opts xo = {.timestamps = o->profile && t->timestamp_valid_bits, .weights = w,
                        .wait = o->wait == 1   ? RT_VK_WAIT_SPIN
                                : o->wait == 2 ? RT_VK_WAIT_HYBRID
                                               : RT_VK_WAIT_BLOCK,
                        .staged_inputs = o->staged_inputs};
  t0 = cli_now_seconds();
  vkml_status s = rt_vk_exec_create(ctx, plan, &xo, &rn.exec);
  rn.exec_s = cli_now_seconds() - t0;
  if (!s) s = run_with(&rn, o);
  if (!s && o->profile && !xo.timestamps && !o->json)
    printf("(%s has no compute timestamps: GPU steps show 0)\n", t->name);
  rt_vk_exec_destroy(rn.exec);
  rt_vk_weights_destroy(ctx, w);
  return s;
}
