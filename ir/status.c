/* vkml_status implementation: heap messages, a static fallback when even the
 * error cannot be allocated. */
#include "vkml_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vkml_status_s {
  vkml_code code;
  char *message;
};

/* Returned when allocating a status fails; never written, never freed. */
static const struct vkml_status_s oom_status = {VKML_CODE_OUT_OF_MEMORY,
                                                (char *)"out of host memory"};
#define OOM_STATUS ((vkml_status)&oom_status)

static char *vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return NULL;
  char *buf = malloc((size_t)n + 1);
  if (!buf) return NULL;
  vsnprintf(buf, (size_t)n + 1, fmt, ap);
  return buf;
}

vkml_status vkml_status_makev(vkml_code code, const char *fmt, va_list ap) {
  if (code == VKML_CODE_OK) return VKML_OK;
  vkml_status s = malloc(sizeof *s);
  if (!s) return OOM_STATUS;
  s->code = code;
  s->message = vformat(fmt, ap);
  if (!s->message) {
    free(s);
    return OOM_STATUS;
  }
  return s;
}

vkml_status vkml_status_make(vkml_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vkml_status s = vkml_status_makev(code, fmt, ap);
  va_end(ap);
  return s;
}

vkml_status vkml_status_annotate(vkml_status s, const char *fmt, ...) {
  if (s == VKML_OK || s == OOM_STATUS) return s;
  va_list ap;
  va_start(ap, fmt);
  char *prefix = vformat(fmt, ap);
  va_end(ap);
  if (!prefix) return s;
  size_t n = strlen(prefix) + 2 + strlen(s->message) + 1;
  char *msg = malloc(n);
  if (msg) {
    snprintf(msg, n, "%s: %s", prefix, s->message);
    free(s->message);
    s->message = msg;
  }
  free(prefix);
  return s;
}

vkml_code vkml_status_code(vkml_status s) {
  return s ? s->code : VKML_CODE_OK;
}

const char *vkml_status_message(vkml_status s) {
  return s ? s->message : "ok";
}

const char *vkml_code_name(vkml_code code) {
  switch (code) {
  case VKML_CODE_OK: return "ok";
  case VKML_CODE_INVALID_ARGUMENT: return "invalid argument";
  case VKML_CODE_PARSE: return "parse error";
  case VKML_CODE_INVALID_GRAPH: return "invalid graph";
  case VKML_CODE_UNSUPPORTED: return "unsupported";
  case VKML_CODE_IO: return "i/o error";
  case VKML_CODE_OUT_OF_MEMORY: return "out of memory";
  case VKML_CODE_DEVICE: return "device error";
  case VKML_CODE_CORRUPT: return "corrupt data";
  case VKML_CODE_INTERNAL: return "internal error";
  }
  return "unknown";
}

void vkml_status_free(vkml_status s) {
  if (!s || s == OOM_STATUS) return;
  free(s->message);
  free(s);
}

#include "vkml.h"

const char *vkml_version(void) { return VKML_VERSION; }
