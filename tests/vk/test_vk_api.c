/* The public C API (include/vkml.h) on lavapipe with the validation layer:
 * an artifact loaded from a file and from memory runs like the CPU
 * reference on the lean path (all steps on the GPU) and with a step on the
 * CPU; zero-copy memory gives the same results; eight instances share one
 * copy of the weights (the device allocator's accounting); instances run
 * concurrently from four threads; every bad call is an error naming what
 * was expected. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/artifact.h"
#include "ir/file.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "test_support.h"
#include "vk_test.h"
#include "vkml.h"

#define TINYCNN VKML_SOURCE_ROOT "/tests/models/tinycnn/model.vkir"

typedef struct fixture {
  char *dir;
  char path[2][512]; /* [0] all on the GPU, [1] maxpool on the CPU */
  ir_graph *ref;     /* the source graph, for the CPU reference */
} fixture;

/* tinycnn compiled for lavapipe twice, written as .vkm files. */
static void fixture_open(fixture *f) {
  vt_env e;
  vt_env_open(&e);
  f->dir = vt_tempdir();
  T_OK(ir_parse_file(TINYCNN, &f->ref));
  bool cpu[IR_OP_COUNT] = {false};
  cpu[IR_OP_MAXPOOL] = true;
  for (int v = 0; v < 2; v++) {
    ir_graph *g;
    T_OK(ir_graph_clone(f->ref, &g));
    ir_plan *p = vt_compile(e.t, e.cc, g, v ? cpu : NULL, IR_PRECISION_FP32);
    snprintf(f->path[v], sizeof f->path[v], "%s/tinycnn%d.vkm", f->dir, v);
    ir_artifact_meta m = {.tool = "test", .target = e.t};
    T_OK(ir_artifact_write_file(p, &m, f->path[v]));
    ir_plan_destroy(p);
  }
  vt_env_close(&e);
}

static void fixture_close(fixture *f) {
  for (int v = 0; v < 2; v++) remove(f->path[v]);
  vt_rmdir(f->dir);
  free(f->dir);
  ir_graph_destroy(f->ref);
}

static const vkml_instance_opts GPU = {.validation = true};
static const vkml_instance_opts CPU = {.device = VKML_DEVICE_CPU};

static rt_tensor input_for(const ir_graph *g, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  const ir_type *t = &g->inputs[0]->type;
  return t_tensor_random(&r, t->dtype, t->rank, t->dims, -1, 1);
}

/* The model's output for in, through the API. */
static void run_api(vkml_instance *inst, const rt_tensor *in, float out[5]) {
  T_OK(vkml_set_input(inst, "x", VKML_F32, in->rank, in->dims, in->data));
  T_OK(vkml_run(inst));
  T_OK(vkml_get_output(inst, "prob", out, 5 * sizeof(float)));
}

static void assert_matches(const float *got, const rt_tensor *want, double tol) {
  const float *w = want->data;
  for (int i = 0; i < 5; i++)
    cr_assert(fabs((double)got[i] - (double)w[i]) <= tol * (1 + fabs((double)w[i])),
              "prob[%d] = %g, want %g", i, (double)got[i], (double)w[i]);
}

