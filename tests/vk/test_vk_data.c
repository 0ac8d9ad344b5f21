/* The data-movement GPU kernels (codegen/kernels/data_copy.c*.c: transpose, slice,
 * expand, tile, pad, concat, split, gather, gather_elements, resize) on the
 * device against the CPU reference (rt_cpu_run_node on the same node), on
 * random non-zero inputs: 20+ shape/attribute/dtype combinations per family,
 * with the default schedule (the family's own template choice), and for 4
 * sampled points of each template's space (data templates WG_SIZE/EPI/
 * UNIT_BYTES = 32/1/4, 1024/4/4, 64/8/8, 256/2/16; data_transpose TILE/ROWS
 * = 8/1, 16/4, 32/8, 32/32), each point on every fourth case (rotating, so
 * every case meets one point of each template).
 *
 * Copies move bits: outputs must equal the reference byte for byte (every
 * dtype: f32 f16 i32 i64 u8 bool). Resize linear and cubic interpolate in fp32:
 *   f32: |got - want| <= 1e-4 |want| + 1e-5 (inputs in [-4, 4): up to 16
 *        weighted taps may cancel, so a relative bound alone cannot hold for
 *        results near 0; fp32 rounding of weights, products and sums is a
 *        few 2^-24 of the sum of |taps| <= 4);
 *   f16: |got - want| <= 2^-10 |want| + 1e-5 (one f16 ulp: the shader rounds
 *        an fp32 value once, the reference a double; the same cancellation
 *        slack).
 * Gather indices out of range are clamped on the GPU (the reference fails):
 * checked against hand-worked values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"
#include "test_support.h"
#include "vk_test.h"

/* One node: input types (';'-separated), op, attributes (IR text), output
 * count (0 means 1). */
typedef struct dcase {
  const char *in, *op, *attrs;
  int n_out;
} dcase;

#define MAXB 32

typedef struct env {
  vt_env v;
  int n_checked, n_skipped;
  double max_err;
} env;

static void env_open(env *e) {
  memset(e, 0, sizeof *e);
  vt_env_open(&e->v);
}

