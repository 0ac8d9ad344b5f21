/* Tokenizer of the .vkir text form (internal to ir/parse.c).
 *
 * Works on a buffer that need not be NUL-terminated; tracks 1-based line and
 * byte column for messages. Value (%x), at (@x) and string ("...") tokens are
 * decoded (escapes resolved) into a scratch buffer the lexer owns. */
#ifndef IR_LEX_H
#define IR_LEX_H

#include <stddef.h>

#include "vkml_status.h"

typedef enum ir_tok_kind {
  IR_TK_EOF,
  IR_TK_IDENT,  /* [A-Za-z_][A-Za-z0-9_]* : keywords, ops, dtypes, enums */
  IR_TK_INT,    /* unsigned decimal digits (sign is a separate '-') */
  IR_TK_FLOAT,  /* unsigned decimal with '.' or exponent */
  IR_TK_STRING, /* "..." */
  IR_TK_VALUE,  /* %name */
  IR_TK_AT,     /* @name */
  IR_TK_LPAREN,
  IR_TK_RPAREN,
  IR_TK_LBRACE,
  IR_TK_RBRACE,
  IR_TK_LBRACKET,
  IR_TK_RBRACKET,
  IR_TK_COMMA,
  IR_TK_COLON,
  IR_TK_EQUAL,
  IR_TK_ARROW, /* -> */
  IR_TK_LE,    /* <= */
  IR_TK_MINUS,
} ir_tok_kind;

typedef struct ir_token {
  ir_tok_kind kind;
  const char *text; /* raw bytes in the source */
  size_t len;
  int line, col;
  /* IR_TK_VALUE / IR_TK_AT / IR_TK_STRING: the decoded name or string (no
   * NUL inside; NUL-terminated). Valid until the next ir_lex_next call. */
  const char *str;
  size_t str_len;
} ir_token;

typedef struct ir_lexer {
  const char *src;
  size_t len, pos;
  int line, col;
  const char *file; /* for messages; never NULL */
  char *buf;        /* scratch for decoded strings, malloc'd */
  size_t buf_cap;
} ir_lexer;

/* file may be NULL ("<input>"). Free the scratch with ir_lex_fini. */
void ir_lex_init(ir_lexer *lx, const char *src, size_t len, const char *file);
void ir_lex_fini(ir_lexer *lx);

/* Reads the next token; a PARSE status for invalid characters, malformed
 * numbers, unterminated strings and bad escapes. */
vkml_status ir_lex_next(ir_lexer *lx, ir_token *tok);

/* A PARSE status "FILE:LINE:COL: message". */
vkml_status ir_lex_error(const ir_lexer *lx, int line, int col, const char *fmt,
                         ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Name characters that need no quoting after '%' or '@'. */
static inline int ir_lex_is_name_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$' || c == '-';
}

#endif
