/* Schedules from the schedule database (driver.h): the chooser drv_plan
 * hands codegen for drv_opts.db, and the database's description of a
 * device. It sees one node at a time (cg_plan_build's hook); the workload
 * key comes from the default kernel, so a database written by vktune on any
 * machine matches. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "driver/driver.h"

void drv_device_from_target(const ir_target *t, tunedb_device *out, char *limits_json,
                            int limits_bytes) {
  memset(out, 0, sizeof *out);
  out->vendor_id = t->vendor_id;
  out->device_id = t->device_id;
  out->driver_version = t->driver_version;
  out->driver_id = t->driver_id;
  out->api_version = t->api_version;
  snprintf(out->name, sizeof out->name, "%s", t->name);
  memcpy(out->pipeline_cache_uuid, t->pipeline_cache_uuid, 16);
  if (limits_json) {
    snprintf(limits_json, (size_t)limits_bytes,
             "{\"subgroup_size\":%u,\"max_shared_bytes\":%u,\"max_workgroup_invocations\":%u,"
             "\"max_workgroup_size\":[%u,%u,%u],\"fp16\":%s,\"storage_16bit\":%s,"
             "\"coopmat_nv\":%s,\"coopmat_khr\":%s}",
             t->subgroup_size, t->max_shared_bytes, t->max_workgroup_invocations,
             t->max_workgroup_size[0], t->max_workgroup_size[1], t->max_workgroup_size[2],
             t->fp16_arith ? "true" : "false", t->storage_16bit ? "true" : "false",
             t->coopmat_nv ? "true" : "false", t->coopmat_khr ? "true" : "false");
    out->limits_json = limits_json;
  }
}

void drv_db_chooser_init(drv_db_chooser *c, tunedb *db, const ir_target *t) {
  memset(c, 0, sizeof *c);
  c->db = db;
  drv_device_from_target(t, &c->dev, NULL, 0);
}

/* The kernel of record r for n, or an error when r does not instantiate
 * here (a template or knob this build does not have, a refused point). */
static vkml_status from_record(const ir_node *n, const ir_target *t, const tunedb_record *r,
                               cg_kernel *out) {
  const cg_template *tm = cg_template_find(r->template_name);
  if (!tm)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "no template %s in this build",
                            r->template_name);
  cg_schedule s;
  VKML_RETURN_IF_ERROR(cg_schedule_parse(tm, r->schedule, &s));
  VKML_RETURN_IF_ERROR(cg_kernel_for_node(n, tm, &s, t, out));
  if (out->tmpl != tm)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "the node's family ignored template %s",
                            tm->name);
  return VKML_OK;
}

vkml_status drv_db_choose(void *user, const ir_node *n, const ir_target *t, cg_kernel *out) {
  drv_db_chooser *c = user;
  VKML_RETURN_IF_ERROR(cg_kernel_for_node(n, NULL, NULL, t, out));
  tunedb_nearness how = TUNEDB_NEAR_NONE;
  tunedb_record_list best = {0};
  vkml_status s = tunedb_nearest_best(c->db, &c->dev, out->key, &how, &best);
  if (s) {
    if (!c->error) c->error = s;
    else vkml_status_free(s);
    c->counts.n_default++;
    return VKML_OK;
  }
  cg_kernel k;
  if (best.n && !(s = from_record(n, t, &best.items[0], &k))) {
    *out = k;
    if (how == TUNEDB_NEAR_EXACT) c->counts.n_exact++;
    else c->counts.n_nearest++;
  } else {
    vkml_status_free(s);
    c->counts.n_default++;
  }
  tunedb_record_list_free(&best);
  return VKML_OK;
}
