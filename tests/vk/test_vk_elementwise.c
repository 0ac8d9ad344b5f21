/* The elementwise families on the device (lavapipe, validation on) against
 * the CPU reference (rt_cpu_run_node on the same node), random non-zero
 * inputs: elementwise_unary (every unary op, every cast pair), copy
 * (identity / reshape / flatten / squeeze / unsqueeze / same-type cast) and
 * elementwise_nary (pow, prelu, comparisons, and / or, integer arithmetic
 * with activations, variadic min / max / sum / mean with 1..7 inputs,
 * where) over 24 shapes / 22 broadcast patterns with the default schedule,
 * and on 8 sampled points of each template's space (every WG_SIZE and
 * every EPI value appears). Hand-worked values pin the semantics the
 * reference defines (round half to even, saturating casts, integer / 0,
 * pow's signs); routing and UNSUPPORTED answers are checked without a device.
 *
 * Bounds (|got - want| <= rtol*|want| + atol, NaN only against NaN):
 *   f32: rtol 1e-4, atol 0 — except float add/sub/mul/div fused with
 *        hard_sigmoid / hard_swish (their roots make the fp32 evaluation of
 *        the rounded a OP b ill-conditioned against the double reference):
 *        atol 1e-6, inputs are O(1).
 *   f16: rtol 2^-10 (one f16 ulp: the shader rounds an fp32 result once, the
 *        reference a double one), atol 2^-24 (one subnormal step).
 *   casts, copies and every integer or bool output: exact. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/kernels/binary.h"
#include "codegen/core/templates.h"
#include "codegen/core/ops.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

/* ---- harness ------------------------------------------------------------- */

typedef struct env {
  vt_env v;
  int n_run;
  double max_err[2]; /* worst relative error seen, f32 and f16 */
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

static void env_close(env *e) {
  cr_log_info("%d kernels, max relative error f32 %.3g f16 %.3g", e->n_run, e->max_err[0],
              e->max_err[1]);
  vt_env_close(&e->v);
}

/* Attributes of a case, set on the node after it is made. */
typedef struct attrs {
  int n_f;
  ir_attr_id f_id[3];
  float f[3];
  int n_e; /* enum / int attributes */
  ir_attr_id e_id[2];
  int64_t e[2];
  bool e_is_enum[2];
  ir_attr_id ints_id; /* IR_A_END: none */
  int n_ints;
  int64_t ints[IR_MAX_RANK];
} attrs;

static void attrs_none(attrs *a) {
  memset(a, 0, sizeof *a);
  a->ints_id = IR_A_END;
}
static void attr_f(attrs *a, ir_attr_id id, float v) {
  a->f_id[a->n_f] = id;
  a->f[a->n_f++] = v;
}
static void attr_e(attrs *a, ir_attr_id id, int64_t v, bool is_enum) {
  a->e_id[a->n_e] = id;
  a->e_is_enum[a->n_e] = is_enum;
  a->e[a->n_e++] = v;
}

/* Runs the node of op over in[0..n_in) (taken: freed here) on the CPU and
 * on the device with template st (NULL: the family's choice) and schedule s
 * (NULL: default), and compares. */
static void verify(env *e, ir_op op, rt_tensor *in, int n_in, const ir_type *out_type,
                   const attrs *a, const cg_template *st, const cg_schedule *s, double f32_atol) {
  t_case c;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < n_in; i++) c.in[i] = in[i];
  t_case_make(&c, op, n_in, out_type, 1);
  for (int i = 0; i < a->n_f; i++) T_OK(ir_node_set_float(c.g, c.n, a->f_id[i], a->f[i]));
  for (int i = 0; i < a->n_e; i++)
    T_OK(a->e_is_enum[i] ? ir_node_set_enum(c.g, c.n, a->e_id[i], (int)a->e[i])
                         : ir_node_set_int(c.g, c.n, a->e_id[i], a->e[i]));
  if (a->ints_id != IR_A_END) T_OK(ir_node_set_ints(c.g, c.n, a->ints_id, a->ints, a->n_ints));
  T_OK(t_case_run(&c));
  const rt_tensor *want = &c.out[0];

  cg_kernel k;
  T_OK(cg_kernel_for_node(c.n, st, s, e->v.t, &k));
  rt_tensor got;
  vt_poisoned(out_type, 0xa5, &got); /* unwritten elements show */
  const rt_tensor *ins[8];
  for (int i = 0; i < n_in; i++) ins[i] = &c.in[i];
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, n_in, &got);
  e->n_run++;

  char sched[64];
  cg_schedule_format(k.tmpl, &k.schedule, sched, sizeof sched);
  ir_dtype dt = out_type->dtype;
  bool exact = !ir_dtype_is_float(dt) || op == IR_OP_CAST || k.tmpl == &cg_copy_template ||
               op == IR_OP_WHERE;
  bool f16 = dt == IR_F16;
  double rtol = exact ? 0 : (f16 ? 1.0 / 1024 : 1e-4);
  double atol = exact ? 0 : (f16 ? 1.0 / (1 << 24) : f32_atol);
  int64_t cnt = rt_tensor_numel(want), bad = -1;
  size_t es = ir_dtype_size(dt);
  for (int64_t i = 0; i < cnt && bad < 0; i++) {
    if (!ir_dtype_is_float(dt) || exact) {
      if (memcmp((char *)got.data + (size_t)i * es, (char *)want->data + (size_t)i * es, es))
        bad = i;
      continue;
    }
    double g = rt_load_f(&got, i), w = rt_load_f(want, i);
    if (isnan(w) || isnan(g)) {
      if (!(isnan(w) && isnan(g))) bad = i;
      continue;
    }
    double err = fabs(g - w);
    if (w != 0 && err / fabs(w) > e->max_err[f16]) e->max_err[f16] = err / fabs(w);
    if (!(err <= atol + rtol * fabs(w))) bad = i;
  }
  if (bad >= 0)
    cr_assert_fail("%s [%s %s] element %lld of %lld: got %.9g want %.9g", k.key, k.tmpl->name,
                   sched, (long long)bad, (long long)cnt, rt_load_f(&got, bad),
                   rt_load_f(want, bad));
  rt_tensor_free(&got);
  t_case_free(&c);
}

/* ---- unary, cast, copy cases ----------------------------------------------- */

typedef struct shape {
  int rank;
  int64_t d[IR_MAX_RANK];
} shape;

static const shape SHAPES[] = {
    {0, {0}},                      /* scalar */
    {1, {1}},
    {1, {7}},                      /* shorter than a vector */
    {1, {3}},
    {2, {3, 5}},                   /* odd */
    {1, {257}},                    /* tail of 1 */
    {1, {1000}},
    {3, {2, 3, 4}},
    {3, {4, 1, 6}},                /* size-1 axis (squeeze) */
    {4, {1, 16, 9, 9}},
    {3, {5, 7, 3}},
    {1, {4099}},                   /* tail of 3 */
    {8, {2, 1, 2, 2, 1, 2, 2, 2}}, /* rank 8 */
    {2, {130, 128}},
    {4, {1, 32, 56, 56}},          /* 100k elements */
    {2, {1, 6}},
    {3, {3, 1, 1}},
    {1, {2}},
    {2, {33, 31}},
    {4, {2, 5, 7, 3}},
    {2, {64, 1}},
    {1, {5}},
    {3, {9, 2, 1}},
    {2, {8, 8}},
};
#define N_SHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

/* A unary op with its input range and attributes. */
typedef struct uop {
  ir_op op;
  double lo, hi;
  float p[3]; /* alpha / min, beta / max / gamma */
} uop;

