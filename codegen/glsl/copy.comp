#version 450
// A plain buffer copy: identity, reshape, flatten, squeeze, unsqueeze and
// same-type cast move bytes unchanged (codegen/kernels/elementwise.c).
//
// Bindings: 0 = in, 1 = out, the same byte count.
// Knobs (#defines): WG_SIZE (invocations per workgroup), EPI (16-byte
//   vectors per invocation, each chunk WG_SIZE vectors apart).
// Baked (#define): BYTE_TAIL (1 when the size is not a multiple of 4 bytes,
//   which needs 8-bit storage); (specialization constants) the sizes.
// The last bytes % 16 bytes go as words, then single bytes, written by the
// first invocations of workgroup 0.
#if BYTE_TAIL
#extension GL_EXT_shader_8bit_storage : require
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint NQ = 0; // whole 16-byte vectors
layout(constant_id = 1) const uint NW = 0; // whole 4-byte words
layout(constant_id = 2) const uint NB = 0; // bytes

layout(binding = 0, std430) readonly buffer IQ { uvec4 iq[]; };
layout(binding = 0, std430) readonly buffer IW { uint iw[]; };
layout(binding = 1, std430) writeonly buffer OQ { uvec4 oq[]; };
layout(binding = 1, std430) writeonly buffer OW { uint ow[]; };
#if BYTE_TAIL
layout(binding = 0, std430) readonly buffer IB { uint8_t ib[]; };
layout(binding = 1, std430) writeonly buffer OB { uint8_t ob[]; };
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint lane = gl_LocalInvocationID.x;
  for (uint c = 0; c < EPI; c++) {
    uint q = (group * EPI + c) * WG_SIZE + lane;
    if (q >= NQ) break;
    oq[q] = iq[q];
  }
  if (group == 0) {
    uint w = NQ * 4 + lane; // at most 3 words
    if (w < NW) ow[w] = iw[w];
#if BYTE_TAIL
    uint b = NW * 4 + lane; // at most 3 bytes
    if (b < NB) ob[b] = ib[b];
#endif
  }
}
