/* volk compiled into the runtime library (Debian ships it as a header plus
 * volk.c, without a library). Only volkLoadDeviceTable is used, under a lock
 * in vk_device.c; the rest of volk's global pointers stay untouched. */
#define VOLK_IMPLEMENTATION
#include <dlfcn.h> /* outside the hidden-visibility region below */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wcast-function-type"
#pragma GCC visibility push(hidden)
#endif
#include <volk.h> /* with VOLK_IMPLEMENTATION it includes volk.c */
#if defined(__GNUC__)
#pragma GCC visibility pop
#pragma GCC diagnostic pop
#endif
