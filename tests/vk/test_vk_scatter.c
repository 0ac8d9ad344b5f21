/* gather_nd, scatter_elements and scatter_nd on the GPU (lavapipe) against
 * the CPU reference kernels, exactly: every dtype the kernels take, every
 * reduction over duplicate indices (small integer values, so that float
 * sums and products are exact in any order), negative indices, batch_dims,
 * slices. Replace (none) gets distinct targets: ONNX leaves duplicates'
 * winner open, and the GPU keeps any one. Reductions on i64 stay on the
 * CPU (no 64-bit atomics asked of the device): placed there, named. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "ir/params.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

/* A random index in [0, dim), wrapped negative half of the time. */
static int64_t signed_index(t_rng *r, int64_t v, int64_t dim) {
  return t_rng_next(r) & 1 ? v - dim : v;
}

static void shuffle(t_rng *r, int64_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(t_rng_next(r) % (uint64_t)(i + 1)), t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* scatter_elements indices: distinct along each line of the axis (unique),
 * or anything in range (duplicates likely). */
static void elements_indices(t_rng *r, rt_tensor *ind, const ir_type *x, int axis, bool unique) {
  int64_t dim = x->dims[axis], n = rt_tensor_numel(ind), idx[IR_MAX_RANK], st[IR_MAX_RANK];
  cr_assert(!unique || ind->dims[axis] <= dim, "distinct targets need indices within data");
  int64_t *perm = malloc(sizeof *perm * (size_t)dim);
  rt_strides(ind->rank, ind->dims, st);
  for (int64_t i = 0; i < n; i++) {
    t_unflatten(i, ind->rank, ind->dims, idx);
    if (!unique) {
      rt_store_i(ind, i, signed_index(r, (int64_t)(t_rng_next(r) % (uint64_t)dim), dim));
      continue;
    }
    if (idx[axis]) continue;
    shuffle(r, perm, dim);
    for (int64_t a = 0; a < ind->dims[axis]; a++)
      rt_store_i(ind, i + a * st[axis], signed_index(r, perm[a], dim));
  }
  free(perm);
}

/* scatter_nd / gather_nd indices [.., k]: tuples over the k axes after
 * batch_dims, distinct per batch when unique. */
static void nd_indices(t_rng *r, rt_tensor *ind, const ir_type *x, int batch_dims, bool unique) {
  ir_type ti = rt_tensor_type(ind);
  ir_nd_params p;
  T_OK(ir_nd_params_get(x, &ti, batch_dims, &p));
  cr_assert(!unique || p.tuples <= p.batch_slices, "distinct targets need fewer tuples");
  int64_t *perm = malloc(sizeof *perm * (size_t)p.batch_slices);
  for (int64_t b = 0; b < p.batch; b++) {
    shuffle(r, perm, p.batch_slices);
    for (int64_t t = 0; t < p.tuples; t++) {
      int64_t s = unique ? perm[t] : (int64_t)(t_rng_next(r) % (uint64_t)p.batch_slices);
      for (int j = 0; j < p.k; j++) {
        int64_t c = s / p.strides[j] % p.dims[j];
        rt_store_i(ind, (b * p.tuples + t) * p.k + j, signed_index(r, c, p.dims[j]));
      }
    }
  }
  free(perm);
}

typedef struct scase {
  const char *text; /* the graph; inputs %x, %i (, %u) */
  bool unique;      /* distinct targets */
} scase;

static void run_case(const vt_env *e, const scase *c, uint64_t seed) {
  ir_graph *g = vt_parse(c->text);
  const ir_node *n = g->outputs[0]->producer;
  t_rng r = t_rng_make(seed);
  rt_tensor in[3];
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_type *t = &g->inputs[i]->type;
    in[i] = t_tensor_random(&r, t->dtype, t->rank, t->dims, t->dtype == IR_U8 ? 0 : -3,
                            t->dtype == IR_BOOL ? 1 : 3);
    /* small integers: exact sums and products in any order */
    for (int64_t k = 0; k < rt_tensor_numel(&in[i]) && ir_dtype_is_float(t->dtype); k++)
      rt_store_f(&in[i], k, (double)(int)rt_load_f(&in[i], k));
  }
  const ir_type *x = &g->inputs[0]->type;
  if (n->op == IR_OP_SCATTER_ELEMENTS) {
    int axis;
    T_OK(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), x->rank, &axis));
    elements_indices(&r, &in[1], x, axis, c->unique);
  } else {
    nd_indices(&r, &in[1], x, (int)ir_node_int(n, IR_A_BATCH_DIMS, 0), c->unique);
  }
  rt_tensor got[1], want[1];
  int hits = vt_run_all_gpu(e, c->text, n->op == IR_OP_GATHER_ND ? "gather_nd" : "scatter", in,
                            g->n_inputs, got, want, 1);
  cr_assert_eq(hits, 1, "%s", c->text);
  vt_assert_equal(got, want, 1);
  for (int i = 0; i < g->n_inputs; i++) rt_tensor_free(&in[i]);
  ir_graph_destroy(g);
}

#define G(sig, body) "vkir 1\ngraph @g(" sig ") {\n  " body "\n  return %y\n}\n"

