/* The tables' columns and the rule of each (tunedb_valid.h). The bounds are
 * far above what vkml writes (a workload key is at most 511 bytes, a
 * schedule 255) and far below what would hurt a reader. Template names are
 * checked by their shape: the template registry is codegen's, and tunedb
 * depends on no other vkml library. */
#include "tunedb/tunedb_valid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "tunedb/tunedb.h"
#include "tunedb/tunedb_json.h"

enum { KEY_BYTES = 1024, NAME_BYTES = 64, LABEL_BYTES = 255, DOC_BYTES = 64 * 1024 };
#define RUNS_MAX 1000000000
#define TIMESTAMP_MIN 1577836800000000LL /* 2020-01-01T00:00:00Z */
#define DAY_US 86400000000LL

#define T TUNEDB_COL_TEXT
#define I TUNEDB_COL_INT
#define R TUNEDB_COL_REAL
#define B TUNEDB_COL_BOOL
static const tunedb_col device_cols[] = {
    {"key", T, 0, 0, TUNEDB_RULE_DEVICE_KEY},
    {"vendor_id", I, 0, 0, TUNEDB_RULE_U32},
    {"device_id", I, 0, 0, TUNEDB_RULE_U32},
    {"driver_version", I, 0, 0, TUNEDB_RULE_U32},
    {"driver_id", I, 0, 0, TUNEDB_RULE_U32},
    {"name", T, 0, 0, TUNEDB_RULE_LABEL},
    {"api_version", I, 0, 0, TUNEDB_RULE_U32},
    {"pipeline_cache_uuid", T, 0, 0, TUNEDB_RULE_UUID},
    {"limits", T, 0, 0, TUNEDB_RULE_DOC},
};
static const tunedb_col workload_cols[] = {
    {"key", T, 0, 0, TUNEDB_RULE_WORKLOAD_KEY},
    {"op", T, 0, 0, TUNEDB_RULE_OP},
    {"description", T, 0, 0, TUNEDB_RULE_DOC},
};
enum { REC_DEVICE, REC_WORKLOAD, REC_TEMPLATE, REC_SCHEDULE, REC_MEDIAN, REC_SPREAD, REC_RUNS,
       REC_CORRECT, REC_FAILED };
static const tunedb_col record_cols[] = {
    {"device", T, 0, 0, TUNEDB_RULE_DEVICE_KEY},
    {"workload", T, 0, 0, TUNEDB_RULE_WORKLOAD_KEY},
    {"template", T, 0, 0, TUNEDB_RULE_TEMPLATE},
    {"schedule", T, 0, 0, TUNEDB_RULE_SCHEDULE},
    {"median_ns", R, 1, 0, TUNEDB_RULE_TIME},
    {"spread_ns", R, 1, 0, TUNEDB_RULE_SPREAD},
    {"runs", I, 0, 0, TUNEDB_RULE_RUNS},
    {"correct", B, 0, 0, TUNEDB_RULE_BOOL},
    {"failed", B, 0, 0, TUNEDB_RULE_BOOL},
    {"message", T, 1, 0, TUNEDB_RULE_DOC},
    {"tool_version", T, 0, 0, TUNEDB_RULE_VERSION},
    {"timestamp_us", I, 0, 0, TUNEDB_RULE_TIMESTAMP},
    {"confirmation", B, 0, 1, TUNEDB_RULE_BOOL},
};
#undef T
#undef I
#undef R
#undef B
#define N(a) ((int)(sizeof a / sizeof a[0]))
const tunedb_table tunedb_tables[TUNEDB_N_TABLES] = {
    {"device", "devices", "key", device_cols, N(device_cols)},
    {"workload", "workloads", "key", workload_cols, N(workload_cols)},
    {"record", "records", "timestamp_us, id", record_cols, N(record_cols)},
};

int64_t tunedb_now_us(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

char *tunedb_text_printable(const char *s, size_t n) {
  char *out = malloc(4 * n + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '\\')
      *o++ = (char)c;
    else
      o += sprintf(o, "\\x%02x", c);
  }
  *o = 0;
  return out;
}

static bool fail(char *why, size_t why_bytes, const tunedb_col *c, const char *reason) {
  snprintf(why, why_bytes, "field \"%s\": %s", c->name, reason);
  return false;
}

static bool is_name_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-';
}
static bool is_hex(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

/* The first reason s breaks the text rule, NULL when it keeps it. */
static const char *text_reason(tunedb_rule rule, const char *s, size_t n) {
  size_t max = rule == TUNEDB_RULE_WORKLOAD_KEY || rule == TUNEDB_RULE_SCHEDULE ? KEY_BYTES
               : rule == TUNEDB_RULE_LABEL                                      ? LABEL_BYTES
               : rule == TUNEDB_RULE_DOC                                        ? DOC_BYTES
                                                                                : NAME_BYTES;
  if (n > max) return "too long";
  if (n == 0 && (rule == TUNEDB_RULE_WORKLOAD_KEY || rule == TUNEDB_RULE_TEMPLATE))
    return "empty";
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    switch (rule) {
    case TUNEDB_RULE_TEMPLATE:
    case TUNEDB_RULE_OP:
      if (!is_name_char(c)) return "a character other than A-Z, a-z, 0-9, '_', '.', '-'";
      i++;
      break;
    case TUNEDB_RULE_WORKLOAD_KEY:
    case TUNEDB_RULE_SCHEDULE:
    case TUNEDB_RULE_VERSION:
      if (c < 0x20 || c >= 0x7f) return "a byte that is not printable ASCII";
      i++;
      break;
    default: { /* LABEL, DOC: UTF-8 */
      int k = tunedb_utf8_char_bytes(s + i);
      if (k == 0) return "not valid UTF-8";
      if (rule == TUNEDB_RULE_LABEL && (c < 0x20 || c == 0x7f)) return "a control character";
      i += (size_t)k;
    }
    }
  }
  return NULL;
}

