/* rt_vk_exec: a graph on the GPU per its plan, CPU steps on the reference
 * kernels, host copies only at the plan's transfer steps and the graph's
 * edges (see vk_exec.h). */
#include "vk_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "ir/file.h"
#include "ir/memplan.h"
#include "ir/text.h"
#include "runtime/cpu/cpu_kernels.h"
#include "vk_errors.h"
#include "vk_memory.h"
#include "vk_pipeline.h"
#include "vk_weights.h"
#include "ir/util.h"

typedef struct pipe_entry {
  const ir_plan_step *step; /* the first step that uses it */
  int first_step;           /* its index */
  uint64_t hash;
  rt_vk_pipeline *pipe;
  vkml_status err; /* of its creation (parallel phase) */
} pipe_entry;

typedef struct segment {
  int first, last; /* step indices, inclusive */
  rt_vk_program *prog; /* NULL when every step in it is an elided view */
  rt_vk_program *chain; /* its commands chain_repeat times (rt_vk_exec_replay_chained) */
  int chain_cmds;       /* commands of one repeat */
} segment;

struct rt_vk_exec {
  rt_vk_context *ctx;
  const ir_graph *g; /* the graph the plan runs */
  const ir_plan *plan;
  rt_vk_exec_opts opts;
  const ir_node **nodes;   /* by node id */
  const ir_value **values; /* by value id */
  rt_vk_buffer **bufs;     /* by value id; NULL: the value stays on the host;
                              the arena for values the memory plan places */
  rt_vk_buffer **owned;    /* by value id: the buffer made for it (freed with
                              the executor; bufs may share it) */
  uint64_t *buf_off;       /* by value id: where its bytes start in bufs[id] */
  uint64_t *buf_bytes;     /* by value id: bytes bound */
  rt_vk_buffer *arena;     /* the intermediates' shared buffer (plan->mem) */
  rt_tensor *host;         /* by value id: host copies (owned, or views) */
  bool *host_valid;        /* by value id, during a run */
  int *step_pipe;          /* by step: index into pipes, -1 on the CPU */
  int *step_seg;           /* by step: index into segs, -1 on the CPU */
  bool *step_edge_view;    /* by step: a view at the graph's edge sharing bytes
                              (alias_edge_views) */
  int *step_disp;          /* by step: dispatch index in its segment, -1: none
                              (CPU, or a view that shares its input's bytes) */
  pipe_entry *pipes;
  int n_pipes;
  segment *segs;
  int n_segs;
  double *seg_ns; /* scratch for program timings */
  int chain_repeat; /* of the segments' chained programs (0: none yet) */
  const rt_vk_buffer *chain_flush; /* and the buffer they zero before each repeat */
  double *chain_ns, *chain_t; /* scratch for their timings, per repeat */
  const rt_vk_weights *weights; /* the constants (shared, or own_weights) */
  rt_vk_weights *own_weights;
  /* the lean path (plans whose steps all run on the GPU): one program that
   * copies the inputs in from host-visible staging, runs every dispatch and
   * copies the outputs out; a run is memcpy, one submit, memcpy */
  rt_vk_program *io_prog;
  rt_vk_buffer **in_stage, **out_stage; /* by graph input / output index */
  bool *in_direct; /* by graph input: in_stage is the kernels' own buffer
                      (UPLOAD memory, no copy in; not owned here) */
  int io_first;                         /* io_prog command of the first dispatch */
  double *io_ns;                        /* scratch for its timings */
  rt_vk_errors *errors;  /* the checking steps' error slots; NULL: none */
  uint32_t seen_errors; /* validation errors already reported */
  rt_vk_exec_stats stats;
};

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* s with n's description in front, unless it starts with it already (the
 * CPU kernels name their node: one prefix per message). */
static vkml_status at_node(vkml_status s, const ir_node *n) {
  if (!s) return s;
  char d[160];
  ir_node_describe(n, d, sizeof d);
  size_t len = strlen(d);
  const char *m = vkml_status_message(s);
  if (!strncmp(m, d, len) && m[len] == ':') return s;
  return vkml_status_annotate(s, "%s", d);
}

