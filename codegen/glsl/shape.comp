#version 450
// shape (codegen/kernels/shape.c): x's dims as i64[RANK], a bounded axis's
// its run-time count (the extent ABI, extent.glsl).
//
// Bindings: 0 = x (only its extent word is read), 1 = y (i64 as word pairs).
// Baked: specialization constants below; one workgroup of 8 invocations.

layout(local_size_x = 8) in;

layout(constant_id = 0) const uint RANK = 1;
layout(constant_id = 1) const int BOUNDED_AXIS = -1; // -1: none
layout(constant_id = 8) const uint D0 = 0;
layout(constant_id = 9) const uint D1 = 0;
layout(constant_id = 10) const uint D2 = 0;
layout(constant_id = 11) const uint D3 = 0;
layout(constant_id = 12) const uint D4 = 0;
layout(constant_id = 13) const uint D5 = 0;
layout(constant_id = 14) const uint D6 = 0;
layout(constant_id = 15) const uint D7 = 0;

#include "extent.glsl"
layout(binding = 1, std430) writeonly buffer Y { uvec2 y[]; };

void main() {
  uint d = gl_LocalInvocationID.x;
  if (d >= RANK) return;
  uint dims[8] = uint[8](D0, D1, D2, D3, D4, D5, D6, D7);
#if VKML_EXT_HAS(0)
  uint v = int(d) == BOUNDED_AXIS ? vkml_extent(0) : dims[d];
#else
  uint v = dims[d];
#endif
  y[d] = uvec2(v, 0u);
}
