/* The fast CPU paths (runtime/cpu/k_sgemm.c, k_conv_fast.c) against the
 * reference loops (rt_cpu_ctx.reference) on many random shapes: conv2d with
 * groups, depthwise, strides, dilations, asymmetric pads, batches, blocks
 * past the GEMM's MC / NC / KC; gemm with transposes, alpha, beta and a
 * broadcast C; matmul with batch broadcasting and 1-D operands. Each case
 * runs on the calling thread and on a pool of three. On a CPU with AVX-512
 * the GEMM runs its wide tile; meson runs this file again as cpu_fast_avx2
 * (VKML_CPU_ISA=avx2) for the narrow one. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/threads.h"
#include "tests/support/test_support.h"

static int64_t pick(t_rng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)(t_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* fp32 accumulation of `terms` products of values in [-1, 1] in any order:
 * within terms * 2^-23 of the double result (a loose form of the classic
 * bound, which holds with room), plus the output's own rounding. */
static void assert_fast_close(const rt_tensor *got, const rt_tensor *want, int64_t terms,
                              const char *what) {
  bool f16 = want->dtype == IR_F16;
  double atol = (double)(terms + 2) * ldexp(1, -23) + (f16 ? 1e-3 : 0);
  double rtol = f16 ? 2e-3 : 1e-6;
  int64_t n = rt_tensor_numel(want);
  cr_assert_eq(rt_tensor_numel(got), n);
  for (int64_t i = 0; i < n; i++) {
    double g = rt_load_f(got, i), w = rt_load_f(want, i);
    if (!(fabs(g - w) <= atol + rtol * fabs(w)))
      cr_assert_fail("%s: element %lld of %lld: fast %.9g, reference %.9g", what, (long long)i,
                     (long long)n, g, w);
  }
}

/* Runs n on in[] three ways (reference, fast on the caller, fast on pool)
 * and compares; out_type is n's output. False when the reference output is
 * all zeros (a relu of negatives: the caller bounds how often). */
static bool check_node(const ir_node *n, const rt_tensor *in, int n_in, const ir_type *out_type,
                       int64_t terms, rt_threads *pool, const char *what) {
  const rt_tensor *ip[3] = {&in[0], &in[1], n_in > 2 ? &in[2] : NULL};
  rt_tensor want, got1, gotp;
  T_OK(rt_tensor_alloc(out_type, &want));
  T_OK(rt_tensor_alloc(out_type, &got1));
  T_OK(rt_tensor_alloc(out_type, &gotp));
  memset(got1.data, 0x5a, got1.cap_bytes);
  memset(gotp.data, 0x5a, gotp.cap_bytes);
  rt_tensor *o[1] = {&want};
  rt_cpu_ctx ref = {.reference = true}, threaded = {.pool = pool};
  T_OK(rt_cpu_run_node_ctx(&ref, n, ip, n_in, o, 1));
  o[0] = &got1;
  T_OK(rt_cpu_run_node_ctx(NULL, n, ip, n_in, o, 1));
  o[0] = &gotp;
  T_OK(rt_cpu_run_node_ctx(&threaded, n, ip, n_in, o, 1));
  double mag = 0;
  for (int64_t i = 0; i < rt_tensor_numel(&want); i++) mag += fabs(rt_load_f(&want, i));
  assert_fast_close(&got1, &want, terms, what);
  assert_fast_close(&gotp, &want, terms, what);
  rt_tensor_free(&want);
  rt_tensor_free(&got1);
  rt_tensor_free(&gotp);
  return mag > 0;
}

static const ir_act acts[] = {IR_ACT_NONE, IR_ACT_RELU, IR_ACT_LEAKY_RELU, IR_ACT_CLIP,
                              IR_ACT_SIGMOID};

static void set_act(ir_graph *g, ir_node *n, t_rng *r) {
  ir_act act = acts[pick(r, 0, sizeof acts / sizeof acts[0] - 1)];
  if (act == IR_ACT_NONE) return;
  T_OK(ir_node_set_enum(g, n, IR_A_ACT, act));
  if (act == IR_ACT_LEAKY_RELU) T_OK(ir_node_set_float(g, n, IR_A_ACT_ALPHA, 0.1f));
  if (act == IR_ACT_CLIP) {
    T_OK(ir_node_set_float(g, n, IR_A_ACT_ALPHA, -0.5f));
    T_OK(ir_node_set_float(g, n, IR_A_ACT_BETA, 0.7f));
  }
}

