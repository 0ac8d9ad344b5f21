#version 450
// Prefix sum along one axis (cumsum: inclusive or exclusive, forward or
// reverse) in one dispatch. codegen/kernels/cumsum.c instantiates it.
//
// Bindings: 0 = x, 1 = y (same dtype and shape, dense C order).
//
// A row is the LEN elements along the axis for one (outer, inner) pair:
// element t of row r (in scan order) is x[(o * LEN + j) * INNER + i] with
// o = r / INNER, i = r % INNER, j = t (REVERSE: LEN - 1 - t).
//
// MODE 0 (serial): one invocation per row walks it in order. Neighbouring
//   invocations are neighbouring i, so loads coalesce when INNER > 1: the
//   mapping for short rows and for axes that are not innermost.
// MODE 3 (tiled; an axis that is not innermost, over few rows): one
//   workgroup per TILE_C neighbouring columns (i) of one o, WG_SIZE / TILE_C
//   invocations along the axis per column, each owning a segment: its
//   segment's total (coalesced across the columns), the totals of the
//   segments before it from shared memory, then its segment scanned again
//   from that offset. x is read twice.
// MODE 1 (blocked, the integrated-GPU TVM paper's three stages): one
//   workgroup per row, in chunks of WG_SIZE * R elements. The chunk is
//   loaded coalesced into shared memory; (1) each invocation scans its own
//   register block of R consecutive elements sequentially; (2) a
//   Hillis-Steele scan over the WG_SIZE per-invocation totals in shared
//   memory (log2 WG_SIZE steps, double-buffered); (3) each invocation adds
//   its exclusive prefix and the carry of the previous chunks back into its
//   block, which goes out through shared memory, coalesced.
//
// Knobs (#defines): WG_SIZE, R (elements per invocation and chunk), MODE
//   (0: chosen by the host; 1 serial; 2 blocked; 3 tiled; read by the host).
// Baked per workload (#define): DTYPE 0 f32, 1 f16 (accumulated in fp32),
//   2 i32 (wrapping), 3 i64 (pairs of words, added with carry: wrapping,
//   no 64-bit arithmetic needed). Specialization constants: ROWS, LEN,
//   INNER, EXCLUSIVE, REVERSE, MAPPING (0 serial, 1 blocked, 2 tiled: the
//   host's MODE), GX (workgroups along x of a grid folded into y), TILE_C.

#extension GL_EXT_control_flow_attributes : enable
#if DTYPE == 1
#extension GL_EXT_shader_16bit_storage : require
#endif

#if DTYPE == 0
#define ST float
#define A float
#define ZERO 0.0
#define LOADA(i) X[i]
#define STOREA(i, v) Y[i] = (v)
#define ADD(a, b) ((a) + (b))
#elif DTYPE == 1
#define ST float16_t
#define A float
#define ZERO 0.0
#define LOADA(i) float(X[i])
#define STOREA(i, v) Y[i] = float16_t(v)
#define ADD(a, b) ((a) + (b))
#elif DTYPE == 2
#define ST int
#define A int
#define ZERO 0
#define LOADA(i) X[i]
#define STOREA(i, v) Y[i] = (v)
#define ADD(a, b) ((a) + (b))
#else
#define ST uvec2
#define A uvec2
#define ZERO uvec2(0u)
#define LOADA(i) X[i]
#define STOREA(i, v) Y[i] = (v)
#define ADD(a, b) add64(a, b)
uvec2 add64(uvec2 a, uvec2 b) {
  uint carry;
  uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}
#endif

layout(local_size_x = WG_SIZE) in;

layout(constant_id = 0) const uint ROWS = 1;
layout(constant_id = 1) const uint LEN = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const bool EXCLUSIVE = false;
layout(constant_id = 4) const bool REVERSE = false;
layout(constant_id = 5) const uint MAPPING = 0;
layout(constant_id = 6) const uint GX = 1;
layout(constant_id = 7) const uint TILE_C = 32;

layout(set = 0, binding = 0) readonly buffer Xb { ST X[]; };
layout(set = 0, binding = 1) writeonly buffer Yb { ST Y[]; };

#define CHUNK (WG_SIZE * R)
shared A s_blk[CHUNK];
shared A s_tot[2][WG_SIZE];

uint at_oi(uint o, uint i, uint t) {
  uint j = REVERSE ? LEN - 1u - t : t;
  return (o * LEN + j) * INNER + i;
}

