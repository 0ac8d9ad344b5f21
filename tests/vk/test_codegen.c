/* codegen without a device: shaderc compilation and its errors, the SPIR-V
 * cache, embedded templates, schedule spaces and their constraints, and the
 * binary template's instantiation (merged axes, modes, grid). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codegen/kernels/binary.h"
#include "codegen/core/compile.h"
#include "codegen/core/glsl.h"
#include "test_support.h"
#include "vk_test.h"

static const char *SRC =
    "#version 450\n"
    "layout(local_size_x = WG) in;\n"
    "layout(binding = 0) buffer B { float x[]; };\n"
    "void main() { x[gl_GlobalInvocationID.x] *= SCALE; }\n";

static void hex128(cg_hash128 h, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.hi, (unsigned long long)h.lo);
}

Test(codegen, fnv128_matches_reference_vectors) {
  /* values from the FNV-1a 128 definition, computed with Python big ints */
  char buf[33];
  hex128(cg_fnv128(cg_fnv128_init(), "", 0), buf);
  cr_assert_str_eq(buf, "6c62272e07bb014262b821756295c58d");
  hex128(cg_fnv128(cg_fnv128_init(), "a", 1), buf);
  cr_assert_str_eq(buf, "d228cb696f1a8caf78912b704e4a8964");
  hex128(cg_fnv128(cg_fnv128_init(), "foobar", 6), buf);
  cr_assert_str_eq(buf, "343e1662793c64bf6f0d3597ba446f18");
  /* incremental == one shot */
  cg_hash128 h = cg_fnv128(cg_fnv128(cg_fnv128_init(), "foo", 3), "bar", 3);
  hex128(h, buf);
  cr_assert_str_eq(buf, "343e1662793c64bf6f0d3597ba446f18");
}

static cg_compiler *compiler(const char *dir) {
  cg_compiler_opts o = {.cache_dir = dir, .no_cache = dir == NULL};
  cg_compiler *c = NULL;
  T_OK(cg_compiler_create(&o, &c));
  return c;
}

Test(codegen, compile_and_cache) {
  char *dir = vt_tempdir();
  cg_compiler *c = compiler(dir);
  cg_define d[] = {{"WG", "64"}, {"SCALE", "2.0"}};
  cg_spirv a, b, e;
  T_OK(cg_compile(c, "scale.comp", SRC, d, 2, CG_OPT_PERFORMANCE, &a));
  cr_assert_eq(a.words[0], 0x07230203u);
  cr_assert(a.bytes >= 20 && a.bytes % 4 == 0);
  cr_assert(!a.from_cache);
  T_OK(cg_compile(c, "scale.comp", SRC, d, 2, CG_OPT_PERFORMANCE, &b));
  cr_assert(b.from_cache);
  cr_assert_eq(a.bytes, b.bytes);
  cr_assert(!memcmp(a.words, b.words, a.bytes));
  cr_assert(!memcmp(a.key, b.key, 16));
  /* another define value is another module */
  cg_define d2[] = {{"WG", "64"}, {"SCALE", "3.0"}};
  T_OK(cg_compile(c, "scale.comp", SRC, d2, 2, CG_OPT_PERFORMANCE, &e));
  cr_assert(!e.from_cache);
  cr_assert(memcmp(a.key, e.key, 16));
  cg_compiler_stats st;
  cg_compiler_stats_get(c, &st);
  cr_assert_eq(st.n_compiled, 2);
  cr_assert_eq(st.n_cache_hits, 1);
  cg_compiler_destroy(c);

  /* a second compiler (another process would do the same) hits the cache */
  c = compiler(dir);
  cg_spirv f;
  T_OK(cg_compile(c, "scale.comp", SRC, d2, 2, CG_OPT_PERFORMANCE, &f));
  cr_assert(f.from_cache);
  cr_assert(!memcmp(e.words, f.words, e.bytes));

  /* damage the cache file of `a`: it is recompiled, identically */
  char path[4200], hex[33];
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", a.key[i]);
  snprintf(path, sizeof path, "%s/%s.spv", dir, hex);
  FILE *fp = fopen(path, "r+b");
  cr_assert(fp, "cache file %s missing", path);
  fseek(fp, 60, SEEK_SET);
  fputc(0x5a, fp);
  fclose(fp);
  cg_spirv g;
  T_OK(cg_compile(c, "scale.comp", SRC, d, 2, CG_OPT_PERFORMANCE, &g));
  cr_assert(!g.from_cache);
  cr_assert_eq(g.bytes, a.bytes);
  cr_assert(!memcmp(g.words, a.words, a.bytes));
  cg_compiler_stats_get(c, &st);
  cr_assert_eq(st.n_cache_bad, 1);
  cr_assert_eq(st.n_compiled, 1);
  cg_spirv_free(&a);
  cg_spirv_free(&b);
  cg_spirv_free(&e);
  cg_spirv_free(&f);
  cg_spirv_free(&g);
  cg_compiler_destroy(c);
  vt_rmdir(dir);
  free(dir);
}

