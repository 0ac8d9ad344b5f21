/* The .vkm artifact: encoding and decoding (see artifact.h). */
#include "artifact.h"
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/text.h"
#include "ir/util.h"

static const uint8_t MAGIC[8] = {0x89, 'V', 'K', 'M', '\r', '\n', 0x1a, '\n'};
enum { HEADER = 64, ENTRY = 48, ALIGN = 64, MAX_SECTIONS = 16, STEP_WORDS = 18 };

/* ---- a growing little-endian buffer ------------------------------------------ */

typedef struct wbuf {
  uint8_t *d;
  size_t n, cap;
  bool oom;
} wbuf;

static void w_bytes(wbuf *b, const void *p, size_t n) {
  if (b->oom || !n) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    uint8_t *d = realloc(b->d, cap);
    if (!d) {
      b->oom = true;
      return;
    }
    b->d = d;
    b->cap = cap;
  }
  memcpy(b->d + b->n, p, n);
  b->n += n;
}

static void w_u32(wbuf *b, uint32_t v) {
  uint8_t x[4];
  for (int i = 0; i < 4; i++) x[i] = (uint8_t)(v >> (8 * i));
  w_bytes(b, x, 4);
}

static void w_u64(wbuf *b, uint64_t v) {
  uint8_t x[8];
  for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
  w_bytes(b, x, 8);
}

static void w_pad(wbuf *b, size_t align) {
  static const uint8_t zero[64];
  while (b->n % align) w_bytes(b, zero, align - b->n % align > 64 ? 64 : align - b->n % align);
}

static uint32_t r_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static uint64_t r_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* ---- encoding ------------------------------------------------------------------ */

/* Ids as the decoder's parse of the printed graph will number them. */
typedef struct idmap {
  int32_t *value; /* by old value id: new id (-1: none) */
  int32_t *node;  /* by step index: new node id */
  int n_nodes;    /* nodes of the parsed text */
  ir_graph *parsed;
} idmap;

static void idmap_free(idmap *m) {
  free(m->value);
  free(m->node);
  ir_graph_destroy(m->parsed);
}

static vkml_status make_idmap(const ir_graph *g, const char *text, size_t len, idmap *m) {
  VKML_RETURN_IF_ERROR(ir_parse(text, len, "<artifact graph>", &m->parsed));
  m->value = malloc(sizeof *m->value * ((size_t)g->n_values + 1));
  m->node = malloc(sizeof *m->node * ((size_t)g->n_nodes + 1));
  if (!m->value || !m->node) return ir_oom("writing the artifact");
  for (int i = 0; i < g->n_values; i++) m->value[i] = -1;
  ir_foreach_value(g, v) {
    const ir_value *w = ir_graph_find_value(m->parsed, v->name);
    if (!w) return vkml_status_make(VKML_CODE_INTERNAL, "%%%s is lost in the text", v->name);
    m->value[v->id] = w->id;
  }
  int i = 0, live = 0;
  ir_foreach_node(g, n) live++;
  for (const ir_node *n = m->parsed->first; n && i < live; n = n->next) m->node[i++] = n->id;
  m->n_nodes = m->parsed->n_nodes;
  if (i != live || m->n_nodes != live)
    return vkml_status_make(VKML_CODE_INTERNAL, "the graph text has %d nodes, the graph %d",
                            m->n_nodes, live);
  return VKML_OK;
}

typedef struct section {
  char name[16];
  wbuf b;
} section;

/* Appends printf-style text (any length). */
static void w_fmt(wbuf *b, const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *line = k >= 0 ? malloc((size_t)k + 1) : NULL;
  if (!line) {
    b->oom = true;
    va_end(aq);
    return;
  }
  vsnprintf(line, (size_t)k + 1, fmt, aq);
  va_end(aq);
  w_bytes(b, line, (size_t)k);
  free(line);
}

