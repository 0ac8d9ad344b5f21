/* vkrun: run a model and print or write its outputs, with latency statistics
 * and a per-op profile. Links the runtime library only. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "ir/artifact.h"
#include "ir/text.h"
#include "runtime/vk/vk_context.h"
#include "vkml.h"

static const char usage[] =
    "usage: vkrun MODEL [options]\n"
    "Runs MODEL: a .vkm artifact (vkc compile) on the default Vulkan device, or\n"
    "--device N, or the CPU reference kernels with --device cpu; or a .vkir file\n"
    "(with its .bin weights beside it) on the CPU executor.\n"
    "options:\n";

/* A .vkm artifact: its plan on a Vulkan device, or its graph on the CPU
 * reference kernels (--device cpu). */
static int run_artifact(const char *path, const cli_run_opts *opts) {
  ir_plan *plan = NULL;
  cli_run_opts o_load = *opts;
  const cli_run_opts *o = &o_load;
  cli_load_times load;
  o_load.load = &load;
  double t0 = cli_now_seconds();
  vkml_status s = ir_artifact_load_file(path, &plan);
  load.map_s = cli_now_seconds() - t0;
  if (!s && cli_device_is_cpu(o)) {
    s = cli_run_graph(plan->graph, o);
  } else if (!s) {
    rt_vk_context *ctx = NULL;
    t0 = cli_now_seconds();
    s = cli_vk_context_open(o, &ctx);
    load.device_s = cli_now_seconds() - t0;
    if (!s) s = vkml_status_annotate(cli_run_graph_gpu(ctx, plan, o), "%s", path);
    if (ctx) {
      rt_vk_report rep;
      rt_vk_context_destroy(ctx, &rep);
      if (!s && (rep.n_errors || rep.n_leaked))
        s = vkml_status_make(VKML_CODE_DEVICE, "Vulkan validation: %u errors, %d leaked "
                             "objects; first: %s", rep.n_errors, rep.n_leaked, rep.first_message);
    }
  }
  ir_plan_destroy(plan);
  return s ? cli_fail("vkrun", s) : 0;
}

int main(int argc, char **argv) {
  cli_run_opts o = {.warmup = -1, .warmup_ms = -1};
  const char *model = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("%s%s  --version           print the version\n", usage, cli_run_opts_help);
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      printf("vkrun %s\n", vkml_version());
      return 0;
    }
    int r = cli_run_opts_parse("vkrun", argc, argv, &i, &o);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (argv[i][0] == '-' || model) {
      fprintf(stderr, "vkrun: unexpected argument '%s' (see vkrun --help)\n", argv[i]);
      return 2;
    }
    model = argv[i];
  }
  if (!model) {
    fprintf(stderr, "vkrun: no MODEL given (see vkrun --help)\n");
    return 2;
  }
  size_t len = strlen(model);
  if (len >= 4 && !strcmp(model + len - 4, ".vkm")) return run_artifact(model, &o);
  if (len < 5 || strcmp(model + len - 5, ".vkir") != 0) {
    fprintf(stderr, "vkrun: %s: expected a .vkm artifact or a .vkir file\n", model);
    return 2;
  }
  ir_graph *g = NULL;
  vkml_status s = ir_parse_file(model, &g);
  if (!s) s = cli_run_graph(g, &o);
  ir_graph_destroy(g);
  return s ? cli_fail("vkrun", s) : 0;
}
