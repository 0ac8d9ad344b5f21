/* vkrun: run a model and print or write its outputs, with latency statistics
 * and a per-op profile. Links the runtime library only. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "ir/text.h"
#include "vkml.h"

static const char usage[] =
    "usage: vkrun MODEL [options]\n"
    "Runs MODEL: a .vkir file (with its .bin weights beside it) on the CPU\n"
    "executor. GPU runs need a .vkm artifact (not supported by this version yet);\n"
    "`vkc run MODEL --device N` compiles and runs a model on a GPU meanwhile.\n"
    "options:\n";

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
  if (len < 5 || strcmp(model + len - 5, ".vkir") != 0) {
    fprintf(stderr, "vkrun: %s: expected a .vkir file (.vkm artifacts are not "
                    "supported by this version)\n", model);
    return 1;
  }
  ir_graph *g = NULL;
  vkml_status s = ir_parse_file(model, &g);
  if (!s) s = cli_run_graph(g, &o);
  ir_graph_destroy(g);
  return s ? cli_fail("vkrun", s) : 0;
}
