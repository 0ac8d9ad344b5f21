/* tunedb: schema, records and the best view, concurrent writers, a killed
 * writer, merge, JSON lines, migration, refusing files that are not ours or
 * are damaged, nearest-device rules, the report. Every test works in its own
 * temporary directory. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tunedb/tunedb.h"
#include "tunedb/tunedb_json.h"

#define CHECK_OK(expr)                                                                   \
  do {                                                                                   \
    vkml_status s_ = (expr);                                                             \
    if (s_ != VKML_OK) {                                                                 \
      cr_log_error("%s:%d: %s -> %s", __FILE__, __LINE__, #expr, vkml_status_message(s_)); \
      vkml_status_free(s_);                                                              \
      cr_assert_fail();                                                                  \
    }                                                                                    \
  } while (0)

/* Expects a failure whose message contains each of the given substrings. */
static void expect_error(vkml_status s, vkml_code code, const char *sub1, const char *sub2) {
  cr_assert(s != VKML_OK, "expected an error containing \"%s\"", sub1);
  const char *m = vkml_status_message(s);
  cr_expect_eq(vkml_status_code(s), code, "code %s, message: %s",
               vkml_code_name(vkml_status_code(s)), m);
  cr_expect(strstr(m, sub1) != NULL, "\"%s\" not in: %s", sub1, m);
  if (sub2) cr_expect(strstr(m, sub2) != NULL, "\"%s\" not in: %s", sub2, m);
  vkml_status_free(s);
}

/* A time import takes (2023-11-14, in us): test records are T0 + n. */
#define T0 1700000000000000LL

static char tmpdir[64];

static void make_tmpdir(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/tunedb-test-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
}
static void remove_tmpdir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  cr_expect_eq(system(cmd), 0);
}
TestSuite(tunedb, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 60);

static const char *path_in(const char *name) {
  static char buf[4][128];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

static tunedb_device h100(uint32_t driver_version) {
  tunedb_device d = {.vendor_id = 0x10de, .device_id = 0x2330, .driver_version = driver_version,
                     .driver_id = 5, .api_version = (1u << 22) | (3u << 12),
                     .limits_json = "{\"maxComputeSharedMemorySize\":49152}"};
  snprintf(d.name, sizeof d.name, "NVIDIA H100 80GB HBM3");
  for (int i = 0; i < 16; i++) d.pipeline_cache_uuid[i] = (uint8_t)(i * 17);
  return d;
}
static tunedb_device dev_make(uint32_t vendor, uint32_t id, const char *name) {
  tunedb_device d = {.vendor_id = vendor, .device_id = id, .driver_version = 100, .driver_id = 1};
  snprintf(d.name, sizeof d.name, "%s", name);
  return d;
}

static tunedb *open_new(const char *name) {
  tunedb *db = NULL;
  tunedb_open_opts o = {.flags = TUNEDB_OPEN_CREATE};
  CHECK_OK(tunedb_open(path_in(name), &o, &db));
  return db;
}

static void put_dev(tunedb *db, const tunedb_device *d, char *key) {
  CHECK_OK(tunedb_device_put(db, d));
  tunedb_device_key(d, key);
}

static void put_rec(tunedb *db, const char *dev, const char *wl, const char *tmpl,
                    const char *sched, double ns, bool correct, bool failed, int64_t ts) {
  CHECK_OK(tunedb_workload_put(db, wl, "conv2d", "{\"n\":1}"));
  tunedb_record r = {.device_key = dev, .workload_key = wl, .template_name = tmpl,
                     .schedule = sched, .median_ns = ns, .spread_ns = ns / 100, .runs = 21,
                     .correct = correct, .failed = failed,
                     .message = failed ? "shaderc: error: \"x\" undeclared\n\tline 3" : NULL,
                     .tool_version = "0.1.0", .timestamp_us = ts};
  CHECK_OK(tunedb_record_put(db, &r));
}

static int64_t sql_int(const char *path, const char *sql) {
  sqlite3 *h;
  cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  int64_t v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

static void sql_exec(const char *path, const char *sql) {
  sqlite3 *h;
  cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
  char *err = NULL;
  cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &err), SQLITE_OK, "%s", err ? err : "");
  sqlite3_close(h);
}

/* The journal mode the file's header says: bytes 18 and 19 are 2 in WAL
 * mode, 1 in rollback mode (read without SQLite, which would make files). */
static const char *journal_mode(const char *path) {
  FILE *f = fopen(path, "rb");
  unsigned char hdr[20];
  cr_assert(f && fread(hdr, 1, sizeof hdr, f) == sizeof hdr);
  fclose(f);
  return hdr[18] == 2 ? "wal" : hdr[18] == 1 ? "delete" : "?";
}

/* Whether a -wal, -shm or -journal is beside path. */
static bool side_files(const char *path) {
  static const char *const sides[] = {"-wal", "-shm", "-journal"};
  for (int i = 0; i < 3; i++) {
    char p[300];
    struct stat st;
    snprintf(p, sizeof p, "%s%s", path, sides[i]);
    if (stat(p, &st) == 0) return true;
  }
  return false;
}

Test(tunedb, device_key_is_canonical) {
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(0x8f1c8000);
  tunedb_device_key(&d, key);
  cr_expect_str_eq(key, "10de:2330:5:8f1c8000");
}

Test(tunedb, schema_created_and_reopened) {
  tunedb *db = open_new("a.db");
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(7);
  put_dev(db, &d, key);
  put_rec(db, key, "conv2d:n1c64h56w56:k3", "direct", "tile=8x8", 1234.5, true, false, 1000);
  tunedb_close(db);

  const char *p = path_in("a.db");
  cr_expect_eq(sql_int(p, "PRAGMA application_id"), TUNEDB_APPLICATION_ID);
  cr_expect_eq(sql_int(p, "PRAGMA user_version"), TUNEDB_SCHEMA_VERSION);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records"), 1);

  db = NULL;
  CHECK_OK(tunedb_open(p, NULL, &db)); /* no CREATE: the file exists */
  tunedb_device_list l;
  CHECK_OK(tunedb_devices_list(db, &l));
  cr_assert_eq(l.n, 1);
  cr_expect_str_eq(l.items[0].key, "10de:2330:5:00000007");
  cr_expect_str_eq(l.items[0].dev.name, "NVIDIA H100 80GB HBM3");
  cr_expect_str_eq(l.items[0].dev.limits_json, "{\"maxComputeSharedMemorySize\":49152}");
  cr_expect_eq(l.items[0].dev.pipeline_cache_uuid[15], 15 * 17);
  cr_expect_eq(l.items[0].dev.api_version, d.api_version);
  cr_expect_eq(l.items[0].n_records, 1);
  cr_expect_eq(l.items[0].n_workloads, 1);
  tunedb_device_list_free(&l);
  tunedb_record_list r;
  CHECK_OK(tunedb_best_get(db, key, "conv2d:n1c64h56w56:k3", &r));
  cr_assert_eq(r.n, 1);
  cr_expect_str_eq(r.items[0].schedule, "tile=8x8");
  cr_expect_eq(r.items[0].median_ns, 1234.5);
  cr_expect_eq(r.items[0].runs, 21);
  cr_expect_eq(r.items[0].timestamp_us, 1000);
  tunedb_record_list_free(&r);
  /* WAL while a writer has it open; the last writer out leaves one file in
   * rollback mode, nothing beside it */
  cr_expect_str_eq(journal_mode(p), "wal");
  tunedb_close(db);
  cr_expect_str_eq(journal_mode(p), "delete");
  cr_expect(!side_files(p), "a -wal, -shm or -journal is left beside %s", p);
}

