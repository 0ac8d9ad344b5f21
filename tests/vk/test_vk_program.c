/* Pipelines (push constants, specialization constants, push descriptors and
 * the descriptor-pool fallback) and programs (recorded once, replayed,
 * barriers only between dependent dispatches — checked by the
 * synchronization validation layer — timestamps, block and spin waits). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/compile.h"
#include "runtime/vk/vk_memory.h"
#include "runtime/vk/vk_pipeline.h"
#include "runtime/vk/vk_program.h"
#include "test_support.h"
#include "vk_test.h"

/* y = x * SCALE + bias, ROUNDS times (ROUNDS makes a dispatch slow). */
static const char *AXPB =
    "#version 450\n"
    "layout(local_size_x_id = 0) in;\n"
    "layout(constant_id = 1) const float SCALE = 1.0;\n"
    "layout(constant_id = 2) const uint ROUNDS = 1;\n"
    "layout(push_constant) uniform P { uint n; float bias; } pc;\n"
    "layout(binding = 0) readonly buffer X { float x[]; };\n"
    "layout(binding = 1) writeonly buffer Y { float y[]; };\n"
    "void main() {\n"
    "  uint i = gl_GlobalInvocationID.x;\n"
    "  if (i >= pc.n) return;\n"
    "  float v = x[i];\n"
    "  for (uint r = 0; r < ROUNDS; r++) v = v * SCALE + pc.bias;\n"
    "  y[i] = v;\n"
    "}\n";

typedef struct push {
  uint32_t n;
  float bias;
} push;

static rt_vk_pipeline *axpb(rt_vk_context *ctx, cg_compiler *cc, float scale, uint32_t rounds) {
  cg_spirv spv;
  T_OK(cg_compile(cc, "axpb.comp", AXPB, NULL, 0, CG_OPT_PERFORMANCE, &spv));
  uint32_t sbits;
  memcpy(&sbits, &scale, 4);
  rt_vk_spec spec[] = {{0, 64}, {1, sbits}, {2, rounds}};
  rt_vk_pipeline_desc d = {
      .name = "axpb", .spirv = spv.words, .spirv_bytes = spv.bytes, .n_buffers = 2,
      .push_bytes = sizeof(push), .spec = spec, .n_spec = 3};
  rt_vk_pipeline *p;
  T_OK(rt_vk_pipeline_create(ctx, &d, &p));
  cg_spirv_free(&spv);
  return p;
}

static cg_compiler *compiler(void) {
  cg_compiler_opts o = {.no_cache = true};
  cg_compiler *c;
  T_OK(cg_compiler_create(&o, &c));
  return c;
}

enum { N = 1000 };

static rt_vk_buffer *upload(rt_vk_context *ctx, const float *v) {
  rt_vk_buffer *b;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, N * sizeof(float), &b));
  T_OK(rt_vk_buffer_upload(ctx, b, 0, v, N * sizeof(float)));
  return b;
}

static void expect(rt_vk_context *ctx, rt_vk_buffer *b, const float *want, const char *what) {
  float got[N];
  T_OK(rt_vk_buffer_download(ctx, b, 0, got, sizeof got));
  for (int i = 0; i < N; i++)
    if (fabsf(got[i] - want[i]) > 1e-5f * fabsf(want[i]))
      cr_assert_fail("%s[%d]: got %.9g want %.9g", what, i, got[i], want[i]);
}

static rt_vk_binding bind(rt_vk_buffer *b, rt_vk_access a) {
  rt_vk_binding x = {b, 0, 0, a};
  return x;
}

/* Five dispatches over buffers A..E (y = 2x + bias):
 *   0: A -> B     1: C -> D     (independent: no barrier)
 *   2: B -> E     (reads 0's output: barrier)
 *   3: D -> A     (1 was made visible by that barrier; A was read by 0, which
 *                  the barrier also waited for: no barrier)
 *   4: E -> B     (reads 2's output, overwrites what 2 read: barrier)
 * replayed three times; the host simulates the same. */
