/* The shared-object planners of the TFLite-GPU paper (Lee et al., "On-Device
 * Neural Net Inference with Mobile GPUs", 2019, section 5): greedy
 * (Algorithm 1) and minimum-cost flow. Both assign each storage to a shared
 * object that holds one tensor at a time; an object is as large as its
 * largest tensor, and the objects are laid out one after another. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "passes/plan_memory_internal.h"

/* Algorithm 1: storages by start (bufs are sorted so); an object is free
 * once its tensor's last reader has run, i.e. for a tensor starting later. */
vkml_status pm_plan_greedy(const pm_buf *b, int n, uint64_t *off, uint64_t *total,
                           int32_t *n_objects) {
  int32_t *obj = malloc(((size_t)n + 1) * sizeof *obj);
  uint64_t *size = malloc(((size_t)n + 1) * sizeof *size);
  int32_t *busy_until = malloc(((size_t)n + 1) * sizeof *busy_until);
  vkml_status s = VKML_OK;
  if (!obj || !size || !busy_until) {
    s = ir_oom(NULL);
    goto out;
  }
  int n_obj = 0;
  for (int i = 0; i < n; i++) {
    int best = -1;
    uint64_t best_diff = UINT64_MAX;
    for (int k = 0; k < n_obj; k++) {
      if (busy_until[k] >= b[i].start) continue;
      uint64_t d = size[k] > b[i].size ? size[k] - b[i].size : b[i].size - size[k];
      if (d < best_diff) best = k, best_diff = d;
    }
    if (best < 0) {
      best = n_obj++;
      size[best] = 0;
    }
    if (b[i].size > size[best]) size[best] = b[i].size;
    busy_until[best] = b[i].end;
    obj[i] = best;
  }
  *n_objects = n_obj;
  s = pm_objects_to_offsets(b, n, obj, n_obj, off, total);
out:
  free(obj);
  free(size);
  free(busy_until);
  return s;
}

/* ---- minimum-cost flow ------------------------------------------------------ */

typedef struct edge {
  int32_t to, next; /* next: the following edge out of the same node */
  int32_t cap;
  int64_t cost;
} edge;

typedef struct flow_net {
  int n_nodes;
  int32_t *head; /* first edge out of each node, -1: none */
  edge *e;       /* e[k ^ 1] is e[k]'s residual twin */
  int n_edges, cap_edges;
} flow_net;

static vkml_status add_edge(flow_net *f, int from, int to, int64_t cost) {
  if (f->n_edges + 2 > f->cap_edges) {
    int cap = f->cap_edges ? 2 * f->cap_edges : 1024;
    edge *ne = realloc(f->e, (size_t)cap * sizeof *ne);
    if (!ne) return ir_oom(NULL);
    f->e = ne;
    f->cap_edges = cap;
  }
  f->e[f->n_edges] = (edge){to, f->head[from], 1, cost};
  f->head[from] = f->n_edges++;
  f->e[f->n_edges] = (edge){from, f->head[to], 0, -cost};
  f->head[to] = f->n_edges++;
  return VKML_OK;
}

/* A binary min-heap of (distance, node) with lazy deletion. */
typedef struct heap_item {
  int64_t d;
  int32_t v;
} heap_item;

typedef struct heap {
  heap_item *a;
  int n, cap;
} heap;

static bool heap_push(heap *h, int64_t d, int32_t v) {
  if (h->n == h->cap) {
    int cap = h->cap ? 2 * h->cap : 256;
    heap_item *na = realloc(h->a, (size_t)cap * sizeof *na);
    if (!na) return false;
    h->a = na;
    h->cap = cap;
  }
  int i = h->n++;
  while (i > 0 && h->a[(i - 1) / 2].d > d) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = (heap_item){d, v};
  return true;
}

static heap_item heap_pop(heap *h) {
  heap_item top = h->a[0], last = h->a[--h->n];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->a[c + 1].d < h->a[c].d) c++;
    if (h->a[c].d >= last.d) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n) h->a[i] = last;
  return top;
}

