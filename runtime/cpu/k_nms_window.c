/* CPU kernels of non_max_suppression's one-row stages (nms_keys, nms_prep,
 * nms_round, nms_settle, nms_finish; codegen/glsl/nms_window.comp has the
 * algorithm),
 * step for step as the GPU's, so each stage has an oracle. Tests compare
 * the chain with non_max_suppression's own kernel (k_vision.c). */
#include <math.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_nms.h"
#include "k_util.h"

enum { UNDECIDED = 0, KEPT = 1, REMOVED = 2, NOT_CAND = 3 };

typedef struct nms_row {
  const ir_node *node;
  const rt_tensor *boxes, *scores, *order; /* order: [1,2,N] */
  int32_t *prep;                           /* [5, N+1] */
  int64_t cap, n;
  bool center;
  float iou;
  const ir_attr *st;
} nms_row;

static bool candidate(const nms_row *r, float sc) {
  return !isnan(sc) && !(r->st && !(sc > r->st->u.f));
}

static bool finite_box(const nms_box *b) {
  return isfinite(b->x_min) && isfinite(b->y_min) && isfinite(b->x_max) && isfinite(b->y_max);
}

static nms_box box_of(const nms_row *r, int64_t i) {
  return rt_nms_load_box(r->boxes, i * 4, r->center);
}

static float bits_float(int32_t w) {
  float f;
  memcpy(&f, &w, sizeof f);
  return f;
}

static int32_t float_bits(float f) {
  int32_t w;
  memcpy(&w, &f, sizeof w);
  return w;
}

/* The stage's operands (boxes and scores after the state for round and
 * finish). The CPU executor runs them at their actual sizes (re-inferred),
 * so the capacity is the count, and every stage's tensors are sized by it. */
static vkml_status row_get(const rt_cpu_args *a, nms_row *r) {
  const ir_node *n = a->node;
  int at = n->op == IR_OP_NMS_ROUND || n->op == IR_OP_NMS_SETTLE || n->op == IR_OP_NMS_FINISH;
  const rt_tensor *b = a->in[at], *s = a->in[at + 1];
  if (!ir_dtype_is_float(b->dtype) || !ir_dtype_is_float(s->dtype) || b->rank != 3 ||
      b->dims[0] != 1 || b->dims[2] != 4 || s->rank != 3 || s->dims[0] != 1 || s->dims[1] != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "needs float boxes [1,N,4] and scores [1,1,N]");
  *r = (nms_row){.node = n, .boxes = b, .scores = s,
                 .cap = b->dims[1], /* the executor's sizes are the actual ones */
                 .n = b->dims[1] < s->dims[2] ? b->dims[1] : s->dims[2],
                 .center = ir_node_int(n, IR_A_CENTER_POINT_BOX, 0) != 0,
                 .iou = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f),
                 .st = ir_node_attr(n, IR_A_SCORE_THRESHOLD)};
  if (r->n > r->cap) r->n = r->cap;
  if (at) {
    r->order = a->in[3];
    r->prep = a->in[4]->data;
  } else if (n->op == IR_OP_NMS_PREP) {
    r->order = a->in[2];
  }
  if (r->order && (r->order->dtype != IR_I64 || rt_tensor_numel(r->order) != 2 * r->cap))
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "order must be i64[1,2,%lld]",
                        (long long)r->cap);
  if (r->order)
    for (int64_t p = 0; p < 2 * r->cap; p++) {
      int64_t i = rt_load_i(r->order, p);
      if (i < 0 || i >= r->cap)
        return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "order holds box %lld of %lld",
                            (long long)i, (long long)r->cap);
    }
  return VKML_OK;
}

static vkml_status keys(const rt_cpu_args *a, const nms_row *r) {
  const int64_t *bd = r->boxes->dims, *sd = r->scores->dims;
  if (bd[1] != sd[2])
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                        "boxes hold %lld candidates, scores %lld", (long long)bd[1],
                        (long long)sd[2]);
  int64_t dims[3] = {1, 2, r->cap};
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, a->out[0], IR_F32, 3, dims));
  float *k = a->out[0]->data;
  for (int64_t i = 0; i < r->cap; i++) {
    float sk = -INFINITY, xk = -INFINITY;
    if (i < r->n) {
      float sc = (float)rt_load_f(r->scores, i);
      if (candidate(r, sc)) {
        sk = sc == 0.0f ? 0.0f : sc;
        nms_box b = box_of(r, i);
        if (finite_box(&b)) xk = -b.x_min;
      }
    }
    k[i] = sk;
    k[r->cap + i] = xk;
  }
  return VKML_OK;
}

