/* Building plans from the schedule database: the chooser of tuner_tune.h.
 * It sees one node at a time (cg_plan_build's hook); the workload key comes
 * from the default kernel, so a database written by vktune on any machine
 * matches. */
#include <stdio.h>
#include <string.h>

#include "codegen/core/ops.h"
#include "tuner/tuner_tune.h"

void tuner_db_chooser_init(tuner_db_chooser *c, tunedb *db, const ir_target *t) {
  memset(c, 0, sizeof *c);
  c->db = db;
  tuner_device_from_target(t, &c->dev, NULL, 0);
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

vkml_status tuner_db_choose(void *user, const ir_node *n, const ir_target *t, cg_kernel *out) {
  tuner_db_chooser *c = user;
  VKML_RETURN_IF_ERROR(cg_kernel_for_node(n, NULL, NULL, t, out));
  tunedb_nearness how = TUNEDB_NEAR_NONE;
  tunedb_record_list best = {0};
  vkml_status s = tunedb_nearest_best(c->db, &c->dev, out->key, &how, &best);
  if (s) {
    if (!c->error) c->error = s;
    else vkml_status_free(s);
    c->n_default++;
    return VKML_OK;
  }
  cg_kernel k;
  if (best.n && !(s = from_record(n, t, &best.items[0], &k))) {
    *out = k;
    if (how == TUNEDB_NEAR_EXACT) c->n_exact++;
    else c->n_nearest++;
  } else {
    vkml_status_free(s);
    c->n_default++;
  }
  tunedb_record_list_free(&best);
  return VKML_OK;
}
