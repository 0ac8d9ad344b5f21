/* Helpers shared by the unit tests: deterministic random data, building and
 * running a one-node graph, comparing tensors, checking errors. Tests still
 * compute their expectations independently (naive loops in the test or
 * hand-worked values). */
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

/* Runs node n's CPU kernel on the tensors in[0..n_in) and out[0..n_out)
 * (at most 8 each). */
vkml_status t_node_run(const ir_node *n, const rt_tensor *in, int n_in, rt_tensor *out,
                       int n_out);

/* A one-node kernel case: fill in[0..n_in), call t_case_make, set attributes
 * on (g, n), then t_case_run; outputs land in out[0..n_out). */
typedef struct t_case {
  ir_graph *g;
  ir_node *n;
  rt_tensor in[8], out[8]; /* freed by t_case_free (views are left alone) */
  int n_in, n_out;
} t_case;

/* Builds the node of op over c->in[0..n_in) and allocates outputs of
 * out_types filled with a garbage pattern, so that an element the kernel
 * forgets shows. */
void t_case_make(t_case *c, ir_op op, int n_in, const ir_type *out_types, int n_out);
vkml_status t_case_run(t_case *c);
/* Frees the graph and every tensor of in[] and out[], and zeroes c so that
 * it can be filled again. */
void t_case_free(t_case *c);

/* Sets 2-D strides, dilations and pads on n only where they differ from the
 * defaults (1 and 0), so that cases at the defaults test the kernel's own. */
void t_set_window_attrs(ir_graph *g, ir_node *n, int64_t sh, int64_t sw, int64_t dh,
                        int64_t dw, const int64_t pads[4]);

/* Asserts that s failed with code and a message containing part; frees s. */
void t_expect_error(vkml_status s, vkml_code code, const char *part);

/* The multi-index idx of flat (row-major) index i in dims. */
void t_unflatten(int64_t i, int rank, const int64_t *dims, int64_t *idx);

/* Asserts equal dtype and dims and |a-b| <= atol + rtol*|b| elementwise
 * (NaNs must match), reporting the first mismatch with its index. */
void t_assert_close(const rt_tensor *got, const rt_tensor *want, double rtol,
                    double atol);

#endif
