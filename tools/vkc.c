/* vkc: the compiler driver. Subcommands: check (parse + verify a .vkir and
 * print its canonical text), import (ONNX -> .vkir + .bin), run (load a model,
 * compile it in memory and run it on a Vulkan device or the CPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "codegen/cg_plan.h"
#include "frontend/onnx_import.h"
#include "ir/text.h"
#include "passes/pipeline.h"
#include "passes/plan_memory.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/npy.h"
#include "vkml.h"

static const char usage[] =
    "usage: vkc COMMAND ...\n"
    "commands:\n"
    "  check FILE.vkir                      parse and verify, print the canonical text\n"
    "  import MODEL.onnx -o OUT.vkir        ONNX -> IR text (+ OUT.bin with the weights)\n"
    "        [--input-shape NAME=D,D,...]...\n"
    "  run MODEL [--input-shape ...] [--precision fp32|fp16] [--cpu-ops OP,OP]\n"
    "          [--layout default|nc4hw4] [--dump-after PASS|all]\n"
    "          [--memory-planner naive|greedy|mcfp|best] [--stats] [--no-opt]\n"
    "          [run options]                compile MODEL (.onnx or .vkir) in memory and\n"
    "                                       run it: on the default Vulkan device (or\n"
    "                                       --device N, VKML_DEVICE), or --device cpu\n"
    "      --precision fp32|fp16            f16 tensors inside the graph (default fp32)\n"
    "      --cpu-ops OP,OP                  ops kept on the CPU (IR or ONNX names)\n"
    "      --layout nc4hw4                  packed channels between the GPU kernels\n"
    "                                       that take them (default: as annotated)\n"
    "      --dump-after PASS|all            print the IR text to stderr after that pass\n"
    "                                       of the pass pipeline (or after each; also\n"
    "                                       VKML_DUMP=PASS|all)\n"
    "      --no-opt                         skip the optimizing passes (folding, fusion;\n"
    "                                       fp16 and layout still run): for comparisons\n"
    "      --memory-planner P               how intermediates share the GPU arena: naive,\n"
    "                                       greedy, mcfp (TFLite-GPU's) or best (default)\n"
    "      --stats                          intermediate bytes per memory planner and the\n"
    "                                       lower bound (GPU runs; with --json as JSON)\n"
    "  --version                            print the version\n"
    "run options:\n";

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n > m && !strcmp(path + n - m, ext);
}

/* --input-shape arguments collected for the importer. */
typedef struct shape_args {
  int n;
  char *names[64];
  int ranks[64];
  int64_t dims[64][IR_MAX_RANK];
  const int64_t *dim_ptrs[64];
} shape_args;

static void shape_args_free(shape_args *a) {
  for (int i = 0; i < a->n; i++) free(a->names[i]);
}

/* Consumes --input-shape VALUE; 1 consumed, 0 not ours, -1 bad. */
static int shape_arg_parse(const char *tool, int argc, char **argv, int *i,
                           shape_args *a) {
  if (strcmp(argv[*i], "--input-shape") != 0) return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: --input-shape needs NAME=D,D,...\n", tool);
    return -1;
  }
  if (a->n == 64) {
    fprintf(stderr, "%s: more than 64 --input-shape options\n", tool);
    return -1;
  }
  vkml_status s = onnx_shape_arg_parse(argv[++*i], &a->names[a->n], &a->ranks[a->n],
                                       a->dims[a->n]);
  if (s) {
    fprintf(stderr, "%s: --input-shape: %s\n", tool, vkml_status_message(s));
    vkml_status_free(s);
    return -1;
  }
  a->dim_ptrs[a->n] = a->dims[a->n];
  a->n++;
  return 1;
}

