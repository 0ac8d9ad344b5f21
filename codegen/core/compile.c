/* shaderc wrapper and the on-disk SPIR-V cache.
 *
 * `#include "NAME"` resolves NAME among the embedded files (codegen/core/glsl.h): the
 * templates share act.glsl and math.glsl. The cache key hashes every
 * embedded .glsl snippet, whether the source includes it or not, so that an
 * edited snippet can never be served from a stale cache entry.
 *
 * Cache file <dir>/<key hex>.spv: magic "VKMLSPV1", the 16-byte key, the
 * SPIR-V byte count (u64 LE), FNV-1a 64 of the SPIR-V (u64 LE), then the
 * module. Anything that does not check out is recompiled. */
#include "codegen/core/compile.h"
#include "ir/cache_dir.h"
#include "ir/file.h"

#include <errno.h>
#include <shaderc/shaderc.h>

#include "codegen/cg_config.h"
#include "codegen/core/glsl.h"
#if CG_HAVE_GLSLANG15
#include "codegen/core/glslang15.h"
#endif
#include "ir/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CG_SHADERC_VERSION
#define CG_SHADERC_VERSION "unknown"
#endif
#if CG_HAVE_GLSLANG_BUILD_INFO
#include <glslang/build_info.h>
#define CG_STR_(x) #x
#define CG_STR(x) CG_STR_(x)
#define CG_GLSLANG_VERSION                                                     \
  CG_STR(GLSLANG_VERSION_MAJOR) "." CG_STR(GLSLANG_VERSION_MINOR) "." CG_STR(GLSLANG_VERSION_PATCH)
#else
#define CG_GLSLANG_VERSION "unknown"
#endif

#define SPIRV_MAGIC 0x07230203u
#define HEADER_BYTES 40
#define MAX_SPIRV_BYTES (64u << 20)

static const char MAGIC[8] = {'V', 'K', 'M', 'L', 'S', 'P', 'V', '1'};

struct cg_compiler {
  shaderc_compiler_t sc;
  char *cache_dir; /* NULL: no cache */
  cg_compiler_stats stats;
};

const char *cg_compiler_version(void) {
  return "shaderc " CG_SHADERC_VERSION ", glslang " CG_GLSLANG_VERSION
         ", target vulkan1.1/spirv1.3";
}

bool cg_compiler_has_glslang15(void) { return CG_HAVE_GLSLANG15; }

/* ---- hashing ------------------------------------------------------------ */

cg_hash128 cg_fnv128_init(void) {
  cg_hash128 h = {0x6c62272e07bb0142ull, 0x62b821756295c58dull};
  return h;
}

/* h * (2^88 + 0x13b) mod 2^128, in 64-bit halves. */
static cg_hash128 fnv128_mul(cg_hash128 h) {
  uint64_t a = (h.lo & 0xffffffffull) * 0x13bull;
  uint64_t b = (h.lo >> 32) * 0x13bull;
  uint64_t lo = a + (b << 32);
  uint64_t carry = ((a >> 32) + (b & 0xffffffffull)) >> 32;
  uint64_t hi = h.hi * 0x13bull + (b >> 32) + carry + (h.lo << 24);
  cg_hash128 r = {hi, lo};
  return r;
}

cg_hash128 cg_fnv128(cg_hash128 h, const void *data, size_t bytes) {
  const unsigned char *p = data;
  for (size_t i = 0; i < bytes; i++) {
    h.lo ^= p[i];
    h = fnv128_mul(h);
  }
  return h;
}

static uint64_t fnv64(const void *data, size_t bytes) { return ir_fnv64(data, bytes, IR_FNV64_SEED); }

/* Strings are hashed with their NUL so that ("ab","c") != ("a","bc"). */
static cg_hash128 hash_str(cg_hash128 h, const char *s) {
  return cg_fnv128(h, s, strlen(s) + 1);
}

/* A file meant for #include, not a template. */
static bool is_snippet(const char *name) {
  size_t n = strlen(name);
  return n >= 5 && !strcmp(name + n - 5, ".glsl");
}

static void compute_key(const char *source, const cg_define *d, int n, cg_opt_level opt,
                        uint8_t key[16]) {
  cg_hash128 h = cg_fnv128_init();
  h = hash_str(h, "vkml spirv cache 1");
  h = hash_str(h, cg_compiler_version());
  static const char *const OPT[] = {"O", "O0", "glslang15", "glslang15 vulkan1.3"};
  h = hash_str(h, (unsigned)opt < 4 ? OPT[opt] : "?");
#if CG_HAVE_GLSLANG15
  if (opt >= CG_OPT_GLSLANG15) h = hash_str(h, vkml_glslang15_version());
#endif
  h = hash_str(h, source);
  for (const cg_glsl_file *f = cg_glsl_files; f->name; f++)
    if (is_snippet(f->name)) {
      h = hash_str(h, f->name);
      h = hash_str(h, f->text);
    }
  for (int i = 0; i < n; i++) {
    h = hash_str(h, d[i].name);
    h = hash_str(h, d[i].value ? d[i].value : "");
  }
  for (int i = 0; i < 8; i++) {
    key[i] = (uint8_t)(h.hi >> (56 - 8 * i));
    key[8 + i] = (uint8_t)(h.lo >> (56 - 8 * i));
  }
}

