/* The public C API (include/vkml.h) over the artifact loader, the Vulkan
 * executor and the CPU reference executor: models, devices, instances,
 * runs (the reports and tensor files are vkml_api_report.c's; the objects
 * vkml_api_internal.h's).
 *
 * A model holds the decoded plan and, per device option used, one "device":
 * a Vulkan context and the weights uploaded once, shared by the instances
 * created on it (refcounted; the last instance frees them). The model's lock
 * guards its device list and everything that touches a context's allocator
 * or transfer command buffer (instance creation and destruction, runs that
 * are not lean); a lean run touches only its own executor and the queue,
 * whose submissions the context serializes. */
#include "vkml.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/artifact.h"
#include "ir/text.h"
#include "ir/util.h"
#include "runtime/cpu/executor.h"
#include "runtime/tensor.h"
#include "runtime/vk/vk_exec.h"
#include "runtime/vk/vk_pipeline.h"
#include "runtime/vkml_api_internal.h"

_Static_assert(VKML_F32 == (int)IR_F32 && VKML_F16 == (int)IR_F16 && VKML_I32 == (int)IR_I32 &&
                   VKML_I64 == (int)IR_I64 && VKML_U8 == (int)IR_U8 && VKML_I8 == (int)IR_I8 &&
                   VKML_BOOL == (int)IR_BOOL,
               "vkml_dtype follows ir_dtype");
_Static_assert(VKML_MAX_RANK == IR_MAX_RANK, "one maximum rank");

vkml_status rt_api_bad_arg(const char *fn, const char *what) {
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %s", fn, what);
}
#define bad_arg rt_api_bad_arg

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- models ---------------------------------------------------------------------- */

/* The model of plan, decoded from artifact (bytes). On error the plan is
 * destroyed. */
static vkml_status model_make(ir_plan *plan, const void *artifact, size_t bytes,
                              vkml_model **out) {
  vkml_model *m = calloc(1, sizeof *m);
  if (!m) {
    ir_plan_destroy(plan);
    return ir_oom(NULL);
  }
  m->plan = plan;
  m->artifact = artifact;
  m->artifact_bytes = bytes;
  pthread_mutex_init(&m->lock, NULL);
  pthread_mutex_init(&m->check_lock, NULL);
  vkml_status s = rt_api_model_index(m);
  if (s) {
    vkml_model_free(m);
    return s;
  }
  *out = m;
  return VKML_OK;
}

vkml_status rt_api_model_from_plan(ir_plan *plan, vkml_model **out) {
  *out = NULL;
  return model_make(plan, NULL, 0, out);
}

vkml_status rt_api_model_from_graph(ir_graph *g, vkml_model **out) {
  *out = NULL;
  ir_plan *plan = NULL;
  vkml_status s = ir_plan_create(&plan);
  if (s) {
    ir_graph_destroy(g);
    return s;
  }
  plan->graph = g;
  plan->graph_nodes = g->n_nodes;
  plan->graph_values = g->n_values;
  VKML_RETURN_IF_ERROR(model_make(plan, NULL, 0, out));
  (*out)->cpu_only = true;
  return VKML_OK;
}

vkml_status vkml_model_load_ir(const char *path, vkml_model **out) {
  if (!out) return bad_arg("vkml_model_load_ir", "out is NULL");
  *out = NULL;
  if (!path) return bad_arg("vkml_model_load_ir", "no path");
  ir_graph *g = NULL;
  VKML_RETURN_IF_ERROR(ir_parse_file(path, &g));
  return rt_api_model_from_graph(g, out);
}

static void *check_weights(void *arg) {
  vkml_model *m = arg;
  m->check_status = ir_artifact_deferred_check(&m->check, m->check_name);
  return NULL;
}

/* The weights' checksum runs on a thread while the caller creates a device
 * (over 100 ms on a discrete GPU's driver); whatever reads the weights
 * waits for it (rt_api_weights_verified). */
