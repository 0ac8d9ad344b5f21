/* vkdb: a thin command-line tool over tunedb for one or many schedule
 * databases (tools/README.md). Several --db files are merged into a private
 * in-memory database (through ATTACH) and queried there; only `merge` and
 * `import` write, and only to the file they name. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/artifact.h"
#include "ir/file.h"
#include "ir/memplan.h"
#include "tunedb/tunedb.h"
#include "tunedb/tunedb_json.h"

static const char usage_text[] =
    "usage: vkdb [--db FILE]... COMMAND [ARGS] [--json]\n"
    "\n"
    "commands:\n"
    "  devices                 the devices: records (what import and merge count), of them\n"
    "                          trials and confirmations, and workloads tuned\n"
    "  coverage WORKLOADS      which of the workloads are tuned (have a correct record) on\n"
    "                          which devices; WORKLOADS is a compiled model (MODEL.vkm: the\n"
    "                          distinct workloads of its GPU kernels) or a text file of\n"
    "                          workload keys, one per line\n"
    "  best WORKLOAD           the best record of WORKLOAD on every device\n"
    "  compare DEV DEV         per workload tuned on both: best times and their ratio\n"
    "  merge OUT.db            copy every --db into OUT.db (created if missing); records\n"
    "                          already there are skipped, so merging twice changes nothing\n"
    "  export                  every device, workload and record as JSON lines on stdout\n"
    "  import FILE             read JSON lines (FILE or - for stdin) into the one --db\n"
    "                          (created if missing), all or nothing\n"
    "  report OUT.html         a self-contained HTML page: tuning curves per workload,\n"
    "                          speedup of tuning per device\n"
    "  check                   check every row of each --db (on its own) by import's rules:\n"
    "                          times finite and positive, runs, timestamps from 2020 to now,\n"
    "                          valid UTF-8, printable keys, templates and schedules, records\n"
    "                          whose device or workload is missing; one line per bad row\n"
    "                          and a summary (--json: a list); exit 1 when any is bad\n"
    "\n"
    "options:\n"
    "  --db FILE               a schedule database; repeat for several (at least one)\n"
    "  --json                  tables as JSON instead of text\n"
    "  --help                  this text\n"
    "\n"
    "exit status: 0 ok, 1 failure (one line on stderr naming the file and reason),\n"
    "2 usage error. A failed import or merge leaves the file it writes as it was,\n"
    "and no file at all where there was none.\n";

/* s on stderr on one line: control characters as \xNN. */
static void put_escaped(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7f)
      fprintf(stderr, "\\x%02x", *p);
    else
      fputc(*p, stderr);
  }
}

static int usage_error(const char *fmt, const char *arg) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, arg);
  fputs("vkdb: ", stderr);
  put_escaped(msg);
  fputs(" (vkdb --help for usage)\n", stderr);
  return 2;
}

/* The one line of a failure. */
static int fail(vkml_status s) {
  fputs("vkdb: ", stderr);
  put_escaped(vkml_status_message(s));
  fputc('\n', stderr);
  vkml_status_free(s);
  return 1;
}

/* Opens the one --db for reading (an older schema is migrated in place, as
 * any vkml tool does), or merges several into memory. */
static vkml_status open_inputs(char **dbs, int n_dbs, tunedb **out) {
  if (n_dbs == 1) {
    tunedb_open_opts o = {.flags = TUNEDB_OPEN_READONLY};
    vkml_status s = tunedb_open(dbs[0], &o, out);
    if (s == VKML_OK || vkml_status_code(s) != VKML_CODE_UNSUPPORTED ||
        !strstr(vkml_status_message(s), "older"))
      return s;
    vkml_status_free(s);
    return tunedb_open(dbs[0], NULL, out);
  }
  tunedb_open_opts o = {.flags = TUNEDB_OPEN_CREATE};
  VKML_RETURN_IF_ERROR(tunedb_open(":memory:", &o, out));
  for (int i = 0; i < n_dbs; i++) {
    vkml_status s = tunedb_merge(*out, dbs[i], NULL);
    if (s != VKML_OK) {
      tunedb_close(*out);
      *out = NULL;
      return s;
    }
  }
  return VKML_OK;
}

/* "records" is every row, what import and merge count; of them "trials"
 * are the walk's, "confirmations" its best measured again. */
