/* Everything a kernel file (codegen/kernels/<family>.c) may use of codegen:
 * it includes this and ir/ headers, never another kernel file.
 *
 *   template.h   templates, knobs, spaces, schedules and their checks
 *   templates.h  every template object (generated from codegen/kernels/)
 *   kernel.h     cg_kernel and its builder: defines, specialization
 *                constants, the grid
 *   spec.h       CG_SPEC_<FILE>_<NAME>: the GLSL files' constant ids
 *                (generated from codegen/glsl/)
 *   ops.h        the family entry points cg_node_<family> a kernel file
 *                defines, the layout and bounded-operand conventions
 *   extent.h     bounded rows: the unbounded twin, rows leading
 *   key.h        workload keys
 *   check.h      shared checks
 *   elt.h        elementwise helpers and NumPy broadcast addressing
 *   data.h       the data-movement kernels' helpers and space
 *   reduction.h  the row kernels' mapping and space
 *   conv.h       the conv workload its kernel files share
 *   coopmat.h    cooperative-matrix shapes and space
 *   staged.h     the staged ops' placement and dtype codes */
#ifndef CG_CORE_CORE_H
#define CG_CORE_CORE_H

#include "codegen/core/check.h"
#include "codegen/core/conv.h"
#include "codegen/core/coopmat.h"
#include "codegen/core/data.h"
#include "codegen/core/elt.h"
#include "codegen/core/extent.h"
#include "codegen/core/kernel.h"
#include "codegen/core/key.h"
#include "codegen/core/ops.h"
#include "codegen/core/reduction.h"
#include "codegen/core/spec.h"
#include "codegen/core/staged.h"
#include "codegen/core/template.h"
#include "codegen/core/templates.h"

#endif
