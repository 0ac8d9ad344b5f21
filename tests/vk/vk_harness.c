/* The shared environment, graph runs, output poisoning and no-device
 * helpers of the Vulkan tests (see vk_test.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/text.h"
#include "runtime/cpu/executor.h"
#include "runtime/vk/vk_exec.h"
#include "test_support.h"
#include "vk_test.h"

void vt_env_open(vt_env *e) {
  e->ctx = vt_context(NULL);
  e->t = rt_vk_context_target(e->ctx);
  e->cc = vt_compiler();
}

void vt_env_close(vt_env *e) {
  cg_compiler_destroy(e->cc);
  vt_destroy(e->ctx);
}

void vt_env_skip_unless(vt_env *e, bool cond, const char *what) {
  if (cond) return;
  char name[sizeof e->t->name];
  snprintf(name, sizeof name, "%s", e->t->name);
  vt_env_close(e);
  cr_skip("%s lacks %s", name, what);
}

ir_graph *vt_parse(const char *text) {
  ir_graph *g = NULL;
  T_OK(ir_parse(text, strlen(text), "<test>", &g));
  T_OK(ir_verify(g, "<test>"));
  return g;
}

void vt_exec_once(const vt_env *e, const ir_plan *p, const rt_tensor *in, int n_in,
                  rt_tensor *out, int n_out) {
  rt_vk_exec *x;
  T_OK(rt_vk_exec_create(e->ctx, p, NULL, &x));
  T_OK(rt_vk_exec_run(x, in, n_in, out, n_out, NULL));
  rt_vk_exec_destroy(x);
}

int vt_run_all_gpu(const vt_env *e, const char *text, const char *key_part, const rt_tensor *in,
                   int n_in, rt_tensor *got, rt_tensor *want, int n_out) {
  ir_graph *ref = vt_parse(text), *g = vt_parse(text);
  ir_plan *p = vt_compile(e->t, e->cc, g, NULL, IR_PRECISION_FP32);
  int n = 0;
  for (int i = 0; i < p->n_steps; i++) {
    const char *key = ir_plan_str(p, p->steps[i].key);
    cr_assert_eq(p->steps[i].device, IR_DEVICE_GPU, "step %d (%s) is not on the GPU", i, key);
    n += key_part && strstr(key, key_part) != NULL;
  }
  T_OK(rt_cpu_run_graph(ref, in, n_in, want, n_out));
  vt_exec_once(e, p, in, n_in, got, n_out);
  ir_plan_destroy(p);
  ir_graph_destroy(ref);
  return n;
}

void vt_assert_equal(rt_tensor *got, rt_tensor *want, int n) {
  for (int i = 0; i < n; i++) {
    cr_assert_eq(got[i].rank, want[i].rank, "output %d: rank", i);
    cr_assert_eq(memcmp(got[i].dims, want[i].dims, sizeof(int64_t) * (size_t)want[i].rank), 0,
                 "output %d: dims differ", i);
    cr_assert_eq(memcmp(got[i].data, want[i].data, rt_tensor_bytes(&want[i])), 0,
                 "output %d differs", i);
    rt_tensor_free(&got[i]);
    rt_tensor_free(&want[i]);
  }
}

rt_tensor vt_abs_f32(const rt_tensor *t) {
  rt_tensor a;
  T_OK(rt_tensor_alloc_dims(IR_F32, t->rank, t->dims, &a));
  for (int64_t i = 0; i < rt_tensor_numel(t); i++) rt_store_f(&a, i, fabs(rt_load_f(t, i)));
  return a;
}

double vt_check_bound(const rt_tensor *got, const rt_tensor *want, const rt_tensor *scale,
                      double rtol, double scale_coef, double atol, int64_t *bad) {
  double worst = 0;
  *bad = -1;
  for (int64_t i = 0; i < rt_tensor_numel(want); i++) {
    double a = rt_load_f(got, i), b = rt_load_f(want, i);
    double tol = rtol * fabs(b) + scale_coef * rt_load_f(scale, i) + atol;
    double err = fabs(a - b);
    if (err / tol > worst) worst = err / tol;
    if (!(err <= tol) && *bad < 0) *bad = i;
  }
  return worst;
}

/* Whether s is valid on target; an invalid point must be refused as
 * UNSUPPORTED by the constraint check. */
static bool point_valid(const cg_template *t, const cg_schedule *s, const ir_target *target) {
  vkml_status st = cg_schedule_check(t, s, target);
  if (!st) return true;
  cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED, "%s", vkml_status_message(st));
  vkml_status_free(st);
  return false;
}

int vt_sample_points(const cg_template *t, const ir_target *target, int64_t first,
                     int64_t stride, int want, cg_schedule *out) {
  int64_t size = cg_space_size(t), idx = first % size;
  int n = 0;
  for (int64_t tries = 0; tries < size && n < want; tries++, idx = (idx + stride) % size) {
    cg_space_point(t, idx, &out[n]);
    if (memcmp(out[n].v, t->dflt.v, sizeof out[n].v) && point_valid(t, &out[n], target)) n++;
  }
  return n;
}

