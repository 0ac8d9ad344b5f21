/* Lists of op names on the command line (--cpu-ops, vktune --ops): IR
 * names or ONNX spellings, the ONNX knowledge codegen must not hold. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "frontend/onnx_import.h"
#include "ir/ops.h"

/* ONNX op types whose IR op has another name (after folding case and '_'). */
static const struct {
  const char *onnx;
  ir_op op;
} ONNX_ALIASES[] = {
    {"conv", IR_OP_CONV2D},
    {"convtranspose", IR_OP_CONV_TRANSPOSE2D},
    {"batchnormalization", IR_OP_BATCHNORM},
    {"instancenormalization", IR_OP_INSTANCE_NORM},
    {"layernormalization", IR_OP_LAYER_NORM},
    {"averagepool", IR_OP_AVGPOOL},
    {"globalaveragepool", IR_OP_GLOBAL_AVG_POOL},
    {"hardswish", IR_OP_HARD_SWISH},
};

/* Lower case without '_' into out (at most out_bytes - 1 characters). */
static void fold_name(const char *s, size_t len, char *out, size_t out_bytes) {
  size_t o = 0;
  for (size_t i = 0; i < len && o + 1 < out_bytes; i++)
    if (s[i] != '_') out[o++] = (char)tolower((unsigned char)s[i]);
  out[o] = 0;
}

vkml_status onnx_op_list_parse(const char *list, const char *what, bool *mask) {
  for (int i = 0; i < IR_OP_COUNT; i++) mask[i] = false;
  if (!list) return VKML_OK;
  const char *p = list;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && isspace((unsigned char)*p)) p++, len--;
    while (len && isspace((unsigned char)p[len - 1])) len--;
    if (len) {
      char want[64], have[64];
      fold_name(p, len, want, sizeof want);
      bool found = false;
      for (int op = 0; op < IR_OP_COUNT; op++) {
        const char *name = ir_op_name((ir_op)op);
        fold_name(name, strlen(name), have, sizeof have);
        if (len < sizeof want && !strcmp(want, have)) mask[op] = found = true;
      }
      for (size_t a = 0; a < sizeof ONNX_ALIASES / sizeof ONNX_ALIASES[0]; a++)
        if (len < sizeof want && !strcmp(want, ONNX_ALIASES[a].onnx))
          mask[ONNX_ALIASES[a].op] = found = true;
      if (!found)
        return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: unknown op '%.*s'",
                                what, (int)len, p);
    }
    p = e ? e + 1 : p + strlen(p);
  }
  return VKML_OK;
}
