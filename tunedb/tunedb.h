/* tunedb: the per-device SQLite schedule database (tunedb/README.md: Schedule
 * database). Devices, workloads, every tuning trial (records), a `best` view,
 * and the fleet queries vkdb needs. Uses sqlite3 and libc only: the caller
 * fills tunedb_device from the runtime's Vulkan properties and passes the
 * workload keys codegen makes; tunedb stores both verbatim.
 *
 * Ownership: a tunedb handle is freed with tunedb_close. Every *_list filled
 * by a query owns all the strings its items point to and is freed with its
 * *_free function (safe on a zeroed list). Input structs are only borrowed. */
#ifndef TUNEDB_TUNEDB_H
#define TUNEDB_TUNEDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vkml_status.h"

/* 'VKDB': PRAGMA application_id of every vkml schedule database, so a
 * foreign SQLite file is recognised. */
#define TUNEDB_APPLICATION_ID 0x564B4442
/* PRAGMA user_version this build writes. v1: records without failed/message;
 * v2: records.failed + records.message (a failed trial is kept, flagged);
 * v3: records.confirmation (a point measured again after the walk; the best
 * view times each point by its latest record). */
#define TUNEDB_SCHEMA_VERSION 3

typedef struct tunedb tunedb;

enum {
  TUNEDB_OPEN_CREATE = 1,   /* create the file (and schema) when missing */
  TUNEDB_OPEN_READONLY = 2, /* never write; an older schema is refused */
};

/* Valid when zeroed. */
typedef struct tunedb_open_opts {
  int flags;           /* TUNEDB_OPEN_* */
  int busy_timeout_ms; /* how long a writer waits for another; 0: 5000 */
} tunedb_open_opts;

/* Opens (or creates) path: checks it is a vkml database of a schema version
 * this build knows, migrates an older one (in one transaction), switches to
 * WAL. Errors name the file and the reason: not SQLite, a foreign SQLite
 * file, a newer schema, read-only, locked, corrupt. *out is freed with
 * tunedb_close. path ":memory:" gives a private in-memory database. */
vkml_status tunedb_open(const char *path, const tunedb_open_opts *opts, tunedb **out);
void tunedb_close(tunedb *db);
const char *tunedb_path(const tunedb *db);

/* ---- devices (tunedb_device.c) ---- */

/* A device as Vulkan describes it; the caller fills it. */
typedef struct tunedb_device {
  uint32_t vendor_id, device_id;
  uint32_t driver_version; /* vendor-encoded, as Vulkan reports it */
  uint32_t driver_id;      /* VkDriverId; 0 if unknown */
  uint32_t api_version;
  char name[256];
  uint8_t pipeline_cache_uuid[16];
  const char *limits_json; /* key limits as a JSON object; NULL: "{}".
                              Borrowed on input; owned by the list on output */
} tunedb_device;

/* The canonical device key "vendor:device:driverid:driverversion" in hex
 * (e.g. "10de:2335:5:8f1c8000"): the same on every machine with the same
 * device and driver. key must hold TUNEDB_DEVICE_KEY_BYTES. */
#define TUNEDB_DEVICE_KEY_BYTES 48
void tunedb_device_key(const tunedb_device *dev, char *key);

/* True when a and b are of one architecture family: the same vendor id and
 * either the same device-id high byte (device_id >> 8: PCI ids of one
 * generation are allocated in blocks) or the same name prefix up to the
 * first digit, at least 4 characters ("NVIDIA H" for H100 and H200). */
bool tunedb_device_same_family(const tunedb_device *a, const tunedb_device *b);

/* The vendor of a PCI or Khronos vendor id ("NVIDIA", "AMD", "Intel",
 * "Mesa", ...), NULL when unknown: a device stored without a name is
 * still told apart. */
const char *tunedb_vendor_name(uint32_t vendor_id);

/* Inserts or updates (name, limits, UUID, API version) the device. */
vkml_status tunedb_device_put(tunedb *db, const tunedb_device *dev);

