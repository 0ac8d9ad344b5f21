/* The canonical .vkir printer. Its output is the text form's definition of
 * "canonical": parse(print(g)) prints back byte for byte, so every choice here
 * (spacing, attribute order, shortest round-tripping floats) is fixed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "text.h"

typedef struct sbuf {
  char *buf;
  size_t len, cap;
  bool oom;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) {
      if (cap > SIZE_MAX / 2) {
        b->oom = true;
        return;
      }
      cap *= 2;
    }
    char *nb = realloc(b->buf, cap);
    if (!nb) {
      b->oom = true;
      return;
    }
    b->buf = nb;
    b->cap = cap;
  }
  memcpy(b->buf + b->len, s, n);
  b->len += n;
  b->buf[b->len] = 0;
}

static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    sb_putn(b, tmp, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_putn(b, big, (size_t)n);
  free(big);
}

/* ---- pieces ------------------------------------------------------------ */

static void put_quoted(sbuf *b, const char *s) {
  sb_puts(b, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"') sb_puts(b, "\\\"");
    else if (*c == '\\') sb_puts(b, "\\\\");
    else if (*c == '\n') sb_puts(b, "\\n");
    else if (*c == '\t') sb_puts(b, "\\t");
    else if (*c < 0x20 || *c == 0x7f) sb_printf(b, "\\x%02x", *c);
    else sb_putn(b, (const char *)c, 1);
  }
  sb_puts(b, "\"");
}

/* Names are quoted only when needed, so ordinary names stay readable. */
static void put_name(sbuf *b, char sigil, const char *name) {
  char s[2] = {sigil, 0};
  sb_puts(b, s);
  if (!name) name = "";
  bool plain = name[0] != 0;
  for (const char *c = name; *c && plain; c++)
    plain = ir_lex_is_name_char((unsigned char)*c);
  if (plain)
    sb_puts(b, name);
  else
    put_quoted(b, name);
}

static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void finish_float(char *buf, size_t bytes) {
  if (!strpbrk(buf, ".eni")) {
    size_t n = strlen(buf);
    snprintf(buf + n, bytes - n, ".0");
  }
}

/* Among "%.Ng" (N = 1..9) that read back exactly (same(text) true), the
 * shortest text after finish_float; on equal length the one without an
 * exponent, then the smallest N. So 10 prints "10.0", not "1e+01". */
static void shortest(double v, bool (*same)(const char *, const void *),
                     const void *ctx, char *buf, size_t bytes) {
  char cand[48];
  size_t best = SIZE_MAX;
  buf[0] = 0;
  for (int prec = 1; prec <= 9; prec++) {
    snprintf(cand, sizeof cand, "%.*g", prec, v);
    if (!same(cand, ctx)) continue;
    finish_float(cand, sizeof cand);
    size_t len = strlen(cand);
    bool better = len < best || (len == best && strchr(buf, 'e') && !strchr(cand, 'e'));
    if (better) {
      snprintf(buf, bytes, "%s", cand);
      best = len;
    }
  }
}

static bool same_f32(const char *text, const void *ctx) {
  return same_bits(strtof(text, NULL), *(const float *)ctx);
}

static bool same_f16(const char *text, const void *ctx) {
  return ir_f32_to_f16(strtof(text, NULL)) == *(const uint16_t *)ctx;
}

static void format_f32(float f, char *buf, size_t bytes) {
  if (isnan(f))
    snprintf(buf, bytes, "nan");
  else if (isinf(f))
    snprintf(buf, bytes, f > 0 ? "inf" : "-inf");
  else
    shortest((double)f, same_f32, &f, buf, bytes);
}

static void format_f16(uint16_t h, char *buf, size_t bytes) {
  float f = ir_f16_to_f32(h);
  if (isnan(f) || isinf(f))
    format_f32(f, buf, bytes);
  else
    shortest((double)f, same_f16, &h, buf, bytes);
}

static void put_f32(sbuf *b, float f) {
  char tmp[48];
  format_f32(f, tmp, sizeof tmp);
  sb_puts(b, tmp);
}

