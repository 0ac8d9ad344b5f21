/* vkml public C API.
 *
 * Today it offers the status type and the library version; loading and
 * running artifacts (.vkm) on a Vulkan device joins it with the runtime
 * issue. Internal module headers (ir/, runtime/) are not installed. */
#ifndef VKML_H
#define VKML_H

#include "vkml_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VKML_VERSION_MAJOR 0
#define VKML_VERSION_MINOR 1
#define VKML_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" of the linked runtime library. */
const char *vkml_version(void);

#ifdef __cplusplus
}
#endif
#endif
