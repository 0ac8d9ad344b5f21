/* Bounded rows on the GPU (codegen/core/extent.h): a chain over a bounded
 * input f32[<=40,8] — gemm, relu, softmax, a broadcast add, slice, reshape,
 * gather and split along other axes, a matmul, a transpose that moves a 1 —
 * runs every step on the GPU
 * at the capacity, the outputs' extent words copied from the input's, and
 * agrees with the CPU executor at 23, 40 and 0 actual rows (one executor,
 * three runs: the extent word is rewritten per run). A node with two bounded
 * values in a non-elementwise op, a transpose and a softmax along the
 * bounded axis stay on the CPU; one bounded value as two operands, two
 * whose sizes come from one value (a sub of the add and its softmax input),
 * and an elementwise op of two unrelated bounded values (compared on the
 * device) do not. roi_align over a run-time
 * count of rois reads its counts on the device and checks they agree.
 *
 * Bounds: fp32 gemm/matmul/softmax against the CPU reference's double
 * accumulation, inputs in [-1, 1], K = 8: rtol 1e-5, atol 1e-6. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

/* text compiled as vkc compiles it with every step asserted on the GPU,
 * an executor for it and the reference graph; all_gpu_close frees them
 * and closes e. */
static void all_gpu(vt_env *e, const char *text, ir_graph **ref, ir_plan **p, rt_vk_exec **x) {
  *ref = vt_parse(text);
  *p = vt_compile(e->t, e->cc, vt_parse(text), NULL, IR_PRECISION_FP32);
  for (int i = 0; i < (*p)->n_steps; i++)
    cr_assert_eq((*p)->steps[i].device, IR_DEVICE_GPU, "step %d: %s", i,
                 ir_plan_str(*p, (*p)->steps[i].reason));
  T_OK(rt_vk_exec_create(e->ctx, *p, NULL, x));
}

static void all_gpu_close(vt_env *e, ir_graph *ref, ir_plan *p, rt_vk_exec *x) {
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  ir_graph_destroy(ref);
  vt_env_close(e);
}

static const char *k_chain =
    "vkir 1\n"
    "graph @rows(%x: f32[<=40,8], %w: f32[16,8], %b: f32[16], %v: f32[8,5]) -> "
    "(%s: f32[<=40,16], %f: f32[<=40,6], %p: f32[<=40,2], %q: f32[<=40,4], %m: f32[<=40,5], "
    "%ft: f32[1,<=40,6], %sa: f32[<=40,16]) {\n"
    "  %h = gemm %x, %w, %b {trans_b=1} : f32[<=40,16]\n"
    "  %r = relu %h : f32[<=40,16]\n"
    "  %s = softmax %r {axis=1} : f32[<=40,16]\n"
    "  %a = add %s, %b : f32[<=40,16]\n"
    "  %t = slice %a {starts=[2], ends=[10], axes=[1]} : f32[<=40,8]\n"
    "  %u = reshape %t {shape=[-1,2,4]} : f32[<=40,2,4]\n"
    "  %i = const i64[3] [3, 0, 1]\n"
    "  %g = gather %u, %i {axis=2} : f32[<=40,2,3]\n"
    "  %f = flatten %g {axis=1} : f32[<=40,6]\n"
    "  %p, %q = split %f {axis=1, split=[2,4]} : f32[<=40,2], f32[<=40,4]\n"
    "  %m = matmul %x, %v : f32[<=40,5]\n"
    "  %fu = unsqueeze %f {axes=[1]} : f32[<=40,1,6]\n"
    "  %ft = transpose %fu {perm=[1,0,2]} : f32[1,<=40,6]\n"
    "  %sa = sub %a, %s : f32[<=40,16]\n" /* two bounded values of one size */
    "  return %s, %f, %p, %q, %m, %ft, %sa\n"
    "}\n";

static void check_rows(const vt_env *e, rt_vk_exec *x, const ir_graph *ref, int64_t rows,
                       t_rng *r) {
  int64_t xd[2] = {rows, 8}, wd[2] = {16, 8}, bd[1] = {16}, vd[2] = {8, 5};
  rt_tensor in[4] = {t_tensor_random(r, IR_F32, 2, xd, -1, 1),
                     t_tensor_random(r, IR_F32, 2, wd, -1, 1),
                     t_tensor_random(r, IR_F32, 1, bd, -1, 1),
                     t_tensor_random(r, IR_F32, 2, vd, -1, 1)};
  (void)e;
  rt_tensor got[7], want[7];
  T_OK(rt_vk_exec_run(x, in, 4, got, 7, NULL));
  T_OK(rt_cpu_run_graph(ref, in, 4, want, 7));
  for (int i = 0; i < 7; i++) {
    int axis = i == 5 ? 1 : 0;
    cr_assert_eq(want[i].dims[axis], rows, "output %d: %lld rows", i,
                 (long long)want[i].dims[axis]);
    t_assert_close(&got[i], &want[i], 1e-5, 1e-6);
    rt_tensor_free(&got[i]);
    rt_tensor_free(&want[i]);
  }
  for (int i = 0; i < 4; i++) rt_tensor_free(&in[i]);
}

Test(vk_rows, a_chain_over_bounded_rows_runs_on_the_gpu) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *ref = vt_parse(k_chain);
  ir_plan *p = vt_compile(e.t, e.cc, vt_parse(k_chain), NULL, IR_PRECISION_FP32);
  int extent_steps = 0, in_kernel = 0;
  for (int i = 0; i < p->n_steps; i++) {
    cr_assert_eq(p->steps[i].device, IR_DEVICE_GPU, "step %d (%s) is not on the GPU", i,
                 ir_plan_str(p, p->steps[i].reason));
    extent_steps += IR_STEP_EXTENT_INPUT(p->steps[i].flags) >= 0;
    in_kernel += (p->steps[i].flags & IR_STEP_EXTENT_KERNEL) != 0;
  }
  cr_assert_geq(extent_steps, 8, "%d steps take an extent word", extent_steps);
  /* every one of them copies it in its kernel: no copy command (the
   * results below check the copied sizes) */
  cr_assert_eq(in_kernel, extent_steps, "%d of %d steps copy the extent word in the kernel",
               in_kernel, extent_steps);
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  t_rng r = t_rng_make(21);
  check_rows(&e, x, ref, 23, &r);
  check_rows(&e, x, ref, 40, &r);
  check_rows(&e, x, ref, 0, &r);
  all_gpu_close(&e, ref, p, x);
}

