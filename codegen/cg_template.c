/* Template registry, schedule spaces and their validity checks, and kernel
 * building helpers shared by every template. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_binary.h"
#include "codegen/cg_conv.h"
#include "codegen/cg_gemm.h"
#include "codegen/cg_glsl.h"
#include "codegen/cg_kernel.h"
#include "codegen/cg_reduce.h"
#include "codegen/cg_rows.h"
#include "codegen/cg_sort.h"
#include "codegen/cg_vision.h"
#include "codegen/cg_data.h"
#include "codegen/cg_elementwise.h"

const cg_template *const cg_templates[] = {
    &cg_binary_template,
    &cg_nary_template,
    &cg_unary_template,
    &cg_fused_template,
    &cg_copy_template,
    &cg_data_layout_template,
    &cg_data_copy_template,
    &cg_data_concat_template,
    &cg_data_split_template,
    &cg_data_transpose_template,
    &cg_data_gather_template,
    &cg_data_scatter_template,
    &cg_shape_template,
    &cg_rows_copy_template,
    &cg_data_resize_template,
    &cg_conv2d_direct_template,
    &cg_conv2d_1x1_template,
    &cg_conv2d_sliced_k_template,
    &cg_conv2d_1x1_sliced_k_template,
    &cg_conv2d_depthwise_template,
    &cg_conv_transpose2d_template,
    &cg_conv2d_coopmat_template,
    &cg_conv2d_coopmat_sliced_k_template,
    &cg_gemm_tiled_template,
    &cg_gemm_coopmat_template,
    &cg_gemm_gemv_template,
    &cg_reduce_template,
    &cg_reduce_int_template,
    &cg_softmax_template,
    &cg_norm_template,
    &cg_batchnorm_template,
    &cg_pool2d_template,
    &cg_scan_template,
    &cg_roi_align_template,
    &cg_topk_template,
    &cg_sort_template,
    &cg_nms_template,
    &cg_nms_window_template,
    &cg_nonzero_template,
    NULL,
};

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

/* Specialization constants of the extent copy: the input's word, then each
 * output's (32-bit words into their bindings; ids 224 and 225 + i in
 * EXTENT_MAIN). */
#define EXTENT_SPEC 224

vkml_status cg_kernel_extent_in_kernel(cg_kernel *k, int n_inputs, int n_outputs, uint32_t in_word,
                                       const uint32_t *out_words) {
  if (!k->extent_from || n_outputs < 1 || n_outputs > CG_EXTENT_MAX_OUTPUTS ||
      k->n_buffers < n_inputs + n_outputs || k->extent_from > n_inputs)
    return VKML_OK;
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VKML_EXTENT_IN", "%d", k->extent_from - 1));
  VKML_RETURN_IF_ERROR(cg_kernel_define(k, "VKML_EXTENT_OUTS", "%d", n_outputs));
  for (int i = 0; i < n_outputs; i++) {
    char name[32];
    snprintf(name, sizeof name, "VKML_EXTENT_OUT%d", i);
    VKML_RETURN_IF_ERROR(cg_kernel_define(k, name, "%d", n_inputs + i));
    VKML_RETURN_IF_ERROR(cg_kernel_spec(k, EXTENT_SPEC + 1 + (uint32_t)i, out_words[i]));
  }
  VKML_RETURN_IF_ERROR(cg_kernel_spec(k, EXTENT_SPEC, in_word));
  k->extent_in_kernel = true;
  return VKML_OK;
}

/* The template's main() becomes vkml_kernel_main(), called by a main()
 * whose first invocation first copies the extent word (the defines and
 * specialization constants of cg_kernel_extent_in_kernel); the template's
 * line numbers stay. */
static const char EXTENT_MAIN[] =
    "\n#undef main\n"
    "layout(constant_id = 224) const uint VKML_EXTENT_IN_WORD = 0u;\n"
    "layout(binding = VKML_EXTENT_IN, std430) readonly buffer VkmlExtentIn { uint vkml_extent_in[]; };\n"
    "#define VKML_EXTENT_OUTPUT(i) \\\n"
    "  layout(constant_id = 225 + i) const uint VKML_EXTENT_OUT_WORD##i = 0u; \\\n"
    "  layout(binding = VKML_EXTENT_OUT##i, std430) writeonly buffer VkmlExtentOut##i { uint vkml_extent_out##i[]; };\n"
    "VKML_EXTENT_OUTPUT(0)\n"
    "#if VKML_EXTENT_OUTS > 1\nVKML_EXTENT_OUTPUT(1)\n#endif\n"
    "#if VKML_EXTENT_OUTS > 2\nVKML_EXTENT_OUTPUT(2)\n#endif\n"
    "#if VKML_EXTENT_OUTS > 3\nVKML_EXTENT_OUTPUT(3)\n#endif\n"
    "void main() {\n"
    "  if (gl_WorkGroupID == uvec3(0u) && gl_LocalInvocationIndex == 0u) {\n"
    "    uint e = vkml_extent_in[VKML_EXTENT_IN_WORD];\n"
    "    vkml_extent_out0[VKML_EXTENT_OUT_WORD0] = e;\n"
    "#if VKML_EXTENT_OUTS > 1\n    vkml_extent_out1[VKML_EXTENT_OUT_WORD1] = e;\n#endif\n"
    "#if VKML_EXTENT_OUTS > 2\n    vkml_extent_out2[VKML_EXTENT_OUT_WORD2] = e;\n#endif\n"
    "#if VKML_EXTENT_OUTS > 3\n    vkml_extent_out3[VKML_EXTENT_OUT_WORD3] = e;\n#endif\n"
    "  }\n"
    "  vkml_kernel_main();\n"
    "}\n";

vkml_status cg_kernel_compile(cg_compiler *c, const cg_kernel *k, cg_spirv *out) {
  cg_define d[CG_MAX_DEFINES];
  for (int i = 0; i < k->n_defines; i++) {
    d[i].name = k->def_name[i];
    d[i].value = k->def_value[i];
  }
  if (!k->extent_in_kernel)
    return cg_compile(c, k->source_name, k->source, d, k->n_defines, k->opt, out);
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
