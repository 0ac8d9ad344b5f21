/* Concat and split along the channels in nc4hw4 (data_concat.comp's packed
 * paths) on the device (lavapipe, validation on) against the CPU reference
 * (rt_cpu_run_node on the same node in the default layout), random non-zero
 * inputs. The test packs the inputs itself, poisons every packed output
 * buffer (0x7f bytes), runs the kernel cg_kernel_for_node gives for the node
 * with every operand marked nc4hw4, unpacks the outputs, asserts every pad
 * lane (channel >= C) is exactly 0 (all bits) and compares the rest
 * bit-exactly (the kernels move bits):
 *   concat: 14 cases of 1..6 inputs (channel counts 3+5+2, 4+4, 64+64,
 *     1+7+2+6+3, a single input, 8+3, six 2s, 4+8+12+1, batch 2, 16 x 5,
 *     axis -3, 1x1 planes), f32 / f16 alternating: the texel copy (every
 *     part but the last a multiple of 4 channels) and the per-lane gather;
 *   split: 12 cases into 1..4 outputs, equal parts and split sizes, the
 *     same two paths;
 *   both: default schedule, plus 4 sampled points of each template's space
 *     (WG_SIZE x EPI x UNIT_BYTES) on 4 cases each (both paths, both types);
 *   which path ran is checked against the test's own alignment rule.
 * Without a device, cg_node_layout_operands against what cg_kernel_for_node
 * accepts: concat / split along axis 1 of rank-4 f32 / f16 values claim
 * every operand, instantiate packed (a key naming nc4hw4) and row-major (no
 * PACKED define: the default kernels are untouched), refuse a partly packed
 * node; other axes, ranks, types and more than 16 parts are not claimed and
 * packing them is refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/core.h"
#include "codegen/core/ops.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

#define NC4 IR_LAYOUT_NC4HW4
#define MAXP 17 /* parts a case may have (17: one past the packed limit) */

/* ---- harness -------------------------------------------------------------- */

