/* Shared helpers of the Vulkan tests (see vk_test.h). */
#define _XOPEN_SOURCE 700
#include "vk_test.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_support.h"

rt_vk_context *vt_context_opts(rt_vk_context_opts *o) {
  vt_pin_vulkan_libs();
  o->validation = true;
  o->validation_sync = true; /* barriers are checked too */
  rt_vk_context *ctx = NULL;
  T_OK(rt_vk_context_create(o, &ctx));
  vt_assert_clean(ctx);
  return ctx;
}

rt_vk_context *vt_context(const char *cache_dir) {
  rt_vk_context_opts o = {0};
  o.cache_dir = cache_dir;
  o.no_pipeline_cache = cache_dir == NULL;
  return vt_context_opts(&o);
}

void vt_assert_clean(const rt_vk_context *ctx) {
  rt_vk_report r;
  rt_vk_context_report(ctx, &r);
  cr_assert(r.n_errors == 0 && r.n_warnings == 0,
            "validation: %u errors, %u warnings; first: %s", r.n_errors, r.n_warnings,
            r.first_message);
}

void vt_destroy(rt_vk_context *ctx) {
  rt_vk_report r;
  rt_vk_context_destroy(ctx, &r);
  cr_assert(r.n_errors == 0 && r.n_warnings == 0,
            "validation: %u errors, %u warnings; first: %s", r.n_errors, r.n_warnings,
            r.first_message);
  cr_assert_eq(r.n_leaked, 0, "%d vkml Vulkan objects leaked", r.n_leaked);
}

char *vt_tempdir(void) {
  char tmpl[] = "/tmp/vkml-vktest-XXXXXX";
  char *d = mkdtemp(tmpl);
  cr_assert(d, "mkdtemp failed");
  return strdup(d);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void vt_rmdir(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* The run's shared SPIR-V cache directory: criterion's runner is the parent
 * of every test process (and runs the report hooks itself). */
static void spirv_dir(char *buf, size_t bytes, long runner) {
  snprintf(buf, bytes, "/tmp/vkml-vktest-spirv-%ld", runner);
}

cg_compiler *vt_compiler(void) {
  char dir[64];
  spirv_dir(dir, sizeof dir, (long)getppid());
  cg_compiler_opts o = {.cache_dir = dir};
  cg_compiler *cc = NULL;
  T_OK(cg_compiler_create(&o, &cc));
  return cc;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats) {
  (void)stats;
  char dir[64];
  spirv_dir(dir, sizeof dir, (long)getpid());
  vt_rmdir(dir);
}

vkml_status vt_plan_build(const ir_graph *g, const ir_target *t, const drv_opts *o,
                          ir_layout layout, const char *cpu_ops, ir_plan **out) {
  *out = NULL;
  bool forced[IR_OP_COUNT];
  drv_opts d = *o;
  d.layout = layout;
  d.cpu_ops = forced;
  d.no_opt = true; /* the nodes the tests place stay as they are */
  ir_graph *h = NULL;
  vkml_status s = drv_op_list_parse(cpu_ops, "--cpu-ops", forced);
  if (!s) s = ir_graph_clone(g, &h);
  if (!s) s = drv_compile_graph(&h, t, &d, NULL, out);
  ir_graph_destroy(h); /* NULL once the plan owns it */
  return s;
}

ir_plan *vt_compile(const ir_target *t, cg_compiler *cc, ir_graph *g, const bool *cpu_ops,
                    ir_precision prec) {
  drv_opts o = {.precision = prec, .cpu_ops = cpu_ops, .compiler = cc};
  ir_plan *p;
  T_OK(drv_compile_graph(&g, t, &o, NULL, &p));
  return p;
}
