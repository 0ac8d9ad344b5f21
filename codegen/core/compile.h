/* GLSL -> SPIR-V through shaderc (linked statically), with an on-disk
 * SPIR-V cache keyed by a 128-bit FNV-1a hash of the source, the defines,
 * the options and the compiler version.
 *
 * Cache directory: the options' cache_dir, else $XDG_CACHE_HOME/vkml/spirv,
 * else ~/.cache/vkml/spirv. A damaged cache file is recompiled and replaced;
 * a cache that cannot be written only costs a recompilation next time. */
#ifndef CG_COMPILE_H
#define CG_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkml_status.h"

typedef struct cg_compiler cg_compiler;

typedef struct cg_define {
  const char *name, *value; /* value may be "" */
} cg_define;

typedef enum cg_opt_level {
  CG_OPT_PERFORMANCE = 0,
  /* No SPIRV-Tools optimisation: Debian 12's optimizer crashes on
   * cooperative-matrix shaders (docs/architecture.md, Building against Debian 12). */
  CG_OPT_ZERO,
  /* No optimisation either, compiled by glslang 15 instead of shaderc: the
   * shaders glslang 12 cannot compile (GL_KHR_cooperative_matrix,
   * GL_NV_cooperative_matrix2). Only where cg_compiler_has_glslang15(). */
  CG_OPT_GLSLANG15,
  /* The same for Vulkan 1.3 (SPIR-V 1.6): GL_NV_cooperative_matrix2. */
  CG_OPT_GLSLANG15_VK13,
} cg_opt_level;

/* Whether this build links glslang 15 (tools/build-deps.sh;
 * docs/architecture.md, "Two GLSL compilers"). */
bool cg_compiler_has_glslang15(void);

/* Valid when zero-initialized. */
typedef struct cg_compiler_opts {
  const char *cache_dir;
  bool no_cache; /* neither read nor write the SPIR-V cache */
} cg_compiler_opts;

typedef struct cg_spirv {
  uint32_t *words; /* heap; free with cg_spirv_free */
  size_t bytes;
  bool from_cache;
  uint8_t key[16];
} cg_spirv;

typedef struct cg_compiler_stats {
  int n_compiled;   /* compiler invocations (shaderc or glslang 15) */
  int n_cache_hits; /* modules read from the cache */
  int n_cache_bad;  /* cache files ignored as damaged */
} cg_compiler_stats;

vkml_status cg_compiler_create(const cg_compiler_opts *opts, cg_compiler **out);
void cg_compiler_destroy(cg_compiler *c);
void cg_compiler_stats_get(const cg_compiler *c, cg_compiler_stats *out);
/* The cache directory in use, or NULL when caching is off. */
const char *cg_compiler_cache_dir(const cg_compiler *c);

/* Compiles a compute shader. name is used in messages (e.g. the template
 * file name). A GLSL error is a PARSE status quoting shaderc's message and
 * the offending source line:
 *   "elementwise_binary.comp:42: error: 'x' : undeclared identifier
 *      42 | x = 1;"
 * out->words is owned by the caller (cg_spirv_free). */
vkml_status cg_compile(cg_compiler *c, const char *name, const char *source,
                       const cg_define *defines, int n_defines, cg_opt_level opt,
                       cg_spirv *out);
void cg_spirv_free(cg_spirv *s);

/* "shaderc <version>, glslang <version>, target ..." — part of every cache
 * key (with glslang 15's version for CG_OPT_GLSLANG15). */
const char *cg_compiler_version(void);

/* 128-bit FNV-1a over bytes, continuing from h (start with
 * cg_fnv128_init). Exposed for tests and for other caches. */
typedef struct cg_hash128 {
  uint64_t hi, lo;
} cg_hash128;
cg_hash128 cg_fnv128_init(void);
cg_hash128 cg_fnv128(cg_hash128 h, const void *data, size_t bytes);

#endif
