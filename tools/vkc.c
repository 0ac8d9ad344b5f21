/* vkc: the compiler driver. Subcommands: check (parse + verify a .vkir and
 * print its canonical text), run (load and run in memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "ir/text.h"
#include "vkml.h"

static const char usage[] =
    "usage: vkc COMMAND ...\n"
    "commands:\n"
    "  check FILE.vkir          parse and verify, print the canonical text\n"
    "  run MODEL [options]      load MODEL (.vkir) and run it\n"
    "  --version                print the version\n"
    "run options:\n";

static int cmd_check(int argc, char **argv) {
  if (argc != 1 || argv[0][0] == '-') {
    fprintf(stderr, "vkc check: expects exactly one FILE.vkir\n");
    return 2;
  }
  ir_graph *g = NULL;
  vkml_status s = ir_parse_file(argv[0], &g);
  char *text = NULL;
  size_t len = 0;
  if (!s) s = ir_print(g, &text, &len);
  if (!s && fwrite(text, 1, len, stdout) != len)
    s = vkml_status_make(VKML_CODE_IO, "<stdout>: write failed");
  free(text);
  ir_graph_destroy(g);
  return s ? cli_fail("vkc check", s) : 0;
}

static int cmd_run(int argc, char **argv) {
  cli_run_opts o = {.warmup = -1};
  const char *model = NULL;
  for (int i = 0; i < argc; i++) {
    int r = cli_run_opts_parse("vkc run", argc, argv, &i, &o);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (argv[i][0] == '-' || model) {
      fprintf(stderr, "vkc run: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
    model = argv[i];
  }
  if (!model) {
    fprintf(stderr, "vkc run: no MODEL given\n");
    return 2;
  }
  ir_graph *g = NULL;
  vkml_status s = ir_parse_file(model, &g);
  if (!s) s = cli_run_graph(g, &o);
  ir_graph_destroy(g);
  return s ? cli_fail("vkc run", s) : 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    printf("%s%s", usage, cli_run_opts_help);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("vkc %s\n", vkml_version());
    return 0;
  }
  if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
  if (!strcmp(argv[1], "run")) return cmd_run(argc - 2, argv + 2);
  fprintf(stderr, "vkc: unknown command '%s' (see vkc --help)\n", argv[1]);
  return 2;
}
