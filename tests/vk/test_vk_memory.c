/* Device memory: first-fit sub-allocation (alignment, no overlap, reuse of
 * freed ranges, coalescing, dedicated blocks), staging uploads/downloads of
 * random data, out-of-device-memory as a status. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/vk/vk_memory.h"
#include "runtime/vk/vk_program.h"
#include "test_support.h"
#include "vk_test.h"

#define MIB (1ull << 20)

static rt_vk_context *small_blocks(void) {
  rt_vk_context_opts o = {.block_bytes = MIB, .no_pipeline_cache = true};
  return vt_context_opts(&o);
}

static rt_vk_buffer_info info(const rt_vk_buffer *b) {
  rt_vk_buffer_info i;
  rt_vk_buffer_info_get(b, &i);
  return i;
}

Test(vk_memory, many_allocations_never_overlap) {
  rt_vk_context *ctx = small_blocks();
  rt_vk_mem_stats st;
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &st);
  uint64_t align = st.alignment;
  cr_assert(align >= 64 && !(align & (align - 1)), "alignment %llu", (unsigned long long)align);
  cr_assert_eq(align % rt_vk_context_target(ctx)->min_storage_buffer_offset_alignment, 0);

  enum { N = 400 };
  rt_vk_buffer *live[N] = {0};
  t_rng r = t_rng_make(11);
  uint64_t live_bytes = 0;
  for (int step = 0; step < 3000; step++) {
    int i = (int)(t_rng_next(&r) % N);
    if (live[i]) {
      live_bytes -= rt_vk_buffer_bytes(live[i]);
      rt_vk_buffer_destroy(ctx, live[i]);
      live[i] = NULL;
      continue;
    }
    uint64_t bytes = 1 + t_rng_next(&r) % (96 * 1024);
    rt_vk_mem_kind kind = (t_rng_next(&r) & 3) ? RT_VK_MEM_DEVICE : RT_VK_MEM_HOST;
    vkml_status s = rt_vk_buffer_create(ctx, kind, bytes, &live[i]);
    if (s) T_OK(s);
    live_bytes += bytes;
    rt_vk_buffer_info bi = info(live[i]);
    /* (criterion reports every assertion: assert only on failure in loops) */
    if (bi.offset % align || bi.offset + bi.bytes > MIB)
      cr_assert_fail("offset %llu size %llu", (unsigned long long)bi.offset,
                     (unsigned long long)bi.bytes);
    /* no live range of the same block overlaps the new one */
    for (int j = 0; j < N; j++) {
      if (j == i || !live[j]) continue;
      rt_vk_buffer_info bj = info(live[j]);
      if (bj.kind != bi.kind || bj.block_id != bi.block_id) continue;
      if (!(bi.offset + bi.bytes <= bj.offset || bj.offset + bj.bytes <= bi.offset))
        cr_assert_fail("overlap: [%llu,+%llu) and [%llu,+%llu) in block %d",
                       (unsigned long long)bi.offset, (unsigned long long)bi.bytes,
                       (unsigned long long)bj.offset, (unsigned long long)bj.bytes, bi.block_id);
    }
  }
  rt_vk_mem_stats sd, sh;
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &sd);
  rt_vk_memory_stats(ctx, RT_VK_MEM_HOST, &sh);
  cr_assert_geq(sd.used_bytes + sh.used_bytes, live_bytes);
  cr_assert_leq(sd.used_bytes, sd.reserved_bytes);
  int n_live = 0;
  for (int i = 0; i < N; i++) n_live += live[i] != NULL;
  cr_assert_eq(sd.n_allocs + sh.n_allocs, n_live);
  for (int i = 0; i < N; i++) rt_vk_buffer_destroy(ctx, live[i]);
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &sd);
  cr_assert_eq(sd.n_allocs, 0);
  cr_assert_eq(sd.used_bytes, 0);
  cr_assert_gt(sd.n_blocks, 1, "1 MiB blocks should have been exceeded");
  /* everything coalesced: a whole block fits in the first block again */
  rt_vk_buffer *whole;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, MIB, &whole));
  cr_assert_eq(info(whole).offset, 0);
  rt_vk_buffer_destroy(ctx, whole);
  rt_vk_memory_trim(ctx);
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &sd);
  cr_assert_eq(sd.n_blocks, 0);
  vt_destroy(ctx);
}

