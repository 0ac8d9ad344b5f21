/* fuzz_forged: forged .vkm artifacts against vkrun. The checksums of an
 * artifact are no signature: anyone can edit a field and recompute them.
 * This edits one to three fields of a seed artifact (header and section
 * table words, step records, pools, SPIR-V headers and instructions, the
 * memory plan, numbers in the graph text, weights), writes it with every
 * checksum recomputed, and runs VKRUN on it (on the Vulkan device and on the
 * CPU, alternately). A case fails when vkrun is killed by a signal, runs past
 * the time limit, prints a sanitizer report, exits with a status other than
 * 0 or 1, or fails without exactly one line on stderr. Failing cases are kept
 * in --keep DIR.
 *
 * usage: fuzz_forged --vkrun VKRUN [--seconds S] [--cases N] [--rng R]
 *                    [--limit S] [--keep DIR] SEED.vkm...
 *   (a seed's inputs: vkrun arguments in SEED.vkm.args, one a line)
 *        fuzz_forged --edit WHAT IN.vkm OUT.vkm
 *   WHAT (deterministic edits for tests): bound (module 0's id bound to
 *   0x7fffffff), grid (the first GPU step's grid y to 65535), blob (the
 *   first blob constant's offset in the graph text plus one), set (module
 *   0's first DescriptorSet decoration to 0xffffffff), binding (its first
 *   Binding decoration to 100) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir/util.h"

enum { HEADER = 64, ENTRY = 48, ALIGN = 64, N_SEC = 8, STEP_WORDS = 18 };
enum { S_PROV, S_NEEDS, S_GRAPH, S_STEPS, S_POOLS, S_MODULES, S_MEMPLAN, S_WEIGHTS };
static const char *const NAMES[N_SEC] = {"provenance", "needs",   "graph",   "steps",
                                         "pools",      "modules", "memplan", "weights"};

typedef struct art {
  uint8_t *sec[N_SEC];
  size_t len[N_SEC];
} art;

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t next(rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return r->s;
}
static uint64_t below(rng *r, uint64_t n) { return n ? next(r) % n : 0; }

static uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "fuzz_forged: out of memory\n");
    exit(2);
  }
  return p;
}

static bool read_file(const char *path, uint8_t **b, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  rewind(f);
  *b = xmalloc((size_t)sz);
  *n = (size_t)sz;
  bool ok = sz >= 0 && fread(*b, 1, (size_t)sz, f) == (size_t)sz;
  fclose(f);
  return ok;
}

/* The sections of a well-formed artifact (a seed). */
static bool split(const uint8_t *b, size_t n, art *a) {
  if (n < HEADER || rd32(b + 12) != N_SEC || HEADER + ENTRY * N_SEC > n) return false;
  for (int i = 0; i < N_SEC; i++) {
    const uint8_t *e = b + HEADER + ENTRY * i;
    uint64_t off = rd64(e + 16), len = rd64(e + 24);
    if (strncmp((const char *)e, NAMES[i], 16) || off > n || len > n - off) return false;
    a->sec[i] = xmalloc(len);
    memcpy(a->sec[i], b + off, len);
    a->len[i] = len;
  }
  return true;
}

static void art_free(art *a) {
  for (int i = 0; i < N_SEC; i++) free(a->sec[i]);
}

static art art_copy(const art *a) {
  art c;
  for (int i = 0; i < N_SEC; i++) {
    c.sec[i] = xmalloc(a->len[i]);
    memcpy(c.sec[i], a->sec[i], a->len[i]);
    c.len[i] = a->len[i];
  }
  return c;
}

static void reseal(uint8_t *b, size_t n);

