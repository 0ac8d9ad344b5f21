/* vkml-peaks: this Vulkan device's ceilings, measured with kernels of its
 * own, for vkrun --profile's roofs (runtime/vk/vk_peaks.h):
 *   - fp32 and fp16 fused multiply-adds: 8 independent chains of 4-wide FMAs
 *     per invocation, registers only (fp16 where the device has shaderFloat16);
 *   - cooperative-matrix multiply-adds (the API, KHR or NV, and the shape the
 *     kernels use): 8 independent accumulators per subgroup, fp16 and fp32
 *     accumulation, operands loaded once;
 *   - memory: a copy of 16-byte words between two device-local buffers
 *     (bytes read + written).
 * Each kernel is timed by GPU timestamps, the median of 10 dispatches after at
 * least 300 ms of the same work (an idle GPU runs at lower clocks); the work
 * per dispatch grows until a dispatch takes at least 2 ms (1 on a CPU device).
 * Prints a table (or --json) and writes the peaks file vkrun reads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/core/compile.h"
#include "codegen/core/coopmat.h"
#include "vkml_compile.h"
#include "ir/cache_dir.h"
#include "runtime/vk/vk_context.h"
#include "runtime/vk/vk_memory.h"
#include "runtime/vk/vk_pipeline.h"
#include "runtime/vk/vk_program.h"
#include "runtime/vk/vk_peaks.h"
#include "tunedb/tunedb_json.h"

static const char usage[] =
    "usage: vkml-peaks [--device N] [--json] [-o FILE] [--no-write]\n"
    "Measures this Vulkan device's fp32 and fp16 FMA rates, cooperative-matrix\n"
    "multiply-add rates and copy bandwidth with kernels of its own (GPU\n"
    "timestamps, medians after a warm-up) and writes them to FILE (default: the\n"
    "device's peaks file in the vkml cache, which vkrun --profile reads).\n";

static const char FMA_GLSL[] =
    "#version 450\n"
    "#extension GL_EXT_control_flow_attributes : require\n"
    "#if F16\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
    "#define V f16vec4\n"
    "#define S float16_t\n"
    "#else\n"
    "#define V vec4\n"
    "#define S float\n"
    "#endif\n"
    "layout(local_size_x = 256) in;\n"
    "layout(constant_id = 0) const uint ITERS = 16;\n"
    "layout(binding = 0, std430) writeonly buffer O { vec4 o[]; };\n"
    "void main() {\n"
    "  S x = S(float(gl_GlobalInvocationID.x & 1023u) * 1e-4);\n"
    "  V a0 = V(x), a1 = a0 + S(0.1), a2 = a0 + S(0.2), a3 = a0 + S(0.3);\n"
    "  V a4 = a0 + S(0.4), a5 = a0 + S(0.5), a6 = a0 + S(0.6), a7 = a0 + S(0.7);\n"
    "  const V m = V(0.999), c = V(0.001);\n"
    "  for (uint i = 0; i < ITERS; i++) {\n"
    "    [[unroll]] for (int u = 0; u < 8; u++) {\n"
    "      a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);\n"
    "      a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);\n"
    "    }\n"
    "  }\n"
    "  o[gl_GlobalInvocationID.x] = vec4(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7);\n"
    "}\n";
/* flops per invocation and iteration: 8 unrolled x 8 chains x 4 lanes x 2 */
#define FMA_FLOPS_PER_ITER (8.0 * 8 * 4 * 2)

static const char COOP_GLSL[] =
    "#version 450\n"
    "#include \"coopmat.glsl\"\n" /* the NV or KHR form, as the kernels use (CM_KHR) */
    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
    "#extension GL_EXT_shader_16bit_storage : require\n"
    "#extension GL_KHR_shader_subgroup_basic : require\n"
    "#extension GL_EXT_control_flow_attributes : require\n"
    "layout(local_size_x = 4 * SG) in;\n"
    "layout(constant_id = 0) const uint ITERS = 16;\n"
    "layout(binding = 0, std430) readonly buffer I { float16_t h[]; };\n"
    "layout(binding = 1, std430) writeonly buffer O { float o[]; };\n"
    "void main() {\n"
    "  CM_A(MS, KS) a;\n"
    "  CM_B(KS, NS) b;\n"
    "  CM_LOAD(a, h, 0, KS, false);\n"
    "  CM_LOAD(b, h, MS * KS, NS, false);\n"
    "  CM_ACC(MS, NS) c[8];\n"
    "  [[unroll]] for (int i = 0; i < 8; i++) c[i] = CM_ACC(MS, NS)(0.0);\n"
    "  for (uint it = 0; it < ITERS; it++) {\n"
    "    [[unroll]] for (int i = 0; i < 8; i++) c[i] = CM_MULADD(a, b, c[i]);\n"
    "  }\n"
    "  [[unroll]] for (int i = 1; i < 8; i++) c[0] = c[0] + c[i];\n"
    "  CM_F32(MS, NS) r = CM_F32(MS, NS)(c[0]);\n"
    "  uint sg = gl_WorkGroupID.x * 4u + gl_SubgroupID;\n"
    "  CM_STORE(r, o, sg * MS * NS, NS, false);\n"
    "}\n";

