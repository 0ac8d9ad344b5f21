/* The compile's command-line options shared by vkc and vktune, in the
 * driver's terms (cli_compile.h). */
#include "cli_compile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/util.h"
#include "runtime/npy.h"
#include "runtime/tensor_pb.h"

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
  vkml_status s = drv_shape_arg_parse(argv[++*i], &a->names[a->n], &a->ranks[a->n],
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

vkml_status cli_shapes_from_inputs(const char *model, int n_inputs, const char *const *names,
                                   const char *const *files, cli_shape_args *a) {
  if (!cli_has_ext(model, ".onnx")) return VKML_OK;
  for (int b = 0; b < n_inputs; b++) {
    const char *eq = strchr(names[b], '=');
    size_t len = (size_t)(eq - names[b]);
    const char *name = names[b][0] == '%' ? names[b] + 1 : names[b];
    if (names[b][0] == '%') len--;
    bool given = false;
    for (int k = 0; k < a->n; k++)
      given |= strlen(a->names[k]) == len && !strncmp(a->names[k], name, len);
    if (given) continue;
    if (a->n == 64) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "more than 64 inputs");
    rt_tensor t;
    /* its shape is all that is read here (a float64 file is read as f32) */
    vkml_status s = cli_has_ext(files[b], ".pb")    ? rt_tensor_read_pb(files[b], &t, NULL)
                    : cli_has_ext(files[b], ".npy") ? rt_npy_read_as(files[b], IR_F32, &t, NULL)
                                                    : vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                                                                       "%s: unknown tensor file "
                                                                       "type (expected .npy or "
                                                                       ".pb)", files[b]);
    if (s) return vkml_status_annotate(s, "--input %.*s", (int)len, name);
    a->names[a->n] = strndup(name, len);
    if (!a->names[a->n]) {
      rt_tensor_free(&t);
      return ir_oom(NULL);
    }
    a->ranks[a->n] = t.rank;
    memcpy(a->dims[a->n], t.dims, sizeof a->dims[a->n]);
    a->dim_ptrs[a->n] = a->dims[a->n];
    a->files[a->n] = files[b];
    a->n++;
    rt_tensor_free(&t);
  }
  return VKML_OK;
}

vkml_status cli_vk_context_open(const char *device, rt_vk_context **out) {
  rt_vk_context_opts co = {0};
  *out = NULL;
  if (device) {
    char *end;
    errno = 0;
    long idx = strtol(device, &end, 10);
    if (errno || end == device || *end || idx < 0 || idx > 1000000)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--device expects a device index or 'cpu', got '%s'", device);
    co.select_device = true;
    co.device_index = (int)idx;
  }
  return rt_vk_context_create(&co, out);
}

vkml_status cli_load_model(const char *path, const cli_shape_args *a, ir_graph **g) {
  drv_opts o = {0};
  cli_drv_shapes(a, &o);
  drv_source src = {.path = path};
  return drv_import(&src, &o, g);
}

void cli_drv_shapes(const cli_shape_args *a, drv_opts *o) {
  o->import.n_shapes = a->n;
  o->import.shape_names = (const char *const *)a->names;
  o->import.shape_ranks = a->ranks;
  o->import.shape_dims = a->dim_ptrs;
  o->import.shape_files = a->files;
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
      strcmp(a, "--db") != 0 && strcmp(a, "--fallback") != 0 && strcmp(a, "--winograd") != 0 &&
      strcmp(a, "--split-k") != 0 && strcmp(a, "--attention") != 0)
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
  } else if (!strcmp(a, "--winograd")) {
    if (!pass_winograd_mode_parse(v, &c->winograd)) {
      fprintf(stderr, "%s: --winograd expects auto, off, f2 or f4, got '%s'\n", tool, v);
      return -1;
    }
  } else if (!strcmp(a, "--split-k")) {
    int f = !strcmp(v, "2") ? 2 : !strcmp(v, "4") ? 4 : !strcmp(v, "8") ? 8 : !strcmp(v, "16") ? 16 : 0;
    if (strcmp(v, "auto") != 0 && strcmp(v, "off") != 0 && !f) {
      fprintf(stderr, "%s: --split-k expects auto, off, 2, 4, 8 or 16, got '%s'\n", tool, v);
      return -1;
    }
    c->split_k_off = v[0] == 'o';
    c->split_k_factor = f;
  } else if (!strcmp(a, "--attention")) {
    if (strcmp(v, "auto") != 0 && strcmp(v, "off") != 0 && strcmp(v, "all") != 0) {
      fprintf(stderr, "%s: --attention expects auto, off or all, got '%s'\n", tool, v);
      return -1;
    }
    c->attention_off = v[0] == 'o';
    c->attention_all = !strcmp(v, "all");
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
    c->layout_fixed = strcmp(v, "auto") != 0;
    if (!strcmp(v, "default") || !strcmp(v, "auto")) {
      c->layout = IR_LAYOUT_DEFAULT;
    } else if (!ir_layout_from_name(v, (int)strlen(v), &c->layout)) {
      fprintf(stderr, "%s: --layout expects auto, default, nc4hw4 or nhwc, got '%s'\n", tool, v);
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


vkml_status cli_drv_opts(const cli_compile_args *c, bool *cpu_ops, drv_opts *o) {
  *o = (drv_opts){0};
  VKML_RETURN_IF_ERROR(drv_op_list_parse(c->cpu_ops, "--cpu-ops", cpu_ops));
  o->precision = c->precision;
  o->cpu_ops = cpu_ops;
  o->fallback_never = c->fallback_never;
  o->winograd = c->winograd;
  o->split_k_off = c->split_k_off;
  o->split_k_factor = c->split_k_factor;
  o->attention_off = c->attention_off;
  o->attention_all = c->attention_all;
  o->layout = c->layout;
  o->layout_auto = !c->layout_fixed;
  o->no_opt = c->no_opt;
  o->dump_after = c->dump_after ? c->dump_after : getenv("VKML_DUMP");
  o->memory_planner = c->memory_planner;
  o->db = c->db;
  return VKML_OK;
}

vkml_status cli_pipeline_run(ir_graph *g, const cli_compile_args *c, const ir_target *t) {
  bool cpu_ops[IR_OP_COUNT];
  drv_opts o;
  VKML_RETURN_IF_ERROR(cli_drv_opts(c, cpu_ops, &o));
  return drv_passes(g, t, &o);
}
