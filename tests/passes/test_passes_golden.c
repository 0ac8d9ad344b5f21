/* Golden tests of the graph passes (as Mesa's check_nir_string): every
 * file tests/passes/golden/NAME.vkir is
 *
 *   # pass: NAME[, NAME...]        passes to run, in order (pipeline.h names)
 *   # opts: KEY=VALUE ...          optional: fold_max_bytes=N, precision=fp16,
 *                                  no_eval, cpu_ops=OP,OP (placement: those
 *                                  IR ops cannot run on the GPU, the rest can),
 *                                  exact (CPU results before and after must
 *                                  agree bit for bit), atol=X (an absolute
 *                                  tolerance instead of 1e-6: sums
 *                                  reassociated over long axes)
 *   ... the input graph ...
 *   # expect:                      then the graph the passes must print, or
 *   # expect: unchanged            the input must come out as it went in
 *
 * The runner parses and verifies the input, runs the passes (each followed
 * by ir_verify, pass_run_by_name), and compares the canonical printed text
 * with the expected text, ignoring comments and differences in whitespace;
 * on a mismatch it prints both. A case with an expected rewrite must report
 * a change, an unchanged case must not. Then both graphs run on the CPU
 * executor on random non-zero inputs and must agree (a pass keeps results:
 * rtol 1e-5 plus atol 1e-6 (or the case's), or 1e-2 for fp16; bit for bit
 * with `exact`). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "passes/pipeline.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  return s;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_vkir(const char *sub, char ***out) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", VKML_SOURCE_ROOT, sub);
  DIR *d = opendir(dir);
  cr_assert(d, "cannot open %s", dir);
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".vkir") != 0) continue;
    names = realloc(names, sizeof *names * (size_t)(n + 1));
    names[n] = malloc(strlen(dir) + l + 2);
    sprintf(names[n], "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  *out = names;
  return n;
}

/* text without '#' comment lines, whitespace runs as one space, trimmed. */
static char *normalize(const char *text) {
  char *out = malloc(strlen(text) + 1);
  size_t o = 0;
  bool line_start = true, space = false;
  for (const char *p = text; *p; p++) {
    if (line_start) {
      const char *q = p;
      while (*q == ' ' || *q == '\t') q++;
      if (*q == '#') {
        while (*q && *q != '\n') q++;
        p = *q ? q : q - 1;
        space = true;
        continue;
      }
    }
    line_start = *p == '\n';
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      space = true;
      continue;
    }
    if (space && o) out[o++] = ' ';
    space = false;
    out[o++] = *p;
  }
  out[o] = 0;
  return out;
}

/* The value of "# KEY: VALUE" among the leading comment lines, or NULL. */
static char *header(const char *text, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = text; *p == '#';) {
    const char *q = p + 1;
    while (*q == ' ') q++;
    const char *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    if (!strncmp(q, key, kl) && q[kl] == ':') {
      q += kl + 1;
      while (*q == ' ') q++;
      return strndup(q, (size_t)(end - q));
    }
    p = *end ? end + 1 : end;
  }
  return NULL;
}

/* The placement callback of the golden cases: the ops listed in cpu_ops=
 * have no GPU kernel. */
typedef struct test_placement {
  bool cpu[IR_OP_COUNT];
} test_placement;

static const char *test_place(void *user, const ir_node *n, char *why, size_t bytes) {
  const test_placement *tp = user;
  if (!tp->cpu[n->op]) return NULL;
  snprintf(why, bytes, "no GPU kernel for %s (test)", ir_op_name(n->op));
  return why;
}

static void parse_cpu_ops(const char *file, const char *list, test_placement *tp) {
  char *copy = strdup(list), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    ir_op op;
    cr_assert(ir_op_from_name(t, strlen(t), &op), "%s: cpu_ops: unknown op '%s'", file, t);
    tp->cpu[op] = true;
  }
  free(copy);
}

