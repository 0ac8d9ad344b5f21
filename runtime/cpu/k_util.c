/* Helpers shared by the CPU kernels (see k_util.h). */
#include "k_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir/params.h"

vkml_status rt_cpu_at_node(const ir_node *n, vkml_status s) {
  if (!s) return s;
  char where[256];
  ir_node_describe(n, where, sizeof where);
  return vkml_status_annotate(s, "%s", where);
}

double *rt_cpu_load_doubles(const rt_tensor *t) {
  int64_t n = rt_tensor_numel(t);
  double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
  if (!d) return NULL;
  if (t->dtype == IR_F32) {
    const float *p = t->data;
    for (int64_t i = 0; i < n; i++) d[i] = p[i];
  } else {
    for (int64_t i = 0; i < n; i++) d[i] = rt_load_f(t, i);
  }
  return d;
}

const float *rt_cpu_floats(const rt_tensor *t, float **owned) {
  *owned = NULL;
  if (t->dtype == IR_F32) return t->data;
  int64_t n = rt_tensor_numel(t);
  float *f = malloc((size_t)(n > 0 ? n : 1) * sizeof *f);
  if (!f) return NULL;
  for (int64_t i = 0; i < n; i++) f[i] = (float)rt_load_f(t, i);
  *owned = f;
  return f;
}

float *rt_cpu_floats_out(rt_tensor *y, float **owned) {
  *owned = NULL;
  if (y->dtype == IR_F32) return y->data;
  int64_t n = rt_tensor_numel(y);
  *owned = malloc((size_t)(n > 0 ? n : 1) * sizeof **owned);
  return *owned;
}

void rt_cpu_floats_out_done(rt_tensor *y, float *owned) {
  if (!owned) return;
  int64_t n = rt_tensor_numel(y);
  for (int64_t i = 0; i < n; i++) rt_store_f(y, i, owned[i]);
  free(owned);
}

vkml_status rt_cpu_check_out(const ir_node *n, int which, const rt_tensor *out,
                             ir_dtype dtype, int rank, const int64_t *dims) {
  char want[160], got[160];
  ir_type tw = ir_type_make(dtype, rank, dims);
  ir_type tg = rt_tensor_type(out);
  if (!ir_type_equal(&tw, &tg)) {
    ir_type_format(&tw, want, sizeof want);
    ir_type_format(&tg, got, sizeof got);
    return rt_cpu_error(n, VKML_CODE_INTERNAL,
                        "output %d should be %s, the caller allocated %s", which,
                        want, got);
  }
  if (out->cap_bytes < rt_tensor_bytes(out) || (!out->data && rt_tensor_numel(out)))
    return rt_cpu_error(n, VKML_CODE_INTERNAL,
                        "output %d buffer holds %zu bytes, %zu needed", which,
                        out->cap_bytes, rt_tensor_bytes(out));
  return VKML_OK;
}

vkml_status rt_cpu_check_out_dims(const ir_node *n, const rt_tensor *y, int rank,
                                  const int64_t *want) {
  bool ok = y->rank == rank;
  for (int i = 0; ok && i < rank; i++) ok = y->dims[i] == want[i];
  if (ok) return VKML_OK;
  ir_type wt = ir_type_make(y->dtype, rank, want), got = rt_tensor_type(y);
  char ws[160], gs[160];
  ir_type_format(&wt, ws, sizeof ws);
  ir_type_format(&got, gs, sizeof gs);
  return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output is %s, expected %s", gs, ws);
}

vkml_status rt_cpu_axis_get(const ir_node *n, int64_t dflt, int rank, int *axis) {
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, dflt), rank, axis);
  if (!s) return VKML_OK;
  vkml_status_free(s);
  return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "axis out of range for rank %d", rank);
}