static void provenance(wbuf *b, const ir_plan *p, const ir_artifact_meta *m) {
  w_fmt(b, "format=%d\ntool=%s\nprecision=%s\nschedules=%s\n", IR_ARTIFACT_VERSION,
        m && m->tool ? m->tool : "", p->precision == IR_PRECISION_FP16 ? "fp16" : "fp32",
        m && m->schedules ? m->schedules : "default");
  if (m && m->target) {
    const ir_target *t = m->target;
    w_fmt(b,
          "device=%s\nvendor_id=0x%04x\ndevice_id=0x%04x\ndriver_id=%u\n"
          "driver_version=0x%08x\napi_version=0x%08x\n",
          t->name, t->vendor_id, t->device_id, t->driver_id, t->driver_version, t->api_version);
  }
  if (m && m->device_key) w_fmt(b, "device_key=%s\n", m->device_key);
  for (int i = 0; m && i < m->n_tuned; i++) {
    const ir_artifact_schedule *e = &m->tuned[i];
    w_fmt(b, "tuned=%d %s %s %s\n", (int)e->step, e->nearest ? "nearest" : "tuned",
          e->device_key ? e->device_key : "-", e->confirmed ? "confirmed" : "unconfirmed");
  }
}

static void steps_section(wbuf *b, const ir_plan *p, const idmap *ids) {
  w_u32(b, (uint32_t)p->n_steps);
  for (int i = 0; i < p->n_steps; i++) {
    const ir_plan_step *s = &p->steps[i];
    uint32_t w[STEP_WORDS] = {
        (uint32_t)ids->node[i], (uint32_t)s->device, (uint32_t)s->transfer,
        (uint32_t)s->module,    (uint32_t)s->n_bindings, (uint32_t)s->bindings,
        (uint32_t)s->n_spec,    (uint32_t)s->spec,   s->push_bytes,
        (uint32_t)s->push,      s->groups[0],        s->groups[1],
        s->groups[2],           (uint32_t)s->key,    (uint32_t)s->tmpl,
        (uint32_t)s->schedule,  (uint32_t)s->reason,     s->flags};
    for (int k = 0; k < STEP_WORDS; k++) w_u32(b, w[k]);
  }
}

static void pools_section(wbuf *b, const ir_plan *p, const idmap *ids) {
  w_u64(b, (uint64_t)p->n_bindings);
  w_u64(b, (uint64_t)p->n_specs);
  w_u64(b, p->push_bytes);
  w_u64(b, p->strings_bytes);
  for (int i = 0; i < p->n_bindings; i++) {
    int32_t v = p->bindings[i];
    w_u32(b, (uint32_t)(v >= 0 && v < p->graph_values ? ids->value[v] : -1));
  }
  for (int i = 0; i < p->n_specs; i++) {
    w_u32(b, p->specs[i].id);
    w_u32(b, p->specs[i].value);
  }
  w_bytes(b, p->push, (size_t)p->push_bytes);
  w_bytes(b, p->strings, (size_t)p->strings_bytes);
}

static void modules_section(wbuf *b, const ir_plan *p) {
  w_u32(b, (uint32_t)p->n_modules);
  for (int i = 0; i < p->n_modules; i++) {
    char name[64] = {0};
    snprintf(name, sizeof name, "%s", p->modules[i].name);
    w_bytes(b, name, sizeof name);
    w_u64(b, p->modules[i].bytes);
    w_bytes(b, p->modules[i].words, (size_t)p->modules[i].bytes);
    static const uint8_t zero[8];
    w_bytes(b, zero, (size_t)((8 - p->modules[i].bytes % 8) % 8));
  }
}

static void memplan_section(wbuf *b, const ir_plan *p, const idmap *ids) {
  const ir_memplan *m = &p->mem;
  int n = ids->parsed->n_values;
  w_u32(b, m->offsets ? 1 : 0);
  w_u32(b, (uint32_t)m->strategy);
  w_u64(b, m->arena_bytes);
  w_u64(b, m->alignment);
  w_u64(b, m->lower_bound);
  w_u32(b, (uint32_t)m->n_objects);
  w_u32(b, m->offsets ? (uint32_t)n : 0);
  if (!m->offsets) return;
  /* by new id: the entry of the value that has it */
  int32_t *old = malloc(sizeof *old * ((size_t)n + 1));
  if (!old) {
    b->oom = true;
    return;
  }
  for (int i = 0; i < n; i++) old[i] = -1;
  for (int i = 0; i < m->n_values && i < p->graph_values; i++)
    if (ids->value[i] >= 0) old[ids->value[i]] = i;
  for (int i = 0; i < n; i++) w_u64(b, (uint64_t)(old[i] >= 0 ? m->offsets[old[i]] : -1));
  for (int i = 0; i < n; i++) w_u64(b, old[i] >= 0 ? m->bytes[old[i]] : 0);
  for (int i = 0; i < n; i++) {
    int32_t a = old[i] >= 0 ? m->alias[old[i]] : -1;
    w_u32(b, (uint32_t)(a >= 0 ? ids->value[a] : -1));
  }
  free(old);
}

