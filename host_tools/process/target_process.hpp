#pragma once
// A target program — couplet-target or a device program built with the SDK —
// started by the master for `link: {spawn: true}` (host test benches). The executable is looked up
// in $COUPLET_TARGET, then beside the running executable (/proc/self/exe), then one directory up.
// The child reports where it listens on a stdout line ("couplet-target ready udp 127.0.0.1:45678",
// or QEMU's "char device redirected to /dev/pts/7 (label serial0)" for an emulated board's UART;
// lines before it are skipped); it receives SIGTERM if the master dies (PR_SET_PDEATHSIG) and when
// this object is destroyed. It runs in a process group of its own, so a Ctrl-C meant for the master
// does not end it mid-run.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/peer_process.hpp"

namespace couplet::tools {

class TargetProcess final : public drivers::PeerProcess {
 public:
  /// Starts `program` (empty: couplet-target; a name without a slash: found on
  /// PATH) with `arguments` and waits up to
  /// `timeout` for its ready line ("PROGRAM ready udp HOST:PORT", or QEMU's
  /// "char device redirected to PATH (label serial0)"). Throws
  /// ConfigurationError naming `slave_name` on failure.
  static std::unique_ptr<TargetProcess> spawn(const std::string& program,
                                              const std::vector<std::string>& arguments,
                                              const std::string& slave_name,
                                              std::chrono::milliseconds timeout);
  ~TargetProcess() override;
  TargetProcess(const TargetProcess&) = delete;
  TargetProcess& operator=(const TargetProcess&) = delete;

  /// "udp" or "serial", and "127.0.0.1:45678" or "/dev/pts/7".
  const std::string& kind() const { return kind_; }
  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

  std::optional<std::string> ended() override;
  void end_now() override;
  /// The program's file name, with `--fmu PATH` or `--model NAME` when given.
  const std::string& command() const override { return command_; }

  /// Path of the couplet-target executable (throws ConfigurationError if none).
  static std::string locate_executable();

 private:
  TargetProcess(pid_t pid, int output, std::string command)
      : pid_(pid), output_(output), command_(std::move(command)) {}
  /// True once the process has ended (reaped here, its status kept).
  bool has_exited();
  bool wait_for_exit(std::chrono::milliseconds patience);
  void terminate();

  pid_t pid_;
  int output_;
  std::string command_;
  std::optional<int> wait_status_;  ///< waitpid's status, once reaped
  std::string kind_;
  std::string address_;
};

}  // namespace couplet::tools
