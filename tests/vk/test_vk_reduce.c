/* The reduction-shaped GPU kernels (codegen/kernels/reduce.c, codegen/kernels/norm.c,
 * codegen/kernels/pool.c: reduce_*, global pools, argmax / argmin, softmax /
 * log_softmax, layer_norm, instance_norm, batchnorm, maxpool / avgpool) on
 * the device against the CPU reference (rt_cpu_run_node on the same node),
 * random non-zero inputs, at least 20 shape / attribute combinations per
 * family, f32 (every op of a family on every case) and f16 (one op per
 * case), for the default schedule; and every point of a
 * hand-picked sample of each template's space (spanning every knob's
 * extremes: one lane per row, a row per workgroup with and without
 * subgroups, vector widths 1 / 2 / 4, tiles 1x1 to 4x4) on every fifth
 * case (a different fifth at each point), f32 and f16 alternating by point.
 *
 * Bounds, |got - want| <= rtol*|want| + atol (u = 2^-24, one fp32 rounding):
 *   max / min / maxpool / global max: exact (rtol = atol = 0);
 *   argmax / argmin: exact indices;
 *   sum / mean / global avg / avgpool: rtol 1e-4, atol 2*sqrt(n)*u*M, M the
 *     same reduction of |x| (computed by the reference on |x|), n the
 *     elements per output: rounding errors of random data grow like
 *     sqrt(n); the rigorous n*u*M would not catch a dropped element;
 *   prod: rtol 1e-4 (no cancellation; n*u < 2e-5 for the n used);
 *   softmax: rtol 1e-4, atol 2^-126 (denormal results may flush to zero);
 *   log_softmax: rtol 1e-4, atol 2^-21 (the absolute accuracy Vulkan
 *     requires of log near 1) + 8u*(|x - max| + |log sum|), computed here;
 *   layer_norm / instance_norm: rtol 1e-4, atol 2^-17*S with
 *     S = (|x| + |mean|) / sqrt(var + eps) * max|scale| + max|bias| (row
 *     statistics computed here): the subtraction x - mean is exact only to
 *     a few u of |x| + |mean|, the statistics add ~sqrt(n)u (n <= 5000);
 *   batchnorm: rtol 1e-4, atol 2^-19 * ((|x| + |mean|) / sqrt(var + eps)
 *     * |scale| + |bias|) per channel.
 *   f16 adds rtol 2^-10 (one f16 ulp: the shader rounds an fp32 result, the
 *   reference a double one) and atol 2^-24 (one f16 subnormal step). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/core/core.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

#define U (1.0 / 16777216.0)

typedef struct env {
  vt_env v;
  int n_checked;
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

/* ---- one case: node, inputs, reference output, tolerances ---------------- */

typedef struct tcase {
  ir_graph *g;
  ir_node *n;
  rt_tensor in[6];
  int n_in;
  rt_tensor want;
  double *atol; /* per output element */
  double rtol;
} tcase;

static void tc_node(tcase *c, ir_op op) {
  ir_type placeholder = rt_tensor_type(&c->in[0]);
  c->n = t_node_make(&c->g, op, c->in, c->n_in, &placeholder, 1);
}

/* Infers the output type (attributes set), runs the reference. */
static void tc_finish(tcase *c) {
  ir_type ty;
  T_OK(ir_infer_node(c->n, &ty));
  c->n->outputs[0]->type = ty;
  T_OK(rt_tensor_alloc(&ty, &c->want));
  T_OK(t_node_run(c->n, c->in, c->n_in, &c->want, 1));
  int64_t cnt = rt_tensor_numel(&c->want);
  c->atol = calloc((size_t)(cnt ? cnt : 1), sizeof *c->atol);
  cr_assert(c->atol);
}

static void tc_free(tcase *c) {
  for (int i = 0; i < c->n_in; i++) rt_tensor_free(&c->in[i]);
  rt_tensor_free(&c->want);
  free(c->atol);
  ir_graph_destroy(c->g);
  memset(c, 0, sizeof *c);
}

/* The node's reference output on |x| (input 0): the magnitude that bounds
 * the rounding error of a sum. */
static rt_tensor tc_magnitude(const tcase *c) {
  rt_tensor ax, out;
  ir_type tx = rt_tensor_type(&c->in[0]);
  T_OK(rt_tensor_alloc(&tx, &ax));
  for (int64_t i = 0; i < rt_tensor_numel(&ax); i++)
    rt_store_f(&ax, i, fabs(rt_load_f(&c->in[0], i)));
  ir_type ty = rt_tensor_type(&c->want);
  T_OK(rt_tensor_alloc(&ty, &out));
  T_OK(t_node_run(c->n, &ax, 1, &out, 1));
  rt_tensor_free(&ax);
  return out;
}

static void tc_check(env *e, const tcase *c, const cg_template *tm, const cg_schedule *s) {
  cg_kernel k;
  T_OK(cg_kernel_for_node(c->n, tm, s, e->v.t, &k));
  ir_type ty = rt_tensor_type(&c->want);
  rt_tensor got;
  vt_poisoned(&ty, 0x7f, &got); /* unwritten elements show */
  const rt_tensor *ins[6];
  for (int i = 0; i < c->n_in; i++) ins[i] = &c->in[i];
  vt_run_kernel(e->v.ctx, e->v.cc, &k, ins, c->n_in, &got);
  char sched[96] = "default";
  if (s) cg_schedule_format(k.tmpl, s, sched, sizeof sched);
  int64_t cnt = rt_tensor_numel(&c->want);
  bool f16 = ty.dtype == IR_F16, ints = ty.dtype == IR_I64;
  for (int64_t i = 0; i < cnt; i++) {
    if (ints) {
      if (rt_load_i(&got, i) != rt_load_i(&c->want, i))
        cr_assert_fail("%s [%s] element %lld of %lld: got %lld want %lld", k.key, sched,
                       (long long)i, (long long)cnt, (long long)rt_load_i(&got, i),
                       (long long)rt_load_i(&c->want, i));
      continue;
    }
    double a = rt_load_f(&got, i), b = rt_load_f(&c->want, i);
    double tol = c->atol[i] + c->rtol * fabs(b);
    if (f16) tol += fabs(b) / 1024 + U;
    bool ok = isnan(b) ? isnan(a) : (a == b || fabs(a - b) <= tol);
    if (!ok)
      cr_assert_fail("%s [%s] element %lld of %lld: got %.9g want %.9g (tol %.3g)", k.key, sched,
                     (long long)i, (long long)cnt, a, b, tol);
  }
  rt_tensor_free(&got);
  e->n_checked++;
}

