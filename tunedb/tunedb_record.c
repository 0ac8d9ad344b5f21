/* Workloads and records: storing every trial (each committed on its own) and
 * the per-workload queries the tuner and vkdb ask. */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "tunedb/tunedb_internal.h"

vkml_status tunedb_workload_put(tunedb *db, const char *key, const char *op,
                                const char *description_json) {
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(
      db, "INSERT INTO workloads VALUES (?1, ?2, ?3) ON CONFLICT(key) DO NOTHING", &st));
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, op ? op : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, description_json ? description_json : "{}", -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? VKML_OK : tunedb_sql_error(db, rc, "storing a workload");
}

static int64_t now_us(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

vkml_status tunedb_record_put(tunedb *db, const tunedb_record *r) {
  if (!r->device_key || !r->workload_key || !r->template_name || !r->schedule)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: a record needs a device, workload, template and schedule",
                            db->path);
  if (db->readonly)
    return vkml_status_make(VKML_CODE_IO, "%s: opened read-only, cannot write", db->path);
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(
      db,
      "INSERT OR IGNORE INTO records (device, workload, template, schedule, median_ns,"
      " spread_ns, runs, correct, failed, message, tool_version, timestamp_us,"
      " confirmation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
      &st));
  sqlite3_bind_text(st, 1, r->device_key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, r->workload_key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, r->template_name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, r->schedule, -1, SQLITE_TRANSIENT);
  /* a failed trial has no time */
  if (r->failed) {
    sqlite3_bind_null(st, 5);
    sqlite3_bind_null(st, 6);
  } else {
    sqlite3_bind_double(st, 5, r->median_ns);
    sqlite3_bind_double(st, 6, r->spread_ns);
  }
  sqlite3_bind_int64(st, 7, r->runs);
  sqlite3_bind_int(st, 8, r->correct && !r->failed);
  sqlite3_bind_int(st, 9, r->failed);
  if (r->message)
    sqlite3_bind_text(st, 10, r->message, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(st, 10);
  sqlite3_bind_text(st, 11, r->tool_version ? r->tool_version : "unknown", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 12, r->timestamp_us ? r->timestamp_us : now_us());
  sqlite3_bind_int(st, 13, r->confirmation);
  /* one autocommit statement: the record is durable (against a kill) when
   * this returns OK */
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: record for unknown device %s or workload %s (put them first)",
                            db->path, r->device_key, r->workload_key);
  return rc == SQLITE_DONE ? VKML_OK : tunedb_sql_error(db, rc, "storing a record");
}

char *tunedb_col_strdup(sqlite3_stmt *st, int col, bool *oom) {
  const unsigned char *t = sqlite3_column_text(st, col);
  if (!t) return NULL;
  char *s = strdup((const char *)t);
  if (!s) *oom = true;
  return s;
}

void tunedb_record_from_row(sqlite3_stmt *st, tunedb_record *r, bool *oom) {
  memset(r, 0, sizeof *r);
  r->id = sqlite3_column_int64(st, 0);
  r->device_key = tunedb_col_strdup(st, 1, oom);
  r->workload_key = tunedb_col_strdup(st, 2, oom);
  r->template_name = tunedb_col_strdup(st, 3, oom);
  r->schedule = tunedb_col_strdup(st, 4, oom);
  r->median_ns = sqlite3_column_double(st, 5);
  r->spread_ns = sqlite3_column_double(st, 6);
  r->runs = sqlite3_column_int64(st, 7);
  r->correct = sqlite3_column_int(st, 8) != 0;
  r->failed = sqlite3_column_int(st, 9) != 0;
  r->message = tunedb_col_strdup(st, 10, oom);
  r->tool_version = tunedb_col_strdup(st, 11, oom);
  r->timestamp_us = sqlite3_column_int64(st, 12);
  r->confirmation = sqlite3_column_int(st, 13) != 0;
}

void tunedb_record_clear(tunedb_record *r) {
  free((char *)r->device_key);
  free((char *)r->workload_key);
  free((char *)r->template_name);
  free((char *)r->schedule);
  free((char *)r->message);
  free((char *)r->tool_version);
  memset(r, 0, sizeof *r);
}