Test(vk_api, file_and_memory_load_run_like_the_reference) {
  fixture f;
  fixture_open(&f);
  for (int v = 0; v < 2; v++) {
    vkml_model *m[2];
    T_OK(vkml_model_load(f.path[v], &m[0]));
    /* from memory: the bytes used in place, kept until the model is freed */
    FILE *fp = fopen(f.path[v], "rb");
    cr_assert_not_null(fp);
    fseek(fp, 0, SEEK_END);
    size_t n = (size_t)ftell(fp);
    rewind(fp);
    void *bytes = aligned_alloc(64, (n + 63) / 64 * 64);
    cr_assert_eq(fread(bytes, 1, n, fp), n);
    fclose(fp);
    T_OK(vkml_model_load_memory(bytes, n, &m[1]));
    for (int k = 0; k < 2; k++) {
      cr_assert_eq(vkml_model_input_count(m[k]), 1);
      cr_assert_eq(vkml_model_output_count(m[k]), 1);
      vkml_tensor_info in_info, out_info;
      T_OK(vkml_model_input(m[k], 0, &in_info));
      T_OK(vkml_model_find_output(m[k], "prob", &out_info));
      cr_assert_str_eq(in_info.name, "x");
      cr_assert(in_info.dtype == VKML_F32 && in_info.rank == 4 && in_info.dims[1] == 3 &&
                in_info.dims[3] == 17 && in_info.bytes == 3 * 17 * 17 * 4);
      cr_assert(out_info.rank == 2 && out_info.dims[1] == 5 && out_info.bytes == 20);
      vkml_instance *gpu, *cpu;
      T_OK(vkml_instance_create(m[k], &GPU, &gpu));
      T_OK(vkml_instance_create(m[k], &CPU, &cpu));
      cr_assert_str_eq(vkml_instance_device(cpu), "cpu");
      vkml_memory mem;
      T_OK(vkml_instance_memory(gpu, &mem));
      cr_assert_eq(mem.lean, v == 0, "variant %d", v);
      cr_assert_gt(mem.weights_bytes, 0);
      for (uint64_t seed = 1; seed <= 3; seed++) {
        rt_tensor in = input_for(f.ref, seed), want;
        T_OK(rt_cpu_run_graph(f.ref, &in, 1, &want, 1));
        float got[5], got_cpu[5];
        run_api(gpu, &in, got);
        run_api(cpu, &in, got_cpu);
        assert_matches(got, &want, 1e-4);
        assert_matches(got_cpu, &want, 1e-5);
        /* zero copy: the input written into the instance's memory */
        void *im;
        const void *om;
        T_OK(vkml_input_memory(gpu, "x", &im));
        T_OK(vkml_output_memory(gpu, "prob", &om));
        memset(im, 0, in_info.bytes);
        T_OK(vkml_run(gpu));
        memcpy(im, in.data, in_info.bytes);
        T_OK(vkml_run(gpu));
        cr_assert_eq(memcmp(om, got, sizeof got), 0, "zero-copy output differs");
        rt_tensor_free(&in);
        rt_tensor_free(&want);
      }
      vkml_instance_destroy(gpu);
      vkml_instance_destroy(cpu);
    }
    vkml_model_free(m[0]);
    vkml_model_free(m[1]);
    free(bytes);
  }
  fixture_close(&f);
}

Test(vk_api, eight_instances_share_the_weights) {
  fixture f;
  fixture_open(&f);
  vkml_model *m;
  T_OK(vkml_model_load(f.path[0], &m));
  vkml_instance *x[8];
  uint64_t own = 0;
  /* the wait mode is per instance: they still share the device */
  vkml_instance_opts modes[3] = {GPU, GPU, GPU};
  modes[1].wait = VKML_WAIT_SPIN;
  modes[2].wait = VKML_WAIT_HYBRID;
  for (int i = 0; i < 8; i++) {
    T_OK(vkml_instance_create(m, &modes[i % 3], &x[i]));
    vkml_memory mem;
    T_OK(vkml_instance_memory(x[i], &mem));
    cr_assert_eq(mem.weights_users, i + 1);
    own += mem.instance_bytes;
  }
  vkml_memory mem;
  T_OK(vkml_instance_memory(x[7], &mem));
  /* tinycnn's six constants: 4,660 bytes, each at an aligned offset (64
   * bytes or stricter, 256 at most) */
  cr_assert_geq(mem.weights_bytes, 4660);
  cr_assert_lt(mem.weights_bytes, 4660 + 6 * 256, "%llu", (unsigned long long)mem.weights_bytes);
  /* the device allocator's live bytes: the weights once and every
   * instance's own buffers (each rounded up to the pool's alignment, at
   * most 256 bytes on lavapipe) */
  cr_assert_geq(mem.device_used_bytes, mem.weights_bytes + own);
  cr_assert_lt(mem.device_used_bytes, 2 * mem.weights_bytes + own,
               "%llu device bytes for weights %llu + instances %llu",
               (unsigned long long)mem.device_used_bytes,
               (unsigned long long)mem.weights_bytes, (unsigned long long)own);
  rt_tensor in = input_for(f.ref, 9), want;
  T_OK(rt_cpu_run_graph(f.ref, &in, 1, &want, 1));
  for (int i = 0; i < 8; i++)
    for (int r = 0; r < 3; r++) { /* hybrid predicts from the run before */
      float got[5];
      run_api(x[i], &in, got);
      assert_matches(got, &want, 1e-4);
    }
  for (int i = 0; i < 8; i++) vkml_instance_destroy(x[i]);
  /* the last instance took the device with it; a new one starts over */
  vkml_instance *again;
  T_OK(vkml_instance_create(m, &GPU, &again));
  T_OK(vkml_instance_memory(again, &mem));
  cr_assert_eq(mem.weights_users, 1);
  vkml_instance_destroy(again);
  rt_tensor_free(&in);
  rt_tensor_free(&want);
  vkml_model_free(m);
  fixture_close(&f);
}