vkml_status vkml_model_load(const char *path, vkml_model **out) {
  if (!out) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_model_load: out is NULL");
  *out = NULL;
  if (!path) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_model_load: no path");
  ir_plan *plan = NULL;
  ir_artifact_deferred check;
  VKML_RETURN_IF_ERROR(ir_artifact_load_file_deferred(path, &plan, &check));
  VKML_RETURN_IF_ERROR(model_make(plan, plan->backing, (size_t)plan->backing_bytes, out));
  vkml_model *m = *out;
  m->check = check;
  if (!(m->check_name = strdup(path))) {
    vkml_model_free(m);
    *out = NULL;
    return ir_oom(NULL);
  }
  m->check_running = !pthread_create(&m->check_thread, NULL, check_weights, m);
  if (!m->check_running) check_weights(m); /* no thread: now */
  return VKML_OK;
}

vkml_status rt_api_weights_verified(const vkml_model *cm) {
  vkml_model *m = (vkml_model *)cm; /* the check's own fields, under their lock */
  pthread_mutex_lock(&m->check_lock);
  if (m->check_running) {
    pthread_join(m->check_thread, NULL);
    m->check_running = false;
  }
  vkml_status s = m->check_status ? vkml_status_make(vkml_status_code(m->check_status), "%s",
                                                     vkml_status_message(m->check_status))
                                  : VKML_OK;
  pthread_mutex_unlock(&m->check_lock);
  return s;
}

static void free_copy(void *p, uint64_t n) {
  (void)n;
  free(p);
}

/* Decodes data (bytes long) in place when it is 64-byte aligned, else from
 * an aligned copy the plan keeps: the sections are 64-byte aligned in the
 * file, and their words are read in place. *at: where the artifact is. */
static vkml_status decode_aligned(const void *data, size_t bytes, ir_plan **out,
                                  const void **at) {
  *at = data;
  if ((uintptr_t)data % 64 == 0) return ir_artifact_decode(data, bytes, "<memory>", out);
  void *copy = NULL;
  if (posix_memalign(&copy, 64, bytes ? bytes : 1) != 0) return ir_oom(NULL);
  if (bytes) memcpy(copy, data, bytes);
  vkml_status s = ir_artifact_decode(copy, bytes, "<memory>", out);
  if (s) {
    free(copy);
    return s;
  }
  (*out)->backing = copy;
  (*out)->backing_bytes = bytes;
  (*out)->backing_release = free_copy;
  *at = copy;
  return VKML_OK;
}

vkml_status vkml_model_load_memory(const void *data, size_t bytes, vkml_model **out) {
  if (!out)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_model_load_memory: out is NULL");
  *out = NULL;
  if (!data && bytes)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_model_load_memory: no data");
  ir_plan *plan = NULL;
  const void *at;
  VKML_RETURN_IF_ERROR(decode_aligned(data, bytes, &plan, &at));
  return model_make(plan, at, bytes, out);
}

vkml_status vkml_model_load_owned(void *data, size_t bytes,
                                  void (*release)(void *data, size_t bytes), vkml_model **out) {
  vkml_status s = VKML_OK;
  if (!out) s = bad_arg("vkml_model_load_owned", "out is NULL");
  else *out = NULL;
  if (!s && !data && bytes) s = bad_arg("vkml_model_load_owned", "no data");
  ir_plan *plan = NULL;
  const void *at = NULL;
  if (!s) s = decode_aligned(data, bytes, &plan, &at);
  if (!s) s = model_make(plan, at, bytes, out);
  if (s || at != data) {
    /* refused, or decoded from a copy: the caller's bytes are done with */
    if (release) release(data, bytes);
    return s;
  }
  (*out)->owned = data;
  (*out)->release = release;
  return VKML_OK;
}

vkml_status vkml_model_artifact(const vkml_model *m, const void **data, size_t *bytes) {
  if (!m) return bad_arg("vkml_model_artifact", "m is NULL");
  if (!data || !bytes) return bad_arg("vkml_model_artifact", "data or bytes is NULL");
  *data = NULL;
  *bytes = 0;
  VKML_RETURN_IF_ERROR(rt_api_weights_verified(m));
  *data = m->artifact;
  *bytes = m->artifact_bytes;
  return VKML_OK;
}

