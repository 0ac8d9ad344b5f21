/* Template lookup, schedule spaces and their validity checks (template.h);
 * the registry itself is generated (core/gen.py). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/template.h"


const cg_template *cg_template_find(const char *name) {
  for (int i = 0; cg_templates[i]; i++)
    if (!strcmp(cg_templates[i]->name, name)) return cg_templates[i];
  return NULL;
}

void cg_schedule_widest(const cg_template *t, const ir_target *target, cg_schedule *out) {
  *out = t->dflt;
  const cg_knob *kn = &t->knobs[0];
  for (int i = 0; i < kn->n_values; i++)
    if ((uint32_t)kn->values[i] <= target->max_workgroup_invocations &&
        (uint32_t)kn->values[i] <= target->max_workgroup_size[0] && kn->values[i] > out->v[0])
      out->v[0] = kn->values[i];
}

int cg_knob_index(const cg_template *t, const char *name) {
  for (int i = 0; i < t->n_knobs; i++)
    if (!strcmp(t->knobs[i].name, name)) return i;
  return -1;
}

int64_t cg_space_size(const cg_template *t) {
  int64_t n = 1;
  for (int i = 0; i < t->n_knobs; i++) n *= t->knobs[i].n_values;
  return n;
}

void cg_space_point(const cg_template *t, int64_t index, cg_schedule *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < t->n_knobs; i++) {
    int nv = t->knobs[i].n_values;
    out->v[i] = t->knobs[i].values[index % nv];
    index /= nv;
  }
}

static const char *limit_name(cg_limit l) {
  switch (l) {
  case CG_LIMIT_WORKGROUP_X: return "max workgroup size x";
  case CG_LIMIT_WORKGROUP_Y: return "max workgroup size y";
  case CG_LIMIT_WORKGROUP_Z: return "max workgroup size z";
  case CG_LIMIT_WORKGROUP_INVOCATIONS: return "max workgroup invocations";
  case CG_LIMIT_SHARED_BYTES: return "max shared memory bytes";
  case CG_LIMIT_PUSH_CONSTANT_BYTES: return "max push-constant bytes";
  }
  return "?";
}

static int64_t limit_value(cg_limit l, const ir_target *t) {
  switch (l) {
  case CG_LIMIT_WORKGROUP_X: return t->max_workgroup_size[0];
  case CG_LIMIT_WORKGROUP_Y: return t->max_workgroup_size[1];
  case CG_LIMIT_WORKGROUP_Z: return t->max_workgroup_size[2];
  case CG_LIMIT_WORKGROUP_INVOCATIONS: return t->max_workgroup_invocations;
  case CG_LIMIT_SHARED_BYTES: return t->max_shared_bytes;
  case CG_LIMIT_PUSH_CONSTANT_BYTES: return t->max_push_constant_bytes;
  }
  return 0;
}

vkml_status cg_schedule_check(const cg_template *t, const cg_schedule *s,
                              const ir_target *target) {
  for (int i = 0; i < t->n_knobs; i++) {
    const cg_knob *k = &t->knobs[i];
    bool found = false;
    for (int j = 0; j < k->n_values && !found; j++) found = k->values[j] == s->v[i];
    if (!found)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %s=%d is not a candidate value",
                              t->name, k->name, s->v[i]);
  }
  for (int c = 0; c < t->n_constraints; c++) {
    const cg_constraint *ct = &t->constraints[c];
    int64_t v = ct->scale;
    char what[128] = "";
    int len = 0;
    for (int i = 0; i < t->n_knobs; i++) {
      if (!(ct->knob_mask & (1u << i))) continue;
      v *= s->v[i];
      len += snprintf(what + len, sizeof what - (size_t)len, "%s%s=%d", len ? "*" : "",
                      t->knobs[i].name, s->v[i]);
      if (len >= (int)sizeof what) len = (int)sizeof what - 1;
    }
    int64_t lim = limit_value(ct->limit, target);
    if (ct->scale != 1)
      snprintf(what + len, sizeof what - (size_t)len, "*%lld", (long long)ct->scale);
    if (v > lim)
      return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s = %lld exceeds the %s of %s (%lld)",
                              t->name, what, (long long)v, limit_name(ct->limit), target->name,
                              (long long)lim);
  }
  return VKML_OK;
}

void cg_schedule_format(const cg_template *t, const cg_schedule *s, char *buf, int buf_bytes) {
  int len = 0;
  buf[0] = '\0';
  for (int i = 0; i < t->n_knobs && len < buf_bytes; i++)
    len += snprintf(buf + len, (size_t)(buf_bytes - len), "%s%s=%d", i ? "," : "",
                    t->knobs[i].name, s->v[i]);
}

vkml_status cg_schedule_parse(const cg_template *t, const char *text, cg_schedule *out) {
  memset(out, 0, sizeof *out);
  bool seen[CG_MAX_KNOBS] = {0};
  const char *p = text;
  while (*p) {
    const char *eq = strchr(p, '=');
    if (!eq) break;
    char name[64];
    size_t n = (size_t)(eq - p);
    if (n >= sizeof name) break;
    memcpy(name, p, n);
    name[n] = '\0';
    int k = cg_knob_index(t, name);
    char *end;
    long v = strtol(eq + 1, &end, 10);
    if (k < 0 || seen[k] || end == eq + 1 || (*end && *end != ','))
      return vkml_status_make(VKML_CODE_PARSE, "%s: bad schedule '%s' at '%s'", t->name, text, p);
    seen[k] = true;
    out->v[k] = (int)v;
    p = *end ? end + 1 : end;
  }
  for (int i = 0; i < t->n_knobs; i++)
    if (!seen[i])
      return vkml_status_make(VKML_CODE_PARSE, "%s: schedule '%s' lacks %s", t->name, text,
                              t->knobs[i].name);
  if (*p) return vkml_status_make(VKML_CODE_PARSE, "%s: bad schedule '%s'", t->name, text);
  return VKML_OK;
}

/* ---- kernels ------------------------------------------------------------ */
