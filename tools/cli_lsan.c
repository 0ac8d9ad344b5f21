/* Linked into the tools of sanitized builds only (tools/meson.build). The
 * Vulkan loader unloads the driver at vkDestroyInstance, before
 * LeakSanitizer looks at the process; what the driver still references from
 * its own data then shows as a leak of an "<unknown module>" (lavapipe on
 * Debian 12: 128 bytes, in every run of vkrun and vkc). The tools pin the
 * CPU driver (RTLD_NODELETE) as the test processes do (tests/vk/vk_lsan.c),
 * so that LeakSanitizer sees those references; leaks in vkml code are still
 * reported. Where the driver is absent the dlopen fails and nothing
 * changes. Leaks allocated inside the driver itself (lavapipe keeps a few
 * hundred bytes when it fails to create a pipeline) are suppressed, as the
 * test processes do (tests/vk/vk_lsan.c). */
#include <dlfcn.h>

/* the one-line error contract holds: no table of suppressions at exit */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libvulkan_lvp.so\n"
         "leak:libLLVM-15.so\n";
}

__attribute__((constructor)) static void cli_pin_cpu_vulkan_driver(void) {
  if (!dlopen("/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE))
    (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
}