/* Parses the case into a one-node graph; output types by shape inference. */
static ir_node *build(const dcase *c, ir_graph **g) {
  char types[MAXB][96], text[16384];
  int n_in = 0;
  for (const char *p = c->in; *p && n_in < MAXB;) {
    const char *q = strchr(p, ';');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    cr_assert(len < sizeof types[0]);
    memcpy(types[n_in], p, len);
    types[n_in++][len] = '\0';
    p = q ? q + 1 : p + len;
  }
  int n_out = c->n_out ? c->n_out : 1, len = 0;
  len += snprintf(text + len, sizeof text - (size_t)len, "vkir 1\ngraph @t(");
  for (int i = 0; i < n_in; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%%x%d: %s", i ? ", " : "", i,
                    types[i]);
  len += snprintf(text + len, sizeof text - (size_t)len, ") -> (");
  for (int i = 0; i < n_out; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%%y%d: %s", i ? ", " : "", i,
                    types[0]);
  len += snprintf(text + len, sizeof text - (size_t)len, ") {\n  ");
  for (int i = 0; i < n_out; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%%y%d", i ? ", " : "", i);
  len += snprintf(text + len, sizeof text - (size_t)len, " = %s", c->op);
  for (int i = 0; i < n_in; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%%x%d", i ? ", " : " ", i);
  len += snprintf(text + len, sizeof text - (size_t)len, " %s :", c->attrs);
  for (int i = 0; i < n_out; i++) /* placeholders: inference decides */
    len += snprintf(text + len, sizeof text - (size_t)len, "%s %s", i ? "," : "", types[0]);
  len += snprintf(text + len, sizeof text - (size_t)len, "\n  return");
  for (int i = 0; i < n_out; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s %%y%d", i ? "," : "", i);
  snprintf(text + len, sizeof text - (size_t)len, "\n}\n");
  T_OK(ir_parse(text, strlen(text), "case", g));
  ir_node *n = (*g)->first;
  ir_type out[MAXB];
  T_OK(ir_infer_node(n, out));
  for (int i = 0; i < n->n_outputs; i++) n->outputs[i]->type = out[i];
  return n;
}

/* Random inputs: floats non-zero in [-4, 4), other dtypes random bits
 * (bool 0/1), gather indices anywhere in [-dim, dim). */
static void make_inputs(const ir_node *n, t_rng *r, rt_tensor *in) {
  bool indices = n->op == IR_OP_GATHER || n->op == IR_OP_GATHER_ELEMENTS;
  for (int i = 0; i < n->n_inputs; i++) {
    ir_type t = n->inputs[i]->type;
    if (ir_dtype_is_float(t.dtype) || t.dtype == IR_BOOL) {
      in[i] = t_tensor_random(r, t.dtype, t.rank, t.dims, -4, 4);
      continue;
    }
    in[i] = t_tensor_zeros(t.dtype, t.rank, t.dims);
    int64_t cnt = rt_tensor_numel(&in[i]);
    if (indices && i == 1) {
      const ir_type *x = &n->inputs[0]->type;
      int64_t ax = ir_node_int(n, IR_A_AXIS, 0);
      int64_t dim = x->dims[ax < 0 ? ax + x->rank : ax];
      for (int64_t j = 0; j < cnt; j++)
        rt_store_i(&in[i], j, (int64_t)(t_rng_next(r) % (uint64_t)(2 * dim)) - dim);
      continue;
    }
    unsigned char *p = in[i].data;
    for (size_t j = 0; j < rt_tensor_bytes(&in[i]); j++) p[j] = (unsigned char)t_rng_next(r);
  }
}

static bool tolerant(const ir_node *n) {
  return n->op == IR_OP_RESIZE && ir_node_int(n, IR_A_RESIZE_MODE, 0) != IR_RESIZE_NEAREST;
}

/* Runs case c with schedule s of template st (both NULL: the family's
 * default choice) and compares with the CPU. */
static void check(env *e, const dcase *c, const cg_template *st, const cg_schedule *s,
                  uint64_t seed) {
  ir_graph *g;
  ir_node *n = build(c, &g);
  t_rng r = t_rng_make(seed);
  rt_tensor in[MAXB], want[MAXB], got[MAXB];
  make_inputs(n, &r, in);
  const rt_tensor *ins[MAXB];
  rt_tensor *outs[MAXB];
  for (int i = 0; i < n->n_inputs; i++) ins[i] = &in[i];
  for (int i = 0; i < n->n_outputs; i++) {
    T_OK(rt_tensor_alloc(&n->outputs[i]->type, &want[i]));
    vt_poisoned(&n->outputs[i]->type, 0x7f, &got[i]);
    outs[i] = &want[i];
  }
  T_OK(rt_cpu_run_node(n, ins, n->n_inputs, outs, n->n_outputs));

  const ir_target *t = e->v.t;
  cg_kernel k;
  vkml_status st_ = cg_kernel_for_node(n, st, s, t, &k);
  const char *msg = st_ ? vkml_status_message(st_) : "";
  if (vkml_status_code(st_) == VKML_CODE_UNSUPPORTED &&
      (((!t->storage_8bit || !t->storage_16bit) && strstr(msg, "storage")) ||
       (st == &cg_data_transpose_template && strstr(msg, "data_copy runs it")))) {
    /* declined for a missing storage feature, or not a true transpose */
    vkml_status_free(st_);
    e->n_skipped++;
  } else {
    T_OK(st_);
    vt_run_kernel_n(e->v.ctx, e->v.cc, &k, ins, n->n_inputs, got, n->n_outputs);
    char sched[64] = "default";
    if (s) cg_schedule_format(k.tmpl, s, sched, sizeof sched);
    for (int o = 0; o < n->n_outputs; o++) {
      int64_t cnt = rt_tensor_numel(&want[o]), bad = -1;
      size_t es = ir_dtype_size(want[o].dtype);
      for (int64_t i = 0; i < cnt && bad < 0; i++) {
        if (tolerant(n)) {
          double a = rt_load_f(&got[o], i), b = rt_load_f(&want[o], i);
          double rtol = want[o].dtype == IR_F16 ? 1.0 / 1024 : 1e-4, err = fabs(a - b);
          if (b != 0 && err / fabs(b) > e->max_err) e->max_err = err / fabs(b);
          if (!(err <= 1e-5 + rtol * fabs(b))) bad = i;
        } else if (memcmp((char *)got[o].data + i * (int64_t)es,
                          (char *)want[o].data + i * (int64_t)es, es)) {
          bad = i;
        }
      }
      if (bad >= 0)
        cr_assert_fail("%s %s [%s] output %d element %lld of %lld: got %.9g want %.9g", k.key,
                       k.tmpl->name, sched, o, (long long)bad, (long long)cnt,
                       rt_load_f(&got[o], bad), rt_load_f(&want[o], bad));
    }
    e->n_checked++;
  }
  for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
  for (int i = 0; i < n->n_outputs; i++) rt_tensor_free(&want[i]), rt_tensor_free(&got[i]);
  ir_graph_destroy(g);
}

/* The sampled points, as indices of each template's space (mixed radix,
 * first knob fastest): the shared data space WG_SIZE x EPI x UNIT_BYTES,
 * and data_transpose's TILE x ROWS (8x1, 16x4, 32x8, 32x32). */
static const int SAMPLE[] = {0, 17, 43, 57};
static const int SAMPLE_TRANSPOSE[] = {0, 7, 11, 17};

/* Every case with the default schedule, or each sampled point of every
 * template in tmpls (NULL-terminated) on every fourth case (rotating, so
 * every case meets one point of each template). */
static void run_cases(const dcase *cases, int n, const cg_template *const *tmpls, bool sampled) {
  env e;
  env_open(&e);
  if (!sampled) {
    for (int c = 0; c < n; c++) check(&e, &cases[c], NULL, NULL, 100u + (uint64_t)c);
  } else {
    const ir_target *t = e.v.t;
    for (int m = 0; tmpls[m]; m++) {
      const cg_template *tm = tmpls[m];
      const int *pts = tm == &cg_data_transpose_template ? SAMPLE_TRANSPOSE : SAMPLE;
      for (int j = 0; j < 4; j++) {
        cg_schedule s;
        cg_space_point(tm, pts[j], &s);
        vkml_status st = cg_schedule_check(tm, &s, t);
        if (st) { /* a point this device cannot run must say so */
          cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
          vkml_status_free(st);
          continue;
        }
        for (int c = j; c < n; c += 4)
          check(&e, &cases[c], tm, &s, 7000u + 31u * (uint64_t)c + (uint64_t)j);
      }
    }
  }
  cr_log_info("%d checked, %d skipped (missing storage feature or not a true transpose), "
              "max rel err %.3g", e.n_checked, e.n_skipped, e.max_err);
  cr_assert(e.n_checked >= n * 3 / 4, "too few cases ran");
  vt_env_close(&e.v);
}

#define N_OF(a) ((int)(sizeof a / sizeof a[0]))
#define FAMILY(name, cases, ...)                                               \
  Test(vk_data, name##_default) { run_cases(cases, N_OF(cases), NULL, false); } \
  Test(vk_data, name##_sampled) {                                              \
    static const cg_template *const tmpls[] = {__VA_ARGS__, NULL};             \
    run_cases(cases, N_OF(cases), tmpls, true);                                \
  }

/* ---- cases ------------------------------------------------------------------ */

static const dcase TRANSPOSE[] = {
    {"f32[2,3]", "transpose", "", 0},
    {"f32[2,3,4]", "transpose", "{perm=[2,0,1]}", 0},
    {"f16[2,3,4]", "transpose", "{perm=[1,0,2]}", 0},
    {"i64[3,5,7]", "transpose", "{perm=[0,2,1]}", 0},
    {"u8[4,6,8]", "transpose", "{perm=[2,1,0]}", 0},
    {"f32[1,64,7,7]", "transpose", "{perm=[0,2,3,1]}", 0},
    {"f16[1,7,7,33]", "transpose", "{perm=[0,3,1,2]}", 0},
    {"f32[5]", "transpose", "{perm=[0]}", 0},
    {"f32[]", "transpose", "", 0},
    {"i32[2,1,3,1,5]", "transpose", "{perm=[4,3,2,1,0]}", 0},
    {"f32[2,3,4,5,6,7]", "transpose", "{perm=[5,4,3,2,1,0]}", 0},
    {"f32[2,2,2,2,2,2,2,3]", "transpose", "{perm=[7,0,6,1,5,2,4,3]}", 0},
    {"bool[3,4,5]", "transpose", "{perm=[1,2,0]}", 0},
    {"f16[8,16,3]", "transpose", "{perm=[1,0,2]}", 0},
    {"f32[128,130]", "transpose", "{perm=[1,0]}", 0},
    {"f32[3,4,5,6]", "transpose", "{perm=[0,1,3,2]}", 0},
    {"i64[6,4]", "transpose", "{perm=[1,0]}", 0},
    {"f16[2,3,4,8]", "transpose", "{perm=[0,2,1,3]}", 0},
    {"f32[1,3,1,5]", "transpose", "{perm=[3,2,1,0]}", 0},
    {"u8[7,9]", "transpose", "{perm=[1,0]}", 0},
    {"f32[16,16,16]", "transpose", "{perm=[2,1,0]}", 0},
    {"i32[4,8,8,16]", "transpose", "{perm=[2,3,0,1]}", 0},
    /* 16-bit true transposes: pairs moved as words where every offset is even */
    {"f16[4,32,48]", "transpose", "{perm=[0,2,1]}", 0},
    {"f16[2,6,10,4]", "transpose", "{perm=[0,3,1,2]}", 0},
    {"f16[3,10,12]", "transpose", "{perm=[0,2,1]}", 0},
    {"f16[40,17]", "transpose", "", 0},
};

static const dcase SLICE[] = {
    {"f32[5,6]", "slice", "{starts=[1,0], ends=[4,6]}", 0},
    {"f32[5,6]", "slice", "{starts=[-1], ends=[-7], axes=[1], steps=[-2]}", 0},
    {"f32[5,6]", "slice", "{starts=[0], ends=[9223372036854775807], axes=[0], steps=[2]}", 0},
    {"f16[4,10]", "slice", "{starts=[0,2], ends=[4,10]}", 0},
    {"i64[3,4,5]", "slice", "{starts=[1,1,1], ends=[3,4,5]}", 0},
    {"u8[8,12]", "slice", "{starts=[0,4], ends=[8,12]}", 0},
    {"u8[5,7]", "slice", "{starts=[1], ends=[4], axes=[1]}", 0},
    {"f32[10]", "slice", "{starts=[9], ends=[-11], steps=[-1]}", 0},
    {"f32[2,3,4,5]", "slice", "{starts=[0,0,0,0], ends=[2,3,4,5]}", 0},
    {"f32[6,7,8]", "slice", "{starts=[5,6,7], ends=[-100,-100,-100], steps=[-2,-3,-4]}", 0},
    {"f16[1,16,9,9]", "slice", "{starts=[0,0], ends=[16,9], axes=[1,3], steps=[2,3]}", 0},
    {"i32[20]", "slice", "{starts=[3], ends=[17], steps=[5]}", 0},
    {"f32[4,4]", "slice", "{starts=[2], ends=[2], axes=[0]}", 0},
    {"bool[3,4,5]", "slice", "{starts=[-2], ends=[100], axes=[-1]}", 0},
    {"f32[3,8,8]", "slice", "{starts=[0,0,4], ends=[3,8,8]}", 0},
    {"f16[2,5,6]", "slice", "{starts=[1], ends=[5], axes=[1]}", 0},
    {"i64[4,6]", "slice", "{starts=[3,5], ends=[0,0], steps=[-1,-2]}", 0},
    {"f32[1,3,224,224]", "slice", "{starts=[0,0,1,1], ends=[1,3,223,223]}", 0},
    {"f32[7,1,5]", "slice", "{starts=[0], ends=[1], axes=[1]}", 0},
    {"f32[2,3,4,5,6]", "slice", "{starts=[1,2], ends=[4,6], axes=[-2,-1], steps=[1,2]}", 0},
    {"f16[9,9]", "slice", "{starts=[8,8], ends=[-10,-10], steps=[-3,-3]}", 0},
    {"i32[4,5,6,7]", "slice", "{starts=[1,1,1,1], ends=[3,4,5,6], steps=[1,2,3,1]}", 0},
};

static const dcase EXPAND[] = {
    {"f32[3,1]", "expand", "{shape=[3,4]}", 0},
    {"f32[1]", "expand", "{shape=[2,3]}", 0},
    {"f16[4]", "expand", "{shape=[3,1]}", 0},
    {"f32[2,1,3]", "expand", "{shape=[2,4,3]}", 0},
    {"i64[1,5]", "expand", "{shape=[4,3,5]}", 0},
    {"u8[3,1]", "expand", "{shape=[2,3,8]}", 0},
    {"bool[1,1]", "expand", "{shape=[3,5]}", 0},
    {"f32[]", "expand", "{shape=[2,3]}", 0},
    {"f32[2,3]", "expand", "{shape=[2,3]}", 0},
    {"f16[1,16,1,1]", "expand", "{shape=[2,16,7,7]}", 0},
    {"f32[5,1,1]", "expand", "{shape=[5,3,4]}", 0},
    {"i32[1,4,1]", "expand", "{shape=[3,4,5]}", 0},
    {"f32[3]", "expand", "{shape=[1]}", 0},
    {"f16[2,1,8]", "expand", "{shape=[2,6,8]}", 0},
    {"f32[7,1]", "expand", "{shape=[7,0]}", 0},
    {"i64[3,1,2]", "expand", "{shape=[3,5,2]}", 0},
    {"f32[1,1,1,1,1,6]", "expand", "{shape=[2,1,3,1,2,6]}", 0},
    {"f32[4,1,4]", "expand", "{shape=[4,4,4]}", 0},
    {"u8[1,8]", "expand", "{shape=[5,8]}", 0},
    {"f32[64,1]", "expand", "{shape=[64,130]}", 0},
};

static const dcase TILE[] = {
    {"f32[2,3]", "tile", "{repeats=[2,2]}", 0},
    {"f32[3]", "tile", "{repeats=[4]}", 0},
    {"f16[2,3]", "tile", "{repeats=[1,3]}", 0},
    {"i64[2,2,2]", "tile", "{repeats=[2,1,3]}", 0},
    {"u8[3,4]", "tile", "{repeats=[2,2]}", 0},
    {"bool[2,5]", "tile", "{repeats=[3,1]}", 0},
    {"f32[1,3,1]", "tile", "{repeats=[2,1,5]}", 0},
    {"f32[4,4]", "tile", "{repeats=[1,1]}", 0},
    {"f16[2,8]", "tile", "{repeats=[3,2]}", 0},
    {"f32[5,7]", "tile", "{repeats=[1,3]}", 0},
    {"i32[2,3,4,5]", "tile", "{repeats=[1,2,1,2]}", 0},
    {"f32[3,4]", "tile", "{repeats=[0,2]}", 0},
    {"f32[1,1]", "tile", "{repeats=[7,9]}", 0},
    {"f16[3]", "tile", "{repeats=[5]}", 0},
    {"f32[2,2,2,2,2]", "tile", "{repeats=[2,1,2,1,2]}", 0},
    {"i64[5]", "tile", "{repeats=[3]}", 0},
    {"f32[16,3]", "tile", "{repeats=[2,4]}", 0},
    {"f32[2,3,1]", "tile", "{repeats=[1,1,4]}", 0},
    {"u8[4,8]", "tile", "{repeats=[2,1]}", 0},
    {"f32[3,2,5]", "tile", "{repeats=[2,3,1]}", 0},
};

static const dcase PAD[] = {
    {"f32[5,6]", "pad", "{pads=[1,2,0,1], mode=reflect}", 0},
    {"f32[5,6]", "pad", "{pads=[0,-1,0,-1], mode=constant, value=1.5}", 0},
    {"f32[5,6]", "pad", "{pads=[2,0,0,0], mode=edge}", 0},
    {"f32[1,3,4,5]", "pad", "{pads=[0,0,1,1,0,0,1,1]}", 0},
    {"f16[1,3,4,5]", "pad", "{pads=[0,0,2,2,0,0,2,2], mode=reflect}", 0},
    {"f16[2,3,7]", "pad", "{pads=[0,0,3,0,0,3], mode=edge}", 0},
    {"i64[3,4]", "pad", "{pads=[1,1,1,1], value=-2.7}", 0},
    {"u8[4,4]", "pad", "{pads=[0,1,0,1], value=300}", 0},
    {"bool[3,3]", "pad", "{pads=[1,0,0,1], value=0.5}", 0},
    {"i32[6]", "pad", "{pads=[2,3], mode=reflect}", 0},
    {"f32[9]", "pad", "{pads=[7,8], mode=reflect}", 0},
    {"f32[4,5]", "pad", "{pads=[-1,-2,-1,-2], mode=edge}", 0},
    {"f32[1,2,3,4]", "pad", "{pads=[0,0,0,0,0,0,0,0]}", 0},
    {"f16[2,8]", "pad", "{pads=[0,8,0,8], value=-1}", 0},
    {"f32[2,3,4]", "pad", "{pads=[1,0,0,1,0,0], mode=reflect}", 0},
    {"f32[3,4]", "pad", "{pads=[0,2,0,-3], mode=reflect}", 0},
    {"f32[2,0,3]", "pad", "{pads=[0,1,0,0,1,0], value=2.5}", 0},
    {"f16[1,1,5,5]", "pad", "{pads=[0,0,1,2,0,0,3,4], mode=edge}", 0},
    {"f32[4,4]", "pad", "{pads=[3,3,3,3], mode=reflect}", 0},
    {"i64[2,3]", "pad", "{pads=[0,1,0,1], mode=edge}", 0},
    {"f32[1,16,15,15]", "pad", "{pads=[0,0,1,1,0,0,1,1], mode=reflect}", 0},
    {"f32[5]", "pad", "{pads=[-2,-2]}", 0},
    {"f16[3,4]", "pad", "{pads=[-1,1,2,-2], mode=reflect}", 0},
    {"f32[2,4]", "pad", "{pads=[0,4,0,4], value=-3}", 0},
};

static const dcase CONCAT[] = {
    {"f32[2,3];f32[2,4]", "concat", "{axis=1}", 0},
    {"f32[2,3];f32[5,3]", "concat", "{axis=0}", 0},
    {"f16[1,3,4,4];f16[1,5,4,4]", "concat", "{axis=1}", 0},
    {"f32[2,3,4];f32[2,3,4];f32[2,3,4]", "concat", "{axis=-1}", 0},
    {"i64[3,2];i64[3,1];i64[3,4]", "concat", "{axis=1}", 0},
    {"u8[2,4];u8[2,8]", "concat", "{axis=1}", 0},
    {"u8[3,3];u8[3,2]", "concat", "{axis=1}", 0},
    {"bool[2,2];bool[2,2]", "concat", "{axis=0}", 0},
    {"f32[4]", "concat", "{axis=0}", 0},
    {"f32[2,0,3];f32[2,4,3]", "concat", "{axis=1}", 0},
    {"f16[2,3];f16[2,5];f16[2,1];f16[2,7]", "concat", "{axis=1}", 0},
    {"i32[1,2,3];i32[1,2,3]", "concat", "{axis=0}", 0},
    {"f32[1,16,7,7];f32[1,16,7,7];f32[1,8,7,7];f32[1,24,7,7]", "concat", "{axis=1}", 0},
    {"f32[3,5];f32[3,5];f32[3,5];f32[3,5];f32[3,5];f32[3,5];f32[3,5];f32[3,5]", "concat",
     "{axis=0}", 0},
    {"f32[2,1,3];f32[2,1,3];f32[2,1,3];f32[2,2,3];f32[2,1,3];f32[2,1,3];f32[2,3,3];"
     "f32[2,1,3];f32[2,1,3];f32[2,1,3];f32[2,1,3];f32[2,1,3]",
     "concat", "{axis=1}", 0},
    {"f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];"
     "f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];"
     "f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];f16[1,2];"
     "f16[1,2];f16[1,2];f16[1,2];f16[1,3]",
     "concat", "{axis=1}", 0},
    {"f32[2,3,4];f32[2,3,6]", "concat", "{axis=2}", 0},
    {"i64[5];i64[0];i64[3]", "concat", "{axis=0}", 0},
    {"f16[4,6,2];f16[4,6,2]", "concat", "{axis=-2}", 0},
    {"f32[6,1000];f32[6,24]", "concat", "{axis=1}", 0},
};

static const dcase SPLIT[] = {
    {"f32[6,4]", "split", "", 3},
    {"f32[9,6]", "split", "{axis=-1, split=[1,2,3]}", 3},
    {"f32[5]", "split", "{split=[0,5]}", 2},
    {"f16[1,8,4,4]", "split", "{axis=1, split=[2,6]}", 2},
    {"i64[4,6]", "split", "{axis=1}", 3},
    {"u8[2,12]", "split", "{axis=1, split=[4,8]}", 2},
    {"u8[3,5]", "split", "{axis=1, split=[2,3]}", 2},
    {"bool[4,2]", "split", "", 2},
    {"f32[7,3]", "split", "{split=[7]}", 1},
    {"f16[2,10]", "split", "{axis=1, split=[1,2,3,4]}", 4},
    {"i32[3,4,5]", "split", "{axis=2, split=[2,3]}", 2},
    {"f32[8,3,2]", "split", "", 8},
    {"f32[1,64,7,7]", "split", "{axis=1}", 4},
    {"f32[2,1,6]", "split", "{axis=2}", 6},
    {"f32[20,2]", "split", "", 20},
    {"f16[4,4,4]", "split", "{split=[1,1,2]}", 3},
    {"i64[6]", "split", "{split=[3,0,3]}", 3},
    {"f32[3,1000]", "split", "{axis=1, split=[500,500]}", 2},
    {"f32[2,3,4,5]", "split", "{axis=-2, split=[1,3]}", 2},
    {"f16[6,6]", "split", "{split=[2,2,2]}", 3},
};

static const dcase GATHER[] = {
    {"f32[5,4,3];i64[2,2]", "gather", "{axis=1}", 0},
    {"f32[5,4,3];i32[3]", "gather", "", 0},
    {"f32[5,4,3];i64[]", "gather", "{axis=-2}", 0},
    {"f16[10,8];i64[4]", "gather", "", 0},
    {"f16[10,7];i32[3,2]", "gather", "{axis=1}", 0},
    {"i64[6,5];i32[7]", "gather", "{axis=1}", 0},
    {"u8[6,4];i64[3]", "gather", "", 0},
    {"bool[5,3];i32[4]", "gather", "", 0},
    {"f32[1000,64];i64[1,20]", "gather", "", 0},
    {"i32[4,5,6];i64[2,3]", "gather", "{axis=2}", 0},
    {"f32[3];i64[5]", "gather", "", 0},
    {"f32[2,3,4,5];i32[6]", "gather", "{axis=1}", 0},
    {"f32[4,4];i64[0]", "gather", "", 0},
    {"f16[2,9,3];i64[2,2,2]", "gather", "{axis=1}", 0},
    {"f32[7,1,3];i32[4]", "gather", "{axis=1}", 0},
    {"f32[3,5,2];i64[5]", "gather", "{axis=-1}", 0},
    {"i64[8,2];i64[3,3]", "gather", "", 0},
    {"f32[6,6,6];i32[2]", "gather", "{axis=2}", 0},
    {"f16[32,16];i64[5]", "gather", "{axis=1}", 0},
    {"f32[2,2,2,2,2];i64[2]", "gather", "{axis=3}", 0},
    {"u8[5,5];i32[3]", "gather", "{axis=1}", 0},
    {"f32[100,3];i32[50]", "gather", "", 0},
};

static const dcase GATHER_ELEMENTS[] = {
    {"f32[3,4];i64[3,2]", "gather_elements", "{axis=1}", 0},
    {"f32[3,4];i32[2,4]", "gather_elements", "", 0},
    {"f16[2,3,4];i64[2,3,2]", "gather_elements", "{axis=2}", 0},
    {"i64[4,4];i64[4,4]", "gather_elements", "{axis=-1}", 0},
    {"u8[3,5];i32[3,5]", "gather_elements", "", 0},
    {"f32[5];i64[8]", "gather_elements", "", 0},
    {"f32[2,3,4,5];i32[2,3,4,5]", "gather_elements", "{axis=1}", 0},
    {"f32[2,3,4,5];i64[1,2,3,4]", "gather_elements", "{axis=3}", 0},
    {"bool[4,4];i64[2,4]", "gather_elements", "", 0},
    {"f16[6,8];i32[6,3]", "gather_elements", "{axis=1}", 0},
    {"f32[3,4];i64[3,0]", "gather_elements", "{axis=1}", 0},
    {"i32[7,7];i64[7,7]", "gather_elements", "", 0},
    {"f32[1,5,1];i64[1,3,1]", "gather_elements", "{axis=1}", 0},
    {"f32[4,6,8];i32[4,6,8]", "gather_elements", "{axis=2}", 0},
    {"f32[3,3,3];i64[3,3,1]", "gather_elements", "{axis=2}", 0},
    {"f16[10];i64[10]", "gather_elements", "", 0},
    {"f32[2,5,3];i32[2,5,3]", "gather_elements", "{axis=-2}", 0},
    {"i64[4,3];i32[4,3]", "gather_elements", "{axis=1}", 0},
    {"f32[64,64];i64[64,16]", "gather_elements", "{axis=1}", 0},
    {"f32[2,2,2,2,2,2];i64[2,2,2,2,2,2]", "gather_elements", "{axis=4}", 0},
};

#define CTM "coordinate_transformation_mode"
static const dcase RESIZE[] = {
    /* nearest */
    {"f32[1,3,4,6]", "resize", "{mode=nearest, scales=[1.0,1.0,2.0,1.5], " CTM "=asymmetric, nearest_mode=floor}", 0},
    {"f32[1,1,2,2]", "resize", "{scales=[1.0,1.0,2.0,2.0]}", 0},
    {"f32[1,1,4,4]", "resize", "{scales=[1.0,1.0,0.5,0.5]}", 0},
    {"f16[1,2,3,5]", "resize", "{sizes=[1,2,7,8], nearest_mode=round_prefer_ceil}", 0},
    {"i64[1,1,3,3]", "resize", "{scales=[1.0,1.0,3.0,3.0], " CTM "=align_corners, nearest_mode=ceil}", 0},
    {"u8[1,3,4,4]", "resize", "{scales=[1.0,1.0,2.0,2.0], " CTM "=asymmetric}", 0},
    {"f32[2,3,5,7]", "resize", "{sizes=[2,3,3,4], " CTM "=pytorch_half_pixel, nearest_mode=floor}", 0},
    {"f32[1,4,1,1]", "resize", "{sizes=[1,4,3,3], " CTM "=tf_half_pixel_for_nn}", 0},
    {"f32[1,2,6,6]", "resize", "{scales=[1.0,1.0,0.6,0.6]}", 0},
    {"f16[1,8,5,5]", "resize", "{scales=[1.0,1.0,1.7,2.3], " CTM "=tf_half_pixel_for_nn, nearest_mode=ceil}", 0},
    {"f32[3,4]", "resize", "{scales=[2.0,3.0]}", 0},
    {"f32[10]", "resize", "{sizes=[3], " CTM "=align_corners}", 0},
    {"f32[1,5,4,4,2]", "resize", "{scales=[1.0,1.0,2.0,2.0,1.0]}", 0},
    {"f16[1,4,4,8]", "resize", "{scales=[1.0,2.0,2.0,1.0], " CTM "=asymmetric}", 0},
    {"i32[2,3,4]", "resize", "{scales=[1.5,1.0,2.5], " CTM "=asymmetric, nearest_mode=round_prefer_ceil}", 0},
    {"f32[1,1,5,5]", "resize", "{sizes=[1,1,1,1]}", 0},
    {"f32[1,1,7,3]", "resize", "{scales=[1.0,1.0,0.3,2.0], " CTM "=pytorch_half_pixel}", 0},
    {"f32[1,3,8,8]", "resize", "{sizes=[1,3,16,16], " CTM "=asymmetric, nearest_mode=floor}", 0},
    /* coordinates past 31 bits: the shader's 64-bit path */
    {"f32[1,1,100,3]", "resize", "{scales=[1.0,1.0,1.7,1.0]}", 0},
    {"f16[2,97,5]", "resize", "{scales=[1.0,1.3,1.0], " CTM "=align_corners, nearest_mode=ceil}", 0},
    /* long rows */
    {"f32[2,3,40]", "resize", "{scales=[1.0,1.5,3.3]}", 0},
    {"i32[2,50,2]", "resize", "{sizes=[2,3,130], " CTM "=asymmetric}", 0},
    /* linear */
    {"f32[1,3,4,6]", "resize", "{mode=linear, sizes=[1,3,5,7], " CTM "=align_corners}", 0},
    {"f32[1,1,2,2]", "resize", "{mode=linear, scales=[1.0,1.0,2.0,2.0]}", 0},
    {"f16[1,2,4,4]", "resize", "{mode=linear, scales=[1.0,1.0,0.5,0.5]}", 0},
    {"f32[1,2,3,5]", "resize", "{mode=linear, sizes=[1,2,8,9], " CTM "=pytorch_half_pixel}", 0},
    {"f32[1,2,6,6]", "resize", "{mode=linear, scales=[1.0,1.0,0.6,1.7], " CTM "=asymmetric}", 0},
    {"f16[1,3,5,4]", "resize", "{mode=linear, scales=[1.0,1.0,2.5,1.5], " CTM "=tf_half_pixel_for_nn}", 0},
    {"f32[4,5]", "resize", "{mode=linear, scales=[2.0,0.5]}", 0},
    {"f32[6]", "resize", "{mode=linear, sizes=[11], " CTM "=align_corners}", 0},
    {"f32[2,3,4,5]", "resize", "{mode=linear, scales=[2.0,1.5,1.25,0.8]}", 0},
    {"f32[1,4,4,3]", "resize", "{mode=linear, scales=[1.0,2.0,2.0,1.0]}", 0},
    {"f32[1,1,3,3]", "resize", "{mode=linear, sizes=[1,1,1,1], " CTM "=pytorch_half_pixel}", 0},
    {"f32[1,1,3,3]", "resize", "{mode=linear, sizes=[1,1,1,1]}", 0},
    {"f16[1,16,7,7]", "resize", "{mode=linear, scales=[1.0,1.0,2.0,2.0], exclude_outside=1}", 0},
    {"f32[2,2,5,5]", "resize", "{mode=linear, sizes=[2,2,3,3], " CTM "=align_corners}", 0},
    {"f16[1,2,90,4]", "resize", "{mode=linear, scales=[1.0,1.0,2.3,0.6]}", 0},
    {"f32[300,2]", "resize", "{mode=linear, scales=[0.7,1.0], " CTM "=asymmetric}", 0},
    {"f16[1,2,5,70]", "resize", "{mode=linear, scales=[1.0,1.0,2.0,1.9]}", 0},
    {"f32[2,2,100]", "resize", "{mode=linear, sizes=[2,3,37], " CTM "=align_corners}", 0},
    /* cubic: every coordinate transform, both coefficients, exclude_outside,
     * up and down, one or two resized axes, edges past the input */
    {"f32[1,2,4,6]", "resize", "{mode=cubic, scales=[1.0,1.0,2.0,1.5]}", 0},
    {"f32[1,1,8,8]", "resize", "{mode=cubic, scales=[1.0,1.0,0.5,0.75], cubic_coeff_a=-0.5}", 0},
    {"f16[1,3,5,7]", "resize", "{mode=cubic, sizes=[1,3,9,4], " CTM "=align_corners}", 0},
    {"f32[2,2,6,5]", "resize", "{mode=cubic, scales=[1.0,1.0,1.7,2.3], exclude_outside=1}", 0},
    {"f32[1,2,5,5]", "resize", "{mode=cubic, sizes=[1,2,11,3], " CTM "=asymmetric}", 0},
    {"f16[1,4,6,6]", "resize", "{mode=cubic, scales=[1.0,1.0,0.6,1.4], " CTM "=pytorch_half_pixel, exclude_outside=1}", 0},
    {"f32[3,40]", "resize", "{mode=cubic, scales=[1.0,2.5], " CTM "=tf_half_pixel_for_nn}", 0},
    {"f32[1,1,2,2]", "resize", "{mode=cubic, sizes=[1,1,7,7]}", 0},
    {"f32[1,1,9,3]", "resize", "{mode=cubic, sizes=[1,1,1,5], " CTM "=pytorch_half_pixel}", 0},
};

/* ---- edges the CPU reference cannot check --------------------------------- */

/* Builds case c, sets its inputs from values, runs the family's default
 * kernel on the device and compares with hand-worked results. */
/* c on the given values, expecting want; the indices (input 1) hold
 * indices out of range for axis `axis` of size dim: the error slot names one
 * of them (any: the first invocation to see one wins). */
static void run_bad_indices(env *e, const dcase *c, const double *const *values,
                            const double *want, int axis, int64_t dim) {
  ir_graph *g;
  ir_node *n = build(c, &g);
  rt_tensor in[MAXB], got;
  const rt_tensor *ins[MAXB];
  for (int i = 0; i < n->n_inputs; i++) {
    ir_type t = n->inputs[i]->type;
    in[i] = t_tensor_from(t.dtype, t.rank, t.dims, values[i]);
    ins[i] = &in[i];
  }
  vt_poisoned(&n->outputs[0]->type, 0x7f, &got);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, e->v.t, &k));
  cr_assert(k.error_slot, "%s: gather kernels check their indices", k.key);
  uint32_t slot[IR_PLAN_ERROR_SLOT_WORDS];
  vt_run_kernel_slot(e->v.ctx, e->v.cc, &k, ins, n->n_inputs, &got, 1, slot);
  cr_assert_eq(slot[0], IR_DEVICE_ERROR_INDEX, "%s: error kind %u", k.key, slot[0]);
  int64_t el = slot[1], bad = (int64_t)((uint64_t)slot[3] << 32 | slot[2]);
  cr_assert_lt(el, rt_tensor_numel(&in[1]), "%s: element %lld", k.key, (long long)el);
  cr_assert_eq(bad, rt_load_i(&in[1], el), "%s: element %lld is %lld, reported %lld", k.key,
               (long long)el, (long long)rt_load_i(&in[1], el), (long long)bad);
  cr_assert(bad >= dim || bad < -dim, "%s: %lld is in range", k.key, (long long)bad);
  cr_assert_eq(slot[4], (uint32_t)axis, "%s: axis %u", k.key, slot[4]);
  cr_assert_eq(slot[5], (uint32_t)dim, "%s: size %u", k.key, slot[5]);
  for (int64_t i = 0; i < rt_tensor_numel(&got); i++)
    cr_expect_eq(rt_load_f(&got, i), want[i], "%s element %lld: got %g want %g", k.key,
                 (long long)i, rt_load_f(&got, i), want[i]);
  for (int i = 0; i < n->n_inputs; i++) rt_tensor_free(&in[i]);
  rt_tensor_free(&got);
  ir_graph_destroy(g);
}

/* Indices out of range after one wrap are reported in the error slot, as
 * the CPU reference reports them, and read clamped into the axis (never out
 * of bounds): 64-bit ones by both words. */
Test(vk_data, gather_reports_and_clamps_out_of_range_indices) {
  env e;
  env_open(&e);
  static const double data[] = {10, 20, 30, 40, 50};
  static const double i64[] = {7, -9, -1, 1099511627776.0, -1099511627776.0, 4, -5, 0,
                               4294967296.0, -2147483649.0};
  static const double want64[] = {50, 10, 50, 50, 10, 50, 10, 10, 50, 10};
  const double *v64[] = {data, i64};
  run_bad_indices(&e, &(dcase){"f32[5];i64[10]", "gather", "", 0}, v64, want64, 0, 5);
  static const double i32[] = {5, -6, -1, 100, -2147483647.0, 3};
  static const double want32[] = {50, 10, 50, 50, 10, 40};
  const double *v32[] = {data, i32};
  run_bad_indices(&e, &(dcase){"f32[5];i32[6]", "gather", "", 0}, v32, want32, 0, 5);
  /* [[1,2,3],[4,5,6]] along axis 1 with [[3,-4],[-1,9]] -> [[3,1],[6,6]] */
  static const double m[] = {1, 2, 3, 4, 5, 6}, ei[] = {3, -4, -1, 9}, wante[] = {3, 1, 6, 6};
  const double *ve[] = {m, ei};
  run_bad_indices(&e, &(dcase){"f32[2,3];i64[2,2]", "gather_elements", "{axis=1}", 0}, ve, wante,
                  1, 3);
  vt_env_close(&e.v);
}

/* More workgroups than the grid's x limit (65535): the y dimension. */
Test(vk_data, grids_past_the_x_limit) {
  env e;
  env_open(&e);
  cg_schedule s;
  T_OK(cg_schedule_parse(&cg_data_copy_template, "WG_SIZE=32,EPI=1,UNIT_BYTES=4", &s));
  check(&e, &(dcase){"f32[2,1100,1000]", "slice", "{starts=[0,0,1], ends=[2,1100,1000]}", 0},
        &cg_data_copy_template, &s, 1);
  T_OK(cg_schedule_parse(&cg_data_transpose_template, "TILE=8,ROWS=4", &s));
  check(&e, &(dcase){"f16[2100,2200]", "transpose", "", 0}, &cg_data_transpose_template, &s, 2);
  vt_env_close(&e.v);
}

/* What the kernels decline or reject, without a device. */
Test(vk_data, declines_and_rejects) {
  ir_target t;
  ir_target_minimum(&t);
  t.max_storage_buffer_range = UINT32_MAX;
  struct {
    dcase c;
    vkml_code code;
    const char *part;
  } bad[] = {
      /* cubic over three resized axes (16 taps at most) */
      {{"f32[2,3,4,4]", "resize", "{mode=cubic, scales=[1.0,2.0,2.0,2.0]}", 0},
       VKML_CODE_UNSUPPORTED, "cubic over 3 axes"},
      {{"f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];"
        "f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];"
        "f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1];f32[1]",
        "concat", "{axis=0}", 0},
       VKML_CODE_UNSUPPORTED, "32 parts"},
      /* a scale whose exact coordinates need more than 32-bit factors */
      {{"f32[1,1,300,4]", "resize", "{scales=[1.0,1.0,0.0039062503,2.0]}", 0},
       VKML_CODE_UNSUPPORTED, "32-bit factors"},
      /* 2-byte elements that cannot be grouped into words: 16-bit storage */
      {{"f16[3,5]", "transpose", "", 0}, VKML_CODE_UNSUPPORTED, "16-bit storage"},
      {{"u8[3,5]", "slice", "{starts=[1], ends=[2], axes=[1]}", 0}, VKML_CODE_UNSUPPORTED,
       "8-bit storage"},
  };
  for (int i = 0; i < N_OF(bad); i++) {
    ir_graph *g;
    ir_node *n = build(&bad[i].c, &g);
    cg_kernel k;
    vkml_status st = cg_kernel_for_node(n, NULL, NULL, &t, &k);
    cr_expect_eq(vkml_status_code(st), bad[i].code, "%s %s: %s", bad[i].c.in, bad[i].c.op,
                 st ? vkml_status_message(st) : "OK");
    if (st)
      cr_expect(strstr(vkml_status_message(st), bad[i].part), "%s", vkml_status_message(st));
    vkml_status_free(st);
    ir_graph_destroy(g);
  }
  /* a schedule of another template */
  ir_graph *g;
  ir_node *n = build(&(dcase){"f32[4];f32[4]", "concat", "{axis=0}", 0}, &g);
  cg_kernel k;
  t_expect_error(cg_kernel_for_node(n, &cg_data_copy_template, &cg_data_copy_template.dflt, &t,
                                    &k),
                 VKML_CODE_INVALID_ARGUMENT, "a schedule of template data_copy");
  ir_graph_destroy(g);
  /* the tiled transpose only for a transpose of the contiguous axis */
  n = build(&(dcase){"f32[4,3,2]", "transpose", "{perm=[1,0,2]}", 0}, &g);
  t_expect_error(cg_kernel_for_node(n, &cg_data_transpose_template,
                                    &cg_data_transpose_template.dflt, &t, &k),
                 VKML_CODE_UNSUPPORTED, "data_copy runs it");
  ir_graph_destroy(g);
}

/* Layouts that allow it move several elements as one word: f16 and u8 run
 * without 16/8-bit storage then, and the unit is as wide as the knob lets. */
Test(vk_data, grouped_units) {
  ir_target t;
  ir_target_minimum(&t);
  t.max_storage_buffer_range = UINT32_MAX;
  struct {
    dcase c;
    const char *sched;
    int elem_bytes;
    uint32_t units;
  } cases[] = {
      {{"f16[4,10]", "slice", "{starts=[0,2], ends=[4,10]}", 0}, NULL, 4, 16},
      {{"f16[2,1,8]", "expand", "{shape=[2,6,8]}", 0}, NULL, 16, 12},
      {{"f16[2,1,8]", "expand", "{shape=[2,6,8]}", 0}, "WG_SIZE=128,EPI=4,UNIT_BYTES=8", 8, 24},
      {{"u8[2,12]", "split", "{axis=1, split=[4,8]}", 2}, NULL, 4, 6},
      {{"f32[2,3];f32[2,5]", "concat", "{axis=1}", 0}, NULL, 4, 16},
      {{"f16[2,8]", "pad", "{pads=[0,8,0,8], value=-1}", 0}, NULL, 16, 6},
      {{"u8[6,4];i64[3]", "gather", "", 0}, NULL, 4, 3},
      {{"f16[1,4,4,8]", "resize", "{scales=[1.0,2.0,2.0,1.0]}", 0}, NULL, 16, 64},
  };
  for (int i = 0; i < N_OF(cases); i++) {
    ir_graph *g;
    ir_node *n = build(&cases[i].c, &g);
    cg_kernel k;
    cg_schedule s;
    const cg_template *tm = NULL;
    if (cases[i].sched) {
      tm = &cg_data_copy_template;
      T_OK(cg_schedule_parse(tm, cases[i].sched, &s));
    }
    T_OK(cg_kernel_for_node(n, tm, tm ? &s : NULL, &t, &k));
    char want[8];
    snprintf(want, sizeof want, "%d", cases[i].elem_bytes);
    bool found = false;
    for (int d = 0; d < k.n_defines; d++)
      if (!strcmp(k.def_name[d], "ELEM_BYTES")) {
        found = true;
        cr_expect_str_eq(k.def_value[d], want, "%s", k.key);
      }
    cr_expect(found);
    cr_expect_eq(k.spec_id[0], 0u);
    cr_expect_eq(k.spec_value[0], cases[i].units, "%s: %u units", k.key, k.spec_value[0]);
    ir_graph_destroy(g);
  }
}

/* Resized axes whose exact coordinates pass 31 bits take the shader's
 * 64-bit path (specialization constant W<axis>); small ones the 32-bit one. */
Test(vk_data, resize_wide_coordinates) {
  ir_target t;
  ir_target_minimum(&t);
  struct {
    dcase c;
    bool wide;
  } cases[] = {
      {{"f32[1,1,100,3]", "resize", "{scales=[1.0,1.0,1.7,1.0]}", 0}, true},
      {{"f32[300,2]", "resize", "{mode=linear, scales=[0.7,1.0], " CTM "=asymmetric}", 0}, true},
      {{"f32[1,1,8,3]", "resize", "{scales=[1.0,1.0,2.0,1.0]}", 0}, false},
  };
  for (int i = 0; i < N_OF(cases); i++) {
    ir_graph *g;
    ir_node *n = build(&cases[i].c, &g);
    cg_kernel k;
    T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
    bool wide = false;
    for (int j = 0; j < k.n_spec; j++) wide = wide || (k.spec_id[j] == CG_SPEC_DATA_RESIZE_W1 && k.spec_value[j]);
    cr_expect_eq(wide, cases[i].wide, "%s", k.key);
    ir_graph_destroy(g);
  }
}

/* 16-bit true transposes move pairs as words where every offset is even:
 * then they run without 16-bit storage; an odd dim needs it. */
Test(vk_data, transpose_pairs) {
  ir_target t;
  ir_target_minimum(&t);
  ir_graph *g;
  ir_node *n = build(&(dcase){"f16[4,32,48]", "transpose", "{perm=[0,2,1]}", 0}, &g);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
  cr_expect_eq(k.tmpl, &cg_data_transpose_template);
  bool pack = false;
  for (int d = 0; d < k.n_defines; d++)
    pack = pack || (!strcmp(k.def_name[d], "PACK") && !strcmp(k.def_value[d], "1"));
  cr_expect(pack);
  /* tiles of 32 x 32 elements: 48 / 32 -> 2 along J, 32 / 32 -> 1 along I, 4 batches */
  cr_expect_eq(k.groups[0] * k.groups[1], 8u);
  ir_graph_destroy(g);
  n = build(&(dcase){"f16[4,32,47]", "transpose", "{perm=[0,2,1]}", 0}, &g);
  t_expect_error(cg_kernel_for_node(n, NULL, NULL, &t, &k), VKML_CODE_UNSUPPORTED,
                 "16-bit storage");
  ir_graph_destroy(g);
}

Test(vk_data, workload_keys) {
  ir_target t;
  ir_target_minimum(&t);
  ir_graph *g;
  ir_node *n = build(&(dcase){"f32[2,3,4]", "transpose", "{perm=[2,0,1]}", 0}, &g);
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
  cr_expect_str_eq(k.key, "transpose(f32[2,3,4])->(f32[4,2,3]){perm=[2,0,1]}");
  ir_graph_destroy(g);
  n = build(&(dcase){"f32[1,2,3,5]", "resize",
                     "{mode=linear, sizes=[1,2,7,8], " CTM "=align_corners}", 0}, &g);
  T_OK(cg_kernel_for_node(n, NULL, NULL, &t, &k));
  cr_expect_str_eq(k.key, "resize(f32[1,2,3,5])->(f32[1,2,7,8]){mode=linear,sizes=[1,2,7,8],"
                          "coordinate_transformation_mode=align_corners}");
  ir_graph_destroy(g);
}

FAMILY(transpose, TRANSPOSE, &cg_data_copy_template, &cg_data_transpose_template)
FAMILY(slice, SLICE, &cg_data_copy_template)
FAMILY(expand, EXPAND, &cg_data_copy_template)
FAMILY(tile, TILE, &cg_data_copy_template)
FAMILY(pad, PAD, &cg_data_copy_template)
FAMILY(concat, CONCAT, &cg_data_concat_template)
FAMILY(split, SPLIT, &cg_data_split_template)
FAMILY(gather, GATHER, &cg_data_gather_template)
FAMILY(gather_elements, GATHER_ELEMENTS, &cg_data_gather_template)
FAMILY(resize, RESIZE, &cg_data_resize_template)