static int cmd_devices(tunedb *db, bool json) {
  tunedb_device_list l;
  vkml_status s = tunedb_devices_list(db, &l);
  if (s != VKML_OK) return fail(s);
  if (json) fputs("[", stdout);
  else
    printf("%-28s %-32s %8s %7s %13s %9s\n", "device", "name", "records", "trials",
           "confirmations", "workloads");
  for (size_t i = 0; i < l.n; i++) {
    const tunedb_device_info *d = &l.items[i];
    const char *vendor = tunedb_vendor_name(d->dev.vendor_id);
    long long n_all = (long long)(d->n_records + d->n_confirmations);
    if (json) {
      printf("%s\n {\"key\":", i ? "," : "");
      tunedb_json_string(stdout, d->key);
      printf(",\"name\":");
      tunedb_json_string(stdout, d->dev.name);
      printf(",\"vendor\":");
      tunedb_json_string(stdout, vendor);
      printf(",\"vendor_id\":%u,\"device_id\":%u,\"driver_version\":%u,\"driver_id\":%u,"
             "\"api_version\":%u,\"records\":%lld,\"trials\":%lld,\"confirmations\":%lld,"
             "\"workloads\":%lld,\"limits\":",
             d->dev.vendor_id, d->dev.device_id, d->dev.driver_version, d->dev.driver_id,
             d->dev.api_version, n_all, (long long)d->n_records,
             (long long)d->n_confirmations, (long long)d->n_workloads);
      tunedb_json_string(stdout, d->dev.limits_json);
      printf("}");
    } else {
      char name[300];
      if (d->dev.name[0])
        snprintf(name, sizeof name, "%s", d->dev.name);
      else if (vendor)
        snprintf(name, sizeof name, "(no name recorded; vendor %s)", vendor);
      else
        snprintf(name, sizeof name, "(no name recorded; vendor 0x%x)", d->dev.vendor_id);
      printf("%-28s %-32s %8lld %7lld %13lld %9lld\n", d->key, name, n_all,
             (long long)d->n_records, (long long)d->n_confirmations, (long long)d->n_workloads);
    }
  }
  if (json) puts("\n]");
  tunedb_device_list_free(&l);
  return 0;
}