/* Loads .onnx (imported with the shape overrides) or .vkir (verified). */
static vkml_status load_model(const char *path, const shape_args *a, ir_graph **g) {
  if (has_ext(path, ".onnx")) {
    onnx_import_opts o = {0};
    o.n_shapes = a->n;
    o.shape_names = (const char *const *)a->names;
    o.shape_ranks = a->ranks;
    o.shape_dims = a->dim_ptrs;
    return onnx_import_file(path, &o, g);
  }
  if (has_ext(path, ".vkir")) {
    if (a->n)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input-shape applies to .onnx models only");
    return ir_parse_file(path, g);
  }
  *g = NULL;
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                          "%s: expected a .onnx or .vkir model", path);
}

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
  shape_args a = {0};
  const char *model = NULL, *out = NULL;
  int rc = 0;
  for (int i = 0; i < argc; i++) {
    int r = shape_arg_parse("vkc import", argc, argv, &i, &a);
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
  if (!model || !out || !has_ext(out, ".vkir") || !has_ext(model, ".onnx")) {
    fprintf(stderr, "vkc import: usage: vkc import MODEL.onnx -o OUT.vkir [--input-shape NAME=D,...]\n");
    rc = 2;
    goto done;
  }
  ir_graph *g = NULL;
  vkml_status s = load_model(model, &a, &g);
  if (!s) s = write_ir(g, out);
  ir_graph_destroy(g);
  if (s) rc = cli_fail("vkc import", s);
done:
  shape_args_free(&a);
  return rc;
}

/* Compile options of `vkc run`. */
typedef struct compile_args {
  ir_precision precision;
  const char *cpu_ops;
  ir_layout layout;
  const char *dump_after;
  ir_memplan_strategy memory_planner;
  bool stats;
  bool no_opt;
} compile_args;

/* Consumes --precision / --cpu-ops / --layout / --dump-after; 1 consumed, 0
 * not ours, -1 bad. */
static int compile_arg_parse(const char *tool, int argc, char **argv, int *i,
                             compile_args *c) {
  const char *a = argv[*i];
  if (!strcmp(a, "--stats") || !strcmp(a, "--no-opt")) {
    *(a[2] == 's' ? &c->stats : &c->no_opt) = true;
    return 1;
  }
  if (strcmp(a, "--precision") != 0 && strcmp(a, "--cpu-ops") != 0 && strcmp(a, "--layout") != 0 &&
      strcmp(a, "--dump-after") != 0 && strcmp(a, "--memory-planner") != 0)
    return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value\n", tool, a);
    return -1;
  }
  const char *v = argv[++*i];
  if (!strcmp(a, "--cpu-ops")) {
    c->cpu_ops = v;
  } else if (!strcmp(a, "--dump-after")) {
    c->dump_after = v;
  } else if (!strcmp(a, "--memory-planner")) {
    if (!ir_memplan_strategy_from_name(v, &c->memory_planner)) {
      fprintf(stderr, "%s: --memory-planner expects naive, greedy, mcfp or best, got '%s'\n",
              tool, v);
      return -1;
    }
  } else if (!strcmp(a, "--layout")) {
    if (!strcmp(v, "default") || !strcmp(v, "nc4hw4")) {
      c->layout = v[0] == 'n' ? IR_LAYOUT_NC4HW4 : IR_LAYOUT_DEFAULT;
    } else {
      fprintf(stderr, "%s: --layout expects default or nc4hw4, got '%s'\n", tool, v);
      return -1;
    }
  } else if (!strcmp(v, "fp32") || !strcmp(v, "fp16")) {
    c->precision = v[2] == '1' ? IR_PRECISION_FP16 : IR_PRECISION_FP32;
  } else {
    fprintf(stderr, "%s: --precision expects fp32 or fp16, got '%s'\n", tool, v);
    return -1;
  }
  return 1;
}

/* Every planner on the plan's intermediates, for --stats. */
static vkml_status memory_stats(const ir_plan *plan, const ir_graph *g, const ir_target *t,
                                cli_memory_stats *out) {
  out->chosen = plan->mem.strategy;
  for (int i = 0; i < IR_MEMPLAN_COUNT; i++) {
    ir_memplan m;
    VKML_RETURN_IF_ERROR(
        cg_plan_memory(plan, g, t, pass_plan_memory, (ir_memplan_strategy)i, &m));
    out->bytes[i] = m.arena_bytes;
    out->n_objects[i] = m.n_objects;
    out->lower_bound = m.lower_bound;
    out->alignment = m.alignment;
    ir_memplan_free(&m);
  }
  return VKML_OK;
}

