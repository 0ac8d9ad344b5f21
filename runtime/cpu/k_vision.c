/* CPU reference kernels: topk, cumsum, non_max_suppression, roi_align,
 * grid_sample.
 * NMS and roi_align follow onnxruntime / the ONNX reference implementation
 * step by step, so that the GPU kernels have an exact oracle. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_nms.h"
#include "k_util.h"
#include "ir/util.h"

/* ---- topk ---------------------------------------------------------------- */

/* Checks an output whose `axis` may be a capacity >= count, then sets the
 * actual size. */
static vkml_status bounded_out(const ir_node *n, int which, rt_tensor *out, ir_dtype dtype,
                               int rank, const int64_t *dims, int axis) {
  if (out->rank != rank || out->dims[axis] < dims[axis])
    return rt_cpu_error(n, VKML_CODE_INTERNAL, "output %d has no room for %lld rows", which,
                        (long long)dims[axis]);
  int64_t cap = out->dims[axis];
  out->dims[axis] = dims[axis];
  vkml_status s = rt_cpu_check_out(n, which, out, dtype, rank, dims);
  if (s) out->dims[axis] = cap;
  return s;
}

vkml_status rt_cpu_topk(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *vals = a->out[0], *inds = a->out[1];
  int rank = x->rank, axis;
  if (rank == 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "topk of a scalar");
  if (x->dtype == IR_BOOL) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "topk of bool");
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), rank, &axis));
  bool runtime_k = a->n_in == 2;
  int64_t k;
  if (runtime_k) {
    const rt_tensor *kt = a->in[1];
    if (!ir_dtype_is_int(kt->dtype) || rt_tensor_numel(kt) != 1)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "k must be one integer");
    k = rt_load_i(kt, 0);
  } else {
    const ir_attr *ka = ir_node_attr(n, IR_A_K);
    if (!ka) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "topk needs 'k' or a k input");
    k = ka->u.i;
  }
  int64_t dim = x->dims[axis];
  if (k < 0 || k > dim)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "k = %lld outside [0, %lld]",
                        (long long)k, (long long)dim);
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[axis] = k;
  if (runtime_k) {
    VKML_RETURN_IF_ERROR(bounded_out(n, 0, vals, x->dtype, rank, dims, axis));
    VKML_RETURN_IF_ERROR(bounded_out(n, 1, inds, IR_I64, rank, dims, axis));
  } else {
    VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, vals, x->dtype, rank, dims));
    VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 1, inds, IR_I64, rank, dims));
  }
  bool largest = ir_node_int(n, IR_A_LARGEST, 1) != 0;
  /* sorted=0 leaves the order unspecified: sorted order is a valid answer. */
  int64_t outer = rt_cpu_dims_prod(x->dims, 0, axis);
  int64_t inner = rt_cpu_dims_prod(x->dims, axis + 1, rank);
  if (dim == 0 || k == 0 || outer * inner == 0) return VKML_OK;
  rt_order_item *items = malloc(sizeof *items * (size_t)dim);
  if (!items) return ir_oom(NULL);
  bool fl = ir_dtype_is_float(x->dtype);
  size_t es = ir_dtype_size(x->dtype);
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t in = 0; in < inner; in++) {
      for (int64_t j = 0; j < dim; j++) {
        int64_t src = (o * dim + j) * inner + in;
        items[j].is_float = fl;
        items[j].f = fl ? rt_load_f(x, src) : 0;
        items[j].v = fl ? 0 : rt_load_i(x, src);
        items[j].index = j;
      }
      rt_order_select(items, dim, k, largest ? rt_order_cmp_largest : rt_order_cmp_smallest);
      for (int64_t j = 0; j < k; j++) {
        int64_t dst = (o * k + j) * inner + in;
        int64_t src = (o * dim + items[j].index) * inner + in;
        memcpy((char *)vals->data + (size_t)dst * es, (const char *)x->data + (size_t)src * es, es);
        rt_store_i(inds, dst, items[j].index);
      }
    }
  }
  free(items);
  return VKML_OK;
}

/* ---- cumsum -------------------------------------------------------------- */

