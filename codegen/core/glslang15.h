/* The second GLSL compiler: glslang 15.1 (tools/build-deps.sh), for the
 * shaders Debian 12's glslang 12 (inside shaderc) cannot compile —
 * GL_KHR_cooperative_matrix and GL_NV_cooperative_matrix2. Both glslangs are
 * linked into libvkml_compiler; glslang 15's symbols are made local to one
 * object (glslang15_shim.c, partially linked and localized by
 * tools/link-local.sh), so the only names it adds are the functions below.
 * docs/architecture.md, "Two GLSL compilers". Used by compile.c only. */
#ifndef CG_CORE_GLSLANG15_H
#define CG_CORE_GLSLANG15_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Resolves `#include "name"`: the file's text and length, or NULL when
 * unknown. The text must outlive the compile call. */
typedef const char *(*vkml_glslang15_include_fn)(void *ctx, const char *name, size_t *len);

/* Compiles a GLSL compute shader for Vulkan 1.1 / SPIR-V 1.3 (vulkan13
 * false) or Vulkan 1.3 / SPIR-V 1.6 (which GL_NV_cooperative_matrix2 needs),
 * without optimisation. preamble: lines inserted after #version (the
 * defines).
 * Returns 0 and *words (malloc'd, *n_bytes bytes), or -1 and *log
 * (malloc'd, glslang's message; NULL when out of memory). Thread-safe. */
int vkml_glslang15_compile(const char *name, const char *source, const char *preamble,
                           bool vulkan13, vkml_glslang15_include_fn include, void *ctx,
                           uint32_t **words, size_t *n_bytes, char **log);

/* "glslang 15.1.0" (part of the SPIR-V cache key of what it compiles). */
const char *vkml_glslang15_version(void);

#endif
