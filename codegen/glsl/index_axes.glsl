// The axes a gather or scatter kernel walks to address its data
// (data_gather.comp, scatter.comp; codegen/core/data.c cg_data_spec_axes
// sets them): dims D<i> and element strides S<i>, innermost first.
layout(constant_id = 8) const uint D0 = 1;
layout(constant_id = 9) const uint D1 = 1;
layout(constant_id = 10) const uint D2 = 1;
layout(constant_id = 11) const uint D3 = 1;
layout(constant_id = 12) const uint D4 = 1;
layout(constant_id = 13) const uint D5 = 1;
layout(constant_id = 14) const uint D6 = 1;
layout(constant_id = 15) const uint D7 = 1;
layout(constant_id = 16) const int S0 = 0;
layout(constant_id = 17) const int S1 = 0;
layout(constant_id = 18) const int S2 = 0;
layout(constant_id = 19) const int S3 = 0;
layout(constant_id = 20) const int S4 = 0;
layout(constant_id = 21) const int S5 = 0;
layout(constant_id = 22) const int S6 = 0;
layout(constant_id = 23) const int S7 = 0;