static const char COPY_GLSL[] =
    "#version 450\n"
    "layout(local_size_x = 256) in;\n"
    "layout(constant_id = 0) const uint N = 1;\n"
    "layout(binding = 0, std430) readonly buffer I { uvec4 a[]; };\n"
    "layout(binding = 1, std430) writeonly buffer O { uvec4 b[]; };\n"
    "void main() {\n"
    "  uint stride = gl_NumWorkGroups.x * 256u;\n"
    "  for (uint i = gl_GlobalInvocationID.x; i < N; i += stride) b[i] = a[i];\n"
    "}\n";

typedef struct bench {
  rt_vk_context *ctx;
  cg_compiler *cc;
  const ir_target *t;
  bool cpu; /* a CPU Vulkan device: small sizes, short runs */
} bench;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median seconds of one dispatch of pipe over groups workgroups (10 in a
 * program, after warm-up runs of at least warm_s seconds). */
static vkml_status time_dispatch(bench *b, const rt_vk_pipeline *pipe, rt_vk_binding *bind,
                                 int n_bind, uint32_t groups, double warm_s, double *secs) {
  enum { N = 10 };
  rt_vk_program *p = NULL;
  vkml_status s = rt_vk_program_create(b->ctx, true, &p);
  uint32_t g[3] = {groups, 1, 1};
  for (int i = 0; i < N && !s; i++) s = rt_vk_program_dispatch(p, pipe, bind, n_bind, NULL, 0, g);
  if (!s) s = rt_vk_program_finish(p);
  double t0 = now_s();
  do {
    if (!s) s = rt_vk_program_run(p, RT_VK_WAIT_BLOCK);
  } while (!s && now_s() - t0 < warm_s);
  if (!s) s = rt_vk_program_run(p, RT_VK_WAIT_BLOCK);
  double ns[N], total;
  if (!s) s = rt_vk_program_timings(p, ns, N, &total);
  if (!s) {
    qsort(ns, N, sizeof ns[0], cmp_double);
    *secs = 0.5 * (ns[N / 2 - 1] + ns[N / 2]) * 1e-9;
  }
  rt_vk_program_destroy(b->ctx, p);
  return s;
}

/* A compute-bound kernel: ITERS (specialization constant 0) doubled until a
 * dispatch takes long enough; *rate = flops per invocation-iteration x
 * invocations x ITERS / seconds. */
static vkml_status rate_of(bench *b, const char *name, const char *src, const cg_define *defs,
                           int n_defs, cg_opt_level opt, int n_bind, rt_vk_binding *bind,
                           uint32_t groups, double invocations, double flops_per_iter,
                           double *rate) {
  cg_spirv spv = {0};
  VKML_RETURN_IF_ERROR(cg_compile(b->cc, name, src, defs, n_defs, opt, &spv));
  double want = b->cpu ? 1e-3 : 2e-3, secs = 0;
  vkml_status s = VKML_OK;
  for (uint32_t iters = 4; !s; iters *= 2) {
    rt_vk_spec spec = {0, iters};
    rt_vk_pipeline_desc d = {.name = name,
                             .spirv = spv.words,
                             .spirv_bytes = spv.bytes,
                             .n_buffers = n_bind,
                             .spec = &spec,
                             .n_spec = 1};
    rt_vk_pipeline *pipe = NULL;
    s = rt_vk_pipeline_create(b->ctx, &d, &pipe);
    if (!s) s = time_dispatch(b, pipe, bind, n_bind, groups, b->cpu ? 0 : 0.3, &secs);
    rt_vk_pipeline_destroy(b->ctx, pipe);
    if (!s && (secs >= want || iters >= (1u << 20))) {
      *rate = flops_per_iter * invocations * iters / secs;
      break;
    }
  }
  cg_spirv_free(&spv);
  return s;
}

static vkml_status fma_rate(bench *b, bool f16, rt_vk_buffer *out, double *gflops) {
  uint32_t groups = b->cpu ? 16 : 8192;
  rt_vk_binding bind = {out, 0, (uint64_t)groups * 256 * 16, RT_VK_WRITE};
  cg_define d = {"F16", f16 ? "1" : "0"};
  double r;
  VKML_RETURN_IF_ERROR(rate_of(b, f16 ? "peaks_fma16.comp" : "peaks_fma32.comp", FMA_GLSL, &d,
                               1, CG_OPT_PERFORMANCE, 1, &bind, groups, groups * 256.0,
                               FMA_FLOPS_PER_ITER, &r));
  *gflops = r / 1e9;
  return VKML_OK;
}

