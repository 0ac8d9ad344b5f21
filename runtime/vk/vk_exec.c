/* rt_vk_exec: a graph on the GPU per its plan, CPU steps on the reference
 * kernels, host copies only at the plan's transfer steps and the graph's
 * edges (see vk_exec.h). This file builds it: pipelines, buffers, the
 * recorded programs; vk_exec_run.c runs it, vk_exec_chain.c times it. */
#include "vk_exec_internal.h"

double rt_vk_exec_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

vkml_status rt_vk_exec_at_node(vkml_status s, const ir_node *n) {
  if (!s) return s;
  char d[160];
  ir_node_describe(n, d, sizeof d);
  size_t len = strlen(d);
  const char *m = vkml_status_message(s);
  if (!strncmp(m, d, len) && m[len] == ':') return s;
  return vkml_status_annotate(s, "%s", d);
}

vkml_status rt_vk_exec_check_validation(rt_vk_exec *e, const ir_node *n, const char *what) {
  rt_vk_report r;
  rt_vk_context_report(e->ctx, &r);
  if (r.n_errors <= e->seen_errors) return VKML_OK;
  uint32_t new_errors = r.n_errors - e->seen_errors;
  e->seen_errors = r.n_errors;
  vkml_status s = vkml_status_make(VKML_CODE_DEVICE, "%s: %u validation error(s); first: %s",
                                   what, new_errors, r.first_message);
  return n ? rt_vk_exec_at_node(s, n) : s;
}

/* ---- creation ------------------------------------------------------------------ */

static uint64_t step_pipe_hash(const ir_plan *p, const ir_plan_step *s) {
  uint32_t words[4] = {(uint32_t)s->module, (uint32_t)s->n_bindings, s->push_bytes,
                       (uint32_t)s->n_spec};
  uint64_t h = ir_fnv64(words, sizeof words, IR_FNV64_SEED);
  return ir_fnv64(p->specs + s->spec, sizeof *p->specs * (size_t)s->n_spec, h);
}

static bool same_pipeline(const ir_plan *p, const ir_plan_step *a, const ir_plan_step *b) {
  return a->module == b->module && a->n_bindings == b->n_bindings &&
         a->push_bytes == b->push_bytes && a->n_spec == b->n_spec &&
         !memcmp(p->specs + a->spec, p->specs + b->spec, sizeof *p->specs * (size_t)a->n_spec);
}

/* Assigns step its pipeline entry: an existing one with the same module,
 * specialization and layout, else a new entry (created later, in
 * parallel). */
static void assign_pipeline(rt_vk_exec *e, int step) {
  const ir_plan *p = e->plan;
  const ir_plan_step *s = &p->steps[step];
  uint64_t h = step_pipe_hash(p, s);
  for (int i = 0; i < e->n_pipes; i++)
    if (e->pipes[i].hash == h && same_pipeline(p, e->pipes[i].step, s)) {
      e->step_pipe[step] = i;
      return;
    }
  e->pipes[e->n_pipes] = (pipe_entry){.step = s, .hash = h, .first_step = step};
  e->step_pipe[step] = e->n_pipes++;
}

static vkml_status create_pipeline(rt_vk_exec *e, pipe_entry *pe) {
  const ir_plan *p = e->plan;
  const ir_plan_step *s = pe->step;
  const ir_plan_module *m = &p->modules[s->module];
  /* each module once (two threads may both check one: harmless) */
  if (!__atomic_load_n(&e->module_ok[s->module], __ATOMIC_ACQUIRE)) {
    VKML_RETURN_IF_ERROR(rt_vk_spirv_check(e->ctx, m->words,
                                           (size_t)m->bytes, m->name));
    __atomic_store_n(&e->module_ok[s->module], 1, __ATOMIC_RELEASE);
  }
  VKML_RETURN_IF_ERROR(
      rt_vk_spirv_check_bindings(m->words, (size_t)m->bytes, s->n_bindings, m->name));
  rt_vk_spec *spec = malloc(sizeof *spec * ((size_t)s->n_spec + 1));
  if (!spec) return ir_oom(NULL);
  for (int i = 0; i < s->n_spec; i++)
    spec[i] = (rt_vk_spec){p->specs[s->spec + i].id, p->specs[s->spec + i].value};
  rt_vk_pipeline_desc d = {
      .name = ir_plan_str(p, s->key),
      .spirv = m->words,
      .spirv_bytes = (size_t)m->bytes,
      .n_buffers = s->n_bindings,
      .push_bytes = s->push_bytes,
      .spec = spec,
      .n_spec = s->n_spec,
  };
  vkml_status st = rt_vk_pipeline_create(e->ctx, &d, &pe->pipe);
  free(spec);
  return st;
}

