/* SHA-256 (FIPS 180-4): where a cache must not be fooled by a crafted input
 * (the SPIR-V validator's verdicts, runtime/vk/vk_spirv.c); the artifact's
 * checksums, which only catch damage, use ir_checksum64. libc only. */
#ifndef IR_SHA256_H
#define IR_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct ir_sha256 {
  uint32_t h[8];
  uint64_t bytes;       /* message bytes so far */
  uint8_t block[64];    /* the partial block */
  size_t used;          /* its bytes */
} ir_sha256;

void ir_sha256_init(ir_sha256 *s);
void ir_sha256_update(ir_sha256 *s, const void *data, size_t bytes);
void ir_sha256_final(ir_sha256 *s, uint8_t out[32]);
/* The digest of one buffer. */
void ir_sha256_of(const void *data, size_t bytes, uint8_t out[32]);
/* 64 lowercase hex digits and a NUL. */
void ir_sha256_hex(const uint8_t digest[32], char out[65]);

#endif
