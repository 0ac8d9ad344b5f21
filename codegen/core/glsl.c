/* Lookup of the embedded GLSL templates (the table is generated). */
#include <string.h>

#include "codegen/core/glsl.h"

const cg_glsl_file *cg_glsl_find(const char *name) {
  for (const cg_glsl_file *f = cg_glsl_files; f->name; f++)
    if (!strcmp(f->name, name)) return f;
  return NULL;
}
