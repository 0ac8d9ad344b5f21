/* Tests of the .vkir text form: round trips of the hand-written files in
 * tests/ir/ (and that together they cover the op table), the malformed files
 * in tests/ir/bad/, truncations and random mutations (no crash, no leak),
 * float formatting, canonical printing of API-built graphs and the
 * verifier's messages.
 *
 * File conventions: tests/ir/X.vkir is canonical (prints back to itself)
 * unless its first line is "# canonical: Y.vkir", then it prints as Y.vkir.
 * tests/ir/bad/X.vkir starts with "# expect: LINE:COL: substring". */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "../support/test_support.h"

/* ---- helpers ----------------------------------------------------------- */

static const char *src_root(void) {
  const char *r = getenv("VKML_SOURCE_ROOT");
  return r && *r ? r : VKML_SOURCE_ROOT;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  cr_assert(buf);
  cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Full paths of DIR/ *.vkir (DIR relative to the source root), sorted. */
static int list_vkir(const char *dir, char ***out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", src_root(), dir);
  DIR *d = opendir(path);
  cr_assert(d, "cannot open %s", path);
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".vkir") != 0) continue;
    names = realloc(names, sizeof *names * (size_t)(n + 1));
    names[n] = malloc(strlen(path) + l + 2);
    sprintf(names[n], "%s/%s", path, e->d_name);
    n++;
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  *out = names;
  return n;
}

