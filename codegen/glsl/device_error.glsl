// The step's error slot (ir/plan.h IR_PLAN_ERROR_BINDING): a kernel that
// meets bad data records the first bad element it sees and carries on with
// a safe stand-in (a clamped index); the run reports the slot once at its
// end, naming the node (runtime/vk/vk_errors.c). Define ERROR_BINDING (the
// binding after the outputs) before including this file.
//
// Words: 0 the kind (IR_DEVICE_ERROR_*: 1 index out of range, 2 RoiAlign
// batch index out of range, 3 two bounded inputs' run-time sizes differ,
// 4 a TopK's run-time k out of range: value k, dim the row's count),
// 1 the element (its flat index in the indices; the roi; kind 3: the first
// input), 2-3 the bad value (low word, high word: an i64; kind 3: the first
// input's size), 4 the axis (kind 3: the second input), 5 the axis's size
// (kind 3: the second input's size). The first invocation to claim word 0 writes the rest;
// others leave it.

layout(binding = ERROR_BINDING, std430) buffer DeviceError { uint err_word[8]; };

void report_error(uint kind, uint element, uint value_lo, uint value_hi, uint axis, uint dim) {
  if (atomicCompSwap(err_word[0], 0u, kind) != 0u) return;
  err_word[1] = element;
  err_word[2] = value_lo;
  err_word[3] = value_hi;
  err_word[4] = axis;
  err_word[5] = dim;
}

void report_index_error(uint element, uint value_lo, uint value_hi, uint axis, uint dim) {
  report_error(1u, element, value_lo, value_hi, axis, dim);
}
