/* Upper bounds of small integer values (ir/bounds.h): a walk back through
 * the integer shape arithmetic an exporter writes, at most 16 nodes deep. */
#include "ir/bounds.h"

#include <string.h>

#include "ir/dtype.h"

static int bounds(const ir_value *v, int64_t *hi, int max, int depth);

/* Inline integer constant elements. */
static int const_bounds(const ir_value *v, int64_t *hi, int max) {
  int64_t n = ir_type_numel(&v->type);
  if (v->storage != IR_CONST_INLINE || !v->inline_data || n > max) return -1;
  for (int64_t i = 0; i < n; i++) {
    switch (v->type.dtype) {
    case IR_I64: memcpy(&hi[i], (const char *)v->inline_data + 8 * i, 8); break;
    case IR_I32: {
      int32_t x;
      memcpy(&x, (const char *)v->inline_data + 4 * i, 4);
      hi[i] = x;
      break;
    }
    default: return -1;
    }
  }
  return (int)n;
}

static int reduce(const ir_node *p, int64_t *hi, int depth, bool is_min) {
  int64_t in[64];
  int n = bounds(p->inputs[0], in, 64, depth);
  /* over every element only: keepdims aside, the axes must cover the input */
  const int64_t *axes;
  int na = ir_node_ints(p, IR_A_AXES, &axes);
  if (n <= 0 || (na > 0 && p->inputs[0]->type.rank > 1)) return -1;
  int64_t r = in[0];
  for (int i = 1; i < n; i++) r = is_min ? (in[i] < r ? in[i] : r) : (in[i] > r ? in[i] : r);
  hi[0] = r;
  return 1;
}

static int bounds(const ir_value *v, int64_t *hi, int max, int depth) {
  if (!ir_dtype_is_int(v->type.dtype) || v->type.bounded || depth <= 0 ||
      ir_type_numel(&v->type) > max)
    return -1;
  if (ir_value_is_const(v)) return const_bounds(v, hi, max);
  const ir_node *p = v->producer;
  if (!p || p->n_outputs != 1) return -1;
  int n = (int)ir_type_numel(&v->type);
  switch (p->op) {
  case IR_OP_SHAPE: {
    const ir_type *x = &p->inputs[0]->type;
    if (x->rank != n) return -1;
    for (int i = 0; i < n; i++) hi[i] = x->dims[i];
    return n;
  }
  case IR_OP_RESHAPE:
  case IR_OP_FLATTEN:
  case IR_OP_SQUEEZE:
  case IR_OP_UNSQUEEZE:
  case IR_OP_IDENTITY:
  case IR_OP_CAST:
  case IR_OP_UPLOAD:
  case IR_OP_DOWNLOAD:
    return bounds(p->inputs[0], hi, max, depth - 1) == n ? n : -1;
  case IR_OP_CONCAT: {
    if (v->type.rank != 1) return -1;
    int at = 0;
    for (int i = 0; i < p->n_inputs; i++) {
      int k = bounds(p->inputs[i], hi + at, max - at, depth - 1);
      if (k < 0) return -1;
      at += k;
    }
    return at == n ? n : -1;
  }
  case IR_OP_GATHER: {
    int64_t data[64], idx[64];
    int nd = bounds(p->inputs[0], data, 64, depth - 1);
    const ir_value *iv = p->inputs[1];
    int ni = ir_value_is_const(iv) ? const_bounds(iv, idx, 64) : -1;
    if (nd < 0 || ni != n || p->inputs[0]->type.rank != 1) return -1;
    for (int i = 0; i < n; i++) {
      int64_t j = idx[i] < 0 ? idx[i] + nd : idx[i];
      if (j < 0 || j >= nd) return -1;
      hi[i] = data[j];
    }
    return n;
  }
  case IR_OP_REDUCE_MIN:
  case IR_OP_REDUCE_MAX:
    return n == 1 ? reduce(p, hi, depth - 1, p->op == IR_OP_REDUCE_MIN) : -1;
  case IR_OP_MIN:
  case IR_OP_MAX: {
    /* same-length operands or one-element ones broadcast */
    bool is_min = p->op == IR_OP_MIN, known = false;
    for (int i = 0; i < p->n_inputs; i++) {
      int64_t b[64];
      int k = bounds(p->inputs[i], b, 64, depth - 1);
      if (k != n && k != 1) {
        if (is_min) continue; /* min: an unknown operand leaves the others' bound */
        return -1;
      }
      for (int j = 0; j < n; j++) {
        int64_t x = b[k == 1 ? 0 : j];
        hi[j] = !known ? x : is_min ? (x < hi[j] ? x : hi[j]) : (x > hi[j] ? x : hi[j]);
      }
      known = true;
    }
    return known ? n : -1;
  }
  default:
    return -1;
  }
}

int ir_int_upper_bounds(const ir_value *v, int64_t *hi, int max) {
  return bounds(v, hi, max, 16);
}
