/* SPIRV-Tools' validator behind two functions (spirv_val_shim.c): Debian
 * 13's (tools/build-deps.sh) where the build has deps/, linked as one object
 * whose other symbols are local (tools/link-local.sh; docs/architecture.md,
 * "Two GLSL compilers"), since Debian 12's does not know the modules glslang
 * 15 writes (GL_KHR_cooperative_matrix); else Debian 12's. Used by
 * vk_spirv.c only. */
#ifndef RT_VK_SPIRV_VAL_H
#define RT_VK_SPIRV_VAL_H

#include <stddef.h>
#include <stdint.h>

/* Validates words[0..n) for Vulkan 1.vulkan_minor (0..3): 0 valid; 1
 * invalid, with the validator's first line in msg; -1 out of memory. */
int vkml_spirv_validate(const uint32_t *words, size_t n, int vulkan_minor, char *msg,
                        size_t msg_bytes);
/* "SPIRV-Tools v2025.1 ..." (part of the verdict cache's key). */
const char *vkml_spirv_tools_version(void);

#endif
