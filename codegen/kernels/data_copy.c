/* The strided-copy template (glsl/data_copy.comp) with the families it
 * covers: transpose and strided_copy (and their tiled form,
 * glsl/data_transpose.comp), slice, expand, tile and pad. Each family describes its
 * output as per-axis rules over the input (dim, stride, tile period or pad
 * span); one simplification drops size-1 axes, merges contiguous ones and
 * groups neighbouring elements into wider units where the layout allows. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

const cg_template cg_data_copy_template = {"data_copy", "data_copy.comp", CG_DATA_KNOBS};

/* A transpose's output axes, innermost first, after size-1 axes are dropped
 * and contiguous ones merged: dims and input strides (elements). */
typedef struct cg_data_axes {
  int rank;
  int64_t d[IR_MAX_RANK], s[IR_MAX_RANK];
} cg_data_axes;

/* ---- the strided copy ------------------------------------------------------ */

enum { MODE_AFFINE = 0, MODE_TILE = 1, MODE_PAD = 2, MODE_ROLL = 3 };

typedef struct copy_axis {
  int64_t d;    /* output dim */
  int64_t s;    /* input stride (elements, then units); negative for reversed slices */
  int64_t a, b; /* tile: a = input dim (period); pad: output span [a, b) inside the input */
} copy_axis;

typedef struct copy_desc {
  int mode;
  ir_pad_mode pad_mode;
  int rank; /* axes innermost first */
  copy_axis ax[IR_MAX_RANK];
  int64_t base; /* input offset of the output's origin (elements, then units) */
  ir_dtype dtype;
  int64_t n_out; /* output elements */
  unsigned char pad_value[8]; /* one element's bits (constant pad) */
  int roll_rank;              /* MODE_ROLL: the input as these dims, rolled (innermost first) */
  int64_t roll_dims[IR_MAX_RANK], roll_shifts[IR_MAX_RANK];
} copy_desc;

/* Adds an output axis (given outermost first: stored reversed at the end). */
static void desc_push(copy_desc *c, int64_t d, int64_t s, int64_t a, int64_t b) {
  c->ax[c->rank++] = (copy_axis){d, s, a, b};
}

static void desc_reverse(copy_desc *c) {
  for (int i = 0, j = c->rank - 1; i < j; i++, j--) {
    copy_axis t = c->ax[i];
    c->ax[i] = c->ax[j];
    c->ax[j] = t;
  }
}

static bool unpadded(const copy_axis *x) { return x->a == 0 && x->b == x->d; }

/* The reference's pad rule for one coordinate (kept span [a, b) non-empty
 * unless constant); false: a constant-padded position. */
static bool pad_coord(ir_pad_mode m, int64_t *c, int64_t a, int64_t b) {
  if (*c >= a && *c < b) return true;
  if (m == IR_PAD_CONSTANT) return false;
  if (m == IR_PAD_EDGE) {
    *c = *c < a ? a : b - 1;
    return true;
  }
  int64_t len = b - a;
  if (len == 1) {
    *c = a;
    return true;
  }
  int64_t period = 2 * (len - 1), r = (*c - a) % period;
  if (r < 0) r = -r;
  *c = a + (r < len ? r : period - r);
  return true;
}

/* Drops size-1 axes into the base offset and merges neighbours the mode can
 * treat as one axis. Returns false if every output element is padding. */