/* Reads workload keys, one per line (blank lines and # comments skipped). */
static vkml_status read_keys(const char *path, char ***keys, size_t *n) {
  *keys = NULL;
  *n = 0;
  FILE *f;
  VKML_RETURN_IF_ERROR(ir_file_fopen(path, &f));
  char *line = NULL;
  size_t cap = 0, kcap = 0;
  ssize_t len;
  vkml_status s = VKML_OK;
  while ((len = getline(&line, &cap, f)) >= 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
      line[--len] = 0;
    if (len == 0 || line[0] == '#') continue;
    if (*n == kcap) {
      kcap = kcap ? 2 * kcap : 16;
      char **p = realloc(*keys, kcap * sizeof *p);
      if (!p) {
        s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
        break;
      }
      *keys = p;
    }
    if (!((*keys)[*n] = strdup(line))) {
      s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
      break;
    }
    (*n)++;
  }
  if (s == VKML_OK && ferror(f)) s = vkml_status_make(VKML_CODE_IO, "%s: read error", path);
  free(line);
  fclose(f);
  return s;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The distinct workload keys of an artifact's GPU steps, in step order. */
static vkml_status artifact_keys(const char *path, char ***keys, size_t *n) {
  *keys = NULL;
  *n = 0;
  ir_plan *p = NULL;
  VKML_RETURN_IF_ERROR(ir_artifact_load_file(path, &p));
  vkml_status s = VKML_OK;
  *keys = calloc((size_t)p->n_steps + 1, sizeof **keys);
  if (!*keys) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
  /* steps follow the graph's nodes one to one (ir_plan_check); a view
   * (flatten, reshape) is tuned never: it shares its input's bytes */
  int i = 0;
  ir_foreach_node(p->graph, node) {
    if (s) break;
    const ir_plan_step *st = &p->steps[i++];
    if (st->device != IR_DEVICE_GPU || ir_node_is_view(node)) continue;
    const char *k = ir_plan_str(p, st->key);
    bool seen = !*k;
    for (size_t j = 0; j < *n && !seen; j++) seen = !strcmp((*keys)[j], k);
    if (seen) continue;
    if (!((*keys)[*n] = strdup(k))) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
    else (*n)++;
  }
  ir_plan_destroy(p);
  return s;
}

static int cmd_coverage(tunedb *db, const char *path, bool json) {
  if (ends_with(path, ".onnx") || ends_with(path, ".vkir"))
    return fail(vkml_status_make(VKML_CODE_UNSUPPORTED,
                                 "%s: coverage lists a compiled model's workloads: compile it "
                                 "first (vkc compile MODEL -o MODEL.vkm), or pass a text file "
                                 "of workload keys",
                                 path));
  char **keys;
  size_t n_keys;
  vkml_status s = ends_with(path, ".vkm") ? artifact_keys(path, &keys, &n_keys)
                                          : read_keys(path, &keys, &n_keys);
  tunedb_coverage c = {0};
  if (s == VKML_OK) s = tunedb_coverage_get(db, (const char *const *)keys, n_keys, &c);
  tunedb_strings_free(keys, n_keys);
  if (s != VKML_OK) return fail(s);
  size_t covered = 0;
  if (json) fputs("[", stdout);
  for (size_t i = 0; i < c.n; i++) {
    const tunedb_coverage_row *r = &c.rows[i];
    covered += r->n_devices > 0;
    if (json) {
      printf("%s\n {\"workload\":", i ? "," : "");
      tunedb_json_string(stdout, r->workload_key);
      printf(",\"devices\":[");
      for (size_t d = 0; d < r->n_devices; d++) {
        if (d) putchar(',');
        tunedb_json_string(stdout, r->device_keys[d]);
      }
      printf("]}");
    } else {
      printf("%s\t%zu", r->workload_key, r->n_devices);
      for (size_t d = 0; d < r->n_devices; d++) printf("%s%s", d ? "," : "\t", r->device_keys[d]);
      putchar('\n');
    }
  }
  if (json) puts("\n]");
  else printf("%zu of %zu workloads tuned on at least one device\n", covered, c.n);
  tunedb_coverage_free(&c);
  return 0;
}

static int cmd_best(tunedb *db, const char *workload, bool json) {
  tunedb_record_list l;
  vkml_status s = tunedb_best_all(db, workload, &l);
  if (s != VKML_OK) return fail(s);
  if (json) fputs("[", stdout);
  for (size_t i = 0; i < l.n; i++) {
    const tunedb_record *r = &l.items[i];
    if (json) {
      printf("%s\n {\"device\":", i ? "," : "");
      tunedb_json_string(stdout, r->device_key);
      printf(",\"template\":");
      tunedb_json_string(stdout, r->template_name);
      printf(",\"schedule\":");
      tunedb_json_string(stdout, r->schedule);
      printf(",\"median_ns\":");
      tunedb_json_number(stdout, r->median_ns);
      printf(",\"spread_ns\":");
      tunedb_json_number(stdout, r->spread_ns);
      printf(",\"runs\":%lld,\"tool_version\":", (long long)r->runs);
      tunedb_json_string(stdout, r->tool_version);
      printf(",\"confirmed\":%s}", r->confirmation ? "true" : "false");
    } else {
      printf("%s\t%s\t%s\t%.3f us%s\n", r->device_key, r->template_name, r->schedule,
             r->median_ns / 1e3, r->confirmation ? " (confirmed)" : "");
    }
  }
  if (json) puts("\n]");
  else if (l.n == 0) printf("no correct record of %s\n", workload);
  tunedb_record_list_free(&l);
  return 0;
}

/* Fails naming the first of a, b that db does not know, and listing the
 * devices it knows; label names the --db files. */
static vkml_status devices_known(tunedb *db, const char *label, const char *a, const char *b) {
  tunedb_device_list l;
  VKML_RETURN_IF_ERROR(tunedb_devices_list(db, &l));
  const char *dev[2] = {a, b}, *unknown = NULL;
  for (int k = 0; k < 2 && !unknown; k++) {
    bool found = false;
    for (size_t i = 0; i < l.n && !found; i++) found = strcmp(l.items[i].key, dev[k]) == 0;
    if (!found) unknown = dev[k];
  }
  vkml_status s = VKML_OK;
  if (unknown) {
    size_t cap = 1 + l.n * TUNEDB_DEVICE_KEY_BYTES;
    char *known = malloc(cap);
    size_t n = 0;
    if (known) {
      known[0] = 0;
      for (size_t i = 0; i < l.n; i++)
        n += (size_t)snprintf(known + n, cap - n, "%s%s", i ? ", " : "", l.items[i].key);
    }
    s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: unknown device %s (known: %s)", label,
                         unknown, !known ? "?" : l.n ? known : "none");
    free(known);
  }
  tunedb_device_list_free(&l);
  return s;
}

