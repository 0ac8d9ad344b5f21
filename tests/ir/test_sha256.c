/* SHA-256 against FIPS 180-4's examples and NIST's long message, whole and
 * fed in pieces of every size (block boundaries). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sha256.h"

static void expect(const void *data, size_t n, const char *want) {
  uint8_t d[32];
  char hex[65];
  ir_sha256_of(data, n, d);
  ir_sha256_hex(d, hex);
  cr_assert_str_eq(hex, want, "%zu bytes", n);
}

Test(sha256, fips_examples) {
  expect("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  expect("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  expect(m, strlen(m), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, a_million_as_in_pieces) {
  size_t n = 1000000;
  char *a = malloc(n);
  cr_assert_not_null(a);
  memset(a, 'a', n);
  const char *want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  expect(a, n, want);
  for (size_t piece = 1; piece <= 130; piece++) {
    ir_sha256 s;
    ir_sha256_init(&s);
    for (size_t i = 0; i < n; i += piece) ir_sha256_update(&s, a + i, i + piece <= n ? piece : n - i);
    uint8_t d[32];
    char hex[65];
    ir_sha256_final(&s, d);
    ir_sha256_hex(d, hex);
    cr_assert_str_eq(hex, want, "pieces of %zu", piece);
  }
  free(a);
}

Test(sha256, every_length_near_a_block) {
  /* 55 to 65 bytes of 'x': the padding's edges (python3's hashlib) */
  char m[65];
  memset(m, 'x', sizeof m);
  expect(m, 55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  expect(m, 56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  expect(m, 63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2");
  expect(m, 64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
  expect(m, 65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9");
}