uint at(uint r, uint t) {
  uint o = r / INNER;
  return at_oi(o, r - o * INNER, t);
}

void serial(uint r) {
  A acc = ZERO;
  for (uint t = 0; t < LEN; t++) {
    uint k = at(r, t);
    A v = LOADA(k);
    if (EXCLUSIVE) STOREA(k, acc);
    acc = ADD(acc, v);
    if (!EXCLUSIVE) STOREA(k, acc);
  }
}

void blocked(uint r) {
  uint lid = gl_LocalInvocationID.x;
  A carry = ZERO;
  for (uint base = 0; base < LEN; base += CHUNK) {
    [[unroll]] for (uint q = 0; q < R; q++) {
      uint t = base + q * WG_SIZE + lid;
      s_blk[q * WG_SIZE + lid] = t < LEN ? LOADA(at(r, t)) : ZERO;
    }
    barrier();
    // (1) the register block, scanned in order
    A v[R];
    A run = ZERO;
    [[unroll]] for (uint q = 0; q < R; q++) {
      v[q] = s_blk[lid * R + q];
      run = ADD(run, v[q]);
    }
    // (2) Hillis-Steele over the invocations' totals
    s_tot[0][lid] = run;
    barrier();
    uint src = 0;
    for (uint d = 1; d < WG_SIZE; d <<= 1) {
      A x = s_tot[src][lid];
      if (lid >= d) x = ADD(s_tot[src][lid - d], x);
      s_tot[1 - src][lid] = x;
      src = 1 - src;
      barrier();
    }
    A off = ADD(carry, lid > 0 ? s_tot[src][lid - 1] : ZERO);
    carry = ADD(carry, s_tot[src][WG_SIZE - 1]);
    // (3) add back, through shared memory to coalesced stores
    [[unroll]] for (uint q = 0; q < R; q++) {
      A inc = ADD(off, v[q]);
      s_blk[lid * R + q] = EXCLUSIVE ? off : inc;
      off = inc;
    }
    barrier();
    [[unroll]] for (uint q = 0; q < R; q++) {
      uint t = base + q * WG_SIZE + lid;
      if (t < LEN) STOREA(at(r, t), s_blk[q * WG_SIZE + lid]);
    }
    barrier(); // the next chunk reuses s_blk and s_tot
  }
}

void tiled(uint w) {
  const uint S = WG_SIZE / TILE_C;
  uint tiles = (INNER + TILE_C - 1u) / TILE_C;
  uint o = w / tiles, i = (w - o * tiles) * TILE_C;
  uint lid = gl_LocalInvocationID.x, c = lid % TILE_C, s = lid / TILE_C;
  i += c;
  bool col = i < INNER;
  uint seg = (LEN + S - 1u) / S, t0 = min(LEN, s * seg), t1 = min(LEN, t0 + seg);
  A acc = ZERO;
  if (col)
    for (uint t = t0; t < t1; t++) acc = ADD(acc, LOADA(at_oi(o, i, t)));
  s_blk[s * TILE_C + c] = acc;
  barrier();
  A off = ZERO;
  for (uint q = 0; q < s; q++) off = ADD(off, s_blk[q * TILE_C + c]);
  if (!col) return;
  for (uint t = t0; t < t1; t++) {
    uint k = at_oi(o, i, t);
    A v = LOADA(k);
    if (EXCLUSIVE) STOREA(k, off);
    off = ADD(off, v);
    if (!EXCLUSIVE) STOREA(k, off);
  }
}

void main() {
  // tiled() indexes s_blk by lid / TILE_C and lid % TILE_C (within the
  // workgroup for any TILE_C but 0, which the host never sets): a forged 0
  // returns at once, uniformly, its output left as it was (robust buffer
  // access does not cover workgroup memory). A variable, not a constant
  // expression (as rowmap_lanes_ok).
  uint tc = TILE_C;
  if (tc == 0u) return;
  uint wg = gl_WorkGroupID.y * GX + gl_WorkGroupID.x;
  if (MAPPING == 2u) {
    if (wg < ROWS / INNER * ((INNER + TILE_C - 1u) / TILE_C)) tiled(wg);
  } else if (MAPPING == 1u) {
    if (wg < ROWS) blocked(wg);
  } else {
    uint r = wg * WG_SIZE + gl_LocalInvocationID.x;
    if (r < ROWS) serial(r);
  }
}
