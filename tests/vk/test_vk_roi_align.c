/* roi_align on the GPU (glsl/roi_align.comp, codegen/kernels/roi_align.c) against
 * the CPU reference (the ONNX reference's semantics): avg and max,
 * half_pixel and output_half_pixel, adaptive and fixed sampling ratios,
 * spatial scales, boxes partly or wholly outside the image and degenerate
 * ones, f32 and f16, i64 and i32 batch indices; the default schedule and
 * every point of the space. fp32 arithmetic against the reference's double:
 * within 5e-5 of the largest |x| (f16: plus the output's rounding). A
 * batch index outside the batch (the reference refuses it) is reported in
 * the error slot and gives NaN, never a read outside x. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/core/templates.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct roi_case {
  ir_dtype dt, bi_dt;
  int64_t n, c, h, w, r, oh, ow;
  int64_t ratio;
  float scale;
  bool max_mode, half_pixel;
} roi_case;

static ir_node *make(const roi_case *rc, const rt_tensor *in, ir_graph **g) {
  ir_type yt;
  int64_t yd[4] = {rc->r, rc->c, rc->oh, rc->ow};
  yt = ir_type_make(rc->dt, 4, yd);
  ir_node *n = t_node_make(g, IR_OP_ROI_ALIGN, in, 3, &yt, 1);
  T_OK(ir_node_set_int(*g, n, IR_A_OUTPUT_HEIGHT, rc->oh));
  T_OK(ir_node_set_int(*g, n, IR_A_OUTPUT_WIDTH, rc->ow));
  T_OK(ir_node_set_int(*g, n, IR_A_SAMPLING_RATIO, rc->ratio));
  T_OK(ir_node_set_float(*g, n, IR_A_SPATIAL_SCALE, rc->scale));
  T_OK(ir_node_set_enum(*g, n, IR_A_ROI_MODE, rc->max_mode ? IR_ROI_MAX : IR_ROI_AVG));
  T_OK(ir_node_set_enum(*g, n, IR_A_COORD_MODE,
                        rc->half_pixel ? IR_COORD_HALF_PIXEL : IR_COORD_OUTPUT_HALF_PIXEL));
  return n;
}

/* Random x; rois spread over [-0.3, 1.3] of the image in input units (so
 * some lie partly or wholly outside), some degenerate (x2 < x1). */
static void inputs(const roi_case *rc, uint64_t seed, rt_tensor in[3]) {
  t_rng r = t_rng_make(seed);
  int64_t xd[4] = {rc->n, rc->c, rc->h, rc->w}, rd[2] = {rc->r, 4}, bd[1] = {rc->r};
  in[0] = t_tensor_random(&r, rc->dt, 4, xd, -2, 2);
  in[1] = t_tensor_zeros(rc->dt, 2, rd);
  in[2] = t_tensor_zeros(rc->bi_dt, 1, bd);
  double iw = (double)rc->w / rc->scale, ih = (double)rc->h / rc->scale;
  for (int64_t k = 0; k < rc->r; k++) {
    double x1 = t_rng_uniform(&r, -0.3, 1.1) * iw, y1 = t_rng_uniform(&r, -0.3, 1.1) * ih;
    double x2 = x1 + t_rng_uniform(&r, -0.1, 0.6) * iw, y2 = y1 + t_rng_uniform(&r, -0.1, 0.6) * ih;
    double v[4] = {x1, y1, x2, y2};
    for (int j = 0; j < 4; j++) rt_store_f(&in[1], 4 * k + j, v[j]);
    rt_store_i(&in[2], k, (int64_t)(t_rng_next(&r) % (uint64_t)rc->n));
  }
}

static bool run_case(vt_env *e, const roi_case *rc, const cg_schedule *s, uint64_t seed) {
  rt_tensor in[3], want, got;
  inputs(rc, seed, in);
  ir_graph *g;
  ir_node *n = make(rc, in, &g);
  cg_kernel k;
  vkml_status st = cg_kernel_for_node(n, s ? &cg_roi_align_template : NULL, s, e->t, &k);
  if (st && s && vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(st);
    for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
    ir_graph_destroy(g);
    return false;
  }
  T_OK(st);
  ir_type yt = n->outputs[0]->type;
  T_OK(rt_tensor_alloc(&yt, &want));
  T_OK(t_node_run(n, in, 3, &want, 1));
  vt_poisoned(&yt, 0x7f, &got);
  const rt_tensor *ins[3] = {&in[0], &in[1], &in[2]};
  vt_run_kernel(e->ctx, e->cc, &k, ins, 3, &got);
  double f16 = rc->dt == IR_F16 ? ldexp(1, -10) : 0, maxabs = 0;
  for (int64_t i = 0; i < rt_tensor_numel(&in[0]); i++)
    maxabs = fmax(maxabs, fabs(rt_load_f(&in[0], i)));
  for (int64_t i = 0; i < rt_tensor_numel(&want); i++) {
    double gv = rt_load_f(&got, i), wv = rt_load_f(&want, i);
    /* every output is a weighted mean of taps (|out| <= max |x|); fp32
     * sampling points (feature-map coordinates below ~64) move a bilinear
     * weight by a few 1e-6 */
    double tol = 5e-5 * maxabs + f16 * fabs(wv);
    cr_assert(fabs(gv - wv) <= tol, "%s: element %lld: %.9g, want %.9g (bound %.3g)", k.key,
              (long long)i, gv, wv, tol);
  }
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  ir_graph_destroy(g);
  return true;
}