Test(tunedb, incorrect_and_failed_never_best) {
  tunedb *db = open_new("a.db");
  char a[TUNEDB_DEVICE_KEY_BYTES], b[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device da = h100(1), dbv = h100(2);
  put_dev(db, &da, a);
  put_dev(db, &dbv, b);
  const char *w = "gemm:m64n64k64";
  put_rec(db, a, w, "tiled", "t=1", 100, true, false, 1);
  put_rec(db, a, w, "tiled", "t=2", 50, false, false, 2);  /* fast but wrong */
  put_rec(db, a, w, "coopmat", "t=3", 0, false, true, 3);  /* failed */
  put_rec(db, a, w, "tiled", "t=4", 80, true, false, 4);
  put_rec(db, a, w, "tiled", "t=5", 90, true, false, 5);
  put_rec(db, b, w, "tiled", "t=1", 70, true, false, 6);
  put_rec(db, a, w, "tiled", "t=4", 80, true, false, 4); /* the same trial again */

  tunedb_record_list r;
  CHECK_OK(tunedb_best_get(db, a, w, &r));
  cr_assert_eq(r.n, 1);
  cr_expect_str_eq(r.items[0].schedule, "t=4");
  cr_expect_eq(r.items[0].median_ns, 80);
  tunedb_record_list_free(&r);
  CHECK_OK(tunedb_best_all(db, w, &r));
  cr_assert_eq(r.n, 2);
  cr_expect_str_eq(r.items[1].device_key, b);
  cr_expect_eq(r.items[1].median_ns, 70);
  tunedb_record_list_free(&r);

  CHECK_OK(tunedb_records_get(db, a, w, &r));
  cr_assert_eq(r.n, 5); /* the repeated trial stored once */
  cr_expect_str_eq(r.items[2].schedule, "t=3");
  cr_expect(r.items[2].failed);
  cr_expect_not(r.items[2].correct);
  cr_expect_str_eq(r.items[2].message, "shaderc: error: \"x\" undeclared\n\tline 3");
  tunedb_record_list_free(&r);

  /* a resumed tuner finds what it measured */
  CHECK_OK(tunedb_trial_find(db, a, w, "tiled", "t=2", &r));
  cr_assert_eq(r.n, 1);
  cr_expect_eq(r.items[0].median_ns, 50);
  cr_expect_not(r.items[0].correct);
  tunedb_record_list_free(&r);
  CHECK_OK(tunedb_trial_find(db, a, w, "coopmat", "t=2", &r));
  cr_expect_eq(r.n, 0);
  tunedb_record_list_free(&r);

  /* only failed/incorrect records: no best */
  put_rec(db, a, "pool:x", "pool", "s", 10, false, false, 9);
  CHECK_OK(tunedb_best_get(db, a, "pool:x", &r));
  cr_expect_eq(r.n, 0);
  tunedb_record_list_free(&r);

  /* a record for a device nobody put is refused */
  tunedb_record bad = {.device_key = "ffff:0:0:0", .workload_key = w, .template_name = "t",
                       .schedule = "s", .correct = true, .median_ns = 1};
  expect_error(tunedb_record_put(db, &bad), VKML_CODE_INVALID_ARGUMENT, "unknown device", NULL);
  tunedb_close(db);
}

Test(tunedb, coverage_and_compare) {
  tunedb *db = open_new("a.db");
  char a[TUNEDB_DEVICE_KEY_BYTES], b[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device da = h100(1), dbv = dev_make(0x1002, 0x744c, "AMD Radeon RX 7900 XTX");
  put_dev(db, &da, a);
  put_dev(db, &dbv, b);
  put_rec(db, a, "w1", "t", "s", 100, true, false, 1);
  put_rec(db, b, "w1", "t", "s", 400, true, false, 2);
  put_rec(db, a, "w2", "t", "s", 30, true, false, 3);
  put_rec(db, b, "w2", "t", "s", 10, true, false, 4);
  put_rec(db, b, "w3", "t", "s", 5, false, false, 5); /* incorrect: not coverage */
  const char *keys[] = {"w3", "w1", "w9"};
  tunedb_coverage c;
  CHECK_OK(tunedb_coverage_get(db, keys, 3, &c));
  cr_assert_eq(c.n, 3);
  cr_expect_str_eq(c.rows[0].workload_key, "w3");
  cr_expect_eq(c.rows[0].n_devices, 0);
  cr_assert_eq(c.rows[1].n_devices, 2);
  cr_expect_str_eq(c.rows[1].device_keys[0], b); /* sorted: "1002:..." < "10de:..." */
  cr_expect_str_eq(c.rows[1].device_keys[1], a);
  cr_expect_eq(c.rows[2].n_devices, 0);
  tunedb_coverage_free(&c);
  tunedb_compare cmp;
  CHECK_OK(tunedb_compare_get(db, a, b, &cmp));
  cr_assert_eq(cmp.n, 2);
  cr_expect_str_eq(cmp.rows[0].workload_key, "w1");
  cr_expect_eq(cmp.rows[0].best_a_ns / cmp.rows[0].best_b_ns, 0.25);
  cr_expect_eq(cmp.rows[1].best_a_ns / cmp.rows[1].best_b_ns, 3.0);
  tunedb_compare_free(&cmp);
  tunedb_close(db);
}

/* N records from each of 4 processes at once: all 4N are there. */
Test(tunedb, four_concurrent_writers_lose_nothing) {
  enum { WRITERS = 4, N = 150 };
  tunedb *db = open_new("c.db");
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, key);
  CHECK_OK(tunedb_workload_put(db, "w", "conv2d", "{}"));
  tunedb_close(db);
  pid_t pids[WRITERS];
  for (int w = 0; w < WRITERS; w++) {
    pids[w] = fork();
    cr_assert_geq(pids[w], 0);
    if (pids[w] == 0) {
      tunedb *cdb = NULL;
      tunedb_open_opts o = {.busy_timeout_ms = 20000};
      if (tunedb_open(path_in("c.db"), &o, &cdb) != VKML_OK) _exit(2);
      for (int i = 0; i < N; i++) {
        char sched[32];
        snprintf(sched, sizeof sched, "w%d/%d", w, i);
        tunedb_record r = {.device_key = key, .workload_key = "w", .template_name = "t",
                           .schedule = sched, .median_ns = 1000 + i, .correct = true,
                           .runs = 1, .tool_version = "test", .timestamp_us = 1 + i};
        vkml_status s = tunedb_record_put(cdb, &r);
        if (s != VKML_OK) {
          fprintf(stderr, "writer %d: %s\n", w, vkml_status_message(s));
          _exit(3);
        }
      }
      tunedb_close(cdb);
      _exit(0);
    }
  }
  for (int w = 0; w < WRITERS; w++) {
    int st;
    cr_assert_eq(waitpid(pids[w], &st, 0), pids[w]);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d status %d", w, st);
  }
  const char *p = path_in("c.db");
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records"), WRITERS * N);
  cr_expect_eq(sql_int(p, "SELECT count(DISTINCT schedule) FROM records"), WRITERS * N);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records WHERE schedule LIKE 'w3/%'"), N);
}

/* Four tuners started at once on a file that does not exist yet: one
 * creates the schema, every one opens it and writes. */
Test(tunedb, four_processes_create_one_file) {
  enum { PROCS = 4 };
  for (int round = 0; round < 5; round++) {
    char name[32];
    snprintf(name, sizeof name, "new%d.db", round);
    pid_t pids[PROCS];
    for (int w = 0; w < PROCS; w++) {
      pids[w] = fork();
      cr_assert_geq(pids[w], 0);
      if (pids[w] == 0) {
        tunedb *cdb = NULL;
        tunedb_open_opts o = {.flags = TUNEDB_OPEN_CREATE, .busy_timeout_ms = 20000};
        vkml_status s = tunedb_open(path_in(name), &o, &cdb);
        char key[TUNEDB_DEVICE_KEY_BYTES], sched[16];
        tunedb_device d = h100((uint32_t)w);
        if (s == VKML_OK) s = tunedb_device_put(cdb, &d);
        if (s == VKML_OK) s = tunedb_workload_put(cdb, "w", "conv2d", "{}");
        tunedb_device_key(&d, key);
        snprintf(sched, sizeof sched, "%d", w);
        tunedb_record r = {.device_key = key, .workload_key = "w", .template_name = "t",
                           .schedule = sched, .median_ns = 1, .correct = true,
                           .timestamp_us = 1};
        if (s == VKML_OK) s = tunedb_record_put(cdb, &r);
        if (s != VKML_OK) {
          fprintf(stderr, "process %d: %s\n", w, vkml_status_message(s));
          _exit(3);
        }
        tunedb_close(cdb);
        _exit(0);
      }
    }
    for (int w = 0; w < PROCS; w++) {
      int st;
      cr_assert_eq(waitpid(pids[w], &st, 0), pids[w]);
      cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "round %d process %d: %d", round, w, st);
    }
    cr_expect_eq(sql_int(path_in(name), "SELECT count(*) FROM records"), PROCS);
    cr_expect_eq(sql_int(path_in(name), "SELECT count(*) FROM meta"), 1);
  }
}

