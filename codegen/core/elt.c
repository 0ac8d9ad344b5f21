/* The elementwise kernels' helpers and NumPy broadcast addressing (elt.h). */
#include <stdio.h>
#include <string.h>

#include "codegen/core/elt.h"
int cg_elt_dtype_code(ir_dtype t) {
  switch (t) {
  case IR_F32: return 0;
  case IR_F16: return 1;
  case IR_I32: return 2;
  case IR_I64: return 3;
  case IR_U8: return 4;
  case IR_I8: return 5;
  case IR_BOOL: return 6;
  default: return -1;
  }
}

vkml_status cg_elt_check_type(const char *tmpl, const ir_type *t, const ir_target *target) {
  if (cg_elt_dtype_code(t->dtype) < 0)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: dtype %d", tmpl, (int)t->dtype);
  if (t->bounded)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: bounded shapes run on the CPU", tmpl);
  if (t->dtype == IR_F16 && !target->storage_16bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: f16 needs 16-bit storage, which %s lacks",
                            tmpl, target->name);
  if ((t->dtype == IR_U8 || t->dtype == IR_I8 || t->dtype == IR_BOOL) && !target->storage_8bit)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %s needs 8-bit storage, which %s lacks",
                            tmpl, ir_dtype_name(t->dtype), target->name);
  if (t->dtype == IR_I64 && !target->int64_arith)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: i64 needs shaderInt64, which %s lacks",
                            tmpl, target->name);
  if (ir_type_numel(t) > (INT64_C(1) << 31))
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: more than 2^31 elements", tmpl);
  if ((uint64_t)ir_type_bytes(t) > target->max_storage_buffer_range)
    return vkml_status_make(VKML_CODE_UNSUPPORTED,
                            "%s: %lld bytes exceed the storage-buffer range of %s", tmpl,
                            (long long)ir_type_bytes(t), target->name);
  return VKML_OK;
}

vkml_status cg_elt_grid(cg_kernel *k, int64_t units, int64_t per_group,
                        const ir_target *target) {
  int64_t groups = units > 0 ? (units + per_group - 1) / per_group : 1;
  int64_t mx = target->max_workgroup_count[0] ? target->max_workgroup_count[0] : 1;
  int64_t gx = groups < mx ? groups : mx;
  int64_t gy = (groups + gx - 1) / gx;
  if (gy > target->max_workgroup_count[1])
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "%s: %lld workgroups exceed the grid of %s",
                            k->tmpl ? k->tmpl->name : "?", (long long)groups, target->name);
  k->groups[0] = (uint32_t)gx;
  k->groups[1] = (uint32_t)gy;
  k->groups[2] = 1;
  return VKML_OK;
}

uint32_t cg_elt_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

void cg_bcast_merge(int n_in, const ir_type *in, const ir_type *out, cg_bcast_merged *m) {
  int64_t s[CG_BCAST_MAX_INPUTS][IR_MAX_RANK];
  for (int i = 0; i < n_in; i++) cg_bcast_strides(&in[i], out, s[i]);
  m->rank = 0;
  for (int j = out->rank - 1; j >= 0; j--) {
    int64_t d = out->dims[j];
    if (d == 1) continue;
    if (m->rank) {
      int k = m->rank - 1;
      bool ok = true;
      for (int i = 0; i < n_in && ok; i++) ok = s[i][j] == m->s[i][k] * m->d[k];
      if (ok) {
        m->d[k] *= d;
        continue;
      }
    }
    m->d[m->rank] = d;
    for (int i = 0; i < n_in; i++) m->s[i][m->rank] = s[i][j];
    m->rank++;
  }
  for (int i = 0; i < n_in; i++) {
    bool zero = true, contiguous = true;
    int64_t run = 1;
    for (int k = 0; k < m->rank; k++) {
      zero = zero && m->s[i][k] == 0;
      contiguous = contiguous && m->s[i][k] == run;
      run *= m->d[k];
    }
    m->mode[i] = contiguous ? 1 : (zero ? 2 : 0);
  }
}

int cg_elt_unary_code(ir_op op) {
  switch (op) {
  case IR_OP_RELU: return 0;
  case IR_OP_SIGMOID: return 1;
  case IR_OP_TANH: return 2;
  case IR_OP_EXP: return 3;
  case IR_OP_LOG: return 4;
  case IR_OP_SQRT: return 5;
  case IR_OP_ERF: return 6;
  case IR_OP_NEG: return 7;
  case IR_OP_ABS: return 8;
  case IR_OP_RECIPROCAL: return 9;
  case IR_OP_SOFTPLUS: return 10;
  case IR_OP_SIGN: return 11;
  case IR_OP_FLOOR: return 12;
  case IR_OP_CEIL: return 13;
  case IR_OP_ROUND: return 14;
  case IR_OP_HARD_SWISH: return 15;
  case IR_OP_LEAKY_RELU: return 16;
  case IR_OP_ELU: return 17;
  case IR_OP_SELU: return 18;
  case IR_OP_HARD_SIGMOID: return 19;
  case IR_OP_CLIP: return 20;
  case IR_OP_NOT: return 21;
  case IR_OP_CAST: return 22;
  case IR_OP_SIN: return 23;
  case IR_OP_COS: return 24;
  case IR_OP_TAN: return 25;
  case IR_OP_ASIN: return 26;
  case IR_OP_ACOS: return 27;
  case IR_OP_ATAN: return 28;
  case IR_OP_SINH: return 29;
  case IR_OP_COSH: return 30;
  case IR_OP_ASINH: return 31;
  case IR_OP_ACOSH: return 32;
  case IR_OP_ATANH: return 33;
  default: return -1;
  }
}

/* Broadcast strides of t against out's axes, outermost first. */
void cg_bcast_strides(const ir_type *t, const ir_type *out, int64_t *s) {
  int off = out->rank - t->rank;
  int64_t run = 1;
  for (int j = out->rank - 1; j >= 0; j--) {
    int k = j - off;
    if (k < 0) {
      s[j] = 0;
      continue;
    }
    s[j] = t->dims[k] == 1 ? 0 : run;
    run *= t->dims[k];
  }
}