vkml_status rt_cpu_cumsum(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  int rank = x->rank, axis;
  if (rank == 0) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cumsum of a scalar");
  if (x->dtype == IR_BOOL) return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "cumsum of bool");
  VKML_RETURN_IF_ERROR(ir_axis_normalize(ir_node_int(n, IR_A_AXIS, 0), rank, &axis));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, rank, x->dims));
  bool exclusive = ir_node_int(n, IR_A_EXCLUSIVE, 0) != 0;
  bool reverse = ir_node_int(n, IR_A_REVERSE, 0) != 0;
  bool fl = ir_dtype_is_float(x->dtype);
  int64_t outer = rt_cpu_dims_prod(x->dims, 0, axis), dim = x->dims[axis];
  int64_t inner = rt_cpu_dims_prod(x->dims, axis + 1, rank);
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t in = 0; in < inner; in++) {
      double accf = 0; /* floats accumulate in double, rounded once per output */
      int64_t acci = 0;
      for (int64_t t = 0; t < dim; t++) {
        int64_t j = reverse ? dim - 1 - t : t;
        int64_t i = (o * dim + j) * inner + in;
        if (fl) {
          double v = rt_load_f(x, i);
          if (exclusive) rt_store_f(y, i, accf);
          accf += v;
          if (!exclusive) rt_store_f(y, i, accf);
        } else {
          int64_t v = rt_load_i(x, i);
          if (exclusive) rt_store_i(y, i, acci);
          acci = (int64_t)((uint64_t)acci + (uint64_t)v); /* wraps */
          if (!exclusive) rt_store_i(y, i, acci);
        }
      }
    }
  }
  return VKML_OK;
}

/* ---- non_max_suppression -------------------------------------------------- */

typedef struct nms_cand {
  float score;
  int64_t index;
} nms_cand;

/* Highest score first, ties lower index first (onnxruntime's order). */
static int cmp_cand(const void *pa, const void *pb) {
  const nms_cand *a = pa, *b = pb;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index ? 1 : 0);
}

nms_box rt_nms_load_box(const rt_tensor *boxes, int64_t at, bool center) {
  float v[4];
  for (int j = 0; j < 4; j++) v[j] = (float)rt_load_f(boxes, at + j);
  nms_box b;
  if (center) { /* [x_center, y_center, width, height] */
    float hw = v[2] / 2, hh = v[3] / 2;
    b.x_min = v[0] - hw;
    b.x_max = v[0] + hw;
    b.y_min = v[1] - hh;
    b.y_max = v[1] + hh;
  } else { /* [y1, x1, y2, x2], any two opposite corners */
    b.y_min = v[0] <= v[2] ? v[0] : v[2];
    b.y_max = v[0] <= v[2] ? v[2] : v[0];
    b.x_min = v[1] <= v[3] ? v[1] : v[3];
    b.x_max = v[1] <= v[3] ? v[3] : v[1];
  }
  return b;
}