static void free_list(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

static char *print_ok(const ir_graph *g) {
  char *s;
  size_t n;
  T_OK(ir_print(g, &s, &n));
  cr_assert_eq(strlen(s), n);
  return s;
}

/* parse (no verify) + print; fails the test with the message on error. */
static char *parse_print(const char *text, size_t len, const char *name) {
  ir_graph *g;
  vkml_status s = ir_parse(text, len, name, &g);
  cr_assert(s == VKML_OK, "%s: %s", name, vkml_status_message(s));
  char *p = print_ok(g);
  ir_graph_destroy(g);
  return p;
}

/* The (line, col) a token starting at text[pos] gets. */
static void line_col(const char *text, size_t pos, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < pos; i++) {
    if (text[i] == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

/* ---- the files in tests/ir -------------------------------------------- */

Test(text_files, round_trip_and_canonical) {
  char **files;
  int n = list_vkir("tests/ir", &files), canonical = 0;
  cr_assert_geq(n, 25, "only %d .vkir files", n);
  for (int i = 0; i < n; i++) {
    size_t len;
    char *text = slurp(files[i], &len);
    char *p1 = parse_print(text, len, files[i]);
    char *p2 = parse_print(p1, strlen(p1), "print1");
    cr_assert_str_eq(p2, p1, "%s: print(parse(print)) differs", files[i]);
    char want_name[256];
    if (sscanf(text, "# canonical: %255s", want_name) == 1) {
      char path[1024];
      size_t wlen;
      snprintf(path, sizeof path, "%s/tests/ir/%s", src_root(), want_name);
      char *want = slurp(path, &wlen);
      cr_assert_str_eq(p1, want, "%s does not print as %s", files[i], want_name);
      cr_assert_str_neq(text, want, "%s should be a non-canonical spelling", files[i]);
      free(want);
    } else {
      cr_assert_str_eq(p1, text, "%s is not canonical", files[i]);
      canonical++;
    }
    free(p2);
    free(p1);
    free(text);
  }
  cr_assert_geq(canonical, 25);
  free_list(files, n);
}

/* Every file passes the verifier (shape inference agrees with every
 * annotation), blobs read from the .bin next to the file. */
Test(text_files, verify) {
  char **files;
  int n = list_vkir("tests/ir", &files);
  int with_blob = 0;
  for (int i = 0; i < n; i++) {
    ir_graph *g;
    vkml_status s = ir_parse_file(files[i], &g);
    cr_assert(s == VKML_OK, "%s", vkml_status_message(s));
    if (g->blob) {
      with_blob++;
      ir_foreach_value(g, v) if (v->storage == IR_CONST_BLOB)
          cr_assert(ir_value_const_data(g, v), "%%%s", v->name);
    }
    ir_graph_destroy(g);
  }
  cr_assert_geq(with_blob, 3);
  free_list(files, n);
}

static bool is_plain(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-", *s))
      return false;
  return true;
}

Test(text_files, cover_ops_and_features) {
  bool ops[IR_OP_COUNT] = {0}, kinds[IR_ATTR_ENUM + 1] = {0};
  bool inline_dt[IR_DTYPE_COUNT] = {0}, layouts[IR_LAYOUT_COUNT] = {0};
  bool blob = false, bounded = false, gpu = false, cpu = false, multi = false;
  bool quoted = false, in_out = false, const_out = false, scalar = false, empty = false;
  char **files;
  int n = list_vkir("tests/ir", &files);
  for (int i = 0; i < n; i++) {
    size_t len;
    char *text = slurp(files[i], &len);
    ir_graph *g;
    T_OK(ir_parse(text, len, files[i], &g));
    ir_foreach_value(g, v) {
      if (v->storage == IR_CONST_INLINE) inline_dt[v->type.dtype] = true;
      if (v->storage == IR_CONST_BLOB) blob = true;
      if (v->storage != IR_CONST_NONE && v->type.rank == 0) scalar = true;
      if (v->storage != IR_CONST_NONE && ir_type_numel(&v->type) == 0) empty = true;
      bounded |= v->type.bounded;
      layouts[v->layout] = true;
      quoted |= !is_plain(v->name);
    }
    ir_foreach_node(g, nd) {
      ops[nd->op] = true;
      for (int a = 0; a < nd->n_attrs; a++) kinds[ir_attr_kind_of(nd->attrs[a].id)] = true;
      gpu |= nd->device == IR_DEVICE_GPU;
      cpu |= nd->device == IR_DEVICE_CPU;
      multi |= nd->n_outputs > 1;
    }
    for (int o = 0; o < g->n_outputs; o++) {
      const_out |= ir_value_is_const(g->outputs[o]);
      for (int k = 0; k < g->n_inputs; k++) in_out |= g->outputs[o] == g->inputs[k];
    }
    ir_graph_destroy(g);
    free(text);
  }
  free_list(files, n);
  /* the op table's rows count too: tests/vk/test_ops round-trips their text
   * (each ".. = OP %.." in a row's body) */
  size_t tlen;
  char tpath[1024];
  snprintf(tpath, sizeof tpath, "%s/tests/vk/op_cases.h", src_root());
  char *table = slurp(tpath, &tlen);
  for (char *p = table; (p = strstr(p, " = ")) != NULL; p += 3) {
    const char *name = p + 3, *end = name;
    while ((*end >= 'a' && *end <= 'z') || *end == '_' || (*end >= '0' && *end <= '9')) end++;
    ir_op op;
    if (p > table && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9')) &&
        *end == ' ' && ir_op_from_name(name, (size_t)(end - name), &op))
      ops[op] = true;
  }
  free(table);
  for (int op = 0; op < IR_OP_COUNT; op++)
    cr_expect(ops[op], "no file uses op %s (tests/ir/*.vkir or a row of tests/vk/op_cases.h)",
              ir_op_name((ir_op)op));
  for (int k = 0; k <= IR_ATTR_ENUM; k++) cr_expect(kinds[k], "attribute kind %d unused", k);
  for (int d = 0; d < IR_DTYPE_COUNT; d++)
    cr_expect(inline_dt[d], "no inline %s constant", ir_dtype_name((ir_dtype)d));
  for (int l = 0; l < IR_LAYOUT_COUNT; l++) cr_expect(layouts[l], "layout %d unused", l);
  cr_expect(blob && bounded && gpu && cpu && multi && quoted && in_out && const_out &&
            scalar && empty);
}

/* ---- malformed files --------------------------------------------------- */

Test(text_bad, files_fail_at_the_expected_place) {
  char **files;
  int n = list_vkir("tests/ir/bad", &files);
  cr_assert_geq(n, 20);
  for (int i = 0; i < n; i++) {
    size_t len;
    char *text = slurp(files[i], &len);
    int line, col, off = 0;
    cr_assert_eq(sscanf(text, "# expect: %d:%d: %n", &line, &col, &off), 2,
                 "%s: no '# expect: LINE:COL: text' line", files[i]);
    char want[256];
    size_t wl = strcspn(text + off, "\n");
    cr_assert(wl > 0 && wl < sizeof want);
    memcpy(want, text + off, wl);
    want[wl] = 0;
    char loc[1200];
    snprintf(loc, sizeof loc, "%s:%d:%d: ", files[i], line, col);
    ir_graph *g = NULL;
    vkml_status s = ir_parse_file(files[i], &g);
    cr_assert(s != VKML_OK, "%s parsed and verified", files[i]);
    cr_assert_null(g);
    const char *msg = vkml_status_message(s);
    cr_expect(strstr(msg, loc) == msg, "%s: message '%s' does not start with '%s'",
              files[i], msg, loc);
    cr_expect(strstr(msg, want), "%s: message '%s' lacks '%s'", files[i], msg, want);
    vkml_status_free(s);
    free(text);
  }
  free_list(files, n);
}

#define EXPECT_PARSE_ERROR(text, want) \
  expect_error(text, strlen(text), VKML_CODE_PARSE, want)

static void expect_error(const char *text, size_t len, vkml_code code, const char *want) {
  ir_graph *g = (ir_graph *)1;
  vkml_status s = ir_parse(text, len, NULL, &g);
  cr_assert(s != VKML_OK, "parsed: %.*s", (int)len, text);
  cr_assert_null(g);
  cr_expect_eq(vkml_status_code(s), code);
  cr_expect(strstr(vkml_status_message(s), want), "'%s' lacks '%s'",
            vkml_status_message(s), want);
  vkml_status_free(s);
}

Test(text_bad, empty_and_blank_inputs) {
  EXPECT_PARSE_ERROR("", "<input>:1:1: empty input");
  expect_error(NULL, 0, VKML_CODE_PARSE, "<input>:1:1: empty input");
  EXPECT_PARSE_ERROR("  \n\t# only a comment\n\n", "<input>:4:1: empty input");
  EXPECT_PARSE_ERROR("vkir", "<input>:1:5: unexpected end of input");
  EXPECT_PARSE_ERROR("vkir 1 graph", "<input>:1:13: unexpected end of input");
  EXPECT_PARSE_ERROR("vkir 1 graph @g() -> () {}", "<input>:1:26: missing 'return'");
  EXPECT_PARSE_ERROR("vkir 99999999999999999999999", "unsupported vkir version 99999999999999999999999");
}

static const char small_graph[] =
    "vkir 1\n"
    "graph @g(%x: f32[2,3]) -> (%y: f32[2,3]) {\n"
    "  %c = const f32[3] [1.0, 2.5, -3.0]\n"
    "  %y = add %x, %c {act=relu, name=\"ab\"} : f32[2,3]\n"
    "  return %y\n"
    "}\n";

/* A NUL or control byte at any token boundary is reported right there. */
Test(text_bad, binary_bytes_at_every_boundary) {
  size_t len = sizeof small_graph - 1;
  const unsigned char bad[] = {0x00, 0x01, 0x07, 0x1b, 0x7f, 0x80, 0xff};
  char *buf = malloc(len + 1);
  int checked = 0;
  for (size_t pos = 0; pos < len; pos++) {
    if (small_graph[pos] != ' ' && small_graph[pos] != '\n') continue;
    for (size_t b = 0; b < sizeof bad; b++) {
      memcpy(buf, small_graph, pos);
      buf[pos] = (char)bad[b];
      memcpy(buf + pos + 1, small_graph + pos, len - pos);
      int line, col;
      line_col(buf, pos, &line, &col);
      char want[96];
      snprintf(want, sizeof want, "<input>:%d:%d: invalid character 0x%02x", line, col, bad[b]);
      expect_error(buf, len + 1, VKML_CODE_PARSE, want);
      checked++;
    }
  }
  cr_assert_gt(checked, 100);
  free(buf);
}

Test(text_bad, in_memory_messages) {
  /* Inside a string or a comment a control byte is as invalid. */
  EXPECT_PARSE_ERROR("vkir 1 # a\x02 comment\n", "<input>:1:11: invalid character 0x02");
  EXPECT_PARSE_ERROR("vkir 1 graph @\"a\x03\"", "<input>:1:17: invalid character 0x03");
  EXPECT_PARSE_ERROR("vkir 1 graph @\"a\\x00\"", "bad escape");
  EXPECT_PARSE_ERROR("vkir 1 graph @\"a\\x4", "bad escape");
  EXPECT_PARSE_ERROR("vkir 1 graph @\"a\nb\"", "<input>:1:15: unterminated string");
  EXPECT_PARSE_ERROR("vkir 1 graph @g(%x: f32[1.5])", "<input>:1:25: expected a dimension");
  EXPECT_PARSE_ERROR("vkir 1 graph @g(%x: f32[1x])", "malformed number '1x'");
  EXPECT_PARSE_ERROR("vkir 1 graph @g(%x: f32[9223372036854775807])", "tensor too large");
  EXPECT_PARSE_ERROR("vkir 1 graph @g(%: f32[1])", "expected a name after '%'");
}

/* Every prefix of every file fails cleanly (error inside the prefix) until
 * it reaches the closing brace, then parses. */
Test(text_bad, truncated_prefixes) {
  char **files;
  int n = list_vkir("tests/ir", &files);
  long failed = 0;
  for (int i = 0; i < n; i++) {
    size_t len;
    char *text = slurp(files[i], &len);
    size_t last_brace = (size_t)(strrchr(text, '}') - text);
    for (size_t k = 0; k < len; k++) {
      char *cut = malloc(k ? k : 1); /* exact size: ASan sees any over-read */
      memcpy(cut, text, k);
      ir_graph *g;
      vkml_status s = ir_parse(cut, k, "cut.vkir", &g);
      if (k <= last_brace) {
        cr_assert(s != VKML_OK, "%s: prefix of %zu bytes parsed", files[i], k);
        cr_assert_eq(vkml_status_code(s), VKML_CODE_PARSE);
        int line, col, eline, ecol;
        cr_assert_eq(sscanf(vkml_status_message(s), "cut.vkir:%d:%d:", &line, &col), 2,
                     "%s", vkml_status_message(s));
        line_col(text, k, &eline, &ecol);
        cr_assert(line < eline || (line == eline && col <= ecol),
                  "%s: error %d:%d past the end %d:%d", files[i], line, col, eline, ecol);
        vkml_status_free(s);
        failed++;
      } else {
        cr_assert(s == VKML_OK, "%s: %s", files[i], vkml_status_message(s));
        ir_graph_destroy(g);
      }
      free(cut);
    }
    free(text);
  }
  cr_assert_gt(failed, 10000);
  free_list(files, n);
}

/* Random byte edits never crash or leak (run under ASan); whatever parses
 * prints back stably. */
Test(text_bad, random_mutations, .timeout = 60) {
  char **files;
  int n = list_vkir("tests/ir", &files);
  char **texts = malloc(sizeof *texts * (size_t)n);
  size_t *lens = malloc(sizeof *lens * (size_t)n);
  for (int i = 0; i < n; i++) texts[i] = slurp(files[i], &lens[i]);
  static const char interesting[] = "%@[](){},:=<->\"\\#0123456789.e-\n \t";
  t_rng r = t_rng_make(0x5eed);
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 4000; iter++) {
    int f = iter % n;
    size_t cap = lens[f] + 64, len = lens[f];
    char *buf = malloc(cap);
    memcpy(buf, texts[f], len);
    int n_mut = 1 + (int)(t_rng_next(&r) % 3);
    for (int m = 0; m < n_mut && len > 0; m++) {
      size_t pos = t_rng_next(&r) % len;
      switch (t_rng_next(&r) % 5) {
      case 0: buf[pos] = (char)(t_rng_next(&r) & 0xff); break;
      case 1: buf[pos] = interesting[t_rng_next(&r) % (sizeof interesting - 1)]; break;
      case 2: {
        size_t del = 1 + t_rng_next(&r) % 8;
        if (del > len - pos) del = len - pos;
        memmove(buf + pos, buf + pos + del, len - pos - del);
        len -= del;
        break;
      }
      case 3:
        if (len < cap) {
          memmove(buf + pos + 1, buf + pos, len - pos);
          buf[pos] = interesting[t_rng_next(&r) % (sizeof interesting - 1)];
          len++;
        }
        break;
      default: {
        size_t from = t_rng_next(&r) % len, cnt = 1 + t_rng_next(&r) % 16;
        if (cnt > len - from) cnt = len - from;
        if (cnt > cap - len) cnt = cap - len;
        char tmp[16];
        memcpy(tmp, buf + from, cnt);
        memmove(buf + pos + cnt, buf + pos, len - pos);
        memcpy(buf + pos, tmp, cnt);
        len += cnt;
        break;
      }
      }
    }
    char *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    ir_graph *g;
    vkml_status s = ir_parse(exact, len, "mut.vkir", &g);
    if (s) {
      cr_assert_eq(vkml_status_code(s), VKML_CODE_PARSE, "%s", vkml_status_message(s));
      cr_assert(strncmp(vkml_status_message(s), "mut.vkir:", 9) == 0);
      vkml_status_free(s);
      rejected++;
    } else {
      vkml_status_free(ir_verify(g, "mut.vkir"));
      char *p1 = print_ok(g);
      char *p2 = parse_print(p1, strlen(p1), "reprint");
      cr_assert_str_eq(p2, p1);
      free(p1);
      free(p2);
      ir_graph_destroy(g);
      accepted++;
    }
    free(exact);
  }
  cr_assert_gt(accepted, 50);
  cr_assert_gt(rejected, 1000);
  for (int i = 0; i < n; i++) free(texts[i]);
  free(texts);
  free(lens);
  free_list(files, n);
}

/* ---- non-canonical input ----------------------------------------------- */

Test(text_print, noncanonical_input_prints_canonically) {
  const char *in =
      "# leading comment\n"
      "vkir 1 graph @n ( %x:f32[1,2,5,5] nhwc ,%k : i64 [ <= 7 ] )->( %y:f32[1,2,3,3],\n"
      "  %\"k\": i64[<=7]) {   %y = maxpool@gpu %x\n"
      "    { ceil_mode = 0, strides=[2, 2], kernel = [ 3 ,3 ], pads=[1,1,1,1], name=\"p\\x31\" }\n"
      "    :f32 [1, 2,3 ,3]\n"
      "  %w=const f16[2][0.33325,-1e0] # comment after\n"
      "  %\"z\" = cast %k{to=f32}: f32[<=7]\n"
      "  return %y,%k}";
  const char *want =
      "vkir 1\n"
      "graph @n(%x: f32[1,2,5,5] nhwc, %k: i64[<=7]) -> (%y: f32[1,2,3,3], %k: i64[<=7]) {\n"
      "  %w = const f16[2] [0.3333, -1.0]\n"
      "  %y = maxpool@gpu %x {kernel=[3,3], strides=[2,2], pads=[1,1,1,1], ceil_mode=0, name=\"p1\"} : f32[1,2,3,3]\n"
      "  %z = cast %k {to=f32} : f32[<=7]\n"
      "  return %y, %k\n"
      "}\n";
  char *p = parse_print(in, strlen(in), "messy");
  cr_assert_str_eq(p, want);
  free(p);
}

/* The DESIGN example, built through the API with attributes set out of
 * order, prints exactly as the spec writes it. */
Test(text_print, api_graph_prints_canonically) {
  ir_graph *g;
  T_OK(ir_graph_create("name", &g));
  ir_value *x, *k, *y, *nv, *w, *c, *v1, *a, *b;
  ir_type tx = ir_type_make(IR_F32, 4, (int64_t[]){1, 3, 8, 8});
  ir_type tk = ir_type_make(IR_I64, 1, (int64_t[]){1});
  ir_type ty = ir_type_make(IR_F32, 4, (int64_t[]){1, 4, 4, 4});
  ir_type tn = ir_type_make(IR_I64, 2, (int64_t[]){6, 3});
  tn.bounded = true;
  ir_type tw = ir_type_make(IR_F32, 4, (int64_t[]){4, 3, 3, 3});
  ir_type tc = ir_type_make(IR_I64, 1, (int64_t[]){2});
  ir_type th = ir_type_make(IR_F32, 4, (int64_t[]){1, 2, 4, 4});
  T_OK(ir_value_create(g, "x", &tx, &x));
  T_OK(ir_value_create(g, "k", &tk, &k));
  T_OK(ir_value_create(g, "y", &ty, &y));
  T_OK(ir_value_create(g, "n", &tn, &nv));
  T_OK(ir_const_create_blob(g, "w", &tw, 0, &w));
  T_OK(ir_const_create_inline(g, "c", &tc, (int64_t[]){1, 2}, &c));
  T_OK(ir_value_create(g, "1", &ty, &v1));
  T_OK(ir_value_create(g, "a", &th, &a));
  T_OK(ir_value_create(g, "b", &th, &b));
  a->layout = IR_LAYOUT_NC4HW4;
  T_OK(ir_graph_add_input(g, x));
  T_OK(ir_graph_add_input(g, k));
  T_OK(ir_graph_add_output(g, y));
  T_OK(ir_graph_add_output(g, nv));
  ir_node *conv, *split;
  T_OK(ir_node_create(g, IR_OP_CONV2D, (ir_value *[]){x, w}, 2, &v1, 1, &conv));
  T_OK(ir_node_set_float(g, conv, IR_A_ACT_ALPHA, 0.5f));
  T_OK(ir_node_set_enum(g, conv, IR_A_ACT, IR_ACT_RELU6));
  T_OK(ir_node_set_ints(g, conv, IR_A_PADS, (int64_t[]){1, 1, 1, 1}, 4));
  T_OK(ir_node_set_ints(g, conv, IR_A_STRIDES, (int64_t[]){2, 2}, 2));
  T_OK(ir_node_create(g, IR_OP_SPLIT, &v1, 1, (ir_value *[]){a, b}, 2, &split));
  split->device = IR_DEVICE_CPU;
  T_OK(ir_node_set_ints(g, split, IR_A_SPLIT, (int64_t[]){2, 2}, 2));
  T_OK(ir_node_set_int(g, split, IR_A_AXIS, 1));
  char *p = print_ok(g);
  cr_assert_str_eq(p,
      "vkir 1\n"
      "graph @name(%x: f32[1,3,8,8], %k: i64[1]) -> (%y: f32[1,4,4,4], %n: i64[<=6,3]) {\n"
      "  %w = const f32[4,3,3,3] @blob[0, 432]\n"
      "  %c = const i64[2] [1, 2]\n"
      "  %1 = conv2d %x, %w {strides=[2,2], pads=[1,1,1,1], act=relu6, act_alpha=0.5} : f32[1,4,4,4]\n"
      "  %a, %b = split@cpu %1 {axis=1, split=[2,2]} : f32[1,2,4,4] nc4hw4, f32[1,2,4,4]\n"
      "  return %y, %n\n"
      "}\n");
  /* Same text through ir_print_file. */
  FILE *f = tmpfile();
  cr_assert(f);
  T_OK(ir_print_file(g, f));
  rewind(f);
  char buf[2048];
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  buf[got] = 0;
  fclose(f);
  cr_assert_str_eq(buf, p);
  free(p);
  ir_graph_destroy(g);
}

/* ---- floats ------------------------------------------------------------ */

static char *print_f32_const(const float *v, int n) {
  ir_graph *g;
  T_OK(ir_graph_create("f", &g));
  ir_type t = ir_type_make(IR_F32, 1, (int64_t[]){n});
  ir_value *c;
  T_OK(ir_const_create_inline(g, "c", &t, v, &c));
  T_OK(ir_graph_add_output(g, c));
  char *p = print_ok(g);
  ir_graph_destroy(g);
  return p;
}

Test(text_float, shortest_spelling) {
  const float v[] = {1.0f, -0.0f, 0.0f, 0.1f, 10.0f, 100.0f, 0.5f, -2.5f, 1e10f,
                     16777216.0f, 1.0f / 3.0f, 3.4028235e38f, 1e-45f, 1e-5f,
                     255.0f, 123456.0f, INFINITY, -INFINITY, NAN};
  char *p = print_f32_const(v, (int)(sizeof v / sizeof v[0]));
  cr_assert(strstr(p, "  %c = const f32[19] [1.0, -0.0, 0.0, 0.1, 10.0, 100.0, 0.5, -2.5, "
                      "1e+10, 16777216.0, 0.33333334, 3.4028235e+38, 1e-45, 1e-05, 255.0, "
                      "123456.0, inf, -inf, nan]\n"),
            "%s", p);
  free(p);
}

/* Random f32 bit patterns survive print -> parse exactly. */
Test(text_float, f32_bits_round_trip) {
  enum { N = 20000 };
  float *v = malloc(sizeof *v * N);
  t_rng r = t_rng_make(7);
  for (int i = 0; i < N; i++) {
    uint32_t bits;
    do bits = (uint32_t)t_rng_next(&r);
    while (((bits >> 23) & 0xff) == 0xff); /* no inf/nan: checked elsewhere */
    memcpy(&v[i], &bits, 4);
  }
  char *p = print_f32_const(v, N);
  ir_graph *g;
  T_OK(ir_parse(p, strlen(p), NULL, &g));
  cr_assert_eq(memcmp(g->outputs[0]->inline_data, v, sizeof *v * N), 0);
  ir_graph_destroy(g);
  free(p);
  free(v);
}

/* Every f16 value prints as text that maps back to the same half bits. */
Test(text_float, f16_all_values_round_trip) {
  uint16_t *h = malloc(sizeof *h * 65536);
  for (int i = 0; i < 65536; i++) h[i] = (uint16_t)i;
  ir_graph *g;
  T_OK(ir_graph_create("h", &g));
  ir_type t = ir_type_make(IR_F16, 1, (int64_t[]){65536});
  ir_value *c;
  T_OK(ir_const_create_inline(g, "c", &t, h, &c));
  T_OK(ir_graph_add_output(g, c));
  char *p = print_ok(g);
  ir_graph_destroy(g);
  /* 0x3c00 = 1, 0x2e66 ~ 0.1, 0x7bff = 65504, 0x0001 = 2^-24, 0x8000 = -0 */
  T_OK(ir_parse(p, strlen(p), NULL, &g));
  const uint16_t *back = g->outputs[0]->inline_data;
  for (int i = 0; i < 65536; i++) {
    if (isnan(ir_f16_to_f32((uint16_t)i)))
      cr_assert(isnan(ir_f16_to_f32(back[i])), "0x%04x", i);
    else
      cr_assert_eq(back[i], i, "0x%04x came back as 0x%04x", i, back[i]);
  }
  ir_graph_destroy(g);
  free(p);
  free(h);
  uint16_t some[] = {0x3c00, 0x2e66, 0x7bff, 0x0001, 0x8000, 0xfc00};
  T_OK(ir_graph_create("h", &g));
  t = ir_type_make(IR_F16, 1, (int64_t[]){6});
  T_OK(ir_const_create_inline(g, "c", &t, some, &c));
  T_OK(ir_graph_add_output(g, c));
  p = print_ok(g);
  cr_assert(strstr(p, "[1.0, 0.1, 65504.0, 6e-08, -0.0, -inf]"), "%s", p);
  free(p);
  ir_graph_destroy(g);
}

/* ---- positions, files, big inputs -------------------------------------- */

Test(text_parse, records_positions) {
  ir_graph *g;
  T_OK(ir_parse(small_graph, sizeof small_graph - 1, "s.vkir", &g));
  ir_value *x = ir_graph_find_value(g, "x"), *c = ir_graph_find_value(g, "c"),
           *y = ir_graph_find_value(g, "y");
  cr_assert(x && c && y);
  cr_expect(x->line == 2 && x->col == 10, "%d:%d", x->line, x->col);
  cr_expect(c->line == 3 && c->col == 3, "%d:%d", c->line, c->col);
  cr_expect(y->line == 4 && y->col == 3, "%d:%d", y->line, y->col);
  cr_expect(g->first->line == 4 && g->first->col == 8);
  cr_expect_str_eq(ir_node_string(g->first, IR_A_NAME), "ab");
  cr_expect_eq(ir_node_int(g->first, IR_A_ACT, -1), IR_ACT_RELU);
  const float *cd = c->inline_data;
  cr_expect(cd[0] == 1.0f && cd[1] == 2.5f && cd[2] == -3.0f);
  ir_graph_destroy(g);
}

Test(text_parse, file_errors_name_the_path) {
  ir_graph *g;
  vkml_status s = ir_parse_file("/nonexistent/dir/model.vkir", &g);
  cr_assert_eq(vkml_status_code(s), VKML_CODE_IO);
  cr_assert(strstr(vkml_status_message(s), "/nonexistent/dir/model.vkir"));
  cr_assert_null(g);
  vkml_status_free(s);
}

/* 100k chained nodes and a 200k-element constant: linear time (a quadratic
 * name lookup or verifier would take minutes). */
Test(text_parse, big_file, .timeout = 60) {
  enum { NODES = 100000, CONSTS = 200000 };
  size_t cap = (size_t)NODES * 64 + (size_t)CONSTS * 16 + 1024, len = 0;
  char *t = malloc(cap);
  len += (size_t)sprintf(t + len, "vkir 1\ngraph @big(%%x: f32[4]) -> (%%v%d: f32[4], %%k: i32[%d]) {\n",
                         NODES - 1, CONSTS);
  len += (size_t)sprintf(t + len, "  %%k = const i32[%d] [", CONSTS);
  for (int i = 0; i < CONSTS; i++) len += (size_t)sprintf(t + len, "%s%d", i ? ", " : "", i * 7 - 3);
  len += (size_t)sprintf(t + len, "]\n");
  for (int i = 0; i < NODES; i++) {
    if (i)
      len += (size_t)sprintf(t + len, "  %%v%d = relu %%v%d : f32[4]\n", i, i - 1);
    else
      len += (size_t)sprintf(t + len, "  %%v0 = relu %%x : f32[4]\n");
  }
  len += (size_t)sprintf(t + len, "  return %%v%d, %%k\n}\n", NODES - 1);
  ir_graph *g;
  T_OK(ir_parse(t, len, "big", &g));
  cr_assert_eq(g->n_nodes, NODES);
  const int32_t *k = ir_graph_find_value(g, "k")->inline_data;
  cr_assert(k[0] == -3 && k[CONSTS - 1] == (CONSTS - 1) * 7 - 3);
  T_OK(ir_verify(g, "big"));
  char *p = print_ok(g);
  cr_assert_eq(strlen(p), len);
  cr_assert(memcmp(p, t, len) == 0);
  free(p);
  ir_graph_destroy(g);
  free(t);
}

/* ---- verifier on API-built graphs (no positions) ----------------------- */

static ir_graph *relu_graph(int64_t in_dim, int64_t out_dim, ir_value **x, ir_value **y,
                            ir_node **n) {
  ir_graph *g;
  T_OK(ir_graph_create("v", &g));
  ir_type ti = ir_type_make(IR_F32, 1, &in_dim), to = ir_type_make(IR_F32, 1, &out_dim);
  T_OK(ir_value_create(g, "x", &ti, x));
  T_OK(ir_value_create(g, "y", &to, y));
  T_OK(ir_graph_add_input(g, *x));
  T_OK(ir_node_create(g, IR_OP_RELU, x, 1, y, 1, n));
  T_OK(ir_graph_add_output(g, *y));
  return g;
}

static void expect_verify(const ir_graph *g, const char *file, const char *prefix,
                          const char *want) {
  vkml_status s = ir_verify(g, file);
  cr_assert(s != VKML_OK, "verified");
  const char *m = vkml_status_message(s);
  cr_expect(strncmp(m, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'", m, prefix);
  cr_expect(strstr(m, want), "'%s' lacks '%s'", m, want);
  vkml_status_free(s);
}

Test(text_verify, api_graph_messages) {
  ir_value *x, *y;
  ir_node *n;
  ir_graph *g = relu_graph(3, 3, &x, &y, &n);
  T_OK(ir_verify(g, NULL));
  y->type.dims[0] = 2;
  expect_verify(g, NULL, "relu %y: ", "output %y: annotated f32[2] but inferred f32[3]");
  expect_verify(g, "m.vkir", "m.vkir: relu %y: ", "annotated f32[2]");
  n->line = 7;
  n->col = 9;
  expect_verify(g, "m.vkir", "m.vkir:7:9: relu %y: ", "inferred f32[3]");
  expect_verify(g, NULL, "<input>:7:9: relu %y: ", "inferred f32[3]");
  ir_graph_destroy(g);

  /* wrong arity reaches the verifier through ir_infer_node */
  g = relu_graph(3, 3, &x, &y, &n);
  n->n_inputs = 0;
  expect_verify(g, NULL, "relu %y: ", "relu takes 1 input, got 0");
  ir_graph_destroy(g);

  /* duplicate names */
  g = relu_graph(3, 3, &x, &y, &n);
  ir_value *dup;
  T_OK(ir_value_create(g, "x", &x->type, &dup));
  expect_verify(g, NULL, "", "duplicate value name %x");
  ir_graph_destroy(g);

  /* no outputs */
  g = relu_graph(3, 3, &x, &y, &n);
  g->n_outputs = 0;
  expect_verify(g, NULL, "", "has no outputs");
  ir_graph_destroy(g);

  /* an input nobody defines, and one defined too late */
  g = relu_graph(3, 3, &x, &y, &n);
  ir_value *z, *w;
  T_OK(ir_value_create(g, "z", &x->type, &z));
  n->inputs[0] = z;
  expect_verify(g, NULL, "relu %y: ", "input %z is not defined");
  T_OK(ir_value_create(g, "w", &x->type, &w));
  ir_node *late;
  T_OK(ir_node_create(g, IR_OP_NEG, &x, 1, &w, 1, &late));
  n->inputs[0] = w;
  expect_verify(g, NULL, "relu %y: ", "input %w is used before its definition");
  ir_graph_destroy(g);
}

Test(text_verify, blob_constants) {
  ir_value *x, *y;
  ir_node *n;
  ir_graph *g = relu_graph(3, 3, &x, &y, &n);
  ir_type t = ir_type_make(IR_F32, 1, (int64_t[]){3});
  ir_value *c;
  T_OK(ir_const_create_blob(g, "weights", &t, 4, &c));
  expect_verify(g, NULL, "", "constant %weights refers to the weights blob but no blob is attached");
  static const uint8_t blob[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ir_graph_set_blob(g, blob, 15, false);
  expect_verify(g, NULL, "", "constant %weights: bytes [4, 16) lie outside the weights blob (15 bytes)");
  ir_graph_set_blob(g, blob, 16, false);
  T_OK(ir_verify(g, NULL));
  cr_assert_eq(((const uint8_t *)ir_value_const_data(g, c))[0], 5);
  ir_graph_destroy(g);
}