vkml_status ir_artifact_encode(const ir_plan *p, const ir_artifact_meta *meta, uint8_t **out,
                               size_t *bytes) {
  *out = NULL;
  *bytes = 0;
  const ir_graph *g = p->graph;
  if (!g) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "the plan has no graph");
  VKML_RETURN_IF_ERROR(ir_plan_check(p, g));
  ir_plan_needs needs;
  VKML_RETURN_IF_ERROR(ir_plan_needs_get(p, &needs));
  char *text = NULL;
  size_t text_len = 0;
  VKML_RETURN_IF_ERROR(ir_print(g, &text, &text_len));
  idmap ids = {0};
  vkml_status s = make_idmap(g, text, text_len, &ids);
  section sec[8] = {{"provenance", {0}}, {"needs", {0}},   {"graph", {0}},
                    {"steps", {0}},      {"pools", {0}},   {"modules", {0}},
                    {"memplan", {0}},    {"weights", {0}}};
  enum { N_SEC = 8 };
  if (!s) {
    provenance(&sec[0].b, p, meta);
    w_u32(&sec[1].b, needs.features);
    w_u32(&sec[1].b, needs.subgroup_ops);
    w_bytes(&sec[2].b, text, text_len);
    steps_section(&sec[3].b, p, &ids);
    pools_section(&sec[4].b, p, &ids);
    modules_section(&sec[5].b, p);
    memplan_section(&sec[6].b, p, &ids);
    w_bytes(&sec[7].b, g->blob, (size_t)g->blob_bytes);
  }
  wbuf f = {0};
  for (int i = 0; !s && i < N_SEC; i++)
    if (sec[i].b.oom) s = ir_oom("writing the artifact");
  if (!s) {
    /* offsets first: header, table, then each section 64-aligned */
    uint64_t off[N_SEC], at = HEADER + (uint64_t)ENTRY * N_SEC;
    for (int i = 0; i < N_SEC; i++) {
      at = (at + ALIGN - 1) / ALIGN * ALIGN;
      off[i] = at;
      at += sec[i].b.n;
    }
    wbuf table = {0};
    for (int i = 0; i < N_SEC; i++) {
      char name[16] = {0};
      memcpy(name, sec[i].name, strlen(sec[i].name));
      w_bytes(&table, name, 16);
      w_u64(&table, off[i]);
      w_u64(&table, sec[i].b.n);
      w_u64(&table, ir_checksum64(sec[i].b.d, sec[i].b.n));
      w_u64(&table, 0);
    }
    w_bytes(&f, MAGIC, 8);
    w_u32(&f, IR_ARTIFACT_VERSION);
    w_u32(&f, N_SEC);
    w_u64(&f, at);
    w_u64(&f, ir_fnv64(table.d, table.n, IR_FNV64_SEED));
    for (int i = 0; i < 3; i++) w_u64(&f, 0);
    uint64_t hsum = f.oom ? 0 : ir_fnv64(f.d, 56, IR_FNV64_SEED);
    w_u64(&f, hsum);
    w_bytes(&f, table.d, table.n);
    free(table.d);
    for (int i = 0; i < N_SEC; i++) {
      w_pad(&f, ALIGN);
      w_bytes(&f, sec[i].b.d, sec[i].b.n);
    }
    if (f.oom || table.oom) s = ir_oom("writing the artifact");
    else if (f.n != at) s = vkml_status_make(VKML_CODE_INTERNAL, "artifact layout: %zu != %llu",
                                             f.n, (unsigned long long)at);
  }
  for (int i = 0; i < N_SEC; i++) free(sec[i].b.d);
  idmap_free(&ids);
  free(text);
  if (s) {
    free(f.d);
    return s;
  }
  *out = f.d;
  *bytes = f.n;
  return VKML_OK;
}

