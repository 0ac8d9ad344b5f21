/* The public compile (include/vkml_compile.h) over the driver: options
 * checked and translated, the device opened for its target, drv_compile,
 * and the artifact handed to the runtime's public loader (the model is
 * what vkml_model_load would give for the written file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "runtime/vk/vk_context.h"
#include "vkml_compile.h"

const char *vkml_compiler_version(void) { return VKML_VERSION; }

static vkml_status bad_opt(const char *fn, const char *what, long v) {
  return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: %s %ld is out of range", fn, what, v);
}

/* opts in the driver's terms; the shapes point into opts. */
typedef struct api_opts {
  drv_opts d;
  bool cpu_ops[IR_OP_COUNT];
  const char *names[VKML_MAX_INPUT_SHAPES];
  int ranks[VKML_MAX_INPUT_SHAPES];
  const int64_t *dims[VKML_MAX_INPUT_SHAPES];
  char tool[64];
} api_opts;

static vkml_status opts_translate(const char *fn, const vkml_compile_opts *o, api_opts *a) {
  if ((unsigned)o->precision > VKML_PRECISION_FP16)
    return bad_opt(fn, "precision", (long)(int)o->precision);
  if ((unsigned)o->fallback > VKML_FALLBACK_NEVER)
    return bad_opt(fn, "fallback", (long)(int)o->fallback);
  if ((unsigned)o->layout > VKML_LAYOUT_ROWS) return bad_opt(fn, "layout", (long)(int)o->layout);
  if ((unsigned)o->memory_planner > VKML_PLANNER_MCFP)
    return bad_opt(fn, "memory_planner", (long)(int)o->memory_planner);
  if (o->device == VKML_DEVICE_CPU)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: a model is compiled for a Vulkan device (VKML_DEVICE_DEFAULT or "
                            "VKML_DEVICE_INDEX); it runs on the CPU as any model does "
                            "(vkml_instance_opts.device = VKML_DEVICE_CPU)", fn);
  if ((unsigned)o->device > VKML_DEVICE_CPU) return bad_opt(fn, "device", (long)(int)o->device);
  if (o->device == VKML_DEVICE_INDEX && o->index < 0) return bad_opt(fn, "index", o->index);
  if (o->n_input_shapes < 0 || o->n_input_shapes > VKML_MAX_INPUT_SHAPES)
    return bad_opt(fn, "n_input_shapes", o->n_input_shapes);
  if (o->n_input_shapes && !o->input_shapes)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: n_input_shapes is %d but "
                            "input_shapes is NULL", fn, o->n_input_shapes);
  for (int i = 0; i < o->n_input_shapes; i++) {
    const vkml_input_shape *sh = &o->input_shapes[i];
    if (!sh->name)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input_shapes[%d] has no name",
                              fn, i);
    if (sh->rank < 0 || sh->rank > VKML_MAX_RANK)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input shape %s: rank %d is "
                              "out of range (0 to %d)", fn, sh->name, sh->rank, VKML_MAX_RANK);
    for (int k = 0; k < sh->rank; k++)
      if (sh->dims[k] < 0)
        return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input shape %s: dimension %d "
                                "is %lld", fn, sh->name, k, (long long)sh->dims[k]);
    for (int k = 0; k < i; k++)
      if (!strcmp(o->input_shapes[k].name, sh->name))
        return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "%s: input shape %s given twice",
                                fn, sh->name);
    a->names[i] = sh->name;
    a->ranks[i] = sh->rank;
    a->dims[i] = sh->dims;
  }
  VKML_RETURN_IF_ERROR(
      vkml_status_annotate(drv_op_list_parse(o->cpu_ops, "cpu_ops", a->cpu_ops), "%s", fn));
  snprintf(a->tool, sizeof a->tool, "vkml_compile %s", VKML_VERSION);
  a->d = (drv_opts){
      .import = {.n_shapes = o->n_input_shapes,
                 .shape_names = a->names,
                 .shape_ranks = a->ranks,
                 .shape_dims = a->dims},
      .precision = o->precision == VKML_PRECISION_FP16 ? IR_PRECISION_FP16 : IR_PRECISION_FP32,
      .cpu_ops = a->cpu_ops,
      .fallback_never = o->fallback == VKML_FALLBACK_NEVER,
      .layout = o->layout == VKML_LAYOUT_NC4HW4 ? IR_LAYOUT_NC4HW4
                : o->layout == VKML_LAYOUT_NHWC   ? IR_LAYOUT_NHWC
                                                  : IR_LAYOUT_DEFAULT,
      .layout_auto = o->layout == VKML_LAYOUT_DEFAULT,
      .memory_planner = (ir_memplan_strategy)o->memory_planner,
      .db = o->db,
      .tool = a->tool,
  };
  return VKML_OK;
}

static void release_artifact(void *data, size_t bytes) {
  (void)bytes;
  free(data);
}

static vkml_status compile(const char *fn, const drv_source *src, const vkml_compile_opts *opts,
                           vkml_model **out) {
  static const vkml_compile_opts none;
  const vkml_compile_opts *o = opts ? opts : &none;
  if (out) *out = NULL;
  if (!out && !o->artifact_path)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "%s: out is NULL and no artifact_path: nothing to produce", fn);
  api_opts *a = calloc(1, sizeof *a);
  if (!a) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of host memory", fn);
  vkml_status s = opts_translate(fn, o, a);
  rt_vk_context *ctx = NULL;
  rt_vk_context_opts co = {.select_device = o->device == VKML_DEVICE_INDEX,
                           .device_index = o->index};
  if (!s) s = rt_vk_context_create(&co, &ctx);
  const ir_target *t = ctx ? rt_vk_context_target(ctx) : NULL;
  ir_plan *plan = NULL;
  if (!s) s = drv_compile(src, t, &a->d, o->artifact_path, NULL, out ? &plan : NULL);
  uint8_t *bytes = NULL;
  size_t n = 0;
  if (!s && out) s = drv_artifact_encode(plan, t, &a->d, &bytes, &n);
  ir_plan_destroy(plan);
  rt_vk_context_destroy(ctx, NULL);
  free(a);
  if (!s && out) return vkml_model_load_owned(bytes, n, release_artifact, out);
  free(bytes);
  return s;
}

vkml_status vkml_compile(const char *path, const vkml_compile_opts *opts, vkml_model **out) {
  if (!path)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_compile: path is NULL");
  drv_source src = {.path = path};
  return compile("vkml_compile", &src, opts, out);
}

vkml_status vkml_compile_memory(const void *data, size_t bytes, const vkml_compile_opts *opts,
                                vkml_model **out) {
  if (!data || !bytes)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "vkml_compile_memory: %s",
                            !data ? "data is NULL" : "bytes is 0");
  drv_source src = {.data = data, .bytes = bytes, .name = "<memory>"};
  return compile("vkml_compile_memory", &src, opts, out);
}
