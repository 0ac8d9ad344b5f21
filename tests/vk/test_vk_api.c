/* The public C API (include/vkml.h) on lavapipe with the validation layer:
 * an artifact loaded from a file and from memory runs like the CPU
 * reference on the lean path (all steps on the GPU) and with a step on the
 * CPU; zero-copy memory gives the same results; eight instances share one
 * copy of the weights (the device allocator's accounting); instances run
 * concurrently from four threads; every bad call is an error naming what
 * was expected. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/artifact.h"
#include "ir/file.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/npy.h"
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

/* vkml_model_load leaves the weights' checksum to a thread: a file whose
 * weights were damaged (one bit of one constant) loads, and everything that
 * reads them refuses it naming the file and the section, on the GPU and the
 * CPU alike; the whole file's bytes are not handed out either. */
Test(vk_api, damaged_weights_are_refused_before_use) {
  fixture f;
  fixture_open(&f);
  size_t n = 0;
  uint8_t *bytes = NULL;
  T_OK(ir_file_read(f.path[0], (void **)&bytes, &n));
  const void *w;
  uint64_t wn;
  ir_artifact_section(bytes, n, "weights", &w, &wn);
  cr_assert(w && wn > 100);
  bytes[(const uint8_t *)w - bytes + wn / 2] ^= 4;
  char bad[600];
  snprintf(bad, sizeof bad, "%s/damaged.vkm", f.dir);
  FILE *fp = fopen(bad, "wb");
  cr_assert_not_null(fp);
  cr_assert_eq(fwrite(bytes, 1, n, fp), n);
  fclose(fp);
  free(bytes);
  /* decoded at once (every check but the weights') */
  ir_plan *p = NULL;
  cr_assert_eq(vkml_status_code(ir_artifact_load_file(bad, &p)), VKML_CODE_CORRUPT);
  vkml_model *m = NULL;
  T_OK(vkml_model_load(bad, &m));
  vkml_tensor_info info;
  T_OK(vkml_model_input(m, 0, &info)); /* what the model is: no weights read */
  for (int round = 0; round < 2; round++) /* the verdict stays */
    for (int cpu = 0; cpu < 2; cpu++) {
      vkml_instance *inst = NULL;
      vkml_status s = vkml_instance_create(m, cpu ? &CPU : &GPU, &inst);
      cr_assert_eq(vkml_status_code(s), VKML_CODE_CORRUPT, "%s",
                   s ? vkml_status_message(s) : "accepted");
      cr_assert(strstr(vkml_status_message(s), "damaged.vkm") &&
                    strstr(vkml_status_message(s), "checksum mismatch in section weights"),
                "%s", vkml_status_message(s));
      vkml_status_free(s);
      cr_assert_null(inst);
    }
  const void *data = &info;
  size_t size = 1;
  t_expect_error(vkml_model_artifact(m, &data, &size), VKML_CODE_CORRUPT,
                 "checksum mismatch in section weights");
  cr_assert(!data && !size);
  vkml_model_free(m);
  /* freed before anyone asked: the thread is joined, nothing leaks (ASan) */
  T_OK(vkml_model_load(bad, &m));
  vkml_model_free(m);
  /* the undamaged file runs */
  T_OK(vkml_model_load(f.path[0], &m));
  vkml_instance *inst = NULL;
  T_OK(vkml_instance_create(m, &CPU, &inst));
  vkml_instance_destroy(inst);
  T_OK(vkml_model_artifact(m, &data, &size));
  cr_assert(data && size);
  vkml_model_free(m);
  remove(bad);
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
  /* the run's output shape, tensor files */
  t_expect_error(vkml_output_shape(NULL, "prob", &info), INV, "vkml_output_shape: no instance");
  t_expect_error(vkml_output_shape(inst, "prob", NULL), INV, "out is NULL");
  t_expect_error(vkml_output_shape(inst, NULL, &info), INV, "no output named");
  bool conv = true;
  t_expect_error(vkml_set_input_file(NULL, "x", "x.npy", &conv), INV, "no instance");
  cr_assert(!conv);
  t_expect_error(vkml_set_input_file(inst, "x", NULL, NULL), INV, "no path");
  t_expect_error(vkml_set_input_file(inst, NULL, "x.npy", NULL), INV, "no input named");
  t_expect_error(vkml_set_input_file(inst, "x", "x.txt", NULL), INV,
                 "x.txt: unknown tensor file type");
  t_expect_error(vkml_write_output_file(NULL, "prob", "y.npy"), INV, "no instance");
  t_expect_error(vkml_write_output_file(inst, "prob", NULL), INV, "no path");
  t_expect_error(vkml_write_output_file(inst, "nope", "y.npy"), INV, "no output named 'nope'");
  /* provenance, steps, profiles, statistics, load times */
  vkml_provenance prov;
  vkml_step step;
  vkml_step_profile prof;
  vkml_run_stats stats;
  vkml_load_times lt;
  const char *path = "x";
  t_expect_error(vkml_model_provenance(NULL, &prov), INV, "vkml_model_provenance: no model");
  t_expect_error(vkml_model_provenance(m, NULL), INV, "out is NULL");
  cr_assert_eq(vkml_model_step_count(NULL), 0);
  t_expect_error(vkml_model_step(NULL, 0, &step), INV, "vkml_model_step: no model");
  t_expect_error(vkml_model_step(m, 0, NULL), INV, "out is NULL");
  t_expect_error(vkml_model_step(m, -1, &step), INV, "step -1: the model has 7");
  t_expect_error(vkml_model_step(m, 7, &step), INV, "step 7: the model has 7");
  t_expect_error(vkml_instance_profile(NULL, 0, &prof), INV, "vkml_instance_profile: no instance");
  t_expect_error(vkml_instance_profile(inst, 0, NULL), INV, "out is NULL");
  t_expect_error(vkml_instance_profile(inst, 7, &prof), INV, "step 7: the model has 7");
  t_expect_error(vkml_instance_profile(inst, 0, &prof), INV, "without vkml_instance_opts.profile");
  cr_assert(!vkml_instance_gpu_timed(NULL) && !vkml_instance_gpu_timed(inst));
  cr_assert_str_empty(vkml_instance_kernel_stats(NULL, 0));
  cr_assert_str_empty(vkml_instance_kernel_stats(inst, 0)); /* CPU, not profiled */
  cr_assert_str_empty(vkml_instance_kernel_stats(inst, -1));
  t_expect_error(vkml_instance_peaks(NULL, &path), INV, "vkml_instance_peaks: no instance");
  t_expect_error(vkml_instance_peaks(inst, NULL), INV, "path is NULL");
  t_expect_error(vkml_instance_peaks(inst, &path), INV, "runs on the CPU");
  cr_assert_null(path);
  t_expect_error(vkml_replay(NULL), INV, "vkml_replay: no instance");
  t_expect_error(vkml_replay(inst), INV, "runs on the CPU");
  t_expect_error(vkml_instance_stats(NULL, &stats), INV, "vkml_instance_stats: no instance");
  t_expect_error(vkml_instance_stats(inst, NULL), INV, "out is NULL");
  t_expect_error(vkml_instance_load_times(NULL, &lt), INV, "vkml_instance_load_times: no instance");
  t_expect_error(vkml_instance_load_times(inst, NULL), INV, "out is NULL");
  vkml_model *ir = (vkml_model *)1;
  t_expect_error(vkml_model_load_ir(NULL, &ir), INV, "vkml_model_load_ir: no path");
  cr_assert_null(ir);
  t_expect_error(vkml_model_load_ir(TINYCNN, NULL), INV, "out is NULL");
  vkml_instance_opts bad_index = {.device = VKML_DEVICE_INDEX, .index = -1};
  vkml_instance *none = NULL;
  t_expect_error(vkml_instance_create(m, &bad_index, &none), INV, "device index -1");
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

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Removes a directory and everything under it. */
static void rm_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* A model's steps and a profiled run through the API (what vkrun --profile
 * and --bench print): the plan's devices, kernels and transfers; every step
 * timed; the run's statistics; where creation's time went, the device and
 * weights counted once; the roofs from the device's peaks file; replays. */
