/* ONNX conformance runner (tests/README.md):
 *   onnx_conformance [--device cpu|gpu] [--precision fp32|fp16] [--layout nc4hw4]
 *                    [--expected FILE]
 *                    [--write-expected FILE] [--text-roundtrip] [--via-artifact]
 *                    [--shard K/N] [--fallback never] [--match S,S...] DIR...
 * Each DIR is a test case (model.onnx + test_data_set_N/{input,output}_K.pb)
 * or a directory of them. Prints "PASS name", "FAIL name: reason" or
 * "SKIP name: reason" per case and the summary line "N passed, N failed,
 * N skipped". Inputs in parameter positions (Reshape's shape, TopK's K, ...)
 * are frozen into the import; the others are fed to the CPU executor.
 * Outputs compare with rtol 1e-3, atol 1e-7 (as ONNX's backend tests; a
 * case's data.json may set others), NaN equal to NaN. With --expected, the SKIPs (name and reason) must equal the
 * file's lines "name: reason" for the cases run. Exit 0 iff nothing failed
 * (and the SKIPs matched). --text-roundtrip runs each imported graph after
 * printing and re-parsing it (checking print(parse(print(g))) == print(g)).
 *
 * Every case is compiled the way vkc run compiles, by the driver
 * (driver/driver.h): imported with drv_import, the pass pipeline on a copy
 * (drv_passes), then (--device gpu) the plan (drv_compile_graph).
 *
 * --device gpu compiles each case for the default Vulkan
 * device (VKML_DEVICE picks another) and runs it with rt_vk_exec; nodes the
 * GPU kernels do not cover run on the CPU reference kernels, so a case passes
 * on the GPU whenever it passes on the CPU and the GPU kernels are right.
 * With VKML_VALIDATION=1 the validation layer is on and any message it emits
 * during a case FAILs that case. The summary adds a line saying how many
 * cases ran at least one GPU dispatch.
 *
 * --precision fp16 runs the graph converted to f16 (the fp16 pass; also
 * on --device cpu) and compares with rtol 1e-2, atol 1e-3 (or the case's own
 * if wider); cases with a non-float input or output SKIP, and so do cases
 * whose float data reach beyond +-2048 (f16 steps by 2 or more there).
 *
 * --layout nc4hw4 (with --device gpu) builds every plan with packed channels
 * between the kernels that take them (pass_opts.layout): same expected
 * results, with reorder kernels at the edges of the packed regions.
 *
 * --via-artifact (with --device gpu) runs every plan after writing it as a
 * .vkm artifact in memory and reading it back (ir/artifact.h): the round
 * trip a deployed model takes, on every case.
 *
 * --write-expected FILE writes this run's SKIPs ("name: reason" lines) to
 * FILE, the format --expected reads.
 *
 * --shard K/N runs every Nth case from the Kth (0 <= K < N, in the sorted
 * order of the cases): a long run split over several processes (meson tests)
 * that each stay short; --expected then checks the cases this shard ran.
 *
 * --fallback never (with --device gpu): a case whose graph would place a
 * node on the CPU FAILs, naming the nodes and why (not a SKIP).
 * --match S,S... runs only the cases whose directory name contains one of
 * the substrings (e.g. the vision ops). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/driver.h"
#include "frontend/onnx_import.h"
#include "ir/artifact.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/tensor_pb.h"
#include "runtime/vk/vk_exec.h"

/* Default tolerances; a case's data.json ("rtol", "atol") may widen them,
 * as the ONNX model-zoo cases do. */
typedef struct tolerance {
  double rtol, atol;
} tolerance;
static const tolerance default_tol = {1e-3, 1e-7};
static const tolerance fp16_tol = {1e-2, 1e-3};

/* Where and how cases run. */
typedef struct run_cfg {
  bool roundtrip;
  bool via_artifact; /* GPU plans through an in-memory .vkm */
  bool fallback_never; /* a node placed on the CPU fails the case */
  ir_precision precision;
  ir_layout layout;
  rt_vk_context *ctx; /* --device gpu; NULL: the CPU executor */
  cg_compiler *cc;
  uint32_t seen_messages; /* validation messages already attributed */
  int n_gpu_cases;        /* cases with at least one GPU dispatch */
  bool case_used_gpu;
  int64_t n_gpu_steps, n_cpu_steps;
} run_cfg;

