/* Opening a schedule database: recognise it (application id, schema version),
 * create or migrate it in one transaction, WAL and a busy timeout so several
 * tuner processes can write one file, and the SQLite error mapping every
 * tunedb_*.c uses. Never alters a file it does not recognise as vkml's.
 *
 * Files beside the database: a writer works in WAL mode (a -wal and -shm
 * beside the file, owned by the writer) and the last writer to close
 * switches the file back to a rollback journal, which removes both. A
 * reader never creates a file: on a WAL file without both it reads the file
 * as immutable, so a read works on read-only media and another user's read
 * leaves nothing that would lock the owner out of writing. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tunedb/tunedb_internal.h"

enum { DEFAULT_BUSY_TIMEOUT_MS = 5000 };

vkml_status tunedb_sql_error(const tunedb *db, int rc, const char *what) {
  const char *path = db->path;
  const char *msg = db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return vkml_status_make(VKML_CODE_IO,
                            "%s: %s: database locked by another process past the %d ms "
                            "busy timeout",
                            path, what, db->busy_timeout_ms);
  case SQLITE_READONLY:
    return vkml_status_make(VKML_CODE_IO, "%s: %s: read-only file, cannot write", path, what);
  case SQLITE_CORRUPT:
    return vkml_status_make(VKML_CODE_CORRUPT, "%s: %s: corrupt database file (%s)", path,
                            what, msg);
  case SQLITE_CONSTRAINT:
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %s: %s", path, what, msg);
  case SQLITE_NOTADB:
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: not a vkml schedule database (not an SQLite file)", path);
  case SQLITE_NOMEM:
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: %s: out of memory", path, what);
  case SQLITE_FULL:
    return vkml_status_make(VKML_CODE_IO, "%s: %s: disk full", path, what);
  case SQLITE_CANTOPEN:
    return vkml_status_make(VKML_CODE_IO, "%s: %s: cannot open the file (%s)", path, what,
                            msg);
  default:
    return vkml_status_make(VKML_CODE_IO, "%s: %s: %s", path, what, msg);
  }
}

vkml_status tunedb_exec(tunedb *db, const char *sql, const char *what) {
  int rc = sqlite3_exec(db->db, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK ? VKML_OK : tunedb_sql_error(db, rc, what);
}

vkml_status tunedb_prepare(tunedb *db, const char *sql, sqlite3_stmt **out) {
  int rc = sqlite3_prepare_v2(db->db, sql, -1, out, NULL);
  return rc == SQLITE_OK ? VKML_OK : tunedb_sql_error(db, rc, "preparing a query");
}

vkml_status tunedb_begin(tunedb *db) {
  if (db->readonly)
    return vkml_status_make(VKML_CODE_IO, "%s: opened read-only, cannot write", db->path);
  return tunedb_exec(db, "BEGIN IMMEDIATE", "starting a write");
}

vkml_status tunedb_commit(tunedb *db) {
  vkml_status s = tunedb_exec(db, "COMMIT", "committing");
  if (s != VKML_OK) tunedb_rollback(db);
  return s;
}

void tunedb_rollback(tunedb *db) {
  if (!sqlite3_get_autocommit(db->db)) sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
}

static vkml_status pragma_int(tunedb *db, const char *sql, int64_t *out) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *out = sqlite3_column_int64(st, 0);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_OK ? VKML_OK : tunedb_sql_error(db, rc, "reading the header");
}

/* Application id, schema version, number of schema objects: one statement,
 * so one snapshot (read one by one, another process creating the schema in
 * between makes a half-read file look foreign). */
static vkml_status read_header(tunedb *db, int64_t *app_id, int64_t *version, int64_t *n_objects) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db->db,
                              "SELECT (SELECT application_id FROM pragma_application_id),"
                              " (SELECT user_version FROM pragma_user_version),"
                              " (SELECT count(*) FROM sqlite_master)",
                              -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *app_id = sqlite3_column_int64(st, 0);
    *version = sqlite3_column_int64(st, 1);
    *n_objects = sqlite3_column_int64(st, 2);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_OK ? VKML_OK : tunedb_sql_error(db, rc, "reading the header");
}