/* A writer killed with SIGKILL mid-stream: every record it was told is
 * stored is there exactly once, and the file opens fine. */
Test(tunedb, killed_writer_keeps_every_committed_record) {
  tunedb *db = open_new("k.db");
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, key);
  CHECK_OK(tunedb_workload_put(db, "w", "conv2d", "{}"));
  tunedb_close(db);
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    tunedb *cdb = NULL;
    if (tunedb_open(path_in("k.db"), NULL, &cdb) != VKML_OK) _exit(2);
    for (int i = 0;; i++) {
      char sched[32];
      snprintf(sched, sizeof sched, "%d", i);
      tunedb_record r = {.device_key = key, .workload_key = "w", .template_name = "t",
                         .schedule = sched, .median_ns = 5, .correct = true,
                         .tool_version = "test", .timestamp_us = 1 + i};
      if (tunedb_record_put(cdb, &r) != VKML_OK) _exit(3);
      if (write(fds[1], &i, sizeof i) != sizeof i) _exit(4); /* i is stored */
    }
  }
  close(fds[1]);
  int last = -1, v;
  while (last < 200 && read(fds[0], &v, sizeof v) == sizeof v) last = v;
  kill(pid, SIGKILL);
  int st;
  waitpid(pid, &st, 0);
  cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  while (read(fds[0], &v, sizeof v) == sizeof v) last = v; /* acknowledged before the kill */
  close(fds[0]);

  db = NULL;
  CHECK_OK(tunedb_open(path_in("k.db"), NULL, &db));
  tunedb_record_list r;
  CHECK_OK(tunedb_records_get(db, key, "w", &r));
  /* every acknowledged record, plus at most the one in flight */
  cr_expect_geq(r.n, (size_t)last + 1);
  cr_expect_leq(r.n, (size_t)last + 2);
  for (size_t i = 0; i < r.n; i++) cr_expect_eq(atoi(r.items[i].schedule), (int)i);
  tunedb_record_list_free(&r);
  tunedb_close(db);
  cr_expect_eq(sql_int(path_in("k.db"), "SELECT count(DISTINCT schedule) = count(*) FROM records"), 1);
}

static void make_fleet_file(const char *name, uint32_t driver, int first, int n) {
  tunedb *db = open_new(name);
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(driver);
  put_dev(db, &d, key);
  for (int i = first; i < first + n; i++) {
    char s[16];
    snprintf(s, sizeof s, "s%d", i);
    put_rec(db, key, i % 2 ? "w1" : "w2", "t", s, 1000.0 / (i + 1), true, false, 10 + i);
  }
  tunedb_close(db);
}

Test(tunedb, merge_twice_is_merge_once) {
  make_fleet_file("a.db", 1, 0, 10);
  make_fleet_file("b.db", 1, 5, 10); /* 5 records in common with a.db */
  make_fleet_file("c.db", 2, 0, 3);
  tunedb *out = open_new("out.db");
  int64_t n;
  CHECK_OK(tunedb_merge(out, path_in("a.db"), &n));
  cr_expect_eq(n, 10);
  CHECK_OK(tunedb_merge(out, path_in("b.db"), &n));
  cr_expect_eq(n, 5);
  CHECK_OK(tunedb_merge(out, path_in("c.db"), &n));
  cr_expect_eq(n, 3);
  tunedb_close(out);
  const char *p = path_in("out.db");
  char *dump1 = NULL;
  size_t len1;
  {
    tunedb *db = NULL;
    CHECK_OK(tunedb_open(p, NULL, &db));
    FILE *f = open_memstream(&dump1, &len1);
    CHECK_OK(tunedb_export(db, f));
    fclose(f);
    for (int k = 0; k < 3; k++) {
      const char *src[] = {"a.db", "b.db", "c.db"};
      CHECK_OK(tunedb_merge(db, path_in(src[k]), &n));
      cr_expect_eq(n, 0);
    }
    tunedb_close(db);
  }
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records"), 18);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM devices"), 2);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM workloads"), 2);
  tunedb *db = NULL;
  CHECK_OK(tunedb_open(p, NULL, &db));
  char *dump2 = NULL;
  size_t len2;
  FILE *f = open_memstream(&dump2, &len2);
  CHECK_OK(tunedb_export(db, f));
  fclose(f);
  tunedb_close(db);
  cr_expect_eq(len1, len2);
  cr_expect_str_eq(dump1, dump2);
  free(dump1);
  free(dump2);
}