Test(codegen, compile_error_names_the_glsl_line) {
  cg_compiler *c = compiler(NULL);
  const char *bad =
      "#version 450\n"
      "layout(local_size_x = 1) in;\n"
      "layout(binding = 0) buffer B { float x[]; };\n"
      "void main() {\n"
      "  x[0] = undefined_thing * 2.0;\n"
      "}\n";
  cg_spirv s;
  vkml_status st = cg_compile(c, "broken.comp", bad, NULL, 0, CG_OPT_PERFORMANCE, &s);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_PARSE);
  const char *m = vkml_status_message(st);
  cr_assert(strstr(m, "broken.comp:5:"), "%s", m);
  cr_assert(strstr(m, "undefined_thing"), "%s", m);
  cr_assert(strstr(m, "5 |   x[0] = undefined_thing * 2.0;"), "%s", m);
  cr_assert_null(s.words);
  vkml_status_free(st);
  /* a define missing from the call is an error in the template's line */
  st = cg_compile(c, "scale.comp", SRC, NULL, 0, CG_OPT_PERFORMANCE, &s);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_PARSE);
  cr_assert(strstr(vkml_status_message(st), "scale.comp:2:"), "%s", vkml_status_message(st));
  vkml_status_free(st);
  cg_compiler_destroy(c);
}

/* #include resolves among the embedded snippets; an unknown name is a
 * PARSE error that names it. */
Test(codegen, include_resolves_embedded_snippets) {
  cg_compiler *c;
  cg_compiler_opts o = {.no_cache = true};
  T_OK(cg_compiler_create(&o, &c));
  static const char OK_SRC[] =
      "#version 450\n#define ACT 11\nconst float ACT_ALPHA = 0.0, ACT_BETA = 0.0;\n"
      "#include \"act.glsl\"\nlayout(local_size_x = 1) in;\n"
      "layout(binding = 0) buffer B { float x[]; };\n"
      "void main() { x[0] = act(x[0]) + erf_(x[1]); }\n";
  cg_spirv s;
  T_OK(cg_compile(c, "inc.comp", OK_SRC, NULL, 0, CG_OPT_PERFORMANCE, &s));
  cg_spirv_free(&s);
  static const char BAD_SRC[] = "#version 450\n#include \"no_such.glsl\"\n"
                                "layout(local_size_x = 1) in;\nvoid main() {}\n";
  vkml_status st = cg_compile(c, "bad.comp", BAD_SRC, NULL, 0, CG_OPT_PERFORMANCE, &s);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_PARSE);
  cr_assert(strstr(vkml_status_message(st), "no_such.glsl"), "%s", vkml_status_message(st));
  vkml_status_free(st);
  cg_compiler_destroy(c);
}

/* The second compiler (glslang 15, CG_OPT_GLSLANG15): a
 * GL_KHR_cooperative_matrix shader with defines and an embedded include
 * compiles to a module that declares the KHR capability; a GLSL error names
 * the template's line as shaderc's do; and it shares the SPIR-V cache. */
