/* conv2d's fast path in fp32: a GEMM per (image, group) of W [M/G, C/G*KH*KW]
 * times the im2col matrix, whose rows this file's loader writes straight
 * into the GEMM's B block (no whole im2col buffer); depthwise convolutions
 * (one input channel per group) on a direct loop over output rows instead,
 * where a GEMM of K = KH*KW would be all packing. */
#include <stdlib.h>
#include <string.h>

#include "k_sgemm.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#elif defined(__clang__)
#pragma clang fp contract(fast)
#endif

/* The outputs o in [*lo, *hi) of 0..count-1 whose position o*s + off lies in
 * [0, n) (as k_conv.c's). */
static void tap_range(int64_t off, int64_t s, int64_t n, int64_t count, int64_t *lo,
                      int64_t *hi) {
  int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t h = n - off <= 0 ? 0 : (n - off - 1) / s + 1;
  if (h > count) h = count;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* A run of output pixels of one output row inside one panel of the block:
 * its row, first column, length, and where its first element goes for k = 0. */
typedef struct seg {
  int64_t oh, ow, len, at;
} seg;

/* Rows k0..k0+kc of the im2col matrix (k = (ic, kh, kw)), columns j0..j0+nj
 * (j = oh*OW + ow), of one image and group at x, packed as rt_sgemm_load_fn
 * says: runs of one input row, each a copy where the stride is 1. */
static void im2col_rows(const void *user, const float *x, int64_t k0, int64_t kc, int64_t j0,
                        int64_t nj, float *dst) {
  const rt_conv_shape *s = user;
  enum { NR = RT_SGEMM_NR };
  seg segs[RT_SGEMM_NC_MAX];
  int n_seg = 0;
  for (int64_t j = j0; j < j0 + nj && n_seg < RT_SGEMM_NC_MAX;) {
    int64_t jj = j - j0, oh = j / s->ow, ow = j % s->ow;
    int64_t len = s->ow - ow;
    if (len > j0 + nj - j) len = j0 + nj - j;
    if (len > NR - jj % NR) len = NR - jj % NR;
    segs[n_seg++] = (seg){oh, ow, len, jj / NR * NR * kc + jj % NR};
    j += len;
  }
  int64_t khw = s->kh * s->kw;
  int64_t ic = k0 / khw, kh = k0 % khw / s->kw, kw = k0 % s->kw;
  for (int64_t k = 0; k < kc; k++) {
    float *d = dst + k * NR;
    const float *xc = x + ic * s->h * s->w;
    for (int i = 0; i < n_seg; i++) {
      const seg *sg = &segs[i];
      float *ds = d + sg->at;
      int64_t ih = sg->oh * s->sh - s->pt + kh * s->dh;
      if (ih < 0 || ih >= s->h) {
        memset(ds, 0, (size_t)sg->len * sizeof *ds);
        continue;
      }
      const float *xr = xc + ih * s->w;
      int64_t iw0 = sg->ow * s->sw - s->pl + kw * s->dw, lo, hi;
      tap_range(iw0, s->sw, s->w, sg->len, &lo, &hi);
      for (int64_t t = 0; t < lo; t++) ds[t] = 0;
      if (s->sw == 1)
        memcpy(ds + lo, xr + iw0 + lo, (size_t)(hi - lo) * sizeof *ds);
      else
        for (int64_t t = lo; t < hi; t++) ds[t] = xr[iw0 + t * s->sw];
      for (int64_t t = hi; t < sg->len; t++) ds[t] = 0;
    }
    if (++kw == s->kw) {
      kw = 0;
      if (++kh == s->kh) kh = 0, ic++;
    }
  }
}

typedef struct dw_job {
  const rt_conv_shape *s;
  const float *x, *w, *b;
  const ir_act_params *act;
  float *y;
} dw_job;

/* Output planes [begin, end) of a depthwise convolution, row by row. */
RT_CPU_FAST_CLONES
static void depthwise_planes(void *user, int64_t begin, int64_t end, int worker) {
  (void)worker;
  const dw_job *job = user;
  const rt_conv_shape *s = job->s;
  int64_t mg = s->m / s->g;
  for (int64_t pl = begin; pl < end; pl++) {
    int64_t n = pl / s->m, m = pl % s->m, g = m / mg;
    const float *xp = job->x + (n * s->c + g) * s->h * s->w;
    const float *wp = job->w + m * s->kh * s->kw;
    float bias = job->b ? job->b[m] : 0.0f;
    float *yp = job->y + pl * s->oh * s->ow;
    for (int64_t oh = 0; oh < s->oh; oh++) {
      float *restrict row = yp + oh * s->ow;
      for (int64_t ow = 0; ow < s->ow; ow++) row[ow] = bias;
      for (int64_t kh = 0; kh < s->kh; kh++) {
        int64_t ih = oh * s->sh - s->pt + kh * s->dh;
        if (ih < 0 || ih >= s->h) continue;
        const float *restrict xr = xp + ih * s->w;
        for (int64_t kw = 0; kw < s->kw; kw++) {
          int64_t off = kw * s->dw - s->pl, lo, hi;
          tap_range(off, s->sw, s->w, s->ow, &lo, &hi);
          float wv = wp[kh * s->kw + kw];
          if (s->sw == 1)
            for (int64_t ow = lo; ow < hi; ow++) row[ow] += wv * xr[ow + off];
          else
            for (int64_t ow = lo; ow < hi; ow++) row[ow] += wv * xr[ow * s->sw + off];
        }
      }
      rt_sgemm_act(job->act, row, s->ow);
    }
  }
}

/* Outputs per image and group up to which the im2col matrix is built whole
 * (COL_MAX_FLOATS at most) and shared by the GEMM's jobs: with few pixels
 * the jobs split the output channels, and each would gather the same rows
 * again, in runs of one short output row (ResNet-50's 3x3 at 7x7 ran at
 * 56 GFLOP/s on one core against 84-94 at 14x14 to 56x56;
 * bench/results/2026-11-28-cpu-im2col.md). */
#define COL_MAX_PLANE 1024
#define COL_MAX_FLOATS ((int64_t)1 << 22)

typedef struct col_job {
  const rt_conv_shape *s;
  const float *x; /* the image and group's first input channel */
  float *col;     /* [K][plane] */
} col_job;

/* Rows [begin, end) of the im2col matrix: row k = (ic, kh, kw), column
 * oh*OW + ow, zeros outside the input. */
RT_CPU_FAST_CLONES
static void col_rows(void *user, int64_t begin, int64_t end, int worker) {
  (void)worker;
  const col_job *job = user;
  const rt_conv_shape *s = job->s;
  int64_t khw = s->kh * s->kw, plane = s->oh * s->ow;
  for (int64_t k = begin; k < end; k++) {
    int64_t ic = k / khw, kh = k % khw / s->kw, kw = k % s->kw;
    const float *xc = job->x + ic * s->h * s->w;
    float *d = job->col + k * plane;
    int64_t offh = kh * s->dh - s->pt, offw = kw * s->dw - s->pl, ow0, ow1;
    tap_range(offw, s->sw, s->w, s->ow, &ow0, &ow1);
    for (int64_t oh = 0; oh < s->oh; oh++) {
      float *restrict dr = d + oh * s->ow;
      int64_t ih = oh * s->sh + offh;
      if (ih < 0 || ih >= s->h) {
        memset(dr, 0, sizeof *dr * (size_t)s->ow);
        continue;
      }
      const float *restrict xr = xc + ih * s->w + offw;
      for (int64_t ow = 0; ow < ow0; ow++) dr[ow] = 0.0f;
      if (s->sw == 1)
        memcpy(dr + ow0, xr + ow0, sizeof *dr * (size_t)(ow1 - ow0));
      else
        for (int64_t ow = ow0; ow < ow1; ow++) dr[ow] = xr[ow * s->sw];
      for (int64_t ow = ow1; ow < s->ow; ow++) dr[ow] = 0.0f;
    }
  }
}

/* The GEMMs over whole im2col matrices, one (image, group) at a time. */
static bool conv_via_col(rt_threads *pool, const rt_conv_shape *s, const float *x,
                         const float *w, const float *b, const ir_act_params *act, float *y) {
  int64_t cg = s->c / s->g, mg = s->m / s->g, plane = s->oh * s->ow, k = cg * s->kh * s->kw;
  float *col = malloc(sizeof *col * (size_t)(k * plane));
  if (!col) return false;
  bool ok = true;
  for (int64_t n = 0; ok && n < s->n; n++)
    for (int64_t g = 0; ok && g < s->g; g++) {
      col_job job = {s, x + (n * s->c + g * cg) * s->h * s->w, col};
      rt_parallel_for(pool, k, 16, col_rows, &job);
      rt_sgemm gm = {
          .m = mg, .n = plane, .k = k, .n_batch = 1,
          .a = w + g * mg * k, .a_rs = k, .a_cs = 1,
          .b = col, .b_rs = plane, .b_cs = 1,
          .c = y + (n * s->m + g * mg) * plane, .ldc = plane,
          .bias = b ? b + g * mg : NULL,
          .act = *act,
      };
      ok = rt_sgemm_run(pool, &gm);
    }
  free(col);
  return ok;
}

bool rt_cpu_conv2d_fast(rt_threads *pool, const rt_conv_shape *s, const float *x,
                        const float *w, const float *b, const ir_act_params *act, float *y) {
  int64_t cg = s->c / s->g, mg = s->m / s->g, plane = s->oh * s->ow;
  if (cg == 1 && s->g > 1) {
    dw_job job = {s, x, w, b, act, y};
    int64_t per = s->oh * s->ow * s->kh * s->kw;
    rt_parallel_for(pool, s->n * s->m, per > 65536 ? 1 : 65536 / (per + 1) + 1,
                        depthwise_planes, &job);
    return true;
  }
  int64_t n_batch = s->n * s->g;
  int64_t *offs = malloc(sizeof *offs * (size_t)(4 * n_batch));
  if (!offs) return false;
  int64_t *a_off = offs, *b_off = offs + n_batch, *c_off = offs + 2 * n_batch,
          *bias_off = offs + 3 * n_batch;
  int64_t k = cg * s->kh * s->kw;
  for (int64_t n = 0; n < s->n; n++)
    for (int64_t g = 0; g < s->g; g++) {
      int64_t t = n * s->g + g;
      a_off[t] = g * mg * k;
      b_off[t] = (n * s->c + g * cg) * s->h * s->w;
      c_off[t] = (n * s->m + g * mg) * plane;
      bias_off[t] = g * mg;
    }
  bool direct = s->kh == 1 && s->kw == 1 && s->sh == 1 && s->sw == 1 && s->pt == 0 &&
                s->pl == 0 && s->oh == s->h && s->ow == s->w;
  if (!direct && plane <= COL_MAX_PLANE && k * plane <= COL_MAX_FLOATS) {
    free(offs);
    return conv_via_col(pool, s, x, w, b, act, y);
  }
  rt_sgemm gm = {
      .m = mg, .n = plane, .k = k, .n_batch = n_batch,
      .a = w, .a_rs = k, .a_cs = 1, .a_off = a_off,
      .b = x, .b_rs = s->h * s->w, .b_cs = 1, .b_off = b_off,
      .load_b = direct ? NULL : im2col_rows, .load_b_user = s,
      .c = y, .ldc = plane, .c_off = c_off,
      .bias = b, .bias_off = bias_off,
      .act = *act,
  };
  bool ok = rt_sgemm_run(pool, &gm);
  free(offs);
  return ok;
}

typedef struct col2im_job {
  const rt_conv_shape *s;
  const float *col, *b; /* col: [batch of the chunk][Mg*KH*KW][H*W] */
  const ir_act_params *act;
  float *y;
  int64_t n0; /* the chunk's first (image, group) */
} col2im_job;

/* Output planes [begin, end) of the chunk's (image, group)s: the bias, each
 * tap's column rows added at their output positions, the activation. */
RT_CPU_FAST_CLONES
static void col2im_planes(void *user, int64_t begin, int64_t end, int worker) {
  (void)worker;
  const col2im_job *job = user;
  const rt_conv_shape *s = job->s;
  int64_t mg = s->m / s->g, p = s->h * s->w, khw = s->kh * s->kw;
  for (int64_t pl = begin; pl < end; pl++) {
    int64_t t = pl / mg, oc = pl % mg, bt = job->n0 + t;
    int64_t n = bt / s->g, g = bt % s->g, m = g * mg + oc;
    float *yp = job->y + (n * s->m + m) * s->oh * s->ow;
    float bias = job->b ? job->b[m] : 0.0f;
    for (int64_t i = 0; i < s->oh * s->ow; i++) yp[i] = bias;
    const float *cp = job->col + (t * mg + oc) * khw * p;
    for (int64_t kh = 0; kh < s->kh; kh++) {
      int64_t offh = kh * s->dh - s->pt, ih0, ih1;
      tap_range(offh, s->sh, s->oh, s->h, &ih0, &ih1);
      for (int64_t kw = 0; kw < s->kw; kw++) {
        int64_t offw = kw * s->dw - s->pl, iw0, iw1;
        tap_range(offw, s->sw, s->ow, s->w, &iw0, &iw1);
        const float *cr = cp + (kh * s->kw + kw) * p;
        for (int64_t ih = ih0; ih < ih1; ih++) {
          float *restrict yr = yp + (ih * s->sh + offh) * s->ow + offw;
          const float *restrict xr = cr + ih * s->w;
          if (s->sw == 1)
            for (int64_t iw = iw0; iw < iw1; iw++) yr[iw] += xr[iw];
          else
            for (int64_t iw = iw0; iw < iw1; iw++) yr[iw * s->sw] += xr[iw];
        }
      }
    }
    rt_sgemm_act(job->act, yp, s->oh * s->ow);
  }
}

bool rt_cpu_conv_transpose2d_fast(rt_threads *pool, const rt_conv_shape *s, const float *x,
                                  const float *w, const float *b, const ir_act_params *act,
                                  float *y) {
  int64_t cg = s->c / s->g, mg = s->m / s->g, p = s->h * s->w;
  int64_t rows = mg * s->kh * s->kw, per = rows * p, n_batch = s->n * s->g;
  /* (image, group)s per chunk: the column buffer within 2^26 floats */
  int64_t chunk = per > 0 && ((int64_t)1 << 26) / per > 1 ? ((int64_t)1 << 26) / per : 1;
  if (chunk > n_batch) chunk = n_batch;
  float *col = malloc(sizeof *col * (size_t)(chunk * per));
  int64_t *offs = malloc(sizeof *offs * (size_t)(3 * chunk));
  bool ok = col && offs;
  for (int64_t n0 = 0; ok && n0 < n_batch; n0 += chunk) {
    int64_t nb = n_batch - n0 < chunk ? n_batch - n0 : chunk;
    for (int64_t t = 0; t < nb; t++) {
      int64_t n = (n0 + t) / s->g, g = (n0 + t) % s->g;
      offs[t] = g * cg * rows;
      offs[chunk + t] = (n * s->c + g * cg) * p;
      offs[2 * chunk + t] = t * per;
    }
    /* col[(oc, kh, kw)][pixel] = sum over ic of w[ic][oc, kh, kw] * x[ic][pixel] */
    rt_sgemm gm = {
        .m = rows, .n = p, .k = cg, .n_batch = nb,
        .a = w, .a_rs = 1, .a_cs = rows, .a_off = offs,
        .b = x, .b_rs = p, .b_cs = 1, .b_off = offs + chunk,
        .c = col, .ldc = p, .c_off = offs + 2 * chunk,
    };
    ok = rt_sgemm_run(pool, &gm);
    col2im_job job = {s, col, b, act, y, n0};
    if (ok) rt_parallel_for(pool, nb * mg, 1, col2im_planes, &job);
  }
  free(col);
  free(offs);
  return ok;
}
