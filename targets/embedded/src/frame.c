#include "frame.h"

#include "siphash.h"

static const uint32_t crc_nibble_table[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};

uint32_t couplet_crc32(const uint8_t* bytes, size_t count) {
  uint32_t crc = 0xFFFFFFFFu;
  size_t k;
  for (k = 0; k < count; ++k) {
    crc ^= bytes[k];
    crc = (crc >> 4) ^ crc_nibble_table[crc & 0x0Fu];
    crc = (crc >> 4) ^ crc_nibble_table[crc & 0x0Fu];
  }
  return ~crc;
}

void couplet_cobs_reset(couplet_cobs_decoder* decoder) {
  decoder->size = 0;
  decoder->remaining = 0;
  decoder->code = 0;
  decoder->discarding = false;
}

/* COBS (Cheshire & Baker, "Consistent Overhead Byte Stuffing", IEEE/ACM
 * Transactions on Networking 7(2), 1999, doi:10.1109/90.769765): a block is a
 * code byte c and c - 1 data bytes; a block shorter than 254 data bytes stands
 * for a zero after it, except at the end of the frame. */
couplet_cobs_event couplet_cobs_feed(couplet_cobs_decoder* decoder, uint8_t byte,
                                     uint8_t* buffer, size_t capacity) {
  if (byte == 0x00) {
    const bool whole = !decoder->discarding && decoder->remaining == 0 && decoder->code != 0;
    const bool empty = !decoder->discarding && decoder->code == 0 && decoder->size == 0;
    couplet_cobs_event event = COUPLET_COBS_DROPPED;
    if (empty) event = COUPLET_COBS_PENDING; /* two delimiters in a row: nothing */
    if (whole) event = COUPLET_COBS_FRAME;
    {
      const size_t size = decoder->size;
      couplet_cobs_reset(decoder);
      if (event == COUPLET_COBS_FRAME) decoder->size = size;
    }
    return event;
  }
  if (decoder->discarding) return COUPLET_COBS_PENDING;
  if (decoder->remaining == 0) {
    /* A code byte: the previous block, if short, stood for a zero. */
    if (decoder->code != 0 && decoder->code != 0xFF) {
      if (decoder->size == capacity) {
        decoder->discarding = true;
        return COUPLET_COBS_PENDING;
      }
      buffer[decoder->size++] = 0x00;
    }
    decoder->code = byte;
    decoder->remaining = byte - 1u;
    return COUPLET_COBS_PENDING;
  }
  if (decoder->size == capacity) {
    decoder->discarding = true;
    return COUPLET_COBS_PENDING;
  }
  buffer[decoder->size++] = byte;
  --decoder->remaining;
  return COUPLET_COBS_PENDING;
}

void couplet_cobs_write(const couplet_platform* platform, const uint8_t* frame, size_t size) {
  static const uint8_t delimiter = 0x00;
  size_t start = 0;
  platform->write(platform->context, &delimiter, 1);
  for (;;) {
    /* The next block: up to 254 non-zero bytes, ended by a zero or the end. */
    size_t run = 0;
    uint8_t code;
    while (start + run < size && run < 254 && frame[start + run] != 0x00) ++run;
    code = (uint8_t)(run + 1);
    platform->write(platform->context, &code, 1);
    if (run > 0) platform->write(platform->context, frame + start, run);
    start += run;
    if (start == size) break;
    if (run < 254) ++start; /* the zero this block stands for */
  }
  platform->write(platform->context, &delimiter, 1);
}

static uint32_t load_u32(const uint8_t* bytes) {
  return (uint32_t)bytes[0] | ((uint32_t)bytes[1] << 8) | ((uint32_t)bytes[2] << 16) |
         ((uint32_t)bytes[3] << 24);
}

static void store_u32(uint8_t* bytes, uint32_t value) {
  bytes[0] = (uint8_t)value;
  bytes[1] = (uint8_t)(value >> 8);
  bytes[2] = (uint8_t)(value >> 16);
  bytes[3] = (uint8_t)(value >> 24);
}

