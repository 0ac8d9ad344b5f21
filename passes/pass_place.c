/* pass_place: device placement, pass 1 of 2 (passes/README.md). Tags every node
 * @gpu or @cpu. A node the IR already places @cpu stays there (with its
 * cpu_reason, or "placed on the CPU in the IR"); every other node asks the
 * injected callback (codegen's cg_query_place: --cpu-ops, no GPU kernel,
 * too many bindings for the device, a data-dependent shape, a tensor beyond
 * the storage-buffer range) and goes to the CPU with that reason in its
 * `cpu_reason` attribute, else to the GPU. Transfers already in the graph
 * keep their places. Pass 2 (pass_insert_transfers.c) adds the copies
 * between devices.
 *
 * With opts.fallback_never, any node on the CPU fails the pass: the error
 * lists each such node and its reason (users and CI that require all-GPU).
 * Without a callback nothing is placed (the CPU executor runs the graph). */
#include <stdio.h>
#include <string.h>

#include "passes/pass.h"

/* The most nodes a --fallback never error lists one by one. */
enum { LISTED_MAX = 20 };

static const char *const IN_IR = "placed on the CPU in the IR (@cpu)";

static vkml_status fallback_error(const ir_graph *g, int n_cpu) {
  char msg[4096];
  size_t o = (size_t)snprintf(msg, sizeof msg,
                              "%d node%s cannot run on the GPU (--fallback never):", n_cpu,
                              n_cpu == 1 ? "" : "s");
  int listed = 0;
  ir_foreach_node(g, n) {
    if (n->device != IR_DEVICE_CPU || n->op == IR_OP_DOWNLOAD) continue;
    if (listed++ == LISTED_MAX) {
      o += (size_t)snprintf(msg + o, o < sizeof msg ? sizeof msg - o : 0, "\n  ... and %d more",
                            n_cpu - LISTED_MAX);
      break;
    }
    char d[160];
    ir_node_describe(n, d, sizeof d);
    const char *why = ir_node_string(n, IR_A_CPU_REASON);
    if (n->line)
      o += (size_t)snprintf(msg + o, o < sizeof msg ? sizeof msg - o : 0, "\n  %d:%d: %s: %s",
                            n->line, n->col, d, why ? why : IN_IR);
    else
      o += (size_t)snprintf(msg + o, o < sizeof msg ? sizeof msg - o : 0, "\n  %s: %s", d,
                            why ? why : IN_IR);
  }
  return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s", msg);
}

vkml_status pass_place(ir_graph *g, const pass_opts *opts, bool *changed) {
  if (changed) *changed = false;
  if (!opts || !opts->place) return VKML_OK;
  int n_cpu = 0;
  ir_foreach_node(g, n) {
    if (n->op == IR_OP_DOWNLOAD || n->op == IR_OP_UPLOAD) continue;
    const char *reason = NULL;
    char why[512];
    if (n->device == IR_DEVICE_CPU)
      reason = ir_node_string(n, IR_A_CPU_REASON) ? NULL : IN_IR;
    else
      reason = opts->place(opts->place_user, n, why, sizeof why);
    if (n->device != IR_DEVICE_CPU) {
      ir_device d = reason ? IR_DEVICE_CPU : IR_DEVICE_GPU;
      if (changed && n->device != d) *changed = true;
      n->device = d;
    }
    if (reason) {
      VKML_RETURN_IF_ERROR(ir_node_set_string(g, n, IR_A_CPU_REASON, reason));
      if (changed) *changed = true;
    }
    if (n->device == IR_DEVICE_CPU) n_cpu++;
  }
  if (opts->fallback_never && n_cpu) return fallback_error(g, n_cpu);
  return VKML_OK;
}
