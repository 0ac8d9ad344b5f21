/* cumsum on the GPU (glsl/scan.comp, codegen/kernels/cumsum.c) against the CPU
 * reference kernel on random non-zero inputs: f32, f16, i32, i64;
 * inclusive and exclusive, forward and reverse; every axis; lengths from 1
 * to 2^24 (non-powers of two, chunk edges, a row of 2^20 + 7); the serial,
 * blocked and tiled mappings; the default schedule and points of the space.
 * Integers match exactly (i64 sums cross 2^32: the kernel adds word pairs
 * with carry); floats within an error bound from the sum of magnitudes. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/core/templates.h"
#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

typedef struct scan_case {
  ir_dtype dt;
  int rank;
  int64_t dims[4];
  int axis;
  bool exclusive, reverse;
} scan_case;

static void set_attrs(ir_graph *g, ir_node *n, const scan_case *c) {
  T_OK(ir_node_set_int(g, n, IR_A_AXIS, c->axis));
  T_OK(ir_node_set_int(g, n, IR_A_EXCLUSIVE, c->exclusive));
  T_OK(ir_node_set_int(g, n, IR_A_REVERSE, c->reverse));
}

/* The reference on x and, for the error bound, on |x| (floats). */
static void reference(const scan_case *c, const rt_tensor *x, rt_tensor *want, rt_tensor *mag) {
  ir_graph *g;
  ir_type xt = rt_tensor_type(x);
  ir_node *n = t_node_make(&g, IR_OP_CUMSUM, x, 1, &xt, 1);
  set_attrs(g, n, c);
  T_OK(rt_tensor_alloc(&xt, want));
  T_OK(t_node_run(n, x, 1, want, 1));
  memset(mag, 0, sizeof *mag);
  if (ir_dtype_is_float(c->dt)) {
    ir_type ft = xt;
    ft.dtype = IR_F32;
    rt_tensor ax;
    T_OK(rt_tensor_alloc(&ft, &ax));
    for (int64_t i = 0; i < ir_type_numel(&ft); i++)
      rt_store_f(&ax, i, fabs(rt_load_f(x, i)));
    ir_graph *g2;
    ir_node *n2 = t_node_make(&g2, IR_OP_CUMSUM, &ax, 1, &ft, 1);
    set_attrs(g2, n2, c);
    scan_case nonexcl = *c;
    nonexcl.exclusive = false; /* the bound covers the element itself */
    set_attrs(g2, n2, &nonexcl);
    T_OK(rt_tensor_alloc(&ft, mag));
    T_OK(t_node_run(n2, &ax, 1, mag, 1));
    rt_tensor_free(&ax);
    ir_graph_destroy(g2);
  }
  ir_graph_destroy(g);
}

/* Runs c on the GPU with schedule s (NULL: default); false when s is not
 * valid on this device (UNSUPPORTED). */
static bool run_case(vt_env *e, const scan_case *c, const cg_schedule *s, const rt_tensor *x,
                     const rt_tensor *want, const rt_tensor *mag) {
  ir_graph *g;
  ir_type xt = rt_tensor_type(x);
  ir_node *n = t_node_make(&g, IR_OP_CUMSUM, x, 1, &xt, 1);
  set_attrs(g, n, c);
  cg_kernel k;
  vkml_status st = cg_kernel_for_node(n, s ? &cg_scan_template : NULL, s, e->t, &k);
  if (st && s && vkml_status_code(st) == VKML_CODE_UNSUPPORTED) {
    vkml_status_free(st);
    ir_graph_destroy(g);
    return false;
  }
  T_OK(st);
  rt_tensor got;
  vt_poisoned(&xt, 0x7f, &got);
  const rt_tensor *ins[1] = {x};
  vt_run_kernel(e->ctx, e->cc, &k, ins, 1, &got);
  int64_t numel = ir_type_numel(&xt);
  int64_t len = c->dims[c->axis];
  if (!ir_dtype_is_float(c->dt)) {
    cr_assert_eq(memcmp(got.data, want->data, rt_tensor_bytes(&got)), 0, "%s: integers differ",
                 k.key);
  } else {
    /* fp32 accumulation in another order than the reference's (double):
     * error <= (a few + sqrt(len)) * 2^-24 * sum|x|, plus the f16 rounding
     * of the result */
    double u = ldexp(1, -24), f16 = c->dt == IR_F16 ? ldexp(1, -11) : 0;
    double k_acc = 16 + 4 * sqrt((double)len);
    for (int64_t i = 0; i < numel; i++) {
      double gv = rt_load_f(&got, i), wv = rt_load_f(want, i), m = rt_load_f(mag, i);
      double tol = k_acc * u * m + f16 * fabs(wv) + ldexp(1, -24);
      cr_assert(fabs(gv - wv) <= tol, "%s: element %lld: %.9g, want %.9g (bound %.3g)", k.key,
                (long long)i, gv, wv, tol);
    }
  }
  rt_tensor_free(&got);
  ir_graph_destroy(g);
  return true;
}

