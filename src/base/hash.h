/* The one hash function family of hrace (docs/design.md, "Layers": base/). Every table, cache
 * and id derivation hashes through these, so there is one place to change the mixing and to
 * read what it guarantees:
 *   hrace_hash_mix64     a 64-bit word (handle, address, counter): splitmix64's finaliser,
 *                        a bijection whose every output bit depends on every input bit
 *   hrace_hash_bytes     a byte string (FNV-1a, 64-bit): stable across processes and runs, so
 *   hrace_hash_str       values derived from it may travel between ranks (rma/ops.c)
 *   hrace_hash_combine   a composite key, field by field
 *   hrace_hash_key       an MPI handle or any object of up to 8 bytes as a 64-bit key
 * Not for adversarial input: hrace hashes its own handles, addresses and names. */
#ifndef HRACE_BASE_HASH_H
#define HRACE_BASE_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HRACE_HASH_SEED 0xcbf29ce484222325ull   /* FNV-1a's offset basis */

static inline uint64_t hrace_hash_mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static inline uint64_t hrace_hash_bytes(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static inline uint64_t hrace_hash_str(const char *s, uint64_t h) {
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

static inline uint64_t hrace_hash_combine(uint64_t h, uint64_t v) {
  return hrace_hash_mix64(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)));
}

/* The bytes of *p (n <= 8: an MPI handle is a pointer in Open MPI, an int in MPICH) as a key,
 * zero-extended; equal objects give equal keys. */
static inline uint64_t hrace_hash_key(const void *p, size_t n) {
  uint64_t k = 0;
  memcpy(&k, p, n < sizeof k ? n : sizeof k);
  return k;
}
#define HRACE_HASH_KEY(x) hrace_hash_key(&(x), sizeof(x))
#endif
