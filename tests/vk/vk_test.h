/* Helpers shared by the Vulkan tests: a context with the validation layer on
 * whose destruction fails the test on any validation message or leak. */
#ifndef VK_TEST_H
#define VK_TEST_H

#include "codegen/cg_kernel.h"
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

#endif
