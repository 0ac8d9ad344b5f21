/* Graph -> ir_plan: what the placement and layout passes ask, and kernel
 * compilation (see codegen/core/plan.h). */
#include "codegen/core/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "codegen/core/extent.h"
#include "codegen/core/staged.h"
#include "codegen/kernels/conv2d.h"
#include "ir/text.h"
#include "ir/util.h"

/* ---- placement and compilation ----------------------------------------------- */

static vkml_status choose_default(void *user, const ir_node *n, const ir_target *t,
                                  cg_kernel *out) {
  (void)user;
  return cg_kernel_for_node(n, NULL, NULL, t, out);
}

/* Modules compiled in this build, by template and defines, so that identical
 * kernels (same shapes differ only in specialization constants) compile once. */
typedef struct module_memo {
  char **keys;
  int32_t *index;
  int n, cap;
} module_memo;

static void memo_free(module_memo *m) {
  for (int i = 0; i < m->n; i++) free(m->keys[i]);
  free(m->keys);
  free(m->index);
}

static char *kernel_source_key(const cg_kernel *k) {
  size_t n = strlen(k->source_name) + 16;
  for (int i = 0; i < k->n_defines; i++) n += strlen(k->def_name[i]) + strlen(k->def_value[i]) + 2;
  char *s = malloc(n);
  if (!s) return NULL;
  size_t o = (size_t)snprintf(s, n, "%s|O%d", k->source_name, (int)k->opt);
  for (int i = 0; i < k->n_defines; i++)
    o += (size_t)snprintf(s + o, n - o, "|%s=%s", k->def_name[i], k->def_value[i]);
  return s;
}

static vkml_status module_for(ir_plan *p, cg_compiler *cc, module_memo *m, const cg_kernel *k,
                              int32_t *index) {
  char *key = kernel_source_key(k);
  if (!key) return ir_oom(NULL);
  for (int i = 0; i < m->n; i++)
    if (!strcmp(m->keys[i], key)) {
      free(key);
      *index = m->index[i];
      return VKML_OK;
    }
  if (m->n == m->cap) {
    int ncap = m->cap ? 2 * m->cap : 16;
    char **nk = realloc(m->keys, sizeof *nk * (size_t)ncap);
    if (nk) m->keys = nk;
    int32_t *ni = nk ? realloc(m->index, sizeof *ni * (size_t)ncap) : NULL;
    if (ni) m->index = ni;
    if (!nk || !ni) {
      free(key);
      return ir_oom(NULL);
    }
    m->cap = ncap;
  }
  cg_spirv spv = {0};
  vkml_status s = cg_kernel_compile(cc, k, &spv);
  if (!s) s = ir_plan_add_module(p, k->source_name, spv.words, spv.bytes, index);
  cg_spirv_free(&spv);
  if (s) {
    free(key);
    return s;
  }
  m->keys[m->n] = key;
  m->index[m->n++] = *index;
  return VKML_OK;
}

/* Why n cannot go to the GPU before asking for a kernel, or NULL. */
static const char *cpu_only_reason(const ir_node *n, const ir_target *t, const bool *forced,
                                   char *buf, size_t bytes) {
  if (forced[n->op]) return "forced onto the CPU (--cpu-ops)";
  /* every kernel binds one storage buffer per operand (codegen/core/ops.h) */
  if (t->max_storage_buffers_per_stage &&
      (uint64_t)n->n_inputs + (uint64_t)n->n_outputs > t->max_storage_buffers_per_stage) {
    snprintf(buf, bytes,
             "binds %d storage buffers; the device allows %u per shader stage "
             "(maxPerStageDescriptorStorageBuffers)",
             n->n_inputs + n->n_outputs, t->max_storage_buffers_per_stage);
    return buf;
  }
  /* bounded operands: a node over bounded rows (codegen/core/extent.h), or one of the
   * few kernels that write or read extent words (codegen/core/staged.h) */
  int rows = cg_rows_extent_input(n);
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    /* a bounded output is written with its extent word by the few kernels
     * that can (codegen/core/staged.h) */
    if (v->type.bounded && rows < 0 &&
        !(ir_op_get(n->op)->flags &
          (i >= n->n_inputs ? IR_OPF_WRITES_EXTENT : IR_OPF_READS_EXTENT))) {
      snprintf(buf, bytes, "%%%s has a data-dependent (bounded) shape", v->name);
      return buf;
    }
    if (t->max_storage_buffer_range &&
        (uint64_t)ir_type_bytes(&v->type) > t->max_storage_buffer_range) {
      snprintf(buf, bytes, "%%%s (%lld bytes) exceeds the device's storage-buffer range",
               v->name, (long long)ir_type_bytes(&v->type));
      return buf;
    }
  }
  return NULL;
}

