#pragma once
// A relay that damages a serial line on purpose, for the tests of devices on
// serial links (embedded_test: the host build of the embedded core;
// tests/embedded/qemu_test.cpp: its Cortex-M4 firmware in QEMU).
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace couplet::testing {

/// Forwards bytes between a serial line (the device's pty) and a new
/// pseudo-terminal (for the master), damaging them in both directions: each
/// byte is flipped in one bit or dropped with the given probability, and after
/// a frame delimiter a burst of random bytes follows now and then.
class DamagingSerialRelay {
 public:
  struct Damage {
    double bit_flip = 1e-3;       ///< per byte
    double drop = 1e-3;           ///< per byte
    double garbage_burst = 0.05;  ///< per frame delimiter
    std::uint64_t seed = 1;
  };
  struct Counts {
    std::atomic<std::uint64_t> bytes{0}, flips{0}, drops{0}, bursts{0};
  };

  DamagingSerialRelay(const std::string& device_path, Damage damage)
      : damage_(damage), random_(damage.seed) {
    device_ = ::open(device_path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (device_ < 0) throw std::runtime_error("relay: cannot open " + device_path);
    termios raw{};
    ::tcgetattr(device_, &raw);
    ::cfmakeraw(&raw);
    ::tcsetattr(device_, TCSANOW, &raw);
    char name[128] = {};
    termios master_raw{};
    ::cfmakeraw(&master_raw);
    if (::openpty(&near_, &far_, name, &master_raw, nullptr) != 0)
      throw std::runtime_error("relay: openpty");
    path_ = name;
    worker_ = std::thread([this] { forward(); });
  }
  ~DamagingSerialRelay() {
    stop_ = true;
    worker_.join();
    ::close(device_);
    ::close(near_);
    ::close(far_);
  }

  const std::string& path() const { return path_; }
  const Counts& counts() const { return counts_; }

 private:
  void forward() {
    std::array<std::uint8_t, 512> buffer{};
    while (!stop_) {
      std::array<pollfd, 2> descriptors{pollfd{device_, POLLIN, 0}, pollfd{near_, POLLIN, 0}};
      if (::poll(descriptors.data(), descriptors.size(), 20) <= 0) continue;
      for (std::size_t side = 0; side < 2; ++side) {
        if ((descriptors[side].revents & POLLIN) == 0) continue;
        const int from = descriptors[side].fd;
        const int to = side == 0 ? near_ : device_;
        const ssize_t count = ::read(from, buffer.data(), buffer.size());
        if (count > 0) pass_on(std::span(buffer.data(), static_cast<std::size_t>(count)), to);
      }
    }
  }

  void pass_on(std::span<const std::uint8_t> bytes, int to) {
    std::vector<std::uint8_t> damaged;
    std::uniform_real_distribution<double> chance(0.0, 1.0);
    for (std::uint8_t byte : bytes) {
      ++counts_.bytes;
      if (chance(random_) < damage_.drop) {
        ++counts_.drops;
        continue;
      }
      if (chance(random_) < damage_.bit_flip) {
        byte ^= static_cast<std::uint8_t>(1U << (random_() % 8));
        ++counts_.flips;
      }
      damaged.push_back(byte);
      if (byte == 0x00 && chance(random_) < damage_.garbage_burst) {
        ++counts_.bursts;
        const std::size_t length = 1 + random_() % 24;
        for (std::size_t k = 0; k < length; ++k)
          damaged.push_back(static_cast<std::uint8_t>(random_()));
      }
    }
    std::size_t written = 0;
    while (written < damaged.size() && !stop_) {
      const ssize_t result = ::write(to, damaged.data() + written, damaged.size() - written);
      if (result > 0)
        written += static_cast<std::size_t>(result);
      else
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  Damage damage_;
  std::mt19937_64 random_;
  int device_ = -1, near_ = -1, far_ = -1;
  std::string path_;
  Counts counts_;
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

}  // namespace couplet::testing
