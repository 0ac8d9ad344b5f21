/* The reports of a run (cli_run.h): --profile's per-step table with each
 * step's GFLOP/s, GB/s and share of its roof, the device memory and the
 * load times of --bench. The public C API only: the roofs come from the
 * device's peaks file through vkml_instance_profile. */
#include "cli_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void cli_sort_doubles(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_double); }

double cli_median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One profile row: step i (st) and how it ran, p, its median seconds; GPU
 * steps end with the driver's statistics of their kernel where it gave
 * some (vkml_instance_kernel_stats). */
static void profile_row(const runner *rn, int i, const vkml_step *st, const vkml_step_profile *p,
                        double secs, double total, const cli_run_opts *o, bool roof_column,
                        bool first) {
  bool json = o->json, gpu_step = !strcmp(p->device, "gpu"), copy = !strcmp(p->device, "copy");
  /* a view whose output shares its input's bytes runs no kernel */
  bool no_dispatch = gpu_step && !p->dispatched;
  char out[256];
  cli_escape(st->output, out, sizeof out, false);
  /* GFLOP/s and GB/s: the step's work and traffic over its time */
  double gflops = st->flops > 0 && secs > 0 ? st->flops / secs / 1e9 : -1;
  double gbs = secs > 0 && !no_dispatch ? st->bytes / secs / 1e9 : -1;
  /* % of the roof: --peak's for every step, else the device's for a GPU
   * step; the nearer of the two */
  double rf = p->roof_gflops, rb = p->roof_gbs;
  if (o->peak_gflops > 0 || o->peak_gbs > 0) {
    rf = o->peak_gflops;
    rb = o->peak_gbs;
  }
  double pct = -1;
  if (rf > 0 && gflops >= 0) pct = 100 * gflops / rf;
  if (rb > 0 && gbs >= 0 && 100 * gbs / rb > pct) pct = 100 * gbs / rb;
  char shape[64] = "-";
  if (st->rank || st->output[0]) {
    size_t k = 0;
    shape[0] = '\0';
    for (int d = 0; d < st->rank && k < sizeof shape; d++)
      k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", d ? "x" : "",
                            (long long)st->dims[d]);
    if (!st->rank) snprintf(shape, sizeof shape, "scalar");
  }
  if (json) {
    printf("%s{\"op\": \"%s\", \"output\": ", first ? "" : ", ", st->op);
    cli_print_json_string(stdout, st->output);
    printf(", \"shape\": [");
    for (int d = 0; d < st->rank; d++) printf("%s%lld", d ? ", " : "", (long long)st->dims[d]);
    printf("], \"device\": \"%s\", \"ms\": %.6f", p->device, 1e3 * secs);
    if (gflops >= 0) printf(", \"gflops\": %.3f", gflops);
    if (gbs >= 0) printf(", \"gbs\": %.3f", gbs);
    if (pct >= 0) printf(", \"pct_of_roof\": %.2f", pct);
    if (gpu_step) {
      printf(", \"kernel\": ");
      cli_print_json_string(stdout, st->kernel);
      printf(", \"schedule\": ");
      cli_print_json_string(stdout, st->schedule);
      if (no_dispatch) printf(", \"dispatch\": false");
      const char *ks = vkml_instance_kernel_stats(rn->inst, i);
      if (ks[0]) {
        printf(", \"kernel_stats\": ");
        cli_print_json_string(stdout, ks);
      }
    } else if (copy) {
      printf(", \"transfer\": \"%s\"", st->note);
    } else if (rn->gpu) {
      printf(", \"reason\": ");
      cli_print_json_string(stdout, st->note);
    }
    printf("}");
    return;
  }
  printf("%-20s %%%-31.31s %-18.18s %-6s %10.4f %6.1f%%", st->op, out, shape, p->device,
         1e3 * secs, total > 0 ? 100 * secs / total : 0.0);
  if (gflops >= 0) printf(" %9.1f", gflops);
  else printf(" %9s", "-");
  if (gbs >= 0) printf(" %8.1f", gbs);
  else printf(" %8s", "-");
  if (roof_column) {
    if (pct >= 0) printf(" %6.1f", pct);
    else printf(" %6s", "-");
  }
  if (no_dispatch) {
    printf("  no dispatch: shares its input's bytes");
  } else if (gpu_step) {
    const char *ks = vkml_instance_kernel_stats(rn->inst, i);
    printf("  %s %s", st->kernel, st->schedule);
    if (ks[0]) printf("  [%s]", ks);
  } else if (rn->gpu) {
    char note[512];
    cli_escape(st->note, note, sizeof note, true);
    printf("  %s", note);
  }
  printf("\n");
}

