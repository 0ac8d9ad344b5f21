// Bounded inputs of one elementwise node whose run-time sizes are not known
// to agree before the run (codegen/cg_rows.c): the first invocation compares
// their extent words and reports a mismatch in the error slot (kind 3, the
// two inputs and their sizes; runtime/vk/vk_errors.c), as the CPU reports
// shapes that do not broadcast. Define before including: EXTENT_INPUTS (the
// node's inputs, at most 4, bindings 0..EXTENT_INPUTS-1) and
// EXTENT_ERROR_BINDING. Specialization constants 200..203: each input's
// extent word (32-bit words into its binding; 0xffffffff: not bounded).

#define ERROR_BINDING EXTENT_ERROR_BINDING
#include "device_error.glsl"

layout(constant_id = 200) const uint XW0 = 0xffffffffu;
layout(constant_id = 201) const uint XW1 = 0xffffffffu;
layout(constant_id = 202) const uint XW2 = 0xffffffffu;
layout(constant_id = 203) const uint XW3 = 0xffffffffu;
layout(binding = 0, std430) readonly buffer XWb0 { uint xw0[]; };
#if EXTENT_INPUTS > 1
layout(binding = 1, std430) readonly buffer XWb1 { uint xw1[]; };
#endif
#if EXTENT_INPUTS > 2
layout(binding = 2, std430) readonly buffer XWb2 { uint xw2[]; };
#endif
#if EXTENT_INPUTS > 3
layout(binding = 3, std430) readonly buffer XWb3 { uint xw3[]; };
#endif

#define EXTENT_CMP(k)                                                        \
  if (XW##k != 0xffffffffu) {                                                \
    uint v = xw##k[XW##k];                                                   \
    if (ref == 0xffffffffu) {                                                \
      ref = v;                                                               \
      at = k;                                                                \
    } else if (v != ref) {                                                   \
      report_error(3u, at, ref, 0u, k, v);                                   \
    }                                                                        \
  }

void check_extents() {
  if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u || gl_LocalInvocationID.x != 0u) return;
  uint ref = 0xffffffffu, at = 0u;
  EXTENT_CMP(0)
#if EXTENT_INPUTS > 1
  EXTENT_CMP(1)
#endif
#if EXTENT_INPUTS > 2
  EXTENT_CMP(2)
#endif
#if EXTENT_INPUTS > 3
  EXTENT_CMP(3)
#endif
}