void vt_sample_random(const cg_template *t, const ir_target *target, uint64_t seed, int from,
                      int want, cg_schedule *out) {
  t_rng r = t_rng_make(seed);
  int64_t size = cg_space_size(t);
  for (int i = from; i < want;) {
    cg_space_point(t, (int64_t)(t_rng_next(&r) % (uint64_t)size), &out[i]);
    i += point_valid(t, &out[i], target);
  }
}

void vt_poisoned(const ir_type *t, unsigned char byte, rt_tensor *out) {
  T_OK(rt_tensor_alloc(t, out));
  size_t bytes = rt_tensor_bytes(out);
  if (bytes) memset(out->data, byte, bytes);
}

size_t vt_untouched(const rt_tensor *t, unsigned char byte) {
  const unsigned char *p = t->data;
  size_t n = 0, bytes = rt_tensor_bytes(t);
  for (size_t j = 0; j < bytes; j++) n += p[j] == byte;
  return n;
}

ir_target vt_coop_target(void) {
  ir_target t;
  ir_target_minimum(&t);
  strcpy(t.name, "synthetic-coopmat");
  t.subgroup_size = 32;
  t.subgroup_ops = IR_SUBGROUP_BASIC | IR_SUBGROUP_ARITHMETIC;
  t.subgroup_in_compute = true;
  t.max_shared_bytes = 49152;
  t.max_workgroup_size[0] = 1024;
  t.max_workgroup_invocations = 1024;
  t.fp16_arith = t.storage_16bit = true;
  t.coopmat_nv = true;
  t.vulkan_memory_model = true;
  ir_coopmat_shape sh[] = {
      {16, 8, 16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F16},
      {16, 8, 8, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F32, IR_COOPMAT_F32},
      {16, 16, 16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F32, IR_COOPMAT_F32},
      {8, 8, 32, IR_COOPMAT_I8, IR_COOPMAT_I8, IR_COOPMAT_I32, IR_COOPMAT_I32},
  };
  t.n_coopmat_shapes = 4;
  memcpy(t.coopmat_shapes, sh, sizeof sh);
  return t;
}

ir_target vt_coop_khr_target(void) {
  ir_target t = vt_coop_target();
  t.coopmat_khr = true;
  ir_coopmat_shape sh[] = {
      {16, 16, 16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F16, true},
      {16, 16, 16, IR_COOPMAT_F16, IR_COOPMAT_F16, IR_COOPMAT_F32, IR_COOPMAT_F32, true},
  };
  memcpy(t.coopmat_shapes + t.n_coopmat_shapes, sh, sizeof sh);
  t.n_coopmat_shapes += 2;
  return t;
}

ir_target vt_coop2_target(void) {
  ir_target t = vt_coop_khr_target();
  t.coopmat2 = true;
  t.coopmat2_max_workgroup = 256;
  /* as the H100 lists them (bench/vk_coopmat_probe.py): granules of 32x16x16
   * for workgroups of 128 invocations, 32x32x16 for 256 */
  for (int acc = 0; acc < 2; acc++)
    for (int w = 0; w < 2; w++) {
      ir_coopmat_type ct = acc ? IR_COOPMAT_F32 : IR_COOPMAT_F16;
      t.coopmat2_shapes[t.n_coopmat2_shapes] =
          (ir_coopmat_shape){32, w ? 32 : 16, 16, IR_COOPMAT_F16, IR_COOPMAT_F16, ct, ct, true};
      t.coopmat2_invocations[t.n_coopmat2_shapes++] = w ? 256 : 128;
    }
  return t;
}

const char *vt_define_of(const cg_kernel *k, const char *name) {
  for (int i = 0; i < k->n_defines; i++)
    if (!strcmp(k->def_name[i], name)) return k->def_value[i];
  return NULL;
}

uint32_t vt_spec_of(const cg_kernel *k, uint32_t id) {
  for (int i = 0; i < k->n_spec; i++)
    if (k->spec_id[i] == id) return k->spec_value[i];
  cr_assert_fail("no specialization constant %u", id);
  return 0;
}

bool vt_has_capability(const cg_spirv *m, uint32_t cap) {
  size_t n = m->bytes / 4;
  for (size_t i = 5; i + 1 < n;) {
    uint32_t len = m->words[i] >> 16, op = m->words[i] & 0xffff;
    if (len == 0) break;
    if (op == 17 && m->words[i + 1] == cap) return true; /* OpCapability */
    i += len;
  }
  return false;
}

ir_node *vt_type_node(ir_graph **g, ir_op op, ir_dtype dt, int n_in, const int *ranks,
                      const int64_t (*dims)[IR_MAX_RANK], int rank_out, const int64_t *out_dims) {
  rt_tensor in[3];
  cr_assert(n_in <= 3);
  for (int i = 0; i < n_in; i++) {
    ir_type ti = ir_type_make(dt, ranks[i], dims[i]);
    in[i] = rt_tensor_view(&ti, NULL); /* only the types are used */
  }
  ir_type to = ir_type_make(dt, rank_out, out_dims);
  return t_node_make(g, op, in, n_in, &to, 1);
}
