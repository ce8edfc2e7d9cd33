#include "drivers/serial_transport.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "drivers/poll_wait.hpp"
#include "protocol/cobs.hpp"
#include "protocol/codec.hpp"
#include "couplet/errors.hpp"

namespace couplet::drivers {

namespace asio = boost::asio;

namespace {

constexpr std::size_t kEncodedCapacity = protocol::cobs_encoded_capacity(protocol::kMaxFrameBytes);
constexpr std::size_t kChunkBytes = 4096;
// A frame is written within this time or abandoned (a line nobody reads).
constexpr auto kWriteTimeout = std::chrono::seconds(2);
// When the far end of a pty is closed, poll reports a hang-up at once: sleep a
// little instead of spinning until the deadline.
constexpr auto kHangupPause = std::chrono::milliseconds(2);

// serial_port has no non_blocking(): set O_NONBLOCK on the descriptor and use
// read/write on it directly (asio's synchronous calls would otherwise wait
// without a deadline when a descriptor it believes blocking says EAGAIN).
void make_non_blocking(int descriptor, boost::system::error_code& error) {
  const int flags = ::fcntl(descriptor, F_GETFL, 0);
  if (flags < 0 || ::fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) < 0) {
    error = boost::system::error_code(errno, boost::system::system_category());
  }
}

}  // namespace

SerialTransport::SerialTransport(std::string name)
    : name_(std::move(name)),
      port_(io_),
      transmit_(kEncodedCapacity + 2),
      frame_(kEncodedCapacity),
      chunk_(kChunkBytes) {}

std::unique_ptr<SerialTransport> SerialTransport::open(const std::string& device, unsigned baud) {
  std::unique_ptr<SerialTransport> transport(new SerialTransport(device));
  boost::system::error_code error;
  // serial_port::open puts the line in raw mode (no echo, no canonical input).
  transport->port_.open(device, error);
  using port = asio::serial_port_base;
  if (!error) transport->port_.set_option(port::baud_rate(baud), error);
  if (!error) transport->port_.set_option(port::character_size(8), error);
  if (!error) transport->port_.set_option(port::parity(port::parity::none), error);
  if (!error) transport->port_.set_option(port::stop_bits(port::stop_bits::one), error);
  if (!error) transport->port_.set_option(port::flow_control(port::flow_control::none), error);
  if (!error) make_non_blocking(transport->port_.native_handle(), error);
  if (error) throw ConfigurationError("serial device '" + device + "': " + error.message());
  return transport;
}

std::unique_ptr<SerialTransport> SerialTransport::adopt(int descriptor, std::string name) {
  std::unique_ptr<SerialTransport> transport(new SerialTransport(std::move(name)));
  boost::system::error_code error;
  transport->port_.assign(descriptor, error);
  if (!error) make_non_blocking(transport->port_.native_handle(), error);
  if (error) throw ConfigurationError("serial '" + transport->name_ + "': " + error.message());
  return transport;
}

void SerialTransport::send(std::span<const std::uint8_t> frame) {
  // Delimited at both ends: the leading zero ends whatever line noise came
  // before, so that noise between frames costs no frame.
  transmit_[0] = 0x00;
  const auto encoded = protocol::cobs_encode(frame, std::span(transmit_).subspan(1, kEncodedCapacity));
  if (!encoded) {
    ++dropped_frames_;
    return;
  }
  transmit_[*encoded + 1] = 0x00;
  write_all(std::span(transmit_).first(*encoded + 2), SteadyClock::now() + kWriteTimeout);
}

bool SerialTransport::write_all(std::span<const std::uint8_t> bytes, Deadline deadline) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(port_.native_handle(), bytes.data(), bytes.size());
    if (written > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(written));
      continue;
    }
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    if (wait_for_descriptor(port_.native_handle(), deadline, true) != PollOutcome::ready) return false;
  }
  return true;
}

std::size_t SerialTransport::take_frame(std::span<std::uint8_t> buffer) {
  while (chunk_begin_ < chunk_end_) {
    const std::uint8_t byte = chunk_[chunk_begin_++];
    if (byte != 0x00) {
      if (discarding_) continue;
      if (frame_size_ == frame_.size()) {  // longer than any valid frame
        discarding_ = true;
        frame_size_ = 0;
        ++dropped_frames_;
        continue;
      }
      frame_[frame_size_++] = byte;
      continue;
    }
    const std::size_t encoded = frame_size_;
    const bool skipped = discarding_;
    frame_size_ = 0;
    discarding_ = false;
    if (skipped || encoded == 0) continue;  // resynchronised, or an empty frame
    const auto decoded = protocol::cobs_decode(std::span(frame_).first(encoded), buffer);
    if (decoded && *decoded > 0) return *decoded;
    ++dropped_frames_;
  }
  return 0;
}

std::size_t SerialTransport::receive(std::span<std::uint8_t> buffer, Deadline deadline) {
  for (;;) {
    if (const std::size_t size = take_frame(buffer); size > 0) return size;
    const ssize_t read = ::read(port_.native_handle(), chunk_.data(), chunk_.size());
    if (read > 0) {
      chunk_begin_ = 0;
      chunk_end_ = static_cast<std::size_t>(read);
      continue;
    }
    if (read < 0 && errno == EINTR) continue;
    const auto now = SteadyClock::now();
    if (now >= deadline) return 0;
    if (read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (wait_for_descriptor(port_.native_handle(), deadline) != PollOutcome::hangup) continue;
    }
    // EOF, EIO or a hang-up: the other end of a pty is not open (yet). Pause, retry.
    std::this_thread::sleep_until(std::min(deadline, now + kHangupPause));
  }
}

}  // namespace couplet::drivers