vkml_status rt_cpu_broadcast_dims(const ir_node *n, int n_t,
                                  const rt_tensor *const *ts, int *rank,
                                  int64_t *dims) {
  int r = 0;
  for (int k = 0; k < n_t; k++)
    if (ts[k]->rank > r) r = ts[k]->rank;
  for (int d = 0; d < r; d++) dims[d] = 1;
  for (int k = 0; k < n_t; k++) {
    const rt_tensor *t = ts[k];
    for (int d = 0; d < t->rank; d++) {
      int o = r - t->rank + d;
      int64_t v = t->dims[d];
      if (v == dims[o] || v == 1) continue;
      if (dims[o] == 1) {
        dims[o] = v;
        continue;
      }
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "input %d: dim %d of size %lld does not broadcast with %lld",
                          k, d, (long long)v, (long long)dims[o]);
    }
  }
  *rank = r;
  return VKML_OK;
}

void rt_cpu_bcast_strides(const rt_tensor *t, int rank, const int64_t *dims,
                          int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    int td = d - (rank - t->rank);
    if (td < 0) {
      strides[d] = 0;
      continue;
    }
    strides[d] = (t->dims[td] == 1 && dims[d] != 1) ? 0 : s;
    s *= t->dims[td];
  }
}

vkml_status rt_cpu_check_same_dtype(const ir_node *n, const rt_tensor *a,
                                    const rt_tensor *b, int index_b) {
  if (a->dtype == b->dtype) return VKML_OK;
  return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                      "input %d is %s, expected %s like input 0", index_b,
                      ir_dtype_name(b->dtype), ir_dtype_name(a->dtype));
}

/* ---- sort order (topk, argsort) ------------------------------------------- */

static int order_value_cmp(const rt_order_item *a, const rt_order_item *b) {
  if (a->is_float) {
    bool na = isnan(a->f), nb = isnan(b->f);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    return a->f < b->f ? -1 : (a->f > b->f ? 1 : 0);
  }
  return a->v < b->v ? -1 : (a->v > b->v ? 1 : 0);
}

int rt_order_cmp_largest(const void *pa, const void *pb) {
  const rt_order_item *a = pa, *b = pb;
  int c = order_value_cmp(b, a);
  return c ? c : (a->index < b->index ? -1 : (a->index > b->index));
}

int rt_order_cmp_smallest(const void *pa, const void *pb) {
  const rt_order_item *a = pa, *b = pb;
  int c = order_value_cmp(a, b);
  return c ? c : (a->index < b->index ? -1 : (a->index > b->index));
}

static void order_swap(rt_order_item *a, rt_order_item *b) {
  rt_order_item t = *a;
  *a = *b;
  *b = t;
}

void rt_order_select(rt_order_item *items, int64_t n, int64_t k,
                     int (*cmp)(const void *, const void *)) {
  if (k <= 0) return;
  if (k * 4 >= n) {
    qsort(items, (size_t)n, sizeof *items, cmp);
    return;
  }
  /* quickselect on [lo, hi): the k-th item of the order ends at its place,
   * everything before it ahead in the order (a total order: no ties) */
  int64_t lo = 0, hi = n;
  int depth = 0;
  while (hi - lo > 16) {
    if (++depth > 64) { /* adversarial pivots: sort what is left */
      qsort(items + lo, (size_t)(hi - lo), sizeof *items, cmp);
      lo = hi;
      break;
    }
    int64_t mid = lo + (hi - lo) / 2;
    /* median of three at hi - 1 as the pivot */
    if (cmp(&items[mid], &items[lo]) < 0) order_swap(&items[mid], &items[lo]);
    if (cmp(&items[hi - 1], &items[lo]) < 0) order_swap(&items[hi - 1], &items[lo]);
    if (cmp(&items[mid], &items[hi - 1]) < 0) order_swap(&items[mid], &items[hi - 1]);
    rt_order_item pivot = items[hi - 1];
    int64_t store = lo;
    for (int64_t i = lo; i < hi - 1; i++)
      if (cmp(&items[i], &pivot) < 0) order_swap(&items[i], &items[store++]);
    order_swap(&items[store], &items[hi - 1]);
    if (store == k - 1 || store == k) {
      lo = hi = store;
      break;
    }
    if (store < k) lo = store + 1;
    else hi = store;
  }
  if (hi > lo) qsort(items + lo, (size_t)(hi - lo), sizeof *items, cmp);
  qsort(items, (size_t)k, sizeof *items, cmp);
}