/* ---- compiler ----------------------------------------------------------- */


vkml_status cg_compiler_create(const cg_compiler_opts *opts, cg_compiler **out) {
  *out = NULL;
  cg_compiler_opts o = {0};
  if (opts) o = *opts;
  cg_compiler *c = calloc(1, sizeof *c);
  if (!c) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  c->sc = shaderc_compiler_initialize();
  if (!c->sc) {
    free(c);
    return vkml_status_make(VKML_CODE_INTERNAL, "shaderc_compiler_initialize failed");
  }
  if (!o.no_cache) c->cache_dir = o.cache_dir ? strdup(o.cache_dir) : ir_user_cache_dir("spirv");
  *out = c;
  return VKML_OK;
}

void cg_compiler_destroy(cg_compiler *c) {
  if (!c) return;
  shaderc_compiler_release(c->sc);
  free(c->cache_dir);
  free(c);
}

void cg_compiler_stats_get(const cg_compiler *c, cg_compiler_stats *out) { *out = c->stats; }
const char *cg_compiler_cache_dir(const cg_compiler *c) { return c->cache_dir; }

void cg_spirv_free(cg_spirv *s) {
  if (!s) return;
  free(s->words);
  memset(s, 0, sizeof *s);
}

/* ---- cache files -------------------------------------------------------- */

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static void cache_path(const cg_compiler *c, const uint8_t key[16], char *buf, size_t n) {
  char hex[33];
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", key[i]);
  snprintf(buf, n, "%s/%s.spv", c->cache_dir, hex);
}

/* Returns true and fills out when a valid entry exists. */
static bool cache_read(cg_compiler *c, const uint8_t key[16], cg_spirv *out) {
  char path[4200];
  cache_path(c, key, path, sizeof path);
  FILE *f;
  vkml_status e = ir_file_fopen(path, &f);
  if (e) {
    vkml_status_free(e);
    return false;
  }
  unsigned char h[HEADER_BYTES];
  bool ok = fread(h, 1, HEADER_BYTES, f) == HEADER_BYTES && !memcmp(h, MAGIC, 8) &&
            !memcmp(h + 8, key, 16);
  uint64_t n = ok ? get_u64(h + 24) : 0;
  ok = ok && n >= 20 && n % 4 == 0 && n <= MAX_SPIRV_BYTES;
  uint32_t *w = ok ? malloc((size_t)n) : NULL;
  ok = ok && w && fread(w, 1, (size_t)n, f) == n && fgetc(f) == EOF;
  ok = ok && fnv64(w, (size_t)n) == get_u64(h + 32) && w[0] == SPIRV_MAGIC;
  fclose(f);
  if (!ok) {
    free(w);
    c->stats.n_cache_bad++;
    return false;
  }
  out->words = w;
  out->bytes = (size_t)n;
  out->from_cache = true;
  return true;
}