typedef struct env {
  vt_env v;
  int n_run, n_texel, n_gather;
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

static void env_close(env *e) {
  cr_log_info("%d kernels (%d texel copies, %d lane gathers)", e->n_run, e->n_texel,
              e->n_gather);
  vt_env_close(&e->v);
}

static ir_dtype alt_dtype(const env *e, int i) {
  return (i % 2 && e->v.t->storage_16bit) ? IR_F16 : IR_F32;
}


static void assert_same_bytes(const rt_tensor *got, const rt_tensor *want, const char *what) {
  size_t bytes = rt_tensor_bytes(want), es = ir_dtype_size(want->dtype);
  cr_assert_eq(rt_tensor_bytes(got), bytes, "%s: %zu bytes, want %zu", what,
               rt_tensor_bytes(got), bytes);
  for (size_t i = 0; i < bytes; i++)
    if (((const unsigned char *)got->data)[i] != ((const unsigned char *)want->data)[i])
      cr_assert_fail("%s: element %zu differs (got %g, want %g)", what, i / es,
                     rt_load_f(got, (int64_t)(i / es)), rt_load_f(want, (int64_t)(i / es)));
}

static bool has_define(const cg_kernel *k, const char *name) {
  for (int i = 0; i < k->n_defines; i++)
    if (!strcmp(k->def_name[i], name)) return true;
  return false;
}

static void set_all(ir_node *n, ir_layout l) {
  for (int i = 0; i < n->n_inputs; i++) n->inputs[i]->layout = l;
  for (int i = 0; i < n->n_outputs; i++) n->outputs[i]->layout = l;
}

static uint32_t all_bits(const ir_node *n) {
  uint32_t m = 0;
  for (int i = 0; i < n->n_inputs; i++) m |= 1u << i;
  for (int i = 0; i < n->n_outputs; i++) m |= CG_LAYOUT_OUT(i);
  return m;
}

/* ---- cases -------------------------------------------------------------------- */

typedef struct ccase {
  int64_t n, h, w;
  int n_parts;
  int64_t c[MAXP]; /* channels of each part */
  int64_t axis;    /* the attribute (1 or -3) */
  bool sizes;      /* split: give the split attribute (else equal parts) */
} ccase;

static const ccase CONCAT[] = {
    {1, 4, 5, 3, {3, 5, 2}, 1, true},
    {1, 3, 3, 2, {4, 4}, 1, true},
    {1, 3, 3, 2, {64, 64}, 1, true},
    {1, 2, 3, 5, {1, 7, 2, 6, 3}, 1, true},
    {2, 3, 2, 1, {5}, 1, true},
    {1, 5, 3, 2, {8, 3}, 1, true},
    {1, 2, 2, 6, {2, 2, 2, 2, 2, 2}, 1, true},
    {1, 3, 4, 4, {4, 8, 12, 1}, 1, true},
    {2, 3, 3, 2, {3, 1}, 1, true},
    {2, 2, 5, 3, {6, 10, 16}, 1, true},
    {2, 3, 3, 5, {16, 16, 16, 16, 16}, 1, true},
    {1, 1, 1, 2, {1, 1}, 1, true},
    {1, 4, 4, 3, {7, 4, 9}, -3, true},
    {1, 7, 7, 2, {13, 20}, 1, true},
};
#define N_CONCAT ((int)(sizeof CONCAT / sizeof CONCAT[0]))

static const ccase SPLIT[] = {
    {1, 4, 5, 3, {3, 5, 2}, 1, true},
    {1, 3, 3, 2, {4, 4}, 1, false},
    {1, 3, 3, 2, {64, 64}, 1, false},
    {2, 3, 2, 2, {4, 8}, 1, true},
    {1, 3, 3, 3, {1, 7, 1}, 1, true},
    {1, 2, 3, 4, {4, 4, 4, 4}, 1, false},
    {1, 5, 2, 2, {2, 5}, 1, true},
    {1, 3, 3, 2, {8, 5}, 1, true},
    {2, 2, 3, 2, {3, 3}, 1, false},
    {1, 3, 2, 4, {1, 2, 3, 5}, -3, true},
    {1, 4, 4, 1, {6}, 1, true},
    {2, 3, 3, 3, {12, 12, 12}, 1, false},
};
#define N_SPLIT ((int)(sizeof SPLIT / sizeof SPLIT[0]))

static int64_t total_c(const ccase *c) {
  int64_t s = 0;
  for (int i = 0; i < c->n_parts; i++) s += c->c[i];
  return s;
}

/* Whether every part but the last starts and ends on texel boundaries. */
static bool texel_aligned(const ccase *c) {
  for (int i = 0; i + 1 < c->n_parts; i++)
    if (c->c[i] % 4) return false;
  return true;
}

/* t_node_make for up to MAXP inputs / outputs (t_node_make takes 16). */
static ir_node *node_make(ir_graph **g, ir_op op, const rt_tensor *in, int n_in,
                          const ir_type *out_types, int n_out) {
  T_OK(ir_graph_create("t", g));
  ir_value *ins[MAXP], *outs[MAXP];
  cr_assert(n_in <= MAXP && n_out <= MAXP);
  for (int i = 0; i < n_in; i++) {
    ir_type t = rt_tensor_type(&in[i]);
    T_OK(ir_value_create(*g, NULL, &t, &ins[i]));
    T_OK(ir_graph_add_input(*g, ins[i]));
  }
  for (int i = 0; i < n_out; i++) T_OK(ir_value_create(*g, NULL, &out_types[i], &outs[i]));
  ir_node *n;
  T_OK(ir_node_create(*g, op, ins, n_in, outs, n_out, &n));
  for (int i = 0; i < n_out; i++) T_OK(ir_graph_add_output(*g, outs[i]));
  return n;
}

/* The node: concat of the parts, or split of the whole into them; in[] the
 * node's inputs (random when r, zeros otherwise). */
static ir_node *case_node(ir_graph **g, bool split, const ccase *c, ir_dtype dt, t_rng *r,
                          rt_tensor *in) {
  ir_type outs[MAXP];
  int n_in = split ? 1 : c->n_parts, n_out = split ? c->n_parts : 1;
  for (int i = 0; i < n_in; i++) {
    int64_t d[4] = {c->n, split ? total_c(c) : c->c[i], c->h, c->w};
    in[i] = r ? t_tensor_random(r, dt, 4, d, -4, 4) : t_tensor_zeros(dt, 4, d);
  }
  for (int i = 0; i < n_out; i++) {
    int64_t d[4] = {c->n, split ? c->c[i] : total_c(c), c->h, c->w};
    outs[i] = ir_type_make(dt, 4, d);
  }
  ir_node *n = node_make(g, split ? IR_OP_SPLIT : IR_OP_CONCAT, in, n_in, outs, n_out);
  T_OK(ir_node_set_int(*g, n, IR_A_AXIS, c->axis));
  if (split && c->sizes) T_OK(ir_node_set_ints(*g, n, IR_A_SPLIT, c->c, c->n_parts));
  return n;
}

/* ---- on the device ------------------------------------------------------------- */

static void run_case(env *e, bool split, const ccase *c, ir_dtype dt, const cg_schedule *s,
                     uint64_t seed) {
  t_rng r = t_rng_make(seed);
  rt_tensor in[MAXP], want[MAXP], dev_in[MAXP], out[MAXP];
  const rt_tensor *dev_ins[MAXP];
  ir_graph *g;
  ir_node *n = case_node(&g, split, c, dt, &r, in);
  int n_in = n->n_inputs, n_out = n->n_outputs;

  /* the reference, row-major */
  const rt_tensor *ins[MAXP];
  rt_tensor *outs[MAXP];
  for (int i = 0; i < n_in; i++) ins[i] = &in[i];
  for (int i = 0; i < n_out; i++) {
    T_OK(rt_tensor_alloc(&n->outputs[i]->type, &want[i]));
    outs[i] = &want[i];
  }
  T_OK(rt_cpu_run_node(n, ins, n_in, outs, n_out));

  set_all(n, NC4);
  cr_assert_eq(cg_node_layout_operands(n, NC4), all_bits(n), "%s: mask %#x",
               ir_op_name(n->op), cg_node_layout_operands(n, NC4));
  cg_kernel k;
  const cg_template *st = s ? (split ? &cg_data_split_template : &cg_data_concat_template) : NULL;
  T_OK(cg_kernel_for_node(n, st, s, e->v.t, &k));
  cr_assert(strstr(k.key, "nc4hw4"), "key %s", k.key);
  bool gather = has_define(&k, "PACKED");
  cr_assert_eq(gather, !texel_aligned(c), "%s: lane gather %d, texel-aligned parts %d", k.key,
               gather, texel_aligned(c));
  e->n_texel += !gather;
  e->n_gather += gather;

  for (int i = 0; i < n_in; i++) dev_in[i] = vt_pack(&in[i]), dev_ins[i] = &dev_in[i];
  for (int i = 0; i < n_out; i++) out[i] = vt_poisoned_packed(&n->outputs[i]->type);
  vt_run_kernel_n(e->v.ctx, e->v.cc, &k, dev_ins, n_in, out, n_out);
  for (int i = 0; i < n_out; i++) {
    char what[600];
    snprintf(what, sizeof what, "%s output %d", k.key, i);
    rt_tensor got = vt_unpack(&out[i], &n->outputs[i]->type, what);
    assert_same_bytes(&got, &want[i], what);
    rt_tensor_free(&got);
  }
  e->n_run++;
  for (int i = 0; i < n_in; i++) rt_tensor_free(&in[i]), rt_tensor_free(&dev_in[i]);
  for (int i = 0; i < n_out; i++) rt_tensor_free(&want[i]), rt_tensor_free(&out[i]);
  ir_graph_destroy(g);
}

Test(vk_layout_concat, concat_default) {
  env e;
  env_open(&e);
  for (int i = 0; i < N_CONCAT; i++)
    run_case(&e, false, &CONCAT[i], alt_dtype(&e, i), NULL, 100 + (uint64_t)i);
  cr_assert(e.n_texel >= 5 && e.n_gather >= 5, "texel %d gather %d", e.n_texel, e.n_gather);
  env_close(&e);
}

Test(vk_layout_concat, split_default) {
  env e;
  env_open(&e);
  for (int i = 0; i < N_SPLIT; i++)
    run_case(&e, true, &SPLIT[i], alt_dtype(&e, i + 1), NULL, 200 + (uint64_t)i);
  cr_assert(e.n_texel >= 5 && e.n_gather >= 5, "texel %d gather %d", e.n_texel, e.n_gather);
  env_close(&e);
}

Test(vk_layout_concat, sampled_points) {
  env e;
  env_open(&e);
  /* both paths, both types: texel copies at every UNIT_BYTES, gathers */
  static const int cc[4] = {2, 0, 10, 3}, sc[4] = {2, 0, 5, 9};
  for (int f = 0; f < 2; f++) {
    const cg_template *tp = f ? &cg_data_split_template : &cg_data_concat_template;
    cg_schedule pts[4];
    int np = vt_sample_points(tp, e.v.t, 1, 7, 4, pts);
    cr_assert_eq(np, 4);
    for (int p = 0; p < np; p++)
      for (int j = 0; j < 4; j++) {
        const ccase *c = f ? &SPLIT[sc[(p + j) % 4]] : &CONCAT[cc[(p + j) % 4]];
        run_case(&e, f, c, alt_dtype(&e, p + j), &pts[p], 300 + (uint64_t)(16 * f + 4 * p + j));
      }
  }
  env_close(&e);
}

/* ---- the mask against the kernels, without a device ------------------------------- */

/* A claimed node: every operand in the mask, it instantiates row-major
 * (the untouched default kernel) and packed (another key, naming the
 * layout), and one operand less packed is refused. */
static void claimed(const ir_target *t, bool split, const ccase *c, ir_dtype dt) {
  rt_tensor in[MAXP];
  ir_graph *g;
  ir_node *n = case_node(&g, split, c, dt, NULL, in);
  for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
  uint32_t want = all_bits(n);
  cr_assert_eq(cg_node_layout_operands(n, NC4), want, "%s: mask %#x", ir_op_name(n->op),
               cg_node_layout_operands(n, NC4));
  cr_assert_eq(cg_node_layout_operands(n, IR_LAYOUT_DEFAULT), 0u);
  cr_assert_eq(cg_node_layout_operands(n, IR_LAYOUT_NHWC), 0u);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, t, &k));
  cr_assert(!has_define(&k, "PACKED") && !strstr(k.key, "nc4hw4"), "%s", k.key);
  char dkey[512];
  snprintf(dkey, sizeof dkey, "%s", k.key);
  set_all(n, NC4);
  T_OK(cg_kernel_for_node(n, NULL, NULL, t, &k));
  cr_assert(strstr(k.key, "nc4hw4") && strcmp(k.key, dkey), "key %s", k.key);
  for (int b = 0; b < 32; b++) {
    if (!((want >> b) & 1)) continue;
    set_all(n, NC4);
    ir_value *v = b < 16 ? n->inputs[b] : n->outputs[b - 16];
    v->layout = IR_LAYOUT_DEFAULT;
    t_expect_error(cg_kernel_for_node(n, NULL, NULL, t, &k), VKML_CODE_UNSUPPORTED,
                   "all packed or none");
  }
  ir_graph_destroy(g);
}

