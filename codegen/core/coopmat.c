/* Cooperative-matrix APIs and shapes (coopmat.h). */
#include "codegen/core/coopmat.h"

#include "codegen/core/compile.h"

cg_coopmat_api cg_coopmat_api_of(const ir_target *t) {
  /* glslang declares the Vulkan memory model in every cooperative-matrix
   * module, NV or KHR */
  if (!t->vulkan_memory_model) return CG_COOPMAT_NONE;
  if (t->coopmat_khr && cg_compiler_has_glslang15()) return CG_COOPMAT_KHR;
  if (t->coopmat_nv) return CG_COOPMAT_NV;
  return CG_COOPMAT_NONE;
}

const char *cg_coopmat_lacks(const ir_target *t) {
  if (cg_coopmat_api_of(t) == CG_COOPMAT_NONE) {
    if (!t->coopmat_khr && !t->coopmat_nv)
      return "the device lacks cooperative matrices (VK_KHR_ or VK_NV_cooperative_matrix)";
    if (!t->vulkan_memory_model)
      return "the device does not enable the Vulkan memory model, which glslang declares in "
             "cooperative-matrix shaders";
    return "the device's VK_KHR_cooperative_matrix needs glslang 15, which this build lacks "
           "(tools/build-deps.sh)";
  }
  if (!t->fp16_arith) return "the device lacks fp16 arithmetic";
  if (!t->storage_16bit) return "f16 needs 16-bit storage, which the device lacks";
  if (!t->subgroup_in_compute || !(t->subgroup_ops & IR_SUBGROUP_BASIC) || !t->subgroup_size ||
      (t->subgroup_size & (t->subgroup_size - 1)))
    return "the device lacks basic subgroup operations in compute with a power-of-two "
           "subgroup size";
  return NULL;
}

vkml_status cg_coopmat_kernel_api(cg_kernel *k, const ir_target *t) {
  bool khr = cg_coopmat_api_of(t) == CG_COOPMAT_KHR;
  /* docs/architecture.md, "Two GLSL compilers": NV shaders at optimisation
   * level zero (Debian 12's SPIRV-Tools optimizer crashes on them), KHR ones
   * through glslang 15, which has no optimizer here */
  k->opt = khr ? CG_OPT_GLSLANG15 : CG_OPT_ZERO;
  return cg_kernel_define(k, "CM_KHR", "%d", khr ? 1 : 0);
}

int cg_coopmat_shape(const ir_target *t, int acc_bits) {
  cg_coopmat_api api = cg_coopmat_api_of(t);
  ir_coopmat_type acc = acc_bits == 16 ? IR_COOPMAT_F16 : IR_COOPMAT_F32;
  int best = -1;
  int64_t best_size = 0;
  int n = t->n_coopmat_shapes < IR_TARGET_MAX_COOPMAT ? t->n_coopmat_shapes : IR_TARGET_MAX_COOPMAT;
  for (int i = 0; i < n; i++) {
    const ir_coopmat_shape *c = &t->coopmat_shapes[i];
    if (c->khr != (api == CG_COOPMAT_KHR)) continue;
    if (c->a != IR_COOPMAT_F16 || c->b != IR_COOPMAT_F16 || c->c != acc || c->d != acc) continue;
    /* the template stages tiles in rows of 16 bytes: dims multiple of 8, <= 16 */
    if (c->m % 8 || c->n % 8 || c->k % 8 || c->m > 16 || c->n > 16 || c->k > 16) continue;
    int64_t size = (int64_t)c->m * c->n * c->k;
    if (c->m == 16 && c->n == 16 && c->k == 16) size = INT64_MAX;
    if (size > best_size) best = i, best_size = size;
  }
  return best;
}