static const uop FLOAT_OPS[] = {
    {IR_OP_RELU, -4, 4, {0}},        {IR_OP_SIGMOID, -10, 10, {0}},
    {IR_OP_TANH, -5, 5, {0}},        {IR_OP_EXP, -8, 8, {0}},
    {IR_OP_LOG, 0.05, 8, {0}},       {IR_OP_SQRT, 0.01, 9, {0}},
    {IR_OP_ERF, -3, 3, {0}},         {IR_OP_NEG, -4, 4, {0}},
    {IR_OP_ABS, -4, 4, {0}},         {IR_OP_RECIPROCAL, -4, 4, {0}},
    {IR_OP_SOFTPLUS, -10, 10, {0}},  {IR_OP_SIGN, -4, 4, {0}},
    {IR_OP_FLOOR, -4, 4, {0}},       {IR_OP_CEIL, -4, 4, {0}},
    {IR_OP_ROUND, -4, 4, {0}},       {IR_OP_HARD_SWISH, -5, 5, {0}},
    {IR_OP_LEAKY_RELU, -4, 4, {0.1f}}, {IR_OP_ELU, -4, 4, {0.7f}},
    {IR_OP_SELU, -4, 4, {0}},        {IR_OP_HARD_SIGMOID, -4, 4, {0.3f, 0.6f}},
    {IR_OP_CLIP, -4, 4, {-0.5f, 1.5f}},
    {IR_OP_SIN, -40, 40, {0}},       {IR_OP_COS, -40, 40, {0}},
    {IR_OP_TAN, -1.5, 1.5, {0}},     {IR_OP_ASIN, -1, 1, {0}},
    {IR_OP_ACOS, -1, 1, {0}},        {IR_OP_ATAN, -30, 30, {0}},
    {IR_OP_SINH, -10, 10, {0}},      {IR_OP_COSH, -10, 10, {0}},
    {IR_OP_ASINH, -50, 50, {0}},     {IR_OP_ACOSH, 1, 50, {0}},
    {IR_OP_ATANH, -1, 1, {0}},
};
#define N_FLOAT_OPS ((int)(sizeof FLOAT_OPS / sizeof FLOAT_OPS[0]))

static void uop_attrs(const uop *u, attrs *a) {
  attrs_none(a);
  switch (u->op) {
  case IR_OP_LEAKY_RELU:
  case IR_OP_ELU: attr_f(a, IR_A_ALPHA, u->p[0]); break;
  case IR_OP_HARD_SIGMOID:
    attr_f(a, IR_A_ALPHA, u->p[0]);
    attr_f(a, IR_A_BETA, u->p[1]);
    break;
  case IR_OP_CLIP:
    attr_f(a, IR_A_MIN, u->p[0]);
    attr_f(a, IR_A_MAX, u->p[1]);
    break;
  default: break; /* selu: the defaults */
  }
}

static void run_unary(env *e, const uop *u, ir_dtype dt, const shape *sh, uint64_t seed,
                      const cg_schedule *s) {
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, dt, sh->rank, sh->d, u->lo, u->hi);
  if (u->op == IR_OP_ROUND) /* many exact halves, where half-to-even matters */
    for (int64_t i = 0; i < rt_tensor_numel(&x); i++)
      rt_store_f(&x, i, floor(rt_load_f(&x, i) * 2 + 0.5) / 2);
  ir_type to = rt_tensor_type(&x);
  attrs a;
  uop_attrs(u, &a);
  verify(e, u->op, &x, 1, &to, &a, s ? &cg_unary_template : NULL, s, 0);
}

/* neg / abs / sign / clip on integers, not on bool. */
typedef struct iop {
  ir_op op;
  ir_dtype dt;
  double lo, hi;
  float p[2];
} iop;

static const iop INT_OPS[] = {
    {IR_OP_NEG, IR_I32, -1000, 1000, {0}},     {IR_OP_ABS, IR_I64, -1e12, 1e12, {0}},
    {IR_OP_SIGN, IR_I8, -128, 128, {0}},       {IR_OP_CLIP, IR_U8, 0, 256, {20.7f, 200.2f}},
    {IR_OP_NOT, IR_BOOL, 0, 1, {0}},           {IR_OP_CLIP, IR_I32, -100, 100, {-30.9f, 1e10f}},
    {IR_OP_NEG, IR_I8, -128, 128, {0}},        {IR_OP_SIGN, IR_I64, -50, 50, {0}},
    {IR_OP_ABS, IR_I8, -128, 128, {0}},        {IR_OP_CLIP, IR_I64, -1e12, 1e12, {-3e11f, 2e11f}},
    {IR_OP_NEG, IR_U8, 0, 256, {0}},           {IR_OP_ABS, IR_I32, -1000, 1000, {0}},
};
#define N_INT_OPS ((int)(sizeof INT_OPS / sizeof INT_OPS[0]))

static void run_int_unary(env *e, const iop *u, const shape *sh, uint64_t seed,
                          const cg_schedule *s) {
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, u->dt, sh->rank, sh->d, u->lo, u->hi);
  ir_type to = rt_tensor_type(&x);
  attrs a;
  attrs_none(&a);
  if (u->op == IR_OP_CLIP) {
    attr_f(&a, IR_A_MIN, u->p[0]);
    attr_f(&a, IR_A_MAX, u->p[1]);
  }
  verify(e, u->op, &x, 1, &to, &a, s ? &cg_unary_template : NULL, s, 0);
}

static const ir_dtype DTYPES[] = {IR_F32, IR_F16, IR_I32, IR_I64, IR_U8, IR_I8, IR_BOOL};
#define N_DTYPES 7

/* Input range per source type: floats beyond the int targets' ranges (so
 * that saturation shows), halves and NaN-free. */
static void cast_range(ir_dtype from, double *lo, double *hi) {
  switch (from) {
  case IR_F32: *lo = -400, *hi = 400; break;
  case IR_F16: *lo = -300, *hi = 300; break;
  case IR_I64: *lo = -3e9, *hi = 3e9; break; /* wraps into i32 */
  case IR_I32: *lo = -70000, *hi = 70000; break;
  case IR_U8: *lo = 0, *hi = 256; break;
  case IR_I8: *lo = -128, *hi = 128; break;
  default: *lo = 0, *hi = 1; break;
  }
}

static void run_cast(env *e, ir_dtype from, ir_dtype to, const shape *sh, uint64_t seed,
                     const cg_template *st, const cg_schedule *s) {
  t_rng r = t_rng_make(seed);
  double lo, hi;
  cast_range(from, &lo, &hi);
  rt_tensor x = t_tensor_random(&r, from, sh->rank, sh->d, lo, hi);
  if (ir_dtype_is_float(from) && rt_tensor_numel(&x) > 3) { /* exact zeros and whole numbers too */
    rt_store_f(&x, 0, 0.0);
    rt_store_f(&x, 1, -7.0);
    rt_store_f(&x, 2, 255.0);
  }
  ir_type tt = rt_tensor_type(&x);
  tt.dtype = to;
  attrs a;
  attrs_none(&a);
  attr_e(&a, IR_A_TO, to, true);
  verify(e, IR_OP_CAST, &x, 1, &tt, &a, st, s, 0);
}

/* identity, reshape (to the flat shape), flatten (axis 1), squeeze (every
 * size-1 axis), unsqueeze (axis 0). */
