/* Every template's specialization constants against its compiled SPIR-V.
 *
 * The ids are declared once, in the GLSL files; the build generates their
 * CG_SPEC_<FILE>_<NAME> names and a table of them (codegen/core/gen.py,
 * codegen/core/spec_table.h), and the kernels set constants by those names.
 * This test compiles the kernels of every row of the op table (op_cases.h),
 * every template that takes the row's first node at its default and sampled
 * schedules, and every kernel the row's whole plan instantiates (the stages
 * of a split op), on a synthetic target with every feature (cooperative
 * matrices included: nothing runs, so lavapipe's lacks do not matter), and
 * checks each module:
 *   - each specialization constant it declares (OpSpecConstant* decorated
 *     SpecId, named by OpName) is in the table for its file or for a .glsl
 *     file it may include, with that id and type;
 *   - each id the kernel sets is declared by the module with the table's
 *     name for it (the extent ABI's words excepted: the core sets them for
 *     every bounded operand, and a kernel that needs none leaves them out);
 * and at the end that every template was compiled at least once, and that
 * every constant of every .comp file's table was declared by one of the
 * modules compiled from it. A constant_id changed on one side only (a
 * literal in the C code, a declaration the generator cannot read) fails. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/core/glsl.h"
#include "runtime/vk/spirv_val.h"
#include "runtime/vk/vk_pipeline.h"
#include "op_case.h"
#include "op_cases.h"
#include "test_support.h"
#include "vk_test.h"

/* ---- SPIR-V: the specialization constants a module declares ---- */

enum {
  OP_NAME = 5,
  OP_TYPE_BOOL = 20,
  OP_TYPE_INT = 21,
  OP_TYPE_FLOAT = 22,
  OP_SPEC_TRUE = 48,
  OP_SPEC_FALSE = 49,
  OP_SPEC = 50,
  OP_DECORATE = 71,
  DEC_SPEC_ID = 1,
};

/* A constant may carry several OpNames: glslang gives "const uint B = A;"
 * A's result id. */
#define MAX_NAMES 4
typedef struct mod_spec {
  uint32_t id;
  cg_spec_type type;
  int n_names;
  const char *names[MAX_NAMES]; /* into the module's words */
} mod_spec;

#define MAX_MOD_SPECS 512

/* The module's specialization constants; returns how many. */
static int module_specs(const cg_spirv *m, mod_spec *out) {
  const uint32_t *w = m->words;
  size_t n = m->bytes / 4;
  cr_assert(n > 5 && w[0] == 0x07230203u, "not a SPIR-V module");
  uint32_t bound = w[3];
  int *type_of = calloc(bound, sizeof *type_of);     /* 1 + cg_spec_type of a type id */
  int *spec_type = calloc(bound, sizeof *spec_type); /* 1 + cg_spec_type of a spec constant */
  uint32_t *spec_id = malloc(bound * sizeof *spec_id);
  const char *(*names)[MAX_NAMES] = calloc(bound, sizeof *names);
  cr_assert(type_of && spec_type && spec_id && names);
  memset(spec_id, 0xff, bound * sizeof *spec_id);
  for (size_t i = 5; i < n;) {
    uint32_t op = w[i] & 0xffffu, len = w[i] >> 16;
    cr_assert(len >= 1 && i + len <= n, "malformed SPIR-V");
    const uint32_t *a = w + i + 1;
    if (op == OP_TYPE_BOOL) type_of[a[0]] = 1 + CG_SPEC_BOOL;
    if (op == OP_TYPE_FLOAT && a[1] == 32) type_of[a[0]] = 1 + CG_SPEC_FLOAT;
    if (op == OP_TYPE_INT && a[1] == 32) type_of[a[0]] = 1 + (a[2] ? CG_SPEC_INT : CG_SPEC_UINT);
    if (op == OP_SPEC_TRUE || op == OP_SPEC_FALSE || op == OP_SPEC)
      spec_type[a[1]] = type_of[a[0]] ? type_of[a[0]] : 1 + CG_SPEC_UINT;
    if (op == OP_DECORATE && a[1] == DEC_SPEC_ID && len >= 4) spec_id[a[0]] = a[2];
    if (op == OP_NAME && len >= 3)
      for (int j = 0; j < MAX_NAMES; j++)
        if (!names[a[0]][j]) {
          names[a[0]][j] = (const char *)(a + 1);
          break;
        }
    i += len;
  }
  int k = 0;
  for (uint32_t r = 0; r < bound; r++) {
    if (!spec_type[r] || spec_id[r] == 0xffffffffu) continue;
    cr_assert_lt(k, MAX_MOD_SPECS);
    out[k].id = spec_id[r];
    out[k].type = (cg_spec_type)(spec_type[r] - 1);
    out[k].n_names = 0;
    for (int j = 0; j < MAX_NAMES && names[r][j]; j++) out[k].names[out[k].n_names++] = names[r][j];
    k++;
  }
  free(type_of);
  free(spec_type);
  free(spec_id);
  free(names);
  return k;
}

/* ---- the table ---- */

