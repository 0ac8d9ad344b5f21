/* Helpers for the ONNX importer tests: paths of the models that
 * gen_models.py writes (directory in $VKML_ONNX_MODELS), importing, running
 * on the CPU executor and comparing with the NumPy results saved next to
 * each model. Header-only: each test executable includes it once. */
#ifndef ONNX_TEST_UTIL_H
#define ONNX_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx_import.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/executor.h"
#include "runtime/tensor_pb.h"
#include "test_support.h"

/* NAME + suffix inside the models directory (static buffer per call site is
 * not needed: the caller frees). */
static inline char *model_path(const char *name, const char *suffix) {
  const char *dir = getenv("VKML_ONNX_MODELS");
  cr_assert(dir, "VKML_ONNX_MODELS is not set (run through meson test)");
  size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s%s", dir, name, suffix);
  return p;
}

/* o with the CPU reference kernels as the folding evaluator, as the tools
 * import (unless o names another). */
static inline onnx_import_opts with_eval(const onnx_import_opts *o) {
  onnx_import_opts r = o ? *o : (onnx_import_opts){0};
  if (!r.eval) r.eval = rt_cpu_eval_node;
  return r;
}

static inline ir_graph *import_model(const char *name, const onnx_import_opts *o) {
  char *p = model_path(name, ".onnx");
  ir_graph *g = NULL;
  onnx_import_opts oo = with_eval(o);
  vkml_status s = onnx_import_file(p, &oo, &g);
  cr_assert(s == VKML_OK, "%s: %s", name, vkml_status_message(s));
  free(p);
  return g;
}

/* Expects an import error with this code whose message contains want. */
static inline void import_fails(const char *file, const onnx_import_opts *o,
                                vkml_code code, const char *want) {
  char *p = model_path(file, "");
  ir_graph *g = (ir_graph *)1;
  onnx_import_opts oo = with_eval(o);
  vkml_status s = onnx_import_file(p, &oo, &g);
  cr_assert(s != VKML_OK, "%s imported, expected an error containing '%s'", file, want);
  const char *msg = vkml_status_message(s);
  cr_expect(g == NULL, "%s: *out not NULL on error", file);
  cr_expect(strncmp(msg, p, strlen(p)) == 0, "message does not start with the file "
            "name: %s", msg);
  cr_expect(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
  cr_expect(vkml_status_code(s) == code, "%s: code %s, expected %s (%s)", file,
            vkml_code_name(vkml_status_code(s)), vkml_code_name(code), msg);
  vkml_status_free(s);
  free(p);
}

static inline rt_tensor read_pb(const char *name, const char *kind, int i) {
  char suffix[32];
  snprintf(suffix, sizeof suffix, ".%s%d.pb", kind, i);
  char *p = model_path(name, suffix);
  rt_tensor t;
  T_OK(rt_tensor_read_pb(p, &t, NULL));
  free(p);
  return t;
}

/* Runs g on NAME.in<k>.pb for the k in feed[0..n_feed) and compares its
 * n_out outputs with NAME.out<k>.pb. */
static inline void run_compare_feed(ir_graph *g, const char *name, const int *feed,
                                    int n_feed, int n_out) {
  rt_tensor ins[16], outs[16], wants[16];
  cr_assert(n_feed <= 16 && n_out <= 16);
  cr_assert_eq(g->n_inputs, n_feed, "graph has %d inputs, %d fed", g->n_inputs, n_feed);
  cr_assert_eq(g->n_outputs, n_out);
  for (int i = 0; i < n_feed; i++) ins[i] = read_pb(name, "in", feed[i]);
  T_OK(rt_cpu_run_graph(g, ins, n_feed, outs, n_out));
  for (int i = 0; i < n_out; i++) {
    wants[i] = read_pb(name, "out", i);
    t_assert_close(&outs[i], &wants[i], 1e-5, 1e-6);
    rt_tensor_free(&outs[i]);
    rt_tensor_free(&wants[i]);
  }
  for (int i = 0; i < n_feed; i++) rt_tensor_free(&ins[i]);
}

static inline void run_compare(ir_graph *g, const char *name, int n_in, int n_out) {
  int feed[8];
  for (int i = 0; i < n_in && i < 8; i++) feed[i] = i;
  run_compare_feed(g, name, feed, n_in, n_out);
}

/* The k-th node of op in g (0-based), or NULL. */
static inline ir_node *nth_node(const ir_graph *g, ir_op op, int k) {
  ir_foreach_node(g, n) if (n->op == op && k-- == 0) return n;
  return NULL;
}

static inline int count_nodes(const ir_graph *g) {
  int c = 0;
  ir_foreach_node(g, n) c++;
  return c;
}

static inline void expect_ints(const ir_node *n, ir_attr_id id, const int64_t *want,
                               int cnt) {
  const int64_t *v;
  int got = ir_node_ints(n, id, &v);
  cr_assert_eq(got, cnt, "attribute %s has %d values, expected %d", ir_attr_name(id),
               got, cnt);
  for (int i = 0; i < cnt; i++)
    cr_expect_eq(v[i], want[i], "%s[%d] = %lld, expected %lld", ir_attr_name(id), i,
                 (long long)v[i], (long long)want[i]);
}

#endif
