/* Export and import as JSON lines: one object per device, workload and
 * record, keys named after the columns, so `import(export(db))` gives the
 * same rows (row ids aside). Import is one transaction: all or nothing. */
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb_internal.h"
#include "tunedb/tunedb_json.h"

typedef enum col_kind { COL_TEXT, COL_INT, COL_REAL, COL_BOOL } col_kind;
typedef struct col {
  const char *name;
  col_kind kind;
  bool nullable;
  bool optional; /* may be absent on import (files of older builds): 0 */
} col;
typedef struct table {
  const char *type, *name, *order;
  const col *cols;
  int n_cols;
} table;

static const col device_cols[] = {
    {"key", COL_TEXT, 0},         {"vendor_id", COL_INT, 0},  {"device_id", COL_INT, 0},
    {"driver_version", COL_INT, 0}, {"driver_id", COL_INT, 0}, {"name", COL_TEXT, 0},
    {"api_version", COL_INT, 0},  {"pipeline_cache_uuid", COL_TEXT, 0},
    {"limits", COL_TEXT, 0},
};
static const col workload_cols[] = {
    {"key", COL_TEXT, 0}, {"op", COL_TEXT, 0}, {"description", COL_TEXT, 0}};
static const col record_cols[] = {
    {"device", COL_TEXT, 0},      {"workload", COL_TEXT, 0},   {"template", COL_TEXT, 0},
    {"schedule", COL_TEXT, 0},    {"median_ns", COL_REAL, 1},  {"spread_ns", COL_REAL, 1},
    {"runs", COL_INT, 0},         {"correct", COL_BOOL, 0},    {"failed", COL_BOOL, 0},
    {"message", COL_TEXT, 1},     {"tool_version", COL_TEXT, 0},
    {"timestamp_us", COL_INT, 0}, {"confirmation", COL_BOOL, 0, 1},
};
#define N(a) ((int)(sizeof a / sizeof a[0]))
static const table tables[] = {
    {"device", "devices", "key", device_cols, N(device_cols)},
    {"workload", "workloads", "key", workload_cols, N(workload_cols)},
    {"record", "records", "timestamp_us, id", record_cols, N(record_cols)},
};

static void column_list(const table *t, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < t->n_cols; i++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", t->cols[i].name);
}

static vkml_status export_table(tunedb *db, const table *t, FILE *f) {
  char cols[512], sql[700];
  column_list(t, cols, sizeof cols);
  snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY %s", cols, t->name, t->order);
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(db, sql, &st));
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fprintf(f, "{\"type\":\"%s\"", t->type);
    for (int i = 0; i < t->n_cols; i++) {
      fprintf(f, ",\"%s\":", t->cols[i].name);
      if (sqlite3_column_type(st, i) == SQLITE_NULL) {
        fputs("null", f);
        continue;
      }
      switch (t->cols[i].kind) {
      case COL_TEXT: tunedb_json_string(f, (const char *)sqlite3_column_text(st, i)); break;
      case COL_INT: fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i)); break;
      case COL_REAL: tunedb_json_number(f, sqlite3_column_double(st, i)); break;
      case COL_BOOL: fputs(sqlite3_column_int(st, i) ? "true" : "false", f); break;
      }
    }
    fputs("}\n", f);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? VKML_OK : tunedb_sql_error(db, rc, "exporting");
}

vkml_status tunedb_export(tunedb *db, FILE *f) {
  for (int i = 0; i < N(tables); i++) VKML_RETURN_IF_ERROR(export_table(db, &tables[i], f));
  if (fflush(f) != 0 || ferror(f))
    return vkml_status_make(VKML_CODE_IO, "%s: exporting: write error", db->path);
  return VKML_OK;
}