vkml_status ir_artifact_write_file(const ir_plan *p, const ir_artifact_meta *m, const char *path) {
  uint8_t *d;
  size_t n;
  VKML_RETURN_IF_ERROR(ir_artifact_encode(p, m, &d, &n));
  size_t len = strlen(path) + 16;
  char *tmp = malloc(len);
  if (!tmp) {
    free(d);
    return ir_oom(NULL);
  }
  snprintf(tmp, len, "%s.tmp%ld", path, (long)getpid());
  vkml_status s = VKML_OK;
  /* errors name the file the caller asked for, not the temporary one */
  FILE *f = fopen(tmp, "wb");
  if (!f) s = vkml_status_make(VKML_CODE_IO, "%s: cannot write: %s", path, strerror(errno));
  if (!s && fwrite(d, 1, n, f) != n)
    s = vkml_status_make(VKML_CODE_IO, "%s: cannot write: %s", path, strerror(errno));
  if (f && fclose(f) && !s)
    s = vkml_status_make(VKML_CODE_IO, "%s: cannot write: %s", path, strerror(errno));
  if (!s && rename(tmp, path))
    s = vkml_status_make(VKML_CODE_IO, "%s: %s", path, strerror(errno));
  if (s) remove(tmp);
  free(tmp);
  free(d);
  return s;
}

/* ---- decoding ------------------------------------------------------------------ */

typedef struct rsec {
  const uint8_t *d;
  uint64_t n;
} rsec;

static vkml_status corrupt(const char *name, const char *fmt, const char *what) {
  return vkml_status_make(VKML_CODE_CORRUPT, "%s: %s%s", name, fmt, what ? what : "");
}

/* A bounds-checked reader over one section. */
typedef struct rd {
  const uint8_t *p, *end;
  bool bad;
} rd;

static const uint8_t *rd_take(rd *r, uint64_t n) {
  if (r->bad || (uint64_t)(r->end - r->p) < n) {
    r->bad = true;
    return NULL;
  }
  const uint8_t *q = r->p;
  r->p += n;
  return q;
}

static uint32_t rd_u32(rd *r) {
  const uint8_t *q = rd_take(r, 4);
  return q ? r_u32(q) : 0;
}

static uint64_t rd_u64(rd *r) {
  const uint8_t *q = rd_take(r, 8);
  return q ? r_u64(q) : 0;
}

/* A fuzzing build (tests/fuzz) ignores checksum mismatches, so that the
 * fuzzer's mutations reach the section decoders behind them. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CHECKSUMS_MATTER 0
#else
#define CHECKSUMS_MATTER 1
#endif

/* defer: a section index whose checksum is not computed but returned in
 * *deferred_sum (-1: none). */
static vkml_status check_container(const uint8_t *b, size_t n, const char *name, rsec *out,
                                   const char *const *names, int n_names, int defer,
                                   uint64_t *deferred_sum) {
  if (n < HEADER) return corrupt(name, "truncated: shorter than the 64-byte header", NULL);
  if (memcmp(b, MAGIC, 8)) return corrupt(name, "not a vkml artifact (bad magic)", NULL);
  if (CHECKSUMS_MATTER && ir_fnv64(b, 56, IR_FNV64_SEED) != r_u64(b + 56))
    return corrupt(name, "header checksum mismatch (the file is damaged)", NULL);
  uint32_t version = r_u32(b + 8), count = r_u32(b + 12);
  if (version != IR_ARTIFACT_VERSION)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: artifact format version %u; this vkml reads version %d%s", name,
                            version, IR_ARTIFACT_VERSION,
                            version > IR_ARTIFACT_VERSION ? " (made by a newer vkml)" : "");
  uint64_t total = r_u64(b + 16);
  if (total != n) {
    char what[96];
    snprintf(what, sizeof what, " (header says %llu bytes, the file has %zu)",
             (unsigned long long)total, n);
    return corrupt(name, total > n ? "truncated" : "extended past its end", what);
  }
  for (int i = 0; i < 24; i++)
    if (b[32 + i]) return corrupt(name, "header: reserved bytes not zero", NULL);
  if (count == 0 || count > MAX_SECTIONS || HEADER + (uint64_t)ENTRY * count > n)
    return corrupt(name, "header: bad section count", NULL);
  const uint8_t *t = b + HEADER;
  if (CHECKSUMS_MATTER && ir_fnv64(t, (size_t)ENTRY * count, IR_FNV64_SEED) != r_u64(b + 24))
    return corrupt(name, "section table checksum mismatch (the file is damaged)", NULL);
  uint64_t at = HEADER + (uint64_t)ENTRY * count;
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t *e = t + (size_t)ENTRY * i;
    char sname[17] = {0};
    memcpy(sname, e, 16);
    if (i >= (uint32_t)n_names || strcmp(sname, names[i]) || r_u64(e + 40))
      return corrupt(name, "section table: unexpected section ", names[i < (uint32_t)n_names ? i : 0]);
    uint64_t off = r_u64(e + 16), len = r_u64(e + 24);
    if (off % ALIGN || off < at || off > n || len > n - off)
      return corrupt(name, "section out of place: ", names[i]);
    for (uint64_t k = at; k < off; k++)
      if (b[k]) return corrupt(name, "padding not zero before section ", names[i]);
    if ((int)i == defer) *deferred_sum = r_u64(e + 32);
    else if (CHECKSUMS_MATTER && ir_checksum64(b + off, (size_t)len) != r_u64(e + 32))
      return corrupt(name, "checksum mismatch in section ", names[i]);
    out[i] = (rsec){b + off, len};
    at = off + len;
  }
  if (at != n) return corrupt(name, "bytes after the last section", NULL);
  return VKML_OK;
}

