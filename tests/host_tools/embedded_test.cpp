// The embedded core (targets/embedded/, docs/embedded.md) coupled by the master
// end to end: couplet-embedded-mass, the core and a translational mass written
// in C, built for the host and served over a pseudo-terminal, stands in for
// the built-in left mass of the two-mass switch. Integrated by the same explicit
// Euler, it must give the built-in model's decision hash and signals.csv byte
// for byte — directly, and through a relay that flips bits, drops bytes and
// puts garbage between frames.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>

#include <atomic>
#include <random>
#include <thread>

#include "process_support.hpp"
#include "test_support.hpp"

namespace couplet::testing {
namespace {

struct Outcome {
  nlohmann::json summary;
  std::string signals;
};

Outcome run_case(const std::vector<std::string>& assignments, const std::string& name) {
  const nlohmann::json summary = run("two_mass_switch.yaml", assignments, name);
  return {summary, read_file(run_directory(name) / "signals.csv")};
}

const std::string kParameters = "{m: 10, c: 1, d: 0.1, x0: 1, v0: 0";

// The built-in left mass with the C model's integrator and capabilities.
std::vector<std::string> builtin_left(std::vector<std::string> settings) {
  settings.push_back("slaves.left.solver={type: euler, substeps: 4}");
  settings.push_back("slaves.left.capabilities={max_input_degree: 3, output_derivative_order: 1}");
  return settings;
}

std::vector<std::string> device_left(std::vector<std::string> settings, const std::string& link) {
  settings.push_back("slaves.left={device: translational_mass, parameters: " + kParameters +
                     ", substeps: 4}, link: " + link + "}");
  return settings;
}

// A device has no equations on the host: no monolithic reference in either run.
std::vector<std::string> common(const std::string& algorithm) {
  return {"algorithm=" + algorithm, "time.end=12", "slaves.right.parameters.switch_time=6",
          "reference=none"};
}

void expect_identical(const Outcome& builtin, const Outcome& device) {
  EXPECT_EQ(device.summary.at("decision_hash"), builtin.summary.at("decision_hash"));
  EXPECT_EQ(device.summary.at("macro_steps"), builtin.summary.at("macro_steps"));
  EXPECT_FALSE(builtin.signals.empty());
  EXPECT_TRUE(device.signals == builtin.signals) << "signals.csv differs";
}

struct AlgorithmCase {
  const char* label;
  const char* algorithm;
};

class EmbeddedOverPty : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(EmbeddedOverPty, GivesTheBuiltinModelsResultsBitForBit) {
  const AlgorithmCase& c = GetParam();
  const Outcome builtin = run_case(builtin_left(common(c.algorithm)), std::string("emb-builtin-") + c.label);
  const std::string link = "{spawn: true, program: " + std::string(COUPLET_EMBEDDED_MASS) +
                           ", serial: {device: pty}}";
  const Outcome device = run_case(device_left(common(c.algorithm), link), std::string("emb-device-") + c.label);
  expect_identical(builtin, device);
  const auto& counters = device.summary.at("links").at("left");
  EXPECT_NE(counters.at("link").get<std::string>().find("serial /dev/pts/"), std::string::npos);
  EXPECT_EQ(counters.at("drops").get<int>(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms, EmbeddedOverPty,
    ::testing::Values(AlgorithmCase{"jacobi", "{type: jacobi, step: 0.01, input_order: 0}"},
                      AlgorithmCase{"jacobi_taylor", "{type: jacobi, step: 0.02, input_order: 1}"},
                      AlgorithmCase{"defect_control",
                                    "{type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}"}),
    [](const auto& test) { return std::string(test.param.label); });

/// Forwards bytes between a serial line (the device's pty) and a new
/// pseudo-terminal (for the master), damaging them in both directions: each
/// byte is flipped in one bit or dropped with the given probability, and after
/// a frame delimiter a burst of random bytes follows now and then.
class DamagingSerialRelay {
 public:
  struct Damage {
    double bit_flip = 1e-3;      ///< per byte
    double drop = 1e-3;          ///< per byte
    double garbage_burst = 0.05;  ///< per frame delimiter
    std::uint64_t seed = 1;
  };
  struct Counts {
    std::atomic<std::uint64_t> bytes{0}, flips{0}, drops{0}, bursts{0};
  };

  DamagingSerialRelay(const std::string& device_path, Damage damage) : damage_(damage), random_(damage.seed) {
    device_ = ::open(device_path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (device_ < 0) throw std::runtime_error("relay: cannot open " + device_path);
    termios raw{};
    ::tcgetattr(device_, &raw);
    ::cfmakeraw(&raw);
    ::tcsetattr(device_, TCSANOW, &raw);
    char name[128] = {};
    termios master_raw{};
    ::cfmakeraw(&master_raw);
    if (::openpty(&near_, &far_, name, &master_raw, nullptr) != 0) throw std::runtime_error("relay: openpty");
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
        for (std::size_t k = 0; k < length; ++k) damaged.push_back(static_cast<std::uint8_t>(random_()));
      }
    }
    std::size_t written = 0;
    while (written < damaged.size() && !stop_) {
      const ssize_t result = ::write(to, damaged.data() + written, damaged.size() - written);
      if (result > 0) written += static_cast<std::size_t>(result);
      else std::this_thread::sleep_for(std::chrono::microseconds(200));
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

TEST(EmbeddedThroughDamagingRelay, CompletesWithTheBuiltinModelsHash) {
  for (const AlgorithmCase& c :
       {AlgorithmCase{"jacobi", "{type: jacobi, step: 0.01, input_order: 0}"},
        AlgorithmCase{"defect_control", "{type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}"}}) {
    const Outcome builtin = run_case(builtin_left(common(c.algorithm)), std::string("emb-relay-builtin-") + c.label);
    ChildProcess device({COUPLET_EMBEDDED_MASS, "--serial", "pty"});
    DamagingSerialRelay relay(device.ready_address(), {.seed = 7});
    const std::string link =
        "{serial: {device: " + relay.path() + "}, retransmit_timeout: 0.005, timeout: 10}";
    const Outcome damaged = run_case(device_left(common(c.algorithm), link), std::string("emb-relay-") + c.label);
    expect_identical(builtin, damaged);
    // The damage happened, and the link repaired it.
    EXPECT_GT(relay.counts().flips.load(), 20U) << c.label;
    EXPECT_GT(relay.counts().drops.load(), 20U) << c.label;
    EXPECT_GT(relay.counts().bursts.load(), 20U) << c.label;
    const auto& counters = damaged.summary.at("links").at("left");
    EXPECT_GT(counters.at("retransmissions").get<int>(), 20) << counters.dump();
    EXPECT_GT(counters.at("drops").get<int>(), 5) << counters.dump();
  }
}

// Real-time mode: the C mass runs on the wall clock of its host program, takes
// the newest input from its arrival and pushes its outputs at each
// communication time; the run stays close to the built-in virtual-time run.
TEST(EmbeddedRealtime, FollowsTheWallClockAndReportsLateness) {
  const std::vector<std::string> settings = {"time.end=1", "algorithm.step=0.005", "reference=none"};
  const Outcome builtin = run_case(builtin_left(settings), "emb-realtime-builtin");
  std::vector<std::string> realtime = settings;
  realtime.push_back("clock={type: wall, tolerance: 0.002, max_misses: 1000}");
  const std::string link = "{spawn: true, program: " + std::string(COUPLET_EMBEDDED_MASS) +
                           ", serial: {device: pty}, realtime: true}";
  const Outcome device = run_case(device_left(realtime, link), "emb-realtime-device");
  const auto& entry = device.summary.at("realtime").at("slaves").at("left");
  EXPECT_TRUE(entry.at("real_time_target").get<bool>());
  EXPECT_GT(entry.at("input_lateness_us").at("median").get<double>(), 0.0) << "inputs arrive after their step starts";
  EXPECT_LT(entry.at("missed_results").get<int>(), 100) << entry.dump();
  EXPECT_EQ(device.summary.at("realtime").at("cycles").get<int>(), 200);
  // Close to the virtual-time run: the last left.x differs by little.
  const auto last_value = [](const std::string& csv) {
    const std::string last_line = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    return std::stod(last_line.substr(last_line.find(',') + 1));
  };
  EXPECT_NEAR(last_value(device.signals), last_value(builtin.signals), 0.05);
}

// The host program refuses a bad command line with exit code 2.
TEST(EmbeddedHostProgram, RejectsABadCommandLine) {
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{COUPLET_EMBEDDED_MASS},
        std::vector<std::string>{COUPLET_EMBEDDED_MASS, "--serial", "pty", "--session-timeout", "0"},
        std::vector<std::string>{COUPLET_EMBEDDED_MASS, "--serial", "/nonexistent/tty"},
        std::vector<std::string>{COUPLET_EMBEDDED_MASS, "--bogus"}}) {
    ChildProcess program(words);
    EXPECT_EQ(program.wait_exit(std::chrono::seconds(5)).value_or(-1), 2) << words.back();
  }
}

}  // namespace
}  // namespace couplet::testing
