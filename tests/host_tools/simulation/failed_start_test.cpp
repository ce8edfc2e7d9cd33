// A run whose target never answers Hello fails before its first step; it is a
// failed run all the same (docs/cli.md): exit code 1, and summary.json with
// "status": "failed" and the error, in place of an earlier run's files.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

/// A UDP socket on the loopback that receives and never answers: a target that
/// is not serving. Closed at the end of the test.
class SilentPeer {
 public:
  SilentPeer() : descriptor_(::socket(AF_INET, SOCK_DGRAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(descriptor_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::runtime_error("bind");
    socklen_t length = sizeof address;
    ::getsockname(descriptor_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~SilentPeer() { ::close(descriptor_); }
  SilentPeer(const SilentPeer&) = delete;
  SilentPeer& operator=(const SilentPeer&) = delete;

  int port() const { return port_; }

 private:
  int descriptor_;
  int port_ = 0;
};

TEST(FailedStart, ATargetThatNeverAnswersHelloLeavesAFailedSummary) {
  const SilentPeer peer;
  const fs::path directory = fresh_directory("silent-target");
  fs::create_directories(directory);
  // An earlier run's files must not survive to be mistaken for this run's.
  std::ofstream(directory / "summary.json") << R"({"status": "completed"})";
  std::ofstream(directory / "signals.csv") << "time,left.x\n0,1\n";
  int exit_code = -1;
  const std::string output = command_output(
      std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
          " --set reference=none --set 'slaves.left.link={udp: \"127.0.0.1:" +
          std::to_string(peer.port()) + "\", timeout: 0.3}' -q -o " + directory.string(),
      exit_code);
  EXPECT_EQ(exit_code, 1) << output;
  EXPECT_NE(output.find("couplet: run failed: "), std::string::npos) << output;
  ASSERT_TRUE(fs::exists(directory / "summary.json")) << output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(directory / "summary.json"));
  EXPECT_EQ(summary.at("status"), "failed");
  EXPECT_EQ(summary.at("scenario"), "two_mass_switch");
  EXPECT_NE(summary.at("error").get<std::string>().find("slave 'left'"), std::string::npos)
      << summary.dump();
  EXPECT_DOUBLE_EQ(summary.at("end_time").get<double>(), 0.0);
  EXPECT_EQ(summary.at("macro_steps"), 0);
  EXPECT_FALSE(fs::exists(directory / "signals.csv"));
}

// A scenario refused before the run (exit 2) still leaves the directory as it was.
TEST(FailedStart, ARefusedScenarioLeavesTheDirectoryAsItWas) {
  const fs::path directory = fresh_directory("refused-start");
  fs::create_directories(directory);
  std::ofstream(directory / "summary.json") << R"({"status": "completed"})";
  int exit_code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set slaves.left.model=no_such_model -q -o " + directory.string(),
                     exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_EQ(read_file(directory / "summary.json"), R"({"status": "completed"})");
}

}  // namespace
}  // namespace couplet::testing