/* One random conv2d; big makes channels, pixels or taps pass the GEMM's
 * blocks. */
static bool conv_case(t_rng *r, int i, bool big, rt_threads *pool) {
  int64_t kind = pick(r, 0, 3); /* plain, grouped, depthwise, 1x1 */
  int64_t g = kind == 1 ? pick(r, 2, 4) : 1;
  int64_t cg = kind == 2 ? 1 : pick(r, 1, big ? 40 : 9);
  if (kind == 2) g = pick(r, 2, 12);
  int64_t mg = kind == 2 ? pick(r, 1, 2) : pick(r, 1, big ? 130 : 20);
  int64_t kh = kind == 3 ? 1 : pick(r, 1, 5), kw = kind == 3 ? 1 : pick(r, 1, 5);
  if (pick(r, 0, 7) == 0) kh = kw = 7;
  int64_t sh = pick(r, 1, 3), sw = pick(r, 1, 3), dh = pick(r, 1, 3), dw = pick(r, 1, 3);
  if (pick(r, 0, 1)) sh = sw = 1, dh = dw = 1;
  int64_t pads[4] = {pick(r, 0, 3), pick(r, 0, 3), pick(r, 0, 3), pick(r, 0, 3)};
  if (kind == 3 && pick(r, 0, 1)) sh = sw = 1, pads[0] = pads[1] = pads[2] = pads[3] = 0;
  int64_t n = pick(r, 1, 3), h = pick(r, 1, big ? 40 : 14), w = pick(r, 1, big ? 40 : 14);
  int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
  if (h + pads[0] + pads[2] < eh) h = eh;
  if (w + pads[1] + pads[3] < ew) w = ew;
  int64_t oh = (h + pads[0] + pads[2] - eh) / sh + 1, ow = (w + pads[1] + pads[3] - ew) / sw + 1;
  bool bias = pick(r, 0, 2) != 0;
  ir_dtype dt = pick(r, 0, 5) == 0 ? IR_F16 : IR_F32;

  rt_tensor in[3];
  int64_t xd[4] = {n, g * cg, h, w}, wd[4] = {g * mg, cg, kh, kw}, bd[1] = {g * mg};
  in[0] = t_tensor_random(r, dt, 4, xd, -1, 1);
  in[1] = t_tensor_random(r, dt, 4, wd, -1, 1);
  in[2] = t_tensor_random(r, dt, 1, bd, -1, 1);
  int64_t yd[4] = {n, g * mg, oh, ow};
  ir_type yt = ir_type_make(dt, 4, yd);
  ir_graph *gr;
  ir_node *node = t_node_make(&gr, IR_OP_CONV2D, in, bias ? 3 : 2, &yt, 1);
  t_set_window_attrs(gr, node, sh, sw, dh, dw, pads);
  if (g > 1) T_OK(ir_node_set_int(gr, node, IR_A_GROUP, g));
  set_act(gr, node, r);
  char what[200];
  snprintf(what, sizeof what,
           "conv case %d: x [%lld,%lld,%lld,%lld] w [%lld,%lld,%lld,%lld] s %lld,%lld d %lld,%lld "
           "pads %lld,%lld,%lld,%lld group %lld %s",
           i, (long long)n, (long long)(g * cg), (long long)h, (long long)w, (long long)(g * mg),
           (long long)cg, (long long)kh, (long long)kw, (long long)sh, (long long)sw,
           (long long)dh, (long long)dw, (long long)pads[0], (long long)pads[1],
           (long long)pads[2], (long long)pads[3], (long long)g, ir_dtype_name(dt));
  bool live = check_node(node, in, bias ? 3 : 2, &yt, cg * kh * kw + 1, pool, what);
  ir_graph_destroy(gr);
  for (int k = 0; k < 3; k++) rt_tensor_free(&in[k]);
  return live;
}

