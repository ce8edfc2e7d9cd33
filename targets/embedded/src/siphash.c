/* SipHash-2-4, 128-bit output: J.-P. Aumasson and D. J. Bernstein, "SipHash:
 * a fast short-input PRF", INDOCRYPT 2012, LNCS 7668, pp. 489-508,
 * doi:10.1007/978-3-642-34931-7_28. The 128-bit variant is that of the
 * authors' reference implementation (v1 ^= 0xee at the start, v2 ^= 0xee
 * before the first finalization, v1 ^= 0xdd before the second), which
 * libsodium's crypto_shorthash_siphashx24 computes. Words are little endian
 * whatever the processor's byte order. */
#include "siphash.h"

#define ROTATE(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static uint64_t load_u64(const uint8_t* bytes) {
  uint64_t value = 0;
  int k;
  for (k = 7; k >= 0; --k) value = (value << 8) | bytes[k];
  return value;
}

static void store_u64(uint8_t* bytes, uint64_t value) {
  int k;
  for (k = 0; k < 8; ++k) bytes[k] = (uint8_t)(value >> (8 * k));
}

static void sip_rounds(uint64_t v[4], int rounds) {
  while (rounds-- > 0) {
    v[0] += v[1];
    v[1] = ROTATE(v[1], 13);
    v[1] ^= v[0];
    v[0] = ROTATE(v[0], 32);
    v[2] += v[3];
    v[3] = ROTATE(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = ROTATE(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = ROTATE(v[1], 17);
    v[1] ^= v[2];
    v[2] = ROTATE(v[2], 32);
  }
}

/* One message word: two compression rounds. */
static void sip_absorb(uint64_t v[4], uint64_t word) {
  v[3] ^= word;
  sip_rounds(v, 2);
  v[0] ^= word;
}

void couplet_siphash24_128(const uint8_t key[COUPLET_SIPHASH_KEY_BYTES], const uint8_t* data,
                           size_t size, uint8_t out[COUPLET_SIPHASH_OUTPUT_BYTES]) {
  const uint64_t k0 = load_u64(key);
  const uint64_t k1 = load_u64(key + 8);
  const size_t whole = size - size % 8u;
  uint64_t last = (uint64_t)(size & 0xFFu) << 56; /* the length modulo 256 */
  uint64_t v[4];
  size_t k;
  v[0] = k0 ^ UINT64_C(0x736f6d6570736575);
  v[1] = k1 ^ UINT64_C(0x646f72616e646f6d) ^ 0xEEu;
  v[2] = k0 ^ UINT64_C(0x6c7967656e657261);
  v[3] = k1 ^ UINT64_C(0x7465646279746573);
  for (k = 0; k < whole; k += 8) sip_absorb(v, load_u64(data + k));
  for (k = whole; k < size; ++k) last |= (uint64_t)data[k] << (8u * (k - whole));
  sip_absorb(v, last);
  v[2] ^= 0xEEu;
  sip_rounds(v, 4);
  store_u64(out, v[0] ^ v[1] ^ v[2] ^ v[3]);
  v[1] ^= 0xDDu;
  sip_rounds(v, 4);
  store_u64(out + 8, v[0] ^ v[1] ^ v[2] ^ v[3]);
}