typedef enum { R_PASS, R_FAIL, R_SKIP } result;

typedef struct strlist {
  char **v;
  int n, cap;
} strlist;

static int strlist_add(strlist *l, char *s) {
  if (!s) return -1;
  if (l->n == l->cap) {
    int ncap = l->cap ? l->cap * 2 : 32;
    char **nv = realloc(l->v, sizeof *nv * (size_t)ncap);
    if (!nv) {
      free(s);
      return -1;
    }
    l->v = nv;
    l->cap = ncap;
  }
  l->v[l->n++] = s;
  return 0;
}

static void strlist_free(strlist *l) {
  for (int i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *path_join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", a, b);
  return p;
}

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Sorted entries of dir whose names start with prefix. */
static void list_dir(const char *dir, const char *prefix, strlist *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0)
      strlist_add(out, strdup(e->d_name));
  closedir(d);
  if (out->n) qsort(out->v, (size_t)out->n, sizeof *out->v, cmp_str);
}

/* A reason without the case directory prefix, so that it reads the same on
 * every machine. */
static void set_reason(char *buf, size_t bytes, const char *case_dir,
                       const char *msg) {
  size_t dl = strlen(case_dir);
  size_t o = 0;
  for (const char *p = msg; *p && o + 1 < bytes;) {
    if (strncmp(p, case_dir, dl) == 0 && p[dl] == '/') {
      p += dl + 1;
      continue;
    }
    buf[o++] = *p++;
  }
  buf[o] = 0;
}

static result from_status(vkml_status s, char *reason, size_t bytes,
                          const char *case_dir) {
  set_reason(reason, bytes, case_dir, vkml_status_message(s));
  result r = vkml_status_code(s) == VKML_CODE_UNSUPPORTED ? R_SKIP : R_FAIL;
  vkml_status_free(s);
  return r;
}

/* ---- comparison ------------------------------------------------------------- */

static bool compare(const rt_tensor *got, const rt_tensor *want, int idx,
                    const char *name, tolerance tol, char *reason, size_t bytes) {
  char a[96], b[96];
  ir_type tg = rt_tensor_type(got), tw = rt_tensor_type(want);
  if (!ir_type_equal(&tg, &tw)) {
    ir_type_format(&tg, a, sizeof a);
    ir_type_format(&tw, b, sizeof b);
    snprintf(reason, bytes, "output %d '%s': got %s, expected %s", idx, name, a, b);
    return false;
  }
  int64_t n = rt_tensor_numel(got), bad = 0, first = -1;
  bool fl = ir_dtype_is_float(got->dtype);
  for (int64_t i = 0; i < n; i++) {
    bool ok;
    if (fl) {
      double x = rt_load_f(got, i), y = rt_load_f(want, i);
      if (isnan(x) || isnan(y)) ok = isnan(x) && isnan(y);
      else if (isinf(x) || isinf(y)) ok = x == y;
      else ok = fabs(x - y) <= tol.atol + tol.rtol * fabs(y);
    } else {
      ok = rt_load_i(got, i) == rt_load_i(want, i);
    }
    if (!ok && bad++ == 0) first = i;
  }
  if (!bad) return true;
  if (fl)
    snprintf(reason, bytes, "output %d '%s': %lld of %lld values differ, first at "
             "%lld: got %.9g, expected %.9g", idx, name, (long long)bad,
             (long long)n, (long long)first, rt_load_f(got, first),
             rt_load_f(want, first));
  else
    snprintf(reason, bytes, "output %d '%s': %lld of %lld values differ, first at "
             "%lld: got %lld, expected %lld", idx, name, (long long)bad,
             (long long)n, (long long)first, (long long)rt_load_i(got, first),
             (long long)rt_load_i(want, first));
  return false;
}

/* ---- one case --------------------------------------------------------------- */

/* print -> parse -> print must reproduce the text; the parsed graph (with
 * the same weights) replaces *g, so the run also covers the text form. */
