/* nc4hw4 packing for the layout tests, written independently of the kernels
 * (see vk_test.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "test_support.h"
#include "vk_test.h"

static int64_t c4_of(int64_t c) { return (c + 3) / 4; }

int64_t vt_packed_at(const int64_t *d, int64_t n, int64_t c, int64_t h, int64_t w) {
  return (((n * c4_of(d[1]) + c / 4) * d[2] + h) * d[3] + w) * 4 + c % 4;
}

rt_tensor vt_pack(const rt_tensor *x) {
  cr_assert_eq(x->rank, 4);
  const int64_t *d = x->dims;
  int64_t pd[5] = {d[0], c4_of(d[1]), d[2], d[3], 4};
  rt_tensor p;
  T_OK(rt_tensor_alloc_dims(x->dtype, 5, pd, &p));
  memset(p.data, 0, rt_tensor_bytes(&p));
  size_t es = ir_dtype_size(x->dtype);
  int64_t i = 0;
  for (int64_t n = 0; n < d[0]; n++)
    for (int64_t c = 0; c < d[1]; c++)
      for (int64_t h = 0; h < d[2]; h++)
        for (int64_t w = 0; w < d[3]; w++, i++)
          memcpy((char *)p.data + (size_t)vt_packed_at(d, n, c, h, w) * es,
                 (const char *)x->data + (size_t)i * es, es);
  return p;
}

rt_tensor vt_poisoned_packed(const ir_type *t) {
  int64_t pd[5] = {t->dims[0], c4_of(t->dims[1]), t->dims[2], t->dims[3], 4};
  rt_tensor p;
  T_OK(rt_tensor_alloc_dims(t->dtype, 5, pd, &p));
  cr_assert_eq((int64_t)rt_tensor_bytes(&p), ir_type_storage_bytes(t, IR_LAYOUT_NC4HW4));
  memset(p.data, 0x7f, rt_tensor_bytes(&p));
  return p;
}

rt_tensor vt_unpack(const rt_tensor *p, const ir_type *t, const char *what) {
  rt_tensor x;
  T_OK(rt_tensor_alloc(t, &x));
  const int64_t *d = t->dims;
  size_t es = ir_dtype_size(t->dtype);
  for (int64_t n = 0; n < d[0]; n++)
    for (int64_t c = 0; c < c4_of(d[1]) * 4; c++)
      for (int64_t h = 0; h < d[2]; h++)
        for (int64_t w = 0; w < d[3]; w++) {
          const unsigned char *src =
              (const unsigned char *)p->data + (size_t)vt_packed_at(d, n, c, h, w) * es;
          if (c < d[1]) {
            int64_t i = ((n * d[1] + c) * d[2] + h) * d[3] + w;
            memcpy((char *)x.data + (size_t)i * es, src, es);
            continue;
          }
          for (size_t b = 0; b < es; b++)
            if (src[b])
              cr_assert_fail("%s: pad lane (n=%lld, c=%lld, h=%lld, w=%lld) holds %g, not 0",
                             what, (long long)n, (long long)c, (long long)h, (long long)w,
                             rt_load_f(p, vt_packed_at(d, n, c, h, w)));
        }
  return x;
}
