/* The .vkir parser: text -> graph in one pass, plus ir_parse_file (file,
 * weights blob, verification).
 *
 * It checks syntax, names, attribute names and kinds, literal ranges and
 * legal types; arity and shapes are left to ir_verify, so that a graph the
 * parser accepts always prints back. Names resolve through an ir_strmap and
 * every list grows by doubling: linear time in the input size. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "text.h"
#include "ir/file.h"
#include "ir/strmap.h"
#include "ir/util.h"

typedef struct hdr_output {
  const char *name; /* arena */
  ir_type type;
  ir_layout layout;
  int line, col;
} hdr_output;

typedef struct parser {
  ir_lexer lx;
  ir_token tok;
  ir_graph *g;
  ir_strmap names; /* value name -> ir_value */
  /* Scratch lists, reused by every statement. */
  ir_value **ins, **outs;
  size_t n_ins, cap_ins, n_outs, cap_outs;
  int64_t *ints;
  size_t n_ints, cap_ints;
  float *floats;
  size_t n_floats, cap_floats;
  uint8_t *bytes;
  size_t n_bytes, cap_bytes;
  char *num; /* NUL-terminated copy of a number for strtof */
  size_t cap_num;
  hdr_output *hdr;
  size_t n_hdr, cap_hdr;
  /* First use of a name not defined yet: an error at the end, which then
   * knows whether the name is defined later or not at all. */
  char *pending;
  int pending_line, pending_col;
} parser;

static vkml_status grow(void *arrp, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return VKML_OK;
  size_t ncap = *cap ? *cap : 16;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2 / elem) return ir_oom("parsing");
    ncap *= 2;
  }
  void **arr = arrp;
  void *na = realloc(*arr, ncap * elem);
  if (!na) return ir_oom("parsing");
  *arr = na;
  *cap = ncap;
  return VKML_OK;
}

