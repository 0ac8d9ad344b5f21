// Cooperative matrices in either API, chosen by CM_KHR (codegen/core/coopmat.h):
// CM_KHR 1 is GL_KHR_cooperative_matrix (compiled by glslang 15), 0 is
// GL_NV_cooperative_matrix (shaderc's glslang 12). Include right after
// #version. With ACC (accumulator bits, 16 or 32) defined:
//   CM_A(r, c), CM_B(r, c)     f16 operands (r x c)
//   CM_ACC(r, c), CM_F32(r, c) accumulators of ACC bits, of 32 bits
//   CM_LOAD(m, buf, element, stride, column_major), CM_STORE(...) likewise
//   CM_MULADD(a, b, c)         a * b + c
// element and stride count the array's elements (a uvec4 counts 8 halves);
// column_major must be the literal true or false.
#if CM_KHR
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#define CM_A(r, c) coopmat<float16_t, gl_ScopeSubgroup, r, c, gl_MatrixUseA>
#define CM_B(r, c) coopmat<float16_t, gl_ScopeSubgroup, r, c, gl_MatrixUseB>
#define CM_F32(r, c) coopmat<float, gl_ScopeSubgroup, r, c, gl_MatrixUseAccumulator>
#if ACC == 16
#define CM_ACC(r, c) coopmat<float16_t, gl_ScopeSubgroup, r, c, gl_MatrixUseAccumulator>
#else
#define CM_ACC(r, c) CM_F32(r, c)
#endif
#define CM_LAYOUT_true gl_CooperativeMatrixLayoutColumnMajor
#define CM_LAYOUT_false gl_CooperativeMatrixLayoutRowMajor
#define CM_LOAD(m, buf, e, stride, col) coopMatLoad(m, buf, e, stride, CM_LAYOUT_##col)
#define CM_STORE(m, buf, e, stride, col) coopMatStore(m, buf, e, stride, CM_LAYOUT_##col)
#define CM_MULADD(a, b, c) coopMatMulAdd(a, b, c)
#else
#extension GL_NV_cooperative_matrix : require
// scope 3 = gl_ScopeSubgroup (the name needs GL_KHR_memory_scope_semantics)
#define CM_A(r, c) fcoopmatNV<16, 3, r, c>
#define CM_B(r, c) fcoopmatNV<16, 3, r, c>
#define CM_F32(r, c) fcoopmatNV<32, 3, r, c>
#define CM_ACC(r, c) fcoopmatNV<ACC, 3, r, c>
#define CM_LOAD(m, buf, e, stride, col) coopMatLoadNV(m, buf, e, stride, col)
#define CM_STORE(m, buf, e, stride, col) coopMatStoreNV(m, buf, e, stride, col)
#define CM_MULADD(a, b, c) coopMatMulAddNV(a, b, c)
#endif