static int cmd_compare(tunedb *db, const char *label, const char *a, const char *b, bool json) {
  vkml_status s = devices_known(db, label, a, b);
  if (s != VKML_OK) return fail(s);
  tunedb_compare c;
  s = tunedb_compare_get(db, a, b, &c);
  if (s != VKML_OK) return fail(s);
  double log_sum = 0;
  if (json) fputs("[", stdout);
  else printf("%-48s %12s %12s %8s\n", "workload", "a (us)", "b (us)", "a/b");
  for (size_t i = 0; i < c.n; i++) {
    const tunedb_compare_row *r = &c.rows[i];
    double ratio = r->best_a_ns / r->best_b_ns;
    log_sum += log(ratio);
    if (json) {
      printf("%s\n {\"workload\":", i ? "," : "");
      tunedb_json_string(stdout, r->workload_key);
      printf(",\"a_ns\":");
      tunedb_json_number(stdout, r->best_a_ns);
      printf(",\"b_ns\":");
      tunedb_json_number(stdout, r->best_b_ns);
      printf(",\"ratio\":");
      tunedb_json_number(stdout, ratio);
      printf("}");
    } else {
      printf("%-48s %12.3f %12.3f %8.3f\n", r->workload_key, r->best_a_ns / 1e3,
             r->best_b_ns / 1e3, ratio);
    }
  }
  if (json) puts("\n]");
  else if (c.n) printf("%zu common workloads, geometric mean a/b %.3f\n", c.n, exp(log_sum / c.n));
  else printf("no workload tuned on both %s and %s\n", a, b);
  tunedb_compare_free(&c);
  return 0;
}

/* Creates path when it is missing; *created says this process made it
 * (O_EXCL), so a failed command removes only a file of its own. */
static vkml_status create_missing(const char *path, bool *created) {
  *created = false;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    *created = true;
    close(fd);
  } else if (errno != EEXIST) {
    return vkml_status_make(VKML_CODE_IO, "%s: %s", path, strerror(errno));
  }
  return VKML_OK;
}

/* Removes a database this process created, and what SQLite keeps beside it. */
static void remove_created(const char *path) {
  static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
  size_t n = strlen(path) + 16;
  char *p = malloc(n);
  for (int i = 0; p && i < 4; i++) {
    snprintf(p, n, "%s%s", path, sides[i]);
    unlink(p);
  }
  free(p);
}

/* Opens (creating when missing) the one file a command writes. */
static vkml_status open_output(const char *path, bool *created, tunedb **out) {
  VKML_RETURN_IF_ERROR(create_missing(path, created));
  tunedb_open_opts o = {.flags = TUNEDB_OPEN_CREATE};
  vkml_status s = tunedb_open(path, &o, out);
  if (s != VKML_OK && *created) remove_created(path);
  return s;
}

/* Every source is merged into a private copy of OUT.db (in memory) first,
 * counting what each adds; OUT.db then takes them all in one transaction. */
