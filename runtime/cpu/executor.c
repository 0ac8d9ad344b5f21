/* CPU executor: walks the node list in order, allocating each output, running
 * the family kernel, and freeing every intermediate after its last use. */
#include "executor.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_kernels.h"
#include "ir/file.h"
#include "ir/text.h"

typedef struct exec_state {
  const rt_cpu_ctx *ctx;
  rt_tensor *vals;  /* by value id */
  int *last_use;    /* node id of last consumer; -1 if none, INT_MAX if output */
  int n_values;
} exec_state;

static vkml_status bind_input(const ir_value *v, const rt_tensor *t, rt_tensor *slot) {
  ir_type got = rt_tensor_type(t);
  if (!ir_type_holds(&v->type, &got)) {
    char a[128], b[128];
    ir_type_format(&v->type, a, sizeof a);
    ir_type_format(&got, b, sizeof b);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "input %%%s: expected %s, got %s", v->name, a, b);
  }
  *slot = rt_tensor_view(&got, t->data);
  return VKML_OK;
}

/* Output types for this run: the static ones unless an input's actual size
 * differs from its type (a bounded tensor), then re-inferred. */
static vkml_status output_types(const ir_node *n, const exec_state *st,
                                ir_type *types) {
  bool dynamic = false;
  ir_type in[IR_MAX_NODE_OPERANDS];
  /* the verifier refuses more; a graph built by hand may not be verified */
  if (n->n_inputs > IR_MAX_NODE_OPERANDS)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "more than %d inputs", IR_MAX_NODE_OPERANDS);
  for (int i = 0; i < n->n_inputs; i++) {
    in[i] = rt_tensor_type(&st->vals[n->inputs[i]->id]);
    ir_type stat = n->inputs[i]->type;
    stat.bounded = false;
    if (!ir_type_equal(&in[i], &stat)) dynamic = true;
  }
  /* to_capacity's output is its input's capacity, whatever the actual size */
  if (dynamic && n->op != IR_OP_TO_CAPACITY) return ir_infer_node_types(n, in, types);
  for (int i = 0; i < n->n_outputs; i++) types[i] = n->outputs[i]->type;
  return VKML_OK;
}

static vkml_status run_node(const ir_node *n, exec_state *st) {
  ir_type types[IR_MAX_NODE_OPERANDS];
  const rt_tensor *in[IR_MAX_NODE_OPERANDS];
  rt_tensor *out[IR_MAX_NODE_OPERANDS];
  if (n->n_outputs > IR_MAX_NODE_OPERANDS)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "more than %d outputs", IR_MAX_NODE_OPERANDS);
  VKML_RETURN_IF_ERROR(output_types(n, st, types));
  for (int i = 0; i < n->n_inputs; i++) in[i] = &st->vals[n->inputs[i]->id];
  for (int i = 0; i < n->n_outputs; i++) {
    out[i] = &st->vals[n->outputs[i]->id];
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&types[i], out[i]));
  }
  return rt_cpu_run_node_ctx(st->ctx, n, in, n->n_inputs, out, n->n_outputs);
}

vkml_status rt_cpu_eval_node(void *user, const ir_node *n, const void *const *in,
                             void *const *out) {
  (void)user;
  rt_tensor tin[IR_MAX_NODE_OPERANDS], tout[IR_MAX_NODE_OPERANDS];
  const rt_tensor *pin[IR_MAX_NODE_OPERANDS];
  rt_tensor *pout[IR_MAX_NODE_OPERANDS];
  if (n->n_inputs > IR_MAX_NODE_OPERANDS || n->n_outputs > IR_MAX_NODE_OPERANDS)
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "more than %d operands", IR_MAX_NODE_OPERANDS);
  for (int i = 0; i < n->n_inputs; i++) {
    tin[i] = rt_tensor_view(&n->inputs[i]->type, in[i]);
    pin[i] = &tin[i];
  }
  for (int i = 0; i < n->n_outputs; i++) {
    tout[i] = rt_tensor_view(&n->outputs[i]->type, out[i]);
    pout[i] = &tout[i];
  }
  return rt_cpu_run_node(n, pin, n->n_inputs, pout, n->n_outputs);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The host bytes a run holds at its peak (intermediates live from their
 * node to their last reader, outputs to the end, plus the output copies),
 * against the memory available: refused with both sizes before anything
 * is allocated, rather than killed by the kernel once pages are touched. */
