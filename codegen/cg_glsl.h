/* GLSL template sources, embedded into the library at build time (see
 * codegen/embed.c and codegen/meson.build). */
#ifndef CG_GLSL_H
#define CG_GLSL_H

#include <stddef.h>

typedef struct cg_glsl_file {
  const char *name; /* basename, e.g. "elementwise_binary.comp" */
  const char *text; /* NUL-terminated */
  size_t bytes;     /* without the NUL */
} cg_glsl_file;

/* Terminated by an entry with name NULL. */
extern const cg_glsl_file cg_glsl_files[];

/* The embedded template named name, or NULL. */
const cg_glsl_file *cg_glsl_find(const char *name);

#endif
