/* Running an executor (vk_exec.h): the steps in order, GPU segments as one
 * submission each, CPU steps on the reference kernels, transfers at the
 * plan's transfer steps; the lean path for all-GPU plans; replays. */
#include "vk_exec_internal.h"

/* ---- running ---------------------------------------------------------------------- */

/* A step's copy commands before its dispatch (IR_STEP_COPY_IN0, then one
 * per output for IR_STEP_EXTENT_FROM without IR_STEP_EXTENT_KERNEL), whose time counts as the step's:
 * the entries before the dispatch's (t). */
double rt_vk_exec_copy_ns(const rt_vk_exec *e, int step, const double *t) {
  const ir_plan_step *s = &e->plan->steps[step];
  const ir_node *n = e->nodes[s->node];
  int k = IR_STEP_EXTENT_COPY_INPUT(s->flags) >= 0 ? n->n_outputs : 0;
  if ((s->flags & IR_STEP_COPY_IN0) && ir_type_bytes(&n->inputs[0]->type)) k++;
  double ns = 0;
  for (int i = 1; i <= k; i++) ns += t[-i];
  return ns;
}

/* The type of bounded value v this run: its extent word (ir/graph.h) read
 * back from the device; a word past the capacity is a kernel's bug. */
static vkml_status run_type(rt_vk_exec *e, const ir_value *v, ir_type *out) {
  *out = v->type;
  out->bounded = false;
  if (!v->type.bounded) return VKML_OK;
  uint32_t extent;
  VKML_RETURN_IF_ERROR(rt_vk_buffer_download(
      e->ctx, e->bufs[v->id], e->buf_off[v->id] + ir_type_extent_offset(&v->type, v->layout),
      &extent, sizeof extent));
  int axis = v->type.bounded_axis;
  if (extent > v->type.dims[axis])
    return vkml_status_make(VKML_CODE_INTERNAL,
                            "%%%s: the device wrote a size of %u along axis %d, past its "
                            "capacity %lld",
                            v->name, extent, axis, (long long)v->type.dims[axis]);
  out->dims[axis] = extent;
  return VKML_OK;
}

/* A download step: host[out] receives the device bytes of its input (of a
 * bounded input, the elements its extent word counts). */
static vkml_status run_download(rt_vk_exec *e, const ir_node *n) {
  const ir_value *v = n->inputs[0], *w = n->outputs[0];
  rt_tensor *t = &e->host[w->id];
  if (!e->bufs[v->id])
    return vkml_status_make(VKML_CODE_INTERNAL, "%%%s has no device buffer", v->name);
  ir_type want, have = rt_tensor_type(t);
  VKML_RETURN_IF_ERROR(run_type(e, v, &want));
  if (!t->owns_data || !ir_type_equal(&want, &have)) {
    rt_tensor_free(t);
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&want, t));
  }
  uint64_t bytes = rt_tensor_bytes(t);
  if (bytes)
    VKML_RETURN_IF_ERROR(
        rt_vk_buffer_download(e->ctx, e->bufs[v->id], e->buf_off[v->id], t->data, bytes));
  e->stats.n_downloads++;
  e->host_valid[w->id] = true;
  return VKML_OK;
}

