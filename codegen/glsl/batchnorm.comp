#version 450
// batchnorm, the inference form (codegen/kernels/norm.c): a per-channel
// affine map, elementwise:
//   y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c],
//   c = (i / INNER) % C. Bindings: 0 = x, 1 = scale, 2 = bias, 3 = mean,
//   4 = var, 5 = y. Knobs: WG_SIZE, EPI (elements per invocation, vectors of
//   VW = min(EPI, 4) when INNER allows, as elementwise_binary.comp).
//
// Every parameter has x's dtype; arithmetic is fp32.

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#endif
#if USE_SG
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#if DTYPE_F16
#define T float16_t
#define T2 f16vec2
#define T4 f16vec4
#else
#define T float
#define T2 vec2
#define T4 vec4
#endif

#if VW == 4
#define TV T4
#define FV vec4
#elif VW == 2
#define TV T2
#define FV vec2
#else
#define TV T
#define FV float
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;     // elements
layout(constant_id = 1) const uint INNER = 1; // elements per (batch, channel)
layout(constant_id = 2) const uint C = 1;
layout(constant_id = 3) const float EPS = 1e-5;

layout(binding = 0, std430) restrict readonly buffer X1 { T x1[]; };
layout(binding = 0, std430) restrict readonly buffer XV { TV xv[]; };
layout(binding = 1, std430) restrict readonly buffer P1 { T scale[]; };
layout(binding = 2, std430) restrict readonly buffer P2 { T bias[]; };
layout(binding = 3, std430) restrict readonly buffer P3 { T mean[]; };
layout(binding = 4, std430) restrict readonly buffer P4 { T var[]; };
layout(binding = 5, std430) restrict writeonly buffer Y1 { T y1[]; };
layout(binding = 5, std430) restrict writeonly buffer YV { TV yv[]; };

#define CHUNKS ((EPI + VW - 1) / VW)

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint lane = gl_LocalInvocationID.x;
  [[unroll]] for (uint ch = 0; ch < CHUNKS; ch++) {
    uint v = (group * CHUNKS + ch) * WG_SIZE + lane;
    uint i = v * VW;
    if (i >= N) return;
    // a vector never crosses a channel: INNER % VW == 0
    uint c = (i / INNER) % C;
    float inv = 1.0 / sqrt(float(var[c]) + EPS);
    float mu = float(mean[c]), sc = float(scale[c]), bi = float(bias[c]);
#if VW == 1
    y1[i] = T((float(x1[i]) - mu) * inv * sc + bi);
#else
    FV t = FV(xv[v]);
    yv[v] = TV((t - mu) * inv * sc + bi);
#endif
  }
}