void tunedb_record_list_free(tunedb_record_list *l) {
  for (size_t i = 0; i < l->n; i++) tunedb_record_clear(&l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

vkml_status tunedb_records_collect(tunedb *db, sqlite3_stmt *st, tunedb_record_list *out) {
  size_t cap = out->n;
  bool oom = false;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (out->n == cap) {
      cap = cap ? 2 * cap : 16;
      tunedb_record *p = realloc(out->items, cap * sizeof *p);
      if (!p) {
        oom = true;
        break;
      }
      out->items = p;
    }
    tunedb_record_from_row(st, &out->items[out->n++], &oom);
  }
  sqlite3_finalize(st);
  vkml_status s = VKML_OK;
  if (oom)
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory reading records", db->path);
  else if (rc != SQLITE_DONE)
    s = tunedb_sql_error(db, rc, "reading records");
  if (s != VKML_OK) tunedb_record_list_free(out);
  return s;
}

/* Runs sql with up to four text parameters (NULL binds NULL). */
static vkml_status query_records(tunedb *db, const char *sql, const char *p1, const char *p2,
                                 const char *p3, const char *p4, tunedb_record_list *out) {
  *out = (tunedb_record_list){0};
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(db, sql, &st));
  const char *p[4] = {p1, p2, p3, p4};
  for (int i = 0; i < 4 && i < sqlite3_bind_parameter_count(st); i++) {
    if (p[i])
      sqlite3_bind_text(st, i + 1, p[i], -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(st, i + 1);
  }
  return tunedb_records_collect(db, st, out);
}

vkml_status tunedb_best_get(tunedb *db, const char *device_key, const char *workload_key,
                            tunedb_record_list *out) {
  return query_records(db,
                       "SELECT " TUNEDB_RECORD_COLUMNS
                       " FROM best WHERE device = ?1 AND workload = ?2",
                       device_key, workload_key, NULL, NULL, out);
}

vkml_status tunedb_best_all(tunedb *db, const char *workload_key, tunedb_record_list *out) {
  return query_records(db,
                       "SELECT " TUNEDB_RECORD_COLUMNS
                       " FROM best WHERE workload = ?1 ORDER BY device",
                       workload_key, NULL, NULL, NULL, out);
}

vkml_status tunedb_records_get(tunedb *db, const char *device_key, const char *workload_key,
                               tunedb_record_list *out) {
  return query_records(db,
                       "SELECT " TUNEDB_RECORD_COLUMNS " FROM records WHERE workload = ?1"
                       " AND (?2 IS NULL OR device = ?2) ORDER BY timestamp_us, id",
                       workload_key, device_key, NULL, NULL, out);
}

vkml_status tunedb_records_all(tunedb *db, tunedb_record_list *out) {
  return query_records(db,
                       "SELECT " TUNEDB_RECORD_COLUMNS " FROM records ORDER BY timestamp_us, id",
                       NULL, NULL, NULL, NULL, out);
}

vkml_status tunedb_trial_find(tunedb *db, const char *device_key, const char *workload_key,
                              const char *template_name, const char *schedule,
                              tunedb_record_list *out) {
  return query_records(db,
                       "SELECT " TUNEDB_RECORD_COLUMNS " FROM records WHERE device = ?1 AND"
                       " workload = ?2 AND template = ?3 AND schedule = ?4 AND confirmation = 0"
                       " ORDER BY timestamp_us DESC, id DESC LIMIT 1",
                       device_key, workload_key, template_name, schedule, out);
}

void tunedb_strings_free(char **s, size_t n) {
  for (size_t i = 0; s && i < n; i++) free(s[i]);
  free(s);
}

vkml_status tunedb_workload_keys(tunedb *db, char ***out_keys, size_t *out_n) {
  *out_keys = NULL;
  *out_n = 0;
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(
      tunedb_prepare(db, "SELECT DISTINCT workload FROM records ORDER BY workload", &st));
  size_t cap = 0;
  bool oom = false;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (*out_n == cap) {
      cap = cap ? 2 * cap : 16;
      char **p = realloc(*out_keys, cap * sizeof *p);
      if (!p) {
        oom = true;
        break;
      }
      *out_keys = p;
    }
    char *k = tunedb_col_strdup(st, 0, &oom);
    (*out_keys)[(*out_n)++] = k;
    if (oom) break;
  }
  sqlite3_finalize(st);
  vkml_status s = VKML_OK;
  if (oom)
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", db->path);
  else if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    s = tunedb_sql_error(db, rc, "listing workloads");
  if (s != VKML_OK) {
    tunedb_strings_free(*out_keys, *out_n);
    *out_keys = NULL;
    *out_n = 0;
  }
  return s;
}

vkml_status tunedb_count_records(tunedb *db, int64_t *out) {
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(db, "SELECT count(*) FROM main.records", &st));
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? VKML_OK : tunedb_sql_error(db, rc, "counting records");
}