static vkml_status coop_rate(bench *b, int acc, rt_vk_buffer *in, rt_vk_buffer *out,
                             double *gflops) {
  int si = cg_coopmat_shape(b->t, acc);
  if (si < 0) {
    *gflops = 0;
    return VKML_OK;
  }
  const ir_coopmat_shape *cs = &b->t->coopmat_shapes[si];
  char sg[16], ms[16], ns[16], ks[16], accs[16];
  snprintf(sg, sizeof sg, "%u", b->t->subgroup_size);
  snprintf(ms, sizeof ms, "%u", cs->m);
  snprintf(ns, sizeof ns, "%u", cs->n);
  snprintf(ks, sizeof ks, "%u", cs->k);
  snprintf(accs, sizeof accs, "%d", acc);
  bool khr = cg_coopmat_api_of(b->t) == CG_COOPMAT_KHR;
  cg_define d[] = {{"SG", sg}, {"MS", ms}, {"NS", ns}, {"KS", ks}, {"ACC", accs},
                   {"CM_KHR", khr ? "1" : "0"}};
  uint32_t groups = 4096; /* of 4 subgroups */
  rt_vk_binding bind[2] = {{in, 0, 0, RT_VK_READ},
                           {out, 0, (uint64_t)groups * 4 * cs->m * cs->n * 4, RT_VK_WRITE}};
  double r;
  /* compiled as the kernels are (codegen/core/coopmat.c) */
  VKML_RETURN_IF_ERROR(rate_of(b, acc == 16 ? "peaks_coop16.comp" : "peaks_coop32.comp",
                               COOP_GLSL, d, 6, khr ? CG_OPT_GLSLANG15 : CG_OPT_ZERO, 2, bind,
                               groups, groups * 4.0,
                               8.0 * 2 * cs->m * cs->n * cs->k, &r));
  *gflops = r / 1e9;
  return VKML_OK;
}

static vkml_status copy_rate(bench *b, rt_vk_buffer *x, rt_vk_buffer *y, uint64_t bytes,
                             double *gbs) {
  cg_spirv spv = {0};
  VKML_RETURN_IF_ERROR(cg_compile(b->cc, "peaks_copy.comp", COPY_GLSL, NULL, 0,
                                  CG_OPT_PERFORMANCE, &spv));
  rt_vk_spec spec = {0, (uint32_t)(bytes / 16)};
  rt_vk_pipeline_desc d = {.name = "peaks_copy.comp",
                           .spirv = spv.words,
                           .spirv_bytes = spv.bytes,
                           .n_buffers = 2,
                           .spec = &spec,
                           .n_spec = 1};
  rt_vk_pipeline *pipe = NULL;
  vkml_status s = rt_vk_pipeline_create(b->ctx, &d, &pipe);
  rt_vk_binding bind[2] = {{x, 0, bytes, RT_VK_READ}, {y, 0, bytes, RT_VK_WRITE}};
  double secs = 0;
  uint32_t groups = b->cpu ? 64 : 65535;
  if (!s) s = time_dispatch(b, pipe, bind, 2, groups, b->cpu ? 0 : 0.3, &secs);
  if (!s) *gbs = 2.0 * (double)bytes / secs / 1e9;
  rt_vk_pipeline_destroy(b->ctx, pipe);
  cg_spirv_free(&spv);
  return s;
}

static void write_json(FILE *f, const ir_target *t, const rt_vk_peaks *p) {
  fprintf(f, "{\"device\": ");
  tunedb_json_string(f, t->name);
  fprintf(f,
          ", \"fma_f32_gflops\": %.1f, \"fma_f16_gflops\": %.1f, \"coopmat_f16_gflops\": %.1f, "
          "\"coopmat_f32_gflops\": %.1f, \"copy_gbs\": %.1f, \"tool\": \"vkml-peaks %s\"}\n",
          p->fma_f32_gflops, p->fma_f16_gflops, p->coopmat_f16_gflops, p->coopmat_f32_gflops,
          p->copy_gbs, vkml_compiler_version());
}

/* Writes the file whole or not at all: a temporary file renamed over it. */
static vkml_status save(const char *path, const ir_target *t, const rt_vk_peaks *p) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return vkml_status_make(VKML_CODE_IO, "%s: cannot write", path);
  write_json(f, t, p);
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path)) {
    remove(tmp);
    return vkml_status_make(VKML_CODE_IO, "%s: cannot write", path);
  }
  return VKML_OK;
}

