// The extent ABI: how every kernel reads and writes the run-time sizes of
// bounded values (codegen/core/extent.h; ir/graph.h for the layout).
//
// A bounded value's buffer holds its capacity's elements, then a 32-bit word:
// the count along its bounded axis at run time (its extent word). For each
// bounded operand of a node (binding j: the inputs, then the outputs), the
// core of codegen (cg_kernel_for_node) sets the specialization constant
// VKML_EXT_WORD<j> to that word's index in binding j's buffer, and the bit j
// of VKML_EXT_LO (bindings 0-15) or VKML_EXT_HI (16-31). A kernel that reads
// or writes extents includes this file and uses only
//   VKML_EXT_HAS(j)        (in #if) whether operand j is bounded
//   vkml_extent(j)         operand j's count, read
//   vkml_set_extent(j, v)  an output's count, written
// with j a literal or a macro of one. The views below alias the operands'
// bindings as words; a kernel's own declarations of them stay as they are.
//
// A node over bounded rows runs as its unbounded twin (VKML_EXT_TWIN 1):
// the template was instantiated for operands that are not bounded, so
// VKML_EXT_HAS is 0 for it, while the extent copy and check wrapped around
// it (extent_copy.glsl, extent_check.glsl) see the words through
// VKML_EXT_VIEW.
#ifndef VKML_EXTENT_GLSL
#define VKML_EXTENT_GLSL

#ifndef VKML_EXT_LO
#define VKML_EXT_LO 0
#endif
#ifndef VKML_EXT_HI
#define VKML_EXT_HI 0
#endif
#ifndef VKML_EXT_TWIN
#define VKML_EXT_TWIN 0
#endif
// no ?: in the GLSL preprocessor: the other half's term is multiplied by 0
#define VKML_EXT_HAS(j) (VKML_EXT_VIEW(j) * (1 - VKML_EXT_TWIN))
#define VKML_EXT_VIEW(j)                                                       \
  ((((VKML_EXT_LO >> ((j) * ((j) < 16))) & 1) * ((j) < 16)) +                  \
   (((VKML_EXT_HI >> (((j) - 16) * ((j) >= 16))) & 1) * ((j) >= 16)))
#define VKML_EXT_CAT_(a, b) a##b
#define VKML_EXT_CAT(a, b) VKML_EXT_CAT_(a, b)
#define vkml_extent(j) VKML_EXT_CAT(vkml_ext, j)[VKML_EXT_CAT(VKML_EXT_WORD, j)]
#define vkml_set_extent(j, v) (VKML_EXT_CAT(vkml_ext, j)[VKML_EXT_CAT(VKML_EXT_WORD, j)] = (v))

layout(constant_id = 240) const uint VKML_EXT_WORD0 = 0xffffffffu;
layout(constant_id = 241) const uint VKML_EXT_WORD1 = 0xffffffffu;
layout(constant_id = 242) const uint VKML_EXT_WORD2 = 0xffffffffu;
layout(constant_id = 243) const uint VKML_EXT_WORD3 = 0xffffffffu;
layout(constant_id = 244) const uint VKML_EXT_WORD4 = 0xffffffffu;
layout(constant_id = 245) const uint VKML_EXT_WORD5 = 0xffffffffu;
layout(constant_id = 246) const uint VKML_EXT_WORD6 = 0xffffffffu;
layout(constant_id = 247) const uint VKML_EXT_WORD7 = 0xffffffffu;
layout(constant_id = 248) const uint VKML_EXT_WORD8 = 0xffffffffu;
layout(constant_id = 249) const uint VKML_EXT_WORD9 = 0xffffffffu;
layout(constant_id = 250) const uint VKML_EXT_WORD10 = 0xffffffffu;
layout(constant_id = 251) const uint VKML_EXT_WORD11 = 0xffffffffu;
layout(constant_id = 252) const uint VKML_EXT_WORD12 = 0xffffffffu;
layout(constant_id = 253) const uint VKML_EXT_WORD13 = 0xffffffffu;
layout(constant_id = 254) const uint VKML_EXT_WORD14 = 0xffffffffu;
layout(constant_id = 255) const uint VKML_EXT_WORD15 = 0xffffffffu;
layout(constant_id = 256) const uint VKML_EXT_WORD16 = 0xffffffffu;
layout(constant_id = 257) const uint VKML_EXT_WORD17 = 0xffffffffu;
layout(constant_id = 258) const uint VKML_EXT_WORD18 = 0xffffffffu;
layout(constant_id = 259) const uint VKML_EXT_WORD19 = 0xffffffffu;
layout(constant_id = 260) const uint VKML_EXT_WORD20 = 0xffffffffu;
layout(constant_id = 261) const uint VKML_EXT_WORD21 = 0xffffffffu;
layout(constant_id = 262) const uint VKML_EXT_WORD22 = 0xffffffffu;
layout(constant_id = 263) const uint VKML_EXT_WORD23 = 0xffffffffu;
layout(constant_id = 264) const uint VKML_EXT_WORD24 = 0xffffffffu;
layout(constant_id = 265) const uint VKML_EXT_WORD25 = 0xffffffffu;
layout(constant_id = 266) const uint VKML_EXT_WORD26 = 0xffffffffu;
layout(constant_id = 267) const uint VKML_EXT_WORD27 = 0xffffffffu;
layout(constant_id = 268) const uint VKML_EXT_WORD28 = 0xffffffffu;
layout(constant_id = 269) const uint VKML_EXT_WORD29 = 0xffffffffu;
layout(constant_id = 270) const uint VKML_EXT_WORD30 = 0xffffffffu;
layout(constant_id = 271) const uint VKML_EXT_WORD31 = 0xffffffffu;