void vkml_model_free(vkml_model *m) {
  if (!m) return;
  /* devices outlive their instances only by a bug of the caller's: free
   * what is left anyway */
  for (api_device *d = m->devices, *next; d; d = next) {
    next = d->next;
    rt_vk_weights_destroy(d->ctx, d->weights);
    rt_vk_context_destroy(d->ctx, NULL);
    free(d);
  }
  vkml_status_free(rt_api_weights_verified(m)); /* no thread may outlive the mapping */
  vkml_status_free(m->check_status);
  free(m->check_name);
  pthread_mutex_destroy(&m->check_lock);
  pthread_mutex_destroy(&m->lock);
  rt_api_model_unindex(m);
  ir_plan_destroy(m->plan);
  if (m->release) m->release(m->owned, m->artifact_bytes);
  free(m);
}

int vkml_model_input_count(const vkml_model *m) { return m ? m->plan->graph->n_inputs : 0; }
int vkml_model_output_count(const vkml_model *m) { return m ? m->plan->graph->n_outputs : 0; }

static void info_of(const ir_value *v, vkml_tensor_info *out) {
  memset(out, 0, sizeof *out);
  out->name = v->name;
  out->dtype = (vkml_dtype)v->type.dtype;
  out->rank = v->type.rank;
  memcpy(out->dims, v->type.dims, sizeof v->type.dims[0] * (size_t)v->type.rank);
  out->bytes = ir_type_bytes(&v->type);
  out->bounded_axis = v->type.bounded ? v->type.bounded_axis : -1;
}

static vkml_status info_at(const vkml_model *m, bool input, int i, vkml_tensor_info *out) {
  const ir_graph *g = m->plan->graph;
  int n = input ? g->n_inputs : g->n_outputs;
  if (i < 0 || i >= n)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s %d: the model has %d", 
                            input ? "input" : "output", i, n);
  info_of(input ? g->inputs[i] : g->outputs[i], out);
  return VKML_OK;
}

vkml_status vkml_model_input(const vkml_model *m, int i, vkml_tensor_info *out) {
  if (!m) return bad_arg("vkml_model_input", "no model");
  if (!out) return bad_arg("vkml_model_input", "out is NULL");
  return info_at(m, true, i, out);
}

vkml_status vkml_model_output(const vkml_model *m, int i, vkml_tensor_info *out) {
  if (!m) return bad_arg("vkml_model_output", "no model");
  if (!out) return bad_arg("vkml_model_output", "out is NULL");
  return info_at(m, false, i, out);
}

vkml_status rt_api_find(const vkml_model *m, bool input, const char *name, int *index) {
  const ir_graph *g = m->plan->graph;
  int n = input ? g->n_inputs : g->n_outputs;
  ir_value *const *vs = input ? g->inputs : g->outputs;
  for (int i = 0; name && i < n; i++)
    if (!strcmp(vs[i]->name, name)) {
      *index = i;
      return VKML_OK;
    }
  char list[512] = "";
  size_t o = 0;
  for (int i = 0; i < n && o < sizeof list - 8; i++)
    o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", i ? ", " : "", vs[i]->name);
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "no %s named '%.64s'; the model's %ss: %s",
                          input ? "input" : "output", name ? name : "(null)",
                          input ? "input" : "output", list);
}

vkml_status vkml_model_find_input(const vkml_model *m, const char *name, vkml_tensor_info *out) {
  if (!m) return bad_arg("vkml_model_find_input", "no model");
  if (!out) return bad_arg("vkml_model_find_input", "out is NULL");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(m, true, name, &i));
  info_of(m->plan->graph->inputs[i], out);
  return VKML_OK;
}

