#pragma once
// Which FMU the current thread is running code of, and where: an FMU that ends
// the process (exit() inside fmi2DoStep) leaves couplet no error status to
// check, so whoever catches the exit (host_tools/process/exit_watch.hpp) asks this
// instead, on the thread that called exit(). Setting and clearing it stores
// one thread-local pointer: no allocation, no lock (the stepping path).
#include <string>

namespace couplet::models::fmi {

struct FmuCall {
  const std::string& slave_name;
  const std::string& fmu_path;
  const char* function;  ///< "fmi2DoStep"
  double time;           ///< the communication point, s
};

/// Marks `call` as running on this thread for the scope's life.
class FmuCallScope {
 public:
  explicit FmuCallScope(const FmuCall& call) noexcept;
  ~FmuCallScope();
  FmuCallScope(const FmuCallScope&) = delete;
  FmuCallScope& operator=(const FmuCallScope&) = delete;

 private:
  const FmuCall* previous_;
};

/// The FMU call running on this thread, or nullptr.
const FmuCall* fmu_call_in_progress() noexcept;

}  // namespace couplet::models::fmi
