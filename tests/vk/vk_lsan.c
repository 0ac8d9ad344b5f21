/* Makes the Vulkan tests usable under LeakSanitizer (sanitized builds):
 * the validation layer leaks a few objects of its own at exit, and the
 * loader unloads layers and drivers before LSan looks, which turns their
 * allocations into unattributable "<unknown module>" reports. So the test
 * processes pin those libraries (RTLD_NODELETE) and suppress leaks that
 * originate inside them — never leaks in vkml code. Harmless without
 * sanitizers. */
#include <dlfcn.h>

#include "vk_test.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libVkLayer_khronos_validation.so\n"
         "leak:libvulkan_lvp.so\n"
         "leak:libLLVM-15.so\n";
}

void vt_pin_vulkan_libs(void) {
  static const char *const libs[] = {
      "libvulkan.so.1",
      "libVkLayer_khronos_validation.so",
      "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so",
  };
  /* the handles are kept on purpose: the libraries stay for the process */
  for (unsigned i = 0; i < sizeof libs / sizeof libs[0]; i++)
    (void)dlopen(libs[i], RTLD_NOW | RTLD_NODELETE);
}