vkml_status vkml_model_find_output(const vkml_model *m, const char *name,
                                  vkml_tensor_info *out) {
  if (!m) return bad_arg("vkml_model_find_output", "no model");
  if (!out) return bad_arg("vkml_model_find_output", "out is NULL");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(m, false, name, &i));
  info_of(m->plan->graph->outputs[i], out);
  return VKML_OK;
}

/* ---- devices (under the model's lock) ---------------------------------------------- */

static vkml_status device_get(vkml_model *m, const vkml_instance_opts *o, api_device **out) {
  for (api_device *d = m->devices; d; d = d->next)
    if (d->kind == o->device && (o->device != VKML_DEVICE_INDEX || d->index == o->index) &&
        d->validation == o->validation && d->stats == o->profile) {
      d->users++;
      *out = d;
      return VKML_OK;
    }
  api_device *d = calloc(1, sizeof *d);
  if (!d) return ir_oom(NULL);
  d->kind = o->device;
  d->index = o->index;
  d->validation = o->validation;
  d->stats = o->profile;
  vkml_status s = VKML_OK;
  if (o->device != VKML_DEVICE_CPU) {
    rt_vk_context_opts co = {.validation = o->validation, .pipeline_stats = o->profile};
    if (o->device == VKML_DEVICE_INDEX) {
      co.select_device = true;
      co.device_index = o->index;
    }
    double t0 = now_s();
    s = rt_vk_context_create(&co, &d->ctx);
    if (!s) {
      /* refused here, before any upload, naming the missing feature */
      ir_plan_needs needs;
      s = ir_plan_needs_get(m->plan, &needs);
      if (!s) s = ir_target_check_needs(rt_vk_context_target(d->ctx), &needs);
    }
    d->context_s = now_s() - t0;
    if (d->ctx) {
      rt_vk_pcache_info pc;
      rt_vk_pcache_info_get(d->ctx, &pc);
      d->pcache_warm = pc.loaded_bytes > 0;
    }
    t0 = now_s();
    /* checked while the context was made; any wait counts as the weights' */
    if (!s) s = rt_api_weights_verified(m);
    if (!s) s = rt_vk_weights_create(d->ctx, m->plan, 0, false, &d->weights);
    d->weights_s = now_s() - t0;
  }
  if (s) {
    rt_vk_weights_destroy(d->ctx, d->weights);
    rt_vk_context_destroy(d->ctx, NULL);
    free(d);
    return s;
  }
  d->users = 1;
  d->next = m->devices;
  m->devices = d;
  *out = d;
  return VKML_OK;
}

static void device_put(vkml_model *m, api_device *d) {
  if (!d || --d->users > 0) return;
  for (api_device **p = &m->devices; *p; p = &(*p)->next)
    if (*p == d) {
      *p = d->next;
      break;
    }
  rt_vk_weights_destroy(d->ctx, d->weights);
  rt_vk_context_destroy(d->ctx, NULL);
  free(d);
}

/* ---- instances --------------------------------------------------------------------- */

static void instance_free(vkml_instance *inst) {
  const ir_graph *g = inst->m->plan->graph;
  rt_vk_exec_destroy(inst->exec);
  rt_threads_destroy(inst->cpu_pool);
  for (int i = 0; inst->in && i < g->n_inputs; i++) rt_tensor_free(&inst->in[i]);
  for (int i = 0; inst->out && i < g->n_outputs; i++) rt_tensor_free(&inst->out[i]);
  free(inst->in);
  free(inst->out);
  free(inst->in_mem);
  free(inst->out_mem);
  free(inst->in_set);
  free(inst->out_dims);
  free(inst->row_s);
  free(inst->tmp);
  free(inst->peaks_path);
  free(inst->peaks_error);
  free(inst);
}