#if VKML_EXT_VIEW(0)
layout(binding = 0, std430) buffer VkmlExt0 { uint vkml_ext0[]; };
#endif
#if VKML_EXT_VIEW(1)
layout(binding = 1, std430) buffer VkmlExt1 { uint vkml_ext1[]; };
#endif
#if VKML_EXT_VIEW(2)
layout(binding = 2, std430) buffer VkmlExt2 { uint vkml_ext2[]; };
#endif
#if VKML_EXT_VIEW(3)
layout(binding = 3, std430) buffer VkmlExt3 { uint vkml_ext3[]; };
#endif
#if VKML_EXT_VIEW(4)
layout(binding = 4, std430) buffer VkmlExt4 { uint vkml_ext4[]; };
#endif
#if VKML_EXT_VIEW(5)
layout(binding = 5, std430) buffer VkmlExt5 { uint vkml_ext5[]; };
#endif
#if VKML_EXT_VIEW(6)
layout(binding = 6, std430) buffer VkmlExt6 { uint vkml_ext6[]; };
#endif
#if VKML_EXT_VIEW(7)
layout(binding = 7, std430) buffer VkmlExt7 { uint vkml_ext7[]; };
#endif
#if VKML_EXT_VIEW(8)
layout(binding = 8, std430) buffer VkmlExt8 { uint vkml_ext8[]; };
#endif
#if VKML_EXT_VIEW(9)
layout(binding = 9, std430) buffer VkmlExt9 { uint vkml_ext9[]; };
#endif
#if VKML_EXT_VIEW(10)
layout(binding = 10, std430) buffer VkmlExt10 { uint vkml_ext10[]; };
#endif
#if VKML_EXT_VIEW(11)
layout(binding = 11, std430) buffer VkmlExt11 { uint vkml_ext11[]; };
#endif
#if VKML_EXT_VIEW(12)
layout(binding = 12, std430) buffer VkmlExt12 { uint vkml_ext12[]; };
#endif
#if VKML_EXT_VIEW(13)
layout(binding = 13, std430) buffer VkmlExt13 { uint vkml_ext13[]; };
#endif
#if VKML_EXT_VIEW(14)
layout(binding = 14, std430) buffer VkmlExt14 { uint vkml_ext14[]; };
#endif
#if VKML_EXT_VIEW(15)
layout(binding = 15, std430) buffer VkmlExt15 { uint vkml_ext15[]; };
#endif
#if VKML_EXT_VIEW(16)
layout(binding = 16, std430) buffer VkmlExt16 { uint vkml_ext16[]; };
#endif
#if VKML_EXT_VIEW(17)
layout(binding = 17, std430) buffer VkmlExt17 { uint vkml_ext17[]; };
#endif
#if VKML_EXT_VIEW(18)
layout(binding = 18, std430) buffer VkmlExt18 { uint vkml_ext18[]; };
#endif
#if VKML_EXT_VIEW(19)
layout(binding = 19, std430) buffer VkmlExt19 { uint vkml_ext19[]; };
#endif
#if VKML_EXT_VIEW(20)
layout(binding = 20, std430) buffer VkmlExt20 { uint vkml_ext20[]; };
#endif
#if VKML_EXT_VIEW(21)
layout(binding = 21, std430) buffer VkmlExt21 { uint vkml_ext21[]; };
#endif
#if VKML_EXT_VIEW(22)
layout(binding = 22, std430) buffer VkmlExt22 { uint vkml_ext22[]; };
#endif
#if VKML_EXT_VIEW(23)
layout(binding = 23, std430) buffer VkmlExt23 { uint vkml_ext23[]; };
#endif
#if VKML_EXT_VIEW(24)
layout(binding = 24, std430) buffer VkmlExt24 { uint vkml_ext24[]; };
#endif
#if VKML_EXT_VIEW(25)
layout(binding = 25, std430) buffer VkmlExt25 { uint vkml_ext25[]; };
#endif
#if VKML_EXT_VIEW(26)
layout(binding = 26, std430) buffer VkmlExt26 { uint vkml_ext26[]; };
#endif
#if VKML_EXT_VIEW(27)
layout(binding = 27, std430) buffer VkmlExt27 { uint vkml_ext27[]; };
#endif
#if VKML_EXT_VIEW(28)
layout(binding = 28, std430) buffer VkmlExt28 { uint vkml_ext28[]; };
#endif
#if VKML_EXT_VIEW(29)
layout(binding = 29, std430) buffer VkmlExt29 { uint vkml_ext29[]; };
#endif
#if VKML_EXT_VIEW(30)
layout(binding = 30, std430) buffer VkmlExt30 { uint vkml_ext30[]; };
#endif
#if VKML_EXT_VIEW(31)
layout(binding = 31, std430) buffer VkmlExt31 { uint vkml_ext31[]; };
#endif

#endif
