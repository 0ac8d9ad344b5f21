/* Tokenizer of the .vkir text form. Rejects anything outside the grammar's
 * alphabet at the byte where it appears, so binary garbage fails early with
 * a position instead of confusing the parser. */
#include "lex.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ir_lex_init(ir_lexer *lx, const char *src, size_t len, const char *file) {
  memset(lx, 0, sizeof *lx);
  lx->src = src;
  lx->len = src ? len : 0;
  lx->line = 1;
  lx->col = 1;
  lx->file = file ? file : "<input>";
}

void ir_lex_fini(ir_lexer *lx) {
  free(lx->buf);
  lx->buf = NULL;
  lx->buf_cap = 0;
}

vkml_status ir_lex_error(const ir_lexer *lx, int line, int col, const char *fmt,
                         ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vkml_status_make(VKML_CODE_PARSE, "%s:%d:%d: %s", lx->file, line, col,
                          msg);
}

static int peek(const ir_lexer *lx, size_t ahead) {
  size_t i = lx->pos + ahead;
  return i < lx->len ? (unsigned char)lx->src[i] : -1;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }

static vkml_status bad_char(const ir_lexer *lx, int c) {
  if (c > 0x20 && c < 0x7f)
    return ir_lex_error(lx, lx->line, lx->col, "invalid character '%c'", c);
  return ir_lex_error(lx, lx->line, lx->col, "invalid character 0x%02x", c);
}

/* Tokens never span lines, so columns advance by byte count. Positions
 * saturate rather than overflow on absurd inputs (a 2 GiB line). */
static void advance(ir_lexer *lx, size_t n) {
  lx->pos += n;
  lx->col = (size_t)lx->col + n < INT_MAX ? lx->col + (int)n : INT_MAX;
}

static void newline(ir_lexer *lx) {
  lx->pos++;
  if (lx->line < INT_MAX) lx->line++;
  lx->col = 1;
}

static vkml_status skip_space(ir_lexer *lx) {
  for (;;) {
    int c = peek(lx, 0);
    if (c == ' ' || c == '\t' || c == '\r') {
      advance(lx, 1);
    } else if (c == '\n') {
      newline(lx);
    } else if (c == '#') {
      /* Comments may hold any text (UTF-8 included) but no control bytes. */
      while ((c = peek(lx, 0)) != -1 && c != '\n') {
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return bad_char(lx, c);
        advance(lx, 1);
      }
    } else {
      return VKML_OK;
    }
  }
}

static vkml_status buf_put(ir_lexer *lx, size_t *n, char c) {
  if (*n + 1 >= lx->buf_cap) {
    size_t cap = lx->buf_cap ? lx->buf_cap * 2 : 64;
    char *nb = realloc(lx->buf, cap);
    if (!nb) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    lx->buf = nb;
    lx->buf_cap = cap;
  }
  lx->buf[(*n)++] = c;
  lx->buf[*n] = 0;
  return VKML_OK;
}

