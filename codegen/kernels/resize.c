/* GPU data movement, part 4: resize (glsl/data_resize.comp), nearest with
 * every nearest_mode, N-linear and cubic with every coordinate transform of
 * the CPU reference (cubic over at most two resized axes whose coordinates
 * fit 31 bits; others run on the CPU).
 *
 * Each resized axis' coordinate transform is turned into an exact rational
 * affine map c -> (c*A + B) / C (scales are floats, hence dyadic rationals;
 * sizes give out/in), the nearest rounding rule folded into it, so that the
 * shader finds the same input index as the reference with integer
 * arithmetic. The reference computes in double: for nearest, the host checks
 * every output coordinate against the reference's own double computation
 * (ir_resize_coord / ir_resize_nearest, ir/params.h, which the CPU kernel
 * runs) and declines the (rare) axes where double rounding lands on the
 * other side of a tie. */
#include <math.h>
#include <string.h>

#include "codegen/core/core.h"
#include "ir/params.h"

#define MAX_RESIZED 4

/* An axis of the kernel: output dim d, input stride s; resized when c != 0:
 * input index floor((o*a + b) / c), input dim in; wide when that needs the
 * shader's 64-bit arithmetic. */
typedef struct rs_axis {
  int64_t d, s;
  int64_t a, b, c, in;
  bool wide;
} rs_axis;

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* |a * b| <= lim without overflow. */
static bool mul_ok(int64_t a, int64_t b, int64_t lim, int64_t *out) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  if (a != 0 && b > lim / a) return false;
  *out = a * b;
  return true;
}

#define LIM (INT64_C(1) << 61)

/* xo = (o*A + B) / C exactly, for the transform of one axis (in, out > 0).
 * false when the numbers do not fit. */
static bool exact_map(const ir_resize_params *p, int d, int64_t in, int64_t out,
                      int64_t *A, int64_t *B, int64_t *C) {
  int64_t sp, sq; /* scale = sp / sq (ir_resize_axis_scale, exactly) */
  if (p->from_sizes) {
    sp = out;
    sq = in;
  } else {
    int e;
    double mant = frexp((double)p->scale[d], &e); /* scale = mant * 2^e, mant in [0.5, 1) */
    int64_t m = (int64_t)ldexp(mant, 24);
    e -= 24;
    while (m % 2 == 0 && e < 0) m /= 2, e++;
    if (e >= 0) {
      if (e > 30) return false;
      sp = m << e;
      sq = 1;
    } else {
      if (e < -40) return false;
      sp = m;
      sq = INT64_C(1) << -e;
    }
  }
  int64_t t1, t2;
  switch (p->coord) {
  case IR_COORD_PYTORCH_HALF_PIXEL: /* half_pixel, or 0 for a single output */
    if (out <= 1) *A = 0, *B = 0, *C = 1;
    else *A = 2 * sq, *B = sq - sp, *C = 2 * sp;
    break;
  case IR_COORD_HALF_PIXEL:
    *A = 2 * sq, *B = sq - sp, *C = 2 * sp;
    break;
  case IR_COORD_ASYMMETRIC: *A = sq, *B = 0, *C = sp; break;
  case IR_COORD_TF_HALF_PIXEL_FOR_NN: *A = 2 * sq, *B = sq, *C = 2 * sp; break;
  case IR_COORD_ALIGN_CORNERS:
    /* len_resized = out (sizes) or scale * in = sp * in / sq */
    if (p->from_sizes) {
      if (out == 1) *A = 0, *B = 0, *C = 1;
      else *A = in - 1, *B = 0, *C = out - 1;
      break;
    }
    if (!mul_ok(sp, in, LIM, &t1) || !mul_ok(in - 1, sq, LIM, &t2)) return false;
    if (t1 == sq) *A = 0, *B = 0, *C = 1;
    else if (t1 < sq) return false; /* fewer than one output: no coordinate to map */
    else *A = t2, *B = 0, *C = t1 - sq;
    break;
  default: return false;
  }
  int64_t g = gcd64(gcd64(*A, *B), *C);
  if (g > 1) *A /= g, *B /= g, *C /= g;
  return true;
}

