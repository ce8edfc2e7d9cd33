#pragma once
// Serial transport (docs/links.md: COBS framing with a CRC): each frame (which
// carries its own CRC-32, protocol/codec.hpp) goes on the line COBS-encoded
// between two 0x00 delimiters, so that the receiver resynchronises at the next
// zero after noise and noise between frames costs no frame. Boost.Asio serial_port in non-blocking mode, waited on with
// poll (a deadline per call, no SO_RCVTIMEO). Works on a pseudo-terminal pair,
// which is how it is tested.
//
// Buffers are allocated once, in the constructor.
#include <boost/asio/io_context.hpp>
#include <boost/asio/serial_port.hpp>
#include <memory>
#include <string>
#include <vector>

#include "drivers/transport.hpp"

namespace couplet::drivers {

class SerialTransport final : public Transport {
 public:
  /// Opens `device` raw, 8N1, no flow control, at `baud`.
  static std::unique_ptr<SerialTransport> open(const std::string& device, unsigned baud);
  /// Takes ownership of an open descriptor (e.g. the master side of a pty).
  static std::unique_ptr<SerialTransport> adopt(int descriptor, std::string name);

  void send(std::span<const std::uint8_t> frame) override;
  std::size_t receive(std::span<std::uint8_t> buffer, Deadline deadline) override;
  std::string describe() const override { return "serial " + name_; }

  /// Encoded frames dropped: bad COBS, overlong, or not fitting the caller's buffer.
  std::uint64_t dropped_frames() const { return dropped_frames_; }

 private:
  explicit SerialTransport(std::string name);
  /// Feeds received bytes until a frame completes; returns its size or 0.
  std::size_t take_frame(std::span<std::uint8_t> buffer);
  bool write_all(std::span<const std::uint8_t> bytes, Deadline deadline);

  std::string name_;
  boost::asio::io_context io_;
  boost::asio::serial_port port_;
  std::vector<std::uint8_t> transmit_;  ///< delimiter + COBS(frame) + delimiter
  std::vector<std::uint8_t> frame_;     ///< encoded bytes of the frame being received
  std::size_t frame_size_ = 0;
  bool discarding_ = false;             ///< an overlong frame: skip to the next delimiter
  std::vector<std::uint8_t> chunk_;     ///< bytes read but not yet consumed
  std::size_t chunk_begin_ = 0;
  std::size_t chunk_end_ = 0;
  std::uint64_t dropped_frames_ = 0;
};

}  // namespace couplet::drivers