/* Host tensors for inputs and outputs (CPU, and plans with CPU steps). */
static vkml_status host_io(vkml_instance *inst) {
  const ir_graph *g = inst->m->plan->graph;
  inst->in = calloc((size_t)g->n_inputs + 1, sizeof *inst->in);
  inst->out = calloc((size_t)g->n_outputs + 1, sizeof *inst->out);
  if (!inst->in || !inst->out) return ir_oom(NULL);
  for (int i = 0; i < g->n_inputs; i++) {
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&g->inputs[i]->type, &inst->in[i]));
    memset(inst->in[i].data, 0, rt_tensor_bytes(&inst->in[i]));
    inst->in_mem[i] = inst->in[i].data;
  }
  for (int i = 0; i < g->n_outputs; i++) {
    VKML_RETURN_IF_ERROR(rt_tensor_alloc(&g->outputs[i]->type, &inst->out[i]));
    memset(inst->out[i].data, 0, rt_tensor_bytes(&inst->out[i]));
    inst->out_mem[i] = inst->out[i].data;
  }
  return VKML_OK;
}

/* The device's measured peaks, for the profile's roofs (vk_peaks.h). */
static void peaks_load(vkml_instance *inst) {
  inst->peaks_code = VKML_CODE_IO;
  inst->peaks_path = rt_vk_peaks_path(rt_vk_context_target(inst->dev->ctx));
  if (!inst->peaks_path) return;
  vkml_status s = rt_vk_peaks_read(inst->peaks_path, &inst->peaks);
  inst->peaks_code = vkml_status_code(s);
  if (s && inst->peaks_code != VKML_CODE_IO) {
    inst->peaks_code = VKML_CODE_CORRUPT;
    inst->peaks_error = strdup(vkml_status_message(s));
  }
  vkml_status_free(s);
}

static vkml_status instance_init(vkml_instance *inst, const vkml_instance_opts *o) {
  const ir_plan *plan = inst->m->plan;
  const ir_graph *g = plan->graph;
  inst->in_mem = calloc((size_t)g->n_inputs + 1, sizeof *inst->in_mem);
  inst->out_mem = calloc((size_t)g->n_outputs + 1, sizeof *inst->out_mem);
  inst->in_set = calloc((size_t)g->n_inputs + 1, sizeof *inst->in_set);
  inst->out_dims = calloc((size_t)g->n_outputs + 1, sizeof *inst->out_dims);
  if (!inst->in_mem || !inst->out_mem || !inst->in_set || !inst->out_dims) return ir_oom(NULL);
  for (int i = 0; i < g->n_outputs; i++)
    memcpy(inst->out_dims[i], g->outputs[i]->type.dims, sizeof inst->out_dims[i]);
  inst->profile = o->profile;
  if (o->profile) {
    /* the CPU executor times nodes by id, the GPU one steps by index */
    size_t n = (size_t)(g->n_nodes > plan->n_steps ? g->n_nodes : plan->n_steps) + 1;
    inst->row_s = calloc(n, sizeof *inst->row_s);
    inst->tmp = calloc(n, sizeof *inst->tmp);
    if (!inst->row_s || !inst->tmp) return ir_oom(NULL);
  }
  if (inst->dev->ctx) {
    const ir_target *t = rt_vk_context_target(inst->dev->ctx);
    inst->gpu_timed = o->profile && t->timestamp_valid_bits;
    rt_vk_exec_opts xo = {.weights = inst->dev->weights,
                          .timestamps = inst->gpu_timed,
                          .staged_inputs = o->staged_inputs,
                          .wait = o->wait == VKML_WAIT_SPIN     ? RT_VK_WAIT_SPIN
                                  : o->wait == VKML_WAIT_HYBRID ? RT_VK_WAIT_HYBRID
                                                                : RT_VK_WAIT_BLOCK};
    double t0 = now_s();
    VKML_RETURN_IF_ERROR(rt_vk_exec_create(inst->dev->ctx, plan, &xo, &inst->exec));
    inst->pipelines_s = now_s() - t0;
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(inst->exec, &st);
    inst->lean = st.lean;
    if (o->profile) peaks_load(inst);
  } else {
    /* the online cores, or VKML_CPU_THREADS */
    VKML_RETURN_IF_ERROR(rt_threads_create(0, &inst->cpu_pool));
  }
  if (!inst->lean) return host_io(inst);
  for (int i = 0; i < g->n_inputs; i++) {
    inst->in_mem[i] = rt_vk_exec_input_map(inst->exec, i);
    memset(inst->in_mem[i], 0, ir_type_bytes(&g->inputs[i]->type));
  }
  for (int i = 0; i < g->n_outputs; i++) {
    inst->out_mem[i] = (void *)rt_vk_exec_output_map(inst->exec, i);
    memset(inst->out_mem[i], 0, ir_type_bytes(&g->outputs[i]->type));
  }
  return VKML_OK;
}

