/* Workload keys (key.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/key.h"
#include "codegen/core/compile.h"
typedef struct strbuf {
  char *p;
  int cap, len;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_add(strbuf *b, const char *fmt, ...) {
  if (b->len >= b->cap - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->p + b->len, (size_t)(b->cap - b->len), fmt, ap);
  va_end(ap);
  if (n > 0) b->len = b->len + n < b->cap - 1 ? b->len + n : b->cap - 1;
}

static void sb_type(strbuf *b, const ir_type *t) {
  char tb[160];
  ir_type_format(t, tb, sizeof tb);
  sb_add(b, "%s", tb);
}

static void sb_attr(strbuf *b, const ir_attr *a) {
  sb_add(b, "%s=", ir_attr_name(a->id));
  switch (ir_attr_kind_of(a->id)) {
  case IR_ATTR_INT: sb_add(b, "%lld", (long long)a->u.i); break;
  case IR_ATTR_FLOAT: sb_add(b, "%.9g", (double)a->u.f); break;
  case IR_ATTR_ENUM: {
    const char *v = ir_enum_value_name(ir_attr_enum_of(a->id), (int)a->u.i);
    if (v) sb_add(b, "%s", v);
    else sb_add(b, "%lld", (long long)a->u.i);
    break;
  }
  case IR_ATTR_INTS:
    for (int i = 0; i < a->n; i++) sb_add(b, "%s%lld", i ? "," : "[", (long long)a->u.ints[i]);
    sb_add(b, a->n ? "]" : "[]");
    break;
  case IR_ATTR_FLOATS:
    for (int i = 0; i < a->n; i++) sb_add(b, "%s%.9g", i ? "," : "[", (double)a->u.floats[i]);
    sb_add(b, a->n ? "]" : "[]");
    break;
  case IR_ATTR_STRING: sb_add(b, "\"%s\"", a->u.s ? a->u.s : ""); break;
  default: sb_add(b, "?"); break;
  }
}

void cg_data_key(const ir_node *n, char *buf, int buf_bytes) {
  char full[8192];
  strbuf b = {full, (int)sizeof full, 0};
  full[0] = '\0';
  sb_add(&b, "%s(", ir_op_name(n->op));
  for (int i = 0; i < n->n_inputs; i++) {
    if (i) sb_add(&b, ",");
    sb_type(&b, &n->inputs[i]->type);
  }
  sb_add(&b, ")->(");
  for (int i = 0; i < n->n_outputs; i++) {
    if (i) sb_add(&b, ",");
    sb_type(&b, &n->outputs[i]->type);
  }
  sb_add(&b, ")");
  bool any = false;
  for (int id = 0; id < IR_A_COUNT; id++) {
    const ir_attr *a = id == IR_A_NAME ? NULL : ir_node_attr(n, (ir_attr_id)id);
    if (!a) continue;
    sb_add(&b, any ? "," : "{");
    sb_attr(&b, a);
    any = true;
  }
  if (any) sb_add(&b, "}");
  if (b.len < buf_bytes) {
    memcpy(buf, full, (size_t)b.len + 1);
    return;
  }
  /* too long for the kernel's key: a prefix, then a hash of everything */
  cg_hash128 h = cg_fnv128(cg_fnv128_init(), full, (size_t)b.len);
  int keep = buf_bytes - 36;
  if (keep < 0) keep = 0;
  memcpy(buf, full, (size_t)keep);
  snprintf(buf + keep, (size_t)(buf_bytes - keep), "#%016llx%016llx", (unsigned long long)h.hi,
           (unsigned long long)h.lo);
}

int cg_act_key(const ir_act_params *a, char *buf, size_t buf_bytes) {
  if (buf_bytes) buf[0] = '\0';
  if (a->kind == IR_ACT_NONE) return 0;
  bool alpha = a->kind == IR_ACT_CLIP || a->kind == IR_ACT_LEAKY_RELU || a->kind == IR_ACT_ELU ||
               a->kind == IR_ACT_HARD_SIGMOID;
  bool beta = a->kind == IR_ACT_CLIP || a->kind == IR_ACT_HARD_SIGMOID;
  char al[32] = "", be[32] = "";
  if (alpha) snprintf(al, sizeof al, ",act_alpha=%.9g", (double)a->alpha);
  if (beta) snprintf(be, sizeof be, ",act_beta=%.9g", (double)a->beta);
  return snprintf(buf, buf_bytes, ",act=%s%s%s", ir_enum_value_name(IR_ENUM_ACT, a->kind), al, be);
}

void cg_node_key(const ir_node *n, const char *attrs, char *buf, int buf_bytes) {
  int len = snprintf(buf, (size_t)buf_bytes, "%s(", ir_op_name(n->op));
  for (int i = 0; i < n->n_inputs && len < buf_bytes; i++) {
    char ty[160];
    ir_type_format(&n->inputs[i]->type, ty, sizeof ty);
    len += snprintf(buf + len, (size_t)(buf_bytes - len), "%s%s", i ? "," : "", ty);
  }
  if (len < buf_bytes) {
    char ty[160];
    ir_type_format(&n->outputs[0]->type, ty, sizeof ty);
    snprintf(buf + len, (size_t)(buf_bytes - len), ")->%s%s", ty, attrs);
  }
}