typedef struct tunedb_device_info {
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device dev;    /* limits_json owned by the list */
  int64_t n_records;       /* every trial on this device (not the confirmations) */
  int64_t n_confirmations; /* confirmation records: n_records + n_confirmations rows */
  int64_t n_workloads;     /* workloads with a best (correct) record */
} tunedb_device_info;
typedef struct tunedb_device_list {
  tunedb_device_info *items;
  size_t n;
} tunedb_device_list;
/* Every device, ordered by key. */
vkml_status tunedb_devices_list(tunedb *db, tunedb_device_list *out);
void tunedb_device_list_free(tunedb_device_list *l);

/* ---- workloads and records (tunedb_record.c) ---- */

/* Stores (key, op, description JSON) verbatim; an existing key is kept. */
vkml_status tunedb_workload_put(tunedb *db, const char *key, const char *op,
                                const char *description_json);

/* One trial. On input every string is borrowed; on output (a list) owned by
 * the list. */
typedef struct tunedb_record {
  int64_t id;               /* row id in its file; ignored on input */
  const char *device_key;
  const char *workload_key;
  const char *template_name;
  const char *schedule;     /* the schedule text, compared verbatim */
  double median_ns, spread_ns;
  int64_t runs;             /* timed dispatches behind the median */
  bool correct;             /* output matched the CPU reference */
  bool failed;              /* did not compile or run; message says why */
  const char *message;      /* NULL unless failed */
  const char *tool_version;
  int64_t timestamp_us;     /* Unix time; 0 on input: now */
  /* not a trial of the walk: the point measured again against the default
   * after it (vktune's confirmation); it replaces the point's earlier
   * records in the best view */
  bool confirmation;
} tunedb_record;

typedef struct tunedb_record_list {
  tunedb_record *items;
  size_t n;
} tunedb_record_list;
void tunedb_record_list_free(tunedb_record_list *l);

/* Stores one trial and commits it before returning (a killed tuner loses
 * nothing it was told is stored). The device and workload must have been
 * put. A record equal to a stored one in (device, workload, template,
 * schedule, timestamp, tool version) is not stored twice. */
vkml_status tunedb_record_put(tunedb *db, const tunedb_record *r);

/* The fastest correct, non-failed record of (device, workload); out->n is 0
 * when there is none. */
vkml_status tunedb_best_get(tunedb *db, const char *device_key, const char *workload_key,
                            tunedb_record_list *out);
/* The best record of workload_key on every device, ordered by device key. */
vkml_status tunedb_best_all(tunedb *db, const char *workload_key, tunedb_record_list *out);
/* Every record of workload_key (device_key NULL: on every device), in the
 * order they were measured (timestamp, then row id). */
vkml_status tunedb_records_get(tunedb *db, const char *device_key, const char *workload_key,
                               tunedb_record_list *out);
/* Every record, in measurement order. */
vkml_status tunedb_records_all(tunedb *db, tunedb_record_list *out);
/* The latest stored trial (not confirmation) of (device, workload,
 * template, schedule), so a resumed tuner does not measure it again and its
 * walk sees the costs the first run saw; out->n is 0 when none. */
vkml_status tunedb_trial_find(tunedb *db, const char *device_key, const char *workload_key,
                              const char *template_name, const char *schedule,
                              tunedb_record_list *out);
/* Every distinct workload key with at least one record, sorted. */
vkml_status tunedb_workload_keys(tunedb *db, char ***out_keys, size_t *out_n);
void tunedb_strings_free(char **s, size_t n);

/* ---- nearest device (tunedb_nearest.c) ---- */

typedef enum tunedb_nearness {
  TUNEDB_NEAR_NONE = 0,
  TUNEDB_NEAR_EXACT,        /* this very device and driver */
  TUNEDB_NEAR_OTHER_DRIVER, /* same vendor and device id, another driver */
  TUNEDB_NEAR_FAMILY,       /* tunedb_device_same_family */
} tunedb_nearness;
const char *tunedb_nearness_name(tunedb_nearness n);

/* The best record for workload_key on the device nearest dev that has one:
 * exact, else the same device with the closest driver version, else a device
 * of the same family (same device-id high byte before same name prefix, then
 * the smallest device-id distance), else none (*how NONE, out->n 0). */
