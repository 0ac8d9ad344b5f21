/* The pass pipeline (see pipeline.h): verify, then each pass by name, in
 * the order below; verify after each in debug builds; dump on request. */
#include "passes/pipeline.h"

#include <string.h>

#include "ir/text.h"

/* Every pass the pipeline knows, by name: the one table of pass names
 * (--dump-after, the golden tests). */
static const struct {
  const char *name;
  pass_fn fn;
} PASSES[] = {
    {"fold_constants", pass_fold_constants},
    {"remove_identities", pass_remove_identities},
    {"dce", pass_dce},
    {"fuse_bias", pass_fuse_bias},
    {"hoist_channelwise", pass_hoist_channelwise},
    {"fold_batchnorm", pass_fold_batchnorm},
    {"merge_pad", pass_merge_pad},
    {"fuse_activation", pass_fuse_activation},
    {"fuse_attention", pass_fuse_attention},
    {"split_k_gemm", pass_split_k_gemm},
    {"fuse_elementwise", pass_fuse_elementwise},
    {"fuse_copies", pass_fuse_copies},
    {"attention_views", pass_attention_views},
    {"bound_topk", pass_bound_topk},
    {"winograd", pass_winograd},
    {"fp16", pass_fp16},
    {"split_nonzero", pass_split_nonzero},
    {"split_scan", pass_split_scan},
    {"split_reduce", pass_split_reduce},
    {"split_topk", pass_split_topk},
    {"split_nms", pass_split_nms},
    {"split_sort", pass_split_sort},
    {"split_k", pass_split_k},
    {"place", pass_place},
    {"layout", pass_layout},
    {"insert_transfers", pass_insert_transfers},
};
enum { N_PASSES = sizeof PASSES / sizeof PASSES[0] };

static vkml_status unknown_pass(const char *name) {
  char list[512];
  size_t o = 0;
  for (int i = 0; i < N_PASSES; i++)
    o += (size_t)snprintf(list + o, sizeof list - o, "%s, ", PASSES[i].name);
  snprintf(list + o, sizeof list - o, "all");
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "unknown pass '%s' (passes: %s)", name,
                          list);
}

vkml_status pass_check_dump_name(const char *name) {
  if (!name || !strcmp(name, "all")) return VKML_OK;
  for (int i = 0; i < N_PASSES; i++)
    if (!strcmp(PASSES[i].name, name)) return VKML_OK;
  return unknown_pass(name);
}

vkml_status pass_run_verified(ir_graph *g, const char *name, pass_fn fn, const pass_opts *opts,
                              bool *changed) {
  VKML_RETURN_IF_ERROR(vkml_status_annotate(fn(g, opts, changed), "pass %s", name));
  vkml_status s = ir_verify(g, NULL);
  if (!s) return VKML_OK;
  vkml_status e = vkml_status_make(VKML_CODE_INTERNAL, "pass %s broke the graph: %s", name,
                                   vkml_status_message(s));
  vkml_status_free(s);
  return e;
}

vkml_status pass_run_by_name(ir_graph *g, const char *name, const pass_opts *opts,
                             bool *changed) {
  for (int i = 0; i < N_PASSES; i++)
    if (!strcmp(PASSES[i].name, name))
      return pass_run_verified(g, name, PASSES[i].fn, opts, changed);
  return unknown_pass(name);
}

typedef struct pipeline_run {
  ir_graph *g;
  const pass_pipeline_opts *o;
  bool verify;
} pipeline_run;

static const char *name_of(pass_fn fn) {
  for (int i = 0; i < N_PASSES; i++)
    if (PASSES[i].fn == fn) return PASSES[i].name;
  return "?";
}

/* One pass: run, verify, dump. */
static vkml_status step(pipeline_run *r, pass_fn fn) {
  const char *name = name_of(fn);
  bool changed = false;
  if (r->verify) VKML_RETURN_IF_ERROR(pass_run_verified(r->g, name, fn, &r->o->pass, &changed));
  else VKML_RETURN_IF_ERROR(vkml_status_annotate(fn(r->g, &r->o->pass, &changed), "pass %s", name));
  const char *d = r->o->dump_after;
  if (d && (!strcmp(d, "all") || !strcmp(d, name))) {
    FILE *f = r->o->dump ? r->o->dump : stderr;
    fprintf(f, "# after %s%s\n", name, changed ? "" : " (no change)");
    VKML_RETURN_IF_ERROR(ir_print_file(r->g, f));
  }
  return VKML_OK;
}

vkml_status pass_pipeline_run(ir_graph *g, const pass_pipeline_opts *opts) {
  pass_pipeline_opts none = {0};
  const pass_pipeline_opts *o = opts ? opts : &none;
  pipeline_run r = {.g = g, .o = o, .verify = o->verify_each};
#ifndef NDEBUG
  r.verify = true;
#endif
  VKML_RETURN_IF_ERROR(pass_check_dump_name(r.o->dump_after));
  VKML_RETURN_IF_ERROR(ir_verify(g, NULL));
  if (!o->no_optimize) {
    VKML_RETURN_IF_ERROR(step(&r, pass_fold_constants));
    VKML_RETURN_IF_ERROR(step(&r, pass_remove_identities));
    VKML_RETURN_IF_ERROR(step(&r, pass_dce));
    VKML_RETURN_IF_ERROR(step(&r, pass_fuse_bias));
    VKML_RETURN_IF_ERROR(step(&r, pass_hoist_channelwise));
    VKML_RETURN_IF_ERROR(step(&r, pass_fold_batchnorm));
    VKML_RETURN_IF_ERROR(step(&r, pass_merge_pad));
    VKML_RETURN_IF_ERROR(step(&r, pass_fuse_activation));
    VKML_RETURN_IF_ERROR(step(&r, pass_fuse_attention));
    VKML_RETURN_IF_ERROR(step(&r, pass_split_k_gemm));
    VKML_RETURN_IF_ERROR(step(&r, pass_fuse_elementwise));
    VKML_RETURN_IF_ERROR(step(&r, pass_fuse_copies));
    VKML_RETURN_IF_ERROR(step(&r, pass_attention_views));
  }
  VKML_RETURN_IF_ERROR(step(&r, pass_bound_topk));
  VKML_RETURN_IF_ERROR(step(&r, pass_winograd));
  VKML_RETURN_IF_ERROR(step(&r, pass_fp16));
  VKML_RETURN_IF_ERROR(step(&r, pass_split_nonzero));
  VKML_RETURN_IF_ERROR(step(&r, pass_split_scan));
  VKML_RETURN_IF_ERROR(step(&r, pass_split_reduce));
  VKML_RETURN_IF_ERROR(step(&r, pass_split_topk));
  VKML_RETURN_IF_ERROR(step(&r, pass_split_nms));
  VKML_RETURN_IF_ERROR(step(&r, pass_split_sort));
  if (!o->no_optimize) VKML_RETURN_IF_ERROR(step(&r, pass_split_k));
  VKML_RETURN_IF_ERROR(step(&r, pass_place));
  VKML_RETURN_IF_ERROR(step(&r, pass_layout));
  VKML_RETURN_IF_ERROR(step(&r, pass_insert_transfers));
  if (!o->no_optimize) VKML_RETURN_IF_ERROR(step(&r, pass_dce));
  /* the weights the final graph reads, and no others (what the artifact
   * stores and a run maps) */
  return ir_graph_blob_compact(g, NULL);
}
