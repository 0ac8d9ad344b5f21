/* The op test table: one row per case, every op that has a GPU kernel.
 * tests/vk/test_ops.c runs each row as a criterion test (ops::<name>): the
 * graph on the CPU reference and on the GPU, once per dtype of the row, per
 * template that takes its first node and per schedule (the default, then
 * sampled points of the template's space), every step asserted on the GPU.
 * tests/vk/test_spec_constants.c compiles the same rows' kernels and checks
 * each against the GLSL files' specialization constants. A new op joins
 * both with one row here (docs/adding-an-op.md), as ggml's test-backend-ops
 * takes a new op.
 *
 * X(name, fields...): the fields initialise an op_case (op_case.h):
 *   .dtypes   the dtypes $T stands for: F32, F16, I32, I64 (or'ed)
 *   .inputs   the graph's inputs, "%x: $T[3,7], %i: i64[2]"
 *   .outputs  its outputs, "%y: $T[3,7]"
 *   .body     its nodes and constants, ';'-separated; the first node is the
 *             one whose templates and schedules are sampled
 *   .lo .hi   float inputs drawn non-zero in [lo, hi) (default -2, 2)
 *   .ilo .ihi integer inputs in [ilo, ihi) (default 0, 3)
 *   .rtol .atol  the tolerance over fp32 (default 1e-4, 1e-5); fp16 ten
 *             times .rtol16 / .atol16 (default 1e-2, 1e-2)
 *   .gpu_only_default  1: the staged ops, whose node a pass splits (their
 *             stages run with their default schedules) */
#ifndef VK_OP_CASES_H
#define VK_OP_CASES_H

#define F32 1u
#define F16 2u
#define I32 4u
#define I64 8u
#define FLOATS (F32 | F16)