vkml_status tunedb_nearest_best(tunedb *db, const tunedb_device *dev, const char *workload_key,
                                tunedb_nearness *how, tunedb_record_list *out);

/* ---- fleet queries and merging (tunedb_fleet.c) ---- */

typedef struct tunedb_coverage_row {
  const char *workload_key;
  char **device_keys; /* devices with a correct record, sorted */
  size_t n_devices;
} tunedb_coverage_row;
typedef struct tunedb_coverage {
  tunedb_coverage_row *rows; /* one per asked key, in the order asked */
  size_t n;
} tunedb_coverage;
vkml_status tunedb_coverage_get(tunedb *db, const char *const *workload_keys, size_t n_keys,
                                tunedb_coverage *out);
void tunedb_coverage_free(tunedb_coverage *c);

typedef struct tunedb_compare_row {
  const char *workload_key;
  double best_a_ns, best_b_ns; /* ratio = a / b: > 1 means b is faster */
} tunedb_compare_row;
typedef struct tunedb_compare {
  tunedb_compare_row *rows; /* workloads with a best record on both, sorted */
  size_t n;
} tunedb_compare;
vkml_status tunedb_compare_get(tunedb *db, const char *device_a, const char *device_b,
                               tunedb_compare *out);
void tunedb_compare_free(tunedb_compare *c);

/* Copies every device, workload and record of the vkml database at src_path
 * into db, in one transaction; records already present (same natural key)
 * are skipped, so merging twice changes nothing. *n_added (may be NULL)
 * gets the number of records added. */
vkml_status tunedb_merge(tunedb *db, const char *src_path, int64_t *n_added);
/* The same from an open database (another file, or a private :memory: one
 * several files were merged into first), in one transaction of db's: so a
 * merge of several files either adds them all or changes nothing. */
vkml_status tunedb_merge_from(tunedb *db, tunedb *src, int64_t *n_added);

/* ---- JSON lines (tunedb_jsonl.c) ---- */

/* Writes every device, workload and record as one JSON object per line
 * ({"type":"device",...}, "workload", "record"), in that order. Always
 * valid JSON: bytes of a stored string that are not UTF-8 are written as
 * U+FFFD (tunedb_check reports such rows). */
vkml_status tunedb_export(tunedb *db, FILE *f);
/* Reads what tunedb_export writes, in one transaction (all or nothing);
 * records already present are skipped. Every line is checked first, with
 * tunedb_check's rules, and for unknown or repeated fields, and a record's
 * device and workload must be in the file before it or in db: the error
 * names the line and the field. name is for messages. */
vkml_status tunedb_import(tunedb *db, FILE *f, const char *name, int64_t *n_added);

/* ---- checking a file (tunedb_check.c) ---- */

/* A stored row that breaks import's rules. */
typedef struct tunedb_problem {
  const char *table; /* "device", "workload" or "record" (static text) */
  int64_t id;        /* the row's id in its table */
  /* the row's device key, workload key, schedule (NULL where its table has
   * none), every byte outside printable ASCII written as \xNN */
  char *device, *workload, *schedule;
  char *reason; /* `field "median_ns": -1000 is not a positive time` */
} tunedb_problem;
typedef struct tunedb_problem_list {
  tunedb_problem *items; /* strings owned by the list */
  size_t n;
  int64_t n_rows; /* rows checked */
} tunedb_problem_list;
/* Applies import's rules to every stored device, workload and record:
 * text (valid UTF-8; keys, templates and schedules printable ASCII, each
 * bounded), times (finite, median > 0), runs, timestamps (2020 to a day from
 * now), booleans, a device key matching its ids; and finds records whose
 * device or workload is missing. Reads only. out->n is 0 for a clean file;
 * free with tunedb_problem_list_free. */
vkml_status tunedb_check(tunedb *db, tunedb_problem_list *out);
void tunedb_problem_list_free(tunedb_problem_list *l);

/* ---- HTML report (tunedb_report.c) ---- */

/* A self-contained HTML page: per workload an inline SVG of the best time so
 * far against trial number (one line per device), per device the speedup of
 * its best over its first (default) record. No network resources. */
vkml_status tunedb_report_write(tunedb *db, FILE *f);

#endif