static vkml_status text_roundtrip(ir_graph **g) {
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  ir_graph *g2 = NULL;
  vkml_status s = ir_print(*g, &text, &len);
  if (!s) s = ir_parse(text, len, "<printed>", &g2);
  if (!s) {
    ir_graph_set_blob(g2, (*g)->blob, (*g)->blob_bytes, false);
    s = ir_verify(g2, "<printed>");
  }
  if (!s) s = ir_print(g2, &text2, &len2);
  if (!s && (len != len2 || memcmp(text, text2, len) != 0))
    s = vkml_status_make(VKML_CODE_INTERNAL, "print(parse(print(g))) differs from "
                         "print(g)");
  if (!s) {
    /* Keep g's weights alive for g2: swap ownership. */
    g2->blob_owned = (*g)->blob_owned;
    (*g)->blob_owned = NULL;
    ir_graph_destroy(*g);
    *g = g2;
    g2 = NULL;
  }
  ir_graph_destroy(g2);
  free(text);
  free(text2);
  return s ? vkml_status_annotate(s, "IR text round trip") : VKML_OK;
}

/* fp16 runs need float inputs and outputs (an int or bool output of f16
 * arithmetic, e.g. an argmax, is not comparable): a SKIP reason, or NULL. */
static const char *fp16_skip(const ir_graph *g, char *buf, size_t bytes) {
  for (int i = 0; i < g->n_inputs + g->n_outputs; i++) {
    bool in = i < g->n_inputs;
    const ir_value *v = in ? g->inputs[i] : g->outputs[i - g->n_inputs];
    if (!ir_dtype_is_float(v->type.dtype)) {
      snprintf(buf, bytes, "fp16: %s '%s' is %s, not float", in ? "input" : "output", v->name,
               ir_dtype_name(v->type.dtype));
      return buf;
    }
  }
  return NULL;
}

/* Data f16 cannot carry: a float tensor of the case beyond +-2048 (where
 * f16 steps by 2 or more, so that e.g. softmax over 10000..10003 loses its
 * differences) or beyond f16's range. A SKIP reason, or NULL. */
static const char *fp16_data_skip(const rt_tensor *t, int n, const char *what, char *buf,
                                  size_t bytes) {
  for (int k = 0; k < n; k++) {
    if (!ir_dtype_is_float(t[k].dtype)) continue;
    int64_t cnt = rt_tensor_numel(&t[k]);
    for (int64_t i = 0; i < cnt; i++) {
      double v = rt_load_f(&t[k], i);
      if (isfinite(v) && fabs(v) > 2048) {
        snprintf(buf, bytes, "fp16: %s %d holds %.9g, beyond f16's exact range +-2048", what,
                 k, v);
        return buf;
      }
    }
  }
  return NULL;
}

/* Cases that f16 cannot decide: the CPU reference (fp32) run on the inputs
 * rounded to f16 already misses the expected outputs by more than the fp16
 * tolerance (tan near its poles: the rounding of the argument moves the
 * result by more than 1 %). Then the fp16 run's error is the data's, not the
 * kernels': a SKIP reason naming the output, or NULL. */
static const char *fp16_conditioning_skip(const ir_graph *g, const rt_tensor *feed, int n_feed,
                                          const rt_tensor *wants, int no,
                                          const onnx_model_info *info, tolerance tol,
                                          char *buf, size_t bytes) {
  rt_tensor *in = calloc((size_t)n_feed + 1, sizeof *in);
  rt_tensor *out = calloc((size_t)no + 1, sizeof *out);
  ir_graph *h = NULL;
  vkml_status s = in && out ? ir_graph_clone(g, &h)
                             : vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  for (int i = 0; !s && i < n_feed; i++) {
    ir_type t = rt_tensor_type(&feed[i]);
    s = rt_tensor_alloc(&t, &in[i]);
    if (s) break;
    memcpy(in[i].data, feed[i].data, rt_tensor_bytes(&feed[i]));
    if (!ir_dtype_is_float(t.dtype)) continue;
    for (int64_t k = 0, n = rt_tensor_numel(&in[i]); k < n; k++)
      rt_store_f(&in[i], k, ir_f16_to_f32(ir_f32_to_f16((float)rt_load_f(&in[i], k))));
  }
  drv_opts d = {.precision = IR_PRECISION_FP32};
  if (!s) s = drv_passes(h, NULL, &d);
  if (!s) s = rt_cpu_run_graph(h, in, n_feed, out, no);
  const char *why = NULL;
  char detail[512];
  for (int i = 0; !s && !why && i < no; i++)
    if (!compare(&out[i], &wants[i], i, info->output_names[i], tol, detail, sizeof detail)) {
      snprintf(buf, bytes, "fp16: its inputs rounded to f16 move the fp32 reference beyond the "
               "fp16 tolerance (%s)", detail);
      why = buf;
    }
  vkml_status_free(s); /* a reference that cannot run decides nothing here */
  for (int i = 0; in && i < n_feed; i++) rt_tensor_free(&in[i]);
  for (int i = 0; out && i < no; i++) rt_tensor_free(&out[i]);
  free(in);
  free(out);
  ir_graph_destroy(h);
  return why;
}

