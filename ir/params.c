/* PLACEHOLDER */
#include "text.h"
#include "params.h"
#include "infer.h"
#include <stdarg.h>
vkml_status ir_infer_error(const char *fmt, ...) {
  va_list ap; va_start(ap, fmt);
  vkml_status s = vkml_status_makev(VKML_CODE_INVALID_GRAPH, fmt, ap);
  va_end(ap); return s;
}
