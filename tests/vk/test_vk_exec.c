/* Whole graphs on the GPU: cg_plan_build + rt_vk_exec against the CPU
 * executor (rt_cpu_run_graph) on random non-zero inputs — GPU -> CPU -> GPU
 * transitions, constants, outputs that are inputs or constants, repeated
 * runs of the recorded programs, module and pipeline sharing, data-dependent
 * shapes, the fp16 path, --cpu-ops, timestamps and the error paths.
 *
 * Kernels: the tests pick them with a chooser that knows only the
 * elementwise binary template (add/sub/mul/div/min/max), so placement stays
 * the same while other kernel families land; one test runs the bundled
 * example through the default chooser (cg_kernel_for_node).
 *
 * Bounds (|got - want| <= atol + rtol*|want|):
 *   fp32: rtol 1e-6, atol 0 — add/sub/mul/max are correctly rounded in fp32
 *         on both sides; graph inputs/constants returned as outputs: exact.
 *   fp16 vs the CPU executor on the same converted graph: rtol 2^-9 (two
 *         f16 ulps: the GPU rounds an fp32 result, the CPU a double one),
 *         atol 1e-4 (f16 subnormals near results that cancel).
 *   fp16 vs the original fp32 graph: rtol 1e-2, atol 1e-2 (inputs are O(1);
 *         every op rounds to f16, 2^-11 relative, over a chain of four ops
 *         with values up to ~10). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/binary.h"
#include "codegen/core/ops.h"
#include "codegen/core/plan.h"
#include "driver/driver.h"
#include "ir/text.h"
#include "passes/pass.h"
#include "runtime/cpu/executor.h"
#include "runtime/cpu/threads.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

#define F16_RTOL (1.0 / 512)
#define F16_ATOL 1e-4
#define F16_VS_F32 1e-2

/* Only the binary template: everything else stays on the CPU. */
static vkml_status choose_binary(void *user, const ir_node *n, const ir_target *t,
                                 cg_kernel *k) {
  int *calls = user;
  if (calls) (*calls)++;
  cg_binary_workload w;
  /* placement asked for the default kernels: the others keep them */
  vkml_status s = cg_binary_workload_from_node(n, &w);
  if (vkml_status_code(s) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(s);
    return cg_kernel_for_node(n, NULL, NULL, t, k);
  }
  VKML_RETURN_IF_ERROR(s);
  if (w.out.dtype != IR_F32 && w.out.dtype != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "test chooser: %s", ir_dtype_name(w.out.dtype));
  return cg_binary_instantiate(&w, &cg_binary_template.dflt, t, k);
}

static drv_opts opts_binary(vt_env *e, ir_precision prec) {
  drv_opts o = {0};
  o.compiler = e->cc;
  o.choose = choose_binary;
  o.precision = prec;
  return o;
}

/* Appends "[v, v, ...]" of n random non-zero values in [-2, 2). */
static void append_values(char *buf, size_t bytes, t_rng *r, int n) {
  size_t o = strlen(buf);
  o += (size_t)snprintf(buf + o, bytes - o, "[");
  for (int i = 0; i < n; i++)
    o += (size_t)snprintf(buf + o, bytes - o, "%s%.6f", i ? ", " : "", t_rng_nonzero(r, -2, 2));
  snprintf(buf + o, bytes - o, "]");
}

/* GPU add -> CPU mul (forced) -> GPU sub -> CPU sigmoid (forced) -> GPU max;
 * a constant; outputs: a GPU value, a CPU value, the input, the constant and
 * the first output again. */
static ir_graph *mix_graph(uint64_t seed) {
  char text[8192] = "vkir 1\n"
                    "graph @mix(%x: f32[2,3,5], %y: f32[5]) -> (%out: f32[2,3,5], "
                    "%s: f32[2,3,5], %x: f32[2,3,5], %c: f32[2,3,5], %out: f32[2,3,5]) {\n"
                    "  %c = const f32[2,3,5] ";
  t_rng r = t_rng_make(seed);
  append_values(text, sizeof text, &r, 30);
  strcat(text, "\n"
               "  %a = add %x, %y {act=relu} : f32[2,3,5]\n"
               "  %b = mul %a, %c : f32[2,3,5]\n"
               "  %d = sub %b, %x : f32[2,3,5]\n"
               "  %s = sigmoid %d : f32[2,3,5]\n"
               "  %out = max %d, %a : f32[2,3,5]\n"
               "  return %out, %s, %x, %c, %out\n"
               "}\n");
  return vt_parse(text);
}

static void random_inputs(const ir_graph *g, uint64_t seed, rt_tensor *in) {
  t_rng r = t_rng_make(seed);
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *t = &g->inputs[i]->type;
    in[i] = t_tensor_random(&r, t->dtype, t->rank, t->dims, -2, 2);
  }
}

static void free_tensors(rt_tensor *t, int n) {
  for (int i = 0; i < n; i++) rt_tensor_free(&t[i]);
}

/* Runs exec on in[] and checks every output against the CPU executor on
 * ref_graph; returns nothing, asserts. */
static void check_run(rt_vk_exec *x, const ir_graph *ref_graph, const rt_tensor *in, int n_in,
                      double rtol, double atol, double *step_ns) {
  int no = ref_graph->n_outputs;
  rt_tensor got[8], want[8];
  cr_assert(no <= 8);
  T_OK(rt_vk_exec_run(x, in, n_in, got, no, step_ns));
  T_OK(rt_cpu_run_graph(ref_graph, in, n_in, want, no));
  for (int i = 0; i < no; i++) t_assert_close(&got[i], &want[i], rtol, atol);
  free_tensors(got, no);
  free_tensors(want, no);
}

static const ir_plan_step *step_of(const ir_plan *p, const ir_graph *g, const char *out_name) {
  int i = 0;
  ir_foreach_node(g, n) {
    if (!strcmp(n->outputs[0]->name, out_name)) return &p->steps[i];
    i++;
  }
  cr_assert_fail("no node makes %%%s", out_name);
  return NULL;
}