const char* couplet_frame_open(const uint8_t* frame, size_t size, const uint8_t** payload,
                               size_t* payload_size) {
  size_t length;
  if (size < COUPLET_FRAME_HEADER_BYTES + COUPLET_FRAME_CHECKSUM_BYTES) return "truncated";
  if (frame[0] != COUPLET_FRAME_MAGIC || frame[1] != COUPLET_FRAME_VERSION) return "foreign";
  length = (size_t)frame[2] | ((size_t)frame[3] << 8);
  if (size < COUPLET_FRAME_HEADER_BYTES + length + COUPLET_FRAME_CHECKSUM_BYTES) return "truncated";
  if (size > COUPLET_FRAME_HEADER_BYTES + length + COUPLET_FRAME_CHECKSUM_BYTES) return "oversized";
  if (couplet_crc32(frame, COUPLET_FRAME_HEADER_BYTES + length) !=
      load_u32(frame + COUPLET_FRAME_HEADER_BYTES + length)) {
    return "corrupted";
  }
  *payload = frame + COUPLET_FRAME_HEADER_BYTES;
  *payload_size = length;
  return NULL;
}

size_t couplet_frame_close(uint8_t* frame, size_t payload_size) {
  const size_t checked = COUPLET_FRAME_HEADER_BYTES + payload_size;
  frame[0] = COUPLET_FRAME_MAGIC;
  frame[1] = COUPLET_FRAME_VERSION;
  frame[2] = (uint8_t)payload_size;
  frame[3] = (uint8_t)(payload_size >> 8);
  store_u32(frame + checked, couplet_crc32(frame, checked));
  return checked + COUPLET_FRAME_CHECKSUM_BYTES;
}

const char* couplet_frame_open_sealed(const uint8_t* frame, size_t size, uint64_t* nonce,
                                      const uint8_t** payload, size_t* payload_size) {
  const size_t overhead =
      COUPLET_FRAME_SEALED_HEADER_BYTES + COUPLET_FRAME_TAG_BYTES + COUPLET_FRAME_CHECKSUM_BYTES;
  size_t length;
  size_t checked;
  if (size < overhead) return "truncated";
  if (frame[0] != COUPLET_FRAME_MAGIC || frame[1] != COUPLET_FRAME_SEALED_VERSION) return "foreign";
  length = (size_t)frame[2] | ((size_t)frame[3] << 8);
  if (size < overhead + length) return "truncated";
  if (size > overhead + length) return "oversized";
  checked = COUPLET_FRAME_SEALED_HEADER_BYTES + length + COUPLET_FRAME_TAG_BYTES;
  if (couplet_crc32(frame, checked) != load_u32(frame + checked)) return "corrupted";
  *nonce = (uint64_t)load_u32(frame + COUPLET_FRAME_HEADER_BYTES) |
           ((uint64_t)load_u32(frame + COUPLET_FRAME_HEADER_BYTES + 4) << 32);
  *payload = frame + COUPLET_FRAME_SEALED_HEADER_BYTES;
  *payload_size = length;
  return NULL;
}

bool couplet_frame_authentic(const uint8_t* frame, size_t size, const uint8_t* key) {
  const size_t tagged = size - COUPLET_FRAME_TAG_BYTES - COUPLET_FRAME_CHECKSUM_BYTES;
  uint8_t tag[COUPLET_FRAME_TAG_BYTES];
  uint8_t difference = 0;
  size_t k;
  couplet_siphash24_128(key, frame, tagged, tag);
  /* Every byte compared whatever the first difference: the time taken tells
   * nothing about how much of a forged tag was right. */
  for (k = 0; k < COUPLET_FRAME_TAG_BYTES; ++k) difference |= (uint8_t)(tag[k] ^ frame[tagged + k]);
  return difference == 0;
}

size_t couplet_frame_close_sealed(uint8_t* frame, size_t payload_size, const uint8_t* key,
                                  uint64_t nonce) {
  const size_t tagged = COUPLET_FRAME_SEALED_HEADER_BYTES + payload_size;
  const size_t checked = tagged + COUPLET_FRAME_TAG_BYTES;
  frame[0] = COUPLET_FRAME_MAGIC;
  frame[1] = COUPLET_FRAME_SEALED_VERSION;
  frame[2] = (uint8_t)payload_size;
  frame[3] = (uint8_t)(payload_size >> 8);
  store_u32(frame + COUPLET_FRAME_HEADER_BYTES, (uint32_t)nonce);
  store_u32(frame + COUPLET_FRAME_HEADER_BYTES + 4, (uint32_t)(nonce >> 32));
  couplet_siphash24_128(key, frame, tagged, frame + tagged);
  store_u32(frame + checked, couplet_crc32(frame, checked));
  return checked + COUPLET_FRAME_CHECKSUM_BYTES;
}