/* ---- reduce_* and global pools ------------------------------------------------ */

typedef struct rcase {
  int rank;
  int64_t d[IR_MAX_RANK];
  int na; /* -1: axes absent (all) */
  int64_t axes[IR_MAX_RANK];
  int keep;
} rcase;

static const rcase RCASES[] = {
    {1, {7}, -1, {0}, 1},
    {1, {1000}, 1, {0}, 0},
    {2, {3, 5}, 1, {1}, 1},
    {2, {3, 5}, 1, {0}, 0},                       /* across the contiguous axis */
    {3, {4, 6, 8}, 1, {1}, 1},                    /* middle axis */
    {3, {4, 6, 8}, 2, {0, 2}, 1},                 /* two separate axes */
    {4, {2, 3, 4, 5}, 2, {1, 3}, 1},
    {4, {2, 3, 4, 5}, 2, {0, 2}, 0},
    {4, {1, 32, 28, 28}, 2, {2, 3}, 1},           /* spatial, 784 per output */
    {2, {5000, 3}, 1, {0}, 1},                    /* long column */
    {2, {3, 5000}, 1, {1}, 0},                    /* long row */
    {5, {2, 1, 3, 1, 5}, 2, {1, 3}, 1},           /* size-1 axes only: a copy */
    {3, {6, 1, 7}, 2, {0, 2}, 0},
    {2, {8, 33}, 1, {-1}, 1},                     /* negative axis, odd row */
    {5, {2, 3, 4, 5, 6}, 5, {0, 1, 2, 3, 4}, 0},  /* everything to a scalar */
    {3, {9, 17, 5}, 2, {0, 1}, 1},
    {2, {128, 64}, 1, {1}, 1},                    /* vector rows */
    {2, {64, 128}, 1, {0}, 1},                    /* vector columns */
    {8, {2, 2, 2, 2, 2, 2, 2, 2}, 4, {0, 2, 4, 6}, 1}, /* 4 kept + 4 reduced runs */
    {1, {1}, 1, {0}, 0},                          /* to rank 0 */
    {3, {100, 1, 10}, 1, {1}, 0},
    {2, {31, 257}, 2, {0, 1}, 1},
    {3, {3, 0, 4}, 1, {1}, 1},                    /* empty reduction */
};
#define N_RCASES ((int)(sizeof RCASES / sizeof RCASES[0]))

static const ir_op ROPS[] = {IR_OP_REDUCE_SUM, IR_OP_REDUCE_MEAN, IR_OP_REDUCE_MAX,
                             IR_OP_REDUCE_MIN, IR_OP_REDUCE_PROD};

static int64_t rcase_len(const rcase *rc) {
  bool mask[IR_MAX_RANK] = {false};
  for (int i = 0; i < rc->rank; i++) mask[i] = rc->na < 0;
  for (int i = 0; i < rc->na; i++) mask[(rc->axes[i] + rc->rank) % rc->rank] = true;
  int64_t l = 1;
  for (int i = 0; i < rc->rank; i++)
    if (mask[i]) l *= rc->d[i];
  return l;
}

/* The op for case c, variant j: prod only where the product stays in range,
 * max / min only where there is something to reduce. */
static ir_op rop_for(const rcase *rc, int c, int j) {
  ir_op op = ROPS[(c + 2 * j) % 5];
  int64_t l = rcase_len(rc);
  if (op == IR_OP_REDUCE_PROD && l > 256) op = IR_OP_REDUCE_MEAN;
  if ((op == IR_OP_REDUCE_MAX || op == IR_OP_REDUCE_MIN) && l == 0) op = IR_OP_REDUCE_SUM;
  return op;
}

/* Tolerances of a sum-like reduction of n elements per output. */
static void sum_tolerance(tcase *c, int64_t n) {
  rt_tensor m = tc_magnitude(c);
  for (int64_t i = 0; i < rt_tensor_numel(&m); i++)
    c->atol[i] = 2 * sqrt((double)n) * U * rt_load_f(&m, i);
  rt_tensor_free(&m);
  c->rtol = 1e-4;
}

static void build_reduce(tcase *c, const rcase *rc, ir_op op, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  double lim = op == IR_OP_REDUCE_PROD ? 1.6 : 4;
  c->in[0] = t_tensor_random(&r, dt, rc->rank, rc->d, -lim, lim);
  c->n_in = 1;
  tc_node(c, op);
  if (rc->na >= 0) T_OK(ir_node_set_ints(c->g, c->n, IR_A_AXES, rc->axes, rc->na));
  T_OK(ir_node_set_int(c->g, c->n, IR_A_KEEPDIMS, rc->keep));
  tc_finish(c);
  if (op == IR_OP_REDUCE_SUM || op == IR_OP_REDUCE_MEAN) sum_tolerance(c, rcase_len(rc));
  if (op == IR_OP_REDUCE_PROD) c->rtol = 1e-4;
}