/* onnxruntime's SuppressByIOU, in float as there. */
bool rt_nms_suppress(const nms_box *a, const nms_box *b, float iou_threshold) {
  float ix_min = a->x_min > b->x_min ? a->x_min : b->x_min;
  float ix_max = a->x_max < b->x_max ? a->x_max : b->x_max;
  if (ix_max <= ix_min) return false;
  float iy_min = a->y_min > b->y_min ? a->y_min : b->y_min;
  float iy_max = a->y_max < b->y_max ? a->y_max : b->y_max;
  if (iy_max <= iy_min) return false;
  float inter = (ix_max - ix_min) * (iy_max - iy_min);
  if (inter <= 0) return false;
  float area_a = (a->x_max - a->x_min) * (a->y_max - a->y_min);
  float area_b = (b->x_max - b->x_min) * (b->y_max - b->y_min);
  float uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

/* A uniform grid over the candidates' extent, its cells about the mean box
 * size, holding the kept boxes (a box in every cell it spans): a candidate
 * is tested only against the kept boxes of the cells it spans, each once
 * (seen: the candidate that last tested it). Exact: nms_suppress needs a
 * positive overlap along both axes, so two boxes that can suppress share a
 * point, and the cell of that point is in both spans (cell_of is
 * monotone). */
typedef struct nms_grid {
  float x0, y0, cw, ch;
  int gx, gy;
  int32_t *head;       /* per cell: first entry, -1 none */
  int32_t *next, *box; /* entries: next in the cell, the kept box (index into sel) */
  int32_t *seen;       /* per kept box: the last candidate tested against it */
  int64_t n, cap;
} nms_grid;

enum { NMS_GRID_MIN = 256, NMS_GRID_AXIS = 1024, NMS_GRID_CELLS = 1 << 18 };

static int cell_of(float v, float v0, float c, int g) {
  float f = (v - v0) / c;
  if (!(f > 0)) return 0;
  if (f >= (float)(g - 1)) return g - 1;
  return (int)f;
}

/* The grid for cand's boxes, or false: few candidates, a coordinate that is
 * not finite (the plain loop decides those), or no memory. */
static bool nms_grid_make(nms_grid *g, const nms_box *bx, const nms_cand *cand, int64_t n_cand) {
  memset(g, 0, sizeof *g);
  if (n_cand < NMS_GRID_MIN || n_cand > INT32_MAX / 4) return false;
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  double w = 0, h = 0; /* sums, then means */
  for (int64_t j = 0; j < n_cand; j++) {
    const nms_box *b = &bx[cand[j].index];
    if (!isfinite(b->x_min) || !isfinite(b->x_max) || !isfinite(b->y_min) ||
        !isfinite(b->y_max) || !isfinite(b->x_max - b->x_min) || !isfinite(b->y_max - b->y_min))
      return false;
    x0 = fminf(x0, b->x_min), x1 = fmaxf(x1, b->x_max);
    y0 = fminf(y0, b->y_min), y1 = fmaxf(y1, b->y_max);
    w += b->x_max - b->x_min, h += b->y_max - b->y_min;
  }
  if (!isfinite(x1 - x0) || !isfinite(y1 - y0)) return false;
  w /= (double)n_cand, h /= (double)n_cand;
  g->cw = fmaxf(fmaxf((float)w, (x1 - x0) / NMS_GRID_AXIS), FLT_MIN);
  g->ch = fmaxf(fmaxf((float)h, (y1 - y0) / NMS_GRID_AXIS), FLT_MIN);
  /* at most NMS_GRID_CELLS cells: coarser cells where the extent is wide */
  while (((x1 - x0) / g->cw + 1) * ((y1 - y0) / g->ch + 1) > NMS_GRID_CELLS) {
    g->cw *= 2;
    g->ch *= 2;
  }
  g->x0 = x0, g->y0 = y0;
  g->gx = (int)fminf((x1 - x0) / g->cw + 1, NMS_GRID_AXIS);
  g->gy = (int)fminf((y1 - y0) / g->ch + 1, NMS_GRID_AXIS);
  if (g->gx < 1) g->gx = 1;
  if (g->gy < 1) g->gy = 1;
  g->head = malloc(sizeof *g->head * (size_t)g->gx * (size_t)g->gy);
  g->seen = malloc(sizeof *g->seen * (size_t)n_cand);
  if (!g->head || !g->seen) {
    free(g->head);
    free(g->seen);
    return false;
  }
  memset(g->seen, 0xff, sizeof *g->seen * (size_t)n_cand);
  memset(g->head, 0xff, sizeof *g->head * (size_t)g->gx * (size_t)g->gy);
  return true;
}

static void nms_grid_free(nms_grid *g) {
  free(g->head);
  free(g->seen);
  free(g->next);
  free(g->box);
}

static bool nms_grid_add(nms_grid *g, const nms_box *b, int32_t kept) {
  int cx0 = cell_of(b->x_min, g->x0, g->cw, g->gx), cx1 = cell_of(b->x_max, g->x0, g->cw, g->gx);
  int cy0 = cell_of(b->y_min, g->y0, g->ch, g->gy), cy1 = cell_of(b->y_max, g->y0, g->ch, g->gy);
  for (int cy = cy0; cy <= cy1; cy++)
    for (int cx = cx0; cx <= cx1; cx++) {
      if (g->n == g->cap) {
        int64_t cap = g->cap ? 2 * g->cap : 1024;
        int32_t *nx = realloc(g->next, sizeof *nx * (size_t)cap);
        if (nx) g->next = nx;
        int32_t *bo = nx ? realloc(g->box, sizeof *bo * (size_t)cap) : NULL;
        if (!bo) return false;
        g->box = bo;
        g->cap = cap;
      }
      int64_t cell = (int64_t)cy * g->gx + cx;
      g->next[g->n] = g->head[cell];
      g->box[g->n] = kept;
      g->head[cell] = (int32_t)g->n++;
    }
  return true;
}

/* Whether a kept box in the cells b (candidate j) spans suppresses b. */
static bool nms_grid_hit(nms_grid *g, const nms_box *bx, const int64_t *sel, const nms_box *b,
                         int32_t j, float iou_threshold) {
  int cx0 = cell_of(b->x_min, g->x0, g->cw, g->gx), cx1 = cell_of(b->x_max, g->x0, g->cw, g->gx);
  int cy0 = cell_of(b->y_min, g->y0, g->ch, g->gy), cy1 = cell_of(b->y_max, g->y0, g->ch, g->gy);
  for (int cy = cy0; cy <= cy1; cy++)
    for (int cx = cx0; cx <= cx1; cx++)
      for (int32_t e = g->head[(int64_t)cy * g->gx + cx]; e >= 0; e = g->next[e]) {
        int32_t kept = g->box[e];
        if (g->seen[kept] == j) continue;
        g->seen[kept] = j;
        if (rt_nms_suppress(&bx[sel[kept]], b, iou_threshold)) return true;
      }
  return false;
}

/* The boxes kept from candidates cand[0..n_cand) (in score order) into
 * sel: each is kept unless it overlaps one kept before it by more than the
 * threshold; at most max_out. Returns how many. Many candidates go through
 * the grid above (the same boxes kept, far fewer tests when boxes are
 * spread out, as class-offset batched NMS makes them), the rest through
 * the plain loop. */
static int64_t nms_select_row(const nms_box *bx, const nms_cand *cand, int64_t n_cand,
                              int64_t max_out, float iou_threshold, int64_t *sel) {
  nms_grid g;
  if (nms_grid_make(&g, bx, cand, n_cand)) {
    int64_t n_sel = 0;
    bool ok = true;
    for (int64_t j = 0; ok && j < n_cand && n_sel < max_out; j++) {
      const nms_box *b = &bx[cand[j].index];
      if (nms_grid_hit(&g, bx, sel, b, (int32_t)j, iou_threshold)) continue;
      ok = nms_grid_add(&g, b, (int32_t)n_sel);
      sel[n_sel++] = cand[j].index;
    }
    nms_grid_free(&g);
    if (ok) return n_sel;
    /* out of memory for the grid's entries: the plain loop */
  }
  int64_t n_sel = 0;
  for (int64_t j = 0; j < n_cand && n_sel < max_out; j++) {
    bool keep = true;
    for (int64_t q = 0; q < n_sel && keep; q++)
      keep = !rt_nms_suppress(&bx[sel[q]], &bx[cand[j].index], iou_threshold);
    if (keep) sel[n_sel++] = cand[j].index;
  }
  return n_sel;
}

/* A candidate: not NaN (never selected) and above score_threshold. */
static bool nms_candidate(const ir_attr *st, float sc) {
  return !isnan(sc) && !(st && !(sc > st->u.f));
}

typedef struct nms_args {
  const rt_tensor *boxes, *scores;
  int64_t n_batch, n_box, n_class, max_out;
  float iou_threshold;
  const ir_attr *st;
  bool center;
} nms_args;

static vkml_status nms_args_get(const rt_cpu_args *a, nms_args *m) {
  const ir_node *n = a->node;
  const rt_tensor *boxes = a->in[0], *scores = a->in[1];
  if (!ir_dtype_is_float(boxes->dtype) || !ir_dtype_is_float(scores->dtype) ||
      boxes->rank != 3 || boxes->dims[2] != 4 || scores->rank != 3 ||
      scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "needs float boxes [B,N,4] and scores [B,C,N]");
  *m = (nms_args){.boxes = boxes, .scores = scores, .n_batch = boxes->dims[0],
                  .n_box = boxes->dims[1], .n_class = scores->dims[1],
                  .max_out = ir_node_int(n, IR_A_MAX_OUTPUT_BOXES, 0),
                  .iou_threshold = ir_node_float(n, IR_A_IOU_THRESHOLD, 0.0f),
                  .st = ir_node_attr(n, IR_A_SCORE_THRESHOLD),
                  .center = ir_node_int(n, IR_A_CENTER_POINT_BOX, 0) != 0};
  if (m->max_out > m->n_box) m->max_out = m->n_box;
  if (m->max_out < 0) m->max_out = 0;
  return VKML_OK;
}

/* Runs NMS over every (batch, class): candidates in score order (from the
 * order tensor when given, else sorted here), then per row `emit`. */
typedef vkml_status (*nms_emit_fn)(void *user, int64_t b, int64_t c, const int64_t *sel,
                                   int64_t n_sel);

static vkml_status nms_run(const nms_args *m, const rt_tensor *order, nms_emit_fn emit,
                           void *user) {
  if (m->max_out <= 0 || m->n_box == 0) return VKML_OK;
  nms_box *bx = malloc(sizeof *bx * (size_t)m->n_box);
  nms_cand *cand = malloc(sizeof *cand * (size_t)m->n_box);
  int64_t *sel = malloc(sizeof *sel * (size_t)m->max_out);
  vkml_status s = VKML_OK;
  if (!bx || !cand || !sel) s = ir_oom(NULL);
  for (int64_t b = 0; !s && b < m->n_batch; b++) {
    for (int64_t i = 0; i < m->n_box; i++)
      bx[i] = rt_nms_load_box(m->boxes, (b * m->n_box + i) * 4, m->center);
    for (int64_t c = 0; !s && c < m->n_class; c++) {
      int64_t n_cand = 0, row = (b * m->n_class + c) * m->n_box;
      for (int64_t j = 0; j < m->n_box; j++) {
        int64_t i = order ? rt_load_i(order, row + j) : j;
        if (i < 0 || i >= m->n_box) {
          s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "order holds box %lld of %lld",
                               (long long)i, (long long)m->n_box);
          break;
        }
        float sc = (float)rt_load_f(m->scores, row + i);
        if (nms_candidate(m->st, sc)) cand[n_cand++] = (nms_cand){sc, i};
      }
      if (!order) qsort(cand, (size_t)n_cand, sizeof *cand, cmp_cand);
      if (!s) s = emit(user, b, c, sel,
                       nms_select_row(bx, cand, n_cand, m->max_out, m->iou_threshold, sel));
    }
  }
  free(bx);
  free(cand);
  free(sel);
  return s;
}