static rt_tensor input_for(const scan_case *c, uint64_t seed) {
  t_rng r = t_rng_make(seed);
  bool fl = ir_dtype_is_float(c->dt);
  return t_tensor_random(&r, c->dt, c->rank, c->dims, fl ? -1 : -100, fl ? 1 : 100);
}

static void check(vt_env *e, const scan_case *c, const cg_schedule *s, uint64_t seed) {
  rt_tensor x = input_for(c, seed), want, mag;
  reference(c, &x, &want, &mag);
  run_case(e, c, s, &x, &want, &mag);
  rt_tensor_free(&x);
  rt_tensor_free(&want);
  rt_tensor_free(&mag);
}

static const ir_dtype DTYPES[4] = {IR_F32, IR_F16, IR_I32, IR_I64};

/* Shapes x axes, each with every dtype and flag combination in turn. */
Test(vk_scan, shapes_dtypes_and_flags) {
  vt_env e;
  vt_env_open(&e);
  const scan_case shapes[] = {
      {0, 1, {1}, 0, 0, 0},          {0, 1, {7}, 0, 0, 0},
      {0, 1, {33}, 0, 0, 0},         {0, 1, {512}, 0, 0, 0},
      {0, 1, {4099}, 0, 0, 0},       {0, 2, {3, 5000}, 1, 0, 0},
      {0, 2, {5000, 3}, 0, 0, 0},    {0, 2, {300, 257}, 0, 0, 0},
      {0, 4, {2, 3, 4, 5}, 1, 0, 0}, {0, 4, {2, 3, 40, 5}, 2, 0, 0},
      {0, 4, {2, 3, 4, 65}, 3, 0, 0}, {0, 2, {20000, 6}, 1, 0, 0},
      {0, 2, {64, 129}, 1, 0, 0},    {0, 3, {0, 5, 3}, 1, 0, 0},
      {0, 2, {3000, 45}, 0, 0, 0},   {0, 3, {2, 700, 40}, 1, 0, 0},
  };
  int n_shapes = (int)(sizeof shapes / sizeof *shapes), run = 0;
  for (int i = 0; i < n_shapes; i++)
    for (int f = 0; f < 4; f++) {
      scan_case c = shapes[i];
      c.dt = DTYPES[(i + f) % 4];
      if (c.dt == IR_F16 && !e.t->storage_16bit) c.dt = IR_F32;
      c.exclusive = f & 1;
      c.reverse = (f >> 1) & 1;
      check(&e, &c, NULL, 100 + (uint64_t)(i * 4 + f));
      run++;
    }
  cr_assert_eq(run, 4 * n_shapes);
  vt_env_close(&e);
}

/* Every knob value of the space on a contiguous and a strided workload
 * (points the device refuses are skipped; most are run). */
Test(vk_scan, schedule_points) {
  vt_env e;
  vt_env_open(&e);
  const scan_case cases[] = {
      {IR_F32, 2, {3, 3001}, 1, 1, 0},
      {IR_I64, 3, {4, 700, 3}, 1, 0, 1},
  };
  int64_t n = cg_space_size(&cg_scan_template);
  cr_assert_eq(n, 6 * 5 * 4);
  int ran = 0;
  for (int ci = 0; ci < 2; ci++) {
    rt_tensor x = input_for(&cases[ci], 7 + (uint64_t)ci), want, mag;
    reference(&cases[ci], &x, &want, &mag);
    for (int64_t p = ci; p < n; p += 3) { /* a third of the points per case */
      cg_schedule s;
      cg_space_point(&cg_scan_template, p, &s);
      ran += run_case(&e, &cases[ci], &s, &x, &want, &mag);
    }
    rt_tensor_free(&x);
    rt_tensor_free(&want);
    rt_tensor_free(&mag);
  }
  cr_assert_geq(ran, 40, "only %d points ran", ran);
  vt_env_close(&e);
}