static void run_copy(env *e, int which, ir_dtype dt, const shape *sh, uint64_t seed,
                     const cg_schedule *s) {
  static const ir_op ops[] = {IR_OP_IDENTITY, IR_OP_RESHAPE, IR_OP_FLATTEN, IR_OP_SQUEEZE,
                              IR_OP_UNSQUEEZE};
  ir_op op = ops[which % 5];
  if (op == IR_OP_FLATTEN && sh->rank == 0) op = IR_OP_RESHAPE;
  if (op == IR_OP_UNSQUEEZE && sh->rank == IR_MAX_RANK) op = IR_OP_SQUEEZE;
  t_rng r = t_rng_make(seed);
  rt_tensor x = t_tensor_random(&r, dt, sh->rank, sh->d, -50, 50);
  ir_type to = rt_tensor_type(&x);
  attrs a;
  attrs_none(&a);
  int64_t n = rt_tensor_numel(&x);
  if (op == IR_OP_RESHAPE) {
    to.rank = 1, to.dims[0] = n;
    a.ints_id = IR_A_SHAPE, a.n_ints = 1, a.ints[0] = n;
  } else if (op == IR_OP_FLATTEN) {
    to.rank = 2, to.dims[0] = sh->d[0], to.dims[1] = n / sh->d[0];
    attr_e(&a, IR_A_AXIS, 1, false);
  } else if (op == IR_OP_SQUEEZE) {
    to.rank = 0;
    for (int i = 0; i < sh->rank; i++)
      if (sh->d[i] != 1) to.dims[to.rank++] = sh->d[i];
  } else if (op == IR_OP_UNSQUEEZE) {
    to.rank = sh->rank + 1;
    to.dims[0] = 1;
    memcpy(to.dims + 1, sh->d, sizeof(int64_t) * (size_t)sh->rank);
    a.ints_id = IR_A_AXES, a.n_ints = 1, a.ints[0] = 0;
  }
  verify(e, op, &x, 1, &to, &a, s ? &cg_copy_template : NULL, s, 0);
}

/* ---- broadcasting cases ------------------------------------------------------ */

typedef struct bcase {
  int ra;
  int64_t a[IR_MAX_RANK];
  int rb;
  int64_t b[IR_MAX_RANK];
} bcase;

static const bcase BCASES[] = {
    {0, {0}, 0, {0}},                         /* rank-0 scalars */
    {1, {7}, 1, {7}},
    {1, {1000}, 1, {1}},                      /* scalar b */
    {1, {1}, 1, {1001}},                      /* scalar a, tail */
    {3, {2, 3, 4}, 1, {4}},                   /* row bias */
    {3, {2, 3, 4}, 2, {3, 1}},                /* column bias */
    {3, {3, 1, 5}, 3, {1, 4, 1}},             /* both broadcast */
    {4, {1, 16, 9, 9}, 3, {16, 1, 1}},        /* NCHW channel bias */
    {4, {2, 5, 7, 3}, 4, {2, 5, 7, 3}},       /* same shape */
    {2, {4, 1}, 2, {1, 6}},                   /* outer product */
    {2, {8, 33}, 1, {33}},                    /* odd inner axis */
    {2, {6, 8}, 2, {6, 1}},                   /* inner broadcast of b */
    {5, {2, 1, 3, 1, 5}, 5, {1, 4, 1, 2, 1}}, /* rank 5, alternating */
    {8, {1, 1, 1, 1, 1, 1, 2, 3}, 1, {3}},    /* rank 8 */
    {2, {3000, 7}, 1, {7}},                   /* many rows */
    {2, {130, 128}, 2, {1, 128}},             /* vectorisable broadcast */
    {3, {3, 4, 5}, 0, {0}},                   /* rank-0 b */
    {3, {2, 3, 8}, 3, {2, 1, 8}},             /* middle broadcast */
    {1, {257}, 1, {257}},                     /* odd length */
    {3, {64, 3, 3}, 3, {64, 1, 1}},           /* per-channel 3x3 */
    {4, {1, 32, 56, 56}, 4, {1, 32, 1, 1}},   /* 100k elements */
    {2, {5, 1}, 3, {2, 1, 4}},                /* rank grows */
};
#define N_BCASES ((int)(sizeof BCASES / sizeof BCASES[0]))

/* Shape of input k of a case: a, b, then the broadcast shape with every
 * other axis set to 1 (a third addressing pattern). */
static void input_shape(const bcase *c, int k, int *rank, int64_t *d) {
  if (k % 3 == 0) {
    *rank = c->ra;
    memcpy(d, c->a, sizeof c->a);
  } else if (k % 3 == 1) {
    *rank = c->rb;
    memcpy(d, c->b, sizeof c->b);
  } else {
    ir_type ta = ir_type_make(IR_F32, c->ra, c->a), tb = ir_type_make(IR_F32, c->rb, c->b), o;
    T_OK(ir_broadcast(&ta, &tb, &o));
    *rank = o.rank;
    for (int i = 0; i < o.rank; i++) d[i] = i % 2 ? o.dims[i] : 1;
  }
}

/* An op of the broadcasting families with its dtypes and input ranges. */
typedef struct nop {
  ir_op op;
  int n_in;
  ir_dtype da, db; /* input 0, the others */
  double lo, hi;   /* input 0's range (others: lo2, hi2 when set) */
  double lo2, hi2;
  ir_act act;
  float alpha, beta;
  bool whole; /* floats drawn as whole numbers (so that comparisons tie) */
} nop;

