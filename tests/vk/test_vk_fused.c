/* The elementwise_fused template (fused_elementwise's program) on the
 * device against the CPU reference kernel (rt_cpu_run_node on the same
 * node), random non-zero inputs in [-3, 3]: four programs (quick gelu with
 * a relu act; a DAG with leaky_relu / clip acts and params; sixteen
 * instructions over every other float op kind; floor / ceil / round on
 * exact inputs) on five broadcast shape sets, f32 and f16, the default
 * schedule; every point of the knob space on one program and shape.
 *
 * Bounds (|got - want| <= rtol*|want| + atol): f32 rtol 1e-4, atol 1e-5
 * (the reference rounds every register to f32 from double, the shader
 * computes in fp32; hard_sigmoid / hard_swish roots and pow amplify an ulp);
 * f16 rtol 2^-8, atol 2^-7 (the reference rounds every register to f16,
 * the shader keeps fp32 until the store: an intermediate of magnitude ~3
 * carries an f16 rounding of ~2^-10 into a cancelling sum). NaN matches NaN. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "codegen/core/templates.h"
#include "codegen/core/ops.h"
#include "ir/params.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct prog {
  int n_in;
  const char *ops;
  int n_instr;
  int64_t regs[32];
  float params[32]; /* all 0: no params attribute */
} prog;

static const prog PROGS[] = {
    /* relu(x * sigmoid(c * x) + y) */
    {3, "mul sigmoid mul add:relu", 4, {0, 1, 3, -1, 0, 4, 5, 2}, {0}},
    /* clip((leaky((a - b)^2), -1, 4) / c, act clip [0.5, 2]) */
    {3, "sub mul:leaky_relu clip div:clip", 4, {0, 1, 3, 3, 4, -1, 5, 2},
     {0, 0, 0.2f, 0, -1, 4, 0.5f, 2}},
    /* sixteen instructions over two inputs */
    {2,
     "abs sqrt log erf softplus pow prelu min max selu hard_sigmoid hard_swish elu add:gelu "
     "tanh neg",
     16,
     {0, -1, 2, -1, 3, -1, 4, -1, 1, -1, 6, 5, 0, 1, 7, 8, 9, 1, 10, -1, 11, -1, 12, -1, 0, -1,
      13, 14, 15, -1, 16, -1},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.5f, 1.25f, 0.2f, 0.5f, 0, 0, 0.7f,
      0, 0, 0, 0, 0, 0, 0}},
    /* the rounding ops on exact inputs, then smooth ones */
    {1, "floor ceil add round sub relu sigmoid reciprocal sign mul neg exp mul", 13,
     {0, -1, 0, -1, 1, 2, 0, -1, 3, 4, 5, -1, 6, -1, 7, -1, 0, -1, 8, 9, 10, -1, 0, -1, 11, 12},
     {0}},
};
#define N_PROGS ((int)(sizeof PROGS / sizeof PROGS[0]))

typedef struct shapes {
  int rank[3];
  int64_t dims[3][IR_MAX_RANK];
} shapes;

static const shapes SHAPES[] = {
    {{3, 0, 1}, {{2, 3, 8}, {0}, {8}}},                    /* scalar, row bias */
    {{3, 1, 2}, {{4, 1, 5}, {1}, {3, 1}}},                 /* every input broadcasts */
    {{4, 3, 4}, {{1, 16, 9, 9}, {16, 1, 1}, {1, 16, 1, 1}}}, /* channel biases */
    {{1, 1, 1}, {{1000}, {1000}, {1}}},                    /* same shape, one element */
    {{2, 2, 1}, {{5, 257}, {5, 1}, {257}}},                /* odd inner axis */
};
#define N_SHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