/* i64 sums crossing 2^32 (and negative ones) match exactly. */
Test(vk_scan, i64_carries) {
  vt_env e;
  vt_env_open(&e);
  double v[600];
  for (int i = 0; i < 600; i++) v[i] = (i % 3 ? 3.0e9 : -1.0e9) + i;
  for (int blocked = 1; blocked <= 3; blocked++) { /* serial, blocked, tiled */
    scan_case c = {IR_I64, 2, {2, 300}, 1, blocked == 2, 0};
    rt_tensor x = t_tensor_from(IR_I64, 2, c.dims, v), want, mag;
    reference(&c, &x, &want, &mag);
    cg_schedule s = {{128, 4, blocked}};
    cr_assert(run_case(&e, &c, &s, &x, &want, &mag));
    rt_tensor_free(&x);
    rt_tensor_free(&want);
  }
  vt_env_close(&e);
}

/* Long rows: 2^20 + 7 floats in one row (blocked, 2049 chunks) and the
 * 2^24 end of the range in i32. */
Test(vk_scan, long_rows) {
  vt_env e;
  vt_env_open(&e);
  scan_case c = {IR_F32, 2, {1, (1 << 20) + 7}, 1, 0, 0};
  check(&e, &c, NULL, 11);
  scan_case d = {IR_I32, 1, {1 << 24}, 0, 1, 1};
  cg_schedule s = {{256, 16, 2}};
  check(&e, &d, &s, 12);
  vt_env_close(&e);
}

/* Kernel choices without a device: the mapping follows the shape, and
 * what the GPU cannot take is UNSUPPORTED (the node goes to the CPU). */
Test(vk_scan, mapping_and_refusals) {
  ir_target t;
  ir_target_minimum(&t);
  const struct {
    int rank;
    int64_t dims[3];
    int axis;
    uint32_t mapping; /* 0 serial, 1 blocked, 2 tiled */
  } m[] = {{1, {1000}, 0, 1},        /* one long contiguous row: blocked */
           {1, {20}, 0, 0},          /* short: serial */
           {2, {100000, 300}, 0, 2}, /* 300 long strided rows: tiles of 32 columns */
           {2, {300, 100000}, 0, 0}, /* 100000 strided rows: one invocation each */
           {2, {4, 300}, 0, 0},      /* rows of 4 */
           {2, {2000, 64}, 1, 1}};
  for (int i = 0; i < 6; i++) {
    ir_graph *g;
    int ranks[1] = {m[i].rank};
    int64_t dims[1][IR_MAX_RANK];
    memcpy(dims[0], m[i].dims, sizeof m[i].dims);
    ir_node *n = vt_type_node(&g, IR_OP_CUMSUM, IR_F32, 1, ranks, dims, m[i].rank, m[i].dims);
    T_OK(ir_node_set_int(g, n, IR_A_AXIS, m[i].axis));
    cg_kernel k;
    T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
    cr_assert_eq(vt_spec_of(&k, CG_SPEC_SCAN_MAPPING), m[i].mapping, "case %d", i);
    ir_graph_destroy(g);
  }
  /* u8 (and i8) stay on the CPU */
  ir_graph *g;
  int ranks[1] = {1};
  int64_t dims[1][IR_MAX_RANK] = {{8}};
  ir_node *n = vt_type_node(&g, IR_OP_CUMSUM, IR_U8, 1, ranks, dims, 1, dims[0]);
  cg_kernel k;
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED, "u8 is not");
  ir_graph_destroy(g);
}

/* Long rows of few: compiled as vkc compiles them, the pass pipeline
 * splits them into blocks (pass_split_scan), every step on the GPU; the run
 * matches the CPU reference on the unsplit graph (ints exactly). */