static void parse_opts(const char *file, const char *spec, pass_opts *o, test_placement *tp) {
  o->eval = rt_cpu_eval_node;
  if (!spec) return;
  char *copy = strdup(spec), *save = NULL;
  for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    long long v;
    if (sscanf(t, "fold_max_bytes=%lld", &v) == 1) o->fold_max_bytes = v;
    else if (!strcmp(t, "precision=fp16")) o->precision = IR_PRECISION_FP16;
    else if (!strcmp(t, "no_eval")) o->eval = NULL;
    else if (!strcmp(t, "exact") || !strncmp(t, "atol=", 5)) continue; /* run_case reads them */
    else if (!strncmp(t, "cpu_ops=", 8)) {
      parse_cpu_ops(file, t + 8, tp);
      o->place = test_place;
      o->place_user = tp;
    } else cr_assert_fail("%s: unknown option '%s'", file, t);
  }
  free(copy);
}

static ir_graph *parse_verified(const char *text, size_t len, const char *file) {
  ir_graph *g = NULL;
  vkml_status s = ir_parse(text, len, file, &g);
  if (!s) s = ir_verify(g, file);
  cr_assert(!s, "%s: %s", file, vkml_status_message(s));
  return g;
}

/* Both graphs on the same random non-zero inputs. */
static void check_same_results(const char *file, const ir_graph *a, const ir_graph *b,
                               double rtol, double atol) {
  cr_assert_eq(a->n_inputs, b->n_inputs);
  cr_assert_eq(a->n_outputs, b->n_outputs);
  t_rng r = t_rng_make(17);
  rt_tensor in[16], ga[16], gb[16];
  cr_assert(a->n_inputs <= 16 && a->n_outputs <= 16);
  for (int i = 0; i < a->n_inputs; i++) {
    const ir_type *t = &a->inputs[i]->type;
    in[i] = t_tensor_random(&r, t->dtype, t->rank, t->dims, -3, 3);
  }
  T_OK(rt_cpu_run_graph(a, in, a->n_inputs, ga, a->n_outputs));
  T_OK(rt_cpu_run_graph(b, in, b->n_inputs, gb, b->n_outputs));
  for (int k = 0; k < a->n_outputs; k++) {
    cr_assert_eq(rt_tensor_numel(&ga[k]), rt_tensor_numel(&gb[k]), "%s: output %d", file, k);
    bool nonzero = false;
    for (int64_t i = 0; i < rt_tensor_numel(&ga[k]); i++) {
      double x = rt_load_f(&ga[k], i), y = rt_load_f(&gb[k], i);
      nonzero = nonzero || x != 0;
      bool same = x == y || (isnan(x) && isnan(y)) ||
                  (rtol > 0 && fabs(x - y) <= atol + rtol * fabs(x));
      cr_expect(same, "%s: output %d element %lld: before the passes %.9g, after %.9g", file, k,
                (long long)i, x, y);
      if (!same) break;
    }
    cr_expect(nonzero || rt_tensor_numel(&ga[k]) == 0, "%s: output %d is all zero", file, k);
  }
  for (int i = 0; i < a->n_inputs; i++) rt_tensor_free(&in[i]);
  for (int i = 0; i < a->n_outputs; i++) {
    rt_tensor_free(&ga[i]);
    rt_tensor_free(&gb[i]);
  }
}

