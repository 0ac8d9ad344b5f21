#version 450
// Layout conversion of a rank-4 [N,C,H,W] tensor between the default
// (row-major) layout and nc4hw4 ([N, ceil(C/4), H, W, 4], the lanes of
// channels >= C zero): the reorder / identity kernel at the edges of packed
// regions (codegen/kernels/elementwise.c instantiates it).
//
// One invocation per packed texel (4 channels of one pixel): DIR 0 (pack)
// gathers the 4 channels' elements, HW apart in the input, and writes the
// texel with 0 in the lanes past C; DIR 1 (unpack) reads a texel and
// scatters its lanes below C. Neighbouring invocations take neighbouring
// pixels, so both sides stay coalesced. Bits move unchanged.
//
// Bindings: 0 = in, 1 = out.
// Knobs (#defines): WG_SIZE (invocations per workgroup), EPI (texels per
//   invocation, each chunk WG_SIZE texels apart).
// Baked (#defines): DIR, ELEM_BYTES (2: needs 16-bit storage, the texel is
//   moved as two words; 4); (specialization constants) texel count, C,
//   ceil(C/4), H*W.
#if ELEM_BYTES == 2
#extension GL_EXT_shader_16bit_storage : require
#define E uint16_t
#define TEX uvec2
#else
#define E uint
#define TEX uvec4
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint TEXELS = 1; // N * C4 * HW
layout(constant_id = 1) const uint C = 1;
layout(constant_id = 2) const uint C4 = 1;
layout(constant_id = 3) const uint HW = 1;

#if DIR == 0
layout(binding = 0, std430) restrict readonly buffer I { E xs[]; };
layout(binding = 1, std430) restrict writeonly buffer O { TEX yt[]; };
#else
layout(binding = 0, std430) restrict readonly buffer I { TEX xt[]; };
layout(binding = 1, std430) restrict writeonly buffer O { E ys[]; };
#endif

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint lane = gl_LocalInvocationID.x;
  for (uint c = 0; c < EPI; c++) {
    uint t = (group * EPI + c) * WG_SIZE + lane;
    if (t >= TEXELS) return;
    uint p = t % HW, r = t / HW;
    uint ch0 = (r % C4) * 4, nb = r / C4;
    uint base = (nb * C + ch0) * HW + p; // the texel's lane 0 in the default layout
    uint nl = min(C - ch0, 4u);          // lanes holding channels
#if DIR == 0
    uvec4 v = uvec4(0u);
    for (uint l = 0; l < nl; l++) v[l] = uint(xs[base + l * HW]);
#if ELEM_BYTES == 2
    yt[t] = uvec2(v.x | (v.y << 16), v.z | (v.w << 16));
#else
    yt[t] = v;
#endif
#else
    TEX w = xt[t];
#if ELEM_BYTES == 2
    uvec4 v = uvec4(w.x & 0xffffu, w.x >> 16, w.y & 0xffffu, w.y >> 16);
#else
    uvec4 v = w;
#endif
    for (uint l = 0; l < nl; l++) ys[base + l * HW] = E(v[l]);
#endif
  }
}
