// Reading one index of a gather or scatter (data_gather.comp,
// scatter.comp). Before including: the indices buffer `ind` (int[] for
// IDX64 0, uvec2[] for IDX64 1: two's complement low and high words, so no
// shaderInt64 is needed) and device_error.glsl.
//
// fix_index_at(j, dim, axis): index j wrapped once if negative (+ dim); still
// outside [0, dim) it is reported in the error slot (the run fails, naming
// the node, as the CPU kernel would) and clamped into range, so the kernel
// never reads or writes out of bounds.
int fix_index_at(uint j, int dim, uint axis) {
#if IDX64
  uvec2 v = ind[j];
  int k;
  bool ok;
  if (v.y == 0u) {
    ok = v.x < uint(dim);
    k = ok ? int(v.x) : dim - 1;
  } else if (v.y == 0xffffffffu && v.x >= 0x80000000u) { // in [-2^31, 0)
    k = int(v.x) + dim;
    ok = k >= 0;
  } else {
    ok = false;
    k = int(v.y) < 0 ? 0 : dim - 1;
  }
  if (!ok) report_index_error(j, v.x, v.y, axis, uint(dim));
  return clamp(k, 0, dim - 1);
#else
  int raw = ind[j], k = raw < 0 ? raw + dim : raw;
  if (k < 0 || k >= dim)
    report_index_error(j, uint(raw), raw < 0 ? 0xffffffffu : 0u, axis, uint(dim));
  return clamp(k, 0, dim - 1);
#endif
}
