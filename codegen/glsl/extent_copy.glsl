// The extent copy of a kernel over bounded rows (codegen/core/extent.c): the
// node runs as its unbounded twin over the capacity, and its outputs take
// the extent word of one input. cg_kernel_compile renames the template's
// main() to vkml_kernel_main() and appends this file, whose main() first
// copies the word (the first invocation), then runs the template.
// Defines: VKML_EXTENT_IN (the input's binding), VKML_EXTENT_OUTS outputs at
// bindings VKML_EXTENT_OUT0.. (at most 4).
#undef main
#include "extent.glsl"

void main() {
  if (gl_WorkGroupID == uvec3(0u) && gl_LocalInvocationIndex == 0u) {
    uint e = vkml_extent(VKML_EXTENT_IN);
    vkml_set_extent(VKML_EXTENT_OUT0, e);
#if VKML_EXTENT_OUTS > 1
    vkml_set_extent(VKML_EXTENT_OUT1, e);
#endif
#if VKML_EXTENT_OUTS > 2
    vkml_set_extent(VKML_EXTENT_OUT2, e);
#endif
#if VKML_EXTENT_OUTS > 3
    vkml_set_extent(VKML_EXTENT_OUT3, e);
#endif
  }
  vkml_kernel_main();
}
