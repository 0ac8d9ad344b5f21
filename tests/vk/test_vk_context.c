/* Vulkan context: device choice and overrides, the ir_target fill, clear
 * statuses for missing loader / device index / feature, validation layer
 * wiring. Runs on whatever device the machine has (lavapipe in CI). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/vk/vk_context.h"
#include "test_support.h"
#include "vk_test.h"

/* contexts made here without vt_context need the libraries pinned too */
TestSuite(vk_context, .init = vt_pin_vulkan_libs);

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

Test(vk_context, target_is_plausible) {
  rt_vk_context *ctx = vt_context(NULL);
  const ir_target *t = rt_vk_context_target(ctx);
  ir_target min;
  ir_target_minimum(&min);
  cr_assert(t->name[0], "empty device name");
  cr_assert_geq(t->api_version, (1u << 22) | (1u << 12), "api %x < 1.1", t->api_version);
  cr_assert(t->subgroup_size > 0 && is_pow2(t->subgroup_size), "subgroup size %u",
            t->subgroup_size);
  cr_assert(t->subgroup_ops & IR_SUBGROUP_BASIC, "no basic subgroup ops: %x", t->subgroup_ops);
  cr_assert_geq(t->max_shared_bytes, 16384u);
  cr_assert_geq(t->max_workgroup_invocations, min.max_workgroup_invocations);
  for (int i = 0; i < 3; i++) {
    cr_assert_geq(t->max_workgroup_size[i], min.max_workgroup_size[i], "axis %d", i);
    cr_assert_geq(t->max_workgroup_count[i], min.max_workgroup_count[i], "axis %d", i);
  }
  cr_assert_geq(t->max_push_constant_bytes, 128u);
  cr_assert_geq(t->max_storage_buffer_range, (uint64_t)1 << 27);
  cr_assert(is_pow2(t->min_storage_buffer_offset_alignment) &&
            t->min_storage_buffer_offset_alignment <= 256);
  cr_assert_gt(t->timestamp_period_ns, 0.0f);
  cr_assert(t->n_heaps >= 1 && t->n_heaps <= IR_TARGET_MAX_HEAPS);
  uint64_t total = 0;
  for (int i = 0; i < t->n_heaps; i++) total += t->heaps[i].bytes;
  cr_assert_gt(total, (uint64_t)64 << 20, "heaps total %llu bytes", (unsigned long long)total);
  int nonzero = 0;
  for (int i = 0; i < 16; i++) nonzero += t->pipeline_cache_uuid[i] != 0;
  cr_assert_gt(nonzero, 0, "pipelineCacheUUID is all zero");
  cr_assert(!t->coopmat_nv || t->n_coopmat_shapes > 0);
  if (!strncmp(t->name, "llvmpipe", 8)) {
    /* lavapipe: subgroups of 8, 32 KiB shared memory, no cooperative matrix */
    cr_assert_eq(t->type, IR_TARGET_CPU);
    cr_assert_eq(t->subgroup_size, 8u);
    cr_assert_eq(t->max_shared_bytes, 32768u);
    cr_assert(t->fp16_arith && t->storage_16bit && t->int8_arith && t->storage_8bit);
    cr_assert(!t->coopmat_nv);
    cr_assert(t->push_descriptors);
    cr_assert_eq(t->vendor_id, 0x10005u, "vendor %x", t->vendor_id);
    cr_assert_gt(t->timestamp_valid_bits, 0u);
    cr_assert(t->subgroup_in_compute);
    cr_assert(t->subgroup_ops & IR_SUBGROUP_ARITHMETIC);
  }
  cr_assert_eq(rt_vk_context_device_index(ctx) >= 0, true);
  cr_assert_lt(rt_vk_context_device_index(ctx), rt_vk_context_device_count(ctx));
  vt_destroy(ctx);
}

Test(vk_context, index_override_by_option_and_env) {
  rt_vk_context_opts o = {.select_device = true, .device_index = 0, .no_pipeline_cache = true};
  rt_vk_context *ctx = vt_context_opts(&o);
  cr_assert_eq(rt_vk_context_device_index(ctx), 0);
  int n = rt_vk_context_device_count(ctx);
  char name0[256];
  strcpy(name0, rt_vk_context_target(ctx)->name);
  vt_destroy(ctx);

  /* VKML_DEVICE picks the last device; the option wins over the env */
  char idx[16];
  snprintf(idx, sizeof idx, "%d", n - 1);
  setenv("VKML_DEVICE", idx, 1);
  rt_vk_context_opts e = {.no_pipeline_cache = true};
  ctx = vt_context_opts(&e);
  cr_assert_eq(rt_vk_context_device_index(ctx), n - 1);
  vt_destroy(ctx);
  ctx = vt_context_opts(&o);
  cr_assert_eq(rt_vk_context_device_index(ctx), 0);
  cr_assert_str_eq(rt_vk_context_target(ctx)->name, name0);
  vt_destroy(ctx);
  unsetenv("VKML_DEVICE");
}