typedef struct nms_triples {
  const ir_node *n;
  rt_tensor *out;
  int64_t count, capacity;
} nms_triples;

static vkml_status emit_triples(void *user, int64_t b, int64_t c, const int64_t *sel,
                                int64_t n_sel) {
  nms_triples *t = user;
  if (t->count + n_sel > t->capacity)
    return rt_cpu_error(t->n, VKML_CODE_INTERNAL, "more than %lld selected boxes",
                        (long long)t->capacity);
  for (int64_t q = 0; q < n_sel; q++, t->count++) {
    rt_store_i(t->out, t->count * 3 + 0, b);
    rt_store_i(t->out, t->count * 3 + 1, c);
    rt_store_i(t->out, t->count * 3 + 2, sel[q]);
  }
  return VKML_OK;
}

static vkml_status triples_out(const ir_node *n, rt_tensor *out, nms_triples *t) {
  if (out->dtype != IR_I64 || out->rank != 2 || out->dims[1] != 3)
    return rt_cpu_error(n, VKML_CODE_INTERNAL, "output must be i64[<=K,3]");
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, out, IR_I64, 2, out->dims));
  *t = (nms_triples){.n = n, .out = out, .capacity = out->dims[0]};
  return VKML_OK;
}

vkml_status rt_cpu_non_max_suppression(const rt_cpu_args *a) {
  nms_args m;
  nms_triples t;
  VKML_RETURN_IF_ERROR(nms_args_get(a, &m));
  VKML_RETURN_IF_ERROR(triples_out(a->node, a->out[0], &t));
  vkml_status s = nms_run(&m, NULL, emit_triples, &t);
  if (s) return rt_cpu_at_node(a->node, s);
  a->out[0]->dims[0] = t.count;
  return VKML_OK;
}