typedef struct pipe_work {
  rt_vk_exec *e;
  int next; /* the next entry to create (atomic) */
} pipe_work;

static void *pipe_worker(void *arg) {
  pipe_work *w = arg;
  for (;;) {
    int i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
    if (i >= w->e->n_pipes) return NULL;
    w->e->pipes[i].err = create_pipeline(w->e, &w->e->pipes[i]);
  }
}

/* Creates every pipeline entry, on several threads when there are several
 * (drivers compile them independently: the cold-start cost); the first
 * failure in entry order is reported, naming its first step's node. */
static vkml_status create_pipelines(rt_vk_exec *e) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int n_threads = e->opts.pipeline_threads > 0 ? e->opts.pipeline_threads
                  : cpus > 8                   ? 8
                  : cpus > 1                   ? (int)cpus
                                               : 1;
  if (n_threads > e->n_pipes) n_threads = e->n_pipes;
  pipe_work w = {e, 0};
  pthread_t th[64];
  int started = 0;
  for (int t = 1; t < n_threads && t < 64; t++) {
    if (pthread_create(&th[started], NULL, pipe_worker, &w)) break; /* fewer threads */
    started++;
  }
  pipe_worker(&w);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
  vkml_status first = VKML_OK;
  for (int i = 0; i < e->n_pipes; i++) {
    if (!e->pipes[i].err) continue;
    if (!first) first = rt_vk_exec_at_node(e->pipes[i].err, e->nodes[e->plan->steps[e->pipes[i].first_step].node]);
    else vkml_status_free(e->pipes[i].err);
    e->pipes[i].err = VKML_OK;
  }
  return first;
}

/* "%v (output of conv2d %v)", "%x (graph input)", "%w (constant)". */
static void describe_value(const ir_value *v, char *buf, size_t bytes) {
  char d[160];
  if (v->producer) {
    ir_node_describe(v->producer, d, sizeof d);
    snprintf(buf, bytes, "%%%s (output of %s)", v->name, d);
  } else {
    snprintf(buf, bytes, "%%%s (%s)", v->name, ir_value_is_const(v) ? "constant" : "graph input");
  }
}

/* A device buffer of `bytes` of `kind` within opts.max_device_bytes. */
static vkml_status kind_buffer(rt_vk_exec *e, rt_vk_mem_kind kind, uint64_t bytes,
                               rt_vk_buffer **out) {
  if (e->opts.max_device_bytes && e->stats.device_bytes + bytes > e->opts.max_device_bytes)
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                            "%llu device bytes more exceed the budget of %llu (%llu in use)",
                            (unsigned long long)bytes,
                            (unsigned long long)e->opts.max_device_bytes,
                            (unsigned long long)e->stats.device_bytes);
  VKML_RETURN_IF_ERROR(rt_vk_buffer_create(e->ctx, kind, bytes, out));
  e->stats.n_buffers++;
  e->stats.device_bytes += bytes;
  return VKML_OK;
}

static vkml_status device_buffer(rt_vk_exec *e, uint64_t bytes, rt_vk_buffer **out) {
  return kind_buffer(e, RT_VK_MEM_DEVICE, bytes, out);
}

/* Whether the plan will take the lean path (as lean_possible decides once
 * the buffers exist): every step on the GPU, no bounded input. */
static bool lean_expected(const rt_vk_exec *e) {
  if (e->opts.no_lean) return false;
  for (int i = 0; i < e->plan->n_steps; i++)
    if (e->plan->steps[i].device != IR_DEVICE_GPU) return false;
  for (int i = 0; i < e->g->n_inputs; i++)
    if (e->g->inputs[i]->type.bounded) return false;
  return true;
}

/* A graph input the kernels may read where the host writes it: a lean
 * plan, a dense layout, memory both device-local and host-visible. */
