/* Templates and schedules.
 *
 * A template is a GLSL compute shader (codegen/glsl/) with named knobs. A
 * schedule assigns one candidate value to every knob. The template declares
 * its space (knobs and candidates) and validity constraints against the
 * limits of ir_target, plus a default schedule that must be valid on every
 * Vulkan 1.1 device (checked against ir_target_minimum() by the tests). The
 * tuner searches these spaces; nothing else hard-codes a configuration.
 * Knobs become #defines of the same name. */
#ifndef CG_TEMPLATE_H
#define CG_TEMPLATE_H

#include <stdint.h>

#include "ir/target.h"
#include "vkml_status.h"

#define CG_MAX_KNOBS 8
#define CG_MAX_KNOB_VALUES 16
#define CG_MAX_CONSTRAINTS 8

typedef struct cg_knob {
  const char *name; /* also the #define */
  int n_values;
  int values[CG_MAX_KNOB_VALUES]; /* candidates, ascending */
} cg_knob;

/* Device limits a constraint can bound. */
typedef enum cg_limit {
  CG_LIMIT_WORKGROUP_X,
  CG_LIMIT_WORKGROUP_Y,
  CG_LIMIT_WORKGROUP_Z,
  CG_LIMIT_WORKGROUP_INVOCATIONS,
  CG_LIMIT_SHARED_BYTES,
  CG_LIMIT_PUSH_CONSTANT_BYTES,
} cg_limit;

/* scale * product of the knobs in knob_mask (bit i = knob i) must be
 * <= the target's limit. */
typedef struct cg_constraint {
  cg_limit limit;
  uint32_t knob_mask;
  int64_t scale;
} cg_constraint;

/* Knob values in the template's knob order. */
typedef struct cg_schedule {
  int v[CG_MAX_KNOBS];
} cg_schedule;

typedef struct cg_template {
  const char *name; /* e.g. "elementwise_binary" */
  const char *glsl; /* embedded template file, e.g. "elementwise_binary.comp" */
  int n_knobs;
  cg_knob knobs[CG_MAX_KNOBS];
  int n_constraints;
  cg_constraint constraints[CG_MAX_CONSTRAINTS];
  cg_schedule dflt; /* valid on every device */
} cg_template;

/* The space shared by the one-dimensional elementwise templates: knob 0
 * WG_SIZE (workgroup size), knob 1 EPI (elements per invocation); default
 * 128 x 4, valid on every Vulkan 1.1 device. Use inside a cg_template
 * initializer after .name and .glsl. */
#define CG_ELEMENTWISE_SPACE                                                   \
  .n_knobs = 2,                                                                \
  .knobs = {{"WG_SIZE", 6, {32, 64, 128, 256, 512, 1024}},                     \
            {"EPI", 4, {1, 2, 4, 8}}},                                         \
  .n_constraints = 2,                                                          \
  .constraints = {{CG_LIMIT_WORKGROUP_X, 1u << 0, 1},                          \
                  {CG_LIMIT_WORKGROUP_INVOCATIONS, 1u << 0, 1}},               \
  .dflt = {{128, 4}}

/* Every template, terminated by NULL. */
extern const cg_template *const cg_templates[];
const cg_template *cg_template_find(const char *name);

/* Number of points of the space (product of the candidate counts) and the
 * point at index (mixed radix, first knob fastest), 0 <= index < size. */
int64_t cg_space_size(const cg_template *t);
void cg_space_point(const cg_template *t, int64_t index, cg_schedule *out);

/* OK, or UNSUPPORTED naming the knob value or the constraint that fails on
 * this target. */
vkml_status cg_schedule_check(const cg_template *t, const cg_schedule *s,
                              const ir_target *target);
/* The template's default with its first knob (a workgroup size) at the
 * largest candidate the target runs in one workgroup along x: for the
 * kernels that run one or a few wide workgroups. */
void cg_schedule_widest(const cg_template *t, const ir_target *target, cg_schedule *out);
/* "WG_SIZE=128,EPI=4" (always NUL-terminated). */
void cg_schedule_format(const cg_template *t, const cg_schedule *s, char *buf, int buf_bytes);
/* Parses the format above; every knob must appear once. */
vkml_status cg_schedule_parse(const cg_template *t, const char *text, cg_schedule *out);
/* Index of a knob by name, -1 if none. */
int cg_knob_index(const cg_template *t, const char *name);

#endif
