/* Helpers shared by the Vulkan tests: a context with the validation layer on
 * whose destruction fails the test on any validation message or leak. */
#ifndef VK_TEST_H
#define VK_TEST_H

#include "codegen/core/core.h"
#include "codegen/core/plan.h"
#include "driver/driver.h"
#include "runtime/tensor.h"
#include "runtime/vk/vk_context.h"

/* The usual environment of a device test (vk_harness.c): a validated
 * context without a pipeline cache file, its target (which dies with the
 * context) and a compiler on the run's shared SPIR-V cache (vt_compiler).
 * vt_env_close destroys both, failing the test on any validation message. */
typedef struct vt_env {
  rt_vk_context *ctx;
  cg_compiler *cc;
  const ir_target *t;
} vt_env;
void vt_env_open(vt_env *e);
void vt_env_close(vt_env *e);
/* Unless cond: closes e and skips the test with "<device> lacks <what>"
 * (the device's name is copied first: e->t dies with the context). */
void vt_env_skip_unless(vt_env *e, bool cond, const char *what);

/* Graph runs (vk_harness.c). vt_parse: text parsed (file name "<test>")
 * and verified, failing the test on any error. vt_exec_once: an executor
 * for p on e's context runs once (in[] to out[], allocated by the run) and
 * is destroyed. */
ir_graph *vt_parse(const char *text);
void vt_exec_once(const vt_env *e, const ir_plan *p, const rt_tensor *in, int n_in,
                  rt_tensor *out, int n_out);

/* The end-to-end check of a graph that passes rewrite on its way to the
 * GPU (vk_harness.c): text compiled as vkc compiles it (vt_compile, fp32),
 * every step asserted to be on the GPU; one run on e into got[] and the CPU
 * reference on the unrewritten graph into want[] (both allocated, n_out).
 * Returns how many steps' kernel keys contain key_part (NULL: 0).
 * vt_assert_equal: got[i] and want[i] the same dims and bytes, then freed. */
int vt_run_all_gpu(const vt_env *e, const char *text, const char *key_part, const rt_tensor *in,
                   int n_in, rt_tensor *got, rt_tensor *want, int n_out);
void vt_assert_equal(rt_tensor *got, rt_tensor *want, int n);

/* Error bounds and schedule points (vk_harness.c). vt_abs_f32: |t| as f32
 * (the reference run on absolute values bounds a kernel's rounding error;
 * vt_check_bound compares with it).
 * vt_sample_points: up to want points of t's space from index first by
 * stride (coprime with the space's size), the default excluded, points
 * invalid on target skipped (and asserted to be refused as UNSUPPORTED);
 * returns how many. vt_sample_random: out[from..want) drawn with seed among
 * the points valid on target (out[0..from) are the caller's hand-picked). */
rt_tensor vt_abs_f32(const rt_tensor *t);
/* Every element of got within rtol |want| + scale_coef * scale + atol of
 * want (scale: the reference on absolute values): returns the worst
 * error / bound, *bad the first element over its bound (-1: none). */
double vt_check_bound(const rt_tensor *got, const rt_tensor *want, const rt_tensor *scale,
                      double rtol, double scale_coef, double atol, int64_t *bad);
int vt_sample_points(const cg_template *t, const ir_target *target, int64_t first,
                     int64_t stride, int want, cg_schedule *out);
void vt_sample_random(const cg_template *t, const ir_target *target, uint64_t seed, int from,
                      int want, cg_schedule *out);

/* A row-major tensor of type t with every byte set to byte (0x7f: f32
 * 3.4e38, f16 NaN), to poison an output so that elements a kernel forgets
 * to write show (vk_harness.c). */
void vt_poisoned(const ir_type *t, unsigned char byte, rt_tensor *out);
/* How many of t's bytes still hold byte (what a kernel left unwritten in a
 * vt_poisoned tensor: all of them when it returned at once). */
size_t vt_untouched(const rt_tensor *t, unsigned char byte);

/* Synthetic targets and kernel introspection for the tests that need no
 * device (vk_harness.c). vt_coop_target: a device with
 * VK_NV_cooperative_matrix as the H200 reports it (shapes in driver order;
 * 16x8x16 first); vt_coop_khr_target: the same with VK_KHR_cooperative_matrix
 * too (its list: 16x16x16 for both accumulators); vt_coop2_target: and
 * VK_NV_cooperative_matrix2 as the H100 lists it (32x16x16 granules for
 * workgroups of 128 invocations, 32x32x16 for 256). vt_define_of: the value of define name, NULL if k has
 * none. vt_spec_of: specialization constant id, failing the test if k has
 * none. vt_has_capability: whether SPIR-V module m declares capability cap.
 * vt_type_node: a one-node graph of op on inputs of the given types (only
 * the types are set, no data). */