/* A DEVICE status when the validation layer reported new errors. */
static vkml_status check_validation(rt_vk_exec *e, const ir_node *n, const char *what) {
  rt_vk_report r;
  rt_vk_context_report(e->ctx, &r);
  if (r.n_errors <= e->seen_errors) return VKML_OK;
  uint32_t new_errors = r.n_errors - e->seen_errors;
  e->seen_errors = r.n_errors;
  vkml_status s = vkml_status_make(VKML_CODE_DEVICE, "%s: %u validation error(s); first: %s",
                                   what, new_errors, r.first_message);
  return n ? at_node(s, n) : s;
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
    if (!first) first = at_node(e->pipes[i].err, e->nodes[e->plan->steps[e->pipes[i].first_step].node]);
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
static vkml_status record_dispatches(rt_vk_exec *e, int first, int last, rt_vk_program **prog,
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
        VKML_RETURN_IF_ERROR(at_node(rt_vk_program_copy(*prog, e->bufs[a->id], e->buf_off[a->id],
                                                        e->bufs[y->id], e->buf_off[y->id], bytes),
                                     n));
        n_disp++; /* the copy is a command of its own (copy_ns) */
      }
    }
    int from = IR_STEP_EXTENT_COPY_INPUT(s->flags);
    if (from >= 0) {
      /* a kernel over bounded rows (codegen/cg_rows.h) that does not copy
       * it itself: its outputs have its bounded input's actual size */
      const ir_value *x = n->inputs[from];
      uint64_t xo = e->buf_off[x->id] + ir_type_extent_offset(&x->type, x->layout);
      for (int k = 0; k < n->n_outputs; k++) {
        const ir_value *y = n->outputs[k];
        VKML_RETURN_IF_ERROR(at_node(
            rt_vk_program_copy(*prog, e->bufs[x->id], xo, e->bufs[y->id],
                               e->buf_off[y->id] + ir_type_extent_offset(&y->type, y->layout),
                               sizeof(uint32_t)),
            n));
        n_disp++;
      }
    }
    e->step_disp[i] = n_disp++;
    if (s->n_bindings > 64)
      return at_node(vkml_status_make(VKML_CODE_UNSUPPORTED, "more than 64 bindings"), n);
    const int32_t *ids = ir_plan_step_bindings(p, s);
    for (int k = 0; k < s->n_bindings; k++)
      b[k] = ids[k] == IR_PLAN_ERROR_BINDING
                 ? rt_vk_errors_binding(e->errors, i)
                 : (rt_vk_binding){e->bufs[ids[k]], e->buf_off[ids[k]], e->buf_bytes[ids[k]],
                                   k < n->n_inputs ? RT_VK_READ : RT_VK_WRITE};
    VKML_RETURN_IF_ERROR(at_node(
        rt_vk_program_dispatch(*prog, e->pipes[e->step_pipe[i]].pipe, b, s->n_bindings,
                               s->push_bytes ? p->push + s->push : NULL, s->push_bytes,
                               s->groups),
        n));
  }
  return VKML_OK;
}

static vkml_status record_segment(rt_vk_exec *e, segment *sg) {
  VKML_RETURN_IF_ERROR(record_dispatches(e, sg->first, sg->last, &sg->prog, true));
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
  VKML_RETURN_IF_ERROR(record_dispatches(e, 0, e->plan->n_steps - 1, &e->io_prog, false));
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
  e->segs = calloc(ns, sizeof *e->segs);
  e->seg_ns = calloc(2 * ns, sizeof *e->seg_ns); /* a step: a dispatch, maybe a copy */
  if (!e->nodes || !e->values || !e->bufs || !e->owned || !e->buf_off || !e->buf_bytes || !e->host ||
      !e->host_valid || !e->step_pipe || !e->step_seg || !e->step_disp ||
      !e->step_edge_view || !e->pipes ||
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
                                              &e->own_weights));
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
  VKML_RETURN_IF_ERROR(create_pipelines(e));
  VKML_RETURN_IF_ERROR(check_validation(e, NULL, "pipeline creation"));
  e->stats.n_pipelines = e->n_pipes;
  VKML_RETURN_IF_ERROR(rt_vk_errors_create(e->ctx, p, &e->errors));
  VKML_RETURN_IF_ERROR(make_segments(e));
  e->stats.n_segments = e->n_segs;
  if (!e->opts.no_lean && lean_possible(e)) VKML_RETURN_IF_ERROR(make_io_program(e));
  return check_validation(e, NULL, "executor creation");
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

/* ---- running ---------------------------------------------------------------------- */