#define UNARY_CASE(X, op, attrs, ...)                                              \
  X(op, .dtypes = FLOATS, .inputs = "%x: $T[3,37]", .outputs = "%y: $T[3,37]",      \
    .body = "%y = " #op " %x " attrs " : $T[3,37]", __VA_ARGS__)

#define OP_CASES(X)                                                                 \
  /* ---- elementwise unary ---- */                                                 \
  UNARY_CASE(X, relu, "", .lo = -2)                                                 \
  UNARY_CASE(X, sigmoid, "", .lo = -4, .hi = 4)                                     \
  UNARY_CASE(X, tanh, "", .lo = -3, .hi = 3)                                        \
  UNARY_CASE(X, exp, "", .lo = -3, .hi = 2)                                         \
  UNARY_CASE(X, log, "", .lo = 0.1, .hi = 5)                                        \
  UNARY_CASE(X, sqrt, "", .lo = 0.1, .hi = 9)                                       \
  UNARY_CASE(X, erf, "", .lo = -3, .hi = 3)                                         \
  UNARY_CASE(X, neg, "", .lo = -2)                                                  \
  UNARY_CASE(X, abs, "", .lo = -2)                                                  \
  UNARY_CASE(X, reciprocal, "", .lo = -4, .hi = 4)                                  \
  UNARY_CASE(X, softplus, "", .lo = -4, .hi = 4)                                    \
  UNARY_CASE(X, sign, "", .lo = -2)                                                 \
  UNARY_CASE(X, floor, "", .lo = -9, .hi = 9)                                       \
  UNARY_CASE(X, ceil, "", .lo = -9, .hi = 9)                                        \
  UNARY_CASE(X, round, "", .lo = -9, .hi = 9)                                       \
  UNARY_CASE(X, hard_swish, "", .lo = -5, .hi = 5)                                  \
  UNARY_CASE(X, leaky_relu, "{alpha=0.3}", .lo = -2)                                \
  UNARY_CASE(X, elu, "{alpha=0.7}", .lo = -3, .hi = 3)                              \
  UNARY_CASE(X, selu, "", .lo = -3, .hi = 3)                                        \
  UNARY_CASE(X, hard_sigmoid, "{alpha=0.25, beta=0.4}", .lo = -4, .hi = 4)          \
  UNARY_CASE(X, clip, "{min=-0.5, max=1.25}", .lo = -2)                             \
  UNARY_CASE(X, sin, "", .lo = -7, .hi = 7)                                         \
  UNARY_CASE(X, cos, "", .lo = -7, .hi = 7)                                         \
  UNARY_CASE(X, tan, "", .lo = -1.4, .hi = 1.4)                                     \
  UNARY_CASE(X, asin, "", .lo = -0.99, .hi = 0.99)                                  \
  UNARY_CASE(X, acos, "", .lo = -0.99, .hi = 0.99)                                  \
  UNARY_CASE(X, atan, "", .lo = -6, .hi = 6)                                        \
  UNARY_CASE(X, sinh, "", .lo = -4, .hi = 4)                                        \
  UNARY_CASE(X, cosh, "", .lo = -4, .hi = 4)                                        \
  UNARY_CASE(X, asinh, "", .lo = -6, .hi = 6)                                       \
  UNARY_CASE(X, acosh, "", .lo = 1.01, .hi = 8)                                     \
  UNARY_CASE(X, atanh, "", .lo = -0.95, .hi = 0.95)                                 \
  X(logical_not, .dtypes = F32, .inputs = "%x: bool[4,9]", .outputs = "%y: bool[4,9]",       \
    .body = "%y = not %x : bool[4,9]")                                              \
  X(cast_to_i32, .dtypes = FLOATS, .inputs = "%x: $T[5,6]", .outputs = "%y: i32[5,6]", \
    .body = "%y = cast %x {to=i32} : i32[5,6]", .lo = -50, .hi = 50)                \
  X(cast_from_i64, .dtypes = FLOATS, .inputs = "%x: i64[5,6]", .outputs = "%y: $T[5,6]", \
    .body = "%y = cast %x {to=$T} : $T[5,6]", .ilo = -9, .ihi = 9)                  \
  /* ---- elementwise binary and variadic, NumPy broadcasting ---- */               \
  X(add, .dtypes = FLOATS | I32 | I64, .inputs = "%a: $T[2,3,8], %b: $T[3,1]",       \
    .outputs = "%y: $T[2,3,8]", .body = "%y = add %a, %b : $T[2,3,8]")              \
  X(sub_relu, .dtypes = FLOATS, .inputs = "%a: $T[4,16], %b: $T[4,16]",             \
    .outputs = "%y: $T[4,16]", .body = "%y = sub %a, %b {act=relu} : $T[4,16]")     \
  X(mul, .dtypes = FLOATS | I32, .inputs = "%a: $T[6,5], %b: $T[5]",                \
    .outputs = "%y: $T[6,5]", .body = "%y = mul %a, %b : $T[6,5]")                  \
  X(div, .dtypes = FLOATS, .inputs = "%a: $T[7,9], %b: $T[7,1]",                    \
    .outputs = "%y: $T[7,9]", .body = "%y = div %a, %b : $T[7,9]", .lo = 0.5,        \
    .hi = 3)                                                                        \
  X(pow, .dtypes = FLOATS, .inputs = "%a: $T[3,10], %b: $T[3,10]",                  \
    .outputs = "%y: $T[3,10]", .body = "%y = pow %a, %b : $T[3,10]", .lo = 0.5,      \
    .hi = 2)                                                                        \
  X(prelu, .dtypes = FLOATS, .inputs = "%a: $T[2,4,5], %b: $T[4,1]",                \
    .outputs = "%y: $T[2,4,5]", .body = "%y = prelu %a, %b : $T[2,4,5]")            \
  X(greater, .dtypes = FLOATS | I32, .inputs = "%a: $T[3,8], %b: $T[8]",            \
    .outputs = "%y: bool[3,8]", .body = "%y = greater %a, %b : bool[3,8]")          \
  X(equal, .dtypes = I32 | I64, .inputs = "%a: $T[3,8], %b: $T[3,1]",               \
    .outputs = "%y: bool[3,8]", .body = "%y = equal %a, %b : bool[3,8]")            \
  X(and, .dtypes = F32, .inputs = "%a: bool[5,4], %b: bool[4]",                     \
    .outputs = "%y: bool[5,4]", .body = "%y = and %a, %b : bool[5,4]")              \
  X(mod_int, .dtypes = I32 | I64, .inputs = "%a: $T[4,6], %b: $T[6]",               \
    .outputs = "%y: $T[4,6]", .body = "%y = mod %a, %b : $T[4,6]", .ilo = 1,         \
    .ihi = 9)                                                                       \
  X(max3, .dtypes = FLOATS | I32, .inputs = "%a: $T[3,4], %b: $T[4], %c: $T[3,1]",   \
    .outputs = "%y: $T[3,4]", .body = "%y = max %a, %b, %c : $T[3,4]")              \
  X(mean3, .dtypes = FLOATS, .inputs = "%a: $T[3,4], %b: $T[4], %c: $T[3,1]",       \
    .outputs = "%y: $T[3,4]", .body = "%y = mean %a, %b, %c : $T[3,4]")             \
  X(where, .dtypes = FLOATS | I64, .inputs = "%c: bool[4,1], %a: $T[4,5], %b: $T[5]", \
    .outputs = "%y: $T[4,5]", .body = "%y = where %c, %a, %b : $T[4,5]")            \
  X(fused_elementwise, .dtypes = FLOATS, .inputs = "%x: $T[2,3,4], %y: $T[4]",        \
    .outputs = "%z: $T[2,3,4]",                                                     \
    .body = "%c = const $T[] [1.702]; %z = fused_elementwise %x, %c, %y {ops=\"mul sigmoid " \
            "mul add:relu\", regs=[0,1,3,-1,0,4,5,2]} : $T[2,3,4]")                   \
  /* ---- neural-network ops ---- */                                                \
  X(conv2d_3x3, .dtypes = FLOATS, .inputs = "%x: $T[1,6,9,9], %w: $T[8,6,3,3], %b: $T[8]", \
    .outputs = "%y: $T[1,8,9,9]",                                                   \
    .body = "%y = conv2d %x, %w, %b {pads=[1,1,1,1], act=relu} : $T[1,8,9,9]",     \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  /* conv2d_winograd on arbitrary U (any U defines an output): tiles cut at  \
   * the edges, asymmetric pads, bias and act or neither */                     \
  X(conv2d_winograd_f2, .dtypes = FLOATS,                                           \
    .inputs = "%x: $T[1,5,9,7], %u: $T[16,5,6], %b: $T[6]", .outputs = "%y: $T[1,6,9,7]", \
    .body = "%y = conv2d_winograd %x, %u, %b {pads=[1,1,1,1], out_tile=2, act=relu} "  \
            ": $T[1,6,9,7]",                                                        \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(conv2d_winograd_f4, .dtypes = FLOATS, .inputs = "%x: $T[2,3,10,11], %u: $T[36,3,7]", \
    .outputs = "%y: $T[2,7,11,10]",                                                 \
    .body = "%y = conv2d_winograd %x, %u {pads=[1,0,2,1], out_tile=4} : $T[2,7,11,10]", \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 5e-2)                              \
  X(conv2d_1x1, .dtypes = FLOATS, .inputs = "%x: $T[2,16,5,7], %w: $T[12,16,1,1]",    \
    .outputs = "%y: $T[2,12,5,7]", .body = "%y = conv2d %x, %w : $T[2,12,5,7]",      \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(conv2d_depthwise, .dtypes = FLOATS,                                             \
    .inputs = "%x: $T[1,8,10,10], %w: $T[8,1,3,3], %b: $T[8]",                     \
    .outputs = "%y: $T[1,8,5,5]",                                                   \
    .body = "%y = conv2d %x, %w, %b {strides=[2,2], pads=[1,1,1,1], group=8} : $T[1,8,5,5]") \
  X(conv2d_grouped_dilated, .dtypes = FLOATS,                                       \
    .inputs = "%x: $T[1,8,11,11], %w: $T[6,4,3,3]", .outputs = "%y: $T[1,6,7,7]",   \
    .body = "%y = conv2d %x, %w {dilations=[2,2], group=2} : $T[1,6,7,7]", .lo = -1, \
    .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                                        \
  X(conv_transpose2d, .dtypes = FLOATS,                                             \
    .inputs = "%x: $T[1,4,5,5], %w: $T[4,3,3,3], %b: $T[3]",                       \
    .outputs = "%y: $T[1,3,11,11]",                                                 \
    .body = "%y = conv_transpose2d %x, %w, %b {strides=[2,2], pads=[1,1,0,0], "     \
            "output_padding=[1,1]} : $T[1,3,11,11]",                                \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(gemm, .dtypes = FLOATS, .inputs = "%a: $T[9,20], %b: $T[13,20], %c: $T[13]",    \
    .outputs = "%y: $T[9,13]",                                                      \
    .body = "%y = gemm %a, %b, %c {trans_b=1, alpha=0.5, beta=2} : $T[9,13]",       \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(matmul_batched, .dtypes = FLOATS, .inputs = "%a: $T[2,1,6,24], %b: $T[3,24,10]", \
    .outputs = "%y: $T[2,3,6,10]", .body = "%y = matmul %a, %b : $T[2,3,6,10]",      \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(matmul_gemv, .dtypes = FLOATS, .inputs = "%a: $T[2,64], %b: $T[64,33]",         \
    .outputs = "%y: $T[2,33]", .body = "%y = matmul %a, %b : $T[2,33]", .lo = -1,    \
    .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                                        \
  /* attention's q.k^T with the scales fuse_bias folds (alpha) and a relu */       \
  X(matmul_alpha, .dtypes = FLOATS, .inputs = "%a: $T[1,3,19,24], %b: $T[1,3,24,19]", \
    .outputs = "%y: $T[1,3,19,19]",                                                 \
    .body = "%y = matmul %a, %b {alpha=0.2041, act=relu} : $T[1,3,19,19]", .lo = -1, \
    .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                                        \
  X(matmul_alpha_gemv, .dtypes = FLOATS, .inputs = "%a: $T[2,64], %b: $T[64,33]",   \
    .outputs = "%y: $T[2,33]", .body = "%y = matmul %a, %b {alpha=-1.5} : $T[2,33]", \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  /* attention (pass_fuse_attention): partial row and key blocks, a head of  */     \
  /* 40 outputs, a bias broadcast over the batch in two runs, over the       */     \
  /* heads, no batch axes with three key blocks, ViT's 64-wide heads          */     \
  X(attention_heads, .dtypes = FLOATS,                                              \
    .inputs = "%q: $T[1,3,37,24], %k: $T[1,3,24,70], %v: $T[1,3,70,40]",            \
    .outputs = "%y: $T[1,3,37,40]",                                                 \
    .body = "%y = attention %q, %k, %v {alpha=0.35} : $T[1,3,37,40]", .lo = -1,      \
    .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                                        \
  X(attention_bias, .dtypes = FLOATS,                                               \
    .inputs = "%q: $T[2,3,19,16], %k: $T[2,3,16,33], %v: $T[2,3,33,16], "           \
              "%b: $T[3,19,33]",                                                    \
    .outputs = "%y: $T[2,3,19,16]",                                                 \
    .body = "%y = attention %q, %k, %v, %b {alpha=0.25} : $T[2,3,19,16]", .lo = -2,  \
    .hi = 2, .rtol16 = 3e-2, .atol16 = 3e-2)                                        \
  X(attention_mask, .dtypes = FLOATS,                                               \
    .inputs = "%q: $T[2,3,19,16], %k: $T[2,3,16,33], %v: $T[2,3,33,16], "           \
              "%b: $T[2,1,1,33]",                                                   \
    .outputs = "%y: $T[2,3,19,16]",                                                 \
    .body = "%y = attention %q, %k, %v, %b : $T[2,3,19,16]", .lo = -2, .hi = 2,      \
    .rtol16 = 3e-2, .atol16 = 3e-2)                                                 \
  X(attention_flat, .dtypes = FLOATS,                                               \
    .inputs = "%q: $T[9,8], %k: $T[8,150], %v: $T[150,12]", .outputs = "%y: $T[9,12]", \
    .body = "%y = attention %q, %k, %v {alpha=0.5} : $T[9,12]", .lo = -1, .hi = 1,   \
    .rtol16 = 3e-2, .atol16 = 3e-2)                                                 \
  X(attention_vit, .dtypes = FLOATS,                                                \
    .inputs = "%q: $T[1,4,50,64], %k: $T[1,4,64,50], %v: $T[1,4,50,64]",            \
    .outputs = "%y: $T[1,4,50,64]",                                                 \
    .body = "%y = attention %q, %k, %v {alpha=0.125} : $T[1,4,50,64]", .lo = -1,     \
    .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                                        \
  /* attention's views (pass_attention_views): q, k and v straight out of a  */    \
  /* [tokens, 3 * heads * dh] projection (k row by row: K_ROWS), the result  */    \
  /* written as [tokens, 1, heads, dh]; Swin's windows and heads as two      */    \
  /* batch runs, with a bias, the result as [windows, tokens, heads, dh]     */    \
  X(attention_views_vit, .dtypes = FLOATS, .inputs = "%x: $T[37,120]",              \
    .outputs = "%y: $T[37,1,3,12]",                                                 \
    .body = "%y = attention %x, %x, %x {alpha=0.3, dims=[1,3,37,12,37,12], "         \
            "q_view=[0,0,12,120,1], k_view=[36,0,12,1,120], v_view=[72,0,12,120,1], " \
            "perm=[2,0,1,3]} : $T[37,1,3,12]",                                      \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(attention_views_swin, .dtypes = FLOATS, .inputs = "%x: $T[60,48], %b: $T[2,20,20]", \
    .outputs = "%y: $T[3,20,2,8]",                                                  \
    .body = "%y = attention %x, %x, %x, %b {alpha=0.35, dims=[3,2,20,8,20,8], "      \
            "q_view=[0,960,8,48,1], k_view=[16,960,8,1,48], v_view=[32,960,8,48,1], " \
            "perm=[0,2,1,3]} : $T[3,20,2,8]",                                       \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  X(batchnorm, .dtypes = FLOATS,                                                    \
    .inputs = "%x: $T[2,3,4,5], %s: $T[3], %b: $T[3], %m: $T[3], %v: $T[3]",        \
    .outputs = "%y: $T[2,3,4,5]",                                                   \
    .body = "%y = batchnorm %x, %s, %b, %m, %v {epsilon=0.001} : $T[2,3,4,5]",      \
    .lo = 0.2, .hi = 2)                                                             \
  X(instance_norm, .dtypes = FLOATS, .inputs = "%x: $T[2,3,6,5], %s: $T[3], %b: $T[3]", \
    .outputs = "%y: $T[2,3,6,5]",                                                   \
    .body = "%y = instance_norm %x, %s, %b : $T[2,3,6,5]", .rtol = 1e-3, .atol = 1e-4) \
  X(layer_norm, .dtypes = FLOATS, .inputs = "%x: $T[4,3,10], %s: $T[10], %b: $T[10]", \
    .outputs = "%y: $T[4,3,10]",                                                    \
    .body = "%y = layer_norm %x, %s, %b {axis=-1, epsilon=0.0001} : $T[4,3,10]",     \
    .rtol = 1e-3, .atol = 1e-4)                                                     \
  X(maxpool, .dtypes = FLOATS, .inputs = "%x: $T[1,3,9,9]", .outputs = "%y: $T[1,3,5,5]", \
    .body = "%y = maxpool %x {kernel=[3,3], strides=[2,2], pads=[1,1,1,1]} : $T[1,3,5,5]") \
  X(avgpool_ceil, .dtypes = FLOATS, .inputs = "%x: $T[1,2,8,8]",                    \
    .outputs = "%y: $T[1,2,3,3]",                                                   \
    .body = "%y = avgpool %x {kernel=[3,3], strides=[3,3], ceil_mode=1} : $T[1,2,3,3]") \
  X(global_avg_pool, .dtypes = FLOATS, .inputs = "%x: $T[2,5,7,6]",                 \
    .outputs = "%y: $T[2,5,1,1]", .body = "%y = global_avg_pool %x : $T[2,5,1,1]")   \
  X(global_max_pool, .dtypes = FLOATS, .inputs = "%x: $T[2,5,7,6]",                 \
    .outputs = "%y: $T[2,5,1,1]", .body = "%y = global_max_pool %x : $T[2,5,1,1]")   \
  X(softmax, .dtypes = FLOATS, .inputs = "%x: $T[3,5,7]", .outputs = "%y: $T[3,5,7]", \
    .body = "%y = softmax %x {axis=1} : $T[3,5,7]", .lo = -4, .hi = 4)              \
  X(log_softmax, .dtypes = FLOATS, .inputs = "%x: $T[6,40]", .outputs = "%y: $T[6,40]", \
    .body = "%y = log_softmax %x {axis=-1} : $T[6,40]", .lo = -4, .hi = 4)          \
  X(resize_linear, .dtypes = FLOATS, .inputs = "%x: $T[1,2,5,6]",                   \
    .outputs = "%y: $T[1,2,10,9]",                                                  \
    .body = "%y = resize %x {mode=linear, scales=[1.0,1.0,2.0,1.5]} : $T[1,2,10,9]") \
  X(resize_nearest, .dtypes = FLOATS | I64, .inputs = "%x: $T[1,1,4,3]",             \
    .outputs = "%y: $T[1,1,8,9]",                                                   \
    .body = "%y = resize %x {scales=[1.0,1.0,2.0,3.0]} : $T[1,1,8,9]")              \
  /* ---- reductions ---- */                                                        \
  X(reduce_mean, .dtypes = FLOATS, .inputs = "%x: $T[4,5,6]", .outputs = "%y: $T[4,1,6]", \
    .body = "%y = reduce_mean %x {axes=[1]} : $T[4,1,6]")                           \
  X(reduce_sum_keep0, .dtypes = FLOATS | I32 | I64, .inputs = "%x: $T[4,5,6]",      \
    .outputs = "%y: $T[5]", .body = "%y = reduce_sum %x {axes=[0,2], keepdims=0} : $T[5]") \
  X(reduce_max, .dtypes = FLOATS, .inputs = "%x: $T[3,33]", .outputs = "%y: $T[3,1]", \
    .body = "%y = reduce_max %x {axes=[-1]} : $T[3,1]")                             \
  X(reduce_min, .dtypes = FLOATS | I32, .inputs = "%x: $T[3,5,4]", .outputs = "%y: $T[1,1,1]", \
    .body = "%y = reduce_min %x : $T[1,1,1]")                                       \
  X(reduce_prod, .dtypes = FLOATS, .inputs = "%x: $T[2,6]", .outputs = "%y: $T[2]",  \
    .body = "%y = reduce_prod %x {axes=[1], keepdims=0} : $T[2]", .lo = 0.5, .hi = 1.5) \
  X(argmax, .dtypes = FLOATS, .inputs = "%x: $T[3,4,7]", .outputs = "%y: i64[3,1,7]", \
    .body = "%y = argmax %x {axis=1} : i64[3,1,7]")                                 \
  X(argmin_last, .dtypes = FLOATS, .inputs = "%x: $T[5,9]", .outputs = "%y: i64[5]",  \
    .body = "%y = argmin %x {axis=1, keepdims=0, select_last_index=1} : i64[5]")     \
  /* ---- data movement ---- */                                                     \
  X(reshape, .dtypes = FLOATS | I64, .inputs = "%x: $T[2,3,4]", .outputs = "%y: $T[6,4]", \
    .body = "%y = reshape %x {shape=[6,4]} : $T[6,4]")                              \
  X(transpose, .dtypes = FLOATS | I32, .inputs = "%x: $T[3,17,19]",                 \
    .outputs = "%y: $T[19,3,17]", .body = "%y = transpose %x {perm=[2,0,1]} : $T[19,3,17]") \
  /* one head of k^T out of a [tokens, 3 * width] projection (the tiled     */      \
  /* transpose at an offset), and a broadcast, reversed, strided read       */      \
  X(strided_copy_heads, .dtypes = FLOATS | I32, .inputs = "%x: $T[20,144]",          \
    .outputs = "%y: $T[4,12,20]",                                                   \
    .body = "%y = strided_copy %x {shape=[4,12,20], strides=[12,1,144], offset=48} : $T[4,12,20]") \
  X(strided_copy_reversed, .dtypes = FLOATS | I64, .inputs = "%x: $T[5,7]",          \
    .outputs = "%y: $T[3,4,4]",                                                     \
    .body = "%y = strided_copy %x {shape=[3,4,4], strides=[0,-7,2], offset=28} : $T[3,4,4]") \
  /* Swin's window partition of a rolled input (two torch.rolls fused),   */      \
  /* and a reversed read of an input rolled as one flat axis               */      \
  X(strided_copy_roll, .dtypes = FLOATS | I32 | I64, .inputs = "%x: $T[1,6,4,3]",    \
    .outputs = "%y: $T[1,2,2,3,2,3]",                                               \
    .body = "%y = strided_copy %x {shape=[1,2,2,3,2,3], strides=[72,36,6,12,3,1], "   \
            "roll_dims=[1,6,4,3], roll_shifts=[0,2,1,0]} : $T[1,2,2,3,2,3]")          \
  X(strided_copy_roll_flat, .dtypes = FLOATS | I64, .inputs = "%x: $T[5,7]",         \
    .outputs = "%y: $T[3,4,4]",                                                     \
    .body = "%y = strided_copy %x {shape=[3,4,4], strides=[0,-7,2], offset=28, "     \
            "roll_dims=[35], roll_shifts=[9]} : $T[3,4,4]")                           \
  X(concat, .dtypes = FLOATS | I64, .inputs = "%a: $T[2,3,4], %b: $T[2,5,4], %c: $T[2,1,4]", \
    .outputs = "%y: $T[2,9,4]", .body = "%y = concat %a, %b, %c {axis=1} : $T[2,9,4]") \
  X(split, .dtypes = FLOATS, .inputs = "%x: $T[3,10]",                             \
    .outputs = "%p: $T[3,4], %q: $T[3,6]",                                          \
    .body = "%p, %q = split %x {axis=1, split=[4,6]} : $T[3,4], $T[3,6]")           \
  X(slice, .dtypes = FLOATS | I32, .inputs = "%x: $T[6,9]", .outputs = "%y: $T[2,4]", \
    .body = "%y = slice %x {starts=[1,8], ends=[5,0], axes=[0,1], steps=[2,-2]} : $T[2,4]") \
  X(pad_reflect, .dtypes = FLOATS, .inputs = "%x: $T[1,2,4,5]", .outputs = "%y: $T[1,2,6,9]", \
    .body = "%y = pad %x {pads=[0,0,1,2,0,0,1,2], mode=reflect} : $T[1,2,6,9]")      \
  X(pad_constant, .dtypes = FLOATS | I64, .inputs = "%x: $T[3,4]", .outputs = "%y: $T[5,7]", \
    .body = "%y = pad %x {pads=[1,2,1,1], value=1.5} : $T[5,7]")                    \
  X(expand, .dtypes = FLOATS | I32, .inputs = "%x: $T[3,1]", .outputs = "%y: $T[2,3,6]", \
    .body = "%y = expand %x {shape=[2,3,6]} : $T[2,3,6]")                           \
  X(tile, .dtypes = FLOATS, .inputs = "%x: $T[2,3]", .outputs = "%y: $T[4,9]",       \
    .body = "%y = tile %x {repeats=[2,3]} : $T[4,9]")                               \
  X(gather, .dtypes = FLOATS | I64, .inputs = "%x: $T[5,4,3], %i: i64[2,2]",         \
    .outputs = "%y: $T[5,2,2,3]", .body = "%y = gather %x, %i {axis=1} : $T[5,2,2,3]", \
    .ilo = -4, .ihi = 4)                                                            \
  X(gather_elements, .dtypes = FLOATS, .inputs = "%x: $T[3,4], %i: i64[3,2]",       \
    .outputs = "%y: $T[3,2]", .body = "%y = gather_elements %x, %i {axis=1} : $T[3,2]", \
    .ilo = 0, .ihi = 4)                                                             \
  X(gather_nd, .dtypes = FLOATS, .inputs = "%x: $T[3,4,5], %i: i64[2,2]",           \
    .outputs = "%y: $T[2,5]", .body = "%y = gather_nd %x, %i : $T[2,5]", .ilo = 0,   \
    .ihi = 3)                                                                       \
  X(shape, .dtypes = FLOATS, .inputs = "%x: $T[3,4,5]", .outputs = "%y: i64[3]",     \
    .body = "%y = shape %x : i64[3]")                                               \
  X(scatter_elements, .dtypes = FLOATS,                                             \
    .inputs = "%x: $T[4,5], %u: $T[2,5]",                                           \
    .outputs = "%y: $T[4,5]",                                                       \
    .body = "%i = const i64[2,5] [0, 1, 2, 3, 0, 3, 2, 1, 0, 3]; "                  \
            "%y = scatter_elements %x, %i, %u {axis=0, reduction=add} : $T[4,5]")   \
  X(scatter_nd, .dtypes = FLOATS, .inputs = "%x: $T[4,3], %u: $T[2,3]",             \
    .outputs = "%y: $T[4,3]",                                                       \
    .body = "%i = const i64[2,1] [3, 1]; %y = scatter_nd %x, %i, %u : $T[4,3]")      \
  /* ---- bounded (run-time sized) values: the graph's bounded inputs are full ---- */ \
  X(to_capacity, .dtypes = FLOATS | I64, .inputs = "%x: $T[<=6,3]", .outputs = "%y: $T[6,3]", \
    .body = "%y = to_capacity %x {value=-1} : $T[6,3]")                              \
  X(select, .dtypes = FLOATS, .inputs = "%c: bool[], %a: $T[<=5,2], %b: $T[3,2]",      \
    .outputs = "%y: $T[<=5,2]", .body = "%y = select %c, %a, %b : $T[<=5,2]")       \
  X(slice_bounded, .dtypes = FLOATS, .inputs = "%x: $T[<=9,4]", .outputs = "%y: $T[<=3,4]", \
    .body = "%y = slice %x {starts=[0], ends=[3], axes=[0]} : $T[<=3,4]")            \
  X(concat_bounded, .dtypes = FLOATS | I64, .inputs = "%a: $T[<=4,3], %b: $T[<=5,3]", \
    .outputs = "%y: $T[<=9,3]", .body = "%y = concat %a, %b {axis=0} : $T[<=9,3]")   \
  /* a conv with its neighbours: their packed (nc4hw4) paths where the layout \
   * pass packs them */                                                             \
  X(conv_block, .dtypes = FLOATS, .inputs = "%x: $T[1,8,6,6], %w: $T[6,8,3,3]",       \
    .outputs = "%p: $T[1,5,3,3], %q: $T[1,7,6,6]",                                  \
    .body = "%c = conv2d %x, %w {pads=[1,1,1,1]} : $T[1,6,6,6]; "                   \
            "%r = relu %c : $T[1,6,6,6]; %a = add %r, %c : $T[1,6,6,6]; "           \
            "%j = concat %a, %r {axis=1} : $T[1,12,6,6]; "                         \
            "%s, %q = split %j {axis=1, split=[5,7]} : $T[1,5,6,6], $T[1,7,6,6]; "  \
            "%p = maxpool %s {kernel=[2,2], strides=[2,2]} : $T[1,5,3,3]",          \
    .lo = -1, .hi = 1, .rtol16 = 3e-2, .atol16 = 3e-2)                              \
  /* ---- vision ops ---- */                                                        \
  X(topk, .dtypes = FLOATS | I32, .inputs = "%x: $T[3,50]",                         \
    .outputs = "%v: $T[3,7], %i: i64[3,7]",                                         \
    .body = "%v, %i = topk %x {k=7, axis=1} : $T[3,7], i64[3,7]", .lo = -100,        \
    .hi = 100)                                                                      \
  X(cumsum, .dtypes = FLOATS | I32, .inputs = "%x: $T[4,40]", .outputs = "%y: $T[4,40]", \
    .body = "%y = cumsum %x {axis=1, exclusive=1} : $T[4,40]", .rtol16 = 3e-2,       \
    .atol16 = 5e-2)                                                                 \
  X(roi_align, .dtypes = FLOATS,                                                    \
    .inputs = "%x: $T[2,3,10,10], %r: $T[4,4], %b: i64[4]",                        \
    .outputs = "%y: $T[4,3,2,2]",                                                   \
    .body = "%y = roi_align %x, %r, %b {output_height=2, output_width=2, "          \
            "sampling_ratio=2, spatial_scale=0.5} : $T[4,3,2,2]",                   \
    .lo = 0.5, .hi = 8, .ilo = 0, .ihi = 2)                                         \
  X(grid_sample_bilinear, .dtypes = FLOATS, .inputs = "%x: $T[2,3,5,6], %g: $T[2,4,7,2]", \
    .outputs = "%y: $T[2,3,4,7]",                                                   \
    .body = "%y = grid_sample %x, %g : $T[2,3,4,7]", .lo = -1.2, .hi = 1.2)          \
  X(grid_sample_nearest_border, .dtypes = FLOATS,                                   \
    .inputs = "%x: $T[1,2,5,6], %g: $T[1,4,7,2]", .outputs = "%y: $T[1,2,4,7]",      \
    .body = "%y = grid_sample %x, %g {mode=nearest, padding_mode=edge, "            \
            "align_corners=1} : $T[1,2,4,7]",                                       \
    .lo = -1.3, .hi = 1.3)                                                          \
  X(grid_sample_bicubic_reflect, .dtypes = FLOATS,                                  \
    .inputs = "%x: $T[1,2,5,6], %g: $T[1,3,5,2]", .outputs = "%y: $T[1,2,3,5]",      \
    .body = "%y = grid_sample %x, %g {mode=cubic, padding_mode=reflect} : $T[1,2,3,5]", \
    .lo = -1.6, .hi = 1.6, .rtol16 = 3e-2, .atol16 = 5e-2)                          \
  /* staged ops: a pass splits the node, its stages keep their defaults */          \
  X(argsort, .dtypes = F32 | I64, .inputs = "%x: $T[3,70]", .outputs = "%y: i64[3,70]", \
    .body = "%y = argsort %x : i64[3,70]", .lo = -1000, .hi = 1000, .ilo = -1000,    \
    .ihi = 1000, .gpu_only_default = 1)                                             \
  X(non_max_suppression, .dtypes = F32, .inputs = "%b: $T[1,12,4], %s: $T[1,2,12]",   \
    .outputs = "%y: i64[<=8,3]",                                                    \
    .body = "%y = non_max_suppression %b, %s {max_output_boxes_per_class=4, "        \
            "iou_threshold=0.5, score_threshold=0.1} : i64[<=8,3]",                  \
    .lo = 0, .hi = 10, .gpu_only_default = 1)                                       \
  X(non_max_suppression_row, .dtypes = F32, .inputs = "%b: $T[1,<=12,4], %s: $T[1,1,<=12]", \
    .outputs = "%y: i64[<=12,3]",                                                   \
    .body = "%y = non_max_suppression %b, %s {max_output_boxes_per_class=12, "       \
            "iou_threshold=0.4} : i64[<=12,3]",                                     \
    .lo = 0, .hi = 10, .gpu_only_default = 1)                                       \
  X(non_zero, .dtypes = F32 | I32, .inputs = "%x: $T[4,6]", .outputs = "%y: i64[2,<=24]", \
    .body = "%y = non_zero %x : i64[2,<=24]", .lo = -1, .hi = 1, .ilo = -1, .ihi = 2, \
    .gpu_only_default = 1)

#endif
