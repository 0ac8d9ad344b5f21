/* vkc: the compiler driver. Subcommands: check (parse + verify a .vkir and
 * print its canonical text), import (ONNX -> .vkir + .bin), run (load a model,
 * compile it in memory and run it on a Vulkan device or the CPU), compile
 * (the same compile, written as a .vkm artifact for vkrun). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_compile.h"
#include "driver/driver.h"
#include "ir/file.h"
#include "ir/text.h"
#include "runtime/npy.h"
#include "runtime/vkml_api_internal.h"
#include "vkml.h"

static const char usage[] =
    "usage: vkc COMMAND ...\n"
    "commands:\n"
    "  check FILE.vkir                      parse and verify, print the canonical text\n"
    "  import MODEL.onnx -o OUT.vkir        ONNX -> IR text (+ OUT.bin with the weights)\n"
    "        [--input-shape NAME=D,D,...]...\n"
    "  run MODEL [--input-shape ...] [--precision fp32|fp16] [--cpu-ops OP,OP]\n"
    "          [--layout auto|default|nc4hw4|nhwc] [--dump-after PASS|all]\n"
    "          [--memory-planner naive|greedy|mcfp|best] [--stats] [--no-opt]\n"
    "          [--db FILE] [--fallback auto|never] [--winograd auto|off|f2|f4]\n"
    "          [--split-k auto|off|2|4|8|16] [--attention auto|off|all]\n"
    "          [run options]                compile MODEL (.onnx or .vkir) in memory and\n"
    "                                       run it: on the default Vulkan device (or\n"
    "                                       --device N, VKML_DEVICE), or --device cpu\n"
    "      --precision fp32|fp16            f16 tensors inside the graph (default fp32)\n"
    "      --cpu-ops OP,OP                  ops kept on the CPU (IR or ONNX names)\n"
    "      --fallback never                 fail, listing each node and why, when a node\n"
    "                                       cannot run on the GPU (default auto: it runs\n"
    "                                       on the CPU, with explicit transfers)\n"
    "      --winograd f2|f4                 every 3x3 stride-1 fp32 conv on constant\n"
    "                                       weights by Winograd's F(2x2,3x3) or F(4x4,3x3)\n"
    "                                       (conv2d_winograd); off: none; default auto:\n"
    "                                       the large ones, on a GPU (pass_winograd.c)\n"
    "      --split-k off|N                  keep every conv and GEMM whole, or split each\n"
    "                                       whose k allows it in N parts (default auto:\n"
    "                                       fp16 convs and fp32/fp16 GEMMs of long k and\n"
    "                                       few outputs split across workgroups on a GPU,\n"
    "                                       pass_split_k.c, pass_split_k_gemm.c)\n"
    "      --attention off                  keep attention's products and softmax as\n"
    "                                       they are (default auto: one attention kernel\n"
    "                                       on a GPU, reading the heads where the\n"
    "                                       projection wrote them, pass_fuse_attention.c,\n"
    "                                       pass_attention_views.c); all: in fp16 on\n"
    "                                       tensor cores too at 128 keys and more, where\n"
    "                                       auto keeps the batched matmuls\n"
    "      --layout nc4hw4|nhwc|default     nc4hw4 / nhwc: packed channels between the\n"
    "                                       GPU kernels that take them (nhwc: channels\n"
    "                                       last for the fp16 tensor-core convs);\n"
    "                                       default: as annotated; auto (the default):\n"
    "                                       nhwc in the regions of tensor-core convs\n"
    "                                       where it pays (pass_layout.c)\n"
    "      --dump-after PASS|all            print the IR text to stderr after that pass\n"
    "                                       of the pass pipeline (or after each; also\n"
    "                                       VKML_DUMP=PASS|all)\n"
    "      --no-opt                         skip the optimizing passes (folding, fusion;\n"
    "                                       fp16 and layout still run): for comparisons\n"
    "      --memory-planner P               how intermediates share the GPU arena: naive,\n"
    "                                       greedy, mcfp (TFLite-GPU's) or best (default)\n"
    "      --db FILE                        each GPU kernel's schedule from this schedule\n"
    "                                       database (vktune): this device's best, else\n"
    "                                       the nearest device's, else the default\n"
    "      --stats                          intermediate bytes per memory planner and the\n"
    "                                       lower bound (GPU runs; with --json as JSON)\n"
    "  compile MODEL -o OUT.vkm [--device N] [--input-shape ...] [--precision fp32|fp16]\n"
    "          [--cpu-ops OP,OP] [--layout auto|default|nc4hw4|nhwc] [--memory-planner P] [--db FILE]\n"
    "          [--fallback auto|never] [--winograd auto|off|f2|f4]\n"
    "          [--split-k auto|off|N] [--attention auto|off|all] [--dump-after PASS|all] [--no-opt]\n"
    "          [--input NAME=FILE]...\n"
    "                                       compile MODEL as vkc run would for the device\n"
    "                                       (default Vulkan device, --device N) and write\n"
    "                                       the .vkm artifact vkrun runs; --input: the\n"
    "                                       file's shape fixes NAME's symbolic dimensions\n"
    "  --version                            print the version\n"
    "run options:\n";

/* Whether path holds an ONNX model, not IR text: its name, or the byte a
 * ModelProto starts with (0x08: field 1, ir_version), which IR text never
 * does. */
