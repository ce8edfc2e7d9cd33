#pragma once
// Compressed run logs (docs/run-log.md "Compressed logs"): the same frames as
// a plain log (protocol/run_log_frame.hpp), written in blocks that are each one
// zstd frame, so that every block decodes on its own and a log cut or damaged
// in one block keeps every block before it:
//
//   file   "COUPLOGZ" (8 bytes), then blocks
//   block  compressed length c (uint32 LE) | frames' length u (uint32 LE) |
//          c bytes: zstd frame of u bytes of whole log frames |
//          CRC-32 of the 8 + c bytes before it (uint32 LE)
//
// The writer (the recorder's writer thread) makes one block of each batch of
// frames it would otherwise write(2) as they are.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace couplet::protocol {

inline constexpr char kCompressedLogMagic[] = "COUPLOGZ";
inline constexpr std::size_t kLogBlockHeaderBytes = 8;  ///< the two lengths
inline constexpr std::size_t kLogBlockChecksumBytes = 4;
/// The most frame bytes one block holds: what a reader must be ready to
/// decompress (a longer length is refused as corrupted).
inline constexpr std::size_t kMaxLogBlockFrameBytes = std::size_t{4} << 20;

/// Compresses batches of frames into blocks. Its buffers are sized in the
/// constructor for batches of up to `max_frame_bytes`.
class LogBlockCompressor {
 public:
  explicit LogBlockCompressor(std::size_t max_frame_bytes, int level = kDefaultLevel);
  ~LogBlockCompressor();
  LogBlockCompressor(const LogBlockCompressor&) = delete;
  LogBlockCompressor& operator=(const LogBlockCompressor&) = delete;

  /// The block holding `frames` (whole log frames, at most max_frame_bytes);
  /// valid until the next call. Empty on a zstd error, which error() names.
  std::span<const std::uint8_t> compress(std::span<const std::uint8_t> frames);
  const std::string& error() const { return error_; }

  /// zstd's level 3, its default: 2–2.4× smaller run logs at 140–210 MB/s.
  static constexpr int kDefaultLevel = 3;

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  std::vector<std::uint8_t> block_;
  std::size_t max_frame_bytes_;
  int level_;
  std::string error_;
};

/// What reading the next block found.
enum class LogBlockStatus : std::uint8_t { block, end, cut, corrupted };

/// The most bytes a block's compressed part may have (zstd's bound for
/// kMaxLogBlockFrameBytes): a longer length is refused as corrupted.
std::size_t max_compressed_log_block_bytes();

/// Checks and decompresses one whole block — header, compressed part and
/// checksum, its lengths within the limits above — into `frames_out` (resized
/// to the frames' length). `problem` says why on `corrupted`.
LogBlockStatus decompress_log_block(std::span<const std::uint8_t> header_and_block,
                                    std::vector<std::uint8_t>& frames_out, std::string& problem);

}  // namespace couplet::protocol
