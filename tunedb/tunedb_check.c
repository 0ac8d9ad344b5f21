/* Checking stored rows: import's rules (tunedb_valid.h) applied to every
 * device, workload and record a file holds, and records whose device or
 * workload is missing. A file written by another tool, an older build or
 * an import before the rules existed may hold what import now refuses.
 * Reads only. */
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb_internal.h"
#include "tunedb/tunedb_valid.h"

void tunedb_problem_list_free(tunedb_problem_list *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->items[i].device);
    free(l->items[i].workload);
    free(l->items[i].schedule);
    free(l->items[i].reason);
  }
  free(l->items);
  *l = (tunedb_problem_list){0};
}

static const char *type_name(int type) {
  switch (type) {
  case SQLITE_INTEGER: return "an integer";
  case SQLITE_FLOAT: return "a real number";
  case SQLITE_TEXT: return "text";
  case SQLITE_BLOB: return "a blob";
  default: return "null";
  }
}

/* Column col of st as a value of c; false with the reason in why when it
 * is stored with another type (or text with a NUL byte). */
static bool column_value(sqlite3_stmt *st, int col, const tunedb_col *c, tunedb_value *v,
                         char *why, size_t why_bytes) {
  *v = (tunedb_value){0};
  int type = sqlite3_column_type(st, col);
  if (type == SQLITE_NULL) {
    v->null = true;
    return true;
  }
  bool ok;
  switch (c->kind) {
  case TUNEDB_COL_TEXT:
    ok = type == SQLITE_TEXT;
    if (ok) {
      v->s = (const char *)sqlite3_column_text(st, col);
      v->n_bytes = (size_t)sqlite3_column_bytes(st, col);
      if (memchr(v->s, 0, v->n_bytes)) {
        snprintf(why, why_bytes, "field \"%s\": text with a NUL byte", c->name);
        return false;
      }
    }
    break;
  case TUNEDB_COL_REAL:
    ok = type == SQLITE_FLOAT || type == SQLITE_INTEGER;
    v->d = sqlite3_column_double(st, col);
    break;
  default:
    ok = type == SQLITE_INTEGER;
    v->i = sqlite3_column_int64(st, col);
  }
  if (!ok) snprintf(why, why_bytes, "field \"%s\": stored as %s", c->name, type_name(type));
  return ok;
}

static char *printable_col(sqlite3_stmt *st, int col, bool *oom) {
  const char *s = (const char *)sqlite3_column_text(st, col);
  if (!s) return NULL;
  char *p = tunedb_text_printable(s, (size_t)sqlite3_column_bytes(st, col));
  if (!p) *oom = true;
  return p;
}

/* Appends the problem of the current row of st (column 0 the row id, then
 * t's columns) with reason why. */
static bool add_problem(tunedb_problem_list *out, size_t *cap, const tunedb_table *t,
                        sqlite3_stmt *st, const char *why) {
  if (out->n == *cap) {
    *cap = *cap ? 2 * *cap : 8;
    tunedb_problem *p = realloc(out->items, *cap * sizeof *p);
    if (!p) return false;
    out->items = p;
  }
  tunedb_problem *p = &out->items[out->n++];
  memset(p, 0, sizeof *p);
  bool oom = false;
  bool record = strcmp(t->type, "record") == 0;
  p->table = t->type;
  p->id = sqlite3_column_int64(st, 0);
  if (record || strcmp(t->type, "device") == 0) p->device = printable_col(st, 1, &oom);
  if (record) p->workload = printable_col(st, 2, &oom);
  if (strcmp(t->type, "workload") == 0) p->workload = printable_col(st, 1, &oom);
  if (record) p->schedule = printable_col(st, 4, &oom);
  if (!(p->reason = strdup(why))) oom = true;
  return !oom;
}

static vkml_status check_table(tunedb *db, const tunedb_table *t, int64_t now_us,
                               tunedb_problem_list *out, size_t *cap) {
  bool record = strcmp(t->type, "record") == 0;
  char sql[1024];
  int len = snprintf(sql, sizeof sql, "SELECT rowid");
  for (int i = 0; i < t->n_cols; i++)
    len += snprintf(sql + len, sizeof sql - (size_t)len, ", %s", t->cols[i].name);
  if (record)
    len += snprintf(sql + len, sizeof sql - (size_t)len,
                    ", device IN (SELECT key FROM devices), workload IN (SELECT key FROM "
                    "workloads)");
  snprintf(sql + len, sizeof sql - (size_t)len, " FROM %s ORDER BY rowid", t->name);
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(db, sql, &st));
  int rc = SQLITE_OK;
  bool oom = false;
  tunedb_value v[32];
  while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    out->n_rows++;
    char why[256];
    bool ok = true;
    for (int i = 0; ok && i < t->n_cols; i++)
      ok = column_value(st, i + 1, &t->cols[i], &v[i], why, sizeof why);
    if (ok) ok = tunedb_row_check(t, v, now_us, why, sizeof why);
    if (ok && record && !sqlite3_column_int(st, t->n_cols + 1))
      ok = false, snprintf(why, sizeof why, "field \"device\": no such device in the file");
    if (ok && record && !sqlite3_column_int(st, t->n_cols + 2))
      ok = false, snprintf(why, sizeof why, "field \"workload\": no such workload in the file");
    if (!ok && !add_problem(out, cap, t, st, why)) oom = true;
  }
  sqlite3_finalize(st);
  if (oom)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory checking", db->path);
  return rc == SQLITE_DONE ? VKML_OK : tunedb_sql_error(db, rc, "checking records");
}

vkml_status tunedb_check(tunedb *db, tunedb_problem_list *out) {
  *out = (tunedb_problem_list){0};
  size_t cap = 0;
  int64_t now_us = tunedb_now_us();
  vkml_status s = VKML_OK;
  for (int i = 0; i < TUNEDB_N_TABLES && s == VKML_OK; i++)
    s = check_table(db, &tunedb_tables[i], now_us, out, &cap);
  if (s != VKML_OK) tunedb_problem_list_free(out);
  return s;
}
