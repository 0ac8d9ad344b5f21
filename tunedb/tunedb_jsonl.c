/* Export and import as JSON lines: one object per device, workload and
 * record, keys named after the columns, so `import(export(db))` gives the
 * same rows (row ids aside). Import is one transaction: all or nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb_internal.h"
#include "tunedb/tunedb_json.h"
#include "tunedb/tunedb_valid.h"

#define N(a) ((int)(sizeof a / sizeof a[0]))

static void column_list(const tunedb_table *t, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < t->n_cols; i++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", t->cols[i].name);
}

static vkml_status export_table(tunedb *db, const tunedb_table *t, FILE *f) {
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
      case TUNEDB_COL_TEXT: tunedb_json_string(f, (const char *)sqlite3_column_text(st, i)); break;
      case TUNEDB_COL_INT: fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i)); break;
      case TUNEDB_COL_REAL: tunedb_json_number(f, sqlite3_column_double(st, i)); break;
      case TUNEDB_COL_BOOL: fputs(sqlite3_column_int(st, i) ? "true" : "false", f); break;
      }
    }
    fputs("}\n", f);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? VKML_OK : tunedb_sql_error(db, rc, "exporting");
}

vkml_status tunedb_export(tunedb *db, FILE *f) {
  for (int i = 0; i < TUNEDB_N_TABLES; i++)
    VKML_RETURN_IF_ERROR(export_table(db, &tunedb_tables[i], f));
  if (fflush(f) != 0 || ferror(f))
    return vkml_status_make(VKML_CODE_IO, "%s: exporting: write error", db->path);
  return VKML_OK;
}

/* The statements of one import: an insert per table, and the lookups
 * that say which device or workload a record names is unknown. */
typedef struct importer {
  tunedb *db;
  const char *name; /* for messages */
  long line;
  int64_t now_us;
  sqlite3_stmt *ins[TUNEDB_N_TABLES];
  sqlite3_stmt *has_device, *has_workload;
} importer;

static vkml_status line_error(const importer *im, const tunedb_table *t, const char *fmt,
                              const char *a, const char *b) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a, b);
  return vkml_status_make(VKML_CODE_PARSE, "%s:%ld: %s %s", im->name, im->line,
                          t ? t->type : "line", msg);
}

/* The JSON field f as a value of column c; false when it has the wrong
 * type (or an integer out of range). */
static bool field_value(const tunedb_col *c, const tunedb_json_field *f, tunedb_value *v) {
  *v = (tunedb_value){0};
  if (f->type == TUNEDB_JSON_NULL) {
    v->null = true;
    return true;
  }
  char *end = NULL;
  switch (c->kind) {
  case TUNEDB_COL_TEXT:
    v->s = f->value;
    v->n_bytes = f->type == TUNEDB_JSON_STRING ? strlen(f->value) : 0;
    return f->type == TUNEDB_JSON_STRING;
  case TUNEDB_COL_INT:
    if (f->type != TUNEDB_JSON_NUMBER) return false;
    errno = 0;
    v->i = strtoll(f->value, &end, 10);
    return errno == 0 && *end == 0;
  case TUNEDB_COL_REAL:
    if (f->type != TUNEDB_JSON_NUMBER) return false;
    v->d = strtod(f->value, NULL); /* out of range: inf, refused by the rule */
    return true;
  case TUNEDB_COL_BOOL:
    v->i = f->type == TUNEDB_JSON_BOOL && strcmp(f->value, "true") == 0;
    return f->type == TUNEDB_JSON_BOOL;
  }
  return false;
}

/* Whether key is in the table of st ("SELECT 1 ... WHERE key = ?1"). */
static vkml_status lookup(importer *im, sqlite3_stmt *st, const char *key, bool *found) {
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  *found = rc == SQLITE_ROW;
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? VKML_OK
                                               : tunedb_sql_error(im->db, rc, "importing");
}

/* Checks every field of o against t (known names, once each, the right
 * type, tunedb_row_check), then inserts the row. */