static bool desc_simplify(copy_desc *c) {
  bool all_pad = false;
  int r = 0;
  for (int i = 0; i < c->rank; i++) {
    copy_axis x = c->ax[i];
    if (x.d == 1) {
      int64_t at = 0;
      if (c->mode == MODE_PAD && !pad_coord(c->pad_mode, &at, x.a, x.b)) all_pad = true;
      c->base += at * x.s;
      continue;
    }
    if (r > 0) {
      copy_axis *in = &c->ax[r - 1]; /* the inner neighbour, already merged */
      bool contiguous = x.s == in->s * in->d;
      if ((c->mode == MODE_AFFINE || c->mode == MODE_ROLL) && contiguous) {
        in->d *= x.d;
        continue;
      }
      if (c->mode == MODE_TILE && contiguous && in->a == in->d) {
        in->a *= x.a;
        in->d *= x.d;
        continue;
      }
      if (c->mode == MODE_PAD && contiguous && unpadded(in) &&
          (unpadded(&x) || c->pad_mode == IR_PAD_CONSTANT)) {
        in->a = x.a * in->d;
        in->b = x.b * in->d;
        in->d *= x.d;
        continue;
      }
    }
    c->ax[r++] = x;
  }
  c->rank = r;
  /* rules that change nothing fall back to the plain copy */
  bool plain = true;
  for (int i = 0; i < r; i++)
    plain = plain && (c->mode == MODE_TILE ? c->ax[i].a == c->ax[i].d : unpadded(&c->ax[i]));
  if (plain && !all_pad && c->mode != MODE_ROLL) c->mode = MODE_AFFINE;
  return !all_pad;
}

/* Elements per unit: the innermost axis must read contiguous input, and
 * every offset, stride and boundary must fall on unit boundaries. */
static int64_t desc_group(const copy_desc *c, int64_t es, int64_t max_bytes) {
  if (c->rank == 0 || c->ax[0].s != 1 || c->mode == MODE_ROLL) return 1;
  const copy_axis *in = &c->ax[0];
  if (c->mode == MODE_PAD && !unpadded(in) && c->pad_mode != IR_PAD_CONSTANT) return 1;
  int64_t vals[3 * IR_MAX_RANK + 2];
  int n = 0;
  vals[n++] = c->base;
  vals[n++] = in->d;
  if (c->mode != MODE_AFFINE) {
    vals[n++] = in->a;
    vals[n++] = in->b;
  }
  for (int i = 1; i < c->rank; i++) vals[n++] = c->ax[i].s;
  return cg_data_group(es, max_bytes, vals, n);
}

/* Simplifies c for the kernel; an output of padding only becomes one axis
 * whose in-range span is empty. */
static void desc_finish(copy_desc *c) {
  if (c->n_out == 0) {
    c->rank = 0; /* nothing to do: no dims to bake */
    c->base = 0;
  } else if (!desc_simplify(c)) {
    c->rank = 1;
    c->ax[0] = (copy_axis){c->n_out, 0, 0, 0};
    c->base = 0;
  }
}

/* Instantiates data_copy for a finished description (k begun). */
static vkml_status copy_emit(copy_desc *c, const ir_target *t, cg_kernel *k) {
  int64_t es = (int64_t)ir_dtype_size(c->dtype);
  int64_t g = desc_group(c, es, k->schedule.v[CG_DATA_KNOB_UNIT]);
  if (g > 1) {
    c->base /= g;
    c->ax[0].d /= g;
    c->ax[0].a /= g;
    c->ax[0].b /= g;
    for (int i = 1; i < c->rank; i++) c->ax[i].s /= g;
  }
  int64_t units = c->n_out / g;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, es * g, t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "MODE", "%d", c->mode));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PAD_MODE", "%d", (int)c->pad_mode));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_RANK, (uint32_t)c->rank));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_BASE, (uint32_t)(int32_t)c->base));
  if (c->mode == MODE_PAD && c->pad_mode == IR_PAD_CONSTANT) {
    unsigned char unit[16] = {0};
    for (int64_t i = 0; i < g; i++) memcpy(unit + i * es, c->pad_value, (size_t)es);
    for (int w = 0; w * 4 < es * g; w++) {
      uint32_t word;
      memcpy(&word, unit + 4 * w, 4);
      if (es * g < 4) word &= es * g == 1 ? 0xffu : 0xffffu;
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_PV0 + (uint32_t)w, word));
    }
  }
  for (int i = 0; i < c->rank; i++) {
    const copy_axis *x = &c->ax[i];
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_D0 + (uint32_t)i, (uint32_t)x->d));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_S0 + (uint32_t)i, (uint32_t)(int32_t)x->s));
    if (c->mode != MODE_AFFINE)
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_A0 + (uint32_t)i, (uint32_t)(int32_t)x->a));
    if (c->mode == MODE_PAD)
      VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_B0 + (uint32_t)i, (uint32_t)(int32_t)x->b));
  }
  if (c->mode == MODE_ROLL) {
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_COPY_RRANK, (uint32_t)c->roll_rank));
    for (int i = 0; i < c->roll_rank; i++) {
      VKML_RETURN_IF_ERROR(
          cg_kernel_spec(k, CG_SPEC_DATA_COPY_RD0 + (uint32_t)i, (uint32_t)c->roll_dims[i]));
      VKML_RETURN_IF_ERROR(
          cg_kernel_spec(k, CG_SPEC_DATA_COPY_RS0 + (uint32_t)i, (uint32_t)c->roll_shifts[i]));
    }
  }
  k->n_buffers = 2;
  return cg_data_grid(k, units, t);
}