typedef struct nms_rows {
  rt_tensor *out;
  int64_t n_class, per;
} nms_rows;

static vkml_status emit_row(void *user, int64_t b, int64_t c, const int64_t *sel,
                            int64_t n_sel) {
  nms_rows *r = user;
  for (int64_t q = 0; q < r->per; q++)
    rt_store_i(r->out, (b * r->n_class + c) * r->per + q, q < n_sel ? sel[q] : -1);
  return VKML_OK;
}

vkml_status rt_cpu_nms_select(const rt_cpu_args *a) {
  nms_args m;
  VKML_RETURN_IF_ERROR(nms_args_get(a, &m));
  const rt_tensor *order = a->in[2];
  if (order->dtype != IR_I64 || rt_tensor_numel(order) != rt_tensor_numel(m.scores))
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT,
                        "order must be i64 of the scores' shape");
  int64_t dims[3] = {m.n_batch, m.n_class, m.max_out};
  rt_tensor *out = a->out[0];
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(a->node, 0, out, IR_I32, 3, dims));
  nms_rows r = {out, m.n_class, m.max_out};
  vkml_status s = nms_run(&m, order, emit_row, &r);
  return s ? rt_cpu_at_node(a->node, s) : VKML_OK;
}

vkml_status rt_cpu_nms_compact(const rt_cpu_args *a) {
  const rt_tensor *sel = a->in[0];
  nms_triples t;
  if (sel->dtype != IR_I32 || sel->rank != 3)
    return rt_cpu_error(a->node, VKML_CODE_INVALID_ARGUMENT, "input must be i32[B,C,M]");
  VKML_RETURN_IF_ERROR(triples_out(a->node, a->out[0], &t));
  int64_t nc = sel->dims[1], per = sel->dims[2];
  int64_t *row = malloc(sizeof *row * (size_t)(per ? per : 1));
  if (!row) return ir_oom(NULL);
  vkml_status s = VKML_OK;
  for (int64_t b = 0; !s && b < sel->dims[0]; b++) {
    for (int64_t c = 0; !s && c < nc; c++) {
      int64_t k = 0;
      while (k < per && rt_load_i(sel, (b * nc + c) * per + k) >= 0) {
        row[k] = rt_load_i(sel, (b * nc + c) * per + k);
        k++;
      }
      s = emit_triples(&t, b, c, row, k);
    }
  }
  free(row);
  if (s) return s;
  a->out[0]->dims[0] = t.count;
  return VKML_OK;
}