/* An upload step: the device buffer of its output receives host[in]. */
static vkml_status run_upload(rt_vk_exec *e, const ir_node *n) {
  const ir_value *v = n->inputs[0], *w = n->outputs[0];
  if (!e->host_valid[v->id] || !e->bufs[w->id])
    return vkml_status_make(VKML_CODE_INTERNAL, "upload of %%%s: %s", v->name,
                            e->bufs[w->id] ? "not on the host" : "no device buffer");
  uint64_t bytes = rt_tensor_bytes(&e->host[v->id]);
  if (bytes > e->buf_bytes[w->id])
    return vkml_status_make(VKML_CODE_INTERNAL, "%%%s: %llu bytes do not fit its buffer",
                            w->name, (unsigned long long)bytes);
  if (bytes)
    VKML_RETURN_IF_ERROR(rt_vk_buffer_upload(e->ctx, e->bufs[w->id], e->buf_off[w->id],
                                             e->host[v->id].data, bytes));
  if (w->type.bounded) {
    /* the kernels that read a bounded value find its size in the extent
     * word (ir/graph.h), which the host writes for what it made */
    const rt_tensor *t = &e->host[v->id];
    int axis = w->type.bounded_axis;
    if (t->rank != w->type.rank || t->dims[axis] > w->type.dims[axis])
      return vkml_status_make(VKML_CODE_INTERNAL, "upload of %%%s: %lld past its capacity %lld",
                              v->name, (long long)(t->rank == w->type.rank ? t->dims[axis] : -1),
                              (long long)w->type.dims[axis]);
    uint32_t extent = (uint32_t)t->dims[axis];
    VKML_RETURN_IF_ERROR(rt_vk_buffer_upload(
        e->ctx, e->bufs[w->id],
        e->buf_off[w->id] + ir_type_extent_offset(&w->type, w->layout), &extent, sizeof extent));
  }
  e->stats.n_uploads++;
  return VKML_OK;
}

/* Output types of a CPU step for this run: static, unless an input's actual
 * size differs from its type (a bounded tensor), then re-inferred. */
static vkml_status output_types(rt_vk_exec *e, const ir_node *n, ir_type *types) {
  bool dynamic = false;
  ir_type in[64];
  for (int i = 0; i < n->n_inputs; i++) {
    in[i] = rt_tensor_type(&e->host[n->inputs[i]->id]);
    ir_type stat = n->inputs[i]->type;
    stat.bounded = false;
    if (!ir_type_equal(&in[i], &stat)) dynamic = true;
  }
  if (dynamic) return ir_infer_node_types(n, in, types);
  for (int i = 0; i < n->n_outputs; i++) types[i] = n->outputs[i]->type;
  return VKML_OK;
}

static vkml_status run_cpu_step(rt_vk_exec *e, const ir_node *n) {
  ir_type types[64];
  const rt_tensor *in[64];
  rt_tensor *out[64];
  if (n->n_inputs > 64 || n->n_outputs > 64)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "more than 64 inputs or outputs");
  for (int i = 0; i < n->n_inputs; i++) {
    const ir_value *v = n->inputs[i];
    if (!e->host_valid[v->id])
      return vkml_status_make(VKML_CODE_INTERNAL,
                              "%%%s is not on the host (the plan lacks its download)", v->name);
    in[i] = &e->host[v->id];
  }
  VKML_RETURN_IF_ERROR(output_types(e, n, types));
  for (int i = 0; i < n->n_outputs; i++) {
    out[i] = &e->host[n->outputs[i]->id];
    rt_tensor_free(out[i]);
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&types[i], out[i]));
  }
  VKML_RETURN_IF_ERROR(rt_cpu_run_node_ctx(&e->cpu, n, in, n->n_inputs, out, n->n_outputs));
  for (int i = 0; i < n->n_outputs; i++) e->host_valid[n->outputs[i]->id] = true;
  return VKML_OK;
}

/* Submits prog, segment sg's program (`kind`: "" or "chained "), and waits;
 * then the validation messages and the device's error slots of its steps. */
vkml_status rt_vk_exec_submit_segment(rt_vk_exec *e, const segment *sg, rt_vk_program *prog,
                                  const char *kind) {
  const ir_node *first = e->nodes[e->plan->steps[sg->first].node];
  vkml_status s = rt_vk_program_run(prog, e->opts.wait);
  if (s) {
    char d[160];
    ir_node_describe(first, d, sizeof d);
    return vkml_status_annotate(s, "%sGPU steps %d-%d (from %s)", kind, sg->first, sg->last, d);
  }
  e->stats.n_segment_runs++;
  char what[80];
  snprintf(what, sizeof what, "%sGPU run of the segment starting at", kind);
  VKML_RETURN_IF_ERROR(rt_vk_exec_check_validation(e, first, what));
  return rt_vk_errors_check(e->ctx, e->errors, e->nodes, sg->first, sg->last);
}

