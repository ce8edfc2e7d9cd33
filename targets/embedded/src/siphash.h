/* SipHash-2-4 with a 128-bit output: the MAC of sealed frames (docs/links.md,
 * docs/embedded.md "Keys"). The same function as libsodium's
 * crypto_shorthash_siphashx24, which the host uses. */
#ifndef COUPLET_EMBEDDED_SIPHASH_H
#define COUPLET_EMBEDDED_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define COUPLET_SIPHASH_KEY_BYTES 16
#define COUPLET_SIPHASH_OUTPUT_BYTES 16

/* out = SipHash-2-4-128 of data[0, size) under the 16-byte key (the first
 * key byte is the lowest byte of k0). No heap, no table; out may not overlap
 * data. */
void couplet_siphash24_128(const uint8_t key[COUPLET_SIPHASH_KEY_BYTES], const uint8_t* data,
                           size_t size, uint8_t out[COUPLET_SIPHASH_OUTPUT_BYTES]);

#endif /* COUPLET_EMBEDDED_SIPHASH_H */