static void run_case(const char *file) {
  char *text = slurp(file);
  char *passes = header(text, "pass"), *optspec = header(text, "opts");
  cr_assert(passes, "%s: no '# pass: NAME' line", file);
  char *ex = strstr(text, "\n# expect:");
  cr_assert(ex, "%s: no '# expect:' line", file);
  size_t in_len = (size_t)(ex - text) + 1;
  char *ex_line_end = strchr(ex + 1, '\n');
  bool unchanged = !strncmp(ex + 1, "# expect: unchanged", 19);
  pass_opts o = {0};
  test_placement tp = {{false}};
  parse_opts(file, optspec, &o, &tp);

  ir_graph *before = parse_verified(text, in_len, file);
  ir_graph *g = parse_verified(text, in_len, file);
  char *want_text = NULL;
  if (unchanged) {
    size_t n;
    T_OK(ir_print(before, &want_text, &n));
  } else {
    cr_assert(ex_line_end, "%s: nothing after '# expect:'", file);
    want_text = strdup(ex_line_end + 1);
  }

  bool any = false;
  char *save = NULL;
  for (char *p = strtok_r(passes, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
    bool changed = false;
    vkml_status s = pass_run_by_name(g, p, &o, &changed);
    cr_assert(!s, "%s: pass %s: %s", file, p, vkml_status_message(s));
    any = any || changed;
  }
  char *got_text;
  size_t n;
  T_OK(ir_print(g, &got_text, &n));
  char *got = normalize(got_text), *want = normalize(want_text);
  cr_expect(!strcmp(got, want), "%s: the passes printed\n%s\nbut the file expects\n%s", file,
            got_text, want_text);
  /* what a pass leaves prints canonically: print(parse(text)) == text */
  ir_graph *again = NULL;
  T_OK(ir_parse(got_text, n, file, &again));
  char *again_text;
  size_t n2;
  T_OK(ir_print(again, &again_text, &n2));
  cr_expect_str_eq(again_text, got_text, "%s: the rewritten graph does not round-trip", file);
  free(again_text);
  ir_graph_destroy(again);
  cr_expect_eq(any, !unchanged, "%s: the passes %s a change", file,
               any ? "reported" : "did not report");
  bool exact = optspec && strstr(optspec, "exact");
  const char *at = optspec ? strstr(optspec, "atol=") : NULL;
  check_same_results(file, before, g, exact ? 0 : o.precision == IR_PRECISION_FP16 ? 1e-2 : 1e-5,
                     at ? atof(at + 5) : 1e-6);
  free(got);
  free(want);
  free(got_text);
  free(want_text);
  free(passes);
  free(optspec);
  free(text);
  ir_graph_destroy(g);
  ir_graph_destroy(before);
}

Test(passes_golden, every_case) {
  char **files;
  int n = list_vkir("tests/passes/golden", &files);
  cr_assert_geq(n, 18, "expected the golden cases in tests/passes/golden");
  for (int i = 0; i < n; i++) {
    run_case(files[i]);
    free(files[i]);
  }
  free(files);
}

/* The whole pipeline on every graph of the IR text corpus (tests/ir: every
 * op, blob weights, odd layouts): the result must verify and compute what
 * the input computes. Graphs whose random inputs the CPU refuses (indices
 * out of range) are skipped. */
Test(passes_pipeline, keeps_cpu_results_on_the_ir_corpus) {
  char **files;
  int n = list_vkir("tests/ir", &files);
  cr_assert_geq(n, 30);
  int checked = 0;
  for (int i = 0; i < n; i++) {
    ir_graph *before = NULL, *g = NULL;
    T_OK(ir_parse_file(files[i], &before));
    T_OK(ir_parse_file(files[i], &g));
    bool runs = true;
    for (int k = 0; k < before->n_inputs && runs; k++)
      runs = !before->inputs[k]->type.bounded && before->inputs[k]->type.dtype != IR_BOOL &&
             ir_dtype_is_float(before->inputs[k]->type.dtype);
    if (runs) {
      t_rng r = t_rng_make(3);
      rt_tensor in[16], out[16];
      for (int k = 0; k < before->n_inputs; k++) {
        const ir_type *t = &before->inputs[k]->type;
        in[k] = t_tensor_random(&r, t->dtype, t->rank, t->dims, -3, 3);
      }
      vkml_status s = rt_cpu_run_graph(before, in, before->n_inputs, out, before->n_outputs);
      runs = s == VKML_OK;
      vkml_status_free(s);
      for (int k = 0; k < before->n_outputs; k++) rt_tensor_free(&out[k]);
      for (int k = 0; k < before->n_inputs; k++) rt_tensor_free(&in[k]);
    }
    pass_pipeline_opts o = {.pass = {.eval = rt_cpu_eval_node}, .verify_each = true};
    vkml_status s = pass_pipeline_run(g, &o);
    cr_assert(!s, "%s: %s", files[i], vkml_status_message(s));
    if (runs) {
      check_same_results(files[i], before, g, 1e-5, 1e-6);
      checked++;
    }
    ir_graph_destroy(g);
    ir_graph_destroy(before);
    free(files[i]);
  }
  free(files);
  cr_assert_geq(checked, 20, "only %d graphs ran", checked);
}

/* ---- pipeline errors (issue item 5) ---- */

/* A pass that breaks the graph: it gives a relu a second output type. */
static vkml_status break_relu(ir_graph *g, const pass_opts *o, bool *changed) {
  (void)o;
  ir_foreach_node(g, n) if (n->op == IR_OP_RELU) n->outputs[0]->type.dims[0] += 1;
  if (changed) *changed = true;
  return VKML_OK;
}

Test(passes_pipeline, a_pass_that_breaks_the_verifier_is_an_internal_error_naming_pass_and_node) {
  const char *text = "vkir 1\n"
                     "graph @g(%x: f32[2,3]) -> (%y: f32[2,3]) {\n"
                     "  %y = relu %x : f32[2,3]\n"
                     "  return %y\n"
                     "}\n";
  ir_graph *g = parse_verified(text, strlen(text), "<test>");
  vkml_status s = pass_run_verified(g, "break_relu", break_relu, &(pass_opts){0}, NULL);
  t_expect_error(s, VKML_CODE_INTERNAL, "pass break_relu broke the graph: ");
  s = pass_run_verified(g, "break_relu", break_relu, &(pass_opts){0}, NULL);
  cr_assert(s);
  cr_assert(strstr(vkml_status_message(s), "relu %y"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  ir_graph_destroy(g);
}

Test(passes_pipeline, unknown_dump_name_lists_the_passes) {
  vkml_status s = pass_check_dump_name("fold_everything");
  cr_assert(s);
  const char *m = vkml_status_message(s);
  cr_assert(strstr(m, "unknown pass 'fold_everything'"), "%s", m);
  cr_assert(strstr(m, "fold_constants, remove_identities, dce, fuse_bias, hoist_channelwise, fold_batchnorm, "
                      "merge_pad, "
                      "fuse_activation, fuse_attention, split_k_gemm, fuse_elementwise, fuse_copies, attention_views, bound_topk, winograd, fp16, split_nonzero, split_scan, "
                      "split_reduce, split_topk, split_nms, split_sort, split_k, place, layout, insert_transfers, all"),
            "%s", m);
  vkml_status_free(s);
  T_OK(pass_check_dump_name("all"));
  T_OK(pass_check_dump_name("dce"));
  T_OK(pass_check_dump_name(NULL));
  ir_graph *g = NULL;
  t_expect_error(pass_run_by_name(g, "nope", &(pass_opts){0}, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "unknown pass 'nope'");
}

Test(passes_pipeline, dumps_after_the_named_pass_and_runs_every_pass) {
  const char *text = "vkir 1\n"
                     "graph @g(%x: f32[1,2,3,3]) -> (%y: f32[1,2,3,3]) {\n"
                     "  %w = const f32[2,2,1,1] [1.0, 2.0, -1.0, 0.5]\n"
                     "  %c = conv2d %x, %w : f32[1,2,3,3]\n"
                     "  %i = identity %c : f32[1,2,3,3]\n"
                     "  %y = relu %i : f32[1,2,3,3]\n"
                     "  return %y\n"
                     "}\n";
  ir_graph *g = parse_verified(text, strlen(text), "<test>");
  ir_graph *before = parse_verified(text, strlen(text), "<test>");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  pass_pipeline_opts o = {.pass = {.eval = rt_cpu_eval_node}, .dump_after = "fuse_activation",
                          .dump = f};
  T_OK(pass_pipeline_run(g, &o));
  fclose(f);
  cr_assert(strstr(buf, "# after fuse_activation\n"), "%s", buf);
  cr_assert(!strstr(buf, "# after dce"), "%s", buf);
  cr_assert(strstr(buf, "%y = conv2d %x, %w {act=relu} : f32[1,2,3,3]"), "%s", buf);
  check_same_results("<pipeline>", before, g, 1e-6, 1e-6);
  free(buf);
  ir_graph_destroy(g);
  ir_graph_destroy(before);
}