/* ---- roi_align ------------------------------------------------------------ */

/* One sampling point: four taps and their bilinear weights (all zero for a
 * point outside the feature map), as the ONNX reference's pre_calc. */
typedef struct roi_tap {
  int64_t pos[4];
  double w[4];
} roi_tap;

static roi_tap roi_tap_make(double y, double x, int64_t height, int64_t width) {
  roi_tap t = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  if (y < -1.0 || y > (double)height || x < -1.0 || x > (double)width) return t;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = (int64_t)y, x_low = (int64_t)x, y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = (double)y_low;
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = (double)x_low;
  } else {
    x_high = x_low + 1;
  }
  double ly = y - (double)y_low, lx = x - (double)x_low, hy = 1 - ly, hx = 1 - lx;
  t.pos[0] = y_low * width + x_low;
  t.pos[1] = y_low * width + x_high;
  t.pos[2] = y_high * width + x_low;
  t.pos[3] = y_high * width + x_high;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  return t;
}

/* Sampling grid size along one axis: sampling_ratio, or ceil(roi/out). */
static vkml_status roi_grid(const ir_node *n, int64_t ratio, double roi_size, int64_t out_size,
                            int64_t *grid) {
  if (ratio > 0) {
    *grid = ratio;
  } else {
    double g = ceil(roi_size / (double)out_size);
    if (isnan(g) || g > 65536)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "roi of size %g is too large", roi_size);
    *grid = g < 0 ? 0 : (int64_t)g; /* a negative size samples nothing */
  }
  if (*grid > 65536)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "sampling_ratio %lld is too large",
                        (long long)ratio);
  return VKML_OK;
}