/* Lays the sections out as the writer does and computes every checksum. */
static uint8_t *assemble(const art *a, size_t *n_out) {
  size_t at = HEADER + ENTRY * N_SEC, off[N_SEC];
  for (int i = 0; i < N_SEC; i++) {
    at = (at + ALIGN - 1) / ALIGN * ALIGN;
    off[i] = at;
    at += a->len[i];
  }
  uint8_t *b = calloc(1, at);
  if (!b) exit(2);
  memcpy(b, "\x89VKM\r\n\x1a\n", 8);
  wr32(b + 8, 3);
  wr32(b + 12, N_SEC);
  wr64(b + 16, at);
  for (int i = 0; i < N_SEC; i++) {
    uint8_t *e = b + HEADER + ENTRY * i;
    memcpy(e, NAMES[i], strlen(NAMES[i]));
    wr64(e + 16, off[i]);
    wr64(e + 24, a->len[i]);
    memcpy(b + off[i], a->sec[i], a->len[i]);
    wr64(e + 32, ir_checksum64(b + off[i], a->len[i]));
  }
  reseal(b, at);
  *n_out = at;
  return b;
}

/* After an edit of the header or table: the table's and the header's
 * checksums again (and the sections' where the table still points inside). */
static void reseal(uint8_t *b, size_t n) {
  uint32_t count = rd32(b + 12);
  if (count > 16 || HEADER + (uint64_t)ENTRY * count > n) count = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint8_t *e = b + HEADER + ENTRY * i;
    uint64_t off = rd64(e + 16), len = rd64(e + 24);
    if (off <= n && len <= n - off) wr64(e + 32, ir_checksum64(b + off, (size_t)len));
  }
  if (count) wr64(b + 24, ir_fnv64(b + HEADER, (size_t)ENTRY * count, IR_FNV64_SEED));
  wr64(b + 56, ir_fnv64(b, 56, IR_FNV64_SEED));
}

/* ---- field values ------------------------------------------------------------ */

static uint64_t interesting(rng *r, uint64_t orig) {
  static const uint64_t V[] = {0,      1,          2,          3,          4,
                               7,      8,          15,         16,         31,
                               32,     63,         64,         65,         127,
                               255,    256,        1023,       1024,       4095,
                               4096,   65535,      65536,      0x7fffffff, 0x80000000u,
                               0xffffffffu, 0xfffffffeu, 0x100000000ull, 0x7fffffffffffffffull,
                               0xffffffffffffffffull};
  switch (below(r, 6)) {
  case 0: return orig + 1;
  case 1: return orig - 1;
  case 2: return orig * 2 + below(r, 2);
  case 3: return orig ^ (1ull << below(r, 32));
  case 4: return next(r);
  default: return V[below(r, sizeof V / sizeof V[0])];
  }
}

static void edit32(rng *r, uint8_t *p) { wr32(p, (uint32_t)interesting(r, rd32(p))); }
static void edit64(rng *r, uint8_t *p) { wr64(p, interesting(r, rd64(p))); }

/* A word of a section at a 4-byte boundary (when it has any). */
static void edit_word(rng *r, art *a, int s) {
  if (a->len[s] < 4) return;
  edit32(r, a->sec[s] + 4 * below(r, a->len[s] / 4));
}

static void edit_steps(rng *r, art *a) {
  uint8_t *d = a->sec[S_STEPS];
  if (a->len[S_STEPS] < 4) return;
  uint32_t n = rd32(d);
  if (!n || below(r, 20) == 0) {
    edit32(r, d);
    return;
  }
  uint32_t i = (uint32_t)below(r, n), k = (uint32_t)below(r, STEP_WORDS);
  size_t at = 4 + ((size_t)i * STEP_WORDS + k) * 4;
  if (at + 4 <= a->len[S_STEPS]) edit32(r, d + at);
}

static void edit_pools(rng *r, art *a) {
  uint8_t *d = a->sec[S_POOLS];
  size_t n = a->len[S_POOLS];
  if (n < 32) return;
  uint64_t nb = rd64(d), ns = rd64(d + 8);
  /* an earlier edit of this case may have made the counts lie: then only
   * the header's words */
  if (nb > n / 4 || ns > n / 8 || 32 + 4 * nb + 8 * ns > n) {
    edit64(r, d + 8 * below(r, 4));
    return;
  }
  switch (below(r, 8)) {
  case 0: edit64(r, d + 8 * below(r, 4)); return;
  case 1: case 2:
    if (nb) edit32(r, d + 32 + 4 * below(r, nb));
    return;
  case 3: case 4: case 5: /* a specialization constant: its id or its value */
    if (ns) edit32(r, d + 32 + 4 * nb + 8 * below(r, ns) + 4 * below(r, 2));
    return;
  default: /* the push constants and strings after them */
    if (n > 32 + 4 * nb + 8 * ns + 4) {
      size_t at = 32 + 4 * nb + 8 * ns;
      d[at + below(r, n - at)] = (uint8_t)next(r);
    }
  }
}