static vkml_status check_integrity(tunedb *db) {
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(db, "PRAGMA quick_check", &st));
  int rc = sqlite3_step(st);
  vkml_status s = VKML_OK;
  if (rc == SQLITE_ROW) {
    const char *r = (const char *)sqlite3_column_text(st, 0);
    if (!r || strcmp(r, "ok") != 0) {
      /* its report spans lines: one line, "; " between them */
      char msg[300];
      size_t n = 0;
      for (const char *p = r ? r : "?"; *p && n + 3 < sizeof msg; p++) {
        if (*p != '\n') msg[n++] = *p >= 0x20 ? *p : ' ';
        else if (p[1]) msg[n++] = ';', msg[n++] = ' ';
      }
      msg[n] = 0;
      s = vkml_status_make(VKML_CODE_CORRUPT, "%s: corrupt database file (integrity check: %s)",
                           db->path, msg);
    }
  } else {
    s = tunedb_sql_error(db, rc, "checking integrity");
  }
  sqlite3_finalize(st);
  return s;
}

/* Recognises the file; creates the schema in an empty one, migrates an older
 * one. The header is read again inside the write transaction: another
 * process may have created or migrated the file meanwhile. */
static vkml_status recognise(tunedb *db, bool create) {
  int64_t app_id, version, n_objects;
  VKML_RETURN_IF_ERROR(read_header(db, &app_id, &version, &n_objects));
  if (app_id == 0 && n_objects == 0) {
    if (!create || db->readonly)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "%s: not a vkml schedule database (an empty file)", db->path);
    VKML_RETURN_IF_ERROR(tunedb_begin(db));
    vkml_status s = read_header(db, &app_id, &version, &n_objects);
    if (s == VKML_OK && app_id == 0 && n_objects == 0) {
      s = tunedb_schema_create(db);
      if (s == VKML_OK) return tunedb_commit(db);
    }
    tunedb_rollback(db);
    if (s != VKML_OK) return s;
  }
  if (app_id != TUNEDB_APPLICATION_ID)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: not a vkml schedule database (a foreign SQLite file: "
                            "application id 0x%llx, %lld schema objects)",
                            db->path, (unsigned long long)app_id, (long long)n_objects);
  if (version > TUNEDB_SCHEMA_VERSION)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: schema version %lld is newer than this build knows (%d); "
                            "use a newer vkml",
                            db->path, (long long)version, TUNEDB_SCHEMA_VERSION);
  VKML_RETURN_IF_ERROR(check_integrity(db));
  if (version == TUNEDB_SCHEMA_VERSION) return VKML_OK;
  if (db->readonly)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: schema version %lld is older than this build's (%d); open "
                            "it for writing once to migrate it",
                            db->path, (long long)version, TUNEDB_SCHEMA_VERSION);
  VKML_RETURN_IF_ERROR(tunedb_begin(db));
  vkml_status s = pragma_int(db, "PRAGMA user_version", &version);
  if (s == VKML_OK && version < TUNEDB_SCHEMA_VERSION) s = tunedb_schema_migrate(db, (int)version);
  if (s != VKML_OK) {
    tunedb_rollback(db);
    return s;
  }
  return tunedb_commit(db);
}

/* WAL: readers never block the writer and a commit is one append; NORMAL
 * sync survives a killed process (a power cut may lose the last few
 * trials, which a resumed tuner simply measures again). Switching takes an
 * exclusive lock, and when several processes open a new file at once
 * SQLite may answer SQLITE_BUSY at once, without its busy handler (to
 * avoid a deadlock): retried here until the busy timeout. */