static const nop NOPS[] = {
    {IR_OP_POW, 2, IR_F32, IR_F32, 0.2, 3, -3, 3, 0, 0, 0, false},
    {IR_OP_POW, 2, IR_F32, IR_I32, -3, 3, -4, 6, 0, 0, 0, false},
    {IR_OP_POW, 2, IR_I32, IR_I32, -5, 6, -2, 7, 0, 0, 0, false},
    {IR_OP_POW, 2, IR_F16, IR_F16, 0.3, 2, -3, 3, 0, 0, 0, false},
    {IR_OP_PRELU, 2, IR_F32, IR_F32, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_PRELU, 2, IR_F16, IR_F16, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_PRELU, 2, IR_I32, IR_I32, -100, 100, 0, 0, 0, 0, 0, false},
    {IR_OP_EQUAL, 2, IR_F32, IR_F32, -3, 3, 0, 0, 0, 0, 0, true},
    {IR_OP_GREATER, 2, IR_F16, IR_F16, -3, 3, 0, 0, 0, 0, 0, true},
    {IR_OP_LESS, 2, IR_I64, IR_I64, -3, 3, 0, 0, 0, 0, 0, false},
    {IR_OP_GREATER_OR_EQUAL, 2, IR_U8, IR_U8, 0, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_LESS_OR_EQUAL, 2, IR_I8, IR_I8, -3, 3, 0, 0, 0, 0, 0, false},
    {IR_OP_EQUAL, 2, IR_BOOL, IR_BOOL, 0, 1, 0, 0, 0, 0, 0, false},
    {IR_OP_AND, 2, IR_BOOL, IR_BOOL, 0, 1, 0, 0, 0, 0, 0, false},
    {IR_OP_OR, 2, IR_BOOL, IR_BOOL, 0, 1, 0, 0, 0, 0, 0, false},
    {IR_OP_ADD, 2, IR_I32, IR_I32, -2e9, 2e9, 0, 0, IR_ACT_NONE, 0, 0, false}, /* wraps */
    {IR_OP_SUB, 2, IR_I32, IR_I32, -2e9, 2e9, 0, 0, IR_ACT_RELU, 0, 0, false}, /* wide */
    {IR_OP_MUL, 2, IR_I64, IR_I64, -1e10, 1e10, 0, 0, IR_ACT_RELU6, 0, 0, false},
    {IR_OP_DIV, 2, IR_I8, IR_I8, -128, 128, 0, 0, IR_ACT_CLIP, -20.5f, 30.5f, false},
    {IR_OP_MUL, 2, IR_U8, IR_U8, 0, 256, 0, 0, IR_ACT_NONE, 0, 0, false},
    {IR_OP_DIV, 2, IR_I32, IR_I32, -1000, 1000, 0, 0, IR_ACT_CLIP, -7.9f, 1e12f, false},
    {IR_OP_MIN, 3, IR_F32, IR_F32, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_MAX, 5, IR_F16, IR_F16, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_SUM, 7, IR_F32, IR_F32, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_MEAN, 4, IR_F16, IR_F16, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_SUM, 3, IR_I64, IR_I64, -1e15, 1e15, 0, 0, 0, 0, 0, false},
    {IR_OP_MIN, 2, IR_I8, IR_I8, -128, 128, 0, 0, 0, 0, 0, false},
    {IR_OP_MAX, 6, IR_U8, IR_U8, 0, 256, 0, 0, 0, 0, 0, false},
    {IR_OP_SUM, 1, IR_F32, IR_F32, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_MEAN, 7, IR_F32, IR_F32, -4, 4, 0, 0, 0, 0, 0, false},
    {IR_OP_SUM, 2, IR_U8, IR_U8, 0, 256, 0, 0, 0, 0, 0, false},
    {IR_OP_WHERE, 3, IR_BOOL, IR_F32, 0, 1, -4, 4, 0, 0, 0, false},
    {IR_OP_WHERE, 3, IR_BOOL, IR_F16, 0, 1, -4, 4, 0, 0, 0, false},
    {IR_OP_WHERE, 3, IR_BOOL, IR_I64, 0, 1, -1e12, 1e12, 0, 0, 0, false},
    {IR_OP_WHERE, 3, IR_BOOL, IR_BOOL, 0, 1, 0, 1, 0, 0, 0, false},
    {IR_OP_WHERE, 3, IR_BOOL, IR_I8, 0, 1, -128, 128, 0, 0, 0, false},
    /* float arithmetic through elementwise_nary (only with its schedule) */
    {IR_OP_ADD, 2, IR_F32, IR_F32, -4, 4, 0, 0, IR_ACT_HARD_SWISH, 0, 0, false},
    {IR_OP_DIV, 2, IR_F16, IR_F16, -4, 4, 0, 0, IR_ACT_TANH, 0, 0, false},
    {IR_OP_MUL, 2, IR_F32, IR_F32, -4, 4, 0, 0, IR_ACT_HARD_SIGMOID, 0.2f, 0.5f, false},
    {IR_OP_SUB, 2, IR_F32, IR_F32, -4, 4, 0, 0, IR_ACT_SILU, 0, 0, false},
    {IR_OP_ADD, 2, IR_F16, IR_F16, -4, 4, 0, 0, IR_ACT_GELU, 0, 0, false},
    {IR_OP_SUB, 2, IR_F32, IR_F32, -4, 4, 0, 0, IR_ACT_GELU_TANH, 0, 0, false},
};
#define N_NOPS ((int)(sizeof NOPS / sizeof NOPS[0]))
#define N_NOPS_DEFAULT (N_NOPS - 6) /* the float ones go to elementwise_binary */

static void run_nary(env *e, const nop *o, const bcase *c, uint64_t seed, const cg_schedule *s) {
  t_rng r = t_rng_make(seed);
  rt_tensor in[8];
  ir_type out = {0};
  for (int k = 0; k < o->n_in; k++) {
    int rank;
    int64_t d[IR_MAX_RANK];
    input_shape(c, o->op == IR_OP_PRELU ? 0 : k, &rank, d);
    if (o->op == IR_OP_PRELU && k == 1) { /* x: the broadcast shape; slope: b */
      rank = c->rb;
      memcpy(d, c->b, sizeof c->b);
    }
    ir_dtype dt = k ? o->db : o->da;
    bool second = k > 0 && (o->lo2 != 0 || o->hi2 != 0);
    in[k] = t_tensor_random(&r, dt, rank, d, second ? o->lo2 : o->lo, second ? o->hi2 : o->hi);
    if (o->whole && ir_dtype_is_float(dt))
      for (int64_t i = 0; i < rt_tensor_numel(&in[k]); i++)
        rt_store_f(&in[k], i, round(rt_load_f(&in[k], i)));
    ir_type t = rt_tensor_type(&in[k]);
    if (k == 0) out = t;
    else T_OK(ir_broadcast(&out, &t, &out));
  }
  if (o->op == IR_OP_PRELU) { /* x takes the broadcast shape of a and b */
    int rank;
    int64_t d[IR_MAX_RANK];
    ir_type ta = ir_type_make(IR_F32, c->ra, c->a), tb = ir_type_make(IR_F32, c->rb, c->b), bo;
    T_OK(ir_broadcast(&ta, &tb, &bo));
    rank = bo.rank;
    memcpy(d, bo.dims, sizeof d);
    rt_tensor_free(&in[0]);
    in[0] = t_tensor_random(&r, o->da, rank, d, o->lo, o->hi);
    out = rt_tensor_type(&in[0]);
  }
  bool cmp = o->op >= IR_OP_EQUAL && o->op <= IR_OP_OR;
  out.dtype = cmp ? IR_BOOL : (o->op == IR_OP_WHERE ? o->db : o->da);
  attrs a;
  attrs_none(&a);
  if (o->act != IR_ACT_NONE) {
    attr_e(&a, IR_A_ACT, o->act, true);
    attr_f(&a, IR_A_ACT_ALPHA, o->alpha);
    attr_f(&a, IR_A_ACT_BETA, o->beta);
  }
  bool ill = o->act == IR_ACT_HARD_SIGMOID || o->act == IR_ACT_HARD_SWISH;
  verify(e, o->op, in, o->n_in, &out, &a, s ? &cg_nary_template : NULL, s, ill ? 1e-6 : 0);
}

/* ---- default schedules ---------------------------------------------------------- */

Test(vk_elementwise, unary_default) {
  env e;
  env_open(&e);
  /* f32: every shape, two ops each (every op meets two shapes or more);
     f16: two each, rotated the other way */
  for (int c = 0; c < N_SHAPES; c++)
    for (int j = 0; j < 2; j++)
      run_unary(&e, &FLOAT_OPS[(2 * c + j) % N_FLOAT_OPS], IR_F32, &SHAPES[c],
                100u * (uint64_t)c + (uint64_t)j, NULL);
  for (int c = 0; c < N_SHAPES; c++)
    for (int j = 0; j < 2; j++)
      run_unary(&e, &FLOAT_OPS[(2 * (N_SHAPES - 1 - c) + j + 5) % N_FLOAT_OPS], IR_F16,
                &SHAPES[c], 7000u + 100u * (uint64_t)c + (uint64_t)j, NULL);
  for (int c = 0; c < N_SHAPES; c++)
    run_int_unary(&e, &INT_OPS[c % N_INT_OPS], &SHAPES[(c * 7) % N_SHAPES], 9000u + (uint64_t)c,
                  NULL);
  env_close(&e);
}

Test(vk_elementwise, cast_default) {
  env e;
  env_open(&e);
  /* every (from, to) pair, the same type included (a copy) */
  for (int i = 0; i < N_DTYPES; i++)
    for (int j = 0; j < N_DTYPES; j++) {
      int c = (i * N_DTYPES + j) % N_SHAPES;
      run_cast(&e, DTYPES[i], DTYPES[j], &SHAPES[c], 300u + (uint64_t)(i * 7 + j), NULL, NULL);
    }
  env_close(&e);
}

Test(vk_elementwise, copy_default) {
  env e;
  env_open(&e);
  for (int c = 0; c < N_SHAPES; c++)
    run_copy(&e, c, DTYPES[c % N_DTYPES], &SHAPES[c], 500u + (uint64_t)c, NULL);
  env_close(&e);
}