static bool direct_input(const rt_vk_exec *e, const ir_value *v) {
  if (e->opts.staged_inputs || !rt_vk_memory_has(e->ctx, RT_VK_MEM_UPLOAD) || v->producer ||
      ir_value_is_const(v) || !lean_expected(e))
    return false;
  bool is_input = false;
  for (int i = 0; i < e->g->n_inputs; i++) is_input |= e->g->inputs[i] == v;
  return is_input && ir_type_storage_bytes(&v->type, v->layout) == ir_type_bytes(&v->type);
}

static vkml_status make_buffer(rt_vk_exec *e, const ir_value *v) {
  if (ir_value_is_const(v)) {
    /* constants live in the weights, uploaded once */
    if (rt_vk_weights_find(e->weights, v->id, &e->bufs[v->id], &e->buf_off[v->id],
                           &e->buf_bytes[v->id]))
      return VKML_OK;
    return vkml_status_make(VKML_CODE_INTERNAL, "constant %%%s is not in the weights", v->name);
  }
  uint64_t bytes = ir_type_device_bytes(&v->type, v->layout);
  vkml_status st = VKML_OK;
  bool direct = false;
  if (direct_input(e, v)) {
    /* where that memory runs out (a 256 MiB BAR), the input goes through
     * staging instead */
    vkml_status su = kind_buffer(e, RT_VK_MEM_UPLOAD, bytes, &e->bufs[v->id]);
    direct = !su;
    vkml_status_free(su);
  }
  if (!direct) st = device_buffer(e, bytes, &e->bufs[v->id]);
  if (st) {
    char d[256];
    describe_value(v, d, sizeof d);
    return vkml_status_annotate(st, "%s", d);
  }
  e->buf_bytes[v->id] = bytes;
  e->owned[v->id] = e->bufs[v->id];
  return VKML_OK;
}

static vkml_status make_buffers(rt_vk_exec *e) {
  const ir_plan *p = e->plan;
  bool *need = calloc((size_t)e->g->n_values + 1, sizeof *need);
  if (!need) return ir_oom(NULL);
  ir_plan_mark_bound(p, need);
  for (int i = 0; i < p->n_steps; i++) {
    const ir_plan_step *s = &p->steps[i];
    const ir_node *n = e->nodes[s->node];
    if (s->transfer == IR_TRANSFER_DOWNLOAD) need[n->inputs[0]->id] = true;
    if (s->transfer == IR_TRANSFER_UPLOAD) need[n->outputs[0]->id] = true;
  }
  /* values of their own first (inputs, outputs, constants), then the
   * memory plan's intermediates: one arena, each at its offset */
  const ir_memplan *m = &p->mem;
  vkml_status st = VKML_OK;
  ir_foreach_value(e->g, v) {
    if (need[v->id] && !(m->offsets && m->offsets[v->id] >= 0) && (st = make_buffer(e, v)))
      break;
  }
  if (!st && m->offsets && m->arena_bytes) {
    st = device_buffer(e, m->arena_bytes, &e->arena);
    if (st) st = vkml_status_annotate(st, "the intermediates' arena");
    e->stats.arena_bytes = m->arena_bytes;
  }
  ir_foreach_value(e->g, v) {
    if (st || !need[v->id] || !m->offsets || m->offsets[v->id] < 0) continue;
    e->bufs[v->id] = e->arena;
    e->buf_off[v->id] = (uint64_t)m->offsets[v->id];
    /* its own bytes, rounded as make_buffer does, not the alignment padding
     * of its slot (which could pass maxStorageBufferRange) */
    uint64_t own = ir_type_device_bytes(&v->type, v->layout);
    e->buf_bytes[v->id] = own && own < m->bytes[v->id] ? own : m->bytes[v->id];
    e->stats.n_arena_values++;
  }
  free(need);
  return st;
}

/* A GPU step that need not run: a view whose output shares its input's
 * bytes, in the arena (the memory plan made it an alias) or at the graph's
 * edge (alias_edge_views). */
static bool elided_view(const rt_vk_exec *e, const ir_plan_step *s) {
  const ir_memplan *m = &e->plan->mem;
  const ir_node *n = e->nodes[s->node];
  if (e->step_edge_view[s - e->plan->steps]) return true;
  return m->alias && ir_node_is_view(n) && m->alias[n->outputs[0]->id] >= 0;
}

/* Binds v (and every value the memory plan makes a view of it) to buffer
 * buf at off. */