typedef struct worker {
  vkml_model *m;
  const ir_graph *ref;
  int id;
  vkml_status s;
  int mismatches;
} worker;

/* One instance per thread, created concurrently; 20 runs each on inputs of
 * its own, checked against the reference computed before. */
static void *work(void *arg) {
  worker *w = arg;
  vkml_instance *inst = NULL;
  w->s = vkml_instance_create(w->m, &GPU, &inst);
  if (w->s) return NULL;
  rt_tensor in[2], want[2];
  for (int k = 0; k < 2; k++) {
    in[k] = input_for(w->ref, 100 + 10 * (uint64_t)w->id + (uint64_t)k);
    w->s = rt_cpu_run_graph(w->ref, &in[k], 1, &want[k], 1);
  }
  for (int r = 0; r < 20 && !w->s; r++) {
    const rt_tensor *x = &in[r % 2];
    float got[5];
    w->s = vkml_set_input(inst, "x", VKML_F32, x->rank, x->dims, x->data);
    if (!w->s) w->s = vkml_run(inst);
    if (!w->s) w->s = vkml_get_output(inst, "prob", got, sizeof got);
    const float *e = want[r % 2].data;
    for (int i = 0; i < 5 && !w->s; i++)
      if (fabs((double)got[i] - (double)e[i]) > 1e-4 * (1 + fabs((double)e[i]))) w->mismatches++;
  }
  for (int k = 0; k < 2; k++) {
    rt_tensor_free(&in[k]);
    rt_tensor_free(&want[k]);
  }
  vkml_instance_destroy(inst);
  return NULL;
}

Test(vk_api, instances_run_on_four_threads) {
  fixture f;
  fixture_open(&f);
  for (int v = 0; v < 2; v++) { /* lean, and with a CPU step */
    vkml_model *m;
    T_OK(vkml_model_load(f.path[v], &m));
    pthread_t th[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
      w[i] = (worker){.m = m, .ref = f.ref, .id = i};
      cr_assert_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++) {
      T_OK(w[i].s);
      cr_assert_eq(w[i].mismatches, 0, "thread %d, variant %d", i, v);
    }
    vkml_model_free(m);
  }
  fixture_close(&f);
}