/* Best effort: a failed write only means a recompilation next time. */
static void cache_write(const cg_compiler *c, const uint8_t key[16], const cg_spirv *s) {
  if (!ir_mkdirs(c->cache_dir)) return;
  char path[4200], tmp[4300];
  cache_path(c, key, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%p", path, (long)getpid(), (const void *)c);
  unsigned char h[HEADER_BYTES];
  memcpy(h, MAGIC, 8);
  memcpy(h + 8, key, 16);
  put_u64(h + 24, s->bytes);
  put_u64(h + 32, fnv64(s->words, s->bytes));
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  bool ok = fwrite(h, 1, HEADER_BYTES, f) == HEADER_BYTES &&
            fwrite(s->words, 1, s->bytes, f) == s->bytes;
  if (fclose(f)) ok = false;
  if (!ok || rename(tmp, path)) remove(tmp);
}

/* ---- compilation -------------------------------------------------------- */

/* shaderc's includer: the embedded file, or a result with an empty name and
 * the error as content. Embedded texts are static: nothing to release but
 * the result itself. shaderc does not expect NULL: out of memory is a
 * failed inclusion too, from a result never written. */
static shaderc_include_result include_oom = {"", 0, "out of host memory", 18, NULL};

static shaderc_include_result *include_resolve(void *user, const char *requested, int type,
                                               const char *requesting, size_t depth) {
  (void)user;
  (void)type;
  (void)requesting;
  (void)depth;
  shaderc_include_result *r = calloc(1, sizeof *r);
  if (!r) return &include_oom;
  const cg_glsl_file *f = cg_glsl_find(requested);
  if (f) {
    r->source_name = f->name;
    r->source_name_length = strlen(f->name);
    r->content = f->text;
    r->content_length = f->bytes;
  } else {
    r->source_name = "";
    r->content = "no such embedded file (codegen/glsl/, listed in codegen/meson.build)";
    r->content_length = strlen(r->content);
  }
  return r;
}

static void include_release(void *user, shaderc_include_result *r) {
  (void)user;
  if (r != &include_oom) free(r);
}

/* Appends "\n   N | <line N of source>" after every "name:N: error" line of
 * shaderc's message. */
static vkml_status compile_error(const char *name, const char *source, const char *msg) {
  size_t cap = strlen(msg) * 2 + 4096, len = 0;
  char *out = malloc(cap);
  if (!out) return vkml_status_make(VKML_CODE_PARSE, "%s: %s", name, msg);
  size_t name_len = strlen(name);
  const char *line = msg;
  while (*line && len + 600 < cap) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    if (n) {
      int w = snprintf(out + len, cap - len, "%s%.*s", len ? "\n" : "", (int)n, line);
      len += (size_t)w < cap - len ? (size_t)w : cap - len - 1;
      long ln = 0;
      if (!strncmp(line, name, name_len) && line[name_len] == ':')
        ln = strtol(line + name_len + 1, NULL, 10);
      if (ln > 0) {
        const char *s = source;
        for (long i = 1; i < ln && s; i++) {
          s = strchr(s, '\n');
          if (s) s++;
        }
        if (s) {
          size_t sl = strcspn(s, "\n");
          if (sl > 400) sl = 400;
          w = snprintf(out + len, cap - len, "\n  %5ld | %.*s", ln, (int)sl, s);
          len += (size_t)w < cap - len ? (size_t)w : cap - len - 1;
        }
      }
    }
    if (!end) break;
    line = end + 1;
  }
  out[len] = '\0';
  vkml_status st = vkml_status_make(VKML_CODE_PARSE, "%s", out);
  free(out);
  return st;
}

#if CG_HAVE_GLSLANG15
static const char *include15(void *ctx, const char *name, size_t *len) {
  (void)ctx;
  const cg_glsl_file *f = cg_glsl_find(name);
  if (!f) return NULL;
  *len = f->bytes;
  return f->text;
}

/* glslang's "ERROR: 0:42: ..." as shaderc's "name:42: error: ..." (string
 * 0 is the source; an included file keeps its name), for compile_error. */
static char *log15(const char *name, const char *log) {
  size_t cap = strlen(log) * 2 + strlen(name) * 64 + 64, len = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  for (const char *l = log; *l;) {
    const char *end = strchr(l, '\n');
    int n = (int)(end ? (size_t)(end - l) : strlen(l));
    const char *kind = !strncmp(l, "ERROR: ", 7) ? "error" : !strncmp(l, "WARNING: ", 9) ? "warning" : NULL;
    const char *at = kind ? l + (kind[0] == 'e' ? 7 : 9) : l;
    char file[256];
    long ln = 0;
    int skip = 0;
    if (kind && sscanf(at, "%255[^: ]:%ld: %n", file, &ln, &skip) >= 2 && skip > 0)
      len += (size_t)snprintf(out + len, cap - len, "%s:%ld: %s: %.*s\n",
                              strcmp(file, "0") ? file : name, ln, kind, n - (int)(at + skip - l),
                              at + skip);
    else if (n)
      len += (size_t)snprintf(out + len, cap - len, "%.*s\n", n, l);
    if (len >= cap) len = cap - 1;
    if (!end) break;
    l = end + 1;
  }
  out[len] = '\0';
  return out;
}

