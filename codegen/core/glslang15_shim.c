/* glslang 15's C interface behind one function (glslang15.h). Built against
 * deps/glslang by core/meson.build, partially linked with glslang's static
 * libraries into one object whose every other symbol is local
 * (tools/link-local.sh). */
#include "codegen/core/glslang15.h"

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_ok;
static void init(void) { init_ok = glslang_initialize_process(); }

typedef struct include_ctx {
  vkml_glslang15_include_fn fn;
  void *ctx;
} include_ctx;

static glsl_include_result_t *include_local(void *user, const char *name, const char *includer,
                                            size_t depth) {
  (void)includer, (void)depth;
  include_ctx *ic = user;
  size_t len = 0;
  const char *text = ic->fn ? ic->fn(ic->ctx, name, &len) : NULL;
  if (!text) return NULL; /* glslang: "could not process include directive" */
  glsl_include_result_t *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->header_name = name;
  r->header_data = text;
  r->header_length = len;
  return r;
}

static int include_free(void *user, glsl_include_result_t *r) {
  (void)user;
  free(r);
  return 0;
}

static char *dup_log(const char *a, const char *b) {
  size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0;
  char *s = malloc(la + lb + 2);
  if (!s) return NULL;
  snprintf(s, la + lb + 2, "%s%s%s", a ? a : "", la && lb ? "\n" : "", b ? b : "");
  return s;
}

EXPORT const char *vkml_glslang15_version(void) { return "glslang 15.1.0"; }

EXPORT int vkml_glslang15_compile(const char *name, const char *source, const char *preamble,
                                  bool vulkan13, vkml_glslang15_include_fn include, void *ctx,
                                  uint32_t **words, size_t *n_bytes, char **log) {
  (void)name;
  *words = NULL, *n_bytes = 0, *log = NULL;
  pthread_once(&init_once, init);
  if (!init_ok) {
    *log = dup_log("glslang_initialize_process failed", NULL);
    return -1;
  }
  include_ctx ic = {include, ctx};
  glslang_input_t in = {
      .language = GLSLANG_SOURCE_GLSL,
      .stage = GLSLANG_STAGE_COMPUTE,
      .client = GLSLANG_CLIENT_VULKAN,
      .client_version = vulkan13 ? GLSLANG_TARGET_VULKAN_1_3 : GLSLANG_TARGET_VULKAN_1_1,
      .target_language = GLSLANG_TARGET_SPV,
      .target_language_version = vulkan13 ? GLSLANG_TARGET_SPV_1_6 : GLSLANG_TARGET_SPV_1_3,
      .code = source,
      .default_version = 450,
      .default_profile = GLSLANG_NO_PROFILE,
      .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
      .resource = glslang_default_resource(),
      .callbacks = {include_local, include_local, include_free},
      .callbacks_ctx = &ic,
  };
  glslang_shader_t *sh = glslang_shader_create(&in);
  if (!sh) {
    *log = dup_log("glslang_shader_create failed", NULL);
    return -1;
  }
  if (preamble && *preamble) glslang_shader_set_preamble(sh, preamble);
  int rc = -1;
  glslang_program_t *prog = NULL;
  if (!glslang_shader_preprocess(sh, &in) || !glslang_shader_parse(sh, &in)) {
    *log = dup_log(glslang_shader_get_info_log(sh), glslang_shader_get_info_debug_log(sh));
    goto done;
  }
  prog = glslang_program_create();
  if (!prog) goto done;
  glslang_program_add_shader(prog, sh);
  if (!glslang_program_link(prog, GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT)) {
    *log = dup_log(glslang_program_get_info_log(prog), glslang_program_get_info_debug_log(prog));
    goto done;
  }
  glslang_spv_options_t opt = {.disable_optimizer = true};
  glslang_program_SPIRV_generate_with_options(prog, GLSLANG_STAGE_COMPUTE, &opt);
  const char *msg = glslang_program_SPIRV_get_messages(prog);
  size_t n = glslang_program_SPIRV_get_size(prog);
  if (!n) {
    *log = dup_log("no SPIR-V generated", msg);
    goto done;
  }
  *words = malloc(n * sizeof(uint32_t));
  if (!*words) goto done;
  glslang_program_SPIRV_get(prog, *words);
  *n_bytes = n * sizeof(uint32_t);
  rc = 0;
done: /* rc != 0 with *log NULL: out of memory, the caller says so */
  if (prog) glslang_program_delete(prog);
  glslang_shader_delete(sh);
  return rc;
}