Test(vk_elementwise, nary_default) {
  env e;
  env_open(&e);
  /* three ops per pattern; every op meets at least one pattern here and
     more in nary_points */
  for (int c = 0; c < N_BCASES; c++)
    for (int j = 0; j < 3; j++)
      run_nary(&e, &NOPS[(3 * c + j) % N_NOPS_DEFAULT], &BCASES[c],
               800u + 10u * (uint64_t)c + (uint64_t)j, NULL);
  env_close(&e);
}

/* ---- sampled points of each space ---------------------------------------------- */

/* 8 of the 24 points (WG_SIZE index + 6 * EPI index): every WG_SIZE and
 * every EPI value appears. */
static const int POINTS[] = {0, 7, 14, 21, 16, 23, 11, 3};
#define N_POINTS ((int)(sizeof POINTS / sizeof POINTS[0]))

/* Calls fn(e, schedule, point number) for every sampled point valid here;
 * invalid ones must be rejected as UNSUPPORTED. */
static void each_point(env *e, const cg_template *t,
                       void (*fn)(env *, const cg_schedule *, int)) {
  for (int p = 0; p < N_POINTS; p++) {
    cg_schedule s;
    cg_space_point(t, POINTS[p], &s);
    vkml_status st = cg_schedule_check(t, &s, e->v.t);
    if (st) {
      cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
      vkml_status_free(st);
      continue;
    }
    fn(e, &s, p);
  }
}

/* shapes with tails, vectors, rank 0 and 8, and a large one */
static const int POINT_SHAPES[] = {0, 2, 5, 11, 12, 13, 14, 19};

static void unary_point(env *e, const cg_schedule *s, int p) {
  for (int j = 0; j < 6; j++) {
    const shape *sh = &SHAPES[POINT_SHAPES[(p + j) % 8]];
    uint64_t seed = 20000u + 10u * (uint64_t)p + (uint64_t)j;
    switch (j) {
    case 0: run_unary(e, &FLOAT_OPS[(p * 3) % N_FLOAT_OPS], IR_F32, sh, seed, s); break;
    case 1: run_unary(e, &FLOAT_OPS[(p * 5 + 2) % N_FLOAT_OPS], IR_F16, sh, seed, s); break;
    case 2: run_int_unary(e, &INT_OPS[p % N_INT_OPS], sh, seed, s); break;
    case 3: run_int_unary(e, &INT_OPS[(p + 4) % N_INT_OPS], sh, seed, s); break;
    case 4: run_cast(e, DTYPES[p % 7], DTYPES[(p + 3) % 7], sh, seed, &cg_unary_template, s); break;
    default: run_cast(e, DTYPES[(p + 1) % 7], DTYPES[(p + 1) % 7], sh, seed, &cg_unary_template, s);
    }
  }
}

static void copy_point(env *e, const cg_schedule *s, int p) {
  for (int j = 0; j < 5; j++)
    run_copy(e, p + j, DTYPES[(p + j) % N_DTYPES], &SHAPES[POINT_SHAPES[(p + 3 * j) % 8]],
             30000u + 10u * (uint64_t)p + (uint64_t)j, s);
}

static const int POINT_BCASES[] = {0, 3, 7, 12, 13, 15, 17, 20};

static void nary_point(env *e, const cg_schedule *s, int p) {
  for (int j = 0; j < 6; j++)
    run_nary(e, &NOPS[(6 * p + j) % N_NOPS], &BCASES[POINT_BCASES[(p + j) % 8]],
             40000u + 10u * (uint64_t)p + (uint64_t)j, s);
}

Test(vk_elementwise, unary_points) {
  env e;
  env_open(&e);
  each_point(&e, &cg_unary_template, unary_point);
  env_close(&e);
}

Test(vk_elementwise, copy_points) {
  env e;
  env_open(&e);
  each_point(&e, &cg_copy_template, copy_point);
  env_close(&e);
}

Test(vk_elementwise, nary_points) {
  env e;
  env_open(&e);
  each_point(&e, &cg_nary_template, nary_point);
  env_close(&e);
}

/* ---- hand-worked values ------------------------------------------------------------ */

/* One node over 1-D inputs given as values; the output must equal want
 * exactly (within rtol for floats when rtol > 0; NaN only against NaN). */
static void expect_values(env *e, ir_op op, int n_in, const ir_dtype *dts, int64_t len,
                          const double *const *vals, ir_dtype out_dt, const attrs *a,
                          const double *want, double rtol) {
  t_case c;
  memset(&c, 0, sizeof c);
  int64_t d[1] = {len};
  for (int i = 0; i < n_in; i++) c.in[i] = t_tensor_from(dts[i], 1, d, vals[i]);
  ir_type to = ir_type_make(out_dt, 1, d);
  t_case_make(&c, op, n_in, &to, 1);
  for (int i = 0; i < a->n_f; i++) T_OK(ir_node_set_float(c.g, c.n, a->f_id[i], a->f[i]));
  for (int i = 0; i < a->n_e; i++) T_OK(ir_node_set_enum(c.g, c.n, a->e_id[i], (int)a->e[i]));
  cg_kernel k;
  T_OK(cg_kernel_for_node(c.n, NULL, NULL, e->v.t, &k));
  const rt_tensor *ins[8];
  for (int i = 0; i < n_in; i++) ins[i] = &c.in[i];
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, n_in, &c.out[0]);
  for (int64_t i = 0; i < len; i++) {
    if (ir_dtype_is_float(out_dt)) {
      double g = rt_load_f(&c.out[0], i);
      if (isnan(want[i])) {
        cr_expect(isnan(g), "%s element %lld: got %.9g want NaN", k.key, (long long)i, g);
        continue;
      }
      bool ok = g == want[i] || fabs(g - want[i]) <= rtol * fabs(want[i]);
      cr_expect(ok, "%s element %lld: got %.9g want %.9g", k.key, (long long)i, g, want[i]);
    } else {
      int64_t g = rt_load_i(&c.out[0], i);
      cr_expect_eq(g, (int64_t)want[i], "%s element %lld: got %lld want %lld", k.key,
                   (long long)i, (long long)g, (long long)want[i]);
    }
  }
  t_case_free(&c);
}