static bool looks_like_onnx(const char *path) {
  if (cli_has_ext(path, ".onnx")) return true;
  FILE *f = NULL;
  vkml_status s = ir_file_fopen(path, &f); /* a FIFO or device: refused, not read */
  vkml_status_free(s);
  if (!f) return false;
  int c = fgetc(f);
  fclose(f);
  return c == 0x08;
}

static int cmd_check(int argc, char **argv) {
  if (argc != 1 || argv[0][0] == '-') {
    fprintf(stderr, "vkc check: expects exactly one FILE.vkir\n");
    return 2;
  }
  ir_graph *g = NULL;
  vkml_status s = ir_parse_file(argv[0], &g);
  if (s && looks_like_onnx(argv[0])) {
    vkml_status_free(s);
    /* vkc import's suggested name: MODEL.onnx -> MODEL.vkir (the ONNX
     * commands take a name ending in .onnx only) */
    const char *p = argv[0];
    if (cli_has_ext(p, ".onnx"))
      s = vkml_status_make(VKML_CODE_PARSE, "%s: an ONNX model, not IR text; vkc import %s -o "
                           "%.*s.vkir converts it (or vkc run / vkc compile take it directly)",
                           p, p, (int)strlen(p) - 5, p);
    else
      s = vkml_status_make(VKML_CODE_PARSE, "%s: looks like an ONNX model, not IR text; named "
                           "MODEL.onnx, vkc import MODEL.onnx -o MODEL.vkir converts it (or vkc "
                           "run / vkc compile take it directly)", p);
  }
  char *text = NULL;
  size_t len = 0;
  if (!s) s = ir_print(g, &text, &len);
  if (!s && fwrite(text, 1, len, stdout) != len)
    s = vkml_status_make(VKML_CODE_IO, "<stdout>: write failed");
  free(text);
  ir_graph_destroy(g);
  return s ? cli_fail("vkc check", s) : 0;
}

/* Writes OUT.vkir and, when constants live in the blob, OUT.bin; on failure
 * neither is left behind. */
static vkml_status write_ir(const ir_graph *g, const char *out) {
  char *text = NULL;
  size_t len = 0;
  VKML_RETURN_IF_ERROR(ir_print(g, &text, &len));
  size_t n = strlen(out);
  char *bin = malloc(n + 5);
  vkml_status s = VKML_OK;
  if (!bin) {
    free(text);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  }
  memcpy(bin, out, n - 5); /* out ends in ".vkir" */
  strcpy(bin + n - 5, ".bin");
  bool need_blob = false;
  ir_foreach_value(g, v) need_blob |= v->storage == IR_CONST_BLOB;
  if (need_blob) s = rt_file_write(bin, g->blob, (size_t)g->blob_bytes);
  if (!s) {
    s = rt_file_write(out, text, len);
    if (s && need_blob) remove(bin);
  }
  free(bin);
  free(text);
  return s;
}

static int cmd_import(int argc, char **argv) {
  cli_shape_args a = {0};
  const char *model = NULL, *out = NULL;
  int rc = 0;
  for (int i = 0; i < argc; i++) {
    int r = cli_shape_arg_parse("vkc import", argc, argv, &i, &a);
    if (r < 0) {
      rc = 2;
      goto done;
    }
    if (r > 0) continue;
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (argv[i][0] != '-' && !model) {
      model = argv[i];
    } else {
      fprintf(stderr, "vkc import: unexpected argument '%s'\n", argv[i]);
      rc = 2;
      goto done;
    }
  }
  if (!model || !out || !cli_has_ext(out, ".vkir") || !cli_has_ext(model, ".onnx")) {
    fprintf(stderr, "vkc import: usage: vkc import MODEL.onnx -o OUT.vkir [--input-shape NAME=D,...]\n");
    rc = 2;
    goto done;
  }
  ir_graph *g = NULL;
  vkml_status s = cli_load_model(model, &a, &g);
  if (!s) s = write_ir(g, out);
  ir_graph_destroy(g);
  if (s) rc = cli_fail("vkc import", s);
done:
  cli_shape_args_free(&a);
  return rc;
}

/* Intermediate bytes per memory planner (--stats), printed after the
 * run's results. */