Test(vk_api, bad_calls_name_what_was_expected) {
  fixture f;
  fixture_open(&f);
  vkml_model *m = NULL;
  t_expect_error(vkml_model_load("/nonexistent/x.vkm", &m), VKML_CODE_IO, "/nonexistent/x.vkm");
  cr_assert_null(m);
  unsigned char junk[256] = {0x89, 'V', 'K', 'M'};
  t_expect_error(vkml_model_load_memory(junk, sizeof junk, &m), VKML_CODE_CORRUPT, "<memory>");
  cr_assert_null(m);
  T_OK(vkml_model_load(f.path[0], &m));
  vkml_tensor_info info;
  t_expect_error(vkml_model_input(m, 1, &info), VKML_CODE_INVALID_ARGUMENT,
                 "input 1: the model has 1");
  t_expect_error(vkml_model_find_input(m, "y", &info), VKML_CODE_INVALID_ARGUMENT,
                 "no input named 'y'; the model's inputs: 'x'");
  vkml_instance_opts bad_wait = {.wait = (vkml_wait)7};
  vkml_instance *inst = NULL;
  t_expect_error(vkml_instance_create(m, &bad_wait, &inst), VKML_CODE_INVALID_ARGUMENT,
                 "unknown wait mode 7");
  vkml_instance_opts bad = {.device = VKML_DEVICE_INDEX, .index = 99};
  t_expect_error(vkml_instance_create(m, &bad, &inst), VKML_CODE_INVALID_ARGUMENT, "99");
  cr_assert_null(inst);
  T_OK(vkml_instance_create(m, &GPU, &inst));
  float x[3 * 17 * 17] = {0}, out[5];
  int64_t dims[4] = {1, 3, 17, 17}, wrong[4] = {1, 3, 16, 17};
  t_expect_error(vkml_set_input(inst, "x", VKML_F32, 4, wrong, x), VKML_CODE_INVALID_ARGUMENT,
                 "input 'x': expected f32[1,3,17,17], given f32[1,3,16,17]");
  t_expect_error(vkml_set_input(inst, "x", VKML_F16, 4, dims, x), VKML_CODE_INVALID_ARGUMENT,
                 "expected f32[1,3,17,17], given f16[1,3,17,17]");
  t_expect_error(vkml_set_input(inst, "z", VKML_F32, 4, dims, x), VKML_CODE_INVALID_ARGUMENT,
                 "no input named 'z'");
  t_expect_error(vkml_get_output(inst, "prob", out, sizeof out), VKML_CODE_INVALID_ARGUMENT,
                 "has not run");
  T_OK(vkml_set_input(inst, "x", VKML_F32, 4, dims, x));
  T_OK(vkml_run(inst));
  t_expect_error(vkml_get_output(inst, "prob", out, 16), VKML_CODE_INVALID_ARGUMENT,
                 "output 'prob' is f32[1,5]: 20 bytes, given room for 16");
  t_expect_error(vkml_get_output(inst, "x", out, 20), VKML_CODE_INVALID_ARGUMENT,
                 "no output named 'x'; the model's outputs: 'prob'");
  vkml_instance_destroy(inst);
  vkml_model_free(m);
  fixture_close(&f);
}

/* Every function with a NULL or out-of-range argument: INVALID_ARGUMENT
 * naming the function or the argument, never a crash. */