Test(vk_exec, transitions_and_repeated_runs) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = mix_graph(1);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "Mul, sigmoid", &p));
  const ir_graph *pg = p->graph;
  /* a, download a, b, upload b, d, download d, s, out: one transfer per
   * crossing value and direction (d's one download serves s) */
  cr_assert_eq(p->n_steps, 8);
  const char *gpu[] = {"a", "d", "out"}, *cpu[] = {"b", "s"};
  for (int i = 0; i < 3; i++) cr_assert_eq(step_of(p, pg, gpu[i])->device, IR_DEVICE_GPU, "%s", gpu[i]);
  for (int i = 0; i < 2; i++) {
    const ir_plan_step *s = step_of(p, pg, cpu[i]);
    cr_assert_eq(s->device, IR_DEVICE_CPU, "%s", cpu[i]);
    cr_assert(strstr(ir_plan_str(p, s->reason), "--cpu-ops"), "%s", ir_plan_str(p, s->reason));
  }
  cr_assert_eq(step_of(p, pg, "a.host")->transfer, IR_TRANSFER_DOWNLOAD);
  cr_assert_eq(step_of(p, pg, "b.dev")->transfer, IR_TRANSFER_UPLOAD);
  cr_assert_eq(step_of(p, pg, "d.host")->transfer, IR_TRANSFER_DOWNLOAD);
  /* provenance of a GPU step */
  const ir_plan_step *sa = step_of(p, pg, "a");
  cr_assert_str_eq(ir_plan_str(p, sa->tmpl), "elementwise_binary");
  cr_assert_str_eq(ir_plan_str(p, sa->schedule), "WG_SIZE=128,EPI=4");
  cr_assert(strstr(ir_plan_str(p, sa->key), "add(f32[2,3,5],f32[5])"), "%s",
            ir_plan_str(p, sa->key));
  int n_gpu, n_cpu, n_transfer;
  ir_plan_counts(p, &n_gpu, &n_cpu, &n_transfer);
  cr_assert(n_gpu == 3 && n_cpu == 2 && n_transfer == 3);

  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  for (uint64_t run = 0; run < 3; run++) {
    rt_tensor in[2];
    random_inputs(g, 100 + run, in);
    check_run(x, g, in, 2, 1e-6, 0, NULL);
    /* the input and the constant come back bit for bit */
    rt_tensor got[5];
    T_OK(rt_vk_exec_run(x, in, 2, got, 5, NULL));
    cr_assert(!memcmp(got[2].data, in[0].data, rt_tensor_bytes(&in[0])));
    cr_assert(!memcmp(got[3].data, ir_value_const_data(g, ir_graph_find_value(g, "c")), 120));
    cr_assert(!memcmp(got[0].data, got[4].data, 120));
    free_tensors(got, 5);
    free_tensors(in, 2);
  }
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(x, &st);
  /* recorded once, replayed: three segments, each submitted once per run */
  cr_assert_eq(st.n_segments, 3);
  cr_assert_eq(st.n_gpu_steps, 3);
  cr_assert_eq(st.n_cpu_steps, 2);
  /* the CPU steps' kernels run on a pool of the host's cores */
  cr_assert_eq(st.cpu_threads, rt_threads_default(), "%d threads", st.cpu_threads);
  cr_assert_eq(st.n_transfer_steps, 3);
  cr_assert_eq(st.n_pipelines, 3);
  cr_assert_eq(st.n_runs, 6);
  cr_assert_eq(st.n_segment_runs, 18);
  /* per run: x, y and b go up; a and d come down for the CPU, out twice
   * and x for the outputs (s, c are on the host) */
  cr_assert_eq(st.n_uploads, 6 * 3, "%lld", (long long)st.n_uploads);
  /* buffers for the values GPU steps bind (not c, s): x, y and out of their
   * own, a, b.dev and d in the arena, all three live at d's step (a until
   * out, b.dev from its upload until d) */
  cr_assert_eq(st.n_buffers, 4, "%d", st.n_buffers);
  cr_assert_eq(st.n_arena_values, 3, "%d", st.n_arena_values);
  cr_assert_eq(st.arena_bytes, 3 * 128, "%llu", (unsigned long long)st.arena_bytes);
  cr_assert_eq(st.device_bytes, 3 * 128 + 128 + 32 + 128);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec, modules_and_pipelines_are_shared) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse("vkir 1\n"
                      "graph @share(%x: f32[4,8], %y: f32[4,8], %z: f32[8]) -> (%r: f32[4,8]) {\n"
                      "  %a = add %x, %y : f32[4,8]\n"
                      "  %b = add %a, %y : f32[4,8]\n"
                      "  %c = add %b, %z : f32[4,8]\n"
                      "  %r = add %c, %x : f32[4,8]\n"
                      "  return %r\n"
                      "}\n");
  int calls = 0;
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  o.choose_user = &calls;
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  cr_assert_eq(calls, 4);
  cr_assert_eq(p->n_modules, 1, "one template, one set of defines: one module");
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(x, &st);
  /* a, b, r have the same shapes and spec constants; c broadcasts */
  cr_assert_eq(st.n_pipelines, 2);
  cr_assert_eq(st.n_segments, 1);
  rt_tensor in[3];
  random_inputs(g, 7, in);
  check_run(x, g, in, 3, 1e-6, 0, NULL);
  free_tensors(in, 3);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* A node the IR places on the CPU (@cpu) stays there; its neighbours run on
 * the GPU. */