static int cmd_merge(char **dbs, int n_dbs, const char *out_path, bool json) {
  /* every source checked before anything is written */
  tunedb *out = NULL, *mem = NULL;
  tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
  for (int i = 0; i < n_dbs; i++) {
    vkml_status s = tunedb_open(dbs[i], &ro, &out);
    if (s != VKML_OK) return fail(s);
    tunedb_close(out);
  }
  bool created;
  vkml_status s = open_output(out_path, &created, &out);
  if (s != VKML_OK) return fail(s);
  tunedb_open_opts mo = {.flags = TUNEDB_OPEN_CREATE};
  s = tunedb_open(":memory:", &mo, &mem);
  if (s == VKML_OK) s = tunedb_merge_from(mem, out, NULL);
  int64_t *added = calloc((size_t)n_dbs, sizeof *added), total = 0;
  if (s == VKML_OK && !added) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; i < n_dbs && s == VKML_OK; i++) s = tunedb_merge(mem, dbs[i], &added[i]);
  if (s == VKML_OK) s = tunedb_merge_from(out, mem, &total);
  tunedb_close(mem);
  tunedb_close(out);
  if (s != VKML_OK) {
    free(added);
    if (created) remove_created(out_path);
    return fail(s);
  }
  for (int i = 0; i < n_dbs && !json; i++)
    printf("%s: %lld records added\n", dbs[i], (long long)added[i]);
  if (json) printf("{\"records_added\":%lld}\n", (long long)total);
  free(added);
  return 0;
}

static int cmd_import(const char *db_path, const char *file, bool json) {
  FILE *f = stdin;
  if (strcmp(file, "-") != 0) {
    vkml_status e = ir_file_fopen(file, &f);
    if (e) return fail(e);
  }
  tunedb *db;
  bool created;
  vkml_status s = open_output(db_path, &created, &db);
  int64_t n = 0;
  if (s == VKML_OK) {
    s = tunedb_import(db, f, strcmp(file, "-") == 0 ? "stdin" : file, &n);
    tunedb_close(db);
    if (s != VKML_OK && created) remove_created(db_path);
  }
  if (f != stdin) fclose(f);
  if (s != VKML_OK) return fail(s);
  if (json) printf("{\"records_added\":%lld}\n", (long long)n);
  else printf("%s: %lld records added\n", db_path, (long long)n);
  return 0;
}

/* Each file on its own (not merged: a bad row is reported where it is). */
static int cmd_check(char **dbs, int n_dbs, bool json) {
  int64_t n_bad = 0;
  if (json) fputs("[", stdout);
  for (int k = 0; k < n_dbs; k++) {
    tunedb *db;
    tunedb_open_opts ro = {.flags = TUNEDB_OPEN_READONLY};
    vkml_status s = tunedb_open(dbs[k], &ro, &db);
    tunedb_problem_list l = {0};
    if (s == VKML_OK) {
      s = tunedb_check(db, &l);
      tunedb_close(db);
    }
    if (s != VKML_OK) {
      if (json) puts("\n]");
      return fail(s);
    }
    for (size_t i = 0; i < l.n; i++) {
      const tunedb_problem *p = &l.items[i];
      if (json) {
        printf("%s\n {\"file\":", n_bad + (int64_t)i ? "," : "");
        tunedb_json_string(stdout, dbs[k]);
        printf(",\"table\":\"%s\",\"id\":%lld,\"device\":", p->table, (long long)p->id);
        tunedb_json_string(stdout, p->device);
        printf(",\"workload\":");
        tunedb_json_string(stdout, p->workload);
        printf(",\"schedule\":");
        tunedb_json_string(stdout, p->schedule);
        printf(",\"reason\":");
        tunedb_json_string(stdout, p->reason);
        printf("}");
      } else {
        printf("%s: %s %lld: device %s, workload %s, schedule %s: %s\n", dbs[k], p->table,
               (long long)p->id, p->device ? p->device : "-", p->workload ? p->workload : "-",
               p->schedule ? p->schedule : "-", p->reason);
      }
    }
    if (!json)
      printf("%s: %zu bad of %lld rows (devices, workloads, records)\n", dbs[k], l.n,
             (long long)l.n_rows);
    n_bad += (int64_t)l.n;
    tunedb_problem_list_free(&l);
  }
  if (json) puts("\n]");
  if (n_bad == 0) return 0;
  fflush(stdout);
  char files[512] = "";
  for (int k = 0, len = 0; k < n_dbs && len < (int)sizeof files; k++)
    len += snprintf(files + len, sizeof files - (size_t)len, "%s%s", k ? ", " : "", dbs[k]);
  return fail(vkml_status_make(VKML_CODE_CORRUPT, "%s: %lld bad rows (listed on stdout)", files,
                               (long long)n_bad));
}