/* CG_OPT_GLSLANG15: the defines become a preamble of #define lines. */
static vkml_status compile15(const char *name, const char *source, const cg_define *defines,
                             int n_defines, bool vulkan13, cg_spirv *out) {
  size_t cap = 1;
  for (int i = 0; i < n_defines; i++)
    cap += strlen(defines[i].name) + (defines[i].value ? strlen(defines[i].value) : 0) + 10;
  char *pre = malloc(cap), *log = NULL;
  if (!pre) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  size_t len = 0;
  pre[0] = '\0';
  for (int i = 0; i < n_defines; i++)
    len += (size_t)snprintf(pre + len, cap - len, "#define %s %s\n", defines[i].name,
                            defines[i].value ? defines[i].value : "");
  uint32_t *words = NULL;
  size_t bytes = 0;
  /* #include needs GL_GOOGLE_include_directive, which shaderc enables after
   * the #version line: so here, keeping the line numbers */
  const char *v = strstr(source, "#version");
  const char *eol = v ? strchr(v, '\n') : NULL;
  char *src = NULL;
  if (eol) {
    static const char INC[] = "#extension GL_GOOGLE_include_directive : enable\n#line %d\n";
    int line = 2;
    for (const char *q = source; q < eol; q++) line += *q == '\n';
    size_t n = strlen(source) + sizeof INC + 16;
    if ((src = malloc(n))) {
      int k = snprintf(src, n, "%.*s", (int)(eol + 1 - source), source);
      k += snprintf(src + k, n - (size_t)k, INC, line);
      snprintf(src + k, n - (size_t)k, "%s", eol + 1);
    }
  }
  int rc = !eol || src ? vkml_glslang15_compile(name, src ? src : source, pre, vulkan13, include15,
                                                NULL, &words, &bytes, &log)
                       : -1;
  free(src);
  free(pre);
  vkml_status s = VKML_OK;
  if (rc) {
    char *msg = log ? log15(name, log) : NULL;
    s = log ? compile_error(name, source, msg ? msg : log)
            : vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: glslang 15: out of host memory", name);
    free(msg);
  } else if (bytes < 20 || bytes > MAX_SPIRV_BYTES) {
    s = vkml_status_make(VKML_CODE_INTERNAL, "%s: glslang 15 produced %zu bytes", name, bytes);
  } else {
    out->words = words, out->bytes = bytes;
    words = NULL;
  }
  free(words);
  free(log);
  return s;
}
#endif

vkml_status cg_compile(cg_compiler *c, const char *name, const char *source,
                       const cg_define *defines, int n_defines, cg_opt_level opt,
                       cg_spirv *out) {
  memset(out, 0, sizeof *out);
  if (!name) name = "shader.comp";
  if (!source || n_defines < 0 || (n_defines && !defines))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "cg_compile %s: no source", name);
  compute_key(source, defines, n_defines, opt, out->key);
  if (c->cache_dir && cache_read(c, out->key, out)) {
    c->stats.n_cache_hits++;
    return VKML_OK;
  }
  if (opt == CG_OPT_GLSLANG15 || opt == CG_OPT_GLSLANG15_VK13) {
#if CG_HAVE_GLSLANG15
    c->stats.n_compiled++;
    vkml_status s = compile15(name, source, defines, n_defines, opt == CG_OPT_GLSLANG15_VK13, out);
    if (s) return s;
    if (c->cache_dir) cache_write(c, out->key, out);
    return VKML_OK;
#else
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s needs glslang 15, which this build lacks (tools/build-deps.sh)", name);
#endif
  }

  shaderc_compile_options_t o = shaderc_compile_options_initialize();
  if (!o) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "shaderc options: out of memory");
  shaderc_compile_options_set_target_env(o, shaderc_target_env_vulkan,
                                         shaderc_env_version_vulkan_1_1);
  shaderc_compile_options_set_target_spirv(o, shaderc_spirv_version_1_3);
  shaderc_compile_options_set_source_language(o, shaderc_source_language_glsl);
  shaderc_compile_options_set_include_callbacks(o, include_resolve, include_release, NULL);
  shaderc_compile_options_set_optimization_level(
      o, opt == CG_OPT_ZERO ? shaderc_optimization_level_zero
                            : shaderc_optimization_level_performance);
  for (int i = 0; i < n_defines; i++) {
    const char *v = defines[i].value ? defines[i].value : "";
    shaderc_compile_options_add_macro_definition(o, defines[i].name, strlen(defines[i].name), v,
                                                 strlen(v));
  }
  shaderc_compilation_result_t r = shaderc_compile_into_spv(
      c->sc, source, strlen(source), shaderc_compute_shader, name, "main", o);
  shaderc_compile_options_release(o);
  c->stats.n_compiled++;
  vkml_status s = VKML_OK;
  if (!r) {
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: shaderc returned no result", name);
  } else if (shaderc_result_get_compilation_status(r) != shaderc_compilation_status_success) {
    const char *msg = shaderc_result_get_error_message(r);
    s = compile_error(name, source, msg && *msg ? msg : "compilation failed");
  } else {
    size_t n = shaderc_result_get_length(r);
    if (n < 20 || n % 4 || n > MAX_SPIRV_BYTES) {
      s = vkml_status_make(VKML_CODE_INTERNAL, "%s: shaderc produced %zu bytes", name, n);
    } else if (!(out->words = malloc(n))) {
      s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    } else {
      memcpy(out->words, shaderc_result_get_bytes(r), n);
      out->bytes = n;
    }
  }
  shaderc_result_release(r);
  if (s) {
    cg_spirv_free(out);
    return s;
  }
  if (c->cache_dir) cache_write(c, out->key, out);
  return VKML_OK;
}
