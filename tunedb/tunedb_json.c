/* JSON writer and flat-object reader (tunedb_json.h). Strict: what the
 * reader accepts is valid JSON; it refuses rather than guesses. */
#include "tunedb/tunedb_json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tunedb_utf8_char_bytes(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  if (p[0] == 0) return 0;
  if (p[0] < 0x80) return 1;
  int n;
  uint32_t cp, min;
  if ((p[0] & 0xe0) == 0xc0) n = 2, cp = p[0] & 0x1f, min = 0x80;
  else if ((p[0] & 0xf0) == 0xe0) n = 3, cp = p[0] & 0x0f, min = 0x800;
  else if ((p[0] & 0xf8) == 0xf0) n = 4, cp = p[0] & 0x07, min = 0x10000;
  else return 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0; /* the NUL included */
    cp = cp << 6 | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return 0;
  return n;
}

void tunedb_json_string(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p >= 0x80) {
      int n = tunedb_utf8_char_bytes((const char *)p);
      if (n == 0) {
        fputs("\\ufffd", f);
      } else {
        fwrite(p, 1, (size_t)n, f);
        p += n - 1;
      }
      continue;
    }
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    case '\b': fputs("\\b", f); break;
    case '\f': fputs("\\f", f); break;
    default:
      if (*p < 0x20)
        fprintf(f, "\\u%04x", *p);
      else
        fputc(*p, f);
    }
  }
  fputc('"', f);
}

void tunedb_json_number(FILE *f, double v) {
  if (!isfinite(v))
    fputs("null", f);
  else
    fprintf(f, "%.17g", v);
}

typedef struct parser {
  const char *p;
  char *err;
  size_t err_bytes;
} parser;

static bool fail(parser *ps, const char *why) {
  snprintf(ps->err, ps->err_bytes, "%s", why);
  return false;
}

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool read_hex4(parser *ps, uint32_t *out) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(ps->p[i]);
    if (h < 0) return fail(ps, "bad \\u escape");
    v = v * 16 + (uint32_t)h;
  }
  ps->p += 4;
  *out = v;
  return true;
}

static size_t put_utf8(uint32_t cp, char *o) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xc0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xe0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Reads a string literal at ps->p (on the opening quote); *out is malloc'd.
 * The decoded text is never longer than the literal. */
static bool read_string(parser *ps, char **out) {
  ps->p++;
  const char *end = ps->p;
  while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
  if (!*end) return fail(ps, "unterminated string");
  char *buf = malloc((size_t)(end - ps->p) + 1), *o = buf;
  if (!buf) return fail(ps, "out of memory");
  while (*ps->p != '"') {
    unsigned char c = (unsigned char)*ps->p++;
    if (c < 0x20) {
      free(buf);
      return fail(ps, "control character in string");
    }
    if (c != '\\') {
      *o++ = (char)c;
      continue;
    }
    char e = *ps->p++;
    uint32_t cp;
    switch (e) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '/': *o++ = '/'; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u':
      if (!read_hex4(ps, &cp)) {
        free(buf);
        return false;
      }
      if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
        uint32_t lo;
        if (ps->p[0] != '\\' || ps->p[1] != 'u') {
          free(buf);
          return fail(ps, "lone surrogate");
        }
        ps->p += 2;
        if (!read_hex4(ps, &lo) || lo < 0xdc00 || lo >= 0xe000) {
          free(buf);
          return fail(ps, "bad surrogate pair");
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
      } else if (cp == 0 || (cp >= 0xdc00 && cp < 0xe000)) {
        free(buf);
        return fail(ps, "\\u0000 or a lone surrogate");
      }
      o += put_utf8(cp, o);
      break;
    default:
      free(buf);
      return fail(ps, "bad escape");
    }
  }
  ps->p++;
  *o = 0;
  *out = buf;
  return true;
}

static bool read_value(parser *ps, tunedb_json_field *f) {
  f->value = NULL;
  if (*ps->p == '"') {
    f->type = TUNEDB_JSON_STRING;
    return read_string(ps, &f->value);
  }
  static const char *const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(words[i]);
    if (strncmp(ps->p, words[i], n) == 0) {
      ps->p += n;
      f->type = i < 2 ? TUNEDB_JSON_BOOL : TUNEDB_JSON_NULL;
      if (i < 2 && !(f->value = strdup(words[i]))) return fail(ps, "out of memory");
      return true;
    }
  }
  /* a number: JSON's grammar, checked by hand (strtod accepts more) */
  const char *s = ps->p, *q = s;
  if (*q == '-') q++;
  if (*q == '0')
    q++;
  else if (*q >= '1' && *q <= '9')
    while (*q >= '0' && *q <= '9') q++;
  else
    return fail(ps, "expected a value");
  if (*q == '.') {
    if (!(*++q >= '0' && *q <= '9')) return fail(ps, "bad number");
    while (*q >= '0' && *q <= '9') q++;
  }
  if (*q == 'e' || *q == 'E') {
    q++;
    if (*q == '+' || *q == '-') q++;
    if (!(*q >= '0' && *q <= '9')) return fail(ps, "bad number");
    while (*q >= '0' && *q <= '9') q++;
  }
  f->type = TUNEDB_JSON_NUMBER;
  if (!(f->value = strndup(s, (size_t)(q - s)))) return fail(ps, "out of memory");
  ps->p = q;
  return true;
}

void tunedb_json_object_free(tunedb_json_object *o) {
  for (int i = 0; i < o->n; i++) {
    free(o->fields[i].key);
    free(o->fields[i].value);
  }
  o->n = 0;
}

bool tunedb_json_parse_object(const char *text, tunedb_json_object *out, char *err,
                              size_t err_bytes) {
  parser ps = {text, err, err_bytes};
  out->n = 0;
  skip_ws(&ps);
  if (*ps.p++ != '{') return fail(&ps, "expected '{'");
  skip_ws(&ps);
  bool ok = true;
  if (*ps.p == '}') {
    ps.p++;
  } else {
    for (;;) {
      skip_ws(&ps);
      if (*ps.p != '"') {
        ok = fail(&ps, "expected a key");
        break;
      }
      if (out->n == TUNEDB_JSON_MAX_FIELDS) {
        ok = fail(&ps, "too many fields");
        break;
      }
      tunedb_json_field *f = &out->fields[out->n];
      if (!read_string(&ps, &f->key)) {
        ok = false;
        break;
      }
      skip_ws(&ps);
      if (*ps.p++ != ':') {
        free(f->key);
        ok = fail(&ps, "expected ':'");
        break;
      }
      skip_ws(&ps);
      if (!read_value(&ps, f)) {
        free(f->key);
        ok = false;
        break;
      }
      out->n++;
      skip_ws(&ps);
      if (*ps.p == ',') {
        ps.p++;
        continue;
      }
      if (*ps.p++ != '}') ok = fail(&ps, "expected ',' or '}'");
      break;
    }
  }
  if (ok) {
    skip_ws(&ps);
    if (*ps.p) ok = fail(&ps, "text after the object");
  }
  if (!ok) tunedb_json_object_free(out);
  return ok;
}

const tunedb_json_field *tunedb_json_get(const tunedb_json_object *o, const char *key) {
  for (int i = 0; i < o->n; i++)
    if (strcmp(o->fields[i].key, key) == 0) return &o->fields[i];
  return NULL;
}
