/* vkml-cpu-conv: the CPU kernels' conv2d timed on ResNet-50's convolution
 * shapes (batch 1, 224x224 input): the reference loops in double, the fast
 * fp32 path on the calling thread, and on a pool of every online core (or
 * --threads N); median ms of R runs after one warm-up, GFLOP/s (2 flops a
 * multiply-add), and the fast path's largest error against the reference
 * relative to the output's largest magnitude. bench/cpu_conv_peers.py times
 * onnxruntime's CPU provider on the same shapes.
 *
 *   vkml-cpu-conv [--runs R] [--threads N] [--no-ref] [--json]
 *                 [--shape C,H,M,K,S]...   (input channels, size, outputs, kernel, stride)
 *
 * The reference takes seconds to minutes per shape at these sizes: it runs
 * once (--no-ref skips it and the error column). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/graph.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/threads.h"

typedef struct shape {
  int64_t c, h, m, k, s;
  const char *what;
} shape;

/* ResNet-50 v1.5 (torchvision): the stem, then one conv of each kind per stage */
static const shape resnet50[] = {
    {3, 224, 64, 7, 2, "stem 7x7/2"},
    {64, 56, 64, 1, 1, "layer1 1x1 64->64"},
    {64, 56, 64, 3, 1, "layer1 3x3 64->64"},
    {64, 56, 256, 1, 1, "layer1 1x1 64->256"},
    {256, 56, 64, 1, 1, "layer1 1x1 256->64"},
    {128, 56, 128, 3, 2, "layer2 3x3/2 128"},
    {128, 28, 128, 3, 1, "layer2 3x3 128"},
    {512, 28, 128, 1, 1, "layer2 1x1 512->128"},
    {256, 14, 256, 3, 1, "layer3 3x3 256"},
    {1024, 14, 256, 1, 1, "layer3 1x1 1024->256"},
    {512, 7, 512, 3, 1, "layer4 3x3 512"},
    {512, 7, 2048, 1, 1, "layer4 1x1 512->2048"},
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int fail(vkml_status s) {
  fprintf(stderr, "vkml-cpu-conv: %s\n", vkml_status_message(s));
  vkml_status_free(s);
  return 1;
}

/* Median seconds of runs of the node under ctx (after one warm-up unless
 * runs is 1). */
static vkml_status time_node(const rt_cpu_ctx *ctx, const ir_node *n, const rt_tensor *const *in,
                             rt_tensor *y, int runs, double *median) {
  double *t = calloc((size_t)runs, sizeof *t);
  if (!t) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of memory");
  rt_tensor *out[1] = {y};
  vkml_status s = VKML_OK;
  if (runs > 1) s = rt_cpu_run_node_ctx(ctx, n, in, 3, out, 1);
  for (int r = 0; r < runs && !s; r++) {
    double t0 = now_s();
    s = rt_cpu_run_node_ctx(ctx, n, in, 3, out, 1);
    t[r] = now_s() - t0;
  }
  qsort(t, (size_t)runs, sizeof *t, cmp);
  *median = t[runs / 2];
  free(t);
  return s;
}

static void fill(rt_tensor *t, uint64_t seed) {
  float *f = t->data;
  int64_t n = rt_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    f[i] = (float)((double)(seed >> 40) / (double)(1ull << 24) * 2 - 1);
  }
}