static void chain(bool push_desc, rt_vk_wait wait) {
  rt_vk_context_opts o = {.validation_sync = true, .no_pipeline_cache = true,
                          .no_push_descriptors = !push_desc};
  rt_vk_context *ctx = vt_context_opts(&o);
  cr_assert_eq(rt_vk_context_target(ctx)->push_descriptors, push_desc);
  cg_compiler *cc = compiler();
  rt_vk_pipeline *p = axpb(ctx, cc, 2.0f, 1);
  cr_assert_eq(rt_vk_pipeline_n_buffers(p), 2);
  cr_assert_eq(rt_vk_pipeline_push_bytes(p), sizeof(push));

  t_rng r = t_rng_make(9);
  float h[5][N];
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < N; i++) h[k][i] = (float)t_rng_nonzero(&r, -2, 2);
  rt_vk_buffer *b[5];
  for (int k = 0; k < 5; k++) b[k] = upload(ctx, h[k]);
  enum { A, B, C, D, E };
  static const int src[5] = {A, C, B, D, E}, dst[5] = {B, D, E, A, B};
  static const float bias[5] = {1.0f, -0.5f, 0.25f, 0.125f, -1.0f};

  rt_vk_program *prog;
  T_OK(rt_vk_program_create(ctx, false, &prog));
  uint32_t groups[3] = {(N + 63) / 64, 1, 1};
  for (int d = 0; d < 5; d++) {
    rt_vk_binding bd[2] = {bind(b[src[d]], RT_VK_READ), bind(b[dst[d]], RT_VK_WRITE)};
    push pc = {N, bias[d]};
    T_OK(rt_vk_program_dispatch(prog, p, bd, 2, &pc, sizeof pc, groups));
  }
  T_OK(rt_vk_program_finish(prog));
  rt_vk_program_stats st;
  rt_vk_program_stats_get(prog, &st);
  cr_assert_eq(st.n_dispatches, 5);
  cr_assert_eq(st.n_barriers, 2);
  cr_assert_eq(st.barrier_before[0], 2);
  cr_assert_eq(st.barrier_before[1], 4);

  for (int run = 0; run < 3; run++) {
    T_OK(rt_vk_program_run(prog, wait));
    for (int d = 0; d < 5; d++)
      for (int i = 0; i < N; i++) h[dst[d]][i] = h[src[d]][i] * 2.0f + bias[d];
    vt_assert_clean(ctx);
  }
  const char *names[5] = {"A", "B", "C", "D", "E"};
  for (int k = 0; k < 5; k++) expect(ctx, b[k], h[k], names[k]);

  vkml_status s = rt_vk_program_finish(prog);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  rt_vk_program_destroy(ctx, prog);
  for (int k = 0; k < 5; k++) rt_vk_buffer_destroy(ctx, b[k]);
  rt_vk_pipeline_destroy(ctx, p);
  cg_compiler_destroy(cc);
  vt_destroy(ctx);
}

Test(vk_program, chain_push_descriptors_block) { chain(true, RT_VK_WAIT_BLOCK); }
Test(vk_program, chain_descriptor_pool_spin) { chain(false, RT_VK_WAIT_SPIN); }

/* The same dependent pair, with ranges of ONE buffer: disjoint ranges need
 * no barrier, overlapping ones do. */