static int hex_val(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes "..." at the current position into lx->buf. */
static vkml_status lex_quoted(ir_lexer *lx, ir_token *tok, int qline, int qcol) {
  size_t n = 0;
  VKML_RETURN_IF_ERROR(buf_put(lx, &n, 0)); /* make buf valid when empty */
  n = 0;
  advance(lx, 1); /* opening quote */
  for (;;) {
    int c = peek(lx, 0);
    if (c == -1 || c == '\n' || c == '\r')
      return ir_lex_error(lx, qline, qcol, "unterminated string");
    if (c == '"') {
      advance(lx, 1);
      break;
    }
    if (c == '\\') {
      int e = peek(lx, 1), v;
      switch (e) {
      case '"': v = '"'; break;
      case '\\': v = '\\'; break;
      case 'n': v = '\n'; break;
      case 't': v = '\t'; break;
      case 'x': {
        int h = hex_val(peek(lx, 2)), l = hex_val(peek(lx, 3));
        if (h < 0 || l < 0)
          return ir_lex_error(lx, lx->line, lx->col,
                              "bad escape: \\x needs two hex digits");
        v = h * 16 + l;
        if (v == 0)
          return ir_lex_error(lx, lx->line, lx->col,
                              "bad escape: \\x00 (NUL) is not allowed in names and strings");
        break;
      }
      default:
        if (e > 0x20 && e < 0x7f)
          return ir_lex_error(lx, lx->line, lx->col, "bad escape '\\%c'", e);
        return ir_lex_error(lx, lx->line, lx->col, "bad escape");
      }
      VKML_RETURN_IF_ERROR(buf_put(lx, &n, (char)v));
      advance(lx, e == 'x' ? 4 : 2);
      continue;
    }
    if ((c < 0x20 && c != '\t') || c == 0x7f) return bad_char(lx, c);
    VKML_RETURN_IF_ERROR(buf_put(lx, &n, (char)c));
    advance(lx, 1);
  }
  tok->str = lx->buf;
  tok->str_len = n;
  return VKML_OK;
}

/* %name or @name (sigil at the current position). */
static vkml_status lex_name(ir_lexer *lx, ir_token *tok) {
  int sigil = peek(lx, 0);
  advance(lx, 1);
  int c = peek(lx, 0);
  if (c == '"') return lex_quoted(lx, tok, lx->line, lx->col);
  if (c == -1 || !ir_lex_is_name_char((unsigned char)c))
    return ir_lex_error(lx, tok->line, tok->col, "expected a name after '%c'", sigil);
  size_t n = 0;
  while ((c = peek(lx, 0)) != -1 && ir_lex_is_name_char((unsigned char)c)) {
    VKML_RETURN_IF_ERROR(buf_put(lx, &n, (char)c));
    advance(lx, 1);
  }
  tok->str = lx->buf;
  tok->str_len = n;
  return VKML_OK;
}

static vkml_status lex_number(ir_lexer *lx, ir_token *tok) {
  size_t start = lx->pos, i = lx->pos;
  int is_float = 0;
  while (i < lx->len && is_digit((unsigned char)lx->src[i])) i++;
  if (i < lx->len && lx->src[i] == '.') {
    is_float = 1;
    i++;
    while (i < lx->len && is_digit((unsigned char)lx->src[i])) i++;
  }
  if (i < lx->len && (lx->src[i] == 'e' || lx->src[i] == 'E')) {
    size_t j = i + 1;
    if (j < lx->len && (lx->src[j] == '+' || lx->src[j] == '-')) j++;
    if (j < lx->len && is_digit((unsigned char)lx->src[j])) {
      is_float = 1;
      i = j;
      while (i < lx->len && is_digit((unsigned char)lx->src[i])) i++;
    }
  }
  if (i < lx->len && (is_ident_char((unsigned char)lx->src[i]) || lx->src[i] == '.')) {
    size_t end = i;
    while (end < lx->len && end - start < 32 &&
           (is_ident_char((unsigned char)lx->src[end]) || lx->src[end] == '.'))
      end++;
    return ir_lex_error(lx, tok->line, tok->col, "malformed number '%.*s'",
                        (int)(end - start), lx->src + start);
  }
  tok->kind = is_float ? IR_TK_FLOAT : IR_TK_INT;
  advance(lx, i - start);
  return VKML_OK;
}

vkml_status ir_lex_next(ir_lexer *lx, ir_token *tok) {
  memset(tok, 0, sizeof *tok);
  VKML_RETURN_IF_ERROR(skip_space(lx));
  tok->line = lx->line;
  tok->col = lx->col;
  tok->text = lx->src ? lx->src + lx->pos : "";
  int c = peek(lx, 0);
  size_t start = lx->pos;
  if (c == -1) {
    tok->kind = IR_TK_EOF;
    return VKML_OK;
  }
  vkml_status s = VKML_OK;
  if (is_ident_start(c)) {
    tok->kind = IR_TK_IDENT;
    size_t i = lx->pos;
    while (i < lx->len && is_ident_char((unsigned char)lx->src[i])) i++;
    advance(lx, i - lx->pos);
  } else if (is_digit(c) || (c == '.' && is_digit(peek(lx, 1)))) {
    s = lex_number(lx, tok);
  } else if (c == '%' || c == '@') {
    tok->kind = c == '%' ? IR_TK_VALUE : IR_TK_AT;
    s = lex_name(lx, tok);
  } else if (c == '"') {
    tok->kind = IR_TK_STRING;
    s = lex_quoted(lx, tok, lx->line, lx->col);
  } else if (c == '-' && peek(lx, 1) == '>') {
    tok->kind = IR_TK_ARROW;
    advance(lx, 2);
  } else if (c == '<' && peek(lx, 1) == '=') {
    tok->kind = IR_TK_LE;
    advance(lx, 2);
  } else {
    switch (c) {
    case '(': tok->kind = IR_TK_LPAREN; break;
    case ')': tok->kind = IR_TK_RPAREN; break;
    case '{': tok->kind = IR_TK_LBRACE; break;
    case '}': tok->kind = IR_TK_RBRACE; break;
    case '[': tok->kind = IR_TK_LBRACKET; break;
    case ']': tok->kind = IR_TK_RBRACKET; break;
    case ',': tok->kind = IR_TK_COMMA; break;
    case ':': tok->kind = IR_TK_COLON; break;
    case '=': tok->kind = IR_TK_EQUAL; break;
    case '-': tok->kind = IR_TK_MINUS; break;
    default: return bad_char(lx, c);
    }
    advance(lx, 1);
  }
  if (s) return s;
  tok->len = lx->pos - start;
  return VKML_OK;
}
