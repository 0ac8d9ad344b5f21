/* SPIRV-Tools' validator behind spirv_val.h: Debian 13's (deps/, linked by
 * tools/link-local.sh, which defines VKML_LINK_LOCAL: these two functions
 * must stay visible from the object whose other symbols it localizes), or
 * Debian 12's where the build has no deps/ (an ordinary runtime source). */
#include "runtime/vk/spirv_val.h"

#include <spirv-tools/libspirv.h>
#include <stdio.h>
#include <string.h>

#ifdef VKML_LINK_LOCAL
#define EXPORT __attribute__((visibility("default")))
#else
#define EXPORT
#endif

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
