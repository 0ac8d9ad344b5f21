/* Cooperative-matrix shapes (coopmat.h). */
#include "codegen/core/coopmat.h"
int cg_coopmat_shape(const ir_target *t, int acc_bits) {
  ir_coopmat_type acc = acc_bits == 16 ? IR_COOPMAT_F16 : IR_COOPMAT_F32;
  int best = -1;
  int64_t best_size = 0;
  int n = t->n_coopmat_shapes < IR_TARGET_MAX_COOPMAT ? t->n_coopmat_shapes : IR_TARGET_MAX_COOPMAT;
  for (int i = 0; i < n; i++) {
    const ir_coopmat_shape *c = &t->coopmat_shapes[i];
    if (c->a != IR_COOPMAT_F16 || c->b != IR_COOPMAT_F16 || c->c != acc || c->d != acc) continue;
    /* the template stages tiles in rows of 16 bytes: dims multiple of 8, <= 16 */
    if (c->m % 8 || c->n % 8 || c->k % 8 || c->m > 16 || c->n > 16 || c->k > 16) continue;
    int64_t size = (int64_t)c->m * c->n * c->k;
    if (c->m == 16 && c->n == 16 && c->k == 16) size = INT64_MAX;
    if (size > best_size) best = i, best_size = size;
  }
  return best;
}