static const rcase GCASES[] = {
    {4, {1, 3, 5, 5}},  {4, {2, 16, 7, 7}}, {4, {1, 512, 7, 7}}, {4, {1, 8, 1, 1}},
    {3, {2, 3, 17}},    {5, {1, 4, 3, 5, 7}}, {4, {3, 5, 32, 32}}, {4, {1, 1, 100, 100}},
    {4, {4, 7, 9, 11}}, {4, {1, 64, 14, 14}}, {4, {2, 6, 2, 2}},  {4, {1, 1024, 1, 1}},
    {4, {1, 3, 1, 257}}, {3, {5, 9, 64}},       {4, {2, 3, 33, 1}},  {5, {1, 2, 2, 2, 2}},
    {4, {8, 4, 8, 8}},   {4, {1, 256, 13, 13}}, {3, {7, 1, 1}},      {4, {1, 40, 56, 56}},
};
#define N_GCASES ((int)(sizeof GCASES / sizeof GCASES[0]))

static void build_global(tcase *c, const rcase *gc, ir_op op, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  c->in[0] = t_tensor_random(&r, dt, gc->rank, gc->d, -4, 4);
  c->n_in = 1;
  tc_node(c, op);
  tc_finish(c);
  int64_t n = 1;
  for (int i = 2; i < gc->rank; i++) n *= gc->d[i];
  if (op == IR_OP_GLOBAL_AVG_POOL) sum_tolerance(c, n);
}

/* ---- argmax / argmin ------------------------------------------------------------ */

typedef struct acase {
  int rank;
  int64_t d[IR_MAX_RANK];
  int axis, keep, last;
} acase;

static const acase ACASES[] = {
    {1, {7}, 0, 1, 0},           {1, {1000}, 0, 0, 1},          {2, {3, 5}, 1, 1, 0},
    {2, {3, 5}, 0, 0, 1},        {3, {4, 6, 8}, 1, 1, 1},       {3, {4, 6, 8}, -1, 0, 0},
    {4, {2, 3, 4, 5}, 2, 1, 0},  {2, {5000, 3}, 0, 1, 1},       {2, {3, 5000}, 1, 1, 0},
    {2, {1, 1000}, 1, 0, 0},     {2, {8, 33}, 0, 1, 1},         {3, {2, 1, 3}, 1, 1, 0},
    {2, {64, 128}, 0, 1, 0},     {2, {128, 64}, 1, 0, 1},       {5, {2, 3, 4, 5, 6}, 3, 1, 1},
    {3, {9, 17, 5}, 0, 1, 0},    {4, {1, 21, 16, 16}, 1, 0, 0}, {4, {1, 21, 16, 16}, 1, 1, 1},
    {1, {1}, 0, 0, 0},           {3, {33, 2, 9}, -2, 1, 1},
};
#define N_ACASES ((int)(sizeof ACASES / sizeof ACASES[0]))

static void build_arg(tcase *c, const acase *ac, ir_op op, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  c->in[0] = t_tensor_random(&r, dt, ac->rank, ac->d, -4, 4);
  /* steps of 0.5: many ties, so that select_last_index matters */
  for (int64_t i = 0; i < rt_tensor_numel(&c->in[0]); i++) {
    double v = round(rt_load_f(&c->in[0], i) * 2) / 2;
    rt_store_f(&c->in[0], i, v != 0 ? v : 0.5);
  }
  c->n_in = 1;
  tc_node(c, op);
  T_OK(ir_node_set_int(c->g, c->n, IR_A_AXIS, ac->axis));
  T_OK(ir_node_set_int(c->g, c->n, IR_A_KEEPDIMS, ac->keep));
  T_OK(ir_node_set_int(c->g, c->n, IR_A_SELECT_LAST_INDEX, ac->last));
  tc_finish(c);
}

/* ---- softmax --------------------------------------------------------------------- */

typedef struct scase {
  int rank;
  int64_t d[IR_MAX_RANK];
  int axis;
  double range;
} scase;

static const scase SCASES[] = {
    {1, {7}, 0, 4},            {1, {1000}, -1, 4},        {2, {3, 5}, 1, 4},
    {2, {3, 5}, 0, 4},         {3, {4, 6, 8}, 1, 8},      {3, {4, 6, 8}, 2, 4},
    {3, {4, 6, 8}, 0, 4},      {4, {2, 3, 4, 5}, 1, 40},  {2, {1, 1000}, 1, 8},
    {2, {5000, 3}, 0, 4},      {2, {3, 5000}, 1, 4},      {2, {8, 33}, -1, 60},
    {2, {64, 128}, 0, 4},      {2, {128, 64}, 1, 4},      {3, {2, 1, 3}, 1, 4},
    {3, {16, 4, 49}, 2, 8},    {5, {2, 3, 4, 5, 6}, 3, 4}, {3, {9, 17, 5}, 0, 4},
    {2, {32, 768}, 1, 8},      {4, {1, 12, 20, 20}, 1, 4},
};
#define N_SCASES ((int)(sizeof SCASES / sizeof SCASES[0]))

static void build_softmax(tcase *c, const scase *sc, ir_op op, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  c->in[0] = t_tensor_random(&r, dt, sc->rank, sc->d, -sc->range, sc->range);
  c->n_in = 1;
  tc_node(c, op);
  T_OK(ir_node_set_int(c->g, c->n, IR_A_AXIS, sc->axis));
  tc_finish(c);
  c->rtol = 1e-4;
  int axis = (sc->axis + sc->rank) % sc->rank;
  int64_t outer = 1, len = sc->d[axis], inner = 1;
  for (int i = 0; i < axis; i++) outer *= sc->d[i];
  for (int i = axis + 1; i < sc->rank; i++) inner *= sc->d[i];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t b = o * len * inner + in;
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < len; k++) mx = fmax(mx, rt_load_f(&c->in[0], b + k * inner));
      for (int64_t k = 0; k < len; k++) sum += exp(rt_load_f(&c->in[0], b + k * inner) - mx);
      for (int64_t k = 0; k < len; k++) {
        double d = fabs(rt_load_f(&c->in[0], b + k * inner) - mx);
        c->atol[b + k * inner] = op == IR_OP_SOFTMAX
                                     ? ldexp(1.0, -126)
                                     : ldexp(1.0, -21) + 8 * U * (d + fabs(log(sum)));
      }
    }
}