Test(vk_scan, split_rows_end_to_end) {
  vt_env e;
  vt_env_open(&e);
  const char *text =
      "vkir 1\n"
      "graph @long(%x: f32[1,100003], %i: i32[2,40000,3]) -> (%y: f32[1,100003], "
      "%j: i32[2,40000,3]) {\n"
      "  %y = cumsum %x {axis=1, exclusive=1, reverse=1} : f32[1,100003]\n"
      "  %j = cumsum %i {axis=1} : i32[2,40000,3]\n"
      "  return %y, %j\n"
      "}\n";
  t_rng r = t_rng_make(5);
  rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 2, (int64_t[]){1, 100003}, -1, 1),
                     t_tensor_random(&r, IR_I32, 3, (int64_t[]){2, 40000, 3}, -1000, 1000)};
  rt_tensor want[2], got[2];
  int n_scans = vt_run_all_gpu(&e, text, "cumsum(", in, 2, got, want, 2);
  /* per row: the blocks, the block totals (f32: and the exclusive blocks) */
  cr_assert_eq(n_scans, 5, "%d cumsum steps", n_scans);
  vt_assert_equal(&got[1], &want[1], 1);
  /* exclusive reverse: y[i] = sum of x[i+1..]; bound from sum |x| */
  double tail = 0, u = ldexp(1, -24);
  for (int64_t i = 100002; i >= 0; i--) {
    double g1 = rt_load_f(&got[0], i), w1 = rt_load_f(&want[0], i);
    cr_assert(fabs(g1 - w1) <= (16 + 4 * sqrt(100003.0)) * u * tail + 1e-7,
              "element %lld: %.9g, want %.9g", (long long)i, g1, w1);
    tail += fabs(rt_load_f(&in[0], i));
  }
  rt_tensor_free(&got[0]);
  rt_tensor_free(&want[0]);
  for (int i = 0; i < 2; i++) rt_tensor_free(&in[i]);
  vt_env_close(&e);
}

/* non_zero on the GPU: flags, the exclusive cumsum (split across
 * workgroups for 70000 elements), the write with the count read on the
 * device and the extent word; every dtype the kernel takes (NaN counts,
 * -0 does not; i64 non-zero in its high word only; bool, u8 and i8 read as
 * bytes), an empty tensor and one of all zeros; the positions equal the CPU
 * reference's on the unsplit graph. */
Test(vk_scan, nonzero_end_to_end) {
  vt_env e;
  vt_env_open(&e);
  static const struct {
    const char *type;
    ir_dtype dt;
    int rank;
    int64_t dims[3];
  } cases[] = {{"f32", IR_F32, 2, {3, 5000}}, {"i32", IR_I32, 1, {70000}},
               {"i64", IR_I64, 3, {2, 3, 4}}, {"bool", IR_BOOL, 2, {7, 9}},
               {"u8", IR_U8, 1, {13}},        {"i8", IR_I8, 2, {3, 3}},
               {"f16", IR_F16, 2, {4, 300}},  {"f32", IR_F32, 2, {5, 0}},
               {"i32", IR_I32, 1, {1}}};
  t_rng r = t_rng_make(31);
  for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
    if (cases[c].dt == IR_F16 && !e.t->storage_16bit) continue;
    char dims[64] = "", text[512];
    int64_t numel = 1;
    for (int d = 0; d < cases[c].rank; d++) {
      numel *= cases[c].dims[d];
      snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", d ? "," : "",
               (long long)cases[c].dims[d]);
    }
    snprintf(text, sizeof text,
             "vkir 1\ngraph @nz(%%x: %s[%s]) -> (%%y: i64[%d,<=%lld]) {\n"
             "  %%y = non_zero %%x : i64[%d,<=%lld]\n  return %%y\n}\n",
             cases[c].type, dims, cases[c].rank, (long long)numel, cases[c].rank,
             (long long)numel);
    rt_tensor x = t_tensor_zeros(cases[c].dt, cases[c].rank, cases[c].dims);
    for (int64_t i = 0; i < numel && c != 8; i++) {
      uint64_t k = t_rng_next(&r) % 4;
      if (cases[c].dt == IR_I64) rt_store_i(&x, i, k ? (int64_t)k << 40 : 0);
      else if (ir_dtype_is_float(cases[c].dt))
        rt_store_f(&x, i, i % 11 == 3 ? NAN : i % 11 == 5 ? -0.0 : (double)k - 1.5 * (k == 3));
      else rt_store_i(&x, i, k == 0 ? 0 : (int64_t)k);
    }
    rt_tensor got, want;
    vt_run_all_gpu(&e, text, NULL, &x, 1, &got, &want, 1);
    cr_assert(numel == 0 || c == 8 || want.dims[1] > 0, "case %u has non-zeros", c);
    vt_assert_equal(&got, &want, 1);
    rt_tensor_free(&x);
  }
  vt_env_close(&e);
}

