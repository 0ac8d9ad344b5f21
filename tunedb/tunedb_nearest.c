/* Nearest-device lookup: which device's best record a device without its
 * own should start from (tunedb.h, tunedb_nearest_best, states the order). */
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb_internal.h"

const char *tunedb_nearness_name(tunedb_nearness n) {
  switch (n) {
  case TUNEDB_NEAR_EXACT: return "exact";
  case TUNEDB_NEAR_OTHER_DRIVER: return "other driver";
  case TUNEDB_NEAR_FAMILY: return "same family";
  default: return "none";
  }
}

static uint32_t absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

/* Smaller is nearer: tier, then the distance within the tier. */
typedef struct rank {
  tunedb_nearness tier;
  int sub;           /* family: 0 same device-id high byte, 1 same name prefix */
  uint32_t distance; /* driver versions or device ids apart */
} rank;

static bool rank_of(const tunedb_device *want, const tunedb_device *have, rank *r) {
  if (want->vendor_id == have->vendor_id && want->device_id == have->device_id) {
    if (want->driver_version == have->driver_version && want->driver_id == have->driver_id)
      *r = (rank){TUNEDB_NEAR_EXACT, 0, 0};
    else
      *r = (rank){TUNEDB_NEAR_OTHER_DRIVER, want->driver_id != have->driver_id,
                  absdiff(want->driver_version, have->driver_version)};
    return true;
  }
  if (!tunedb_device_same_family(want, have)) return false;
  *r = (rank){TUNEDB_NEAR_FAMILY, (want->device_id >> 8) != (have->device_id >> 8),
              absdiff(want->device_id, have->device_id)};
  return true;
}

static bool rank_less(rank a, rank b) {
  if (a.tier != b.tier) return a.tier < b.tier;
  if (a.sub != b.sub) return a.sub < b.sub;
  return a.distance < b.distance;
}

vkml_status tunedb_nearest_best(tunedb *db, const tunedb_device *dev, const char *workload_key,
                                tunedb_nearness *how, tunedb_record_list *out) {
  *how = TUNEDB_NEAR_NONE;
  *out = (tunedb_record_list){0};
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(
      db,
      "SELECT d.key, d.vendor_id, d.device_id, d.driver_version, d.driver_id, d.name"
      " FROM best b JOIN devices d ON d.key = b.device WHERE b.workload = ?1 ORDER BY d.key",
      &st));
  sqlite3_bind_text(st, 1, workload_key, -1, SQLITE_TRANSIENT);
  char best_key[TUNEDB_DEVICE_KEY_BYTES] = "";
  rank best = {0};
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    tunedb_device have = {0};
    have.vendor_id = (uint32_t)sqlite3_column_int64(st, 1);
    have.device_id = (uint32_t)sqlite3_column_int64(st, 2);
    have.driver_version = (uint32_t)sqlite3_column_int64(st, 3);
    have.driver_id = (uint32_t)sqlite3_column_int64(st, 4);
    const char *name = (const char *)sqlite3_column_text(st, 5);
    snprintf(have.name, sizeof have.name, "%s", name ? name : "");
    rank r;
    if (!rank_of(dev, &have, &r)) continue;
    if (!best_key[0] || rank_less(r, best)) {
      best = r;
      snprintf(best_key, sizeof best_key, "%s", (const char *)sqlite3_column_text(st, 0));
    }
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return tunedb_sql_error(db, rc, "looking up the nearest device");
  if (!best_key[0]) return VKML_OK;
  VKML_RETURN_IF_ERROR(tunedb_best_get(db, best_key, workload_key, out));
  *how = best.tier;
  return VKML_OK;
}