Test(codegen, glslang15_compiles_khr_cooperative_matrices) {
  if (!cg_compiler_has_glslang15()) cr_skip_test("this build lacks glslang 15 (tools/build-deps.sh)");
  char *dir = vt_tempdir();
  cg_compiler *c = compiler(dir);
  static const char KHR[] =
      "#version 450\n"
      "#extension GL_KHR_cooperative_matrix : require\n"
      "#extension GL_KHR_memory_scope_semantics : require\n"
      "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
      "#define ACT 11\nconst float ACT_ALPHA = 0.0, ACT_BETA = 0.0;\n"
      "#include \"act.glsl\"\n"
      "layout(local_size_x = 32) in;\n"
      "layout(binding = 0) buffer A { float16_t a[]; };\n"
      "layout(binding = 1) buffer C { float c[]; };\n"
      "void main() {\n"
      "  coopmat<float16_t, gl_ScopeSubgroup, N, N, gl_MatrixUseA> ma;\n"
      "  coopmat<float16_t, gl_ScopeSubgroup, N, N, gl_MatrixUseB> mb;\n"
      "  coopmat<float, gl_ScopeSubgroup, N, N, gl_MatrixUseAccumulator> acc =\n"
      "      coopmat<float, gl_ScopeSubgroup, N, N, gl_MatrixUseAccumulator>(0.0);\n"
      "  coopMatLoad(ma, a, 0, N, gl_CooperativeMatrixLayoutRowMajor);\n"
      "  coopMatLoad(mb, a, N * N, N, gl_CooperativeMatrixLayoutColumnMajor);\n"
      "  acc = coopMatMulAdd(ma, mb, acc);\n"
      "  coopMatStore(acc, c, 0, N, gl_CooperativeMatrixLayoutRowMajor);\n"
      "  c[0] = act(c[0]);\n"
      "}\n";
  cg_define d[] = {{"N", "16"}};
  cg_spirv s;
  T_OK(cg_compile(c, "khr.comp", KHR, d, 1, CG_OPT_GLSLANG15, &s));
  cr_assert_eq(s.words[0], 0x07230203u);
  cr_assert_eq(s.words[1], 0x00010300u, "SPIR-V 1.3, as shaderc's");
  bool cap = false; /* OpCapability (17, 2 words) CooperativeMatrixKHR (6022) */
  for (size_t i = 5; i + 1 < s.bytes / 4; i += s.words[i] >> 16 ? s.words[i] >> 16 : 1)
    if (s.words[i] == ((2u << 16) | 17u) && s.words[i + 1] == 6022u) cap = true;
  cr_assert(cap, "no CooperativeMatrixKHR capability");
  cr_assert_not(s.from_cache);
  cg_spirv again;
  T_OK(cg_compile(c, "khr.comp", KHR, d, 1, CG_OPT_GLSLANG15, &again));
  cr_assert(again.from_cache);
  cr_assert_eq(again.bytes, s.bytes);
  cr_assert_eq(memcmp(again.words, s.words, s.bytes), 0);
  /* for Vulkan 1.3 (what GL_NV_cooperative_matrix2 needs): SPIR-V 1.6, its own cache entry */
  cg_spirv v13;
  T_OK(cg_compile(c, "khr.comp", KHR, d, 1, CG_OPT_GLSLANG15_VK13, &v13));
  cr_assert_eq(v13.words[1], 0x00010600u);
  cr_assert_not(v13.from_cache);
  cg_spirv_free(&v13);
  /* the same source through shaderc (glslang 12) fails: it does not know it */
  cg_spirv old;
  vkml_status st = cg_compile(c, "khr.comp", KHR, d, 1, CG_OPT_ZERO, &old);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_PARSE);
  vkml_status_free(st);
  /* an error quotes the line, as shaderc's do */
  static const char BAD[] = "#version 450\nlayout(local_size_x = 1) in;\n"
                            "layout(binding = 0) buffer B { float x[]; };\n"
                            "void main() {\n  x[0] = undefined_thing;\n}\n";
  st = cg_compile(c, "bad15.comp", BAD, d, 1, CG_OPT_GLSLANG15, &old);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_PARSE);
  const char *m = vkml_status_message(st);
  cr_assert(strstr(m, "bad15.comp:5: error:"), "%s", m);
  cr_assert(strstr(m, "5 |   x[0] = undefined_thing;"), "%s", m);
  vkml_status_free(st);
  /* so does an include that is not embedded */
  static const char NOINC[] = "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                              "#include \"no_such.glsl\"\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
  st = cg_compile(c, "noinc.comp", NOINC, NULL, 0, CG_OPT_GLSLANG15, &old);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_PARSE);
  cr_assert(strstr(vkml_status_message(st), "no_such.glsl"), "%s", vkml_status_message(st));
  vkml_status_free(st);
  cg_spirv_free(&s);
  cg_spirv_free(&again);
  cg_compiler_destroy(c);
  vt_rmdir(dir);
  free(dir);
}

