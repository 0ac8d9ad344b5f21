/* CPU reference kernels: argsort, and its GPU stages sort_block, sort_merge
 * and sort_index, which work on the sort state i32[P,n] (ir/op_table.c):
 * plane 0 the segment of each element, then its order key (one plane for
 * f32/f16/i32, two for i64: high word first), then its position in x.
 * Sorting these tuples ascending is the argsort: by segment, then key,
 * then position (stable). The stages exist on the CPU so that a split
 * graph runs anywhere and its tests have an oracle. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "ir/util.h"
#include "k_util.h"

/* Segments: the rows of x's last axis, or offsets [S+1] of a 1-D x. Checks
 * that offsets start at 0, never decrease and end at n. */
typedef struct segs {
  int64_t n, len;        /* len: the row length (no offsets) */
  const rt_tensor *offs; /* NULL: rows */
  int64_t n_segs;
} segs;

static vkml_status segs_get(const ir_node *n, const rt_tensor *x, const rt_tensor *offs,
                            segs *sg) {
  sg->n = rt_tensor_numel(x);
  sg->offs = offs;
  sg->len = x->rank ? x->dims[x->rank - 1] : 1;
  sg->n_segs = sg->len ? sg->n / sg->len : 0;
  if (!offs) return VKML_OK;
  sg->n_segs = rt_tensor_numel(offs) - 1;
  int64_t prev = 0;
  for (int64_t s = 0; s <= sg->n_segs; s++) {
    int64_t o = rt_load_i(offs, s);
    if ((s == 0 && o != 0) || o < prev || o > sg->n || (s == sg->n_segs && o != sg->n))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "segment offsets must start at 0, never decrease and end at %lld "
                          "(offset %lld is %lld)",
                          (long long)sg->n, (long long)s, (long long)o);
    prev = o;
  }
  return VKML_OK;
}

static int64_t seg_start(const segs *sg, int64_t s) {
  return sg->offs ? rt_load_i(sg->offs, s) : s * sg->len;
}

/* The segment holding position p (the last one starting at or before p:
 * empty segments are skipped). */
static int64_t seg_of(const segs *sg, int64_t p) {
  if (!sg->offs) return sg->len ? p / sg->len : 0;
  int64_t lo = 0, hi = sg->n_segs; /* offsets[lo] <= p < offsets[hi] */
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    if (rt_load_i(sg->offs, mid) <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

vkml_status rt_cpu_argsort(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  if (x->rank == 0 || x->dtype == IR_BOOL)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "argsort needs a numeric tensor");
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, IR_I64, x->rank, x->dims));
  segs sg;
  VKML_RETURN_IF_ERROR(segs_get(n, x, a->n_in == 2 ? a->in[1] : NULL, &sg));
  bool largest = ir_node_int(n, IR_A_LARGEST, 0) != 0, fl = ir_dtype_is_float(x->dtype);
  rt_order_item *items = malloc(sizeof *items * (size_t)(sg.n ? sg.n : 1));
  if (!items) return ir_oom(NULL);
  for (int64_t s = 0; s < sg.n_segs; s++) {
    int64_t lo = seg_start(&sg, s), len = seg_start(&sg, s + 1) - lo;
    if (!sg.offs) len = sg.len;
    for (int64_t j = 0; j < len; j++) {
      items[j].is_float = fl;
      items[j].f = fl ? rt_load_f(x, lo + j) : 0;
      items[j].v = fl ? 0 : rt_load_i(x, lo + j);
      items[j].index = j;
    }
    qsort(items, (size_t)len, sizeof *items,
          largest ? rt_order_cmp_largest : rt_order_cmp_smallest);
    for (int64_t j = 0; j < len; j++) rt_store_i(y, lo + j, items[j].index);
  }
  free(items);
  return VKML_OK;
}

/* ---- the GPU stages --------------------------------------------------------- */

/* The order key of a value (as glsl/sort.comp): grows with the value,
 * NaN above +inf, -0 as +0; inverted for largest. 32 bits, 64 for i64. */
static uint64_t order_key(const rt_tensor *x, int64_t i, bool largest) {
  if (x->dtype == IR_I64) {
    uint64_t u = (uint64_t)rt_load_i(x, i) ^ (UINT64_C(1) << 63);
    return largest ? ~u : u;
  }
  uint32_t u;
  if (x->dtype == IR_I32) {
    u = (uint32_t)rt_load_i(x, i) ^ 0x80000000u;
  } else {
    float v = (float)rt_load_f(x, i);
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    u = isnan(v) ? 0xffffffffu : v == 0.0f ? 0x80000000u : (b & 0x80000000u) ? ~b : b | 0x80000000u;
  }
  return largest ? ~u : u;
}

/* One element of the state: a 32-bit key has key_hi 0 and no plane of
 * its own. */
typedef struct triple {
  uint32_t seg, pos;
  uint64_t key;
} triple;