static vkml_status copy_instantiate(const ir_node *n, copy_desc *c, const cg_template *st,
                                    const cg_schedule *s, const ir_target *t, cg_kernel *k) {
  VKML_RETURN_IF_ERROR(cg_data_begin(k, &cg_data_copy_template, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  desc_finish(c);
  return copy_emit(c, t, k);
}

/* The node's output must be what the rule computes. */
static vkml_status check_out(const ir_node *n, ir_dtype dt, int rank, const int64_t *dims) {
  if (n->n_inputs < 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: expects 1 output",
                            ir_op_name(n->op));
  ir_type want = ir_type_make(dt, rank, dims);
  if (!ir_type_equal(&want, &n->outputs[0]->type)) {
    char a[160], b[160];
    ir_type_format(&want, a, sizeof a);
    ir_type_format(&n->outputs[0]->type, b, sizeof b);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: output is %s, expected %s",
                            ir_op_name(n->op), b, a);
  }
  return VKML_OK;
}

static void desc_init(copy_desc *c, const ir_type *x, int mode) {
  memset(c, 0, sizeof *c);
  c->mode = mode;
  c->dtype = x->dtype;
}

static void strides_of(const ir_type *x, int64_t *s) {
  int64_t run = 1;
  for (int d = x->rank - 1; d >= 0; d--) {
    s[d] = run;
    run *= x->dims[d];
  }
}

static vkml_status one_input(const ir_node *n) {
  if (n->n_inputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: expects 1 input, has %d",
                            ir_op_name(n->op), n->n_inputs);
  return VKML_OK;
}

/* ---- transpose through shared-memory tiles (glsl/data_transpose.comp): the
 * strided copy reads a true transpose with a stride between neighbouring
 * invocations; the tiled kernel reads and writes whole rows. cg_node_transpose
 * picks it by default when both tile edges are at least 8 elements. ---- */

enum { TP_KNOB_TILE = 0, TP_KNOB_ROWS = 1 };

/* Shared memory is TILE * (TILE + 1) elements of at most 8 bytes (or
 * TILE * (TILE / 2 + 1) words of 16-bit pairs): 8.25 KiB at TILE 32, inside
 * the 16 KiB every device has, so no constraint on it. */
const cg_template cg_data_transpose_template = {
    .name = "data_transpose",
    .glsl = "data_transpose.comp",
    .n_knobs = 2,
    .knobs = {{"TILE", 3, {8, 16, 32}}, {"ROWS", 6, {1, 2, 4, 8, 16, 32}}},
    .n_constraints = 3,
    .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << TP_KNOB_TILE, 1},
                    {CG_LIMIT_WORKGROUP_Y, 1u << TP_KNOB_ROWS, 1},
                    {CG_LIMIT_WORKGROUP_INVOCATIONS, (1u << TP_KNOB_TILE) | (1u << TP_KNOB_ROWS), 1}},
    .dflt = {{32, 4}},
};