static void check(vt_env *e, const prog *p, const shapes *sh, ir_dtype dt, const cg_schedule *s,
                  uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor in[3];
  ir_type to;
  for (int i = 0; i < p->n_in; i++) {
    in[i] = t_tensor_random(&r, dt, sh->rank[i], sh->dims[i], -3, 3);
    ir_type ti = rt_tensor_type(&in[i]);
    if (i == 0) to = ti;
    else T_OK(ir_broadcast(&to, &ti, &to));
  }
  ir_graph *g;
  ir_node *n = t_node_make(&g, IR_OP_FUSED_ELEMENTWISE, in, p->n_in, &to, 1);
  T_OK(ir_node_set_string(g, n, IR_A_OPS, p->ops));
  T_OK(ir_node_set_ints(g, n, IR_A_REGS, p->regs, 2 * p->n_instr));
  bool any = false;
  for (int i = 0; i < 2 * p->n_instr; i++) any = any || p->params[i] != 0;
  if (any) T_OK(ir_node_set_floats(g, n, IR_A_PARAMS, p->params, 2 * p->n_instr));
  ir_type chk;
  T_OK(ir_infer_node(n, &chk));

  rt_tensor want, got;
  T_OK(rt_tensor_alloc(&to, &want));
  const rt_tensor *ins[3] = {&in[0], &in[1], &in[2]};
  rt_tensor *outs[1] = {&want};
  T_OK(rt_cpu_run_node(n, ins, p->n_in, outs, 1));
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, &cg_fused_template, s, e->t, &k));
  vt_poisoned(&to, 0x7f, &got); /* unwritten elements show */
  vt_run_kernel(e->ctx, e->cc, &k, ins, p->n_in, &got);

  bool f16 = dt == IR_F16;
  double rtol = f16 ? 1.0 / 256 : 1e-4, atol = f16 ? 1.0 / 128 : 1e-5;
  int64_t cnt = rt_tensor_numel(&want), bad = -1, nonzero = 0;
  for (int64_t i = 0; i < cnt && bad < 0; i++) {
    double a = rt_load_f(&got, i), b = rt_load_f(&want, i);
    nonzero += b != 0;
    if (!(isnan(a) && isnan(b)) && !(fabs(a - b) <= atol + rtol * fabs(b))) bad = i;
  }
  if (bad >= 0)
    cr_assert_fail("%s: element %lld of %lld: got %.9g want %.9g", k.key, (long long)bad,
                   (long long)cnt, rt_load_f(&got, bad), rt_load_f(&want, bad));
  cr_assert(nonzero > 0, "%s: the reference is all zero", k.key);
  rt_tensor_free(&want);
  rt_tensor_free(&got);
  for (int i = 0; i < p->n_in; i++) rt_tensor_free(&in[i]);
  ir_graph_destroy(g);
}

static void default_schedule(ir_dtype dt) {
  vt_env e;
  vt_env_open(&e);
  vt_env_skip_unless(&e, dt != IR_F16 || e.t->storage_16bit, "16-bit storage");
  for (int p = 0; p < N_PROGS; p++)
    for (int c = 0; c < N_SHAPES; c++)
      check(&e, &PROGS[p], &SHAPES[c], dt, NULL, 100u * (uint64_t)p + (uint64_t)c);
  vt_env_close(&e);
}

Test(vk_fused, default_schedule_f32) { default_schedule(IR_F32); }
Test(vk_fused, default_schedule_f16) { default_schedule(IR_F16); }

/* Every other point from first (two tests: each stays under 30 s cold). */
static void every_point(int64_t first) {
  vt_env e;
  vt_env_open(&e);
  const ir_target *t = e.t;
  int64_t n = cg_space_size(&cg_fused_template);
  for (int64_t i = first; i < n; i += 2) {
    cg_schedule s;
    cg_space_point(&cg_fused_template, i, &s);
    vkml_status st = cg_schedule_check(&cg_fused_template, &s, t);
    if (st) {
      cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
      vkml_status_free(st);
      continue;
    }
    check(&e, &PROGS[0], &SHAPES[4], IR_F32, &s, 7u * (uint64_t)i);
  }
  vt_env_close(&e);
}

Test(vk_fused, every_point_f32_even) { every_point(0); }
Test(vk_fused, every_point_f32_odd) { every_point(1); }