Test(vk_elementwise, hand_worked) {
  env e;
  env_open(&e);
  attrs none;
  attrs_none(&none);
  {
    static const double x[] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, 3.7};
    static const double w[] = {-2, -2, -0.0, 0, 2, 2, 0, 4};
    const double *v[] = {x};
    expect_values(&e, IR_OP_ROUND, 1, (ir_dtype[]){IR_F32}, 8, v, IR_F32, &none, w, 0);
  }
  { /* float -> int: truncation, saturation, NaN -> 0 */
    static const double x[] = {1e10, -1e10, 2.9, -2.9, NAN, 300.7, -5.5, 255.9};
    static const double w32[] = {2147483647, -2147483648.0, 2, -2, 0, 300, -5, 255};
    static const double wu8[] = {255, 0, 2, 0, 0, 255, 0, 255};
    static const double wb[] = {1, 1, 1, 1, 1, 1, 1, 1};
    const double *v[] = {x};
    attrs a;
    attrs_none(&a);
    attr_e(&a, IR_A_TO, IR_I32, true);
    expect_values(&e, IR_OP_CAST, 1, (ir_dtype[]){IR_F32}, 8, v, IR_I32, &a, w32, 0);
    a.e[0] = IR_U8;
    expect_values(&e, IR_OP_CAST, 1, (ir_dtype[]){IR_F32}, 8, v, IR_U8, &a, wu8, 0);
    a.e[0] = IR_BOOL;
    expect_values(&e, IR_OP_CAST, 1, (ir_dtype[]){IR_F32}, 8, v, IR_BOOL, &a, wb, 0);
  }
  { /* integer narrowing wraps */
    static const double x[] = {200, -129, 127, 256};
    static const double w[] = {-56, 127, 127, 0};
    const double *v[] = {x};
    attrs a;
    attrs_none(&a);
    attr_e(&a, IR_A_TO, IR_I8, true);
    expect_values(&e, IR_OP_CAST, 1, (ir_dtype[]){IR_I32}, 4, v, IR_I8, &a, w, 0);
  }
  { /* truncating division; / 0 is 0; INT_MIN / -1 wraps */
    static const double x[] = {7, -7, 7, -2147483648.0, 5};
    static const double y[] = {2, 2, 0, -1, -5};
    static const double w[] = {3, -3, 0, -2147483648.0, -1};
    const double *v[] = {x, y};
    expect_values(&e, IR_OP_DIV, 2, (ir_dtype[]){IR_I32, IR_I32}, 5, v, IR_I32, &none, w, 0);
  }
  { /* pow: signs of negative bases, 0^-1, fractional powers */
    static const double x[] = {-2, -2, 0, 4, -8, 1, 3};
    static const double y[] = {3, 2, -1, 0.5, 1.0 / 3, NAN, 0};
    static const double w[] = {-8, 4, INFINITY, 2, NAN, 1, 1};
    const double *v[] = {x, y};
    expect_values(&e, IR_OP_POW, 2, (ir_dtype[]){IR_F32, IR_F32}, 7, v, IR_F32, &none, w, 1e-6);
  }
  { /* integer pow: negative exponents truncate 1/x^-e */
    static const double x[] = {2, -3, 2, 1, -1, 3};
    static const double y[] = {10, 3, -1, -5, -3, 0};
    static const double w[] = {1024, -27, 0, 1, -1, 1};
    const double *v[] = {x, y};
    expect_values(&e, IR_OP_POW, 2, (ir_dtype[]){IR_I32, IR_I64}, 6, v, IR_I32, &none, w, 0);
  }
  { /* sum: no cancellation loss (1e8 + 1 - 1e8 is 1) */
    static const double x[] = {1e8, 3, 16777216};
    static const double y[] = {1, 1e-7, 1};
    static const double z[] = {-1e8, -3, -16777216};
    static const double w[] = {1, 1.0000000116860974e-07, 1}; /* 1e-7 rounded to f32 */
    const double *v[] = {x, y, z};
    expect_values(&e, IR_OP_SUM, 3, (ir_dtype[]){IR_F32, IR_F32, IR_F32}, 3, v, IR_F32, &none, w,
                  1e-6);
  }
  { /* integer clip: bounds truncated toward zero */
    static const double x[] = {-5, -2, 0, 3, 4};
    static const double w[] = {-2, -2, 0, 3, 3};
    const double *v[] = {x};
    attrs a;
    attrs_none(&a);
    attr_f(&a, IR_A_MIN, -2.7f);
    attr_f(&a, IR_A_MAX, 3.9f);
    expect_values(&e, IR_OP_CLIP, 1, (ir_dtype[]){IR_I32}, 5, v, IR_I32, &a, w, 0);
  }
  { /* min / max propagate NaN; erf, log near 1, softplus far out */
    static const double x[] = {1, NAN, -3};
    static const double y[] = {NAN, 2, -4};
    static const double w[] = {NAN, NAN, -4};
    const double *v[] = {x, y};
    expect_values(&e, IR_OP_MIN, 2, (ir_dtype[]){IR_F32, IR_F32}, 3, v, IR_F32, &none, w, 0);
    static const double ex[] = {1e-3, -0.5, 2, 1.0001, 0.9999};
    /* want: double-precision values at the f32-rounded inputs */
    static const double ew[] = {0.0011283788445643173, -0.5204998778130465, 0.9953222650189527,
                                0.8427423064354087, 0.8426592711591155};
    const double *ev[] = {ex};
    expect_values(&e, IR_OP_ERF, 1, (ir_dtype[]){IR_F32}, 5, ev, IR_F32, &none, ew, 1e-6);
    static const double lx[] = {1.0001, 0.9999, 1e-30, 3};
    static const double lw[] = {0.00010001159260704876, -0.00010002159592616078,
                                -69.07755278665029, 1.0986122886681098};
    const double *lv[] = {lx};
    expect_values(&e, IR_OP_LOG, 1, (ir_dtype[]){IR_F32}, 4, lv, IR_F32, &none, lw, 1e-5);
    static const double sx[] = {-30, 30, 0};
    static const double sw[] = {9.357622968839737e-14, 30, 0.6931471805599453};
    const double *sv[] = {sx};
    expect_values(&e, IR_OP_SOFTPLUS, 1, (ir_dtype[]){IR_F32}, 3, sv, IR_F32, &none, sw, 1e-5);
  }
  env_close(&e);
}

/* ---- without a device: routing, keys, UNSUPPORTED answers ---------------------------- */

/* A target with every storage feature and generous limits. */
static ir_target full_target(void) {
  ir_target t;
  ir_target_minimum(&t);
  t.storage_16bit = t.storage_8bit = t.int64_arith = true;
  t.max_storage_buffer_range = UINT32_MAX;
  return t;
}

/* Instantiates the node of op over inputs of the given types; returns the
 * status (the kernel in *k). */
static vkml_status instantiate(ir_op op, int n_in, const ir_type *ins, const ir_type *out,
                               const attrs *a, const cg_template *st, const ir_target *t,
                               cg_kernel *k) {
  ir_graph *g;
  rt_tensor in[8];
  for (int i = 0; i < n_in; i++) in[i] = rt_tensor_view(&ins[i], NULL);
  ir_node *n = t_node_make(&g, op, in, n_in, out, 1);
  for (int i = 0; a && i < a->n_f; i++) T_OK(ir_node_set_float(g, n, a->f_id[i], a->f[i]));
  for (int i = 0; a && i < a->n_e; i++) T_OK(ir_node_set_enum(g, n, a->e_id[i], (int)a->e[i]));
  vkml_status s = cg_kernel_for_node(n, st, NULL, t, k);
  ir_graph_destroy(g);
  return s;
}

static const cg_template *routed(ir_op op, int n_in, const ir_type *ins, const ir_type *out,
                                 const attrs *a) {
  ir_target t = full_target();
  cg_kernel k;
  T_OK(instantiate(op, n_in, ins, out, a, NULL, &t, &k));
  return k.tmpl;
}

static void expect_code(vkml_status s, vkml_code code, const char *part) {
  t_expect_error(s, code, part);
}

/* The trigonometric and hyperbolic kernels (math.glsl's Cephes-style sin_ ...
 * atanh_) against double precision at the f32-rounded inputs, 257 points
 * across each op's range: relative error at most 2e-6, or an absolute 2e-7
 * where the result is near zero (sin and tan at multiples of pi: the
 * argument's own rounding is the reference's too). Also the edges: the
 * domain bounds, NaN outside them, and the inputs where the reduction or the
 * formula switches. */
static double trig_ref(ir_op op, double x) {
  switch (op) {
  case IR_OP_SIN: return sin(x);
  case IR_OP_COS: return cos(x);
  case IR_OP_TAN: return tan(x);
  case IR_OP_ASIN: return asin(x);
  case IR_OP_ACOS: return acos(x);
  case IR_OP_ATAN: return atan(x);
  case IR_OP_SINH: return sinh(x);
  case IR_OP_COSH: return cosh(x);
  case IR_OP_ASINH: return asinh(x);
  case IR_OP_ACOSH: return acosh(x);
  default: return atanh(x);
  }
}