/* A split over bounded rows into more outputs than a kernel copies the
 * extent word into (CG_EXTENT_MAX_OUTPUTS): the executor copies it (the
 * step has IR_STEP_EXTENT_FROM without IR_STEP_EXTENT_KERNEL); sizes and
 * values equal the CPU's. */
Test(vk_rows, a_split_into_five_takes_the_executors_copy) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @s(%x: f32[<=30,10]) -> (%a: f32[<=30,2], %b: f32[<=30,2], %c: f32[<=30,2], "
      "%d: f32[<=30,2], %f: f32[<=30,2]) {\n"
      "  %e = exp %x : f32[<=30,10]\n"
      "  %a, %b, %c, %d, %f = split %e {axis=1, split=[2,2,2,2,2]} : f32[<=30,2], f32[<=30,2], "
      "f32[<=30,2], f32[<=30,2], f32[<=30,2]\n"
      "  return %a, %b, %c, %d, %f\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  int executor = 0, kernel = 0;
  for (int i = 0; i < p->n_steps; i++) {
    uint32_t f = p->steps[i].flags;
    if (IR_STEP_EXTENT_INPUT(f) < 0) continue;
    if (f & IR_STEP_EXTENT_KERNEL) kernel++;
    else executor++;
  }
  cr_assert_eq(executor, 1, "the split: %d steps copied by the executor", executor);
  cr_assert_eq(kernel, 1, "the exp: %d steps copied in the kernel", kernel);
  t_rng r = t_rng_make(5);
  for (int64_t rows = 0; rows <= 30; rows += 13) {
    rt_tensor in = t_tensor_random(&r, IR_F32, 2, (int64_t[]){rows, 10}, -1, 1);
    rt_tensor got[5], want[5];
    T_OK(rt_vk_exec_run(x, &in, 1, got, 5, NULL));
    T_OK(rt_cpu_run_graph(ref, &in, 1, want, 5));
    for (int i = 0; i < 5; i++) {
      cr_assert_eq(got[i].dims[0], rows, "output %d: %lld rows", i, (long long)got[i].dims[0]);
      t_assert_close(&got[i], &want[i], 1e-6, 1e-6);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    rt_tensor_free(&in);
  }
  all_gpu_close(&e, ref, p, x);
}

/* Which nodes run over bounded rows, without a device. */
Test(vk_rows, what_keeps_the_rows) {
  ir_graph *g = vt_parse(
      "vkir 1\n"
      "graph @g(%x: f32[<=40,8], %y: f32[<=40,8], %c: f32[2,<=5], %w: f32[8,8], %z: f32[40,8]) "
      "-> (%a: f32[<=40,8], %t: f32[8,<=40], %s: f32[<=40,8], %e: f32[<=40,8], %o: f32[<=40,8], "
      "%k: f32[2,<=5], %l: f32[<=40,8], %n: f32[<=40,8], %q: f32[<=40,8], %u: f32[<=40,1,8], "
      "%v: f32[1,<=40,8], %ee: f32[<=40,8]) {\n"
      "  %a = add %x, %y : f32[<=40,8]\n"           /* two bounded values: checked */
      "  %t = transpose %x {perm=[1,0]} : f32[8,<=40]\n" /* rows become columns */
      "  %s = softmax %x {axis=0} : f32[<=40,8]\n"   /* along the bounded axis */
      "  %e = exp %x : f32[<=40,8]\n"                /* yes */
      "  %o = gemm %x, %w : f32[<=40,8]\n"           /* yes */
      "  %k = relu %c : f32[2,<=5]\n"                /* not leading */
      "  %l = slice %x {starts=[-1], ends=[-41], axes=[0], steps=[-1]} : f32[<=40,8]\n" /* reversed */
      "  %n = mul %x, %z : f32[<=40,8]\n"            /* z broadcast along the rows */
      "  %q = mul %x, %x : f32[<=40,8]\n"            /* one bounded value twice */
      "  %h = unsqueeze %x {axes=[0]} : f32[1,<=40,8]\n"
      "  %u = transpose %h {perm=[1,0,2]} : f32[<=40,1,8]\n" /* only a 1 moves */
      "  %v = transpose %u {perm=[1,0,2]} : f32[1,<=40,8]\n"
      "  %ee = add %e, %x : f32[<=40,8]\n"           /* e's size is x's */
      "  return %a, %t, %s, %e, %o, %k, %l, %n, %q, %u, %v, %ee\n"
      "}\n");
  const char *want[] = {"a", "0", "t", "-", "s", "-", "e", "0", "o", "0", "k", "-", "l", "-",
                        "n", "-", "q", "0", "h", "0", "u", "0", "v", "0", "ee", "0"};
  int i = 0;
  ir_foreach_node(g, n) {
    cr_assert_str_eq(n->outputs[0]->name, want[2 * i]);
    int got = cg_rows_extent_input(n);
    cr_assert_eq(got, want[2 * i + 1][0] == '-' ? -1 : want[2 * i + 1][0] - '0', "%%%s: %d",
                 n->outputs[0]->name, got);
    /* x and y: sizes compared on the device; e and x: provably one */
    cr_assert_eq(cg_rows_check_extents(n), !strcmp(want[2 * i], "a"), "%%%s",
                 n->outputs[0]->name);
    i++;
  }
  ir_graph_destroy(g);
}

/* A RoI head over a run-time count of RoIs (a bounded batch axis): conv2d
 * with relu, conv_transpose2d, batchnorm, maxpool, avgpool, a nearest and a
 * linear resize at scale 1 on the batch, instance_norm, layer_norm over the
 * last axis and global pools run
 * every step on the GPU at the capacity and agree with the CPU at 7, 12 and
 * 0 RoIs; a resize that scales the batch, conv weights with a bounded axis
 * and a tf_half_pixel_for_nn resize keep nothing. fp32 against the CPU
 * reference: rtol 1e-4, atol 1e-5 (3x3x4 and 4x4x8 sums of [-1, 1]). */
static const char *k_roi_head =
    "vkir 1\n"
    "graph @head(%x: f32[<=12,4,6,6], %w: f32[8,4,3,3], %b: f32[8], %wt: f32[8,3,4,4], "
    "%s: f32[3], %m: f32[3], %v: f32[3], %g: f32[12]) -> (%gp: f32[<=12,3,1,1], %gm: f32[<=12,3,1,1], "
    "%lr: f32[<=12,3,12,12], %in: f32[<=12,3,6,6]) {\n"
    "  %c = conv2d %x, %w, %b {pads=[1,1,1,1], act=relu} : f32[<=12,8,6,6]\n"
    "  %t = conv_transpose2d %c, %wt {strides=[2,2], pads=[1,1,1,1]} : f32[<=12,3,12,12]\n"
    "  %n = batchnorm %t, %s, %m, %m, %v {epsilon=0.001} : f32[<=12,3,12,12]\n"
    "  %p = maxpool %n {kernel=[2,2], strides=[2,2]} : f32[<=12,3,6,6]\n"
    "  %a = avgpool %p {kernel=[3,3], strides=[2,2], pads=[1,1,1,1]} : f32[<=12,3,3,3]\n"
    "  %r = resize %a {mode=nearest, scales=[1.0,1.0,2.0,2.0]} : f32[<=12,3,6,6]\n"
    "  %lr = resize %p {mode=linear, scales=[1.0,1.0,2.0,2.0]} : f32[<=12,3,12,12]\n"
    "  %in = instance_norm %r, %s, %m : f32[<=12,3,6,6]\n"
    "  %gp = global_avg_pool %in : f32[<=12,3,1,1]\n"
    "  %ln = layer_norm %lr, %g {axis=3} : f32[<=12,3,12,12]\n"
    "  %gm = global_max_pool %ln : f32[<=12,3,1,1]\n"
    "  return %gp, %gm, %lr, %in\n"
    "}\n";

Test(vk_rows, a_roi_head_over_a_run_time_batch) {
  const char *text = k_roi_head;
  vt_env e;
  vt_env_open(&e);
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(31);
  int64_t wd[4] = {8, 4, 3, 3}, bd[1] = {8}, wtd[4] = {8, 3, 4, 4}, sd[1] = {3}, gd[1] = {12};
  for (int k = 0; k < 3; k++) {
    int64_t rows = k == 0 ? 7 : k == 1 ? 12 : 0;
    int64_t xd[4] = {rows, 4, 6, 6};
    rt_tensor in[8] = {t_tensor_random(&r, IR_F32, 4, xd, -1, 1),
                       t_tensor_random(&r, IR_F32, 4, wd, -1, 1),
                       t_tensor_random(&r, IR_F32, 1, bd, -1, 1),
                       t_tensor_random(&r, IR_F32, 4, wtd, -1, 1),
                       t_tensor_random(&r, IR_F32, 1, sd, 0.5, 1.5),
                       t_tensor_random(&r, IR_F32, 1, sd, -1, 1),
                       t_tensor_random(&r, IR_F32, 1, sd, 0.5, 1.5),
                       t_tensor_random(&r, IR_F32, 1, gd, 0.5, 1.5)};
    rt_tensor got[4], want[4];
    T_OK(rt_vk_exec_run(x, in, 8, got, 4, NULL));
    T_OK(rt_cpu_run_graph(ref, in, 8, want, 4));
    for (int i = 0; i < 4; i++) {
      cr_assert_eq(got[i].dims[0], rows, "output %d: %lld rows, want %lld", i,
                   (long long)got[i].dims[0], (long long)rows);
      t_assert_close(&got[i], &want[i], 1e-4, 1e-5);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    for (int i = 0; i < 8; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
  /* a tf_half_pixel_for_nn resize does not keep the rows (x + 0.5 at
   * scale 1); one that scales the batch, or names its size, is refused */
  ir_graph *g = vt_parse(
      "vkir 1\n"
      "graph @no(%x: f32[<=12,4,6,6]) -> (%h: f32[<=12,4,12,12]) {\n"
      "  %h = resize %x {mode=nearest, scales=[1.0,1.0,2.0,2.0], "
      "coordinate_transformation_mode=tf_half_pixel_for_nn} : f32[<=12,4,12,12]\n"
      "  return %h\n"
      "}\n");
  static const char *const refused[] = {
      "scales=[2.0,1.0,1.0,1.0]} : f32[<=24,4,6,6]", "sizes=[12,4,6,6]} : f32[<=12,4,6,6]"};
  for (int i = 0; i < 2; i++) {
    char t[512];
    snprintf(t, sizeof t,
             "vkir 1\ngraph @no(%%x: f32[<=12,4,6,6]) -> (%%u: f32[%s]) {\n"
             "  %%u = resize %%x {mode=nearest, %s\n  return %%u\n}\n",
             i ? "<=12,4,6,6" : "<=24,4,6,6", refused[i]);
    ir_graph *bad = NULL;
    T_OK(ir_parse(t, strlen(t), "<test>", &bad));
    t_expect_error(ir_verify(bad, "<test>"), VKML_CODE_INVALID_GRAPH,
                   i ? "only a scale of 1 there keeps (sizes given)"
                     : "only a scale of 1 there keeps (scale not 1)");
    ir_graph_destroy(bad);
  }
  ir_foreach_node(g, n) cr_assert_eq(cg_rows_extent_input(n), -1, "%%%s", n->outputs[0]->name);
  ir_graph_destroy(g);
}

/* roi_align over a run-time count of rois (rois, batch indices and output
 * bounded along R): the kernel reads both counts from their extent words,
 * the output takes the rois' (a relu after it runs over the rows too);
 * 7 of 12 rois, then 12, agree with the CPU (fp32 against the reference's
 * double: within 5e-5 of the largest |x|, test_vk_roi_align.c's bound).
 * Counts that differ (7 rois, 5 batch indices) fail the run on the GPU. */
Test(vk_rows, roi_align_over_a_run_time_count) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @ra(%x: f32[2,3,9,11], %r: f32[<=12,4], %b: i64[<=12]) -> (%z: f32[<=12,3,2,2]) {\n"
      "  %y = roi_align %x, %r, %b {output_height=2, output_width=2, sampling_ratio=2, "
      "spatial_scale=0.5} : f32[<=12,3,2,2]\n"
      "  %z = relu %y : f32[<=12,3,2,2]\n"
      "  return %z\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(4);
  int64_t xd[4] = {2, 3, 9, 11};
  const int64_t rows[3][2] = {{7, 7}, {12, 12}, {7, 5}};
  for (int k = 0; k < 3; k++) {
    int64_t rd[2] = {rows[k][0], 4}, bd[1] = {rows[k][1]};
    rt_tensor in[3] = {t_tensor_random(&r, IR_F32, 4, xd, -1, 1),
                       t_tensor_random(&r, IR_F32, 2, rd, 0, 20), t_tensor_zeros(IR_I64, 1, bd)};
    for (int64_t i = 0; i < bd[0]; i++) rt_store_i(&in[2], i, i % 2);
    rt_tensor got, want;
    vkml_status s = rt_vk_exec_run(x, in, 3, &got, 1, NULL);
    if (k == 2) {
      cr_assert(s, "rois and batch indices of different counts must fail");
      cr_assert(strstr(vkml_status_message(s), "have 7 and 5 rows at run time") &&
                    strstr(vkml_status_message(s), "on the GPU"),
                "%s", vkml_status_message(s));
      vkml_status_free(s);
    } else {
      T_OK(s);
      T_OK(rt_cpu_run_graph(ref, in, 3, &want, 1));
      cr_assert_eq(want.dims[0], rows[k][0]);
      t_assert_close(&got, &want, 0, 5e-5);
      rt_tensor_free(&got);
      rt_tensor_free(&want);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* gather and gather_nd with a run-time count of index rows: the output takes
 * the indices' count; rows past the count are never read. A bad index
 * inside the count fails the run on the GPU; the next run with fewer rows
 * leaves that index past the count (still in the buffer from the upload
 * before) and succeeds, equal to the CPU. */
Test(vk_rows, gathers_over_a_run_time_count_of_indices) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @g(%d: f32[50,4], %i: i64[<=30], %j: i64[<=30,2]) -> (%y: f32[<=30,4], "
      "%z: f32[<=30,4]) {\n"
      "  %y = gather %d, %i {axis=0} : f32[<=30,4]\n"
      "  %r = reshape %d {shape=[10,5,4]} : f32[10,5,4]\n"
      "  %z = gather_nd %r, %j : f32[<=30,4]\n"
      "  return %y, %z\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(8);
  int64_t dd[2] = {50, 4};
  const int64_t rows[3] = {30, 20, 0};
  for (int k = 0; k < 3; k++) {
    int64_t id[1] = {rows[k]}, jd[2] = {rows[k], 2};
    rt_tensor in[3] = {t_tensor_random(&r, IR_F32, 2, dd, -1, 1), t_tensor_zeros(IR_I64, 1, id),
                       t_tensor_zeros(IR_I64, 2, jd)};
    for (int64_t q = 0; q < rows[k]; q++) {
      rt_store_i(&in[1], q, (int64_t)(t_rng_next(&r) % 100) - 50); /* negatives wrap */
      rt_store_i(&in[2], 2 * q, (int64_t)(t_rng_next(&r) % 10));
      rt_store_i(&in[2], 2 * q + 1, (int64_t)(t_rng_next(&r) % 5));
    }
    if (k == 0) rt_store_i(&in[1], 25, 77); /* out of range, inside the count */
    rt_tensor got[2], want[2];
    vkml_status s = rt_vk_exec_run(x, in, 3, got, 2, NULL);
    if (k == 0) {
      cr_assert(s, "index 77 of 50 must fail");
      cr_assert(strstr(vkml_status_message(s), "index 77 (indices element 25)") &&
                    strstr(vkml_status_message(s), "on the GPU"),
                "%s", vkml_status_message(s));
      vkml_status_free(s);
    } else {
      T_OK(s);
      T_OK(rt_cpu_run_graph(ref, in, 3, want, 2));
      cr_assert_eq(want[0].dims[0], rows[k]);
      vt_assert_equal(got, want, 2);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* scatter_elements along a bounded axis (data, indices, updates, output all
 * run-time sized along it): 5 updates rows into 9 data rows agree with the
 * CPU (distinct indices per column: reduction none is then exact); an index
 * past the data's run-time count (9 of capacity 12) and indices and updates
 * of different counts fail the run on the GPU. */
Test(vk_rows, scatter_elements_along_a_run_time_axis) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @s(%d: f32[<=12,3], %i: i64[<=12,3], %u: f32[<=12,3]) -> (%z: f32[<=12,3]) {\n"
      "  %y = scatter_elements %d, %i, %u {axis=0} : f32[<=12,3]\n"
      "  %z = relu %y : f32[<=12,3]\n"
      "  return %z\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(12);
  /* data rows, indices rows, updates rows, a bad index */
  const int64_t cases[3][4] = {{9, 5, 5, 0}, {9, 5, 5, 9}, {9, 5, 4, 0}};
  for (int k = 0; k < 3; k++) {
    int64_t dd[2] = {cases[k][0], 3}, id[2] = {cases[k][1], 3}, ud[2] = {cases[k][2], 3};
    rt_tensor in[3] = {t_tensor_random(&r, IR_F32, 2, dd, -1, 1), t_tensor_zeros(IR_I64, 2, id),
                       t_tensor_random(&r, IR_F32, 2, ud, -1, 1)};
    for (int c = 0; c < 3; c++) /* rows c, c+1, ... of the 9: distinct per column */
      for (int64_t q = 0; q < id[0]; q++) rt_store_i(&in[1], q * 3 + c, (q + c) % 9);
    if (cases[k][3]) rt_store_i(&in[1], 4, cases[k][3]);
    rt_tensor got, want;
    vkml_status s = rt_vk_exec_run(x, in, 3, &got, 1, NULL);
    if (k == 0) {
      T_OK(s);
      T_OK(rt_cpu_run_graph(ref, in, 3, &want, 1));
      cr_assert_eq(want.dims[0], 9);
      vt_assert_equal(&got, &want, 1);
    } else {
      cr_assert(s, "case %d must fail", k);
      const char *m = vkml_status_message(s);
      cr_assert(strstr(m, "on the GPU") &&
                    strstr(m, k == 1 ? "index 9 (indices element 4) out of range for axis 0 "
                                       "of size 9"
                                     : "inputs 1 and 2 have 5 and 4 rows"),
                "%s", m);
      vkml_status_free(s);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* TopK of a run-time count of candidates with k = min(7, count) computed
 * on the device (SSDlite's per-class chain as imported: greater, non_zero,
 * transpose, gather_nd, shape, concat, its ReduceMin as gathers and min,
 * topk): every step on the GPU, the
 * kernel sized by k's bound (7, ir/bounds.h); 25, 7, 3 and 0 candidates
 * agree with the CPU. A k from the caller (min(7, k_in)) outside [0, count]
 * fails the run on the GPU. */
Test(vk_rows, topk_with_a_run_time_k) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @t(%x: f32[40], %kin: i64[1], %b: f32[40,4]) -> (%tv: f32[<=40], %ti: i64[<=40], "
      "%uv: f32[<=40], %sel: f32[<=40,4]) {\n"
      "  %thr = const f32[] [0.5]\n"
      "  %g = greater %x, %thr : bool[40]\n"
      "  %nz = non_zero %g : i64[1,<=40]\n"
      "  %tr = transpose %nz {perm=[1,0]} : i64[<=40,1]\n"
      "  %v = gather_nd %x, %tr : f32[<=40]\n"
      "  %s = shape %v : i64[1]\n"
      "  %seven = const i64[1] [7]\n"
      "  %cc = concat %seven, %s {axis=0} : i64[2]\n"
      "  %i0 = const i64[1] [0]\n"
      "  %i1 = const i64[1] [1]\n"
      "  %a0 = gather %cc, %i0 {axis=0} : i64[1]\n"
      "  %a1 = gather %cc, %i1 {axis=0} : i64[1]\n"
      "  %k = min %a0, %a1 : i64[1]\n"
      "  %tv, %ti = topk %v, %k {axis=0} : f32[<=40], i64[<=40]\n"
      "  %k2 = min %seven, %kin : i64[1]\n"
      "  %uv, %ui = topk %v, %k2 {axis=0, largest=0} : f32[<=40], i64[<=40]\n"
      "  %bx = gather_nd %b, %tr : f32[<=40,4]\n"
      "  %sel = gather %bx, %ti {axis=0} : f32[<=40,4]\n" /* both bounded */
      "  return %tv, %ti, %uv, %sel\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(3);
  int64_t xd[1] = {40}, kd[1] = {1}, bd[2] = {40, 4};
  const int counts[4] = {25, 7, 3, 0};
  for (int c = 0; c < 5; c++) {
    int count = c < 4 ? counts[c] : 10;
    rt_tensor in[3] = {t_tensor_zeros(IR_F32, 1, xd), t_tensor_zeros(IR_I64, 1, kd),
                       t_tensor_random(&r, IR_F32, 2, bd, -1, 1)};
    for (int q = 0; q < 40; q++) /* count values above the threshold, distinct */
      rt_store_f(&in[0], q, q < count ? 1.0 + (double)(t_rng_next(&r) % 1000) / 64 : 0.25);
    rt_store_i(&in[1], 0, c < 4 ? (count < 2 ? count : 2) : -3);
    rt_tensor got[4], want[4];
    vkml_status s = rt_vk_exec_run(x, in, 3, got, 4, NULL);
    if (c < 4) {
      T_OK(s);
      T_OK(rt_cpu_run_graph(ref, in, 3, want, 4));
      cr_assert_eq(want[0].dims[0], count < 7 ? count : 7);
      cr_assert_eq(want[3].dims[0], count < 7 ? count : 7);
      vt_assert_equal(got, want, 4);
    } else {
      cr_assert(s, "k = -3 must fail");
      cr_assert(strstr(vkml_status_message(s), "k = -3 outside [0, 10] (found on the GPU)"),
                "%s", vkml_status_message(s));
      vkml_status_free(s);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* gather from data bounded along the gathered axis: an index past the
 * data's run-time size (12 of capacity 30) fails on the GPU naming that
 * size; inside it, the same as the CPU. */
Test(vk_rows, gather_checks_against_the_data_run_time_size) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @g(%d: f32[<=30,4], %i: i64[<=30]) -> (%y: f32[<=30,4]) {\n"
                     "  %y = gather %d, %i {axis=0} : f32[<=30,4]\n"
                     "  return %y\n}\n";
  ir_graph *ref = vt_parse(text);
  ir_plan *p = vt_compile(e.t, e.cc, vt_parse(text), NULL, IR_PRECISION_FP32);
  cr_assert_eq(p->steps[0].device, IR_DEVICE_GPU, "%s", ir_plan_str(p, p->steps[0].reason));
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  t_rng r = t_rng_make(6);
  int64_t dd[2] = {12, 4}, id[1] = {9};
  for (int bad = 0; bad < 2; bad++) {
    rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 2, dd, -1, 1), t_tensor_zeros(IR_I64, 1, id)};
    for (int q = 0; q < 9; q++) rt_store_i(&in[1], q, (q * 5) % 12 - (q % 2 ? 12 : 0));
    if (bad) rt_store_i(&in[1], 3, 20);
    rt_tensor got, want;
    vkml_status s = rt_vk_exec_run(x, in, 2, &got, 1, NULL);
    if (bad) {
      cr_assert(s && strstr(vkml_status_message(s), "index 20 (indices element 3) out of range "
                                                    "for axis 0 of size 12 (found on the GPU)"),
                "%s", s ? vkml_status_message(s) : "no error");
      vkml_status_free(s);
    } else {
      T_OK(s);
      T_OK(rt_cpu_run_graph(ref, in, 2, &want, 1));
      vt_assert_equal(&got, &want, 1);
    }
    for (int i = 0; i < 2; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* concat along the run-time sized axis: each part lands after the parts
 * before it at their run-time counts, read on the device; the whole's count
 * is their sum (f32 rows of 3 and i64 scalars per index); counts 4+7+2,
 * 10+0+5 and 0+0+0 agree with the CPU. */
Test(vk_rows, concat_of_run_time_counts) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @c(%a: f32[<=10,3], %b: f32[<=7,3], %c: f32[<=5,3], %i: i64[<=10], %j: i64[<=7]) "
      "-> (%y: f32[<=22,3], %z: i64[<=17]) {\n"
      "  %w = concat %a, %b, %c {axis=0} : f32[<=22,3]\n"
      "  %y = relu %w : f32[<=22,3]\n"
      "  %z = concat %i, %j {axis=0} : i64[<=17]\n"
      "  return %y, %z\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(2);
  const int64_t counts[3][3] = {{4, 7, 2}, {10, 0, 5}, {0, 0, 0}};
  for (int c = 0; c < 3; c++) {
    rt_tensor in[5];
    for (int q = 0; q < 3; q++) {
      int64_t d[2] = {counts[c][q], 3};
      in[q] = t_tensor_random(&r, IR_F32, 2, d, -1, 1);
    }
    for (int q = 0; q < 2; q++) {
      int64_t d[1] = {counts[c][q]};
      in[3 + q] = t_tensor_zeros(IR_I64, 1, d);
      for (int64_t v = 0; v < d[0]; v++) rt_store_i(&in[3 + q], v, (int64_t)t_rng_next(&r));
    }
    rt_tensor got[2], want[2];
    T_OK(rt_vk_exec_run(x, in, 5, got, 2, NULL));
    T_OK(rt_cpu_run_graph(ref, in, 5, want, 2));
    cr_assert_eq(want[0].dims[0], counts[c][0] + counts[c][1] + counts[c][2]);
    vt_assert_equal(got, want, 2);
    for (int i = 0; i < 5; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* An elementwise op of two bounded values of unrelated sizes: the kernel
 * compares their extent words; equal sizes agree with the CPU, different
 * ones fail the run on the GPU naming both. */
Test(vk_rows, elementwise_of_unrelated_sizes_is_checked) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @a(%x: f32[<=12,4], %y: f32[<=12,1], %c: bool[<=12,4]) -> "
                     "(%s: f32[<=12,4], %w: f32[<=12,4]) {\n"
                     "  %s = add %x, %y : f32[<=12,4]\n"
                     "  %w = where %c, %x, %s : f32[<=12,4]\n"
                     "  return %s, %w\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(14);
  const int64_t rows[3][3] = {{7, 7, 7}, {5, 4, 5}, {6, 6, 3}};
  for (int k = 0; k < 3; k++) {
    int64_t xd[2] = {rows[k][0], 4}, yd[2] = {rows[k][1], 1}, cd[2] = {rows[k][2], 4};
    rt_tensor in[3] = {t_tensor_random(&r, IR_F32, 2, xd, -1, 1),
                       t_tensor_random(&r, IR_F32, 2, yd, -1, 1), t_tensor_zeros(IR_BOOL, 2, cd)};
    for (int64_t q = 0; q < rows[k][2] * 4; q++) rt_store_i(&in[2], q, (int64_t)(t_rng_next(&r) % 2));
    rt_tensor got[2], want[2];
    vkml_status s = rt_vk_exec_run(x, in, 3, got, 2, NULL);
    if (k == 0) {
      T_OK(s);
      T_OK(rt_cpu_run_graph(ref, in, 3, want, 2));
      vt_assert_equal(got, want, 2);
    } else {
      const char *m = s ? vkml_status_message(s) : "no error";
      cr_assert(s && strstr(m, k == 1 ? "inputs 0 and 1 have 5 and 4 rows" : "inputs 0 and 1 have 3 and 6 rows") &&
                    strstr(m, "on the GPU"),
                "%s", m);
      vkml_status_free(s);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* A long bounded i32 row (69000 of 70000) with a run-time k, not split
 * (f32 and f16 rows of a known k bound are: the test below): the default
 * schedule takes the widest workgroup the device allows; equal to the CPU. */
Test(vk_rows, topk_of_a_long_run_time_row) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @t(%x: i32[<=70000]) -> (%v: i32[<=70000], %i: i64[<=70000]) {\n"
                     "  %s = shape %x : i64[1]\n"
                     "  %c = const i64[1] [50]\n"
                     "  %k = min %c, %s : i64[1]\n"
                     "  %v, %i = topk %x, %k {axis=0} : i32[<=70000], i64[<=70000]\n"
                     "  return %v, %i\n}\n";
  ir_graph *ref = vt_parse(text);
  ir_plan *p = vt_compile(e.t, e.cc, vt_parse(text), NULL, IR_PRECISION_FP32);
  int wide = 0;
  for (int i = 0; i < p->n_steps; i++) {
    cr_assert_eq(p->steps[i].device, IR_DEVICE_GPU, "step %d: %s", i,
                 ir_plan_str(p, p->steps[i].reason));
    const char *sched = ir_plan_str(p, p->steps[i].schedule);
    if (strstr(ir_plan_str(p, p->steps[i].key), "topk")) {
      char want[32];
      uint32_t w = e.t->max_workgroup_invocations < e.t->max_workgroup_size[0]
                       ? e.t->max_workgroup_invocations
                       : e.t->max_workgroup_size[0];
      snprintf(want, sizeof want, "WG_SIZE=%u", w >= 1024 ? 1024u : w >= 512 ? 512u : 256u);
      wide += strstr(sched, want) != NULL;
    }
  }
  cr_assert_eq(wide, 1, "the topk takes the widest workgroup");
  rt_tensor in = t_tensor_zeros(IR_I32, 1, (int64_t[]){69000});
  t_rng r = t_rng_make(10);
  for (int64_t q = 0; q < 69000; q++) rt_store_i(&in, q, (int64_t)(t_rng_next(&r) % 100000) - 50000);
  rt_tensor got[2], want[2];
  vt_exec_once(&e, p, &in, 1, got, 2);
  T_OK(rt_cpu_run_graph(ref, &in, 1, want, 2));
  cr_assert_eq(want[0].dims[0], 50);
  vt_assert_equal(got, want, 2);
  rt_tensor_free(&in);
  ir_plan_destroy(p);
  ir_graph_destroy(ref);
  vt_env_close(&e);
}

/* A whole reduction of a bounded value (batched NMS's max coordinate) reads
 * the count on the device: max, sum and prod over f32[<=300,4] at 157 and
 * 300 rows agree with the CPU; at 0 rows both give ONNX's (opset 18) empty
 * max -inf, sum 0 and prod 1. */
Test(vk_rows, whole_reductions_of_a_run_time_count) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @red(%x: f32[<=300,4]) -> (%m: f32[], %s: f32[], %p: f32[]) {\n"
                     "  %m = reduce_max %x {keepdims=0} : f32[]\n"
                     "  %s = reduce_sum %x {keepdims=0} : f32[]\n"
                     "  %q = reduce_prod %x {keepdims=0} : f32[]\n"
                     "  %p = mul %q, %q : f32[]\n"
                     "  return %m, %s, %p\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(12);
  static const int64_t rows[] = {157, 300, 0};
  for (int k = 0; k < 3; k++) {
    int64_t xd[2] = {rows[k], 4};
    rt_tensor in = t_tensor_random(&r, IR_F32, 2, xd, 0.99, 1.01), got[3], want[3];
    T_OK(rt_vk_exec_run(x, &in, 1, got, 3, NULL));
    T_OK(rt_cpu_run_graph(ref, &in, 1, want, 3));
    for (int i = 0; i < 3; i++) {
      t_assert_close(&got[i], &want[i], 1e-4, 1e-6);
      rt_tensor_free(&want[i]);
    }
    if (!rows[k]) {
      cr_assert(isinf(rt_load_f(&got[0], 0)) && rt_load_f(&got[0], 0) < 0, "max of none: %g",
                rt_load_f(&got[0], 0));
      cr_assert_eq(rt_load_f(&got[1], 0), 0.0);
      cr_assert_eq(rt_load_f(&got[2], 0), 1.0);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&got[i]);
    rt_tensor_free(&in);
  }
  all_gpu_close(&e, ref, p, x);
}

/* The tail of torchvision's batched NMS, as exported: If(numel(boxes) ==
 * 0) returns an empty i64[0], else the keep list; then keep[:50]. The
 * element count is an integer reduction of a run-time shape, the If a
 * select between a static empty value and a bounded one, the slice a copy
 * of the first rows: all on the GPU, their counts read and written on the
 * device. Also a select between two bounded values and one over static
 * values of one shape (a plain copy). Against the CPU executor at counts
 * that take either branch, cut or not by the slice, and 0. */
Test(vk_rows, the_if_tail_of_a_batched_nms) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @tail(%x: f32[<=300,4], %k: i64[<=300], %v: f32[<=300,4], %s: f32[2,3]) -> "
      "(%n: i64[], %y: i64[<=300], %z: i64[<=50], %w: f32[<=300,4], %t: f32[2,3], "
      "%zz: f32[<=7,4]) {\n"
      "  %sh = shape %x : i64[2]\n"
      "  %n = reduce_prod %sh {keepdims=0} : i64[]\n"
      "  %zero = const i64[] [0]\n"
      "  %c = equal %n, %zero : bool[]\n"
      "  %e = const i64[0] []\n"
      "  %y = select %c, %e, %k : i64[<=300]\n"
      "  %z = slice %y {starts=[0], ends=[50], axes=[0]} : i64[<=50]\n"
      "  %w = select %c, %v, %x : f32[<=300,4]\n"
      "  %s2 = neg %s : f32[2,3]\n"
      "  %t = select %c, %s, %s2 : f32[2,3]\n"
      "  %zz = slice %w {starts=[0], ends=[7]} : f32[<=7,4]\n"
      "  return %n, %y, %z, %w, %t, %zz\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(31);
  static const int64_t counts[][3] = {{157, 123, 40}, {0, 123, 40}, {300, 30, 300}, {5, 0, 3},
                                      {0, 0, 0},      {1, 300, 2}};
  for (int c = 0; c < 6; c++) {
    int64_t xd[2] = {counts[c][0], 4}, kd[1] = {counts[c][1]}, vd[2] = {counts[c][2], 4},
            sd[2] = {2, 3};
    rt_tensor in[4] = {t_tensor_random(&r, IR_F32, 2, xd, -1, 1),
                       t_tensor_random(&r, IR_I64, 1, kd, 0, 1000),
                       t_tensor_random(&r, IR_F32, 2, vd, -1, 1),
                       t_tensor_random(&r, IR_F32, 2, sd, -1, 1)};
    rt_tensor got[6], want[6];
    T_OK(rt_vk_exec_run(x, in, 4, got, 6, NULL));
    T_OK(rt_cpu_run_graph(ref, in, 4, want, 6));
    int64_t keep = counts[c][0] ? counts[c][1] : 0;
    cr_assert_eq(want[1].dims[0], keep);
    cr_assert_eq(want[2].dims[0], keep < 50 ? keep : 50);
    for (int i = 0; i < 6; i++) {
      t_assert_close(&got[i], &want[i], 0, 0);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    for (int i = 0; i < 4; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* Integer reductions (codegen/kernels/reduce.c): sum, prod, max and min of
 * i32 and i64 values over every axis or some, kept or dropped,
 * equal to the CPU's; a reduction over an empty axis stays on the CPU. */
Test(vk_rows, integer_reductions) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @ired(%a: i32[3,4,5], %b: i64[2,3,4], %c: i64[3]) -> (%s: i32[3,1,5], "
      "%m: i32[4], %q: i64[], %n: i64[2,4], %p: i64[1,1,1], %o: i64[1]) {\n"
      "  %s = reduce_sum %a {axes=[1]} : i32[3,1,5]\n"
      "  %m = reduce_max %a {axes=[0,2], keepdims=0} : i32[4]\n"
      "  %q = reduce_prod %c {keepdims=0} : i64[]\n"
      "  %n = reduce_min %b {axes=[-2], keepdims=0} : i64[2,4]\n"
      "  %p = reduce_max %b : i64[1,1,1]\n"
      "  %o = reduce_min %c : i64[1]\n"
      "  return %s, %m, %q, %n, %p, %o\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(32);
  for (int k = 0; k < 3; k++) {
    int64_t ad[3] = {3, 4, 5}, bd[3] = {2, 3, 4}, cd[1] = {3};
    rt_tensor in[3] = {t_tensor_random(&r, IR_I32, 3, ad, -1000, 1000),
                       t_tensor_random(&r, IR_I64, 3, bd, -5e12, 5e12),
                       t_tensor_random(&r, IR_I64, 1, cd, -3000, 3000)};
    rt_tensor got[6], want[6];
    T_OK(rt_vk_exec_run(x, in, 3, got, 6, NULL));
    T_OK(rt_cpu_run_graph(ref, in, 3, want, 6));
    for (int i = 0; i < 6; i++) {
      t_assert_close(&got[i], &want[i], 0, 0);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
  /* over an empty axis: the CPU */
  vt_env_open(&e);
  ir_plan *q = vt_compile(e.t, e.cc, vt_parse("vkir 1\ngraph @g(%a: i64[0,2]) -> (%s: i64[2]) {\n"
                                              "  %s = reduce_sum %a {axes=[0], keepdims=0} : i64[2]\n"
                                              "  return %s\n}\n"), NULL, IR_PRECISION_FP32);
  bool cpu = false;
  for (int i = 0; i < q->n_steps; i++)
    cpu = cpu || (q->steps[i].device == IR_DEVICE_CPU &&
                  strstr(ir_plan_str(q, q->steps[i].reason), "over nothing"));
  cr_assert(cpu, "the empty reduction is on the CPU, saying why");
  ir_plan_destroy(q);
  vt_env_close(&e);
}

/* Faster R-CNN's remaining run-time shapes, on the GPU: non_zero of a mask
 * over bounded rows (its stages read the count: elements past it are
 * zeros), reshapes merging the axes after the bounded one into it
 * ([<=150,20,4] -> [<=3000,4], flatten to [<=3000]), and a concat along
 * another axis of a part computed from another (their sizes provably one).
 * Against the CPU executor at 0, some and every row. */
Test(vk_rows, non_zero_reshape_and_concat_of_run_time_rows) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @nz(%x: f32[<=150,20,4], %v: f32[<=40]) -> (%p: i64[3,<=12000], %q: i64[1,<=40], "
      "%r: f32[<=3000,4], %f: f32[<=3000], %c: f32[<=150,81]) {\n"
      "  %half = const f32[] [0.5]\n"
      "  %m = greater %x, %half : bool[<=150,20,4]\n"
      "  %p = non_zero %m : i64[3,<=12000]\n"
      "  %mv = less %v, %half : bool[<=40]\n"
      "  %q = non_zero %mv : i64[1,<=40]\n"
      "  %r = reshape %x {shape=[-1,4]} : f32[<=3000,4]\n"
      "  %s = slice %x {starts=[0], ends=[1], axes=[2]} : f32[<=150,20,1]\n"
      "  %f = reshape %s {shape=[-1]} : f32[<=3000]\n"
      "  %xf = flatten %x {axis=1} : f32[<=150,80]\n"
      "  %first = slice %xf {starts=[0], ends=[1], axes=[1]} : f32[<=150,1]\n"
      "  %one = neg %first : f32[<=150,1]\n"
      "  %c = concat %one, %xf {axis=1} : f32[<=150,81]\n"
      "  return %p, %q, %r, %f, %c\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  t_rng r = t_rng_make(33);
  static const int64_t rows[][2] = {{97, 13}, {0, 40}, {150, 0}, {1, 1}};
  for (int k = 0; k < 4; k++) {
    int64_t xd[3] = {rows[k][0], 20, 4}, vd[1] = {rows[k][1]};
    rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 3, xd, 0, 1),
                       t_tensor_random(&r, IR_F32, 1, vd, 0, 1)};
    rt_tensor got[5], want[5];
    T_OK(rt_vk_exec_run(x, in, 2, got, 5, NULL));
    T_OK(rt_cpu_run_graph(ref, in, 2, want, 5));
    cr_assert_eq(want[2].dims[0], rows[k][0] * 20);
    for (int i = 0; i < 5; i++) {
      t_assert_close(&got[i], &want[i], 0, 0);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    for (int i = 0; i < 2; i++) rt_tensor_free(&in[i]);
  }
  all_gpu_close(&e, ref, p, x);
}

/* A long run-time row with a run-time k of known bound (the outputs'
 * capacity k_max, as pass_bound_topk leaves RetinaNet's levels): split
 * through to_capacity (the live elements, then padding that loses every
 * comparison and tie), a static topk of the bound (split into blocks over
 * many workgroups), a topk of the run-time k and a gather. Largest and
 * smallest, with ties, NaN and infinities, at counts above and below the
 * bound and 0: equal to the CPU. */
Test(vk_rows, long_run_time_rows_split_through_their_capacity) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @t(%x: f32[<=70000]) -> (%v: f32[<=50], %i: i64[<=50], %w: f32[<=40], "
      "%j: i64[<=40]) {\n"
      "  %s = shape %x : i64[1]\n"
      "  %c = const i64[1] [50]\n"
      "  %k = min %c, %s : i64[1]\n"
      "  %v, %i = topk %x, %k {axis=0, k_max=50} : f32[<=50], i64[<=50]\n"
      "  %c2 = const i64[1] [40]\n"
      "  %k2 = min %c2, %s : i64[1]\n"
      "  %w, %j = topk %x, %k2 {axis=0, largest=0, k_max=40} : f32[<=40], i64[<=40]\n"
      "  return %v, %i, %w, %j\n}\n";
  ir_graph *ref;
  ir_plan *p;
  rt_vk_exec *x;
  all_gpu(&e, text, &ref, &p, &x);
  int caps = 0;
  for (int i = 0; i < p->n_steps; i++)
    caps += strstr(ir_plan_str(p, p->steps[i].key), "to_capacity") != NULL;
  cr_assert_eq(caps, 2, "%d to_capacity steps", caps);
  t_rng r = t_rng_make(34);
  static const int64_t counts[] = {69000, 30, 0, 20001};
  for (int c = 0; c < 4; c++) {
    rt_tensor in = t_tensor_zeros(IR_F32, 1, (int64_t[]){counts[c]});
    for (int64_t q = 0; q < counts[c]; q++) {
      uint64_t u = t_rng_next(&r) % 1000;
      double v = u == 0 ? NAN : u == 1 ? INFINITY : u == 2 ? -INFINITY : (double)(u % 300) / 7;
      rt_store_f(&in, q, v);
    }
    rt_tensor got[4], want[4];
    T_OK(rt_vk_exec_run(x, &in, 1, got, 4, NULL));
    T_OK(rt_cpu_run_graph(ref, &in, 1, want, 4));
    cr_assert_eq(want[0].dims[0], counts[c] < 50 ? counts[c] : 50);
    for (int i = 0; i < 4; i++) {
      t_assert_close(&got[i], &want[i], 0, 0);
      rt_tensor_free(&got[i]);
      rt_tensor_free(&want[i]);
    }
    rt_tensor_free(&in);
  }
  all_gpu_close(&e, ref, p, x);
}
