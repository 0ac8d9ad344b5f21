#ifndef FRONTEND_VERSION_H
#define FRONTEND_VERSION_H
/* The project version (meson.build defines VKML_VERSION). */
const char *vkml_compiler_version(void);
#endif
