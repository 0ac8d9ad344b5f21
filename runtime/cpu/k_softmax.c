/* CPU reference kernels for softmax and log_softmax along one axis (the
 * opset-13 meaning). The maximum is subtracted first, so large magnitudes
 * neither overflow exp nor lose the small terms. */
#include <math.h>

#include "cpu_kernels.h"
#include "ir/params.h"
#include "k_util.h"

vkml_status rt_cpu_softmax(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  if (a->n_in != 1 || a->n_out != 1)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "expects 1 input and 1 output");
  const rt_tensor *x = a->in[0];
  rt_tensor *y = a->out[0];
  if (!ir_dtype_is_float(x->dtype) || !ir_dtype_is_float(y->dtype))
    return rt_cpu_error(n, VKML_CODE_UNSUPPORTED, "unsupported dtype %s; only f32 and f16",
                        ir_dtype_name(x->dtype));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out_dims(n, y, x->rank, x->dims));
  int axis;
  VKML_RETURN_IF_ERROR(rt_cpu_axis_get(n, -1, x->rank, &axis));
  bool log_out = n->op == IR_OP_LOG_SOFTMAX;
  int64_t outer = rt_cpu_dims_prod(x->dims, 0, axis), len = x->dims[axis];
  int64_t inner = rt_cpu_dims_prod(x->dims, axis + 1, x->rank);
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