/* A step's copy commands before its dispatch (IR_STEP_COPY_IN0, then one
 * per output for IR_STEP_EXTENT_FROM without IR_STEP_EXTENT_KERNEL), whose time counts as the step's:
 * the entries before the dispatch's (t). */
static double copy_ns(const rt_vk_exec *e, int step, const double *t) {
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
  VKML_RETURN_IF_ERROR(rt_cpu_run_node(n, in, n->n_inputs, out, n->n_outputs));
  for (int i = 0; i < n->n_outputs; i++) e->host_valid[n->outputs[i]->id] = true;
  return VKML_OK;
}

/* Submits prog, segment sg's program (`kind`: "" or "chained "), and waits;
 * then the validation messages and the device's error slots of its steps. */
static vkml_status submit_segment(rt_vk_exec *e, const segment *sg, rt_vk_program *prog,
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
  VKML_RETURN_IF_ERROR(check_validation(e, first, what));
  return rt_vk_errors_check(e->ctx, e->errors, e->nodes, sg->first, sg->last);
}

static vkml_status run_segment(rt_vk_exec *e, const segment *sg, double *step_ns) {
  if (!sg->prog) {
    for (int k = sg->first; step_ns && k <= sg->last; k++) step_ns[k] = 0;
    return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(submit_segment(e, sg, sg->prog, ""));
  int n = sg->last - sg->first + 1;
  if (step_ns && e->opts.timestamps) {
    double total;
    rt_vk_program_stats ps;
    rt_vk_program_stats_get(sg->prog, &ps);
    VKML_RETURN_IF_ERROR(rt_vk_program_timings(sg->prog, e->seg_ns, ps.n_dispatches, &total));
    for (int k = 0; k < n; k++) {
      int d = e->step_disp[sg->first + k];
      step_ns[sg->first + k] = d >= 0 ? e->seg_ns[d] + copy_ns(e, sg->first + k, e->seg_ns + d) : 0;
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
    double t0 = step_ns ? now_ns() : 0;
    vkml_status st = s->transfer == IR_TRANSFER_DOWNLOAD ? run_download(e, n)
                     : s->transfer == IR_TRANSFER_UPLOAD ? run_upload(e, n)
                                                         : run_cpu_step(e, n);
    VKML_RETURN_IF_ERROR(at_node(st, n));
    if (step_ns) step_ns[i] = now_ns() - t0;
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
  double t0 = now_ns();
  VKML_RETURN_IF_ERROR(rt_vk_errors_reset(e->ctx, e->errors));
  for (int i = 0; i < g->n_inputs; i++)
    VKML_RETURN_IF_ERROR(rt_vk_buffer_flush(e->ctx, e->in_stage[i], 0,
                                            rt_vk_buffer_bytes(e->in_stage[i])));
  vkml_status s = rt_vk_program_run(e->io_prog, e->opts.wait);
  e->stats.submit_wait_ns += now_ns() - t0;
  if (s) return vkml_status_annotate(s, "GPU run");
  e->stats.n_segment_runs++;
  e->stats.n_uploads += g->n_inputs;
  e->stats.n_downloads += g->n_outputs;
  VKML_RETURN_IF_ERROR(check_validation(e, NULL, "GPU run"));
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
      step_ns[k] = *t + copy_ns(e, k, t);
    }
  return VKML_OK;
}

static vkml_status lean_run(rt_vk_exec *e, const rt_tensor *inputs, rt_tensor *outputs,
                            double *step_ns) {
  const ir_graph *g = e->g;
  VKML_RETURN_IF_ERROR(check_inputs(e, inputs));
  double t0 = now_ns();
  for (int i = 0; i < g->n_inputs; i++) {
    uint64_t bytes = rt_tensor_bytes(&inputs[i]);
    if (bytes) memcpy(rt_vk_buffer_map(e->in_stage[i]), inputs[i].data, bytes);
  }
  e->stats.host_copy_ns += now_ns() - t0;
  VKML_RETURN_IF_ERROR(run_io(e, step_ns));
  t0 = now_ns();
  for (int i = 0; i < g->n_outputs; i++) {
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&g->outputs[i]->type, &outputs[i]));
    uint64_t bytes = rt_tensor_bytes(&outputs[i]);
    if (bytes) memcpy(outputs[i].data, rt_vk_buffer_map(e->out_stage[i]), bytes);
  }
  e->stats.host_copy_ns += now_ns() - t0;
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

/* Records segment sg's commands `repeat` times into sg->chain, each time
 * after a fill of e->chain_flush when there is one. */
static vkml_status record_chain(rt_vk_exec *e, segment *sg, int repeat) {
  rt_vk_program_destroy(e->ctx, sg->chain);
  sg->chain = NULL;
  sg->chain_cmds = 0;
  if (!sg->prog) return VKML_OK;
  for (int r = 0; r < repeat; r++) {
    if (e->chain_flush) {
      if (!sg->chain)
        VKML_RETURN_IF_ERROR(rt_vk_program_create(e->ctx, e->opts.timestamps, &sg->chain));
      VKML_RETURN_IF_ERROR(rt_vk_program_fill(sg->chain, e->chain_flush));
    }
    VKML_RETURN_IF_ERROR(record_dispatches(e, sg->first, sg->last, &sg->chain, false));
  }
  VKML_RETURN_IF_ERROR(rt_vk_program_finish(sg->chain));
  rt_vk_program_stats ps;
  rt_vk_program_stats_get(sg->chain, &ps);
  sg->chain_cmds = ps.n_dispatches / repeat;
  return VKML_OK;
}

static vkml_status prepare_chains(rt_vk_exec *e, int repeat, const rt_vk_buffer *flush) {
  if (e->chain_repeat == repeat && e->chain_flush == flush) return VKML_OK;
  e->chain_repeat = 0;
  e->chain_flush = flush;
  int most = 0;
  for (int k = 0; k < e->n_segs; k++) {
    VKML_RETURN_IF_ERROR(record_chain(e, &e->segs[k], repeat));
    if (e->segs[k].chain_cmds > most) most = e->segs[k].chain_cmds;
  }
  free(e->chain_ns);
  free(e->chain_t);
  e->chain_ns = calloc((size_t)most * (size_t)repeat + 1, sizeof *e->chain_ns);
  e->chain_t = calloc((size_t)repeat, sizeof *e->chain_t);
  if (!e->chain_ns || !e->chain_t) return ir_oom("chained replays");
  e->chain_repeat = repeat;
  return VKML_OK;
}

static int cmp_ns(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* One chained segment submitted; each of its steps' time: the median over
 * repeats 1.. of the step's commands' timestamp intervals. */
static vkml_status run_chain(rt_vk_exec *e, const segment *sg, int repeat, double *step_ns) {
  if (!sg->chain) return VKML_OK;
  VKML_RETURN_IF_ERROR(submit_segment(e, sg, sg->chain, "chained "));
  if (!step_ns) return VKML_OK;
  double total;
  VKML_RETURN_IF_ERROR(
      rt_vk_program_timings(sg->chain, e->chain_ns, sg->chain_cmds * repeat, &total));
  for (int k = sg->first; k <= sg->last; k++) {
    int d = e->step_disp[k];
    if (d < 0) continue;
    for (int r = 1; r < repeat; r++) {
      const double *t = e->chain_ns + (size_t)r * (size_t)sg->chain_cmds + d + !!e->chain_flush;
      e->chain_t[r - 1] = *t + copy_ns(e, k, t);
    }
    qsort(e->chain_t, (size_t)repeat - 1, sizeof *e->chain_t, cmp_ns);
    int m = repeat - 1;
    step_ns[k] = m % 2 ? e->chain_t[m / 2] : 0.5 * (e->chain_t[m / 2 - 1] + e->chain_t[m / 2]);
  }
  return VKML_OK;
}

vkml_status rt_vk_exec_replay_chained(rt_vk_exec *e, int repeat, const rt_vk_buffer *flush,
                                      double *step_ns) {
  if (repeat < 2)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "a chained replay needs 2 or more repeats");
  if (e->stats.n_runs == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "replay needs a complete run first (the device buffers hold its data)");
  if (step_ns && !e->opts.timestamps)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "chained timings need timestamps");
  for (int i = 0; step_ns && i < e->plan->n_steps; i++) step_ns[i] = 0;
  VKML_RETURN_IF_ERROR(prepare_chains(e, repeat, flush));
  VKML_RETURN_IF_ERROR(rt_vk_errors_reset(e->ctx, e->errors));
  for (int k = 0; k < e->n_segs; k++)
    VKML_RETURN_IF_ERROR(run_chain(e, &e->segs[k], repeat, step_ns));
  e->stats.n_replays++;
  return VKML_OK;
}