typedef struct memory_stats {
  drv_memory_stats d;
  ir_memplan_strategy chosen; /* the one the run uses */
} memory_stats;

/* The --stats table: arena bytes per planner next to the lower bound. */
static void print_memory(void *user, bool json) {
  const memory_stats *ms = user;
  const drv_memory_stats *m = &ms->d;
  if (json) {
    printf("\"memory\": {\"planner\": \"%s\", \"alignment\": %llu, \"lower_bound\": %llu, "
           "\"intermediate_bytes\": {",
           ir_memplan_strategy_name(ms->chosen), (unsigned long long)m->alignment,
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
           i == ms->chosen ? " (used)" : "", (unsigned long long)m->bytes[i],
           (double)m->bytes[i] / 1e6,
           m->lower_bound ? (double)m->bytes[i] / (double)m->lower_bound : 1.0, objs);
  }
  printf("%-16s %20llu %9.3f   (alignment %llu)\n", "lower bound",
         (unsigned long long)m->lower_bound, (double)m->lower_bound / 1e6,
         (unsigned long long)m->alignment);
}

/* With --db, where the plan's schedules came from, on stderr. */
static void report_db(const char *tool, const cli_compile_args *c, const drv_report *r) {
  if (c->db)
    fprintf(stderr, "%s: schedules from %s: %d tuned on this device, %d from the nearest "
            "device, %d default\n", tool, c->db, r->n_exact, r->n_nearest, r->n_default);
}

/* Compiles *gp in place (the pass pipeline; on a device also the plan,
 * which then owns the graph) and runs it through the C API, as vkrun runs
 * an artifact: on the CPU reference kernels or on the Vulkan device it was
 * compiled for. *gp becomes NULL when the model took it. */
static vkml_status run_model(ir_graph **gp, const cli_compile_args *c, const cli_run_opts *o) {
  bool cpu_ops[IR_OP_COUNT];
  drv_opts d;
  /* argument errors before opening a device */
  VKML_RETURN_IF_ERROR(cli_drv_opts(c, cpu_ops, &d));
  if (cli_device_is_cpu(o) && c->stats)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "--stats reports the GPU arena's memory plans; not with --device cpu");
  if (cli_device_is_cpu(o) && c->fallback_never)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "--fallback never requires every node on the GPU; not with --device cpu");
  vkml_model *m = NULL;
  if (cli_device_is_cpu(o)) {
    if (c->db)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--db chooses GPU kernels; not with --device cpu");
    VKML_RETURN_IF_ERROR(drv_passes(*gp, NULL, &d));
    VKML_RETURN_IF_ERROR(rt_api_model_from_graph(*gp, &m));
    *gp = NULL;
    vkml_status s = cli_run_model(m, o);
    vkml_model_free(m);
    return s;
  }
  /* compiled for the device's target; the instance opens the device again */
  rt_vk_context *ctx = NULL;
  VKML_RETURN_IF_ERROR(cli_vk_context_open(o->device, &ctx));
  const ir_target *t = rt_vk_context_target(ctx);
  ir_plan *plan = NULL;
  drv_report sched;
  vkml_status s = drv_compile_graph(gp, t, &d, &sched, &plan);
  if (!s) report_db("vkc run", c, &sched);
  memory_stats ms = {.chosen = plan ? plan->mem.strategy : IR_MEMPLAN_BEST};
  cli_run_opts ro = *o;
  if (!s && c->stats) {
    s = drv_memory_stats_get(plan, t, &ms.d);
    ro.extra = print_memory;
    ro.extra_user = &ms;
  }
  const char *w = rt_vk_context_warnings(ctx);
  if (w && *w) fprintf(stderr, "vkc run: warning: %s%s", w, w[strlen(w) - 1] == '\n' ? "" : "\n");
  rt_vk_report rep;
  rt_vk_context_destroy(ctx, &rep);
  if (!s && (rep.n_errors || rep.n_leaked))
    s = vkml_status_make(VKML_CODE_DEVICE, "Vulkan validation: %u errors, %d leaked objects; "
                         "first: %s", rep.n_errors, rep.n_leaked, rep.first_message);
  if (s) {
    ir_plan_destroy(plan);
    return s;
  }
  VKML_RETURN_IF_ERROR(rt_api_model_from_plan(plan, &m));
  s = cli_run_model(m, &ro);
  vkml_model_free(m);
  return s;
}