/* Folds the nearest rounding rule into the map: index = floor((o*A + B) / C). */
static void nearest_map(ir_nearest_mode m, int64_t *A, int64_t *B, int64_t *C) {
  switch (m) {
  case IR_NEAREST_ROUND_PREFER_FLOOR: /* ceil(x - 1/2) */
    *A *= 2, *B = 2 * *B + *C - 1, *C *= 2;
    break;
  case IR_NEAREST_ROUND_PREFER_CEIL: /* floor(x + 1/2) */
    *A *= 2, *B = 2 * *B + *C, *C *= 2;
    break;
  case IR_NEAREST_FLOOR: break;
  case IR_NEAREST_CEIL: *B += *C - 1; break;
  }
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Builds axis d of the resize; UNSUPPORTED where exact integers do not fit
 * the shader's words or cannot reproduce the reference. */
static vkml_status resize_axis(const ir_resize_params *p, int d, int64_t in, int64_t out,
                               rs_axis *ax, bool *identity) {
  int64_t A, B, C;
  *identity = false;
  if (!exact_map(p, d, in, out, &A, &B, &C))
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "resize: the scale of axis %d is beyond the GPU kernel's exact "
                            "integer coordinates", d);
  /* linear and cubic share the plain map (cubic takes its taps in the shader) */
  bool linear = p->mode != IR_RESIZE_NEAREST;
  if (!linear) nearest_map(p->nearest, &A, &B, &C);
  int64_t span;
  if (A > UINT32_MAX || C > UINT32_MAX || C <= 0 || !mul_ok(out - 1, A, LIM, &span) ||
      (B < 0 ? -B : B) > LIM)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "resize: the coordinate map of axis %d needs more than 32-bit "
                            "factors", d);
  if (linear) {
    /* one element to one: every tap clamps to it, the weights sum to 1 */
    *identity = (in == out && A == C && B == 0) || (in == 1 && out == 1);
  } else {
    /* the reference in double must agree with the exact map everywhere */
    double scale, len_resized;
    ir_resize_axis_scale(p, d, in, out, &scale, &len_resized);
    bool same = in == out;
    for (int64_t o = 0; o < out; o++) {
      double xo = ir_resize_coord(p->coord, (double)o, scale, in, out, len_resized);
      int64_t want = ir_resize_nearest(p->nearest, xo, in);
      int64_t got = floor_div(o * A + B, C);
      got = got < 0 ? 0 : (got >= in ? in - 1 : got);
      if (got != want)
        return vkml_status_make(VKML_CODE_UNSUPPORTED,
                                "resize: axis %d output %lld lies on a rounding tie the "
                                "reference resolves in double", d, (long long)o);
      same = same && want == o;
    }
    *identity = same;
  }
  ax->a = A, ax->b = B, ax->c = C, ax->in = in;
  ax->wide = span + (B > 0 ? B : 0) > INT32_MAX || B < INT32_MIN || (in - 1) * C > INT32_MAX;
  return VKML_OK;
}