/* shape of non_zero's bounded output on the GPU: the count from the extent
 * word, the static axis baked; the same as the CPU's, and a product of it
 * (the importer's Size) computed on the device as well. Every step runs on
 * the GPU. */
Test(vk_scan, shape_of_a_bounded_value) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @s(%x: f32[3,50]) -> (%s: i64[2], %n: i64[2,<=150]) {\n"
                     "  %n = non_zero %x : i64[2,<=150]\n"
                     "  %s = shape %n : i64[2]\n"
                     "  return %s, %n\n}\n";
  t_rng r = t_rng_make(5);
  int64_t d[2] = {3, 50};
  for (int round = 0; round < 2; round++) {
    rt_tensor x = t_tensor_zeros(IR_F32, 2, d);
    for (int64_t i = 0; i < 150; i++)
      rt_store_f(&x, i, round == 1 ? 0 : (double)(t_rng_next(&r) % 3));
    rt_tensor got[2], want[2];
    cr_assert_eq(vt_run_all_gpu(&e, text, "shape", &x, 1, got, want, 2), 1);
    cr_assert_eq(rt_load_i(&want[0], 0), 2);
    cr_assert_eq(rt_load_i(&want[0], 1), want[1].dims[1]);
    vt_assert_equal(got, want, 2);
    rt_tensor_free(&x);
  }
  vt_env_close(&e);
}

/* A bounded value made on the CPU (topk with a run-time k) and uploaded:
 * the upload writes its extent word, so shape on the GPU reads the size the
 * CPU produced (k = 3, then 7). */
Test(vk_scan, shape_after_an_upload) {
  vt_env e;
  vt_env_open(&e);
  const char *text = "vkir 1\n"
                     "graph @s(%x: f32[3,10], %k: i64[1]) -> (%s: i64[2]) {\n"
                     "  %v, %i = topk %x, %k {axis=1} : f32[3,<=10], i64[3,<=10]\n"
                     "  %s = shape %v : i64[2]\n"
                     "  return %s\n}\n";
  ir_plan *p = vt_compile(e.t, e.cc, vt_parse(text), NULL, IR_PRECISION_FP32);
  int shape_on_gpu = 0;
  for (int i = 0; i < p->n_steps; i++)
    shape_on_gpu += p->steps[i].device == IR_DEVICE_GPU &&
                    strstr(ir_plan_str(p, p->steps[i].key), "shape") != NULL;
  cr_assert_eq(shape_on_gpu, 1, "shape runs on the GPU");
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e.ctx, p, NULL, &x));
  t_rng r = t_rng_make(9);
  int64_t xd[2] = {3, 10}, one = 1;
  rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 2, xd, -1, 1), t_tensor_zeros(IR_I64, 1, &one)};
  for (int k = 3; k <= 7; k += 4) {
    rt_store_i(&in[1], 0, k);
    rt_tensor out;
    T_OK(rt_vk_exec_run(x, in, 2, &out, 1, NULL));
    cr_assert(rt_load_i(&out, 0) == 3 && rt_load_i(&out, 1) == k, "k %d: [%lld,%lld]", k,
              (long long)rt_load_i(&out, 0), (long long)rt_load_i(&out, 1));
    rt_tensor_free(&out);
  }
  for (int i = 0; i < 2; i++) rt_tensor_free(&in[i]);
  rt_vk_exec_destroy(x);
  ir_plan_destroy(p);
  vt_env_close(&e);
}