static vkml_status run_segment(rt_vk_exec *e, const segment *sg, double *step_ns) {
  if (!sg->prog) {
    for (int k = sg->first; step_ns && k <= sg->last; k++) step_ns[k] = 0;
    return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(rt_vk_exec_submit_segment(e, sg, sg->prog, ""));
  int n = sg->last - sg->first + 1;
  if (step_ns && e->opts.timestamps) {
    double total;
    rt_vk_program_stats ps;
    rt_vk_program_stats_get(sg->prog, &ps);
    VKML_RETURN_IF_ERROR(rt_vk_program_timings(sg->prog, e->seg_ns, ps.n_dispatches, &total));
    for (int k = 0; k < n; k++) {
      int d = e->step_disp[sg->first + k];
      step_ns[sg->first + k] = d >= 0 ? e->seg_ns[d] + rt_vk_exec_copy_ns(e, sg->first + k, e->seg_ns + d) : 0;
    }
  } else if (step_ns) {
    for (int k = 0; k < n; k++) step_ns[sg->first + k] = 0;
  }
  return VKML_OK;
}

/* Each input's dtype and dims against the graph's (the expected one named). */
static vkml_status check_inputs(const rt_vk_exec *e, const rt_tensor *inputs) {
  const ir_graph *g = e->g;
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_value *v = g->inputs[i];
    ir_type got = rt_tensor_type(&inputs[i]);
    if (!ir_type_holds(&v->type, &got)) {
      char a[128], b[128];
      ir_type_format(&v->type, a, sizeof a);
      ir_type_format(&got, b, sizeof b);
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "input %%%s: expected %s, got %s",
                              v->name, a, b);
    }
  }
  return VKML_OK;
}

static vkml_status bind_inputs(rt_vk_exec *e, const rt_tensor *inputs) {
  const ir_graph *g = e->g;
  VKML_RETURN_IF_ERROR(check_inputs(e, inputs));
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_value *v = g->inputs[i];
    rt_tensor_free(&e->host[v->id]);
    ir_type t = rt_tensor_type(&inputs[i]);
    e->host[v->id] = rt_tensor_view(&t, inputs[i].data);
    e->host_valid[v->id] = true;
    uint64_t bytes = rt_tensor_bytes(&inputs[i]);
    if (!e->bufs[v->id]) continue;
    if (v->type.bounded) {
      /* its actual size, for the kernels that read it (ir/graph.h) */
      uint32_t extent = (uint32_t)t.dims[v->type.bounded_axis];
      VKML_RETURN_IF_ERROR(rt_vk_buffer_upload(
          e->ctx, e->bufs[v->id], e->buf_off[v->id] + ir_type_extent_offset(&v->type, v->layout),
          &extent, sizeof extent));
    }
    if (!bytes) continue;
    VKML_RETURN_IF_ERROR(rt_vk_buffer_upload(e->ctx, e->bufs[v->id], e->buf_off[v->id], inputs[i].data, bytes));
    e->stats.n_uploads++;
  }
  return VKML_OK;
}

static vkml_status run_steps(rt_vk_exec *e, const rt_tensor *inputs, double *step_ns) {
  const ir_plan *p = e->plan;
  const ir_graph *g = e->g;
  ir_foreach_value(g, v) e->host_valid[v->id] = ir_value_is_const(v);
  VKML_RETURN_IF_ERROR(rt_vk_errors_reset(e->ctx, e->errors));
  VKML_RETURN_IF_ERROR(bind_inputs(e, inputs));
  for (int i = 0; i < p->n_steps;) {
    const ir_plan_step *s = &p->steps[i];
    if (s->device == IR_DEVICE_GPU) {
      const segment *sg = &e->segs[e->step_seg[i]];
      VKML_RETURN_IF_ERROR(run_segment(e, sg, step_ns));
      i = sg->last + 1;
      continue;
    }
    const ir_node *n = e->nodes[s->node];
    double t0 = step_ns ? rt_vk_exec_now_ns() : 0;
    vkml_status st = s->transfer == IR_TRANSFER_DOWNLOAD ? run_download(e, n)
                     : s->transfer == IR_TRANSFER_UPLOAD ? run_upload(e, n)
                                                         : run_cpu_step(e, n);
    VKML_RETURN_IF_ERROR(rt_vk_exec_at_node(st, n));
    if (step_ns) step_ns[i] = rt_vk_exec_now_ns() - t0;
    i++;
  }
  return VKML_OK;
}

