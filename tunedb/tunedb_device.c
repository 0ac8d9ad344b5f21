/* Device identity: the canonical key, the family rule, storing and listing
 * devices. The caller fills tunedb_device from Vulkan; nothing here talks
 * to a device. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb_internal.h"

void tunedb_device_key(const tunedb_device *dev, char *key) {
  snprintf(key, TUNEDB_DEVICE_KEY_BYTES, "%04x:%04x:%x:%08x", dev->vendor_id, dev->device_id,
           dev->driver_id, dev->driver_version);
}

/* Length of the name up to its first digit: the product line without the
 * model number ("NVIDIA H", "AMD Radeon RX "). */
static size_t name_prefix_len(const char *name) {
  size_t n = 0;
  while (name[n] && !isdigit((unsigned char)name[n])) n++;
  return n;
}

bool tunedb_device_same_family(const tunedb_device *a, const tunedb_device *b) {
  if (a->vendor_id != b->vendor_id) return false;
  if ((a->device_id >> 8) == (b->device_id >> 8)) return true;
  size_t la = name_prefix_len(a->name), lb = name_prefix_len(b->name);
  return la >= 4 && la == lb && memcmp(a->name, b->name, la) == 0;
}

const char *tunedb_vendor_name(uint32_t vendor_id) {
  static const struct {
    uint32_t id;
    const char *name;
  } vendors[] = {
      {0x1002, "AMD"},      {0x1010, "Imagination"}, {0x106b, "Apple"},
      {0x10de, "NVIDIA"},   {0x13b5, "Arm"},         {0x1414, "Microsoft"},
      {0x14e4, "Broadcom"}, {0x5143, "Qualcomm"},    {0x8086, "Intel"},
      /* VkVendorId: vendors without a PCI id */
      {0x10001, "Vivante"}, {0x10002, "VeriSilicon"}, {0x10003, "Kazan"},
      {0x10004, "Codeplay"}, {0x10005, "Mesa"},       {0x10006, "PoCL"},
      {0x10007, "Mobileye"},
  };
  for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
    if (vendors[i].id == vendor_id) return vendors[i].name;
  return NULL;
}

static void uuid_hex(const uint8_t *u, char *out) {
  for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", u[i]);
}

static void uuid_parse(const char *hex, uint8_t *u) {
  memset(u, 0, 16);
  for (int i = 0; hex && i < 16 && hex[2 * i] && hex[2 * i + 1]; i++) {
    char b[3] = {hex[2 * i], hex[2 * i + 1], 0};
    u[i] = (uint8_t)strtoul(b, NULL, 16);
  }
}

vkml_status tunedb_device_put(tunedb *db, const tunedb_device *dev) {
  char key[TUNEDB_DEVICE_KEY_BYTES], uuid[33];
  tunedb_device_key(dev, key);
  uuid_hex(dev->pipeline_cache_uuid, uuid);
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(
      db,
      "INSERT INTO devices VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
      "ON CONFLICT(key) DO UPDATE SET name = ?6, api_version = ?7, "
      "pipeline_cache_uuid = ?8, limits = ?9",
      &st));
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 2, dev->vendor_id);
  sqlite3_bind_int64(st, 3, dev->device_id);
  sqlite3_bind_int64(st, 4, dev->driver_version);
  sqlite3_bind_int64(st, 5, dev->driver_id);
  sqlite3_bind_text(st, 6, dev->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 7, dev->api_version);
  sqlite3_bind_text(st, 8, uuid, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 9, dev->limits_json ? dev->limits_json : "{}", -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? VKML_OK : tunedb_sql_error(db, rc, "storing a device");
}

void tunedb_device_list_free(tunedb_device_list *l) {
  for (size_t i = 0; i < l->n; i++) free((char *)l->items[i].dev.limits_json);
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

/* Reads columns first..first+8 (devices' own order) into dev. */
static void device_from_row(sqlite3_stmt *st, int first, tunedb_device *dev, char *key,
                            bool *oom) {
  const char *k = (const char *)sqlite3_column_text(st, first);
  snprintf(key, TUNEDB_DEVICE_KEY_BYTES, "%s", k ? k : "");
  dev->vendor_id = (uint32_t)sqlite3_column_int64(st, first + 1);
  dev->device_id = (uint32_t)sqlite3_column_int64(st, first + 2);
  dev->driver_version = (uint32_t)sqlite3_column_int64(st, first + 3);
  dev->driver_id = (uint32_t)sqlite3_column_int64(st, first + 4);
  const char *name = (const char *)sqlite3_column_text(st, first + 5);
  snprintf(dev->name, sizeof dev->name, "%s", name ? name : "");
  dev->api_version = (uint32_t)sqlite3_column_int64(st, first + 6);
  uuid_parse((const char *)sqlite3_column_text(st, first + 7), dev->pipeline_cache_uuid);
  dev->limits_json = tunedb_col_strdup(st, first + 8, oom);
}

vkml_status tunedb_devices_list(tunedb *db, tunedb_device_list *out) {
  *out = (tunedb_device_list){0};
  sqlite3_stmt *st = NULL;
  VKML_RETURN_IF_ERROR(tunedb_prepare(
      db,
      "SELECT d.*, (SELECT count(*) FROM records r WHERE r.device = d.key AND r.confirmation = 0),"
      " (SELECT count(*) FROM best b WHERE b.device = d.key),"
      " (SELECT count(*) FROM records r WHERE r.device = d.key AND r.confirmation != 0)"
      " FROM devices d ORDER BY d.key",
      &st));
  size_t cap = 0;
  bool oom = false;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (out->n == cap) {
      cap = cap ? 2 * cap : 8;
      tunedb_device_info *p = realloc(out->items, cap * sizeof *p);
      if (!p) {
        oom = true;
        break;
      }
      out->items = p;
    }
    tunedb_device_info *d = &out->items[out->n++];
    memset(d, 0, sizeof *d);
    device_from_row(st, 0, &d->dev, d->key, &oom);
    d->n_records = sqlite3_column_int64(st, 9);
    d->n_workloads = sqlite3_column_int64(st, 10);
    d->n_confirmations = sqlite3_column_int64(st, 11);
  }
  sqlite3_finalize(st);
  vkml_status s = VKML_OK;
  if (oom)
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory listing devices", db->path);
  else if (rc != SQLITE_DONE)
    s = tunedb_sql_error(db, rc, "listing devices");
  if (s != VKML_OK) tunedb_device_list_free(out);
  return s;
}