static void edit_modules(rng *r, art *a) {
  uint8_t *d = a->sec[S_MODULES];
  size_t n = a->len[S_MODULES];
  if (n < 4) return;
  uint32_t count = rd32(d);
  if (!count || below(r, 30) == 0) {
    edit32(r, d);
    return;
  }
  /* walk to module m: 64-byte name, u64 bytes, words, padding to 8 */
  uint32_t m = (uint32_t)below(r, count);
  size_t at = 4;
  for (uint32_t i = 0; i <= m; i++) {
    if (at + 72 > n) return;
    uint64_t bytes = rd64(d + at + 64);
    if (bytes > n - at - 72) return;
    if (i < m) {
      at += 72 + bytes + (8 - bytes % 8) % 8;
      continue;
    }
    if (below(r, 10) == 0) {
      edit64(r, d + at + 64); /* the module's length */
      return;
    }
    uint8_t *w = d + at + 72;
    size_t nw = (size_t)(bytes / 4);
    if (nw < 5) return;
    if (below(r, 3) == 0) {
      edit32(r, w + 4 * (1 + below(r, 4))); /* version, generator, bound, schema */
      return;
    }
    /* an instruction: its word count and opcode, or an operand */
    size_t pick = below(r, 4096), k = 5, seen = 0;
    while (k < nw) {
      uint32_t c = rd32(w + 4 * k) >> 16;
      if (!c || k + c > nw) break;
      if (seen++ == pick % 512 || k + c == nw) {
        size_t at_w = k + below(r, c);
        if (at_w == k && below(r, 2))
          wr32(w + 4 * k, (rd32(w + 4 * k) & 0xffffu) | ((uint32_t)interesting(r, c) << 16));
        else
          edit32(r, w + 4 * at_w);
        return;
      }
      k += c;
    }
    return;
  }
}

/* A run of digits in the graph text replaced by another number (shapes,
 * blob offsets and lengths, attributes). */
static void edit_graph(rng *r, art *a) {
  uint8_t *d = a->sec[S_GRAPH];
  size_t n = a->len[S_GRAPH];
  size_t runs = 0;
  for (size_t i = 0; i < n; i++)
    if (d[i] >= '0' && d[i] <= '9' && (i == 0 || d[i - 1] < '0' || d[i - 1] > '9')) runs++;
  if (!runs) return;
  size_t want = below(r, runs), i = 0, seen = 0;
  for (; i < n; i++)
    if (d[i] >= '0' && d[i] <= '9' && (i == 0 || d[i - 1] < '0' || d[i - 1] > '9') &&
        seen++ == want)
      break;
  size_t end = i;
  while (end < n && d[end] >= '0' && d[end] <= '9') end++;
  char num[32];
  snprintf(num, sizeof num, "%.*s", (int)(end - i < 20 ? end - i : 20), (const char *)d + i);
  uint64_t v = interesting(r, strtoull(num, NULL, 10));
  if (below(r, 2)) v &= 0xffffffffu;
  char rep[32];
  int len = snprintf(rep, sizeof rep, "%llu", (unsigned long long)v);
  uint8_t *nd = xmalloc(n - (end - i) + (size_t)len);
  memcpy(nd, d, i);
  memcpy(nd + i, rep, (size_t)len);
  memcpy(nd + i + len, d + end, n - end);
  free(a->sec[S_GRAPH]);
  a->sec[S_GRAPH] = nd;
  a->len[S_GRAPH] = n - (end - i) + (size_t)len;
}