static bool is_snippet(const char *file) {
  size_t l = strlen(file);
  return l > 5 && !strcmp(file + l - 5, ".glsl");
}

/* file and the files it #includes, transitively (at most max). */
static int files_of(const char *file, const char **out, int n, int max) {
  for (int i = 0; i < n; i++)
    if (!strcmp(out[i], file)) return n;
  const cg_glsl_file *f = cg_glsl_find(file);
  cr_assert(f, "%s is not embedded", file);
  cr_assert_lt(n, max);
  out[n++] = f->name;
  for (const char *p = f->text; (p = strstr(p, "#include \"")) != NULL;) {
    p += 10;
    const char *q = strchr(p, '"');
    cr_assert(q);
    char inc[64];
    snprintf(inc, sizeof inc, "%.*s", (int)(q - p), p);
    n = files_of(inc, out, n, max);
    p = q;
  }
  return n;
}

/* The table's entry for name in file or a file it includes, or NULL. */
static const cg_spec_decl *table_find(const char *file, const char *name) {
  const char *files[16];
  int nf = files_of(file, files, 0, 16);
  for (int i = 0; i < nf; i++)
    for (const cg_spec_decl *d = cg_spec_decls; d->file; d++)
      if (!strcmp(d->file, files[i]) && !strcmp(d->name, name)) return d;
  return NULL;
}

/* The table's entries seen declared by some module of their file. */
static bool *seen;
static int n_taps; /* cooperative-matrix conv kernels compiled with w tap-major */
static int n_decls;
static const cg_template *compiled[64];
static int n_compiled;

static void check_module(const cg_kernel *k, const cg_spirv *m) {
  mod_spec ms[MAX_MOD_SPECS];
  int nm = module_specs(m, ms);
  const char *file = k->source_name;
  for (int i = 0; i < nm; i++) {
    const cg_spec_decl *d = NULL;
    for (int j = 0; j < ms[i].n_names && !d; j++) {
      d = table_find(file, ms[i].names[j]);
      if (d && d->id != ms[i].id) d = NULL; /* an alias of another constant */
    }
    const char *name = ms[i].n_names ? ms[i].names[0] : "(unnamed)";
    cr_assert(d, "%s (%s): the module declares %s as id %u, which no declaration the build "
                 "read gives it (codegen/core/gen.py reads \"layout(constant_id = N) const T "
                 "NAME\")",
              file, k->tmpl->name, name, ms[i].id);
    cr_assert_eq(d->type, ms[i].type, "%s (%s): %s's type differs from the table's", file,
                 k->tmpl->name, d->name);
    seen[d - cg_spec_decls] = true;
  }
  for (int s = 0; s < k->n_spec; s++) {
    uint32_t id = k->spec_id[s];
    if (id >= CG_EXTENT_WORD_SPEC(0) && id < CG_EXTENT_WORD_SPEC(32)) continue;
    bool found = false;
    for (int i = 0; i < nm && !found; i++) found = ms[i].id == id;
    cr_assert(found, "%s (%s, key %s): the kernel sets specialization constant %u, which the "
                     "module does not declare",
              file, k->tmpl->name, k->key, id);
  }
  bool known = false;
  for (int i = 0; i < n_compiled && !known; i++) known = compiled[i] == k->tmpl;
  if (!known && n_compiled < 64) compiled[n_compiled++] = k->tmpl;
}

/* Compiled without SPIRV-Tools' optimisation, which strips the names (and
 * folds the constants nothing reads): the module as glslang declares it. */
static void compile_check(cg_compiler *cc, const cg_kernel *k_in) {
  cg_kernel kk = *k_in, *k = &kk;
  if (kk.opt == CG_OPT_PERFORMANCE) kk.opt = CG_OPT_ZERO; /* glslang 15 never optimises */
  cg_spirv m = {0};
  T_OK(cg_kernel_compile(cc, k, &m));
  check_module(k, &m);
  /* and valid (the runtime would refuse it; cooperative-matrix kernels are
   * otherwise only checked on a device that has them) */
  char msg[512] = "";
  int r = vkml_spirv_validate(m.words, m.bytes / 4, 3, msg, sizeof msg);
  cr_assert_eq(r, 0, "%s (%s, key %s): SPIR-V invalid: %s", k->tmpl->glsl, k->tmpl->name, k->key,
               msg);
  /* and its resources within the pipeline a step makes of it (the loader
   * refuses a module whose descriptor set is not 0 or whose binding is
   * past the step's buffers: rt_vk_spirv_check_bindings) */
  vkml_status bs = rt_vk_spirv_check_bindings(m.words, m.bytes, k->n_buffers, k->key);
  cr_assert_null(bs, "%s: %s", k->tmpl->name, vkml_status_message(bs));
  cg_spirv_free(&m);
}

/* Every feature a template may ask for, cooperative matrices included (the
 * KHR form and cooperative_matrix2 where the build has glslang 15). */
