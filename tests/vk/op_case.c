/* What the op table's two runners share (op_case.h). */
#include "op_case.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cases.h"
#include "test_support.h"
#include "vk_test.h"

ir_dtype oc_dtype(unsigned f) {
  return f == F16 ? IR_F16 : f == I32 ? IR_I32 : f == I64 ? IR_I64 : IR_F32;
}

/* s with every "$T" replaced by name, appended to b at *len. */
static void put_subst(char *b, size_t cap, size_t *len, const char *s, const char *name) {
  for (; *s && *len + 8 < cap; s++) {
    if (s[0] == '$' && s[1] == 'T') {
      *len += (size_t)snprintf(b + *len, cap - *len, "%s", name);
      s++;
    } else if (*s == ';') {
      *len += (size_t)snprintf(b + *len, cap - *len, "\n ");
    } else {
      b[(*len)++] = *s;
    }
  }
  b[*len] = '\0';
}

char *oc_text(const op_case *c, ir_dtype dt) {
  size_t cap = 8192, len = 0;
  char *b = malloc(cap);
  cr_assert(b);
  const char *dn = ir_dtype_name(dt);
  len += (size_t)snprintf(b, cap, "vkir 1\ngraph @%s(", c->name);
  put_subst(b, cap, &len, c->inputs, dn);
  len += (size_t)snprintf(b + len, cap - len, ") -> (");
  put_subst(b, cap, &len, c->outputs, dn);
  len += (size_t)snprintf(b + len, cap - len, ") {\n  ");
  put_subst(b, cap, &len, c->body, dn);
  len += (size_t)snprintf(b + len, cap - len, "\n  return");
  /* the outputs' names: each "%name" before a ':' */
  const char *p = c->outputs;
  bool first = true;
  while ((p = strchr(p, '%')) != NULL) {
    size_t n = strcspn(p, ":");
    while (n > 0 && p[n - 1] == ' ') n--;
    len += (size_t)snprintf(b + len, cap - len, "%s %.*s", first ? "" : ",", (int)n, p);
    first = false;
    p += n;
  }
  len += (size_t)snprintf(b + len, cap - len, "\n}\n");
  cr_assert(len + 1 < cap, "%s: graph text too long", c->name);
  return b;
}

ir_node *oc_first_node(ir_graph *g) {
  ir_foreach_node(g, n) return n;
  cr_assert_fail("a case without a node");
  return NULL;
}

int oc_templates(const ir_node *n, const ir_target *t, const cg_template **out, int max) {
  int k = 0;
  for (int i = 0; cg_templates[i] && k < max; i++) {
    cg_kernel kern;
    vkml_status s = cg_kernel_for_node(n, cg_templates[i], NULL, t, &kern);
    bool ok = !s && kern.tmpl == cg_templates[i];
    vkml_status_free(s);
    if (ok) out[k++] = cg_templates[i];
  }
  return k;
}

int oc_schedules(const ir_node *n, const cg_template *tm, const ir_target *t, cg_schedule *out,
                 int want) {
  cg_kernel k;
  T_OK(cg_kernel_for_node(n, tm, NULL, t, &k));
  out[0] = k.schedule;
  if (want <= 1) return 1;
  cg_schedule pts[8];
  int np = vt_sample_points(tm, t, 7, 977, want - 1 < 8 ? want - 1 : 8, pts);
  int m = 1;
  for (int i = 0; i < np && m < want; i++) {
    vkml_status s = cg_kernel_for_node(n, tm, &pts[i], t, &k);
    /* a point the workload cannot take is refused, as the tuner sees it */
    if (s) {
      cr_assert_eq(vkml_status_code(s), VKML_CODE_UNSUPPORTED, "%s: %s", tm->name,
                   vkml_status_message(s));
      vkml_status_free(s);
      continue;
    }
    if (memcmp(&k.schedule, &out[0], sizeof k.schedule)) out[m++] = k.schedule;
  }
  return m;
}
