/* Helpers for the shape-inference tests: build a one-node graph from input
 * types (MK), set attributes, and check inferred types or error messages. */
#ifndef TESTS_IR_INFER_CHECK_H
#define TESTS_IR_INFER_CHECK_H

#include <criterion/criterion.h>
#include <string.h>

#include "ir/infer.h"
#include "ir/params.h"
#include "ir/text.h"
#include "tests/support/test_support.h"

#define NARGS(T, ...) ((int)(sizeof((T[]){__VA_ARGS__}) / sizeof(T)))
#define TY(dt, ...) ir_type_make(dt, NARGS(int64_t, __VA_ARGS__), (const int64_t[]){__VA_ARGS__})
#define SC(dt) ir_type_make(dt, 0, NULL)
#define F32(...) TY(IR_F32, __VA_ARGS__)
#define I64(...) TY(IR_I64, __VA_ARGS__)
#define MK(op, n_out, ...) mk(op, (const ir_type[]){__VA_ARGS__}, NARGS(ir_type, __VA_ARGS__), n_out)
#define INTS(t, id, ...)                                                       \
  T_OK(ir_node_set_ints((t).g, (t).n, id, (const int64_t[]){__VA_ARGS__},      \
                        NARGS(int64_t, __VA_ARGS__)))
#define FLOATS(t, id, ...)                                                     \
  T_OK(ir_node_set_floats((t).g, (t).n, id, (const float[]){__VA_ARGS__},      \
                          NARGS(float, __VA_ARGS__)))
#define INT(t, id, v) T_OK(ir_node_set_int((t).g, (t).n, id, v))
#define FLT(t, id, v) T_OK(ir_node_set_float((t).g, (t).n, id, v))

typedef struct tn {
  ir_graph *g;
  ir_node *n;
} tn;

static inline ir_type bnd(ir_type t, int axis) {
  t.bounded = true;
  t.bounded_axis = axis;
  return t;
}

static inline tn mk(ir_op op, const ir_type *in, int n_in, int n_out) {
  tn t;
  T_OK(ir_graph_create("t", &t.g));
  ir_value *ins[8], *outs[8];
  for (int i = 0; i < n_in; i++) T_OK(ir_value_create(t.g, NULL, &in[i], &ins[i]));
  ir_type placeholder = SC(IR_F32);
  for (int i = 0; i < n_out; i++)
    T_OK(ir_value_create(t.g, NULL, &placeholder, &outs[i]));
  T_OK(ir_node_create(t.g, op, ins, n_in, outs, n_out, &t.n));
  return t;
}

static inline void expect_n(tn t, const ir_type *want, int n) {
  ir_type out[8];
  vkml_status s = ir_infer_node(t.n, out);
  cr_assert(s == VKML_OK, "%s: unexpected error: %s", ir_op_name(t.n->op),
            vkml_status_message(s));
  for (int i = 0; i < n; i++) {
    char a[256], b[256];
    ir_type_format(&out[i], a, sizeof a);
    ir_type_format(&want[i], b, sizeof b);
    cr_assert(ir_type_equal(&out[i], &want[i]), "%s output %d: got %s, want %s",
              ir_op_name(t.n->op), i, a, b);
  }
  ir_graph_destroy(t.g);
}
static inline void expect(tn t, ir_type want) { expect_n(t, &want, 1); }

static inline void expect_err(tn t, const char *sub) {
  ir_type out[8];
  vkml_status s = ir_infer_node(t.n, out);
  cr_assert(s != VKML_OK, "%s: expected an error containing '%s'",
            ir_op_name(t.n->op), sub);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_GRAPH);
  cr_assert(strstr(vkml_status_message(s), sub), "message '%s' lacks '%s'",
            vkml_status_message(s), sub);
  vkml_status_free(s);
  ir_graph_destroy(t.g);
}

#endif