Test(vk_exec, ir_cpu_placement_is_kept) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse("vkir 1\n"
                      "graph @at(%x: f32[3,7], %y: f32[7]) -> (%c: f32[3,7]) {\n"
                      "  %a = mul %x, %y : f32[3,7]\n"
                      "  %b = add@cpu %a, %x : f32[3,7]\n"
                      "  %c = div %b, %y : f32[3,7]\n"
                      "  return %c\n"
                      "}\n");
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  /* mul, download a, add, upload b, div */
  cr_assert_eq(p->n_steps, 5);
  cr_assert_eq(p->steps[0].device, IR_DEVICE_GPU);
  cr_assert_eq(p->steps[1].transfer, IR_TRANSFER_DOWNLOAD);
  cr_assert_eq(p->steps[2].device, IR_DEVICE_CPU);
  cr_assert_eq(p->steps[2].transfer, IR_TRANSFER_NONE);
  cr_assert_str_eq(ir_plan_str(p, p->steps[2].reason), "placed on the CPU in the IR (@cpu)");
  cr_assert_eq(p->steps[3].transfer, IR_TRANSFER_UPLOAD);
  cr_assert_eq(p->steps[4].device, IR_DEVICE_GPU);
  /* placed by hand without the transfers: the build refuses the crossing */
  ir_plan *q = NULL;
  t_expect_error(drv_plan(&g, e.t, &o, NULL, &q), VKML_CODE_INVALID_ARGUMENT,
                 "plan step 1 (add %b): reads %a on the CPU, but it was left on the GPU "
                 "(no download)");
  cr_assert_null(q);
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  rt_tensor in[2];
  random_inputs(g, 77, in);
  check_run(x, g, in, 2, 1e-6, 0, NULL);
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(x, &st);
  cr_assert_eq(st.n_segments, 2);
  /* x and y go up, a comes down for the CPU step, b goes up, c comes down */
  cr_assert_eq(st.n_uploads, 3);
  cr_assert_eq(st.n_downloads, 2);
  free_tensors(in, 2);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec, fp16_precision) {
  vt_env e;
  vt_env_open(&e);
  vt_env_skip_unless(&e, e.t->storage_16bit, "16-bit storage");
  ir_graph *g = mix_graph(2);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP16);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "mul,Sigmoid", &p));
  cr_assert_not_null(p->graph);
  const ir_graph *pg = p->graph;
  /* the caller's interface is unchanged */
  cr_assert_eq(pg->n_inputs, 2);
  cr_assert_eq(pg->n_outputs, 5);
  for (int i = 0; i < 5; i++) {
    cr_assert_str_eq(pg->outputs[i]->name, g->outputs[i]->name);
    cr_assert_eq(pg->outputs[i]->type.dtype, IR_F32);
  }
  for (int i = 0; i < 2; i++) cr_assert_eq(pg->inputs[i]->type.dtype, IR_F32);
  /* inside, the arithmetic is f16 on the GPU (so are the casts at the
   * edges), the forced ops on the CPU */
  int n_gpu_f16 = 0, i = 0;
  ir_foreach_node(pg, n) {
    const ir_plan_step *s = &p->steps[i++];
    if (s->device != IR_DEVICE_GPU) continue;
    cr_assert(strstr(ir_plan_str(p, s->key), "f16["), "%s", ir_plan_str(p, s->key));
    n_gpu_f16 += n->op != IR_OP_CAST;
  }
  cr_assert_eq(n_gpu_f16, 3);
  cr_assert_eq(step_of(p, pg, "b")->device, IR_DEVICE_CPU);
  cr_assert_eq(ir_graph_find_value(pg, "b")->type.dtype, IR_F16);

  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  for (uint64_t run = 0; run < 2; run++) {
    rt_tensor in[2];
    random_inputs(g, 300 + run, in);
    check_run(x, pg, in, 2, F16_RTOL, F16_ATOL, NULL);
    check_run(x, g, in, 2, F16_VS_F32, F16_VS_F32, NULL);
    rt_tensor got[5];
    T_OK(rt_vk_exec_run(x, in, 2, got, 5, NULL));
    cr_assert(!memcmp(got[2].data, in[0].data, 120), "an input output is exact");
    cr_assert(!memcmp(got[3].data, ir_value_const_data(g, ir_graph_find_value(g, "c")), 120),
              "a constant output keeps its f32 bytes");
    free_tensors(got, 5);
    free_tensors(in, 2);
  }
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* The conversion itself, on the CPU: casts to f32 become casts to f16,
 * integer paths are left alone, names and interface are kept. */
Test(vk_exec, fp16_conversion) {
  ir_graph *g = vt_parse("vkir 1\n"
                      "graph @conv(%x: f32[3,4], %k: i32[4]) -> (%y: f32[3,4], %i: i32[3,4], "
                      "%w: f32[4]) {\n"
                      "  %w = const f32[4] [0.5, -1.25, 3.0, 0.1]\n"
                      "  %i = cast %x {to=i32} : i32[3,4]\n"
                      "  %j = add %i, %k : i32[3,4]\n"
                      "  %f = cast %j {to=f32} : f32[3,4]\n"
                      "  %m = mul %f, %w : f32[3,4]\n"
                      "  %y = add %m, %x : f32[3,4]\n"
                      "  return %y, %i, %w\n"
                      "}\n");
  ir_graph *h;
  T_OK(ir_graph_clone(g, &h));
  T_OK(pass_fp16(h, &(pass_opts){.precision = IR_PRECISION_FP16}, NULL));
  char *text;
  size_t len;
  T_OK(ir_print(h, &text, &len));
  cr_assert(strstr(text, "%f = cast %j {to=f16} : f16[3,4]"), "%s", text);
  cr_assert(strstr(text, "%m = mul %f, %w.f16 : f16[3,4]"), "%s", text);
  cr_assert(strstr(text, "%i = cast %x {to=i32}"), "an int cast reads the exact input: %s", text);
  cr_assert(strstr(text, "%j = add %i, %k : i32[3,4]"), "%s", text);
  cr_assert(strstr(text, "%y = cast "), "the f32 output is a cast back: %s", text);
  cr_assert(strstr(text, "-> (%y: f32[3,4], %i: i32[3,4], %w: f32[4])"), "%s", text);
  free(text);
  t_rng r = t_rng_make(5);
  int64_t dx[2] = {3, 4}, dk[1] = {4};
  rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 2, dx, -5, 5),
                     t_tensor_random(&r, IR_I32, 1, dk, -3, 3)};
  rt_tensor got[3], want[3];
  T_OK(rt_cpu_run_graph(h, in, 2, got, 3));
  T_OK(rt_cpu_run_graph(g, in, 2, want, 3));
  t_assert_close(&got[0], &want[0], F16_VS_F32, F16_VS_F32);
  t_assert_close(&got[1], &want[1], 0, 0);
  t_assert_close(&got[2], &want[2], 0, 0);
  free_tensors(got, 3);
  free_tensors(want, 3);
  free_tensors(in, 2);
  ir_graph_destroy(h);
  ir_graph_destroy(g);
}

