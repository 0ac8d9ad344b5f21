/* Running a graph for vkc and vkrun (cli_common.h cli_run_graph,
 * cli_run_graph_gpu): inputs bound from files, the runs timed, outputs
 * printed or written; the reports are cli_report.c's. */
#include "cli_run.h"

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
      cli_print_json_string(stdout, g->outputs[o]->name);
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

static void free_tensors(rt_tensor *t, int n) {
  for (int i = 0; t && i < n; i++) rt_tensor_free(&t[i]);
}


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
    gpu_med = cli_median_of(node_tmp, runs);
  }
  for (int i = 0; o->profile && i < rn->n_rows; i++) {
    for (int r = 0; r < runs; r++) node_tmp[r] = node_all[(size_t)r * rn->n_rows + i];
    node_secs[i] = cli_median_of(node_tmp, runs);
  }
  if (o->output_dir) {
    s = write_outputs(g, outs, o->output_dir);
    if (s) goto out;
  }
  if (o->json) {
    printf("{\"device\": \"%s\"", rn->exec ? "gpu" : "cpu");
    if (rn->exec) {
      printf(", \"device_name\": ");
      cli_print_json_string(stdout, rn->device);
    }
  }
  if (!o->output_dir) {
    if (o->json) printf(", ");
    print_outputs(g, outs, o->json);
  }
  if (o->bench > 0) {
    cli_sort_doubles(secs, runs);
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
    cli_print_device_memory(rn, o->json);
  }
  if (o->bench > 0 && o->load && rn->exec) {
    if (o->json) printf(", ");
    cli_print_load(rn, o->load, first_s, o->json);
  }
  if (o->profile) {
    if (o->json) printf(", ");
    cli_print_profile(rn, node_secs, 1, o);
  }
  if (o->memory) {
    if (o->json) printf(", ");
    cli_print_memory(o->memory, o->json);
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

vkml_status cli_run_graph_gpu(rt_vk_context *ctx, const ir_plan *plan, const cli_run_opts *o) {
  const ir_target *t = rt_vk_context_target(ctx);
  runner rn = {.g = plan->graph, .plan = plan, .device = t->name, .target = t,
               .n_rows = plan->n_steps};
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
