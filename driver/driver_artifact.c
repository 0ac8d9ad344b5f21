/* The compile's last stage (driver.h): a plan as a .vkm artifact, with its
 * provenance (the tool, the device, where the schedules came from). */
#include "driver/driver.h"

static ir_artifact_meta meta_of(const ir_target *t, const drv_opts *o) {
  return (ir_artifact_meta){.tool = o && o->tool ? o->tool : "vkml",
                            .target = t,
                            .schedules = o && o->db && !o->choose ? o->db : "default"};
}

vkml_status drv_artifact_write(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                               const char *path) {
  ir_artifact_meta m = meta_of(t, o);
  return ir_artifact_write_file(plan, &m, path);
}

vkml_status drv_artifact_encode(const ir_plan *plan, const ir_target *t, const drv_opts *o,
                                uint8_t **out, size_t *bytes) {
  ir_artifact_meta m = meta_of(t, o);
  return ir_artifact_encode(plan, &m, out, bytes);
}