/* Sends `want` units from src to dst along successive shortest paths
 * (Dijkstra on reduced costs; every initial cost is >= 0, so zero potentials
 * are valid to start). Stops early when dst cannot be reached. */
static vkml_status min_cost_flow(flow_net *f, int src, int dst, int want, int *sent) {
  size_t nn = (size_t)f->n_nodes;
  int64_t *pot = calloc(nn, sizeof *pot), *dist = malloc(nn * sizeof *dist);
  int32_t *via = malloc(nn * sizeof *via); /* edge into the node on the path */
  bool *done = malloc(nn * sizeof *done);
  heap h = {0};
  vkml_status s = VKML_OK;
  *sent = 0;
  if (!pot || !dist || !via || !done) {
    s = ir_oom(NULL);
    goto out;
  }
  while (*sent < want) {
    for (size_t v = 0; v < nn; v++) dist[v] = INT64_MAX, done[v] = false;
    dist[src] = 0;
    h.n = 0;
    if (!heap_push(&h, 0, src)) {
      s = ir_oom(NULL);
      goto out;
    }
    while (h.n) {
      heap_item it = heap_pop(&h);
      if (done[it.v] || it.d != dist[it.v]) continue;
      done[it.v] = true;
      if (it.v == dst) break; /* nodes not yet settled keep dist as an upper bound */
      for (int32_t k = f->head[it.v]; k >= 0; k = f->e[k].next) {
        const edge *e = &f->e[k];
        if (!e->cap || done[e->to]) continue;
        int64_t nd = it.d + e->cost + pot[it.v] - pot[e->to];
        if (nd < dist[e->to]) {
          dist[e->to] = nd;
          via[e->to] = k;
          if (!heap_push(&h, nd, e->to)) {
            s = ir_oom(NULL);
            goto out;
          }
        }
      }
    }
    if (!done[dst]) break;
    /* settled nodes move by their distance, the rest by dst's: reduced costs
     * stay non-negative on every residual edge */
    for (size_t v = 0; v < nn; v++) pot[v] += done[v] ? dist[v] : dist[dst];
    for (int v = dst; v != src; v = f->e[via[v] ^ 1].to) {
      f->e[via[v]].cap--;
      f->e[via[v] ^ 1].cap++;
    }
    (*sent)++;
  }
out:
  free(pot);
  free(dist);
  free(via);
  free(done);
  free(h.a);
  return s;
}

typedef struct by_size {
  uint64_t size;
  int32_t i;
} by_size;

static int by_size_cmp(const void *pa, const void *pb) {
  const by_size *a = pa, *b = pb;
  if (a->size != b->size) return a->size < b->size ? -1 : 1;
  return a->i - b->i;
}

/* Edges l_x -> r_y for the x that may hand their object to y (x's last
 * reader runs before y starts; bufs are sorted by start, so x < y). With every
 * such pair the network has O(n^2) edges and solving it O(n^3 log n) — 17 s
 * for 1000 tensors. Up to MCFP_EXACT tensors (real CNNs: a few hundred) the
 * network has every pair. Beyond, as the paper suggests, fewer type-2 edges
 * (the flow is then optimal on that subset only): per tensor t
 * the MCFP_SIDE partners nearest in size at or above size_t and as many
 * below, looking back (t as y: objects it may take) and forward (t as x:
 * tensors it may hand its object to; without these, late tensors would
 * seldom be anyone's candidate and their objects would die with them). A
 * tensor with at most MCFP_SIDE partners on a side keeps them all. */
#define MCFP_SIDE 16
#define MCFP_EXACT 512

/* Whether x may hand its object to y. */
static bool can_follow(const pm_buf *b, int x, int y) { return x < y && b[x].end < b[y].start; }

static vkml_status reuse_edge(flow_net *f, const pm_buf *b, int n, int x, int y) {
  return add_edge(f, x, n + y, b[y].size > b[x].size ? (int64_t)(b[y].size - b[x].size) : 0);
}