vkml_status vkml_instance_create(vkml_model *m, const vkml_instance_opts *opts,
                                 vkml_instance **out) {
  if (!out)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_instance_create: out is NULL");
  *out = NULL;
  if (!m) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_instance_create: no model");
  vkml_instance_opts o = {0};
  if (opts) o = *opts;
  if (o.device == VKML_DEVICE_INDEX && o.index < 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "vkml_instance_create: device index %d", o.index);
  if (o.device != VKML_DEVICE_DEFAULT && o.device != VKML_DEVICE_INDEX &&
      o.device != VKML_DEVICE_CPU)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "unknown device kind %d", (int)o.device);
  if (o.wait != VKML_WAIT_BLOCK && o.wait != VKML_WAIT_SPIN && o.wait != VKML_WAIT_HYBRID)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "unknown wait mode %d", (int)o.wait);
  if (m->cpu_only && o.device != VKML_DEVICE_CPU)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "vkml_instance_create: IR text runs on the CPU reference "
                            "kernels only (VKML_DEVICE_CPU); compile it for a GPU "
                            "(vkml_compile, vkc compile)");
  vkml_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return ir_oom(NULL);
  inst->m = m;
  pthread_mutex_lock(&m->lock);
  api_device *had = m->devices;
  vkml_status s = device_get(m, &o, &inst->dev);
  if (!s) s = rt_api_weights_verified(m); /* the CPU's executor reads them too */
  if (!s) inst->created_device = inst->dev == m->devices && m->devices != had;
  if (!s) s = instance_init(inst, &o);
  if (s) {
    api_device *d = inst->dev;
    instance_free(inst);
    device_put(m, d);
  } else {
    m->n_instances++;
    *out = inst;
  }
  pthread_mutex_unlock(&m->lock);
  return s;
}

void vkml_instance_destroy(vkml_instance *inst) {
  if (!inst) return;
  vkml_model *m = inst->m;
  pthread_mutex_lock(&m->lock);
  api_device *d = inst->dev;
  instance_free(inst);
  device_put(m, d);
  m->n_instances--;
  pthread_mutex_unlock(&m->lock);
}

vkml_status vkml_set_input(vkml_instance *inst, const char *name, vkml_dtype dtype, int rank,
                           const int64_t *dims, const void *data) {
  if (!inst) return bad_arg("vkml_set_input", "no instance");
  if (rank < 0 || rank > IR_MAX_RANK) return bad_arg("vkml_set_input", "rank out of range");
  if (rank && !dims) return bad_arg("vkml_set_input", "dims is NULL");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, true, name, &i));
  const ir_value *v = inst->m->plan->graph->inputs[i];
  bool same = (int)dtype == (int)v->type.dtype && rank == v->type.rank && (dims || !rank);
  for (int k = 0; same && k < rank; k++) same = dims[k] == v->type.dims[k];
  if (!same) {
    char want[128], got[160] = "?";
    ir_type_format(&v->type, want, sizeof want);
    if (rank >= 0 && rank <= IR_MAX_RANK && (dims || !rank) && dtype >= VKML_F32 &&
        dtype <= VKML_BOOL) {
      size_t o = (size_t)snprintf(got, sizeof got, "%s[", ir_dtype_name((ir_dtype)dtype));
      for (int k = 0; k < rank && o < sizeof got; k++)
        o += (size_t)snprintf(got + o, sizeof got - o, "%s%lld", k ? "," : "",
                              (long long)dims[k]);
      if (o < sizeof got) snprintf(got + o, sizeof got - o, "]");
    }
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "input '%s': expected %s, given %s",
                            v->name, want, got);
  }
  size_t bytes = ir_type_bytes(&v->type);
  if (bytes && !data)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "input '%s': no data", v->name);
  if (bytes) memcpy(inst->in_mem[i], data, bytes);
  inst->in_set[i] = true;
  return VKML_OK;
}