/* ---- layer_norm / instance_norm / batchnorm ------------------------------------------ */

typedef struct lcase {
  int rank;
  int64_t d[IR_MAX_RANK];
  int axis;
  int srank; /* scale (and bias) shape */
  int64_t sd[IR_MAX_RANK];
  int bias;
} lcase;

static const lcase LCASES[] = {
    {1, {7}, -1, 1, {7}, 1},
    {2, {4, 16}, -1, 1, {16}, 1},
    {2, {4, 16}, 0, 2, {4, 16}, 1},              /* everything is one row */
    {3, {2, 3, 8}, -1, 1, {8}, 1},
    {3, {2, 3, 8}, 1, 2, {3, 8}, 1},
    {3, {2, 3, 8}, 1, 2, {1, 8}, 1},             /* broadcast over the outer tail axis */
    {3, {2, 3, 8}, 1, 2, {3, 1}, 1},             /* ... over the inner one */
    {3, {2, 3, 8}, 1, 1, {1}, 1},                /* one element */
    {2, {32, 768}, -1, 1, {768}, 1},
    {2, {5, 1000}, -1, 1, {1000}, 0},            /* no bias */
    {2, {3, 5000}, -1, 1, {5000}, 1},
    {2, {1, 1}, -1, 1, {1}, 1},
    {4, {2, 4, 6, 8}, 2, 2, {6, 8}, 1},
    {4, {2, 4, 6, 8}, 1, 3, {4, 1, 8}, 1},       /* strided parameters */
    {2, {8, 33}, -1, 1, {33}, 0},
    {3, {1, 196, 384}, -1, 1, {384}, 1},
    {3, {3, 7, 5}, 0, 2, {7, 5}, 1},
    {3, {6, 1, 9}, 1, 2, {1, 9}, 1},
    {2, {4, 10}, 1, 0, {0}, 1},                  /* rank-0 parameters */
    {4, {2, 3, 4, 5}, -2, 2, {4, 5}, 1},
};
#define N_LCASES ((int)(sizeof LCASES / sizeof LCASES[0]))

static double tensor_absmax(const rt_tensor *t) {
  double m = 0;
  for (int64_t i = 0; i < rt_tensor_numel(t); i++) m = fmax(m, fabs(rt_load_f(t, i)));
  return m;
}

/* Tolerances of a normalisation over contiguous rows of len elements. */
static void norm_tolerance(tcase *c, int64_t len, double eps, double smax, double bmax) {
  c->rtol = 1e-4;
  const rt_tensor *x = &c->in[0];
  int64_t n = rt_tensor_numel(x);
  for (int64_t r0 = 0; len > 0 && r0 < n; r0 += len) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < len; j++) mean += rt_load_f(x, r0 + j);
    mean /= (double)len;
    for (int64_t j = 0; j < len; j++) var += pow(rt_load_f(x, r0 + j) - mean, 2);
    double inv = 1 / sqrt(var / (double)len + eps);
    for (int64_t j = 0; j < len; j++)
      c->atol[r0 + j] =
          ldexp((fabs(rt_load_f(x, r0 + j)) + fabs(mean)) * inv * smax + bmax, -17);
  }
}

static void build_layer(tcase *c, const lcase *lc, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  /* an offset, so that the mean matters */
  c->in[0] = t_tensor_random(&r, dt, lc->rank, lc->d, -2, 6);
  c->in[1] = t_tensor_random(&r, dt, lc->srank, lc->sd, -2, 2);
  c->n_in = 2;
  if (lc->bias) c->in[c->n_in++] = t_tensor_random(&r, dt, lc->srank, lc->sd, -1, 1);
  tc_node(c, IR_OP_LAYER_NORM);
  T_OK(ir_node_set_int(c->g, c->n, IR_A_AXIS, lc->axis));
  tc_finish(c);
  int axis = (lc->axis + lc->rank) % lc->rank;
  int64_t len = 1;
  for (int i = axis; i < lc->rank; i++) len *= lc->d[i];
  norm_tolerance(c, len, 1e-5, tensor_absmax(&c->in[1]),
                 lc->bias ? tensor_absmax(&c->in[2]) : 0);
}

typedef struct icase {
  int rank;
  int64_t d[IR_MAX_RANK];
} icase;

static const icase ICASES[] = {
    {4, {1, 3, 5, 5}},   {4, {2, 4, 7, 7}},   {4, {1, 8, 16, 16}}, {3, {2, 3, 17}},
    {5, {1, 2, 3, 4, 5}}, {4, {1, 1, 100, 50}}, {4, {4, 5, 1, 1}},  {4, {2, 16, 9, 11}},
    {4, {1, 32, 32, 32}}, {4, {3, 7, 6, 6}},   {4, {1, 64, 14, 14}}, {4, {2, 2, 2, 2}},
    {4, {1, 6, 33, 1}},  {3, {5, 3, 8}},      {4, {1, 4, 64, 64}}, {4, {2, 10, 3, 3}},
    {4, {1, 1, 7, 7}},   {4, {3, 9, 5, 4}},   {4, {2, 7, 13, 13}}, {4, {1, 3, 1, 257}},
    {2, {6, 10}}, /* batchnorm only (instance_norm wants rank >= 3) */
};
#define N_ICASES ((int)(sizeof ICASES / sizeof ICASES[0]))

static void build_instance(tcase *c, const icase *ic, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t ch[1] = {ic->d[1]};
  c->in[0] = t_tensor_random(&r, dt, ic->rank, ic->d, -3, 5);
  c->in[1] = t_tensor_random(&r, dt, 1, ch, -2, 2);
  c->in[2] = t_tensor_random(&r, dt, 1, ch, -1, 1);
  c->n_in = 3;
  tc_node(c, IR_OP_INSTANCE_NORM);
  T_OK(ir_node_set_float(c->g, c->n, IR_A_EPSILON, seed % 2 ? 1e-3f : 1e-5f));
  tc_finish(c);
  int64_t len = 1;
  for (int i = 2; i < ic->rank; i++) len *= ic->d[i];
  norm_tolerance(c, len, seed % 2 ? 1e-3f : 1e-5f, tensor_absmax(&c->in[1]),
                 tensor_absmax(&c->in[2]));
}