static void rebind(rt_vk_exec *e, const ir_value *v, rt_vk_buffer *buf, uint64_t off,
                   uint64_t bytes) {
  const ir_memplan *m = &e->plan->mem;
  ir_foreach_value(e->g, w) {
    if (w != v && !(m->alias && m->alias[w->id] == v->id)) continue;
    e->bufs[w->id] = buf;
    e->buf_off[w->id] = off;
    e->buf_bytes[w->id] = bytes < e->buf_bytes[w->id] || w == v ? bytes : e->buf_bytes[w->id];
  }
}

/* Views at the graph's edges, which the memory plan (the arena only) leaves
 * as copies: a view of a value with a buffer of its own (a graph input, a
 * constant) is read where that value is; a view that is the only reader of
 * an intermediate and gives a graph output its bytes lets the intermediate's
 * GPU producer write straight into the output's buffer. Either way the view
 * records no dispatch (a 64 MB reshape of an input was a 64 MB copy). */
static vkml_status alias_edge_views(rt_vk_exec *e) {
  const ir_plan *p = e->plan;
  const ir_memplan *m = &p->mem;
  if (!m->offsets || !e->arena) return VKML_OK;
  int *uses;
  VKML_RETURN_IF_ERROR(ir_graph_count_uses(e->g, &uses));
  bool *gpu_made = calloc((size_t)e->g->n_values + 1, sizeof *gpu_made);
  if (!gpu_made) {
    free(uses);
    return ir_oom(NULL);
  }
  for (int i = 0; i < p->n_steps; i++) {
    const ir_node *n = e->nodes[p->steps[i].node];
    if (p->steps[i].device == IR_DEVICE_GPU && !ir_node_is_view(n))
      for (int k = 0; k < n->n_outputs; k++) gpu_made[n->outputs[k]->id] = true;
  }
  for (int i = 0; i < p->n_steps; i++) {
    const ir_plan_step *s = &p->steps[i];
    const ir_node *n = e->nodes[s->node];
    if (s->device != IR_DEVICE_GPU || !ir_node_is_view(n) || elided_view(e, s)) continue;
    const ir_value *in = n->inputs[0], *out = n->outputs[0];
    bool in_own = e->bufs[in->id] && e->bufs[in->id] != e->arena;
    bool out_own = e->bufs[out->id] && e->bufs[out->id] != e->arena;
    bool in_root = e->bufs[in->id] == e->arena && m->alias[in->id] < 0;
    bool aliased = false; /* some arena view shares in's bytes */
    ir_foreach_value(e->g, w) aliased |= m->alias[w->id] == in->id;
    if (in_own && e->bufs[out->id] == e->arena) {
      rebind(e, out, e->bufs[in->id], e->buf_off[in->id], e->buf_bytes[in->id]);
      e->step_edge_view[i] = true;
    } else if (out_own && in_root && !aliased && uses[in->id] == 1 && gpu_made[in->id]) {
      rebind(e, in, e->bufs[out->id], e->buf_off[out->id], e->buf_bytes[out->id]);
      e->step_edge_view[i] = true;
    }
  }
  free(uses);
  free(gpu_made);
  return VKML_OK;
}

/* Appends the dispatches of steps first..last to *prog (created on the
 * first one); fills step_disp (command index relative to the first
 * dispatch) and, with count, the stats. */