/* Runs *gp on the GPU through a plan (which takes the graph over: *gp
 * becomes NULL once it does); FAILs on any validation message. */
static vkml_status run_gpu(run_cfg *cfg, ir_graph **gp, const rt_tensor *in, int n_in,
                           rt_tensor *out, int n_out) {
  ir_plan *plan = NULL;
  rt_vk_exec *x = NULL;
  const ir_target *t = rt_vk_context_target(cfg->ctx);
  drv_opts d = {.precision = cfg->precision,
                .layout = cfg->layout,
                .fallback_never = cfg->fallback_never,
                .compiler = cfg->cc,
                .tool = "onnx_conformance"};
  vkml_status s = drv_compile_graph(gp, t, &d, NULL, &plan);
  if (s && cfg->fallback_never && vkml_status_code(s) == VKML_CODE_UNSUPPORTED &&
      strstr(vkml_status_message(s), "(--fallback never)")) {
    /* a failure, not a SKIP: the case would need a CPU step */
    vkml_status f = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s", vkml_status_message(s));
    vkml_status_free(s);
    s = f;
  }
  uint8_t *bytes = NULL; /* the artifact (--via-artifact): the plan borrows its weights */
  if (!s && cfg->via_artifact) {
    size_t n = 0;
    ir_plan *back = NULL;
    s = drv_artifact_encode(plan, t, &d, &bytes, &n);
    if (!s) s = ir_artifact_decode(bytes, n, "<artifact>", &back);
    ir_plan_destroy(plan);
    plan = back;
  }
  if (!s) s = rt_vk_exec_create(cfg->ctx, plan, NULL, &x);
  if (!s) s = rt_vk_exec_run(x, in, n_in, out, n_out, NULL);
  if (x) {
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(x, &st);
    cfg->n_gpu_steps += st.n_gpu_steps;
    cfg->n_cpu_steps += st.n_cpu_steps;
    if (st.n_gpu_steps > 0 && st.n_runs > 0) cfg->case_used_gpu = true;
  }
  rt_vk_exec_destroy(x);
  ir_plan_destroy(plan);
  free(bytes);
  rt_vk_report r;
  rt_vk_context_report(cfg->ctx, &r);
  uint32_t msgs = r.n_errors + r.n_warnings;
  if (msgs > cfg->seen_messages) {
    if (!s)
      s = vkml_status_make(VKML_CODE_DEVICE, "%u validation message(s); first in this "
                           "process: %s", msgs - cfg->seen_messages, r.first_message);
    cfg->seen_messages = msgs;
  }
  return s;
}

/* Compiles a copy of g (the passes rewrite in place) and runs it. */
static vkml_status run_graph(run_cfg *cfg, const ir_graph *g, const rt_tensor *in, int n_in,
                             rt_tensor *out, int n_out) {
  ir_graph *h = NULL;
  vkml_status s = ir_graph_clone(g, &h);
  if (!s && cfg->ctx) s = run_gpu(cfg, &h, in, n_in, out, n_out);
  else if (!s) {
    drv_opts d = {.precision = cfg->precision};
    s = drv_passes(h, NULL, &d);
    if (!s) s = rt_cpu_run_graph(h, in, n_in, out, n_out);
  }
  ir_graph_destroy(h);
  return s;
}

