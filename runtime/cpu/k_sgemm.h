/* The fast path of the CPU kernels: an fp32 GEMM blocked for cache, with a
 * 6x16 register-tiled micro-kernel (12x16 on CPUs with AVX-512), threaded over blocks of the output on a
 * pool (threads.h). Conv (an implicit im2col through load_b), Gemm and MatMul
 * run on it. It accumulates in float: results agree with the double
 * reference kernels within fp32 rounding, not bit for bit. Internal to
 * runtime/cpu/. */
#ifndef RT_CPU_K_SGEMM_H
#define RT_CPU_K_SGEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/params.h"
#include "threads.h"

/* The fast kernels' functions are compiled twice on x86-64 Linux with GCC,
 * for x86-64-v3 (AVX2 + FMA) and the baseline, picked at load time; the
 * files using it contract products into FMAs (a pragma after their
 * includes, as k_sgemm.c's). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define RT_CPU_FAST_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define RT_SGEMM_HAS_WIDE 1 /* k_sgemm.c's AVX-512 tile, chosen at run time */
#else
#define RT_CPU_FAST_CLONES
#define RT_SGEMM_HAS_WIDE 0
#endif

/* The widest column block a job covers (rt_sgemm_load_fn's nj). */
#define RT_SGEMM_NC_MAX 256

/* Columns of B are packed in panels of this many (the micro-kernel's width). */
#define RT_SGEMM_NR 16

/* Packs B(k, j) for k in [k0, k0+kc), j in [j0, j0+nj) of one batch, whose
 * base (b + b_off[batch]) is b, into panels of RT_SGEMM_NR columns: with
 * jj = j - j0, element dst[(jj / NR) * kc * NR + (k - k0) * NR + jj % NR].
 * Columns past nj in the last panel are left alone. */
typedef void (*rt_sgemm_load_fn)(const void *user, const float *b, int64_t k0, int64_t kc,
                                 int64_t j0, int64_t nj, float *dst);

/* For every batch t in [0, n_batch), every i < m, j < n:
 *   C(i,j) = act(alpha * sum_k A(i,k) B(k,j) + bias[bias_off[t] + i] + beta * D(i,j))
 * with A(i,k) = a[a_off[t] + i*a_rs + k*a_cs], B(k,j) = b[b_off[t] + k*b_rs + j*b_cs]
 * (or load_b's), C(i,j) = c[c_off[t] + i*ldc + j], D(i,j) = d[i*d_rs + j*d_cs].
 * An offset array NULL means 0 for every batch; bias and d are optional;
 * alpha applies only where scaled is set (1 otherwise). */
typedef struct rt_sgemm {
  int64_t m, n, k, n_batch;
  const float *a;
  int64_t a_rs, a_cs;
  const int64_t *a_off;
  const float *b;
  int64_t b_rs, b_cs;
  const int64_t *b_off;
  rt_sgemm_load_fn load_b; /* replaces the strided read of B when set */
  const void *load_b_user;
  float *c;
  int64_t ldc;
  const int64_t *c_off;
  bool scaled;
  float alpha;
  const float *bias;
  const int64_t *bias_off;
  const float *d;
  int64_t d_rs, d_cs;
  float beta;
  ir_act_params act;
} rt_sgemm;

/* Runs g on the pool (NULL: the caller alone); false when out of memory
 * for the per-thread blocks. */
bool rt_sgemm_run(rt_threads *pool, const rt_sgemm *g);

/* A 2-D convolution's geometry (NCHW, weight [M, C/G, KH, KW]). */
typedef struct rt_conv_shape {
  int64_t n, c, h, w;   /* input */
  int64_t m, kh, kw, g; /* output channels, kernel, groups */
  int64_t sh, sw, dh, dw, pt, pl;
  int64_t oh, ow;
} rt_conv_shape;

/* y = act(conv(x, w) + b) in fp32 on the pool (k_conv_fast.c): depthwise
 * convolutions on a loop of their own, the rest as GEMMs over an implicit
 * im2col (1x1 stride-1 unpadded ones reading x as it is). b may be NULL.
 * False when out of memory. */
bool rt_cpu_conv2d_fast(rt_threads *pool, const rt_conv_shape *s, const float *x,
                        const float *w, const float *b, const ir_act_params *act, float *y);

/* conv_transpose2d's y = act(convT(x, w) + b) in fp32 (k_conv_fast.c), s
 * with x's dims and y's (weight [C, M/G, KH, KW]): per (image, group) a
 * GEMM of W^T and x into columns, scattered into y plane by plane. b may be
 * NULL. False when out of memory. */
bool rt_cpu_conv_transpose2d_fast(rt_threads *pool, const rt_conv_shape *s, const float *x,
                                  const float *w, const float *b, const ir_act_params *act,
                                  float *y);

/* y[i] = act(y[i]) for n floats: the epilogue's activation, in float for
 * the piecewise-linear ones and through ir_act_apply's double otherwise. */
void rt_sgemm_act(const ir_act_params *act, float *y, int64_t n);

#endif
