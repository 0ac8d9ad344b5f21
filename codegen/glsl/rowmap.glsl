// The row mapping of the row kernels (reduce.comp, softmax.comp, norm.comp;
// codegen/core/reduction.c cg_row_begin sets them): O rows of L elements,
// element k of row o at base(o) + off(k), base and off decomposing o and k
// over the NK merged kept axes (dims KD, strides KS) and the NR merged
// reduced ones (RD, RS), innermost first; LANES invocations per row, and
// whether they walk its contiguous axis (LANES_FAST).
layout(constant_id = 0) const uint O = 1;  // outputs
layout(constant_id = 1) const uint L = 1;  // elements reduced into each output
layout(constant_id = 2) const uint NK = 0; // merged kept axes (<= 4)
layout(constant_id = 3) const uint NR = 0; // merged reduced axes (<= 4)
layout(constant_id = 4) const uint KD0 = 1;
layout(constant_id = 5) const uint KD1 = 1;
layout(constant_id = 6) const uint KD2 = 1;
layout(constant_id = 7) const uint KD3 = 1;
layout(constant_id = 8) const uint KS0 = 0;
layout(constant_id = 9) const uint KS1 = 0;
layout(constant_id = 10) const uint KS2 = 0;
layout(constant_id = 11) const uint KS3 = 0;
layout(constant_id = 12) const uint RD0 = 1;
layout(constant_id = 13) const uint RD1 = 1;
layout(constant_id = 14) const uint RD2 = 1;
layout(constant_id = 15) const uint RD3 = 1;
layout(constant_id = 16) const uint RS0 = 0;
layout(constant_id = 17) const uint RS1 = 0;
layout(constant_id = 18) const uint RS2 = 0;
layout(constant_id = 19) const uint RS3 = 0;
layout(constant_id = 40) const uint LANES = 1;      // invocations per slot
layout(constant_id = 41) const uint LANES_FAST = 1; // 1: lanes walk a row's contiguous axis

// Whether LANES places every slot's invocations inside the workgroup: it
// divides WG_SIZE (a power of two; codegen's values always do). Any other
// value, as a forged artifact may hold, would index workgroup memory out of
// range (robust buffer access does not cover it) or divide by zero: the
// kernels return at once (uniformly, before any barrier), their output left
// unwritten. A variable, not a constant expression: glslang folds && of
// specialization constants into invalid SPIR-V.
bool rowmap_lanes_ok() {
  uint l = LANES;
  return l != 0u && l <= uint(WG_SIZE) && uint(WG_SIZE) % l == 0u;
}