static void build_batchnorm(tcase *c, const icase *ic, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  int64_t ch[1] = {ic->d[1]};
  c->in[0] = t_tensor_random(&r, dt, ic->rank, ic->d, -3, 5);
  c->in[1] = t_tensor_random(&r, dt, 1, ch, -2, 2);
  c->in[2] = t_tensor_random(&r, dt, 1, ch, -1, 1);
  c->in[3] = t_tensor_random(&r, dt, 1, ch, -1, 2);
  c->in[4] = t_tensor_random(&r, dt, 1, ch, 0.05, 3);
  c->n_in = 5;
  tc_node(c, IR_OP_BATCHNORM);
  float eps = seed % 2 ? 1e-3f : 1e-5f;
  T_OK(ir_node_set_float(c->g, c->n, IR_A_EPSILON, eps));
  tc_finish(c);
  c->rtol = 1e-4;
  int64_t inner = 1, n = rt_tensor_numel(&c->in[0]);
  for (int i = 2; i < ic->rank; i++) inner *= ic->d[i];
  for (int64_t i = 0; i < n; i++) {
    int64_t k = (i / inner) % ic->d[1];
    double inv = 1 / sqrt(rt_load_f(&c->in[4], k) + eps);
    double s = (fabs(rt_load_f(&c->in[0], i)) + fabs(rt_load_f(&c->in[3], k))) * inv *
                   fabs(rt_load_f(&c->in[1], k)) +
               fabs(rt_load_f(&c->in[2], k));
    c->atol[i] = ldexp(s, -19);
  }
}

/* ---- maxpool / avgpool --------------------------------------------------------------- */

typedef struct pcase {
  int64_t d[4];
  ir_op op;
  int64_t k[2], s[2], pads[4], dil[2];
  int ceil, cip;
} pcase;