Test(cpu_fast, conv2d_random) {
  rt_threads *pool;
  T_OK(rt_threads_create(3, &pool));
  t_rng r = t_rng_make(331);
  int live = 0;
  for (int i = 0; i < 160; i++) live += conv_case(&r, i, false, pool);
  for (int i = 0; i < 40; i++) live += conv_case(&r, 1000 + i, true, pool);
  cr_assert_gt(live, 180, "only %d of 200 cases have a non-zero output", live);
  rt_threads_destroy(pool);
}

/* One random conv_transpose2d. */
static bool convt_case(t_rng *r, int i, rt_threads *pool) {
  int64_t g = pick(r, 0, 2) ? 1 : pick(r, 2, 3);
  int64_t cg = pick(r, 1, 12), mg = pick(r, 1, 12);
  int64_t kh = pick(r, 1, 5), kw = pick(r, 1, 5);
  int64_t sh = pick(r, 1, 3), sw = pick(r, 1, 3), dh = pick(r, 1, 2), dw = pick(r, 1, 2);
  int64_t pads[4] = {pick(r, 0, 2), pick(r, 0, 2), pick(r, 0, 2), pick(r, 0, 2)};
  int64_t oph = pick(r, 0, sh - 1), opw = pick(r, 0, sw - 1);
  int64_t n = pick(r, 1, 2), h = pick(r, 1, 12), w = pick(r, 1, 12);
  int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
  int64_t oh = sh * (h - 1) + oph + eh - pads[0] - pads[2];
  int64_t ow = sw * (w - 1) + opw + ew - pads[1] - pads[3];
  if (oh < 1 || ow < 1) {
    pads[0] = pads[1] = pads[2] = pads[3] = 0;
    oh = sh * (h - 1) + oph + eh, ow = sw * (w - 1) + opw + ew;
  }
  bool bias = pick(r, 0, 2) != 0;
  ir_dtype dt = pick(r, 0, 5) == 0 ? IR_F16 : IR_F32;
  rt_tensor in[3];
  int64_t xd[4] = {n, g * cg, h, w}, wd[4] = {g * cg, mg, kh, kw}, bd[1] = {g * mg};
  in[0] = t_tensor_random(r, dt, 4, xd, -1, 1);
  in[1] = t_tensor_random(r, dt, 4, wd, -1, 1);
  in[2] = t_tensor_random(r, dt, 1, bd, -1, 1);
  int64_t yd[4] = {n, g * mg, oh, ow};
  ir_type yt = ir_type_make(dt, 4, yd);
  ir_graph *gr;
  ir_node *node = t_node_make(&gr, IR_OP_CONV_TRANSPOSE2D, in, bias ? 3 : 2, &yt, 1);
  t_set_window_attrs(gr, node, sh, sw, dh, dw, pads);
  if (g > 1) T_OK(ir_node_set_int(gr, node, IR_A_GROUP, g));
  if (oph || opw) T_OK(ir_node_set_ints(gr, node, IR_A_OUTPUT_PADDING, (int64_t[]){oph, opw}, 2));
  set_act(gr, node, r);
  char what[200];
  snprintf(what, sizeof what,
           "conv_transpose case %d: x [%lld,%lld,%lld,%lld] w [%lld,%lld,%lld,%lld] s %lld,%lld "
           "d %lld,%lld pads %lld,%lld,%lld,%lld op %lld,%lld group %lld %s",
           i, (long long)n, (long long)(g * cg), (long long)h, (long long)w, (long long)(g * cg),
           (long long)mg, (long long)kh, (long long)kw, (long long)sh, (long long)sw,
           (long long)dh, (long long)dw, (long long)pads[0], (long long)pads[1],
           (long long)pads[2], (long long)pads[3], (long long)oph, (long long)opw, (long long)g,
           ir_dtype_name(dt));
  bool live = check_node(node, in, bias ? 3 : 2, &yt, cg * kh * kw + 1, pool, what);
  ir_graph_destroy(gr);
  for (int k = 0; k < 3; k++) rt_tensor_free(&in[k]);
  return live;
}