/* ---- what the passes ask (pass_opts callbacks) ---------------------------------- */

void cg_query_init(cg_query *q, const ir_target *t, const bool *cpu_ops) {
  q->t = t;
  for (int i = 0; i < IR_OP_COUNT; i++) q->forced[i] = cpu_ops && cpu_ops[i];
}

const char *cg_query_place(void *user, const ir_node *n, char *why, size_t bytes) {
  const cg_query *q = user;
  const char *reason = cpu_only_reason(n, q->t, q->forced, why, bytes);
  if (reason) return reason;
  if (ir_op_get(n->op)->flags & IR_OPF_STAGED) return cg_staged_reason(n, q->t, why, bytes);
  cg_kernel *k = malloc(sizeof *k);
  if (!k) {
    snprintf(why, bytes, "out of host memory asking for its GPU kernel");
    return why;
  }
  /* asked in the default layout: placement comes before the layout pass,
   * which packs only what the placed kernels take packed (an annotated
   * layout the kernel cannot take becomes a reorder, not a CPU node) */
  int nv = n->n_inputs + n->n_outputs;
  ir_value *vals = malloc(sizeof *vals * (size_t)(nv ? nv : 1));
  ir_value **ptrs = malloc(sizeof *ptrs * (size_t)(nv ? nv : 1));
  if (!vals || !ptrs) {
    free(vals);
    free(ptrs);
    free(k);
    snprintf(why, bytes, "out of host memory asking for its GPU kernel");
    return why;
  }
  ir_node rows = *n;
  for (int i = 0; i < nv; i++) {
    vals[i] = *(i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs]);
    vals[i].layout = IR_LAYOUT_DEFAULT;
    ptrs[i] = &vals[i];
  }
  rows.inputs = ptrs;
  rows.outputs = ptrs + n->n_inputs;
  vkml_status s = cg_kernel_for_node(&rows, NULL, NULL, q->t, k);
  free(vals);
  free(ptrs);
  if (vkml_status_code(s) == VKML_CODE_UNSUPPORTED) {
    snprintf(why, bytes, "%s", vkml_status_message(s));
    reason = why;
  } else if (!s && (!k->groups[0] || !k->groups[1] || !k->groups[2])) {
    reason = "the kernel's grid is empty";
  }
  /* any other error is a bug the plan build reports, naming the node */
  vkml_status_free(s);
  free(k);
  return reason;
}

static bool on_gpu(const cg_query *q, const ir_node *n) {
  char why[256];
  return n->device != IR_DEVICE_CPU && !cpu_only_reason(n, q->t, q->forced, why, sizeof why);
}

uint32_t cg_query_layout_operands(void *user, const ir_node *n, ir_layout l) {
  const cg_query *q = user;
  return on_gpu(q, n) ? cg_node_layout_operands_on(n, l, q->t) : 0;
}

uint32_t cg_query_layout_weights(void *user, const ir_node *n, ir_layout l) {
  const cg_query *q = user;
  if (l != IR_LAYOUT_NHWC || n->op != IR_OP_CONV2D) return 0; /* a conv2d's w only */
  return on_gpu(q, n) ? cg_conv2d_weight_layouts(n, q->t) : 0;
}

/* ---- steps -------------------------------------------------------------------- */