Test(vk_api, steps_profile_stats_and_load_times) {
  fixture f;
  fixture_open(&f);
  /* a private cache: the peaks file written below is this test's */
  char *cache = vt_tempdir();
  cr_assert_eq(setenv("XDG_CACHE_HOME", cache, 1), 0);
  vkml_model *m;
  T_OK(vkml_model_load(f.path[1], &m)); /* maxpool on the CPU */
  int n = vkml_model_step_count(m);
  cr_assert_eq(n, 9, "7 nodes and 2 transfers, got %d", n);
  int gpu = 0, cpu = 0, copy = 0;
  for (int i = 0; i < n; i++) {
    vkml_step st;
    T_OK(vkml_model_step(m, i, &st));
    cr_assert(st.op[0] && st.output[0]);
    if (!strcmp(st.device, "gpu")) {
      gpu++;
      cr_assert(st.kernel[0] && st.schedule[0] && st.workload[0], "%s", st.op);
      cr_assert_str_eq(st.schedule_source, "default");
    } else if (!strcmp(st.device, "copy")) {
      copy++;
      cr_assert(!strcmp(st.note, "host to device") || !strcmp(st.note, "device to host"));
      cr_assert_eq(st.flops, 0);
    } else {
      cpu++;
      cr_assert_str_eq(st.op, "maxpool");
      cr_assert(st.note[0] && !st.kernel[0]);
    }
    if (!strcmp(st.op, "conv2d")) cr_assert_gt(st.flops, 0);
    cr_assert_gt(st.bytes, 0);
  }
  cr_assert(gpu == 6 && cpu == 1 && copy == 2, "%d %d %d", gpu, cpu, copy);
  vkml_provenance p;
  T_OK(vkml_model_provenance(m, &p));
  cr_assert_str_eq(p.tool, "test");
  cr_assert_str_eq(p.schedules, "default");
  cr_assert(p.format >= 3 && p.vendor_id && p.n_kernels == 6 && p.n_default == 6);

  vkml_instance_opts o = GPU;
  o.profile = true;
  vkml_instance *a, *b;
  T_OK(vkml_instance_create(m, &o, &a));
  T_OK(vkml_instance_create(m, &o, &b));
  vkml_load_times la, lb;
  T_OK(vkml_instance_load_times(a, &la));
  T_OK(vkml_instance_load_times(b, &lb));
  cr_assert(!la.device_shared && la.device > 0 && la.vk_instance > 0 && la.weights > 0);
  cr_assert(la.device >= la.loader + la.vk_instance + la.vk_device);
  cr_assert(lb.device_shared && lb.device == 0 && lb.weights == 0 && lb.pipelines > 0);
  /* no peaks file in the private cache */
  const char *path = NULL;
  t_expect_error(vkml_instance_peaks(a, &path), VKML_CODE_IO, "no peaks file");
  cr_assert(path && strstr(path, cache) && strstr(path, "/peaks-"), "%s", path);
  char *peaks = strdup(path); /* valid for the instance's life only */
  t_expect_error(vkml_instance_profile(a, 0, &(vkml_step_profile){0}), VKML_CODE_INVALID_ARGUMENT,
                 "has not run");
  t_expect_error(vkml_replay(a), VKML_CODE_INVALID_ARGUMENT, "has not run yet");
  rt_tensor in = input_for(f.ref, 5), want;
  T_OK(rt_cpu_run_graph(f.ref, &in, 1, &want, 1));
  float got[5];
  run_api(a, &in, got);
  assert_matches(got, &want, 1e-4);
  double gpu_s = 0;
  for (int i = 0; i < n; i++) {
    vkml_step st;
    vkml_step_profile pr;
    T_OK(vkml_model_step(m, i, &st));
    T_OK(vkml_instance_profile(a, i, &pr));
    cr_assert_str_eq(pr.device, st.device);
    cr_assert(pr.seconds >= 0 && pr.roof_gflops == 0 && pr.roof_gbs == 0);
    if (!strcmp(st.device, "cpu")) cr_assert_gt(pr.seconds, 0);
    if (!strcmp(st.device, "gpu")) gpu_s += pr.seconds;
    /* driver statistics: GPU kernels only (and only where the driver has
     * VK_KHR_pipeline_executable_properties: not Debian 12's lavapipe) */
    const char *ks = vkml_instance_kernel_stats(a, i);
    cr_assert_not_null(ks);
    if (strcmp(st.device, "gpu")) cr_assert_str_empty(ks, "step %d (%s): %s", i, st.device, ks);
  }
  cr_assert_str_empty(vkml_instance_kernel_stats(a, n));
  cr_assert(!vkml_instance_gpu_timed(a) || gpu_s > 0);
  vkml_run_stats rs;
  T_OK(vkml_instance_stats(a, &rs));
  cr_assert(rs.runs == 1 && rs.n_cpu_steps == 1 && rs.n_transfer_steps == 2 && rs.n_segments == 2,
            "%lld runs, %d cpu, %d transfers, %d segments", (long long)rs.runs, rs.n_cpu_steps,
            rs.n_transfer_steps, rs.n_segments);
  /* replays time the kernels again and keep the outputs */
  T_OK(vkml_replay(a));
  float again[5];
  T_OK(vkml_get_output(a, "prob", again, sizeof again));
  cr_assert_eq(memcmp(got, again, sizeof got), 0);
  T_OK(vkml_instance_stats(a, &rs));
  cr_assert_eq(rs.runs, 1);
  vkml_instance_destroy(b);
  vkml_instance_destroy(a);
  /* a peaks file: GPU steps get roofs (a conv2d the fp32 FMA rate) */
  FILE *fp = fopen(peaks, "w");
  cr_assert_not_null(fp);
  fprintf(fp, "{\"fma_f32_gflops\": 123.5, \"copy_gbs\": 45.0}\n");
  fclose(fp);
  T_OK(vkml_instance_create(m, &o, &a));
  run_api(a, &in, got);
  T_OK(vkml_instance_peaks(a, &path));
  for (int i = 0; i < n; i++) {
    vkml_step_profile pr;
    T_OK(vkml_instance_profile(a, i, &pr));
    bool g = !strcmp(pr.device, "gpu");
    cr_assert(pr.roof_gflops == (g ? 123.5 : 0) && pr.roof_gbs == (g ? 45.0 : 0));
  }
  vkml_instance_destroy(a);
  fp = fopen(peaks, "w");
  fprintf(fp, "{\"fma_f32_gflops\": -1}\n");
  fclose(fp);
  T_OK(vkml_instance_create(m, &o, &a));
  t_expect_error(vkml_instance_peaks(a, &path), VKML_CODE_CORRUPT, "\"fma_f32_gflops\"");
  vkml_instance_destroy(a);
  remove(peaks);
  free(peaks);
  rt_tensor_free(&in);
  rt_tensor_free(&want);
  vkml_model_free(m);
  rm_tree(cache);
  free(cache);
  fixture_close(&f);
}