static vkml_status perr(const parser *p, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static vkml_status perr(const parser *p, int line, int col, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ir_lex_error(&p->lx, line, col, "%s", msg);
}

/* ---- tokens ------------------------------------------------------------ */

static vkml_status next(parser *p) { return ir_lex_next(&p->lx, &p->tok); }

static bool is_kind(const parser *p, ir_tok_kind k) { return p->tok.kind == k; }

static bool is_word(const parser *p, const char *w) {
  size_t n = strlen(w);
  return p->tok.kind == IR_TK_IDENT && p->tok.len == n &&
         memcmp(p->tok.text, w, n) == 0;
}

/* Human description of the current token for "expected X, found Y". */
static void tok_describe(const ir_token *t, char *buf, size_t bytes) {
  int n = t->len > 40 ? 40 : (int)t->len;
  switch (t->kind) {
  case IR_TK_EOF: snprintf(buf, bytes, "end of input"); break;
  case IR_TK_STRING: snprintf(buf, bytes, "a string"); break;
  case IR_TK_VALUE: snprintf(buf, bytes, "value %.*s", n, t->text); break;
  default: snprintf(buf, bytes, "'%.*s'%s", n, t->text, t->len > 40 ? "..." : ""); break;
  }
}

static vkml_status expected(const parser *p, const char *what) {
  if (p->tok.kind == IR_TK_EOF)
    return perr(p, p->tok.line, p->tok.col,
                "unexpected end of input (truncated file?), expected %s", what);
  char d[64];
  tok_describe(&p->tok, d, sizeof d);
  return perr(p, p->tok.line, p->tok.col, "expected %s, found %s", what, d);
}

static vkml_status expect(parser *p, ir_tok_kind k, const char *what) {
  if (!is_kind(p, k)) return expected(p, what);
  return next(p);
}

/* ---- names ------------------------------------------------------------- */

static ir_value *lookup(const parser *p, const char *s, size_t n) {
  return ir_strmap_get_n(&p->names, s, n);
}

static vkml_status name_insert(parser *p, ir_value *v, size_t len) {
  vkml_status s = ir_strmap_put_n(&p->names, v->name, len, v);
  if (!s) return VKML_OK;
  /* the parser's out-of-memory errors all say what it was doing */
  vkml_status_free(s);
  return ir_oom("parsing");
}

/* Creates the value named by the current IR_TK_VALUE token (no duplicate). */
static vkml_status define_value(parser *p, ir_value **out) {
  const ir_token *t = &p->tok;
  ir_value *old = lookup(p, t->str, t->str_len);
  if (old)
    return perr(p, t->line, t->col, "duplicate definition of %%%s (first defined at %d:%d)",
                old->name, old->line, old->col);
  ir_type zero;
  memset(&zero, 0, sizeof zero);
  VKML_RETURN_IF_ERROR(ir_value_create(p->g, t->str, &zero, out));
  (*out)->line = t->line;
  (*out)->col = t->col;
  return name_insert(p, *out, t->str_len);
}

/* ---- numbers ----------------------------------------------------------- */

/* Digits of an IR_TK_INT token; false if the value exceeds limit. */
static bool int_value(const ir_token *t, uint64_t limit, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < t->len; i++) {
    unsigned d = (unsigned)(t->text[i] - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

static bool is_number_start(const parser *p) {
  return is_kind(p, IR_TK_MINUS) || is_kind(p, IR_TK_INT) ||
         is_kind(p, IR_TK_FLOAT) || is_word(p, "inf") || is_word(p, "nan");
}

/* ['-'] INT. bad: the message when the tokens are not an integer. */
static vkml_status parse_int(parser *p, int64_t *out, const char *bad) {
  int line = p->tok.line, col = p->tok.col;
  bool neg = is_kind(p, IR_TK_MINUS);
  if (neg) VKML_RETURN_IF_ERROR(next(p));
  if (!is_kind(p, IR_TK_INT)) {
    if (is_kind(p, IR_TK_EOF)) return expected(p, "an integer");
    return perr(p, p->tok.line, p->tok.col, "%s", bad);
  }
  uint64_t mag;
  if (!int_value(&p->tok, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &mag))
    return perr(p, line, col, "integer %s%.*s does not fit in int64", neg ? "-" : "",
                (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return next(p);
}

/* ['-'] (INT | FLOAT | inf | nan), rounded to f32. */
static vkml_status parse_float(parser *p, float *out, const char *bad) {
  int line = p->tok.line, col = p->tok.col;
  bool neg = is_kind(p, IR_TK_MINUS);
  if (neg) VKML_RETURN_IF_ERROR(next(p));
  if (is_word(p, "inf") || is_word(p, "nan")) {
    float v = p->tok.text[0] == 'i' ? INFINITY : NAN;
    *out = neg ? -v : v;
    return next(p);
  }
  if (!is_kind(p, IR_TK_INT) && !is_kind(p, IR_TK_FLOAT)) {
    if (is_kind(p, IR_TK_EOF)) return expected(p, "a number");
    return perr(p, p->tok.line, p->tok.col, "%s", bad);
  }
  VKML_RETURN_IF_ERROR(grow(&p->num, &p->cap_num, p->tok.len + 2, 1));
  p->num[0] = '-';
  memcpy(p->num + 1, p->tok.text, p->tok.len);
  p->num[p->tok.len + 1] = 0;
  float v = strtof(neg ? p->num : p->num + 1, NULL);
  if (isinf(v))
    return perr(p, line, col, "number %s%.*s is out of range for f32", neg ? "-" : "",
                (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  *out = v;
  return next(p);
}

/* ---- types ------------------------------------------------------------- */

static vkml_status parse_type(parser *p, ir_type *t, ir_layout *layout) {
  memset(t, 0, sizeof *t);
  *layout = IR_LAYOUT_DEFAULT;
  if (!is_kind(p, IR_TK_IDENT)) return expected(p, "a type such as f32[1,3]");
  if (!ir_dtype_from_name(p->tok.text, p->tok.len, &t->dtype))
    return perr(p, p->tok.line, p->tok.col, "unknown element type '%.*s'",
                (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  VKML_RETURN_IF_ERROR(next(p));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_LBRACKET, "'[' after the element type"));
  int64_t numel = 1;
  while (!is_kind(p, IR_TK_RBRACKET)) {
    int line = p->tok.line, col = p->tok.col;
    if (t->rank == IR_MAX_RANK)
      return perr(p, line, col, "rank exceeds the maximum of %d", IR_MAX_RANK);
    if (is_kind(p, IR_TK_LE)) {
      if (t->bounded)
        return perr(p, line, col, "two bounded axes (only one axis may be '<=')");
      t->bounded = true;
      t->bounded_axis = t->rank;
      VKML_RETURN_IF_ERROR(next(p));
    }
    if (is_kind(p, IR_TK_MINUS)) {
      VKML_RETURN_IF_ERROR(next(p));
      if (is_kind(p, IR_TK_INT))
        return perr(p, line, col, "negative dimension -%.*s",
                    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
    }
    if (!is_kind(p, IR_TK_INT)) return expected(p, "a dimension");
    uint64_t d;
    if (!int_value(&p->tok, (uint64_t)INT64_MAX, &d))
      return perr(p, p->tok.line, p->tok.col, "dimension %.*s does not fit in int64",
                  (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
    if ((int64_t)d > IR_MAX_ELEMENTS || (d > 0 && numel > IR_MAX_ELEMENTS / (int64_t)d))
      return perr(p, p->tok.line, p->tok.col,
                  "tensor too large (more than 2^40 elements)");
    numel *= (int64_t)d;
    t->dims[t->rank++] = (int64_t)d;
    VKML_RETURN_IF_ERROR(next(p));
    if (!is_kind(p, IR_TK_COMMA)) break;
    VKML_RETURN_IF_ERROR(next(p));
  }
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_RBRACKET, "',' or ']' in the shape"));
  /* Only a layout or 'return' may follow a type as an identifier. */
  if (is_kind(p, IR_TK_IDENT) && !is_word(p, "return")) {
    if (!ir_layout_from_name(p->tok.text, (int)p->tok.len, layout))
      return perr(p, p->tok.line, p->tok.col, "unknown layout '%.*s' (nhwc or nc4hw4)",
                  (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
    VKML_RETURN_IF_ERROR(next(p));
  }
  return VKML_OK;
}

static void type_text(const ir_type *t, ir_layout l, char *buf, int bytes) {
  ir_type_format(t, buf, bytes);
  if (l != IR_LAYOUT_DEFAULT) {
    size_t n = strlen(buf);
    snprintf(buf + n, (size_t)bytes - n, " %s", ir_layout_name(l));
  }
}

/* ---- constants --------------------------------------------------------- */

static vkml_status parse_scalar(parser *p, ir_dtype dt, uint8_t *dst) {
  char bad[64];
  snprintf(bad, sizeof bad, "expected a %s value", ir_dtype_name(dt));
  if (dt == IR_BOOL) {
    if (!is_word(p, "true") && !is_word(p, "false")) return expected(p, "true or false");
    *dst = is_word(p, "true");
    return next(p);
  }
  if (dt == IR_F32 || dt == IR_F16) {
    float f;
    VKML_RETURN_IF_ERROR(parse_float(p, &f, bad));
    if (dt == IR_F32) {
      memcpy(dst, &f, 4);
    } else {
      uint16_t h = ir_f32_to_f16(f);
      memcpy(dst, &h, 2);
    }
    return VKML_OK;
  }
  int line = p->tok.line, col = p->tok.col;
  int64_t v;
  VKML_RETURN_IF_ERROR(parse_int(p, &v, bad));
  int64_t lo = 0, hi = 0;
  switch (dt) {
  case IR_I32: lo = INT32_MIN; hi = INT32_MAX; break;
  case IR_I64: lo = INT64_MIN; hi = INT64_MAX; break;
  case IR_U8: lo = 0; hi = 255; break;
  case IR_I8: lo = -128; hi = 127; break;
  default: break;
  }
  if (v < lo || v > hi)
    return perr(p, line, col, "value %lld out of range for %s", (long long)v,
                ir_dtype_name(dt));
  if (dt == IR_I32) {
    int32_t x = (int32_t)v;
    memcpy(dst, &x, 4);
  } else if (dt == IR_I64) {
    memcpy(dst, &v, 8);
  } else if (dt == IR_U8) {
    *dst = (uint8_t)v;
  } else {
    int8_t x = (int8_t)v;
    memcpy(dst, &x, 1);
  }
  return VKML_OK;
}

/* After 'const': type then @blob[offset, bytes] or [v, v, ...]. */
static vkml_status parse_const(parser *p, ir_value *v) {
  VKML_RETURN_IF_ERROR(parse_type(p, &v->type, &v->layout));
  char tt[128];
  type_text(&v->type, IR_LAYOUT_DEFAULT, tt, sizeof tt);
  if (is_kind(p, IR_TK_AT)) {
    if (p->tok.str_len != 4 || memcmp(p->tok.str, "blob", 4) != 0)
      return expected(p, "@blob[offset, bytes] or '['");
    VKML_RETURN_IF_ERROR(next(p));
    VKML_RETURN_IF_ERROR(expect(p, IR_TK_LBRACKET, "'[' after @blob"));
    int64_t off, len;
    if (is_kind(p, IR_TK_MINUS))
      return perr(p, p->tok.line, p->tok.col, "negative blob offset");
    VKML_RETURN_IF_ERROR(parse_int(p, &off, "expected the blob byte offset"));
    VKML_RETURN_IF_ERROR(expect(p, IR_TK_COMMA, "','"));
    int line = p->tok.line, col = p->tok.col;
    if (is_kind(p, IR_TK_MINUS)) return perr(p, line, col, "negative blob length");
    VKML_RETURN_IF_ERROR(parse_int(p, &len, "expected the blob byte length"));
    if (len != ir_type_bytes(&v->type))
      return perr(p, line, col, "blob length %lld does not match %s (%lld bytes)",
                  (long long)len, tt, (long long)ir_type_bytes(&v->type));
    VKML_RETURN_IF_ERROR(expect(p, IR_TK_RBRACKET, "']'"));
    v->storage = IR_CONST_BLOB;
    v->blob_offset = (uint64_t)off;
    return VKML_OK;
  }
  if (!is_kind(p, IR_TK_LBRACKET)) return expected(p, "@blob[offset, bytes] or '['");
  VKML_RETURN_IF_ERROR(next(p));
  int64_t numel = ir_type_numel(&v->type), count = 0;
  size_t esize = ir_dtype_size(v->type.dtype);
  p->n_bytes = 0;
  while (!is_kind(p, IR_TK_RBRACKET)) {
    if (count == numel)
      return perr(p, p->tok.line, p->tok.col, "too many values: %s has %lld element%s",
                  tt, (long long)numel, numel == 1 ? "" : "s");
    VKML_RETURN_IF_ERROR(grow(&p->bytes, &p->cap_bytes, p->n_bytes + esize, 1));
    VKML_RETURN_IF_ERROR(parse_scalar(p, v->type.dtype, p->bytes + p->n_bytes));
    p->n_bytes += esize;
    count++;
    if (!is_kind(p, IR_TK_COMMA)) break;
    VKML_RETURN_IF_ERROR(next(p));
  }
  if (!is_kind(p, IR_TK_RBRACKET)) return expected(p, "',' or ']' in the constant");
  if (count != numel)
    return perr(p, p->tok.line, p->tok.col, "%s needs %lld value%s, got %lld", tt,
                (long long)numel, numel == 1 ? "" : "s", (long long)count);
  v->inline_data = ir_arena_memdup(p->g->arena, p->bytes, p->n_bytes);
  if (!v->inline_data) return ir_oom("parsing");
  v->storage = IR_CONST_INLINE;
  return next(p);
}

/* ---- attributes -------------------------------------------------------- */

static void enum_list(ir_enum e, char *buf, size_t bytes) {
  size_t off = 0;
  buf[0] = 0;
  for (int i = 0; i < ir_enum_count(e) && off < bytes; i++)
    off += (size_t)snprintf(buf + off, bytes - off, "%s%s", i ? ", " : "",
                            ir_enum_value_name(e, i));
}

static vkml_status parse_attr(parser *p, ir_node *n, bool *seen) {
  ir_graph *g = p->g;
  const char *op = ir_op_name(n->op);
  if (!is_kind(p, IR_TK_IDENT)) return expected(p, "an attribute name");
  ir_attr_id id;
  int nlen = (int)(p->tok.len > 40 ? 40 : p->tok.len);
  if (!ir_op_attr_from_name(n->op, p->tok.text, p->tok.len, &id))
    return perr(p, p->tok.line, p->tok.col, "%s has no attribute '%.*s'", op, nlen,
                p->tok.text);
  if (seen[id])
    return perr(p, p->tok.line, p->tok.col, "duplicate attribute '%s'", ir_attr_name(id));
  seen[id] = true;
  VKML_RETURN_IF_ERROR(next(p));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_EQUAL, "'=' after the attribute name"));
  const char *an = ir_attr_name(id);
  char bad[600], names[480];
  ir_enum en = ir_attr_enum_of(id);
  switch (ir_attr_kind_of(id)) {
  case IR_ATTR_INT: {
    snprintf(bad, sizeof bad, "attribute '%s' of %s expects an int", an, op);
    if (!is_number_start(p)) return perr(p, p->tok.line, p->tok.col, "%s", bad);
    int64_t v;
    VKML_RETURN_IF_ERROR(parse_int(p, &v, bad));
    return ir_node_set_int(g, n, id, v);
  }
  case IR_ATTR_FLOAT: {
    snprintf(bad, sizeof bad, "attribute '%s' of %s expects a float", an, op);
    if (!is_number_start(p)) return perr(p, p->tok.line, p->tok.col, "%s", bad);
    float v;
    VKML_RETURN_IF_ERROR(parse_float(p, &v, bad));
    return ir_node_set_float(g, n, id, v);
  }
  case IR_ATTR_INTS:
  case IR_ATTR_FLOATS: {
    bool ints = ir_attr_kind_of(id) == IR_ATTR_INTS;
    snprintf(bad, sizeof bad, "attribute '%s' of %s expects %s list", an, op,
             ints ? "an int" : "a float");
    if (!is_kind(p, IR_TK_LBRACKET)) return perr(p, p->tok.line, p->tok.col, "%s", bad);
    VKML_RETURN_IF_ERROR(next(p));
    size_t count = 0;
    while (!is_kind(p, IR_TK_RBRACKET)) {
      if (count >= (size_t)INT32_MAX)
        return perr(p, p->tok.line, p->tok.col, "list too long");
      if (!is_number_start(p) && !is_kind(p, IR_TK_EOF))
        return perr(p, p->tok.line, p->tok.col, "%s", bad);
      if (ints) {
        VKML_RETURN_IF_ERROR(grow(&p->ints, &p->cap_ints, count + 1, sizeof *p->ints));
        VKML_RETURN_IF_ERROR(parse_int(p, &p->ints[count], bad));
      } else {
        VKML_RETURN_IF_ERROR(grow(&p->floats, &p->cap_floats, count + 1, sizeof *p->floats));
        VKML_RETURN_IF_ERROR(parse_float(p, &p->floats[count], bad));
      }
      count++;
      if (!is_kind(p, IR_TK_COMMA)) break;
      VKML_RETURN_IF_ERROR(next(p));
    }
    VKML_RETURN_IF_ERROR(expect(p, IR_TK_RBRACKET, "',' or ']' in the list"));
    return ints ? ir_node_set_ints(g, n, id, p->ints, (int)count)
                : ir_node_set_floats(g, n, id, p->floats, (int)count);
  }
  case IR_ATTR_STRING: {
    if (!is_kind(p, IR_TK_STRING))
      return perr(p, p->tok.line, p->tok.col,
                  "attribute '%s' of %s expects a string", an, op);
    VKML_RETURN_IF_ERROR(ir_node_set_string(g, n, id, p->tok.str));
    return next(p);
  }
  case IR_ATTR_ENUM: {
    enum_list(en, names, sizeof names);
    int v;
    if (!is_kind(p, IR_TK_IDENT))
      return perr(p, p->tok.line, p->tok.col, "attribute '%s' of %s expects one of: %s",
                  an, op, names);
    if (!ir_enum_from_name(en, p->tok.text, p->tok.len, &v))
      return perr(p, p->tok.line, p->tok.col,
                  "attribute '%s' of %s has no value '%.*s' (one of: %s)", an, op,
                  (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text, names);
    VKML_RETURN_IF_ERROR(ir_node_set_enum(g, n, id, v));
    return next(p);
  }
  }
  return perr(p, p->tok.line, p->tok.col, "internal: unknown attribute kind");
}

/* ---- statements -------------------------------------------------------- */

/* An input reference: the value, or NULL (recorded as pending) if the name
 * is not defined yet. */
static vkml_status use_value(parser *p, int first_new_id, ir_value **out) {
  const ir_token *t = &p->tok;
  ir_value *v = lookup(p, t->str, t->str_len);
  if (v && v->id >= first_new_id)
    return perr(p, t->line, t->col, "%%%s used before its definition", v->name);
  if (!v && !p->pending) {
    p->pending = malloc(t->str_len + 1);
    if (!p->pending) return ir_oom("parsing");
    memcpy(p->pending, t->str, t->str_len + 1);
    p->pending_line = t->line;
    p->pending_col = t->col;
  }
  *out = v;
  return VKML_OK;
}

static vkml_status parse_node(parser *p, int first_new_id) {
  ir_op op;
  int line = p->tok.line, col = p->tok.col;
  if (!ir_op_from_name(p->tok.text, p->tok.len, &op))
    return perr(p, line, col, "unknown op '%.*s'",
                (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  VKML_RETURN_IF_ERROR(next(p));
  ir_device dev = IR_DEVICE_UNPLACED;
  if (is_kind(p, IR_TK_AT)) {
    if (p->tok.str_len == 3 && !memcmp(p->tok.str, "gpu", 3))
      dev = IR_DEVICE_GPU;
    else if (p->tok.str_len == 3 && !memcmp(p->tok.str, "cpu", 3))
      dev = IR_DEVICE_CPU;
    else
      return perr(p, p->tok.line, p->tok.col, "unknown device '%.40s' (@gpu or @cpu)",
                  p->tok.str);
    VKML_RETURN_IF_ERROR(next(p));
  }
  p->n_ins = 0;
  if (is_kind(p, IR_TK_VALUE)) {
    for (;;) {
      VKML_RETURN_IF_ERROR(grow(&p->ins, &p->cap_ins, p->n_ins + 1, sizeof *p->ins));
      VKML_RETURN_IF_ERROR(use_value(p, first_new_id, &p->ins[p->n_ins]));
      p->n_ins++;
      VKML_RETURN_IF_ERROR(next(p));
      if (!is_kind(p, IR_TK_COMMA)) break;
      VKML_RETURN_IF_ERROR(next(p));
      if (!is_kind(p, IR_TK_VALUE)) return expected(p, "an input value after ','");
    }
  }
  if (p->n_ins > INT32_MAX || p->n_outs > INT32_MAX)
    return perr(p, line, col, "too many operands");
  ir_node *n;
  VKML_RETURN_IF_ERROR(ir_node_create(p->g, op, p->ins, (int)p->n_ins, p->outs,
                                      (int)p->n_outs, &n));
  n->device = dev;
  n->line = line;
  n->col = col;
  if (is_kind(p, IR_TK_LBRACE)) {
    bool seen[IR_A_COUNT] = {false};
    VKML_RETURN_IF_ERROR(next(p));
    while (!is_kind(p, IR_TK_RBRACE)) {
      VKML_RETURN_IF_ERROR(parse_attr(p, n, seen));
      if (!is_kind(p, IR_TK_COMMA)) break;
      VKML_RETURN_IF_ERROR(next(p));
    }
    VKML_RETURN_IF_ERROR(expect(p, IR_TK_RBRACE, "',' or '}' after an attribute"));
  }
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_COLON, "':' and the output types"));
  int tline = p->tok.line, tcol = p->tok.col;
  size_t i = 0;
  for (;;) {
    if (i == p->n_outs)
      return perr(p, p->tok.line, p->tok.col, "more types than outputs (%zu)", p->n_outs);
    ir_value *o = p->outs[i++];
    VKML_RETURN_IF_ERROR(parse_type(p, &o->type, &o->layout));
    if (!is_kind(p, IR_TK_COMMA)) break;
    VKML_RETURN_IF_ERROR(next(p));
  }
  if (i < p->n_outs)
    return perr(p, tline, tcol, "%zu outputs but only %zu type%s",
                p->n_outs, i, i == 1 ? "" : "s");
  return VKML_OK;
}

/* VAL (',' VAL)* '=' ('const' ... | OP ...) */
static vkml_status parse_stmt(parser *p) {
  int first_new_id = p->g->n_values;
  p->n_outs = 0;
  for (;;) {
    if (!is_kind(p, IR_TK_VALUE)) return expected(p, "a value name");
    VKML_RETURN_IF_ERROR(grow(&p->outs, &p->cap_outs, p->n_outs + 1, sizeof *p->outs));
    VKML_RETURN_IF_ERROR(define_value(p, &p->outs[p->n_outs]));
    p->n_outs++;
    VKML_RETURN_IF_ERROR(next(p));
    if (!is_kind(p, IR_TK_COMMA)) break;
    VKML_RETURN_IF_ERROR(next(p));
  }
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_EQUAL, "'=' or ','"));
  if (!is_kind(p, IR_TK_IDENT)) return expected(p, "an op name or 'const'");
  if (is_word(p, "const")) {
    if (p->n_outs != 1)
      return perr(p, p->tok.line, p->tok.col, "const defines exactly one value");
    VKML_RETURN_IF_ERROR(next(p));
    return parse_const(p, p->outs[0]);
  }
  return parse_node(p, first_new_id);
}

/* ---- graph ------------------------------------------------------------- */

static vkml_status parse_input(parser *p) {
  if (!is_kind(p, IR_TK_VALUE)) return expected(p, "an input such as %x: f32[1]");
  ir_value *v;
  VKML_RETURN_IF_ERROR(define_value(p, &v));
  VKML_RETURN_IF_ERROR(next(p));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_COLON, "':' and the input's type"));
  VKML_RETURN_IF_ERROR(parse_type(p, &v->type, &v->layout));
  return ir_graph_add_input(p->g, v);
}

static vkml_status parse_header_output(parser *p) {
  if (!is_kind(p, IR_TK_VALUE)) return expected(p, "an output such as %y: f32[1]");
  VKML_RETURN_IF_ERROR(grow(&p->hdr, &p->cap_hdr, p->n_hdr + 1, sizeof *p->hdr));
  hdr_output *h = &p->hdr[p->n_hdr];
  h->name = ir_arena_strndup(p->g->arena, p->tok.str, p->tok.str_len);
  if (!h->name) return ir_oom("parsing");
  h->line = p->tok.line;
  h->col = p->tok.col;
  p->n_hdr++;
  VKML_RETURN_IF_ERROR(next(p));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_COLON, "':' and the output's type"));
  return parse_type(p, &h->type, &h->layout);
}

static vkml_status parse_return(parser *p) {
  int rline = p->tok.line, rcol = p->tok.col;
  VKML_RETURN_IF_ERROR(next(p));
  size_t i = 0;
  if (is_kind(p, IR_TK_VALUE)) {
    for (;;) {
      const ir_token *t = &p->tok;
      if (i == p->n_hdr)
        return perr(p, t->line, t->col,
                    "return lists more values than the %zu output%s of the header",
                    p->n_hdr, p->n_hdr == 1 ? "" : "s");
      const hdr_output *h = &p->hdr[i];
      if (strlen(h->name) != t->str_len || memcmp(h->name, t->str, t->str_len) != 0)
        return perr(p, t->line, t->col,
                    "return value %%%.60s does not match graph output %%%.60s of the header",
                    t->str, h->name);
      ir_value *v = lookup(p, t->str, t->str_len);
      if (!v) return perr(p, t->line, t->col, "undefined value %%%.60s", t->str);
      if (!ir_type_equal(&v->type, &h->type) || v->layout != h->layout) {
        char a[128], b[128];
        type_text(&h->type, h->layout, a, sizeof a);
        type_text(&v->type, v->layout, b, sizeof b);
        return perr(p, h->line, h->col, "graph output %%%s: header says %s but the value is %s",
                    v->name, a, b);
      }
      VKML_RETURN_IF_ERROR(ir_graph_add_output(p->g, v));
      i++;
      VKML_RETURN_IF_ERROR(next(p));
      if (!is_kind(p, IR_TK_COMMA)) break;
      VKML_RETURN_IF_ERROR(next(p));
      if (!is_kind(p, IR_TK_VALUE)) return expected(p, "a value after ','");
    }
  }
  if (i < p->n_hdr) {
    if (!is_kind(p, IR_TK_RBRACE)) return expected(p, "',' or '}'");
    return perr(p, rline, rcol, "return lists %zu value%s but the header declares %zu output%s",
                i, i == 1 ? "" : "s", p->n_hdr, p->n_hdr == 1 ? "" : "s");
  }
  return expect(p, IR_TK_RBRACE, "'}' after the return values");
}

static vkml_status parse_graph(parser *p) {
  VKML_RETURN_IF_ERROR(next(p));
  if (is_kind(p, IR_TK_EOF)) return perr(p, p->tok.line, p->tok.col, "empty input (expected 'vkir 1')");
  if (!is_word(p, "vkir")) return expected(p, "the header 'vkir 1'");
  VKML_RETURN_IF_ERROR(next(p));
  if (!is_kind(p, IR_TK_INT)) return expected(p, "the version number");
  uint64_t version;
  if (!int_value(&p->tok, UINT64_MAX, &version) || version != 1)
    return perr(p, p->tok.line, p->tok.col, "unsupported vkir version %.*s",
                (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  VKML_RETURN_IF_ERROR(next(p));
  if (!is_word(p, "graph")) return expected(p, "'graph'");
  VKML_RETURN_IF_ERROR(next(p));
  if (!is_kind(p, IR_TK_AT)) return expected(p, "the graph name '@name'");
  p->g->name = ir_arena_strndup(p->g->arena, p->tok.str, p->tok.str_len);
  if (!p->g->name) return ir_oom("parsing");
  VKML_RETURN_IF_ERROR(next(p));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_LPAREN, "'(' and the graph inputs"));
  while (!is_kind(p, IR_TK_RPAREN)) {
    VKML_RETURN_IF_ERROR(parse_input(p));
    if (!is_kind(p, IR_TK_COMMA)) break;
    VKML_RETURN_IF_ERROR(next(p));
  }
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_RPAREN, "',' or ')'"));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_ARROW, "'->' and the graph outputs"));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_LPAREN, "'(' and the graph outputs"));
  while (!is_kind(p, IR_TK_RPAREN)) {
    VKML_RETURN_IF_ERROR(parse_header_output(p));
    if (!is_kind(p, IR_TK_COMMA)) break;
    VKML_RETURN_IF_ERROR(next(p));
  }
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_RPAREN, "',' or ')'"));
  VKML_RETURN_IF_ERROR(expect(p, IR_TK_LBRACE, "'{'"));
  for (;;) {
    if (is_kind(p, IR_TK_VALUE)) {
      VKML_RETURN_IF_ERROR(parse_stmt(p));
    } else if (is_word(p, "return")) {
      break;
    } else if (is_kind(p, IR_TK_RBRACE)) {
      return perr(p, p->tok.line, p->tok.col, "missing 'return' before '}'");
    } else {
      return expected(p, "a statement or 'return'");
    }
  }
  VKML_RETURN_IF_ERROR(parse_return(p));
  if (!is_kind(p, IR_TK_EOF)) return expected(p, "end of input after the graph");
  if (p->pending) {
    ir_value *v = lookup(p, p->pending, strlen(p->pending));
    if (v)
      return perr(p, p->pending_line, p->pending_col,
                  "%%%s used before its definition (defined at %d:%d)", v->name,
                  v->line, v->col);
    return perr(p, p->pending_line, p->pending_col, "undefined value %%%.200s", p->pending);
  }
  return VKML_OK;
}