Test(vk_program, barriers_follow_byte_ranges) {
  rt_vk_context_opts o = {.validation_sync = true, .no_pipeline_cache = true};
  rt_vk_context *ctx = vt_context_opts(&o);
  cg_compiler *cc = compiler();
  rt_vk_pipeline *p = axpb(ctx, cc, 3.0f, 1);
  uint64_t align = rt_vk_context_target(ctx)->min_storage_buffer_offset_alignment;
  uint64_t slot = (N * sizeof(float) + align - 1) / align * align;
  rt_vk_buffer *buf;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 4 * slot, &buf));
  t_rng r = t_rng_make(4);
  float h[4][N];
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < N; i++) h[k][i] = (float)t_rng_nonzero(&r, -1, 1);
    T_OK(rt_vk_buffer_upload(ctx, buf, k * slot, h[k], sizeof h[k]));
  }
  /* 0: s0 -> s1   1: s2 -> s3 (disjoint: no barrier)   2: s1 -> s2 (barrier) */
  static const int src[3] = {0, 2, 1}, dst[3] = {1, 3, 2};
  rt_vk_program *prog;
  T_OK(rt_vk_program_create(ctx, false, &prog));
  uint32_t groups[3] = {(N + 63) / 64, 1, 1};
  for (int d = 0; d < 3; d++) {
    rt_vk_binding bd[2] = {{buf, src[d] * slot, N * sizeof(float), RT_VK_READ},
                           {buf, dst[d] * slot, N * sizeof(float), RT_VK_WRITE}};
    push pc = {N, 0.5f};
    T_OK(rt_vk_program_dispatch(prog, p, bd, 2, &pc, sizeof pc, groups));
  }
  T_OK(rt_vk_program_finish(prog));
  rt_vk_program_stats st;
  rt_vk_program_stats_get(prog, &st);
  cr_assert_eq(st.n_barriers, 1);
  cr_assert_eq(st.barrier_before[0], 2);
  T_OK(rt_vk_program_run(prog, RT_VK_WAIT_BLOCK));
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < N; i++) h[dst[d]][i] = h[src[d]][i] * 3.0f + 0.5f;
  float got[N];
  for (int k = 0; k < 4; k++) {
    T_OK(rt_vk_buffer_download(ctx, buf, k * slot, got, sizeof got));
    for (int i = 0; i < N; i++)
      if (fabsf(got[i] - h[k][i]) > 1e-5f * fabsf(h[k][i]))
        cr_assert_fail("slot %d [%d]: got %g want %g", k, i, got[i], h[k][i]);
  }
  rt_vk_program_destroy(ctx, prog);
  rt_vk_buffer_destroy(ctx, buf);
  rt_vk_pipeline_destroy(ctx, p);
  cg_compiler_destroy(cc);
  vt_destroy(ctx);
}

Test(vk_program, timestamps_measure_dispatches) {
  rt_vk_context *ctx = vt_context(NULL);
  cg_compiler *cc = compiler();
  /* the same work per element, 64 vs 2^18 elements, 64 rounds each */
  rt_vk_pipeline *p = axpb(ctx, cc, 1.0001f, 64);
  enum { BIG = 1 << 18 };
  rt_vk_buffer *x, *y;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, BIG * sizeof(float), &x));
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, BIG * sizeof(float), &y));
  float *v = malloc(BIG * sizeof(float));
  for (int i = 0; i < BIG; i++) v[i] = 1.0f + (float)i / BIG;
  T_OK(rt_vk_buffer_upload(ctx, x, 0, v, BIG * sizeof(float)));
  rt_vk_program *prog;
  T_OK(rt_vk_program_create(ctx, true, &prog));
  rt_vk_binding bd[2] = {{x, 0, 0, RT_VK_READ}, {y, 0, 0, RT_VK_WRITE}};
  push small = {64, 0.0f}, big = {BIG, 0.0f};
  uint32_t g1[3] = {1, 1, 1}, g2[3] = {BIG / 64, 1, 1};
  T_OK(rt_vk_program_dispatch(prog, p, bd, 2, &small, sizeof small, g1));
  T_OK(rt_vk_program_dispatch(prog, p, bd, 2, &big, sizeof big, g2));
  T_OK(rt_vk_program_finish(prog));
  double ns[2], total;
  vkml_status s = rt_vk_program_timings(prog, ns, 2, &total);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT, "timings before a run");
  vkml_status_free(s);
  /* lavapipe compiles shaders lazily during the first run: time the second */
  T_OK(rt_vk_program_run(prog, RT_VK_WAIT_BLOCK));
  T_OK(rt_vk_program_run(prog, RT_VK_WAIT_BLOCK));
  T_OK(rt_vk_program_timings(prog, ns, 2, &total));
  cr_assert(ns[0] >= 0 && ns[1] > 0 && total > 0, "%g %g %g", ns[0], ns[1], total);
  cr_assert(fabs(ns[0] + ns[1] - total) <= 1e-6 * total + 1);
  cr_assert_gt(ns[1], ns[0], "2^18 elements took %g ns, 64 took %g ns", ns[1], ns[0]);
  /* the values are right too */
  float out[64];
  T_OK(rt_vk_buffer_download(ctx, y, (BIG - 64) * sizeof(float), out, sizeof out));
  for (int i = 0; i < 64; i++) {
    double want = v[BIG - 64 + i] * pow(1.0001f, 64);
    if (fabs(out[i] - want) > 1e-5 * want) cr_assert_fail("[%d] %g vs %g", i, out[i], want);
  }
  free(v);
  rt_vk_program_destroy(ctx, prog);
  rt_vk_buffer_destroy(ctx, x);
  rt_vk_buffer_destroy(ctx, y);
  rt_vk_pipeline_destroy(ctx, p);
  cg_compiler_destroy(cc);
  vt_destroy(ctx);
}

