/* The schema of a vkml schedule database and its migrations. Each version
 * is one PRAGMA user_version; the application id marks the file as ours.
 * Both functions run inside the caller's write transaction, so a failed
 * migration leaves the file as it was. */
#include <stdio.h>

#include "tunedb/tunedb_internal.h"

/* Per device x workload, the fastest point, each point (template, schedule)
 * timed by its latest record: a confirmation (the point measured again
 * against the default, after the walk) replaces the trial it re-measured,
 * and a point whose latest record failed or was wrong is out. Ties go to the
 * earlier row. */
#define BEST_VIEW_SQL                                                             \
  "CREATE VIEW best AS SELECT " TUNEDB_RECORD_COLUMNS " FROM ("                  \
  " SELECT p.*, row_number() OVER (PARTITION BY device, workload"                \
  "   ORDER BY median_ns, id) AS rank_ FROM ("                                   \
  "  SELECT r.*, row_number() OVER (PARTITION BY device, workload, template,"    \
  "    schedule ORDER BY timestamp_us DESC, id DESC) AS latest_ FROM records r)" \
  " p WHERE latest_ = 1 AND correct = 1 AND failed = 0 AND median_ns IS NOT NULL)" \
  " WHERE rank_ = 1;"

static const char schema_v3[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE devices("
    " key TEXT PRIMARY KEY,"
    " vendor_id INTEGER NOT NULL, device_id INTEGER NOT NULL,"
    " driver_version INTEGER NOT NULL, driver_id INTEGER NOT NULL,"
    " name TEXT NOT NULL, api_version INTEGER NOT NULL,"
    " pipeline_cache_uuid TEXT NOT NULL, limits TEXT NOT NULL DEFAULT '{}');"
    "CREATE TABLE workloads("
    " key TEXT PRIMARY KEY, op TEXT NOT NULL, description TEXT NOT NULL DEFAULT '{}');"
    "CREATE TABLE records("
    " id INTEGER PRIMARY KEY,"
    " device TEXT NOT NULL REFERENCES devices(key),"
    " workload TEXT NOT NULL REFERENCES workloads(key),"
    " template TEXT NOT NULL, schedule TEXT NOT NULL,"
    " median_ns REAL, spread_ns REAL, runs INTEGER NOT NULL DEFAULT 0,"
    " correct INTEGER NOT NULL DEFAULT 0,"
    " tool_version TEXT NOT NULL, timestamp_us INTEGER NOT NULL,"
    " failed INTEGER NOT NULL DEFAULT 0, message TEXT,"
    " confirmation INTEGER NOT NULL DEFAULT 0,"
    /* the natural key: merge and import skip what is already here */
    " UNIQUE(device, workload, template, schedule, timestamp_us, tool_version));"
    "CREATE INDEX records_workload ON records(workload, device);"
    BEST_VIEW_SQL;

vkml_status tunedb_schema_create(tunedb *db) {
  VKML_RETURN_IF_ERROR(tunedb_exec(db, schema_v3, "creating the schema"));
  char sql[160];
  snprintf(sql, sizeof sql,
           "PRAGMA application_id = %d; PRAGMA user_version = %d;"
           "INSERT INTO meta VALUES ('schema_version', '%d');",
           TUNEDB_APPLICATION_ID, TUNEDB_SCHEMA_VERSION, TUNEDB_SCHEMA_VERSION);
  return tunedb_exec(db, sql, "creating the schema");
}

/* v1 -> v2: failed trials are kept (flagged, with their message) instead of
 * being stored as incorrect; the best view must skip them. Always followed
 * by v2 -> v3, which makes the view. */
static const char migrate_v1_v2[] =
    "ALTER TABLE records ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE records ADD COLUMN message TEXT;"
    "DROP VIEW IF EXISTS best;" /* made again by v2 -> v3 */
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT OR REPLACE INTO meta VALUES ('schema_version', '2');"
    "PRAGMA user_version = 2;";

/* v2 -> v3: confirmation records (the walk's best measured again against
 * the default); the best view times each point by its latest record. */
static const char migrate_v2_v3[] =
    "ALTER TABLE records ADD COLUMN confirmation INTEGER NOT NULL DEFAULT 0;"
    "DROP VIEW IF EXISTS best;" BEST_VIEW_SQL
    "INSERT OR REPLACE INTO meta VALUES ('schema_version', '3');"
    "PRAGMA user_version = 3;";

vkml_status tunedb_schema_migrate(tunedb *db, int from_version) {
  if (from_version < 1)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: schema version %d is not one vkml wrote",
                            db->path, from_version);
  if (from_version < 2)
    VKML_RETURN_IF_ERROR(tunedb_exec(db, migrate_v1_v2, "migrating schema v1 to v2"));
  if (from_version < 3)
    VKML_RETURN_IF_ERROR(tunedb_exec(db, migrate_v2_v3, "migrating schema v2 to v3"));
  return VKML_OK;
}
