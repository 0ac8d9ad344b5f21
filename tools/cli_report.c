/* The reports of a run (cli_run.h): --profile's per-op table with each
 * op's GFLOP/s, GB/s and share of the roof, the device memory and the load
 * times of --bench. */
#include "cli_run.h"
#include "cli_peaks.h"

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


static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void cli_sort_doubles(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_double); }

double cli_median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The roofs of one row: --peak's, else the device's measured peaks (a
 * cooperative-matrix kernel's multiply-add rate for its accumulator, the
 * FMA rate of the step's output type otherwise, the copy bandwidth); GPU
 * steps only. */
typedef struct roofs {
  double gflops, gbs;
} roofs;

static roofs roofs_of(const runner *rn, const ir_node *n, const ir_plan_step *st,
                      const cli_run_opts *o, const cli_peaks *pk) {
  if (o->peak_gflops > 0 || o->peak_gbs > 0) return (roofs){o->peak_gflops, o->peak_gbs};
  if (!pk || !st || st->device != IR_DEVICE_GPU || st->transfer) return (roofs){0, 0};
  const char *tmpl = ir_plan_str(rn->plan, st->tmpl);
  double f;
  if (strstr(tmpl, "coopmat"))
    f = strstr(ir_plan_str(rn->plan, st->schedule), "ACC=16") ? pk->coopmat_f16_gflops
                                                              : pk->coopmat_f32_gflops;
  else if (n->n_outputs && n->outputs[0]->type.dtype == IR_F16 && pk->fma_f16_gflops > 0)
    f = pk->fma_f16_gflops;
  else
    f = pk->fma_f32_gflops;
  return (roofs){f, pk->copy_gbs};
}

/* One profile row: node n, its seconds, and for GPU runs the step (kernel,
 * the reason it is on the CPU, or the direction of a transfer). */
static void profile_row(const runner *rn, const ir_node *n, const ir_plan_step *st, int step,
                        double secs, double total, int runs, const cli_run_opts *o,
                        const cli_peaks *pk, bool first) {
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
  /* % of the device's roof: the nearer of the two */
  roofs rf = roofs_of(rn, n, st, o, pk);
  double pct = -1;
  if (rf.gflops > 0 && gflops >= 0) pct = 100 * gflops / rf.gflops;
  if (rf.gbs > 0 && gbs >= 0 && 100 * gbs / rf.gbs > pct) pct = 100 * gbs / rf.gbs;
  bool roof_column = o->peak_gflops > 0 || o->peak_gbs > 0 || pk;
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
    cli_print_json_string(stdout, n->n_outputs ? n->outputs[0]->name : "");
    printf(", \"shape\": [");
    for (int d = 0; ot && d < ot->rank; d++) printf("%s%lld", d ? ", " : "", (long long)ot->dims[d]);
    printf("], \"device\": \"%s\", \"ms\": %.6f", dev, 1e3 * secs / runs);
    if (gflops >= 0) printf(", \"gflops\": %.3f", gflops);
    if (gbs >= 0) printf(", \"gbs\": %.3f", gbs);
    if (pct >= 0) printf(", \"pct_of_roof\": %.2f", pct);
    if (st && st->device == IR_DEVICE_GPU) {
      printf(", \"kernel\": ");
      cli_print_json_string(stdout, ir_plan_str(rn->plan, st->tmpl));
      printf(", \"schedule\": ");
      cli_print_json_string(stdout, ir_plan_str(rn->plan, st->schedule));
      if (no_dispatch) printf(", \"dispatch\": false");
    } else if (st && st->transfer) {
      printf(", \"transfer\": \"%s\"", dir);
    } else if (st) {
      printf(", \"reason\": ");
      cli_print_json_string(stdout, ir_plan_str(rn->plan, st->reason));
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
  if (roof_column) {
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

void cli_print_profile(const runner *rn, const double *row_secs, int runs,
                          const cli_run_opts *o) {
  bool json = o->json;
  /* the device's measured peaks (vkml-peaks), unless --peak gives roofs */
  cli_peaks peaks, *pk = NULL;
  if (rn->target && !(o->peak_gflops > 0 || o->peak_gbs > 0)) {
    char *path = cli_peaks_path(rn->target);
    vkml_status s = path ? cli_peaks_read(path, &peaks) : VKML_OK;
    if (path && !s) pk = &peaks;
    if (s && vkml_status_code(s) != VKML_CODE_IO)
      fprintf(stderr, "warning: %s (no roofs)\n", vkml_status_message(s));
    vkml_status_free(s);
    free(path);
  }
  double total = 0;
  for (int i = 0; i < rn->n_rows; i++) total += row_secs[i];
  if (json) printf("\"profile\": [");
  else printf("%-20s %-32s %-18s %-6s %10s %7s %9s %8s%s%s\n", "op", "output", "shape", "device",
              "ms", "%", "GFLOP/s", "GB/s",
              o->peak_gflops > 0 || o->peak_gbs > 0 || pk ? "  %roof" : "",
              rn->exec ? "  kernel / why on the CPU" : "");
  int i = 0;
  const ir_graph *g = rn->g;
  ir_foreach_node(g, n) {
    const ir_plan_step *st = rn->exec ? &rn->plan->steps[i] : NULL;
    profile_row(rn, n, st, i, row_secs[rn->exec ? i : n->id], total, runs, o, pk, i == 0);
    i++;
  }
  if (json) printf("]");
  else printf("%-20s %-32s %-18s %-6s %10.4f\n", "total", "", "", "", 1e3 * total / runs);
}

/* The --stats table: arena bytes per planner next to the lower bound. */
void cli_print_memory(const cli_memory_stats *m, bool json) {
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
void cli_print_device_memory(const runner *rn, bool json) {
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
void cli_print_load(const runner *rn, const cli_load_times *l, double first_s, bool json) {
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
