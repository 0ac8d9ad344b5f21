/* SPIRV-Tools 2025's validator behind spirv_val.h. Built against deps/ by
 * runtime/meson.build (tools/link-local.sh). */
#include "runtime/vk/spirv_val.h"

#include <spirv-tools/libspirv.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT const char *vkml_spirv_tools_version(void) { return spvSoftwareVersionString(); }

EXPORT int vkml_spirv_validate(const uint32_t *words, size_t n, int vulkan_minor, char *msg,
                               size_t msg_bytes) {
  static const spv_target_env ENV[] = {SPV_ENV_VULKAN_1_0, SPV_ENV_VULKAN_1_1,
                                       SPV_ENV_VULKAN_1_2, SPV_ENV_VULKAN_1_3};
  spv_target_env env = ENV[vulkan_minor < 0 ? 0 : vulkan_minor > 3 ? 3 : vulkan_minor];
  spv_context sc = spvContextCreate(env);
  spv_validator_options vo = spvValidatorOptionsCreate();
  if (!sc || !vo) {
    spvValidatorOptionsDestroy(vo);
    spvContextDestroy(sc);
    return -1;
  }
  spv_const_binary_t bin = {words, n};
  spv_diagnostic diag = NULL;
  int rc = spvValidateWithOptions(sc, vo, &bin, &diag) == SPV_SUCCESS ? 0 : 1;
  if (rc && msg_bytes) {
    const char *m = diag && diag->error ? diag->error : "invalid";
    snprintf(msg, msg_bytes, "invalid for %s: %.*s", spvTargetEnvDescription(env),
             (int)strcspn(m, "\n"), m);
  }
  spvDiagnosticDestroy(diag);
  spvValidatorOptionsDestroy(vo);
  spvContextDestroy(sc);
  return rc;
}