/* The profile's seconds by step from the executor's times (GPU: by step,
 * nanoseconds; CPU: by node id, seconds). */
static void profile_take(vkml_instance *inst) {
  const vkml_model *m = inst->m;
  for (int i = 0; i < m->n_nodes; i++)
    inst->row_s[i] = inst->exec ? 1e-9 * inst->tmp[i] : inst->tmp[m->nodes[i]->id];
}

/* A run that is not lean: the executor's allocating path (under the lock:
 * it uses the context's allocator and transfer buffer), then the outputs
 * copied into the instance's memory (a bounded one at the run's size). */
static vkml_status run_hosted(vkml_instance *inst) {
  const ir_graph *g = inst->m->plan->graph;
  rt_tensor *res = calloc((size_t)g->n_outputs + 1, sizeof *res);
  if (!res) return ir_oom(NULL);
  vkml_status s;
  if (inst->exec) {
    pthread_mutex_lock(&inst->m->lock);
    s = rt_vk_exec_run(inst->exec, inst->in, g->n_inputs, res, g->n_outputs, inst->tmp);
    pthread_mutex_unlock(&inst->m->lock);
  } else {
    rt_cpu_ctx ctx = {.pool = inst->cpu_pool};
    s = rt_cpu_run_graph_ctx(&ctx, g, inst->in, g->n_inputs, res, g->n_outputs, inst->tmp);
  }
  for (int i = 0; i < g->n_outputs && !s; i++) {
    size_t bytes = rt_tensor_bytes(&res[i]);
    ir_type got = rt_tensor_type(&res[i]);
    if (!ir_type_holds(&g->outputs[i]->type, &got))
      s = vkml_status_make(VKML_CODE_INTERNAL, "output %%%s: %zu bytes, expected %zu",
                           g->outputs[i]->name, bytes, rt_tensor_bytes(&inst->out[i]));
    else if (bytes)
      memcpy(inst->out[i].data, res[i].data, bytes);
    if (!s) memcpy(inst->out_dims[i], res[i].dims, sizeof inst->out_dims[i]);
  }
  if (!s && inst->profile) profile_take(inst);
  for (int i = 0; i < g->n_outputs; i++) rt_tensor_free(&res[i]);
  free(res);
  return s;
}

vkml_status vkml_run(vkml_instance *inst) {
  if (!inst) return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_run: no instance");
  const ir_graph *g = inst->m->plan->graph;
  for (int i = 0; i < g->n_inputs; i++)
    if (!inst->in_set[i])
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "vkml_run: input '%s' was never given (vkml_set_input, or "
                              "vkml_input_memory and a write there)",
                              g->inputs[i]->name);
  if (inst->lean) {
    VKML_RETURN_IF_ERROR(rt_vk_exec_run_mapped(inst->exec, inst->tmp));
    if (inst->profile) profile_take(inst);
  } else {
    VKML_RETURN_IF_ERROR(run_hosted(inst));
  }
  inst->ran = true;
  inst->n_runs++;
  return VKML_OK;
}

vkml_status vkml_replay(vkml_instance *inst) {
  if (!inst) return bad_arg("vkml_replay", "no instance");
  if (!inst->exec)
    return bad_arg("vkml_replay", "the instance runs on the CPU (replay re-submits GPU kernels)");
  if (!inst->ran) return bad_arg("vkml_replay", "the instance has not run yet");
  if (!inst->lean) pthread_mutex_lock(&inst->m->lock);
  vkml_status s = rt_vk_exec_replay(inst->exec, inst->tmp);
  if (!inst->lean) pthread_mutex_unlock(&inst->m->lock);
  if (!s && inst->profile) profile_take(inst);
  return s;
}

