#pragma once
// The process behind a link when this master started it (a spawned target, an
// isolated slave, docs/links.md "Liveness"): the link client asks it whether it
// has ended whenever an answer is overdue, so that a target that crashed or
// exited is named at once, with its signal or exit status, instead of after the
// link's timeout of silence; and it ends a target declared hung.
#include <optional>
#include <string>

namespace couplet::drivers {

class PeerProcess {
 public:
  virtual ~PeerProcess() = default;

  /// How the process ended ("exited with status 3", "was killed by signal 11
  /// (SIGSEGV)"), or nothing while it runs. Called by the stepping thread while
  /// it waits for an answer: one waitpid(WNOHANG); nothing allocates while the
  /// process runs.
  virtual std::optional<std::string> ended() = 0;

  /// Ends the process at once (SIGKILL) and reaps it: for a target declared
  /// hung, which cannot stop by itself.
  virtual void end_now() = 0;

  /// What runs there, for messages: "couplet-target --fmu /path/model.fmu".
  virtual const std::string& command() const = 0;
};

}  // namespace couplet::drivers
