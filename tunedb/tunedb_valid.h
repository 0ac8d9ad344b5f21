/* What a valid row of each table is: the columns as export writes them and
 * import reads them, and the rule every value must keep. Shared by import
 * (tunedb_jsonl.c), which refuses a line that breaks one, and check
 * (tunedb_check.c), which reports stored rows that do. Not installed. */
#ifndef TUNEDB_VALID_H
#define TUNEDB_VALID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tunedb_col_kind {
  TUNEDB_COL_TEXT, TUNEDB_COL_INT, TUNEDB_COL_REAL, TUNEDB_COL_BOOL
} tunedb_col_kind;

typedef enum tunedb_rule {
  TUNEDB_RULE_DEVICE_KEY,   /* canonical "vendor:device:driverid:driverversion" */
  TUNEDB_RULE_WORKLOAD_KEY, /* printable ASCII, 1 to 1024 bytes */
  TUNEDB_RULE_TEMPLATE,     /* [A-Za-z0-9_.-], 1 to 64 bytes */
  TUNEDB_RULE_OP,           /* [A-Za-z0-9_.-], at most 64 bytes */
  TUNEDB_RULE_SCHEDULE,     /* printable ASCII, at most 1024 bytes */
  TUNEDB_RULE_VERSION,      /* printable ASCII, at most 64 bytes */
  TUNEDB_RULE_LABEL,        /* UTF-8 without control characters, at most 255 bytes */
  TUNEDB_RULE_DOC,          /* UTF-8, at most 64 KiB (JSON texts, messages) */
  TUNEDB_RULE_UUID,         /* an even number of hex digits, at most 32 */
  TUNEDB_RULE_U32,          /* 0 to 2^32 - 1 */
  TUNEDB_RULE_TIME,         /* finite and > 0 (ns) */
  TUNEDB_RULE_SPREAD,       /* finite and >= 0 (ns) */
  TUNEDB_RULE_RUNS,         /* 0 to 10^9 (>= 1 for a timed trial: tunedb_row_check) */
  TUNEDB_RULE_TIMESTAMP,    /* us since 1970, from 2020-01-01 to a day from now */
  TUNEDB_RULE_BOOL,         /* 0 or 1 */
} tunedb_rule;

typedef struct tunedb_col {
  const char *name;
  tunedb_col_kind kind;
  bool nullable;
  bool optional; /* may be absent on import (files of older builds): 0 */
  tunedb_rule rule;
} tunedb_col;

typedef struct tunedb_table {
  const char *type, *name, *order; /* JSON "type", SQL table, export order */
  const tunedb_col *cols;
  int n_cols;
} tunedb_table;

/* devices, workloads, records: the order export writes them in. */
#define TUNEDB_N_TABLES 3
extern const tunedb_table tunedb_tables[TUNEDB_N_TABLES];

/* One value of a row, whatever it came from (a JSON field, a column). */
typedef struct tunedb_value {
  bool null;
  int64_t i;      /* INT and BOOL */
  double d;       /* REAL */
  const char *s;  /* TEXT, borrowed; may hold bytes that are not UTF-8 */
  size_t n_bytes; /* of s, which has no NUL before n_bytes */
} tunedb_value;

/* Checks v against c: false with `field "NAME": REASON` in why. now_us
 * bounds timestamps. */
bool tunedb_value_check(const tunedb_col *c, const tunedb_value *v, int64_t now_us, char *why,
                        size_t why_bytes);
/* Every value of a row of t (v in t's column order), then the rules across
 * them: a device's key is the one its ids make; a record is not correct and
 * failed at once, a correct one has a time, a timed one ran at least once. */
bool tunedb_row_check(const tunedb_table *t, const tunedb_value *v, int64_t now_us, char *why,
                      size_t why_bytes);

/* s[0..n) with every byte outside printable ASCII (and the backslash)
 * written as \xNN; malloc'd, NULL when out of memory. */
char *tunedb_text_printable(const char *s, size_t n);
int64_t tunedb_now_us(void);

#endif
