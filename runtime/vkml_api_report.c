/* The public C API's reports (include/vkml.h): what a model holds (its
 * provenance, its steps), what an instance measured (per-step times and
 * their roofs, run statistics, load times), and tensor files in and out.
 * The objects are vkml_api_internal.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/artifact.h"
#include "ir/cost.h"
#include "ir/util.h"
#include "runtime/npy.h"
#include "runtime/tensor_pb.h"
#include "runtime/vkml_api_internal.h"

#define bad_arg rt_api_bad_arg

/* ---- the model's index: steps and provenance --------------------------------------- */

/* The artifact's provenance lines (ir/artifact.h). The file is untrusted:
 * a line that does not parse is skipped; strings stay as written (callers
 * escape them for a terminal). */
static vkml_status provenance_parse(vkml_model *m) {
  api_provenance *pv = &m->prov;
  vkml_provenance *p = &pv->p;
  const ir_plan *plan = m->plan;
  p->tool = p->precision = p->device = p->device_key = p->schedules = "";
  size_t n = (size_t)plan->n_steps + 1;
  pv->step_source = calloc(n, sizeof *pv->step_source);
  pv->step_device = calloc(n, sizeof *pv->step_device);
  pv->step_confirmed = calloc(n, sizeof *pv->step_confirmed);
  if (!pv->step_source || !pv->step_device || !pv->step_confirmed) return ir_oom(NULL);
  for (int i = 0; i < plan->n_steps; i++) {
    const ir_plan_step *st = &plan->steps[i];
    bool kernel = st->device == IR_DEVICE_GPU && !st->transfer;
    pv->step_source[i] = kernel ? "default" : "";
    pv->step_device[i] = "";
    p->n_kernels += kernel;
  }
  const void *data = NULL;
  uint64_t bytes = 0;
  if (m->artifact)
    ir_artifact_section(m->artifact, m->artifact_bytes, "provenance", &data, &bytes);
  pv->text = malloc((size_t)bytes + 1);
  if (!pv->text) return ir_oom(NULL);
  if (bytes) memcpy(pv->text, data, (size_t)bytes);
  pv->text[bytes] = '\0';
  for (char *line = pv->text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *v = strchr(line, '=');
    if (!v) continue;
    *v++ = '\0';
    if (!strcmp(line, "format")) p->format = atoi(v);
    else if (!strcmp(line, "tool")) p->tool = v;
    else if (!strcmp(line, "precision")) p->precision = v;
    else if (!strcmp(line, "schedules")) p->schedules = v;
    else if (!strcmp(line, "device")) p->device = v;
    else if (!strcmp(line, "device_key")) p->device_key = v;
    else if (!strcmp(line, "vendor_id")) p->vendor_id = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(line, "device_id")) p->device_id = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(line, "driver_id")) p->driver_id = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(line, "driver_version")) p->driver_version = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(line, "api_version")) p->api_version = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(line, "tuned")) {
      /* STEP tuned|nearest DEVICE_KEY confirmed|unconfirmed */
      char *f[4], *save = NULL;
      int k = 0;
      for (char *t = strtok_r(v, " ", &save); t && k < 4; t = strtok_r(NULL, " ", &save))
        f[k++] = t;
      char *end;
      long step = k == 4 ? strtol(f[0], &end, 10) : -1;
      if (k != 4 || *end || step < 0 || step >= plan->n_steps ||
          strcmp(pv->step_source[step], "default") ||
          (strcmp(f[1], "tuned") && strcmp(f[1], "nearest")))
        continue;
      bool nearest = !strcmp(f[1], "nearest");
      pv->step_source[step] = nearest ? "nearest" : "tuned";
      pv->step_device[step] = f[2];
      pv->step_confirmed[step] = !strcmp(f[3], "confirmed");
      p->n_tuned += !nearest;
      p->n_nearest += nearest;
      p->n_confirmed += pv->step_confirmed[step];
    }
  }
  p->n_default = p->n_kernels - p->n_tuned - p->n_nearest;
  return VKML_OK;
}

vkml_status rt_api_model_index(vkml_model *m) {
  const ir_plan *plan = m->plan;
  const ir_graph *g = plan->graph;
  m->nodes = calloc((size_t)g->n_nodes + 1, sizeof *m->nodes);
  if (!m->nodes) return ir_oom(NULL);
  if (plan->n_steps) {
    /* step i runs node steps[i].node (ir_plan_check holds every id valid) */
    const ir_node **by_id = calloc((size_t)g->n_nodes + 1, sizeof *by_id);
    if (!by_id) return ir_oom(NULL);
    ir_foreach_node(g, n) by_id[n->id] = n;
    for (int i = 0; i < plan->n_steps; i++) {
      int32_t id = plan->steps[i].node;
      m->nodes[i] = id >= 0 && id < g->n_nodes ? by_id[id] : NULL;
      if (!m->nodes[i]) {
        free(by_id);
        return vkml_status_make(VKML_CODE_CORRUPT, "step %d runs no node of the graph", i);
      }
    }
    free(by_id);
    m->n_nodes = plan->n_steps;
  } else {
    ir_foreach_node(g, n) m->nodes[m->n_nodes++] = n;
  }
  return provenance_parse(m);
}

void rt_api_model_unindex(vkml_model *m) {
  free(m->nodes);
  free(m->prov.text);
  free(m->prov.step_source);
  free(m->prov.step_device);
  free(m->prov.step_confirmed);
}

vkml_status vkml_model_provenance(const vkml_model *m, vkml_provenance *out) {
  if (!out) return bad_arg("vkml_model_provenance", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!m) return bad_arg("vkml_model_provenance", "no model");
  *out = m->prov.p;
  return VKML_OK;
}

int vkml_model_step_count(const vkml_model *m) { return m ? m->n_nodes : 0; }

vkml_status vkml_model_step(const vkml_model *m, int i, vkml_step *out) {
  if (!out) return bad_arg("vkml_model_step", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!m) return bad_arg("vkml_model_step", "no model");
  if (i < 0 || i >= m->n_nodes)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "vkml_model_step: step %d: the model has %d", i, m->n_nodes);
  const ir_plan *plan = m->plan;
  const ir_node *n = m->nodes[i];
  const ir_plan_step *st = plan->n_steps ? &plan->steps[i] : NULL;
  out->op = ir_op_name(n->op);
  out->output = n->n_outputs ? n->outputs[0]->name : "";
  if (n->n_outputs) {
    const ir_type *t = &n->outputs[0]->type;
    out->dtype = (vkml_dtype)t->dtype;
    out->rank = t->rank;
    memcpy(out->dims, t->dims, sizeof t->dims[0] * (size_t)t->rank);
  }
  bool gpu = st && st->device == IR_DEVICE_GPU && !st->transfer;
  out->device = st && st->transfer ? "copy" : gpu ? "gpu" : "cpu";
  out->kernel = gpu ? ir_plan_str(plan, st->tmpl) : "";
  out->schedule = gpu ? ir_plan_str(plan, st->schedule) : "";
  out->workload = gpu ? ir_plan_str(plan, st->key) : "";
  out->schedule_source = st ? m->prov.step_source[i] : "";
  out->schedule_device = st ? m->prov.step_device[i] : "";
  out->confirmed = st && m->prov.step_confirmed[i];
  out->note = !st || gpu                             ? ""
              : st->transfer == IR_TRANSFER_DOWNLOAD ? "device to host"
              : st->transfer                         ? "host to device"
                                                     : ir_plan_str(plan, st->reason);
  out->flops = st && st->transfer ? 0 : ir_node_flops(n);
  out->bytes = ir_node_bytes(n) / (st && st->transfer ? 2 : 1); /* one tensor crosses once */
  return VKML_OK;
}

/* ---- what an instance measured ----------------------------------------------------- */

vkml_status vkml_instance_profile(const vkml_instance *inst, int i, vkml_step_profile *out) {
  if (!out) return bad_arg("vkml_instance_profile", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!inst) return bad_arg("vkml_instance_profile", "no instance");
  const vkml_model *m = inst->m;
  if (i < 0 || i >= m->n_nodes)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "vkml_instance_profile: step %d: the model has %d", i, m->n_nodes);
  if (!inst->profile)
    return bad_arg("vkml_instance_profile",
                   "the instance was created without vkml_instance_opts.profile");
  if (!inst->ran) return bad_arg("vkml_instance_profile", "the instance has not run");
  out->seconds = inst->row_s[i];
  out->device = "cpu";
  out->dispatched = true;
  if (!inst->exec) return VKML_OK;
  const ir_plan_step *st = &m->plan->steps[i];
  bool gpu = st->device == IR_DEVICE_GPU && !st->transfer;
  out->device = st->transfer ? "copy" : gpu ? "gpu" : "cpu";
  out->dispatched = !gpu || rt_vk_exec_step_dispatches(inst->exec, i);
  if (gpu && inst->peaks_code == VKML_CODE_OK) {
    const ir_node *n = m->nodes[i];
    rt_vk_peaks_roofs(&inst->peaks, ir_plan_str(m->plan, st->tmpl),
                      ir_plan_str(m->plan, st->schedule),
                      n->n_outputs ? n->outputs[0]->type.dtype : IR_F32, &out->roof_gflops,
                      &out->roof_gbs);
  }
  return VKML_OK;
}

const char *vkml_instance_kernel_stats(const vkml_instance *inst, int i) {
  if (!inst || !inst->exec || !inst->profile || i < 0 || i >= inst->m->n_nodes) return "";
  return rt_vk_exec_step_stats(inst->exec, i);
}

bool vkml_instance_gpu_timed(const vkml_instance *inst) { return inst && inst->gpu_timed; }

vkml_status vkml_instance_peaks(const vkml_instance *inst, const char **path) {
  if (!path) return bad_arg("vkml_instance_peaks", "path is NULL");
  *path = NULL;
  if (!inst) return bad_arg("vkml_instance_peaks", "no instance");
  if (!inst->exec)
    return bad_arg("vkml_instance_peaks", "the instance runs on the CPU (peaks are a GPU's)");
  if (!inst->profile)
    return bad_arg("vkml_instance_peaks",
                   "the instance was created without vkml_instance_opts.profile");
  *path = inst->peaks_path;
  if (inst->peaks_code == VKML_CODE_OK) return VKML_OK;
  if (inst->peaks_code == VKML_CODE_CORRUPT)
    return vkml_status_make(VKML_CODE_CORRUPT, "%s",
                            inst->peaks_error ? inst->peaks_error : "corrupt peaks file");
  return vkml_status_make(VKML_CODE_IO, "%s: no peaks file (vkml-peaks writes it)",
                          inst->peaks_path ? inst->peaks_path : "the vkml cache directory");
}

vkml_status vkml_instance_stats(const vkml_instance *inst, vkml_run_stats *out) {
  if (!out) return bad_arg("vkml_instance_stats", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!inst) return bad_arg("vkml_instance_stats", "no instance");
  out->runs = inst->n_runs;
  if (!inst->exec) return VKML_OK;
  rt_vk_exec_stats st;
  rt_vk_exec_stats_get(inst->exec, &st);
  out->n_segments = st.n_segments;
  out->n_cpu_steps = st.n_cpu_steps;
  out->n_transfer_steps = st.n_transfer_steps;
  out->n_direct_inputs = st.n_direct_inputs;
  out->host_copy_seconds = 1e-9 * st.host_copy_ns;
  out->submit_wait_seconds = 1e-9 * st.submit_wait_ns;
  return VKML_OK;
}

vkml_status vkml_instance_load_times(const vkml_instance *inst, vkml_load_times *out) {
  if (!out) return bad_arg("vkml_instance_load_times", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!inst) return bad_arg("vkml_instance_load_times", "no instance");
  out->pipelines = inst->pipelines_s;
  out->device_shared = !inst->created_device;
  if (!inst->dev->ctx) return VKML_OK;
  out->pipeline_cache_warm = inst->dev->pcache_warm;
  if (!inst->created_device) return VKML_OK;
  rt_vk_open_times t;
  rt_vk_context_open_times(inst->dev->ctx, &t);
  out->device = inst->dev->context_s;
  out->loader = t.loader_s;
  out->vk_instance = t.instance_s;
  out->vk_device = t.device_s;
  out->pipeline_cache_file = t.pipeline_cache_s;
  out->weights = inst->dev->weights_s;
  out->weights_in_place = inst->dev->weights && rt_vk_weights_direct(inst->dev->weights);
  return VKML_OK;
}

/* ---- tensor files ------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

vkml_status vkml_set_input_file(vkml_instance *inst, const char *name, const char *path,
                                bool *converted) {
  if (converted) *converted = false;
  if (!inst) return bad_arg("vkml_set_input_file", "no instance");
  if (!path) return bad_arg("vkml_set_input_file", "no path");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, true, name, &i));
  const ir_value *v = inst->m->plan->graph->inputs[i];
  rt_tensor t;
  bool conv = false;
  vkml_status s;
  if (ends_with(path, ".npy")) {
    s = rt_npy_read_as(path, v->type.dtype, &t, &conv);
  } else if (ends_with(path, ".pb")) {
    s = rt_tensor_read_pb(path, &t, NULL);
  } else {
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: unknown tensor file type (expected .npy or .pb)", path);
  }
  if (s) return vkml_status_annotate(s, "input '%s'", v->name);
  ir_type got = rt_tensor_type(&t);
  if (!ir_type_equal(&got, &v->type)) {
    char want[128], have[128];
    ir_type_format(&v->type, want, sizeof want);
    ir_type_format(&got, have, sizeof have);
    s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input %%%s: expected %s, got %s",
                         path, v->name, want, have);
  }
  if (!s) s = vkml_set_input(inst, v->name, (vkml_dtype)t.dtype, t.rank, t.dims, t.data);
  rt_tensor_free(&t);
  if (!s && converted) *converted = conv;
  return s;
}

vkml_status vkml_write_output_file(const vkml_instance *inst, const char *name,
                                   const char *path) {
  if (!inst) return bad_arg("vkml_write_output_file", "no instance");
  if (!path) return bad_arg("vkml_write_output_file", "no path");
  int i;
  VKML_RETURN_IF_ERROR(rt_api_find(inst->m, false, name, &i));
  const ir_value *v = inst->m->plan->graph->outputs[i];
  if (!inst->ran)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "output '%s': the instance has not run",
                            v->name);
  ir_type t = v->type;
  t.bounded = false;
  memcpy(t.dims, inst->out_dims[i], sizeof t.dims);
  rt_tensor view = rt_tensor_view(&t, inst->out_mem[i]);
  return rt_npy_write(path, &view);
}