/* Compiles g in place (the pass pipeline; on a device also the plan) and
 * runs it on the CPU executor or on a Vulkan device. */
static vkml_status run_model(ir_graph *g, const compile_args *c, const cli_run_opts *o) {
  bool forced[IR_OP_COUNT];
  /* argument errors before opening a device */
  VKML_RETURN_IF_ERROR(cg_cpu_ops_parse(c->cpu_ops, forced));
  if (cli_device_is_cpu(o) && c->stats)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "--stats reports the GPU arena's memory plans; not with --device cpu");
  const char *dump = c->dump_after ? c->dump_after : getenv("VKML_DUMP");
  VKML_RETURN_IF_ERROR(pass_check_dump_name(dump && *dump ? dump : NULL));
  pass_pipeline_opts pp = {
      .pass = {.eval = rt_cpu_eval_node, .precision = c->precision},
      .dump_after = dump && *dump ? dump : NULL,
      .no_optimize = c->no_opt,
  };
  if (cli_device_is_cpu(o)) {
    VKML_RETURN_IF_ERROR(pass_pipeline_run(g, &pp));
    return cli_run_graph(g, o);
  }
  rt_vk_context *ctx = NULL;
  VKML_RETURN_IF_ERROR(cli_vk_context_open(o, &ctx));
  const ir_target *t = rt_vk_context_target(ctx);
  ir_plan *plan = NULL;
  cg_layout_query q;
  vkml_status s = cg_layout_query_init(&q, t, c->cpu_ops);
  pp.pass.layout = c->layout;
  pp.pass.layout_operands = cg_layout_query_operands;
  pp.pass.layout_user = &q;
  cg_plan_opts po = {.precision = c->precision,
                     .cpu_ops = c->cpu_ops,
                     .plan_memory = pass_plan_memory,
                     .memory_planner = c->memory_planner};
  if (!s) s = pass_pipeline_run(g, &pp);
  if (!s) s = cg_plan_build(g, t, &po, &plan);
  cli_memory_stats ms = {0};
  cli_run_opts ro = *o;
  if (!s && c->stats) {
    s = memory_stats(plan, g, t, &ms);
    ro.memory = &ms;
  }
  if (!s) s = cli_run_graph_gpu(g, ctx, plan, &ro);
  ir_plan_destroy(plan);
  const char *w = rt_vk_context_warnings(ctx);
  if (w && *w) fprintf(stderr, "vkc run: warning: %s%s", w, w[strlen(w) - 1] == '\n' ? "" : "\n");
  rt_vk_report rep;
  rt_vk_context_destroy(ctx, &rep);
  if (!s && (rep.n_errors || rep.n_leaked))
    s = vkml_status_make(VKML_CODE_DEVICE, "Vulkan validation: %u errors, %d leaked objects; "
                         "first: %s", rep.n_errors, rep.n_leaked, rep.first_message);
  return s;
}

static int cmd_run(int argc, char **argv) {
  cli_run_opts o = {.warmup = -1, .warmup_ms = -1};
  shape_args a = {0};
  compile_args c = {0};
  const char *model = NULL;
  int rc = 0;
  for (int i = 0; i < argc; i++) {
    int r = cli_run_opts_parse("vkc run", argc, argv, &i, &o);
    if (r == 0) r = shape_arg_parse("vkc run", argc, argv, &i, &a);
    if (r == 0) r = compile_arg_parse("vkc run", argc, argv, &i, &c);
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
  vkml_status s = load_model(model, &a, &g);
  if (!s) s = run_model(g, &c, &o);
  ir_graph_destroy(g);
  if (s) rc = cli_fail("vkc run", s);
done:
  shape_args_free(&a);
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
  if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
  if (!strcmp(argv[1], "import")) return cmd_import(argc - 2, argv + 2);
  if (!strcmp(argv[1], "run")) return cmd_run(argc - 2, argv + 2);
  fprintf(stderr, "vkc: unknown command '%s' (see vkc --help)\n", argv[1]);
  return 2;
}