Test(vk_memory, first_fit_reuses_freed_ranges) {
  rt_vk_context *ctx = small_blocks();
  uint64_t q = 256 * 1024;
  rt_vk_buffer *a, *b, *c, *d, *e, *f;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, q, &a));
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, q, &b));
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, q, &c));
  cr_assert_eq(info(a).offset, 0);
  cr_assert_eq(info(b).offset, q);
  cr_assert_eq(info(c).offset, 2 * q);
  uint64_t hole = info(b).offset;
  rt_vk_buffer_destroy(ctx, b);
  /* fits the hole left by b: first fit takes it */
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 200 * 1024, &d));
  cr_assert_eq(info(d).block_id, info(a).block_id);
  cr_assert_eq(info(d).offset, hole);
  /* does not fit the rest of the hole: goes after c */
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 200 * 1024, &e));
  cr_assert_eq(info(e).block_id, info(a).block_id);
  cr_assert_eq(info(e).offset, 3 * q);
  /* nothing left in block 0: a new block */
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, q, &f));
  cr_assert_neq(info(f).block_id, info(a).block_id);
  cr_assert_eq(info(f).offset, 0);
  /* stricter alignment */
  rt_vk_buffer *g;
  T_OK(rt_vk_buffer_create_aligned(ctx, RT_VK_MEM_DEVICE, 100, 64 * 1024, &g));
  cr_assert_eq(info(g).offset % (64 * 1024), 0);
  rt_vk_mem_stats st;
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &st);
  cr_assert_eq(st.n_blocks, 2);
  cr_assert_eq(st.n_allocs, 6);
  rt_vk_buffer_destroy(ctx, a);
  rt_vk_buffer_destroy(ctx, c);
  rt_vk_buffer_destroy(ctx, d);
  rt_vk_buffer_destroy(ctx, e);
  rt_vk_buffer_destroy(ctx, f);
  rt_vk_buffer_destroy(ctx, g);
  vt_destroy(ctx);
}

Test(vk_memory, dedicated_blocks_and_bad_requests) {
  rt_vk_context *ctx = small_blocks();
  rt_vk_buffer *big, *x = NULL;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 3 * MIB + 5, &big));
  rt_vk_mem_stats st;
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &st);
  cr_assert_eq(st.n_blocks, 1);
  cr_assert_geq(st.reserved_bytes, 3 * MIB + 5);
  rt_vk_buffer_destroy(ctx, big);
  rt_vk_memory_stats(ctx, RT_VK_MEM_DEVICE, &st);
  cr_assert_eq(st.n_blocks, 0, "dedicated block kept after free");

  vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 0, &x);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  s = rt_vk_buffer_create_aligned(ctx, RT_VK_MEM_DEVICE, 16, 48, &x);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  cr_assert_null(x);
  vt_destroy(ctx);
}

Test(vk_memory, out_of_device_memory_is_a_status) {
  rt_vk_context *ctx = vt_context(NULL);
  const ir_target *t = rt_vk_context_target(ctx);
  uint64_t heaps = 0;
  for (int i = 0; i < t->n_heaps; i++) heaps += t->heaps[i].bytes;
  rt_vk_buffer *x = NULL;
  vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, heaps + MIB, &x);
  cr_assert_null(x);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_OUT_OF_MEMORY);
  cr_assert(strstr(vkml_status_message(s), "out of device memory"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  s = rt_vk_buffer_create(ctx, RT_VK_MEM_HOST, UINT64_MAX - 5, &x);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_OUT_OF_MEMORY);
  vkml_status_free(s);
  /* the context still works */
  uint32_t v = 0x12345678, back = 0;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, 4, &x));
  T_OK(rt_vk_buffer_upload(ctx, x, 0, &v, 4));
  T_OK(rt_vk_buffer_download(ctx, x, 0, &back, 4));
  cr_assert_eq(back, v);
  rt_vk_buffer_destroy(ctx, x);
  vt_destroy(ctx);
}