static result run_data_set(const char *case_dir, const char *model,
                           const onnx_model_info *info, const char *set_dir,
                           run_cfg *cfg, tolerance tol, char *reason,
                           size_t bytes) {
  result r = R_PASS;
  int ni = info->n_inputs, no = info->n_outputs;
  rt_tensor *ins = calloc((size_t)ni + 1, sizeof *ins);
  rt_tensor *wants = calloc((size_t)no + 1, sizeof *wants);
  rt_tensor *gots = calloc((size_t)no + 1, sizeof *gots);
  rt_tensor *feed = calloc((size_t)ni + 1, sizeof *feed);
  const char **cnames = calloc((size_t)ni + 1, sizeof *cnames);
  ir_type *ctypes = calloc((size_t)ni + 1, sizeof *ctypes);
  const void **cdata = calloc((size_t)ni + 1, sizeof *cdata);
  ir_graph *g = NULL;
  vkml_status s = VKML_OK;
  if (!ins || !wants || !gots || !feed || !cnames || !ctypes || !cdata) {
    snprintf(reason, bytes, "out of memory");
    r = R_FAIL;
    goto done;
  }
  for (int i = 0; i < ni + no; i++) {
    char file[64];
    bool in = i < ni;
    snprintf(file, sizeof file, "%s_%d.pb", in ? "input" : "output", in ? i : i - ni);
    char *p = path_join(set_dir, file);
    if (!p || !is_file(p)) {
      set_reason(reason, bytes, case_dir, set_dir);
      size_t l = strlen(reason);
      snprintf(reason + l, bytes - l, "/%s is missing", file);
      free(p);
      r = R_FAIL;
      goto done;
    }
    s = rt_tensor_read_pb(p, in ? &ins[i] : &wants[i - ni], NULL);
    free(p);
    if (s) {
      r = from_status(s, reason, bytes, case_dir);
      goto done;
    }
  }
  /* Freeze the inputs in parameter positions; feed the rest. */
  int n_const = 0, n_feed = 0;
  for (int i = 0; i < ni; i++) {
    if (info->input_is_param[i]) {
      cnames[n_const] = info->input_names[i];
      ctypes[n_const] = rt_tensor_type(&ins[i]);
      cdata[n_const++] = ins[i].data;
    } else {
      feed[n_feed++] = ins[i];
    }
  }
  drv_opts opts = {.import = {.n_consts = n_const,
                              .const_names = cnames,
                              .const_types = ctypes,
                              .const_data = cdata}};
  drv_source src = {.path = model};
  s = drv_import(&src, &opts, &g);
  if (s) {
    r = from_status(s, reason, bytes, case_dir);
    goto done;
  }
  if (cfg->roundtrip && (s = text_roundtrip(&g))) {
    set_reason(reason, bytes, case_dir, vkml_status_message(s));
    vkml_status_free(s);
    r = R_FAIL;
    goto done;
  }
  if (g->n_outputs != no) {
    snprintf(reason, bytes, "graph has %d outputs, the test %d", g->n_outputs, no);
    r = R_FAIL;
    goto done;
  }
  if (cfg->precision == IR_PRECISION_FP16 &&
      (fp16_skip(g, reason, bytes) || fp16_data_skip(ins, ni, "input", reason, bytes) ||
       fp16_data_skip(wants, no, "output", reason, bytes))) {
    r = R_SKIP;
    goto done;
  }
  if (cfg->precision == IR_PRECISION_FP16 &&
      fp16_conditioning_skip(g, feed, n_feed, wants, no, info, tol, reason, bytes)) {
    r = R_SKIP;
    goto done;
  }
  s = run_graph(cfg, g, feed, n_feed, gots, no);
  if (s) {
    set_reason(reason, bytes, case_dir, vkml_status_message(s));
    vkml_status_free(s);
    r = R_FAIL;
    goto done;
  }
  for (int i = 0; i < no; i++)
    if (!compare(&gots[i], &wants[i], i, info->output_names[i], tol, reason, bytes)) {
      r = R_FAIL;
      break;
    }
done:
  if (ins) for (int i = 0; i < ni; i++) rt_tensor_free(&ins[i]);
  if (wants) for (int i = 0; i < no; i++) rt_tensor_free(&wants[i]);
  if (gots) for (int i = 0; i < no; i++) rt_tensor_free(&gots[i]);
  free(ins);
  free(wants);
  free(gots);
  free(feed);
  free(cnames);
  free(ctypes);
  free(cdata);
  ir_graph_destroy(g);
  return r;
}

