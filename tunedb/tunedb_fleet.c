/* Fleet queries over one database (vkdb merges several into one first):
 * coverage, device comparison, merging another file in. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tunedb/tunedb_internal.h"
#include "tunedb/tunedb_valid.h"

static vkml_status oom(const tunedb *db) {
  return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", db->path);
}

void tunedb_coverage_free(tunedb_coverage *c) {
  for (size_t i = 0; i < c->n; i++) {
    free((char *)c->rows[i].workload_key);
    tunedb_strings_free(c->rows[i].device_keys, c->rows[i].n_devices);
  }
  free(c->rows);
  *c = (tunedb_coverage){0};
}

vkml_status tunedb_coverage_get(tunedb *db, const char *const *workload_keys, size_t n_keys,
                                tunedb_coverage *out) {
  *out = (tunedb_coverage){0};
  if (n_keys && !(out->rows = calloc(n_keys, sizeof *out->rows))) return oom(db);
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(
      tunedb_prepare(db, "SELECT device FROM best WHERE workload = ?1 ORDER BY device", &st));
  vkml_status s = VKML_OK;
  for (size_t i = 0; i < n_keys && s == VKML_OK; i++) {
    tunedb_coverage_row *row = &out->rows[out->n++];
    bool no_mem = !(row->workload_key = strdup(workload_keys[i]));
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, workload_keys[i], -1, SQLITE_TRANSIENT);
    size_t cap = 0;
    int rc = SQLITE_OK;
    while (!no_mem && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (row->n_devices == cap) {
        cap = cap ? 2 * cap : 4;
        char **p = realloc(row->device_keys, cap * sizeof *p);
        if (!p) {
          no_mem = true;
          break;
        }
        row->device_keys = p;
      }
      row->device_keys[row->n_devices] = tunedb_col_strdup(st, 0, &no_mem);
      if (!no_mem) row->n_devices++;
    }
    if (no_mem)
      s = oom(db);
    else if (rc != SQLITE_DONE)
      s = tunedb_sql_error(db, rc, "reading coverage");
  }
  sqlite3_finalize(st);
  if (s != VKML_OK) tunedb_coverage_free(out);
  return s;
}

void tunedb_compare_free(tunedb_compare *c) {
  for (size_t i = 0; i < c->n; i++) free((char *)c->rows[i].workload_key);
  free(c->rows);
  *c = (tunedb_compare){0};
}

vkml_status tunedb_compare_get(tunedb *db, const char *device_a, const char *device_b,
                               tunedb_compare *out) {
  *out = (tunedb_compare){0};
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(
      db,
      "SELECT a.workload, a.median_ns, b.median_ns FROM best a JOIN best b"
      " ON a.workload = b.workload WHERE a.device = ?1 AND b.device = ?2 ORDER BY a.workload",
      &st));
  sqlite3_bind_text(st, 1, device_a, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, device_b, -1, SQLITE_TRANSIENT);
  size_t cap = 0;
  bool no_mem = false;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (out->n == cap) {
      cap = cap ? 2 * cap : 16;
      tunedb_compare_row *p = realloc(out->rows, cap * sizeof *p);
      if (!p) {
        no_mem = true;
        break;
      }
      out->rows = p;
    }
    tunedb_compare_row *r = &out->rows[out->n];
    r->workload_key = tunedb_col_strdup(st, 0, &no_mem);
    if (no_mem) break;
    r->best_a_ns = sqlite3_column_double(st, 1);
    r->best_b_ns = sqlite3_column_double(st, 2);
    out->n++;
  }
  sqlite3_finalize(st);
  vkml_status s = VKML_OK;
  if (no_mem)
    s = oom(db);
  else if (rc != SQLITE_DONE)
    s = tunedb_sql_error(db, rc, "comparing devices");
  if (s != VKML_OK) tunedb_compare_free(out);
  return s;
}

/* Copies src's rows into main; records by their natural key (the UNIQUE
 * constraint), in src's measurement order so the tuning curves survive. */
static const char merge_sql[] =
    "INSERT OR IGNORE INTO main.devices SELECT * FROM src.devices;"
    "INSERT OR IGNORE INTO main.workloads SELECT * FROM src.workloads;"
    "INSERT OR IGNORE INTO main.records (device, workload, template, schedule, median_ns,"
    " spread_ns, runs, correct, failed, message, tool_version, timestamp_us, confirmation)"
    " SELECT device, workload, template, schedule, median_ns, spread_ns, runs, correct,"
    " failed, message, tool_version, timestamp_us, confirmation FROM src.records"
    " ORDER BY timestamp_us, id;";