/* The canonical key tunedb_device_key makes, or none: four groups of
 * lowercase hex read back and written again must give the same text. */
static bool device_key_ok(const char *s, size_t n, tunedb_device *d) {
  uint32_t v[4] = {0};
  size_t i = 0;
  for (int g = 0; g < 4; g++) {
    size_t start = i;
    while (i < n && is_hex((unsigned char)s[i]) && i - start < 8)
      v[g] = v[g] * 16 + (uint32_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10), i++;
    if (i == start || (g < 3 && (i >= n || s[i++] != ':'))) return false;
  }
  if (i != n) return false;
  *d = (tunedb_device){.vendor_id = v[0], .device_id = v[1], .driver_id = v[2],
                       .driver_version = v[3]};
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device_key(d, key);
  return strlen(key) == n && memcmp(key, s, n) == 0;
}

bool tunedb_value_check(const tunedb_col *c, const tunedb_value *v, int64_t now_us, char *why,
                        size_t why_bytes) {
  char buf[96];
  if (v->null)
    return c->nullable ? true : fail(why, why_bytes, c, "null");
  switch (c->rule) {
  case TUNEDB_RULE_DEVICE_KEY: {
    tunedb_device d;
    return device_key_ok(v->s, v->n_bytes, &d)
               ? true
               : fail(why, why_bytes, c,
                      "not a device key (vendor:device:driverid:driverversion in lowercase hex)");
  }
  case TUNEDB_RULE_UUID: {
    if (v->n_bytes > 32 || v->n_bytes % 2) return fail(why, why_bytes, c, "not 0 to 16 hex bytes");
    for (size_t i = 0; i < v->n_bytes; i++)
      if (!is_hex((unsigned char)v->s[i]) && !(v->s[i] >= 'A' && v->s[i] <= 'F'))
        return fail(why, why_bytes, c, "not hex digits");
    return true;
  }
  case TUNEDB_RULE_U32:
    if (v->i < 0 || v->i > UINT32_MAX) {
      snprintf(buf, sizeof buf, "%lld is not a 32-bit unsigned number", (long long)v->i);
      return fail(why, why_bytes, c, buf);
    }
    return true;
  case TUNEDB_RULE_TIME:
  case TUNEDB_RULE_SPREAD:
    if (!isfinite(v->d) || v->d < 0 || (c->rule == TUNEDB_RULE_TIME && v->d == 0)) {
      snprintf(buf, sizeof buf, "%g is not a %s time", v->d,
               c->rule == TUNEDB_RULE_TIME ? "positive" : "finite, non-negative");
      return fail(why, why_bytes, c, buf);
    }
    return true;
  case TUNEDB_RULE_RUNS:
    if (v->i < 0 || v->i > RUNS_MAX) {
      snprintf(buf, sizeof buf, "%lld is not a number of runs (0 to %d)", (long long)v->i,
               RUNS_MAX);
      return fail(why, why_bytes, c, buf);
    }
    return true;
  case TUNEDB_RULE_TIMESTAMP:
    if (v->i < TIMESTAMP_MIN || v->i > now_us + DAY_US) {
      snprintf(buf, sizeof buf, "%lld us is not a time from 2020 to now", (long long)v->i);
      return fail(why, why_bytes, c, buf);
    }
    return true;
  case TUNEDB_RULE_BOOL:
    return v->i == 0 || v->i == 1 ? true : fail(why, why_bytes, c, "not a boolean");
  default: {
    const char *r = text_reason(c->rule, v->s, v->n_bytes);
    return r ? fail(why, why_bytes, c, r) : true;
  }
  }
}

bool tunedb_row_check(const tunedb_table *t, const tunedb_value *v, int64_t now_us, char *why,
                      size_t why_bytes) {
  for (int i = 0; i < t->n_cols; i++)
    if (!tunedb_value_check(&t->cols[i], &v[i], now_us, why, why_bytes)) return false;
  if (t->cols == device_cols) {
    tunedb_device d;
    device_key_ok(v[0].s, v[0].n_bytes, &d);
    if (d.vendor_id != v[1].i || d.device_id != v[2].i || d.driver_version != v[3].i ||
        d.driver_id != v[4].i)
      return fail(why, why_bytes, &device_cols[0],
                  "not the key of the device's vendor_id, device_id, driver_id and "
                  "driver_version");
  }
  if (t->cols == record_cols) {
    const tunedb_value *median = &v[REC_MEDIAN];
    bool correct = v[REC_CORRECT].i, failed = v[REC_FAILED].i;
    if (correct && failed)
      return fail(why, why_bytes, &record_cols[REC_CORRECT], "true on a failed trial");
    if (correct && median->null)
      return fail(why, why_bytes, &record_cols[REC_MEDIAN], "null on a correct trial");
    if (!median->null && !failed && v[REC_RUNS].i < 1)
      return fail(why, why_bytes, &record_cols[REC_RUNS], "0 on a timed trial");
  }
  return true;
}
