/* The little JSON tunedb and vkdb need: a writer for strings and numbers,
 * and a reader for one flat object per line (string, number, true, false,
 * null values; no nesting), which is all the JSON-lines export holds. */
#ifndef TUNEDB_JSON_H
#define TUNEDB_JSON_H

#include <stdbool.h>
#include <stdio.h>

/* Writes s as a JSON string literal (quotes, backslash and control
 * characters escaped; valid UTF-8 as it is, every byte that is not part of a
 * valid UTF-8 sequence as U+FFFD, so the output is always valid JSON).
 * NULL: null. */
void tunedb_json_string(FILE *f, const char *s);
/* The length (1 to 4) of the valid UTF-8 sequence starting at s (shortest
 * form, no surrogates, at most U+10FFFF), 0 when none starts there or *s is
 * the terminating NUL. */
int tunedb_utf8_char_bytes(const char *s);
/* Writes v so that strtod reads back the same double; NaN/inf: null. */
void tunedb_json_number(FILE *f, double v);

typedef enum tunedb_json_type {
  TUNEDB_JSON_NULL, TUNEDB_JSON_BOOL, TUNEDB_JSON_NUMBER, TUNEDB_JSON_STRING
} tunedb_json_type;

typedef struct tunedb_json_field {
  char *key;   /* owned by the object */
  char *value; /* decoded string, number text, "true"/"false"; NULL for null */
  tunedb_json_type type;
} tunedb_json_field;

#define TUNEDB_JSON_MAX_FIELDS 32
typedef struct tunedb_json_object {
  tunedb_json_field fields[TUNEDB_JSON_MAX_FIELDS];
  int n;
} tunedb_json_object;

/* Parses one object from text (surrounding whitespace allowed). On failure
 * returns false with a reason in err (and nothing to free). */
bool tunedb_json_parse_object(const char *text, tunedb_json_object *out, char *err,
                              size_t err_bytes);
void tunedb_json_object_free(tunedb_json_object *o);
/* The field named key, or NULL. */
const tunedb_json_field *tunedb_json_get(const tunedb_json_object *o, const char *key);

#endif