Test(codegen, templates_are_embedded_verbatim) {
  for (int i = 0; cg_templates[i]; i++) {
    const cg_template *t = cg_templates[i];
    const cg_glsl_file *f = cg_glsl_find(t->glsl);
    cr_assert(f, "template %s: %s not embedded", t->name, t->glsl);
    char path[1024];
    snprintf(path, sizeof path, "%s/codegen/glsl/%s", VKML_SOURCE_ROOT, t->glsl);
    FILE *fp = fopen(path, "rb");
    cr_assert(fp, "%s", path);
    char *disk = malloc(f->bytes + 2);
    size_t n = fread(disk, 1, f->bytes + 1, fp);
    fclose(fp);
    cr_assert_eq(n, f->bytes);
    cr_assert(!memcmp(disk, f->text, n));
    cr_assert_eq(f->text[f->bytes], '\0');
    free(disk);
  }
  for (const char *const *sn = (const char *const[]){"act.glsl", "math.glsl", NULL}; *sn; sn++)
    cr_assert(cg_glsl_find(*sn), "snippet %s not embedded", *sn);
  cr_assert_null(cg_glsl_find("no_such.comp"));
}

Test(codegen, spaces_defaults_and_constraints) {
  ir_target min;
  ir_target_minimum(&min);
  for (int i = 0; cg_templates[i]; i++) {
    const cg_template *t = cg_templates[i];
    /* the default is a point of the space and valid on the weakest device */
    T_OK(cg_schedule_check(t, &t->dflt, &min));
    int64_t n = cg_space_size(t), expect = 1;
    for (int k = 0; k < t->n_knobs; k++) expect *= t->knobs[k].n_values;
    cr_assert_eq(n, expect);
    bool seen_default = false;
    for (int64_t p = 0; p < n; p++) {
      cg_schedule s, back;
      cg_space_point(t, p, &s);
      char text[256];
      cg_schedule_format(t, &s, text, sizeof text);
      T_OK(cg_schedule_parse(t, text, &back));
      cr_assert(!memcmp(s.v, back.v, sizeof s.v), "%s", text);
      seen_default = seen_default || !memcmp(s.v, t->dflt.v, sizeof s.v);
      for (int64_t q = 0; q < p; q++) {
        cg_schedule o;
        cg_space_point(t, q, &o);
        cr_assert(memcmp(s.v, o.v, sizeof s.v), "points %lld and %lld equal", (long long)p,
                  (long long)q);
      }
    }
    cr_assert(seen_default);
  }
  const cg_template *b = cg_template_find("elementwise_binary");
  cr_assert_eq(b, &cg_binary_template);
  cr_assert_eq(cg_space_size(b), 24);
  cg_schedule big;
  T_OK(cg_schedule_parse(b, "WG_SIZE=1024,EPI=8", &big));
  vkml_status s = cg_schedule_check(b, &big, &min);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED);
  cr_assert(strstr(vkml_status_message(s), "WG_SIZE=1024 = 1024 exceeds the max workgroup size x"),
            "%s", vkml_status_message(s));
  vkml_status_free(s);
  min.max_workgroup_size[0] = 2048;
  s = cg_schedule_check(b, &big, &min);
  cr_assert(strstr(vkml_status_message(s), "max workgroup invocations"), "%s",
            vkml_status_message(s));
  vkml_status_free(s);
  cg_schedule odd = {{100, 4}};
  s = cg_schedule_check(b, &odd, &min);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(s);
  cg_schedule dummy;
  s = cg_schedule_parse(b, "WG_SIZE=64", &dummy);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_PARSE);
  vkml_status_free(s);
}