static vkml_status gpu_step(ir_plan *p, const ir_node *n, const ir_target *t,
                            const cg_plan_opts *o, cg_compiler *cc, module_memo *memo,
                            cg_kernel *k) {
  cg_kernel_chooser choose = o->choose ? o->choose : choose_default;
  vkml_status s = choose(o->choose_user, n, t, k);
  if (s && n->device == IR_DEVICE_UNPLACED)
    s = vkml_status_annotate(s, "unplaced; the placement pass (pass_place) puts such a node on "
                                "the CPU");
  VKML_RETURN_IF_ERROR(s);
  int n_io = n->n_inputs + n->n_outputs;
  if (k->n_buffers != n_io + (k->error_slot ? 1 : 0) || !k->tmpl || !k->source)
    return vkml_status_make(VKML_CODE_INTERNAL, "kernel %s binds %d buffers, the node %d%s",
                            k->key, k->n_buffers, n_io, k->error_slot ? " and an error slot" : "");
  if (!k->groups[0] || !k->groups[1] || !k->groups[2])
    return vkml_status_make(VKML_CODE_INTERNAL, "kernel %s: empty grid on the GPU", k->key);
  int32_t module;
  VKML_RETURN_IF_ERROR(module_for(p, cc, memo, k, &module));
  int32_t bind[128];
  ir_plan_spec spec[CG_MAX_SPEC];
  if (n_io >= 128) return vkml_status_make(VKML_CODE_UNSUPPORTED, "more than 127 operands");
  for (int i = 0; i < n->n_inputs; i++) bind[i] = n->inputs[i]->id;
  for (int i = 0; i < n->n_outputs; i++) bind[n->n_inputs + i] = n->outputs[i]->id;
  if (k->error_slot) bind[n_io] = IR_PLAN_ERROR_BINDING;
  for (int i = 0; i < k->n_spec; i++) spec[i] = (ir_plan_spec){k->spec_id[i], k->spec_value[i]};
  char sched[256];
  cg_schedule_format(k->tmpl, &k->schedule, sched, sizeof sched);
  ir_plan_gpu_desc d = {
      .node = n->id,
      .module = module,
      .bindings = bind,
      .n_bindings = k->n_buffers,
      .specs = spec,
      .n_specs = k->n_spec,
      .push = NULL, /* cg_kernel carries no push-constant data yet */
      .push_bytes = k->push_bytes,
      .groups = {k->groups[0], k->groups[1], k->groups[2]},
      .flags = (k->copy_input0 ? IR_STEP_COPY_IN0 : 0) |
               (k->extent_from ? IR_STEP_EXTENT_FROM(k->extent_from - 1) : 0) |
               (k->extent_from && k->extent_in_kernel ? IR_STEP_EXTENT_KERNEL : 0),
      .key = k->key,
      .tmpl = k->tmpl->name,
      .schedule = sched,
  };
  return ir_plan_add_gpu_step(p, &d);
}

/* A CPU step; host tensors are row-major, so n may not bind packed values. */
static vkml_status cpu_step(ir_plan *p, const ir_node *n) {
  const char *reason = ir_node_string(n, IR_A_CPU_REASON);
  if (!reason) reason = "placed on the CPU in the IR (@cpu)";
  for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
    const ir_value *v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    if (v->layout != IR_LAYOUT_DEFAULT)
      return vkml_status_make(VKML_CODE_UNSUPPORTED,
                              "%%%s is in layout %s but the node runs on the CPU (%s)", v->name,
                              ir_layout_name(v->layout), reason);
  }
  return ir_plan_add_cpu_step(p, n->id, reason);
}

/* The step of n, as the placement passes left it. */
static vkml_status add_step(ir_plan *p, const ir_node *n, const ir_target *t,
                            const cg_plan_opts *o, cg_compiler *cc, module_memo *memo,
                            cg_kernel *k) {
  if (n->op == IR_OP_DOWNLOAD) return ir_plan_add_transfer_step(p, n->id, IR_TRANSFER_DOWNLOAD);
  if (n->op == IR_OP_UPLOAD) return ir_plan_add_transfer_step(p, n->id, IR_TRANSFER_UPLOAD);
  if (n->device == IR_DEVICE_CPU) return cpu_step(p, n);
  return gpu_step(p, n, t, o, cc, memo, k);
}

