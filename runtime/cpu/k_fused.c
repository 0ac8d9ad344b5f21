/* CPU reference kernel of fused_elementwise: the node's program
 * (ir/params.h ir_fused_program) per output element, each input read
 * through its broadcast strides. Every instruction is the unfused op's own
 * scalar function (rt_cpu_unary_f, rt_cpu_binary_f: k_unary.c, k_binary.c)
 * and its result is rounded to the output dtype, as the unfused node's
 * output is stored: fused and unfused graphs agree bit for bit. */
#include <string.h>

#include "cpu_kernels.h"
#include "k_util.h"

/* v rounded to dtype t, as rt_store_f stores it. */
static double round_to(ir_dtype t, double v) {
  if (t == IR_F16) return ir_f16_to_f32(ir_f32_to_f16((float)v));
  return (float)v;
}

vkml_status rt_cpu_fused_elementwise(const rt_cpu_args *a) {
  const ir_node *n = a->node;
  rt_tensor *z = a->out[0];
  ir_fused_program prog;
  VKML_RETURN_IF_ERROR(rt_cpu_at_node(n, ir_fused_program_get(n, &prog)));
  if (a->n_in != prog.n_in || a->n_in > IR_FUSED_MAX_INPUTS)
    return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "%d inputs for a program of %d", a->n_in,
                        prog.n_in);
  ir_dtype dt = a->in[0]->dtype;
  for (int k = 0; k < a->n_in; k++) {
    VKML_RETURN_IF_ERROR(rt_cpu_check_same_dtype(n, a->in[0], a->in[k], k));
    if (!ir_dtype_is_float(a->in[k]->dtype))
      return rt_cpu_error(n, VKML_CODE_INVALID_ARGUMENT, "takes f32 or f16 inputs, got %s",
                          ir_dtype_name(a->in[k]->dtype));
  }
  int rank;
  int64_t dims[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(rt_cpu_broadcast_dims(n, a->n_in, a->in, &rank, dims));
  VKML_RETURN_IF_ERROR(rt_cpu_check_out(n, 0, z, dt, rank, dims));

  ir_unary_params up[IR_FUSED_MAX_INSTRS];
  for (int i = 0; i < prog.n_instr; i++) ir_fused_unary_params(&prog.instr[i], &up[i]);
  int64_t strides[IR_FUSED_MAX_INPUTS][IR_MAX_RANK];
  for (int k = 0; k < a->n_in; k++) rt_cpu_bcast_strides(a->in[k], rank, dims, strides[k]);

  double r[IR_FUSED_MAX_INPUTS + IR_FUSED_MAX_INSTRS];
  int64_t idx[IR_MAX_RANK] = {0}, count = rt_tensor_numel(z);
  for (int64_t e = 0; e < count; e++, rt_cpu_index_next(rank, dims, idx)) {
    for (int k = 0; k < a->n_in; k++)
      r[k] = rt_load_f(a->in[k], rt_cpu_index_offset(rank, idx, strides[k]));
    for (int i = 0; i < prog.n_instr; i++) {
      const ir_fused_instr *in = &prog.instr[i];
      double v = in->b < 0 ? rt_cpu_unary_f(in->op, &up[i], r[in->a])
                           : rt_cpu_binary_f(in->op, &in->act, r[in->a], r[in->b]);
      r[prog.n_in + i] = round_to(dt, v);
    }
    rt_store_f(z, e, r[prog.n_in + prog.n_instr - 1]);
  }
  return VKML_OK;
}