/* rtol / atol from the case's data.json when it has them. */
static tolerance case_tolerance(const char *case_dir) {
  tolerance t = default_tol;
  char *p = path_join(case_dir, "data.json");
  FILE *f = p ? fopen(p, "r") : NULL;
  free(p);
  if (!f) return t;
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *keys[2] = {"\"rtol\"", "\"atol\""};
  double *vals[2] = {&t.rtol, &t.atol};
  for (int i = 0; i < 2; i++) {
    const char *k = strstr(buf, keys[i]);
    const char *colon = k ? strchr(k, ':') : NULL;
    char *end;
    double v = colon ? strtod(colon + 1, &end) : -1;
    if (colon && end != colon + 1 && v >= 0 && v < 1) *vals[i] = v;
  }
  return t;
}

static result run_case(const char *case_dir, run_cfg *cfg, char *reason,
                       size_t bytes) {
  char *model = path_join(case_dir, "model.onnx");
  onnx_model_info info;
  result r = R_PASS;
  vkml_status s = onnx_model_info_read(model, &info);
  if (s) {
    free(model);
    return from_status(s, reason, bytes, case_dir);
  }
  strlist sets = {0};
  list_dir(case_dir, "test_data_set_", &sets);
  if (!sets.n) {
    snprintf(reason, bytes, "no test_data_set_* directory");
    r = R_FAIL;
  }
  tolerance tol = case_tolerance(case_dir);
  if (cfg->precision == IR_PRECISION_FP16) {
    if (tol.rtol < fp16_tol.rtol) tol.rtol = fp16_tol.rtol;
    if (tol.atol < fp16_tol.atol) tol.atol = fp16_tol.atol;
  }
  cfg->case_used_gpu = false;
  for (int i = 0; i < sets.n && r == R_PASS; i++) {
    char *set_dir = path_join(case_dir, sets.v[i]);
    r = run_data_set(case_dir, model, &info, set_dir, cfg, tol, reason, bytes);
    if (r == R_FAIL && sets.n > 1) {
      char tmp[1024];
      snprintf(tmp, sizeof tmp, "%s: %s", sets.v[i], reason);
      snprintf(reason, bytes, "%s", tmp);
    }
    free(set_dir);
  }
  if (cfg->case_used_gpu) cfg->n_gpu_cases++;
  strlist_free(&sets);
  onnx_model_info_free(&info);
  free(model);
  return r;
}

/* ---- expected SKIPs ------------------------------------------------------------ */

static int read_expected(const char *path, strlist *out) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "onnx_conformance: %s: %s\n", path, strerror(errno));
    return -1;
  }
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
    if (!l || line[0] == '#') continue;
    strlist_add(out, strdup(line));
  }
  fclose(f);
  return 0;
}

/* "name: reason" lines: the name is up to the first ": ". */
static bool line_has_name(const char *line, const char *name) {
  size_t n = strlen(name);
  return strncmp(line, name, n) == 0 && line[n] == ':' && line[n + 1] == ' ';
}

/* Writes the SKIP lines as an --expected file. */
static int write_expected(const char *path, const strlist *skips, const char *device,
                          const char *precision) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "onnx_conformance: %s: %s\n", path, strerror(errno));
    return -1;
  }
  fprintf(f, "# Expected SKIPs of onnx_conformance --device %s --precision %s, one\n"
             "# \"name: reason\" per line; written by --write-expected.\n",
          device, precision);
  for (int i = 0; i < skips->n; i++) fprintf(f, "%s\n", skips->v[i]);
  if (fclose(f) != 0) {
    fprintf(stderr, "onnx_conformance: %s: write failed\n", path);
    return -1;
  }
  return 0;
}

/* Whether name contains one of the comma-separated substrings of match
 * (NULL: every name). */
static bool name_matches(const char *name, const char *match) {
  if (!match) return true;
  for (const char *p = match; *p;) {
    size_t len = strcspn(p, ",");
    for (const char *q = name; len && *q; q++)
      if (!strncmp(q, p, len)) return true;
    p += len;
    if (*p) p++;
  }
  return false;
}