/* ---- memory ------------------------------------------------------------------ */

static uint64_t gpu_bound_bytes(void *user, const ir_value *v) {
  const bool *bound = user;
  if (!bound[v->id]) return 0;
  return ir_type_device_bytes(&v->type, v->layout);
}

/* The memory plan of p over graph pg (p->graph once the plan is built). */
static vkml_status plan_memory(const ir_plan *p, const ir_graph *pg, const ir_target *t,
                               ir_memplan_fn planner, ir_memplan_strategy strategy,
                               ir_memplan *out) {
  memset(out, 0, sizeof *out);
  if (!planner) return VKML_OK;
  bool *bound = calloc((size_t)pg->n_values + 1, sizeof *bound);
  if (!bound) return ir_oom(NULL);
  ir_plan_mark_bound(p, bound);
  uint64_t align = t->min_storage_buffer_offset_alignment ? t->min_storage_buffer_offset_alignment : 1;
  ir_memplan_opts mo = {
      .strategy = strategy, .alignment = align, .size = gpu_bound_bytes, .user = bound};
  vkml_status s = planner(pg, &mo, out);
#ifndef NDEBUG
  /* the independent check, in debug builds (ir_plan_check repeats it before
   * a plan runs) */
  if (!s) s = ir_memplan_check(out, pg, gpu_bound_bytes, bound);
  if (s) ir_memplan_free(out);
#endif
  free(bound);
  return s;
}

vkml_status cg_plan_memory(const ir_plan *p, const ir_target *t, ir_memplan_fn planner,
                           ir_memplan_strategy strategy, ir_memplan *out) {
  return plan_memory(p, p->graph, t, planner, strategy, out);
}

vkml_status cg_plan_build(ir_graph *g, const ir_target *t, const cg_plan_opts *opts,
                          ir_plan **out) {
  *out = NULL;
  cg_plan_opts o = opts ? *opts : (cg_plan_opts){0};
  if (o.precision != IR_PRECISION_FP32 && o.precision != IR_PRECISION_FP16)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "unknown precision %d", (int)o.precision);
  if (o.precision == IR_PRECISION_FP16 && !t->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "fp16 precision needs 16-bit storage buffers, which %s lacks",
                            t->name);
  ir_plan *p = NULL;
  cg_compiler *own = NULL;
  module_memo memo = {0};
  cg_kernel *k = malloc(sizeof *k);
  vkml_status s = k ? ir_plan_create(&p) : ir_oom(NULL);
  if (s) goto out;
  p->precision = o.precision;
  const ir_graph *pg = g;
  p->graph_nodes = pg->n_nodes;
  p->graph_values = pg->n_values;
  cg_compiler *cc = o.compiler;
  if (!cc) {
    s = cg_compiler_create(&(cg_compiler_opts){0}, &own);
    if (s) goto out;
    cc = own;
  }
  ir_foreach_node(pg, n) {
    s = add_step(p, n, t, &o, cc, &memo, k);
    if (s) {
      char d[160];
      ir_node_describe(n, d, sizeof d);
      s = vkml_status_annotate(s, "%s", d);
      goto out;
    }
  }
  s = plan_memory(p, pg, t, o.plan_memory, o.memory_planner, &p->mem);
  /* a placement that leaves a crossing without its transfer fails here,
   * not when the plan runs */
  if (!s) s = ir_plan_check(p, pg);
out:
  memo_free(&memo);
  cg_compiler_destroy(own);
  free(k);
  if (s) {
    ir_plan_destroy(p); /* its graph is still NULL: g stays the caller's */
    return s;
  }
  p->graph = g;
  *out = p;
  return VKML_OK;
}