/* Writes OUT.html.tmp, then renames: a failed report leaves no page. */
static int cmd_report(tunedb *db, const char *out_path) {
  size_t n = strlen(out_path) + 8;
  char *tmp = malloc(n);
  if (!tmp) return fail(vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of memory"));
  snprintf(tmp, n, "%s.tmp", out_path);
  FILE *f = fopen(tmp, "w");
  vkml_status s = VKML_OK;
  if (!f) {
    s = vkml_status_make(VKML_CODE_IO, "%s: %s", out_path, strerror(errno));
  } else {
    s = tunedb_report_write(db, f);
    if (fclose(f) != 0 && s == VKML_OK)
      s = vkml_status_make(VKML_CODE_IO, "%s: %s", out_path, strerror(errno));
    if (s == VKML_OK && rename(tmp, out_path) != 0)
      s = vkml_status_make(VKML_CODE_IO, "%s: %s", out_path, strerror(errno));
    if (s != VKML_OK) remove(tmp);
    if (s != VKML_OK) s = vkml_status_annotate(s, "%s", out_path);
  }
  free(tmp);
  return s == VKML_OK ? 0 : fail(s);
}

typedef struct command {
  const char *name;
  int n_args;
} command;
static const command commands[] = {{"devices", 0}, {"coverage", 1}, {"best", 1},
                                   {"compare", 2}, {"merge", 1},    {"export", 0},
                                   {"import", 1},  {"report", 1},   {"check", 0}};

int main(int argc, char **argv) {
  char **dbs = calloc((size_t)argc, sizeof *dbs);
  char **pos = calloc((size_t)argc, sizeof *pos);
  int n_dbs = 0, n_pos = 0, rc = 0;
  bool json = false;
  if (!dbs || !pos) return fail(vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of memory"));
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage_text, stdout);
      goto out;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (strcmp(argv[i], "--db") == 0) {
      if (i + 1 >= argc) {
        rc = usage_error("%s needs a FILE", "--db");
        goto out;
      }
      dbs[n_dbs++] = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      rc = usage_error("unknown option %s", argv[i]);
      goto out;
    } else {
      pos[n_pos++] = argv[i];
    }
  }
  if (n_pos == 0) {
    rc = usage_error("%s", "no command");
    goto out;
  }
  const command *cmd = NULL;
  for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
    if (strcmp(pos[0], commands[c].name) == 0) cmd = &commands[c];
  if (!cmd) {
    rc = usage_error("unknown command %s", pos[0]);
    goto out;
  }
  if (n_pos - 1 != cmd->n_args) {
    rc = usage_error("wrong number of arguments to %s", cmd->name);
    goto out;
  }
  if (n_dbs == 0) {
    rc = usage_error("%s needs at least one --db FILE", cmd->name);
    goto out;
  }
  if (strcmp(cmd->name, "merge") == 0) {
    rc = cmd_merge(dbs, n_dbs, pos[1], json);
    goto out;
  }
  if (strcmp(cmd->name, "check") == 0) {
    rc = cmd_check(dbs, n_dbs, json);
    goto out;
  }
  if (strcmp(cmd->name, "import") == 0) {
    rc = n_dbs == 1 ? cmd_import(dbs[0], pos[1], json)
                    : usage_error("%s takes exactly one --db", "import");
    goto out;
  }
  /* the --db files, for messages about what they hold together */
  char label[512] = "";
  for (int k = 0, len = 0; k < n_dbs && len < (int)sizeof label; k++)
    len += snprintf(label + len, sizeof label - (size_t)len, "%s%s", k ? " + " : "", dbs[k]);
  tunedb *db;
  vkml_status s = open_inputs(dbs, n_dbs, &db);
  if (s != VKML_OK) {
    rc = fail(s);
    goto out;
  }
  if (strcmp(cmd->name, "devices") == 0) rc = cmd_devices(db, json);
  else if (strcmp(cmd->name, "coverage") == 0) rc = cmd_coverage(db, pos[1], json);
  else if (strcmp(cmd->name, "best") == 0) rc = cmd_best(db, pos[1], json);
  else if (strcmp(cmd->name, "compare") == 0) rc = cmd_compare(db, label, pos[1], pos[2], json);
  else if (strcmp(cmd->name, "report") == 0) rc = cmd_report(db, pos[1]);
  else if ((s = tunedb_export(db, stdout)) != VKML_OK) rc = fail(s);
  tunedb_close(db);
out:
  free(dbs);
  free(pos);
  return rc;
}