/* True when a and b name one file (merging a file into itself is a no-op;
 * attaching it to itself would wait on its own lock). */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

vkml_status tunedb_merge(tunedb *db, const char *src_path, int64_t *n_added) {
  if (n_added) *n_added = 0;
  if (same_file(db->path, src_path)) return VKML_OK;
  /* Opening src on its own first checks it is a vkml database of this
   * schema version, not corrupt, before anything is copied. */
  tunedb *src = NULL;
  tunedb_open_opts o = {.flags = TUNEDB_OPEN_READONLY, .busy_timeout_ms = db->busy_timeout_ms};
  VKML_RETURN_IF_ERROR(tunedb_open(src_path, &o, &src));
  tunedb_close(src);

  /* read-only, creating no file beside it (tunedb_read_uri) */
  char *uri = NULL;
  VKML_RETURN_IF_ERROR(tunedb_read_uri(src_path, &uri));
  sqlite3_stmt *st = NULL;
  vkml_status ps = tunedb_prepare(db, "ATTACH DATABASE ?1 AS src", &st);
  if (ps != VKML_OK) {
    free(uri);
    return ps;
  }
  sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
  free(uri);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return tunedb_sql_error(db, rc, "attaching the source");
  int64_t before = 0, after = 0;
  vkml_status s = tunedb_begin(db);
  if (s == VKML_OK) {
    s = tunedb_count_records(db, &before);
    if (s == VKML_OK) s = tunedb_exec(db, merge_sql, "merging");
    if (s == VKML_OK) s = tunedb_count_records(db, &after);
    if (s == VKML_OK) s = tunedb_commit(db);
    else tunedb_rollback(db);
  }
  if (s == VKML_OK && n_added) *n_added = after - before;
  sqlite3_exec(db->db, "DETACH DATABASE src", NULL, NULL, NULL);
  if (s != VKML_OK) return vkml_status_annotate(s, "merging %s", src_path);
  return VKML_OK;
}

/* Copies the rows of table t from src into db (a transaction of db's). */
static vkml_status copy_table(tunedb *db, tunedb *src, const tunedb_table *t) {
  char cols[512] = "", qs[128] = "", sql[800];
  size_t len = 0;
  for (int i = 0; i < t->n_cols; i++) {
    len += (size_t)snprintf(cols + len, sizeof cols - len, "%s%s", i ? ", " : "", t->cols[i].name);
    strcat(qs, i ? ", ?" : "?");
  }
  sqlite3_stmt *sel = NULL, *ins = NULL;
  snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY %s", cols, t->name, t->order);
  VKML_RETURN_IF_ERROR(tunedb_prepare(src, sql, &sel));
  snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO %s (%s) VALUES (%s)", t->name, cols, qs);
  vkml_status s = tunedb_prepare(db, sql, &ins);
  int rc = SQLITE_OK;
  while (s == VKML_OK && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
    sqlite3_reset(ins);
    for (int i = 0; i < t->n_cols; i++)
      sqlite3_bind_value(ins, i + 1, sqlite3_column_value(sel, i));
    int irc = sqlite3_step(ins);
    if (irc != SQLITE_DONE) s = tunedb_sql_error(db, irc, "merging");
  }
  if (s == VKML_OK && rc != SQLITE_DONE) s = tunedb_sql_error(src, rc, "reading");
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  return s;
}

vkml_status tunedb_merge_from(tunedb *db, tunedb *src, int64_t *n_added) {
  if (n_added) *n_added = 0;
  int64_t before = 0, after = 0;
  VKML_RETURN_IF_ERROR(tunedb_begin(db));
  vkml_status s = tunedb_count_records(db, &before);
  for (int i = 0; i < TUNEDB_N_TABLES && s == VKML_OK; i++)
    s = copy_table(db, src, &tunedb_tables[i]);
  if (s == VKML_OK) s = tunedb_count_records(db, &after);
  if (s == VKML_OK) s = tunedb_commit(db);
  else tunedb_rollback(db);
  if (s == VKML_OK && n_added) *n_added = after - before;
  return s;
}
