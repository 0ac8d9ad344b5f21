/* Helpers shared by the CPU reference kernels: node-annotated statuses,
 * tensors as double arrays, output checks, the axis attribute, NumPy
 * broadcasting and N-d index iteration. Internal to runtime/cpu/. */
#ifndef RT_CPU_K_UTIL_H
#define RT_CPU_K_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu_kernels.h"
#include "ir/params.h"

/* Prefixes a non-OK status s (from an ir/params.h decoder, say) with the
 * node's description, so every kernel error names its node; OK passes
 * through. Takes ownership of s and returns it. */
vkml_status rt_cpu_at_node(const ir_node *n, vkml_status s);

/* The elements of float tensor t as a malloc'd array of doubles (room for at
 * least one, so an empty tensor is not mistaken for out of memory); NULL when
 * out of memory. The caller frees it. */
double *rt_cpu_load_doubles(const rt_tensor *t);

/* The fast paths' view of tensors as floats. rt_cpu_floats: t's own data
 * when it is f32, else a malloc'd conversion, also put in *owned for the
 * caller to free; NULL when out of memory. rt_cpu_floats_out: where to
 * write y's elements as floats: y's data when it is f32, else a malloc'd
 * buffer in *owned, which rt_cpu_floats_out_done stores into y (rounded)
 * and frees (safe on NULL). */
const float *rt_cpu_floats(const rt_tensor *t, float **owned);
float *rt_cpu_floats_out(rt_tensor *y, float **owned);
void rt_cpu_floats_out_done(rt_tensor *y, float *owned);

/* Whether a kernel may take its fast path (not asked for the reference),
 * and the threads it has for it. */
static inline bool rt_cpu_use_fast(const rt_cpu_args *a) {
  return !a->ctx || !a->ctx->reference;
}
static inline struct rt_threads *rt_cpu_threads_of(const rt_cpu_args *a) {
  return a->ctx ? a->ctx->pool : NULL;
}

/* Checks that output `which` of the node has the dtype, rank and dims the
 * kernel computed, and that its buffer holds them (so a malformed graph gives
 * an INTERNAL status naming the node, never an overflow). */
vkml_status rt_cpu_check_out(const ir_node *n, int which, const rt_tensor *out,
                             ir_dtype dtype, int rank, const int64_t *dims);

/* Checks only the rank and dims of the output y (its dtype is the kernel's
 * own check): INVALID_ARGUMENT "output is <type>, expected <type>" naming
 * the node. The nn/conv/pool/reduce/resize kernels report a wrong output
 * shape this way; their tests pin the code. */
vkml_status rt_cpu_check_out_dims(const ir_node *n, const rt_tensor *y, int rank,
                                  const int64_t *want);

/* The node's axis attribute (default dflt) normalised for rank into *axis;
 * INVALID_ARGUMENT "axis out of range for rank R" naming the node. */
/* An index along an axis of size dim: wrapped once if negative; outside
 * [0, dim) an INVALID_ARGUMENT naming the value, its element `at` in the
 * indices, the axis and its size (k_gather.c). */
vkml_status rt_cpu_fix_index(const ir_node *n, int64_t raw, int64_t at, int axis, int64_t dim,
                             int64_t *out);
/* INVALID_ARGUMENT unless ind is i32 or i64. */
vkml_status rt_cpu_check_indices(const ir_node *n, const rt_tensor *ind);
vkml_status rt_cpu_axis_get(const ir_node *n, int64_t dflt, int rank, int *axis);

/* NumPy broadcast of the dims of ts[0..n_t); INVALID_ARGUMENT naming the
 * node if they do not broadcast. */
vkml_status rt_cpu_broadcast_dims(const ir_node *n, int n_t,
                                  const rt_tensor *const *ts, int *rank,
                                  int64_t *dims);

/* Element strides of t seen through a broadcast to (rank, dims): 0 along
 * broadcast axes. t must be broadcastable to dims. */
void rt_cpu_bcast_strides(const rt_tensor *t, int rank, const int64_t *dims,
                          int64_t *strides);

/* Steps the multi-index idx (row-major) through dims; false after the last. */
static inline bool rt_cpu_index_next(int rank, const int64_t *dims,
                                     int64_t *idx) {
  for (int d = rank - 1; d >= 0; d--) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

static inline int64_t rt_cpu_index_offset(int rank, const int64_t *idx,
                                          const int64_t *strides) {
  int64_t o = 0;
  for (int d = 0; d < rank; d++) o += idx[d] * strides[d];
  return o;
}

/* Product of dims[lo..hi) (1 when empty): the outer / inner extents around
 * an axis. */
static inline int64_t rt_cpu_dims_prod(const int64_t *dims, int lo, int hi) {
  int64_t p = 1;
  for (int d = lo; d < hi; d++) p *= dims[d];
  return p;
}

/* One element of a row being sorted (topk, argsort): its value and its
 * index. qsort comparators: values ascending (smallest) or descending
 * (largest), NaN above every number (numpy's order, so largest puts NaN
 * first), -0 equal to +0, equal values by lower index in both directions. */
typedef struct rt_order_item {
  bool is_float;
  double f;
  int64_t v;
  int64_t index;
} rt_order_item;
int rt_order_cmp_largest(const void *pa, const void *pb);
int rt_order_cmp_smallest(const void *pa, const void *pb);
/* Puts the first k items of order cmp (one of the above: a total order)
 * at items[0..k), sorted: the same as sorting all n, in O(n + k log k)
 * expected (quickselect; a full sort past a depth limit). */
void rt_order_select(rt_order_item *items, int64_t n, int64_t k,
                     int (*cmp)(const void *, const void *));

/* Same dtype check for inputs a kernel copies as raw bytes. */
vkml_status rt_cpu_check_same_dtype(const ir_node *n, const rt_tensor *a,
                                    const rt_tensor *b, int index_b);

/* The float scalar functions of the unary and binary reference kernels,
 * in double: k_unary.c (the float unary ops), k_binary.c (add sub mul div
 * with the act, pow, prelu; min and max with the variadic kernel's NaN rule,
 * rt_cpu_fold_f). The fused_elementwise kernel (k_fused.c) calls the same
 * ones, so fused and unfused results agree bit for bit. */
double rt_cpu_unary_f(ir_op op, const ir_unary_params *p, double x);
double rt_cpu_binary_f(ir_op op, const ir_act_params *act, double x, double y);
/* One step of the variadic min / max / sum fold (op MIN, MAX or SUM). */
double rt_cpu_fold_f(ir_op op, double acc, double v);

#endif
