/* The CPU executor on small graphs built through the API: input binding,
 * constants (inline and blob), outputs that alias inputs or constants, and
 * run-time sizes flowing out of a bounded op. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "../support/test_support.h"

static ir_type f32(int rank, const int64_t *dims) { return ir_type_make(IR_F32, rank, dims); }

/* y = relu(x * w + b) with w inline and b in the blob; z = x (graph input). */
static ir_graph *build_small(float *blob_storage) {
  ir_graph *g;
  int64_t d[2] = {2, 3};
  T_OK(ir_graph_create("small", &g));
  ir_type t = f32(2, d), tb = f32(1, d + 1);
  ir_value *x, *w, *b, *m, *y;
  T_OK(ir_value_create(g, "x", &t, &x));
  T_OK(ir_graph_add_input(g, x));
  float wv[6] = {1, -2, 3, -4, 5, -6};
  T_OK(ir_const_create_inline(g, "w", &t, wv, &w));
  blob_storage[0] = 0.5f;
  blob_storage[1] = -0.25f;
  blob_storage[2] = 10.0f;
  T_OK(ir_const_create_blob(g, "b", &tb, 0, &b));
  ir_graph_set_blob(g, blob_storage, 12, false);
  T_OK(ir_value_create(g, "m", &t, &m));
  T_OK(ir_value_create(g, "y", &t, &y));
  ir_node *n;
  ir_value *in1[2] = {x, w}, *in2[2] = {m, b};
  T_OK(ir_node_create(g, IR_OP_MUL, in1, 2, &m, 1, &n));
  T_OK(ir_node_create(g, IR_OP_ADD, in2, 2, &y, 1, &n));
  T_OK(ir_node_set_enum(g, n, IR_A_ACT, IR_ACT_RELU));
  T_OK(ir_graph_add_output(g, y));
  T_OK(ir_graph_add_output(g, x));
  T_OK(ir_graph_add_output(g, w));
  T_OK(ir_verify(g, NULL));
  return g;
}

Test(cpu_executor, runs_graph_with_inline_and_blob_constants) {
  float blob[3];
  ir_graph *g = build_small(blob);
  int64_t d[2] = {2, 3};
  double xv[6] = {0.5, 1.5, -1, 2, -0.5, 3};
  rt_tensor x = t_tensor_from(IR_F32, 2, d, xv), outs[3];
  double profile[8];
  T_OK(rt_cpu_run_graph_profiled(g, &x, 1, outs, 3, profile));
  double w[6] = {1, -2, 3, -4, 5, -6}, b[3] = {0.5, -0.25, 10};
  for (int i = 0; i < 6; i++) {
    double want = fmax(0.0, xv[i] * w[i] + b[i % 3]);
    cr_assert_float_eq(rt_load_f(&outs[0], i), want, 1e-6, "y[%d]", i);
    cr_assert_eq(rt_load_f(&outs[1], i), xv[i], "output aliasing the input");
    cr_assert_eq(rt_load_f(&outs[2], i), w[i], "output aliasing a constant");
  }
  cr_assert(outs[1].data != x.data, "outputs own their data");
  for (int i = 0; i < g->n_nodes; i++) cr_assert(profile[i] >= 0);
  for (int i = 0; i < 3; i++) rt_tensor_free(&outs[i]);
  rt_tensor_free(&x);
  ir_graph_destroy(g);
}