/* Binds the fields of o to st per t; a message names what is wrong. */
static vkml_status bind_line(const table *t, const tunedb_json_object *o, sqlite3_stmt *st,
                             const char *name, long line) {
  for (int i = 0; i < t->n_cols; i++) {
    const col *c = &t->cols[i];
    const tunedb_json_field *f = tunedb_json_get(o, c->name);
    if (!f && c->optional) {
      sqlite3_bind_int(st, i + 1, 0);
      continue;
    }
    if (!f || (f->type == TUNEDB_JSON_NULL && !c->nullable))
      return vkml_status_make(VKML_CODE_PARSE, "%s:%ld: %s without \"%s\"", name, line, t->type,
                              c->name);
    if (f->type == TUNEDB_JSON_NULL) {
      sqlite3_bind_null(st, i + 1);
      continue;
    }
    bool ok = false;
    char *end = NULL;
    switch (c->kind) {
    case COL_TEXT:
      ok = f->type == TUNEDB_JSON_STRING;
      if (ok) sqlite3_bind_text(st, i + 1, f->value, -1, SQLITE_TRANSIENT);
      break;
    case COL_INT: {
      long long v = f->type == TUNEDB_JSON_NUMBER ? strtoll(f->value, &end, 10) : 0;
      ok = f->type == TUNEDB_JSON_NUMBER && end && *end == 0;
      if (ok) sqlite3_bind_int64(st, i + 1, v);
      break;
    }
    case COL_REAL:
      ok = f->type == TUNEDB_JSON_NUMBER;
      if (ok) sqlite3_bind_double(st, i + 1, strtod(f->value, NULL));
      break;
    case COL_BOOL:
      ok = f->type == TUNEDB_JSON_BOOL;
      if (ok) sqlite3_bind_int(st, i + 1, strcmp(f->value, "true") == 0);
      break;
    }
    if (!ok)
      return vkml_status_make(VKML_CODE_PARSE, "%s:%ld: %s field \"%s\" has the wrong type",
                              name, line, t->type, c->name);
  }
  return VKML_OK;
}

static vkml_status import_lines(tunedb *db, FILE *f, const char *name, sqlite3_stmt **ins) {
  char *buf = NULL;
  size_t cap = 0;
  long line = 0;
  ssize_t len;
  vkml_status s = VKML_OK;
  while (s == VKML_OK && (len = getline(&buf, &cap, f)) >= 0) {
    line++;
    if (strspn(buf, " \t\r\n") == (size_t)len) continue;
    tunedb_json_object o;
    char err[128];
    if (!tunedb_json_parse_object(buf, &o, err, sizeof err)) {
      s = vkml_status_make(VKML_CODE_PARSE, "%s:%ld: %s", name, line, err);
      break;
    }
    const tunedb_json_field *type = tunedb_json_get(&o, "type");
    int k = -1;
    for (int i = 0; type && type->type == TUNEDB_JSON_STRING && i < N(tables); i++)
      if (strcmp(type->value, tables[i].type) == 0) k = i;
    if (k < 0) {
      s = vkml_status_make(VKML_CODE_PARSE,
                           "%s:%ld: \"type\" must be \"device\", \"workload\" or \"record\"",
                           name, line);
    } else {
      sqlite3_reset(ins[k]);
      s = bind_line(&tables[k], &o, ins[k], name, line);
      if (s == VKML_OK) {
        int rc = sqlite3_step(ins[k]);
        if (rc != SQLITE_DONE)
          s = vkml_status_annotate(tunedb_sql_error(db, rc, "importing"), "%s:%ld", name, line);
      }
    }
    tunedb_json_object_free(&o);
  }
  if (s == VKML_OK && ferror(f)) s = vkml_status_make(VKML_CODE_IO, "%s: read error", name);
  free(buf);
  return s;
}

vkml_status tunedb_import(tunedb *db, FILE *f, const char *name, int64_t *n_added) {
  if (n_added) *n_added = 0;
  sqlite3_stmt *ins[N(tables)] = {0};
  vkml_status s = VKML_OK;
  for (int i = 0; i < N(tables) && s == VKML_OK; i++) {
    char cols[512], qs[128] = "", sql[800];
    column_list(&tables[i], cols, sizeof cols);
    for (int c = 0; c < tables[i].n_cols; c++) strcat(qs, c ? ", ?" : "?");
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO %s (%s) VALUES (%s)", tables[i].name,
             cols, qs);
    s = tunedb_prepare(db, sql, &ins[i]);
  }
  int64_t before = 0, after = 0;
  if (s == VKML_OK) s = tunedb_begin(db);
  if (s == VKML_OK) {
    s = tunedb_count_records(db, &before);
    if (s == VKML_OK) s = import_lines(db, f, name, ins);
    if (s == VKML_OK) s = tunedb_count_records(db, &after);
    for (int i = 0; i < N(tables); i++) {
      sqlite3_finalize(ins[i]);
      ins[i] = NULL;
    }
    if (s == VKML_OK)
      s = tunedb_commit(db);
    else
      tunedb_rollback(db);
  }
  for (int i = 0; i < N(tables); i++) sqlite3_finalize(ins[i]);
  if (s == VKML_OK && n_added) *n_added = after - before;
  return s;
}
