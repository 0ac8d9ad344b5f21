/* ir_strmap, the one string hash map: lookups after growth, replacement,
 * length-delimited keys, and the empty map. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/strmap.h"
#include "tests/support/test_support.h"

Test(strmap, empty_map_finds_nothing) {
  ir_strmap m = {0};
  cr_assert_null(ir_strmap_get(&m, "x"));
  cr_assert_null(ir_strmap_get_n(&m, "", 0));
  ir_strmap_free(&m);
  cr_assert_eq(m.cap, 0);
}

Test(strmap, many_keys_survive_growth) {
  enum { N = 5000 };
  static char keys[N][24];
  static int vals[N];
  ir_strmap m = {0};
  t_rng r = t_rng_make(11);
  for (int i = 0; i < N; i++) {
    /* random text plus the index: distinct keys with many shared prefixes */
    snprintf(keys[i], sizeof keys[i], "%c%llu_%d", 'a' + (int)(t_rng_next(&r) % 3),
             (unsigned long long)(t_rng_next(&r) % 100), i);
    vals[i] = i;
    cr_assert_null(ir_strmap_put(&m, keys[i], &vals[i]));
    cr_assert_eq(m.count, (size_t)i + 1);
    cr_assert_leq(m.count * 2, m.cap, "load above 1/2 after %d inserts", i + 1);
  }
  for (int i = 0; i < N; i++) {
    char probe[24];
    memcpy(probe, keys[i], sizeof probe); /* a different pointer, same text */
    int *v = ir_strmap_get(&m, probe);
    cr_assert(v && *v == i, "key %s", keys[i]);
  }
  cr_assert_null(ir_strmap_get(&m, "zz_not_there"));
  ir_strmap_free(&m);
  cr_assert_null(m.slots);
  cr_assert_eq(m.count, 0);
}

Test(strmap, put_replaces_and_keeps_count) {
  ir_strmap m = {0};
  int a = 1, b = 2;
  cr_assert_null(ir_strmap_put(&m, "k", &a));
  cr_assert_null(ir_strmap_put(&m, "k", &b));
  cr_assert_eq(m.count, 1);
  cr_assert_eq(ir_strmap_get(&m, "k"), &b);
  ir_strmap_free(&m);
}

Test(strmap, length_delimited_keys) {
  /* the parser looks names up straight from its input, not NUL-terminated */
  const char *text = "value_one value_two";
  ir_strmap m = {0};
  int one = 1, pre = 2, empty = 3;
  cr_assert_null(ir_strmap_put_n(&m, text, 9, &one));    /* "value_one" */
  cr_assert_null(ir_strmap_put_n(&m, text, 5, &pre));    /* "value" */
  cr_assert_null(ir_strmap_put_n(&m, text, 0, &empty));  /* "" */
  cr_assert_eq(m.count, 3);
  cr_assert_eq(ir_strmap_get(&m, "value_one"), &one);
  cr_assert_eq(ir_strmap_get(&m, "value"), &pre);
  cr_assert_eq(ir_strmap_get(&m, ""), &empty);
  cr_assert_eq(ir_strmap_get_n(&m, text + 10, 5), &pre); /* "value" of value_two */
  cr_assert_null(ir_strmap_get_n(&m, text + 10, 9));     /* "value_two" */
  cr_assert_null(ir_strmap_get(&m, "value_"));
  ir_strmap_free(&m);
}
