/* run_model: the vkml C API from an application's side. Loads a compiled
 * artifact (vkc compile MODEL -o model.vkm), creates an instance on the
 * default Vulkan device (or the CPU with --cpu), fills every input with a
 * fixed pattern, runs it and prints each output's first values; --runs N
 * times N more runs through the zero-copy memory.
 *
 *   cc run_model.c -o run_model -lm $(pkg-config --cflags --libs vkml)
 *   ./run_model model.vkm [--cpu] [--runs N]
 *
 * It includes only <vkml.h> and links only the runtime library; against the
 * build tree, see examples/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vkml.h>

static int fail(vkml_status s) {
  fprintf(stderr, "run_model: %s\n", vkml_status_message(s));
  vkml_status_free(s);
  return 1;
}

/* Input element i as the pattern sin(0.1 i), in the input's dtype. */
static void fill(const vkml_tensor_info *t, void *data) {
  size_t n = 1;
  for (int k = 0; k < t->rank; k++) n *= (size_t)t->dims[k];
  for (size_t i = 0; i < n; i++) {
    double v = sin(0.1 * (double)i);
    switch (t->dtype) {
    case VKML_F32: ((float *)data)[i] = (float)v; break;
    case VKML_I32: ((int32_t *)data)[i] = (int32_t)(10 * v); break;
    case VKML_I64: ((int64_t *)data)[i] = (int64_t)(10 * v); break;
    default: memset(data, 0, t->bytes); return;
    }
  }
}

static void print_output(const vkml_tensor_info *t, const void *data) {
  size_t n = t->bytes / (t->dtype == VKML_F32 ? 4 : 1);
  printf("output %s: [", t->name);
  for (int k = 0; k < t->rank; k++) printf("%s%lld", k ? "," : "", (long long)t->dims[k]);
  printf("]");
  if (t->dtype != VKML_F32) {
    printf(" (%zu bytes)\n", t->bytes);
    return;
  }
  const float *f = data;
  size_t best = 0;
  for (size_t i = 0; i < n; i++) {
    if (i < 8) printf(" %.6g", (double)f[i]);
    if (f[i] > f[best]) best = i;
  }
  printf("%s  argmax %zu\n", n > 8 ? " ..." : "", best);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  vkml_instance_opts opts = {0}; /* the default Vulkan device, blocking waits */
  int runs = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--cpu")) opts.device = VKML_DEVICE_CPU;
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!path && argv[i][0] != '-') path = argv[i];
    else {
      fprintf(stderr, "usage: run_model MODEL.vkm [--cpu] [--runs N]\n");
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "usage: run_model MODEL.vkm [--cpu] [--runs N]\n");
    return 2;
  }
  vkml_model *model = NULL;
  vkml_instance *inst = NULL;
  vkml_status s = vkml_model_load(path, &model);
  if (!s) s = vkml_instance_create(model, &opts, &inst);
  if (s) {
    vkml_model_free(model);
    return fail(s);
  }
  printf("vkml %s on %s\n", vkml_version(), vkml_instance_device(inst));
  /* inputs: copied in with vkml_set_input */
  for (int i = 0; i < vkml_model_input_count(model) && !s; i++) {
    vkml_tensor_info t;
    s = vkml_model_input(model, i, &t);
    void *data = s ? NULL : malloc(t.bytes ? t.bytes : 1);
    if (!s && !data) {
      fprintf(stderr, "run_model: out of memory\n");
      return 1;
    }
    if (!s) {
      fill(&t, data);
      s = vkml_set_input(inst, t.name, t.dtype, t.rank, t.dims, data);
    }
    free(data);
  }
  if (!s) s = vkml_run(inst);
  /* outputs: read in place (vkml_get_output would copy them out) */
  for (int i = 0; i < vkml_model_output_count(model) && !s; i++) {
    vkml_tensor_info t;
    const void *data;
    s = vkml_model_output(model, i, &t);
    if (!s) s = vkml_output_memory(inst, t.name, &data);
    if (!s) print_output(&t, data);
  }
  /* timed runs: inputs stay in the instance's memory, nothing is copied */
  double best = 1e30, total = 0;
  for (int r = 0; r < runs && !s; r++) {
    double t0 = now_ms();
    s = vkml_run(inst);
    double ms = now_ms() - t0;
    total += ms;
    if (ms < best) best = ms;
  }
  if (!s && runs > 0) printf("%d runs: best %.3f ms, mean %.3f ms\n", runs, best, total / runs);
  vkml_memory mem;
  if (!s) s = vkml_instance_memory(inst, &mem);
  if (!s)
    printf("memory: weights %llu B (shared by %d), instance %llu B, staging %llu B%s\n",
           (unsigned long long)mem.weights_bytes, mem.weights_users,
           (unsigned long long)mem.instance_bytes, (unsigned long long)mem.staging_bytes,
           mem.lean ? ", one submission per run" : "");
  vkml_instance_destroy(inst);
  vkml_model_free(model);
  return s ? fail(s) : 0;
}
