#version 450
// GridSample (ONNX opset 16, as PyTorch's grid_sampler_2d and the CPU
// reference runtime/cpu/k_vision.c compute it; codegen/kernels/grid_sample.c
// instantiates it): y[n,c,i,j] = x[n,c] sampled at grid[n,i,j] = (x, y) in
// [-1, 1], unnormalised by ALIGN (1: -1 and 1 are the corner pixels'
// centres; 0: their outer edges). MODE (#define): 0 nearest (round half to
// even), 1 bilinear, 2 bicubic (A = -0.75, the padding applied to each of
// the 16 taps); PAD (#define): 0 zeros (a sample outside reads 0), 1 border
// (clamped), 2 reflection (reflected at the edges, then clamped).
//
// Bindings: 0 = x [N,C,H,W], 1 = grid [N,OH,OW,2], 2 = y [N,C,OH,OW]
// (DTYPE, dense C order). One output element per invocation step, j
// fastest, then i, c, n: neighbouring invocations read neighbouring grid
// points of one plane. Arithmetic in fp32.
//
// Knobs (#defines): WG_SIZE, EPI (outputs per invocation, WG_SIZE * GX
//   apart). Baked: DTYPE_F16, MODE, PAD (#defines); the shape, ALIGN
//   (specialization constants).

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE_F16
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#else
#define T float
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint C = 1;
layout(constant_id = 2) const uint H = 1;
layout(constant_id = 3) const uint W = 1;
layout(constant_id = 4) const uint OH = 1;
layout(constant_id = 5) const uint OW = 1;
layout(constant_id = 6) const bool ALIGN = false;
layout(constant_id = 7) const uint GX = 1;

layout(set = 0, binding = 0) readonly buffer Xb { T X[]; };
layout(set = 0, binding = 1) readonly buffer Gb { T G[]; };
layout(set = 0, binding = 2) writeonly buffer Yb { T Y[]; };

float unnormalize(float c, uint size) {
  return ALIGN ? (c + 1.0) * 0.5 * float(size - 1u) : ((c + 1.0) * float(size) - 1.0) * 0.5;
}

float clip_coord(float c, uint size) { return clamp(c, 0.0, float(size - 1u)); }

// c reflected into [lo2 / 2, hi2 / 2] (bounds doubled, as PyTorch keeps them)
float reflect_coord(float c, float lo2, float hi2) {
  if (lo2 == hi2) return 0.0;
  float lo = lo2 * 0.5, span = (hi2 - lo2) * 0.5;
  c = abs(c - lo);
  float extra = mod(c, span), flips = floor(c / span);
  return mod(flips, 2.0) == 0.0 ? extra + lo : span - extra + lo;
}

float pad_coord(float c, uint size) {
#if PAD == 1
  return clip_coord(c, size);
#elif PAD == 2
  return clip_coord(ALIGN ? reflect_coord(c, 0.0, 2.0 * float(size - 1u))
                          : reflect_coord(c, -1.0, 2.0 * float(size) - 1.0),
                    size);
#else
  return c;
#endif
}

// x[plane] at (iy, ix), 0 outside (NaN coordinates are outside)
float at(uint plane, float fy, float fx) {
  if (!(fx >= 0.0 && fy >= 0.0 && fx < float(W) && fy < float(H))) return 0.0;
  return float(X[(plane * H + uint(fy)) * W + uint(fx)]);
}

float cubic1(float t) { return ((-0.75 + 2.0) * t - (-0.75 + 3.0)) * t * t + 1.0; }
float cubic2(float t) { return ((-0.75 * t - 5.0 * -0.75) * t + 8.0 * -0.75) * t - 4.0 * -0.75; }

float sample_at(uint plane, float gx, float gy) {
#if MODE == 2
  float fx = floor(gx), fy = floor(gy), tx = gx - fx, ty = gy - fy;
  vec4 cx = vec4(cubic2(tx + 1.0), cubic1(tx), cubic1(1.0 - tx), cubic2(2.0 - tx));
  vec4 cy = vec4(cubic2(ty + 1.0), cubic1(ty), cubic1(1.0 - ty), cubic2(2.0 - ty));
  float v = 0.0;
  [[unroll]] for (int r = 0; r < 4; r++) {
    float py = pad_coord(fy - 1.0 + float(r), H), row = 0.0;
    [[unroll]] for (int k = 0; k < 4; k++)
      row += cx[k] * at(plane, trunc(py), trunc(pad_coord(fx - 1.0 + float(k), W)));
    v += cy[r] * row;
  }
  return v;
#else
  float px = pad_coord(gx, W), py = pad_coord(gy, H);
#if MODE == 0
  return at(plane, roundEven(py), roundEven(px));
#else
  float fx = floor(px), fy = floor(py), tx = px - fx, ty = py - fy;
  return (1.0 - ty) * ((1.0 - tx) * at(plane, fy, fx) + tx * at(plane, fy, fx + 1.0)) +
         ty * ((1.0 - tx) * at(plane, fy + 1.0, fx) + tx * at(plane, fy + 1.0, fx + 1.0));
#endif
#endif
}

void main() {
  uint total = N * C * OH * OW, stride = WG_SIZE * GX * max(gl_NumWorkGroups.y, 1u);
  uint u = (gl_WorkGroupID.y * GX + gl_WorkGroupID.x) * WG_SIZE + gl_LocalInvocationID.x;
  [[unroll]] for (uint e = 0; e < EPI; e++, u += stride) {
    if (u >= total) return;
    uint j = u % OW, t = u / OW, i = t % OH, plane = t / OH, n = plane / C;
    uint g = ((n * OH + i) * OW + j) * 2u;
    float gx = unnormalize(float(G[g]), W), gy = unnormalize(float(G[g + 1u]), H);
    Y[u] = T(sample_at(plane, gx, gy));
  }
}
