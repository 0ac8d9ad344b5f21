/* Small helpers that every part of the libraries needs and that belong to no
 * one concept: the out-of-memory status, the FNV-1a hash (for hash tables
 * and file checksums; not for anything adversarial) and a seeded generator
 * for reproducible sampling. In ir/ because ir/ is
 * the one folder every other may include. */
#ifndef IR_UTIL_H
#define IR_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vkml_status.h"

/* VKML_CODE_OUT_OF_MEMORY, "out of host memory" (+ " " + doing, when given:
 * "parsing", "building the graph"). Caller frees. Inline: the libraries'
 * hidden internals each need it, and the status functions it calls are the
 * runtime library's API. */
static inline vkml_status ir_oom(const char *doing) {
  return doing ? vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory %s", doing)
               : vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
}

#define IR_FNV64_SEED 0xcbf29ce484222325ull

/* 64-bit FNV-1a over bytes, continuing from h (start with IR_FNV64_SEED). */
static inline uint64_t ir_fnv64(const void *data, size_t bytes, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* A 64-bit checksum for large byte ranges (the artifact's sections) at
 * memory speed: four lanes h = (h ^ w) * K over little-endian 64-bit words
 * (32 bytes a round), the tail bytes into lane 0, then the lanes and the
 * length folded through SplitMix64's finalizer. Each step is a bijection
 * of a lane's state, so any change confined to one lane (every single
 * flipped byte) changes the result. Not cryptographic. */
static inline uint64_t ir_checksum_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A little-endian 64-bit word: one load (a byte loop is not fused by gcc
 * 12 and held the checksum to 4 GB/s). */
static inline uint64_t ir_checksum_word(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

static inline uint64_t ir_checksum64(const void *data, size_t bytes) {
  const uint64_t k = 0x9e3779b97f4a7c15ull;
  const unsigned char *p = data;
  uint64_t h0 = IR_FNV64_SEED, h1 = h0 ^ 1, h2 = h0 ^ 2, h3 = h0 ^ 3;
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    h0 = (h0 ^ ir_checksum_word(p + i)) * k;
    h1 = (h1 ^ ir_checksum_word(p + i + 8)) * k;
    h2 = (h2 ^ ir_checksum_word(p + i + 16)) * k;
    h3 = (h3 ^ ir_checksum_word(p + i + 24)) * k;
  }
  for (; i < bytes; i++) h0 = (h0 ^ p[i]) * k;
  return ir_checksum_mix(h0 ^ ir_checksum_mix(h1 ^ ir_checksum_mix(h2 ^ ir_checksum_mix(
                                                        h3 ^ (uint64_t)bytes))));
}

/* ir_fnv64 of a NUL-terminated string (without the NUL). */
static inline uint64_t ir_fnv64_str(const char *s) {
  uint64_t h = IR_FNV64_SEED;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* SplitMix64: the next 64-bit value of the stream with state *s. */
static inline uint64_t ir_splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) from ir_splitmix64. */
static inline double ir_rand_unit(uint64_t *s) {
  return (double)(ir_splitmix64(s) >> 11) * 0x1.0p-53;
}

#endif
