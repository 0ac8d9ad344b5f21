// What the GEMM templates take (gemm_tiled.comp, gemm_coopmat.comp;
// codegen/kernels/gemm.c sets them): Y [M, N] = act(ALPHA * A B + BETA * C)
// over K, A's strides (A_SI, A_SK), B's (B_SK, B_SJ), C's broadcast strides
// (C_SI, C_SJ), the activation's parameters, and up to 4 batch axes (NBD;
// dims BD, A's and B's strides BSA, BSB).
layout(constant_id = 0) const uint M = 1;
layout(constant_id = 1) const uint N = 1;
layout(constant_id = 2) const uint K = 1;
layout(constant_id = 3) const uint A_SI = 0;
layout(constant_id = 4) const uint A_SK = 0;
layout(constant_id = 5) const uint B_SK = 0;
layout(constant_id = 6) const uint B_SJ = 0;
layout(constant_id = 7) const uint C_SI = 0;
layout(constant_id = 8) const uint C_SJ = 0;
layout(constant_id = 9) const float ALPHA = 1.0;
layout(constant_id = 10) const float BETA = 1.0;
layout(constant_id = 11) const float ACT_ALPHA = 0.0;
layout(constant_id = 12) const float ACT_BETA = 0.0;
layout(constant_id = 13) const uint NBD = 0; // merged batch axes (<= 4), innermost first
layout(constant_id = 16) const uint BD0 = 1;
layout(constant_id = 17) const uint BD1 = 1;
layout(constant_id = 18) const uint BD2 = 1;
layout(constant_id = 19) const uint BD3 = 1;
layout(constant_id = 20) const uint BSA0 = 0;
layout(constant_id = 21) const uint BSA1 = 0;
layout(constant_id = 22) const uint BSA2 = 0;
layout(constant_id = 23) const uint BSA3 = 0;
layout(constant_id = 24) const uint BSB0 = 0;
layout(constant_id = 25) const uint BSB1 = 0;
layout(constant_id = 26) const uint BSB2 = 0;
layout(constant_id = 27) const uint BSB3 = 0;