Test(cpu_executor, rejects_mismatched_inputs_by_name) {
  float blob[3];
  ir_graph *g = build_small(blob);
  int64_t d[2] = {3, 2};
  t_rng r = t_rng_make(1);
  rt_tensor x = t_tensor_random(&r, IR_F32, 2, d, -1, 1), outs[3];
  vkml_status s = rt_cpu_run_graph(g, &x, 1, outs, 3);
  cr_assert_not_null(s);
  cr_assert(strstr(vkml_status_message(s), "input %x: expected f32[2,3], got f32[3,2]"),
            "%s", vkml_status_message(s));
  for (int i = 0; i < 3; i++) cr_assert_null(outs[i].data);
  vkml_status_free(s);
  rt_tensor_free(&x);

  int64_t d2[2] = {2, 3};
  x = t_tensor_random(&r, IR_I32, 2, d2, -5, 5);
  s = rt_cpu_run_graph(g, &x, 1, outs, 3);
  cr_assert(s && strstr(vkml_status_message(s), "got i32[2,3]"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  s = rt_cpu_run_graph(g, &x, 0, outs, 3);
  cr_assert(s && strstr(vkml_status_message(s), "takes 1 inputs"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  rt_tensor_free(&x);
  ir_graph_destroy(g);
}

Test(cpu_executor, missing_blob_is_an_error_not_a_crash) {
  float blob[3];
  ir_graph *g = build_small(blob);
  ir_graph_set_blob(g, NULL, 0, false);
  int64_t d[2] = {2, 3};
  t_rng r = t_rng_make(2);
  rt_tensor x = t_tensor_random(&r, IR_F32, 2, d, -1, 1), outs[3];
  vkml_status s = rt_cpu_run_graph(g, &x, 1, outs, 3);
  cr_assert(s && strstr(vkml_status_message(s), "constant %b"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  rt_tensor_free(&x);
  ir_graph_destroy(g);
}

/* topk with a run-time k feeds relu: the relu must see the actual size. */
Test(cpu_executor, bounded_sizes_flow_downstream) {
  const char *text =
      "vkir 1\n"
      "graph @g(%x: f32[2,6], %k: i64[1]) -> (%r: f32[2,<=6], %i: i64[2,<=6]) {\n"
      "  %v, %i = topk %x, %k {axis=1} : f32[2,<=6], i64[2,<=6]\n"
      "  %r = neg %v : f32[2,<=6]\n"
      "  return %r, %i\n"
      "}\n";
  ir_graph *g;
  T_OK(ir_parse(text, strlen(text), "bounded.vkir", &g));
  T_OK(ir_verify(g, "bounded.vkir"));
  int64_t dx[2] = {2, 6}, dk[1] = {1};
  double xv[12] = {3, 1, 4, 1.5, 5, 9, -2, -6, -5, -3, -5.5, -8}, kv[1] = {3};
  rt_tensor in[2] = {t_tensor_from(IR_F32, 2, dx, xv), t_tensor_from(IR_I64, 1, dk, kv)};
  rt_tensor outs[2];
  T_OK(rt_cpu_run_graph(g, in, 2, outs, 2));
  cr_assert_eq(outs[0].dims[1], 3, "actual size, not the capacity");
  cr_assert_eq(outs[1].dims[1], 3);
  double want_v[6] = {-9, -5, -4, 2, 3, 5};
  int64_t want_i[6] = {5, 4, 2, 0, 3, 2};
  for (int i = 0; i < 6; i++) {
    cr_assert_eq(rt_load_f(&outs[0], i), want_v[i], "r[%d]", i);
    cr_assert_eq(rt_load_i(&outs[1], i), want_i[i], "i[%d]", i);
  }
  for (int i = 0; i < 2; i++) {
    rt_tensor_free(&outs[i]);
    rt_tensor_free(&in[i]);
  }
  ir_graph_destroy(g);
}

/* to_capacity: the live elements of a bounded value, then its fill value up
 * to the capacity (f32 -inf, i64 7); a bounded axis with dims before it
 * other than 1, or an integer fill of inf, is refused by the inference. */
Test(cpu_executor, to_capacity_pads_past_the_count) {
  const char *text =
      "vkir 1\n"
      "graph @g(%x: f32[1,<=5,2], %n: i64[<=4]) -> (%y: f32[1,5,2], %m: i64[4]) {\n"
      "  %y = to_capacity %x {value=-inf} : f32[1,5,2]\n"
      "  %m = to_capacity %n {value=7} : i64[4]\n"
      "  return %y, %m\n"
      "}\n";
  ir_graph *g;
  T_OK(ir_parse(text, strlen(text), "cap.vkir", &g));
  T_OK(ir_verify(g, "cap.vkir"));
  int64_t dx[3] = {1, 2, 2}, dn[1] = {1};
  double xv[4] = {1, 2, 3, 4}, nv[1] = {-3};
  rt_tensor in[2] = {t_tensor_from(IR_F32, 3, dx, xv), t_tensor_from(IR_I64, 1, dn, nv)};
  rt_tensor outs[2];
  T_OK(rt_cpu_run_graph(g, in, 2, outs, 2));
  cr_assert_eq(outs[0].dims[1], 5);
  for (int i = 0; i < 10; i++)
    cr_assert_eq(rt_load_f(&outs[0], i), i < 4 ? xv[i] : -INFINITY, "y[%d]", i);
  for (int i = 0; i < 4; i++) cr_assert_eq(rt_load_i(&outs[1], i), i < 1 ? -3 : 7, "m[%d]", i);
  for (int i = 0; i < 2; i++) {
    rt_tensor_free(&outs[i]);
    rt_tensor_free(&in[i]);
  }
  ir_graph_destroy(g);
  static const char *bad[] = {
      "vkir 1\ngraph @g(%x: f32[2,<=5]) -> (%y: f32[2,5]) {\n"
      "  %y = to_capacity %x : f32[2,5]\n  return %y\n}\n",
      "vkir 1\ngraph @g(%x: i32[<=5]) -> (%y: i32[5]) {\n"
      "  %y = to_capacity %x {value=inf} : i32[5]\n  return %y\n}\n"};
  for (int i = 0; i < 2; i++) {
    vkml_status s = ir_parse(bad[i], strlen(bad[i]), "bad.vkir", &g);
    if (!s) {
      s = ir_verify(g, "bad.vkir");
      ir_graph_destroy(g);
    }
    cr_assert(s && strstr(vkml_status_message(s), "to_capacity"), "case %d: %s", i,
              s ? vkml_status_message(s) : "accepted");
    vkml_status_free(s);
  }
}
