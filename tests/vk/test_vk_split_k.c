/* pass_split_k's products on the device: graphs compiled as vkc compiles
 * them with a split factor given (--split-k N: the rule itself is for
 * discrete GPUs, tests/passes/test_pass_split_k.c covers it), run on the
 * GPU, against the CPU reference on the unsplit graph. Random non-zero
 * inputs in [-1, 1); fp32 within 1e-5 of the largest output (the partial
 * sums only reorder the k terms), fp16 within 4e-3 (one more f16 rounding
 * per partial). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "driver/driver.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

/* A constant of random values in [-scale, scale) named name. */
static ir_value *random_const(ir_graph *g, const char *name, int rank, const int64_t *dims,
                              uint64_t seed, double scale) {
  t_rng r = t_rng_make(seed);
  rt_tensor t = t_tensor_random(&r, IR_F32, rank, dims, -scale, scale);
  ir_type ty = ir_type_make(IR_F32, rank, dims);
  ir_value *v;
  T_OK(ir_const_create_inline(g, name, &ty, t.data, &v));
  rt_tensor_free(&t);
  return v;
}

/* A linear layer on a sequence: x f32[1,m,k] . w [k,n] + b (a matmul and
 * an add, which fuse_bias makes one gemm); with gemm, x [m,k] and one gemm
 * node of w [n,k] (trans_b), b and gelu. */
static ir_graph *product_graph(int64_t m, int64_t k, int64_t n, bool gemm) {
  ir_graph *g;
  T_OK(ir_graph_create("g", &g));
  ir_type xt = gemm ? ir_type_make(IR_F32, 2, (int64_t[]){m, k})
                    : ir_type_make(IR_F32, 3, (int64_t[]){1, m, k});
  ir_type yt = gemm ? ir_type_make(IR_F32, 2, (int64_t[]){m, n})
                    : ir_type_make(IR_F32, 3, (int64_t[]){1, m, n});
  ir_value *x, *t, *y;
  T_OK(ir_value_create(g, "x", &xt, &x));
  T_OK(ir_graph_add_input(g, x));
  ir_value *w = random_const(g, "w", 2, gemm ? (int64_t[]){n, k} : (int64_t[]){k, n}, 5, 0.1);
  ir_value *b = random_const(g, "b", 1, (int64_t[]){n}, 6, 0.5);
  T_OK(ir_value_create(g, "y", &yt, &y));
  ir_node *nd;
  if (gemm) {
    ir_value *ins[3] = {x, w, b};
    T_OK(ir_node_create(g, IR_OP_GEMM, ins, 3, &y, 1, &nd));
    T_OK(ir_node_set_int(g, nd, IR_A_TRANS_B, 1));
    T_OK(ir_node_set_enum(g, nd, IR_A_ACT, IR_ACT_GELU));
  } else {
    T_OK(ir_value_create(g, "t", &yt, &t));
    ir_value *ins[2] = {x, w};
    T_OK(ir_node_create(g, IR_OP_MATMUL, ins, 2, &t, 1, &nd));
    ins[0] = t, ins[1] = b;
    T_OK(ir_node_create(g, IR_OP_ADD, ins, 2, &y, 1, &nd));
  }
  T_OK(ir_graph_add_output(g, y));
  T_OK(ir_verify(g, "split_k test"));
  return g;
}

/* The graph compiled with factor f in precision prec; every step on the
 * GPU; returns the number of steps whose kernel key has a matmul of f
 * partial products; outputs compared with the CPU on the unsplit graph. */
static int run_split(const vt_env *e, int64_t m, int64_t k, int64_t n, bool gemm, int64_t f,
                     ir_precision prec, double tol, uint64_t seed) {
  ir_graph *ref = product_graph(m, k, n, gemm), *g;
  T_OK(ir_graph_clone(ref, &g));
  drv_opts o = {.precision = prec, .compiler = e->cc, .split_k_factor = (int)f};
  ir_plan *p;
  T_OK(drv_compile_graph(&g, e->t, &o, NULL, &p));
  char part[48];
  snprintf(part, sizeof part, "matmul(f%d[%lld,%lld,%lld]", prec == IR_PRECISION_FP16 ? 16 : 32,
           (long long)f, (long long)m, (long long)(k / f));
  int parts = 0;
  for (int i = 0; i < p->n_steps; i++) {
    const char *key = ir_plan_str(p, p->steps[i].key);
    cr_assert_eq(p->steps[i].device, IR_DEVICE_GPU, "step %d (%s) is not on the GPU", i, key);
    parts += strstr(key, part) != NULL;
  }
  t_rng r = t_rng_make(seed);
  const ir_type *it = &ref->inputs[0]->type;
  rt_tensor in = t_tensor_random(&r, it->dtype, it->rank, it->dims, -1, 1), got, want;
  T_OK(rt_cpu_run_graph(ref, &in, 1, &want, 1));
  vt_exec_once(e, p, &in, 1, &got, 1);
  cr_assert_eq(got.rank, want.rank);
  double worst = 0, ymax = 0;
  for (int64_t i = 0; i < rt_tensor_numel(&want); i++) {
    double a = rt_load_f(&want, i), b = rt_load_f(&got, i);
    cr_assert(isfinite(b), "element %lld is %g", (long long)i, b);
    worst = fmax(worst, fabs(a - b));
    ymax = fmax(ymax, fabs(a));
  }
  cr_assert_leq(worst, tol * ymax, "factor %lld: max |d| %g, max |y| %g", (long long)f, worst,
                ymax);
  rt_tensor_free(&in);
  rt_tensor_free(&got);
  rt_tensor_free(&want);
  ir_plan_destroy(p);
  ir_graph_destroy(ref);
  return parts;
}

/* 67x2048 by 2048x40 and 33x1024 by 1024x24: split in 2 and 4, fp32 and
 * fp16 (odd rows and columns: partial tiles in every part). */
Test(vk_split_k, products_fp32) {
  vt_env e;
  vt_env_open(&e);
  cr_assert_eq(run_split(&e, 67, 2048, 40, false, 2, IR_PRECISION_FP32, 1e-5, 1), 1);
  cr_assert_eq(run_split(&e, 67, 2048, 40, false, 4, IR_PRECISION_FP32, 1e-5, 2), 1);
  cr_assert_eq(run_split(&e, 33, 1024, 24, true, 2, IR_PRECISION_FP32, 1e-5, 3), 1);
  /* a k of 1024 in 4 parts is below the pass's floor (384): left whole */
  cr_assert_eq(run_split(&e, 33, 1024, 24, true, 4, IR_PRECISION_FP32, 1e-5, 4), 0);
  vt_env_close(&e);
}

Test(vk_split_k, products_fp16) {
  vt_env e;
  vt_env_open(&e);
  vt_env_skip_unless(&e, e.t->storage_16bit, "16-bit storage");
  cr_assert_eq(run_split(&e, 67, 2048, 40, false, 4, IR_PRECISION_FP16, 4e-3, 5), 1);
  cr_assert_eq(run_split(&e, 33, 1024, 24, true, 2, IR_PRECISION_FP16, 4e-3, 6), 1);
  vt_env_close(&e);
}