/* A node with a data-dependent output size on the CPU (forced there: on
 * the GPU it runs in stages, tests/vk/test_vk_sort.c); its actual size
 * reaches the outputs. */
Test(vk_exec, bounded_shapes_stay_on_the_cpu) {
  vt_env e;
  vt_env_open(&e);
  char text[4096] = "vkir 1\n"
                    "graph @nms(%b: f32[1,6,4], %s: f32[1,2,6]) -> (%sel: i64[<=6,3], "
                    "%bb: f32[1,6,4]) {\n"
                    "  %off = const f32[4] ";
  t_rng r = t_rng_make(11);
  append_values(text, sizeof text, &r, 4);
  strcat(text, "\n"
               "  %bb = add %b, %off : f32[1,6,4]\n"
               "  %sel = non_max_suppression %bb, %s {max_output_boxes_per_class=3, "
               "iou_threshold=0.3, score_threshold=0.2} : i64[<=6,3]\n"
               "  return %sel, %bb\n"
               "}\n");
  ir_graph *g = vt_parse(text);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "non_max_suppression", &p));
  /* add, download bb, non_max_suppression */
  cr_assert_eq(p->n_steps, 3);
  cr_assert_eq(p->steps[0].device, IR_DEVICE_GPU);
  cr_assert_eq(p->steps[1].transfer, IR_TRANSFER_DOWNLOAD);
  cr_assert_eq(p->steps[2].device, IR_DEVICE_CPU);
  cr_assert(strstr(ir_plan_str(p, p->steps[2].reason), "--cpu-ops"), "%s",
            ir_plan_str(p, p->steps[2].reason));
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  rt_tensor in[2];
  int64_t db[3] = {1, 6, 4}, ds[3] = {1, 2, 6};
  in[0] = t_tensor_random(&r, IR_F32, 3, db, 0, 4);
  in[1] = t_tensor_random(&r, IR_F32, 3, ds, 0.05, 1);
  rt_tensor got[2], want[2];
  T_OK(rt_vk_exec_run(x, in, 2, got, 2, NULL));
  T_OK(rt_cpu_run_graph(g, in, 2, want, 2));
  cr_assert(want[0].dims[0] > 0 && want[0].dims[0] <= 6);
  t_assert_close(&got[0], &want[0], 0, 0);
  t_assert_close(&got[1], &want[1], 1e-6, 0);
  free_tensors(got, 2);
  free_tensors(want, 2);
  free_tensors(in, 2);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec, timestamps) {
  vt_env e;
  vt_env_open(&e);
  vt_env_skip_unless(&e, e.t->timestamp_valid_bits, "timestamps");
  ir_graph *g = mix_graph(3);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "mul,sigmoid", &p));
  rt_vk_exec *x;
  rt_vk_exec_opts xo = {.timestamps = true, .wait = RT_VK_WAIT_SPIN};
  T_OK(rt_vk_exec_create(e.ctx, p, &xo, &x));
  rt_tensor in[2];
  random_inputs(g, 9, in);
  double ns[8];
  cr_assert_eq(p->n_steps, 8);
  for (int i = 0; i < 8; i++) ns[i] = -1;
  check_run(x, g, in, 2, 1e-6, 0, ns);
  double gpu = 0;
  for (int i = 0; i < 8; i++) {
    cr_assert(ns[i] >= 0 && ns[i] < 1e10, "step %d: %g ns", i, ns[i]);
    if (p->steps[i].device == IR_DEVICE_GPU) gpu += ns[i];
    else cr_assert(ns[i] > 0, "CPU or transfer step %d has a wall time", i);
  }
  cr_assert(gpu > 0, "GPU steps have timestamps");
  free_tensors(in, 2);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* Replay r of replay_case: plain, or chained (the same chains twice, then
 * with a cache flush, recorded again, then shorter). */
static vkml_status replay_nth(rt_vk_exec *x, bool chained, const rt_vk_buffer *flush, int r,
                              double *ns) {
  static const int repeats[] = {5, 5, 5, 2};
  return chained ? rt_vk_exec_replay_chained(x, repeats[r], r >= 2 ? flush : NULL, ns)
                 : rt_vk_exec_replay(x, ns);
}

/* Replay: the recorded segments again, no transfers, no CPU steps (0 ns);
 * needs a run first; the buffers keep their data (a following run is still
 * right). Chained: each segment's commands `repeat` times in one
 * submission, each after a cache flush when asked, GPU steps timed by the
 * median of their later repeats; 2 or more repeats. */
static void replay_case(bool chained) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = mix_graph(4);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "mul,sigmoid", &p));
  rt_vk_exec *x;
  rt_vk_exec_opts xo = {.timestamps = e.t->timestamp_valid_bits != 0};
  T_OK(rt_vk_exec_create(e.ctx, p, &xo, &x));
  rt_vk_buffer *flush;
  T_OK(rt_vk_buffer_create(e.ctx, RT_VK_MEM_DEVICE, 1 << 20, &flush));
  double ns[8];
  cr_assert_eq(p->n_steps, 8);
  t_expect_error(replay_nth(x, chained, flush, 0, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "complete run first");
  rt_tensor in[2];
  random_inputs(g, 10, in);
  check_run(x, g, in, 2, 1e-6, 0, NULL);
  if (chained)
    t_expect_error(rt_vk_exec_replay_chained(x, 1, NULL, NULL), VKML_CODE_INVALID_ARGUMENT,
                   "2 or more");
  rt_vk_exec_stats before, after;
  rt_vk_exec_stats_get(x, &before);
  cr_assert_eq(before.n_segments, 3);
  for (int r = 0; r < 4; r++) {
    for (int i = 0; i < 8; i++) ns[i] = -1;
    T_OK(replay_nth(x, chained, flush, r, xo.timestamps && r < 3 ? ns : NULL));
    for (int i = 0; xo.timestamps && r < 3 && i < 8; i++) {
      if (p->steps[i].device == IR_DEVICE_CPU) cr_assert_eq(ns[i], 0, "CPU step %d skipped", i);
      else cr_assert(ns[i] > 0 && ns[i] < 1e10, "step %d: %g ns", i, ns[i]);
    }
  }
  rt_vk_exec_stats_get(x, &after);
  cr_assert_eq(after.n_replays, 4);
  cr_assert_eq(after.n_uploads, before.n_uploads, "replays upload nothing");
  cr_assert_eq(after.n_downloads, before.n_downloads, "replays download nothing");
  cr_assert_eq(after.n_segment_runs, before.n_segment_runs + 4 * 3, "a submission per segment");
  cr_assert_eq(after.n_runs, before.n_runs);
  check_run(x, g, in, 2, 1e-6, 0, NULL);
  free_tensors(in, 2);
  rt_vk_exec_destroy(x);
  rt_vk_buffer_destroy(e.ctx, flush);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec, replay) { replay_case(false); }
