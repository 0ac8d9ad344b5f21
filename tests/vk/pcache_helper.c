/* Helper process of test_vk_pcache: opens a validated context whose
 * pipeline cache lives in argv[1], creates argv[2] pipelines of the binary
 * template (distinct shapes) and runs each once (lavapipe compiles lazily,
 * at the first dispatch), checks the results, and prints
 *   loaded=<bytes read from the cache file> created=<n> ms=<time to create
 *   and first-run all pipelines> validation=<errors+warnings>
 *   warnings=<the context's warnings on one line>
 * Exit status 0 iff everything worked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/kernels/binary.h"
#include "runtime/vk/vk_memory.h"
#include "runtime/vk/vk_pipeline.h"
#include "runtime/vk/vk_program.h"
#include "vk_test.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int fail(vkml_status s) {
  fprintf(stderr, "pcache_helper: %s\n", vkml_status_message(s));
  vkml_status_free(s);
  return 1;
}

#define TRY(x)                                                                 \
  do {                                                                         \
    vkml_status s_ = (x);                                                      \
    if (s_) return fail(s_);                                                   \
  } while (0)

enum { MAX_P = 64 };

/* One pipeline: out = a + b over [n] + [1]; run once and check. */
static vkml_status make_and_run(rt_vk_context *ctx, const cg_kernel *k, const cg_spirv *spv,
                                int n, rt_vk_pipeline **out) {
  rt_vk_spec spec[CG_MAX_SPEC];
  for (int i = 0; i < k->n_spec; i++) spec[i] = (rt_vk_spec){k->spec_id[i], k->spec_value[i]};
  rt_vk_pipeline_desc d = {.name = k->key, .spirv = spv->words, .spirv_bytes = spv->bytes,
                           .n_buffers = 3, .spec = spec, .n_spec = k->n_spec};
  VKML_RETURN_IF_ERROR(rt_vk_pipeline_create(ctx, &d, out));
  float a[MAX_P + 8], b = 0.5f, y[MAX_P + 8];
  for (int i = 0; i < n; i++) a[i] = (float)i;
  rt_vk_buffer *ba = NULL, *bb = NULL, *by = NULL;
  rt_vk_program *p = NULL;
  vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, (uint64_t)n * 4, &ba);
  if (!s) s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 4, &bb);
  if (!s) s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, (uint64_t)n * 4, &by);
  if (!s) s = rt_vk_buffer_upload(ctx, ba, 0, a, (uint64_t)n * 4);
  if (!s) s = rt_vk_buffer_upload(ctx, bb, 0, &b, 4);
  if (!s) s = rt_vk_program_create(ctx, false, &p);
  rt_vk_binding bd[3] = {{ba, 0, 0, RT_VK_READ}, {bb, 0, 0, RT_VK_READ}, {by, 0, 0, RT_VK_WRITE}};
  if (!s) s = rt_vk_program_dispatch(p, *out, bd, 3, NULL, 0, k->groups);
  if (!s) s = rt_vk_program_finish(p);
  if (!s) s = rt_vk_program_run(p, RT_VK_WAIT_BLOCK);
  if (!s) s = rt_vk_buffer_download(ctx, by, 0, y, (uint64_t)n * 4);
  for (int i = 0; !s && i < n; i++)
    if (y[i] != a[i] + 0.5f) s = vkml_status_make(VKML_CODE_INTERNAL, "wrong result at %d", i);
  rt_vk_program_destroy(ctx, p);
  rt_vk_buffer_destroy(ctx, ba);
  rt_vk_buffer_destroy(ctx, bb);
  rt_vk_buffer_destroy(ctx, by);
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: pcache_helper CACHE_DIR N_PIPELINES\n");
    return 2;
  }
  vt_pin_vulkan_libs();
  int n_pipes = atoi(argv[2]);
  if (n_pipes < 1 || n_pipes > MAX_P) return 2;
  rt_vk_context_opts o = {.validation = true, .cache_dir = argv[1]};
  rt_vk_context *ctx;
  TRY(rt_vk_context_create(&o, &ctx));
  cg_compiler_opts co = {.no_cache = true};
  cg_compiler *cc;
  TRY(cg_compiler_create(&co, &cc));

  /* compile first: only pipeline creation and first use are timed */
  cg_kernel k[MAX_P];
  cg_spirv spv = {0};
  for (int i = 0; i < n_pipes; i++) {
    int64_t da[1] = {i + 1}, db[1] = {1};
    cg_binary_workload w = {.op = IR_OP_ADD};
    w.a = ir_type_make(IR_F32, 1, da);
    w.b = ir_type_make(IR_F32, 1, db);
    w.out = w.a;
    TRY(cg_binary_instantiate(&w, &cg_binary_template.dflt, rt_vk_context_target(ctx), &k[i]));
  }
  TRY(cg_kernel_compile(cc, &k[0], &spv)); /* one module: shapes are spec constants */

  rt_vk_pipeline *p[MAX_P] = {0};
  double t0 = now_ms();
  for (int i = 0; i < n_pipes; i++) TRY(make_and_run(ctx, &k[i], &spv, i + 1, &p[i]));
  double ms = now_ms() - t0;

  rt_vk_pcache_info info;
  rt_vk_pcache_info_get(ctx, &info);
  char warnings[2048];
  snprintf(warnings, sizeof warnings, "%s", rt_vk_context_warnings(ctx));
  for (char *c = warnings; *c; c++)
    if (*c == '\n') *c = '|';
  TRY(rt_vk_pcache_save(ctx));
  for (int i = 0; i < n_pipes; i++) rt_vk_pipeline_destroy(ctx, p[i]);
  cg_spirv_free(&spv);
  cg_compiler_destroy(cc);
  rt_vk_report rep;
  rt_vk_context_destroy(ctx, &rep);
  printf("loaded=%zu created=%d ms=%.3f validation=%u leaked=%d warnings=%s\n",
         info.loaded_bytes, info.n_created, ms, rep.n_errors + rep.n_warnings, rep.n_leaked,
         warnings);
  if (rep.n_errors + rep.n_warnings) fprintf(stderr, "validation: %s\n", rep.first_message);
  return rep.n_errors + rep.n_warnings || rep.n_leaked ? 1 : 0;
}
