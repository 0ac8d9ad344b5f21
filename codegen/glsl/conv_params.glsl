// The sizes and attributes every conv template takes (codegen/core/conv.c
// cg_conv_specs sets them): x [NB, C, H, W], y [NB, M, OH, OW], kernel
// KH x KW, strides SH SW, dilations DH DW, pads top PT and left PL, G
// groups; the fused activation's parameters.
layout(constant_id = 0) const uint NB = 1; // batch
layout(constant_id = 1) const uint C = 1;
layout(constant_id = 2) const uint H = 1;
layout(constant_id = 3) const uint W = 1;
layout(constant_id = 4) const uint M = 1;
layout(constant_id = 5) const uint OH = 1;
layout(constant_id = 6) const uint OW = 1;
layout(constant_id = 7) const uint KH = 1;
layout(constant_id = 8) const uint KW = 1;
layout(constant_id = 9) const uint SH = 1;
layout(constant_id = 10) const uint SW = 1;
layout(constant_id = 11) const uint DH = 1;
layout(constant_id = 12) const uint DW = 1;
layout(constant_id = 13) const int PT = 0;
layout(constant_id = 14) const int PL = 0;
layout(constant_id = 15) const uint G = 1;
layout(constant_id = 17) const float ACT_ALPHA = 0.0;
layout(constant_id = 18) const float ACT_BETA = 0.0;
