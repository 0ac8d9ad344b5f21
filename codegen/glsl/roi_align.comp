#version 450
// RoiAlign (ONNX semantics, as the CPU reference and onnxruntime): avg or
// max over a bin's sampling grid of bilinear samples; half_pixel (opset 16)
// or output_half_pixel (opset 10: no half-pixel offset, rois at least 1x1).
// codegen/kernels/roi_align.c instantiates it.
//
// Bindings: 0 = x [N,C,H,W] (DTYPE), 1 = rois [R,4] (DTYPE, x1 y1 x2 y2),
// 2 = batch_indices [R] (i64 as word pairs, or i32: BI_I64), 3 = y
// [R,C,OH,OW] (DTYPE), dense C order, 4 = the error slot.
//
// One output element per invocation step, pw fastest, then ph, c, r: the
// invocations of a workgroup share a roi and read neighbouring parts of
// one plane. Each computes its bin's sampling points and bilinear taps
// (the reference's pre_calc, in fp32) and accumulates in fp32.
// A batch index outside [0, N) is reported in the error slot (the run fails
// naming the node, as the CPU reference does; device_error.glsl) and its
// roi gives NaN. Other rois the reference refuses (a coordinate that is not
// finite, a sampling grid beyond 65536 per axis or 2^20 per bin) give NaN:
// the kernel must neither read outside x nor run for ever.
//
// Bounded rois (bindings 1 and 2 bounded, the extent ABI: extent.glsl): rois,
// batch indices and y are bounded along R (a run-time count of rois, R the
// capacity): the counts come from the rois' and the batch indices' extent
// words; counts that differ are reported (kind 3) and the smaller one is
// used. Invocations past the count write nothing; y's extent word is the
// rois' (copied in the kernel or by the executor: IR_STEP_EXTENT_FROM).
//
// Knobs (#defines): WG_SIZE, EPI (outputs per invocation, WG_SIZE * GX
//   apart). Baked per workload: DTYPE_F16, BI_I64 (#defines); the shape,
//   mode, sampling ratio, spatial scale (float bits) and coordinate mode
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
layout(constant_id = 4) const uint R = 1;
layout(constant_id = 5) const uint OH = 1;
layout(constant_id = 6) const uint OW = 1;
layout(constant_id = 7) const int RATIO = 0;
layout(constant_id = 8) const bool MAX_MODE = false;
layout(constant_id = 9) const bool HALF_PIXEL = true;
layout(constant_id = 10) const uint SCALE_BITS = 0x3f800000u;
layout(constant_id = 11) const uint GX = 1;

layout(set = 0, binding = 0) readonly buffer Xb { T X[]; };
layout(set = 0, binding = 1) readonly buffer Rb { T ROIS[]; };
#if BI_I64
layout(set = 0, binding = 2) readonly buffer Bb { uvec2 BI[]; };
#else
layout(set = 0, binding = 2) readonly buffer Bb { int BI[]; };
#endif
layout(set = 0, binding = 3) writeonly buffer Yb { T Y[]; };
#include "extent.glsl"
#define BOUNDED VKML_EXT_HAS(1)
#define ERROR_BINDING 4
#include "device_error.glsl"

#define QNAN uintBitsToFloat(0x7fc00000u)

int batch_of(uint r) {
#if BI_I64
  uvec2 w = BI[r];
  // in range only when the high word is the low word's sign extension
  bool ok = (w.y == 0u && w.x < 0x80000000u);
  return ok ? int(w.x) : -1;
#else
  return BI[r];
#endif
}

// grid size along one axis; -1 when the reference would refuse it
int grid(float roi_size, uint out_size) {
  if (RATIO > 0) return RATIO <= 65536 ? RATIO : -1;
  float g = ceil(roi_size / float(out_size));
  if (isnan(g) || g > 65536.0) return -1;
  return g < 0.0 ? 0 : int(g);
}