vkml_status rt_vk_exec_record_dispatches(rt_vk_exec *e, int first, int last, rt_vk_program **prog,
                                     bool count) {
  const ir_plan *p = e->plan;
  rt_vk_binding b[64];
  int n_disp = 0;
  for (int i = first; i <= last; i++) {
    const ir_plan_step *s = &p->steps[i];
    const ir_node *n = e->nodes[s->node];
    e->step_disp[i] = -1;
    if (elided_view(e, s)) {
      if (count) e->stats.n_views_elided++;
      continue;
    }
    if (!*prog) VKML_RETURN_IF_ERROR(rt_vk_program_create(e->ctx, e->opts.timestamps, prog));
    if (s->flags & IR_STEP_COPY_IN0) {
      /* output 0 starts as input 0 (a scatter writes its updates in place) */
      const ir_value *a = n->inputs[0], *y = n->outputs[0];
      uint64_t bytes = (uint64_t)ir_type_bytes(&a->type);
      if (bytes) {
        VKML_RETURN_IF_ERROR(rt_vk_exec_at_node(rt_vk_program_copy(*prog, e->bufs[a->id], e->buf_off[a->id],
                                                        e->bufs[y->id], e->buf_off[y->id], bytes),
                                     n));
        n_disp++; /* the copy is a command of its own (copy_ns) */
      }
    }
    int from = IR_STEP_EXTENT_COPY_INPUT(s->flags);
    if (from >= 0) {
      /* a kernel over bounded rows (codegen/core/extent.h) that does not copy
       * it itself: its outputs have its bounded input's actual size */
      const ir_value *x = n->inputs[from];
      uint64_t xo = e->buf_off[x->id] + ir_type_extent_offset(&x->type, x->layout);
      for (int k = 0; k < n->n_outputs; k++) {
        const ir_value *y = n->outputs[k];
        VKML_RETURN_IF_ERROR(rt_vk_exec_at_node(
            rt_vk_program_copy(*prog, e->bufs[x->id], xo, e->bufs[y->id],
                               e->buf_off[y->id] + ir_type_extent_offset(&y->type, y->layout),
                               sizeof(uint32_t)),
            n));
        n_disp++;
      }
    }
    e->step_disp[i] = n_disp++;
    if (s->n_bindings > 64)
      return rt_vk_exec_at_node(vkml_status_make(VKML_CODE_UNSUPPORTED, "more than 64 bindings"), n);
    const int32_t *ids = ir_plan_step_bindings(p, s);
    for (int k = 0; k < s->n_bindings; k++)
      b[k] = ids[k] == IR_PLAN_ERROR_BINDING
                 ? rt_vk_errors_binding(e->errors, i)
                 : (rt_vk_binding){e->bufs[ids[k]], e->buf_off[ids[k]], e->buf_bytes[ids[k]],
                                   k < n->n_inputs ? RT_VK_READ : RT_VK_WRITE};
    VKML_RETURN_IF_ERROR(rt_vk_exec_at_node(
        rt_vk_program_dispatch(*prog, e->pipes[e->step_pipe[i]].pipe, b, s->n_bindings,
                               s->push_bytes ? p->push + s->push : NULL, s->push_bytes,
                               s->groups),
        n));
  }
  return VKML_OK;
}

static vkml_status record_segment(rt_vk_exec *e, segment *sg) {
  VKML_RETURN_IF_ERROR(rt_vk_exec_record_dispatches(e, sg->first, sg->last, &sg->prog, true));
  if (!sg->prog) return VKML_OK;
  VKML_RETURN_IF_ERROR(rt_vk_program_finish(sg->prog));
  rt_vk_program_stats ps;
  rt_vk_program_stats_get(sg->prog, &ps);
  e->stats.n_barriers += ps.n_barriers;
  return VKML_OK;
}

/* A host-visible buffer for the lean path's staging, within the budget. */
static vkml_status staging_buffer(rt_vk_exec *e, const ir_value *v, rt_vk_buffer **out) {
  uint64_t bytes = (uint64_t)ir_type_bytes(&v->type);
  if (!bytes) bytes = 16; /* an empty tensor: a valid (unused) mapping */
  vkml_status st = rt_vk_buffer_create(e->ctx, RT_VK_MEM_HOST, bytes, out);
  if (st) return vkml_status_annotate(st, "staging for %%%s", v->name);
  e->stats.staging_bytes += bytes;
  return VKML_OK;
}

/* Whether every step runs on the GPU and every graph output has device
 * bytes: then one program carries a whole run. */
static bool lean_possible(const rt_vk_exec *e) {
  const ir_graph *g = e->g;
  if (e->n_segs != 1 || e->stats.n_cpu_steps || e->stats.n_transfer_steps) return false;
  for (int i = 0; i < g->n_outputs; i++) {
    const ir_value *v = g->outputs[i];
    if (!e->bufs[v->id] || v->type.bounded ||
        (uint64_t)ir_type_bytes(&v->type) > e->buf_bytes[v->id])
      return false;
  }
  for (int i = 0; i < g->n_inputs; i++)
    if (g->inputs[i]->type.bounded) return false;
  return true;
}