int main(int argc, char **argv) {
  rt_vk_context_opts co = {.required = RT_VK_REQ_TIMESTAMPS};
  bool json = false, write = true;
  const char *out_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--no-write")) {
      write = false;
    } else if (i + 1 < argc && !strcmp(argv[i], "--device")) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 0) {
        fprintf(stderr, "vkml-peaks: --device expects an index, got '%s'\n", argv[i]);
        return 2;
      }
      co.select_device = true;
      co.device_index = (int)v;
    } else if (i + 1 < argc && !strcmp(argv[i], "-o")) {
      out_path = argv[++i];
    } else {
      fprintf(stderr, "vkml-peaks: unknown argument '%s' (see --help)\n", argv[i]);
      return 2;
    }
  }
  bench b = {0};
  vkml_status s = rt_vk_context_create(&co, &b.ctx);
  if (!s) s = cg_compiler_create(NULL, &b.cc);
  rt_vk_peaks p = {0};
  rt_vk_buffer *x = NULL, *y = NULL, *coop_in = NULL;
  if (!s) {
    b.t = rt_vk_context_target(b.ctx);
    b.cpu = b.t->type == IR_TARGET_CPU;
    uint64_t bytes = b.cpu ? (64ull << 20) : (512ull << 20);
    s = rt_vk_buffer_create(b.ctx, RT_VK_MEM_DEVICE, bytes, &x);
    if (!s) s = rt_vk_buffer_create(b.ctx, RT_VK_MEM_DEVICE, bytes, &y);
    if (!s) s = rt_vk_buffer_create(b.ctx, RT_VK_MEM_DEVICE, 4096, &coop_in);
    if (!s) s = fma_rate(&b, false, y, &p.fma_f32_gflops);
    if (!s && b.t->fp16_arith) s = fma_rate(&b, true, y, &p.fma_f16_gflops);
    if (!s && cg_coopmat_api_of(b.t) != CG_COOPMAT_NONE) {
      s = coop_rate(&b, 16, coop_in, y, &p.coopmat_f16_gflops);
      if (!s) s = coop_rate(&b, 32, coop_in, y, &p.coopmat_f32_gflops);
    }
    if (!s) s = copy_rate(&b, x, y, bytes, &p.copy_gbs);
  }
  char *path = NULL;
  if (!s && write) {
    path = out_path ? strdup(out_path) : rt_vk_peaks_path(b.t);
    if (!path) s = vkml_status_make(VKML_CODE_IO, "no vkml cache directory (set HOME or XDG_CACHE_HOME)");
    char *dir = out_path ? NULL : ir_user_cache_dir(NULL);
    if (!s && dir && !ir_mkdirs(dir)) s = vkml_status_make(VKML_CODE_IO, "%s: cannot create", dir);
    free(dir);
    if (!s) s = save(path, b.t, &p);
  }
  if (!s) {
    if (json) {
      write_json(stdout, b.t, &p);
    } else {
      printf("%s\n", b.t->name);
      int nk = 0, nn = 0;
      for (int i = 0; i < b.t->n_coopmat_shapes && i < IR_TARGET_MAX_COOPMAT; i++)
        b.t->coopmat_shapes[i].khr ? nk++ : nn++;
      cg_coopmat_api api = cg_coopmat_api_of(b.t);
      printf("  cooperative matrices: %s (VK_KHR_cooperative_matrix: %d shapes, "
             "VK_NV_cooperative_matrix: %d, VK_NV_cooperative_matrix2: %s, %d workgroup shapes, "
             "up to %u invocations)\n",
             api == CG_COOPMAT_KHR ? "KHR" : api == CG_COOPMAT_NV ? "NV" : "none", nk, nn,
             b.t->coopmat2 ? "yes" : "no", b.t->n_coopmat2_shapes, b.t->coopmat2_max_workgroup);
      printf("  fp32 FMA              %10.1f GFLOP/s\n", p.fma_f32_gflops);
      if (p.fma_f16_gflops > 0) printf("  fp16 FMA              %10.1f GFLOP/s\n", p.fma_f16_gflops);
      if (p.coopmat_f16_gflops > 0)
        printf("  coopmat fp16 -> fp16  %10.1f GFLOP/s\n", p.coopmat_f16_gflops);
      if (p.coopmat_f32_gflops > 0)
        printf("  coopmat fp16 -> fp32  %10.1f GFLOP/s\n", p.coopmat_f32_gflops);
      printf("  copy                  %10.1f GB/s (read + written)\n", p.copy_gbs);
      if (path) printf("written to %s\n", path);
    }
  }
  free(path);
  if (b.ctx) {
    rt_vk_buffer_destroy(b.ctx, x);
    rt_vk_buffer_destroy(b.ctx, y);
    rt_vk_buffer_destroy(b.ctx, coop_in);
  }
  cg_compiler_destroy(b.cc);
  rt_vk_context_destroy(b.ctx, NULL);
  if (s) {
    fprintf(stderr, "vkml-peaks: %s\n", vkml_status_message(s));
    vkml_status_free(s);
    return 1;
  }
  return 0;
}
