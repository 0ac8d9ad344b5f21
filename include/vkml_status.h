/* vkml_status: the one error type of every vkml library.
 *
 * A status is a pointer: NULL (== VKML_OK) means success, anything else is a
 * heap-allocated error carrying a code and a message. Whoever receives a
 * non-NULL status owns it and must either return it upward or free it with
 * vkml_status_free(). This header depends on nothing and is installed. */
#ifndef VKML_STATUS_H
#define VKML_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the libraries' API: built with -fvisibility=hidden, libvkml_runtime
 * and libvkml_compiler export what carries it and nothing else. */
#if defined(__GNUC__)
#define VKML_API __attribute__((visibility("default")))
#else
#define VKML_API
#endif

typedef enum vkml_code {
  VKML_CODE_OK = 0,
  VKML_CODE_INVALID_ARGUMENT, /* caller passed something meaningless */
  VKML_CODE_PARSE,            /* malformed text / file contents */
  VKML_CODE_INVALID_GRAPH,    /* graph fails verification or shape inference */
  VKML_CODE_UNSUPPORTED,      /* valid input we do not implement */
  VKML_CODE_IO,               /* file system */
  VKML_CODE_OUT_OF_MEMORY,    /* host or device memory */
  VKML_CODE_DEVICE,           /* driver / device failure or missing feature */
  VKML_CODE_CORRUPT,          /* corrupt artifact or cache */
  VKML_CODE_INTERNAL,         /* a bug in vkml */
} vkml_code;

typedef struct vkml_status_s *vkml_status;
#define VKML_OK ((vkml_status)0)

/* Creates a status with a printf-style message. Never returns NULL for a
 * non-OK code (falls back to a static out-of-memory status). */
VKML_API vkml_status vkml_status_make(vkml_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
VKML_API vkml_status vkml_status_makev(vkml_code code, const char *fmt, va_list ap);

/* Prefixes the message with "<context>: " (e.g. a file name). Returns the same
 * status (or OK when given OK). */
VKML_API vkml_status vkml_status_annotate(vkml_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

VKML_API vkml_code vkml_status_code(vkml_status s);
/* The message; "ok" for VKML_OK. Valid until the status is freed. */
VKML_API const char *vkml_status_message(vkml_status s);
VKML_API const char *vkml_code_name(vkml_code code);
VKML_API void vkml_status_free(vkml_status s);

/* The only error macro: return a non-OK status to the caller. */
#define VKML_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    vkml_status vkml_s_ = (expr);                                              \
    if (vkml_s_ != VKML_OK) return vkml_s_;                                    \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif
