/* ir_plan: building, lookup and checking of compiled plans (see plan.h). */
#include "plan.h"
#include "ir/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grows *arr (elements of size elem) so that it holds need elements. */
static bool grow(void **arr, uint64_t *cap, uint64_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t ncap = *cap ? *cap : 16;
  while (ncap < need) ncap *= 2;
  if (ncap > (uint64_t)SIZE_MAX / elem) return false;
  void *na = realloc(*arr, (size_t)(ncap * elem));
  if (!na) return false;
  *arr = na;
  *cap = ncap;
  return true;
}

static bool grow_int(void **arr, int *cap, int need, size_t elem) {
  uint64_t c = (uint64_t)*cap;
  if (need < 0 || !grow(arr, &c, (uint64_t)need, elem) || c > INT32_MAX) return false;
  *cap = (int)c;
  return true;
}

static vkml_status add_string(ir_plan *p, const char *s, int32_t *off) {
  if (!s || !*s) {
    *off = 0;
    return VKML_OK;
  }
  uint64_t n = strlen(s) + 1;
  if (p->strings_bytes + n > INT32_MAX) return ir_oom(NULL);
  if (!grow((void **)&p->strings, &p->cap_strings, p->strings_bytes + n, 1)) return ir_oom(NULL);
  memcpy(p->strings + p->strings_bytes, s, n);
  *off = (int32_t)p->strings_bytes;
  p->strings_bytes += n;
  return VKML_OK;
}

vkml_status ir_plan_create(ir_plan **out) {
  *out = NULL;
  ir_plan *p = calloc(1, sizeof *p);
  if (!p) return ir_oom(NULL);
  /* offset 0 is the empty string */
  if (!grow((void **)&p->strings, &p->cap_strings, 1, 1)) {
    free(p);
    return ir_oom(NULL);
  }
  p->strings[0] = 0;
  p->strings_bytes = 1;
  *out = p;
  return VKML_OK;
}

void ir_plan_destroy(ir_plan *p) {
  if (!p) return;
  for (int i = 0; i < p->n_modules; i++) free(p->modules[i].words);
  free(p->modules);
  free(p->steps);
  free(p->bindings);
  free(p->specs);
  free(p->push);
  free(p->strings);
  ir_memplan_free(&p->mem);
  ir_graph_destroy(p->graph);
  if (p->backing_release) p->backing_release(p->backing, p->backing_bytes);
  free(p);
}

vkml_status ir_plan_add_module(ir_plan *p, const char *name, const uint32_t *words,
                               uint64_t bytes, int32_t *index) {
  for (int i = 0; i < p->n_modules; i++)
    if (p->modules[i].bytes == bytes && !memcmp(p->modules[i].words, words, (size_t)bytes)) {
      *index = i;
      return VKML_OK;
    }
  if (bytes == 0 || bytes % 4 || bytes > SIZE_MAX)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "SPIR-V module %s: %llu bytes",
                            name ? name : "?", (unsigned long long)bytes);
  if (!grow_int((void **)&p->modules, &p->cap_modules, p->n_modules + 1, sizeof *p->modules))
    return ir_oom(NULL);
  ir_plan_module *m = &p->modules[p->n_modules];
  memset(m, 0, sizeof *m);
  m->words = malloc((size_t)bytes);
  if (!m->words) return ir_oom(NULL);
  memcpy(m->words, words, (size_t)bytes);
  m->bytes = bytes;
  snprintf(m->name, sizeof m->name, "%s", name ? name : "");
  *index = p->n_modules++;
  return VKML_OK;
}

static ir_plan_step *new_step(ir_plan *p) {
  if (!grow_int((void **)&p->steps, &p->cap_steps, p->n_steps + 1, sizeof *p->steps))
    return NULL;
  ir_plan_step *s = &p->steps[p->n_steps];
  memset(s, 0, sizeof *s);
  s->module = -1;
  return s;
}

vkml_status ir_plan_add_gpu_step(ir_plan *p, const ir_plan_gpu_desc *d) {
  if (d->n_bindings < 0 || d->n_specs < 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "plan step: negative count");
  ir_plan_step *s = new_step(p);
  if (!s) return ir_oom(NULL);
  if (!grow_int((void **)&p->bindings, &p->cap_bindings, p->n_bindings + d->n_bindings,
                sizeof *p->bindings) ||
      !grow_int((void **)&p->specs, &p->cap_specs, p->n_specs + d->n_specs, sizeof *p->specs) ||
      !grow((void **)&p->push, &p->cap_push, p->push_bytes + d->push_bytes, 1) ||
      p->push_bytes + d->push_bytes > INT32_MAX)
    return ir_oom(NULL);
  s->node = d->node;
  s->device = IR_DEVICE_GPU;
  s->module = d->module;
  s->n_bindings = d->n_bindings;
  s->bindings = p->n_bindings;
  if (d->n_bindings) memcpy(p->bindings + p->n_bindings, d->bindings,
                            sizeof *d->bindings * (size_t)d->n_bindings);
  s->n_spec = d->n_specs;
  s->spec = p->n_specs;
  if (d->n_specs) memcpy(p->specs + p->n_specs, d->specs, sizeof *d->specs * (size_t)d->n_specs);
  s->push_bytes = d->push_bytes;
  s->push = (int32_t)p->push_bytes;
  if (d->push_bytes) {
    if (d->push) memcpy(p->push + p->push_bytes, d->push, d->push_bytes);
    else memset(p->push + p->push_bytes, 0, d->push_bytes);
  }
  memcpy(s->groups, d->groups, sizeof s->groups);
  s->flags = d->flags;
  /* strings last: a failure leaves the step uncounted */
  VKML_RETURN_IF_ERROR(add_string(p, d->key, &s->key));
  VKML_RETURN_IF_ERROR(add_string(p, d->tmpl, &s->tmpl));
  VKML_RETURN_IF_ERROR(add_string(p, d->schedule, &s->schedule));
  p->n_bindings += d->n_bindings;
  p->n_specs += d->n_specs;
  p->push_bytes += d->push_bytes;
  p->n_steps++;
  return VKML_OK;
}

vkml_status ir_plan_add_cpu_step(ir_plan *p, int32_t node, const char *reason) {
  ir_plan_step *s = new_step(p);
  if (!s) return ir_oom(NULL);
  s->node = node;
  s->device = IR_DEVICE_CPU;
  VKML_RETURN_IF_ERROR(add_string(p, reason, &s->reason));
  p->n_steps++;
  return VKML_OK;
}

vkml_status ir_plan_add_transfer_step(ir_plan *p, int32_t node, ir_transfer t) {
  if (t != IR_TRANSFER_DOWNLOAD && t != IR_TRANSFER_UPLOAD)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "plan step: unknown transfer %d", (int)t);
  ir_plan_step *s = new_step(p);
  if (!s) return ir_oom(NULL);
  s->node = node;
  s->device = IR_DEVICE_CPU;
  s->transfer = t;
  p->n_steps++;
  return VKML_OK;
}

/* ---- device needs ------------------------------------------------------------ */

/* SPIR-V capabilities (the spec's Capability enum) and what each needs. */
static const struct {
  uint32_t cap;
  uint32_t feature, subgroup;
  const char *name;
} CAPS[] = {
    {1, 0, 0, "Shader"},
    {9, IR_NEED_FP16_ARITH, 0, "Float16"},
    {11, IR_NEED_INT64_ARITH, 0, "Int64"},
    {22, IR_NEED_INT16_ARITH, 0, "Int16"},
    {39, IR_NEED_INT8_ARITH, 0, "Int8"},
    {61, 0, IR_SUBGROUP_BASIC, "GroupNonUniform"},
    {62, 0, IR_SUBGROUP_VOTE, "GroupNonUniformVote"},
    {63, 0, IR_SUBGROUP_ARITHMETIC, "GroupNonUniformArithmetic"},
    {64, 0, IR_SUBGROUP_BALLOT, "GroupNonUniformBallot"},
    {65, 0, IR_SUBGROUP_SHUFFLE, "GroupNonUniformShuffle"},
    {66, 0, IR_SUBGROUP_SHUFFLE_RELATIVE, "GroupNonUniformShuffleRelative"},
    {67, 0, IR_SUBGROUP_CLUSTERED, "GroupNonUniformClustered"},
    {68, 0, IR_SUBGROUP_QUAD, "GroupNonUniformQuad"},
    {4433, IR_NEED_STORAGE_16BIT, 0, "StorageBuffer16BitAccess"},
    {4448, IR_NEED_STORAGE_8BIT, 0, "StorageBuffer8BitAccess"},
    {5345, IR_NEED_VULKAN_MEMORY_MODEL, 0, "VulkanMemoryModel"},
    {5346, IR_NEED_VULKAN_MEMORY_MODEL, 0, "VulkanMemoryModelDeviceScope"},
    {5357, IR_NEED_COOPMAT_NV, 0, "CooperativeMatrixNV"},
    {6022, IR_NEED_COOPMAT_KHR, 0, "CooperativeMatrixKHR"},
    {5432, IR_NEED_COOPMAT2, 0, "CooperativeMatrixPerElementOperationsNV"},
    {5433, IR_NEED_COOPMAT2, 0, "CooperativeMatrixTensorAddressingNV"},
    {5439, IR_NEED_COOPMAT2, 0, "TensorAddressingNV"},
};

vkml_status ir_plan_needs_get(const ir_plan *p, ir_plan_needs *out) {
  memset(out, 0, sizeof *out);
  for (int m = 0; m < p->n_modules; m++) {
    const uint32_t *w = p->modules[m].words;
    uint64_t n = p->modules[m].bytes / 4;
    if (n < 5 || w[0] != 0x07230203u)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "module %d (%s) is not SPIR-V", m,
                              p->modules[m].name);
    for (uint64_t i = 5; i < n;) {
      uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
      if (count == 0 || i + count > n)
        return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                                "module %d (%s): a SPIR-V instruction runs past the end", m,
                                p->modules[m].name);
      /* capabilities not in CAPS are left to pipeline creation (the
       * driver names what it refuses) */
      if (op == 17 /* OpCapability */ && count == 2)
        for (size_t k = 0; k < sizeof CAPS / sizeof CAPS[0]; k++)
          if (CAPS[k].cap == w[i + 1]) {
            out->features |= CAPS[k].feature;
            out->subgroup_ops |= CAPS[k].subgroup;
          }
      i += count;
    }
  }
  return VKML_OK;
}

vkml_status ir_target_check_needs(const ir_target *t, const ir_plan_needs *needs) {
  static const struct {
    uint32_t bit;
    const char *what;
  } F[] = {
      {IR_NEED_FP16_ARITH, "shaderFloat16"},
      {IR_NEED_INT8_ARITH, "shaderInt8"},
      {IR_NEED_INT16_ARITH, "shaderInt16"},
      {IR_NEED_INT64_ARITH, "shaderInt64"},
      {IR_NEED_STORAGE_16BIT, "storageBuffer16BitAccess (fp16 tensors)"},
      {IR_NEED_STORAGE_8BIT, "storageBuffer8BitAccess"},
      {IR_NEED_COOPMAT_NV, "VK_NV_cooperative_matrix"},
      {IR_NEED_VULKAN_MEMORY_MODEL, "vulkanMemoryModel"},
      {IR_NEED_COOPMAT_KHR, "VK_KHR_cooperative_matrix"},
      {IR_NEED_COOPMAT2, "VK_NV_cooperative_matrix2"},
  };
  bool have[] = {t->fp16_arith,    t->int8_arith,   t->int16_arith, t->int64_arith,
                 t->storage_16bit, t->storage_8bit, t->coopmat_nv,  t->vulkan_memory_model,
                 t->coopmat_khr, t->coopmat2};
  for (size_t k = 0; k < sizeof F / sizeof F[0]; k++)
    if ((needs->features & F[k].bit) && !have[k])
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "the kernels need %s, which %s lacks",
                              F[k].what, t->name);
  uint32_t missing = needs->subgroup_ops & ~(t->subgroup_in_compute ? t->subgroup_ops : 0);
  if (missing)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "the kernels need subgroup operations 0x%x in compute shaders, "
                            "which %s lacks (it has 0x%x)",
                            missing, t->name, t->subgroup_in_compute ? t->subgroup_ops : 0);
  return VKML_OK;
}

const char *ir_plan_str(const ir_plan *p, int32_t off) {
  if (off < 0 || (uint64_t)off >= p->strings_bytes) return "";
  return p->strings + off;
}

void ir_plan_counts(const ir_plan *p, int *n_gpu, int *n_cpu, int *n_transfer) {
  int g = 0, c = 0, t = 0;
  for (int i = 0; i < p->n_steps; i++) {
    if (p->steps[i].transfer) t++;
    else if (p->steps[i].device == IR_DEVICE_GPU) g++;
    else c++;
  }
  if (n_gpu) *n_gpu = g;
  if (n_cpu) *n_cpu = c;
  if (n_transfer) *n_transfer = t;
}

static vkml_status step_error(int i, const ir_node *n, const char *what) {
  char d[160] = "?";
  if (n) ir_node_describe(n, d, sizeof d);
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "plan step %d (%s): %s", i, d, what);
}

static uint64_t bound_bytes(void *user, const ir_value *v) {
  const bool *bound = user;
  return bound[v->id] ? ir_type_device_bytes(&v->type, v->layout) : 0;
}

/* Whether a grid of groups workgroups is within what the node's tensors
 * imply. Every kernel gives each invocation at least one element of its
 * tensors or a share of one (a tile, a row, a pair of boxes): its grid has
 * at most a workgroup per element in all (the kernels measured have at most
 * one per ten), and a few for empty tensors. The bound is four times that,
 * plus IR_PLAN_GRID_SLACK: a grid past it (a damaged or forged plan) would
 * only launch workgroups with nothing to do, for as long as it takes. */
static bool grid_fits(const ir_node *n, const uint32_t groups[3]) {
  uint64_t elems = 0;
  for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
    const ir_value *v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
    int64_t e = ir_type_numel(&v->type);
    if (e > 0) elems += (uint64_t)e;
  }
  uint64_t g = (uint64_t)groups[0] * groups[1]; /* < 2^64 */
  if (groups[2] > 1 && g > UINT64_MAX / groups[2]) return false;
  g *= groups[2];
  return g <= 4 * elems + IR_PLAN_GRID_SLACK;
}

void ir_plan_mark_bound(const ir_plan *p, bool *bound) {
  for (int i = 0; i < p->n_steps; i++) {
    const ir_plan_step *s = &p->steps[i];
    if (s->device != IR_DEVICE_GPU) continue;
    for (int k = 0; k < s->n_bindings; k++) {
      int32_t id = ir_plan_step_bindings(p, s)[k];
      if (id >= 0) bound[id] = true;
    }
  }
}

/* The memory plan, when there is one: every intermediate a GPU step binds has
 * its bytes, nothing overlaps while live (ir_memplan_check). */
static vkml_status check_memory(const ir_plan *p, const ir_graph *g) {
  if (!p->mem.offsets) return VKML_OK;
  bool *bound = calloc((size_t)g->n_values + 1, sizeof *bound);
  if (!bound) return ir_oom(NULL);
  ir_plan_mark_bound(p, bound);
  vkml_status s = ir_memplan_check(&p->mem, g, bound_bytes, bound);
  free(bound);
  return s;
}

/* Where a step leaves its outputs: the device, or the host after a download
 * (an upload's output is on the device). */
static ir_device step_side(const ir_plan_step *s) {
  if (s->transfer == IR_TRANSFER_UPLOAD) return IR_DEVICE_GPU;
  if (s->transfer == IR_TRANSFER_DOWNLOAD) return IR_DEVICE_CPU;
  return s->device;
}

/* Values cross between host and device only through transfer steps (the
 * executor makes no hidden copies): every input a step reads was left on
 * its side, unless it is a graph input or a constant (the executor holds
 * those on both sides). Steps are in graph order (checked before). */
static vkml_status check_crossings(const ir_plan *p, const ir_graph *g) {
  ir_device *side = calloc((size_t)g->n_values + 1, sizeof *side);
  if (!side) return ir_oom(NULL);
  vkml_status st = VKML_OK;
  int i = 0;
  ir_foreach_node(g, n) {
    const ir_plan_step *s = &p->steps[i];
    /* a transfer reads on the other side */
    ir_device want = s->transfer == IR_TRANSFER_DOWNLOAD ? IR_DEVICE_GPU
                     : s->transfer == IR_TRANSFER_UPLOAD ? IR_DEVICE_CPU
                                                         : s->device;
    for (int k = 0; k < n->n_inputs && !st; k++) {
      const ir_value *v = n->inputs[k];
      if (!v->producer || side[v->id] == want) continue;
      char what[200];
      snprintf(what, sizeof what, "reads %%%s on the %s, but it was left on the %s (no %s)",
               v->name, want == IR_DEVICE_GPU ? "GPU" : "CPU",
               side[v->id] == IR_DEVICE_GPU ? "GPU" : "CPU",
               want == IR_DEVICE_GPU ? "upload" : "download");
      st = step_error(i, n, what);
    }
    if (st) break;
    for (int k = 0; k < n->n_outputs; k++) side[n->outputs[k]->id] = step_side(s);
    i++;
  }
  free(side);
  return st;
}

vkml_status ir_plan_check(const ir_plan *p, const ir_graph *g) {
  if (p->graph_nodes != g->n_nodes || p->graph_values != g->n_values)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "the plan was built for a graph of %d nodes and %d values, "
                            "not @%s (%d nodes, %d values)",
                            (int)p->graph_nodes, (int)p->graph_values, g->name ? g->name : "",
                            g->n_nodes, g->n_values);
  if (p->strings_bytes == 0 || p->strings[p->strings_bytes - 1] != 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "plan: bad string pool");
  int i = 0;
  ir_foreach_node(g, n) {
    if (i == p->n_steps)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "the plan has %d steps, the graph more nodes", p->n_steps);
    const ir_plan_step *s = &p->steps[i];
    if (s->node != n->id) return step_error(i, n, "is for another node");
    if (s->device == IR_DEVICE_GPU) {
      if (s->module < 0 || s->module >= p->n_modules)
        return step_error(i, n, "module index out of range");
      int n_io = n->n_inputs + n->n_outputs;
      if ((s->n_bindings != n_io && s->n_bindings != n_io + 1) || s->bindings < 0 ||
          s->bindings > p->n_bindings - s->n_bindings)
        return step_error(i, n, "bindings do not match the node");
      const int32_t *b = ir_plan_step_bindings(p, s);
      if (s->n_bindings > n_io && b[n_io] != IR_PLAN_ERROR_BINDING)
        return step_error(i, n, "bindings do not match the node");
      for (int k = 0; k < n_io; k++) {
        const ir_value *v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (b[k] != v->id) return step_error(i, n, "bindings do not match the node");
      }
      if (s->n_spec < 0 || s->spec < 0 || s->spec > p->n_specs - s->n_spec)
        return step_error(i, n, "specialization constants out of range");
      if (s->push < 0 || (uint64_t)s->push + s->push_bytes > p->push_bytes)
        return step_error(i, n, "push constants out of range");
      if (!s->groups[0] || !s->groups[1] || !s->groups[2])
        return step_error(i, n, "empty workgroup grid");
      if (!grid_fits(n, s->groups)) {
        char what[160];
        snprintf(what, sizeof what,
                 "a grid of %u x %u x %u workgroups, more than its tensors' sizes imply",
                 s->groups[0], s->groups[1], s->groups[2]);
        return step_error(i, n, what);
      }
      if (s->flags & ~(uint32_t)IR_STEP_FLAGS_ALL) return step_error(i, n, "unknown flags");
      if ((s->flags & IR_STEP_COPY_IN0) &&
          (n->n_inputs < 1 || n->n_outputs < 1 ||
           !ir_type_equal(&n->inputs[0]->type, &n->outputs[0]->type) ||
           n->inputs[0]->layout != n->outputs[0]->layout))
        return step_error(i, n, "copies input 0 into an output of another type");
      int from = IR_STEP_EXTENT_INPUT(s->flags);
      if ((s->flags & IR_STEP_EXTENT_KERNEL) && from < 0)
        return step_error(i, n, "copies an extent word in its kernel without a source");
      if (from >= 0) {
        const ir_type *x = from < n->n_inputs ? &n->inputs[from]->type : NULL;
        bool ok = x && x->bounded && n->n_outputs > 0;
        for (int k = 0; ok && k < n->n_outputs; k++) {
          const ir_type *y = &n->outputs[k]->type;
          ok = y->bounded && y->dims[y->bounded_axis] == x->dims[x->bounded_axis];
        }
        if (!ok)
          return step_error(i, n, "takes an extent word from an input that is no bounded one "
                                  "of its outputs' capacity");
      }
    } else if (s->device != IR_DEVICE_CPU) {
      return step_error(i, n, "unknown device");
    } else if (s->transfer != IR_TRANSFER_NONE &&
               !(s->transfer == IR_TRANSFER_DOWNLOAD && n->op == IR_OP_DOWNLOAD) &&
               !(s->transfer == IR_TRANSFER_UPLOAD && n->op == IR_OP_UPLOAD)) {
      return step_error(i, n, "a transfer step for a node that is no download or upload");
    } else if (s->transfer == IR_TRANSFER_NONE &&
               (n->op == IR_OP_DOWNLOAD || n->op == IR_OP_UPLOAD)) {
      return step_error(i, n, "a download or upload that is no transfer step");
    } else {
      for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
        const ir_value *v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (v->layout != IR_LAYOUT_DEFAULT)
          return step_error(i, n, "runs on the CPU but binds a packed value");
      }
    }
    i++;
  }
  if (i != p->n_steps)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "the plan has %d steps, the graph %d nodes", p->n_steps, i);
  VKML_RETURN_IF_ERROR(check_crossings(p, g));
  /* host tensors are row-major: what crosses to the host must be too */
  for (int k = 0; k < g->n_inputs + g->n_outputs; k++) {
    const ir_value *v = k < g->n_inputs ? g->inputs[k] : g->outputs[k - g->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "graph %s %%%s is in layout %s; graph edges must be row-major "
                              "(the plan needs a reorder there)",
                              k < g->n_inputs ? "input" : "output", v->name,
                              ir_layout_name(v->layout));
  }
  /* constants are uploaded as stored: row-major, or (nhwc) a GPU conv2d's
   * weights stored tap-major (pass_layout), which only such convs read */
  ir_foreach_value(g, v) if (ir_value_is_const(v) && v->layout != IR_LAYOUT_DEFAULT &&
                             v->layout != IR_LAYOUT_NHWC)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "constant %%%s is in layout %s; constants are uploaded row-major",
                            v->name, ir_layout_name(v->layout));
  ir_foreach_node(g, n) for (int j = 0; j < n->n_inputs; j++) {
    const ir_value *v = n->inputs[j];
    if (v && ir_value_is_const(v) && v->layout == IR_LAYOUT_NHWC &&
        (n->op != IR_OP_CONV2D || j != 1 || n->device != IR_DEVICE_GPU))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "constant %%%s is stored tap-major (nhwc); only a GPU conv2d's "
                              "weights may be, not input %d of %s",
                              v->name, j, ir_op_name(n->op));
  }
  return check_memory(p, g);
}
