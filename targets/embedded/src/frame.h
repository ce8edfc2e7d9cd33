/* Frames on the serial line (docs/links.md), the same as the host's
 * protocol/codec.hpp and protocol/cobs.hpp:
 *
 *   plain (format version 1):
 *     0x00 | COBS( C5 01 len_lo len_hi | payload | CRC-32 LE ) | 0x00
 *   sealed (format version 2, a core with a key):
 *     0x00 | COBS( C5 02 len_lo len_hi | nonce (u64 LE) | payload | tag (16) | CRC-32 LE ) | 0x00
 *
 * The payload is one nanopb-encoded Envelope; the CRC-32 (IEEE 802.3) covers
 * everything before it. The tag of a sealed frame is SipHash-2-4-128 under
 * the pre-shared key of the header, nonce and payload: the CRC tells line
 * noise (CRC wrong) from a forged frame or another key (CRC right, tag
 * wrong). The leading delimiter ends whatever line noise came before, so
 * noise between frames costs no frame. */
#ifndef COUPLET_EMBEDDED_FRAME_H
#define COUPLET_EMBEDDED_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "couplet_embedded.h"

#define COUPLET_FRAME_MAGIC 0xC5
#define COUPLET_FRAME_VERSION 1
#define COUPLET_FRAME_HEADER_BYTES 4
#define COUPLET_FRAME_CHECKSUM_BYTES 4
#define COUPLET_FRAME_SEALED_VERSION 2
#define COUPLET_FRAME_NONCE_BYTES 8
#define COUPLET_FRAME_TAG_BYTES 16
#define COUPLET_FRAME_SEALED_HEADER_BYTES (COUPLET_FRAME_HEADER_BYTES + COUPLET_FRAME_NONCE_BYTES)

/* CRC-32, reflected, polynomial 0x04C11DB7 ("123456789" -> 0xCBF43926). A
 * 16-entry table: 64 bytes of flash instead of 1 KiB, two lookups a byte. */
uint32_t couplet_crc32(const uint8_t* bytes, size_t count);

typedef enum {
  COUPLET_COBS_PENDING, /* the frame goes on */
  COUPLET_COBS_FRAME,   /* a whole frame is in the buffer: decoder->size bytes */
  COUPLET_COBS_DROPPED  /* a broken or over-long frame ended: nothing to decode */
} couplet_cobs_event;

void couplet_cobs_reset(couplet_cobs_decoder* decoder);
/* Feeds one received byte; decoded bytes go into buffer[0, capacity). */
couplet_cobs_event couplet_cobs_feed(couplet_cobs_decoder* decoder, uint8_t byte,
                                     uint8_t* buffer, size_t capacity);

/* Writes `frame` COBS-encoded between two delimiters, in pieces (no buffer). */
void couplet_cobs_write(const couplet_platform* platform, const uint8_t* frame, size_t size);

/* Checks a decoded frame; on success *payload and *payload_size locate the
 * Envelope. Returns NULL or why the frame is rejected. */
const char* couplet_frame_open(const uint8_t* frame, size_t size, const uint8_t** payload,
                               size_t* payload_size);
/* Writes header and CRC around a payload already at frame + 4 (payload_size
 * bytes); returns the frame's size. */
size_t couplet_frame_close(uint8_t* frame, size_t payload_size);

/* Checks the layout and CRC of a decoded sealed frame (version 2), not its
 * tag; on success *nonce, *payload and *payload_size locate its parts.
 * Returns NULL or why the frame is rejected. */
const char* couplet_frame_open_sealed(const uint8_t* frame, size_t size, uint64_t* nonce,
                                      const uint8_t** payload, size_t* payload_size);
/* Whether the tag of a sealed frame that couplet_frame_open_sealed accepted
 * is that of `key` (compared in constant time). */
bool couplet_frame_authentic(const uint8_t* frame, size_t size, const uint8_t* key);
/* Writes header, nonce, tag and CRC around a payload already at frame + 12
 * (payload_size bytes); returns the frame's size (payload_size + 32). */
size_t couplet_frame_close_sealed(uint8_t* frame, size_t payload_size, const uint8_t* key,
                                  uint64_t nonce);

#endif /* COUPLET_EMBEDDED_FRAME_H */