static vkml_status add_reuse_edges(flow_net *f, const pm_buf *b, int n) {
  if (n <= MCFP_EXACT) {
    for (int x = 0; x < n; x++)
      for (int y = x + 1; y < n; y++)
        if (can_follow(b, x, y)) VKML_RETURN_IF_ERROR(reuse_edge(f, b, n, x, y));
    return VKML_OK;
  }
  by_size *order = malloc(((size_t)n + 1) * sizeof *order);
  if (!order) return ir_oom(NULL);
  for (int i = 0; i < n; i++) order[i] = (by_size){b[i].size, i};
  qsort(order, (size_t)n, sizeof *order, by_size_cmp);
  vkml_status s = VKML_OK;
  for (int t = 0; t < n && !s; t++) {
    /* the first position in size order at or above size_t */
    int lo = 0, hi = n;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (order[mid].size < b[t].size) lo = mid + 1;
      else hi = mid;
    }
    for (int forward = 0; forward < 2 && !s; forward++) {
      int up = 0, down = 0;
      for (int k = lo; k < n && up < MCFP_SIDE && !s; k++) {
        int o = order[k].i, x = forward ? t : o, y = forward ? o : t;
        if (!can_follow(b, x, y)) continue;
        s = reuse_edge(f, b, n, x, y);
        up++;
      }
      for (int k = lo - 1; k >= 0 && down < MCFP_SIDE && !s; k--) {
        int o = order[k].i, x = forward ? t : o, y = forward ? o : t;
        if (!can_follow(b, x, y)) continue;
        s = reuse_edge(f, b, n, x, y);
        down++;
      }
    }
  }
  free(order);
  return s;
}

/* The paper's network: source s, sink t, per tensor x a left node l_x (x's
 * object, free after x) and a right node r_x (x needs an object). Edges
 * s->r_x cost size_x (a new object), s->l_x cost 0, r_x->t cost 0, and
 * l_x->r_y cost max(0, size_y - size_x) when y starts after x's last reader.
 * A flow of n assigns every tensor; a saturated l_x->r_y puts y in x's
 * object. */
vkml_status pm_plan_mcfp(const pm_buf *b, int n, uint64_t *off, uint64_t *total,
                         int32_t *n_objects) {
  flow_net f = {.n_nodes = 2 * n + 2};
  int32_t *obj = malloc(((size_t)n + 1) * sizeof *obj);
  f.head = malloc((size_t)f.n_nodes * sizeof *f.head);
  vkml_status s = VKML_OK;
  if (!obj || !f.head) {
    s = ir_oom(NULL);
    goto out;
  }
  for (int v = 0; v < f.n_nodes; v++) f.head[v] = -1;
  const int src = 2 * n, dst = 2 * n + 1;
#define L(x) (x)
#define R(x) (n + (x))
  for (int x = 0; x < n && !s; x++) {
    s = add_edge(&f, src, R(x), (int64_t)b[x].size);
    if (!s) s = add_edge(&f, src, L(x), 0);
    if (!s) s = add_edge(&f, R(x), dst, 0);
  }
  if ((s = add_reuse_edges(&f, b, n))) goto out;
  int sent;
  if ((s = min_cost_flow(&f, src, dst, n, &sent))) goto out;
  if (sent != n) {
    s = vkml_status_make(VKML_CODE_INTERNAL, "mcfp: flow %d of %d", sent, n);
    goto out;
  }
  /* y's predecessor in its object: the x whose l_x->r_y edge is saturated */
  for (int y = 0; y < n; y++) obj[y] = -1;
  int n_obj = 0;
  for (int y = 0; y < n; y++) {
    int pred = -1;
    for (int32_t k = f.head[R(y)]; k >= 0; k = f.e[k].next) {
      /* residual twins of edges into r_y: capacity 1 means flow went in */
      const edge *e = &f.e[k];
      if ((k & 1) && e->cap && e->to < n) pred = e->to;
    }
    /* x starts before y, so its object is known already */
    obj[y] = pred >= 0 ? obj[pred] : n_obj++;
  }
  *n_objects = n_obj;
  s = pm_objects_to_offsets(b, n, obj, n_obj, off, total);
#undef L
#undef R
out:
  free(obj);
  free(f.head);
  free(f.e);
  return s;
}
