/* The table of every specialization constant the GLSL files declare,
 * generated with the CG_SPEC_<FILE>_<NAME> ids of "codegen/core/spec.h"
 * (codegen/core/gen.py): the kernels set constants by those names, and the
 * tests compare each compiled template's SPIR-V with this table. */
#ifndef CG_CORE_SPEC_TABLE_H
#define CG_CORE_SPEC_TABLE_H

#include <stdint.h>

typedef enum cg_spec_type { CG_SPEC_UINT, CG_SPEC_INT, CG_SPEC_BOOL, CG_SPEC_FLOAT } cg_spec_type;

typedef struct cg_spec_decl {
  const char *file; /* the GLSL file's name, e.g. "roi_align.comp" */
  const char *name; /* the constant's name in it */
  uint32_t id;
  cg_spec_type type;
} cg_spec_decl;

/* Terminated by an entry with file NULL; sorted by file, then id. */
extern const cg_spec_decl cg_spec_decls[];

#endif