Test(cpu_fast, conv_transpose2d_random) {
  rt_threads *pool;
  T_OK(rt_threads_create(3, &pool));
  t_rng r = t_rng_make(41);
  int live = 0;
  for (int i = 0; i < 120; i++) live += convt_case(&r, i, pool);
  cr_assert_gt(live, 108, "only %d of 120 cases have a non-zero output", live);
  rt_threads_destroy(pool);
}

/* ResNet-like shapes whose blocks are whole (every path of the tile store). */
Test(cpu_fast, conv2d_whole_blocks) {
  rt_threads *pool;
  T_OK(rt_threads_create(2, &pool));
  t_rng r = t_rng_make(7);
  struct {
    int64_t c, h, m, k, s, p;
  } cases[] = {{64, 16, 96, 3, 1, 1}, {32, 32, 96, 1, 1, 0}, {16, 32, 48, 3, 2, 1}};
  for (int i = 0; i < 3; i++) {
    rt_tensor in[3];
    int64_t xd[4] = {1, cases[i].c, cases[i].h, cases[i].h};
    int64_t wd[4] = {cases[i].m, cases[i].c, cases[i].k, cases[i].k}, bd[1] = {cases[i].m};
    in[0] = t_tensor_random(&r, IR_F32, 4, xd, -1, 1);
    in[1] = t_tensor_random(&r, IR_F32, 4, wd, -1, 1);
    in[2] = t_tensor_random(&r, IR_F32, 1, bd, -1, 1);
    int64_t o = (cases[i].h + 2 * cases[i].p - cases[i].k) / cases[i].s + 1;
    int64_t yd[4] = {1, cases[i].m, o, o};
    ir_type yt = ir_type_make(IR_F32, 4, yd);
    ir_graph *gr;
    ir_node *node = t_node_make(&gr, IR_OP_CONV2D, in, 3, &yt, 1);
    int64_t p = cases[i].p;
    t_set_window_attrs(gr, node, cases[i].s, cases[i].s, 1, 1, (int64_t[]){p, p, p, p});
    T_OK(ir_node_set_enum(gr, node, IR_A_ACT, IR_ACT_RELU));
    cr_assert(check_node(node, in, 3, &yt, cases[i].c * cases[i].k * cases[i].k + 1, pool,
                         "whole blocks"));
    ir_graph_destroy(gr);
    for (int k = 0; k < 3; k++) rt_tensor_free(&in[k]);
  }
  rt_threads_destroy(pool);
}

Test(cpu_fast, gemm_random) {
  rt_threads *pool;
  T_OK(rt_threads_create(3, &pool));
  t_rng r = t_rng_make(17);
  int live = 0;
  for (int i = 0; i < 120; i++) {
    bool big = i % 4 == 0;
    int64_t m = pick(&r, 1, big ? 200 : 40), n = pick(&r, 1, big ? 300 : 40);
    int64_t k = pick(&r, 1, big ? 600 : 40);
    bool ta = pick(&r, 0, 1), tb = pick(&r, 0, 1);
    int c_kind = (int)pick(&r, 0, 4); /* none, scalar, [N], [M,1], [M,N] */
    ir_dtype dt = pick(&r, 0, 5) == 0 ? IR_F16 : IR_F32;
    rt_tensor in[3];
    int64_t ad[2] = {ta ? k : m, ta ? m : k}, bd[2] = {tb ? n : k, tb ? k : n};
    in[0] = t_tensor_random(&r, dt, 2, ad, -1, 1);
    in[1] = t_tensor_random(&r, dt, 2, bd, -1, 1);
    int64_t cd[2] = {c_kind == 3 || c_kind == 4 ? m : n, c_kind == 3 ? 1 : n};
    int crank = c_kind == 1 ? 0 : c_kind == 2 ? 1 : 2;
    in[2] = t_tensor_random(&r, dt, crank, cd, -1, 1);
    int64_t yd[2] = {m, n};
    ir_type yt = ir_type_make(dt, 2, yd);
    int n_in = c_kind ? 3 : 2;
    ir_graph *gr;
    ir_node *node = t_node_make(&gr, IR_OP_GEMM, in, n_in, &yt, 1);
    if (ta) T_OK(ir_node_set_int(gr, node, IR_A_TRANS_A, 1));
    if (tb) T_OK(ir_node_set_int(gr, node, IR_A_TRANS_B, 1));
    if (pick(&r, 0, 1)) T_OK(ir_node_set_float(gr, node, IR_A_ALPHA, 0.75f));
    if (pick(&r, 0, 1)) T_OK(ir_node_set_float(gr, node, IR_A_BETA, -1.5f));
    set_act(gr, node, &r);
    char what[160];
    snprintf(what, sizeof what, "gemm case %d: m %lld n %lld k %lld ta %d tb %d c %d %s", i,
             (long long)m, (long long)n, (long long)k, ta, tb, c_kind, ir_dtype_name(dt));
    live += check_node(node, in, n_in, &yt, 2 * k + 2, pool, what);
    ir_graph_destroy(gr);
    for (int j = 0; j < 3; j++) rt_tensor_free(&in[j]);
  }
  cr_assert_gt(live, 108, "only %d of 120 cases have a non-zero output", live);
  rt_threads_destroy(pool);
}

