/* The kernel builder (kernel.h): a template instantiated, its defines, specialization
 * constants and grid, and its compilation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/kernel.h"
#include "codegen/core/glsl.h"
vkml_status cg_kernel_begin(cg_kernel *k, const cg_template *t, const cg_schedule *s,
                            const ir_target *target) {
  memset(k, 0, sizeof *k);
  VKML_RETURN_IF_ERROR(cg_schedule_check(t, s, target));
  const cg_glsl_file *f = cg_glsl_find(t->glsl);
  if (!f)
    return vkml_status_make(VKML_CODE_INTERNAL, "template %s: %s is not embedded", t->name,
                            t->glsl);
  k->tmpl = t;
  k->schedule = *s;
  k->source_name = f->name;
  k->source = f->text;
  k->groups[0] = k->groups[1] = k->groups[2] = 1;
  for (int i = 0; i < t->n_knobs; i++)
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, t->knobs[i].name, "%d", s->v[i]));
  return VKML_OK;
}

vkml_status cg_kernel_define(cg_kernel *k, const char *name, const char *fmt, ...) {
  if (k->n_defines == CG_MAX_DEFINES || strlen(name) >= sizeof k->def_name[0])
    return vkml_status_make(VKML_CODE_INTERNAL, "kernel %s: too many or too long defines",
                            k->tmpl ? k->tmpl->name : "?");
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(k->def_value[k->n_defines], sizeof k->def_value[0], fmt, ap);
  va_end(ap);
  if (n < 0 || n >= (int)sizeof k->def_value[0])
    return vkml_status_make(VKML_CODE_INTERNAL, "kernel define %s: value too long", name);
  strcpy(k->def_name[k->n_defines], name);
  k->n_defines++;
  return VKML_OK;
}

vkml_status cg_kernel_spec(cg_kernel *k, uint32_t id, uint32_t value) {
  if (k->n_spec == CG_MAX_SPEC)
    return vkml_status_make(VKML_CODE_INTERNAL, "kernel: too many specialization constants");
  k->spec_id[k->n_spec] = id;
  k->spec_value[k->n_spec] = value;
  k->n_spec++;
  return VKML_OK;
}

vkml_status cg_kernel_specs(cg_kernel *k, const cg_spec_value *v, int n) {
  for (int i = 0; i < n; i++) VKML_RETURN_IF_ERROR(cg_kernel_spec(k, v[i].id, v[i].value));
  return VKML_OK;
}

vkml_status cg_kernel_compile(cg_compiler *c, const cg_kernel *k, cg_spirv *out) {
  cg_define d[CG_MAX_DEFINES];
  for (int i = 0; i < k->n_defines; i++) {
    d[i].name = k->def_name[i];
    d[i].value = k->def_value[i];
  }
  if (!k->extent_in_kernel)
    return cg_compile(c, k->source_name, k->source, d, k->n_defines, k->opt, out);
  /* the template's main() becomes vkml_kernel_main(), called by the main()
   * of glsl/extent_copy.glsl, whose first invocation first copies the
   * extent word; the template's line numbers stay */
  static const char EXTENT_MAIN[] = "\n#include \"extent_copy.glsl\"\n";
  const char *nl = strchr(k->source, '\n');
  if (strncmp(k->source, "#version", 8) || !nl)
    return vkml_status_make(VKML_CODE_INTERNAL, "%s: no #version line to wrap", k->source_name);
  static const char rename[] = "#define main vkml_kernel_main\n#line 2\n";
  size_t head = (size_t)(nl + 1 - k->source), rest = strlen(nl + 1);
  char *src = malloc(head + sizeof rename + rest + sizeof EXTENT_MAIN);
  if (!src) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  memcpy(src, k->source, head);
  strcpy(src + head, rename);
  strcat(src + head, nl + 1);
  strcat(src + head, EXTENT_MAIN);
  vkml_status s = cg_compile(c, k->source_name, src, d, k->n_defines, k->opt, out);
  free(src);
  return s;
}

vkml_status cg_fold_grid(cg_kernel *out, const ir_target *t, int64_t groups, uint32_t gx_spec,
                         const char *op) {
  if (groups < 1) groups = 1;
  int64_t gx = groups < t->max_workgroup_count[0] ? groups : t->max_workgroup_count[0];
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > t->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %lld workgroups exceed the grid of %s",
                            op, (long long)groups, t->name);
  VKML_RETURN_IF_ERROR(cg_kernel_spec(out, gx_spec, (uint32_t)gx));
  out->groups[0] = (uint32_t)gx;
  out->groups[1] = (uint32_t)gy;
  out->groups[2] = 1;
  return VKML_OK;
}
