/* Errors raised on the device (runtime/vk/vk_errors.c): a gather whose
 * indices are out of range fails the run on the GPU as it fails on the CPU,
 * naming the node, on the lean path (one program) and on the segment path
 * (GPU steps around a CPU step); the next run with good indices succeeds
 * (the slots are cleared before every run). */
#include <criterion/criterion.h>
#include <string.h>

#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

static const char *k_graph =
    "vkir 1\n"
    "graph @g(%x: f32[5,4], %i: i64[2]) -> (%y: f32[2,4], %z: f32[2,4]) {\n"
    "  %y = gather %x, %i {name=\"/Gather\"} : f32[2,4]\n"
    "  %z = relu %y : f32[2,4]\n"
    "  return %y, %z\n"
    "}\n";

static void inputs(rt_tensor *in, int64_t i0, int64_t i1) {
  int64_t xd[2] = {5, 4}, id[1] = {2};
  t_rng r = t_rng_make(7);
  in[0] = t_tensor_random(&r, IR_F32, 2, xd, -1, 1);
  T_OK(rt_tensor_alloc_dims(IR_I64, 1, id, &in[1]));
  ((int64_t *)in[1].data)[0] = i0;
  ((int64_t *)in[1].data)[1] = i1;
}

/* One executor: a bad run, then a good one; cpu_ops forces relu onto the
 * CPU (the segment path) when set. */
static void bad_then_good(const vt_env *e, bool relu_on_cpu, bool no_lean) {
  bool cpu_ops[IR_OP_COUNT] = {0};
  cpu_ops[IR_OP_RELU] = relu_on_cpu;
  ir_plan *p = vt_compile(e->t, e->cc, vt_parse(k_graph), cpu_ops, IR_PRECISION_FP32);
  rt_vk_exec_opts o = {.no_lean = no_lean};
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e->ctx, p, &o, &x));
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(x, &st);
  cr_assert_eq(st.n_cpu_steps > 0, relu_on_cpu, "relu on the CPU: %d steps", st.n_cpu_steps);

  rt_tensor in[2], out[2];
  inputs(in, 100, -100);
  /* the CPU reference's words, then the GPU's mark */
  vkml_status s = rt_vk_exec_run(x, in, 2, out, 2, NULL);
  cr_assert(s, "the run must fail");
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  const char *m = vkml_status_message(s);
  cr_assert(strstr(m, "/Gather") && strstr(m, "out of range for axis 0 of size 5") &&
                strstr(m, "on the GPU") &&
                (strstr(m, "index 100 (indices element 0)") ||
                 strstr(m, "index -100 (indices element 1)")),
            "%s", m);
  vkml_status_free(s);
  for (int i = 0; i < 2; i++) cr_assert_null(out[i].data, "outputs zeroed on error");
  rt_tensor_free(&in[1]);

  /* the same executor, good indices: the slot was cleared */
  int64_t id[1] = {2};
  T_OK(rt_tensor_alloc_dims(IR_I64, 1, id, &in[1]));
  ((int64_t *)in[1].data)[0] = 4;
  ((int64_t *)in[1].data)[1] = -5;
  T_OK(rt_vk_exec_run(x, in, 2, out, 2, NULL));
  for (int c = 0; c < 4; c++) {
    cr_expect_eq(((float *)out[0].data)[c], ((float *)in[0].data)[16 + c]);
    cr_expect_eq(((float *)out[0].data)[4 + c], ((float *)in[0].data)[c]);
  }
  for (int i = 0; i < 2; i++) {
    rt_tensor_free(&in[i]);
    rt_tensor_free(&out[i]);
  }
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
}

Test(vk_device_errors, gather_out_of_range_fails_the_run) {
  vt_env e;
  vt_env_open(&e);
  bad_then_good(&e, false, false); /* lean path */
  bad_then_good(&e, false, true);  /* one segment */
  bad_then_good(&e, true, true);   /* GPU, CPU, GPU */
  vt_env_close(&e);
}

/* The CPU executor's message for the same data, which the GPU's repeats. */
Test(vk_device_errors, cpu_words_match) {
  ir_graph *g = vt_parse(k_graph);
  rt_tensor in[2], out[2];
  inputs(in, 100, 0);
  vkml_status s = rt_cpu_run_graph(g, in, 2, out, 2);
  t_expect_error(s, VKML_CODE_INVALID_ARGUMENT,
                 "index 100 (indices element 0) out of range for axis 0 of size 5");
  for (int i = 0; i < 2; i++) rt_tensor_free(&in[i]);
  ir_graph_destroy(g);
}

/* gather_nd and the scatters check their indices on the GPU too: element
 * and value of one bad index, its axis (gather_nd's coordinate j: axis
 * batch_dims + j) and size. */
static void expect_bad(const vt_env *e, const char *text, const double *idx, int64_t n_idx,
                       const char *want) {
  ir_graph *g = vt_parse(text);
  rt_tensor in[3];
  t_rng r = t_rng_make(3);
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *t = &g->inputs[i]->type;
    in[i] = i == 1 ? t_tensor_from(t->dtype, t->rank, t->dims, idx)
                   : t_tensor_random(&r, t->dtype, t->rank, t->dims, -1, 1);
  }
  cr_assert_eq(rt_tensor_numel(&in[1]), n_idx);
  ir_plan *p = vt_compile(e->t, e->cc, g, NULL, IR_PRECISION_FP32);
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e->ctx, p, NULL, &x));
  rt_tensor out[1];
  t_expect_error(rt_vk_exec_run(x, in, p->graph->n_inputs, out, 1, NULL),
                 VKML_CODE_INVALID_ARGUMENT, want);
  for (int i = 0; i < p->graph->n_inputs; i++) rt_tensor_free(&in[i]);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
}

Test(vk_device_errors, gather_nd_and_scatters_check_their_indices) {
  vt_env e;
  vt_env_open(&e);
  expect_bad(&e,
             "vkir 1\ngraph @g(%x: f32[5,4], %i: i64[2,2]) -> (%y: f32[2]) {\n"
             "  %y = gather_nd %x, %i {name=\"/GatherND\"} : f32[2]\n  return %y\n}\n",
             (double[]){1, 2, 3, -9}, 4,
             "(/GatherND): index -9 (indices element 3) out of range for axis 1 of size 4");
  expect_bad(&e,
             "vkir 1\ngraph @g(%x: f32[5], %i: i32[2], %u: f32[2]) -> (%y: f32[5]) {\n"
             "  %y = scatter_elements %x, %i, %u {reduction=add} : f32[5]\n  return %y\n}\n",
             (double[]){0, 7}, 2, "index 7 (indices element 1) out of range for axis 0 of size 5");
  expect_bad(&e,
             "vkir 1\ngraph @g(%x: f32[3,2], %i: i64[1,1], %u: f32[1,2]) -> (%y: f32[3,2]) {\n"
             "  %y = scatter_nd %x, %i, %u : f32[3,2]\n  return %y\n}\n",
             (double[]){3}, 1, "index 3 (indices element 0) out of range for axis 0 of size 3");
  vt_env_close(&e);
}
