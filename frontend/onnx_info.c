/* A model's interface without importing it (inputs, which of them feed
 * parameter positions, outputs), and the --input-shape argument parser. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

void onnx_model_info_free(onnx_model_info *info) {
  for (int i = 0; i < info->n_inputs; i++) free(info->input_names[i]);
  for (int i = 0; i < info->n_outputs; i++) free(info->output_names[i]);
  free(info->input_names);
  free(info->input_is_param);
  free(info->output_names);
  memset(info, 0, sizeof *info);
}

/* Marks every graph input that reaches a parameter position, following
 * producers backwards (but not through Shape/Size, which read only types). */
static vkml_status mark_params(const Onnx__GraphProto *gp, ir_strmap *inputs,
                               bool *is_param) {
  vkml_status s = VKML_OK;
  ir_strmap producer = {0}, seen = {0};
  size_t cap = 64, top = 0;
  const char **stack = malloc(cap * sizeof *stack);
  if (!stack) return ir_oom(NULL);
  for (size_t i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    for (size_t k = 0; k < p->n_output; k++)
      if (p->output[k] && p->output[k][0] &&
          (s = ir_strmap_put(&producer, p->output[k], (void *)p)))
        goto done;
  }
  for (size_t i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *p = gp->node[i];
    const onnx_op_entry *e = onnx_op_find(onnx_str(p->op_type));
    if (!e) continue;
    for (size_t k = 0; k < p->n_input && k < 32; k++) {
      const char *in = onnx_str(p->input[k]);
      if (!(e->param_mask & (1u << k)) || !in[0] || ir_strmap_get(&seen, in)) continue;
      if (top == cap) {
        const char **ns = realloc(stack, 2 * cap * sizeof *ns);
        if (!ns) { s = ir_oom(NULL); goto done; }
        stack = ns;
        cap *= 2;
      }
      if ((s = ir_strmap_put(&seen, in, (void *)1))) goto done;
      stack[top++] = in;
    }
    while (top) {
      const char *name = stack[--top];
      intptr_t gi = (intptr_t)ir_strmap_get(inputs, name);
      if (gi) is_param[gi - 1] = true;
      const Onnx__NodeProto *q = ir_strmap_get(&producer, name);
      if (!q) continue;
      const char *op = onnx_str(q->op_type);
      if (!strcmp(op, "Shape") || !strcmp(op, "Size")) continue;
      for (size_t k = 0; k < q->n_input; k++) {
        const char *in = onnx_str(q->input[k]);
        if (!in[0] || ir_strmap_get(&seen, in)) continue;
        if (top == cap) {
          const char **ns = realloc(stack, 2 * cap * sizeof *ns);
          if (!ns) { s = ir_oom(NULL); goto done; }
          stack = ns;
          cap *= 2;
        }
        if ((s = ir_strmap_put(&seen, in, (void *)1))) goto done;
        stack[top++] = in;
      }
    }
  }
done:
  free(stack);
  ir_strmap_free(&producer);
  ir_strmap_free(&seen);
  return s;
}

static vkml_status info_fill(const Onnx__ModelProto *m, onnx_model_info *out) {
  const Onnx__GraphProto *gp = m->graph;
  out->opset = onnx_model_opset(m);
  VKML_RETURN_IF_ERROR(onnx_check_model_ops(m));
  for (size_t i = 0; i < gp->n_input; i++)
    VKML_RETURN_IF_ERROR(onnx_check_io_type(gp->input[i], "input"));
  for (size_t i = 0; i < gp->n_output; i++)
    VKML_RETURN_IF_ERROR(onnx_check_io_type(gp->output[i], "output"));
  ir_strmap inits = {0}, inputs = {0};
  vkml_status s = VKML_OK;
  for (size_t i = 0; i < gp->n_initializer; i++)
    if ((s = ir_strmap_put(&inits, onnx_str(gp->initializer[i]->name), (void *)1))) goto done;
  out->input_names = calloc(gp->n_input + 1, sizeof *out->input_names);
  out->input_is_param = calloc(gp->n_input + 1, sizeof *out->input_is_param);
  out->output_names = calloc(gp->n_output + 1, sizeof *out->output_names);
  if (!out->input_names || !out->input_is_param || !out->output_names) {
    s = ir_oom(NULL);
    goto done;
  }
  for (size_t i = 0; i < gp->n_input; i++) {
    const char *name = onnx_str(gp->input[i]->name);
    if (ir_strmap_get(&inits, name)) continue;
    char *copy = strdup(name);
    if (!copy) { s = ir_oom(NULL); goto done; }
    out->input_names[out->n_inputs++] = copy;
    if ((s = ir_strmap_put(&inputs, copy, (void *)(intptr_t)out->n_inputs))) goto done;
  }
  for (size_t i = 0; i < gp->n_output; i++) {
    char *copy = strdup(onnx_str(gp->output[i]->name));
    if (!copy) { s = ir_oom(NULL); goto done; }
    out->output_names[out->n_outputs++] = copy;
  }
  s = mark_params(gp, &inputs, out->input_is_param);
done:
  ir_strmap_free(&inits);
  ir_strmap_free(&inputs);
  return s;
}

vkml_status onnx_model_info_read(const char *path, onnx_model_info *out) {
  memset(out, 0, sizeof *out);
  Onnx__ModelProto *m;
  VKML_RETURN_IF_ERROR(onnx_model_read_file(path, &m));
  vkml_status s = info_fill(m, out);
  onnx_model_free(m);
  if (s) onnx_model_info_free(out);
  return vkml_status_annotate(s, "%s", path);
}

vkml_status onnx_shape_arg_parse(const char *arg, char **name, int *rank,
                                 int64_t dims[IR_MAX_RANK]) {
  *name = NULL;
  *rank = 0;
  const char *eq = strrchr(arg, '=');
  if (!eq || eq == arg)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "--input-shape '%s': expected NAME=D,D,...", arg);
  const char *p = eq + 1;
  int r = 0;
  while (*p) {
    if (r == IR_MAX_RANK)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input-shape '%s': more than %d dims", arg, IR_MAX_RANK);
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (end == p || errno || d < 0 || (*end && *end != ','))
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input-shape '%s': dims must be non-negative integers "
                              "separated by commas", arg);
    dims[r++] = d;
    p = *end ? end + 1 : end;
    if (*end == ',' && !*p)
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input-shape '%s': trailing comma", arg);
  }
  *name = strndup(arg, (size_t)(eq - arg));
  if (!*name) return ir_oom(NULL);
  *rank = r;
  return VKML_OK;
}