/* Not claimed: the mask is 0 and packing every operand is refused. */
static void not_claimed(const ir_target *t, ir_graph *g, ir_node *n) {
  cr_assert_eq(cg_node_layout_operands(n, NC4), 0u, "%s: mask %#x", ir_op_name(n->op),
               cg_node_layout_operands(n, NC4));
  set_all(n, NC4);
  cg_kernel k;
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, t, &k), VKML_CODE_UNSUPPORTED,
                 "in layout nc4hw4: this kernel reads the default layout only");
  ir_graph_destroy(g);
}

Test(vk_layout_concat, operands_mask_matches_kernels) {
  ir_target t;
  ir_target_minimum(&t);
  t.storage_16bit = true;
  for (int f = 0; f < 2; f++) {
    ir_dtype dt = f ? IR_F16 : IR_F32;
    for (int i = 0; i < N_CONCAT; i++) claimed(&t, false, &CONCAT[i], dt);
    for (int i = 0; i < N_SPLIT; i++) claimed(&t, true, &SPLIT[i], dt);
  }
  /* 16 parts: the most the mask holds */
  ccase many = {1, 2, 2, 16, {0}, 1, true};
  for (int i = 0; i < 16; i++) many.c[i] = 1 + i % 3;
  claimed(&t, false, &many, IR_F32);
  claimed(&t, true, &many, IR_F16);

  rt_tensor in[MAXP];
  ir_graph *g;
  ir_node *n;
  /* 17 parts */
  ccase more = many;
  more.n_parts = 17;
  more.c[16] = 4;
  for (int f = 0; f < 2; f++) {
    n = case_node(&g, f, &more, IR_F32, NULL, in);
    for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
    not_claimed(&t, g, n);
  }
  /* other axes: the types along axis 2 / 3 / 0 */
  static const int64_t axes[3] = {2, 3, 0};
  for (int a = 0; a < 3; a++)
    for (int f = 0; f < 2; f++) {
      int64_t ax = axes[a];
      int64_t d0[4] = {2, 4, 3, 5}, d1[4] = {2, 4, 3, 5}, dw[4] = {2, 4, 3, 5};
      d1[ax] = 3;
      dw[ax] += 3;
      rt_tensor x[2] = {t_tensor_zeros(IR_F32, 4, f ? dw : d0), t_tensor_zeros(IR_F32, 4, d1)};
      ir_type ot[2] = {ir_type_make(IR_F32, 4, d0), ir_type_make(IR_F32, 4, d1)};
      ir_type wt = ir_type_make(IR_F32, 4, dw);
      n = f ? t_node_make(&g, IR_OP_SPLIT, x, 1, ot, 2) : t_node_make(&g, IR_OP_CONCAT, x, 2, &wt, 1);
      T_OK(ir_node_set_int(g, n, IR_A_AXIS, ax));
      if (f) {
        int64_t sz[2] = {d0[ax], d1[ax]};
        T_OK(ir_node_set_ints(g, n, IR_A_SPLIT, sz, 2));
      }
      rt_tensor_free(&x[0]);
      rt_tensor_free(&x[1]);
      not_claimed(&t, g, n);
    }
  /* not float */
  n = case_node(&g, false, &CONCAT[0], IR_I32, NULL, in);
  for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
  not_claimed(&t, g, n);
  n = case_node(&g, true, &SPLIT[0], IR_I32, NULL, in);
  rt_tensor_free(&in[0]);
  not_claimed(&t, g, n);
  /* rank 3, axis 1 */
  {
    int64_t a[3] = {2, 3, 4}, b[3] = {2, 5, 4}, y[3] = {2, 8, 4};
    rt_tensor x[2] = {t_tensor_zeros(IR_F32, 3, a), t_tensor_zeros(IR_F32, 3, b)};
    ir_type yt = ir_type_make(IR_F32, 3, y);
    n = t_node_make(&g, IR_OP_CONCAT, x, 2, &yt, 1);
    T_OK(ir_node_set_int(g, n, IR_A_AXIS, 1));
    rt_tensor_free(&x[0]);
    rt_tensor_free(&x[1]);
    not_claimed(&t, g, n);
  }

  /* f16 parts on a device without 16-bit storage: the texel copy moves
   * 4-byte units, the lane gather needs 16-bit loads */
  t.storage_16bit = false;
  n = case_node(&g, false, &CONCAT[1], IR_F16, NULL, in); /* 4 + 4 */
  for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
  set_all(n, NC4);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
  ir_graph_destroy(g);
  n = case_node(&g, false, &CONCAT[0], IR_F16, NULL, in); /* 3 + 5 + 2 */
  for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
  set_all(n, NC4);
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "16-bit storage");
  ir_graph_destroy(g);
}
