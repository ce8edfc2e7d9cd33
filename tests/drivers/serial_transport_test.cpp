// Serial transport on a pseudo-terminal pair (docs/links.md: COBS framing with a
// CRC): frames of every size cross the line, and the receiver resynchronises
// after noise.
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <numeric>
#include <thread>
#include <vector>

#include "drivers/serial_transport.hpp"
#include "protocol/codec.hpp"

namespace couplet::drivers {
namespace {

using namespace std::chrono_literals;

struct PtyPair {
  std::unique_ptr<SerialTransport> device_end;  ///< the pty master, as a target would hold it
  std::unique_ptr<SerialTransport> host_end;    ///< opened by path, as couplet opens a device
  int raw_master = -1;
};

PtyPair make_pair() {
  int master = -1;
  int slave = -1;
  char name[128] = {};
  if (::openpty(&master, &slave, name, nullptr, nullptr) != 0) throw std::runtime_error("openpty failed");
  PtyPair pair;
  pair.raw_master = master;
  pair.device_end = SerialTransport::adopt(master, "pty master");
  pair.host_end = SerialTransport::open(name, 115200);
  ::close(slave);  // the host end holds its own descriptor
  return pair;
}

std::vector<std::uint8_t> pattern(std::size_t size, std::uint8_t seed) {
  std::vector<std::uint8_t> bytes(size);
  std::iota(bytes.begin(), bytes.end(), seed);  // includes zeros every 256 bytes
  return bytes;
}

TEST(SerialTransport, FramesOfEverySizeCrossAPty) {
  PtyPair pair = make_pair();
  std::vector<std::uint8_t> buffer(protocol::kMaxFrameBytes);
  for (const std::size_t size : {std::size_t{1}, std::size_t{253}, std::size_t{254}, std::size_t{255},
                                 std::size_t{4096}, protocol::kMaxFrameBytes}) {
    const auto frame = pattern(size, static_cast<std::uint8_t>(size));
    // Large frames exceed the pty buffer: the reader must run while the writer writes.
    std::thread writer([&] { pair.host_end->send(frame); });
    const std::size_t received = pair.device_end->receive(buffer, SteadyClock::now() + 2s);
    writer.join();
    ASSERT_EQ(received, size);
    EXPECT_TRUE(std::equal(frame.begin(), frame.end(), buffer.begin())) << size;

    std::thread answer([&] { pair.device_end->send(frame); });
    ASSERT_EQ(pair.host_end->receive(buffer, SteadyClock::now() + 2s), size);
    answer.join();
  }
}

TEST(SerialTransport, ResynchronisesAfterNoise) {
  PtyPair pair = make_pair();
  // Line noise: garbage, a delimiter, an invalid COBS block, a delimiter.
  const std::uint8_t noise[] = {0x05, 0x11, 0x00, 0x07, 0x00};
  ASSERT_EQ(::write(pair.raw_master, noise, sizeof noise), static_cast<ssize_t>(sizeof noise));
  const auto frame = pattern(300, 3);
  pair.device_end->send(frame);
  std::vector<std::uint8_t> buffer(protocol::kMaxFrameBytes);
  ASSERT_EQ(pair.host_end->receive(buffer, SteadyClock::now() + 2s), frame.size());
  EXPECT_TRUE(std::equal(frame.begin(), frame.end(), buffer.begin()));
  EXPECT_GE(pair.host_end->dropped_frames(), 1U);
}

TEST(SerialTransport, ReceiveReturnsAtTheDeadline) {
  PtyPair pair = make_pair();
  std::vector<std::uint8_t> buffer(64);
  const auto began = SteadyClock::now();
  EXPECT_EQ(pair.host_end->receive(buffer, began + 30ms), 0U);
  EXPECT_GE(SteadyClock::now() - began, 30ms);
  EXPECT_LT(SteadyClock::now() - began, 500ms);
}

TEST(SerialTransport, NamesAMissingDevice) {
  try {
    SerialTransport::open("/dev/no-such-tty", 115200);
    FAIL();
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("/dev/no-such-tty"), std::string::npos);
  }
}

}  // namespace
}  // namespace couplet::drivers