int main(int argc, char **argv) {
  int runs = 5, threads = 0;
  bool ref = true, json = false;
  shape custom[32];
  int n_custom = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-ref")) ref = false;
    else if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--shape") && i + 1 < argc && n_custom < 32) {
      shape *s = &custom[n_custom++];
      long long c, h, m, k, st;
      if (sscanf(argv[++i], "%lld,%lld,%lld,%lld,%lld", &c, &h, &m, &k, &st) != 5) {
        fprintf(stderr, "vkml-cpu-conv: --shape C,H,M,K,S\n");
        return 2;
      }
      *s = (shape){c, h, m, k, st, argv[i]};
    } else {
      fprintf(stderr, "usage: vkml-cpu-conv [--runs R] [--threads N] [--no-ref] [--json] "
                      "[--shape C,H,M,K,S]...\n");
      return 2;
    }
  }
  if (runs < 1) runs = 1;
  const shape *shapes = n_custom ? custom : resnet50;
  int n_shapes = n_custom ? n_custom : (int)(sizeof resnet50 / sizeof resnet50[0]);
  rt_threads *pool;
  vkml_status s = rt_threads_create(threads, &pool);
  if (s) return fail(s);
  int nt = rt_threads_count(pool);
  if (json)
    printf("{\"threads\": %d, \"runs\": %d, \"shapes\": [\n", nt, runs);
  else
    printf("%-22s %10s %9s %9s %9s %8s %8s %9s\n", "conv (batch 1)", "GFLOP", "ref ms",
           "fast1 ms", "fastN ms", "GF/s 1", "GF/s N", "rel err");
  for (int i = 0; i < n_shapes; i++) {
    const shape *sh = &shapes[i];
    int64_t pad = sh->k / 2, o = (sh->h + 2 * pad - sh->k) / sh->s + 1;
    int64_t xd[4] = {1, sh->c, sh->h, sh->h}, wd[4] = {sh->m, sh->c, sh->k, sh->k};
    int64_t bd[1] = {sh->m}, yd[4] = {1, sh->m, o, o};
    ir_type types[3] = {ir_type_make(IR_F32, 4, xd), ir_type_make(IR_F32, 4, wd),
                        ir_type_make(IR_F32, 1, bd)};
    ir_type yt = ir_type_make(IR_F32, 4, yd);
    ir_graph *g = NULL;
    ir_value *ins[3], *out;
    ir_node *n;
    rt_tensor t[3] = {{0}}, y_ref = {0}, y_fast = {0};
    s = ir_graph_create("bench", &g);
    for (int k = 0; k < 3 && !s; k++) s = ir_value_create(g, NULL, &types[k], &ins[k]);
    if (!s) s = ir_value_create(g, NULL, &yt, &out);
    if (!s) s = ir_node_create(g, IR_OP_CONV2D, ins, 3, &out, 1, &n);
    if (!s) s = ir_node_set_ints(g, n, IR_A_STRIDES, (int64_t[]){sh->s, sh->s}, 2);
    if (!s) s = ir_node_set_ints(g, n, IR_A_PADS, (int64_t[]){pad, pad, pad, pad}, 4);
    if (!s) s = ir_node_set_enum(g, n, IR_A_ACT, IR_ACT_RELU);
    for (int k = 0; k < 3 && !s; k++) {
      s = rt_tensor_alloc(&types[k], &t[k]);
      if (!s) fill(&t[k], 1 + (uint64_t)k * 7919 + (uint64_t)i);
    }
    if (!s) s = rt_tensor_alloc(&yt, &y_ref);
    if (!s) s = rt_tensor_alloc(&yt, &y_fast);
    const rt_tensor *in[3] = {&t[0], &t[1], &t[2]};
    double flops = 2.0 * (double)(sh->m * o * o) * (double)(sh->c * sh->k * sh->k);
    double ms_ref = NAN, ms1 = NAN, msn = NAN, err = NAN;
    rt_cpu_ctx c_ref = {.reference = true}, c1 = {0}, cn = {.pool = pool};
    if (!s && ref) s = time_node(&c_ref, n, in, &y_ref, 1, &ms_ref);
    if (!s) s = time_node(&c1, n, in, &y_fast, runs, &ms1);
    if (!s) s = time_node(&cn, n, in, &y_fast, runs, &msn);
    if (!s && ref) {
      const float *a = y_fast.data, *b = y_ref.data;
      double worst = 0, top = 0;
      for (int64_t e = 0; e < rt_tensor_numel(&y_ref); e++) {
        worst = fmax(worst, fabs((double)a[e] - (double)b[e]));
        top = fmax(top, fabs((double)b[e]));
      }
      err = worst / (top > 0 ? top : 1);
    }
    for (int k = 0; k < 3; k++) rt_tensor_free(&t[k]);
    rt_tensor_free(&y_ref);
    rt_tensor_free(&y_fast);
    ir_graph_destroy(g);
    if (s) {
      rt_threads_destroy(pool);
      return fail(s);
    }
    ms_ref *= 1e3, ms1 *= 1e3, msn *= 1e3;
    if (json)
      printf("  {\"conv\": \"%s\", \"c\": %lld, \"h\": %lld, \"m\": %lld, \"k\": %lld, "
             "\"s\": %lld, \"gflop\": %.4f, \"ref_ms\": %.3f, \"fast1_ms\": %.3f, "
             "\"fastN_ms\": %.3f, \"rel_err\": %.3g}%s\n",
             sh->what, (long long)sh->c, (long long)sh->h, (long long)sh->m, (long long)sh->k,
             (long long)sh->s, flops * 1e-9, ref ? ms_ref : -1, ms1, msn, ref ? err : -1,
             i + 1 < n_shapes ? "," : "");
    else
      printf("%-22s %10.3f %9.1f %9.2f %9.2f %8.1f %8.1f %9.2g\n", sh->what, flops * 1e-9,
             ms_ref, ms1, msn, flops / ms1 * 1e-6, flops / msn * 1e-6, err);
    fflush(stdout);
  }
  if (json) printf("]}\n");
  rt_threads_destroy(pool);
  return 0;
}