static vkml_status prep(const rt_cpu_args *a, const nms_row *r) {
  int64_t dims[2] = {5, r->cap + 1}, row = r->cap + 1;
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, a->out[0], IR_I32, 2, dims));
  int32_t *p = a->out[0]->data;
  memset(p, 0, sizeof *p * (size_t)(5 * row));
  int64_t nx = 0;
  for (int64_t i = 0; i < r->n; i++) {
    int32_t st = NOT_CAND;
    if (candidate(r, (float)rt_load_f(r->scores, i))) {
      nms_box b = box_of(r, i);
      st = finite_box(&b) ? UNDECIDED : KEPT;
      nx += st == UNDECIDED;
    }
    p[2 * row + i] = st;
  }
  p[r->cap] = (int32_t)nx;
  /* the running x_max; a segment starts where no box before reaches past
   * the x_min */
  float run = -INFINITY;
  int32_t segs = 0;
  for (int64_t q = 0; q < nx; q++) {
    int64_t i = rt_load_i(r->order, r->cap + q);
    nms_box b = box_of(r, i);
    if (q == 0 || run <= b.x_min) p[3 * row + segs++] = (int32_t)q;
    p[4 * row + i] = segs - 1;
    run = fmaxf(run, b.x_max);
    p[q] = float_bits(run);
    p[row + q] = float_bits(b.x_min);
  }
  p[3 * row + r->cap] = segs;
  return VKML_OK;
}

/* i's fate from the states st (glsl/nms_window.comp's decide) */
static int32_t decide(const nms_row *r, const int32_t *st, int64_t i) {
  int64_t row = r->cap + 1, nx = r->prep[r->cap];
  nms_box bi = box_of(r, i);
  float si = (float)rt_load_f(r->scores, i);
  int64_t lo = 0, hi = nx;
  while (lo < hi) { /* the first x_min at or past bi's x_max */
    int64_t mid = (lo + hi) / 2;
    if (bits_float(r->prep[row + mid]) < bi.x_max) lo = mid + 1;
    else hi = mid;
  }
  int64_t end = lo;
  lo = 0, hi = end;
  while (lo < hi) { /* the first running x_max past bi's x_min */
    int64_t mid = (lo + hi) / 2;
    if (bits_float(r->prep[mid]) > bi.x_min) hi = mid;
    else lo = mid + 1;
  }
  bool pending = false;
  for (int64_t p = lo; p < end; p++) {
    int64_t j = rt_load_i(r->order, r->cap + p);
    if (j == i || j >= r->n) continue;
    int32_t s = st[j];
    if (s == REMOVED || s == NOT_CAND || (pending && s == UNDECIDED)) continue;
    float sj = (float)rt_load_f(r->scores, j);
    if (!(sj > si || (sj == si && j < i))) continue;
    nms_box bj = box_of(r, j);
    if (!rt_nms_suppress(&bj, &bi, r->iou)) continue;
    if (s == KEPT) return REMOVED;
    pending = true;
  }
  return pending ? UNDECIDED : KEPT;
}

/* The state input: prep's third row or a round's output. */
static const int32_t *state_in(const rt_cpu_args *a, const nms_row *r) {
  const int32_t *s = a->in[0]->data;
  return a->in[0]->rank == 2 ? s + 2 * (r->cap + 1) : s;
}

static vkml_status round_(const rt_cpu_args *a, const nms_row *r) {
  int64_t dims[1] = {r->cap};
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, a->out[0], IR_I32, 1, dims));
  const int32_t *in = state_in(a, r);
  int32_t *out = a->out[0]->data;
  for (int64_t i = 0; i < r->cap; i++)
    out[i] = i >= r->n ? NOT_CAND : in[i] == UNDECIDED ? decide(r, in, i) : in[i];
  return VKML_OK;
}

/* settle: in score order every box above one is decided before it */
static vkml_status settle(const rt_cpu_args *a, const nms_row *r) {
  int64_t dims[1] = {r->cap};
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, a->out[0], IR_I32, 1, dims));
  int32_t *st = a->out[0]->data;
  memcpy(st, state_in(a, r), sizeof *st * (size_t)r->cap);
  for (int64_t p = 0; p < r->n; p++) {
    int64_t i = rt_load_i(r->order, p);
    if (i < r->n && st[i] == UNDECIDED) st[i] = decide(r, st, i);
  }
  return VKML_OK;
}

static vkml_status finish(const rt_cpu_args *a, const nms_row *r) {
  rt_tensor *y = a->out[0];
  int64_t cap = y->dims[0];
  if (y->dtype != IR_I64 || y->rank != 2 || y->dims[1] != 3)
    return rt_cpu_error(a->node, VKML_CODE_INTERNAL, "output must be i64[<=M,3]");
  const int32_t *st = state_in(a, r);
  int64_t count = 0;
  for (int64_t p = 0; p < r->n && count < cap; p++) {
    int64_t i = rt_load_i(r->order, p);
    if (i >= r->n) continue;
    if (st[i] == UNDECIDED)
      return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                          "box %lld is undecided (the state is not settled)", (long long)i);
    if (st[i] != KEPT) continue;
    rt_store_i(y, count * 3, 0);
    rt_store_i(y, count * 3 + 1, 0);
    rt_store_i(y, count * 3 + 2, i);
    count++;
  }
  y->dims[0] = count;
  return VKML_OK;
}

vkml_status rt_cpu_nms_window(const rt_cpu_args *a) {
  nms_row r;
  VKML_RETURN_IF_ERROR(row_get(a, &r));
  switch (a->node->op) {
  case IR_OP_NMS_KEYS: return keys(a, &r);
  case IR_OP_NMS_PREP: return prep(a, &r);
  case IR_OP_NMS_ROUND: return round_(a, &r);
  case IR_OP_NMS_SETTLE: return settle(a, &r);
  case IR_OP_NMS_FINISH: return finish(a, &r);
  default: return rt_cpu_error(a->node, VKML_CODE_INTERNAL, "not an nms_window stage");
  }
}
