/* vkml_compile (include/vkml_compile.h) as an application meets it: this
 * file includes the public headers only and links the two shared libraries
 * (their exported symbols only). tinycnn compiled from its .vkir file, from
 * an ONNX file and from ONNX bytes runs on the CPU reference kernels and on
 * the default Vulkan device (lavapipe, validation on) with the NumPy
 * oracle's outputs (tests/models/tinycnn/expected.npy); the artifact it
 * writes loads as the same model; every bad input is refused with a message
 * naming what is wrong. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vkml.h"
#include "vkml_compile.h"

#define TINYCNN_DIR VKML_SOURCE_ROOT "/tests/models/tinycnn"
#define TINYCNN_VKIR TINYCNN_DIR "/model.vkir"

/* Leaks inside the Vulkan loader's libraries are theirs (as in
 * tests/vk/vk_lsan.c, which this file cannot link: it uses internals). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libVkLayer_khronos_validation.so\n"
         "leak:libvulkan_lvp.so\n"
         "leak:libLLVM-15.so\n";
}

static void pin_vulkan_libs(void) {
  static const char *const libs[] = {"libvulkan.so.1", "libVkLayer_khronos_validation.so",
                                     "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"};
  for (unsigned i = 0; i < sizeof libs / sizeof libs[0]; i++)
    (void)dlopen(libs[i], RTLD_NOW | RTLD_NODELETE);
}

static char *onnx_path(const char *name) {
  const char *dir = getenv("VKML_DRIVER_MODELS");
  cr_assert(dir, "VKML_DRIVER_MODELS is not set (meson sets it)");
  char *p = malloc(strlen(dir) + strlen(name) + 2);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

static void *read_all(const char *path, size_t *bytes) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *d = malloc((size_t)n + 1);
  cr_assert_eq(fread(d, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *bytes = (size_t)n;
  return d;
}

/* The n float32 values of a little-endian .npy file (version 1 header). */
static void read_npy(const char *path, float *out, size_t n) {
  size_t bytes;
  unsigned char *d = read_all(path, &bytes);
  cr_assert(bytes > 10 && !memcmp(d, "\x93NUMPY", 6) && d[6] == 1, "%s: not an .npy v1", path);
  size_t at = 10 + (size_t)(d[8] | d[9] << 8);
  cr_assert(strstr((char *)d + 10, "'<f4'"), "%s: not float32", path);
  cr_assert_eq(bytes - at, n * sizeof(float), "%s: %zu bytes of data", path, bytes - at);
  memcpy(out, d + at, n * sizeof(float));
  free(d);
}