Test(cpu_fast, matmul_random) {
  rt_threads *pool;
  T_OK(rt_threads_create(3, &pool));
  t_rng r = t_rng_make(23);
  for (int i = 0; i < 120; i++) {
    bool big = i % 5 == 0;
    int64_t m = pick(&r, 1, big ? 150 : 30), n = pick(&r, 1, big ? 280 : 30);
    int64_t k = pick(&r, 1, big ? 300 : 30);
    /* batch dims: up to two, each side 1 or the full size (broadcast) */
    int nb = (int)pick(&r, 0, 2);
    int64_t full[2] = {pick(&r, 1, 4), pick(&r, 1, 3)};
    int ra = 0, rb = 0;
    int64_t ad[4], bd[4], yd[4];
    int ry = 0;
    int a_batch = (int)pick(&r, 0, nb), b_batch = (int)pick(&r, 0, nb);
    for (int d = nb - a_batch; d < nb; d++) ad[ra++] = pick(&r, 0, 2) ? full[d] : 1;
    for (int d = nb - b_batch; d < nb; d++) bd[rb++] = pick(&r, 0, 2) ? full[d] : 1;
    int a1 = pick(&r, 0, 7) == 0 && ra == 0, b1 = pick(&r, 0, 7) == 0 && rb == 0;
    if (!a1) ad[ra++] = m;
    ad[ra++] = k;
    bd[rb++] = k;
    if (!b1) bd[rb++] = n;
    int rbat = (a1 ? ra - 1 : ra - 2) > (b1 ? rb - 1 : rb - 2) ? (a1 ? ra - 1 : ra - 2)
                                                                : (b1 ? rb - 1 : rb - 2);
    for (int d = 0; d < rbat; d++) {
      int ia = d - (rbat - (a1 ? ra - 1 : ra - 2)), ib = d - (rbat - (b1 ? rb - 1 : rb - 2));
      int64_t da = ia >= 0 ? ad[ia] : 1, db = ib >= 0 ? bd[ib] : 1;
      yd[ry++] = da > db ? da : db;
    }
    if (!a1) yd[ry++] = m;
    if (!b1) yd[ry++] = n;
    ir_dtype dt = pick(&r, 0, 5) == 0 ? IR_F16 : IR_F32;
    rt_tensor in[2];
    in[0] = t_tensor_random(&r, dt, ra, ad, -1, 1);
    in[1] = t_tensor_random(&r, dt, rb, bd, -1, 1);
    ir_type yt = ir_type_make(dt, ry, yd);
    ir_graph *gr;
    ir_node *node = t_node_make(&gr, IR_OP_MATMUL, in, 2, &yt, 1);
    char what[160];
    snprintf(what, sizeof what, "matmul case %d: ranks %d x %d -> %d, m %lld n %lld k %lld", i,
             ra, rb, ry, (long long)m, (long long)n, (long long)k);
    cr_assert(check_node(node, in, 2, &yt, k + 1, pool, what), "%s: all zeros", what);
    ir_graph_destroy(gr);
    for (int j = 0; j < 2; j++) rt_tensor_free(&in[j]);
  }
  rt_threads_destroy(pool);
}
