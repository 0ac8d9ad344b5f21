/* Model loading and compile options shared by vkc and vktune
 * (cli_compile.h). */
#include "cli_compile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/core/plan.h"
#include "frontend/onnx_import.h"
#include "ir/text.h"
#include "ir/util.h"
#include "passes/pipeline.h"
#include "runtime/cpu/cpu_kernels.h"

bool cli_has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n > m && !strcmp(path + n - m, ext);
}

vkml_status cli_out_path_check(const char *path) {
  struct stat st;
  if (!stat(path, &st) && S_ISDIR(st.st_mode))
    return vkml_status_make(VKML_CODE_IO, "%s: is a directory", path);
  /* its directory: what precedes the last '/', "/" or "." */
  const char *slash = strrchr(path, '/');
  size_t n = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
  char *dir = malloc(n + 1);
  if (!dir) return ir_oom(NULL);
  memcpy(dir, slash ? path : ".", n);
  dir[n] = 0;
  vkml_status s = VKML_OK;
  if (stat(dir, &st))
    s = vkml_status_make(VKML_CODE_IO, "%s: cannot write it: %s: %s", path, dir,
                         errno == ENOENT ? "no such directory" : strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    s = vkml_status_make(VKML_CODE_IO, "%s: cannot write it: %s is not a directory", path, dir);
  else if (access(dir, W_OK | X_OK))
    s = vkml_status_make(VKML_CODE_IO, "%s: cannot write into %s: %s", path, dir,
                         strerror(errno));
  free(dir);
  return s;
}

vkml_status cli_artifact_write(const ir_plan *plan, const ir_artifact_meta *m, const char *path) {
  uint8_t *d;
  size_t n;
  VKML_RETURN_IF_ERROR(ir_artifact_encode(plan, m, &d, &n));
  size_t len = strlen(path) + 32;
  char *tmp = malloc(len);
  if (!tmp) {
    free(d);
    return ir_oom(NULL);
  }
  snprintf(tmp, len, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(d, 1, n, f) == n;
  if (f && fclose(f)) ok = false;
  if (ok && rename(tmp, path)) ok = false;
  vkml_status s = ok ? VKML_OK
                     : vkml_status_make(VKML_CODE_IO, "%s: cannot write it: %s", path,
                                        strerror(errno));
  if (!ok) remove(tmp);
  free(tmp);
  free(d);
  return s;
}

/* --input-shape arguments collected for the importer. */

void cli_shape_args_free(cli_shape_args *a) {
  for (int i = 0; i < a->n; i++) free(a->names[i]);
}

/* Consumes --input-shape VALUE; 1 consumed, 0 not ours, -1 bad. */
int cli_shape_arg_parse(const char *tool, int argc, char **argv, int *i,
                           cli_shape_args *a) {
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
  for (int k = 0; k < a->n; k++)
    if (!strcmp(a->names[k], a->names[a->n])) {
      fprintf(stderr, "%s: --input-shape %s given twice\n", tool, a->names[a->n]);
      free(a->names[a->n]);
      a->names[a->n] = NULL;
      return -1;
    }
  a->dim_ptrs[a->n] = a->dims[a->n];
  a->n++;
  return 1;
}

/* Loads .onnx (imported with the shape overrides) or .vkir (verified). */
vkml_status cli_load_model(const char *path, const cli_shape_args *a, ir_graph **g) {
  if (cli_has_ext(path, ".onnx")) {
    onnx_import_opts o = {.eval = rt_cpu_eval_node}; /* folds shape computations */
    o.n_shapes = a->n;
    o.shape_names = (const char *const *)a->names;
    o.shape_ranks = a->ranks;
    o.shape_dims = a->dim_ptrs;
    return onnx_import_file(path, &o, g);
  }
  if (cli_has_ext(path, ".vkir")) {
    if (a->n)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input-shape applies to .onnx models only");
    return ir_parse_file(path, g);
  }
  *g = NULL;
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                          "%s: expected a .onnx or .vkir model", path);
}


int cli_compile_arg_parse(const char *tool, int argc, char **argv, int *i,
                             cli_compile_args *c) {
  const char *a = argv[*i];
  if (!strcmp(a, "--stats") || !strcmp(a, "--no-opt")) {
    *(a[2] == 's' ? &c->stats : &c->no_opt) = true;
    return 1;
  }
  if (strcmp(a, "--precision") != 0 && strcmp(a, "--cpu-ops") != 0 && strcmp(a, "--layout") != 0 &&
      strcmp(a, "--dump-after") != 0 && strcmp(a, "--memory-planner") != 0 &&
      strcmp(a, "--db") != 0 && strcmp(a, "--fallback") != 0)
    return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value\n", tool, a);
    return -1;
  }
  const char *v = argv[++*i];
  if (!strcmp(a, "--cpu-ops")) {
    c->cpu_ops = v;
  } else if (!strcmp(a, "--fallback")) {
    if (strcmp(v, "auto") != 0 && strcmp(v, "never") != 0) {
      fprintf(stderr, "%s: --fallback expects auto or never, got '%s'\n", tool, v);
      return -1;
    }
    c->fallback_never = v[0] == 'n';
  } else if (!strcmp(a, "--db")) {
    c->db = v;
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


vkml_status cli_pipeline_run(ir_graph *g, const cli_compile_args *c, const ir_target *t) {
  const char *dump = c->dump_after ? c->dump_after : getenv("VKML_DUMP");
  VKML_RETURN_IF_ERROR(pass_check_dump_name(dump && *dump ? dump : NULL));
  pass_pipeline_opts pp = {
      .pass = {.eval = rt_cpu_eval_node, .precision = c->precision},
      .dump_after = dump && *dump ? dump : NULL,
      .no_optimize = c->no_opt,
  };
  cg_query q;
  if (t) {
    bool forced[IR_OP_COUNT];
    VKML_RETURN_IF_ERROR(onnx_op_list_parse(c->cpu_ops, "--cpu-ops", forced));
    cg_query_init(&q, t, forced);
    pp.pass.place = cg_query_place;
    pp.pass.place_user = &q;
    pp.pass.fallback_never = c->fallback_never;
    pp.pass.layout = c->layout;
    pp.pass.layout_operands = cg_query_layout_operands;
    pp.pass.layout_user = &q;
  }
  return pass_pipeline_run(g, &pp);
}