Test(vk_roi_align, modes_ratios_and_dtypes) {
  vt_env e;
  vt_env_open(&e);
  const roi_case base[] = {
      {IR_F32, IR_I64, 2, 3, 17, 23, 12, 7, 7, 0, 1.0f, 0, 1},
      {IR_F32, IR_I64, 1, 4, 32, 32, 9, 3, 5, 2, 0.25f, 0, 1},
      {IR_F32, IR_I32, 3, 2, 9, 40, 7, 14, 14, 0, 0.5f, 0, 0},
      {IR_F32, IR_I64, 2, 5, 25, 19, 10, 2, 3, 1, 2.0f, 0, 1},
  };
  int ran = 0;
  for (int i = 0; i < 4; i++)
    for (int v = 0; v < 4; v++) {
      roi_case rc = base[i];
      rc.max_mode = v & 1;
      if (v & 2) rc.dt = e.t->storage_16bit ? IR_F16 : IR_F32;
      if (v == 2) rc.half_pixel = !rc.half_pixel;
      cr_assert(run_case(&e, &rc, NULL, 50 + (uint64_t)(4 * i + v)));
      ran++;
    }
  cr_assert_eq(ran, 16);
  vt_env_close(&e);
}

Test(vk_roi_align, schedule_points) {
  vt_env e;
  vt_env_open(&e);
  roi_case rc = {IR_F32, IR_I64, 2, 3, 20, 20, 33, 7, 7, 2, 1.0f, 1, 1};
  int64_t n = cg_space_size(&cg_roi_align_template);
  int ran = 0;
  for (int64_t p = 0; p < n; p++) {
    cg_schedule s;
    cg_space_point(&cg_roi_align_template, p, &s);
    ran += run_case(&e, &rc, &s, 90 + (uint64_t)p);
  }
  cr_assert_geq(ran, n - 4, "only %d of %lld points ran", ran, (long long)n);
  vt_env_close(&e);
}

/* A batch index outside [0, N) (the CPU reference refuses it): reported in
 * the error slot (roi 1, value 5, size 2), that roi's outputs are NaN, the
 * others are right, and nothing outside x is read. */
Test(vk_roi_align, bad_batch_index_is_reported) {
  vt_env e;
  vt_env_open(&e);
  roi_case rc = {IR_F32, IR_I64, 2, 2, 8, 8, 3, 2, 2, 0, 1.0f, 0, 1};
  rt_tensor in[3];
  inputs(&rc, 7, in);
  rt_store_i(&in[2], 1, 5);
  ir_graph *g;
  ir_node *n = make(&rc, in, &g);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, e.t, &k));
  ir_type yt = n->outputs[0]->type;
  rt_tensor got;
  vt_poisoned(&yt, 0, &got);
  const rt_tensor *ins[3] = {&in[0], &in[1], &in[2]};
  uint32_t slot[IR_PLAN_ERROR_SLOT_WORDS];
  vt_run_kernel_slot(e.ctx, e.cc, &k, ins, 3, &got, 1, slot);
  cr_assert_eq(slot[0], IR_DEVICE_ERROR_ROI_BATCH);
  cr_assert(slot[1] == 1 && slot[2] == 5 && slot[3] == 0 && slot[5] == 2, "%u %u %u %u", slot[1],
            slot[2], slot[3], slot[5]);
  int64_t per_roi = rc.c * rc.oh * rc.ow;
  for (int64_t i = 0; i < 3 * per_roi; i++) {
    double v = rt_load_f(&got, i);
    cr_assert_eq(isnan(v), i / per_roi == 1, "element %lld: %g", (long long)i, v);
  }
  for (int i = 0; i < 3; i++) rt_tensor_free(&in[i]);
  rt_tensor_free(&got);
  ir_graph_destroy(g);
  vt_env_close(&e);
}