void cli_print_profile(const runner *rn, const double *row_secs, const cli_run_opts *o) {
  bool json = o->json, peak = o->peak_gflops > 0 || o->peak_gbs > 0;
  /* the device's measured peaks (vkml-peaks), unless --peak gives roofs */
  bool have_peaks = false;
  if (rn->gpu && !peak) {
    const char *path;
    vkml_status s = vkml_instance_peaks(rn->inst, &path);
    have_peaks = !s;
    if (s && vkml_status_code(s) != VKML_CODE_IO)
      fprintf(stderr, "warning: %s (no roofs)\n", vkml_status_message(s));
    vkml_status_free(s);
  }
  double total = 0;
  for (int i = 0; i < rn->n_steps; i++) total += row_secs[i];
  if (json) printf("\"profile\": [");
  else printf("%-20s %-32s %-18s %-6s %10s %7s %9s %8s%s%s\n", "op", "output", "shape", "device",
              "ms", "%", "GFLOP/s", "GB/s", peak || have_peaks ? "  %roof" : "",
              rn->gpu ? "  kernel / why on the CPU" : "");
  for (int i = 0; i < rn->n_steps; i++) {
    vkml_step st;
    vkml_step_profile p;
    vkml_status s = vkml_model_step(rn->m, i, &st);
    if (!s) s = vkml_instance_profile(rn->inst, i, &p);
    if (s) { /* i is in range and the instance has run: cannot happen */
      vkml_status_free(s);
      continue;
    }
    profile_row(rn, i, &st, &p, row_secs[i], total, o, peak || have_peaks, i == 0);
  }
  if (json) printf("]");
  else printf("%-20s %-32s %-18s %-6s %10.4f\n", "total", "", "", "", 1e3 * total);
}

/* Device memory of the run (--bench): the weights, the intermediates'
 * arena, the other device buffers, host-visible staging; and how the lean
 * path's runs split their time. */
void cli_print_device_memory(const runner *rn, bool json) {
  vkml_memory mem;
  vkml_run_stats st;
  vkml_status s = vkml_instance_memory(rn->inst, &mem);
  if (!s) s = vkml_instance_stats(rn->inst, &st);
  if (s) { /* the instance is valid: cannot happen */
    vkml_status_free(s);
    return;
  }
  uint64_t other = mem.instance_bytes - mem.arena_bytes;
  double runs = st.runs ? (double)st.runs : 1;
  if (json) {
    printf("\"device_memory\": {\"weights\": %llu, \"arena\": %llu, \"other\": %llu, "
           "\"staging\": %llu}, \"lean\": %s, \"direct_inputs\": %d",
           (unsigned long long)mem.weights_bytes, (unsigned long long)mem.arena_bytes,
           (unsigned long long)other, (unsigned long long)mem.staging_bytes,
           mem.lean ? "true" : "false", st.n_direct_inputs);
    if (mem.lean)
      printf(", \"run_split_ms\": {\"host_copy\": %.6f, \"submit_wait\": %.6f}",
             1e3 * st.host_copy_seconds / runs, 1e3 * st.submit_wait_seconds / runs);
    return;
  }
  printf("device memory: weights %.3f MB, intermediates' arena %.3f MB, other buffers %.3f MB; "
         "host-visible staging %.3f MB\n",
         (double)mem.weights_bytes / 1e6, (double)mem.arena_bytes / 1e6, (double)other / 1e6,
         (double)mem.staging_bytes / 1e6);
  if (mem.lean)
    printf("each run (mean over all): host copies %.4f ms, submit to fence %.4f ms; one "
           "submission; %d of %d inputs written where the kernels read them\n",
           1e3 * st.host_copy_seconds / runs, 1e3 * st.submit_wait_seconds / runs,
           st.n_direct_inputs, vkml_model_input_count(rn->m));
  else
    printf("runs go step by step (%d segments, %d CPU steps, %d transfers)\n", st.n_segments,
           st.n_cpu_steps, st.n_transfer_steps);
}

/* Load to first result (vkrun MODEL.vkm --bench). */
void cli_print_load(const runner *rn, double load_s, double first_s, bool json) {
  vkml_load_times l;
  vkml_status s = vkml_instance_load_times(rn->inst, &l);
  if (s) { /* the instance is valid: cannot happen */
    vkml_status_free(s);
    return;
  }
  double total = load_s + l.device + l.weights + l.pipelines + first_s;
  if (json) {
    printf("\"load_ms\": {\"map\": %.3f, \"device\": %.3f, \"weights\": %.3f, "
           "\"pipelines\": %.3f, \"first_run\": %.3f, \"total\": %.3f, "
           "\"weights_in_place\": %s, \"pipeline_cache_warm\": %s, \"device_split\": {\"loader\": %.3f, "
           "\"instance\": %.3f, \"device\": %.3f, \"pipeline_cache_file\": %.3f}}",
           1e3 * load_s, 1e3 * l.device, 1e3 * l.weights, 1e3 * l.pipelines, 1e3 * first_s,
           1e3 * total, l.weights_in_place ? "true" : "false",
           l.pipeline_cache_warm ? "true" : "false", 1e3 * l.loader,
           1e3 * l.vk_instance, 1e3 * l.vk_device, 1e3 * l.pipeline_cache_file);
    return;
  }
  printf("load to first result %.1f ms: map+verify %.1f, device %.1f (loader %.1f, instance "
         "%.1f, device %.1f, pipeline cache file %.1f), weights %.1f (%s), pipelines %.1f "
         "(pipeline cache %s), first run %.1f\n",
         1e3 * total, 1e3 * load_s, 1e3 * l.device, 1e3 * l.loader, 1e3 * l.vk_instance,
         1e3 * l.vk_device, 1e3 * l.pipeline_cache_file, 1e3 * l.weights,
         l.weights_in_place ? "in place" : "staged", 1e3 * l.pipelines,
         l.pipeline_cache_warm ? "warm" : "cold", 1e3 * first_s);
}