static vkml_status decode_steps(ir_plan *p, rsec s, const char *name) {
  rd r = {s.d, s.d + s.n, false};
  uint32_t n = rd_u32(&r);
  if (r.bad || (uint64_t)n * STEP_WORDS * 4 != s.n - 4) return corrupt(name, "section steps: bad size", NULL);
  free(p->steps);
  p->steps = calloc((size_t)n + 1, sizeof *p->steps);
  if (!p->steps) return ir_oom(NULL);
  p->cap_steps = (int)n + 1;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t w[STEP_WORDS];
    for (int k = 0; k < STEP_WORDS; k++) w[k] = rd_u32(&r);
    ir_plan_step *st = &p->steps[i];
    st->node = (int32_t)w[0];
    st->device = (ir_device)w[1];
    st->transfer = (ir_transfer)w[2];
    st->module = (int32_t)w[3];
    st->n_bindings = (int32_t)w[4];
    st->bindings = (int32_t)w[5];
    st->n_spec = (int32_t)w[6];
    st->spec = (int32_t)w[7];
    st->push_bytes = w[8];
    st->push = (int32_t)w[9];
    st->groups[0] = w[10];
    st->groups[1] = w[11];
    st->groups[2] = w[12];
    st->key = (int32_t)w[13];
    st->tmpl = (int32_t)w[14];
    st->schedule = (int32_t)w[15];
    st->reason = (int32_t)w[16];
    st->flags = w[17];
    if (w[2] > IR_TRANSFER_UPLOAD) return corrupt(name, "section steps: bad transfer kind", NULL);
  }
  p->n_steps = (int)n;
  return VKML_OK;
}

static vkml_status decode_pools(ir_plan *p, rsec s, const char *name) {
  rd r = {s.d, s.d + s.n, false};
  uint64_t nb = rd_u64(&r), ns = rd_u64(&r), np = rd_u64(&r), nstr = rd_u64(&r);
  if (r.bad || nb > s.n / 4 || ns > s.n / 8 || np > s.n || nstr > s.n ||
      32 + nb * 4 + ns * 8 + np + nstr != s.n || nstr == 0)
    return corrupt(name, "section pools: bad sizes", NULL);
  /* the empty plan's pools (its string pool holds "") give way */
  free(p->bindings);
  free(p->specs);
  free(p->push);
  free(p->strings);
  p->bindings = malloc(sizeof *p->bindings * (size_t)(nb + 1));
  p->specs = malloc(sizeof *p->specs * (size_t)(ns + 1));
  p->push = malloc((size_t)np + 1);
  p->strings = malloc((size_t)nstr);
  if (!p->bindings || !p->specs || !p->push || !p->strings) return ir_oom(NULL);
  for (uint64_t i = 0; i < nb; i++) p->bindings[i] = (int32_t)rd_u32(&r);
  for (uint64_t i = 0; i < ns; i++) {
    p->specs[i].id = rd_u32(&r);
    p->specs[i].value = rd_u32(&r);
  }
  const uint8_t *q = rd_take(&r, np);
  if (np) memcpy(p->push, q, (size_t)np);
  q = rd_take(&r, nstr);
  memcpy(p->strings, q, (size_t)nstr);
  p->n_bindings = p->cap_bindings = (int)nb;
  p->n_specs = p->cap_specs = (int)ns;
  p->push_bytes = p->cap_push = np;
  p->strings_bytes = p->cap_strings = nstr;
  return VKML_OK;
}

