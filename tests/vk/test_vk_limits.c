/* The device's storage-buffer limit per shader stage (ir_target
 * max_storage_buffers_per_stage) against placement: a node whose kernel
 * would bind more buffers than the target allows runs on the CPU with a
 * reason naming the limit — also when packed layouts are asked for (the
 * node stays row-major) — and on the GPU when the target allows it. The
 * plans run on lavapipe (validation on) and their outputs are checked
 * against values computed here: concat as index arithmetic, sum as the
 * float sum of the six inputs in order (bounds: exact for concat; sum rtol
 * 1e-6, the GPU and this loop both add in fp32 in input order but the GPU
 * may contract, atol 1e-6 for cancellations). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/plan.h"
#include "ir/text.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

#define N_PARTS 6

/* %y = op of six [2,C_i,3,3] f32 inputs (concat along 1, or sum with equal
 * C), then relu so that the node is not the graph's last. */
static ir_graph *six_graph(const char *op, const int *cs) {
  char text[4096];
  int len = snprintf(text, sizeof text, "vkir 1\ngraph @six(");
  int total = 0;
  for (int i = 0; i < N_PARTS; i++) {
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%%x%d: f32[2,%d,3,3]",
                    i ? ", " : "", i, cs[i]);
    total += cs[i];
  }
  bool concat = !strcmp(op, "concat");
  int yc = concat ? total : cs[0];
  len += snprintf(text + len, sizeof text - (size_t)len, ") -> (%%r: f32[2,%d,3,3]) {\n  %%y = %s",
                  yc, op);
  for (int i = 0; i < N_PARTS; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%%x%d", i ? ", " : " ", i);
  snprintf(text + len, sizeof text - (size_t)len,
           "%s : f32[2,%d,3,3]\n  %%r = relu %%y : f32[2,%d,3,3]\n  return %%r\n}\n",
           concat ? " {axis=1}" : "", yc, yc);
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<six>", &g));
  T_OK(ir_verify(g, "<six>"));
  return g;
}

/* The plan's step for the node that makes %y (the six-input node). */
static const ir_plan_step *six_step(const ir_plan *p) {
  const ir_graph *pg = p->graph;
  int i = 0;
  ir_foreach_node(pg, n) {
    if (n->n_inputs == N_PARTS) return &p->steps[i];
    i++;
  }
  cr_assert_fail("no six-input node in the plan's graph");
  return NULL;
}

/* The expected output (relu of the concat / sum), computed here. */
static rt_tensor expected(bool concat, const int *cs, const rt_tensor *in) {
  int total = 0;
  for (int i = 0; i < N_PARTS; i++) total += cs[i];
  int64_t d[4] = {2, concat ? total : cs[0], 3, 3};
  rt_tensor y = t_tensor_zeros(IR_F32, 4, d);
  float *yp = y.data;
  for (int64_t n = 0; n < 2; n++)
    for (int64_t c = 0; c < d[1]; c++)
      for (int64_t p = 0; p < 9; p++) {
        float v = 0;
        if (concat) {
          int k = 0, c0 = 0;
          while (c >= c0 + cs[k]) c0 += cs[k++];
          v = ((const float *)in[k].data)[(n * cs[k] + (c - c0)) * 9 + p];
        } else {
          for (int k = 0; k < N_PARTS; k++) v += ((const float *)in[k].data)[(n * d[1] + c) * 9 + p];
        }
        yp[(n * d[1] + c) * 9 + p] = v > 0 ? v : 0;
      }
  return y;
}

/* Builds the plan for g on t (layout l) with e's compiler, checks where the
 * six-input node went, runs the plan on e's context and checks the output. */
