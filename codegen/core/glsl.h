/* GLSL sources, embedded into the library at build time: every file of
 * codegen/glsl/ (codegen/core/gen.py writes the table). */
#ifndef CG_CORE_GLSL_H
#define CG_CORE_GLSL_H

#include <stddef.h>

#include "codegen/core/spec_table.h"

typedef struct cg_glsl_file {
  const char *name; /* basename, e.g. "elementwise_binary.comp" */
  const char *text; /* NUL-terminated */
  size_t bytes;     /* without the NUL */
} cg_glsl_file;

/* Terminated by an entry with name NULL. */
extern const cg_glsl_file cg_glsl_files[];

/* The embedded file named name, or NULL. */
const cg_glsl_file *cg_glsl_find(const char *name);

#endif
