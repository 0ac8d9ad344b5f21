/* CPU reference kernels: binary elementwise ops (arithmetic with fused act,
 * pow, prelu, comparisons, and/or), variadic min/max/sum/mean and where, all
 * with NumPy broadcasting. Floats are computed in double and rounded once on
 * store; integers stay in int64 arithmetic with two's complement wrap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

/* Wrapping int64 arithmetic: signed overflow is undefined in C. */
static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* Truncating division. Integer division by zero is defined as 0 here (the
 * reference must not trap on data); INT64_MIN / -1 wraps to INT64_MIN. */
static int64_t int_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap_sub(0, a);
  return a / b;
}

/* base^e in wrapping integer arithmetic. A negative exponent gives the
 * truncated value of 1/base^-e: 1 for base 1, +-1 for base -1, else 0
 * (also for base 0, where it would be a division by zero). */
static int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e & 1) ? -1 : 1;
    return 0;
  }
  int64_t r = 1;
  while (e) {
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}

/* The fused activation on an integer result: relu/relu6/clip exactly in
 * integers (clip bounds truncated toward zero), the others through double. */
static int64_t int_act(const ir_act_params *p, int64_t v, ir_dtype t) {
  switch (p->kind) {
  case IR_ACT_NONE: return v;
  case IR_ACT_RELU: return v < 0 ? 0 : v;
  case IR_ACT_RELU6: return v < 0 ? 0 : (v > 6 ? 6 : v);
  case IR_ACT_CLIP: {
    int64_t lo = ir_f64_to_int(p->alpha, IR_I64);
    int64_t hi = ir_f64_to_int(p->beta, IR_I64);
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  }
  default: return ir_f64_to_int(ir_act_apply(p, (double)v), t);
  }
}

static bool is_compare(ir_op op) {
  return op == IR_OP_EQUAL || op == IR_OP_GREATER || op == IR_OP_LESS ||
         op == IR_OP_GREATER_OR_EQUAL || op == IR_OP_LESS_OR_EQUAL;
}

static bool compare_f(ir_op op, double x, double y) {
  switch (op) {
  case IR_OP_EQUAL: return x == y;
  case IR_OP_GREATER: return x > y;
  case IR_OP_LESS: return x < y;
  case IR_OP_GREATER_OR_EQUAL: return x >= y;
  default: return x <= y;
  }
}

static bool compare_i(ir_op op, int64_t x, int64_t y) {
  switch (op) {
  case IR_OP_EQUAL: return x == y;
  case IR_OP_GREATER: return x > y;
  case IR_OP_LESS: return x < y;
  case IR_OP_GREATER_OR_EQUAL: return x >= y;
  default: return x <= y;
  }
}

/* One step of the variadic float min / max / sum fold: NaN propagates, as
 * numpy.minimum. */
double rt_cpu_fold_f(ir_op op, double acc, double v) {
  if (isnan(v)) return v;
  if (isnan(acc)) return acc;
  if (op == IR_OP_MIN) return v < acc ? v : acc;
  if (op == IR_OP_MAX) return v > acc ? v : acc;
  return acc + v;
}

static double arith_f(ir_op op, double x, double y) {
  switch (op) {
  case IR_OP_ADD: return x + y;
  case IR_OP_SUB: return x - y;
  case IR_OP_MUL: return x * y;
  case IR_OP_DIV: return x / y;
  case IR_OP_POW: return pow(x, y);
  default: return x < 0 ? y * x : x; /* prelu; NaN passes through */
  }
}

double rt_cpu_binary_f(ir_op op, const ir_act_params *act, double x, double y) {
  if (op == IR_OP_MIN || op == IR_OP_MAX) return rt_cpu_fold_f(op, x, y);
  return ir_act_apply(act, arith_f(op, x, y));
}

static int64_t arith_i(ir_op op, int64_t x, int64_t y) {
  switch (op) {
  case IR_OP_ADD: return wrap_add(x, y);
  case IR_OP_SUB: return wrap_sub(x, y);
  case IR_OP_MUL: return wrap_mul(x, y);
  case IR_OP_DIV: return int_div(x, y);
  case IR_OP_POW: return int_pow(x, y);
  default: return x < 0 ? wrap_mul(y, x) : x; /* prelu */
  }
}

