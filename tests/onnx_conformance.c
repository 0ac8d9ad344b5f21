/* ONNX conformance runner (DESIGN.md, Tools):
 *   onnx_conformance [--device cpu] [--precision fp32] [--expected FILE] DIR...
 * Each DIR is a test case (model.onnx + test_data_set_N/{input,output}_K.pb)
 * or a directory of them. Prints "PASS name", "FAIL name: reason" or
 * "SKIP name: reason" per case and the summary line "N passed, N failed,
 * N skipped". Inputs in parameter positions (Reshape's shape, TopK's K, ...)
 * are frozen into the import; the others are fed to the CPU executor.
 * Outputs compare with rtol 1e-3, atol 1e-7 (as ONNX's backend tests; a
 * case's data.json may set others), NaN equal to NaN. With --expected, the SKIPs (name and reason) must equal the
 * file's lines "name: reason" for the cases run. Exit 0 iff nothing failed
 * (and the SKIPs matched). --text-roundtrip runs each imported graph after
 * printing and re-parsing it (checking print(parse(print(g))) == print(g)). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/onnx_import.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/tensor_pb.h"

/* Default tolerances; a case's data.json ("rtol", "atol") may widen them,
 * as the ONNX model-zoo cases do. */
typedef struct tolerance {
  double rtol, atol;
} tolerance;
static const tolerance default_tol = {1e-3, 1e-7};

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

static result run_data_set(const char *case_dir, const char *model,
                           const onnx_model_info *info, const char *set_dir,
                           bool roundtrip, tolerance tol, char *reason,
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
  onnx_import_opts opts = {0};
  opts.n_consts = n_const;
  opts.const_names = cnames;
  opts.const_types = ctypes;
  opts.const_data = cdata;
  s = onnx_import_file(model, &opts, &g);
  if (s) {
    r = from_status(s, reason, bytes, case_dir);
    goto done;
  }
  if (roundtrip && (s = text_roundtrip(&g))) {
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
  s = rt_cpu_run_graph(g, feed, n_feed, gots, no);
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

static result run_case(const char *case_dir, bool roundtrip, char *reason,
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
  for (int i = 0; i < sets.n && r == R_PASS; i++) {
    char *set_dir = path_join(case_dir, sets.v[i]);
    r = run_data_set(case_dir, model, &info, set_dir, roundtrip,
                     case_tolerance(case_dir), reason, bytes);
    if (r == R_FAIL && sets.n > 1) {
      char tmp[1024];
      snprintf(tmp, sizeof tmp, "%s: %s", sets.v[i], reason);
      snprintf(reason, bytes, "%s", tmp);
    }
    free(set_dir);
  }
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

static void usage(FILE *f) {
  fprintf(f, "usage: onnx_conformance [--device cpu] [--precision fp32] "
             "[--expected FILE] [--text-roundtrip] DIR...\n"
             "  DIR: an ONNX test case (model.onnx, test_data_set_*/) or a "
             "directory of them\n");
}

int main(int argc, char **argv) {
  const char *expected_path = NULL;
  bool roundtrip = false;
  strlist dirs = {0}, cases = {0}, names = {0}, skips = {0}, expected = {0};
  int rc = 2, passed = 0, failed = 0, skipped = 0, mismatches = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      rc = 0;
      goto out;
    } else if (!strcmp(a, "--device") && i + 1 < argc) {
      if (strcmp(argv[++i], "cpu") != 0) {
        fprintf(stderr, "onnx_conformance: --device %s: only 'cpu' is available\n",
                argv[i]);
        goto out;
      }
    } else if (!strcmp(a, "--precision") && i + 1 < argc) {
      if (strcmp(argv[++i], "fp32") != 0) {
        fprintf(stderr, "onnx_conformance: --precision %s: only 'fp32' is "
                        "available on the CPU executor\n", argv[i]);
        goto out;
      }
    } else if (!strcmp(a, "--text-roundtrip")) {
      roundtrip = true;
    } else if (!strcmp(a, "--expected") && i + 1 < argc) {
      expected_path = argv[++i];
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
        if (m && is_file(m)) strlist_add(&cases, strdup(cd));
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
  for (int i = 0; i < cases.n; i++) {
    const char *cd = cases.v[i];
    const char *slash = strrchr(cd, '/');
    const char *name = slash && slash[1] ? slash + 1 : cd;
    char reason[1024] = "";
    result r = run_case(cd, roundtrip, reason, sizeof reason);
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
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  rc = failed || mismatches ? 1 : 0;
out:
  strlist_free(&dirs);
  strlist_free(&cases);
  strlist_free(&names);
  strlist_free(&skips);
  strlist_free(&expected);
  return rc;
}