/* A fill: zeros over the whole buffer, ordered after every earlier command
 * and before every later one (no hazard for the synchronization validation
 * layer), a command of its own for timings; a size not a multiple of 4 is
 * refused. */
Test(vk_program, fill_zeroes_between_full_barriers) {
  rt_vk_context_opts o = {.validation_sync = true, .no_pipeline_cache = true};
  rt_vk_context *ctx = vt_context_opts(&o);
  cg_compiler *cc = compiler();
  rt_vk_pipeline *p = axpb(ctx, cc, 2.0f, 1);
  rt_vk_buffer *x, *y, *odd;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, N * sizeof(float), &x));
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, N * sizeof(float), &y));
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 6, &odd));
  float v[N];
  for (int i = 0; i < N; i++) v[i] = 1.0f + (float)i;
  T_OK(rt_vk_buffer_upload(ctx, x, 0, v, sizeof v));
  rt_vk_program *prog;
  T_OK(rt_vk_program_create(ctx, true, &prog));
  vkml_status s = rt_vk_program_fill(prog, odd);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  rt_vk_binding bd[2] = {{x, 0, 0, RT_VK_READ}, {y, 0, 0, RT_VK_WRITE}};
  push pc = {N, 0.5f};
  uint32_t g[3] = {(N + 63) / 64, 1, 1};
  /* y = 2x + 0.5, x zeroed, y = 2*0 + 0.5 */
  T_OK(rt_vk_program_dispatch(prog, p, bd, 2, &pc, sizeof pc, g));
  T_OK(rt_vk_program_fill(prog, x));
  T_OK(rt_vk_program_dispatch(prog, p, bd, 2, &pc, sizeof pc, g));
  T_OK(rt_vk_program_finish(prog));
  rt_vk_program_stats st;
  rt_vk_program_stats_get(prog, &st);
  cr_assert_eq(st.n_dispatches, 3);
  T_OK(rt_vk_program_run(prog, RT_VK_WAIT_BLOCK));
  float out[N];
  T_OK(rt_vk_buffer_download(ctx, y, 0, out, sizeof out));
  for (int i = 0; i < N; i++)
    if (out[i] != 0.5f) cr_assert_fail("[%d] %g, not 0.5", i, out[i]);
  T_OK(rt_vk_buffer_download(ctx, x, 0, out, sizeof out));
  for (int i = 0; i < N; i++)
    if (out[i] != 0.0f) cr_assert_fail("x[%d] %g, not zeroed", i, out[i]);
  double ns[3], total;
  T_OK(rt_vk_program_timings(prog, ns, 3, &total));
  cr_assert(ns[0] >= 0 && ns[1] >= 0 && ns[2] >= 0 && total > 0);
  vt_assert_clean(ctx);
  rt_vk_program_destroy(ctx, prog);
  rt_vk_buffer_destroy(ctx, x);
  rt_vk_buffer_destroy(ctx, y);
  rt_vk_buffer_destroy(ctx, odd);
  rt_vk_pipeline_destroy(ctx, p);
  cg_compiler_destroy(cc);
  vt_destroy(ctx);
}

