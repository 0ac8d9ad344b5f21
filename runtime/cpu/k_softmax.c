/* CPU reference kernels for softmax and log_softmax along one axis (the
 * opset-13 meaning). The maximum is subtracted first, so large magnitudes
 * neither overflow exp nor lose the small terms. */
#include <math.h>

#include "cpu_kernels.h"
#include "ir/params.h"

vkml_status rt_cpu_softmax(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  if (!ir_dtype_is_float(x->dtype) || !ir_dtype_is_float(y->dtype))
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s; only f32 and f16",
                        ir_dtype_name(x->dtype));
  bool same = x->rank == y->rank;
  for (int i = 0; same && i < x->rank; i++) same = x->dims[i] == y->dims[i];
  if (!same)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "output shape differs from input");
  int axis;
  vkml_status s = ir_axis_normalize(ir_node_int(n, IR_A_AXIS, -1), x->rank, &axis);
  if (s) {
    vkml_status_free(s);
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "axis out of range for rank %d", x->rank);
  }
  bool log_out = n->op == IR_OP_LOG_SOFTMAX;
  int64_t outer = 1, len = x->dims[axis], inner = 1;
  for (int i = 0; i < axis; i++) outer *= x->dims[i];
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t in = 0; in < inner; in++) {
      int64_t base = o * len * inner + in;
      double mx = -INFINITY;
      for (int64_t k = 0; k < len; k++) {
        double v = rt_load_f(x, base + k * inner);
        if (v > mx || isnan(v)) mx = isnan(mx) ? mx : v;
      }
      /* A row of -inf, or one holding +inf, gives NaN (inf - inf), as the
       * ONNX reference does. */
      double sum = 0;
      for (int64_t k = 0; k < len; k++) sum += exp(rt_load_f(x, base + k * inner) - mx);
      double lsum = log(sum);
      for (int64_t k = 0; k < len; k++) {
        double d = rt_load_f(x, base + k * inner) - mx;
        rt_store_f(y, base + k * inner, log_out ? d - lsum : exp(d) / sum);
      }
    }
  }
  return VKML_OK;
}
