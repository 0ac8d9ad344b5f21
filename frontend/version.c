/* Version of the compiler library (recorded in artifacts and the schedule
 * database by later stages). */
#include "frontend/version.h"

const char *vkml_compiler_version(void) { return VKML_VERSION; }