static vkml_status decode_modules(ir_plan *p, rsec s, const char *name) {
  rd r = {s.d, s.d + s.n, false};
  uint32_t n = rd_u32(&r);
  if (r.bad || n > s.n / 72) return corrupt(name, "section modules: bad count", NULL);
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *mname = rd_take(&r, 64);
    uint64_t bytes = rd_u64(&r);
    const uint8_t *words = r.bad || bytes > (uint64_t)(r.end - r.p) ? NULL : rd_take(&r, bytes);
    rd_take(&r, (8 - bytes % 8) % 8);
    if (r.bad || !words || mname[63] || bytes % 4 || bytes == 0)
      return corrupt(name, "section modules: a module runs past the end", NULL);
    /* words may be unaligned in memory: ir_plan_add_module copies them */
    uint32_t *copy = malloc((size_t)bytes);
    if (!copy) return ir_oom(NULL);
    memcpy(copy, words, (size_t)bytes);
    int32_t index;
    vkml_status st = ir_plan_add_module(p, (const char *)mname, copy, bytes, &index);
    free(copy);
    VKML_RETURN_IF_ERROR(st);
    if (index != (int32_t)i) return corrupt(name, "section modules: a module twice", NULL);
  }
  if (r.p != r.end) return corrupt(name, "section modules: bytes after the last module", NULL);
  return VKML_OK;
}

static vkml_status decode_memplan(ir_plan *p, rsec s, const ir_graph *g, const char *name) {
  rd r = {s.d, s.d + s.n, false};
  ir_memplan *m = &p->mem;
  uint32_t has = rd_u32(&r), strategy = rd_u32(&r);
  m->arena_bytes = rd_u64(&r);
  m->alignment = rd_u64(&r);
  m->lower_bound = rd_u64(&r);
  m->n_objects = (int32_t)rd_u32(&r);
  uint32_t n = rd_u32(&r);
  m->strategy = (ir_memplan_strategy)strategy;
  if (r.bad || has > 1 || strategy >= IR_MEMPLAN_COUNT || (has && n != (uint32_t)g->n_values) ||
      (!has && n) || (uint64_t)(r.end - r.p) != (uint64_t)n * 20)
    return corrupt(name, "section memplan: bad header", NULL);
  if (!has) return VKML_OK;
  m->n_values = (int32_t)n;
  m->offsets = malloc(sizeof *m->offsets * ((size_t)n + 1));
  m->bytes = malloc(sizeof *m->bytes * ((size_t)n + 1));
  m->alias = malloc(sizeof *m->alias * ((size_t)n + 1));
  if (!m->offsets || !m->bytes || !m->alias) return ir_oom(NULL);
  for (uint32_t i = 0; i < n; i++) m->offsets[i] = (int64_t)rd_u64(&r);
  for (uint32_t i = 0; i < n; i++) m->bytes[i] = rd_u64(&r);
  for (uint32_t i = 0; i < n; i++) m->alias[i] = (int32_t)rd_u32(&r);
  return VKML_OK;
}