static void usage(FILE *f) {
  fprintf(f, "usage: onnx_conformance [--device cpu|gpu] [--precision fp32|fp16] [--layout nc4hw4] "
             "[--expected FILE] [--write-expected FILE] [--text-roundtrip] [--via-artifact] "
             "[--shard K/N] [--fallback never] [--match S,S...] DIR...\n"
             "  DIR: an ONNX test case (model.onnx, test_data_set_*/) or a "
             "directory of them\n");
}

int main(int argc, char **argv) {
  const char *expected_path = NULL, *write_path = NULL, *device = "cpu", *precision = "fp32";
  run_cfg cfg = {0};
  strlist dirs = {0}, cases = {0}, names = {0}, skips = {0}, expected = {0};
  int rc = 2, passed = 0, failed = 0, skipped = 0, mismatches = 0;
  int shard = 0, n_shards = 1;
  const char *match = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      rc = 0;
      goto out;
    } else if (!strcmp(a, "--device") && i + 1 < argc) {
      device = argv[++i];
      if (strcmp(device, "cpu") != 0 && strcmp(device, "gpu") != 0) {
        fprintf(stderr, "onnx_conformance: --device %s: expected cpu or gpu\n", device);
        goto out;
      }
    } else if (!strcmp(a, "--precision") && i + 1 < argc) {
      precision = argv[++i];
      if (strcmp(precision, "fp32") != 0 && strcmp(precision, "fp16") != 0) {
        fprintf(stderr, "onnx_conformance: --precision %s: expected fp32 or fp16\n",
                precision);
        goto out;
      }
      cfg.precision = precision[2] == '1' ? IR_PRECISION_FP16 : IR_PRECISION_FP32;
    } else if (!strcmp(a, "--layout") && i + 1 < argc) {
      const char *l = argv[++i];
      if (strcmp(l, "nc4hw4") != 0 && strcmp(l, "default") != 0) {
        fprintf(stderr, "onnx_conformance: --layout %s: expected default or nc4hw4\n", l);
        goto out;
      }
      cfg.layout = l[0] == 'n' ? IR_LAYOUT_NC4HW4 : IR_LAYOUT_DEFAULT;
    } else if (!strcmp(a, "--text-roundtrip")) {
      cfg.roundtrip = true;
    } else if (!strcmp(a, "--via-artifact")) {
      cfg.via_artifact = true;
    } else if (!strcmp(a, "--fallback") && i + 1 < argc) {
      if (strcmp(argv[++i], "never") && strcmp(argv[i], "auto")) {
        fprintf(stderr, "onnx_conformance: --fallback %s: expected auto or never\n", argv[i]);
        goto out;
      }
      cfg.fallback_never = !strcmp(argv[i], "never");
    } else if (!strcmp(a, "--match") && i + 1 < argc) {
      match = argv[++i];
    } else if (!strcmp(a, "--expected") && i + 1 < argc) {
      expected_path = argv[++i];
    } else if (!strcmp(a, "--write-expected") && i + 1 < argc) {
      write_path = argv[++i];
    } else if (!strcmp(a, "--shard") && i + 1 < argc) {
      char end = 0;
      if (sscanf(argv[++i], "%d/%d%c", &shard, &n_shards, &end) != 2 || n_shards < 1 ||
          shard < 0 || shard >= n_shards) {
        fprintf(stderr, "onnx_conformance: --shard %s: expected K/N with 0 <= K < N\n", argv[i]);
        goto out;
      }
    } else if (a[0] == '-') {
      fprintf(stderr, "onnx_conformance: unknown option %s\n", a);
      usage(stderr);
      goto out;
    } else {
      strlist_add(&dirs, strdup(a));
    }
  }
  if (!dirs.n) {
    usage(stderr);
    goto out;
  }
  if (expected_path && read_expected(expected_path, &expected)) goto out;
  if (!strcmp(device, "gpu")) {
    /* one device and compiler for every case; validation per VKML_VALIDATION */
    vkml_status s = rt_vk_context_create(&(rt_vk_context_opts){0}, &cfg.ctx);
    if (!s) s = cg_compiler_create(&(cg_compiler_opts){0}, &cfg.cc);
    if (s) {
      fprintf(stderr, "onnx_conformance: --device gpu: %s\n", vkml_status_message(s));
      vkml_status_free(s);
      goto out;
    }
    printf("device: %s\n", rt_vk_context_target(cfg.ctx)->name);
  }
  for (int i = 0; i < dirs.n; i++) {
    char *model = path_join(dirs.v[i], "model.onnx");
    if (model && is_file(model)) {
      strlist_add(&cases, strdup(dirs.v[i]));
    } else if (is_dir(dirs.v[i])) {
      strlist sub = {0};
      list_dir(dirs.v[i], "", &sub);
      for (int k = 0; k < sub.n; k++) {
        char *cd = path_join(dirs.v[i], sub.v[k]);
        char *m = cd ? path_join(cd, "model.onnx") : NULL;
        if (m && is_file(m) && name_matches(sub.v[k], match)) strlist_add(&cases, strdup(cd));
        free(m);
        free(cd);
      }
      strlist_free(&sub);
    } else {
      fprintf(stderr, "onnx_conformance: %s: not a test case or directory\n", dirs.v[i]);
      free(model);
      goto out;
    }
    free(model);
  }
  int n_run = 0;
  for (int i = shard; i < cases.n; i += n_shards) {
    const char *cd = cases.v[i];
    n_run++;
    const char *slash = strrchr(cd, '/');
    const char *name = slash && slash[1] ? slash + 1 : cd;
    char reason[1024] = "";
    result r = run_case(cd, &cfg, reason, sizeof reason);
    for (char *p = reason; *p; p++)
      if (*p == '\n') *p = ' ';
    strlist_add(&names, strdup(name));
    if (r == R_PASS) {
      printf("PASS %s\n", name);
      passed++;
    } else if (r == R_FAIL) {
      printf("FAIL %s: %s\n", name, reason);
      failed++;
    } else {
      printf("SKIP %s: %s\n", name, reason);
      skipped++;
      size_t l = strlen(name) + strlen(reason) + 3;
      char *line = malloc(l);
      if (line) snprintf(line, l, "%s: %s", name, reason);
      strlist_add(&skips, line);
    }
    fflush(stdout);
  }
  if (expected_path) {
    for (int i = 0; i < skips.n; i++) {
      bool found = false;
      for (int k = 0; k < expected.n && !found; k++) found = !strcmp(skips.v[i], expected.v[k]);
      if (!found) {
        printf("UNEXPECTED SKIP (not in %s): %s\n", expected_path, skips.v[i]);
        mismatches++;
      }
    }
    for (int k = 0; k < expected.n; k++) {
      bool ran = false, found = false;
      for (int i = 0; i < names.n && !ran; i++) ran = line_has_name(expected.v[k], names.v[i]);
      for (int i = 0; i < skips.n && !found; i++) found = !strcmp(skips.v[i], expected.v[k]);
      if (ran && !found) {
        printf("EXPECTED SKIP DID NOT HAPPEN: %s\n", expected.v[k]);
        mismatches++;
      }
    }
  }
  if (cfg.ctx)
    printf("gpu: %d of %d cases ran at least one GPU dispatch (%lld GPU and %lld CPU "
           "steps over all data sets)\n", cfg.n_gpu_cases, n_run,
           (long long)cfg.n_gpu_steps, (long long)cfg.n_cpu_steps);
  if (write_path && write_expected(write_path, &skips, device, precision)) mismatches++;
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  rc = failed || mismatches ? 1 : 0;
out:
  if (cfg.ctx) {
    rt_vk_report rep;
    cg_compiler_destroy(cfg.cc);
    rt_vk_context_destroy(cfg.ctx, &rep);
    if (rep.n_errors + rep.n_warnings > cfg.seen_messages || rep.n_leaked) {
      fprintf(stderr, "onnx_conformance: at device destruction: %u validation messages, %d "
                      "leaked objects; first: %s\n", rep.n_errors + rep.n_warnings,
              rep.n_leaked, rep.first_message);
      if (rc == 0) rc = 1;
    }
  }
  strlist_free(&dirs);
  strlist_free(&cases);
  strlist_free(&names);
  strlist_free(&skips);
  strlist_free(&expected);
  return rc;
}