vkml_status cg_node_resize(const ir_node *n, const cg_template *st, const cg_schedule *s,
                           const ir_target *t, cg_kernel *out) {
  memset(out, 0, sizeof *out);
  if (n->n_inputs != 1 || n->n_outputs != 1)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "resize: expects 1 input and 1 output");
  const ir_type *x = &n->inputs[0]->type, *y = &n->outputs[0]->type;
  ir_resize_params p;
  VKML_RETURN_IF_ERROR(ir_resize_params_get(n, x, &p));
  bool cubic = p.mode == IR_RESIZE_CUBIC;
  bool linear = p.mode == IR_RESIZE_LINEAR || cubic; /* interpolating */
  if (linear && x->dtype != IR_F32 && x->dtype != IR_F16)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "resize: %s of %s (f32 and f16 only)",
                            cubic ? "cubic" : "linear", ir_dtype_name(x->dtype));
  ir_type want = ir_type_make(x->dtype, x->rank, p.out_dims);
  if (!ir_type_equal(&want, y))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "resize: output type differs from the resized input");
  int64_t n_out = ir_type_numel(y);

  /* axes innermost first; size-1 outputs folded into the base where they
   * read one element, neighbouring plain axes merged */
  rs_axis ax[IR_MAX_RANK];
  int rank = 0, n_res = 0, n_wide = 0;
  int64_t base = 0, xs = 1;
  for (int d = x->rank - 1; d >= 0 && n_out > 0; xs *= x->dims[d], d--) {
    int64_t in = x->dims[d], o = y->dims[d];
    rs_axis a = {o, xs, 0, 0, 0, in, false};
    bool identity;
    VKML_RETURN_IF_ERROR(resize_axis(&p, d, in, o, &a, &identity));
    if (identity) a.a = a.b = a.c = 0;
    if (o == 1 && (a.c == 0 || !linear)) {
      /* one output coordinate reading one input element */
      if (a.c != 0) {
        int64_t i0 = floor_div(a.b, a.c);
        base += (i0 < 0 ? 0 : (i0 >= in ? in - 1 : i0)) * xs;
      }
      continue;
    }
    if (a.c == 0 && rank > 0 && ax[rank - 1].c == 0 &&
        xs == ax[rank - 1].s * ax[rank - 1].d) {
      ax[rank - 1].d *= o;
      continue;
    }
    n_res += a.c != 0;
    n_wide += a.c != 0 && a.wide;
    ax[rank++] = a;
  }
  if (n_res > MAX_RESIZED || 3 + 2 * rank + 5 * n_res + n_wide > CG_MAX_SPEC)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "resize: %d resized axes (the GPU kernel "
                            "takes at most %d)", n_res, MAX_RESIZED);
  if (cubic && n_res > 2)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "resize: cubic over %d axes (the GPU "
                            "kernel takes at most 2)", n_res);
  /* cubic: the clamped coordinate (in + 2) * C within 31 bits, no wide axis */
  for (int i = 0; cubic && i < rank; i++)
    if (ax[i].c != 0 && (ax[i].wide || (ax[i].in + 2) * ax[i].c > INT32_MAX / 2))
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "resize: cubic coordinates of an axis "
                              "of %lld beyond 31 bits", (long long)ax[i].in);

  VKML_RETURN_IF_ERROR(cg_data_begin(out, &cg_data_resize_template, n, st, s, t));
  VKML_RETURN_IF_ERROR(cg_data_check_values(n, t));
  int64_t es = (int64_t)ir_dtype_size(x->dtype), g = 1;
  if (!linear && rank > 0 && ax[0].c == 0 && ax[0].s == 1) {
    int64_t vals[IR_MAX_RANK + 2];
    int nv = 0;
    vals[nv++] = base;
    vals[nv++] = ax[0].d;
    for (int i = 1; i < rank; i++) vals[nv++] = ax[i].s;
    g = cg_data_group(es, out->schedule.v[CG_DATA_KNOB_UNIT], vals, nv);
  }
  if (linear && x->dtype == IR_F16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "resize: f16 needs 16-bit storage, which %s lacks", t->name);
  if (!linear) VKML_RETURN_IF_ERROR(cg_data_define_unit(out, es * g, t));
  else VKML_RETURN_IF_ERROR(cg_kernel_define(out, "ELEM_BYTES", "%d", (int)es));
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "LINEAR", "%d", linear));
  if (cubic) {
    VKML_RETURN_IF_ERROR(cg_kernel_define(out, "CUBIC", "1"));
    VKML_RETURN_IF_ERROR(cg_kernel_define(out, "CUBIC_A", "%.9g", (double)p.cubic_coeff_a));
    VKML_RETURN_IF_ERROR(cg_kernel_define(out, "EXCLUDE", "%d", p.exclude_outside ? 1 : 0));
  }
  VKML_RETURN_IF_ERROR(cg_kernel_define(out, "DTYPE_F16", "%d", linear && x->dtype == IR_F16));
  if (g > 1) {
    base /= g;
    ax[0].d /= g;
    for (int i = 1; i < rank; i++) ax[i].s /= g;
  }
  int64_t units = n_out / g;
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_N, (uint32_t)units));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_RANK, (uint32_t)rank));
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_BASE, (uint32_t)base));
  for (int i = 0; i < rank; i++) {
    const rs_axis *a = &ax[i];
    uint32_t k = (uint32_t)i;
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_D0 + k, (uint32_t)a->d));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_S0 + k, (uint32_t)a->s));
    if (a->c == 0) continue;
    uint64_t b = (uint64_t)a->b;
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_C0 + k, (uint32_t)a->c));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_A0 + k, (uint32_t)a->a));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_BL0 + k, (uint32_t)b));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_BH0 + k, (uint32_t)(b >> 32)));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_I0 + k, (uint32_t)a->in));
    if (a->wide) VKML_RETURN_IF_ERROR(cg_kernel_spec(out, CG_SPEC_DATA_RESIZE_W0 + k, 1));
  }
  out->n_buffers = 2;
  return cg_data_grid(out, units, t);
}

const cg_template cg_data_resize_template = {"data_resize", "data_resize.comp", CG_DATA_KNOBS};
