/* The blocked fp32 GEMM under the fast CPU kernels (Goto's scheme, small):
 * the output splits into jobs of at most MC rows x NC columns of one batch,
 * spread over the pool; a job walks K in KC slices, packs its A slice into
 * MR-row panels and copies its B slice into a row-major block (where conv
 * builds its im2col rows), then runs the MR x NR micro-kernel over the
 * block, B's NR-column panel staying in L1 while A's panels stream from L2.
 * The last K slice's tile store applies alpha, the bias and a relu in
 * registers; beta * D and the other activations run once per job on the
 * finished block.
 *
 * Vectorized without intrinsics: GCC vector types. The narrow tile is 6x16
 * (12 vectors of 8 floats), compiled once for x86-64-v3 (AVX2 + FMA) and
 * once for the baseline, chosen at load time (target_clones); on a CPU
 * with AVX-512 and a pool of few threads the wide tile, 12x16 (12 vectors
 * of 16 floats: a row of B's panel in one register), compiled for
 * x86-64-v4, runs instead (use_wide; VKML_CPU_ISA=avx2 or avx512 picks one
 * tile; the tests run both). Both read
 * B's panels of 16 columns, so the loaders (conv's im2col) serve either.
 * Products are contracted into FMAs in this file only. */
#include "k_sgemm.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#elif defined(__clang__)
#pragma clang fp contract(fast)
#endif

/* MR rows of the narrow tile, MRW of the wide; MC_MAX a multiple of both */
enum { MR = 6, MRW = 12, NR = RT_SGEMM_NR, KC = 256, MC_MAX = 96, NC_MAX = RT_SGEMM_NC_MAX };

typedef float v8 __attribute__((vector_size(32)));
/* the same, at any float alignment (the C tile's rows) */
typedef float v8u __attribute__((vector_size(32), aligned(4)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));
typedef int32_t v16i __attribute__((vector_size(64)));

/* What the last K slice's tile store applies in registers: alpha, the
 * rows' bias, a relu (the rest of the epilogue runs after the job). */
typedef struct tile_ep {
  bool final;        /* the last K slice: apply the rest */
  bool scaled, relu;
  float alpha;
  const float *bias; /* the tile's first row's bias, or NULL */
} tile_ep;

/* A partial tile's mm x nn results t (rows of NR) stored into C as the
 * full tiles store theirs (added when acc, the last slice's epilogue). */
static inline __attribute__((always_inline)) void store_partial(const float (*t)[NR],
                                                                float *restrict c, int64_t ldc,
                                                                int mm, int nn, bool acc,
                                                                const tile_ep *ep) {
  for (int i = 0; i < mm; i++)
    for (int j = 0; j < nn; j++) {
      float v = t[i][j];
      if (acc) v += c[i * ldc + j];
      if (ep->final) {
        if (ep->scaled) v *= ep->alpha;
        if (ep->bias) v += ep->bias[i];
        if (ep->relu) v = v > 0 ? v : 0;
      }
      c[i * ldc + j] = v;
    }
}

/* The MR x NR tile of C at c (row stride ldc) from kc steps of packed A
 * ([kc][MR]) and packed B ([kc][NR], 32-byte aligned): stored, or added
 * when acc; only mm x nn of it exists. */
