/* The .vkm artifact (ir/artifact.h) on lavapipe: a plan written and read back
 * runs like the plan it came from and encodes to the same bytes; every
 * flipped byte and every truncation of a small artifact is refused with a
 * message, never a crash; a plan needing a feature the device lacks is
 * refused naming it. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/artifact.h"
#include "ir/text.h"
#include "ir/util.h"
#include "runtime/cpu/cpu_kernels.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

static ir_plan *compile(vt_env *e, const char *text, const bool *cpu_ops, ir_precision prec) {
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  return vt_compile(e->t, e->cc, g, cpu_ops, prec);
}

static const char SMALL[] = "vkir 1\n"
                            "graph @small(%x: f32[2,8], %y: f32[8]) -> (%z: f32[2,8]) {\n"
                            "  %a = add %x, %y {act=relu} : f32[2,8]\n"
                            "  %z = mul %a, %x : f32[2,8]\n"
                            "  return %z\n"
                            "}\n";

Test(vk_artifact, round_trip_runs_and_reencodes_identically) {
  vt_env e;
  vt_env_open(&e);
  ir_graph *g = NULL;
  T_OK(ir_parse_file(VKML_SOURCE_ROOT "/tests/models/tinycnn/model.vkir", &g));
  t_rng r = t_rng_make(3);
  const ir_type *t = &g->inputs[0]->type;
  rt_tensor in = t_tensor_random(&r, t->dtype, t->rank, t->dims, -1, 1);
  bool cpu[IR_OP_COUNT] = {false};
  cpu[IR_OP_MAXPOOL] = true;
  const bool *variants[2] = {NULL, cpu};
  for (int prec = 0; prec < 2; prec++)
    for (int v = 0; v < 2; v++) {
      if (prec == 1 && !e.t->storage_16bit) continue;
      /* fp32 and fp16; all on the GPU and with maxpool on the CPU */
      ir_graph *h;
      T_OK(ir_graph_clone(g, &h));
      ir_plan *p = vt_compile(e.t, e.cc, h, variants[v], (ir_precision)prec);
      ir_artifact_meta m = {.tool = "test", .target = e.t};
      uint8_t *bytes, *again;
      size_t n, n2;
      T_OK(ir_artifact_encode(p, &m, &bytes, &n));
      ir_plan *q2;
      T_OK(ir_artifact_decode(bytes, n, "tinycnn.vkm", &q2));
      cr_assert_eq(q2->n_steps, p->n_steps);
      T_OK(ir_artifact_encode(q2, &m, &again, &n2));
      cr_assert(n == n2 && !memcmp(bytes, again, n), "a decoded artifact encodes to other bytes");
      rt_tensor want, got;
      vt_exec_once(&e, p, &in, 1, &want, 1);
      vt_exec_once(&e, q2, &in, 1, &got, 1);
      t_assert_close(&got, &want, 0, 0);
      /* the CPU reference kernels run the artifact's graph too */
      rt_tensor cpu_out;
      T_OK(rt_cpu_run_graph(q2->graph, &in, 1, &cpu_out, 1));
      t_assert_close(&cpu_out, &want, prec ? 1e-2 : 1e-4, prec ? 1e-3 : 1e-6);
      rt_tensor_free(&cpu_out);
      rt_tensor_free(&got);
      rt_tensor_free(&want);
      free(bytes);
      free(again);
      ir_plan_destroy(q2);
      ir_plan_destroy(p);
    }
  rt_tensor_free(&in);
  ir_graph_destroy(g);
  vt_env_close(&e);
}

/* Every byte flipped in turn, and every truncation: refused, with a
 * message naming the file, never a crash or a plan. */
Test(vk_artifact, every_flipped_byte_and_truncation_is_refused) {
  vt_env e;
  vt_env_open(&e);
  bool cpu[IR_OP_COUNT] = {false};
  cpu[IR_OP_MUL] = true; /* a CPU step and transfers in the file too */
  ir_plan *p = compile(&e, SMALL, cpu, IR_PRECISION_FP32);
  uint8_t *bytes;
  size_t n;
  T_OK(ir_artifact_encode(p, &(ir_artifact_meta){.tool = "test", .target = e.t}, &bytes, &n));
  cr_log_info("small artifact: %zu bytes", n);
  uint8_t *copy = malloc(n);
  for (size_t i = 0; i < n; i++) {
    memcpy(copy, bytes, n);
    copy[i] ^= (uint8_t)(1u << (i % 8));
    ir_plan *q = NULL;
    vkml_status s = ir_artifact_decode(copy, n, "flip.vkm", &q);
    cr_assert(s, "byte %zu flipped: accepted", i);
    cr_assert_null(q);
    vkml_code c = vkml_status_code(s);
    cr_assert(c == VKML_CODE_CORRUPT || c == VKML_CODE_UNSUPPORTED, "byte %zu: %s", i,
              vkml_status_message(s));
    cr_assert(!strncmp(vkml_status_message(s), "flip.vkm: ", 10), "%s", vkml_status_message(s));
    vkml_status_free(s);
  }
  for (size_t len = 0; len < n; len += 1 + len / 64) {
    ir_plan *q = NULL;
    vkml_status s = ir_artifact_decode(bytes, len, "cut.vkm", &q);
    cr_assert_eq(vkml_status_code(s), VKML_CODE_CORRUPT, "cut at %zu: %s", len,
                 s ? vkml_status_message(s) : "accepted");
    cr_assert_null(q);
    vkml_status_free(s);
  }
  /* a newer format, its header checksum right: refused naming both */
  memcpy(copy, bytes, n);
  copy[8] = IR_ARTIFACT_VERSION + 1;
  uint64_t h = ir_fnv64(copy, 56, IR_FNV64_SEED);
  for (int k = 0; k < 8; k++) copy[56 + k] = (uint8_t)(h >> (8 * k));
  ir_plan *q = NULL;
  t_expect_error(ir_artifact_decode(copy, n, "new.vkm", &q), VKML_CODE_UNSUPPORTED,
                 "new.vkm: artifact format version 4; this vkml reads version 3 (made by a "
                 "newer vkml)");
  /* an older one too (version 2 had no step flags, version 1 FNV-1a section
   * checksums) */
  memcpy(copy, bytes, n);
  copy[8] = 2;
  h = ir_fnv64(copy, 56, IR_FNV64_SEED);
  for (int k = 0; k < 8; k++) copy[56 + k] = (uint8_t)(h >> (8 * k));
  t_expect_error(ir_artifact_decode(copy, n, "old.vkm", &q), VKML_CODE_UNSUPPORTED,
                 "old.vkm: artifact format version 2; this vkml reads version 3");
  free(copy);
  free(bytes);
  ir_plan_destroy(p);
  vt_env_close(&e);
}

/* A plan whose kernels need a feature the device lacks is refused before
 * anything is created, naming the feature. */
Test(vk_artifact, missing_device_feature_is_named) {
  vt_env e;
  vt_env_open(&e);
  ir_plan *p = compile(&e, SMALL, NULL, IR_PRECISION_FP32);
  ir_plan_needs needs;
  T_OK(ir_plan_needs_get(p, &needs));
  ir_target t = *e.t;
  t.storage_16bit = false;
  needs.features |= IR_NEED_STORAGE_16BIT;
  t_expect_error(ir_target_check_needs(&t, &needs), VKML_CODE_UNSUPPORTED,
                 "the kernels need storageBuffer16BitAccess (fp16 tensors), which");
  T_OK(ir_target_check_needs(e.t, &(ir_plan_needs){0, 0}));
  ir_plan_destroy(p);
  vt_env_close(&e);
}
