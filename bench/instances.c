/* vkml-instances: the public C API measured (bench/README.md). Loads an
 * artifact, creates N instances on the default device (sharing one copy of
 * the weights) and reports the device allocator's bytes for 1 and N
 * instances; then times whole runs through the API on one instance:
 * vkml_set_input + vkml_run + vkml_get_output (copies) and vkml_run alone
 * (zero copy), blocking and spinning waits; median, p90 and min of R runs
 * after W warm-up runs. Prints one JSON object. --cpu: every instance on the
 * CPU reference kernels (the wait modes then make no difference).
 *
 *   vkml-instances MODEL.vkm [--instances N] [--runs R] [--warmup W] [--cpu]
 *
 * Links the runtime library only and includes only <vkml.h>. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vkml.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int fail(vkml_status s) {
  fprintf(stderr, "vkml-instances: %s\n", vkml_status_message(s));
  vkml_status_free(s);
  return 1;
}

typedef struct io {
  vkml_tensor_info in, out;
  void *x, *y;
} io;

/* R timed runs: with copies (set + run + get) or zero copy (run). */
static vkml_status timed(vkml_instance *inst, const io *b, bool copies, int warm, int runs,
                         double *t) {
  for (int r = -warm; r < runs; r++) {
    double t0 = now_ms();
    vkml_status s = VKML_OK;
    if (copies) s = vkml_set_input(inst, b->in.name, b->in.dtype, b->in.rank, b->in.dims, b->x);
    if (!s) s = vkml_run(inst);
    if (!s && copies) s = vkml_get_output(inst, b->out.name, b->y, b->out.bytes);
    if (s) return s;
    if (r >= 0) t[r] = now_ms() - t0;
  }
  qsort(t, (size_t)runs, sizeof *t, cmp);
  return VKML_OK;
}

static void print_times(const char *name, const double *t, int runs, bool last) {
  printf("  \"%s\": {\"min_ms\": %.4f, \"median_ms\": %.4f, \"p90_ms\": %.4f}%s\n", name, t[0],
         t[runs / 2], t[(runs * 9 + 9) / 10 - 1], last ? "" : ",");
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int n = 8, runs = 200, warm = 50;
  vkml_device_kind device = VKML_DEVICE_DEFAULT;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--cpu")) device = VKML_DEVICE_CPU;
    else if (!strcmp(argv[i], "--instances") && i + 1 < argc) n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warm = atoi(argv[++i]);
    else if (!path && argv[i][0] != '-') path = argv[i];
    else path = NULL, i = argc;
  }
  if (!path || n < 1 || n > 64 || runs < 1 || warm < 0) {
    fprintf(stderr,
            "usage: vkml-instances MODEL.vkm [--instances N] [--runs R] [--warmup W] [--cpu]\n");
    return 2;
  }
  vkml_model *m = NULL;
  vkml_status s = vkml_model_load(path, &m);
  if (s) return fail(s);
  vkml_instance *inst[64] = {0};
  vkml_memory one = {0}, all = {0};
  vkml_instance_opts block = {.device = device};
  for (int i = 0; i < n && !s; i++) {
    s = vkml_instance_create(m, &block, &inst[i]);
    if (!s && i == 0) s = vkml_instance_memory(inst[0], &one);
  }
  if (!s) s = vkml_instance_memory(inst[n - 1], &all);
  io b = {0};
  if (!s) s = vkml_model_input(m, 0, &b.in);
  if (!s) s = vkml_model_output(m, 0, &b.out);
  double *t = calloc((size_t)runs, sizeof *t);
  if (!s) {
    b.x = calloc(1, b.in.bytes + 1);
    b.y = calloc(1, b.out.bytes + 1);
    if (!b.x || !b.y || !t) return fail(vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "host memory"));
    if (b.in.dtype == VKML_F32)
      for (size_t k = 0; k < b.in.bytes / 4; k++) ((float *)b.x)[k] = (float)sin(0.1 * (double)k);
  }
  if (!s) {
    printf("{\"model\": \"%s\", \"device\": \"%s\", \"instances\": %d, \"lean\": %s,\n", path,
           vkml_instance_device(inst[0]), n, one.lean ? "true" : "false");
    printf("  \"memory_1\": {\"weights\": %llu, \"instance\": %llu, \"arena\": %llu, "
           "\"staging\": %llu, \"device_used\": %llu},\n",
           (unsigned long long)one.weights_bytes, (unsigned long long)one.instance_bytes,
           (unsigned long long)one.arena_bytes, (unsigned long long)one.staging_bytes,
           (unsigned long long)one.device_used_bytes);
    printf("  \"memory_n\": {\"weights_users\": %d, \"device_used\": %llu},\n",
           all.weights_users, (unsigned long long)all.device_used_bytes);
  }
  /* timings on instance 0; the others stay idle */
  if (!s && !(s = timed(inst[0], &b, true, warm, runs, t))) print_times("api_copies", t, runs, false);
  if (!s && !(s = timed(inst[0], &b, false, warm, runs, t))) print_times("api_zero_copy", t, runs, false);
  vkml_instance_opts spin = {.device = device, .wait = VKML_WAIT_SPIN};
  vkml_instance *sp = NULL;
  if (!s) s = vkml_instance_create(m, &spin, &sp);
  if (!s && !(s = timed(sp, &b, true, warm, runs, t))) print_times("api_copies_spin", t, runs, false);
  if (!s && !(s = timed(sp, &b, false, warm, runs, t))) print_times("api_zero_copy_spin", t, runs, false);
  vkml_instance_opts hyb = {.device = device, .wait = VKML_WAIT_HYBRID};
  vkml_instance *hy = NULL;
  if (!s) s = vkml_instance_create(m, &hyb, &hy);
  /* its zero-copy runs read the input given once (vkml_run refuses one never given) */
  if (!s) s = vkml_set_input(hy, b.in.name, b.in.dtype, b.in.rank, b.in.dims, b.x);
  if (!s && !(s = timed(hy, &b, false, warm, runs, t))) print_times("api_zero_copy_hybrid", t, runs, true);
  vkml_instance_destroy(hy);
  if (!s) printf("}\n");
  vkml_instance_destroy(sp);
  for (int i = 0; i < n; i++) vkml_instance_destroy(inst[i]);
  vkml_model_free(m);
  free(t);
  free(b.x);
  free(b.y);
  return s ? fail(s) : 0;
}