static void edit_memplan(rng *r, art *a) {
  uint8_t *d = a->sec[S_MEMPLAN];
  size_t n = a->len[S_MEMPLAN];
  if (n < 40) return;
  if (below(r, 3) == 0) {
    static const size_t F[] = {0, 4, 8, 16, 24, 32, 36};
    size_t f = F[below(r, 7)];
    if (f >= 8 && f < 32) edit64(r, d + f);
    else edit32(r, d + f);
    return;
  }
  uint32_t nv = rd32(d + 36);
  if (!nv || 40 + (size_t)nv * 20 != n) return;
  switch (below(r, 3)) {
  case 0: edit64(r, d + 40 + 8 * below(r, nv)); return;                /* offset */
  case 1: edit64(r, d + 40 + 8 * (size_t)nv + 8 * below(r, nv)); return; /* bytes */
  default: edit32(r, d + 40 + 16 * (size_t)nv + 4 * below(r, nv)); return; /* alias */
  }
}

/* One edit of a section's contents; *container: 1 when the edit is to the
 * header or table instead (done after assembling). */
static void edit_one(rng *r, art *a, int *container) {
  uint64_t k = below(r, 100);
  if (k < 8) *container = 1;
  else if (k < 26) edit_steps(r, a);
  else if (k < 44) edit_pools(r, a);
  else if (k < 62) edit_modules(r, a);
  else if (k < 78) edit_graph(r, a);
  else if (k < 88) edit_memplan(r, a);
  else if (k < 92) edit_word(r, a, S_NEEDS);
  else if (k < 97) edit_word(r, a, S_WEIGHTS);
  else edit_word(r, a, S_PROV);
}

static void edit_container(rng *r, uint8_t *b, size_t n) {
  if (below(r, 2)) {
    static const size_t F[] = {8, 12, 16, 32, 40, 48};
    size_t f = F[below(r, 6)];
    if (f == 8 || f == 12) edit32(r, b + f);
    else edit64(r, b + f);
  } else {
    size_t e = HEADER + ENTRY * below(r, N_SEC);
    edit64(r, b + e + 16 + 8 * below(r, 2)); /* offset or length */
  }
  reseal(b, n);
}

/* ---- deterministic edits ------------------------------------------------------ */

static int edit_named(const char *what, art *a) {
  if (!strcmp(what, "set") || !strcmp(what, "binding")) {
    /* module 0's first DescriptorSet decoration to 0xffffffff, or its first
     * Binding to 100 (OpDecorate id decoration value) */
    uint8_t *d = a->sec[S_MODULES];
    size_t n = a->len[S_MODULES];
    if (n < 4 + 72 + 20 || !rd32(d)) return 1;
    uint32_t want = what[0] == 's' ? 34 : 33;
    for (size_t o = 4 + 72 + 20; o + 16 <= n;) {
      uint32_t w0 = rd32(d + o), count = w0 >> 16;
      if (!count) return 1;
      if ((w0 & 0xffffu) == 71 && count >= 4 && rd32(d + o + 8) == want) {
        wr32(d + o + 12, want == 34 ? 0xffffffffu : 100);
        return 0;
      }
      o += 4 * (size_t)count;
    }
    return 1;
  }
  if (!strcmp(what, "bound")) {
    uint8_t *d = a->sec[S_MODULES];
    if (a->len[S_MODULES] < 4 + 72 + 20 || !rd32(d)) return 1;
    wr32(d + 4 + 72 + 12, 0x7fffffffu);
    return 0;
  }
  if (!strcmp(what, "grid")) {
    uint8_t *d = a->sec[S_STEPS];
    uint32_t n = a->len[S_STEPS] >= 4 ? rd32(d) : 0;
    for (uint32_t i = 0; i < n; i++) {
      uint8_t *s = d + 4 + (size_t)i * STEP_WORDS * 4;
      if (rd32(s + 4) == 1 /* IR_DEVICE_GPU */ && rd32(s + 8) == 0) {
        wr32(s + 11 * 4, 65535);
        return 0;
      }
    }
    return 1;
  }
  if (!strcmp(what, "blob")) {
    /* "@blob[OFFSET, LEN]" of the first constant: OFFSET + 1 */
    char *g = xmalloc(a->len[S_GRAPH] + 1);
    memcpy(g, a->sec[S_GRAPH], a->len[S_GRAPH]);
    g[a->len[S_GRAPH]] = 0;
    char *p = strstr(g, "@blob[");
    if (!p) return 1;
    p += 6;
    char *end;
    unsigned long long off = strtoull(p, &end, 10);
    char rep[32];
    int len = snprintf(rep, sizeof rep, "%llu", off + 1);
    size_t head = (size_t)(p - g), tail = a->len[S_GRAPH] - (size_t)(end - g);
    uint8_t *nd = xmalloc(head + (size_t)len + tail);
    memcpy(nd, g, head);
    memcpy(nd + head, rep, (size_t)len);
    memcpy(nd + head + len, end, tail);
    free(a->sec[S_GRAPH]);
    a->sec[S_GRAPH] = nd;
    a->len[S_GRAPH] = head + (size_t)len + tail;
    free(g);
    return 0;
  }
  return 2;
}