static int cmd_run(int argc, char **argv) {
  cli_run_opts o;
  cli_run_opts_init(&o, "vkc run");
  cli_shape_args a = {0};
  cli_compile_args c = {0};
  const char *model = NULL;
  int rc = 0;
  for (int i = 0; i < argc; i++) {
    int r = cli_run_opts_parse("vkc run", argc, argv, &i, &o);
    if (r == 0) r = cli_shape_arg_parse("vkc run", argc, argv, &i, &a);
    if (r == 0) r = cli_compile_arg_parse("vkc run", argc, argv, &i, &c);
    if (r < 0) {
      rc = 2;
      goto done;
    }
    if (r > 0) continue;
    if (argv[i][0] == '-' || model) {
      fprintf(stderr, "vkc run: unexpected argument '%s'\n", argv[i]);
      rc = 2;
      goto done;
    }
    model = argv[i];
  }
  if (!model) {
    fprintf(stderr, "vkc run: no MODEL given\n");
    rc = 2;
    goto done;
  }
  ir_graph *g = NULL;
  vkml_status s = cli_shapes_from_inputs(model, o.n_inputs, o.input_names, o.input_files, &a);
  if (!s) s = cli_load_model(model, &a, &g);
  if (!s) s = run_model(&g, &c, &o);
  ir_graph_destroy(g);
  if (s) rc = cli_fail("vkc run", s);
done:
  cli_shape_args_free(&a);
  return rc;
}

/* vkc compile MODEL -o OUT.vkm [compile options] [--device N]: the plan
 * vkc run would run, for the device it would run on, as an artifact. */
static int cmd_compile(int argc, char **argv) {
  cli_run_opts o; /* --device and --input (shapes) */
  cli_run_opts_init(&o, "vkc compile");
  cli_shape_args a = {0};
  cli_compile_args c = {0};
  const char *model = NULL, *out = NULL;
  int rc = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--device")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "vkc compile: %s needs a value\n", argv[i]);
        rc = 2;
        goto done;
      }
      if (argv[i][1] == 'o') out = argv[++i];
      else o.device = argv[++i];
      continue;
    }
    int r = !strcmp(argv[i], "--input") ? cli_run_opts_parse("vkc compile", argc, argv, &i, &o)
                                        : 0;
    if (r == 0) r = cli_shape_arg_parse("vkc compile", argc, argv, &i, &a);
    if (r == 0) r = cli_compile_arg_parse("vkc compile", argc, argv, &i, &c);
    if (r < 0) {
      rc = 2;
      goto done;
    }
    if (r > 0) continue;
    if (argv[i][0] == '-' || model) {
      fprintf(stderr, "vkc compile: unexpected argument '%s' (see vkc --help)\n", argv[i]);
      rc = 2;
      goto done;
    }
    model = argv[i];
  }
  if (!model || !out) {
    fprintf(stderr, "vkc compile: %s (see vkc --help)\n",
            !model ? "no MODEL given" : "no -o OUT.vkm given");
    rc = 2;
    goto done;
  }
  if (!cli_has_ext(out, ".vkm")) {
    fprintf(stderr, "vkc compile: -o %s: the artifact's name ends in .vkm\n", out);
    rc = 2;
    goto done;
  }
  if (cli_device_is_cpu(&o) || c.stats) {
    fprintf(stderr, "vkc compile: %s\n",
            c.stats ? "--stats is vkc run's" : "artifacts are compiled for a Vulkan device");
    rc = 2;
    goto done;
  }
  bool cpu_ops[IR_OP_COUNT];
  drv_opts d;
  vkml_status s = cli_drv_opts(&c, cpu_ops, &d);
  if (!s) s = cli_shapes_from_inputs(model, o.n_inputs, o.input_names, o.input_files, &a);
  cli_drv_shapes(&a, &d);
  char tool[64];
  snprintf(tool, sizeof tool, "vkc %s", vkml_version());
  d.tool = tool;
  rt_vk_context *ctx = NULL;
  if (!s) s = cli_vk_context_open(o.device, &ctx);
  drv_source src = {.path = model};
  drv_report rep;
  if (!s) s = drv_compile(&src, rt_vk_context_target(ctx), &d, out, &rep, NULL);
  if (!s) report_db("vkc compile", &c, &rep);
  if (ctx) rt_vk_context_destroy(ctx, NULL);
  if (s) rc = cli_fail("vkc compile", s);
done:
  cli_shape_args_free(&a);
  return rc;
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
  /* vkc COMMAND --help: the usage (every command's options are there) */
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (strcmp(argv[1], "check") && strcmp(argv[1], "import") && strcmp(argv[1], "run") &&
          strcmp(argv[1], "compile"))
        break;
      printf("%s%s", usage, cli_run_opts_help);
      return 0;
    }
  if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
  if (!strcmp(argv[1], "import")) return cmd_import(argc - 2, argv + 2);
  if (!strcmp(argv[1], "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(argv[1], "compile")) return cmd_compile(argc - 2, argv + 2);
  fprintf(stderr, "vkc: unknown command '%s' (see vkc --help)\n", argv[1]);
  return 2;
}