Test(tunedb, export_import_round_trip) {
  tunedb *db = open_new("a.db");
  char a[TUNEDB_DEVICE_KEY_BYTES], b[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device da = h100(3), dbv = dev_make(0x10005, 0, "llvmpipe (LLVM 15.0.6, 256 bits) \"q\" \\ µ");
  dbv.limits_json = "{\"a\":[1,2],\"s\":\"x\\\"y\"}";
  put_dev(db, &da, a);
  put_dev(db, &dbv, b);
  /* what import takes: keys and schedules printable ASCII, times from 2020 */
  put_rec(db, a, "conv2d:k=\"3\"\\", "direct", "tile=8 x", 1.0 / 3.0, true, false, T0 + 1);
  put_rec(db, b, "w2", "t", "s", 123456789.125, true, false, T0 + 2);
  /* failed: NULL times, a message with control characters */
  tunedb_record failed = {.device_key = b, .workload_key = "w2", .template_name = "t",
                          .schedule = "s2", .failed = true, .message = "shaderc: \"x\"\n\x01",
                          .tool_version = "0.1.0", .timestamp_us = T0 + 3};
  CHECK_OK(tunedb_record_put(db, &failed));
  tunedb_record conf = {.device_key = b, .workload_key = "w2", .template_name = "t",
                        .schedule = "s", .median_ns = 5, .runs = 84, .correct = true,
                        .tool_version = "0.1.0", .timestamp_us = T0 + 4, .confirmation = true};
  CHECK_OK(tunedb_record_put(db, &conf));
  char *dump1 = NULL, *dump2 = NULL;
  size_t len1, len2;
  FILE *f = open_memstream(&dump1, &len1);
  CHECK_OK(tunedb_export(db, f));
  fclose(f);
  tunedb_close(db);
  cr_expect(strstr(dump1, "\\\"q\\\" \\\\ µ") != NULL, "escaped name in %s", dump1);
  cr_expect(strstr(dump1, "\\n\\u0001") != NULL, "control characters escaped in %s", dump1);

  tunedb *db2 = open_new("b.db");
  f = fmemopen(dump1, len1, "r");
  int64_t n;
  CHECK_OK(tunedb_import(db2, f, "dump", &n));
  fclose(f);
  cr_expect_eq(n, 4);
  cr_expect(strstr(dump1, "\"confirmation\":true") != NULL, "%s", dump1);
  f = open_memstream(&dump2, &len2);
  CHECK_OK(tunedb_export(db2, f));
  fclose(f);
  cr_expect_str_eq(dump2, dump1);
  /* importing again adds nothing */
  f = fmemopen(dump1, len1, "r");
  CHECK_OK(tunedb_import(db2, f, "dump", &n));
  fclose(f);
  cr_expect_eq(n, 0);
  tunedb_close(db2);
  cr_expect_eq(sql_int(path_in("b.db"), "SELECT count(*) FROM records WHERE median_ns IS NULL"), 1);
  /* the same rows, compared column by column in SQL (both directions) */
  const char *cols = "device, workload, template, schedule, median_ns, spread_ns, runs,"
                     " correct, failed, message, tool_version, timestamp_us, confirmation";
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT (SELECT count(*) FROM (SELECT %s FROM records EXCEPT SELECT %s FROM"
           " a.records)) + (SELECT count(*) FROM (SELECT %s FROM a.records EXCEPT SELECT %s"
           " FROM records))",
           cols, cols, cols, cols);
  sqlite3 *h;
  cr_assert_eq(sqlite3_open(path_in("b.db"), &h), SQLITE_OK);
  char attach[256];
  snprintf(attach, sizeof attach, "ATTACH '%s' AS a", path_in("a.db"));
  cr_assert_eq(sqlite3_exec(h, attach, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  cr_expect_eq(sqlite3_column_int(st, 0), 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  free(dump1);
  free(dump2);
}

/* What the older schemas share: the devices and workloads tables, the
 * records columns up to the timestamp, and two trials of one workload. */
#define OLD_TABLES \
  "CREATE TABLE devices(key TEXT PRIMARY KEY, vendor_id INTEGER NOT NULL," \
  " device_id INTEGER NOT NULL, driver_version INTEGER NOT NULL, driver_id INTEGER NOT NULL," \
  " name TEXT NOT NULL, api_version INTEGER NOT NULL, pipeline_cache_uuid TEXT NOT NULL," \
  " limits TEXT NOT NULL DEFAULT '{}');" \
  "CREATE TABLE workloads(key TEXT PRIMARY KEY, op TEXT NOT NULL," \
  " description TEXT NOT NULL DEFAULT '{}');" \
  "CREATE TABLE records(id INTEGER PRIMARY KEY, device TEXT NOT NULL REFERENCES devices(key)," \
  " workload TEXT NOT NULL REFERENCES workloads(key), template TEXT NOT NULL," \
  " schedule TEXT NOT NULL, median_ns REAL, spread_ns REAL, runs INTEGER NOT NULL DEFAULT 0," \
  " correct INTEGER NOT NULL DEFAULT 0, tool_version TEXT NOT NULL," \

#define OLD_ROWS \
  "INSERT INTO devices VALUES ('10de:2330:5:00000001', 4318, 9008, 1, 5, 'NVIDIA H100'," \
  " 4206592, '00', '{}');" \
  "INSERT INTO workloads VALUES ('w', 'conv2d', '{}');" \
  "INSERT INTO records (device, workload, template, schedule, median_ns, spread_ns, runs," \
  " correct, tool_version, timestamp_us) VALUES" \
  " ('10de:2330:5:00000001', 'w', 't', 'a', 200, 1, 9, 1, '0.0.9', 1)," \
  " ('10de:2330:5:00000001', 'w', 't', 'b', 150, 1, 9, 1, '0.0.9', 2);" \

/* The v1 schema as vkml 0.1 wrote it: no failed/message columns. */
static const char schema_v1[] =
    OLD_TABLES
    " timestamp_us INTEGER NOT NULL,"
    " UNIQUE(device, workload, template, schedule, timestamp_us, tool_version));"
    "CREATE VIEW best AS SELECT * FROM records WHERE correct = 1 GROUP BY device, workload"
    " HAVING median_ns = min(median_ns);"
    OLD_ROWS
    "PRAGMA application_id = 1447773250; PRAGMA user_version = 1;";

Test(tunedb, migrates_v1) {
  const char *p = path_in("v1.db");
  sql_exec(p, schema_v1);
  cr_assert_eq(sql_int(p, "PRAGMA application_id"), TUNEDB_APPLICATION_ID);
  /* read-only cannot migrate: says so, leaves the file alone */
  tunedb *db = NULL;
  tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
  expect_error(tunedb_open(p, &ro, &db), VKML_CODE_UNSUPPORTED, "v1.db",
               "schema version 1 is older than this build's (3)");
  cr_expect_eq(sql_int(p, "PRAGMA user_version"), 1);

  CHECK_OK(tunedb_open(p, NULL, &db));
  tunedb_close(db);
  cr_expect_eq(sql_int(p, "PRAGMA user_version"), TUNEDB_SCHEMA_VERSION);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records WHERE failed = 0 AND message IS NULL"
                          " AND confirmation = 0"),
               2);
  db = NULL;
  CHECK_OK(tunedb_open(p, NULL, &db));
  put_rec(db, "10de:2330:5:00000001", "w", "t", "c", 100, true, true, 3); /* failed */
  tunedb_record_list r;
  CHECK_OK(tunedb_best_get(db, "10de:2330:5:00000001", "w", &r));
  cr_assert_eq(r.n, 1);
  cr_expect_str_eq(r.items[0].schedule, "b");
  cr_expect_str_eq(r.items[0].tool_version, "0.0.9");
  tunedb_record_list_free(&r);
  tunedb_close(db);
}

Test(tunedb, refuses_foreign_sqlite) {
  const char *p = path_in("foreign.db");
  sql_exec(p, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');");
  tunedb *db = NULL;
  expect_error(tunedb_open(p, NULL, &db), VKML_CODE_INVALID_ARGUMENT, "foreign.db",
               "not a vkml schedule database (a foreign SQLite file");
  cr_expect_null(db);
  /* untouched: still its own table, not WAL */
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM sqlite_master"), 1);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM songs"), 1);
  /* another application's id */
  sql_exec(p, "PRAGMA application_id = 42");
  expect_error(tunedb_open(p, NULL, &db), VKML_CODE_INVALID_ARGUMENT, "application id 0x2a",
               NULL);
}

Test(tunedb, refuses_non_sqlite_and_missing) {
  const char *p = path_in("text.db");
  FILE *f = fopen(p, "w");
  for (int i = 0; i < 200; i++) fprintf(f, "this is a text file, line %d\n", i);
  fclose(f);
  tunedb *db = NULL;
  expect_error(tunedb_open(p, NULL, &db), VKML_CODE_INVALID_ARGUMENT, "text.db",
               "not an SQLite file");
  tunedb_open_opts c = {.flags = TUNEDB_OPEN_CREATE};
  expect_error(tunedb_open(p, &c, &db), VKML_CODE_INVALID_ARGUMENT, "not an SQLite file", NULL);
  f = fopen(p, "r");
  char line[64];
  cr_expect_str_eq(fgets(line, sizeof line, f), "this is a text file, line 0\n");
  fclose(f);
  expect_error(tunedb_open(path_in("missing.db"), NULL, &db), VKML_CODE_IO, "missing.db",
               "no such file");
}

Test(tunedb, refuses_newer_schema) {
  tunedb_close(open_new("new.db"));
  const char *p = path_in("new.db");
  sql_exec(p, "PRAGMA user_version = 4");
  tunedb *db = NULL;
  expect_error(tunedb_open(p, NULL, &db), VKML_CODE_UNSUPPORTED, "new.db",
               "schema version 4 is newer than this build knows (3)");
  cr_expect_eq(sql_int(p, "PRAGMA user_version"), 4);
}

Test(tunedb, read_only_refused_when_writing) {
  tunedb *db = open_new("ro.db");
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, key);
  put_rec(db, key, "w", "t", "s", 10, true, false, 1);
  tunedb_close(db);
  const char *p = path_in("ro.db");
  tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
  CHECK_OK(tunedb_open(p, &ro, &db));
  tunedb_record r = {.device_key = key, .workload_key = "w", .template_name = "t",
                     .schedule = "s2", .median_ns = 5, .correct = true};
  expect_error(tunedb_record_put(db, &r), VKML_CODE_IO, "ro.db", "read-only");
  expect_error(tunedb_device_put(db, &d), VKML_CODE_IO, "ro.db", "read-only");
  tunedb_record_list l;
  CHECK_OK(tunedb_best_get(db, key, "w", &l)); /* reading works */
  cr_expect_eq(l.n, 1);
  tunedb_record_list_free(&l);
  tunedb_close(db);
  /* A write-protected file opened for writing: refused at open. Root writes
   * through file permissions, so as root a child drops to nobody first. */
  cr_assert_eq(chmod(p, 0444), 0);
  cr_assert_eq(chmod(tmpdir, 0755), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    tunedb *cdb = NULL;
    vkml_status s = tunedb_open(p, NULL, &cdb);
    if (s == VKML_OK) _exit(3);
    const char *m = vkml_status_message(s);
    fprintf(stderr, "%s\n", m);
    _exit(vkml_status_code(s) == VKML_CODE_IO && strstr(m, "ro.db: read-only file, cannot write")
              ? 0 : 4);
  }
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records"), 1);
}

Test(tunedb, locked_past_timeout) {
  tunedb *db = open_new("l.db");
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, key);
  CHECK_OK(tunedb_workload_put(db, "w", "conv2d", "{}"));
  tunedb_close(db);
  const char *p = path_in("l.db");
  sqlite3 *other;
  cr_assert_eq(sqlite3_open(p, &other), SQLITE_OK);
  /* another writer: in WAL mode, as every vkml writer works */
  cr_assert_eq(sqlite3_exec(other, "PRAGMA journal_mode = WAL", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
  tunedb_open_opts o = {.busy_timeout_ms = 150};
  db = NULL;
  CHECK_OK(tunedb_open(p, &o, &db)); /* WAL: opening and reading still work */
  tunedb_record r = {.device_key = key, .workload_key = "w", .template_name = "t",
                     .schedule = "s", .median_ns = 5, .correct = true, .timestamp_us = 1};
  expect_error(tunedb_record_put(db, &r), VKML_CODE_IO, "l.db",
               "locked by another process past the 150 ms busy timeout");
  cr_assert_eq(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(other);
  CHECK_OK(tunedb_record_put(db, &r));
  tunedb_close(db);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records"), 1);
}

/* A real database of some pages, closed (WAL checkpointed into it). */
static const char *make_big_db(const char *name) {
  tunedb *db = open_new(name);
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, key);
  CHECK_OK(tunedb_workload_put(db, "w", "conv2d", "{}"));
  sqlite3 *h;
  cr_assert_eq(sqlite3_open(path_in(name), &h), SQLITE_OK);
  sqlite3_exec(h, "BEGIN", NULL, NULL, NULL);
  char sql[512];
  for (int i = 0; i < 600; i++) {
    snprintf(sql, sizeof sql,
             "INSERT INTO records (device, workload, template, schedule, median_ns, correct,"
             " tool_version, timestamp_us) VALUES ('%s', 'w', 'direct', "
             "'tile=%dx%d,unroll=%d,vec=4,padding-to-make-rows-longer', %d, 1, 'x', %d)",
             key, i, i, i, 1000 + i, i);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
  }
  sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
  sqlite3_close(h);
  tunedb_close(db);
  return path_in(name);
}

static void overwrite(const char *p, long offset, long n, unsigned char byte) {
  int fd = open(p, O_WRONLY);
  cr_assert_geq(fd, 0);
  unsigned char buf[4096];
  memset(buf, byte, sizeof buf);
  for (long done = 0; done < n;) {
    long k = n - done < 4096 ? n - done : 4096;
    cr_assert_eq(pwrite(fd, buf, (size_t)k, offset + done), k);
    done += k;
  }
  close(fd);
}

Test(tunedb, refuses_corrupt_files) {
  /* pages in the middle overwritten */
  const char *p = make_big_db("c1.db");
  struct stat stt;
  cr_assert_eq(stat(p, &stt), 0);
  cr_assert_gt(stt.st_size, 16 * 4096, "size %ld", (long)stt.st_size);
  overwrite(p, 4 * 4096, 3 * 4096, 0xa5);
  tunedb *db = NULL;
  expect_error(tunedb_open(p, NULL, &db), VKML_CODE_CORRUPT, "c1.db", "corrupt");
  cr_expect_null(db);
  /* truncated to half */
  p = make_big_db("c2.db");
  cr_assert_eq(stat(p, &stt), 0);
  cr_assert_eq(truncate(p, stt.st_size / 2), 0);
  expect_error(tunedb_open(p, NULL, &db), VKML_CODE_CORRUPT, "c2.db", "corrupt");
  /* the header's page size field destroyed: not recognisable at all */
  p = make_big_db("c3.db");
  overwrite(p, 16, 2, 0xff);
  vkml_status s = tunedb_open(p, NULL, &db);
  cr_assert(s != VKML_OK);
  cr_expect(strstr(vkml_status_message(s), "c3.db") != NULL, "%s", vkml_status_message(s));
  vkml_status_free(s);
}

Test(tunedb, nearest_device_rules) {
  tunedb *db = open_new("n.db");
  tunedb_device want = h100(0x200);
  tunedb_device h100_old = h100(0x100), h100_older = h100(0x050);
  tunedb_device h200 = dev_make(0x10de, 0x2335, "NVIDIA H200");
  tunedb_device h20 = dev_make(0x10de, 0x2900, "NVIDIA H20"); /* other id block, same name prefix */
  tunedb_device t4 = dev_make(0x10de, 0x1eb8, "Tesla T4");
  tunedb_device amd = dev_make(0x1002, 0x2330, "NVIDIA H100 lookalike"); /* other vendor */
  char k_want[48], k_old[48], k_older[48], k_h200[48], k_h20[48], k_t4[48], k_amd[48];
  put_dev(db, &want, k_want);
  put_dev(db, &h100_old, k_old);
  put_dev(db, &h100_older, k_older);
  put_dev(db, &h200, k_h200);
  put_dev(db, &h20, k_h20);
  put_dev(db, &t4, k_t4);
  put_dev(db, &amd, k_amd);

  cr_expect(tunedb_device_same_family(&want, &h200));
  cr_expect(tunedb_device_same_family(&want, &h20));
  cr_expect_not(tunedb_device_same_family(&want, &t4));
  cr_expect_not(tunedb_device_same_family(&want, &amd));

  put_rec(db, k_want, "exact", "t", "mine", 9, true, false, 1);
  put_rec(db, k_old, "exact", "t", "old", 1, true, false, 2);
  put_rec(db, k_old, "driver", "t", "old", 5, true, false, 3);
  put_rec(db, k_older, "driver", "t", "older", 1, true, false, 4);
  put_rec(db, k_h200, "driver", "t", "h200", 1, true, false, 5);
  put_rec(db, k_h200, "family", "t", "h200", 5, true, false, 6);
  put_rec(db, k_h20, "family", "t", "h20", 1, true, false, 7);
  put_rec(db, k_t4, "family", "t", "t4", 1, true, false, 8);
  put_rec(db, k_h20, "name", "t", "h20", 1, true, false, 9);
  put_rec(db, k_t4, "name", "t", "t4", 1, true, false, 10);
  put_rec(db, k_t4, "none", "t", "t4", 1, true, false, 11);
  put_rec(db, k_amd, "none", "t", "amd", 1, true, false, 12);
  put_rec(db, k_old, "wrong", "t", "old", 1, false, false, 13); /* incorrect only */

  static const struct {
    const char *workload;
    tunedb_nearness how;
    const char *schedule;
  } cases[] = {
      {"exact", TUNEDB_NEAR_EXACT, "mine"},          /* own record, though slower */
      {"driver", TUNEDB_NEAR_OTHER_DRIVER, "old"},   /* closest driver, not the fastest */
      {"family", TUNEDB_NEAR_FAMILY, "h200"},        /* id block before name prefix */
      {"name", TUNEDB_NEAR_FAMILY, "h20"},           /* name prefix */
      {"none", TUNEDB_NEAR_NONE, NULL},
      {"wrong", TUNEDB_NEAR_NONE, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tunedb_nearness how;
    tunedb_record_list r;
    CHECK_OK(tunedb_nearest_best(db, &want, cases[i].workload, &how, &r));
    cr_expect_eq(how, cases[i].how, "%s: %s", cases[i].workload, tunedb_nearness_name(how));
    if (cases[i].schedule) {
      cr_assert_eq(r.n, 1, "%s", cases[i].workload);
      cr_expect_str_eq(r.items[0].schedule, cases[i].schedule, "%s", cases[i].workload);
    } else {
      cr_expect_eq(r.n, 0, "%s", cases[i].workload);
    }
    tunedb_record_list_free(&r);
  }
  tunedb_close(db);
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

Test(tunedb, report_is_self_contained) {
  tunedb *db = open_new("r.db");
  char a[48], b[48];
  tunedb_device da = h100(1), dbv = dev_make(0x10005, 0, "llvmpipe <&>");
  put_dev(db, &da, a);
  put_dev(db, &dbv, b);
  double times[] = {400, 300, 350, 100, 200};
  for (int i = 0; i < 5; i++) {
    char s[16];
    snprintf(s, sizeof s, "s%d", i);
    put_rec(db, a, "conv<1>", "t", s, times[i], true, false, 1 + i);
    put_rec(db, b, "conv<1>", "t", s, 2 * times[i], true, false, 1 + i);
    put_rec(db, a, "gemm", "t", s, times[i], i != 3, false, 10 + i);
  }
  char *html = NULL;
  size_t len;
  FILE *f = open_memstream(&html, &len);
  CHECK_OK(tunedb_report_write(db, f));
  fclose(f);
  tunedb_close(db);
  cr_expect_eq(count_of(html, "<svg"), 2, "one SVG per workload");
  cr_expect_eq(count_of(html, "</svg>"), 2);
  cr_expect_eq(count_of(html, "http"), 0, "no network resources");
  cr_expect_eq(count_of(html, "src="), 0);
  cr_expect(strstr(html, "conv&lt;1&gt;") != NULL, "workload key escaped");
  cr_expect(strstr(html, "llvmpipe &lt;&amp;&gt;") != NULL, "device name escaped");
  cr_expect(strstr(html, "<td>4.00×</td>") != NULL, "conv speedup 400/100 in: %s", html);
  cr_expect(strstr(html, "<td>2.00×</td>") != NULL, "gemm speedup 400/200 (100 incorrect)");
  free(html);
}

Test(tunedb, json_reader) {
  tunedb_json_object o;
  char err[128];
  cr_assert(tunedb_json_parse_object(
      " {\"a\":\"x\\\"\\\\\\/\\n\\u00b5\\ud83d\\ude00\",\"n\":-1.5e3,\"t\":true,\"z\":null,"
      "\"i\":0} \n",
      &o, err, sizeof err), "%s", err);
  cr_assert_eq(o.n, 5);
  cr_expect_str_eq(tunedb_json_get(&o, "a")->value, "x\"\\/\n\xc2\xb5\xf0\x9f\x98\x80");
  cr_expect_str_eq(tunedb_json_get(&o, "n")->value, "-1.5e3");
  cr_expect_eq(tunedb_json_get(&o, "t")->type, TUNEDB_JSON_BOOL);
  cr_expect_eq(tunedb_json_get(&o, "z")->type, TUNEDB_JSON_NULL);
  cr_expect_null(tunedb_json_get(&o, "q"));
  tunedb_json_object_free(&o);
  static const char *const bad[] = {"", "{", "{\"a\"}", "{\"a\":01}", "{\"a\":\"\\x\"}",
                                    "{\"a\":1,}", "{\"a\":1} x", "{\"a\":\"\\ud800\"}",
                                    "{\"a\":\"unterminated}", "{\"a\":tru}", "[1]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_expect_not(tunedb_json_parse_object(bad[i], &o, err, sizeof err), "accepted %s", bad[i]);
}

/* A schema v2 file (before confirmation records): migrated in place, its
 * records trials, its best kept. */
static const char schema_v2_file[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    OLD_TABLES
    " timestamp_us INTEGER NOT NULL, failed INTEGER NOT NULL DEFAULT 0, message TEXT,"
    " UNIQUE(device, workload, template, schedule, timestamp_us, tool_version));"
    "CREATE VIEW best AS SELECT * FROM records WHERE correct = 1 AND failed = 0"
    " GROUP BY device, workload HAVING median_ns = min(median_ns);"
    "INSERT INTO meta VALUES ('schema_version', '2');"
    OLD_ROWS
    "PRAGMA application_id = 1447773250; PRAGMA user_version = 2;";

Test(tunedb, migrates_v2) {
  const char *p = path_in("v2.db");
  sql_exec(p, schema_v2_file);
  tunedb *db = NULL;
  CHECK_OK(tunedb_open(p, NULL, &db));
  tunedb_close(db);
  cr_expect_eq(sql_int(p, "PRAGMA user_version"), 3);
  cr_expect_eq(sql_int(p, "SELECT value FROM meta WHERE key = 'schema_version'"), 3);
  cr_expect_eq(sql_int(p, "SELECT count(*) FROM records WHERE confirmation = 0"), 2);
  CHECK_OK(tunedb_open(p, NULL, &db));
  tunedb_record_list r;
  CHECK_OK(tunedb_best_get(db, "10de:2330:5:00000001", "w", &r));
  cr_assert_eq(r.n, 1);
  cr_expect_str_eq(r.items[0].schedule, "b");
  cr_expect(!r.items[0].confirmation);
  tunedb_record_list_free(&r);
  tunedb_close(db);
}

/* The best record of (dev, wl): schedule sched, ns (0: any), confirmation. */
static void expect_best(tunedb *db, const char *dev, const char *wl, const char *sched,
                        double ns, bool confirmation) {
  tunedb_record_list r;
  CHECK_OK(tunedb_best_get(db, dev, wl, &r));
  cr_assert_eq(r.n, 1);
  cr_expect_str_eq(r.items[0].schedule, sched);
  if (ns > 0) cr_expect_eq(r.items[0].median_ns, ns);
  cr_expect_eq(r.items[0].confirmation, confirmation, "%s", sched);
  tunedb_record_list_free(&r);
}

/* The best view times each point by its latest record: a confirmation
 * slower than the trial it re-measured hands the best to the next point, a
 * faster one keeps it; a wrong re-measurement puts the point out; other
 * workloads are untouched. */
Test(tunedb, confirmation_replaces_the_trial) {
  tunedb *db = open_new("c.db");
  char a[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, a);
  put_rec(db, a, "w", "t", "dflt", 100, true, false, 1);
  put_rec(db, a, "w", "t", "x", 70, true, false, 2); /* the walk's best, biased low */
  put_rec(db, a, "w", "t", "y", 80, true, false, 3);
  put_rec(db, a, "w2", "t", "x", 50, true, false, 4);
  expect_best(db, a, "w", "x", 70, false);
  /* x confirmed at 105, slower than the default: y (80) is now the fastest */
  tunedb_record c = {.device_key = a, .workload_key = "w", .template_name = "t",
                     .schedule = "x", .median_ns = 105, .runs = 84, .correct = true,
                     .tool_version = "0.1.0", .timestamp_us = 5, .confirmation = true};
  CHECK_OK(tunedb_record_put(db, &c));
  expect_best(db, a, "w", "y", 80, false);
  /* y confirmed at 120: the default is the best */
  c.schedule = "y", c.median_ns = 120, c.timestamp_us = 6;
  CHECK_OK(tunedb_record_put(db, &c));
  expect_best(db, a, "w", "dflt", 100, false);
  /* a later confirmation of x at 60 makes it the best again, and the best
   * record is that confirmation */
  c.schedule = "x", c.median_ns = 60, c.timestamp_us = 7;
  CHECK_OK(tunedb_record_put(db, &c));
  expect_best(db, a, "w", "x", 60, true);
  /* x measured again and wrong: out, the default is the best */
  c.median_ns = 55, c.timestamp_us = 8, c.correct = false;
  CHECK_OK(tunedb_record_put(db, &c));
  expect_best(db, a, "w", "dflt", 100, false);
  /* the tuner's resume still finds x's latest trial, not its confirmations */
  tunedb_record_list r;
  CHECK_OK(tunedb_trial_find(db, a, "w", "t", "x", &r));
  cr_assert_eq(r.n, 1);
  cr_expect_eq(r.items[0].median_ns, 70);
  cr_expect(!r.items[0].confirmation);
  tunedb_record_list_free(&r);
  /* the other workload keeps its trial */
  expect_best(db, a, "w2", "x", 50, false);
  tunedb_close(db);
}

/* An export of an older build (no "confirmation" key) imports as trials. */
Test(tunedb, imports_lines_without_confirmation) {
  tunedb *db = open_new("i.db");
  static const char lines[] =
      "{\"type\":\"device\",\"key\":\"10de:2330:5:00000001\",\"vendor_id\":4318,"
      "\"device_id\":9008,\"driver_version\":1,\"driver_id\":5,\"name\":\"NVIDIA H100\","
      "\"api_version\":4206592,\"pipeline_cache_uuid\":\"00\",\"limits\":\"{}\"}\n"
      "{\"type\":\"workload\",\"key\":\"w\",\"op\":\"conv2d\",\"description\":\"{}\"}\n"
      "{\"type\":\"record\",\"device\":\"10de:2330:5:00000001\",\"workload\":\"w\","
      "\"template\":\"t\",\"schedule\":\"a\",\"median_ns\":200,\"spread_ns\":1,\"runs\":9,"
      "\"correct\":true,\"failed\":false,\"message\":null,\"tool_version\":\"0.0.9\","
      "\"timestamp_us\":1700000000000000}\n";
  FILE *f = fmemopen((void *)lines, sizeof lines - 1, "r");
  int64_t n;
  CHECK_OK(tunedb_import(db, f, "old.jsonl", &n));
  fclose(f);
  cr_expect_eq(n, 1);
  tunedb_close(db);
  cr_expect_eq(sql_int(path_in("i.db"), "SELECT count(*) FROM records WHERE confirmation = 0"), 1);
}

/* ---- issue 35: untrusted inputs and shared databases ---- */

/* Imports a device line, a workload line, then record_line (line 3). */
static vkml_status import_one(tunedb *db, const char *record_line) {
  char lines[4096];
  snprintf(lines, sizeof lines,
           "{\"type\":\"device\",\"key\":\"10de:2330:5:00000001\",\"vendor_id\":4318,"
           "\"device_id\":9008,\"driver_version\":1,\"driver_id\":5,\"name\":\"NVIDIA H100\","
           "\"api_version\":4206592,\"pipeline_cache_uuid\":\"00\",\"limits\":\"{}\"}\n"
           "{\"type\":\"workload\",\"key\":\"w\",\"op\":\"conv2d\",\"description\":\"{}\"}\n"
           "%s\n",
           record_line);
  FILE *f = fmemopen(lines, strlen(lines), "r");
  int64_t n = -1;
  vkml_status s = tunedb_import(db, f, "in.jsonl", &n);
  fclose(f);
  return s;
}

#define GOOD_REC                                                                           \
  "{\"type\":\"record\",\"device\":\"10de:2330:5:00000001\",\"workload\":\"w\","            \
  "\"template\":\"direct\",\"schedule\":\"tile=8\",\"median_ns\":400,\"spread_ns\":1.5,"     \
  "\"runs\":21,\"correct\":true,\"failed\":false,\"message\":null,\"tool_version\":\"0.1\"," \
  "\"timestamp_us\":1700000000000000}"

/* Replaces the first `from` in GOOD_REC by `to`. */
static const char *good_but(const char *from, const char *to) {
  static char buf[4096];
  const char *g = GOOD_REC, *at = strstr(g, from);
  cr_assert_not_null(at, "%s not in the record", from);
  snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - g), g, to, at + strlen(from));
  return buf;
}

Test(tunedb, import_refuses_bad_fields) {
  static const struct {
    const char *from, *to, *field;
  } cases[] = {
      {"\"median_ns\":400", "\"median_ns\":-1000", "median_ns"},
      {"\"median_ns\":400", "\"median_ns\":0", "median_ns"},
      {"\"median_ns\":400", "\"median_ns\":1e999", "median_ns"},
      {"\"median_ns\":400", "\"median_ns\":null", "median_ns"}, /* a correct trial */
      {"\"spread_ns\":1.5", "\"spread_ns\":-0.5", "spread_ns"},
      {"\"runs\":21", "\"runs\":0", "runs"},
      {"\"runs\":21", "\"runs\":-3", "runs"},
      {"\"runs\":21", "\"runs\":2.5", "runs"},
      {"\"timestamp_us\":1700000000000000", "\"timestamp_us\":100000000000000000000000",
       "timestamp_us"},
      {"\"timestamp_us\":1700000000000000", "\"timestamp_us\":1e23", "timestamp_us"},
      {"\"timestamp_us\":1700000000000000", "\"timestamp_us\":5", "timestamp_us"},
      {"\"timestamp_us\":1700000000000000", "\"timestamp_us\":9000000000000000", "timestamp_us"},
      {"\"template\":\"direct\"", "\"template\":\"di\xff\"", "template"},
      {"\"template\":\"direct\"", "\"template\":\"\"", "template"},
      {"\"template\":\"direct\"", "\"template\":\"a b\"", "template"},
      {"\"schedule\":\"tile=8\"", "\"schedule\":\"tile=8\\n\"", "schedule"},
      {"\"schedule\":\"tile=8\"", "\"schedule\":\"tile=\\u00b5\"", "schedule"},
      {"\"tool_version\":\"0.1\"", "\"tool_version\":\"0.1\\u0007\"", "tool_version"},
      {"\"message\":null", "\"message\":\"\xc3\"", "message"},
      {"\"correct\":true", "\"correct\":\"true\"", "correct"},
      {"\"failed\":false", "\"failed\":true", "correct"}, /* correct and failed */
      {"\"device\":\"10de:2330:5:00000001\"", "\"device\":\"10DE:2330:5:00000001\"", "device"},
      {"\"device\":\"10de:2330:5:00000001\"", "\"device\":\"10de:2330:5:00000002\"", "device"},
      {"\"workload\":\"w\"", "\"workload\":\"v\"", "workload"},
      {"\"runs\":21", "\"runs\":21,\"runs\":1", "runs"},
      {"\"runs\":21", "\"runs\":21,\"speed\":1", "speed"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tunedb *db = open_new("v.db");
    vkml_status s = import_one(db, good_but(cases[i].from, cases[i].to));
    char want[64];
    snprintf(want, sizeof want, "in.jsonl:3: record field \"%s\"", cases[i].field);
    cr_expect(s != VKML_OK, "case %zu (%s) imported", i, cases[i].to);
    if (s) {
      cr_expect_eq(vkml_status_code(s), VKML_CODE_PARSE, "case %zu: %s", i, vkml_status_message(s));
      cr_expect(strstr(vkml_status_message(s), want) != NULL, "case %zu: \"%s\" not in: %s", i,
                want, vkml_status_message(s));
      vkml_status_free(s);
    }
    tunedb_close(db);
    /* all or nothing: the device and workload lines are not kept */
    cr_expect_eq(sql_int(path_in("v.db"), "SELECT count(*) FROM devices"), 0, "case %zu", i);
    unlink(path_in("v.db"));
  }
  /* the record as it is imports */
  tunedb *db = open_new("v.db");
  CHECK_OK(import_one(db, GOOD_REC));
  tunedb_close(db);
  cr_expect_eq(sql_int(path_in("v.db"), "SELECT count(*) FROM records"), 1);
}

Test(tunedb, check_reports_bad_rows) {
  tunedb *db = open_new("p.db");
  char key[TUNEDB_DEVICE_KEY_BYTES];
  tunedb_device d = h100(1);
  put_dev(db, &d, key);
  put_rec(db, key, "w", "direct", "good", 100, true, false, T0);
  tunedb_problem_list l;
  CHECK_OK(tunedb_check(db, &l));
  cr_expect_eq(l.n, 0);
  cr_expect_eq(l.n_rows, 3);
  tunedb_problem_list_free(&l);
  tunedb_close(db);
  /* rows written around import (plain SQLite: no foreign keys) */
  sql_exec(path_in("p.db"),
           "INSERT INTO records (device, workload, template, schedule, median_ns, spread_ns,"
           " runs, correct, failed, tool_version, timestamp_us) VALUES"
           " ('10de:2330:5:00000001', 'w', 'direct', 'neg', -1000, 1, 9, 1, 0, 'v', 1700000000000001),"
           " ('10de:2330:5:00000001', 'w', 'direct', 'old', 5, 1, 9, 1, 0, 'v', 7),"
           " ('10de:2330:5:00000001', 'w', CAST(x'64ff' AS TEXT), 'utf8', 5, 1, 9, 1, 0, 'v', 1700000000000002),"
           " ('10de:2330:5:00000001', 'w', 'direct', 'ctl' || char(27), 5, 1, 9, 1, 0, 'v', 1700000000000003),"
           " ('10de:2330:5:00000001', 'w', 'direct', 'bool', 5, 1, 9, 2, 0, 'v', 1700000000000004),"
           " ('10de:2330:5:00000001', 'w', 'direct', 'text', 'fast', 1, 9, 1, 0, 'v', 1700000000000005),"
           " ('10de:9999:5:00000001', 'w', 'direct', 'nodev', 5, 1, 9, 1, 0, 'v', 1700000000000006),"
           " ('10de:2330:5:00000001', 'gone', 'direct', 'nowl', 5, 1, 9, 1, 0, 'v', 1700000000000007);"
           "UPDATE devices SET name = 'H100' || char(10);");
  tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
  db = NULL;
  CHECK_OK(tunedb_open(path_in("p.db"), &ro, &db));
  CHECK_OK(tunedb_check(db, &l));
  tunedb_close(db);
  static const struct {
    const char *table, *schedule, *reason;
  } want[] = {
      {"device", NULL, "field \"name\": a control character"},
      {"record", "neg", "field \"median_ns\": -1000 is not a positive time"},
      {"record", "old", "field \"timestamp_us\": 7 us is not a time from 2020 to now"},
      {"record", "utf8", "field \"template\""},
      {"record", "ctl\\x1b", "field \"schedule\": a byte that is not printable ASCII"},
      {"record", "bool", "field \"correct\": not a boolean"},
      {"record", "text", "field \"median_ns\": stored as text"},
      {"record", "nodev", "field \"device\": no such device in the file"},
      {"record", "nowl", "field \"workload\": no such workload in the file"},
  };
  cr_assert_eq(l.n, sizeof want / sizeof want[0]);
  cr_expect_eq(l.n_rows, 11);
  for (size_t i = 0; i < l.n; i++) {
    cr_expect_str_eq(l.items[i].table, want[i].table);
    if (want[i].schedule) cr_expect_str_eq(l.items[i].schedule, want[i].schedule);
    cr_expect(strstr(l.items[i].reason, want[i].reason) != NULL, "%zu: \"%s\" not in: %s", i,
              want[i].reason, l.items[i].reason);
  }
  cr_expect_str_eq(l.items[8].workload, "gone");
  cr_expect_str_eq(l.items[7].device, "10de:9999:5:00000001");
  tunedb_problem_list_free(&l);
}

/* A reader never makes a file beside the database: not on a file a writer
 * closed (rollback mode), nor on one left in WAL mode without its -wal
 * (a killed writer's, an older vkml's), read directly or merged. */
Test(tunedb, readers_make_no_files) {
  make_fleet_file("r.db", 1, 0, 4);
  const char *p = path_in("r.db");
  cr_expect_str_eq(journal_mode(p), "delete");
  cr_expect(!side_files(p));
  sql_exec(p, "PRAGMA journal_mode = WAL"); /* SQLite removes the -wal on close */
  cr_expect_str_eq(journal_mode(p), "wal");
  cr_expect(!side_files(p));
  for (int round = 0; round < 2; round++) {
    tunedb *db = NULL;
    tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
    if (round == 0) {
      CHECK_OK(tunedb_open(p, &ro, &db));
    } else {
      tunedb_open_opts mem = {.flags = TUNEDB_OPEN_CREATE};
      CHECK_OK(tunedb_open(":memory:", &mem, &db));
      CHECK_OK(tunedb_merge(db, p, NULL));
    }
    tunedb_record_list r;
    CHECK_OK(tunedb_records_all(db, &r));
    cr_expect_eq(r.n, 4);
    tunedb_record_list_free(&r);
    cr_expect(!side_files(p), "round %d: a file beside %s while reading", round, p);
    tunedb_close(db);
    cr_expect(!side_files(p), "round %d: a file left beside %s", round, p);
  }
  /* a foreign WAL-mode file, refused: nothing beside it either */
  const char *f = path_in("f.db");
  sql_exec(f, "PRAGMA journal_mode = WAL; CREATE TABLE t(x);");
  tunedb *db = NULL;
  tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
  expect_error(tunedb_open(f, &ro, &db), VKML_CODE_INVALID_ARGUMENT, "a foreign SQLite file", NULL);
  cr_expect(!side_files(f));
  /* a writer switches it to WAL and back */
  db = NULL;
  CHECK_OK(tunedb_open(p, NULL, &db));
  cr_expect_str_eq(journal_mode(p), "wal");
  tunedb_close(db);
  cr_expect_str_eq(journal_mode(p), "delete");
  cr_expect(!side_files(p));
}

Test(tunedb, json_strings_always_valid) {
  char *out = NULL;
  size_t len;
  FILE *f = open_memstream(&out, &len);
  tunedb_json_string(f, "a\xff" "b \xc3\xb5 \xe2\x82 \xed\xa0\x80 \xf0\x9f\x98\x80 \xc0\xaf");
  fclose(f);
  cr_expect_str_eq(out, "\"a\\ufffdb \xc3\xb5 \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd "
                        "\xf0\x9f\x98\x80 \\ufffd\\ufffd\"");
  free(out);
  cr_expect_str_eq(tunedb_vendor_name(0x10005), "Mesa");
  cr_expect_str_eq(tunedb_vendor_name(0x10de), "NVIDIA");
  cr_expect_null(tunedb_vendor_name(0x1234));
}

/* tunedb_merge_from: one transaction; twice adds nothing. */
Test(tunedb, merge_from_handle) {
  make_fleet_file("a.db", 1, 0, 6);
  tunedb *src = NULL, *mem = NULL;
  tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY}, mo = {.flags = TUNEDB_OPEN_CREATE};
  CHECK_OK(tunedb_open(path_in("a.db"), &ro, &src));
  CHECK_OK(tunedb_open(":memory:", &mo, &mem));
  int64_t n;
  CHECK_OK(tunedb_merge_from(mem, src, &n));
  cr_expect_eq(n, 6);
  CHECK_OK(tunedb_merge_from(mem, src, &n));
  cr_expect_eq(n, 0);
  tunedb_record_list r;
  CHECK_OK(tunedb_records_all(mem, &r));
  cr_expect_eq(r.n, 6);
  cr_expect_str_eq(r.items[5].schedule, "s5"); /* measurement order kept */
  tunedb_record_list_free(&r);
  tunedb_close(src);
  tunedb_close(mem);
}