static bool write_file(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(b, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* ---- running vkrun --------------------------------------------------------------- */

typedef enum { RES_OK, RES_SIGNAL, RES_TIMEOUT, RES_SANITIZER, RES_STATUS, RES_LINES } result;
static const char *const RESULT[] = {"ok", "killed by a signal", "past the time limit",
                                     "sanitizer report", "exit status not 0 or 1",
                                     "failure without exactly one stderr line"};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A seed's further vkrun arguments (its inputs): SEED.vkm.args, one a line. */
typedef struct seed_args {
  char *argv[16];
  int argc;
} seed_args;

static void load_args(const char *seed, seed_args *a) {
  a->argc = 0;
  char path[4200], line[4200];
  snprintf(path, sizeof path, "%s.args", seed);
  FILE *f = fopen(path, "r");
  while (f && a->argc < 16 && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (line[0]) a->argv[a->argc++] = strdup(line);
  }
  if (f) fclose(f);
}

static result run_case(const char *vkrun, const char *file, const seed_args *sa, bool cpu,
                       double limit, const char *err_path, int *status_out) {
  pid_t pid = fork();
  if (pid < 0) {
    perror("fuzz_forged: fork");
    exit(2);
  }
  if (pid == 0) {
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int nul = open("/dev/null", O_WRONLY);
    if (fd < 0 || nul < 0) _exit(125);
    dup2(nul, 1);
    dup2(fd, 2);
    setpgid(0, 0);
    char *args[24];
    int k = 0;
    args[k++] = (char *)vkrun;
    args[k++] = (char *)file;
    for (int i = 0; i < sa->argc; i++) args[k++] = sa->argv[i];
    if (cpu) {
      args[k++] = "--device";
      args[k++] = "cpu";
    }
    args[k] = NULL;
    execv(vkrun, args);
    _exit(126);
  }
  double t0 = now_s();
  int st = 0;
  bool timed_out = false;
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    if (now_s() - t0 > limit) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      timed_out = true;
      break;
    }
    usleep(2000);
  }
  *status_out = st;
  /* the report names the sanitizer whatever the exit status */
  FILE *f = fopen(err_path, "r");
  int lines = 0;
  bool san = false;
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    lines++;
    if (strstr(line, "Sanitizer") || strstr(line, "runtime error:")) san = true;
  }
  if (f) fclose(f);
  if (timed_out) return RES_TIMEOUT;
  if (san) return RES_SANITIZER;
  if (WIFSIGNALED(st)) return RES_SIGNAL;
  int code = WEXITSTATUS(st);
  if (code != 0 && code != 1) return RES_STATUS;
  if (code == 1 && lines != 1) return RES_LINES;
  return RES_OK;
}