Test(vk_scatter, gather_nd_matches_the_cpu) {
  static const scase cases[] = {
      {G("%x: f32[5,4,3], %i: i64[6,2]) -> (%y: f32[6,3]", "%y = gather_nd %x, %i : f32[6,3]"), 0},
      {G("%x: f16[3,4,5,2], %i: i32[3,2,2]) -> (%y: f16[3,2,2]",
         "%y = gather_nd %x, %i {batch_dims=1} : f16[3,2,2]"), 0},
      {G("%x: i64[7,3], %i: i64[4,1]) -> (%y: i64[4,3]", "%y = gather_nd %x, %i : i64[4,3]"), 0},
      {G("%x: bool[4,5], %i: i32[9,2]) -> (%y: bool[9]", "%y = gather_nd %x, %i : bool[9]"), 0},
      {G("%x: u8[2,3,4], %i: i64[2,3,5,1]) -> (%y: u8[2,3,5]",
         "%y = gather_nd %x, %i {batch_dims=2} : u8[2,3,5]"), 0},
      {G("%x: f32[40,30,8], %i: i64[500,3]) -> (%y: f32[500]", "%y = gather_nd %x, %i : f32[500]"), 0},
  };
  vt_env e;
  vt_env_open(&e);
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) run_case(&e, &cases[k], 10 + k);
  vt_env_close(&e);
}

static const char *const reds[] = {"none", "add", "mul", "max", "min"};

Test(vk_scatter, scatter_elements_every_reduction) {
  static const struct {
    const char *dt, *x, *i, *axis;
  } shapes[] = {
      {"f32", "[6,5]", "[4,5]", "0"},   {"f16", "[3,7,4]", "[2,5,3]", "1"},
      {"i32", "[100]", "[300]", "0"},   {"i8", "[4,9]", "[4,7]", "-1"},
      {"u8", "[10]", "[25]", "0"},      {"f32", "[2,33,65]", "[2,20,65]", "1"},
  };
  vt_env e;
  vt_env_open(&e);
  char text[512];
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int r = 0; r < 5; r++) {
      /* f16 products overflow past 2^16: add, max, min only */
      if (!strcmp(shapes[s].dt, "f16") && r == 2) continue;
      snprintf(text, sizeof text,
               "vkir 1\ngraph @g(%%x: %s%s, %%i: i64%s, %%u: %s%s) -> (%%y: %s%s) {\n"
               "  %%y = scatter_elements %%x, %%i, %%u {axis=%s, reduction=%s} : %s%s\n"
               "  return %%y\n}\n",
               shapes[s].dt, shapes[s].x, shapes[s].i, shapes[s].dt, shapes[s].i, shapes[s].dt,
               shapes[s].x, shapes[s].axis, reds[r], shapes[s].dt, shapes[s].x);
      scase c = {text, r == 0 && strcmp(shapes[s].i, "[300]") && strcmp(shapes[s].i, "[25]")};
      if (r == 0 && !c.unique) continue; /* more updates than targets: duplicates */
      run_case(&e, &c, 100 + s * 5 + (size_t)r);
    }
  static const scase more[] = {
      {G("%x: bool[8], %i: i32[5], %u: bool[5]) -> (%y: bool[8]",
         "%y = scatter_elements %x, %i, %u : bool[8]"), 1},
      {G("%x: i64[5,3], %i: i64[5,2], %u: i64[5,2]) -> (%y: i64[5,3]",
         "%y = scatter_elements %x, %i, %u {axis=1} : i64[5,3]"), 1},
  };
  for (size_t k = 0; k < sizeof more / sizeof *more; k++) run_case(&e, &more[k], 200 + k);
  vt_env_close(&e);
}

Test(vk_scatter, scatter_nd_every_reduction) {
  static const struct {
    const char *dt, *x, *i, *u;
  } shapes[] = {
      {"f32", "[5,4,3]", "[6,2]", "[6,3]"}, {"f16", "[10,6]", "[4,1]", "[4,6]"},
      {"i32", "[8]", "[20,1]", "[20]"},     {"u8", "[6,5]", "[7,1]", "[7,5]"},
      {"f32", "[64,16,9]", "[3,20,1]", "[3,20,16,9]"},
  };
  vt_env e;
  vt_env_open(&e);
  char text[512];
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int r = 0; r < 5; r++) {
      if (!strcmp(shapes[s].dt, "f16") && r == 2) continue;
      bool unique = r == 0;
      if (unique && !strcmp(shapes[s].i, "[20,1]")) continue; /* 20 tuples, 8 targets */
      if (unique && !strcmp(shapes[s].i, "[7,1]")) continue;
      snprintf(text, sizeof text,
               "vkir 1\ngraph @g(%%x: %s%s, %%i: i64%s, %%u: %s%s) -> (%%y: %s%s) {\n"
               "  %%y = scatter_nd %%x, %%i, %%u {reduction=%s} : %s%s\n  return %%y\n}\n",
               shapes[s].dt, shapes[s].x, shapes[s].i, shapes[s].dt, shapes[s].u, shapes[s].dt,
               shapes[s].x, reds[r], shapes[s].dt, shapes[s].x);
      scase c = {text, unique};
      run_case(&e, &c, 300 + s * 5 + (size_t)r);
    }
  static const scase i64 = {G("%x: i64[4,4], %i: i32[3,2], %u: i64[3]) -> (%y: i64[4,4]",
                              "%y = scatter_nd %x, %i, %u : i64[4,4]"), 1};
  run_case(&e, &i64, 400);
  vt_env_close(&e);
}

/* An i64 reduction: the kernel declines, the placement names why. */
Test(vk_scatter, i64_reductions_stay_on_the_cpu) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = vt_parse(G("%x: i64[5], %i: i64[3], %u: i64[3]) -> (%y: i64[5]",
                           "%y = scatter_elements %x, %i, %u {reduction=add} : i64[5]"));
  cg_kernel k;
  vkml_status s = cg_kernel_for_node(g->outputs[0]->producer, NULL, NULL, e.t, &k);
  t_expect_error(s, VKML_CODE_UNSUPPORTED, "needs 64-bit atomics");
  ir_graph_destroy(g);
  vt_env_close(&e);
}