vkml_status rt_cpu_roi_align(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *rois = a->in[1], *bi = a->in[2];
  rt_tensor *y = a->out[0];
  if (!ir_dtype_is_float(x->dtype) || x->rank != 4 || !ir_dtype_is_float(rois->dtype) ||
      rois->rank != 2 || rois->dims[1] != 4 || !ir_dtype_is_int(bi->dtype) || bi->rank != 1 ||
      bi->dims[0] != rois->dims[0])
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "needs float x [N,C,H,W], rois [R,4] and integer batch_indices [R]");
  int64_t oh = ir_node_int(n, IR_A_OUTPUT_HEIGHT, 1), ow = ir_node_int(n, IR_A_OUTPUT_WIDTH, 1);
  if (oh < 1 || ow < 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output size must be positive");
  int64_t n_roi = rois->dims[0], n_batch = x->dims[0], n_ch = x->dims[1];
  int64_t height = x->dims[2], width = x->dims[3];
  int64_t dims[4] = {n_roi, n_ch, oh, ow};
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, 4, dims));
  bool max_mode = ir_node_int(n, IR_A_ROI_MODE, IR_ROI_AVG) == IR_ROI_MAX;
  int64_t ratio = ir_node_int(n, IR_A_SAMPLING_RATIO, 0);
  double scale = ir_node_float(n, IR_A_SPATIAL_SCALE, 1.0f);
  int64_t coord = ir_node_int(n, IR_A_COORD_MODE, IR_COORD_HALF_PIXEL);
  if (coord != IR_COORD_HALF_PIXEL && coord != IR_COORD_OUTPUT_HALF_PIXEL)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "coordinate_transformation_mode must be half_pixel or output_half_pixel");
  bool half_pixel = coord == IR_COORD_HALF_PIXEL;
  if (n_roi == 0 || n_ch == 0) return VKML_OK;
  if (height == 0 || width == 0)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "empty feature map");

  for (int64_t r = 0; r < n_roi; r++) {
    int64_t b = rt_load_i(bi, r);
    if (b < 0 || b >= n_batch)
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "batch index %lld of roi %lld outside [0, %lld)", (long long)b,
                          (long long)r, (long long)n_batch);
    double offset = half_pixel ? 0.5 : 0.0;
    double start_w = rt_load_f(rois, r * 4 + 0) * scale - offset;
    double start_h = rt_load_f(rois, r * 4 + 1) * scale - offset;
    double end_w = rt_load_f(rois, r * 4 + 2) * scale - offset;
    double end_h = rt_load_f(rois, r * 4 + 3) * scale - offset;
    if (!isfinite(start_w) || !isfinite(start_h) || !isfinite(end_w) || !isfinite(end_h))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "roi %lld is not finite",
                          (long long)r);
    double roi_w = end_w - start_w, roi_h = end_h - start_h;
    if (!half_pixel) { /* opset-10 behaviour: malformed rois become 1x1 */
      roi_w = roi_w > 1.0 ? roi_w : 1.0;
      roi_h = roi_h > 1.0 ? roi_h : 1.0;
    }
    double bin_h = roi_h / (double)oh, bin_w = roi_w / (double)ow;
    int64_t gh = 0, gw = 0;
    VKML_RETURN_IF_ERROR(roi_grid(n, ratio, roi_h, oh, &gh));
    VKML_RETURN_IF_ERROR(roi_grid(n, ratio, roi_w, ow, &gw));
    int64_t n_samples = gh * gw;
    double count = n_samples > 1 ? (double)n_samples : 1.0;
    if (n_samples > (INT64_C(1) << 20))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                          "roi %lld needs %lld samples per bin", (long long)r,
                          (long long)n_samples);

    roi_tap *taps = malloc(sizeof *taps * (size_t)(n_samples + 1));
    if (!taps) return ir_oom(NULL);
    for (int64_t ph = 0; ph < oh; ph++) {
      for (int64_t pw = 0; pw < ow; pw++) {
        roi_tap *t = taps;
        for (int64_t iy = 0; iy < gh; iy++) {
          double yy = start_h + (double)ph * bin_h + ((double)iy + 0.5) * bin_h / (double)gh;
          for (int64_t ix = 0; ix < gw; ix++) {
            double xx = start_w + (double)pw * bin_w + ((double)ix + 0.5) * bin_w / (double)gw;
            *t++ = roi_tap_make(yy, xx, height, width);
          }
        }
        for (int64_t c = 0; c < n_ch; c++) {
          int64_t plane = (b * n_ch + c) * height * width;
          double acc = 0;
          for (int64_t k = 0; k < n_samples; k++) {
            const roi_tap *tp = &taps[k];
            double v[4];
            for (int j = 0; j < 4; j++) v[j] = tp->w[j] * rt_load_f(x, plane + tp->pos[j]);
            if (max_mode) { /* max over the weighted taps, as the ONNX reference */
              double m = v[0];
              for (int j = 1; j < 4; j++) m = v[j] > m ? v[j] : m;
              acc = k == 0 || m > acc ? m : acc;
            } else {
              acc += v[0] + v[1] + v[2] + v[3];
            }
          }
          rt_store_f(y, ((r * n_ch + c) * oh + ph) * ow + pw, max_mode ? acc : acc / count);
        }
      }
    }
    free(taps);
  }
  return VKML_OK;
}

/* ---- grid_sample ----------------------------------------------------------- */

/* ONNX GridSample (opset 16) as PyTorch's grid_sampler_2d computes it: a
 * grid coordinate in [-1, 1] maps to a pixel index, then the padding mode
 * keeps it in the image (border: clamped; reflection: reflected, then
 * clamped) or a sample outside reads 0 (zeros). Bicubic applies the padding
 * to each of its 16 taps. */
static double gs_unnormalize(double c, int64_t size, bool align) {
  return align ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2;
}

static double gs_clip(double c, int64_t size) {
  return c < 0 ? 0 : c > (double)(size - 1) ? (double)(size - 1) : c;
}

