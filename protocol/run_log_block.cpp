#include "protocol/run_log_block.hpp"

#include <zstd.h>

#include <boost/endian/conversion.hpp>

#include "protocol/crc32.hpp"

namespace couplet::protocol {

struct LogBlockCompressor::Context {
  ZSTD_CCtx* zstd = ZSTD_createCCtx();
  ~Context() { ZSTD_freeCCtx(zstd); }
};

LogBlockCompressor::LogBlockCompressor(std::size_t max_frame_bytes, int level)
    : context_(std::make_unique<Context>()),
      block_(kLogBlockHeaderBytes + ZSTD_compressBound(max_frame_bytes) + kLogBlockChecksumBytes),
      max_frame_bytes_(max_frame_bytes),
      level_(level) {}

LogBlockCompressor::~LogBlockCompressor() = default;

std::span<const std::uint8_t> LogBlockCompressor::compress(std::span<const std::uint8_t> frames) {
  if (context_->zstd == nullptr || frames.size() > max_frame_bytes_ ||
      frames.size() > kMaxLogBlockFrameBytes) {
    error_ = "a batch of log frames does not fit a block";
    return {};
  }
  std::uint8_t* const body = block_.data() + kLogBlockHeaderBytes;
  const std::size_t room = block_.size() - kLogBlockHeaderBytes - kLogBlockChecksumBytes;
  const std::size_t compressed =
      ZSTD_compressCCtx(context_->zstd, body, room, frames.data(), frames.size(), level_);
  if (ZSTD_isError(compressed) != 0) {
    error_ = std::string("zstd: ") + ZSTD_getErrorName(compressed);
    return {};
  }
  boost::endian::store_little_u32(block_.data(), static_cast<std::uint32_t>(compressed));
  boost::endian::store_little_u32(block_.data() + 4, static_cast<std::uint32_t>(frames.size()));
  const std::size_t checked = kLogBlockHeaderBytes + compressed;
  boost::endian::store_little_u32(block_.data() + checked,
                                  crc32(std::span<const std::uint8_t>(block_).first(checked)));
  return std::span<const std::uint8_t>(block_).first(checked + kLogBlockChecksumBytes);
}

std::size_t max_compressed_log_block_bytes() {
  return ZSTD_compressBound(kMaxLogBlockFrameBytes);
}

LogBlockStatus decompress_log_block(std::span<const std::uint8_t> header_and_block,
                                    std::vector<std::uint8_t>& frames_out, std::string& problem) {
  const std::size_t compressed = boost::endian::load_little_u32(header_and_block.data());
  const std::size_t frames = boost::endian::load_little_u32(header_and_block.data() + 4);
  const std::size_t checked = kLogBlockHeaderBytes + compressed;
  if (crc32(header_and_block.first(checked)) !=
      boost::endian::load_little_u32(header_and_block.data() + checked)) {
    problem = "checksum mismatch: corrupted";
    return LogBlockStatus::corrupted;
  }
  frames_out.resize(frames);
  const std::size_t made =
      ZSTD_decompress(frames_out.data(), frames_out.size(),
                      header_and_block.data() + kLogBlockHeaderBytes, compressed);
  if (ZSTD_isError(made) != 0 || made != frames) {
    problem = ZSTD_isError(made) != 0 ? std::string("zstd: ") + ZSTD_getErrorName(made)
                                      : "it holds " + std::to_string(made) +
                                            " bytes, its header says " + std::to_string(frames);
    problem += ": corrupted";
    return LogBlockStatus::corrupted;
  }
  return LogBlockStatus::block;
}

}  // namespace couplet::protocol