static void put_type(sbuf *b, const ir_type *t, ir_layout layout) {
  sb_puts(b, ir_dtype_name(t->dtype));
  sb_puts(b, "[");
  for (int i = 0; i < t->rank && i < IR_MAX_RANK; i++)
    sb_printf(b, "%s%s%lld", i ? "," : "", t->bounded && t->bounded_axis == i ? "<=" : "",
              (long long)t->dims[i]);
  sb_puts(b, "]");
  if (layout != IR_LAYOUT_DEFAULT) {
    sb_puts(b, " ");
    sb_puts(b, ir_layout_name(layout));
  }
}

static void put_value_ref(sbuf *b, const ir_value *v) {
  put_name(b, '%', v ? v->name : "<null>");
}

static void put_scalar(sbuf *b, ir_dtype dt, const uint8_t *p) {
  char tmp[48];
  switch (dt) {
  case IR_F32: {
    float f;
    memcpy(&f, p, 4);
    put_f32(b, f);
    return;
  }
  case IR_F16: {
    uint16_t h;
    memcpy(&h, p, 2);
    format_f16(h, tmp, sizeof tmp);
    sb_puts(b, tmp);
    return;
  }
  case IR_I32: {
    int32_t v;
    memcpy(&v, p, 4);
    sb_printf(b, "%lld", (long long)v);
    return;
  }
  case IR_I64: {
    int64_t v;
    memcpy(&v, p, 8);
    sb_printf(b, "%lld", (long long)v);
    return;
  }
  case IR_U8: sb_printf(b, "%lld", (long long)*p); return;
  case IR_I8: {
    int8_t v;
    memcpy(&v, p, 1);
    sb_printf(b, "%lld", (long long)v);
    return;
  }
  case IR_BOOL: sb_puts(b, *p ? "true" : "false"); return;
  default: sb_puts(b, "?"); return;
  }
}

static void put_const(sbuf *b, const ir_value *v) {
  sb_puts(b, "  ");
  put_value_ref(b, v);
  sb_puts(b, " = const ");
  put_type(b, &v->type, v->layout);
  if (v->storage == IR_CONST_BLOB) {
    sb_printf(b, " @blob[%llu, %lld]\n", (unsigned long long)v->blob_offset,
              (long long)ir_type_bytes(&v->type));
    return;
  }
  sb_puts(b, " [");
  int64_t n = ir_type_numel(&v->type);
  size_t es = ir_dtype_size(v->type.dtype);
  const uint8_t *p = v->inline_data;
  for (int64_t i = 0; i < n && p; i++) {
    if (i) sb_puts(b, ", ");
    put_scalar(b, v->type.dtype, p + (size_t)i * es);
  }
  sb_puts(b, "]\n");
}

static void put_attr(sbuf *b, const ir_attr *a) {
  sb_puts(b, ir_attr_name(a->id));
  sb_puts(b, "=");
  switch (ir_attr_kind_of(a->id)) {
  case IR_ATTR_INT: sb_printf(b, "%lld", (long long)a->u.i); break;
  case IR_ATTR_FLOAT: put_f32(b, a->u.f); break;
  case IR_ATTR_INTS:
    sb_puts(b, "[");
    for (int i = 0; i < a->n; i++) sb_printf(b, "%s%lld", i ? "," : "", (long long)a->u.ints[i]);
    sb_puts(b, "]");
    break;
  case IR_ATTR_FLOATS:
    sb_puts(b, "[");
    for (int i = 0; i < a->n; i++) {
      if (i) sb_puts(b, ",");
      put_f32(b, a->u.floats[i]);
    }
    sb_puts(b, "]");
    break;
  case IR_ATTR_STRING: put_quoted(b, a->u.s ? a->u.s : ""); break;
  case IR_ATTR_ENUM: {
    /* An out-of-range value prints as a number, which does not parse back:
     * the verifier rejects such a graph anyway. */
    const char *name = ir_enum_value_name(ir_attr_enum_of(a->id), (int)a->u.i);
    if (name && a->u.i == (int)a->u.i)
      sb_puts(b, name);
    else
      sb_printf(b, "%lld", (long long)a->u.i);
    break;
  }
  }
}

/* Attributes in the op row's order, then any the op does not list (invalid,
 * printed so nothing is lost), then `name` and `cpu_reason`. */
