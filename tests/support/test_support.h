/* Helpers shared by the unit tests: deterministic random data, building a
 * one-node graph, comparing tensors. Tests still compute their expectations
 * independently (naive loops in the test or hand-worked values). */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <stdint.h>

#include "ir/graph.h"
#include "runtime/tensor.h"

/* Fails the current criterion test with the status message if s is not OK
 * (and frees s). */
#define T_OK(expr)                                                             \
  do {                                                                         \
    vkml_status t_s_ = (expr);                                                 \
    if (t_s_) {                                                                \
      cr_assert_fail("%s:%d: %s -> %s", __FILE__, __LINE__, #expr,                   \
               vkml_status_message(t_s_));                                     \
    }                                                                          \
  } while (0)

/* xorshift64* generator; never returns the same stream for different seeds. */
typedef struct t_rng {
  uint64_t s;
} t_rng;
t_rng t_rng_make(uint64_t seed);
uint64_t t_rng_next(t_rng *r);
/* Uniform in [lo, hi). */
double t_rng_uniform(t_rng *r, double lo, double hi);
/* Uniform non-zero values in [lo, hi), |v| >= 0.05 * (hi - lo) away from 0
 * when lo < 0 < hi. */
double t_rng_nonzero(t_rng *r, double lo, double hi);

/* Allocates a tensor of dtype/dims and fills it with random non-zero values in
 * [lo, hi) (integers rounded; bool random). */
rt_tensor t_tensor_random(t_rng *r, ir_dtype dtype, int rank,
                          const int64_t *dims, double lo, double hi);
rt_tensor t_tensor_zeros(ir_dtype dtype, int rank, const int64_t *dims);
/* A tensor holding the given values (converted to dtype). */
rt_tensor t_tensor_from(ir_dtype dtype, int rank, const int64_t *dims,
                        const double *values);

/* A graph holding one node of op with inputs typed like in[] and outputs
 * typed out_types[]. Returns the node; the graph is in *g (destroy it). */
ir_node *t_node_make(ir_graph **g, ir_op op, const rt_tensor *in, int n_in,
                     const ir_type *out_types, int n_out);

/* Asserts equal dtype and dims and |a-b| <= atol + rtol*|b| elementwise
 * (NaNs must match), reporting the first mismatch with its index. */
void t_assert_close(const rt_tensor *got, const rt_tensor *want, double rtol,
                    double atol);

#endif