static uint32_t spec(const cg_kernel *k, uint32_t id) {
  for (int i = 0; i < k->n_spec; i++)
    if (k->spec_id[i] == id) return k->spec_value[i];
  return 0xdeadbeef;
}

static cg_binary_workload wl(ir_op op, ir_dtype dt, int ra, const int64_t *da, int rb,
                             const int64_t *db) {
  cg_binary_workload w = {.op = op};
  w.a = ir_type_make(dt, ra, da);
  w.b = ir_type_make(dt, rb, db);
  T_OK(ir_broadcast(&w.a, &w.b, &w.out));
  return w;
}

Test(codegen, binary_instantiation) {
  ir_target t;
  ir_target_minimum(&t);
  /* [2,3,4] + [4]: merged axes (innermost first) d=[4,6], a contiguous,
   * b strided [1,0]; vectors of 4 fit the inner axis */
  int64_t da[] = {2, 3, 4}, db[] = {4};
  cg_binary_workload w = wl(IR_OP_ADD, IR_F32, 3, da, 1, db);
  w.act.kind = IR_ACT_LEAKY_RELU;
  w.act.alpha = 0.25f;
  char key[256];
  cg_binary_workload_key(&w, key, sizeof key);
  cr_assert_str_eq(key, "add(f32[2,3,4],f32[4])->f32[2,3,4]{act=leaky_relu,act_alpha=0.25}");
  cg_kernel k;
  T_OK(cg_binary_instantiate(&w, &cg_binary_template.dflt, &t, &k));
  cr_assert_str_eq(k.key, key);
  cr_assert_eq(spec(&k, 0), 24u);
  cr_assert_eq(spec(&k, 1), 2u);
  cr_assert_eq(spec(&k, 2), 1u); /* a: like the output */
  cr_assert_eq(spec(&k, 3), 0u); /* b: strided */
  cr_assert_eq(spec(&k, 4), 1u); /* vector path */
  cr_assert_eq(spec(&k, 8), 4u);
  cr_assert_eq(spec(&k, 9), 6u);
  cr_assert_eq(spec(&k, 24), 1u);
  cr_assert_eq(spec(&k, 25), 0u);
  float alpha;
  uint32_t bits = spec(&k, 5);
  memcpy(&alpha, &bits, 4);
  cr_assert_eq(alpha, 0.25f);
  cr_assert_eq(k.n_buffers, 3);
  cr_assert_eq(k.groups[0], 1u); /* 24 elements, 128*4 per group */
  bool has_op = false;
  for (int i = 0; i < k.n_defines; i++)
    has_op = has_op || (!strcmp(k.def_name[i], "ACT") && !strcmp(k.def_value[i], "4"));
  cr_assert(has_op, "ACT define missing");

  /* [3,1,5] * [1,4,1]: nothing merges; odd inner axis: scalar path */
  int64_t ea[] = {3, 1, 5}, eb[] = {1, 4, 1};
  w = wl(IR_OP_MUL, IR_F32, 3, ea, 3, eb);
  T_OK(cg_binary_instantiate(&w, &cg_binary_template.dflt, &t, &k));
  cr_assert_eq(spec(&k, 1), 3u);
  cr_assert_eq(spec(&k, 4), 0u);
  cr_assert_eq(spec(&k, 8), 5u);
  cr_assert_eq(spec(&k, 9), 4u);
  cr_assert_eq(spec(&k, 10), 3u);
  cr_assert_eq(spec(&k, 16), 1u);
  cr_assert_eq(spec(&k, 17), 0u);
  cr_assert_eq(spec(&k, 18), 5u);
  cr_assert_eq(spec(&k, 24), 0u);
  cr_assert_eq(spec(&k, 25), 1u);
  cr_assert_eq(spec(&k, 26), 0u);

  /* a scalar operand and a big grid: 2-D past the x limit */
  int64_t big[] = {70000, 130}, one[] = {1};
  w = wl(IR_OP_SUB, IR_F32, 2, big, 1, one);
  cg_schedule s = {{32, 1}};
  T_OK(cg_binary_instantiate(&w, &s, &t, &k));
  cr_assert_eq(spec(&k, 3), 2u);
  uint64_t groups = (70000ull * 130 + 31) / 32;
  cr_assert_eq(k.groups[0], 65535u);
  cr_assert_eq(k.groups[1], (uint32_t)((groups + 65534) / 65535));

  /* f16 needs 16-bit storage; min takes no act; wrong output shape */
  w = wl(IR_OP_ADD, IR_F16, 3, da, 1, db);
  vkml_status st = cg_binary_instantiate(&w, &cg_binary_template.dflt, &t, &k);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_UNSUPPORTED);
  cr_assert(strstr(vkml_status_message(st), "16-bit storage"), "%s", vkml_status_message(st));
  vkml_status_free(st);
  t.storage_16bit = true;
  T_OK(cg_binary_instantiate(&w, &cg_binary_template.dflt, &t, &k));
  w = wl(IR_OP_MIN, IR_F32, 3, da, 1, db);
  w.act.kind = IR_ACT_RELU;
  st = cg_binary_instantiate(&w, &cg_binary_template.dflt, &t, &k);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(st);
  w = wl(IR_OP_DIV, IR_F32, 3, da, 1, db);
  w.out.dims[0] = 5;
  st = cg_binary_instantiate(&w, &cg_binary_template.dflt, &t, &k);
  cr_assert_eq(vkml_status_code(st), VKML_CODE_INVALID_ARGUMENT);
  vkml_status_free(st);
}