static ir_target capable_target(void) {
  ir_target t = cg_compiler_has_glslang15() ? vt_coop2_target() : vt_coop_target();
  strcpy(t.name, "spec-constant-check");
  t.storage_8bit = t.int64_arith = t.int8_arith = t.int16_arith = true;
  t.max_storage_buffer_range = UINT32_MAX;
  return t;
}

/* The plan's own kernels (split stages, conversions): recorded as
 * cg_plan_build chooses them. */
typedef struct recorder {
  cg_kernel *k;
  int n, cap;
} recorder;

static vkml_status record(void *user, const ir_node *n, const ir_target *t, cg_kernel *out) {
  recorder *r = user;
  VKML_RETURN_IF_ERROR(cg_kernel_for_node(n, NULL, NULL, t, out));
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 8;
    r->k = realloc(r->k, sizeof *r->k * (size_t)r->cap);
    cr_assert(r->k);
  }
  r->k[r->n++] = *out;
  return VKML_OK;
}

static void check_case(cg_compiler *cc, const ir_target *t, const op_case *c, ir_dtype dt) {
  char *text = oc_text(c, dt);
  ir_graph *g = vt_parse(text);
  ir_node *n = oc_first_node(g);
  const cg_template *tms[16];
  int nt = oc_templates(n, t, tms, 16);
  for (int ti = 0; ti < nt; ti++) {
    cg_schedule ss[3];
    int ns = oc_schedules(n, tms[ti], t, ss, 3);
    for (int si = 0; si < ns; si++) {
      cg_kernel k;
      T_OK(cg_kernel_for_node(n, tms[ti], &ss[si], t, &k));
      compile_check(cc, &k);
    }
  }
  /* a conv2d's w stored tap-major, as pass_layout stores constant weights
   * for the cooperative-matrix kernels (W_TAPS) */
  const ir_type *wt = n->n_inputs > 1 ? &n->inputs[1]->type : NULL;
  if (n->op == IR_OP_CONV2D && wt->rank == 4 && wt->dims[2] * wt->dims[3] > 1) {
    n->inputs[1]->layout = IR_LAYOUT_NHWC;
    for (int ti = 0; ti < nt; ti++) {
      if (tms[ti] != &cg_conv2d_coopmat_template &&
          tms[ti] != &cg_conv2d_coopmat_sliced_k_template)
        continue;
      cg_schedule ss[3];
      int ns = oc_schedules(n, tms[ti], t, ss, 3);
      for (int si = 0; si < ns; si++) {
        cg_kernel k;
        T_OK(cg_kernel_for_node(n, tms[ti], &ss[si], t, &k));
        cr_assert_str_eq(vt_define_of(&k, "W_TAPS"), "1", "%s", k.key);
        compile_check(cc, &k);
        n_taps++;
      }
    }
    n->inputs[1]->layout = IR_LAYOUT_DEFAULT;
  }
  /* the whole plan's kernels, in the default layout and packed (nc4hw4:
   * the packed paths and the reorders) */
  for (int l = 0; l < 2; l++) {
    recorder r = {0};
    drv_opts o = {.compiler = cc, .choose = record, .choose_user = &r};
    ir_plan *p;
    T_OK(vt_plan_build(g, t, &o, l ? IR_LAYOUT_NC4HW4 : IR_LAYOUT_DEFAULT, NULL, &p));
    for (int i = 0; i < r.n; i++) compile_check(cc, &r.k[i]);
    free(r.k);
    ir_plan_destroy(p);
  }
  ir_graph_destroy(g);
  free(text);
}

static const op_case cases[] = {
#define X(id, ...) {.name = #id, __VA_ARGS__},
    OP_CASES(X)
#undef X
};

Test(spec_constants, every_template_against_its_spirv, .timeout = 240) {
  for (n_decls = 0; cg_spec_decls[n_decls].file;) n_decls++;
  seen = calloc((size_t)n_decls, sizeof *seen);
  cr_assert(seen);
  ir_target t = capable_target();
  cg_compiler *cc = vt_compiler();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (unsigned f = 1; f <= I64; f <<= 1)
      if (cases[i].dtypes & f) check_case(cc, &t, &cases[i], oc_dtype(f));
  cg_compiler_destroy(cc);
  for (int i = 0; cg_templates[i]; i++) {
    bool done = false;
    for (int j = 0; j < n_compiled && !done; j++) done = compiled[j] == cg_templates[i];
    /* gemm_coopmat2 exists only with glslang 15 */
    if (!cg_compiler_has_glslang15() && cg_templates[i] == &cg_gemm_coopmat2_template) continue;
    cr_expect(done, "template %s was never compiled: give it a row in tests/vk/op_cases.h",
              cg_templates[i]->name);
  }
  for (int i = 0; i < n_decls; i++)
    if (!is_snippet(cg_spec_decls[i].file))
      cr_expect(seen[i], "%s declares %s (id %u), but no compiled module of it does",
                cg_spec_decls[i].file, cg_spec_decls[i].name, cg_spec_decls[i].id);
  free(seen);
  cr_expect_gt(n_taps, 0, "no conv2d_coopmat kernel was compiled with w tap-major");
}
