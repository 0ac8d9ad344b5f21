/* Linked into the tools of sanitized builds only (tools/meson.build). The
 * Vulkan loader unloads the driver at vkDestroyInstance, before
 * LeakSanitizer looks at the process; what the driver still references from
 * its own data then shows as a leak of an "<unknown module>" (lavapipe on
 * Debian 12: 128 bytes, in every run of vkrun and vkc). The tools pin the
 * CPU driver (RTLD_NODELETE) as the test processes do (tests/vk/vk_lsan.c),
 * so that LeakSanitizer sees those references; leaks in vkml code are still
 * reported. Where the driver is absent the dlopen fails and nothing
 * changes. */
#include <dlfcn.h>

__attribute__((constructor)) static void cli_pin_cpu_vulkan_driver(void) {
  if (!dlopen("/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE))
    (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
}