static vkml_status read_output(rt_vk_exec *e, const ir_value *v, rt_tensor *out) {
  if (e->host_valid[v->id]) {
    const rt_tensor *src = &e->host[v->id];
    VKML_RETURN_IF_ERROR(rt_tensor_alloc_dims(src->dtype, src->rank, src->dims, out));
    memcpy(out->data, src->data, rt_tensor_bytes(src));
    return VKML_OK;
  }
  if (!e->bufs[v->id])
    return vkml_status_make(VKML_CODE_INTERNAL, "output %%%s was never computed", v->name);
  ir_type t;
  VKML_RETURN_IF_ERROR(run_type(e, v, &t));
  VKML_RETURN_IF_ERROR(rt_tensor_alloc(&t, out));
  uint64_t n = rt_tensor_bytes(out);
  e->stats.n_downloads++;
  return n ? rt_vk_buffer_download(e->ctx, e->bufs[v->id], e->buf_off[v->id], out->data, n) : VKML_OK;
}

/* ---- the lean path --------------------------------------------------------------- */

/* Submits the io program (inputs already in staging) and waits; step_ns
 * from its timestamps. */
static vkml_status run_io(rt_vk_exec *e, double *step_ns) {
  const ir_graph *g = e->g;
  double t0 = rt_vk_exec_now_ns();
  VKML_RETURN_IF_ERROR(rt_vk_errors_reset(e->ctx, e->errors));
  for (int i = 0; i < g->n_inputs; i++)
    VKML_RETURN_IF_ERROR(rt_vk_buffer_flush(e->ctx, e->in_stage[i], 0,
                                            rt_vk_buffer_bytes(e->in_stage[i])));
  vkml_status s = rt_vk_program_run(e->io_prog, e->opts.wait);
  e->stats.submit_wait_ns += rt_vk_exec_now_ns() - t0;
  if (s) return vkml_status_annotate(s, "GPU run");
  e->stats.n_segment_runs++;
  e->stats.n_uploads += g->n_inputs;
  e->stats.n_downloads += g->n_outputs;
  VKML_RETURN_IF_ERROR(rt_vk_exec_check_validation(e, NULL, "GPU run"));
  VKML_RETURN_IF_ERROR(rt_vk_errors_check(e->ctx, e->errors, e->nodes, 0, e->plan->n_steps - 1));
  for (int i = 0; i < g->n_outputs; i++)
    VKML_RETURN_IF_ERROR(rt_vk_buffer_invalidate(e->ctx, e->out_stage[i], 0,
                                                 rt_vk_buffer_bytes(e->out_stage[i])));
  if (!step_ns) return VKML_OK;
  for (int k = 0; k < e->plan->n_steps; k++) step_ns[k] = 0;
  if (!e->opts.timestamps) return VKML_OK;
  rt_vk_program_stats ps;
  rt_vk_program_stats_get(e->io_prog, &ps);
  double total;
  VKML_RETURN_IF_ERROR(rt_vk_program_timings(e->io_prog, e->io_ns, ps.n_dispatches, &total));
  for (int k = 0; k < e->plan->n_steps; k++)
    if (e->step_disp[k] >= 0) {
      const double *t = e->io_ns + e->io_first + e->step_disp[k];
      step_ns[k] = *t + rt_vk_exec_copy_ns(e, k, t);
    }
  return VKML_OK;
}