Test(vk_program, bad_requests_are_statuses) {
  rt_vk_context *ctx = vt_context(NULL);
  cg_compiler *cc = compiler();
  rt_vk_pipeline *p = axpb(ctx, cc, 1.0f, 1), *q = NULL;
  /* not SPIR-V; push constants beyond the device limit */
  uint32_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  rt_vk_pipeline_desc d = {.name = "junk", .spirv = junk, .spirv_bytes = sizeof junk, .n_buffers = 1};
  vkml_status s = rt_vk_pipeline_create(ctx, &d, &q);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  cr_assert(strstr(vkml_status_message(s), "junk"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  cg_spirv spv;
  T_OK(cg_compile(cc, "axpb.comp", AXPB, NULL, 0, CG_OPT_PERFORMANCE, &spv));
  d.spirv = spv.words;
  d.spirv_bytes = spv.bytes;
  d.push_bytes = rt_vk_context_target(ctx)->max_push_constant_bytes + 4;
  s = rt_vk_pipeline_create(ctx, &d, &q);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED);
  vkml_status_free(s);
  cr_assert_null(q);
  cg_spirv_free(&spv);

  rt_vk_buffer *b;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 4096, &b));
  rt_vk_program *prog;
  T_OK(rt_vk_program_create(ctx, false, &prog));
  push pc = {16, 0};
  uint32_t g[3] = {1, 1, 1}, g0[3] = {0, 1, 1};
  rt_vk_binding one[1] = {{b, 0, 0, RT_VK_READ}};
  rt_vk_binding two[2] = {{b, 0, 64, RT_VK_READ}, {b, 64, 64, RT_VK_WRITE}};
  s = rt_vk_program_dispatch(prog, p, one, 1, &pc, sizeof pc, g);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  s = rt_vk_program_dispatch(prog, p, two, 2, &pc, sizeof pc, g0);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  two[1].offset = 4096; /* past the end */
  s = rt_vk_program_dispatch(prog, p, two, 2, &pc, sizeof pc, g);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  if (rt_vk_context_target(ctx)->min_storage_buffer_offset_alignment > 4) {
    two[1].offset = 4; /* misaligned */
    s = rt_vk_program_dispatch(prog, p, two, 2, &pc, sizeof pc, g);
    cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
    cr_assert(strstr(vkml_status_message(s), "not aligned"), "%s", vkml_status_message(s));
    vkml_status_free(s);
  }
  s = rt_vk_program_run(prog, RT_VK_WAIT_BLOCK);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT, "run before finish");
  vkml_status_free(s);
  rt_vk_program_destroy(ctx, prog);
  rt_vk_buffer_destroy(ctx, b);
  rt_vk_pipeline_destroy(ctx, p);
  cg_compiler_destroy(cc);
  vt_destroy(ctx);
}

/* The messenger really counts: a shader using a binding the layout lacks is
 * a validation error, recorded with its message. */
Test(vk_program, validation_errors_are_counted) {
  rt_vk_context *ctx = vt_context(NULL);
  cg_compiler *cc = compiler();
  cg_spirv spv;
  T_OK(cg_compile(cc, "axpb.comp", AXPB, NULL, 0, CG_OPT_PERFORMANCE, &spv));
  rt_vk_pipeline_desc d = {.name = "short-layout", .spirv = spv.words, .spirv_bytes = spv.bytes,
                           .n_buffers = 1, .push_bytes = sizeof(push)};
  rt_vk_pipeline *p = NULL;
  vkml_status s = rt_vk_pipeline_create(ctx, &d, &p);
  rt_vk_report rep;
  rt_vk_context_report(ctx, &rep);
  cr_assert_gt(rep.n_errors, 0u, "the validation layer stayed silent");
  cr_assert(strstr(rep.first_message, "error: "), "%s", rep.first_message);
  vkml_status_free(s);
  rt_vk_pipeline_destroy(ctx, p);
  cg_spirv_free(&spv);
  cg_compiler_destroy(cc);
  rt_vk_context_destroy(ctx, &rep);
  cr_assert_gt(rep.n_errors, 0u);
  cr_assert_eq(rep.n_leaked, 0);
}
