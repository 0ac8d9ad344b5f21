/* Runs codegen kernels on the device for the GPU-vs-CPU tests (see
 * vk_test.h): compile, pipeline, buffers, one dispatch, read back. */
#include <criterion/criterion.h>
#include <string.h>

#include "ir/plan.h"
#include "runtime/vk/vk_memory.h"
#include "runtime/vk/vk_pipeline.h"
#include "runtime/vk/vk_program.h"
#include "test_support.h"
#include "vk_test.h"

void vt_run_kernel_slot(rt_vk_context *ctx, cg_compiler *cc, const cg_kernel *k,
                        const rt_tensor *const *in, int n_in, rt_tensor *out, int n_out,
                        uint32_t *slot_out) {
  enum { MAX_BUFFERS = 64 };
  int nb = n_in + n_out + (k->error_slot ? 1 : 0);
  cr_assert_eq(k->n_buffers, nb, "kernel %s takes %d buffers", k->key, k->n_buffers);
  cr_assert(nb <= MAX_BUFFERS, "kernel %s: %d buffers", k->key, nb);
  cg_spirv spv;
  T_OK(cg_kernel_compile(cc, k, &spv));
  rt_vk_spec spec[CG_MAX_SPEC];
  for (int i = 0; i < k->n_spec; i++) spec[i] = (rt_vk_spec){k->spec_id[i], k->spec_value[i]};
  rt_vk_pipeline_desc pd = {
      .name = k->key,
      .spirv = spv.words,
      .spirv_bytes = spv.bytes,
      .n_buffers = k->n_buffers,
      .push_bytes = k->push_bytes,
      .spec = spec,
      .n_spec = k->n_spec,
  };
  rt_vk_pipeline *pipe;
  T_OK(rt_vk_pipeline_create(ctx, &pd, &pipe));
  cg_spirv_free(&spv);

  rt_vk_buffer *bufs[MAX_BUFFERS];
  rt_vk_binding b[MAX_BUFFERS];
  uint32_t slot[IR_PLAN_ERROR_SLOT_WORDS] = {0};
  for (int i = 0; i < nb; i++) {
    /* the error slot (k->error_slot): zeros, like the executor's */
    rt_tensor err_slot = rt_tensor_view(&(ir_type){.dtype = IR_I32, .rank = 1,
                                                   .dims = {IR_PLAN_ERROR_SLOT_WORDS}}, slot);
    const rt_tensor *t = i < n_in ? in[i] : i < n_in + n_out ? &out[i - n_in] : &err_slot;
    uint64_t bytes = rt_tensor_bytes(t);
    T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, bytes ? bytes : 16, &bufs[i]));
    /* The outputs too: whatever pattern the caller poisoned them with
     * reaches the device, so an element the kernel forgets to write shows. */
    if (bytes) T_OK(rt_vk_buffer_upload(ctx, bufs[i], 0, t->data, bytes));
    b[i] = (rt_vk_binding){bufs[i], 0, bytes ? bytes : 16, i < n_in ? RT_VK_READ : RT_VK_WRITE};
  }
  rt_vk_program *p;
  T_OK(rt_vk_program_create(ctx, false, &p));
  T_OK(rt_vk_program_dispatch(p, pipe, b, nb, NULL, 0, k->groups));
  T_OK(rt_vk_program_finish(p));
  T_OK(rt_vk_program_run(p, RT_VK_WAIT_BLOCK));
  for (int i = 0; i < n_out; i++) {
    uint64_t bytes = rt_tensor_bytes(&out[i]);
    if (bytes) T_OK(rt_vk_buffer_download(ctx, bufs[n_in + i], 0, out[i].data, bytes));
  }
  if (k->error_slot) T_OK(rt_vk_buffer_download(ctx, bufs[nb - 1], 0, slot, sizeof slot));
  if (slot_out) memcpy(slot_out, slot, sizeof slot);
  /* without slot_out the data is in range: a kernel reporting an error is wrong */
  else
    cr_assert_eq(slot[0], 0, "kernel %s reported error kind %u (element %u)", k->key, slot[0],
                 slot[1]);
  rt_vk_program_destroy(ctx, p);
  for (int i = 0; i < nb; i++) rt_vk_buffer_destroy(ctx, bufs[i]);
  rt_vk_pipeline_destroy(ctx, pipe);
  vt_assert_clean(ctx);
}

void vt_run_kernel_n(rt_vk_context *ctx, cg_compiler *cc, const cg_kernel *k,
                     const rt_tensor *const *in, int n_in, rt_tensor *out, int n_out) {
  vt_run_kernel_slot(ctx, cc, k, in, n_in, out, n_out, NULL);
}

void vt_run_kernel(rt_vk_context *ctx, cg_compiler *cc, const cg_kernel *k,
                   const rt_tensor *const *in, int n_in, rt_tensor *out) {
  vt_run_kernel_n(ctx, cc, k, in, n_in, out, 1);
}