static int triple_cmp(const void *pa, const void *pb) {
  const triple *a = pa, *b = pb;
  if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

/* planes: 3 (32-bit key) or 4 (64-bit key) */
static triple state_get(const rt_tensor *st, int64_t n, int64_t p) {
  const int32_t *d = st->data;
  int64_t planes = st->dims[0];
  uint64_t key = (uint32_t)d[n + p];
  if (planes == 4) key = key << 32 | (uint32_t)d[2 * n + p];
  return (triple){(uint32_t)d[p], (uint32_t)d[(planes - 1) * n + p], key};
}

static void state_put(rt_tensor *st, int64_t n, int64_t p, triple t) {
  int32_t *d = st->data;
  int64_t planes = st->dims[0];
  d[p] = (int32_t)t.seg;
  if (planes == 4) {
    d[n + p] = (int32_t)(uint32_t)(t.key >> 32);
    d[2 * n + p] = (int32_t)(uint32_t)t.key;
  } else {
    d[n + p] = (int32_t)(uint32_t)t.key;
  }
  d[(planes - 1) * n + p] = (int32_t)t.pos;
}

static vkml_status want_state(const ir_node *n, const rt_tensor *st, const char *what) {
  if (st->dtype != IR_I32 || st->rank != 2 || (st->dims[0] != 3 && st->dims[0] != 4))
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%s must be a sort state i32[3 or 4,n]",
                        what);
  return VKML_OK;
}

vkml_status rt_cpu_sort_block(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *st = a->out[0];
  if (x->dtype != IR_F32 && x->dtype != IR_F16 && x->dtype != IR_I32 && x->dtype != IR_I64)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "sort_block takes f32, f16, i32 or i64 keys");
  segs sg;
  VKML_RETURN_IF_ERROR(segs_get(n, x, a->n_in == 2 ? a->in[1] : NULL, &sg));
  int64_t dims[2] = {x->dtype == IR_I64 ? 4 : 3, sg.n}, width = ir_node_int(n, IR_A_WIDTH, 1);
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, st, IR_I32, 2, dims));
  bool largest = ir_node_int(n, IR_A_LARGEST, 0) != 0;
  triple *t = malloc(sizeof *t * (size_t)(width > 0 ? width : 1));
  if (!t) return ir_oom(NULL);
  /* blocks from the start of the array (offsets) or of each row */
  int64_t row = sg.offs || !sg.len ? sg.n : sg.len;
  for (int64_t lo = 0; lo < sg.n; lo = lo % row + width < row ? lo + width : lo - lo % row + row) {
    int64_t end = lo - lo % row + row;
    int64_t cnt = end - lo < width ? end - lo : width;
    for (int64_t j = 0; j < cnt; j++)
      t[j] = (triple){(uint32_t)seg_of(&sg, lo + j), (uint32_t)(lo + j),
                      order_key(x, lo + j, largest)};
    qsort(t, (size_t)cnt, sizeof *t, triple_cmp);
    for (int64_t j = 0; j < cnt; j++) state_put(st, sg.n, lo + j, t[j]);
  }
  free(t);
  return VKML_OK;
}

vkml_status rt_cpu_sort_merge(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *in = a->in[0];
  rt_tensor *out = a->out[0];
  VKML_RETURN_IF_ERROR(want_state(n, in, "input"));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, out, IR_I32, 2, in->dims));
  int64_t len = in->dims[1], w = ir_node_int(n, IR_A_WIDTH, 1);
  int64_t row = ir_node_int(n, IR_A_ROW, 0);
  if (row <= 0) row = len;
  /* pairs of runs from the start of the array, or of each row */
  for (int64_t lo = 0; lo < len; lo = lo % row + 2 * w < row ? lo + 2 * w : lo - lo % row + row) {
    int64_t end = lo - lo % row + row;
    int64_t mid = lo + w < end ? lo + w : end, hi = lo + 2 * w < end ? lo + 2 * w : end;
    int64_t i = lo, j = mid, o = lo;
    while (i < mid || j < hi) {
      bool take_a = j >= hi;
      if (i < mid && j < hi) {
        triple ta = state_get(in, len, i), tb = state_get(in, len, j);
        take_a = triple_cmp(&ta, &tb) < 0;
      }
      state_put(out, len, o++, state_get(in, len, take_a ? i++ : j++));
    }
  }
  return VKML_OK;
}

vkml_status rt_cpu_sort_index(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *st = a->in[0];
  rt_tensor *y = a->out[0];
  VKML_RETURN_IF_ERROR(want_state(n, st, "input"));
  const int64_t *shape;
  int rank = ir_node_ints(n, IR_A_SHAPE, &shape);
  if (rank < 1) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "sort_index needs its shape");
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, IR_I64, rank, shape));
  int64_t len = st->dims[1], row = shape[rank - 1];
  const rt_tensor *offs = a->n_in == 2 ? a->in[1] : NULL;
  int64_t n_segs = offs ? rt_tensor_numel(offs) - 1 : 0;
  for (int64_t p = 0; p < len; p++) {
    triple t = state_get(st, len, p);
    if (t.pos >= (uint64_t)len || (offs && (int64_t)t.seg >= n_segs))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "the sort state is corrupt at %lld",
                          (long long)p);
    int64_t start = offs ? rt_load_i(offs, t.seg) : (int64_t)t.seg * row;
    rt_store_i(y, p, (int64_t)t.pos - start);
  }
  return VKML_OK;
}
