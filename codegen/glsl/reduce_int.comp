#version 450
// Integer reductions (sum, prod, max, min) of small static i32 / i64
// tensors (codegen/kernels/reduce.c): the shape arithmetic of exported
// detectors, e.g. the element count of a run-time sized value as
// reduce_prod(shape(x)), stays on the device. One invocation per output
// element walks its reduced elements in order; integers wrap as the CPU's.
//
// Bindings: 0 = x, 1 = y (dense C order).
// Baked (#defines): OP (0 sum, 1 prod, 2 max, 3 min), DT (2 i32, 3 i64).
// Specialization constants: RANK, MASK (bit d: axis d is reduced), OUT_N
//   (output elements), D0..D7 (x's dims).

#if DT == 3
#extension GL_ARB_gpu_shader_int64 : require
#define T int64_t
#else
#define T int
#endif

layout(local_size_x = 64) in;

layout(constant_id = 0) const uint RANK = 1;
layout(constant_id = 1) const uint MASK = 1;
layout(constant_id = 2) const uint OUT_N = 1;
layout(constant_id = 8) const uint D0 = 1;
layout(constant_id = 9) const uint D1 = 1;
layout(constant_id = 10) const uint D2 = 1;
layout(constant_id = 11) const uint D3 = 1;
layout(constant_id = 12) const uint D4 = 1;
layout(constant_id = 13) const uint D5 = 1;
layout(constant_id = 14) const uint D6 = 1;
layout(constant_id = 15) const uint D7 = 1;

layout(binding = 0, std430) readonly buffer X { T x[]; };
layout(binding = 1, std430) writeonly buffer Y { T y[]; };

T combine(T a, T b) {
#if OP == 0
  return a + b;
#elif OP == 1
  return a * b;
#elif OP == 2
  return max(a, b);
#else
  return min(a, b);
#endif
}

void main() {
  uint o = gl_GlobalInvocationID.x;
  if (o >= OUT_N) return;
  uint dims[8] = uint[8](D0, D1, D2, D3, D4, D5, D6, D7);
  uint stride[8];
  uint s = 1u, reduced = 1u;
  for (int d = int(RANK) - 1; d >= 0; d--) {
    stride[d] = s;
    s *= dims[d];
    if (((MASK >> uint(d)) & 1u) != 0u) reduced *= dims[d];
  }
  // o's offset over the kept axes (C order), then each reduced element's
  uint base = 0u, rem = o;
  for (int d = int(RANK) - 1; d >= 0; d--)
    if (((MASK >> uint(d)) & 1u) == 0u) {
      base += (rem % dims[d]) * stride[d];
      rem /= dims[d];
    }
  T acc = x[base];
  for (uint r = 1u; r < reduced; r++) {
    uint q = r, off = base;
    for (int d = int(RANK) - 1; d >= 0; d--)
      if (((MASK >> uint(d)) & 1u) != 0u) {
        off += (q % dims[d]) * stride[d];
        q /= dims[d];
      }
    acc = combine(acc, x[off]);
  }
  y[o] = acc;
}