Test(vk_api, every_function_refuses_null_and_wrong_sizes) {
  fixture f;
  fixture_open(&f);
  vkml_model *m = NULL;
  vkml_tensor_info info;
  const int INV = VKML_CODE_INVALID_ARGUMENT;
  t_expect_error(vkml_model_load(NULL, &m), INV, "no path");
  t_expect_error(vkml_model_load(f.path[0], NULL), INV, "out is NULL");
  t_expect_error(vkml_model_load_memory(NULL, 10, &m), INV, "no data");
  t_expect_error(vkml_model_load_memory("x", 1, NULL), INV, "out is NULL");
  cr_assert_eq(vkml_model_input_count(NULL), 0);
  cr_assert_eq(vkml_model_output_count(NULL), 0);
  t_expect_error(vkml_model_input(NULL, 0, &info), INV, "vkml_model_input: no model");
  t_expect_error(vkml_model_output(NULL, 0, &info), INV, "vkml_model_output: no model");
  t_expect_error(vkml_model_find_input(NULL, "x", &info), INV, "no model");
  t_expect_error(vkml_model_find_output(NULL, "prob", &info), INV, "no model");
  T_OK(vkml_model_load(f.path[0], &m));
  t_expect_error(vkml_model_input(m, 0, NULL), INV, "out is NULL");
  t_expect_error(vkml_model_output(m, 0, NULL), INV, "out is NULL");
  t_expect_error(vkml_model_input(m, -1, &info), INV, "input -1");
  t_expect_error(vkml_model_output(m, 1, &info), INV, "output 1");
  t_expect_error(vkml_model_find_input(m, "x", NULL), INV, "out is NULL");
  t_expect_error(vkml_model_find_output(m, "prob", NULL), INV, "out is NULL");
  t_expect_error(vkml_model_find_input(m, NULL, &info), INV, "no input named");
  t_expect_error(vkml_model_find_output(m, NULL, &info), INV, "no output named");

  vkml_instance *inst = NULL;
  t_expect_error(vkml_instance_create(NULL, &CPU, &inst), INV, "no model");
  t_expect_error(vkml_instance_create(m, &CPU, NULL), INV, "out is NULL");
  T_OK(vkml_instance_create(m, &CPU, &inst));
  float x[3 * 17 * 17] = {0}, out[5];
  int64_t dims[4] = {1, 3, 17, 17};
  t_expect_error(vkml_set_input(NULL, "x", VKML_F32, 4, dims, x), INV, "no instance");
  t_expect_error(vkml_set_input(inst, NULL, VKML_F32, 4, dims, x), INV, "no input named");
  t_expect_error(vkml_set_input(inst, "x", VKML_F32, 4, NULL, x), INV, "dims is NULL");
  t_expect_error(vkml_set_input(inst, "x", VKML_F32, -1, dims, x), INV, "rank");
  t_expect_error(vkml_set_input(inst, "x", VKML_F32, 1000, dims, x), INV, "rank");
  t_expect_error(vkml_set_input(inst, "x", VKML_F32, 4, dims, NULL), INV, "no data");
  t_expect_error(vkml_set_input(inst, "x", (vkml_dtype)99, 4, dims, x), INV, "expected f32");
  /* a run before every input was given is refused, naming the input */
  t_expect_error(vkml_run(inst), INV, "input 'x' was never given");
  t_expect_error(vkml_run(NULL), INV, "no instance");
  T_OK(vkml_set_input(inst, "x", VKML_F32, 4, dims, x));
  T_OK(vkml_run(inst));
  t_expect_error(vkml_get_output(NULL, "prob", out, sizeof out), INV, "no instance");
  t_expect_error(vkml_get_output(inst, NULL, out, sizeof out), INV, "no output named");
  t_expect_error(vkml_get_output(inst, "prob", NULL, sizeof out), INV, "20 bytes");
  t_expect_error(vkml_get_output(inst, "prob", out, 0), INV, "given room for 0");
  t_expect_error(vkml_get_output(inst, "prob", out, SIZE_MAX), INV, "20 bytes");
  void *in_mem = NULL;
  const void *out_mem = NULL;
  t_expect_error(vkml_input_memory(NULL, "x", &in_mem), INV, "no instance");
  t_expect_error(vkml_input_memory(inst, "x", NULL), INV, "data is NULL");
  t_expect_error(vkml_input_memory(inst, NULL, &in_mem), INV, "no input named");
  cr_assert_null(in_mem);
  t_expect_error(vkml_output_memory(NULL, "prob", &out_mem), INV, "no instance");
  t_expect_error(vkml_output_memory(inst, "prob", NULL), INV, "data is NULL");
  t_expect_error(vkml_output_memory(inst, "nope", &out_mem), INV, "no output named 'nope'");
  cr_assert_null(out_mem);
  vkml_memory mem;
  t_expect_error(vkml_instance_memory(NULL, &mem), INV, "no instance");
  t_expect_error(vkml_instance_memory(inst, NULL), INV, "out is NULL");
  cr_assert_null(vkml_instance_device(NULL));
  cr_assert_str_eq(vkml_instance_device(inst), "cpu");
  vkml_instance_destroy(NULL);
  vkml_model_free(NULL);
  vkml_instance_destroy(inst);
  vkml_model_free(m);
  fixture_close(&f);
}

/* An artifact in memory at an odd address (a buffer of a file format that
 * embeds it, say) loads and runs like one at an aligned address: the
 * runtime never reads its words misaligned (UBSan in the sanitizer pass). */
Test(vk_api, memory_at_an_odd_address_runs_like_the_file) {
  fixture f;
  fixture_open(&f);
  void *bytes;
  size_t n;
  T_OK(ir_file_read(f.path[1], &bytes, &n));
  unsigned char *odd = malloc(n + 3);
  cr_assert_not_null(odd);
  memcpy(odd + 3, bytes, n);
  free(bytes);
  rt_tensor in = input_for(f.ref, 5);
  float want[5], got[5];
  vkml_model *m[2];
  T_OK(vkml_model_load(f.path[1], &m[0]));
  T_OK(vkml_model_load_memory(odd + 3, n, &m[1]));
  for (int k = 0; k < 2; k++) {
    vkml_instance *inst;
    T_OK(vkml_instance_create(m[k], &CPU, &inst));
    run_api(inst, &in, k ? got : want);
    vkml_instance_destroy(inst);
  }
  for (int i = 0; i < 5; i++) cr_assert_eq(got[i], want[i], "prob[%d]", i);
  vkml_model_free(m[0]);
  vkml_model_free(m[1]);
  free(odd);
  rt_tensor_free(&in);
  fixture_close(&f);
}
