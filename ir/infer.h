/* Shape inference functions named by the op table (op_table.c). Internal to
 * ir/: use ir_infer_node() from text.h. */
#ifndef IR_INFER_H
#define IR_INFER_H

#include "graph.h"

/* One declaration per op row (the infer column of IR_OPS; repeated
 * declarations of one function are fine in C). */
#define X(id, name, family, infer, ...)                                        \
  vkml_status ir_infer_##infer(const ir_node *n, const ir_type *in, ir_type *out);
IR_OPS(X)
#undef X

/* Helper for messages from inference: INVALID_GRAPH status. */
vkml_status ir_infer_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* An int attribute that must be 0 or 1 (dflt when absent). */
vkml_status ir_infer_want_bit(const ir_node *n, ir_attr_id id, int64_t dflt);

/* Checked int64 arithmetic for inference: false (and *out untouched) on
 * overflow. */
bool ir_checked_add(int64_t a, int64_t b, int64_t *out);
bool ir_checked_mul(int64_t a, int64_t b, int64_t *out);
/* Whether non_max_suppression's boxes and scores are one bounded row:
 * [1,<=N,4] and [1,1,<=N], both bounded along N (what batched NMS
 * exports); the nms_keys ... nms_finish stages take only these. */
bool ir_nms_is_one_row(const ir_type *boxes, const ir_type *scores);
/* Writes the dims of t as "[2,<=3,4]" into buf (always NUL-terminated). */
void ir_dims_format(const ir_type *t, char *buf, int buf_bytes);

#endif