/* Allocations each within the heap but together beyond it are refused
 * before the driver is asked (drivers may accept them and fail, or on a
 * CPU device have the process killed, when the pages are touched). */
Test(vk_memory, blocks_held_count_against_the_heap) {
  rt_vk_context *ctx = vt_context(NULL);
  const ir_target *t = rt_vk_context_target(ctx);
  uint64_t heap = 0;
  for (int i = 0; i < t->n_heaps; i++)
    if (t->heaps[i].device_local && t->heaps[i].bytes > heap) heap = t->heaps[i].bytes;
  if (heap > (8ull << 30)) {
    vt_destroy(ctx);
    cr_skip_test("a %llu-byte heap: the test allocates most of it", (unsigned long long)heap);
  }
  uint64_t part = heap / 2 + MIB;
  rt_vk_buffer *a = NULL, *b = NULL;
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, part, &a));
  vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, part, &b);
  cr_assert_null(b);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_OUT_OF_MEMORY, "%s", vkml_status_message(s));
  cr_assert(strstr(vkml_status_message(s), "bytes more requested"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  rt_vk_buffer_destroy(ctx, a);
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, part, &b)); /* room again */
  rt_vk_buffer_destroy(ctx, b);
  vt_destroy(ctx);
}

static void fill_random(t_rng *r, unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(t_rng_next(r) >> 56);
}