static vkml_status import_row(importer *im, const tunedb_table *t, sqlite3_stmt *ins,
                              const tunedb_json_object *o) {
  for (int k = 0; k < o->n; k++) {
    const char *key = o->fields[k].key;
    bool known = strcmp(key, "type") == 0;
    for (int i = 0; i < t->n_cols && !known; i++) known = strcmp(key, t->cols[i].name) == 0;
    bool twice = false;
    for (int j = 0; j < k && !twice; j++) twice = strcmp(key, o->fields[j].key) == 0;
    if (!known || twice) {
      char *p = tunedb_text_printable(key, strlen(key));
      vkml_status s = line_error(im, t, twice ? "field \"%s\" given twice%s"
                                              : "field \"%s\" is not one of its fields%s",
                                 p ? p : "?", "");
      free(p);
      return s;
    }
  }
  tunedb_value v[TUNEDB_JSON_MAX_FIELDS];
  for (int i = 0; i < t->n_cols; i++) {
    const tunedb_col *c = &t->cols[i];
    const tunedb_json_field *f = tunedb_json_get(o, c->name);
    if (!f && c->optional) {
      v[i] = (tunedb_value){0};
      continue;
    }
    if (!f) return line_error(im, t, "without \"%s\"%s", c->name, "");
    if (!field_value(c, f, &v[i]))
      return line_error(im, t, "field \"%s\": %s", c->name,
                        c->kind == TUNEDB_COL_INT && f->type == TUNEDB_JSON_NUMBER
                            ? "not an integer in range"
                            : "the wrong type");
  }
  char why[256];
  if (!tunedb_row_check(t, v, im->now_us, why, sizeof why))
    return line_error(im, t, "%s%s", why, "");
  if (strcmp(t->type, "record") == 0) {
    bool found;
    VKML_RETURN_IF_ERROR(lookup(im, im->has_device, v[0].s, &found));
    if (!found)
      return line_error(im, t, "field \"device\": unknown device \"%s\"%s", v[0].s,
                        " (no device line before it, none in the database)");
    VKML_RETURN_IF_ERROR(lookup(im, im->has_workload, v[1].s, &found));
    if (!found)
      return line_error(im, t, "field \"workload\": unknown workload \"%s\"%s", v[1].s,
                        " (no workload line before it, none in the database)");
  }
  sqlite3_reset(ins);
  for (int i = 0; i < t->n_cols; i++) {
    if (v[i].null)
      sqlite3_bind_null(ins, i + 1);
    else if (t->cols[i].kind == TUNEDB_COL_TEXT)
      sqlite3_bind_text(ins, i + 1, v[i].s, (int)v[i].n_bytes, SQLITE_TRANSIENT);
    else if (t->cols[i].kind == TUNEDB_COL_REAL)
      sqlite3_bind_double(ins, i + 1, v[i].d);
    else
      sqlite3_bind_int64(ins, i + 1, v[i].i);
  }
  int rc = sqlite3_step(ins);
  if (rc != SQLITE_DONE)
    return vkml_status_annotate(tunedb_sql_error(im->db, rc, "importing"), "%s:%ld", im->name,
                                im->line);
  return VKML_OK;
}

/* Longer than any valid line (32 fields, none over 64 KiB). */
#define MAX_LINE_BYTES (4 << 20)

static vkml_status import_lines(importer *im, FILE *f) {
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  vkml_status s = VKML_OK;
  while (s == VKML_OK && (len = getline(&buf, &cap, f)) >= 0) {
    im->line++;
    if (strspn(buf, " \t\r\n") == (size_t)len) continue;
    if (len > MAX_LINE_BYTES || strlen(buf) != (size_t)len) {
      s = line_error(im, NULL, "%s%s", len > MAX_LINE_BYTES ? "too long" : "has a NUL byte", "");
      break;
    }
    tunedb_json_object o;
    char err[128];
    if (!tunedb_json_parse_object(buf, &o, err, sizeof err)) {
      s = vkml_status_make(VKML_CODE_PARSE, "%s:%ld: %s", im->name, im->line, err);
      break;
    }
    const tunedb_json_field *type = tunedb_json_get(&o, "type");
    int k = -1;
    for (int i = 0; type && type->type == TUNEDB_JSON_STRING && i < TUNEDB_N_TABLES; i++)
      if (strcmp(type->value, tunedb_tables[i].type) == 0) k = i;
    if (k < 0)
      s = vkml_status_make(VKML_CODE_PARSE,
                           "%s:%ld: \"type\" must be \"device\", \"workload\" or \"record\"",
                           im->name, im->line);
    else
      s = import_row(im, &tunedb_tables[k], im->ins[k], &o);
    tunedb_json_object_free(&o);
  }
  if (s == VKML_OK && ferror(f)) s = vkml_status_make(VKML_CODE_IO, "%s: read error", im->name);
  free(buf);
  return s;
}

static void importer_finalize(importer *im) {
  for (int i = 0; i < TUNEDB_N_TABLES; i++) sqlite3_finalize(im->ins[i]);
  sqlite3_finalize(im->has_device);
  sqlite3_finalize(im->has_workload);
  memset(im->ins, 0, sizeof im->ins);
  im->has_device = im->has_workload = NULL;
}

vkml_status tunedb_import(tunedb *db, FILE *f, const char *name, int64_t *n_added) {
  if (n_added) *n_added = 0;
  importer im = {.db = db, .name = name, .now_us = tunedb_now_us()};
  vkml_status s = VKML_OK;
  for (int i = 0; i < TUNEDB_N_TABLES && s == VKML_OK; i++) {
    const tunedb_table *t = &tunedb_tables[i];
    char cols[512], qs[128] = "", sql[800];
    column_list(t, cols, sizeof cols);
    for (int c = 0; c < t->n_cols; c++) strcat(qs, c ? ", ?" : "?");
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO %s (%s) VALUES (%s)", t->name, cols, qs);
    s = tunedb_prepare(db, sql, &im.ins[i]);
  }
  if (s == VKML_OK) s = tunedb_prepare(db, "SELECT 1 FROM devices WHERE key = ?1", &im.has_device);
  if (s == VKML_OK)
    s = tunedb_prepare(db, "SELECT 1 FROM workloads WHERE key = ?1", &im.has_workload);
  int64_t before = 0, after = 0;
  if (s == VKML_OK) s = tunedb_begin(db);
  if (s == VKML_OK) {
    s = tunedb_count_records(db, &before);
    if (s == VKML_OK) s = import_lines(&im, f);
    if (s == VKML_OK) s = tunedb_count_records(db, &after);
    importer_finalize(&im);
    if (s == VKML_OK)
      s = tunedb_commit(db);
    else
      tunedb_rollback(db);
  }
  importer_finalize(&im);
  if (s == VKML_OK && n_added) *n_added = after - before;
  return s;
}