#define MAXP IR_OP_MAXPOOL
#define AVGP IR_OP_AVGPOOL
static const pcase PCASES[] = {
    {{1, 1, 5, 5}, MAXP, {3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {{1, 3, 7, 7}, AVGP, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0, 0},
    {{2, 4, 9, 9}, MAXP, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0, 0},
    {{1, 2, 8, 8}, AVGP, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {{1, 3, 11, 13}, MAXP, {5, 5}, {1, 1}, {1, 2, 2, 1}, {1, 1}, 0, 0},
    {{1, 2, 7, 7}, AVGP, {7, 7}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {{1, 3, 10, 10}, MAXP, {3, 3}, {3, 3}, {0, 0, 0, 0}, {1, 1}, 1, 0},
    {{1, 2, 7, 7}, AVGP, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, 1},
    {{1, 2, 9, 9}, MAXP, {3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, 0, 0},
    {{1, 2, 12, 12}, AVGP, {3, 3}, {2, 2}, {0, 0, 1, 1}, {1, 1}, 0, 1},
    {{1, 2, 6, 9}, MAXP, {1, 3}, {1, 2}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {{1, 1, 1, 20}, AVGP, {1, 5}, {1, 3}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {{1, 4, 15, 15}, AVGP, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, 0},
    {{2, 8, 14, 14}, MAXP, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {{1, 3, 5, 5}, AVGP, {5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}, 0, 1},
    {{1, 1, 6, 6}, MAXP, {3, 3}, {2, 2}, {1, 1, 0, 0}, {1, 1}, 1, 0},
    {{1, 2, 13, 11}, AVGP, {3, 2}, {2, 3}, {1, 0, 1, 1}, {1, 2}, 0, 0},
    {{1, 16, 28, 28}, MAXP, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0, 0},
    {{1, 1, 4, 4}, AVGP, {2, 2}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, 1},
    {{1, 3, 9, 9}, AVGP, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0, 0},
    {{1, 1, 16, 16}, AVGP, {11, 11}, {5, 5}, {2, 2, 2, 2}, {1, 1}, 0, 1},
    {{3, 5, 17, 17}, MAXP, {7, 7}, {3, 3}, {3, 3, 3, 3}, {1, 1}, 1, 0},
};
#define N_PCASES ((int)(sizeof PCASES / sizeof PCASES[0]))

static void build_pool(tcase *c, const pcase *pc, ir_dtype dt, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  /* 8-bit integers over the type's whole range */
  double lo = dt == IR_U8 ? 0 : dt == IR_I8 ? -128 : -4, hi = dt == IR_U8 ? 256 : dt == IR_I8 ? 128 : 4;
  c->in[0] = t_tensor_random(&r, dt, 4, pc->d, lo, hi);
  c->n_in = 1;
  tc_node(c, pc->op);
  T_OK(ir_node_set_ints(c->g, c->n, IR_A_KERNEL, pc->k, 2));
  t_set_window_attrs(c->g, c->n, pc->s[0], pc->s[1], pc->dil[0], pc->dil[1], pc->pads);
  if (pc->ceil) T_OK(ir_node_set_int(c->g, c->n, IR_A_CEIL_MODE, 1));
  if (pc->op == AVGP && pc->cip) T_OK(ir_node_set_int(c->g, c->n, IR_A_COUNT_INCLUDE_PAD, 1));
  tc_finish(c);
  if (pc->op == AVGP) sum_tolerance(c, pc->k[0] * pc->k[1]);
}

/* ---- the families, case by case ---------------------------------------------------- */

typedef enum fam { F_REDUCE, F_GLOBAL, F_ARG, F_SOFTMAX, F_LAYER, F_INSTANCE, F_BATCH, F_POOL } fam;

static int fam_cases(fam f) {
  switch (f) {
  case F_REDUCE: return N_RCASES;
  case F_GLOBAL: return N_GCASES;
  case F_ARG: return N_ACASES;
  case F_SOFTMAX: return N_SCASES;
  case F_LAYER: return N_LCASES;
  case F_INSTANCE: return N_ICASES - 1; /* the last one is rank 2 */
  case F_BATCH: return N_ICASES;
  case F_POOL: return N_PCASES;
  }
  return 0;
}

/* Builds case i (variant j picks the op where the family has several). */
static void fam_build(tcase *c, fam f, int i, int j, ir_dtype dt, uint64_t seed) {
  switch (f) {
  case F_REDUCE: build_reduce(c, &RCASES[i], rop_for(&RCASES[i], i, j), dt, seed); break;
  case F_GLOBAL:
    build_global(c, &GCASES[i], (i + j) % 2 ? IR_OP_GLOBAL_MAX_POOL : IR_OP_GLOBAL_AVG_POOL, dt,
                 seed);
    break;
  case F_ARG: build_arg(c, &ACASES[i], (i + j) % 2 ? IR_OP_ARGMIN : IR_OP_ARGMAX, dt, seed); break;
  case F_SOFTMAX:
    build_softmax(c, &SCASES[i], (i + j) % 2 ? IR_OP_LOG_SOFTMAX : IR_OP_SOFTMAX, dt, seed);
    break;
  case F_LAYER: build_layer(c, &LCASES[i], dt, seed); break;
  case F_INSTANCE: build_instance(c, &ICASES[i], dt, seed); break;
  case F_BATCH: build_batchnorm(c, &ICASES[i], dt, seed); break;
  case F_POOL: build_pool(c, &PCASES[i], dt, seed); break;
  }
}

static const cg_template *fam_template(fam f) {
  switch (f) {
  case F_REDUCE:
  case F_GLOBAL:
  case F_ARG: return &cg_reduce_template;
  case F_SOFTMAX: return &cg_softmax_template;
  case F_LAYER:
  case F_INSTANCE: return &cg_norm_template;
  case F_BATCH: return &cg_batchnorm_template;
  case F_POOL: return &cg_pool2d_template;
  }
  return NULL;
}

/* Families with two ops run both on every case (variants 0 and 1). */
static int fam_variants(fam f) { return f == F_REDUCE || f == F_GLOBAL || f == F_ARG || f == F_SOFTMAX ? 2 : 1; }

static void default_schedule(fam f, ir_dtype dt) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, dt != IR_F16 || e.v.t->storage_16bit, "16-bit storage");
  /* f16 runs one variant per case (the ops alternate over the cases) */
  int first = dt == IR_F16 ? fam_variants(f) - 1 : 0;
  for (int i = 0; i < fam_cases(f); i++)
    for (int j = first; j < fam_variants(f); j++) {
      tcase c = {0};
      fam_build(&c, f, i, j, dt, 1000u * (uint64_t)i + (uint64_t)j + (dt == IR_F16 ? 7 : 0));
      tc_check(&e, &c, NULL, NULL);
      tc_free(&c);
    }
  cr_assert_geq(e.n_checked, 20);
  vt_env_close(&e.v);
}

#define DEFAULT_TESTS(name, f)                                                 \
  Test(vk_reduce, default_##name##_f32) { default_schedule(f, IR_F32); }       \
  Test(vk_reduce, default_##name##_f16) { default_schedule(f, IR_F16); }

DEFAULT_TESTS(reduce, F_REDUCE)
DEFAULT_TESTS(global_pool, F_GLOBAL)
DEFAULT_TESTS(argminmax, F_ARG)
DEFAULT_TESTS(softmax, F_SOFTMAX)
DEFAULT_TESTS(layer_norm, F_LAYER)
DEFAULT_TESTS(instance_norm, F_INSTANCE)
DEFAULT_TESTS(batchnorm, F_BATCH)
DEFAULT_TESTS(pool, F_POOL)

/* reduce_sum with a fused activation (as pass_split_k leaves the split
 * conv's relu): relu, leaky_relu, clip and sigmoid over the reduce cases
 * (their alpha and beta through specialization constants), f32 and f16, at
 * the default schedule; the acts are 1-Lipschitz or less, so the sum's
 * tolerances hold. An integer sum with an act is refused on the GPU and by
 * the reference. */
static void act_sums(ir_dtype dt) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, dt != IR_F16 || e.v.t->storage_16bit, "16-bit storage");
  static const struct {
    ir_act kind;
    float alpha, beta;
  } acts[] = {{IR_ACT_RELU, 0, 0}, {IR_ACT_LEAKY_RELU, 0.1f, 0}, {IR_ACT_CLIP, -1.0f, 2.0f},
              {IR_ACT_SIGMOID, 0, 0}};
  for (int i = 0; i < N_RCASES; i++) {
    tcase c = {0};
    build_reduce(&c, &RCASES[i], IR_OP_REDUCE_SUM, dt, 5000u + (uint64_t)i);
    int a = i % 4;
    T_OK(ir_node_set_int(c.g, c.n, IR_A_ACT, acts[a].kind));
    if (acts[a].alpha != 0) T_OK(ir_node_set_float(c.g, c.n, IR_A_ACT_ALPHA, acts[a].alpha));
    if (acts[a].beta != 0) T_OK(ir_node_set_float(c.g, c.n, IR_A_ACT_BETA, acts[a].beta));
    /* the reference again, with the act (the tolerances stay the sum's) */
    T_OK(t_node_run(c.n, c.in, c.n_in, &c.want, 1));
    tc_check(&e, &c, NULL, NULL);
    tc_free(&c);
  }
  cr_assert_geq(e.n_checked, N_RCASES);
  vt_env_close(&e.v);
}

Test(vk_reduce, sum_with_act_f32) { act_sums(IR_F32); }
Test(vk_reduce, sum_with_act_f16) { act_sums(IR_F16); }

Test(vk_reduce, int_sum_with_act_is_refused) {
  ir_target t;
  ir_target_minimum(&t);
  tcase c = {0};
  t_rng r = t_rng_make(3);
  int64_t d[2] = {4, 5};
  c.in[0] = t_tensor_random(&r, IR_I32, 2, d, -4, 4);
  c.n_in = 1;
  tc_node(&c, IR_OP_REDUCE_SUM);
  ir_type ty0;
  T_OK(ir_infer_node(c.n, &ty0));
  c.n->outputs[0]->type = ty0;
  T_OK(ir_node_set_int(c.g, c.n, IR_A_ACT, IR_ACT_RELU));
  cg_kernel k;
  t_expect_error(cg_kernel_for_node(c.n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "fused activation");
  rt_tensor out;
  ir_type ty = ty0;
  T_OK(rt_tensor_alloc(&ty, &out));
  t_expect_error(t_node_run(c.n, c.in, 1, &out, 1), VKML_CODE_UNSUPPORTED, "fused activation");
  rt_tensor_free(&out);
  tc_free(&c);
}

/* 8-bit integer max pools (u8, i8: ONNX MaxPool's integer types) at the
 * default schedule and two sampled points: exact against the reference over
 * every max-pool case, values across each type's range. */
static void int8_max_pools(ir_dtype dt) {
  env e;
  env_open(&e);
  vt_env_skip_unless(&e.v, e.v.t->storage_8bit && e.v.t->int8_arith,
                     "8-bit storage and arithmetic");
  for (int i = 0; i < N_PCASES; i++) {
    if (PCASES[i].op != MAXP) continue;
    for (int p = -1; p < 2; p++) { /* the default, then two points of POOL_POINTS' below */
      static const cg_schedule pts[2] = {{{64, 4, 4}}, {{128, 1, 2}}};
      tcase c = {0};
      build_pool(&c, &PCASES[i], dt, 31u * (uint64_t)i + (uint64_t)(p + 1));
      tc_check(&e, &c, p < 0 ? NULL : &cg_pool2d_template, p < 0 ? NULL : &pts[p]);
      tc_free(&c);
    }
  }
  cr_assert_geq(e.n_checked, 30);
  vt_env_close(&e.v);
}

Test(vk_reduce, max_pool_u8) { int8_max_pools(IR_U8); }
Test(vk_reduce, max_pool_i8) { int8_max_pools(IR_I8); }

/* ---- sampled points of each space ------------------------------------------------- */

/* Row templates (reduce, softmax, norm): WG_SIZE, RED, VEC, SUBGROUP. */
static const cg_schedule ROW_POINTS[] = {
    {{32, 1, 1, 0}},      /* one lane per row, scalar */
    {{64, 64, 2, 1}},     /* a row per workgroup, subgroups */
    {{256, 256, 4, 0}},   /* a row per workgroup, shared memory only */
    {{128, 8, 4, 1}},     /* 16 rows per workgroup */
    {{1024, 1024, 1, 1}}, /* the largest workgroup */
    {{512, 0, 2, 0}},     /* lanes from the shape */
    {{32, 32, 4, 1}},
    {{256, 2, 1, 1}},
};
static const cg_schedule BN_POINTS[] = {
    {{32, 1}}, {{64, 8}}, {{256, 2}}, {{1024, 4}}, {{512, 8}}, {{128, 1}},
};
static const cg_schedule POOL_POINTS[] = {
    {{32, 1, 1}}, {{64, 4, 4}}, {{256, 2, 4}}, {{1024, 4, 1}}, {{128, 1, 2}}, {{512, 2, 2}},
};

/* The cases of a family run at each sampled point: every fifth, from an
 * offset that moves with the point, so the points see different cases. */
static void sampled_points_part(fam f, const cg_schedule *pts, int n_pts, int first, int step,
                                int min_run) {
  env e;
  env_open(&e);
  const cg_template *tm = fam_template(f);
  int n_run = 0;
  for (int p = first; p < n_pts; p += step) {
    vkml_status st = cg_schedule_check(tm, &pts[p], e.v.t);
    if (!st && tm->n_knobs == 4 && pts[p].v[CG_ROW_RED] > pts[p].v[CG_ROW_WG])
      cr_assert_fail("point %d: RED exceeds WG_SIZE", p);
    if (st) { /* too large for this device: must be a limit, not a bad value */
      cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED, "%s", vkml_status_message(st));
      vkml_status_free(st);
      continue;
    }
    ir_dtype dt = p % 2 && e.v.t->storage_16bit ? IR_F16 : IR_F32;
    for (int i = p % 5; i < fam_cases(f); i += 5) {
      tcase c = {0};
      fam_build(&c, f, i, p, dt, 77u * (uint64_t)p + (uint64_t)i);
      tc_check(&e, &c, tm, &pts[p]);
      tc_free(&c);
      n_run++;
    }
  }
  cr_assert_geq(n_run, min_run);
  vt_env_close(&e.v);
}

static void sampled_points(fam f, const cg_schedule *pts, int n_pts) {
  sampled_points_part(f, pts, n_pts, 0, 1, 20);
}

#define N_OF(a) ((int)(sizeof a / sizeof a[0]))
Test(vk_reduce, points_reduce) { sampled_points(F_REDUCE, ROW_POINTS, N_OF(ROW_POINTS)); }
Test(vk_reduce, points_global_pool) { sampled_points(F_GLOBAL, ROW_POINTS, N_OF(ROW_POINTS)); }
Test(vk_reduce, points_argminmax) { sampled_points(F_ARG, ROW_POINTS, N_OF(ROW_POINTS)); }
Test(vk_reduce, points_softmax) { sampled_points(F_SOFTMAX, ROW_POINTS, N_OF(ROW_POINTS)); }
Test(vk_reduce, points_layer_norm) { sampled_points(F_LAYER, ROW_POINTS, N_OF(ROW_POINTS)); }
Test(vk_reduce, points_instance_norm) { sampled_points(F_INSTANCE, ROW_POINTS, N_OF(ROW_POINTS)); }
Test(vk_reduce, points_batchnorm) { sampled_points(F_BATCH, BN_POINTS, N_OF(BN_POINTS)); }
/* pool2d points compile slowly on lavapipe: two tests of half the points. */
Test(vk_reduce, points_pool_even) { sampled_points_part(F_POOL, POOL_POINTS, N_OF(POOL_POINTS), 0, 2, 10); }
Test(vk_reduce, points_pool_odd) { sampled_points_part(F_POOL, POOL_POINTS, N_OF(POOL_POINTS), 1, 2, 10); }

/* ---- NaN and infinities ---------------------------------------------------------- */

/* x[3,40] random, then: row 0 NaN at k = 0, row 1 NaN at k = 17 and +inf at
 * k = 30, row 2 -inf at k = 5 and 6 (argmax: ties everywhere in row 2). */
static void special_input(tcase *c, ir_op op, bool ties) {
  t_rng r = t_rng_make(5);
  int64_t d[2] = {3, 40};
  c->in[0] = t_tensor_random(&r, IR_F32, 2, d, -4, 4);
  rt_store_f(&c->in[0], 0, NAN);
  rt_store_f(&c->in[0], 40 + 17, NAN);
  rt_store_f(&c->in[0], 40 + 30, INFINITY);
  for (int k = 0; ties && k < 40; k++) rt_store_f(&c->in[0], 80 + k, 1.5);
  rt_store_f(&c->in[0], 80 + 5, -INFINITY);
  rt_store_f(&c->in[0], 80 + 6, -INFINITY);
  c->n_in = 1;
  tc_node(c, op);
  /* reductions take axes; softmax and argmax one axis */
  bool red = op == IR_OP_REDUCE_MAX || op == IR_OP_REDUCE_MIN || op == IR_OP_REDUCE_SUM;
  if (red) T_OK(ir_node_set_ints(c->g, c->n, IR_A_AXES, (int64_t[]){1}, 1));
  else T_OK(ir_node_set_int(c->g, c->n, IR_A_AXIS, 1));
}

Test(vk_reduce, special_values) {
  env e;
  env_open(&e);
  static const cg_schedule pts[] = {{{128, 0, 4, 1}}, {{64, 64, 4, 1}}, {{64, 4, 1, 0}}};
  for (int p = 0; p < 3; p++) {
    static const ir_op ops[] = {IR_OP_REDUCE_MAX, IR_OP_REDUCE_MIN, IR_OP_REDUCE_SUM,
                                IR_OP_ARGMAX,     IR_OP_ARGMIN,     IR_OP_SOFTMAX,
                                IR_OP_LOG_SOFTMAX};
    for (int i = 0; i < 7; i++) {
      for (int last = 0; last < 2; last++) {
        bool arg = ops[i] == IR_OP_ARGMAX || ops[i] == IR_OP_ARGMIN;
        if (last && !arg) continue;
        tcase c = {0};
        special_input(&c, ops[i], arg);
        if (last) T_OK(ir_node_set_int(c.g, c.n, IR_A_SELECT_LAST_INDEX, 1));
        tc_finish(&c);
        c.rtol = 1e-4;
        const cg_template *tm = ops[i] == IR_OP_SOFTMAX || ops[i] == IR_OP_LOG_SOFTMAX
                                    ? &cg_softmax_template
                                    : &cg_reduce_template;
        tc_check(&e, &c, tm, &pts[p]);
        tc_free(&c);
      }
    }
  }
  vt_env_close(&e.v);
}

/* A forged artifact's LANES (the invocations per row, a specialization
 * constant) that does not divide the workgroup: 0, 3, twice the workgroup,
 * 0x8000001 (fuzz_forged's case 2366 on softmax). The row kernels return at
 * once (rowmap_lanes_ok, glsl/rowmap.glsl): no crash, no division by zero,
 * no workgroup memory out of range, and the output stays unwritten. */
Test(vk_reduce, forged_lanes_leave_the_kernel_at_once) {
  env e;
  env_open(&e);
  static const ir_op ops[] = {IR_OP_SOFTMAX, IR_OP_REDUCE_SUM};
  for (int i = 0; i < 2; i++) {
    tcase c = {0};
    t_rng r = t_rng_make(77);
    int64_t d[2] = {6, 40};
    c.in[0] = t_tensor_random(&r, IR_F32, 2, d, -2, 2);
    c.n_in = 1;
    tc_node(&c, ops[i]);
    if (ops[i] == IR_OP_REDUCE_SUM) T_OK(ir_node_set_ints(c.g, c.n, IR_A_AXES, (int64_t[]){1}, 1));
    else T_OK(ir_node_set_int(c.g, c.n, IR_A_AXIS, 1));
    tc_finish(&c);
    cg_kernel k;
    T_OK(cg_kernel_for_node(c.n, NULL, NULL, e.v.t, &k));
    int at = -1;
    for (int j = 0; j < k.n_spec; j++)
      if (k.spec_id[j] == CG_SPEC_ROWMAP_LANES) at = j;
    cr_assert_geq(at, 0, "%s sets no LANES", k.key);
    const char *wg = vt_define_of(&k, "WG_SIZE");
    cr_assert(wg, "%s has no WG_SIZE", k.key);
    const uint32_t bad[] = {0, 3, 2 * (uint32_t)atoi(wg), 0x8000001u};
    for (int b = 0; b < 4; b++) {
      cg_kernel f = k;
      f.spec_value[at] = bad[b];
      ir_type ty = rt_tensor_type(&c.want);
      rt_tensor got;
      vt_poisoned(&ty, 0x7f, &got);
      const rt_tensor *ins[1] = {&c.in[0]};
      vt_run_kernel(e.v.ctx, e.v.cc, &f, ins, 1, &got);
      size_t untouched = vt_untouched(&got, 0x7f);
      cr_assert_eq(untouched, rt_tensor_bytes(&got), "%s with LANES %u wrote %zu bytes", k.key,
                   bad[b], rt_tensor_bytes(&got) - untouched);
      rt_tensor_free(&got);
    }
    tc_free(&c);
  }
  vt_env_close(&e.v);
}