static int transpose_axis(const cg_data_axes *a) {
  if (a->rank < 2 || a->s[0] == 1) return -1;
  for (int i = 1; i < a->rank; i++)
    if (a->s[i] == 1) return i;
  return -1;
}

static vkml_status transpose_tiled(const ir_node *n, const cg_data_axes *a, int64_t base,
                                   ir_dtype dt, const cg_template *st, const cg_schedule *s,
                                   const ir_target *t, cg_kernel *k) {
  int p = transpose_axis(a);
  if (p < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "data_transpose: %s keeps the input's contiguous axis innermost "
                            "(data_copy runs it)", ir_op_name(n->op));
  VKML_RETURN_IF_ERROR(cg_data_begin(k, &cg_data_transpose_template, n, st, s, t));
  int64_t tile = k->schedule.v[TP_KNOB_TILE];
  /* 16-bit elements move in pairs when every offset is even */
  bool pack = ir_dtype_size(dt) == 2 && a->d[0] % 2 == 0 && a->d[p] % 2 == 0 &&
              a->s[0] % 2 == 0 && base % 2 == 0;
  for (int i = 1; i < a->rank && pack; i++) pack = i == p || a->s[i] % 2 == 0;
  int64_t edge = tile;
  int64_t out_stride[IR_MAX_RANK], run = 1, batch = 1;
  for (int i = 0; i < a->rank; i++) {
    out_stride[i] = run;
    run *= a->d[i];
    if (i != 0 && i != p) batch *= a->d[i];
  }
  int64_t tiles_j = (a->d[0] + edge - 1) / edge, tiles_i = (a->d[p] + edge - 1) / edge;
  int64_t groups = tiles_j * tiles_i * batch;
  VKML_RETURN_IF_ERROR(cg_data_define_unit(k, pack ? 4 : (int64_t)ir_dtype_size(dt), t));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "PACK", "%d", pack));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_TILES_J, (uint32_t)tiles_j));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_TILES_I, (uint32_t)tiles_i));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_GROUPS, (uint32_t)groups));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_DJ, (uint32_t)a->d[0]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_SJ, (uint32_t)a->s[0]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_DI, (uint32_t)a->d[p]));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_OI, (uint32_t)out_stride[p]));
  uint32_t b = 0;
  for (int i = 1; i < a->rank; i++) {
    if (i == p) continue;
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_BD0 + b, (uint32_t)a->d[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_BS0 + b, (uint32_t)a->s[i]));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_BO0 + b, (uint32_t)out_stride[i]));
    b++;
  }
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_RANK, b));
  if (base) VKML_RETURN_IF_ERROR(cg_kernel_spec(k, CG_SPEC_DATA_TRANSPOSE_BASE, (uint32_t)base));
  k->n_buffers = 2;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "data_transpose: %lld workgroups exceed "
                            "the grid of %s", (long long)groups, t->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}

/* A true transpose (after merging, the output's contiguous axis is not the
 * input's) goes through shared memory unless the schedule is data_copy's or
 * the tiles would be mostly empty; anything else is the strided copy. */
static vkml_status copy_or_transpose(const ir_node *n, copy_desc *c, const cg_template *st,
                                     const cg_schedule *s, const ir_target *t, cg_kernel *out) {
  if (st && st != &cg_data_copy_template && st != &cg_data_transpose_template)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: a schedule of template %s (it runs data_copy or "
                            "data_transpose)", ir_op_name(n->op), st->name);
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  copy_desc m = *c;
  desc_finish(&m);
  cg_data_axes ax = {.rank = m.rank};
  for (int i = 0; i < m.rank; i++) ax.d[i] = m.ax[i].d, ax.s[i] = m.ax[i].s;
  int p = transpose_axis(&ax);
  bool positive = true; /* the tiled kernel's strides are unsigned */
  for (int i = 0; i < m.rank; i++) positive = positive && ax.s[i] >= 0;
  if (st == &cg_data_transpose_template && !positive)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "data_transpose: %s reads backwards (data_copy runs it)",
                            ir_op_name(n->op));
  if (st == &cg_data_transpose_template ||
      (!st && p > 0 && positive && ax.d[0] >= 8 && ax.d[p] >= 8))
    return transpose_tiled(n, &ax, m.base, c->dtype, st, s, t, out);
  return copy_instantiate(n, c, st, s, t, out);
}