vkml_status vkml_get_output(vkml_instance *inst, const char *name, void *data, size_t bytes) {
  if (!inst) return bad_arg("vkml_get_output", "no instance");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, false, name, &i));
  const ir_value *v = inst->m->plan->graph->outputs[i];
  size_t want = ir_type_bytes(&v->type);
  if (bytes != want || (want && !data)) {
    char t[128];
    ir_type_format(&v->type, t, sizeof t);
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "output '%s' is %s: %zu bytes, given room for %zu%s", v->name, t,
                            want, bytes, want && !data ? " at NULL" : "");
  }
  if (!inst->ran)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "output '%s': the instance has not run",
                            v->name);
  vkml_tensor_info run;
  VKML_RETURN_IF_ERROR(vkml_output_shape(inst, name, &run));
  if (run.bytes) memcpy(data, inst->out_mem[i], run.bytes);
  return VKML_OK;
}

vkml_status vkml_output_shape(const vkml_instance *inst, const char *name,
                              vkml_tensor_info *out) {
  if (!out) return bad_arg("vkml_output_shape", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!inst) return bad_arg("vkml_output_shape", "no instance");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, false, name, &i));
  const ir_value *v = inst->m->plan->graph->outputs[i];
  info_of(v, out);
  if (v->type.bounded) {
    ir_type t = v->type;
    t.bounded = false;
    memcpy(t.dims, inst->out_dims[i], sizeof t.dims);
    memcpy(out->dims, t.dims, sizeof t.dims[0] * (size_t)t.rank);
    out->bytes = (size_t)ir_type_bytes(&t);
  }
  return VKML_OK;
}

vkml_status vkml_input_memory(vkml_instance *inst, const char *name, void **data) {
  if (!inst) return bad_arg("vkml_input_memory", "no instance");
  if (!data) return bad_arg("vkml_input_memory", "data is NULL");
  *data = NULL;
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, true, name, &i));
  *data = inst->in_mem[i];
  inst->in_set[i] = true; /* the caller writes it there */
  return VKML_OK;
}

vkml_status vkml_output_memory(vkml_instance *inst, const char *name, const void **data) {
  if (!inst) return bad_arg("vkml_output_memory", "no instance");
  if (!data) return bad_arg("vkml_output_memory", "data is NULL");
  *data = NULL;
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, false, name, &i));
  *data = inst->out_mem[i];
  return VKML_OK;
}

vkml_status vkml_instance_memory(const vkml_instance *inst, vkml_memory *out) {
  if (!out) return bad_arg("vkml_instance_memory", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!inst) return bad_arg("vkml_instance_memory", "no instance");
  vkml_model *m = inst->m;
  pthread_mutex_lock(&m->lock);
  out->weights_users = inst->dev->users;
  if (inst->exec) {
    rt_vk_exec_stats st;
    rt_vk_exec_stats_get(inst->exec, &st);
    out->weights_bytes = st.weight_bytes;
    out->instance_bytes = st.device_bytes;
    out->arena_bytes = st.arena_bytes;
    out->staging_bytes = st.staging_bytes;
    out->lean = st.lean;
    /* device memory: the device-local pool and the device-local
     * host-visible one (inputs the kernels read in place) */
    rt_vk_mem_stats ms, mu;
    rt_vk_memory_stats(inst->dev->ctx, RT_VK_MEM_DEVICE, &ms);
    rt_vk_memory_stats(inst->dev->ctx, RT_VK_MEM_UPLOAD, &mu);
    out->device_used_bytes = ms.used_bytes + mu.used_bytes;
  }
  pthread_mutex_unlock(&m->lock);
  return VKML_OK;
}

const char *vkml_instance_device(const vkml_instance *inst) {
  if (!inst) return NULL;
  return inst->dev->ctx ? rt_vk_context_target(inst->dev->ctx)->name : "cpu";
}