static void plan_and_run(const vt_env *e, const ir_target *t, const char *op, const int *cs,
                         ir_layout l, bool want_gpu, uint64_t seed) {
  ir_graph *g = six_graph(op, cs);
  drv_opts o = {0};
  o.compiler = e->cc;
  ir_plan *p;
  T_OK(vt_plan_build(g, t, &o, l, NULL, &p));
  const ir_plan_step *s = six_step(p);
  if (want_gpu) {
    cr_assert_eq(s->device, IR_DEVICE_GPU, "%s on %u buffers: on the CPU (%s)", op,
                 t->max_storage_buffers_per_stage,
                 s->device == IR_DEVICE_CPU ? ir_plan_str(p, s->reason) : "");
  } else {
    cr_assert_eq(s->device, IR_DEVICE_CPU, "%s: on the GPU despite a limit of %u", op,
                 t->max_storage_buffers_per_stage);
    const char *why = ir_plan_str(p, s->reason);
    char want[96];
    snprintf(want, sizeof want, "binds 7 storage buffers; the device allows %u per shader stage",
             t->max_storage_buffers_per_stage);
    cr_assert(strstr(why, want) && strstr(why, "maxPerStageDescriptorStorageBuffers"),
              "reason: %s", why);
  }
  /* with nc4hw4 asked for, the node is packed exactly when it runs on the GPU */
  const ir_graph *pg = p->graph;
  ir_foreach_node(pg, n) if (n->n_inputs == N_PARTS) {
    bool packed = n->outputs[0]->layout == IR_LAYOUT_NC4HW4;
    bool want_packed = l == IR_LAYOUT_NC4HW4 && want_gpu && !strcmp(op, "concat");
    cr_assert_eq(packed, want_packed, "%s: packed %d", op, packed);
  }

  t_rng r = t_rng_make(seed);
  rt_tensor in[N_PARTS];
  for (int i = 0; i < N_PARTS; i++) {
    int64_t d[4] = {2, cs[i], 3, 3};
    in[i] = t_tensor_random(&r, IR_F32, 4, d, -2, 2);
  }
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e->ctx, p, NULL, &x));
  rt_tensor got;
  T_OK(rt_vk_exec_run(x, in, N_PARTS, &got, 1, NULL));
  rt_tensor want = expected(!strcmp(op, "concat"), cs, in);
  if (!strcmp(op, "concat")) t_assert_close(&got, &want, 0, 0);
  else t_assert_close(&got, &want, 1e-6, 1e-6);
  rt_tensor_free(&got);
  rt_tensor_free(&want);
  for (int i = 0; i < N_PARTS; i++) rt_tensor_free(&in[i]);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
}

Test(vk_limits, minimum_target_allows_four) {
  ir_target t;
  memset(&t, 0xab, sizeof t);
  ir_target_minimum(&t);
  cr_assert_eq(t.max_storage_buffers_per_stage, 4u);
}

Test(vk_limits, device_reports_its_limit) {
  vt_env e;
  vt_env_open(&e);
  const ir_target *t = e.t;
  /* Vulkan's minimum; every kernel of up to 32 buffers fits lavapipe */
  cr_assert_geq(t->max_storage_buffers_per_stage, 4u);
  if (t->type == IR_TARGET_CPU) cr_assert_geq(t->max_storage_buffers_per_stage, 32u);
  vt_env_close(&e);
}

Test(vk_limits, too_many_buffers_run_on_the_cpu) {
  vt_env e;
  vt_env_open(&e);
  const ir_target *real = e.t;
  cr_assert_geq(real->max_storage_buffers_per_stage, (uint32_t)N_PARTS + 1);
  ir_target four = *real, seven = *real;
  four.max_storage_buffers_per_stage = 4;
  seven.max_storage_buffers_per_stage = N_PARTS + 1; /* exactly enough */
  ir_target six = *real;
  six.max_storage_buffers_per_stage = N_PARTS; /* one short */

  static const int concat_cs[N_PARTS] = {4, 8, 3, 5, 2, 6};
  static const int sum_cs[N_PARTS] = {5, 5, 5, 5, 5, 5};
  plan_and_run(&e, &four, "concat", concat_cs, IR_LAYOUT_DEFAULT, false, 1);
  plan_and_run(&e, &six, "concat", concat_cs, IR_LAYOUT_DEFAULT, false, 2);
  plan_and_run(&e, &seven, "concat", concat_cs, IR_LAYOUT_DEFAULT, true, 3);
  plan_and_run(&e, real, "concat", concat_cs, IR_LAYOUT_DEFAULT, true, 4);
  plan_and_run(&e, &four, "sum", sum_cs, IR_LAYOUT_DEFAULT, false, 5);
  plan_and_run(&e, real, "sum", sum_cs, IR_LAYOUT_DEFAULT, true, 6);
  /* packed layouts asked for: the node stays row-major on the CPU */
  plan_and_run(&e, &four, "concat", concat_cs, IR_LAYOUT_NC4HW4, false, 7);
  plan_and_run(&e, real, "concat", concat_cs, IR_LAYOUT_NC4HW4, true, 8);

  /* a target that does not say (0) is not limited */
  ir_target unknown = *real;
  unknown.max_storage_buffers_per_stage = 0;
  plan_and_run(&e, &unknown, "concat", concat_cs, IR_LAYOUT_DEFAULT, true, 9);
  vt_env_close(&e);
}