static vkml_status make_io_program(rt_vk_exec *e) {
  const ir_graph *g = e->g;
  e->in_stage = calloc((size_t)g->n_inputs + 1, sizeof *e->in_stage);
  e->in_direct = calloc((size_t)g->n_inputs + 1, sizeof *e->in_direct);
  e->out_stage = calloc((size_t)g->n_outputs + 1, sizeof *e->out_stage);
  if (!e->in_stage || !e->in_direct || !e->out_stage) return ir_oom(NULL);
  VKML_RETURN_IF_ERROR(rt_vk_program_create(e->ctx, e->opts.timestamps, &e->io_prog));
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_value *v = g->inputs[i];
    uint64_t bytes = (uint64_t)ir_type_bytes(&v->type);
    rt_vk_buffer_info bi;
    if (e->bufs[v->id]) rt_vk_buffer_info_get(e->bufs[v->id], &bi);
    if (e->bufs[v->id] && bi.kind == RT_VK_MEM_UPLOAD && !e->buf_off[v->id]) {
      /* the host writes where the kernels read: nothing to copy */
      e->in_stage[i] = e->bufs[v->id];
      e->in_direct[i] = true;
      e->stats.n_direct_inputs++;
      continue;
    }
    VKML_RETURN_IF_ERROR(staging_buffer(e, v, &e->in_stage[i]));
    if (!e->bufs[v->id] || !bytes) continue; /* no GPU step reads it */
    VKML_RETURN_IF_ERROR(rt_vk_program_copy(e->io_prog, e->in_stage[i], 0, e->bufs[v->id],
                                            e->buf_off[v->id], bytes));
    e->io_first++;
  }
  VKML_RETURN_IF_ERROR(rt_vk_exec_record_dispatches(e, 0, e->plan->n_steps - 1, &e->io_prog, false));
  for (int i = 0; i < g->n_outputs; i++) {
    const ir_value *v = g->outputs[i];
    uint64_t bytes = (uint64_t)ir_type_bytes(&v->type);
    VKML_RETURN_IF_ERROR(staging_buffer(e, v, &e->out_stage[i]));
    if (bytes)
      VKML_RETURN_IF_ERROR(rt_vk_program_copy(e->io_prog, e->bufs[v->id], e->buf_off[v->id],
                                              e->out_stage[i], 0, bytes));
  }
  VKML_RETURN_IF_ERROR(rt_vk_program_finish(e->io_prog));
  rt_vk_program_stats ps;
  rt_vk_program_stats_get(e->io_prog, &ps);
  e->io_ns = calloc((size_t)ps.n_dispatches + 1, sizeof *e->io_ns);
  if (!e->io_ns) return ir_oom(NULL);
  e->stats.lean = true;
  return VKML_OK;
}

static vkml_status make_segments(rt_vk_exec *e) {
  const ir_plan *p = e->plan;
  for (int i = 0; i < p->n_steps; i++) {
    e->step_seg[i] = -1;
    e->step_disp[i] = -1;
    if (p->steps[i].device != IR_DEVICE_GPU) continue;
    if (i == 0 || p->steps[i - 1].device != IR_DEVICE_GPU) {
      e->segs[e->n_segs].first = i;
      e->n_segs++;
    }
    e->segs[e->n_segs - 1].last = i;
    e->step_seg[i] = e->n_segs - 1;
  }
  for (int k = 0; k < e->n_segs; k++) VKML_RETURN_IF_ERROR(record_segment(e, &e->segs[k]));
  return VKML_OK;
}

/* The host tensors a run keeps (CPU steps' outputs and downloads, held
 * until the next run) against the memory available, before anything is
 * allocated. */
static vkml_status check_host_memory(const rt_vk_exec *e) {
  unsigned long long avail = ir_memory_available();
  double need = 0;
  for (int i = 0; i < e->plan->n_steps; i++) {
    const ir_plan_step *s = &e->plan->steps[i];
    if (s->device == IR_DEVICE_GPU || s->transfer == IR_TRANSFER_UPLOAD) continue;
    const ir_node *n = e->nodes[s->node];
    for (int k = 0; k < n->n_outputs; k++) need += (double)ir_type_bytes(&n->outputs[k]->type);
  }
  if (!avail || need <= (double)avail) return VKML_OK;
  return vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                          "the plan's CPU steps and downloads hold %.0f bytes of host memory, "
                          "more than the %llu bytes available",
                          need, avail);
}