/* Remainders: C's fmod (the sign of x), or with the sign of y (Python's
 * %, ONNX Mod's fmod=0); integer / 0 gives 0, as int_div does. */
static double mod_f(double x, double y, bool fmod_sign) {
  double r = fmod(x, y);
  if (!fmod_sign && r != 0 && (r < 0) != (y < 0)) r += y;
  return r;
}

static int64_t mod_i(int64_t x, int64_t y, bool fmod_sign) {
  if (y == 0) return 0;
  if (y == -1) return 0; /* INT64_MIN % -1 overflows in C */
  int64_t r = x % y;
  if (!fmod_sign && r != 0 && (r < 0) != (y < 0)) r += y;
  return r;
}

static vkml_status check_binary_dtypes(const ir_node *n, const rt_tensor *x,
                                       const rt_tensor *y) {
  ir_op op = n->op;
  if (op == IR_OP_AND || op == IR_OP_OR || op == IR_OP_XOR) {
    if (x->dtype != IR_BOOL || y->dtype != IR_BOOL)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s needs bool inputs, got %s and %s",
                          ir_op_name(op), ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
    return VKML_OK;
  }
  if (op == IR_OP_POW) {
    if (x->dtype == IR_BOOL || y->dtype == IR_BOOL)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "pow needs numeric inputs");
    return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(rt_cpu_check_same_dtype(n, x, y, 1));
  if (!is_compare(op) && x->dtype == IR_BOOL)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s needs numeric inputs, got bool",
                        ir_op_name(op));
  return VKML_OK;
}

vkml_status rt_cpu_binary(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *y = a->in[1];
  rt_tensor *z = a->out[0];
  ir_op op = n->op;
  VKML_RETURN_IF_ERROR(check_binary_dtypes(n, x, y));

  int rank;
  int64_t dims[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(rt_cpu_broadcast_dims(n, 2, a->in, &rank, dims));
  if (op == IR_OP_PRELU) {
    /* slope broadcasts to x, never x to the slope */
    bool same = rank == x->rank;
    for (int d = 0; same && d < rank; d++) same = dims[d] == x->dims[d];
    if (!same)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "slope does not broadcast to x's shape");
  }
  bool to_bool = is_compare(op) || op == IR_OP_AND || op == IR_OP_OR || op == IR_OP_XOR;
  bool fmod_sign = ir_node_int(n, IR_A_FMOD, 0) != 0; /* mod: the sign of x */
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, z, to_bool ? IR_BOOL : x->dtype, rank, dims));

  ir_act_params act = {IR_ACT_NONE, 0, 0};
  if (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL || op == IR_OP_DIV)
    ir_act_params_get(n, &act);

  int64_t sx[IR_MAX_RANK], sy[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
  rt_cpu_bcast_strides(x, rank, dims, sx);
  rt_cpu_bcast_strides(y, rank, dims, sy);
  int64_t count = rt_tensor_numel(z);
  bool fx = ir_dtype_is_float(x->dtype), fy = ir_dtype_is_float(y->dtype);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, dims, idx)) {
    int64_t ix = rt_cpu_index_offset(rank, idx, sx);
    int64_t iy = rt_cpu_index_offset(rank, idx, sy);
    if (op == IR_OP_AND) {
      rt_store_i(z, i, rt_load_i(x, ix) && rt_load_i(y, iy));
    } else if (op == IR_OP_OR) {
      rt_store_i(z, i, rt_load_i(x, ix) || rt_load_i(y, iy));
    } else if (op == IR_OP_XOR) {
      rt_store_i(z, i, !rt_load_i(x, ix) != !rt_load_i(y, iy));
    } else if (op == IR_OP_MOD && fx) {
      rt_store_f(z, i, mod_f(rt_load_f(x, ix), rt_load_f(y, iy), fmod_sign));
    } else if (op == IR_OP_MOD) {
      rt_store_i(z, i, mod_i(rt_load_i(x, ix), rt_load_i(y, iy), fmod_sign));
    } else if (is_compare(op)) {
      rt_store_i(z, i, fx ? compare_f(op, rt_load_f(x, ix), rt_load_f(y, iy))
                          : compare_i(op, rt_load_i(x, ix), rt_load_i(y, iy)));
    } else if (fx) {
      rt_store_f(z, i, rt_cpu_binary_f(op, &act, rt_load_f(x, ix), rt_load_f(y, iy)));
    } else if (fy) {
      /* pow only: integer base, float exponent, result truncated */
      double v = pow((double)rt_load_i(x, ix), rt_load_f(y, iy));
      rt_store_i(z, i, ir_f64_to_int(v, z->dtype));
    } else {
      int64_t v = arith_i(op, rt_load_i(x, ix), rt_load_i(y, iy));
      rt_store_i(z, i, int_act(&act, v, z->dtype));
    }
  }
  return VKML_OK;
}