static int usage(void) {
  fprintf(stderr,
          "usage: fuzz_forged --vkrun VKRUN [--seconds S] [--cases N] [--rng R] [--limit S] "
          "[--keep DIR] SEED.vkm...\n"
          "       fuzz_forged --edit bound|grid|blob|set|binding IN.vkm OUT.vkm\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *vkrun = NULL, *keep = NULL;
  double seconds = 60, limit = 30;
  long cases = -1;
  uint64_t seed = 1;
  const char *seeds[64];
  int n_seeds = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--edit")) {
      if (i + 4 != argc) return usage();
      uint8_t *b;
      size_t n;
      art a;
      if (!read_file(argv[i + 2], &b, &n) || !split(b, n, &a)) {
        fprintf(stderr, "fuzz_forged: %s: not a well-formed artifact\n", argv[i + 2]);
        return 1;
      }
      int e = edit_named(argv[i + 1], &a);
      if (e == 2) return usage();
      if (e) {
        fprintf(stderr, "fuzz_forged: %s: nothing to edit for '%s'\n", argv[i + 2], argv[i + 1]);
        return 1;
      }
      size_t m;
      uint8_t *out = assemble(&a, &m);
      bool ok = write_file(argv[i + 3], out, m);
      free(out);
      free(b);
      art_free(&a);
      return ok ? 0 : 1;
    }
    if (i + 1 < argc && !strcmp(argv[i], "--vkrun")) vkrun = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--seconds")) seconds = atof(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--cases")) cases = atol(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--rng")) seed = strtoull(argv[++i], NULL, 0);
    else if (i + 1 < argc && !strcmp(argv[i], "--limit")) limit = atof(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--keep")) keep = argv[++i];
    else if (argv[i][0] == '-') return usage();
    else if (n_seeds < 64) seeds[n_seeds++] = argv[i];
  }
  if (!vkrun || !n_seeds) return usage();
  art base[64];
  seed_args sargs[64];
  for (int i = 0; i < n_seeds; i++) {
    load_args(seeds[i], &sargs[i]);
    uint8_t *b;
    size_t n;
    if (!read_file(seeds[i], &b, &n) || !split(b, n, &base[i])) {
      fprintf(stderr, "fuzz_forged: %s: not a well-formed artifact\n", seeds[i]);
      return 1;
    }
    free(b);
  }
  char dir[] = "/tmp/fuzz_forged.XXXXXX";
  if (!mkdtemp(dir)) {
    perror("fuzz_forged: mkdtemp");
    return 2;
  }
  char file[128], err[128];
  snprintf(file, sizeof file, "%s/case.vkm", dir);
  snprintf(err, sizeof err, "%s/stderr", dir);
  rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
  long counts[6] = {0}, ran = 0, refused = 0;
  double t0 = now_s();
  for (long c = 0; cases < 0 ? now_s() - t0 < seconds : c < cases; c++) {
    int si = (int)below(&r, (uint64_t)n_seeds);
    art a = art_copy(&base[si]);
    int container = 0, edits = 1 + (int)below(&r, 3);
    for (int e = 0; e < edits; e++) edit_one(&r, &a, &container);
    size_t n;
    uint8_t *b = assemble(&a, &n);
    if (container) edit_container(&r, b, n);
    art_free(&a);
    if (!write_file(file, b, n)) {
      fprintf(stderr, "fuzz_forged: cannot write %s\n", file);
      return 2;
    }
    bool cpu = below(&r, 3) == 0;
    int st;
    result res = run_case(vkrun, file, &sargs[si], cpu, limit, err, &st);
    counts[res]++;
    if (res == RES_OK) {
      if (WEXITSTATUS(st) == 0) ran++;
      else refused++;
    } else {
      char first[512] = "";
      FILE *f = fopen(err, "r");
      if (f) {
        if (!fgets(first, sizeof first, f)) first[0] = 0;
        fclose(f);
      }
      first[strcspn(first, "\n")] = 0;
      fprintf(stderr, "case %ld (seed %s%s): %s (status 0x%x): %s\n", c, seeds[si],
              cpu ? ", --device cpu" : "", RESULT[res], st, first);
      if (keep) {
        char kp[4200];
        mkdir(keep, 0755);
        snprintf(kp, sizeof kp, "%s/case%ld%s.vkm", keep, c, cpu ? "-cpu" : "");
        write_file(kp, b, n);
      }
    }
    free(b);
  }
  unlink(file);
  unlink(err);
  rmdir(dir);
  long failed = counts[1] + counts[2] + counts[3] + counts[4] + counts[5];
  printf("fuzz_forged: %ld cases in %.0f s: %ld ran, %ld refused with one line, %ld failed\n",
         ran + refused + failed, now_s() - t0, ran, refused, failed);
  for (int i = 0; i < n_seeds; i++) {
    art_free(&base[i]);
    for (int k = 0; k < sargs[i].argc; k++) free(sargs[i].argv[k]);
  }
  fflush(stdout);
  return failed ? 1 : 0;
}
