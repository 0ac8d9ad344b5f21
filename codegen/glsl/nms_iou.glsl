// The boxes and overlap test of non_max_suppression's GPU stages
// (glsl/nms.comp, glsl/nms_window.comp): ONNX semantics, as the CPU
// reference and onnxruntime. Before including: T (the box type), the
// boxes as BX[] ([B,N,4]), and the specialization constants NB (boxes per
// batch), CENTER, MM, ME, TIE_UP.
//
// Overlap (onnxruntime's SuppressByIOU in fp32): IoU rounded to fp32 above
// the threshold t. The quotient is not taken: inter/uni rounds above t
// exactly when inter > m * uni (or equals it and the tie rounds up), m the
// midpoint between t and the next float; m = MM * 2^ME (MM < 2^25) and the
// tie from the host, the products exact in 64-bit integers made of two
// words. Subtractions and products are `precise` (no contraction), as C.

// x_min, y_min, x_max, y_max
vec4 load_box(uint b, uint i) {
  uint at = (b * NB + i) * 4u;
  vec4 v = vec4(float(BX[at]), float(BX[at + 1u]), float(BX[at + 2u]), float(BX[at + 3u]));
  precise vec4 r;
  if (CENTER) {
    float hw = v.z * 0.5, hh = v.w * 0.5;
    r = vec4(v.x - hw, v.y - hh, v.x + hw, v.y + hh);
  } else { // [y1, x1, y2, x2], any two opposite corners
    r = vec4(min(v.y, v.w), min(v.x, v.z), max(v.y, v.w), max(v.x, v.z));
  }
  return r;
}

// a * 2^s > (bh:bl) for a < 2^24, 0 <= s < 26: 1; equal: 0; below: -1
int cmp_shifted(uint a, int s, uint bh, uint bl) {
  uint ah = s == 0 ? 0u : a >> uint(32 - s), al = a << uint(s);
  if (ah != bh) return ah > bh ? 1 : -1;
  if (al != bl) return al > bl ? 1 : -1;
  return 0;
}

// fp32(inter / uni) > t, exactly (see the top)
bool ratio_over(float inter, float uni) {
  int ei, eu;
  float fi = frexp(inter, ei), fu = frexp(uni, eu);
  uint ai = uint(fi * 16777216.0), au = uint(fu * 16777216.0);
  uint bh, bl;
  umulExtended(MM, au, bh, bl); // m * uni = (bh:bl) * 2^(ME + eu - 24)
  int s = ei - ME - eu;         // inter = ai * 2^(ei - 24)
  if (s < 0) return false;
  if (s >= 26) return true;
  int c = cmp_shifted(ai, s, bh, bl);
  return c > 0 || (c == 0 && TIE_UP);
}

bool overlaps(vec4 a, vec4 b) {
  precise float ix_min = max(a.x, b.x), ix_max = min(a.z, b.z);
  if (ix_max <= ix_min) return false;
  precise float iy_min = max(a.y, b.y), iy_max = min(a.w, b.w);
  if (iy_max <= iy_min) return false;
  precise float inter = (ix_max - ix_min) * (iy_max - iy_min);
  if (inter <= 0.0) return false;
  precise float area_a = (a.z - a.x) * (a.w - a.y);
  precise float area_b = (b.z - b.x) * (b.w - b.y);
  precise float uni = area_a + area_b - inter;
  if (area_a <= 0.0 || area_b <= 0.0 || uni <= 0.0) return false;
  return ratio_over(inter, uni);
}