Test(vk_exec, replay_chained) { replay_case(true); }

Test(vk_exec, input_errors) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = mix_graph(4);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "mul", &p));
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  t_rng r = t_rng_make(4);
  int64_t bad[3] = {2, 3, 4}, dy[1] = {5};
  rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 3, bad, -1, 1),
                     t_tensor_random(&r, IR_F32, 1, dy, -1, 1)};
  rt_tensor out[5];
  t_expect_error(rt_vk_exec_run(x, in, 2, out, 5, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "input %x: expected f32[2,3,5], got f32[2,3,4]");
  for (int i = 0; i < 5; i++) cr_assert_null(out[i].data, "outputs zeroed on error");
  t_expect_error(rt_vk_exec_run(x, in, 1, out, 5, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "takes 2 inputs and 5 outputs, given 1 and 5");
  /* still usable after errors */
  rt_tensor good[2];
  random_inputs(g, 41, good);
  check_run(x, g, good, 2, 1e-6, 0, NULL);
  free_tensors(good, 2);
  free_tensors(in, 2);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec, out_of_device_memory_names_the_value) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = mix_graph(5);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "sigmoid", &p));
  rt_vk_exec *x = NULL;
  /* the weights (the constant c, 128 bytes) go first: they do not fit */
  rt_vk_exec_opts xo = {.max_device_bytes = 100};
  t_expect_error(rt_vk_exec_create(e.ctx, p, &xo, &x), VKML_CODE_OUT_OF_MEMORY,
                 "the weights need 128 device bytes, over the budget of 100");
  cr_assert_null(x);
  /* they do, the input x (128) does not */
  xo.max_device_bytes = 200;
  t_expect_error(rt_vk_exec_create(e.ctx, p, &xo, &x), VKML_CODE_OUT_OF_MEMORY,
                 "%x (graph input): 128 device bytes more exceed the budget of 200 (128 in use)");
  cr_assert_null(x);
  /* x, y, c and out fit, the intermediates' arena (a, b, d: 384) does not */
  xo.max_device_bytes = 128 + 32 + 128 + 128;
  t_expect_error(rt_vk_exec_create(e.ctx, p, &xo, &x), VKML_CODE_OUT_OF_MEMORY,
                 "the intermediates' arena: 384 device bytes more");
  /* enough memory: works */
  xo.max_device_bytes = 1 << 20;
  T_OK(rt_vk_exec_create(e.ctx, p, &xo, &x));
  rt_tensor in[2];
  random_inputs(g, 51, in);
  check_run(x, g, in, 2, 1e-6, 0, NULL);
  free_tensors(in, 2);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e); /* and nothing leaked on the failed creations */
}

Test(vk_exec, plan_must_fit_the_graph) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = mix_graph(6);
  ir_graph *other = vt_parse("vkir 1\ngraph @o(%x: f32[2]) -> (%y: f32[2]) {\n"
                          "  %y = add %x, %x : f32[2]\n  return %y\n}\n");
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  rt_vk_exec *x = NULL;
  /* the plan runs the graph it owns, whatever graph the caller passes */
  cr_assert_not_null(p->graph);
  t_expect_error(ir_plan_check(p, other), VKML_CODE_INVALID_ARGUMENT,
                 "the plan was built for a graph of 5 nodes");
  /* a damaged plan (as from a corrupt file) is refused, naming the step */
  int32_t saved = p->bindings[1];
  p->bindings[1] = p->bindings[0];
  t_expect_error(rt_vk_exec_create(e.ctx, p, NULL, &x), VKML_CODE_INVALID_ARGUMENT,
                 "plan step 0 (add %a): bindings do not match the node");
  p->bindings[1] = saved;
  p->steps[0].module = 7;
  t_expect_error(rt_vk_exec_create(e.ctx, p, NULL, &x), VKML_CODE_INVALID_ARGUMENT,
                 "module index out of range");
  p->steps[0].module = 0;
  /* a transfer step that lost its kind: the CPU step after it would read
   * a device value */
  ir_plan *q;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, "mul", &q));
  cr_assert_eq(q->steps[1].transfer, IR_TRANSFER_DOWNLOAD);
  q->steps[1].transfer = IR_TRANSFER_NONE;
  t_expect_error(rt_vk_exec_create(e.ctx, q, NULL, &x), VKML_CODE_INVALID_ARGUMENT,
                 "plan step 1 (download %a.host): a download or upload that is no transfer step");
  q->steps[1].transfer = IR_TRANSFER_UPLOAD;
  t_expect_error(rt_vk_exec_create(e.ctx, q, NULL, &x), VKML_CODE_INVALID_ARGUMENT,
                 "a transfer step for a node that is no download or upload");
  ir_plan_destroy(q);
  cr_assert_null(x);
  ir_plan_destroy(p);
  ir_graph_destroy(other);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

Test(vk_exec, plan_errors) {
  ir_target t;
  ir_target_minimum(&t);
  ir_graph *g = mix_graph(7);
  ir_plan *p = NULL;
  bool forced[IR_OP_COUNT];
  t_expect_error(drv_op_list_parse("add,Frobnicate", "--cpu-ops", forced),
                 VKML_CODE_INVALID_ARGUMENT, "--cpu-ops: unknown op 'Frobnicate'");
  drv_opts o = {.precision = IR_PRECISION_FP16};
  t_expect_error(drv_plan(&g, &t, &o, NULL, &p), VKML_CODE_UNSUPPORTED,
                 "fp16 precision needs 16-bit storage buffers, which vulkan-1.1-minimum lacks");
  cr_assert_null(p);
  ir_graph_destroy(g);
}

