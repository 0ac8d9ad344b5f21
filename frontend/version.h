#ifndef FRONTEND_VERSION_H
#define FRONTEND_VERSION_H
#define VKML_VERSION_STRING "0.1.0"
const char *vkml_compiler_version(void);
#endif