vkml_status cg_node_transpose(const ir_node *n, const cg_template *st, const cg_schedule *s,
                              const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_type *x = &n->inputs[0]->type;

  int perm[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(ir_perm_get(n, x->rank, perm));
  int64_t xs[IR_MAX_RANK], dims[IR_MAX_RANK];
  strides_of(x, xs);
  copy_desc c;
  desc_init(&c, x, MODE_AFFINE);
  for (int d = 0; d < x->rank; d++) {
    dims[d] = x->dims[perm[d]];
    desc_push(&c, dims[d], xs[perm[d]], 0, 0);
  }
  VKML_RETURN_IF_ERROR(check_out(n, x->dtype, x->rank, dims));
  if (ir_node_relabels_nhwc(n)) {
    /* nhwc bytes read as row-major (or back): the same bytes, a plain copy
     * where the memory plan does not make it a view */
    desc_init(&c, x, MODE_AFFINE);
    desc_push(&c, ir_type_numel(x), 1, 0, 0);
    c.n_out = ir_type_numel(x);
    VKML_RETURN_IF_ERROR(copy_or_transpose(n, &c, st, s, t, out));
    size_t len = strlen(out->key);
    snprintf(out->key + len, sizeof out->key - len, "{layout=%s->%s}",
             ir_layout_name(n->inputs[0]->layout), ir_layout_name(n->outputs[0]->layout));
    return VKML_OK;
  }
  desc_reverse(&c);
  c.n_out = ir_type_numel(x);
  return copy_or_transpose(n, &c, st, s, t, out);
}

vkml_status cg_data_reorder_nhwc(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                 const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_value *x = n->inputs[0], *y = n->outputs[0];
  const ir_type *tx = &x->type;
  bool to_nhwc = x->layout == IR_LAYOUT_DEFAULT && y->layout == IR_LAYOUT_NHWC;
  if (!(to_nhwc || (x->layout == IR_LAYOUT_NHWC && y->layout == IR_LAYOUT_DEFAULT)) ||
      tx->rank != 4 || tx->bounded || !ir_type_equal(tx, &y->type))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: converts a static rank-4 value between the default layout and "
                            "nhwc, to the same type", ir_op_name(n->op));
  int64_t nb = tx->dims[0], c = tx->dims[1], hw = tx->dims[2] * tx->dims[3];
  /* the output's bytes, outermost first, as (dim, input stride) */
  copy_desc d;
  desc_init(&d, tx, MODE_AFFINE);
  if (to_nhwc) { /* out [N, HW, C] of in [N, C, HW] */
    desc_push(&d, nb, c * hw, 0, 0);
    desc_push(&d, hw, 1, 0, 0);
    desc_push(&d, c, hw, 0, 0);
  } else { /* out [N, C, HW] of in [N, HW, C] */
    desc_push(&d, nb, c * hw, 0, 0);
    desc_push(&d, c, 1, 0, 0);
    desc_push(&d, hw, c, 0, 0);
  }
  desc_reverse(&d);
  d.n_out = ir_type_numel(tx);
  VKML_RETURN_IF_ERROR(copy_or_transpose(n, &d, st, s, t, out));
  size_t len = strlen(out->key);
  snprintf(out->key + len, sizeof out->key - len, "{layout=%s->%s}", ir_layout_name(x->layout),
           ir_layout_name(y->layout));
  return VKML_OK;
}

