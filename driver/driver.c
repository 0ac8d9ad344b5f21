/* The compile, top to bottom (driver.h): import, the pass pipeline, the
 * plan, the artifact; and the callbacks each stage is handed. Only this
 * file calls pass_pipeline_run and cg_plan_build. */
#include "driver/driver.h"

#include <stdio.h>

#include "passes/pipeline.h"
#include "passes/plan_memory.h"
#include "runtime/cpu/cpu_kernels.h"

static const drv_opts no_opts;

vkml_status drv_compile(const drv_source *src, const ir_target *t, const drv_opts *o,
                        const char *artifact_path, drv_report *rep, ir_plan **out) {
  if (out) *out = NULL;
  ir_graph *g = NULL;
  ir_plan *plan = NULL;
  vkml_status s = drv_import(src, o, &g);
  if (!s) s = drv_passes(g, t, o);
  if (!s) s = drv_plan(&g, t, o, rep, &plan);
  if (!s && artifact_path) s = drv_artifact_write(plan, t, o, artifact_path);
  ir_graph_destroy(g);
  if (!s && out) *out = plan;
  else ir_plan_destroy(plan);
  return s;
}

vkml_status drv_compile_graph(ir_graph **g, const ir_target *t, const drv_opts *o,
                              drv_report *rep, ir_plan **out) {
  *out = NULL;
  VKML_RETURN_IF_ERROR(drv_passes(*g, t, o));
  return drv_plan(g, t, o, rep, out);
}

vkml_status drv_passes(ir_graph *g, const ir_target *t, const drv_opts *o) {
  if (!o) o = &no_opts;
  pass_pipeline_opts pp = {
      .pass = {.eval = rt_cpu_eval_node, .precision = o->precision, .winograd = o->winograd,
               .no_split_k = o->split_k_off,
               .split_k_factor = o->split_k_factor,
               .no_fuse_attention = o->attention_off,
               .fuse_attention_all = o->attention_all},
      .dump_after = o->dump_after && *o->dump_after ? o->dump_after : NULL,
      .dump = o->dump,
      .no_optimize = o->no_opt,
  };
  cg_query q; /* placement and layout ask codegen about the target's kernels */
  if (t) {
    cg_query_init(&q, t, o->cpu_ops);
    pp.pass.place = cg_query_place;
    pp.pass.place_user = &q;
    pp.pass.fallback_never = o->fallback_never;
    pp.pass.target = t;
    pp.pass.layout = o->layout;
    pp.pass.layout_auto = o->layout_auto;
    pp.pass.layout_operands = cg_query_layout_operands;
    pp.pass.layout_weights = cg_query_layout_weights;
    pp.pass.layout_user = &q;
  }
  return pass_pipeline_run(g, &pp);
}

vkml_status drv_plan(ir_graph **g, const ir_target *t, const drv_opts *o, drv_report *rep,
                     ir_plan **out) {
  *out = NULL;
  if (!o) o = &no_opts;
  if (rep) *rep = (drv_report){0};
  cg_plan_opts po = {.precision = o->precision,
                     .compiler = o->compiler,
                     .plan_memory = pass_plan_memory,
                     .memory_planner = o->memory_planner,
                     .choose = o->choose,
                     .choose_user = o->choose_user};
  tunedb *db = NULL;
  drv_db_chooser chooser;
  if (!o->choose && o->db) {
    tunedb_open_opts dbo = {.flags = TUNEDB_OPEN_READONLY};
    VKML_RETURN_IF_ERROR(tunedb_open(o->db, &dbo, &db));
    drv_db_chooser_init(&chooser, db, t);
    po.choose = drv_db_choose;
    po.choose_user = &chooser;
  }
  vkml_status s = cg_plan_build(*g, t, &po, out);
  if (!s) *g = NULL; /* the plan's now */
  if (db) {
    if (!s) s = chooser.error;
    else vkml_status_free(chooser.error);
    if (!s && rep) *rep = chooser.counts;
    tunedb_close(db);
  }
  if (s) {
    ir_plan_destroy(*out);
    *out = NULL;
  }
  return s;
}

vkml_status drv_memory_stats_get(const ir_plan *plan, const ir_target *t, drv_memory_stats *out) {
  *out = (drv_memory_stats){0};
  for (int i = 0; i < IR_MEMPLAN_COUNT; i++) {
    ir_memplan m;
    VKML_RETURN_IF_ERROR(cg_plan_memory(plan, t, pass_plan_memory, (ir_memplan_strategy)i, &m));
    out->bytes[i] = m.arena_bytes;
    out->n_objects[i] = m.n_objects;
    out->lower_bound = m.lower_bound;
    out->alignment = m.alignment;
    ir_memplan_free(&m);
  }
  return VKML_OK;
}