Test(vk_memory, upload_download_round_trip) {
  rt_vk_context *ctx = vt_context(NULL);
  t_rng r = t_rng_make(5);
  /* odd sizes, and one larger than the 16 MiB staging chunk */
  const uint64_t sizes[] = {1, 3, 1000003, 20 * MIB + 7};
  for (int k = 0; k < 4; k++) {
    uint64_t n = sizes[k];
    unsigned char *src = malloc(n), *dst = malloc(n);
    fill_random(&r, src, n);
    memset(dst, 0, n);
    rt_vk_buffer *b;
    T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, n, &b));
    T_OK(rt_vk_buffer_upload(ctx, b, 0, src, n));
    T_OK(rt_vk_buffer_download(ctx, b, 0, dst, n));
    cr_assert(!memcmp(src, dst, n), "round trip of %llu bytes differs", (unsigned long long)n);
    if (n > 20000) {
      /* a partial overwrite lands exactly where asked */
      unsigned char patch[777];
      fill_random(&r, patch, sizeof patch);
      T_OK(rt_vk_buffer_upload(ctx, b, 12345, patch, sizeof patch));
      memcpy(src + 12345, patch, sizeof patch);
      T_OK(rt_vk_buffer_download(ctx, b, 0, dst, n));
      cr_assert(!memcmp(src, dst, n));
      unsigned char part[100];
      T_OK(rt_vk_buffer_download(ctx, b, n - 100, part, 100));
      cr_assert(!memcmp(part, src + n - 100, 100));
    }
    vkml_status s = rt_vk_buffer_upload(ctx, b, n - 1, src, 2);
    cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
    vkml_status_free(s);
    rt_vk_buffer_destroy(ctx, b);
    free(src);
    free(dst);
  }
  /* host buffers: the mapping sees uploads */
  rt_vk_buffer *h;
  unsigned char data[4096], back[4096];
  fill_random(&r, data, sizeof data);
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_HOST, sizeof data, &h));
  cr_assert_not_null(rt_vk_buffer_map(h));
  T_OK(rt_vk_buffer_upload(ctx, h, 0, data, sizeof data));
  cr_assert(!memcmp(rt_vk_buffer_map(h), data, sizeof data));
  T_OK(rt_vk_buffer_download(ctx, h, 0, back, sizeof back));
  cr_assert(!memcmp(back, data, sizeof data));
  rt_vk_buffer_destroy(ctx, h);
  /* device-local host-visible memory (every lavapipe memory type is):
   * mapped, written through the mapping, read by a copy on the device */
  rt_vk_buffer *u = NULL, *d = NULL;
  if (!rt_vk_memory_has(ctx, RT_VK_MEM_UPLOAD)) {
    vkml_status s = rt_vk_buffer_create(ctx, RT_VK_MEM_UPLOAD, 64, &u);
    cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED);
    vkml_status_free(s);
    vt_destroy(ctx);
    return;
  }
  fill_random(&r, data, sizeof data);
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_UPLOAD, sizeof data, &u));
  T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_DEVICE, sizeof data, &d));
  cr_assert_not_null(rt_vk_buffer_map(u));
  memcpy(rt_vk_buffer_map(u), data, sizeof data);
  T_OK(rt_vk_buffer_flush(ctx, u, 0, sizeof data));
  rt_vk_program *prog = NULL;
  T_OK(rt_vk_program_create(ctx, false, &prog));
  T_OK(rt_vk_program_copy(prog, u, 0, d, 0, sizeof data));
  T_OK(rt_vk_program_finish(prog));
  T_OK(rt_vk_program_run(prog, RT_VK_WAIT_BLOCK));
  memset(back, 0, sizeof back);
  T_OK(rt_vk_buffer_download(ctx, d, 0, back, sizeof back));
  cr_assert(!memcmp(back, data, sizeof data));
  /* and the synchronous copies take it like a host buffer */
  T_OK(rt_vk_buffer_upload(ctx, u, 100, data, 200));
  cr_assert(!memcmp((unsigned char *)rt_vk_buffer_map(u) + 100, data, 200));
  rt_vk_mem_stats us;
  rt_vk_memory_stats(ctx, RT_VK_MEM_UPLOAD, &us);
  cr_assert_eq(us.n_allocs, 1);
  rt_vk_program_destroy(ctx, prog);
  rt_vk_buffer_destroy(ctx, u);
  rt_vk_buffer_destroy(ctx, d);
  vt_destroy(ctx);
}

/* Pooled blocks start at 1 MiB and double up to the block size (64 MiB by
 * default), each at least the request that made it; a request over the
 * block size gets a dedicated block and does not move the growth. */
Test(vk_memory, blocks_grow_geometrically) {
  rt_vk_context_opts o = {.no_pipeline_cache = true};
  rt_vk_context *ctx = vt_context_opts(&o);
  rt_vk_mem_stats st;
  rt_vk_memory_stats(ctx, RT_VK_MEM_HOST, &st);
  cr_assert_eq(st.n_blocks, 0);
  static const uint64_t want[][3] = {
      /* request, blocks after, reserved after (MiB) */
      {4096, 1, 1},        {MIB, 2, 3},          {100 * MIB, 3, 103},
      {3 * MIB, 4, 107},   {20 * MIB, 5, 127},   {20 * MIB, 6, 167},
      {50 * MIB, 7, 231},  {MIB, 7, 231},
  };
  rt_vk_buffer *b[8];
  for (int i = 0; i < 8; i++) {
    T_OK(rt_vk_buffer_create(ctx, RT_VK_MEM_HOST, want[i][0], &b[i]));
    rt_vk_memory_stats(ctx, RT_VK_MEM_HOST, &st);
    cr_expect_eq(st.n_blocks, (int)want[i][1], "request %d: %d blocks", i, st.n_blocks);
    cr_expect_eq(st.reserved_bytes, want[i][2] * MIB, "request %d: %llu MiB reserved", i,
                 (unsigned long long)(st.reserved_bytes / MIB));
  }
  for (int i = 0; i < 8; i++) rt_vk_buffer_destroy(ctx, b[i]);
  rt_vk_context_destroy(ctx, NULL);
}