Test(vk_elementwise, trig_accuracy) {
  env e;
  env_open(&e);
  static const struct {
    ir_op op;
    double lo, hi;
  } ops[] = {
      {IR_OP_SIN, -100, 100},   {IR_OP_COS, -100, 100},  {IR_OP_TAN, -1.55, 1.55},
      {IR_OP_ASIN, -1, 1},      {IR_OP_ACOS, -1, 1},     {IR_OP_ATAN, -50, 50},
      {IR_OP_SINH, -30, 30},    {IR_OP_COSH, -30, 30},   {IR_OP_ASINH, -1e5, 1e5},
      {IR_OP_ACOSH, 1, 1e5},    {IR_OP_ATANH, -1, 1},
  };
  enum { N = 257 + 8 };
  attrs none;
  attrs_none(&none);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    double x[N], w[N];
    for (int i = 0; i < 257; i++) {
      double t = ops[o].lo + (ops[o].hi - ops[o].lo) * i / 256.0;
      /* asinh / acosh: logarithmic spacing across their wide ranges */
      if (ops[o].op == IR_OP_ASINH) t = (i < 128 ? -1 : 1) * pow(10, -4 + 9 * abs(i - 128) / 128.0);
      if (ops[o].op == IR_OP_ACOSH) t = 1 + pow(10, -6 + 11 * i / 256.0);
      x[i] = (float)t;
    }
    static const double edges[8] = {0, -0, 1e-6, -1e-6, 0.5, -0.5, 2.4142135, 0.41421357};
    for (int i = 0; i < 8; i++) x[257 + i] = (float)edges[i];
    for (int i = 0; i < N; i++) w[i] = trig_ref(ops[o].op, x[i]);
    t_case c;
    memset(&c, 0, sizeof c);
    int64_t d[1] = {N};
    c.in[0] = t_tensor_from(IR_F32, 1, d, x);
    ir_type to = ir_type_make(IR_F32, 1, d);
    t_case_make(&c, ops[o].op, 1, &to, 1);
    cg_kernel k;
    T_OK(cg_kernel_for_node(c.n, NULL, NULL, e.v.t, &k));
    const rt_tensor *ins[1] = {&c.in[0]};
    vt_run_kernel(e.v.ctx, e.v.cc, &k, ins, 1, &c.out[0]);
    for (int i = 0; i < N; i++) {
      double g = rt_load_f(&c.out[0], i);
      if (isnan(w[i])) {
        cr_expect(isnan(g), "%s(%.9g): got %.9g want NaN", ir_op_name(ops[o].op), x[i], g);
        continue;
      }
      bool ok = g == w[i] || fabs(g - w[i]) <= 2e-6 * fabs(w[i]) + 2e-7;
      cr_expect(ok, "%s(%.9g): got %.9g want %.9g (rel %.2g)", ir_op_name(ops[o].op), x[i], g,
                w[i], fabs(g - w[i]) / fabs(w[i]));
    }
    t_case_free(&c);
  }
  /* outside the domains: NaN */
  static const double bad[] = {1.0001, -1.5, NAN};
  static const double nan3[] = {NAN, NAN, NAN};
  const double *bv[] = {bad};
  expect_values(&e, IR_OP_ASIN, 1, (ir_dtype[]){IR_F32}, 3, bv, IR_F32, &none, nan3, 0);
  expect_values(&e, IR_OP_ACOS, 1, (ir_dtype[]){IR_F32}, 3, bv, IR_F32, &none, nan3, 0);
  expect_values(&e, IR_OP_ATANH, 1, (ir_dtype[]){IR_F32}, 3, bv, IR_F32, &none, nan3, 0);
  static const double below[] = {0.9999, -2, NAN};
  const double *lv[] = {below};
  expect_values(&e, IR_OP_ACOSH, 1, (ir_dtype[]){IR_F32}, 3, lv, IR_F32, &none, nan3, 0);
  static const double ends[] = {1, -1};
  static const double inf2[] = {INFINITY, -INFINITY};
  const double *ev[] = {ends};
  expect_values(&e, IR_OP_ATANH, 1, (ir_dtype[]){IR_F32}, 2, ev, IR_F32, &none, inf2, 0);
  env_close(&e);
}

/* f32 division is correctly rounded on the GPU (math.glsl div_), as the
 * reference's: every quotient equals the double quotient rounded to f32,
 * bit for bit, over random operands of many magnitudes (the family's
 * default kernel for a two-input div). Lavapipe's own division is already
 * correctly rounded; div_'s moves were checked once by starting it 1 and 3
 * ulp above and 3 below (passing) and 6 above (failing). On the H100 the
 * earlier Dekker form failed here: the driver contracted it. */
Test(vk_elementwise, div_correctly_rounded) {
  env e;
  env_open(&e);
  enum { N = 512 };
  static double x[N], y[N], w[N];
  t_rng r = t_rng_make(4321);
  for (int i = 0; i < N; i++) {
    float a = (float)(t_rng_uniform(&r, -1, 1) * pow(10, floor(t_rng_uniform(&r, -6, 6))));
    float b = (float)(t_rng_uniform(&r, -1, 1) * pow(10, floor(t_rng_uniform(&r, -6, 6))));
    if (b == 0) b = 1;
    if (i < 16) { /* ties quantization meets: x / scale exactly k + 0.5 */
      b = 0.0390625f * (float)(i + 1);
      a = (float)((i + 0.5) * (double)b);
    }
    x[i] = a, y[i] = b;
    w[i] = (float)((double)a / (double)b);
  }
  attrs none;
  attrs_none(&none);
  const double *v[] = {x, y};
  expect_values(&e, IR_OP_DIV, 2, (ir_dtype[]){IR_F32, IR_F32}, N, v, IR_F32, &none, w, 0);
  env_close(&e);
}

/* Float mod on the GPU (math.glsl fmod_) is C's fmod, exact: every result
 * equals fmod of the operands bit for bit, over quotients up to 2^40 and
 * both signs; with fmod=0 the remainder moves to y's sign as the reference
 * does (a rounded add). */
Test(vk_elementwise, fmod_exact) {
  env e;
  env_open(&e);
  enum { N = 400 };
  static double x[N], y[N], w[N];
  t_rng r = t_rng_make(777);
  for (int mode = 1; mode >= 0; mode--) {
    for (int i = 0; i < N; i++) {
      float a = (float)(t_rng_uniform(&r, -1, 1) * pow(2, floor(t_rng_uniform(&r, -20, 40))));
      float b = (float)(t_rng_uniform(&r, -1, 1) * pow(2, floor(t_rng_uniform(&r, -20, 10))));
      if (b == 0) b = 0.75f;
      x[i] = a, y[i] = b;
      double m = fmod((double)a, (double)b);
      if (!mode && m != 0 && (m < 0) != (b < 0)) m = (float)(m + b);
      w[i] = (float)m;
    }
    t_case c;
    memset(&c, 0, sizeof c);
    int64_t d[1] = {N};
    c.in[0] = t_tensor_from(IR_F32, 1, d, x);
    c.in[1] = t_tensor_from(IR_F32, 1, d, y);
    ir_type to = ir_type_make(IR_F32, 1, d);
    t_case_make(&c, IR_OP_MOD, 2, &to, 1);
    T_OK(ir_node_set_int(c.g, c.n, IR_A_FMOD, mode));
    cg_kernel k;
    T_OK(cg_kernel_for_node(c.n, NULL, NULL, e.v.t, &k));
    const rt_tensor *ins[2] = {&c.in[0], &c.in[1]};
    vt_run_kernel(e.v.ctx, e.v.cc, &k, ins, 2, &c.out[0]);
    for (int i = 0; i < N; i++) {
      double g = rt_load_f(&c.out[0], i);
      cr_expect(g == w[i] || (g == 0 && w[i] == 0), "fmod=%d: mod(%.9g, %.9g): got %.9g want %.9g",
                mode, x[i], y[i], g, w[i]);
    }
    t_case_free(&c);
  }
  env_close(&e);
}