static vkml_status exec_init(rt_vk_exec *e) {
  const ir_plan *p = e->plan;
  const ir_graph *g = e->g;
  size_t nv = (size_t)g->n_values + 1, nn = (size_t)g->n_nodes + 1, ns = (size_t)p->n_steps + 1;
  e->nodes = calloc(nn, sizeof *e->nodes);
  e->values = calloc(nv, sizeof *e->values);
  e->bufs = calloc(nv, sizeof *e->bufs);
  e->owned = calloc(nv, sizeof *e->owned);
  e->buf_off = calloc(nv, sizeof *e->buf_off);
  e->buf_bytes = calloc(nv, sizeof *e->buf_bytes);
  e->host = calloc(nv, sizeof *e->host);
  e->host_valid = calloc(nv, sizeof *e->host_valid);
  e->step_pipe = calloc(ns, sizeof *e->step_pipe);
  e->step_seg = calloc(ns, sizeof *e->step_seg);
  e->step_disp = calloc(ns, sizeof *e->step_disp);
  e->step_edge_view = calloc(ns, sizeof *e->step_edge_view);
  e->pipes = calloc(ns, sizeof *e->pipes);
  e->module_ok = calloc((size_t)e->plan->n_modules + 1, sizeof *e->module_ok);
  e->segs = calloc(ns, sizeof *e->segs);
  e->seg_ns = calloc(2 * ns, sizeof *e->seg_ns); /* a step: a dispatch, maybe a copy */
  if (!e->nodes || !e->values || !e->bufs || !e->owned || !e->buf_off || !e->buf_bytes || !e->host ||
      !e->host_valid || !e->step_pipe || !e->step_seg || !e->step_disp ||
      !e->step_edge_view || !e->pipes || !e->module_ok ||
      !e->segs || !e->seg_ns)
    return ir_oom(NULL);
  ir_foreach_node(g, n) e->nodes[n->id] = n;
  ir_foreach_value(g, v) {
    e->values[v->id] = v;
    if (ir_value_is_const(v)) {
      const void *data = ir_value_const_data(g, v);
      if (!data)
        return vkml_status_make(VKML_CODE_INVALID_GRAPH,
                                "constant %%%s: weights blob missing or too small", v->name);
      e->host[v->id] = rt_tensor_view(&v->type, data);
    }
  }
  VKML_RETURN_IF_ERROR(check_host_memory(e));
  if (!e->weights) {
    VKML_RETURN_IF_ERROR(rt_vk_weights_create(e->ctx, p, e->opts.max_device_bytes,
                                              false, &e->own_weights));
    e->weights = e->own_weights;
    e->stats.device_bytes += rt_vk_weights_bytes(e->weights);
  }
  e->stats.weight_bytes = rt_vk_weights_bytes(e->weights);
  e->stats.weights_shared = !e->own_weights;
  VKML_RETURN_IF_ERROR(make_buffers(e));
  VKML_RETURN_IF_ERROR(alias_edge_views(e));
  for (int i = 0; i < p->n_steps; i++) {
    e->step_pipe[i] = -1;
    if (p->steps[i].device != IR_DEVICE_GPU) {
      if (p->steps[i].transfer) e->stats.n_transfer_steps++;
      else e->stats.n_cpu_steps++;
      continue;
    }
    e->stats.n_gpu_steps++;
    if (elided_view(e, &p->steps[i])) continue; /* no dispatch, no pipeline */
    assign_pipeline(e, i);
  }
  /* CPU steps run their kernels on a pool of the host's cores (a fallback
   * conv over a detector's RoIs is a GEMM worth threads); without one (no
   * threads to be had) on this thread */
  if (e->stats.n_cpu_steps && rt_threads_default() > 1) {
    vkml_status ps = rt_threads_create(0, &e->cpu_pool);
    vkml_status_free(ps);
    e->cpu.pool = e->cpu_pool;
  }
  if (e->stats.n_cpu_steps) e->stats.cpu_threads = rt_threads_count(e->cpu_pool);
  VKML_RETURN_IF_ERROR(create_pipelines(e));
  VKML_RETURN_IF_ERROR(rt_vk_exec_check_validation(e, NULL, "pipeline creation"));
  e->stats.n_pipelines = e->n_pipes;
  VKML_RETURN_IF_ERROR(rt_vk_errors_create(e->ctx, p, &e->errors));
  VKML_RETURN_IF_ERROR(make_segments(e));
  e->stats.n_segments = e->n_segs;
  if (!e->opts.no_lean && lean_possible(e)) VKML_RETURN_IF_ERROR(make_io_program(e));
  return rt_vk_exec_check_validation(e, NULL, "executor creation");
}