vkml_status cg_node_strided_copy(const ir_node *n, const cg_template *st, const cg_schedule *s,
                                 const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_type *x = &n->inputs[0]->type;
  ir_strided_params p;
  VKML_RETURN_IF_ERROR(ir_strided_params_get(n, x, &p));
  VKML_RETURN_IF_ERROR(check_out(n, x->dtype, p.rank, p.dims));
  copy_desc c;
  desc_init(&c, x, p.roll_rank ? MODE_ROLL : MODE_AFFINE);
  c.base = p.offset;
  c.n_out = 1;
  /* the rolled input's dims, innermost first; axes of 1 carry nothing */
  for (int d = p.roll_rank - 1; d >= 0; d--)
    if (p.roll_dims[d] > 1) {
      c.roll_dims[c.roll_rank] = p.roll_dims[d];
      c.roll_shifts[c.roll_rank++] = p.roll_shifts[d];
    }
  bool rolls = false;
  for (int i = 0; i < c.roll_rank; i++) rolls = rolls || c.roll_shifts[i];
  if (!rolls) c.mode = MODE_AFFINE, c.roll_rank = 0;
  for (int d = 0; d < p.rank; d++) {
    desc_push(&c, p.dims[d], p.strides[d], 0, 0);
    c.n_out *= p.dims[d];
  }
  desc_reverse(&c);
  if (!c.n_out) c.base = 0;
  if (c.base > INT32_MAX || ir_type_numel(x) > INT32_MAX)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "strided_copy: offsets past 2^31");
  if (c.mode == MODE_ROLL) {
    if (st && st != &cg_data_copy_template)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "strided_copy: a rolled copy runs data_copy, not %s", st->name);
    return copy_instantiate(n, &c, st, s, t, out);
  }
  return copy_or_transpose(n, &c, st, s, t, out);
}

vkml_status cg_node_slice(const ir_node *n, const cg_template *st, const cg_schedule *s,
                          const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_type *x = &n->inputs[0]->type;
  ir_slice_params sp;
  VKML_RETURN_IF_ERROR(ir_slice_params_get(n, x, &sp));
  int64_t xs[IR_MAX_RANK];
  strides_of(x, xs);
  copy_desc c;
  desc_init(&c, x, MODE_AFFINE);
  int64_t cnt = 1;
  for (int d = 0; d < x->rank; d++) {
    int64_t last = sp.start[d] + (sp.count[d] - 1) * sp.step[d];
    if (sp.count[d] < 0 ||
        (sp.count[d] > 0 && (sp.start[d] < 0 || sp.start[d] >= x->dims[d] || last < 0 ||
                             last >= x->dims[d])))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "slice: axis %d out of range", d);
    c.base += sp.start[d] * xs[d];
    desc_push(&c, sp.count[d], sp.step[d] * xs[d], 0, 0);
    cnt *= sp.count[d];
  }
  VKML_RETURN_IF_ERROR(check_out(n, x->dtype, x->rank, sp.count));
  desc_reverse(&c);
  c.n_out = cnt;
  if (cnt == 0) c.base = 0;
  return copy_instantiate(n, &c, st, s, t, out);
}

vkml_status cg_node_expand(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_type *x = &n->inputs[0]->type;
  const int64_t *shape;
  int ns = ir_node_ints(n, IR_A_SHAPE, &shape);
  if (ns < 0 || ns > IR_MAX_RANK)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "expand needs 'shape' of rank <= %d",
                            IR_MAX_RANK);
  for (int d = 0; d < ns; d++)
    if (shape[d] < 0)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "expand: negative dim in shape");
  ir_type sh = ir_type_make(x->dtype, ns, shape), o;
  VKML_RETURN_IF_ERROR(ir_broadcast(x, &sh, &o));
  VKML_RETURN_IF_ERROR(check_out(n, x->dtype, o.rank, o.dims));
  int64_t xs[IR_MAX_RANK];
  strides_of(x, xs);
  copy_desc c;
  desc_init(&c, x, MODE_AFFINE);
  int off = o.rank - x->rank;
  for (int d = 0; d < o.rank; d++) {
    int k = d - off;
    bool bcast = k < 0 || x->dims[k] == 1;
    desc_push(&c, o.dims[d], bcast ? 0 : xs[k], 0, 0);
  }
  desc_reverse(&c);
  c.n_out = ir_type_numel(&o);
  return copy_instantiate(n, &c, st, s, t, out);
}