Test(vk_elementwise, routing_and_keys) {
  int64_t d23[2] = {2, 3}, d3[1] = {3}, d6[1] = {6};
  ir_type f23 = ir_type_make(IR_F32, 2, d23), f3 = ir_type_make(IR_F32, 1, d3);
  ir_type i23 = ir_type_make(IR_I32, 2, d23), b23 = ir_type_make(IR_BOOL, 2, d23);
  ir_type f6 = ir_type_make(IR_F32, 1, d6);
  ir_type two[2] = {f23, f3}, itwo[2] = {i23, i23}, three[3] = {f23, f3, f23};
  cr_assert_eq(routed(IR_OP_ADD, 2, two, &f23, NULL), &cg_binary_template);
  cr_assert_eq(routed(IR_OP_MAX, 2, two, &f23, NULL), &cg_binary_template);
  cr_assert_eq(routed(IR_OP_ADD, 2, itwo, &i23, NULL), &cg_nary_template);
  cr_assert_eq(routed(IR_OP_MAX, 3, three, &f23, NULL), &cg_nary_template);
  cr_assert_eq(routed(IR_OP_LESS, 2, two, &b23, NULL), &cg_nary_template);
  cr_assert_eq(routed(IR_OP_RELU, 1, &f23, &f23, NULL), &cg_unary_template);
  cr_assert_eq(routed(IR_OP_RESHAPE, 1, &f23, &f6, NULL), &cg_copy_template);
  attrs a;
  attrs_none(&a);
  attr_e(&a, IR_A_TO, IR_F32, true);
  cr_assert_eq(routed(IR_OP_CAST, 1, &f23, &f23, &a), &cg_copy_template);
  a.e[0] = IR_I32;
  cr_assert_eq(routed(IR_OP_CAST, 1, &f23, &i23, &a), &cg_unary_template);

  /* keys name op, types and attributes; the grid covers the elements */
  ir_target t = full_target();
  cg_kernel k;
  attrs_none(&a);
  attr_f(&a, IR_A_ALPHA, 0.25f);
  T_OK(instantiate(IR_OP_LEAKY_RELU, 1, &f23, &f23, &a, NULL, &t, &k));
  cr_assert_str_eq(k.key, "leaky_relu(f32[2,3])->f32[2,3]{alpha=0.25}");
  cr_assert_eq(k.n_buffers, 2);
  ir_type wh[3] = {b23, f3, f23};
  T_OK(instantiate(IR_OP_WHERE, 3, wh, &f23, NULL, NULL, &t, &k));
  cr_assert_str_eq(k.key, "where(bool[2,3],f32[3],f32[2,3])->f32[2,3]");
  cr_assert_eq(k.n_buffers, 4);
  attrs_none(&a);
  attr_e(&a, IR_A_ACT, IR_ACT_RELU, true);
  T_OK(instantiate(IR_OP_SUB, 2, itwo, &i23, &a, NULL, &t, &k));
  cr_assert_str_eq(k.key, "sub(i32[2,3],i32[2,3])->i32[2,3]{act=relu}");
  /* 2^26 f32 in vectors of 4, 128 vectors per workgroup: 131072 groups,
     past the x limit of 65535: 65535 x 3. 2^31 u8 copied in 16-byte
     vectors, 512 per group: 262144 groups, 65535 x 5. */
  int64_t big[1] = {INT64_C(1) << 26};
  ir_type fb = ir_type_make(IR_F32, 1, big);
  T_OK(instantiate(IR_OP_EXP, 1, &fb, &fb, NULL, NULL, &t, &k));
  cr_assert(k.groups[0] == 65535 && k.groups[1] == 3, "%u %u", k.groups[0], k.groups[1]);
  int64_t huge[1] = {INT64_C(1) << 31};
  ir_type ub = ir_type_make(IR_U8, 1, huge);
  T_OK(instantiate(IR_OP_IDENTITY, 1, &ub, &ub, NULL, NULL, &t, &k));
  cr_assert(k.groups[0] == 65535 && k.groups[1] == 5, "%u %u", k.groups[0], k.groups[1]);
  int64_t small[1] = {1000};
  ir_type fs = ir_type_make(IR_F32, 1, small);
  T_OK(instantiate(IR_OP_EXP, 1, &fs, &fs, NULL, NULL, &t, &k));
  cr_assert(k.groups[0] == 2 && k.groups[1] == 1, "%u %u", k.groups[0], k.groups[1]);
}

Test(vk_elementwise, unsupported) {
  int64_t d23[2] = {2, 3}, d3[1] = {3};
  ir_type f23 = ir_type_make(IR_F32, 2, d23), h23 = ir_type_make(IR_F16, 2, d23);
  ir_type i23 = ir_type_make(IR_I32, 2, d23), b23 = ir_type_make(IR_BOOL, 2, d23);
  ir_type l23 = ir_type_make(IR_I64, 2, d23), u3 = ir_type_make(IR_U8, 1, d3);
  ir_target full = full_target(), t;
  cg_kernel k;

  t = full, t.storage_16bit = false;
  expect_code(instantiate(IR_OP_TANH, 1, &h23, &h23, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
              "16-bit storage");
  t = full, t.storage_8bit = false;
  expect_code(instantiate(IR_OP_NOT, 1, &b23, &b23, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
              "8-bit storage");
  expect_code(instantiate(IR_OP_IDENTITY, 1, &u3, &u3, NULL, NULL, &t, &k),
              VKML_CODE_UNSUPPORTED, "8-bit storage");
  T_OK(instantiate(IR_OP_IDENTITY, 1, &h23, &h23, NULL, NULL, &t, &k)); /* whole words */
  t = full, t.int64_arith = false;
  expect_code(instantiate(IR_OP_NEG, 1, &l23, &l23, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
              "shaderInt64");
  attrs a;
  attrs_none(&a);
  attr_e(&a, IR_A_ACT, IR_ACT_CLIP, true);
  ir_type itwo[2] = {i23, i23};
  expect_code(instantiate(IR_OP_ADD, 2, itwo, &i23, &a, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
              "shaderInt64");
  a.e[0] = IR_ACT_SIGMOID;
  expect_code(instantiate(IR_OP_ADD, 2, itwo, &i23, &a, NULL, &full, &k),
              VKML_CODE_UNSUPPORTED, "relu, relu6 or clip");
  ir_type ipow[2] = {i23, f23};
  expect_code(instantiate(IR_OP_POW, 2, ipow, &i23, NULL, NULL, &full, &k),
              VKML_CODE_UNSUPPORTED, "float exponent");
  ir_type eight[8] = {f23, f23, f23, f23, f23, f23, f23, f23};
  expect_code(instantiate(IR_OP_SUM, 8, eight, &f23, NULL, NULL, &full, &k),
              VKML_CODE_UNSUPPORTED, "at most 7");
  /* a schedule of another template */
  expect_code(instantiate(IR_OP_RELU, 1, &f23, &f23, NULL, &cg_copy_template, &full, &k),
              VKML_CODE_INVALID_ARGUMENT, "template copy does not apply");
  expect_code(instantiate(IR_OP_LESS, 2, (ir_type[]){f23, f23}, &b23, NULL, &cg_binary_template,
                          &full, &k),
              VKML_CODE_UNSUPPORTED, "elementwise_binary");
  /* a knob value the device cannot take */
  ir_target min;
  ir_target_minimum(&min);
  cg_schedule s = {{1024, 4}};
  ir_graph *g;
  rt_tensor x = rt_tensor_view(&f23, NULL);
  ir_node *n = t_node_make(&g, IR_OP_RELU, &x, 1, &f23, 1);
  expect_code(cg_node_unary(n, NULL, &s, &min, &k), VKML_CODE_UNSUPPORTED, "WG_SIZE=1024");
  ir_graph_destroy(g);
}