/* ---- variadic min / max / sum / mean ------------------------------------ */

vkml_status rt_cpu_variadic(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  ir_op op = n->op;
  rt_tensor *z = a->out[0];
  if (a->n_in < 1) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "needs at least 1 input");
  ir_dtype dt = a->in[0]->dtype;
  for (int k = 1; k < a->n_in; k++)
    VKML_RETURN_IF_ERROR(rt_cpu_check_same_dtype(n, a->in[0], a->in[k], k));
  bool fl = ir_dtype_is_float(dt);
  if (dt == IR_BOOL || (op == IR_OP_MEAN && !fl))
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s does not take %s inputs",
                        ir_op_name(op), ir_dtype_name(dt));
  int rank;
  int64_t dims[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(rt_cpu_broadcast_dims(n, a->n_in, a->in, &rank, dims));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, z, dt, rank, dims));

  int64_t(*strides)[IR_MAX_RANK] = malloc(sizeof *strides * (size_t)a->n_in);
  if (!strides) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  for (int k = 0; k < a->n_in; k++) rt_cpu_bcast_strides(a->in[k], rank, dims, strides[k]);

  int64_t idx[IR_MAX_RANK] = {0}, count = rt_tensor_numel(z);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, dims, idx)) {
    if (fl) {
      double acc = 0;
      for (int k = 0; k < a->n_in; k++) {
        double v = rt_load_f(a->in[k], rt_cpu_index_offset(rank, idx, strides[k]));
        acc = k == 0 ? v : rt_cpu_fold_f(op == IR_OP_MEAN ? IR_OP_SUM : op, acc, v);
      }
      rt_store_f(z, i, op == IR_OP_MEAN ? acc / a->n_in : acc);
    } else {
      int64_t acc = 0;
      for (int k = 0; k < a->n_in; k++) {
        int64_t v = rt_load_i(a->in[k], rt_cpu_index_offset(rank, idx, strides[k]));
        if (k == 0) acc = v;
        else if (op == IR_OP_MIN) acc = v < acc ? v : acc;
        else if (op == IR_OP_MAX) acc = v > acc ? v : acc;
        else acc = wrap_add(acc, v);
      }
      rt_store_i(z, i, acc);
    }
  }
  free(strides);
  return VKML_OK;
}

/* ---- where --------------------------------------------------------------- */

vkml_status rt_cpu_where(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *c = a->in[0], *x = a->in[1], *y = a->in[2];
  rt_tensor *z = a->out[0];
  if (c->dtype != IR_BOOL)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "condition must be bool, got %s",
                        ir_dtype_name(c->dtype));
  VKML_RETURN_IF_ERROR(rt_cpu_check_same_dtype(n, x, y, 2));
  int rank;
  int64_t dims[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(rt_cpu_broadcast_dims(n, 3, a->in, &rank, dims));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, z, x->dtype, rank, dims));

  int64_t sc[IR_MAX_RANK], sx[IR_MAX_RANK], sy[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
  rt_cpu_bcast_strides(c, rank, dims, sc);
  rt_cpu_bcast_strides(x, rank, dims, sx);
  rt_cpu_bcast_strides(y, rank, dims, sy);
  size_t es = ir_dtype_size(x->dtype);
  int64_t count = rt_tensor_numel(z);
  for (int64_t i = 0; i < count; i++, rt_cpu_index_next(rank, dims, idx)) {
    bool take_x = rt_load_i(c, rt_cpu_index_offset(rank, idx, sc)) != 0;
    const rt_tensor *src = take_x ? x : y;
    int64_t j = rt_cpu_index_offset(rank, idx, take_x ? sx : sy);
    /* bytes, so every dtype and NaN payload is kept exactly */
    memcpy((char *)z->data + (size_t)i * es, (const char *)src->data + (size_t)j * es, es);
  }
  return VKML_OK;
}