/* check: where the weights' checksum is left for later (NULL: checked now). */
static vkml_status decode(const void *bytes, size_t n, const char *name, ir_plan **out,
                          ir_artifact_deferred *check) {
  *out = NULL;
  static const char *const NAMES[] = {"provenance", "needs",   "graph",   "steps",
                                      "pools",      "modules", "memplan", "weights"};
  enum { N_SEC = 8, WEIGHTS = 7 };
  rsec sec[N_SEC];
  if (!name) name = "<artifact>";
  uint64_t sum = 0;
  VKML_RETURN_IF_ERROR(
      check_container(bytes, n, name, sec, NAMES, N_SEC, check ? WEIGHTS : -1, &sum));
  if (check) *check = (ir_artifact_deferred){sec[WEIGHTS].d, sec[WEIGHTS].n, sum};
  ir_graph *g = NULL;
  vkml_status s = ir_parse((const char *)sec[2].d, (size_t)sec[2].n, name, &g);
  if (s) {
    /* every byte passed its checksum: a graph that does not parse is a
     * writer's bug or a forged file */
    vkml_status e = corrupt(name, "section graph: ", vkml_status_message(s));
    vkml_status_free(s);
    return e;
  }
  ir_graph_set_blob(g, sec[7].d, sec[7].n, false);
  s = ir_verify(g, name);
  ir_plan *p = NULL;
  if (!s) s = ir_plan_create(&p);
  if (!s) {
    p->graph = g;
    g = NULL;
    p->graph_nodes = p->graph->n_nodes;
    p->graph_values = p->graph->n_values;
    p->precision = IR_PRECISION_FP32;
    const char *prov = (const char *)sec[0].d;
    for (uint64_t i = 0; i + 15 <= sec[0].n; i++)
      if (!memcmp(prov + i, "precision=fp16\n", 15)) p->precision = IR_PRECISION_FP16;
  }
  if (!s) s = decode_steps(p, sec[3], name);
  if (!s) s = decode_pools(p, sec[4], name);
  if (!s) s = decode_modules(p, sec[5], name);
  if (!s) s = decode_memplan(p, sec[6], p->graph, name);
  if (!s) {
    ir_plan_needs have, stored = {0, 0};
    if (sec[1].n == 8) stored = (ir_plan_needs){r_u32(sec[1].d), r_u32(sec[1].d + 4)};
    s = ir_plan_needs_get(p, &have);
    if (!s && (sec[1].n != 8 || have.features != stored.features ||
               have.subgroup_ops != stored.subgroup_ops))
      s = corrupt(name, "section needs disagrees with the modules", NULL);
  }
  if (!s) {
    s = ir_plan_check(p, p->graph);
    if (s) {
      vkml_status e = corrupt(name, "the plan does not fit its graph: ", vkml_status_message(s));
      vkml_status_free(s);
      s = e;
    }
  }
  ir_graph_destroy(g);
  if (s) {
    ir_plan_destroy(p);
    return s;
  }
  *out = p;
  return VKML_OK;
}

vkml_status ir_artifact_decode(const void *bytes, size_t n, const char *name, ir_plan **out) {
  return decode(bytes, n, name, out, NULL);
}

vkml_status ir_artifact_deferred_check(const ir_artifact_deferred *check, const char *name) {
  if (!CHECKSUMS_MATTER || !check->data) return VKML_OK;
  if (ir_checksum64(check->data, (size_t)check->bytes) != check->checksum)
    return corrupt(name ? name : "<artifact>", "checksum mismatch in section ", "weights");
  return VKML_OK;
}

static void unmap(void *p, uint64_t n) { munmap(p, (size_t)n); }

static vkml_status load_file(const char *path, ir_plan **out, ir_artifact_deferred *check) {
  *out = NULL;
  int fd;
  unsigned long long size;
  VKML_RETURN_IF_ERROR(ir_file_open(path, &fd, &size));
  struct stat st;
  st.st_size = (off_t)size;
  if (st.st_size < HEADER) {
    close(fd);
    return corrupt(path, "truncated: shorter than the 64-byte header", NULL);
  }
  /* populated at once when the checksums read every page right away; a
   * deferred check faults the weights' pages in on its own thread */
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  if (!check) flags |= MAP_POPULATE;
#endif
  void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return vkml_status_make(VKML_CODE_IO, "%s: mmap: %s", path, strerror(errno));
  vkml_status s = decode(m, (size_t)st.st_size, path, out, check);
  if (s) {
    munmap(m, (size_t)st.st_size);
    return s;
  }
  (*out)->backing = m;
  (*out)->backing_bytes = (uint64_t)st.st_size;
  (*out)->backing_release = unmap;
  return VKML_OK;
}

vkml_status ir_artifact_load_file(const char *path, ir_plan **out) {
  return load_file(path, out, NULL);
}

vkml_status ir_artifact_load_file_deferred(const char *path, ir_plan **out,
                                           ir_artifact_deferred *check) {
  *check = (ir_artifact_deferred){NULL, 0, 0};
  return load_file(path, out, check);
}

void ir_artifact_section(const void *bytes, size_t n, const char *name, const void **data,
                         uint64_t *size) {
  const uint8_t *b = bytes;
  *data = NULL;
  *size = 0;
  if (!b || n < HEADER) return;
  uint32_t count = r_u32(b + 12);
  if (count > MAX_SECTIONS || HEADER + (uint64_t)ENTRY * count > n) return;
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t *e = b + HEADER + (size_t)ENTRY * i;
    char sname[17] = {0};
    memcpy(sname, e, 16);
    uint64_t off = r_u64(e + 16), len = r_u64(e + 24);
    if (strcmp(sname, name) || off > n || len > n - off) continue;
    *data = b + off;
    *size = len;
    return;
  }
}