Test(vk_context, index_out_of_range) {
  rt_vk_context_opts o = {.select_device = true, .device_index = 1000, .validation = true};
  rt_vk_context *ctx = NULL;
  vkml_status s = rt_vk_context_create(&o, &ctx);
  cr_assert_null(ctx);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  cr_assert(strstr(vkml_status_message(s), "device index 1000 out of range"), "%s",
            vkml_status_message(s));
  vkml_status_free(s);

  o.device_index = -1;
  s = rt_vk_context_create(&o, &ctx);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);

  setenv("VKML_DEVICE", "57", 1);
  rt_vk_context_opts e = {.validation = true};
  s = rt_vk_context_create(&e, &ctx);
  cr_assert(strstr(vkml_status_message(s), "device index 57 out of range"), "%s",
            vkml_status_message(s));
  vkml_status_free(s);
  setenv("VKML_DEVICE", "gpu0", 1);
  s = rt_vk_context_create(&e, &ctx);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  cr_assert(strstr(vkml_status_message(s), "VKML_DEVICE=gpu0"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  unsetenv("VKML_DEVICE");
  cr_assert_null(ctx);
}

Test(vk_context, no_loader) {
  rt_vk_context_opts o = {.loader = "libvulkan-not-installed.so.1"};
  rt_vk_context *ctx = NULL;
  vkml_status s = rt_vk_context_create(&o, &ctx);
  cr_assert_null(ctx);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_DEVICE);
  cr_assert(strstr(vkml_status_message(s), "Vulkan loader not found"), "%s",
            vkml_status_message(s));
  vkml_status_free(s);
  /* a library that is not a Vulkan loader */
  o.loader = "libm.so.6";
  s = rt_vk_context_create(&o, &ctx);
  cr_assert_null(ctx);
  cr_assert(strstr(vkml_status_message(s), "Vulkan loader not found"), "%s",
            vkml_status_message(s));
  vkml_status_free(s);
}

Test(vk_context, missing_feature_is_a_clear_status) {
  rt_vk_context *ctx = vt_context(NULL);
  bool has_cm = rt_vk_context_target(ctx)->coopmat_nv;
  bool has_f16 = rt_vk_context_target(ctx)->fp16_arith;
  vt_destroy(ctx);
  if (has_cm) cr_skip("device has VK_NV_cooperative_matrix");
  rt_vk_context_opts o = {.required = RT_VK_REQ_COOPMAT_NV, .validation = true};
  vkml_status s = rt_vk_context_create(&o, &ctx);
  cr_assert_null(ctx);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_DEVICE);
  cr_assert(strstr(vkml_status_message(s), "lacks cooperative matrix"), "%s",
            vkml_status_message(s));
  vkml_status_free(s);
  if (has_f16) {
    /* a feature the device has is fine */
    rt_vk_context_opts ok = {.required = RT_VK_REQ_FP16 | RT_VK_REQ_STORAGE16,
                             .no_pipeline_cache = true};
    ctx = vt_context_opts(&ok);
    cr_assert(rt_vk_context_target(ctx)->fp16_arith);
    vt_destroy(ctx);
  }
}

Test(vk_context, validation_by_env_and_no_push_descriptors) {
  setenv("VKML_VALIDATION", "1", 1);
  rt_vk_context_opts o = {.no_push_descriptors = true, .no_pipeline_cache = true};
  rt_vk_context *ctx = NULL;
  T_OK(rt_vk_context_create(&o, &ctx));
  cr_assert(!rt_vk_context_target(ctx)->push_descriptors);
  cr_assert_str_eq(rt_vk_context_warnings(ctx), "");
  vt_destroy(ctx);
  unsetenv("VKML_VALIDATION");
}

Test(vk_context, no_device) {
  /* the loader finds no driver at all */
  setenv("VK_ICD_FILENAMES", "/nonexistent/vkml-no-such-icd.json", 1);
  setenv("VK_DRIVER_FILES", "/nonexistent/vkml-no-such-icd.json", 1);
  rt_vk_context_opts o = {.validation = true};
  rt_vk_context *ctx = NULL;
  vkml_status s = rt_vk_context_create(&o, &ctx);
  cr_assert_null(ctx);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_DEVICE);
  cr_assert(strstr(vkml_status_message(s), "no Vulkan device"), "%s", vkml_status_message(s));
  vkml_status_free(s);
  unsetenv("VK_ICD_FILENAMES");
  unsetenv("VK_DRIVER_FILES");
}