vkml_status cg_node_tile(const ir_node *n, const cg_template *st, const cg_schedule *s,
                         const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_type *x = &n->inputs[0]->type;
  const int64_t *rep;
  if (ir_node_ints(n, IR_A_REPEATS, &rep) != x->rank)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "tile needs one repeat per axis (%d)",
                            x->rank);
  int64_t xs[IR_MAX_RANK], dims[IR_MAX_RANK];
  strides_of(x, xs);
  copy_desc c;
  desc_init(&c, x, MODE_TILE);
  int64_t cnt = 1;
  for (int d = 0; d < x->rank; d++) {
    if (rep[d] < 0 || (x->dims[d] && rep[d] > IR_MAX_ELEMENTS / x->dims[d]))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "tile: bad repeat %lld for axis %d",
                              (long long)rep[d], d);
    dims[d] = x->dims[d] * rep[d];
    desc_push(&c, dims[d], xs[d], x->dims[d], 0);
    cnt *= dims[d];
  }
  VKML_RETURN_IF_ERROR(check_out(n, x->dtype, x->rank, dims));
  desc_reverse(&c);
  c.n_out = cnt;
  return copy_instantiate(n, &c, st, s, t, out);
}

/* The pad value as one element of dtype, as the reference converts it:
 * floats rounded, integers truncated toward zero and saturated, NaN -> 0
 * (ir/dtype.h, which the reference uses too). */
static void pad_bits(ir_dtype dt, float v, unsigned char *out) {
  memset(out, 0, 8);
  if (ir_dtype_is_float(dt)) ir_dtype_store_f64(dt, out, 0, v);
  else ir_dtype_store_i64(dt, out, 0, ir_f64_to_int(v, dt));
}

vkml_status cg_node_pad(const ir_node *n, const cg_template *st, const cg_schedule *s,
                        const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  VKML_RETURN_IF_ERROR(one_input(n));
  const ir_type *x = &n->inputs[0]->type;
  ir_pad_params pp;
  VKML_RETURN_IF_ERROR(ir_pad_params_get(n, x->rank, &pp));
  if ((unsigned)pp.mode > IR_PAD_EDGE)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "pad: unknown mode %d", (int)pp.mode);
  int64_t xs[IR_MAX_RANK], dims[IR_MAX_RANK];
  strides_of(x, xs);
  copy_desc c;
  desc_init(&c, x, MODE_PAD);
  c.pad_mode = pp.mode;
  pad_bits(x->dtype, pp.value, c.pad_value);
  int64_t cnt = 1;
  bool empty_kept = false;
  for (int d = 0; d < x->rank; d++) {
    int64_t b = pp.begins[d], e = pp.ends[d];
    dims[d] = x->dims[d] + b + e;
    int64_t lo = b < 0 ? -b : 0, hi = x->dims[d] - (e < 0 ? -e : 0);
    if (dims[d] < 0 || hi < lo)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "pad: pads of axis %d crop more than its %lld elements", d,
                              (long long)x->dims[d]);
    empty_kept = empty_kept || hi == lo;
    /* output coordinate c reads input c - b */
    c.base -= b * xs[d];
    desc_push(&c, dims[d], xs[d], b + lo, b + hi);
    cnt *= dims[d];
  }
  VKML_RETURN_IF_ERROR(check_out(n, x->dtype, x->rank, dims));
  if (cnt > 0 && empty_kept && pp.mode != IR_PAD_CONSTANT)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "pad: cannot %s-pad an empty axis",
                            pp.mode == IR_PAD_EDGE ? "edge" : "reflect");
  desc_reverse(&c);
  c.n_out = cnt;
  return copy_instantiate(n, &c, st, s, t, out);
}