/* The bundled example through the default kernel choice (whatever the kernel
 * families cover today), and with every node forced onto the CPU. */
Test(vk_exec, tinycnn_default_kernels) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = NULL;
  T_OK(ir_parse_file(VKML_SOURCE_ROOT "/tests/models/tinycnn/model.vkir", &g));
  t_rng r = t_rng_make(12);
  int64_t dx[4] = {1, 3, 17, 17};
  rt_tensor in = t_tensor_random(&r, IR_F32, 4, dx, -1, 1);
  const char *forced[2] = {NULL, "conv2d,maxpool,global_avg_pool,flatten,gemm,softmax"};
  for (int k = 0; k < 2; k++) {
    drv_opts o = {.compiler = e.cc};
    ir_plan *p;
    T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, forced[k], &p));
    int n_gpu, n_transfer;
    ir_plan_counts(p, &n_gpu, NULL, &n_transfer);
    if (k == 1) cr_assert(n_gpu == 0 && n_transfer == 0, "all on the CPU: nothing crosses");
    cr_log_info("tinycnn: %d of %d nodes on the GPU", n_gpu, p->n_steps);
    rt_vk_exec *x;
    T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
    check_run(x, g, &in, 1, 1e-4, 1e-6, NULL);
    rt_vk_exec_destroy(x);
    ir_plan_destroy(p);
  }
  rt_tensor_free(&in);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* add -> mul by a constant -> sub -> max, all on the GPU: the lean path. */
static ir_graph *gpu_graph(uint64_t seed) {
  char text[8192] = "vkir 1\n"
                    "graph @lean(%x: f32[2,3,5], %y: f32[5]) -> (%out: f32[2,3,5], "
                    "%x: f32[2,3,5], %c: f32[2,3,5], %d: f32[2,3,5]) {\n"
                    "  %c = const f32[2,3,5] ";
  t_rng r = t_rng_make(seed);
  append_values(text, sizeof text, &r, 30);
  strcat(text, "\n"
               "  %a = add %x, %y {act=relu} : f32[2,3,5]\n"
               "  %b = mul %a, %c : f32[2,3,5]\n"
               "  %d = sub %b, %x : f32[2,3,5]\n"
               "  %out = max %d, %a : f32[2,3,5]\n"
               "  return %out, %x, %c, %d\n"
               "}\n");
  return vt_parse(text);
}