static vkml_status check_host_memory(const ir_graph *g, const int *last_use) {
  unsigned long long avail = ir_memory_available();
  if (!avail) return VKML_OK;
  double live = 0, peak = 0, outs = 0;
  const ir_node *at = NULL;
  for (int i = 0; i < g->n_outputs; i++) outs += (double)ir_type_bytes(&g->outputs[i]->type);
  ir_foreach_node(g, n) {
    for (int i = 0; i < n->n_outputs; i++) live += (double)ir_type_bytes(&n->outputs[i]->type);
    if (live > peak) {
      peak = live;
      at = n;
    }
    for (int i = 0; i < n->n_inputs; i++) {
      const ir_value *v = n->inputs[i];
      if (v->producer && last_use[v->id] == n->id) live -= (double)ir_type_bytes(&v->type);
    }
  }
  if (live + outs > peak) {
    peak = live + outs;
    at = NULL;
  }
  if (peak <= (double)avail) return VKML_OK;
  char d[160] = "the output copies";
  if (at) ir_node_describe(at, d, sizeof d);
  return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                          "graph @%s needs %.0f bytes of host memory at its peak (at %s), more "
                          "than the %llu bytes available",
                          g->name, peak, d, avail);
}

vkml_status rt_cpu_run_graph(const ir_graph *g, const rt_tensor *inputs,
                             int n_inputs, rt_tensor *outputs, int n_outputs) {
  return rt_cpu_run_graph_profiled(g, inputs, n_inputs, outputs, n_outputs, NULL);
}

vkml_status rt_cpu_run_graph_profiled(const ir_graph *g, const rt_tensor *inputs,
                                      int n_inputs, rt_tensor *outputs,
                                      int n_outputs, double *node_seconds) {
  return rt_cpu_run_graph_ctx(NULL, g, inputs, n_inputs, outputs, n_outputs, node_seconds);
}

vkml_status rt_cpu_run_graph_ctx(const rt_cpu_ctx *ctx, const ir_graph *g,
                                 const rt_tensor *inputs, int n_inputs, rt_tensor *outputs,
                                 int n_outputs, double *node_seconds) {
  if (node_seconds)
    for (int i = 0; i < g->n_nodes; i++) node_seconds[i] = 0;
  for (int i = 0; i < n_outputs; i++) memset(&outputs[i], 0, sizeof outputs[i]);
  if (n_inputs != g->n_inputs || n_outputs != g->n_outputs)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "graph @%s takes %d inputs and %d outputs, given %d and %d",
                            g->name, g->n_inputs, g->n_outputs, n_inputs, n_outputs);
  vkml_status s = VKML_OK;
  exec_state st = {0};
  st.ctx = ctx;
  st.n_values = g->n_values;
  st.vals = calloc((size_t)g->n_values + 1, sizeof *st.vals);
  st.last_use = malloc(((size_t)g->n_values + 1) * sizeof *st.last_use);
  if (!st.vals || !st.last_use) {
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    goto out;
  }
  for (int i = 0; i < g->n_values; i++) st.last_use[i] = -1;
  ir_foreach_node(g, n) for (int i = 0; i < n->n_inputs; i++)
      st.last_use[n->inputs[i]->id] = n->id;
  for (int i = 0; i < g->n_outputs; i++) st.last_use[g->outputs[i]->id] = -2; /* keep */
  s = check_host_memory(g, st.last_use);
  if (s) goto out;

  ir_foreach_value(g, v) {
    if (!ir_value_is_const(v)) continue;
    const void *data = ir_value_const_data(g, v);
    if (!data) {
      s = vkml_status_make(VKML_CODE_INVALID_GRAPH,
                           "constant %%%s: weights blob missing or too small", v->name);
      goto out;
    }
    st.vals[v->id] = rt_tensor_view(&v->type, data);
  }
  for (int i = 0; i < g->n_inputs; i++) {
    s = bind_input(g->inputs[i], &inputs[i], &st.vals[g->inputs[i]->id]);
    if (s) goto out;
  }
  ir_foreach_node(g, n) {
    double t0 = node_seconds ? now_seconds() : 0;
    s = run_node(n, &st);
    if (s) goto out;
    if (node_seconds) node_seconds[n->id] = now_seconds() - t0;
    for (int i = 0; i < n->n_inputs; i++) {
      int id = n->inputs[i]->id;
      if (st.last_use[id] == n->id) rt_tensor_free(&st.vals[id]); /* views: no-op free */
    }
  }
  for (int i = 0; i < g->n_outputs; i++) {
    rt_tensor *src = &st.vals[g->outputs[i]->id];
    /* Several outputs may name one value, or an input/constant view: copy so
     * that every output owns its data. */
    s = rt_tensor_alloc_dims(src->dtype, src->rank, src->dims, &outputs[i]);
    if (s) goto out;
    memcpy(outputs[i].data, src->data, rt_tensor_bytes(src));
  }
out:
  if (st.vals)
    for (int i = 0; i < st.n_values; i++) rt_tensor_free(&st.vals[i]);
  free(st.vals);
  free(st.last_use);
  if (s)
    for (int i = 0; i < n_outputs; i++) rt_tensor_free(&outputs[i]);
  return s;
}