/* c reflected into [lo2 / 2, hi2 / 2] (bounds doubled, as PyTorch keeps them) */
static double gs_reflect(double c, double lo2, double hi2) {
  if (lo2 == hi2) return 0;
  double lo = lo2 / 2, span = (hi2 - lo2) / 2;
  c = fabs(c - lo);
  double extra = fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

static double gs_pad(double c, int64_t size, int pad, bool align) {
  if (pad == IR_PAD_EDGE) return gs_clip(c, size);
  if (pad == IR_PAD_REFLECT)
    return gs_clip(align ? gs_reflect(c, 0, 2.0 * (double)(size - 1))
                         : gs_reflect(c, -1, 2.0 * (double)size - 1),
                   size);
  return c;
}

/* A pixel index of coordinate c; -1 (outside) for NaN and the huge. */
static int64_t gs_idx(double c) { return c > -1e15 && c < 1e15 ? (int64_t)c : -1; }

/* x[plane] at integer (ix, iy), 0 outside. */
static double gs_at(const rt_tensor *x, int64_t plane, int64_t h, int64_t w, int64_t iy,
                    int64_t ix) {
  if (ix < 0 || iy < 0 || ix >= w || iy >= h) return 0;
  return rt_load_f(x, (plane * h + iy) * w + ix);
}

static double gs_cubic1(double t) { return ((-0.75 + 2) * t - (-0.75 + 3)) * t * t + 1; }
static double gs_cubic2(double t) {
  return ((-0.75 * t - 5 * -0.75) * t + 8 * -0.75) * t - 4 * -0.75;
}

vkml_status rt_cpu_grid_sample(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  const rt_tensor *x = a->in[0], *grid = a->in[1];
  rt_tensor *y = a->out[0];
  if (!ir_dtype_is_float(x->dtype) || x->rank != 4 || grid->rank != 4 ||
      grid->dims[0] != x->dims[0] || grid->dims[3] != 2)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT,
                        "needs float x [N,C,H,W] and grid [N,Ho,Wo,2]");
  int64_t nb = x->dims[0], nc = x->dims[1], h = x->dims[2], w = x->dims[3];
  int64_t oh = grid->dims[1], ow = grid->dims[2];
  int64_t dims[4] = {nb, nc, oh, ow};
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, y, x->dtype, 4, dims));
  int mode = (int)ir_node_int(n, IR_A_RESIZE_MODE, IR_RESIZE_LINEAR);
  int pad = (int)ir_node_int(n, IR_A_PADDING_MODE, IR_PAD_CONSTANT);
  bool align = ir_node_int(n, IR_A_ALIGN_CORNERS, 0) != 0;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        int64_t g = ((b * oh + i) * ow + j) * 2;
        double gx = gs_unnormalize(rt_load_f(grid, g), w, align);
        double gy = gs_unnormalize(rt_load_f(grid, g + 1), h, align);
        for (int64_t c = 0; c < nc; c++) {
          int64_t plane = b * nc + c;
          double v = 0;
          if (mode == IR_RESIZE_CUBIC) {
            double fx = floor(gx), fy = floor(gy), tx = gx - fx, ty = gy - fy;
            double cx[4] = {gs_cubic2(tx + 1), gs_cubic1(tx), gs_cubic1(1 - tx), gs_cubic2(2 - tx)};
            double cy[4] = {gs_cubic2(ty + 1), gs_cubic1(ty), gs_cubic1(1 - ty), gs_cubic2(2 - ty)};
            for (int r = 0; r < 4; r++) {
              double row = 0;
              for (int k = 0; k < 4; k++) {
                double px = gs_pad(fx - 1 + k, w, pad, align);
                double py = gs_pad(fy - 1 + r, h, pad, align);
                row += cx[k] * gs_at(x, plane, h, w, gs_idx(py), gs_idx(px));
              }
              v += cy[r] * row;
            }
          } else {
            double px = gs_pad(gx, w, pad, align), py = gs_pad(gy, h, pad, align);
            if (mode == IR_RESIZE_NEAREST) {
              v = gs_at(x, plane, h, w, gs_idx(nearbyint(py)), gs_idx(nearbyint(px)));
            } else {
              double fx = floor(px), fy = floor(py), tx = px - fx, ty = py - fy;
              int64_t x0 = gs_idx(fx), y0 = gs_idx(fy);
              v = (1 - ty) * ((1 - tx) * gs_at(x, plane, h, w, y0, x0) +
                              tx * gs_at(x, plane, h, w, y0, x0 + 1)) +
                  ty * ((1 - tx) * gs_at(x, plane, h, w, y0 + 1, x0) +
                        tx * gs_at(x, plane, h, w, y0 + 1, x0 + 1));
            }
          }
          rt_store_f(y, ((plane * oh) + i) * ow + j, v);
        }
      }
  return VKML_OK;
}
