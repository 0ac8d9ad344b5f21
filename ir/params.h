/* Attribute decoding shared by shape inference, the CPU kernels and codegen:
 * one place fills the defaults, so every consumer agrees on them. */
#ifndef IR_PARAMS_H
#define IR_PARAMS_H

#include <math.h>

#include "graph.h"

typedef struct ir_act_params {
  ir_act kind;
  float alpha, beta; /* see ir_act in ops.h */
} ir_act_params;

/* 2-D convolution / transposed convolution. pads are ONNX order
 * [top, left, bottom, right]. kernel comes from the weight shape. */
typedef struct ir_conv_params {
  int64_t kernel[2], strides[2], dilations[2], pads[4], output_padding[2];
  int64_t group;
  ir_act_params act;
} ir_conv_params;

typedef struct ir_pool_params {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
  bool ceil_mode, count_include_pad;
} ir_pool_params;

/* Defaults: act none, alpha 0.01 for leaky_relu, 1 for elu, 0.2/0.5 for
 * hard_sigmoid, 0/6 for clip. */
void ir_act_params_get(const ir_node *n, ir_act_params *out);
/* Validates list lengths and values (strides >= 1, pads >= 0, group divides
 * channels is left to shape inference). Needs the weight input's type. */
vkml_status ir_conv_params_get(const ir_node *n, ir_conv_params *out);
vkml_status ir_pool_params_get(const ir_node *n, ir_pool_params *out);

/* Maps axis in [-rank, rank) to [0, rank). */
vkml_status ir_axis_normalize(int64_t axis, int rank, int *out);
/* NumPy broadcast of two shapes into out (dtype taken from a). */
vkml_status ir_broadcast(const ir_type *a, const ir_type *b, ir_type *out);

/* Applies a fused activation (reference semantics, in double). */
static inline double ir_act_apply(const ir_act_params *a, double x) {
  switch (a->kind) {
  case IR_ACT_NONE: return x;
  case IR_ACT_RELU: return x > 0 ? x : 0;
  case IR_ACT_RELU6: return x < 0 ? 0 : (x > 6 ? 6 : x);
  case IR_ACT_CLIP: return x < a->alpha ? a->alpha : (x > a->beta ? a->beta : x);
  case IR_ACT_LEAKY_RELU: return x >= 0 ? x : a->alpha * x;
  case IR_ACT_ELU: return x >= 0 ? x : a->alpha * (exp(x) - 1);
  case IR_ACT_SIGMOID: return 1 / (1 + exp(-x));
  case IR_ACT_TANH: return tanh(x);
  case IR_ACT_HARD_SIGMOID: {
    double y = a->alpha * x + a->beta;
    return y < 0 ? 0 : (y > 1 ? 1 : y);
  }
  case IR_ACT_HARD_SWISH: {
    double y = x / 6 + 0.5;
    return x * (y < 0 ? 0 : (y > 1 ? 1 : y));
  }
  case IR_ACT_COUNT: break;
  }
  return x;
}

#endif