static void put_attrs(sbuf *b, const ir_node *n) {
  if (n->n_attrs == 0) return;
  const ir_op_info *info = ir_op_get(n->op);
  int printed = 0;
  sb_puts(b, " {");
  if (info) {
    for (const ir_attr_id *id = info->attrs; *id != IR_A_END; id++) {
      const ir_attr *a = ir_node_attr(n, *id);
      if (!a) continue;
      if (printed++) sb_puts(b, ", ");
      put_attr(b, a);
    }
  }
  for (int i = 0; i < n->n_attrs; i++) {
    const ir_attr *a = &n->attrs[i];
    if (a->id == IR_A_NAME || a->id == IR_A_CPU_REASON || (info && ir_op_has_attr(n->op, a->id)))
      continue;
    if (printed++) sb_puts(b, ", ");
    put_attr(b, a);
  }
  /* the attributes every op may carry, last */
  const ir_attr_id tail[] = {IR_A_NAME, IR_A_CPU_REASON};
  for (int i = 0; i < 2; i++) {
    const ir_attr *a = ir_node_attr(n, tail[i]);
    if (!a) continue;
    if (printed++) sb_puts(b, ", ");
    put_attr(b, a);
  }
  sb_puts(b, "}");
}

static void put_node(sbuf *b, const ir_node *n) {
  sb_puts(b, "  ");
  for (int i = 0; i < n->n_outputs; i++) {
    if (i) sb_puts(b, ", ");
    put_value_ref(b, n->outputs[i]);
  }
  sb_puts(b, " = ");
  sb_puts(b, ir_op_name(n->op));
  if (n->device == IR_DEVICE_GPU) sb_puts(b, "@gpu");
  if (n->device == IR_DEVICE_CPU) sb_puts(b, "@cpu");
  for (int i = 0; i < n->n_inputs; i++) {
    sb_puts(b, i ? ", " : " ");
    put_value_ref(b, n->inputs[i]);
  }
  put_attrs(b, n);
  sb_puts(b, " : ");
  for (int i = 0; i < n->n_outputs; i++) {
    if (i) sb_puts(b, ", ");
    if (n->outputs[i]) put_type(b, &n->outputs[i]->type, n->outputs[i]->layout);
  }
  sb_puts(b, "\n");
}

static void put_params(sbuf *b, ir_value *const *vals, int n) {
  sb_puts(b, "(");
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(b, ", ");
    put_value_ref(b, vals[i]);
    sb_puts(b, ": ");
    if (vals[i]) put_type(b, &vals[i]->type, vals[i]->layout);
  }
  sb_puts(b, ")");
}

vkml_status ir_print(const ir_graph *g, char **out, size_t *out_len) {
  *out = NULL;
  if (out_len) *out_len = 0;
  sbuf b = {0};
  /* Numbers are C-locale text whatever locale the embedding app chose. */
  locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  locale_t saved = c_locale ? uselocale(c_locale) : (locale_t)0;
  sb_puts(&b, "vkir 1\ngraph ");
  put_name(&b, '@', g->name ? g->name : "main");
  put_params(&b, g->inputs, g->n_inputs);
  sb_puts(&b, " -> ");
  put_params(&b, g->outputs, g->n_outputs);
  sb_puts(&b, " {\n");
  ir_foreach_value(g, v) if (v->storage != IR_CONST_NONE) put_const(&b, v);
  ir_foreach_node(g, n) put_node(&b, n);
  sb_puts(&b, "  return");
  for (int i = 0; i < g->n_outputs; i++) {
    sb_puts(&b, i ? ", " : " ");
    put_value_ref(&b, g->outputs[i]);
  }
  sb_puts(&b, "\n}\n");
  if (c_locale) {
    uselocale(saved);
    freelocale(c_locale);
  }
  if (b.oom) {
    free(b.buf);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory printing the graph");
  }
  *out = b.buf;
  if (out_len) *out_len = b.len;
  return VKML_OK;
}

vkml_status ir_print_file(const ir_graph *g, FILE *f) {
  char *text;
  size_t len;
  VKML_RETURN_IF_ERROR(ir_print(g, &text, &len));
  size_t wrote = fwrite(text, 1, len, f);
  free(text);
  if (wrote != len || fflush(f) != 0)
    return vkml_status_make(VKML_CODE_IO, "cannot write the graph text");
  return VKML_OK;
}