/* Tensor files in and out; float64 .npy converted for a float input and
 * refused for an integer one; IR text on the CPU only; an output of a
 * data-dependent size at the run's shape. */
Test(vk_api, tensor_files_ir_text_and_bounded_outputs) {
  char *dir = vt_tempdir();
  vkml_model *m;
  T_OK(vkml_model_load_ir(TINYCNN, &m));
  vkml_instance *inst;
  t_expect_error(vkml_instance_create(m, &GPU, &inst), VKML_CODE_INVALID_ARGUMENT,
                 "IR text runs on the CPU reference kernels only");
  T_OK(vkml_instance_create(m, &CPU, &inst));
  bool conv = true;
  T_OK(vkml_set_input_file(inst, "x", VKML_SOURCE_ROOT "/tests/models/tinycnn/x.npy", &conv));
  cr_assert(!conv);
  T_OK(vkml_run(inst));
  char out[600];
  snprintf(out, sizeof out, "%s/prob.npy", dir);
  T_OK(vkml_write_output_file(inst, "prob", out));
  rt_tensor got, want, x;
  T_OK(rt_npy_read(out, &got));
  T_OK(rt_npy_read(VKML_SOURCE_ROOT "/tests/models/tinycnn/expected.npy", &want));
  cr_assert(got.dtype == IR_F32 && got.rank == 2 && got.dims[1] == 5);
  for (int i = 0; i < 5; i++)
    cr_assert_float_eq(((float *)got.data)[i], ((float *)want.data)[i], 1e-5);
  /* the same input as float64 (NumPy's default): an i64 tensor's header
   * with '<f8' written in, the doubles' bits as its data */
  T_OK(rt_npy_read(VKML_SOURCE_ROOT "/tests/models/tinycnn/x.npy", &x));
  rt_tensor d;
  T_OK(rt_tensor_alloc_dims(IR_I64, x.rank, x.dims, &d));
  for (int64_t i = 0; i < rt_tensor_numel(&x); i++) {
    double v = ((float *)x.data)[i];
    memcpy((char *)d.data + 8 * i, &v, 8);
  }
  void *bytes;
  size_t nb;
  T_OK(rt_npy_encode(&d, &bytes, &nb));
  char *descr = NULL;
  for (size_t i = 0; i + 3 <= nb && !descr; i++)
    if (!memcmp((char *)bytes + i, "<i8", 3)) descr = (char *)bytes + i;
  cr_assert_not_null(descr);
  descr[1] = 'f';
  char f64[600];
  snprintf(f64, sizeof f64, "%s/x64.npy", dir);
  T_OK(rt_file_write(f64, bytes, nb));
  T_OK(vkml_set_input_file(inst, "x", f64, &conv));
  cr_assert(conv);
  T_OK(vkml_run(inst));
  float prob[5];
  T_OK(vkml_get_output(inst, "prob", prob, sizeof prob));
  cr_assert_eq(memcmp(prob, got.data, sizeof prob), 0);
  /* a file of another shape is named with the input's type */
  char wrong[600];
  snprintf(wrong, sizeof wrong, "%s/short.npy", dir);
  rt_tensor sh;
  T_OK(rt_tensor_alloc_dims(IR_F32, 1, (int64_t[]){3}, &sh));
  T_OK(rt_npy_write(wrong, &sh));
  t_expect_error(vkml_set_input_file(inst, "x", wrong, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "short.npy: input %x: expected f32[1,3,17,17], got f32[3]");
  vkml_instance_destroy(inst);
  vkml_model_free(m);

  /* an integer input refuses float64; a bounded output at the run's size */
  char nz[600];
  snprintf(nz, sizeof nz, "%s/nz.vkir", dir);
  FILE *fp = fopen(nz, "w");
  cr_assert_not_null(fp);
  fputs("vkir 1\ngraph @nz(%x: i64[6]) -> (%y: i64[1,<=6]) {\n"
        "  %y = non_zero %x : i64[1,<=6]\n  return %y\n}\n", fp);
  fclose(fp);
  T_OK(vkml_model_load_ir(nz, &m));
  vkml_tensor_info info;
  T_OK(vkml_model_find_output(m, "y", &info));
  cr_assert(info.bounded_axis == 1 && info.dims[1] == 6 && info.bytes == 48);
  T_OK(vkml_model_input(m, 0, &info));
  cr_assert_eq(info.bounded_axis, -1);
  T_OK(vkml_instance_create(m, &CPU, &inst));
  int64_t xs[6] = {0, 5, 0, 7, 9, 0}, ys[6] = {-1, -1, -1, -1, -1, -1};
  t_expect_error(vkml_set_input_file(inst, "x", f64, NULL), VKML_CODE_INVALID_ARGUMENT,
                 "float64 data where i64 is wanted");
  T_OK(vkml_set_input(inst, "x", VKML_I64, 1, (int64_t[]){6}, xs));
  T_OK(vkml_run(inst));
  T_OK(vkml_output_shape(inst, "y", &info));
  cr_assert(info.rank == 2 && info.dims[0] == 1 && info.dims[1] == 3 && info.bytes == 24);
  T_OK(vkml_get_output(inst, "y", ys, sizeof ys));
  cr_assert(ys[0] == 1 && ys[1] == 3 && ys[2] == 4 && ys[3] == -1, "%lld %lld %lld %lld",
            (long long)ys[0], (long long)ys[1], (long long)ys[2], (long long)ys[3]);
  snprintf(out, sizeof out, "%s/y.npy", dir);
  T_OK(vkml_write_output_file(inst, "y", out));
  rt_tensor y;
  T_OK(rt_npy_read(out, &y));
  cr_assert(y.rank == 2 && y.dims[1] == 3 && ((int64_t *)y.data)[2] == 4);
  vkml_instance_destroy(inst);
  vkml_model_free(m);
  remove(out);
  rt_tensor_free(&y);
  rt_tensor_free(&sh);
  rt_tensor_free(&got);
  rt_tensor_free(&want);
  rt_tensor_free(&x);
  rt_tensor_free(&d);
  free(bytes);
  vt_rmdir(dir);
  free(dir);
}
