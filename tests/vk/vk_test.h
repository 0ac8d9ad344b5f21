/* Helpers shared by the Vulkan tests: a context with the validation layer on
 * whose destruction fails the test on any validation message or leak. */
#ifndef VK_TEST_H
#define VK_TEST_H

#include "codegen/cg_kernel.h"
#include "codegen/cg_plan.h"
#include "runtime/tensor.h"
#include "runtime/vk/vk_context.h"

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

/* g (taken) compiled as vkc compile does: the pass pipeline (cpu_ops, by
 * ir_op, forced onto the CPU when given), then cg_plan_build with cc. */
ir_plan *vt_compile(const ir_target *t, cg_compiler *cc, ir_graph *g, const bool *cpu_ops,
                    ir_precision prec);

/* A copy of g through the passes a plan needs (fp16 when o->precision asks,
 * placement with cpu_ops forced onto the CPU, layout, transfers), which the
 * plan then owns (ir_plan_graph); then cg_plan_build. The optimizing passes
 * stay out so that these tests keep the nodes they place. g stays the
 * caller's. */
vkml_status vt_plan_build(const ir_graph *g, const ir_target *t, const cg_plan_opts *o,
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