vkml_status rt_vk_exec_create(rt_vk_context *ctx, const ir_plan *plan,
                              const rt_vk_exec_opts *opts, rt_vk_exec **out) {
  *out = NULL;
  const ir_graph *pg = plan->graph;
  if (!pg) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "the plan has no graph");
  VKML_RETURN_IF_ERROR(ir_plan_check(plan, pg));
  /* a plan (or artifact) for another device: refused naming the feature */
  ir_plan_needs needs;
  VKML_RETURN_IF_ERROR(ir_plan_needs_get(plan, &needs));
  VKML_RETURN_IF_ERROR(ir_target_check_needs(rt_vk_context_target(ctx), &needs));
  rt_vk_exec *e = calloc(1, sizeof *e);
  if (!e) return ir_oom(NULL);
  e->ctx = ctx;
  e->g = pg;
  e->plan = plan;
  if (opts) e->opts = *opts;
  e->weights = e->opts.weights;
  if (e->weights && rt_vk_weights_plan(e->weights) != plan) {
    free(e);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "the shared weights were made for another plan");
  }
  rt_vk_report r;
  rt_vk_context_report(ctx, &r);
  e->seen_errors = r.n_errors;
  vkml_status s = exec_init(e);
  if (s) {
    rt_vk_exec_destroy(e);
    return s;
  }
  *out = e;
  return VKML_OK;
}

void rt_vk_exec_destroy(rt_vk_exec *e) {
  if (!e) return;
  rt_vk_program_destroy(e->ctx, e->io_prog);
  for (int i = 0; e->in_stage && i < e->g->n_inputs; i++)
    if (!e->in_direct || !e->in_direct[i]) rt_vk_buffer_destroy(e->ctx, e->in_stage[i]);
  for (int i = 0; e->out_stage && i < e->g->n_outputs; i++)
    rt_vk_buffer_destroy(e->ctx, e->out_stage[i]);
  free(e->in_stage);
  free(e->in_direct);
  free(e->out_stage);
  free(e->io_ns);
  for (int i = 0; e->segs && i < e->n_segs; i++) {
    rt_vk_program_destroy(e->ctx, e->segs[i].prog);
    rt_vk_program_destroy(e->ctx, e->segs[i].chain);
  }
  free(e->chain_ns);
  free(e->chain_t);
  for (int i = 0; e->pipes && i < e->n_pipes; i++) rt_vk_pipeline_destroy(e->ctx, e->pipes[i].pipe);
  for (int i = 0; i < e->g->n_values; i++) {
    if (e->owned) rt_vk_buffer_destroy(e->ctx, e->owned[i]);
    if (e->host) rt_tensor_free(&e->host[i]);
  }
  rt_threads_destroy(e->cpu_pool);
  free(e->nodes);
  free(e->values);
  free(e->bufs);
  free(e->owned);
  rt_vk_buffer_destroy(e->ctx, e->arena);
  free(e->buf_off);
  free(e->buf_bytes);
  free(e->host);
  free(e->host_valid);
  free(e->step_pipe);
  free(e->step_seg);
  free(e->step_disp);
  free(e->step_edge_view);
  free(e->pipes);
  free(e->module_ok);
  free(e->segs);
  free(e->seg_ns);
  rt_vk_weights_destroy(e->ctx, e->own_weights);
  rt_vk_errors_destroy(e->ctx, e->errors);
  free(e);
}

void rt_vk_exec_stats_get(const rt_vk_exec *e, rt_vk_exec_stats *out) { *out = e->stats; }

bool rt_vk_exec_step_dispatches(const rt_vk_exec *e, int step) {
  return step >= 0 && step < e->plan->n_steps && e->step_disp[step] >= 0;
}

const char *rt_vk_exec_step_stats(const rt_vk_exec *e, int step) {
  if (step < 0 || step >= e->plan->n_steps || e->step_pipe[step] < 0) return "";
  const rt_vk_pipeline *p = e->pipes[e->step_pipe[step]].pipe;
  return p ? rt_vk_pipeline_stats(p) : "";
}