static inline __attribute__((always_inline)) void micro_tile(
    int64_t kc, const float *restrict a, const float *restrict b,
    float *restrict c, int64_t ldc, int mm, int nn, bool acc, const tile_ep *ep) {
  /* C's lines are usually not cached (a conv's output is written once):
   * start fetching them now, under the k loop */
  for (int i = 0; i < mm; i++) {
    __builtin_prefetch(c + i * ldc, 1);
    __builtin_prefetch(c + i * ldc + NR - 1, 1);
  }
  v8 c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
  v8 c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
  for (int64_t k = 0; k < kc; k++) {
    v8 b0 = *(const v8 *)(b + k * NR), b1 = *(const v8 *)(b + k * NR + 8);
    const float *ak = a + k * MR;
    c00 += b0 * ak[0], c01 += b1 * ak[0];
    c10 += b0 * ak[1], c11 += b1 * ak[1];
    c20 += b0 * ak[2], c21 += b1 * ak[2];
    c30 += b0 * ak[3], c31 += b1 * ak[3];
    c40 += b0 * ak[4], c41 += b1 * ak[4];
    c50 += b0 * ak[5], c51 += b1 * ak[5];
  }
  v8 r[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  if (mm == MR && nn == NR) {
    for (int i = 0; i < MR; i++)
      for (int h = 0; h < 2; h++) {
        v8 v = r[i][h];
        float *ci = c + i * ldc + 8 * h;
        if (acc) v += *(v8u *)ci;
        if (ep->final) {
          if (ep->scaled) v *= ep->alpha;
          if (ep->bias) v += ep->bias[i];
          if (ep->relu) v = (v8)((v > 0) & (v8i)v); /* NaN to 0, as x > 0 ? x : 0 */
        }
        *(v8u *)ci = v;
      }
    return;
  }
  float t[MR][NR];
  for (int i = 0; i < MR; i++) {
    *(v8u *)t[i] = r[i][0];
    *(v8u *)(t[i] + 8) = r[i][1];
  }
  store_partial(t, c, ldc, mm, nn, acc, ep);
}

/* The wide tile: MRW x NR from packed A ([kc][MRW]) and B ([kc][NR],
 * 64-byte aligned), as micro_tile. */
static inline __attribute__((always_inline)) void micro_tile_wide(
    int64_t kc, const float *restrict a, const float *restrict b,
    float *restrict c, int64_t ldc, int mm, int nn, bool acc, const tile_ep *ep) {
  for (int i = 0; i < mm; i++) __builtin_prefetch(c + i * ldc, 1);
  /* unrolled: the accumulators must live in registers (a rolled loop
   * leaves them in memory, 1.5x slower than the narrow tile) */
  v16 r[MRW];
#pragma GCC unroll 12
  for (int i = 0; i < MRW; i++) r[i] = (v16){0};
  for (int64_t k = 0; k < kc; k++) {
    v16 bk = *(const v16 *)(b + k * NR);
    const float *ak = a + k * MRW;
#pragma GCC unroll 12
    for (int i = 0; i < MRW; i++) r[i] += bk * ak[i];
  }
  if (mm == MRW && nn == NR) {
    for (int i = 0; i < MRW; i++) {
      v16 v = r[i];
      float *ci = c + i * ldc;
      if (acc) v += *(v16u *)ci;
      if (ep->final) {
        if (ep->scaled) v *= ep->alpha;
        if (ep->bias) v += ep->bias[i];
        if (ep->relu) v = (v16)((v > 0) & (v16i)v); /* NaN to 0, as x > 0 ? x : 0 */
      }
      *(v16u *)ci = v;
    }
    return;
  }
  float t[MRW][NR];
  for (int i = 0; i < MRW; i++) *(v16u *)t[i] = r[i];
  store_partial(t, c, ldc, mm, nn, acc, ep);
}

/* A's rows [i0, i0+mi) x columns [k0, k0+kc) as panels of mr rows,
 * [panel][k][mr], zero rows past mi. */
static inline __attribute__((always_inline)) void pack_a(const float *a, int64_t rs, int64_t cs,
                                                         int64_t i0, int64_t mi, int64_t k0,
                                                         int64_t kc, int mr, float *restrict dst) {
  for (int64_t p = 0; p < mi; p += mr) {
    float *d = dst + p * kc;
    int rows = mi - p < mr ? (int)(mi - p) : mr;
    for (int r = 0; r < mr; r++) {
      if (r >= rows) {
        for (int64_t k = 0; k < kc; k++) d[k * mr + r] = 0;
        continue;
      }
      const float *src = a + (i0 + p + r) * rs + k0 * cs;
      for (int64_t k = 0; k < kc; k++) d[k * mr + r] = src[k * cs];
    }
  }
}

/* B's rows [k0, k0+kc) x columns [j0, j0+nj) in panels of NR columns,
 * [panel][k][NR] (rt_sgemm_load_fn's layout). */
static inline __attribute__((always_inline)) void pack_b(const float *b, int64_t rs, int64_t cs,
                                                         int64_t k0, int64_t kc, int64_t j0,
                                                         int64_t nj, float *restrict dst) {
  for (int64_t p = 0; p < nj; p += NR) {
    float *d = dst + p * kc;
    int64_t cols = nj - p < NR ? nj - p : NR;
    const float *src = b + k0 * rs + (j0 + p) * cs;
    if (cs == 1 && cols == NR)
      for (int64_t k = 0; k < kc; k++) {
        *(v8 *)(d + k * NR) = *(const v8u *)(src + k * rs);
        *(v8 *)(d + k * NR + 8) = *(const v8u *)(src + k * rs + 8);
      }
    else if (rs == 1)
      for (int64_t j = 0; j < cols; j++)
        for (int64_t k = 0; k < kc; k++) d[k * NR + j] = src[j * cs + k];
    else
      for (int64_t k = 0; k < kc; k++)
        for (int64_t j = 0; j < cols; j++) d[k * NR + j] = src[k * rs + j * cs];
  }
}

static int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

typedef struct sgemm_job {
  const rt_sgemm *g;
  int64_t mc, nc, kc, n_mb, n_nb;
  float *scratch; /* per worker: floats_per_worker */
  int64_t floats_per_worker;
} sgemm_job;

/* Whether the tile store applies the activation. */
static bool relu_fused(const rt_sgemm *g) {
  return !g->d && (g->act.kind == IR_ACT_NONE || g->act.kind == IR_ACT_RELU);
}

/* The epilogue's part the tile store left: beta * D, then the activation. */
static void epilogue(const rt_sgemm *g, float *c, int64_t i0, int64_t mi, int64_t j0,
                     int64_t nj) {
  if (relu_fused(g)) return;
  for (int64_t i = i0; i < i0 + mi; i++) {
    float *row = c + i * g->ldc + j0;
    if (g->d) {
      const float *d = g->d + i * g->d_rs + j0 * g->d_cs;
      for (int64_t j = 0; j < nj; j++) row[j] += g->beta * d[j * g->d_cs];
    }
    rt_sgemm_act(&g->act, row, nj);
  }
}

/* Jobs [begin, end) on worker's scratch, with the wide tile or the narrow
 * one (a constant where it is inlined). */
static inline __attribute__((always_inline)) void range_body(const sgemm_job *job, int64_t begin,
                                                             int64_t end, int worker, bool wide) {
  const int mr = wide ? MRW : MR;
  const rt_sgemm *g = job->g;
  float *apack = job->scratch + (int64_t)worker * job->floats_per_worker;
  float *bblk = apack + round_up(job->mc * job->kc, 16); /* 64-byte aligned */
  for (int64_t jb = begin; jb < end; jb++) {
    int64_t nb = jb % job->n_nb, mb = (jb / job->n_nb) % job->n_mb, t = jb / (job->n_nb * job->n_mb);
    int64_t i0 = mb * job->mc, mi = g->m - i0 < job->mc ? g->m - i0 : job->mc;
    int64_t j0 = nb * job->nc, nj = g->n - j0 < job->nc ? g->n - j0 : job->nc;
    const float *a = g->a + (g->a_off ? g->a_off[t] : 0);
    const float *b = g->b + (g->b_off ? g->b_off[t] : 0);
    float *c = g->c + (g->c_off ? g->c_off[t] : 0);
    const float *bias = g->bias ? g->bias + (g->bias_off ? g->bias_off[t] : 0) : NULL;
    tile_ep ep = {.scaled = g->scaled, .relu = relu_fused(g) && g->act.kind == IR_ACT_RELU,
                  .alpha = g->alpha};
    if (g->k == 0)
      for (int64_t i = i0; i < i0 + mi; i++) {
        float *row = c + i * g->ldc + j0;
        for (int64_t j = 0; j < nj; j++) row[j] = bias ? bias[i] : 0;
        if (ep.relu) rt_sgemm_act(&g->act, row, nj);
      }
    for (int64_t k0 = 0; k0 < g->k; k0 += KC) {
      int64_t kc = g->k - k0 < KC ? g->k - k0 : KC;
      pack_a(a, g->a_rs, g->a_cs, i0, mi, k0, kc, mr, apack);
      if (g->load_b)
        g->load_b(g->load_b_user, b, k0, kc, j0, nj, bblk);
      else
        pack_b(b, g->b_rs, g->b_cs, k0, kc, j0, nj, bblk);
      if (nj % NR) { /* the last panel's missing columns: results dropped, but no garbage */
        float *last = bblk + nj / NR * NR * kc;
        for (int64_t k = 0; k < kc; k++)
          for (int64_t j = nj % NR; j < NR; j++) last[k * NR + j] = 0;
      }
      ep.final = k0 + kc == g->k;
      for (int64_t jp = 0; jp < nj; jp += NR) {
        int nn = nj - jp < NR ? (int)(nj - jp) : NR;
        for (int64_t ip = 0; ip < mi; ip += mr) {
          int mm = mi - ip < mr ? (int)(mi - ip) : mr;
          ep.bias = bias ? bias + i0 + ip : NULL;
          if (wide)
            micro_tile_wide(kc, apack + ip * kc, bblk + jp * kc,
                            c + (i0 + ip) * g->ldc + j0 + jp, g->ldc, mm, nn, k0 > 0, &ep);
          else
            micro_tile(kc, apack + ip * kc, bblk + jp * kc, c + (i0 + ip) * g->ldc + j0 + jp,
                       g->ldc, mm, nn, k0 > 0, &ep);
        }
      }
    }
    epilogue(g, c, i0, mi, j0, nj);
  }
}

RT_CPU_FAST_CLONES
static void sgemm_range(void *user, int64_t begin, int64_t end, int worker) {
  range_body(user, begin, end, worker, false);
}

#if RT_SGEMM_HAS_WIDE
__attribute__((target("arch=x86-64-v4")))
static void sgemm_range_wide(void *user, int64_t begin, int64_t end, int worker) {
  range_body(user, begin, end, worker, true);
}
#endif

/* Whether the wide tile runs on a pool of `threads`: AVX-512 (x86-64-v4)
 * on this CPU, and at most WIDE_MAX_THREADS threads, unless VKML_CPU_ISA
 * says avx2 (never) or avx512 (always, where the CPU has it). Measured
 * (bench/results/2026-11-28-cpu-avx512.md, ResNet-50's convs): 1.29-1.58x
 * on one core and 1.22-1.63x on two of the dev container's AMD EPYC; on the
 * GPU machine's 16-core Xeon 0.98-1.60x on one thread but 0.42-1.08x on 16,
 * where every core running 512-bit FMAs slows them all. */
#define WIDE_MAX_THREADS 4
static bool use_wide(int threads) {
#if RT_SGEMM_HAS_WIDE
  const char *isa = getenv("VKML_CPU_ISA");
  if (isa && !strcmp(isa, "avx2")) return false;
  bool forced = isa && !strcmp(isa, "avx512");
  __builtin_cpu_init();
  return __builtin_cpu_supports("x86-64-v4") && (forced || threads <= WIDE_MAX_THREADS);
#else
  (void)threads;
  return false;
#endif
}

bool rt_sgemm_run(rt_threads *pool, const rt_sgemm *g) {
  if (g->m <= 0 || g->n <= 0 || g->n_batch <= 0) return true;
  int threads = rt_threads_count(pool);
  sgemm_job job = {.g = g};
  bool wide = use_wide(threads);
  const int mr = wide ? MRW : MR;
  job.mc = g->m < MC_MAX ? round_up(g->m, mr) : MC_MAX;
  job.nc = g->n < NC_MAX ? round_up(g->n, NR) : NC_MAX;
  /* enough jobs to keep every thread busy to the end: smaller blocks
   * (never below a size where packing stops paying for itself) */
#define N_JOBS ((g->m + job.mc - 1) / job.mc * ((g->n + job.nc - 1) / job.nc) * g->n_batch)
  while (threads > 1 && N_JOBS < 4 * threads && job.nc > 64) job.nc = round_up(job.nc / 2, NR);
  while (threads > 1 && N_JOBS < 4 * threads && job.mc > 24) job.mc = round_up(job.mc / 2, mr);
  job.n_mb = (g->m + job.mc - 1) / job.mc;
  job.n_nb = (g->n + job.nc - 1) / job.nc;
  int64_t n_jobs = N_JOBS;
#undef N_JOBS
  job.kc = g->k < KC ? g->k : KC;
  job.floats_per_worker = round_up(job.mc * job.kc, 16) + round_up(job.kc * job.nc, 16);
  void *mem = NULL;
  if (posix_memalign(&mem, 64, (size_t)job.floats_per_worker * (size_t)threads * sizeof(float)))
    return false;
  job.scratch = mem;
#if RT_SGEMM_HAS_WIDE
  rt_parallel_for(pool, n_jobs, 1, wide ? sgemm_range_wide : sgemm_range, &job);
#else
  rt_parallel_for(pool, n_jobs, 1, sgemm_range, &job);
#endif
  free(mem);
  return true;
}

void rt_sgemm_act(const ir_act_params *act, float *y, int64_t n) {
  switch (act->kind) {
  case IR_ACT_NONE: return;
  case IR_ACT_RELU:
    for (int64_t i = 0; i < n; i++) y[i] = y[i] > 0 ? y[i] : 0;
    return;
  default:
    for (int64_t i = 0; i < n; i++) y[i] = (float)ir_act_apply(act, y[i]);
    return;
  }
}
