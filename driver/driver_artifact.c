/* The compile's last stage (driver.h): a plan as a .vkm artifact, with its
 * provenance (the tool, the device and its database key, where the
 * schedules came from: each GPU step whose schedule the database gave, the
 * record's device and whether vktune confirmed it). */
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "ir/util.h"

/* The provenance of plan's schedules: the database read again for each GPU
 * step's workload, the step's schedule compared with the record the
 * chooser found (a record that did not instantiate here gave the default). */
typedef struct meta_buf {
  ir_artifact_meta m;
  char key[TUNEDB_DEVICE_KEY_BYTES];
  char tool[64];
  ir_artifact_schedule *tuned;
  tunedb_record_list *records; /* by tuned entry: owns its device key */
} meta_buf;

static void meta_free(meta_buf *b) {
  for (int i = 0; b->records && i < b->m.n_tuned; i++) tunedb_record_list_free(&b->records[i]);
  free(b->records);
  free(b->tuned);
}

static vkml_status meta_of(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                           meta_buf *b) {
  memset(b, 0, sizeof *b);
  snprintf(b->tool, sizeof b->tool, "vkml %s", VKML_VERSION);
  b->m = (ir_artifact_meta){.tool = o && o->tool ? o->tool : b->tool,
                            .target = t,
                            .schedules = o && o->db && !o->choose ? o->db : "default"};
  if (!t) return VKML_OK;
  tunedb_device dev;
  drv_device_from_target(t, &dev, NULL, 0);
  tunedb_device_key(&dev, b->key);
  b->m.device_key = b->key;
  if (!o || !o->db || o->choose) return VKML_OK;
  b->tuned = calloc((size_t)plan->n_steps + 1, sizeof *b->tuned);
  b->records = calloc((size_t)plan->n_steps + 1, sizeof *b->records);
  if (!b->tuned || !b->records) return ir_oom(NULL);
  tunedb *db = NULL;
  tunedb_open_opts dbo = {.flags = TUNEDB_OPEN_READONLY};
  VKML_RETURN_IF_ERROR(tunedb_open(o->db, &dbo, &db));
  vkml_status s = VKML_OK;
  for (int i = 0; i < plan->n_steps && !s; i++) {
    const ir_plan_step *st = &plan->steps[i];
    if (st->device != IR_DEVICE_GPU || st->transfer || st->key < 0) continue;
    tunedb_nearness how = TUNEDB_NEAR_NONE;
    tunedb_record_list *l = &b->records[b->m.n_tuned];
    s = tunedb_nearest_best(db, &dev, ir_plan_str(plan, st->key), &how, l);
    if (s || !l->n || strcmp(l->items[0].template_name, ir_plan_str(plan, st->tmpl)) ||
        strcmp(l->items[0].schedule, ir_plan_str(plan, st->schedule))) {
      tunedb_record_list_free(l);
      continue;
    }
    b->tuned[b->m.n_tuned++] = (ir_artifact_schedule){.step = i,
                                                      .nearest = how != TUNEDB_NEAR_EXACT,
                                                      .device_key = l->items[0].device_key,
                                                      .confirmed = l->items[0].confirmation};
  }
  b->m.tuned = b->tuned;
  tunedb_close(db);
  return s;
}

vkml_status drv_artifact_write(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                               const char *path) {
  meta_buf b;
  vkml_status s = meta_of(plan, t, o, &b);
  if (!s) s = ir_artifact_write_file(plan, &b.m, path);
  meta_free(&b);
  return s;
}

vkml_status drv_artifact_encode(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                                uint8_t **out, size_t *bytes) {
  meta_buf b;
  *out = NULL;
  vkml_status s = meta_of(plan, t, o, &b);
  if (!s) s = ir_artifact_encode(plan, &b.m, out, bytes);
  meta_free(&b);
  return s;
}