float bin_value(uint u) {
  uint pw = u % OW, t = u / OW;
  uint ph = t % OH;
  t /= OH;
  uint c = t % C, r = t / C;
  int b = batch_of(r);
  if (b < 0 || uint(b) >= N) {
#if BI_I64
    uvec2 w = BI[r];
#else
    uvec2 w = uvec2(uint(BI[r]), BI[r] < 0 ? 0xffffffffu : 0u);
#endif
    report_error(2u, r, w.x, w.y, 0u, N);
    return QNAN;
  }
  float scale = uintBitsToFloat(SCALE_BITS);
  float off = HALF_PIXEL ? 0.5 : 0.0;
  float x1 = float(ROIS[4 * r + 0]) * scale - off, y1 = float(ROIS[4 * r + 1]) * scale - off;
  float x2 = float(ROIS[4 * r + 2]) * scale - off, y2 = float(ROIS[4 * r + 3]) * scale - off;
  if (isnan(x1) || isinf(x1) || isnan(y1) || isinf(y1) || isnan(x2) || isinf(x2) || isnan(y2) ||
      isinf(y2))
    return QNAN;
  float rw = x2 - x1, rh = y2 - y1;
  if (!HALF_PIXEL) {
    rw = max(rw, 1.0);
    rh = max(rh, 1.0);
  }
  float bh = rh / float(OH), bw = rw / float(OW);
  int gh = grid(rh, OH), gw = grid(rw, OW);
  if (gh < 0 || gw < 0 || gh * gw > (1 << 20)) return QNAN;
  float count = gh * gw > 1 ? float(gh * gw) : 1.0;
  uint plane = (uint(b) * C + c) * H * W;
  float acc = 0.0;
  bool first = true;
  for (int iy = 0; iy < gh; iy++) {
    float yy = y1 + float(ph) * bh + (float(iy) + 0.5) * bh / float(gh);
    for (int ix = 0; ix < gw; ix++) {
      float xx = x1 + float(pw) * bw + (float(ix) + 0.5) * bw / float(gw);
      vec4 v = vec4(0.0);
      if (!(yy < -1.0 || yy > float(H) || xx < -1.0 || xx > float(W))) {
        float y = max(yy, 0.0), x = max(xx, 0.0);
        uint yl = uint(y), xl = uint(x), yh, xh;
        if (yl >= H - 1u) {
          yh = yl = H - 1u;
          y = float(yl);
        } else {
          yh = yl + 1u;
        }
        if (xl >= W - 1u) {
          xh = xl = W - 1u;
          x = float(xl);
        } else {
          xh = xl + 1u;
        }
        float ly = y - float(yl), lx = x - float(xl), hy = 1.0 - ly, hx = 1.0 - lx;
        v = vec4(hy * hx * float(X[plane + yl * W + xl]), hy * lx * float(X[plane + yl * W + xh]),
                 ly * hx * float(X[plane + yh * W + xl]), ly * lx * float(X[plane + yh * W + xh]));
      }
      if (MAX_MODE) {
        float m = max(max(v.x, v.y), max(v.z, v.w));
        acc = first || m > acc ? m : acc;
        first = false;
      } else {
        acc += v.x + v.y + v.z + v.w;
      }
    }
  }
  return MAX_MODE ? acc : acc / count;
}

void main() {
  uint wg = gl_WorkGroupID.y * GX + gl_WorkGroupID.x;
  uint stride = WG_SIZE * GX * max(gl_NumWorkGroups.y, 1u);
  uint u = wg * WG_SIZE + gl_LocalInvocationID.x;
#if BOUNDED
  uint nr = vkml_extent(1), nb = vkml_extent(2);
  if (nr != nb && u == 0u) report_error(3u, 1u, nr, 0u, 2u, nb);
  uint total = min(min(nr, nb), R) * C * OH * OW;
#else
  uint total = R * C * OH * OW;
#endif
  [[unroll]] for (uint e = 0; e < EPI; e++, u += stride)
    if (u < total) Y[u] = T(bin_value(u));
}
