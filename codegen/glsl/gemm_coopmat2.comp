#version 450
// GEMM on workgroup-scope cooperative matrices with tensor addressing
// (GL_NV_cooperative_matrix2; compiled by glslang 15): the same workload,
// bindings and specialization constants as gemm_coopmat.comp
// (codegen/kernels/gemm.c instantiates it):
//   Y[z][i][j] = ACT(ALPHA * sum_k A(z,i,k) * B(z,k,j) + BETA * C[i][j])
// The workgroup owns one BM x BN accumulator; per step of BK it loads A's
// BM x BK and B's BK x BN slices straight from the buffers through tensor
// layouts (the driver stages them; out-of-range elements read as zero) and
// multiplies. The epilogue is one per-element function (alpha, C, the
// activation) and a clamped tensor store (nothing past M x N is written).
//
// Bindings: 0 = A, 1 = B, [2 = C when HAS_C], then Y; f16 tensors.
// Knobs (#defines): BM, BN, BK (multiples of the device's granularity),
//   ACC (accumulator bits: 16, 32), WG (invocations per workgroup, one the
//   device lists for these types).
// Baked per workload (#defines): ACT, HAS_C, A_T (1: A is stored [k][m],
//   A_SI == 1; else [m][k], A_SK == 1), B_T (1: B is stored [n][k], B_SK == 1;
//   else [k][n], B_SJ == 1).
// Baked per shape (specialization constants): gemm_params.glsl.
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WG) in;

#include "gemm_params.glsl"

layout(binding = 0, std430) readonly buffer BufA { float16_t a_s[]; };
layout(binding = 1, std430) readonly buffer BufB { float16_t b_s[]; };
#if HAS_C
layout(binding = 2, std430) readonly buffer BufC { float16_t c_s[]; };
#endif
layout(binding = 2 + HAS_C, std430) writeonly buffer BufY { float16_t y_s[]; };

#include "act.glsl" // act(x)

#if ACC == 16
#define ACC_TYPE float16_t
#else
#define ACC_TYPE float
#endif
#define CLAMP gl_CooperativeMatrixClampModeConstantNV

// Row i0 + r, column j0 + c of the product: alpha, C, the activation.
float epilogue(const in uint r, const in uint c, const in float v, const in uint i0,
               const in uint j0) {
  float x = ALPHA * v;
#if HAS_C
  uint gi = i0 + r, gj = j0 + c;
  if (gi < M && gj < N) x += BETA * float(c_s[gi * C_SI + gj * C_SJ]);
#endif
  return act(x);
}

void main() {
  uint n0 = gl_WorkGroupID.x * BN, m0 = gl_WorkGroupID.y * BM;
  uint z = gl_WorkGroupID.z, r = z, aoff = 0, boff = 0, c;
#define STEP(i)                   \
  if (NBD > i) {                  \
    c = r % BD##i;                \
    r = r / BD##i;                \
    aoff += c * BSA##i;           \
    boff += c * BSB##i;           \
  }
  STEP(0) STEP(1) STEP(2) STEP(3)
#undef STEP

  // A as [M][K] rows of stride A_SI, or [K][M] rows of stride A_SK read
  // through a transposing view; B likewise
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
  tensorLayoutNV<2, CLAMP> la = createTensorLayoutNV(2, CLAMP);
  tensorLayoutNV<2, CLAMP> lb = createTensorLayoutNV(2, CLAMP);
#if A_T
  la = setTensorLayoutDimensionNV(la, K, M);
  la = setTensorLayoutStrideNV(la, A_SK, 1);
#else
  la = setTensorLayoutDimensionNV(la, M, K);
  la = setTensorLayoutStrideNV(la, A_SI, 1);
#endif
#if B_T
  lb = setTensorLayoutDimensionNV(lb, N, K);
  lb = setTensorLayoutStrideNV(lb, B_SJ, 1);
#else
  lb = setTensorLayoutDimensionNV(lb, K, N);
  lb = setTensorLayoutStrideNV(lb, B_SK, 1);
#endif
  tensorLayoutNV<2, CLAMP> ly = createTensorLayoutNV(2, CLAMP);
  ly = setTensorLayoutDimensionNV(ly, M, N);
  ly = setTensorLayoutStrideNV(ly, N, 1);

  coopmat<ACC_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
      coopmat<ACC_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
  for (uint k0 = 0; k0 < K; k0 += BK) {
    coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
#if A_T
    coopMatLoadTensorNV(ma, a_s, aoff, sliceTensorLayoutNV(la, k0, BK, m0, BM), transposed);
#else
    coopMatLoadTensorNV(ma, a_s, aoff, sliceTensorLayoutNV(la, m0, BM, k0, BK));
#endif
#if B_T
    coopMatLoadTensorNV(mb, b_s, boff, sliceTensorLayoutNV(lb, n0, BN, k0, BK), transposed);
#else
    coopMatLoadTensorNV(mb, b_s, boff, sliceTensorLayoutNV(lb, k0, BK, n0, BN));
#endif
    acc = coopMatMulAdd(ma, mb, acc);
  }

  coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> f =
      coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
  coopMatPerElementNV(f, f, epilogue, m0, n0);
  coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> y =
      coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(f);
  coopMatStoreTensorNV(y, y_s, z * M * N, sliceTensorLayoutNV(ly, m0, BM, n0, BN));
}