static vkml_status enable_wal(tunedb *db) {
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int rc = sqlite3_exec(db->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = (double)(now.tv_sec - t0.tv_sec) * 1e3 + (double)(now.tv_nsec - t0.tv_nsec) / 1e6;
    int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || ms > db->busy_timeout_ms)
      return tunedb_sql_error(db, rc, "switching to WAL");
    struct timespec pause = {0, 2 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  return tunedb_exec(db, "PRAGMA synchronous = NORMAL", "switching to WAL");
}

/* True when path is an SQLite file in WAL mode (header bytes 18 and 19 are
 * 2) without both its -wal and -shm: SQLite would create them to read it,
 * owned by the reader, or fail where it cannot. Without a -wal every
 * committed transaction is in the file itself. */
static bool wal_without_files(const char *path) {
  unsigned char h[20];
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = pread(fd, h, sizeof h, 0);
  close(fd);
  if (n != (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0 || h[18] != 2)
    return false;
  size_t len = strlen(path) + 5;
  char *side = malloc(len);
  if (!side) return true;
  struct stat st;
  snprintf(side, len, "%s-wal", path);
  bool both = stat(side, &st) == 0;
  snprintf(side, len, "%s-shm", path);
  both = both && stat(side, &st) == 0;
  free(side);
  return !both;
}

/* "file:" and path with every byte outside [A-Za-z0-9/._~-] %-escaped (so
 * '?', '#' and '%' are part of the name), then params. */
static vkml_status make_uri(const char *path, const char *params, char **out) {
  while (path[0] == '/' && path[1] == '/') path++; /* "file://" would start an authority */
  size_t n = strlen(path);
  char *u = malloc(5 + 3 * n + strlen(params) + 1), *o = u;
  if (!u) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
  o += sprintf(o, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/._~-", *p))
      *o++ = (char)*p;
    else
      o += sprintf(o, "%%%02X", *p);
  }
  strcpy(o, params);
  *out = u;
  return VKML_OK;
}

vkml_status tunedb_read_uri(const char *path, char **out) {
  return make_uri(path, wal_without_files(path) ? "?mode=ro&immutable=1" : "?mode=ro", out);
}

vkml_status tunedb_open(const char *path, const tunedb_open_opts *opts, tunedb **out) {
  *out = NULL;
  tunedb_open_opts o = opts ? *opts : (tunedb_open_opts){0};
  if (o.busy_timeout_ms <= 0) o.busy_timeout_ms = DEFAULT_BUSY_TIMEOUT_MS;
  bool create = o.flags & TUNEDB_OPEN_CREATE;
  bool readonly = o.flags & TUNEDB_OPEN_READONLY;
  bool memory = strcmp(path, ":memory:") == 0;
  struct stat st;
  bool exists = !memory && stat(path, &st) == 0;
  if (!memory && !create && !exists)
    return vkml_status_make(VKML_CODE_IO, "%s: no such file", path);
  /* SQLite would block on a FIFO's read, or read a device */
  if (exists && !S_ISREG(st.st_mode))
    return vkml_status_make(VKML_CODE_IO, "%s: not a regular file", path);

  tunedb *db = calloc(1, sizeof *db);
  if (!db || !(db->path = strdup(path))) {
    free(db);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  db->busy_timeout_ms = o.busy_timeout_ms;
  db->readonly = readonly;
  int flags = readonly ? SQLITE_OPEN_READONLY
                       : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  /* a URI always (ATTACH takes one only on a connection opened with one) */
  char *uri = NULL;
  vkml_status s = memory     ? VKML_OK
                  : readonly ? tunedb_read_uri(path, &uri)
                             : make_uri(path, "", &uri);
  if (s != VKML_OK) {
    tunedb_close(db);
    return s;
  }
  int rc = sqlite3_open_v2(uri ? uri : path, &db->db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
                           NULL);
  free(uri);
  if (rc != SQLITE_OK) {
    s = tunedb_sql_error(db, rc, "opening");
    goto out;
  }
  sqlite3_extended_result_codes(db->db, 1);
  sqlite3_busy_timeout(db->db, o.busy_timeout_ms);
  /* SQLite silently opens a write-protected file read-only: say so now rather
   * than at the first trial. */
  if (!readonly && sqlite3_db_readonly(db->db, "main") == 1) {
    s = vkml_status_make(VKML_CODE_IO, "%s: read-only file, cannot write", path);
    goto out;
  }
  s = recognise(db, create);
  if (s != VKML_OK) goto out;
  if (!readonly && !memory) {
    s = enable_wal(db);
    if (s != VKML_OK) goto out;
    db->wal = true;
  }
  s = tunedb_exec(db, "PRAGMA foreign_keys = ON", "opening");
out:
  if (s != VKML_OK) {
    tunedb_close(db);
    return s;
  }
  *out = db;
  return VKML_OK;
}

void tunedb_close(tunedb *db) {
  if (!db) return;
  /* The last writer out checkpoints and leaves one self-contained file (no
   * -wal or -shm of this user's that another user's writer could not open).
   * While another connection has the file open the switch fails at once, and
   * the last of them does it. */
  if (db->wal) {
    sqlite3_busy_timeout(db->db, 0);
    sqlite3_exec(db->db, "PRAGMA main.journal_mode = DELETE", NULL, NULL, NULL);
  }
  sqlite3_close_v2(db->db);
  free(db->path);
  free(db);
}

const char *tunedb_path(const tunedb *db) { return db->path; }