vkml_status ir_parse(const char *text, size_t len, const char *filename,
                     ir_graph **out) {
  *out = NULL;
  if (!text && len)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "ir_parse: NULL text");
  parser p;
  memset(&p, 0, sizeof p);
  ir_lex_init(&p.lx, text, len, filename);
  /* Numbers are C-locale text whatever locale the embedding app chose. */
  locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  locale_t saved = c_locale ? uselocale(c_locale) : (locale_t)0;
  vkml_status s = ir_graph_create(NULL, &p.g);
  if (!s) s = parse_graph(&p);
  if (c_locale) {
    uselocale(saved);
    freelocale(c_locale);
  }
  ir_lex_fini(&p.lx);
  ir_strmap_free(&p.names);
  free(p.ins);
  free(p.outs);
  free(p.ints);
  free(p.floats);
  free(p.bytes);
  free(p.num);
  free(p.hdr);
  free(p.pending);
  if (s) {
    ir_graph_destroy(p.g);
    return s;
  }
  *out = p.g;
  return VKML_OK;
}

/* ---- files ------------------------------------------------------------- */

/* PATH with its extension (if any, after the last '/') replaced by ".bin". */
static char *blob_path(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  char *bp = malloc(keep + 5);
  if (!bp) return NULL;
  memcpy(bp, path, keep);
  memcpy(bp + keep, ".bin", 5);
  return bp;
}

vkml_status ir_parse_file(const char *path, ir_graph **out) {
  *out = NULL;
  char *text;
  size_t len;
  VKML_RETURN_IF_ERROR(ir_file_read(path, (void **)&text, &len));
  ir_graph *g;
  vkml_status s = ir_parse(text, len, path, &g);
  free(text);
  if (s) return s;
  const ir_value *blob_user = NULL;
  ir_foreach_value(g, v) if (v->storage == IR_CONST_BLOB) {
    blob_user = v;
    break;
  }
  if (blob_user) {
    char *bp = blob_path(path);
    char *data = NULL;
    size_t bytes = 0;
    if (!bp) {
      s = ir_oom("parsing");
    } else {
      s = ir_file_read(bp, (void **)&data, &bytes);
      if (s)
        s = vkml_status_annotate(s, "%s:%d:%d: constant %%%s: weights file", path,
                                 blob_user->line, blob_user->col, blob_user->name);
    }
    free(bp);
    if (s) {
      ir_graph_destroy(g);
      return s;
    }
    ir_graph_set_blob(g, data, bytes, true);
  }
  s = ir_verify(g, path);
  if (s) {
    ir_graph_destroy(g);
    return s;
  }
  *out = g;
  return VKML_OK;
}