Test(codegen, binary_workload_from_node) {
  t_rng r = t_rng_make(3);
  int64_t da[] = {2, 3}, db[] = {3};
  rt_tensor in[2] = {t_tensor_random(&r, IR_F32, 2, da, -1, 1),
                     t_tensor_random(&r, IR_F32, 1, db, -1, 1)};
  ir_type ot = ir_type_make(IR_F32, 2, da);
  ir_graph *g;
  ir_node *n = t_node_make(&g, IR_OP_DIV, in, 2, &ot, 1);
  T_OK(ir_node_set_enum(g, n, IR_A_ACT, IR_ACT_CLIP));
  cg_binary_workload w;
  T_OK(cg_binary_workload_from_node(n, &w));
  cr_assert_eq(w.op, IR_OP_DIV);
  cr_assert_eq(w.act.kind, IR_ACT_CLIP);
  cr_assert_eq(w.act.beta, 6.0f); /* the default clip bounds */
  char key[256];
  cg_binary_workload_key(&w, key, sizeof key);
  cr_assert_str_eq(key, "div(f32[2,3],f32[3])->f32[2,3]{act=clip,act_alpha=0,act_beta=6}");
  ir_graph_destroy(g);
  n = t_node_make(&g, IR_OP_POW, in, 2, &ot, 1);
  vkml_status s = cg_binary_workload_from_node(n, &w);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED);
  vkml_status_free(s);
  ir_graph_destroy(g);
  rt_tensor_free(&in[0]);
  rt_tensor_free(&in[1]);
}