ir_target vt_coop_target(void);
ir_target vt_coop_khr_target(void);
ir_target vt_coop2_target(void);
const char *vt_define_of(const cg_kernel *k, const char *name);
uint32_t vt_spec_of(const cg_kernel *k, uint32_t id);
bool vt_has_capability(const cg_spirv *m, uint32_t cap);
ir_node *vt_type_node(ir_graph **g, ir_op op, ir_dtype dt, int n_in, const int *ranks,
                      const int64_t (*dims)[IR_MAX_RANK], int rank_out, const int64_t *out_dims);

/* A validated context (no pipeline cache file unless cache_dir is given). */
rt_vk_context *vt_context(const char *cache_dir);
rt_vk_context *vt_context_opts(rt_vk_context_opts *o);
/* Fails the test if validation reported anything so far. */
void vt_assert_clean(const rt_vk_context *ctx);
/* Destroys ctx and fails the test on any validation message, including the
 * leak reports emitted at device and instance destruction. */
void vt_destroy(rt_vk_context *ctx);
/* A compiler whose SPIR-V cache is shared by every test of this run of the
 * executable (criterion runs each test in its own child process): a kernel
 * one test compiled is a cache hit for the next, as a user's second compile
 * is. The directory, /tmp/vkml-vktest-spirv-<runner pid>, starts empty and
 * is removed when the run ends. Free with cg_compiler_destroy. */
cg_compiler *vt_compiler(void);
/* A fresh empty directory under /tmp; the caller frees the string. */
char *vt_tempdir(void);
/* Removes a directory tree made by vt_tempdir (files one level deep). */
void vt_rmdir(const char *dir);

/* Keeps loader, lavapipe and validation layer loaded for the process and
 * declares LeakSanitizer suppressions for their own leaks (vk_lsan.c). */
void vt_pin_vulkan_libs(void);

/* Compiles k, creates its pipeline, uploads in[], dispatches once and
 * downloads into out (allocated by the caller with the output's dims);
 * fails the test on any error or validation message (vk_kernel.c). */
void vt_run_kernel(rt_vk_context *ctx, cg_compiler *cc, const cg_kernel *k,
                   const rt_tensor *const *in, int n_in, rt_tensor *out);
/* The same for a kernel with several outputs: in[] then out[] are bound in
 * that order, every output (as the caller poisoned it) is uploaded and
 * downloaded again after the dispatch; an empty tensor gets a 16-byte
 * dummy buffer. */
void vt_run_kernel_n(rt_vk_context *ctx, cg_compiler *cc, const cg_kernel *k,
                     const rt_tensor *const *in, int n_in, rt_tensor *out, int n_out);
/* The same; a kernel with an error slot (k->error_slot) runs with it
 * zeroed, and slot_out (IR_PLAN_ERROR_SLOT_WORDS words) receives it after
 * the dispatch. vt_run_kernel_n asserts it is still zero. */
void vt_run_kernel_slot(rt_vk_context *ctx, cg_compiler *cc, const cg_kernel *k,
                        const rt_tensor *const *in, int n_in, rt_tensor *out, int n_out,
                        uint32_t *slot_out);

/* g (taken) compiled as vkc compile does (drv_compile_graph: every pass,
 * cpu_ops, by ir_op, forced onto the CPU when given, then the plan with
 * cc). */
ir_plan *vt_compile(const ir_target *t, cg_compiler *cc, ir_graph *g, const bool *cpu_ops,
                    ir_precision prec);

/* A copy of g compiled with o and the pipeline's no_opt option (bounds,
 * fp16 when o->precision asks, the splits of the staged ops, placement with
 * cpu_ops forced onto the CPU, layout, transfers), which the plan then owns
 * (ir_plan_graph). The optimizing passes stay out so that these tests keep
 * the nodes they place. g stays the caller's. */
vkml_status vt_plan_build(const ir_graph *g, const ir_target *t, const drv_opts *o,
                          ir_layout layout, const char *cpu_ops, ir_plan **out);

/* nc4hw4 (ir/graph.h) on the host, for the layout tests (vk_pack.c): the
 * packed offset of (n,c,h,w) in [N,C,H,W]; x packed (pad lanes 0); a packed
 * buffer for type t with every byte 0x7f (f32 3.4e38, f16 NaN: lanes a
 * kernel forgets show); p back in the default layout, failing the test
 * (naming what) unless every pad lane holds 0 bits. */
int64_t vt_packed_at(const int64_t *d, int64_t n, int64_t c, int64_t h, int64_t w);
rt_tensor vt_pack(const rt_tensor *x);
rt_tensor vt_poisoned_packed(const ir_type *t);
rt_tensor vt_unpack(const rt_tensor *p, const ir_type *t, const char *what);

#endif