#define CHECK(call)                                                                   \
  do {                                                                                \
    vkml_status s_ = (call);                                                          \
    cr_assert(s_ == VKML_OK, "%s: %s", #call, vkml_status_message(s_));               \
  } while (0)

static void expect_error(vkml_status s, vkml_code code, const char *part) {
  cr_assert(s != VKML_OK, "expected an error containing '%s'", part);
  cr_assert_eq(vkml_status_code(s), code, "code %s: %s", vkml_code_name(vkml_status_code(s)),
               vkml_status_message(s));
  cr_assert(strstr(vkml_status_message(s), part), "message '%s' lacks '%s'",
            vkml_status_message(s), part);
  vkml_status_free(s);
}

/* tinycnn's input and the oracle's output */
static float X[3 * 17 * 17], WANT[5];

static void setup(void) {
  pin_vulkan_libs();
  read_npy(TINYCNN_DIR "/x.npy", X, sizeof X / sizeof X[0]);
  read_npy(TINYCNN_DIR "/expected.npy", WANT, 5);
}

/* Runs m once on the CPU reference kernels and once on the default Vulkan
 * device; both must give the oracle's outputs, and agree. */
static void run_and_check(vkml_model *m, double tol) {
  cr_assert_eq(vkml_model_input_count(m), 1);
  cr_assert_eq(vkml_model_output_count(m), 1);
  vkml_tensor_info in, out;
  CHECK(vkml_model_input(m, 0, &in));
  CHECK(vkml_model_output(m, 0, &out));
  cr_assert(!strcmp(in.name, "x") && in.rank == 4 && in.dims[0] == 1 && in.dims[3] == 17);
  cr_assert(!strcmp(out.name, "prob") && out.bytes == sizeof WANT);
  float got[2][5];
  const vkml_instance_opts opts[2] = {{.device = VKML_DEVICE_CPU}, {.validation = true}};
  for (int d = 0; d < 2; d++) {
    vkml_instance *inst;
    CHECK(vkml_instance_create(m, &opts[d], &inst));
    for (int i = 0; i < 5; i++) got[d][i] = NAN; /* poisoned */
    CHECK(vkml_set_input(inst, "x", VKML_F32, in.rank, in.dims, X));
    CHECK(vkml_run(inst));
    CHECK(vkml_get_output(inst, "prob", got[d], sizeof got[d]));
    vkml_instance_destroy(inst);
    for (int i = 0; i < 5; i++)
      cr_assert(fabsf(got[d][i] - WANT[i]) <= tol * (1 + fabsf(WANT[i])),
                "%s: prob[%d] = %.7g, the oracle %.7g", d ? "GPU" : "CPU", i, got[d][i],
                WANT[i]);
  }
  for (int i = 0; i < 5; i++)
    cr_assert(fabsf(got[0][i] - got[1][i]) <= tol, "prob[%d]: CPU %.7g, GPU %.7g", i, got[0][i],
              got[1][i]);
}

/* tinycnn.onnx's batch dimension is symbolic ("n"): fixed to 1 */
static const vkml_input_shape BATCH1 = {.name = "x", .rank = 4, .dims = {1, 3, 17, 17}};

TestSuite(vkml_compile, .init = setup);

Test(vkml_compile, vkir_file) {
  vkml_model *m;
  CHECK(vkml_compile(TINYCNN_VKIR, NULL, &m));
  run_and_check(m, 1e-4);
  vkml_model_free(m);
}

Test(vkml_compile, onnx_file) {
  char *p = onnx_path("tinycnn.onnx");
  vkml_compile_opts o = {.n_input_shapes = 1, .input_shapes = &BATCH1};
  vkml_model *m;
  CHECK(vkml_compile(p, &o, &m));
  run_and_check(m, 1e-4);
  vkml_model_free(m);
  free(p);
}

Test(vkml_compile, onnx_bytes) {
  char *p = onnx_path("tinycnn.onnx");
  size_t n;
  void *d = read_all(p, &n);
  vkml_compile_opts o = {.n_input_shapes = 1, .input_shapes = &BATCH1};
  vkml_model *m;
  CHECK(vkml_compile_memory(d, n, &o, &m));
  free(d); /* the model keeps nothing of the caller's bytes */
  run_and_check(m, 1e-4);
  vkml_model_free(m);
  free(p);
}

/* Options reach the compile: fp16 (lavapipe has 16-bit storage), ops kept
 * on the CPU, the packed layout, another planner. */
Test(vkml_compile, options) {
  const vkml_compile_opts variants[] = {
      {.precision = VKML_PRECISION_FP16},
      {.cpu_ops = "Conv,maxpool"},
      {.layout = VKML_LAYOUT_NC4HW4, .memory_planner = VKML_PLANNER_GREEDY},
  };
  for (unsigned v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    vkml_model *m;
    CHECK(vkml_compile(TINYCNN_VKIR, &variants[v], &m));
    run_and_check(m, v == 0 ? 1e-2 : 1e-4);
    vkml_model_free(m);
  }
  /* --fallback never with ops forced onto the CPU: the nodes are named */
  vkml_compile_opts o = {.cpu_ops = "maxpool", .fallback = VKML_FALLBACK_NEVER};
  vkml_model *m = (vkml_model *)&o; /* not left dangling on error */
  expect_error(vkml_compile(TINYCNN_VKIR, &o, &m), VKML_CODE_UNSUPPORTED,
               "maxpool %p1: forced onto the CPU");
  cr_assert_null(m);
}

/* The artifact written (no model asked for) loads as the same model, and a
 * compiled model's own artifact bytes load again. */
Test(vkml_compile, artifact) {
  char path[] = "/tmp/vkml-compile-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  vkml_compile_opts o = {.artifact_path = path};
  CHECK(vkml_compile(TINYCNN_VKIR, &o, NULL));
  vkml_model *m;
  CHECK(vkml_model_load(path, &m));
  run_and_check(m, 1e-4);
  const void *d;
  size_t n;
  CHECK(vkml_model_artifact(m, &d, &n));
  size_t file_bytes;
  void *file = read_all(path, &file_bytes);
  cr_assert(n == file_bytes && !memcmp(d, file, n), "the model's artifact is the file");
  free(file);
  vkml_model_free(m);
  vkml_model *c;
  CHECK(vkml_compile(TINYCNN_VKIR, NULL, &c));
  CHECK(vkml_model_artifact(c, &d, &n));
  CHECK(vkml_model_load_memory(d, n, &m));
  run_and_check(m, 1e-4);
  vkml_model_free(m);
  vkml_model_free(c);
  remove(path);
}

Test(vkml_compile, bad_input) {
  vkml_model *m;
  expect_error(vkml_compile("/nonexistent/net.onnx", NULL, &m), VKML_CODE_IO,
               "/nonexistent/net.onnx");
  cr_assert_null(m);
  expect_error(vkml_compile(VKML_SOURCE_ROOT "/README.md", NULL, &m),
               VKML_CODE_INVALID_ARGUMENT, "README.md: expected a .onnx or .vkir model");
  char *p = onnx_path("unknown_op.onnx");
  vkml_compile_opts batch = {.n_input_shapes = 1, .input_shapes = &BATCH1};
  expect_error(vkml_compile(p, &batch, &m), VKML_CODE_UNSUPPORTED, "Frobnicate");
  free(p);
  static const char junk[] = "not a model";
  expect_error(vkml_compile_memory(junk, sizeof junk - 1, NULL, &m), VKML_CODE_PARSE,
               "<memory>");
  /* IR text from memory has no .bin beside it for its weights */
  size_t n;
  void *text = read_all(TINYCNN_VKIR, &n);
  vkml_status s = vkml_compile_memory(text, n, NULL, &m);
  cr_assert(s && strstr(vkml_status_message(s), "<memory>"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  free(text);
  expect_error(vkml_compile(NULL, NULL, &m), VKML_CODE_INVALID_ARGUMENT,
               "vkml_compile: path is NULL");
  expect_error(vkml_compile_memory(NULL, 4, NULL, &m), VKML_CODE_INVALID_ARGUMENT,
               "vkml_compile_memory: data is NULL");
  expect_error(vkml_compile(TINYCNN_VKIR, NULL, NULL), VKML_CODE_INVALID_ARGUMENT,
               "nothing to produce");
  expect_error(vkml_compile(TINYCNN_VKIR, &(vkml_compile_opts){.db = "/nonexistent/s.db"}, &m),
               VKML_CODE_IO, "/nonexistent/s.db");
}

Test(vkml_compile, bad_options) {
  vkml_model *m;
  const struct {
    vkml_compile_opts o;
    const char *msg;
  } cases[] = {
      {{.precision = (vkml_precision)7}, "vkml_compile: precision 7 is out of range"},
      {{.fallback = (vkml_fallback)2}, "vkml_compile: fallback 2 is out of range"},
      {{.layout = (vkml_layout)-1}, "vkml_compile: layout -1 is out of range"},
      {{.memory_planner = (vkml_memory_planner)9}, "memory_planner 9 is out of range"},
      {{.cpu_ops = "conv2d,Frobnicate"}, "vkml_compile: cpu_ops: unknown op 'Frobnicate'"},
      {{.device = VKML_DEVICE_CPU}, "a model is compiled for a Vulkan device"},
      {{.device = VKML_DEVICE_INDEX, .index = -2}, "vkml_compile: index -2 is out of range"},
      {{.device = VKML_DEVICE_INDEX, .index = 99}, "99"},
      {{.n_input_shapes = 1}, "n_input_shapes is 1 but input_shapes is NULL"},
      {{.n_input_shapes = -1}, "n_input_shapes -1 is out of range"},
      {{.n_input_shapes = 1, .input_shapes = &BATCH1},
       "model.vkir: input shapes (--input-shape) apply to .onnx models only"},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vkml_status s = vkml_compile(TINYCNN_VKIR, &cases[i].o, &m);
    cr_assert(s, "case %u accepted", i);
    cr_assert(strstr(vkml_status_message(s), cases[i].msg), "case %u: '%s' lacks '%s'", i,
              vkml_status_message(s), cases[i].msg);
    vkml_status_free(s);
    cr_assert_null(m);
  }
  char *p = onnx_path("tinycnn.onnx");
  vkml_input_shape two[2] = {BATCH1, BATCH1};
  expect_error(vkml_compile(p, &(vkml_compile_opts){.n_input_shapes = 2, .input_shapes = two}, &m),
               VKML_CODE_INVALID_ARGUMENT, "input shape x given twice");
  vkml_input_shape neg = {.name = "x", .rank = 4, .dims = {1, 3, -17, 17}};
  expect_error(vkml_compile(p, &(vkml_compile_opts){.n_input_shapes = 1, .input_shapes = &neg}, &m),
               VKML_CODE_INVALID_ARGUMENT, "input shape x: dimension 2 is -17");
  free(p);
}
