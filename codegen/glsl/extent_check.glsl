// Bounded inputs of one elementwise node whose run-time sizes are not known
// to agree before the run (codegen/core/extent.c cg_rows_check_extents): the
// first invocation compares their extent words (the extent ABI,
// extent.glsl) and reports a mismatch in the error slot (kind 3, the two
// inputs and their sizes; runtime/vk/vk_errors.c), as the CPU reports
// shapes that do not broadcast. Define before including: EXTENT_INPUTS (the
// node's inputs, at most 4, bindings 0..EXTENT_INPUTS-1) and
// EXTENT_ERROR_BINDING.

#define ERROR_BINDING EXTENT_ERROR_BINDING
#include "device_error.glsl"
#include "extent.glsl"

#define EXTENT_CMP(k)                                                        \
  {                                                                          \
    uint v = vkml_extent(k);                                                 \
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
#if VKML_EXT_VIEW(0)
  EXTENT_CMP(0)
#endif
#if EXTENT_INPUTS > 1 && VKML_EXT_VIEW(1)
  EXTENT_CMP(1)
#endif
#if EXTENT_INPUTS > 2 && VKML_EXT_VIEW(2)
  EXTENT_CMP(2)
#endif
#if EXTENT_INPUTS > 3 && VKML_EXT_VIEW(3)
  EXTENT_CMP(3)
#endif
}