Test(vk_exec, lean_path_and_zero_copy) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = gpu_graph(3);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  rt_vk_exec *lean = NULL, *steps = NULL;
  rt_vk_exec_opts lo = {.timestamps = e.t->timestamp_valid_bits > 0};
  T_OK(rt_vk_exec_create(e.ctx, p, &lo, &lean));
  rt_vk_exec_opts so = {.no_lean = true};
  T_OK(rt_vk_exec_create(e.ctx, p, &so, &steps));
  rt_vk_exec *staged = NULL; /* inputs copied in from staging */
  rt_vk_exec_opts sto = {.staged_inputs = true};
  T_OK(rt_vk_exec_create(e.ctx, p, &sto, &staged));
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(lean, &st);
  cr_assert(st.lean);
  /* lavapipe's memory is device-local and host-visible: the inputs are
   * written where the kernels read them, only the outputs are staged */
  bool direct = rt_vk_memory_has(e.ctx, RT_VK_MEM_UPLOAD);
  cr_assert_eq(st.n_direct_inputs, direct ? 2 : 0);
  cr_assert_eq(st.staging_bytes, (direct ? 0 : 120 + 20) + 4 * 120, "%llu",
               (unsigned long long)st.staging_bytes);
  rt_vk_exec_stats_get(staged, &st);
  cr_assert(st.lean);
  cr_assert_eq(st.n_direct_inputs, 0);
  cr_assert_eq(st.staging_bytes, 120 + 20 + 4 * 120, "%llu", (unsigned long long)st.staging_bytes);
  rt_vk_exec_stats_get(steps, &st);
  cr_assert(!st.lean);
  cr_assert_null(rt_vk_exec_input_map(steps, 0));
  t_expect_error(rt_vk_exec_run_mapped(steps, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "no mapped inputs");
  for (int round = 0; round < 3; round++) { /* new inputs every run */
    rt_tensor in[2], a[4], b[4];
    random_inputs(g, 60 + (uint64_t)round, in);
    double ns[16] = {0};
    check_run(lean, g, in, 2, 1e-6, 0, ns);
    for (int k = 0; lo.timestamps && k < p->n_steps; k++)
      if (rt_vk_exec_step_dispatches(lean, k)) cr_assert_gt(ns[k], 0, "step %d", k);
    T_OK(rt_vk_exec_run(lean, in, 2, a, 4, NULL));
    T_OK(rt_vk_exec_run(steps, in, 2, b, 4, NULL));
    for (int i = 0; i < 4; i++) t_assert_close(&a[i], &b[i], 0, 0); /* bit for bit */
    free_tensors(b, 4);
    T_OK(rt_vk_exec_run(staged, in, 2, b, 4, NULL));
    for (int i = 0; i < 4; i++) t_assert_close(&a[i], &b[i], 0, 0);
    /* zero copy: the inputs written into the mapped memory */
    for (int i = 0; i < 2; i++)
      memcpy(rt_vk_exec_input_map(lean, i), in[i].data, rt_tensor_bytes(&in[i]));
    T_OK(rt_vk_exec_run_mapped(lean, NULL));
    for (int i = 0; i < 4; i++)
      cr_assert_eq(memcmp(rt_vk_exec_output_map(lean, i), a[i].data, rt_tensor_bytes(&a[i])), 0,
                   "output %d", i);
    free_tensors(in, 2);
    free_tensors(a, 4);
    free_tensors(b, 4);
  }
  rt_vk_exec_stats_get(lean, &st);
  cr_assert_eq(st.n_runs, 9);
  cr_assert_eq(st.n_segment_runs, 9); /* one submission per run */
  cr_assert_eq(st.n_uploads, 18);
  cr_assert_eq(st.n_downloads, 36);
  /* replay still runs the kernels alone */
  T_OK(rt_vk_exec_replay(lean, NULL));
  rt_vk_exec_destroy(lean);
  rt_vk_exec_destroy(steps);
  rt_vk_exec_destroy(staged);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* Live bytes of the device-local host-visible pool (the inputs of lean
 * plans, where the device has that memory): device memory too. */
static uint64_t upload_used(const rt_vk_context *ctx) {
  rt_vk_mem_stats u;
  rt_vk_memory_stats(ctx, RT_VK_MEM_UPLOAD, &u);
  return u.used_bytes;
}

/* The weights' slabs hold each constant's bytes at its offset and zeros
 * everywhere else, whether written in place (mapped device memory, on
 * several threads: the largest constant spans several 4 MiB parts) or
 * through staging; an executor on them computes what the CPU does. */
Test(vk_exec, weights_written_in_place_or_staged) {
  vt_env e;
  vt_env_open(&e);
  enum { N = 4 };
  static const int64_t len[N] = {3, 17, 1000, 2300001};
  uint64_t off[N], blob_bytes = 0;
  for (int i = 0; i < N; i++) {
    off[i] = blob_bytes;
    blob_bytes += (uint64_t)len[i] * 4 + 4;
  }
  float *blob = malloc(blob_bytes);
  cr_assert_not_null(blob);
  t_rng r = t_rng_make(91);
  for (uint64_t i = 0; i < blob_bytes / 4; i++) blob[i] = (float)t_rng_uniform(&r, 0.5, 2.0);
  char text[4096] = "vkir 1\ngraph @wts(";
  size_t o = strlen(text);
  for (int i = 0; i < N; i++)
    o += (size_t)snprintf(text + o, sizeof text - o, "%s%%x%d: f32[%lld]", i ? ", " : "", i,
                          (long long)len[i]);
  o += (size_t)snprintf(text + o, sizeof text - o, ") -> (");
  for (int i = 0; i < N; i++)
    o += (size_t)snprintf(text + o, sizeof text - o, "%s%%y%d: f32[%lld]", i ? ", " : "", i,
                          (long long)len[i]);
  o += (size_t)snprintf(text + o, sizeof text - o, ") {\n");
  for (int i = 0; i < N; i++)
    o += (size_t)snprintf(text + o, sizeof text - o,
                          "  %%c%d = const f32[%lld] @blob[%llu, %llu]\n"
                          "  %%y%d = add %%x%d, %%c%d : f32[%lld]\n",
                          i, (long long)len[i], (unsigned long long)off[i],
                          (unsigned long long)len[i] * 4, i, i, i, (long long)len[i]);
  snprintf(text + o, sizeof text - o, "  return %%y0, %%y1, %%y2, %%y3\n}\n");
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  ir_graph_set_blob(g, blob, blob_bytes, false);
  T_OK(ir_verify(g, "<test>"));
  drv_opts dopts = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, e.t, &dopts, IR_LAYOUT_DEFAULT, NULL, &p));
  bool mappable = rt_vk_memory_heap(e.ctx, RT_VK_MEM_UPLOAD) >= 0 &&
                  rt_vk_memory_heap(e.ctx, RT_VK_MEM_UPLOAD) ==
                      rt_vk_memory_heap(e.ctx, RT_VK_MEM_DEVICE);
  rt_tensor in[N];
  random_inputs(g, 92, in);
  for (int staged = 0; staged < 2; staged++) {
    /* dirty memory where the slab will go (the pools reuse freed ranges
     * first-fit): zeros must be written, not found */
    for (int k = 0; k < 2; k++) {
      rt_vk_mem_kind kind = k ? RT_VK_MEM_UPLOAD : RT_VK_MEM_DEVICE;
      if (!rt_vk_memory_has(e.ctx, kind)) continue;
      size_t dirty_bytes = 12u << 20;
      unsigned char *junk = malloc(dirty_bytes);
      cr_assert_not_null(junk);
      memset(junk, 0xa5, dirty_bytes);
      rt_vk_buffer *d;
      T_OK(rt_vk_buffer_create(e.ctx, kind, dirty_bytes, &d));
      T_OK(rt_vk_buffer_upload(e.ctx, d, 0, junk, dirty_bytes));
      rt_vk_buffer_destroy(e.ctx, d);
      free(junk);
    }
    rt_vk_weights *w = NULL;
    T_OK(rt_vk_weights_create(e.ctx, p, 0, staged, &w));
    cr_assert_eq(rt_vk_weights_direct(w), !staged && mappable, "staged %d", staged);
    cr_assert_eq(rt_vk_weights_count(w), N);
    rt_vk_buffer *slab = NULL;
    uint64_t at[N], bound[N];
    for (int i = 0; i < N; i++) {
      rt_vk_buffer *b;
      int32_t id = -1;
      char name[8];
      snprintf(name, sizeof name, "c%d", i);
      ir_foreach_value(p->graph, v) if (!strcmp(v->name, name)) id = v->id;
      cr_assert(rt_vk_weights_find(w, id, &b, &at[i], &bound[i]), "%s", name);
      cr_assert(!slab || b == slab, "one slab for %s", name);
      slab = b;
      cr_assert_geq(bound[i], (uint64_t)len[i] * 4);
    }
    uint64_t n = rt_vk_buffer_bytes(slab);
    unsigned char *got = malloc(n);
    cr_assert_not_null(got);
    T_OK(rt_vk_buffer_download(e.ctx, slab, 0, got, n));
    for (uint64_t k = 0, bad = 0; k < n && bad < 5; k++) {
      unsigned char want = 0;
      for (int i = 0; i < N; i++)
        if (k >= at[i] && k < at[i] + (uint64_t)len[i] * 4)
          want = ((const unsigned char *)blob)[off[i] + (k - at[i])];
      if (got[k] != want) {
        bad++;
        cr_expect_eq(got[k], want, "staged %d: byte %llu of %llu", staged,
                     (unsigned long long)k, (unsigned long long)n);
      }
    }
    free(got);
    rt_vk_exec *x = NULL;
    rt_vk_exec_opts xo = {.weights = w};
    T_OK(rt_vk_exec_create(e.ctx, p, &xo, &x));
    check_run(x, g, in, N, 1e-6, 0, NULL);
    rt_vk_exec_destroy(x);
    rt_vk_weights_destroy(e.ctx, w);
  }
  free_tensors(in, N);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  free(blob);
  vt_env_close(&e);
}

