/* What the tunedb_*.c files share: the handle and SQLite error mapping. Not
 * installed; nothing outside tunedb/ includes it. */
#ifndef TUNEDB_INTERNAL_H
#define TUNEDB_INTERNAL_H

#include <sqlite3.h>

#include "tunedb/tunedb.h"

struct tunedb {
  sqlite3 *db;
  char *path;          /* owned; for messages */
  int busy_timeout_ms;
  bool readonly;
  bool wal; /* this handle switched the file to WAL: tunedb_close switches it back */
};

/* path as an SQLite URI for reading (mode=ro, and immutable=1 where reading
 * it as it is would create a -wal and -shm beside it: tunedb_open.c);
 * *out is malloc'd. */
vkml_status tunedb_read_uri(const char *path, char **out);

/* A status naming the file, what was being done and why it failed, from an
 * SQLite result code (locked, read-only, corrupt, not a database, ...). */
vkml_status tunedb_sql_error(const tunedb *db, int rc, const char *what);
/* Runs SQL without results. */
vkml_status tunedb_exec(tunedb *db, const char *sql, const char *what);
vkml_status tunedb_prepare(tunedb *db, const char *sql, sqlite3_stmt **out);
/* BEGIN IMMEDIATE (takes the write lock up front, so the busy timeout
 * applies there rather than failing half-way), COMMIT, ROLLBACK. */
vkml_status tunedb_begin(tunedb *db);
vkml_status tunedb_commit(tunedb *db);
void tunedb_rollback(tunedb *db);
/* strdup of a column; NULL for SQL NULL. Sets *oom when allocation fails. */
char *tunedb_col_strdup(sqlite3_stmt *st, int col, bool *oom);
/* Reads a row of the TUNEDB_RECORD_COLUMNS select into r (strings owned). */
void tunedb_record_from_row(sqlite3_stmt *st, tunedb_record *r, bool *oom);
/* Steps st to the end, appending records to out. */
vkml_status tunedb_records_collect(tunedb *db, sqlite3_stmt *st, tunedb_record_list *out);
/* Frees the strings of one record read from the database. */
void tunedb_record_clear(tunedb_record *r);

#define TUNEDB_RECORD_COLUMNS                                                       \
  "id, device, workload, template, schedule, median_ns, spread_ns, runs, correct, " \
  "failed, message, tool_version, timestamp_us, confirmation"

/* Number of rows in main.records. */
vkml_status tunedb_count_records(tunedb *db, int64_t *out);

/* Schema (tunedb_schema.c): create the current one, or migrate from an older
 * version; both inside the caller's transaction. */
vkml_status tunedb_schema_create(tunedb *db);
vkml_status tunedb_schema_migrate(tunedb *db, int from_version);

#endif