static vkml_status lean_run(rt_vk_exec *e, const rt_tensor *inputs, rt_tensor *outputs,
                            double *step_ns) {
  const ir_graph *g = e->g;
  VKML_RETURN_IF_ERROR(check_inputs(e, inputs));
  double t0 = rt_vk_exec_now_ns();
  for (int i = 0; i < g->n_inputs; i++) {
    uint64_t bytes = rt_tensor_bytes(&inputs[i]);
    if (bytes) memcpy(rt_vk_buffer_map(e->in_stage[i]), inputs[i].data, bytes);
  }
  e->stats.host_copy_ns += rt_vk_exec_now_ns() - t0;
  VKML_RETURN_IF_ERROR(run_io(e, step_ns));
  t0 = rt_vk_exec_now_ns();
  for (int i = 0; i < g->n_outputs; i++) {
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&g->outputs[i]->type, &outputs[i]));
    uint64_t bytes = rt_tensor_bytes(&outputs[i]);
    if (bytes) memcpy(outputs[i].data, rt_vk_buffer_map(e->out_stage[i]), bytes);
  }
  e->stats.host_copy_ns += rt_vk_exec_now_ns() - t0;
  return VKML_OK;
}

void *rt_vk_exec_input_map(rt_vk_exec *e, int i) {
  if (!e->io_prog || i < 0 || i >= e->g->n_inputs) return NULL;
  return rt_vk_buffer_map(e->in_stage[i]);
}

const void *rt_vk_exec_output_map(const rt_vk_exec *e, int i) {
  if (!e->io_prog || i < 0 || i >= e->g->n_outputs) return NULL;
  return rt_vk_buffer_map(e->out_stage[i]);
}

vkml_status rt_vk_exec_run_mapped(rt_vk_exec *e, double *step_ns) {
  if (!e->io_prog)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "this plan has no mapped inputs and outputs (steps on the CPU)");
  VKML_RETURN_IF_ERROR(run_io(e, step_ns));
  e->stats.n_runs++;
  return VKML_OK;
}

vkml_status rt_vk_exec_run(rt_vk_exec *e, const rt_tensor *inputs, int n_in,
                           rt_tensor *outputs, int n_out, double *step_ns) {
  const ir_graph *g = e->g;
  for (int i = 0; i < n_out; i++) memset(&outputs[i], 0, sizeof outputs[i]);
  if (n_in != g->n_inputs || n_out != g->n_outputs)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "graph @%s takes %d inputs and %d outputs, given %d and %d",
                            g->name ? g->name : "", g->n_inputs, g->n_outputs, n_in, n_out);
  if (e->io_prog) {
    vkml_status s = lean_run(e, inputs, outputs, step_ns);
    if (s) {
      for (int i = 0; i < n_out; i++) rt_tensor_free(&outputs[i]);
      return s;
    }
    e->stats.n_runs++;
    return VKML_OK;
  }
  vkml_status s = run_steps(e, inputs, step_ns);
  for (int i = 0; i < g->n_outputs && !s; i++) s = read_output(e, g->outputs[i], &outputs[i]);
  /* the caller's input memory must not be reachable after the run */
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_value *v = g->inputs[i];
    if (!e->host[v->id].owns_data) memset(&e->host[v->id], 0, sizeof e->host[v->id]);
    e->host_valid[v->id] = false;
  }
  if (s) {
    for (int i = 0; i < n_out; i++) rt_tensor_free(&outputs[i]);
    return s;
  }
  e->stats.n_runs++;
  return VKML_OK;
}

vkml_status rt_vk_exec_replay(rt_vk_exec *e, double *step_ns) {
  const ir_plan *p = e->plan;
  if (e->stats.n_runs == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "replay needs a complete run first (the device buffers hold its data)");
  for (int i = 0; i < p->n_steps; i++)
    if (step_ns) step_ns[i] = 0;
  VKML_RETURN_IF_ERROR(rt_vk_errors_reset(e->ctx, e->errors));
  for (int k = 0; k < e->n_segs; k++) VKML_RETURN_IF_ERROR(run_segment(e, &e->segs[k], step_ns));
  e->stats.n_replays++;
  return VKML_OK;
}