Test(vk_exec, shared_weights_are_counted_once) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = gpu_graph(4);
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p, *other;
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  T_OK(vt_plan_build(g, e.t, &o, IR_LAYOUT_DEFAULT, NULL, &other));
  rt_vk_mem_stats before, after;
  rt_vk_memory_stats(e.ctx, RT_VK_MEM_DEVICE, &before);
  uint64_t up0 = upload_used(e.ctx);
  rt_vk_weights *w = NULL;
  T_OK(rt_vk_weights_create(e.ctx, p, 0, false, &w));
  cr_assert_eq(rt_vk_weights_count(w), 1); /* %c */
  cr_assert_eq(rt_vk_weights_bytes(w), 128);
  rt_vk_exec *x[8] = {0};
  rt_vk_exec_opts xo = {.weights = w};
  uint64_t own = 0;
  int n_bufs = 0;
  for (int i = 0; i < 8; i++) {
    T_OK(rt_vk_exec_create(e.ctx, p, &xo, &x[i]));
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(x[i], &st);
    cr_assert(st.weights_shared);
    cr_assert_eq(st.weight_bytes, 128);
    own += st.device_bytes;
    n_bufs += st.n_buffers;
  }
  /* the allocator's accounting: the weights once, then each executor's own
   * buffers (each rounded up to the pool's alignment) */
  rt_vk_memory_stats(e.ctx, RT_VK_MEM_DEVICE, &after);
  uint64_t al = after.alignment;
  uint64_t shared = after.used_bytes + upload_used(e.ctx) - up0 - before.used_bytes;
  cr_assert_geq(shared, 128 + own);
  cr_assert_leq(shared, 128 + own + (uint64_t)(n_bufs + 1) * al, "%llu vs %llu",
                (unsigned long long)shared, (unsigned long long)(128 + own));
  /* eight executors with their own weights take seven copies more */
  rt_vk_exec *y[8] = {0};
  uint64_t inputs_before = upload_used(e.ctx);
  for (int i = 0; i < 8; i++) T_OK(rt_vk_exec_create(e.ctx, p, NULL, &y[i]));
  rt_vk_mem_stats both;
  rt_vk_memory_stats(e.ctx, RT_VK_MEM_DEVICE, &both);
  uint64_t unshared = both.used_bytes + upload_used(e.ctx) - inputs_before - after.used_bytes;
  uint64_t w_reserved = (128 + al - 1) / al * al;
  cr_assert_eq(unshared - shared, 7 * w_reserved, "%llu - %llu",
               (unsigned long long)unshared, (unsigned long long)shared);
  for (int i = 0; i < 8; i++) rt_vk_exec_destroy(y[i]);
  rt_tensor in[2];
  random_inputs(g, 70, in);
  for (int i = 0; i < 8; i++) check_run(x[i], g, in, 2, 1e-6, 0, NULL);
  free_tensors(in, 2);
  /* weights of another plan are refused */
  rt_vk_exec *bad = NULL;
  t_expect_error(rt_vk_exec_create(e.ctx, other, &xo, &bad), VKML_CODE_INVALID_ARGUMENT,
                 "made for another plan");
  cr_assert_null(bad);
  for (int i = 0; i < 8; i++) rt_vk_exec_destroy(x[i]);
  rt_vk_weights_destroy(e.ctx, w);
  ir_plan_destroy(p);
  ir_plan_destroy(other);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* A wait that times out leaves nothing in flight: the queue is drained
 * before the error returns, so destroying the executor and context right
 * after is clean (validation reports no object destroyed in use). Freeing
 * in-flight work crashed lavapipe's queue thread (SIGSEGV) before. */
Test(vk_exec, a_timed_out_wait_leaves_nothing_in_flight) {
  rt_vk_context_opts co = {.fence_timeout_ns = 1000}; /* 1 us: every run times out */
  rt_vk_context *ctx = vt_context_opts(&co);
  const ir_target *t = rt_vk_context_target(ctx);
  cg_compiler *cc = vt_compiler();
  ir_graph *g = gpu_graph(5);
  vt_env e = {ctx, cc, t};
  drv_opts o = opts_binary(&e, IR_PRECISION_FP32);
  ir_plan *p;
  T_OK(vt_plan_build(g, t, &o, IR_LAYOUT_DEFAULT, NULL, &p));
  rt_vk_exec *x = NULL;
  /* creation's uploads may time out too: then that is the error */
  vkml_status s = rt_vk_exec_create(ctx, p, NULL, &x);
  int timeouts = 0;
  for (int r = 0; r < 5 && !s; r++) {
    rt_tensor in[2], out[4];
    random_inputs(g, 80 + (uint64_t)r, in);
    vkml_status rs = rt_vk_exec_run(x, in, 2, out, 4, NULL);
    if (rs) {
      cr_assert_eq(vkml_status_code(rs), VKML_CODE_DEVICE, "%s", vkml_status_message(rs));
      cr_assert(strstr(vkml_status_message(rs), "VK_TIMEOUT"), "%s", vkml_status_message(rs));
      vkml_status_free(rs);
      timeouts++;
    } else {
      free_tensors(out, 4);
    }
    free_tensors(in, 2);
  }
  if (s) {
    cr_assert(strstr(vkml_status_message(s), "VK_TIMEOUT"), "%s", vkml_status_message(s));
    vkml_status_free(s);
    timeouts++;
  }
  cr_assert_gt(timeouts, 0, "nothing timed out in 1 us: the test proves nothing");
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(g);
  cg_compiler_destroy(cc);
  vt_destroy(ctx); /* any "in use" validation error fails here */
}
